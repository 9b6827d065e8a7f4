//! Criterion benchmark of a scheduling decision: one packet in and one out of
//! a queue whose N classes are all backlogged (Hua's thesis section 5.3: WTP
//! costs O(N) per decision, S-WTP O(log N)), beside a DropTail FIFO queue.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pertlab_sim::packet::{Packet, PacketKind};
use pertlab_sim::queue::classes::{MultiClass, Scheduler};
use pertlab_sim::queue::droptail::DropTail;
use pertlab_sim::queue::swtp::Swtp;
use pertlab_sim::queue::wtp::Wtp;
use pertlab_sim::queue::{OutputQueue, QueueLimit, StandaloneQueue};
use pertlab_sim::rng::from_seed;

/// Packets waiting per class before timing starts.
const BACKLOG: u64 = 8;

fn packet(class: usize) -> Packet {
    let mut p = Packet::new(PacketKind::Udp, 0, 0, 1, 500);
    p.class = class as u8;
    p
}

/// A queue of `n` classes (or a FIFO when `scheduler` is None) with BACKLOG packets per class.
fn filled(n: usize, scheduler: Option<Box<dyn Scheduler>>) -> StandaloneQueue {
    let q = OutputQueue::new(QueueLimit::Packets(u32::MAX), 1_000_000_000, Box::new(DropTail), from_seed(1));
    let q = match scheduler {
        Some(s) => q.with_classes(MultiClass::new(n, QueueLimit::Packets(u32::MAX), s, 1000)),
        None => q,
    };
    let mut q = StandaloneQueue::new(q);
    for t in 0..BACKLOG * n as u64 {
        q.offer(packet(t as usize % n), t);
    }
    q
}

fn decisions(c: &mut Criterion) {
    let mut group = c.benchmark_group("scheduling_decision");
    for n in [4usize, 16, 64, 256] {
        let weights: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
        let kinds: [(&str, Option<Box<dyn Scheduler>>); 3] =
            [("droptail", None), ("wtp", Some(Box::new(Wtp::new(weights.clone())))), ("swtp", Some(Box::new(Swtp::new(weights.clone(), true))))];
        for (name, scheduler) in kinds {
            let mut q = filled(n, scheduler);
            let mut now = BACKLOG * n as u64;
            group.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                b.iter(|| {
                    now += 1;
                    let out = q.serve(now).expect("backlogged");
                    q.offer(packet(out.class as usize), now);
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, decisions);
criterion_main!(benches);
