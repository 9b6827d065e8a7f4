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
