//! TCP sender: sequence space, SACK scoreboard and loss recovery.
//! INTERFACE STUB -- implementation in progress.

use super::cc::{CcCounters, CcState, CongestionControl};
use super::TcpConfig;
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::time::SimTime;

/// Counters of one sender, cumulative since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderCounters {
    /// Data segments handed to the network, retransmissions included.
    pub segments_sent: u64,
    /// Of those, retransmissions.
    pub retransmits: u64,
    /// Retransmission timeouts that fired.
    pub timeouts: u64,
    /// Entries into fast recovery.
    pub fast_recoveries: u64,
    /// Window reductions in response to ECN echoes.
    pub ecn_reductions: u64,
    /// ACKs received.
    pub acks_received: u64,
    /// RTT samples taken, and their sum and extremes (for the per-flow summary).
    pub rtt_samples: u64,
    pub rtt_sum_ns: u128,
    pub rtt_min_ns: SimTime,
    pub rtt_max_ns: SimTime,
}

pub struct TcpSender {
    pub tp: CcState,
    cc: Box<dyn CongestionControl>,
    cfg: TcpConfig,
    flow: u32,
    src: u32,
    dst: u32,
    counters: SenderCounters,
}

impl TcpSender {
    /// A sender for flow `flow` from node `src` to node `dst`.
    pub fn new(flow: u32, src: u32, dst: u32, cfg: TcpConfig, cc: Box<dyn CongestionControl>) -> TcpSender {
        let tp = CcState::new(cfg.init_cwnd, cfg.max_cwnd, cfg.packet_size);
        TcpSender { tp, cc, cfg, flow, src, dst, counters: SenderCounters::default() }
    }

    /// Start sending at `now`: append the first window of segments to `out`.
    pub fn start(&mut self, now: SimTime, rng: &mut SimRng, out: &mut Vec<Packet>) {
        let _ = (now, rng, out, self.flow, self.src, self.dst, &self.cfg);
        todo!()
    }

    /// Process an ACK; append segments to send to `out`.
    pub fn on_ack(&mut self, now: SimTime, ack: &Packet, rng: &mut SimRng, out: &mut Vec<Packet>) {
        let _ = (now, ack, rng, out);
        todo!()
    }

    /// The retransmission timer expired at `now` (the engine calls this only when
    /// `rto_deadline() == Some(now)`).
    pub fn on_rto(&mut self, now: SimTime, rng: &mut SimRng, out: &mut Vec<Packet>) {
        let _ = (now, rng, out);
        todo!()
    }

    /// When the retransmission timer fires, if armed.
    pub fn rto_deadline(&self) -> Option<SimTime> {
        todo!()
    }

    pub fn counters(&self) -> &SenderCounters {
        &self.counters
    }

    pub fn cc_counters(&self) -> CcCounters {
        self.cc.counters()
    }

    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }
}
