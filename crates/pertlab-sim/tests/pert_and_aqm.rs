//! The PERT paper's Section 4 shape on a small scale, and RED's equilibrium.

use pertlab_sim::queue::red::RedConfig;
use pertlab_sim::scenario::{CcSpec, QueueSpec};
use pertlab_sim::tcp::cc::pert::PertConfig;
use pertlab_sim::tcp::TcpConfig;

mod common;
use common::*;

fn run_dumbbell(cc: CcSpec, queue: QueueSpec, ecn: bool, flows: u32) -> pertlab_sim::Results {
    let (bw, rtt) = (150, 60);
    let tcp = TcpConfig { ecn, ..TcpConfig::default() };
    let s = scenario(dumbbell(flows, bw, rtt, queue), bulk_flows(flows, cc, tcp, secs(10)), 60, 20);
    let r = pertlab_sim::run(&s).unwrap();
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    r
}

#[test]
fn pert_on_droptail_keeps_drops_near_zero_and_the_queue_far_below_sack() {
    let limit = bdp_pkts(150, 60); // 750 packets
    let pert = run_dumbbell(CcSpec::Pert(PertConfig::default()), droptail(limit), false, 20);
    let sack = run_dumbbell(CcSpec::Reno, droptail(limit), false, 20);
    let (p, s) = (pert.bottleneck.unwrap(), sack.bottleneck.unwrap());
    assert!(p.drop_rate < 1e-4, "PERT drop rate {}", p.drop_rate);
    assert!(s.drop_rate > 10.0 * p.drop_rate.max(1e-6), "SACK drop rate {} vs PERT {}", s.drop_rate, p.drop_rate);
    assert!(p.avg_queue_norm < 0.5 * s.avg_queue_norm, "PERT queue {} vs SACK {}", p.avg_queue_norm, s.avg_queue_norm);
    assert!(p.utilization > 0.9, "PERT utilization {}", p.utilization);
    assert!(pert.flows.iter().map(|f| f.early_responses).sum::<u64>() > 0);
}

#[test]
fn ared_with_ecn_marks_instead_of_dropping() {
    let queue = QueueSpec { kind: "ared".into(), limit_pkts: Some(bdp_pkts(150, 60)), red: RedConfig { use_ecn: true, ..RedConfig::default() }, ..QueueSpec::default() };
    let r = run_dumbbell(CcSpec::Reno, queue, true, 20);
    let b = r.bottleneck.unwrap();
    assert!(b.marks > 100, "marks {}", b.marks);
    assert!(b.drops * 10 < b.marks, "drops {} should be rare next to marks {}", b.drops, b.marks);
    assert!(r.flows.iter().map(|f| f.ecn_reductions).sum::<u64>() > 0);
    assert!(b.utilization > 0.9, "utilization {}", b.utilization);
}
