//! XCP's end host (Katabi, Handley, Rohrs, "Congestion Control for High
//! Bandwidth-Delay Product Networks", SIGCOMM 2002, Section 3.2): the sender
//! writes its window and RTT into every data segment's congestion header and
//! asks for a window increase; the routers on the path lower the request to
//! their allocation; the receiver echoes it; the sender applies it per ACK,
//! `cwnd = max(cwnd + H_feedback, s)` (Section 3.2).
//!
//! What is modelled: the window is a real number of bytes kept here; the
//! sender's integer window is its nearest whole number of segments (at least
//! one). The request (`H_feedback` when the segment leaves) is what fills the
//! receiver window in one round trip, `(rwnd - cwnd) / (cwnd / s)` per
//! segment (Section 3.2's "desired" window with the receiver window as the
//! desire of a bulk source). There is no slow start: the window moves only
//! by feedback. Feedback is applied on ACKs on which a Reno sender would grow
//! its window (not in fast recovery or CWR); a loss is answered as Reno does
//! (halving, then the sender's recovery), as ns-2's `TCP/Reno/XCP` agent the
//! Tahiliani thesis ran (spec table "XCP"); the window kept here follows any
//! change the sender makes.
//!
//! Left out: the header's cost on the wire (the segment size is the TCP
//! one), pacing of the window's segments, and XCP senders reacting to ECN.
//! An XCP flow needs an XCP router on its path (checked when the world is
//! built): without one nothing would lower the request.

use super::reno::reno_ssthresh;
use super::{CcState, CongestionControl};
use crate::packet::XcpHeader;
use crate::rng::SimRng;
use crate::time::NS_PER_SEC;

#[derive(Clone, Debug, Default)]
pub struct Xcp {
    /// The window in bytes (the paper's `cwnd`); 0 until `init`.
    cwnd_bytes: f64,
    /// The segment window last given to the sender, to notice its own changes (loss).
    set_segments: u32,
}

impl Xcp {
    pub fn new() -> Xcp {
        Xcp::default()
    }

    /// The window in bytes.
    pub fn cwnd_bytes(&self) -> f64 {
        self.cwnd_bytes
    }

    /// Take over a window the sender set itself (loss recovery, timeout, restart).
    fn follow_sender(&mut self, tp: &CcState) {
        if tp.snd_cwnd != self.set_segments {
            self.cwnd_bytes = f64::from(tp.snd_cwnd) * f64::from(tp.mss);
            self.set_segments = tp.snd_cwnd;
        }
    }
}

impl CongestionControl for Xcp {
    fn name(&self) -> &'static str {
        "xcp"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.set_segments = u32::MAX;
        self.follow_sender(tp);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }

    /// Growth is by feedback only (see `on_xcp_feedback`).
    fn cong_avoid(&mut self, _tp: &mut CcState, _acked: u32, _rng: &mut SimRng) {}

    fn xcp_header(&self, tp: &CcState) -> Option<XcpHeader> {
        let s = f64::from(tp.mss);
        let cwnd = self.cwnd_bytes.max(s);
        let rwnd = f64::from(tp.snd_cwnd_clamp) * s;
        let request = ((rwnd - cwnd) / (cwnd / s)).max(0.0);
        Some(XcpHeader { cwnd: cwnd as f32, rtt: (tp.srtt as f64 / NS_PER_SEC as f64) as f32, feedback: request as f32 })
    }

    fn on_xcp_feedback(&mut self, tp: &mut CcState, feedback: f64) {
        self.follow_sender(tp);
        let s = f64::from(tp.mss);
        let most = f64::from(tp.snd_cwnd_clamp) * s;
        if feedback.is_finite() {
            self.cwnd_bytes = (self.cwnd_bytes + feedback).max(s).min(most);
        }
        // At least one segment and at most the clamp, by the bounds above.
        let segments = ((self.cwnd_bytes / s).round() as u32).clamp(1, tp.snd_cwnd_clamp.max(1));
        tp.snd_cwnd = segments;
        self.set_segments = segments;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;

    #[test]
    fn feedback_moves_the_byte_window_and_the_segment_window_follows() {
        let mut cc = Xcp::new();
        let mut tp = CcState::new(2, 1000, 1000);
        tp.srtt = 100 * crate::time::NS_PER_MS;
        cc.init(&mut tp);
        assert_eq!(cc.cwnd_bytes(), 2000.0);
        // The request fills the 1000-segment receiver window in one RTT: (1e6 - 2000) / 2 per segment.
        let h = cc.xcp_header(&tp).unwrap();
        assert_eq!((h.cwnd, h.rtt, h.feedback), (2000.0, 0.1, 499_000.0));
        // cwnd = max(cwnd + H_feedback, s).
        cc.on_xcp_feedback(&mut tp, 700.0);
        assert_eq!((cc.cwnd_bytes(), tp.snd_cwnd), (2700.0, 3));
        cc.on_xcp_feedback(&mut tp, -10_000.0);
        assert_eq!((cc.cwnd_bytes(), tp.snd_cwnd), (1000.0, 1));
        cc.on_xcp_feedback(&mut tp, 1e9);
        assert_eq!((cc.cwnd_bytes(), tp.snd_cwnd), (1e6, 1000));
        // A loss: the sender halves; the byte window follows it.
        tp.snd_cwnd = cc.ssthresh(&tp);
        cc.on_xcp_feedback(&mut tp, 250.0);
        assert_eq!((cc.cwnd_bytes(), tp.snd_cwnd), (500_250.0, 500));
        cc.cong_avoid(&mut tp, 10, &mut from_seed(1));
        assert_eq!(tp.snd_cwnd, 500);
    }
}
