//! Linux's RACK (RFC 8985 section 6; `tcp_rack_advance`,
//! `tcp_rack_detect_loss`, `tcp_rack_reo_wnd`, `tcp_rack_reo_timeout` in
//! net/ipv4/tcp_recovery.c), in one of two extents:
//!
//! - `TcpConfig::rack_retransmits`: retransmissions only. A retransmission
//!   still in flight is lost once a segment sent after it has been delivered;
//!   the segments sent once stay RFC 6675's (DupThresh), which a
//!   retransmission cannot trigger again, so without RACK a lost
//!   retransmission waits for the timer. The reordering window is 0 (Linux's
//!   in recovery and after a timeout, where retransmissions are sent), so a
//!   retransmission is lost at once and no timer is needed.
//! - `TcpConfig::rack`: every segment, in place of DupThresh, as Linux since
//!   6.x (its RFC 6675 code was removed in 2025). A segment is lost once a
//!   segment sent after it has been delivered and RACK.rtt plus the
//!   reordering window has passed since it was sent. The window is 0 in
//!   recovery and after a timeout, or once `dupthresh` segments (Linux's
//!   `tp->reordering`, 3) are SACKed; otherwise it is min(min_rtt / 4, srtt).
//!   A segment not yet lost is waited for by the reordering timer, which
//!   takes the retransmission timer's place (Linux's `ICSK_TIME_REO_TIMEOUT`)
//!   and fires the longest wait, rounded up to jiffies, plus two jiffies
//!   (`TCP_TIMEOUT_MIN`) later, on the clock of `linux_ack.hz`. Fast recovery
//!   begins when a segment is lost (`tcp_time_to_recover`: `lost_out`), on an
//!   ACK or at the timer (which then reduces the window and retransmits).
//!
//! RACK.xmit_ts and RACK.rtt are those of the latest-sent segment delivered
//! so far, as the RFC has them (Linux keeps the RTT of the last segment it
//! processed). A retransmission that a SACK or ACK covers sooner than the
//! flow's minimum RTT after it was sent gives no time (the original may be
//! what arrived: `tcp_rack_advance`'s ambiguity rule), with the minimum over
//! every sample where Linux keeps a windowed one. Ties in send time go by
//! sequence number, as Linux's `tcp_skb_sent_after`.
//!
//! Leaves out: the reordering window's growth on D-SACKs and after reordering
//! is seen (the simulated paths keep order, and D-SACK is not modelled), and
//! the tail loss probe.
//!
//! In both extents a retransmission found lost after a timeout (the `Loss`
//! state) starts fast recovery, as Linux's `tcp_fastretrans_alert` on
//! `FLAG_LOST_RETRANS` (`recovery.rs`), and so does a loss the reordering
//! timer finds in any state but `Recovery`.

use super::TcpSender;
use crate::packet::Packet;
use crate::tcp::cc::CaState;
use crate::tcp::jiffies::{Jiffies, LinuxClock};
use crate::tcp::scoreboard::{Acked, Sacked};
use crate::time::SimTime;

/// Linux's `TCP_TIMEOUT_MIN`: the reordering timer's two extra jiffies.
const TIMEOUT_MIN_JIFFIES: Jiffies = 2;

/// RACK's state, and the retransmissions in flight.
#[derive(Clone, Debug, Default)]
pub(super) struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the send time and number of the
    /// latest-sent segment delivered so far.
    latest: Option<(SimTime, u32)>,
    /// RACK.rtt: from that segment's send time to the ACK that delivered it.
    rtt: SimTime,
    /// A segment was delivered since the last detection (Linux's `rack.advanced`).
    advanced: bool,
    /// The segments with a retransmission in flight, in the order they were
    /// sent (a short list: the scoreboard's `retrans_out`, found without
    /// scanning the window). When each left the host is `SendTimes`'.
    in_flight: Vec<u32>,
    /// The retransmission timer's slot holds the reordering timer.
    pub(super) reo_timer: bool,
}

impl Rack {
    /// A retransmission of `seq` left the host (it replaces an earlier one of
    /// the same segment, which by now is lost or delivered).
    pub(super) fn sent(&mut self, seq: u32) {
        self.in_flight.retain(|&s| s != seq);
        self.in_flight.push(seq);
    }

    /// Forget every retransmission (a timeout marks them all lost).
    pub(super) fn clear(&mut self) {
        self.in_flight.clear();
    }

    /// RACK_update for a segment sent at `sent` delivered at `now`.
    fn delivered(&mut self, now: SimTime, sent: SimTime, seq: u32) {
        self.advanced = true;
        if self.latest.is_none_or(|latest| (sent, seq) > latest) {
            self.latest = Some((sent, seq));
            self.rtt = now.saturating_sub(sent);
        }
    }
}

/// What a detection found: segments sent once newly lost, retransmissions
/// lost again, and the longest wait for a segment not yet lost, if any.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Detected {
    pub(super) originals: u32,
    pub(super) retransmissions: u32,
    wait: Option<SimTime>,
}

impl TcpSender {
    /// After an ACK has updated the scoreboard (`old_snd_una` before it;
    /// `acked` and `sacked` what it did), before the send times below the new
    /// `snd_una` are forgotten: RACK_update with the segments it delivered
    /// (of those sent once, the latest sent; each retransmission delivered).
    pub(super) fn rack_advance(&mut self, now: SimTime, old_snd_una: u32, acked: &Acked, sacked: &Sacked) {
        let (Some(rack), Some(times)) = (self.rack.as_mut(), self.send_times.as_ref()) else { return };
        let min_rtt = self.counters.rtt_min_ns;
        for seq in [acked.last_original.map(|i| old_snd_una + i), sacked.fresh.map(|(_, high)| high)].into_iter().flatten() {
            if let Some(sent) = times.at(seq) {
                rack.delivered(now, sent, seq);
            }
        }
        let snd_una = self.sb.snd_una();
        let mut in_flight = std::mem::take(&mut rack.in_flight);
        in_flight.retain(|&seq| {
            let delivered = seq < snd_una || self.sb.is_sacked(seq);
            // Every segment in the list was sent, and none yet forgotten (`SendTimes::take` comes after).
            let sent = times.at(seq).expect("a retransmission in flight has a send time");
            if delivered && now.saturating_sub(sent) >= min_rtt {
                rack.delivered(now, sent, seq);
            }
            !delivered
        });
        rack.in_flight = in_flight;
    }

    /// RACK's loss detection after an ACK (only when it delivered something,
    /// as Linux's `tcp_rack_mark_lost`): marks lost what it finds, and sets
    /// the reordering timer for what it waits for. Returns what it marked.
    pub(super) fn rack_detect_on_ack(&mut self, now: SimTime) -> Detected {
        if !self.rack.as_mut().is_some_and(|r| std::mem::take(&mut r.advanced)) {
            return Detected::default();
        }
        let found = self.rack_detect(now);
        if let Some(wait) = found.wait {
            self.arm_reo_timer(now, wait);
        }
        found
    }

    /// The reordering timer fired (`tcp_rack_reo_timeout`): what is lost by
    /// now is marked; if anything was, fast recovery begins (unless under way)
    /// and the lost segments are sent again. Then the retransmission timer
    /// takes its slot back, measured from the head's send time (Linux's
    /// `tcp_rearm_rto` while the slot still says `ICSK_TIME_REO_TIMEOUT`),
    /// whatever is still waited for: as in Linux, the wait the detection
    /// finds here sets no timer (`tcp_rack_detect_loss` only computes it),
    /// and the next ACK's detection or the RTO finds those segments.
    pub(super) fn on_reo_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let found = self.rack_detect(now);
        self.counters.lost_retransmits += u64::from(found.retransmissions);
        if found.originals + found.retransmissions > 0 {
            if self.tp.ca_state != CaState::Recovery {
                self.enter_recovery(now, out);
                // Linux's `tcp_cwnd_reduction(sk, 1, ...)`: PRR's first step counts one
                // segment delivered (the ACK path's order: the head was sent on entering).
                if self.prr.is_some() {
                    self.reduce_proportionally(1, false);
                }
            }
            self.transmit(now, out);
        }
        self.arm_rto(now);
    }

    /// RACK_detect_loss: every segment in flight sent before RACK.xmit_ts is
    /// lost once RACK.rtt plus the reordering window has passed since it was
    /// sent; the longest wait of the others is returned with what was marked.
    fn rack_detect(&mut self, now: SimTime) -> Detected {
        let reo_wnd = self.rack_reo_wnd();
        let (Some(rack), Some(times)) = (self.rack.as_mut(), self.send_times.as_ref()) else { return Detected::default() };
        let Some(latest) = rack.latest else { return Detected::default() };
        let mut found = Detected::default();
        // How long a segment sent at `sent` is still waited for (0: lost now).
        let rack_rtt = rack.rtt;
        let wait = |sent: SimTime| (rack_rtt + reo_wnd).saturating_sub(now.saturating_sub(sent));
        let mut longest: Option<SimTime> = None;
        if self.cfg.rack {
            // The segments sent once and not yet lost lie above the scoreboard's lost point, in
            // the order they were sent; those without a send time are still held by the host.
            let mut lost_through = None;
            for seq in self.sb.lost_scan()..self.sb.snd_nxt() {
                let Some(sent) = times.at(seq).filter(|&sent| (sent, seq) < latest) else { break };
                if self.sb.is_sacked(seq) {
                    continue;
                }
                match wait(sent) {
                    0 => lost_through = Some(seq),
                    w => longest = longest.max(Some(w)),
                }
            }
            if let Some(seq) = lost_through {
                found.originals = self.sb.mark_lost_through(seq);
            }
        }
        let sb = &mut self.sb;
        let mut retransmissions = 0;
        rack.in_flight.retain(|&seq| {
            let sent = times.at(seq).expect("a retransmission in flight has a send time");
            if (sent, seq) >= latest {
                return true;
            }
            match wait(sent) {
                0 => {
                    retransmissions += u32::from(sb.mark_retransmission_lost(seq));
                    false
                }
                w => {
                    longest = longest.max(Some(w));
                    true
                }
            }
        });
        found.retransmissions = retransmissions;
        found.wait = longest;
        found
    }

    /// RACK's reordering window (`tcp_rack_reo_wnd`): 0 with retransmissions
    /// only, in recovery or after a timeout (until the ACK that ends them), or
    /// once `dupthresh` segments are SACKed; else min(min_rtt / 4, srtt).
    fn rack_reo_wnd(&self) -> SimTime {
        let recovering = matches!(self.tp.ca_state, CaState::Recovery | CaState::Loss) && self.sb.snd_una() < self.recovery_point;
        if !self.cfg.rack || recovering || self.sb.sacked_out() >= self.cfg.dupthresh.max(1) {
            return 0;
        }
        (self.counters.rtt_min_ns / 4).min(self.rtt.srtt())
    }

    /// RACK's reordering timer holds the retransmission timer's slot.
    pub(super) fn reo_timer_pending(&self) -> bool {
        self.rack.as_ref().is_some_and(|r| r.reo_timer)
    }

    /// The reordering timer takes the retransmission timer's slot: it fires
    /// `wait` (rounded up to jiffies) and two jiffies after `now`, on Linux's
    /// clock at `linux_ack.hz`.
    fn arm_reo_timer(&mut self, now: SimTime, wait: SimTime) {
        let Some(rack) = self.rack.as_mut() else { return };
        let clock = LinuxClock::new(self.cfg.linux_ack.hz);
        self.rto_at = Some(clock.instant(clock.at(now) + clock.up(wait) + TIMEOUT_MIN_JIFFIES));
        rack.reo_timer = true;
    }
}

#[cfg(test)]
mod tests {
    use crate::tcp::ack::LinuxAckConfig;
    use crate::tcp::cc::CaState;
    use crate::tcp::testbench::{drawn_path, Bench, DRAWN_SPAN};
    use crate::tcp::{RttSamples, TcpConfig};
    use crate::time::{NS_PER_MS, NS_PER_SEC};
    use proptest::collection::vec;
    use proptest::prelude::*;

    /// A window of 20 with SACK and Linux's send times; segment 5 is lost, and
    /// so is its first retransmission.
    fn fast_retransmission_lost(rack_retransmits: bool) -> Bench {
        let cfg = TcpConfig { init_cwnd: 20, rtt_samples: RttSamples::Linux, rack_retransmits, ..TcpConfig::default() };
        let mut b = Bench::new(cfg).drop_transmissions(&[(5, 2)]);
        b.snd.tp.snd_ssthresh = 20;
        b.start();
        b.run_until(5 * NS_PER_SEC);
        b
    }

    #[test]
    fn a_lost_retransmission_is_sent_again_once_a_later_segment_is_sacked() {
        let b = fast_retransmission_lost(true);
        let c = *b.snd.counters();
        let fives: Vec<_> = b.log.iter().filter(|s| s.seq == 5).map(|s| s.at).collect();
        assert_eq!((c.timeouts, c.lost_retransmits, fives.len()), (0, 1, 3), "{:?}", b.transitions);
        // Found within a round trip of the first retransmission (about 101 ms here), not by the
        // timer (at least 200 ms).
        assert!(fives[2] - fives[1] < 150 * crate::time::NS_PER_MS, "{fives:?}");
        b.check_conservation();
    }

    #[test]
    fn without_rack_the_timer_finds_the_lost_retransmission() {
        let b = fast_retransmission_lost(false);
        let c = *b.snd.counters();
        assert_eq!((c.timeouts, c.lost_retransmits), (1, 1), "{:?}", b.transitions);
        b.check_conservation();
    }

    /// Ten segments to send, all at once (a window of 10 with SACK and Linux's
    /// send times, HZ 250, PRR or not); the first transmissions of `dropped` are lost.
    fn ten_segments(rack: bool, prr: bool, dropped: &[u32]) -> Bench {
        let mut b = ten_segments_started(rack, prr, dropped);
        b.run_until(5 * NS_PER_SEC);
        b
    }

    /// The same, started and not yet run.
    fn ten_segments_started(rack: bool, prr: bool, dropped: &[u32]) -> Bench {
        let cfg = TcpConfig { init_cwnd: 10, rtt_samples: RttSamples::Linux, rack, prr, ..TcpConfig::default() };
        let mut b = Bench::new(cfg).drop_first_transmission_of(dropped);
        b.write(10);
        b.start();
        b
    }

    #[test]
    fn a_loss_one_sacked_segment_follows_is_found_by_the_reordering_timer() {
        // Segment 8 is lost and only 9 follows it: no third duplicate ACK ever comes. 9's SACK
        // arrives at 110 ms (the bench's round trip is 101 ms, 1 ms a segment); RACK waits the
        // reordering window, min_rtt / 4 = 25.25 ms (all ten left together: RACK.rtt is 8's
        // own age), rounded up to 7 jiffies of 4 ms, plus 2, from jiffy 27: jiffy 36, 144 ms.
        let b = ten_segments(true, false, &[8]);
        let c = *b.snd.counters();
        let eights: Vec<_> = b.log.iter().filter(|s| s.seq == 8).map(|s| s.at).collect();
        assert_eq!(eights, vec![0, 144 * NS_PER_MS], "{:?}", b.transitions);
        assert_eq!((c.timeouts, c.fast_recoveries), (0, 1));
        assert!(b.snd.finished());
        b.check_conservation();
        // Without RACK the timer finds it, one RTO (above 200 ms) after the last ACK.
        let b = ten_segments(false, false, &[8]);
        let c = *b.snd.counters();
        let eights: Vec<_> = b.log.iter().filter(|s| s.seq == 8).map(|s| s.at).collect();
        assert_eq!((c.timeouts, c.fast_recoveries, eights.len()), (1, 0, 2));
        assert!(eights[1] > 300 * NS_PER_MS, "{eights:?}");
    }

    #[test]
    fn three_sacked_segments_close_the_reordering_window_as_dupthresh_does() {
        // Segment 5 of 20 is lost (dropped before the bench's link, so it takes none of its
        // time): 6, 7 and 8 are SACKed at 106, 107 and 108 ms, and the third SACK finds it at
        // once with RACK, at the ACK where RFC 6675's DupThresh finds it without.
        let run = |rack: bool| {
            let cfg = TcpConfig { init_cwnd: 20, rtt_samples: RttSamples::Linux, rack, ..TcpConfig::default() };
            let mut b = Bench::new(cfg).drop_first_transmission_of(&[5]);
            b.snd.tp.snd_ssthresh = 20;
            b.start();
            b.run_until(2 * NS_PER_SEC);
            b
        };
        let (with, without) = (run(true), run(false));
        let resent = |b: &Bench| b.log.iter().find(|s| s.seq == 5 && s.retx).map(|s| s.at);
        assert_eq!(resent(&with), resent(&without));
        assert_eq!(resent(&with), Some(108 * NS_PER_MS));
        for b in [&with, &without] {
            let c = *b.snd.counters();
            assert_eq!((c.timeouts, c.fast_recoveries, c.retransmits), (0, 1, 1));
            b.check_conservation();
        }
    }

    #[test]
    fn each_of_two_tail_losses_is_found_and_sent_again_once() {
        // 7 and 8 lost, 9 SACKed: the timer finds both together (both sent before 9).
        let b = ten_segments(true, false, &[7, 8]);
        let c = *b.snd.counters();
        let resent: Vec<_> = b.log.iter().filter(|s| s.retx).map(|s| (s.seq, s.at)).collect();
        assert_eq!(resent, vec![(7, 144 * NS_PER_MS), (8, 144 * NS_PER_MS)]);
        assert_eq!((c.timeouts, c.fast_recoveries), (0, 1));
        assert!(b.snd.finished());
    }

    #[test]
    fn recovery_begun_by_the_timer_takes_prrs_first_step() {
        // The timer enters recovery with a window of 18 (slow start from 10, 8 segments
        // acknowledged) and Reno's ssthresh of 9. Linux's `tcp_rack_reo_timeout` then calls
        // `tcp_cwnd_reduction` with one segment delivered: with 8 resent, one segment in flight,
        // PRR allows one more, a window of 2, not the 18 the ACKs left.
        let b = ten_segments(true, true, &[8]);
        let recovery = b.transitions.iter().find(|t| t.state == CaState::Recovery).copied();
        assert_eq!(recovery.map(|t| (t.at, t.cwnd, t.ssthresh)), Some((144 * NS_PER_MS, 2, 9)), "{:?}", b.transitions);
        assert!(b.snd.finished());
    }

    #[test]
    fn a_reordering_timer_that_finds_nothing_lost_gives_the_slot_to_the_rto_from_the_heads_send_time() {
        // Linux's `tcp_rack_reo_timeout` computes what is still waited for but sets no timer for
        // it: `tcp_rearm_rto` gives the slot back to the RTO, measured from the head's send time
        // (the slot still says ICSK_TIME_REO_TIMEOUT). A wait left when the timer fires needs the
        // reordering window or RACK.rtt to have grown since it was set without an ACK to look
        // again: RACK.rtt is made longer here by hand, a millisecond before the timer of the
        // first test above (144 ms), so that segment 8 (sent at 0, the head) is still waited for.
        let mut b = ten_segments_started(true, false, &[8]);
        b.run_until(143 * NS_PER_MS);
        assert_eq!(b.snd.rto_deadline(), Some(144 * NS_PER_MS));
        b.snd.rack.as_mut().expect("rack").rtt += 100 * NS_PER_MS;
        let rto = b.snd.rtt.rto();
        b.run_until(144 * NS_PER_MS);
        assert!(b.log.iter().all(|s| !s.retx), "nothing lost yet");
        assert_eq!(b.snd.rto_deadline(), Some(rto), "the RTO from 8's send time, 0");
        assert!(!b.snd.reo_timer_pending());
        b.run_until(5 * NS_PER_SEC);
        let eights: Vec<_> = b.log.iter().filter(|s| s.seq == 8).map(|s| s.at).collect();
        assert_eq!(eights, vec![0, rto], "{:?}", b.transitions);
        assert_eq!(b.snd.counters().timeouts, 1);
        assert!(b.snd.finished());
        b.check_conservation();
    }

    #[test]
    fn a_retransmission_lost_after_a_timeout_starts_fast_recovery() {
        // The tail 5 to 9 is lost, so no SACK comes and the RTO fires; go-back-N resends 5, then
        // 6 and 7 together, and the resent 6 is lost too. 7's SACK finds it lost at once (the
        // window is 0 after a timeout), and Linux's `tcp_fastretrans_alert` then leaves Loss for
        // Recovery (FLAG_LOST_RETRANS), with a reduction of its own: ssthresh from the window of
        // 2 that go-back-N had reached (Reno's floor, 2), where the timeout had left 7. Both
        // extents of RACK do it.
        for (rack, rack_retransmits) in [(true, false), (false, true)] {
            let cfg = TcpConfig { init_cwnd: 10, rtt_samples: RttSamples::Linux, rack, rack_retransmits, ..TcpConfig::default() };
            let mut b = Bench::new(cfg).drop_transmissions(&[(5, 1), (6, 2), (7, 1), (8, 1), (9, 1)]);
            b.write(10);
            b.start();
            b.run_until(5 * NS_PER_SEC);
            let states: Vec<_> = b.transitions.iter().map(|t| t.state).collect();
            let loss = states.iter().position(|&s| s == CaState::Loss).expect("a timeout");
            assert_eq!(states.get(loss + 1), Some(&CaState::Recovery), "{:?}", b.transitions);
            let recovery = b.transitions[loss + 1];
            assert_eq!((b.transitions[loss].ssthresh, recovery.cwnd, recovery.ssthresh), (7, 2, 2), "{:?}", b.transitions);
            let c = *b.snd.counters();
            assert_eq!((c.timeouts, c.fast_recoveries, c.lost_retransmits), (1, 1, 1));
            let sixes = b.log.iter().filter(|s| s.seq == 6).count();
            assert_eq!(sixes, 3, "sent once, resent after the timeout, resent in recovery");
            assert!(b.snd.finished());
            b.check_conservation();
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Drawn losses (a retransmission among them, or not) on a flow of any
        /// initial window with RACK for every segment, PRR or not, at any of
        /// Linux's HZ: the sender keeps its invariants on every call (the bench
        /// checks them), conserves segments, and repairs every hole and goes on.
        #[test]
        fn rack_keeps_the_sender_sound_under_drawn_losses(
            prr: bool,
            init_cwnd in 2u32..48,
            hz in prop::sample::select(vec![100u32, 250, 300, 1000]),
            drops in vec(0..DRAWN_SPAN, 0..16),
            lose_a_retransmission: bool,
        ) {
            let linux_ack = LinuxAckConfig { hz, ..LinuxAckConfig::default() };
            let cfg = TcpConfig { init_cwnd, prr, rack: true, rtt_samples: RttSamples::Linux, linux_ack, ..TcpConfig::default() };
            let b = drawn_path(cfg, drops, Vec::new(), lose_a_retransmission);
            prop_assert!(b.snd.tp.snd_una > DRAWN_SPAN, "stuck at {}: {:?}", b.snd.tp.snd_una, b.transitions);
        }
    }
}
