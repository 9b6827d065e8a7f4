//! Criterion benchmark of the canonical dumbbell (see `presets::canonical_dumbbell`):
//! 50 SACK flows, 150 Mbps, 60 ms, DropTail BDP buffer, 100 simulated seconds.

use criterion::{criterion_group, criterion_main, Criterion};
use pertlab_sim::presets::canonical_dumbbell;

fn canonical(c: &mut Criterion) {
    let scenario = canonical_dumbbell(50, 100);
    let mut group = c.benchmark_group("dumbbell");
    group.sample_size(10);
    group.bench_function("canonical_150mbps_50flows_100s", |b| b.iter(|| pertlab_sim::run(&scenario).unwrap()));
    group.finish();
}

criterion_group!(benches, canonical);
criterion_main!(benches);
