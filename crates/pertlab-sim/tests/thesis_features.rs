//! Scenario features for Kotla's thesis (adaptive PERT vs SACK): RTT
//! measurement noise, the random send overhead that breaks phase effects,
//! flows leaving and rejoining, labels with per-controller
//! metrics, and the queue-position distribution.

use pertlab_sim::scenario::{CcSpec, MeasureWindow, Scenario};
use pertlab_sim::tcp::cc::pert::PertConfig;
use pertlab_sim::tcp::TcpConfig;
use pertlab_sim::world::World;
use pertlab_sim::Results;

mod common;
use common::*;

fn run(s: &Scenario) -> Results {
    let mut w = World::build(s).expect("valid scenario");
    w.run(&mut |_| true);
    w.into_results()
}

fn build_error(s: &Scenario) -> String {
    match World::build(s) {
        Ok(_) => panic!("scenario should be rejected"),
        Err(e) => e.to_string(),
    }
}

/// Two Reno flows on a 100 Mbit/s, 40 ms dumbbell, each limited to 10
/// segments (3 Mbit/s): the path never queues beyond the flows' own packets.
fn uncongested(noise_ms: [u64; 2], seed: u64) -> Scenario {
    let tcp = TcpConfig { max_cwnd: 10, ..TcpConfig::default() };
    let mut flows = bulk_flows(2, CcSpec::Reno, tcp, 0);
    for (f, n) in flows.iter_mut().zip(noise_ms) {
        f.start_window_ns = None;
        f.start_ns = Some(0);
        f.tcp.rtt_noise_ns = ms(n);
    }
    let mut s = scenario(dumbbell(2, 100, 40, droptail(1000)), flows, 20, 2);
    s.seed = seed;
    s
}

#[test]
fn rtt_noise_adds_its_mean_to_the_samples_and_leaves_other_flows_alone() {
    let quiet = run(&uncongested([0, 0], 1));
    let noisy = run(&uncongested([0, 10], 1));
    // Without noise the samples are the propagation delay plus serialisation.
    let q = &quiet.flows[1];
    assert_eq!(q.base_rtt_ms, 40.0);
    let q_mean = q.rtt_mean_ms.expect("RTT samples");
    assert!((40.0..41.5).contains(&q_mean), "noiseless mean {q_mean}");
    // The flow without noise is unchanged, to the bit; the noisy flow sends
    // the same segments (Reno's window does not read the RTT, no timeout fires).
    assert_eq!(quiet.flows[0], noisy.flows[0]);
    let n = &noisy.flows[1];
    assert_eq!(n.rtt_samples, q.rtt_samples);
    assert_eq!(n.segments_sent, q.segments_sent);
    // The same samples plus U(0, 20 ms) each: the means differ by the mean of
    // the draws. Its standard error is 20 ms / sqrt(12 n); allow 5 of them.
    let samples = n.rtt_samples as f64;
    assert!(samples > 4000.0, "{samples} samples");
    let tol = 5.0 * 20.0 / (12.0 * samples).sqrt();
    let added = n.rtt_mean_ms.unwrap() - q_mean;
    assert!((added - 10.0).abs() < tol, "mean noise {added} ms, expected 10 +- {tol}");
    let (n_min, n_max, q_min, q_max) = (n.rtt_min_ms.unwrap(), n.rtt_max_ms.unwrap(), q.rtt_min_ms.unwrap(), q.rtt_max_ms.unwrap());
    assert!(n_min >= q_min && n_max <= q_max + 20.0);
    assert!(n_max - n_min > 15.0, "noise spreads the samples over about 20 ms");
}

#[test]
fn rtt_noise_is_a_function_of_the_seed() {
    let a = run(&uncongested([5, 5], 3));
    let b = run(&uncongested([5, 5], 3));
    let c = run(&uncongested([5, 5], 4));
    assert_eq!(a, b);
    assert_ne!(a.flows[0].rtt_mean_ms, c.flows[0].rtt_mean_ms);
    // Each flow draws from its own stream.
    assert_ne!(a.flows[0].rtt_mean_ms, a.flows[1].rtt_mean_ms);
}

/// `uncongested` with a random send overhead of `overhead_ms` on both flows.
fn with_overhead(overhead_ms: u64, seed: u64) -> Scenario {
    let mut s = uncongested([0, 0], seed);
    for f in &mut s.flows {
        f.tcp.overhead_ns = ms(overhead_ms);
    }
    s
}

#[test]
fn send_overhead_delays_the_sends_but_not_the_rtt_samples() {
    let quiet = run(&uncongested([0, 0], 1));
    let late = run(&with_overhead(4, 1));
    for (q, l) in quiet.flows.iter().zip(&late.flows) {
        // Segments are stamped when they leave, so the samples keep the path's RTT.
        assert_eq!(l.base_rtt_ms, q.base_rtt_ms);
        let (l_mean, q_min, q_mean) = (l.rtt_mean_ms.unwrap(), q.rtt_min_ms.unwrap(), q.rtt_mean_ms.unwrap());
        assert!(l_mean >= q_min && l_mean < q_mean + 0.5, "mean {l_mean} vs {q_mean}");
        // A window-limited flow sends one window per (RTT + the wait of the
        // window's first segment): each round lasts 40 ms + U(0, 4 ms), so it
        // sends about 40 / 42 of the segments; 10 of the 500 rounds' worth is the
        // allowance for the rounds' own spread.
        let ratio = l.segments_sent as f64 / q.segments_sent as f64;
        assert!((ratio - 40.0 / 42.0).abs() < 0.02, "sent {} of {} ({ratio})", l.segments_sent, q.segments_sent);
    }
}

#[test]
fn send_overhead_is_a_function_of_the_seed_and_zero_draws_nothing() {
    assert_eq!(run(&with_overhead(4, 3)), run(&with_overhead(4, 3)));
    assert_ne!(run(&with_overhead(4, 3)), run(&with_overhead(4, 4)));
    // Overhead 0 is the plain sender, whatever the seed's overhead streams would give.
    assert_eq!(run(&with_overhead(0, 3)), run(&uncongested([0, 0], 3)));
}

/// One Reno flow, 10 Mbit/s, 40 ms, buffer 50, off during [5 s, 10 s).
fn leaving(measure: [u64; 2]) -> Scenario {
    let mut flows = bulk_flows(1, CcSpec::Reno, TcpConfig::default(), 0);
    flows[0].start_window_ns = None;
    flows[0].start_ns = Some(0);
    flows[0].off_ns = vec![[secs(5), secs(10)]];
    let mut s = scenario(dumbbell(1, 10, 40, droptail(50)), flows, 15, 0);
    s.measure = Some(MeasureWindow { start_ns: secs(measure[0]), end_ns: secs(measure[1]) });
    s.monitor.sample_interval_ns = Some(ms(100));
    s
}

#[test]
fn a_flow_that_leaves_sends_nothing_new_and_rejoins_from_the_initial_window() {
    let before = run(&leaving([1, 5]));
    let off = run(&leaving([6, 10]));
    let after = run(&leaving([11, 15]));
    assert!(before.flows[0].goodput_mbps > 9.0, "{}", before.flows[0].goodput_mbps);
    // The outstanding data is delivered within a second of leaving; then nothing.
    assert_eq!(off.flows[0].goodput_bytes, 0);
    assert_eq!(off.flows[0].segments_sent, 0);
    assert!(after.flows[0].goodput_mbps > 9.0, "{}", after.flows[0].goodput_mbps);
    // The time series: delivered bytes flat while off, growing after.
    let fs = &off.flow_series;
    let delivered_at = |t: f64| fs.delivered_bytes[fs.t_s.iter().position(|&x| (x - t).abs() < 1e-9).unwrap()];
    assert_eq!(delivered_at(6.0), delivered_at(10.0));
    assert!(delivered_at(10.5) > delivered_at(10.0));
    // Idle for 5 s, far longer than the RTO: the window restarts at init_cwnd (2).
    let first_after = fs.t_s.iter().position(|&x| x > 10.0 && x < 10.05 + 1e-9).map(|i| fs.cwnd[i]);
    assert!(fs.cwnd[fs.t_s.iter().position(|&x| (x - 4.9).abs() < 1e-9).unwrap()] > 10);
    assert!(first_after.is_none() || first_after.unwrap() <= 4);
    let rejoin = fs.t_s.iter().position(|&x| (x - 10.0).abs() < 1e-9).unwrap();
    assert!(fs.cwnd[rejoin + 1] <= 2 * 2 * 2, "cwnd 100 ms after rejoining: {}", fs.cwnd[rejoin + 1]);
}

#[test]
fn off_intervals_are_validated_and_name_the_interval() {
    let with_off = |off: Vec<[u64; 2]>, stop: Option<u64>| {
        let mut s = leaving([1, 15]);
        s.flows[0].start_ns = Some(secs(1));
        s.flows[0].off_ns = off;
        s.flows[0].stop_ns = stop;
        s
    };
    let e = build_error(&with_off(vec![[secs(3), secs(3)]], None));
    assert!(e.starts_with("flows[0].off_ns[0]: need start < end"), "{e}");
    let e = build_error(&with_off(vec![[secs(2), secs(4)], [secs(4), secs(6)]], None));
    assert!(e.starts_with("flows[0].off_ns[1]: must start after flows[0].off_ns[0] ends"), "{e}");
    let e = build_error(&with_off(vec![[secs(2), secs(4)], [secs(5), secs(6)], [secs(1) - 1, secs(7)]], None));
    assert!(e.starts_with("flows[0].off_ns[2]"), "{e}");
    let e = build_error(&with_off(vec![[0, secs(2)]], None));
    assert!(e.starts_with("flows[0].off_ns[0]: must not start before the flow's (latest) start"), "{e}");
    let e = build_error(&with_off(vec![[secs(2), secs(8)]], Some(secs(8))));
    assert!(e.starts_with("flows[0].off_ns[0]: must end before stop_ns"), "{e}");
    World::build(&with_off(vec![[secs(1), secs(2)], [secs(3), secs(4)]], Some(secs(5)))).expect("valid intervals");
}

/// Two PERT flows and two Reno flows (one labelled "sack") on 10 Mbit/s, buffer 50.
fn mixed() -> Scenario {
    let mut flows = bulk_flows(2, CcSpec::Pert(PertConfig::default()), TcpConfig::default(), secs(1));
    flows.extend(bulk_flows(4, CcSpec::Reno, TcpConfig::default(), secs(1)).into_iter().skip(2));
    flows[3].label = Some("sack".into());
    scenario(dumbbell(4, 10, 40, droptail(50)), flows, 30, 10)
}

#[test]
fn controllers_sum_the_flows_of_each_label() {
    let r = run(&mixed());
    let labels: Vec<&str> = r.flows.iter().map(|f| f.label.as_str()).collect();
    assert_eq!(labels, ["pert", "pert", "reno", "sack"]);
    let rows: Vec<(&str, u32)> = r.controllers.iter().map(|c| (c.label.as_str(), c.flows)).collect();
    assert_eq!(rows, [("pert", 2), ("reno", 1), ("sack", 1)]);
    let total: f64 = r.flows.iter().map(|f| f.goodput_mbps).sum();
    assert!(total > 9.0, "{total}");
    for c in &r.controllers {
        let mine: Vec<_> = r.flows.iter().filter(|f| f.label == c.label).collect();
        assert_eq!(c.segments_sent, mine.iter().map(|f| f.segments_sent).sum::<u64>());
        assert_eq!(c.segments_received, mine.iter().map(|f| f.segments_received).sum::<u64>());
        assert_eq!(c.drops, mine.iter().map(|f| f.drops).sum::<u64>());
        assert!((c.goodput_mbps - mine.iter().map(|f| f.goodput_mbps).sum::<f64>()).abs() < 1e-9);
        assert!((c.share.unwrap() - c.goodput_mbps / total).abs() < 1e-12);
        assert_eq!(c.drop_rate, Some(c.drops as f64 / (c.segments_received + c.drops) as f64));
    }
    assert!((r.controllers.iter().map(|c| c.share.unwrap()).sum::<f64>() - 1.0).abs() < 1e-12);
    // Reno fills the buffer and loses packets; PERT responds early and loses fewer.
    let (pert, reno) = (r.controllers[0].drop_rate.unwrap(), r.controllers[1].drop_rate.unwrap());
    assert!(reno > 0.0);
    assert!(pert < reno);
}

fn positions(link: Option<&str>) -> Scenario {
    let flows = bulk_flows(1, CcSpec::Reno, TcpConfig::default(), 0);
    let mut s = scenario(dumbbell(1, 10, 40, droptail(50)), flows, 30, 10);
    s.monitor.queue_positions = link.map(str::to_string);
    s
}

#[test]
fn queue_positions_of_one_reno_flow_fill_the_buffer_and_count_every_accepted_packet() {
    let r = run(&positions(Some("bottleneck")));
    let qp = &r.queue_positions;
    assert_eq!(qp.link, "bottleneck");
    assert!(qp.label.iter().all(|l| l == "reno"));
    assert!(qp.count.iter().all(|&n| n > 0));
    assert!(qp.position.windows(2).all(|w| w[0] < w[1]), "sorted, one row per position");
    // The buffer (50) exceeds the BDP (33 packets): Reno's window peaks near
    // 33 + 50 + 1, halves to about 42, and the queue never drains below about
    // 42 - 33 - 1 = 8 packets in steady state.
    let lowest = qp.position[0];
    assert!((5..=12).contains(&lowest), "lowest position {lowest}");
    // DropTail with 50 packets: a packet is accepted only when at most 49 wait.
    assert_eq!(qp.position.last(), Some(&50));
    // Every data packet the r0 -> r1 queue accepted in the window, once: the
    // queue's arrivals minus its drops (DropTail drops only on arrival; only
    // data goes r0 -> r1).
    let b = r.bottleneck.as_ref().unwrap();
    assert_eq!((b.from.as_str(), b.to.as_str()), ("r0", "r1"));
    assert_eq!(qp.count.iter().sum::<u64>(), b.arrivals - b.drops);
    assert!(b.drops > 0, "Reno overflows the buffer");
    // Observing changes nothing else.
    let mut plain = run(&positions(None));
    assert!(plain.queue_positions.label.is_empty() && plain.queue_positions.link.is_empty());
    plain.queue_positions = r.queue_positions.clone();
    assert_eq!(plain, r);
}

#[test]
fn queue_positions_name_an_existing_link() {
    let e = build_error(&positions(Some("nowhere")));
    assert_eq!(e, "monitor.queue_positions: no link named `nowhere`");
}
