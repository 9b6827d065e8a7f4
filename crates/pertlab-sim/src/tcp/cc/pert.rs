//! PERT/RED: Probabilistic Early Response TCP emulating gentle RED at the
//! sender (Bhandarkar, Reddy, Zhang, Loguinov, "Emulating AQM from End Hosts",
//! SIGCOMM 2007, Section 3).
//!
//! What is modelled (all STATED in Section 3 unless marked CHOICE):
//! - Signal: `srtt_0.99`, an EWMA of per-ACK RTT samples with weight 0.99 on
//!   history, initialised to the first sample (CHOICE, as the theses recommend),
//!   updated in `pkts_acked` on every ACK that carries a sample, in any state.
//! - Propagation delay `P`: the minimum RTT sample ever seen.
//! - Response curve, gentle RED: probability 0 below `T_min`, linear to `p_max`
//!   at `T_max`, linear from `p_max` to 1 at `2 T_max`, 1 beyond. The paper
//!   writes `T_min = P + 5 ms`, `T_max = P + 10 ms`; read on the queueing delay
//!   `q = srtt - P` these are 5 and 10 ms, and "2 T_max" is ambiguous: 20 ms of
//!   queueing (the theses' reading, the default here, spec CHOICE) or
//!   `2 (P + 10 ms)` of srtt as printed ([`PertThresholds::Literal`]).
//! - One Bernoulli draw per ACK with that probability, at most one early
//!   response per RTT (see "Once per RTT" below).
//! - Early response: `cwnd <- (1 - 0.35) cwnd`, from eq. (1) with the queue
//!   kept below half of a BDP-sized buffer. CHOICE: `ssthresh <- cwnd` as well,
//!   so growth resumes in congestion avoidance (a window cut ends slow start,
//!   as a RED/ECN mark does for a standard sender), and `snd_cwnd_cnt` restarts
//!   as after any Linux window reduction.
//! - Loss: standard TCP; `ssthresh` is Reno's `max(cwnd / 2, 2)` and the sender
//!   runs its fast retransmit / recovery (the paper's base transport is SACK).
//! - Growth: Reno's (`reno_cong_avoid`), which the paper does not change.
//!
//! Where the draw happens (CHOICE): in `cong_avoid`, so only in Open and
//! Disorder state (the sender is already reducing in Recovery, Loss and CWR),
//! and before growth; an ACK that triggers a response does not also grow the
//! window. The paper does not exclude slow start, so early responses happen
//! there too by default; [`PertConfig::respond_in_slow_start`] turns that off
//! (the third-party ns-3 port responds only above ssthresh).
//!
//! Once per RTT (STATED; mechanism CHOICE): after a response at
//! `snd_nxt = X`, no further response until `snd_una > X`. Segment `X` is the
//! first one sent after the reduction, and its ACK comes back about one RTT
//! after the response; every ACK before it acknowledges data sent at the old
//! rate and reports a queue the response could not yet have changed. The test
//! is in sequence space (the idiom of Linux Vegas' `beg_snd_nxt` and CWR's
//! `high_seq`), so it needs neither an RTT estimate nor a timer.
//!
//! Random draws, for reproducible test vectors: on an ACK passed to
//! `cong_avoid` that is eligible to respond (the once-per-RTT guard is open
//! and, if in slow start, `respond_in_slow_start` holds), exactly one
//! `rng.next_u32()` is drawn if the probability is above zero, and the flow
//! responds iff `draw < p` with `p` in units of 2^-32 (so `p = 2^32`, i.e. 1,
//! always responds). Nothing is drawn when `p = 0` or the ACK is not eligible.
//!
//! Arithmetic is integer fixed point, as a kernel (eBPF) implementation does it,
//! so that both can be checked against the same ACK traces:
//! - RTT samples are truncated to whole microseconds (`rtt_us` in Linux) and
//!   capped at `i32::MAX` us (Linux's `s32 rtt_us`).
//! - `srtt` is kept in microseconds scaled by 2^10 ([`SRTT_SHIFT`]) and updated as
//!   `srtt = (srtt * w + (rtt_us << 10) * (10^6 - w)) / 10^6`, truncated, with the
//!   weight `w` in millionths (0.99 -> 990 000, exact: 99/100). Kotla's kernel
//!   PERT also used six decimal digits. All terms stay below 2^62.
//!   Precision: a truncation of under one unit (2^-10 us) per update; against a
//!   constant sample srtt settles within 99 units (0.1 us) below it.
//! - `q = srtt - (P_us << 10)`; thresholds are converted the same way
//!   (nanoseconds truncated to microseconds, then shifted).
//! - Probabilities are in units of 2^-32 ([`PROB_ONE`] = 1): `p_max` is
//!   `round(p_max * 2^32)` (0.05 -> 214 748 365), and each linear piece is
//!   `p_lo + (p_hi - p_lo) * (q - t_lo) / (t_hi - t_lo)`, the exact product
//!   truncated once (computed in 128 bits here).
//! - The early response keeps `cwnd * (10^6 - d) / 10^6` segments, truncated, with
//!   `d` the decrease in millionths (0.35 -> 350 000), at least 2 (Linux's floor).
//!
//! What is emulated is behind [`Emulation`]: gentle RED ([`GentleRed`], this
//! file) or PI ([`super::pert_pi`], Section 6); the signal, the draw, the
//! once-per-RTT guard and the response are the same for both.
//!
//! Left out: the adaptive variants of the theses (Kotla's alpha/beta modes),
//! one-way delay signals (Section 7).

use super::base_rtt::BaseRtt;
use super::pert_signal::{draw, from_prob, gentle_red, ns_to_scaled, scaled_to_ns, to_ppm, to_prob, DelaySignal, OncePerRtt};
pub use super::pert_signal::{PPM, PROB_ONE};
use super::reno::{reno_cong_avoid, reno_ssthresh};
use super::{AckSample, CcCounters, CcState, CongestionControl};
use crate::error::{check, ConfigError};
use crate::rng::SimRng;
use crate::scenario::CcSpec;
use crate::time::{SimTime, NS_PER_MS, NS_PER_US};
use serde::{Deserialize, Serialize};

pub use super::pert_signal::SRTT_SHIFT;

/// `T_min - P` (Section 3): no early response below 5 ms of queueing delay.
pub const DEFAULT_T_MIN_NS: u64 = 5 * NS_PER_MS;
/// `T_max - P` (Section 3): the probability reaches `p_max` at 10 ms.
pub const DEFAULT_T_MAX_NS: u64 = 10 * NS_PER_MS;
/// `p_max` (Section 3): response probability at `T_max`.
pub const DEFAULT_P_MAX: f64 = 0.05;
/// Early-response multiplicative decrease, 35 % (Section 3, from eq. (1)).
pub const DEFAULT_DECREASE: f64 = 0.35;
/// History weight of `srtt_0.99` (Sections 2.4 and 3).
pub const DEFAULT_SRTT_WEIGHT: f64 = 0.99;

/// How the paper's thresholds `T_min = P + 5 ms`, `T_max = P + 10 ms` and the
/// end of the gentle region, "2 T_max", are read (spec pert-sigcomm07 §2, CHOICE).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PertThresholds {
    /// On the queueing delay `q = srtt - P`: `t_min`, `t_max`, and `2 t_max`
    /// (5, 10, 20 ms), as the theses state them. Default.
    #[default]
    QueueingDelay,
    /// As printed, on `srtt`: `P + t_min`, `P + t_max`, and `2 (P + t_max)`; the
    /// gentle region then ends at a queueing delay of `P + 2 t_max`.
    Literal,
}

/// PERT/RED parameters (Section 3). Times in nanoseconds.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PertConfig {
    /// Queueing delay where the response probability starts to rise
    /// (`T_min - P`, Section 3). Default 5 ms.
    pub t_min_ns: u64,
    /// Queueing delay where the probability reaches `p_max` (`T_max - P`,
    /// Section 3). Default 10 ms.
    pub t_max_ns: u64,
    /// Response probability at `t_max` (`p_max`, Section 3). Default 0.05.
    pub p_max: f64,
    /// Queueing delay where the probability reaches 1, in either form. Unset
    /// (default): the paper's `2 T_max` (Section 3, Figure 5) in the form
    /// `thresholds` selects (20 ms of queueing by default).
    pub t_curve_end_ns: Option<u64>,
    /// Fraction of the window removed by an early response (Section 3, from
    /// eq. (1)). Default 0.35.
    pub decrease: f64,
    /// History weight of the smoothed RTT (`srtt_0.99`, Sections 2.4 and 3),
    /// used to a millionth. Default 0.99.
    pub srtt_weight: f64,
    /// Reading of the paper's thresholds (spec CHOICE). Default: on the
    /// queueing delay.
    pub thresholds: PertThresholds,
    /// Allow early responses in slow start (the paper does not exclude them).
    /// Default `true`.
    pub respond_in_slow_start: bool,
    /// `P`, the propagation-delay estimate, over a sliding window of this many
    /// nanoseconds ([`super::windowed_min`], Linux's `tcp_min_rtt`) instead of
    /// the smallest sample of the connection, which the paper uses (Section
    /// 2). An extension. Default none.
    pub min_rtt_window_ns: Option<u64>,
    /// Where `P` comes from: the smallest RTT sample (`observed`, the
    /// paper's) or the path's RTT given by the world (`propagation`, an
    /// oracle that tests what a measured `P` costs; [`BaseRtt`]). Default observed.
    pub base_rtt: BaseRtt,
}

impl Default for PertConfig {
    fn default() -> Self {
        PertConfig {
            t_min_ns: DEFAULT_T_MIN_NS,
            t_max_ns: DEFAULT_T_MAX_NS,
            p_max: DEFAULT_P_MAX,
            t_curve_end_ns: None,
            decrease: DEFAULT_DECREASE,
            srtt_weight: DEFAULT_SRTT_WEIGHT,
            thresholds: PertThresholds::QueueingDelay,
            respond_in_slow_start: true,
            min_rtt_window_ns: None,
            base_rtt: BaseRtt::Observed,
        }
    }
}

impl PertConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        if self.t_min_ns >= self.t_max_ns {
            return Err(ConfigError::new(format!("{path}.t_min_ns"), format!("must be less than t_max_ns ({}), got {}", self.t_max_ns, self.t_min_ns)));
        }
        if let Some(end) = self.t_curve_end_ns {
            if end <= self.t_max_ns {
                return Err(ConfigError::new(format!("{path}.t_curve_end_ns"), format!("must be greater than t_max_ns ({}), got {end}", self.t_max_ns)));
            }
        }
        if !(self.p_max.is_finite() && self.p_max > 0.0 && self.p_max <= 1.0) {
            return Err(ConfigError::new(format!("{path}.p_max"), format!("must lie in (0, 1], got {}", self.p_max)));
        }
        check::open_unit(&format!("{path}.decrease"), self.decrease)?;
        check::open_unit(&format!("{path}.srtt_weight"), self.srtt_weight)?;
        DelaySignal::validate_p(path, self.min_rtt_window_ns, self.base_rtt)?;
        Ok(())
    }
}

/// What PERT emulates: the map from the queueing-delay signal to the
/// probability of an early response.
pub trait Emulation: Clone + std::fmt::Debug + Send {
    /// Controller name in scenarios and results.
    const NAME: &'static str;
    /// The signal is about to change at `now`; it held the queueing delay `q`
    /// (us << SRTT_SHIFT) since the previous call. For emulations whose state
    /// runs on a clock (PI's sampling instants); gentle RED has none.
    fn advance(&mut self, _q: u64, _now: SimTime) {}
    /// Response probability in units of 2^-32 at queueing delay `q`, with the
    /// propagation-delay estimate `P` (microseconds).
    fn probability(&self, q: u64, min_rtt_us: u64) -> u64;
    /// New parameters mid-run ([`CongestionControl::set_params`]): the curve
    /// takes those of `spec` when it is this emulation's kind, and the
    /// response's are returned for the sender side; `None` otherwise.
    fn set_params(&mut self, _spec: &CcSpec) -> Option<Response> {
        None
    }
}

/// The gentle-RED response curve of PERT/RED (Section 3, Figure 5).
#[derive(Clone, Debug)]
pub struct GentleRed {
    /// `p_max` in units of 2^-32.
    p_max: u64,
    /// `t_min`, `t_max` as queueing delays, microseconds << SRTT_SHIFT.
    t_min: u64,
    t_max: u64,
    /// Explicit end of the gentle region, same units.
    t_end: Option<u64>,
    thresholds: PertThresholds,
}

impl GentleRed {
    fn new(cfg: &PertConfig) -> GentleRed {
        GentleRed {
            p_max: to_prob(cfg.p_max),
            t_min: ns_to_scaled(cfg.t_min_ns),
            t_max: ns_to_scaled(cfg.t_max_ns),
            t_end: cfg.t_curve_end_ns.map(ns_to_scaled),
            thresholds: cfg.thresholds,
        }
    }

    /// End of the gentle region as a queueing delay (fixed point).
    fn curve_end(&self, min_rtt_us: u64) -> u64 {
        let two_t_max = self.t_max.saturating_mul(2);
        match (self.t_end, self.thresholds) {
            (Some(end), _) => end,
            (None, PertThresholds::QueueingDelay) => two_t_max,
            // 2 (P + t_max) - P
            (None, PertThresholds::Literal) => two_t_max.saturating_add(min_rtt_us << SRTT_SHIFT),
        }
    }
}

impl Emulation for GentleRed {
    const NAME: &'static str = "pert";

    fn probability(&self, q: u64, min_rtt_us: u64) -> u64 {
        gentle_red(q, self.t_min, self.t_max, self.curve_end(min_rtt_us), self.p_max)
    }

    /// The curve has no state: it is built anew from the new thresholds and `p_max`.
    fn set_params(&mut self, spec: &CcSpec) -> Option<Response> {
        let CcSpec::Pert(cfg) = spec else { return None };
        *self = GentleRed::new(cfg);
        Some(Response::of(cfg))
    }
}

/// The sender side shared by every emulation: the `srtt_0.99` signal, the
/// draw, the once-per-RTT guard and the multiplicative decrease.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Response {
    /// History weight of the smoothed RTT (`srtt_0.99`), used to a millionth.
    pub srtt_weight: f64,
    /// Fraction of the window removed by an early response.
    pub decrease: f64,
    /// Allow early responses in slow start.
    pub respond_in_slow_start: bool,
    /// `P` over a sliding window of this many nanoseconds, if set.
    pub min_rtt_window_ns: Option<u64>,
}

/// PERT sender state, generic over what it emulates (gentle RED by default).
#[derive(Clone, Debug)]
pub struct Pert<E: Emulation = GentleRed> {
    /// `srtt_0.99` and the propagation-delay estimate `P`.
    signal: DelaySignal,
    /// At most one early response per RTT.
    guard: OncePerRtt,
    /// Early responses so far.
    early_responses: u64,
    /// Share of the window an early response keeps, millionths.
    keep_ppm: u64,
    respond_in_slow_start: bool,
    emulation: E,
}

impl Response {
    /// PERT/RED's response parameters.
    fn of(cfg: &PertConfig) -> Response {
        Response {
            srtt_weight: cfg.srtt_weight,
            decrease: cfg.decrease,
            respond_in_slow_start: cfg.respond_in_slow_start,
            min_rtt_window_ns: cfg.min_rtt_window_ns,
        }
    }
}

impl Pert<GentleRed> {
    /// PERT/RED (Section 3).
    pub fn new(cfg: PertConfig) -> Pert<GentleRed> {
        Pert::emulating(GentleRed::new(&cfg), Response::of(&cfg))
    }
}

impl<E: Emulation> Pert<E> {
    /// PERT emulating `emulation`.
    pub fn emulating(emulation: E, response: Response) -> Pert<E> {
        Pert {
            signal: DelaySignal::new(response.srtt_weight).with_min_rtt_window(response.min_rtt_window_ns),
            guard: OncePerRtt::default(),
            early_responses: 0,
            keep_ppm: PPM - to_ppm(response.decrease),
            respond_in_slow_start: response.respond_in_slow_start,
            emulation,
        }
    }

    /// `P` is `path_rtt` for the run where given ([`DelaySignal::with_path_rtt`]).
    pub fn with_path_rtt(mut self, path_rtt: Option<SimTime>) -> Pert<E> {
        self.signal = self.signal.with_path_rtt(path_rtt);
        self
    }

    /// What is emulated, with its state.
    pub fn emulation(&self) -> &E {
        &self.emulation
    }

    /// Smoothed RTT (`srtt_0.99`), if a sample has been seen.
    pub fn srtt_ns(&self) -> Option<SimTime> {
        self.signal.srtt.map(scaled_to_ns)
    }

    /// Smoothed RTT in the fixed point kept internally (us << SRTT_SHIFT).
    pub fn srtt_fixed(&self) -> Option<u64> {
        self.signal.srtt
    }

    /// Minimum RTT seen: the propagation-delay estimate `P`.
    pub fn min_rtt_ns(&self) -> Option<SimTime> {
        self.signal.min_rtt_us.map(|us| us * NS_PER_US)
    }

    /// Estimated queueing delay `srtt - P`; zero before the first sample.
    pub fn qdelay_ns(&self) -> SimTime {
        scaled_to_ns(self.signal.qdelay())
    }

    /// Current response probability, in units of 2^-32 ([`PROB_ONE`] = 1).
    pub fn probability_fixed(&self) -> u64 {
        self.emulation.probability(self.signal.qdelay(), self.signal.min_rtt_us.unwrap_or(0))
    }

    /// Current response probability.
    pub fn probability(&self) -> f64 {
        from_prob(self.probability_fixed())
    }
}

impl<E: Emulation> CongestionControl for Pert<E> {
    fn name(&self) -> &'static str {
        E::NAME
    }

    /// Loss: standard TCP (Section 3), Reno's `max(cwnd / 2, 2)`.
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, rng: &mut SimRng) {
        if self.guard.may_respond(tp, self.respond_in_slow_start) && draw(self.probability_fixed(), rng) {
            self.guard.respond(tp, self.keep_ppm);
            self.early_responses += 1;
        } else {
            reno_cong_avoid(tp, acked);
        }
    }

    fn pkts_acked(&mut self, tp: &mut CcState, sample: &AckSample, _rng: &mut SimRng) {
        if let Some(rtt) = sample.rtt {
            self.emulation.advance(self.signal.qdelay(), tp.now);
            self.signal.update(rtt, tp.now);
        }
    }

    fn counters(&self, _now: SimTime) -> CcCounters {
        CcCounters { early_responses: self.early_responses, ..CcCounters::default() }
    }

    fn queueing_delay(&self) -> Option<SimTime> {
        Some(self.qdelay_ns())
    }

    fn response_probability(&self) -> Option<f64> {
        Some(self.probability())
    }

    /// The thresholds and `p_max` apply from the next ACK's probability, the
    /// decrease from the next early response; the signal, `P` and the
    /// once-per-RTT guard go on.
    fn set_params(&mut self, spec: &CcSpec) {
        if let Some(response) = self.emulation.set_params(spec) {
            self.keep_ppm = PPM - to_ppm(response.decrease);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;
    use rand::RngCore;

    const MS: SimTime = NS_PER_MS;
    const US: SimTime = NS_PER_US;

    fn pert() -> Pert {
        Pert::new(PertConfig::default())
    }

    /// A flow with propagation delay `p_ms` and srtt set so that `q = q_us`.
    fn with_qdelay(cfg: PertConfig, p_ms: u64, q_us: u64) -> Pert {
        let mut cc = Pert::new(cfg);
        cc.signal.update(p_ms * MS, 0);
        cc.signal.srtt = Some((p_ms * 1000 + q_us) << SRTT_SHIFT);
        cc
    }

    fn sample(rtt: Option<SimTime>) -> AckSample {
        AckSample { pkts_acked: 1, rtt }
    }

    /// One ACK as the sender delivers it: pkts_acked, then cong_avoid, then
    /// the window is filled.
    fn ack(cc: &mut Pert, tp: &mut CcState, rng: &mut SimRng, rtt: Option<SimTime>) {
        tp.snd_una += 1;
        cc.pkts_acked(tp, &sample(rtt), rng);
        cc.cong_avoid(tp, 1, rng);
        tp.snd_nxt = tp.snd_nxt.max(tp.snd_una + tp.snd_cwnd);
    }

    fn ca_state(cwnd: u32) -> CcState {
        let mut tp = CcState::new(cwnd, 10_000, 1500);
        tp.snd_ssthresh = cwnd / 2;
        tp.snd_nxt = cwnd;
        tp
    }

    const P_MAX_FIXED: u64 = 214_748_365; // round(0.05 * 2^32)

    #[test]
    fn response_curve_at_the_paper_thresholds() {
        // (q in us, probability in 2^-32 units, as a fraction)
        let cases = [
            (4_000, 0, 0.0),
            (5_000, 0, 0.0),
            (7_500, P_MAX_FIXED / 2, 0.025),
            (10_000, P_MAX_FIXED, 0.05),
            (15_000, P_MAX_FIXED + (PROB_ONE - P_MAX_FIXED) / 2, 0.525),
            (20_000, PROB_ONE, 1.0),
            (25_000, PROB_ONE, 1.0),
        ];
        for (q_us, fixed, p) in cases {
            let cc = with_qdelay(PertConfig::default(), 60, q_us);
            assert_eq!(cc.qdelay_ns(), q_us * US);
            assert_eq!(cc.probability_fixed(), fixed, "q = {q_us} us");
            assert!((cc.probability() - p).abs() < 1e-9, "q = {q_us} us");
        }
        assert_eq!(P_MAX_FIXED / 2, 107_374_182);
        assert_eq!(P_MAX_FIXED + (PROB_ONE - P_MAX_FIXED) / 2, 2_254_857_830);
    }

    #[test]
    fn literal_thresholds_stretch_the_gentle_region_to_2_t_max_of_srtt() {
        // P = 60 ms: T_max = 70 ms, 2 T_max = 140 ms of srtt = 80 ms of queueing.
        let literal = PertConfig { thresholds: PertThresholds::Literal, ..PertConfig::default() };
        let cases = [
            (5_000, 0),
            (7_500, P_MAX_FIXED / 2),
            (10_000, P_MAX_FIXED),
            // 0.05 + 0.95 * 5 / 70 = 0.117857...
            (15_000, P_MAX_FIXED + (PROB_ONE - P_MAX_FIXED) * 5 / 70),
            (45_000, P_MAX_FIXED + (PROB_ONE - P_MAX_FIXED) / 2),
            (79_999, P_MAX_FIXED + (PROB_ONE - P_MAX_FIXED) * 69_999 / 70_000),
            (80_000, PROB_ONE),
        ];
        for (q_us, fixed) in cases {
            let cc = with_qdelay(literal.clone(), 60, q_us);
            assert_eq!(cc.probability_fixed(), fixed, "q = {q_us} us");
        }
        let cc = with_qdelay(literal, 60, 15_000);
        assert!((cc.probability() - 0.117_857_142_857).abs() < 1e-9);
        // With P = 0 the two readings agree.
        let cc = with_qdelay(PertConfig { thresholds: PertThresholds::Literal, ..PertConfig::default() }, 0, 15_000);
        assert_eq!(cc.probability_fixed(), 2_254_857_830);
    }

    #[test]
    fn explicit_curve_end_replaces_2_t_max() {
        let cfg = PertConfig { t_curve_end_ns: Some(30 * MS), ..PertConfig::default() };
        let cc = with_qdelay(cfg, 60, 20_000);
        assert_eq!(cc.probability_fixed(), P_MAX_FIXED + (PROB_ONE - P_MAX_FIXED) / 2);
    }

    #[test]
    fn srtt_is_an_ewma_with_weight_99_in_fixed_point() {
        let mut cc = pert();
        assert_eq!(cc.srtt_ns(), None);
        cc.signal.update(100 * MS, 0);
        assert_eq!(cc.srtt_fixed(), Some(102_400_000)); // 100 000 us << 10
                                                        // 0.99 * 100 + 0.01 * 200 = 101; then 101.99; then 102.9701 ms.
        cc.signal.update(200 * MS, 0);
        assert_eq!(cc.srtt_fixed(), Some(103_424_000));
        assert_eq!(cc.srtt_ns(), Some(101 * MS));
        cc.signal.update(200 * MS, 0);
        assert_eq!(cc.srtt_fixed(), Some(104_437_760));
        assert_eq!(cc.srtt_ns(), Some(101_990 * US));
        cc.signal.update(200 * MS, 0);
        // (104 437 760 * 0.99 + 204 800 000 * 0.01) = 105 441 382.4, truncated.
        assert_eq!(cc.srtt_fixed(), Some(105_441_382));
        assert_eq!(cc.srtt_ns(), Some(102_970_099));
        assert_eq!(cc.qdelay_ns(), 2_970_099);
    }

    #[test]
    fn srtt_settles_within_a_tenth_of_a_microsecond_of_a_constant_sample() {
        let mut cc = pert();
        cc.signal.update(50 * MS, 0);
        for _ in 0..5_000 {
            cc.signal.update(60 * MS, 0);
        }
        let srtt = cc.srtt_fixed().unwrap();
        let target = 60_000 << SRTT_SHIFT;
        assert!(srtt <= target && target - srtt < 100, "{srtt} vs {target}");
    }

    #[test]
    fn min_rtt_is_the_smallest_sample_in_whole_microseconds() {
        let mut cc = pert();
        let mut tp = ca_state(10);
        let mut rng = from_seed(3);
        assert_eq!(cc.min_rtt_ns(), None);
        assert_eq!(cc.qdelay_ns(), 0);
        for rtt in [100 * MS, 80 * MS + 999, 120 * MS, 90 * MS] {
            cc.pkts_acked(&mut tp, &sample(Some(rtt)), &mut rng);
        }
        cc.pkts_acked(&mut tp, &sample(None), &mut rng);
        assert_eq!(cc.min_rtt_ns(), Some(80 * MS));
    }

    #[test]
    fn a_given_path_rtt_is_p_before_any_sample_and_no_sample_moves_it() {
        let mut cc = pert().with_path_rtt(Some(60 * MS + 999));
        let mut tp = ca_state(10);
        let mut rng = from_seed(3);
        assert_eq!(cc.min_rtt_ns(), Some(60 * MS));
        assert_eq!(cc.qdelay_ns(), 0);
        // The first sample sets srtt; one below the path's RTT (clock jitter,
        // a shorter route) does not lower P, one above it does not raise it.
        for rtt in [75 * MS, 50 * MS, 90 * MS] {
            cc.pkts_acked(&mut tp, &sample(Some(rtt)), &mut rng);
            assert_eq!(cc.min_rtt_ns(), Some(60 * MS));
        }
        assert_eq!(cc.qdelay_ns(), cc.srtt_ns().unwrap() - 60 * MS);
        assert_eq!(pert().with_path_rtt(None).min_rtt_ns(), None);
    }

    #[test]
    fn a_given_p_has_no_window() {
        let cfg = PertConfig { base_rtt: BaseRtt::Propagation, min_rtt_window_ns: Some(1000 * MS), ..PertConfig::default() };
        let e = cfg.validate("flows[0].cc").unwrap_err();
        assert_eq!(e.field, "flows[0].cc.base_rtt");
        assert!(e.message.contains("unset min_rtt_window_ns"), "{}", e.message);
        assert!(PertConfig { base_rtt: BaseRtt::Propagation, ..PertConfig::default() }.validate("x").is_ok());
    }

    #[test]
    fn early_response_cuts_to_65_percent_once_per_window() {
        // q = 25 ms: probability 1, every draw says "respond".
        let mut cc = with_qdelay(PertConfig::default(), 100, 25_000);
        let mut tp = ca_state(100);
        let mut rng = from_seed(7);
        ack(&mut cc, &mut tp, &mut rng, None);
        assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (65, 65));
        assert_eq!(cc.guard.after, Some(100));
        // ACKs 2..=100 acknowledge data sent before the cut: no response, and
        // Reno growth at w = 65 (one segment after 65 ACKs).
        for _ in 2..=100 {
            ack(&mut cc, &mut tp, &mut rng, None);
        }
        assert_eq!(cc.counters(0).early_responses, 1);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (66, 34));
        // snd_una = 101 > 100: the next window may respond again: 66 * 0.65 = 42.9.
        ack(&mut cc, &mut tp, &mut rng, None);
        assert_eq!((tp.snd_cwnd, tp.snd_ssthresh, tp.snd_cwnd_cnt), (42, 42, 0));
        assert_eq!(cc.counters(0).early_responses, 2);
    }

    #[test]
    fn no_response_and_no_draw_below_t_min() {
        let mut cc = pert();
        let mut tp = ca_state(100);
        let mut rng = from_seed(11);
        let untouched = rng.clone();
        ack(&mut cc, &mut tp, &mut rng, Some(100 * MS));
        for _ in 0..1_000 {
            ack(&mut cc, &mut tp, &mut rng, Some(104 * MS + 999 * US));
        }
        assert!(cc.qdelay_ns() < 5 * MS);
        assert_eq!(cc.probability_fixed(), 0);
        assert_eq!(cc.counters(0).early_responses, 0);
        assert_eq!(rng, untouched);
        assert!(tp.snd_cwnd > 100);
    }

    #[test]
    fn exactly_one_draw_per_eligible_ack_when_p_is_positive() {
        // q = 7.5 ms: p = 0.025.
        let mut cc = with_qdelay(PertConfig::default(), 100, 7_500);
        let mut tp = ca_state(100);
        let mut rng = from_seed(5);
        let mut expect = rng.clone();
        let draw = u64::from(expect.next_u32());
        ack(&mut cc, &mut tp, &mut rng, None);
        assert_eq!(rng, expect);
        assert_eq!(cc.counters(0).early_responses, u64::from(draw < P_MAX_FIXED / 2));
    }

    #[test]
    fn responses_follow_the_probability() {
        // q = 15 ms, p = 0.525; reopen the guard before every ACK.
        let mut cc = with_qdelay(PertConfig::default(), 100, 15_000);
        let mut rng = from_seed(99);
        let n = 20_000;
        for _ in 0..n {
            let mut tp = ca_state(100);
            cc.guard = OncePerRtt::default();
            cc.cong_avoid(&mut tp, 1, &mut rng);
        }
        let share = cc.counters(0).early_responses as f64 / n as f64;
        assert!((share - 0.525).abs() < 0.015, "{share}");
    }

    #[test]
    fn slow_start_responses_follow_the_flag() {
        for (flag, cwnd) in [(true, 6), (false, 11)] {
            let cfg = PertConfig { respond_in_slow_start: flag, ..PertConfig::default() };
            let mut cc = with_qdelay(cfg, 100, 25_000);
            let mut tp = CcState::new(10, 10_000, 1500);
            tp.snd_nxt = 10;
            let mut rng = from_seed(1);
            let untouched = rng.clone();
            ack(&mut cc, &mut tp, &mut rng, None);
            // 10 * 0.65 = 6.5 -> 6, and slow start is over; or slow start goes on.
            assert_eq!(tp.snd_cwnd, cwnd);
            assert_eq!(tp.in_slow_start(), !flag);
            assert_eq!(rng == untouched, !flag);
        }
    }

    #[test]
    fn small_windows_keep_two_segments() {
        let mut cc = with_qdelay(PertConfig::default(), 100, 25_000);
        let mut tp = ca_state(3);
        let mut rng = from_seed(1);
        ack(&mut cc, &mut tp, &mut rng, None);
        assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (2, 2));
    }

    #[test]
    fn loss_threshold_is_renos() {
        let mut cc = pert();
        let tp = ca_state(100);
        assert_eq!(cc.ssthresh(&tp), 50);
        assert_eq!(cc.ssthresh(&ca_state(3)), 2);
    }

    #[test]
    fn zero_and_huge_rtts_do_not_panic() {
        let mut cc = pert();
        cc.signal.update(0, 0);
        cc.signal.update(u64::MAX, 0);
        cc.signal.update(u64::MAX, 0);
        assert_eq!(cc.min_rtt_ns(), Some(0));
        assert_eq!(cc.probability_fixed(), PROB_ONE);
        let mut tp = ca_state(100);
        cc.cong_avoid(&mut tp, 1, &mut from_seed(1));
        assert_eq!(tp.snd_cwnd, 65);
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = PertConfig::default();
        assert_eq!((c.t_min_ns, c.t_max_ns, c.t_curve_end_ns), (5 * MS, 10 * MS, None));
        assert_eq!((c.p_max, c.decrease, c.srtt_weight), (0.05, 0.35, 0.99));
        assert_eq!(c.thresholds, PertThresholds::QueueingDelay);
        assert!(c.validate("cc").is_ok());
        let cc = Pert::new(c);
        assert_eq!((cc.signal.weight_ppm, cc.keep_ppm, cc.emulation.p_max), (990_000, 650_000, P_MAX_FIXED));
        assert_eq!((cc.emulation.t_min, cc.emulation.t_max, cc.emulation.curve_end(0)), (5_120_000, 10_240_000, 20_480_000));
    }

    #[test]
    fn config_reads_from_json_and_rejects_unknown_fields() {
        let c: PertConfig = serde_json::from_str(r#"{"p_max": 0.1, "thresholds": "literal"}"#).unwrap();
        assert_eq!(c.p_max, 0.1);
        assert_eq!(c.thresholds, PertThresholds::Literal);
        assert_eq!(c.t_min_ns, DEFAULT_T_MIN_NS);
        assert!(serde_json::from_str::<PertConfig>(r#"{"pmax": 0.1}"#).is_err());
    }

    #[test]
    fn validation_names_the_field_and_the_allowed_range() {
        let d = PertConfig::default();
        let bad = [
            (PertConfig { t_min_ns: 10 * MS, ..d.clone() }, "t_min_ns", "less than t_max_ns"),
            (PertConfig { t_min_ns: 12 * MS, ..d.clone() }, "t_min_ns", "less than t_max_ns"),
            (PertConfig { t_curve_end_ns: Some(10 * MS), ..d.clone() }, "t_curve_end_ns", "greater"),
            (PertConfig { p_max: 0.0, ..d.clone() }, "p_max", "(0, 1]"),
            (PertConfig { p_max: 1.5, ..d.clone() }, "p_max", "(0, 1]"),
            (PertConfig { p_max: f64::NAN, ..d.clone() }, "p_max", "(0, 1]"),
            (PertConfig { decrease: 0.0, ..d.clone() }, "decrease", "between 0 and 1"),
            (PertConfig { decrease: 1.0, ..d.clone() }, "decrease", "between 0 and 1"),
            (PertConfig { srtt_weight: 1.0, ..d.clone() }, "srtt_weight", "between 0 and 1"),
            (PertConfig { srtt_weight: -0.5, ..d.clone() }, "srtt_weight", "between 0 and 1"),
        ];
        for (cfg, field, allowed) in bad {
            let e = cfg.validate("flows[2].cc").unwrap_err();
            assert_eq!(e.field, format!("flows[2].cc.{field}"));
            assert!(e.message.contains(allowed), "{}", e.message);
        }
        assert!(PertConfig { p_max: 1.0, ..d }.validate("cc").is_ok());
    }
}
