//! Run one scenario in the core's wire format (JSON, as `Scenario.to_wire_json()`
//! writes it) and print its events, wall time, bottleneck and peak memory as one JSON line.
//! Used to profile scenarios other than the canonical dumbbell under callgrind
//! (scripts/profile_scenario.sh), without the Python interpreter around the core.
//! Usage: scenario PATH.json [RESULTS.json]
//! With a second argument, the full results are also written there as JSON
//! (to compare two builds on any scenario, as scripts/check_identical.sh does
//! on the canonical one).

use pertlab_sim::Scenario;

#[path = "common/args.rs"]
mod args;
#[path = "common/rss.rs"]
mod rss;

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| args::fail("usage: scenario PATH.json [RESULTS.json]"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| args::fail(format!("cannot read {path}: {e}")));
    let scenario = Scenario::from_json(&text).unwrap_or_else(|e| args::fail(format!("{path}: {e}")));
    scenario.validate().unwrap_or_else(|e| args::fail(format!("{path}: {e}")));
    let started = std::time::Instant::now();
    let r = pertlab_sim::run(&scenario).unwrap_or_else(|e| args::fail(format!("{path}: {e}")));
    let wall = started.elapsed().as_secs_f64();
    if let Some(out) = std::env::args().nth(2) {
        let json = serde_json::to_string(&r).expect("results serialise");
        std::fs::write(&out, json).unwrap_or_else(|e| args::fail(format!("cannot write {out}: {e}")));
    }
    let (utilization, avg_queue) = r.bottleneck.map(|b| (b.utilization, b.avg_queue_pkts)).unwrap_or((0.0, 0.0));
    println!(
        "{{\"events\": {}, \"wall_seconds\": {wall:.4}, \"events_per_second\": {:.0}, \"utilization\": {utilization:.4}, \"avg_queue_pkts\": {avg_queue:.1}, \"peak_rss_kib\": {}}}",
        r.events,
        r.events as f64 / wall,
        rss::peak_rss_kib().unwrap_or(0),
    );
}
