//! Burst losses on a link: a two-state Gilbert-Elliott channel, stepped once
//! per packet (Gilbert 1960, Elliott 1963; the packet-level form ns-2's
//! two-state `ErrorModel` and ns-3's `BurstErrorModel` approximate).
//!
//! The chain is parameterised by what a user measures: the mean loss rate
//! `rate` and the mean length of a loss burst `mean_burst_pkts` (B). A packet
//! sent in the Bad state is lost, one sent in the Good state is not (the
//! Gilbert special case). After each packet the state moves Good -> Bad with
//! probability `p = rate / (1 - rate) / B` and Bad -> Good with `r = 1 / B`, so
//! bursts last B packets on average and the stationary share of Bad is
//! `p / (p + r)` = `rate`. Each direction of a link has its own chain, in the
//! Good state at the start, and draws from the link's loss stream only when
//! configured.
//!
//! What it is not: an 802.11 MAC. No contention, no backoff, no link-layer
//! retransmissions or rate adaptation, no shared medium between the two
//! directions (data and ACKs do not collide), no per-bit errors depending on
//! the packet size. A wireless last hop here is a point-to-point link with its
//! own rate and this error model (Tahiliani 2013 Sec. 4.4.3 disables link-layer
//! retransmissions, so the model keeps what those runs rely on: losses on data
//! and ACKs that are not congestion).

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::rng::SimRng;

/// Gilbert-Elliott burst losses, by mean loss rate and mean burst length.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BurstLossConfig {
    /// Mean packet loss rate, in [0, 1).
    pub rate: f64,
    /// Mean number of packets lost in a row, at least 1.
    pub mean_burst_pkts: f64,
}

impl BurstLossConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        if !(self.rate.is_finite() && (0.0..1.0).contains(&self.rate)) {
            return Err(ConfigError::new(format!("{path}.rate"), format!("an error rate must lie in [0, 1), got {}", self.rate)));
        }
        if !(self.mean_burst_pkts.is_finite() && self.mean_burst_pkts >= 1.0) {
            return Err(ConfigError::new(format!("{path}.mean_burst_pkts"), format!("must be at least 1 packet, got {}", self.mean_burst_pkts)));
        }
        if self.p_good_bad() > 1.0 {
            let b = self.mean_burst_pkts;
            return Err(ConfigError::new(
                format!("{path}.mean_burst_pkts"),
                format!("bursts of {b} packets allow a loss rate of at most B / (B + 1) = {}, got rate {}", b / (b + 1.0), self.rate),
            ));
        }
        Ok(())
    }

    /// Good -> Bad per packet.
    fn p_good_bad(&self) -> f64 {
        self.rate / (1.0 - self.rate) / self.mean_burst_pkts
    }
}

/// One direction's chain.
#[derive(Clone, Debug)]
pub struct BurstLoss {
    p_good_bad: f64,
    p_bad_good: f64,
    bad: bool,
}

impl BurstLoss {
    pub fn new(cfg: &BurstLossConfig) -> BurstLoss {
        BurstLoss { p_good_bad: cfg.p_good_bad(), p_bad_good: 1.0 / cfg.mean_burst_pkts, bad: false }
    }

    /// Whether the packet sent now is lost; then step the chain.
    pub fn lost(&mut self, rng: &mut SimRng) -> bool {
        let lost = self.bad;
        let flip = if self.bad { self.p_bad_good } else { self.p_good_bad };
        if rng.gen::<f64>() < flip {
            self.bad = !self.bad;
        }
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;

    /// Loss rate and mean burst length over `n` packets.
    fn measure(cfg: BurstLossConfig, n: u32) -> (f64, f64) {
        let mut ge = BurstLoss::new(&cfg);
        let mut rng = from_seed(7);
        let (mut lost, mut bursts, mut prev) = (0u32, 0u32, false);
        for _ in 0..n {
            let l = ge.lost(&mut rng);
            lost += u32::from(l);
            bursts += u32::from(l && !prev);
            prev = l;
        }
        (f64::from(lost) / f64::from(n), f64::from(lost) / f64::from(bursts.max(1)))
    }

    #[test]
    fn measured_rate_and_burst_length_within_10_percent() {
        for (rate, burst) in [(0.01, 1.0), (0.04, 3.0), (0.02, 10.0), (0.2, 2.0)] {
            let (r, b) = measure(BurstLossConfig { rate, mean_burst_pkts: burst }, 2_000_000);
            assert!((r - rate).abs() <= 0.1 * rate, "rate {r} vs {rate}");
            assert!((b - burst).abs() <= 0.1 * burst, "burst {b} vs {burst}");
        }
        // Rate 0 never loses, and never leaves Good.
        assert_eq!(measure(BurstLossConfig { rate: 0.0, mean_burst_pkts: 5.0 }, 10_000).0, 0.0);
    }

    #[test]
    fn bad_parameters_are_rejected_by_name() {
        let path = "links[0].burst_loss";
        for (rate, burst, field) in
            [(1.0, 2.0, "rate"), (-0.1, 2.0, "rate"), (f64::NAN, 2.0, "rate"), (0.1, 0.5, "mean_burst_pkts"), (0.6, 1.0, "mean_burst_pkts")]
        {
            let e = BurstLossConfig { rate, mean_burst_pkts: burst }.validate(path).unwrap_err();
            assert_eq!(e.field, format!("{path}.{field}"), "{rate} {burst}: {}", e.message);
        }
        assert!(BurstLossConfig { rate: 0.5, mean_burst_pkts: 1.0 }.validate(path).is_ok());
    }
}
