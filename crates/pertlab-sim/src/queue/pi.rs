//! The PI controller AQM (Hollot, Misra, Towsley, Gong, "On Designing Improved
//! Controllers for AQM Routers Supporting TCP Flows", INFOCOM 2001), with the
//! semantics of ns-2's `queue/pi.cc` (`Queue/PI`).
//!
//! At each sampling instant `k / w` the drop probability is updated from the
//! instantaneous queue `q` (packets) and the queue at the previous instant:
//!
//! ```text
//! p = a (q - qref) - b (q_old - qref) + p_old,   clamped to [0, 1]
//! ```
//!
//! and every arriving packet is dropped (or, with `use_ecn`, an ECN-capable one
//! marked CE) with probability `p`. The defaults are ns-2's `Queue/PI`
//! defaults, the controller Hollot et al. design in §V for N = 60 flows,
//! C = 3750 packets/s and R+ = 0.246 s: `a = 1.822e-5`, `b = 1.816e-5`,
//! `w = 170` Hz, `qref = 50` packets.
//!
//! **Timing.** ns-2 runs `calculate_p` on a timer every `1/w` s, first at
//! `1/w`. We catch the missed instants up at the next packet event
//! ([`super::periodic`]), each with the queue as it was then, which is exact;
//! the instant's period is `1/w` rounded to the nanosecond (5 882 353 ns at
//! 170 Hz, 0.06 ns long, i.e. 0.3 µs per minute).
//!
//! **Left out:** ns-2's byte mode (`queue_in_bytes_`, `bytes_`; we measure in
//! packets, ns-2's default) and ns-2's choice of drop victim (the arriving
//! packet is always the one dropped or marked, ns-2's default). The buffer
//! limit is the `OutputQueue`'s; ns-2 checks it before drawing, we after (the
//! draw is then wasted, not the decision changed).

use serde::{Deserialize, Serialize};

use super::periodic::{catch_up, Periodic, MAX_SAMPLING_HZ};
use super::{draw, signal, QueueDiscipline, QueueView, Verdict};
use crate::error::{check, ConfigError};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::time::{SimTime, NS_PER_SEC};

/// Weight of the current queue error (ns-2 `a_`; Hollot et al. 2001 §V).
pub const DEFAULT_A: f64 = 1.822e-5;
/// Weight of the previous queue error (ns-2 `b_`; Hollot et al. 2001 §V).
pub const DEFAULT_B: f64 = 1.816e-5;
/// Sampling frequency, Hz (ns-2 `w_`; Hollot et al. 2001 §V).
pub const DEFAULT_W_HZ: f64 = 170.0;
/// Queue reference, packets (ns-2 `qref_`; Hollot et al. 2001 §V).
pub const DEFAULT_QREF_PKTS: f64 = 50.0;

/// PI parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PiConfig {
    /// Coefficient of `q - qref`, in [0, 1] (ns-2 `a_`, 1.822e-5): 1 already moves
    /// the probability across [0, 1] on one packet of error.
    pub a: f64,
    /// Coefficient of `q_old - qref`, in [0, 1] (ns-2 `b_`, 1.816e-5); `a > b` for a stable integrator.
    pub b: f64,
    /// Sampling frequency in Hz, > 0 and at most [`MAX_SAMPLING_HZ`] (ns-2 `w_`, 170).
    pub w_hz: f64,
    /// Target queue in packets, >= 0 (ns-2 `qref_`, 50).
    pub qref: f64,
    /// Mark ECN-capable packets instead of dropping them (ns-2 `setbit_`, default false).
    pub use_ecn: bool,
}

impl Default for PiConfig {
    fn default() -> Self {
        PiConfig { a: DEFAULT_A, b: DEFAULT_B, w_hz: DEFAULT_W_HZ, qref: DEFAULT_QREF_PKTS, use_ecn: false }
    }
}

impl PiConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        let field = |name: &str| format!("{path}.{name}");
        check::in_range(&field("a"), self.a, 0.0, 1.0)?;
        check::in_range(&field("b"), self.b, 0.0, 1.0)?;
        check::in_range(&field("w_hz"), self.w_hz, f64::MIN_POSITIVE, MAX_SAMPLING_HZ)?;
        check::non_negative(&field("qref"), self.qref)?;
        Ok(())
    }
}

/// The controller's state between sampling instants.
#[derive(Clone, Copy, Debug, PartialEq)]
struct State {
    /// Probability (ns-2 `v_prob`).
    p: f64,
    /// Input at the previous instant (ns-2 `qold`).
    x_old: f64,
}

/// The PI difference equation `p = a (x - x_ref) - b (x_old - x_ref) + p_old`,
/// clamped to [0, 1], run at the instants `k / w`. One law serves router PI
/// (input: the queue in packets) and PERT/PI (input: the queueing delay in
/// seconds, [`crate::tcp::cc::pert_pi`]). The input must be constant between
/// calls to [`PiLaw::advance`], which is true of both.
#[derive(Clone, Debug)]
pub struct PiLaw {
    a: f64,
    b: f64,
    x_ref: f64,
    ticks: Periodic,
    state: State,
}

impl PiLaw {
    /// `w_hz` > 0; the period is `1/w` rounded to the nanosecond.
    pub fn new(a: f64, b: f64, x_ref: f64, w_hz: f64) -> PiLaw {
        let period = (NS_PER_SEC as f64 / w_hz).round() as SimTime;
        PiLaw { a, b, x_ref, ticks: Periodic::new(period), state: State { p: 0.0, x_old: 0.0 } }
    }

    /// Run the sampling instants up to `now`, the input having been `x` since the last call.
    pub fn advance(&mut self, x: f64, now: SimTime) {
        let (a, b, x_ref) = (self.a, self.b, self.x_ref);
        let n = self.ticks.due(now);
        catch_up(&mut self.state, n, |s| {
            s.p = (a * (x - x_ref) - b * (s.x_old - x_ref) + s.p).clamp(0.0, 1.0);
            s.x_old = x;
        });
    }

    /// The probability after the last instant run.
    pub fn probability(&self) -> f64 {
        self.state.p
    }
}

/// The PI queue discipline.
pub struct Pi {
    cfg: PiConfig,
    law: PiLaw,
}

impl Pi {
    pub fn new(cfg: PiConfig) -> Pi {
        let law = PiLaw::new(cfg.a, cfg.b, cfg.qref, cfg.w_hz);
        Pi { cfg, law }
    }
}

impl QueueDiscipline for Pi {
    fn name(&self) -> &'static str {
        "pi"
    }

    fn on_arrival(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict {
        self.law.advance(view.len_pkts as f64, now);
        if draw(rng, self.law.probability()) {
            signal(pkt, self.cfg.use_ecn)
        } else {
            Verdict::Pass
        }
    }

    fn on_departure(&mut self, view: &QueueView, _pkt: &mut Packet, now: SimTime) -> Verdict {
        // `view` is after the removal: the queue held one packet more until now.
        self.law.advance((view.len_pkts + 1) as f64, now);
        Verdict::Pass
    }

    fn probability(&self) -> f64 {
        self.law.probability()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, PacketKind};
    use crate::queue::QueueLimit;
    use crate::rng::from_seed;

    fn view(len_pkts: u32) -> QueueView {
        QueueView { len_pkts, len_bytes: len_pkts as u64 * 1000, limit: QueueLimit::Packets(1000), link_rate_bps: 10_000_000 }
    }

    fn pkt(ecn: Ecn) -> Packet {
        let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1000);
        p.ecn = ecn;
        p
    }

    /// The period at 170 Hz: 1e9 / 170 = 5 882 352.94 -> 5 882 353 ns.
    const T: SimTime = 5_882_353;

    #[test]
    fn the_probability_follows_the_difference_equation_on_a_fixed_trace() {
        // Round numbers: a = 0.002, b = 0.001, qref = 50.
        let cfg = PiConfig { a: 0.002, b: 0.001, ..PiConfig::default() };
        let mut pi = Pi::new(cfg);
        let mut rng = from_seed(1);
        // The queue holds 100 packets from an arrival at 0 to one at 1.5 T:
        // instant T: p = 0.002 (100 - 50) - 0.001 (0 - 50) + 0 = 0.1 + 0.05 = 0.15.
        pi.on_arrival(&view(0), &mut pkt(Ecn::NotEct), 0, &mut rng);
        pi.on_arrival(&view(100), &mut pkt(Ecn::NotEct), T + T / 2, &mut rng);
        assert!((pi.probability() - 0.15).abs() < 1e-15);
        // 100 packets until 3.5 T: instants 2T and 3T, each + 0.002*50 - 0.001*50 = + 0.05:
        // 0.20, 0.25.
        pi.on_arrival(&view(100), &mut pkt(Ecn::NotEct), 3 * T + T / 2, &mut rng);
        assert!((pi.probability() - 0.25).abs() < 1e-15);
        // A departure at 4.5 T leaves 29, so the queue held 30 since 3.5 T:
        // instant 4T: 0.002 (30 - 50) - 0.001 (100 - 50) + 0.25 = -0.04 - 0.05 + 0.25 = 0.16.
        pi.on_departure(&view(29), &mut pkt(Ecn::NotEct), 4 * T + T / 2);
        assert!((pi.probability() - 0.16).abs() < 1e-15);
        // 29 packets for instants 5T .. 10T: first 0.002 (-21) - 0.001 (-20) = -0.022 -> 0.138,
        // then -0.021 each: 0.117, 0.096, 0.075, 0.054, 0.033.
        pi.on_arrival(&view(29), &mut pkt(Ecn::NotEct), 10 * T, &mut rng);
        assert!((pi.probability() - 0.033).abs() < 1e-12, "{}", pi.probability());
        // Long idle at 29: clamped at 0 after two more instants, and stays there.
        pi.on_arrival(&view(29), &mut pkt(Ecn::NotEct), 1_000 * NS_PER_SEC, &mut rng);
        assert_eq!(pi.probability(), 0.0);
    }

    #[test]
    fn ns2_defaults_integrate_slowly_towards_qref() {
        let mut pi = Pi::new(PiConfig::default());
        let mut rng = from_seed(1);
        pi.on_arrival(&view(0), &mut pkt(Ecn::NotEct), 0, &mut rng);
        // 150 packets over instants T and 2T: 1.822e-5 * 100 + 1.816e-5 * 50 = 0.002730;
        // then (1.822e-5 - 1.816e-5) * 100 = 6e-6 more: 0.002736.
        pi.on_arrival(&view(150), &mut pkt(Ecn::NotEct), 2 * T, &mut rng);
        assert!((pi.probability() - 0.002_736).abs() < 1e-12, "{}", pi.probability());
    }

    #[test]
    fn drops_or_marks_with_the_probability() {
        let mut pi = Pi::new(PiConfig { a: 1.0, b: 0.0, use_ecn: true, ..PiConfig::default() });
        let mut rng = from_seed(3);
        // q = 51 at instant T: p = 1 * (51 - 50) = 1: every arrival is signalled.
        pi.on_arrival(&view(51), &mut pkt(Ecn::NotEct), 0, &mut rng);
        assert_eq!(pi.on_arrival(&view(51), &mut pkt(Ecn::NotEct), T, &mut rng), Verdict::Drop(super::super::DropKind::Early));
        let mut p = pkt(Ecn::Ect);
        assert_eq!(pi.on_arrival(&view(51), &mut p, T, &mut rng), Verdict::Pass);
        assert_eq!(p.ecn, Ecn::Ce);
    }

    #[test]
    fn validation_names_the_field() {
        let err = |c: PiConfig| c.validate("q.pi").unwrap_err().field;
        let d = PiConfig::default;
        assert!(d().validate("q.pi").is_ok());
        assert_eq!(err(PiConfig { a: -1.0, ..d() }), "q.pi.a");
        assert_eq!(err(PiConfig { b: f64::NAN, ..d() }), "q.pi.b");
        assert_eq!(err(PiConfig { w_hz: 0.0, ..d() }), "q.pi.w_hz");
        assert_eq!(err(PiConfig { w_hz: 1001.0, ..d() }), "q.pi.w_hz");
        assert!(PiConfig { w_hz: 1000.0, ..d() }.validate("q.pi").is_ok());
        assert_eq!(err(PiConfig { a: 1.5, ..d() }), "q.pi.a");
        assert_eq!(err(PiConfig { qref: -5.0, ..d() }), "q.pi.qref");
        assert!(serde_json::from_str::<PiConfig>(r#"{"qref": 20, "w": 160}"#).is_err());
        let c: PiConfig = serde_json::from_str(r#"{"qref": 20, "use_ecn": true}"#).unwrap();
        assert_eq!(c, PiConfig { qref: 20.0, use_ecn: true, ..d() });
    }
}
