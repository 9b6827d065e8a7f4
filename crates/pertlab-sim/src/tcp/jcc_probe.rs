//! The sender's side of JCC probing (Hua, MPhil thesis, CUHK 2002, Section
//! 4.2.3): one probe per round trip, its sequence number recorded so that its
//! loss is told apart from the loss of other segments.
//!
//! What is modelled: a probe is a new data segment sent with `jcc_r = Some(0)`
//! (the source sets R = 0). At most one probe is outstanding: the next new
//! segment after its probing ACK (or after its loss) is the next probe, which
//! makes one probe per round trip ("no more than one window adjustment per
//! RTT"). A probing ACK is an ACK whose `jcc_r` is set; a probe is lost when
//! the sender retransmits its sequence number; an ACK past the probe without
//! an echo (the probing ACK lost) ends the round without feedback. A retransmitted probe is an
//! ordinary segment.
//!
//! What is left out: probing while the application has no new data (a probe
//! needs a new segment).

use crate::packet::Packet;
use crate::tcp::cc::ProbeFeedback;

/// Which segment is the outstanding probe, if any.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProbeClock {
    outstanding: Option<u32>,
}

impl ProbeClock {
    /// Make the new segment `pkt` a probe when none is outstanding.
    pub fn on_new_segment(&mut self, pkt: &mut Packet) {
        if self.outstanding.is_none() {
            self.outstanding = Some(pkt.seq);
            pkt.jcc_r = Some(0);
        }
    }

    /// An ACK arrived: its echo, if it is a probing ACK (which ends the round).
    /// The receiver echoes on the first ACK it sends after the probe, so an ACK
    /// past the probe without an echo means the probing ACK was lost: the round
    /// ends without feedback.
    pub fn on_ack(&mut self, ack: &Packet) -> Option<ProbeFeedback> {
        match (ack.jcc_r, self.outstanding) {
            (Some(r), _) => {
                self.outstanding = None;
                Some(ProbeFeedback::Echo(r))
            }
            (None, Some(seq)) if ack.seq > seq => {
                self.outstanding = None;
                None
            }
            _ => None,
        }
    }

    /// Segment `seq` is retransmitted: the probe's loss, if it was the probe.
    pub fn on_retransmit(&mut self, seq: u32) -> Option<ProbeFeedback> {
        (self.outstanding == Some(seq)).then(|| {
            self.outstanding = None;
            ProbeFeedback::Lost
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    fn seg(seq: u32) -> Packet {
        let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1000);
        p.seq = seq;
        p
    }

    #[test]
    fn one_probe_at_a_time_and_its_loss_is_told_apart() {
        let mut clock = ProbeClock::default();
        let (mut a, mut b) = (seg(0), seg(1));
        clock.on_new_segment(&mut a);
        clock.on_new_segment(&mut b);
        assert_eq!((a.jcc_r, b.jcc_r), (Some(0), None));
        assert_eq!(clock.on_retransmit(1), None);
        let mut ack = Packet::new(PacketKind::Ack, 0, 1, 0, 40);
        assert_eq!(clock.on_ack(&ack), None);
        // An ACK past the probe without an echo (the probing ACK was lost) ends the round.
        let mut d = seg(2);
        ack.seq = 1;
        clock.on_ack(&ack);
        clock.on_new_segment(&mut d);
        assert_eq!(d.jcc_r, Some(0));
        ack.seq = 2;
        assert_eq!(clock.on_ack(&ack), None);
        ack.jcc_r = Some(9);
        assert_eq!(clock.on_ack(&ack), Some(ProbeFeedback::Echo(9)));
        let mut c = seg(7);
        clock.on_new_segment(&mut c);
        assert_eq!(c.jcc_r, Some(0));
        assert_eq!(clock.on_retransmit(7), Some(ProbeFeedback::Lost));
        assert_eq!(clock.on_retransmit(7), None);
    }
}
