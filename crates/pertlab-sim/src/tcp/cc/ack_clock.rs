//! Test driver shared by the unit tests of the window-per-round controllers
//! (Vegas, Compound, Illinois, FAST): one controller and its `CcState` as an
//! ACK-clocked bulk flow. Each ACK acknowledges one segment and carries a
//! chosen RTT sample; after every ACK the sender fills the window. No sender,
//! no time: these controllers count their rounds in sequence space.

use super::{AckSample, CcState, CongestionControl};
use crate::rng::{from_seed, SimRng};
use crate::time::SimTime;

pub struct AckClock<C> {
    pub cc: C,
    pub tp: CcState,
    pub rng: SimRng,
}

impl<C: CongestionControl> AckClock<C> {
    /// `cc` at window `cwnd` with slow-start threshold `ssthresh`, a window in flight.
    pub fn new(mut cc: C, cwnd: u32, ssthresh: u32) -> AckClock<C> {
        let mut tp = CcState::new(cwnd, 10_000, 1500);
        tp.snd_ssthresh = ssthresh;
        tp.snd_nxt = cwnd;
        cc.init(&mut tp);
        AckClock { cc, tp, rng: from_seed(1) }
    }

    /// One segment acknowledged, with the RTT sample `rtt` (or none).
    pub fn ack(&mut self, rtt: impl Into<Option<SimTime>>) {
        self.tp.snd_una += 1;
        let sample = AckSample { pkts_acked: 1, rtt: rtt.into() };
        self.cc.pkts_acked(&mut self.tp, &sample, &mut self.rng);
        self.cc.cong_avoid(&mut self.tp, 1, &mut self.rng);
        self.tp.snd_nxt = self.tp.snd_nxt.max(self.tp.snd_una + self.tp.snd_cwnd);
    }

    /// ACKs everything outstanding now, one round trip, each with the sample `rtt`.
    pub fn round(&mut self, rtt: impl Into<Option<SimTime>>) {
        let rtt = rtt.into();
        self.round_by(|_| rtt);
    }

    /// One round trip in which each ACK's sample is `rtt(snd_cwnd)`.
    pub fn round_by(&mut self, rtt: impl Fn(u32) -> Option<SimTime>) {
        let end = self.tp.snd_nxt;
        while self.tp.snd_una < end {
            let r = rtt(self.tp.snd_cwnd);
            self.ack(r);
        }
    }
}
