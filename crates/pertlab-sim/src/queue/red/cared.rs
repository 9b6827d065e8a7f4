//! Cautious Adaptive RED (thesis §3.5, Table 3.7, Fig. 3.17 and Algorithm 4;
//! Tahiliani et al., JNCA 35 (2012)): ARED's band, with ARED's conservative
//! step or Re-ARED's aggressive one chosen by the "level of traffic load", the
//! direction in which the average moves.
//!
//! ```text
//! newavg < target_low : load up   -> ARED decrease     (max_p *= 0.9)
//!                       load down -> Re-ARED decrease  (T = target_low)
//! newavg > target_up  : load up   -> Re-ARED increase  (T = target_up)
//!                       load down -> ARED increase     (max_p += min(0.01, max_p/4))
//! ```
//!
//! CARED adds no parameters: it reuses ARED's `alpha`/`beta` and Re-ARED's
//! gains. Readings of the thesis (spec ambiguity 2, §1.7):
//! - `oldavg` is the average at the previous arrival (Eq. 2.1.1's definition)
//!   by default, or the average at the previous change of `max_p`
//!   ([`TrendReference`](super::maxp::TrendReference));
//! - when `newavg == oldavg` nothing changes (Algorithm 4 has no branch for it);
//! - Re-ARED's formulas measure from the band edge the average has left, as
//!   Algorithm 4 writes them, whatever `ratio_target` says for Re-ARED.

use super::ared::Ared;
use super::maxp::{Sample, StepRule, Trend};
use super::reared::Ratio;

/// ARED's step and Re-ARED's, switched by the trend.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cared {
    pub conservative: Ared,
    /// Re-ARED's step with `RatioTarget::Edges`.
    pub aggressive: Ratio,
}

impl StepRule for Cared {
    fn decrease(&self, s: &Sample, max_p: f64) -> f64 {
        match s.trend {
            Trend::Up => self.conservative.decrease(s, max_p),
            Trend::Down => self.aggressive.decrease(s, max_p),
            Trend::Flat => max_p,
        }
    }

    fn increase(&self, s: &Sample, max_p: f64) -> f64 {
        match s.trend {
            Trend::Up => self.aggressive.increase(s, max_p),
            Trend::Down => self.conservative.increase(s, max_p),
            Trend::Flat => max_p,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::red::ared::ARED_BAND;
    use crate::queue::red::maxp::{BandController, BandParams, FamilyRule, TargetBand, TrendReference};
    use crate::queue::red::reared::RatioTarget;
    use crate::time::NS_PER_MS;

    fn controller(trend_reference: TrendReference) -> BandController {
        let rule = Cared { conservative: Ared { alpha: 0.01, beta: 0.9 }, aggressive: Ratio::reared(RatioTarget::Edges) };
        let params = BandParams { interval: 500 * NS_PER_MS, top: 0.5, bottom: 0.01, trend_reference };
        // Thresholds 5/15: band [9, 11].
        BandController::new(FamilyRule::Cared(rule), params, TargetBand::between(5.0, 15.0, ARED_BAND), 5.0)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn below_the_band_rising_is_ared_and_falling_is_reared() {
        let c = controller(TrendReference::Arrival);
        // Rising: 0.1 * 0.9 = 0.09.
        assert!(close(c.step(7.0, Trend::Up, 0.1), 0.09));
        // Falling: beta = 1 - 0.17 * (9 - 7) / (9 - 5) = 0.915 -> 0.0915.
        assert!(close(c.step(7.0, Trend::Down, 0.1), 0.0915));
        // Flat: unchanged.
        assert_eq!(c.step(7.0, Trend::Flat, 0.1), 0.1);
    }

    #[test]
    fn inside_the_band_nothing_changes() {
        let c = controller(TrendReference::Arrival);
        for t in [Trend::Up, Trend::Down, Trend::Flat] {
            assert_eq!(c.step(10.0, t, 0.1), 0.1);
        }
    }

    #[test]
    fn above_the_band_rising_is_reared_and_falling_is_ared() {
        let c = controller(TrendReference::Arrival);
        // Rising: alpha = 0.25 * 0.1 * (12 - 11) / 11 = 0.0022727...; -> 0.1022727...
        assert!(close(c.step(12.0, Trend::Up, 0.1), 0.102_272_727_272_727_3));
        // Falling: + min(0.01, 0.025) -> 0.11.
        assert!(close(c.step(12.0, Trend::Down, 0.1), 0.11));
        assert_eq!(c.step(12.0, Trend::Flat, 0.1), 0.1);
    }

    #[test]
    fn the_trend_is_taken_against_the_previous_arrival_or_the_previous_update() {
        let ms = NS_PER_MS;
        // Per arrival: avg 12.5 after 12.6 is falling -> ARED increase 0.1 -> 0.11.
        let mut c = controller(TrendReference::Arrival);
        assert!(close(c.on_average(12.6, 12.5, 0.1, 600 * ms), 0.11));
        // Per update: the reference is the average at the last change, 0 at the
        // start, so 12.5 is rising -> Re-ARED: 0.1 + 0.025 * 1.5 / 11 = 0.1034090909...
        let mut c = controller(TrendReference::Update);
        let p = c.on_average(12.6, 12.5, 0.1, 600 * ms);
        assert!(close(p, 0.103_409_090_909_090_9), "{p}");
        // Next interval: 12.4 against 12.5 (the average at that change) is falling: + 0.01.
        let q = c.on_average(12.3, 12.4, p, 1200 * ms);
        assert!(close(q, p + 0.01), "{q}");
    }
}
