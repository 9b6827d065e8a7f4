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
//! - Loss recovery without SACK: NewReno (RFC 6582), with the window inflation
//!   of RFC 6582 expressed as a pipe in which each duplicate ACK counts one
//!   segment as having left the network (Linux's "Reno SACK" emulation: sending
//!   while `FlightSize - dupacks < ssthresh` is sending while
//!   `FlightSize < ssthresh + dupacks`, the inflated cwnd).
//! - Retransmission timer (RFC 6298), with RTT samples from the echoed
//!   timestamp (RFC 7323), Karn's rule for the back-off, go-back-N after a
//!   timeout (RFC 5681 3.1, RFC 6675 5.1).
//! - ECN (RFC 3168): ECT on new data, one window reduction per window of data on
//!   ECN-Echo, CWR on the first new segment after any reduction. With XECN
//!   feedback the reduction follows a counted mark (a Count Codepoint, or the
//!   first ECE of a window whose Counter is 0; `ecn_feedback`), and every ACK's
//!   marks reach the controller (`in_ack_event`).
//!
//! # Choices where the RFCs leave room (Linux unless stated)
//! - Entering recovery sets `cwnd = ssthresh` (RFC 6675 section 5 step 4.2) and
//!   sending is then limited by `pipe < cwnd`; the first retransmission is sent
//!   at once, whatever pipe (RFC 5681 3.2 step 2, RFC 6675 step 4.3). No
//!   Proportional Rate Reduction (RFC 6937).
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
//! retransmissions (left to the RTO); D-SACK, undo (Eifel, F-RTO); PRR; pacing;
//! the RFC 3168 rule of delaying a
//! segment by an RTO when ECE arrives with cwnd already at one segment.

use super::ack::SenderView;
use super::cc::{AckEvent, AckSample, CaEvent, CaState, CcCounters, CcState, CcTelemetry, CongestionControl};
use super::cwnd_validation::{hold_window, CwndUse};
use super::ecn_feedback::{AckMarksIn, MarkCounter};
use super::jcc_probe::ProbeClock;
use super::pacing::Pacer;
use super::rtt::RttEstimator;
use super::scoreboard::{Acked, Scoreboard};
use super::send_overhead::SendOverhead;
use super::train_rtt::TrainRtt;
use super::{TcpConfig, TsEcho};
use crate::packet::{Ecn, Packet, PacketKind};
use crate::rng::SimRng;
use crate::scenario::CcSpec;
use crate::time::SimTime;
use rand::Rng;

/// Counters of one sender, cumulative since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderCounters {
    /// Data segments handed to the network, retransmissions included (with a
    /// send overhead, when released from the hold, see [`SendOverhead`]).
    pub segments_sent: u64,
    /// Of those, retransmissions.
    pub retransmits: u64,
    /// Retransmission timeouts that fired.
    pub timeouts: u64,
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

/// One RTT sample and the segment it measures: the one whose timestamp the
/// ACK echoed (see `TcpSender::echoed_segment`), by segment number.
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
    counters: SenderCounters,
    /// Per-segment state of `snd_una..snd_nxt`.
    sb: Scoreboard,
    rtt: RttEstimator,
    /// When the retransmission timer fires; `None` when it is stopped.
    rto_at: Option<SimTime>,
    /// RFC 6675 RecoveryPoint / RFC 6582 `recover` (Linux `high_seq`): `snd_nxt`
    /// when the window was last reduced (loss, timeout or ECN). Recovery, Loss
    /// and CWR end when `snd_una` reaches it; an ECE is acted upon only if the
    /// ACK covers data sent after it.
    recovery_point: u32,
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
    /// When the last data segment (new or retransmitted) was sent.
    last_send: SimTime,
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
}

/// What `NextSeg` chose to send.
#[derive(Clone, Copy, Debug)]
enum Segment {
    Retransmit(u32),
    New,
}

impl TcpSender {
    /// A sender for flow `flow` from node `src` to node `dst`.
    pub fn new(flow: u32, src: u32, dst: u32, cfg: TcpConfig, cc: Box<dyn CongestionControl>) -> TcpSender {
        let tp = CcState::new(cfg.init_cwnd, cfg.max_cwnd, cfg.packet_size);
        let probe = cc.probes().then(ProbeClock::default);
        let rtt = RttEstimator::new(cfg.initial_rto_ns, cfg.min_rto_ns, cfg.max_rto_ns, cfg.clock_granularity_ns, cfg.rto_min_on);
        let marks = MarkCounter::new(cfg.ecn_feedback, cfg.xecn_count_lost_acks);
        TcpSender {
            tp,
            cc,
            flow,
            src,
            dst,
            counters: SenderCounters::default(),
            sb: Scoreboard::new(),
            rtt,
            rto_at: None,
            recovery_point: 0,
            dupacks: 0,
            reno_sacked: 0,
            cwr_pending: false,
            marks,
            started: false,
            app_stopped: false,
            data_segments: u32::MAX,
            last_rtt_sample: None,
            rtt_noise: None,
            last_send: 0,
            overhead: None,
            probe,
            pacer: Pacer::new(&cfg.pacing),
            train_rtt: cfg.rtt_correction.then(TrainRtt::new),
            cwnd_use: cfg.cwnd_validation.then(CwndUse::default),
            cfg,
        }
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
        let acked = self.sb.ack_to(ack.seq);
        let newly_sacked = if self.cfg.sack { self.sb.apply_sack(ack.sack_blocks()) } else { 0 };
        let rtt = if acked.segments > 0 {
            self.on_snd_una_advanced(now, ack, &acked)
        } else {
            self.count_dupack(newly_sacked);
            None
        };
        if self.cfg.sack {
            self.sb.mark_lost_by_sack(self.cfg.dupthresh);
        }
        // Each segment is reported once, when first known to be delivered.
        let delivered = acked.not_sacked_before + newly_sacked;
        if acked.segments > 0 || newly_sacked > 0 {
            let sample = AckSample { pkts_acked: delivered, rtt };
            self.sync_tp();
            self.cc.pkts_acked(&mut self.tp, &sample, rng);
        }
        let respond = self.count_marks(ack, delivered);
        self.update_ca_state(acked.segments > 0, now, out);
        if let Some(feedback) = self.probe.as_mut().and_then(|p| p.on_ack(ack)) {
            self.sync_tp();
            self.cc.on_probe(&mut self.tp, feedback);
        }
        if respond {
            self.on_ecn_echo();
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
            self.rto_at = None;
            return;
        }
        self.counters.timeouts += 1;
        self.sync_tp();
        // RFC 5681 3.1: ssthresh is held constant when the timer fires again
        // for data it already retransmitted.
        if self.tp.ca_state != CaState::Loss {
            self.tp.snd_ssthresh = self.cc.ssthresh(&self.tp);
        }
        self.tp.snd_cwnd = 1;
        self.tp.snd_cwnd_cnt = 0;
        self.recovery_point = self.sb.snd_nxt();
        self.dupacks = 0;
        self.reno_sacked = 0;
        self.sb.mark_all_lost();
        self.cwr_pending = self.cfg.ecn;
        self.rtt.back_off();
        self.sync_tp();
        self.cc.cwnd_event(&mut self.tp, CaEvent::Loss);
        self.set_ca_state(CaState::Loss);
        self.rto_at = Some(now.saturating_add(self.rtt.rto()));
        self.transmit(now, out);
    }

    /// When the retransmission timer fires, if armed.
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
                count_sent(&mut self.counters, &mut self.last_send, pkt, now);
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

    /// Bookkeeping of an ACK that advanced `snd_una`: RTT sample (returned),
    /// timer, duplicate-ACK counts.
    fn on_snd_una_advanced(&mut self, now: SimTime, ack: &Packet, acked: &Acked) -> Option<SimTime> {
        self.dupacks = 0;
        // Linux `tcp_remove_reno_sacks`: one of the segments acked is the hole
        // itself; the others are those the duplicate ACKs had announced.
        self.reno_sacked = self.reno_sacked.saturating_sub(acked.segments - 1);
        let rtt = self.take_rtt_sample(now, ack, acked);
        // RFC 6298 5.2: stop the timer when nothing is outstanding; 5.3: restart it.
        self.rto_at = (self.sb.outstanding() > 0).then(|| now.saturating_add(self.rtt.rto()));
        rtt
    }

    /// RTT sample from the echoed timestamp. RFC 7323 4.1 (RTTM): only ACKs that
    /// advance `snd_una` give a sample (a duplicate ACK echoes an older segment,
    /// RFC 7323 4.3, and would overestimate). Timestamps make the sample
    /// unambiguous even for a retransmitted segment, so it always feeds the
    /// estimator (RFC 6298 section 3); but the timer back-off is kept until the
    /// sample comes from a segment that was never retransmitted (Karn). The
    /// echoed segment is the old `snd_una` (the receiver echoes the segment at
    /// the left edge of its window, see `receiver`).
    fn take_rtt_sample(&mut self, now: SimTime, ack: &Packet, acked: &Acked) -> Option<SimTime> {
        if ack.ts > now {
            if let Some(t) = self.train_rtt.as_mut() {
                t.forget(acked.segments);
            }
            return None;
        }
        let noise = match &mut self.rtt_noise {
            Some(rng) => rng.gen_range(0..=2 * self.cfg.rtt_noise_ns),
            None => 0,
        };
        let r = now - ack.ts + noise;
        // Qian 2011 eq. 5.4: the sample without the train's self-induced delay.
        let r = match self.train_rtt.as_mut() {
            Some(t) => t.correct(now, acked.segments, ack.ts, r),
            None => r,
        };
        // Samples expected per RTT (RFC 7323 Appendix G): one per ACK of the
        // flight the sample belongs to (still outstanding + just acknowledged).
        let flight = self.sb.outstanding().saturating_add(acked.segments);
        let per_ack = self.cfg.ack_policy().segments_per_ack(&self.cfg.adaptive_ack);
        self.rtt.sample(r, flight.div_ceil(per_ack));
        if !acked.first_was_retransmitted {
            self.rtt.reset_backoff();
        }
        self.counters.record_rtt(r);
        self.last_rtt_sample = Some(RttSample { rtt: r, seq: self.echoed_segment(ack, acked) });
        Some(r)
    }

    /// The segment whose timestamp `ack` echoes, by the receiver's echo rule
    /// (`cfg.ts_echo`, see `receiver`): RFC 7323's TS.Recent is the segment at
    /// the left edge of the window, the old `snd_una`; ns-2's newest timestamp
    /// is the last segment to arrive, which on a path that keeps the order is
    /// the newest sent: the last segment the ACK covers (`ack.seq - 1`), or
    /// the retransmission of the old `snd_una` that filled the hole. Exact
    /// while no segment is lost; around a loss, the RFC rule's "never goes
    /// backwards" can keep an older echo, which this does not follow.
    fn echoed_segment(&self, ack: &Packet, acked: &Acked) -> u32 {
        let old_snd_una = ack.seq - acked.segments;
        match self.cfg.ts_echo {
            TsEcho::Earliest => old_snd_una,
            TsEcho::Latest if acked.first_was_retransmitted => old_snd_una,
            TsEcho::Latest => ack.seq - 1,
        }
    }

    /// A duplicate ACK (RFC 5681 section 2: same cumulative ACK, data
    /// outstanding; with SACK, RFC 6675 section 2: it must SACK new data).
    fn count_dupack(&mut self, newly_sacked: u32) {
        let outstanding = self.sb.outstanding();
        if outstanding == 0 || (self.cfg.sack && newly_sacked == 0) {
            return;
        }
        self.dupacks += 1;
        if !self.cfg.sack {
            // The segment at snd_una is the one missing: at most outstanding - 1 arrived.
            self.reno_sacked = (self.reno_sacked + 1).min(outstanding - 1);
        }
    }

    /// The state machine of loss recovery (Linux `tcp_fastretrans_alert`), run
    /// after the scoreboard has been updated with an ACK.
    fn update_ca_state(&mut self, advanced: bool, now: SimTime, out: &mut Vec<Packet>) {
        let window_done = self.sb.snd_una() >= self.recovery_point;
        match self.tp.ca_state {
            CaState::Recovery if window_done => self.exit_recovery(),
            CaState::Recovery if advanced && !self.cfg.sack => {
                // RFC 6582 3.2 step 5: a partial ACK; the next hole is lost too.
                self.sb.mark_head_lost();
                self.retransmit_head(now, out);
            }
            // RFC 6675 5.1: recovery after a timeout ends at RecoveryPoint.
            CaState::Loss if window_done => self.set_ca_state(CaState::Open),
            CaState::Cwr if window_done => {
                self.sync_tp();
                self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
                self.set_ca_state(CaState::Open);
            }
            _ => {}
        }
        if matches!(self.tp.ca_state, CaState::Open | CaState::Disorder | CaState::Cwr) {
            if self.loss_detected() {
                self.enter_recovery(now, out);
            } else if self.tp.ca_state != CaState::Cwr {
                let disorder = self.dupacks > 0 || self.sb.sacked_out() > 0 || self.reno_sacked > 0;
                self.set_ca_state(if disorder { CaState::Disorder } else { CaState::Open });
            }
        }
    }

    /// RFC 5681 3.2 (DupThresh duplicate ACKs) or, with SACK, RFC 6675
    /// section 5: `IsLost(HighACK + 1)`.
    fn loss_detected(&self) -> bool {
        self.dupacks >= self.cfg.dupthresh.max(1) || (self.cfg.sack && self.sb.head_is_lost())
    }

    /// Enter fast recovery (RFC 6675 section 5 steps 4.1-4.3; RFC 6582 3.2 steps 1-2).
    fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.counters.fast_recoveries += 1;
        if self.tp.ca_state != CaState::Cwr {
            // One reduction per window: an ECN reduction already made counts (RFC 3168 6.1.2).
            self.sync_tp();
            self.tp.snd_ssthresh = self.cc.ssthresh(&self.tp);
            self.cwr_pending = self.cfg.ecn;
        }
        self.tp.snd_cwnd = self.tp.snd_ssthresh.clamp(1, self.tp.snd_cwnd_clamp.max(1));
        self.tp.snd_cwnd_cnt = 0;
        self.recovery_point = self.sb.snd_nxt();
        self.set_ca_state(CaState::Recovery);
        self.sb.mark_head_lost();
        self.retransmit_head(now, out);
    }

    /// Leave fast recovery on the ACK that covers RecoveryPoint.
    fn exit_recovery(&mut self) {
        self.tp.snd_cwnd = self.tp.snd_ssthresh.clamp(1, self.tp.snd_cwnd_clamp.max(1));
        self.tp.snd_cwnd_cnt = 0;
        self.reno_sacked = 0;
        self.sync_tp();
        self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
        self.set_ca_state(CaState::Open);
    }

    /// Count the ECN marks of an acceptable ACK that newly delivered
    /// `delivered` segments, tell the controller, and say whether the sender
    /// should respond (see `ecn_feedback`). Without ECN the ACK's ECN flags are
    /// ignored (RFC 3168 6.1.1: not negotiated), whatever the peer set.
    fn count_marks(&mut self, ack: &Packet, delivered: u32) -> bool {
        let per_ack = if self.cfg.delayed_ack { 2 } else { 1 };
        let input = AckMarksIn {
            cwr: self.cfg.ecn && ack.cwr,
            ece: self.cfg.ecn && ack.ece,
            acked: delivered,
            inferred_lost: delivered.saturating_sub(per_ack),
            stale: self.sb.snd_una() <= self.recovery_point,
        };
        let m = self.marks.on_ack(&input, self.sb.snd_una(), self.sb.snd_nxt());
        self.counters.ecn_marks += u64::from(m.marks);
        self.sync_tp();
        self.cc.in_ack_event(&mut self.tp, &AckEvent { acked: delivered, ece: input.ece, marks: m.marks, window: m.window });
        m.respond
    }

    /// RFC 3168 6.1.2: react to ECN-Echo at most once per window of data, and
    /// not while a loss reduction is under way. The ACK must cover data sent
    /// after the last reduction (`snd_una > recovery_point`, ns-2's
    /// `seqno > recover_`): ACKs for the older data may still echo the CE that
    /// caused that reduction.
    fn on_ecn_echo(&mut self) {
        if !matches!(self.tp.ca_state, CaState::Open | CaState::Disorder) || self.sb.snd_una() <= self.recovery_point {
            return;
        }
        self.sync_tp();
        let ssthresh = self.cc.ecn_ssthresh(&self.tp);
        self.tp.snd_ssthresh = ssthresh;
        // Halve (as the controller says) but never raise, and keep one segment.
        self.tp.snd_cwnd = self.tp.snd_cwnd.min(ssthresh).max(1);
        self.tp.snd_cwnd_cnt = 0;
        self.recovery_point = self.sb.snd_nxt();
        self.counters.ecn_reductions += 1;
        self.cwr_pending = true;
        self.sync_tp();
        self.cc.cwnd_event(&mut self.tp, CaEvent::EcnEce);
        self.set_ca_state(CaState::Cwr);
    }

    /// Change `ca_state` and tell the controller (after the change).
    fn set_ca_state(&mut self, state: CaState) {
        if self.tp.ca_state == state {
            return;
        }
        self.tp.ca_state = state;
        self.sync_tp();
        self.cc.set_state(&mut self.tp, state);
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

    /// Send what the window (and the pacing gate) allows.
    fn transmit(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let sent_before = out.len();
        while let Some(seg) = self.next_seg() {
            if let Some(pacer) = self.pacer.as_mut().filter(|p| !p.open(now, self.tp.ca_state)) {
                pacer.hold();
                break;
            }
            match seg {
                Segment::Retransmit(seq) => self.send_retransmission(seq, now, out),
                Segment::New => self.send_new(now, out),
            }
            if let Some(pacer) = self.pacer.as_mut() {
                pacer.sent(now, self.rtt.srtt(), self.tp.snd_cwnd.min(self.cfg.max_cwnd), self.tp.ca_state, self.tp.mss);
            }
        }
        self.sync_tp();
        if let Some(u) = self.cwnd_use.as_mut() {
            // In flight as `next_seg` counts it: the pipe in Recovery and Loss (synced above), else the outstanding segments.
            let outstanding = self.sb.outstanding();
            let in_flight = match self.tp.ca_state {
                CaState::Recovery | CaState::Loss => self.tp.packets_in_flight,
                _ => outstanding,
            };
            u.on_transmit(in_flight >= self.tp.snd_cwnd.max(1), out.len() > sent_before, outstanding, self.tp.snd_una, self.tp.snd_nxt);
        }
    }

    /// The next segment the window allows, if any.
    ///
    /// In Recovery and Loss, RFC 6675 section 5 step (C): while `pipe < cwnd`,
    /// NextSeg rule 1 (a lost segment above HighRxt), else rule 2 (new data).
    /// Otherwise RFC 5681: FlightSize (`snd_nxt - snd_una`) below cwnd, plus up
    /// to two segments on the first duplicate ACKs with limited transmit
    /// (RFC 3042: FlightSize at most cwnd + 2).
    fn next_seg(&mut self) -> Option<Segment> {
        let cwnd = self.tp.snd_cwnd.max(1);
        match self.tp.ca_state {
            CaState::Recovery | CaState::Loss => {
                if self.pipe() >= cwnd {
                    return None;
                }
                if let Some(seq) = self.sb.next_lost() {
                    return Some(Segment::Retransmit(seq));
                }
            }
            _ => {
                // Open has no duplicate ACKs; Disorder and CWR may.
                let extra = if self.cfg.limited_transmit { self.dupacks.min(2) } else { 0 };
                if self.sb.outstanding() >= cwnd + extra {
                    return None;
                }
            }
        }
        self.new_data_allowed().then_some(Segment::New)
    }

    /// The receiver window (`cfg.max_cwnd` segments beyond `snd_una`) has room
    /// and the application has data (the sequence space bounds a bulk source).
    fn new_data_allowed(&self) -> bool {
        !self.app_stopped && self.sb.outstanding() < self.cfg.max_cwnd.max(1) && self.sb.snd_nxt() < self.data_segments
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
        if self.started && self.sb.outstanding() == 0 && now.saturating_sub(self.last_send) > self.rtt.rto() {
            self.sync_tp();
            self.cc.cwnd_event(&mut self.tp, CaEvent::CwndRestart);
            self.tp.snd_cwnd = self.tp.snd_cwnd.min(self.cfg.init_cwnd).max(1);
            self.tp.snd_cwnd_cnt = 0;
        }
        if self.started {
            self.transmit(now, out);
        }
    }

    /// Fast retransmit of `snd_una`, just declared lost (RFC 5681 3.2 step 2,
    /// RFC 6582 3.2 step 5, RFC 6675 step 4.3), whatever pipe says.
    fn retransmit_head(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if let Some(seq) = self.sb.next_lost() {
            self.send_retransmission(seq, now, out);
        }
    }

    fn send_new(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.sb.outstanding() == 0 {
            self.sync_tp();
            self.cc.cwnd_event(&mut self.tp, CaEvent::TxStart);
        }
        let seq = self.sb.push_new();
        if let Some(t) = self.train_rtt.as_mut() {
            t.sent_new(now);
        }
        let mut pkt = self.data_packet(seq, now);
        // RFC 3168 6.1.2: CWR on the first new data segment after a reduction.
        pkt.cwr = std::mem::take(&mut self.cwr_pending);
        if let Some(p) = self.probe.as_mut() {
            p.on_new_segment(&mut pkt);
        }
        self.emit(pkt, now, out);
    }

    fn send_retransmission(&mut self, seq: u32, now: SimTime, out: &mut Vec<Packet>) {
        if let Some(feedback) = self.probe.as_mut().and_then(|p| p.on_retransmit(seq)) {
            self.sync_tp();
            self.cc.on_probe(&mut self.tp, feedback);
        }
        self.sb.mark_retransmitted(seq);
        if let Some(t) = self.train_rtt.as_mut() {
            t.resent(seq.saturating_sub(self.sb.snd_una()), now);
        }
        let mut pkt = self.data_packet(seq, now);
        pkt.retx = true;
        // RFC 3168 6.1.5: retransmitted segments are not ECN-capable.
        pkt.ecn = Ecn::NotEct;
        if seq == self.sb.snd_una() {
            self.restart_timer_for_head(now);
        }
        self.emit(pkt, now, out);
    }

    /// Restart the timer when `snd_una` itself is retransmitted, as ns-2
    /// (`reset_rtx_timer` in `dupack_action`) and Linux
    /// (`tcp_xmit_retransmit_queue`, for the head of the queue) do. RFC 6298
    /// would leave the timer running from the last advancing ACK; with the RTO
    /// near its 200 ms floor and RTTs near 100 ms it would then often expire
    /// just before the ACK of the retransmission (one RTT to collect the
    /// duplicate ACKs or SACKs, one for the retransmission).
    fn restart_timer_for_head(&mut self, now: SimTime) {
        self.rto_at = Some(now.saturating_add(self.rtt.rto()));
    }

    fn data_packet(&self, seq: u32, now: SimTime) -> Packet {
        let mut pkt = Packet::new(PacketKind::Data, self.flow, self.src, self.dst, self.cfg.packet_size);
        pkt.seq = seq;
        pkt.ts = now;
        pkt.ecn = if self.cfg.ecn { Ecn::Ect } else { Ecn::NotEct };
        pkt.xcp = self.cc.xcp_header(&self.tp);
        pkt
    }

    /// TCP outputs a segment: it leaves at once, or waits in the send overhead's hold.
    fn emit(&mut self, pkt: Packet, now: SimTime, out: &mut Vec<Packet>) {
        // RFC 6298 5.1: start the timer if it is not running.
        if self.rto_at.is_none() {
            self.rto_at = Some(now.saturating_add(self.rtt.rto()));
        }
        match self.overhead.as_mut() {
            Some(overhead) => overhead.hold(now, pkt),
            None => {
                count_sent(&mut self.counters, &mut self.last_send, &pkt, now);
                out.push(pkt);
            }
        }
    }
}

/// A data segment leaves the host at `now`.
fn count_sent(counters: &mut SenderCounters, last_send: &mut SimTime, pkt: &Packet, now: SimTime) {
    counters.segments_sent += 1;
    counters.retransmits += u64::from(pkt.retx);
    *last_send = now;
}

/// States in which `cong_avoid` may grow the window (Linux: not in CWR or Recovery).
fn grows_window(state: CaState) -> bool {
    matches!(state, CaState::Open | CaState::Disorder | CaState::Loss)
}

#[cfg(test)]
mod tests {
    use super::super::testbench::{Bench, Fate, Transition};
    use super::*;
    use crate::packet::SackBlock;
    use crate::time::{NS_PER_MS, NS_PER_SEC};

    const MS: SimTime = NS_PER_MS;
    const SEC: SimTime = NS_PER_SEC;

    /// A flow already at cwnd = ssthresh = 20 (congestion avoidance), so that a
    /// loss meets a window of exactly 20 segments.
    fn window_of_20(sack: bool, drops: &[u32]) -> Bench {
        let cfg = TcpConfig { sack, init_cwnd: 20, ..TcpConfig::default() };
        let mut b = Bench::new(cfg).drop_first_transmission_of(drops);
        b.snd.tp.snd_ssthresh = 20;
        b.start();
        b
    }

    fn states(b: &Bench) -> Vec<CaState> {
        b.transitions.iter().map(|t| t.state).collect()
    }

    /// Slow start for 1 s (no loss), then the application stops; returns the
    /// bench at 2 s, every segment acknowledged, and the window then.
    fn stopped_after_one_second() -> (Bench, u32) {
        let mut b = Bench::new(TcpConfig::default());
        b.start();
        b.run_until(SEC);
        b.snd.stop();
        b.run_until(2 * SEC);
        assert_eq!(b.snd.sb.outstanding(), 0);
        let cwnd = b.snd.tp.snd_cwnd;
        (b, cwnd)
    }

    #[test]
    fn resume_after_idle_longer_than_the_rto_restarts_from_the_initial_window() {
        let (mut b, cwnd) = stopped_after_one_second();
        assert!(cwnd > 20, "slow start for 1 s reaches a large window, got {cwnd}");
        let sent = b.snd.counters().segments_sent;
        assert!(b.log.iter().all(|s| s.at <= SEC), "nothing sent while stopped");
        // Idle for 2 s - last send, far above the RTO (about 0.3 s).
        assert!(2 * SEC - b.snd.last_send > b.snd.rto());
        b.resume();
        assert_eq!(b.snd.tp.snd_cwnd, 2, "cwnd = min(cwnd, init_cwnd)");
        assert_eq!(b.snd.counters().segments_sent - sent, 2, "the restart window goes out at once");
        let ssthresh = b.snd.tp.snd_ssthresh;
        b.run_until(3 * SEC);
        assert_eq!(b.snd.tp.snd_ssthresh, ssthresh);
        assert!(b.snd.tp.snd_cwnd > 20, "slow start again after the restart");
    }

    #[test]
    fn resume_within_the_rto_of_the_last_send_keeps_the_window() {
        let mut b = Bench::new(TcpConfig::default());
        b.start();
        b.run_until(SEC);
        b.snd.stop();
        // Run until the flight is acknowledged, then rejoin right away: idle < RTO.
        while b.snd.sb.outstanding() > 0 {
            let t = b.now + MS;
            b.run_until(t);
        }
        assert!(b.now - b.snd.last_send <= b.snd.rto());
        let cwnd = b.snd.tp.snd_cwnd;
        let sent = b.snd.counters().segments_sent;
        b.resume();
        assert_eq!(b.snd.tp.snd_cwnd, cwnd);
        assert_eq!(b.snd.counters().segments_sent - sent, cwnd as u64, "a whole window goes out");
    }

    #[test]
    fn slow_start_doubles_cwnd_each_rtt() {
        let cfg = TcpConfig { init_cwnd: 2, ..TcpConfig::default() };
        let mut b = Bench::new(cfg);
        b.start();
        assert_eq!(b.snd.counters().segments_sent, 2);
        // RTT 101 ms (1 ms serialisation + 2 x 50 ms); round k's ACKs are in by k * 101 + 2^k ms.
        for (t, cwnd, sent) in [(150, 4, 6), (250, 8, 14), (350, 16, 30), (450, 32, 62)] {
            b.run_until(t * MS);
            assert_eq!((b.snd.tp.snd_cwnd, b.snd.counters().segments_sent), (cwnd, sent), "at {t} ms");
        }
        assert_eq!(b.snd.counters().rtt_min_ns, 101 * MS);
        assert_eq!(b.snd.tp.ca_state, CaState::Open);
        b.check_conservation();
    }

    #[test]
    fn sack_single_loss_one_retransmission_one_recovery() {
        let mut b = window_of_20(true, &[5]);
        b.run_until(3 * SEC);
        let c = *b.snd.counters();
        assert_eq!((c.retransmits, c.fast_recoveries, c.timeouts), (1, 1, 0));
        assert_eq!(states(&b), vec![CaState::Disorder, CaState::Recovery, CaState::Open]);
        // Recovery entered on the third duplicate ACK (SACKing 6, 7, 8) with ssthresh = cwnd / 2.
        assert_eq!((b.transitions[1].cwnd, b.transitions[1].ssthresh), (10, 10));
        let exit = b.transitions[2];
        assert_eq!((exit.cwnd, exit.ssthresh), (10, 10));
        assert_eq!(b.retransmissions()[0].seq, 5);
        b.check_conservation();
    }

    #[test]
    fn newreno_single_loss_one_retransmission_one_recovery() {
        let mut b = window_of_20(false, &[5]);
        b.run_until(3 * SEC);
        let c = *b.snd.counters();
        assert_eq!((c.retransmits, c.fast_recoveries, c.timeouts), (1, 1, 0));
        assert_eq!(states(&b), vec![CaState::Disorder, CaState::Recovery, CaState::Open]);
        let exit = b.transitions[2];
        assert_eq!((exit.cwnd, exit.ssthresh), (10, 10));
        // Limited transmit sent two new segments on the first two duplicate ACKs.
        let fast_rtx = b.retransmissions()[0];
        let before: Vec<u32> = b.log.iter().filter(|s| s.at < fast_rtx.at && s.at > 100 * MS).map(|s| s.seq).collect();
        assert_eq!(before.last(), Some(&26), "segments 25 and 26 sent by limited transmit");
        b.check_conservation();
    }

    #[test]
    fn sack_recovers_several_losses_in_one_window_without_timeout() {
        let mut b = window_of_20(true, &[3, 7, 11, 12]);
        b.run_until(3 * SEC);
        let c = *b.snd.counters();
        assert_eq!((c.retransmits, c.fast_recoveries, c.timeouts), (4, 1, 0));
        let rtx = b.retransmissions();
        let seqs: Vec<u32> = rtx.iter().map(|s| s.seq).collect();
        assert_eq!(seqs, vec![3, 7, 11, 12]);
        // All holes repaired within one round trip of the fast retransmit.
        assert!(rtx[3].at - rtx[0].at < 101 * MS, "{rtx:?}");
        assert_eq!(b.transitions.last().map(|t| (t.state, t.cwnd)), Some((CaState::Open, 10)));
        b.check_conservation();
    }

    #[test]
    fn newreno_repairs_one_hole_per_rtt() {
        let mut b = window_of_20(false, &[3, 7, 11]);
        b.run_until(3 * SEC);
        let c = *b.snd.counters();
        assert_eq!((c.retransmits, c.fast_recoveries, c.timeouts), (3, 1, 0));
        let rtx = b.retransmissions();
        assert_eq!(rtx.iter().map(|s| s.seq).collect::<Vec<_>>(), vec![3, 7, 11]);
        for w in rtx.windows(2) {
            let gap = w[1].at - w[0].at;
            assert!((101 * MS..120 * MS).contains(&gap), "retransmissions one RTT apart: {rtx:?}");
        }
        assert_eq!(states(&b), vec![CaState::Disorder, CaState::Recovery, CaState::Open]);
        assert_eq!(b.transitions[2].cwnd, 10);
        b.check_conservation();
    }

    #[test]
    fn rto_backs_off_exponentially_and_collapses_after_new_data_is_acked() {
        let mut b = Bench::new(TcpConfig::default());
        // Every ACK is lost until the retransmission sent at 7 s is acknowledged.
        b.ack_rule = Box::new(|a| if a.ts < 7 * SEC { Fate::Drop } else { Fate::Deliver });
        b.start();
        assert_eq!(b.snd.rto_deadline(), Some(SEC));
        for (k, (t, next)) in [(1, 3), (3, 7), (7, 15)].into_iter().enumerate() {
            b.run_until(t * SEC);
            let c = b.snd.counters();
            assert_eq!((c.timeouts, c.retransmits), (k as u64 + 1, k as u64 + 1));
            assert_eq!(b.snd.rto_deadline(), Some(next * SEC));
            assert_eq!((b.snd.tp.snd_cwnd, b.snd.tp.snd_ssthresh), (1, 2));
            assert_eq!(b.snd.tp.ca_state, CaState::Loss);
        }
        assert!(b.retransmissions().iter().all(|s| s.seq == 0));
        assert_eq!(b.retransmissions().iter().map(|s| s.at).collect::<Vec<_>>(), vec![SEC, 3 * SEC, 7 * SEC]);
        // The ACK of the retransmission (7.101 s) covers segments 0 and 1. It
        // echoes a retransmitted segment: Karn keeps the back-off.
        b.run_until(7 * SEC + 102 * MS);
        assert_eq!(b.snd.tp.snd_una, 2);
        assert_eq!(b.snd.tp.ca_state, CaState::Open);
        assert_eq!(b.snd.rto(), 8 * 303 * MS);
        // New data acknowledged: the RTO computed from the estimates applies again.
        b.run_until(7 * SEC + 250 * MS);
        assert!(b.snd.rto() < 400 * MS, "rto {}", b.snd.rto());
        assert_eq!(b.snd.counters().timeouts, 3);
        b.check_conservation();
    }

    /// Runs `cfg` on the loss-free bench for 2 s and checks every RTT sample's
    /// segment: it is `expected(first, last)` of the segments the ACK newly
    /// covers, and its transmission left at the timestamp the ACK echoed.
    /// Returns the samples and those whose first and last segments left at
    /// different times (where the two echo rules give different timestamps).
    fn check_sample_segments(cfg: TcpConfig, expected: fn(u32, u32) -> u32) -> (usize, usize) {
        let mut b = Bench::new(cfg);
        b.start();
        b.run_until(2 * SEC);
        assert_eq!(b.data_dropped, 0);
        let sent_at = |seq: u32| b.log.iter().find(|s| s.seq == seq).map(|s| s.at).expect("segment sent");
        let mut apart = 0;
        for &(now, ack, snd_una, sample) in &b.samples {
            let (first, last) = (snd_una, ack.seq - 1);
            assert_eq!(sample.seq, expected(first, last), "ACK {} at {now}", ack.seq);
            assert_eq!(sent_at(sample.seq), ack.ts, "segment {} echoed by ACK {}", sample.seq, ack.seq);
            assert_eq!(sample.rtt, now - ack.ts);
            apart += usize::from(sent_at(first) != sent_at(last));
        }
        assert!(b.samples.len() > 50, "{} samples", b.samples.len());
        (b.samples.len(), apart)
    }

    #[test]
    fn an_rtt_sample_names_the_segment_whose_timestamp_was_echoed() {
        use super::super::pacing::PacingConfig;
        use super::super::{AckPolicy, TsEcho};
        let first = |f: u32, _: u32| f;
        let last = |_: u32, l: u32| l;
        // One ACK per segment: the sample is the acknowledged segment's, whichever echo.
        for ts_echo in [TsEcho::Earliest, TsEcho::Latest] {
            let cfg = TcpConfig { ack_policy: AckPolicy::Every, ts_echo, ..TcpConfig::default() };
            let (_, apart) = check_sample_segments(cfg, |f, l| {
                assert_eq!(f, l, "one segment per ACK");
                f
            });
            assert_eq!(apart, 0);
        }
        // Coalesced ACKs: RFC 7323 echoes the first segment the ACK covers, ns-2 the
        // last. Unpaced, the segments an ACK covers mostly left together (one
        // timestamp); paced, they left apart, and the timestamp tells which was echoed.
        for ack_policy in [AckPolicy::Delayed, AckPolicy::Adaptive] {
            for (ts_echo, rule) in [(TsEcho::Earliest, first as fn(u32, u32) -> u32), (TsEcho::Latest, last)] {
                let cfg = TcpConfig { ack_policy, ts_echo, max_cwnd: 50, ..TcpConfig::default() };
                check_sample_segments(cfg.clone(), rule);
                let paced = TcpConfig { pacing: PacingConfig { enabled: true, ..PacingConfig::default() }, ..cfg };
                let (n, apart) = check_sample_segments(paced, rule);
                assert!(apart * 2 > n, "{ack_policy:?} {ts_echo:?}, paced: {apart} of {n} samples tell the echoes apart");
            }
        }
    }

    #[test]
    fn rtt_estimator_follows_rfc6298_on_acks() {
        let mut b = Bench::new(TcpConfig { init_cwnd: 1, ..TcpConfig::default() });
        b.start();
        // First sample 101 ms: SRTT 101, RTTVAR 50.5, RTO 101 + 202 = 303 ms.
        b.run_until(102 * MS);
        assert_eq!((b.snd.tp.srtt, b.snd.rttvar(), b.snd.rto()), (101 * MS, 50_500_000, 303 * MS));
        // Segments 1 and 2 leave back to back: samples 101 and 102 ms.
        b.run_until(204 * MS);
        let c = b.snd.counters();
        assert_eq!((c.rtt_samples, c.rtt_min_ns, c.rtt_max_ns), (3, 101 * MS, 102 * MS));
        assert_eq!(c.rtt_sum_ns, 304 * MS as u128);
        // Gains divided by the samples expected per RTT (RFC 7323 Appendix G), the ACKs of
        // the flight: segment 1's ACK finds segments 1..2 in flight (n = 2), segment 2's
        // finds 2..4 (segments 3 and 4 left on segment 1's ACK; n = 3).
        // RTTVAR = 7/8 * 50.5 + 0 = 44.1875; then (11 * 44.1875 + 1) / 12 = 40.588541.. ms.
        // SRTT = 101; then (23 * 101 + 102) / 24 = 101.041666.. ms (nanoseconds truncated).
        assert_eq!((b.snd.tp.srtt, b.snd.rttvar()), (101_041_666, 40_588_541));
        // RTO = SRTT + max(4 RTTVAR = 162.35 ms, min_rto = 200 ms) (Linux's bound, the default).
        assert_eq!(b.snd.rto(), 101_041_666 + 200 * MS);
    }

    #[test]
    fn ecn_echo_reduces_once_per_window_and_sets_cwr() {
        let cfg = TcpConfig { ecn: true, init_cwnd: 20, ..TcpConfig::default() };
        let mut b = Bench::new(cfg);
        b.data_rule = Box::new(|p| if !p.retx && [30, 32, 150].contains(&p.seq) { Fate::MarkCe } else { Fate::Deliver });
        b.snd.tp.snd_ssthresh = 20;
        b.start();
        b.run_until(4 * SEC);
        let c = *b.snd.counters();
        assert_eq!((c.ecn_reductions, c.retransmits, c.fast_recoveries, c.timeouts), (2, 0, 0, 0));
        let s = states(&b);
        assert_eq!(s, vec![CaState::Cwr, CaState::Open, CaState::Cwr, CaState::Open]);
        assert_eq!((b.transitions[0].cwnd, b.transitions[0].ssthresh), (10, 10));
        assert!(b.log.iter().all(|s| s.ecn == Ecn::Ect));
        // CWR goes on the first segment sent after each reduction, and only there.
        let cwr: Vec<_> = b.log.iter().filter(|s| s.cwr).collect();
        assert_eq!(cwr.len(), 2);
        let first_after = b.log.iter().find(|s| s.at >= b.transitions[0].at).unwrap();
        assert!(first_after.cwr && first_after.seq == cwr[0].seq);
        // The receiver echoed from the CE segment (ACK 31) up to the CWR segment (excluded).
        let c0 = cwr[0].seq;
        for (_, a) in b.acks_seen.iter().filter(|(_, a)| a.seq <= 140) {
            assert_eq!(a.ece, (31..=c0).contains(&a.seq), "ack {}", a.seq);
        }
        b.check_conservation();
    }

    #[test]
    fn ecn_retransmissions_are_not_ect() {
        let cfg = TcpConfig { ecn: true, init_cwnd: 20, ..TcpConfig::default() };
        let mut b = Bench::new(cfg).drop_first_transmission_of(&[5]);
        b.start();
        b.run_until(2 * SEC);
        let rtx = b.retransmissions();
        assert_eq!(rtx.len(), 1);
        assert_eq!(rtx[0].ecn, Ecn::NotEct);
        // A loss reduction is a reduction too: the next new segment carries CWR.
        let next_new = b.log.iter().find(|s| s.at >= rtx[0].at && !s.retx).unwrap();
        assert!(next_new.cwr);
    }

    #[test]
    fn invalid_and_old_acks_are_ignored() {
        let mut b = window_of_20(true, &[]);
        let before = (b.snd.tp.snd_una, b.snd.tp.snd_nxt, b.snd.tp.snd_cwnd, b.snd.tp.ca_state);
        let mut out = Vec::new();
        let mut ack = Packet::new(PacketKind::Ack, 0, 1, 0, 40);
        for seq in [21, u32::MAX, 1000] {
            ack.seq = seq;
            b.snd.on_ack(10 * MS, &ack, &mut b.rng, &mut out);
        }
        // SACK blocks that are reversed, empty, or beyond snd_nxt.
        ack.seq = 0;
        ack.n_sack = 3;
        ack.sack = [SackBlock { start: 9, end: 3 }, SackBlock { start: 5, end: 5 }, SackBlock { start: 10, end: u32::MAX }];
        for _ in 0..5 {
            b.snd.on_ack(10 * MS, &ack, &mut b.rng, &mut out);
        }
        // A data packet handed to the ACK path, and an early timer call.
        b.snd.on_ack(10 * MS, &Packet::new(PacketKind::Data, 0, 1, 0, 1500), &mut b.rng, &mut out);
        b.snd.on_rto(10 * MS, &mut b.rng, &mut out);
        assert!(out.is_empty());
        assert_eq!((b.snd.tp.snd_una, b.snd.tp.snd_nxt, b.snd.tp.snd_cwnd, b.snd.tp.ca_state), before);
        assert_eq!(b.snd.counters().timeouts, 0);
        b.snd.check_invariants();
        // The flow then proceeds normally, and an old ACK after progress changes nothing.
        b.run_until(300 * MS);
        let una = b.snd.tp.snd_una;
        ack.seq = 3;
        ack.n_sack = 0;
        b.snd.on_ack(300 * MS, &ack, &mut b.rng, &mut out);
        assert!(out.is_empty());
        assert_eq!(b.snd.tp.snd_una, una);
    }

    /// Random losses of data and ACKs, with and without SACK and delayed ACKs:
    /// conservation and scoreboard invariants hold after every event, the flow
    /// keeps making progress, and two runs are identical.
    #[test]
    fn random_losses_keep_the_books_balanced() {
        use rand::Rng;
        for (sack, delayed_ack, seed) in [(true, false, 1), (false, false, 2), (true, true, 3), (false, true, 4)] {
            let run = || {
                let cfg = TcpConfig { sack, delayed_ack, ..TcpConfig::default() };
                let mut b = Bench::new(cfg);
                let mut loss = crate::rng::from_seed(seed);
                let mut ack_loss = crate::rng::from_seed(seed + 100);
                b.data_rule = Box::new(move |_| if loss.gen_bool(0.03) { Fate::Drop } else { Fate::Deliver });
                b.ack_rule = Box::new(move |_| if ack_loss.gen_bool(0.05) { Fate::Drop } else { Fate::Deliver });
                b.start();
                let mut t = 0;
                while t < 60 * SEC {
                    t += 500 * MS;
                    b.run_until(t);
                    b.check_conservation();
                }
                b
            };
            let (b1, b2) = (run(), run());
            let c = *b1.snd.counters();
            // Mathis et al.: about 1.22 / (RTT sqrt(p)) = 70 segments/s at 3 % loss and 101 ms.
            assert!(b1.snd.tp.snd_una > 2_500, "sack {sack} delack {delayed_ack}: progress {}", b1.snd.tp.snd_una);
            assert!(c.fast_recoveries > 10 && c.retransmits >= b1.data_dropped / 2, "{c:?}");
            assert_eq!(c, *b2.snd.counters());
            assert_eq!(b1.rcv.counters(), b2.rcv.counters());
            let _: &[Transition] = &b1.transitions;
        }
    }
}
