//! TCP sender: sequence space, SACK scoreboard, loss recovery, RTO, ECN.
//!
//! # What is modeled
//! A one-way bulk sender at segment granularity, as ns-2's agents: segments are
//! numbered 0, 1, 2, ...; there is always new data to send; no handshake, no
//! FIN. Window decisions (cwnd, ssthresh) belong to the [`CongestionControl`];
//! this module owns reliability and calls the controller's hooks at the points
//! Linux does.
//!
//! - Sending: new data while the window allows (RFC 5681), bounded by the
//!   receiver window `cfg.max_cwnd`; limited transmit (RFC 3042).
//! - Loss recovery with SACK (RFC 6675): scoreboard, `IsLost` with DupThresh,
//!   `pipe`, `NextSeg` rules 1 and 2, RecoveryPoint; see [`super::scoreboard`].
//! - Loss recovery without SACK: NewReno (RFC 6582; duplicate ACKs start a fast
//!   retransmit only once the cumulative ACK covers more than `recover`, 3.2
//!   step 1), with the window inflation
//!   of RFC 6582 expressed as a pipe in which each duplicate ACK counts one
//!   segment as having left the network (Linux's "Reno SACK" emulation: sending
//!   while `FlightSize - dupacks < ssthresh` is sending while
//!   `FlightSize < ssthresh + dupacks`, the inflated cwnd).
//! - Retransmission timer (RFC 6298), with RTT samples from the echoed
//!   timestamp (RFC 7323), Karn's rule for the back-off, go-back-N after a
//!   timeout (RFC 5681 3.1, RFC 6675 5.1).
//! - ECN (RFC 3168): ECT on new data (and on retransmissions for a controller
//!   that needs ECN, as Linux: DCTCP), one window reduction per window of data on
//!   ECN-Echo, CWR on the first new segment after any reduction. With XECN
//!   feedback the reduction follows a counted mark (a Count Codepoint, or the
//!   first ECE of a window whose Counter is 0; `ecn_feedback`), and every ACK's
//!   marks reach the controller (`in_ack_event`).
//!
//! # Choices where the RFCs leave room (Linux unless stated)
//! - Entering recovery sets `cwnd = ssthresh` (RFC 6675 section 5 step 4.2) and
//!   sending is then limited by `pipe < cwnd`; the first retransmission is sent
//!   at once, whatever pipe (RFC 5681 3.2 step 2, RFC 6675 step 4.3). With
//!   `prr` (off by default), Proportional Rate Reduction (RFC 6937, Linux's
//!   `tcp_cwnd_reduction`; `tcp::prr`) sets the window on every ACK of a fast
//!   recovery or an ECN reduction instead, from the segments delivered (newly
//!   ACKed or SACKed; without SACK each duplicate ACK counts one, as Linux
//!   counts them), and sending in CWR is then limited by `pipe` too; a
//!   recovery entered during an ECN reduction goes on with it (Linux).
//! - The ACK that ends recovery sets `cwnd = ssthresh` (RFC 6582 3.2 step 3,
//!   option 2; Linux `tcp_end_cwnd_reduction`) and does not also grow the window.
//! - `cong_avoid` is called on ACKs that advance `snd_una` in Open, Disorder and
//!   Loss (slow start after a timeout), never in Recovery or CWR (Linux
//!   `tcp_cong_control`), and not on an ACK that enters or leaves Recovery/CWR;
//!   `acked` is the number of segments the cumulative ACK newly covers.
//! - `pkts_acked` is called on every ACK that advances `snd_una` or SACKs new
//!   data; its count reports each segment once, when first known delivered
//!   (newly SACKed, or cumulatively ACKed without having been SACKed).
//! - The retransmission timer is restarted on every ACK that advances `snd_una`
//!   (RFC 6298 5.3), also on NewReno partial ACKs ("Slow-but-Steady", RFC 6582 4),
//!   and whenever `snd_una` itself is retransmitted (ns-2, Linux; see
//!   `restart_timer_for_head`).
//! - A second timeout while already in Loss keeps ssthresh (RFC 5681 3.1: held
//!   constant when the segment was already retransmitted by the timer).
//! - ECN: a loss entered while in CWR does not reduce the window again (one
//!   reduction per window, RFC 3168 6.1.2). `cwnd_event(EcnEce)` is reported when
//!   the sender reacts to an ECE, i.e. at most once per window.
//! - Restart after idle (RFC 5681 4.1, Linux `tcp_cwnd_restart`): a bulk source
//!   is idle only while its application is off (`stop`, then `resume`). On
//!   resume, when nothing is outstanding and no data segment has been sent for
//!   longer than the RTO, the controller gets `cwnd_event(CwndRestart)` and
//!   cwnd becomes min(cwnd, init_cwnd); ssthresh is kept. Linux halves cwnd once
//!   per RTO idle down to that floor; RFC 5681's single step is used here.
//! - JCC probing (Hua 2002): for a controller that `probes()`, one new segment
//!   per round trip is a probe, and the controller hears of its echo or its
//!   loss through `on_probe` (`tcp::jcc_probe`).
//! - XCP (Katabi 2002): every data segment carries the controller's
//!   congestion header (`xcp_header`), and the feedback an ACK echoes reaches
//!   the controller (`on_xcp_feedback`) on the ACKs that call `cong_avoid`.
//! - RTT measurement noise (`TcpConfig::rtt_noise_ns`): each sample gets
//!   uniform noise in [0, 2 x mean] added before anything uses it.
//!
//! # Left out
//! NextSeg rules 3 and 4 (retransmitting un-lost data when the receiver window
//! blocks new data, and the rescue retransmission); detection of lost
//! retransmissions other than by the RTO, unless `cfg.rack_retransmits` or
//! `cfg.rack` (then Linux's RACK finds them, and with `cfg.rack` every lost
//! segment, in place of DupThresh: `rack`); D-SACK, undo (Eifel, F-RTO); pacing;
//! the RFC 3168 rule of delaying a
//! segment by an RTO when ECE arrives with cwnd already at one segment.
//!
//! # Layout
//! This file holds the sender's state, its ACK and timer entry points and what
//! an application or an agent sets from outside; `transmit` what goes on the
//! wire, `recovery` the loss-recovery state machine, `ecn` the ECN response,
//! `rtt_sample` the RTT samples; the unit tests are in `tests`.

mod ecn;
mod rack;
mod recovery;
mod rtt_sample;
mod send_times;
mod transmit;

use super::ack::SenderView;
use super::cc::{AckSample, CaEvent, CaState, CcCounters, CcState, CcTelemetry, CongestionControl};
use super::cwnd_validation::{hold_window, CwndUse};
use super::ecn_feedback::MarkCounter;
use super::jcc_probe::ProbeClock;
use super::pacing::Pacer;
use super::prr::Prr;
use super::rtt::RttEstimator;
use super::scoreboard::{Sacked, Scoreboard};
use super::send_overhead::SendOverhead;
use super::train_rtt::TrainRtt;
use super::{RttSamples, TcpConfig};
use crate::packet::{Packet, PacketKind};
use crate::rng::SimRng;
use crate::scenario::CcSpec;
use crate::time::SimTime;

/// Counters of one sender, cumulative since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderCounters {
    /// Data segments handed to the network, retransmissions included (with a
    /// send overhead, when released from the hold, see [`SendOverhead`]).
    pub segments_sent: u64,
    /// Of those, retransmissions.
    pub retransmits: u64,
    /// Retransmissions marked lost again while in flight: at a timeout, or
    /// with `cfg.rack_retransmits` as soon as a segment sent after one is
    /// delivered (Linux's `TCPLostRetransmit`).
    pub lost_retransmits: u64,
    /// Retransmission timeouts that fired.
    pub timeouts: u64,
    /// Time spent waiting on those timeouts: for each, from the arming of the
    /// timer to its expiry (the RTO then in force, backed off after earlier
    /// timeouts), ns. No ACK advances `snd_una` in that time (one that did
    /// would have restarted the timer).
    pub rto_wait_ns: u64,
    /// Entries into fast recovery.
    pub fast_recoveries: u64,
    /// Window reductions in response to ECN echoes.
    pub ecn_reductions: u64,
    /// ECN marks counted from ACKs (`AckEvent::marks`, summed).
    pub ecn_marks: u64,
    /// ACKs received.
    pub acks_received: u64,
    /// RTT samples taken, and their sum and extremes (for the per-flow summary).
    pub rtt_samples: u64,
    pub rtt_sum_ns: u128,
    pub rtt_min_ns: SimTime,
    pub rtt_max_ns: SimTime,
}

impl SenderCounters {
    fn record_rtt(&mut self, r: SimTime) {
        self.rtt_min_ns = if self.rtt_samples == 0 { r } else { self.rtt_min_ns.min(r) };
        self.rtt_max_ns = self.rtt_max_ns.max(r);
        self.rtt_samples += 1;
        self.rtt_sum_ns += u128::from(r);
    }
}

/// One RTT sample (the controller's) and the segment it measures: the one
/// whose timestamp the ACK echoed (see `TcpSender::echoed_segment`), or with
/// `rtt_samples = linux` the one the controller's sample was taken on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttSample {
    pub rtt: SimTime,
    pub seq: u32,
}

pub struct TcpSender {
    pub tp: CcState,
    cc: Box<dyn CongestionControl>,
    cfg: TcpConfig,
    flow: u32,
    src: u32,
    dst: u32,
    /// Service class its data segments carry (`flows[].class`; 0 unless set by
    /// [`TcpSender::with_class`]), for the multi-class queues (Hua 2002, Chapter 5).
    class: u8,
    counters: SenderCounters,
    /// Per-segment state of `snd_una..snd_nxt`.
    sb: Scoreboard,
    rtt: RttEstimator,
    /// When the retransmission timer fires; `None` when it is stopped.
    rto_at: Option<SimTime>,
    /// When it was last armed (for `SenderCounters::rto_wait_ns`).
    rto_armed_at: SimTime,
    /// RFC 6675 RecoveryPoint / RFC 6582 `recover` (Linux `high_seq`): `snd_nxt`
    /// when the window was last reduced (loss, timeout or ECN). Recovery, Loss
    /// and CWR end when `snd_una` reaches it; an ECE is acted upon only if the
    /// ACK covers data sent after it.
    recovery_point: u32,
    /// NewReno only: RFC 6582's `recover` as a segment count, `snd_nxt` when the
    /// last fast retransmit or timeout began (`None` before any: the initial
    /// send sequence number). Duplicate ACKs start a fast retransmit only once
    /// `snd_una` has gone past it (RFC 6582 3.2 step 1, section 4.1; ns-2's
    /// `bugfix_`): those a timeout's go-back-N resends provoke do not.
    recover: Option<u32>,
    /// Duplicate ACKs since `snd_una` last advanced (RFC 5681; with SACK, only
    /// ACKs that SACK new data count, RFC 6675 section 2).
    dupacks: u32,
    /// NewReno only: segments that duplicate ACKs say have left the network and
    /// that no cumulative ACK has covered yet (Linux `sacked_out` without SACK).
    reno_sacked: u32,
    /// Set CWR on the next new data segment (RFC 3168 6.1.2).
    cwr_pending: bool,
    /// Marks counted per window of data (XECN Algorithm 6, DCTCP, RFC 3168).
    marks: MarkCounter,
    started: bool,
    /// The application stopped: no new data (see [`TcpSender::stop`]).
    app_stopped: bool,
    /// Segments the application has to send; `u32::MAX` for a bulk (FTP) source.
    data_segments: u32,
    /// The RTT sample the last ACK gave, if any (for per-packet traces).
    pub last_rtt_sample: Option<RttSample>,
    /// Stream of the RTT measurement noise; `None` when `cfg.rtt_noise_ns` is 0.
    rtt_noise: Option<SimRng>,
    /// The host's random send overhead; `None` when `cfg.overhead_ns` is 0.
    overhead: Option<SendOverhead>,
    /// JCC probing, for controllers that probe (`tcp::jcc_probe`).
    probe: Option<ProbeClock>,
    /// The pacing gate; `None` when `cfg.pacing` is off.
    pacer: Option<Pacer>,
    /// The ACK-train RTT correction; `None` when `cfg.rtt_correction` is off.
    train_rtt: Option<TrainRtt>,
    /// Whether the window was used lately; `None` when `cfg.cwnd_validation` is off.
    cwnd_use: Option<CwndUse>,
    /// Send times of the outstanding segments; `None` unless `cfg.rtt_samples` is `linux`.
    send_times: Option<send_times::SendTimes>,
    /// RACK's state, with `cfg.rack_retransmits` or `cfg.rack`; `None` otherwise.
    rack: Option<rack::Rack>,
    /// The window reduction under way with `cfg.prr`; `None` otherwise.
    prr: Option<Prr>,
}

impl TcpSender {
    /// A sender for flow `flow` from node `src` to node `dst`.
    pub fn new(flow: u32, src: u32, dst: u32, cfg: TcpConfig, cc: Box<dyn CongestionControl>) -> TcpSender {
        let tp = CcState::new(cfg.init_cwnd, cfg.max_cwnd, cfg.packet_size);
        let probe = cc.probes().then(ProbeClock::default);
        let rtt = RttEstimator::new(cfg.initial_rto_ns, cfg.min_rto_ns, cfg.max_rto_ns, cfg.clock_granularity_ns, cfg.rto_min_on).with_kind(cfg.rto_estimator);
        let marks = MarkCounter::new(cfg.ecn_feedback, cfg.xecn_count_lost_acks);
        TcpSender {
            tp,
            cc,
            flow,
            src,
            dst,
            class: 0,
            counters: SenderCounters::default(),
            sb: Scoreboard::new(),
            rtt,
            rto_at: None,
            rto_armed_at: 0,
            recovery_point: 0,
            recover: None,
            dupacks: 0,
            reno_sacked: 0,
            cwr_pending: false,
            marks,
            started: false,
            app_stopped: false,
            data_segments: u32::MAX,
            last_rtt_sample: None,
            rtt_noise: None,
            overhead: None,
            probe,
            pacer: Pacer::new(&cfg.pacing),
            train_rtt: cfg.rtt_correction.then(TrainRtt::new),
            cwnd_use: cfg.cwnd_validation.then(CwndUse::default),
            send_times: (cfg.rtt_samples == RttSamples::Linux).then(send_times::SendTimes::default),
            rack: (cfg.rack_retransmits || cfg.rack).then(rack::Rack::default),
            prr: None,
            cfg,
        }
    }

    /// Its data segments carry service class `class`.
    pub fn with_class(mut self, class: u8) -> TcpSender {
        self.class = class;
        self
    }

    /// Give the sender the stream its RTT noise is drawn from; kept only when
    /// `cfg.rtt_noise_ns > 0`, so that a sender without noise never draws.
    pub fn with_rtt_noise(mut self, rng: SimRng) -> TcpSender {
        self.rtt_noise = (self.cfg.rtt_noise_ns > 0).then_some(rng);
        self
    }

    /// Give the sender the stream its send overhead is drawn from; kept only
    /// when `cfg.overhead_ns > 0`, so that a sender without overhead never draws.
    pub fn with_send_overhead(mut self, rng: SimRng) -> TcpSender {
        self.overhead = SendOverhead::new(self.cfg.overhead_ns, rng);
        self
    }

    /// What the receiver's ACK policy is told of this sender (see `ack::SenderView`):
    /// its window, and the first segment it may not send before a new ACK.
    pub fn view(&self) -> SenderView {
        let window = self.tp.snd_cwnd.min(self.cfg.max_cwnd).max(1);
        let snd_nxt = self.sb.snd_nxt();
        let limit = if self.app_stopped { snd_nxt } else { self.sb.snd_una().saturating_add(window).min(self.data_segments) };
        SenderView { window, send_limit: limit.max(snd_nxt) }
    }

    /// The application has written `segments` segments in all (an
    /// application-limited source, see `traffic::video`): send what the window
    /// allows of them, appended to `out` (nothing before the start).
    pub fn write(&mut self, now: SimTime, segments: u32, out: &mut Vec<Packet>) {
        self.data_segments = segments;
        if self.started {
            self.tp.now = now;
            self.transmit(now, out);
        }
    }

    /// A sender with `segments` segments to send, then nothing (a web object).
    pub fn with_data(mut self, segments: u32) -> TcpSender {
        self.data_segments = segments;
        self
    }

    /// Every segment of a finite transfer is acknowledged.
    pub fn finished(&self) -> bool {
        self.data_segments != u32::MAX && self.sb.snd_una() >= self.data_segments
    }

    /// Start sending at `now`: append the first window of segments to `out`.
    /// A second call does nothing.
    pub fn start(&mut self, now: SimTime, _rng: &mut SimRng, out: &mut Vec<Packet>) {
        if self.started {
            return;
        }
        self.started = true;
        self.tp.now = now;
        self.sync_tp();
        self.cc.init(&mut self.tp);
        self.transmit(now, out);
    }

    /// Process an ACK; append segments to send to `out`.
    ///
    /// ACKs below `snd_una` (reordered, old) and ACKs of data never sent are
    /// ignored, as RFC 9293 3.10.7.4 prescribes; so are non-ACK packets.
    pub fn on_ack(&mut self, now: SimTime, ack: &Packet, rng: &mut SimRng, out: &mut Vec<Packet>) {
        self.last_rtt_sample = None;
        self.counters.acks_received += 1;
        self.tp.now = now;
        if !self.started || ack.kind != PacketKind::Ack || ack.seq < self.sb.snd_una() || ack.seq > self.sb.snd_nxt() {
            return;
        }
        let prior_state = self.tp.ca_state;
        let old_snd_una = self.sb.snd_una();
        // What PRR counts over this ACK (only when it may reduce: `cfg.prr`).
        let prr_before = self.cfg.prr.then(|| (self.delivery_mark(), self.sb.marked_lost()));
        let acked = self.sb.ack_to(ack.seq);
        if acked.segments > 0 && self.sb.outstanding() == 0 {
            self.tp.drained_at = now;
        }
        let sacked = if self.cfg.sack { self.sb.apply_sack(ack.sack_blocks()) } else { Sacked::default() };
        let newly_sacked = sacked.newly;
        self.rack_advance(now, old_snd_una, &acked, &sacked);
        let linux = self.send_times.as_mut().and_then(|t| t.take(now, old_snd_una, &acked, &sacked));
        let rtt = if acked.segments > 0 {
            self.on_snd_una_advanced(now, ack, &acked, linux)
        } else {
            self.count_dupack(newly_sacked);
            // Linux samples the segments an ACK newly SACKs too.
            linux.and_then(|two| self.take_rtt_sample(now, ack, &acked, Some(two)))
        };
        if self.cfg.sack && !self.cfg.rack {
            self.sb.mark_lost_by_sack(self.cfg.dupthresh);
        }
        let lost_retransmissions = self.rack_detect_on_ack(now).retransmissions;
        self.counters.lost_retransmits += u64::from(lost_retransmissions);
        // Each segment is reported once, when first known to be delivered.
        let delivered = acked.not_sacked_before + newly_sacked;
        // What PRR counts as delivered, taken before the state machine runs: leaving
        // recovery forgets the duplicate ACKs (`reno_sacked`), which would read as a loss.
        let prr_counts = prr_before.map(|(mark, lost)| (self.delivered_since(mark), lost));
        if acked.segments > 0 || newly_sacked > 0 {
            let sample = AckSample { pkts_acked: delivered, rtt };
            self.sync_tp();
            self.cc.pkts_acked(&mut self.tp, &sample, rng);
        }
        let respond = self.count_marks(ack, delivered);
        self.update_ca_state(acked.segments > 0, lost_retransmissions > 0, now, out);
        if let Some(feedback) = self.probe.as_mut().and_then(|p| p.on_ack(ack)) {
            self.sync_tp();
            self.cc.on_probe(&mut self.tp, feedback);
        }
        if respond {
            self.on_ecn_echo();
        }
        if let Some((prr_delivered, lost_before)) = prr_counts.filter(|_| self.prr.is_some()) {
            let clean_advance = acked.segments > 0 && self.sb.marked_lost() == lost_before;
            self.reduce_proportionally(prr_delivered, clean_advance);
        }
        if acked.segments > 0 && grows_window(prior_state) && grows_window(self.tp.ca_state) {
            self.sync_tp();
            if let Some(h) = ack.xcp {
                self.cc.on_xcp_feedback(&mut self.tp, f64::from(h.feedback));
            }
            let before = (self.tp.snd_cwnd, self.tp.snd_cwnd_cnt);
            let may_grow = self.cwnd_use.as_ref().is_none_or(|u| u.may_grow(&self.tp));
            self.cc.cong_avoid(&mut self.tp, acked.segments, rng);
            if !may_grow {
                hold_window(&mut self.tp, before);
            }
        }
        self.transmit(now, out);
    }

    /// The retransmission timer expired at `now` (the engine calls this only when
    /// `rto_deadline() == Some(now)`; other calls are ignored).
    ///
    /// RFC 6298 5.4-5.6 and RFC 5681 3.1: ssthresh from the controller, cwnd =
    /// 1 (the loss window), back off the timer, retransmit from `snd_una`
    /// (go-back-N through the scoreboard: every un-SACKed segment is lost).
    pub fn on_rto(&mut self, now: SimTime, _rng: &mut SimRng, out: &mut Vec<Packet>) {
        match self.rto_at {
            Some(at) if at <= now => {}
            _ => return,
        }
        self.tp.now = now;
        if self.sb.outstanding() == 0 {
            self.stop_timer();
            return;
        }
        if self.reo_timer_pending() {
            self.on_reo_timeout(now, out);
            return;
        }
        self.counters.timeouts += 1;
        self.counters.rto_wait_ns += now - self.rto_armed_at;
        self.sync_tp();
        // RFC 5681 3.1: ssthresh is held constant when the timer fires again
        // for data it already retransmitted.
        if self.tp.ca_state != CaState::Loss {
            self.tp.snd_ssthresh = self.cc.ssthresh(&self.tp);
        }
        self.tp.snd_cwnd = 1;
        self.tp.snd_cwnd_cnt = 0;
        self.recovery_point = self.sb.snd_nxt();
        self.recover = Some(self.recovery_point);
        self.dupacks = 0;
        self.reno_sacked = 0;
        self.counters.lost_retransmits += u64::from(self.sb.retrans_out());
        self.sb.mark_all_lost();
        if let Some(rack) = self.rack.as_mut() {
            rack.clear();
        }
        self.cwr_pending = self.cfg.ecn;
        self.prr = None;
        self.rtt.back_off();
        self.sync_tp();
        self.cc.cwnd_event(&mut self.tp, CaEvent::Loss);
        self.set_ca_state(CaState::Loss);
        self.arm_rto(now);
        self.transmit(now, out);
    }

    /// (Re)start the retransmission timer at `now`: it fires one RTO later,
    /// or, where it takes its slot back from RACK's reordering timer, one RTO
    /// after `snd_una` was sent (Linux `tcp_rearm_rto`), at the latest now.
    fn arm_rto(&mut self, now: SimTime) {
        let after_reo = self.rack.as_mut().is_some_and(|r| std::mem::take(&mut r.reo_timer));
        let head_sent = after_reo.then(|| self.send_times.as_ref().and_then(|t| t.at(self.sb.snd_una()))).flatten();
        self.rto_at = Some(match head_sent {
            Some(sent) => sent.saturating_add(self.rtt.rto()).max(now),
            None => now.saturating_add(self.rtt.rto()),
        });
        self.rto_armed_at = now;
    }

    /// Stop the retransmission timer, or RACK's reordering timer in its slot.
    fn stop_timer(&mut self) {
        self.rto_at = None;
        if let Some(rack) = self.rack.as_mut() {
            rack.reo_timer = false;
        }
    }

    /// When the retransmission timer (or RACK's reordering timer, in its
    /// slot) fires, if armed.
    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rto_at
    }

    /// When the segments held by the send overhead are released, or the
    /// pacing gate reopens for a segment that waits, whichever is first.
    pub fn release_deadline(&self) -> Option<SimTime> {
        let overhead = self.overhead.as_ref().and_then(SendOverhead::due);
        let pacing = self.pacer.as_ref().and_then(Pacer::due);
        overhead.into_iter().chain(pacing).min()
    }

    /// `release_deadline()` is due at `now`: the segments the send overhead
    /// holds leave the host, and what the pacing gate held back is sent,
    /// appended to `out` (what is not due yet is left alone).
    pub fn on_release(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if let Some(overhead) = self.overhead.as_mut().filter(|o| o.due().is_some_and(|at| at <= now)) {
            let from = out.len();
            overhead.release(now, out);
            for pkt in &out[from..] {
                self.count_sent(pkt, now);
            }
        }
        if let Some(pacer) = self.pacer.as_mut().filter(|p| p.due().is_some_and(|at| at <= now)) {
            pacer.woken();
            self.tp.now = now;
            self.transmit(now, out);
        }
    }

    pub fn counters(&self) -> &SenderCounters {
        &self.counters
    }

    /// The controller's counters as of `now`.
    pub fn cc_counters(&self, now: SimTime) -> CcCounters {
        self.cc.counters(now)
    }

    pub fn cc_telemetry(&self) -> Option<CcTelemetry> {
        self.cc.telemetry()
    }

    /// The queueing delay the controller estimates (every PERT variant), ns.
    pub fn cc_queueing_delay(&self) -> Option<SimTime> {
        self.cc.queueing_delay()
    }

    /// The controller's early-response probability now, if it draws one.
    pub fn cc_response_probability(&self) -> Option<f64> {
        self.cc.response_probability()
    }

    /// The controller's last path load reduction factor R (JCC), if it probes.
    pub fn cc_path_r(&self) -> Option<f64> {
        self.cc.path_r()
    }

    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }

    /// The controller takes new parameters (a run in steps; see
    /// [`CongestionControl::set_params`]).
    pub fn set_cc_params(&mut self, spec: &CcSpec) {
        self.cc.set_params(spec);
    }

    /// The current retransmission timeout (backed off if timeouts occurred).
    pub fn rto(&self) -> SimTime {
        self.rtt.rto()
    }

    /// RTTVAR of RFC 6298 (SRTT is `tp.srtt`).
    pub fn rttvar(&self) -> SimTime {
        self.rtt.rttvar()
    }

    /// RFC 6675 RecoveryPoint (see the field's doc).
    pub fn recovery_point(&self) -> u32 {
        self.recovery_point
    }

    /// Check the scoreboard and the view given to the controller (tests).
    #[cfg(test)]
    pub(crate) fn check_invariants(&self) {
        self.sb.check_invariants();
        assert_eq!((self.tp.snd_una, self.tp.snd_nxt), (self.sb.snd_una(), self.sb.snd_nxt()));
        assert_eq!(self.tp.packets_in_flight, self.pipe());
        assert!(self.pipe() <= self.sb.outstanding() + self.sb.retrans_out());
        // RFC 6298 5.1/5.2: the timer runs exactly when data is outstanding.
        assert_eq!(self.rto_at.is_some(), self.sb.outstanding() > 0);
    }

    /// What the receiver holds, in segments: `snd_una` plus the segments SACKed
    /// above it (without SACK, those the duplicate ACKs announced). Its growth
    /// over an ACK is what the ACK delivered, as Linux counts it for PRR (a
    /// cumulative ACK without SACK delivers at least one, `tcp_remove_reno_sacks`).
    fn delivery_mark(&self) -> u32 {
        self.sb.snd_una().wrapping_add(self.sb.sacked_out()).wrapping_add(self.reno_sacked)
    }

    /// What was delivered since the delivery mark was `mark`. Without SACK a
    /// duplicate ACK can lower the mark (the duplicate ACKs counted are capped
    /// at the outstanding segments less the hole): that delivers nothing, as
    /// Linux counts a duplicate ACK's delivery only when positive (`tcp_add_reno_sack`).
    fn delivered_since(&self, mark: u32) -> u32 {
        (self.delivery_mark().wrapping_sub(mark) as i32).max(0) as u32
    }

    /// RFC 6675 SetPipe; without SACK, duplicate ACKs stand for SACKed segments.
    fn pipe(&self) -> u32 {
        self.sb.pipe(if self.cfg.sack { 0 } else { self.reno_sacked })
    }

    /// Copy the sender's view into the state the controller reads.
    fn sync_tp(&mut self) {
        self.tp.snd_una = self.sb.snd_una();
        self.tp.snd_nxt = self.sb.snd_nxt();
        self.tp.packets_in_flight = self.pipe();
        self.tp.srtt = self.rtt.srtt();
    }

    /// The application stops handing data to TCP (ns-2's `$ftp stop`): no new
    /// segments from now on; what is outstanding is still delivered, and
    /// retransmitted if lost.
    pub fn stop(&mut self) {
        self.app_stopped = true;
    }

    /// The window becomes `cwnd` segments (at least 1, at most the receiver
    /// window), set from outside the controller (an `agent` flow's, see
    /// `cc::agent`); a started sender sends what it now allows.
    pub fn set_cwnd(&mut self, now: SimTime, cwnd: u32, out: &mut Vec<Packet>) {
        self.tp.now = now;
        self.tp.snd_cwnd = cwnd.clamp(1, self.tp.snd_cwnd_clamp.max(1));
        self.tp.snd_cwnd_cnt = 0;
        if self.started {
            self.transmit(now, out);
        }
    }

    /// The segments leave at most at `rate_bps` (> 0) from now on, set from
    /// outside (an `agent` flow's, see `tcp::pacing`); a started sender sends
    /// what the gate now allows.
    pub fn set_pacing_rate(&mut self, now: SimTime, rate_bps: u64, out: &mut Vec<Packet>) {
        self.tp.now = now;
        match self.pacer.as_mut() {
            Some(pacer) => pacer.set_rate(rate_bps, self.tp.mss),
            None => self.pacer = Some(Pacer::at_rate(rate_bps)),
        }
        if self.started {
            self.transmit(now, out);
        }
    }

    /// The pacing rate set from outside, if any.
    pub fn pacing_rate(&self) -> Option<u64> {
        self.pacer.as_ref().and_then(Pacer::rate_bps)
    }

    /// The application has data again after [`TcpSender::stop`] (a flow
    /// rejoining): restart after idle (see the module doc), then send what the
    /// window allows, appended to `out`. Does nothing unless stopped.
    pub fn resume(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if !self.app_stopped {
            return;
        }
        self.app_stopped = false;
        self.tp.now = now;
        if self.started && self.sb.outstanding() == 0 && now.saturating_sub(self.tp.last_send) > self.rtt.rto() {
            self.sync_tp();
            self.cc.cwnd_event(&mut self.tp, CaEvent::CwndRestart);
            self.tp.snd_cwnd = self.tp.snd_cwnd.min(self.cfg.init_cwnd).max(1);
            self.tp.snd_cwnd_cnt = 0;
        }
        if self.started {
            self.transmit(now, out);
        }
    }
}

/// States in which `cong_avoid` may grow the window (Linux: not in CWR or Recovery).
fn grows_window(state: CaState) -> bool {
    matches!(state, CaState::Open | CaState::Disorder | CaState::Loss)
}

#[cfg(test)]
mod tests;
