//! Tahiliani (2013) Chapter 4's controllers end to end: DCTCP's queue at K,
//! and the XECN/Surathkal machinery on an ARED bottleneck.

use pertlab_sim::queue::step::StepConfig;
use pertlab_sim::scenario::{CcSpec, DumbbellSpec, MeasureWindow, QueueSpec};
use pertlab_sim::tcp::cc::dctcp::DctcpConfig;
use pertlab_sim::tcp::{EcnFeedback, TcpConfig};
use pertlab_sim::time::NS_PER_US;

mod common;
use common::*;

/// RFC 8257's headline property (and Alizadeh et al. 2010 Section 3.3): two
/// DCTCP flows on a 10 Gbps bottleneck with step marking at K hold the queue
/// between Q_min = K + N - A and Q_max = K + N, A = sqrt(2 N (C RTT + K)) / 2,
/// with the link full.
#[test]
fn dctcp_holds_the_queue_near_k_at_10_gbps() {
    let (n, k) = (2u32, 65u32);
    let rtt_us = 200;
    let queue = QueueSpec { kind: "step".into(), limit_pkts: Some(1000), step: StepConfig { k_pkts: k }, ..QueueSpec::default() };
    let dumbbell = DumbbellSpec {
        bottleneck_rate_bps: 10_000 * MBPS,
        bottleneck_delay_ns: (rtt_us / 2 - 10) * NS_PER_US,
        access_rate_bps: 40_000 * MBPS,
        sender_access_delay_ns: vec![5 * NS_PER_US],
        receiver_access_delay_ns: vec![5 * NS_PER_US],
        ..dumbbell(n, 10_000, 10, queue)
    };
    let tcp = TcpConfig { ecn: true, ecn_feedback: EcnFeedback::Dctcp, init_cwnd: 10, ..TcpConfig::default() };
    let mut s = scenario(dumbbell, bulk_flows(n, CcSpec::Dctcp(DctcpConfig::default()), tcp, ms(1)), 1, 0);
    s.duration_ns = ms(300);
    s.measure = Some(MeasureWindow { start_ns: ms(100), end_ns: ms(300) });
    let r = pertlab_sim::run(&s).unwrap();
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    let b = r.bottleneck.as_ref().unwrap();
    // C RTT = 10 Gbps x 200 us / 12000 bits = 166.7 packets.
    let c_rtt = 10e9 * 200e-6 / 12_000.0;
    let amplitude = (2.0 * f64::from(n) * (c_rtt + f64::from(k))).sqrt() / 2.0;
    let (q_max, q_min) = (f64::from(k + n), f64::from(k + n) - amplitude);
    eprintln!("DCTCP 10G: avg queue {:.1} pkts (Q_min {q_min:.1}, Q_max {q_max:.1}), util {:.4}, drops {}, marks {}", b.avg_queue_pkts, b.utilization, b.drops, b.marks);
    assert!(b.avg_queue_pkts >= q_min && b.avg_queue_pkts <= q_max, "avg queue {} outside [{q_min}, {q_max}]", b.avg_queue_pkts);
    assert!(b.utilization > 0.99, "utilization {}", b.utilization);
    assert_eq!(b.drops, 0);
    assert!(b.marks > 0);
}
