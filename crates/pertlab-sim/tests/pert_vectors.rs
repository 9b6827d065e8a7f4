//! Shared PERT test vectors: the Rust controller (`tcp::cc::pert`) is the
//! reference; `tests/vectors/pert.json` records ACK-event sequences driven
//! through it, with the random draws it made and the state after each event.
//! The eBPF program's algorithm (`bpf/pert_algo.h`) replays the same file in
//! user space (`tests/python/test_pert_vectors.py`).
//!
//! Regenerate after a deliberate change to the algorithm:
//! `PERTLAB_WRITE_VECTORS=1 cargo test --release -p pertlab-sim --test pert_vectors`.
//!
//! Format: `{"cases": [case...]}`, a case being
//! - `name`, `seed` (the draws come from `rng::from_seed(seed)`),
//! - `config`: the `PertConfig` as JSON; `fixed`: the same parameters in the
//!   fixed point both implementations use (`t_min`, `t_max`, `t_end`: us << 10;
//!   `have_t_end`; `p_max`: units of 2^-32; `weight_ppm`, `keep_ppm`: millionths;
//!   `literal`, `respond_in_slow_start`: 0/1; `min_rtt_window_us`, 0 for none),
//! - `init`: `cwnd`, `ssthresh`, `cwnd_cnt`, `clamp`, `snd_una`, `snd_nxt`,
//! - `events`: each at `now_us` (the clock, microseconds); each sets the sender's fields (`snd_una`, `snd_nxt`, `ca_state`,
//!   and optionally `cwnd`, `ssthresh`, `cwnd_cnt` as the sender writes them on
//!   loss recovery), then calls, in this order, `ssthresh` (if `call_ssthresh`),
//!   `pkts_acked` (if `pkts_acked`, with `rtt_us` or none), `cong_avoid` (if
//!   `cong_avoid`, with `acked` segments); `draws` lists the u32 draws made, in
//!   order; `expect` holds `cwnd`, `ssthresh`, `cwnd_cnt`, `early_responses`,
//!   `srtt` (us << 10, null before a sample), `min_rtt_us`, `prob` (2^-32
//!   units) after the event, and `ssthresh_ret` when `ssthresh` was called.

mod common;

use common::draws_made;
use pertlab_sim::rng::from_seed;
use pertlab_sim::tcp::cc::pert::{Pert, PertConfig, PertThresholds, PPM, PROB_ONE, SRTT_SHIFT};
use pertlab_sim::tcp::cc::{AckSample, CaState, CcState, CongestionControl};
use serde_json::{json, Value};
use std::path::PathBuf;

const MS: u64 = 1_000_000;

fn vectors_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/pert.json")
}

fn ca_from(s: &str) -> CaState {
    match s {
        "open" => CaState::Open,
        "disorder" => CaState::Disorder,
        "cwr" => CaState::Cwr,
        "recovery" => CaState::Recovery,
        "loss" => CaState::Loss,
        other => panic!("unknown ca_state {other}"),
    }
}

/// The fixed-point parameters `Pert::new` derives, as the C side takes them.
fn fixed(cfg: &PertConfig) -> Value {
    let scaled = |ns: u64| (ns / 1000) << SRTT_SHIFT;
    let ppm = |x: f64| (x.clamp(0.0, 1.0) * PPM as f64).round() as u64;
    json!({
        "t_min": scaled(cfg.t_min_ns),
        "t_max": scaled(cfg.t_max_ns),
        "t_end": cfg.t_curve_end_ns.map_or(0, scaled),
        "have_t_end": u8::from(cfg.t_curve_end_ns.is_some()),
        "p_max": (cfg.p_max.clamp(0.0, 1.0) * PROB_ONE as f64).round() as u64,
        "weight_ppm": ppm(cfg.srtt_weight),
        "keep_ppm": PPM - ppm(cfg.decrease),
        "literal": u8::from(cfg.thresholds == PertThresholds::Literal),
        "respond_in_slow_start": u8::from(cfg.respond_in_slow_start),
        "min_rtt_window_us": cfg.min_rtt_window_ns.map_or(0, |ns| ns / 1000),
    })
}

fn expect(cc: &Pert, tp: &CcState, ssthresh_ret: Option<u32>) -> Value {
    let mut e = json!({
        "cwnd": tp.snd_cwnd,
        "ssthresh": tp.snd_ssthresh,
        "cwnd_cnt": tp.snd_cwnd_cnt,
        "early_responses": cc.counters(0).early_responses,
        "srtt": cc.srtt_fixed(),
        "min_rtt_us": cc.min_rtt_ns().map(|ns| ns / 1000),
        "prob": cc.probability_fixed(),
    });
    if let Some(r) = ssthresh_ret {
        e["ssthresh_ret"] = json!(r);
    }
    e
}

/// A bulk flow through a bottleneck: the RTT grows with the window beyond a
/// BDP, and a loss happens when the window exceeds BDP + buffer. Some ACKs
/// carry no RTT sample, some acknowledge two segments (delayed ACKs). The
/// clock advances one RTT per window. From ACK `standing.0` to ACK
/// `standing.1` competing traffic adds `standing.2` us of queue to every RTT.
struct Model {
    base_us: u64,
    bdp: u32,
    buffer: u32,
    per_pkt_us: u64,
    standing: (usize, usize, u64),
}

fn generate_case(name: &str, cfg: PertConfig, seed: u64, model: Model, init_una: u32, n_acks: usize, extra_rtts: &[u64]) -> Value {
    let mut cc = Pert::new(cfg.clone());
    let mut rng = from_seed(seed);
    let mut tp = CcState::new(10, 100_000, 1500);
    tp.snd_una = init_una;
    tp.snd_nxt = init_una.wrapping_add(10);
    let init = json!({
        "cwnd": tp.snd_cwnd, "ssthresh": tp.snd_ssthresh, "cwnd_cnt": tp.snd_cwnd_cnt,
        "clamp": tp.snd_cwnd_clamp, "snd_una": tp.snd_una, "snd_nxt": tp.snd_nxt,
    });
    let mut events = vec![];
    let mut recovery_left = 0u32;
    let mut rtts = extra_rtts.iter().copied();
    let mut now_us: u64 = 1_000_000;
    let mut last_rtt_us = model.base_us;
    for i in 0..n_acks {
        let acked = if i % 7 == 3 { 2 } else { 1 };
        tp.snd_una = tp.snd_una.wrapping_add(acked);
        now_us += last_rtt_us.min(10_000_000) * u64::from(acked) / u64::from(tp.snd_cwnd.max(1));
        tp.now = now_us * 1000;
        let mut ev = json!({});
        let mut ssthresh_ret = None;
        // Loss: detected when the window overflows the path; one recovery
        // of a few ACKs, then the window is ssthresh (NewReno's exit).
        if recovery_left == 0 && tp.snd_cwnd > model.bdp + model.buffer {
            tp.ca_state = CaState::Recovery;
            let ret = cc.ssthresh(&tp);
            ssthresh_ret = Some(ret);
            recovery_left = 5;
            ev["call_ssthresh"] = json!(true);
            ev["ca_state_before_hooks"] = json!("recovery");
        } else if recovery_left > 0 {
            recovery_left -= 1;
            if recovery_left == 0 {
                let ss = tp.snd_ssthresh;
                tp.snd_cwnd = ss;
                tp.snd_cwnd_cnt = 0;
                tp.ca_state = CaState::Open;
                ev["cwnd"] = json!(ss);
                ev["cwnd_cnt"] = json!(0);
            }
        }
        if let Some(r) = ssthresh_ret {
            tp.snd_ssthresh = r;
            ev["ssthresh"] = json!(r);
        }
        let queued = u64::from(tp.snd_cwnd.saturating_sub(model.bdp));
        let rtt_us = match rtts.next() {
            Some(r) => Some(r),
            None if i % 11 == 5 => None,
            None => {
                let (from, until, extra_us) = model.standing;
                let extra = if (from..until).contains(&i) { extra_us } else { 0 };
                Some(model.base_us + extra + queued * model.per_pkt_us + (i as u64 * 37) % 500)
            }
        };
        if let Some(r) = rtt_us {
            last_rtt_us = r.max(1);
        }
        cc.pkts_acked(&mut tp, &AckSample { pkts_acked: acked, rtt: rtt_us.map(|us| us * 1000) }, &mut rng);
        let call_ca = matches!(tp.ca_state, CaState::Open | CaState::Disorder);
        let before = rng.clone();
        if call_ca {
            cc.cong_avoid(&mut tp, acked, &mut rng);
        }
        let draws = draws_made(&before, &rng);
        ev["now_us"] = json!(now_us);
        ev["snd_una"] = json!(tp.snd_una);
        ev["snd_nxt"] = json!(tp.snd_nxt);
        ev["ca_state"] = json!(tp.ca_state.name());
        ev["pkts_acked"] = json!(true);
        ev["rtt_us"] = json!(rtt_us);
        ev["acked"] = json!(acked);
        ev["cong_avoid"] = json!(call_ca);
        ev["draws"] = json!(draws);
        ev["expect"] = expect(&cc, &tp, ssthresh_ret);
        events.push(ev);
        // The sender fills the window after the ACK.
        let top = tp.snd_una.wrapping_add(tp.snd_cwnd);
        if (top.wrapping_sub(tp.snd_nxt) as i32) > 0 {
            tp.snd_nxt = top;
        }
    }
    let mut events_clean = vec![];
    for mut ev in events {
        ev.as_object_mut().unwrap().remove("ca_state_before_hooks");
        events_clean.push(ev);
    }
    json!({
        "name": name, "seed": seed, "config": cfg, "fixed": fixed(&cfg), "init": init, "events": events_clean,
    })
}

fn generate() -> Value {
    let d = PertConfig::default;
    let path = || Model { base_us: 20_000, bdp: 40, buffer: 30, per_pkt_us: 400, standing: (0, 0, 0) };
    let cases = vec![
        generate_case("default", d(), 1, path(), 1000, 1000, &[]),
        generate_case("sequence_wrap_and_losses", d(), 2, Model { bdp: 8, buffer: 6, per_pkt_us: 300, ..path() }, u32::MAX - 300, 900, &[]),
        generate_case(
            "literal_thresholds",
            PertConfig { thresholds: PertThresholds::Literal, ..d() },
            3,
            Model { base_us: 5_000, buffer: 60, ..path() },
            0,
            700,
            &[],
        ),
        generate_case("curve_end_30ms", PertConfig { t_curve_end_ns: Some(30 * MS), ..d() }, 4, Model { buffer: 60, ..path() }, 7, 600, &[]),
        generate_case("no_slow_start_response", PertConfig { respond_in_slow_start: false, ..d() }, 5, Model { buffer: 200, ..path() }, 0, 700, &[]),
        generate_case(
            "other_parameters",
            PertConfig { p_max: 1.0, decrease: 0.5, srtt_weight: 0.875, t_min_ns: 2 * MS, t_max_ns: 3 * MS + 999, ..d() },
            6,
            Model { bdp: 10, buffer: 12, per_pkt_us: 150, ..path() },
            0,
            800,
            &[],
        ),
        // Queueing delays of seconds on a 5000 s gentle region: the
        // interpolation's product exceeds 64 bits; extreme samples (0 us,
        // the s32 maximum) at the start.
        generate_case(
            "long_curve_and_extreme_rtts",
            PertConfig { t_curve_end_ns: Some(5_000_000 * MS), ..d() },
            7,
            Model { base_us: 1_000, bdp: 10, buffer: 500, per_pkt_us: 200_000, standing: (0, 0, 0) },
            0,
            600,
            &[1_000, 0, i32::MAX as u64, 3_000_000_000, 50_000_000, 1_500_000_000],
        ),
        // `P` over a 300 ms window: competing traffic keeps 25 ms of queue
        // from ACK 300 to ACK 2300, so the smallest sample expires and `P`
        // rises with the queue (the later choices take over, the quarter- and
        // half-window refreshes run), then falls after it.
        generate_case(
            "min_rtt_window",
            PertConfig { min_rtt_window_ns: Some(300 * MS), ..d() },
            8,
            Model { standing: (300, 2300, 25_000), ..path() },
            0,
            3000,
            &[],
        ),
    ];
    json!({ "cases": cases })
}

#[test]
fn vectors_file_is_what_the_reference_generates() {
    let generated = generate();
    let path = vectors_path();
    if std::env::var_os("PERTLAB_WRITE_VECTORS").is_some() {
        std::fs::write(&path, serde_json::to_string(&generated).unwrap() + "\n").unwrap();
    }
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("tests/vectors/pert.json")).unwrap();
    assert!(stored == generated, "tests/vectors/pert.json is stale: regenerate with PERTLAB_WRITE_VECTORS=1");
}

/// Replays the stored file through `Pert`, independently of the generator:
/// the draws must be the ones `from_seed(seed)` yields, and the state after
/// every event the recorded one.
#[test]
fn replay_vectors_through_pert() {
    if std::env::var_os("PERTLAB_WRITE_VECTORS").is_some() {
        return; // the other test is rewriting the file
    }
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(vectors_path()).unwrap()).unwrap();
    let cases = stored["cases"].as_array().unwrap();
    assert!(cases.len() >= 8);
    let (mut responses, mut draws_total, mut losses) = (0, 0, 0);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let cfg: PertConfig = serde_json::from_value(case["config"].clone()).unwrap();
        assert_eq!(case["fixed"], fixed(&cfg), "{name}");
        let mut cc = Pert::new(cfg);
        let mut rng = from_seed(case["seed"].as_u64().unwrap());
        let init = &case["init"];
        let g = |v: &Value, k: &str| v[k].as_u64().unwrap() as u32;
        let mut tp = CcState::new(g(init, "cwnd"), g(init, "clamp"), 1500);
        tp.snd_ssthresh = g(init, "ssthresh");
        tp.snd_cwnd_cnt = g(init, "cwnd_cnt");
        tp.snd_una = g(init, "snd_una");
        tp.snd_nxt = g(init, "snd_nxt");
        for (i, ev) in case["events"].as_array().unwrap().iter().enumerate() {
            tp.now = ev["now_us"].as_u64().unwrap() * 1000;
            tp.snd_una = g(ev, "snd_una");
            tp.snd_nxt = g(ev, "snd_nxt");
            for (k, field) in [("cwnd", &mut tp.snd_cwnd), ("cwnd_cnt", &mut tp.snd_cwnd_cnt)] {
                if let Some(v) = ev.get(k) {
                    *field = v.as_u64().unwrap() as u32;
                }
            }
            let mut ret = None;
            if ev.get("call_ssthresh").is_some_and(|v| v.as_bool().unwrap()) {
                ret = Some(cc.ssthresh(&tp));
                losses += 1;
            }
            if let Some(v) = ev.get("ssthresh") {
                tp.snd_ssthresh = v.as_u64().unwrap() as u32;
            }
            tp.ca_state = ca_from(ev["ca_state"].as_str().unwrap());
            let acked = g(ev, "acked");
            if ev["pkts_acked"].as_bool().unwrap() {
                let rtt = ev["rtt_us"].as_u64().map(|us| us * 1000);
                cc.pkts_acked(&mut tp, &AckSample { pkts_acked: acked, rtt }, &mut rng);
            }
            let before = rng.clone();
            if ev["cong_avoid"].as_bool().unwrap() {
                cc.cong_avoid(&mut tp, acked, &mut rng);
            }
            let draws: Vec<u32> = serde_json::from_value(ev["draws"].clone()).unwrap();
            assert_eq!(draws_made(&before, &rng), draws, "{name} event {i}: draws");
            draws_total += draws.len();
            assert_eq!(expect(&cc, &tp, ret), ev["expect"], "{name} event {i}");
        }
        responses += cc.counters(0).early_responses;
    }
    // The vectors exercise what they are for.
    assert!(responses >= 20, "{responses} early responses");
    assert!(draws_total >= 200, "{draws_total} draws");
    assert!(losses >= 5, "{losses} losses");
}

/// The windowed case moves `P` both ways: up by most of the competing
/// traffic's 25 ms of queue once the smallest sample leaves the window, and
/// down by most of it after the traffic leaves. With the smallest sample ever,
/// `P` never rises.
#[test]
fn the_window_case_lets_p_rise_with_a_standing_queue_and_fall_after_it() {
    let generated = generate();
    let case = generated["cases"].as_array().unwrap().iter().find(|c| c["name"] == "min_rtt_window").unwrap();
    let p: Vec<u64> = case["events"].as_array().unwrap().iter().filter_map(|ev| ev["expect"]["min_rtt_us"].as_u64()).collect();
    let (first, highest, last) = (p[0], *p.iter().max().unwrap(), *p.last().unwrap());
    assert!(highest >= first + 20_000, "P from {first} us rose only to {highest} us");
    assert!(last + 15_000 <= highest, "P stayed at {last} us after the queue left (highest {highest} us)");
}
