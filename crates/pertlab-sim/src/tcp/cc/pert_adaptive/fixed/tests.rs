//! The fixed point stays within its stated bounds of the `f64` controller
//! (module doc of `fixed.rs`, docs/linux.md) on the same input: both driven
//! open loop by one RTT trace with the same losses and early responses.

use super::super::{Float, PertAdaptive, PertAdaptiveConfig};
use super::*;
use crate::rng::from_seed;
use crate::tcp::cc::{AckSample, CcState, CongestionControl};

/// Largest differences seen, and how many periods had passed.
#[derive(Default, Debug)]
struct Worst {
    alpha: f64,
    target: f64,
    rate: f64,
    keep: i64,
    prob: u64,
    mode_mismatches: usize,
    events: usize,
    /// Events in each mode, alpha periods ended.
    modes: [usize; 3],
    periods: usize,
}

/// Both controllers, one trace: a queue that grows and drains, competing
/// traffic that adds 30 ms for a while, a loss every `loss_every` ACKs in
/// it, an early response every 97 ACKs while the queue is above 5 ms. The
/// window is held at 40 segments (no `cong_avoid`), so the two see the same
/// samples whatever they would do with the window.
fn drive(cfg: PertAdaptiveConfig, n: usize, loss_every: usize) -> Worst {
    let mut float: PertAdaptive<Float> = PertAdaptive::with_arith(cfg.clone());
    let mut fixed: PertAdaptive<Fixed> = PertAdaptive::with_arith(cfg);
    let mut tp = CcState::new(40, 100_000, 1500);
    let mut rng = from_seed(1);
    let mut worst = Worst::default();
    let mut now_us = 0u64;
    for i in 0..n {
        let competing = (n / 3..2 * n / 3).contains(&i);
        let wave = (i % 1500) as u64;
        let queue_us = if wave < 750 { wave * 20 } else { (1500 - wave) * 20 } + if competing { 30_000 } else { 0 };
        let rtt_us = 40_000 + queue_us + (i as u64 * 7919) % 900;
        now_us += rtt_us / 40;
        tp.now = now_us * 1000;
        if competing && i % loss_every == 0 {
            let (a, b) = (float.ssthresh(&tp), fixed.ssthresh(&tp));
            assert!(a.abs_diff(b) <= 1, "ssthresh {a} {b}");
        }
        if queue_us > 5_000 && i % 97 == 0 {
            float.early.on_event();
            fixed.early.on_event();
        }
        let sample = AckSample { pkts_acked: 1 + u32::from(i % 5 == 0), rtt: (i % 13 != 0).then_some(rtt_us * 1000) };
        let start = float.period.map(|p| p.0);
        float.pkts_acked(&mut tp, &sample, &mut rng);
        fixed.pkts_acked(&mut tp, &sample, &mut rng);
        worst.periods += usize::from(start.is_some() && float.period.map(|p| p.0) != start);
        assert_eq!(float.losses.history(), fixed.losses.history(), "loss history, event {i}");
        assert_eq!(float.early.history(), fixed.early.history(), "early history, event {i}");
        if float.mode() != fixed.mode() {
            worst.mode_mismatches += 1;
            continue;
        }
        worst.modes[float.mode() as usize] += 1;
        worst.alpha = worst.alpha.max((float.alpha() - fixed.alpha()).abs());
        // The target's difference as a share of its stated bound.
        let t = (float.compete_target() - fixed.compete_target()).abs() / target_bound(&float);
        worst.target = worst.target.max(t);
        worst.rate = worst.rate.max((float.loss_rate() - fixed.loss_rate()).abs()).max((float.early_response_rate() - fixed.early_response_rate()).abs());
        worst.keep = worst.keep.max(fixed.keep_ppm() as i64 - float.keep_ppm() as i64);
        assert!(fixed.keep_ppm() >= float.keep_ppm(), "keep, event {i}");
        worst.prob = worst.prob.max(fixed.probability_fixed().abs_diff(float.probability_fixed()));
        worst.events += 1;
    }
    worst
}

/// The stated bound on the compete target's error: 2 ppm of it (`1 + p'/p`),
/// 1 + (w + d) / w ppm (the ramp's two truncations) and 1 ppm, plus the
/// ramp's slope, at most `(full - 1)(w + d) / (w d)` per unit (1/1024 us),
/// times the 3 units by which the truncated `lo`, `hi` and `d` may move.
fn target_bound(cc: &PertAdaptive<Float>) -> f64 {
    let q_max = cc.q_max as f64;
    let (w, d) = ((cc.cfg.t3_frac - cc.cfg.compete_frac) * q_max, cc.cfg.ramp_pole_frac * q_max);
    let (p, pe) = (cc.loss_rate(), cc.early_response_rate());
    let full = if p > 0.0 { (1.0 + pe / p).min(cc.cfg.alpha_max) } else { cc.cfg.alpha_max };
    2e-6 * cc.compete_target() + (2.0 + (w + d) / w) * 1e-6 + (full - 1.0) * 3.0 * (w + d) / (w * d)
}

#[test]
fn fixed_point_stays_within_its_stated_bounds_of_the_f64_controller() {
    let cases = [
        PertAdaptiveConfig::default(),
        PertAdaptiveConfig {
            compete_step: 0.37,
            safe_decay: 0.83,
            high_speed_step: 0.29,
            ramp_pole_frac: 0.03,
            interval_weights: vec![1.0, 0.7, 0.3],
            ..PertAdaptiveConfig::default()
        },
    ];
    for cfg in cases {
        let w = drive(cfg, 60_000, 211);
        // The same mode after every event (the thresholds differ by under
        // one unit of 1/1024 us, the period ends by under 5 us).
        assert_eq!(w.mode_mismatches, 0, "{w:?}");
        assert!(w.modes.iter().all(|&n| n > 2_000) && w.periods > 250, "{w:?}");
        // alpha: below one millionth per period (the safe decay's truncation)
        // plus the target's error.
        assert!(w.alpha < 1e-6 * w.periods as f64 + 1e-5, "{w:?}");
        assert!(w.target <= 1.0 && w.target > 0.01, "{w:?}");
        // p, p': one truncation of W 10^6 / S.
        assert!(w.rate <= 1e-6, "{w:?}");
        // The kept share: the same, or one millionth more.
        assert!(w.keep <= 1, "{w:?}");
        // The curve's end t3 truncated the same way in both: the same probability.
        assert_eq!(w.prob, 0, "{w:?}");
        assert!(w.events == 60_000);
    }
}
