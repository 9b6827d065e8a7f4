//! A run taken in steps (`World::run_until`): the same results as one call,
//! live state that moves as the run does, and changes made between steps
//! that show in the results at the instant they were made.

use pertlab_sim::scenario::{CcSpec, MonitorSpec, QueueSpec, Scenario, TxEndEvents};
use pertlab_sim::tcp::TcpConfig;
use pertlab_sim::time::{NS_PER_MS, NS_PER_SEC};
use pertlab_sim::world::World;

mod common;
use common::*;

/// Eight SACK flows and two PERT flows on 20 Mbit/s, 40 ms, RED, sampled every 100 ms.
fn mixed() -> Scenario {
    let red = QueueSpec { kind: "red".into(), limit_pkts: Some(bdp_pkts(20, 40)), ..QueueSpec::default() };
    let mut flows = bulk_flows(8, CcSpec::Reno, TcpConfig::default(), NS_PER_SEC);
    flows.extend(bulk_flows(2, CcSpec::Pert(Default::default()), TcpConfig::default(), NS_PER_SEC));
    for (i, f) in flows.iter_mut().enumerate() {
        f.src = format!("s{i}");
        f.dst = format!("d{i}");
    }
    let mut s = scenario(dumbbell(10, 20, 40, red), flows, 20, 5);
    s.monitor = MonitorSpec { sample_interval_ns: Some(100 * NS_PER_MS), ..MonitorSpec::default() };
    s
}

fn in_one_go(s: &Scenario) -> String {
    let mut r = pertlab_sim::run(s).unwrap();
    r.wall_seconds = 0.0;
    serde_json::to_string(&r).unwrap()
}

#[test]
fn a_run_in_steps_gives_the_results_of_one_call() {
    for tx_end_events in [TxEndEvents::Always, TxEndEvents::WhenNeeded] {
        let mut s = mixed();
        s.engine.tx_end_events = tx_end_events;
        in_steps_as_in_one_go(&s);
    }
}

fn in_steps_as_in_one_go(s: &Scenario) {
    let mut w = World::build(s).unwrap();
    // Uneven steps, one ending on the window's start and one past the end.
    let mut t = 0;
    for step_ms in [1, 333, 4666, 7, 2500, 12_000, 99_999] {
        t += step_ms * NS_PER_MS;
        let over = w.run_until(t, &mut |_| true);
        assert_eq!(w.now(), t.min(s.duration_ns));
        let live = w.live();
        assert_eq!(live.now_ns, w.now());
        assert_eq!(over, t >= s.duration_ns);
    }
    w.finish();
    let mut stepped = w.into_results();
    stepped.wall_seconds = 0.0;
    assert_eq!(serde_json::to_string(&stepped).unwrap(), in_one_go(s));
}

#[test]
fn live_state_follows_the_run() {
    let s = mixed();
    let mut w = World::build(&s).unwrap();
    w.run_until(NS_PER_SEC / 2, &mut |_| true);
    let before = w.live();
    assert_eq!(before.flows.len(), 10);
    // Starts are drawn within the first second: some flows have not started yet or sent little.
    w.run_until(10 * NS_PER_SEC, &mut |_| true);
    let live = w.live();
    assert!(live.events > before.events);
    for f in &live.flows {
        assert!(f.started && f.bytes_acked > 0 && f.srtt_ns >= 40 * NS_PER_MS, "{f:?}");
        assert!(f.min_rtt_ns >= 40 * NS_PER_MS && f.min_rtt_ns <= f.srtt_ns + 20 * NS_PER_MS, "{f:?}");
    }
    assert_eq!(live.flows[9].cc, "pert");
    let bottleneck = live.queues.iter().find(|q| q.discipline == "red").unwrap();
    assert!(bottleneck.arrivals > 0 && bottleneck.average.unwrap() > 0.0);
    // The sum of what each flow has acknowledged matches the bottleneck's departures, within the packets in flight.
    let acked_pkts: u64 = live.flows.iter().map(|f| f.bytes_acked / 1460).sum();
    let in_flight: u64 = live.flows.iter().map(|f| u64::from(f.in_flight)).sum();
    assert!(acked_pkts <= bottleneck.departures && bottleneck.departures <= acked_pkts + in_flight + 10, "{acked_pkts} {in_flight} {}", bottleneck.departures);
}

#[test]
fn a_rate_change_between_steps_shows_at_that_instant() {
    let s = mixed();
    let mut w = World::build(&s).unwrap();
    let departures = |w: &World| w.live().queues.iter().find(|q| q.link == "bottleneck" && q.from == "r0").unwrap().departure_bytes;
    // Bits per second through r0 -> r1 over one second from `t`.
    let rate_from = |w: &mut World, t: u64| {
        w.run_until(t, &mut |_| true);
        let d0 = departures(w);
        w.run_until(t + NS_PER_SEC, &mut |_| true);
        (departures(w) - d0) as f64 * 8.0
    };
    let before = rate_from(&mut w, 8 * NS_PER_SEC);
    w.set_link_rate("bottleneck", 5_000_000).unwrap();
    let changed = w.live().queues.iter().filter(|q| q.link == "bottleneck").map(|q| q.rate_bps).collect::<Vec<_>>();
    let after = rate_from(&mut w, 9 * NS_PER_SEC);
    eprintln!("r0 -> r1 sent {before:.0} bit/s at 20 Mbit/s and {after:.0} bit/s in the second after the change to 5 Mbit/s");
    assert_eq!(changed, [5_000_000, 5_000_000]);
    // RED keeps the link busy most of the time; after the change, never faster than 5 Mbit/s
    // (one 1500-byte packet may still leave at the old rate) and busy nearly all the time.
    assert!(before > 0.9 * 20e6 && before <= 20e6 + 12_000.0, "{before}");
    assert!(after > 0.95 * 5e6 && after <= 5e6 + 12_000.0, "{after}");
}

#[test]
fn a_queue_is_said_never_to_act_only_at_the_slowest_rate_its_link_has_had() {
    // CoDel on 20 packets of 1500 bytes: 2.4 ms at 100 Mbit/s, below its 5 ms target; 24 ms at
    // 10 Mbit/s, where it can act. Once the link has been that slow, a later speed-up does not
    // make the warning true again for the run: CoDel may have dropped in between.
    let codel = QueueSpec { kind: "codel".into(), limit_pkts: Some(20), ..QueueSpec::default() };
    let s = scenario(dumbbell(2, 100, 40, codel), bulk_flows(2, CcSpec::Reno, TcpConfig::default(), NS_PER_SEC), 10, 2);
    let mut w = World::build(&s).unwrap();
    let warned = |w: &World| w.queue_warnings().iter().filter(|q| q.starts_with("bottleneck (r0 -> r1, codel)")).count();
    assert_eq!(warned(&w), 1);
    w.run_until(3 * NS_PER_SEC, &mut |_| true);
    w.set_link_rate("bottleneck", 10_000_000).unwrap();
    assert_eq!(warned(&w), 0);
    w.run_until(6 * NS_PER_SEC, &mut |_| true);
    w.set_link_rate("bottleneck", 100_000_000).unwrap();
    assert_eq!(warned(&w), 0);
    w.finish();
    assert!(!w.into_results().queue_warnings.iter().any(|q| q.contains("codel")));
}

#[test]
fn changes_between_steps_name_what_is_wrong() {
    let mut w = World::build(&mixed()).unwrap();
    let e = w.set_link_rate("nowhere", 1_000_000).unwrap_err().to_string();
    assert!(e.starts_with("link: no link named \"nowhere\"") && e.contains("bottleneck"), "{e}");
    let e = w.set_link_rate("bottleneck", 0).unwrap_err().to_string();
    assert!(e.starts_with("rate_bps:"), "{e}");
    let e = w.set_flow_sending(10, false).unwrap_err().to_string();
    assert!(e.starts_with("flow: no flow 10; the long flows are 0 to 9"), "{e}");
}

#[test]
fn a_flow_stopped_between_steps_sends_nothing_new_until_resumed() {
    let mut w = World::build(&mixed()).unwrap();
    w.run_until(5 * NS_PER_SEC, &mut |_| true);
    w.set_flow_sending(3, false).unwrap();
    w.run_until(8 * NS_PER_SEC, &mut |_| true);
    let sent = w.live().flows[3].segments_sent;
    w.run_until(10 * NS_PER_SEC, &mut |_| true);
    assert_eq!(w.live().flows[3].segments_sent, sent, "a stopped flow sent");
    w.set_flow_sending(3, true).unwrap();
    w.run_until(11 * NS_PER_SEC, &mut |_| true);
    assert!(w.live().flows[3].segments_sent > sent + 10);
}

#[test]
fn an_agent_flow_keeps_the_window_it_is_given() {
    let mut s = mixed();
    s.flows[0].cc = CcSpec::Agent;
    let mut w = World::build(&s).unwrap();
    w.run_until(3 * NS_PER_SEC, &mut |_| true);
    let init = TcpConfig::default().init_cwnd;
    let f = &w.live().flows[0];
    // No agent yet: the initial window, or one segment after a timeout (a window of two
    // cannot raise three duplicate ACKs).
    assert!(f.cwnd == init || (f.cwnd == 1 && f.timeouts > 0), "{f:?}");
    w.set_cwnd(0, 20).unwrap();
    assert_eq!(w.live().flows[0].in_flight, 20, "the new window is filled at once");
    w.run_until(6 * NS_PER_SEC, &mut |_| true);
    let f = &w.live().flows[0];
    // Losses at the RED bottleneck keep the window (only a timeout would set it to 1).
    assert!(f.cwnd == 20 || f.timeouts > 0, "{f:?}");
    assert_eq!(f.cc, "agent");
    let e = w.set_cwnd(1, 10).unwrap_err().to_string();
    assert!(e.starts_with("flow: flow 1's controller is reno"), "{e}");
    assert!(w.set_cwnd(0, 0).unwrap_err().to_string().starts_with("cwnd:"));
}

/// Four PERT flows on 20 Mbit/s, 40 ms, a DropTail buffer of four BDPs (so that the queue PERT
/// keeps, not the buffer, sets the delay), sampled every 100 ms.
fn pert_flows() -> Scenario {
    let flows = bulk_flows(4, CcSpec::Pert(Default::default()), TcpConfig::default(), NS_PER_SEC);
    let mut s = scenario(dumbbell(4, 20, 40, droptail(4 * bdp_pkts(20, 40))), flows, 20, 5);
    s.monitor = MonitorSpec { sample_interval_ns: Some(100 * NS_PER_MS), ..MonitorSpec::default() };
    s
}

/// Mean packets queued at r0 -> r1 over the samples in (from, to] seconds.
fn mean_queue(r: &pertlab_sim::stats::Results, from: f64, to: f64) -> f64 {
    let qs = &r.queue_series;
    let forward = r.queues.iter().position(|q| q.link == "bottleneck" && q.from == "r0").unwrap() as u32;
    let lens: Vec<f64> =
        (0..qs.t_s.len()).filter(|&i| qs.queue[i] == forward && qs.t_s[i] > from && qs.t_s[i] <= to).map(|i| f64::from(qs.len_pkts[i])).collect();
    lens.iter().sum::<f64>() / lens.len() as f64
}

#[test]
fn pert_thresholds_raised_between_steps_let_the_queue_grow_to_them() {
    // PERT's response probability rises from 0 at a queueing delay of t_min to p_max at t_max:
    // four flows growing by a segment per RTT hold the queue between the two (5 and 10 ms are 8.3
    // and 16.7 packets at 20 Mbit/s). Raised to 30 and 60 ms at 10 s (50 and 100 packets), the
    // queue moves up between the new ones.
    let s = pert_flows();
    let mut w = World::build(&s).unwrap();
    w.run_until(10 * NS_PER_SEC, &mut |_| true);
    for f in 0..4 {
        w.set_cc_param(f, "t_max_ns", serde_json::json!(60 * NS_PER_MS)).unwrap();
        w.set_cc_param(f, "t_min_ns", serde_json::json!(30 * NS_PER_MS)).unwrap();
    }
    w.run_until(s.duration_ns, &mut |_| true);
    w.finish();
    let r = w.into_results();
    let (before, after) = (mean_queue(&r, 5.0, 10.0), mean_queue(&r, 13.0, 20.0));
    eprintln!("mean queue {before:.1} packets with 5/10 ms, {after:.1} with 30/60 ms");
    let packets = |delay_s: f64| 20e6 * delay_s / 12_000.0;
    assert!(before > packets(0.005) && before < packets(0.010), "{before}");
    assert!(after > packets(0.030) && after < packets(0.060), "{after}");
}

#[test]
fn a_parameter_set_to_its_value_changes_nothing() {
    let s = pert_flows();
    let mut w = World::build(&s).unwrap();
    w.run_until(7 * NS_PER_SEC, &mut |_| true);
    w.set_cc_param(2, "p_max", serde_json::json!(0.05)).unwrap();
    w.set_cc_param(3, "t_min_ns", serde_json::json!(5 * NS_PER_MS)).unwrap();
    w.run_until(s.duration_ns, &mut |_| true);
    w.finish();
    let mut stepped = w.into_results();
    stepped.wall_seconds = 0.0;
    assert_eq!(serde_json::to_string(&stepped).unwrap(), in_one_go(&s));
}

#[test]
fn a_bad_parameter_is_refused_as_a_scenario_holding_it_is() {
    let s = pert_flows();
    let mut w = World::build(&s).unwrap();
    // A value out of range: the message of the scenario's validation.
    let e = w.set_cc_param(1, "p_max", serde_json::json!(1.5)).unwrap_err();
    let mut bad = s.clone();
    let CcSpec::Pert(c) = &mut bad.flows[1].cc else { unreachable!() };
    c.p_max = 1.5;
    assert_eq!(e, bad.validate().unwrap_err());
    assert_eq!(e.to_string(), "flows[1].cc.p_max: must lie in (0, 1], got 1.5");
    let e = w.set_cc_param(1, "t_min_ns", serde_json::json!(10 * NS_PER_MS)).unwrap_err();
    assert_eq!(e.to_string(), "flows[1].cc.t_min_ns: must be less than t_max_ns (10000000), got 10000000");
    // A value of the wrong type, a field that does not change mid-run, a controller without any.
    let e = w.set_cc_param(1, "t_min_ns", serde_json::json!("soon")).unwrap_err();
    assert!(e.to_string().starts_with("flows[1].cc.t_min_ns: invalid type: string \"soon\", expected u64"), "{e}");
    let e = w.set_cc_param(1, "srtt_weight", serde_json::json!(0.9)).unwrap_err();
    assert_eq!(e.to_string(), "flows[1].cc.srtt_weight: not a parameter of pert that changes mid-run; those are t_min, t_max, p_max, decrease");
    // No name at all: the generated steps found "flows[1].cc.: not a parameter ...", a path with an empty field.
    let e = w.set_cc_param(1, "", serde_json::json!(0.9)).unwrap_err();
    assert_eq!(e.to_string(), "field: must name a parameter of pert; those that change mid-run are t_min, t_max, p_max, decrease");
    let e = w.set_cc_param(4, "p_max", serde_json::json!(0.1)).unwrap_err();
    assert_eq!(e.to_string(), "flow: no flow 4; the long flows are 0 to 3");
    let mut w = World::build(&mixed()).unwrap();
    let e = w.set_cc_param(0, "p_max", serde_json::json!(0.1)).unwrap_err().to_string();
    assert!(e.starts_with("flows[0].cc: flow 0's controller is reno, which has no parameters that change mid-run; those that have: pert (t_min"), "{e}");
    // Nothing changed: the refused values left the run as it was.
    w.run_until(s.duration_ns, &mut |_| true);
    w.finish();
    let mut r = w.into_results();
    r.wall_seconds = 0.0;
    assert_eq!(serde_json::to_string(&r).unwrap(), in_one_go(&mixed()));
}

#[test]
fn a_flow_started_between_steps_sends_from_then() {
    let mut s = mixed();
    s.flows[3].start_window_ns = None;
    s.flows[3].start_ns = Some(15 * NS_PER_SEC);
    let mut w = World::build(&s).unwrap();
    w.run_until(2 * NS_PER_SEC, &mut |_| true);
    let e = w.set_flow_sending(3, true).unwrap_err().to_string();
    assert_eq!(e, "flow: flow 3 has not started (its start time is 15 s), so it cannot resume; start_flow starts it now");
    assert!(!w.live().flows[3].started);
    w.start_flow(3).unwrap();
    let f = &w.live().flows[3];
    assert!(f.started && f.segments_sent > 0, "{f:?}");
    w.run_until(5 * NS_PER_SEC, &mut |_| true);
    assert!(w.live().flows[3].bytes_acked > 100 * 1460);
    let e = w.start_flow(3).unwrap_err().to_string();
    assert_eq!(e, "flow: flow 3 started already, at 2 s");
    // The start scheduled at 15 s finds the flow started and does nothing.
    w.run_until(s.duration_ns, &mut |_| true);
    w.finish();
    let r = w.into_results();
    assert_eq!(r.flows[3].start_s, 2.0);
    assert!(r.conservation.ok, "{:?}", r.conservation);
}
