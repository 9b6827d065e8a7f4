//! Feng's self-configuring RED (Feng, Kandlur, Saha, Shin, "A Self-Configuring
//! RED Gateway", INFOCOM 1999), as ns-2 `REDQueue::updateMaxPFeng` and ns-3
//! `RedQueueDisc::UpdateMaxPFeng` (`FengAdaptive`) implement it: at **every
//! arrival**, when the average enters the region below `min_th` it divides
//! `max_p` by `alpha`, and when it enters the region above `max_th` it
//! multiplies `max_p` by `beta`; staying in a region changes nothing.
//!
//! ```text
//! min_th < avg < max_th                   : status = Between
//! avg < min_th and status != Below        : status = Below;  max_p /= alpha   (alpha = 3)
//! avg > max_th and status != Above        : status = Above;  max_p *= beta    (beta  = 2)
//! ```
//!
//! Differences: ns-3 starts in `Above` (ns-2 leaves the status uninitialised);
//! we start in `Above` too, so the first arrival, whose average is below
//! `min_th`, divides the initial `max_p` by `alpha`, as in ns-3. Neither ns
//! bounds `max_p`; we keep it at most 1, since it is a probability.
//! Feng's variant uses plain RED's parameters (ns-3 `MinTh` 5, `MaxTh` 15,
//! `QW` 0.002, `LInterm` 50) and no `interval`.

/// `max_p` is divided by this when the average falls below `min_th`
/// (Feng et al. 1999 recommend 3; ns-2 `alpha_` under `feng_adaptive_`, ns-3 `FengAlpha`).
pub const DEFAULT_FENG_ALPHA: f64 = 3.0;
/// `max_p` is multiplied by this when the average rises above `max_th`
/// (Feng et al. 1999 recommend 2; ns-3 `FengBeta`).
pub const DEFAULT_FENG_BETA: f64 = 2.0;

/// Where the average was at the last arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    Below,
    Between,
    Above,
}

/// Feng's controller (validated by `RedConfig::validate`).
#[derive(Clone, Debug)]
pub struct Feng {
    alpha: f64,
    beta: f64,
    min_th: f64,
    max_th: f64,
    status: Region,
}

impl Feng {
    pub fn new(alpha: f64, beta: f64, min_th: f64, max_th: f64) -> Feng {
        Feng { alpha, beta, min_th, max_th, status: Region::Above }
    }

    /// Called at each arrival with the freshly updated average; returns the new `max_p`.
    pub fn on_average(&mut self, avg: f64, max_p: f64) -> f64 {
        if self.min_th < avg && avg < self.max_th {
            self.status = Region::Between;
            max_p
        } else if avg < self.min_th && self.status != Region::Below {
            self.status = Region::Below;
            max_p / self.alpha
        } else if avg > self.max_th && self.status != Region::Above {
            self.status = Region::Above;
            (max_p * self.beta).min(1.0)
        } else {
            max_p
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-15
    }

    #[test]
    fn scales_max_p_on_entering_below_and_above() {
        let mut f = Feng::new(3.0, 2.0, 5.0, 15.0);
        // Starts Above: the first average below min_th divides: 0.02 / 3 = 0.00666...
        let p = f.on_average(3.0, 0.02);
        assert!(close(p, 0.02 / 3.0));
        // Staying below: unchanged.
        assert_eq!(f.on_average(2.0, p), p);
        // Between: unchanged.
        assert_eq!(f.on_average(10.0, p), p);
        // Entering above: x 2 = 0.01333...
        let q = f.on_average(16.0, p);
        assert!(close(q, 0.04 / 3.0));
        assert_eq!(f.on_average(17.0, q), q);
        // Back below: / 3 = 0.004444...
        assert!(close(f.on_average(4.0, q), 0.04 / 9.0));
        // The thresholds themselves are no region: nothing changes.
        assert_eq!(f.on_average(5.0, 0.1), 0.1);
        assert_eq!(f.on_average(15.0, 0.1), 0.1);
    }

    #[test]
    fn max_p_stays_a_probability() {
        let mut f = Feng::new(3.0, 2.0, 5.0, 15.0);
        f.on_average(10.0, 0.8);
        assert_eq!(f.on_average(20.0, 0.8), 1.0);
    }
}
