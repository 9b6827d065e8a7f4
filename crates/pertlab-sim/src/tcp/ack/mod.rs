//! When the receiver sends an ACK: the ACK policies of a [`super::receiver::TcpReceiver`].
//!
//! - `every`: one ACK per segment (ns-2 `TCPSink`, Qian 2011 "No Delay").
//! - `delayed`: the classic delayed ACK, one ACK per two in-order segments or on
//!   a timeout (RFC 5681 4.2; ns-2 `DelAckSink`, Qian's "Delay By Two"); see `delayed`.
//! - `adaptive`: Qian's adaptive delayed ACK, 1 to 4 segments per ACK with an
//!   ACK timeout of twice the expected inter-arrival time (Qian 2011, IV.A,
//!   Algorithms 1 to 3 as corrected in the spec, B.5); see `adaptive`.
//! - `linux`: Linux's delayed ACK (quickack mode, the ACK-timeout estimator,
//!   the timer on jiffies); see `linux`.
//!
//! The receiver decides what an arrival is (in order, out of order, duplicate,
//! filling a gap) and builds the ACKs; a policy only says whether an in-order
//! arrival is acknowledged now or held, and when its timer fires. Every other
//! arrival is acknowledged at once by all policies.

mod adaptive;
mod delayed;
mod linux;

use serde::{Deserialize, Serialize};

use crate::error::{check, ConfigError};
use crate::time::SimTime;
use adaptive::AdaptiveAck;
use delayed::DelayedAck;
use linux::LinuxAck;
pub use linux::{EcnCue, LinuxAckConfig, MAX_QUICKACKS};

/// Which ACK policy a receiver follows.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AckPolicy {
    /// One ACK per segment.
    #[default]
    Every,
    /// One ACK per two in-order segments, or at `delayed_ack_timeout_ns`.
    Delayed,
    /// Qian's adaptive delayed ACK (parameters in [`AdaptiveAckConfig`]).
    Adaptive,
    /// Linux's delayed ACK (parameters in [`LinuxAckConfig`]).
    Linux,
}

impl AckPolicy {
    pub fn name(self) -> &'static str {
        match self {
            AckPolicy::Every => "every",
            AckPolicy::Delayed => "delayed",
            AckPolicy::Adaptive => "adaptive",
            AckPolicy::Linux => "linux",
        }
    }

    /// Segments one ACK covers in steady state (for the RTT estimator's count
    /// of samples per RTT, RFC 7323 Appendix G).
    pub fn segments_per_ack(self, adaptive: &AdaptiveAckConfig) -> u32 {
        match self {
            AckPolicy::Every => 1,
            AckPolicy::Delayed | AckPolicy::Linux => 2,
            AckPolicy::Adaptive => adaptive.max_segments,
        }
    }
}

/// Parameters of the adaptive delayed ACK (Qian 2011, IV.A, Algorithm 1's inputs).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AdaptiveAckConfig {
    /// `maxPktPerAck`: most segments one ACK covers (Qian: 4). At least
    /// [`MIN_SEGMENTS_PER_ACK`].
    pub max_segments: u32,
    /// α: weight of the history in the EWMA of in-order inter-arrival times,
    /// `t̂ ← α t̂ + (1 − α) t` (Qian, Algorithm 2: 0.9). In [0, 1).
    pub ewma_weight: f64,
    /// β, the "timeout tolerance factor": a held segment is acknowledged
    /// β t̂ after it arrived, and a segment arriving more than β t̂ after the
    /// previous one restarts the policy (Qian, Algorithm 3: 2.0). Positive.
    pub timeout_factor: f64,
}

impl Default for AdaptiveAckConfig {
    fn default() -> Self {
        AdaptiveAckConfig { max_segments: 4, ewma_weight: 0.9, timeout_factor: 2.0 }
    }
}

/// `minPktPerAck`: segments per ACK after a start, a loss, an out-of-order or
/// late arrival, or a timeout (Qian 2011, IV.A: 1, because a sender starts,
/// and restarts after a timeout, with a window of one segment; a larger
/// minimum would hold a one-segment window until the timer).
pub const MIN_SEGMENTS_PER_ACK: u32 = 1;

/// Largest `timeout_factor`: the ACK timer must stay a small multiple of the
/// inter-arrival time.
pub const MAX_TIMEOUT_FACTOR: f64 = 1000.0;

impl AdaptiveAckConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        if self.max_segments < MIN_SEGMENTS_PER_ACK {
            return Err(ConfigError::new(
                format!("{path}.max_segments"),
                format!("must be at least the minimum segments per ACK ({MIN_SEGMENTS_PER_ACK}), got {}", self.max_segments),
            ));
        }
        if !(self.ewma_weight.is_finite() && (0.0..1.0).contains(&self.ewma_weight)) {
            return Err(ConfigError::new(format!("{path}.ewma_weight"), format!("must lie in [0, 1), got {}", self.ewma_weight)));
        }
        check::positive(&format!("{path}.timeout_factor"), self.timeout_factor)?;
        check::in_range(&format!("{path}.timeout_factor"), self.timeout_factor, 0.0, MAX_TIMEOUT_FACTOR)
    }
}

/// What the receiver knows of its sender when a segment arrives. ns-2's
/// sinks read the sender's window directly (Qian, IV.A: "in ns-2 the sink can
/// read it"); pertlab's world does the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SenderView {
    /// The sender's window in segments: min(cwnd, receiver window).
    pub window: u32,
    /// The sender may not send segment `send_limit` or above before it gets a
    /// new ACK (its window is full, or its application has nothing more).
    pub send_limit: u32,
}

impl SenderView {
    /// A sender that never limits the receiver (a bulk source with a huge window).
    pub const UNLIMITED: SenderView = SenderView { window: u32::MAX, send_limit: u32::MAX };
}

/// The running state of a receiver's ACK policy.
#[derive(Clone, Debug)]
pub enum AckClock {
    Every,
    Delayed(DelayedAck),
    Adaptive(AdaptiveAck),
    Linux(LinuxAck),
}

impl AckClock {
    pub fn new(policy: AckPolicy, delayed_timeout: SimTime, adaptive: &AdaptiveAckConfig, linux: &LinuxAckConfig) -> AckClock {
        match policy {
            AckPolicy::Every => AckClock::Every,
            AckPolicy::Delayed => AckClock::Delayed(DelayedAck::new(delayed_timeout)),
            AckPolicy::Adaptive => AckClock::Adaptive(AdaptiveAck::new(adaptive.clone())),
            AckPolicy::Linux => AckClock::Linux(LinuxAck::new(linux)),
        }
    }

    /// The receiver's RTT estimate from its handshake, `rtt()`: the Linux
    /// policy's delayed-ACK bound and RTO; called only by that policy.
    pub fn with_handshake_rtt(self, rtt: impl FnOnce() -> SimTime) -> AckClock {
        match self {
            AckClock::Linux(l) => AckClock::Linux(l.with_handshake_rtt(rtt())),
            other => other,
        }
    }

    /// Segment `rcv_nxt - 1` arrived in order at `now` (and filled no gap):
    /// true if it is to be acknowledged now; otherwise it is held and the
    /// timer may have been (re-)armed. `ecn` is what its ECN bits ask of a
    /// Linux receiver (the other policies ignore it). `sender` is called only
    /// by the adaptive policy, the one that reads it (issue 21: with many
    /// flows, reading the sender's state on every segment was a cache miss per
    /// data packet).
    pub fn in_order(&mut self, now: SimTime, rcv_nxt: u32, ecn: EcnCue, psh: bool, sender: impl FnOnce() -> SenderView) -> bool {
        match self {
            AckClock::Every => true,
            AckClock::Delayed(d) => d.in_order(now),
            AckClock::Adaptive(a) => a.in_order(now, rcv_nxt, sender()),
            AckClock::Linux(l) => l.in_order(now, ecn, psh),
        }
    }

    /// A segment arrived at `now` out of order, as a duplicate, or filling a
    /// gap: it is acknowledged at once, and the adaptive policy starts again;
    /// Linux's enters quickack mode on a duplicate, counts a segment filling a
    /// gap as in-order data, and takes the ECN cue of either other kind.
    pub fn disorder(&mut self, now: SimTime, duplicate: bool, filled_gap: bool, ecn: EcnCue) {
        match self {
            AckClock::Adaptive(a) => a.restart(),
            AckClock::Linux(l) => l.disorder(now, duplicate, filled_gap, ecn),
            AckClock::Every | AckClock::Delayed(_) => {}
        }
    }

    /// An ACK was sent (for any reason): nothing is held any more.
    pub fn ack_sent(&mut self) {
        match self {
            AckClock::Every => {}
            AckClock::Delayed(d) => d.ack_sent(),
            AckClock::Adaptive(a) => a.ack_sent(),
            AckClock::Linux(l) => l.ack_sent(),
        }
    }

    /// The timer fired: the held segments are acknowledged (the receiver
    /// sends the ACK); the adaptive policy starts again from its minimum,
    /// Linux's inflates its ACK timeout.
    pub fn timer_fired(&mut self) {
        match self {
            AckClock::Adaptive(a) => a.restart(),
            AckClock::Linux(l) => l.timer_fired(),
            AckClock::Every | AckClock::Delayed(_) => {}
        }
    }

    /// When the timer fires, if armed.
    pub fn deadline(&self) -> Option<SimTime> {
        match self {
            AckClock::Every => None,
            AckClock::Delayed(d) => d.deadline(),
            AckClock::Adaptive(a) => a.deadline(),
            AckClock::Linux(l) => l.deadline(),
        }
    }
}

#[cfg(test)]
mod bench_tests;
