//! TCP against theory: one Reno flow fills a BDP-buffered link with a sawtooth
//! between W/2 and W; with random loss, throughput follows the Mathis et al. and
//! Padhye et al. formulas.

use pertlab_sim::scenario::{CcSpec, MonitorSpec};
use pertlab_sim::tcp::TcpConfig;
use pertlab_sim::time::NS_PER_MS;

mod common;
use common::*;

/// Payload bytes per segment with the default 1500-byte packets.
const MSS_BYTES: f64 = 1460.0;

#[test]
fn one_reno_flow_fills_a_bdp_buffer_with_a_sawtooth_between_half_w_and_w() {
    let (bw, rtt) = (10, 60);
    let bdp = bdp_pkts(bw, rtt); // 50 packets
    let mut s = scenario(dumbbell(1, bw, rtt, droptail(bdp)), bulk_flows(1, CcSpec::Reno, TcpConfig::default(), 0), 200, 20);
    s.monitor = MonitorSpec { sample_interval_ns: Some(10 * NS_PER_MS), flows: None, links: Some(vec!["bottleneck".into()]), ..Default::default() };
    let r = pertlab_sim::run(&s).unwrap();
    let b = r.bottleneck.as_ref().unwrap();
    assert!(b.utilization > 0.99, "utilization {}", b.utilization);
    let f = &r.flows[0];
    assert_eq!(f.timeouts, 0, "no timeouts after the first slow start");
    assert!(f.fast_recoveries >= 3, "the sawtooth repeats: {} recoveries", f.fast_recoveries);
    // The window peaks at what the pipe plus the buffer hold (W = 2 BDP = 100
    // packets, plus the packet in transmission and up to 2 on the access links) and
    // halves at each loss.
    let cwnds: Vec<u32> = r.flow_series.t_s.iter().zip(&r.flow_series.cwnd).filter(|(t, _)| **t >= 20.0).map(|(_, c)| *c).collect();
    let (w_min, w_max) = (*cwnds.iter().min().unwrap(), *cwnds.iter().max().unwrap());
    eprintln!("one Reno flow: utilization {:.4}, window {w_min}..{w_max}, {} recoveries", b.utilization, f.fast_recoveries);
    let w = 2 * bdp;
    assert!(w_max >= w && w_max <= w + 5, "peak window {w_max}, expected about {w}");
    assert!(w_min >= w / 2 - 2 && w_min <= w / 2 + 3, "trough window {w_min}, expected about {}", w / 2);
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
}

/// Throughput in segments per second of one SACK flow on a fast link with
/// Bernoulli loss `p` on the data path; also returns the measured mean RTT and
/// the flow's timeouts.
fn throughput_under_random_loss(p: f64, duration_s: u64) -> (f64, f64, u64) {
    let mut d = dumbbell(1, 100, 60, droptail(10_000));
    d.bottleneck_loss = p;
    let s = scenario(d, bulk_flows(1, CcSpec::Reno, TcpConfig::default(), 0), duration_s, 20);
    let r = pertlab_sim::run(&s).unwrap();
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    let f = &r.flows[0];
    (f.goodput_mbps * 1e6 / 8.0 / MSS_BYTES, f.rtt_mean_ms.expect("RTT samples") / 1e3, f.timeouts)
}

#[test]
fn sack_throughput_follows_mathis_at_p_1e_3() {
    let p = 1e-3;
    let (x, rtt, _) = throughput_under_random_loss(p, 1000);
    // Mathis, Semke, Mahdavi, Ott 1997: X = (1 / RTT) sqrt(3 / (2 p)) segments/s.
    let mathis = (1.5 / p).sqrt() / rtt;
    let err = (x - mathis).abs() / mathis;
    eprintln!("p = {p}: {x:.1} seg/s, Mathis {mathis:.1}, RTT {rtt:.4} s");
    assert!(err < 0.2, "throughput {x:.1} seg/s vs Mathis {mathis:.1} (RTT {rtt:.4} s): {:.1}% off", 100.0 * err);
}

#[test]
fn sack_throughput_follows_padhye_at_p_1e_2() {
    let p = 1e-2;
    let (x, rtt, timeouts) = throughput_under_random_loss(p, 1000);
    // Padhye, Firoiu, Towsley, Kurose 1998, eq. (31) with b = 1 (an ACK per
    // segment) and T0 = the RTO: SRTT + 200 ms, Linux's floor on the margin (tcp/rtt.rs).
    let b = 1.0;
    let t0 = rtt + 0.2_f64.max(4.0 * 0.005);
    let padhye = 1.0 / (rtt * (2.0 * b * p / 3.0).sqrt() + t0 * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p));
    let err = (x - padhye).abs() / padhye;
    eprintln!("p = {p}: {x:.1} seg/s, Padhye {padhye:.1}, RTT {rtt:.4} s, {timeouts} timeouts");
    assert!(err < 0.2, "throughput {x:.1} seg/s vs Padhye {padhye:.1} (RTT {rtt:.4} s, {timeouts} timeouts): {:.1}% off", 100.0 * err);
}

#[test]
fn a_flow_that_stops_delivers_what_it_sent_and_leaves_the_link_to_the_others() {
    let mut flows = bulk_flows(2, CcSpec::Reno, TcpConfig::default(), 0);
    flows[0].stop_ns = Some(secs(10));
    let mut s = scenario(dumbbell(2, 10, 40, droptail(50)), flows, 30, 15);
    s.monitor = MonitorSpec { sample_interval_ns: Some(100 * NS_PER_MS), flows: None, links: Some(vec![]), ..Default::default() };
    let r = pertlab_sim::run(&s).unwrap();
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    // Within the window (15..30 s) the stopped flow delivers nothing new and the
    // other one has the whole link.
    assert_eq!(r.flows[0].goodput_bytes, 0);
    assert_eq!(r.flows[0].segments_sent, 0);
    assert!(r.flows[1].goodput_mbps > 0.95 * 10.0 * 1460.0 / 1500.0, "{}", r.flows[1].goodput_mbps);
    // Everything flow 0 sent before stopping was delivered: its receiver's
    // cumulative count stops growing, at the last segment sent.
    let delivered: Vec<u64> = (0..r.flow_series.t_s.len())
        .filter(|&i| r.flow_series.flow[i] == 0 && r.flow_series.t_s[i] >= 12.0)
        .map(|i| r.flow_series.delivered_bytes[i])
        .collect();
    assert!(delivered.windows(2).all(|w| w[0] == w[1]) && delivered[0] > 0);
}
