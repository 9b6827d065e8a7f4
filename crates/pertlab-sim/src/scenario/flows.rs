//! The TCP flows of a scenario: endpoints, start and stop times, leave and
//! rejoin intervals, service class, an optional live video source, the
//! congestion controller with its parameters ([`CcSpec`]), and the checks of
//! the TCP parameters every flow and web group carries ([`TcpConfig`]).

use serde::{Deserialize, Serialize};

use crate::error::{check, ConfigError};
use crate::external::ExternalSpec;
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
use crate::tcp::{
    AckPolicy, EcnFeedback, RtoEstimator, RtoMinOn, RttSamples, TcpConfig, MAX_DELAYED_ACK_TIMEOUT_NS, MAX_RTO_FLOOR_NS, MAX_WINDOW_BYTES, MIN_RTO_FLOOR_NS,
};
use crate::time::SimTime;
use crate::traffic::video::VideoSpec;

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
        if self.rto_estimator == RtoEstimator::Linux && self.rto_min_on != RtoMinOn::Variance {
            return Err(ConfigError::new(
                format!("{path}.rto_estimator"),
                "\"linux\" needs rto_min_on = \"variance\" (Linux's min_rto bounds the margin above SRTT; \"rto\" is RFC 6298's bound)",
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
        if self.delayed_ack && matches!(self.ack_policy, AckPolicy::Adaptive | AckPolicy::Linux) {
            return Err(ConfigError::new(
                format!("{path}.ack_policy"),
                "delayed_ack = true means ack_policy = \"delayed\"; give one of them (allowed: every, delayed, adaptive, linux)",
            ));
        }
        if self.rtt_correction && self.rtt_samples == RttSamples::Linux {
            return Err(ConfigError::new(
                format!("{path}.rtt_correction"),
                "corrects the echoed timestamp's sample (Qian 2011, eq. 5.4), which rtt_samples = \"linux\" does not take; use rtt_samples = \"echo\" with it",
            ));
        }
        for (field, on) in [("rack_retransmits", self.rack_retransmits), ("rack", self.rack)] {
            if on && !(self.sack && self.rtt_samples == RttSamples::Linux) {
                return Err(ConfigError::new(
                    format!("{path}.{field}"),
                    "needs SACK (sack = true, not newreno) and Linux's RTT samples (rtt_samples = \"linux\", --rtt-samples linux): RACK reads SACKs and the segments' send times, and Linux runs it only with SACK",
                ));
            }
        }
        if !(1..=255).contains(&self.tso_segs) {
            return Err(ConfigError::new(format!("{path}.tso_segs"), format!("must lie in [1, 255] (net.ipv4.tcp_min_tso_segs), got {}", self.tso_segs)));
        }
        self.adaptive_ack.validate(&format!("{path}.adaptive_ack"))?;
        self.linux_ack.validate(&format!("{path}.linux_ack"))?;
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
