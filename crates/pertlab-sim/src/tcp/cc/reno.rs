//! Reno/NewReno AIMD (RFC 5681), as Linux `tcp_reno_*`: slow start to ssthresh,
//! then one segment per window of ACKed segments; halve on loss.
//!
//! The papers' "TCP SACK" is this controller on the SACK sender: the loss
//! recovery (SACK or NewReno) belongs to the sender, not here.
//! ssthresh after a loss is max(cwnd / 2, 2) as in Linux `tcp_reno_ssthresh`
//! (RFC 5681 eq. 4 uses FlightSize / 2; for a window-limited bulk flow the two agree).

use super::{CcState, CongestionControl, MIN_SSTHRESH};
use crate::rng::SimRng;

#[derive(Clone, Copy, Debug, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        reno_cong_avoid(tp, acked);
    }
}

/// Linux `tcp_reno_ssthresh`: half the window, at least [`MIN_SSTHRESH`];
/// shared by controllers that halve on loss.
pub fn reno_ssthresh(tp: &CcState) -> u32 {
    (tp.snd_cwnd >> 1).max(MIN_SSTHRESH)
}

/// Linux `tcp_reno_cong_avoid`, shared by controllers that fall back to Reno growth.
pub fn reno_cong_avoid(tp: &mut CcState, acked: u32) {
    let Some(acked) = tp.slow_start_then(acked) else { return };
    let w = tp.snd_cwnd;
    tp.cong_avoid_ai(w, acked);
}
