//! Timer instants of a controller that the original runs on a periodic timer
//! (ns-2 PI's `CalcTimer` at `w` Hz, PIE's `T_UPDATE`), caught up lazily at
//! packet events instead of being engine events.
//!
//! The instants are `k * period` for `k = 1, 2, ...` (the first update one
//! period after the start, as ns-2's `resched(1/w)`). At a packet event at time
//! `now` every instant `<= now` not yet processed is due; the discipline runs
//! its update once per due instant with the queue as it stood **before** the
//! event, which is what the queue was at each of those instants because a
//! queue changes only at packet events. An instant that coincides with an event
//! therefore sees the queue before that event. The result equals that of a
//! timer, except that `probability()` read between events (by a monitor) shows
//! the value of the last event.

use crate::time::{SimTime, NS_PER_MS};

/// Least period of a controller's timer: 1 ms, one jiffy at HZ = 1000, the
/// finest kernel timer tick Linux offers (CONFIG_HZ_1000); Linux's `sch_pie`
/// keeps `tupdate` in jiffies (`usecs_to_jiffies`). Between two packet events
/// the missed instants are caught up one by one, so the period bounds the work
/// per simulated second.
pub const MIN_PERIOD_NS: SimTime = NS_PER_MS;
/// Highest sampling frequency of a PI law, Hz: one sample per [`MIN_PERIOD_NS`].
pub const MAX_SAMPLING_HZ: f64 = 1e9 / MIN_PERIOD_NS as f64;

/// The instants `k * period`, `k >= 1`, and how many have been processed.
#[derive(Clone, Debug)]
pub struct Periodic {
    period: SimTime,
    /// Instants processed so far (the last one is `done * period`).
    done: u64,
}

impl Periodic {
    /// `period` in nanoseconds, at least 1.
    pub fn new(period: SimTime) -> Periodic {
        Periodic { period: period.max(1), done: 0 }
    }

    /// Instants in `(last processed, now]`, now marked processed.
    pub fn due(&mut self, now: SimTime) -> u64 {
        let upto = now / self.period;
        let n = upto.saturating_sub(self.done);
        self.done = self.done.max(upto);
        n
    }
}

/// Run `step` once per due instant, stopping early once a step leaves the
/// state unchanged (every further step would then leave it unchanged too, as
/// the input is constant over the gap): a long idle period costs no more than
/// the steps that actually change something.
pub fn catch_up<S: PartialEq + Copy>(state: &mut S, instants: u64, mut step: impl FnMut(&mut S)) {
    for _ in 0..instants {
        let before = *state;
        step(state);
        if *state == before {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_instants_up_to_and_including_now() {
        let mut p = Periodic::new(10);
        assert_eq!(p.due(9), 0);
        assert_eq!(p.due(10), 1);
        assert_eq!(p.due(10), 0);
        assert_eq!(p.due(35), 2);
        // Time never runs backwards, but a stale call must not double count.
        assert_eq!(p.due(20), 0);
        assert_eq!(p.due(40), 1);
    }

    #[test]
    fn catch_up_stops_at_a_fixed_point() {
        let mut calls = 0;
        let mut x = 3u32;
        catch_up(&mut x, 1_000_000, |x| {
            calls += 1;
            *x = x.saturating_sub(1);
        });
        // 3 -> 2 -> 1 -> 0, then one step that leaves 0 unchanged.
        assert_eq!((x, calls), (0, 4));
    }
}
