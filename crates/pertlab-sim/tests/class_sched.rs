//! Multi-class schedulers (Hua's thesis, CUHK 2002, Chapter 5; spec
//! `vegas-jcc-swtp-hua.md` section 4): WTP against Kleinrock's formula, S-WTP's
//! long-run ratios at U = 0.95 (Table 5.1's band), why S-WTP's global update
//! exists, and the cost per decision. The queue is driven directly
//! (`traffic::driven`: a single server fed by per-class sources) so that runs
//! of millions of packets stay fast; `multi_class_link_end_to_end` checks the
//! same queue inside a world.

use pertlab_sim::queue::classes::Scheduler;
use pertlab_sim::queue::swtp::Swtp;
use pertlab_sim::queue::wtp::Wtp;
use pertlab_sim::scenario::Arrivals;
use pertlab_sim::time::SimTime;
use pertlab_sim::traffic::driven::{self, Traffic, RATE_BPS};
use pertlab_sim::traffic::udp::class_rates;

/// Mean burst = mean idle time of the Pareto on/off sources, as
/// `pertlab.experiments.hua02_swtp.BURST`. The thesis gives only the shape
/// 1.9 (section 5.4; spec `vegas-jcc-swtp-hua.md` section 4.4, GAP "source
/// model"). 30 ms is the shortest of 10, 20, 30, 50 ms at which WTP's and
/// S-WTP's 6-class top pair comes within 3 % of 2.0 over ten seeds (1.97;
/// 1.89 at 10 ms, 1.93 at 20 ms); see `the_top_pair_falls_short_by_a_floor_of_one_transmission`
/// and docs/reproductions.md, "hua02-swtp".
const BURST_NS: SimTime = 30_000_000;
/// Pareto on/off sources per class (a GAP as well: "several flows" per connection).
const SOURCES_PER_CLASS: usize = 4;

/// ns-2-style Pareto on/off sources, `SOURCES_PER_CLASS` per class, of mean
/// burst and idle `period_ns`: the other reading of the thesis's source.
fn on_off(period_ns: SimTime) -> Traffic {
    Traffic::Mix { arrivals: Arrivals::ParetoOnOff, k: SOURCES_PER_CLASS, period_ns }
}

/// Mean waits per class (in mean service times of the traffic's sizes) and the
/// scheduler's operations per decision, after `packets` departures of the
/// driven server (`traffic::driven`) fed by `traffic` at loads `loads`.
fn drive(scheduler: Box<dyn Scheduler>, traffic: Traffic, loads: &[f64], packets: u64, seed: u64) -> (Vec<f64>, f64) {
    let run = driven::drive(scheduler, traffic, loads, packets, 0, 1000, seed);
    (run.waits, run.ops_per_decision)
}

/// Kleinrock's mean waits under time-dependent priorities (M/G/1,
/// non-preemptive, priority b_p (t - arrival); Kleinrock, "A delay-dependent
/// queue discipline", Naval Research Logistics Quarterly 11, 1964; spec
/// section 6.4), with b_1 <= ... <= b_N, rho = sum rho_i, W_0 = sum lambda_i E[S_i^2] / 2:
///
/// W_p = [W_0 / (1 - rho) - sum_{i<p} rho_i W_i (1 - b_i / b_p)] / [1 - sum_{i>p} rho_i (1 - b_p / b_i)].
///
/// Derivation: a tagged class-p packet waits for the residual service W_0,
/// for the work found waiting that is served before it, and for the work of
/// later arrivals that overtake it. By Little, class i leaves rho_i W_i of
/// work waiting; a class-i packet found waiting goes first except, when
/// b_i < b_p, for the fraction (1 - b_i / b_p) of its wait it is overtaken
/// (its priority line, started earlier with a smaller slope, is crossed);
/// a class-i arrival during the tagged wait (rate lambda_i) overtakes it when
/// b_i > b_p for the fraction (1 - b_p / b_i) of that wait. So
/// W_p = W_0 + sum_i rho_i W_i - sum_{i<p} rho_i W_i (1 - b_i/b_p) + W_p sum_{i>p} rho_i (1 - b_p/b_i),
/// and Kleinrock's conservation law sum_i rho_i W_i = W_0 rho / (1 - rho)
/// (work-conserving, non-preemptive) gives the formula. Waits here are in mean
/// service times: exponential sizes give E[S^2] = 2 E[S]^2, so W_0 = rho.
fn kleinrock(loads: &[f64], b: &[f64]) -> Vec<f64> {
    let rho: f64 = loads.iter().sum();
    let w0 = rho;
    let mut w = vec![0.0; loads.len()];
    for p in 0..loads.len() {
        let overtaken: f64 = (0..p).map(|i| loads[i] * w[i] * (1.0 - b[i] / b[p])).sum();
        let overtaking: f64 = (p + 1..loads.len()).map(|i| loads[i] * (1.0 - b[p] / b[i])).sum();
        w[p] = (w0 / (1.0 - rho) - overtaken) / (1.0 - overtaking);
    }
    w
}

fn weights(n: usize, ratio: f64) -> Vec<f64> {
    (0..n).map(|i| ratio.powi(i as i32)).collect()
}

/// WTP's long-run mean waits on an M/M/1 queue with 3 classes (b = 1, 2, 4,
/// equal loads) match Kleinrock's formula within 3 % at U = 0.65, 0.8, 0.95.
#[test]
fn wtp_mean_waits_match_kleinrock_on_mm1() {
    let b = weights(3, 2.0);
    for (u, packets) in [(0.65, 4_000_000), (0.8, 6_000_000), (0.95, 20_000_000)] {
        let loads = vec![u / 3.0; 3];
        let (sim, _) = drive(Box::new(Wtp::new(b.clone())), Traffic::Markov, &loads, packets, 11);
        let theory = kleinrock(&loads, &b);
        eprintln!("U {u}: WTP {sim:.3?} Kleinrock {theory:.3?}");
        for (c, (s, t)) in sim.iter().zip(&theory).enumerate() {
            assert!((s / t - 1.0).abs() < 0.03, "U {u} class {c}: simulated {s:.4} against Kleinrock {t:.4}");
        }
    }
}

/// Table 5.1's set-up (thesis section 5.4.4): U = 0.95, target ratio 2.0,
/// 4, 5 and 6 classes with equal loads, the 100/500/1000-byte mix. The
/// sources are read as ns-2 Pareto on/off sources (shape 1.9; the number per
/// class and the burst length are GAPs: [`SOURCES_PER_CLASS`] per class, mean
/// burst = idle = [`BURST_NS`], 55 to 80 packets per burst at a source's peak).
/// The long-run ratio of each pair, the mean over seeds 1 to 3 of runs of 4
/// million departures, lies within 5 % of 2.0 (the issue's band; Table 5.1's
/// largest error is 2.8 %), and S-WTP's within 0.05 of WTP's on the same
/// arrivals (Table 5.1: at most 0.049 apart). A single run of 4 million
/// departures scatters more (up to 12 % off on one pair over seeds 1 to 9:
/// heavy-tailed bursts); the means over seeds 4-6 and 7-9 keep every pair
/// within 3.8 % as well.
#[test]
fn swtp_long_run_ratios_lie_within_five_percent_of_the_target_with_four_to_six_classes() {
    let traffic = on_off(BURST_NS);
    for n in [4, 5, 6] {
        let split = vec![1.0 / n as f64; n];
        let loads: Vec<f64> = class_rates(RATE_BPS, 0.95, &split).unwrap().iter().map(|&r| r as f64 / RATE_BPS as f64).collect();
        let mean_ratios = |make: &dyn Fn() -> Box<dyn Scheduler>| {
            let mut sum = vec![0.0; n - 1];
            for seed in 1..=3 {
                let (w, _) = drive(make(), traffic, &loads, 4_000_000, seed);
                for (acc, p) in sum.iter_mut().zip(w.windows(2)) {
                    *acc += p[0] / p[1] / 3.0;
                }
            }
            sum
        };
        let swtp = mean_ratios(&|| Box::new(Swtp::new(weights(n, 2.0), true)));
        let wtp = mean_ratios(&|| Box::new(Wtp::new(weights(n, 2.0))));
        eprintln!("{n} classes: S-WTP {swtp:.4?} WTP {wtp:.4?}");
        for (i, (s, w)) in swtp.iter().zip(&wtp).enumerate() {
            assert!((s / 2.0 - 1.0).abs() < 0.05, "{n} classes, pair {i}: S-WTP {s:.4} more than 5 % from 2.0");
            assert!((s - w).abs() <= 0.05, "{n} classes, pair {i}: S-WTP {s:.4} against WTP {w:.4}");
        }
    }
}

/// Why the top pair fell short with shorter bursts (issue 17): the top class's
/// wait has a floor that does not scale with its weight (the packet found in
/// transmission, non-preemptive: about 0.75 of a mean transmission with the
/// size mix at U = 0.95), so WTP's top pair falls short of the target by about
/// that floor over the top class's mean wait d_top. With 6 classes at U = 0.95,
/// (2 - ratio) d_top stays near one transmission time while d_top grows from
/// under 3 to over 9 transmission times with the burstiness of the traffic
/// (Poisson gaps; on/off bursts of 1, 3 and 10 ms, the last over ten seeds as
/// its scatter is larger); with 30 ms bursts ([`BURST_NS`]) d_top is about 30
/// and the top pair within 5 % of 2.0. S-WTP adds its own lag (a class waits
/// for its turn in the global update's round robin), far behind WTP on the top
/// pair with Poisson gaps and on it with 30 ms bursts. Run length and warm-up
/// are not the cause (docs/reproductions.md, "hua02-swtp").
#[test]
fn the_top_pair_falls_short_by_a_floor_of_one_transmission() {
    let n = 6;
    let loads = vec![0.95 / n as f64; n];
    let b = weights(n, 2.0);
    let on_off = |ms: u64| on_off(ms * 1_000_000);
    let mut rows = Vec::new();
    for (name, traffic, seeds) in [
        ("poisson", Traffic::PoissonMix, 3u64),
        ("1 ms", on_off(1), 3),
        ("3 ms", on_off(3), 3),
        ("10 ms", on_off(10), 10),
        ("30 ms", on_off(BURST_NS / 1_000_000), 3),
    ] {
        let (mut top, mut d_top, mut s_top) = (0.0, 0.0, 0.0);
        let k = seeds as f64;
        for seed in 1..=seeds {
            let (w, _) = drive(Box::new(Wtp::new(b.clone())), traffic, &loads, 2_000_000, seed);
            let (s, _) = drive(Box::new(Swtp::new(b.clone(), true)), traffic, &loads, 2_000_000, seed);
            top += w[n - 2] / w[n - 1] / k;
            d_top += w[n - 1] / k;
            s_top += s[n - 2] / s[n - 1] / k;
        }
        let floor = (2.0 - top) * d_top;
        eprintln!("{name}: top class waits {d_top:.2} transmissions, WTP top pair {top:.3} (floor {floor:.2}), S-WTP {s_top:.3}");
        rows.push((d_top, top, floor, s_top));
    }
    let (poisson, long) = (rows[0], rows[4]);
    assert!(rows[3].0 > 3.0 * poisson.0 && long.0 > 8.0 * poisson.0, "the bursts lengthen the top class's waits: {rows:?}");
    for &(d, top, floor, _) in &rows[..4] {
        assert!((0.5..1.5).contains(&floor), "(2 - {top:.3}) x {d:.2} = {floor:.2} transmissions");
    }
    assert!(poisson.1 < 1.8 && long.1 > 1.9, "WTP's top pair: {:.3} with Poisson gaps, {:.3} with 30 ms bursts", poisson.1, long.1);
    assert!(poisson.1 - poisson.3 > 0.1, "S-WTP's lag with Poisson gaps: WTP {:.3}, S-WTP {:.3}", poisson.1, poisson.3);
    assert!((long.1 - long.3).abs() < 0.02, "S-WTP on WTP with 30 ms bursts: WTP {:.3}, S-WTP {:.3}", long.1, long.3);
}

/// Without the global update, a class whose last packet left quickly keeps a
/// small P_s and waits behind the others however long its head has waited
/// (thesis section 5.3). On M/M/1 with 3 classes and target 2.0, the ratios
/// with the update follow WTP's (1.63 / 1.54 at U = 0.8; Kleinrock gives
/// 1.63 / 1.60); without it the differentiation mostly vanishes.
#[test]
fn swtp_without_global_update_loses_the_differentiation() {
    let b = weights(3, 2.0);
    for u in [0.8, 0.95] {
        let loads = vec![u / 3.0; 3];
        let ratios = |global| {
            let (w, _) = drive(Box::new(Swtp::new(b.clone(), global)), Traffic::Markov, &loads, 3_000_000, 3);
            w.windows(2).map(|p| p[0] / p[1]).collect::<Vec<f64>>()
        };
        let (with, without) = (ratios(true), ratios(false));
        eprintln!("U {u}: S-WTP ratios with the global update {with:.3?}, without {without:.3?}");
        for (i, (a, z)) in with.iter().zip(&without).enumerate() {
            assert!(*a > 1.45, "U {u} pair {i}: with the global update {a:.3}");
            assert!(z - 1.0 < (a - 1.0) / 2.0, "U {u} pair {i}: without it {z:.3} keeps over half the differentiation of {a:.3}");
        }
    }
}

/// Operations per decision with every class backlogged (an overloaded link,
/// total load 1.2): WTP computes all N priorities (3N - 1 operations, the
/// thesis's "about 3N"), S-WTP does two O(log N) heap updates (section 5.3:
/// 2 (2 + log2 N)).
#[test]
fn swtp_costs_grow_logarithmically_and_wtp_linearly() {
    let mut rows = Vec::new();
    for n in [4usize, 16, 64] {
        let loads = vec![1.2 / n as f64; n];
        let (_, wtp) = drive(Box::new(Wtp::new(weights(n, 1.1))), Traffic::Markov, &loads, 200_000, 2);
        let (_, swtp) = drive(Box::new(Swtp::new(weights(n, 1.1), true)), Traffic::Markov, &loads, 200_000, 2);
        eprintln!("N {n}: WTP {wtp:.1} ops/decision, S-WTP {swtp:.1}");
        rows.push((n as f64, wtp, swtp));
    }
    let (first, last) = (rows[0], rows[2]);
    // 16 times the classes: WTP's cost grows about 16 times, S-WTP's under 3 times (log2 64 / log2 4).
    assert!(last.1 / first.1 > 12.0, "WTP {:.1} -> {:.1}", first.1, last.1);
    assert!(last.2 / first.2 < 3.0, "S-WTP {:.1} -> {:.1}", first.2, last.2);
    assert!(last.2 < last.1 / 4.0, "S-WTP {:.1} against WTP {:.1} at 64 classes", last.2, last.1);
}

/// The class of a flow's or UDP source's packets must have a queue at every
/// multi-class queue; the error names the field.
#[test]
fn a_class_without_a_queue_is_refused_naming_the_field() {
    let text = r#"{"duration_ns": 1000000000, "nodes": ["a", "b"],
        "links": [{"a": "a", "b": "b", "rate_bps": 1000000, "delay_ns": 1000, "queue": {"kind": "wtp", "sched": {"weights": [1, 2]}}}],
        "udp": [{"src": "a", "dst": "b", "rate_bps": 100000, "packet_size": 500, "class": 2}]}"#;
    let s = pertlab_sim::scenario::Scenario::from_json(text).unwrap();
    let e = s.validate().unwrap_err();
    assert_eq!(e.field, "udp[0].class");
    assert!(e.message.contains("links[0].queue"), "{}", e.message);
    let bad = text.replace("[1, 2]", "[2, 1]");
    let e = pertlab_sim::scenario::Scenario::from_json(&bad).unwrap().validate().unwrap_err();
    assert_eq!(e.field, "links[0].queue.sched.weights");
    let e = class_rates(1_000_000, 0.9, &[0.5, 0.4]).unwrap_err();
    assert_eq!(e.field, "split");
}

/// One Pareto UDP source (the size mix) per class 0, 1, 2 from `a` to `b`,
/// loading 10 Mbit/s to `utilization` in equal parts, as JSON objects.
fn pareto_classes(utilization: f64) -> Vec<String> {
    let rates = class_rates(10_000_000, utilization, &[1.0 / 3.0; 3]).unwrap();
    rates
        .iter()
        .enumerate()
        .map(|(c, r)| format!(r#"{{"src": "a", "dst": "b", "rate_bps": {r}, "packet_size": 440, "arrivals": "pareto", "sizes": "mix", "class": {c}}}"#))
        .collect()
}

/// The same scheduler inside a world: three Pareto UDP sources of classes 0,
/// 1, 2 cross a 10 Mbit/s link whose queue is S-WTP; per-class counters and
/// delays come out in the results, higher classes wait less, and the windowed
/// ratios are reported.
#[test]
fn multi_class_link_end_to_end() {
    let udp = pareto_classes(0.9);
    let text = format!(
        r#"{{"duration_ns": 60000000000, "seed": 4, "nodes": ["a", "b"],
        "links": [{{"a": "a", "b": "b", "rate_bps": 10000000, "delay_ns": 1000000, "queue": {{"kind": "swtp", "limit_pkts": 100000, "sched": {{"window_k": 1000}}}}}}],
        "udp": [{}]}}"#,
        udp.join(",")
    );
    let s = pertlab_sim::scenario::Scenario::from_json(&text).unwrap();
    let r = pertlab_sim::run(&s).unwrap();
    // Both directions of the link have the S-WTP queue (queue_ba defaults to queue).
    assert_eq!(r.schedulers.len(), 2);
    assert!(r.schedulers.iter().all(|s| s.scheduler == "swtp" && s.classes == 3));
    assert!(r.schedulers[0].decisions > 100_000 && r.schedulers[0].ops_per_decision.unwrap() > 0.0);
    let rows: Vec<_> = r.classes.iter().filter(|c| c.from == "a").collect();
    assert_eq!(rows.len(), 3);
    for c in &rows {
        eprintln!(
            "class {}: {} departures, wait {:.3?} ms = {:.2?} tx, ratio {:?}, windows p50 {:?}",
            c.class, c.departures, c.mean_wait_ms, c.mean_wait_tx, c.ratio_to_next, c.window_ratio_p50
        );
        assert!(c.departures > 40_000 && c.drops == 0);
    }
    let tx: Vec<f64> = rows.iter().map(|c| c.mean_wait_tx.expect("departures")).collect();
    assert!(tx[0] > tx[1] && tx[1] > tx[2], "{tx:?}");
    let ratio = rows[0].ratio_to_next.unwrap();
    assert!(ratio > 1.3 && ratio < 2.2, "ratio {ratio}");
    assert!(rows[0].windows > 100 && rows[0].window_ratio_p5 <= rows[0].window_ratio_p95);
    assert!(rows[2].ratio_to_next.is_none());
}

/// Fig 5.3's packet-level view: with `sched.trace_packets` the queue keeps the
/// waits of its first departures from the measurement window's start, one by
/// one, in the units of the class rows (their mean over the traced packets of a
/// class lies near that class's mean wait), and WTP and S-WTP fed the same
/// arrivals give nearly the same waits per class.
#[test]
fn the_first_departures_waits_are_traced_one_by_one() {
    let udp = pareto_classes(0.95);
    let run = |kind: &str| {
        let text = format!(
            r#"{{"duration_ns": 20000000000, "seed": 5, "measure": {{"start_ns": 2000000000, "end_ns": 20000000000}}, "nodes": ["a", "b"],
            "links": [{{"a": "a", "b": "b", "rate_bps": 10000000, "delay_ns": 1000000,
                       "queue": {{"kind": "{kind}", "limit_pkts": 100000, "sched": {{"trace_packets": 20000}}}},
                       "queue_ba": {{"kind": "droptail"}}}}],
            "udp": [{}]}}"#,
            udp.join(",")
        );
        pertlab_sim::run(&pertlab_sim::scenario::Scenario::from_json(&text).unwrap()).unwrap()
    };
    let (swtp, wtp) = (run("swtp"), run("wtp"));
    let mut per_class = Vec::new();
    for r in [&swtp, &wtp] {
        assert_eq!(r.class_traces.len(), 1, "only the multi-class queue keeps a trace");
        let t = &r.class_traces[0];
        assert_eq!((t.from.as_str(), t.to.as_str(), t.t_s.len(), t.class.len(), t.wait_tx.len()), ("a", "b", 20_000, 20_000, 20_000));
        assert!(t.t_s[0] >= 2.0 && t.t_s.windows(2).all(|w| w[0] <= w[1]), "departures from the window's start, in order");
        let rows: Vec<_> = r.classes.iter().filter(|c| c.from == "a").collect();
        let tx_ms = rows[0].mean_wait_ms.unwrap() / rows[0].mean_wait_tx.unwrap();
        let mut means = Vec::new();
        for c in 0..3u8 {
            let w: Vec<f64> = t.class.iter().zip(&t.wait_tx).filter(|(k, _)| **k == c).map(|(_, w)| *w).collect();
            let ms: Vec<f64> = t.class.iter().zip(&t.wait_ms).filter(|(k, _)| **k == c).map(|(_, w)| *w).collect();
            assert!(w.len() > 5000, "class {c}: {} traced", w.len());
            assert!(w.iter().zip(&ms).all(|(x, y)| (x * tx_ms - y).abs() < 1e-9 * (1.0 + y)), "wait_tx is wait_ms in transmission times");
            means.push(w.iter().sum::<f64>() / w.len() as f64);
        }
        eprintln!("{}: traced mean waits {means:.2?}, window means {:?}", r.schedulers[0].scheduler, rows.iter().map(|c| c.mean_wait_tx).collect::<Vec<_>>());
        assert!(means[0] > means[1] && means[1] > means[2]);
        per_class.push(means);
    }
    for (c, (swtp, wtp)) in per_class[0].iter().zip(&per_class[1]).enumerate() {
        assert!((swtp / wtp - 1.0).abs() < 0.15, "class {c}: S-WTP {swtp:.2} against WTP {wtp:.2}");
    }
}
