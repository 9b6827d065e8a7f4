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

use dary_heap::QuaternaryHeap;
use std::cmp::Reverse;

use crate::packet_store::PacketId;
use crate::ring::Ring;
use crate::time::SimTime;

/// Everything that can happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// Channel finished serialising its packet.
    TxDone(u32),
    /// The head of a channel's wire reaches the far node: the channel, and
    /// the packet's slot in the store (the wire's front, carried so that the
    /// packet can be read before the wire is).
    Arrive(u32, PacketId),
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

/// A pending event: when it is due, and its insertion number (its place
/// among events due at the same time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub time: SimTime,
    pub seq: u64,
    pub event: Event,
}

/// An entry of the heap, ordered so that the earliest (time, insertion
/// number) is the greatest (the heap is a max-heap). Insertion numbers are
/// unique, so the event itself is never compared. Written out rather than
/// `Reverse<Entry>` of a derived order: with 1000 flows' timers in the heap
/// the derived comparison (which would go on to the event) was not inlined
/// and took 3 % of the run in calls of its own (issue 21); this one is a
/// comparison of two 128-bit keys.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Due(Entry);

impl Due {
    #[inline(always)]
    fn key(&self) -> u128 {
        (u128::from(self.0.time) << 64) | u128::from(self.0.seq)
    }
}

impl Ord for Due {
    #[inline(always)]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.key().cmp(&self.key())
    }
}

impl PartialOrd for Due {
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Bytes of one pending event (for the memory estimate).
pub const EVENT_BYTES: usize = std::mem::size_of::<Entry>();

/// Most lanes kept (popping compares every lane's front, so few is better);
/// an empty lane is given to a new delay, and events of a delay that finds no
/// lane go to the heap.
const MAX_LANES: usize = 8;
// `EventQueue::pop_until` takes the least of the lanes' keys as a tree of eight.
const _: () = assert!(MAX_LANES == 8);

/// Bits of a lane key that hold the lane's rank (see [`EventQueue`]).
const RANK_BITS: u32 = MAX_LANES.trailing_zeros();

/// The latest time a lane holds; a later event goes to the heap (2^61 ns, 73
/// years: its key would not fit in the 64 bits beside the rank).
const LANE_TIME_MAX: SimTime = (u64::MAX >> RANK_BITS) - 1;

/// The key of an empty lane: after every lane entry's key.
const EMPTY: u64 = u64::MAX;

/// The low bits of a lane key: the lane's rank, which is its index.
const RANK_MASK: u64 = (MAX_LANES - 1) as u64;

/// The key of a lane entry due at `time` in the lane of rank `rank`.
#[inline(always)]
fn key(time: SimTime, rank: usize) -> u64 {
    (time << RANK_BITS) | rank as u64
}

/// A FIFO of the events of one delay, in time order by construction (a
/// [`Ring`]: see its module doc for why not a `VecDeque`).
struct Lane {
    delay: SimTime,
    entries: Ring<Entry>,
}

impl Lane {
    fn new(delay: SimTime) -> Self {
        Lane { delay, entries: Ring::new() }
    }
}

/// Which lane a caller's events of one delay went to last (a channel keeps one
/// per kind of event): [`EventQueue::push_after`] checks it before searching
/// the lanes by delay. Any value is safe; a stale one only costs the search.
#[derive(Clone, Copy, Debug)]
pub struct LaneHint(u8);

impl Default for LaneHint {
    fn default() -> Self {
        LaneHint(u8::MAX)
    }
}

/// A priority queue of events, FIFO among equal times.
///
/// Most events are scheduled a constant delay after "now" (a transmission of a
/// given size on a given link, a propagation delay). Since "now" never
/// decreases, the events of one delay value are already in time order: they go
/// to a FIFO *lane* for that delay, and only the rest (timers, sources) go to a
/// heap (four children per node, `dary_heap`: with 1000 flows' retransmission
/// timers in it, half the depth of a binary heap and half its time, issue 21).
/// Popping takes the earliest of the heap's top and the lanes'
/// fronts by (time, insertion number), so the order is exactly the order a
/// single heap would give.
///
/// Finding the earliest lane front is the least of `fronts`, one 64-bit key per
/// lane: the front's time, then the lane's *rank* in the low bits. Two lane
/// fronts due at the same time were scheduled at `time - delay` of their lanes,
/// so the one of the longer delay was scheduled at an earlier "now", hence
/// earlier: ranking the lanes by delay, longest first, orders such ties by
/// insertion number without carrying it in the key (issue 21: 64-bit keys
/// instead of 128-bit (time, insertion) pairs, on every event). The lanes are
/// kept in rank order, so the least key also names its lane, and the least of
/// the fixed array is taken pairwise (a tree of depth 3, not a chain of 8
/// dependent comparisons). Only a tie between the heap's top and a lane front
/// compares insertion numbers.
pub struct EventQueue {
    heap: QuaternaryHeap<Due>,
    /// The lanes by delay, longest first: a lane's index is its rank, in the
    /// low bits of its keys.
    lanes: Vec<Lane>,
    /// The key of each lane's front entry, [`EMPTY`] when the lane is empty or
    /// not in use yet (a fixed-size array: its least is straight code).
    fronts: [u64; MAX_LANES],
    next_seq: u64,
    /// The lane of the last event popped from a lane ([`EventQueue::lane_ahead`]).
    last_lane: usize,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue { heap: QuaternaryHeap::new(), lanes: Vec::new(), fronts: [EMPTY; MAX_LANES], next_seq: 0, last_lane: 0 }
    }
}

impl EventQueue {
    /// Schedule `event` at `time`.
    pub fn push(&mut self, time: SimTime, event: Event) {
        self.heap.push(Due(Entry { time, seq: self.next_seq, event }));
        self.next_seq += 1;
    }

    /// Take an insertion number now for an event that may be pushed later
    /// ([`EventQueue::push_as_of`]).
    pub fn reserve_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// Schedule `event` at `time` in the place among same-time events it
    /// would have had if pushed when `seq` was reserved
    /// ([`EventQueue::reserve_seq`]; each reserved number is pushed at most once).
    pub fn push_as_of(&mut self, time: SimTime, seq: u64, event: Event) {
        self.heap.push(Due(Entry { time, seq, event }));
    }

    /// Schedule `event` at `now + delay` (at most `SimTime::MAX`: an event that
    /// late never runs), where `now` is the time of the event being processed
    /// (never earlier than any previous `now`). `hint` is the caller's memory of
    /// the lane this delay went to (see [`LaneHint`]).
    #[inline(always)]
    pub fn push_after(&mut self, now: SimTime, delay: SimTime, event: Event, hint: &mut LaneHint) {
        let time = now.saturating_add(delay);
        let i = hint.0 as usize;
        if i < self.lanes.len() && self.lanes[i].delay == delay && time <= LANE_TIME_MAX {
            self.push_lane(i, time, event);
        } else {
            self.push_after_unhinted(time, delay, event, hint);
        }
    }

    /// [`EventQueue::push_after`] when the hint does not name the lane of
    /// `delay` (the first push of a channel, another packet size) or the
    /// event is too late for a lane: find or make the lane, else the heap.
    #[cold]
    #[inline(never)]
    fn push_after_unhinted(&mut self, time: SimTime, delay: SimTime, event: Event, hint: &mut LaneHint) {
        match self.lane_for(delay) {
            Some(i) => {
                hint.0 = i as u8;
                if time <= LANE_TIME_MAX {
                    return self.push_lane(i, time, event);
                }
                self.push(time, event)
            }
            None => self.push(time, event),
        }
    }

    #[inline(always)]
    fn push_lane(&mut self, lane: usize, time: SimTime, event: Event) {
        let entry = Entry { time, seq: self.next_seq, event };
        self.next_seq += 1;
        if self.fronts[lane] == EMPTY {
            self.fronts[lane] = key(time, lane);
        }
        self.lanes[lane].entries.push_back(entry);
    }

    /// The lane of `delay`: its own, or a new one, or an empty one given to it
    /// (none when all lanes are taken by other delays).
    #[cold]
    fn lane_for(&mut self, delay: SimTime) -> Option<usize> {
        if let Some(i) = self.lanes.iter().position(|l| l.delay == delay) {
            return Some(i);
        }
        if self.lanes.len() < MAX_LANES {
            self.lanes.push(Lane::new(delay));
        } else {
            let i = self.lanes.iter().position(|l| l.entries.is_empty())?;
            self.lanes[i].delay = delay;
        }
        self.rank_lanes();
        self.lanes.iter().position(|l| l.delay == delay)
    }

    /// Put the lanes in rank order (by delay, longest first) and re-key their
    /// fronts. Lanes move, so callers' hints may name another lane now: they
    /// then find theirs by search (see [`LaneHint`]).
    fn rank_lanes(&mut self) {
        self.lanes.sort_by_key(|l| Reverse(l.delay));
        for (rank, lane) in self.lanes.iter().enumerate() {
            self.fronts[rank] = lane.entries.front().map_or(EMPTY, |e| key(e.time, rank));
        }
    }

    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_until(SimTime::MAX).map(|e| (e.time, e.event))
    }

    /// The earliest event if it is due at or before `limit` (one scan of
    /// the lanes: the main loop's check of the end time costs nothing extra).
    /// [`EventQueue::push_as_of`] with its time and insertion number puts it
    /// back in its place.
    #[inline(always)]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<Entry> {
        // The earliest lane front's key (`EMPTY` if all lanes are empty), and its lane.
        let f = &self.fronts;
        let best = (f[0].min(f[1]).min(f[2].min(f[3]))).min(f[4].min(f[5]).min(f[6].min(f[7])));
        let lane = (best & RANK_MASK) as usize;
        if let Some(&Due(top)) = self.heap.peek() {
            let before_lanes = best == EMPTY || {
                let t = best >> RANK_BITS;
                top.time < t || (top.time == t && self.lanes[lane].entries.front().is_some_and(|f| top.seq < f.seq))
            };
            if before_lanes {
                if top.time > limit {
                    return None;
                }
                self.heap.pop();
                return Some(top);
            }
        }
        if best == EMPTY || best >> RANK_BITS > limit {
            return None;
        }
        self.last_lane = lane;
        let entries = &mut self.lanes[lane].entries;
        let e = entries.pop_front()?;
        self.fronts[lane] = entries.front().map_or(EMPTY, |f| key(f.time, lane));
        Some(e)
    }

    /// The time of the latest pending event that `which` picks (a scan of
    /// every pending event: for changes between steps, not for the event loop).
    pub fn latest(&self, which: impl Fn(&Event) -> bool) -> Option<SimTime> {
        self.entries().filter(|e| which(&e.event)).map(|e| e.time).max()
    }

    /// Every pending entry, the heap's then the lanes'.
    fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.heap.iter().map(|Due(e)| e).chain(self.lanes.iter().flat_map(|l| l.entries.iter()))
    }

    /// The event `i` places behind the front of the lane the last lane event
    /// came from: after an arrival, the arrivals due next on the links of its
    /// delay, whose memory the world can ask for early. A hint only: after a
    /// pop from the heap it names the lane of an earlier pop.
    #[inline(always)]
    pub fn lane_ahead(&self, i: usize) -> Option<Event> {
        self.lanes.get(self.last_lane).and_then(|l| l.entries.get(i)).map(|e| e.event)
    }

    /// Every pending event, in no particular order (a scan: for the end of a
    /// run, not for the event loop).
    pub fn pending(&self) -> impl Iterator<Item = &Event> {
        self.entries().map(|e| &e.event)
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.lanes.iter().map(|l| l.entries.len()).sum::<usize>()
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
            if self.pending.is_none_or(|p| d < p) {
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
        q.push_after(0, 10, Event::Arrive(1, 7), &mut LaneHint::default());
        q.push_after(5, 10, Event::Arrive(1, 8), &mut LaneHint::default());
        q.push_after(0, 40, Event::Arrive(2, 9), &mut LaneHint::default());
        q.push(12, Event::Arrive(1, 10));
        q.push(30, Event::Rto(1));
        let on = |c: u32| move |e: &Event| matches!(*e, Event::Arrive(x, _) if x == c);
        assert_eq!((q.latest(on(1)), q.latest(on(2)), q.latest(on(3))), (Some(15), Some(40), None));
        q.pop();
        q.pop();
        q.pop();
        assert_eq!(q.latest(on(1)), None, "the three of them popped");
    }

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push(5, Event::Sample);
        q.push(3, Event::TxDone(2));
        q.push(5, Event::TxDone(1));
        q.push(5, Event::Arrive(0, 0));
        assert_eq!(q.pop(), Some((3, Event::TxDone(2))));
        assert_eq!(q.pop(), Some((5, Event::Sample)));
        assert_eq!(q.pop(), Some((5, Event::TxDone(1))));
        assert_eq!(q.pop(), Some((5, Event::Arrive(0, 0))));
        assert!(q.is_empty());
    }

    #[test]
    fn lanes_and_heap_interleave_by_time_then_insertion() {
        let mut q = EventQueue::default();
        q.push_after(0, 10, Event::TxDone(0), &mut LaneHint::default()); // t = 10, seq 0
        q.push(10, Event::Sample); // t = 10, seq 1
        q.push_after(0, 5, Event::Arrive(1, 0), &mut LaneHint::default()); // t = 5, seq 2
        q.push_after(3, 5, Event::Arrive(2, 0), &mut LaneHint::default()); // t = 8, seq 3
        q.push(7, Event::Rto(0)); // t = 7, seq 4
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(5, Event::Arrive(1, 0)), (7, Event::Rto(0)), (8, Event::Arrive(2, 0)), (10, Event::TxDone(0)), (10, Event::Sample)]);
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
        // One hint per delay, as channels keep them: stale once its lane goes to another delay.
        let mut hints = [LaneHint::default(); 12];
        for step in 0..20_000u32 {
            if rng.gen_bool(0.55) {
                let ev = Event::TxDone(step);
                if rng.gen_bool(0.8) {
                    let delay = rng.gen_range(0..12) * 7;
                    q.push_after(now, delay, ev, &mut hints[(delay / 7) as usize]);
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
    fn equal_times_in_lanes_pop_in_insertion_order_whatever_the_lane_order() {
        // Lanes created shortest delay first; ties at t = 30 must still pop in
        // insertion order (the longer delay was scheduled earlier), and a tie
        // with the heap's top goes by insertion number too.
        let mut q = EventQueue::default();
        let mut hints = [LaneHint::default(); 3];
        q.push_after(0, 5, Event::TxDone(9), &mut hints[0]); // lane of 5 made first
        q.push_after(0, 30, Event::Arrive(0, 0), &mut hints[2]); // t = 30, seq 1
        q.push_after(10, 20, Event::Arrive(1, 0), &mut hints[1]); // t = 30, seq 2
        q.push(30, Event::Sample); // t = 30, seq 3
        q.push_after(25, 5, Event::Arrive(2, 0), &mut hints[0]); // t = 30, seq 4
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(5, Event::TxDone(9)), (30, Event::Arrive(0, 0)), (30, Event::Arrive(1, 0)), (30, Event::Sample), (30, Event::Arrive(2, 0))]);
    }

    #[test]
    fn events_too_late_for_a_lane_key_go_to_the_heap_in_order() {
        let mut q = EventQueue::default();
        let mut hint = LaneHint::default();
        let far = LANE_TIME_MAX - 5;
        q.push_after(far, 10, Event::Arrive(1, 0), &mut hint); // past LANE_TIME_MAX: heap
        q.push_after(far, 3, Event::Arrive(2, 0), &mut LaneHint::default()); // a lane
        q.push_after(far, SimTime::MAX, Event::Arrive(3, 0), &mut LaneHint::default()); // saturates: heap
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(far + 3, Event::Arrive(2, 0)), (far + 10, Event::Arrive(1, 0)), (SimTime::MAX, Event::Arrive(3, 0))]);
    }

    #[test]
    fn an_event_pushed_as_of_a_reserved_number_takes_that_place_among_same_time_events() {
        let mut q = EventQueue::default();
        q.push(10, Event::Rto(0));
        let reserved = q.reserve_seq();
        q.push(10, Event::Rto(2));
        q.push_after(0, 10, Event::Arrive(3, 0), &mut LaneHint::default());
        // Decided after the others, but stands for the moment of the reservation.
        q.push_as_of(10, reserved, Event::TxDone(1));
        let order: Vec<Event> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec![Event::Rto(0), Event::TxDone(1), Event::Rto(2), Event::Arrive(3, 0)]);
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut q = EventQueue::default();
        q.push_after(0, 10, Event::Arrive(0, 0), &mut LaneHint::default());
        q.push(20, Event::Sample);
        assert_eq!(q.pop_until(5), None);
        let at = |e: Option<Entry>| e.map(|e| (e.time, e.event));
        assert_eq!(at(q.pop_until(10)), Some((10, Event::Arrive(0, 0))));
        assert_eq!(q.pop_until(15), None);
        assert_eq!(q.len(), 1);
        assert_eq!(at(q.pop_until(20)), Some((20, Event::Sample)));
    }

    /// An entry popped and put back with its time and insertion number
    /// (`push_as_of`, as an interrupted run does) pops again in its place,
    /// whether it came from a lane or from the heap.
    #[test]
    fn an_entry_put_back_pops_in_its_place() {
        let fill = || {
            let mut q = EventQueue::default();
            let mut hint = LaneHint::default();
            for i in 0..4 {
                q.push_after(i, 10, Event::Arrive(i as u32, 0), &mut hint);
                q.push(i + 10, Event::Rto(i as u32));
            }
            q
        };
        let order = |mut q: EventQueue| std::iter::from_fn(move || q.pop()).collect::<Vec<_>>();
        let expected = order(fill());
        for k in 0..expected.len() {
            let mut q = fill();
            let mut before: Vec<_> = (0..k).map(|_| q.pop().unwrap()).collect();
            let e = q.pop_until(SimTime::MAX).unwrap();
            q.push_as_of(e.time, e.seq, e.event);
            before.extend(order(q));
            assert_eq!(before, expected, "put back after {k} pops");
        }
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
