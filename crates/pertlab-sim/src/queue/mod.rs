//! Output queues of links and the queue disciplines that decide admission.
//!
//! An [`OutputQueue`] owns the FIFO buffer, the hard limit and the counters; a
//! [`QueueDiscipline`] only decides, per arriving packet, whether to drop it or to
//! mark it (and, for sojourn-time AQMs, per departing packet). This keeps every
//! discipline small and makes DropTail the discipline that never intervenes.
//!
//! Order of checks on arrival follows ns-3's `RedQueueDisc`: the discipline sees
//! the packet first (so RED's average is updated on every arrival), then the hard
//! limit may still drop it ("overflow").
//!
//! A packet that finds an idle link and an empty DropTail queue is handed to the
//! transmitter without entering the buffer ([`OutputQueue::pass_idle`]), with the
//! counters an enqueue and a dequeue at the same instant would leave (issue 21).
//!
//! Disciplines whose original runs on a timer (PI's sampling, PIE's
//! `T_UPDATE`) are not given engine events: they catch up the missed timer
//! instants at the next packet event (see [`periodic`]). The queue only changes
//! at packet events, so the length each missed instant would have seen is
//! known exactly and the result is the timer's.
//!
//! A multi-class queue ([`classes`]: strict priority, WTP, S-WTP, BPR) keeps
//! one FIFO per class instead of the single one, with a per-class buffer of the
//! queue's limit; a [`classes::Scheduler`] picks the class served next. Its
//! admission is per-class tail drop (the discipline is DropTail).

pub mod bpr;
pub mod class_heap;
pub mod classes;
pub mod codel;
pub mod droptail;
pub mod jcc;
pub mod periodic;
pub mod pi;
pub mod pie;
pub mod priority;
pub mod red;
pub mod step;
pub mod swtp;
pub mod wtp;
pub mod xcp;

use rand::Rng;

use crate::packet::{Ecn, Packet};
use crate::packet_store::{PacketId, PacketStore};
use crate::ring::Ring;
use crate::rng::SimRng;
use crate::time::SimTime;

/// The buffer size of a queue, in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

/// What bounds what a queue can hold, for [`QueueDiscipline::never_acts`]: its buffer, the
/// slowest rate that has drained it and the largest packet that can enter it (None when no
/// size bounds the packets that cross it, as exponential UDP sizes, or when none crosses it).
#[derive(Clone, Copy, Debug)]
pub struct QueueBounds {
    pub limit: QueueLimit,
    pub rate_bps: u64,
    pub largest_packet: Option<u32>,
}

impl QueueBounds {
    /// The longest a packet can wait between entering the queue and leaving it, ns: at most
    /// `limit - 1` packets queued ahead of it (it enters only below the limit) and one in
    /// transmission, each at most the largest packet (with a limit in bytes, the buffer's bytes
    /// and one packet in transmission). None when the largest packet is not known (or the
    /// link is stopped: a rate of 0).
    pub fn max_sojourn_ns(&self) -> Option<SimTime> {
        let largest = u64::from(self.largest_packet?);
        let bytes = match self.limit {
            QueueLimit::Packets(n) => u64::from(n).saturating_mul(largest),
            QueueLimit::Bytes(b) => b.saturating_add(largest),
        };
        let bits = u128::from(bytes) * 8 * u128::from(crate::time::NS_PER_SEC);
        let ns = bits.checked_div(u128::from(self.rate_bps))?;
        Some(SimTime::try_from(ns).unwrap_or(SimTime::MAX))
    }

    /// The words of a `never_acts` reason that give the longest wait `longest` (ns) and what
    /// it comes from.
    pub fn longest_wait(&self, longest: SimTime) -> String {
        format!(
            "the longest a packet can wait in it, {:.3} ms (the buffer full of its largest packets, {} bytes, at {} bit/s)",
            longest as f64 / crate::time::NS_PER_MS as f64,
            self.largest_packet.unwrap_or_default(),
            self.rate_bps
        )
    }
}

/// What a discipline may look at when it decides.
#[derive(Clone, Copy, Debug)]
pub struct QueueView {
    /// Packets and bytes in the buffer (not counting the arriving packet).
    pub len_pkts: u32,
    pub len_bytes: u64,
    pub limit: QueueLimit,
    /// Rate of the link this queue feeds, bits per second.
    pub link_rate_bps: u64,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropKind {
    /// The buffer was full.
    Overflow,
    /// The discipline dropped it early (probabilistic AQM drop).
    Early,
    /// The discipline dropped it unconditionally (RED above max_th, non-gentle).
    Forced,
}

/// A discipline's decision about one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Let it through (the discipline may have set CE on it).
    Pass,
    Drop(DropKind),
}

/// An active (or passive) queue management algorithm.
pub trait QueueDiscipline: Send {
    /// Short name used in results: the queue kind ("droptail", "red", "pie", ...).
    fn name(&self) -> &'static str;

    /// Called for each arriving packet before the hard limit is checked. May set
    /// `pkt.ecn = Ecn::Ce` to mark instead of dropping.
    fn on_arrival(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict;

    /// Called when a packet leaves the buffer for the link; `view` describes the
    /// buffer after its removal. Sojourn-time AQMs may drop here.
    fn on_departure(&mut self, _view: &QueueView, _pkt: &mut Packet, _now: SimTime) -> Verdict {
        Verdict::Pass
    }

    /// The discipline's current drop/mark probability, for time series (0 where not meaningful).
    fn probability(&self) -> f64 {
        0.0
    }

    /// The averaged queue the discipline acts on (RED's EWMA `avg`), for time series.
    fn average(&self) -> Option<f64> {
        None
    }

    /// The current max_p of an adaptive discipline, for time series.
    fn max_p(&self) -> Option<f64> {
        None
    }

    /// The discipline's other state variables by name, in SI units (seconds),
    /// for a run read between steps (`world/live.rs`): CoDel's dropping state,
    /// count and next drop time, PIE's delay estimate and burst allowance, the
    /// XCP router's control interval and aggregate feedback; None for one not
    /// defined now (CoDel's next drop outside the dropping state). Empty where
    /// `probability`, `average` and `max_p` say all there is.
    fn variables(&self) -> Vec<(&'static str, Option<f64>)> {
        Vec::new()
    }

    /// Why the discipline can never drop or mark early on a queue of these
    /// `bounds`: its operating point lies at or beyond what the buffer holds
    /// (RED's min_th, CoDel's or PIE's delay threshold), so the queue drops on overflow
    /// only, as drop-tail; None when it can act, or when that is not certain.
    /// Read when the results' `queue_warnings` are made and when a run in
    /// steps reads its queues, at the slowest rate the link has had so far.
    fn never_acts(&self, _bounds: &QueueBounds) -> Option<String> {
        None
    }

    /// True for a discipline that never drops nor marks and keeps no state
    /// (DropTail): the queue then makes neither call above (issue 21: two calls
    /// through the trait object per packet and hop). False unless a discipline
    /// says so, so that no discipline is skipped by mistake.
    fn is_passive(&self) -> bool {
        false
    }
}

/// Whether a packet may be marked instead of dropped (ECT(0), ECT(1) or already CE).
pub(crate) fn ecn_capable(pkt: &Packet) -> bool {
    matches!(pkt.ecn, Ecn::Ect | Ecn::Ce)
}

/// Mark a packet Congestion Experienced and let it through.
pub(crate) fn mark(pkt: &mut Packet) -> Verdict {
    pkt.ecn = Ecn::Ce;
    Verdict::Pass
}

/// The verdict for a packet an AQM has chosen: a CE mark when `use_ecn` and the
/// packet is ECN-capable, otherwise an early drop.
pub(crate) fn signal(pkt: &mut Packet, use_ecn: bool) -> Verdict {
    if use_ecn && ecn_capable(pkt) {
        mark(pkt)
    } else {
        Verdict::Drop(DropKind::Early)
    }
}

/// True with probability `p`, drawing only when the outcome is uncertain.
pub(crate) fn draw(rng: &mut SimRng, p: f64) -> bool {
    if p <= 0.0 {
        false
    } else if p >= 1.0 {
        true
    } else {
        rng.gen::<f64>() < p
    }
}

/// Cumulative counters of one queue. Averages over a measurement window are
/// differences of two snapshots of these (see `stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueCounters {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    pub drops_overflow: u64,
    pub drops_early: u64,
    pub drops_forced: u64,
    pub drops_departure: u64,
    /// Packets that left with a CE mark this queue set (at their arrival or departure).
    pub marks: u64,
    /// Integral of the length in packets over time, packet-nanoseconds.
    pub area_pkts: u128,
    /// Integral of the length in bytes over time, byte-nanoseconds.
    pub area_bytes: u128,
}

impl QueueCounters {
    pub fn drops(&self) -> u64 {
        self.drops_overflow + self.drops_early + self.drops_forced + self.drops_departure
    }
}

/// A FIFO buffer with a limit, a discipline and counters. The buffer holds
/// the packets' slots in the world's [`PacketStore`] (see `packet_store`).
pub struct OutputQueue {
    buf: Ring<PacketId>,
    /// The per-class buffers and scheduler of a multi-class queue (then `buf`
    /// stays empty). Boxed: inline it made every channel 264 bytes larger, and
    /// a single-FIFO queue's per-packet fields further apart (issue 21).
    pub classes: Option<Box<classes::MultiClass>>,
    /// Packets waiting (in `buf` or in `classes`).
    len_pkts: u32,
    len_bytes: u64,
    pub limit: QueueLimit,
    pub link_rate_bps: u64,
    discipline: Box<dyn QueueDiscipline>,
    /// `discipline.is_passive()`, asked once.
    passive: bool,
    /// Counts so far; its time integrals cover the packets that have left
    /// (read them through [`OutputQueue::counters_at`], which adds the rest).
    pub counters: QueueCounters,
    pub rng: SimRng,
}

/// What became of a packet offered to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    Queued,
    Dropped(DropKind),
}

impl OutputQueue {
    pub fn new(limit: QueueLimit, link_rate_bps: u64, discipline: Box<dyn QueueDiscipline>, rng: SimRng) -> Self {
        OutputQueue {
            buf: Ring::new(),
            classes: None,
            len_pkts: 0,
            len_bytes: 0,
            limit,
            link_rate_bps,
            passive: discipline.is_passive(),
            discipline,
            counters: QueueCounters::default(),
            rng,
        }
    }

    /// A multi-class queue: `classes` buffers and a scheduler in place of the single FIFO.
    pub fn with_classes(mut self, classes: classes::MultiClass) -> Self {
        self.classes = Some(Box::new(classes));
        self
    }

    /// Replace the discipline (one supplied from outside the core, put in
    /// place of the stand-in the queue was built with, before the run).
    pub fn set_discipline(&mut self, discipline: Box<dyn QueueDiscipline>) {
        self.passive = discipline.is_passive();
        self.discipline = discipline;
    }

    pub fn discipline(&self) -> &dyn QueueDiscipline {
        self.discipline.as_ref()
    }

    pub fn len_pkts(&self) -> u32 {
        self.len_pkts
    }

    pub fn len_bytes(&self) -> u64 {
        self.len_bytes
    }

    pub fn is_empty(&self) -> bool {
        self.len_pkts == 0
    }

    /// Packets waiting, oldest first (class by class in a multi-class queue; for end-of-run accounting).
    pub fn packets<'a>(&'a self, store: &'a PacketStore) -> impl Iterator<Item = &'a Packet> {
        self.buf.iter().map(|&id| store.get(id)).chain(self.classes.iter().flat_map(|c| c.packets()))
    }

    fn view(&self) -> QueueView {
        QueueView { len_pkts: self.len_pkts, len_bytes: self.len_bytes, limit: self.limit, link_rate_bps: self.link_rate_bps }
    }

    /// The counters as of `now`, the time integrals with the packets still
    /// waiting counted up to `now`.
    ///
    /// The integral of the length over time is the sum of every packet's time
    /// in the buffer (exactly, in integer nanoseconds): `counters` holds that
    /// sum over the packets that have left, added once per packet as it leaves
    /// ([`OutputQueue::dequeue`]), instead of the length times the time since
    /// the last change at every arrival and departure (issue 21: half the
    /// updates, and no 128-bit multiplication for the packet count).
    pub fn counters_at(&self, now: SimTime, store: &PacketStore) -> QueueCounters {
        let mut c = self.counters;
        for pkt in self.packets(store) {
            let waited = now.saturating_sub(pkt.enq_ts);
            c.area_pkts += u128::from(waited);
            c.area_bytes += u128::from(waited) * u128::from(pkt.size);
        }
        c
    }

    fn would_overflow(&self, pkt: &Packet) -> bool {
        if let Some(c) = &self.classes {
            return c.would_overflow(pkt);
        }
        match self.limit {
            QueueLimit::Packets(n) => self.len_pkts >= n,
            QueueLimit::Bytes(b) => self.len_bytes + pkt.size as u64 > b,
        }
    }

    /// Offer the packet in slot `id` of `store`; returns whether it was queued
    /// or dropped (and why). A dropped packet stays in its slot for the caller
    /// to account for and free; a multi-class queue takes a queued packet out of
    /// the store into its class buffer (a slot is given back at departure).
    pub fn enqueue(&mut self, id: PacketId, store: &mut PacketStore, now: SimTime) -> Enqueued {
        let pkt = store.get_mut(id);
        self.counters.arrivals += 1;
        self.counters.arrival_bytes += pkt.size as u64;
        if let Some(classes) = self.classes.as_mut() {
            let full = classes.would_overflow(pkt);
            classes.count_arrival(pkt, full);
            if full {
                self.count_drop(DropKind::Overflow);
                return Enqueued::Dropped(DropKind::Overflow);
            }
            pkt.marked = false;
            pkt.enq_ts = now;
            let size = pkt.size as u64;
            classes.push(store.take(id));
            self.len_pkts += 1;
            self.len_bytes += size;
            return Enqueued::Queued;
        }
        let was_ce = pkt.ecn == Ecn::Ce;
        if !self.passive {
            let view = self.view();
            if let Verdict::Drop(kind) = self.discipline.on_arrival(&view, pkt, now, &mut self.rng) {
                self.count_drop(kind);
                return Enqueued::Dropped(kind);
            }
        }
        if self.would_overflow(pkt) {
            self.count_drop(DropKind::Overflow);
            return Enqueued::Dropped(DropKind::Overflow);
        }
        pkt.marked = !was_ce && pkt.ecn == Ecn::Ce;
        pkt.enq_ts = now;
        let size = pkt.size as u64;
        self.len_pkts += 1;
        self.len_bytes += size;
        self.buf.push_back(id);
        Enqueued::Queued
    }

    /// Offer the packet in slot `id` to this queue, empty, when its link is idle: the packet
    /// would leave as it arrives. For a passive single FIFO (DropTail) the counters and the
    /// packet end as an [`OutputQueue::enqueue`] and an [`OutputQueue::dequeue`] at the same
    /// instant leave them (no time in the buffer, no mark), without going through the ring
    /// (issue 21: nearly every packet on a dumbbell's access links). `Some(Enqueued::Queued)`:
    /// the packet is to be sent now; `Some(Dropped)`: it does not fit even an empty buffer;
    /// `None`: nothing done, the queue is not one this applies to (the caller enqueues).
    #[inline(always)]
    pub fn pass_idle(&mut self, id: PacketId, store: &mut PacketStore, now: SimTime) -> Option<Enqueued> {
        if !self.passive || self.len_pkts != 0 || self.classes.is_some() {
            return None;
        }
        let pkt = store.get_mut(id);
        let size = pkt.size as u64;
        self.counters.arrivals += 1;
        self.counters.arrival_bytes += size;
        if self.would_overflow(pkt) {
            self.count_drop(DropKind::Overflow);
            return Some(Enqueued::Dropped(DropKind::Overflow));
        }
        pkt.marked = false;
        pkt.enq_ts = now;
        self.counters.departures += 1;
        self.counters.departure_bytes += size;
        Some(Enqueued::Queued)
    }

    /// Take the next packet for transmission (its slot in `store`). Packets the
    /// discipline drops at departure are returned in `dropped`, still in their
    /// slots, so the caller can account for them and free them.
    /// A packet this queue marked (at arrival or now) counts as a mark as it leaves.
    pub fn dequeue(&mut self, now: SimTime, store: &mut PacketStore, dropped: &mut Vec<PacketId>) -> Option<PacketId> {
        if let Some(classes) = self.classes.as_mut() {
            let pkt = classes.pop(now)?;
            self.leave(now, &pkt);
            self.counters.departures += 1;
            self.counters.departure_bytes += pkt.size as u64;
            return Some(store.put(pkt));
        }
        while let Some(id) = self.buf.pop_front() {
            if let Some(&next) = self.buf.front() {
                store.prefetch(next);
            }
            let pkt = store.get_mut(id);
            self.leave(now, pkt);
            let was_ce = pkt.ecn == Ecn::Ce;
            let verdict = if self.passive { Verdict::Pass } else { self.discipline.on_departure(&self.view(), pkt, now) };
            match verdict {
                Verdict::Pass => {
                    // `marked` is set afresh when the packet enters its next queue.
                    if pkt.marked || (!was_ce && pkt.ecn == Ecn::Ce) {
                        self.counters.marks += 1;
                    }
                    self.counters.departures += 1;
                    self.counters.departure_bytes += pkt.size as u64;
                    return Some(id);
                }
                Verdict::Drop(_) => {
                    self.counters.drops_departure += 1;
                    dropped.push(id);
                }
            }
        }
        None
    }

    /// `pkt` leaves the buffer at `now`: its time there goes into the
    /// integrals (see [`OutputQueue::counters_at`]).
    fn leave(&mut self, now: SimTime, pkt: &Packet) {
        let waited = now.saturating_sub(pkt.enq_ts);
        self.counters.area_pkts += u128::from(waited);
        self.counters.area_bytes += u128::from(waited) * u128::from(pkt.size);
        self.len_pkts -= 1;
        self.len_bytes -= pkt.size as u64;
    }

    fn count_drop(&mut self, kind: DropKind) {
        match kind {
            DropKind::Overflow => self.counters.drops_overflow += 1,
            DropKind::Early => self.counters.drops_early += 1,
            DropKind::Forced => self.counters.drops_forced += 1,
        }
    }
}

/// An output queue with a packet store of its own, for driving a queue by
/// itself (unit tests, the scheduler benchmark): packets go in and come out by
/// value, and dropped ones are freed.
pub struct StandaloneQueue {
    pub queue: OutputQueue,
    store: PacketStore,
    dropped: Vec<PacketId>,
}

impl StandaloneQueue {
    pub fn new(queue: OutputQueue) -> Self {
        StandaloneQueue { queue, store: PacketStore::default(), dropped: Vec::new() }
    }

    /// Offer `pkt` at `now` ([`OutputQueue::enqueue`]).
    pub fn offer(&mut self, pkt: Packet, now: SimTime) -> Enqueued {
        let id = self.store.put(pkt);
        let verdict = self.queue.enqueue(id, &mut self.store, now);
        if verdict != Enqueued::Queued {
            self.store.take(id);
        }
        verdict
    }

    /// The next packet to leave at `now` ([`OutputQueue::dequeue`]).
    pub fn serve(&mut self, now: SimTime) -> Option<Packet> {
        let id = self.queue.dequeue(now, &mut self.store, &mut self.dropped);
        for d in self.dropped.drain(..) {
            self.store.take(d);
        }
        id.map(|id| self.store.take(id))
    }

    /// Packets waiting, oldest first.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.queue.packets(&self.store)
    }
}

impl std::ops::Deref for StandaloneQueue {
    type Target = OutputQueue;
    fn deref(&self) -> &OutputQueue {
        &self.queue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    fn pkt(size: u32) -> Packet {
        Packet::new(PacketKind::Udp, 0, 0, 1, size)
    }

    #[test]
    fn time_weighted_length_counts_each_packet_while_it_waits() {
        let mut q = StandaloneQueue::new(OutputQueue::new(QueueLimit::Packets(10), 1_000_000, Box::new(droptail::DropTail), crate::rng::from_seed(1)));
        assert_eq!(q.offer(pkt(100), 0), Enqueued::Queued);
        assert_eq!(q.offer(pkt(100), 10), Enqueued::Queued);
        assert_eq!(q.offer(pkt(50), 20), Enqueued::Queued);
        // At 25: 1 packet for 10 ns, 2 for 10 ns, 3 for 5 ns.
        let at = q.queue.counters_at(25, &q.store);
        assert_eq!((at.area_pkts, at.area_bytes), (10 + 20 + 15, 1000 + 2000 + 5 * 250));
        q.serve(30).unwrap();
        q.serve(40).unwrap();
        q.serve(50).unwrap();
        // 1 packet for 10 ns, 2 for 10, 3 for 10, 2 for 10, 1 for 10: 10 + 20 + 30 + 20 + 10.
        let done = q.queue.counters_at(100, &q.store);
        assert_eq!(done.area_pkts, 90);
        assert_eq!(done.area_bytes, 100 * (30 + 30) + 50 * 30);
        assert_eq!((done, q.len_bytes()), (q.counters, 0));
    }

    /// `pass_idle` leaves an empty DropTail queue, and the packet, as an enqueue and a dequeue at
    /// the same instant leave them; it declines a queue holding a packet or an active discipline.
    #[test]
    fn passing_an_empty_droptail_queue_counts_as_an_enqueue_and_a_dequeue() {
        let droptail = |limit| OutputQueue::new(limit, 1_000_000, Box::new(droptail::DropTail), crate::rng::from_seed(1));
        for (limit, size) in [(QueueLimit::Packets(3), 100), (QueueLimit::Bytes(150), 100), (QueueLimit::Bytes(150), 200)] {
            let (mut passed, mut queued) = (StandaloneQueue::new(droptail(limit)), StandaloneQueue::new(droptail(limit)));
            let mut p = pkt(size);
            (p.marked, p.enq_ts, p.ecn) = (true, 3, Ecn::Ce);
            let (a, b) = (passed.store.put(p), queued.store.put(p));
            let verdict = passed.queue.pass_idle(a, &mut passed.store, 40);
            assert_eq!(verdict, Some(queued.queue.enqueue(b, &mut queued.store, 40)));
            if verdict == Some(Enqueued::Queued) {
                assert_eq!(queued.queue.dequeue(40, &mut queued.store, &mut queued.dropped), Some(b));
            }
            assert_eq!((passed.queue.counters, passed.queue.len_pkts(), passed.queue.len_bytes()), (queued.queue.counters, 0, 0));
            let (x, y) = (passed.store.get(a), queued.store.get(b));
            assert_eq!((x.marked, x.enq_ts, x.ecn), (y.marked, y.enq_ts, y.ecn));
        }
        let mut busy = StandaloneQueue::new(droptail(QueueLimit::Packets(3)));
        busy.offer(pkt(100), 0);
        let id = busy.store.put(pkt(100));
        assert_eq!(busy.queue.pass_idle(id, &mut busy.store, 1), None);
        let red = red::Red::new(red::RedConfig::default(), red::RedVariant::Red, 3, 1_000_000);
        let mut active = StandaloneQueue::new(OutputQueue::new(QueueLimit::Packets(3), 1_000_000, Box::new(red), crate::rng::from_seed(1)));
        let id = active.store.put(pkt(100));
        assert_eq!(active.queue.pass_idle(id, &mut active.store, 1), None);
        assert_eq!(active.queue.counters, QueueCounters::default());
    }

    #[test]
    fn byte_limit_drops_what_does_not_fit() {
        let mut q = StandaloneQueue::new(OutputQueue::new(QueueLimit::Bytes(250), 1_000_000, Box::new(droptail::DropTail), crate::rng::from_seed(1)));
        assert_eq!(q.offer(pkt(100), 0), Enqueued::Queued);
        assert_eq!(q.offer(pkt(100), 0), Enqueued::Queued);
        assert_eq!(q.offer(pkt(100), 0), Enqueued::Dropped(DropKind::Overflow));
        assert_eq!(q.offer(pkt(50), 0), Enqueued::Queued);
        assert_eq!(q.counters.drops(), 1);
        assert_eq!(q.counters.arrivals, 4);
    }
}
