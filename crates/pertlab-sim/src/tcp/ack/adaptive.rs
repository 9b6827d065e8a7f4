//! Qian's adaptive delayed ACK (Qian 2011, Chapter IV.A, Algorithms 1 to 3),
//! following the corrected reading of the spec (pert-theses-kotla-qian.md B.5,
//! errata 1 to 8):
//!
//! - `cur` segments per ACK starts at `MIN_SEGMENTS_PER_ACK` (1) and grows by one per
//!   in-order segment up to `max_segments`, and never above the sender's
//!   window (Qian: otherwise the two ends deadlock);
//! - the expected inter-arrival time t̂ is an EWMA of the in-order
//!   inter-arrival times, weight α on the history;
//! - each held segment (re-)arms a timer of β t̂; when it fires the receiver
//!   acknowledges what it holds and the policy starts again (`cur = min`);
//! - a segment arriving more than β t̂ after the previous in-order one is
//!   "late": the policy starts again before counting it (so, with `min` = 1,
//!   it is acknowledged at once). The erratum's `send_ack()` at that point
//!   would acknowledge nothing new (the timer of anything held has fired,
//!   since it was armed at β t̂ with the same t̂), so it is not sent: it
//!   would look like a duplicate ACK to the sender;
//! - out-of-order, duplicate and gap-filling segments are acknowledged at
//!   once (by the receiver) and the policy starts again.
//!
//! One addition to the thesis: a segment is also acknowledged at once when
//! the receiver has everything the sender may send before a new ACK (its
//! window is full, or it has no more data: the end of a transfer). The
//! thesis's cap by the window avoids a deadlock in steady state only; this
//! rule avoids waiting for the timer at the end of a transfer, and for a
//! window of two segments, where the first segment of a window is
//! acknowledged alone and the second would otherwise wait.
//!
//! Left out: how a real receiver would know the sender's window (the spec
//! recommends the segments received in the last RTT); like ns-2's sink, the
//! receiver is told it (see [`super::SenderView`]).

use super::{AdaptiveAckConfig, SenderView, MIN_SEGMENTS_PER_ACK};
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct AdaptiveAck {
    cfg: AdaptiveAckConfig,
    /// t̂, `interval` of Algorithm 2: expected in-order inter-arrival time, ns.
    interval: f64,
    /// `lastTime`: arrival of the last in-order segment; none before the first.
    last_arrival: Option<SimTime>,
    /// `counter`: in-order segments held since the last ACK.
    counter: u32,
    /// `curPktPerAck`.
    cur: u32,
    /// When the timer of the held segments fires, if armed.
    at: Option<SimTime>,
}

impl AdaptiveAck {
    pub fn new(cfg: AdaptiveAckConfig) -> AdaptiveAck {
        AdaptiveAck { cfg, interval: 0.0, last_arrival: None, counter: 0, cur: MIN_SEGMENTS_PER_ACK, at: None }
    }

    /// β t̂ in ns (saturating).
    fn timeout(&self) -> SimTime {
        (self.cfg.timeout_factor * self.interval) as SimTime
    }

    pub fn in_order(&mut self, now: SimTime, rcv_nxt: u32, sender: SenderView) -> bool {
        if let Some(last) = self.last_arrival {
            let gap = now.saturating_sub(last);
            if gap > self.timeout() {
                self.restart();
            }
            let a = self.cfg.ewma_weight;
            self.interval = a * self.interval + (1.0 - a) * gap as f64;
        }
        self.last_arrival = Some(now);
        self.counter += 1;
        let window = sender.window.max(1);
        let ack = self.counter >= self.cur.min(window) || rcv_nxt >= sender.send_limit;
        if !ack {
            self.at = Some(now.saturating_add(self.timeout()));
        }
        self.cur = (self.cur + 1).min(self.cfg.max_segments).min(window).max(MIN_SEGMENTS_PER_ACK);
        ack
    }

    /// Back to the minimum segments per ACK (loss, disorder, late arrival, timeout).
    pub fn restart(&mut self) {
        self.cur = MIN_SEGMENTS_PER_ACK;
        self.counter = 0;
    }

    pub fn ack_sent(&mut self) {
        self.counter = 0;
        self.at = None;
    }

    pub fn deadline(&self) -> Option<SimTime> {
        self.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    const MS: SimTime = NS_PER_MS;

    fn run(a: &mut AdaptiveAck, arrivals: &[SimTime], sender: SenderView) -> Vec<bool> {
        let mut acks = Vec::new();
        for (i, &t) in arrivals.iter().enumerate() {
            let ack = a.in_order(t, i as u32 + 1, sender);
            if ack {
                a.ack_sent();
            }
            acks.push(ack);
        }
        acks
    }

    #[test]
    fn grows_to_four_segments_per_ack_on_regular_arrivals() {
        let mut a = AdaptiveAck::new(AdaptiveAckConfig::default());
        // Regular arrivals every 1 ms, but t̂ starts at 0: segment i >= 1
        // meets t̂ = 1 - 0.9^(i-1) ms, and is "late" (1 ms > 2 t̂) up to i = 7.
        let arrivals: Vec<SimTime> = (0..60).map(|i| i * MS).collect();
        let acks = run(&mut a, &arrivals, SenderView::UNLIMITED);
        assert!(acks[..8].iter().all(|&x| x), "{acks:?}");
        // Then cur grows by one per in-order segment (2, 3, 4 at segments 8,
        // 9, 10), so the next ACK is at segment 11, and one per 4 from then on.
        let after: Vec<usize> = acks.iter().enumerate().skip(8).filter(|(_, &x)| x).map(|(i, _)| i).collect();
        assert_eq!(after[0], 11, "{after:?}");
        assert!(after.windows(2).all(|w| w[1] - w[0] == 4), "{after:?}");
        // The timer of a held segment is 2 t̂ after it, t̂ = 1 ms now.
        a.in_order(60 * MS, 61, SenderView::UNLIMITED);
        let dl = a.deadline().expect("held");
        assert!((dl as i64 - (62 * MS) as i64).abs() < 10_000, "{dl}");
    }

    #[test]
    fn late_arrival_and_disorder_restart_at_one() {
        let mut a = AdaptiveAck::new(AdaptiveAckConfig::default());
        let arrivals: Vec<SimTime> = (0..30).map(|i| i * MS).collect();
        run(&mut a, &arrivals, SenderView::UNLIMITED);
        assert_eq!(a.cur, 4);
        // 10 ms after the last one (> 2 t̂ of about 1 ms): late, acknowledged at once.
        assert!(a.in_order(39 * MS, 31, SenderView::UNLIMITED));
        a.ack_sent();
        assert_eq!(a.cur, 2);
        a.restart();
        assert_eq!((a.cur, a.counter), (1, 0));
    }

    #[test]
    fn never_holds_more_than_the_window() {
        let mut a = AdaptiveAck::new(AdaptiveAckConfig::default());
        let arrivals: Vec<SimTime> = (0..40).map(|i| i * MS).collect();
        let acks = run(&mut a, &arrivals, SenderView { window: 2, send_limit: u32::MAX });
        // Never two in-order segments held without an ACK... of more than 2.
        let mut held = 0;
        for ack in acks {
            held = if ack { 0 } else { held + 1 };
            assert!(held < 2);
        }
        // The last segment the sender may send is acknowledged at once.
        let mut a = AdaptiveAck::new(AdaptiveAckConfig::default());
        // Segments 0..27: the ACK of segment 27 closes a group of four.
        assert!(run(&mut a, &arrivals[..28], SenderView::UNLIMITED)[27]);
        assert!(!a.in_order(28 * MS, 29, SenderView { window: 100, send_limit: 30 }));
        assert!(a.in_order(29 * MS, 30, SenderView { window: 100, send_limit: 30 }));
    }
}
