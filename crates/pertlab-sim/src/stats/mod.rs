//! STUB
pub struct Results;
