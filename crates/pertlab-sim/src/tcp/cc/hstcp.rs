//! HighSpeed TCP (Floyd, RFC 3649, December 2003): AIMD whose increase `a(w)`
//! grows and whose decrease `b(w)` shrinks with the window above `Low_Window`.
//!
//! What is modelled (RFC 3649 Sections 5 and 6):
//! - At or below `Low_Window` the window follows Standard TCP: Reno growth,
//!   halving on loss (`a = 1`, `b = 1/2`).
//! - Above it, `b(w)` is interpolated linearly in `log w` from 0.5 at
//!   `Low_Window` to `High_Decrease` at `High_Window` (Section 6), and
//!   `a(w) = w^2 p(w) 2 b(w) / (2 - b(w))` with `p(w)` the HighSpeed response
//!   function, the straight line in log-log coordinates through
//!   `(Low_Window, Low_P)` and `(High_Window, High_P)` (Section 5, eqs. (1),
//!   (2)); with the defaults it is `p(w) = 0.0783 / w^1.198`, which the RFC
//!   rounds to `0.078 / w^1.2`.
//! - `a(w)` and `b(w)` are computed directly in floating point at the current
//!   window, not looked up in a table as Linux `tcp_highspeed.c` does (Linux
//!   holds Appendix B's rows and rounds `a` up to the next integer).
//!   Appendix B's table was computed from the rounded `0.078 / w^1.2`, so above
//!   a few thousand segments its `a(w)` is up to 2.5 % below the values here
//!   (`a(84035)`: 71 in the table, 72.7 here); `b(w)` agrees to the table's two
//!   decimals. At `High_Window` itself this module gives `p = High_P` and
//!   `a = 72.5`, as Section 5's definition implies.
//! - Congestion avoidance adds `a(w) / w` per ACKed segment
//!   ([`CcState::cong_avoid_by`]); a loss sets `ssthresh = (1 - b(w)) w`
//!   (at least 2), with `w` the window when the loss is detected.
//!
//! Left out: Limited Slow-Start (RFC 3742), which RFC 3649 discusses but does
//! not require; slow start is standard. Loss recovery belongs to the sender.

use super::reno::reno_cong_avoid;
use super::{CcState, CongestionControl, MIN_SSTHRESH};
use crate::error::{check, ConfigError};
use crate::rng::SimRng;
use serde::{Deserialize, Serialize};

/// `Low_Window` (RFC 3649 Section 5): Standard TCP at or below 38 segments.
pub const DEFAULT_LOW_WINDOW: f64 = 38.0;
/// `High_Window` (RFC 3649 Section 5): 83 000 segments, 10 Gbps at 100 ms.
pub const DEFAULT_HIGH_WINDOW: f64 = 83_000.0;
/// `High_P` (RFC 3649 Section 5): loss rate sustaining `High_Window`.
pub const DEFAULT_HIGH_P: f64 = 1e-7;
/// `Low_P` (RFC 3649 Section 5): Standard TCP's loss rate at `Low_Window`.
pub const DEFAULT_LOW_P: f64 = 1e-3;
/// `High_Decrease` (RFC 3649 Section 6): `b(High_Window)`.
pub const DEFAULT_HIGH_DECREASE: f64 = 0.1;
/// Standard TCP's decrease factor, `b(Low_Window)` (RFC 3649 Section 6).
const LOW_DECREASE: f64 = 0.5;

/// HighSpeed TCP parameters (RFC 3649). Windows in segments.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HstcpConfig {
    /// Standard TCP at or below this window (`Low_Window`, Section 5). Default 38.
    pub low_window: f64,
    /// Window of the response function's upper anchor (`High_Window`,
    /// Section 5). Default 83 000.
    pub high_window: f64,
    /// Loss rate at `high_window` (`High_P`, Section 5). Default 1e-7.
    pub high_p: f64,
    /// Loss rate at `low_window` (`Low_P`, Section 5). Default 1e-3.
    pub low_p: f64,
    /// Decrease factor `b` at `high_window` (`High_Decrease`, Section 6).
    /// Default 0.1.
    pub high_decrease: f64,
}

impl Default for HstcpConfig {
    fn default() -> Self {
        HstcpConfig {
            low_window: DEFAULT_LOW_WINDOW,
            high_window: DEFAULT_HIGH_WINDOW,
            high_p: DEFAULT_HIGH_P,
            low_p: DEFAULT_LOW_P,
            high_decrease: DEFAULT_HIGH_DECREASE,
        }
    }
}

impl HstcpConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check::positive(&format!("{path}.low_window"), self.low_window)?;
        check::positive(&format!("{path}.high_window"), self.high_window)?;
        if self.high_window <= self.low_window {
            return Err(ConfigError::new(
                format!("{path}.high_window"),
                format!("must be greater than low_window ({}), got {}", self.low_window, self.high_window),
            ));
        }
        check::open_unit(&format!("{path}.low_p"), self.low_p)?;
        check::open_unit(&format!("{path}.high_p"), self.high_p)?;
        if self.high_p >= self.low_p {
            return Err(ConfigError::new(format!("{path}.high_p"), format!("must be less than low_p ({}), got {}", self.low_p, self.high_p)));
        }
        if !(self.high_decrease.is_finite() && self.high_decrease > 0.0 && self.high_decrease <= LOW_DECREASE) {
            return Err(ConfigError::new(format!("{path}.high_decrease"), format!("must lie in (0, 0.5], got {}", self.high_decrease)));
        }
        Ok(())
    }

    /// Decrease factor `b(w)` (Section 6): 0.5 up to `low_window`, then linear
    /// in `log w`, reaching `high_decrease` at `high_window` (and continuing
    /// the line beyond it, floored at zero).
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return LOW_DECREASE;
        }
        let frac = (w.ln() - self.low_window.ln()) / (self.high_window.ln() - self.low_window.ln());
        ((self.high_decrease - LOW_DECREASE) * frac + LOW_DECREASE).max(0.0)
    }

    /// Response function `p(w)` (Section 5, eqs. (1) and (2) solved for p).
    pub fn p(&self, w: f64) -> f64 {
        let slope = (self.high_p / self.low_p).ln() / (self.high_window / self.low_window).ln();
        self.low_p * (w / self.low_window).powf(slope)
    }

    /// Increase `a(w)` in segments per RTT (Section 6): 1 up to `low_window`,
    /// then `w^2 p(w) 2 b(w) / (2 - b(w))`.
    pub fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 1.0;
        }
        let b = self.b(w);
        w * w * self.p(w) * 2.0 * b / (2.0 - b)
    }
}

/// HighSpeed TCP: the parameters only; `a` and `b` are functions of the window.
#[derive(Clone, Debug)]
pub struct Hstcp {
    cfg: HstcpConfig,
}

impl Hstcp {
    pub fn new(cfg: HstcpConfig) -> Hstcp {
        Hstcp { cfg }
    }
}

impl CongestionControl for Hstcp {
    fn name(&self) -> &'static str {
        "hstcp"
    }

    /// `(1 - b(w)) w`, at least 2.
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        let w = f64::from(tp.snd_cwnd);
        // Below w by construction (b > 0), so in u32 range.
        let kept = ((1.0 - self.cfg.b(w)) * w).floor() as u32;
        kept.max(MIN_SSTHRESH)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        let w = f64::from(tp.snd_cwnd);
        if tp.in_slow_start() || w <= self.cfg.low_window {
            reno_cong_avoid(tp, acked);
        } else {
            tp.cong_avoid_by(self.cfg.a(w), acked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;

    /// Rows of RFC 3649 Appendix B (w, a(w), b(w)), as also held in Linux
    /// `tcp_highspeed.c` (b there as md/256 with the RFC's two decimals in comments).
    const APPENDIX_B: [(f64, f64, f64); 6] =
        [(38.0, 1.0, 0.50), (118.0, 2.0, 0.44), (1058.0, 8.0, 0.33), (5036.0, 20.0, 0.25), (19965.0, 41.0, 0.17), (84035.0, 71.0, 0.10)];

    #[test]
    fn defaults_are_rfc_3649s() {
        let c = HstcpConfig::default();
        assert_eq!((c.low_window, c.high_window, c.high_p, c.low_p, c.high_decrease), (38.0, 83_000.0, 1e-7, 1e-3, 0.1));
        assert!(c.validate("flows[0].cc").is_ok());
    }

    #[test]
    fn a_and_b_match_appendix_b() {
        let c = HstcpConfig::default();
        for (w, a, b) in APPENDIX_B {
            // b to the table's two decimals.
            assert!((c.b(w) - b).abs() <= 0.005, "b({w}) = {} vs {b}", c.b(w));
            // a within 2.5 %: the table used the rounded p(w) = 0.078 / w^1.2.
            assert!((c.a(w) - a).abs() <= 0.025 * a + 0.05, "a({w}) = {} vs {a}", c.a(w));
        }
        // Ends: Standard TCP at Low_Window; High_Decrease and High_P at High_Window.
        assert_eq!((c.a(38.0), c.b(38.0)), (1.0, 0.5));
        assert!((c.b(83_000.0) - 0.1).abs() < 1e-12);
        assert!((c.p(83_000.0) - 1e-7).abs() < 1e-19);
        assert!((c.p(38.0) - 1e-3).abs() < 1e-15);
        // a(83000) = 83000^2 * 1e-7 * 0.2 / 1.9 = 72.52.
        assert!((c.a(83_000.0) - 72.516).abs() < 0.001, "{}", c.a(83_000.0));
        // Near w = 1000: a = 7.86, b = 0.330 (table row 1058: 8, 0.33).
        assert!((c.a(1000.0) - 7.860).abs() < 0.001 && (c.b(1000.0) - 0.3299).abs() < 0.0001);
    }

    #[test]
    fn loss_keeps_one_minus_b_of_the_window() {
        let mut cc = Hstcp::new(HstcpConfig::default());
        let mut tp = CcState::new(38, 100_000, 1500);
        assert_eq!(cc.ssthresh(&tp), 19);
        // b(1000) = 0.3299: keep 670.
        tp.snd_cwnd = 1000;
        assert_eq!(cc.ssthresh(&tp), 670);
        tp.snd_cwnd = 83_000;
        assert_eq!(cc.ssthresh(&tp), 74_700);
        tp.snd_cwnd = 3;
        assert_eq!(cc.ssthresh(&tp), 2);
    }

    #[test]
    fn congestion_avoidance_adds_a_of_w_per_window() {
        let mut cc = Hstcp::new(HstcpConfig::default());
        let mut rng = from_seed(1);
        // At 1000 segments a = 7.86: one segment per round(1000 / 7.86) = 127
        // ACKs, so one window of ACKs adds 7 segments (and 1000 mod 127 left over).
        let mut tp = CcState::new(1000, 100_000, 1500);
        tp.snd_ssthresh = 500;
        for _ in 0..1000 {
            cc.cong_avoid(&mut tp, 1, &mut rng);
        }
        assert_eq!(tp.snd_cwnd, 1007);
        // Below Low_Window: Reno, one segment per window.
        let mut tp = CcState::new(30, 100_000, 1500);
        tp.snd_ssthresh = 10;
        for _ in 0..30 {
            cc.cong_avoid(&mut tp, 1, &mut rng);
        }
        assert_eq!(tp.snd_cwnd, 31);
    }

    #[test]
    fn bad_parameters_are_rejected_by_name() {
        let c = HstcpConfig { high_decrease: 0.7, ..HstcpConfig::default() };
        assert_eq!(c.validate("flows[0].cc").unwrap_err().field, "flows[0].cc.high_decrease");
        let c = HstcpConfig { high_window: 30.0, ..HstcpConfig::default() };
        assert_eq!(c.validate("flows[0].cc").unwrap_err().field, "flows[0].cc.high_window");
        let c = HstcpConfig { high_p: 0.01, ..HstcpConfig::default() };
        assert_eq!(c.validate("flows[0].cc").unwrap_err().field, "flows[0].cc.high_p");
    }
}
