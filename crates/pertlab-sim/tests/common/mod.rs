//! Scenario builders shared by the integration tests.
#![allow(dead_code)]

use pertlab_sim::scenario::{CcSpec, DumbbellSpec, FlowSpec, QueueSpec, Scenario};
use pertlab_sim::tcp::TcpConfig;
use pertlab_sim::time::{NS_PER_MS, NS_PER_SEC};

pub const MBPS: u64 = 1_000_000;

pub fn secs(s: u64) -> u64 {
    s * NS_PER_SEC
}

pub fn ms(m: u64) -> u64 {
    m * NS_PER_MS
}

/// A dumbbell with `pairs` host pairs whose round-trip propagation delay is
/// `rtt_ms` (1 ms on each access link, the rest on the bottleneck), access links
/// ten times faster than the bottleneck.
pub fn dumbbell(pairs: u32, bw_mbps: u64, rtt_ms: u64, queue: QueueSpec) -> DumbbellSpec {
    DumbbellSpec {
        pairs,
        bottleneck_rate_bps: bw_mbps * MBPS,
        bottleneck_delay_ns: ms(rtt_ms) / 2 - ms(2),
        bottleneck_queue: queue,
        bottleneck_queue_reverse: None,
        bottleneck_loss: 0.0,
        access_rate_bps: 10 * bw_mbps * MBPS,
        sender_access_delay_ns: vec![ms(1)],
        receiver_access_delay_ns: vec![ms(1)],
        access_queue: QueueSpec::default(),
    }
}

/// Bandwidth-delay product in 1500-byte packets.
pub fn bdp_pkts(bw_mbps: u64, rtt_ms: u64) -> u32 {
    (bw_mbps * MBPS * rtt_ms / 1000 / (1500 * 8)) as u32
}

pub fn droptail(limit_pkts: u32) -> QueueSpec {
    QueueSpec { limit_pkts: Some(limit_pkts), ..QueueSpec::default() }
}

/// One flow per dumbbell pair with controller `cc`, starting in [0, start_window].
pub fn bulk_flows(pairs: u32, cc: CcSpec, tcp: TcpConfig, start_window_ns: u64) -> Vec<FlowSpec> {
    (0..pairs)
        .map(|i| FlowSpec {
            src: format!("s{i}"),
            dst: format!("d{i}"),
            cc: cc.clone(),
            start_ns: None,
            start_window_ns: Some([0, start_window_ns]),
            stop_ns: None,
            off_ns: vec![],
            label: None,
            class: 0,
            tcp: tcp.clone(),
            video: None,
            probe: false,
        })
        .collect()
}

pub fn scenario(dumbbell: DumbbellSpec, flows: Vec<FlowSpec>, duration_s: u64, warmup_s: u64) -> Scenario {
    Scenario {
        seed: 1,
        duration_ns: secs(duration_s),
        measure: Some(pertlab_sim::scenario::MeasureWindow { start_ns: secs(warmup_s), end_ns: secs(duration_s) }),
        nodes: vec![],
        links: vec![],
        dumbbell: Some(dumbbell),
        flows,
        udp: vec![],
        web: vec![],
        monitor: Default::default(),
        capture: Vec::new(),
        engine: Default::default(),
    }
}

/// The u32 draws made between two states of a stream (shared test vectors
/// record the draws each ACK made): `before` is stepped until it is `after`.
pub fn draws_made(before: &pertlab_sim::rng::SimRng, after: &pertlab_sim::rng::SimRng) -> Vec<u32> {
    use rand::RngCore;
    let mut probe = before.clone();
    let mut out = vec![];
    while &probe != after {
        out.push(probe.next_u32());
        assert!(out.len() <= 4, "more draws than any ACK makes");
    }
    out
}
