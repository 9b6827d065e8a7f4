//! One round trip of a controller that decides once per RTT (Vegas, Illinois,
//! Compound, FAST): the round ends on the first ACK beyond the `snd_nxt` it
//! began at (Linux Vegas' `beg_snd_nxt`), and collects the RTT samples taken
//! during it: their count, sum and minimum.

use super::seq_after;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct RttRound {
    /// `snd_nxt` when the round began; the round ends when it is ACKed.
    beg_snd_nxt: u32,
    /// RTT samples of this round: count, sum and smallest, ns.
    count: u32,
    sum: u128,
    min: Option<SimTime>,
}

impl RttRound {
    /// A new round from `snd_nxt`, with no sample.
    pub fn begin(&mut self, snd_nxt: u32) {
        *self = RttRound { beg_snd_nxt: snd_nxt, ..RttRound::default() };
    }

    /// The ACK that moved `snd_una` here ends the round.
    pub fn is_over(&self, snd_una: u32) -> bool {
        seq_after(snd_una, self.beg_snd_nxt)
    }

    pub fn add(&mut self, rtt: SimTime) {
        self.count = self.count.saturating_add(1);
        self.sum += u128::from(rtt);
        self.min = Some(self.min.map_or(rtt, |m| m.min(rtt)));
    }

    /// Samples taken this round.
    pub fn samples(&self) -> u32 {
        self.count
    }

    /// Mean of this round's samples, ns; none without a sample.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / f64::from(self.count))
    }

    /// Smallest sample of this round.
    pub fn min(&self) -> Option<SimTime> {
        self.min
    }

    /// Where the round began.
    pub fn beg_snd_nxt(&self) -> u32 {
        self.beg_snd_nxt
    }
}
