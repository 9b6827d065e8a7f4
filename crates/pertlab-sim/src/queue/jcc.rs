//! The router side of Joint Congestion Control (Hua, MPhil thesis, CUHK 2002,
//! Sections 4.2.1 and 4.2.4): RED, modified to encode its congestion level in
//! `m` bits and stamp it on probe segments.
//!
//! What is modelled:
//! - The congestion level of the link is the RED average queue `avg` turned
//!   into an m-bit code r (eq. 4.4): `0` below `min_th`, `2^m - 1` (drop
//!   probability 1) above `max_th`, and in between
//!   `floor((avg - min_th) / (max_th - min_th) * (2^m - 2))`. The thesis's
//!   multiplier is `2^m - 1`, which gives the all-ones code at `avg = max_th`
//!   although the text reserves it for probability 1; we use `2^m - 2` (the
//!   spec's erratum 5), so codes `0 ..= 2^m - 2` stand for `0 ..= max_p` and a
//!   code k decodes to `k / (2^m - 2) * max_p` ([`decode`]).
//! - A probe (a data segment whose `jcc_r` is set) gets `R = max(R, r)` (eq.
//!   4.2), so it reaches the receiver with the largest code along its path
//!   (eq. 4.1).
//! - Routers "should not drop probing packets": RED never drops or marks a
//!   probe here (early or forced); a full buffer still does.
//! - Every other packet gets RED's decision from the continuous probability,
//!   unchanged (the thesis does not say whether the real drop uses the
//!   quantized r; spec section 3.6 GAP).
//!
//! What is left out: a header carrier for R and the probe flag (the packet's
//! `jcc_r` field stands for both), and RED's gentle region in the code: eq.
//! 4.4 jumps to all ones above `max_th` whatever `gentle` says.

use serde::{Deserialize, Serialize};

use super::red::Red;
use super::{QueueBounds, QueueDiscipline, QueueView, Verdict};
use crate::error::ConfigError;
use crate::packet::{Packet, PacketKind};
use crate::rng::SimRng;
use crate::time::SimTime;

/// Bits of R in the header: the thesis leaves m open (spec section 3.6 GAP);
/// 8 gives steps of max_p / 254.
pub const DEFAULT_BITS: u8 = 8;
/// Allowed m: a code must fit the 16-bit field.
pub const BITS_RANGE: std::ops::RangeInclusive<u8> = 1..=16;

/// Parameters of the JCC router (queue kind "jcc-red"; RED's own are in the `red` section).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct JccQueueConfig {
    /// m, the bits of R (eq. 4.4), in 1..=16. Default 8 (thesis: unspecified).
    pub bits: u8,
}

impl Default for JccQueueConfig {
    fn default() -> Self {
        JccQueueConfig { bits: DEFAULT_BITS }
    }
}

impl JccQueueConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check_bits(self.bits, &format!("{path}.bits"))
    }
}

/// m must lie in 1..=16; the error names `field`.
pub fn check_bits(bits: u8, field: &str) -> Result<(), ConfigError> {
    if BITS_RANGE.contains(&bits) {
        Ok(())
    } else {
        Err(ConfigError::new(field, format!("must lie in 1..=16 (bits of R in the header), got {bits}")))
    }
}

/// The all-ones code, drop probability 1.
pub fn top_code(bits: u8) -> u16 {
    ((1u32 << bits) - 1) as u16
}

/// Eq. 4.4 with the erratum resolved (module doc): the code of average queue `avg`.
pub fn encode(avg: f64, min_th: f64, max_th: f64, bits: u8) -> u16 {
    let top = top_code(bits);
    if avg > max_th {
        top
    } else if avg < min_th || max_th <= min_th {
        0
    } else {
        let steps = f64::from(top.saturating_sub(1));
        ((avg - min_th) / (max_th - min_th) * steps).floor().clamp(0.0, steps) as u16
    }
}

/// The drop probability a code stands for: `k / (2^m - 2) * max_p`, 1 for the all-ones code.
pub fn decode(code: u16, bits: u8, max_p: f64) -> f64 {
    let top = top_code(bits);
    if code >= top {
        1.0
    } else if top <= 1 {
        0.0
    } else {
        f64::from(code) / f64::from(top - 1) * max_p
    }
}

/// RED that stamps probes with its code (queue kind "jcc-red").
pub struct JccRed {
    red: Red,
    bits: u8,
}

impl JccRed {
    pub fn new(red: Red, cfg: &JccQueueConfig) -> JccRed {
        JccRed { red, bits: cfg.bits }
    }

    /// The link's code r now (eq. 4.4).
    pub fn code(&self) -> u16 {
        let (min_th, max_th) = self.red.thresholds();
        encode(self.red.avg(), min_th, max_th, self.bits)
    }
}

impl QueueDiscipline for JccRed {
    fn name(&self) -> &'static str {
        "jcc-red"
    }

    fn on_arrival(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict {
        let ecn = pkt.ecn;
        let verdict = self.red.on_arrival(view, pkt, now, rng);
        match pkt.jcc_r {
            Some(r) if pkt.kind == PacketKind::Data => {
                // Eq. 4.2, on the average this arrival updated; probes are never dropped or marked by RED.
                pkt.jcc_r = Some(r.max(self.code()));
                pkt.ecn = ecn;
                Verdict::Pass
            }
            _ => verdict,
        }
    }

    fn on_departure(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime) -> Verdict {
        self.red.on_departure(view, pkt, now)
    }

    fn probability(&self) -> f64 {
        self.red.probability()
    }

    fn average(&self) -> Option<f64> {
        self.red.average()
    }

    fn max_p(&self) -> Option<f64> {
        QueueDiscipline::max_p(&self.red)
    }

    fn never_acts(&self, bounds: &QueueBounds) -> Option<String> {
        self.red.never_acts(bounds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::red::{RedConfig, RedVariant};
    use crate::queue::{Enqueued, OutputQueue, QueueLimit, StandaloneQueue};

    #[test]
    fn codes_follow_eq_4_4_with_the_top_code_kept_for_probability_one() {
        // m = 4: 0..=14 for 0..=max_p, 15 above max_th.
        assert_eq!(encode(4.9, 5.0, 15.0, 4), 0);
        assert_eq!(encode(5.0, 5.0, 15.0, 4), 0);
        assert_eq!(encode(10.0, 5.0, 15.0, 4), 7);
        assert_eq!(encode(15.0, 5.0, 15.0, 4), 14);
        assert_eq!(encode(15.1, 5.0, 15.0, 4), 15);
        assert_eq!(decode(7, 4, 0.1), 0.05);
        assert_eq!(decode(14, 4, 0.1), 0.1);
        assert_eq!(decode(15, 4, 0.1), 1.0);
        assert_eq!(top_code(16), u16::MAX);
        assert_eq!(encode(1e9, 5.0, 15.0, 16), u16::MAX);
        assert_eq!(encode(15.0, 5.0, 15.0, 16), u16::MAX - 1);
        // m = 1: one code for 0..=max_p, one for p = 1.
        assert_eq!((encode(14.0, 5.0, 15.0, 1), encode(16.0, 5.0, 15.0, 1)), (0, 1));
    }

    #[test]
    fn bits_outside_1_to_16_are_refused_naming_the_field() {
        for bits in [0u8, 17, 255] {
            let e = JccQueueConfig { bits }.validate("links[2].queue.jcc").unwrap_err();
            assert_eq!(e.field, "links[2].queue.jcc.bits");
            assert!(e.message.contains("1..=16"), "{}", e.message);
        }
        assert!(JccQueueConfig { bits: 1 }.validate("q").is_ok() && JccQueueConfig { bits: 16 }.validate("q").is_ok());
    }

    /// A JCC queue whose RED average has settled at `fill` packets (q_w = 1: the average is the queue).
    fn loaded(fill: u32) -> StandaloneQueue {
        let red = RedConfig { min_th: Some(5.0), max_th: Some(15.0), q_w: Some(1.0), gentle: false, ..RedConfig::default() };
        let jcc = JccRed::new(Red::new(red, RedVariant::Red, 100, 1_000_000), &JccQueueConfig::default());
        let mut q = StandaloneQueue::new(OutputQueue::new(QueueLimit::Packets(100), 1_000_000, Box::new(jcc), crate::rng::from_seed(3)));
        for _ in 0..fill {
            let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1000);
            // Probes are exempt from RED: fill with them so that every packet stays.
            p.jcc_r = Some(0);
            assert_eq!(q.offer(p, 0), Enqueued::Queued);
        }
        q
    }

    #[test]
    fn a_probe_leaves_a_three_hop_path_with_the_largest_code_eq_4_2() {
        // Average queues 8, 13 and 6 packets: codes floor(0.3 x 254) = 76, floor(0.8 x 254) = 203, floor(0.1 x 254) = 25.
        let mut path = [loaded(8), loaded(13), loaded(6)];
        let mut probe = Packet::new(PacketKind::Data, 1, 0, 1, 1000);
        probe.jcc_r = Some(0);
        let mut codes = Vec::new();
        for q in path.iter_mut() {
            let before = q.len_pkts();
            assert_eq!(q.offer(probe, 1), Enqueued::Queued);
            // Each hop's own code is the one it stamps on a fresh probe at the same average.
            codes.push(encode(f64::from(before), 5.0, 15.0, DEFAULT_BITS));
            while let Some(p) = q.serve(2) {
                probe = p;
            }
        }
        assert_eq!(codes, vec![76, 203, 25]);
        assert_eq!(probe.jcc_r, Some(203));
        // Order does not matter: the maximum (eq. 4.1).
        let mut reversed = [loaded(6), loaded(13), loaded(8)];
        let mut p2 = Packet::new(PacketKind::Data, 1, 0, 1, 1000);
        p2.jcc_r = Some(0);
        for q in reversed.iter_mut() {
            q.offer(p2, 1);
            while let Some(p) = q.serve(2) {
                p2 = p;
            }
        }
        assert_eq!(p2.jcc_r, Some(203));
    }

    #[test]
    fn probes_pass_where_red_drops_other_packets_and_ordinary_packets_keep_no_r() {
        let mut q = loaded(30); // average 30 > max_th: RED drops every ordinary arrival (non-gentle)
        let plain = Packet::new(PacketKind::Data, 0, 0, 1, 1000);
        assert!(matches!(q.offer(plain, 1), Enqueued::Dropped(_)));
        let mut probe = plain;
        probe.jcc_r = Some(3);
        assert_eq!(q.offer(probe, 1), Enqueued::Queued);
        let last = std::iter::from_fn(|| q.serve(2)).last().unwrap();
        assert_eq!(last.jcc_r, Some(top_code(DEFAULT_BITS)));
    }
}
