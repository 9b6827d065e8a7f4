//! Scalable TCP (Kelly, ACM CCR 33(2), 2003): a fixed increase per ACK and a
//! fixed fraction taken off on loss, so the time to recover from a loss does
//! not grow with the window.
//!
//! What is modelled (Kelly 2003 Section 2, as Linux `tcp_scalable.c`):
//! - Congestion avoidance: `cwnd += a` per ACKed segment (a = 0.01), i.e. one
//!   segment per `1 / a` = 100 ACKs; below the legacy window `1 / a` Linux
//!   counts `cwnd` ACKs per segment instead (`tcp_cong_avoid_ai(min(cwnd,
//!   100))`), which is Standard TCP there. The same here.
//! - Loss: `cwnd -= b cwnd` (b = 0.125): ssthresh = `cwnd` less the whole
//!   part of `b cwnd` (Linux `cwnd - (cwnd >> 3)`), at least 2.
//!
//! Left out: Kelly's separate `low_window` (16 segments in the paper's
//! experiments; Linux uses 1 / a as the switch-over, followed here).

use super::{CcState, CongestionControl, MIN_SSTHRESH};
use crate::error::{check, ConfigError};
use crate::rng::SimRng;
use crate::scenario::CcSpec;
use serde::{Deserialize, Serialize};

/// Increase per ACKed segment `a` (Kelly 2003 Section 2: 0.01).
pub const DEFAULT_A: f64 = 0.01;
/// Decrease fraction `b` on loss (Kelly 2003 Section 2: 0.125).
pub const DEFAULT_B: f64 = 0.125;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ScalableConfig {
    /// Window increase per ACKed segment, in (0, 1). Default 0.01.
    pub a: f64,
    /// Fraction of the window given up on loss, in (0, 1). Default 0.125.
    pub b: f64,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        ScalableConfig { a: DEFAULT_A, b: DEFAULT_B }
    }
}

impl ScalableConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check::open_unit(&format!("{path}.a"), self.a)?;
        check::open_unit(&format!("{path}.b"), self.b)
    }
}

#[derive(Clone, Debug)]
pub struct Scalable {
    /// ACKs per segment of growth, `1 / a` rounded.
    acks_per_segment: u32,
    b: f64,
}

impl Scalable {
    pub fn new(cfg: ScalableConfig) -> Scalable {
        Scalable { acks_per_segment: acks_per_segment(cfg.a), b: cfg.b }
    }
}

/// ACKs per segment of growth at increase `a`: `1 / a` rounded.
fn acks_per_segment(a: f64) -> u32 {
    // a in (0, 1): 1 / a in (1, inf), clamped into u32.
    (1.0 / a).round().clamp(1.0, f64::from(u32::MAX)) as u32
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        // b < 1, so the cut is below cwnd.
        let cut = (f64::from(tp.snd_cwnd) * self.b).floor() as u32;
        (tp.snd_cwnd - cut).max(MIN_SSTHRESH)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        let Some(acked) = tp.slow_start_then(acked) else { return };
        let w = tp.snd_cwnd.min(self.acks_per_segment);
        tp.cong_avoid_ai(w, acked);
    }

    /// `a` applies from the next ACK, `b` from the next loss.
    fn set_params(&mut self, spec: &CcSpec) {
        if let CcSpec::Scalable(cfg) = spec {
            *self = Scalable::new(cfg.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;

    #[test]
    fn increase_is_a_per_ack_and_decrease_is_b_of_the_window() {
        let mut cc = Scalable::new(ScalableConfig::default());
        let mut rng = from_seed(1);
        // At 1000 segments: one segment per 100 ACKs, 10 per window (a w = 0.01 x 1000).
        let mut tp = CcState::new(1000, 100_000, 1500);
        tp.snd_ssthresh = 500;
        for _ in 0..1000 {
            cc.cong_avoid(&mut tp, 1, &mut rng);
        }
        assert_eq!(tp.snd_cwnd, 1010);
        // Below the legacy window 1/a = 100: Standard TCP, one per window.
        let mut tp = CcState::new(50, 100_000, 1500);
        tp.snd_ssthresh = 10;
        for _ in 0..50 {
            cc.cong_avoid(&mut tp, 1, &mut rng);
        }
        assert_eq!(tp.snd_cwnd, 51);
        // Loss: 1000 -> 875, 1001 -> 876 (cut 125.1 -> 125), 10 -> 9, small windows floor at 2.
        for (w, kept) in [(1000, 875), (1001, 876), (10, 9), (2, 2)] {
            tp.snd_cwnd = w;
            assert_eq!(cc.ssthresh(&tp), kept, "cwnd {w}");
        }
        // Recovery from a loss takes the same number of RTTs at any window:
        // log(1 / (1 - b)) / log(1 + a) = 13.4 RTTs.
        for w0 in [1000u32, 8000] {
            let mut tp = CcState::new(w0, 1_000_000, 1500);
            tp.snd_cwnd = cc.ssthresh(&tp);
            tp.snd_ssthresh = 2;
            let mut rtts = 0;
            while tp.snd_cwnd < w0 {
                for _ in 0..tp.snd_cwnd {
                    cc.cong_avoid(&mut tp, 1, &mut rng);
                }
                rtts += 1;
            }
            assert!((13..=15).contains(&rtts), "w0 {w0}: {rtts} RTTs");
        }
    }

    #[test]
    fn bad_parameters_are_rejected_by_name() {
        let c = ScalableConfig { a: 0.0, ..ScalableConfig::default() };
        assert_eq!(c.validate("flows[0].cc").unwrap_err().field, "flows[0].cc.a");
        let c = ScalableConfig { b: 1.0, ..ScalableConfig::default() };
        assert_eq!(c.validate("flows[0].cc").unwrap_err().field, "flows[0].cc.b");
    }
}
