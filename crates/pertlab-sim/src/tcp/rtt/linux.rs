//! Linux's RTT estimator and RTO (`tcp_rtt_estimator`, `__tcp_set_rto` in
//! net/ipv4/tcp_input.c), selected by `tcp.rto_estimator = "linux"`.
//!
//! Models: SRTT with gain 1/8 on every sample (Linux takes one per ACK and does
//! not scale the gain, RFC 7323 Appendix G's concern); the mean deviation
//! `mdev` with gain 1/4, or 1/32 when the sample is below SRTT (Linux's variant
//! of the Eifel finding: an RTT that falls raises the deviation only a little);
//! the largest `mdev` of the current round trip, `mdev_max`, at least `rto_min`;
//! `rttvar`, which rises at once to `mdev_max` and, once per round trip (when
//! `snd_una` passes the `snd_nxt` of the round trip's start), falls by a quarter
//! of its excess over it. RTO = SRTT + rttvar, so the margin above SRTT is at
//! least `rto_min` and at least four mean deviations of the last round trip.
//! Fixed point as Linux's: SRTT held times 8 and `mdev` times 4, in nanoseconds
//! where Linux counts microseconds.
//!
//! What it changes: after a fast rise of the RTT (a queue filling within a round
//! trip, as at the end of slow start) SRTT has followed within a few ACKs, where
//! RFC 6298 with Appendix G's per-RTT gains lags by a round trip or more and the
//! RTO can fire before a delayed ACK arrives (docs/linux.md, "Live video").
//!
//! Leaves out: the RTO's rounding to jiffies, TLP's and RACK's timers, and the
//! RTO re-arming rules (the sender keeps its own, RFC 6298 5.3).

use crate::time::SimTime;

/// Linux's estimator state (`tcp_sock`'s `srtt_us`, `mdev_us`, `mdev_max_us`,
/// `rttvar_us`, `rtt_seq`).
#[derive(Clone, Debug)]
pub(super) struct LinuxRtt {
    /// SRTT times 8 (`srtt_us`); zero before the first sample.
    srtt8: i64,
    /// The mean deviation times 4 (`mdev_us`).
    mdev4: i64,
    /// The largest `mdev4` of the current round trip, at least `rto_min` (`mdev_max_us`).
    mdev_max: i64,
    /// The RTO's margin above SRTT (`rttvar_us`).
    rttvar: i64,
    /// The round trip ends when `snd_una` passes this (`rtt_seq`, the `snd_nxt` at its start).
    rtt_seq: u32,
}

impl LinuxRtt {
    pub(super) fn new() -> LinuxRtt {
        LinuxRtt { srtt8: 0, mdev4: 0, mdev_max: 0, rttvar: 0, rtt_seq: 0 }
    }

    /// Fold in the sample `r` (`tcp_rtt_estimator`), `snd_una` and `snd_nxt`
    /// as they stand after the ACK that gave it.
    pub(super) fn sample(&mut self, r: SimTime, rto_min: SimTime, snd_una: u32, snd_nxt: u32) {
        let m = i64::try_from(r).unwrap_or(i64::MAX / 16);
        let rto_min = i64::try_from(rto_min).unwrap_or(i64::MAX / 16);
        if self.srtt8 == 0 {
            self.srtt8 = m.saturating_mul(8);
            self.mdev4 = m.saturating_mul(2); // RTO = 3 RTT at first
            self.rttvar = self.mdev4.max(rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
        } else {
            let mut err = m - (self.srtt8 >> 3);
            self.srtt8 += err; // SRTT = 7/8 SRTT + 1/8 R
            if err < 0 {
                err = -err - (self.mdev4 >> 2);
                if err > 0 {
                    err >>= 3; // the finer gain, 1/32, for a falling RTT
                }
            } else {
                err -= self.mdev4 >> 2;
            }
            self.mdev4 += err; // mdev = 3/4 mdev + 1/4 |error|
            if self.mdev4 > self.mdev_max {
                self.mdev_max = self.mdev4;
                self.rttvar = self.rttvar.max(self.mdev_max);
            }
            if snd_una > self.rtt_seq {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max = rto_min;
            }
        }
        self.srtt8 = self.srtt8.max(1);
    }

    /// SRTT (`srtt_us >> 3`).
    pub(super) fn srtt(&self) -> SimTime {
        (self.srtt8 >> 3) as SimTime
    }

    /// The mean deviation as Linux reports it (`tcpi_rttvar`, `mdev_us >> 2`).
    pub(super) fn mdev(&self) -> SimTime {
        (self.mdev4 >> 2).max(0) as SimTime
    }

    /// SRTT + rttvar (`__tcp_set_rto`), before the bounds.
    pub(super) fn rto(&self) -> SimTime {
        ((self.srtt8 >> 3).saturating_add(self.rttvar)).max(0) as SimTime
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    const MIN: SimTime = 200 * NS_PER_MS;

    #[test]
    fn first_sample_gives_three_round_trips_or_rto_min_above_srtt() {
        let mut e = LinuxRtt::new();
        e.sample(100 * NS_PER_MS, MIN, 0, 10);
        // mdev4 = 2 R = 200 ms, rttvar = max(200, 200): RTO = 300 ms.
        assert_eq!((e.srtt(), e.rto()), (100 * NS_PER_MS, 300 * NS_PER_MS));
        let mut e = LinuxRtt::new();
        e.sample(300 * NS_PER_MS, MIN, 0, 10);
        assert_eq!(e.rto(), 900 * NS_PER_MS);
    }

    #[test]
    fn srtt_follows_a_rise_within_a_round_trip_of_acks() {
        // 100 ACKs in a round trip, each sampling 400 ms after a steady 100 ms: SRTT moves by 1/8
        // of the error per ACK, so it is within 1 ms of 400 ms after 50 of them; the margin holds
        // the largest deviation of the round trip.
        let mut e = LinuxRtt::new();
        for seq in 0..200 {
            e.sample(100 * NS_PER_MS, MIN, seq, seq + 10);
        }
        for seq in 200..250 {
            e.sample(400 * NS_PER_MS, MIN, seq, seq + 10);
        }
        assert!(e.srtt().abs_diff(400 * NS_PER_MS) < NS_PER_MS, "{}", e.srtt());
        assert!(e.rto() > e.srtt() + MIN, "{} {}", e.rto(), e.srtt());
    }

    #[test]
    fn the_margin_falls_by_a_quarter_of_its_excess_per_round_trip() {
        let mut e = LinuxRtt::new();
        e.sample(100 * NS_PER_MS, MIN, 0, 10);
        // A jump: the deviation (times 4) rises above rto_min and rttvar with it.
        e.sample(500 * NS_PER_MS, MIN, 0, 10);
        let high = e.rto() - e.srtt();
        assert!(high > MIN);
        // Steady samples within the same round trip (snd_una stays at 10): no decay yet.
        e.sample(150 * NS_PER_MS, MIN, 10, 20);
        let kept = e.rto() - e.srtt();
        assert_eq!(kept, high);
        // The round trip ends (snd_una 11 > rtt_seq 10): rttvar -= (rttvar - mdev_max) / 4, where
        // mdev_max is this round trip's largest, the jump's: no change yet.
        e.sample(150 * NS_PER_MS, MIN, 11, 30);
        assert_eq!(e.rto() - e.srtt(), kept);
        // The next round trip's largest deviation is smaller: at its end the margin falls.
        e.sample(150 * NS_PER_MS, MIN, 20, 30);
        e.sample(150 * NS_PER_MS, MIN, 31, 40);
        let after = e.rto() - e.srtt();
        assert!(after < kept && after > MIN, "{after} {kept}");
        // Many round trips of a steady RTT: the margin settles at rto_min (the integer decay,
        // a quarter of the excess rounded down, stops within 3 ns of it; Linux's within 3 us).
        for seq in 12..400 {
            e.sample(150 * NS_PER_MS, MIN, seq * 10, seq * 10 + 10);
        }
        assert!((e.rto() - e.srtt()).abs_diff(MIN) <= 3, "{}", e.rto() - e.srtt());
    }

    #[test]
    fn a_falling_rtt_raises_the_deviation_with_the_finer_gain() {
        let (mut up, mut down) = (LinuxRtt::new(), LinuxRtt::new());
        for e in [&mut up, &mut down] {
            for seq in 0..100 {
                e.sample(100 * NS_PER_MS, MIN, seq, seq + 10);
            }
        }
        up.sample(140 * NS_PER_MS, MIN, 100, 110);
        down.sample(60 * NS_PER_MS, MIN, 100, 110);
        assert!(down.mdev() < up.mdev(), "{} {}", down.mdev(), up.mdev());
    }
}
