//! Fast Adapting RED (thesis §3.4, Algorithm 3): Re-ARED's band and ratio step
//! with gains re-derived for the narrower band, so that one step cannot move
//! the average across the band (Eqs. 3.4.1 to 3.4.13):
//!
//! ```text
//! alpha / (max_p + alpha) < 0.52 - 0.48 = 0.04   =>  alpha < 0.042 max_p    (3.4.7)
//! (1 - beta) / beta       < 0.04                  =>  beta  > 0.9615         (3.4.13)
//! avg < band : beta  = 1 - 0.0385 (T - avg) / (T - min_th);  max_p *= beta
//! avg > band : alpha = 0.042 max_p (avg - T) / T;             max_p += alpha
//! ```
//!
//! "The only difference between FARED and Re-ARED lies in appropriate
//! selection of upper bound and lower bound for alpha and beta" (§3.4.2), so
//! FARED is [`Ratio`] with these gains; the reading of `T` is Re-ARED's.
//! The thesis concludes that FARED "does not meet the desired goal" (§3.4.4);
//! it is here to reproduce that finding.
//!
//! The printed gains round the derived bounds the wrong way: Eq. 3.4.6 gives
//! `alpha < (0.04 / 0.96) max_p = 0.041667 max_p` and Eq. 3.4.12 gives
//! `beta > 1 / 1.04 = 0.961538`, yet Algorithm 3 uses 0.042 and 1 - 0.0385 =
//! 0.9615. We use the printed values, which are what the thesis simulated.

use super::reared::{Ratio, RatioTarget};

/// FARED's decrease gain: `1 - 0.9615` (thesis Eq. 3.4.13 and Algorithm 3).
pub const FARED_DECREASE_GAIN: f64 = 0.0385;
/// FARED's increase gain (thesis Eq. 3.4.7 and Algorithm 3).
pub const FARED_INCREASE_GAIN: f64 = 0.042;

/// FARED with the thesis's gains.
pub fn fared(target: RatioTarget) -> Ratio {
    Ratio { decrease_gain: FARED_DECREASE_GAIN, increase_gain: FARED_INCREASE_GAIN, target }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::red::maxp::Trend;
    use crate::queue::red::reared::tests::controller;

    #[test]
    fn below_inside_and_above_the_band() {
        let c = controller(fared(RatioTarget::Edges));
        // Band [9.8, 10.2] (thresholds 5/15).
        // Below: beta = 1 - 0.0385 * 2.8 / 4.8 = 1 - 0.022458333 = 0.977541666...; 0.1 -> 0.0977541666...
        assert!((c.step(7.0, Trend::Down, 0.1) - 0.097_754_166_666_666_7).abs() < 1e-12);
        assert_eq!(c.step(9.9, Trend::Down, 0.1), 0.1);
        // Above: alpha = 0.042 * 0.1 * 1.8 / 10.2 = 0.000741176...; 0.1 -> 0.100741176...
        assert!((c.step(12.0, Trend::Up, 0.1) - 0.100_741_176_470_588_2).abs() < 1e-12);
    }

    #[test]
    fn the_thesis_rounds_both_bounds_a_hair_past_its_derivation() {
        // Eq. 3.4.6 gives alpha < 0.04 / 0.96 max_p = 0.041666... max_p, printed as 0.042;
        // Eq. 3.4.12 gives beta > 1 / 1.04 = 0.961538..., printed as 0.9615 (gain 0.0385).
        let alpha_bound = 0.04 / 0.96;
        let beta_bound = 1.0 / 1.04;
        assert!(FARED_INCREASE_GAIN > alpha_bound && FARED_INCREASE_GAIN - alpha_bound < 4e-4);
        assert!(1.0 - FARED_DECREASE_GAIN < beta_bound && beta_bound - (1.0 - FARED_DECREASE_GAIN) < 4e-5);
        // We keep the printed values: a step reaches the gain only at a ratio of 1
        // (avg = 2 T above, or avg = min_th below), where the bound no longer matters.
    }
}
