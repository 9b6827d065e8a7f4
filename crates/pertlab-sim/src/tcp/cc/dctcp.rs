//! DCTCP (RFC 8257, October 2017), sender side: the fraction of CE-marked
//! segments per window of data, smoothed into `alpha`, sizes the window
//! reduction on ECN-Echo.
//!
//! What is modelled (RFC 8257 Section 3.3): per window of data (it ends when
//! `snd_una` passes `snd_nxt` as it was when the window began),
//! `F = DCTCP.BytesMarked / DCTCP.BytesAcked` (counted in segments: ACKs with
//! ECE report their newly delivered segments as marked, `tcp::ecn_feedback`
//! `dctcp`), then `alpha = (1 - g) alpha + g F`. On ECN-Echo, once per window
//! (the sender's CWR rule), `cwnd = cwnd (1 - alpha / 2)` as Linux
//! `dctcp_ssthresh` rounds it ([`alpha_reduction`]). Loss is answered as
//! conventional TCP (Section 3.5: Reno's halving). Growth is Reno's.
//! Retransmissions are ECN-capable, as Linux sends them for DCTCP
//! (`TCP_CONG_NEEDS_ECN`; RFC 3168 6.1.5 would send them Not-ECT), so an
//! AQM marks them where it would drop a Not-ECT packet.
//!
//! The receiver's half (ECE exactly on the ACKs of CE segments, immediate ACK
//! on a change of CE state) is the `dctcp` feedback of the TCP options; the
//! switch's half is step marking on the instantaneous queue
//! (`QueueSpec::mark_threshold_pkts`). Left out: Linux's `dctcp_clamp_alpha_on_loss`
//! and the reaction to an ECE while cwnd is one segment (RFC 8257 3.4, RFC 3168).

use super::reno::{reno_cong_avoid, reno_ssthresh};
use super::{alpha_reduction, AckEvent, CcState, CongestionControl};
use crate::error::{check, ConfigError};
use crate::rng::SimRng;
use crate::scenario::CcSpec;
use serde::{Deserialize, Serialize};

/// `g`, the weight of a window's marked fraction (RFC 8257 Section 4.2: 1/16).
pub const DEFAULT_G: f64 = 1.0 / 16.0;
/// Alpha at the start (Linux `dctcp_alpha_on_init` = 1024 of 1024: the first
/// congestion halves the window, as conventional TCP).
pub const DEFAULT_INIT_ALPHA: f64 = 1.0;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpConfig {
    /// EWMA weight `g` (RFC 8257 4.2), in (0, 1]. Default 1/16.
    pub g: f64,
    /// Alpha before the first window completes, in [0, 1]. Default 1.
    pub init_alpha: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig { g: DEFAULT_G, init_alpha: DEFAULT_INIT_ALPHA }
    }
}

impl DctcpConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        if !(self.g.is_finite() && self.g > 0.0 && self.g <= 1.0) {
            return Err(ConfigError::new(format!("{path}.g"), format!("must lie in (0, 1], got {}", self.g)));
        }
        check::in_range(&format!("{path}.init_alpha"), self.init_alpha, 0.0, 1.0)
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    g: f64,
    alpha: f64,
}

impl Dctcp {
    pub fn new(cfg: DctcpConfig) -> Dctcp {
        Dctcp { g: cfg.g, alpha: cfg.init_alpha }
    }

    /// DCTCP.Alpha.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }

    fn ecn_ssthresh(&mut self, tp: &CcState) -> u32 {
        alpha_reduction(tp.snd_cwnd, self.alpha)
    }

    fn in_ack_event(&mut self, _tp: &mut CcState, ev: &AckEvent) {
        if let Some(w) = ev.window {
            self.alpha = (1.0 - self.g) * self.alpha + self.g * w.marked_fraction();
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        reno_cong_avoid(tp, acked);
    }

    fn needs_ecn(&self) -> bool {
        true
    }

    /// `g` weighs the next window's marked fraction; alpha goes on from where it is.
    fn set_params(&mut self, spec: &CcSpec) {
        if let CcSpec::Dctcp(cfg) = spec {
            self.g = cfg.g;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::WindowSummary;

    fn window(marks: u32, acked: u32) -> AckEvent {
        AckEvent { acked: 1, ece: false, marks: 0, window: Some(WindowSummary { marks, acked }) }
    }

    #[test]
    fn alpha_follows_the_ewma_of_rfc8257() {
        let mut cc = Dctcp::new(DctcpConfig::default());
        let mut tp = CcState::new(100, 10_000, 1500);
        assert_eq!(cc.alpha(), 1.0);
        // Windows with marked fractions 0, 0, 0.5, 1, 0.25 (by hand: a <- 15/16 a + F/16).
        let mut expect = 1.0f64;
        for (marks, acked) in [(0, 10), (0, 20), (10, 20), (20, 20), (5, 20)] {
            cc.in_ack_event(&mut tp, &window(marks, acked));
            expect = expect * 15.0 / 16.0 + f64::from(marks) / f64::from(acked) / 16.0;
        }
        // 1 -> 0.9375 -> 0.87890625 -> 0.855224609 -> 0.864273071 -> 0.825881004
        assert!((cc.alpha() - 0.825_881_004).abs() < 1e-9, "{}", cc.alpha());
        assert!((cc.alpha() - expect).abs() < 1e-15);
        // ACKs that end no window leave alpha alone.
        cc.in_ack_event(&mut tp, &AckEvent { acked: 1, ece: true, marks: 1, window: None });
        assert!((cc.alpha() - expect).abs() < 1e-15);
        // ECE response: 100 (1 - 0.8259 / 2) = 58.7: keeps 59; loss halves.
        assert_eq!(cc.ecn_ssthresh(&tp), 59);
        assert_eq!(cc.ssthresh(&tp), 50);
        // 64 unmarked windows: alpha = 0.8259 (15/16)^64 = 0.0134.
        for _ in 0..64 {
            cc.in_ack_event(&mut tp, &window(0, 100));
        }
        assert!((cc.alpha() - expect * (15.0f64 / 16.0).powi(64)).abs() < 1e-12);
        assert_eq!(cc.ecn_ssthresh(&tp), 100);
    }

    #[test]
    fn bad_parameters_are_rejected_by_name() {
        let c = DctcpConfig { g: 0.0, ..DctcpConfig::default() };
        assert_eq!(c.validate("flows[0].cc").unwrap_err().field, "flows[0].cc.g");
        let c = DctcpConfig { init_alpha: 1.5, ..DctcpConfig::default() };
        assert_eq!(c.validate("flows[0].cc").unwrap_err().field, "flows[0].cc.init_alpha");
    }
}
