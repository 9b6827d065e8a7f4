//! Web traffic (traffic/web.rs) end to end: object sizes and request rates
//! against their analytic values on an uncongested path, response times against
//! the path's least possible, and conservation and determinism under congestion.

use pertlab_sim::scenario::{CcSpec, LinkSpec, MeasureWindow, QueueSpec, Scenario};
use pertlab_sim::tcp::TcpConfig;
use pertlab_sim::traffic::web::WebSpec;

mod common;
use common::*;

/// Payload bytes per 1500-byte segment.
const PAYLOAD: f64 = 1460.0;

fn web(sessions: u32, shape: f64) -> WebSpec {
    WebSpec {
        clients: vec!["c".into()],
        servers: vec!["s".into()],
        sessions,
        start_window_ns: [0, secs(1)],
        pages_per_session: None,
        think_time_ns: secs(1),
        objects_per_page: 2,
        inter_object_ns: ms(10),
        object_mean_segments: 10.0,
        object_shape: shape,
        cc: CcSpec::Reno,
        tcp: TcpConfig::default(),
    }
}

/// Server - router - client over 1 Gbit/s links, 5 ms each way per link: RTT 20 ms.
fn path(web: Vec<WebSpec>, duration_s: u64, seed: u64) -> Scenario {
    let link = |a: &str, b: &str| LinkSpec {
        name: None,
        a: a.into(),
        b: b.into(),
        rate_bps: 1000 * MBPS,
        delay_ns: ms(5),
        loss: 0.0,
        loss_ba: 0.0,
        burst_loss: None,
        queue: QueueSpec::default(),
        queue_ba: None,
    };
    Scenario {
        seed,
        duration_ns: secs(duration_s),
        measure: Some(MeasureWindow { start_ns: secs(20), end_ns: secs(duration_s) }),
        nodes: vec!["s".into(), "r".into(), "c".into()],
        links: vec![link("s", "r"), link("r", "c")],
        dumbbell: None,
        flows: vec![],
        udp: vec![],
        web,
        monitor: Default::default(),
        capture: Vec::new(),
        engine: Default::default(),
    }
}

/// E[ceil(X)] for X Lomax(scale, shape): sum over k >= 0 of P(X > k) = (1 + k / scale)^-shape.
fn mean_ceil_lomax(scale: f64, shape: f64) -> f64 {
    let terms: f64 = (0..2_000_000).map(|k| (1.0 + k as f64 / scale).powf(-shape)).sum();
    // Tail beyond K: integral of (1 + x/scale)^-shape from K.
    let k = 2_000_000.0;
    terms + scale / (shape - 1.0) * (1.0 + k / scale).powf(1.0 - shape)
}

#[test]
fn object_sizes_and_request_rate_match_the_model_on_an_idle_path() {
    // Shape 2.5: finite variance, so the sample mean converges at the usual rate
    // (coefficient of variation 2.2: with ~20 000 objects, a standard error of 1.6 %).
    let shape = 2.5;
    let r = pertlab_sim::run(&path(vec![web(50, shape)], 220, 3)).unwrap();
    let w = r.web.clone().expect("web results");
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    let per_object = w.bytes_completed as f64 / w.objects_completed as f64;
    let expected = mean_ceil_lomax(10.0 * (shape - 1.0), shape) * PAYLOAD;
    let p50 = w.response_ms_p50.expect("objects completed");
    eprintln!("objects {} per object {per_object:.0} B expected {expected:.0} B; p50 {p50} ms", w.objects_completed);
    assert!((per_object / expected - 1.0).abs() < 0.05, "{per_object} vs {expected}");
    // Request rate: a session asks for 2 objects per page and waits 1 s of think time after
    // each page, which itself lasts the 10 ms inter-object gap plus the slower object's
    // transfer (a few 20 ms RTTs): about 0.1 s. Objects per second per session lie below
    // 2 / 1 s and near 2 / 1.1 s.
    let rate = w.objects_completed as f64 / 200.0 / 50.0;
    eprintln!("objects per second per session {rate:.3}");
    assert!(rate < 2.0 && rate > 2.0 / 1.25, "{rate}");
    // Every transfer needs at least one RTT (20 ms) plus the serialisation of its segments.
    assert!(p50 >= 20.0, "{p50}");
    // An idle path loses nothing.
    assert!(r.queues.iter().all(|q| q.drops == 0));
}

#[test]
fn response_time_of_one_segment_objects_is_one_rtt() {
    // Objects of a single segment (mean 1e-9 segments: every draw rounds up to 1): the
    // transfer is one data packet and its ACK, 20 ms + 2 x 12 us of serialisation per
    // 1500-byte packet on two 1 Gbit/s links + the 40-byte ACK's.
    let mut w = web(5, 1.2);
    w.object_mean_segments = 1e-9;
    let r = pertlab_sim::run(&path(vec![w], 60, 1)).unwrap();
    let w = r.web.unwrap();
    assert!(w.objects_completed > 100);
    let expected_ms = 20.0 + 2.0 * 1500.0 * 8.0 / 1e9 * 1e3 + 2.0 * 40.0 * 8.0 / 1e9 * 1e3;
    let (p50, p99) = (w.response_ms_p50.unwrap(), w.response_ms_p99.unwrap());
    assert!((p50 - expected_ms).abs() < 1e-3, "{p50} vs {expected_ms}");
    assert!((p99 - expected_ms).abs() < 1e-3);
    assert_eq!(w.bytes_completed, w.objects_completed * 1460);
}

#[test]
fn web_and_long_flows_share_a_bottleneck_deterministically() {
    // 10 SACK flows and 200 web sessions through a 20 Mbit/s dumbbell bottleneck.
    let mut d = dumbbell(11, 20, 60, droptail(100));
    d.access_rate_bps = 1000 * MBPS;
    let mut s = scenario(d, bulk_flows(10, CcSpec::Reno, TcpConfig::default(), secs(5)), 60, 20);
    let mut w = web(200, 1.2);
    w.clients = vec!["d10".into()];
    w.servers = vec!["s10".into()];
    s.web = vec![w];
    let a = pertlab_sim::run(&s).unwrap();
    assert!(a.conservation.ok, "{:?}", a.conservation.violations);
    let web = a.web.clone().unwrap();
    assert!(web.objects_completed > 1000, "{web:?}");
    // The web traffic takes part of the bottleneck: long flows get less than all of it.
    let long: f64 = a.flows.iter().map(|f| f.goodput_mbps).sum();
    assert!(long < 19.0 && long + web.throughput_mbps > 17.0, "long {long} web {}", web.throughput_mbps);
    assert!(a.bottleneck.as_ref().unwrap().drops > 0);
    // Same seed, same everything; another seed, other sizes and times.
    let b = pertlab_sim::run(&s).unwrap();
    assert_eq!(serde_json::to_string(&a.web).unwrap(), serde_json::to_string(&b.web).unwrap());
    assert_eq!(a.events, b.events);
    s.seed = 2;
    let c = pertlab_sim::run(&s).unwrap();
    assert_ne!(a.web.unwrap().bytes_completed, c.web.unwrap().bytes_completed);
}

#[test]
fn web_errors_name_the_field() {
    let mut w = web(1, 1.2);
    w.servers = vec!["nowhere".into()];
    let e = pertlab_sim::run(&path(vec![w], 30, 1)).unwrap_err();
    assert_eq!(e.field, "web[0].servers[0]");
    let mut w = web(1, 1.2);
    w.object_shape = 0.9;
    assert_eq!(pertlab_sim::run(&path(vec![w], 30, 1)).unwrap_err().field, "web[0].object_shape");
}

#[test]
fn trace_records_every_rtt_sample_and_every_loss() {
    // 4 SACK flows and web traffic on a 10 Mbit/s, 40 ms dumbbell with a 30-packet buffer:
    // flow 0 traced, drops at the bottleneck traced.
    let mut d = dumbbell(5, 10, 40, droptail(30));
    d.access_rate_bps = 100 * MBPS;
    let mut s = scenario(d, bulk_flows(4, CcSpec::Reno, TcpConfig::default(), secs(2)), 30, 0);
    let mut w = web(30, 1.2);
    w.clients = vec!["d4".into()];
    w.servers = vec!["s4".into()];
    s.web = vec![w];
    s.monitor.trace_flows = vec![0];
    s.monitor.trace_link = Some("bottleneck".into());
    let r = pertlab_sim::run(&s).unwrap();
    let t = &r.trace;
    let f0 = &r.flows[0];
    // The whole run is the window here: one trace row per RTT sample the sender counted,
    // one loss row per data drop of flow 0, one drop row per drop at the bottleneck queue.
    assert_eq!(t.rtt_ms.len() as u64, f0.rtt_samples);
    assert_eq!(t.loss_t_s.len() as u64, f0.drops);
    let q = r.queues.iter().find(|q| q.link == "bottleneck" && q.from == "r0").unwrap();
    assert_eq!(t.drop_t_s.len() as u64, q.drops);
    assert!(q.drops > 0 && f0.drops > 0);
    assert_eq!(t.queue_limit_pkts, 30);
    assert!(t.rtt_queue_pkts.iter().all(|&n| n <= 30));
    // Every sample is at least the propagation RTT, and the times are ordered.
    assert!(t.rtt_ms.iter().all(|&r| r >= 40.0));
    assert!(t.rtt_t_s.windows(2).all(|w| w[0] <= w[1]));
    // Web transfers' drops are among the queue's (ids past the long flows').
    assert!(t.drop_flow.iter().any(|&f| f >= 4));
}

#[test]
fn trace_errors_name_the_field() {
    let mut s = scenario(dumbbell(2, 10, 40, droptail(30)), bulk_flows(2, CcSpec::Reno, TcpConfig::default(), 0), 10, 0);
    s.monitor.trace_flows = vec![5];
    assert_eq!(pertlab_sim::run(&s).unwrap_err().field, "monitor.trace_flows[0]");
    s.monitor.trace_flows = vec![0];
    s.monitor.trace_link = Some("nowhere".into());
    assert_eq!(pertlab_sim::run(&s).unwrap_err().field, "monitor.trace_link");
}
