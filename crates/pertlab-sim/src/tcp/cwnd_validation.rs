//! Congestion-window validation as Linux does it (`tcp_cwnd_validate` and
//! `tcp_is_cwnd_limited`, net/ipv4/tcp_output.c and include/net/tcp.h): the
//! window grows only while the flow uses it. An application-limited sender
//! (a live video source, `traffic::video`) that keeps fewer segments in
//! flight than its window does not grow the window further; Linux's
//! controllers return from `cong_avoid` at once in that case.
//!
//! The flow counts as window-limited for the round trip after a
//! transmission found the window full (segments in flight at least cwnd);
//! in slow start it may also grow while cwnd is below twice the most
//! segments it had in flight in that round trip. ns-2's agents, which the
//! theses ran, grow on every ACK: off by default (`TcpConfig::cwnd_validation`).
//!
//! Left out: RFC 7661's decay of an unused window and Linux's restart window
//! after an idle period (`tcp_slow_start_after_idle`); the controller's
//! `cong_avoid` still runs on an ACK that may not grow the window (PERT's
//! early response draws there, as the eBPF program's does), and only its
//! growth is undone, so a controller's own state (CUBIC's epoch) moves on
//! as if it had grown.

use super::cc::CcState;

/// Whether the window was used in the last round trip (Linux's
/// `is_cwnd_limited`, `max_packets_out` and `cwnd_usage_seq`).
#[derive(Clone, Debug, Default)]
pub struct CwndUse {
    is_cwnd_limited: bool,
    max_packets_out: u32,
    cwnd_usage_seq: u32,
}

impl CwndUse {
    /// After a transmission opportunity: `window_full` when the segments in
    /// flight reached cwnd, `sent` when a segment left (Linux calls
    /// `tcp_cwnd_validate` when either holds); `packets_out` segments are
    /// outstanding, `snd_una` and `snd_nxt` as after the sends.
    pub fn on_transmit(&mut self, window_full: bool, sent: bool, packets_out: u32, snd_una: u32, snd_nxt: u32) {
        if !(sent || window_full) {
            return;
        }
        let round_over = snd_una >= self.cwnd_usage_seq;
        if round_over || window_full || (!self.is_cwnd_limited && packets_out > self.max_packets_out) {
            self.is_cwnd_limited = window_full;
            self.max_packets_out = packets_out;
            self.cwnd_usage_seq = snd_nxt;
        }
    }

    /// Linux `tcp_is_cwnd_limited`: the window may grow on this ACK.
    pub fn may_grow(&self, tp: &CcState) -> bool {
        self.is_cwnd_limited || (tp.in_slow_start() && tp.snd_cwnd < 2 * self.max_packets_out)
    }
}

/// Undo what `cong_avoid` added to the window when it may not grow (a
/// reduction, PERT's early response, stays): `before` is (cwnd, cwnd_cnt)
/// before the call.
pub fn hold_window(tp: &mut CcState, before: (u32, u32)) {
    if tp.snd_cwnd >= before.0 {
        tp.snd_cwnd = before.0;
        tp.snd_cwnd_cnt = before.1;
    }
}
