//! TCP-Illinois (Liu, Basar, Srikant, "TCP-Illinois: A Loss and Delay-Based
//! Congestion Control Algorithm for High-Speed Networks", VALUETOOLS 2006,
//! Section 3), with the defaults and structure of Linux `net/ipv4/tcp_illinois.c`.
//!
//! What is modelled:
//! - AIMD with a variable increase `alpha` (segments per RTT, `alpha / cwnd`
//!   per ACKed segment) and decrease `beta` (`ssthresh = cwnd - beta cwnd`,
//!   at least 2), both functions of the average queueing delay
//!   `d_a = avg RTT - baseRTT` relative to the largest seen, `d_m = maxRTT -
//!   baseRTT`. `baseRTT` and `maxRTT` are the smallest and largest RTT samples
//!   of the connection; the average is over the samples of the last RTT.
//! - Once per RTT (when `snd_una` passes the `snd_nxt` of the RTT's start):
//!   below `win_thresh` segments alpha and beta are Reno's (1, 1/2); else, if
//!   the RTT had samples,
//!   - `alpha = alpha_max` if `d_a <= d1`, else `k1 / (k2 + d_a)` with `k1`, `k2`
//!     such that `alpha(d1) = alpha_max` and `alpha(d_m) = alpha_min`;
//!     after the delay has been above `d1`, alpha returns to `alpha_max` only
//!     after `theta` successive RTTs at or below `d1` (in between it holds);
//!   - `beta = beta_min` if `d_a <= d2`, `beta_max` if `d_a >= d3`, linear between;
//!   - `d1, d2, d3` are the fractions `d1_frac, d2_frac, d3_frac` of `d_m`.
//! - A retransmission timeout (Loss state) resets alpha, beta to Reno's and
//!   forgets the low-delay count, as Linux does. Slow start is standard.
//!
//! Left out: Linux's fixed-point arithmetic (floats here) and its cap on RTT
//! samples; the paper's fluid-model analysis.

use super::rtt_round::RttRound;
use super::{AckSample, CaState, CcState, CongestionControl, MIN_SSTHRESH};
use crate::error::{check, ConfigError};
use crate::rng::SimRng;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// `alpha_min` (Linux `ALPHA_MIN` = 3/10; paper Section 3.2).
pub const DEFAULT_ALPHA_MIN: f64 = 0.3;
/// `alpha_max` (Linux `ALPHA_MAX` = 10; paper Section 3.2).
pub const DEFAULT_ALPHA_MAX: f64 = 10.0;
/// `beta_min` (Linux `BETA_MIN` = 1/8; paper Section 3.2).
pub const DEFAULT_BETA_MIN: f64 = 0.125;
/// `beta_max` (Linux `BETA_MAX` = 1/2; paper Section 3.2).
pub const DEFAULT_BETA_MAX: f64 = 0.5;
/// Below this window alpha, beta are Reno's (Linux `win_thresh` = 15).
pub const DEFAULT_WIN_THRESH: u32 = 15;
/// Low-delay RTTs before alpha returns to `alpha_max` (Linux `theta` = 5).
pub const DEFAULT_THETA: u32 = 5;
/// `d1 = d_m / 100` (Linux `d1`; paper Section 3.2).
pub const DEFAULT_D1_FRAC: f64 = 0.01;
/// `d2 = d_m / 10` (Linux `d2`; paper Section 3.2).
pub const DEFAULT_D2_FRAC: f64 = 0.1;
/// `d3 = 8 d_m / 10` (Linux `d3`; paper Section 3.2).
pub const DEFAULT_D3_FRAC: f64 = 0.8;
/// Reno's increase (Linux `ALPHA_BASE`), used below `win_thresh` and after a timeout.
const RENO_ALPHA: f64 = 1.0;
/// Reno's decrease (Linux `BETA_BASE`), used below `win_thresh`, after a timeout and at start.
const RENO_BETA: f64 = 0.5;

/// TCP-Illinois parameters (Linux `tcp_illinois.c` defaults).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct IllinoisConfig {
    /// Increase at large queueing delay, segments per RTT (`alpha_min`). Default 0.3.
    pub alpha_min: f64,
    /// Increase at small queueing delay, segments per RTT (`alpha_max`). Default 10.
    pub alpha_max: f64,
    /// Decrease at small queueing delay (`beta_min`). Default 1/8.
    pub beta_min: f64,
    /// Decrease at large queueing delay (`beta_max`). Default 1/2.
    pub beta_max: f64,
    /// Below this window (segments) alpha, beta are Reno's (Linux `win_thresh`). Default 15.
    pub win_thresh: u32,
    /// Successive low-delay RTTs before alpha returns to `alpha_max` (Linux `theta`). Default 5.
    pub theta: u32,
    /// `d1` as a fraction of the maximum queueing delay. Default 0.01.
    pub d1_frac: f64,
    /// `d2` as a fraction of the maximum queueing delay. Default 0.1.
    pub d2_frac: f64,
    /// `d3` as a fraction of the maximum queueing delay. Default 0.8.
    pub d3_frac: f64,
}

impl Default for IllinoisConfig {
    fn default() -> Self {
        IllinoisConfig {
            alpha_min: DEFAULT_ALPHA_MIN,
            alpha_max: DEFAULT_ALPHA_MAX,
            beta_min: DEFAULT_BETA_MIN,
            beta_max: DEFAULT_BETA_MAX,
            win_thresh: DEFAULT_WIN_THRESH,
            theta: DEFAULT_THETA,
            d1_frac: DEFAULT_D1_FRAC,
            d2_frac: DEFAULT_D2_FRAC,
            d3_frac: DEFAULT_D3_FRAC,
        }
    }
}

impl IllinoisConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check::positive(&format!("{path}.alpha_min"), self.alpha_min)?;
        if !(self.alpha_max.is_finite() && self.alpha_max > self.alpha_min) {
            return Err(ConfigError::new(format!("{path}.alpha_max"), format!("must be greater than alpha_min ({}), got {}", self.alpha_min, self.alpha_max)));
        }
        check::open_unit(&format!("{path}.beta_min"), self.beta_min)?;
        check::open_unit(&format!("{path}.beta_max"), self.beta_max)?;
        if self.beta_max < self.beta_min {
            return Err(ConfigError::new(format!("{path}.beta_max"), format!("must be at least beta_min ({}), got {}", self.beta_min, self.beta_max)));
        }
        check::open_unit(&format!("{path}.d1_frac"), self.d1_frac)?;
        check::open_unit(&format!("{path}.d2_frac"), self.d2_frac)?;
        check::open_unit(&format!("{path}.d3_frac"), self.d3_frac)?;
        if self.d3_frac <= self.d2_frac {
            return Err(ConfigError::new(format!("{path}.d3_frac"), format!("must be greater than d2_frac ({}), got {}", self.d2_frac, self.d3_frac)));
        }
        Ok(())
    }

    /// `alpha` off the low-delay region: `k1 / (k2 + d_a)` through
    /// `(d1, alpha_max)` and `(d_m, alpha_min)` (paper Section 3.2).
    pub fn alpha_curve(&self, da: f64, dm: f64) -> f64 {
        let d1 = self.d1_frac * dm;
        let span = self.alpha_max - self.alpha_min;
        let k1 = (dm - d1) * self.alpha_min * self.alpha_max / span;
        let k2 = (dm - d1) * self.alpha_min / span - d1;
        k1 / (k2 + da)
    }

    /// `beta(d_a)` given the maximum queueing delay `d_m` (paper Section 3.2).
    pub fn beta(&self, da: f64, dm: f64) -> f64 {
        let (d2, d3) = (self.d2_frac * dm, self.d3_frac * dm);
        if da <= d2 {
            self.beta_min
        } else if da >= d3 {
            self.beta_max
        } else {
            self.beta_min + (self.beta_max - self.beta_min) * (da - d2) / (d3 - d2)
        }
    }
}

/// TCP-Illinois state (Linux `struct illinois`).
#[derive(Clone, Debug)]
pub struct Illinois {
    cfg: IllinoisConfig,
    /// Current increase, segments per RTT.
    alpha: f64,
    /// Current decrease factor.
    beta: f64,
    /// The current RTT and its samples.
    round: RttRound,
    /// Smallest and largest RTT samples of the connection.
    base_rtt: Option<SimTime>,
    max_rtt: SimTime,
    /// Successive RTTs with `d_a <= d1` since the delay was last above it.
    rtt_low: u32,
    /// The delay has been above `d1` since alpha was last `alpha_max`.
    rtt_above: bool,
}

impl Illinois {
    pub fn new(cfg: IllinoisConfig) -> Illinois {
        let alpha = cfg.alpha_max;
        Illinois { cfg, alpha, beta: RENO_BETA, round: RttRound::default(), base_rtt: None, max_rtt: 0, rtt_low: 0, rtt_above: false }
    }

    /// Current `(alpha, beta)`.
    pub fn alpha_beta(&self) -> (f64, f64) {
        (self.alpha, self.beta)
    }

    /// alpha for the RTT just ended, with the low-delay hysteresis.
    fn next_alpha(&mut self, da: f64, dm: f64) -> f64 {
        if da <= self.cfg.d1_frac * dm {
            if !self.rtt_above {
                return self.cfg.alpha_max;
            }
            self.rtt_low += 1;
            if self.rtt_low < self.cfg.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return self.cfg.alpha_max;
        }
        self.rtt_above = true;
        self.rtt_low = 0;
        self.cfg.alpha_curve(da, dm)
    }

    /// The once-per-RTT update of alpha and beta.
    fn end_of_round(&mut self, tp: &CcState) {
        if tp.snd_cwnd < self.cfg.win_thresh {
            self.alpha = RENO_ALPHA;
            self.beta = RENO_BETA;
        } else if let (Some(base), Some(avg)) = (self.base_rtt, self.round.mean()) {
            let da = (avg - base as f64).max(0.0);
            let dm = self.max_rtt.saturating_sub(base) as f64;
            self.alpha = self.next_alpha(da, dm);
            self.beta = self.cfg.beta(da, dm);
        }
        self.round.begin(tp.snd_nxt);
    }
}

impl CongestionControl for Illinois {
    fn name(&self) -> &'static str {
        "illinois"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.round.begin(tp.snd_nxt);
    }

    /// `cwnd - beta cwnd`, at least 2.
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        let cut = (f64::from(tp.snd_cwnd) * self.beta).floor();
        // At most cwnd (beta < 1), so in u32 range.
        tp.snd_cwnd.saturating_sub(cut as u32).max(MIN_SSTHRESH)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        if self.round.is_over(tp.snd_una) {
            self.end_of_round(tp);
        }
        let Some(acked) = tp.slow_start_then(acked) else { return };
        tp.cong_avoid_by(self.alpha, acked);
    }

    fn pkts_acked(&mut self, _tp: &mut CcState, sample: &AckSample, _rng: &mut SimRng) {
        let Some(rtt) = sample.rtt else { return };
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        self.max_rtt = self.max_rtt.max(rtt);
        self.round.add(rtt);
    }

    /// A timeout: back to Reno's alpha and beta, forget the hysteresis and the round.
    fn set_state(&mut self, tp: &mut CcState, new_state: CaState) {
        if new_state == CaState::Loss {
            self.alpha = RENO_ALPHA;
            self.beta = RENO_BETA;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.round.begin(tp.snd_nxt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::ack_clock::AckClock;
    use crate::time::NS_PER_MS;

    const MS: SimTime = NS_PER_MS;

    fn flow(cwnd: u32) -> AckClock<Illinois> {
        AckClock::new(Illinois::new(IllinoisConfig::default()), cwnd, 5)
    }

    #[test]
    fn defaults_are_linuxs() {
        let c = IllinoisConfig::default();
        assert_eq!((c.alpha_min, c.alpha_max, c.beta_min, c.beta_max), (0.3, 10.0, 0.125, 0.5));
        assert_eq!((c.win_thresh, c.theta), (15, 5));
        assert_eq!((c.d1_frac, c.d2_frac, c.d3_frac), (0.01, 0.1, 0.8));
        assert!(c.validate("flows[0].cc").is_ok());
        let e = IllinoisConfig { alpha_max: 0.2, ..c }.validate("flows[0].cc").unwrap_err();
        assert_eq!(e.field, "flows[0].cc.alpha_max");
    }

    #[test]
    fn alpha_and_beta_at_both_ends_and_between() {
        let c = IllinoisConfig::default();
        let dm = 100.0;
        // alpha: alpha_max at d1 = 1, alpha_min at d_m; at 50: k1 = 99 * 3 / 9.7
        // = 30.619, k2 = 99 * 0.3 / 9.7 - 1 = 2.0619, alpha = 30.619 / 52.062 = 0.5881.
        assert!((c.alpha_curve(1.0, dm) - 10.0).abs() < 1e-9);
        assert!((c.alpha_curve(100.0, dm) - 0.3).abs() < 1e-9);
        assert!((c.alpha_curve(50.0, dm) - 0.5881).abs() < 1e-4);
        // beta: beta_min up to d2 = 10, beta_max from d3 = 80, linear between.
        assert_eq!((c.beta(0.0, dm), c.beta(10.0, dm)), (0.125, 0.125));
        assert_eq!((c.beta(80.0, dm), c.beta(99.0, dm)), (0.5, 0.5));
        assert!((c.beta(45.0, dm) - 0.3125).abs() < 1e-12);
    }

    #[test]
    fn per_rtt_updates_follow_the_queueing_delay() {
        // A round's update happens on the first ACK of the next driver round,
        // whose sample it includes; so each delay is held for two rounds.
        let mut f = flow(20);
        f.round(100 * MS);
        f.round(100 * MS);
        // No queueing seen yet (d_m = 0): alpha_max, beta_min.
        assert_eq!(f.cc.alpha_beta(), (10.0, 0.125));
        f.round(200 * MS);
        f.round(200 * MS);
        // base 100 ms, max 200 ms, average 200 ms: d_a = d_m, alpha_min, beta_max.
        let (alpha, beta) = f.cc.alpha_beta();
        assert!((alpha - 0.3).abs() < 1e-9 && beta == 0.5, "{alpha} {beta}");
        let cwnd = f.tp.snd_cwnd;
        assert_eq!(f.cc.ssthresh(&f.tp), cwnd - cwnd / 2);
        // Back to 100 ms. The first update still averages 200 ms samples.
        f.round(100 * MS);
        let (held, beta) = f.cc.alpha_beta();
        assert!(held < 0.31 && beta == 0.5, "{held} {beta}");
        // No queueing: beta drops at once; alpha holds for theta - 1 = 4
        // updates, and is alpha_max at the 5th.
        for _ in 0..4 {
            f.round(100 * MS);
            assert_eq!(f.cc.alpha_beta(), (held, 0.125));
        }
        f.round(100 * MS);
        assert_eq!(f.cc.alpha_beta(), (10.0, 0.125));
        // alpha_max = 10 segments per RTT: cwnd grows by 10 in one round.
        let before = f.tp.snd_cwnd;
        f.round(100 * MS);
        assert!((i64::from(f.tp.snd_cwnd) - i64::from(before) - 10).abs() <= 1, "{before} -> {}", f.tp.snd_cwnd);
    }

    #[test]
    fn small_windows_and_timeouts_are_renos() {
        // Starting at alpha_max (as Linux), 5 ACKs take cwnd from 5 to 10;
        // the update then finds cwnd 10 < win_thresh: Reno's.
        let mut f = flow(5);
        f.round(100 * MS);
        assert_eq!(f.tp.snd_cwnd, 10);
        f.round(300 * MS);
        assert_eq!(f.cc.alpha_beta(), (1.0, 0.5));
        assert!(f.tp.snd_cwnd < 15);
        let mut f = flow(40);
        f.round(100 * MS);
        f.round(100 * MS);
        assert_eq!(f.cc.alpha_beta(), (10.0, 0.125));
        f.cc.set_state(&mut f.tp, CaState::Loss);
        assert_eq!(f.cc.alpha_beta(), (1.0, 0.5));
    }
}
