//! The loss-interval estimator of adaptive PERT (Kotla 2008, Chapter IV),
//! one history for both arithmetics: the weights decide how the mean interval
//! is computed ([`IntervalWeights`]: `f64`, or millionths as the eBPF twin in
//! `bpf/pert_adaptive_algo.h` does).

use crate::error::ConfigError;

/// How an estimator's mean interval is computed from its history.
pub trait IntervalWeights: Clone + std::fmt::Debug + Send {
    /// The mean interval at an event, in the form the open count is compared with.
    type Mean: Copy + std::fmt::Debug + Send;
    /// Number of weights (the history's length).
    fn count(&self) -> usize;
    /// The weighted mean of `history` (most recent first); none when empty or
    /// the leading weights sum to zero.
    fn mean(&self, history: &[u64]) -> Option<Self::Mean>;
    /// `open > mean`: the open interval is longer than the mean (ageing).
    fn exceeds(&self, open: u64, mean: Self::Mean) -> bool;
}

impl IntervalWeights for Vec<f64> {
    type Mean = f64;

    fn count(&self) -> usize {
        self.as_slice().len()
    }

    fn mean(&self, history: &[u64]) -> Option<f64> {
        if history.is_empty() {
            return None;
        }
        let (num, den) = history.iter().zip(self).fold((0.0, 0.0), |(n, d), (&x, &w)| (n + w * x as f64, d + w));
        (den > 0.0).then(|| num / den)
    }

    fn exceeds(&self, open: u64, mean: f64) -> bool {
        open as f64 > mean
    }
}

/// The TFRC-style average-loss-interval estimator of Kotla Ch. IV (RFC 5348
/// Section 5.4 in spirit): the rate of an event (loss, or early response) is
/// `sum(w) / sum(w_i n_i)` over the last `k` closed intervals `n_1` (most
/// recent) .. `n_k`, each the number of ACKed segments between two events;
/// with the 8 default weights that is `6 / (n1+n2+n3+n4 + .8 n5 + .6 n6 + .4 n7
/// + .2 n8)`. Fewer than `k` intervals use the leading weights.
///
/// Ageing (Ch. IV): when the count since the last event exceeds the mean
/// interval, the history moves right once (the oldest entry is flushed) and the
/// open count becomes `n_1`, updated as it grows; at the next event it stays as
/// `n_1` (no second shift: spec A.3 CHOICE).
#[derive(Clone, Debug)]
pub struct LossIntervals<W: IntervalWeights = Vec<f64>> {
    weights: W,
    /// Intervals, most recent first; at most `weights.len()`.
    history: Vec<u64>,
    /// ACKed segments since the last event.
    open: u64,
    /// The open interval has already been moved into `history[0]` by ageing.
    aged: bool,
    /// The mean interval at the last event: the open count ages past it. The
    /// history changes only at events until then, so it is computed there,
    /// not on every ACK.
    age_after: Option<W::Mean>,
}

impl<W: IntervalWeights> LossIntervals<W> {
    pub fn new(weights: W) -> LossIntervals<W> {
        LossIntervals { history: Vec::with_capacity(weights.count()), weights, open: 0, aged: false, age_after: None }
    }

    /// Weights must be finite, non-negative, not all zero.
    pub fn check_weights(path: &str, weights: &[f64]) -> Result<(), ConfigError> {
        if weights.is_empty() {
            return Err(ConfigError::new(path, "needs at least one weight"));
        }
        if let Some(i) = weights.iter().position(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err(ConfigError::new(format!("{path}[{i}]"), format!("must be a finite number >= 0, got {}", weights[i])));
        }
        let sum: f64 = weights.iter().sum();
        if sum <= 0.0 {
            return Err(ConfigError::new(path, format!("must sum to a positive number, got {sum}")));
        }
        Ok(())
    }

    /// `n` more segments were ACKed.
    pub fn on_acked(&mut self, n: u64) {
        self.open += n;
        if self.aged {
            self.history[0] = self.open;
        } else if self.age_after.is_some_and(|mean| self.weights.exceeds(self.open, mean)) {
            self.shift_in(self.open);
            self.aged = true;
        }
    }

    /// An event: the open interval closes.
    pub fn on_event(&mut self) {
        if self.aged {
            self.history[0] = self.open;
        } else {
            self.shift_in(self.open);
        }
        self.open = 0;
        self.aged = false;
        self.age_after = self.weights.mean(&self.history);
    }

    fn shift_in(&mut self, n: u64) {
        self.history.insert(0, n);
        self.history.truncate(self.weights.count());
    }

    /// The weighted mean interval; none before the first event.
    pub fn mean(&self) -> Option<W::Mean> {
        self.weights.mean(&self.history)
    }

    /// The weights.
    pub fn weights(&self) -> &W {
        &self.weights
    }

    /// The intervals, most recent first (for tests and inspection).
    pub fn history(&self) -> &[u64] {
        &self.history
    }
}

impl LossIntervals<Vec<f64>> {
    /// The weighted mean interval, segments; none before the first event.
    pub fn mean_interval(&self) -> Option<f64> {
        self.mean()
    }

    /// Event rate per ACKed segment, in [0, 1]; 0 before the first event.
    pub fn rate(&self) -> f64 {
        match self.mean_interval() {
            None => 0.0,
            Some(mean) if mean <= 1.0 => 1.0,
            Some(mean) => 1.0 / mean,
        }
    }
}
