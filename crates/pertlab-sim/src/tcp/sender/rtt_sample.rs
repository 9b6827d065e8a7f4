//! The sender's RTT samples (RFC 7323 RTTM, RFC 6298, Karn) and the timer
//! bookkeeping of an ACK that advances `snd_una`.

use super::send_times::TwoSamples;
use super::{RttSample, TcpSender};
use crate::packet::Packet;
use crate::tcp::scoreboard::Acked;
use crate::tcp::TsEcho;
use crate::time::SimTime;
use rand::Rng;

impl TcpSender {
    /// Bookkeeping of an ACK that advanced `snd_una`: RTT sample (the
    /// controller's, returned; `linux` holds the samples from send times, see
    /// `send_times`), timer, duplicate-ACK counts.
    pub(super) fn on_snd_una_advanced(&mut self, now: SimTime, ack: &Packet, acked: &Acked, linux: Option<TwoSamples>) -> Option<SimTime> {
        self.dupacks = 0;
        // Linux `tcp_remove_reno_sacks`: one of the segments acked is the hole
        // itself; the others are those the duplicate ACKs had announced.
        self.reno_sacked = self.reno_sacked.saturating_sub(acked.segments - 1);
        let rtt = self.take_rtt_sample(now, ack, acked, linux);
        // RFC 6298 5.2: stop the timer when nothing is outstanding; 5.3: restart it.
        if self.sb.outstanding() > 0 {
            self.arm_rto(now);
        } else {
            self.stop_timer();
        }
        rtt
    }

    /// RTT samples of an ACK; the controller's is returned. With
    /// `rtt_samples = linux` they come from the sender's send times
    /// (`linux`, see `send_times`), else, and where those give none, from
    /// the echoed timestamp. RFC 7323 4.1 (RTTM): the echo gives a sample only
    /// on ACKs that advance `snd_una` (a duplicate ACK echoes an older segment,
    /// RFC 7323 4.3, and would overestimate). Timestamps make the sample
    /// unambiguous even for a retransmitted segment, so it always feeds the
    /// estimator (RFC 6298 section 3); but the timer back-off is kept until the
    /// sample comes from a segment that was never retransmitted (Karn; Linux
    /// resets it on every sample it takes). The echoed segment is the old
    /// `snd_una` (the receiver echoes the segment at the left edge of its
    /// window, see `receiver`).
    pub(super) fn take_rtt_sample(&mut self, now: SimTime, ack: &Packet, acked: &Acked, linux: Option<TwoSamples>) -> Option<SimTime> {
        let measured = match linux {
            Some(two) => two,
            None if ack.ts > now => {
                if let Some(t) = self.train_rtt.as_mut() {
                    t.forget(acked.segments);
                }
                return None;
            }
            None => TwoSamples { estimator: now - ack.ts, controller: now - ack.ts, seq: self.echoed_segment(ack, acked) },
        };
        let noise = match &mut self.rtt_noise {
            Some(rng) => rng.gen_range(0..=2 * self.cfg.rtt_noise_ns),
            None => 0,
        };
        let (estimator, controller) = (measured.estimator + noise, measured.controller + noise);
        // Qian 2011 eq. 5.4: the sample without the train's self-induced delay
        // (echo samples only: the configuration refuses it with `linux`).
        let (estimator, controller) = match self.train_rtt.as_mut() {
            Some(t) => {
                let r = t.correct(now, acked.segments, ack.ts, estimator);
                (r, r)
            }
            None => (estimator, controller),
        };
        // Samples expected per RTT (RFC 7323 Appendix G): one per ACK of the
        // flight the sample belongs to (still outstanding + just acknowledged).
        let flight = self.sb.outstanding().saturating_add(acked.segments);
        let per_ack = self.cfg.ack_policy().segments_per_ack(&self.cfg.adaptive_ack);
        self.rtt.sample(estimator, flight.div_ceil(per_ack), self.sb.snd_una(), self.sb.snd_nxt());
        if self.send_times.is_some() || !acked.first_was_retransmitted {
            self.rtt.reset_backoff();
        }
        self.counters.record_rtt(estimator);
        self.last_rtt_sample = Some(RttSample { rtt: controller, seq: measured.seq });
        Some(controller)
    }

    /// The segment whose timestamp `ack` echoes, by the receiver's echo rule
    /// (`cfg.ts_echo`, see `receiver`): RFC 7323's TS.Recent is the segment at
    /// the left edge of the window, the old `snd_una`; ns-2's newest timestamp
    /// is the last segment to arrive, which on a path that keeps the order is
    /// the newest sent: the last segment the ACK covers (`ack.seq - 1`), or
    /// the retransmission of the old `snd_una` that filled the hole. Exact
    /// while no segment is lost; around a loss, the RFC rule's "never goes
    /// backwards" can keep an older echo, which this does not follow.
    fn echoed_segment(&self, ack: &Packet, acked: &Acked) -> u32 {
        let old_snd_una = ack.seq - acked.segments;
        match self.cfg.ts_echo {
            TsEcho::Earliest => old_snd_una,
            TsEcho::Latest if acked.first_was_retransmitted => old_snd_una,
            TsEcho::Latest => ack.seq - 1,
        }
    }
}
