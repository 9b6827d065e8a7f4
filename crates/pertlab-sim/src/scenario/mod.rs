//! The scenario: everything a run depends on besides nothing (a run is a pure
//! function of the scenario, whose `seed` is one of its fields).
//!
//! This is the wire format between the Python front (which parses units such as
//! "150Mbps" and validates with pydantic) and the core: plain JSON with rates in
//! bits/s, times in integer nanoseconds, sizes in bytes or packets. The core
//! validates again, so a scenario that reaches [`crate::world::World`] can never
//! make the simulator panic; every error names the field.
//!
//! A topology is either an explicit graph (`nodes` and `links`) or a `dumbbell`
//! that expands into one (see [`DumbbellSpec::expand`]).
//!
//! The specs by part: [`network`] (links, their queues, the dumbbell), [`flows`]
//! (TCP flows, their controllers and TCP parameters), [`udp`] (UDP sources); here
//! the scenario itself, the engine's settings, the measurement window and the
//! monitors, and the checks that look across parts.

use serde::{Deserialize, Serialize};

use crate::error::{check, ConfigError};
use crate::time::SimTime;
use crate::traffic::web::WebSpec;

pub mod flows;
pub mod network;
pub mod udp;

pub use flows::{CcSpec, FlowSpec};
pub use network::{DumbbellSpec, LinkSpec, QueueSpec, SchedConfig};
pub use udp::{Arrivals, SizeDist, UdpSpec};

fn default_seed() -> u64 {
    1
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Seed of every random stream of the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time at which the run stops.
    pub duration_ns: SimTime,
    /// Window over which summary metrics are computed; default the whole run.
    #[serde(default)]
    pub measure: Option<MeasureWindow>,
    /// Explicit graph: node names.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// Explicit graph: full-duplex links between named nodes.
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Dumbbell builder (exclusive with `nodes` / `links`).
    #[serde(default)]
    pub dumbbell: Option<DumbbellSpec>,
    /// TCP flows.
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// UDP sources.
    #[serde(default)]
    pub udp: Vec<UdpSpec>,
    /// Web sessions (ns-2 WebTraf style, see [`crate::traffic::web`]).
    #[serde(default)]
    pub web: Vec<WebSpec>,
    /// Optional time series.
    #[serde(default)]
    pub monitor: MonitorSpec,
    /// pcap captures of links (`world::capture`, docs/pcap.md).
    #[serde(default)]
    pub capture: Vec<crate::world::capture::CaptureSpec>,
    /// How the engine schedules its work; no field changes the model.
    #[serde(default)]
    pub engine: EngineSpec,
}

/// How the engine schedules its work (docs/model.md, "Transmission ends").
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    #[serde(default)]
    pub tx_end_events: TxEndEvents,
}

/// Which transmission ends are events of their own (see the module doc of `net`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TxEndEvents {
    /// Every transmission's end (the convention the committed reports were
    /// made with: their scenarios say so, and the reproductions keep it).
    Always,
    /// Only where something happens then: a loss draw, the next packet of the
    /// queue to start, a wire holding packets back after a decrease of its
    /// delay. Other packets' arrivals are scheduled when their transmission
    /// starts, which changes only the order of events due at the same
    /// nanosecond. The default (issue 21): fewer events, a faster run.
    #[default]
    WhenNeeded,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MeasureWindow {
    pub start_ns: SimTime,
    pub end_ns: SimTime,
}

/// Time series to record. Samples are taken every `sample_interval_ns`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MonitorSpec {
    /// No time series when absent.
    #[serde(default)]
    pub sample_interval_ns: Option<SimTime>,
    /// Flow indices whose cwnd/ssthresh/srtt are sampled; default all.
    #[serde(default)]
    pub flows: Option<Vec<u32>>,
    /// Link names whose queues (both directions) are sampled; default all.
    #[serde(default)]
    pub links: Option<Vec<String>>,
    /// Per-packet trace of some flows: every RTT sample their senders take and
    /// every loss of their data packets (the PERT paper's predictor study, Section 2).
    #[serde(default)]
    pub trace_flows: Vec<u32>,
    /// With `trace_flows`: a link on the first traced flow's data path whose queue
    /// length is recorded at each RTT sample and whose drops (of any flow) are traced.
    #[serde(default)]
    pub trace_link: Option<String>,
    /// A link whose a -> b queue (for the dumbbell's "bottleneck": r0 -> r1, the
    /// data direction) records, for each data packet it accepts inside the
    /// measurement window, the packet's position: packets already waiting + 1
    /// (the packet being transmitted is not counted, so a packet that finds the
    /// buffer empty has position 1). Counted per flow label (`Results::queue_positions`).
    #[serde(default)]
    pub queue_positions: Option<String>,
}

impl Scenario {
    /// Parse the JSON wire format; unknown fields and type errors name the field
    /// by its path (e.g. `flows[2].cc.p_max`).
    pub fn from_json(text: &str) -> Result<Scenario, ConfigError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." { "scenario".to_string() } else { path };
            ConfigError::new(field, e.into_inner().to_string())
        })
    }

    /// The measurement window (default: the whole run).
    pub fn window(&self) -> MeasureWindow {
        self.measure.unwrap_or(MeasureWindow { start_ns: 0, end_ns: self.duration_ns })
    }

    /// The explicit graph: `nodes` / `links`, or the dumbbell's expansion.
    pub fn graph(&self) -> (Vec<String>, Vec<LinkSpec>) {
        match &self.dumbbell {
            Some(d) => d.expand(),
            None => (self.nodes.clone(), self.links.clone()),
        }
    }

    /// The field of the queue spec of link `link` (in [`Scenario::graph`]'s
    /// order) in the direction a -> b (`forward`) or b -> a, for error messages.
    pub fn queue_field(&self, link: usize, forward: bool) -> String {
        match &self.dumbbell {
            Some(d) if link == d.pairs as usize => match (forward, d.bottleneck_queue_reverse.is_some()) {
                (false, true) => "dumbbell.bottleneck_queue_reverse".into(),
                _ => "dumbbell.bottleneck_queue".into(),
            },
            Some(_) => "dumbbell.access_queue".into(),
            None if !forward && self.links.get(link).is_some_and(|l| l.queue_ba.is_some()) => format!("links[{link}].queue_ba"),
            None => format!("links[{link}].queue"),
        }
    }

    /// The field of the propagation delay of link `link` (in [`Scenario::graph`]'s
    /// order), for error messages.
    pub fn delay_field(&self, link: usize) -> String {
        match &self.dumbbell {
            Some(d) => {
                let pairs = d.pairs as usize;
                let (name, list, i) = match link.cmp(&pairs) {
                    std::cmp::Ordering::Equal => return "dumbbell.bottleneck_delay_ns".into(),
                    std::cmp::Ordering::Less => ("sender_access_delay_ns", &d.sender_access_delay_ns, link),
                    std::cmp::Ordering::Greater => ("receiver_access_delay_ns", &d.receiver_access_delay_ns, link - pairs - 1),
                };
                if list.len() > 1 {
                    format!("dumbbell.{name}[{i}]")
                } else {
                    format!("dumbbell.{name}")
                }
            }
            None => format!("links[{link}].delay_ns"),
        }
    }

    /// Check everything the engine relies on. Topology references (node names,
    /// connectivity) are checked when the world is built.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check::positive("duration_ns", self.duration_ns as f64)?;
        if let Some(w) = self.measure {
            if w.start_ns >= w.end_ns || w.end_ns > self.duration_ns {
                return Err(ConfigError::new(
                    "measure",
                    format!("need start_ns < end_ns <= duration_ns ({}), got [{}, {}]", self.duration_ns, w.start_ns, w.end_ns),
                ));
            }
        }
        if self.dumbbell.is_some() && (!self.nodes.is_empty() || !self.links.is_empty()) {
            return Err(ConfigError::new("dumbbell", "give either `dumbbell` or `nodes`/`links`, not both"));
        }
        if let Some(d) = &self.dumbbell {
            d.validate("dumbbell")?;
        }
        for (i, l) in self.links.iter().enumerate() {
            l.validate(&format!("links[{i}]"))?;
        }
        for (i, f) in self.flows.iter().enumerate() {
            f.validate(&format!("flows[{i}]"))?;
        }
        self.validate_video()?;
        for (i, u) in self.udp.iter().enumerate() {
            u.validate(&format!("udp[{i}]"))?;
        }
        for (i, w) in self.web.iter().enumerate() {
            w.validate(&format!("web[{i}]"))?;
        }
        if let Some(dt) = self.monitor.sample_interval_ns {
            check::positive("monitor.sample_interval_ns", dt as f64)?;
        }
        self.validate_classes()
    }

    /// Every class a flow or UDP source uses must have a buffer at every
    /// multi-class queue of the graph.
    fn validate_classes(&self) -> Result<(), ConfigError> {
        // The queue specs themselves, not the expanded graph (a dumbbell's size is checked later).
        let mut queues: Vec<(String, &QueueSpec)> = Vec::new();
        for (i, l) in self.links.iter().enumerate() {
            queues.push((format!("links[{i}].queue"), &l.queue));
            if let Some(q) = &l.queue_ba {
                queues.push((format!("links[{i}].queue_ba"), q));
            }
        }
        if let Some(d) = &self.dumbbell {
            queues.push(("dumbbell.bottleneck_queue".into(), &d.bottleneck_queue));
            if let Some(q) = &d.bottleneck_queue_reverse {
                queues.push(("dumbbell.bottleneck_queue_reverse".into(), q));
            }
            queues.push(("dumbbell.access_queue".into(), &d.access_queue));
        }
        let Some((fewest, queue)) = queues.into_iter().filter_map(|(field, q)| q.classes().map(|n| (n, field))).min_by_key(|x| x.0) else {
            return Ok(());
        };
        let used = self.flows.iter().map(|f| f.class).enumerate().map(|(i, c)| (format!("flows[{i}].class"), c));
        let used = used.chain(self.udp.iter().map(|u| u.class).enumerate().map(|(i, c)| (format!("udp[{i}].class"), c)));
        for (field, class) in used {
            if class as usize >= fewest {
                return Err(ConfigError::new(
                    field,
                    format!("class {class} has no queue at {queue}, whose {fewest} classes are 0 to {} (one per entry of its sched.weights)", fewest - 1),
                ));
            }
        }
        Ok(())
    }

    /// The rate of the fastest link at `node`, without expanding a dumbbell (whose
    /// size is checked only later: `pairs` may be far too large to build).
    fn fastest_link_at(&self, node: &str) -> u64 {
        match &self.dumbbell {
            Some(d) if node == "r0" || node == "r1" => d.access_rate_bps.max(d.bottleneck_rate_bps),
            Some(d) => d.access_rate_bps,
            None => self.links.iter().filter(|l| l.a == node || l.b == node).map(|l| l.rate_bps).max().unwrap_or(0),
        }
    }

    /// Video flows: a rate up to the sender's access link (its fastest link).
    fn validate_video(&self) -> Result<(), ConfigError> {
        if self.flows.iter().all(|f| f.video.is_none()) {
            return Ok(());
        }
        for (i, f) in self.flows.iter().enumerate() {
            if let Some(v) = &f.video {
                let access = self.fastest_link_at(&f.src);
                let payload = f.tcp.packet_size.saturating_sub(crate::packet::TCP_IP_HEADER_BYTES);
                v.validate(&format!("flows[{i}].video"), payload, access)?;
            }
        }
        Ok(())
    }
}
