//! CoDel, Controlled Delay (RFC 8289, Nichols, Jacobson, McGregor, Iyengar
//! 2018), following the RFC's pseudocode (§5): the decision is taken when a
//! packet leaves the queue, from its sojourn time.
//!
//! ```text
//! ok_to_drop: sojourn >= TARGET and more than MAXPACKET bytes remain queued,
//!             continuously for at least INTERVAL (first_above_time)
//! not dropping, ok_to_drop : drop, enter the dropping state;
//!                            count = 1, or count - lastcount if the last
//!                            dropping state ended less than 16 INTERVAL ago
//!                            and that difference is > 1;
//!                            drop_next = now + INTERVAL / sqrt(count)
//! dropping, not ok_to_drop : leave the dropping state
//! dropping, now >= drop_next: drop, count += 1, and, if the next packet is
//!                            still ok_to_drop, drop_next += INTERVAL / sqrt(count)
//! ```
//!
//! **Per packet.** The RFC's `dequeue()` may drop several packets and dequeue
//! the next one in one call; here the `OutputQueue` offers the packets one at a
//! time at the same instant until one passes, so the state machine remembers
//! where the RFC's loop stands ([`Pending`]): after the drop that enters the
//! dropping state the next packet is delivered unconditionally (its
//! `ok_to_drop` still updates `first_above_time`), and after a drop inside the
//! state the next packet decides whether `drop_next` advances. A drop that
//! leaves the queue empty is the RFC's dequeue of an empty queue
//! (`first_above_time = 0`, and inside the dropping state the state ends).
//!
//! **ECN.** With `use_ecn`, an ECN-capable packet that would be dropped is
//! marked CE and delivered instead (RFC 8289 §5; as Linux `codel_dequeue`,
//! the marked packet ends the loop: `count` and `drop_next` advance as for a
//! drop).
//!
//! **Left out:** the RFC's §5.5 Newton-step approximation of `1/sqrt(count)`
//! (we compute it exactly) and FQ-CoDel's flow queues.

use serde::{Deserialize, Serialize};

use super::{ecn_capable, mark, DropKind, QueueBounds, QueueDiscipline, QueueView, Verdict};
use crate::error::{check, ConfigError};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::time::{SimTime, NS_PER_MS, NS_PER_SEC};

/// TARGET, the acceptable standing queue delay: 5 ms (RFC 8289 §4.3).
pub const DEFAULT_TARGET_NS: SimTime = 5 * NS_PER_MS;
/// INTERVAL, of the order of a worst-case RTT: 100 ms (RFC 8289 §4.4).
pub const DEFAULT_INTERVAL_NS: SimTime = 100 * NS_PER_MS;
/// MAXPACKET: no drop while at most one MTU is queued: 1500 bytes (RFC 8289 §5.1; ns-3 `MinBytes`).
pub const DEFAULT_MAX_PACKET_BYTES: u32 = 1500;
/// A new dropping state resumes from the last `count` if the previous one ended
/// less than this many intervals ago (RFC 8289 §5.4: 16).
pub const RESUME_INTERVALS: u64 = 16;

/// CoDel parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CodelConfig {
    /// TARGET, ns (5 ms).
    pub target_ns: SimTime,
    /// INTERVAL, ns (100 ms).
    pub interval_ns: SimTime,
    /// MAXPACKET, bytes (1500).
    pub max_packet_bytes: u32,
    /// Mark ECN-capable packets instead of dropping them (default false).
    pub use_ecn: bool,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig { target_ns: DEFAULT_TARGET_NS, interval_ns: DEFAULT_INTERVAL_NS, max_packet_bytes: DEFAULT_MAX_PACKET_BYTES, use_ecn: false }
    }
}

impl CodelConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check::positive(&format!("{path}.target_ns"), self.target_ns as f64)?;
        check::positive(&format!("{path}.interval_ns"), self.interval_ns as f64)?;
        Ok(())
    }
}

/// Where the RFC's `dequeue()` stands when the next packet is offered at the same instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pending {
    /// A fresh `dequeue()`.
    None,
    /// Just entered the dropping state: the next packet is delivered.
    Entered,
    /// Just dropped inside the dropping state: the next packet decides whether `drop_next` advances.
    Dropped,
}

/// The CoDel queue discipline.
pub struct Codel {
    cfg: CodelConfig,
    /// When the sojourn time will have been above target for an interval (`first_above_time_`; None = 0).
    first_above: Option<SimTime>,
    dropping: bool,
    /// Time of the next drop in the dropping state (`drop_next_`).
    drop_next: SimTime,
    /// Drops in the current dropping state (`count_`).
    count: u64,
    /// `count` when the last dropping state was entered (`lastcount_`).
    lastcount: u64,
    pending: Pending,
}

impl Codel {
    pub fn new(cfg: CodelConfig) -> Codel {
        Codel { cfg, first_above: None, dropping: false, drop_next: 0, count: 0, lastcount: 0, pending: Pending::None }
    }

    /// RFC 8289 `control_law`: `t + INTERVAL / sqrt(count)`.
    fn control_law(&self, t: SimTime, count: u64) -> SimTime {
        t.saturating_add((self.cfg.interval_ns as f64 / (count.max(1) as f64).sqrt()).round() as SimTime)
    }

    /// RFC 8289 `dodequeue`'s bookkeeping for a packet of sojourn time `sojourn`
    /// leaving `bytes_left` queued: whether it may be dropped.
    fn ok_to_drop(&mut self, sojourn: SimTime, bytes_left: u64, now: SimTime) -> bool {
        if sojourn < self.cfg.target_ns || bytes_left <= self.cfg.max_packet_bytes as u64 {
            self.first_above = None;
            return false;
        }
        match self.first_above {
            None => {
                self.first_above = Some(now.saturating_add(self.cfg.interval_ns));
                false
            }
            Some(t) => now >= t,
        }
    }

    /// Drop or mark `pkt`; `Drop` if it was dropped. A drop that empties the
    /// queue is followed, in the RFC, by a dequeue that finds it empty.
    fn signal(&mut self, view: &QueueView, pkt: &mut Packet, next: Pending) -> Verdict {
        if self.cfg.use_ecn && ecn_capable(pkt) {
            return mark(pkt);
        }
        if view.len_pkts == 0 {
            self.first_above = None;
            if next == Pending::Dropped {
                self.dropping = false;
            }
        } else {
            self.pending = next;
        }
        Verdict::Drop(DropKind::Early)
    }

    /// The dropping state at `now` with a packet that is `ok` to drop.
    fn drop_if_due(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime) -> Verdict {
        if now < self.drop_next {
            return Verdict::Pass;
        }
        self.count += 1;
        let verdict = self.signal(view, pkt, Pending::Dropped);
        if verdict == Verdict::Pass {
            // Marked: the loop ends with this packet; the schedule advances at once.
            self.drop_next = self.control_law(self.drop_next, self.count);
        }
        verdict
    }

    /// Enter the dropping state with this packet.
    fn enter(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime) -> Verdict {
        let verdict = self.signal(view, pkt, Pending::Entered);
        self.dropping = true;
        let delta = self.count.saturating_sub(self.lastcount);
        let recent = now.saturating_sub(self.drop_next) < RESUME_INTERVALS * self.cfg.interval_ns;
        self.count = if delta > 1 && recent { delta } else { 1 };
        self.drop_next = self.control_law(now, self.count);
        self.lastcount = self.count;
        verdict
    }
}

impl QueueDiscipline for Codel {
    fn name(&self) -> &'static str {
        "codel"
    }

    /// RFC 8289's state: `dropping` (0 or 1), `count`, `drop_next_s` (None
    /// outside the dropping state), `first_above_s` (None while the sojourn
    /// time is not above target).
    fn variables(&self) -> Vec<(&'static str, Option<f64>)> {
        let s = |t: SimTime| t as f64 / NS_PER_SEC as f64;
        vec![
            ("dropping", Some(f64::from(u8::from(self.dropping)))),
            ("count", Some(self.count as f64)),
            ("drop_next_s", self.dropping.then(|| s(self.drop_next))),
            ("first_above_s", self.first_above.map(s)),
        ]
    }

    /// CoDel drops only a packet whose sojourn time reached TARGET, so a buffer that drains
    /// in less ([`QueueBounds::max_sojourn_ns`]) never lets it act. Exact where the largest
    /// packet is known; otherwise nothing is said.
    fn never_acts(&self, bounds: &QueueBounds) -> Option<String> {
        let longest = bounds.max_sojourn_ns()?;
        (longest < self.cfg.target_ns).then(|| {
            format!(
                "{}, is below target ({:.3} ms): no sojourn time reaches it, so codel never drops or marks",
                bounds.longest_wait(longest),
                self.cfg.target_ns as f64 / NS_PER_MS as f64
            )
        })
    }

    fn on_arrival(&mut self, _view: &QueueView, _pkt: &mut Packet, _now: SimTime, _rng: &mut SimRng) -> Verdict {
        Verdict::Pass
    }

    fn on_departure(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime) -> Verdict {
        let ok = self.ok_to_drop(now.saturating_sub(pkt.enq_ts), view.len_bytes, now);
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::Entered => Verdict::Pass,
            Pending::Dropped if !ok => {
                self.dropping = false;
                Verdict::Pass
            }
            Pending::Dropped => {
                self.drop_next = self.control_law(self.drop_next, self.count);
                self.drop_if_due(view, pkt, now)
            }
            Pending::None if self.dropping && !ok => {
                self.dropping = false;
                Verdict::Pass
            }
            Pending::None if self.dropping => self.drop_if_due(view, pkt, now),
            Pending::None if ok => self.enter(view, pkt, now),
            Pending::None => Verdict::Pass,
        }
    }
}

#[cfg(test)]
mod tests;
