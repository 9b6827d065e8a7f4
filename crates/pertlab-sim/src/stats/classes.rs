//! Results of the multi-class queues (Hua's thesis Chapter 5, section 5.4's
//! metrics): per-class counters and queueing delay over the measurement window,
//! in milliseconds and in packet-transmission times (the queue's mean
//! departing packet size over its rate, all classes together); the long-run
//! ratio of consecutive classes' mean delays; the 5/25/50/75/95th percentiles
//! of the same ratio over windows of K departures (Fig 5.4); the scheduler's
//! operations per decision (section 5.3's cost argument).
//!
//! The K-departure windows, and the per-packet trace of the first
//! `sched.trace_packets` departures (Fig 5.3), start at the measurement
//! window's start and run to the end of the run.

use serde::Serialize;

use super::report::{QueueInfo, Snapshot};
use crate::queue::classes::{ClassCounters, DelayTrace};
use crate::time::SimTime;

/// One multi-class queue's state in a snapshot.
#[derive(Clone, Debug, Default)]
pub struct ClassSnapshot {
    pub counters: Vec<ClassCounters>,
    pub decisions: u64,
    pub ops: u64,
}

/// The K-departure windows of one multi-class queue.
pub struct ClassWindows<'a> {
    /// Channel index (in the order of the snapshots' `queues`).
    pub queue: usize,
    pub k: u32,
    /// `ratios[i]`: class i over class i + 1, one per window.
    pub ratios: &'a [Vec<f64>],
    /// The waits of the first departures, one by one.
    pub trace: &'a DelayTrace,
}

/// The per-packet waits of one multi-class queue (`sched.trace_packets`),
/// columnar: departure time, class, and the wait from arrival to the start of
/// transmission in ms and in packet-transmission times (the unit of
/// [`ClassResult::mean_wait_tx`]).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ClassTrace {
    pub link: String,
    pub from: String,
    pub to: String,
    pub t_s: Vec<f64>,
    pub class: Vec<u8>,
    pub wait_ms: Vec<f64>,
    pub wait_tx: Vec<f64>,
}

impl ClassTrace {
    /// Bytes of one row, in the queue's trace and in the results (for the memory estimate).
    pub const ROW_BYTES: usize = 2 * std::mem::size_of::<SimTime>() + 1 + 3 * std::mem::size_of::<f64>() + 1;
}

/// One multi-class queue.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SchedulerResult {
    pub link: String,
    pub from: String,
    pub to: String,
    pub scheduler: String,
    pub classes: u32,
    /// Scheduling decisions (packets transmitted) within the window.
    pub decisions: u64,
    /// Operations (subtractions, multiplications, comparisons, heap and
    /// round-robin steps) per decision within the window; None without a decision.
    pub ops_per_decision: Option<f64>,
    pub window_k: u32,
}

/// One class of a multi-class queue.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ClassResult {
    pub link: String,
    pub from: String,
    pub to: String,
    pub class: u32,
    pub arrivals: u64,
    pub drops: u64,
    pub departures: u64,
    /// Mean wait from arrival to the start of transmission over the class's
    /// departures in the window; None without a departure.
    pub mean_wait_ms: Option<f64>,
    /// The same in packet-transmission times.
    pub mean_wait_tx: Option<f64>,
    /// Long-run mean wait of this class over that of the next class (none for the top class).
    pub ratio_to_next: Option<f64>,
    /// Windows of K departures with both classes present, and percentiles of
    /// their ratios (none for the top class or without windows).
    pub windows: u64,
    pub window_ratio_p5: Option<f64>,
    pub window_ratio_p25: Option<f64>,
    pub window_ratio_p50: Option<f64>,
    pub window_ratio_p75: Option<f64>,
    pub window_ratio_p95: Option<f64>,
}

/// Nearest-rank percentile `p` of sorted `v`.
fn percentile(v: &[f64], p: f64) -> Option<f64> {
    (!v.is_empty()).then(|| v[((p * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1])
}

/// Per-queue, per-class and per-packet results of the multi-class queues.
pub fn class_results(queues: &[QueueInfo], a: &Snapshot, b: &Snapshot, windows: &[ClassWindows]) -> (Vec<SchedulerResult>, Vec<ClassResult>, Vec<ClassTrace>) {
    let (mut scheds, mut rows, mut traces) = (Vec::new(), Vec::new(), Vec::new());
    for w in windows {
        let (Some(info), Some(sa), Some(sb)) = (queues.get(w.queue), a.classes.get(w.queue), b.classes.get(w.queue)) else { continue };
        let delta: Vec<ClassCounters> = sb
            .counters
            .iter()
            .zip(&sa.counters)
            .map(|(y, x)| ClassCounters {
                arrivals: y.arrivals - x.arrivals,
                drops: y.drops - x.drops,
                departures: y.departures - x.departures,
                departure_bytes: y.departure_bytes - x.departure_bytes,
                wait_ns: y.wait_ns - x.wait_ns,
            })
            .collect();
        let departures: u64 = delta.iter().map(|c| c.departures).sum();
        let bytes: u64 = delta.iter().map(|c| c.departure_bytes).sum();
        let tx_ns = if departures > 0 && info.rate_bps > 0 { bytes as f64 * 8.0e9 / info.rate_bps as f64 / departures as f64 } else { 0.0 };
        let decisions = sb.decisions - sa.decisions;
        scheds.push(SchedulerResult {
            link: info.link.clone(),
            from: info.from.clone(),
            to: info.to.clone(),
            scheduler: info.discipline.to_string(),
            classes: delta.len() as u32,
            decisions,
            ops_per_decision: (decisions > 0).then(|| (sb.ops - sa.ops) as f64 / decisions as f64),
            window_k: w.k,
        });
        if w.trace.limit() > 0 {
            let t = w.trace;
            traces.push(ClassTrace {
                link: info.link.clone(),
                from: info.from.clone(),
                to: info.to.clone(),
                t_s: t.t_ns.iter().map(|&x| x as f64 / 1e9).collect(),
                class: t.class.clone(),
                wait_ms: t.wait_ns.iter().map(|&x| x as f64 / 1e6).collect(),
                wait_tx: t.wait_ns.iter().map(|&x| if tx_ns > 0.0 { x as f64 / tx_ns } else { 0.0 }).collect(),
            });
        }
        let mean_ns = |c: &ClassCounters| (c.departures > 0).then(|| c.wait_ns as f64 / c.departures as f64);
        for (i, c) in delta.iter().enumerate() {
            let mean = mean_ns(c);
            let next = delta.get(i + 1).and_then(mean_ns);
            let mut ratios = w.ratios.get(i).cloned().unwrap_or_default();
            ratios.sort_by(f64::total_cmp);
            rows.push(ClassResult {
                link: info.link.clone(),
                from: info.from.clone(),
                to: info.to.clone(),
                class: i as u32,
                arrivals: c.arrivals,
                drops: c.drops,
                departures: c.departures,
                mean_wait_ms: mean.map(|m| m / 1e6),
                mean_wait_tx: mean.filter(|_| tx_ns > 0.0).map(|m| m / tx_ns),
                ratio_to_next: match (mean, next) {
                    (Some(m), Some(n)) if n > 0.0 => Some(m / n),
                    _ => None,
                },
                windows: ratios.len() as u64,
                window_ratio_p5: percentile(&ratios, 0.05),
                window_ratio_p25: percentile(&ratios, 0.25),
                window_ratio_p50: percentile(&ratios, 0.50),
                window_ratio_p75: percentile(&ratios, 0.75),
                window_ratio_p95: percentile(&ratios, 0.95),
            });
        }
    }
    (scheds, rows, traces)
}
