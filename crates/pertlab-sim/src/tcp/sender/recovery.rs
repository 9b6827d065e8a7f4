//! Loss recovery's state machine (Linux `tcp_fastretrans_alert`): duplicate
//! ACKs, loss detection, fast recovery in and out (RFC 5681, 6582, 6675), and
//! the `ca_state` changes the controller hears of.

use super::TcpSender;
use crate::packet::Packet;
use crate::tcp::cc::{CaEvent, CaState};
use crate::tcp::prr::Prr;
use crate::time::SimTime;

impl TcpSender {
    /// A duplicate ACK (RFC 5681 section 2: same cumulative ACK, data
    /// outstanding; with SACK, RFC 6675 section 2: it must SACK new data).
    pub(super) fn count_dupack(&mut self, newly_sacked: u32) {
        let outstanding = self.sb.outstanding();
        if outstanding == 0 || (self.cfg.sack && newly_sacked == 0) {
            return;
        }
        self.dupacks += 1;
        // The segment at snd_una is the one missing: at most outstanding - 1 arrived. After a
        // timeout (Loss) only once data beyond the timeout's snd_nxt has gone out (Linux
        // `tcp_process_loss`): before that the duplicates answer go-back-N's resends of segments
        // the receiver holds, and counting them would let each resend clock out the next one
        // (RFC 5681 inflates the window in fast recovery only).
        let resends_only = self.tp.ca_state == CaState::Loss && self.sb.snd_nxt() <= self.recovery_point;
        if !self.cfg.sack && !resends_only {
            self.reno_sacked = (self.reno_sacked + 1).min(outstanding - 1);
        }
    }

    /// The state machine of loss recovery (Linux `tcp_fastretrans_alert`), run
    /// after the scoreboard has been updated with an ACK.
    /// `lost_retransmission`: RACK found a retransmission lost on this ACK.
    pub(super) fn update_ca_state(&mut self, advanced: bool, lost_retransmission: bool, now: SimTime, out: &mut Vec<Packet>) {
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
                if self.prr.take().is_some() {
                    // Linux `tcp_end_cwnd_reduction`.
                    self.tp.snd_cwnd = self.tp.snd_ssthresh.clamp(1, self.tp.snd_cwnd_clamp.max(1));
                }
                self.sync_tp();
                self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
                self.set_ca_state(CaState::Open);
            }
            _ => {}
        }
        // Linux `tcp_fastretrans_alert` (FLAG_LOST_RETRANS): after a timeout, a retransmission
        // found lost again starts fast recovery, a reduction of its own.
        if self.tp.ca_state == CaState::Loss && lost_retransmission {
            self.enter_recovery(now, out);
        } else if matches!(self.tp.ca_state, CaState::Open | CaState::Disorder | CaState::Cwr) {
            if self.loss_detected() {
                self.enter_recovery(now, out);
            } else if self.tp.ca_state != CaState::Cwr {
                let disorder = self.dupacks > 0 || self.sb.sacked_out() > 0 || self.reno_sacked > 0;
                self.set_ca_state(if disorder { CaState::Disorder } else { CaState::Open });
            }
        }
    }

    /// RFC 5681 3.2 (DupThresh duplicate ACKs) or, with SACK, RFC 6675
    /// section 5: `IsLost(HighACK + 1)`. Without SACK, only once the cumulative
    /// ACK covers more than `recover` (RFC 6582 3.2 step 1: duplicate ACKs for
    /// data sent before the last fast retransmit or timeout, such as those
    /// that a timeout's go-back-N resends of segments already received provoke,
    /// start none; section 4.1).
    fn loss_detected(&self) -> bool {
        let dupthresh = self.dupacks >= self.cfg.dupthresh.max(1);
        if self.cfg.rack {
            // Linux `tcp_time_to_recover`: RACK has marked a segment lost.
            self.sb.lost_out() > 0
        } else if self.cfg.sack {
            dupthresh || self.sb.head_is_lost()
        } else {
            dupthresh && self.recover.is_none_or(|r| self.sb.snd_una() > r)
        }
    }

    /// Enter fast recovery (RFC 6675 section 5 steps 4.1-4.3; RFC 6582 3.2 steps 1-2).
    pub(super) fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.counters.fast_recoveries += 1;
        if self.tp.ca_state != CaState::Cwr {
            // One reduction per window: an ECN reduction already made counts (RFC 3168 6.1.2).
            self.sync_tp();
            self.tp.snd_ssthresh = self.cc.ssthresh(&self.tp);
            self.cwr_pending = self.cfg.ecn;
        }
        self.begin_reduction(self.tp.snd_ssthresh.clamp(1, self.tp.snd_cwnd_clamp.max(1)));
        self.tp.snd_cwnd_cnt = 0;
        self.recovery_point = self.sb.snd_nxt();
        self.recover = Some(self.recovery_point);
        // After a timeout the head is already lost or sent again (Linux's `tcp_enter_recovery`
        // marks nothing; RFC 6675's step 4.2 is for a loss found by DupThresh).
        if self.tp.ca_state != CaState::Loss {
            self.sb.mark_head_lost();
        }
        self.set_ca_state(CaState::Recovery);
        self.retransmit_head(now, out);
    }

    /// Begin a window reduction (fast recovery, an ECN response) towards the
    /// ssthresh just set: with `cfg.prr` the window then follows the ACKs
    /// ([`TcpSender::reduce_proportionally`]; a reduction already under way,
    /// begun by an ECN response, goes on, as in Linux), else it is `cut` at once.
    pub(super) fn begin_reduction(&mut self, cut: u32) {
        if self.cfg.prr {
            self.prr.get_or_insert(Prr::new(self.tp.snd_cwnd));
        } else {
            self.tp.snd_cwnd = cut;
        }
    }

    /// PRR's window after an ACK that `delivered` segments (RFC 6937; `tcp::prr`).
    pub(super) fn reduce_proportionally(&mut self, delivered: u32, clean_advance: bool) {
        let in_flight = self.pipe();
        let ssthresh = self.tp.snd_ssthresh;
        if let Some(cwnd) = self.prr.as_mut().and_then(|p| p.on_ack(delivered, in_flight, ssthresh, clean_advance)) {
            self.tp.snd_cwnd = cwnd.clamp(1, self.tp.snd_cwnd_clamp.max(1));
        }
    }

    /// Leave fast recovery on the ACK that covers RecoveryPoint.
    fn exit_recovery(&mut self) {
        self.prr = None;
        self.tp.snd_cwnd = self.tp.snd_ssthresh.clamp(1, self.tp.snd_cwnd_clamp.max(1));
        self.tp.snd_cwnd_cnt = 0;
        self.reno_sacked = 0;
        self.sync_tp();
        self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
        self.set_ca_state(CaState::Open);
    }

    /// Change `ca_state` and tell the controller (after the change).
    pub(super) fn set_ca_state(&mut self, state: CaState) {
        if self.tp.ca_state == state {
            return;
        }
        self.tp.ca_state = state;
        self.sync_tp();
        self.cc.set_state(&mut self.tp, state);
    }
}
