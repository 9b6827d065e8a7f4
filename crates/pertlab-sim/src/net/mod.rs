//! The network: nodes joined by full-duplex point-to-point links, each direction
//! a [`Channel`] with its own output queue, and static shortest-path routing.
//!
//! A channel serialises one packet at a time at its rate, then the packet
//! spends the propagation delay "on the wire". The delay is constant, so packets
//! leave the wire in the order they entered, and each packet's arrival is an
//! event in the engine's FIFO lane for that delay (see `engine::EventQueue`),
//! never a heap operation. The wire is nothing more: the arrival event carries
//! the packet's slot in the world's `PacketStore` (the queue holds slots too),
//! and the channel keeps only the slot of the packet being serialised
//! (`in_tx`), for its transmission's end. An arrival then reads nothing of the
//! channel but its far end, which the world keeps in a dense array of its own
//! (issue 21: with a link per flow, a ring of slots per wire was two more
//! lines to bring in on every hop, the channel's and the ring's).
//!
//! The end of each transmission is an event (`TxDone`) that schedules the
//! packet's arrival and starts the next packet of the queue. With the
//! scenario's `engine.tx_end_events = when_needed` it is one only when
//! something happens then: a loss draw, or the next packet of the queue to
//! start. A packet that starts on an idle lossless channel and leaves the queue
//! empty behind it has its arrival scheduled at once, `tx + delay` later, and
//! no `TxDone` (issue 21: on a dumbbell's access links that is nearly every
//! packet, a third of all events). If a packet reaches the queue before that
//! transmission ends, the `TxDone` is scheduled then, at the transmission's
//! end, in the place among same-time events the start gave it (`tx_seq`, reserved then). The
//! one difference this makes to a run: the arrival's insertion number is taken
//! at the transmission's start, not its end, so it can order differently
//! against another event due at the very same nanosecond (docs/model.md,
//! "Transmission ends").
//!
//! A run in steps may change the delay ([`Channel::set_delay`]): packets on the
//! wire keep their arrival times, later ones get the new delay, and the wire
//! stays a FIFO: a packet never leaves it before the one ahead of it
//! ([`Channel::arrival`]), so after a decrease the first packets wait behind
//! those sent with the old delay (leaving right after the last of them, in
//! order), and the arrivals stay in the order the packets were sent. A channel whose
//! delay never decreased pays one comparison per packet for it.
//!
//! Left out: link-layer framing and overheads, delay that varies by itself
//! (jitter), reordering.

pub mod burst_loss;
pub mod routing;

use crate::engine::LaneHint;
use crate::packet_store::PacketId;
use crate::queue::OutputQueue;
use crate::rng::SimRng;
use crate::time::{tx_time, SimTime};
use routing::Routes;

/// Cumulative counters of a channel (the wire side; the queue has its own).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelCounters {
    /// Nanoseconds spent transmitting, up to the snapshot (a transmission in
    /// progress counts for its elapsed part, so a packet straddling the edge of
    /// a measurement window is split between the two sides).
    pub busy_ns: u64,
    /// Packets lost on the wire (Bernoulli and burst losses).
    pub losses: u64,
}

/// One direction of a link.
pub struct Channel {
    /// Name of the link this channel belongs to, and its ends.
    pub link_name: String,
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay: SimTime,
    /// Bernoulli loss probability per packet.
    pub loss: f64,
    /// Gilbert-Elliott burst losses, if configured (drawn from `loss_rng` too).
    pub burst: Option<burst_loss::BurstLoss>,
    pub loss_rng: SimRng,
    pub queue: OutputQueue,
    /// The end of the last transmission started (its packet is `in_tx`).
    pub tx_end: SimTime,
    /// A `TxDone` event is pending for the transmission in progress.
    pub tx_done_pending: bool,
    /// The engine's insertion number when the transmission in progress
    /// started: a `TxDone` scheduled later for it takes this one, the place
    /// among same-time events it would have had if scheduled at the start.
    pub tx_seq: u64,
    /// The transmission in progress had its arrival scheduled when it started
    /// (see the module doc): its end needs an event only to start the next packet.
    pub arrival_scheduled: bool,
    /// This channel schedules an arrival at the transmission's start when it
    /// can: the scenario's `engine.tx_end_events` is `when_needed` and the
    /// channel draws no losses at transmission ends.
    pub arrival_at_start: bool,
    /// The slot of the packet being serialised if [`Channel::busy`] (else of
    /// the last one sent): where its transmission's end finds it.
    pub in_tx: PacketId,
    pub counters: ChannelCounters,
    /// The last packet size sent and its transmission time: a channel mostly
    /// carries one size (data one way, ACKs the other), and the division of
    /// `time::tx_time` is then done once, not per packet (issue 21).
    pub last_tx: (u32, SimTime),
    /// After a decrease of the delay, no packet leaves the wire before this
    /// time: the last arrival scheduled before the change (0 when none).
    pub hold_until: SimTime,
    /// The event queue's lanes this channel's transmissions and propagations
    /// went to last (issue 21: a push finds its lane without a search).
    pub tx_lane: LaneHint,
    pub prop_lane: LaneHint,
    /// The lane of arrivals scheduled at a transmission's start (`tx + delay`).
    pub tx_prop_lane: LaneHint,
}

impl Channel {
    /// Time to serialise `bytes` on this channel ([`tx_time`] at its rate).
    pub fn tx_time(&mut self, bytes: u32) -> SimTime {
        if self.last_tx.0 != bytes {
            self.last_tx = (bytes, tx_time(bytes, self.rate_bps));
        }
        self.last_tx.1
    }

    /// From the next packet it starts, the channel sends at `rate_bps` (a run in
    /// steps, `World::set_link_rate`); the cached transmission time goes with the
    /// old rate (`(0, 0)` is right at any rate).
    pub fn set_rate(&mut self, rate_bps: u64) {
        self.rate_bps = rate_bps;
        self.queue.link_rate_bps = rate_bps;
        self.last_tx = (0, 0);
    }

    /// From the next packet that finishes its transmission, the propagation
    /// delay is `delay` (a run in steps, `World::set_link_delay`); packets on the
    /// wire keep theirs, the last of them arriving at `last_scheduled`.
    pub fn set_delay(&mut self, delay: SimTime, last_scheduled: SimTime) {
        self.delay = delay;
        self.hold_until = self.hold_until.max(last_scheduled);
    }

    /// A packet finished its transmission at `now`: `None` when it leaves the
    /// wire `delay` later, or the time it leaves instead, right after the
    /// packets sent before a decrease of the delay (the wire is a FIFO; packets
    /// held to the same time leave in the order they were sent).
    #[inline(always)]
    pub fn arrival(&self, now: SimTime) -> Option<SimTime> {
        (now.saturating_add(self.delay) < self.hold_until).then_some(self.hold_until)
    }

    /// A transmission is in progress at `now`: the channel cannot start
    /// another. One whose `TxDone` is pending counts until that event has run
    /// (at `tx_end`, perhaps after other events of the same instant).
    #[inline(always)]
    pub fn busy(&self, now: SimTime) -> bool {
        self.tx_done_pending || now < self.tx_end
    }

    /// The packet being sent whose transmission's end is still to come as an
    /// event (one whose arrival was scheduled at its start is on the wire already).
    pub fn in_transmission(&self) -> Option<PacketId> {
        (self.tx_done_pending && !self.arrival_scheduled).then_some(self.in_tx)
    }

    /// The counters as of `now`, with the transmission in progress counted up
    /// to `now` (`busy_ns` counts each transmission whole when it starts).
    pub fn counters_at(&self, now: SimTime) -> ChannelCounters {
        let mut c = self.counters;
        c.busy_ns = c.busy_ns.saturating_sub(self.tx_end.saturating_sub(now));
        c
    }
}

/// The time one `bytes`-byte packet takes over the empty path from `from` to
/// `to`: each channel's propagation delay and transmission time (with 0 bytes,
/// the propagation delay alone). Nothing for a pair without a route.
pub fn path_delay(channels: &[Channel], routes: &Routes, from: u32, to: u32, bytes: u32) -> SimTime {
    let path = routes.path(from, to, |c| channels[c as usize].to).unwrap_or_default();
    path.iter().map(|&c| &channels[c as usize]).fold(0, |sum: SimTime, ch| sum.saturating_add(ch.delay).saturating_add(tx_time(bytes, ch.rate_bps)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{droptail::DropTail, QueueLimit};

    fn channel(delay: SimTime) -> Channel {
        Channel {
            link_name: "l".into(),
            from: 0,
            to: 1,
            rate_bps: 1_000_000,
            delay,
            loss: 0.0,
            burst: None,
            loss_rng: crate::rng::from_seed(1),
            queue: OutputQueue::new(QueueLimit::Packets(10), 1_000_000, Box::new(DropTail), crate::rng::from_seed(2)),
            tx_end: 0,
            tx_done_pending: false,
            tx_seq: 0,
            arrival_scheduled: false,
            arrival_at_start: false,
            in_tx: 0,
            counters: ChannelCounters::default(),
            last_tx: (0, 0),
            hold_until: 0,
            tx_lane: LaneHint::default(),
            prop_lane: LaneHint::default(),
            tx_prop_lane: LaneHint::default(),
        }
    }

    #[test]
    fn a_shorter_delay_never_lets_a_packet_overtake_the_one_ahead() {
        let mut ch = channel(100);
        assert_eq!(ch.arrival(10), None, "110: the delay's own time");
        // Packets sent at 10 and 20 arrive at 110 and 120; the delay drops to 30 at 25.
        ch.set_delay(30, 120);
        // 30 + 30 = 60 would overtake the packet arriving at 120: it leaves right behind it.
        assert_eq!(ch.arrival(30), Some(120));
        assert_eq!(ch.arrival(89), Some(120));
        assert_eq!(ch.arrival(90), None, "120: no longer held");
        ch.set_delay(200, 120);
        assert_eq!(ch.arrival(96), None, "a longer delay holds nothing back");
    }
}
