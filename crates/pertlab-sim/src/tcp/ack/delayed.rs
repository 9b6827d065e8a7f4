//! The classic delayed ACK (RFC 5681 4.2; ns-2 `DelAckSink`, Qian 2011's
//! "Delay By Two"): an ACK for every second in-order segment, and within the
//! delayed-ACK timeout of the first unacknowledged one.
//!
//! Left out: the "full-sized segment" condition (all segments are full-sized).

use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct DelayedAck {
    /// The delayed-ACK timeout (`TcpConfig::delayed_ack_timeout_ns`).
    timeout: SimTime,
    /// In-order segments received and not yet acknowledged.
    unacked: u32,
    /// When the timer fires, if armed.
    at: Option<SimTime>,
}

impl DelayedAck {
    pub fn new(timeout: SimTime) -> DelayedAck {
        DelayedAck { timeout, unacked: 0, at: None }
    }

    pub fn in_order(&mut self, now: SimTime) -> bool {
        self.unacked += 1;
        if self.unacked >= 2 {
            return true;
        }
        if self.at.is_none() {
            self.at = Some(now.saturating_add(self.timeout));
        }
        false
    }

    pub fn ack_sent(&mut self) {
        self.unacked = 0;
        self.at = None;
    }

    pub fn deadline(&self) -> Option<SimTime> {
        self.at
    }
}
