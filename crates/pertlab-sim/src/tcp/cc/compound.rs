//! Compound TCP (Tan, Song, Zhang, Sridharan, "A Compound TCP Approach for
//! High-Speed and Long Distance Networks", IEEE INFOCOM 2006, Section 3).
//!
//! What is modelled:
//! - The sending window is `win = cwnd + dwnd`: a loss-based component `cwnd`
//!   (Reno's) plus a delay-based component `dwnd`. Both are kept as real
//!   numbers here, and the window the sender uses is `snd_cwnd = floor(cwnd +
//!   dwnd)` (clamped to the receiver window). When the sender changes
//!   `snd_cwnd` itself (the window it sets after recovery, a timeout) the
//!   split is recomputed: `dwnd` keeps what fits, `cwnd` gets the rest.
//! - Slow start is standard and `dwnd` is zero in it (Section 3: the delay
//!   component works in congestion avoidance only).
//! - In congestion avoidance `cwnd` grows by `1 / win` per ACKed segment
//!   (Section 3.1), and once per RTT (when `snd_una` passes the `snd_nxt` of
//!   the RTT's start, as Linux Vegas counts rounds) `dwnd` is updated from
//!   `diff = win (1 - baseRTT / RTT)` (Section 3.2), the packets queued:
//!   `dwnd += max(alpha win^k - 1, 0)` if `diff < gamma`, else
//!   `dwnd = max(dwnd - zeta diff, 0)`.
//! - Loss (Section 3.2): `cwnd = cwnd / 2` and `dwnd = max(win (1 - beta) -
//!   cwnd / 2, 0)`, so `ssthresh = win (1 - beta)` when `dwnd > 0` (at least 2).
//!   A retransmission timeout also clears `dwnd` (the window restarts from one
//!   segment in slow start).
//! - `baseRTT` is the minimum RTT sample ever; `RTT` of a round is the mean
//!   of the RTT samples taken in it (CHOICE: the paper says only "the
//!   transmission delay"; the mean is the smoothed value per round). A round
//!   without samples leaves `dwnd` unchanged.
//!
//! Left out: the Windows implementation's low-window threshold below which
//! `dwnd` stays zero (draft-sridharan-tcpm-ctcp), the gamma auto-tuning of
//! later work (TUBE), and any undo of reductions.

use super::rtt_round::RttRound;
use super::{AckSample, CaEvent, CcState, CongestionControl, MIN_SSTHRESH};
use crate::error::{check, ConfigError};
use crate::rng::SimRng;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// `alpha` (Section 3.2): scale of the delay component's increase.
pub const DEFAULT_ALPHA: f64 = 0.125;
/// `beta` (Section 3.2): multiplicative decrease of `win` on loss.
pub const DEFAULT_BETA: f64 = 0.5;
/// `k` (Section 3.2): exponent of the increase `alpha win^k`, chosen to match
/// HighSpeed TCP's aggressiveness.
pub const DEFAULT_K: f64 = 0.75;
/// `gamma` (Section 3.2): packets queued above which `dwnd` shrinks.
pub const DEFAULT_GAMMA: f64 = 30.0;
/// `zeta` (Section 3.2): how fast `dwnd` shrinks per packet of `diff` above gamma.
pub const DEFAULT_ZETA: f64 = 1.0;
/// The loss-based component halves on loss, as Reno's (Section 3.1).
const RENO_DECREASE: f64 = 0.5;

/// Compound TCP parameters (Section 3.2). Windows in packets.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CompoundConfig {
    /// Scale of the delay component's increase, `alpha` (Section 3.2). Default 1/8.
    pub alpha: f64,
    /// Decrease of the whole window on loss, `beta` (Section 3.2). Default 1/2.
    pub beta: f64,
    /// Exponent of the increase, `k` (Section 3.2). Default 0.75.
    pub k: f64,
    /// Queued packets at which the delay component backs off, `gamma`
    /// (Section 3.2). Default 30.
    pub gamma: f64,
    /// Back-off per packet of `diff`, `zeta` (Section 3.2). Default 1.
    pub zeta: f64,
}

impl Default for CompoundConfig {
    fn default() -> Self {
        CompoundConfig { alpha: DEFAULT_ALPHA, beta: DEFAULT_BETA, k: DEFAULT_K, gamma: DEFAULT_GAMMA, zeta: DEFAULT_ZETA }
    }
}

impl CompoundConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check::positive(&format!("{path}.alpha"), self.alpha)?;
        check::open_unit(&format!("{path}.beta"), self.beta)?;
        check::in_range(&format!("{path}.k"), self.k, 0.0, 1.0)?;
        check::positive(&format!("{path}.gamma"), self.gamma)?;
        check::positive(&format!("{path}.zeta"), self.zeta)?;
        Ok(())
    }

    /// One per-RTT update of the delay component (Section 3.2), given the
    /// window `win` and the packets queued `diff`.
    pub fn next_dwnd(&self, dwnd: f64, win: f64, diff: f64) -> f64 {
        if diff < self.gamma {
            dwnd + (self.alpha * win.powf(self.k) - 1.0).max(0.0)
        } else {
            (dwnd - self.zeta * diff).max(0.0)
        }
    }
}

/// Compound TCP state.
#[derive(Clone, Debug)]
pub struct Compound {
    cfg: CompoundConfig,
    /// Loss-based component `cwnd`, packets.
    cwnd: f64,
    /// Delay-based component `dwnd`, packets.
    dwnd: f64,
    /// `snd_cwnd` as this controller last set it; anything else was the sender's doing.
    exported: u32,
    /// The current RTT and its samples.
    round: RttRound,
    /// Smallest RTT sample ever (`baseRTT`); `None` before the first.
    base_rtt: Option<SimTime>,
}

impl Compound {
    pub fn new(cfg: CompoundConfig) -> Compound {
        Compound { cfg, cwnd: 0.0, dwnd: 0.0, exported: 0, round: RttRound::default(), base_rtt: None }
    }

    /// The delay-based component, packets.
    pub fn dwnd(&self) -> f64 {
        self.dwnd
    }

    /// The loss-based component, packets.
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    /// Take over a window the sender set: `dwnd` keeps what fits.
    fn sync(&mut self, tp: &CcState) {
        if tp.snd_cwnd != self.exported {
            let win = f64::from(tp.snd_cwnd);
            self.dwnd = self.dwnd.min(win);
            self.cwnd = win - self.dwnd;
            self.exported = tp.snd_cwnd;
        }
    }

    fn export(&mut self, tp: &mut CcState) {
        let win = (self.cwnd + self.dwnd).floor().clamp(1.0, f64::from(tp.snd_cwnd_clamp.max(1)));
        // In u32 range by the clamp.
        tp.snd_cwnd = win as u32;
        self.exported = tp.snd_cwnd;
    }

    /// The once-per-RTT update of `dwnd`.
    fn end_of_round(&mut self, tp: &CcState) {
        if let (Some(base), Some(rtt)) = (self.base_rtt, self.round.mean()) {
            let win = self.cwnd + self.dwnd;
            let diff = win * (1.0 - base as f64 / rtt);
            self.dwnd = self.cfg.next_dwnd(self.dwnd, win, diff);
        }
        self.round.begin(tp.snd_nxt);
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.cwnd = f64::from(tp.snd_cwnd);
        self.dwnd = 0.0;
        self.exported = tp.snd_cwnd;
        self.round.begin(tp.snd_nxt);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        self.sync(tp);
        let win = self.cwnd + self.dwnd;
        self.cwnd *= RENO_DECREASE;
        self.dwnd = (win * (1.0 - self.cfg.beta) - self.cwnd).max(0.0);
        // Below win, so in u32 range.
        let ssthresh = ((self.cwnd + self.dwnd).floor() as u32).max(MIN_SSTHRESH);
        // The sender sets snd_cwnd to this next: keep the split.
        self.exported = ssthresh;
        ssthresh
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        self.sync(tp);
        if tp.in_slow_start() {
            self.dwnd = 0.0;
            let left = tp.slow_start(acked);
            self.cwnd = f64::from(tp.snd_cwnd);
            self.exported = tp.snd_cwnd;
            if left == 0 {
                return;
            }
        }
        let win = self.cwnd + self.dwnd;
        self.cwnd += f64::from(acked) / win.max(1.0);
        if self.round.is_over(tp.snd_una) {
            self.end_of_round(tp);
        }
        self.export(tp);
    }

    fn pkts_acked(&mut self, _tp: &mut CcState, sample: &AckSample, _rng: &mut SimRng) {
        let Some(rtt) = sample.rtt else { return };
        let rtt = rtt.max(1);
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        self.round.add(rtt);
    }

    /// Every timeout (also a repeated one) restarts from one segment in slow
    /// start: no delay component.
    fn cwnd_event(&mut self, tp: &mut CcState, ev: CaEvent) {
        if ev == CaEvent::Loss {
            self.dwnd = 0.0;
            self.cwnd = f64::from(tp.snd_cwnd);
            self.exported = tp.snd_cwnd;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::ack_clock::AckClock;
    use crate::time::NS_PER_MS;

    const MS: SimTime = NS_PER_MS;

    fn flow(cwnd: u32) -> AckClock<Compound> {
        AckClock::new(Compound::new(CompoundConfig::default()), cwnd, 5)
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = CompoundConfig::default();
        assert_eq!((c.alpha, c.beta, c.k, c.gamma, c.zeta), (0.125, 0.5, 0.75, 30.0, 1.0));
        assert!(c.validate("flows[0].cc").is_ok());
        let e = CompoundConfig { k: 1.5, ..c }.validate("flows[0].cc").unwrap_err();
        assert_eq!(e.field, "flows[0].cc.k");
    }

    #[test]
    fn dwnd_update_by_hand() {
        let c = CompoundConfig::default();
        // No queue at win 50: 1/8 * 50^0.75 - 1 = 1/8 * 18.803 - 1 = 1.3504.
        assert!((c.next_dwnd(0.0, 50.0, 0.0) - 1.350_4).abs() < 1e-4);
        // Small windows: alpha win^k < 1, no increase (win 10: 0.703).
        assert_eq!(c.next_dwnd(3.0, 10.0, 0.0), 3.0);
        // win 100 = 60 + 40 at RTT 150 ms over base 100 ms: diff = 100 / 3 =
        // 33.3 >= 30, so dwnd = 40 - 33.3 = 6.67.
        let diff = 100.0 * (1.0 - 100.0 / 150.0);
        assert!((c.next_dwnd(40.0, 100.0, diff) - 6.6667).abs() < 1e-4);
        assert_eq!(c.next_dwnd(20.0, 100.0, diff), 0.0);
    }

    #[test]
    fn one_rtt_without_queueing_adds_the_delay_component() {
        // win 50, no queueing. Round 1 (50 ACKs): the first ACK has no complete
        // round yet; cwnd grows by 1/win per ACK, i.e. by 1 per round. The round
        // ends on the first ACK of round 2, after its own 1/win: win = 51.01,
        // dwnd = 1/8 * 51.01^0.75 - 1 = 1.3859.
        let mut f = flow(50);
        f.round(100 * MS);
        assert_eq!(f.tp.snd_cwnd, 50);
        assert!((f.cc.cwnd() - 51.0).abs() < 0.02, "cwnd {}", f.cc.cwnd());
        f.ack(100 * MS);
        assert!((f.cc.cwnd() - 51.01).abs() < 1e-4, "cwnd {}", f.cc.cwnd());
        assert!((f.cc.dwnd() - 1.3859).abs() < 1e-4, "dwnd {}", f.cc.dwnd());
        assert_eq!(f.tp.snd_cwnd, 52);
    }

    #[test]
    fn loss_cuts_win_by_beta_and_halves_cwnd() {
        let mut cc = Compound::new(CompoundConfig::default());
        let mut tp = CcState::new(10, 10_000, 1500);
        cc.init(&mut tp);
        // cwnd 60 + dwnd 40 = 100: cwnd -> 30, dwnd = 100 / 2 - 30 = 20.
        cc.cwnd = 60.0;
        cc.dwnd = 40.0;
        cc.exported = 100;
        tp.snd_cwnd = 100;
        assert_eq!(cc.ssthresh(&tp), 50);
        assert_eq!((cc.cwnd(), cc.dwnd()), (30.0, 20.0));
        // The sender then sets snd_cwnd = 50: the split is kept.
        tp.snd_cwnd = 50;
        cc.sync(&tp);
        assert_eq!((cc.cwnd(), cc.dwnd()), (30.0, 20.0));
        // A timeout clears dwnd.
        tp.snd_cwnd = 1;
        cc.cwnd_event(&mut tp, CaEvent::Loss);
        assert_eq!((cc.cwnd(), cc.dwnd()), (1.0, 0.0));
    }
}
