//! The event queue and the main loop.
//!
//! One queue of plain-enum events ordered by (time, insertion number): events at
//! the same instant run in the order they were scheduled, so a run is
//! deterministic. Components are addressed by index; packets move by value.
//!
//! Timers (RTO, delayed ACK) are re-armed on almost every ACK but rarely fire.
//! Each has a [`TimerSlot`] that remembers the one event it has pending: moving
//! a deadline later schedules nothing (the pending event re-checks when it pops),
//! moving it earlier schedules a new event and the old one is recognised as stale.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

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
    /// A TCP flow starts sending.
    FlowStart(u32),
    /// A UDP source sends its next packet.
    UdpSend(u32),
    /// Record the time series.
    Sample,
    /// Snapshot counters at the start / end of the measurement window.
    MeasureStart,
    MeasureEnd,
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    time: SimTime,
    seq: u64,
    event: Event,
}

/// A priority queue of events, FIFO among equal times.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<Entry>>,
    next_seq: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: SimTime, event: Event) {
        self.heap.push(Reverse(Entry { time, seq: self.next_seq, event }));
        self.next_seq += 1;
    }

    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|Reverse(e)| (e.time, e.event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse(e)| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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
        assert_eq!(q.peek_time(), Some(150));
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
