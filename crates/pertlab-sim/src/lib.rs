//! pertlab-sim: a packet-level discrete-event network simulator for
//! congestion-control and AQM research, built around PERT.
//!
//! A run is a pure function of (scenario, seed): [`scenario::Scenario`] in,
//! [`stats::Results`] out. See `engine` for the main loop and ARCHITECTURE.md
//! in the repository for the shape of the whole.

pub mod engine;
pub mod error;
pub mod external;
pub mod net;
pub mod packet;
pub mod packet_store;
pub mod pcap;
pub mod prefetch;
pub mod presets;
pub mod queue;
pub mod ring;
pub mod rng;
pub mod scenario;
pub mod stats;
pub mod tcp;
pub mod time;
pub mod traffic;
pub mod world;

pub use error::ConfigError;
pub use scenario::Scenario;
pub use stats::Results;

/// Validate and run a scenario.
pub fn run(scenario: &Scenario) -> Result<Results, ConfigError> {
    let mut world = world::World::build(scenario)?;
    world.run(&mut |_| true);
    Ok(world.into_results())
}
