//! What every PERT variant shares: the `srtt_0.99` congestion signal, the
//! gentle-RED response curve, the once-per-RTT guard on early responses, and
//! the fixed-point arithmetic they are written in.
//!
//! Users: PERT/RED and PERT/PI ([`super::pert`], SIGCOMM 2007 Sections 3 and 6)
//! and adaptive PERT ([`super::pert_adaptive`], Kotla 2008 Chapter III), so
//! the three read the same signal from the same RTT samples and respond at
//! most once per RTT in the same way. The arithmetic (integer microseconds
//! scaled by 2^10, weights in millionths, probabilities in units of 2^-32) is
//! the one the eBPF twin of PERT/RED uses; see [`super::pert`] for its precision.

use rand::RngCore;

use super::base_rtt::BaseRtt;
use super::windowed_min::WindowedMin;
use super::{seq_after, CcState};
use crate::error::ConfigError;
use crate::rng::SimRng;
use crate::time::{SimTime, NS_PER_US};

/// `srtt` is kept in microseconds times 2^SRTT_SHIFT (1/1024 us resolution).
pub const SRTT_SHIFT: u32 = 10;
/// Weights and decrease factors are fixed point in millionths (six decimals,
/// the precision of Kotla's kernel PERT).
pub const PPM: u64 = 1_000_000;
/// Probability 1 in fixed point: probabilities are fractions of 2^32.
pub const PROB_ONE: u64 = 1 << 32;
/// Largest RTT sample used, in microseconds (Linux `ack_sample.rtt_us` is s32).
const MAX_RTT_US: u64 = i32::MAX as u64;
/// Smallest window an early response leaves (Linux's ssthresh floor).
pub const MIN_CWND: u32 = 2;

/// The delay signal: `srtt_0.99` (an EWMA of the RTT samples, weight `w` on
/// history, initialised to the first sample) and the propagation-delay
/// estimate `P` (the smallest sample ever seen, or of a sliding window: see
/// [`DelaySignal::with_min_rtt_window`], or the path's RTT given: see
/// [`DelaySignal::with_path_rtt`]); their difference is the estimated
/// queueing delay `q`.
#[derive(Clone, Debug)]
pub struct DelaySignal {
    /// Smoothed RTT, microseconds << SRTT_SHIFT; none before the first sample.
    pub srtt: Option<u64>,
    /// Minimum RTT sample, microseconds: the propagation-delay estimate `P`.
    pub min_rtt_us: Option<u64>,
    /// History weight of srtt, millionths.
    pub(super) weight_ppm: u64,
    /// Where `P` comes from.
    p_source: PSource,
}

/// Where [`DelaySignal`]'s `P` comes from: one of three, so that a window and
/// a given `P` cannot both be set.
#[derive(Clone, Debug)]
enum PSource {
    /// The smallest sample of the connection (the papers).
    Smallest,
    /// The minimum of a sliding window of samples.
    Window(WindowedMin),
    /// The path's RTT, given; samples never change it.
    Given,
}

impl DelaySignal {
    pub fn new(srtt_weight: f64) -> DelaySignal {
        DelaySignal { srtt: None, min_rtt_us: None, weight_ppm: to_ppm(srtt_weight), p_source: PSource::Smallest }
    }

    /// `P` is the minimum of the samples of the last `window` nanoseconds (as
    /// Linux's `tcp_min_rtt`, [`WindowedMin`]) instead of the smallest sample
    /// ever seen (spec C4: an extension; the theses and the paper keep the
    /// smallest ever).
    pub fn with_min_rtt_window(mut self, window: Option<SimTime>) -> DelaySignal {
        if let Some(window) = window {
            self.p_source = PSource::Window(WindowedMin::new(window));
        }
        self
    }

    /// `P` is `path_rtt` (nanoseconds, truncated to microseconds), held for
    /// the run, where given ([`BaseRtt::Propagation`]): an oracle, where the
    /// papers measure `P` (the smallest sample). `None` leaves `P` measured.
    pub fn with_path_rtt(mut self, path_rtt: Option<SimTime>) -> DelaySignal {
        if let Some(rtt) = path_rtt {
            self.min_rtt_us = Some((rtt / NS_PER_US).min(MAX_RTT_US));
            self.p_source = PSource::Given;
        }
        self
    }

    /// Check a PERT variant's `P` settings (fields `{path}.min_rtt_window_ns`
    /// and `{path}.base_rtt`): a window, if set, is positive, and only a
    /// measured `P` has one.
    pub fn validate_p(path: &str, window: Option<SimTime>, base_rtt: BaseRtt) -> Result<(), ConfigError> {
        match (window, base_rtt) {
            (Some(0), _) => {
                Err(ConfigError::new(format!("{path}.min_rtt_window_ns"), "must be positive, or unset for the smallest RTT sample of the connection, got 0"))
            }
            (Some(_), BaseRtt::Propagation) => Err(ConfigError::new(
                format!("{path}.base_rtt"),
                "\"propagation\" gives P as the path's RTT, which no window measures: unset min_rtt_window_ns, or base_rtt \"observed\"",
            )),
            _ => Ok(()),
        }
    }

    /// `srtt_0.99` and `P` from one RTT sample taken at `now`; returns the
    /// sample in the signal's units (microseconds << SRTT_SHIFT).
    pub fn update(&mut self, rtt: SimTime, now: SimTime) -> u64 {
        let rtt_us = (rtt / NS_PER_US).min(MAX_RTT_US);
        let sample = rtt_us << SRTT_SHIFT;
        self.srtt = Some(match self.srtt {
            None => sample,
            Some(srtt) => (srtt * self.weight_ppm + sample * (PPM - self.weight_ppm)) / PPM,
        });
        match &mut self.p_source {
            PSource::Smallest => self.min_rtt_us = Some(self.min_rtt_us.map_or(rtt_us, |p| p.min(rtt_us))),
            PSource::Window(window) => self.min_rtt_us = Some(window.update(now, rtt_us)),
            PSource::Given => {}
        }
        sample
    }

    /// Estimated queueing delay `srtt - P` (microseconds << SRTT_SHIFT); zero
    /// before the first sample.
    pub fn qdelay(&self) -> u64 {
        match (self.srtt, self.min_rtt_us) {
            (Some(srtt), Some(p)) => srtt.saturating_sub(p << SRTT_SHIFT),
            _ => 0,
        }
    }

    /// `P` in the signal's units, zero before the first sample.
    pub fn min_rtt_scaled(&self) -> u64 {
        self.min_rtt_us.unwrap_or(0) << SRTT_SHIFT
    }
}

/// At most one early response per RTT (SIGCOMM 2007 Section 3; Kotla 2008
/// Chapter II): after a response at `snd_nxt = X`, none until `snd_una > X`.
/// Segment `X` is the first sent after the reduction; every ACK before its ACK
/// reports a queue the response could not yet have changed. The test is in
/// sequence space (Linux Vegas' `beg_snd_nxt`, CWR's `high_seq`).
#[derive(Clone, Copy, Debug, Default)]
pub struct OncePerRtt {
    /// `snd_nxt` at the last response; none before the first.
    pub after: Option<u32>,
}

impl OncePerRtt {
    /// The guard is open, and slow start (if the sender is in it) allows a response.
    pub fn may_respond(&self, tp: &CcState, respond_in_slow_start: bool) -> bool {
        let open = self.after.is_none_or(|x| seq_after(tp.snd_una, x));
        open && (respond_in_slow_start || !tp.in_slow_start())
    }

    /// Multiplicative decrease keeping `keep_ppm` millionths of the window (at
    /// least [`MIN_CWND`]); growth resumes in congestion avoidance
    /// (`ssthresh <- cwnd`), the guard closes until the next RTT.
    pub fn respond(&mut self, tp: &mut CcState, keep_ppm: u64) {
        let cwnd = scale_window(tp.snd_cwnd, keep_ppm).min(tp.snd_cwnd);
        tp.snd_cwnd = cwnd;
        tp.snd_ssthresh = cwnd.max(MIN_CWND);
        tp.snd_cwnd_cnt = 0;
        self.after = Some(tp.snd_nxt);
    }
}

/// `keep_ppm` millionths of `cwnd`, truncated, at least [`MIN_CWND`].
pub fn scale_window(cwnd: u32, keep_ppm: u64) -> u32 {
    let kept = u64::from(cwnd) * keep_ppm / PPM;
    u32::try_from(kept).unwrap_or(u32::MAX).max(MIN_CWND)
}

/// One Bernoulli draw with probability `p` (units of 2^-32): exactly one
/// `next_u32` when `p > 0`, none when `p = 0`, so test vectors are reproducible.
pub fn draw(p: u64, rng: &mut SimRng) -> bool {
    p > 0 && u64::from(rng.next_u32()) < p
}

/// The gentle-RED curve on the queueing delay `q`: 0 below `t_min`, linear to
/// `p_max` at `t_max`, linear to 1 at `end`, 1 beyond (all in the signal's units,
/// the probability in units of 2^-32).
pub fn gentle_red(q: u64, t_min: u64, t_max: u64, end: u64, p_max: u64) -> u64 {
    if q < t_min {
        0
    } else if q < t_max {
        interpolate(0, p_max, q - t_min, t_max - t_min)
    } else if q < end {
        interpolate(p_max, PROB_ONE, q - t_max, end - t_max)
    } else {
        PROB_ONE
    }
}

/// `lo + (hi - lo) * num / den`, truncated; `hi` when the span is empty.
fn interpolate(lo: u64, hi: u64, num: u64, den: u64) -> u64 {
    if den == 0 {
        return hi;
    }
    let step = u128::from(hi - lo) * u128::from(num) / u128::from(den);
    lo + u64::try_from(step).unwrap_or(hi - lo)
}

/// Nanoseconds to microseconds << SRTT_SHIFT (sub-microsecond part dropped).
pub fn ns_to_scaled(ns: u64) -> u64 {
    (ns / NS_PER_US).saturating_mul(1 << SRTT_SHIFT)
}

/// Microseconds << SRTT_SHIFT to nanoseconds.
pub fn scaled_to_ns(v: u64) -> SimTime {
    let ns = (u128::from(v) * u128::from(NS_PER_US)) >> SRTT_SHIFT;
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// A fraction in [0, 1] to millionths, rounded.
pub fn to_ppm(x: f64) -> u64 {
    (x.clamp(0.0, 1.0) * PPM as f64).round() as u64
}

/// A probability in [0, 1] to units of 2^-32, rounded.
pub fn to_prob(x: f64) -> u64 {
    (x.clamp(0.0, 1.0) * PROB_ONE as f64).round() as u64
}

/// A probability in units of 2^-32 as a fraction (the inverse of [`to_prob`]).
pub fn from_prob(p: u64) -> f64 {
    p as f64 / PROB_ONE as f64
}
