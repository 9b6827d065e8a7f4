//! The ACK policies between a Reno sender and its receiver on the test bench
//! (1 ms per data packet, 50 ms each way).

use super::AckPolicy;
use crate::tcp::cc::reno::Reno;
use crate::tcp::sender::TcpSender;
use crate::tcp::testbench::Bench;
use crate::tcp::TcpConfig;
use crate::time::{SimTime, NS_PER_MS, NS_PER_SEC};

fn cfg(policy: AckPolicy, max_cwnd: u32) -> TcpConfig {
    TcpConfig { ack_policy: policy, max_cwnd, ..TcpConfig::default() }
}

/// Qian 2011 Figs 16 and 17: one greedy flow; data packets per ACK about 4
/// (adaptive), 2 (delayed by two), 1 (every segment). The window (150
/// segments) is above the path's 101 and the bench drops nothing, so the
/// bottleneck is busy and data arrive in order, 1 ms apart.
#[test]
fn data_per_ack_ratio_of_one_greedy_flow() {
    for (policy, want) in [(AckPolicy::Adaptive, 4.0), (AckPolicy::Delayed, 2.0), (AckPolicy::Linux, 2.0), (AckPolicy::Every, 1.0)] {
        let mut b = Bench::new(cfg(policy, 150));
        b.check_each_step = false;
        b.start();
        b.run_until(30 * NS_PER_SEC);
        let ratio = b.data_delivered as f64 / b.rcv.counters().acks_sent as f64;
        assert!((ratio - want).abs() <= 0.05 * want, "{policy:?}: data/ACK {ratio:.3}, want {want} within 5 %");
        assert!(b.data_delivered > 25_000, "{policy:?}: the flow fills the link ({} packets)", b.data_delivered);
    }
}

/// When a transfer of `n` segments with a window of `w` is completely
/// acknowledged, and how many ACKs the receiver's timer sent.
fn transfer(policy: AckPolicy, w: u32, n: u32) -> (SimTime, u64) {
    let c = TcpConfig { init_cwnd: w, ..cfg(policy, w) };
    let mut b = Bench::new(c.clone());
    b.snd = TcpSender::new(0, 0, 1, c, Box::new(Reno)).with_data(n);
    b.start();
    let mut t = 0;
    while !b.snd.finished() {
        t += NS_PER_MS;
        assert!(t < 100 * NS_PER_SEC, "{policy:?} w {w}: the transfer stalls");
        b.run_until(t);
    }
    let done = b.acks_seen.last().expect("acknowledged").0;
    (done, b.rcv.counters().acks_on_timer)
}

/// Qian IV.A: the receiver never holds more than the sender's window, so a
/// transfer never waits for the ACK timer, at its end either; it finishes
/// within a packet time per window segment of the time with one ACK per segment.
#[test]
fn adaptive_never_stalls_at_the_end_of_a_transfer() {
    for w in [1, 2, 3] {
        for n in [1, 2, 3, 10, 31] {
            let (every, _) = transfer(AckPolicy::Every, w, n);
            let (adaptive, on_timer) = transfer(AckPolicy::Adaptive, w, n);
            assert_eq!(on_timer, 0, "w {w}, n {n}: an ACK waited for the timer");
            assert!(adaptive <= every + SimTime::from(w) * NS_PER_MS, "w {w}, n {n}: {adaptive} ns against {every} ns");
        }
    }
}
