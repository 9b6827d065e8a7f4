//! RED (Floyd & Jacobson 1993) and its variants that share its queue: Adaptive
//! RED (Floyd, Gummadi, Shenker 2001), Refined Adaptive RED (Kim and Lee 2006),
//! FARED and CARED (Tahiliani 2013, Chapter 3), Feng's self-configuring RED
//! (Feng et al. 1999) and non-linear RED (Zhou, Ye, Yeung 2006), with the
//! semantics of ns-3's `RedQueueDisc`, itself a port of ns-2's `queue/red.cc`.
//! Parameter names are ns-3's attribute names in snake_case.
//!
//! The variants ([`RedVariant`]) differ only in how `max_p` moves (the
//! controllers of [`maxp`]: one file per rule, [`ared`], [`reared`], [`fared`],
//! [`cared`], [`feng`]) or, for NLRED, in the shape of the probability curve.
//!
//! # What is modelled
//! - The average queue: an EWMA updated on **every arrival** with the queue
//!   length before the packet is added (thesis Eq. 2.1.1), with ns-2's
//!   idle-time correction: after the link has been idle for `t` seconds the
//!   average decays as if `m = floor(t * C_idle)` empty-queue arrivals had
//!   happened (`avg *= (1 - q_w)^m`), where `C_idle` is the link rate in
//!   packets of `idle_pkt_size` bytes per second.
//! - The drop/mark probability (thesis Eq. 2.1.2): `p_b = max_p (avg - min_th) /
//!   (max_th - min_th)` between the thresholds; with `gentle`, `p_b = max_p +
//!   (1 - max_p)(avg - max_th) / max_th` up to `2 max_th` (GRED, thesis §1.2);
//!   beyond (or beyond `max_th` without `gentle`) every arrival is a forced drop.
//! - Uniform spacing of drops with `count`, the arrivals since the last drop:
//!   `p_a = p_b / (1 - count p_b)`, or with `wait` (ns default)
//!   `p_a = 0` while `count p_b < 1`, `p_b / (2 - count p_b)` while `< 2`, else 1.
//!   As in ns, no early drop happens while the instantaneous queue holds at
//!   most one packet (or byte), and the first arrival after the average
//!   crosses `min_th` only restarts `count` (ns `old` flag).
//! - Byte mode: average and thresholds in bytes, `count` in mean-size packets,
//!   and `p_a` scaled by `size / mean_pkt_size` (small packets are spared).
//! - ECN (RFC 3168): with `use_ecn`, an ECN-capable packet chosen for an early
//!   drop is marked CE instead; forced drops stay drops unless `use_hard_drop`
//!   is off.
//! - Automatic parameters (ARED paper; thesis Eqs. 2.1.3 and 2.1.4), with `C`
//!   the link rate in packets of `mean_pkt_size` bytes per second:
//!   `q_w = 1 - exp(-1/C)`, `min_th = max(5, target_delay C / 2)`,
//!   `max_th = 3 min_th`.
//! - Adaptive control of `max_p` (see [`maxp`]).
//! - NLRED's quadratic curve: `p_b = 1.5 max_p ((avg - min_th) / (max_th -
//!   min_th))^2` between the thresholds (Zhou et al. 2006; ns-3 `NLRED`). The
//!   thesis's Eq. 2.1.10 leaves out the factor 1.5; we follow the paper and
//!   ns-3 (`nlred_scale`). As in ns-3 the gentle segment is unchanged, so with
//!   `gentle` the curve drops from `1.5 max_p` to `max_p` at `max_th`.
//!
//! # What is left out
//! ns-2's `cautious_` modes, `ns1_compat_`,
//! `doubleq_`, `use_mark_p_`/`mark_p_`, the choice of a drop victim other than
//! the arriving packet (`drop_front_`, `drop_rand_`), and `q_weight_ = -1`
//! (it needs the link's propagation delay, which a discipline does not see).
//! The hard buffer limit is the [`OutputQueue`](super::OutputQueue)'s business.
//!
//! # The thesis's target band, and the mean packet size
//! The thesis (Tahiliani 2013, §3.3.2 footnote 1 and §4.4.1) reports ARED's
//! target band as [9, 11] packets at 10 Mbps with a 5 ms target delay. The ARED
//! formulas give that only with `C` counted in **1000-byte** packets:
//! `C = 10e6 / 8000 = 1250` pkt/s, `target_delay C / 2 = 3.125 < 5`, so
//! `min_th = 5`, `max_th = 15`, band `[5 + 0.4·10, 5 + 0.6·10] = [9, 11]`.
//! With the ns-2/ns-3 default `mean_pkt_size = 500`, `C = 2500`, `min_th = 6.25`,
//! `max_th = 18.75` and the band would be [11.25, 13.75]. We keep the ns
//! default 500 and reproductions of the thesis set `mean_pkt_size = 1000`.
//!
//! # Where ns-2 differs
//! (ns-2.35 `queue/red.cc` and `tcl/lib/ns-default.tcl`, against ns-3
//! `RedQueueDisc`; "we" is this module.)
//! - **Defaults.** ns-2.35: `thresh_ 0`, `maxthresh_ 0` (automatic),
//!   `q_weight_ -1` (`1 - exp(-1/(10 rtt C))` with `rtt = max(0.1, 3(delay +
//!   1/C))`), `linterm_ 10` (max_p 0.1), `mean_pktsize_ 500`, `idle_pktsize_
//!   100`, `bytes_ true` and `queue_in_bytes_ true` (byte mode), `gentle_ true`,
//!   `wait_ true`, `setbit_ false`, `use_mark_p_ true` with `mark_p_ 0.1`,
//!   `bottom_ 0` (automatic). Older ns-2 releases used `thresh_ 5`, `maxthresh_
//!   15`, `q_weight_ 0.002`, `linterm_ 10`, packet mode. ns-3: `MinTh 5`,
//!   `MaxTh 15`, `QW 0.002`, `LInterm 50` (max_p 0.02), `MeanPktSize 500`,
//!   `Gentle`, `Wait`, `UseHardDrop` true, `UseEcn` false, `Bottom 0`
//!   (automatic), packet mode; ns-3's `ARED = true` overwrites MinTh, MaxTh and
//!   QW with 0 (automatic) whatever the user set. We use ns-3's values, except
//!   that `bottom` defaults to the paper's 0.01; for the adaptive-RED family
//!   (ARED, Re-ARED, FARED, CARED: the thesis sets their parameters "similar to
//!   that of ARED") the unset `min_th`, `max_th` and `q_w` are automatic, but
//!   explicit values are kept (the thesis runs ARED with explicit 20/80
//!   thresholds). Feng's RED and NLRED use plain RED's defaults, as in ns-3.
//! - **`count` after a forced drop.** ns-2 resets `count` after every forced
//!   drop, buffer overflows included ("bug-fix from Philip Liu", skipped only
//!   with `ns1_compat_`); ns-3 resets it only when `Ns1Compat` is true (the test
//!   is inverted) and never on overflow. We follow ns-2.
//! - **ECN.** ns-2 marks only unforced drops, and with `use_mark_p_` (default)
//!   only while `p_b < mark_p_`; above that ECT packets are dropped, and the
//!   forced-drop test on the average is skipped (drops then come with p = 1
//!   from the probabilistic path). ns-3 marks every unforced drop of an
//!   ECN-capable packet with `UseEcn`, and forced ones too when `UseHardDrop` is
//!   false. We follow ns-3.
//! - **Gentle slope under ARED.** ns-2 and ns-3 compute the gentle segment's
//!   coefficients once, from the initial `max_p`, so after ARED has moved
//!   `max_p` the probability jumps at `max_th`. We use the current `max_p`, so
//!   the curve stays continuous (the GRED definition).
//! - **Timing and bounds of the adaptive family**: see [`maxp`].
//! - **Idle time.** ns-2 uses `idle_pktsize_` only with `cautious_ 3` and ns-3
//!   ignores `IdlePktSize`; both count the idle time from the moment the link,
//!   asking for a packet, finds the queue empty, i.e. when the last packet's
//!   transmission ends. We always use `idle_pkt_size` (0 means `mean_pkt_size`,
//!   the ns behaviour) and take the idle start as the last departure plus its
//!   transmission time at the link rate.
//! - **Byte mode.** ns-2 has separate switches for the byte-scaled probability
//!   (`bytes_`) and the byte-measured queue (`queue_in_bytes_`); ns-3 and we
//!   have one mode. Explicit thresholds are in the mode's unit; the defaults and
//!   automatic thresholds are in packets and scaled by `mean_pkt_size`.

pub mod ared;
pub mod cared;
pub mod fared;
pub mod feng;
pub mod maxp;
pub mod reared;

use serde::{Deserialize, Serialize};

use self::ared::{Ared, ARED_BAND};
use self::cared::Cared;
use self::feng::{Feng, DEFAULT_FENG_ALPHA, DEFAULT_FENG_BETA};
use self::maxp::{BandController, BandParams, FamilyRule, MaxPControl, TargetBand, TrendReference};
use self::reared::{Ratio, RatioTarget, REARED_BAND, REARED_DECREASE_GAIN, REARED_INCREASE_GAIN};
use super::{draw, ecn_capable, mark, DropKind, QueueBounds, QueueDiscipline, QueueLimit, QueueView, Verdict};
use crate::error::{check, ConfigError};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::time::{self, SimTime, NS_PER_MS, NS_PER_SEC};

/// ns-3 `MinTh` default, packets (also ns-2's `thresh_` before automatic thresholds).
pub const DEFAULT_MIN_TH_PKTS: f64 = 5.0;
/// ns-3 `QW` default (ns-2's `q_weight_` before automatic weights; Floyd & Jacobson 1993 use 0.002).
pub const DEFAULT_Q_W: f64 = 0.002;
/// ns-3 `LInterm` default: max_p = 1/50 = 0.02 (ns-2's `linterm_` is 10).
pub const DEFAULT_L_INTERM: f64 = 50.0;
/// ns-3 `MeanPktSize` and ns-2 `mean_pktsize_` default, bytes. The thesis needs 1000 (module doc).
pub const DEFAULT_MEAN_PKT_SIZE: u32 = 500;
/// ARED target queueing delay: 5 ms (ARED paper; ns-2 `targetdelay_`, ns-3 `TargetDelay`).
pub const DEFAULT_TARGET_DELAY_NS: SimTime = 5 * NS_PER_MS;
/// ARED adaptation interval: 0.5 s (ARED paper's `interval`; thesis Table 3.1; ns-2, ns-3).
pub const DEFAULT_INTERVAL_NS: SimTime = 500 * NS_PER_MS;
/// ARED upper bound of max_p: 0.5 (ARED paper; thesis §1.4; ns-2 `top_`, ns-3 `Top`).
pub const DEFAULT_TOP: f64 = 0.5;
/// ARED lower bound of max_p: 0.01 (ARED paper; thesis §1.4). ns-3's default is 0 (automatic).
pub const DEFAULT_BOTTOM: f64 = 0.01;
/// ARED cap of the additive increase: 0.01 (ARED paper; thesis Table 3.1; ns-2 `alpha_`, ns-3 `Alpha`).
pub const DEFAULT_ALPHA: f64 = 0.01;
/// ARED multiplicative decrease: 0.9 (ARED paper; thesis Table 3.1; ns-2 `beta_`, ns-3 `Beta`).
pub const DEFAULT_BETA: f64 = 0.9;

/// NLRED's factor: `p_b = 1.5 max_p x^2` reaches 1.5 max_p at max_th, so that
/// the quadratic curve drops about as much in total as the linear one (Zhou,
/// Ye, Yeung 2006; ns-3 `p *= p * 1.5`). The thesis's Eq. 2.1.10 omits it.
pub const DEFAULT_NLRED_SCALE: f64 = 1.5;

/// Automatic min_th is never below 5 packets (ARED paper; thesis Eq. 2.1.4).
pub const AUTO_MIN_TH_FLOOR_PKTS: f64 = 5.0;
/// Automatic (or omitted) max_th is 3 × min_th (ARED paper; thesis §1.2; ns-2 `maxthresh_ 0`).
pub const AUTO_MAX_TH_FACTOR: f64 = 3.0;
/// `q_w = -2` selects ns-2/ns-3's fast weight `1 - exp(-10/C)`.
pub const Q_W_FAST_CODE: f64 = -2.0;
/// Packets per time constant of the fast weight (ns-2 `q_weight_ -2`).
pub const FAST_Q_W_PACKETS: f64 = 10.0;
/// Automatic `bottom` (`bottom = 0`) is `min(0.01, 1/W)` with W the bandwidth-delay
/// product of a connection with this RTT (ns-2 100 ms; ns-3 `Rtt` default 0.1 s),
/// and at most `top` (ns-2 and ns-3 do not bound it by `top`, so with `top`
/// below it their range `[bottom, top]` is empty).
pub const AUTO_BOTTOM_RTT_S: f64 = 0.1;

/// How the queue is measured.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RedMode {
    /// Average and thresholds in packets (ns-3's default).
    #[default]
    Packets,
    /// Average and thresholds in bytes; drop probability scaled by packet size.
    Bytes,
}

/// Which member of the RED family a queue is; the queue kind of the scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedVariant {
    /// Fixed `max_p`, linear curve.
    Red,
    /// Adaptive RED (AIMD on `max_p`).
    Ared,
    /// Refined Adaptive RED (ratio steps, narrow band).
    ReAred,
    /// Fast Adapting RED (Re-ARED with smaller gains).
    Fared,
    /// Cautious Adaptive RED (ARED or Re-ARED by the trend of the average).
    Cared,
    /// Feng's self-configuring RED.
    Feng,
    /// Non-linear (quadratic) RED with a fixed `max_p`.
    Nlred,
}

impl RedVariant {
    pub const ALL: [RedVariant; 7] =
        [RedVariant::Red, RedVariant::Ared, RedVariant::ReAred, RedVariant::Fared, RedVariant::Cared, RedVariant::Feng, RedVariant::Nlred];

    /// The queue kind naming it in a scenario.
    pub fn name(self) -> &'static str {
        match self {
            RedVariant::Red => "red",
            RedVariant::Ared => "ared",
            RedVariant::ReAred => "reared",
            RedVariant::Fared => "fared",
            RedVariant::Cared => "cared",
            RedVariant::Feng => "feng",
            RedVariant::Nlred => "nlred",
        }
    }

    pub fn from_name(name: &str) -> Option<RedVariant> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The adaptive-RED family, whose unset parameters are automatic (ARED paper).
    pub fn is_band_family(self) -> bool {
        matches!(self, RedVariant::Ared | RedVariant::ReAred | RedVariant::Fared | RedVariant::Cared)
    }

    /// The paper's target band of a family member, as fractions of `max_th - min_th`.
    fn default_band(self) -> [f64; 2] {
        match self {
            RedVariant::ReAred | RedVariant::Fared => REARED_BAND,
            _ => ARED_BAND,
        }
    }
}

/// Parameters of the RED family. Which variant runs is chosen by the queue
/// kind, not here; each variant reads the fields it needs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RedConfig {
    /// Packets (default) or bytes.
    pub mode: RedMode,
    /// Minimum threshold of the average queue (packets, or bytes in byte mode).
    /// 0 = automatic, `max(5, target_delay C / 2)` packets. Unset: 5 packets for
    /// RED (ns-3 `MinTh`), automatic for ARED.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_th: Option<f64>,
    /// Maximum threshold. Unset or 0: 3 × min_th (15 packets for RED, ns-3 `MaxTh`).
    /// Giving it requires giving `min_th` too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_th: Option<f64>,
    /// EWMA weight in (0, 1]. 0 = automatic `1 - exp(-1/C)`; -2 = `1 - exp(-10/C)`.
    /// Unset: 0.002 for RED (ns-3 `QW`), automatic for ARED.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub q_w: Option<f64>,
    /// 1 / max_p, the initial max_p (ns-3 `LInterm`, default 50); >= 1.
    pub l_interm: f64,
    /// Gentle RED: p rises from max_p to 1 between max_th and 2 max_th (ns default true).
    pub gentle: bool,
    /// Space drops out more evenly (`count p_b < 1` gives no drop) (ns default true).
    pub wait: bool,
    /// Mark ECN-capable packets instead of dropping them early (ns-3 `UseEcn`, default false).
    pub use_ecn: bool,
    /// Forced drops stay drops even for ECN-capable packets (ns-3 `UseHardDrop`, default true).
    pub use_hard_drop: bool,
    /// Bytes per packet for `C` and for byte mode (ns-3 `MeanPktSize`, default 500).
    pub mean_pkt_size: u32,
    /// Bytes per packet for the idle-time decay; 0 = `mean_pkt_size` (ns-3 `IdlePktSize`).
    pub idle_pkt_size: u32,
    /// ARED: target average queueing delay for the automatic thresholds (ns-3 `TargetDelay`).
    pub target_delay_ns: SimTime,
    /// ARED: least time between two changes of max_p (ns-3 `Interval`).
    pub interval_ns: SimTime,
    /// ARED: largest max_p, in (0, 1] (ns-3 `Top`).
    pub top: f64,
    /// ARED: smallest max_p, in [0, top]; 0 = automatic `min(0.01, 1/W, top)` (ns-3 `Bottom`).
    pub bottom: f64,
    /// ARED: cap of the additive increase `min(alpha, max_p/4)`, in (0, 1] (ns-3 `Alpha`);
    /// the paper recommends at most 0.01.
    pub alpha: f64,
    /// ARED: multiplicative decrease, in (0, 1) (ns-3 `Beta`); the paper recommends > 0.83.
    pub beta: f64,
    /// Adaptive family: the target band as fractions `[low, high]` of `max_th - min_th`
    /// above `min_th`, `0 <= low <= high <= 1`. Unset: the paper's band, [0.4, 0.6]
    /// for ARED and CARED (thesis Tables 3.1, 3.7), [0.48, 0.52] for Re-ARED and FARED (Table 3.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_band: Option<[f64; 2]>,
    /// Re-ARED (and CARED's aggressive decrease): `beta = 1 - g (T - avg)/(T - min_th)`, g in [0, 1]
    /// (thesis Algorithm 2: 0.17).
    pub reared_decrease_gain: f64,
    /// Re-ARED (and CARED's aggressive increase): `alpha = g max_p (avg - T)/T`, g >= 0
    /// (thesis Algorithm 2: 0.25).
    pub reared_increase_gain: f64,
    /// FARED's decrease gain, in [0, 1] (thesis Algorithm 3, Eq. 3.4.13: 0.0385).
    pub fared_decrease_gain: f64,
    /// FARED's increase gain, >= 0 (thesis Algorithm 3, Eq. 3.4.7: 0.042).
    pub fared_increase_gain: f64,
    /// Re-ARED and FARED: which `T` the ratio formulas use ("edges", default, or "midpoint").
    pub ratio_target: RatioTarget,
    /// CARED: compare the new average with the one at the previous arrival
    /// ("arrival", default) or at the previous change of max_p ("update").
    pub cared_trend: TrendReference,
    /// Feng: max_p is divided by this on entering avg < min_th, >= 1 (Feng et al. 1999: 3).
    pub feng_alpha: f64,
    /// Feng: max_p is multiplied by this on entering avg > max_th, >= 1 (Feng et al. 1999: 2).
    pub feng_beta: f64,
    /// NLRED: `p_b = scale max_p x^2`, > 0 (Zhou et al. 2006, ns-3: 1.5).
    pub nlred_scale: f64,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            mode: RedMode::Packets,
            min_th: None,
            max_th: None,
            q_w: None,
            l_interm: DEFAULT_L_INTERM,
            gentle: true,
            wait: true,
            use_ecn: false,
            use_hard_drop: true,
            mean_pkt_size: DEFAULT_MEAN_PKT_SIZE,
            idle_pkt_size: 0,
            target_delay_ns: DEFAULT_TARGET_DELAY_NS,
            interval_ns: DEFAULT_INTERVAL_NS,
            top: DEFAULT_TOP,
            bottom: DEFAULT_BOTTOM,
            alpha: DEFAULT_ALPHA,
            beta: DEFAULT_BETA,
            target_band: None,
            reared_decrease_gain: REARED_DECREASE_GAIN,
            reared_increase_gain: REARED_INCREASE_GAIN,
            fared_decrease_gain: fared::FARED_DECREASE_GAIN,
            fared_increase_gain: fared::FARED_INCREASE_GAIN,
            ratio_target: RatioTarget::Edges,
            cared_trend: TrendReference::Arrival,
            feng_alpha: DEFAULT_FENG_ALPHA,
            feng_beta: DEFAULT_FENG_BETA,
            nlred_scale: DEFAULT_NLRED_SCALE,
        }
    }
}

impl RedConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        let field = |name: &str| format!("{path}.{name}");
        self.validate_thresholds(path)?;
        if let Some(w) = self.q_w {
            validate_q_w(&field("q_w"), w)?;
        }
        if !(self.l_interm.is_finite() && self.l_interm >= 1.0) {
            return Err(ConfigError::new(field("l_interm"), format!("is 1/max_p and must be at least 1, got {}", self.l_interm)));
        }
        check::positive(&field("mean_pkt_size"), self.mean_pkt_size as f64)?;
        check::positive(&field("target_delay_ns"), self.target_delay_ns as f64)?;
        check::positive(&field("interval_ns"), self.interval_ns as f64)?;
        check::positive(&field("top"), self.top)?;
        check::in_range(&field("top"), self.top, 0.0, 1.0)?;
        check::in_range(&field("bottom"), self.bottom, 0.0, self.top)?;
        check::positive(&field("alpha"), self.alpha)?;
        check::in_range(&field("alpha"), self.alpha, 0.0, 1.0)?;
        check::open_unit(&field("beta"), self.beta)?;
        if let Some([lo, hi]) = self.target_band {
            check::in_range(&field("target_band"), lo, 0.0, 1.0)?;
            check::in_range(&field("target_band"), hi, lo, 1.0)?;
        }
        check::in_range(&field("reared_decrease_gain"), self.reared_decrease_gain, 0.0, 1.0)?;
        check::non_negative(&field("reared_increase_gain"), self.reared_increase_gain)?;
        check::in_range(&field("fared_decrease_gain"), self.fared_decrease_gain, 0.0, 1.0)?;
        check::non_negative(&field("fared_increase_gain"), self.fared_increase_gain)?;
        for (name, v) in [("feng_alpha", self.feng_alpha), ("feng_beta", self.feng_beta)] {
            if !(v.is_finite() && v >= 1.0) {
                return Err(ConfigError::new(field(name), format!("is a scaling factor of max_p and must be at least 1, got {v}")));
            }
        }
        check::positive(&field("nlred_scale"), self.nlred_scale)?;
        Ok(())
    }

    fn validate_thresholds(&self, path: &str) -> Result<(), ConfigError> {
        let allowed = "must be zero (automatic) or positive";
        for (name, v) in [("min_th", self.min_th), ("max_th", self.max_th)] {
            if let Some(v) = v {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(ConfigError::new(format!("{path}.{name}"), format!("{allowed}, got {v}")));
                }
            }
        }
        let explicit = |v: Option<f64>| v.filter(|&x| x > 0.0);
        match (explicit(self.min_th), explicit(self.max_th)) {
            (None, Some(_)) => Err(ConfigError::new(
                format!("{path}.max_th"),
                "an explicit max_th needs an explicit min_th (an automatic min_th depends on the link rate); give min_th too, or leave max_th unset for 3 x min_th",
            )),
            (Some(lo), Some(hi)) if lo > hi => {
                Err(ConfigError::new(format!("{path}.min_th"), format!("must not exceed max_th ({hi}), got {lo}")))
            }
            _ => Ok(()),
        }
    }
}

fn validate_q_w(field: &str, w: f64) -> Result<(), ConfigError> {
    if w == 0.0 || w == Q_W_FAST_CODE || (w.is_finite() && w > 0.0 && w <= 1.0) {
        return Ok(());
    }
    let why = if w == -1.0 { " (ns-2's -1 needs the link delay and is not supported)" } else { "" };
    Err(ConfigError::new(field, format!("must lie in (0, 1], or be 0 (automatic, 1 - exp(-1/C)) or -2 (1 - exp(-10/C)){why}, got {w}")))
}

/// Link capacity in packets of `pkt_size` bytes per second (ns `ptc`).
pub fn packet_rate(link_rate_bps: u64, pkt_size: u32) -> f64 {
    link_rate_bps as f64 / (8.0 * pkt_size as f64)
}

/// The ARED paper's weight `1 - exp(-k/C)` for a capacity of `c` packets/s
/// (k = 1: thesis Eq. 2.1.3; k = 10: ns-2 `q_weight_ -2`).
pub fn weight_for_capacity(c: f64, k: f64) -> f64 {
    -(-k / c).exp_m1()
}

/// The ARED paper's `min_th = max(5, target_delay C / 2)` in packets (thesis Eq. 2.1.4).
pub fn auto_min_th_pkts(target_delay_s: f64, c: f64) -> f64 {
    (target_delay_s * c / 2.0).max(AUTO_MIN_TH_FLOOR_PKTS)
}

/// `count p_b`-based spacing of drops (Floyd & Jacobson 1993, §7; ns `modify_p`).
/// `count` counts arrivals since the last drop, this one included.
pub fn spaced_probability(p_b: f64, count: f64, wait: bool) -> f64 {
    let cp = count * p_b;
    let p = if wait {
        if cp < 1.0 {
            0.0
        } else if cp < 2.0 {
            p_b / (2.0 - cp)
        } else {
            1.0
        }
    } else if cp < 1.0 {
        p_b / (1.0 - cp)
    } else {
        1.0
    };
    p.min(1.0)
}

/// Parameters after resolving defaults and automatic values; fixed for the run.
#[derive(Clone, Debug)]
struct Params {
    mode: RedMode,
    min_th: f64,
    max_th: f64,
    q_w: f64,
    gentle: bool,
    wait: bool,
    use_ecn: bool,
    use_hard_drop: bool,
    mean_pkt_size: u32,
    idle_pkt_size: u32,
    /// NLRED's factor; `None` for the linear curve.
    nlred_scale: Option<f64>,
}

impl Params {
    /// `automatic`: unset `min_th` and `q_w` are automatic (the adaptive family).
    fn resolve(cfg: &RedConfig, automatic: bool, link_rate_bps: u64) -> Params {
        let mean = cfg.mean_pkt_size.max(1);
        let c = packet_rate(link_rate_bps, mean);
        let unit = match cfg.mode {
            RedMode::Packets => 1.0,
            RedMode::Bytes => mean as f64,
        };
        let auto_min = || auto_min_th_pkts(time::to_secs(cfg.target_delay_ns), c) * unit;
        let min_th = match cfg.min_th {
            Some(v) if v > 0.0 => v,
            Some(_) => auto_min(),
            None if automatic => auto_min(),
            None => DEFAULT_MIN_TH_PKTS * unit,
        };
        // Validation rules out an explicit max_th below min_th; keep the order anyway.
        let max_th = match cfg.max_th {
            Some(v) if v > 0.0 => v.max(min_th),
            _ => AUTO_MAX_TH_FACTOR * min_th,
        };
        let q_w = match cfg.q_w {
            Some(w) if w > 0.0 => w.min(1.0),
            Some(w) if w == Q_W_FAST_CODE => weight_for_capacity(c, FAST_Q_W_PACKETS),
            Some(_) => weight_for_capacity(c, 1.0),
            None if automatic => weight_for_capacity(c, 1.0),
            None => DEFAULT_Q_W,
        };
        Params {
            mode: cfg.mode,
            min_th,
            max_th,
            q_w,
            gentle: cfg.gentle,
            wait: cfg.wait,
            use_ecn: cfg.use_ecn,
            use_hard_drop: cfg.use_hard_drop,
            mean_pkt_size: mean,
            idle_pkt_size: if cfg.idle_pkt_size == 0 { mean } else { cfg.idle_pkt_size },
            nlred_scale: None,
        }
    }
}

/// The adaptive family's pacing and bounds, with an automatic `bottom` resolved
/// (validation keeps an explicit one within `[0, top]`).
fn band_params(cfg: &RedConfig, link_rate_bps: u64) -> BandParams {
    let bottom = if cfg.bottom > 0.0 {
        cfg.bottom
    } else {
        // 1/W, W = C * RTT packets of mean size (ns-3; ns-2 fixes 1000-byte packets).
        let w = packet_rate(link_rate_bps, cfg.mean_pkt_size.max(1)) * AUTO_BOTTOM_RTT_S;
        DEFAULT_BOTTOM.min(1.0 / w).min(cfg.top)
    };
    BandParams { interval: cfg.interval_ns, top: cfg.top, bottom, trend_reference: cfg.cared_trend }
}

/// The `max_p` controller of `variant` for thresholds `min_th`, `max_th`.
fn controller(variant: RedVariant, cfg: &RedConfig, min_th: f64, max_th: f64, link_rate_bps: u64) -> MaxPControl {
    let ared = Ared { alpha: cfg.alpha, beta: cfg.beta };
    let reared = Ratio { decrease_gain: cfg.reared_decrease_gain, increase_gain: cfg.reared_increase_gain, target: cfg.ratio_target };
    let rule = match variant {
        RedVariant::Red | RedVariant::Nlred => return MaxPControl::Fixed,
        RedVariant::Feng => return MaxPControl::Feng(Feng::new(cfg.feng_alpha, cfg.feng_beta, min_th, max_th)),
        RedVariant::Ared => FamilyRule::Ared(ared),
        RedVariant::ReAred => FamilyRule::Ratio(reared),
        RedVariant::Fared => FamilyRule::Ratio(Ratio { decrease_gain: cfg.fared_decrease_gain, increase_gain: cfg.fared_increase_gain, ..reared }),
        RedVariant::Cared => FamilyRule::Cared(Cared { conservative: ared, aggressive: Ratio { target: RatioTarget::Edges, ..reared } }),
    };
    let band = TargetBand::between(min_th, max_th, cfg.target_band.unwrap_or(variant.default_band()));
    MaxPControl::Band(BandController::new(rule, band_params(cfg, link_rate_bps), band, min_th))
}

/// What the RED algorithm decided for one arrival, before ECN is considered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Signal {
    None,
    Early,
    Forced,
}

/// A queue discipline of the RED family.
pub struct Red {
    variant: RedVariant,
    p: Params,
    /// How max_p moves.
    control: MaxPControl,
    /// Current max_p (fixed at 1/l_interm for RED and NLRED).
    max_p: f64,
    /// Average queue, in the mode's unit.
    avg: f64,
    /// Arrivals since the last drop, this one included (ns `count`).
    count: u64,
    /// Bytes of those arrivals (ns `count_bytes`), for byte mode.
    count_bytes: u64,
    /// The previous arrival already found avg >= min_th with a nonempty queue (ns `old`).
    old: bool,
    /// When the link went (or goes) idle, if it has been idle since (ns `idle_`, `idletime_`).
    idle_since: Option<SimTime>,
}

impl Red {
    /// `variant`: which member of the family. `limit_pkts`: the queue's limit in
    /// packets. Neither the ARED paper nor ns-2/ns-3 let the buffer size enter
    /// the automatic thresholds, so it is not used; the hard limit is enforced
    /// by the `OutputQueue`. `link_rate_bps`: the link it feeds.
    pub fn new(cfg: RedConfig, variant: RedVariant, _limit_pkts: u32, link_rate_bps: u64) -> Red {
        let mut p = Params::resolve(&cfg, variant.is_band_family(), link_rate_bps);
        if variant == RedVariant::Nlred {
            p.nlred_scale = Some(cfg.nlred_scale);
        }
        let control = controller(variant, &cfg, p.min_th, p.max_th, link_rate_bps);
        let initial = 1.0 / cfg.l_interm.max(1.0);
        let max_p = match &control {
            MaxPControl::Band(c) => c.clamp(initial),
            _ => initial,
        };
        // ns starts idle at time 0 with an empty average.
        Red { variant, p, control, max_p, avg: 0.0, count: 0, count_bytes: 0, old: false, idle_since: Some(0) }
    }

    /// Average queue (packets, or bytes in byte mode).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// Current max_p.
    pub fn max_p(&self) -> f64 {
        self.max_p
    }

    /// Thresholds in use (after defaults and automatic values).
    pub fn thresholds(&self) -> (f64, f64) {
        (self.p.min_th, self.p.max_th)
    }

    /// EWMA weight in use.
    pub fn q_w(&self) -> f64 {
        self.p.q_w
    }

    /// The adaptive family's target band, or `None` for the other variants.
    pub fn target_band(&self) -> Option<TargetBand> {
        match &self.control {
            MaxPControl::Band(c) => Some(c.band()),
            _ => None,
        }
    }

    /// The queue in the mode's unit.
    fn measure(&self, view: &QueueView) -> f64 {
        match self.p.mode {
            RedMode::Packets => view.len_pkts as f64,
            RedMode::Bytes => view.len_bytes as f64,
        }
    }

    /// Packets of `idle_pkt_size` the link could have sent since it went idle
    /// (ns `m`); clears the idle state.
    fn idle_packets(&mut self, now: SimTime, link_rate_bps: u64) -> u64 {
        let Some(since) = self.idle_since.take() else {
            return 0;
        };
        let idle_ns = now.saturating_sub(since) as u128;
        let bits_per_pkt = 8 * self.p.idle_pkt_size as u128 * NS_PER_SEC as u128;
        (idle_ns * link_rate_bps as u128 / bits_per_pkt).min(u64::MAX as u128) as u64
    }

    /// EWMA update with `m` empty-queue arrivals folded in: `avg (1-w)^(m+1) + w q`.
    fn update_average(&mut self, q: f64, m: u64) {
        let keep = 1.0 - self.p.q_w;
        let decay = if m == 0 { keep } else { keep.powf(m as f64 + 1.0) };
        self.avg = self.avg * decay + self.p.q_w * q;
    }

    /// Beyond max_th (or 2 max_th when gentle) every arrival is a forced drop.
    fn in_forced_region(&self) -> bool {
        let limit = if self.p.gentle { 2.0 * self.p.max_th } else { self.p.max_th };
        self.avg >= limit
    }

    /// `p_b` at the current average (ns `calculate_p_new`), 1 in the forced region.
    fn base_probability(&self) -> f64 {
        let (min_th, max_th) = (self.p.min_th, self.p.max_th);
        let p = if self.avg < min_th {
            0.0
        } else if self.avg < max_th {
            let x = (self.avg - min_th) / (max_th - min_th);
            match self.p.nlred_scale {
                None => self.max_p * x,
                Some(scale) => scale * self.max_p * x * x,
            }
        } else if self.p.gentle {
            self.max_p + (1.0 - self.max_p) * (self.avg - max_th) / max_th
        } else {
            1.0
        };
        p.clamp(0.0, 1.0)
    }

    /// `p_a` for this arrival: spaced by `count`, scaled by size in byte mode (ns `modify_p`).
    fn arrival_probability(&self, p_b: f64, size: u32) -> f64 {
        let mean = self.p.mean_pkt_size as u64;
        let count = match self.p.mode {
            RedMode::Packets => self.count,
            // ns divides integers: whole mean-size packets since the last drop.
            RedMode::Bytes => self.count_bytes / mean,
        };
        let p = spaced_probability(p_b, count as f64, self.p.wait);
        match self.p.mode {
            RedMode::Bytes if p < 1.0 => (p * size as f64 / mean as f64).min(1.0),
            _ => p,
        }
    }

    fn reset_count(&mut self) {
        self.count = 0;
        self.count_bytes = 0;
    }

    /// The RED decision for an arrival that found `q` queued (ns `enque` drop logic).
    fn decide(&mut self, q: f64, size: u32, rng: &mut SimRng) -> Signal {
        if self.avg < self.p.min_th || q <= 1.0 {
            self.old = false;
            return Signal::None;
        }
        if self.in_forced_region() {
            return Signal::Forced;
        }
        if !self.old {
            // Just crossed min_th (or the queue just became nonempty): restart the count.
            self.old = true;
            self.count = 1;
            self.count_bytes = size as u64;
            return Signal::None;
        }
        let p_a = self.arrival_probability(self.base_probability(), size);
        if draw(rng, p_a) {
            self.reset_count();
            Signal::Early
        } else {
            Signal::None
        }
    }

    /// Turn the decision into a verdict, marking ECN-capable packets where allowed.
    fn apply(&mut self, signal: Signal, pkt: &mut Packet) -> Verdict {
        let can_mark = self.p.use_ecn && ecn_capable(pkt);
        match signal {
            Signal::None => Verdict::Pass,
            Signal::Early if can_mark => mark(pkt),
            Signal::Early => Verdict::Drop(DropKind::Early),
            Signal::Forced if can_mark && !self.p.use_hard_drop => mark(pkt),
            Signal::Forced => {
                // ns-2 resets the count after a forced drop (ns-3 does so only with Ns1Compat).
                self.reset_count();
                Verdict::Drop(DropKind::Forced)
            }
        }
    }
}

/// Whether the `OutputQueue` will drop this packet for lack of room (its own test, repeated).
fn will_overflow(view: &QueueView, pkt: &Packet) -> bool {
    match view.limit {
        QueueLimit::Packets(n) => view.len_pkts >= n,
        QueueLimit::Bytes(b) => view.len_bytes + pkt.size as u64 > b,
    }
}

impl QueueDiscipline for Red {
    fn name(&self) -> &'static str {
        self.variant.name()
    }

    /// The average is a mean of queue lengths, so it never exceeds the buffer,
    /// and every curve of the family is 0 up to min_th. Exact when the buffer
    /// is in the average's unit; None otherwise.
    fn never_acts(&self, bounds: &QueueBounds) -> Option<String> {
        let (held, unit) = match (self.p.mode, bounds.limit) {
            (RedMode::Packets, QueueLimit::Packets(p)) => (p as f64, "packets"),
            (RedMode::Bytes, QueueLimit::Bytes(b)) => (b as f64, "bytes"),
            _ => return None,
        };
        let min_th = self.p.min_th;
        let shown = if min_th.fract() == 0.0 { format!("{min_th:.0}") } else { format!("{min_th:.2}") };
        (min_th >= held).then(|| {
            format!(
                "min_th ({shown} {unit}) is not below the buffer ({held} {unit}): the average queue never exceeds it, so {} never drops or marks early",
                self.name()
            )
        })
    }

    fn on_arrival(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict {
        let q = self.measure(view);
        let m = self.idle_packets(now, view.link_rate_bps);
        let old = self.avg;
        self.update_average(q, m);
        self.max_p = self.control.on_average(old, self.avg, self.max_p, now);
        self.count += 1;
        self.count_bytes += pkt.size as u64;
        let signal = self.decide(q, pkt.size, rng);
        let verdict = self.apply(signal, pkt);
        if verdict == Verdict::Pass && will_overflow(view, pkt) {
            // An overflow is a forced drop to ns-2, which resets the count.
            self.reset_count();
        }
        verdict
    }

    fn on_departure(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime) -> Verdict {
        if view.len_pkts == 0 {
            // The link idles once this packet is on the wire.
            let tx = if view.link_rate_bps > 0 { time::tx_time(pkt.size, view.link_rate_bps) } else { 0 };
            self.idle_since = Some(now.saturating_add(tx));
        }
        Verdict::Pass
    }

    /// `p_b` at the current average (what ns-2 traces as `prob1_`): 0 below
    /// min_th, max_p at max_th, 1 in the forced region.
    fn probability(&self) -> f64 {
        self.base_probability()
    }

    fn average(&self) -> Option<f64> {
        Some(self.avg)
    }

    fn max_p(&self) -> Option<f64> {
        Some(self.max_p)
    }
}

#[cfg(test)]
mod tests;
