//! A window set from outside the simulator: the controller of flows that a
//! learning agent drives between the steps of a run (`pertlab.gym`, through
//! [`World::set_cwnd`](crate::world::World::set_cwnd)).
//!
//! It changes nothing by itself: no growth on ACKs, and a loss or an ECN echo
//! keeps the window (`ssthresh` = cwnd, so entering recovery leaves cwnd where
//! the agent put it). The sender's own rules still apply: a timeout sets cwnd
//! to one segment (RFC 5681 3.1), and the receiver window caps it. This is the
//! shape of ns3-gym's time-based TCP environment, where the agent sets cwnd
//! every step and the socket's controller only applies it. Without an agent
//! the window stays at its initial value.

use super::{CcState, CongestionControl, MIN_SSTHRESH};
use crate::rng::SimRng;

#[derive(Clone, Copy, Debug, Default)]
pub struct Agent;

impl CongestionControl for Agent {
    fn name(&self) -> &'static str {
        "agent"
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        tp.snd_cwnd.max(MIN_SSTHRESH)
    }

    fn cong_avoid(&mut self, _tp: &mut CcState, _acked: u32, _rng: &mut SimRng) {}
}
