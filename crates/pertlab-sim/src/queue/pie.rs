//! PIE, Proportional Integral controller Enhanced (RFC 8033, Pan et al. 2017),
//! following the RFC's pseudocode (§5 and the §4 algorithm text).
//!
//! Every `T_UPDATE` the drop probability moves with the queueing delay:
//!
//! ```text
//! p = alpha (qdelay - QDELAY_REF) + beta (qdelay - qdelay_old)      (alpha 0.125, beta 1.25, per s)
//! p /= 2048, 512, 128, 32, 8, 2 or 1 while drop_prob < 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, else  (§4.2 auto-tuning)
//! if drop_prob >= 0.1 and p > 0.02: p = 0.02                         (§5.5 cap, optional, on)
//! drop_prob += p
//! if qdelay == 0 and qdelay_old == 0: drop_prob *= 0.98              (§4.2 decay)
//! drop_prob clamped to [0, 1]; qdelay_old = qdelay
//! burst_allowance = max(0, burst_allowance - T_UPDATE)               (§4.4)
//! ```
//!
//! On arrival (§5 `enque`, §4.1 `drop_early`): the burst allowance is refilled to
//! `MAX_BURST` when `drop_prob == 0` and both the current and the previous delay
//! are below `QDELAY_REF / 2`; while it lasts nothing is dropped; otherwise a
//! packet is dropped (or marked, §5.1, with `use_ecn`, an ECN-capable packet and
//! `drop_prob < mark_ecn_threshold`) with probability `drop_prob`, except that
//! the safeguard of §4.1 lets it through when `qdelay_old < QDELAY_REF / 2` and
//! `drop_prob < 0.2`, or when the queue holds at most two mean-size packets.
//!
//! **The queueing delay (§4.3).** The RFC allows per-packet timestamps or a
//! departure-rate estimate (`qdelay = queue bytes / dequeue rate`). We offer
//! the timestamp reading (default, as the RFC's pseudocode, ns-3 and Linux's
//! default): `qdelay` is the sojourn time of the last packet dequeued, or 0 if
//! it left the queue empty (ns-3). The alternative `queue_over_rate` divides the
//! backlog by the link rate: on our constant-rate links that is exactly what
//! the RFC's dequeue-rate estimator converges to, without its measurement
//! cycles (`DQ_THRESHOLD`), which are left out.
//!
//! **Timing.** `T_UPDATE` runs at `k T_UPDATE`, `k >= 1`, caught up at packet
//! events ([`super::periodic`]); the delay is constant between events in both
//! readings, so the catch-up is exact.
//!
//! **Left out:** the derandomisation of §5.4 (`accu_prob`), the
//! activation/deactivation of Appendix A, and byte-scaled probabilities.

use serde::{Deserialize, Serialize};

use super::periodic::{catch_up, Periodic, MIN_PERIOD_NS};
use super::{draw, ecn_capable, mark, DropKind, QueueBounds, QueueDiscipline, QueueView, Verdict};
use crate::error::{check, ConfigError};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::time::{self, SimTime, NS_PER_MS, NS_PER_SEC};

/// QDELAY_REF, the latency target: 15 ms (RFC 8033 §4.2 and §5).
pub const DEFAULT_TARGET_DELAY_NS: SimTime = 15 * NS_PER_MS;
/// T_UPDATE, the update period: 15 ms (RFC 8033 §4.2 and §5).
pub const DEFAULT_T_UPDATE_NS: SimTime = 15 * NS_PER_MS;
/// MAX_BURST, the burst allowance: 150 ms (RFC 8033 §4.4 and §5).
pub const DEFAULT_MAX_BURST_NS: SimTime = 150 * NS_PER_MS;
/// alpha, per second: 1/8 (RFC 8033 §4.2 and §5).
pub const DEFAULT_ALPHA: f64 = 0.125;
/// beta, per second: 1 + 1/4 (RFC 8033 §4.2 and §5).
pub const DEFAULT_BETA: f64 = 1.25;
/// MEAN_PKTSIZE for the safeguard of §4.1, bytes (the RFC names no value; ns-3 `MeanPktSize` 1000).
pub const DEFAULT_MEAN_PKT_SIZE: u32 = 1000;
/// Largest `alpha` and `beta`, per second: a gain of 1e9/s moves the probability
/// across [0, 1] on a delay error of one nanosecond (the clock's resolution), so
/// larger gains behave the same; the bound keeps every step finite.
pub const MAX_GAIN_PER_S: f64 = 1e9;
/// Above this drop probability ECN-capable packets are dropped, not marked (RFC 8033 §5.1: 10 %).
pub const DEFAULT_MARK_ECN_THRESHOLD: f64 = 0.1;

/// The §4.2 auto-tuning: below each bound of `drop_prob`, the step is divided by the factor.
pub const SCALING: [(f64, f64); 6] = [(1e-6, 2048.0), (1e-5, 512.0), (1e-4, 128.0), (1e-3, 32.0), (1e-2, 8.0), (0.1, 2.0)];
/// §5.5: once `drop_prob >= 0.1`, one update adds at most 0.02.
pub const CAP_FROM: f64 = 0.1;
pub const CAP_STEP: f64 = 0.02;
/// §4.2: the decay factor when the queue has stayed empty over an update.
pub const DECAY: f64 = 0.98;
/// §4.1: no random drop while `qdelay_old < QDELAY_REF / 2` and `drop_prob` is below this.
pub const SAFEGUARD_PROB: f64 = 0.2;

/// How the queueing delay is obtained (RFC 8033 §4.3).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PieDelay {
    /// Sojourn time of the last dequeued packet (timestamps).
    #[default]
    Sojourn,
    /// Backlog in bytes divided by the link rate.
    QueueOverRate,
}

/// PIE parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PieConfig {
    /// QDELAY_REF, ns (15 ms).
    pub target_delay_ns: SimTime,
    /// T_UPDATE, ns (15 ms), at least [`MIN_PERIOD_NS`].
    pub t_update_ns: SimTime,
    /// MAX_BURST, ns (150 ms); 0 disables the burst allowance.
    pub max_burst_ns: SimTime,
    /// alpha, Hz, in [0, [`MAX_GAIN_PER_S`]] (0.125).
    pub alpha: f64,
    /// beta, Hz, in [0, [`MAX_GAIN_PER_S`]] (1.25).
    pub beta: f64,
    /// MEAN_PKTSIZE of the §4.1 safeguard, bytes (1000).
    pub mean_pkt_size: u32,
    /// Mark ECN-capable packets instead of dropping them while drop_prob is low (§5.1; default false).
    pub use_ecn: bool,
    /// Marking stops at this drop probability, in [0, 1] (§5.1: 0.1).
    pub mark_ecn_threshold: f64,
    /// Cap an update at +0.02 once drop_prob >= 0.1 (§5.5; default true, as ns-3).
    pub cap_drop_adjustment: bool,
    /// How the queueing delay is measured ("sojourn", default, or "queue_over_rate").
    pub delay: PieDelay,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target_delay_ns: DEFAULT_TARGET_DELAY_NS,
            t_update_ns: DEFAULT_T_UPDATE_NS,
            max_burst_ns: DEFAULT_MAX_BURST_NS,
            alpha: DEFAULT_ALPHA,
            beta: DEFAULT_BETA,
            mean_pkt_size: DEFAULT_MEAN_PKT_SIZE,
            use_ecn: false,
            mark_ecn_threshold: DEFAULT_MARK_ECN_THRESHOLD,
            cap_drop_adjustment: true,
            delay: PieDelay::Sojourn,
        }
    }
}

impl PieConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        let field = |name: &str| format!("{path}.{name}");
        check::positive(&field("target_delay_ns"), self.target_delay_ns as f64)?;
        if self.t_update_ns < MIN_PERIOD_NS {
            return Err(ConfigError::new(
                field("t_update_ns"),
                format!("must be at least {MIN_PERIOD_NS} ns (1 ms, one jiffy at Linux's HZ = 1000; sch_pie counts it in jiffies), got {}", self.t_update_ns),
            ));
        }
        check::in_range(&field("alpha"), self.alpha, 0.0, MAX_GAIN_PER_S)?;
        check::in_range(&field("beta"), self.beta, 0.0, MAX_GAIN_PER_S)?;
        check::positive(&field("mean_pkt_size"), self.mean_pkt_size as f64)?;
        check::in_range(&field("mark_ecn_threshold"), self.mark_ecn_threshold, 0.0, 1.0)?;
        Ok(())
    }
}

/// The controller's state.
#[derive(Clone, Copy, Debug, PartialEq)]
struct State {
    /// `drop_prob_`.
    p: f64,
    /// `qdelay_old_`, seconds.
    qdelay_old: f64,
    /// `burst_allowance_`, ns.
    burst: SimTime,
}

/// The PIE queue discipline.
pub struct Pie {
    cfg: PieConfig,
    ticks: Periodic,
    state: State,
    /// `current_qdelay` in the sojourn reading, seconds: the last dequeued packet's.
    last_sojourn: f64,
}

impl Pie {
    pub fn new(cfg: PieConfig) -> Pie {
        let ticks = Periodic::new(cfg.t_update_ns);
        Pie { cfg, ticks, state: State { p: 0.0, qdelay_old: 0.0, burst: 0 }, last_sojourn: 0.0 }
    }

    /// The current queueing delay, seconds, for a backlog of `bytes` on a link of `rate_bps`.
    fn qdelay(&self, bytes: u64, rate_bps: u64) -> f64 {
        match self.cfg.delay {
            PieDelay::Sojourn => self.last_sojourn,
            PieDelay::QueueOverRate if rate_bps == 0 => 0.0,
            PieDelay::QueueOverRate => bytes as f64 * 8.0 / rate_bps as f64,
        }
    }

    /// One `calculate_drop_prob` with the current delay `qdelay` (seconds).
    fn update(cfg: &PieConfig, s: &mut State, qdelay: f64) {
        let target = time::to_secs(cfg.target_delay_ns);
        let mut p = cfg.alpha * (qdelay - target) + cfg.beta * (qdelay - s.qdelay_old);
        let divisor = SCALING.iter().find(|&&(bound, _)| s.p < bound).map_or(1.0, |&(_, d)| d);
        p /= divisor;
        if cfg.cap_drop_adjustment && s.p >= CAP_FROM && p > CAP_STEP {
            p = CAP_STEP;
        }
        s.p += p;
        if qdelay == 0.0 && s.qdelay_old == 0.0 {
            s.p *= DECAY;
        }
        s.p = s.p.clamp(0.0, 1.0);
        s.qdelay_old = qdelay;
        s.burst = s.burst.saturating_sub(cfg.t_update_ns);
    }

    /// Run the updates due by `now`, the delay having been `qdelay` since the last event.
    fn catch_up(&mut self, qdelay: f64, now: SimTime) {
        let n = self.ticks.due(now);
        let cfg = &self.cfg;
        catch_up(&mut self.state, n, |s| Self::update(cfg, s, qdelay));
    }

    /// §4.1 `drop_early`: whether the random drop applies at all, then the draw.
    fn drop_early(&self, view: &QueueView, rng: &mut SimRng) -> bool {
        let half_target = time::to_secs(self.cfg.target_delay_ns) / 2.0;
        let s = &self.state;
        if (s.qdelay_old < half_target && s.p < SAFEGUARD_PROB) || view.len_bytes <= 2 * self.cfg.mean_pkt_size as u64 {
            return false;
        }
        draw(rng, s.p)
    }
}

/// The probability `p` measured in the auto-tuning's scale: W(p) = the integral from 0 to p
/// of the divisor [`SCALING`] applies at each level (1 above the table). An update moves W by
/// at most its step before the division: up, because the divisor only falls as `p` rises;
/// down, at least as far, because it only grows as `p` falls (the cap and the decay move `p`
/// down further). Used by [`Pie::never_acts`].
fn scaled(p: f64) -> f64 {
    let mut w = 0.0;
    let mut from = 0.0;
    for &(bound, divisor) in &SCALING {
        w += (p.min(bound) - from).max(0.0) * divisor;
        from = bound;
    }
    w + (p - from).max(0.0)
}

impl QueueDiscipline for Pie {
    fn name(&self) -> &'static str {
        "pie"
    }

    /// §4.1's safeguard passes every packet while `qdelay_old < QDELAY_REF / 2` and
    /// `drop_prob < 0.2`. Below QDELAY_REF the alpha term only lowers `p`, so `scaled(p)` never
    /// exceeds beta times the largest delay seen: by induction, `scaled(p) - beta qdelay_old`
    /// starts at 0 and no update raises it above 0. So a buffer that drains
    /// ([`QueueBounds::max_sojourn_ns`], which bounds both delay readings) in less than half the
    /// target, with beta times that time below `scaled(0.2)`, never lets PIE act. Where the
    /// largest packet is not known, nothing is said.
    fn never_acts(&self, bounds: &QueueBounds) -> Option<String> {
        let longest = bounds.max_sojourn_ns()?;
        let half_target = self.cfg.target_delay_ns as f64 / 2.0;
        let reach = self.cfg.beta * time::to_secs(longest);
        ((longest as f64) < half_target && reach < scaled(SAFEGUARD_PROB)).then(|| {
            format!(
                "{}, is below half its target ({:.3} ms), where its safeguard passes every packet while drop_prob is below {SAFEGUARD_PROB}, which such delays cannot raise it to (beta {}): pie never drops or marks",
                bounds.longest_wait(longest),
                half_target / NS_PER_MS as f64,
                self.cfg.beta
            )
        })
    }

    fn on_arrival(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict {
        let qdelay = self.qdelay(view.len_bytes, view.link_rate_bps);
        self.catch_up(qdelay, now);
        let half_target = time::to_secs(self.cfg.target_delay_ns) / 2.0;
        let s = &mut self.state;
        if s.p == 0.0 && qdelay < half_target && s.qdelay_old < half_target {
            s.burst = self.cfg.max_burst_ns;
        }
        if self.state.burst > 0 || !self.drop_early(view, rng) {
            return Verdict::Pass;
        }
        if self.cfg.use_ecn && ecn_capable(pkt) && self.state.p < self.cfg.mark_ecn_threshold {
            mark(pkt)
        } else {
            Verdict::Drop(DropKind::Early)
        }
    }

    fn on_departure(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime) -> Verdict {
        // Until now the backlog included this packet, and the sojourn reading held the previous value.
        let qdelay = self.qdelay(view.len_bytes + pkt.size as u64, view.link_rate_bps);
        self.catch_up(qdelay, now);
        self.last_sojourn = if view.len_pkts == 0 { 0.0 } else { time::to_secs(now.saturating_sub(pkt.enq_ts)) };
        Verdict::Pass
    }

    fn probability(&self) -> f64 {
        self.state.p
    }

    /// RFC 8033's `qdelay_old` and `burst_allowance`, seconds.
    fn variables(&self) -> Vec<(&'static str, Option<f64>)> {
        vec![("qdelay_old_s", Some(self.state.qdelay_old)), ("burst_allowance_s", Some(self.state.burst as f64 / NS_PER_SEC as f64))]
    }
}

#[cfg(test)]
mod tests;
