//! S-WTP, Shifted Waiting-Time Priority: Hua's thesis (CUHK 2002) section 5.3,
//! following the spec `vegas-jcc-swtp-hua.md` sections 4.2 and 4.3 exactly.
//!
//! Each class r keeps a shifted priority P_s(r); the decision serves the
//! backlogged class with the largest P_s (ties: the higher class), computing
//! no priority at decision time. After each departure of a class-r packet that
//! arrived at tau:
//! - local update: P_s(r) = b_r (t - tau), eq. (5.1) with t the start of its
//!   transmission; it is the priority of the class's next packet;
//! - global update (prevents starvation; switchable off only to show why it
//!   exists): one other class g, taken in round-robin order independent of r
//!   and skipping empty classes (spec 4.3's recommended GAP choice), gets
//!   P_s(g) = max(P_s(g), b_g (t - tau_HOL(g))).
//!
//! A class that empties keeps its last P_s for when it is backlogged again
//! (spec 4.3, GAP: "keep the last P_s"; initial P_s = 0). The backlogged
//! classes sit in an indexed heap ([`ClassHeap`]), so each update costs
//! O(log N) (erratum 7: the thesis's sorted array would shift O(N) entries).
//! Left out: the round robin's search for the next backlogged class scans
//! classes one by one (at most N - 1 steps; counted in the operations).

use super::class_heap::ClassHeap;
use super::classes::{ClassFifos, Scheduler};
use crate::packet::Packet;
use crate::time::SimTime;

pub struct Swtp {
    /// b_r, increasing with the class.
    weights: Vec<f64>,
    /// P_s(r), kept while a class is empty.
    shifted: Vec<f64>,
    /// The backlogged classes by P_s.
    heap: ClassHeap,
    /// The round robin's last class.
    rr: usize,
    global_update: bool,
    /// Subtractions, multiplications and round-robin steps (heap comparisons are added).
    arith: u64,
}

impl Swtp {
    pub fn new(weights: Vec<f64>, global_update: bool) -> Self {
        let n = weights.len();
        Swtp { shifted: vec![0.0; n], heap: ClassHeap::new(n), rr: n.saturating_sub(1), global_update, arith: 0, weights }
    }

    /// The next backlogged class after the round-robin pointer other than `served`.
    fn next_in_round(&mut self, q: &ClassFifos, served: usize) -> Option<usize> {
        let n = self.weights.len();
        for step in 1..=n {
            let g = (self.rr + step) % n;
            self.arith += 1;
            if g != served && q.is_backlogged(g) {
                self.rr = g;
                return Some(g);
            }
        }
        None
    }
}

impl Scheduler for Swtp {
    fn name(&self) -> &'static str {
        "swtp"
    }

    fn arrived(&mut self, class: usize, q: &ClassFifos) {
        if q.len(class) == 1 && !self.heap.contains(class) {
            self.heap.push(class, self.shifted[class]);
        }
    }

    fn pick(&mut self, _q: &ClassFifos, _now: SimTime) -> usize {
        self.heap.top().unwrap_or(0)
    }

    fn served(&mut self, class: usize, pkt: &Packet, q: &ClassFifos, now: SimTime) {
        // Local update, eq. (5.1) for the departing packet.
        self.shifted[class] = self.weights[class] * now.saturating_sub(pkt.enq_ts) as f64;
        self.arith += 2;
        if q.is_backlogged(class) {
            self.heap.update(class, self.shifted[class]);
        } else {
            self.heap.remove(class);
        }
        if !self.global_update {
            return;
        }
        let Some(g) = self.next_in_round(q, class) else { return };
        let Some(tau) = q.head_arrival(g) else { return };
        let current = self.weights[g] * now.saturating_sub(tau) as f64;
        self.arith += 3;
        if current > self.shifted[g] {
            self.shifted[g] = current;
            self.heap.update(g, current);
        }
    }

    fn ops(&self) -> u64 {
        self.arith + self.heap.comparisons
    }
}
