//! The world: a scenario built into channels, queues, endpoints and sources,
//! and the dispatch of every event.
//!
//! - [`build`](World::build) validates the scenario and puts the world
//!   together from small builders: `topology` (nodes, links, channels, routes),
//!   `flows` (TCP flows and their labels), `traffic` (UDP sources, web
//!   sessions) and `monitor` (time series, traces, queue positions);
//! - `events` handles each event of the engine;
//! - at the end, [`World::into_results`] hands `stats::report` a plain
//!   [`ReportInput`] of what the results need (snapshots, descriptors of the
//!   queues and flows, labels), so that `stats` never reads the world.

mod build;
pub mod capture;
mod cc_params;
mod events;
mod flows;
mod live;
pub mod memory;
mod monitor;
mod topology;
mod traffic;

use crate::engine::{Event, EventQueue};
use crate::external::{halted, Halt};
use crate::net::routing::Routes;
use crate::net::{path_delay, Channel};
use crate::packet::{Packet, PacketKind, TCP_IP_HEADER_BYTES};
use crate::packet_store::{PacketId, PacketStore};
use crate::queue::QueueBounds;
use crate::scenario::Scenario;
use crate::stats::classes::{ClassSnapshot, ClassWindows};
use crate::stats::report::{self, ConservationInput, FlowBalance, FlowInfo, QueueInfo, ReportInput, Snapshot, UdpInfo, WebInput};
use crate::stats::Results;
use crate::time::{SimTime, NS_PER_SEC};
use crate::traffic::udp::UdpSource;

pub use flows::{Flow, Labels};
pub use live::{LiveFlow, LiveQueue, LiveState};
pub use memory::{MemoryEstimate, MemoryLimit, MemoryPart};
use monitor::Monitors;
pub use traffic::WebState;

/// Most events between two calls of the progress callback of [`World::run`]:
/// about 4 ms of wall time at the canonical run's 17 M events/s.
pub const PROGRESS_EVENTS: u32 = 1 << 16;

/// A world whose channels and flows take more memory than this asks for the
/// memory of the events due next as each arrival runs (`prefetch_ahead`):
/// about the size of one core's L2 cache. Below it the run's state stays in
/// cache, and the hints only cost instructions (issue 21, BENCHMARKS.md).
pub const PREFETCH_ABOVE_BYTES: usize = 1 << 20;

/// Bytes of the state an arrival may touch on its way: the channels and the
/// flows (compared with [`PREFETCH_ABOVE_BYTES`]).
fn hot_state_bytes(channels: &[Channel], flows: &[Flow]) -> usize {
    std::mem::size_of_val(channels) + std::mem::size_of_val(flows)
}

/// Totals over every packet, for the conservation check.
#[derive(Clone, Copy, Debug, Default)]
pub struct PacketTotals {
    pub injected: u64,
    pub delivered: u64,
    pub dropped: u64,
}

pub struct World {
    now: SimTime,
    events_processed: u64,
    queue: EventQueue,
    node_names: Vec<String>,
    channels: Vec<Channel>,
    /// The node at the far end of each channel (`channels[c].to`), in a dense
    /// array of its own: an arrival reads this and nothing of its channel
    /// (issue 21; see the module doc of `net`).
    far_ends: Vec<u32>,
    /// Whether an arrival asks for the memory of the events due next
    /// ([`PREFETCH_ABOVE_BYTES`]).
    prefetch: bool,
    /// What bounds each channel's queue over the run, for its discipline's `never_acts`.
    queue_bounds: Vec<QueueBounds>,
    routes: Routes,
    flows: Vec<Flow>,
    udp: Vec<UdpSource>,
    web: WebState,
    totals: PacketTotals,
    duration: SimTime,
    seed: u64,
    scenario: Scenario,
    labels: Labels,
    monitor: Monitors,
    snap_start: Option<Snapshot>,
    snap_end: Option<Snapshot>,
    interrupted: bool,
    /// Raised by a model written outside the core whose code failed (none
    /// without such models): the run stops after the event, as interrupted.
    halt: Option<Halt>,
    /// The `capture` entries' open files.
    captures: Vec<capture::Capture>,
    /// When [`World::run_until`] next calls its progress callback: at this
    /// simulated time or this count of events, whichever comes first.
    next_progress: SimTime,
    next_count: u64,
    /// The packets inside the network; queues and wires hold their slots.
    store: PacketStore,
    /// Scratch buffers reused for packets produced by endpoints and dropped at dequeue.
    out: Vec<Packet>,
    dropped: Vec<PacketId>,
}

impl World {
    /// Run until `duration` or until `progress` returns false. `progress` is
    /// called with the current simulated time once per simulated second and
    /// at least every [`PROGRESS_EVENTS`] events, so a caller can stop a run
    /// that crawls through simulated time (Ctrl-C, an event budget).
    pub fn run(&mut self, progress: &mut dyn FnMut(SimTime) -> bool) {
        self.run_until(self.duration, progress);
        self.finish();
    }

    /// Process every event due at or before `until` (at most the run's
    /// duration), or stop where `progress` returns false (see [`World::run`]);
    /// true when the run is over: its end reached, or interrupted. Calling it
    /// again continues where it stopped: a run taken in steps processes the
    /// same events in the same order as one call, so its results are the same.
    pub fn run_until(&mut self, until: SimTime, progress: &mut dyn FnMut(SimTime) -> bool) -> bool {
        if self.interrupted {
            return true;
        }
        let until = until.min(self.duration);
        // Only a run with external models looks at their halt flag after each event.
        let over = match self.halt.clone() {
            None => self.process_until::<false>(until, progress, None),
            Some(halt) => self.process_until::<true>(until, progress, Some(&halt)),
        };
        if over {
            return true;
        }
        self.now = self.now.max(until);
        until == self.duration
    }

    /// The loop of [`World::run_until`]; true when it was interrupted (by
    /// `progress`, or when `CHECK_HALT` and an external model raised `halt`).
    #[inline(always)]
    fn process_until<const CHECK_HALT: bool>(&mut self, until: SimTime, progress: &mut dyn FnMut(SimTime) -> bool, halt: Option<&Halt>) -> bool {
        while let Some(entry) = self.queue.pop_until(until) {
            let (t, ev) = (entry.time, entry.event);
            if t >= self.next_progress || self.events_processed == self.next_count {
                // The event is not processed: it goes back to its place, and
                // the world stays as it was before `t` (an arrival's packet
                // is still on its wire).
                if !progress(t) {
                    self.queue.push_as_of(t, entry.seq, ev);
                    self.interrupted = true;
                    return true;
                }
                self.next_progress = self.next_progress.max((t / NS_PER_SEC).saturating_add(1).saturating_mul(NS_PER_SEC));
                self.next_count = self.events_processed + u64::from(PROGRESS_EVENTS);
            }
            self.now = t;
            self.events_processed += 1;
            self.dispatch(ev);
            if CHECK_HALT && halt.is_some_and(halted) {
                self.interrupted = true;
                return true;
            }
        }
        false
    }

    /// End the run where it stands: the window's snapshots not yet taken are taken now.
    pub fn finish(&mut self) {
        if self.snap_start.is_none() {
            self.snap_start = Some(self.snapshot());
        }
        if self.snap_end.is_none() {
            self.snap_end = Some(self.snapshot());
        }
        for c in &mut self.captures {
            c.flush();
        }
    }

    /// The write errors of the captures (each names its `capture[i].file`;
    /// also in the results, `capture_errors`).
    pub fn capture_errors(&self) -> Vec<String> {
        self.captures.iter().filter_map(|c| c.error.clone()).collect()
    }

    /// The simulated time the run has reached.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Whether a progress callback stopped the run.
    pub fn interrupted(&self) -> bool {
        self.interrupted
    }

    /// Every cumulative counter of the world now.
    fn snapshot(&self) -> Snapshot {
        let now = self.now;
        Snapshot {
            time: now,
            queues: self.channels.iter().map(|c| c.queue.counters_at(now, &self.store)).collect(),
            channels: self.channels.iter().map(|c| c.counters_at(now)).collect(),
            senders: self.flows.iter().map(|f| *f.sender.counters()).collect(),
            receivers: self.flows.iter().map(|f| *f.receiver.counters()).collect(),
            cc: self.flows.iter().map(|f| f.sender.cc_counters(now)).collect(),
            data_drops: self.flows.iter().map(|f| f.data_drops).collect(),
            retransmit_drops: self.flows.iter().map(|f| f.retransmit_drops).collect(),
            udp: self.udp.iter().map(|u| u.counters).collect(),
            classes: self
                .channels
                .iter()
                .map(|c| {
                    c.queue.classes.as_ref().map_or_else(ClassSnapshot::default, |m| ClassSnapshot {
                        counters: m.counters.clone(),
                        decisions: m.decisions,
                        ops: m.ops(),
                    })
                })
                .collect(),
        }
    }

    /// Every packet still inside the network: in the queues, being sent (a
    /// transmission whose end is an event still to come), and on the wires
    /// (each has its arrival pending). Found from where the network refers
    /// to them, not from the store, so that the conservation check would see
    /// a packet the network lost track of.
    pub fn packets_in_network(&self) -> impl Iterator<Item = &Packet> {
        let queued = self.channels.iter().flat_map(|c| c.queue.packets(&self.store));
        let sent = self.channels.iter().filter_map(|c| c.in_transmission());
        let flying = self.queue.pending().filter_map(|e| match *e {
            Event::Arrive(_, id) => Some(id),
            _ => None,
        });
        queued.chain(sent.chain(flying).map(|id| self.store.get(id)))
    }

    /// The results over the measurement window (empty before [`World::run`]);
    /// the time series and traces move into them.
    pub fn into_results(mut self) -> Results {
        let (Some(start), Some(end)) = (&self.snap_start, &self.snap_end) else {
            return Results::default();
        };
        let capture_errors = self.capture_errors();
        let queue_series = std::mem::take(&mut self.monitor.queue_series);
        let flow_series = std::mem::take(&mut self.monitor.flow_series);
        let trace = std::mem::take(&mut self.monitor.trace);
        let mut results = report::assemble(ReportInput {
            start,
            end,
            queues: (0..self.channels.len()).map(|c| self.queue_info(c)).collect(),
            flows: (0..self.flows.len()).map(|i| self.flow_info(i)).collect(),
            udp: self.scenario.udp.iter().map(|u| UdpInfo { src: u.src.clone(), dst: u.dst.clone() }).collect(),
            class_windows: self
                .channels
                .iter()
                .enumerate()
                .filter_map(|(i, c)| c.queue.classes.as_ref().map(|m| ClassWindows { queue: i, k: m.windows.k(), ratios: &m.windows.ratios, trace: &m.trace }))
                .collect(),
            web: (!self.scenario.web.is_empty()).then(|| WebInput {
                sessions: self.web.sessions.len() as u32,
                requested: self.web.started,
                completions: &self.web.completions,
                open: self.web.open() as u64,
            }),
            labels: &self.labels.names,
            queue_positions: self.monitor.queue_positions.as_ref().map(|qp| (self.channels[qp.channel as usize].link_name.as_str(), qp.counts.as_slice())),
            events: self.events_processed,
            interrupted: self.interrupted,
            now: self.now,
            seed: self.seed,
            conservation: self.conservation_input(),
            queue_series,
            flow_series,
            trace,
        });
        results.capture_errors = capture_errors;
        results
    }

    /// The results' `queue_warnings`, known once the world is built: the queues whose
    /// discipline can never act on their buffer ([`QueueInfo::warning`]).
    pub fn queue_warnings(&self) -> Vec<String> {
        (0..self.channels.len()).filter_map(|c| self.queue_info(c).warning()).collect()
    }

    fn queue_info(&self, channel: usize) -> QueueInfo {
        let c = &self.channels[channel];
        QueueInfo {
            link: c.link_name.clone(),
            from: self.node_names[c.from as usize].clone(),
            to: self.node_names[c.to as usize].clone(),
            discipline: c.queue.classes.as_ref().map_or_else(|| c.queue.discipline().name(), |m| m.name()),
            rate_bps: c.rate_bps,
            limit: c.queue.limit,
            buffers: c.queue.classes.as_ref().map_or(1, |m| m.classes() as u32),
            never_acts: if c.queue.classes.is_some() { None } else { c.queue.discipline().never_acts(&self.queue_bounds[channel]) },
        }
    }

    fn flow_info(&self, i: usize) -> FlowInfo {
        let f = &self.flows[i];
        let spec = &self.scenario.flows[i];
        FlowInfo {
            cc: f.sender.cc_name(),
            label: self.labels.names[self.labels.of_flow[i] as usize].clone(),
            src: spec.src.clone(),
            dst: spec.dst.clone(),
            start: f.start,
            payload_bytes: f.payload_bytes(),
            packet_size: spec.tcp.packet_size,
            ack_size: spec.tcp.ack_size,
            ack_policy: spec.tcp.ack_policy().name(),
            pacing: spec.tcp.pacing.enabled,
            video: f.video.as_ref().map(|v| v.playout.result(self.now, f.receiver.rcv_nxt())),
            video_further: f.video.as_ref().map(|v| v.playout.further_results(self.now, f.receiver.rcv_nxt())).unwrap_or_default(),
            video_rate_bps: spec.video.as_ref().map(|v| v.rate_bps),
            probe: spec.probe,
            rtt_correction: spec.tcp.rtt_correction,
            base_rtt: path_delay(&self.channels, &self.routes, f.src, f.dst, 0).saturating_add(path_delay(&self.channels, &self.routes, f.dst, f.src, 0)),
        }
    }

    /// The counts of the conservation check, in total and per long flow.
    fn conservation_input(&self) -> ConservationInput {
        let mut data_in_network = vec![0u64; self.flows.len()];
        let mut in_network = 0;
        for p in self.packets_in_network() {
            in_network += 1;
            if p.kind == PacketKind::Data {
                // Web transfers have ids past the long flows'; only the long flows are checked one by one.
                if let Some(n) = data_in_network.get_mut(p.flow as usize) {
                    *n += 1;
                }
            }
        }
        let flows = self
            .flows
            .iter()
            .zip(data_in_network)
            .map(|(f, in_network)| FlowBalance {
                sent: f.sender.counters().segments_sent,
                received: f.receiver.counters().data_received,
                dropped: f.data_drops,
                in_network,
            })
            .collect();
        let t = self.totals;
        ConservationInput { injected: t.injected, delivered: t.delivered, dropped: t.dropped, in_network, flows }
    }
}

impl Flow {
    /// Payload bytes of one of this flow's segments.
    pub fn payload_bytes(&self) -> u32 {
        self.sender.tp.mss.saturating_sub(TCP_IP_HEADER_BYTES)
    }
}

/// The TCP flow with packet id `id`: a long-lived flow, or an open web transfer
/// (a free function so that the caller can keep borrowing the world's other fields).
fn tcp_flow<'a>(flows: &'a mut [Flow], web: &'a mut WebState, id: u32) -> Option<&'a mut Flow> {
    match flows.get_mut(id as usize) {
        Some(flow) => Some(flow),
        None => web.conn_flow(id),
    }
}

#[cfg(test)]
mod tests {
    use super::World;
    use crate::engine::Event;
    use crate::presets::canonical_dumbbell_with_queue;
    use crate::scenario::TxEndEvents;

    /// A progress callback that stops the run leaves the event it was called
    /// for unprocessed, back in its place: when that is an arrival, its packet
    /// is still inside the network, and the conservation check counts it (the
    /// Ctrl-C of the command line).
    #[test]
    fn an_interrupted_run_counts_the_packet_of_the_arrival_it_left() {
        let mut arrivals = 0;
        for stop_at in 1..12 {
            let mut w = World::build(&canonical_dumbbell_with_queue(20, 30, "droptail")).unwrap();
            let (mut calls, mut stopped_at) = (0, 0);
            w.run(&mut |t| {
                calls += 1;
                stopped_at = t;
                calls < stop_at
            });
            assert!(w.interrupted());
            let t = w.totals;
            assert_eq!(w.packets_in_network().count() as u64, t.injected - t.delivered - t.dropped, "stopped at call {stop_at}");
            let (next, ev) = w.queue.pop().unwrap();
            assert_eq!(next, stopped_at, "the event left is the next one due");
            arrivals += usize::from(matches!(ev, Event::Arrive(..)));
        }
        assert!(arrivals > 0, "no stop fell on an arrival");
    }

    /// The canonical dumbbell's 50 flows keep their state in cache and ask
    /// for nothing ahead; 1000 flows do (BENCHMARKS.md, "The wire without a ring").
    #[test]
    fn only_a_world_larger_than_the_cache_asks_for_memory_ahead() {
        let size = |flows| {
            let w = World::build(&canonical_dumbbell_with_queue(flows, 1, "droptail")).unwrap();
            (w.prefetch, super::hot_state_bytes(&w.channels, &w.flows))
        };
        let (small, large) = (size(50), size(1000));
        assert!(!small.0 && small.1 < super::PREFETCH_ABOVE_BYTES / 4, "50 flows: {} bytes", small.1);
        assert!(large.0 && large.1 > 2 * super::PREFETCH_ABOVE_BYTES, "1000 flows: {} bytes", large.1);
    }

    /// The packets the network refers to (queues, transmissions whose end is
    /// an event, arrivals) are exactly those in the store, and what the
    /// totals leave inside, at every instant of a run in steps: with either
    /// kind of transmission end, and with losses on the wire (drawn at the
    /// transmission's end, from `in_tx`).
    #[test]
    fn the_packets_in_the_network_are_the_stored_ones_at_every_step() {
        for tx_end in [TxEndEvents::Always, TxEndEvents::WhenNeeded] {
            let mut s = canonical_dumbbell_with_queue(6, 20, "droptail");
            s.dumbbell.as_mut().unwrap().bottleneck_loss = 0.01;
            s.engine.tx_end_events = tx_end;
            let mut w = World::build(&s).unwrap();
            let (mut busy, mut step) = (0, 0);
            while !w.run_until(step * 997_003, &mut |_| true) {
                step += 1;
                let found = w.packets_in_network().count();
                let t = w.totals;
                assert_eq!(found, w.store.len(), "{tx_end:?}, step {step}");
                assert_eq!(found as u64, t.injected - t.delivered - t.dropped, "{tx_end:?}, step {step}");
                busy += usize::from(w.channels.iter().any(|c| c.in_transmission().is_some()));
            }
            assert!(w.totals.dropped > 0, "{tx_end:?}: no loss drawn ({step} steps, {} packets)", w.totals.injected);
            // Steps that fall while a transmission's end is still to come.
            assert!(busy > 100, "{tx_end:?}: {busy} steps with a packet being sent");
        }
    }
}
