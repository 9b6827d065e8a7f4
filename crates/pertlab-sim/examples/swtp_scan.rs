//! Exploration (issue 17): WTP and S-WTP long-run delay ratios on the driven
//! 80 Mbit/s server (`traffic::driven`), for a traffic model, number of
//! classes, run length and warm-up given on the command line. Prints one line
//! per seed.
//!
//! cargo run --release --example swtp_scan -- CLASSES ARRIVALS BURST_MS SOURCES PACKETS WARM SEEDS [SPLIT,..]
//! ARRIVALS: onoff | pareto | poisson. WARM: the fraction of PACKETS left out.
//! Environment: U (total load, 0.95), RATIO (of consecutive weights, 2.0), K
//! (departures per window of delay ratios, 10000).

use pertlab_sim::queue::swtp::Swtp;
use pertlab_sim::queue::wtp::Wtp;
use pertlab_sim::scenario::Arrivals;
use pertlab_sim::time::SimTime;
use pertlab_sim::traffic::driven::{drive, Run, Traffic};

/// The 5th, 50th and 95th percentiles of each class pair's window ratios.
fn percentiles(run: &Run) -> String {
    let at = |r: &[f64], p: f64| r.get(((r.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(f64::NAN);
    let pairs = run.queue.windows.ratios.iter().map(|r| {
        let mut r = r.clone();
        r.sort_by(f64::total_cmp);
        format!("{:.2}/{:.2}/{:.2}", at(&r, 0.05), at(&r, 0.5), at(&r, 0.95))
    });
    pairs.collect::<Vec<_>>().join(" ")
}

#[path = "common/args.rs"]
mod args;

fn env(name: &str, default: f64) -> f64 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    const NAMES: [&str; 8] = ["", "CLASSES", "ARRIVALS", "BURST_MS", "SOURCES", "PACKETS", "WARM", "SEEDS"];
    if a.len() < 8 {
        args::fail("usage: swtp_scan CLASSES onoff|pareto|poisson BURST_MS SOURCES PACKETS WARM SEEDS [SPLIT,..]");
    }
    let number = |i: usize| -> f64 {
        let x = args::parse_or_exit(Some(&a[i]), NAMES[i], "a number", 0.0);
        if i != 6 && x < 1.0 {
            args::fail(format!("{}: at least 1, not {x}", NAMES[i]));
        }
        x
    };
    let n = number(1) as usize;
    let arrivals = match a[2].as_str() {
        "onoff" => Arrivals::ParetoOnOff,
        "pareto" => Arrivals::Pareto,
        "poisson" => Arrivals::Poisson,
        other => args::fail(format!("ARRIVALS: onoff, pareto or poisson, not {other:?}")),
    };
    let traffic = Traffic::Mix { arrivals, k: number(4) as usize, period_ns: (number(3) * 1e6) as SimTime };
    let packets = number(5) as u64;
    let warm = (number(6) * packets as f64) as u64;
    let (u, ratio, k) = (env("U", 0.95), env("RATIO", 2.0), env("K", 10_000.0) as u32);
    let split: Vec<f64> = match a.get(8) {
        Some(s) => s.split(',').map(|x| args::parse_or_exit(Some(x), "SPLIT", "numbers separated by commas", 0.0)).collect(),
        None => vec![1.0 / n as f64; n],
    };
    if split.len() != n {
        args::fail(format!("SPLIT: one share per class ({n}), not {}", split.len()));
    }
    let loads: Vec<f64> = split.iter().map(|f| f * u).collect();
    let b: Vec<f64> = (0..n).map(|i| ratio.powi(i as i32)).collect();
    for seed in 1..=number(7) as u64 {
        let s = drive(Box::new(Swtp::new(b.clone(), true)), traffic, &loads, packets, warm, k, seed);
        let w = drive(Box::new(Wtp::new(b.clone())), traffic, &loads, packets, warm, k, seed);
        let r = |w: &[f64]| w.windows(2).map(|p| format!("{:.4}", p[0] / p[1])).collect::<Vec<_>>().join(" ");
        println!(
            "seed {seed} util {:.4} top_wait {:.2} | swtp {} | wtp {} | K swtp {} wtp {}",
            s.utilization,
            s.waits[n - 1],
            r(&s.waits),
            r(&w.waits),
            percentiles(&s),
            percentiles(&w)
        );
    }
}
