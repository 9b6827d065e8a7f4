//! Property test over the whole scenario space (issue 25): a random scenario
//! of any topology kind, queue discipline, controller, traffic source and
//! monitor option, with some of its fields set to boundary values, either is
//! refused with a field error or builds and runs a short while without panic,
//! with packets conserved, every rate and fraction in [0, 1] and every float
//! finite.
//!
//! The scenario is built as JSON and mutated as JSON: every leaf the core's
//! serialisation writes (so every field, present and future) can be hit, with
//! values of its type taken from a pool of boundaries (0, 1, 2^32 - 1, 2^64 - 1,
//! 1e-300, 1e300, ...) or scaled from its current value. The default case count
//! keeps `cargo test --release` fast; `PROPTEST_CASES=N` runs more.

use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{json, Value};

use pertlab_sim::scenario::{CcSpec, QueueSpec};
use pertlab_sim::world::{MemoryLimit, World};
use pertlab_sim::{Results, Scenario};

/// Calls of the progress callback a case may take (one per simulated second
/// or per `world::PROGRESS_EVENTS` events): a few hundred thousand events.
const PROGRESS_CALLS: u32 = 4;
/// Memory a case may ask for; larger scenarios must be refused up front.
const MEMORY_LIMIT: u64 = 1 << 30;

/// Node and link names of the base scenarios, the pool of names a mutation picks from.
const NAMES: [&str; 12] = ["s0", "d0", "s1", "r0", "r1", "a", "b", "c", "r", "bottleneck", "a-r", "nowhere"];
/// Every enum spelling of the wire format, the pool of strings a mutation picks from.
const WORDS: [&str; 26] = [
    "packets",
    "bytes",
    "edges",
    "midpoint",
    "arrival",
    "update",
    "sojourn",
    "queue_over_rate",
    "cbr",
    "poisson",
    "fixed",
    "exponential",
    "variance",
    "rto",
    "queueing_delay",
    "literal",
    "sample",
    "srtt",
    "adaptive",
    "half",
    "always",
    "when_needed",
    "earliest",
    "latest",
    "echo",
    "linux",
];

fn u64_pool() -> Vec<u64> {
    let big = [u32::MAX as u64 - 1, u32::MAX as u64, u32::MAX as u64 + 1, 1 << 53, u64::MAX / 4, u64::MAX / 4 + 1, u64::MAX / 2, u64::MAX - 1, u64::MAX];
    [0, 1, 2, 3, 7, 40, 41, 100, 1000, 1500, 65_535, 1_000_000, 1_000_000_000, 1_000_000_000_000].into_iter().chain(big).collect()
}

fn f64_pool() -> Vec<f64> {
    vec![0.0, -1.0, 1e-300, f64::MIN_POSITIVE, 1e-9, 1e-3, 0.01, 0.5, 0.999_999, 1.0, 1.000_000_1, 2.0, 1e3, 1e9, 1e18, 1e300, f64::MAX, -1e300]
}

/// A base scenario: a dumbbell, or a graph of a few nodes, with random queue
/// kinds, controllers, UDP sources, web sessions and monitors.
#[derive(Clone, Debug)]
struct Base {
    dumbbell: bool,
    pairs: u32,
    queue_kinds: [usize; 3],
    byte_limit: bool,
    ccs: Vec<usize>,
    udp: usize,
    web: bool,
    sample: bool,
    positions: bool,
    trace: bool,
    window: bool,
    /// `engine.tx_end_events = when_needed` (else the default, `always`).
    when_needed: bool,
    duration_ms: u64,
}

fn base_strategy() -> impl Strategy<Value = Base> {
    (
        any::<bool>(),
        1u32..4,
        [0..QueueSpec::KINDS.len(), 0..QueueSpec::KINDS.len(), 0..QueueSpec::KINDS.len()],
        any::<bool>(),
        prop::collection::vec(0..CcSpec::KINDS.len(), 0..4),
        0usize..3,
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        1u64..1500,
    )
        .prop_map(|(dumbbell, pairs, queue_kinds, byte_limit, ccs, udp, (web, sample, positions, trace, window, when_needed), duration_ms)| Base {
            dumbbell,
            pairs,
            queue_kinds,
            byte_limit,
            ccs,
            udp,
            web,
            sample,
            positions,
            trace,
            window,
            when_needed,
            duration_ms,
        })
}

fn queue(kind: usize, limit: u64, bytes: bool) -> Value {
    let kind = QueueSpec::KINDS[kind];
    let mut q = if bytes { json!({"kind": kind, "limit_bytes": limit * 1500}) } else { json!({"kind": kind, "limit_pkts": limit}) };
    if QueueSpec::CLASS_KINDS.contains(&kind) {
        // Multi-class queues keep some per-packet waits (Fig 5.3's trace).
        q["sched"] = json!({"trace_packets": limit * 3});
    }
    q
}

fn cc(kind: usize) -> Value {
    match CcSpec::KINDS[kind] {
        "pert-pi" => json!({"kind": "pert-pi", "capacity_pps": 1000.0}),
        k => json!({"kind": k}),
    }
}

impl Base {
    fn to_json(&self) -> Value {
        let ms = 1_000_000u64;
        let duration = self.duration_ms * ms;
        let (src, dst, hops) = if self.dumbbell { ("s0", "d0", vec![("s1", "d1")]) } else { ("a", "b", vec![("c", "b")]) };
        let mut s = json!({"seed": 7, "duration_ns": duration});
        if self.dumbbell {
            s["dumbbell"] = json!({
                "pairs": self.pairs.max(2), "bottleneck_rate_bps": 5_000_000, "bottleneck_delay_ns": 10 * ms,
                "bottleneck_queue": queue(self.queue_kinds[0], 30, self.byte_limit),
                "bottleneck_queue_reverse": queue(self.queue_kinds[1], 30, false),
                "access_rate_bps": 100_000_000, "sender_access_delay_ns": [ms], "receiver_access_delay_ns": [2 * ms],
                "access_queue": queue(self.queue_kinds[2], 100, false),
            });
        } else {
            s["nodes"] = json!(["a", "r", "b", "c"]);
            s["links"] = json!([
                {"a": "a", "b": "r", "rate_bps": 50_000_000, "delay_ns": ms, "queue": queue(self.queue_kinds[2], 100, false)},
                {"name": "bottleneck", "a": "r", "b": "b", "rate_bps": 4_000_000, "delay_ns": 15 * ms,
                 "queue": queue(self.queue_kinds[0], 25, self.byte_limit), "queue_ba": queue(self.queue_kinds[1], 25, false)},
                {"a": "c", "b": "r", "rate_bps": 20_000_000, "delay_ns": 3 * ms, "loss": 0.01},
            ]);
        }
        let flows: Vec<Value> = self
            .ccs
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let (a, b) = if i % 2 == 0 { (src, dst) } else { hops[0] };
                let mut f = json!({"src": a, "dst": b, "cc": cc(k), "start_window_ns": [0, duration / 4], "label": format!("g{}", i % 2)});
                if i == 1 {
                    f["off_ns"] = json!([[duration / 2, duration / 2 + duration / 10]]);
                    f["stop_ns"] = json!(duration - duration / 10);
                }
                f
            })
            .collect();
        s["flows"] = Value::Array(flows);
        let udp: Vec<Value> = (0..self.udp)
            .map(|i| json!({"src": if i == 0 { src } else { dst }, "dst": if i == 0 { dst } else { src }, "rate_bps": 500_000, "packet_size": 500}))
            .collect();
        s["udp"] = Value::Array(udp);
        if self.web {
            s["web"] = json!([{"clients": [dst], "servers": [src, hops[0].0], "sessions": 3, "objects_per_page": 2}]);
        }
        let mut monitor = json!({});
        if self.sample {
            monitor["sample_interval_ns"] = json!(duration / 10 + 1);
            if self.ccs.len() > 1 {
                monitor["flows"] = json!([1]);
                monitor["links"] = json!(["bottleneck"]);
            }
        }
        if self.positions {
            monitor["queue_positions"] = json!("bottleneck");
        }
        if self.trace && !self.ccs.is_empty() {
            monitor["trace_flows"] = json!([0]);
            monitor["trace_link"] = json!("bottleneck");
        }
        s["monitor"] = monitor;
        if self.window {
            s["measure"] = json!({"start_ns": duration / 3, "end_ns": duration});
        }
        if self.when_needed {
            s["engine"] = json!({"tx_end_events": "when_needed"});
        }
        s
    }
}

/// One mutation: which leaf (an index into the leaves, modulo their number),
/// and which value (an index into the pool of the leaf's type, or a scale).
#[derive(Clone, Debug)]
struct Mutation {
    leaf: usize,
    pick: usize,
    scale: i32,
}

fn mutation_strategy() -> impl Strategy<Value = Mutation> {
    (any::<usize>(), any::<usize>(), -9i32..10).prop_map(|(leaf, pick, scale)| Mutation { leaf, pick, scale })
}

/// Paths of every leaf (number, bool, string, null) of `v`.
fn leaves(v: &Value, path: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                path.push(PathStep::Key(k.clone()));
                leaves(child, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                path.push(PathStep::Index(i));
                leaves(child, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn at<'a>(v: &'a mut Value, path: &[PathStep]) -> &'a mut Value {
    path.iter().fold(v, |v, step| match step {
        PathStep::Key(k) => &mut v[k.as_str()],
        PathStep::Index(i) => &mut v[*i],
    })
}

/// A value for a leaf that holds `old`.
fn mutated(old: &Value, m: &Mutation, key: Option<&str>) -> Value {
    let scaled = |x: f64| x * 10f64.powi(m.scale);
    match old {
        Value::Bool(b) => json!(!b),
        Value::Number(n) if n.is_u64() => {
            let pool = u64_pool();
            if m.pick.is_multiple_of(3) {
                json!((scaled(n.as_u64().unwrap_or(0) as f64)).min(u64::MAX as f64) as u64)
            } else {
                json!(pool[m.pick % pool.len()])
            }
        }
        Value::Number(n) => {
            let pool = f64_pool();
            if m.pick.is_multiple_of(3) {
                json!(scaled(n.as_f64().unwrap_or(0.0)))
            } else {
                json!(pool[m.pick % pool.len()])
            }
        }
        Value::String(_) if key == Some("kind") => {
            let kinds: Vec<&str> = QueueSpec::KINDS.iter().chain(CcSpec::KINDS.iter()).copied().collect();
            json!(kinds[m.pick % kinds.len()])
        }
        Value::String(_) => {
            let words: Vec<&str> = NAMES.iter().chain(WORDS.iter()).copied().collect();
            json!(words[m.pick % words.len()])
        }
        _ => match m.pick % 4 {
            0 => json!(u64_pool()[m.pick / 4 % u64_pool().len()]),
            1 => json!([0, u64_pool()[m.pick / 4 % u64_pool().len()]]),
            2 => json!(f64_pool()[m.pick / 4 % f64_pool().len()]),
            _ => json!(NAMES[m.pick / 4 % NAMES.len()]),
        },
    }
}

/// Apply the mutations to the core's serialisation of the base (every field written).
fn scenario_json(base: &Base, mutations: &[Mutation]) -> Option<String> {
    let parsed = Scenario::from_json(&base.to_json().to_string()).ok()?;
    let mut v = serde_json::to_value(&parsed).expect("serialises");
    for m in mutations {
        let mut all = Vec::new();
        leaves(&v, &mut Vec::new(), &mut all);
        if all.is_empty() {
            break;
        }
        let path = &all[m.leaf % all.len()];
        let key = match path.last() {
            Some(PathStep::Key(k)) => Some(k.as_str()),
            _ => None,
        };
        let leaf = at(&mut v, path);
        let new = mutated(leaf, m, key);
        // A controller's kind names its whole parameter set.
        if key == Some("kind") && new.as_str().is_some_and(|k| CcSpec::KINDS.contains(&k)) && path.iter().any(|p| matches!(p, PathStep::Key(k) if k == "cc")) {
            let parent = at(&mut v, &path[..path.len() - 1]);
            *parent = cc(CcSpec::KINDS.iter().position(|&k| Some(k) == new.as_str()).unwrap_or(0));
        } else {
            *leaf = new;
        }
    }
    Some(v.to_string())
}

/// Every rate and fraction in [0, 1], every float finite, packets conserved;
/// a ratio undefined (None) exactly when its population is empty.
fn check(r: &Results) -> Result<(), String> {
    let unit = |name: &str, x: f64| if (0.0..=1.0).contains(&x) { Ok(()) } else { Err(format!("{name} = {x}, outside [0, 1]")) };
    let finite = |name: &str, x: f64| if x.is_finite() { Ok(()) } else { Err(format!("{name} = {x}")) };
    // `x` over a population that is `empty`: None then, else Some in [0, 1].
    let rate = |name: &str, x: Option<f64>, empty: bool| match (x, empty) {
        (None, true) => Ok(()),
        (Some(x), false) => unit(name, x),
        (x, _) => Err(format!("{name} = {x:?} over {} population", if empty { "an empty" } else { "a non-empty" })),
    };
    if !r.conservation.ok {
        return Err(format!("conservation: {:?}", r.conservation.violations));
    }
    for q in &r.queues {
        rate("queue drop_rate", q.drop_rate, q.departures + q.drops == 0)?;
        rate("queue mark_rate", q.mark_rate, q.departures + q.drops == 0)?;
        unit("queue utilization", q.utilization)?;
        unit("queue avg_queue_norm", q.avg_queue_norm)?;
        finite("avg_queue_pkts", q.avg_queue_pkts)?;
        finite("avg_queue_bytes", q.avg_queue_bytes)?;
    }
    // Seconds are whole nanoseconds: compare them as such.
    let ns = |s: f64| (s * 1e9).round() as u64;
    let span = ns(r.window_end_s) - ns(r.window_start_s);
    for f in &r.flows {
        for (name, x) in [("goodput_mbps", f.goodput_mbps), ("start_s", f.start_s), ("base_rtt_ms", f.base_rtt_ms)] {
            finite(name, x)?;
        }
        for (name, x) in [("rtt_mean_ms", f.rtt_mean_ms), ("rtt_min_ms", f.rtt_min_ms), ("rtt_max_ms", f.rtt_max_ms)] {
            x.map_or(Ok(()), |x| finite(name, x))?;
        }
        if f.rtt_samples > 0 && f.rtt_mean_ms.is_none() {
            return Err(format!("{} RTT samples and no mean: {f:?}", f.rtt_samples));
        }
        rate("flow drop_rate", f.drop_rate, f.segments_received + f.drops == 0)?;
        if let Some(r) = f.mean_r {
            unit("flow mean_r", r)?;
        }
        let modes = ns(f.high_speed_s) + ns(f.safe_s) + ns(f.compete_s);
        if modes > span {
            return Err(format!("{modes} ns in modes, more than the window's {span} ns: {f:?}"));
        }
    }
    for c in &r.controllers {
        rate("controller share", c.share, r.flows.iter().all(|f| f.goodput_mbps == 0.0))?;
        rate("controller drop_rate", c.drop_rate, c.segments_received + c.drops == 0)?;
        finite("controller goodput_mbps", c.goodput_mbps)?;
    }
    rate("jain", r.jain, r.flows.iter().all(|f| f.goodput_mbps == 0.0))?;
    for u in &r.udp {
        finite("udp throughput_mbps", u.throughput_mbps)?;
    }
    if let Some(w) = &r.web {
        finite("web throughput_mbps", w.throughput_mbps)?;
        for x in [w.response_ms_mean, w.response_ms_p50, w.response_ms_p95, w.response_ms_p99] {
            match x {
                Some(x) => finite("web response", x)?,
                None if w.objects_completed == 0 => {}
                None => return Err(format!("{} objects completed and no response time: {w:?}", w.objects_completed)),
            }
        }
    }
    let qs = &r.queue_series;
    for x in qs.t_s.iter().chain(&qs.probability).chain(qs.avg.iter().flatten()).chain(qs.max_p.iter().flatten()) {
        finite("queue series", *x)?;
    }
    for x in &qs.probability {
        unit("queue series probability", *x)?;
    }
    for x in qs.max_p.iter().flatten() {
        unit("queue series max_p", *x)?;
    }
    let fs = &r.flow_series;
    for x in fs.p_response.iter().flatten() {
        unit("flow series p_response", *x)?;
    }
    let opt = fs.alpha.iter().chain(&fs.beta).chain(&fs.p).chain(&fs.p_early).chain(&fs.qdelay_ms).chain(&fs.q_max_ms).chain(&fs.p_response).flatten();
    for x in fs.t_s.iter().chain(&fs.srtt_ms).chain(opt) {
        finite("flow series", *x)?;
    }
    for x in fs.r.iter().flatten() {
        unit("flow series r", *x)?;
    }
    let t = &r.trace;
    for x in t.rtt_t_s.iter().chain(&t.rtt_ms).chain(&t.loss_t_s).chain(&t.drop_t_s) {
        finite("trace", *x)?;
    }
    for c in &r.class_traces {
        for x in c.t_s.iter().chain(&c.wait_ms).chain(&c.wait_tx) {
            finite("class trace", *x)?;
        }
    }
    finite("sim_seconds", r.sim_seconds)?;
    Ok(())
}

/// Parse, validate, build and run `json` for a few progress calls; an error
/// naming a field (refused scenario) is fine, a panic is not.
fn exercise(json: &str) -> Result<(), String> {
    let built = Scenario::from_json(json).and_then(|s| World::build_within(&s, MemoryLimit { bytes: MEMORY_LIMIT, per_recorded_value: 0 }));
    let mut world = match built {
        Ok(world) => world,
        Err(e) if e.field.is_empty() || e.message.is_empty() => return Err(format!("an error without a field or a message: {e:?}")),
        Err(_) => return Ok(()),
    };
    let mut calls = 0;
    world.run(&mut |_| {
        calls += 1;
        calls < PROGRESS_CALLS
    });
    check(&world.into_results())
}

proptest! {
    #![proptest_config(Config { cases: 48, ..Config::default() })]

    #[test]
    fn any_scenario_is_refused_or_runs_cleanly(base in base_strategy(), mutations in prop::collection::vec(mutation_strategy(), 0..12)) {
        if let Some(json) = scenario_json(&base, &mutations) {
            let outcome = exercise(&json);
            prop_assert!(outcome.is_ok(), "{}\n{json}", outcome.unwrap_err());
        }
    }
}
