//! `engine.tx_end_events = when_needed` (the module doc of `net`): a packet
//! that starts on an idle lossless channel has its arrival scheduled at once,
//! and its transmission's end is no event. The model is the same; only events
//! due at the very same nanosecond may run in another order.

use pertlab_sim::presets::canonical_dumbbell_with_queue;
use pertlab_sim::scenario::{Scenario, TxEndEvents};
use serde_json::Value;

/// The run's results as JSON, and its event count, without the wall time.
fn results(s: &Scenario) -> (Value, u64) {
    let r = pertlab_sim::run(s).unwrap();
    let mut v = serde_json::to_value(&r).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("wall_seconds");
    let events = o.remove("events").unwrap().as_u64().unwrap();
    (v, events)
}

/// On the canonical dumbbell (150 Mbit/s, 60 ms, 50 SACK flows) no two events
/// whose order the change could swap fall on the same nanosecond: every result
/// but the event count is the same, every access link's transmission ends and
/// many of the bottleneck's are gone. The packets of a window that a sender
/// puts on its idle access link at one instant exercise the `TxDone` scheduled
/// late (all but the first wait behind a transmission that has no end event).
#[test]
fn the_canonical_dumbbell_gives_the_same_results_with_two_fifths_fewer_events() {
    for queue in ["droptail", "red"] {
        let mut s = canonical_dumbbell_with_queue(50, 20, queue);
        s.engine.tx_end_events = TxEndEvents::Always;
        let (always, events_always) = results(&s);
        s.engine.tx_end_events = TxEndEvents::WhenNeeded;
        let (when_needed, events_when_needed) = results(&s);
        assert!(always == when_needed, "{queue}: results differ");
        let ratio = events_when_needed as f64 / events_always as f64;
        // Each packet hop was an arrival and a transmission end: the access
        // links' ends are two thirds of the ends, a third of all events.
        assert!((0.55..0.68).contains(&ratio), "{queue}: {events_when_needed} events against {events_always} ({ratio:.3})");
    }
}

/// A lossy channel draws its losses at transmission ends, so it keeps them as
/// events: with Bernoulli losses on the bottleneck the two modes draw the same
/// losses and give the same results.
#[test]
fn a_lossy_link_keeps_its_transmission_ends() {
    let mut s = canonical_dumbbell_with_queue(10, 10, "droptail");
    s.dumbbell.as_mut().unwrap().bottleneck_loss = 0.001;
    s.engine.tx_end_events = TxEndEvents::Always;
    let (always, _) = results(&s);
    s.engine.tx_end_events = TxEndEvents::WhenNeeded;
    let (when_needed, _) = results(&s);
    assert!(always == when_needed, "results differ");
    let losses = always["bottleneck"]["link_losses"].as_u64().unwrap();
    // About 0.001 of the tens of thousands of data packets the bottleneck carries.
    assert!(losses > 30, "{losses} losses");
}

#[test]
fn the_wire_name_and_a_bad_value() {
    let s = canonical_dumbbell_with_queue(2, 1, "droptail");
    let mut wire = serde_json::to_value(&s).unwrap();
    // The default (issue 21), also where the wire has no engine section.
    assert_eq!(wire["engine"]["tx_end_events"], "when_needed");
    wire.as_object_mut().unwrap().remove("engine");
    assert_eq!(Scenario::from_json(&wire.to_string()).unwrap().engine.tx_end_events, TxEndEvents::WhenNeeded);
    wire["engine"] = serde_json::json!({"tx_end_events": "always"});
    let parsed = Scenario::from_json(&wire.to_string()).unwrap();
    assert_eq!(parsed.engine.tx_end_events, TxEndEvents::Always);
    wire["engine"]["tx_end_events"] = "sometimes".into();
    let e = Scenario::from_json(&wire.to_string()).unwrap_err().to_string();
    assert!(e.contains("engine.tx_end_events") && e.contains("when_needed"), "{e}");
}
