//! The send time of every outstanding segment, for RTT samples taken as Linux
//! takes them (`TcpConfig::rtt_samples = linux`; `tcp_clean_rtx_queue`,
//! `tcp_sacktag_one`, `tcp_ack_update_rtt` in net/ipv4/tcp_input.c).
//!
//! A segment's time is when it last left the host (after the send overhead's
//! hold, if any), as Linux's `skb->skb_mstamp_ns`. Linux takes no sample from a
//! segment that was ever retransmitted (Karn); the scoreboard says which were.
//! Leaves out the samples Linux takes from D-SACK and from the undo logic, and
//! `tcp_rtt_tsopt_us`'s clamping of the echo.

use std::collections::VecDeque;

use crate::tcp::scoreboard::{Acked, Sacked};
use crate::time::SimTime;

/// Send times of segments `base..base + times.len()`.
#[derive(Clone, Debug, Default)]
pub struct SendTimes {
    base: u32,
    times: VecDeque<SimTime>,
}

/// The two samples of one ACK: `estimator` (srtt and the RTO; Linux's
/// `seq_rtt_us`) and `controller` (the congestion control's; `ca_rtt_us`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TwoSamples {
    pub estimator: SimTime,
    pub controller: SimTime,
    /// The segment `controller` was measured on.
    pub seq: u32,
}

impl SendTimes {
    /// Segment `seq` left the host at `now`: a new one (the next after the
    /// last recorded) or a retransmission (its time is replaced, as Linux's).
    pub fn sent(&mut self, seq: u32, now: SimTime) {
        match seq.checked_sub(self.base).map(|i| i as usize) {
            Some(i) if i < self.times.len() => self.times[i] = now,
            Some(i) if i == self.times.len() => self.times.push_back(now),
            // A segment already acknowledged, or one past a gap (none: new
            // segments leave in order): nothing to sample from.
            _ => {}
        }
    }

    /// When segment `seq` (not yet cumulatively acknowledged) last left the host.
    pub(super) fn at(&self, seq: u32) -> Option<SimTime> {
        seq.checked_sub(self.base).and_then(|i| self.times.get(i as usize)).copied()
    }

    /// The samples of an ACK at `now` that cumulatively acknowledged `acked`
    /// from `old_snd_una` and SACKed `sacked`, then forgets the segments below
    /// the new `snd_una`. None when neither gives one (the caller then falls
    /// back on the echo where `snd_una` advanced).
    pub fn take(&mut self, now: SimTime, old_snd_una: u32, acked: &Acked, sacked: &Sacked) -> Option<TwoSamples> {
        let since = |t: SimTime| now.saturating_sub(t);
        let cumulative = acked.fresh.filter(|_| !acked.any_retransmitted).and_then(|(first, last)| {
            let (first, last) = (old_snd_una + first, old_snd_una + last);
            Some((since(self.at(first)?), since(self.at(last)?), last))
        });
        let sack = sacked.fresh.and_then(|(low, high)| Some((since(self.at(low)?), since(self.at(high)?), high)));
        let new_base = old_snd_una + acked.segments;
        let drop = new_base.saturating_sub(self.base).min(self.times.len() as u32);
        self.times.drain(..drop as usize);
        self.base = self.base.max(new_base);
        // Linux: seq_rtt from first_ackt, else sack_rtt from first_sackt; ca_rtt
        // from last_sackt when the ACK SACKed new segments, else from last_ackt.
        let estimator = cumulative.or(sack)?.0;
        let (_, controller, seq) = sack.or(cumulative)?;
        Some(TwoSamples { estimator, controller, seq })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acked(segments: u32, fresh: Option<(u32, u32)>, any_retransmitted: bool) -> Acked {
        Acked { segments, not_sacked_before: segments, first_was_retransmitted: any_retransmitted, any_retransmitted, fresh, last_original: None }
    }

    #[test]
    fn the_estimator_takes_the_first_acked_and_the_controller_the_last() {
        let mut t = SendTimes::default();
        for (seq, at) in [(0, 100), (1, 140), (2, 150)] {
            t.sent(seq, at);
        }
        // A delayed ACK of segments 0 and 1 at 200: 100 ns and 60 ns.
        let two = t.take(200, 0, &acked(2, Some((0, 1)), false), &Sacked::default());
        assert_eq!(two, Some(TwoSamples { estimator: 100, controller: 60, seq: 1 }));
        // Segment 2 is now the first outstanding; a retransmission replaces its time.
        t.sent(2, 180);
        assert_eq!(t.at(2), Some(180));
        assert_eq!(t.at(1), None, "acknowledged segments are forgotten");
    }

    #[test]
    fn a_retransmitted_segment_gives_no_sample_and_sacks_give_theirs() {
        let mut t = SendTimes::default();
        for seq in 0..6 {
            t.sent(seq, 10 * u64::from(seq));
        }
        // Karn: a cumulative ACK over a retransmitted segment gives nothing.
        assert_eq!(t.take(100, 0, &acked(2, Some((0, 1)), true), &Sacked::default()), None);
        // A SACK-only ACK of 3..=4 (sent at 30 and 40): the estimator from the
        // lowest, the controller from the highest.
        let sacked = Sacked { newly: 2, fresh: Some((3, 4)) };
        assert_eq!(t.take(100, 2, &Acked::default(), &sacked), Some(TwoSamples { estimator: 70, controller: 60, seq: 4 }));
        // Both at once: the estimator from the cumulative part, the controller from the SACK.
        let sacked = Sacked { newly: 1, fresh: Some((5, 5)) };
        assert_eq!(t.take(100, 2, &acked(1, Some((0, 0)), false), &sacked), Some(TwoSamples { estimator: 80, controller: 50, seq: 5 }));
    }
}
