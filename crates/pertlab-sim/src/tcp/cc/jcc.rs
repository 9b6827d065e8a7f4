//! Joint Congestion Control, the sender (Hua, MPhil thesis, CUHK 2002,
//! Sections 4.2.2 to 4.2.4, eq. 4.3).
//!
//! What is modelled: the sender probes once per round trip (the sender marks
//! the segment, `tcp::jcc_probe`); each probing ACK brings R, the largest
//! congestion code of the routers on the path (`queue::jcc`), decoded here to
//! a drop probability with the network's `bits` and `max_p`.
//! - Slow start grows by one segment per ACK until a probing ACK carries
//!   R > beta; then `ssthresh = cwnd` (the window is not cut: the thesis says
//!   nothing of a cut there).
//! - Congestion avoidance is AIED, applied once per probing ACK (eq. 4.3):
//!   `cwnd + 1` if R <= alpha, `cwnd * 2^(-(R - alpha)/(beta - alpha))` if
//!   alpha < R < beta, `cwnd / 2` if R >= beta. No growth between probes.
//! - Every detected loss sets beta to the last R echoed, kept within
//!   [alpha + one code step, max_p]: the step so that eq. 4.3 never divides by
//!   zero (before any echo the last R is 0); max_p because the thesis puts
//!   alpha and beta "in the range (0, 2^m - 1)", which leaves out the all-ones
//!   code (probability 1). Without that bound a flow whose last loss came with
//!   an overflowing queue keeps beta = 1, barely yields to R afterwards, and
//!   holds twice the share of flows that started later (four staggered flows:
//!   0.38 against 0.18 Mbit/s each). A lost probe halves the window.
//! - Ordinary losses do not cut the window by default: the thesis tells probe
//!   losses apart from others ("the source records the sequence numbers of the
//!   probing packets") only so that probe losses halve it. The sender's
//!   recovery (retransmission, fast recovery, timeouts with a window of 1) is
//!   kept, a timeout as Reno's (window 1, ssthresh half the window).
//!   `halve_on_loss` gives Reno's halving on every loss instead (the other
//!   reading of the spec's section 3.5 GAP).
//! - AIED acts whenever the window is at or above ssthresh, in every state of
//!   the sender (after a timeout slow start rules until the window is back at
//!   ssthresh). In fast recovery and after a timeout it moves both the window
//!   (the pipe limit) and ssthresh (where recovery ends): the thesis applies
//!   eq. 4.3 on each probing ACK and says nothing of recovery, and with AIED
//!   held outside Open and Disorder a flow that keeps losing packets never
//!   leaves recovery (or, after a timeout whose backed-off timer no RTT sample
//!   resets, the Loss state) and keeps its window under any R: four flows on
//!   1 Mbit/s, seed 2, one flow held 57 segments for 150 s and took 0.84 Mbit/s
//!   while the others timed out (docs/reproductions.md, hua02-jcc).
//!
//! What is left out: JCC for UDP (the thesis's future work); the window is a
//! real number inside the controller and `snd_cwnd` its rounding.

use serde::{Deserialize, Serialize};

use super::{CaEvent, CaState, CcCounters, CcState, CongestionControl, ProbeFeedback, MIN_SSTHRESH};
use crate::error::{check, ConfigError};
use crate::queue::jcc::{check_bits, decode, top_code, DEFAULT_BITS};
use crate::rng::SimRng;
use crate::time::SimTime;

/// alpha of eq. 4.3, a drop probability: 0 (Section 4.2.4, "corresponding to RED's lower threshold").
pub const DEFAULT_ALPHA: f64 = 0.0;
/// RED's max_p in the routers, which the codes are scaled to (eq. 4.4) and
/// beta starts at (Section 4.2.4): the thesis gives no value; ns-2's
/// `linterm_ 10` of its time, 0.1 (spec section 6.2).
pub const DEFAULT_MAX_P: f64 = 0.1;

/// JCC sender parameters; probabilities in [0, 1].
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct JccConfig {
    /// alpha, below `max_p`: at or below it the window grows by one per RTT (eq. 4.3). Default 0;
    /// the thesis's sensitivity runs use 0.02 too (Table 4.1).
    pub alpha: f64,
    /// Initial beta, in (alpha, max_p]; unset: `max_p` (Section 4.2.4). Reset to the last R on every loss.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    /// The routers' RED max_p, to decode R (must match the routers' `1 / l_interm`). Default 0.1.
    pub max_p: f64,
    /// m, the bits of R (must match the routers'), 1..=16. Default 8.
    pub bits: u8,
    /// Halve the window on every loss as Reno does (default false: only lost probes halve it).
    pub halve_on_loss: bool,
}

impl Default for JccConfig {
    fn default() -> Self {
        JccConfig { alpha: DEFAULT_ALPHA, beta: None, max_p: DEFAULT_MAX_P, bits: DEFAULT_BITS, halve_on_loss: false }
    }
}

impl JccConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check_bits(self.bits, &format!("{path}.bits"))?;
        let max_p = format!("{path}.max_p");
        check::positive(&max_p, self.max_p)?;
        check::in_range(&max_p, self.max_p, 0.0, 1.0)?;
        if !(self.alpha.is_finite() && self.alpha >= 0.0 && self.alpha < self.max_p) {
            return Err(ConfigError::new(format!("{path}.alpha"), format!("must lie in [0, max_p = {}), got {}", self.max_p, self.alpha)));
        }
        match self.beta {
            Some(b) if !(b.is_finite() && b > self.alpha && b <= self.max_p) => {
                Err(ConfigError::new(format!("{path}.beta"), format!("must lie in (alpha = {}, max_p = {}], got {b}", self.alpha, self.max_p)))
            }
            _ => Ok(()),
        }
    }

    /// One code step in probability: the least gap kept between beta and alpha.
    fn step(&self) -> f64 {
        decode(1, self.bits, self.max_p).min(1.0)
    }

    /// beta kept within [alpha + one step, max_p] (module doc).
    fn bound_beta(&self, beta: f64) -> f64 {
        beta.min(self.max_p).max(self.alpha + self.step())
    }
}

/// The decrease ratio of eq. 4.3's middle branch, `2^(-(R - alpha)/(beta - alpha))`:
/// 1 at R = alpha, 1/2 at R = beta (Fig 4.2's reduction ratio).
pub fn aied_ratio(r: f64, alpha: f64, beta: f64) -> f64 {
    (-std::f64::consts::LN_2 * (r - alpha) / (beta - alpha)).exp()
}

/// Eq. 4.3: the window after a probing ACK with R = `r`.
pub fn aied(cwnd: f64, r: f64, alpha: f64, beta: f64) -> f64 {
    if r <= alpha {
        cwnd + 1.0
    } else if r < beta {
        cwnd * aied_ratio(r, alpha, beta)
    } else {
        cwnd / 2.0
    }
}

#[derive(Clone, Debug)]
pub struct Jcc {
    cfg: JccConfig,
    beta: f64,
    /// The last R echoed (probability).
    last_r: f64,
    /// The window as a real number; `snd_cwnd` is its rounding.
    cwnd: f64,
    counters: CcCounters,
}

impl Jcc {
    pub fn new(cfg: JccConfig) -> Jcc {
        let beta = cfg.bound_beta(cfg.beta.unwrap_or(cfg.max_p));
        Jcc { cfg, beta, last_r: 0.0, cwnd: 0.0, counters: CcCounters::default() }
    }

    /// Current beta (probability).
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The last R echoed (probability).
    pub fn last_r(&self) -> f64 {
        self.last_r
    }

    /// The real-valued window, taken afresh from `snd_cwnd` when the sender changed it.
    fn window(&mut self, tp: &CcState) -> f64 {
        if self.cwnd.round() as u32 != tp.snd_cwnd {
            self.cwnd = f64::from(tp.snd_cwnd);
        }
        self.cwnd
    }

    fn set_window(&mut self, tp: &mut CcState, w: f64) {
        self.cwnd = w.clamp(1.0, f64::from(tp.snd_cwnd_clamp.max(1)));
        tp.snd_cwnd = self.cwnd.round() as u32;
        tp.snd_cwnd_cnt = 0;
    }

    /// Stay in congestion avoidance after a change of window.
    fn hold_ssthresh(tp: &mut CcState) {
        tp.snd_ssthresh = tp.snd_cwnd.max(MIN_SSTHRESH);
    }

    fn on_echo(&mut self, tp: &mut CcState, code: u16) {
        self.last_r = decode(code.min(top_code(self.cfg.bits)), self.cfg.bits, self.cfg.max_p);
        self.counters.probe_echoes += 1;
        self.counters.r_sum += self.last_r;
        if tp.in_slow_start() {
            if self.last_r > self.beta {
                tp.snd_ssthresh = tp.snd_cwnd.max(MIN_SSTHRESH);
            }
            return;
        }
        let w = self.window(tp);
        let next = aied(w, self.last_r, self.cfg.alpha, self.beta);
        if next < w {
            self.counters.early_responses += 1;
        }
        self.set_window(tp, next);
        Self::hold_ssthresh(tp);
    }
}

impl CongestionControl for Jcc {
    fn name(&self) -> &'static str {
        "jcc"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.cwnd = f64::from(tp.snd_cwnd);
    }

    /// A loss: beta becomes the last R (guarded); the window is kept unless `halve_on_loss`.
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        self.beta = self.cfg.bound_beta(self.last_r);
        if self.cfg.halve_on_loss {
            super::reno::reno_ssthresh(tp)
        } else {
            tp.snd_cwnd.max(MIN_SSTHRESH)
        }
    }

    /// A timeout is Reno's (the thesis keeps TCP's timeouts): ssthresh is half the
    /// window the loss found (the sender has set cwnd to 1); held on a repeated
    /// timeout, as the sender holds it (the event comes before the state turns Loss).
    fn cwnd_event(&mut self, tp: &mut CcState, ev: CaEvent) {
        if ev == CaEvent::Loss && tp.ca_state != CaState::Loss && !self.cfg.halve_on_loss {
            tp.snd_ssthresh = (tp.snd_ssthresh / 2).max(MIN_SSTHRESH);
        }
    }

    /// Slow start only: in congestion avoidance the window moves on probing ACKs.
    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        if tp.in_slow_start() {
            tp.slow_start(acked);
            self.cwnd = f64::from(tp.snd_cwnd);
        }
    }

    fn probes(&self) -> bool {
        true
    }

    fn on_probe(&mut self, tp: &mut CcState, feedback: ProbeFeedback) {
        match feedback {
            ProbeFeedback::Echo(code) => self.on_echo(tp, code),
            ProbeFeedback::Lost => {
                let w = self.window(tp);
                self.set_window(tp, w / 2.0);
                Self::hold_ssthresh(tp);
                self.counters.early_responses += 1;
            }
        }
    }

    fn counters(&self, _now: SimTime) -> CcCounters {
        self.counters
    }

    fn path_r(&self) -> Option<f64> {
        Some(self.last_r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ca(cwnd: u32) -> CcState {
        let mut tp = CcState::new(cwnd, 1000, 1000);
        tp.snd_ssthresh = cwnd;
        tp
    }

    /// The code of probability `p` at m = 8, max_p = 0.1 (p a multiple of 0.1 / 254).
    fn code(p: f64) -> u16 {
        (p / 0.1 * 254.0).round() as u16
    }

    #[test]
    fn the_aied_ratio_is_one_at_alpha_and_one_half_at_beta() {
        for (alpha, beta) in [(0.0, 0.1), (0.02, 0.05), (0.3, 0.9)] {
            assert_eq!(aied_ratio(alpha, alpha, beta), 1.0);
            assert!((aied_ratio(beta, alpha, beta) - 0.5).abs() < 1e-15);
            // Continuous with both neighbours: just above alpha almost no cut, just below beta almost half.
            assert!((aied(10.0, alpha + 1e-9, alpha, beta) - 10.0).abs() < 1e-6);
            assert!((aied(10.0, beta - 1e-9, alpha, beta) - 5.0).abs() < 1e-6);
            assert_eq!(aied(10.0, alpha, alpha, beta), 11.0);
            assert_eq!(aied(10.0, beta, alpha, beta), 5.0);
        }
        assert!((aied_ratio(0.05, 0.0, 0.1) - 0.5f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn probing_acks_drive_the_window_by_eq_4_3() {
        let mut j = Jcc::new(JccConfig::default());
        let mut tp = ca(20);
        j.init(&mut tp);
        j.on_probe(&mut tp, ProbeFeedback::Echo(0));
        assert_eq!(tp.snd_cwnd, 21);
        // R = max_p / 2 with beta = max_p: x 2^-1/2.
        j.on_probe(&mut tp, ProbeFeedback::Echo(127));
        assert_eq!(tp.snd_cwnd, (21.0 * 0.5f64.sqrt()).round() as u32);
        j.on_probe(&mut tp, ProbeFeedback::Echo(254));
        assert_eq!(tp.snd_cwnd, (21.0 * 0.5f64.sqrt() / 2.0).round() as u32);
        assert_eq!(j.counters(0).early_responses, 2);
        // Every echo is counted with its R (Table 4.1's mean R): 0, max_p * 127/254, max_p.
        assert_eq!(j.counters(0).probe_echoes, 3);
        assert!((j.counters(0).r_sum - 0.15).abs() < 1e-12);
        assert_eq!(j.path_r(), Some(0.1));
        // No growth on ordinary ACKs in congestion avoidance.
        j.cong_avoid(&mut tp, 5, &mut crate::rng::from_seed(1));
        assert_eq!(tp.snd_cwnd, 7);
    }

    #[test]
    fn slow_start_ends_when_r_exceeds_beta_without_a_cut() {
        let mut j = Jcc::new(JccConfig { beta: Some(0.05), ..JccConfig::default() });
        let mut tp = CcState::new(2, 1000, 1000);
        j.init(&mut tp);
        j.cong_avoid(&mut tp, 6, &mut crate::rng::from_seed(1));
        assert_eq!(tp.snd_cwnd, 8);
        j.on_probe(&mut tp, ProbeFeedback::Echo(code(0.05)));
        assert!(tp.in_slow_start(), "R = beta does not end slow start");
        j.on_probe(&mut tp, ProbeFeedback::Echo(code(0.05) + 1));
        assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (8, 8));
        assert!(!tp.in_slow_start());
    }

    #[test]
    fn a_loss_sets_beta_to_the_last_r_and_a_lost_probe_halves_the_window() {
        let mut j = Jcc::new(JccConfig::default());
        let mut tp = ca(16);
        j.init(&mut tp);
        j.on_probe(&mut tp, ProbeFeedback::Echo(code(0.02)));
        let w = tp.snd_cwnd;
        assert_eq!(j.ssthresh(&tp), w, "an ordinary loss keeps the window");
        assert!((j.beta() - code(0.02) as f64 / 254.0 * 0.1).abs() < 1e-12);
        // Now R = 0.02 is beta: a halving of the real window 16 x 2^-(0.02/0.1), then a lost probe halves it again.
        let real = 16.0 * aied_ratio(code(0.02) as f64 / 254.0 * 0.1, 0.0, 0.1);
        assert_eq!(w, real.round() as u32);
        j.on_probe(&mut tp, ProbeFeedback::Echo(code(0.02)));
        assert_eq!(tp.snd_cwnd, (real / 2.0).round() as u32);
        j.on_probe(&mut tp, ProbeFeedback::Lost);
        assert_eq!(tp.snd_cwnd, (real / 4.0).round() as u32);
        // Loss before any echo: beta is guarded one code step above alpha.
        let mut fresh = Jcc::new(JccConfig::default());
        fresh.on_probe(&mut ca(4), ProbeFeedback::Echo(top_code(8)));
        fresh.ssthresh(&ca(4));
        assert_eq!(fresh.beta(), 0.1, "R = 1 (the all-ones code) leaves beta at max_p");
        let mut fresh = Jcc::new(JccConfig::default());
        fresh.ssthresh(&ca(4));
        assert!((fresh.beta() - 0.1 / 254.0).abs() < 1e-15);
        // Reno's reading halves on every loss.
        let mut reno_like = Jcc::new(JccConfig { halve_on_loss: true, ..JccConfig::default() });
        assert_eq!(reno_like.ssthresh(&ca(16)), 8);
    }

    #[test]
    fn aied_acts_in_recovery_and_after_a_timeout_once_the_window_is_at_ssthresh() {
        let mut j = Jcc::new(JccConfig::default());
        let mut tp = ca(40);
        j.init(&mut tp);
        j.on_probe(&mut tp, ProbeFeedback::Echo(code(0.08)));
        // An ordinary loss keeps the window (and sets beta to R = 0.08): recovery starts with ssthresh = cwnd.
        tp.snd_ssthresh = j.ssthresh(&tp);
        let w = f64::from(tp.snd_cwnd);
        tp.ca_state = CaState::Recovery;
        j.on_probe(&mut tp, ProbeFeedback::Echo(code(0.04)));
        let cut = aied(w, code(0.04) as f64 / 254.0 * 0.1, 0.0, j.beta()).round() as u32;
        assert!(f64::from(cut) < w * 0.8 && (tp.snd_cwnd, tp.snd_ssthresh) == (cut, cut), "{} {} {cut}", tp.snd_cwnd, tp.snd_ssthresh);
        // After a timeout (Loss, window 1) slow start rules: no AIED...
        let mut tp = ca(1);
        tp.snd_ssthresh = 10;
        tp.ca_state = CaState::Loss;
        j.on_probe(&mut tp, ProbeFeedback::Echo(code(0.05)));
        assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (1, 10));
        // ... until the window is back at ssthresh, still in Loss: then AIED cuts both.
        tp.snd_cwnd = 10;
        j.on_probe(&mut tp, ProbeFeedback::Echo(code(0.05)));
        assert!(tp.snd_cwnd < 10 && tp.snd_ssthresh == tp.snd_cwnd.max(MIN_SSTHRESH), "{} {}", tp.snd_cwnd, tp.snd_ssthresh);
    }

    #[test]
    fn a_timeout_halves_ssthresh_once_as_reno() {
        let mut j = Jcc::new(JccConfig::default());
        let mut tp = ca(20);
        tp.snd_ssthresh = j.ssthresh(&tp);
        j.cwnd_event(&mut tp, CaEvent::Loss);
        assert_eq!(tp.snd_ssthresh, 10);
        // A second timeout of the same data (already in Loss) holds it.
        tp.ca_state = CaState::Loss;
        j.cwnd_event(&mut tp, CaEvent::Loss);
        assert_eq!(tp.snd_ssthresh, 10);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let bad = [
            (JccConfig { bits: 0, ..JccConfig::default() }, "f.cc.bits"),
            (JccConfig { bits: 17, ..JccConfig::default() }, "f.cc.bits"),
            (JccConfig { max_p: 0.0, ..JccConfig::default() }, "f.cc.max_p"),
            (JccConfig { alpha: -0.1, ..JccConfig::default() }, "f.cc.alpha"),
            (JccConfig { alpha: 0.05, beta: Some(0.05), ..JccConfig::default() }, "f.cc.beta"),
            (JccConfig { beta: Some(0.2), ..JccConfig::default() }, "f.cc.beta"),
            (JccConfig { alpha: 0.1, ..JccConfig::default() }, "f.cc.alpha"),
        ];
        for (cfg, field) in bad {
            assert_eq!(cfg.validate("f.cc").unwrap_err().field, field);
        }
        assert!(JccConfig::default().validate("f.cc").is_ok());
    }
}
