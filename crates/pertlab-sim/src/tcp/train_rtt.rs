//! Sender-side RTT correction for ACK trains (Qian 2011, Chapter V, eqs.
//! 5.1 to 5.4, with Ankit Singh): when one cumulative ACK covers a train of
//! `k` segments sent back to back, the later segments of the train waited
//! behind the earlier ones at the bottleneck (self-induced delay Δ1), and the
//! RTT sample `R` (5.1, first segment sent to the ACK of the train) is too
//! large by Δ1. With `D` the dispersion of one packet at the bottleneck,
//! E\[Δ1\] = (k - 1) D and E\[Δ2\] = ΔTs + Δ1 + D (5.2), where Δ2 is the time
//! between the ACK of the previous train and this one and ΔTs the time
//! between the sends of the previous train's last segment and this train's
//! first. Eliminating D:
//!
//! ```text
//! (5.3)  Δ1 = ((k - 1) / k) (Δ2 - ΔTs)
//! (5.4)  RTT = R - Δ1
//! ```
//!
//! Choices where the thesis is silent (spec B.8, recommended): a train is
//! what one cumulative ACK newly acknowledges, so `k` is the number of
//! segments it covers; Δ2 is measured between consecutive ACKs that advance
//! `snd_una`; Δ1 is clamped to [0, R - the least raw sample seen], so a
//! corrected sample never falls below the path's least RTT. A sample with
//! `k` = 1, or without a previous train, is left as it is. The corrected
//! sample replaces the raw one everywhere (RTO estimator, the controller's
//! ACK sample, the flow's RTT statistics).
//!
//! Left out: detecting lost ACKs (the spec suggests skipping a train that
//! spans more segments than usual; here it is corrected as any other).

use std::collections::VecDeque;

use crate::time::SimTime;

/// The correction's memory: send times of the outstanding segments and the
/// previous train.
#[derive(Clone, Debug, Default)]
pub struct TrainRtt {
    /// Last send time of each segment `snd_una..snd_nxt`, front first.
    sent: VecDeque<SimTime>,
    /// T_s[n-1]: send time of the last segment of the previous train.
    prev_last_sent: Option<SimTime>,
    /// T_r[n-1]: arrival of the previous train's ACK.
    prev_ack_at: Option<SimTime>,
    /// Least raw RTT sample seen (the clamp's floor).
    least_sample: SimTime,
}

impl TrainRtt {
    pub fn new() -> TrainRtt {
        TrainRtt { least_sample: SimTime::MAX, ..TrainRtt::default() }
    }

    /// A new segment (the next after those recorded) was sent at `now`.
    pub fn sent_new(&mut self, now: SimTime) {
        self.sent.push_back(now);
    }

    /// Segment `offset` (from `snd_una`) was retransmitted at `now`.
    pub fn resent(&mut self, offset: u32, now: SimTime) {
        if let Some(t) = self.sent.get_mut(offset as usize) {
            *t = now;
        }
    }

    /// An ACK newly acknowledged `k` segments but gave no sample: forget them.
    pub fn forget(&mut self, k: u32) {
        self.sent.drain(..(k as usize).min(self.sent.len()));
    }

    /// An ACK arriving at `now` newly acknowledged the `k` segments from the
    /// old `snd_una`, whose send time is `first_sent` (`T_s[n]`, the echoed
    /// timestamp); `r` is the raw RTT sample R (5.1). Returns the corrected
    /// sample (5.4).
    pub fn correct(&mut self, now: SimTime, k: u32, first_sent: SimTime, r: SimTime) -> SimTime {
        self.least_sample = self.least_sample.min(r);
        let last_sent = self.sent.get(k.saturating_sub(1) as usize).copied();
        self.sent.drain(..(k as usize).min(self.sent.len()));
        let corrected = match (self.prev_ack_at, self.prev_last_sent) {
            (Some(prev_ack), Some(prev_sent)) if k > 1 => {
                let delta2 = now.saturating_sub(prev_ack) as f64;
                let delta_ts = first_sent as f64 - prev_sent as f64;
                let delta1 = self_induced_delay(k, delta2, delta_ts).min(r.saturating_sub(self.least_sample) as f64);
                r - delta1 as SimTime
            }
            _ => r,
        };
        self.prev_ack_at = Some(now);
        self.prev_last_sent = last_sent.or(Some(first_sent));
        corrected
    }
}

/// Eq. 5.3: E\[Δ1\] = ((k - 1) / k) (Δ2 - ΔTs), at least 0.
pub fn self_induced_delay(k: u32, delta2: f64, delta_ts: f64) -> f64 {
    let k = f64::from(k.max(1));
    ((k - 1.0) / k * (delta2 - delta_ts)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    const MS: SimTime = NS_PER_MS;

    /// Send `k` segments at `ts` and take the ACK of the train at `ack_at` with raw sample `r`.
    fn train(c: &mut TrainRtt, k: u32, ts: SimTime, ack_at: SimTime, r: SimTime) -> SimTime {
        for _ in 0..k {
            c.sent_new(ts);
        }
        c.correct(ack_at, k, ts, r)
    }

    /// A synthetic ACK train after the thesis's model (Fig 30, eqs. 5.1, 5.2):
    /// true RTT 40 ms; a reference segment sent at 0 and acknowledged at 40 ms;
    /// then a train of k segments sent ΔTs later, each leaving the bottleneck
    /// D after the previous one, so Δ1 = (k - 1) D, R = RTT + Δ1 and
    /// Δ2 = ΔTs + Δ1 + D. The correction gives the true RTT within 1 ms, for
    /// trains of 2 to 4 segments and dispersions of 0.5 to 4 ms.
    #[test]
    fn recovers_the_true_rtt_of_a_synthetic_ack_train() {
        let rtt = 40 * MS;
        for k in 2..=4u32 {
            for d in [MS / 2, MS, 2_666_667, 4 * MS] {
                for dts in [0, MS, 10 * MS] {
                    let mut c = TrainRtt::new();
                    assert_eq!(train(&mut c, 1, 0, rtt, rtt), rtt, "a one-segment train is left as it is");
                    let delta1 = SimTime::from(k - 1) * d;
                    let got = train(&mut c, k, dts, rtt + dts + delta1 + d, rtt + delta1);
                    assert!(got.abs_diff(rtt) < MS, "k {k}, D {d}, dTs {dts}: {got} ns");
                }
            }
        }
    }

    /// On a physical idle bottleneck the ACK of a lone reference segment
    /// already includes its own dispersion, so Δ2 = ΔTs + (k - 1) D, one D
    /// less than eq. 5.2 says, and (5.3) removes only (k - 1)^2 D / k of the
    /// (k - 1) D: a residual of (k - 1) D / k (0.75 ms for k = 4, D = 1 ms;
    /// 2 ms at Qian's 3 Mbit/s and 1000-byte packets).
    #[test]
    fn on_an_idle_bottleneck_a_residual_of_k_minus_1_over_k_dispersions_remains() {
        let (prop, d, k, dts) = (40 * MS, MS, 4u32, 10 * MS);
        let mut c = TrainRtt::new();
        train(&mut c, 1, 0, prop + d, prop + d);
        let r = prop + SimTime::from(k) * d;
        let got = train(&mut c, k, dts, dts + r, r);
        assert_eq!(got - (prop + d), SimTime::from(k - 1) * d / SimTime::from(k));
    }

    #[test]
    fn no_correction_below_the_least_sample_nor_for_single_segments() {
        assert_eq!(self_induced_delay(1, 10.0, 0.0), 0.0);
        assert_eq!(self_induced_delay(4, 1.0, 5.0), 0.0);
        assert_eq!(self_induced_delay(4, 8.0, 0.0), 6.0);
        let mut c = TrainRtt::new();
        c.sent_new(0);
        c.correct(10 * MS, 1, 0, 10 * MS);
        for _ in 0..4 {
            c.sent_new(11 * MS);
        }
        // A huge Δ2 would remove more than R - 10 ms: clamped at the least sample.
        assert_eq!(c.correct(100 * MS, 4, 11 * MS, 12 * MS), 10 * MS);
    }
}
