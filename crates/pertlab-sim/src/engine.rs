//! The event queue and the main loop.
//!
//! One queue of plain-enum events ordered by (time, insertion number): events at
//! the same instant run in the order they were scheduled, so a run is
//! deterministic. Components are addressed by index; packets by their slot in the
//! world's `PacketStore`.
//!
//! Timers (RTO, delayed ACK) are re-armed on almost every ACK but rarely fire.
//! Each has a [`TimerSlot`] that remembers the one event it has pending: moving
//! a deadline later schedules nothing (the pending event re-checks when it pops),
//! moving it earlier schedules a new event and the old one is recognised as stale.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::time::SimTime;

/// Everything that can happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// Channel finished serialising its packet.
    TxDone(u32),
    /// The head of a channel's wire reaches the far node.
    Arrive(u32),
    /// Retransmission timer of a TCP flow.
    Rto(u32),
    /// Delayed-ACK timer of a TCP flow's receiver.
    DelAck(u32),
    /// A TCP flow's delayed send (random send overhead) is due.
    SendRelease(u32),
    /// A TCP flow starts sending.
    FlowStart(u32),
    /// A TCP flow's application stops (no new data after this).
    FlowStop(u32),
    /// A TCP flow's application has data again after a `FlowStop` (rejoins).
    FlowResume(u32),
    /// A TCP flow's video source writes its next segment.
    VideoWrite(u32),
    /// A UDP source sends its next packet.
    UdpSend(u32),
    /// A web session requests its next page.
    WebPage(u32),
    /// A web session requests the next object of its page.
    WebObject(u32),
    /// Record the time series.
    Sample,
    /// Snapshot counters at the start / end of the measurement window.
    MeasureStart,
    MeasureEnd,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    time: SimTime,
    seq: u64,
    event: Event,
}

/// Bytes of one pending event (for the memory estimate).
pub const EVENT_BYTES: usize = std::mem::size_of::<Entry>();

/// Most lanes kept (popping compares every lane's front, so few is better);
/// an empty lane is given to a new delay, and events of a delay that finds no
/// lane go to the heap.
const MAX_LANES: usize = 8;

/// A priority queue of events, FIFO among equal times.
///
/// Most events are scheduled a constant delay after "now" (a transmission of a
/// given size on a given link, a propagation delay). Since "now" never
/// decreases, the events of one delay value are already in time order: they go
/// to a FIFO *lane* for that delay, and only the rest (timers, sources) go to a
/// binary heap. Popping takes the earliest of the heap's top and the lanes'
/// fronts by (time, insertion number), so the order is exactly the order a
/// single heap would give.
///
/// Each lane's front is also kept as one `u128` key (time, then insertion
/// number; [`EMPTY`] for an empty lane) in `fronts`, so that finding the
/// earliest event is a scan of a small contiguous array with one comparison per
/// lane, instead of reading every `VecDeque`'s front (issue 21: the scan ran on
/// every event and was the largest single cost of the event queue).
pub struct EventQueue {
    heap: BinaryHeap<Reverse<Entry>>,
    lane_delays: Vec<SimTime>,
    lanes: Vec<VecDeque<Entry>>,
    /// `key` of each lane's front entry, [`EMPTY`] when the lane is empty or
    /// not in use yet (a fixed-size array: the scan compiles to straight code).
    fronts: [u128; MAX_LANES],
    next_seq: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), lane_delays: Vec::new(), lanes: Vec::new(), fronts: [EMPTY; MAX_LANES], next_seq: 0 }
    }
}

/// The order of entries as one number: time, then insertion number.
fn key(e: &Entry) -> u128 {
    (u128::from(e.time) << 64) | u128::from(e.seq)
}

/// The key of an empty lane: after every entry (an entry at `SimTime::MAX`
/// would need 2^64 insertions to reach it).
const EMPTY: u128 = u128::MAX;

impl EventQueue {
    /// Schedule `event` at `time`.
    pub fn push(&mut self, time: SimTime, event: Event) {
        self.heap.push(Reverse(Entry { time, seq: self.next_seq, event }));
        self.next_seq += 1;
    }

    /// Schedule `event` at `now + delay` (at most `SimTime::MAX`: an event that
    /// late never runs), where `now` is the time of the event being processed
    /// (never earlier than any previous `now`).
    pub fn push_after(&mut self, now: SimTime, delay: SimTime, event: Event) {
        let lane = match self.lane_delays.iter().position(|&d| d == delay) {
            Some(i) => i,
            None if self.lanes.len() < MAX_LANES => {
                self.lane_delays.push(delay);
                self.lanes.push(VecDeque::new());
                self.lanes.len() - 1
            }
            None => match self.lanes.iter().position(VecDeque::is_empty) {
                Some(i) => {
                    self.lane_delays[i] = delay;
                    i
                }
                None => return self.push(now.saturating_add(delay), event),
            },
        };
        let entry = Entry { time: now.saturating_add(delay), seq: self.next_seq, event };
        if self.fronts[lane] == EMPTY {
            self.fronts[lane] = key(&entry);
        }
        self.lanes[lane].push_back(entry);
        self.next_seq += 1;
    }

    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_until(SimTime::MAX)
    }

    /// The earliest event if it is due at or before `limit` (one scan of
    /// the lanes: the main loop's check of the end time costs nothing extra).
    #[inline(always)]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, Event)> {
        // The earliest lane front: its key and lane (`EMPTY` if all lanes are empty).
        let (mut best, mut lane) = (EMPTY, 0);
        for (i, &k) in self.fronts.iter().enumerate() {
            if k < best {
                (best, lane) = (k, i);
            }
        }
        if let Some(&Reverse(top)) = self.heap.peek() {
            if key(&top) < best {
                if top.time > limit {
                    return None;
                }
                self.heap.pop();
                return Some((top.time, top.event));
            }
        }
        if best == EMPTY || (best >> 64) as SimTime > limit {
            return None;
        }
        let q = &mut self.lanes[lane];
        let e = q.pop_front()?;
        self.fronts[lane] = q.front().map_or(EMPTY, key);
        Some((e.time, e.event))
    }

    /// The time of the latest pending `event` (a scan of every pending event:
    /// for changes between steps, not for the event loop).
    pub fn latest(&self, event: Event) -> Option<SimTime> {
        let heap = self.heap.iter().map(|Reverse(e)| e);
        heap.chain(self.lanes.iter().flatten()).filter(|e| e.event == event).map(|e| e.time).max()
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.lanes.iter().map(VecDeque::len).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The one pending event of a timer (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct TimerSlot {
    pending: Option<SimTime>,
}

impl TimerSlot {
    /// The owner's deadline may have changed: schedule `event` if it now falls
    /// before the pending one.
    pub fn arm(&mut self, deadline: Option<SimTime>, queue: &mut EventQueue, event: Event) {
        if let Some(d) = deadline {
            if self.pending.map_or(true, |p| d < p) {
                queue.push(d, event);
                self.pending = Some(d);
            }
        }
    }

    /// The timer's event popped at `now`. Returns true if the owner's deadline is
    /// due now (fire it); otherwise re-schedules for a later deadline or drops a
    /// stale event.
    pub fn on_pop(&mut self, now: SimTime, deadline: Option<SimTime>, queue: &mut EventQueue, event: Event) -> bool {
        if self.pending != Some(now) {
            return false; // superseded by an earlier event that already ran
        }
        self.pending = None;
        match deadline {
            Some(d) if d <= now => true,
            later => {
                self.arm(later, queue, event);
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_pending_event_of_a_kind_is_found_in_lanes_and_heap() {
        let mut q = EventQueue::default();
        q.push_after(0, 10, Event::Arrive(1));
        q.push_after(5, 10, Event::Arrive(1));
        q.push_after(0, 40, Event::Arrive(2));
        q.push(12, Event::Arrive(1));
        q.push(30, Event::Rto(1));
        assert_eq!((q.latest(Event::Arrive(1)), q.latest(Event::Arrive(2)), q.latest(Event::Arrive(3))), (Some(15), Some(40), None));
        q.pop();
        q.pop();
        q.pop();
        assert_eq!(q.latest(Event::Arrive(1)), None, "the three of them popped");
    }

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push(5, Event::Sample);
        q.push(3, Event::TxDone(2));
        q.push(5, Event::TxDone(1));
        q.push(5, Event::Arrive(0));
        assert_eq!(q.pop(), Some((3, Event::TxDone(2))));
        assert_eq!(q.pop(), Some((5, Event::Sample)));
        assert_eq!(q.pop(), Some((5, Event::TxDone(1))));
        assert_eq!(q.pop(), Some((5, Event::Arrive(0))));
        assert!(q.is_empty());
    }

    #[test]
    fn lanes_and_heap_interleave_by_time_then_insertion() {
        let mut q = EventQueue::default();
        q.push_after(0, 10, Event::TxDone(0)); // t = 10, seq 0
        q.push(10, Event::Sample); // t = 10, seq 1
        q.push_after(0, 5, Event::Arrive(1)); // t = 5, seq 2
        q.push_after(3, 5, Event::Arrive(2)); // t = 8, seq 3
        q.push(7, Event::Rto(0)); // t = 7, seq 4
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(5, Event::Arrive(1)), (7, Event::Rto(0)), (8, Event::Arrive(2)), (10, Event::TxDone(0)), (10, Event::Sample)]);
    }

    #[test]
    fn lanes_give_the_order_of_a_single_heap() {
        // Random pushes with more delay values than lanes (lanes are reused once
        // empty, the rest go to the heap), popped while pushing: the order is
        // (time, insertion number), as a plain sorted list gives it.
        use rand::Rng;
        let mut rng = crate::rng::from_seed(7);
        let mut q = EventQueue::default();
        let mut reference: Vec<(SimTime, u64, Event)> = Vec::new();
        let (mut now, mut seq) = (0, 0);
        for step in 0..20_000u32 {
            if rng.gen_bool(0.55) {
                let ev = Event::TxDone(step);
                if rng.gen_bool(0.8) {
                    let delay = rng.gen_range(0..12) * 7;
                    q.push_after(now, delay, ev);
                    reference.push((now + delay, seq, ev));
                } else {
                    let t = now + rng.gen_range(0..100);
                    q.push(t, ev);
                    reference.push((t, seq, ev));
                }
                seq += 1;
            } else if let Some((t, ev)) = q.pop() {
                reference.sort();
                let (rt, _, rev) = reference.remove(0);
                assert_eq!((t, ev), (rt, rev));
                now = t;
            }
        }
        reference.sort();
        let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(rest, reference.iter().map(|&(t, _, e)| (t, e)).collect::<Vec<_>>());
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut q = EventQueue::default();
        q.push_after(0, 10, Event::Arrive(0));
        q.push(20, Event::Sample);
        assert_eq!(q.pop_until(5), None);
        assert_eq!(q.pop_until(10), Some((10, Event::Arrive(0))));
        assert_eq!(q.pop_until(15), None);
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop_until(20), Some((20, Event::Sample)));
    }

    #[test]
    fn timer_slot_schedules_only_when_the_deadline_moves_earlier() {
        let mut q = EventQueue::default();
        let mut t = TimerSlot::default();
        let ev = Event::Rto(0);
        t.arm(Some(100), &mut q, ev);
        t.arm(Some(150), &mut q, ev); // later: nothing new
        assert_eq!(q.len(), 1);
        // Pops at 100 but the deadline is now 150: re-armed, not fired.
        let (now, _) = q.pop().unwrap();
        assert!(!t.on_pop(now, Some(150), &mut q, ev));
        assert_eq!(q.len(), 1); // the re-armed event at 150
        t.arm(Some(120), &mut q, ev); // earlier: a second event
        let (now, _) = q.pop().unwrap();
        assert_eq!(now, 120);
        assert!(t.on_pop(now, Some(120), &mut q, ev));
        // The stale event at 150 is ignored.
        let (now, _) = q.pop().unwrap();
        assert!(!t.on_pop(now, None, &mut q, ev));
        assert!(q.is_empty());
    }
}
