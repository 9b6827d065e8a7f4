//! Every queue discipline of issue 6 on a small TCP dumbbell: 20 Reno flows of
//! 1000-byte packets over 10 Mbps with an 80 ms round-trip propagation delay
//! (BDP = 10e6 * 0.08 / 8000 = 100 packets), a 300-packet buffer, 60 s
//! measured after 20 s (PI: 200 s after 100 s, see its test). Each run must conserve packets, keep the link busy
//! (utilization > 0.85), and hold the queue where the AQM aims it.

use pertlab_sim::queue::codel::CodelConfig;
use pertlab_sim::queue::pi::PiConfig;
use pertlab_sim::queue::pie::PieConfig;
use pertlab_sim::queue::red::RedConfig;
use pertlab_sim::scenario::{CcSpec, QueueSpec, Scenario};
use pertlab_sim::stats::QueueResult;
use pertlab_sim::tcp::TcpConfig;
use pertlab_sim::world::World;

mod common;
use common::*;

const BW_MBPS: u64 = 10;
const RTT_MS: u64 = 80;
const FLOWS: u32 = 20;
const LIMIT_PKTS: u32 = 300;

fn run(queue: QueueSpec, ecn: bool) -> QueueResult {
    run_for(queue, ecn, 80, 20)
}

fn run_for(queue: QueueSpec, ecn: bool, duration_s: u64, warmup_s: u64) -> QueueResult {
    let tcp = TcpConfig { packet_size: 1000, ecn, ..TcpConfig::default() };
    let s = scenario(dumbbell(FLOWS, BW_MBPS, RTT_MS, queue), bulk_flows(FLOWS, CcSpec::Reno, tcp, secs(5)), duration_s, warmup_s);
    let r = pertlab_sim::run(&s).unwrap();
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    let b = r.bottleneck.unwrap();
    eprintln!(
        "{:>7}{}: q {:6.2} pkts, delay {:5.2} ms, u {:.4}, drops {:6} ({:.4?}), marks {:6}",
        b.discipline,
        if ecn { "+ECN" } else { "    " },
        b.avg_queue_pkts,
        mean_delay_ms(&b),
        b.utilization,
        b.drops,
        b.drop_rate,
        b.marks
    );
    assert!(b.utilization > 0.85, "{}: utilization {}", b.discipline, b.utilization);
    b
}

/// Time-average queueing delay: the average backlog drained at the link rate
/// (what a byte arriving at a random time waits, by Little's law on a
/// work-conserving constant-rate link).
fn mean_delay_ms(b: &QueueResult) -> f64 {
    b.avg_queue_bytes * 8.0 / b.rate_bps as f64 * 1000.0
}

fn spec(kind: &str) -> QueueSpec {
    QueueSpec { kind: kind.into(), limit_pkts: Some(LIMIT_PKTS), ..QueueSpec::default() }
}

#[test]
fn pi_holds_the_average_queue_near_qref() {
    // PI's integral action removes the steady-state error: the average queue
    // settles at qref = 50 packets while the link stays busy. The ns-2 gains
    // (designed for 15 Mbps and 60 flows) integrate slowly: per sample p moves
    // by (a - b)(q - qref) = 6e-8 (q - qref), so reaching the ~2 % drop rate
    // these 20 flows need takes 0.02 / (6e-8 * 170 Hz * ~10 packets) = 200 s of
    // a 10-packet error (over the first 80 s the average is still ~62). Hence
    // 300 s, measured over the last 200: within 10 % of qref.
    let b = run_for(spec("pi"), false, 300, 100);
    assert!((b.avg_queue_pkts - 50.0).abs() < 5.0, "average queue {}", b.avg_queue_pkts);
    // A lower reference moves it along.
    let b = run_for(QueueSpec { pi: PiConfig { qref: 25.0, ..PiConfig::default() }, ..spec("pi") }, false, 300, 100);
    assert!((b.avg_queue_pkts - 25.0).abs() < 5.0, "average queue {}", b.avg_queue_pkts);
}

#[test]
fn pie_holds_the_queueing_delay_near_15_ms() {
    // PIE's integral term drives the delay samples to QDELAY_REF = 15 ms. The
    // time average weighs long queues a bit more than the per-packet samples
    // do, and TCP's sawtooth adds spread: expect 15 ms within a factor 1.5
    // (10 to 22.5 ms), far below the 240 ms a full 300-packet buffer means.
    let b = run(spec("pie"), false);
    let d = mean_delay_ms(&b);
    assert!((10.0..=22.5).contains(&d), "mean delay {d} ms");
}

#[test]
fn codel_holds_the_queueing_delay_near_5_ms() {
    // CoDel drops until the minimum sojourn over an interval is below TARGET =
    // 5 ms, so the time average, which adds each RTT's burst on top of the
    // standing queue, is above 5 ms. Here it is well above (17 ms): 20 Reno
    // flows with windows of ~6 packets need ~3 % drops, 37 per second, and
    // CoDel reaches that rate only after its count has grown to
    // (37/s * 100 ms)^2 = 14 within a dropping state, which every sojourn
    // dip below target ends (the known weakness of CoDel with many flows and
    // small windows). Bound: between 5 ms and 25 ms, a tenth of the 240 ms a
    // full buffer holds.
    let b = run(spec("codel"), false);
    let d = mean_delay_ms(&b);
    assert!((5.0..=25.0).contains(&d), "mean delay {d} ms");
    // A larger target raises it.
    let b20 = run(QueueSpec { codel: CodelConfig { target_ns: ms(20), ..CodelConfig::default() }, ..spec("codel") }, false);
    assert!(mean_delay_ms(&b20) > d + 5.0, "{} vs {d}", mean_delay_ms(&b20));
}

#[test]
fn the_red_family_keeps_the_average_between_the_thresholds() {
    // 1000-byte mean packet: the thesis's thresholds 5/15 at 10 Mbps for the
    // adaptive family, RED's 5/15 for Feng and NLRED. 20 flows need a drop
    // rate of about (1.22 / W)^2 with W = 100 / 20 + queue/20 packets, i.e. a
    // few per cent, which the adaptive members reach by raising max_p; the
    // average queue then stays below 2 max_th = 30 packets (the forced-drop
    // region of gentle RED).
    for kind in ["reared", "fared", "cared", "feng", "nlred"] {
        let red = RedConfig { mean_pkt_size: 1000, ..RedConfig::default() };
        let b = run(QueueSpec { red, ..spec(kind) }, false);
        assert!(b.avg_queue_pkts > 2.0 && b.avg_queue_pkts < 30.0, "{kind}: average queue {}", b.avg_queue_pkts);
    }
}

#[test]
fn ecn_variants_mark_instead_of_dropping() {
    let pi = QueueSpec { pi: PiConfig { use_ecn: true, ..PiConfig::default() }, ..spec("pi") };
    let pie = QueueSpec { pie: PieConfig { use_ecn: true, ..PieConfig::default() }, ..spec("pie") };
    let codel = QueueSpec { codel: CodelConfig { use_ecn: true, ..CodelConfig::default() }, ..spec("codel") };
    let cared = QueueSpec { red: RedConfig { use_ecn: true, mean_pkt_size: 1000, ..RedConfig::default() }, ..spec("cared") };
    for q in [pi, pie, codel, cared] {
        let b = run(q, true);
        assert!(b.marks > 100, "{}: marks {}", b.discipline, b.marks);
        assert!(b.drops * 10 < b.marks, "{}: drops {} should be rare next to marks {}", b.discipline, b.drops, b.marks);
    }
}

#[test]
fn bad_parameters_name_their_field() {
    let bad = |kind: &str, section: &str, field: &str, value: &str| {
        let json = format!(
            r#"{{"duration_ns": 1000, "nodes": ["a","b"], "links": [{{"a": "a", "b": "b", "rate_bps": 1000000, "delay_ns": 0,
                "queue": {{"kind": "{kind}", "{section}": {{"{field}": {value}}}}}}}]}}"#
        );
        let e = Scenario::from_json(&json).and_then(|s| World::build(&s).map(|_| ())).unwrap_err();
        assert_eq!(e.field, format!("links[0].queue.{section}.{field}"), "{e}");
    };
    bad("pi", "pi", "w_hz", "0");
    bad("pie", "pie", "mark_ecn_threshold", "2");
    bad("codel", "codel", "interval_ns", "0");
    bad("cared", "red", "reared_decrease_gain", "3");
    bad("feng", "red", "feng_alpha", "0.5");
    // The section of another kind is not validated: it is not used.
    let json = r#"{"duration_ns": 1000, "nodes": ["a","b"], "links": [{"a": "a", "b": "b", "rate_bps": 1000000, "delay_ns": 0,
        "queue": {"kind": "pie", "pi": {"w_hz": 0}}}]}"#;
    assert!(Scenario::from_json(json).and_then(|s| World::build(&s).map(|_| ())).is_ok());
    // Unknown kinds list the new ones.
    let json =
        r#"{"duration_ns": 1000, "nodes": ["a","b"], "links": [{"a": "a", "b": "b", "rate_bps": 1000000, "delay_ns": 0, "queue": {"kind": "fq_codel"}}]}"#;
    let e = Scenario::from_json(json).and_then(|s| World::build(&s).map(|_| ())).unwrap_err();
    assert!(e.message.contains("reared, fared, cared, feng, nlred, pi, pie, codel"), "{e}");
}
