//! CUBIC (Xu, Ha, Rhee, Goel, Eggert, RFC 9438, August 2023).
//!
//! What is modelled (RFC 9438 Section 4):
//! - Window growth in congestion avoidance follows
//!   `W_cubic(t) = C (t - K)^3 + W_max` (4.2, eq. 1) with
//!   `K = cbrt((W_max - cwnd_epoch) / C)` (eq. 2), `t` the time since the
//!   current congestion-avoidance stage began and `cwnd_epoch` the window then.
//!   Each ACKed segment adds `(target - cwnd) / cwnd`, with
//!   `target = W_cubic(t + RTT)` bounded to `[cwnd, 1.5 cwnd]` (4.2); the
//!   real-valued increase is turned into ACKs per segment by
//!   [`CcState::cong_avoid_by`]. `RTT` is the sender's smoothed RTT (RFC 6298
//!   SRTT, `tp.srtt`); Linux uses its minimum RTT instead. Both the concave
//!   (below `W_max`) and convex (above) regions use the same curve (4.4, 4.5).
//! - Reno-friendly region (4.3): `W_est` starts at `cwnd_epoch` and grows by
//!   `alpha_cubic * acked / cwnd`, `alpha_cubic = 3 (1 - beta) / (1 + beta)`,
//!   and by 1 per window once `W_est >= cwnd_prior` (the window when ssthresh
//!   was last set). When `W_cubic(t) < W_est`, the window is set to `W_est`.
//! - Loss or ECN (4.6): `ssthresh = max(beta * cwnd, 2)`, rounded to the
//!   nearest segment, with `cwnd` the
//!   window at detection (RFC: `flight_size`; equal for a window-limited bulk
//!   flow); the sender then sets the window as its recovery prescribes. The
//!   epoch ends and the next starts on the first congestion-avoidance ACK.
//! - Fast convergence (4.7): `W_max = cwnd (1 + beta) / 2` if the window is
//!   below the previous `W_max`, else `W_max = cwnd`.
//! - A retransmission timeout ends the stage too (also a repeated one, for
//!   which the sender keeps ssthresh); the next starts in congestion avoidance.
//! - A stage that begins above `W_max` (slow start ended without loss, or
//!   `W_max` not yet set) starts on the convex side: `W_max = cwnd_epoch`, `K = 0`.
//! - Application-limited flows (5.8): `t` leaves out the time the sender had
//!   nothing in flight (the stage's start moves later by it, as in Linux).
//!   The window grows only while the flow uses it when the sender's
//!   `cwnd_validation` is on (off by default, as in ns-2).
//!
//! - `variant = linux` follows Linux's `tcp_cubic.c` where it departs from the
//!   RFC in ways that matter with small windows ([`CubicVariant`]).
//!
//! - `hystart = true` (the `linux` variant only): Linux's HyStart ends slow
//!   start before the first loss ([`hystart`]).
//!
//! Left out: HyStart++ (RFC 9406; the RFC variant's slow start is standard), the spurious
//! congestion-event undo (4.9; this sender never undoes reductions) and pacing.

mod hystart;
mod linux;

use super::{AckSample, CaEvent, CcCounters, CcState, CongestionControl, MIN_SSTHRESH};
use crate::error::{check, ConfigError};
use crate::rng::SimRng;
use crate::scenario::CcSpec;
use crate::tcp::jiffies::{check_hz, DEFAULT_HZ};
use crate::time::{SimTime, NS_PER_SEC};
use hystart::Hystart;
use linux::{LinuxConstants, LinuxCubic};
use serde::{Deserialize, Serialize};

/// `C` (RFC 9438 Section 5, "C SHOULD be set to 0.4"), segments / s^3.
pub const DEFAULT_C: f64 = 0.4;
/// `beta_cubic` (RFC 9438 Section 4.6, "SHOULD be set to 0.7").
pub const DEFAULT_BETA: f64 = 0.7;
/// `W_cubic(t + RTT)` may exceed the window by at most this factor (RFC 9438 4.2).
const MAX_TARGET_RATIO: f64 = 1.5;
/// Reno's increase per RTT, the Reno-friendly slope once `W_est >= cwnd_prior`
/// (RFC 9438 Section 4.3).
const RENO_ALPHA: f64 = 1.0;

/// Which CUBIC: the RFC's, or Linux's where the two differ with small windows.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CubicVariant {
    /// RFC 9438: real-valued reductions (`ssthresh` rounded to the nearest
    /// segment, a choice of ours: the RFC gives none), and the Reno-friendly
    /// estimate growing by 1 segment per RTT once it passes `cwnd_prior` (4.3).
    #[default]
    Rfc9438,
    /// Linux's `tcp_cubic.c` (6.x):
    /// - `bictcp_recalc_ssthresh`: beta in 1024ths (717 for 0.7), `ssthresh =
    ///   max(cwnd * beta / 1024, 2)` and the fast-convergence `W_max = cwnd *
    ///   (1024 + beta) / 2048` in integers, rounded down: a window of 4 goes to 2;
    /// - `tcp_friendliness`: the Reno estimate grows by `alpha_cubic` per RTT
    ///   throughout (Linux keeps no `cwnd_prior`: the running kernel's
    ///   `struct bictcp` has none);
    /// - `bictcp_update`: the growth in the kernel's integers and jiffies
    ///   (`hz`), `t` plus the minimum RTT, a count of ACKs per segment
    ///   recomputed when the window changed or `hz / 32` jiffies passed
    ///   (`tcp/cc/cubic/linux.rs`, which lists the rest); a timeout forgets `W_max`;
    /// - `cubictcp_cwnd_event`: the time left out of `t` when a transmission
    ///   starts with nothing in flight runs from the last send, not from the
    ///   ACK that emptied the flight ([`Cubic::cwnd_event`]).
    ///
    /// docs/linux.md, "ECN at the bottleneck", for what they change.
    Linux,
}

/// CUBIC parameters (RFC 9438).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// Aggressiveness `C` of the cubic curve, segments / s^3 (Section 5).
    /// Default 0.4.
    pub c: f64,
    /// Multiplicative decrease `beta_cubic` (Section 4.6). Default 0.7.
    pub beta: f64,
    /// Fast convergence (Section 4.7). Default on.
    pub fast_convergence: bool,
    /// Reno-friendly region (Section 4.3). Default on.
    pub reno_friendly: bool,
    /// The RFC's CUBIC or Linux's (see [`CubicVariant`]). Default `rfc9438`.
    pub variant: CubicVariant,
    /// Linux's clock, jiffies per second (`CONFIG_HZ`, one of
    /// [`LINUX_HZ_CHOICES`](crate::tcp::jiffies::LINUX_HZ_CHOICES)): the
    /// `linux` variant's time unit. Default [`DEFAULT_HZ`], 250.
    pub hz: u32,
    /// Linux's HyStart (`tcp_cubic.c`'s `hystart`, on by default in Linux):
    /// the `linux` variant's slow start ends by ACK train or delay increase
    /// ([`hystart`]). Default off (pertlab's results so far).
    pub hystart: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: DEFAULT_C,
            beta: DEFAULT_BETA,
            fast_convergence: true,
            reno_friendly: true,
            variant: CubicVariant::Rfc9438,
            hz: DEFAULT_HZ,
            hystart: false,
        }
    }
}

impl CubicConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check::positive(&format!("{path}.c"), self.c)?;
        check::open_unit(&format!("{path}.beta"), self.beta)?;
        if self.hystart && self.variant != CubicVariant::Linux {
            return Err(ConfigError::new(
                format!("{path}.hystart"),
                "is Linux's HyStart: it needs variant = \"linux\" (the rfc9438 variant's slow start is standard)",
            ));
        }
        check_hz(path, self.hz)
    }

    /// `alpha_cubic = 3 (1 - beta) / (1 + beta)` (Section 4.3).
    pub fn alpha_cubic(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }
}

/// CUBIC state (RFC 9438 Section 4.1 variables).
#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    /// `W_max`: window just before the last reduction (after fast convergence),
    /// segments (the RFC variant's; Linux's is `linux.last_max_cwnd`).
    w_max: f64,
    /// `cwnd_prior`: window when ssthresh was last set, segments.
    cwnd_prior: f64,
    /// Start of the current congestion-avoidance stage; `None` until its first ACK.
    epoch_start: Option<SimTime>,
    /// `K`: time from the stage's start to reach `W_max`, seconds.
    k: f64,
    /// `W_est`: the Reno-friendly window estimate, segments.
    w_est: f64,
    /// Linux's state and constants, for [`CubicVariant::Linux`] (the fields
    /// above are the RFC variant's).
    linux: LinuxCubic,
    linux_k: LinuxConstants,
    /// HyStart's state, with `cfg.hystart`.
    hystart: Hystart,
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Cubic {
        let linux_k = LinuxConstants::new(&cfg);
        Cubic { cfg, w_max: 0.0, cwnd_prior: 0.0, epoch_start: None, k: 0.0, w_est: 0.0, linux: LinuxCubic::default(), linux_k, hystart: Hystart::default() }
    }

    /// `W_cubic(t)`, `t` in seconds since the stage began (eq. 1).
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.cfg.c * (t - self.k).powi(3) + self.w_max
    }

    /// `W_max`, segments.
    pub fn w_max(&self) -> f64 {
        match self.cfg.variant {
            CubicVariant::Rfc9438 => self.w_max,
            CubicVariant::Linux => f64::from(self.linux.last_max_cwnd),
        }
    }

    /// `K`, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// Begin a congestion-avoidance stage at `now` with window `cwnd` (4.2, 4.3).
    fn start_epoch(&mut self, now: SimTime, cwnd: f64) {
        self.epoch_start = Some(now);
        if cwnd < self.w_max {
            self.k = ((self.w_max - cwnd) / self.cfg.c).cbrt();
        } else {
            self.w_max = cwnd;
            self.k = 0.0;
        }
        self.w_est = cwnd;
    }

    fn avoid_congestion(&mut self, tp: &mut CcState, acked: u32) {
        if self.cfg.variant == CubicVariant::Linux {
            self.linux.avoid_congestion(&self.linux_k, tp, acked);
            return;
        }
        let cwnd = f64::from(tp.snd_cwnd);
        let start = match self.epoch_start {
            Some(start) => start,
            None => {
                self.start_epoch(tp.now, cwnd);
                tp.now
            }
        };
        let t = secs(tp.now.saturating_sub(start));
        if self.cfg.reno_friendly {
            let reno_slope = self.w_est >= self.cwnd_prior;
            let alpha = if reno_slope { RENO_ALPHA } else { self.cfg.alpha_cubic() };
            self.w_est += alpha * f64::from(acked) / cwnd;
            if self.w_cubic(t) < self.w_est {
                let w_est = self.w_est.floor().min(f64::from(tp.snd_cwnd_clamp));
                // Bounded by the clamp, so in u32 range.
                tp.snd_cwnd = tp.snd_cwnd.max(w_est as u32);
                return;
            }
        }
        let target = self.w_cubic(t + secs(tp.srtt)).clamp(cwnd, MAX_TARGET_RATIO * cwnd);
        tp.cong_avoid_by(target - cwnd, acked);
    }
}

fn secs(ns: SimTime) -> f64 {
    ns as f64 / NS_PER_SEC as f64
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        match self.cfg.variant {
            CubicVariant::Rfc9438 => {
                let cwnd = f64::from(tp.snd_cwnd);
                self.cwnd_prior = cwnd;
                self.epoch_start = None;
                let converge = self.cfg.fast_convergence && cwnd < self.w_max;
                self.w_max = if converge { cwnd * (1.0 + self.cfg.beta) / 2.0 } else { cwnd };
                // Rounded to the nearest segment (0.7 * 90 is 62.999... in floating
                // point); at most cwnd (beta < 1), so in u32 range.
                ((cwnd * self.cfg.beta).round() as u32).max(MIN_SSTHRESH)
            }
            CubicVariant::Linux => self.linux.recalc_ssthresh(&self.linux_k, tp.snd_cwnd),
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        let Some(acked) = tp.slow_start_then(acked) else { return };
        self.avoid_congestion(tp, acked);
    }

    /// A transmission that starts with nothing in flight (`TxStart`) ends a
    /// time spent application-limited, which `t` must not include (RFC 9438
    /// Section 5.8: "t in Eq. 1 MUST NOT include these periods"): the stage's
    /// start moves later by that time, so the curve resumes where it stopped,
    /// and `W_est` is kept. The RFC variant counts the time since the ACK that
    /// left nothing in flight (`tp.drained_at`): idle time only. Linux counts
    /// the time since the last segment was sent (`cubictcp_cwnd_event`,
    /// commit 30927520dbae, which chose the shift over a reset), which also
    /// takes in the round trip of that segment. Either way a window of 2 behind
    /// delayed ACKs, all of it acknowledged by one ACK each round, goes on
    /// growing; a new stage each round held it at 2 for good.
    /// A restart after idle (`CwndRestart`, the window cut back) and every
    /// timeout (also a repeated one, for which the sender keeps ssthresh and
    /// does not call [`Self::ssthresh`]) start a new stage.
    fn cwnd_event(&mut self, tp: &mut CcState, ev: CaEvent) {
        if self.cfg.variant == CubicVariant::Linux {
            match ev {
                CaEvent::TxStart => self.linux.shift_epoch(&self.linux_k, tp.now, tp.last_send),
                CaEvent::Loss => {
                    self.linux.reset();
                    self.hystart.restart(tp.now, tp.snd_nxt);
                }
                _ => {}
            }
            return;
        }
        match (ev, self.epoch_start) {
            (CaEvent::TxStart, Some(start)) => {
                let idle = tp.now.saturating_sub(tp.drained_at);
                self.epoch_start = Some(start.saturating_add(idle).min(tp.now));
            }
            (CaEvent::CwndRestart | CaEvent::Loss, _) => self.epoch_start = None,
            _ => {}
        }
    }

    /// `cubictcp_acked`: the least RTT, then, in slow start with `hystart`,
    /// HyStart on the same sample (none in a stage's first second).
    fn pkts_acked(&mut self, tp: &mut CcState, sample: &AckSample, _rng: &mut SimRng) {
        let (CubicVariant::Linux, Some(rtt)) = (self.cfg.variant, sample.rtt) else { return };
        let Some(delay) = self.linux.on_rtt(&self.linux_k, tp.now, rtt) else { return };
        if self.cfg.hystart && tp.in_slow_start() && !self.hystart.found() {
            let delay_min = self.linux.delay_min();
            let ack_delay = || hystart::ack_delay(tp.mss, tp.snd_cwnd, tp.snd_ssthresh, tp.snd_nxt.saturating_sub(tp.snd_una), tp.srtt);
            if self.hystart.on_sample(tp.now, delay, delay_min, ack_delay, tp.snd_cwnd, tp.snd_una, tp.snd_nxt).is_some() {
                tp.snd_ssthresh = tp.snd_cwnd;
            }
        }
    }

    /// HyStart's exits by detection and the windows at them ([`CcCounters`]).
    fn counters(&self, _now: SimTime) -> CcCounters {
        let (hystart_exits, hystart_exit_cwnd) = self.hystart.counts();
        CcCounters { hystart_exits, hystart_exit_cwnd, ..CcCounters::default() }
    }

    /// `beta` applies from the next reduction (and to `alpha_cubic` from the
    /// next ACK). A new `C` reshapes the stage in progress into the curve it
    /// would have had with that `C` from its start: through the same
    /// `cwnd_epoch` and `W_max`, so `K` becomes `K cbrt(C_old / C_new)`
    /// (eq. 2: `C K^3 = W_max - cwnd_epoch` stays).
    fn set_params(&mut self, spec: &CcSpec) {
        let CcSpec::Cubic(cfg) = spec else { return };
        if self.epoch_start.is_some() && cfg.c != self.cfg.c {
            self.k *= (self.cfg.c / cfg.c).cbrt();
        }
        self.linux_k = LinuxConstants::new(cfg);
        self.cfg = cfg.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;
    use crate::time::NS_PER_MS;

    /// An ACK-clocked flow in congestion avoidance: one ACK per segment, a
    /// window of ACKs per RTT.
    #[derive(Clone)]
    struct Flow {
        cc: Cubic,
        tp: CcState,
        rng: SimRng,
    }

    impl Flow {
        /// A flow that has just lost at window `w_max` and recovered to ssthresh.
        fn after_loss(cfg: CubicConfig, w_max: u32, rtt: SimTime) -> Flow {
            let mut cc = Cubic::new(cfg);
            let mut tp = CcState::new(w_max, 100_000, 1500);
            tp.srtt = rtt;
            tp.snd_ssthresh = cc.ssthresh(&tp);
            tp.snd_cwnd = tp.snd_ssthresh;
            Flow { cc, tp, rng: from_seed(1) }
        }

        fn ack(&mut self) {
            self.cc.cong_avoid(&mut self.tp, 1, &mut self.rng);
            self.tp.now += self.tp.srtt / u64::from(self.tp.snd_cwnd);
        }

        /// ACK until `t` seconds after the first ACK (the stage's start).
        fn run_until(&mut self, t: f64) {
            while (self.tp.now as f64) < t * NS_PER_SEC as f64 {
                self.ack();
            }
        }
    }

    #[test]
    fn defaults_are_rfc_9438s() {
        let c = CubicConfig::default();
        assert_eq!((c.c, c.beta, c.fast_convergence, c.reno_friendly), (0.4, 0.7, true, true));
        // 3 (1 - 0.7) / 1.7
        assert!((c.alpha_cubic() - 0.529_411_76).abs() < 1e-8);
        assert!(c.validate("flows[0].cc").is_ok());
    }

    #[test]
    fn beta_outside_the_unit_interval_is_rejected_by_name() {
        let e = CubicConfig { beta: 1.2, ..CubicConfig::default() }.validate("flows[2].cc").unwrap_err();
        assert_eq!(e.field, "flows[2].cc.beta");
        let e = CubicConfig { c: 0.0, ..CubicConfig::default() }.validate("flows[2].cc").unwrap_err();
        assert_eq!(e.field, "flows[2].cc.c");
    }

    /// W_cubic for W_max = 100 at t = 1, 2, K, 6, 7 s: K = cbrt(100 * 0.3 / 0.4).
    const CURVE: [(f64, f64); 5] = [(1.0, 86.68), (2.0, 95.64), (4.217, 100.0), (6.0, 102.27), (7.0, 108.62)];

    #[test]
    fn after_a_loss_the_window_follows_the_cubic_curve() {
        // W_max = 100: ssthresh 70, K = 4.217 s. RTT 100 ms.
        let cfg = CubicConfig { reno_friendly: false, ..CubicConfig::default() };
        let mut f = Flow::after_loss(cfg, 100, 100 * NS_PER_MS);
        assert_eq!(f.tp.snd_cwnd, 70);
        f.ack();
        assert_eq!(f.cc.w_max(), 100.0);
        assert!((f.cc.k() - 4.217_163).abs() < 1e-6, "K = {}", f.cc.k());
        for (t, w) in CURVE {
            f.run_until(t);
            assert!((f.cc.w_cubic(t) - w).abs() < 0.01, "W_cubic({t}) = {}", f.cc.w_cubic(t));
            let cwnd = f64::from(f.tp.snd_cwnd);
            assert!((cwnd - w).abs() <= 1.0, "t = {t}: cwnd {cwnd} vs W_cubic {w}");
        }
    }

    #[test]
    fn a_new_c_mid_stage_keeps_the_stages_start_and_w_max() {
        // W_max = 100, cwnd_epoch = 70, K = 4.217 s with C = 0.4. At 1 s C becomes 0.1: the curve
        // through (0, 70) and (K, 100) with C = 0.1 has K = 4.217 cbrt(4) = 6.694 s.
        let cfg = CubicConfig { reno_friendly: false, ..CubicConfig::default() };
        let mut f = Flow::after_loss(cfg.clone(), 100, 100 * NS_PER_MS);
        f.run_until(1.0);
        assert!((f.cc.w_cubic(0.0) - 70.0).abs() < 1e-9);
        f.cc.set_params(&CcSpec::Cubic(CubicConfig { c: 0.1, ..cfg }));
        assert!((f.cc.k() - 4.217_163 * 4f64.cbrt()).abs() < 1e-5, "K = {}", f.cc.k());
        assert!((f.cc.w_cubic(0.0) - 70.0).abs() < 1e-9 && (f.cc.w_cubic(f.cc.k()) - 100.0).abs() < 1e-9);
        // At 3 s the window follows the new curve (94.96; the old one is at 99.28), and it
        // reaches W_max at the new K.
        f.run_until(3.0);
        assert!((f.cc.w_cubic(3.0) - 94.96).abs() < 0.01 && (f64::from(f.tp.snd_cwnd) - 94.96).abs() <= 1.0, "{}", f.tp.snd_cwnd);
        f.run_until(6.694);
        assert!((f64::from(f.tp.snd_cwnd) - 100.0).abs() <= 1.0, "{}", f.tp.snd_cwnd);
        // The same C again changes nothing.
        let k = f.cc.k();
        f.cc.set_params(&CcSpec::Cubic(CubicConfig { c: 0.1, reno_friendly: false, ..CubicConfig::default() }));
        assert_eq!(f.cc.k(), k);
    }

    #[test]
    fn the_reno_friendly_estimate_takes_over_in_the_convex_region() {
        // W_est = 70 + 0.529 per RTT stays below the curve up to K; it reaches
        // cwnd_prior = 100 after 30 / 0.529 = 56.7 RTTs and then grows by 1 per
        // RTT: 113.3 at t = 7 s, above W_cubic(7) = 108.6.
        let mut f = Flow::after_loss(CubicConfig::default(), 100, 100 * NS_PER_MS);
        for (t, w) in &CURVE[..3] {
            f.run_until(*t);
            assert!((f64::from(f.tp.snd_cwnd) - w).abs() <= 1.0, "t = {t}: cwnd {}", f.tp.snd_cwnd);
        }
        f.run_until(7.0);
        assert!((f64::from(f.tp.snd_cwnd) - 113.3).abs() <= 1.0, "cwnd {}", f.tp.snd_cwnd);
        // Linux's keeps 0.529 per RTT: W_est = 70 + 70 * 0.529 = 107.0 at 7 s, below the curve's
        // 108.6, so the window is the curve's (the ssthresh of 100 is 70 in both variants).
        let mut f = Flow::after_loss(CubicConfig { variant: CubicVariant::Linux, ..CubicConfig::default() }, 100, 100 * NS_PER_MS);
        f.run_until(7.0);
        assert!((f64::from(f.tp.snd_cwnd) - 108.6).abs() <= 1.0, "cwnd {}", f.tp.snd_cwnd);
    }

    #[test]
    fn short_rtts_run_in_the_reno_friendly_region() {
        // RTT 10 ms: after 30 RTTs W_est = 70 + 30 * 0.529 = 85.9 while
        // W_cubic(0.3) = 75.96; the window is W_est.
        let mut f = Flow::after_loss(CubicConfig::default(), 100, 10 * NS_PER_MS);
        f.run_until(0.3);
        let cwnd = f64::from(f.tp.snd_cwnd);
        assert!(f.cc.w_cubic(0.3) < 76.0);
        assert!((cwnd - 85.9).abs() <= 1.0, "cwnd {cwnd}");
        // Without the Reno-friendly region the window is the curve's.
        let cfg = CubicConfig { reno_friendly: false, ..CubicConfig::default() };
        let mut f = Flow::after_loss(cfg, 100, 10 * NS_PER_MS);
        f.run_until(0.3);
        assert!((f64::from(f.tp.snd_cwnd) - 76.0).abs() <= 1.0, "cwnd {}", f.tp.snd_cwnd);
    }

    #[test]
    fn fast_convergence_lowers_w_max_after_a_smaller_peak() {
        let mut f = Flow::after_loss(CubicConfig::default(), 100, 100 * NS_PER_MS);
        f.tp.snd_cwnd = 90;
        // 90 < W_max = 100: W_max = 90 * 1.7 / 2 = 76.5; ssthresh 63.
        assert_eq!(f.cc.ssthresh(&f.tp), 63);
        assert!((f.cc.w_max() - 76.5).abs() < 1e-12);
        let cfg = CubicConfig { fast_convergence: false, ..CubicConfig::default() };
        let mut f = Flow::after_loss(cfg, 100, 100 * NS_PER_MS);
        f.tp.snd_cwnd = 90;
        assert_eq!(f.cc.ssthresh(&f.tp), 63);
        assert_eq!(f.cc.w_max(), 90.0);
    }

    #[test]
    fn a_repeated_timeout_starts_a_new_stage() {
        // At t = 7 s W_est is 113 (see above). A second timeout keeps ssthresh
        // (no ssthresh call); slow start back to 70 must not jump to W_est.
        let mut f = Flow::after_loss(CubicConfig::default(), 100, 100 * NS_PER_MS);
        f.run_until(7.0);
        assert!(f.tp.snd_cwnd >= 112);
        f.cc.cwnd_event(&mut f.tp, CaEvent::Loss);
        f.tp.snd_cwnd = 70;
        f.tp.snd_ssthresh = 70;
        f.ack();
        assert_eq!(f.tp.snd_cwnd, 70);
        // The new stage starts at 70 below W_max = 100 (kept): K = 4.217 s again.
        assert!((f.cc.k() - 4.217_163).abs() < 1e-6);
    }

    #[test]
    fn a_stage_above_w_max_starts_on_the_convex_side() {
        // Slow start ended at ssthresh 50 without a loss: W_max = 50, K = 0.
        let mut cc = Cubic::new(CubicConfig::default());
        let mut tp = CcState::new(50, 100_000, 1500);
        tp.snd_ssthresh = 50;
        tp.srtt = 100 * NS_PER_MS;
        cc.cong_avoid(&mut tp, 1, &mut from_seed(1));
        assert_eq!((cc.w_max(), cc.k()), (50.0, 0.0));
    }

    #[test]
    fn a_window_acknowledged_whole_each_round_goes_on_growing() {
        // Behind delayed ACKs at a window of 2, one ACK covers both segments and each round
        // starts with nothing in flight, the ACK's arrival the send. The RFC variant leaves
        // out no time (the flight emptied just now), Linux the round trip since the last send;
        // either way the window grows. A new stage each round held it at 2.
        for variant in [CubicVariant::Rfc9438, CubicVariant::Linux] {
            let mut cc = Cubic::new(CubicConfig { variant, ..CubicConfig::default() });
            let mut tp = CcState::new(3, 100_000, 1500);
            tp.srtt = 50 * NS_PER_MS;
            tp.snd_ssthresh = cc.ssthresh(&tp);
            tp.snd_cwnd = tp.snd_ssthresh;
            for round in 0..=20 {
                tp.now = (round + 1) * 50 * NS_PER_MS;
                cc.cong_avoid(&mut tp, 2, &mut from_seed(1)); // one ACK for the round's 2 segments
                tp.drained_at = tp.now;
                tp.last_send = tp.now - 50 * NS_PER_MS; // the round's segments went one RTT ago
                cc.cwnd_event(&mut tp, CaEvent::TxStart);
            }
            assert!(tp.snd_cwnd >= 6, "{variant:?}: {}", tp.snd_cwnd);
            // Linux's stage starts each round anew in time (each shifted by a round trip, not
            // past now), in jiffies (1.05 s is jiffy 262 at 250 Hz); the RFC's where it began.
            match variant {
                CubicVariant::Rfc9438 => assert_eq!(cc.epoch_start, Some(50 * NS_PER_MS)),
                CubicVariant::Linux => assert_eq!(cc.linux.epoch_start, Some(262)),
            }
        }
    }

    #[test]
    fn an_idle_period_is_left_out_of_t() {
        // Two flows on the same concave curve; one sends nothing for ten seconds. With the idle
        // time out of t (RFC 9438 5.8) both go on alike: the same windows and W_est ACK for
        // ACK. Counting it would put t past K and the target at 1.5 cwnd at once ("W_cubic(t)
        // might be very high"); a new stage would restart the curve from the current window.
        let mut busy = Flow::after_loss(CubicConfig::default(), 100, 100 * NS_PER_MS);
        busy.run_until(1.0);
        let mut idle = busy.clone();
        let start = idle.cc.epoch_start.unwrap();
        (idle.tp.last_send, idle.tp.drained_at) = (idle.tp.now, idle.tp.now);
        idle.tp.now += 10 * NS_PER_SEC;
        idle.cc.cwnd_event(&mut idle.tp, CaEvent::TxStart);
        assert_eq!(idle.cc.epoch_start, Some(start + 10 * NS_PER_SEC));
        for _ in 0..3 * busy.tp.snd_cwnd {
            busy.ack();
            idle.ack();
            assert_eq!((idle.tp.snd_cwnd, idle.cc.w_est), (busy.tp.snd_cwnd, busy.cc.w_est));
        }
        assert!(busy.tp.snd_cwnd > 70, "the curve moved on: {}", busy.tp.snd_cwnd);
    }

    #[test]
    fn the_linux_variant_also_leaves_out_the_last_round_trip() {
        // A segment sent at 1.0 s, its ACK at 1.1 s emptying the flight, new data at 1.5 s:
        // the RFC variant leaves 0.4 s out of t, Linux 0.5 s (since its `lsndtime`).
        let mut f = Flow::after_loss(CubicConfig::default(), 100, 100 * NS_PER_MS);
        f.ack();
        let start = f.cc.epoch_start.unwrap();
        (f.tp.last_send, f.tp.drained_at, f.tp.now) = (NS_PER_SEC, 1100 * NS_PER_MS, 1500 * NS_PER_MS);
        f.cc.cwnd_event(&mut f.tp, CaEvent::TxStart);
        assert_eq!(f.cc.epoch_start, Some(start + 400 * NS_PER_MS));
        // Linux's in jiffies: 125 at 250 Hz.
        let mut f = Flow::after_loss(CubicConfig { variant: CubicVariant::Linux, ..CubicConfig::default() }, 100, 100 * NS_PER_MS);
        f.ack();
        let start = f.cc.linux.epoch_start.unwrap();
        (f.tp.last_send, f.tp.drained_at, f.tp.now) = (NS_PER_SEC, 1100 * NS_PER_MS, 1500 * NS_PER_MS);
        f.cc.cwnd_event(&mut f.tp, CaEvent::TxStart);
        assert_eq!(f.cc.linux.epoch_start, Some(start + 125));
    }

    #[test]
    fn linux_variant_rounds_the_reduction_down_in_1024ths() {
        // Linux: ssthresh = max(cwnd * 717 / 1024, 2), W_max = cwnd * 1741 / 2048, in integers.
        let linux = CubicConfig { variant: CubicVariant::Linux, ..CubicConfig::default() };
        for (cwnd, real, floor) in [(4, 3, 2), (5, 4, 3), (7, 5, 4), (10, 7, 7), (90, 63, 63), (2, 2, 2)] {
            let tp = CcState::new(cwnd, 100_000, 1500);
            assert_eq!(Cubic::new(CubicConfig::default()).ssthresh(&tp), real, "real, cwnd {cwnd}");
            assert_eq!(Cubic::new(linux.clone()).ssthresh(&tp), floor, "linux, cwnd {cwnd}");
        }
        // Fast convergence below the last W_max: 90 * 1741 / 2048 = 76 (real: 76.5).
        let mut c = Cubic::new(linux);
        c.linux.last_max_cwnd = 100;
        c.ssthresh(&CcState::new(90, 100_000, 1500));
        assert_eq!(c.w_max(), 76.0);
    }
}
