//! Putting a world together from a scenario: validate, estimate the memory
//! it needs, then the network, the flows, the other traffic and the
//! monitors, then the first events.

use super::capture::Capture;
use super::flows::{long_flows, Labels};
use super::memory::{self, Crossing, MemoryEstimate, MemoryLimit};
use super::monitor::Monitors;
use super::topology::{Endpoints, Topology};
use super::traffic::{udp_sources, WebState};
use super::{hot_state_bytes, PacketTotals, World, PREFETCH_ABOVE_BYTES, PROGRESS_EVENTS};
use crate::engine::{Event, EventQueue};
use crate::error::ConfigError;
use crate::external::{Extensions, NoExtensions};
use crate::net::routing::Routes;
use crate::packet_store::PacketStore;
use crate::queue::{QueueBounds, QueueLimit};
use crate::scenario::{CcSpec, Scenario};
use crate::time::NS_PER_SEC;

/// The network of a scenario with its routes, and the memory estimate.
struct Network {
    topo: Topology,
    ends: Endpoints,
    routes: Routes,
    estimate: MemoryEstimate,
    /// The largest packet that can cross each channel ([`Crossing::largest_packet`]).
    largest_packets: Vec<Option<u32>>,
}

impl Network {
    /// Validate, estimate from the scenario alone, build the network, estimate
    /// the rest. The first stage of the estimate alone when it exceeds
    /// `limit`, before anything large is allocated.
    fn prepare(scenario: &Scenario, limit: MemoryLimit) -> Result<Prepared, ConfigError> {
        scenario.validate()?;
        let first = memory::from_scenario(scenario);
        if first.total_with_output(limit.per_recorded_value) > limit.bytes {
            return Ok(Prepared::TooLarge(first.with_output(limit.per_recorded_value)));
        }
        let mut estimate = first;
        let topo = Topology::build(scenario)?;
        let ends = Endpoints::resolve(scenario, &topo)?;
        let routes = topo.routes(&ends)?;
        let crossings = memory::with_routes(scenario, &topo, &ends, &routes, &mut estimate);
        check_byte_limits(scenario, &topo, &crossings)?;
        check_xcp_paths(scenario, &topo, &ends, &routes)?;
        estimate.complete = true;
        let largest_packets = crossings.iter().map(Crossing::largest_packet).collect();
        let estimate = estimate.with_output(limit.per_recorded_value);
        Ok(Prepared::Built(Box::new(Network { topo, ends, routes, estimate, largest_packets })))
    }
}

enum Prepared {
    Built(Box<Network>),
    TooLarge(MemoryEstimate),
}

/// A buffer limited in bytes must hold the largest packet that crosses it.
fn check_byte_limits(scenario: &Scenario, topo: &Topology, crossings: &[Crossing]) -> Result<(), ConfigError> {
    for (c, (ch, x)) in topo.channels.iter().zip(crossings).enumerate() {
        if let QueueLimit::Bytes(b) = ch.queue.limit {
            if b < u64::from(x.max_pkt) {
                return Err(ConfigError::new(
                    format!("{}.limit_bytes", scenario.queue_field(c / 2, c % 2 == 0)),
                    format!(
                        "must be at least {} bytes, the largest packet that crosses it ({}'s, on link `{}`), got {b}: a smaller buffer holds none of them",
                        x.max_pkt, x.max_from, ch.link_name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// An XCP sender needs an XCP router on its data path (Katabi 2002 leaves
/// XCP over non-XCP paths open): without one its request for the whole
/// receiver window in one round trip would go through unlowered.
fn check_xcp_paths(scenario: &Scenario, topo: &Topology, ends: &Endpoints, routes: &Routes) -> Result<(), ConfigError> {
    let controlled = |from: u32, to: u32| {
        let path = routes.path(from, to, |c| topo.channels[c as usize].to).unwrap_or_default();
        path.iter().any(|&c| topo.channels[c as usize].queue.discipline().name() == "xcp")
    };
    let refuse = |field: String, from: u32, to: u32| {
        let (a, b) = (&topo.node_names[from as usize], &topo.node_names[to as usize]);
        ConfigError::new(field, format!("an xcp flow needs an \"xcp\" queue on its data path, and none is on the path from `{a}` to `{b}`"))
    };
    for (i, (f, &(src, dst))) in scenario.flows.iter().zip(&ends.flows).enumerate() {
        if f.cc == CcSpec::Xcp && !controlled(src, dst) {
            return Err(refuse(format!("flows[{i}].cc"), src, dst));
        }
    }
    for (g, _) in scenario.web.iter().enumerate().filter(|(_, w)| w.cc == CcSpec::Xcp) {
        for &server in &ends.web_servers[g] {
            for &client in &ends.web_clients[g] {
                if !controlled(server, client) {
                    return Err(refuse(format!("web[{g}].cc"), server, client));
                }
            }
        }
    }
    Ok(())
}

impl World {
    /// Validate the scenario and build the world; every error names its field.
    /// No memory limit: see [`World::build_within`].
    pub fn build(scenario: &Scenario) -> Result<World, ConfigError> {
        Self::build_within(scenario, MemoryLimit::NONE)
    }

    /// The memory a run of `scenario` needs (see `world::memory`), with the
    /// caller's cost of the recorded values; the second stage (windows,
    /// buffers) only when the first alone is within `limit` (`complete` says
    /// which). An invalid scenario is an error.
    pub fn memory_estimate(scenario: &Scenario, limit: MemoryLimit) -> Result<MemoryEstimate, ConfigError> {
        Ok(match Network::prepare(scenario, limit)? {
            Prepared::Built(net) => net.estimate,
            Prepared::TooLarge(first) => first,
        })
    }

    /// Validate the scenario, refuse it when its memory estimate exceeds
    /// `limit` (the error names the field of the largest part), and build the
    /// world.
    pub fn build_within(scenario: &Scenario, limit: MemoryLimit) -> Result<World, ConfigError> {
        Self::build_with(scenario, limit, &NoExtensions)
    }

    /// [`World::build_within`], with the models written outside the core
    /// (`"py"` controllers and queue disciplines) supplied by `ext`.
    pub fn build_with(scenario: &Scenario, limit: MemoryLimit, ext: &dyn Extensions) -> Result<World, ConfigError> {
        let net = match Network::prepare(scenario, limit)? {
            Prepared::Built(net) => net,
            Prepared::TooLarge(first) => return Err(first.refusal(limit.bytes)),
        };
        net.estimate.check(limit.bytes)?;
        let Network { mut topo, ends, routes, largest_packets, .. } = *net;
        topo.attach_external_queues(scenario, ext)?;
        let flows = long_flows(scenario, &ends.flows, &topo.channels, &routes, ext)?;
        let web = WebState::new(scenario, &ends, flows.len() as u32);
        let udp = udp_sources(scenario, &ends);
        let mut labels = Labels::of(scenario, &flows);
        let monitor = Monitors::build(scenario, &topo.links, &topo.channels, &routes, &flows, &mut labels)?;
        let captures = Capture::open_all(&scenario.capture, &topo.channels, &topo.node_names, flows.len())?;
        let mut world = World {
            now: 0,
            events_processed: 0,
            queue: EventQueue::default(),
            node_names: topo.node_names,
            queue_bounds: topo
                .channels
                .iter()
                .zip(largest_packets)
                .map(|(c, largest_packet)| QueueBounds { limit: c.queue.limit, rate_bps: c.rate_bps, largest_packet })
                .collect(),
            far_ends: topo.channels.iter().map(|c| c.to).collect(),
            prefetch: hot_state_bytes(&topo.channels, &flows) > PREFETCH_ABOVE_BYTES,
            channels: topo.channels,
            routes,
            flows,
            udp,
            web,
            totals: PacketTotals::default(),
            duration: scenario.duration_ns,
            seed: scenario.seed,
            scenario: scenario.clone(),
            labels,
            monitor,
            snap_start: None,
            snap_end: None,
            interrupted: false,
            halt: ext.halt(),
            captures,
            next_progress: NS_PER_SEC,
            next_count: u64::from(PROGRESS_EVENTS),
            store: PacketStore::default(),
            out: Vec::new(),
            dropped: Vec::new(),
        };
        world.schedule_first_events();
        Ok(world)
    }

    /// The window's edges, the flows' starts, stops and pauses, the sources'
    /// first packets, the sessions' first pages and the first sample.
    fn schedule_first_events(&mut self) {
        let window = self.scenario.window();
        let q = &mut self.queue;
        q.push(window.start_ns, Event::MeasureStart);
        q.push(window.end_ns, Event::MeasureEnd);
        for (i, (f, spec)) in self.flows.iter().zip(&self.scenario.flows).enumerate() {
            let i = i as u32;
            q.push(f.start, Event::FlowStart(i));
            if f.video.is_some() {
                q.push(f.start, Event::VideoWrite(i));
            }
            if let Some(stop) = spec.stop_ns {
                q.push(stop, Event::FlowStop(i));
            }
            for &[leave, rejoin] in &spec.off_ns {
                q.push(leave, Event::FlowStop(i));
                q.push(rejoin, Event::FlowResume(i));
            }
        }
        for (i, u) in self.scenario.udp.iter().enumerate() {
            q.push(u.start_ns, Event::UdpSend(i as u32));
        }
        for (s, session) in self.web.sessions.iter_mut().enumerate() {
            let at = session.start_time(&self.scenario.web[session.group as usize]);
            q.push(at, Event::WebPage(s as u32));
        }
        if self.monitor.sample_interval.is_some() {
            q.push(0, Event::Sample);
        }
    }
}
