//! The fixed point of adaptive PERT's eBPF twin (`bpf/pert_adaptive_algo.h`),
//! rule for rule: the reference the shared vectors
//! (`tests/vectors/pert_adaptive.json`) are generated from. Kotla's kernel
//! code "provide\[d\] precision up to 6 decimals" (thesis Ch. IV); here every
//! real number of the thesis is an integer in millionths (ppm), every
//! product is exact (`mul_div`: 128-bit here, 64-bit or an exact long
//! division in C) and truncated once. Error bounds against [`super::Float`]
//! on the same integer state (docs/linux.md repeats them):
//!
//! - parameters: each fraction, step and weight rounded to the nearest
//!   millionth (error <= 0.5e-6 each); times truncated to whole microseconds.
//! - `beta`: `floor(q 10^6 / (q + q_max))`; the kept share `10^6 - beta` is
//!   the float's `10^6 - round(beta 10^6)` or one more millionth.
//! - thresholds `compete_frac q_max`, `t3_frac q_max`, `ramp_pole_frac q_max`:
//!   truncated to the signal's unit (1/1024 us), plus the fraction's rounding
//!   (<= 0.5e-6 q_max).
//! - estimators: the ageing test `open > mean` is exact (`open W > S`, S the
//!   weighted sum and W the weight sum in ppm); intervals above 2^32 - 1
//!   segments count as 2^32 - 1 in the sums.
//! - `1 + p'/p`: `p'/p = mean_loss / mean_early` (each at least one segment)
//!   as `floor(floor(S_l W_e / W_l) 10^6 / S_e)`: error below 2 millionths
//!   relative plus 1 millionth absolute.
//! - the compete ramp: two truncated products, error below
//!   `1 + (w + d) / w` millionths (2.07 with the defaults) of alpha; and
//!   the truncated `lo`, `hi`, `d` (1 unit each) move it by at most
//!   `(full - 1)(w + d) / (w d)` per unit, `w`, `d` in 1/1024 us: with the
//!   defaults and a 40 ms `q_max`, 2.6e-6 (full - 1) per unit near `lo`.
//! - alpha steps: safe decay truncated (< 1e-6 per period), the others exact.
//! - additive increase: the credit is exact in millionths of a segment; at
//!   most [`AI_MAX_STEPS`] segments per ACK, the rest of the credit carried.
//! - the alpha period: `srtt` truncated to whole microseconds, times
//!   `alpha_period_rtts` in ppm, truncated, at least 1 us; the clock is
//!   whole microseconds (the kernel's `tcp_mstamp`).

use super::arith::Arith;
use super::intervals::{IntervalWeights, LossIntervals};
use super::PertAdaptiveConfig;
use crate::tcp::cc::pert_signal::{PPM, SRTT_SHIFT};
use crate::tcp::cc::{CcState, Mode};
use crate::time::{SimTime, NS_PER_US};

/// Most segments one ACK's additive increase adds (a bounded loop in eBPF).
pub const AI_MAX_STEPS: u32 = 64;
/// Interval counts above this count as this much in the estimator's sums.
const MAX_INTERVAL: u64 = u32::MAX as u64;

/// `floor(a b / c)`, exact, saturating at `u64::MAX`; `c > 0` (the C
/// `pert_mul_div`).
pub fn mul_div(a: u64, b: u64, c: u64) -> u64 {
    u64::try_from(u128::from(a) * u128::from(b) / u128::from(c)).unwrap_or(u64::MAX)
}

/// A real number to millionths, rounded half away from zero (no clamp).
pub fn ppm(x: f64) -> u64 {
    (x * PPM as f64).round() as u64
}

/// Estimator weights in millionths.
#[derive(Clone, Debug)]
pub struct PpmWeights(pub Vec<u64>);

impl PpmWeights {
    /// `(S, W)`: `sum w_i min(n_i, 2^32 - 1)` and `sum w_i` over the history.
    pub fn sums(&self, history: &[u64]) -> (u64, u64) {
        history.iter().zip(&self.0).fold((0, 0), |(s, w), (&n, &wi)| (s + wi * n.min(MAX_INTERVAL), w + wi))
    }
}

impl IntervalWeights for PpmWeights {
    /// `(S, W)`: the mean is `S / W`.
    type Mean = (u64, u64);

    fn count(&self) -> usize {
        self.0.len()
    }

    fn mean(&self, history: &[u64]) -> Option<(u64, u64)> {
        let (s, w) = self.sums(history);
        (!history.is_empty() && w > 0).then_some((s, w))
    }

    fn exceeds(&self, open: u64, (s, w): (u64, u64)) -> bool {
        open.min(MAX_INTERVAL) * w > s
    }
}

/// The eBPF twin's fixed point; fields in its units (see the module doc).
#[derive(Clone, Debug)]
pub struct Fixed {
    pub alpha_max: u64,
    pub compete_frac: u64,
    pub t3_frac: u64,
    pub ramp_pole_frac: u64,
    pub alpha_period_rtts: u64,
    pub high_speed_step: u64,
    pub compete_step: u64,
    pub safe_decay: u64,
    pub weights: Vec<u64>,
}

impl Fixed {
    /// `max(S, W)`: a mean below one segment counts as one (rate 1).
    fn floor_one((s, w): (u64, u64)) -> u64 {
        s.max(w)
    }

    /// alpha's full compete value `min(alpha_max, 1 + p'/p)` (alpha_max before a loss).
    fn full_target(&self, losses: &LossIntervals<PpmWeights>, early: &LossIntervals<PpmWeights>) -> u64 {
        let Some(l) = losses.mean() else { return self.alpha_max };
        let Some(e) = early.mean() else { return PPM.min(self.alpha_max) };
        let x = mul_div(Self::floor_one(l), e.1, l.1);
        let ratio = mul_div(x, PPM, Self::floor_one(e));
        PPM.saturating_add(ratio).min(self.alpha_max)
    }
}

impl Arith for Fixed {
    type Alpha = u64;
    type Weights = PpmWeights;
    type Credit = u64;

    fn new(cfg: &PertAdaptiveConfig) -> Fixed {
        Fixed {
            alpha_max: ppm(cfg.alpha_max),
            compete_frac: ppm(cfg.compete_frac),
            t3_frac: ppm(cfg.t3_frac),
            ramp_pole_frac: ppm(cfg.ramp_pole_frac),
            alpha_period_rtts: ppm(cfg.alpha_period_rtts),
            high_speed_step: ppm(cfg.high_speed_step),
            compete_step: ppm(cfg.compete_step),
            safe_decay: ppm(cfg.safe_decay),
            weights: cfg.interval_weights.iter().map(|&w| ppm(w)).collect(),
        }
    }

    fn weights(&self) -> PpmWeights {
        PpmWeights(self.weights.clone())
    }

    fn one(&self) -> u64 {
        PPM
    }

    fn alpha_f64(&self, a: u64) -> f64 {
        a as f64 / PPM as f64
    }

    fn beta(&self, q: u64, q_max: u64) -> f64 {
        (PPM - self.keep_ppm(q, q_max)) as f64 / PPM as f64
    }

    fn keep_ppm(&self, q: u64, q_max: u64) -> u64 {
        PPM - mul_div(q, PPM, q + q_max)
    }

    fn above_compete(&self, q: u64, q_max: u64) -> bool {
        q > mul_div(q_max, self.compete_frac, PPM)
    }

    fn t3(&self, q_max: u64) -> u64 {
        mul_div(q_max, self.t3_frac, PPM)
    }

    fn compete_target(&self, q: u64, q_max: u64, losses: &LossIntervals<PpmWeights>, early: &LossIntervals<PpmWeights>) -> u64 {
        let full = self.full_target(losses, early);
        let lo = mul_div(q_max, self.compete_frac, PPM);
        let hi = mul_div(q_max, self.t3_frac, PPM);
        if q >= hi || hi <= lo {
            full
        } else if q <= lo {
            PPM
        } else {
            let (w, d, x) = (hi - lo, mul_div(q_max, self.ramp_pole_frac, PPM), q - lo);
            let up = mul_div(full.saturating_sub(PPM), x, x.saturating_add(d));
            PPM + mul_div(up, w.saturating_add(d), w)
        }
    }

    fn next_alpha(&self, mode: Mode, alpha: u64, target: impl FnOnce() -> u64) -> u64 {
        match mode {
            Mode::HighSpeed => alpha.saturating_add(self.high_speed_step).min(self.alpha_max),
            Mode::Safe => mul_div(alpha, self.safe_decay, PPM).max(PPM),
            Mode::Compete => alpha.saturating_add(self.compete_step).min(target()),
        }
        .max(PPM)
    }

    fn clock(&self, now: SimTime) -> SimTime {
        now / NS_PER_US * NS_PER_US
    }

    fn period(&self, srtt: u64) -> SimTime {
        mul_div(srtt >> SRTT_SHIFT, self.alpha_period_rtts, PPM).max(1).saturating_mul(NS_PER_US)
    }

    fn additive_increase(&self, tp: &mut CcState, credit: &mut u64, alpha: u64, acked: u32) {
        *credit = credit.saturating_add(alpha.saturating_mul(u64::from(acked)));
        for _ in 0..AI_MAX_STEPS {
            let unit = u64::from(tp.snd_cwnd.max(1)) * PPM;
            if *credit < unit || tp.snd_cwnd >= tp.snd_cwnd_clamp {
                break;
            }
            *credit -= unit;
            tp.snd_cwnd += 1;
        }
    }

    fn rate(&self, est: &LossIntervals<PpmWeights>) -> f64 {
        est.mean().map_or(0.0, |m| mul_div(m.1, PPM, Self::floor_one(m)) as f64 / PPM as f64)
    }
}

#[cfg(test)]
mod tests;
