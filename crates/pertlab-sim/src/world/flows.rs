//! TCP flows: the two endpoints of a connection with its timers and random
//! streams, built for the scenario's long-lived flows (and, by
//! `traffic`, for each web object), and the flow labels of the results.

use rand::Rng;

use crate::engine::TimerSlot;
use crate::error::ConfigError;
use crate::external::Extensions;
use crate::net::routing::Routes;
use crate::net::{path_delay, Channel};
use crate::rng::{stream, SimRng, StreamKind};
use crate::scenario::{CcSpec, Scenario};
use crate::tcp::cc::agent::Agent;
use crate::tcp::cc::base_rtt::BaseRtt;
use crate::tcp::cc::compound::Compound;
use crate::tcp::cc::cubic::Cubic;
use crate::tcp::cc::dctcp::Dctcp;
use crate::tcp::cc::fast::Fast;
use crate::tcp::cc::hstcp::Hstcp;
use crate::tcp::cc::illinois::Illinois;
use crate::tcp::cc::jcc::Jcc;
use crate::tcp::cc::pert::Pert;
use crate::tcp::cc::pert_adaptive::PertAdaptive;
use crate::tcp::cc::pert_pi::pert_pi;
use crate::tcp::cc::reno::Reno;
use crate::tcp::cc::scalable::Scalable;
use crate::tcp::cc::surathkal::Surathkal;
use crate::tcp::cc::vegas::Vegas;
use crate::tcp::cc::westwood::Westwood;
use crate::tcp::cc::xcp::Xcp;
use crate::tcp::cc::CongestionControl;
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::sender::TcpSender;
use crate::tcp::TcpConfig;
use crate::time::SimTime;
use crate::traffic::video::Video;

/// A TCP flow: its two endpoints, timers and random stream.
pub struct Flow {
    /// Nodes of the sender and the receiver.
    pub src: u32,
    pub dst: u32,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub start: SimTime,
    pub started: bool,
    pub(super) rto: TimerSlot,
    pub(super) delack: TimerSlot,
    /// The release of the segments the sender's send overhead holds.
    pub(super) release: TimerSlot,
    pub(super) rng: SimRng,
    /// Data packets of this flow lost anywhere (queues, departures, wire).
    pub data_drops: u64,
    /// Of those, retransmissions (a segment lost again after it was resent).
    pub retransmit_drops: u64,
    /// The flow's video source and client, if it carries a video.
    pub video: Option<Video>,
}

impl Flow {
    /// Connection `id` from node `src` to node `dst`, not started, with its
    /// controller's stream of kind `cc_stream` (its RTT-noise and send-overhead
    /// streams are the connection's own, by id).
    pub(super) fn new(id: u32, src: u32, dst: u32, tcp: &TcpConfig, cc: Box<dyn CongestionControl>, seed: u64, cc_stream: StreamKind) -> Flow {
        let index = id as u64;
        Flow {
            src,
            dst,
            sender: TcpSender::new(id, src, dst, tcp.clone(), cc).with_rtt_noise(stream(seed, StreamKind::RttNoise, index)).with_send_overhead(stream(
                seed,
                StreamKind::SendOverhead,
                index,
            )),
            receiver: TcpReceiver::new(id, dst, src, tcp.clone()),
            start: 0,
            started: false,
            rto: TimerSlot::default(),
            delack: TimerSlot::default(),
            release: TimerSlot::default(),
            rng: stream(seed, cc_stream, index),
            data_drops: 0,
            retransmit_drops: 0,
            video: None,
        }
    }

    /// Its receiver's handshake RTT ([`handshake_rtt`]), computed only if its ACK policy uses one.
    pub(super) fn with_handshake(self, channels: &[Channel], routes: &Routes, tcp: &TcpConfig) -> Flow {
        let (src, dst) = (self.src, self.dst);
        Flow { receiver: self.receiver.with_handshake_rtt(|| handshake_rtt(channels, routes, src, dst, tcp)), ..self }
    }

    /// Its data and ACKs carry service class `class` (`flows[].class`); a web
    /// transfer's stay in class 0.
    pub(super) fn with_class(self, class: u8) -> Flow {
        Flow { sender: self.sender.with_class(class), receiver: self.receiver.with_class(class), ..self }
    }
}

/// The round-trip time of one segment from `src` to `dst` over the empty path,
/// acknowledged at once: each data-path channel's propagation delay and
/// transmission time of a `tcp.packet_size` packet, plus the same over the ACK
/// path with `tcp.ack_size` (Hua 2002's `d~`, eq. 3.7). Vegas's base RTT when
/// it is "propagation". A direction without a route (never, once the routes
/// are checked) counts nothing.
pub(super) fn path_rtt(channels: &[Channel], routes: &Routes, src: u32, dst: u32, tcp: &TcpConfig) -> SimTime {
    path_delay(channels, routes, src, dst, tcp.packet_size).saturating_add(path_delay(channels, routes, dst, src, tcp.ack_size))
}

/// The round trip a receiver measures in its handshake: its SYN-ACK from `dst`
/// to `src` and the ACK back, both `tcp.ack_size` packets over the empty path
/// (Linux's `tcp_synack_rtt_meas`; the Linux ACK policy's RTT estimate).
pub(super) fn handshake_rtt(channels: &[Channel], routes: &Routes, src: u32, dst: u32, tcp: &TcpConfig) -> SimTime {
    path_delay(channels, routes, dst, src, tcp.ack_size).saturating_add(path_delay(channels, routes, src, dst, tcp.ack_size))
}

/// The scenario's long-lived flows between the nodes `endpoints[i]`, with their
/// start times (fixed, or drawn in their window from the run's seed); `ext`
/// supplies the controllers written outside the core. `channels` and
/// `routes` give the paths' RTTs to the controllers that ask for them
/// ([`builtin_cc`]).
pub(super) fn long_flows(
    scenario: &Scenario,
    endpoints: &[(u32, u32)],
    channels: &[Channel],
    routes: &Routes,
    ext: &dyn Extensions,
) -> Result<Vec<Flow>, ConfigError> {
    let seed = scenario.seed;
    let mut start_rng = stream(seed, StreamKind::StartTimes, 0);
    scenario
        .flows
        .iter()
        .zip(endpoints)
        .enumerate()
        .map(|(i, (f, &(src, dst)))| {
            let start = match (f.start_ns, f.start_window_ns) {
                (Some(t), _) => t,
                (None, Some([lo, hi])) => start_rng.gen_range(lo..=hi),
                (None, None) => 0,
            };
            let cc = match &f.cc {
                CcSpec::Py(p) => ext.congestion_control(&p.target, i as u32).map_err(|e| ConfigError::new(format!("flows[{i}].cc.target"), e))?,
                spec => builtin_cc(spec, || path_rtt(channels, routes, src, dst, &f.tcp)),
            };
            let flow =
                Flow::new(i as u32, src, dst, &f.tcp, cc, seed, StreamKind::CongestionControl).with_class(f.class).with_handshake(channels, routes, &f.tcp);
            Ok(match &f.video {
                Some(v) => {
                    let video = Video::new(v, flow.payload_bytes(), start);
                    Flow { start, sender: flow.sender.with_data(0), video: Some(video), ..flow }
                }
                None => Flow { start, ..flow },
            })
        })
        .collect()
}

/// The core's controller of kind `spec`; `path_rtt` gives the flow's RTT over
/// the empty path ([`path_rtt`]), called only by a controller that needs it
/// (Vegas and the PERT variants with `base_rtt = "propagation"`). A "py" controller comes from the
/// caller's [`Extensions`] instead; validation allows it only on long flows,
/// which [`long_flows`] builds through `ext`, so it never reaches here from a
/// validated scenario (Reno stands in, rather than a panic, if it did).
pub(super) fn builtin_cc(spec: &CcSpec, path_rtt: impl FnOnce() -> SimTime) -> Box<dyn CongestionControl> {
    match spec {
        CcSpec::Reno => Box::new(Reno),
        CcSpec::Vegas(c) => match c.base_rtt {
            BaseRtt::Observed => Box::new(Vegas::new(c.clone())),
            BaseRtt::Propagation => Box::new(Vegas::with_path_rtt(c.clone(), path_rtt())),
        },
        CcSpec::Pert(c) => Box::new(Pert::new(c.clone()).with_path_rtt(given(c.base_rtt, path_rtt))),
        CcSpec::PertPi(c) => Box::new(pert_pi(c).with_path_rtt(given(c.base_rtt, path_rtt))),
        CcSpec::PertAdaptive(c) => Box::new(PertAdaptive::new(c.clone()).with_path_rtt(given(c.base_rtt, path_rtt))),
        CcSpec::Hstcp(c) => Box::new(Hstcp::new(c.clone())),
        CcSpec::Cubic(c) => Box::new(Cubic::new(c.clone())),
        CcSpec::Compound(c) => Box::new(Compound::new(c.clone())),
        CcSpec::Illinois(c) => Box::new(Illinois::new(c.clone())),
        CcSpec::Fast(c) => Box::new(Fast::new(c.clone())),
        CcSpec::Jcc(c) => Box::new(Jcc::new(c.clone())),
        CcSpec::Surathkal(c) => Box::new(Surathkal::new(c.clone())),
        CcSpec::Dctcp(c) => Box::new(Dctcp::new(c.clone())),
        CcSpec::Scalable(c) => Box::new(Scalable::new(c.clone())),
        CcSpec::Westwood => Box::new(Westwood::new()),
        CcSpec::Xcp => Box::new(Xcp::new()),
        CcSpec::Agent => Box::new(Agent),
        CcSpec::Py(_) => Box::new(Reno),
    }
}

/// The path's RTT where a controller is given it (`base_rtt = "propagation"`).
fn given(base_rtt: BaseRtt, path_rtt: impl FnOnce() -> SimTime) -> Option<SimTime> {
    (base_rtt == BaseRtt::Propagation).then(path_rtt)
}

/// The groups of flows in results: each long flow's label (`FlowSpec::label`,
/// default the controller's name) as an index into `names`; names in order of
/// first appearance, then "web" when web transfers cross the queue-position link.
pub struct Labels {
    pub names: Vec<String>,
    pub of_flow: Vec<u32>,
}

impl Labels {
    pub(super) fn of(scenario: &Scenario, flows: &[Flow]) -> Labels {
        let mut labels = Labels { names: Vec::new(), of_flow: Vec::with_capacity(flows.len()) };
        for (f, spec) in flows.iter().zip(&scenario.flows) {
            let label = spec.label.as_deref().unwrap_or(f.sender.cc_name());
            let index = labels.index(label);
            labels.of_flow.push(index);
        }
        labels
    }

    /// The index of `label`, added if new.
    pub(super) fn index(&mut self, label: &str) -> u32 {
        match self.names.iter().position(|l| l == label) {
            Some(i) => i as u32,
            None => {
                self.names.push(label.to_string());
                self.names.len() as u32 - 1
            }
        }
    }
}
