//! A running minimum over a sliding time window in constant memory: Kathleen
//! Nichols' three-sample estimator, the one Linux keeps its `tcp_min_rtt` with
//! (`lib/minmax.c`, a window of `net.ipv4.tcp_min_rtt_wlen` = 300 s) and BBR its
//! bandwidth and RTT filters.
//!
//! It keeps the best, second-best and third-best samples of the window, each
//! later than the one before it. When the best grows older than the window the
//! second takes its place, so the minimum can rise after the path's delay did;
//! a new sample at or below the best restarts all three. The value is the
//! window's minimum except after the best expired, when it may be a sample
//! somewhat above it (the estimator's approximation, as in Linux).
//!
//! Used by every PERT's propagation-delay estimate when a window is configured
//! (`min_rtt_window_ns` of PERT/RED, PERT/PI and adaptive PERT); the theses
//! and the paper use the smallest sample ever seen (spec C4), the default. The
//! eBPF programs run the same steps (`pert_min_rtt_window_update` in
//! `bpf/pert_algo.h`), checked against this one by the shared vectors.

use crate::time::SimTime;

/// One sample: its value and when it was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sample {
    at: SimTime,
    value: u64,
}

/// The running minimum of samples over the last `window` nanoseconds.
#[derive(Clone, Debug)]
pub struct WindowedMin {
    window: SimTime,
    /// Best, second and third choice; none before the first sample.
    best: Option<[Sample; 3]>,
}

impl WindowedMin {
    pub fn new(window: SimTime) -> WindowedMin {
        WindowedMin { window, best: None }
    }

    /// Take the sample `value` at `now` (not before the previous one); returns
    /// the minimum of the window.
    pub fn update(&mut self, now: SimTime, value: u64) -> u64 {
        let s = Sample { at: now, value };
        let Some(b) = self.best.as_mut() else {
            self.best = Some([s; 3]);
            return value;
        };
        // A new minimum, or every kept sample has left the window: start again.
        if value <= b[0].value || now.saturating_sub(b[2].at) > self.window {
            *b = [s; 3];
            return value;
        }
        if value <= b[1].value {
            (b[1], b[2]) = (s, s);
        } else if value <= b[2].value {
            b[2] = s;
        }
        let age = now.saturating_sub(b[0].at);
        if age > self.window {
            // The best has expired: the later choices move up (twice if the
            // second has expired too; the third is within the window, checked above).
            *b = [b[1], b[2], s];
            if now.saturating_sub(b[0].at) > self.window {
                *b = [b[1], b[2], s];
            }
        } else if b[1].at == b[0].at && age > self.window / 4 {
            // A quarter of the window without a second choice: take one from now.
            (b[1], b[2]) = (s, s);
        } else if b[2].at == b[1].at && age > self.window / 2 {
            // Half the window without a third choice: take one from now.
            b[2] = s;
        }
        b[0].value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: SimTime = 1_000_000_000;

    #[test]
    fn the_minimum_of_a_window_and_its_rise_when_the_smallest_sample_expires() {
        let mut m = WindowedMin::new(10 * S);
        assert_eq!(m.update(0, 100), 100);
        assert_eq!(m.update(S, 120), 100);
        assert_eq!(m.update(2 * S, 90), 90);
        // The path's delay rises: 90 stays the minimum for the window, then goes.
        for t in 3..=12 {
            assert_eq!(m.update(t * S, 150), 90, "at {t} s");
        }
        assert_eq!(m.update(13 * S, 150), 150);
        assert_eq!(m.update(14 * S, 140), 140);
    }

    #[test]
    fn with_a_window_longer_than_the_run_it_is_the_smallest_sample_ever() {
        let mut m = WindowedMin::new(u64::MAX);
        let samples = [120, 80, 95, 200, 81, 79, 300, 79, 150];
        let mut least = u64::MAX;
        for (i, &v) in samples.iter().enumerate() {
            least = least.min(v);
            assert_eq!(m.update(i as u64 * S, v), least);
        }
    }

    #[test]
    fn samples_rising_through_the_window_keep_a_later_choice_within_it() {
        // Every sample larger than the one before, one per second, window 8 s: the
        // estimate never holds a sample older than the window, and is never above the
        // newest sample.
        let mut m = WindowedMin::new(8 * S);
        for t in 0..40u64 {
            let v = 100 + t;
            let got = m.update(t * S, v);
            assert!(got <= v && got + 8 >= v, "at {t} s: {got} for samples up to {v}");
        }
    }
}
