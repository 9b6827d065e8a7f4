//! The network of a scenario: its nodes, each link's two channels with their
//! queues, the endpoints of every flow, source and web group, and the routes
//! between them (checked: every pair of endpoints is connected).

use std::collections::{HashMap, HashSet};

use crate::error::ConfigError;
use crate::external::{Extensions, QueueSite};
use crate::net::burst_loss::BurstLoss;
use crate::net::routing::{Routes, NO_ROUTE};
use crate::net::{Channel, ChannelCounters};
use crate::queue::bpr::Bpr;
use crate::queue::classes::{MultiClass, Scheduler};
use crate::queue::codel::Codel;
use crate::queue::droptail::DropTail;
use crate::queue::jcc::JccRed;
use crate::queue::pi::Pi;
use crate::queue::pie::Pie;
use crate::queue::priority::StrictPriority;
use crate::queue::red::{Red, RedVariant};
use crate::queue::step::Step;
use crate::queue::swtp::Swtp;
use crate::queue::wtp::Wtp;
use crate::queue::xcp::XcpRouter;
use crate::queue::{OutputQueue, QueueDiscipline, QueueLimit};
use crate::rng::{stream, SimRng, StreamKind};
use crate::scenario::{LinkSpec, QueueSpec, Scenario, TxEndEvents};

/// Nodes and channels: channel `2 i` is link `i`'s a -> b direction, `2 i + 1` its b -> a.
pub(super) struct Topology {
    pub node_names: Vec<String>,
    pub links: Vec<LinkSpec>,
    pub channels: Vec<Channel>,
    /// `(neighbour, channel)` of each node, in declaration order.
    adjacency: Vec<Vec<(u32, u32)>>,
    /// Each node's index by name, and the linked pairs (lower index first): lookups in
    /// constant time, so that a dumbbell of 10^5 pairs builds in linear time.
    index: HashMap<String, u32>,
    linked: HashSet<(u32, u32)>,
}

/// The nodes of every endpoint, in the scenario's order.
pub(super) struct Endpoints {
    /// `(src, dst)` of each TCP flow, then of each UDP source.
    pub flows: Vec<(u32, u32)>,
    pub udp: Vec<(u32, u32)>,
    /// Clients and servers of each web group.
    pub web_clients: Vec<Vec<u32>>,
    pub web_servers: Vec<Vec<u32>>,
}

impl Topology {
    /// The scenario's graph (explicit, or the dumbbell's expansion) as channels.
    pub fn build(scenario: &Scenario) -> Result<Topology, ConfigError> {
        let (node_names, links) = scenario.graph();
        let mut index = HashMap::with_capacity(node_names.len());
        for (i, name) in node_names.iter().enumerate() {
            if index.insert(name.clone(), i as u32).is_some() {
                return Err(ConfigError::new(format!("nodes[{i}]"), format!("node `{name}` is declared twice")));
            }
        }
        let mut topo = Topology {
            adjacency: vec![Vec::new(); node_names.len()],
            node_names,
            links: Vec::new(),
            channels: Vec::with_capacity(2 * links.len()),
            index,
            linked: HashSet::with_capacity(links.len()),
        };
        for (i, l) in links.iter().enumerate() {
            topo.add_link(i, l, scenario.seed, scenario.engine.tx_end_events)?;
        }
        topo.links = links;
        Ok(topo)
    }

    /// The index of the node called `name`; `field` names the reference in errors.
    pub fn node(&self, name: &str, field: String) -> Result<u32, ConfigError> {
        self.index.get(name).copied().ok_or_else(|| ConfigError::new(field, format!("unknown node `{name}`; nodes are: {}", preview(&self.node_names))))
    }

    /// Link `i`: its a -> b channel, then its b -> a channel.
    fn add_link(&mut self, i: usize, l: &LinkSpec, seed: u64, tx_end_events: TxEndEvents) -> Result<(), ConfigError> {
        let a = self.node(&l.a, format!("links[{i}].a"))?;
        let b = self.node(&l.b, format!("links[{i}].b"))?;
        if !self.linked.insert((a.min(b), a.max(b))) {
            return Err(ConfigError::new(format!("links[{i}]"), format!("`{}` and `{}` are already linked; one link per pair of nodes", l.a, l.b)));
        }
        let name = l.display_name();
        for (from, to, qspec, loss) in [(a, b, &l.queue, l.loss), (b, a, l.queue_ba.as_ref().unwrap_or(&l.queue), l.loss_ba)] {
            let c = self.channels.len() as u32;
            self.channels.push(Channel {
                link_name: name.clone(),
                from,
                to,
                rate_bps: l.rate_bps,
                delay: l.delay_ns,
                loss,
                burst: l.burst_loss.as_ref().map(BurstLoss::new),
                loss_rng: stream(seed, StreamKind::LinkLoss, c as u64),
                queue: build_queue(qspec, l.rate_bps, stream(seed, StreamKind::Queue, c as u64)),
                tx_end: 0,
                tx_done_pending: false,
                tx_seq: 0,
                arrival_scheduled: false,
                arrival_at_start: tx_end_events == TxEndEvents::WhenNeeded && loss == 0.0 && l.burst_loss.is_none(),
                in_tx: 0,
                counters: ChannelCounters::default(),
                last_tx: (0, 0),
                hold_until: 0,
                tx_lane: crate::engine::LaneHint::default(),
                prop_lane: crate::engine::LaneHint::default(),
                tx_prop_lane: crate::engine::LaneHint::default(),
            });
            self.adjacency[from as usize].push((to, c));
        }
        Ok(())
    }

    /// Put the disciplines written outside the core (queue kind "py", built
    /// with a DropTail stand-in) in place, each supplied by `ext`; an error
    /// names the queue's `target` field.
    pub fn attach_external_queues(&mut self, scenario: &Scenario, ext: &dyn Extensions) -> Result<(), ConfigError> {
        for c in 0..self.channels.len() {
            let (link, forward) = (&self.links[c / 2], c % 2 == 0);
            let spec = if forward { &link.queue } else { link.queue_ba.as_ref().unwrap_or(&link.queue) };
            let Some(target) = spec.target.as_deref().filter(|_| spec.kind == QueueSpec::EXTERNAL_KIND) else { continue };
            let ch = &self.channels[c];
            let site = QueueSite {
                field: scenario.queue_field(c / 2, forward),
                link: ch.link_name.clone(),
                from: self.node_names[ch.from as usize].clone(),
                to: self.node_names[ch.to as usize].clone(),
                channel: c as u32,
                rate_bps: ch.rate_bps,
                limit: ch.queue.limit,
            };
            let discipline = ext.queue_discipline(target, &site).map_err(|e| ConfigError::new(format!("{}.target", site.field), e))?;
            self.channels[c].queue.set_discipline(discipline);
        }
        Ok(())
    }

    /// Routes towards every endpoint; an error names the first pair of
    /// endpoints that are the same node or not connected.
    pub fn routes(&self, ends: &Endpoints) -> Result<Routes, ConfigError> {
        let flows = ends.flows.iter().enumerate().map(|(i, &e)| (e, format!("flows[{i}]")));
        let udp = ends.udp.iter().enumerate().map(|(i, &e)| (e, format!("udp[{i}]")));
        let web = ends
            .web_clients
            .iter()
            .zip(&ends.web_servers)
            .enumerate()
            .flat_map(|(g, (clients, servers))| clients.iter().flat_map(move |&c| servers.iter().map(move |&sv| ((sv, c), format!("web[{g}]")))));
        let pairs: Vec<((u32, u32), String)> = flows.chain(udp).chain(web).collect();
        let routes = Routes::compute(&self.adjacency, pairs.iter().flat_map(|&((s, d), _)| [s, d]));
        for ((s, d), field) in pairs {
            if s == d {
                return Err(ConfigError::new(format!("{field}.dst"), "source and destination are the same node"));
            }
            if routes.next(s, d) == NO_ROUTE {
                return Err(ConfigError::new(
                    field,
                    format!("no path from `{}` to `{}`: the nodes are not connected", self.node_names[s as usize], self.node_names[d as usize]),
                ));
            }
        }
        Ok(routes)
    }
}

impl Endpoints {
    /// Resolve the node names of every flow, UDP source and web group.
    pub fn resolve(scenario: &Scenario, topo: &Topology) -> Result<Endpoints, ConfigError> {
        let pair = |src: &str, dst: &str, field: String| -> Result<(u32, u32), ConfigError> {
            Ok((topo.node(src, format!("{field}.src"))?, topo.node(dst, format!("{field}.dst"))?))
        };
        let flows = scenario.flows.iter().enumerate().map(|(i, f)| pair(&f.src, &f.dst, format!("flows[{i}]"))).collect::<Result<_, _>>()?;
        let udp = scenario.udp.iter().enumerate().map(|(i, u)| pair(&u.src, &u.dst, format!("udp[{i}]"))).collect::<Result<_, _>>()?;
        let mut ends = Endpoints { flows, udp, web_clients: Vec::new(), web_servers: Vec::new() };
        for (g, w) in scenario.web.iter().enumerate() {
            let nodes = |names: &[String], role: &str| -> Result<Vec<u32>, ConfigError> {
                names.iter().enumerate().map(|(j, n)| topo.node(n, format!("web[{g}].{role}[{j}]"))).collect()
            };
            ends.web_clients.push(nodes(&w.clients, "clients")?);
            ends.web_servers.push(nodes(&w.servers, "servers")?);
        }
        Ok(ends)
    }
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
        "jcc-red" => Box::new(JccRed::new(Red::new(spec.red.clone(), RedVariant::Red, limit_pkts, rate_bps), &spec.jcc)),
        "step" => Box::new(Step::new(&spec.step)),
        "xcp" => Box::new(XcpRouter::new(&spec.xcp)),
        // "droptail", and "py", whose discipline comes from outside the core (`attach_external_queues`).
        kind => match RedVariant::from_name(kind) {
            Some(variant) => Box::new(Red::new(spec.red.clone(), variant, limit_pkts, rate_bps)),
            None => Box::new(DropTail),
        },
    };
    let queue = OutputQueue::new(limit, rate_bps, discipline, rng);
    match class_scheduler(spec) {
        Some(scheduler) => {
            queue.with_classes(MultiClass::new(spec.sched.weights.len(), limit, scheduler, spec.sched.window_k).with_trace(spec.sched.trace_packets))
        }
        None => queue,
    }
}

/// The scheduler of a multi-class queue kind, none for the single-FIFO kinds.
fn class_scheduler(spec: &QueueSpec) -> Option<Box<dyn Scheduler>> {
    let weights = spec.sched.weights.clone();
    Some(match spec.kind.as_str() {
        "priority" => Box::new(StrictPriority::default()),
        "wtp" => Box::new(Wtp::new(weights)),
        "swtp" => Box::new(Swtp::new(weights, spec.sched.global_update)),
        "bpr" => Box::new(Bpr::new(weights)),
        _ => return None,
    })
}

/// The first few names, for error messages.
fn preview(names: &[String]) -> String {
    let mut s = names.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 8 {
        s.push_str(&format!(", ... ({} in all)", names.len()));
    }
    s
}
