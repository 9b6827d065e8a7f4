//! The Adaptive RED `max_p` controller (Floyd, Gummadi, Shenker 2001; thesis
//! Table 3.1 and Algorithm 1): an AIMD rule that moves `max_p` so that the
//! average queue settles inside a target band between the thresholds.
//!
//! ```text
//! band   = [min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)]
//! avg > band and max_p < top    : max_p += min(alpha, max_p / 4)
//! avg < band and max_p > bottom : max_p *= beta
//! ```
//!
//! **When it runs.** The paper writes "every `interval` seconds" (Linux
//! `sch_red` uses a timer). ns-2 `REDQueue::updateMaxP` and ns-3
//! `RedQueueDisc::UpdateMaxP` instead check at each arrival, right after the
//! average is updated, whether `now > last_set + interval`, and move `last_set`
//! only when `max_p` actually changes. So `max_p` changes at most once per
//! interval, but as soon as the average leaves the band once the interval has
//! passed, and never while the queue sees no arrivals. We follow ns-2/ns-3
//! (lazy, at arrivals) because the thesis's and the PERT paper's runs are ns-2.
//!
//! **Bounds.** The paper's pseudocode and ns test the bound before the step, so
//! one step can overshoot it (0.0105 × 0.9 < 0.01). We clamp the result into
//! `[bottom, top]`, the range the paper states for `max_p`.

use crate::time::SimTime;

/// Lower edge of the target band as a fraction of `max_th - min_th`
/// (ARED paper's fixed parameter `target`; thesis Table 3.1; ns-2 `0.4*(th_max-th_min)`).
pub const TARGET_LOW_FRACTION: f64 = 0.4;
/// Upper edge of the target band as a fraction of `max_th - min_th`
/// (ARED paper; thesis Table 3.1; ns-2 writes it as `th_max - 0.4*(th_max-th_min)`).
pub const TARGET_HIGH_FRACTION: f64 = 0.6;
/// The increase step is at most this fraction of `max_p`: `alpha < max_p / 4`
/// keeps one increase from pushing the average from above the band to below it
/// (ARED paper; thesis Eq. 3.1.1; ns-2 `0.25*cur_max_p`).
pub const ALPHA_MAX_P_FRACTION: f64 = 0.25;

/// The band the controller steers the average queue into, in the unit of the
/// thresholds (packets, or bytes in byte mode).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetBand {
    pub low: f64,
    pub high: f64,
}

impl TargetBand {
    /// The ARED band for thresholds `min_th <= max_th`.
    pub fn between(min_th: f64, max_th: f64) -> TargetBand {
        let span = max_th - min_th;
        TargetBand { low: min_th + TARGET_LOW_FRACTION * span, high: min_th + TARGET_HIGH_FRACTION * span }
    }
}

/// Parameters of the controller (validated by `RedConfig::validate`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AredParams {
    /// Least time between two changes of `max_p`.
    pub interval: SimTime,
    /// Largest `max_p`.
    pub top: f64,
    /// Smallest `max_p`.
    pub bottom: f64,
    /// Cap of the additive increase.
    pub alpha: f64,
    /// Multiplicative decrease factor.
    pub beta: f64,
}

/// State of the controller: its parameters and the time `max_p` last changed.
#[derive(Clone, Debug)]
pub struct AredController {
    params: AredParams,
    band: TargetBand,
    /// When `max_p` was last changed (ns-2 `lastset`); 0 at the start of the run.
    last_set: SimTime,
}

impl AredController {
    pub fn new(params: AredParams, band: TargetBand) -> AredController {
        AredController { params, band, last_set: 0 }
    }

    pub fn band(&self) -> TargetBand {
        self.band
    }

    /// `max_p` kept within `[bottom, top]`, for the value the controller starts from.
    pub fn clamp(&self, max_p: f64) -> f64 {
        max_p.clamp(self.params.bottom, self.params.top)
    }

    /// Called at each arrival with the freshly updated average; returns the new `max_p`.
    pub fn on_average(&mut self, avg: f64, max_p: f64, now: SimTime) -> f64 {
        if now <= self.last_set.saturating_add(self.params.interval) {
            return max_p;
        }
        let next = self.step(avg, max_p);
        if next != max_p {
            self.last_set = now;
        }
        next
    }

    /// One AIMD step of the paper's rule; `max_p` unchanged inside the band.
    fn step(&self, avg: f64, max_p: f64) -> f64 {
        let p = &self.params;
        if avg < self.band.low && max_p > p.bottom {
            (max_p * p.beta).max(p.bottom)
        } else if avg > self.band.high && max_p < p.top {
            (max_p + self.increase(max_p)).min(p.top)
        } else {
            max_p
        }
    }

    /// The additive increase: `min(alpha, max_p / 4)`.
    fn increase(&self, max_p: f64) -> f64 {
        self.params.alpha.min(ALPHA_MAX_P_FRACTION * max_p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    fn controller() -> AredController {
        let params = AredParams { interval: 500 * NS_PER_MS, top: 0.5, bottom: 0.01, alpha: 0.01, beta: 0.9 };
        // min_th 5, max_th 15: the thesis's band [9, 11].
        AredController::new(params, TargetBand::between(5.0, 15.0))
    }

    #[test]
    fn band_of_5_15_is_9_11() {
        let b = TargetBand::between(5.0, 15.0);
        assert!((b.low - 9.0).abs() < 1e-12 && (b.high - 11.0).abs() < 1e-12, "{b:?}");
        // Scenario 2/3 of the thesis: 20/80 -> [44, 56].
        let b = TargetBand::between(20.0, 80.0);
        assert!((b.low - 44.0).abs() < 1e-12 && (b.high - 56.0).abs() < 1e-12, "{b:?}");
    }

    #[test]
    fn waits_more_than_an_interval_after_the_last_change() {
        let mut c = controller();
        // At exactly 0.5 s nothing happens (ns: now > lastset + interval).
        assert_eq!(c.on_average(12.0, 0.1, 500 * NS_PER_MS), 0.1);
        // Just after: 0.1 + min(0.01, 0.025) = 0.11.
        let p = c.on_average(12.0, 0.1, 500 * NS_PER_MS + 1);
        assert!((p - 0.11).abs() < 1e-12, "{p}");
        // Changed at 0.5 s + 1 ns: the next change waits until after 1.0 s + 1 ns.
        assert_eq!(c.on_average(12.0, p, 1000 * NS_PER_MS), p);
    }

    #[test]
    fn inside_the_band_nothing_changes_and_the_clock_does_not_restart() {
        let mut c = controller();
        assert_eq!(c.on_average(10.0, 0.1, 600 * NS_PER_MS), 0.1);
        // last_set is still 0, so a later excursion is answered at once.
        let p = c.on_average(8.0, 0.1, 601 * NS_PER_MS);
        assert!((p - 0.09).abs() < 1e-12, "{p}");
    }

    #[test]
    fn steps_stay_within_bottom_and_top() {
        let c = controller();
        // Increase capped by max_p / 4 when max_p < 0.04: 0.02 -> 0.025.
        assert!((c.step(12.0, 0.02) - 0.025).abs() < 1e-15);
        // Near the top: 0.495 + 0.01 would be 0.505; clamped to 0.5, then no change.
        assert_eq!(c.step(12.0, 0.495), 0.5);
        assert_eq!(c.step(12.0, 0.5), 0.5);
        // Near the bottom: 0.0105 * 0.9 = 0.00945; clamped to 0.01, then no change.
        assert_eq!(c.step(8.0, 0.0105), 0.01);
        assert_eq!(c.step(8.0, 0.01), 0.01);
        // Band edges are inside the band.
        assert_eq!(c.step(9.0, 0.1), 0.1);
        assert_eq!(c.step(11.0, 0.1), 0.1);
    }
}
