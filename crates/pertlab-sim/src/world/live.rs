//! A run taken in steps ([`World::run_until`]): what it shows between two
//! steps (each long flow's sender state, each queue's occupancy, counters and
//! the discipline's own variables, as they stand at [`World::now`]) and what
//! can change there (a link's rate or delay, a flow starting early, its
//! application stopping or resuming, the window of a flow whose controller is
//! an `agent`; a controller's parameters are `cc_params`'s).
//!
//! Reading them changes nothing: no counter is integrated up to now (the
//! queue's time averages are the results' to compute), so a run read between
//! every step gives the results of a run taken in one go.
//!
//! A rate change takes effect with the next packet a channel starts to send
//! (the one in service keeps its end time); disciplines keep what they derived
//! from the rate when built (RED's automatic thresholds and idle-time packet
//! count; PIE reads the rate each time). A delay change takes effect with the
//! next packet a channel finishes sending; packets on the wire keep their
//! arrival times and none overtakes another (see `net`). Starting a flow
//! before its start time is its `FlowStart` event, run at once (the one
//! scheduled then finds it started and does nothing); stopping and resuming a
//! flow are its application's `FlowStop`/`FlowResume` events, run at once.
//! An agent flow's window or pacing rate is set from outside.
//!
//! Left out: web transfers and UDP sources (their counters are in the
//! results), the per-class buffers of a multi-class queue (their total is the
//! queue's).

use std::collections::BTreeMap;

use serde::Serialize;

use super::flows::Flow;
use super::World;
use crate::engine::Event;
use crate::error::ConfigError;
use crate::tcp::cc::INFINITE_SSTHRESH;
use crate::time::{to_secs, SimTime};

/// One long flow between two steps.
#[derive(Clone, Debug, Serialize)]
pub struct LiveFlow {
    pub flow: u32,
    pub label: String,
    pub cc: &'static str,
    /// Whether the flow has started sending.
    pub started: bool,
    /// Congestion window and slow-start threshold, segments (`None` before the first reduction).
    pub cwnd: u32,
    pub ssthresh: Option<u32>,
    /// Smoothed RTT (RFC 6298) and the smallest RTT sample so far, ns (0 before the first sample).
    pub srtt_ns: SimTime,
    pub min_rtt_ns: SimTime,
    /// The retransmission timeout now, ns.
    pub rto_ns: SimTime,
    /// The sender's loss-recovery state (Linux's names: open, disorder, cwr, recovery, loss).
    pub ca_state: &'static str,
    /// Segments in flight as the sender estimates them (RFC 6675 pipe).
    pub in_flight: u32,
    /// Payload bytes cumulatively acknowledged (`snd_una` x payload).
    pub bytes_acked: u64,
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// ECN marks the ACKs echoed, counted by the sender.
    pub ecn_marks: u64,
    /// The pacing rate set from outside (an agent flow's), bit/s.
    pub pacing_rate_bps: Option<u64>,
    /// Adaptive PERT's mode and alpha, for controllers that adapt.
    pub mode: Option<&'static str>,
    pub alpha: Option<f64>,
}

/// One output queue (one direction of a link) between two steps.
#[derive(Clone, Debug, Serialize)]
pub struct LiveQueue {
    pub link: String,
    pub from: String,
    pub to: String,
    pub discipline: &'static str,
    pub rate_bps: u64,
    pub length_packets: u32,
    pub length_bytes: u64,
    pub arrivals: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    pub drops: u64,
    pub marks: u64,
    /// The discipline's own variables: its drop/mark probability now, and its
    /// average queue and adapted max_p where it keeps them (RED family).
    pub probability: f64,
    pub average: Option<f64>,
    pub max_p: Option<f64>,
    /// Its other state variables by name (`QueueDiscipline::variables`:
    /// CoDel's, PIE's, the XCP router's), empty for the others.
    pub variables: BTreeMap<&'static str, Option<f64>>,
}

/// The world between two steps.
#[derive(Clone, Debug, Serialize)]
pub struct LiveState {
    pub now_ns: SimTime,
    pub events: u64,
    pub flows: Vec<LiveFlow>,
    pub queues: Vec<LiveQueue>,
}

impl World {
    /// The state of every long flow and queue now (see the module doc).
    pub fn live(&self) -> LiveState {
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let tp = &f.sender.tp;
                let c = f.sender.counters();
                let tm = f.sender.cc_telemetry();
                LiveFlow {
                    flow: i as u32,
                    label: self.labels.names[self.labels.of_flow[i] as usize].clone(),
                    cc: f.sender.cc_name(),
                    started: f.started,
                    cwnd: tp.snd_cwnd,
                    ssthresh: (tp.snd_ssthresh < INFINITE_SSTHRESH).then_some(tp.snd_ssthresh),
                    srtt_ns: tp.srtt,
                    min_rtt_ns: c.rtt_min_ns,
                    rto_ns: f.sender.rto(),
                    ca_state: tp.ca_state.name(),
                    in_flight: tp.packets_in_flight,
                    bytes_acked: u64::from(tp.snd_una) * u64::from(f.payload_bytes()),
                    segments_sent: c.segments_sent,
                    retransmits: c.retransmits,
                    timeouts: c.timeouts,
                    fast_recoveries: c.fast_recoveries,
                    ecn_marks: c.ecn_marks,
                    pacing_rate_bps: f.sender.pacing_rate(),
                    mode: tm.map(|t| t.mode.name()),
                    alpha: tm.map(|t| t.alpha),
                }
            })
            .collect();
        let queues = self
            .channels
            .iter()
            .enumerate()
            .map(|(c, ch)| {
                let q = &ch.queue;
                let info = self.queue_info(c);
                LiveQueue {
                    link: info.link,
                    from: info.from,
                    to: info.to,
                    discipline: info.discipline,
                    rate_bps: ch.rate_bps,
                    length_packets: q.len_pkts(),
                    length_bytes: q.len_bytes(),
                    arrivals: q.counters.arrivals,
                    departures: q.counters.departures,
                    departure_bytes: q.counters.departure_bytes,
                    drops: q.counters.drops(),
                    marks: q.counters.marks,
                    probability: q.discipline().probability(),
                    average: q.discipline().average(),
                    max_p: q.discipline().max_p(),
                    variables: q.discipline().variables().into_iter().collect(),
                }
            })
            .collect();
        LiveState { now_ns: self.now, events: self.events_processed, flows, queues }
    }
}

impl World {
    /// From the next packet it sends, every channel of link `link` sends at `rate_bps`.
    pub fn set_link_rate(&mut self, link: &str, rate_bps: u64) -> Result<(), ConfigError> {
        if rate_bps == 0 {
            return Err(ConfigError::new("rate_bps", "must be at least 1 bit/s"));
        }
        for c in self.link_channels(link)? {
            self.channels[c].set_rate(rate_bps);
            // A queue's bounds keep the slowest rate its link has had: one that could act then
            // is not said never to act after a speed-up.
            let bounds = &mut self.queue_bounds[c];
            bounds.rate_bps = bounds.rate_bps.min(rate_bps);
        }
        Ok(())
    }

    /// Every channel of link `link` gives the packets that finish their
    /// transmission from now on the propagation delay `delay_ns`; packets on
    /// the wire keep their arrival times, and none overtakes another. With
    /// `engine.tx_end_events = when_needed`, a packet whose arrival was
    /// scheduled when its transmission started (see the module doc of `net`)
    /// keeps the delay it started with.
    pub fn set_link_delay(&mut self, link: &str, delay_ns: SimTime) -> Result<(), ConfigError> {
        for c in self.link_channels(link)? {
            let last = self.queue.latest(|e| matches!(*e, Event::Arrive(x, _) if x as usize == c)).unwrap_or(0);
            self.channels[c].set_delay(delay_ns, last);
        }
        Ok(())
    }

    /// The channels of link `link` (an error lists the links when there is none).
    fn link_channels(&self, link: &str) -> Result<Vec<usize>, ConfigError> {
        let found: Vec<usize> = (0..self.channels.len()).filter(|&c| self.channels[c].link_name == link).collect();
        if found.is_empty() {
            let mut names: Vec<&str> = self.channels.iter().map(|c| c.link_name.as_str()).collect();
            names.dedup();
            return Err(ConfigError::new("link", format!("no link named {link:?}; links: {}", names.join(", "))));
        }
        Ok(found)
    }

    /// Long flow `flow`'s application stops now (`resume = false`) or has data
    /// again (`true`). A flow that has not started cannot resume (it would do
    /// nothing): [`World::start_flow`] starts it.
    pub fn set_flow_sending(&mut self, flow: u32, resume: bool) -> Result<(), ConfigError> {
        let f = self.long_flow(flow)?;
        if resume && !f.started {
            return Err(ConfigError::new(
                "flow",
                format!("flow {flow} has not started (its start time is {} s), so it cannot resume; start_flow starts it now", to_secs(f.start)),
            ));
        }
        self.dispatch(if resume { Event::FlowResume(flow) } else { Event::FlowStop(flow) });
        Ok(())
    }

    /// Long flow `flow`, which has not started yet, starts now instead of at
    /// its start time (which becomes now in the results' `start_s`). Its stop
    /// and pauses keep their times. A flow that carries a video starts at its
    /// start time, from which its writes are scheduled.
    pub fn start_flow(&mut self, flow: u32) -> Result<(), ConfigError> {
        let f = self.long_flow(flow)?;
        if f.started {
            return Err(ConfigError::new("flow", format!("flow {flow} started already, at {} s", to_secs(f.start))));
        }
        if f.video.is_some() {
            return Err(ConfigError::new(
                "flow",
                format!("flow {flow} carries a video, whose writes are scheduled from its start time ({} s); it cannot start earlier", to_secs(f.start)),
            ));
        }
        self.flows[flow as usize].start = self.now;
        self.dispatch(Event::FlowStart(flow));
        Ok(())
    }

    /// Long flow `flow` (an error names the range of flows when there is none).
    pub(super) fn long_flow(&self, flow: u32) -> Result<&Flow, ConfigError> {
        self.flows
            .get(flow as usize)
            .ok_or_else(|| ConfigError::new("flow", format!("no flow {flow}; the long flows are 0 to {}", self.flows.len() as i64 - 1)))
    }

    /// The congestion window of long flow `flow`, whose controller must be an
    /// `agent` (the others set their own), becomes `cwnd` segments, at most
    /// its receiver window; the sender sends what the new window allows at once.
    pub fn set_cwnd(&mut self, flow: u32, cwnd: u32) -> Result<(), ConfigError> {
        self.agent_flow(flow)?;
        if cwnd == 0 {
            return Err(ConfigError::new("cwnd", "must be at least 1 segment"));
        }
        let mut out = std::mem::take(&mut self.out);
        let f = &mut self.flows[flow as usize];
        f.sender.set_cwnd(self.now, cwnd, &mut out);
        self.emit_from_sender(flow, &mut out);
        self.out = out;
        Ok(())
    }

    /// Long flow `flow`, whose controller must be an `agent`, paces its
    /// segments at `rate_bps` from now on (see `tcp::pacing`); its window still
    /// bounds what is in flight.
    pub fn set_pacing_rate(&mut self, flow: u32, rate_bps: u64) -> Result<(), ConfigError> {
        self.agent_flow(flow)?;
        if rate_bps == 0 {
            return Err(ConfigError::new("rate_bps", "must be at least 1 bit/s"));
        }
        let mut out = std::mem::take(&mut self.out);
        let f = &mut self.flows[flow as usize];
        f.sender.set_pacing_rate(self.now, rate_bps, &mut out);
        self.emit_from_sender(flow, &mut out);
        self.out = out;
        Ok(())
    }

    /// Long flow `flow` exists and its controller is an `agent` (the others set their own window).
    fn agent_flow(&self, flow: u32) -> Result<(), ConfigError> {
        let f = self.long_flow(flow)?;
        if f.sender.cc_name() != "agent" {
            return Err(ConfigError::new(
                "flow",
                format!(
                    "flow {flow}'s controller is {}, which sets its own window; only agent flows take a window or a pacing rate from outside",
                    f.sender.cc_name()
                ),
            ));
        }
        Ok(())
    }
}
