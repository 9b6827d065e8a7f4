//! Delayed ACKs and a delay-based controller (docs/model.md, "Timestamp echo"):
//! with RFC 7323's echo (`ts_echo = earliest`) an ACK that covers two segments
//! echoes the first, so its RTT sample includes the time the receiver held that
//! segment, up to `delayed_ack_timeout`. PERT reads the hold as queueing delay.
//! Five PERT flows on 10 Mbit/s, 60 ms, with ns-2's 100 ms timeout: the flows
//! that fall to a small window (where a segment is often held) respond early
//! again and again and stay there. The tests check the effect and its cause:
//! the same runs with the newest segment's echo (`latest`, ns-2's sinks; the
//! RTT a Linux controller gets, `ack_sample.rtt_us`, is the last acknowledged
//! segment's too) or with a 1 ms hold share the link.

use pertlab_sim::scenario::{CcSpec, Scenario};
use pertlab_sim::tcp::cc::pert::PertConfig;
use pertlab_sim::tcp::{AckPolicy, TcpConfig, TsEcho};
use pertlab_sim::Results;

mod common;
use common::*;

const FLOWS: u32 = 5;
const BW_MBPS: u64 = 10;

fn delayed_acks(ts_echo: TsEcho, timeout_ms: u64, seed: u64) -> Scenario {
    let tcp = TcpConfig { ack_policy: AckPolicy::Delayed, ts_echo, delayed_ack_timeout_ns: ms(timeout_ms), ..TcpConfig::default() };
    let flows = bulk_flows(FLOWS, CcSpec::Pert(PertConfig::default()), tcp, secs(10));
    Scenario { seed, ..scenario(dumbbell(FLOWS, BW_MBPS, 60, droptail(bdp_pkts(BW_MBPS, 60))), flows, 100, 20) }
}

/// The least goodput of a flow over the fair share of the bottleneck, the
/// utilization, and the early responses of all flows.
fn outcome(s: &Scenario) -> (f64, f64, u64) {
    let r: Results = pertlab_sim::run(s).expect("valid scenario");
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    let fair = BW_MBPS as f64 / FLOWS as f64;
    let least = r.flows.iter().map(|f| f.goodput_mbps).fold(f64::INFINITY, f64::min);
    (least / fair, r.bottleneck.expect("a dumbbell").utilization, r.flows.iter().map(|f| f.early_responses).sum())
}

#[test]
fn with_the_earliest_echo_a_flow_held_by_delayed_acks_stays_far_below_its_share() {
    for seed in 1..=3 {
        let (least, utilization, early) = outcome(&delayed_acks(TsEcho::Earliest, 100, seed));
        let (least_latest, utilization_latest, early_latest) = outcome(&delayed_acks(TsEcho::Latest, 100, seed));
        let (least_short, utilization_short, _) = outcome(&delayed_acks(TsEcho::Earliest, 1, seed));
        eprintln!(
            "seed {seed}: earliest least {least:.3} u {utilization:.3} early {early}; latest {least_latest:.3} u {utilization_latest:.3} early {early_latest}; 1 ms hold {least_short:.3} u {utilization_short:.3}"
        );
        assert!(least < 0.25, "seed {seed}: the least flow has {least:.3} of its share");
        assert!(early > 3 * early_latest, "seed {seed}: {early} early responses against {early_latest} with the latest echo");
        for (what, least, utilization) in [("latest echo", least_latest, utilization_latest), ("1 ms hold", least_short, utilization_short)] {
            assert!(least > 0.6 && utilization > 0.9, "seed {seed}, {what}: least {least:.3} of the share, utilization {utilization:.3}");
        }
    }
}
