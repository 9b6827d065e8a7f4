//! The scenario: everything a run depends on besides nothing (a run is a pure
//! function of the scenario, whose `seed` is one of its fields).
//!
//! This is the wire format between the Python front (which parses units such as
//! "150Mbps" and validates with pydantic) and the core: plain JSON with rates in
//! bits/s, times in integer nanoseconds, sizes in bytes or packets. The core
//! validates again, so a scenario that reaches [`crate::engine::World`] can never
//! make the simulator panic; every error names the field.
//!
//! A topology is either an explicit graph (`nodes` and `links`) or a `dumbbell`
//! that expands into one (see [`DumbbellSpec::expand`]).

use serde::{Deserialize, Serialize};

use crate::error::{check, ConfigError};
use crate::external::ExternalSpec;
use crate::net::burst_loss::BurstLossConfig;
use crate::queue::codel::CodelConfig;
use crate::queue::jcc::JccQueueConfig;
use crate::queue::pi::PiConfig;
use crate::queue::pie::PieConfig;
use crate::queue::red::RedConfig;
use crate::queue::step::StepConfig;
use crate::queue::xcp::XcpQueueConfig;
use crate::tcp::cc::compound::CompoundConfig;
use crate::tcp::cc::cubic::CubicConfig;
use crate::tcp::cc::dctcp::DctcpConfig;
use crate::tcp::cc::fast::FastConfig;
use crate::tcp::cc::hstcp::HstcpConfig;
use crate::tcp::cc::illinois::IllinoisConfig;
use crate::tcp::cc::jcc::JccConfig;
use crate::tcp::cc::pert::PertConfig;
use crate::tcp::cc::pert_adaptive::PertAdaptiveConfig;
use crate::tcp::cc::pert_pi::PertPiConfig;
use crate::tcp::cc::scalable::ScalableConfig;
use crate::tcp::cc::surathkal::SurathkalConfig;
use crate::tcp::cc::vegas::VegasConfig;
use crate::tcp::{AckPolicy, EcnFeedback, TcpConfig, MAX_DELAYED_ACK_TIMEOUT_NS, MAX_RTO_FLOOR_NS, MAX_WINDOW_BYTES, MIN_RTO_FLOOR_NS};
use crate::time::{SimTime, NS_PER_SEC};
use crate::traffic::video::VideoSpec;
use crate::traffic::web::WebSpec;

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
    /// Every transmission's end (the convention of every committed report).
    #[default]
    Always,
    /// Only where something happens then: a loss draw, the next packet of the
    /// queue to start, a wire holding packets back after a decrease of its
    /// delay. Other packets' arrivals are scheduled when their transmission
    /// starts, which changes only the order of events due at the same nanosecond.
    WhenNeeded,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MeasureWindow {
    pub start_ns: SimTime,
    pub end_ns: SimTime,
}

/// A full-duplex point-to-point link: one output queue per direction.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Name used in results; default "a-b".
    #[serde(default)]
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    pub rate_bps: u64,
    pub delay_ns: SimTime,
    /// Bernoulli loss probability of each packet sent a -> b (ns-2's error model
    /// on a link: applied as the packet leaves the transmitter).
    #[serde(default)]
    pub loss: f64,
    /// Loss probability of the b -> a direction.
    #[serde(default)]
    pub loss_ba: f64,
    /// Gilbert-Elliott burst losses on each direction (data and ACKs), each
    /// with its own chain, on top of `loss`/`loss_ba`; none by default.
    #[serde(default)]
    pub burst_loss: Option<BurstLossConfig>,
    /// Queue of the a -> b direction.
    #[serde(default)]
    pub queue: QueueSpec,
    /// Queue of the b -> a direction; default: the same as `queue`.
    #[serde(default)]
    pub queue_ba: Option<QueueSpec>,
}

/// Which discipline, and the buffer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    /// One of [`QueueSpec::KINDS`]: "droptail", the RED family ("red", "ared",
    /// "reared", "fared", "cared", "feng", "nlred"), "pi", "pie", "codel" or
    /// "jcc-red" (RED that stamps JCC probes, Hua 2002).
    /// "step" (DCTCP's marking at a threshold K), "xcp" (XCP's router over a
    /// DropTail FIFO, Katabi 2002); or "py", a discipline written in Python
    /// named by `target` and supplied by the caller
    /// ([`crate::external::Extensions`]).
    #[serde(default = "QueueSpec::default_kind")]
    pub kind: String,
    /// Kind "py" only: the class, `module:Class` (see [`ExternalSpec`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Buffer in packets (exclusive with `limit_bytes`).
    #[serde(default)]
    pub limit_pkts: Option<u32>,
    /// Buffer in bytes.
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// Parameters of the RED family (every kind but droptail reads them).
    #[serde(default)]
    pub red: RedConfig,
    /// PI parameters (kind "pi").
    #[serde(default)]
    pub pi: PiConfig,
    /// PIE parameters (kind "pie").
    #[serde(default)]
    pub pie: PieConfig,
    /// CoDel parameters (kind "codel").
    #[serde(default)]
    pub codel: CodelConfig,
    /// JCC router parameters (kind "jcc-red", which also reads `red`).
    #[serde(default)]
    pub jcc: JccQueueConfig,
    /// Step marking threshold (kind "step", DCTCP's switch).
    #[serde(default)]
    pub step: StepConfig,
    /// XCP router parameters (kind "xcp").
    #[serde(default)]
    pub xcp: XcpQueueConfig,
    /// Classes and weights of the multi-class kinds ("priority", "wtp", "swtp", "bpr").
    #[serde(default)]
    pub sched: SchedConfig,
}

/// The multi-class schedulers' parameters (Hua's thesis Chapter 5; see
/// [`crate::queue::classes`]). Each class has its own buffer of the queue's limit.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SchedConfig {
    /// b_i of class i (class 0 the lowest priority), strictly increasing; the
    /// number of entries is the number of classes. Default [1, 2, 4]: three
    /// classes with the target delay ratio b_{i+1}/b_i = 2.0 of the thesis's
    /// Figs 5.4, 5.5 and Table 5.1 (section 5.4). Strict priority uses only
    /// their number.
    #[serde(default = "SchedConfig::default_weights")]
    pub weights: Vec<f64>,
    /// S-WTP's global update (thesis section 5.3); off only to show why it exists.
    #[serde(default = "SchedConfig::default_global_update")]
    pub global_update: bool,
    /// K, departures per window of the windowed delay ratios (Fig 5.4 uses 500 to 10000).
    #[serde(default = "SchedConfig::default_window_k")]
    pub window_k: u32,
    /// Departures whose waits are kept one by one from the measurement
    /// window's start (Fig 5.3's packet-level view; `Results::class_traces`).
    /// Default 0: none.
    #[serde(default)]
    pub trace_packets: u32,
}

impl SchedConfig {
    fn default_weights() -> Vec<f64> {
        vec![1.0, 2.0, 4.0]
    }
    fn default_global_update() -> bool {
        true
    }
    fn default_window_k() -> u32 {
        1000
    }

    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        crate::queue::classes::validate_weights(&format!("{path}.weights"), &self.weights)?;
        check::positive(&format!("{path}.window_k"), self.window_k as f64)
    }
}

impl Default for SchedConfig {
    fn default() -> Self {
        SchedConfig { weights: Self::default_weights(), global_update: true, window_k: Self::default_window_k(), trace_packets: 0 }
    }
}

impl QueueSpec {
    pub const KINDS: [&'static str; 18] = [
        "droptail", "red", "ared", "reared", "fared", "cared", "feng", "nlred", "pi", "pie", "codel", "jcc-red", "step", "priority", "wtp", "swtp", "bpr",
        "xcp",
    ];
    /// The kind of a discipline written in Python (not one of [`QueueSpec::KINDS`],
    /// the core's own): supplied by the caller, named by `target`.
    pub const EXTERNAL_KIND: &'static str = "py";
    /// The multi-class kinds (per-class buffers, a scheduler; see [`crate::queue::classes`]).
    pub const CLASS_KINDS: [&'static str; 4] = ["priority", "wtp", "swtp", "bpr"];

    /// The number of classes of a multi-class queue, none for a single FIFO.
    pub fn classes(&self) -> Option<usize> {
        Self::CLASS_KINDS.contains(&self.kind.as_str()).then_some(self.sched.weights.len())
    }
    /// Buffer when none is given, in packets (ns-2's `Queue limit_` default is 50;
    /// ns-3's 100p; pertlab uses 1000 so that an unconfigured access link does not
    /// become an accidental bottleneck).
    pub const DEFAULT_LIMIT_PKTS: u32 = 1000;

    fn default_kind() -> String {
        "droptail".to_string()
    }
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            kind: Self::default_kind(),
            target: None,
            limit_pkts: None,
            limit_bytes: None,
            red: RedConfig::default(),
            pi: PiConfig::default(),
            pie: PieConfig::default(),
            codel: CodelConfig::default(),
            jcc: JccQueueConfig::default(),
            step: StepConfig::default(),
            xcp: XcpQueueConfig::default(),
            sched: SchedConfig::default(),
        }
    }
}

/// A dumbbell: `pairs` senders s0..s{n-1} on router r0, receivers d0..d{n-1} on
/// router r1, one bottleneck r0 - r1. Each host has its own access link, so flows
/// can have individual RTTs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    pub pairs: u32,
    pub bottleneck_rate_bps: u64,
    /// One-way propagation delay of the bottleneck.
    pub bottleneck_delay_ns: SimTime,
    /// Queue of the bottleneck in the r0 -> r1 direction.
    #[serde(default)]
    pub bottleneck_queue: QueueSpec,
    /// Queue of the bottleneck in the r1 -> r0 direction (ACKs); default DropTail
    /// with the same limit.
    #[serde(default)]
    pub bottleneck_queue_reverse: Option<QueueSpec>,
    /// Bernoulli loss on the bottleneck, r0 -> r1 (data) direction only.
    #[serde(default)]
    pub bottleneck_loss: f64,
    pub access_rate_bps: u64,
    /// One-way delay of each sender's access link: one value for all, or one per pair.
    pub sender_access_delay_ns: Vec<SimTime>,
    /// One-way delay of each receiver's access link: one value for all, or one per pair.
    pub receiver_access_delay_ns: Vec<SimTime>,
    /// Queue of the access links (both directions).
    #[serde(default)]
    pub access_queue: QueueSpec,
}

/// Congestion controller of a flow and its parameters.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum CcSpec {
    #[default]
    Reno,
    Vegas(VegasConfig),
    Pert(PertConfig),
    /// PERT emulating PI (SIGCOMM 2007 Section 6).
    #[serde(rename = "pert-pi")]
    PertPi(PertPiConfig),
    /// Adaptive PERT (Kotla 2008): alpha/beta adaptation, three modes.
    #[serde(rename = "pert-adaptive")]
    PertAdaptive(PertAdaptiveConfig),
    /// HighSpeed TCP (RFC 3649).
    Hstcp(HstcpConfig),
    /// CUBIC (RFC 9438).
    Cubic(CubicConfig),
    /// Compound TCP (Tan et al., INFOCOM 2006).
    Compound(CompoundConfig),
    /// TCP-Illinois (Liu, Basar, Srikant 2006; Linux defaults).
    Illinois(IllinoisConfig),
    /// FAST TCP (Jin, Wei, Low, INFOCOM 2004).
    Fast(FastConfig),
    /// Joint Congestion Control (Hua 2002, Chapter 4): probes and AIED; needs "jcc-red" routers.
    Jcc(JccConfig),
    /// TCP Surathkal (Tahiliani 2013 Ch. 4.3), with XECN feedback.
    Surathkal(SurathkalConfig),
    /// DCTCP (RFC 8257).
    Dctcp(DctcpConfig),
    /// Scalable TCP (Kelly 2003).
    Scalable(ScalableConfig),
    /// TCP Westwood+ (Grieco and Mascolo 2004; Linux).
    Westwood,
    /// XCP's end host (Katabi 2002); needs an "xcp" queue on its data path.
    Xcp,
    /// A window set from outside between steps (a learning agent, `pertlab.gym`).
    Agent,
    /// A controller written in Python (`module:Class`), supplied by the caller
    /// through [`crate::external::Extensions`]; long flows only.
    Py(ExternalSpec),
}

impl CcSpec {
    /// The core's own controllers; a "py" controller (`CcSpec::Py`) is supplied by the caller.
    pub const KINDS: [&'static str; 17] = [
        "reno",
        "vegas",
        "pert",
        "pert-pi",
        "pert-adaptive",
        "hstcp",
        "cubic",
        "compound",
        "illinois",
        "fast",
        "jcc",
        "surathkal",
        "dctcp",
        "scalable",
        "westwood",
        "xcp",
        "agent",
    ];

    /// Validate the parameters of the `cc` field of the flow or web group at `path`.
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        let path = format!("{path}.cc");
        match self {
            CcSpec::Reno | CcSpec::Westwood | CcSpec::Xcp | CcSpec::Agent | CcSpec::Surathkal(_) => Ok(()),
            CcSpec::Dctcp(c) => c.validate(&path),
            CcSpec::Scalable(c) => c.validate(&path),
            CcSpec::Vegas(c) => c.validate(&path),
            CcSpec::Pert(c) => c.validate(&path),
            CcSpec::PertPi(c) => c.validate(&path),
            CcSpec::PertAdaptive(c) => c.validate(&path),
            CcSpec::Hstcp(c) => c.validate(&path),
            CcSpec::Cubic(c) => c.validate(&path),
            CcSpec::Compound(c) => c.validate(&path),
            CcSpec::Illinois(c) => c.validate(&path),
            CcSpec::Fast(c) => c.validate(&path),
            CcSpec::Jcc(c) => c.validate(&path),
            CcSpec::Py(c) => c.validate(&path),
        }
    }
}

/// A long-lived bulk TCP flow.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub src: String,
    pub dst: String,
    #[serde(default)]
    pub cc: CcSpec,
    /// Fixed start time (exclusive with `start_window_ns`); default 0.
    #[serde(default)]
    pub start_ns: Option<SimTime>,
    /// Start drawn uniformly in [lo, hi] from the run's seed.
    #[serde(default)]
    pub start_window_ns: Option<[SimTime; 2]>,
    /// The application stops at this time: no new data afterwards (outstanding
    /// data is still delivered). Default: never. Must not be before the start.
    #[serde(default)]
    pub stop_ns: Option<SimTime>,
    /// Intervals `[start, end)` during which the application gives no new data:
    /// the flow leaves at `start` (outstanding data is still delivered and
    /// repaired) and rejoins at `end` (with the restart after idle of
    /// [`crate::tcp::sender::TcpSender::resume`]). Sorted, non-overlapping, each
    /// with start < end, none before the (latest) start of the flow, each ending
    /// before `stop_ns`. Default: none.
    #[serde(default)]
    pub off_ns: Vec<[SimTime; 2]>,
    /// Name of the flow's group in results (`FlowResult::label`, the rows of
    /// `Results::controllers` and of `Results::queue_positions`); default the
    /// controller's name ("reno", "pert", ...).
    #[serde(default)]
    pub label: Option<String>,
    /// Service class of the flow's data and ACKs at multi-class queues (0 = lowest priority).
    #[serde(default)]
    pub class: u8,
    #[serde(default)]
    pub tcp: TcpConfig,
    /// A live video source (Qian 2011): the application writes at this
    /// constant rate instead of having unlimited data. Default: bulk data.
    #[serde(default)]
    pub video: Option<VideoSpec>,
    /// A greedy flow that measures the achievable throughput T of the video
    /// streams of its controller (Qian 2011, III.A.1): their `video_t_mu` is
    /// the mean goodput of the run's probes of that controller over the video
    /// rate ([`crate::traffic::video::t_over_mu`]). Cannot carry a video.
    #[serde(default)]
    pub probe: bool,
}

/// Arrival process of a UDP source.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Constant bit rate: packets evenly spaced.
    Cbr,
    /// ns-2's CBR with `random_ 1` (`CBR_Traffic::next_interval`): each gap is
    /// the constant interval plus zero-mean uniform noise, interval x (1 + U(-0.5,
    /// 0.5)), so sources of one rate do not stay in phase. The TCP evaluation
    /// suite's voice and streaming sources (Tahiliani 2013, Section 4.4.2).
    #[serde(rename = "cbr_random")]
    CbrRandom,
    /// Poisson: exponential inter-arrival times.
    Poisson,
    /// Pareto inter-arrival times of shape `pareto_shape` (Hua's thesis section
    /// 5.4 source, read as Pareto gaps as in Dovrolis et al.: spec section 4.4).
    Pareto,
    /// ns-2's Pareto on/off source (Application/Traffic/Pareto; the other
    /// reading of the thesis's source, spec section 4.4): bursts and idle
    /// periods of Pareto lengths (shape `pareto_shape`, means `burst_ns` and
    /// `idle_ns`), packets evenly spaced at the peak rate
    /// `rate_bps` (burst + idle) / burst during a burst.
    #[serde(rename = "pareto_onoff")]
    ParetoOnOff,
}

/// Packet sizes of a UDP source.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SizeDist {
    Fixed,
    /// Exponential with mean `packet_size` (rounded, at least 1 byte).
    Exponential,
    /// Hua's thesis section 5.4 mix: 40 % 100 B, 40 % 500 B, 20 % 1000 B (mean
    /// 440 B; `packet_size` is not used).
    Mix,
}

/// A UDP source: open-loop packets at a mean rate.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    pub src: String,
    pub dst: String,
    /// Mean offered load in bits/s (of the sizes on the wire).
    pub rate_bps: u64,
    /// Packet size, or mean size, in bytes.
    pub packet_size: u32,
    #[serde(default = "UdpSpec::default_arrivals")]
    pub arrivals: Arrivals,
    #[serde(default = "UdpSpec::default_sizes")]
    pub sizes: SizeDist,
    /// ECN-capable (ECT) datagrams, so that an ECN-enabled AQM marks them.
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub start_ns: SimTime,
    #[serde(default)]
    pub stop_ns: Option<SimTime>,
    /// Service class of the datagrams at multi-class queues (0 = lowest priority).
    #[serde(default)]
    pub class: u8,
    /// Shape of the Pareto gaps (arrivals "pareto"); the thesis's 1.9 (section 5.4).
    #[serde(default = "UdpSpec::default_pareto_shape")]
    pub pareto_shape: f64,
    /// Mean burst and idle lengths of arrivals "pareto_onoff" (ns-2's
    /// `burst_time_` and `idle_time_` defaults, 500 ms each).
    #[serde(default = "UdpSpec::default_on_off_ns")]
    pub burst_ns: SimTime,
    #[serde(default = "UdpSpec::default_on_off_ns")]
    pub idle_ns: SimTime,
}

impl UdpSpec {
    fn default_pareto_shape() -> f64 {
        1.9
    }
    fn default_on_off_ns() -> SimTime {
        500 * NS_PER_SEC / 1000
    }
    fn default_arrivals() -> Arrivals {
        Arrivals::Poisson
    }
    fn default_sizes() -> SizeDist {
        SizeDist::Fixed
    }
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
}

impl LinkSpec {
    pub fn display_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| format!("{}-{}", self.a, self.b))
    }

    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check::positive(&format!("{path}.rate_bps"), self.rate_bps as f64)?;
        check::in_range(&format!("{path}.loss"), self.loss, 0.0, 1.0)?;
        check::in_range(&format!("{path}.loss_ba"), self.loss_ba, 0.0, 1.0)?;
        if let Some(b) = &self.burst_loss {
            b.validate(&format!("{path}.burst_loss"))?;
        }
        if self.a == self.b {
            return Err(ConfigError::new(format!("{path}.b"), format!("a link joins two different nodes, both ends are `{}`", self.a)));
        }
        self.queue.validate(&format!("{path}.queue"))?;
        if let Some(q) = &self.queue_ba {
            q.validate(&format!("{path}.queue_ba"))?;
        }
        Ok(())
    }
}

impl QueueSpec {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        let external = self.kind == Self::EXTERNAL_KIND;
        if !external && !Self::KINDS.contains(&self.kind.as_str()) {
            return Err(ConfigError::new(
                format!("{path}.kind"),
                format!("unknown queue `{}`; allowed: {}, py (a discipline written in Python, with target)", self.kind, Self::KINDS.join(", ")),
            ));
        }
        match (&self.target, external) {
            (Some(target), true) => ExternalSpec { target: target.clone() }.validate(path)?,
            (None, true) => return Err(ConfigError::new(format!("{path}.target"), format!("a \"py\" queue names its class: {}", ExternalSpec::FORM))),
            (Some(_), false) => {
                return Err(ConfigError::new(format!("{path}.target"), format!("only a \"py\" queue names a class; this queue's kind is `{}`", self.kind)))
            }
            (None, false) => {}
        }
        match (self.limit_pkts, self.limit_bytes) {
            (Some(_), Some(_)) => return Err(ConfigError::new(format!("{path}.limit_bytes"), "give limit_pkts or limit_bytes, not both")),
            (Some(0), _) => return Err(ConfigError::new(format!("{path}.limit_pkts"), "a buffer holds at least 1 packet, got 0")),
            (_, Some(0)) => return Err(ConfigError::new(format!("{path}.limit_bytes"), "a buffer holds at least 1 byte, got 0")),
            _ => {}
        }
        match self.kind.as_str() {
            "droptail" | "py" => Ok(()),
            "pi" => self.pi.validate(&format!("{path}.pi")),
            "pie" => self.pie.validate(&format!("{path}.pie")),
            "codel" => self.codel.validate(&format!("{path}.codel")),
            "jcc-red" => {
                self.jcc.validate(&format!("{path}.jcc"))?;
                self.red.validate(&format!("{path}.red"))
            }
            "step" => self.step.validate(&format!("{path}.step")),
            "xcp" => self.xcp.validate(&format!("{path}.xcp")),
            "priority" | "wtp" | "swtp" | "bpr" => self.sched.validate(&format!("{path}.sched")),
            _ => self.red.validate(&format!("{path}.red")),
        }
    }
}

impl DumbbellSpec {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check::positive(&format!("{path}.pairs"), self.pairs as f64)?;
        check::positive(&format!("{path}.bottleneck_rate_bps"), self.bottleneck_rate_bps as f64)?;
        check::positive(&format!("{path}.access_rate_bps"), self.access_rate_bps as f64)?;
        check::in_range(&format!("{path}.bottleneck_loss"), self.bottleneck_loss, 0.0, 1.0)?;
        for (field, v) in [("sender_access_delay_ns", &self.sender_access_delay_ns), ("receiver_access_delay_ns", &self.receiver_access_delay_ns)] {
            if v.len() != 1 && v.len() != self.pairs as usize {
                return Err(ConfigError::new(
                    format!("{path}.{field}"),
                    format!("give one delay for all hosts or one per pair ({}), got {}", self.pairs, v.len()),
                ));
            }
        }
        self.bottleneck_queue.validate(&format!("{path}.bottleneck_queue"))?;
        if let Some(q) = &self.bottleneck_queue_reverse {
            q.validate(&format!("{path}.bottleneck_queue_reverse"))?;
        }
        self.access_queue.validate(&format!("{path}.access_queue"))
    }

    /// Nodes and links `expand` makes, counted without making them: 2 pairs + 2
    /// and 2 pairs + 1.
    pub fn graph_size(&self) -> (u64, u64) {
        let pairs = u64::from(self.pairs);
        (2 * pairs + 2, 2 * pairs + 1)
    }

    /// Nodes s0.., d0.., r0, r1 and links "s{i}-r0", "bottleneck", "r1-d{i}".
    pub fn expand(&self) -> (Vec<String>, Vec<LinkSpec>) {
        let n = self.pairs as usize;
        let mut nodes: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
        nodes.extend((0..n).map(|i| format!("d{i}")));
        nodes.push("r0".into());
        nodes.push("r1".into());
        let pick = |v: &Vec<SimTime>, i: usize| if v.len() == 1 { v[0] } else { v[i] };
        let access = |a: String, b: String, delay: SimTime| LinkSpec {
            name: None,
            a,
            b,
            rate_bps: self.access_rate_bps,
            delay_ns: delay,
            loss: 0.0,
            loss_ba: 0.0,
            burst_loss: None,
            queue: self.access_queue.clone(),
            queue_ba: None,
        };
        let mut links: Vec<LinkSpec> = (0..n).map(|i| access(format!("s{i}"), "r0".into(), pick(&self.sender_access_delay_ns, i))).collect();
        links.push(LinkSpec {
            name: Some("bottleneck".into()),
            a: "r0".into(),
            b: "r1".into(),
            rate_bps: self.bottleneck_rate_bps,
            delay_ns: self.bottleneck_delay_ns,
            loss: self.bottleneck_loss,
            loss_ba: 0.0,
            burst_loss: None,
            queue: self.bottleneck_queue.clone(),
            queue_ba: Some(self.bottleneck_queue_reverse.clone().unwrap_or_else(|| QueueSpec {
                kind: "droptail".into(),
                limit_pkts: self.bottleneck_queue.limit_pkts,
                limit_bytes: self.bottleneck_queue.limit_bytes,
                ..QueueSpec::default()
            })),
        });
        links.extend((0..n).map(|i| access("r1".into(), format!("d{i}"), pick(&self.receiver_access_delay_ns, i))));
        (nodes, links)
    }
}

impl Scenario {
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

impl FlowSpec {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        if self.start_ns.is_some() && self.start_window_ns.is_some() {
            return Err(ConfigError::new(format!("{path}.start_window_ns"), "give start_ns or start_window_ns, not both"));
        }
        if let Some([lo, hi]) = self.start_window_ns {
            if lo > hi {
                return Err(ConfigError::new(format!("{path}.start_window_ns"), format!("need lo <= hi, got [{lo}, {hi}]")));
            }
        }
        if let Some(stop) = self.stop_ns {
            let latest_start = self.start_window_ns.map_or(self.start_ns.unwrap_or(0), |[_, hi]| hi);
            if stop < latest_start {
                return Err(ConfigError::new(format!("{path}.stop_ns"), format!("must not be before the (latest) start {latest_start}, got {stop}")));
            }
        }
        self.validate_off(path)?;
        if self.label.as_deref() == Some("") {
            return Err(ConfigError::new(format!("{path}.label"), "must not be empty"));
        }
        if self.probe && self.video.is_some() {
            return Err(ConfigError::new(format!("{path}.probe"), "a probe is a greedy flow measuring T for the video streams; it cannot carry a video"));
        }
        self.cc.validate(path)?;
        self.tcp.validate(&format!("{path}.tcp"))
    }

    /// The leave/rejoin intervals: each start < end, sorted and disjoint, none
    /// before the latest start, each ending before `stop_ns`.
    fn validate_off(&self, path: &str) -> Result<(), ConfigError> {
        let latest_start = self.start_window_ns.map_or(self.start_ns.unwrap_or(0), |[_, hi]| hi);
        for (j, &[lo, hi]) in self.off_ns.iter().enumerate() {
            let field = format!("{path}.off_ns[{j}]");
            if lo >= hi {
                return Err(ConfigError::new(field, format!("need start < end, got [{lo}, {hi}]")));
            }
            if lo < latest_start {
                return Err(ConfigError::new(field, format!("must not start before the flow's (latest) start {latest_start}, got {lo}")));
            }
            if j > 0 && lo <= self.off_ns[j - 1][1] {
                return Err(ConfigError::new(
                    field,
                    format!("must start after {path}.off_ns[{}] ends ({}): intervals are sorted and disjoint, got {lo}", j - 1, self.off_ns[j - 1][1]),
                ));
            }
            if let Some(stop) = self.stop_ns {
                if hi >= stop {
                    return Err(ConfigError::new(field, format!("must end before stop_ns ({stop}), got {hi}")));
                }
            }
        }
        Ok(())
    }
}

impl UdpSpec {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check::positive(&format!("{path}.rate_bps"), self.rate_bps as f64)?;
        check::positive(&format!("{path}.packet_size"), self.packet_size as f64)?;
        // The shortest Pareto gap is mean (a - 1) / a: a >= 1.1 keeps a source within 11 times its mean rate.
        check::in_range(&format!("{path}.pareto_shape"), self.pareto_shape, 1.1, 100.0)?;
        for (field, v) in [("burst_ns", self.burst_ns), ("idle_ns", self.idle_ns)] {
            if !(1..=SimTime::MAX / 4).contains(&v) {
                return Err(ConfigError::new(format!("{path}.{field}"), format!("must lie in [1, {}] ns, got {v}", SimTime::MAX / 4)));
            }
        }
        // Packets of a source are spaced by whole nanoseconds, the clock's resolution: the
        // highest rate a source sends at (its mean, or its peak for Pareto sources) must allow that.
        let size = match self.sizes {
            SizeDist::Mix => crate::traffic::udp::mix_mean_size() as u64,
            _ => u64::from(self.packet_size),
        };
        let most = size.saturating_mul(8 * NS_PER_SEC);
        let (peak, what) = match self.arrivals {
            Arrivals::Cbr | Arrivals::Poisson => (1.0, String::new()),
            Arrivals::CbrRandom => (2.0, " x 2, its peak,".to_string()),
            Arrivals::Pareto => (self.pareto_shape / (self.pareto_shape - 1.0), " x a / (a - 1), its peak,".to_string()),
            Arrivals::ParetoOnOff => ((self.burst_ns as f64 + self.idle_ns as f64) / self.burst_ns as f64, " x (burst + idle) / burst, its peak,".to_string()),
        };
        if self.rate_bps as f64 * peak > most as f64 {
            return Err(ConfigError::new(
                format!("{path}.rate_bps"),
                format!("must be at most {most} bit/s{what} (one {size}-byte packet per nanosecond, the clock's resolution), got {}", self.rate_bps),
            ));
        }
        if let Some(stop) = self.stop_ns {
            if stop < self.start_ns {
                return Err(ConfigError::new(format!("{path}.stop_ns"), format!("must not be before start_ns ({}), got {stop}", self.start_ns)));
            }
        }
        Ok(())
    }
}

impl TcpConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        if self.packet_size <= crate::packet::TCP_IP_HEADER_BYTES {
            return Err(ConfigError::new(
                format!("{path}.packet_size"),
                format!("must exceed the {}-byte TCP/IP header, got {}", crate::packet::TCP_IP_HEADER_BYTES, self.packet_size),
            ));
        }
        check::positive(&format!("{path}.max_cwnd"), self.max_cwnd as f64)?;
        let payload = u64::from(self.packet_size - crate::packet::TCP_IP_HEADER_BYTES);
        let most = MAX_WINDOW_BYTES / payload;
        if u64::from(self.max_cwnd) > most {
            return Err(ConfigError::new(
                format!("{path}.max_cwnd"),
                format!("must be at most {most} segments: a window of at most 2^30 bytes (RFC 7323 2.3) of {payload}-byte payloads, got {}", self.max_cwnd),
            ));
        }
        if !(1..=self.max_cwnd).contains(&self.init_cwnd) {
            return Err(ConfigError::new(format!("{path}.init_cwnd"), format!("must lie in [1, max_cwnd ({})], got {}", self.max_cwnd, self.init_cwnd)));
        }
        check::positive(&format!("{path}.dupthresh"), self.dupthresh as f64)?;
        check::positive(&format!("{path}.initial_rto_ns"), self.initial_rto_ns as f64)?;
        if self.min_rto_ns < MIN_RTO_FLOOR_NS {
            return Err(ConfigError::new(
                format!("{path}.min_rto_ns"),
                format!("must be at least {MIN_RTO_FLOOR_NS} ns (1 us, the least Linux's tcp_rto_min_us allows), got {}", self.min_rto_ns),
            ));
        }
        let least_max = self.min_rto_ns.max(MAX_RTO_FLOOR_NS);
        if self.max_rto_ns < least_max {
            return Err(ConfigError::new(
                format!("{path}.max_rto_ns"),
                format!(
                    "must be at least min_rto_ns ({}) and {MAX_RTO_FLOOR_NS} ns (1 s, the least Linux's tcp_rto_max_ms allows), got {}",
                    self.min_rto_ns, self.max_rto_ns
                ),
            ));
        }
        check::positive(&format!("{path}.ack_size"), self.ack_size as f64)?;
        if !self.ecn && self.ecn_feedback != EcnFeedback::Rfc3168 {
            return Err(ConfigError::new(
                format!("{path}.ecn_feedback"),
                format!("{} feedback needs an ECN-capable flow (ecn = true); without ECN only the default rfc3168 is allowed", self.ecn_feedback.name()),
            ));
        }
        if self.xecn_count_lost_acks && self.ecn_feedback != EcnFeedback::Xecn {
            return Err(ConfigError::new(format!("{path}.xecn_count_lost_acks"), "applies to ecn_feedback = \"xecn\" only"));
        }
        for (field, value) in [("rtt_noise_ns", self.rtt_noise_ns), ("overhead_ns", self.overhead_ns)] {
            if value > SimTime::MAX / 4 {
                return Err(ConfigError::new(format!("{path}.{field}"), format!("must be at most {} ns, got {value}", SimTime::MAX / 4)));
            }
        }
        if self.delayed_ack && self.ack_policy == AckPolicy::Adaptive {
            return Err(ConfigError::new(
                format!("{path}.ack_policy"),
                "delayed_ack = true means ack_policy = \"delayed\"; give one of them (allowed: every, delayed, adaptive)",
            ));
        }
        self.adaptive_ack.validate(&format!("{path}.adaptive_ack"))?;
        if !(1..=MAX_DELAYED_ACK_TIMEOUT_NS).contains(&self.delayed_ack_timeout_ns) {
            return Err(ConfigError::new(
                format!("{path}.delayed_ack_timeout_ns"),
                format!(
                    "must lie in [1, {MAX_DELAYED_ACK_TIMEOUT_NS}] ns (RFC 1122 4.2.3.2: a delayed ACK is sent within 500 ms), got {}",
                    self.delayed_ack_timeout_ns
                ),
            ));
        }
        Ok(())
    }
}
