//! The UDP sources of a scenario: open-loop packets at a mean rate, with the
//! arrival processes (CBR, Poisson, Pareto gaps, Pareto on/off) and packet
//! sizes of the source documents; the generators are in `traffic::udp`.

use serde::{Deserialize, Serialize};

use crate::error::{check, ConfigError};
use crate::time::{SimTime, NS_PER_SEC};

/// A UDP source: open-loop packets at a mean rate.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    pub src: String,
    pub dst: String,
    /// Mean offered load in bits/s (of the sizes on the wire).
    pub rate_bps: u64,
    /// Packet size, or mean size, in bytes.
    pub packet_size: u32,
    #[serde(default = "UdpSpec::default_arrivals")]
    pub arrivals: Arrivals,
    #[serde(default = "UdpSpec::default_sizes")]
    pub sizes: SizeDist,
    /// ECN-capable (ECT) datagrams, so that an ECN-enabled AQM marks them.
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub start_ns: SimTime,
    #[serde(default)]
    pub stop_ns: Option<SimTime>,
    /// Service class of the datagrams at multi-class queues (0 = lowest priority).
    #[serde(default)]
    pub class: u8,
    /// Shape of the Pareto gaps (arrivals "pareto"); the thesis's 1.9 (section 5.4).
    #[serde(default = "UdpSpec::default_pareto_shape")]
    pub pareto_shape: f64,
    /// Mean burst and idle lengths of arrivals "pareto_onoff" (ns-2's
    /// `burst_time_` and `idle_time_` defaults, 500 ms each).
    #[serde(default = "UdpSpec::default_on_off_ns")]
    pub burst_ns: SimTime,
    #[serde(default = "UdpSpec::default_on_off_ns")]
    pub idle_ns: SimTime,
}

impl UdpSpec {
    fn default_pareto_shape() -> f64 {
        1.9
    }
    fn default_on_off_ns() -> SimTime {
        500 * NS_PER_SEC / 1000
    }
    fn default_arrivals() -> Arrivals {
        Arrivals::Poisson
    }
    fn default_sizes() -> SizeDist {
        SizeDist::Fixed
    }
}

impl UdpSpec {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check::positive(&format!("{path}.rate_bps"), self.rate_bps as f64)?;
        check::positive(&format!("{path}.packet_size"), self.packet_size as f64)?;
        // The shortest Pareto gap is mean (a - 1) / a: a >= 1.1 keeps a source within 11 times its mean rate.
        check::in_range(&format!("{path}.pareto_shape"), self.pareto_shape, 1.1, 100.0)?;
        for (field, v) in [("burst_ns", self.burst_ns), ("idle_ns", self.idle_ns)] {
            if !(1..=SimTime::MAX / 4).contains(&v) {
                return Err(ConfigError::new(format!("{path}.{field}"), format!("must lie in [1, {}] ns, got {v}", SimTime::MAX / 4)));
            }
        }
        // Packets of a source are spaced by whole nanoseconds, the clock's resolution: the
        // highest rate a source sends at (its mean, or its peak for Pareto sources) must allow that.
        let size = match self.sizes {
            SizeDist::Mix => crate::traffic::udp::mix_mean_size() as u64,
            _ => u64::from(self.packet_size),
        };
        let most = size.saturating_mul(8 * NS_PER_SEC);
        let (peak, what) = match self.arrivals {
            Arrivals::Cbr | Arrivals::Poisson => (1.0, String::new()),
            Arrivals::CbrRandom => (2.0, " x 2, its peak,".to_string()),
            Arrivals::Pareto => (self.pareto_shape / (self.pareto_shape - 1.0), " x a / (a - 1), its peak,".to_string()),
            Arrivals::ParetoOnOff => ((self.burst_ns as f64 + self.idle_ns as f64) / self.burst_ns as f64, " x (burst + idle) / burst, its peak,".to_string()),
        };
        if self.rate_bps as f64 * peak > most as f64 {
            return Err(ConfigError::new(
                format!("{path}.rate_bps"),
                format!("must be at most {most} bit/s{what} (one {size}-byte packet per nanosecond, the clock's resolution), got {}", self.rate_bps),
            ));
        }
        if let Some(stop) = self.stop_ns {
            if stop < self.start_ns {
                return Err(ConfigError::new(format!("{path}.stop_ns"), format!("must not be before start_ns ({}), got {stop}", self.start_ns)));
            }
        }
        Ok(())
    }
}

/// Arrival process of a UDP source.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Constant bit rate: packets evenly spaced.
    Cbr,
    /// ns-2's CBR with `random_ 1` (`CBR_Traffic::next_interval`): each gap is
    /// the constant interval plus zero-mean uniform noise, interval x (1 + U(-0.5,
    /// 0.5)), so sources of one rate do not stay in phase. The TCP evaluation
    /// suite's voice and streaming sources (Tahiliani 2013, Section 4.4.2).
    #[serde(rename = "cbr_random")]
    CbrRandom,
    /// Poisson: exponential inter-arrival times.
    Poisson,
    /// Pareto inter-arrival times of shape `pareto_shape` (Hua's thesis section
    /// 5.4 source, read as Pareto gaps as in Dovrolis et al.: spec section 4.4).
    Pareto,
    /// ns-2's Pareto on/off source (Application/Traffic/Pareto; the other
    /// reading of the thesis's source, spec section 4.4): bursts and idle
    /// periods of Pareto lengths (shape `pareto_shape`, means `burst_ns` and
    /// `idle_ns`), packets evenly spaced at the peak rate
    /// `rate_bps` (burst + idle) / burst during a burst.
    #[serde(rename = "pareto_onoff")]
    ParetoOnOff,
}

/// Packet sizes of a UDP source.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SizeDist {
    Fixed,
    /// Exponential with mean `packet_size` (rounded, at least 1 byte).
    Exponential,
    /// Hua's thesis section 5.4 mix: 40 % 100 B, 40 % 500 B, 20 % 1000 B (mean
    /// 440 B; `packet_size` is not used).
    Mix,
}
