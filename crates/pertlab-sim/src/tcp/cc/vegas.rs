//! TCP Vegas. INTERFACE STUB -- implementation in progress.
use super::{CcState, CongestionControl};
use crate::error::ConfigError;
use crate::rng::SimRng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct VegasConfig {}
impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {}
    }
}
impl VegasConfig {
    pub fn validate(&self, _path: &str) -> Result<(), ConfigError> {
        Ok(())
    }
}
pub struct Vegas;
impl Vegas {
    pub fn new(_cfg: VegasConfig) -> Vegas {
        Vegas
    }
}
impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }
    fn ssthresh(&mut self, _tp: &CcState) -> u32 {
        todo!()
    }
    fn cong_avoid(&mut self, _tp: &mut CcState, _acked: u32, _rng: &mut SimRng) {
        todo!()
    }
}
