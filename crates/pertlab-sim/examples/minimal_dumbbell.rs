//! A minimal Reno dumbbell engine, written only to measure what a lean engine costs on
//! the canonical scenario (issue 21: "run the canonical dumbbell in at most 1.25 times
//! the minimal engine's time"). It uses nothing of pertlab-sim: `scripts/bench_minimal.py`
//! times it against `examples/canonical` and writes the comparison to BENCHMARKS.md.
//!
//! Models the scenario of `presets::canonical_dumbbell` (examples/canonical): 50 flows,
//! 150 Mbit/s bottleneck with 28 ms one-way delay and a DropTail buffer of 750 packets
//! (one BDP) in each direction; every host on its own 1.5 Gbit/s, 1 ms access link
//! (DropTail, 1000 packets); 1500-byte segments (1460 bytes of payload), 40-byte ACKs,
//! one ACK per segment; flows start uniformly in [0, 10] s and run for 100 s. The
//! bottleneck's rate is an argument (its buffer one BDP of 60 ms, the access links ten
//! times as fast, the starts spread over a tenth of the run if that is less than 10 s), as
//! `examples/canonical`'s, for the scalings of `scripts/bench_minimal.py`.
//! Senders are Reno/NewReno: slow start from 2 segments, congestion avoidance,
//! fast retransmit and NewReno fast recovery (RFC 6582) on 3 duplicate ACKs, limited
//! transmit (RFC 3042), and the RTO of RFC 6298 with Linux's 200 ms floor on the
//! variance term and per-ACK gains (RFC 7323 App. G), as the canonical run's config;
//! timestamps give an RTT sample on every ACK that advances the window. Receivers
//! acknowledge cumulatively and keep out-of-order segments in a bitmap.
//!
//! The engine: integer nanoseconds; one event for the end of each transmission and one
//! for each arrival, as pertlab counts them. Every such event lies a constant time after
//! the moment it is scheduled (a link's delay, or a packet's transmission time at a
//! link's rate), so each constant has a FIFO lane, sorted by construction; a binary heap
//! holds only the timers (flow starts, RTOs, lazily re-armed). The next event is the
//! earliest of the lane heads and the heap top. Packets are 16-byte Copy structs in
//! preallocated ring buffers that double if ever full (4 times in the canonical run,
//! printed as `ring_grows`): nothing is allocated per packet.
//!
//! Leaves out: SACK (the canonical flows use it; recovery here is NewReno), monitors,
//! traces, conservation checks, any other scenario or controller, Karn's back-off rule
//! (a new ACK resets the back-off), and pertlab's random stream for start times (its own
//! generator draws them, so the flows start at other instants).
//!
//! Usage: minimal_dumbbell [FLOWS] [SECONDS] [BOTTLENECK BPS]; prints one JSON line.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

#[path = "common/args.rs"]
mod args;
#[path = "common/rss.rs"]
mod rss;

type Time = u64;
const MS: Time = 1_000_000;
const SEC: Time = 1_000_000_000;
const DATA_BYTES: u32 = 1500;
const PAYLOAD_BYTES: u64 = 1460;
const ACK_BYTES: u32 = 40;
/// The canonical bottleneck's rate; its buffer is one BDP at `BDP_S`.
const BOTTLENECK_BPS: u64 = 150_000_000;
const BDP_S: f64 = 0.060;
/// The longest spread of the flows' starts.
const START_WINDOW: Time = 10 * SEC;
const ACCESS_LIMIT: usize = 1000;
/// Out-of-order bitmap per receiver, in segments; the window is capped below it.
const OOO_BITS: u32 = 1 << 16;
const MAX_CWND: u32 = OOO_BITS / 2;

/// A packet: a data segment (`seq` its number) or an ACK (`seq` the next segment expected).
#[derive(Clone, Copy, Default)]
struct Pkt {
    ts: Time,
    seq: u32,
    flow: u16,
    ack: bool,
}

/// A FIFO ring buffer, preallocated; it doubles if ever full (counted in `GROWS`).
struct Ring<T: Copy + Default> {
    buf: Vec<T>,
    head: usize,
    len: usize,
}

static GROWS: AtomicU64 = AtomicU64::new(0);

impl<T: Copy + Default> Ring<T> {
    fn new(cap: usize) -> Self {
        Ring { buf: vec![T::default(); cap.next_power_of_two()], head: 0, len: 0 }
    }
    #[cold]
    fn grow(&mut self) {
        let mut bigger = vec![T::default(); 2 * self.buf.len()];
        for (i, slot) in bigger.iter_mut().take(self.len).enumerate() {
            *slot = self.buf[(self.head + i) & (self.buf.len() - 1)];
        }
        (self.buf, self.head) = (bigger, 0);
        GROWS.fetch_add(1, Relaxed);
    }
    #[inline]
    fn push(&mut self, x: T) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let mask = self.buf.len() - 1;
        self.buf[(self.head + self.len) & mask] = x;
        self.len += 1;
    }
    fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[self.head])
    }
    fn pop(&mut self) -> Option<T> {
        let x = *self.front()?;
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
        Some(x)
    }
}

/// A lane's event: transmission done on `link` (`arrive` false) or arrival at its far end.
#[derive(Clone, Copy, Default)]
struct Ev {
    at: Time,
    link: u32,
    arrive: bool,
    pkt: Pkt,
}

struct Link {
    /// Transmission times of a data segment and of an ACK.
    tx_data: Time,
    tx_ack: Time,
    delay: Time,
    limit: usize,
    queue: Ring<Pkt>,
    busy: bool,
    busy_ns: Time,
    drops: u64,
    /// Lanes of its transmission times (data, ACK) and of its delay.
    lane_data: usize,
    lane_ack: usize,
    lane_prop: usize,
}

#[derive(Default)]
struct Flow {
    snd_una: u32,
    snd_nxt: u32,
    snd_max: u32,
    cwnd: u32,
    cwnd_cnt: u32,
    ssthresh: u32,
    dupacks: u32,
    in_recovery: bool,
    /// A partial ACK came in this recovery (only the first restarts the timer).
    partial_seen: bool,
    recover: u32,
    srtt: Time,
    rttvar: Time,
    base_rto: Time,
    backoff: u32,
    /// RTO deadline (0: stopped) and the time of its heap entry (`Time::MAX`: none).
    rto_at: Time,
    armed: Time,
    rcv_nxt: u32,
    delivered: u64,
    retransmits: u64,
    timeouts: u64,
}

const TIMER_START: u32 = 1 << 31;

struct Sim {
    now: Time,
    n: u32,
    links: Vec<Link>,
    lanes: Vec<(Time, Ring<Ev>)>,
    timers: BinaryHeap<Reverse<(Time, u32)>>,
    flows: Vec<Flow>,
    ooo: Vec<u64>,
    events: u64,
    delivered_pkts: u64,
}

/// Transmission time, rounded up to the nanosecond (as pertlab's `time::tx_time`).
fn tx_time(bytes: u32, bps: u64) -> Time {
    (u64::from(bytes) * 8 * SEC).div_ceil(bps)
}

impl Sim {
    fn new(n: u32, bottleneck_bps: u64, start_window: Time) -> Sim {
        let bdp_pkts = (bottleneck_bps as f64 * BDP_S / f64::from(DATA_BYTES * 8)) as usize;
        let mut lanes: Vec<(Time, Ring<Ev>)> = Vec::new();
        let mut lane = |d: Time| match lanes.iter().position(|l| l.0 == d) {
            Some(i) => i,
            None => {
                lanes.push((d, Ring::new(1024)));
                lanes.len() - 1
            }
        };
        // Links: up(i) = i, bottleneck n, down(i) = n+1+i, ack_up(i) = 2n+1+i, reverse
        // bottleneck 3n+1, ack_down(i) = 3n+2+i.
        let mut links = Vec::new();
        for l in 0..4 * n + 2 {
            let bn = l == n || l == 3 * n + 1;
            let (bps, delay, limit) = if bn { (bottleneck_bps, 28 * MS, bdp_pkts) } else { (10 * bottleneck_bps, MS, ACCESS_LIMIT) };
            let (tx_data, tx_ack) = (tx_time(DATA_BYTES, bps), tx_time(ACK_BYTES, bps));
            let (lane_data, lane_ack, lane_prop) = (lane(tx_data), lane(tx_ack), lane(delay));
            links.push(Link { tx_data, tx_ack, delay, limit, queue: Ring::new(64), busy: false, busy_ns: 0, drops: 0, lane_data, lane_ack, lane_prop });
        }
        let mut timers = BinaryHeap::with_capacity(4 * n as usize);
        let mut rng = 1u64; // splitmix64, seed 1
        let mut flows = Vec::new();
        for i in 0..n {
            rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = rng;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            let start = (z ^ (z >> 31)) % (start_window + 1);
            timers.push(Reverse((start, TIMER_START | i)));
            flows.push(Flow { cwnd: 2, ssthresh: MAX_CWND, base_rto: SEC, armed: Time::MAX, ..Flow::default() });
        }
        let ooo = vec![0; (n * OOO_BITS / 64) as usize];
        Sim { now: 0, n, links, lanes, timers, flows, ooo, events: 0, delivered_pkts: 0 }
    }

    fn run(&mut self, end: Time) {
        loop {
            let (mut at, mut src) = self.timers.peek().map_or((Time::MAX, usize::MAX), |t| (t.0 .0, usize::MAX));
            for (i, (_, q)) in self.lanes.iter().enumerate() {
                if let Some(e) = q.front() {
                    if e.at < at {
                        (at, src) = (e.at, i);
                    }
                }
            }
            if at > end {
                return;
            }
            self.now = at;
            self.events += 1;
            if src == usize::MAX {
                let Reverse((_, t)) = self.timers.pop().unwrap();
                self.timer(t);
                continue;
            }
            let e = self.lanes[src].1.pop().unwrap();
            if e.arrive {
                self.arrive(e.link, e.pkt);
            } else {
                self.tx_done(e.link, e.pkt);
            }
        }
    }

    fn enqueue(&mut self, l: u32, p: Pkt) {
        let link = &mut self.links[l as usize];
        if !link.busy {
            self.start_tx(l, p);
        } else if link.queue.len >= link.limit {
            link.drops += 1;
        } else {
            link.queue.push(p);
        }
    }

    fn start_tx(&mut self, l: u32, p: Pkt) {
        let link = &mut self.links[l as usize];
        let (tx, lane) = if p.ack { (link.tx_ack, link.lane_ack) } else { (link.tx_data, link.lane_data) };
        link.busy = true;
        link.busy_ns += tx;
        self.lanes[lane].1.push(Ev { at: self.now + tx, link: l, arrive: false, pkt: p });
    }

    fn tx_done(&mut self, l: u32, p: Pkt) {
        let link = &mut self.links[l as usize];
        link.busy = false;
        let ev = Ev { at: self.now + link.delay, link: l, arrive: true, pkt: p };
        let lane = link.lane_prop;
        let next = link.queue.pop();
        self.lanes[lane].1.push(ev);
        if let Some(q) = next {
            self.start_tx(l, q);
        }
    }

    /// A packet reaches the far end of link `l`: the next link, or its endpoint.
    fn arrive(&mut self, l: u32, p: Pkt) {
        let (n, f) = (self.n, u32::from(p.flow));
        match l {
            l if l < n => self.enqueue(n, p),
            l if l == n => self.enqueue(n + 1 + f, p),
            l if l <= 2 * n => self.receive(p),
            l if l <= 3 * n => self.enqueue(3 * n + 1, p),
            l if l == 3 * n + 1 => self.enqueue(3 * n + 2 + f, p),
            _ => self.on_ack(p),
        }
    }

    fn send(&mut self, f: usize, seq: u32) {
        let p = Pkt { ts: self.now, seq, flow: f as u16, ack: false };
        self.enqueue(f as u32, p);
    }

    /// Receiver: cumulative ACK of every segment, echoing the segment's timestamp.
    fn receive(&mut self, p: Pkt) {
        self.delivered_pkts += 1;
        let f = usize::from(p.flow);
        let base = f * (OOO_BITS / 64) as usize;
        let bit = |s: u32| (base + ((s % OOO_BITS) / 64) as usize, 1u64 << (s % 64));
        let flow = &mut self.flows[f];
        if p.seq == flow.rcv_nxt {
            flow.rcv_nxt += 1;
            flow.delivered += 1;
            loop {
                let (w, m) = bit(flow.rcv_nxt);
                if self.ooo[w] & m == 0 {
                    break;
                }
                self.ooo[w] &= !m;
                flow.rcv_nxt += 1;
                flow.delivered += 1;
            }
        } else if p.seq > flow.rcv_nxt && p.seq - flow.rcv_nxt < OOO_BITS {
            let (w, m) = bit(p.seq);
            self.ooo[w] |= m;
        }
        let ack = Pkt { ts: p.ts, seq: flow.rcv_nxt, flow: p.flow, ack: true };
        self.enqueue(2 * self.n + 1 + u32::from(p.flow), ack);
    }

    /// Sender: NewReno on a cumulative ACK.
    fn on_ack(&mut self, p: Pkt) {
        self.delivered_pkts += 1;
        let (f, now) = (usize::from(p.flow), self.now);
        let fl = &mut self.flows[f];
        let ack = p.seq;
        if ack > fl.snd_una {
            let (acked, flight) = (ack - fl.snd_una, fl.snd_max - fl.snd_una);
            rtt_sample(fl, now - p.ts, flight);
            fl.backoff = 0;
            fl.snd_una = ack;
            fl.snd_nxt = fl.snd_nxt.max(ack);
            let mut restart = true;
            if fl.in_recovery && ack > fl.recover {
                (fl.cwnd, fl.in_recovery, fl.dupacks) = (fl.ssthresh, false, 0);
            } else if fl.in_recovery {
                // Partial ACK (RFC 6582 3.2 step 5): retransmit the next hole, deflate;
                // the "Impatient" timer (RFC 6582 4): only the first partial ACK restarts it.
                (restart, fl.partial_seen) = (!fl.partial_seen, true);
                fl.cwnd = fl.cwnd.saturating_sub(acked).max(1) + 1;
                fl.retransmits += 1;
                self.send(f, ack);
            } else {
                fl.dupacks = 0;
                if fl.cwnd < fl.ssthresh {
                    fl.cwnd += 1;
                } else {
                    fl.cwnd_cnt += 1;
                    if fl.cwnd_cnt >= fl.cwnd {
                        (fl.cwnd, fl.cwnd_cnt) = (fl.cwnd + 1, 0);
                    }
                }
                fl.cwnd = fl.cwnd.min(MAX_CWND);
            }
            let fl = &self.flows[f];
            if fl.snd_una == fl.snd_max {
                self.set_rto(f, 0);
            } else if restart {
                self.set_rto(f, now + rto(fl));
            }
        } else if ack == fl.snd_una && fl.snd_una < fl.snd_max {
            fl.dupacks += 1;
            if fl.in_recovery {
                fl.cwnd += 1;
            } else if fl.dupacks == 3 && (ack > fl.recover || fl.recover == 0) {
                fl.ssthresh = ((fl.snd_max - fl.snd_una) / 2).max(2);
                (fl.recover, fl.in_recovery, fl.partial_seen, fl.cwnd) = (fl.snd_max, true, false, fl.ssthresh + 3);
                fl.retransmits += 1;
                self.send(f, ack);
            }
        }
        self.try_send(f);
    }

    /// Send new segments while the window (with limited transmit) allows, never more than
    /// `MAX_CWND` outstanding (the receiver's window).
    fn try_send(&mut self, f: usize) {
        loop {
            let fl = &mut self.flows[f];
            let lt = if fl.in_recovery { 0 } else { fl.dupacks.min(2) };
            if fl.snd_nxt - fl.snd_una >= (fl.cwnd + lt).min(MAX_CWND) {
                break;
            }
            let seq = fl.snd_nxt;
            fl.snd_nxt += 1;
            if seq < fl.snd_max {
                fl.retransmits += 1;
            }
            fl.snd_max = fl.snd_max.max(fl.snd_nxt);
            if fl.rto_at == 0 {
                let deadline = self.now + rto(fl);
                self.set_rto(f, deadline);
            }
            self.send(f, seq);
        }
    }

    /// Set flow `f`'s RTO deadline (0: stop); a heap entry is added only if it is earlier
    /// than the one armed, and a later deadline is re-armed when the entry pops.
    fn set_rto(&mut self, f: usize, at: Time) {
        let fl = &mut self.flows[f];
        fl.rto_at = at;
        if at != 0 && at < fl.armed {
            fl.armed = at;
            self.timers.push(Reverse((at, f as u32)));
        }
    }

    fn timer(&mut self, t: u32) {
        let f = (t & !TIMER_START) as usize;
        if t & TIMER_START != 0 {
            return self.try_send(f);
        }
        let fl = &mut self.flows[f];
        if fl.armed != self.now {
            return; // superseded by an earlier entry
        }
        fl.armed = Time::MAX;
        if fl.rto_at == 0 {
            return;
        }
        if fl.rto_at > self.now {
            let at = fl.rto_at;
            return self.set_rto(f, at);
        }
        // RFC 6298 5.4-5.7 and RFC 5681 3.1: go back to snd_una with one segment. The
        // ssthresh of a recovery, or of an earlier timeout backed off, is kept (Linux's
        // tcp_enter_loss): snd_max - snd_una counts the segments the duplicate ACKs
        // reported received.
        fl.timeouts += 1;
        if fl.backoff == 0 && !fl.in_recovery {
            fl.ssthresh = ((fl.snd_max - fl.snd_una) / 2).max(2);
        }
        (fl.cwnd, fl.cwnd_cnt, fl.dupacks, fl.in_recovery) = (1, 0, 0, false);
        (fl.recover, fl.snd_nxt) = (fl.snd_max, fl.snd_una);
        if rto(fl) < 60 * SEC {
            fl.backoff += 1;
        }
        fl.rto_at = 0;
        self.try_send(f);
    }
}

/// RFC 6298 2.2-2.3 with gains alpha / n and beta / n (RFC 7323 App. G, n the flight).
fn rtt_sample(fl: &mut Flow, r: Time, flight: u32) {
    if fl.srtt == 0 {
        (fl.srtt, fl.rttvar) = (r, r / 2);
    } else {
        let n = Time::from(flight.max(1));
        fl.rttvar = (fl.rttvar * (4 * n - 1) + fl.srtt.abs_diff(r)) / (4 * n);
        fl.srtt = (fl.srtt * (8 * n - 1) + r) / (8 * n);
    }
    // Linux's floor: RTO = SRTT + max(G = 1 ms, 4 RTTVAR, 200 ms), at most 60 s.
    fl.base_rto = (fl.srtt + (4 * fl.rttvar).max(200 * MS)).min(60 * SEC);
}

fn rto(fl: &Flow) -> Time {
    (fl.base_rto << fl.backoff.min(20)).min(60 * SEC)
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| argv.get(i).map(String::as_str);
    let n: u32 = args::parse_or_exit(arg(0), "flows", "a whole number from 1", 50);
    let seconds: u64 = args::parse_or_exit(arg(1), "seconds", "a whole number from 1", 100);
    let bottleneck_bps: u64 = args::parse_or_exit(arg(2), "bottleneck rate", "a whole number of bit/s from 1", BOTTLENECK_BPS);
    for (name, value) in [("flows", u64::from(n)), ("seconds", seconds), ("bottleneck rate", bottleneck_bps)] {
        if value == 0 {
            args::fail(format!("{name}: a whole number from 1, not 0"));
        }
    }
    let mut sim = Sim::new(n, bottleneck_bps, START_WINDOW.min(seconds * SEC / 10));
    let started = Instant::now();
    sim.run(seconds * SEC);
    let wall = started.elapsed().as_secs_f64();
    let goodputs: Vec<f64> = sim.flows.iter().map(|f| (f.delivered * PAYLOAD_BYTES * 8) as f64 / seconds as f64 / 1e6).collect();
    let mean = goodputs.iter().sum::<f64>() / f64::from(n);
    let jain = goodputs.iter().sum::<f64>().powi(2) / (f64::from(n) * goodputs.iter().map(|g| g * g).sum::<f64>());
    let bn = &sim.links[n as usize];
    let drops: u64 = sim.links.iter().map(|l| l.drops).sum();
    println!(
        "{{\"flows\": {n}, \"sim_seconds\": {seconds}, \"wall_seconds\": {wall:.4}, \"events\": {}, \"events_per_second\": {:.0}, \"packets_delivered\": {}, \"drops\": {drops}, \"bottleneck_drops\": {}, \"utilization\": {:.4}, \"goodput_mean_mbps\": {mean:.4}, \"goodput_jain\": {jain:.4}, \"retransmits\": {}, \"timeouts\": {}, \"ring_grows\": {}, \"peak_rss_kib\": {}}}",
        sim.events,
        sim.events as f64 / wall,
        sim.delivered_pkts,
        bn.drops,
        bn.busy_ns.min(seconds * SEC) as f64 / (seconds * SEC) as f64,
        sim.flows.iter().map(|f| f.retransmits).sum::<u64>(),
        sim.flows.iter().map(|f| f.timeouts).sum::<u64>(),
        GROWS.load(Relaxed),
        rss::peak_rss_kib().unwrap_or(0),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_keeps_fifo_order_across_wrap_and_growth() {
        let mut r: Ring<u32> = Ring::new(4);
        let mut expect = 0;
        for i in 0..3 {
            r.push(i);
        }
        assert_eq!(r.pop(), Some(0));
        for i in 3..20 {
            r.push(i);
        }
        while let Some(x) = r.pop() {
            expect += 1;
            assert_eq!(x, expect);
        }
        assert_eq!(expect, 19);
    }

    #[test]
    fn short_run_fills_the_bottleneck() {
        let mut sim = Sim::new(4, BOTTLENECK_BPS, START_WINDOW);
        sim.run(20 * SEC);
        let bn = &sim.links[4];
        // The flows start within 10 s; the bottleneck is busy most of the 20 s and drops only there.
        assert!(bn.busy_ns > 10 * SEC, "busy {} ns", bn.busy_ns);
        assert_eq!(sim.links.iter().map(|l| l.drops).sum::<u64>(), bn.drops);
        assert!(sim.flows.iter().all(|f| f.delivered > 0 && f.snd_una <= f.snd_max));
    }
}
