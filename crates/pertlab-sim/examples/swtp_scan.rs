//! Exploration (issue 17): WTP and S-WTP long-run delay ratios on one driven
//! 80 Mbit/s link, for a traffic model, number of classes, run length and
//! warm-up given on the command line. Prints one line per seed.
//!
//! cargo run --release --example swtp_scan -- CLASSES ARRIVALS BURST_MS SOURCES PACKETS WARM SEEDS [SPLIT,..]
//! ARRIVALS: onoff | pareto | poisson

use pertlab_sim::queue::classes::{MultiClass, Scheduler};
use pertlab_sim::queue::swtp::Swtp;
use pertlab_sim::queue::wtp::Wtp;
use pertlab_sim::queue::QueueLimit;
use pertlab_sim::rng::{stream, StreamKind};
use pertlab_sim::scenario::{Arrivals, SizeDist};
use pertlab_sim::time::SimTime;
use pertlab_sim::traffic::udp::UdpSource;

const RATE_BPS: u64 = 80_000_000;
const NS_PER_BYTE: u64 = 100;

fn drive(
    sched: Box<dyn Scheduler>,
    arrivals: Arrivals,
    period: SimTime,
    k: usize,
    loads: &[f64],
    packets: u64,
    warm: u64,
    seed: u64,
) -> (Vec<f64>, f64, String) {
    let wk: u32 = std::env::var("K").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let mut q = MultiClass::new(loads.len(), QueueLimit::Packets(u32::MAX), sched, wk);
    let mut srcs = Vec::new();
    for (c, l) in loads.iter().enumerate() {
        for j in 0..k {
            let id = (c * k + j) as u32;
            let rate = (RATE_BPS as f64 * l / k as f64).round() as u64;
            let rng = stream(seed, StreamKind::Udp, u64::from(id));
            srcs.push(
                UdpSource::new(id, 0, 1, rate, 440, arrivals, SizeDist::Mix, false, None, rng)
                    .with_class(c as u8)
                    .with_pareto_shape(1.9)
                    .with_on_off(period, period),
            );
        }
    }
    let mut next: Vec<SimTime> = srcs.iter_mut().map(|s| s.next_gap()).collect();
    let (mut free_at, mut queued) = (0, 0u64);
    let (mut busy, mut t0, mut t_end) = (0u64, 0u64, 0u64);
    let mut base: Option<Vec<(u128, u64)>> = None;
    let (mut bytes, mut sent) = (0u64, 0u64);
    while q.decisions < packets {
        if base.is_none() && q.decisions >= warm {
            base = Some(q.counters.iter().map(|k| (k.wait_ns, k.departures)).collect());
            q.windows.clear();
            t0 = free_at;
            busy = 0;
        }
        let (j, t) = next.iter().copied().enumerate().min_by_key(|&(_, t)| t).unwrap();
        if queued > 0 && free_at <= t {
            let pkt = q.pop(free_at).unwrap();
            queued -= 1;
            let tx = pkt.size as u64 * NS_PER_BYTE;
            free_at += tx;
            busy += tx;
            t_end = free_at;
            continue;
        }
        let mut pkt = srcs[j].next_packet();
        pkt.enq_ts = t;
        bytes += pkt.size as u64;
        sent += 1;
        q.push(pkt);
        queued += 1;
        free_at = free_at.max(t);
        next[j] = t + srcs[j].next_gap();
    }
    let base = base.unwrap_or_else(|| vec![(0, 0); loads.len()]);
    let svc = bytes as f64 / sent as f64 * NS_PER_BYTE as f64;
    let w: Vec<f64> = q.counters.iter().zip(&base).map(|(k, b)| (k.wait_ns - b.0) as f64 / (k.departures - b.1).max(1) as f64 / svc).collect();
    let pct = q
        .windows
        .ratios
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let at = |p: f64| r.get(((r.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(f64::NAN);
            format!("{:.2}/{:.2}/{:.2}", at(0.05), at(0.5), at(0.95))
        })
        .collect::<Vec<_>>()
        .join(" ");
    (w, busy as f64 / (t_end - t0).max(1) as f64, pct)
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a[1].parse().unwrap();
    let arrivals = match a[2].as_str() {
        "onoff" => Arrivals::ParetoOnOff,
        "pareto" => Arrivals::Pareto,
        _ => Arrivals::Poisson,
    };
    let period = (a[3].parse::<f64>().unwrap() * 1e6) as SimTime;
    let k: usize = a[4].parse().unwrap();
    let packets: u64 = a[5].parse().unwrap();
    let warm = (a[6].parse::<f64>().unwrap() * packets as f64) as u64;
    let seeds: u64 = a[7].parse().unwrap();
    let u: f64 = std::env::var("U").ok().and_then(|s| s.parse().ok()).unwrap_or(0.95);
    let ratio: f64 = std::env::var("RATIO").ok().and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let split: Vec<f64> = a.get(8).map(|s| s.split(',').map(|x| x.parse().unwrap()).collect()).unwrap_or(vec![1.0 / n as f64; n]);
    let loads: Vec<f64> = split.iter().map(|f| f * u).collect();
    let b: Vec<f64> = (0..n).map(|i| ratio.powi(i as i32)).collect();
    for seed in 1..=seeds {
        let (ws, us, ps) = drive(Box::new(Swtp::new(b.clone(), true)), arrivals, period, k, &loads, packets, warm, seed);
        let (ww, _, pw) = drive(Box::new(Wtp::new(b.clone())), arrivals, period, k, &loads, packets, warm, seed);
        let r = |w: &Vec<f64>| w.windows(2).map(|p| format!("{:.4}", p[0] / p[1])).collect::<Vec<_>>().join(" ");
        println!("seed {seed} util {us:.4} top_wait {:.2} | swtp {} | wtp {} | K swtp {ps} wtp {pw}", ws[n - 1], r(&ws), r(&ww));
    }
}
