//! Strict priority: the highest backlogged class is always served (class 0 is
//! the lowest). A baseline for the proportional schedulers of Hua's thesis
//! Chapter 5 (spec section 8, "Strict priority / FIFO for sanity checks").
//! Non-preemptive; lower classes can starve.

use super::classes::{ClassFifos, Scheduler};
use crate::time::SimTime;

#[derive(Default)]
pub struct StrictPriority {
    ops: u64,
}

impl Scheduler for StrictPriority {
    fn name(&self) -> &'static str {
        "priority"
    }

    fn pick(&mut self, q: &ClassFifos, _now: SimTime) -> usize {
        let mut c = q.classes() - 1;
        while c > 0 && !q.is_backlogged(c) {
            self.ops += 1;
            c -= 1;
        }
        self.ops += 1;
        c
    }

    fn ops(&self) -> u64 {
        self.ops
    }
}
