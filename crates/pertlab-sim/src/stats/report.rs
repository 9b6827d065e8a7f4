//! Snapshots of cumulative counters and the assembly of [`Results`] from the
//! snapshots taken at the start and end of the measurement window.

use crate::net::ChannelCounters;
use crate::packet::{PacketKind, TCP_IP_HEADER_BYTES};
use crate::queue::{QueueCounters, QueueLimit};
use crate::tcp::cc::{CcCounters, Mode};
use crate::tcp::receiver::ReceiverCounters;
use crate::tcp::sender::SenderCounters;
use crate::time::{to_secs, SimTime};
use crate::traffic::udp::UdpCounters;
use crate::traffic::web::Completion;
use crate::world::{Flow, World};

use super::{jain_index, Conservation, ControllerResult, FlowResult, QueuePositions, QueueResult, Results, UdpResult, WebResult};

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
    pub udp: Vec<UdpCounters>,
}

impl Snapshot {
    pub fn take(world: &mut World) -> Snapshot {
        let now = world.now;
        for c in world.channels.iter_mut() {
            c.queue.integrate(now);
        }
        Snapshot {
            time: now,
            queues: world.channels.iter().map(|c| c.queue.counters).collect(),
            channels: world.channels.iter().map(|c| c.counters_at(now)).collect(),
            senders: world.flows.iter().map(|f| *f.sender.counters()).collect(),
            receivers: world.flows.iter().map(|f| *f.receiver.counters()).collect(),
            cc: world.flows.iter().map(|f| f.sender.cc_counters()).collect(),
            data_drops: world.flows.iter().map(|f| f.data_drops).collect(),
            udp: world.udp.iter().map(|u| u.counters).collect(),
        }
    }
}

/// Payload bytes of `segments` segments of this flow.
pub fn payload_bytes(flow: &Flow, segments: u64) -> u64 {
    segments * (flow.sender.tp.mss.saturating_sub(TCP_IP_HEADER_BYTES)) as u64
}

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

pub fn assemble(world: &World) -> Results {
    let (Some(a), Some(b)) = (&world.snap_start, &world.snap_end) else {
        return Results::default();
    };
    let span_ns = b.time.saturating_sub(a.time);
    let span_s = to_secs(span_ns);

    let queues: Vec<QueueResult> = world
        .channels
        .iter()
        .enumerate()
        .map(|(i, ch)| {
            let (qa, qb) = (&a.queues[i], &b.queues[i]);
            let avg_pkts = if span_ns == 0 { 0.0 } else { (qb.area_pkts - qa.area_pkts) as f64 / span_ns as f64 };
            let avg_bytes = if span_ns == 0 { 0.0 } else { (qb.area_bytes - qa.area_bytes) as f64 / span_ns as f64 };
            let (limit_pkts, limit_bytes, norm) = match ch.queue.limit {
                QueueLimit::Packets(p) => (Some(p), None, avg_pkts / p as f64),
                QueueLimit::Bytes(by) => (None, Some(by), avg_bytes / by as f64),
            };
            let arrivals = qb.arrivals - qa.arrivals;
            let drops = qb.drops() - qa.drops();
            let marks = qb.marks - qa.marks;
            let busy_ns = b.channels[i].busy_ns - a.channels[i].busy_ns;
            QueueResult {
                link: ch.link_name.clone(),
                from: world.node_names[ch.from as usize].clone(),
                to: world.node_names[ch.to as usize].clone(),
                discipline: ch.queue.discipline.name().to_string(),
                rate_bps: ch.rate_bps,
                limit_pkts,
                limit_bytes,
                avg_queue_pkts: avg_pkts,
                avg_queue_bytes: avg_bytes,
                avg_queue_norm: norm,
                arrivals,
                departures: qb.departures - qa.departures,
                drops,
                marks,
                drop_rate: ratio(drops, arrivals),
                mark_rate: ratio(marks, arrivals),
                utilization: if span_ns > 0 { busy_ns as f64 / span_ns as f64 } else { 0.0 },
                link_losses: b.channels[i].losses - a.channels[i].losses,
            }
        })
        .collect();

    let flows: Vec<FlowResult> = world
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (sa, sb) = (&a.senders[i], &b.senders[i]);
            let delivered = b.receivers[i].segments_delivered - a.receivers[i].segments_delivered;
            let goodput_bytes = payload_bytes(f, delivered);
            let rtt_samples = sb.rtt_samples - sa.rtt_samples;
            let spec = &world.scenario.flows[i];
            FlowResult {
                id: i as u32,
                cc: f.sender.cc_name().to_string(),
                label: world.labels[world.flow_label[i] as usize].clone(),
                src: spec.src.clone(),
                dst: spec.dst.clone(),
                start_s: to_secs(f.start),
                goodput_mbps: if span_s > 0.0 { goodput_bytes as f64 * 8.0 / span_s / 1e6 } else { 0.0 },
                goodput_bytes,
                segments_sent: sb.segments_sent - sa.segments_sent,
                retransmits: sb.retransmits - sa.retransmits,
                drops: b.data_drops[i] - a.data_drops[i],
                timeouts: sb.timeouts - sa.timeouts,
                fast_recoveries: sb.fast_recoveries - sa.fast_recoveries,
                ecn_reductions: sb.ecn_reductions - sa.ecn_reductions,
                early_responses: b.cc[i].early_responses - a.cc[i].early_responses,
                high_speed_s: mode_seconds(a, b, i, Mode::HighSpeed),
                safe_s: mode_seconds(a, b, i, Mode::Safe),
                compete_s: mode_seconds(a, b, i, Mode::Compete),
                base_rtt_ms: base_rtt_ms(world, i),
                rtt_samples,
                rtt_mean_ms: if rtt_samples == 0 { 0.0 } else { (sb.rtt_sum_ns - sa.rtt_sum_ns) as f64 / rtt_samples as f64 / 1e6 },
                rtt_min_ms: if sb.rtt_samples == 0 { 0.0 } else { sb.rtt_min_ns as f64 / 1e6 },
                rtt_max_ms: sb.rtt_max_ns as f64 / 1e6,
            }
        })
        .collect();

    let udp = world
        .udp
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let (ua, ub) = (&a.udp[i], &b.udp[i]);
            UdpResult {
                id: i as u32,
                src: world.scenario.udp[i].src.clone(),
                dst: world.scenario.udp[i].dst.clone(),
                sent: ub.sent - ua.sent,
                received: ub.received - ua.received,
                dropped: ub.dropped - ua.dropped,
                throughput_mbps: if span_s > 0.0 { (ub.received_bytes - ua.received_bytes) as f64 * 8.0 / span_s / 1e6 } else { 0.0 },
            }
        })
        .collect();

    let bottleneck = queues.iter().find(|q| q.link == "bottleneck").or_else(|| queues.iter().max_by(|x, y| x.utilization.total_cmp(&y.utilization))).cloned();
    let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_mbps).collect();

    Results {
        bottleneck,
        queues,
        jain: jain_index(&goodputs),
        controllers: controllers(&flows),
        queue_positions: queue_positions(world),
        flows,
        udp,
        web: web_result(world, a.time, b.time),
        events: world.events_processed,
        wall_seconds: 0.0,
        interrupted: world.interrupted,
        sim_seconds: to_secs(world.now),
        window_start_s: to_secs(a.time),
        window_end_s: to_secs(b.time),
        seed: world.seed,
        conservation: conservation(world),
        queue_series: world.queue_series.clone(),
        flow_series: world.flow_series.clone(),
        trace: world.trace.clone(),
    }
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
        r.drops += f.drops;
    }
    for r in &mut rows {
        r.share = if total > 0.0 { r.goodput_mbps / total } else { 0.0 };
        r.drop_rate = ratio(r.drops, r.segments_sent);
    }
    rows
}

/// The non-zero queue-position counts, by label then position.
fn queue_positions(world: &World) -> QueuePositions {
    let Some(qp) = &world.queue_positions else { return QueuePositions::default() };
    let mut out = QueuePositions { link: world.channels[qp.channel as usize].link_name.clone(), ..QueuePositions::default() };
    for (label, row) in qp.counts.iter().enumerate() {
        for (i, &n) in row.iter().enumerate().filter(|(_, &n)| n > 0) {
            out.label.push(world.labels[label].clone());
            out.position.push(i as u32 + 1);
            out.count.push(n);
        }
    }
    out
}

/// The web objects completed in `(start, end]`.
fn web_result(world: &World, start: SimTime, end: SimTime) -> Option<WebResult> {
    if world.scenario.web.is_empty() {
        return None;
    }
    let done: Vec<&Completion> = world.web.completions.iter().filter(|c| c.at > start && c.at <= end).collect();
    let mut ms: Vec<f64> = done.iter().map(|c| c.response as f64 / 1e6).collect();
    ms.sort_by(f64::total_cmp);
    // Nearest-rank percentile.
    let pct = |p: f64| if ms.is_empty() { 0.0 } else { ms[((p * ms.len() as f64).ceil() as usize).clamp(1, ms.len()) - 1] };
    let bytes: u64 = done.iter().map(|c| c.bytes).sum();
    let span_s = to_secs(end.saturating_sub(start));
    Some(WebResult {
        sessions: world.web.sessions.len() as u32,
        objects_requested: world.web.started,
        objects_completed: done.len() as u64,
        bytes_completed: bytes,
        throughput_mbps: if span_s > 0.0 { bytes as f64 * 8.0 / span_s / 1e6 } else { 0.0 },
        response_ms_mean: if ms.is_empty() { 0.0 } else { ms.iter().sum::<f64>() / ms.len() as f64 },
        response_ms_p50: pct(0.50),
        response_ms_p95: pct(0.95),
        response_ms_p99: pct(0.99),
        open_at_end: world.web.open() as u64,
    })
}

/// Two-way propagation delay of flow `i`'s path (data direction and ACK direction).
fn base_rtt_ms(world: &World, i: usize) -> f64 {
    let f = &world.flows[i];
    let (src, dst) = (f.src, f.dst);
    let one_way = |from: u32, to: u32| -> SimTime {
        world.routes.path(from, to, |c| world.channels[c as usize].to).map_or(0, |p| p.iter().map(|&c| world.channels[c as usize].delay).sum())
    };
    to_secs(one_way(src, dst) + one_way(dst, src)) * 1e3
}

/// Check sent = delivered + dropped + in flight, in total and per flow.
fn conservation(world: &World) -> Conservation {
    let in_network = world.packets_in_network().count() as u64;
    let t = world.totals;
    let mut violations = Vec::new();
    let mut data_in_network = vec![0u64; world.flows.len()];
    for p in world.packets_in_network() {
        if p.kind == PacketKind::Data {
            // Web transfers have ids past the long flows'; only the long flows are checked one by one.
            if let Some(n) = data_in_network.get_mut(p.flow as usize) {
                *n += 1;
            }
        }
    }
    for (i, f) in world.flows.iter().enumerate() {
        let sent = f.sender.counters().segments_sent;
        let arrived = f.receiver.counters().data_received;
        if sent != arrived + f.data_drops + data_in_network[i] {
            violations.push(format!("flow {i}: sent {sent} != received {arrived} + dropped {} + in network {}", f.data_drops, data_in_network[i]));
        }
    }
    if t.injected != t.delivered + t.dropped + in_network {
        violations.push(format!("all packets: injected {} != delivered {} + dropped {} + in network {in_network}", t.injected, t.delivered, t.dropped));
    }
    Conservation { ok: violations.is_empty(), injected: t.injected, delivered: t.delivered, dropped: t.dropped, in_network, violations }
}
