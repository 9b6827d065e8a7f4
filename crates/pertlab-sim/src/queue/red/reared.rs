//! The Refined Adaptive RED step (Kim and Lee 2006; thesis §3.2, Table 3.2 and
//! Algorithm 2): steps proportional to how far the average is from the target,
//! in a narrower band.
//!
//! ```text
//! band   = [min_th + 0.48 (max_th - min_th), min_th + 0.52 (max_th - min_th)]
//! avg < band : beta  = 1 - 0.17 (T - avg) / (T - min_th);  max_p *= beta
//! avg > band : alpha = 0.25 max_p (avg - T) / T;            max_p += alpha
//! ```
//!
//! **Which `T`.** Algorithm 2 writes a scalar `target` inside the formulas
//! although the target is a range (spec ambiguity 1). CARED's Algorithm 4
//! writes the same formulas with `target_low` in the decrease and `target_up`
//! in the increase, so by default we read `T` as the band edge the average has
//! left ([`RatioTarget::Edges`]); [`RatioTarget::Midpoint`] takes the middle of
//! the band instead. Either way the region test uses the band's edges.
//!
//! FARED (thesis §3.4) is this rule with smaller gains; see [`super::fared`].

use serde::{Deserialize, Serialize};

use super::maxp::{Sample, StepRule};

/// Re-ARED's target band as fractions of `max_th - min_th` above `min_th`
/// (thesis Table 3.2; FARED keeps it, §3.4.2).
pub const REARED_BAND: [f64; 2] = [0.48, 0.52];
/// Re-ARED's decrease gain: `beta = 1 - 0.17 (T - avg)/(T - min_th)` (thesis Algorithm 2).
/// 0.17 = 1 - 0.83, ARED's bound on beta (Eq. 3.1.2).
pub const REARED_DECREASE_GAIN: f64 = 0.17;
/// Re-ARED's increase gain: `alpha = 0.25 max_p (avg - T)/T` (thesis Algorithm 2).
/// 0.25 is ARED's bound `alpha < 0.25 max_p` (Eq. 3.1.1).
pub const REARED_INCREASE_GAIN: f64 = 0.25;

/// Which point of the band the ratio formulas measure from.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RatioTarget {
    /// `target_low` for the decrease, `target_up` for the increase (as CARED's Algorithm 4; default).
    #[default]
    Edges,
    /// The middle of the band for both.
    Midpoint,
}

/// The ratio step of Re-ARED (and FARED, with other gains).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ratio {
    /// Gain of the decrease (Re-ARED 0.17, FARED 0.0385).
    pub decrease_gain: f64,
    /// Gain of the increase (Re-ARED 0.25, FARED 0.042).
    pub increase_gain: f64,
    pub target: RatioTarget,
}

impl Ratio {
    /// Re-ARED with the thesis's gains.
    pub fn reared(target: RatioTarget) -> Ratio {
        Ratio { decrease_gain: REARED_DECREASE_GAIN, increase_gain: REARED_INCREASE_GAIN, target }
    }
}

impl StepRule for Ratio {
    fn decrease(&self, s: &Sample, max_p: f64) -> f64 {
        let t = match self.target {
            RatioTarget::Edges => s.band.low,
            RatioTarget::Midpoint => s.band.mid(),
        };
        let beta = 1.0 - self.decrease_gain * (t - s.avg) / (t - s.min_th);
        max_p * beta
    }

    fn increase(&self, s: &Sample, max_p: f64) -> f64 {
        let t = match self.target {
            RatioTarget::Edges => s.band.high,
            RatioTarget::Midpoint => s.band.mid(),
        };
        max_p + self.increase_gain * max_p * (s.avg - t) / t
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::queue::red::maxp::{BandController, BandParams, FamilyRule, TargetBand, Trend, TrendReference};
    use crate::time::NS_PER_MS;

    /// A family controller with thresholds 5/15 (Re-ARED band [9.8, 10.2]).
    pub(crate) fn controller(rule: Ratio) -> BandController {
        let params = BandParams { interval: 500 * NS_PER_MS, top: 0.5, bottom: 0.01, trend_reference: TrendReference::Arrival };
        BandController::new(FamilyRule::Ratio(rule), params, TargetBand::between(5.0, 15.0, REARED_BAND), 5.0)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn band_of_5_15_is_9_8_10_2() {
        let b = TargetBand::between(5.0, 15.0, REARED_BAND);
        assert!(close(b.low, 9.8) && close(b.high, 10.2), "{b:?}");
        // Thesis Scenarios 2/3 (20/80): [48.8, 51.2].
        let b = TargetBand::between(20.0, 80.0, REARED_BAND);
        assert!(close(b.low, 48.8) && close(b.high, 51.2), "{b:?}");
    }

    #[test]
    fn below_inside_and_above_the_band() {
        let c = controller(Ratio::reared(RatioTarget::Edges));
        // Below: T = 9.8, beta = 1 - 0.17 * (9.8 - 7) / (9.8 - 5) = 1 - 0.17 * 2.8 / 4.8
        //      = 1 - 0.0991666... = 0.9008333...; max_p 0.1 -> 0.09008333...
        assert!(close(c.step(7.0, Trend::Up, 0.1), 0.1 * (1.0 - 0.17 * 2.8 / 4.8)));
        assert!(close(c.step(7.0, Trend::Up, 0.1), 0.090_083_333_333_333_3));
        // Inside [9.8, 10.2]: unchanged.
        assert_eq!(c.step(10.0, Trend::Up, 0.1), 0.1);
        // Above: T = 10.2, alpha = 0.25 * 0.1 * (12 - 10.2) / 10.2 = 0.025 * 0.176470588...
        //      = 0.004411764...; max_p -> 0.104411764...
        assert!(close(c.step(12.0, Trend::Up, 0.1), 0.104_411_764_705_882_35));
    }

    #[test]
    fn the_midpoint_reading_measures_from_the_middle_of_the_band() {
        let c = controller(Ratio::reared(RatioTarget::Midpoint));
        // T = 10: beta = 1 - 0.17 * 3 / 5 = 0.898; alpha = 0.025 * 2 / 10 = 0.005.
        assert!(close(c.step(7.0, Trend::Up, 0.1), 0.0898));
        assert!(close(c.step(12.0, Trend::Up, 0.1), 0.105));
        // The region test still uses the edges: 10.1 is inside, nothing changes.
        assert_eq!(c.step(10.1, Trend::Up, 0.1), 0.1);
    }

    #[test]
    fn far_below_the_band_the_decrease_stops_at_bottom() {
        // Thresholds 20/21 (band [20.48, 20.52]): at avg 0, beta = 1 - 0.17 * 20.48 / 0.48 < 0.
        let params = BandParams { interval: 0, top: 0.5, bottom: 0.01, trend_reference: TrendReference::Arrival };
        let band = TargetBand::between(20.0, 21.0, REARED_BAND);
        let c = BandController::new(FamilyRule::Ratio(Ratio::reared(RatioTarget::Edges)), params, band, 20.0);
        assert_eq!(c.step(0.0, Trend::Down, 0.3), 0.01);
        // And a band edge at min_th (max_th = min_th) divides by zero into -inf: bottom too.
        let band = TargetBand::between(20.0, 20.0, REARED_BAND);
        let c = BandController::new(FamilyRule::Ratio(Ratio::reared(RatioTarget::Edges)), params, band, 20.0);
        assert_eq!(c.step(10.0, Trend::Down, 0.3), 0.01);
    }
}
