//! The world: a scenario built into channels, queues, endpoints and sources,
//! and the dispatch of every event. Results are assembled in `stats::report`.

use std::collections::BTreeMap;

use rand::Rng;

use crate::engine::{Event, EventQueue, TimerSlot};
use crate::error::ConfigError;
use crate::net::routing::{Routes, NO_ROUTE};
use crate::net::{Channel, ChannelCounters};
use crate::packet::{Packet, PacketKind, TCP_IP_HEADER_BYTES};
use crate::queue::codel::Codel;
use crate::queue::droptail::DropTail;
use crate::queue::pi::Pi;
use crate::queue::pie::Pie;
use crate::queue::red::{Red, RedVariant};
use crate::queue::{Enqueued, OutputQueue, QueueDiscipline, QueueLimit};
use crate::rng::{stream, SimRng, StreamKind};
use crate::scenario::{CcSpec, QueueSpec, Scenario};
use crate::stats::report::{self, Snapshot};
use crate::stats::{FlowSeries, QueueSeries, Results, Trace};
use crate::tcp::cc::compound::Compound;
use crate::tcp::cc::cubic::Cubic;
use crate::tcp::cc::fast::Fast;
use crate::tcp::cc::hstcp::Hstcp;
use crate::tcp::cc::illinois::Illinois;
use crate::tcp::cc::pert::Pert;
use crate::tcp::cc::pert_adaptive::PertAdaptive;
use crate::tcp::cc::pert_pi::pert_pi;
use crate::tcp::cc::reno::Reno;
use crate::tcp::cc::vegas::Vegas;
use crate::tcp::cc::CongestionControl;
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::send_overhead::SendOverhead;
use crate::tcp::sender::TcpSender;
use crate::time::{tx_time, SimTime, NS_PER_SEC};
use crate::traffic::udp::UdpSource;
use crate::traffic::web::{Completion, Next, Session};

/// A TCP flow: its two endpoints, timers and random stream.
pub struct Flow {
    /// Nodes of the sender and the receiver.
    pub src: u32,
    pub dst: u32,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub start: SimTime,
    pub started: bool,
    rto: TimerSlot,
    delack: TimerSlot,
    rng: SimRng,
    /// The sender's random send overhead; `None` when `TcpConfig::overhead_ns` is 0.
    overhead: Option<SendOverhead>,
    /// Data packets of this flow lost anywhere (queues, departures, wire).
    pub data_drops: u64,
}

/// Web sessions and the connections of their objects in transfer.
#[derive(Default)]
pub struct WebState {
    pub sessions: Vec<Session>,
    /// Server nodes of each web group.
    servers: Vec<Vec<u32>>,
    /// Open object transfers by connection id; ids start after the long flows'
    /// indexes and are never reused, so a packet of a finished transfer still in
    /// the network finds no connection and is discarded.
    conns: BTreeMap<u32, WebConn>,
    next_id: u32,
    /// Objects requested so far.
    pub started: u64,
    /// Every completed object, in completion order.
    pub completions: Vec<Completion>,
}

struct WebConn {
    flow: Flow,
    session: u32,
    started: SimTime,
    segments: u32,
}

impl WebState {
    /// Connections open now.
    pub fn open(&self) -> usize {
        self.conns.len()
    }
}

/// Positions of the data packets one queue accepts inside the measurement
/// window: `counts[label][position - 1]`, position = packets waiting + 1.
pub struct QueuePositionCounts {
    /// The channel (link direction a -> b) observed.
    pub channel: u32,
    /// Label index of web transfers (ids past the long flows').
    web_label: u32,
    pub counts: Vec<Vec<u64>>,
}

impl QueuePositionCounts {
    fn record(&mut self, label: u32, position: u32) {
        let Some(row) = self.counts.get_mut(label as usize) else { return };
        let i = position.max(1) as usize - 1;
        if row.len() <= i {
            row.resize(i + 1, 0);
        }
        row[i] += 1;
    }
}

/// Totals over every packet, for the conservation check.
#[derive(Clone, Copy, Debug, Default)]
pub struct PacketTotals {
    pub injected: u64,
    pub delivered: u64,
    pub dropped: u64,
}

pub struct World {
    pub now: SimTime,
    pub events_processed: u64,
    queue: EventQueue,
    pub node_names: Vec<String>,
    pub channels: Vec<Channel>,
    pub routes: Routes,
    pub flows: Vec<Flow>,
    pub udp: Vec<UdpSource>,
    pub web: WebState,
    pub totals: PacketTotals,
    pub duration: SimTime,
    pub window: (SimTime, SimTime),
    pub seed: u64,
    pub scenario: Scenario,
    sample_interval: Option<SimTime>,
    sampled_channels: Vec<u32>,
    sampled_flows: Vec<u32>,
    pub queue_series: QueueSeries,
    pub flow_series: FlowSeries,
    /// Per-packet trace: which flows (a flag per long flow), which channel.
    traced: Vec<bool>,
    trace_channel: Option<u32>,
    pub trace: Trace,
    /// Label of each long flow's group (`FlowSpec::label`, default the
    /// controller's name), as an index into `labels`; labels in order of first
    /// appearance, then "web" when web transfers cross the queue-position link.
    pub labels: Vec<String>,
    pub flow_label: Vec<u32>,
    /// Queue-position counts (`monitor.queue_positions`), when configured.
    pub queue_positions: Option<QueuePositionCounts>,
    pub snap_start: Option<Snapshot>,
    pub snap_end: Option<Snapshot>,
    pub interrupted: bool,
    /// Scratch buffers reused for packets produced by endpoints and dropped at dequeue.
    out: Vec<Packet>,
    dropped: Vec<Packet>,
}

fn build_queue(spec: &QueueSpec, rate_bps: u64, rng: SimRng) -> OutputQueue {
    let limit = match (spec.limit_pkts, spec.limit_bytes) {
        (_, Some(b)) => QueueLimit::Bytes(b),
        (Some(p), None) => QueueLimit::Packets(p),
        (None, None) => QueueLimit::Packets(QueueSpec::DEFAULT_LIMIT_PKTS),
    };
    let limit_pkts = match limit {
        QueueLimit::Packets(p) => p,
        QueueLimit::Bytes(b) => (b / spec.red.mean_pkt_size.max(1) as u64).max(1) as u32,
    };
    let discipline: Box<dyn QueueDiscipline> = match spec.kind.as_str() {
        "pi" => Box::new(Pi::new(spec.pi.clone())),
        "pie" => Box::new(Pie::new(spec.pie.clone())),
        "codel" => Box::new(Codel::new(spec.codel.clone())),
        kind => match RedVariant::from_name(kind) {
            Some(variant) => Box::new(Red::new(spec.red.clone(), variant, limit_pkts, rate_bps)),
            None => Box::new(DropTail),
        },
    };
    OutputQueue::new(limit, rate_bps, discipline, rng)
}

fn build_cc(spec: &CcSpec) -> Box<dyn CongestionControl> {
    match spec {
        CcSpec::Reno => Box::new(Reno),
        CcSpec::Vegas(c) => Box::new(Vegas::new(c.clone())),
        CcSpec::Pert(c) => Box::new(Pert::new(c.clone())),
        CcSpec::PertPi(c) => Box::new(pert_pi(c)),
        CcSpec::PertAdaptive(c) => Box::new(PertAdaptive::new(c.clone())),
        CcSpec::Hstcp(c) => Box::new(Hstcp::new(c.clone())),
        CcSpec::Cubic(c) => Box::new(Cubic::new(c.clone())),
        CcSpec::Compound(c) => Box::new(Compound::new(c.clone())),
        CcSpec::Illinois(c) => Box::new(Illinois::new(c.clone())),
        CcSpec::Fast(c) => Box::new(Fast::new(c.clone())),
    }
}

impl World {
    /// Validate the scenario and build the world; every error names its field.
    pub fn build(scenario: &Scenario) -> Result<World, ConfigError> {
        scenario.validate()?;
        let seed = scenario.seed;
        let (node_names, links) = scenario.graph();
        let node_index = |name: &str, field: String| -> Result<u32, ConfigError> {
            node_names
                .iter()
                .position(|n| n == name)
                .map(|i| i as u32)
                .ok_or_else(|| ConfigError::new(field, format!("unknown node `{name}`; nodes are: {}", preview(&node_names))))
        };
        for (i, name) in node_names.iter().enumerate() {
            if node_names[..i].contains(name) {
                return Err(ConfigError::new(format!("nodes[{i}]"), format!("node `{name}` is declared twice")));
            }
        }

        let mut channels = Vec::with_capacity(2 * links.len());
        let mut adjacency: Vec<Vec<(u32, u32)>> = vec![Vec::new(); node_names.len()];
        for (i, l) in links.iter().enumerate() {
            let a = node_index(&l.a, format!("links[{i}].a"))?;
            let b = node_index(&l.b, format!("links[{i}].b"))?;
            if adjacency[a as usize].iter().any(|&(m, _)| m == b) {
                return Err(ConfigError::new(format!("links[{i}]"), format!("`{}` and `{}` are already linked; one link per pair of nodes", l.a, l.b)));
            }
            let name = l.display_name();
            for (from, to, qspec, loss) in [(a, b, &l.queue, l.loss), (b, a, l.queue_ba.as_ref().unwrap_or(&l.queue), l.loss_ba)] {
                let c = channels.len() as u32;
                channels.push(Channel {
                    link_name: name.clone(),
                    from,
                    to,
                    rate_bps: l.rate_bps,
                    delay: l.delay_ns,
                    loss,
                    loss_rng: stream(seed, StreamKind::LinkLoss, c as u64),
                    queue: build_queue(qspec, l.rate_bps, stream(seed, StreamKind::Queue, c as u64)),
                    in_tx: None,
                    tx_started: 0,
                    pipe: Default::default(),
                    counters: ChannelCounters::default(),
                });
                adjacency[from as usize].push((to, c));
            }
        }

        let mut endpoints = Vec::new();
        for (i, f) in scenario.flows.iter().enumerate() {
            endpoints.push((node_index(&f.src, format!("flows[{i}].src"))?, node_index(&f.dst, format!("flows[{i}].dst"))?, format!("flows[{i}]")));
        }
        for (i, u) in scenario.udp.iter().enumerate() {
            endpoints.push((node_index(&u.src, format!("udp[{i}].src"))?, node_index(&u.dst, format!("udp[{i}].dst"))?, format!("udp[{i}]")));
        }
        // Web groups: (client, server) pairs, for routes and the connectivity check.
        let mut web_clients: Vec<Vec<u32>> = Vec::new();
        let mut web_servers: Vec<Vec<u32>> = Vec::new();
        for (g, w) in scenario.web.iter().enumerate() {
            let clients = w.clients.iter().enumerate().map(|(j, n)| node_index(n, format!("web[{g}].clients[{j}]"))).collect::<Result<Vec<_>, _>>()?;
            let servers = w.servers.iter().enumerate().map(|(j, n)| node_index(n, format!("web[{g}].servers[{j}]"))).collect::<Result<Vec<_>, _>>()?;
            for &c in &clients {
                for &sv in &servers {
                    endpoints.push((sv, c, format!("web[{g}]")));
                }
            }
            web_clients.push(clients);
            web_servers.push(servers);
        }
        let destinations: Vec<u32> = endpoints.iter().flat_map(|&(s, d, _)| [s, d]).collect();
        let routes = Routes::compute(&adjacency, destinations);
        for (s, d, field) in &endpoints {
            if s == d {
                return Err(ConfigError::new(format!("{field}.dst"), "source and destination are the same node"));
            }
            if routes.next(*s, *d) == NO_ROUTE {
                return Err(ConfigError::new(
                    field.clone(),
                    format!("no path from `{}` to `{}`: the nodes are not connected", node_names[*s as usize], node_names[*d as usize]),
                ));
            }
        }

        let mut start_rng = stream(seed, StreamKind::StartTimes, 0);
        let mut flows = Vec::with_capacity(scenario.flows.len());
        for (i, f) in scenario.flows.iter().enumerate() {
            let (src, dst, _) = endpoints[i];
            let start = match (f.start_ns, f.start_window_ns) {
                (Some(t), _) => t,
                (None, Some([lo, hi])) => start_rng.gen_range(lo..=hi),
                (None, None) => 0,
            };
            let id = i as u32;
            flows.push(Flow {
                src,
                dst,
                sender: TcpSender::new(id, src, dst, f.tcp.clone(), build_cc(&f.cc)).with_rtt_noise(stream(seed, StreamKind::RttNoise, i as u64)),
                receiver: TcpReceiver::new(id, dst, src, f.tcp.clone()),
                start,
                started: false,
                rto: TimerSlot::default(),
                delack: TimerSlot::default(),
                rng: stream(seed, StreamKind::CongestionControl, i as u64),
                overhead: SendOverhead::new(f.tcp.overhead_ns, stream(seed, StreamKind::SendOverhead, i as u64)),
                data_drops: 0,
            });
        }
        let nflows = scenario.flows.len();
        let mut web = WebState { next_id: nflows as u32, servers: web_servers, ..WebState::default() };
        for (g, w) in scenario.web.iter().enumerate() {
            for i in 0..w.sessions {
                let index = web.sessions.len() as u64;
                let client = web_clients[g][i as usize % web_clients[g].len()];
                web.sessions.push(Session::new(g as u32, client, w, stream(seed, StreamKind::WebSession, index)));
            }
        }
        let udp = scenario
            .udp
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let (src, dst, _) = endpoints[nflows + i];
                UdpSource::new(i as u32, src, dst, u.rate_bps, u.packet_size, u.arrivals, u.sizes, u.ecn, u.stop_ns, stream(seed, StreamKind::Udp, i as u64))
            })
            .collect();

        let sampled_channels = match &scenario.monitor.links {
            None => (0..channels.len() as u32).collect(),
            Some(names) => {
                let mut v = Vec::new();
                for (i, n) in names.iter().enumerate() {
                    let found: Vec<u32> = (0..channels.len() as u32).filter(|&c| &channels[c as usize].link_name == n).collect();
                    if found.is_empty() {
                        return Err(ConfigError::new(format!("monitor.links[{i}]"), format!("no link named `{n}`")));
                    }
                    v.extend(found);
                }
                v
            }
        };
        let sampled_flows = match &scenario.monitor.flows {
            None => (0..flows.len() as u32).collect(),
            Some(ids) => {
                for (i, &id) in ids.iter().enumerate() {
                    if id as usize >= flows.len() {
                        return Err(ConfigError::new(format!("monitor.flows[{i}]"), format!("flow index must be below {}, got {id}", flows.len())));
                    }
                }
                ids.clone()
            }
        };

        let mut traced = vec![false; flows.len()];
        for (i, &id) in scenario.monitor.trace_flows.iter().enumerate() {
            match traced.get_mut(id as usize) {
                Some(t) => *t = true,
                None => return Err(ConfigError::new(format!("monitor.trace_flows[{i}]"), format!("flow index must be below {}, got {id}", flows.len()))),
            }
        }
        let trace_channel = match (&scenario.monitor.trace_link, scenario.monitor.trace_flows.first()) {
            (None, _) => None,
            (Some(_), None) => return Err(ConfigError::new("monitor.trace_link", "needs at least one flow in monitor.trace_flows")),
            (Some(name), Some(&f)) => {
                let (src, dst) = (flows[f as usize].src, flows[f as usize].dst);
                let path = routes.path(src, dst, |c| channels[c as usize].to).unwrap_or_default();
                match path.into_iter().find(|&c| &channels[c as usize].link_name == name) {
                    Some(c) => Some(c),
                    None => return Err(ConfigError::new("monitor.trace_link", format!("no link named `{name}` on the data path of flow {f}"))),
                }
            }
        };
        let queue_limit_pkts = trace_channel.map_or(0, |c| match channels[c as usize].queue.limit {
            QueueLimit::Packets(n) => n,
            QueueLimit::Bytes(_) => 0,
        });
        let trace = Trace { queue_limit_pkts, ..Trace::default() };
        let mut labels: Vec<String> = Vec::new();
        let mut flow_label = Vec::with_capacity(flows.len());
        for (f, spec) in flows.iter().zip(&scenario.flows) {
            let label = spec.label.clone().unwrap_or_else(|| f.sender.cc_name().to_string());
            let index = labels.iter().position(|l| *l == label).unwrap_or_else(|| {
                labels.push(label);
                labels.len() - 1
            });
            flow_label.push(index as u32);
        }
        let queue_positions = match &scenario.monitor.queue_positions {
            None => None,
            Some(name) => {
                let Some(c) = links.iter().position(|l| &l.display_name() == name) else {
                    return Err(ConfigError::new("monitor.queue_positions", format!("no link named `{name}`")));
                };
                let web_label = if scenario.web.is_empty() {
                    labels.len() as u32
                } else {
                    match labels.iter().position(|l| l == "web") {
                        Some(i) => i as u32,
                        None => {
                            labels.push("web".into());
                            labels.len() as u32 - 1
                        }
                    }
                };
                // Channels are pushed a -> b then b -> a for each link.
                Some(QueuePositionCounts { channel: 2 * c as u32, web_label, counts: vec![Vec::new(); labels.len()] })
            }
        };
        let window = scenario.window();
        let mut world = World {
            now: 0,
            events_processed: 0,
            queue: EventQueue::default(),
            node_names,
            channels,
            routes,
            flows,
            udp,
            web,
            totals: PacketTotals::default(),
            duration: scenario.duration_ns,
            window: (window.start_ns, window.end_ns),
            seed,
            scenario: scenario.clone(),
            sample_interval: scenario.monitor.sample_interval_ns,
            sampled_channels,
            sampled_flows,
            queue_series: QueueSeries::default(),
            flow_series: FlowSeries::default(),
            traced,
            trace_channel,
            trace,
            labels,
            flow_label,
            queue_positions,
            snap_start: None,
            snap_end: None,
            interrupted: false,
            out: Vec::new(),
            dropped: Vec::new(),
        };
        world.queue.push(window.start_ns, Event::MeasureStart);
        world.queue.push(window.end_ns, Event::MeasureEnd);
        for (i, f) in world.flows.iter().enumerate() {
            world.queue.push(f.start, Event::FlowStart(i as u32));
            if let Some(stop) = scenario.flows[i].stop_ns {
                world.queue.push(stop, Event::FlowStop(i as u32));
            }
            for &[leave, rejoin] in &scenario.flows[i].off_ns {
                world.queue.push(leave, Event::FlowStop(i as u32));
                world.queue.push(rejoin, Event::FlowResume(i as u32));
            }
        }
        for (i, u) in scenario.udp.iter().enumerate() {
            world.queue.push(u.start_ns, Event::UdpSend(i as u32));
        }
        for s in 0..world.web.sessions.len() {
            let session = &mut world.web.sessions[s];
            let at = session.start_time(&scenario.web[session.group as usize]);
            world.queue.push(at, Event::WebPage(s as u32));
        }
        if world.sample_interval.is_some() {
            world.queue.push(0, Event::Sample);
        }
        Ok(world)
    }

    /// Run until `duration` or until `progress` (called about once per simulated
    /// second with the current time) returns false.
    pub fn run(&mut self, progress: &mut dyn FnMut(SimTime) -> bool) {
        let mut next_progress = NS_PER_SEC;
        while let Some((t, ev)) = self.queue.pop_until(self.duration) {
            if t >= next_progress {
                // The event is not processed: the world stays as it was before `t`.
                if !progress(t) {
                    self.interrupted = true;
                    break;
                }
                next_progress = (t / NS_PER_SEC + 1) * NS_PER_SEC;
            }
            self.now = t;
            self.events_processed += 1;
            self.dispatch(ev);
        }
        if !self.interrupted {
            self.now = self.duration;
        }
        if self.snap_start.is_none() {
            self.snap_start = Some(Snapshot::take(self));
        }
        if self.snap_end.is_none() {
            self.snap_end = Some(Snapshot::take(self));
        }
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone(c) => self.tx_done(c),
            Event::Arrive(c) => self.arrive(c),
            Event::Rto(f) => {
                let (now, queue) = (self.now, &mut self.queue);
                let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) else { return };
                if flow.rto.on_pop(now, flow.sender.rto_deadline(), queue, ev) {
                    let mut out = std::mem::take(&mut self.out);
                    flow.sender.on_rto(now, &mut flow.rng, &mut out);
                    self.emit_from_sender(f, &mut out);
                    self.out = out;
                }
            }
            Event::DelAck(f) => {
                let (now, queue) = (self.now, &mut self.queue);
                let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) else { return };
                if flow.delack.on_pop(now, flow.receiver.delack_deadline(), queue, ev) {
                    let mut out = std::mem::take(&mut self.out);
                    flow.receiver.on_delack_timer(now, &mut out);
                    self.emit_from_receiver(f, &mut out);
                    self.out = out;
                }
            }
            Event::SendRelease(f) => self.send_release(f),
            Event::FlowStart(f) => {
                let mut out = std::mem::take(&mut self.out);
                let flow = &mut self.flows[f as usize];
                flow.started = true;
                flow.sender.start(self.now, &mut flow.rng, &mut out);
                self.emit_from_sender(f, &mut out);
                self.out = out;
            }
            Event::FlowStop(f) => self.flows[f as usize].sender.stop(),
            Event::FlowResume(f) => {
                let mut out = std::mem::take(&mut self.out);
                self.flows[f as usize].sender.resume(self.now, &mut out);
                self.emit_from_sender(f, &mut out);
                self.out = out;
            }
            Event::UdpSend(u) => self.udp_send(u),
            Event::WebPage(s) => {
                let session = &mut self.web.sessions[s as usize];
                let next = session.start_page(&self.scenario.web[session.group as usize], self.now);
                self.schedule_web(s, next);
            }
            Event::WebObject(s) => self.web_object(s),
            Event::Sample => self.sample(),
            Event::MeasureStart => self.snap_start = Some(Snapshot::take(self)),
            Event::MeasureEnd => self.snap_end = Some(Snapshot::take(self)),
        }
    }

    /// Inject the packets a sender produced (or hold them for its delayed send),
    /// then re-arm its timer.
    fn emit_from_sender(&mut self, f: u32, out: &mut Vec<Packet>) {
        let (now, queue) = (self.now, &mut self.queue);
        if let Some(hold) = tcp_flow(&mut self.flows, &mut self.web, f).and_then(|flow| flow.overhead.as_mut()) {
            if let Some(at) = hold.hold(now, out) {
                queue.push(at, Event::SendRelease(f));
            }
        }
        for pkt in out.drain(..) {
            self.inject(pkt);
        }
        if let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) {
            flow.rto.arm(flow.sender.rto_deadline(), &mut self.queue, Event::Rto(f));
        }
    }

    /// A sender's delayed send: its held packets enter the network.
    fn send_release(&mut self, f: u32) {
        let mut out = std::mem::take(&mut self.out);
        if let Some(hold) = tcp_flow(&mut self.flows, &mut self.web, f).and_then(|flow| flow.overhead.as_mut()) {
            hold.release(self.now, &mut out);
        }
        for pkt in out.drain(..) {
            self.inject(pkt);
        }
        self.out = out;
    }

    fn emit_from_receiver(&mut self, f: u32, out: &mut Vec<Packet>) {
        for pkt in out.drain(..) {
            self.inject(pkt);
        }
        if let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) {
            flow.delack.arm(flow.receiver.delack_deadline(), &mut self.queue, Event::DelAck(f));
        }
    }

    /// Schedule what a web session does next.
    fn schedule_web(&mut self, s: u32, next: Next) {
        match next {
            Next::Object(at) => self.queue.push(at, Event::WebObject(s)),
            Next::Page(at) => self.queue.push(at, Event::WebPage(s)),
            Next::Wait => {}
        }
    }

    /// A session requests an object: a new connection from a server to the
    /// session's client transfers it.
    fn web_object(&mut self, s: u32) {
        let web = &mut self.web;
        let session = &mut web.sessions[s as usize];
        let spec = &self.scenario.web[session.group as usize];
        let (server, segments, next) = session.request(spec, self.now);
        let client = session.client;
        let Some(id) = web.next_id.checked_add(1).map(|n| std::mem::replace(&mut web.next_id, n)) else { return };
        let server_node = web.servers[session.group as usize][server];
        let noise = stream(self.seed, StreamKind::RttNoise, id as u64);
        let flow = Flow {
            src: server_node,
            dst: client,
            sender: TcpSender::new(id, server_node, client, spec.tcp.clone(), build_cc(&spec.cc)).with_data(segments).with_rtt_noise(noise),
            receiver: TcpReceiver::new(id, client, server_node, spec.tcp.clone()),
            start: self.now,
            started: true,
            rto: TimerSlot::default(),
            delack: TimerSlot::default(),
            rng: stream(self.seed, StreamKind::WebConnection, id as u64),
            overhead: SendOverhead::new(spec.tcp.overhead_ns, stream(self.seed, StreamKind::SendOverhead, id as u64)),
            data_drops: 0,
        };
        web.conns.insert(id, WebConn { flow, session: s, started: self.now, segments });
        web.started += 1;
        self.schedule_web(s, next);
        let mut out = std::mem::take(&mut self.out);
        if let Some(conn) = self.web.conns.get_mut(&id) {
            conn.flow.sender.start(self.now, &mut conn.flow.rng, &mut out);
        }
        self.emit_from_sender(id, &mut out);
        self.out = out;
    }

    /// A web object is completely acknowledged: record it, close its connection,
    /// and let the session go on.
    fn web_complete(&mut self, id: u32) {
        let Some(conn) = self.web.conns.remove(&id) else { return };
        let payload = conn.flow.sender.tp.mss.saturating_sub(TCP_IP_HEADER_BYTES) as u64;
        self.web.completions.push(Completion { at: self.now, response: self.now - conn.started, bytes: conn.segments as u64 * payload });
        let session = &mut self.web.sessions[conn.session as usize];
        let next = session.complete(&self.scenario.web[session.group as usize], self.now);
        self.schedule_web(conn.session, next);
    }

    /// A packet enters the network at its source node.
    fn inject(&mut self, pkt: Packet) {
        self.totals.injected += 1;
        self.forward(pkt.src, pkt);
    }

    /// Send `pkt` from `node` towards its destination.
    fn forward(&mut self, node: u32, pkt: Packet) {
        let c = self.routes.next(node, pkt.dst);
        // Routes exist for every endpoint pair (checked at build), so NO_ROUTE
        // cannot occur; a packet is counted as dropped rather than panicking.
        if c == NO_ROUTE {
            self.count_drop(&pkt, None);
            return;
        }
        let ch = &mut self.channels[c as usize];
        match ch.queue.enqueue(pkt, self.now) {
            Enqueued::Queued => {
                if let Some(qp) = &mut self.queue_positions {
                    if qp.channel == c && pkt.kind == PacketKind::Data && self.snap_start.is_some() && self.snap_end.is_none() {
                        let label = self.flow_label.get(pkt.flow as usize).copied().unwrap_or(qp.web_label);
                        qp.record(label, ch.queue.len_pkts());
                    }
                }
                if ch.in_tx.is_none() {
                    self.start_tx(c);
                }
            }
            Enqueued::Dropped(_) => self.count_drop(&pkt, Some(c)),
        }
    }

    fn start_tx(&mut self, c: u32) {
        let mut dropped = std::mem::take(&mut self.dropped);
        let ch = &mut self.channels[c as usize];
        if let Some(pkt) = ch.queue.dequeue(self.now, &mut dropped) {
            ch.in_tx = Some(pkt);
            ch.tx_started = self.now;
            self.queue.push_after(self.now, tx_time(pkt.size, ch.rate_bps), Event::TxDone(c));
        }
        for pkt in dropped.drain(..) {
            self.count_drop(&pkt, Some(c));
        }
        self.dropped = dropped;
    }

    fn tx_done(&mut self, c: u32) {
        let ch = &mut self.channels[c as usize];
        let Some(pkt) = ch.in_tx.take() else { return };
        ch.counters.busy_ns += self.now - ch.tx_started;
        let lost = ch.loss > 0.0 && ch.loss_rng.gen::<f64>() < ch.loss;
        if lost {
            ch.counters.losses += 1;
            self.count_drop(&pkt, None);
        } else {
            // Constant delay: this event pops after those of the packets ahead on
            // the wire, so the head of the pipe is always the packet arriving.
            self.queue.push_after(self.now, ch.delay, Event::Arrive(c));
            ch.pipe.push_back(pkt);
        }
        self.start_tx(c);
    }

    fn arrive(&mut self, c: u32) {
        let ch = &mut self.channels[c as usize];
        let Some(pkt) = ch.pipe.pop_front() else { return };
        let node = ch.to;
        if pkt.dst == node {
            self.deliver(pkt);
        } else {
            self.forward(node, pkt);
        }
    }

    /// A packet reached its destination node.
    fn deliver(&mut self, pkt: Packet) {
        self.totals.delivered += 1;
        let f = pkt.flow;
        let mut out = std::mem::take(&mut self.out);
        match pkt.kind {
            // A packet of a web transfer already complete finds no connection and is discarded.
            PacketKind::Data => {
                if let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) {
                    flow.receiver.on_data(self.now, &pkt, &mut out);
                    self.emit_from_receiver(f, &mut out);
                }
            }
            PacketKind::Ack => {
                if let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) {
                    flow.sender.on_ack(self.now, &pkt, &mut flow.rng, &mut out);
                    let finished = flow.sender.finished();
                    if let (Some(r), true) = (flow.sender.last_rtt_sample, self.traced.get(f as usize).copied().unwrap_or(false)) {
                        let cwnd = flow.sender.tp.snd_cwnd;
                        let q = self.trace_channel.map_or(0, |c| self.channels[c as usize].queue.len_pkts());
                        let t = &mut self.trace;
                        t.rtt_t_s.push(self.now as f64 / NS_PER_SEC as f64);
                        t.rtt_flow.push(f);
                        t.rtt_ms.push(r as f64 / 1e6);
                        t.rtt_cwnd.push(cwnd);
                        t.rtt_queue_pkts.push(q);
                    }
                    self.emit_from_sender(f, &mut out);
                    if finished {
                        self.web_complete(f);
                    }
                }
            }
            PacketKind::Udp => {
                let u = &mut self.udp[f as usize].counters;
                u.received += 1;
                u.received_bytes += pkt.size as u64;
            }
        }
        self.out = out;
    }

    /// A packet is lost; `at_queue` is the channel whose queue dropped it, if a queue did.
    fn count_drop(&mut self, pkt: &Packet, at_queue: Option<u32>) {
        self.totals.dropped += 1;
        let t_s = self.now as f64 / NS_PER_SEC as f64;
        if at_queue.is_some() && at_queue == self.trace_channel {
            self.trace.drop_t_s.push(t_s);
            self.trace.drop_flow.push(pkt.flow);
        }
        match pkt.kind {
            PacketKind::Data => {
                if self.traced.get(pkt.flow as usize).copied().unwrap_or(false) {
                    self.trace.loss_t_s.push(t_s);
                    self.trace.loss_flow.push(pkt.flow);
                }
                if let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, pkt.flow) {
                    flow.data_drops += 1;
                }
            }
            PacketKind::Udp => self.udp[pkt.flow as usize].counters.dropped += 1,
            PacketKind::Ack => {}
        }
    }

    fn udp_send(&mut self, u: u32) {
        let src = &mut self.udp[u as usize];
        if src.stop.is_some_and(|s| self.now >= s) {
            return;
        }
        let pkt = src.next_packet();
        let gap = src.next_gap();
        self.queue.push(self.now + gap, Event::UdpSend(u));
        self.inject(pkt);
    }

    fn sample(&mut self) {
        let t = self.now as f64 / NS_PER_SEC as f64;
        for &c in &self.sampled_channels {
            let q = &self.channels[c as usize].queue;
            let s = &mut self.queue_series;
            s.t_s.push(t);
            s.queue.push(c);
            s.len_pkts.push(q.len_pkts());
            s.len_bytes.push(q.len_bytes());
            s.probability.push(q.discipline.probability());
            s.avg.push(q.discipline.average());
            s.max_p.push(q.discipline.max_p());
        }
        for &f in &self.sampled_flows {
            let flow = &self.flows[f as usize];
            if !flow.started {
                continue;
            }
            let s = &mut self.flow_series;
            s.t_s.push(t);
            s.flow.push(f);
            s.cwnd.push(flow.sender.tp.snd_cwnd);
            s.ssthresh.push(flow.sender.tp.snd_ssthresh);
            s.srtt_ms.push(flow.sender.tp.srtt as f64 / 1e6);
            s.delivered_bytes.push(report::payload_bytes(flow, flow.receiver.counters().segments_delivered));
            let tm = flow.sender.cc_telemetry();
            s.mode.push(tm.map(|x| x.mode.name()));
            s.alpha.push(tm.map(|x| x.alpha));
            s.beta.push(tm.map(|x| x.beta));
            s.p.push(tm.map(|x| x.p));
            s.p_early.push(tm.map(|x| x.p_early));
            s.qdelay_ms.push(tm.map(|x| x.qdelay_ms));
            s.q_max_ms.push(tm.map(|x| x.q_max_ms));
        }
        if let Some(dt) = self.sample_interval {
            self.queue.push(self.now + dt, Event::Sample);
        }
    }

    /// Every packet still inside the network (queues, transmitters, wires).
    pub fn packets_in_network(&self) -> impl Iterator<Item = &Packet> {
        self.channels.iter().flat_map(|c| c.packets())
    }

    pub fn results(&self) -> Results {
        report::assemble(self)
    }
}

/// The TCP flow with packet id `id`: a long-lived flow, or an open web transfer
/// (a free function so that the caller can keep borrowing the world's other fields).
fn tcp_flow<'a>(flows: &'a mut [Flow], web: &'a mut WebState, id: u32) -> Option<&'a mut Flow> {
    match flows.get_mut(id as usize) {
        Some(flow) => Some(flow),
        None => web.conns.get_mut(&id).map(|c| &mut c.flow),
    }
}

/// The first few names, for error messages.
fn preview(names: &[String]) -> String {
    let mut s = names.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 8 {
        s.push_str(&format!(", ... ({} in all)", names.len()));
    }
    s
}
