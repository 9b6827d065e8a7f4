//! Simulated time: integer nanoseconds since the start of the run.
//!
//! Integer time keeps a run exactly reproducible (no floating-point drift when
//! many small intervals are added) and makes event ordering total.
//! 2^64 ns is about 584 years of simulated time, far beyond any scenario.

/// A point in simulated time, or a duration, in nanoseconds.
pub type SimTime = u64;

pub const NS_PER_US: SimTime = 1_000;
pub const NS_PER_MS: SimTime = 1_000_000;
pub const NS_PER_SEC: SimTime = 1_000_000_000;

/// Seconds (as used in reports) to simulated time, rounded to the nearest nanosecond.
pub fn from_secs(s: f64) -> SimTime {
    (s * NS_PER_SEC as f64).round() as SimTime
}

/// Simulated time to seconds, for reports and for formulas written in seconds.
pub fn to_secs(t: SimTime) -> f64 {
    t as f64 / NS_PER_SEC as f64
}

/// Time to serialise `bytes` onto a link of `rate_bps` (> 0), rounded up to whole
/// nanoseconds so that a link never sends faster than its rate; at most
/// `SimTime::MAX` (4 GB at 1 bit/s would take longer).
pub fn tx_time(bytes: u32, rate_bps: u64) -> SimTime {
    let bits = bytes as u128 * 8 * NS_PER_SEC as u128;
    bits.div_ceil(rate_bps as u128).min(SimTime::MAX as u128) as SimTime
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_of_a_full_segment_at_150_mbps() {
        // 1500 B * 8 / 150e6 = 80 us exactly.
        assert_eq!(tx_time(1500, 150_000_000), 80_000);
        // 1 byte at 3 bit/s: 2.666.. s, rounded up.
        assert_eq!(tx_time(1, 3), 2_666_666_667);
        // 2^32 - 1 bytes at 1 bit/s: 3.4e19 ns, more than a SimTime holds.
        assert_eq!(tx_time(u32::MAX, 1), SimTime::MAX);
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(from_secs(0.06), 60 * NS_PER_MS);
        assert_eq!(to_secs(from_secs(12.5)), 12.5);
    }
}
