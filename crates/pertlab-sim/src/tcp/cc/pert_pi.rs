//! PERT/PI: PERT emulating the PI controller at the sender (Bhandarkar, Reddy,
//! Zhang, Loguinov, SIGCOMM 2007, Section 6).
//!
//! The signal, the per-ACK draw, the once-per-RTT guard and the 35 % response
//! are PERT/RED's ([`super::pert`]); only the map from queueing delay to
//! probability changes (Section 6: "the only change is to replace RED
//! emulation (4)-(5) with the PI controller (19)"). That map is the PI law on
//! the queueing delay `T_q = srtt_0.99 - P`, in seconds, run at `w` Hz:
//!
//! ```text
//! p(k) = a (T_q(k) - T_q*) - b (T_q(k-1) - T_q*) + p(k-1),   clamped to [0, 1]
//! ```
//!
//! **Erratum** (spec pert-sigcomm07 §5): the printed eq. (19) puts `beta` on the
//! current sample and `gamma` on the previous one, but eq. (18),
//! `C(z) = (gamma z - beta) / (z - 1)`, gives the larger coefficient `gamma` on
//! the current sample, as in Hollot's router PI. We follow (18): `a > b`.
//!
//! **Parameters** (Section 6.1, STATED): "the parameters used in router PI
//! multiplied by the link capacity", target delay 3 ms. Router PI's `a`, `b`
//! act on a queue in packets; a queue of `q` packets at capacity `C` packets/s
//! is a delay of `q / C` s, so the same law on the delay has `a C`, `b C`. The
//! configuration takes router PI's `a`, `b` (ns-2 defaults) and `C`
//! (`capacity_pps`, which scenario builders set from the bottleneck); the
//! sampling frequency is router PI's 170 Hz (CHOICE: the paper does not state
//! the sender's sampling interval). The law is [`crate::queue::pi::PiLaw`],
//! shared with router PI; the instants `k / w` are caught up at each RTT sample
//! with the delay as it was since the previous one (exact: the signal only
//! changes on samples). The probability is kept in `f64` and converted to
//! units of 2^-32 for PERT's fixed-point draw; this variant has no kernel twin.
//!
//! **Wind-up.** The law is router PI's, incremental with `p` clamped to [0, 1],
//! so a long excursion above the target drives `p` to 1 and it comes back down
//! by at most `(a - b) C w T_q*` per second once the queue is empty: 3.8e-4/s
//! with the paper's parameters at 150 Mbit/s, over 2,600 s from 1 to 0. Without
//! early responses in slow start (`respond_in_slow_start = false`) slow start
//! at a long RTT overfills the queue and does exactly that: on Figure 14's path
//! at 1 s every flow then responds on every RTT at its least window for
//! thousands of seconds (tests/python/test_pert_pi.py). Each flow's integral
//! also starts when the flow does, so flows started at different times carry
//! different probabilities at the same delay (`sigcomm07-causes`, fig14-100ms).

use serde::{Deserialize, Serialize};

use super::base_rtt::BaseRtt;
use super::pert::{Emulation, Pert, Response, DEFAULT_DECREASE, DEFAULT_SRTT_WEIGHT};
use super::pert_signal::{scaled_to_ns, to_prob, DelaySignal};
use crate::error::{check, ConfigError};
use crate::queue::periodic::MAX_SAMPLING_HZ;
use crate::queue::pi::{PiLaw, DEFAULT_A, DEFAULT_B, DEFAULT_W_HZ};
use crate::time::{SimTime, NS_PER_MS, NS_PER_SEC};

/// Target queueing delay `T_q*` (Section 6.1): 3 ms.
pub const DEFAULT_TARGET_DELAY_NS: u64 = 3 * NS_PER_MS;

/// Largest `capacity_pps`: a link of the simulator carries at most 2^64 - 1
/// bit/s, i.e. this many 1-byte packets per second.
pub const MAX_CAPACITY_PPS: f64 = u64::MAX as f64 / 8.0;

/// PERT/PI parameters (Section 6). Times in nanoseconds.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PertPiConfig {
    /// Target queueing delay `T_q*` (Section 6.1). Default 3 ms.
    pub target_delay_ns: u64,
    /// Router PI's coefficient of the current queue error, per packet, in [0, 1]
    /// (ns-2 `a_`, 1.822e-5); the sender uses `a * capacity_pps` per second of delay.
    pub a: f64,
    /// Router PI's coefficient of the previous queue error, per packet, in [0, 1]
    /// (ns-2 `b_`, 1.816e-5); the sender uses `b * capacity_pps`.
    pub b: f64,
    /// Capacity `C` of the bottleneck, packets/s, that scales `a` and `b`
    /// (Section 6.1). Required, in (0, [`MAX_CAPACITY_PPS`]]; the Python
    /// builders set it from the bottleneck rate and packet size.
    pub capacity_pps: f64,
    /// Sampling frequency of the law, Hz, at most [`MAX_SAMPLING_HZ`] (router PI's `w_`, 170; CHOICE).
    pub w_hz: f64,
    /// Fraction of the window removed by an early response (Section 3). Default 0.35.
    pub decrease: f64,
    /// History weight of `srtt_0.99` (Section 6.1 uses PERT's signal). Default 0.99.
    pub srtt_weight: f64,
    /// Allow early responses in slow start, as PERT/RED. Default `true`;
    /// `false` lets slow start wind the integral up (module doc, "Wind-up").
    pub respond_in_slow_start: bool,
    /// `P` over a sliding window of this many nanoseconds instead of the
    /// smallest RTT sample, as PERT/RED's `min_rtt_window_ns`. Default none.
    pub min_rtt_window_ns: Option<u64>,
    /// Where `P` comes from: the smallest RTT sample (`observed`, the
    /// paper's) or the path's RTT given by the world (`propagation`, an
    /// oracle that tests what a measured `P` costs; [`BaseRtt`]). Default observed.
    pub base_rtt: BaseRtt,
}

impl Default for PertPiConfig {
    fn default() -> Self {
        PertPiConfig {
            target_delay_ns: DEFAULT_TARGET_DELAY_NS,
            a: DEFAULT_A,
            b: DEFAULT_B,
            capacity_pps: 0.0,
            w_hz: DEFAULT_W_HZ,
            decrease: DEFAULT_DECREASE,
            srtt_weight: DEFAULT_SRTT_WEIGHT,
            respond_in_slow_start: true,
            min_rtt_window_ns: None,
            base_rtt: BaseRtt::Observed,
        }
    }
}

impl PertPiConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        let field = |name: &str| format!("{path}.{name}");
        check::in_range(&field("a"), self.a, 0.0, 1.0)?;
        check::in_range(&field("b"), self.b, 0.0, 1.0)?;
        if !(self.capacity_pps.is_finite() && self.capacity_pps > 0.0 && self.capacity_pps <= MAX_CAPACITY_PPS) {
            return Err(ConfigError::new(
                field("capacity_pps"),
                format!(
                    "must lie in (0, {MAX_CAPACITY_PPS:e}]: the bottleneck capacity in packets/s that scales a and b (SIGCOMM 2007 Section 6.1), got {}",
                    self.capacity_pps
                ),
            ));
        }
        check::in_range(&field("w_hz"), self.w_hz, f64::MIN_POSITIVE, MAX_SAMPLING_HZ)?;
        check::open_unit(&field("decrease"), self.decrease)?;
        check::open_unit(&field("srtt_weight"), self.srtt_weight)?;
        DelaySignal::validate_p(path, self.min_rtt_window_ns, self.base_rtt)?;
        Ok(())
    }
}

/// The PI law on the queueing delay.
#[derive(Clone, Debug)]
pub struct PiEmulation {
    law: PiLaw,
}

impl Emulation for PiEmulation {
    const NAME: &'static str = "pert-pi";

    fn advance(&mut self, q: u64, now: SimTime) {
        self.law.advance(scaled_to_ns(q) as f64 / NS_PER_SEC as f64, now);
    }

    fn probability(&self, _q: u64, _min_rtt_us: u64) -> u64 {
        to_prob(self.law.probability())
    }
}

/// A PERT/PI sender.
pub fn pert_pi(cfg: &PertPiConfig) -> Pert<PiEmulation> {
    let target = cfg.target_delay_ns as f64 / NS_PER_SEC as f64;
    let law = PiLaw::new(cfg.a * cfg.capacity_pps, cfg.b * cfg.capacity_pps, target, cfg.w_hz);
    let response = Response {
        srtt_weight: cfg.srtt_weight,
        decrease: cfg.decrease,
        respond_in_slow_start: cfg.respond_in_slow_start,
        min_rtt_window_ns: cfg.min_rtt_window_ns,
    };
    Pert::emulating(PiEmulation { law }, response)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;
    use crate::tcp::cc::{AckSample, CcState, CongestionControl};
    use crate::time::NS_PER_MS;

    const MS: SimTime = NS_PER_MS;
    /// The period at 170 Hz: 5 882 353 ns.
    const T: SimTime = 5_882_353;

    fn rtt_sample(cc: &mut Pert<PiEmulation>, tp: &mut CcState, now: SimTime, rtt: SimTime) {
        tp.now = now;
        cc.pkts_acked(tp, &AckSample { pkts_acked: 1, rtt: Some(rtt) }, &mut from_seed(1));
    }

    #[test]
    fn the_law_acts_on_the_queueing_delay_scaled_by_the_capacity() {
        // a = 1e-3, b = 5e-4 per packet at C = 1000 pkt/s: 1 and 0.5 per second of delay.
        let cfg = PertPiConfig { a: 1e-3, b: 5e-4, capacity_pps: 1000.0, ..PertPiConfig::default() };
        let mut cc = pert_pi(&cfg);
        let mut tp = CcState::new(10, 1000, 1000);
        // First sample 100 ms: P = srtt = 100 ms, q = 0 from then on.
        rtt_sample(&mut cc, &mut tp, 0, 100 * MS);
        // A 1100 ms sample at 1.5 T: before it, q = 0 held over the instant T:
        // p = 1 (0 - 0.003) - 0.5 (0 - 0.003) = -0.0015 -> clamped 0.
        rtt_sample(&mut cc, &mut tp, T + T / 2, 1100 * MS);
        assert_eq!(cc.probability(), 0.0);
        // srtt = 0.99 * 100 + 0.01 * 1100 = 110 ms: q = 10 ms held over instant 2T:
        // p = 1 (0.010 - 0.003) - 0.5 (0 - 0.003) + 0 = 0.007 + 0.0015 = 0.0085.
        assert_eq!(cc.qdelay_ns(), 10 * MS);
        rtt_sample(&mut cc, &mut tp, 2 * T + T / 2, 110 * MS);
        assert!((cc.probability() - 0.0085).abs() < 1e-9, "{}", cc.probability());
        // q still 10 ms at instant 3T: + 1 (0.007) - 0.5 (0.007) = + 0.0035 -> 0.012.
        rtt_sample(&mut cc, &mut tp, 3 * T + T / 2, 110 * MS);
        assert!((cc.probability() - 0.012).abs() < 1e-9, "{}", cc.probability());
    }

    #[test]
    fn probability_falls_back_to_zero_below_the_target() {
        let cfg = PertPiConfig { a: 1e-3, b: 5e-4, capacity_pps: 1000.0, ..PertPiConfig::default() };
        let mut cc = pert_pi(&cfg);
        let mut tp = CcState::new(10, 1000, 1000);
        rtt_sample(&mut cc, &mut tp, 0, 100 * MS);
        rtt_sample(&mut cc, &mut tp, T / 2, 1100 * MS);
        rtt_sample(&mut cc, &mut tp, 50 * T, 100 * MS);
        assert!(cc.probability() > 0.1);
        // srtt decays back towards P; long below the target the integrator empties.
        for k in 0..2000 {
            rtt_sample(&mut cc, &mut tp, (51 + k) * T, 100 * MS);
        }
        assert!(cc.qdelay_ns() < 3 * MS);
        assert_eq!(cc.probability(), 0.0);
        assert_eq!(cc.name(), "pert-pi");
    }

    #[test]
    fn validation_names_the_field() {
        let d = || PertPiConfig { capacity_pps: 12_500.0, ..PertPiConfig::default() };
        let err = |c: PertPiConfig| c.validate("flows[0].cc").unwrap_err();
        assert!(d().validate("cc").is_ok());
        let e = err(PertPiConfig::default());
        assert_eq!(e.field, "flows[0].cc.capacity_pps");
        assert!(e.to_string().contains("packets/s"), "{e}");
        assert_eq!(err(PertPiConfig { a: -1.0, ..d() }).field, "flows[0].cc.a");
        assert_eq!(err(PertPiConfig { w_hz: 0.0, ..d() }).field, "flows[0].cc.w_hz");
        assert_eq!(err(PertPiConfig { decrease: 1.5, ..d() }).field, "flows[0].cc.decrease");
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = PertPiConfig::default();
        assert_eq!((c.target_delay_ns, c.a, c.b, c.w_hz, c.decrease, c.srtt_weight), (3 * MS, 1.822e-5, 1.816e-5, 170.0, 0.35, 0.99));
    }
}
