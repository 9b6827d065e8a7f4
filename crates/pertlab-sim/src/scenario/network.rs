//! The network of a scenario: full-duplex links between named nodes, the
//! queue of each direction (its discipline, buffer and parameters), and the
//! dumbbell that expands into such a graph. Checked here field by field; names
//! and connectivity are checked when the world is built (`world::topology`).

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
use crate::time::SimTime;

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
