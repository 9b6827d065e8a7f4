//! The sender's ECN response (RFC 3168 6.1.2; XECN's counted marks through
//! `ecn_feedback`): one window reduction per window of data.

use super::TcpSender;
use crate::packet::Packet;
use crate::tcp::cc::{AckEvent, CaEvent, CaState};
use crate::tcp::ecn_feedback::AckMarksIn;

impl TcpSender {
    /// Count the ECN marks of an acceptable ACK that newly delivered
    /// `delivered` segments, tell the controller, and say whether the sender
    /// should respond (see `ecn_feedback`). Without ECN the ACK's ECN flags are
    /// ignored (RFC 3168 6.1.1: not negotiated), whatever the peer set.
    pub(super) fn count_marks(&mut self, ack: &Packet, delivered: u32) -> bool {
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
    pub(super) fn on_ecn_echo(&mut self) {
        if !matches!(self.tp.ca_state, CaState::Open | CaState::Disorder) || self.sb.snd_una() <= self.recovery_point {
            return;
        }
        self.sync_tp();
        let ssthresh = self.cc.ecn_ssthresh(&self.tp);
        self.tp.snd_ssthresh = ssthresh;
        // Halve (as the controller says) but never raise, and keep one segment.
        self.begin_reduction(self.tp.snd_cwnd.min(ssthresh).max(1));
        self.tp.snd_cwnd_cnt = 0;
        self.recovery_point = self.sb.snd_nxt();
        self.counters.ecn_reductions += 1;
        self.cwr_pending = true;
        self.sync_tp();
        self.cc.cwnd_event(&mut self.tp, CaEvent::EcnEce);
        self.set_ca_state(CaState::Cwr);
    }
}
