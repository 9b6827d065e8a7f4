//! BPR, Backlog-Proportional Rate (Dovrolis, Stiliadis, Ramanathan, SIGCOMM'99;
//! spec section 6.3), the comparison scheduler of Hua's thesis section 5.2:
//! backlogged classes share the link in proportion to s_i q_i(t), with s_i the
//! class weight (the thesis's b_i) and q_i the class's backlog in bytes.
//!
//! Packetized here by credits: each time a packet of L bytes is sent, every
//! class backlogged at that moment is credited its fluid share
//! L s_i q_i / sum_j s_j q_j, the sent class is debited L, and the backlogged
//! class with the largest credit goes next (ties: the higher class). A class
//! that empties loses its credit. This is our packetization (the paper serves
//! a fluid GPS-like rate and does not fix one); O(N) per decision.

use super::classes::{ClassFifos, Scheduler};
use crate::packet::Packet;
use crate::time::SimTime;

pub struct Bpr {
    /// s_i, increasing with the class.
    weights: Vec<f64>,
    credit: Vec<f64>,
    ops: u64,
}

impl Bpr {
    pub fn new(weights: Vec<f64>) -> Self {
        let n = weights.len();
        Bpr { weights, credit: vec![0.0; n], ops: 0 }
    }
}

impl Scheduler for Bpr {
    fn name(&self) -> &'static str {
        "bpr"
    }

    fn pick(&mut self, q: &ClassFifos, _now: SimTime) -> usize {
        let mut best: Option<usize> = None;
        for c in (0..q.classes()).filter(|&c| q.is_backlogged(c)) {
            self.ops += 1;
            if best.is_none_or(|b| self.credit[c] >= self.credit[b]) {
                best = Some(c);
            }
        }
        best.unwrap_or(0)
    }

    fn served(&mut self, class: usize, pkt: &Packet, q: &ClassFifos, _now: SimTime) {
        let size = pkt.size as f64;
        // The shares use the backlogs the packet was sent from (its own bytes included).
        let backlog = |c: usize| q.bytes(c) as f64 + if c == class { size } else { 0.0 };
        let total: f64 = (0..q.classes()).map(|c| self.weights[c] * backlog(c)).sum();
        for c in 0..q.classes() {
            let share = if total > 0.0 { self.weights[c] * backlog(c) / total } else { 0.0 };
            self.credit[c] += size * share;
            self.ops += 3;
        }
        self.credit[class] -= size;
        for c in (0..q.classes()).filter(|&c| !q.is_backlogged(c)) {
            self.credit[c] = 0.0;
        }
    }

    fn ops(&self) -> u64 {
        self.ops
    }
}
