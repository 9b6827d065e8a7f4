//! The `max_p` controllers that turn RED into its adaptive variants. RED
//! itself (average, probability curve, drop spacing, ECN) is the same queue for
//! all of them; only the rule that moves `max_p` differs.
//!
//! - The **adaptive-RED family** (ARED, Re-ARED, FARED, CARED; thesis §3.1 to
//!   §3.5) steers the average queue into a target band between the thresholds.
//!   They share everything but the step: the band, the `interval` pacing, and
//!   the bounds `[bottom, top]` are here ([`BandController`]); each step rule
//!   has its own file ([`super::ared`], [`super::reared`], [`super::fared`],
//!   [`super::cared`]).
//! - **Feng's self-configuring RED** ([`super::feng`]) scales `max_p` when the
//!   average crosses a threshold, at every arrival, without a band or interval.
//!
//! **When the family runs.** The papers write "every `interval` seconds"
//! (Linux `sch_red` uses a timer). ns-2 `REDQueue::updateMaxP` and ns-3
//! `RedQueueDisc::UpdateMaxP` instead check at each arrival, right after the
//! average is updated, whether `now > last_set + interval`, and move `last_set`
//! only when `max_p` actually changes. So `max_p` changes at most once per
//! interval, but as soon as the average leaves the band once the interval has
//! passed, and never while the queue sees no arrivals. We follow ns-2/ns-3
//! (lazy, at arrivals) for the whole family because the thesis's and the PERT
//! paper's runs are ns-2 (the thesis implemented Re-ARED, FARED and CARED in
//! ns-2's `updateMaxP`).
//!
//! **Bounds.** The thesis's pseudocode (Algorithms 1 to 4) tests `max_p >= 0.01`
//! before a decrease and `max_p <= 0.5` before an increase, so one step can
//! leave the range (0.0105 × 0.9 < 0.01), and a Re-ARED decrease far below the
//! band can even make `β` negative. We test strictly (`max_p > bottom`,
//! `max_p < top`, as ns-2) and clamp the result into `[bottom, top]`, the range
//! the thesis states ("varies `max_p` within a range of 1% to 50%"), for every
//! member of the family (spec ambiguity 3).

use serde::{Deserialize, Serialize};

use super::ared::Ared;
use super::cared::Cared;
use super::feng::Feng;
use super::reared::Ratio;
use crate::time::SimTime;

/// The band the controller steers the average queue into, in the unit of the
/// thresholds (packets, or bytes in byte mode).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetBand {
    pub low: f64,
    pub high: f64,
}

impl TargetBand {
    /// The band `[min_th + low (max_th - min_th), min_th + high (max_th - min_th)]`.
    pub fn between(min_th: f64, max_th: f64, [low, high]: [f64; 2]) -> TargetBand {
        let span = max_th - min_th;
        TargetBand { low: min_th + low * span, high: min_th + high * span }
    }

    /// The middle of the band.
    pub fn mid(&self) -> f64 {
        (self.low + self.high) / 2.0
    }
}

/// Which way the average moved, for CARED's "level of traffic load".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trend {
    Up,
    Down,
    Flat,
}

impl Trend {
    pub fn of(old: f64, new: f64) -> Trend {
        if new > old {
            Trend::Up
        } else if new < old {
            Trend::Down
        } else {
            Trend::Flat
        }
    }
}

/// What a step rule sees when the interval has passed and the average is
/// outside the band.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The freshly updated average (CARED's `newavg`).
    pub avg: f64,
    /// Its direction against the reference average (CARED's `newavg` vs `oldavg`).
    pub trend: Trend,
    pub min_th: f64,
    pub band: TargetBand,
}

/// A step rule of the adaptive-RED family: how `max_p` falls when the average
/// is below the band and rises when it is above. The result is clamped by the
/// [`BandController`].
pub trait StepRule {
    fn decrease(&self, s: &Sample, max_p: f64) -> f64;
    fn increase(&self, s: &Sample, max_p: f64) -> f64;
}

/// The step rules of the family.
#[derive(Clone, Debug)]
pub enum FamilyRule {
    Ared(Ared),
    /// Re-ARED, or FARED (the same rule with other gains, thesis §3.4.2).
    Ratio(Ratio),
    Cared(Cared),
}

impl FamilyRule {
    fn rule(&self) -> &dyn StepRule {
        match self {
            FamilyRule::Ared(r) => r,
            FamilyRule::Ratio(r) => r,
            FamilyRule::Cared(r) => r,
        }
    }
}

/// Which earlier average CARED compares the new one with (thesis Table 3.7:
/// `oldavg`, "previous avg"; spec ambiguity 2).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TrendReference {
    /// The average at the previous arrival (Eq. 2.1.1's `oldavg`; default).
    #[default]
    Arrival,
    /// The average when `max_p` last changed (the previous update).
    Update,
}

/// Pacing and bounds shared by the family.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BandParams {
    /// Least time between two changes of `max_p`.
    pub interval: SimTime,
    /// Largest `max_p`.
    pub top: f64,
    /// Smallest `max_p`.
    pub bottom: f64,
    pub trend_reference: TrendReference,
}

/// An adaptive-RED-family controller: a step rule inside the shared pacing.
#[derive(Clone, Debug)]
pub struct BandController {
    rule: FamilyRule,
    params: BandParams,
    band: TargetBand,
    min_th: f64,
    /// When `max_p` was last changed (ns-2 `lastset`); 0 at the start of the run.
    last_set: SimTime,
    /// The average when `max_p` last changed (0 at the start), for `TrendReference::Update`.
    avg_at_last_set: f64,
}

impl BandController {
    pub fn new(rule: FamilyRule, params: BandParams, band: TargetBand, min_th: f64) -> BandController {
        BandController { rule, params, band, min_th, last_set: 0, avg_at_last_set: 0.0 }
    }

    /// Called at each arrival with the average before and after its update;
    /// returns the new `max_p`.
    pub fn on_average(&mut self, old: f64, avg: f64, max_p: f64, now: SimTime) -> f64 {
        if now <= self.last_set.saturating_add(self.params.interval) {
            return max_p;
        }
        let reference = match self.params.trend_reference {
            TrendReference::Arrival => old,
            TrendReference::Update => self.avg_at_last_set,
        };
        let next = self.step(avg, Trend::of(reference, avg), max_p);
        if next != max_p {
            self.last_set = now;
            self.avg_at_last_set = avg;
        }
        next
    }

    /// One step: the rule below or above the band, nothing inside it (edges included).
    pub fn step(&self, avg: f64, trend: Trend, max_p: f64) -> f64 {
        let p = &self.params;
        let s = Sample { avg, trend, min_th: self.min_th, band: self.band };
        let next = if avg < self.band.low && max_p > p.bottom {
            self.rule.rule().decrease(&s, max_p)
        } else if avg > self.band.high && max_p < p.top {
            self.rule.rule().increase(&s, max_p)
        } else {
            return max_p;
        };
        // NaN cannot arise (validated parameters, finite averages); a negative
        // Re-ARED beta far below the band lands on bottom.
        next.clamp(p.bottom, p.top)
    }

    /// `max_p` kept within `[bottom, top]`, for the value the controller starts from.
    pub fn clamp(&self, max_p: f64) -> f64 {
        max_p.clamp(self.params.bottom, self.params.top)
    }

    pub fn band(&self) -> TargetBand {
        self.band
    }
}

/// How `max_p` moves, if at all.
#[derive(Clone, Debug)]
pub enum MaxPControl {
    /// RED and NLRED: `max_p = 1 / l_interm` throughout.
    Fixed,
    Band(BandController),
    Feng(Feng),
}

impl MaxPControl {
    /// Called at each arrival with the average before and after its update.
    pub fn on_average(&mut self, old: f64, avg: f64, max_p: f64, now: SimTime) -> f64 {
        match self {
            MaxPControl::Fixed => max_p,
            MaxPControl::Band(c) => c.on_average(old, avg, max_p, now),
            MaxPControl::Feng(c) => c.on_average(avg, max_p),
        }
    }
}
