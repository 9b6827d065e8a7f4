//! WTP, Waiting-Time Priority (Dovrolis et al. SIGCOMM'99; Kleinrock's
//! time-dependent priorities, 1964), as Hua's thesis (CUHK 2002) section 5.2
//! states it (spec section 4.1): non-preemptive; the head-of-line packet of
//! class r, which arrived at tau, has priority q_r(t) = b_r (t - tau) (eq. 5.1);
//! at each transmission the largest is served. Ties go to the higher class.
//!
//! Cost: one subtraction and one multiplication per backlogged class plus one
//! comparison less than the backlogged classes (the thesis's "about 3N"), all
//! at decision time.

use super::classes::{ClassFifos, Scheduler};
use crate::time::SimTime;

pub struct Wtp {
    /// b_r, increasing with the class.
    weights: Vec<f64>,
    ops: u64,
}

impl Wtp {
    pub fn new(weights: Vec<f64>) -> Self {
        Wtp { weights, ops: 0 }
    }
}

impl Scheduler for Wtp {
    fn name(&self) -> &'static str {
        "wtp"
    }

    fn pick(&mut self, q: &ClassFifos, now: SimTime) -> usize {
        let mut best: Option<(f64, usize)> = None;
        for (c, &b) in self.weights.iter().enumerate() {
            let Some(tau) = q.head_arrival(c) else { continue };
            let priority = b * now.saturating_sub(tau) as f64;
            self.ops += 2;
            best = match best {
                None => Some((priority, c)),
                Some((p, bc)) => {
                    self.ops += 1;
                    if priority >= p {
                        Some((priority, c))
                    } else {
                        Some((p, bc))
                    }
                }
            };
        }
        best.map_or(0, |(_, c)| c)
    }

    fn ops(&self) -> u64 {
        self.ops
    }
}
