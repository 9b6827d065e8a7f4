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

#[path = "common/args.rs"]
mod args;
#[path = "common/rss.rs"]
mod rss;

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| argv.get(i).map(String::as_str);
    let flows: u32 = args::parse_or_exit(arg(0), "flows", "a whole number", 50);
    let seconds: u64 = args::parse_or_exit(arg(1), "seconds", "a whole number", 100);
    let kind = arg(2).filter(|k| *k != "-").unwrap_or("droptail");
    let results_path = arg(3).filter(|p| *p != "-");
    let mut scenario = match arg(6).filter(|r| *r != "-") {
        Some(_) => canonical_dumbbell_at_rate(flows, seconds, kind, args::parse_or_exit(arg(6), "bottleneck rate", "a number of bit/s", 0)),
        None => canonical_dumbbell_with_queue(flows, seconds, kind),
    };
    if let Some(pairs) = arg(7).filter(|p| *p != "-") {
        match args::parse_or_exit(Some(pairs), "access pairs", "a whole number from 1", 0) {
            0 => args::fail("access pairs: a whole number from 1, not 0"),
            pairs => scenario = with_shared_access(scenario, pairs),
        }
    }
    if let Some(mode) = arg(4).filter(|m| *m != "-") {
        scenario.engine.tx_end_events = serde_json::from_value(serde_json::Value::String(mode.to_string()))
            .unwrap_or_else(|_| args::fail(format!("tx end events: always or when_needed, not {mode:?}")));
    }
    if arg(5).is_some() {
        let ns: u64 = args::parse_or_exit(arg(5), "send overhead", "a whole number of ns", 0);
        scenario.flows.iter_mut().for_each(|f| f.tcp.overhead_ns = ns);
    }
    let started = std::time::Instant::now();
    let r = pertlab_sim::run(&scenario).unwrap_or_else(|e| args::fail(e));
    let wall = started.elapsed().as_secs_f64();
    if let Some(path) = results_path {
        let json = serde_json::to_string(&r).expect("results serialise");
        std::fs::write(path, json).unwrap_or_else(|e| args::fail(format!("cannot write {path}: {e}")));
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
