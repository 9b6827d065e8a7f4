//! TCP Surathkal (Tahiliani 2013, Ch. 4.3): Reno's slow start, additive
//! increase and loss recovery, with a multiplicative decrease sized by the
//! fraction of packets marked in the last round trip, read from XECN feedback.
//!
//! What is modelled:
//! - Additive increase `cwnd += 1 / cwnd` per ACK (Eq. 4.3.1), through
//!   Linux's segment counting ([`reno_cong_avoid`]); slow start as Reno.
//! - Decrease once per window, at the first marked ACK (the sender's CWR rule,
//!   RFC 3168 6.1.2): `cwnd *= 1 - alpha / 2` (Eq. 4.3.2), with `alpha` = marks
//!   counted in a window / packets acknowledged in it (Eq. 4.3.3), the marks
//!   being XECN's Counter (`tcp::ecn_feedback`). `ssthresh` = the new window
//!   (spec 1.11 (c)). The rounding is [`alpha_reduction`]'s.
//! - When `alpha` is taken ([`AlphaTiming`], spec 1.11 (a)): `previous_window`
//!   (Option A, default) applies the alpha of the last completed window at the
//!   first mark; `end_of_window` (Option B) enters CWR at the first mark and
//!   applies the reduction when that window ends, with that window's alpha.
//! - The response to loss ([`LossResponse`], spec 1.11 (b)): `halve` (default:
//!   Reno's halving on three duplicate ACKs or SACK loss detection) or
//!   `xecn_only` (a loss repaired by fast recovery leaves the window; only XECN
//!   reduces it). A retransmission timeout sets cwnd = 1 in both (the sender's
//!   RFC 5681 3.1 rule); with `xecn_only` ssthresh stays at the window then.
//!
//! Left out: footnote 3's per-AQM modification of Eq. 4.3.3 (not specified
//! in the thesis); the fluid model of Ch. 5. With `rfc3168` feedback each ECE
//! ACK counts as one mark (an RFC 3168 receiver echoes one CE for a whole
//! round trip), so alpha overestimates; the thesis pairs Surathkal with XECN.

use super::reno::{reno_cong_avoid, reno_ssthresh};
use super::{alpha_reduction, AckEvent, CaState, CcState, CongestionControl};
use crate::rng::SimRng;
use serde::{Deserialize, Serialize};

/// When Eq. 4.3.3's alpha is taken relative to the reduction (spec 1.11 (a)).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AlphaTiming {
    /// Option A: at the first marked ACK, the alpha of the last completed window.
    #[default]
    PreviousWindow,
    /// Option B: CWR at the first marked ACK, the reduction when that window
    /// ends, with its own alpha.
    EndOfWindow,
}

/// Response to a loss detected by duplicate ACKs or SACK (spec 1.11 (b)).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LossResponse {
    /// Halve, as the Sack1 sender the thesis retained.
    #[default]
    Halve,
    /// Keep the window: congestion is learnt from XECN only (the thesis's
    /// wireless reading: Surathkal "does not react to packet losses due to
    /// the channel error").
    XecnOnly,
}

/// TCP Surathkal's options (the thesis states no numeric parameters).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct SurathkalConfig {
    pub alpha_timing: AlphaTiming,
    pub loss_response: LossResponse,
}

#[derive(Clone, Debug)]
pub struct Surathkal {
    cfg: SurathkalConfig,
    /// Alpha of the last completed window (Eq. 4.3.3).
    alpha: f64,
    /// Option B: the window of the first mark has not ended yet.
    pending: bool,
    /// The current ACK completed a window (set in `in_ack_event`, read by
    /// `ecn_ssthresh` on the same ACK).
    window_just_ended: bool,
}

impl Surathkal {
    pub fn new(cfg: SurathkalConfig) -> Surathkal {
        Surathkal { cfg, alpha: 0.0, pending: false, window_just_ended: false }
    }

    /// Alpha of the last completed window.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Surathkal {
    fn name(&self) -> &'static str {
        "surathkal"
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        match self.cfg.loss_response {
            LossResponse::Halve => reno_ssthresh(tp),
            LossResponse::XecnOnly => tp.snd_cwnd.max(super::MIN_SSTHRESH),
        }
    }

    fn ecn_ssthresh(&mut self, tp: &CcState) -> u32 {
        match self.cfg.alpha_timing {
            AlphaTiming::PreviousWindow => alpha_reduction(tp.snd_cwnd, self.alpha),
            // The mark's window just ended on this ACK: its alpha is known.
            AlphaTiming::EndOfWindow if self.window_just_ended => alpha_reduction(tp.snd_cwnd, self.alpha),
            AlphaTiming::EndOfWindow => {
                self.pending = true;
                tp.snd_cwnd
            }
        }
    }

    fn in_ack_event(&mut self, tp: &mut CcState, ev: &AckEvent) {
        self.window_just_ended = false;
        let Some(w) = ev.window else { return };
        self.window_just_ended = true;
        self.alpha = w.marked_fraction();
        // A loss since the mark made this window's reduction already.
        let in_loss = matches!(tp.ca_state, CaState::Recovery | CaState::Loss);
        if std::mem::take(&mut self.pending) && !in_loss {
            let cwnd = alpha_reduction(tp.snd_cwnd, self.alpha);
            tp.snd_cwnd = cwnd.min(tp.snd_cwnd);
            tp.snd_ssthresh = cwnd;
            tp.snd_cwnd_cnt = 0;
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        reno_cong_avoid(tp, acked);
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
    fn reduction_for_alpha_zero_half_and_one() {
        // A window of 100 segments with 0, 50 and 100 marks: cwnd 100 -> 100, 75, 50.
        for (marks, kept) in [(0, 100), (50, 75), (100, 50)] {
            let mut cc = Surathkal::new(SurathkalConfig::default());
            let mut tp = CcState::new(100, 10_000, 1500);
            cc.in_ack_event(&mut tp, &window(marks, 100));
            assert_eq!(cc.alpha(), f64::from(marks) / 100.0);
            cc.in_ack_event(&mut tp, &AckEvent::default());
            assert_eq!(cc.ecn_ssthresh(&tp), kept, "alpha {}", cc.alpha());
        }
        // More marks than packets (inferred lost ACKs) is alpha = 1.
        let mut cc = Surathkal::new(SurathkalConfig::default());
        let mut tp = CcState::new(100, 10_000, 1500);
        cc.in_ack_event(&mut tp, &window(130, 100));
        assert_eq!((cc.alpha(), cc.ecn_ssthresh(&tp)), (1.0, 50));
        // Rounding: 10 * (1 - 0.25) = 7.5 keeps 8 (cwnd less the whole part of 2.5).
        tp.snd_cwnd = 10;
        cc.in_ack_event(&mut tp, &window(1, 2));
        assert_eq!(cc.ecn_ssthresh(&tp), 8);
    }

    #[test]
    fn end_of_window_timing_reduces_when_the_marked_window_ends() {
        let cfg = SurathkalConfig { alpha_timing: AlphaTiming::EndOfWindow, ..SurathkalConfig::default() };
        let mut cc = Surathkal::new(cfg);
        let mut tp = CcState::new(80, 10_000, 1500);
        // Previous window unmarked; the first mark of this one: no reduction yet.
        cc.in_ack_event(&mut tp, &window(0, 80));
        cc.in_ack_event(&mut tp, &AckEvent { marks: 1, ece: true, acked: 1, window: None });
        assert_eq!(cc.ecn_ssthresh(&tp), 80);
        // The window ends with 20 marks of 80 packets: alpha 0.25, 80 -> 70.
        cc.in_ack_event(&mut tp, &window(20, 80));
        assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (70, 70));
        // Nothing pending afterwards.
        cc.in_ack_event(&mut tp, &window(80, 80));
        assert_eq!(tp.snd_cwnd, 70);
        // Option A on the same sequence reduces at the mark with the previous alpha (0).
        let mut cc = Surathkal::new(SurathkalConfig::default());
        let mut tp = CcState::new(80, 10_000, 1500);
        cc.in_ack_event(&mut tp, &window(0, 80));
        cc.in_ack_event(&mut tp, &AckEvent::default());
        assert_eq!(cc.ecn_ssthresh(&tp), 80);
    }

    #[test]
    fn loss_response_halves_or_keeps_the_window() {
        let tp = CcState::new(64, 10_000, 1500);
        assert_eq!(Surathkal::new(SurathkalConfig::default()).ssthresh(&tp), 32);
        let cfg = SurathkalConfig { loss_response: LossResponse::XecnOnly, ..SurathkalConfig::default() };
        assert_eq!(Surathkal::new(cfg).ssthresh(&tp), 64);
    }
}
