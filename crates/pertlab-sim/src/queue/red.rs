//! RED and Adaptive RED. INTERFACE STUB -- implementation in progress.
pub mod ared;

use super::{QueueDiscipline, QueueView, Verdict};
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RedConfig {}
impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {}
    }
}
impl RedConfig {
    pub fn validate(&self, _path: &str) -> Result<(), ConfigError> {
        Ok(())
    }
}
pub struct Red;
impl Red {
    /// `adaptive`: Adaptive RED (max_p adapted every interval). `limit_pkts`: the
    /// queue's limit in packets (for automatic thresholds). `link_rate_bps`: the link it feeds.
    pub fn new(_cfg: RedConfig, _adaptive: bool, _limit_pkts: u32, _link_rate_bps: u64) -> Red {
        Red
    }
}
impl QueueDiscipline for Red {
    fn name(&self) -> &'static str {
        "red"
    }
    fn on_arrival(&mut self, _view: &QueueView, _pkt: &mut Packet, _now: SimTime, _rng: &mut SimRng) -> Verdict {
        todo!()
    }
}
