//! TCP Westwood+ (Mascolo, Casetti, Gerla, Sanadidi, Wang, MobiCom 2001;
//! Grieco and Mascolo, ACM CCR 34(2), 2004, the "+" variant), as Linux
//! `tcp_westwood.c`: the sender estimates the bandwidth its ACKs report and,
//! after a loss, sets `ssthresh` to the window that estimate fills at the
//! smallest RTT seen, instead of halving.
//!
//! What is modelled:
//! - Bandwidth samples once per round trip (Westwood+; Linux: when more than
//!   `max(RTT, 50 ms)` has passed since the last sample): the segments
//!   delivered in that interval divided by its length.
//! - Two EWMA stages with weight 7/8 (Linux `westwood_do_filter`):
//!   `bw_ns_est = 7/8 bw_ns_est + 1/8 sample`, `bw_est = 7/8 bw_est + 1/8
//!   bw_ns_est`; the first sample initialises both.
//! - After a loss (fast recovery or timeout) and an ECN echo:
//!   `ssthresh = max(bw_est x RTT_min, 2)` segments (the spec's table 1.13;
//!   Mascolo et al. Section 3); recovery then sets `cwnd = ssthresh` and a
//!   timeout `cwnd = 1` (the sender's rules). Growth is Reno's.
//!
//! Left out: Linux's accounting of duplicate ACKs in the delivered count
//! (here each segment counts once, when first known delivered: cumulatively
//! or by SACK), its reset of RTT_min after a timeout, and the
//! `CompleteCwr` rule that raises cwnd back to `bw_est x RTT_min`.

use super::reno::reno_cong_avoid;
use super::{AckSample, CcState, CongestionControl, MIN_SSTHRESH};
use crate::rng::SimRng;
use crate::time::{SimTime, NS_PER_MS, NS_PER_SEC};

/// Shortest bandwidth-sampling interval (Linux `TCP_WESTWOOD_RTT_MIN`, HZ/20 = 50 ms).
pub const RTT_MIN_SAMPLE_NS: SimTime = 50 * NS_PER_MS;

#[derive(Clone, Debug, Default)]
pub struct Westwood {
    /// Start of the current sampling interval (`rtt_win_sx`); `None` before the first ACK.
    win_start: Option<SimTime>,
    /// Segments delivered in the current interval (`bk`).
    bk: u64,
    /// Latest RTT sample and the smallest one.
    rtt: SimTime,
    rtt_min: Option<SimTime>,
    /// Estimates in segments per second (`bw_ns_est`, `bw_est`); 0 before the first sample.
    bw_ns_est: f64,
    bw_est: f64,
}

impl Westwood {
    pub fn new() -> Westwood {
        Westwood::default()
    }

    /// The bandwidth estimate, segments per second.
    pub fn bw_est(&self) -> f64 {
        self.bw_est
    }

    fn filter(&mut self, sample: f64) {
        if self.bw_est == 0.0 && self.bw_ns_est == 0.0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
            self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
        }
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        let Some(rtt_min) = self.rtt_min else { return (tp.snd_cwnd >> 1).max(MIN_SSTHRESH) };
        let w = self.bw_est * rtt_min as f64 / NS_PER_SEC as f64;
        // Clamped into range before the conversion.
        (w.floor().clamp(0.0, f64::from(u32::MAX)) as u32).max(MIN_SSTHRESH)
    }

    fn pkts_acked(&mut self, tp: &mut CcState, sample: &AckSample, _rng: &mut SimRng) {
        if let Some(r) = sample.rtt {
            self.rtt = r;
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
        }
        let now = tp.now;
        let start = *self.win_start.get_or_insert(now);
        let delta = now - start;
        if self.rtt > 0 && delta > self.rtt.max(RTT_MIN_SAMPLE_NS) {
            self.filter(self.bk as f64 * NS_PER_SEC as f64 / delta as f64);
            self.bk = 0;
            self.win_start = Some(now);
        }
        self.bk += u64::from(sample.pkts_acked);
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        reno_cong_avoid(tp, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;

    /// One ACK of one segment every `gap` ns with RTT samples `rtt`, for `secs` seconds.
    fn ack_stream(cc: &mut Westwood, tp: &mut CcState, gap: SimTime, rtt: SimTime, secs: u64) {
        let mut rng = from_seed(1);
        let end = tp.now + secs * NS_PER_SEC;
        while tp.now < end {
            tp.now += gap;
            cc.pkts_acked(tp, &AckSample { pkts_acked: 1, rtt: Some(rtt) }, &mut rng);
        }
    }

    #[test]
    fn estimates_a_constant_rate_ack_stream_within_5_percent() {
        // 1000 segments/s (one ACK per ms), RTT 100 ms; and 8333/s (12 Mbit/s of 1500-byte segments), RTT 20 ms.
        for (gap, rtt, rate) in [(NS_PER_MS, 100 * NS_PER_MS, 1000.0), (120_000, 20 * NS_PER_MS, 8333.33)] {
            let mut cc = Westwood::new();
            let mut tp = CcState::new(10, 100_000, 1500);
            ack_stream(&mut cc, &mut tp, gap, rtt, 5);
            let err = (cc.bw_est() - rate).abs() / rate;
            assert!(err < 0.05, "estimate {} vs {rate}", cc.bw_est());
            // ssthresh after a loss: the estimate times RTT_min.
            let expect = (cc.bw_est() * rtt as f64 / 1e9).floor() as u32;
            assert_eq!(cc.ssthresh(&tp), expect);
        }
    }

    #[test]
    fn the_filter_tracks_a_rate_change_and_rtt_min_is_the_smallest_sample() {
        let mut cc = Westwood::new();
        let mut tp = CcState::new(10, 100_000, 1500);
        ack_stream(&mut cc, &mut tp, NS_PER_MS, 100 * NS_PER_MS, 5);
        // The rate halves: after 10 s (about 100 samples) the estimate is within 5 % of 500/s.
        ack_stream(&mut cc, &mut tp, 2 * NS_PER_MS, 80 * NS_PER_MS, 10);
        assert!((cc.bw_est() - 500.0).abs() < 25.0, "{}", cc.bw_est());
        assert_eq!(cc.rtt_min, Some(80 * NS_PER_MS));
        // Before any sample: Reno's halving.
        let tp = CcState::new(40, 100_000, 1500);
        assert_eq!(Westwood::new().ssthresh(&tp), 20);
    }
}
