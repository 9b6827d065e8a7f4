//! Open-loop UDP source: constant-rate or Poisson packets, fixed or
//! exponentially distributed sizes. Used for queueing checks (M/M/1) and as
//! unresponsive background load.

use rand::Rng;
use rand_distr::{Distribution, Exp};

use crate::packet::{Ecn, Packet, PacketKind};
use crate::rng::SimRng;
use crate::scenario::{Arrivals, SizeDist};
use crate::time::{SimTime, NS_PER_SEC};

/// Counters of a UDP source and its sink.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UdpCounters {
    pub sent: u64,
    pub sent_bytes: u64,
    pub received: u64,
    pub received_bytes: u64,
    pub dropped: u64,
}

pub struct UdpSource {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    pub stop: Option<SimTime>,
    arrivals: Arrivals,
    sizes: SizeDist,
    ecn: bool,
    mean_size: u32,
    /// Mean time between packets, ns (mean size in bits / rate).
    mean_gap_ns: f64,
    rng: SimRng,
    pub counters: UdpCounters,
}

impl UdpSource {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: u32,
        src: u32,
        dst: u32,
        rate_bps: u64,
        mean_size: u32,
        arrivals: Arrivals,
        sizes: SizeDist,
        ecn: bool,
        stop: Option<SimTime>,
        rng: SimRng,
    ) -> Self {
        let mean_gap_ns = mean_size as f64 * 8.0 * NS_PER_SEC as f64 / rate_bps as f64;
        UdpSource { id, src, dst, stop, arrivals, sizes, ecn, mean_size, mean_gap_ns, rng, counters: UdpCounters::default() }
    }

    /// The next packet to send.
    pub fn next_packet(&mut self) -> Packet {
        let size = match self.sizes {
            SizeDist::Fixed => self.mean_size,
            SizeDist::Exponential => {
                let draw: f64 = Exp::new(1.0 / self.mean_size as f64).map(|e| e.sample(&mut self.rng)).unwrap_or(self.mean_size as f64);
                (draw.round() as u32).max(1)
            }
        };
        let mut pkt = Packet::new(PacketKind::Udp, self.id, self.src, self.dst, size);
        pkt.seq = self.counters.sent as u32;
        if self.ecn {
            pkt.ecn = Ecn::Ect;
        }
        self.counters.sent += 1;
        self.counters.sent_bytes += size as u64;
        pkt
    }

    /// Time until the next packet after one just sent.
    pub fn next_gap(&mut self) -> SimTime {
        match self.arrivals {
            Arrivals::Cbr => self.mean_gap_ns.round().max(1.0) as SimTime,
            Arrivals::Poisson => {
                // Inverse-transform sampling; 1 - u is in (0, 1] so the log is finite.
                let u: f64 = self.rng.gen();
                ((-(1.0 - u).ln()) * self.mean_gap_ns).round().max(1.0) as SimTime
            }
        }
    }
}
