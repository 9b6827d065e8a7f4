//! Sender pacing (Qian 2011, IV.C, after Aggarwal, Savage and Anderson 2000):
//! consecutive data segments leave at least `srtt / cwnd` apart, so a window
//! is spread over a round trip instead of leaving in bursts (the packet trains
//! that ACK coalescing causes, which queue behind each other at the
//! bottleneck and inflate the measured RTT, Qian IV.B).
//!
//! Which RTT and which states are unspecified in the thesis; the spec (B.7)
//! recommends srtt and pacing in every state, which is the default here; each
//! congestion-avoidance state (`CaState`) can be left unpaced. Before the first
//! RTT sample there is no srtt and segments leave at once.
//!
//! Left out: the fast retransmission of `snd_una` leaves at once (it is sent
//! outside the window loop); segments are paced, not the bytes of a TSO
//! burst; no pacing rate floor or gain (Linux paces at 2 x or 1.2 x cwnd / srtt).

use serde::{Deserialize, Serialize};

use super::cc::CaState;
use crate::time::SimTime;

/// Pacing switch and the states it applies in (all of them by default).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PacingConfig {
    /// Pace this flow's data segments (default off).
    pub enabled: bool,
    /// Pace in each congestion-avoidance state (Linux `tcp_ca_state`); slow
    /// start and congestion avoidance are both `open`.
    pub open: bool,
    pub disorder: bool,
    pub cwr: bool,
    pub recovery: bool,
    pub loss: bool,
}

impl Default for PacingConfig {
    fn default() -> Self {
        PacingConfig { enabled: false, open: true, disorder: true, cwr: true, recovery: true, loss: true }
    }
}

impl PacingConfig {
    fn applies(&self, state: CaState) -> bool {
        self.enabled
            && match state {
                CaState::Open => self.open,
                CaState::Disorder => self.disorder,
                CaState::Cwr => self.cwr,
                CaState::Recovery => self.recovery,
                CaState::Loss => self.loss,
            }
    }
}

/// The pacing gate of one sender.
#[derive(Clone, Debug)]
pub struct Pacer {
    cfg: PacingConfig,
    /// The next segment may not leave before this time.
    next_at: SimTime,
    /// When the sender should try again: a segment was ready but the gate closed.
    wake: Option<SimTime>,
}

impl Pacer {
    /// `None` when pacing is off (nothing to do per segment).
    pub fn new(cfg: &PacingConfig) -> Option<Pacer> {
        cfg.enabled.then(|| Pacer { cfg: cfg.clone(), next_at: 0, wake: None })
    }

    /// May a segment leave at `now` in `state`?
    pub fn open(&self, now: SimTime, state: CaState) -> bool {
        !self.cfg.applies(state) || now >= self.next_at
    }

    /// A segment left at `now`: the next one waits `srtt / cwnd` (none before
    /// the first RTT sample, `srtt` = 0, or in an unpaced state).
    pub fn sent(&mut self, now: SimTime, srtt: SimTime, cwnd: u32, state: CaState) {
        if self.cfg.applies(state) && srtt > 0 {
            self.next_at = now.saturating_add(srtt / SimTime::from(cwnd.max(1)));
        }
    }

    /// A segment is ready but the gate is closed: wake the sender when it opens.
    pub fn hold(&mut self) {
        self.wake = Some(self.next_at);
    }

    /// When the sender is to be woken, if it is.
    pub fn due(&self) -> Option<SimTime> {
        self.wake
    }

    /// The wake-up is being handled.
    pub fn woken(&mut self) {
        self.wake = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::testbench::Bench;
    use crate::tcp::{AckPolicy, TcpConfig};
    use crate::time::NS_PER_SEC;

    /// Inter-departure times of the bench's data segments sent in [from, to), and srtt / cwnd at `to`.
    fn departures(pacing: bool, from: SimTime, to: SimTime) -> (Vec<SimTime>, f64) {
        let cfg = TcpConfig {
            ack_policy: AckPolicy::Adaptive,
            max_cwnd: 50,
            pacing: PacingConfig { enabled: pacing, ..PacingConfig::default() },
            ..TcpConfig::default()
        };
        let mut b = Bench::new(cfg);
        b.check_each_step = false;
        b.start();
        b.run_until(to);
        let times: Vec<SimTime> = b.log.iter().filter(|s| s.at >= from).map(|s| s.at).collect();
        let gaps = times.windows(2).map(|w| w[1] - w[0]).collect();
        (gaps, b.snd.tp.srtt as f64 / f64::from(b.snd.tp.snd_cwnd.min(50)))
    }

    /// Qian IV.C, Fig 20: with pacing a window is spread evenly over the RTT.
    /// Reno with a 50-segment window on the bench's 101 ms path (1 ms per
    /// packet) behind Qian's adaptive receiver: every inter-departure time in
    /// steady state is within 10 % of srtt / cwnd; without pacing the window
    /// leaves in trains (several segments at the same instant).
    #[test]
    fn pacing_spreads_a_window_evenly() {
        let (gaps, want) = departures(true, 20 * NS_PER_SEC, 30 * NS_PER_SEC);
        assert!(gaps.len() > 4000, "{} departures", gaps.len());
        let off = gaps.iter().filter(|&&g| (g as f64 - want).abs() > 0.1 * want).count();
        assert_eq!(off, 0, "{off} of {} gaps off srtt/cwnd = {want:.0} ns", gaps.len());
        let (bursty, _) = departures(false, 20 * NS_PER_SEC, 30 * NS_PER_SEC);
        assert!(bursty.iter().filter(|&&g| g == 0).count() > bursty.len() / 2, "trains without pacing");
    }

    #[test]
    fn spacing_is_srtt_over_cwnd_in_paced_states_only() {
        assert!(Pacer::new(&PacingConfig::default()).is_none());
        let cfg = PacingConfig { enabled: true, recovery: false, ..PacingConfig::default() };
        let mut p = Pacer::new(&cfg).unwrap();
        assert!(p.open(0, CaState::Open));
        // No srtt yet: no spacing.
        p.sent(0, 0, 10, CaState::Open);
        assert!(p.open(0, CaState::Open));
        p.sent(0, 100_000_000, 10, CaState::Open);
        assert!(!p.open(9_999_999, CaState::Open));
        assert!(p.open(10_000_000, CaState::Open));
        // Recovery is not paced.
        assert!(p.open(1, CaState::Recovery));
        p.hold();
        assert_eq!(p.due(), Some(10_000_000));
        p.woken();
        assert_eq!(p.due(), None);
    }
}
