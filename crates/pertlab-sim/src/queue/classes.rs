//! Multi-class buffers: one FIFO per service class, a [`Scheduler`] that picks
//! the class served at each transmission opportunity, and per-class counters.
//!
//! Models Hua's thesis (CUHK 2002) Chapter 5 set-up (spec
//! `vegas-jcc-swtp-hua.md` sections 4.2 to 4.4): packets are timestamped on
//! arrival (`Packet::enq_ts`) and queued FIFO per class; class 0 is the lowest
//! priority (the thesis's class 1), and the class weights b_i increase with the
//! class. Each class has its own buffer of the queue's limit (tail drop per
//! class); the admission discipline of the queue is not consulted. The
//! schedulers are [`priority`](super::priority), [`wtp`](super::wtp),
//! [`swtp`](super::swtp) and [`bpr`](super::bpr).
//!
//! Per-class queueing delay is the wait from arrival to the start of
//! transmission (section 4.4, "recorded at departure from the queue"). The
//! delay ratios of consecutive classes are also kept per window of `window_k`
//! departures (Fig 5.4's timescale windows), and the first `trace_packets`
//! departures' waits one by one (Fig 5.3's packet-level view).

use std::collections::VecDeque;

use super::QueueLimit;
use crate::packet::Packet;
use crate::time::SimTime;

/// The per-class FIFOs a scheduler looks at.
pub struct ClassFifos {
    fifos: Vec<VecDeque<Packet>>,
    bytes: Vec<u64>,
}

impl ClassFifos {
    fn new(classes: usize) -> Self {
        ClassFifos { fifos: vec![VecDeque::new(); classes], bytes: vec![0; classes] }
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.fifos.len()
    }

    pub fn len(&self, class: usize) -> usize {
        self.fifos[class].len()
    }

    /// Bytes waiting in a class (its backlog).
    pub fn bytes(&self, class: usize) -> u64 {
        self.bytes[class]
    }

    pub fn is_backlogged(&self, class: usize) -> bool {
        !self.fifos[class].is_empty()
    }

    /// Arrival time of the head-of-line packet of a class.
    pub fn head_arrival(&self, class: usize) -> Option<SimTime> {
        self.fifos[class].front().map(|p| p.enq_ts)
    }
}

/// Picks the class to serve. Called only when some class is backlogged.
pub trait Scheduler: Send {
    /// The queue kind ("priority", "wtp", "swtp", "bpr").
    fn name(&self) -> &'static str;

    /// A packet has joined `class` (already in `q`).
    fn arrived(&mut self, _class: usize, _q: &ClassFifos) {}

    /// The class whose head-of-line packet is transmitted next.
    fn pick(&mut self, q: &ClassFifos, now: SimTime) -> usize;

    /// `pkt` of `class` has left for the link (already removed from `q`).
    fn served(&mut self, _class: usize, _pkt: &Packet, _q: &ClassFifos, _now: SimTime) {}

    /// Operations counted so far (subtractions, multiplications, comparisons),
    /// the unit of the thesis's cost argument (section 4.1/4.2).
    fn ops(&self) -> u64;
}

/// Cumulative counters of one class.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClassCounters {
    pub arrivals: u64,
    pub drops: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    /// Sum of the departed packets' waits (arrival to start of transmission), ns.
    pub wait_ns: u128,
}

/// Per-window delay ratios of consecutive classes (windows of K departures).
pub struct RatioWindows {
    k: u32,
    in_window: u32,
    wait_ns: Vec<u128>,
    count: Vec<u64>,
    /// `ratios[i]`: mean delay of class i over class i + 1, one per window in
    /// which both classes had departures.
    pub ratios: Vec<Vec<f64>>,
}

impl RatioWindows {
    fn new(classes: usize, k: u32) -> Self {
        RatioWindows { k: k.max(1), in_window: 0, wait_ns: vec![0; classes], count: vec![0; classes], ratios: vec![Vec::new(); classes.saturating_sub(1)] }
    }

    /// Departures per window.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// Forget everything (at the start of the measurement window).
    pub fn clear(&mut self) {
        let (classes, k) = (self.wait_ns.len(), self.k);
        *self = RatioWindows::new(classes, k);
    }

    fn record(&mut self, class: usize, wait: SimTime) {
        self.wait_ns[class] += wait as u128;
        self.count[class] += 1;
        self.in_window += 1;
        if self.in_window < self.k {
            return;
        }
        for (i, out) in self.ratios.iter_mut().enumerate() {
            let (lo, hi) = (self.wait_ns[i], self.wait_ns[i + 1]);
            if self.count[i] > 0 && self.count[i + 1] > 0 && hi > 0 {
                let mean = |w: u128, n: u64| w as f64 / n as f64;
                out.push(mean(lo, self.count[i]) / mean(hi, self.count[i + 1]));
            }
        }
        self.in_window = 0;
        self.wait_ns.fill(0);
        self.count.fill(0);
    }
}

/// The waits of the first departures, one by one (Fig 5.3): departure time,
/// class and wait from arrival to the start of transmission.
#[derive(Clone, Debug, Default)]
pub struct DelayTrace {
    limit: u32,
    pub t_ns: Vec<SimTime>,
    pub class: Vec<u8>,
    pub wait_ns: Vec<SimTime>,
}

impl DelayTrace {
    /// Departures to keep at most.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// Forget everything (at the start of the measurement window).
    pub fn clear(&mut self) {
        *self = DelayTrace { limit: self.limit, ..DelayTrace::default() };
    }

    fn record(&mut self, now: SimTime, class: usize, wait: SimTime) {
        if self.t_ns.len() < self.limit as usize {
            self.t_ns.push(now);
            self.class.push(class as u8);
            self.wait_ns.push(wait);
        }
    }
}

/// The buffer of a multi-class queue.
pub struct MultiClass {
    fifos: ClassFifos,
    limit: QueueLimit,
    scheduler: Box<dyn Scheduler>,
    pub counters: Vec<ClassCounters>,
    /// Scheduling decisions taken (one per transmitted packet).
    pub decisions: u64,
    pub windows: RatioWindows,
    pub trace: DelayTrace,
}

impl MultiClass {
    /// `classes` FIFOs, each with its own buffer of `limit`.
    pub fn new(classes: usize, limit: QueueLimit, scheduler: Box<dyn Scheduler>, window_k: u32) -> Self {
        let classes = classes.max(1);
        MultiClass {
            fifos: ClassFifos::new(classes),
            limit,
            scheduler,
            counters: vec![ClassCounters::default(); classes],
            decisions: 0,
            windows: RatioWindows::new(classes, window_k),
            trace: DelayTrace::default(),
        }
    }

    /// Keep the waits of the first `packets` departures one by one (counted
    /// from the measurement window's start, when the world clears them).
    pub fn with_trace(mut self, packets: u32) -> Self {
        self.trace = DelayTrace { limit: packets, ..DelayTrace::default() };
        self
    }

    pub fn name(&self) -> &'static str {
        self.scheduler.name()
    }

    pub fn classes(&self) -> usize {
        self.fifos.classes()
    }

    pub fn ops(&self) -> u64 {
        self.scheduler.ops()
    }

    /// The class of a packet; validation guarantees it has a queue, and a
    /// larger one is served as the top class rather than panicking.
    fn class_of(&self, pkt: &Packet) -> usize {
        (pkt.class as usize).min(self.fifos.classes() - 1)
    }

    /// Whether `pkt` finds its class's buffer full.
    pub fn would_overflow(&self, pkt: &Packet) -> bool {
        let c = self.class_of(pkt);
        match self.limit {
            QueueLimit::Packets(n) => self.fifos.len(c) as u64 >= u64::from(n),
            QueueLimit::Bytes(b) => self.fifos.bytes(c) + pkt.size as u64 > b,
        }
    }

    /// Count an arrival (queued or not).
    pub fn count_arrival(&mut self, pkt: &Packet, dropped: bool) {
        let c = self.class_of(pkt);
        self.counters[c].arrivals += 1;
        if dropped {
            self.counters[c].drops += 1;
        }
    }

    /// Queue an admitted packet (its `enq_ts` set).
    pub fn push(&mut self, pkt: Packet) {
        let c = self.class_of(&pkt);
        self.fifos.bytes[c] += pkt.size as u64;
        self.fifos.fifos[c].push_back(pkt);
        self.scheduler.arrived(c, &self.fifos);
    }

    /// The packet the scheduler picks, removed and counted.
    pub fn pop(&mut self, now: SimTime) -> Option<Packet> {
        if self.fifos.fifos.iter().all(VecDeque::is_empty) {
            return None;
        }
        let picked = self.scheduler.pick(&self.fifos, now);
        // A scheduler returns a backlogged class; fall back to the first one otherwise.
        let c = if self.fifos.is_backlogged(picked) { picked } else { (0..self.classes()).find(|&c| self.fifos.is_backlogged(c))? };
        let pkt = self.fifos.fifos[c].pop_front()?;
        self.fifos.bytes[c] -= pkt.size as u64;
        self.scheduler.served(c, &pkt, &self.fifos, now);
        self.decisions += 1;
        let wait = now.saturating_sub(pkt.enq_ts);
        let k = &mut self.counters[c];
        k.departures += 1;
        k.departure_bytes += pkt.size as u64;
        k.wait_ns += wait as u128;
        self.windows.record(c, wait);
        self.trace.record(now, c, wait);
        Some(pkt)
    }

    /// Packets waiting, class by class.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.fifos.fifos.iter().flatten()
    }
}

/// Check scheduler weights b_i: positive, finite, strictly increasing with the
/// class (class 0 lowest), at most 256 classes (the packet's `class: u8`).
pub fn validate_weights(field: &str, weights: &[f64]) -> Result<(), crate::error::ConfigError> {
    use crate::error::ConfigError;
    if weights.is_empty() || weights.len() > 256 {
        return Err(ConfigError::new(field, format!("must list 1 to 256 class weights, got {}", weights.len())));
    }
    for (i, &w) in weights.iter().enumerate() {
        crate::error::check::positive(&format!("{field}[{i}]"), w)?;
        if i > 0 && w <= weights[i - 1] {
            return Err(ConfigError::new(
                field,
                format!("must increase with the class (class 0 is the lowest priority), got {w} at class {i} after {}", weights[i - 1]),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_must_increase_with_the_class() {
        assert!(validate_weights("w", &[1.0, 2.0, 4.0]).is_ok());
        let e = validate_weights("links[0].queue.sched.weights", &[1.0, 2.0, 2.0]).unwrap_err();
        assert_eq!(e.field, "links[0].queue.sched.weights");
        assert!(e.message.contains("increase"));
        assert!(validate_weights("w", &[]).is_err());
        assert_eq!(validate_weights("w", &[0.0, 1.0]).unwrap_err().field, "w[0]");
    }

    #[test]
    fn the_trace_keeps_the_first_departures_and_is_cleared() {
        let mut t = DelayTrace { limit: 2, ..DelayTrace::default() };
        for (now, c, wait) in [(10, 1, 4), (20, 0, 9), (30, 2, 1)] {
            t.record(now, c, wait);
        }
        assert_eq!((t.t_ns.as_slice(), t.class.as_slice(), t.wait_ns.as_slice()), (&[10, 20][..], &[1, 0][..], &[4, 9][..]));
        t.clear();
        assert!(t.t_ns.is_empty() && t.limit() == 2);
    }

    #[test]
    fn windows_of_k_departures_give_one_ratio_per_pair() {
        let mut w = RatioWindows::new(3, 4);
        for (c, wait) in [(0, 40), (1, 20), (2, 10), (0, 40)] {
            w.record(c, wait);
        }
        assert_eq!(w.ratios, vec![vec![2.0], vec![2.0]]);
        w.clear();
        assert!(w.ratios.iter().all(Vec::is_empty));
    }
}
