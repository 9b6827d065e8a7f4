//! Named scenarios used by benchmarks and examples.

use crate::scenario::{CcSpec, DumbbellSpec, FlowSpec, QueueSpec, Scenario};
use crate::tcp::TcpConfig;
use crate::time::{NS_PER_MS, NS_PER_SEC};

/// The canonical bottleneck's rate.
pub const CANONICAL_RATE_BPS: u64 = 150_000_000;

/// One bandwidth-delay product of 1500-byte packets at `rate_bps` and the canonical 60 ms.
fn bdp_pkts(rate_bps: u64) -> u32 {
    (rate_bps as f64 * 0.060 / (1500.0 * 8.0)) as u32
}

/// The canonical benchmark: a 150 Mbps / 60 ms RTT dumbbell (1 ms access links,
/// 28 ms bottleneck), DropTail with a bandwidth-delay-product buffer (750
/// packets of 1500 bytes), `flows` SACK flows starting uniformly in [0, 10] s,
/// `duration_s` simulated seconds; metrics over the whole run.
pub fn canonical_dumbbell(flows: u32, duration_s: u64) -> Scenario {
    canonical_dumbbell_with_queue(flows, duration_s, "droptail")
}

/// The canonical dumbbell with the bottleneck discipline `kind` (one of
/// [`QueueSpec::KINDS`], its defaults) in place of DropTail: the AQM benchmark.
pub fn canonical_dumbbell_with_queue(flows: u32, duration_s: u64, kind: &str) -> Scenario {
    let rate = CANONICAL_RATE_BPS;
    let bdp_pkts = bdp_pkts(rate);
    Scenario {
        seed: 1,
        duration_ns: duration_s * NS_PER_SEC,
        measure: None,
        nodes: vec![],
        links: vec![],
        dumbbell: Some(DumbbellSpec {
            pairs: flows,
            bottleneck_rate_bps: rate,
            bottleneck_delay_ns: 28 * NS_PER_MS,
            bottleneck_queue: QueueSpec { kind: kind.to_string(), limit_pkts: Some(bdp_pkts), ..QueueSpec::default() },
            bottleneck_queue_reverse: None,
            bottleneck_loss: 0.0,
            access_rate_bps: 10 * rate,
            sender_access_delay_ns: vec![NS_PER_MS],
            receiver_access_delay_ns: vec![NS_PER_MS],
            access_queue: QueueSpec::default(),
        }),
        flows: (0..flows)
            .map(|i| FlowSpec {
                src: format!("s{i}"),
                dst: format!("d{i}"),
                cc: CcSpec::Reno,
                start_ns: None,
                start_window_ns: Some([0, 10 * NS_PER_SEC]),
                stop_ns: None,
                off_ns: vec![],
                label: None,
                class: 0,
                tcp: TcpConfig::default(),
                video: None,
                probe: false,
            })
            .collect(),
        udp: vec![],
        web: vec![],
        monitor: Default::default(),
        capture: Vec::new(),
        engine: Default::default(),
    }
}

/// The canonical dumbbell with its bottleneck at `rate_bps` (the buffer one BDP, the access
/// links ten times as fast) and the flows' starts spread over a tenth of the run if that is
/// less than 10 s. The two scalings of issue 21's many-flow target (BENCHMARKS.md, "Against
/// a minimal engine") use it: 1000 flows at 20 times the rate give each flow the canonical
/// flows' windows, and 50 flows at a twentieth give each the windows of 1000 canonical ones.
pub fn canonical_dumbbell_at_rate(flows: u32, duration_s: u64, kind: &str, rate_bps: u64) -> Scenario {
    let mut s = canonical_dumbbell_with_queue(flows, duration_s, kind);
    if let Some(d) = s.dumbbell.as_mut() {
        d.bottleneck_rate_bps = rate_bps;
        d.access_rate_bps = 10 * rate_bps;
        d.bottleneck_queue.limit_pkts = Some(bdp_pkts(rate_bps));
    }
    let spread = (10 * NS_PER_SEC).min(s.duration_ns / 10);
    s.flows.iter_mut().for_each(|f| f.start_window_ns = Some([0, spread]));
    s
}

/// A dumbbell scenario's flows over `pairs` pairs of access links instead of one pair each:
/// flow i from sender `s{i mod pairs}` to receiver `d{i mod pairs}`, each access queue as long
/// as all the flows' packets in flight and buffered could be (the bottleneck's buffer and its
/// BDP), so that sharing drops nothing there. Issue 21's third scaling (BENCHMARKS.md, "Against
/// a minimal engine") runs 1000 flows over one pair: each flow keeps its own state and the
/// run loses the 4000 access channels, which parts the memory of many flows into the flows'
/// and their access links'.
pub fn with_shared_access(mut s: Scenario, pairs: u32) -> Scenario {
    if let Some(d) = s.dumbbell.as_mut() {
        d.pairs = pairs.max(1);
        let held = d.bottleneck_queue.limit_pkts.unwrap_or(0) + bdp_pkts(d.bottleneck_rate_bps);
        d.access_queue.limit_pkts = Some(held.max(QueueSpec::DEFAULT_LIMIT_PKTS));
        for (i, f) in s.flows.iter_mut().enumerate() {
            let pair = i as u32 % d.pairs;
            (f.src, f.dst) = (format!("s{pair}"), format!("d{pair}"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canonical_rate_gives_the_canonical_dumbbell() {
        assert_eq!(canonical_dumbbell_at_rate(50, 100, "red", CANONICAL_RATE_BPS), canonical_dumbbell_with_queue(50, 100, "red"));
    }

    #[test]
    fn a_scaled_rate_scales_the_buffer_and_access_links_and_a_short_run_its_starts() {
        let s = canonical_dumbbell_at_rate(1000, 10, "droptail", 20 * CANONICAL_RATE_BPS);
        let d = s.dumbbell.as_ref().unwrap();
        assert_eq!((d.bottleneck_rate_bps, d.access_rate_bps), (3_000_000_000, 30_000_000_000));
        assert_eq!(d.bottleneck_queue.limit_pkts, Some(15_000));
        assert!(s.flows.iter().all(|f| f.start_window_ns == Some([0, NS_PER_SEC])));
        let slow = canonical_dumbbell_at_rate(50, 2000, "droptail", CANONICAL_RATE_BPS / 20);
        assert_eq!(slow.dumbbell.as_ref().unwrap().bottleneck_queue.limit_pkts, Some(37));
        assert!(slow.flows.iter().all(|f| f.start_window_ns == Some([0, 10 * NS_PER_SEC])));
        assert!(s.validate().is_ok() && slow.validate().is_ok());
    }

    #[test]
    fn flows_over_shared_access_links_drop_nothing_there_and_keep_the_bottleneck_busy() {
        let own = canonical_dumbbell_at_rate(40, 5, "droptail", CANONICAL_RATE_BPS);
        let shared = with_shared_access(own.clone(), 1);
        assert!(shared.flows.iter().all(|f| (f.src.as_str(), f.dst.as_str()) == ("s0", "d0")));
        assert_eq!(shared.dumbbell.as_ref().unwrap().pairs, 1);
        let (a, b) = (crate::run(&own).unwrap(), crate::run(&shared).unwrap());
        let bottleneck_drops = |r: &crate::Results| r.bottleneck.as_ref().unwrap().drops;
        let all_drops = |r: &crate::Results| r.queues.iter().map(|q| q.drops).sum::<u64>();
        assert_eq!(all_drops(&b), bottleneck_drops(&b), "no access queue drops");
        let (ua, ub) = (a.bottleneck.unwrap().utilization, b.bottleneck.unwrap().utilization);
        assert!(ua > 0.9 && (ua - ub).abs() < 0.02, "{ua} {ub}");
    }
}
