//! Round-trip time estimation and the retransmission timeout (RFC 6298).
//!
//! Models: the smoothed RTT and RTT variance of RFC 6298 section 2 (alpha 1/8,
//! beta 1/4, K = 4, clock granularity G), the lower and upper bounds on the RTO
//! (2.4, 2.5) and exponential back-off (5.5). Arithmetic is in integer
//! nanoseconds; the divisions truncate, an error of at most a nanosecond per
//! sample, far below any clock granularity a scenario uses.
//!
//! Per-ACK samples (RFC 7323 Appendix G): the sender takes a timestamp sample on
//! every ACK, many per RTT, where RFC 6298's gains assume about one. With the
//! gains unchanged RTTVAR decays to zero within an RTT of steady samples, the
//! RTO collapses onto SRTT, and any queue growth fires spurious timeouts (a
//! flow at a 200 ms RTT behind a one-BDP DropTail buffer then times out every
//! few seconds and starves). As Appendix G recommends, each sample uses
//! `alpha / n` and `beta / n`, `n` the number of samples expected per RTT (the
//! caller passes it: the ACKs per flight), so the estimates move per RTT as RFC
//! 6298 intends; `n = 1` is plain RFC 6298.
//!
//! Where the lower bound `min_rto` applies ([`RtoMinOn`]): RFC 6298 2.4 (and
//! ns-2) bound the whole RTO; Linux bounds the variance term
//! (`rttvar = max(mdev_max, tcp_rto_min)`, RTO = SRTT + rttvar), so the RTO
//! keeps a margin of at least `min_rto` above SRTT. With RTTs above `min_rto`
//! the RFC form leaves no margin once RTTVAR is small: a flow whose window
//! leaves in a burst waits about an RTT between ACK trains, and any queue
//! growth in that RTT fires a spurious timeout. Measured on the PERT paper's
//! Figure 7 at 200 ms (PERT, seed 3): 929 spurious timeouts, no drop at all, and
//! a utilization of 0.51 with the RFC form. Default: Linux's.
//!
//! Linux's own estimator (`rto_estimator = "linux"`, [`linux`]) takes the
//! samples with full gains and keeps the variance from collapsing its own way
//! (the largest deviation of each round trip); `min_rto` then bounds its
//! margin as `Variance` does.
//!
//! Leaves out: which samples to feed (the sender decides, see `sender`), and the
//! timer itself (the sender keeps the deadline).

mod linux;

use serde::{Deserialize, Serialize};

use crate::time::SimTime;
use linux::LinuxRtt;

/// Which estimator turns RTT samples into the RTO.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimator {
    /// RFC 6298 with RFC 7323 Appendix G's per-RTT gains, `min_rto` applied as
    /// `rto_min_on` says. Default (ns-2's, and pertlab's results so far).
    #[default]
    Rfc6298,
    /// Linux's `tcp_rtt_estimator` ([`linux`]); `min_rto` bounds the margin above SRTT.
    Linux,
}

/// RFC 6298 2.3: alpha = 1/8, written as the shift of the divisor.
const ALPHA_SHIFT: u32 = 3;
/// RFC 6298 2.3: beta = 1/4.
const BETA_SHIFT: u32 = 2;
/// RFC 6298 2.2: K = 4.
const K: SimTime = 4;

/// What the lower bound `min_rto` applies to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoMinOn {
    /// Linux: RTO = SRTT + max(G, K RTTVAR, min_rto). Default.
    #[default]
    Variance,
    /// RFC 6298 2.4 and ns-2: RTO = max(SRTT + max(G, K RTTVAR), min_rto).
    Rto,
}

/// RFC 6298 estimator state with its parameters.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// SRTT; zero until the first sample.
    srtt: SimTime,
    /// RTTVAR.
    rttvar: SimTime,
    /// RTO computed from the estimates (2.2, 2.3) and bounded (2.4, 2.5), before back-off.
    base_rto: SimTime,
    /// Number of consecutive back-offs (5.5): the timer runs for `base_rto << backoff`.
    backoff: u32,
    /// Whether a sample has been taken (2.1: before that, RTO is the initial value).
    has_sample: bool,
    /// G, the clock granularity.
    granularity: SimTime,
    min_rto: SimTime,
    max_rto: SimTime,
    min_on: RtoMinOn,
    /// Linux's estimator in place of RFC 6298's (`RtoEstimator::Linux`).
    linux: Option<LinuxRtt>,
}

impl RttEstimator {
    /// An estimator before any sample (RFC 6298 2.1: RTO = `initial_rto`).
    pub fn new(initial_rto: SimTime, min_rto: SimTime, max_rto: SimTime, granularity: SimTime, min_on: RtoMinOn) -> RttEstimator {
        let max_rto = max_rto.max(min_rto);
        RttEstimator {
            srtt: 0,
            rttvar: 0,
            base_rto: initial_rto.clamp(min_rto, max_rto),
            backoff: 0,
            has_sample: false,
            granularity,
            min_rto,
            max_rto,
            min_on,
            linux: None,
        }
    }

    /// The same with Linux's estimator when `kind` says so.
    pub fn with_kind(self, kind: RtoEstimator) -> RttEstimator {
        RttEstimator { linux: (kind == RtoEstimator::Linux).then(LinuxRtt::new), ..self }
    }

    /// Fold in one RTT measurement `r`, one of `expected_samples` per RTT, taken
    /// on an ACK after which the sender's `snd_una` and `snd_nxt` are as given.
    /// RFC 6298 2.2 for the first, 2.3 after, with the gains divided by
    /// `expected_samples` (RFC 7323 Appendix G; at least 1); Linux's estimator
    /// takes every sample with its full gains and ends its round trips by
    /// `snd_una` and `snd_nxt`.
    pub fn sample(&mut self, r: SimTime, expected_samples: u32, snd_una: u32, snd_nxt: u32) {
        if let Some(linux) = self.linux.as_mut() {
            linux.sample(r, self.min_rto, snd_una, snd_nxt);
            (self.srtt, self.rttvar, self.has_sample) = (linux.srtt(), linux.mdev(), true);
            self.base_rto = linux.rto().clamp(self.min_rto, self.max_rto);
            return;
        }
        if self.has_sample {
            // 2.3: RTTVAR is updated with the old SRTT, then SRTT, with gains
            // beta / n = 1 / (4 n) and alpha / n = 1 / (8 n).
            // Rounding once, at the end, lets RTTVAR decay to zero for a constant RTT.
            let n = SimTime::from(expected_samples.max(1));
            let err = self.srtt.abs_diff(r);
            let var_den = n << BETA_SHIFT;
            self.rttvar = self.rttvar.saturating_mul(var_den - 1).saturating_add(err) / var_den;
            let avg_den = n << ALPHA_SHIFT;
            self.srtt = self.srtt.saturating_mul(avg_den - 1).saturating_add(r) / avg_den;
        } else {
            self.srtt = r;
            self.rttvar = r / 2;
            self.has_sample = true;
        }
        let mut margin = self.granularity.max(K.saturating_mul(self.rttvar));
        if self.min_on == RtoMinOn::Variance {
            margin = margin.max(self.min_rto);
        }
        // 2.4 (lower bound) and 2.5 (upper bound).
        self.base_rto = self.srtt.saturating_add(margin).clamp(self.min_rto, self.max_rto);
    }

    /// RFC 6298 5.5: double the RTO after the timer expires, up to `max_rto`
    /// (Linux: the back-off goes on until `TCP_RTO_MAX`, whatever the base RTO).
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// Forget the back-off (Karn: once an RTT sample of a segment that was not
    /// retransmitted arrives, the RTO computed from the estimates applies again).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// The current timeout: the estimate-based RTO, backed off, at most `max_rto`.
    pub fn rto(&self) -> SimTime {
        // The back-off stops once the RTO reaches max_rto >= 1 ns, so backoff < 64.
        self.base_rto.saturating_mul(1 << self.backoff.min(63)).min(self.max_rto)
    }

    /// SRTT, zero before the first sample.
    pub fn srtt(&self) -> SimTime {
        self.srtt
    }

    /// RTTVAR (with Linux's estimator, its mean deviation, `tcpi_rttvar`).
    pub fn rttvar(&self) -> SimTime {
        self.rttvar
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{NS_PER_MS, NS_PER_SEC, NS_PER_US};

    fn est() -> RttEstimator {
        RttEstimator::new(NS_PER_SEC, 200 * NS_PER_MS, 60 * NS_PER_SEC, NS_PER_MS, RtoMinOn::Rto)
    }

    #[test]
    fn initial_rto_before_any_sample() {
        assert_eq!(est().rto(), NS_PER_SEC);
        assert_eq!(est().srtt(), 0);
    }

    #[test]
    fn known_sample_sequence() {
        let mut e = est();
        // R = 100 ms: SRTT = 100, RTTVAR = 50, RTO = 100 + 4 * 50 = 300 ms.
        e.sample(100 * NS_PER_MS, 1, 0, 0);
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (100 * NS_PER_MS, 50 * NS_PER_MS, 300 * NS_PER_MS));
        // R = 200 ms: RTTVAR = 3/4 * 50 + 1/4 * 100 = 62.5; SRTT = 7/8 * 100 + 1/8 * 200 = 112.5;
        // RTO = 112.5 + 250 = 362.5 ms.
        e.sample(200 * NS_PER_MS, 1, 0, 0);
        assert_eq!(e.rttvar(), 62_500 * NS_PER_US);
        assert_eq!(e.srtt(), 112_500 * NS_PER_US);
        assert_eq!(e.rto(), 362_500 * NS_PER_US);
        // R = 100 ms: RTTVAR = 3/4 * 62.5 + 1/4 * 12.5 = 50; SRTT = 7/8 * 112.5 + 12.5 = 110.9375;
        // RTO = 110.9375 + 200 = 310.9375 ms.
        e.sample(100 * NS_PER_MS, 1, 0, 0);
        assert_eq!(e.rttvar(), 50 * NS_PER_MS);
        assert_eq!(e.srtt(), 110_937_500);
        assert_eq!(e.rto(), 310_937_500);
    }

    #[test]
    fn lower_bound_and_granularity() {
        let mut e = est();
        // 10 ms: 10 + 4 * 5 = 30 ms, raised to the 200 ms minimum.
        e.sample(10 * NS_PER_MS, 1, 0, 0);
        assert_eq!(e.rto(), 200 * NS_PER_MS);
        // With no minimum, a constant RTT drives RTTVAR to zero and G takes over.
        let mut e = RttEstimator::new(NS_PER_SEC, 0, 60 * NS_PER_SEC, NS_PER_MS, RtoMinOn::Rto);
        for _ in 0..200 {
            e.sample(10 * NS_PER_MS, 1, 0, 0);
        }
        assert_eq!(e.rttvar(), 0);
        assert_eq!(e.rto(), 11 * NS_PER_MS);
    }

    #[test]
    fn linux_bound_keeps_min_rto_above_srtt() {
        let mut linux = RttEstimator::new(NS_PER_SEC, 200 * NS_PER_MS, 60 * NS_PER_SEC, NS_PER_MS, RtoMinOn::Variance);
        let mut rfc = est();
        for e in [&mut linux, &mut rfc] {
            for _ in 0..200 {
                e.sample(300 * NS_PER_MS, 1, 0, 0);
            }
        }
        // Steady 300 ms: RTTVAR has decayed to 0; the RFC form leaves G = 1 ms of margin,
        // Linux's 200 ms.
        assert_eq!(rfc.rto(), 301 * NS_PER_MS);
        assert_eq!(linux.rto(), 500 * NS_PER_MS);
        // A large variance term wins over the bound in both.
        linux.sample(700 * NS_PER_MS, 1, 0, 0);
        assert_eq!(linux.rto(), linux.srtt() + 4 * linux.rttvar());
    }

    #[test]
    fn per_ack_samples_move_the_estimates_per_rtt() {
        // RFC 7323 Appendix G: with n = 10 samples per RTT each sample has a tenth of the gain.
        let mut e = est();
        e.sample(100 * NS_PER_MS, 10, 0, 0);
        // R = 200 ms: RTTVAR = 39/40 * 50 + 1/40 * 100 = 51.25 ms; SRTT = 79/80 * 100 + 1/80 * 200 = 101.25 ms.
        e.sample(200 * NS_PER_MS, 10, 0, 0);
        assert_eq!((e.rttvar(), e.srtt()), (51_250 * NS_PER_US, 101_250 * NS_PER_US));
        // Ten steady samples (one RTT) decay RTTVAR by about (39/40)^10 = 0.78, as one RFC 6298
        // sample does (3/4), instead of by (3/4)^10 = 0.06.
        let mut e = est();
        e.sample(100 * NS_PER_MS, 10, 0, 0);
        for _ in 0..10 {
            e.sample(100 * NS_PER_MS, 10, 0, 0);
        }
        let ratio = e.rttvar() as f64 / (50 * NS_PER_MS) as f64;
        assert!((ratio - (39.0f64 / 40.0).powi(10)).abs() < 1e-6, "{ratio}");
    }

    #[test]
    fn back_off_goes_on_until_the_maximum_whatever_the_base() {
        // A 1 us base doubles 20 times before it reaches 1 s (2^20 us = 1.05 s): a cap on the
        // exponent (16 before) would leave the timer firing every 65 ms for ever.
        let mut e = RttEstimator::new(NS_PER_US, NS_PER_US, NS_PER_SEC, 0, RtoMinOn::Rto);
        for k in 1..20 {
            e.back_off();
            assert_eq!(e.rto(), NS_PER_US << k);
        }
        e.back_off();
        assert_eq!(e.rto(), NS_PER_SEC);
        for _ in 0..100 {
            e.back_off();
        }
        assert_eq!((e.rto(), e.backoff()), (NS_PER_SEC, 20));
    }

    #[test]
    fn back_off_doubles_up_to_the_maximum_and_resets() {
        let mut e = est();
        e.back_off();
        assert_eq!(e.rto(), 2 * NS_PER_SEC);
        e.back_off();
        assert_eq!(e.rto(), 4 * NS_PER_SEC);
        for _ in 0..40 {
            e.back_off();
        }
        assert_eq!(e.rto(), 60 * NS_PER_SEC);
        e.reset_backoff();
        assert_eq!(e.rto(), NS_PER_SEC);
    }
}
