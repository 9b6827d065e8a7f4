//! Putting a world together from a scenario: validate, then the network,
//! the flows, the other traffic and the monitors, then the first events.

use super::flows::{long_flows, Labels};
use super::monitor::Monitors;
use super::topology::{Endpoints, Topology};
use super::traffic::{udp_sources, WebState};
use super::{PacketTotals, World};
use crate::engine::{Event, EventQueue};
use crate::error::ConfigError;
use crate::scenario::Scenario;

impl World {
    /// Validate the scenario and build the world; every error names its field.
    pub fn build(scenario: &Scenario) -> Result<World, ConfigError> {
        scenario.validate()?;
        let topo = Topology::build(scenario)?;
        let ends = Endpoints::resolve(scenario, &topo)?;
        let routes = topo.routes(&ends)?;
        let flows = long_flows(scenario, &ends.flows);
        let web = WebState::new(scenario, &ends, flows.len() as u32);
        let udp = udp_sources(scenario, &ends);
        let mut labels = Labels::of(scenario, &flows);
        let monitor = Monitors::build(scenario, &topo.links, &topo.channels, &routes, &flows, &mut labels)?;
        let mut world = World {
            now: 0,
            events_processed: 0,
            queue: EventQueue::default(),
            node_names: topo.node_names,
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
        if self.monitor.sampling().is_some() {
            q.push(0, Event::Sample);
        }
    }
}
