//! The XCP router (Katabi, Handley, Rohrs, "Congestion Control for High
//! Bandwidth-Delay Product Networks", SIGCOMM 2002, Section 3.5): an
//! efficiency controller sets the aggregate change of the traffic once per
//! control interval, a fairness controller turns it into per-packet feedback
//! written into the congestion headers of data segments. The buffer below it
//! is a DropTail FIFO (the queue's limit).
//!
//! Per control interval `d` (the average RTT of the flows through the router):
//! - efficiency: `phi = alpha d S - beta Q` bytes, with `S` the spare
//!   bandwidth (capacity less the input traffic rate of the interval) and `Q`
//!   the persistent queue;
//! - fairness: shuffled traffic `h = max(0, gamma y - |phi|)` (`y` the input
//!   traffic of the interval, bytes); `xi_p = (h + max(phi, 0)) / (d sum(rtt_i
//!   s_i / cwnd_i))`, `xi_n = (h + max(-phi, 0)) / (d sum(s_i))`, sums over the
//!   XCP packets of the interval; each XCP data packet then gets `p_i - n_i`,
//!   `p_i = xi_p rtt_i^2 s_i / cwnd_i`, `n_i = xi_n rtt_i s_i`, and its
//!   `H_feedback` is lowered to that if it is larger (Section 3.5).
//! - `d = sum(rtt_i^2 s_i / cwnd_i) / sum(rtt_i s_i / cwnd_i)`: the flows'
//!   average RTT, each flow weighted once (ns-2's `xcpq` computes it so).
//!
//! Choices: the router works on arrival (feedback, counts); an interval ends
//! at the first arrival at or after its end, and the quantities of the next
//! use its measured length (no engine timer; at 100 Mbit/s an arrival comes
//! every 0.12 ms). `Q` is the least queue, in bytes, an arrival found during
//! the interval (the paper: during the last propagation delay, i.e. `d` less
//! the local queueing delay). `y` counts every arrival (ACKs, other
//! protocols); the sums count only XCP data packets with an RTT estimate. A
//! packet without a header (another protocol) passes uncontrolled, as the
//! paper's routers leave non-XCP traffic (its Section 7 separate queues for
//! TCP are not modelled).
//!
//! Left out: ns-2's residue tracking of feedback given out beyond the
//! interval's allocation, the header's bytes on the wire, and the paper's
//! handling of mixed XCP/TCP traffic (Section 7).

use super::{QueueDiscipline, QueueView, Verdict};
use crate::error::{check, ConfigError};
use crate::packet::{Packet, PacketKind};
use crate::rng::SimRng;
use crate::time::{SimTime, NS_PER_MS, NS_PER_SEC};
use serde::{Deserialize, Serialize};

/// `alpha`, the weight of the spare bandwidth in the aggregate feedback
/// (Section 3.5, `phi = alpha d S - beta Q`; Section 4's stability theorem
/// needs 0 < alpha < pi / (4 sqrt 2)): 0.4.
pub const DEFAULT_ALPHA: f64 = 0.4;
/// `beta`, the weight of the persistent queue (Section 3.5; the theorem's
/// `beta = alpha^2 sqrt 2`): 0.226.
pub const DEFAULT_BETA: f64 = 0.226;
/// `gamma`, the fraction of the input traffic shuffled each interval
/// (Section 3.5, `h = max(0, gamma y - |phi|)`): 10 %.
pub const DEFAULT_GAMMA: f64 = 0.1;
/// The control interval before any packet has told its RTT: 100 ms (our
/// choice; the paper is silent).
pub const DEFAULT_INITIAL_INTERVAL_NS: SimTime = 100 * NS_PER_MS;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct XcpQueueConfig {
    /// Efficiency controller's `alpha` (Section 3.5), in (0, 1]. Default 0.4.
    pub alpha: f64,
    /// Efficiency controller's `beta` (Section 3.5), in (0, 1]. Default 0.226.
    pub beta: f64,
    /// Fairness controller's shuffled fraction `gamma` (Section 3.5), in [0, 1]. Default 0.1.
    pub gamma: f64,
    /// First control interval, ns, until an RTT is known; positive. Default 100 ms.
    pub initial_interval_ns: SimTime,
}

impl Default for XcpQueueConfig {
    fn default() -> Self {
        XcpQueueConfig { alpha: DEFAULT_ALPHA, beta: DEFAULT_BETA, gamma: DEFAULT_GAMMA, initial_interval_ns: DEFAULT_INITIAL_INTERVAL_NS }
    }
}

impl XcpQueueConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v.is_finite() && v > 0.0 && v <= 1.0) {
                return Err(ConfigError::new(format!("{path}.{name}"), format!("must lie in (0, 1], got {v}")));
            }
        }
        check::in_range(&format!("{path}.gamma"), self.gamma, 0.0, 1.0)?;
        check::positive(&format!("{path}.initial_interval_ns"), self.initial_interval_ns as f64)
    }
}

/// Counts of the control interval under way.
#[derive(Clone, Copy, Debug, Default)]
struct IntervalSums {
    /// `y`: bytes that arrived.
    input_bytes: f64,
    /// `sum(s_i)` over XCP packets with an RTT.
    xcp_bytes: f64,
    /// `sum(rtt_i s_i / cwnd_i)`.
    rtt_s_by_cwnd: f64,
    /// `sum(rtt_i^2 s_i / cwnd_i)`.
    rtt2_s_by_cwnd: f64,
    /// The least queue, bytes, an arrival found.
    min_queue_bytes: Option<u64>,
}

pub struct XcpRouter {
    alpha: f64,
    beta: f64,
    gamma: f64,
    /// Start and length `d` of the current control interval.
    start: SimTime,
    interval: SimTime,
    sums: IntervalSums,
    /// Per-packet factors of the current interval, from the last one.
    xi_p: f64,
    xi_n: f64,
    /// The aggregate feedback `phi` of the last interval, bytes.
    phi: f64,
}

impl XcpRouter {
    pub fn new(cfg: &XcpQueueConfig) -> XcpRouter {
        XcpRouter {
            alpha: cfg.alpha,
            beta: cfg.beta,
            gamma: cfg.gamma,
            start: 0,
            interval: cfg.initial_interval_ns.max(1),
            sums: IntervalSums::default(),
            xi_p: 0.0,
            xi_n: 0.0,
            phi: 0.0,
        }
    }

    /// The control interval `d` in force, ns.
    pub fn interval(&self) -> SimTime {
        self.interval
    }

    /// The last interval's aggregate feedback `phi`, bytes.
    pub fn phi(&self) -> f64 {
        self.phi
    }

    /// End the interval at `now`: the efficiency and fairness controllers'
    /// factors for the next one, and its length.
    fn end_interval(&mut self, view: &QueueView, now: SimTime) {
        let sums = std::mem::take(&mut self.sums);
        let d = (now - self.start) as f64 / NS_PER_SEC as f64;
        let capacity = view.link_rate_bps as f64 / 8.0;
        let spare = capacity - sums.input_bytes / d;
        let q = sums.min_queue_bytes.unwrap_or(view.len_bytes) as f64;
        self.phi = self.alpha * d * spare - self.beta * q;
        let shuffled = (self.gamma * sums.input_bytes - self.phi.abs()).max(0.0);
        self.xi_p = if sums.rtt_s_by_cwnd > 0.0 { (shuffled + self.phi.max(0.0)) / (d * sums.rtt_s_by_cwnd) } else { 0.0 };
        self.xi_n = if sums.xcp_bytes > 0.0 { (shuffled + (-self.phi).max(0.0)) / (d * sums.xcp_bytes) } else { 0.0 };
        if sums.rtt_s_by_cwnd > 0.0 {
            let avg_rtt_ns = sums.rtt2_s_by_cwnd / sums.rtt_s_by_cwnd * NS_PER_SEC as f64;
            // At least 1 ns, at most ~292 years: in range.
            self.interval = avg_rtt_ns.clamp(1.0, u64::MAX as f64 / 2.0) as SimTime;
        }
        self.start = now;
    }
}

impl QueueDiscipline for XcpRouter {
    fn name(&self) -> &'static str {
        "xcp"
    }

    /// The control interval `d` in force (s) and the last interval's aggregate feedback `phi` (bytes).
    fn variables(&self) -> Vec<(&'static str, Option<f64>)> {
        vec![("interval_s", Some(self.interval as f64 / NS_PER_SEC as f64)), ("phi_bytes", Some(self.phi))]
    }

    fn on_arrival(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime, _rng: &mut SimRng) -> Verdict {
        if now >= self.start.saturating_add(self.interval) {
            self.end_interval(view, now);
        }
        let s = f64::from(pkt.size);
        self.sums.input_bytes += s;
        self.sums.min_queue_bytes = Some(self.sums.min_queue_bytes.map_or(view.len_bytes, |m| m.min(view.len_bytes)));
        if pkt.kind != PacketKind::Data {
            return Verdict::Pass;
        }
        let Some(h) = pkt.xcp.as_mut() else {
            return Verdict::Pass;
        };
        let (rtt, cwnd) = (f64::from(h.rtt), f64::from(h.cwnd));
        if rtt > 0.0 && cwnd > 0.0 {
            self.sums.xcp_bytes += s;
            self.sums.rtt_s_by_cwnd += rtt * s / cwnd;
            self.sums.rtt2_s_by_cwnd += rtt * rtt * s / cwnd;
        }
        // A packet without an RTT estimate gets p_i = n_i = 0.
        let feedback = if rtt > 0.0 && cwnd > 0.0 { self.xi_p * rtt * rtt * s / cwnd - self.xi_n * rtt * s } else { 0.0 };
        if feedback < f64::from(h.feedback) {
            h.feedback = feedback as f32;
        }
        Verdict::Pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::XcpHeader;
    use crate::queue::QueueLimit;
    use crate::rng::from_seed;

    fn data(cwnd: f32, rtt: f32, feedback: f32) -> Packet {
        let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1000);
        p.xcp = Some(XcpHeader { cwnd, rtt, feedback });
        p
    }

    fn view(len_bytes: u64) -> QueueView {
        // 8 Mbit/s: 1e6 bytes/s.
        QueueView { len_pkts: (len_bytes / 1000) as u32, len_bytes, limit: QueueLimit::Packets(100), link_rate_bps: 8_000_000 }
    }

    #[test]
    fn one_interval_by_hand() {
        let mut r = XcpRouter::new(&XcpQueueConfig { initial_interval_ns: 100 * NS_PER_MS, ..XcpQueueConfig::default() });
        let mut rng = from_seed(1);
        // First interval (0.1 s): 20 packets of 1000 bytes from a flow with
        // rtt 0.1 s and cwnd 10000 bytes, queue 2000 bytes at the least.
        // No factors yet: the request is lowered to 0.
        for i in 0..20u64 {
            let mut p = data(10_000.0, 0.1, 5000.0);
            assert_eq!(r.on_arrival(&view(2000 + 1000 * (i % 3)), &mut p, i * 5 * NS_PER_MS, &mut rng), Verdict::Pass);
            assert_eq!(p.xcp.unwrap().feedback, 0.0);
        }
        // At 0.1 s: y = 20000, S = 1e6 - 2e5 = 8e5 bytes/s,
        // phi = 0.4 x 0.1 x 8e5 - 0.226 x 2000 = 32000 - 452 = 31548,
        // h = max(0, 2000 - 31548) = 0; sum(rtt s / cwnd) = 20 x 0.01 = 0.2,
        // xi_p = 31548 / (0.1 x 0.2) = 1577400; xi_n = 0.
        // p_i = xi_p rtt^2 s / cwnd = 1577400 x 0.01 x 0.1 = 1577.4.
        let mut p = data(10_000.0, 0.1, 5000.0);
        r.on_arrival(&view(2000), &mut p, 100 * NS_PER_MS, &mut rng);
        assert!((r.phi() - 31_548.0).abs() < 1e-6, "{}", r.phi());
        assert!((f64::from(p.xcp.unwrap().feedback) - 1577.4).abs() < 1e-2, "{:?}", p.xcp);
        // d = sum(rtt^2 s / cwnd) / sum(rtt s / cwnd) = 0.1 s.
        assert!(r.interval().abs_diff(100 * NS_PER_MS) < 10, "{}", r.interval());
        // A smaller request stays; an ACK's echo and a headerless packet are left alone.
        let mut p = data(10_000.0, 0.1, 100.0);
        r.on_arrival(&view(2000), &mut p, 101 * NS_PER_MS, &mut rng);
        assert_eq!(p.xcp.unwrap().feedback, 100.0);
        let mut ack = Packet::new(PacketKind::Ack, 0, 1, 0, 40);
        ack.xcp = Some(XcpHeader { feedback: 7.0, ..XcpHeader::default() });
        r.on_arrival(&view(2000), &mut ack, 102 * NS_PER_MS, &mut rng);
        assert_eq!(ack.xcp.unwrap().feedback, 7.0);
    }

    #[test]
    fn overload_gives_negative_feedback_in_proportion_to_rtt_and_size() {
        let mut r = XcpRouter::new(&XcpQueueConfig::default());
        let mut rng = from_seed(1);
        // 0.1 s of 200 packets (2e6 bytes/s into a 1e6 bytes/s link), queue >= 50000 bytes.
        for i in 0..200u64 {
            let mut p = data(20_000.0, 0.1, 5000.0);
            r.on_arrival(&view(50_000), &mut p, i * NS_PER_MS / 2, &mut rng);
        }
        let mut p = data(20_000.0, 0.1, 5000.0);
        r.on_arrival(&view(50_000), &mut p, 100 * NS_PER_MS, &mut rng);
        // phi = 0.4 x 0.1 x (1e6 - 2e6) - 0.226 x 50000 = -40000 - 11300 = -51300;
        // h = max(0, 0.1 x 2e5 - 51300) = 0; xi_n = 51300 / (0.1 x 2e5) = 2.565;
        // sum(rtt s / cwnd) = 200 x 0.005 = 1, xi_p = 0; n_i = 2.565 x 0.1 x 1000 = 256.5.
        assert!((r.phi() + 51_300.0).abs() < 1e-6, "{}", r.phi());
        assert!((f64::from(p.xcp.unwrap().feedback) + 256.5).abs() < 1e-3, "{:?}", p.xcp);
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        let bad = |c: XcpQueueConfig| c.validate("links[0].queue.xcp").unwrap_err().field;
        assert_eq!(bad(XcpQueueConfig { alpha: 0.0, ..Default::default() }), "links[0].queue.xcp.alpha");
        assert_eq!(bad(XcpQueueConfig { beta: f64::NAN, ..Default::default() }), "links[0].queue.xcp.beta");
        assert_eq!(bad(XcpQueueConfig { gamma: 1.5, ..Default::default() }), "links[0].queue.xcp.gamma");
        assert_eq!(bad(XcpQueueConfig { initial_interval_ns: 0, ..Default::default() }), "links[0].queue.xcp.initial_interval_ns");
        assert!(XcpQueueConfig::default().validate("q").is_ok());
    }
}
