//! STUB
use crate::error::ConfigError;
use crate::scenario::Scenario;
use crate::stats::Results;
pub struct World;
impl World {
    pub fn build(_s: &Scenario) -> Result<World, ConfigError> { todo!() }
    pub fn run(&mut self, _progress: &mut dyn FnMut(u64) -> bool) {}
    pub fn results(&self) -> Results { todo!() }
}
