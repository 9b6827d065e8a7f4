//! The network: nodes joined by full-duplex point-to-point links, each direction
//! a [`Channel`] with its own output queue, and static shortest-path routing.
//!
//! A channel serialises one packet at a time at its rate, then the packet
//! spends the propagation delay "on the wire". The delay is constant, so packets
//! leave the wire in the order they entered: the wire is a FIFO (`pipe`) and only
//! each packet's arrival is an event in the engine's FIFO lane for that delay
//! (see `engine::EventQueue`), never a heap operation. The packet being
//! serialised already sits at the back of the pipe (`transmitting`), so a packet
//! is copied once from the queue to the wire, not through a separate slot.
//!
//! Left out: link-layer framing and overheads, variable delay, reordering.

pub mod burst_loss;
pub mod routing;

use std::collections::VecDeque;

use crate::packet::Packet;
use crate::queue::OutputQueue;
use crate::rng::SimRng;
use crate::time::{tx_time, SimTime};

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
    /// A packet is being serialised (the back of `pipe`), since `tx_started`.
    pub transmitting: bool,
    pub tx_started: SimTime,
    /// Packets on the wire, oldest first (each has an `Arrive` event pending),
    /// then the packet being serialised if `transmitting`.
    pub pipe: VecDeque<Packet>,
    pub counters: ChannelCounters,
    /// The last packet size sent and its transmission time: a channel mostly
    /// carries one size (data one way, ACKs the other), and the division of
    /// `time::tx_time` is then done once, not per packet (issue 21).
    pub last_tx: (u32, SimTime),
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

    /// The counters as of `now`, with the transmission in progress counted up to `now`.
    pub fn counters_at(&self, now: SimTime) -> ChannelCounters {
        let mut c = self.counters;
        if self.transmitting {
            c.busy_ns += now - self.tx_started;
        }
        c
    }

    /// Packets of this channel anywhere: buffered, being sent, on the wire.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.queue.packets().chain(self.pipe.iter())
    }
}
