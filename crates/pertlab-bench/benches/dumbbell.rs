//! Criterion benchmark of the canonical dumbbell (see `presets::canonical_dumbbell`):
//! 50 SACK flows, 150 Mbps, 60 ms, DropTail BDP buffer, 100 simulated seconds.

use criterion::{criterion_group, criterion_main, Criterion};
use pertlab_sim::presets::{canonical_dumbbell, canonical_dumbbell_with_queue};

fn canonical(c: &mut Criterion) {
    let scenario = canonical_dumbbell(50, 100);
    let mut group = c.benchmark_group("dumbbell");
    group.sample_size(10);
    group.bench_function("canonical_150mbps_50flows_100s", |b| b.iter(|| pertlab_sim::run(&scenario).unwrap()));
    group.finish();
}

/// The same run with each AQM at the bottleneck (issue 6: adding an AQM must not
/// slow the core); scripts/bench.sh compares the cost per event with DropTail's.
fn aqms(c: &mut Criterion) {
    let mut group = c.benchmark_group("aqm");
    group.sample_size(10);
    for kind in ["droptail", "red", "ared", "reared", "cared", "pi", "pie", "codel"] {
        let scenario = canonical_dumbbell_with_queue(50, 100, kind);
        group.bench_function(kind, |b| b.iter(|| pertlab_sim::run(&scenario).unwrap()));
    }
    group.finish();
}

criterion_group!(benches, canonical, aqms);
criterion_main!(benches);
