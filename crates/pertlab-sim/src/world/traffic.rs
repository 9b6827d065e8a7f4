//! Traffic besides the long-lived TCP flows: the UDP sources, and the web
//! sessions with the connections of the objects they are fetching.

use std::collections::BTreeMap;

use super::flows::{builtin_cc, path_rtt, Flow};
use super::topology::Endpoints;
use crate::net::routing::Routes;
use crate::net::Channel;
use crate::rng::{stream, StreamKind};
use crate::scenario::Scenario;
use crate::time::SimTime;
use crate::traffic::udp::UdpSource;
use crate::traffic::web::{Completion, Session, WebSpec};

/// The scenario's UDP sources between the nodes `endpoints`.
pub(super) fn udp_sources(scenario: &Scenario, ends: &Endpoints) -> Vec<UdpSource> {
    scenario
        .udp
        .iter()
        .zip(&ends.udp)
        .enumerate()
        .map(|(i, (u, &(src, dst)))| {
            UdpSource::new(
                i as u32,
                src,
                dst,
                u.rate_bps,
                u.packet_size,
                u.arrivals,
                u.sizes,
                u.ecn,
                u.stop_ns,
                stream(scenario.seed, StreamKind::Udp, i as u64),
            )
            .with_class(u.class)
            .with_pareto_shape(u.pareto_shape)
            .with_on_off(u.burst_ns, u.idle_ns)
        })
        .collect()
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

/// The connection of one object in transfer.
pub(super) struct WebConn {
    pub flow: Flow,
    pub session: u32,
    pub started: SimTime,
    pub segments: u32,
}

impl WebState {
    /// The sessions of every web group, session `i` of a group on its client
    /// `i % clients`; connection ids start at `first_id`.
    pub(super) fn new(scenario: &Scenario, ends: &Endpoints, first_id: u32) -> WebState {
        let mut web = WebState { next_id: first_id, servers: ends.web_servers.clone(), ..WebState::default() };
        for (g, (w, clients)) in scenario.web.iter().zip(&ends.web_clients).enumerate() {
            for i in 0..w.sessions {
                let index = web.sessions.len() as u64;
                let client = clients[i as usize % clients.len()];
                web.sessions.push(Session::new(g as u32, client, w, stream(scenario.seed, StreamKind::WebSession, index)));
            }
        }
        web
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.conns.len()
    }

    /// The flow of open connection `id`.
    pub(super) fn conn_flow(&mut self, id: u32) -> Option<&mut Flow> {
        self.conns.get_mut(&id).map(|c| &mut c.flow)
    }

    /// Open a connection from server `server` of session `s`'s group to the
    /// session's client, carrying an object of `segments` segments, started at
    /// `now`. Returns its id, or `None` once every connection id is used.
    /// `channels` and `routes` give the path's RTT to a controller that asks
    /// for it, with the links' rates and delays in force now.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn open_conn(
        &mut self,
        s: u32,
        spec: &WebSpec,
        server: usize,
        segments: u32,
        now: SimTime,
        seed: u64,
        channels: &[Channel],
        routes: &Routes,
    ) -> Option<u32> {
        let id = self.next_id.checked_add(1).map(|n| std::mem::replace(&mut self.next_id, n))?;
        let session = &self.sessions[s as usize];
        let server_node = self.servers[session.group as usize][server];
        let client = session.client;
        let cc = builtin_cc(&spec.cc, || path_rtt(channels, routes, server_node, client, &spec.tcp));
        let base = Flow::new(id, server_node, client, &spec.tcp, cc, seed, StreamKind::WebConnection).with_handshake(channels, routes, &spec.tcp);
        let flow = Flow { sender: base.sender.with_data(segments), start: now, started: true, ..base };
        self.conns.insert(id, WebConn { flow, session: s, started: now, segments });
        self.started += 1;
        Some(id)
    }

    /// Close connection `id`, if open.
    pub(super) fn close(&mut self, id: u32) -> Option<WebConn> {
        self.conns.remove(&id)
    }
}
