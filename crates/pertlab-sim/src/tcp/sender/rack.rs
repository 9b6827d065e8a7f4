//! Lost retransmissions found by Linux's RACK (RFC 8985 section 6.2;
//! `tcp_rack_advance`, `tcp_rack_detect_loss` in net/ipv4/tcp_recovery.c),
//! with `TcpConfig::rack_retransmits`.
//!
//! RACK marks a segment lost once a segment sent after it has been delivered
//! and the reordering window has passed. Here it is applied to retransmissions
//! only: the sender's loss detection for segments sent once stays RFC 6675's
//! DupThresh, which a retransmission cannot trigger again, so without RACK a
//! lost retransmission waits for the timer. The reordering window is 0, as
//! Linux's (`tcp_rack_reo_wnd`) in recovery or after a timeout while no
//! reordering has been seen (the simulated paths keep order); a retransmission
//! is lost at once, and no reordering timer is needed. A retransmission that
//! a SACK or ACK covers sooner than the flow's minimum RTT after it was sent
//! gives no time (the original may be what arrived: `tcp_rack_advance`'s
//! ambiguity rule), with the minimum over every sample where Linux keeps a
//! windowed one. Ties in send time go by sequence number, as Linux's
//! `tcp_rack_sent_after`.
//!
//! Leaves out: RACK for segments sent once (time-based detection in place of
//! DupThresh), its reordering window and timer, and the tail loss probe.

use super::TcpSender;
use crate::tcp::scoreboard::{Acked, Sacked};
use crate::time::SimTime;

/// The segments with a retransmission in flight, in the order they were sent
/// (a short list: the scoreboard's `retrans_out`, found without scanning the
/// window). When each left the host is `SendTimes`'.
#[derive(Clone, Debug, Default)]
pub(super) struct Rack {
    in_flight: Vec<u32>,
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
}

impl TcpSender {
    /// After an ACK has updated the scoreboard (`old_snd_una` before it;
    /// `acked` and `sacked` what it did), before the send times below the new
    /// `snd_una` are forgotten: mark lost every retransmission in flight sent
    /// before the latest-sent segment this ACK delivered. Returns how many.
    pub(super) fn rack_detect_lost_retransmits(&mut self, now: SimTime, old_snd_una: u32, acked: &Acked, sacked: &Sacked) -> u32 {
        let (Some(rack), Some(times)) = (self.rack.as_mut(), self.send_times.as_ref()) else { return 0 };
        let min_rtt = self.counters.rtt_min_ns;
        // The latest-sent segment delivered: of those sent once, the highest
        // (sent in sequence order); of the retransmissions, each one delivered.
        let mut latest: Option<(SimTime, u32)> = None;
        let mut consider = |sent: SimTime, seq: u32| latest = latest.max(Some((sent, seq)));
        for seq in [acked.last_original.map(|i| old_snd_una + i), sacked.fresh.map(|(_, high)| high)].into_iter().flatten() {
            if let Some(sent) = times.at(seq) {
                consider(sent, seq);
            }
        }
        let snd_una = self.sb.snd_una();
        // Every segment in the list was sent, and none yet forgotten (`SendTimes::take` comes after).
        let sent = |seq: u32| (times.at(seq).expect("a retransmission in flight has a send time"), seq);
        rack.in_flight.retain(|&seq| {
            let delivered = seq < snd_una || self.sb.is_sacked(seq);
            if delivered && now.saturating_sub(sent(seq).0) >= min_rtt {
                consider(sent(seq).0, seq);
            }
            !delivered
        });
        let Some(latest) = latest else { return 0 };
        let mut lost = 0;
        rack.in_flight.retain(|&seq| {
            let sent_before = sent(seq) < latest;
            if sent_before && self.sb.mark_retransmission_lost(seq) {
                lost += 1;
            }
            !sent_before
        });
        lost
    }
}

#[cfg(test)]
mod tests {
    use crate::tcp::testbench::Bench;
    use crate::tcp::{RttSamples, TcpConfig};
    use crate::time::NS_PER_SEC;

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
}
