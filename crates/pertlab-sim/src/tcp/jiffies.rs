//! Linux's clock: jiffies, ticks of 1 / `CONFIG_HZ` s, which the kernel's TCP
//! timers (the delayed ACK, `tcp/ack/linux.rs`) and CUBIC's growth
//! (`tcp/cc/cubic/linux.rs`) count in. One clock for both, in exact integer
//! arithmetic (a jiffy at 300 Hz is 3333333.3 ns), starting at 0 with the run
//! (Linux's starts at `INITIAL_JIFFIES`, which only tests wrap-around).

use crate::error::ConfigError;
use crate::time::{SimTime, NS_PER_SEC};

/// `CONFIG_HZ` values Linux can be built with (kernel/Kconfig.hz).
pub const LINUX_HZ_CHOICES: [u32; 4] = [100, 250, 300, 1000];

/// Debian's `CONFIG_HZ`, the testbed host's.
pub const DEFAULT_HZ: u32 = 250;

/// Jiffies, as Linux counts them.
pub type Jiffies = u64;

/// `hz` at `path` is one of [`LINUX_HZ_CHOICES`].
pub fn check_hz(path: &str, hz: u32) -> Result<(), ConfigError> {
    if LINUX_HZ_CHOICES.contains(&hz) {
        Ok(())
    } else {
        Err(ConfigError::new(format!("{path}.hz"), format!("must be one of Linux's CONFIG_HZ values 100, 250, 300, 1000, got {hz}")))
    }
}

/// A clock of `hz` jiffies per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinuxClock {
    hz: u32,
}

impl LinuxClock {
    /// A clock of `hz` (at least 1) jiffies per second.
    pub fn new(hz: u32) -> LinuxClock {
        LinuxClock { hz: hz.max(1) }
    }

    /// Jiffies per second (`HZ`).
    pub fn hz(self) -> Jiffies {
        Jiffies::from(self.hz)
    }

    /// `jiffies` at `now`: the ticks that have passed.
    pub fn at(self, now: SimTime) -> Jiffies {
        (u128::from(now) * u128::from(self.hz) / u128::from(NS_PER_SEC)) as Jiffies
    }

    /// `usecs_to_jiffies` of a duration: rounded up.
    pub fn up(self, t: SimTime) -> Jiffies {
        (u128::from(t) * u128::from(self.hz)).div_ceil(u128::from(NS_PER_SEC)) as Jiffies
    }

    /// The first instant at which the clock reads `j` (saturating).
    pub fn instant(self, j: Jiffies) -> SimTime {
        SimTime::try_from((u128::from(j) * u128::from(NS_PER_SEC)).div_ceil(u128::from(self.hz))).unwrap_or(SimTime::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    #[test]
    fn ticks_round_down_durations_round_up_and_instants_start_ticks() {
        let c = LinuxClock::new(250);
        assert_eq!((c.at(3_999_999), c.at(4 * NS_PER_MS), c.up(4 * NS_PER_MS), c.up(4 * NS_PER_MS + 1), c.instant(3)), (0, 1, 1, 2, 12 * NS_PER_MS));
        // 300 Hz: 10 ms is exactly 3 jiffies; jiffy 1 begins at 3333333.3 ns.
        let c = LinuxClock::new(300);
        assert_eq!((c.up(10 * NS_PER_MS), c.at(10 * NS_PER_MS), c.instant(1), c.at(c.instant(1)), c.at(c.instant(1) - 1)), (3, 3, 3_333_334, 1, 0));
        for j in [0, 1, 7, 299, 300, 1_000_001] {
            assert_eq!(c.at(c.instant(j)), j);
        }
    }

    #[test]
    fn hz_outside_linuxs_choices_is_refused_by_name() {
        assert!(check_hz("flows[0].cc", 250).is_ok());
        assert_eq!(check_hz("flows[0].cc", 200).unwrap_err().field, "flows[0].cc.hz");
    }
}
