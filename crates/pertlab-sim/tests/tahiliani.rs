//! Tahiliani (2013) Chapter 4's controllers end to end: DCTCP's queue at K,
//! and the XECN/Surathkal machinery on an ARED bottleneck.

use pertlab_sim::net::burst_loss::BurstLossConfig;
use pertlab_sim::queue::step::StepConfig;
use pertlab_sim::scenario::{CcSpec, DumbbellSpec, FlowSpec, LinkSpec, MeasureWindow, MonitorSpec, QueueSpec, Scenario};
use pertlab_sim::stats::QueueResult;
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
    eprintln!(
        "DCTCP 10G: avg queue {:.1} pkts (Q_min {q_min:.1}, Q_max {q_max:.1}), util {:.4}, drops {}, marks {}",
        b.avg_queue_pkts, b.utilization, b.drops, b.marks
    );
    assert!(b.avg_queue_pkts >= q_min && b.avg_queue_pkts <= q_max, "avg queue {} outside [{q_min}, {q_max}]", b.avg_queue_pkts);
    assert!(b.utilization > 0.99, "utilization {}", b.utilization);
    assert_eq!(b.drops, 0);
    assert!(b.marks > 0);
}

/// A wired sender, an access point and a station behind an 11 Mbps last hop
/// with the given error model, one TCP flow to the station for `duration_s`;
/// returns the per-direction results of the last hop (data direction first).
fn last_hop(loss: f64, loss_ba: f64, burst_loss: Option<BurstLossConfig>, duration_s: u64) -> (QueueResult, QueueResult, pertlab_sim::Results) {
    let link = |name: &str, a: &str, b: &str, rate_mbps: u64, delay_ms: u64| LinkSpec {
        name: Some(name.into()),
        a: a.into(),
        b: b.into(),
        rate_bps: rate_mbps * MBPS,
        delay_ns: ms(delay_ms),
        loss: 0.0,
        loss_ba: 0.0,
        burst_loss: None,
        queue: QueueSpec { limit_pkts: Some(100), ..QueueSpec::default() },
        queue_ba: None,
    };
    let s = Scenario {
        seed: 5,
        duration_ns: secs(duration_s),
        measure: Some(MeasureWindow { start_ns: 0, end_ns: secs(duration_s) }),
        nodes: vec!["src".into(), "ap".into(), "sta".into()],
        links: vec![link("wired", "src", "ap", 75, 5), LinkSpec { loss, loss_ba, burst_loss, ..link("wireless", "ap", "sta", 11, 1) }],
        dumbbell: None,
        flows: bulk_flows(1, CcSpec::Reno, TcpConfig::default(), 0).into_iter().map(|f| FlowSpec { src: "src".into(), dst: "sta".into(), ..f }).collect(),
        udp: vec![],
        web: vec![],
        monitor: MonitorSpec { links: Some(vec!["wireless".into()]), ..Default::default() },
        capture: Vec::new(),
        engine: Default::default(),
    };
    let r = pertlab_sim::run(&s).unwrap();
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    let dir = |from: &str| r.queues.iter().find(|q| q.link == "wireless" && q.from == from).unwrap().clone();
    (dir("ap"), dir("sta"), r.clone())
}

/// The measured loss rate of one direction: losses on the wire per packet sent.
fn loss_rate(q: &QueueResult) -> f64 {
    q.link_losses as f64 / q.departures as f64
}

#[test]
fn bernoulli_link_loss_hits_acks_too() {
    // 5 % on the ACK direction only: about 5 % of the ACKs are lost, no data.
    let (data, acks, r) = last_hop(0.0, 0.05, None, 60);
    eprintln!("ACK losses {} of {} ({:.4}); data losses {}", acks.link_losses, acks.departures, loss_rate(&acks), data.link_losses);
    assert_eq!(data.link_losses, 0);
    assert!((loss_rate(&acks) - 0.05).abs() <= 0.005, "ACK loss rate {}", loss_rate(&acks));
    assert!(r.flows[0].goodput_mbps > 9.0, "cumulative ACKs cover lost ones: {}", r.flows[0].goodput_mbps);
}

#[test]
fn gilbert_elliott_last_hop_loses_data_and_acks_at_the_configured_rate() {
    let ge = BurstLossConfig { rate: 0.02, mean_burst_pkts: 3.0 };
    // 600 s: about 2 000 bursts each way, so the sampling error of the rate is about 3 %.
    let (data, acks, r) = last_hop(0.0, 0.0, Some(ge), 600);
    eprintln!(
        "GE: data {:.4} ({} of {}), ACKs {:.4} ({} of {}), goodput {:.3}",
        loss_rate(&data),
        data.link_losses,
        data.departures,
        loss_rate(&acks),
        acks.link_losses,
        acks.departures,
        r.flows[0].goodput_mbps
    );
    for q in [&data, &acks] {
        assert!((loss_rate(q) - 0.02).abs() <= 0.002, "{} -> {}: loss rate {}", q.from, q.to, loss_rate(q));
    }
    // Losses in bursts of 3 cost a window each time; the flow still moves data.
    assert!(r.flows[0].goodput_mbps > 1.0, "goodput {}", r.flows[0].goodput_mbps);
}
