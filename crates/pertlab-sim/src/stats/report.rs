//! The assembly of [`Results`] from what the world hands over at the end of a
//! run ([`ReportInput`]): the snapshots of cumulative counters taken at the
//! start and end of the measurement window, descriptors of the queues and
//! flows, and the monitors' records. A plain input, so that `stats` does not
//! depend on the world.

use super::classes::{class_results, ClassSnapshot, ClassWindows};
use crate::net::ChannelCounters;
use crate::queue::{QueueCounters, QueueLimit};
use crate::tcp::cc::{CcCounters, Mode};
use crate::tcp::receiver::ReceiverCounters;
use crate::tcp::sender::SenderCounters;
use crate::time::{to_secs, SimTime};
use crate::traffic::udp::UdpCounters;
use crate::traffic::video::{t_over_mu, PlayoutResult};
use crate::traffic::web::Completion;

use super::{
    jain_index, utilization, Conservation, ControllerResult, FlowResult, FlowSeries, QueuePositions, QueueResult, QueueSeries, Results, Trace, UdpResult,
    VideoPlayout, WebResult,
};

/// Every cumulative counter of the world at one instant.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub time: SimTime,
    pub queues: Vec<QueueCounters>,
    pub channels: Vec<ChannelCounters>,
    pub senders: Vec<SenderCounters>,
    pub receivers: Vec<ReceiverCounters>,
    pub cc: Vec<CcCounters>,
    pub data_drops: Vec<u64>,
    pub retransmit_drops: Vec<u64>,
    pub udp: Vec<UdpCounters>,
    /// One per channel (empty for single-FIFO queues).
    pub classes: Vec<ClassSnapshot>,
}

/// One queue (a direction of a link), as the results name it.
pub struct QueueInfo {
    pub link: String,
    pub from: String,
    pub to: String,
    pub discipline: &'static str,
    pub rate_bps: u64,
    /// The buffer limit of the queue, or of each class of a multi-class queue.
    pub limit: QueueLimit,
    /// Buffers of `limit`: the classes of a multi-class queue (each has its own), else 1.
    pub buffers: u32,
    /// Why the queue's discipline can never act on this buffer ([`crate::queue::QueueDiscipline::never_acts`]).
    pub never_acts: Option<String>,
}

impl QueueInfo {
    /// The results' `queue_warnings` line of a queue whose discipline can never act, naming
    /// its link and direction; None for one that can act.
    pub fn warning(&self) -> Option<String> {
        let why = self.never_acts.as_ref()?;
        Some(format!("{} ({} -> {}, {}): {why}; the queue drops on overflow only, as drop-tail", self.link, self.from, self.to, self.discipline))
    }
}

/// One long TCP flow, as the results describe it.
pub struct FlowInfo {
    pub cc: &'static str,
    pub label: String,
    pub src: String,
    pub dst: String,
    pub start: SimTime,
    /// Payload bytes per segment.
    pub payload_bytes: u32,
    /// Bytes on the wire of a data segment and of an ACK.
    pub packet_size: u32,
    pub ack_size: u32,
    /// The receiver's ACK policy ("every", "delayed", "adaptive").
    pub ack_policy: &'static str,
    /// The playout numbers of the flow's video stream, if it carries one, and its rate (bit/s of payload).
    pub video: Option<PlayoutResult>,
    pub video_rate_bps: Option<u64>,
    /// The same at the stream's further start-up delays (`VideoSpec::startup_delays_ns`).
    pub video_further: Vec<(SimTime, PlayoutResult)>,
    /// A greedy probe measuring T for the video streams of its controller (`FlowSpec::probe`).
    pub probe: bool,
    /// Sender pacing and the ACK-train RTT correction are on.
    pub pacing: bool,
    pub rtt_correction: bool,
    /// Two-way propagation delay of the path (data path + ACK path).
    pub base_rtt: SimTime,
}

/// One UDP source's node names.
pub struct UdpInfo {
    pub src: String,
    pub dst: String,
}

/// The web sessions' record over the whole run.
pub struct WebInput<'a> {
    pub sessions: u32,
    /// Objects requested.
    pub requested: u64,
    pub completions: &'a [Completion],
    /// Connections still open.
    pub open: u64,
}

/// The data segments of one long flow at the end of the run.
pub struct FlowBalance {
    pub sent: u64,
    pub received: u64,
    pub dropped: u64,
    pub in_network: u64,
}

/// Counts of the conservation check, at the end of the run.
pub struct ConservationInput {
    /// Packets of every kind.
    pub injected: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_network: u64,
    pub flows: Vec<FlowBalance>,
}

/// Everything the results are computed from.
pub struct ReportInput<'a> {
    /// Snapshots at the start and the end of the measurement window.
    pub start: &'a Snapshot,
    pub end: &'a Snapshot,
    /// One per channel, in the order of the snapshots' `queues`.
    pub queues: Vec<QueueInfo>,
    /// One per long flow, in the order of the snapshots' `senders`.
    pub flows: Vec<FlowInfo>,
    pub udp: Vec<UdpInfo>,
    /// The K-departure windows of the multi-class queues.
    pub class_windows: Vec<ClassWindows<'a>>,
    /// `None` without web sessions.
    pub web: Option<WebInput<'a>>,
    /// Label names, indexes of the queue-position counts.
    pub labels: &'a [String],
    /// The queue-position link and its counts `[label][position - 1]`, when configured.
    pub queue_positions: Option<(&'a str, &'a [Vec<u64>])>,
    pub events: u64,
    pub interrupted: bool,
    /// Simulated time at the end of the run.
    pub now: SimTime,
    pub seed: u64,
    pub conservation: ConservationInput,
    pub queue_series: QueueSeries,
    pub flow_series: FlowSeries,
    pub trace: Trace,
}

/// `num / den`, None (undefined) when `den` is 0; callers pass a part of a
/// population and the population, so the ratio lies in [0, 1].
fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

pub fn assemble(input: ReportInput) -> Results {
    let (a, b) = (input.start, input.end);
    let span_ns = b.time.saturating_sub(a.time);
    let span_s = to_secs(span_ns);

    let queues: Vec<QueueResult> = input
        .queues
        .iter()
        .enumerate()
        .map(|(i, ch)| {
            let (qa, qb) = (&a.queues[i], &b.queues[i]);
            let avg_pkts = if span_ns == 0 { 0.0 } else { (qb.area_pkts - qa.area_pkts) as f64 / span_ns as f64 };
            let avg_bytes = if span_ns == 0 { 0.0 } else { (qb.area_bytes - qa.area_bytes) as f64 / span_ns as f64 };
            // Normalized by the whole buffer: a multi-class queue holds up to `limit` per class.
            let buffers = f64::from(ch.buffers.max(1));
            let (limit_pkts, limit_bytes, norm) = match ch.limit {
                QueueLimit::Packets(p) => (Some(p), None, avg_pkts / (p as f64 * buffers)),
                QueueLimit::Bytes(by) => (None, Some(by), avg_bytes / (by as f64 * buffers)),
            };
            let departures = qb.departures - qa.departures;
            let drops = qb.drops() - qa.drops();
            let marks = qb.marks - qa.marks;
            let decided = departures + drops;
            let busy_ns = b.channels[i].busy_ns - a.channels[i].busy_ns;
            QueueResult {
                link: ch.link.clone(),
                from: ch.from.clone(),
                to: ch.to.clone(),
                discipline: ch.discipline.to_string(),
                rate_bps: ch.rate_bps,
                limit_pkts,
                limit_bytes,
                avg_queue_pkts: avg_pkts,
                avg_queue_bytes: avg_bytes,
                avg_queue_norm: norm,
                arrivals: qb.arrivals - qa.arrivals,
                departures,
                drops,
                drops_overflow: qb.drops_overflow - qa.drops_overflow,
                drops_early: qb.drops_early - qa.drops_early,
                drops_forced: qb.drops_forced - qa.drops_forced,
                drops_departure: qb.drops_departure - qa.drops_departure,
                marks,
                drop_rate: ratio(drops, decided),
                mark_rate: ratio(marks, decided),
                utilization: utilization(busy_ns, span_ns),
                link_losses: b.channels[i].losses - a.channels[i].losses,
            }
        })
        .collect();

    let mut flows: Vec<FlowResult> = input
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (sa, sb) = (&a.senders[i], &b.senders[i]);
            let delivered = b.receivers[i].segments_delivered - a.receivers[i].segments_delivered;
            let goodput_bytes = delivered * f.payload_bytes as u64;
            let rtt_samples = sb.rtt_samples - sa.rtt_samples;
            let received = b.receivers[i].data_received - a.receivers[i].data_received;
            let drops = b.data_drops[i] - a.data_drops[i];
            let acks_sent = b.receivers[i].acks_sent - a.receivers[i].acks_sent;
            let rate_mbps = |packets: u64, size: u32| if span_s > 0.0 { packets as f64 * f64::from(size) * 8.0 / span_s / 1e6 } else { 0.0 };
            FlowResult {
                id: i as u32,
                cc: f.cc.to_string(),
                label: f.label.clone(),
                src: f.src.clone(),
                dst: f.dst.clone(),
                start_s: to_secs(f.start),
                goodput_mbps: if span_s > 0.0 { goodput_bytes as f64 * 8.0 / span_s / 1e6 } else { 0.0 },
                goodput_bytes,
                segments_sent: sb.segments_sent - sa.segments_sent,
                segments_received: received,
                retransmits: sb.retransmits - sa.retransmits,
                lost_retransmits: sb.lost_retransmits - sa.lost_retransmits,
                drops,
                retransmit_drops: b.retransmit_drops[i] - a.retransmit_drops[i],
                drop_rate: ratio(drops, received + drops),
                timeouts: sb.timeouts - sa.timeouts,
                rto_wait_s: to_secs(sb.rto_wait_ns - sa.rto_wait_ns),
                fast_recoveries: sb.fast_recoveries - sa.fast_recoveries,
                ecn_reductions: sb.ecn_reductions - sa.ecn_reductions,
                early_responses: b.cc[i].early_responses - a.cc[i].early_responses,
                probe_echoes: b.cc[i].probe_echoes - a.cc[i].probe_echoes,
                mean_r: mean_r(&a.cc[i], &b.cc[i]),
                high_speed_s: mode_seconds(a, b, i, Mode::HighSpeed),
                safe_s: mode_seconds(a, b, i, Mode::Safe),
                compete_s: mode_seconds(a, b, i, Mode::Compete),
                hystart_train_exits: b.cc[i].hystart_exits[0],
                hystart_train_cwnd: hystart_mean_cwnd(&b.cc[i], 0),
                hystart_delay_exits: b.cc[i].hystart_exits[1],
                hystart_delay_cwnd: hystart_mean_cwnd(&b.cc[i], 1),
                base_rtt_ms: to_secs(f.base_rtt) * 1e3,
                ack_policy: f.ack_policy.to_string(),
                pacing: f.pacing,
                video_packets: f.video.map(|v| v.packets),
                video_late: f.video.map(|v| v.late),
                video_late_fraction: f.video.and_then(|v| v.late_fraction),
                video_success: f.video.and_then(|v| v.success()),
                video_playout: f.video_further.iter().map(|&(d, v)| VideoPlayout::new(d, v)).collect(),
                video_t_mu: None,
                probe: f.probe,
                rtt_correction: f.rtt_correction,
                data_mbps: rate_mbps(received, f.packet_size),
                acks_sent,
                ack_mbps: rate_mbps(acks_sent, f.ack_size),
                data_ack_ratio: (acks_sent > 0).then(|| received as f64 / acks_sent as f64),
                rtt_samples,
                rtt_mean_ms: (rtt_samples > 0).then(|| (sb.rtt_sum_ns - sa.rtt_sum_ns) as f64 / rtt_samples as f64 / 1e6),
                rtt_min_ms: (sb.rtt_samples > 0).then(|| sb.rtt_min_ns as f64 / 1e6),
                rtt_max_ms: (sb.rtt_samples > 0).then(|| sb.rtt_max_ns as f64 / 1e6),
            }
        })
        .collect();
    let probes: Vec<(&str, f64)> = flows.iter().filter(|f| f.probe).map(|f| (f.cc.as_str(), f.goodput_mbps)).collect();
    let t_mu: Vec<Option<f64>> = input.flows.iter().zip(&flows).map(|(i, f)| i.video_rate_bps.and_then(|r| t_over_mu(r, &f.cc, &probes))).collect();
    for (f, t) in flows.iter_mut().zip(t_mu) {
        f.video_t_mu = t;
    }

    let udp = input
        .udp
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let (ua, ub) = (&a.udp[i], &b.udp[i]);
            UdpResult {
                id: i as u32,
                src: u.src.clone(),
                dst: u.dst.clone(),
                sent: ub.sent - ua.sent,
                received: ub.received - ua.received,
                dropped: ub.dropped - ua.dropped,
                throughput_mbps: if span_s > 0.0 { (ub.received_bytes - ua.received_bytes) as f64 * 8.0 / span_s / 1e6 } else { 0.0 },
            }
        })
        .collect();

    let bottleneck = queues.iter().find(|q| q.link == "bottleneck").or_else(|| queues.iter().max_by(|x, y| x.utilization.total_cmp(&y.utilization))).cloned();
    let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_mbps).collect();

    let (schedulers, classes, class_traces) = class_results(&input.queues, a, b, &input.class_windows);
    Results {
        schedulers,
        classes,
        class_traces,
        bottleneck,
        queues,
        jain: jain_index(&goodputs),
        controllers: controllers(&flows),
        queue_positions: queue_positions(input.labels, input.queue_positions),
        flows,
        udp,
        web: input.web.map(|w| web_result(&w, a.time, b.time)),
        events: input.events,
        wall_seconds: 0.0,
        interrupted: input.interrupted,
        sim_seconds: to_secs(input.now),
        window_start_s: to_secs(a.time),
        window_end_s: to_secs(b.time),
        seed: input.seed,
        conservation: conservation(&input.conservation),
        queue_series: input.queue_series,
        flow_series: input.flow_series,
        trace: input.trace,
        capture_errors: Vec::new(),
        queue_warnings: input.queues.iter().filter_map(QueueInfo::warning).collect(),
    }
}

/// The mean R of the probing ACKs between the two snapshots.
fn mean_r(a: &CcCounters, b: &CcCounters) -> Option<f64> {
    let n = b.probe_echoes - a.probe_echoes;
    (n > 0).then(|| (b.r_sum - a.r_sum) / n as f64)
}

/// The mean window at a controller's HyStart exits of one detection (`how`:
/// 0 ACK train, 1 delay), from its counters; None without an exit.
fn hystart_mean_cwnd(c: &CcCounters, how: usize) -> Option<f64> {
    (c.hystart_exits[how] > 0).then(|| c.hystart_exit_cwnd[how] as f64 / c.hystart_exits[how] as f64)
}

/// Seconds flow `i` spent in `mode` between the two snapshots.
fn mode_seconds(a: &Snapshot, b: &Snapshot, i: usize, mode: Mode) -> f64 {
    let m = mode as usize;
    to_secs(b.cc[i].mode_time_ns[m].saturating_sub(a.cc[i].mode_time_ns[m]))
}

/// One row per label, in order of first appearance, from the flows' own numbers.
fn controllers(flows: &[FlowResult]) -> Vec<ControllerResult> {
    let total: f64 = flows.iter().map(|f| f.goodput_mbps).sum();
    let mut rows: Vec<ControllerResult> = Vec::new();
    for f in flows {
        let i = match rows.iter().position(|r| r.label == f.label) {
            Some(i) => i,
            None => {
                rows.push(ControllerResult { label: f.label.clone(), ..ControllerResult::default() });
                rows.len() - 1
            }
        };
        let r = &mut rows[i];
        r.flows += 1;
        r.goodput_mbps += f.goodput_mbps;
        r.segments_sent += f.segments_sent;
        r.segments_received += f.segments_received;
        r.drops += f.drops;
    }
    for r in &mut rows {
        r.share = (total > 0.0).then(|| r.goodput_mbps / total);
        r.drop_rate = ratio(r.drops, r.segments_received + r.drops);
    }
    rows
}

/// The non-zero queue-position counts, by label then position.
fn queue_positions(labels: &[String], counts: Option<(&str, &[Vec<u64>])>) -> QueuePositions {
    let Some((link, counts)) = counts else { return QueuePositions::default() };
    let mut out = QueuePositions { link: link.to_string(), ..QueuePositions::default() };
    for (label, row) in counts.iter().enumerate() {
        for (i, &n) in row.iter().enumerate().filter(|(_, &n)| n > 0) {
            out.label.push(labels[label].clone());
            out.position.push(i as u32 + 1);
            out.count.push(n);
        }
    }
    out
}

/// The web objects completed in `(start, end]`.
fn web_result(web: &WebInput, start: SimTime, end: SimTime) -> WebResult {
    let done: Vec<&Completion> = web.completions.iter().filter(|c| c.at > start && c.at <= end).collect();
    let mut ms: Vec<f64> = done.iter().map(|c| c.response as f64 / 1e6).collect();
    ms.sort_by(f64::total_cmp);
    // Nearest-rank percentile; None without a completed object.
    let pct = |p: f64| (!ms.is_empty()).then(|| ms[((p * ms.len() as f64).ceil() as usize).clamp(1, ms.len()) - 1]);
    let bytes: u64 = done.iter().map(|c| c.bytes).sum();
    let span_s = to_secs(end.saturating_sub(start));
    WebResult {
        sessions: web.sessions,
        objects_requested: web.requested,
        objects_completed: done.len() as u64,
        bytes_completed: bytes,
        throughput_mbps: if span_s > 0.0 { bytes as f64 * 8.0 / span_s / 1e6 } else { 0.0 },
        response_ms_mean: (!ms.is_empty()).then(|| ms.iter().sum::<f64>() / ms.len() as f64),
        response_ms_p50: pct(0.50),
        response_ms_p95: pct(0.95),
        response_ms_p99: pct(0.99),
        open_at_end: web.open,
    }
}

/// Check sent = delivered + dropped + in flight, in total and per flow.
fn conservation(c: &ConservationInput) -> Conservation {
    let mut violations = Vec::new();
    for (i, f) in c.flows.iter().enumerate() {
        if f.sent != f.received + f.dropped + f.in_network {
            violations.push(format!("flow {i}: sent {} != received {} + dropped {} + in network {}", f.sent, f.received, f.dropped, f.in_network));
        }
    }
    if c.injected != c.delivered + c.dropped + c.in_network {
        violations.push(format!("all packets: injected {} != delivered {} + dropped {} + in network {}", c.injected, c.delivered, c.dropped, c.in_network));
    }
    Conservation { ok: violations.is_empty(), injected: c.injected, delivered: c.delivered, dropped: c.dropped, in_network: c.in_network, violations }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(label: &str, goodput_mbps: f64, segments_received: u64, drops: u64) -> FlowResult {
        FlowResult { label: label.into(), goodput_mbps, segments_received, drops, ..FlowResult::default() }
    }

    #[test]
    fn shares_and_drop_rates_of_labels_are_undefined_over_nothing() {
        // Goodputs 3 and 1 Mbit/s: shares 3/4 and 1/4; drop rates 1/(9 + 1) and 0/(5 + 0).
        let rows = controllers(&[flow("a", 3.0, 9, 1), flow("b", 1.0, 5, 0)]);
        assert_eq!((rows[0].share, rows[1].share), (Some(0.75), Some(0.25)));
        assert_eq!((rows[0].drop_rate, rows[1].drop_rate), (Some(0.1), Some(0.0)));
        // Nothing delivered by anyone, and no packet of "b" decided: no share, no rate.
        let rows = controllers(&[flow("a", 0.0, 0, 4), flow("b", 0.0, 0, 0)]);
        assert_eq!((rows[0].share, rows[1].share), (None, None));
        assert_eq!((rows[0].drop_rate, rows[1].drop_rate), (Some(1.0), None));
    }

    #[test]
    fn web_response_times_are_undefined_without_a_completed_object() {
        let done = [Completion { at: 5, response: 2_000_000, bytes: 100 }, Completion { at: 50, response: 4_000_000, bytes: 100 }];
        let web = |completions| WebInput { sessions: 1, requested: 2, completions, open: 0 };
        // One object completed in (0, 10]: 2 ms for the mean and every percentile.
        let w = web_result(&web(&done), 0, 10);
        assert_eq!((w.objects_completed, w.response_ms_mean, w.response_ms_p50, w.response_ms_p99), (1, Some(2.0), Some(2.0), Some(2.0)));
        // Both in (0, 100]: mean 3 ms, p50 the first (nearest rank), p95 the second.
        let w = web_result(&web(&done), 0, 100);
        assert_eq!((w.response_ms_mean, w.response_ms_p50, w.response_ms_p95), (Some(3.0), Some(2.0), Some(4.0)));
        // None in (60, 100]: nothing measured.
        let w = web_result(&web(&done), 60, 100);
        assert_eq!((w.objects_completed, w.response_ms_mean, w.response_ms_p50, w.response_ms_p95, w.response_ms_p99), (0, None, None, None, None));
        assert!(serde_json::to_string(&w).unwrap().contains(r#""response_ms_mean":null"#));
    }
}
