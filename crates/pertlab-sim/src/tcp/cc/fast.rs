//! FAST TCP (Jin, Wei, Low, "FAST TCP: motivation, architecture, algorithms,
//! performance", IEEE INFOCOM 2004; Wei, Jin, Low, Hegde, same title,
//! IEEE/ACM ToN 14(6), 2006; both in their architecture-and-algorithms
//! section). Section numbers are not given below: they were not re-checked
//! against the papers' text for this module.
//!
//! What is modelled:
//! - The window is a real number `w` kept here; the sender uses
//!   `snd_cwnd = floor(w)` (at least 1, at most the receiver window). When the
//!   sender sets `snd_cwnd` itself (after recovery, a timeout) `w` takes that value.
//! - Once per RTT (when `snd_una` passes the `snd_nxt` recorded at the start of
//!   the RTT, the way Linux Vegas counts rounds) the window is updated by the
//!   papers' equation
//!   `w <- min(2 w, (1 - gamma) w + gamma (baseRTT / avgRTT * w + alpha))`,
//!   floored at 2 segments. Its fixed point keeps `w (1 - baseRTT / avgRTT) =
//!   alpha` packets of the flow queued in the network. CHOICE: every RTT, as
//!   the ns-2 FAST module (Cui and Andrew, v1.1) did by default up to v1.1.2;
//!   its v1.1.3 and the Linux implementation update every other RTT. The whole
//!   change is applied at once at the end of the RTT (the ns-2 module spreads
//!   an increase over the ACKs of the next RTT, "fast_pace").
//! - `baseRTT` is the smallest RTT sample ever. `avgRTT` is an exponentially
//!   weighted average of every RTT sample with weight `min(3 / cwnd,
//!   rtt_weight_max)` (ToN 2006, estimation component: the average covers about the
//!   last `cwnd / 3` samples, and the weight is capped for small windows).
//!   The update uses the current window in `baseRTT / avgRTT * w` (the ns-2
//!   module uses the window in force when the ACKed segment was sent).
//!   An RTT without samples leaves the window unchanged.
//! - Slow start is standard (one segment per ACKed segment up to `ssthresh`)
//!   and, CHOICE, ends at the end of the first RTT whose estimated queue
//!   `w (1 - baseRTT / avgRTT)` reaches `alpha`: `ssthresh` is set to the
//!   window and the FAST update takes over at once. (The ns-2 module grows by
//!   one segment per ACK while `avgRTT - baseRTT` is below a delay threshold,
//!   `mi_threshold_`; the papers give no slow start of their own beyond the
//!   `2 w` cap.) After every FAST update `ssthresh` is kept at most the window,
//!   so a decrease does not restart slow start.
//! - Loss (and ECN echo): Reno's response, `ssthresh = max(cwnd / 2, 2)`, as
//!   FAST falls back to Reno's loss response (both papers); the
//!   sender's SACK recovery does the rest, and a timeout restarts slow start
//!   up to that `ssthresh`.
//!
//! Left out: pacing of increases, alpha tuning (the papers' `alpha` as a
//! function of the achieved rate), FAST's own loss recovery, the
//! every-other-RTT variant.
//!
//! Counters: each FAST update that lowers `snd_cwnd` counts as one
//! `early_responses`, as [`CcCounters`] defines them.

use super::reno::reno_ssthresh;
use super::rtt_round::RttRound;
use super::{AckSample, CcCounters, CcState, CongestionControl};
use crate::error::{check, ConfigError};
use crate::rng::SimRng;
use crate::scenario::CcSpec;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// `alpha`, packets each flow keeps queued: 200, the value of the papers'
/// experiments (INFOCOM 2004, ToN 2006, at Gbit/s). The ns-2 module
/// has no usable default (its constructor sets `alpha_ = 0`; its test scripts
/// set 800 to 10 000).
pub const DEFAULT_ALPHA: f64 = 200.0;
/// `gamma`, the step toward the target window: 0.5 (the papers' value; the
/// ns-2 module's constructor default `gamma_ = 0.5`, tcp-fast.cc v1.1.3).
pub const DEFAULT_GAMMA: f64 = 0.5;
/// Largest weight of one RTT sample in `avgRTT`: 1/4 (ToN 2006, estimation,
/// `eta = min(3 / w, 1/4)`). The ns-2 module uses `min(3 / w, 1/256)`.
pub const DEFAULT_RTT_WEIGHT_MAX: f64 = 0.25;
/// The weight of an RTT sample is this many segments over the window, so
/// `avgRTT` averages about the last `cwnd / 3` samples (ToN 2006, estimation;
/// the ns-2 module's `avg_cwnd_last_RTT_ / 3`).
const RTT_WEIGHT_SEGMENTS: f64 = 3.0;
/// The window at most doubles per update (the `min(2 w, ...)` of the equation).
const MAX_GROWTH: f64 = 2.0;
/// The update never sets a window below 2 segments (ns-2 module
/// `fast_calc_cwnd`; Linux Vegas's floor as well).
const MIN_CWND: f64 = 2.0;

/// FAST TCP parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FastConfig {
    /// Packets each flow aims to keep queued in the network, `alpha`
    /// (the window-control equation). Default 200 (the papers' experiments).
    pub alpha: f64,
    /// Step toward the target window per update, `gamma` in (0, 1]
    /// (the window-control equation). Default 0.5.
    pub gamma: f64,
    /// Largest weight of one RTT sample in `avgRTT`, in (0, 1]; the weight is
    /// `min(3 / cwnd, rtt_weight_max)`. Default 1/4 (ToN 2006, estimation);
    /// the ns-2 module's is 1/256.
    pub rtt_weight_max: f64,
}

impl Default for FastConfig {
    fn default() -> Self {
        FastConfig { alpha: DEFAULT_ALPHA, gamma: DEFAULT_GAMMA, rtt_weight_max: DEFAULT_RTT_WEIGHT_MAX }
    }
}

impl FastConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check::positive(&format!("{path}.alpha"), self.alpha)?;
        unit_interval(&format!("{path}.gamma"), self.gamma)?;
        unit_interval(&format!("{path}.rtt_weight_max"), self.rtt_weight_max)?;
        Ok(())
    }

    /// One window update: `min(2 w, (1 - gamma) w + gamma (base / avg * w +
    /// alpha))`, at least 2 segments. RTTs in any one unit.
    pub fn next_window(&self, w: f64, base_rtt: f64, avg_rtt: f64) -> f64 {
        let target = base_rtt / avg_rtt * w + self.alpha;
        let next = (1.0 - self.gamma) * w + self.gamma * target;
        next.min(MAX_GROWTH * w).max(MIN_CWND)
    }

    /// Weight of one RTT sample in `avgRTT` at window `cwnd`.
    pub fn rtt_weight(&self, cwnd: u32) -> f64 {
        (RTT_WEIGHT_SEGMENTS / f64::from(cwnd.max(1))).min(self.rtt_weight_max)
    }
}

/// `0 < v <= 1`.
fn unit_interval(field: &str, v: f64) -> Result<(), ConfigError> {
    if v.is_finite() && v > 0.0 && v <= 1.0 {
        Ok(())
    } else {
        Err(ConfigError::new(field, format!("must lie in (0, 1], got {v}")))
    }
}

/// FAST TCP state.
#[derive(Clone, Debug)]
pub struct Fast {
    cfg: FastConfig,
    /// The window, segments, as a real number.
    w: f64,
    /// `snd_cwnd` as this controller last set it; anything else was the sender's doing.
    exported: u32,
    /// The current RTT and its samples.
    round: RttRound,
    /// Smallest RTT sample ever (`baseRTT`), ns.
    base_rtt: Option<SimTime>,
    /// Weighted average of the RTT samples (`avgRTT`), ns.
    avg_rtt: Option<f64>,
    counters: CcCounters,
}

impl Fast {
    pub fn new(cfg: FastConfig) -> Fast {
        Fast { cfg, w: 0.0, exported: 0, round: RttRound::default(), base_rtt: None, avg_rtt: None, counters: CcCounters::default() }
    }

    /// The window, segments, as a real number.
    pub fn window(&self) -> f64 {
        self.w
    }

    /// `avgRTT`, ns, once there is a sample.
    pub fn avg_rtt_ns(&self) -> Option<f64> {
        self.avg_rtt
    }

    /// `baseRTT`, ns, once there is a sample.
    pub fn base_rtt_ns(&self) -> Option<SimTime> {
        self.base_rtt
    }

    /// Take over a window the sender set.
    fn sync(&mut self, tp: &CcState) {
        if tp.snd_cwnd != self.exported {
            self.w = f64::from(tp.snd_cwnd);
            self.exported = tp.snd_cwnd;
        }
    }

    fn export(&mut self, tp: &mut CcState) {
        let clamp = f64::from(tp.snd_cwnd_clamp.max(1));
        self.w = self.w.min(clamp);
        // In u32 range by the clamp.
        tp.snd_cwnd = self.w.floor().max(1.0) as u32;
        self.exported = tp.snd_cwnd;
    }

    /// The once-per-RTT decision, on the first ACK beyond the round's start.
    fn end_of_round(&mut self, tp: &mut CcState) {
        let sampled = self.round.samples() > 0;
        self.round.begin(tp.snd_nxt);
        let (Some(base), Some(avg), true) = (self.base_rtt, self.avg_rtt, sampled) else { return };
        let (base, avg) = (base as f64, avg.max(1.0));
        if tp.in_slow_start() {
            let queued = self.w * (1.0 - base / avg);
            if queued < self.cfg.alpha {
                return;
            }
            tp.snd_ssthresh = tp.snd_cwnd;
        }
        let before = tp.snd_cwnd;
        self.w = self.cfg.next_window(self.w, base, avg);
        self.export(tp);
        tp.snd_ssthresh = tp.snd_ssthresh.min(tp.snd_cwnd);
        if tp.snd_cwnd < before {
            self.counters.early_responses += 1;
        }
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.w = f64::from(tp.snd_cwnd);
        self.exported = tp.snd_cwnd;
        self.round.begin(tp.snd_nxt);
    }

    /// Reno's: FAST halves its window on loss.
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        self.sync(tp);
        if tp.in_slow_start() {
            tp.slow_start(acked);
            self.w = f64::from(tp.snd_cwnd);
            self.exported = tp.snd_cwnd;
        }
        if self.round.is_over(tp.snd_una) {
            self.end_of_round(tp);
        }
    }

    fn pkts_acked(&mut self, tp: &mut CcState, sample: &AckSample, _rng: &mut SimRng) {
        let Some(rtt) = sample.rtt else { return };
        let rtt = rtt.max(1);
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        let eta = self.cfg.rtt_weight(tp.snd_cwnd);
        self.avg_rtt = Some(self.avg_rtt.map_or(rtt as f64, |a| (1.0 - eta) * a + eta * rtt as f64));
        self.round.add(rtt);
    }

    fn counters(&self, _now: SimTime) -> CcCounters {
        self.counters
    }

    /// `alpha` and `gamma` apply from the next window update.
    fn set_params(&mut self, spec: &CcSpec) {
        if let CcSpec::Fast(cfg) = spec {
            self.cfg = cfg.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::ack_clock::AckClock;
    use crate::tcp::cc::INFINITE_SSTHRESH;
    use crate::time::NS_PER_MS;

    const MS: SimTime = NS_PER_MS;

    fn cfg(alpha: f64) -> FastConfig {
        FastConfig { alpha, ..FastConfig::default() }
    }

    #[test]
    fn defaults_and_bounds() {
        let c = FastConfig::default();
        assert_eq!((c.alpha, c.gamma, c.rtt_weight_max), (200.0, 0.5, 0.25));
        assert!(c.validate("flows[0].cc").is_ok());
        assert!(FastConfig { gamma: 1.0, rtt_weight_max: 1.0, ..c.clone() }.validate("f").is_ok());
        let e = FastConfig { gamma: 0.0, ..c.clone() }.validate("flows[2].cc").unwrap_err();
        assert_eq!(e.to_string(), "flows[2].cc.gamma: must lie in (0, 1], got 0");
        let e = FastConfig { gamma: 1.5, ..c.clone() }.validate("f").unwrap_err();
        assert_eq!(e.field, "f.gamma");
        let e = FastConfig { alpha: -1.0, ..c.clone() }.validate("f").unwrap_err();
        assert_eq!(e.field, "f.alpha");
        let e = FastConfig { rtt_weight_max: f64::NAN, ..c }.validate("f").unwrap_err();
        assert_eq!(e.field, "f.rtt_weight_max");
        assert!(serde_json::from_str::<FastConfig>(r#"{"beta": 1}"#).is_err());
        let c: FastConfig = serde_json::from_str(r#"{"alpha": 20}"#).unwrap();
        assert_eq!(c, cfg(20.0));
    }

    #[test]
    fn window_update_by_hand() {
        // w 100, baseRTT 100 ms, avgRTT 120 ms, gamma 1/2:
        // alpha 20: 50 + (100 / 1.2 + 20) / 2 = 50 + 51.667 = 101.667.
        assert!((cfg(20.0).next_window(100.0, 100.0, 120.0) - 101.6667).abs() < 1e-4);
        // alpha 200: 50 + (83.333 + 200) / 2 = 191.667, below 2 w.
        assert!((cfg(200.0).next_window(100.0, 100.0, 120.0) - 191.6667).abs() < 1e-4);
        // gamma 1 jumps to the target: 83.333 + 20.
        let c = FastConfig { gamma: 1.0, ..cfg(20.0) };
        assert!((c.next_window(100.0, 100.0, 120.0) - 103.3333).abs() < 1e-4);
        // The fixed point keeps alpha packets queued: w (1 - 100/120) = 20 at w = 120.
        assert!((cfg(20.0).next_window(120.0, 100.0, 120.0) - 120.0).abs() < 1e-9);
        // Too many queued (w 200, 33.3 queued): 100 + (166.667 + 20) / 2 = 193.333.
        assert!((cfg(20.0).next_window(200.0, 100.0, 120.0) - 193.3333).abs() < 1e-4);
    }

    #[test]
    fn growth_is_capped_at_twice_the_window_and_floored_at_two() {
        // No queueing: target 10 + 200, half-way 110, capped at 2 w = 20.
        assert_eq!(cfg(200.0).next_window(10.0, 100.0, 100.0), 20.0);
        // Below the cap the step is gamma alpha: 300 -> 400.
        assert_eq!(cfg(200.0).next_window(300.0, 100.0, 100.0), 400.0);
        // Huge queueing with a tiny alpha: 0.5 * 3 + 0.5 * (0.03 + 0.1) < 2.
        assert_eq!(cfg(0.1).next_window(3.0, 1.0, 100.0), 2.0);
    }

    #[test]
    fn rtt_average_weight_is_three_over_cwnd_capped() {
        let c = FastConfig::default();
        assert_eq!(c.rtt_weight(100), 0.03);
        assert_eq!(c.rtt_weight(8), 0.25);
        assert_eq!(c.rtt_weight(0), 0.25);
        let mut f = AckClock::new(Fast::new(c), 100, 5);
        f.ack(100 * MS);
        assert_eq!(f.cc.avg_rtt_ns(), Some(100e6));
        // 0.97 * 100 + 0.03 * 120 = 100.6 ms.
        f.ack(120 * MS);
        assert!((f.cc.avg_rtt_ns().unwrap() - 100.6e6).abs() < 1.0);
        assert_eq!(f.cc.base_rtt_ns(), Some(100 * MS));
    }

    #[test]
    fn one_round_in_congestion_avoidance_applies_the_update() {
        // cwnd 100, every sample 100 ms: the first round ends on the first ACK
        // of the second; no queueing, alpha 20: 50 + (100 + 20) / 2 = 110.
        let mut f = AckClock::new(Fast::new(cfg(20.0)), 100, 5);
        f.round(100 * MS);
        assert_eq!(f.tp.snd_cwnd, 100);
        f.ack(100 * MS);
        assert_eq!(f.tp.snd_cwnd, 110);
        assert_eq!(f.cc.window(), 110.0);
        assert_eq!(f.cc.counters(0).early_responses, 0);
    }

    #[test]
    fn a_path_of_fifty_packets_converges_to_alpha_queued() {
        // BDP 50 packets at 100 ms: a window w > 50 queues w - 50 packets and the
        // RTT is 100 ms * w / 50. From slow start the flow must settle where
        // alpha = 20 packets are queued: w = 70.
        let rtt = |w: u32| 100 * MS * u64::from(w.max(50)) / 50;
        let mut f = AckClock::new(Fast::new(cfg(20.0)), 2, INFINITE_SSTHRESH);
        for _ in 0..60 {
            f.round_by(|w| Some(rtt(w)));
        }
        assert_ne!(f.tp.snd_ssthresh, INFINITE_SSTHRESH, "left slow start");
        assert!((f.cc.window() - 70.0).abs() < 1.0, "window {}", f.cc.window());
        assert!((69..=70).contains(&f.tp.snd_cwnd), "cwnd {}", f.tp.snd_cwnd);
        // The slow-start overshoot was taken back by at least one decrease.
        assert!(f.cc.counters(0).early_responses >= 1);
        assert!(f.tp.snd_ssthresh <= f.tp.snd_cwnd);
    }

    #[test]
    fn loss_halves_the_window_and_the_update_resumes_from_there() {
        let mut f = AckClock::new(Fast::new(cfg(20.0)), 100, 5);
        f.round(100 * MS);
        f.tp.snd_cwnd = 41;
        assert_eq!(f.cc.ssthresh(&f.tp), 20);
        f.tp.snd_cwnd = 3;
        assert_eq!(f.cc.ssthresh(&f.tp), 2);
        // The sender ends recovery with snd_cwnd = ssthresh = 50: FAST takes it
        // over, and the round ending on this ACK grows it by gamma alpha = 10.
        f.tp.snd_cwnd = 50;
        f.tp.snd_ssthresh = 50;
        f.ack(100 * MS);
        assert_eq!((f.tp.snd_cwnd, f.tp.snd_ssthresh), (60, 50));
        assert_eq!(f.cc.window(), 60.0);
    }
}
