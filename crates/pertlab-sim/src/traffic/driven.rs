//! A multi-class queue driven directly: per-class UDP sources feed one
//! work-conserving, non-preemptive 80 Mbit/s server, with no network around it,
//! so that runs of millions of packets stay fast. For the schedulers' long-run
//! properties (Hua 2002, Chapter 5; tests/class_sched.rs) and scans over
//! traffic models (examples/swtp_scan.rs). Left out: losses (the class buffers
//! are unlimited), links, TCP; `tests/class_sched.rs`'s
//! `multi_class_link_end_to_end` checks the same queue inside a world.

use crate::queue::classes::{MultiClass, Scheduler};
use crate::queue::QueueLimit;
use crate::rng::{stream, StreamKind};
use crate::scenario::{Arrivals, SizeDist};
use crate::time::SimTime;
use crate::traffic::udp::UdpSource;

/// Rate of the driven server: 80 Mbit/s, so one byte takes 100 ns.
pub const RATE_BPS: u64 = 80_000_000;
pub const NS_PER_BYTE: u64 = 100;
/// Pareto shape of the sources (Hua 2002, section 5.4).
pub const PARETO_SHAPE: f64 = 1.9;

/// The sources of each class.
#[derive(Clone, Copy, Debug)]
pub enum Traffic {
    /// One Poisson source of exponential sizes (mean 1000 B) per class: M/M/1.
    Markov,
    /// One Poisson source of the thesis's size mix per class.
    PoissonMix,
    /// `k` sources of the size mix per class with `arrivals` (Pareto, or ns-2's
    /// Pareto on/off with mean burst and idle `period_ns`).
    Mix { arrivals: Arrivals, k: usize, period_ns: SimTime },
}

/// The sources of `traffic` loading the server to `loads` per class.
pub fn sources(traffic: Traffic, loads: &[f64], seed: u64) -> Vec<UdpSource> {
    let (arrivals, sizes, mean, k, period) = match traffic {
        Traffic::Markov => (Arrivals::Poisson, SizeDist::Exponential, 1000, 1, 1),
        Traffic::PoissonMix => (Arrivals::Poisson, SizeDist::Mix, 440, 1, 1),
        Traffic::Mix { arrivals, k, period_ns } => (arrivals, SizeDist::Mix, 440, k, period_ns),
    };
    let mut out = Vec::new();
    for (c, l) in loads.iter().enumerate() {
        for j in 0..k {
            let id = (c * k + j) as u32;
            let rate = (RATE_BPS as f64 * l / k as f64).round() as u64;
            let rng = stream(seed, StreamKind::Udp, u64::from(id));
            out.push(
                UdpSource::new(id, 0, 1, rate, mean, arrivals, sizes, false, None, rng)
                    .with_class(c as u8)
                    .with_pareto_shape(PARETO_SHAPE)
                    .with_on_off(period, period),
            );
        }
    }
    out
}

/// What a driven run measured after its warm-up.
pub struct Run {
    /// Mean wait per class, in mean service times of all the packets sent.
    pub waits: Vec<f64>,
    /// The scheduler's operations per decision, over the whole run.
    pub ops_per_decision: f64,
    /// Busy fraction of the server.
    pub utilization: f64,
    /// The queue at the end (its windows of delay ratios start at the warm-up).
    pub queue: MultiClass,
}

/// Drive `scheduler` with `traffic` at `loads` for `packets` departures; the
/// first `warm` departures are left out of the waits, the utilization and the
/// windows of `window_k` departures.
pub fn drive(scheduler: Box<dyn Scheduler>, traffic: Traffic, loads: &[f64], packets: u64, warm: u64, window_k: u32, seed: u64) -> Run {
    let mut q = MultiClass::new(loads.len(), QueueLimit::Packets(u32::MAX), scheduler, window_k);
    let mut srcs = sources(traffic, loads, seed);
    let mut next: Vec<SimTime> = srcs.iter_mut().map(|s| s.next_gap()).collect();
    let (mut free_at, mut queued) = (0, 0u64);
    let (mut busy, mut t0, mut t_end) = (0u64, 0u64, 0u64);
    let mut base: Option<Vec<(u128, u64)>> = None;
    let (mut bytes, mut sent) = (0u64, 0u64);
    while q.decisions < packets {
        if base.is_none() && q.decisions >= warm {
            base = Some(q.counters.iter().map(|k| (k.wait_ns, k.departures)).collect());
            q.windows.clear();
            t0 = free_at;
            busy = 0;
        }
        let (j, t) = next.iter().copied().enumerate().min_by_key(|&(_, t)| t).unwrap_or((0, 0));
        if queued > 0 && free_at <= t {
            let Some(pkt) = q.pop(free_at) else { break };
            queued -= 1;
            let tx = pkt.size as u64 * NS_PER_BYTE;
            free_at += tx;
            busy += tx;
            t_end = free_at;
            continue;
        }
        let mut pkt = srcs[j].next_packet();
        pkt.enq_ts = t;
        bytes += pkt.size as u64;
        sent += 1;
        q.push(pkt);
        queued += 1;
        free_at = free_at.max(t);
        next[j] = t + srcs[j].next_gap();
    }
    let base = base.unwrap_or_else(|| vec![(0, 0); loads.len()]);
    let mean_service_ns = bytes as f64 / sent.max(1) as f64 * NS_PER_BYTE as f64;
    let waits = q.counters.iter().zip(&base).map(|(k, b)| (k.wait_ns - b.0) as f64 / (k.departures - b.1).max(1) as f64 / mean_service_ns).collect();
    let ops_per_decision = q.ops() as f64 / q.decisions.max(1) as f64;
    Run { waits, ops_per_decision, utilization: busy as f64 / t_end.saturating_sub(t0).max(1) as f64, queue: q }
}
