//! Shared adaptive-PERT test vectors: the Rust controller in the eBPF twin's
//! fixed point (`PertAdaptive<Fixed>`) is the reference;
//! `tests/vectors/pert_adaptive.json` records ACK-event sequences driven
//! through it, with the random draws it made and its state after each event.
//! The kernel program's algorithm (`bpf/pert_adaptive_algo.h`) replays the
//! same file in user space (`tests/python/test_pert_adaptive_vectors.py`).
//!
//! Regenerate after a deliberate change to the algorithm:
//! `PERTLAB_WRITE_VECTORS=1 cargo test --release -p pertlab-sim --test pert_adaptive_vectors`.
//!
//! Format: `{"expect_fields": [...], "cases": [case...]}`, a case being
//! - `name`, `seed` (the draws come from `rng::from_seed(seed)`),
//! - `config`: the `PertAdaptiveConfig` as JSON; `fixed`: the parameters in
//!   the C fixed point (`struct perta_params`: times us << 10, fractions,
//!   steps and weights in millionths, flags 0/1),
//! - `init`: `cwnd`, `ssthresh`, `cwnd_cnt`, `clamp`, `snd_una`, `snd_nxt`,
//! - `events`: each an array `[now_us, snd_una, snd_nxt, cwnd, ssthresh,
//!   cwnd_cnt, call_ssthresh, rtt_us, acked, cong_avoid, draws, expect]`:
//!   the sender sets `snd_una`, `snd_nxt` and, when not -1, `cwnd` and
//!   `cwnd_cnt` (recovery exit); then `ssthresh` is called if
//!   `call_ssthresh` (1), then the sender sets `ssthresh` when not -1, then
//!   `pkts_acked` with `acked` segments and the sample `rtt_us` (-1: none) at
//!   `now_us`, then `cong_avoid` if `cong_avoid` (1); `draws` lists the u32
//!   draws made; `expect` is the state after the event in the order of
//!   `expect_fields` (-1 for srtt / min_rtt before a sample and for
//!   `ssthresh_ret` when `ssthresh` was not called), followed by the loss
//!   history and the early-response history (each its length, then its
//!   entries, most recent first).

mod common;

use common::draws_made;
use pertlab_sim::rng::from_seed;
use pertlab_sim::tcp::cc::pert_adaptive::fixed::ppm;
use pertlab_sim::tcp::cc::pert_adaptive::{Fixed, LossBeta, PertAdaptive, PertAdaptiveConfig, QmaxSource};
use pertlab_sim::tcp::cc::pert_signal::{ns_to_scaled, to_ppm, to_prob};
use pertlab_sim::tcp::cc::{AckSample, CcState, CongestionControl};
use serde_json::{json, Value};
use std::path::PathBuf;

const MS: u64 = 1_000_000;
const EXPECT_FIELDS: [&str; 17] = [
    "cwnd",
    "ssthresh",
    "cwnd_cnt",
    "early_responses",
    "srtt",
    "min_rtt_us",
    "prob",
    "q_max",
    "alpha",
    "mode",
    "keep_ppm",
    "target",
    "p_ppm",
    "p_early_ppm",
    "mode_time_us_high_speed",
    "mode_time_us_safe",
    "mode_time_us_compete",
];
const EXPECT_FIELDS_TAIL: &str = "ssthresh_ret";

fn vectors_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/pert_adaptive.json")
}

/// The fixed-point parameters `Fixed` and `PertAdaptive` derive, as the C side takes them.
fn fixed(cfg: &PertAdaptiveConfig) -> Value {
    json!({
        "t_min": ns_to_scaled(cfg.t_min_ns),
        "t_max": ns_to_scaled(cfg.t_max_ns),
        "p_max": to_prob(cfg.p_max),
        "weight_ppm": to_ppm(cfg.srtt_weight),
        "respond_in_slow_start": u8::from(cfg.respond_in_slow_start),
        "q_max_init": ns_to_scaled(cfg.q_max_init_ns).max(1),
        "alpha_max": ppm(cfg.alpha_max),
        "compete_frac": ppm(cfg.compete_frac),
        "t3_frac": ppm(cfg.t3_frac),
        "ramp_pole_frac": ppm(cfg.ramp_pole_frac),
        "alpha_period_rtts": ppm(cfg.alpha_period_rtts),
        "high_speed_step": ppm(cfg.high_speed_step),
        "compete_step": ppm(cfg.compete_step),
        "safe_decay": ppm(cfg.safe_decay),
        "weights": cfg.interval_weights.iter().map(|&w| ppm(w)).collect::<Vec<_>>(),
        "t3_floor": u8::from(cfg.t3_floor),
        "q_max_srtt": u8::from(cfg.q_max_source == QmaxSource::Srtt),
        "loss_half": u8::from(cfg.loss_beta == LossBeta::Half),
        "min_rtt_window_us": cfg.min_rtt_window_ns.map_or(0, |ns| ns / 1000),
    })
}

fn rate_ppm(x: f64) -> u64 {
    (x * 1e6).round() as u64
}

fn expect(cc: &PertAdaptive<Fixed>, tp: &CcState, ssthresh_ret: Option<u32>) -> Vec<i64> {
    let counters = cc.counters(tp.now);
    let sig = cc.signal();
    let mut e: Vec<i64> = vec![
        i64::from(tp.snd_cwnd),
        i64::from(tp.snd_ssthresh),
        i64::from(tp.snd_cwnd_cnt),
        counters.early_responses as i64,
        sig.srtt.map_or(-1, |s| s as i64),
        sig.min_rtt_us.map_or(-1, |p| p as i64),
        cc.probability_fixed() as i64,
        cc.q_max_scaled() as i64,
        cc.alpha_raw() as i64,
        cc.mode() as i64,
        cc.keep_ppm() as i64,
        cc.compete_target_raw() as i64,
        rate_ppm(cc.loss_rate()) as i64,
        rate_ppm(cc.early_response_rate()) as i64,
    ];
    e.extend(counters.mode_time_ns.iter().map(|&ns| (ns / 1000) as i64));
    e.push(ssthresh_ret.map_or(-1, i64::from));
    let (losses, early) = cc.estimators();
    for est in [losses, early] {
        e.push(est.history().len() as i64);
        e.extend(est.history().iter().map(|&n| n as i64));
    }
    e
}

/// One stretch of a run: until ACK `until`, competing traffic keeps
/// `extra_us` of queueing delay at the bottleneck (kernel Reno flows joining)
/// and causes a loss every `loss_every` ACKs (0: none).
#[derive(Clone, Copy)]
struct Phase {
    until: usize,
    extra_us: u64,
    loss_every: usize,
}

/// A bulk flow through a bottleneck: the RTT grows with the window beyond a
/// BDP and with the competing traffic's queue; a loss when the window
/// exceeds BDP + buffer or when the competing traffic drops one. The clock
/// advances one RTT per window. Some ACKs carry no RTT sample, some
/// acknowledge two segments.
struct Model {
    base_us: u64,
    bdp: u32,
    buffer: u32,
    per_pkt_us: u64,
    phases: Vec<Phase>,
}

fn generate_case(name: &str, cfg: PertAdaptiveConfig, seed: u64, model: Model, init_una: u32, extra_rtts: &[u64]) -> Value {
    let mut cc: PertAdaptive<Fixed> = PertAdaptive::with_arith(cfg.clone());
    let mut rng = from_seed(seed);
    let mut tp = CcState::new(10, 100_000, 1500);
    tp.snd_una = init_una;
    tp.snd_nxt = init_una.wrapping_add(10);
    let init = json!({
        "cwnd": tp.snd_cwnd, "ssthresh": tp.snd_ssthresh, "cwnd_cnt": tp.snd_cwnd_cnt,
        "clamp": tp.snd_cwnd_clamp, "snd_una": tp.snd_una, "snd_nxt": tp.snd_nxt,
    });
    let n_acks = model.phases.last().map_or(0, |p| p.until);
    let mut events = vec![];
    let mut recovery_left = 0u32;
    let mut rtts = extra_rtts.iter().copied();
    let mut now_us: u64 = 1_000_000;
    let mut last_rtt_us = model.base_us;
    for i in 0..n_acks {
        let phase = *model.phases.iter().find(|p| i < p.until).unwrap();
        let acked = if i % 7 == 3 { 2 } else { 1 };
        tp.snd_una = tp.snd_una.wrapping_add(acked);
        now_us += last_rtt_us.min(10_000_000) * u64::from(acked) / u64::from(tp.snd_cwnd.max(1));
        tp.now = now_us * 1000;
        let (mut set_cwnd, mut set_cnt, mut set_ss, mut ret) = (-1i64, -1i64, -1i64, None);
        let extra_pkts = (phase.extra_us / model.per_pkt_us) as u32;
        let overflow = tp.snd_cwnd + extra_pkts > model.bdp + model.buffer;
        let competing_drop = phase.loss_every > 0 && i % phase.loss_every == phase.loss_every / 2;
        if recovery_left == 0 && (overflow || competing_drop) {
            let r = cc.ssthresh(&tp);
            ret = Some(r);
            recovery_left = 5;
        } else if recovery_left > 0 {
            recovery_left -= 1;
            if recovery_left == 0 {
                tp.snd_cwnd = tp.snd_ssthresh;
                tp.snd_cwnd_cnt = 0;
                (set_cwnd, set_cnt) = (i64::from(tp.snd_cwnd), 0);
            }
        }
        if let Some(r) = ret {
            tp.snd_ssthresh = r;
            set_ss = i64::from(r);
        }
        let queued = u64::from(tp.snd_cwnd.saturating_sub(model.bdp));
        let rtt_us = match rtts.next() {
            Some(r) => Some(r),
            None if i % 11 == 5 => None,
            None => Some(model.base_us + phase.extra_us + queued * model.per_pkt_us + (i as u64 * 37) % 500),
        };
        if let Some(r) = rtt_us {
            last_rtt_us = r.max(1);
        }
        cc.pkts_acked(&mut tp, &AckSample { pkts_acked: acked, rtt: rtt_us.map(|us| us * 1000) }, &mut rng);
        let call_ca = recovery_left == 0;
        let before = rng.clone();
        if call_ca {
            cc.cong_avoid(&mut tp, acked, &mut rng);
        }
        let draws = draws_made(&before, &rng);
        events.push(json!([
            now_us,
            tp.snd_una,
            tp.snd_nxt,
            set_cwnd,
            set_ss,
            set_cnt,
            u8::from(ret.is_some()),
            rtt_us.map_or(-1, |r| r as i64),
            acked,
            u8::from(call_ca),
            draws,
            expect(&cc, &tp, ret),
        ]));
        // The sender fills the window after the ACK.
        let top = tp.snd_una.wrapping_add(tp.snd_cwnd);
        if (top.wrapping_sub(tp.snd_nxt) as i32) > 0 {
            tp.snd_nxt = top;
        }
    }
    json!({ "name": name, "seed": seed, "config": cfg, "fixed": fixed(&cfg), "init": init, "events": events })
}

fn phases(list: &[(usize, u64, usize)]) -> Vec<Phase> {
    list.iter().map(|&(until, extra_us, loss_every)| Phase { until, extra_us, loss_every }).collect()
}

fn generate() -> Value {
    let d = PertAdaptiveConfig::default;
    // 20 ms, 20-packet BDP, 1 ms per queued packet, a 40-packet buffer.
    let path = |ph: Vec<Phase>| Model { base_us: 20_000, bdp: 20, buffer: 40, per_pkt_us: 1_000, phases: ph };
    let cases = vec![
        // Alone (high speed, then safe), competing traffic joins with 25 ms of
        // queue and losses (compete), then leaves (back to safe / high speed).
        generate_case("modes_compete_and_back", d(), 1, path(phases(&[(1500, 0, 0), (3500, 25_000, 250), (5000, 0, 0)])), 1000, &[]),
        // Half on loss, q_max from srtt, slow-start responses, sequence wrap.
        generate_case(
            "half_loss_srtt_q_max_and_wrap",
            PertAdaptiveConfig { loss_beta: LossBeta::Half, q_max_source: QmaxSource::Srtt, respond_in_slow_start: true, ..d() },
            2,
            Model { bdp: 8, buffer: 20, per_pkt_us: 800, ..path(phases(&[(800, 0, 0), (2000, 15_000, 150), (2600, 0, 0)])) },
            u32::MAX - 300,
            &[],
        ),
        // Every other parameter the eBPF twin has off its default but
        // `min_rtt_window_ns` (the next case); a three-weight estimator.
        generate_case(
            "other_parameters",
            PertAdaptiveConfig {
                t_min_ns: 2 * MS,
                t_max_ns: 3 * MS + 999,
                p_max: 0.2,
                srtt_weight: 0.875,
                alpha_max: 8.0,
                compete_frac: 0.3,
                t3_frac: 0.9,
                t3_floor: false,
                ramp_pole_frac: 0.05,
                q_max_init_ns: 4 * MS,
                alpha_period_rtts: 2.0,
                high_speed_step: 1.0,
                compete_step: 0.3,
                safe_decay: 0.8,
                interval_weights: vec![1.0, 0.5, 0.25],
                ..d()
            },
            3,
            Model { base_us: 5_000, bdp: 10, buffer: 15, per_pkt_us: 300, phases: phases(&[(700, 0, 0), (1800, 4_000, 120), (2500, 0, 0)]) },
            0,
            &[],
        ),
        // `P` over a 400 ms window: competing traffic keeps 25 ms of queue for
        // seconds, so the smallest sample expires and `P` rises with the
        // queue (the second and third choices take over, the quarter- and
        // half-window refreshes run), then falls when the traffic leaves.
        generate_case(
            "min_rtt_window",
            PertAdaptiveConfig { min_rtt_window_ns: Some(400 * MS), ..d() },
            6,
            path(phases(&[(800, 0, 0), (4000, 25_000, 0), (5000, 0, 0)])),
            50,
            &[],
        ),
        // A few losses, then a long quiet run: both estimators age (their
        // open interval passes the mean and becomes n1).
        generate_case("ageing_in_a_long_quiet_run", d(), 4, path(phases(&[(600, 20_000, 100), (4000, 0, 0)])), 0, &[]),
        // A leading weight of zero (no mean from one interval); extreme RTT
        // samples (0 us, the s32 maximum and above) so that q_max and the
        // products take the 128-bit paths.
        generate_case(
            "zero_leading_weight_and_extreme_rtts",
            PertAdaptiveConfig { interval_weights: vec![0.0, 1.0, 1.0, 0.5], ..d() },
            5,
            path(phases(&[(400, 0, 60), (1200, 30_000, 90), (1800, 0, 0)])),
            7,
            &[1_000, 0, i32::MAX as u64, 3_000_000_000, 50_000_000, 20_000, 20_000],
        ),
    ];
    json!({ "expect_fields": EXPECT_FIELDS.iter().chain([&EXPECT_FIELDS_TAIL]).collect::<Vec<_>>(), "cases": cases })
}

#[test]
fn vectors_file_is_what_the_reference_generates() {
    let generated = generate();
    let path = vectors_path();
    if std::env::var_os("PERTLAB_WRITE_VECTORS").is_some() {
        std::fs::write(&path, serde_json::to_string(&generated).unwrap() + "\n").unwrap();
    }
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("tests/vectors/pert_adaptive.json")).unwrap();
    assert!(stored == generated, "tests/vectors/pert_adaptive.json is stale: regenerate with PERTLAB_WRITE_VECTORS=1");
}

/// The vectors exercise what they are for: every mode, mode changes,
/// ageing, early responses, losses, draws that did not respond.
#[test]
fn vectors_cover_modes_ageing_responses_and_losses() {
    let generated = generate();
    let (mut modes, mut changes, mut responses, mut losses, mut idle_draws, mut aged) = ([0usize; 3], 0, 0, 0, 0, 0);
    let k = EXPECT_FIELDS.len() + 1;
    for case in generated["cases"].as_array().unwrap() {
        let (mut last_mode, mut last_hist, mut last_early) = (None, vec![0i64], 0);
        for ev in case["events"].as_array().unwrap() {
            let e: Vec<i64> = serde_json::from_value(ev[11].clone()).unwrap();
            let mode = e[9] as usize;
            modes[mode] += 1;
            changes += usize::from(last_mode.is_some_and(|m| m != mode));
            last_mode = Some(mode);
            losses += usize::from(ev[6] == 1);
            // On an ACK that is no loss, the loss history changes only by ageing.
            let hist = e[k..k + 1 + e[k] as usize].to_vec();
            aged += usize::from(ev[6] == 0 && hist != last_hist);
            last_hist = hist;
            idle_draws += usize::from(!ev[10].as_array().unwrap().is_empty() && e[3] == last_early);
            last_early = e[3];
        }
        responses += last_early;
    }
    assert!(modes.iter().all(|&n| n > 200), "events per mode {modes:?}");
    assert!(changes >= 6, "{changes} mode changes");
    assert!(responses >= 30, "{responses} early responses");
    assert!(losses >= 20, "{losses} losses");
    assert!(idle_draws >= 100, "{idle_draws} draws without a response");
    assert!(aged >= 20, "{aged} ACKs that moved the aged loss history");
}

/// The windowed case moves `P` both ways: up by most of the competing
/// traffic's 25 ms of queue once the smallest sample leaves the window, and
/// down by most of it after the traffic leaves (the flow's own queue stays in
/// its samples). With the smallest sample ever, `P` never rises.
#[test]
fn the_window_case_lets_p_rise_with_a_standing_queue_and_fall_after_it() {
    let generated = generate();
    let case = generated["cases"].as_array().unwrap().iter().find(|c| c["name"] == "min_rtt_window").unwrap();
    let p: Vec<i64> = case["events"].as_array().unwrap().iter().map(|ev| ev[11][5].as_i64().unwrap()).filter(|&p| p >= 0).collect();
    let first = p[0];
    let highest = *p.iter().max().unwrap();
    let last = *p.last().unwrap();
    assert!(highest >= first + 20_000, "P from {first} us rose only to {highest} us");
    assert!(last + 15_000 <= highest, "P stayed at {last} us after the queue left (highest {highest} us)");
}
