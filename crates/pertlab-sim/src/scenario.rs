//! STUB
pub struct Scenario;
