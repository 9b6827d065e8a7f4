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
//! A rate set from outside (an `agent` flow's, `World::set_pacing_rate`, as
//! Linux's `SO_MAX_PACING_RATE` or a BPF controller's `sk_pacing_rate`)
//! replaces `srtt / cwnd`: consecutive segments then leave at least one
//! segment's transmission time at that rate apart, in every state.
//!
//! Left out: the fast retransmission of `snd_una` leaves at once (it is sent
//! outside the window loop); segments are paced, not the bytes of a TSO
//! burst; no pacing rate floor or gain (Linux paces at 2 x or 1.2 x cwnd / srtt).

use serde::{Deserialize, Serialize};

use super::cc::CaState;
use crate::time::{tx_time, SimTime};

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
    /// A rate set from outside, bit/s, in place of `srtt / cwnd` (see the module doc).
    rate_bps: Option<u64>,
    /// When the last segment left.
    last_sent: Option<SimTime>,
    /// The next segment may not leave before this time.
    next_at: SimTime,
    /// When the sender should try again: a segment was ready but the gate closed.
    wake: Option<SimTime>,
}

impl Pacer {
    /// `None` when pacing is off (nothing to do per segment).
    pub fn new(cfg: &PacingConfig) -> Option<Pacer> {
        cfg.enabled.then(|| Pacer { cfg: cfg.clone(), rate_bps: None, last_sent: None, next_at: 0, wake: None })
    }

    /// A gate pacing at `rate_bps` (> 0) from outside, for a sender whose
    /// configuration has pacing off.
    pub fn at_rate(rate_bps: u64) -> Pacer {
        Pacer { cfg: PacingConfig::default(), rate_bps: Some(rate_bps), last_sent: None, next_at: 0, wake: None }
    }

    /// From now on the segments leave `packet_size` bytes at `rate_bps` (> 0)
    /// apart: the next one may leave one such gap after the last (at once if
    /// that is past).
    pub fn set_rate(&mut self, rate_bps: u64, packet_size: u32) {
        self.rate_bps = Some(rate_bps);
        self.next_at = self.last_sent.map_or(0, |t| t.saturating_add(tx_time(packet_size, rate_bps)));
        if self.wake.is_some() {
            self.wake = Some(self.next_at);
        }
    }

    /// The rate set from outside, if any.
    pub fn rate_bps(&self) -> Option<u64> {
        self.rate_bps
    }

    fn applies(&self, state: CaState) -> bool {
        self.rate_bps.is_some() || self.cfg.applies(state)
    }

    /// May a segment leave at `now` in `state`?
    pub fn open(&self, now: SimTime, state: CaState) -> bool {
        !self.applies(state) || now >= self.next_at
    }

    /// A segment of `packet_size` bytes left at `now`: the next one waits its
    /// transmission time at the rate set from outside, or else `srtt / cwnd`
    /// (none before the first RTT sample, `srtt` = 0, or in an unpaced state).
    pub fn sent(&mut self, now: SimTime, srtt: SimTime, cwnd: u32, state: CaState, packet_size: u32) {
        self.last_sent = Some(now);
        if let Some(rate) = self.rate_bps {
            self.next_at = now.saturating_add(tx_time(packet_size, rate));
        } else if self.cfg.applies(state) && srtt > 0 {
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
        p.sent(0, 0, 10, CaState::Open, 1500);
        assert!(p.open(0, CaState::Open));
        p.sent(0, 100_000_000, 10, CaState::Open, 1500);
        assert!(!p.open(9_999_999, CaState::Open));
        assert!(p.open(10_000_000, CaState::Open));
        // Recovery is not paced.
        assert!(p.open(1, CaState::Recovery));
        p.hold();
        assert_eq!(p.due(), Some(10_000_000));
        p.woken();
        assert_eq!(p.due(), None);
    }

    #[test]
    fn a_rate_set_from_outside_spaces_segments_by_their_transmission_time_in_every_state() {
        let mut p = Pacer::at_rate(12_000_000);
        assert!(p.open(0, CaState::Recovery), "nothing sent yet");
        // 1500 bytes at 12 Mbit/s: 1 ms, whatever srtt, cwnd and state.
        p.sent(5_000_000, 100_000_000, 10, CaState::Recovery, 1500);
        assert!(!p.open(5_999_999, CaState::Recovery) && p.open(6_000_000, CaState::Loss));
        p.hold();
        // A slower rate moves the held segment's wake-up later; a faster one earlier.
        p.set_rate(1_200_000, 1500);
        assert_eq!(p.due(), Some(15_000_000));
        p.set_rate(120_000_000, 1500);
        assert_eq!((p.due(), p.rate_bps()), (Some(5_100_000), Some(120_000_000)));
    }
}
