//! The Adaptive RED step (Floyd, Gummadi, Shenker 2001; thesis Table 3.1 and
//! Algorithm 1): AIMD on `max_p`, paced and bounded by the shared
//! [`BandController`](super::maxp::BandController).
//!
//! ```text
//! band   = [min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)]
//! avg < band : max_p *= beta                         (beta = 0.9)
//! avg > band : max_p += min(alpha, max_p / 4)        (alpha = 0.01)
//! ```

use super::maxp::{Sample, StepRule};

/// ARED's target band as fractions of `max_th - min_th` above `min_th`
/// (ARED paper's `target`; thesis Table 3.1; ns-2 `0.4*(th_max-th_min)` and
/// `th_max - 0.4*(th_max-th_min)`). CARED uses it too (thesis Table 3.7).
pub const ARED_BAND: [f64; 2] = [0.4, 0.6];
/// The increase step is at most this fraction of `max_p`: `alpha < max_p / 4`
/// keeps one increase from pushing the average from above the band to below it
/// (ARED paper; thesis Eq. 3.1.1; ns-2 `0.25*cur_max_p`).
pub const ALPHA_MAX_P_FRACTION: f64 = 0.25;

/// The AIMD step (validated by `RedConfig::validate`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ared {
    /// Cap of the additive increase (thesis Table 3.1: 0.01).
    pub alpha: f64,
    /// Multiplicative decrease factor (thesis Table 3.1: 0.9).
    pub beta: f64,
}

impl StepRule for Ared {
    fn decrease(&self, _s: &Sample, max_p: f64) -> f64 {
        max_p * self.beta
    }

    fn increase(&self, _s: &Sample, max_p: f64) -> f64 {
        max_p + self.alpha.min(ALPHA_MAX_P_FRACTION * max_p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::red::maxp::{BandController, BandParams, FamilyRule, TargetBand, Trend, TrendReference};
    use crate::time::NS_PER_MS;

    pub(crate) fn params() -> BandParams {
        BandParams { interval: 500 * NS_PER_MS, top: 0.5, bottom: 0.01, trend_reference: TrendReference::Arrival }
    }

    fn controller() -> BandController {
        let rule = FamilyRule::Ared(Ared { alpha: 0.01, beta: 0.9 });
        // min_th 5, max_th 15: the thesis's band [9, 11].
        BandController::new(rule, params(), TargetBand::between(5.0, 15.0, ARED_BAND), 5.0)
    }

    #[test]
    fn band_of_5_15_is_9_11() {
        let b = TargetBand::between(5.0, 15.0, ARED_BAND);
        assert!((b.low - 9.0).abs() < 1e-12 && (b.high - 11.0).abs() < 1e-12, "{b:?}");
        // Scenario 2/3 of the thesis: 20/80 -> [44, 56].
        let b = TargetBand::between(20.0, 80.0, ARED_BAND);
        assert!((b.low - 44.0).abs() < 1e-12 && (b.high - 56.0).abs() < 1e-12, "{b:?}");
    }

    #[test]
    fn below_inside_and_above_the_band() {
        let c = controller();
        // Below 9: 0.1 * 0.9 = 0.09.
        assert!((c.step(8.0, Trend::Up, 0.1) - 0.09).abs() < 1e-15);
        // Inside (edges included): unchanged.
        assert_eq!(c.step(9.0, Trend::Up, 0.1), 0.1);
        assert_eq!(c.step(10.0, Trend::Down, 0.1), 0.1);
        assert_eq!(c.step(11.0, Trend::Up, 0.1), 0.1);
        // Above 11: 0.1 + min(0.01, 0.025) = 0.11.
        assert!((c.step(12.0, Trend::Down, 0.1) - 0.11).abs() < 1e-15);
    }

    #[test]
    fn waits_more_than_an_interval_after_the_last_change() {
        let mut c = controller();
        // At exactly 0.5 s nothing happens (ns: now > lastset + interval).
        assert_eq!(c.on_average(12.0, 12.0, 0.1, 500 * NS_PER_MS), 0.1);
        // Just after: 0.1 + min(0.01, 0.025) = 0.11.
        let p = c.on_average(12.0, 12.0, 0.1, 500 * NS_PER_MS + 1);
        assert!((p - 0.11).abs() < 1e-12, "{p}");
        // Changed at 0.5 s + 1 ns: the next change waits until after 1.0 s + 1 ns.
        assert_eq!(c.on_average(12.0, 12.0, p, 1000 * NS_PER_MS), p);
    }

    #[test]
    fn inside_the_band_nothing_changes_and_the_clock_does_not_restart() {
        let mut c = controller();
        assert_eq!(c.on_average(10.0, 10.0, 0.1, 600 * NS_PER_MS), 0.1);
        // last_set is still 0, so a later excursion is answered at once.
        let p = c.on_average(8.0, 8.0, 0.1, 601 * NS_PER_MS);
        assert!((p - 0.09).abs() < 1e-12, "{p}");
    }

    #[test]
    fn steps_stay_within_bottom_and_top() {
        let c = controller();
        // Increase capped by max_p / 4 when max_p < 0.04: 0.02 -> 0.025.
        assert!((c.step(12.0, Trend::Up, 0.02) - 0.025).abs() < 1e-15);
        // Near the top: 0.495 + 0.01 would be 0.505; clamped to 0.5, then no change.
        assert_eq!(c.step(12.0, Trend::Up, 0.495), 0.5);
        assert_eq!(c.step(12.0, Trend::Up, 0.5), 0.5);
        // Near the bottom: 0.0105 * 0.9 = 0.00945; clamped to 0.01, then no change.
        assert_eq!(c.step(8.0, Trend::Up, 0.0105), 0.01);
        assert_eq!(c.step(8.0, Trend::Up, 0.01), 0.01);
    }
}
