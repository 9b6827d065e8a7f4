//! The sender's unit tests: recovery, RTO, RTT sampling, ECN, on the test bench.

use super::super::testbench::{Bench, Fate, Transition};
use super::*;
use crate::packet::{Ecn, SackBlock};
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
    assert!(2 * SEC - b.snd.tp.last_send > b.snd.rto());
    b.resume();
    assert_eq!(b.snd.tp.snd_cwnd, 2, "cwnd = min(cwnd, init_cwnd)");
    assert_eq!(b.snd.counters().segments_sent - sent, 2, "the restart window goes out at once");
    let ssthresh = b.snd.tp.snd_ssthresh;
    b.run_until(3 * SEC);
    assert_eq!(b.snd.tp.snd_ssthresh, ssthresh);
    assert!(b.snd.tp.snd_cwnd > 20, "slow start again after the restart");
}

/// Slow start for 1 s, then the application stops; returns the bench within a
/// millisecond of the ACK that leaves nothing outstanding.
fn stopped_until_acknowledged() -> Bench {
    let mut b = Bench::new(TcpConfig::default());
    b.start();
    b.run_until(SEC);
    b.snd.stop();
    while b.snd.sb.outstanding() > 0 {
        let t = b.now + MS;
        b.run_until(t);
    }
    b
}

#[test]
fn the_ack_that_empties_the_flight_marks_when_the_sender_went_idle() {
    let mut b = stopped_until_acknowledged();
    // The last ACK came within the last millisecond, a round trip after the last send.
    assert!(b.snd.tp.drained_at + MS > b.now && b.snd.tp.drained_at <= b.now, "{} at {}", b.snd.tp.drained_at, b.now);
    assert!(b.snd.tp.drained_at > b.snd.tp.last_send);
    let drained = b.snd.tp.drained_at;
    b.run_until(b.now + 50 * MS);
    b.resume();
    assert_eq!(b.snd.tp.drained_at, drained, "a transmission leaves it");
}

#[test]
fn resume_within_the_rto_of_the_last_send_keeps_the_window() {
    // Rejoin as soon as the flight is acknowledged: idle < RTO.
    let mut b = stopped_until_acknowledged();
    assert!(b.now - b.snd.tp.last_send <= b.snd.rto());
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
fn newreno_after_a_timeout_the_go_back_n_duplicates_start_no_fast_retransmit() {
    // Segment 5 is lost, and so is its fast retransmission: the timer fires.
    // Go-back-N then resends segments the receiver already holds, each of which
    // draws a duplicate ACK for data sent before the timeout. RFC 6582 3.2 step
    // 1 (ns-2's bugfix_): they start no fast retransmit; without the check each
    // partial ACK of that spurious recovery resent the next segment, which was
    // already on its way (issue found on 2026-12-07: twice the retransmissions
    // of the drops under random loss).
    let mut b = Bench::new(TcpConfig { sack: false, init_cwnd: 20, ..TcpConfig::default() }).drop_transmissions(&[(5, 2)]);
    b.snd.tp.snd_ssthresh = 20;
    b.start();
    b.run_until(5 * SEC);
    let c = *b.snd.counters();
    assert_eq!((c.fast_recoveries, c.timeouts), (1, 1), "{:?}", b.transitions);
    let timeout = b.transitions.iter().position(|t| t.state == CaState::Loss).expect("a timeout");
    assert!(b.transitions[timeout..].iter().all(|t| t.state != CaState::Recovery), "{:?}", b.transitions);
    // Go-back-N resends at most what was outstanding at the timeout, once.
    let resent_after: Vec<u32> = b.retransmissions().iter().filter(|s| s.at >= b.transitions[timeout].at).map(|s| s.seq).collect();
    let mut unique = resent_after.clone();
    unique.dedup();
    assert_eq!(unique, resent_after, "each segment resent once after the timeout: {resent_after:?}");
    b.check_conservation();
}

#[test]
fn newreno_in_loss_duplicate_acks_clock_out_nothing() {
    // Segments 5 and 12 are lost, and so is 5's fast retransmission: the timer fires with
    // segments from 13 on outstanding that the receiver holds. Go-back-N then resends in slow
    // start; the duplicate ACKs that arrive meanwhile, before any data beyond the timeout's
    // snd_nxt has gone out, must not release more of them (they did, one per duplicate ACK,
    // counted as NewReno's window inflation).
    let mut b = Bench::new(TcpConfig { sack: false, init_cwnd: 20, ..TcpConfig::default() }).drop_transmissions(&[(5, 2), (12, 1)]);
    b.snd.tp.snd_ssthresh = 20;
    b.start();
    b.run_until(5 * SEC);
    let c = *b.snd.counters();
    assert_eq!(c.timeouts, 1, "{:?}", b.transitions);
    let timeout = b.transitions.iter().find(|t| t.state == CaState::Loss).expect("a timeout").at;
    let resent: Vec<u32> = b.retransmissions().iter().filter(|s| s.at >= timeout).map(|s| s.seq).collect();
    // Segment 5 alone (cwnd 1); its ACK covers 5 to 11 and slow start opens the window to
    // ssthresh (5): 12 to 16, of which 13 to 16 the receiver holds (go-back-N). Counting the
    // duplicate ACKs resent 5 to 24, all of it, before the first ACK came back.
    assert_eq!(resent, vec![5, 12, 13, 14, 15, 16], "{:?}", b.transitions);
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
        // Waited from the start (timer armed at 0) to this timeout: 1 s, then 2 and 4 more.
        assert_eq!(c.rto_wait_ns, t * SEC);
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
    assert_eq!(b.snd.counters().rto_wait_ns, 7 * SEC, "no timeout since the one at 7 s");
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

/// `rtt_samples = linux` (Linux's `tcp_clean_rtx_queue`): on a loss-free
/// paced path with delayed ACKs, whatever the receiver echoes, the controller's
/// sample is the last newly acknowledged segment's and the estimator's (the
/// flow's RTT statistics, srtt, the RTO) the first one's; with `echo` both are
/// the echoed segment's.
#[test]
fn linux_samples_give_the_estimator_the_first_segment_and_the_controller_the_last() {
    use super::super::pacing::PacingConfig;
    use super::super::{AckPolicy, RttSamples, TsEcho};
    let pacing = PacingConfig { enabled: true, ..PacingConfig::default() };
    for ts_echo in [TsEcho::Earliest, TsEcho::Latest] {
        for rtt_samples in [RttSamples::Echo, RttSamples::Linux] {
            let cfg = TcpConfig { ack_policy: AckPolicy::Delayed, ts_echo, rtt_samples, max_cwnd: 50, pacing: pacing.clone(), ..TcpConfig::default() };
            let mut b = Bench::new(cfg);
            b.start();
            b.run_until(2 * SEC);
            assert_eq!(b.data_dropped, 0);
            let sent_at = |seq: u32| b.log.iter().find(|s| s.seq == seq).map(|s| s.at).expect("segment sent");
            let (mut first_sum, mut last_sum, mut controller_sum, mut apart) = (0u128, 0u128, 0u128, 0);
            for &(now, ack, snd_una, sample) in &b.samples {
                let (first, last) = (now - sent_at(snd_una), now - sent_at(ack.seq - 1));
                first_sum += u128::from(first);
                last_sum += u128::from(last);
                controller_sum += u128::from(sample.rtt);
                apart += usize::from(first != last);
                if rtt_samples == RttSamples::Linux {
                    assert_eq!((sample.seq, sample.rtt), (ack.seq - 1, last), "ACK {} at {now}", ack.seq);
                }
            }
            let n = b.samples.len();
            assert!(n > 50 && apart * 2 > n, "{ts_echo:?} {rtt_samples:?}: {apart} of {n} samples tell the segments apart");
            let c = b.snd.counters();
            assert_eq!(c.rtt_samples, n as u64);
            let (estimator, controller) = match (rtt_samples, ts_echo) {
                (RttSamples::Linux, _) => (first_sum, last_sum),
                (RttSamples::Echo, TsEcho::Earliest) => (first_sum, first_sum),
                (RttSamples::Echo, TsEcho::Latest) => (last_sum, last_sum),
            };
            assert_eq!((c.rtt_sum_ns, controller_sum), (estimator, controller), "{ts_echo:?} {rtt_samples:?}");
        }
    }
}

/// With `rtt_samples = linux` the ACKs that only SACK new segments give
/// samples too (Linux's `sack_rtt_us`); with the echo, only those that advance
/// `snd_una` do (RFC 7323 RTTM).
#[test]
fn linux_samples_come_from_sack_only_acks_too() {
    use super::super::RttSamples;
    for rtt_samples in [RttSamples::Echo, RttSamples::Linux] {
        let mut b = Bench::new(TcpConfig { rtt_samples, ..TcpConfig::default() }).drop_first_transmission_of(&[20]);
        b.start();
        b.run_until(2 * SEC);
        let from_sacks = b.samples.iter().filter(|(_, ack, snd_una, _)| ack.seq == *snd_una).count();
        match rtt_samples {
            RttSamples::Echo => assert_eq!(from_sacks, 0),
            // Each duplicate ACK SACKs one new segment, sent one packet time after the last.
            RttSamples::Linux => assert!(from_sacks >= 3, "{from_sacks} samples from SACK-only ACKs"),
        }
        b.check_conservation();
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
fn ecn_retransmissions_are_not_ect_unless_the_controller_needs_ecn() {
    // RFC 3168 6.1.5 for Reno; DCTCP's are ECT, as Linux sends them (`tcp_ecn_send`
    // keeps ECT on a retransmission when the controller needs ECN).
    use crate::tcp::cc::dctcp::{Dctcp, DctcpConfig};
    use crate::tcp::EcnFeedback;
    for (dctcp, ecn) in [(false, Ecn::NotEct), (true, Ecn::Ect)] {
        let cfg = TcpConfig { ecn: true, init_cwnd: 20, ..TcpConfig::default() };
        let bench = if dctcp {
            Bench::with_cc(TcpConfig { ecn_feedback: EcnFeedback::Dctcp, ..cfg }, Box::new(Dctcp::new(DctcpConfig::default())))
        } else {
            Bench::new(cfg)
        };
        let mut b = bench.drop_first_transmission_of(&[5]);
        b.start();
        b.run_until(2 * SEC);
        let rtx = b.retransmissions();
        assert_eq!(rtx.len(), 1, "dctcp {dctcp}");
        assert_eq!(rtx[0].ecn, ecn, "dctcp {dctcp}");
        // A loss reduction is a reduction too: the next new segment carries CWR.
        let next_new = b.log.iter().find(|s| s.at >= rtx[0].at && !s.retx).unwrap();
        assert!(next_new.cwr, "dctcp {dctcp}");
    }
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
