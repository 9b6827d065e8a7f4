//! Issue 25: scenarios the schema accepts run to the end or are refused up
//! front with a field error; every number in the results is possible. One
//! regression test per failure the issue lists.

use pertlab_sim::world::{MemoryLimit, World};
use pertlab_sim::{Results, Scenario};

/// The issue's two-node scenario: a 10 Mbit/s, 5 ms link from `a` to `b`
/// (queue `queue`), one flow with TCP options `tcp`, `duration_ns` long.
fn two_nodes(duration_ns: u64, queue: &str, tcp: &str) -> String {
    format!(
        r#"{{"duration_ns": {duration_ns}, "nodes": ["a", "b"],
            "links": [{{"a": "a", "b": "b", "rate_bps": 10000000, "delay_ns": 5000000, "queue": {queue}}}],
            "flows": [{{"src": "a", "dst": "b", "tcp": {tcp}}}]}}"#
    )
}

fn run(json: &str) -> Results {
    let s = Scenario::from_json(json).expect("parses");
    pertlab_sim::run(&s).unwrap_or_else(|e| panic!("refused: {e}"))
}

#[test]
fn conservation_holds_per_flow_with_a_send_overhead() {
    // Issue 25 item 2: `sent 1630 != received 815 + dropped 0 + in network 811`.
    // Segments the send overhead holds at the end are neither sent nor in the network.
    let r = run(&two_nodes(1_000_000_000, "{}", r#"{"overhead_ns": 10000000}"#));
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    let f = &r.flows[0];
    assert!(f.segments_sent > 1_000, "{f:?}");
    // Several flows, delayed ACKs, a window that starts after the first sends.
    let json = r#"{"duration_ns": 3000000000, "measure": {"start_ns": 1000000000, "end_ns": 3000000000},
        "dumbbell": {"pairs": 4, "bottleneck_rate_bps": 5000000, "bottleneck_delay_ns": 10000000,
                     "bottleneck_queue": {"limit_pkts": 20}, "access_rate_bps": 100000000,
                     "sender_access_delay_ns": [1000000], "receiver_access_delay_ns": [1000000]},
        "flows": [{"src": "s0", "dst": "d0", "tcp": {"overhead_ns": 3000000, "delayed_ack": true}},
                  {"src": "s1", "dst": "d1", "tcp": {"overhead_ns": 1000000}},
                  {"src": "s2", "dst": "d2", "tcp": {"overhead_ns": 7000000, "sack": false}},
                  {"src": "s3", "dst": "d3"}]}"#;
    let r = run(json);
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    assert!(r.flows.iter().all(|f| f.drops > 0), "the buffer of 20 packets overflows: {:?}", r.flows);
}

#[test]
fn rack_with_a_send_overhead_longer_than_the_round_trip_runs() {
    // Found by the generated scenarios (2026-12-07): RACK's list of retransmissions in flight
    // took one the send overhead held until after its segment was acknowledged, and the next
    // ACK panicked ("a retransmission in flight has a send time"). Overheads of up to 3 ms on a
    // 1 ms round trip through a buffer of 5 packets: the first seeds all panicked.
    for seed in 1..=3 {
        let json = format!(
            r#"{{"seed": {seed}, "duration_ns": 5000000000, "measure": {{"start_ns": 1000000000, "end_ns": 5000000000}},
            "dumbbell": {{"pairs": 4, "bottleneck_rate_bps": 10000000, "bottleneck_delay_ns": 250000,
                         "bottleneck_queue": {{"limit_pkts": 5}}, "access_rate_bps": 1000000000,
                         "sender_access_delay_ns": [125000], "receiver_access_delay_ns": [125000]}},
            "flows": [{{"src": "s0", "dst": "d0", "start_window_ns": [0, 500000000], "tcp": {{"overhead_ns": 3000000, "rack": true, "rtt_samples": "linux"}}}},
                      {{"src": "s1", "dst": "d1", "start_window_ns": [0, 500000000], "tcp": {{"overhead_ns": 3000000, "rack": true, "rtt_samples": "linux"}}}},
                      {{"src": "s2", "dst": "d2", "start_window_ns": [0, 500000000], "tcp": {{"overhead_ns": 3000000, "rack_retransmits": true, "rtt_samples": "linux"}}}},
                      {{"src": "s3", "dst": "d3", "start_window_ns": [0, 500000000], "tcp": {{"overhead_ns": 3000000, "rack": true, "rtt_samples": "linux"}}}}]}}"#
        );
        let r = run(&json);
        assert!(r.conservation.ok, "{:?}", r.conservation.violations);
        assert!(r.flows.iter().all(|f| f.retransmits > 0 && f.segments_sent > 100), "{:?}", r.flows);
    }
}

#[test]
fn adaptive_red_with_top_below_the_automatic_bottom_runs() {
    // Issue 25 item 1: `top < 0.01` with `bottom = 0` (automatic) panicked with
    // "min > max" in the world's build (and so in Scenario.check()).
    for kind in ["ared", "reared", "fared", "cared"] {
        let queue = format!(r#"{{"kind": "{kind}", "red": {{"top": 0.001, "bottom": 0}}}}"#);
        let r = run(&two_nodes(1_000_000_000, &queue, "{}"));
        assert!(r.conservation.ok && r.flows[0].segments_sent > 100, "{kind}: {r:?}");
    }
}

#[test]
fn rates_stay_within_zero_and_one_when_the_window_starts_late() {
    // Issue 25 item 3: drops in the window over sends (or arrivals) in the window
    // exceeded 1 (906.0, 47.7) when the window starts after packets were sent and
    // CoDel drops them as they leave. Here a 1 Mbit/s CoDel queue takes 4 flows'
    // initial windows of 250 segments at once (12 s of backlog); the window opens
    // at 2 s, when the flows are waiting for ACKs and CoDel is dropping the backlog.
    let flow = r#"{"src": "a", "dst": "b", "tcp": {"init_cwnd": 250, "min_rto_ns": 30000000000, "initial_rto_ns": 30000000000, "max_rto_ns": 60000000000}}"#;
    let json = format!(
        r#"{{"duration_ns": 6000000000, "measure": {{"start_ns": 2000000000, "end_ns": 6000000000}}, "nodes": ["a", "b"],
            "links": [{{"a": "a", "b": "b", "rate_bps": 1000000, "delay_ns": 5000000, "queue": {{"kind": "codel", "limit_pkts": 1000}}}}],
            "flows": [{flow}, {flow}, {flow}, {flow}]}}"#
    );
    let r = run(&json);
    let q = &r.queues[0];
    // Drops at departure of packets that arrived before the window: more drops than arrivals.
    assert!(q.drops > q.arrivals, "{q:?}");
    assert_eq!(q.drop_rate, Some(q.drops as f64 / (q.drops + q.departures) as f64), "{q:?}");
    assert!((0.0..=1.0).contains(&q.drop_rate.unwrap()), "{q:?}");
    let c = &r.controllers[0];
    assert!(c.drops > c.segments_sent, "{c:?}");
    assert_eq!(c.drop_rate, Some(c.drops as f64 / (c.drops + c.segments_received) as f64), "{c:?}");
    assert!((0.0..=1.0).contains(&c.drop_rate.unwrap()), "{c:?}");
    for f in &r.flows {
        assert!(f.drop_rate.is_some_and(|x| (0.0..=1.0).contains(&x)), "{f:?}");
    }
}

#[test]
fn adaptive_pert_mode_time_fits_in_the_window() {
    // Issue 25 item 3: kotla08's pert_compete_frac reached 1.0012 because a mode's
    // time was added at the end of each alpha period, whole, so the period that
    // straddles the window's start counted from before the window.
    let flow = |i: u32| format!(r#"{{"src": "s{i}", "dst": "d{i}", "cc": {{"kind": "pert-adaptive"}}, "start_window_ns": [0, 2000000000]}}"#);
    let flows = (0..3).map(flow).collect::<Vec<_>>().join(", ");
    let mut modes = [0.0; 3];
    for start_ms in [3_000u64, 3_217, 4_444] {
        let json = format!(
            r#"{{"duration_ns": 30000000000, "measure": {{"start_ns": {}, "end_ns": 30000000000}},
                "dumbbell": {{"pairs": 3, "bottleneck_rate_bps": 10000000, "bottleneck_delay_ns": 10000000,
                             "bottleneck_queue": {{"limit_pkts": 150}}, "access_rate_bps": 100000000,
                             "sender_access_delay_ns": [1000000, 10000000, 30000000], "receiver_access_delay_ns": [1000000]}},
                "flows": [{flows}]}}"#,
            start_ms * 1_000_000
        );
        let r = run(&json);
        let span = r.window_end_s - r.window_start_s;
        for f in &r.flows {
            let total = f.high_speed_s + f.safe_s + f.compete_s;
            // Every flow samples RTTs throughout the window, so the modes cover it exactly.
            assert!((total - span).abs() < 1e-9, "window from {start_ms} ms: {total} s in modes, window {span} s: {f:?}");
            for (m, t) in modes.iter_mut().zip([f.high_speed_s, f.safe_s, f.compete_s]) {
                *m += t;
            }
        }
    }
    assert!(modes.iter().all(|&t| t > 1.0), "the flows go through every mode: {modes:?}");
}

/// The error building `json` (no memory limit).
fn refusal(json: &str) -> String {
    refusal_within(json, u64::MAX)
}

/// A 1 kbit/s link for 3 s with TCP options `tcp`.
fn slow_link(tcp: &str) -> String {
    format!(
        r#"{{"duration_ns": 3000000000, "nodes": ["a", "b"],
            "links": [{{"a": "a", "b": "b", "rate_bps": 1000, "delay_ns": 5000000}}],
            "flows": [{{"src": "a", "dst": "b", "tcp": {tcp}}}]}}"#
    )
}

#[test]
fn timers_below_their_floors_are_refused() {
    // Issue 25 item 4: 1 ns / 2 ns RTO bounds on a 1 kbit/s link took 78 s of wall
    // time for 3 simulated seconds (a timeout every 2 ns).
    assert_eq!(
        refusal(&slow_link(r#"{"min_rto_ns": 1, "max_rto_ns": 2}"#)),
        "flows[0].tcp.min_rto_ns: must be at least 1000 ns (1 us, the least Linux's tcp_rto_min_us allows), got 1"
    );
    assert_eq!(
        refusal(&slow_link(r#"{"min_rto_ns": 1000, "max_rto_ns": 2000}"#)),
        "flows[0].tcp.max_rto_ns: must be at least min_rto_ns (1000) and 1000000000 ns (1 s, the least Linux's tcp_rto_max_ms allows), got 2000"
    );
    let e = refusal(&slow_link(r#"{"delayed_ack": true, "delayed_ack_timeout_ns": 600000000}"#));
    assert!(e.starts_with("flows[0].tcp.delayed_ack_timeout_ns: must lie in [1, 500000000] ns"), "{e}");
    assert_eq!(
        refusal(&slow_link(r#"{"ack_policy": "adaptive", "adaptive_ack": {"max_segments": 0}}"#)),
        "flows[0].tcp.adaptive_ack.max_segments: must be at least the minimum segments per ACK (1), got 0"
    );
    assert!(refusal(&slow_link(r#"{"ack_policy": "adaptive", "delayed_ack": true}"#)).starts_with("flows[0].tcp.ack_policy: delayed_ack = true means"));
    let e = Scenario::from_json(&slow_link(r#"{"ack_policy": "sometimes"}"#)).unwrap_err().to_string();
    assert!(e.starts_with("flows[0].tcp.ack_policy: unknown variant `sometimes`, expected one of `every`, `delayed`, `adaptive`"), "{e}");
    let queue = |q: &str| {
        format!(r#"{{"duration_ns": 1000000, "nodes": ["a", "b"], "links": [{{"a": "a", "b": "b", "rate_bps": 1000, "delay_ns": 0, "queue": {q}}}]}}"#)
    };
    assert!(refusal(&queue(r#"{"kind": "pie", "pie": {"t_update_ns": 1}}"#)).starts_with("links[0].queue.pie.t_update_ns: must be at least 1000000 ns"));
    assert!(refusal(&queue(r#"{"kind": "pi", "pi": {"w_hz": 1e6}}"#)).starts_with("links[0].queue.pi.w_hz: must lie in"));
    let udp = r#"{"duration_ns": 1000000, "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate_bps": 1000, "delay_ns": 0}],
        "udp": [{"src": "a", "dst": "b", "rate_bps": 9000000000, "packet_size": 1}]}"#;
    assert!(refusal(udp).starts_with("udp[0].rate_bps: must be at most 8000000000 bit/s"), "{}", refusal(udp));
}

#[test]
fn timers_at_their_floors_back_off_instead_of_storming() {
    // The least RTO bounds on the issue's link: a timer that backs off from 1 us to
    // 1 s, 20 doublings, then fires once a second: 21 timeouts in 3 s (60 when the
    // back-off stopped at 2^16 times the base).
    let r = run(&slow_link(r#"{"min_rto_ns": 1000, "max_rto_ns": 1000000000, "initial_rto_ns": 1000}"#));
    let f = &r.flows[0];
    assert!(f.timeouts > 15 && f.timeouts < 25, "{f:?}");
    assert!(r.events < 200, "{} events", r.events);
}

#[test]
fn progress_is_reported_every_so_many_events_within_a_simulated_second() {
    // 900 simulated ms at 1 Gbit/s: a few hundred thousand events before the first
    // simulated second ends (every transmission's end an event too). The callback
    // (how Ctrl-C reaches the core) still runs.
    let json = r#"{"duration_ns": 900000000, "nodes": ["a", "b"], "engine": {"tx_end_events": "always"},
        "links": [{"a": "a", "b": "b", "rate_bps": 1000000000, "delay_ns": 1000000}],
        "flows": [{"src": "a", "dst": "b"}]}"#;
    let mut w = World::build(&Scenario::from_json(json).unwrap()).unwrap();
    let mut calls = 0u64;
    w.run(&mut |_| {
        calls += 1;
        true
    });
    let events = w.into_results().events;
    assert!(events > 4 * pertlab_sim::world::PROGRESS_EVENTS as u64, "{events}");
    assert_eq!(calls, events / pertlab_sim::world::PROGRESS_EVENTS as u64);
    // And returning false stops the run there.
    let mut w = World::build(&Scenario::from_json(json).unwrap()).unwrap();
    w.run(&mut |_| false);
    let r = w.into_results();
    assert!(r.interrupted && r.events == pertlab_sim::world::PROGRESS_EVENTS as u64, "{}", r.events);
}

/// The error building `json` within `limit` bytes of memory.
fn refusal_within(json: &str, limit: u64) -> String {
    let s = Scenario::from_json(json).expect("parses");
    match World::build_within(&s, MemoryLimit { bytes: limit, per_recorded_value: 0 }) {
        Ok(_) => panic!("accepted: {json}"),
        Err(e) => e.to_string(),
    }
}

const GIB: u64 = 1 << 30;

#[test]
fn scenarios_too_large_for_the_memory_limit_are_refused_up_front() {
    // Issue 25 item 5: each of these aborted the process (allocation failure).
    // A sample every nanosecond of a 1 s run: 1e9 samples.
    let json = r#"{"duration_ns": 1000000000, "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate_bps": 10000000, "delay_ns": 5000000}],
        "flows": [{"src": "a", "dst": "b"}], "monitor": {"sample_interval_ns": 1}}"#;
    let e = refusal_within(json, 8 * GIB);
    assert!(e.starts_with("monitor.sample_interval_ns: 1000000001 samples of 2 queues and 1 flows need"), "{e}");
    assert!(e.contains("more than the memory limit 8.00 GiB; sample less often"), "{e}");
    // 2^32 - 1 web sessions.
    let json = r#"{"duration_ns": 1000000000, "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate_bps": 10000000, "delay_ns": 5000000}],
        "web": [{"clients": ["a"], "servers": ["b"], "sessions": 4294967295}]}"#;
    let e = refusal_within(json, 8 * GIB);
    assert!(e.starts_with("web[0].sessions: 4294967295 web sessions with up to 4294967295 objects in transfer need"), "{e}");
    // A dumbbell of 2^31 pairs: refused from the scenario alone, before anything is expanded.
    let json = r#"{"duration_ns": 1000000000, "dumbbell": {"pairs": 2147483648, "bottleneck_rate_bps": 10000000, "bottleneck_delay_ns": 1000000,
        "access_rate_bps": 100000000, "sender_access_delay_ns": [1000], "receiver_access_delay_ns": [1000]}}"#;
    let e = refusal_within(json, 8 * GIB);
    assert!(e.starts_with("dumbbell.pairs: 4294967298 nodes and 4294967297 links need"), "{e}");
    // A dumbbell of 100 million pairs (`pertlab dumbbell --flows 100000000`): its hosts and links.
    let flows: String = (0..4).map(|i| format!(r#"{{"src": "s{i}", "dst": "d{i}"}}"#)).collect::<Vec<_>>().join(",");
    let json = format!(
        r#"{{"duration_ns": 1000000000, "dumbbell": {{"pairs": 100000000, "bottleneck_rate_bps": 10000000, "bottleneck_delay_ns": 1000000,
            "access_rate_bps": 100000000, "sender_access_delay_ns": [1000], "receiver_access_delay_ns": [1000]}}, "flows": [{flows}]}}"#
    );
    let e = refusal_within(&json, 8 * GIB);
    assert!(e.starts_with("dumbbell.pairs: 200000002 nodes and 200000001 links need"), "{e}");
    // The same with a video flow (found by the generated scenarios): its rate check reads the
    // access rate from the dumbbell instead of expanding 2^32 - 1 pairs (a 96 GiB allocation).
    let json = r#"{"duration_ns": 1000000000, "dumbbell": {"pairs": 4294967295, "bottleneck_rate_bps": 10000000, "bottleneck_delay_ns": 1000000,
        "access_rate_bps": 100000000, "sender_access_delay_ns": [1000], "receiver_access_delay_ns": [1000]},
        "flows": [{"src": "s0", "dst": "d0", "video": {"rate_bps": 300000, "startup_delay_ns": 0}}]}"#;
    let e = refusal_within(json, 8 * GIB);
    assert!(e.starts_with("dumbbell.pairs: 8589934592 nodes and 8589934591 links need"), "{e}");
    // Within the limit they are fine: the same 1 ns sampling over 100 us.
    let json = r#"{"duration_ns": 100000, "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate_bps": 10000000, "delay_ns": 5000000}],
        "flows": [{"src": "a", "dst": "b"}], "monitor": {"sample_interval_ns": 1}}"#;
    let s = Scenario::from_json(json).unwrap();
    let mut w = World::build_within(&s, MemoryLimit { bytes: GIB, per_recorded_value: 0 }).unwrap();
    w.run(&mut |_| true);
    assert_eq!(w.into_results().queue_series.t_s.len(), 2 * 100_001);
}

#[test]
fn a_wire_longer_than_the_run_holds_what_enters_it_over_the_run() {
    // A 10 Gbit/s link of 1000 s one way holds 1.25 TB over its delay, but a 1 s run puts at most
    // 1.25 GB on it: the estimate (once 1000 times that, refusing the run) follows the run.
    let link = |delay_ns: u64, duration_ns: u64| {
        format!(
            r#"{{"duration_ns": {duration_ns}, "nodes": ["a", "b"], "links": [{{"a": "a", "b": "b", "rate_bps": 10000000000, "delay_ns": {delay_ns}}}],
            "udp": [{{"src": "a", "dst": "b", "rate_bps": 10000000000, "packet_size": 1500}}]}}"#
        )
    };
    let wires = |json: &str| {
        let e = World::memory_estimate(&Scenario::from_json(json).unwrap(), MemoryLimit { bytes: u64::MAX, per_recorded_value: 0 }).unwrap();
        e.parts.iter().find(|p| p.what.starts_with("the packets in flight")).map(|p| p.bytes).unwrap()
    };
    let second = 1_000_000_000;
    assert_eq!(wires(&link(1000 * second, second)), wires(&link(second, second)));
    assert!(wires(&link(1000 * second, 1000 * second)) > 500 * wires(&link(second, second)));
    let e = refusal_within(&link(1000 * second, 1000 * second), 8 * GIB);
    assert!(e.starts_with("links[0].delay_ns: the packets in flight on 2 channels need"), "{e}");
}

#[test]
fn a_window_the_receiver_cannot_advertise_is_refused() {
    // Issue 25 item 5: init_cwnd = max_cwnd = 2^32 - 1 made the first burst 4 billion packets.
    let e = refusal(&two_nodes(1_000_000_000, "{}", r#"{"init_cwnd": 4294967295, "max_cwnd": 4294967295}"#));
    assert_eq!(
        e,
        "flows[0].tcp.max_cwnd: must be at most 735439 segments: a window of at most 2^30 bytes (RFC 7323 2.3) of 1460-byte payloads, got 4294967295"
    );
    let e = refusal(&two_nodes(1_000_000_000, "{}", r#"{"init_cwnd": 20, "max_cwnd": 10}"#));
    assert_eq!(e, "flows[0].tcp.init_cwnd: must lie in [1, max_cwnd (10)], got 20");
}

#[test]
fn a_byte_limit_smaller_than_a_packet_is_refused() {
    // Issue 25 item 5: a 1000-byte buffer took no 1500-byte packet and the run delivered nothing.
    let e = refusal(&two_nodes(1_000_000_000, r#"{"limit_bytes": 1000}"#, "{}"));
    assert_eq!(
        e,
        "links[0].queue.limit_bytes: must be at least 1500 bytes, the largest packet that crosses it (flows[0]'s, on link `a-b`), got 1000: a smaller buffer holds none of them"
    );
    // The ACK direction (queue_ba defaults to queue) needs only the ACKs: 1500 bytes fit both.
    let r = run(&two_nodes(1_000_000_000, r#"{"limit_bytes": 1500}"#, "{}"));
    assert!(r.flows[0].goodput_bytes > 0, "{:?}", r.flows[0]);
    // A dumbbell's access buffer names the dumbbell's field.
    let json = r#"{"duration_ns": 1000000000, "dumbbell": {"pairs": 1, "bottleneck_rate_bps": 10000000, "bottleneck_delay_ns": 1000000,
        "access_rate_bps": 100000000, "sender_access_delay_ns": [1000], "receiver_access_delay_ns": [1000], "access_queue": {"limit_bytes": 100}},
        "flows": [{"src": "s0", "dst": "d0"}]}"#;
    assert!(refusal(json).starts_with("dumbbell.access_queue.limit_bytes: must be at least 1500 bytes"));
}

#[test]
fn a_probe_carrying_a_video_is_refused() {
    // Qian's T/mu probe is a greedy flow: the core refuses one with a video, naming the field.
    let json = r#"{"duration_ns": 1000000000, "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate_bps": 10000000, "delay_ns": 5000000}],
        "flows": [{"src": "a", "dst": "b", "probe": true, "video": {"rate_bps": 300000, "startup_delay_ns": 0}}]}"#;
    assert_eq!(refusal(json), "flows[0].probe: a probe is a greedy flow measuring T for the video streams; it cannot carry a video");
}
