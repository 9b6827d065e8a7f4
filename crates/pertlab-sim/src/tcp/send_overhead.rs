//! Random send overhead at the sending host: ns-2's `Agent/TCP overhead_`.
//!
//! Models what ns-2's `TcpAgent::send_much` does when `overhead_` is set: a
//! sender that has segments to send and no delayed send pending waits a time
//! drawn uniformly from [0, overhead) and then sends every segment it has been
//! allowed to send meanwhile, in order. Floyd and Jacobson ("On Traffic Phase
//! Effects in Packet-Switched Gateways", 1992) add such a random overhead at the
//! sources to break the phase effects of drop-tail gateways: with equal RTTs and
//! deterministic links, which flow's packets arrive when the queue overflows is
//! decided by timing, not by chance.
//!
//! The sender owns it (`TcpSender`): a segment it holds has been produced by
//! TCP but has not left the host, so it is neither sent (the sender counts a
//! segment as sent when it is released) nor in the network. The held segments
//! are stamped with their release time, so RTT samples do not include the
//! overhead (ns-2 stamps a segment when it is output).
//!
//! Left out: ns-2 sends a fast retransmission at once (`output()`, not
//! `send_much`); here every segment of the sender, retransmissions included,
//! waits for the pending release. The window is decided, and the
//! retransmission timer started, when the segment is produced, not when it is
//! released (ns-2 does both at release).

use rand::Rng;

use crate::packet::Packet;
use crate::rng::SimRng;
use crate::time::SimTime;

/// A sender's pending delayed send.
pub struct SendOverhead {
    /// Upper bound of the uniform delay (ns-2 `overhead_`), > 0.
    overhead_ns: SimTime,
    rng: SimRng,
    /// Segments produced since the delayed send was scheduled, in order.
    held: Vec<Packet>,
    /// When the scheduled release is due, if one is.
    pending: Option<SimTime>,
}

impl SendOverhead {
    /// `None` for an overhead of 0 (segments leave at once, and nothing is drawn).
    pub fn new(overhead_ns: SimTime, rng: SimRng) -> Option<SendOverhead> {
        (overhead_ns > 0).then(|| SendOverhead { overhead_ns, rng, held: Vec::new(), pending: None })
    }

    /// Hold a segment produced at `now`; the first one held after a release
    /// schedules the next release, `U[0, overhead)` later.
    pub fn hold(&mut self, now: SimTime, pkt: Packet) {
        self.held.push(pkt);
        if self.pending.is_none() {
            self.pending = Some(now.saturating_add(self.rng.gen_range(0..self.overhead_ns)));
        }
    }

    /// When the pending release is due, if one is.
    pub fn due(&self) -> Option<SimTime> {
        self.pending
    }

    /// Segments held now.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// The delayed send: the held segments, stamped `now`, appended to `out`.
    pub fn release(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.pending = None;
        for mut pkt in self.held.drain(..) {
            pkt.ts = now;
            out.push(pkt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;
    use crate::rng::from_seed;

    fn segment(seq: u32) -> Packet {
        let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1000);
        p.seq = seq;
        p.ts = 7;
        p
    }

    #[test]
    fn zero_overhead_holds_nothing() {
        assert!(SendOverhead::new(0, from_seed(1)).is_none());
    }

    #[test]
    fn one_release_per_burst_within_the_overhead_and_in_order() {
        let mut o = SendOverhead::new(1_000, from_seed(3)).unwrap();
        assert_eq!(o.due(), None);
        o.hold(100, segment(0));
        o.hold(100, segment(1));
        let at = o.due().expect("the first hold schedules a release");
        assert!((100..1_100).contains(&at), "release at {at}");
        // Segments produced before the release join it; the release stays where it was.
        o.hold(150, segment(2));
        assert_eq!((o.due(), o.held()), (Some(at), 3));
        let mut sent = Vec::new();
        o.release(at, &mut sent);
        assert_eq!(sent.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![0, 1, 2]);
        assert!(sent.iter().all(|p| p.ts == at && p.kind == PacketKind::Data));
        assert_eq!((o.due(), o.held()), (None, 0));
        // After the release the next segment schedules a new one.
        o.hold(at, segment(3));
        assert!(o.due().is_some());
    }

    #[test]
    fn delays_cover_the_interval_uniformly() {
        let mut o = SendOverhead::new(1_000, from_seed(5)).unwrap();
        let mut sum = 0u64;
        let n = 20_000;
        for i in 0..n {
            o.hold(0, segment(i));
            let at = o.due().unwrap();
            o.release(at, &mut Vec::new());
            assert!(at < 1_000);
            sum += at;
        }
        let mean = sum as f64 / n as f64;
        // U(0, 1000) in whole ns: mean 499.5, standard error 289 / sqrt(20000) = 2.0.
        assert!((mean - 499.5).abs() < 8.0, "mean {mean}");
    }
}
