//! Adaptive PERT: PERT/RED made to compete with loss-based TCP and to fill
//! high-BDP links (Kotla, "Adapting a Delay-based Protocol to Heterogeneous
//! Environments", MS thesis, Texas A&M 2008, Chapters III and IV; spec
//! pert-theses-kotla-qian Part A.2 to A.4 and Part C).
//!
//! What is modelled (STATED in the thesis unless marked CHOICE):
//! - The signal of PERT/RED ([`super::pert_signal`]): `srtt_0.99`, `P` = the
//!   smallest RTT sample, `q = srtt - P`; gentle-RED response curve with
//!   `T1 = 5 ms`, `T2 = 10 ms`, `p_max = 0.05`, one Bernoulli draw per ACK, at
//!   most one early response per RTT.
//! - `q_max`, the maximum observed queueing delay, initialised to `T2` = 10 ms
//!   (Ch. IV); grown from raw samples `rtt - P` by default (spec C5 CHOICE;
//!   `q_max_source = "srtt"` grows it from `q` instead).
//! - The curve's third threshold (probability 1) is `0.65 q_max` instead of
//!   `2 T2`; CHOICE (spec C2): floored at `2 T2`, so at start-up (`q_max` =
//!   10 ms gives 6.5 ms) the curve is the original one (`t3_floor`).
//! - Decrease `beta = q / (q + q_max)` (Ch. III.A.2): 0.5 when `q = q_max`,
//!   on an early response and, by default, on a loss too (Ch. VI.I; spec C6
//!   CHOICE, `loss_beta = "half"` for Reno's fixed 0.5). An early response sets
//!   `cwnd = ssthresh = (1 - beta) cwnd`; a loss sets ssthresh so and the
//!   sender runs its recovery. Floors of two segments, as Linux.
//! - Increase `cwnd += alpha / cwnd` per ACKed segment in congestion avoidance
//!   (Ch. III.A.1), with a fractional credit so that any real `alpha` is exact.
//!   Slow start is standard (spec A.2.5).
//! - Three modes, decided every `alpha_period_rtts` = 5 RTTs (Ch. III.B) from
//!   where `q` was: high speed (`q < T1`), compete (`q > 0.5 q_max`), safe
//!   (between). CHOICE: the period's mode is the region in which most ACKed
//!   segments of the period saw `q` ("persistently", Ch. III.B); the RTT is
//!   `srtt_0.99` at the period's start.
//! - alpha steps per period (spec C8 CHOICE, the third-party port's values; the
//!   thesis gives no rate): high speed `alpha + 0.5` up to `alpha_max` = 32;
//!   safe `0.9 alpha` down to 1; compete `min(alpha + 0.1, target)`, target
//!   `min(alpha_max, 1 + p'/p)`
//!   (Ch. III.A.1, `alpha_max` when no loss has been seen). The target is
//!   "smoothly varied" between regions (Fig. 2, shape not given): the spec's
//!   reconstruction (Appendix X, the third-party port), a hyperbola rising
//!   from 1 at `0.5 q_max` to `1 + p'/p` at `0.65 q_max`, with its pole at
//!   `0.49 q_max` (`ramp_pole_frac`): 89 % of the way up at `0.55 q_max`.
//! - `p` and `p'`: the TFRC-style estimator over the last 8 intervals between
//!   losses (resp. early responses), weights 1,1,1,1,.8,.6,.4,.2, with ageing
//!   (Ch. IV; [`LossIntervals`]). Intervals count ACKed segments (spec C12
//!   CHOICE). A loss event is one entry into Recovery, Loss (RTO) or CWR (ECN),
//!   i.e. one call of `ssthresh`.
//! - Early responses only in congestion avoidance (spec A.2.5, implied by the
//!   thesis; `respond_in_slow_start` turns them on in slow start too, as
//!   PERT/RED does here). In a 50-50 mix with SACK, responding in slow start
//!   after timeouts keeps PERT windows at a few segments (docs/model.md).
//!
//! Arithmetic: the signal and the draw are PERT/RED's fixed point; alpha, beta,
//! `p`, `p'` are `f64` in the simulator ([`Float`]), or millionths as in the
//! eBPF twin `bpf/pert_adaptive_algo.h` ([`Fixed`]; Kotla's kernel code used
//! six decimals), the controller being written once over [`Arith`].
//!
//! `P` is the smallest RTT sample of the connection (spec C4); a sliding
//! window (`min_rtt_window_ns`, Linux's `tcp_min_rtt` estimator) is an
//! extension, off by default.
//!
//! Left out: Kotla's suggestion of an `alpha_max` that depends on drop rate
//! and delay.

use serde::{Deserialize, Serialize};

use super::base_rtt::BaseRtt;
use super::pert::{DEFAULT_P_MAX, DEFAULT_SRTT_WEIGHT, DEFAULT_T_MAX_NS, DEFAULT_T_MIN_NS};
use super::pert_signal::{draw, from_prob, gentle_red, ns_to_scaled, scale_window, scaled_to_ns, to_prob, DelaySignal, OncePerRtt, PPM};
use super::{AckSample, CcCounters, CcState, CcTelemetry, CongestionControl, Mode};
use crate::error::{check, ConfigError};
use crate::rng::SimRng;
use crate::time::SimTime;

mod arith;
pub mod fixed;
mod intervals;

pub use arith::{Arith, Float};
pub use fixed::Fixed;
pub use intervals::{IntervalWeights, LossIntervals};

/// Cap on alpha (Ch. III.B: "we chose alpha_max to equal 32").
pub const DEFAULT_ALPHA_MAX: f64 = 32.0;
/// Compete mode above this fraction of `q_max` (Ch. III.B: "half the maximum
/// observed queue length"; Qian 2011 writes 0.65, spec C1).
pub const DEFAULT_COMPETE_FRAC: f64 = 0.5;
/// Third threshold of the response curve as a fraction of `q_max` (Ch. III.B).
pub const DEFAULT_T3_FRAC: f64 = 0.65;
/// The compete target's hyperbola has its pole this fraction of `q_max` below
/// `compete_frac q_max` (spec Appendix X: the third-party port's `0.49 q_max`).
pub const DEFAULT_RAMP_POLE_FRAC: f64 = 0.01;
/// alpha is adapted every this many RTTs (Ch. III.B: "we used 5 * RTT").
pub const DEFAULT_ALPHA_PERIOD_RTTS: f64 = 5.0;
/// Per-period alpha step in high-speed mode (spec C8 CHOICE).
pub const DEFAULT_HIGH_SPEED_STEP: f64 = 0.5;
/// Per-period alpha step in compete mode (spec C8 CHOICE, the third-party
/// port's value: the thesis says only that alpha "increments" toward its
/// target). With the phase lock of equal RTTs broken, 0.1 and 0.5 give PERT
/// about the same share in the thesis's 50-50 mix, 0.55 and 0.58 (docs/model.md).
pub const DEFAULT_COMPETE_STEP: f64 = 0.1;
/// Per-period alpha factor in safe mode (spec C8 CHOICE).
pub const DEFAULT_SAFE_DECAY: f64 = 0.9;
/// Weights of the loss-interval estimator, most recent first (Ch. IV, TFRC).
pub const DEFAULT_INTERVAL_WEIGHTS: [f64; 8] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

/// Where `q_max` comes from (spec C5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QmaxSource {
    /// `max(rtt_sample - P)`: the largest queueing delay any sample saw. Default.
    #[default]
    Sample,
    /// `max(srtt_0.99 - P)`: the largest smoothed queueing delay.
    Srtt,
}

/// Decrease on a loss (spec C6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossBeta {
    /// `q / (q + q_max)`, as the early response (Ch. VI.I). Default.
    #[default]
    Adaptive,
    /// Reno's 0.5.
    Half,
}

/// Adaptive PERT parameters (Kotla 2008). Times in nanoseconds.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PertAdaptiveConfig {
    /// `min_thresh` T1: the curve starts to rise, and high-speed mode is below
    /// it (Ch. II, III.B). Default 5 ms.
    pub t_min_ns: u64,
    /// `max_thresh` T2: the probability reaches `p_max` (Ch. II). Default 10 ms.
    pub t_max_ns: u64,
    /// Response probability at T2 (Ch. II). Default 0.05.
    pub p_max: f64,
    /// History weight of `srtt_0.99` (Ch. II; spec C3). Default 0.99.
    pub srtt_weight: f64,
    /// Cap of alpha, at least 1 (Ch. III.B). Default 32.
    pub alpha_max: f64,
    /// Compete mode above `compete_frac * q_max` (Ch. III.B). Default 0.5.
    pub compete_frac: f64,
    /// The curve reaches 1 at `t3_frac * q_max` (Ch. III.B). Default 0.65.
    pub t3_frac: f64,
    /// Floor the third threshold at `2 T2` (spec C2 CHOICE). Default true.
    pub t3_floor: bool,
    /// Pole of the compete target's ramp, as a fraction of `q_max` below
    /// `compete_frac q_max` (spec Appendix X). Default 0.01.
    pub ramp_pole_frac: f64,
    /// Initial `q_max` (Ch. IV: "maximum queuing delay threshold"). Default 10 ms.
    pub q_max_init_ns: u64,
    /// Where `q_max` comes from (spec C5). Default: raw samples.
    pub q_max_source: QmaxSource,
    /// Decrease on a loss (spec C6). Default adaptive.
    pub loss_beta: LossBeta,
    /// alpha is adapted every this many RTTs (Ch. III.B). Default 5.
    pub alpha_period_rtts: f64,
    /// alpha step per period in high-speed mode (spec C8). Default 0.5.
    pub high_speed_step: f64,
    /// alpha step per period in compete mode (spec C8, see the constant). Default 0.1.
    pub compete_step: f64,
    /// alpha factor per period in safe mode, in (0, 1] (spec C8). Default 0.9.
    pub safe_decay: f64,
    /// Weights of the loss-interval estimators, most recent first (Ch. IV).
    /// Default 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2 (sum 6).
    pub interval_weights: Vec<f64>,
    /// Allow early responses in slow start (spec A.2.5: only in congestion
    /// avoidance, implied by the thesis). Default false.
    pub respond_in_slow_start: bool,
    /// `P`, the propagation-delay estimate, over a sliding window of this many
    /// nanoseconds ([`super::windowed_min`], Linux's `tcp_min_rtt`) instead of
    /// the smallest sample of the connection. Neither thesis has one (spec C4:
    /// an extension, for route changes and for the question of
    /// `qian11-video-base-rtt`). Default none.
    pub min_rtt_window_ns: Option<u64>,
    /// Where `P` comes from: the smallest RTT sample (`observed`, the
    /// paper's) or the path's RTT given by the world (`propagation`, an
    /// oracle that tests what a measured `P` costs; [`BaseRtt`]). Default observed.
    pub base_rtt: BaseRtt,
}

impl Default for PertAdaptiveConfig {
    fn default() -> Self {
        PertAdaptiveConfig {
            t_min_ns: DEFAULT_T_MIN_NS,
            t_max_ns: DEFAULT_T_MAX_NS,
            p_max: DEFAULT_P_MAX,
            srtt_weight: DEFAULT_SRTT_WEIGHT,
            alpha_max: DEFAULT_ALPHA_MAX,
            compete_frac: DEFAULT_COMPETE_FRAC,
            t3_frac: DEFAULT_T3_FRAC,
            t3_floor: true,
            ramp_pole_frac: DEFAULT_RAMP_POLE_FRAC,
            q_max_init_ns: DEFAULT_T_MAX_NS,
            q_max_source: QmaxSource::Sample,
            loss_beta: LossBeta::Adaptive,
            alpha_period_rtts: DEFAULT_ALPHA_PERIOD_RTTS,
            high_speed_step: DEFAULT_HIGH_SPEED_STEP,
            compete_step: DEFAULT_COMPETE_STEP,
            safe_decay: DEFAULT_SAFE_DECAY,
            interval_weights: DEFAULT_INTERVAL_WEIGHTS.to_vec(),
            respond_in_slow_start: false,
            min_rtt_window_ns: None,
            base_rtt: BaseRtt::Observed,
        }
    }
}

impl PertAdaptiveConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        let field = |name: &str| format!("{path}.{name}");
        if self.t_min_ns >= self.t_max_ns {
            return Err(ConfigError::new(field("t_min_ns"), format!("must be less than t_max_ns ({}), got {}", self.t_max_ns, self.t_min_ns)));
        }
        if !(self.p_max.is_finite() && self.p_max > 0.0 && self.p_max <= 1.0) {
            return Err(ConfigError::new(field("p_max"), format!("must lie in (0, 1], got {}", self.p_max)));
        }
        check::open_unit(&field("srtt_weight"), self.srtt_weight)?;
        if !(self.alpha_max.is_finite() && self.alpha_max >= 1.0) {
            return Err(ConfigError::new(field("alpha_max"), format!("must be at least 1 (alpha starts at 1), got {}", self.alpha_max)));
        }
        for (name, v) in [("compete_frac", self.compete_frac), ("t3_frac", self.t3_frac)] {
            if !(v.is_finite() && v > 0.0 && v <= 1.0) {
                return Err(ConfigError::new(field(name), format!("must lie in (0, 1] (a fraction of q_max), got {v}")));
            }
        }
        if !(self.ramp_pole_frac.is_finite() && self.ramp_pole_frac > 0.0) {
            return Err(ConfigError::new(
                field("ramp_pole_frac"),
                format!("must be > 0 (the pole lies below compete_frac q_max), got {}", self.ramp_pole_frac),
            ));
        }
        if self.t3_frac < self.compete_frac {
            return Err(ConfigError::new(field("t3_frac"), format!("must be at least compete_frac ({}), got {}", self.compete_frac, self.t3_frac)));
        }
        DelaySignal::validate_p(path, self.min_rtt_window_ns, self.base_rtt)?;
        if self.q_max_init_ns == 0 {
            return Err(ConfigError::new(field("q_max_init_ns"), "must be positive (beta = q / (q + q_max) needs q_max > 0), got 0"));
        }
        if !(self.alpha_period_rtts.is_finite() && self.alpha_period_rtts > 0.0) {
            return Err(ConfigError::new(field("alpha_period_rtts"), format!("must be > 0, got {}", self.alpha_period_rtts)));
        }
        check::non_negative(&field("high_speed_step"), self.high_speed_step)?;
        check::non_negative(&field("compete_step"), self.compete_step)?;
        if !(self.safe_decay.is_finite() && self.safe_decay > 0.0 && self.safe_decay <= 1.0) {
            return Err(ConfigError::new(field("safe_decay"), format!("must lie in (0, 1], got {}", self.safe_decay)));
        }
        LossIntervals::<Vec<f64>>::check_weights(&field("interval_weights"), &self.interval_weights)
    }
}

/// Adaptive PERT sender state.
/// Adaptive PERT sender state, in the arithmetic `A` ([`Float`] in the
/// simulator, [`Fixed`] as the eBPF twin).
#[derive(Clone, Debug)]
pub struct PertAdaptive<A: Arith = Float> {
    cfg: PertAdaptiveConfig,
    arith: A,
    /// `srtt_0.99`, `P`, `q`.
    signal: DelaySignal,
    /// At most one early response per RTT.
    guard: OncePerRtt,
    /// T1, T2 in the signal's units (microseconds << SRTT_SHIFT).
    t_min: u64,
    t_max: u64,
    /// `p_max` in units of 2^-32.
    p_max: u64,
    /// Maximum observed queueing delay, signal's units.
    q_max: u64,
    /// Additive increase per RTT.
    alpha: A::Alpha,
    /// Fractional segments of additive increase not yet added to cwnd.
    ai_credit: A::Credit,
    /// The mode decided at the last period's end.
    mode: Mode,
    /// ACKed segments whose RTT sample put `q` in each region, this period.
    region_acks: [u64; 3],
    /// Start and end of the current alpha period; none before the first sample.
    /// The current mode came into force at the period's start.
    period: Option<(SimTime, SimTime)>,
    /// Time each mode was in force until the current period's start: a mode
    /// decided at a period's end is in force until the next period's end.
    mode_time_ns: [u64; 3],
    /// Loss-event and early-response intervals (`p` and `p'`).
    losses: LossIntervals<A::Weights>,
    early: LossIntervals<A::Weights>,
    early_responses: u64,
}

impl PertAdaptive {
    /// The simulator's controller (`f64` arithmetic).
    pub fn new(cfg: PertAdaptiveConfig) -> PertAdaptive {
        PertAdaptive::with_arith(cfg)
    }
}

impl<A: Arith> PertAdaptive<A> {
    /// `P` is `path_rtt` for the run where given ([`DelaySignal::with_path_rtt`]).
    pub fn with_path_rtt(mut self, path_rtt: Option<SimTime>) -> PertAdaptive<A> {
        self.signal = self.signal.with_path_rtt(path_rtt);
        self
    }

    pub fn with_arith(cfg: PertAdaptiveConfig) -> PertAdaptive<A> {
        let arith = A::new(&cfg);
        PertAdaptive {
            signal: DelaySignal::new(cfg.srtt_weight).with_min_rtt_window(cfg.min_rtt_window_ns),
            guard: OncePerRtt::default(),
            t_min: ns_to_scaled(cfg.t_min_ns),
            t_max: ns_to_scaled(cfg.t_max_ns),
            p_max: to_prob(cfg.p_max),
            q_max: ns_to_scaled(cfg.q_max_init_ns).max(1),
            alpha: arith.one(),
            ai_credit: A::Credit::default(),
            mode: Mode::Safe,
            region_acks: [0; 3],
            period: None,
            mode_time_ns: [0; 3],
            losses: LossIntervals::new(arith.weights()),
            early: LossIntervals::new(arith.weights()),
            early_responses: 0,
            arith,
            cfg,
        }
    }

    /// Additive increase per RTT.
    pub fn alpha(&self) -> f64 {
        self.arith.alpha_f64(self.alpha)
    }

    /// alpha in the arithmetic's own form (millionths in [`Fixed`]).
    pub fn alpha_raw(&self) -> A::Alpha {
        self.alpha
    }

    /// The mode decided at the last alpha period's end.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// `srtt_0.99` and `P` (signal's units, microseconds); none before a sample.
    pub fn signal(&self) -> &DelaySignal {
        &self.signal
    }

    /// Estimated queueing delay `q`, ns.
    pub fn qdelay_ns(&self) -> SimTime {
        scaled_to_ns(self.signal.qdelay())
    }

    /// Maximum observed queueing delay `q_max`, signal's units.
    pub fn q_max_scaled(&self) -> u64 {
        self.q_max
    }

    /// Maximum observed queueing delay `q_max`, ns.
    pub fn q_max_ns(&self) -> SimTime {
        scaled_to_ns(self.q_max)
    }

    /// `beta = q / (q + q_max)`: what a response now would remove.
    pub fn beta(&self) -> f64 {
        self.arith.beta(self.signal.qdelay(), self.q_max)
    }

    /// Loss-event rate `p` and early-response rate `p'`.
    pub fn loss_rate(&self) -> f64 {
        self.arith.rate(&self.losses)
    }
    pub fn early_response_rate(&self) -> f64 {
        self.arith.rate(&self.early)
    }

    /// The loss-interval and early-response-interval estimators.
    pub fn estimators(&self) -> (&LossIntervals<A::Weights>, &LossIntervals<A::Weights>) {
        (&self.losses, &self.early)
    }

    /// The compete-mode target `min(alpha_max, 1 + p'/p)` (`alpha_max` before
    /// any loss), reached at `t3_frac q_max` and ramped from 1 at
    /// `compete_frac q_max` along the hyperbola `(q - lo)(w + d) / ((q - lo + d) w)`
    /// of the way up, `w = hi - lo`, `d = ramp_pole_frac q_max` (Fig. 2; the
    /// shape is spec Appendix X's reconstruction).
    pub fn compete_target(&self) -> f64 {
        self.arith.alpha_f64(self.compete_target_raw())
    }

    /// The compete target in the arithmetic's own form.
    pub fn compete_target_raw(&self) -> A::Alpha {
        self.arith.compete_target(self.signal.qdelay(), self.q_max, &self.losses, &self.early)
    }

    /// Response probability in units of 2^-32: gentle RED from T1 to T2, then to
    /// 1 at the third threshold `t3_frac q_max` (floored at `2 T2`).
    pub fn probability_fixed(&self) -> u64 {
        let t3 = self.arith.t3(self.q_max);
        let t3 = if self.cfg.t3_floor { t3.max(self.t_max.saturating_mul(2)) } else { t3 };
        gentle_red(self.signal.qdelay(), self.t_min, self.t_max, t3, self.p_max)
    }

    /// The region `q` is in now.
    fn region(&self) -> Mode {
        let q = self.signal.qdelay();
        if q < self.t_min {
            Mode::HighSpeed
        } else if self.arith.above_compete(q, self.q_max) {
            Mode::Compete
        } else {
            Mode::Safe
        }
    }

    /// Kept share of the window after an adaptive decrease, millionths.
    pub fn keep_ppm(&self) -> u64 {
        self.arith.keep_ppm(self.signal.qdelay(), self.q_max)
    }

    /// End of an alpha period: decide the mode from where the period's ACKs
    /// saw `q`, step alpha, start the next period.
    fn end_period(&mut self, now: SimTime) {
        self.mode_time_ns = self.mode_time(now);
        let most = *self.region_acks.iter().max().unwrap_or(&0);
        if most > 0 {
            self.mode = [Mode::HighSpeed, Mode::Safe, Mode::Compete][self.region_acks.iter().position(|&n| n == most).unwrap_or(1)];
        }
        self.alpha = self.arith.next_alpha(self.mode, self.alpha, || self.compete_target_raw());
        self.start_period(now);
    }

    /// Time each mode has been in force up to `now`.
    fn mode_time(&self, now: SimTime) -> [u64; 3] {
        let mut t = self.mode_time_ns;
        if let Some((since, _)) = self.period {
            t[self.mode as usize] += now.saturating_sub(since);
        }
        t
    }

    /// A period of `alpha_period_rtts` times `srtt_0.99` starts at `now`.
    fn start_period(&mut self, now: SimTime) {
        self.region_acks = [0; 3];
        let length = self.arith.period(self.signal.srtt.unwrap_or(0));
        self.period = Some((now, now.saturating_add(length)));
    }
}

impl<A: Arith> CongestionControl for PertAdaptive<A> {
    fn name(&self) -> &'static str {
        "pert-adaptive"
    }

    /// A loss event (Recovery, RTO or ECN): `p`'s interval closes; ssthresh
    /// keeps `1 - beta` of the window (adaptive or 0.5).
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        self.losses.on_event();
        self.ai_credit = A::Credit::default();
        let keep = match self.cfg.loss_beta {
            LossBeta::Adaptive => self.keep_ppm(),
            LossBeta::Half => PPM / 2,
        };
        scale_window(tp.snd_cwnd, keep)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, rng: &mut SimRng) {
        if self.guard.may_respond(tp, self.cfg.respond_in_slow_start) && draw(self.probability_fixed(), rng) {
            self.guard.respond(tp, self.keep_ppm());
            self.early.on_event();
            self.early_responses += 1;
            self.ai_credit = A::Credit::default();
            return;
        }
        let Some(acked) = tp.slow_start_then(acked) else { return };
        self.arith.additive_increase(tp, &mut self.ai_credit, self.alpha, acked);
    }

    fn pkts_acked(&mut self, tp: &mut CcState, sample: &AckSample, _rng: &mut SimRng) {
        let n = u64::from(sample.pkts_acked);
        self.losses.on_acked(n);
        self.early.on_acked(n);
        let Some(rtt) = sample.rtt else { return };
        let raw = self.signal.update(rtt, tp.now);
        let seen = match self.cfg.q_max_source {
            QmaxSource::Sample => raw.saturating_sub(self.signal.min_rtt_scaled()),
            QmaxSource::Srtt => self.signal.qdelay(),
        };
        self.q_max = self.q_max.max(seen);
        self.region_acks[self.region() as usize] += n.max(1);
        let now = self.arith.clock(tp.now);
        match self.period {
            None => self.start_period(now),
            Some((_, end)) if now >= end => self.end_period(now),
            Some(_) => {}
        }
    }

    fn counters(&self, now: SimTime) -> CcCounters {
        CcCounters { early_responses: self.early_responses, mode_time_ns: self.mode_time(self.arith.clock(now)), ..CcCounters::default() }
    }

    fn telemetry(&self) -> Option<CcTelemetry> {
        Some(CcTelemetry {
            mode: self.mode,
            alpha: self.alpha(),
            beta: self.beta(),
            p: self.loss_rate(),
            p_early: self.early_response_rate(),
            q_max_ms: self.q_max_ns() as f64 / 1e6,
        })
    }

    fn queueing_delay(&self) -> Option<SimTime> {
        Some(self.qdelay_ns())
    }

    fn response_probability(&self) -> Option<f64> {
        Some(from_prob(self.probability_fixed()))
    }
}

#[cfg(test)]
mod tests;
