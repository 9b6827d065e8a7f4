//! TCP, at the granularity of ns-2's one-way agents: segments numbered from 0,
//! no handshake, no payload, an infinite (bulk) source of data.
//!
//! - `sender`: sequence space, SACK scoreboard and loss recovery (RFC 6675),
//!   NewReno recovery without SACK (RFC 6582), RTO (RFC 6298), limited transmit
//!   (RFC 3042), ECN (RFC 3168). Window decisions are delegated to a
//!   [`cc::CongestionControl`].
//! - `receiver`: cumulative ACK with SACK blocks; `ack`: its ACK policies
//!   (every segment, delayed, adaptive).
//! - `pacing`: sender pacing (Qian 2011, IV.C); `train_rtt`: the RTT
//!   correction for ACK trains (Qian 2011, Chapter V).
//! - `send_overhead`: ns-2's random send overhead (`overhead_`), which breaks
//!   drop-tail phase effects.
//!
//! Both are plain state machines: the engine hands them packets and the current
//! time, they append packets to send to an output buffer and expose the deadline
//! of their timer. They never see the event queue.

pub mod ack;
pub mod cc;
pub mod cwnd_validation;
pub mod ecn_feedback;
#[cfg(test)]
mod ecn_tests;
pub mod jcc_probe;
pub mod jiffies;
pub mod pacing;
pub mod prr;
#[cfg(test)]
mod prr_tests;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod segment_flags;
pub mod send_overhead;
pub mod sender;
#[cfg(test)]
mod testbench;
pub mod train_rtt;
#[cfg(test)]
mod write_tests;

use crate::time::{SimTime, NS_PER_MS, NS_PER_SEC, NS_PER_US};
pub use ack::{AckPolicy, AdaptiveAckConfig, LinuxAckConfig};
pub use ecn_feedback::EcnFeedback;
pub use pacing::PacingConfig;
pub use rtt::{RtoEstimator, RtoMinOn};
use serde::{Deserialize, Serialize};

/// Largest receive window, bytes of payload: 2^30 (RFC 7323 2.3, window scale
/// 14); `max_cwnd` segments of payload must fit in it.
pub const MAX_WINDOW_BYTES: u64 = 1 << 30;

/// Least `min_rto`: 1 µs, the least value of Linux's `tcp_rto_min_us` sysctl
/// (Documentation/networking/ip-sysctl.rst: "Possible Values: 1 - INT_MAX",
/// microseconds).
pub const MIN_RTO_FLOOR_NS: SimTime = NS_PER_US;
/// Least `max_rto`: 1 s, the least value of Linux's `tcp_rto_max_ms` sysctl
/// and `TCP_RTO_MAX_MS` socket option (ip-sysctl.rst: "Possible Values: 1000 -
/// 120,000"). The timer backs off up to `max_rto`, so a flow whose
/// retransmissions never get through times out at most log2(1 s / 1 µs) = 20
/// times before its timer runs a second or more: no storm of timeouts.
pub const MAX_RTO_FLOOR_NS: SimTime = NS_PER_SEC;
/// Largest delayed-ACK timeout: 500 ms (RFC 1122 4.2.3.2, RFC 5681 4.2: an ACK
/// MUST be generated within 500 ms of the first unacknowledged segment).
pub const MAX_DELAYED_ACK_TIMEOUT_NS: SimTime = 500 * NS_PER_MS;

/// Which timestamp the receiver echoes (see `TcpConfig::ts_echo`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TsEcho {
    /// RFC 7323 4.3: TS.Recent of the left edge of the window.
    #[default]
    Earliest,
    /// ns-2's sinks: the newest timestamp received.
    Latest,
}

/// Where the sender's RTT samples come from (see `TcpConfig::rtt_samples`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RttSamples {
    /// One sample per ACK that advances `snd_una`, from its echoed timestamp
    /// (RFC 7323 RTTM): the RTO estimator and the controller take the same one.
    #[default]
    Echo,
    /// Linux's two samples (`tcp_clean_rtx_queue`, `tcp_ack_update_rtt`), from
    /// the sender's own send times: the estimator (srtt, the RTO) takes the
    /// first newly acknowledged segment's (`first_ackt`), the controller the
    /// last one's (`last_ackt`); newly SACKed segments give them too
    /// (`first_sackt`, `last_sackt`, the controller's taking precedence), on
    /// ACKs that only SACK as well. None where a covered segment was ever
    /// retransmitted (Karn); then the echo gives both, if `snd_una` advanced.
    Linux,
}

/// Options of a TCP connection (sender and receiver). Defaults follow ns-2's
/// `Agent/TCP` where the papers ran ns-2, RFCs elsewhere; each field says which.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Segment size on the wire in bytes, headers included (ns-2 `packetSize_`
    /// 1000 by default; the PERT paper's experiments use 1500-byte packets in the
    /// sense of ns-2's packet size, so pertlab's default is 1500).
    pub packet_size: u32,
    /// Use SACK-based loss recovery (RFC 6675); if false, NewReno (RFC 6582).
    pub sack: bool,
    /// The flow is ECN-capable (RFC 3168): data is sent ECT, the sender reacts to ECE.
    pub ecn: bool,
    /// How CE marks are reported on ACKs and counted by the sender (see
    /// `ecn_feedback`): `rfc3168` (default), `xecn` (Tahiliani 2013 Ch. 4.2.2)
    /// or `dctcp` (RFC 8257 3.2). Anything but `rfc3168` needs `ecn`.
    pub ecn_feedback: EcnFeedback,
    /// XECN only: count the ACKs inferred lost before an ACK carrying ECE as
    /// Count Codepoints (the prose of Ch. 4.2.2) instead of Algorithm 6's
    /// single increment. Default false (Algorithm 6, spec 1.10 (a)).
    pub xecn_count_lost_acks: bool,
    /// Initial window in segments (RFC 6928 allows 10; ns-2 `windowInit_` = 2), at most `max_cwnd`.
    pub init_cwnd: u32,
    /// Largest window in segments: the receiver's advertised window (ns-2 `window_`),
    /// at most [`MAX_WINDOW_BYTES`] of payload.
    pub max_cwnd: u32,
    /// Duplicate-ACK threshold for fast retransmit (RFC 5681: 3).
    pub dupthresh: u32,
    /// Limited transmit (RFC 3042): send new data on the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// Initial retransmission timeout (RFC 6298 2.1: 1 s).
    pub initial_rto_ns: SimTime,
    /// Lower bound of the RTO (RFC 6298 2.4 says 1 s; ns-2 `minrto_` 0.2 s as Linux; default 200 ms),
    /// at least [`MIN_RTO_FLOOR_NS`].
    pub min_rto_ns: SimTime,
    /// What `min_rto` bounds: the variance term (Linux, default: RTO >= SRTT +
    /// min_rto) or the whole RTO (RFC 6298 2.4, ns-2). See `rtt`.
    pub rto_min_on: RtoMinOn,
    /// Which estimator gives the RTO: RFC 6298 with per-RTT gains (default) or
    /// Linux's `tcp_rtt_estimator` (see `rtt`; needs `rto_min_on = variance`).
    pub rto_estimator: RtoEstimator,
    /// Upper bound of the RTO after back-off (RFC 6298 2.5: at least 60 s; Linux 120 s),
    /// at least [`MAX_RTO_FLOOR_NS`] and `min_rto_ns`.
    pub max_rto_ns: SimTime,
    /// Clock granularity G of RFC 6298 (the RTO is at least srtt + max(G, 4 rttvar)).
    pub clock_granularity_ns: SimTime,
    /// Receiver sends one ACK per two full segments (RFC 5681 4.2): the same
    /// as `ack_policy = "delayed"`, kept for older scenarios; only with
    /// `ack_policy` "every" (the default) or "delayed".
    pub delayed_ack: bool,
    /// When the receiver acknowledges in-order segments: "every" (default),
    /// "delayed" (RFC 5681 4.2), "adaptive" (Qian 2011, IV.A) or "linux"
    /// (Linux's delayed ACK); see `ack`.
    pub ack_policy: AckPolicy,
    /// Parameters of the adaptive policy (Qian's defaults).
    pub adaptive_ack: AdaptiveAckConfig,
    /// Parameters of the Linux policy (Linux's defaults, HZ = 250).
    pub linux_ack: LinuxAckConfig,
    /// Delayed-ACK timeout of the "delayed" policy (ns-2 `interval_` 100 ms), in (0, [`MAX_DELAYED_ACK_TIMEOUT_NS`]].
    pub delayed_ack_timeout_ns: SimTime,
    /// Size of an ACK on the wire in bytes (ns-2: 40).
    pub ack_size: u32,
    /// Mean of the noise added to each RTT sample the sender takes, uniform in
    /// [0, 2 x mean] ns, before the sample is used anywhere (RTO estimator,
    /// the controller's `AckSample`, the RTT statistics and traces); models an
    /// imprecise RTT measurement (Kotla's thesis). 0 (default): no noise, and no
    /// draws. Draws come from the flow's own `StreamKind::RttNoise` stream.
    pub rtt_noise_ns: SimTime,
    /// Which segment's timestamp an ACK echoes: "earliest" (RFC 7323 4.3, the
    /// default: a delayed ACK echoes the first segment it covers, so the RTT
    /// sample includes the receiver's hold time) or "latest" (ns-2's
    /// `TCPSink`/`DelAckSink`, which the theses ran: the newest segment).
    pub ts_echo: TsEcho,
    /// Where the sender's RTT samples come from: "echo" (default: the echoed
    /// timestamp gives one sample, as in ns-2) or "linux" (the RTO estimator
    /// from the first newly acknowledged segment's send time, the controller
    /// from the last one's, as Linux takes them); see [`RttSamples`].
    pub rtt_samples: RttSamples,
    /// Correct each RTT sample for the self-induced delay of the ACK train it
    /// ends (Qian 2011, eqs. 5.1-5.4; off by default); see `train_rtt`.
    pub rtt_correction: bool,
    /// Sender pacing, srtt / cwnd between segments (Qian 2011, IV.C; off by default); see `pacing`.
    pub pacing: PacingConfig,
    /// Grow the window only while the flow uses it, as Linux does
    /// (`tcp_is_cwnd_limited`; off by default: ns-2's agents grow on every
    /// ACK); see `cwnd_validation`.
    pub cwnd_validation: bool,
    /// Random send overhead (ns-2 `Agent/TCP overhead_`, default 0): a sender
    /// with segments to send waits U(0, overhead) and then sends them all (see
    /// `send_overhead`). Floyd and Jacobson (1992) use it to break drop-tail
    /// phase effects. 0 (default): segments leave at once, and no draws. Draws
    /// come from the flow's own `StreamKind::SendOverhead` stream.
    pub overhead_ns: SimTime,
    /// Proportional Rate Reduction (RFC 6937, as Linux's `tcp_cwnd_reduction`):
    /// during fast recovery and an ECN reduction the window follows the data
    /// delivered down to ssthresh instead of dropping to it at once; see `prr`.
    /// Off by default (ns-2's agents and RFC 6675 cut at once).
    pub prr: bool,
    /// Linux's TSO chunks (`net.ipv4.tcp_min_tso_segs`, 2 in Linux): of the
    /// new segments a sender sends at one instant, every `tso_segs`-th carries
    /// PSH, the last of a chunk of that many sent whole; a shorter rest carries
    /// none. This is what captures of Linux senders show (docs/linux.md, "Ten
    /// PERT flows behind delayed ACKs": PSH on the second of 80 % of
    /// back-to-back pairs, on no lone segment), not the kernel's code, which
    /// was not traced. A Linux receiver (`ack_policy = "linux"`) acknowledges
    /// a lone segment with PSH at once. 1 (default): no chunks, no PSH; 1 to
    /// 255, the sysctl's range.
    pub tso_segs: u32,
    /// Linux's RACK (RFC 8985 section 6.2; `tcp_rack_detect_loss`) applied to
    /// retransmissions: a retransmission still in flight is lost once a
    /// segment sent after it has been delivered (SACKed or cumulatively
    /// acknowledged), and is sent again, where otherwise only the timer finds
    /// it. Off by default (RFC 6675 and ns-2 leave lost retransmissions to the
    /// timer). Needs SACK and `rtt_samples = "linux"` (the send times); see
    /// `sender::rack`.
    pub rack_retransmits: bool,
    /// Linux's RACK for every segment (RFC 8985 section 6; Linux's only loss
    /// detection with SACK since 2025): a segment is lost once one sent after
    /// it has been delivered and RACK's reordering window has passed
    /// (min_rtt / 4 while fewer than `dupthresh` segments are SACKed, else 0),
    /// waited for by a timer in the retransmission timer's slot, on the
    /// jiffies of `linux_ack.hz`; fast recovery begins when a segment is lost.
    /// Replaces RFC 6675's DupThresh and includes `rack_retransmits`. Off by
    /// default; needs SACK and `rtt_samples = "linux"`; see `sender::rack`.
    pub rack: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            packet_size: 1500,
            sack: true,
            ecn: false,
            ecn_feedback: EcnFeedback::Rfc3168,
            xecn_count_lost_acks: false,
            init_cwnd: 2,
            max_cwnd: 100_000,
            dupthresh: 3,
            limited_transmit: true,
            initial_rto_ns: NS_PER_SEC,
            min_rto_ns: 200 * NS_PER_MS,
            rto_min_on: RtoMinOn::Variance,
            rto_estimator: RtoEstimator::Rfc6298,
            max_rto_ns: 60 * NS_PER_SEC,
            clock_granularity_ns: NS_PER_MS,
            delayed_ack: false,
            ack_policy: AckPolicy::Every,
            adaptive_ack: AdaptiveAckConfig::default(),
            linux_ack: LinuxAckConfig::default(),
            delayed_ack_timeout_ns: 100 * NS_PER_MS,
            ack_size: 40,
            rtt_noise_ns: 0,
            overhead_ns: 0,
            pacing: PacingConfig::default(),
            cwnd_validation: false,
            rtt_correction: false,
            ts_echo: TsEcho::Earliest,
            rtt_samples: RttSamples::Echo,
            prr: false,
            tso_segs: 1,
            rack_retransmits: false,
            rack: false,
        }
    }
}

impl TcpConfig {
    /// The receiver's ACK policy: `ack_policy`, or "delayed" when `delayed_ack` is set.
    pub fn ack_policy(&self) -> AckPolicy {
        if self.delayed_ack {
            AckPolicy::Delayed
        } else {
            self.ack_policy
        }
    }
}
