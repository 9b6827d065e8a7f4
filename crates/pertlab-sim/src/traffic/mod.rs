//! Traffic sources other than TCP's bulk data (which lives in the TCP sender).

pub mod driven;
pub mod udp;
pub mod video;
pub mod web;
