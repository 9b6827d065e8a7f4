//! Congestion control behind one trait shaped like Linux `struct tcp_congestion_ops`.
//!
//! The sender (`tcp::sender`) owns reliability: sequence space, SACK scoreboard,
//! fast retransmit and recovery, RTO, ECN echo handling. A controller only
//! decides `snd_cwnd` and `snd_ssthresh`, through the same hooks Linux offers,
//! called at the same points (see the doc of each method). PERT therefore has one
//! shape here and in the kernel (eBPF `struct_ops`), and the two can be driven by
//! the same ACK traces.
//!
//! Window arithmetic is Linux's: `snd_cwnd` is an integer number of segments and
//! congestion avoidance counts ACKed segments in `snd_cwnd_cnt`
//! (`tcp_cong_avoid_ai`), which is what ns-2's `cwnd_ += 1/cwnd_` approximates.

#[cfg(test)]
mod ack_clock;
pub mod agent;
pub mod base_rtt;
pub mod compound;
pub mod cubic;
pub mod dctcp;
pub mod fast;
pub mod hstcp;
pub mod illinois;
pub mod jcc;
pub mod pert;
pub mod pert_adaptive;
pub mod pert_pi;
pub mod pert_signal;
pub mod reno;
pub mod rtt_round;
pub mod scalable;
pub mod surathkal;
pub mod vegas;
pub mod westwood;
pub mod windowed_min;
pub mod xcp;

use crate::packet::XcpHeader;
use crate::rng::SimRng;
use crate::scenario::CcSpec;
pub use crate::tcp::ecn_feedback::WindowSummary;
use crate::time::SimTime;

/// Linux's floor on ssthresh after a reduction (`tcp_reno_ssthresh` and the
/// other modules' ssthresh hooks): two segments.
pub const MIN_SSTHRESH: u32 = 2;

/// Linux's `TCP_INFINITE_SSTHRESH`.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// Congestion-avoidance state of the sender (Linux `enum tcp_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// Nothing outstanding is suspected lost.
    Open,
    /// Duplicate ACKs or SACKs seen, not yet in recovery (limited transmit).
    Disorder,
    /// ECN echo received; window being reduced (one reduction per window).
    Cwr,
    /// Fast recovery after a loss detected by duplicate ACKs / SACK.
    Recovery,
    /// Retransmission timeout; recovery by slow start.
    Loss,
}

impl CaState {
    /// Linux's name of the state (`TCP_CA_*`, lower case): open, disorder, cwr, recovery, loss.
    pub fn name(self) -> &'static str {
        match self {
            CaState::Open => "open",
            CaState::Disorder => "disorder",
            CaState::Cwr => "cwr",
            CaState::Recovery => "recovery",
            CaState::Loss => "loss",
        }
    }
}

/// Events the sender reports to the controller (Linux `enum tcp_ca_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaEvent {
    /// First transmission when nothing was in flight.
    TxStart,
    /// Congestion window restarted after idle.
    CwndRestart,
    /// Recovery or CWR finished.
    CompleteCwr,
    /// Retransmission timeout: loss.
    Loss,
    /// The sender reduced its window in response to ECN-Echo (at most once
    /// per window of data, RFC 3168 6.1.2).
    EcnEce,
}

impl CaEvent {
    /// Linux's name of the event (`CA_EVENT_*`, lower case).
    pub fn name(self) -> &'static str {
        match self {
            CaEvent::TxStart => "tx_start",
            CaEvent::CwndRestart => "cwnd_restart",
            CaEvent::CompleteCwr => "complete_cwr",
            CaEvent::Loss => "loss",
            CaEvent::EcnEce => "ecn_ece",
        }
    }
}

/// The sender state a controller reads and writes (the parts of Linux's
/// `struct tcp_sock` that congestion modules touch). All windows in segments.
#[derive(Clone, Debug)]
pub struct CcState {
    pub snd_cwnd: u32,
    /// Segments ACKed since the last window increase in congestion avoidance.
    pub snd_cwnd_cnt: u32,
    pub snd_ssthresh: u32,
    /// Upper bound on the window (receiver window / configured maximum).
    pub snd_cwnd_clamp: u32,
    /// Oldest unacknowledged segment and next segment to send.
    pub snd_una: u32,
    pub snd_nxt: u32,
    /// Segments in flight as the sender estimates them (RFC 6675 "pipe").
    pub packets_in_flight: u32,
    /// The sender's smoothed RTT (RFC 6298), zero before the first sample.
    pub srtt: SimTime,
    pub ca_state: CaState,
    /// Current simulated time.
    pub now: SimTime,
    /// When the sender last sent a data segment, new or retransmitted (Linux's
    /// `lsndtime`); the sender keeps it here.
    pub last_send: SimTime,
    /// When an ACK last left nothing outstanding: with nothing in flight since,
    /// the sender has been idle (application-limited) from then; the sender
    /// keeps it here.
    pub drained_at: SimTime,
    /// Segment size in bytes (payload + headers on the wire).
    pub mss: u32,
}

impl CcState {
    pub fn new(init_cwnd: u32, cwnd_clamp: u32, mss: u32) -> CcState {
        CcState {
            snd_cwnd: init_cwnd,
            snd_cwnd_cnt: 0,
            snd_ssthresh: INFINITE_SSTHRESH,
            snd_cwnd_clamp: cwnd_clamp,
            snd_una: 0,
            snd_nxt: 0,
            packets_in_flight: 0,
            srtt: 0,
            ca_state: CaState::Open,
            now: 0,
            last_send: 0,
            drained_at: 0,
            mss,
        }
    }

    /// Linux `tcp_in_slow_start`.
    pub fn in_slow_start(&self) -> bool {
        self.snd_cwnd < self.snd_ssthresh
    }

    /// Linux `tcp_slow_start`: grow by one segment per ACKed segment up to
    /// ssthresh; returns the ACKed segments left over for congestion avoidance.
    pub fn slow_start(&mut self, acked: u32) -> u32 {
        let cwnd = (self.snd_cwnd + acked).min(self.snd_ssthresh);
        let left = acked - (cwnd - self.snd_cwnd).min(acked);
        self.snd_cwnd = cwnd.min(self.snd_cwnd_clamp);
        left
    }

    /// Slow start below ssthresh, as Linux's `tcp_reno_cong_avoid` and the
    /// controllers built like it begin: the ACKed segments left for congestion
    /// avoidance (all of them at or above ssthresh), `None` when slow start
    /// took them all.
    pub fn slow_start_then(&mut self, acked: u32) -> Option<u32> {
        if !self.in_slow_start() {
            return Some(acked);
        }
        let left = self.slow_start(acked);
        (left > 0).then_some(left)
    }

    /// Linux `tcp_cong_avoid_ai`: one segment per `w` ACKed segments.
    pub fn cong_avoid_ai(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        if self.snd_cwnd_cnt >= w {
            self.snd_cwnd_cnt = 0;
            self.snd_cwnd += 1;
        }
        self.snd_cwnd_cnt += acked;
        if self.snd_cwnd_cnt >= w {
            let delta = self.snd_cwnd_cnt / w;
            self.snd_cwnd_cnt -= delta * w;
            self.snd_cwnd += delta;
        }
        self.snd_cwnd = self.snd_cwnd.min(self.snd_cwnd_clamp);
    }

    /// Grow by `per_rtt` segments per window of ACKed segments (`per_rtt / cwnd`
    /// per segment), for controllers whose increase is a real number: through
    /// [`CcState::cong_avoid_ai`] with `w = cwnd / per_rtt` rounded to the
    /// nearest integer (at least 1), the way Linux HighSpeed and CUBIC turn their
    /// increase into a count of ACKs per segment. No growth if `per_rtt <= 0`.
    pub fn cong_avoid_by(&mut self, per_rtt: f64, acked: u32) {
        if per_rtt.is_nan() || per_rtt <= 0.0 {
            return;
        }
        let w = (f64::from(self.snd_cwnd) / per_rtt).round().clamp(1.0, f64::from(u32::MAX));
        // In range by the clamp above.
        self.cong_avoid_ai(w as u32, acked);
    }
}

/// The window kept after a reduction by the fraction `alpha` of marked
/// packets: `cwnd (1 - alpha / 2)` (TCP Surathkal Eq. 4.3.2, DCTCP RFC 8257
/// 3.3), as Linux `dctcp_ssthresh` rounds it: `cwnd` less the whole part of
/// `cwnd alpha / 2`, at least [`MIN_SSTHRESH`]. `alpha` is clamped to [0, 1].
pub fn alpha_reduction(cwnd: u32, alpha: f64) -> u32 {
    let alpha = if alpha.is_nan() { 1.0 } else { alpha.clamp(0.0, 1.0) };
    // At most cwnd / 2, so in range.
    let cut = (f64::from(cwnd) * alpha / 2.0).floor() as u32;
    (cwnd - cut).max(MIN_SSTHRESH)
}

/// `a` is after `b` in sequence space (Linux `after()`), wrap-safe.
pub fn seq_after(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// One ACK's worth of information for `pkts_acked` (Linux `struct ack_sample`).
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    /// Segments newly acknowledged (cumulatively or by SACK) by this ACK.
    pub pkts_acked: u32,
    /// RTT measured on this ACK from the echoed timestamp (RFC 7323), if any.
    pub rtt: Option<SimTime>,
}

/// What an ACK said about ECN marks (Linux `in_ack_event`, with the marks
/// counted as the connection's feedback prescribes, see `tcp::ecn_feedback`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckEvent {
    /// Segments first known delivered by this ACK (as `AckSample::pkts_acked`).
    pub acked: u32,
    /// The ACK carried ECE (always false when the flow is not ECN-capable).
    pub ece: bool,
    /// Marks this ACK adds to the window's count: XECN's Counter increments,
    /// DCTCP's CE-marked segments, or one per ECE ACK (RFC 3168).
    pub marks: u32,
    /// The window of data this ACK completed: marks and segments acknowledged in it.
    pub window: Option<WindowSummary>,
}

/// Counters a controller keeps about itself, reported per flow.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CcCounters {
    /// Window reductions the controller made on its own signal (PERT early
    /// responses, Vegas decreases); loss and ECN responses are counted by the sender.
    pub early_responses: u64,
    /// Time each [`Mode`] (adaptive PERT) was in force, indexed by `Mode as
    /// usize`; zero for controllers without modes.
    pub mode_time_ns: [u64; 3],
    /// Probing ACKs received (JCC) and the sum of the path load reduction
    /// factors R they echoed, as drop probabilities (Hua 2002, Table 4.1's
    /// "average R" is their ratio); zero for controllers that do not probe.
    pub probe_echoes: u64,
    pub r_sum: f64,
    /// Slow starts HyStart ended (CUBIC's `linux` variant with `hystart`), by
    /// detection (0: ACK train, 1: delay increase), and the sum of the windows
    /// (segments) at those exits, as Linux's `TCPHystartTrainDetect`,
    /// `TCPHystartDelayDetect`, `TCPHystartTrainCwnd` and `TCPHystartDelayCwnd`
    /// count them; zero for other controllers.
    pub hystart_exits: [u64; 2],
    pub hystart_exit_cwnd: [u64; 2],
}

/// What a probe of Joint Congestion Control told the sender (Hua 2002, Section 4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeFeedback {
    /// A probing ACK echoed R, the path's m-bit code (eq. 4.2).
    Echo(u16),
    /// The probe segment was found lost (its sequence number is retransmitted).
    Lost,
}

/// Operating mode of adaptive PERT (Kotla 2008 Ch. III.B).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Queueing delay persistently below T1: alpha rises toward alpha_max.
    HighSpeed = 0,
    /// Between T1 and the compete threshold: alpha decays toward 1.
    Safe = 1,
    /// Above the compete threshold: alpha rises toward 1 + p'/p.
    Compete = 2,
}

impl Mode {
    /// Names in results, by `Mode as usize`.
    pub const NAMES: [&'static str; 3] = ["high_speed", "safe", "compete"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// The adaptation state a controller exposes to time series (adaptive PERT).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcTelemetry {
    pub mode: Mode,
    /// Additive increase per RTT.
    pub alpha: f64,
    /// Decrease a response now would apply.
    pub beta: f64,
    /// Estimated loss-event rate and early-response rate.
    pub p: f64,
    pub p_early: f64,
    /// Observed maximum of the estimated queueing delay (the estimate itself is
    /// [`CongestionControl::queueing_delay`], which every PERT variant has).
    pub q_max_ms: f64,
}

/// A congestion controller. The hooks and the points where the sender calls them
/// mirror Linux; where Linux hands a controller `struct sock *`, here it gets the
/// [`CcState`] and the flow's own random stream.
pub trait CongestionControl: Send {
    /// Name as written in scenarios and results ("reno", "vegas", "pert").
    fn name(&self) -> &'static str;

    /// Connection start, before the first segment is sent.
    fn init(&mut self, _tp: &mut CcState) {}

    /// Slow-start threshold to use after a loss or an ECN echo (Linux `ssthresh`);
    /// called once when the sender enters Recovery, CWR or Loss. The sender then
    /// sets `snd_cwnd` as its recovery algorithm prescribes.
    fn ssthresh(&mut self, tp: &CcState) -> u32;

    /// Slow-start threshold after an ECN echo (the sender then enters CWR with
    /// `cwnd = min(cwnd, ssthresh)`); by default the loss response. Controllers
    /// whose ECN response differs from their loss response (DCTCP, TCP
    /// Surathkal) override it.
    fn ecn_ssthresh(&mut self, tp: &CcState) -> u32 {
        self.ssthresh(tp)
    }

    /// Every acceptable ACK, after `pkts_acked` and before the sender's loss
    /// and ECN state machine (Linux `in_ack_event`).
    fn in_ack_event(&mut self, _tp: &mut CcState, _ev: &AckEvent) {}

    /// Window growth on an ACK that advances `snd_una` while the sender is in
    /// Open, Disorder or Loss state (slow start after a timeout), never in
    /// Recovery or CWR (Linux `tcp_cong_control`; `acked` segments newly ACKed).
    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, rng: &mut SimRng);

    /// Every ACK that acknowledges new data, before `cong_avoid`, with the RTT
    /// sample of that ACK (Linux `pkts_acked`).
    fn pkts_acked(&mut self, _tp: &mut CcState, _sample: &AckSample, _rng: &mut SimRng) {}

    /// The sender changed `ca_state` (Linux `set_state`); called after the change.
    fn set_state(&mut self, _tp: &mut CcState, _new_state: CaState) {}

    /// Something happened that a controller may care about (Linux `cwnd_event`).
    fn cwnd_event(&mut self, _tp: &mut CcState, _ev: CaEvent) {}

    /// Window to restore when a reduction proves spurious (Linux `undo_cwnd`).
    /// The sender in this simulator does not undo reductions (no DSACK, no
    /// Eifel), so this exists for interface fidelity with Linux.
    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        tp.snd_cwnd
    }

    /// The sender keeps its retransmissions ECN-capable, where RFC 3168 6.1.5
    /// sends them Not-ECT (Linux's `TCP_CONG_NEEDS_ECN`, which DCTCP sets:
    /// `tcp_ecn_send` then leaves ECT on a retransmission). Only with `ecn`.
    fn needs_ecn(&self) -> bool {
        false
    }

    /// The sender marks one data segment per round trip as a JCC probe (and
    /// reports its fate through [`CongestionControl::on_probe`]) when this is true.
    fn probes(&self) -> bool {
        false
    }

    /// A probing ACK arrived or a probe was lost (only for controllers that [`probes`](Self::probes)).
    fn on_probe(&mut self, _tp: &mut CcState, _feedback: ProbeFeedback) {}

    /// XCP's congestion header for the next data segment (Katabi et al. 2002,
    /// Section 3.1); only an XCP controller writes one.
    fn xcp_header(&self, _tp: &CcState) -> Option<XcpHeader> {
        None
    }

    /// The XCP feedback (bytes) an ACK echoed, on the ACKs on which
    /// `cong_avoid` is called, just before it (only ACKs that echo one).
    fn on_xcp_feedback(&mut self, _tp: &mut CcState, _feedback: f64) {}

    /// Self-reported counters, as of `now` (at or after the last call of any hook).
    fn counters(&self, _now: SimTime) -> CcCounters {
        CcCounters::default()
    }

    /// Adaptation state for time series; none for controllers without one.
    fn telemetry(&self) -> Option<CcTelemetry> {
        None
    }

    /// The queueing delay the controller estimates from its RTT samples and
    /// responds to (every PERT variant: `srtt_0.99 - P`, zero before the first
    /// sample), for time series; none for controllers without one.
    fn queueing_delay(&self) -> Option<SimTime> {
        None
    }

    /// The probability of an early response the controller draws on each ACK
    /// now (the AQM that PERT/RED, PERT/PI and adaptive PERT emulate), for time
    /// series; none for controllers that draw none.
    fn response_probability(&self) -> Option<f64> {
        None
    }

    /// The last path load reduction factor R a probing ACK echoed, as a drop
    /// probability (JCC, Hua 2002 eq. 4.1; Figs 4.13/4.14 plot it); none for
    /// controllers that do not probe.
    fn path_r(&self) -> Option<f64> {
        None
    }

    /// New parameters between the steps of a run (`World::set_cc_param`):
    /// `spec` is this controller's kind, validated, with some of the fields
    /// [`LIVE_PARAMS`] lists for it changed. They apply from the next hook
    /// and the controller keeps its state, as a Linux module's parameters
    /// written under `/sys/module/<name>/parameters` do (Vegas' alpha, beta
    /// and gamma, CUBIC's beta are such). Controllers without live parameters
    /// ignore it.
    fn set_params(&mut self, _spec: &CcSpec) {}
}

/// The parameters of each core controller that may change mid-run
/// ([`CongestionControl::set_params`]), by kind, in the scenario's field names.
/// The others (a signal's filter weight, a choice of reading, a flag) shape
/// state the controller has already built.
pub const LIVE_PARAMS: [(&str, &[&str]); 6] = [
    ("pert", &["t_min_ns", "t_max_ns", "p_max", "decrease"]),
    ("vegas", &["alpha", "beta", "gamma"]),
    ("cubic", &["c", "beta"]),
    ("fast", &["alpha", "gamma"]),
    ("dctcp", &["g"]),
    ("scalable", &["a", "b"]),
];

/// A live parameter's name as scenario files write it: `t_min`, not the wire's `t_min_ns`.
pub fn people_name(field: &str) -> &str {
    field.strip_suffix("_ns").unwrap_or(field)
}

/// The live parameters of the controller of kind `kind` (none for the others).
pub fn live_params(kind: &str) -> Option<&'static [&'static str]> {
    LIVE_PARAMS.iter().find(|(k, _)| *k == kind).map(|&(_, fields)| fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_the_rest() {
        let mut tp = CcState::new(10, 1000, 1500);
        tp.snd_ssthresh = 12;
        assert_eq!(tp.slow_start(5), 3);
        assert_eq!(tp.snd_cwnd, 12);
    }

    #[test]
    fn additive_increase_is_one_segment_per_window() {
        let mut tp = CcState::new(10, 1000, 1500);
        tp.snd_ssthresh = 5;
        for _ in 0..10 {
            tp.cong_avoid_ai(10, 1);
        }
        assert_eq!(tp.snd_cwnd, 11);
        assert_eq!(tp.snd_cwnd_cnt, 0);
    }

    #[test]
    fn real_valued_increase_counts_acks_per_segment() {
        // 2.5 segments per RTT at cwnd 100: one segment per 40 ACKed segments.
        let mut tp = CcState::new(100, 1000, 1500);
        tp.snd_ssthresh = 5;
        for _ in 0..100 {
            tp.cong_avoid_by(2.5, 1);
        }
        assert_eq!(tp.snd_cwnd, 102);
        assert_eq!(tp.snd_cwnd_cnt, 20);
        tp.cong_avoid_by(0.0, 1);
        tp.cong_avoid_by(f64::NAN, 1);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (102, 20));
    }
}
