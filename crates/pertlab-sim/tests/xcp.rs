//! XCP end to end (Katabi, Handley, Rohrs, SIGCOMM 2002): flows of different
//! RTTs through one XCP router fill the link with equal shares and an almost
//! empty queue; a flow that joins reaches its share in a few RTTs; scenarios
//! that would leave XCP uncontrolled are refused.

use pertlab_sim::scenario::{CcSpec, DumbbellSpec, FlowSpec, MonitorSpec, QueueSpec, Scenario};
use pertlab_sim::tcp::TcpConfig;
use pertlab_sim::time::NS_PER_MS;

mod common;
use common::*;

/// RTTs of the four flows, ms: 40, 80, 120, 160.
const RTTS_MS: [u64; 4] = [40, 80, 120, 160];

/// A 100 Mbit/s, 1000-packet bottleneck with `queue`, one pair per RTT of
/// [`RTTS_MS`]: 10 ms on the bottleneck and 1 ms on each receiver's access
/// link, the rest on the sender's.
fn four_rtts(queue: QueueSpec) -> DumbbellSpec {
    DumbbellSpec {
        bottleneck_delay_ns: ms(10),
        sender_access_delay_ns: RTTS_MS.iter().map(|r| ms(r / 2 - 11)).collect(),
        access_rate_bps: 1000 * MBPS,
        ..dumbbell(4, 100, 40, queue)
    }
}

fn xcp_queue() -> QueueSpec {
    QueueSpec { kind: "xcp".into(), limit_pkts: Some(1000), ..QueueSpec::default() }
}

fn xcp_flows(starts_ms: [u64; 4]) -> Vec<FlowSpec> {
    let mut flows = bulk_flows(4, CcSpec::Xcp, TcpConfig::default(), 0);
    for (f, start) in flows.iter_mut().zip(starts_ms) {
        f.start_window_ns = None;
        f.start_ns = Some(ms(start));
    }
    flows
}

/// The "full utilization and equal shares across RTTs within 5 %"
/// (the paper's Section 5.1 and Figure 9: utilization near 1, a queue near
/// zero, fair shares whatever the RTT).
#[test]
fn four_rtts_share_100_mbps_equally_at_full_utilization_with_an_empty_queue() {
    let mut s = scenario(four_rtts(xcp_queue()), xcp_flows([0, 0, 0, 0]), 30, 10);
    s.seed = 3;
    let r = pertlab_sim::run(&s).unwrap();
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    let b = r.bottleneck.as_ref().unwrap();
    let shares: Vec<f64> = r.flows.iter().map(|f| f.goodput_mbps).collect();
    let mean = shares.iter().sum::<f64>() / shares.len() as f64;
    eprintln!(
        "XCP 4 RTTs: util {:.4}, avg queue {:.2} pkts, drops {}, jain {:.5?}, goodputs {:?} Mbit/s",
        b.utilization, b.avg_queue_pkts, b.drops, r.jain, shares
    );
    assert!(b.utilization >= 0.95, "utilization {}", b.utilization);
    assert!(r.jain.is_some_and(|j| j >= 0.99), "jain {:?}", r.jain);
    for (rtt, g) in RTTS_MS.iter().zip(&shares) {
        assert!((g / mean - 1.0).abs() <= 0.05, "flow of RTT {rtt} ms: {g} Mbit/s against the mean {mean}");
    }
    assert!(b.avg_queue_pkts < 5.0, "mean queue {} packets", b.avg_queue_pkts);
    assert_eq!(b.drops, 0);
}

/// A fourth flow (RTT 160 ms, the longest) joins three that share the link:
/// its window reaches 80 % of its fair share (25 Mbit/s x 160 ms = 333
/// packets) within a few of its RTTs, and the four end within 5 % of equal.
#[test]
fn a_joining_flow_converges_to_its_share_in_a_few_rtts() {
    let join_ms = 10_000;
    let mut s = scenario(four_rtts(xcp_queue()), xcp_flows([0, 0, 0, join_ms]), 30, 20);
    s.monitor = MonitorSpec { sample_interval_ns: Some(10 * NS_PER_MS), flows: Some(vec![3]), ..MonitorSpec::default() };
    let r = pertlab_sim::run(&s).unwrap();
    let series = &r.flow_series;
    let fair = 25e6 * 0.160 / 12_000.0;
    let reached = series.t_s.iter().zip(&series.cwnd).find(|(_, &w)| f64::from(w) >= 0.8 * fair).map(|(t, _)| *t);
    let rtts = (reached.expect("never reached 80 % of its share") - join_ms as f64 / 1000.0) / 0.160;
    let shares: Vec<f64> = r.flows.iter().map(|f| f.goodput_mbps).collect();
    eprintln!("XCP join: 80 % of the share after {rtts:.1} RTTs of 160 ms; goodputs afterwards {shares:?}, jain {:.5?}", r.jain);
    assert!(rtts <= 10.0, "{rtts} RTTs");
    let mean = shares.iter().sum::<f64>() / 4.0;
    assert!(shares.iter().all(|g| (g / mean - 1.0).abs() <= 0.05), "{shares:?}");
}

/// Without XCP routers nothing would lower an XCP sender's request: refused,
/// naming the flow's controller. Non-XCP flows through an XCP router are
/// not controlled (the paper's routers give feedback only in headers); they
/// pass as through DropTail.
#[test]
fn xcp_needs_an_xcp_router_and_leaves_other_flows_alone() {
    let mut s = scenario(four_rtts(droptail(1000)), xcp_flows([0, 0, 0, 0]), 2, 1);
    let e = pertlab_sim::run(&s).unwrap_err();
    assert_eq!(e.field, "flows[0].cc");
    assert!(e.message.contains("xcp"), "{}", e.message);
    // Reno through an XCP router behaves as through DropTail, to the packet.
    s.flows = bulk_flows(4, CcSpec::Reno, TcpConfig::default(), ms(100));
    let through_droptail = pertlab_sim::run(&s).unwrap();
    s.dumbbell = Some(four_rtts(xcp_queue()));
    let through_xcp = pertlab_sim::run(&s).unwrap();
    let goodputs = |r: &pertlab_sim::Results| r.flows.iter().map(|f| f.goodput_bytes).collect::<Vec<_>>();
    assert_eq!(goodputs(&through_droptail), goodputs(&through_xcp));
    assert_eq!(through_droptail.bottleneck.as_ref().unwrap().drops, through_xcp.bottleneck.as_ref().unwrap().drops);
}

/// Bad router parameters are refused naming the field.
#[test]
fn bad_router_parameters_are_refused_by_name() {
    let mut q = xcp_queue();
    q.xcp.alpha = 2.0;
    let s: Scenario = scenario(four_rtts(q), xcp_flows([0, 0, 0, 0]), 2, 1);
    assert_eq!(pertlab_sim::run(&s).unwrap_err().field, "dumbbell.bottleneck_queue.xcp.alpha");
}
