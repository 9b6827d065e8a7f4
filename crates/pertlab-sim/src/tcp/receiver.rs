//! TCP receiver: cumulative ACK with SACK blocks, optional delayed ACK.
//!
//! # What is modeled
//! - The cumulative ACK `rcv_nxt` and the out-of-order segments held above it,
//!   as a sorted list of disjoint, non-adjacent blocks (one per hole, so small;
//!   its storage is reused, no allocation in steady state).
//! - SACK blocks (RFC 2018 section 4), when `cfg.sack`: the first block holds
//!   the segment that triggered the ACK (unless it advanced `rcv_nxt`); then the
//!   most recently reported blocks, at their current extent, that are not
//!   already included; then, to report "as many distinct blocks as possible",
//!   other held blocks from the lowest up. At most [`MAX_SACK_BLOCKS`].
//! - ACK policy (`cfg.ack_policy()`, see `ack`): one ACK per segment (ns-2
//!   `TCPSink`), the classic delayed ACK (RFC 5681 4.2) or Qian's adaptive
//!   delayed ACK decide when an in-order segment is acknowledged; an
//!   out-of-order segment, a duplicate, and a segment that fills all or part
//!   of a gap are acknowledged at once (RFC 5681 4.2).
//! - Timestamp echo (RFC 7323 4.3): `TS.Recent` takes the timestamp of a
//!   segment that starts at or below `Last.ACK.sent` (the left edge of the
//!   window as last acknowledged), and never goes backwards. So a delayed ACK
//!   echoes the earlier of its two segments, a duplicate ACK for an
//!   out-of-order segment echoes the last segment that advanced the window, and
//!   a hole-filling segment has its own timestamp echoed.
//!   With `cfg.ts_echo = latest` (ns-2's sinks), the echo is the newest
//!   timestamp received instead, so an ACK held by a delayed-ACK policy
//!   echoes its last segment and the RTT sample leaves out the hold time.
//! - ECN-Echo (RFC 3168 6.1.3): set on every ACK from the arrival of a CE
//!   segment until a segment with CWR arrives (CWR is processed before CE, so a
//!   CE mark on the CWR segment itself starts a new echo). Under `ack_policy =
//!   "linux"` the segment's ECN bits also time the ACK as Linux's do (`ack::EcnCue`):
//!   at once on CWR, two quick ACKs from the first CE segment of an echo and
//!   from a Not-ECT retransmission.
//! - XECN and DCTCP feedback (`cfg.ecn_feedback`, see `ecn_feedback`): the
//!   ACK of a CE segment carries the Count Codepoint (XECN, Tahiliani 2013
//!   Algorithm 5), or ECE says exactly which segments were CE (RFC 8257 3.2,
//!   with an immediate ACK when the CE state changes under delayed ACKs).
//! - XCP (Katabi 2002 Section 3.3): an ACK echoes the feedback of the data
//!   segments it acknowledges, summed when it acknowledges several (a delayed
//!   ACK; the paper's receiver acknowledges each segment and copies its one).
//!
//! # Left out
//! Receive-window management (the window is `cfg.max_cwnd` at the sender),
//! D-SACK (RFC 2883), reneging, and under the policies other than `linux` the
//! immediate ACK on a change of CE state that Linux sends (a delayed ACK
//! carries the echo a little later).

use super::ack::{AckClock, EcnCue, SenderView};
use super::ecn_feedback::{ack_flags, EcnFeedback};
use super::{TcpConfig, TsEcho};
use crate::packet::{Ecn, Packet, PacketKind, SackBlock, XcpHeader, MAX_SACK_BLOCKS};
use crate::time::SimTime;

/// Counters of one receiver, cumulative since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverCounters {
    /// Data packets that arrived, duplicates included.
    pub data_received: u64,
    /// Segments delivered in order to the application (each segment once):
    /// goodput is this times the payload size.
    pub segments_delivered: u64,
    /// ACKs sent.
    pub acks_sent: u64,
    /// ACKs sent because the ACK policy's timer fired.
    pub acks_on_timer: u64,
    /// Data packets that arrived with CE set.
    pub ce_received: u64,
}

/// How an arriving segment relates to what was already received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arrival {
    /// It was `rcv_nxt`; `filled_gap` if segments above were held (it closed
    /// all or part of a gap).
    InOrder { filled_gap: bool },
    /// Above `rcv_nxt` (new or already held).
    OutOfOrder,
    /// Below `rcv_nxt`: already delivered.
    Duplicate,
}

pub struct TcpReceiver {
    cfg: TcpConfig,
    flow: u32,
    /// The receiver's own node and the sender's node (ACKs go there).
    node: u32,
    peer: u32,
    /// Service class its ACKs carry, the flow's (see [`TcpReceiver::with_class`]).
    class: u8,
    counters: ReceiverCounters,
    /// RCV.NXT: next segment expected; everything below has been delivered.
    rcv_nxt: u32,
    /// Segments held above `rcv_nxt`: sorted, disjoint, non-adjacent blocks.
    held: Vec<SackBlock>,
    /// SACK blocks of the last ACK sent, first block first (RFC 2018 section 4).
    reported: [SackBlock; MAX_SACK_BLOCKS],
    n_reported: usize,
    /// RFC 7323 TS.Recent: the timestamp echoed on the next ACK.
    ts_recent: SimTime,
    /// RFC 7323 Last.ACK.sent: the cumulative ACK of the last ACK sent.
    last_ack_sent: u32,
    /// Set ECE on ACKs (a CE segment arrived, no CWR since).
    ece: bool,
    /// A segment the next ACK acknowledges arrived CE.
    ce_unacked: bool,
    /// DCTCP feedback: whether the last segment arrived CE (RFC 8257 `DCTCP.CE`).
    last_ce: bool,
    /// A segment arrived ECT or CE (Linux's `TCP_ECN_SEEN`).
    ect_seen: bool,
    /// When in-order segments are acknowledged.
    ack: AckClock,
    /// JCC: the R of the last probe received, for the next ACK to echo (Hua 2002, Section 4.2.2).
    jcc_echo: Option<u16>,
    /// XCP: the sum of the feedback of the data segments the next ACK
    /// acknowledges (Katabi 2002 Section 3.3), `None` if none carried a header.
    xcp_echo: Option<f32>,
}

impl TcpReceiver {
    pub fn new(flow: u32, node: u32, peer: u32, cfg: TcpConfig) -> TcpReceiver {
        TcpReceiver {
            flow,
            node,
            peer,
            class: 0,
            counters: ReceiverCounters::default(),
            rcv_nxt: 0,
            held: Vec::new(),
            reported: [SackBlock::default(); MAX_SACK_BLOCKS],
            n_reported: 0,
            ts_recent: 0,
            last_ack_sent: 0,
            ece: false,
            ce_unacked: false,
            last_ce: false,
            ect_seen: false,
            ack: AckClock::new(cfg.ack_policy(), cfg.delayed_ack_timeout_ns, &cfg.adaptive_ack, &cfg.linux_ack),
            jcc_echo: None,
            xcp_echo: None,
            cfg,
        }
    }

    /// Its RTT estimate from the handshake, `rtt()` (the empty path's round trip):
    /// computed only for an ACK policy that uses it (Linux's delayed-ACK bound).
    pub fn with_handshake_rtt(self, rtt: impl FnOnce() -> SimTime) -> TcpReceiver {
        TcpReceiver { ack: self.ack.with_handshake_rtt(rtt), ..self }
    }

    /// Its ACKs carry service class `class` (`flows[].class`), as the flow's data do.
    pub fn with_class(mut self, class: u8) -> TcpReceiver {
        self.class = class;
        self
    }

    /// A data segment arrived; append the ACK (if one is due now) to `out`.
    /// `sender` gives the sender's state now (called only by the adaptive policy).
    /// Packets other than data are ignored.
    pub fn on_data(&mut self, now: SimTime, pkt: &Packet, sender: impl FnOnce() -> SenderView, out: &mut Vec<Packet>) {
        if pkt.kind != PacketKind::Data {
            return;
        }
        self.counters.data_received += 1;
        let ecn = self.ecn_cue(pkt);
        if pkt.cwr {
            self.ece = false;
        }
        let ce = pkt.ecn == Ecn::Ce;
        if ce {
            self.counters.ce_received += 1;
            self.ece = true;
        }
        if pkt.jcc_r.is_some() {
            self.jcc_echo = pkt.jcc_r;
        }
        if let Some(h) = pkt.xcp {
            self.xcp_echo = Some(self.xcp_echo.unwrap_or(0.0) + h.feedback);
        }
        if self.cfg.ecn_feedback == EcnFeedback::Dctcp {
            // RFC 8257 3.2: the delayed segments are acknowledged with the old CE state.
            if ce != self.last_ce && self.rcv_nxt > self.last_ack_sent {
                self.send_ack(None, out);
            }
            self.last_ce = ce;
        }
        self.ce_unacked |= ce;
        let echoable = match self.cfg.ts_echo {
            TsEcho::Earliest => pkt.seq <= self.last_ack_sent,
            TsEcho::Latest => true,
        };
        if echoable && pkt.ts >= self.ts_recent {
            self.ts_recent = pkt.ts;
        }
        match self.receive(pkt.seq) {
            Arrival::InOrder { filled_gap: false } => {
                if self.ack.in_order(now, self.rcv_nxt, ecn, pkt.psh, sender) {
                    self.send_ack(None, out);
                }
            }
            arrival => {
                self.ack.disorder(now, arrival == Arrival::Duplicate, arrival == (Arrival::InOrder { filled_gap: true }), ecn);
                let trigger = (arrival == Arrival::OutOfOrder).then_some(pkt.seq);
                self.send_ack(trigger, out);
            }
        }
    }

    /// What `pkt`'s ECN bits ask of a Linux receiver ([`EcnCue`]), read before
    /// they change the ECE state (CWR is taken before CE, as in Linux's
    /// `tcp_data_queue`); nothing without ECN. Notes whether ECT was seen.
    fn ecn_cue(&mut self, pkt: &Packet) -> EcnCue {
        if !self.cfg.ecn {
            return EcnCue::default();
        }
        let demand_cwr = self.ece && !pkt.cwr; // Linux's TCP_ECN_DEMAND_CWR once CWR is taken
        let quickack = match pkt.ecn {
            Ecn::NotEct => self.ect_seen,
            Ecn::Ce => !demand_cwr,
            Ecn::Ect => false,
        };
        self.ect_seen |= pkt.ecn != Ecn::NotEct;
        EcnCue { cwr: pkt.cwr, quickack }
    }

    /// The ACK policy's timer expired at `now` (called only when
    /// `delack_deadline() == Some(now)`; other calls are ignored).
    pub fn on_delack_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.ack.deadline().is_some_and(|at| at <= now) {
            self.ack.timer_fired();
            self.counters.acks_on_timer += 1;
            self.send_ack(None, out);
        }
    }

    pub fn delack_deadline(&self) -> Option<SimTime> {
        self.ack.deadline()
    }

    /// Next segment expected (everything below has been delivered).
    pub fn rcv_nxt(&self) -> u32 {
        self.rcv_nxt
    }

    pub fn counters(&self) -> &ReceiverCounters {
        &self.counters
    }

    /// Record the arrival of segment `seq`.
    fn receive(&mut self, seq: u32) -> Arrival {
        if seq < self.rcv_nxt {
            return Arrival::Duplicate;
        }
        if seq > self.rcv_nxt {
            self.hold(seq);
            return Arrival::OutOfOrder;
        }
        let filled_gap = !self.held.is_empty();
        let mut delivered = 1;
        self.rcv_nxt += 1;
        if self.held.first().is_some_and(|b| b.start == self.rcv_nxt) {
            let b = self.held.remove(0);
            delivered += b.end - b.start;
            self.rcv_nxt = b.end;
        }
        self.counters.segments_delivered += u64::from(delivered);
        Arrival::InOrder { filled_gap }
    }

    /// Add `seq` (> rcv_nxt) to the held blocks, merging with its neighbours.
    fn hold(&mut self, seq: u32) {
        let Some(end) = seq.checked_add(1) else { return };
        // First block that ends at or after `seq`: it holds seq, or ends right at it, or lies above.
        let i = self.held.partition_point(|b| b.end < seq);
        let Some(&b) = self.held.get(i) else {
            self.held.push(SackBlock { start: seq, end });
            return;
        };
        if b.start <= seq && seq < b.end {
            return;
        }
        if b.end == seq {
            self.held[i].end = end;
            if self.held.get(i + 1).is_some_and(|n| n.start == end) {
                self.held[i].end = self.held.remove(i + 1).end;
            }
        } else if b.start == end {
            self.held[i].start = seq;
        } else {
            self.held.insert(i, SackBlock { start: seq, end });
        }
    }

    /// The held block containing `seq`, if any.
    fn block_containing(&self, seq: u32) -> Option<SackBlock> {
        let i = self.held.partition_point(|b| b.end <= seq);
        self.held.get(i).copied().filter(|b| b.start <= seq)
    }

    /// Build and send an ACK; `trigger` is the out-of-order segment that caused it.
    fn send_ack(&mut self, trigger: Option<u32>, out: &mut Vec<Packet>) {
        let mut ack = Packet::new(PacketKind::Ack, self.flow, self.node, self.peer, self.cfg.ack_size);
        ack.seq = self.rcv_nxt;
        ack.ts = self.ts_recent;
        ack.class = self.class;
        (ack.cwr, ack.ece) = ack_flags(self.cfg.ecn_feedback, self.ce_unacked, self.ece);
        self.ce_unacked = false;
        ack.jcc_r = self.jcc_echo.take();
        ack.xcp = self.xcp_echo.take().map(|feedback| XcpHeader { feedback, ..XcpHeader::default() });
        if self.cfg.sack {
            self.fill_sack_blocks(trigger, &mut ack);
        }
        self.last_ack_sent = self.rcv_nxt;
        self.ack.ack_sent();
        self.counters.acks_sent += 1;
        out.push(ack);
    }

    /// RFC 2018 section 4 block selection (see the module doc).
    fn fill_sack_blocks(&mut self, trigger: Option<u32>, ack: &mut Packet) {
        ack.n_sack = 0;
        if let Some(b) = trigger.and_then(|seq| self.block_containing(seq)) {
            push_distinct(ack, b);
        }
        for r in self.reported[..self.n_reported].iter() {
            // A block reached by rcv_nxt is acknowledged; one still above it may have grown.
            if r.end > self.rcv_nxt {
                if let Some(b) = self.block_containing(r.start) {
                    push_distinct(ack, b);
                }
            }
        }
        for &b in self.held.iter() {
            if usize::from(ack.n_sack) == MAX_SACK_BLOCKS {
                break;
            }
            push_distinct(ack, b);
        }
        self.reported = ack.sack;
        self.n_reported = usize::from(ack.n_sack);
    }
}

/// Append `b` to the SACK blocks of `ack` unless it is there already or the option is full.
fn push_distinct(ack: &mut Packet, b: SackBlock) {
    let n = usize::from(ack.n_sack);
    if n < MAX_SACK_BLOCKS && !ack.sack[..n].contains(&b) {
        ack.sack[n] = b;
        ack.n_sack += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    const MS: SimTime = NS_PER_MS;

    fn data(seq: u32, ts: SimTime) -> Packet {
        let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1500);
        p.seq = seq;
        p.ts = ts;
        p
    }

    fn blocks(ack: &Packet) -> Vec<(u32, u32)> {
        ack.sack_blocks().iter().map(|b| (b.start, b.end)).collect()
    }

    /// Deliver `seq` (timestamp = seq ms) and return the ACK it caused, if any.
    fn arrive(r: &mut TcpReceiver, now: SimTime, seq: u32) -> Option<Packet> {
        let mut out = Vec::new();
        r.on_data(now, &data(seq, seq as SimTime * MS), || SenderView::UNLIMITED, &mut out);
        assert!(out.len() <= 1);
        out.pop()
    }

    #[test]
    fn sack_blocks_follow_rfc2018() {
        let mut r = TcpReceiver::new(0, 1, 0, TcpConfig::default());
        let mut ack = |seq| {
            let a = arrive(&mut r, 0, seq).expect("one ACK per segment");
            (a.seq, blocks(&a))
        };
        assert_eq!(ack(0), (1, vec![]));
        assert_eq!(ack(2), (1, vec![(2, 3)]));
        assert_eq!(ack(4), (1, vec![(4, 5), (2, 3)]));
        assert_eq!(ack(6), (1, vec![(6, 7), (4, 5), (2, 3)]));
        // Four blocks held, three fit: the oldest reported one drops out.
        assert_eq!(ack(8), (1, vec![(8, 9), (6, 7), (4, 5)]));
        // 3 joins 2..3 and 4..5: the first block is the merged one, then the most
        // recently reported others (4..5 is part of the first now).
        assert_eq!(ack(3), (1, vec![(2, 5), (8, 9), (6, 7)]));
        // A segment that advances rcv_nxt has no block of its own.
        assert_eq!(ack(1), (5, vec![(8, 9), (6, 7)]));
        // A duplicate of a held segment reports its block first.
        assert_eq!(ack(8), (5, vec![(8, 9), (6, 7)]));
        assert_eq!(ack(6), (5, vec![(6, 7), (8, 9)]));
        assert_eq!(ack(5), (7, vec![(8, 9)]));
        assert_eq!(ack(7), (9, vec![]));
        // An old duplicate is acknowledged at once.
        assert_eq!(ack(3), (9, vec![]));
        assert_eq!(r.counters().segments_delivered, 9);
        assert_eq!(r.counters().data_received, 12);
        assert_eq!(r.counters().acks_sent, 12);
    }

    #[test]
    fn no_sack_blocks_without_sack() {
        let mut r = TcpReceiver::new(0, 1, 0, TcpConfig { sack: false, ..TcpConfig::default() });
        arrive(&mut r, 0, 0);
        let a = arrive(&mut r, 0, 2).unwrap();
        assert_eq!((a.seq, a.n_sack), (1, 0));
    }

    #[test]
    fn delayed_ack_every_second_segment_and_on_timeout() {
        let cfg = TcpConfig { delayed_ack: true, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(0, 1, 0, cfg);
        assert!(arrive(&mut r, 0, 0).is_none());
        assert_eq!(r.delack_deadline(), Some(100 * MS));
        // The second segment is acknowledged at once, echoing the first one's timestamp.
        let a = arrive(&mut r, 10 * MS, 1).unwrap();
        assert_eq!((a.seq, a.ts), (2, 0));
        assert_eq!(r.delack_deadline(), None);
        // A lone segment waits for the timer.
        assert!(arrive(&mut r, 20 * MS, 2).is_none());
        assert_eq!(r.delack_deadline(), Some(120 * MS));
        let mut out = Vec::new();
        r.on_delack_timer(119 * MS, &mut out);
        assert!(out.is_empty());
        r.on_delack_timer(120 * MS, &mut out);
        assert_eq!((out[0].seq, out[0].ts), (3, 2 * MS));
        assert_eq!(r.delack_deadline(), None);
        // Out of order: immediate, echoing the last in-order segment (RFC 7323 4.3).
        assert!(arrive(&mut r, 130 * MS, 3).is_none());
        let a = arrive(&mut r, 131 * MS, 5).unwrap();
        assert_eq!((a.seq, a.ts, blocks(&a)), (4, 3 * MS, vec![(5, 6)]));
        // Filling the hole: immediate, echoing the filler's timestamp.
        let a = arrive(&mut r, 140 * MS, 4).unwrap();
        assert_eq!((a.seq, a.ts, a.n_sack), (6, 4 * MS, 0));
        assert_eq!(r.counters().acks_sent, 4);
        assert_eq!(r.counters().segments_delivered, 6);
    }

    #[test]
    fn an_ack_echoes_the_summed_xcp_feedback_of_what_it_acknowledges() {
        let cfg = TcpConfig { delayed_ack: true, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(0, 1, 0, cfg);
        let mut out = Vec::new();
        let xcp = |seq, feedback| {
            let mut p = data(seq, 0);
            p.xcp = Some(XcpHeader { cwnd: 3000.0, rtt: 0.1, feedback });
            p
        };
        r.on_data(0, &xcp(0, 10.0), || SenderView::UNLIMITED, &mut out);
        r.on_data(MS, &xcp(1, -3.5), || SenderView::UNLIMITED, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].xcp, Some(XcpHeader { cwnd: 0.0, rtt: 0.0, feedback: 6.5 }));
        // The next ACK starts afresh; one without XCP segments carries no header.
        r.on_data(2 * MS, &xcp(2, 1.0), || SenderView::UNLIMITED, &mut out);
        r.on_data(3 * MS, &data(3, 0), || SenderView::UNLIMITED, &mut out);
        assert_eq!(out[1].xcp.map(|h| h.feedback), Some(1.0));
        r.on_data(4 * MS, &data(4, 0), || SenderView::UNLIMITED, &mut out);
        r.on_data(5 * MS, &data(5, 0), || SenderView::UNLIMITED, &mut out);
        assert_eq!(out[2].xcp, None);
    }

    #[test]
    fn latest_echo_takes_the_newest_timestamp() {
        let cfg = TcpConfig { delayed_ack: true, ts_echo: TsEcho::Latest, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(0, 1, 0, cfg);
        assert!(arrive(&mut r, 0, 0).is_none());
        // ns-2's DelAckSink: the ACK of two segments echoes the second (RFC 7323: the first).
        let a = arrive(&mut r, 10 * MS, 1).unwrap();
        assert_eq!((a.seq, a.ts), (2, MS));
        // An out-of-order segment's own timestamp is echoed too.
        let a = arrive(&mut r, 20 * MS, 5).unwrap();
        assert_eq!((a.seq, a.ts), (2, 5 * MS));
    }

    #[test]
    fn ece_from_ce_until_cwr() {
        let mut r = TcpReceiver::new(0, 1, 0, TcpConfig { ecn: true, ..TcpConfig::default() });
        let mut out = Vec::new();
        let mut send = |r: &mut TcpReceiver, seq: u32, ecn: Ecn, cwr: bool| {
            let mut p = data(seq, 0);
            p.ecn = ecn;
            p.cwr = cwr;
            r.on_data(0, &p, || SenderView::UNLIMITED, &mut out);
            out.pop().unwrap().ece
        };
        assert!(!send(&mut r, 0, Ecn::Ect, false));
        assert!(send(&mut r, 1, Ecn::Ce, false));
        assert!(send(&mut r, 2, Ecn::Ect, false));
        assert!(!send(&mut r, 3, Ecn::Ect, true));
        assert!(!send(&mut r, 4, Ecn::Ect, false));
        // CE on the CWR segment itself starts a new echo.
        assert!(send(&mut r, 5, Ecn::Ce, true));
        assert!(send(&mut r, 6, Ecn::Ect, false));
        assert_eq!(r.counters().ce_received, 2);
    }

    #[test]
    fn a_linux_receiver_with_ecn_acknowledges_cwr_ce_and_retransmissions_sooner() {
        use super::super::ack::AckPolicy;
        let linux = |ecn| TcpConfig { ecn, ack_policy: AckPolicy::Linux, ..TcpConfig::default() };
        let mut t = 0;
        // true if acknowledged at once (else the timer's ACK is sent)
        // the next segment in order, at 100 ms intervals
        let mut send = |r: &mut TcpReceiver, ecn: Ecn, cwr: bool| {
            let mut p = data(r.rcv_nxt(), 0);
            (p.ecn, p.cwr) = (ecn, cwr);
            t += 100 * MS;
            let mut out = Vec::new();
            r.on_data(t, &p, || SenderView::UNLIMITED, &mut out);
            if out.is_empty() {
                r.on_delack_timer(r.delack_deadline().unwrap(), &mut out);
                return false;
            }
            true
        };
        let (mut r, mut plain) = (TcpReceiver::new(0, 1, 0, linux(true)), TcpReceiver::new(0, 1, 0, linux(false)));
        for _ in 0..16 {
            assert!(send(&mut r, Ecn::Ect, false) && send(&mut plain, Ecn::Ect, false), "quickack mode");
        }
        let mut arrivals = |r: &mut TcpReceiver, marks: &[(Ecn, bool)]| marks.iter().map(|&(ecn, cwr)| send(r, ecn, cwr)).collect::<Vec<_>>();
        let (ect, ce, not_ect) = ((Ecn::Ect, false), (Ecn::Ce, false), (Ecn::NotEct, false));
        // without ECN nothing counts
        assert_eq!(arrivals(&mut plain, &[ect, ce, (Ecn::Ect, true), not_ect]), [false, false, false, false]);
        // the first CE segment and the next: at once; CE again before CWR: no new cue
        assert_eq!(arrivals(&mut r, &[ect, ce, ect, ce, ect]), [false, true, true, false, false]);
        // CWR: at once, with no quick ACK after it; CE after the CWR starts a new echo
        assert_eq!(arrivals(&mut r, &[(Ecn::Ect, true), ect, ce, ect, ect]), [true, false, true, true, false]);
        // Not-ECT after ECT: a retransmission to Linux
        assert_eq!(arrivals(&mut r, &[not_ect, ect, ect]), [true, true, false]);
    }

    #[test]
    fn odd_input_does_not_panic() {
        let mut r = TcpReceiver::new(0, 1, 0, TcpConfig::default());
        let mut out = Vec::new();
        for seq in [u32::MAX, u32::MAX - 1, 1 << 31, 7, 0] {
            r.on_data(0, &data(seq, 0), || SenderView::UNLIMITED, &mut out);
        }
        r.on_data(0, &Packet::new(PacketKind::Ack, 0, 0, 1, 40), || SenderView::UNLIMITED, &mut out);
        r.on_delack_timer(0, &mut out);
        assert_eq!(out.len(), 5);
        assert_eq!(r.rcv_nxt(), 1);
    }
}
