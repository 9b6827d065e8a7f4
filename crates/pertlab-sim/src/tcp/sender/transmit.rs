//! What the sender puts on the wire: `NextSeg` within the window and the
//! pacing gate (RFC 5681, 3042, 6675), new data and retransmissions, the
//! segments' headers (timestamp, ECT, CWR, probes, XCP) and the send
//! overhead's hold.

use super::TcpSender;
use crate::packet::{Ecn, Packet, PacketKind};
use crate::tcp::cc::{CaEvent, CaState};
use crate::time::SimTime;

impl TcpSender {
    /// Send what the window (and the pacing gate) allows.
    pub(super) fn transmit(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let sent_before = out.len();
        // New segments sent at this instant, for the PSH of Linux's TSO chunks (`cfg.tso_segs`).
        let mut new_sent = 0;
        while let Some(seg) = self.next_seg() {
            if let Some(pacer) = self.pacer.as_mut().filter(|p| !p.open(now, self.tp.ca_state)) {
                pacer.hold();
                break;
            }
            match seg {
                Segment::Retransmit(seq) => self.send_retransmission(seq, now, out),
                Segment::New => {
                    new_sent += 1;
                    self.send_new(now, self.cfg.tso_segs > 1 && new_sent % self.cfg.tso_segs == 0, out);
                }
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
    /// In CWR during a proportional reduction (`cfg.prr`), the pipe below cwnd
    /// (Linux). Otherwise RFC 5681: FlightSize (`snd_nxt - snd_una`) below cwnd,
    /// plus up to two segments on the first duplicate ACKs with limited transmit
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
            // A proportional reduction counts the pipe, as Linux does (`tcp::prr`).
            CaState::Cwr if self.prr.is_some() => {
                if self.pipe() >= cwnd {
                    return None;
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

    /// Fast retransmit of `snd_una`, just declared lost (RFC 5681 3.2 step 2,
    /// RFC 6582 3.2 step 5, RFC 6675 step 4.3), whatever pipe says.
    pub(super) fn retransmit_head(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if let Some(seq) = self.sb.next_lost() {
            self.send_retransmission(seq, now, out);
        }
    }

    /// A new segment; `psh`: the last of a TSO chunk sent whole.
    fn send_new(&mut self, now: SimTime, psh: bool, out: &mut Vec<Packet>) {
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
        pkt.psh = psh;
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
        // RFC 3168 6.1.5: retransmitted segments are not ECN-capable, unless the
        // controller needs ECN (Linux `tcp_ecn_send`, `TCP_CONG_NEEDS_ECN`: DCTCP).
        if !self.cc.needs_ecn() {
            pkt.ecn = Ecn::NotEct;
        }
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
    /// Not while RACK's reordering timer holds the slot (Linux neither).
    fn restart_timer_for_head(&mut self, now: SimTime) {
        if !self.reo_timer_pending() {
            self.arm_rto(now);
        }
    }

    fn data_packet(&self, seq: u32, now: SimTime) -> Packet {
        let mut pkt = Packet::new(PacketKind::Data, self.flow, self.src, self.dst, self.cfg.packet_size);
        pkt.seq = seq;
        pkt.ts = now;
        pkt.class = self.class;
        pkt.ecn = if self.cfg.ecn { Ecn::Ect } else { Ecn::NotEct };
        pkt.xcp = self.cc.xcp_header(&self.tp);
        pkt
    }

    /// TCP outputs a segment: it leaves at once, or waits in the send overhead's hold.
    fn emit(&mut self, pkt: Packet, now: SimTime, out: &mut Vec<Packet>) {
        // RFC 6298 5.1: start the timer if it is not running.
        if self.rto_at.is_none() {
            self.arm_rto(now);
        }
        if let Some(prr) = self.prr.as_mut() {
            prr.sent();
        }
        match self.overhead.as_mut() {
            Some(overhead) => overhead.hold(now, pkt),
            None => {
                self.count_sent(&pkt, now);
                out.push(pkt);
            }
        }
    }

    /// A data segment leaves the host at `now`.
    pub(super) fn count_sent(&mut self, pkt: &Packet, now: SimTime) {
        self.counters.segments_sent += 1;
        self.counters.retransmits += u64::from(pkt.retx);
        self.tp.last_send = now;
        if let Some(t) = self.send_times.as_mut() {
            t.sent(pkt.seq, now);
        }
        // A retransmission the send overhead held while its segment was acknowledged (or
        // SACKed, or a timeout came) leaves the host, but is in flight for no one's books.
        if let Some(rack) = self.rack.as_mut().filter(|_| pkt.retx && self.sb.retransmission_in_flight(pkt.seq)) {
            rack.sent(pkt.seq);
        }
    }
}

/// What `NextSeg` chose to send.
#[derive(Clone, Copy, Debug)]
enum Segment {
    Retransmit(u32),
    New,
}
