use super::*;
use crate::rng::from_seed;
use crate::tcp::cc::pert_signal::{PROB_ONE, SRTT_SHIFT};
use crate::time::NS_PER_MS;

const MS: SimTime = NS_PER_MS;
const SEC: SimTime = 1000 * MS;

fn feed(est: &mut LossIntervals, n: u64) {
    for _ in 0..n {
        est.on_acked(1);
    }
}

#[test]
fn loss_intervals_weigh_the_last_eight_with_6_over_the_weighted_sum() {
    let mut est = LossIntervals::new(DEFAULT_INTERVAL_WEIGHTS.to_vec());
    assert_eq!(est.rate(), 0.0);
    feed(&mut est, 40);
    est.on_event();
    assert_eq!(est.history(), &[40]);
    assert_eq!(est.rate(), 1.0 / 40.0);
    // Intervals 100, 200, ..., 900 after the first: the 40 and the 100 fall out.
    for k in 1..=9 {
        feed(&mut est, 100 * k);
        est.on_event();
    }
    assert_eq!(est.history(), &[900, 800, 700, 600, 500, 400, 300, 200]);
    // 6 / (900 + 800 + 700 + 600 + 0.8 * 500 + 0.6 * 400 + 0.4 * 300 + 0.2 * 200) = 6 / 3800
    assert!((est.rate() - 6.0 / 3800.0).abs() < 1e-15, "{}", est.rate());
}

#[test]
fn ageing_moves_the_window_right_once_when_the_open_interval_exceeds_the_mean() {
    let mut est = LossIntervals::new(DEFAULT_INTERVAL_WEIGHTS.to_vec());
    for _ in 0..8 {
        feed(&mut est, 100);
        est.on_event();
    }
    assert_eq!(est.rate(), 0.01);
    // Up to the mean (100 segments) nothing moves.
    feed(&mut est, 100);
    assert_eq!(est.history(), &[100; 8]);
    assert_eq!(est.rate(), 0.01);
    // The 101st segment: the oldest entry is flushed, the open count is n1.
    feed(&mut est, 1);
    assert_eq!(est.history(), &[101, 100, 100, 100, 100, 100, 100, 100]);
    // n1 keeps growing with the open count; nothing else moves.
    feed(&mut est, 49);
    assert_eq!(est.history(), &[150, 100, 100, 100, 100, 100, 100, 100]);
    // 6 / (150 + 300 + 0.8*100 + 0.6*100 + 0.4*100 + 0.2*100) = 6 / 650
    assert!((est.rate() - 6.0 / 650.0).abs() < 1e-15);
    // The event closes n1 where it is: no second shift.
    est.on_event();
    assert_eq!(est.history(), &[150, 100, 100, 100, 100, 100, 100, 100]);
    feed(&mut est, 50);
    est.on_event();
    assert_eq!(est.history(), &[50, 150, 100, 100, 100, 100, 100, 100]);
    // 6 / (50 + 150 + 200 + 0.8*100 + 0.6*100 + 0.4*100 + 0.2*100) = 6 / 600
    assert!((est.rate() - 0.01).abs() < 1e-15);
}

#[test]
fn custom_weights_and_partial_histories_use_the_leading_weights() {
    let mut est = LossIntervals::new(vec![2.0, 1.0, 1.0]);
    feed(&mut est, 10);
    est.on_event();
    feed(&mut est, 10);
    est.on_event();
    feed(&mut est, 40);
    est.on_event();
    // Ageing shifted during the 40 (the mean was 10): history [40, 10, 10].
    assert_eq!(est.history(), &[40, 10, 10]);
    // (2 + 1 + 1) / (2*40 + 10 + 10) = 4 / 100
    assert!((est.rate() - 0.04).abs() < 1e-15);
}

/// A controller whose signal says propagation delay `p_ms` and queueing delay `q_us`.
fn with_qdelay(cfg: PertAdaptiveConfig, p_ms: u64, q_us: u64) -> PertAdaptive {
    let mut cc = PertAdaptive::new(cfg);
    cc.signal.update(p_ms * MS, 0);
    cc.signal.srtt = Some((p_ms * 1000 + q_us) << SRTT_SHIFT);
    cc
}

fn ca_state(cwnd: u32) -> CcState {
    let mut tp = CcState::new(cwnd, 100_000, 1500);
    tp.snd_ssthresh = cwnd / 2;
    tp.snd_nxt = cwnd;
    tp
}

#[test]
fn beta_is_one_half_at_q_max_and_a_response_halves_the_window() {
    // q_max starts at 10 ms (Ch. IV); q = 10 ms gives beta = 10 / (10 + 10).
    let mut cc = with_qdelay(PertAdaptiveConfig::default(), 60, 10_000);
    assert_eq!(cc.q_max_ns(), 10 * MS);
    assert_eq!(cc.beta(), 0.5);
    // At q = T2 the probability is p_max = 0.05; a seed whose first draw is below it.
    let mut tp = ca_state(100);
    let mut seed = 0;
    while !draw(cc.probability_fixed(), &mut from_seed(seed)) {
        seed += 1;
    }
    cc.cong_avoid(&mut tp, 1, &mut from_seed(seed));
    assert_eq!((tp.snd_cwnd, tp.snd_ssthresh, cc.early_responses), (50, 50, 1));
    // q = q_max / 3 gives beta = 0.25.
    let cc = with_qdelay(PertAdaptiveConfig::default(), 60, 3_333);
    assert!((cc.beta() - 3333.0 / 13333.0).abs() < 1e-12);
}

#[test]
fn loss_decrease_is_adaptive_by_default_and_half_on_request() {
    let mut tp = ca_state(100);
    // q = 2.5 ms, q_max = 10 ms: beta = 0.2, ssthresh keeps 80 %.
    let mut cc = with_qdelay(PertAdaptiveConfig::default(), 60, 2_500);
    assert_eq!(cc.ssthresh(&tp), 80);
    assert_eq!(cc.losses.history(), &[0]);
    let mut half = with_qdelay(PertAdaptiveConfig { loss_beta: LossBeta::Half, ..PertAdaptiveConfig::default() }, 60, 2_500);
    assert_eq!(half.ssthresh(&tp), 50);
    tp.snd_cwnd = 3;
    assert_eq!(half.ssthresh(&tp), 2);
}

#[test]
fn third_threshold_follows_q_max_with_a_floor_at_2_t_max() {
    // q_max = 10 ms: 0.65 q_max = 6.5 ms < 20 ms, the floor holds: p(15 ms) = 0.525.
    let cc = with_qdelay(PertAdaptiveConfig::default(), 60, 15_000);
    let p = cc.probability_fixed() as f64 / PROB_ONE as f64;
    assert!((p - 0.525).abs() < 1e-9, "{p}");
    // q_max = 100 ms: T3 = 65 ms; at 37.5 ms p = 0.05 + 0.95 * 27.5 / 55 = 0.525.
    let mut cc = with_qdelay(PertAdaptiveConfig::default(), 60, 37_500);
    cc.q_max = ns_to_scaled(100 * MS);
    let p = cc.probability_fixed() as f64 / PROB_ONE as f64;
    assert!((p - 0.525).abs() < 1e-6, "{p}");
    // Without the floor and q_max = 10 ms, T3 = 6.5 ms < T2: probability 1 from T2 on.
    let cc = with_qdelay(PertAdaptiveConfig { t3_floor: false, ..PertAdaptiveConfig::default() }, 60, 10_000);
    assert_eq!(cc.probability_fixed(), PROB_ONE);
}

#[test]
fn additive_increase_is_alpha_segments_per_window() {
    let mut cc = with_qdelay(PertAdaptiveConfig::default(), 60, 0);
    cc.alpha = 4.0;
    let mut tp = ca_state(100);
    let mut rng = from_seed(1);
    for _ in 0..100 {
        cc.cong_avoid(&mut tp, 1, &mut rng);
    }
    // 400 segments of credit: +1 at 100, 101, 102 -> 303 spent, 97 left (< 103).
    assert_eq!(tp.snd_cwnd, 103);
    assert!((cc.ai_credit - 97.0).abs() < 1e-9);
    cc.alpha = 2.5;
    for _ in 0..103 {
        cc.cong_avoid(&mut tp, 1, &mut rng);
    }
    // 97 + 257.5 = 354.5: +1 at 103, 104, 105 -> 42.5 left.
    assert_eq!(tp.snd_cwnd, 106);
}

/// Drive the controller with one ACK per ms carrying an RTT of `p + q`.
fn run(cc: &mut PertAdaptive, tp: &mut CcState, from_ms: u64, to_ms: u64, rtt_ms: u64) {
    let mut rng = from_seed(9);
    for t in from_ms..to_ms {
        tp.now = t * MS;
        cc.pkts_acked(tp, &AckSample { pkts_acked: 1, rtt: Some(rtt_ms * MS) }, &mut rng);
    }
}

#[test]
fn alpha_climbs_by_half_per_period_in_high_speed_mode_up_to_alpha_max() {
    let mut cc = PertAdaptive::new(PertAdaptiveConfig::default());
    let mut tp = ca_state(100);
    // RTT 100 ms, no queue: periods of 500 ms, each ends in high-speed mode.
    run(&mut cc, &mut tp, 0, 2_001, 100);
    assert_eq!(cc.mode(), Mode::HighSpeed);
    assert_eq!(cc.alpha(), 3.0); // four periods: 1 + 4 * 0.5
    run(&mut cc, &mut tp, 2_001, 40_000, 100);
    assert_eq!(cc.alpha(), 32.0);
    // The initial mode (safe) is in force over the first period, high speed from its end
    // (0.5 s) to now (the last ACK, at 39.999 s).
    let t = cc.counters(39_999 * MS).mode_time_ns;
    assert_eq!(t, [39_499 * MS, 500 * MS, 0]);
    // Between events the mode in force keeps counting.
    assert_eq!(cc.counters(45_000 * MS).mode_time_ns[Mode::HighSpeed as usize], 44_500 * MS);
}

#[test]
fn alpha_decays_to_one_in_safe_mode() {
    // q_max 40 ms: safe between T1 = 5 ms and 0.5 q_max = 20 ms; q -> 10 ms.
    let mut cc = PertAdaptive::new(PertAdaptiveConfig { q_max_init_ns: 40 * MS, ..PertAdaptiveConfig::default() });
    cc.alpha = 10.0;
    let mut tp = ca_state(100);
    run(&mut cc, &mut tp, 0, 1, 100);
    run(&mut cc, &mut tp, 1, 3_000, 110);
    assert_eq!(cc.mode(), Mode::Safe);
    assert!(cc.alpha() < 10.0 * 0.9 * 0.9 * 0.9 + 1e-9 && cc.alpha() > 1.0, "{}", cc.alpha());
    run(&mut cc, &mut tp, 3_000, 20_000, 110);
    assert_eq!(cc.alpha(), 1.0);
    assert_eq!(cc.q_max_ns(), 40 * MS);
}

#[test]
fn compete_target_is_one_plus_p_early_over_p_capped_at_alpha_max() {
    let mut cc = with_qdelay(PertAdaptiveConfig::default(), 60, 10_000);
    // No loss yet: alpha_max.
    assert_eq!(cc.compete_target(), 32.0);
    // p = 1/1000, p' = 1/100: 1 + 10 = 11 (q = 10 ms >= 0.65 q_max = 6.5 ms).
    for _ in 0..1000 {
        cc.losses.on_acked(1);
    }
    cc.losses.on_event();
    for _ in 0..100 {
        cc.early.on_acked(1);
    }
    cc.early.on_event();
    assert!((cc.compete_target() - 11.0).abs() < 1e-9);
    // Halfway between 0.5 q_max (5 ms) and 0.65 q_max (6.5 ms), on the hyperbola
    // with its pole at 0.49 q_max (4.9 ms): the port's k2 - k1 / (q - 0.49 q_max)
    // with k1 = 10 x 10 ms x 16 / 1500, k2 = 1 + 10 x 16 / 15 = 11.667 - 1.255 = 10.412.
    cc.signal.srtt = Some((60_000 + 5_750) << SRTT_SHIFT);
    let k1 = 10.0 * 10.0 * 16.0 / 1500.0;
    let k2 = 1.0 + 10.0 * 16.0 / 15.0;
    assert!((cc.compete_target() - (k2 - k1 / (5.75 - 4.9))).abs() < 1e-9, "{}", cc.compete_target());
    // Just above 0.5 q_max the hyperbola rises steeply: at 5.1 ms it is 53 % of the way up.
    cc.signal.srtt = Some((60_000 + 5_100) << SRTT_SHIFT);
    assert!((cc.compete_target() - (k2 - k1 / (5.1 - 4.9))).abs() < 1e-9, "{}", cc.compete_target());
    // At or below 0.5 q_max: 1.
    cc.signal.srtt = Some((60_000 + 5_000) << SRTT_SHIFT);
    assert_eq!(cc.compete_target(), 1.0);
}

#[test]
fn alpha_rises_by_the_compete_step_per_period_in_compete_mode() {
    let mut cc = PertAdaptive::new(PertAdaptiveConfig { compete_step: 0.25, ..PertAdaptiveConfig::default() });
    let mut tp = ca_state(100);
    run(&mut cc, &mut tp, 0, 1, 100);
    // 30 ms of queueing, q_max grows to 30 ms: q > 0.65 q_max once srtt catches up.
    run(&mut cc, &mut tp, 1, 10_000, 130);
    assert_eq!(cc.mode(), Mode::Compete);
    let a = cc.alpha();
    assert!(a > 1.5 && a < 32.0, "{a}");
    run(&mut cc, &mut tp, 10_000, 10_650, 130);
    assert!((cc.alpha() - (a + 0.25)).abs() < 1e-9, "{} after {a}", cc.alpha());
    // The default step is spec C8's 0.1.
    assert_eq!(PertAdaptiveConfig::default().compete_step, 0.1);
}

/// Compete mode's step up is `min(alpha + compete_step, target)` (spec C8, the third-party
/// port's): a target below alpha takes alpha down to it in one period. The theses do not say how
/// alpha moves down in compete mode; a queue standing near `0.5 q_max`, where the target is
/// about 1, so takes alpha from tens to 1 at once (docs/model.md, issue 15's video study).
#[test]
fn a_compete_target_below_alpha_takes_alpha_down_to_it_in_one_period() {
    let mut cc = PertAdaptive::new(PertAdaptiveConfig::default());
    let mut tp = ca_state(100);
    run(&mut cc, &mut tp, 0, 1, 100);
    run(&mut cc, &mut tp, 1, 10_000, 130);
    assert_eq!(cc.mode(), Mode::Compete);
    // Both estimators have counted the 10,000 ACKs so far; a loss after 100,000 more and an
    // early response after 50,000 more close intervals of 110,000 and 60,000 ACKs, far longer
    // than the period's 650 (so no ageing moves the target during it): target
    // 1 + 110,000 / 60,000, in force above 0.65 q_max (q about 30 ms = q_max here).
    for (est, n) in [(&mut cc.losses, 100_000), (&mut cc.early, 50_000)] {
        est.on_acked(n);
        est.on_event();
    }
    let target = 1.0 + 110_000.0 / 60_000.0;
    assert!((cc.compete_target() - target).abs() < 1e-9, "{}", cc.compete_target());
    cc.alpha = 20.0;
    run(&mut cc, &mut tp, 10_000, 10_650, 130);
    assert_eq!(cc.mode(), Mode::Compete);
    assert!((cc.alpha() - target).abs() < 1e-9, "{} against {target}", cc.alpha());
}

#[test]
fn validation_names_the_field() {
    let d = PertAdaptiveConfig::default;
    let err = |c: PertAdaptiveConfig| c.validate("flows[0].cc").unwrap_err();
    let e = err(PertAdaptiveConfig { alpha_max: 0.5, ..d() });
    assert_eq!(e.field, "flows[0].cc.alpha_max");
    assert!(e.message.contains("at least 1"), "{}", e.message);
    let e = err(PertAdaptiveConfig { interval_weights: vec![0.0, 0.0], ..d() });
    assert_eq!(e.field, "flows[0].cc.interval_weights");
    assert!(e.message.contains("positive"), "{}", e.message);
    assert_eq!(err(PertAdaptiveConfig { interval_weights: vec![1.0, -1.0], ..d() }).field, "flows[0].cc.interval_weights[1]");
    assert_eq!(err(PertAdaptiveConfig { interval_weights: vec![], ..d() }).field, "flows[0].cc.interval_weights");
    assert_eq!(err(PertAdaptiveConfig { t3_frac: 0.4, ..d() }).field, "flows[0].cc.t3_frac");
    assert_eq!(err(PertAdaptiveConfig { p_max: 0.0, ..d() }).field, "flows[0].cc.p_max");
    assert_eq!(err(PertAdaptiveConfig { safe_decay: 1.5, ..d() }).field, "flows[0].cc.safe_decay");
    let e = err(PertAdaptiveConfig { min_rtt_window_ns: Some(0), ..d() });
    assert_eq!(e.field, "flows[0].cc.min_rtt_window_ns");
    assert!(e.message.contains("must be positive, or unset"), "{}", e.message);
    assert!(d().validate("x").is_ok());
}

#[test]
fn a_min_rtt_window_lets_a_standing_queue_into_p_where_the_smallest_sample_keeps_it_out() {
    // 1 s of an empty path (RTT 100 ms), then 30 s of a standing queue of 40 ms.
    let drive = |window: Option<u64>| {
        let mut cc = PertAdaptive::new(PertAdaptiveConfig { min_rtt_window_ns: window, ..PertAdaptiveConfig::default() });
        let mut tp = ca_state(100);
        run(&mut cc, &mut tp, 0, 1_000, 100);
        run(&mut cc, &mut tp, 1_000, 31_000, 140);
        (cc.signal().min_rtt_us, cc.qdelay_ns())
    };
    // The theses' P: the empty path's 100 ms for good, the queue seen as 40 ms of delay.
    let (p, q) = drive(None);
    assert_eq!(p, Some(100_000));
    assert!(q > 39 * MS && q <= 40 * MS, "{q}");
    // A 10 s window forgets the empty path 10 s after its last sample: P becomes 140 ms and
    // the queue, standing ever since, reads as none.
    let (p, q) = drive(Some(10 * SEC));
    assert_eq!(p, Some(140_000));
    assert!(q < MS, "{q}");
    // A window longer than the run is the smallest sample.
    assert_eq!(drive(Some(100 * SEC)).0, Some(100_000));
}
