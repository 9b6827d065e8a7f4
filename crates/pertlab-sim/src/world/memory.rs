//! How much memory a run will need, estimated before the world is built and
//! checked against a limit the caller gives, so that a scenario too large for
//! the machine is refused up front with the fields responsible instead of
//! aborting midway (an allocation failure aborts the process).
//!
//! In two stages, each checked:
//! 1. from the scenario alone, without expanding anything (so a dumbbell of
//!    2^31 pairs is refused in microseconds): the nodes, links and channels,
//!    the routing tables (one entry per endpoint and node), each TCP flow's
//!    state, the web sessions with their connections and completed objects,
//!    the time series (samples x sampled queues and flows), copies of the
//!    scenario, snapshots and result rows;
//! 2. once the network and its routes exist: each connection's largest
//!    window, twice its share of what its path holds (the bandwidth-delay
//!    product and the buffer of its slowest link, shared by the connections
//!    with that bottleneck) plus `init_cwnd`, at most `max_cwnd` (see
//!    `Connection::window`), which sizes its scoreboard, its receiver's
//!    out-of-order blocks and its send-overhead hold; the buffers and the packets in flight of
//!    each channel (see `buffers`: a buffer fills at a bottleneck, with a
//!    sender's burst on its first hop, or when its traffic can arrive faster
//!    than it leaves); the traces.
//!
//! Sizes come from `std::mem::size_of` of the structures that hold the state,
//! so the estimate follows the code; growable buffers are counted at the next
//! power of two of what they hold (they grow by doubling).
//!
//! Left out: the allocator's own overhead and fragmentation, the caller's
//! copies (the scenario's text, the results' serialisation), and the short
//! bursts of the scratch buffers. Checked against measured peak memory in
//! `tests/python/test_core_robust.py`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::mem::size_of;

use serde::Serialize;

use super::flows::Flow;
use super::topology::{Endpoints, Topology};
use super::traffic::WebConn;
use crate::engine::EVENT_BYTES;
use crate::error::ConfigError;
use crate::net::routing::Routes;
use crate::net::{Channel, ChannelCounters};
use crate::packet::{Packet, SackBlock};
use crate::packet_store::BYTES_PER_PACKET;
use crate::queue::classes::MultiClass;
use crate::queue::codel::Codel;
use crate::queue::jcc::JccRed;
use crate::queue::pi::Pi;
use crate::queue::pie::Pie;
use crate::queue::red::Red;
use crate::queue::step::Step;
use crate::queue::xcp::XcpRouter;
use crate::queue::{QueueCounters, QueueLimit};
use crate::scenario::{CcSpec, DumbbellSpec, FlowSpec, LinkSpec, QueueSpec, Scenario, SizeDist, UdpSpec};
use crate::stats::{ClassTrace, ControllerResult, FlowResult, FlowSeries, QueueResult, QueueSeries, Trace, UdpResult};
use crate::tcp::cc::compound::Compound;
use crate::tcp::cc::cubic::Cubic;
use crate::tcp::cc::dctcp::Dctcp;
use crate::tcp::cc::fast::Fast;
use crate::tcp::cc::hstcp::Hstcp;
use crate::tcp::cc::illinois::Illinois;
use crate::tcp::cc::jcc::Jcc;
use crate::tcp::cc::pert::Pert;
use crate::tcp::cc::pert_adaptive::PertAdaptive;
use crate::tcp::cc::pert_pi::PiEmulation;
use crate::tcp::cc::scalable::Scalable;
use crate::tcp::cc::surathkal::Surathkal;
use crate::tcp::cc::vegas::Vegas;
use crate::tcp::cc::westwood::Westwood;
use crate::tcp::cc::xcp::Xcp;
use crate::tcp::cc::CcCounters;
use crate::tcp::receiver::ReceiverCounters;
use crate::tcp::sender::SenderCounters;
use crate::tcp::TcpConfig;
use crate::time::{SimTime, NS_PER_SEC};
use crate::traffic::udp::MIX_SIZES;
use crate::traffic::udp::{UdpCounters, UdpSource};
use crate::traffic::web::{Completion, Session, WebSpec};

/// Heap bytes of a short string (a node or link name): the smallest allocation.
const NAME_BYTES: u64 = 32;
/// Bytes per entry of a B-tree map of connections, beyond the value (key, links, slack).
const BTREE_ENTRY_BYTES: u64 = 32;

/// One item of the estimate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemoryPart {
    /// The scenario field that decides its size.
    pub field: String,
    /// What it is, with its counts.
    pub what: String,
    pub bytes: u64,
    /// How to make it smaller.
    pub advice: &'static str,
}

/// What a run may use: bytes, and what each recorded value (a cell of a time
/// series or trace) costs the caller once the results leave the core (0 for
/// a caller that keeps them as they are; the Python binding passes them on
/// as JSON text and Python objects).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    pub bytes: u64,
    pub per_recorded_value: u64,
}

impl MemoryLimit {
    /// No limit.
    pub const NONE: MemoryLimit = MemoryLimit { bytes: u64::MAX, per_recorded_value: 0 };
}

/// The memory a run needs, by part.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemoryEstimate {
    pub parts: Vec<MemoryPart>,
    /// Values the time series and traces record (rows x columns), and the
    /// field that decides most of them.
    pub recorded_values: u64,
    recorded_field: String,
    /// The most values one `record` call added: `recorded_field`'s.
    recorded_most: u64,
    /// Both stages were estimated (the second needs the network built, which
    /// is skipped when the first stage alone exceeds the limit).
    pub complete: bool,
}

impl MemoryEstimate {
    pub fn total(&self) -> u64 {
        self.parts.iter().fold(0u64, |sum, p| sum.saturating_add(p.bytes))
    }

    fn add(&mut self, field: impl Into<String>, what: impl Into<String>, bytes: u64, advice: &'static str) {
        if bytes > 0 {
            self.parts.push(MemoryPart { field: field.into(), what: what.into(), bytes, advice });
        }
    }

    fn record(&mut self, field: &str, values: u64) {
        if values > self.recorded_most {
            self.recorded_field = field.to_string();
            self.recorded_most = values;
        }
        self.recorded_values = self.recorded_values.saturating_add(values);
    }

    /// The total after `with_output(per_value)`, without building it.
    pub fn total_with_output(&self, per_value: u64) -> u64 {
        self.total().saturating_add(self.output_bytes(per_value))
    }

    /// What the recorded values cost the caller, at `per_value` bytes each.
    fn output_bytes(&self, per_value: u64) -> u64 {
        self.recorded_values.saturating_mul(per_value)
    }

    /// Add what the recorded values cost the caller, at `per_value` bytes each.
    pub fn with_output(mut self, per_value: u64) -> MemoryEstimate {
        let bytes = self.output_bytes(per_value);
        let field = std::mem::take(&mut self.recorded_field);
        self.add(field, format!("{} recorded values passed on to the caller", self.recorded_values), bytes, "record less (monitor)");
        self
    }

    /// An error naming the largest part's field when the total exceeds `limit` bytes.
    pub fn check(&self, limit: u64) -> Result<(), ConfigError> {
        if self.total() > limit {
            Err(self.refusal(limit))
        } else {
            Ok(())
        }
    }

    /// The error of a run that needs more than `limit` bytes: the field of
    /// the largest part, what it is, and what would make it smaller.
    pub fn refusal(&self, limit: u64) -> ConfigError {
        let total = human_bytes(self.total());
        match self.parts.iter().max_by_key(|p| p.bytes) {
            Some(p) => ConfigError::new(
                p.field.clone(),
                format!(
                    "{} need {} (the run {total} in all), more than the memory limit {}; {}, or raise the limit",
                    p.what,
                    human_bytes(p.bytes),
                    human_bytes(limit),
                    p.advice
                ),
            ),
            None => ConfigError::new("scenario", format!("needs {total}, more than the memory limit {}", human_bytes(limit))),
        }
    }
}

/// `n` bytes with a binary unit, three significant digits ("160 GiB").
pub fn human_bytes(n: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut x = n as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < units.len() {
        x /= 1024.0;
        u += 1;
    }
    let mut s = String::new();
    let digits = if u == 0 || x >= 100.0 {
        0
    } else if x >= 10.0 {
        1
    } else {
        2
    };
    let _ = write!(s, "{x:.digits$} {}", units[u]);
    s
}

/// A buffer that grew by doubling to hold `n` items of `size` bytes: the next
/// power of two of them.
fn grown(n: u64, size: usize) -> u64 {
    n.checked_next_power_of_two().unwrap_or(u64::MAX).saturating_mul(size as u64)
}

/// Bytes of a boxed congestion controller of kind `cc`, with its own heap.
fn cc_bytes(cc: &CcSpec) -> u64 {
    let (size, heap) = match cc {
        // A "py" controller's state lives in Python, outside the core's memory.
        CcSpec::Reno | CcSpec::Agent | CcSpec::Py(_) => (0, 0),
        CcSpec::Vegas(_) => (size_of::<Vegas>(), 0),
        CcSpec::Pert(_) => (size_of::<Pert>(), 0),
        CcSpec::PertPi(_) => (size_of::<Pert<PiEmulation>>(), 0),
        // The interval weights, and the intervals of p and p'.
        CcSpec::PertAdaptive(c) => (size_of::<PertAdaptive>(), 4 * c.interval_weights.len() * size_of::<f64>()),
        CcSpec::Hstcp(_) => (size_of::<Hstcp>(), 0),
        CcSpec::Cubic(_) => (size_of::<Cubic>(), 0),
        CcSpec::Compound(_) => (size_of::<Compound>(), 0),
        CcSpec::Illinois(_) => (size_of::<Illinois>(), 0),
        CcSpec::Fast(_) => (size_of::<Fast>(), 0),
        CcSpec::Jcc(_) => (size_of::<Jcc>(), 0),
        CcSpec::Surathkal(_) => (size_of::<Surathkal>(), 0),
        CcSpec::Dctcp(_) => (size_of::<Dctcp>(), 0),
        CcSpec::Scalable(_) => (size_of::<Scalable>(), 0),
        CcSpec::Westwood => (size_of::<Westwood>(), 0),
        CcSpec::Xcp => (size_of::<Xcp>(), 0),
    };
    (size + heap) as u64
}

/// Bytes of the discipline a queue spec builds.
fn discipline_bytes(q: &QueueSpec) -> u64 {
    (match q.kind.as_str() {
        // A discipline written in Python: its objects are Python's, not in the estimate.
        "droptail" | "py" => 0,
        "pi" => size_of::<Pi>(),
        "pie" => size_of::<Pie>(),
        "codel" => size_of::<Codel>(),
        "jcc-red" => size_of::<JccRed>(),
        "step" => size_of::<Step>(),
        "xcp" => size_of::<XcpRouter>(),
        // A multi-class queue's boxed classes and scheduler (its buffers are in `buffers`).
        "priority" | "wtp" | "swtp" | "bpr" => size_of::<MultiClass>(),
        _ => size_of::<Red>(),
    }) as u64
}

/// Bytes of one channel of a link whose queue is `q`, with its counters,
/// snapshots and result row.
fn channel_bytes(q: &QueueSpec) -> u64 {
    let fixed = size_of::<Channel>() + size_of::<QueueResult>() + 2 * (size_of::<QueueCounters>() + size_of::<ChannelCounters>());
    fixed as u64 + discipline_bytes(q) + 4 * NAME_BYTES
}

/// Bytes of one long TCP flow of controller `cc` apart from its window: its
/// state, the world's copy of its spec, its snapshots, its result row, its
/// pending timers. The least a flow costs.
pub fn bytes_per_flow(cc: &CcSpec) -> u64 {
    let snapshot = size_of::<SenderCounters>() + size_of::<ReceiverCounters>() + size_of::<CcCounters>() + size_of::<u64>();
    let fixed = size_of::<Flow>() + size_of::<FlowSpec>() + 2 * snapshot + size_of::<FlowResult>() + size_of::<u32>() + 3 * EVENT_BYTES;
    fixed as u64 + cc_bytes(cc) + 4 * NAME_BYTES
}

/// The largest [`bytes_per_flow`] over the controllers.
pub fn max_bytes_per_flow() -> u64 {
    [
        CcSpec::Reno,
        CcSpec::Vegas(Default::default()),
        CcSpec::Pert(Default::default()),
        CcSpec::PertPi(Default::default()),
        CcSpec::PertAdaptive(Default::default()),
        CcSpec::Hstcp(Default::default()),
        CcSpec::Cubic(Default::default()),
        CcSpec::Compound(Default::default()),
        CcSpec::Illinois(Default::default()),
        CcSpec::Fast(Default::default()),
        CcSpec::Jcc(Default::default()),
        CcSpec::Surathkal(Default::default()),
        CcSpec::Dctcp(Default::default()),
        CcSpec::Scalable(Default::default()),
        CcSpec::Westwood,
        CcSpec::Xcp,
    ]
    .iter()
    .map(bytes_per_flow)
    .max()
    .unwrap_or(0)
}

/// Stage 1: everything that follows from the scenario alone (validated).
pub fn from_scenario(s: &Scenario) -> MemoryEstimate {
    let mut est = MemoryEstimate::default();
    topology(s, &mut est);
    routes(s, &mut est);
    let flows: u64 = s.flows.iter().map(|f| bytes_per_flow(&f.cc)).fold(0, u64::saturating_add);
    est.add("flows", format!("{} TCP flows", s.flows.len()), flows, "fewer flows");
    let udp = size_of::<UdpSource>() + size_of::<UdpSpec>() + 2 * size_of::<UdpCounters>() + size_of::<UdpResult>() + EVENT_BYTES;
    est.add("udp", format!("{} UDP sources", s.udp.len()), s.udp.len() as u64 * (udp as u64 + 4 * NAME_BYTES), "fewer UDP sources");
    for (g, w) in s.web.iter().enumerate() {
        web(g, w, &mut est);
    }
    series(s, &mut est);
    let captures = s.capture.len() as u64 * (super::capture::BUFFER_BYTES + crate::pcap::SNAPLEN as usize + 128) as u64;
    est.add("capture", format!("{} pcap capture buffers", s.capture.len()), captures, "fewer captures");
    // One row per label, at most one per flow.
    est.add("flows", "the labels' results", s.flows.len() as u64 * (size_of::<ControllerResult>() as u64 + NAME_BYTES), "fewer flows");
    // The summary rows of the flows and queues are passed on too.
    est.record("flows", (s.flows.len() as u64).saturating_mul(FlowResult::COLUMNS + ControllerResult::COLUMNS));
    est.record("links", channels(s).saturating_mul(QueueResult::COLUMNS));
    est
}

fn topology(s: &Scenario, est: &mut MemoryEstimate) {
    // Each node: its name, its adjacency, and its entry in the build's name index (a copy
    // of the name, the index, a control byte of the hash table).
    let node = (size_of::<String>() + size_of::<Vec<(u32, u32)>>()) as u64 + NAME_BYTES + (size_of::<(String, u32)>() + 1) as u64 + NAME_BYTES;
    // Each link: its spec (kept by the topology), two adjacency entries, its entry in the
    // build's set of linked pairs, two channels.
    let link = |q: &QueueSpec, q_ba: &QueueSpec| {
        size_of::<LinkSpec>() as u64
            + grown(2, size_of::<(u32, u32)>())
            + (size_of::<(u32, u32)>() + 1) as u64
            + NAME_BYTES
            + channel_bytes(q)
            + channel_bytes(q_ba)
    };
    let (nodes, links) = graph_size(s);
    let (field, bytes) = match &s.dumbbell {
        Some(d) => {
            let pairs = u64::from(d.pairs);
            let reverse = d.bottleneck_queue_reverse.as_ref().unwrap_or(&d.bottleneck_queue);
            let bytes = nodes
                .saturating_mul(node)
                .saturating_add((2 * pairs).saturating_mul(link(&d.access_queue, &d.access_queue)))
                .saturating_add(link(&d.bottleneck_queue, reverse))
                // The delays given per pair.
                .saturating_add(((d.sender_access_delay_ns.len() + d.receiver_access_delay_ns.len()) * size_of::<SimTime>()) as u64);
            ("dumbbell.pairs", bytes)
        }
        None => {
            // The world's copy of the scenario holds the graph a second time.
            let specs =
                s.links.iter().map(|l| link(&l.queue, l.queue_ba.as_ref().unwrap_or(&l.queue)) + size_of::<LinkSpec>() as u64).fold(0, u64::saturating_add);
            ("links", (2 * nodes).saturating_mul(node).saturating_add(specs))
        }
    };
    est.add(field, format!("{nodes} nodes and {links} links"), bytes, "a smaller network");
}

/// Routing tables: for each node that is an endpoint, one entry per router (a
/// node with two links or more, `net::routing`), beside each node's own entry.
fn routes(s: &Scenario, est: &mut MemoryEstimate) {
    let mut ends: BTreeSet<&str> = BTreeSet::new();
    for f in &s.flows {
        ends.extend([f.src.as_str(), f.dst.as_str()]);
    }
    for u in &s.udp {
        ends.extend([u.src.as_str(), u.dst.as_str()]);
    }
    for w in &s.web {
        ends.extend(w.clients.iter().chain(&w.servers).map(String::as_str));
    }
    let field = if s.dumbbell.is_some() { "dumbbell.pairs" } else { "nodes" };
    let (nodes, _) = graph_size(s);
    let routers = routers(s).min(nodes);
    let destinations = (ends.len() as u64).min(nodes);
    let per_node = (3 * size_of::<u32>() + size_of::<Vec<u32>>()) as u64;
    let bytes = destinations.saturating_mul(routers.max(1)).saturating_mul(size_of::<u32>() as u64).saturating_add(nodes.saturating_mul(per_node));
    est.add(field, format!("routes towards {destinations} endpoints through {routers} routers"), bytes, "fewer nodes or endpoints");
}

/// Nodes with two links or more (a dumbbell's two routers).
fn routers(s: &Scenario) -> u64 {
    if s.dumbbell.is_some() {
        return 2;
    }
    let mut degree: BTreeMap<&str, u32> = BTreeMap::new();
    for l in &s.links {
        for end in [l.a.as_str(), l.b.as_str()] {
            *degree.entry(end).or_default() += 1;
        }
    }
    degree.values().filter(|&&d| d > 1).count() as u64
}

/// A web group's sessions and the connections they can have open at once
/// (every object of a page in transfer).
fn web(g: usize, w: &WebSpec, est: &mut MemoryEstimate) {
    let sessions = u64::from(w.sessions);
    let open = sessions.saturating_mul(u64::from(w.objects_per_page));
    let conn = size_of::<WebConn>() as u64 + cc_bytes(&w.cc) + BTREE_ENTRY_BYTES + 3 * EVENT_BYTES as u64;
    let bytes = sessions.saturating_mul((size_of::<Session>() + EVENT_BYTES) as u64).saturating_add(open.saturating_mul(conn));
    est.add(
        format!("web[{g}].sessions"),
        format!("{sessions} web sessions with up to {open} objects in transfer"),
        bytes,
        "fewer sessions or objects per page",
    );
}

/// The objects a web group completes over the run, kept for the results: a
/// page takes at least the think time, its objects' request times and a
/// round trip (`rtt` ns, the least of the group's paths).
fn web_completions(s: &Scenario, g: usize, w: &WebSpec, rtt: SimTime, est: &mut MemoryEstimate) {
    let open = u64::from(w.sessions).saturating_mul(u64::from(w.objects_per_page));
    let page_ns = w.think_time_ns.saturating_add(w.inter_object_ns.saturating_mul(u64::from(w.objects_per_page - 1))).saturating_add(rtt).max(1);
    let pages = (s.duration_ns / page_ns).saturating_add(1).min(w.pages_per_session.map_or(u64::MAX, u64::from));
    let completed = open.saturating_mul(pages);
    est.add(
        format!("web[{g}].sessions"),
        format!("{completed} completed web objects"),
        grown(completed, size_of::<Completion>()),
        "fewer sessions or a shorter run",
    );
}

/// Nodes and links of the scenario's network, a dumbbell's counted without expanding it.
fn graph_size(s: &Scenario) -> (u64, u64) {
    s.dumbbell.as_ref().map_or((s.nodes.len() as u64, s.links.len() as u64), DumbbellSpec::graph_size)
}

/// Channels of the scenario's network: two per link.
fn channels(s: &Scenario) -> u64 {
    2 * graph_size(s).1
}

/// The time series: one row per sample and sampled queue or flow.
fn series(s: &Scenario, est: &mut MemoryEstimate) {
    let m = &s.monitor;
    let Some(dt) = m.sample_interval_ns else { return };
    let channels = channels(s);
    let queues = m.links.as_ref().map_or(channels, |names| (2 * names.len() as u64).min(channels));
    let flows = m.flows.as_ref().map_or(s.flows.len(), Vec::len) as u64;
    let samples = (s.duration_ns / dt.max(1)).saturating_add(1);
    let row = queues.saturating_mul(QueueSeries::ROW_BYTES as u64).saturating_add(flows.saturating_mul(FlowSeries::ROW_BYTES as u64));
    // The series grow by doubling; the results take them over without a copy.
    // Each sampled queue's busy time at the previous sample is kept besides.
    let bytes = grown(samples, 1).saturating_mul(row).saturating_add(queues.saturating_mul(size_of::<u64>() as u64));
    est.record(
        "monitor.sample_interval_ns",
        samples.saturating_mul(queues.saturating_mul(QueueSeries::COLUMNS).saturating_add(flows.saturating_mul(FlowSeries::COLUMNS))),
    );
    est.add(
        "monitor.sample_interval_ns",
        format!("{samples} samples of {queues} queues and {flows} flows"),
        bytes,
        "sample less often (monitor.sample_interval) or fewer links and flows (monitor.links, monitor.flows)",
    );
}

/// What crosses one channel, from the routes of every flow and source.
#[derive(Clone, Debug, Default)]
pub(super) struct Crossing {
    /// Largest and smallest packet that crosses it, and who sends the largest.
    pub max_pkt: u32,
    pub min_pkt: u32,
    pub max_from: String,
    /// Sum of the largest windows of the TCP connections whose data or ACKs cross it.
    windows: u64,
    /// Largest bursts of the TCP senders whose first hop it is (they put a
    /// burst in its buffer at once).
    local_bursts: u64,
    /// For each bottleneck (the slowest channel of a TCP connection's data
    /// path) whose traffic crosses it, the largest share of the bottleneck's
    /// bit rate that arrives here (1 for data, ACK size / packet size for ACKs).
    bottlenecks: BTreeMap<u32, f64>,
    /// Bit rate of the UDP sources that cross it.
    udp_bps: f64,
    /// UDP or web traffic crosses it: nothing bounds what can wait in its buffer.
    unbounded: bool,
    /// Packets of no bounded size cross it (exponential UDP sizes, whose mean `max_pkt` holds).
    unbounded_sizes: bool,
    /// The channels just before it on the paths that cross it (each can hand
    /// it a packet at the same instant).
    before: BTreeSet<u32>,
}

impl Crossing {
    fn packet(&mut self, size: u32, from: &str) {
        if size > self.max_pkt {
            self.max_pkt = size;
            self.max_from = from.to_string();
        }
        self.min_pkt = if self.min_pkt == 0 { size } else { self.min_pkt.min(size) };
    }

    fn tcp(&mut self, bottleneck: u32, share: f64, window: u64) {
        let s = self.bottlenecks.entry(bottleneck).or_insert(0.0);
        *s = s.max(share);
        self.windows = self.windows.saturating_add(window);
    }

    /// The largest packet that can cross it; None when none crosses it or no size bounds them.
    pub fn largest_packet(&self) -> Option<u32> {
        (self.max_pkt > 0 && !self.unbounded_sizes).then_some(self.max_pkt)
    }

    /// Bits per second that can arrive at most.
    fn arrival_bps(&self, channels: &[Channel]) -> f64 {
        self.udp_bps + self.bottlenecks.iter().map(|(&b, share)| channels[b as usize].rate_bps as f64 * share).sum::<f64>()
    }
}

/// A TCP connection (or `copies` alike, the objects of a web group in
/// transfer between one server and one client) on its paths.
struct Connection<'a> {
    tcp: &'a TcpConfig,
    who: String,
    copies: u64,
    data: Vec<u32>,
    ack: Vec<u32>,
    /// The slowest channel of the data path, and the packets the path holds
    /// with that channel's buffer: bandwidth-delay product + buffer.
    bottleneck: u32,
    holds: u64,
    /// Most segments it ever has to send at once (a web object's size).
    most: u64,
    /// The web group it belongs to, if any.
    web: Option<usize>,
}

impl<'a> Connection<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(tcp: &'a TcpConfig, who: String, copies: u64, data: Vec<u32>, ack: Vec<u32>, channels: &[Channel], most: u64, web: Option<usize>) -> Option<Self> {
        let &bottleneck = data.iter().min_by_key(|&&c| channels[c as usize].rate_bps)?;
        let rate = u128::from(channels[bottleneck as usize].rate_bps);
        let rtt = data.iter().chain(&ack).map(|&c| u128::from(channels[c as usize].delay)).sum::<u128>();
        let bdp = rate.saturating_mul(rtt).div_ceil(8 * u128::from(tcp.packet_size) * u128::from(NS_PER_SEC));
        let buffer = match channels[bottleneck as usize].queue.limit {
            QueueLimit::Packets(n) => u128::from(n),
            QueueLimit::Bytes(b) => u128::from(b) / u128::from(tcp.packet_size),
        };
        let holds = bdp.saturating_add(buffer).min(u128::from(u64::MAX)) as u64;
        Some(Connection { tcp, who, copies, data, ack, bottleneck, holds, most, web })
    }

    /// Its largest window when `sharing` connections share its bottleneck:
    /// twice its share of what the path holds (AIMD swings between half its
    /// window and all of it, and unequal RTTs skew the shares), plus its
    /// initial window; at most `max_cwnd` and what it has to send.
    fn window(&self, sharing: u64) -> u64 {
        let share = (2 * u128::from(self.holds)).div_ceil(u128::from(sharing.max(1))) + u128::from(self.tcp.init_cwnd);
        share.min(u128::from(self.tcp.max_cwnd)).min(u128::from(self.most)) as u64
    }
}

/// Stage 2, with the network built: windows, buffers, wires and traces; and
/// what crosses each channel (for the check of byte limits).
pub(super) fn with_routes(s: &Scenario, topo: &Topology, ends: &Endpoints, routes: &Routes, est: &mut MemoryEstimate) -> Vec<Crossing> {
    let channels = &topo.channels;
    let path = |from: u32, to: u32| routes.path(from, to, |c| channels[c as usize].to).unwrap_or_default();
    let mut conns = Vec::new();
    for (i, (f, &(src, dst))) in s.flows.iter().zip(&ends.flows).enumerate() {
        conns.extend(Connection::new(&f.tcp, format!("flows[{i}]"), 1, path(src, dst), path(dst, src), channels, u64::MAX, None));
    }
    for (g, (w, (clients, servers))) in s.web.iter().zip(ends.web_clients.iter().zip(&ends.web_servers)).enumerate() {
        // Every object of every session's page in transfer at once, each of the
        // mean size twice over (the sizes are heavy-tailed).
        let open = u64::from(w.sessions).saturating_mul(u64::from(w.objects_per_page));
        let pairs = (clients.len() * servers.len()) as u64;
        let most = (2.0 * w.object_mean_segments).ceil().min(u64::MAX as f64) as u64;
        let mut rtt = SimTime::MAX;
        for &c in clients {
            for &sv in servers {
                let (data, ack) = (path(sv, c), path(c, sv));
                rtt = rtt.min(data.iter().chain(&ack).fold(0, |t: SimTime, &ch| t.saturating_add(channels[ch as usize].delay)));
                conns.extend(Connection::new(&w.tcp, format!("web[{g}]"), open.div_ceil(pairs), data, ack, channels, most, Some(g)));
            }
        }
        web_completions(s, g, w, rtt, est);
    }
    let mut sharing = vec![0u64; channels.len()];
    for c in &conns {
        sharing[c.bottleneck as usize] = sharing[c.bottleneck as usize].saturating_add(c.copies);
    }
    let mut cross = vec![Crossing::default(); channels.len()];
    let mut state = vec![0u64; s.web.len() + 1];
    let mut burst = 0u64;
    for c in &conns {
        let w = c.window(sharing[c.bottleneck as usize]);
        let windows = w.saturating_mul(c.copies);
        burst = burst.max(w);
        let group = c.web.map_or(0, |g| g + 1);
        state[group] = state[group].saturating_add(c.copies.saturating_mul(window_bytes(c.tcp, w)));
        if let Some(&first) = c.data.first() {
            let x = &mut cross[first as usize];
            x.local_bursts = x.local_bursts.saturating_add(windows);
        }
        let ack_share = f64::from(c.tcp.ack_size) / f64::from(c.tcp.packet_size);
        for (path, size, share) in [(&c.data, c.tcp.packet_size, 1.0), (&c.ack, c.tcp.ack_size, ack_share)] {
            for (i, &ch) in path.iter().enumerate() {
                let x = &mut cross[ch as usize];
                x.packet(size, &c.who);
                x.tcp(c.bottleneck, share, windows);
                x.unbounded |= c.web.is_some();
                if i > 0 {
                    x.before.insert(path[i - 1]);
                }
            }
        }
    }
    est.add("flows", "the TCP flows' windows", state[0], "a smaller tcp.max_cwnd");
    for (g, &bytes) in state[1..].iter().enumerate() {
        est.add(format!("web[{g}].sessions"), "the web transfers' windows", bytes, "fewer sessions or objects per page");
    }
    for (i, (u, &(src, dst))) in s.udp.iter().zip(&ends.udp).enumerate() {
        let (smallest, largest) = match u.sizes {
            SizeDist::Fixed => (u.packet_size, u.packet_size),
            SizeDist::Exponential => (1, u.packet_size),
            SizeDist::Mix => (MIX_SIZES[0].0, MIX_SIZES[MIX_SIZES.len() - 1].0),
        };
        let p = path(src, dst);
        for (j, &c) in p.iter().enumerate() {
            let x = &mut cross[c as usize];
            if j > 0 {
                x.before.insert(p[j - 1]);
            }
            x.packet(largest, &format!("udp[{i}]"));
            x.min_pkt = x.min_pkt.min(smallest);
            x.udp_bps += u.rate_bps as f64;
            x.unbounded = true;
            x.unbounded_sizes |= u.sizes == SizeDist::Exponential;
        }
    }
    // The scratch buffer of the packets an endpoint sends at once.
    est.add("flows", "the packets of the largest burst", grown(burst, size_of::<Packet>()), "a smaller tcp.max_cwnd or init_cwnd");
    buffers(s, topo, &cross, &sharing, est);
    traces(s, topo, ends, routes, est);
    cross
}

/// Bytes of a flow's window state: scoreboard, out-of-order blocks at the
/// receiver, packets held by the send overhead.
fn window_bytes(tcp: &TcpConfig, w: u64) -> u64 {
    let held = if tcp.overhead_ns > 0 { size_of::<Packet>() } else { 0 };
    grown(w, 1 + held).saturating_add(grown(w / 2, size_of::<SackBlock>()))
}

/// Each channel's buffer and wire. Packets wait in a buffer when they arrive
/// faster than the link sends them: a sender's burst on its first hop, and,
/// when the channel is the bottleneck of TCP connections that cross it or the
/// traffic that crosses it can arrive faster than its rate, all the windows
/// that cross it (or the whole buffer, for UDP and web traffic); otherwise
/// about one packet per link into its node. A wire holds
/// the packets that enter it over one propagation delay (or the whole run, if
/// shorter), at the lesser of the link's rate and the rate they can arrive at. Both are at most what the
/// limit allows.
fn buffers(s: &Scenario, topo: &Topology, cross: &[Crossing], sharing: &[u64], est: &mut MemoryEstimate) {
    let channels = &topo.channels;
    // The packets waiting in buffers, and those in flight on the wires (a long delay at a
    // high rate): two parts, each naming the field of its largest channel.
    let (mut buffers, mut wires) = ((0u64, String::new(), 0u64), (0u64, String::new(), 0u64));
    for (c, (ch, x)) in channels.iter().zip(cross).enumerate() {
        if x.max_pkt == 0 {
            continue;
        }
        let pkt = u64::from(x.min_pkt.max(1));
        // A multi-class queue has a buffer of the limit per class.
        let classes = ch.queue.classes.as_ref().map_or(1, |m| m.classes() as u64);
        let limit = classes.saturating_mul(match ch.queue.limit {
            QueueLimit::Packets(n) => u64::from(n),
            QueueLimit::Bytes(b) => b / pkt,
        });
        if let Some(m) = &ch.queue.classes {
            // One delay ratio per class pair and window of K departures, over the whole run.
            let departures = (ch.rate_bps as f64 * s.duration_ns as f64 / (8.0 * pkt as f64 * NS_PER_SEC as f64)).min(u64::MAX as f64) as u64;
            let ratios = (departures / u64::from(m.windows.k())).saturating_mul(classes - 1);
            est.add(
                s.queue_field(c / 2, c % 2 == 0) + ".sched.window_k",
                "the per-window delay ratios",
                grown(ratios, size_of::<f64>()),
                "a larger sched.window_k",
            );
            if m.trace.limit() > 0 {
                est.add(
                    s.queue_field(c / 2, c % 2 == 0) + ".sched.trace_packets",
                    "the per-packet waits",
                    grown(u64::from(m.trace.limit()).min(departures), ClassTrace::ROW_BYTES),
                    "fewer sched.trace_packets",
                );
            }
        }
        let arrival = x.arrival_bps(channels);
        // TCP fills the buffer of its bottleneck (it probes until a loss there).
        let backlog = if arrival > ch.rate_bps as f64 || sharing[c] > 0 {
            if x.unbounded {
                limit
            } else {
                x.windows
            }
        } else {
            x.before.len() as u64 + 1
        };
        let queued = grown(limit.min(x.local_bursts.saturating_add(backlog)), BYTES_PER_PACKET);
        let enter_bps = arrival.min(ch.rate_bps as f64);
        // No more than enter over the run: a delay longer than the run holds what it sends.
        let filled_ns = ch.delay.min(s.duration_ns);
        let flying = (enter_bps * filled_ns as f64 / (8.0 * pkt as f64 * NS_PER_SEC as f64)).min(u64::MAX as f64) as u64 + 1;
        let flying = grown(flying, BYTES_PER_PACKET + EVENT_BYTES);
        if queued > buffers.0 {
            let unit = if matches!(ch.queue.limit, QueueLimit::Bytes(_)) { "bytes" } else { "pkts" };
            buffers.1 = format!("{}.limit_{unit}", s.queue_field(c / 2, c % 2 == 0));
            buffers.0 = queued;
        }
        if flying > wires.0 {
            wires = (flying, s.delay_field(c / 2), wires.2);
        }
        buffers.2 = buffers.2.saturating_add(queued);
        wires.2 = wires.2.saturating_add(flying);
    }
    est.add(buffers.1, format!("the buffers of {} queues", channels.len()), buffers.2, "smaller buffers (queue.limit_pkts, limit_bytes)");
    est.add(wires.1, format!("the packets in flight on {} channels", channels.len()), wires.2, "shorter delays or slower links");
}

/// The per-packet traces: one row per RTT sample (ACK) of each traced flow and
/// per loss, one per drop at the traced link, over the whole run.
fn traces(s: &Scenario, topo: &Topology, ends: &Endpoints, routes: &Routes, est: &mut MemoryEstimate) {
    let m = &s.monitor;
    if m.trace_flows.is_empty() {
        return;
    }
    let channels = &topo.channels;
    let secs = u128::from(s.duration_ns);
    let per_run =
        |rate: u64, pkt: u32| (u128::from(rate).saturating_mul(secs) / (8 * u128::from(pkt.max(1)) * u128::from(NS_PER_SEC))).min(u128::from(u64::MAX)) as u64;
    let mut rows = 0u64;
    let mut bytes = 0u64;
    let mut first = None;
    // Unknown flows are refused when the monitors are built.
    for (spec, &(src, dst)) in m.trace_flows.iter().filter_map(|&f| s.flows.get(f as usize).zip(ends.flows.get(f as usize))) {
        let data = routes.path(src, dst, |c| channels[c as usize].to).unwrap_or_default();
        let rate = data.iter().map(|&c| channels[c as usize].rate_bps).min().unwrap_or(0);
        let acks = per_run(rate, spec.tcp.packet_size);
        first.get_or_insert(acks);
        rows = rows.saturating_add(acks);
        bytes = bytes.saturating_add(grown(acks, Trace::RTT_ROW_BYTES + Trace::EVENT_ROW_BYTES));
    }
    // Drops at the traced link: counted like the first traced flow's packets.
    let drops = if m.trace_link.is_some() { first.unwrap_or(0) } else { 0 };
    bytes = bytes.saturating_add(grown(drops, Trace::EVENT_ROW_BYTES));
    est.record(
        "monitor.trace_flows",
        rows.saturating_mul(Trace::RTT_COLUMNS + Trace::EVENT_COLUMNS).saturating_add(drops.saturating_mul(Trace::EVENT_COLUMNS)),
    );
    est.add("monitor.trace_flows", format!("up to {rows} traced RTT samples"), bytes, "trace fewer flows or a shorter run");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(human_bytes(1000), "1000 B");
        assert_eq!(human_bytes(1536), "1.50 KiB");
        assert_eq!(human_bytes(160 << 30), "160 GiB");
        assert_eq!(human_bytes(u64::MAX), "16.0 EiB");
    }

    #[test]
    fn buffers_grow_to_the_next_power_of_two() {
        assert_eq!(grown(0, 8), 8);
        assert_eq!(grown(1000, 72), 1024 * 72);
        assert_eq!(grown(u64::MAX, 2), u64::MAX);
    }

    #[test]
    fn the_refusal_names_the_largest_part() {
        let mut e = MemoryEstimate::default();
        e.add("flows", "3 TCP flows", 100, "fewer flows");
        e.add("monitor.sample_interval_ns", "7 samples", 2 << 30, "sample less often");
        e.add("links", "a network", 0, "never shown");
        assert_eq!(e.parts.len(), 2);
        assert!(e.check(3 << 30).is_ok());
        let err = e.check(1 << 30).unwrap_err();
        assert_eq!(err.field, "monitor.sample_interval_ns");
        assert_eq!(
            err.message,
            "7 samples need 2.00 GiB (the run 2.00 GiB in all), more than the memory limit 1.00 GiB; sample less often, or raise the limit"
        );
        // Recorded values cost the caller what it says, under the field that records most.
        e.record("monitor.trace_flows", 10);
        e.record("monitor.sample_interval_ns", 1000);
        let e = e.with_output(40);
        assert_eq!(e.parts.last().map(|p| (p.field.as_str(), p.bytes)), Some(("monitor.sample_interval_ns", 40_400)));
    }

    #[test]
    fn the_output_is_named_after_the_field_that_records_most() {
        // 60 is less than the 90 recorded before it, but more than either of those.
        let mut e = MemoryEstimate::default();
        e.record("flows", 50);
        e.record("links", 40);
        e.record("monitor.trace_flows", 60);
        assert_eq!(e.recorded_values, 150);
        assert_eq!(e.total_with_output(2), 300);
        let e = e.with_output(2);
        assert_eq!(e.parts.last().map(|p| (p.field.as_str(), p.bytes)), Some(("monitor.trace_flows", 300)));
        assert_eq!(e.total(), 300);
    }

    #[test]
    fn a_dumbbell_is_counted_as_it_expands() {
        let s = crate::presets::canonical_dumbbell(3, 1);
        let d = s.dumbbell.as_ref().unwrap();
        let (nodes, links) = d.expand();
        assert_eq!(d.graph_size(), (nodes.len() as u64, links.len() as u64));
        assert_eq!(channels(&s), 2 * links.len() as u64);
    }

    #[test]
    fn a_connection_holds_its_share_of_its_path() {
        // 10 Mbit/s, 50 ms there and 50 back, 1500-byte packets: BDP 84 packets; buffer 50.
        let tcp = TcpConfig::default();
        let c = Connection { tcp: &tcp, who: String::new(), copies: 1, data: vec![], ack: vec![], bottleneck: 0, holds: 134, most: u64::MAX, web: None };
        assert_eq!(c.window(1), 2 * 134 + 2);
        assert_eq!(c.window(10), 27 + 2);
        // At most max_cwnd, and at most what it has to send.
        let small = TcpConfig { max_cwnd: 100, ..TcpConfig::default() };
        assert_eq!(Connection { tcp: &small, who: String::new(), data: vec![], ack: vec![], ..c }.window(1), 100);
        assert_eq!(Connection { most: 12, ..c }.window(1), 12);
    }
}
