//! Linux's CUBIC window update (`bictcp_update` in `net/ipv4/tcp_cubic.c`,
//! 6.x), in the kernel's integer arithmetic, for [`super::CubicVariant::Linux`].
//!
//! What it models, where Linux departs from RFC 9438's real-valued growth:
//! - time counts jiffies (1 / `hz` s; 250 on the testbed's kernel) and the
//!   curve runs in 1024ths of a second (`BICTCP_HZ`); `t` adds the minimum RTT
//!   (`delay_min`, rounded up to jiffies), not the smoothed RTT;
//! - `C` is `bic_scale * 10 / 1024` with `bic_scale = 41` for 0.4
//!   (`cube_rtt_scale`, `cube_factor`);
//! - the window grows through a count of ACKs per segment, `cnt = cwnd /
//!   (target - cwnd)` in integers (`100 cwnd` when the target is not above the
//!   window), at least 2 (1.5 times per RTT at most), 20 at most while no
//!   `W_max` is known;
//! - the count is recomputed only when the window changed or `hz / 32`
//!   jiffies passed, and the curve at most once per jiffy;
//! - the Reno estimate `tcp_cwnd` grows by one segment each
//!   `floor(cwnd beta_scale / 8) + 1` ACKs (`beta_scale = 8 (1024 + beta) / 3
//!   / (1024 - beta)`, 15 for 717),
//!   and when above the window caps `cnt` at `cwnd / (tcp_cwnd - cwnd)`;
//! - `delay_min` ignores samples in the first second of a stage
//!   (`cubictcp_acked`), and a timeout forgets everything, `W_max` too
//!   (`cubictcp_state`, `bictcp_reset`).
//!
//! HyStart is [`super::hystart`]'s. Left out: Linux's table-driven
//! `cubic_root` (a floating-point cube root, rounded down, in its place; the
//! kernel's comment gives its average error as about 0.2 %).

use super::CubicConfig;
use crate::tcp::cc::{CcState, MIN_SSTHRESH};
use crate::tcp::jiffies::{Jiffies, LinuxClock};
use crate::time::SimTime;

/// Linux's `BICTCP_HZ`: the curve's time unit is 2^-10 s.
const BICTCP_HZ: u32 = 10;
/// `cnt` while the target is not above the window: "very small increment".
const CNT_FLAT: u32 = 100;
/// `cnt` at most this while no `W_max` is known: 5 % per RTT.
const CNT_UNKNOWN: u32 = 20;
/// Growth at most one segment per this many ACKed segments (1.5x per RTT).
const CNT_MIN: u32 = 2;
/// `BICTCP_BETA_SCALE`: beta counts 1024ths.
const BETA_SCALE: u64 = 1024;

/// The kernel's state (`struct bictcp`) for one connection.
#[derive(Clone, Debug, Default)]
pub struct LinuxCubic {
    /// ACKs per segment of growth.
    cnt: u32,
    /// `last_max_cwnd`: `W_max`, segments; 0 when unknown.
    pub last_max_cwnd: u32,
    last_cwnd: u32,
    /// Jiffy of the last recomputation of `cnt`.
    last_time: Jiffies,
    origin_point: u32,
    /// `K` in 2^-10 s.
    bic_k: u64,
    /// Smallest RTT sample, microseconds (0: none yet).
    delay_min_us: u64,
    /// Jiffy the stage began; `None` between a reduction and the next ACK.
    pub epoch_start: Option<Jiffies>,
    /// ACKs counted toward the Reno estimate.
    ack_cnt: u32,
    /// The Reno estimate, segments.
    tcp_cwnd: u32,
}

/// The constants Linux derives from `C` and `beta` at module load (`cubictcp_register`).
#[derive(Clone, Copy, Debug)]
pub struct LinuxConstants {
    /// `beta` in 1024ths (717 for 0.7).
    beta: u64,
    fast_convergence: bool,
    /// `cube_rtt_scale = bic_scale * 10`.
    cube_rtt_scale: u64,
    /// `cube_factor = 2^40 / (bic_scale * 10)`.
    cube_factor: u64,
    /// `beta_scale = 8 (1024 + beta) / 3 / (1024 - beta)`.
    beta_scale: u32,
    clock: LinuxClock,
}

impl LinuxConstants {
    /// From the configuration's `C`, `beta` and `hz`.
    pub fn new(cfg: &CubicConfig) -> LinuxConstants {
        // bic_scale = C * 1024 / 10 (41 for 0.4), at least 1; beta in (0, 1) is 1 to 1023 1024ths.
        let bic_scale = ((cfg.c * 1024.0 / 10.0).round() as u64).max(1);
        let beta = ((cfg.beta * BETA_SCALE as f64).round() as u64).clamp(1, BETA_SCALE - 1);
        LinuxConstants {
            beta,
            fast_convergence: cfg.fast_convergence,
            cube_rtt_scale: bic_scale * 10,
            cube_factor: (1u64 << (10 + 3 * BICTCP_HZ)) / (bic_scale * 10),
            beta_scale: (8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta)) as u32,
            clock: LinuxClock::new(cfg.hz),
        }
    }

    /// `tcp_jiffies32` at `now`.
    pub fn jiffies(&self, now: SimTime) -> Jiffies {
        self.clock.at(now)
    }
}

impl LinuxCubic {
    /// Forget everything (`bictcp_reset`, on a timeout).
    pub fn reset(&mut self) {
        *self = LinuxCubic::default();
    }

    /// `bictcp_recalc_ssthresh`: the stage ends; `W_max` is the window, or with
    /// fast convergence below the last `W_max` `cwnd (1024 + beta) / 2048`;
    /// returns `max(cwnd beta / 1024, 2)`. In integers, rounded down: a window
    /// of 4 goes to 2.
    pub fn recalc_ssthresh(&mut self, k: &LinuxConstants, cwnd: u32) -> u32 {
        self.epoch_start = None;
        let wide = u64::from(cwnd); // the products fit in u64, the results in u32 (beta < 1024)
        self.last_max_cwnd = if k.fast_convergence && cwnd < self.last_max_cwnd { (wide * (BETA_SCALE + k.beta) / (2 * BETA_SCALE)) as u32 } else { cwnd };
        ((wide * k.beta / BETA_SCALE) as u32).max(MIN_SSTHRESH)
    }

    /// `cubictcp_acked`: keep the smallest RTT, except in a stage's first second;
    /// the sample as Linux takes it (whole microseconds, at least 1), `None`
    /// when discarded.
    pub fn on_rtt(&mut self, k: &LinuxConstants, now: SimTime, rtt: SimTime) -> Option<SimTime> {
        if let Some(start) = self.epoch_start {
            if k.jiffies(now).saturating_sub(start) < k.clock.hz() {
                return None;
            }
        }
        let us = (rtt / 1000).max(1);
        if self.delay_min_us == 0 || self.delay_min_us > us {
            self.delay_min_us = us;
        }
        Some(us * 1000)
    }

    /// The least RTT kept (`delay_min`), `None` before the first sample.
    pub fn delay_min(&self) -> Option<SimTime> {
        (self.delay_min_us > 0).then(|| self.delay_min_us * 1000)
    }

    /// `cubictcp_cwnd_event(CA_EVENT_TX_START)`: move the stage's start later by
    /// the jiffies since the last send, not past now.
    pub fn shift_epoch(&mut self, k: &LinuxConstants, now: SimTime, last_send: SimTime) {
        let (now, sent) = (k.jiffies(now), k.jiffies(last_send));
        if let Some(start) = self.epoch_start.as_mut() {
            if now > sent {
                *start = (*start + (now - sent)).min(now);
            }
        }
    }

    /// `cubictcp_cong_avoid` after slow start: `bictcp_update`, then
    /// `tcp_cong_avoid_ai` with the count.
    pub fn avoid_congestion(&mut self, k: &LinuxConstants, tp: &mut CcState, acked: u32) {
        self.update(k, tp.snd_cwnd, acked, k.jiffies(tp.now));
        tp.cong_avoid_ai(self.cnt, acked);
    }

    /// `bictcp_update`.
    fn update(&mut self, k: &LinuxConstants, cwnd: u32, acked: u32, now: Jiffies) {
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= k.clock.hz() / 32 {
            return;
        }
        // The curve at most once per jiffy; a reduction ends the stage, which forces it.
        if !(self.epoch_start.is_some() && now == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now;
            self.curve(k, cwnd, acked, now);
        }
        self.friendliness(k, cwnd);
        self.cnt = self.cnt.max(CNT_MIN);
    }

    /// The cubic part of `bictcp_update`: `cnt` from the curve's target.
    fn curve(&mut self, k: &LinuxConstants, cwnd: u32, acked: u32, now: Jiffies) {
        let start = match self.epoch_start {
            Some(start) => start,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.bic_k = 0;
                    self.origin_point = cwnd;
                } else {
                    let x = k.cube_factor.saturating_mul(u64::from(self.last_max_cwnd - cwnd));
                    self.bic_k = (x as f64).cbrt() as u64;
                    self.origin_point = self.last_max_cwnd;
                }
                now
            }
        };
        let rtt_jiffies = k.clock.up(self.delay_min_us * 1000); // usecs_to_jiffies
        let t = ((now.saturating_sub(start) + rtt_jiffies) << BICTCP_HZ) / k.clock.hz();
        let offs = t.abs_diff(self.bic_k);
        // offs^3 fits in u128; the product is at most a few times W_max after the shift.
        let delta = ((u128::from(k.cube_rtt_scale) * u128::from(offs).pow(3)) >> (10 + 3 * BICTCP_HZ)).min(u128::from(u32::MAX)) as u32;
        let target = if t < self.bic_k { self.origin_point.saturating_sub(delta) } else { self.origin_point.saturating_add(delta) };
        self.cnt = if target > cwnd { cwnd / (target - cwnd) } else { CNT_FLAT.saturating_mul(cwnd) };
        if self.last_max_cwnd == 0 {
            self.cnt = self.cnt.min(CNT_UNKNOWN);
        }
    }

    /// `tcp_friendliness`: the Reno estimate, and `cnt` no slower than it.
    fn friendliness(&mut self, k: &LinuxConstants, cwnd: u32) {
        let delta = ((u64::from(cwnd) * u64::from(k.beta_scale)) >> 3).max(1) as u32;
        while self.ack_cnt > delta {
            self.ack_cnt -= delta;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            self.cnt = self.cnt.min(max_cnt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{NS_PER_MS, NS_PER_SEC};
    use proptest::collection::vec;
    use proptest::prelude::*;

    fn constants() -> LinuxConstants {
        LinuxConstants::new(&CubicConfig::default())
    }

    /// A flow in congestion avoidance at `cwnd` whose last reduction was from `w_max`.
    fn flow(cwnd: u32, w_max: u32) -> (LinuxCubic, CcState) {
        let cubic = LinuxCubic { last_max_cwnd: w_max, ..LinuxCubic::default() };
        let mut tp = CcState::new(cwnd, 100_000, 1500);
        tp.snd_ssthresh = 2;
        (cubic, tp)
    }

    #[test]
    fn the_kernels_constants_for_c_0_4_and_beta_0_7() {
        // cubictcp_register with bic_scale 41, beta 717: beta_scale 8 * 1741 / 3 / 307 = 15,
        // cube_rtt_scale 410, cube_factor 2^40 / 410.
        let k = constants();
        assert_eq!((k.beta, k.beta_scale, k.cube_rtt_scale, k.cube_factor, k.clock.hz()), (717, 15, 410, 2_681_735_677, 250));
        assert_eq!(k.jiffies(999 * NS_PER_MS), 249);
    }

    #[test]
    fn the_reduction_rounds_down_and_fast_convergence_lowers_w_max() {
        let k = constants();
        let mut c = LinuxCubic { epoch_start: Some(7), ..LinuxCubic::default() };
        assert_eq!((c.recalc_ssthresh(&k, 4), c.last_max_cwnd, c.epoch_start), (2, 4, None));
        // Below the last W_max: 3 * 1741 / 2048 = 2 (2.55), ssthresh max(3 * 717 / 1024, 2) = 2.
        assert_eq!((c.recalc_ssthresh(&k, 3), c.last_max_cwnd), (2, 2));
    }

    #[test]
    fn the_count_waits_hz_over_32_jiffies_while_the_window_holds() {
        // At the stage's start (cwnd = W_max = 10, so the curve starts flat) the target is the
        // window and cnt = 100 cwnd. For 28 ms (7 jiffies) the count is not recomputed, the Reno
        // estimate not advanced: 31 ACKs leave the window at 10, where the estimate alone would
        // have passed 11 after 19 (cwnd 15 / 8 = 18). At 32 ms (jiffy 8) it catches up (ack_cnt
        // 32 > 18: tcp_cwnd 11, cnt = 10 / 1) and the 31 segments credited at the old count
        // add one segment at once (tcp_cong_avoid_ai).
        let k = constants();
        let (mut c, mut tp) = flow(10, 10);
        for ms in 0..31 {
            tp.now = ms * NS_PER_MS;
            c.avoid_congestion(&k, &mut tp, 1);
        }
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt, c.cnt, c.tcp_cwnd), (10, 31, 1000, 10));
        tp.now = 32 * NS_PER_MS;
        c.avoid_congestion(&k, &mut tp, 1);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt, c.cnt, c.tcp_cwnd, c.ack_cnt), (11, 1, 10, 11, 14));
    }

    #[test]
    fn the_reno_estimate_gains_a_segment_per_15_cwnd_over_8_acks() {
        // An ACK-clocked flow from cwnd 20 = W_max with a C so small that the curve stays below
        // the Reno estimate (bic_scale 1: C = 0.0098): the window follows the estimate, one
        // segment per floor(15 cwnd / 8) + 1 ACKs: 20 / 38 = 0.526 of a segment per RTT at 20,
        // 8 / 15 = 0.533 for large windows, around RFC 9438's alpha_cubic (3 (1 - 0.7) / 1.7 =
        // 0.529). 100 RTTs of 100 ms.
        let k = LinuxConstants::new(&CubicConfig { c: 0.01, ..CubicConfig::default() });
        let (mut c, mut tp) = flow(20, 20);
        let rtt = 100 * NS_PER_MS;
        for _ in 0..100 {
            let start = tp.now;
            for i in 0..u64::from(tp.snd_cwnd) {
                tp.now = start + rtt * i / u64::from(tp.snd_cwnd);
                c.avoid_congestion(&k, &mut tp, 1);
            }
            tp.now = start + rtt;
        }
        let per_rtt = f64::from(tp.snd_cwnd - 20) / 100.0;
        assert!((0.52..=0.534).contains(&per_rtt), "{per_rtt} per RTT, cwnd {} estimate {}", tp.snd_cwnd, c.tcp_cwnd);
    }

    #[test]
    fn delay_min_skips_a_stages_first_second_and_adds_to_t_in_jiffies() {
        let k = constants();
        let mut c = LinuxCubic::default();
        c.on_rtt(&k, 0, 45 * NS_PER_MS);
        c.on_rtt(&k, 0, 50 * NS_PER_MS);
        assert_eq!(c.delay_min_us, 45_000);
        c.epoch_start = Some(250); // the stage began at 1 s
        c.on_rtt(&k, 1999 * NS_PER_MS, 40 * NS_PER_MS); // jiffy 499: inside its first second
        assert_eq!(c.delay_min_us, 45_000);
        c.on_rtt(&k, 2 * NS_PER_SEC, 40 * NS_PER_MS);
        assert_eq!(c.delay_min_us, 40_000);
        // t = the stage's jiffies plus 40 ms (10 jiffies): past K sooner, so a higher target.
        // After a reduction from W_max = 100 to 70, K = cbrt(2^40 / 410 * 30) = 4316 (4.215 s).
        let (mut with, mut tp) = flow(70, 100);
        with.delay_min_us = 400_000; // 100 jiffies
        let (mut without, _) = flow(70, 100);
        tp.now = 0;
        with.avoid_congestion(&k, &mut tp.clone(), 1);
        without.avoid_congestion(&k, &mut tp, 1);
        assert_eq!(with.bic_k, 4316);
        assert!(with.cnt < without.cnt, "{} {}", with.cnt, without.cnt);
    }

    #[test]
    fn a_timeout_forgets_w_max_and_the_next_stage_grows_5_percent_per_rtt_at_least() {
        let k = constants();
        let (mut c, mut tp) = flow(10, 100);
        c.delay_min_us = 40_000;
        c.reset();
        tp.now = NS_PER_SEC;
        c.avoid_congestion(&k, &mut tp, 1);
        // Convex from the window (K = 0), the count capped at 20 with no W_max known.
        assert_eq!((c.last_max_cwnd, c.bic_k, c.origin_point, c.cnt, c.delay_min_us), (0, 0, 10, 20, 0));
    }

    /// One drawn event on a connection in congestion avoidance.
    #[derive(Clone, Debug)]
    enum Event {
        /// An ACK of `acked` segments, `ms` after the last event.
        Ack { acked: u32, ms: u64 },
        /// An RTT sample.
        Rtt { ms: u64 },
        /// A window reduction (loss or ECN-Echo), ending in the window at ssthresh.
        Reduce,
        /// A retransmission timeout.
        Timeout,
        /// A send after nothing in flight, the last send `ms` earlier.
        TxStart { ms: u64 },
    }

    fn event() -> impl Strategy<Value = Event> {
        prop_oneof![
            6 => (1u32..4, 0u64..120).prop_map(|(acked, ms)| Event::Ack { acked, ms }),
            1 => (1u64..600).prop_map(|ms| Event::Rtt { ms }),
            1 => Just(Event::Reduce),
            1 => Just(Event::Timeout),
            1 => (0u64..2000).prop_map(|ms| Event::TxStart { ms }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Drawn ACKs, RTT samples, reductions, timeouts and idle restarts, on any
        /// `C`, `beta` and clock: the window never shrinks on an ACK and grows by at
        /// most one segment per two ACKed segments since the last reduction (cnt
        /// at least 2: 1.5 times per RTT at most); the stage never starts after now;
        /// a reduction leaves at least 2 segments.
        #[test]
        fn the_window_grows_at_most_1_5_times_per_rtt_and_never_shrinks_on_an_ack(
            c in 0.01f64..4.0,
            beta in 0.05f64..0.95,
            hz in prop::sample::select(vec![100u32, 250, 300, 1000]),
            cwnd in 2u32..200,
            w_max in 0u32..300,
            events in vec(event(), 1..200),
        ) {
            let k = LinuxConstants::new(&CubicConfig { c, beta, hz, ..CubicConfig::default() });
            let (mut cubic, mut tp) = flow(cwnd, w_max);
            let (mut acked_since, mut grown_since) = (0u32, 0u32);
            for ev in events {
                match ev {
                    Event::Ack { acked, ms } => {
                        tp.now += ms * NS_PER_MS;
                        let before = tp.snd_cwnd;
                        cubic.avoid_congestion(&k, &mut tp, acked);
                        prop_assert!(tp.snd_cwnd >= before);
                        prop_assert!(cubic.cnt >= CNT_MIN);
                        (acked_since, grown_since) = (acked_since + acked, grown_since + tp.snd_cwnd - before);
                        prop_assert!(2 * grown_since <= acked_since, "grew {} on {} ACKed", grown_since, acked_since);
                    }
                    Event::Rtt { ms } => {
                        cubic.on_rtt(&k, tp.now, ms * NS_PER_MS);
                    }
                    Event::Reduce | Event::Timeout => {
                        // A timeout: ssthresh first, then the reset (tcp_enter_loss, cubictcp_state).
                        tp.snd_cwnd = cubic.recalc_ssthresh(&k, tp.snd_cwnd);
                        if matches!(ev, Event::Timeout) {
                            cubic.reset();
                        }
                        tp.snd_cwnd_cnt = 0; // tcp_init_cwnd_reduction
                        prop_assert!(tp.snd_cwnd >= MIN_SSTHRESH);
                        (acked_since, grown_since) = (0, 0);
                    }
                    Event::TxStart { ms } => {
                        tp.now += ms * NS_PER_MS;
                        cubic.shift_epoch(&k, tp.now, tp.now - ms * NS_PER_MS);
                    }
                }
                if let Some(start) = cubic.epoch_start {
                    prop_assert!(start <= k.jiffies(tp.now));
                }
            }
        }
    }
}
