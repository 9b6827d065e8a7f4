//! Queueing theory check: a Poisson source with exponential packet sizes into a
//! DropTail queue with a very large buffer is an M/M/1 queue, whose mean number
//! in system is rho / (1 - rho).

use pertlab_sim::scenario::{Arrivals, LinkSpec, QueueSpec, Scenario, SizeDist, UdpSpec};

mod common;
use common::*;

/// Mean number in system (waiting + in service) of an M/M/1 queue at load `rho`.
fn mm1_number_in_system(rho: f64, duration_s: u64) -> (f64, pertlab_sim::Results) {
    let rate = 10 * MBPS;
    let scenario = Scenario {
        seed: 7,
        duration_ns: secs(duration_s),
        measure: Some(pertlab_sim::scenario::MeasureWindow { start_ns: secs(10), end_ns: secs(duration_s) }),
        nodes: vec!["a".into(), "b".into()],
        links: vec![LinkSpec {
            name: Some("server".into()),
            a: "a".into(),
            b: "b".into(),
            rate_bps: rate,
            delay_ns: 0,
            loss: 0.0,
            loss_ba: 0.0,
            burst_loss: None,
            queue: QueueSpec { limit_pkts: Some(1_000_000), ..QueueSpec::default() },
            queue_ba: None,
        }],
        dumbbell: None,
        flows: vec![],
        udp: vec![UdpSpec {
            src: "a".into(),
            dst: "b".into(),
            rate_bps: (rho * rate as f64) as u64,
            packet_size: 1000,
            arrivals: Arrivals::Poisson,
            sizes: SizeDist::Exponential,
            ecn: false,
            start_ns: 0,
            stop_ns: None,
            class: 0,
            pareto_shape: 1.9,
            burst_ns: 500_000_000,
            idle_ns: 500_000_000,
        }],
        web: vec![],
        monitor: Default::default(),
        capture: Vec::new(),
        engine: Default::default(),
    };
    let r = pertlab_sim::run(&scenario).unwrap();
    let q = r.queues.iter().find(|q| q.from == "a").unwrap().clone();
    // Waiting (time-weighted buffer length) + in service (busy fraction).
    eprintln!("rho {rho}: L = {:.4} (Lq {:.4}, busy {:.4}), events {}", q.avg_queue_pkts + q.utilization, q.avg_queue_pkts, q.utilization, r.events);
    (q.avg_queue_pkts + q.utilization, r)
}

#[test]
fn mm1_mean_number_in_system_at_load_half() {
    let (l, r) = mm1_number_in_system(0.5, 2000);
    let expected = 0.5 / (1.0 - 0.5);
    assert!((l - expected).abs() / expected < 0.03, "L = {l}, M/M/1 says {expected}");
    assert!(r.conservation.ok, "{:?}", r.conservation);
    assert_eq!(r.udp[0].dropped, 0);
}

#[test]
fn mm1_mean_number_in_system_at_load_0_8() {
    let (l, r) = mm1_number_in_system(0.8, 4000);
    let expected = 0.8 / (1.0 - 0.8);
    assert!((l - expected).abs() / expected < 0.03, "L = {l}, M/M/1 says {expected}");
    // The link's busy fraction is the offered load.
    let util = r.queues.iter().find(|q| q.from == "a").unwrap().utilization;
    assert!((util - 0.8).abs() < 0.01, "utilization {util}");
}
