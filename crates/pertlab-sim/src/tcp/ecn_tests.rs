//! End-to-end tests of ECN feedback on the test bench: RFC 3168, XECN
//! (Tahiliani 2013 Algorithms 5 and 6) and the controllers that read marks.

use super::cc::surathkal::{AlphaTiming, Surathkal, SurathkalConfig};
use super::cc::CaState;
use super::testbench::{Bench, Fate};
use super::{EcnFeedback, TcpConfig};
use crate::packet::{Ecn, Packet, PacketKind};
use crate::time::{SimTime, NS_PER_SEC};

const SEC: SimTime = NS_PER_SEC;

fn cfg(feedback: EcnFeedback) -> TcpConfig {
    TcpConfig { ecn: true, ecn_feedback: feedback, init_cwnd: 20, ..TcpConfig::default() }
}

/// A bench in congestion avoidance at cwnd 20 whose path marks the first
/// transmission of `ce` CE.
fn marking(cfg: TcpConfig, ce: &'static [u32]) -> Bench {
    let mut b = Bench::new(cfg);
    b.data_rule = Box::new(move |p| if !p.retx && ce.contains(&p.seq) { Fate::MarkCe } else { Fate::Deliver });
    b.snd.tp.snd_ssthresh = 20;
    b
}

fn is_cc(a: &Packet) -> bool {
    a.cwr && a.ece
}

#[test]
fn xecn_receiver_sends_cc_per_ce_segment_and_ece_until_cwr() {
    let mut b = marking(cfg(EcnFeedback::Xecn), &[30, 31, 35]);
    b.start();
    b.run_until(2 * SEC);
    let cwr = b.log.iter().find(|s| s.cwr).expect("a CWR segment").seq;
    assert!(cwr > 36, "CWR goes out after the marks, on segment {cwr}");
    for (_, a) in &b.acks_seen {
        let cc = [31, 32, 36].contains(&a.seq);
        let ece = (31..=cwr).contains(&a.seq);
        assert_eq!((is_cc(a), a.ece), (cc, ece), "ack {}", a.seq);
    }
    // The sender counted each CE once and reduced once (Reno: halving).
    let c = *b.snd.counters();
    assert_eq!((c.ecn_marks, c.ecn_reductions, c.retransmits), (3, 1, 0));
    assert_eq!(b.rcv.counters().ce_received, 3);
    let t = b.transitions.iter().find(|t| t.state == CaState::Cwr).unwrap();
    assert_eq!((t.cwnd, t.ssthresh), (10, 10));
}

#[test]
fn xecn_sender_infers_lost_cc_acks_from_the_first_ece() {
    // Every CC ACK is lost: Algorithm 6 counts one mark (the first ECE of the
    // window); counting the inferred-lost ACKs recovers the three.
    for (count_lost, marks) in [(false, 1), (true, 3)] {
        let mut b = marking(TcpConfig { xecn_count_lost_acks: count_lost, ..cfg(EcnFeedback::Xecn) }, &[30, 31, 35]);
        b.ack_rule = Box::new(|a| if is_cc(a) { Fate::Drop } else { Fate::Deliver });
        b.start();
        b.run_until(2 * SEC);
        let c = *b.snd.counters();
        assert_eq!((c.ecn_marks, c.ecn_reductions), (marks, 1), "count_lost_acks {count_lost}");
    }
}

#[test]
fn rfc3168_sender_reads_a_count_codepoint_as_ece_and_a_non_ecn_sender_ignores_it() {
    // A peer sends the Count Codepoint to a sender that reads RFC 3168: the
    // CC is an ECE (spec 1.10 (d)); the sender reduces and enters CWR.
    let mut legacy = Bench::new(cfg(EcnFeedback::Rfc3168));
    legacy.snd.tp.snd_ssthresh = 20;
    legacy.start();
    legacy.run_until(SEC / 2);
    let una = legacy.snd.tp.snd_una;
    let mut out = Vec::new();
    let mut ack = Packet::new(PacketKind::Ack, 0, 1, 0, 40);
    ack.seq = una + 1;
    (ack.cwr, ack.ece) = (true, true);
    legacy.snd.on_ack(legacy.now, &ack, &mut legacy.rng, &mut out);
    assert_eq!((legacy.snd.counters().ecn_reductions, legacy.snd.tp.ca_state), (1, CaState::Cwr));
    // A second CC in the same window is not a second reduction.
    ack.seq += 1;
    legacy.snd.on_ack(legacy.now, &ack, &mut legacy.rng, &mut out);
    assert_eq!(legacy.snd.counters().ecn_reductions, 1);
    // A sender that did not negotiate ECN ignores CC and ECE alike.
    let mut plain = Bench::new(TcpConfig { init_cwnd: 20, ..TcpConfig::default() });
    plain.snd.tp.snd_ssthresh = 20;
    plain.start();
    plain.run_until(SEC / 2);
    let (cwnd, una) = (plain.snd.tp.snd_cwnd, plain.snd.tp.snd_una);
    let mut out = Vec::new();
    ack.seq = una + 1;
    plain.snd.on_ack(plain.now, &ack, &mut plain.rng, &mut out);
    let c = plain.snd.counters();
    assert_eq!((c.ecn_reductions, c.ecn_marks, plain.snd.tp.ca_state), (0, 0, CaState::Open));
    assert!(plain.snd.tp.snd_cwnd >= cwnd);
    assert!(out.iter().all(|p| !p.cwr && p.ecn == Ecn::NotEct));
}

#[test]
fn rfc3168_retransmissions_are_not_ect_and_new_data_after_them_is() {
    let mut b = marking(cfg(EcnFeedback::Xecn), &[]);
    b.data_rule = Box::new(|p| if !p.retx && p.seq == 40 { Fate::Drop } else { Fate::Deliver });
    b.start();
    b.run_until(2 * SEC);
    let rtx: Vec<_> = b.log.iter().filter(|s| s.retx).collect();
    assert_eq!(rtx.len(), 1);
    assert_eq!(rtx[0].ecn, Ecn::NotEct);
    assert!(b.log.iter().filter(|s| !s.retx).all(|s| s.ecn == Ecn::Ect));
}

/// Surathkal on the bench: CE on every other segment of 40..=79 (alpha 0.5
/// over the windows they span); returns the windows right after each reduction.
fn surathkal_reductions(timing: AlphaTiming) -> Vec<(u32, u32)> {
    const CE: [u32; 20] = [40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62, 64, 66, 68, 70, 72, 74, 76, 78];
    let mut b = Bench::with_cc(cfg(EcnFeedback::Xecn), Box::new(Surathkal::new(SurathkalConfig { alpha_timing: timing, ..SurathkalConfig::default() })));
    b.data_rule = Box::new(|p| if !p.retx && CE.contains(&p.seq) { Fate::MarkCe } else { Fate::Deliver });
    b.snd.tp.snd_ssthresh = 20;
    b.start();
    let mut cw = Vec::new();
    let mut t = 0;
    let mut last = b.snd.counters().ecn_reductions;
    while t < 2 * SEC {
        // Step one ACK at a time: look at the window before and after a reduction.
        let before = b.snd.tp.snd_cwnd;
        t += SEC / 1000;
        b.run_until(t);
        let c = b.snd.counters().ecn_reductions;
        if c != last {
            cw.push((before, b.snd.tp.snd_cwnd));
            last = c;
        }
    }
    assert_eq!(b.snd.counters().ecn_marks, 20);
    cw
}

#[test]
fn surathkal_reduces_by_half_the_marked_fraction_once_per_window() {
    // Option A: at the first mark the last completed window had no marks
    // (alpha 0): CWR without a reduction. The next window's first mark applies
    // the alpha of the window of marks, about 0.5 (every other segment):
    // 21 (1 - 0.5 / 2) = 15.75, and with alpha within [0.45, 0.55] the kept
    // window 21 - floor(21 alpha / 2) is 16.
    assert_eq!(surathkal_reductions(AlphaTiming::PreviousWindow), vec![(21, 21), (21, 16)]);
    // Option B: CWR at the first mark, the reduction to 16 when that window
    // ends (not a new CWR entry, so the second entry finds 16 already).
    assert_eq!(surathkal_reductions(AlphaTiming::EndOfWindow), vec![(21, 21), (16, 16)]);
}
