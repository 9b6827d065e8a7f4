//! A live video stream over TCP (Qian 2011, III.A): an application-limited
//! constant-bit-rate writer feeding a TCP sender, and a playout-deadline
//! client at the receiver.
//!
//! The writer hands TCP one segment every `S / mu` (S the segment's payload,
//! mu the video rate), the first at the flow's start: segment `i` is generated
//! at `g_i = start + i S / mu`, and the sender sends only what was written.
//! The client starts playback `startup_delay` after the stream starts, so
//! segment `i` is due at `g_i + startup_delay` (the spec's recommended model
//! after Wang et al., B.2.1); it is late if TCP delivers it in order after
//! that (head-of-line blocking counts), or has not delivered it by the end of
//! the run although it was due. A stream succeeds if its late fraction is
//! below 1e-4 (Qian III.A.1).
//!
//! T/mu (Qian III.A.1: T the achievable TCP throughput, mu the video rate;
//! spec B.2.1's recommended reading after Wang et al.): T is the goodput of a
//! greedy flow of the stream's controller under the same load, measured by
//! probe flows (`FlowSpec::probe`) in the same run, so the load is the
//! stream's own plus one greedy flow per probe ([`t_over_mu`]).
//!
//! The client also counts late segments at further start-up delays
//! (`startup_delays_ns`): one run then gives the late fraction and success of
//! each, as Qian's Figs 7, 8 and 10-12 sweep the start-up delay from 1 to 30 s
//! (the late fraction against the start-up delay is the stream's late-packet
//! CCDF at those points).

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::time::{SimTime, NS_PER_SEC};

/// A stream is successful when its late fraction is below this (Qian 2011,
/// III.A.1, after Wang et al.: 10^-4).
pub const SUCCESS_LATE_FRACTION: f64 = 1e-4;

/// The video source of a TCP flow.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VideoSpec {
    /// Video bit rate mu in bit/s of TCP payload (Qian: 300 kb/s).
    pub rate_bps: u64,
    /// Start-up delay of the client's playback (Qian: 1 to 30 s).
    pub startup_delay_ns: SimTime,
    /// Further start-up delays at which the client also counts late segments,
    /// strictly increasing (Qian's Figs 7, 8, 10-12 sweep 1 to 30 s); results:
    /// `FlowStats::video_playout`. Default none.
    #[serde(default)]
    pub startup_delays_ns: Vec<SimTime>,
}

/// At most this many further start-up delays per stream (each costs a
/// comparison per delivered segment).
pub const MAX_STARTUP_DELAYS: usize = 64;

impl VideoSpec {
    /// `payload_bytes` per segment; `access_bps` the rate of the sender's access link.
    pub fn validate(&self, path: &str, payload_bytes: u32, access_bps: u64) -> Result<(), ConfigError> {
        if self.rate_bps == 0 {
            return Err(ConfigError::new(format!("{path}.rate_bps"), "must be positive, got 0"));
        }
        if self.rate_bps > access_bps {
            return Err(ConfigError::new(
                format!("{path}.rate_bps"),
                format!("must be at most the sender's access link rate ({access_bps} bit/s), got {}", self.rate_bps),
            ));
        }
        if self.interval(payload_bytes) > SimTime::MAX / 4 {
            return Err(ConfigError::new(format!("{path}.rate_bps"), format!("one segment per {} ns is too slow", self.interval(payload_bytes))));
        }
        for (field, d) in std::iter::once(("startup_delay_ns".to_string(), self.startup_delay_ns))
            .chain(self.startup_delays_ns.iter().enumerate().map(|(i, &d)| (format!("startup_delays_ns[{i}]"), d)))
        {
            if d > SimTime::MAX / 4 {
                return Err(ConfigError::new(format!("{path}.{field}"), format!("must be at most {} ns, got {d}", SimTime::MAX / 4)));
            }
        }
        if self.startup_delays_ns.len() > MAX_STARTUP_DELAYS {
            return Err(ConfigError::new(
                format!("{path}.startup_delays_ns"),
                format!("at most {MAX_STARTUP_DELAYS} delays, got {}", self.startup_delays_ns.len()),
            ));
        }
        if let Some(i) = self.startup_delays_ns.windows(2).position(|w| w[1] <= w[0]) {
            return Err(ConfigError::new(
                format!("{path}.startup_delays_ns[{}]", i + 1),
                format!("must be strictly increasing, got {} after {}", self.startup_delays_ns[i + 1], self.startup_delays_ns[i]),
            ));
        }
        Ok(())
    }

    /// Time between two segments the writer hands to TCP: S / mu (at least 1 ns).
    pub fn interval(&self, payload_bytes: u32) -> SimTime {
        ((u128::from(payload_bytes) * 8 * u128::from(NS_PER_SEC)) / u128::from(self.rate_bps.max(1))).clamp(1, u128::from(u64::MAX)) as SimTime
    }
}

/// A flow's video source and client.
#[derive(Clone, Debug)]
pub struct Video {
    /// S / mu.
    pub interval: SimTime,
    /// Segments written so far.
    pub written: u32,
    pub playout: Playout,
}

impl Video {
    pub fn new(spec: &VideoSpec, payload_bytes: u32, start: SimTime) -> Video {
        let interval = spec.interval(payload_bytes);
        let delays = std::iter::once(spec.startup_delay_ns).chain(spec.startup_delays_ns.iter().copied()).collect();
        Video { interval, written: 0, playout: Playout::new(start, interval, delays) }
    }
}

/// The client's playout accounting of one stream, at each of its start-up delays.
#[derive(Clone, Debug)]
pub struct Playout {
    start: SimTime,
    interval: SimTime,
    /// The start-up delays counted: the stream's own, then the further ones.
    delays: Vec<SimTime>,
    /// Per delay: segments delivered in order by their deadline, and after it.
    on_time: Vec<u64>,
    late: Vec<u64>,
}

/// One stream's playout numbers at the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlayoutResult {
    /// Segments due by the end of the run or delivered before it.
    pub packets: u64,
    /// Of those, segments delivered after their deadline or not delivered although due.
    pub late: u64,
    /// late / packets; None when no segment is counted (`packets` 0).
    pub late_fraction: Option<f64>,
}

impl PlayoutResult {
    /// A successful stream: its late fraction below [`SUCCESS_LATE_FRACTION`];
    /// None when the late fraction is (no segment counted).
    pub fn success(&self) -> Option<bool> {
        self.late_fraction.map(|f| f < SUCCESS_LATE_FRACTION)
    }
}

impl Playout {
    /// `delays`: the start-up delays to count at, the stream's own first (not empty).
    pub fn new(start: SimTime, interval: SimTime, delays: Vec<SimTime>) -> Playout {
        let n = delays.len();
        Playout { start, interval, delays, on_time: vec![0; n], late: vec![0; n] }
    }

    /// Generation time of segment `i`: g_i.
    fn generated(&self, i: u32) -> SimTime {
        self.start.saturating_add(SimTime::from(i).saturating_mul(self.interval))
    }

    /// Segments `from..to` were delivered in order at `now`: each is on time
    /// at the delays that put its deadline g_i + delay at or after `now`.
    pub fn deliver(&mut self, now: SimTime, from: u32, to: u32) {
        for i in from..to {
            let g = self.generated(i);
            for (k, &d) in self.delays.iter().enumerate() {
                if now <= g.saturating_add(d) {
                    self.on_time[k] += 1;
                } else {
                    self.late[k] += 1;
                }
            }
        }
    }

    /// At the stream's own start-up delay, at the end of the run (`end`),
    /// with `delivered` segments delivered in order: the segments due by then
    /// and never delivered are late too.
    pub fn result(&self, end: SimTime, delivered: u32) -> PlayoutResult {
        self.result_at(0, end, delivered)
    }

    /// [`Playout::result`] at each further start-up delay: `(delay, result)`.
    pub fn further_results(&self, end: SimTime, delivered: u32) -> Vec<(SimTime, PlayoutResult)> {
        (1..self.delays.len()).map(|k| (self.delays[k], self.result_at(k, end, delivered))).collect()
    }

    fn result_at(&self, k: usize, end: SimTime, delivered: u32) -> PlayoutResult {
        let first_due = self.start.saturating_add(self.delays[k]);
        let due = if end < first_due { 0 } else { (end - first_due) / self.interval + 1 };
        let missing = due.saturating_sub(u64::from(delivered));
        let late = self.late[k] + missing;
        let packets = self.on_time[k] + late;
        PlayoutResult { packets, late, late_fraction: (packets > 0).then(|| late as f64 / packets as f64) }
    }
}

/// T/mu of a stream of `rate_bps` (payload) sent by controller `cc`: the mean
/// goodput of the probes of that controller (`(controller, goodput in Mbit/s
/// of payload over the window)`) over the rate; None without such a probe.
pub fn t_over_mu(rate_bps: u64, cc: &str, probes: &[(&str, f64)]) -> Option<f64> {
    let goodputs: Vec<f64> = probes.iter().filter(|(c, _)| *c == cc).map(|&(_, g)| g).collect();
    if goodputs.is_empty() || rate_bps == 0 {
        return None;
    }
    Some(goodputs.iter().sum::<f64>() / goodputs.len() as f64 * 1e6 / rate_bps as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    const MS: SimTime = NS_PER_MS;

    #[test]
    fn the_writer_interval_is_the_payload_over_the_rate() {
        // 1000-byte packets (960 B of payload) at 300 kb/s: 25.6 ms.
        let v = VideoSpec { rate_bps: 300_000, startup_delay_ns: 0, startup_delays_ns: vec![] };
        assert_eq!(v.interval(960), 25_600_000);
        assert!(v.validate("v", 960, 10_000_000).is_ok());
        let e = VideoSpec { rate_bps: 20_000_000, ..v.clone() }.validate("flows[0].video", 960, 10_000_000).unwrap_err();
        assert_eq!(e.to_string(), "flows[0].video.rate_bps: must be at most the sender's access link rate (10000000 bit/s), got 20000000");
        let e = VideoSpec { startup_delays_ns: vec![1, 3, 3], ..v.clone() }.validate("flows[0].video", 960, 10_000_000).unwrap_err();
        assert_eq!(e.to_string(), "flows[0].video.startup_delays_ns[2]: must be strictly increasing, got 3 after 3");
        let e = VideoSpec { startup_delays_ns: (1..=65).collect(), ..v.clone() }.validate("v", 960, 10_000_000).unwrap_err();
        assert_eq!(e.to_string(), "v.startup_delays_ns: at most 64 delays, got 65");
    }

    /// A hand-made delivery trace: segments every 10 ms from t = 100 ms,
    /// start-up delay 50 ms, so segment i is due at 150 + 10 i ms.
    #[test]
    fn late_packets_of_a_hand_made_trace() {
        let mut p = Playout::new(100 * MS, 10 * MS, vec![50 * MS, 60 * MS, 200 * MS]);
        p.deliver(120 * MS, 0, 1); // due 150: on time
        p.deliver(160 * MS, 1, 2); // due 160: on time (exactly at the deadline)
        p.deliver(175 * MS, 2, 3); // due 170: late
                                   // Head-of-line blocking: 3 was lost, 3..7 arrive together at 205 ms
                                   // (due 180, 190, 200, 210): three late, one on time.
        p.deliver(205 * MS, 3, 7);
        assert_eq!((p.on_time[0], p.late[0]), (3, 4));
        // The run ends at 240 ms: segments 7 and 8 (due 220, 230) never came; 9 is due at 240.
        let r = p.result(240 * MS, 7);
        assert_eq!((r.packets, r.late), (10, 7));
        assert!((r.late_fraction.unwrap() - 0.7).abs() < 1e-12);
        assert_eq!(r.success(), Some(false));
        // At 60 ms segment i is due at 160 + 10 i: 3 and 4 (due 190, 200, delivered at 205) are late,
        // and 7 and 8 (due 230, 240) never came. At 200 ms every delivered segment is on time and
        // nothing else is due by 240 ms.
        let further = p.further_results(240 * MS, 7);
        assert_eq!(further.iter().map(|(d, r)| (*d, r.packets, r.late)).collect::<Vec<_>>(), vec![(60 * MS, 9, 4), (200 * MS, 7, 0)]);
        // Before anything is due, nothing is counted: no late fraction, no verdict.
        let none = Playout::new(100 * MS, 10 * MS, vec![50 * MS]).result(149 * MS, 0);
        assert_eq!(none, PlayoutResult { packets: 0, late: 0, late_fraction: None });
        assert_eq!(none.success(), None);
    }

    #[test]
    fn t_over_mu_is_the_mean_probe_goodput_of_the_controller_over_the_rate() {
        let probes = [("pert", 0.5), ("reno", 0.9), ("pert", 0.7)];
        // PERT's probes average 0.6 Mbit/s: T/mu = 0.6 / 0.3 = 2.
        assert!((t_over_mu(300_000, "pert", &probes).unwrap() - 2.0).abs() < 1e-12);
        assert!((t_over_mu(300_000, "reno", &probes).unwrap() - 3.0).abs() < 1e-12);
        assert_eq!(t_over_mu(300_000, "cubic", &probes), None);
    }
}
