//! Open-loop UDP source: constant-rate (evenly spaced, or dithered as ns-2's
//! `random_ 1`), Poisson or Pareto packets; fixed,
//! exponentially distributed or mixed sizes. Used for queueing checks (M/M/1),
//! as unresponsive background load, and as the Pareto sources of Hua's thesis
//! Chapter 5 (section 5.4: Pareto gaps of shape 1.9, the 100/500/1000-byte mix).

use rand::Rng;
use rand_distr::{Distribution, Exp};

use crate::packet::{Ecn, Packet, PacketKind};
use crate::rng::SimRng;
use crate::scenario::{Arrivals, SizeDist};
use crate::time::{SimTime, NS_PER_SEC};

/// Hua's thesis section 5.4 packet-size mix: (bytes, probability), the same
/// for every class: 40 % 100 B, 40 % 500 B, 20 % 1000 B.
pub const MIX_SIZES: [(u32, f64); 3] = [(100, 0.4), (500, 0.4), (1000, 0.2)];

/// The mean of [`MIX_SIZES`], bytes.
pub fn mix_mean_size() -> f64 {
    MIX_SIZES.iter().map(|&(s, p)| s as f64 * p).sum()
}

/// Per-class rates, bits/s, that load a link of `link_rate_bps` to a total
/// utilization `utilization` split among classes by `split` (fractions summing
/// to 1): Hua's thesis section 5.4 ("per-class rates are set to meet the total
/// load U and the class load split").
pub fn class_rates(link_rate_bps: u64, utilization: f64, split: &[f64]) -> Result<Vec<u64>, crate::error::ConfigError> {
    use crate::error::{check, ConfigError};
    check::positive("utilization", utilization)?;
    for (i, &f) in split.iter().enumerate() {
        check::non_negative(&format!("split[{i}]"), f)?;
    }
    let sum: f64 = split.iter().sum();
    if split.is_empty() || (sum - 1.0).abs() > 1e-6 {
        return Err(ConfigError::new("split", format!("the class load fractions must sum to 1, got {sum} from {} classes", split.len())));
    }
    Ok(split.iter().map(|f| (link_rate_bps as f64 * utilization * f).round() as u64).collect())
}

/// Counters of a UDP source and its sink.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UdpCounters {
    pub sent: u64,
    pub sent_bytes: u64,
    pub received: u64,
    pub received_bytes: u64,
    pub dropped: u64,
}

pub struct UdpSource {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    pub stop: Option<SimTime>,
    arrivals: Arrivals,
    sizes: SizeDist,
    ecn: bool,
    mean_size: u32,
    /// Service class of its datagrams.
    class: u8,
    /// Mean time between packets, ns (mean size in bits / rate).
    mean_gap_ns: f64,
    /// Shape of Pareto gaps (and of on/off periods).
    pareto_shape: f64,
    /// Mean burst and idle lengths of the on/off source, ns.
    burst_ns: f64,
    idle_ns: f64,
    /// Packets left in the current burst of the on/off source.
    burst_left: u64,
    rng: SimRng,
    pub counters: UdpCounters,
}

impl UdpSource {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: u32,
        src: u32,
        dst: u32,
        rate_bps: u64,
        mean_size: u32,
        arrivals: Arrivals,
        sizes: SizeDist,
        ecn: bool,
        stop: Option<SimTime>,
        rng: SimRng,
    ) -> Self {
        let mean_bytes = if sizes == SizeDist::Mix { mix_mean_size() } else { mean_size as f64 };
        let mean_gap_ns = mean_bytes * 8.0 * NS_PER_SEC as f64 / rate_bps as f64;
        UdpSource {
            id,
            src,
            dst,
            stop,
            arrivals,
            sizes,
            ecn,
            mean_size,
            class: 0,
            mean_gap_ns,
            pareto_shape: 1.9,
            burst_ns: 0.0,
            idle_ns: 0.0,
            burst_left: 0,
            rng,
            counters: UdpCounters::default(),
        }
    }

    /// Pareto gaps (arrivals "pareto") of shape `shape` (> 1).
    pub fn with_pareto_shape(mut self, shape: f64) -> Self {
        self.pareto_shape = shape;
        self
    }

    /// On/off bursts and idle periods of mean lengths `burst_ns`, `idle_ns` (arrivals "pareto_onoff").
    pub fn with_on_off(mut self, burst_ns: SimTime, idle_ns: SimTime) -> Self {
        self.burst_ns = burst_ns as f64;
        self.idle_ns = idle_ns as f64;
        self
    }

    /// A Pareto length of shape `pareto_shape` and mean `mean`: scale
    /// x_m = mean (a - 1) / a, inverse transform x_m (1 - u)^(-1/a).
    fn pareto(&mut self, mean: f64) -> f64 {
        let a = self.pareto_shape;
        let u: f64 = self.rng.gen();
        mean * (a - 1.0) / a * (1.0 - u).powf(-1.0 / a)
    }

    /// Its datagrams belong to service class `class`.
    pub fn with_class(mut self, class: u8) -> Self {
        self.class = class;
        self
    }

    /// The next packet to send.
    pub fn next_packet(&mut self) -> Packet {
        let size = match self.sizes {
            SizeDist::Fixed => self.mean_size,
            SizeDist::Exponential => {
                let draw: f64 = Exp::new(1.0 / self.mean_size as f64).map(|e| e.sample(&mut self.rng)).unwrap_or(self.mean_size as f64);
                (draw.round() as u32).max(1)
            }
            SizeDist::Mix => {
                let u: f64 = self.rng.gen();
                let mut acc = 0.0;
                MIX_SIZES
                    .iter()
                    .find(|&&(_, p)| {
                        acc += p;
                        u < acc
                    })
                    .map_or(MIX_SIZES[MIX_SIZES.len() - 1].0, |&(s, _)| s)
            }
        };
        let mut pkt = Packet::new(PacketKind::Udp, self.id, self.src, self.dst, size);
        pkt.seq = self.counters.sent as u32;
        pkt.class = self.class;
        if self.ecn {
            pkt.ecn = Ecn::Ect;
        }
        self.counters.sent += 1;
        self.counters.sent_bytes += size as u64;
        pkt
    }

    /// Time until the next packet after one just sent.
    pub fn next_gap(&mut self) -> SimTime {
        match self.arrivals {
            Arrivals::Cbr => self.mean_gap_ns.round().max(1.0) as SimTime,
            Arrivals::CbrRandom => {
                let noise: f64 = self.rng.gen_range(-0.5..0.5);
                (self.mean_gap_ns * (1.0 + noise)).round().max(1.0) as SimTime
            }
            Arrivals::Poisson => {
                // Inverse-transform sampling; 1 - u is in (0, 1] so the log is finite.
                let u: f64 = self.rng.gen();
                ((-(1.0 - u).ln()) * self.mean_gap_ns).round().max(1.0) as SimTime
            }
            Arrivals::Pareto => {
                let gap = self.pareto(self.mean_gap_ns);
                gap.round().clamp(1.0, (SimTime::MAX / 4) as f64) as SimTime
            }
            Arrivals::ParetoOnOff => {
                // As ns-2's POO_Traffic: a burst is a whole number of packets at the peak rate.
                let peak_gap = self.mean_gap_ns * self.burst_ns / (self.burst_ns + self.idle_ns);
                let mut gap = peak_gap;
                if self.burst_left > 1 {
                    self.burst_left -= 1;
                } else {
                    gap += self.pareto(self.idle_ns);
                    self.burst_left = (self.pareto(self.burst_ns) / peak_gap).round().max(1.0) as u64;
                }
                gap.round().clamp(1.0, (SimTime::MAX / 4) as f64) as SimTime
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mean rate (bit/s) and mean size of `packets` packets of a source.
    fn measured(arrivals: Arrivals, sizes: SizeDist, packets: u32) -> (f64, f64) {
        let mut src = UdpSource::new(0, 0, 1, 1_000_000, 1000, arrivals, sizes, false, None, crate::rng::from_seed(9)).with_on_off(50_000_000, 50_000_000);
        let (mut bytes, mut ns) = (0u64, 0u64);
        for _ in 0..packets {
            bytes += src.next_packet().size as u64;
            ns += src.next_gap();
        }
        (bytes as f64 * 8e9 / ns as f64, bytes as f64 / packets as f64)
    }

    #[test]
    fn pareto_sources_keep_their_mean_rate_and_the_mix_its_mean_size() {
        // 1 Mbit/s of 440-byte packets: a gap of 3.52 ms; on/off bursts of about 14 packets.
        for arrivals in [Arrivals::Pareto, Arrivals::ParetoOnOff] {
            let (rate, size) = measured(arrivals, SizeDist::Mix, 2_000_000);
            assert!((rate / 1e6 - 1.0).abs() < 0.03, "{arrivals:?}: {rate} bit/s");
            assert!((size / mix_mean_size() - 1.0).abs() < 0.01, "{arrivals:?}: mean size {size}");
        }
    }

    #[test]
    fn dithered_cbr_keeps_its_rate_and_spreads_its_gaps_uniformly_around_the_interval() {
        // 1 Mbit/s of 1000-byte packets: an 8 ms interval, each gap uniform in [4, 12] ms,
        // whose variance is interval^2 / 12 (ns-2's CBR with random_ 1).
        let mut src = UdpSource::new(0, 0, 1, 1_000_000, 1000, Arrivals::CbrRandom, SizeDist::Fixed, false, None, crate::rng::from_seed(3));
        let gaps: Vec<f64> = (0..200_000).map(|_| src.next_gap() as f64).collect();
        let interval = 8e6;
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!((mean / interval - 1.0).abs() < 0.005, "mean gap {mean} ns");
        assert!((var / (interval * interval / 12.0) - 1.0).abs() < 0.02, "gap variance {var}");
        let (lo, hi) = gaps.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &g| (lo.min(g), hi.max(g)));
        assert!(lo >= 0.5 * interval && hi <= 1.5 * interval && lo < 0.51 * interval && hi > 1.49 * interval, "gaps in [{lo}, {hi}]");
    }

    #[test]
    fn class_split_must_sum_to_one() {
        assert_eq!(class_rates(10_000_000, 0.95, &[0.6, 0.2, 0.2]).unwrap(), vec![5_700_000, 1_900_000, 1_900_000]);
        assert_eq!(class_rates(10_000_000, 0.95, &[0.6, 0.2]).unwrap_err().field, "split");
        assert_eq!(class_rates(10_000_000, 0.95, &[1.2, -0.2]).unwrap_err().field, "split[1]");
    }
}
