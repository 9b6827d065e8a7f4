//! Nothing but the benchmarks under `benches/` (criterion): a package needs a target of its own.
