//! An application-limited sender (`TcpSender::write`, the video source of
//! `traffic::video`) on the test bench.

use super::cc::reno::Reno;
use super::sender::TcpSender;
use super::testbench::Bench;
use super::TcpConfig;
use crate::time::NS_PER_MS;

/// The application writes one segment every 5 ms (the bench carries one per
/// ms): the sender never sends more than was written, and sends all of it.
#[test]
fn an_application_limited_sender_sends_only_what_was_written() {
    let cfg = TcpConfig::default();
    let mut b = Bench::new(cfg.clone());
    b.snd = TcpSender::new(0, 0, 1, cfg, Box::new(Reno)).with_data(0);
    b.start();
    assert_eq!(b.snd.counters().segments_sent, 0, "nothing written, nothing sent");
    for written in 1..=2000u32 {
        b.run_until(u64::from(written) * 5 * NS_PER_MS);
        b.write(written);
        assert!(b.snd.tp.snd_nxt <= written, "sent {} of {written} written", b.snd.tp.snd_nxt);
    }
    b.run_until(10_200 * NS_PER_MS);
    assert_eq!(b.rcv.rcv_nxt(), 2000, "everything written is delivered");
    assert_eq!(b.snd.counters().retransmits, 0);
}

/// The same writer with `cwnd_validation` (Linux's `tcp_is_cwnd_limited`):
/// slow start from 2 segments falls behind the writer (one segment per 5 ms
/// over a 100 ms round trip), so the window is full until it has caught up,
/// with at most 64 in flight; then 20 are, and the window stops at 109,
/// below twice the most it had in flight. Without validation every ACK
/// grows it by one, to about the number written.
#[test]
fn cwnd_validation_stops_an_application_limited_window_at_twice_its_use() {
    let run = |cwnd_validation: bool| {
        let cfg = TcpConfig { cwnd_validation, ..TcpConfig::default() };
        let mut b = Bench::new(cfg.clone());
        b.snd = TcpSender::new(0, 0, 1, cfg, Box::new(Reno)).with_data(0);
        b.start();
        for written in 1..=2000u32 {
            b.run_until(u64::from(written) * 5 * NS_PER_MS);
            b.write(written);
        }
        b.run_until(10_200 * NS_PER_MS);
        assert_eq!(b.rcv.rcv_nxt(), 2000, "everything written is delivered");
        b.snd.tp.snd_cwnd
    };
    let (free, validated) = (run(false), run(true));
    assert!(free > 1900, "without validation the window grew to {free}");
    assert!((65..128).contains(&validated), "with validation it stopped at {validated}");
}

/// A bulk sender always fills its window: validation changes nothing.
#[test]
fn cwnd_validation_leaves_a_bulk_sender_as_it_was() {
    let run = |cwnd_validation: bool| {
        let mut b = Bench::new(TcpConfig { cwnd_validation, max_cwnd: 300, ..TcpConfig::default() }).drop_first_transmission_of(&[150, 400]);
        b.start();
        b.run_until(20_000 * NS_PER_MS);
        (b.snd.tp.snd_cwnd, b.snd.tp.snd_ssthresh, b.snd.counters().segments_sent, b.rcv.rcv_nxt())
    };
    assert_eq!(run(true), run(false));
}

/// Linux's TSO chunks (`tcp.tso_segs`): of the segments sent at one instant,
/// every `tso_segs`-th carries PSH and a shorter rest none; behind Linux's
/// delayed ACK the receiver acknowledges a lone PSH segment at once.
#[test]
fn tso_chunks_put_psh_on_the_last_segment_of_each_whole_chunk() {
    for (tso_segs, pushed) in [(1, vec![]), (2, vec![1, 3, 5, 7, 9]), (3, vec![2, 5, 8])] {
        let cfg = TcpConfig { init_cwnd: 10, tso_segs, ..TcpConfig::default() };
        let mut b = Bench::new(cfg);
        b.start();
        let first: Vec<u32> = b.log.iter().filter(|s| s.psh).map(|s| s.seq).collect();
        assert_eq!(b.log.len(), 10, "the initial window at once");
        assert_eq!(first, pushed, "tso_segs = {tso_segs}");
    }
}
