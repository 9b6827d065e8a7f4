//! TCP receiver: cumulative ACK with SACK blocks, optional delayed ACK.
//! INTERFACE STUB -- implementation in progress.

use super::TcpConfig;
use crate::packet::Packet;
use crate::time::SimTime;

/// Counters of one receiver, cumulative since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverCounters {
    /// Data packets that arrived, duplicates included.
    pub data_received: u64,
    /// Segments delivered in order to the application (each segment once):
    /// goodput is this times the payload size.
    pub segments_delivered: u64,
    /// ACKs sent.
    pub acks_sent: u64,
    /// Data packets that arrived with CE set.
    pub ce_received: u64,
}

pub struct TcpReceiver {
    cfg: TcpConfig,
    flow: u32,
    /// The receiver's own node and the sender's node (ACKs go there).
    node: u32,
    peer: u32,
    counters: ReceiverCounters,
}

impl TcpReceiver {
    pub fn new(flow: u32, node: u32, peer: u32, cfg: TcpConfig) -> TcpReceiver {
        TcpReceiver { cfg, flow, node, peer, counters: ReceiverCounters::default() }
    }

    /// A data segment arrived; append the ACK (if one is due now) to `out`.
    pub fn on_data(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        let _ = (now, pkt, out, &self.cfg, self.flow, self.node, self.peer);
        todo!()
    }

    /// The delayed-ACK timer expired at `now` (called only when
    /// `delack_deadline() == Some(now)`).
    pub fn on_delack_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let _ = (now, out);
        todo!()
    }

    pub fn delack_deadline(&self) -> Option<SimTime> {
        todo!()
    }

    /// Next segment expected (everything below has been delivered).
    pub fn rcv_nxt(&self) -> u32 {
        todo!()
    }

    pub fn counters(&self) -> &ReceiverCounters {
        &self.counters
    }
}
