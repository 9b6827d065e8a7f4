//! Run the canonical dumbbell once and print wall time, events/s, packet-hops/s
//! and peak memory as one JSON line (used by scripts/bench.sh).
//! Usage: canonical [FLOWS] [SECONDS] [QUEUE KIND] [RESULTS.json|-] [TX END EVENTS|-] [SEND OVERHEAD NS|-] [BOTTLENECK BPS|-] [ACCESS PAIRS]
//! With a fourth argument other than `-`, the full results are also written
//! there as JSON (scripts/check_identical.sh compares them between two builds);
//! the fifth is the scenario's `engine.tx_end_events` (`when_needed`, the default,
//! or `always`); the sixth every flow's `tcp.overhead_ns` (ns-2's random
//! send overhead; default 0, none); the seventh the bottleneck's rate
//! (`presets::canonical_dumbbell_at_rate`; default the canonical 150 Mbit/s); the eighth
//! the pairs of access links the flows share (`presets::with_shared_access`; default one
//! pair per flow).

use pertlab_sim::presets::{canonical_dumbbell_at_rate, canonical_dumbbell_with_queue, with_shared_access};

#[path = "common/rss.rs"]
mod rss;

fn main() {
    let mut args = std::env::args().skip(1);
    let flows: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(50);
    let seconds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let kind = args.next().unwrap_or_else(|| "droptail".to_string());
    let results_path = args.next().filter(|p| p != "-");
    let mode = args.next().filter(|m| m != "-");
    let overhead = args.next().filter(|o| o != "-");
    let mut scenario = match args.next().filter(|r| r != "-") {
        Some(rate) => {
            canonical_dumbbell_at_rate(flows, seconds, &kind, rate.parse().unwrap_or_else(|_| panic!("bottleneck rate: a number of bit/s, not {rate:?}")))
        }
        None => canonical_dumbbell_with_queue(flows, seconds, &kind),
    };
    if let Some(pairs) = args.next() {
        scenario = with_shared_access(scenario, pairs.parse().unwrap_or_else(|_| panic!("access pairs: a number, not {pairs:?}")));
    }
    if let Some(mode) = mode {
        scenario.engine.tx_end_events =
            serde_json::from_value(serde_json::Value::String(mode.clone())).unwrap_or_else(|_| panic!("tx end events: always or when_needed, not {mode:?}"));
    }
    if let Some(overhead) = overhead {
        let ns: u64 = overhead.parse().unwrap_or_else(|_| panic!("send overhead: a number of ns, not {overhead:?}"));
        scenario.flows.iter_mut().for_each(|f| f.tcp.overhead_ns = ns);
    }
    let started = std::time::Instant::now();
    let r = pertlab_sim::run(&scenario).expect("the canonical scenario is valid");
    let wall = started.elapsed().as_secs_f64();
    if let Some(path) = results_path {
        let json = serde_json::to_string(&r).expect("results serialise");
        std::fs::write(&path, json).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
    }
    let hops: u64 = r.queues.iter().map(|q| q.departures).sum();
    println!(
        "{{\"flows\": {flows}, \"queue\": \"{kind}\", \"sim_seconds\": {seconds}, \"wall_seconds\": {wall:.4}, \"events\": {}, \"events_per_second\": {:.0}, \"packet_hops\": {hops}, \"packet_hops_per_second\": {:.0}, \"peak_rss_kib\": {}, \"utilization\": {:.4}, \"conservation_ok\": {}}}",
        r.events,
        r.events as f64 / wall,
        hops as f64 / wall,
        rss::peak_rss_kib().unwrap_or(0),
        r.bottleneck.map(|b| b.utilization).unwrap_or(0.0),
        r.conservation.ok
    );
}
