//! What a run reports: per-queue and per-flow summaries over the measurement
//! window, and optional time series. One definition of each metric, used
//! everywhere (ARCHITECTURE.md):
//!
//! - average queue: time-weighted mean length over the window (packets, bytes),
//!   and normalized by the buffer limit;
//! - every **rate** is a ratio of two counts of one population of packets,
//!   counted over the window, the numerator a part of the denominator, so it
//!   lies in [0, 1] by construction; it is undefined (`None`, null in JSON)
//!   when the population is empty:
//!   - a queue's drop rate = packets it dropped / packets whose fate it
//!     decided in the window (departed + dropped); mark rate = packets that
//!     departed with a CE mark it set / the same population. A packet's fate
//!     is decided when it is dropped (at arrival, or at departure for CoDel)
//!     or when it leaves, so a packet queued across an edge of the window
//!     counts in the window it leaves;
//!   - a flow's drop rate = its data packets lost anywhere (queues, wire) / its
//!     data packets whose fate was decided in the window (arrived at the
//!     receiver, duplicates included, + lost); per label (`controllers`) the
//!     same over the label's flows;
//! - utilization = fraction of the window the link the queue feeds was
//!   transmitting, i.e. bits sent / (capacity x window), with a packet that
//!   straddles an edge of the window counted for its part inside
//!   ([`utilization`]; the queue series' `utilization` is the same over each
//!   sample interval);
//! - goodput = bytes of payload delivered in order to the receiver, each segment
//!   once (retransmissions excluded), / window;
//! - Jain's fairness index over the goodputs of the long-lived TCP flows (web
//!   transfers are summarised apart, in `web`); undefined without a flow or
//!   when every goodput is 0 ([`jain_index`]);
//! - per label (`FlowSpec::label`, default the controller's name), in
//!   `controllers`: sums of the label's flows' window numbers (goodput,
//!   segments sent and received, data packets dropped anywhere), share = its
//!   goodput / all long flows' goodput (undefined when that is 0), drop rate
//!   as above;
//! - time in a mode (adaptive PERT): seconds of the window during which the
//!   mode decided at the end of an alpha period was in force;
//! - queue positions (`monitor.queue_positions`): for each data packet the
//!   observed queue accepts inside the window, packets already waiting + 1;
//! - web response time: from the start of an object's connection to the ACK of
//!   its last segment, for the objects completed inside the window (its mean
//!   and percentiles undefined when none completed).
//!
//! Every other mean, ratio or percentile over a set that can be empty (a
//! flow's RTT samples, its data/ACK ratio, a class's waits, a scheduler's
//! operations per decision, a video stream's late fraction) is likewise `None`
//! over an empty set, never a made-up 0 or 1.
//!
//! Window metrics are differences of two snapshots of cumulative counters taken
//! at the window's start and end, so no metric needs its own bookkeeping.

pub mod classes;
pub mod report;

pub use classes::{ClassResult, ClassTrace, SchedulerResult};

use std::mem::size_of;

use serde::Serialize;

use crate::time::{to_secs, SimTime};
use crate::traffic::video::PlayoutResult;

/// Everything a run produces.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Results {
    /// Summary metrics of the queue called "bottleneck" (forward direction), or
    /// of the busiest queue when no link has that name.
    pub bottleneck: Option<QueueResult>,
    pub queues: Vec<QueueResult>,
    pub flows: Vec<FlowResult>,
    /// One row per flow label, in order of first appearance among the flows.
    pub controllers: Vec<ControllerResult>,
    /// Distribution of queue positions per label (empty unless `monitor.queue_positions`).
    pub queue_positions: QueuePositions,
    pub udp: Vec<UdpResult>,
    /// Multi-class queues (kinds "priority", "wtp", "swtp", "bpr"): one row per queue, and one per class.
    pub schedulers: Vec<SchedulerResult>,
    pub classes: Vec<ClassResult>,
    /// Per-packet waits of the multi-class queues with `sched.trace_packets` (Fig 5.3).
    pub class_traces: Vec<ClassTrace>,
    /// Web traffic over the window, when the scenario has web sessions.
    pub web: Option<WebResult>,
    /// Jain's fairness index over TCP flow goodputs (1 = perfectly fair); None
    /// without a TCP flow or when every goodput is 0 ([`jain_index`]).
    pub jain: Option<f64>,
    /// Events processed by the engine.
    pub events: u64,
    /// Wall-clock seconds of the run (set by the caller that timed it; not part
    /// of the deterministic output).
    pub wall_seconds: f64,
    /// The run was stopped before `duration_ns` (the summary covers what ran).
    pub interrupted: bool,
    /// Simulated seconds run and the measurement window.
    pub sim_seconds: f64,
    pub window_start_s: f64,
    pub window_end_s: f64,
    pub seed: u64,
    /// Packet conservation check over the whole run, per TCP flow and in total.
    pub conservation: Conservation,
    pub queue_series: QueueSeries,
    pub flow_series: FlowSeries,
    /// Per-packet trace (monitor.trace_flows), over the whole run.
    pub trace: Trace,
    /// The captures whose file could not be written to the end (each names its
    /// `capture[i].file`); absent when every capture was written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub capture_errors: Vec<String>,
    /// The queues whose discipline can never act on their buffer, each with the
    /// reason (RED's min_th at or above the buffer); absent when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queue_warnings: Vec<String>,
}

/// Per-packet trace of the traced flows and link, columnar, over the whole run.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Trace {
    /// Every RTT sample a traced sender took: time, flow, sample, the segment
    /// it measures (the one whose timestamp the ACK echoed, see
    /// `TcpSender::echoed_segment`), window, and the traced link's queue length
    /// (packets waiting) at that moment.
    pub rtt_t_s: Vec<f64>,
    pub rtt_flow: Vec<u32>,
    pub rtt_ms: Vec<f64>,
    pub rtt_seq: Vec<u32>,
    pub rtt_cwnd: Vec<u32>,
    pub rtt_queue_pkts: Vec<u32>,
    /// Losses of the traced flows' data packets, anywhere.
    pub loss_t_s: Vec<f64>,
    pub loss_flow: Vec<u32>,
    /// Drops at the traced link's queue (any flow; web transfers have ids past the long flows').
    pub drop_t_s: Vec<f64>,
    pub drop_flow: Vec<u32>,
    /// Buffer of the traced link's queue, packets (0 without a traced link).
    pub queue_limit_pkts: u32,
}

/// Web objects completed inside the measurement window.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WebResult {
    pub sessions: u32,
    /// Objects requested over the whole run, and completed inside the window.
    pub objects_requested: u64,
    pub objects_completed: u64,
    /// Payload bytes of the objects completed inside the window, and that as a rate.
    pub bytes_completed: u64,
    pub throughput_mbps: f64,
    /// Response times of those objects, milliseconds: mean and nearest-rank
    /// percentiles; None when none completed.
    pub response_ms_mean: Option<f64>,
    pub response_ms_p50: Option<f64>,
    pub response_ms_p95: Option<f64>,
    pub response_ms_p99: Option<f64>,
    /// Object transfers still open when the run ended.
    pub open_at_end: u64,
}

/// One direction of a link: its output queue and the link it feeds.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct QueueResult {
    /// Link name and the direction (node names).
    pub link: String,
    pub from: String,
    pub to: String,
    pub discipline: String,
    pub rate_bps: u64,
    /// Buffer limit in packets (or bytes / mean packet size if limited in bytes... see `limit_bytes`).
    pub limit_pkts: Option<u32>,
    pub limit_bytes: Option<u64>,
    pub avg_queue_pkts: f64,
    pub avg_queue_bytes: f64,
    /// Average queue divided by the whole buffer (packets by packets, bytes by bytes): the
    /// limit, times the classes of a multi-class queue (each class has a buffer of the limit).
    pub avg_queue_norm: f64,
    /// Packets that arrived, left, were dropped, and left with a CE mark this
    /// queue set, within the window.
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
    /// `drops` by cause: the buffer was full (`overflow`), the discipline's
    /// random early drop (`early`), RED's average beyond max_th (2 max_th
    /// when gentle) dropping every arrival (`forced`), or dropped when
    /// leaving the queue (`departure`: CoDel, PIE with sojourn time).
    pub drops_overflow: u64,
    pub drops_early: u64,
    pub drops_forced: u64,
    pub drops_departure: u64,
    pub marks: u64,
    /// drops / (departures + drops): see the module doc; None when the queue
    /// decided no packet's fate in the window.
    pub drop_rate: Option<f64>,
    /// marks / (departures + drops); None as `drop_rate`.
    pub mark_rate: Option<f64>,
    pub utilization: f64,
    /// Packets lost on the wire (Bernoulli loss of the link).
    pub link_losses: u64,
}

/// A video flow's playout at one of its further start-up delays (Qian 2011,
/// Figs 7, 8, 10-12): as `FlowResult::video_*` at that delay.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct VideoPlayout {
    pub startup_delay_s: f64,
    pub packets: u64,
    pub late: u64,
    /// None when no segment is counted (`packets` 0), and then `success` too.
    pub late_fraction: Option<f64>,
    pub success: Option<bool>,
}

impl VideoPlayout {
    pub fn new(startup_delay: SimTime, r: PlayoutResult) -> VideoPlayout {
        VideoPlayout { startup_delay_s: to_secs(startup_delay), packets: r.packets, late: r.late, late_fraction: r.late_fraction, success: r.success() }
    }
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FlowResult {
    pub id: u32,
    pub cc: String,
    /// The flow's group: `FlowSpec::label`, default the controller's name.
    pub label: String,
    pub src: String,
    pub dst: String,
    pub start_s: f64,
    /// Goodput over the window, Mbit/s of payload.
    pub goodput_mbps: f64,
    /// Payload bytes delivered in order within the window.
    pub goodput_bytes: u64,
    /// Within the window: data segments sent (incl. retransmissions), data
    /// packets that arrived at the receiver (duplicates included),
    /// retransmissions, data packets of this flow dropped anywhere (queues and
    /// wire), timeouts, fast recoveries, ECN reductions, controller-initiated
    /// reductions.
    pub segments_sent: u64,
    pub segments_received: u64,
    pub retransmits: u64,
    /// Of `retransmits`, those marked lost again while in flight: at a
    /// timeout, or with `rack_retransmits` by RACK (`SenderCounters`).
    pub lost_retransmits: u64,
    pub drops: u64,
    /// Of `drops`, retransmitted segments (lost again after a resend). The
    /// sender finds these only by its timer (`tcp::sender`, "Left out").
    pub retransmit_drops: u64,
    /// drops / (segments_received + drops): see the module doc; None when
    /// both are 0.
    pub drop_rate: Option<f64>,
    pub timeouts: u64,
    /// Within the window: seconds the sender waited on the retransmission
    /// timeouts that fired, each from the timer's arming to its expiry
    /// (`SenderCounters::rto_wait_ns`; a timeout that fires after the window
    /// ends is not counted, one that fires within it is counted whole).
    pub rto_wait_s: f64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
    pub early_responses: u64,
    /// Within the window: probing ACKs the controller received (JCC; 0 for
    /// controllers that do not probe) and the mean path load reduction factor
    /// R they echoed, as a drop probability (Hua 2002, Table 4.1's "R (mean)";
    /// none without probing ACKs).
    pub probe_echoes: u64,
    pub mean_r: Option<f64>,
    /// Seconds within the window the controller spent in each adaptive-PERT
    /// mode (zero for other controllers): the mode decided at the end of an
    /// alpha period (5 RTTs) is in force until the end of the next; none
    /// before the first RTT sample. Their sum is at most the window.
    pub high_speed_s: f64,
    pub safe_s: f64,
    pub compete_s: f64,
    /// Slow starts HyStart ended (CUBIC's `linux` variant with `hystart`) on
    /// an ACK train and on a delay increase, and the mean window (segments) at
    /// those exits (None without one), from the flow's start to the window's
    /// end, not over the window: slow start mostly ends before a window
    /// begins. Linux counts the same per network namespace
    /// (`TCPHystartTrainDetect` and `TCPHystartTrainCwnd`, `...Delay...`).
    pub hystart_train_exits: u64,
    pub hystart_train_cwnd: Option<f64>,
    pub hystart_delay_exits: u64,
    pub hystart_delay_cwnd: Option<f64>,
    /// Two-way propagation delay of the path (data path + ACK path), ms.
    pub base_rtt_ms: f64,
    /// The receiver's ACK policy: "every", "delayed" or "adaptive".
    pub ack_policy: String,
    /// The sender paces its segments (`tcp.pacing.enabled`) and corrects its
    /// RTT samples for ACK trains (`tcp.rtt_correction`).
    pub pacing: bool,
    pub rtt_correction: bool,
    /// Video flows (Qian 2011, `FlowSpec::video`), over the whole run, not the
    /// window: segments counted (due by the end of the run, or delivered),
    /// late ones (delivered in order after their playout deadline, or due and
    /// never delivered), their fraction, and success = late fraction < 1e-4.
    /// None for other flows; the fraction and success also None for a stream
    /// with no segment counted.
    pub video_packets: Option<u64>,
    pub video_late: Option<u64>,
    pub video_late_fraction: Option<f64>,
    pub video_success: Option<bool>,
    /// The same at the stream's further start-up delays
    /// (`VideoSpec::startup_delays_ns`), in their order; left out when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub video_playout: Vec<VideoPlayout>,
    /// T/mu of a video flow (Qian 2011, III.A.1): the mean goodput of the
    /// run's probe flows of its controller over the video rate; None without
    /// a video or without such a probe ([`crate::traffic::video::t_over_mu`]).
    pub video_t_mu: Option<f64>,
    /// The flow is a probe (`FlowSpec::probe`): greedy, measuring T.
    pub probe: bool,
    /// Within the window: data packets arriving at the receiver (duplicates
    /// included) in Mbit/s on the wire (`segments_received` x packet size),
    /// ACKs the receiver sent and their Mbit/s on the wire (x ACK size), and
    /// the data/ACK ratio `segments_received / acks_sent` (None without ACKs).
    pub data_mbps: f64,
    pub acks_sent: u64,
    pub ack_mbps: f64,
    pub data_ack_ratio: Option<f64>,
    /// RTT samples over the window and their mean (None without a sample);
    /// the smallest and largest sample from the start of the run to the
    /// window's end (None when the flow has taken none).
    pub rtt_samples: u64,
    pub rtt_mean_ms: Option<f64>,
    pub rtt_min_ms: Option<f64>,
    pub rtt_max_ms: Option<f64>,
}

/// The long TCP flows of one label, over the measurement window; sums of
/// their [`FlowResult`] numbers.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ControllerResult {
    pub label: String,
    pub flows: u32,
    pub goodput_mbps: f64,
    /// This label's goodput / the goodput of all long TCP flows (None when that is 0).
    pub share: Option<f64>,
    pub segments_sent: u64,
    pub segments_received: u64,
    /// Data packets of these flows lost anywhere (queues and wire).
    pub drops: u64,
    /// drops / (segments_received + drops): see the module doc; None when both are 0.
    pub drop_rate: Option<f64>,
}

/// Columnar counts of queue positions: one row per (label, position) with a
/// non-zero count, ordered by label (first appearance) then position.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct QueuePositions {
    /// The link observed (its a -> b direction); empty when not configured.
    pub link: String,
    pub label: Vec<String>,
    /// Packets waiting when the packet was accepted, + 1 (the packet being
    /// transmitted not counted).
    pub position: Vec<u32>,
    pub count: Vec<u64>,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct UdpResult {
    pub id: u32,
    pub src: String,
    pub dst: String,
    pub sent: u64,
    pub received: u64,
    pub dropped: u64,
    pub throughput_mbps: f64,
}

/// sent = delivered + dropped + in flight, per flow (data segments), checked at the end.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Conservation {
    pub ok: bool,
    /// Total packets of every kind injected, delivered, dropped (queues and wire), still in the network.
    pub injected: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_network: u64,
    /// Flows whose data accounting does not balance (should be empty).
    pub violations: Vec<String>,
}

/// Columnar time series of queues: one row per (sample time, queue).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct QueueSeries {
    pub t_s: Vec<f64>,
    /// Index into `Results::queues`.
    pub queue: Vec<u32>,
    pub len_pkts: Vec<u32>,
    pub len_bytes: Vec<u64>,
    /// The discipline's current drop/mark probability (RED: p_b), 0 for DropTail.
    pub probability: Vec<f64>,
    /// The averaged queue the discipline acts on (RED family: EWMA avg), if any.
    pub avg: Vec<Option<f64>>,
    /// max_p of the RED family (adapted by ARED, Re-ARED, FARED, CARED, Feng), if any.
    pub max_p: Vec<Option<f64>>,
    /// [`utilization`] of the link the queue feeds over the sample interval
    /// that ends at `t_s` (since the previous sample; 0 for the sample at 0).
    pub utilization: Vec<f64>,
}

impl QueueResult {
    /// Columns (for the memory estimate).
    pub const COLUMNS: u64 = 22;
}

impl FlowResult {
    /// Columns (for the memory estimate).
    pub const COLUMNS: u64 = 47;
}

impl ControllerResult {
    /// Columns (for the memory estimate).
    pub const COLUMNS: u64 = 8;
}

impl QueueSeries {
    /// Columns, and bytes of one row (for the memory estimate).
    pub const COLUMNS: u64 = 8;
    pub const ROW_BYTES: usize = 2 * size_of::<u32>() + 3 * size_of::<f64>() + size_of::<u64>() + 2 * size_of::<Option<f64>>();
}

/// Columnar time series of flows: one row per (sample time, flow).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FlowSeries {
    pub t_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub cwnd: Vec<u32>,
    pub ssthresh: Vec<u32>,
    pub srtt_ms: Vec<f64>,
    /// Cumulative payload bytes delivered in order at the receiver.
    pub delivered_bytes: Vec<u64>,
    /// Adaptation state of controllers that have one (adaptive PERT), else
    /// none: the mode decided at the last alpha period ("high_speed", "safe",
    /// "compete"), alpha, the beta a response would apply now, the estimated
    /// loss-event rate p and early-response rate p', the queueing delay q and
    /// its observed maximum q_max.
    pub mode: Vec<Option<&'static str>>,
    pub alpha: Vec<Option<f64>>,
    pub beta: Vec<Option<f64>>,
    pub p: Vec<Option<f64>>,
    pub p_early: Vec<Option<f64>>,
    pub qdelay_ms: Vec<Option<f64>>,
    pub q_max_ms: Vec<Option<f64>>,
    /// The early-response probability each ACK is drawn with now (every PERT
    /// variant: the AQM it emulates); none for other controllers.
    pub p_response: Vec<Option<f64>>,
    /// The last path load reduction factor R a probing ACK echoed, as a drop
    /// probability (JCC; none for controllers that do not probe).
    pub r: Vec<Option<f64>>,
}

impl FlowSeries {
    /// Columns, and bytes of one row (for the memory estimate).
    pub const COLUMNS: u64 = 15;
    pub const ROW_BYTES: usize =
        3 * size_of::<u32>() + 2 * size_of::<f64>() + size_of::<u64>() + size_of::<Option<&'static str>>() + 8 * size_of::<Option<f64>>();
}

impl Trace {
    /// Columns and bytes of one RTT-sample row, and of one loss or drop row (for the memory estimate).
    pub const RTT_COLUMNS: u64 = 6;
    pub const EVENT_COLUMNS: u64 = 2;
    pub const RTT_ROW_BYTES: usize = 2 * size_of::<f64>() + 4 * size_of::<u32>();
    pub const EVENT_ROW_BYTES: usize = size_of::<f64>() + size_of::<u32>();
}

/// Utilization of a link over a span of `span_ns`: the fraction of it the
/// link was transmitting, `busy_ns / span_ns` (0 for an empty span). Busy time,
/// not bits over rate, so that it stays right across a change of the rate in
/// a run taken in steps. The one definition of the summaries' and the queue
/// series' `utilization`.
pub fn utilization(busy_ns: u64, span_ns: u64) -> f64 {
    if span_ns == 0 {
        0.0
    } else {
        busy_ns as f64 / span_ns as f64
    }
}

/// Jain's fairness index (sum x)^2 / (n sum x^2), in [1/n, 1]; None for an
/// empty or all-zero set (0/0: nothing was shared, so neither fair nor unfair).
/// At most 1 (Cauchy-Schwarz); the floating-point sums can land an ulp above,
/// which is cut off.
pub fn jain_index(xs: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sum_sq: f64 = xs.iter().map(|x| x * x).sum();
    (sum_sq > 0.0).then(|| (sum * sum / (n * sum_sq)).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The columns of a series, by name, as serialised.
    fn columns(v: impl Serialize) -> Vec<String> {
        let serde_json::Value::Object(m) = serde_json::to_value(v).unwrap() else { panic!("not a struct") };
        m.keys().cloned().collect()
    }

    #[test]
    fn row_sizes_count_every_column() {
        // A column added to a series must be added to its ROW_BYTES too.
        assert_eq!(columns(QueueResult::default()).len() as u64, QueueResult::COLUMNS);
        assert_eq!(columns(FlowResult::default()).len() as u64, FlowResult::COLUMNS);
        assert_eq!(columns(ControllerResult::default()).len() as u64, ControllerResult::COLUMNS);
        assert_eq!(columns(QueueSeries::default()).len() as u64, QueueSeries::COLUMNS);
        assert_eq!(QueueSeries::ROW_BYTES, 8 + 4 + 4 + 8 + 8 + 16 + 16 + 8);
        assert_eq!(columns(FlowSeries::default()).len() as u64, FlowSeries::COLUMNS);
        assert_eq!(FlowSeries::ROW_BYTES, 8 + 4 + 4 + 4 + 8 + 8 + 16 + 8 * 16);
        let trace = columns(Trace::default());
        assert_eq!(trace.iter().filter(|c| c.starts_with("rtt_")).count() as u64, Trace::RTT_COLUMNS);
        assert_eq!(trace.iter().filter(|c| c.starts_with("loss_") || c.starts_with("drop_")).count() as u64, 2 * Trace::EVENT_COLUMNS);
        // The class trace's row: the queue's (time, class, wait) and the results' (t_s, class, wait_ms, wait_tx).
        assert_eq!(columns(ClassTrace::default()).len(), 3 + 4);
        assert_eq!(ClassTrace::ROW_BYTES, (8 + 1 + 8) + (8 + 1 + 8 + 8));
    }

    #[test]
    fn jain_index_of_equal_and_skewed_shares() {
        assert_eq!(jain_index(&[3.0, 3.0, 3.0]), Some(1.0));
        // One flow takes everything: 1/n.
        assert!((jain_index(&[4.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
        // (1 + 2)^2 / (2 (1 + 4)) = 9 / 10.
        assert!((jain_index(&[1.0, 2.0]).unwrap() - 0.9).abs() < 1e-12);
        // (1 + 2 + 3)^2 / (3 (1 + 4 + 9)) = 36 / 42.
        assert!((jain_index(&[1.0, 2.0, 3.0]).unwrap() - 6.0 / 7.0).abs() < 1e-12);
        // Equal shares whose sums round above 1 (found by the property test).
        let xs = [2.7, 2.7, 2.7];
        assert!(xs.iter().sum::<f64>().powi(2) / (3.0 * xs.iter().map(|x| x * x).sum::<f64>()) > 1.0);
        assert_eq!(jain_index(&xs), Some(1.0));
    }

    #[test]
    fn jain_index_of_nothing_shared_is_undefined() {
        // All-zero goodputs (no flow delivered anything in the window) and no
        // flow at all: 0/0, not a perfectly fair 1.
        assert_eq!(jain_index(&[0.0, 0.0]), None);
        assert_eq!(jain_index(&[0.0]), None);
        assert_eq!(jain_index(&[]), None);
        // One flow with a goodput is fair to itself.
        assert_eq!(jain_index(&[0.5]), Some(1.0));
        // Undefined is null in the JSON the results are written as.
        assert_eq!(serde_json::to_string(&Results::default().jain).unwrap(), "null");
    }
}
