//! The arithmetic of adaptive PERT: everything that is a real number in the
//! thesis (alpha, beta, `p`, `p'`, the fractions of `q_max`, the alpha period).
//! [`Float`] is the simulator's `f64`; [`super::fixed::Fixed`] is the fixed
//! point of the eBPF twin (`bpf/pert_adaptive_algo.h`). The controller
//! ([`super::PertAdaptive`]) is written once over this trait; the signal, the
//! curve, the draw and the once-per-RTT guard are integer in both.

use super::intervals::{IntervalWeights, LossIntervals};
use super::PertAdaptiveConfig;
use crate::tcp::cc::pert_signal::{to_ppm, PPM};
use crate::tcp::cc::{CcState, Mode};
use crate::time::SimTime;

/// One arithmetic of adaptive PERT. Times `q`, `q_max` are in the signal's
/// units (microseconds << 10).
pub trait Arith: Clone + std::fmt::Debug + Send + 'static {
    /// alpha, the additive increase per RTT.
    type Alpha: Copy + std::fmt::Debug + PartialEq + Send;
    /// Weights of the loss-interval estimators.
    type Weights: IntervalWeights + Send;
    /// Fractional segments of additive increase not yet added to cwnd.
    type Credit: Copy + std::fmt::Debug + Default + Send;

    /// The arithmetic's form of the configuration.
    fn new(cfg: &PertAdaptiveConfig) -> Self;
    fn weights(&self) -> Self::Weights;
    /// alpha = 1.
    fn one(&self) -> Self::Alpha;
    fn alpha_f64(&self, a: Self::Alpha) -> f64;
    /// `beta = q / (q + q_max)` (q_max > 0).
    fn beta(&self, q: u64, q_max: u64) -> f64;
    /// Millionths of the window a decrease by `beta` keeps.
    fn keep_ppm(&self, q: u64, q_max: u64) -> u64;
    /// `q > compete_frac q_max`.
    fn above_compete(&self, q: u64, q_max: u64) -> bool;
    /// `t3_frac q_max`, truncated to the signal's units.
    fn t3(&self, q_max: u64) -> u64;
    /// The compete-mode target (see [`super::PertAdaptive::compete_target`]).
    fn compete_target(&self, q: u64, q_max: u64, losses: &LossIntervals<Self::Weights>, early: &LossIntervals<Self::Weights>) -> Self::Alpha;
    /// alpha after a period in `mode`; `target` is the compete target.
    fn next_alpha(&self, mode: Mode, alpha: Self::Alpha, target: impl FnOnce() -> Self::Alpha) -> Self::Alpha;
    /// The time the controller works with (the kernel's clock has microseconds).
    fn clock(&self, now: SimTime) -> SimTime;
    /// Length of an alpha period, `alpha_period_rtts` times `srtt` (signal's units).
    fn period(&self, srtt: u64) -> SimTime;
    /// `cwnd += alpha / cwnd` per ACKed segment.
    fn additive_increase(&self, tp: &mut CcState, credit: &mut Self::Credit, alpha: Self::Alpha, acked: u32);
    /// Loss-event or early-response rate per segment (0 before any event).
    fn rate(&self, est: &LossIntervals<Self::Weights>) -> f64;
}

/// The simulator's arithmetic: `f64` for every real number of the thesis.
#[derive(Clone, Debug)]
pub struct Float {
    cfg: PertAdaptiveConfig,
}

impl Arith for Float {
    type Alpha = f64;
    type Weights = Vec<f64>;
    type Credit = f64;

    fn new(cfg: &PertAdaptiveConfig) -> Float {
        Float { cfg: cfg.clone() }
    }

    fn weights(&self) -> Vec<f64> {
        self.cfg.interval_weights.clone()
    }

    fn one(&self) -> f64 {
        1.0
    }

    fn alpha_f64(&self, a: f64) -> f64 {
        a
    }

    fn beta(&self, q: u64, q_max: u64) -> f64 {
        let q = q as f64;
        q / (q + q_max as f64)
    }

    fn keep_ppm(&self, q: u64, q_max: u64) -> u64 {
        PPM - to_ppm(self.beta(q, q_max))
    }

    fn above_compete(&self, q: u64, q_max: u64) -> bool {
        q as f64 > self.cfg.compete_frac * q_max as f64
    }

    fn t3(&self, q_max: u64) -> u64 {
        (self.cfg.t3_frac * q_max as f64) as u64
    }

    fn compete_target(&self, q: u64, q_max: u64, losses: &LossIntervals, early: &LossIntervals) -> f64 {
        let (p, pe) = (losses.rate(), early.rate());
        let full = if p > 0.0 { (1.0 + pe / p).min(self.cfg.alpha_max) } else { self.cfg.alpha_max };
        let q = q as f64;
        let q_max = q_max as f64;
        let (lo, hi) = (self.cfg.compete_frac * q_max, self.cfg.t3_frac * q_max);
        if q >= hi || hi <= lo {
            full
        } else if q <= lo {
            1.0
        } else {
            let (w, d) = (hi - lo, self.cfg.ramp_pole_frac * q_max);
            1.0 + (full - 1.0) * (q - lo) * (w + d) / ((q - lo + d) * w)
        }
    }

    fn next_alpha(&self, mode: Mode, alpha: f64, target: impl FnOnce() -> f64) -> f64 {
        match mode {
            Mode::HighSpeed => (alpha + self.cfg.high_speed_step).min(self.cfg.alpha_max),
            Mode::Safe => (alpha * self.cfg.safe_decay).max(1.0),
            Mode::Compete => (alpha + self.cfg.compete_step).min(target()),
        }
        .max(1.0)
    }

    fn clock(&self, now: SimTime) -> SimTime {
        now
    }

    fn period(&self, srtt: u64) -> SimTime {
        let rtt = crate::tcp::cc::pert_signal::scaled_to_ns(srtt);
        ((rtt as f64) * self.cfg.alpha_period_rtts).max(1.0) as SimTime
    }

    fn additive_increase(&self, tp: &mut CcState, credit: &mut f64, alpha: f64, acked: u32) {
        *credit += alpha * f64::from(acked);
        while *credit >= f64::from(tp.snd_cwnd.max(1)) && tp.snd_cwnd < tp.snd_cwnd_clamp {
            *credit -= f64::from(tp.snd_cwnd.max(1));
            tp.snd_cwnd += 1;
        }
    }

    fn rate(&self, est: &LossIntervals) -> f64 {
        est.rate()
    }
}
