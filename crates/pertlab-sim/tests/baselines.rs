//! The baseline controllers (HighSpeed TCP, CUBIC, Compound TCP, TCP-Illinois)
//! with their default parameters on a 10 Mbps / 40 ms dumbbell with a
//! BDP-sized DropTail buffer: two flows for 30 s, measured over the last 20 s.
//! FAST TCP, delay-based, on the same path with a buffer large enough for its
//! equilibrium queue.

use pertlab_sim::scenario::CcSpec;
use pertlab_sim::tcp::cc::fast::FastConfig;
use pertlab_sim::tcp::TcpConfig;

mod common;
use common::*;

/// Runs two flows of `cc` and checks what every window-based controller must
/// do on this path: fill the link with packet conservation holding, recover
/// from every loss by fast retransmit (no timeouts), and share the link.
fn two_flows(cc: CcSpec) {
    let (bw, rtt) = (10, 40);
    let bdp = bdp_pkts(bw, rtt); // 33 packets
    let s = scenario(dumbbell(2, bw, rtt, droptail(bdp)), bulk_flows(2, cc.clone(), TcpConfig::default(), ms(100)), 30, 10);
    let r = pertlab_sim::run(&s).unwrap();
    assert!(r.conservation.ok, "{cc:?}: {:?}", r.conservation.violations);
    let b = r.bottleneck.as_ref().unwrap();
    let recoveries: u64 = r.flows.iter().map(|f| f.fast_recoveries).sum();
    let timeouts: u64 = r.flows.iter().map(|f| f.timeouts).sum();
    let goodput: f64 = r.flows.iter().map(|f| f.goodput_mbps).sum();
    eprintln!(
        "{cc:?}: utilization {:.4}, drops {}, recoveries {recoveries}, timeouts {timeouts}, goodput {goodput:.3} Mbps ({:.3} + {:.3}), avg queue {:.1} pkts",
        b.utilization, b.drops, r.flows[0].goodput_mbps, r.flows[1].goodput_mbps, b.avg_queue_pkts
    );
    assert!(b.utilization > 0.9, "{cc:?}: utilization {}", b.utilization);
    assert_eq!(timeouts, 0, "{cc:?}: no timeouts after slow start");
    // Payload share of the wire rate: 1460 of 1500 bytes.
    assert!(goodput > 0.9 * 10.0 * 1460.0 / 1500.0, "{cc:?}: goodput {goodput}");
    // The window keeps probing: a loss-and-recover cycle every 2 s at least.
    assert!(recoveries >= 10, "{cc:?}: {recoveries} fast recoveries in 20 s");
    // Two flows of the same controller and RTT share the link: each gets 40 %.
    let least = r.flows.iter().map(|f| f.goodput_mbps).fold(f64::INFINITY, f64::min);
    assert!(least > 0.4 * goodput, "{cc:?}: shares {} + {}", r.flows[0].goodput_mbps, r.flows[1].goodput_mbps);
}

#[test]
fn hstcp_fills_the_link() {
    two_flows(CcSpec::Hstcp(Default::default()));
}

#[test]
fn cubic_fills_the_link() {
    two_flows(CcSpec::Cubic(Default::default()));
}

#[test]
fn compound_fills_the_link() {
    two_flows(CcSpec::Compound(Default::default()));
}

#[test]
fn illinois_fills_the_link() {
    two_flows(CcSpec::Illinois(Default::default()));
}

/// FAST in equilibrium keeps `alpha` packets of each flow queued: with `n`
/// flows the bottleneck queue is `n alpha` when the buffer holds it, the link
/// is full and nothing is lost.
fn fast_equilibrium(n: u32, alpha: f64) {
    let (bw, rtt) = (10, 40);
    let cc = CcSpec::Fast(FastConfig { alpha, ..FastConfig::default() });
    // Buffer 200 packets: n alpha plus the slow-start overshoot fit.
    let s = scenario(dumbbell(n, bw, rtt, droptail(200)), bulk_flows(n, cc, TcpConfig::default(), ms(100)), 30, 10);
    let r = pertlab_sim::run(&s).unwrap();
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    let b = r.bottleneck.as_ref().unwrap();
    let goodput: Vec<f64> = r.flows.iter().map(|f| f.goodput_mbps).collect();
    eprintln!("fast n {n} alpha {alpha}: utilization {:.4}, drops {}, avg queue {:.2} pkts, goodput {goodput:?}", b.utilization, b.drops, b.avg_queue_pkts);
    assert!(b.utilization > 0.9, "utilization {}", b.utilization);
    assert_eq!(b.drops, 0, "no loss in equilibrium");
    // Each flow's window is floor(w), up to one segment below the equilibrium
    // w, so the queue lies in [n (alpha - 1), n alpha]; one packet more either
    // way for the packet in transmission and the per-RTT steps around it.
    let (lo, hi) = (f64::from(n) * (alpha - 1.0) - 1.0, f64::from(n) * alpha + 1.0);
    assert!((lo..=hi).contains(&b.avg_queue_pkts), "avg queue {} outside [{lo}, {hi}]", b.avg_queue_pkts);
    // Same alpha, same RTT: equal windows, equal shares (within 10 %).
    let mean = goodput.iter().sum::<f64>() / f64::from(n);
    assert!(goodput.iter().all(|g| (g - mean).abs() < 0.1 * mean), "shares {goodput:?}");
}

#[test]
fn fast_fills_the_link_and_queues_alpha_per_flow() {
    fast_equilibrium(3, 20.0);
    fast_equilibrium(2, 40.0);
}
