//! PERT/RED. INTERFACE STUB -- implementation in progress.
use super::{CcState, CongestionControl};
use crate::error::ConfigError;
use crate::rng::SimRng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PertConfig {}
impl Default for PertConfig {
    fn default() -> Self {
        PertConfig {}
    }
}
impl PertConfig {
    pub fn validate(&self, _path: &str) -> Result<(), ConfigError> {
        Ok(())
    }
}
pub struct Pert;
impl Pert {
    pub fn new(_cfg: PertConfig) -> Pert {
        Pert
    }
}
impl CongestionControl for Pert {
    fn name(&self) -> &'static str {
        "pert"
    }
    fn ssthresh(&mut self, _tp: &CcState) -> u32 {
        todo!()
    }
    fn cong_avoid(&mut self, _tp: &mut CcState, _acked: u32, _rng: &mut SimRng) {
        todo!()
    }
}
