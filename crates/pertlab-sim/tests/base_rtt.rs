//! Where a delay-based controller's base RTT comes from (`tcp::cc::base_rtt`):
//! the minimum RTT measured ("observed": Brakmo and Peterson's practice for
//! Vegas, PERT's `P`) or the path's propagation and transmission delays
//! ("propagation", Hua 2002's `d~`, eq. 3.7), for Vegas and PERT, on one
//! 2 Mbit/s, 100 ms DropTail link with a buffer that never overflows.

use pertlab_sim::scenario::CcSpec;
use pertlab_sim::tcp::cc::base_rtt::BaseRtt;
use pertlab_sim::tcp::cc::pert::PertConfig;
use pertlab_sim::tcp::cc::vegas::VegasConfig;
use pertlab_sim::tcp::TcpConfig;
use pertlab_sim::time::tx_time;

mod common;
use common::*;

const PACKET: u32 = 1000;
const ACK: u32 = 40;

fn vegas(base_rtt: BaseRtt) -> CcSpec {
    CcSpec::Vegas(VegasConfig { base_rtt, ..VegasConfig::default() })
}

fn pert(base_rtt: BaseRtt) -> CcSpec {
    CcSpec::Pert(PertConfig { base_rtt, ..PertConfig::default() })
}

/// `n` flows of `cc` starting together at 0 s on 2 Mbit/s, 100 ms, 60 s measured over the last 40 s.
fn run_cc(n: u32, cc: CcSpec) -> pertlab_sim::stats::Results {
    let tcp = TcpConfig { packet_size: PACKET, ..TcpConfig::default() };
    let s = scenario(dumbbell(n, 2, 100, droptail(1000)), bulk_flows(n, cc, tcp, 0), 60, 20);
    pertlab_sim::run(&s).unwrap()
}

fn run(n: u32, base_rtt: BaseRtt) -> pertlab_sim::stats::Results {
    run_cc(n, vegas(base_rtt))
}

/// The path's RTT without queueing in ms: 100 ms of propagation, a data packet's
/// transmission on the two 20 Mbit/s access links and the 2 Mbit/s bottleneck,
/// an ACK's on the same links back.
fn path_rtt_ms() -> f64 {
    let (access, core) = (20 * MBPS, 2 * MBPS);
    let one_way = |bytes| 2 * tx_time(bytes, access) + tx_time(bytes, core);
    (ms(100) + one_way(PACKET) + one_way(ACK)) as f64 / 1e6
}

#[test]
fn a_lone_flow_measures_the_path_rtt_so_both_sources_give_the_same_run() {
    // 100 + 2 x 0.4 + 4 + 2 x 0.016 + 0.16 ms.
    assert!((path_rtt_ms() - 104.992).abs() < 1e-9, "{}", path_rtt_ms());
    let (observed, known) = (run(1, BaseRtt::Observed), run(1, BaseRtt::Propagation));
    let (a, b) = (&observed.flows[0], &known.flows[0]);
    // The first segment finds the path empty: its RTT is the path's, to the ns.
    let min = a.rtt_min_ms.expect("RTT samples");
    assert!((min - path_rtt_ms()).abs() < 1e-6, "{min} against {}", path_rtt_ms());
    assert_eq!((a.goodput_bytes, a.segments_sent, a.rtt_samples), (b.goodput_bytes, b.segments_sent, b.rtt_samples));
    assert_eq!((a.rtt_mean_ms, a.rtt_min_ms, a.rtt_max_ms), (b.rtt_mean_ms, b.rtt_min_ms, b.rtt_max_ms));
}

/// Packets flow `f` holds in the network by Vegas's own measure over the true
/// base RTT: its rate on the wire times its mean RTT above the path's.
fn backlog(f: &pertlab_sim::stats::FlowResult) -> f64 {
    let pkts_per_s = f.goodput_mbps * 1e6 / (8.0 * f64::from(PACKET - 40));
    pkts_per_s * (f.rtt_mean_ms.expect("RTT samples") - path_rtt_ms()) / 1e3
}

#[test]
fn with_the_path_rtt_flows_starting_together_hold_alpha_to_beta_packets_each() {
    // Sixteen flows start at 0 s: their first segments queue behind one
    // another, 32 of them at 4 ms each, and late ones measure their least RTT
    // with much of that queue in it.
    let n = 16;
    let (observed, known) = (run(n, BaseRtt::Observed), run(n, BaseRtt::Propagation));
    let spread = |r: &pertlab_sim::stats::Results| r.flows.iter().map(|f| f.rtt_min_ms.expect("RTT samples")).fold(0.0, f64::max) - path_rtt_ms();
    assert!(spread(&observed) > 50.0, "least RTT {} ms above the path's", spread(&observed));
    for r in [&observed, &known] {
        let b = r.bottleneck.as_ref().unwrap();
        assert_eq!(b.drops, 0);
        assert!(b.utilization > 0.99, "{}", b.utilization);
    }
    // With the path's RTT every flow holds between alpha = 1 and beta = 3 packets
    // (1.36 each here), the queue between n alpha and n beta (21.8 packets), and the
    // flows share alike (Jain index 0.99999).
    let held: Vec<f64> = known.flows.iter().map(backlog).collect();
    assert!(held.iter().all(|&d| (1.0..=3.0).contains(&d)), "{held:?}");
    let q = known.bottleneck.as_ref().unwrap().avg_queue_pkts;
    assert!((f64::from(n)..=3.0 * f64::from(n)).contains(&q), "{q}");
    assert!(jain(&known) > 0.999, "{}", jain(&known));
    let range = |d: &[f64]| d.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b)) - d.iter().fold(f64::INFINITY, |a, &b| a.min(b));
    assert!(range(&held) < 0.05, "{held:?}");
    // With the least RTT measured, those whose base holds more of the start-up
    // queue count less of what they hold: 1.64 to 2.20 packets (Jain 0.983).
    let observed_held: Vec<f64> = observed.flows.iter().map(backlog).collect();
    assert!(range(&observed_held) > 0.5, "{observed_held:?}");
    assert!(jain(&observed) < 0.99, "{}", jain(&observed));
}

fn jain(r: &pertlab_sim::stats::Results) -> f64 {
    let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_mbps).collect();
    g.iter().sum::<f64>().powi(2) / (g.len() as f64 * g.iter().map(|x| x * x).sum::<f64>())
}

#[test]
fn a_lone_pert_flow_measures_the_path_rtt_so_both_sources_give_the_same_run() {
    let (observed, known) = (run_cc(1, pert(BaseRtt::Observed)), run_cc(1, pert(BaseRtt::Propagation)));
    let (a, b) = (&observed.flows[0], &known.flows[0]);
    assert!(a.early_responses > 0, "PERT responded early: {}", a.early_responses);
    assert_eq!((a.goodput_bytes, a.segments_sent, a.early_responses), (b.goodput_bytes, b.segments_sent, b.early_responses));
    assert_eq!((a.rtt_mean_ms, a.rtt_min_ms, a.rtt_max_ms), (b.rtt_mean_ms, b.rtt_min_ms, b.rtt_max_ms));
}

#[test]
fn with_its_p_measured_pert_holds_a_queue_above_what_late_starters_took_into_p() {
    // Sixteen PERT flows start together: late ones take up to 60 ms of start-up
    // queue into P, and respond only to queueing beyond it, so the queue stands
    // above that (84 ms here: every flow then responds on every RTT). Given the
    // path's RTT as P, every flow sees the whole queue, which then stands below
    // what the late starters' P took in (42 ms here, windows of 2 to 3 packets).
    let n = 16;
    let (observed, known) = (run_cc(n, pert(BaseRtt::Observed)), run_cc(n, pert(BaseRtt::Propagation)));
    let queueing = |r: &pertlab_sim::stats::Results| {
        let mean = r.flows.iter().map(|f| f.rtt_mean_ms.expect("RTT samples")).sum::<f64>() / f64::from(n);
        mean - path_rtt_ms()
    };
    let inflation = observed.flows.iter().map(|f| f.rtt_min_ms.expect("RTT samples") - path_rtt_ms()).fold(0.0, f64::max);
    assert!(inflation > 50.0, "least RTT up to {inflation} ms above the path's");
    assert!(queueing(&observed) > inflation, "queueing {} ms, P inflated by up to {inflation} ms", queueing(&observed));
    assert!(queueing(&known) < inflation, "queueing {} ms given P, P inflated by up to {inflation} ms when measured", queueing(&known));
    for r in [&observed, &known] {
        let b = r.bottleneck.as_ref().unwrap();
        assert_eq!(b.drops, 0);
        assert!(b.utilization > 0.99, "{}", b.utilization);
    }
}
