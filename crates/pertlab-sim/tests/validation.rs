//! Determinism, bad input, and a property test: random valid scenarios conserve
//! packets and never panic.

use pertlab_sim::scenario::{CcSpec, QueueSpec, Scenario};
use pertlab_sim::tcp::cc::pert::PertConfig;
use pertlab_sim::tcp::cc::vegas::VegasConfig;
use pertlab_sim::tcp::TcpConfig;
use pertlab_sim::world::World;
use proptest::prelude::*;

mod common;
use common::*;

fn small() -> Scenario {
    scenario(dumbbell(4, 10, 40, droptail(40)), bulk_flows(4, CcSpec::Reno, TcpConfig::default(), secs(2)), 10, 2)
}

#[test]
fn same_seed_same_bytes_other_seed_other_start_times() {
    let s = small();
    let a = serde_json::to_string(&pertlab_sim::run(&s).unwrap()).unwrap();
    let b = serde_json::to_string(&pertlab_sim::run(&s).unwrap()).unwrap();
    assert_eq!(a, b);
    let mut s2 = s.clone();
    s2.seed = 2;
    let r1 = pertlab_sim::run(&s).unwrap();
    let r2 = pertlab_sim::run(&s2).unwrap();
    let starts = |r: &pertlab_sim::Results| r.flows.iter().map(|f| f.start_s).collect::<Vec<_>>();
    assert_ne!(starts(&r1), starts(&r2));
}

fn error_of(json: &str) -> String {
    match Scenario::from_json(json).and_then(|s| World::build(&s).map(|_| ())) {
        Ok(()) => panic!("accepted: {json}"),
        Err(e) => e.to_string(),
    }
}

const GRAPH: &str = r#""nodes": ["a", "b", "c", "d"],
    "links": [{"a": "a", "b": "b", "rate_bps": 1000000, "delay_ns": 1000000}, {"a": "c", "b": "d", "rate_bps": 1000000, "delay_ns": 0}]"#;

#[test]
fn bad_input_errors_name_the_field_and_what_is_allowed() {
    let e = error_of(&format!(r#"{{"duration_ns": 1000, {GRAPH}, "colour": 3}}"#));
    assert!(e.contains("colour") && e.contains("expected one of"), "{e}");
    let e = error_of(r#"{"duration_ns": 1000, "nodes": ["a","b"], "links": [{"a": "a", "b": "b", "rate_bps": -5, "delay_ns": 0}]}"#);
    assert!(e.starts_with("links[0].rate_bps"), "{e}");
    let e = error_of(&format!(r#"{{"duration_ns": 1000, {GRAPH}, "flows": [{{"src": "a", "dst": "d"}}]}}"#));
    assert!(e.starts_with("flows[0]") && e.contains("not connected"), "{e}");
    let e = error_of(r#"{"duration_ns": 1000, "nodes": ["a","b"], "links": [{"a": "a", "b": "b", "rate_bps": 5, "delay_ns": 0, "queue": {"limit_pkts": 0}}]}"#);
    assert!(e.starts_with("links[0].queue.limit_pkts") && e.contains("at least 1"), "{e}");
    let e = error_of(&format!(r#"{{"duration_ns": 1000, {GRAPH}, "flows": [{{"src": "a", "dst": "b", "cc": {{"kind": "bbr"}}}}]}}"#));
    assert!(e.starts_with("flows[0].cc") && e.contains("reno") && e.contains("illinois"), "{e}");
    let e = error_of(&format!(r#"{{"duration_ns": 1000, {GRAPH}, "flows": [{{"src": "a", "dst": "b", "cc": {{"kind": "cubic", "beta": 1.5}}}}]}}"#));
    assert_eq!(e, "flows[0].cc.beta: must lie strictly between 0 and 1, got 1.5");
    let e = error_of(r#"{"duration_ns": 1000, "nodes": ["a","b"], "links": [{"a": "a", "b": "b", "rate_bps": 5, "delay_ns": 0, "queue": {"kind": "fifo"}}]}"#);
    assert!(e.starts_with("links[0].queue.kind") && e.contains("droptail, red, ared"), "{e}");
    let e = error_of(&format!(r#"{{"duration_ns": 1000, {GRAPH}, "flows": [{{"src": "a", "dst": "x"}}]}}"#));
    assert!(e.starts_with("flows[0].dst") && e.contains("unknown node `x`"), "{e}");
}

fn cc_strategy() -> impl Strategy<Value = CcSpec> {
    prop_oneof![
        Just(CcSpec::Reno),
        Just(CcSpec::Vegas(VegasConfig::default())),
        Just(CcSpec::Pert(PertConfig::default())),
        Just(CcSpec::PertAdaptive(Default::default())),
        Just(CcSpec::Hstcp(Default::default())),
        Just(CcSpec::Cubic(Default::default())),
        Just(CcSpec::Compound(Default::default())),
        Just(CcSpec::Illinois(Default::default())),
        Just(CcSpec::Fast(Default::default())),
    ]
}

fn queue_strategy() -> impl Strategy<Value = QueueSpec> {
    let kinds = prop_oneof![Just("droptail"), Just("red"), Just("ared"), Just("cared"), Just("feng"), Just("nlred"), Just("pi"), Just("pie"), Just("codel")];
    (kinds, 2u32..200).prop_map(|(kind, limit)| QueueSpec { kind: kind.into(), limit_pkts: Some(limit), ..QueueSpec::default() })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn random_valid_scenarios_conserve_packets(
        pairs in 1u32..6,
        bw in 1u64..50,
        rtt in 6u64..200,
        queue in queue_strategy(),
        cc in cc_strategy(),
        sack in any::<bool>(),
        ecn in any::<bool>(),
        delayed_ack in any::<bool>(),
        loss in prop_oneof![Just(0.0), 0.0..0.05],
        seed in any::<u64>(),
    ) {
        let mut d = dumbbell(pairs, bw, rtt, queue);
        d.bottleneck_loss = loss;
        let tcp = TcpConfig { sack, ecn, delayed_ack, ..TcpConfig::default() };
        let mut s = scenario(d, bulk_flows(pairs, cc, tcp, secs(1)), 5, 1);
        s.seed = seed;
        let r = pertlab_sim::run(&s).unwrap();
        prop_assert!(r.conservation.ok, "{:?}", r.conservation.violations);
        prop_assert!(r.bottleneck.as_ref().unwrap().utilization <= 1.0, "utilization {}", r.bottleneck.as_ref().unwrap().utilization);
    }
}
