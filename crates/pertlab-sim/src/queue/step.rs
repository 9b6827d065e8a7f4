//! Step marking on the instantaneous queue: the switch half of DCTCP
//! (Alizadeh et al., SIGCOMM 2010, Section 3.1; RFC 8257 Section 3.1). An
//! ECN-capable packet that arrives when `K` or more packets are queued is
//! marked CE; nothing is dropped early, so a packet that is not ECN-capable
//! passes and only the buffer limit drops it.
//!
//! Left out: marking on dequeue and byte-based thresholds (the paper's switches
//! mark on arrival, in packets); RED configured with min_th = max_th = K, which
//! Linux deployments use, behaves the same on ECT traffic.

use super::{ecn_capable, mark, QueueDiscipline, QueueView, Verdict};
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Marking threshold `K` in packets: 65, the DCTCP paper's setting for 10 Gbps
/// ports (Section 4; Section 3.3's guideline K > C x RTT / 7).
pub const DEFAULT_K_PKTS: u32 = 65;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct StepConfig {
    /// Mark ECN-capable arrivals while at least this many packets are queued
    /// (`K`); at least 1. Default 65.
    pub k_pkts: u32,
}

impl Default for StepConfig {
    fn default() -> Self {
        StepConfig { k_pkts: DEFAULT_K_PKTS }
    }
}

impl StepConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        if self.k_pkts == 0 {
            return Err(ConfigError::new(
                format!("{path}.k_pkts"),
                "must be at least 1 packet: K = 0 would mark every ECN-capable packet, even into an empty queue",
            ));
        }
        Ok(())
    }
}

pub struct Step {
    k: u32,
}

impl Step {
    pub fn new(cfg: &StepConfig) -> Step {
        Step { k: cfg.k_pkts }
    }
}

impl QueueDiscipline for Step {
    fn name(&self) -> &'static str {
        "step"
    }

    fn on_arrival(&mut self, view: &QueueView, pkt: &mut Packet, _now: SimTime, _rng: &mut SimRng) -> Verdict {
        if view.len_pkts >= self.k && ecn_capable(pkt) {
            mark(pkt)
        } else {
            Verdict::Pass
        }
    }

    fn probability(&self) -> f64 {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, PacketKind};
    use crate::queue::QueueLimit;
    use crate::rng::from_seed;

    #[test]
    fn marks_ect_arrivals_at_or_above_k_and_never_drops() {
        let mut q = Step::new(&StepConfig { k_pkts: 3 });
        let mut rng = from_seed(1);
        let view = |len_pkts| QueueView { len_pkts, len_bytes: 0, limit: QueueLimit::Packets(100), link_rate_bps: 1 };
        for (len, ecn, out) in [(2, Ecn::Ect, Ecn::Ect), (3, Ecn::Ect, Ecn::Ce), (50, Ecn::Ect, Ecn::Ce), (50, Ecn::NotEct, Ecn::NotEct)] {
            let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1500);
            p.ecn = ecn;
            assert_eq!(q.on_arrival(&view(len), &mut p, 0, &mut rng), Verdict::Pass);
            assert_eq!(p.ecn, out, "queue {len}");
        }
        assert_eq!(StepConfig { k_pkts: 0 }.validate("links[0].queue.step").unwrap_err().field, "links[0].queue.step.k_pkts");
    }
}
