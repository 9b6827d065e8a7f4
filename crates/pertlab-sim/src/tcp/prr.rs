//! Proportional Rate Reduction (Mathis, Dukkipati, Cheng, RFC 6937, May 2013)
//! as Linux computes it (`tcp_cwnd_reduction`, net/ipv4/tcp_input.c, kernel 6.x).
//!
//! While a window reduction is under way (fast recovery, or the response to an
//! ECN-Echo: Linux's Recovery and CWR states), the window is not cut to
//! ssthresh at once; each ACK lets the sender send in proportion to what it
//! delivered, so that the flight comes down to ssthresh over one round trip
//! without a pause:
//! - while more than ssthresh is in flight (RFC 6937 Section 3, the
//!   proportional part): the segments sent since the reduction began
//!   (`prr_out`) follow `ceil(prr_delivered * ssthresh / prior_cwnd)`, with
//!   `prior_cwnd` the window when it began (RFC 6937's RecoverFS is the flight
//!   then; Linux takes the window);
//! - once the flight is at or below ssthresh, the slow-start reduction bound
//!   (PRR-SSRB): as many as were delivered and not yet sent again, at least
//!   what this ACK delivered, plus one when the ACK advanced `snd_una` and
//!   marked nothing newly lost (Linux since 2022), never above ssthresh;
//! - the first ACK of a reduction lets at least one segment go (Linux: "force
//!   a fast retransmit upon entering fast recovery");
//! - the window is `in flight + what may be sent`; the reduction ends with
//!   `cwnd = ssthresh` (Linux `tcp_end_cwnd_reduction`), which the sender sets.
//!
//! Left out: RFC 6937's conservative bound (PRR-CRB); Linux's undo of a
//! spurious reduction (the sender never undoes one).

/// The state of one reduction: Linux's `prior_cwnd`, `prr_delivered`, `prr_out`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prr {
    /// The window when the reduction began.
    prior_cwnd: u32,
    /// Segments delivered (newly acknowledged or SACKed) since it began.
    delivered: u32,
    /// Segments sent since it began (new data and retransmissions).
    out: u32,
}

impl Prr {
    /// A reduction that begins with window `prior_cwnd` (at least 1).
    pub fn new(prior_cwnd: u32) -> Prr {
        Prr { prior_cwnd: prior_cwnd.max(1), delivered: 0, out: 0 }
    }

    /// The sender sent a segment.
    pub fn sent(&mut self) {
        self.out += 1;
    }

    /// An ACK delivered `delivered` segments with `in_flight` segments now in
    /// the network (RFC 6675 pipe) and the reduction's target `ssthresh`; the
    /// window it leaves, or `None` when it delivered nothing (the window
    /// stays). `clean_advance`: the ACK advanced `snd_una` and marked no
    /// segment newly lost.
    pub fn on_ack(&mut self, delivered: u32, in_flight: u32, ssthresh: u32, clean_advance: bool) -> Option<u32> {
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered;
        let prr_out = i64::from(self.out);
        let room = i64::from(ssthresh) - i64::from(in_flight);
        let sndcnt = if room < 0 {
            let allowed = (u64::from(ssthresh) * u64::from(self.delivered)).div_ceil(u64::from(self.prior_cwnd));
            i64::try_from(allowed).unwrap_or(i64::MAX) - prr_out
        } else {
            let owed = (i64::from(self.delivered) - prr_out).max(i64::from(delivered)) + i64::from(clean_advance);
            owed.min(room)
        };
        let sndcnt = sndcnt.max(i64::from(self.out == 0));
        Some(u32::try_from(i64::from(in_flight) + sndcnt).unwrap_or(u32::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6937's example (Section 4 / Appendix A shape): a window of 20, one
    /// segment lost, ssthresh 10. Each ACK delivers one segment; the flight
    /// comes down one per two ACKs and the sender sends every other ACK, no
    /// pause, until the flight is ssthresh.
    #[test]
    fn the_flight_comes_down_to_ssthresh_sending_on_every_other_ack() {
        let mut prr = Prr::new(20);
        let mut in_flight = 19; // the first duplicate ACK's segment left the network
        let mut sends = Vec::new();
        for _ in 0..18 {
            let cwnd = prr.on_ack(1, in_flight, 10, false).unwrap();
            let n = cwnd.saturating_sub(in_flight);
            for _ in 0..n {
                prr.sent();
            }
            sends.push(n);
            in_flight = in_flight + n - 1; // the next ACK's segment leaves
        }
        // ceil(k * 10 / 20) - out: 1 (the forced retransmission), then alternately 0 and 1.
        assert_eq!(&sends[..6], &[1, 0, 1, 0, 1, 0]);
        assert_eq!(sends.iter().sum::<u32>(), 9, "{sends:?}");
        assert_eq!(in_flight, 10, "ssthresh reached as the 19th ACK arrives");
        // There, in flight equals ssthresh: the ACK sends what it delivered.
        assert_eq!(prr.on_ack(1, 10, 10, false), Some(10));
    }

    #[test]
    fn the_first_ack_sends_one_even_when_the_proportion_gives_none() {
        // A window of 4 going to 2 (Linux CUBIC's 717/1024 rounded down): the
        // ECN-Echo's ACK leaves 3 in flight and ceil(1 * 2 / 4) = 1; with a
        // window of 8 and ssthresh 1, ceil(1 / 8) = 1 too: one goes at once.
        assert_eq!(Prr::new(4).on_ack(1, 3, 2, true), Some(4));
        assert_eq!(Prr::new(8).on_ack(1, 7, 1, true), Some(8));
        let mut prr = Prr::new(4);
        prr.sent();
        assert_eq!(prr.on_ack(1, 3, 2, true), Some(3), "one already sent: ceil(2/4) - 1 = 0");
        assert_eq!(Prr::new(4).on_ack(0, 3, 2, true), None);
    }

    #[test]
    fn below_ssthresh_the_slow_start_bound_lets_the_flight_grow_back() {
        // Many losses: the flight fell to 3 with ssthresh 10. An ACK that
        // delivers 2 lets 2 go (what it delivered), plus one when it advanced
        // snd_una and marked nothing lost; never beyond ssthresh.
        let prr = Prr { prior_cwnd: 20, delivered: 5, out: 5 };
        let after = |mut p: Prr, delivered, ssthresh, clean| p.on_ack(delivered, 3, ssthresh, clean);
        assert_eq!(after(prr, 2, 10, false), Some(5));
        assert_eq!(after(prr, 2, 10, true), Some(6));
        // Delivered more than sent: the debt is paid, up to ssthresh.
        let owed = Prr { delivered: 12, ..prr };
        assert_eq!(after(owed, 2, 10, false), Some(10));
        assert_eq!(after(owed, 2, 6, false), Some(6));
    }
}
