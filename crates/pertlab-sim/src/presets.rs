//! Named scenarios used by benchmarks and examples.

use crate::scenario::{CcSpec, DumbbellSpec, FlowSpec, QueueSpec, Scenario};
use crate::tcp::TcpConfig;
use crate::time::{NS_PER_MS, NS_PER_SEC};

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
    let rate = 150_000_000u64;
    let bdp_pkts = (rate as f64 * 0.060 / (1500.0 * 8.0)) as u32;
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
