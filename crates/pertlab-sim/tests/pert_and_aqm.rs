//! The PERT paper's Section 4 shape on a small scale, and RED's equilibrium.

use pertlab_sim::queue::red::RedConfig;
use pertlab_sim::scenario::{CcSpec, MonitorSpec, QueueSpec};
use pertlab_sim::tcp::cc::pert::PertConfig;
use pertlab_sim::tcp::TcpConfig;
use pertlab_sim::time::NS_PER_MS;

mod common;
use common::*;

fn run_dumbbell(cc: CcSpec, queue: QueueSpec, ecn: bool, flows: u32) -> pertlab_sim::Results {
    let (bw, rtt) = (150, 60);
    let tcp = TcpConfig { ecn, ..TcpConfig::default() };
    let s = scenario(dumbbell(flows, bw, rtt, queue), bulk_flows(flows, cc, tcp, secs(10)), 60, 20);
    let r = pertlab_sim::run(&s).unwrap();
    assert!(r.conservation.ok, "{:?}", r.conservation.violations);
    r
}

#[test]
fn pert_on_droptail_keeps_drops_near_zero_and_the_queue_far_below_sack() {
    let limit = bdp_pkts(150, 60); // 750 packets
    let pert = run_dumbbell(CcSpec::Pert(PertConfig::default()), droptail(limit), false, 20);
    let sack = run_dumbbell(CcSpec::Reno, droptail(limit), false, 20);
    let (p, s) = (pert.bottleneck.unwrap(), sack.bottleneck.unwrap());
    let (p_drop, s_drop) = (p.drop_rate.expect("packets through"), s.drop_rate.expect("packets through"));
    eprintln!(
        "PERT: q {:.3} drops {p_drop:.2e} u {:.4} | SACK: q {:.3} drops {s_drop:.2e} u {:.4}",
        p.avg_queue_norm, p.utilization, s.avg_queue_norm, s.utilization
    );
    assert!(p_drop < 1e-4, "PERT drop rate {p_drop}");
    assert!(s_drop > 10.0 * p_drop.max(1e-6), "SACK drop rate {s_drop} vs PERT {p_drop}");
    assert!(p.avg_queue_norm < 0.5 * s.avg_queue_norm, "PERT queue {} vs SACK {}", p.avg_queue_norm, s.avg_queue_norm);
    assert!(p.utilization > 0.9, "PERT utilization {}", p.utilization);
    assert!(pert.flows.iter().map(|f| f.early_responses).sum::<u64>() > 0);
}

#[test]
fn ared_with_ecn_marks_instead_of_dropping() {
    let queue = QueueSpec {
        kind: "ared".into(),
        limit_pkts: Some(bdp_pkts(150, 60)),
        red: RedConfig { use_ecn: true, ..RedConfig::default() },
        ..QueueSpec::default()
    };
    let r = run_dumbbell(CcSpec::Reno, queue, true, 20);
    let b = r.bottleneck.unwrap();
    eprintln!("ARED-ECN: q {:.3} marks {} drops {} u {:.4}", b.avg_queue_norm, b.marks, b.drops, b.utilization);
    assert!(b.marks > 100, "marks {}", b.marks);
    assert!(b.drops * 10 < b.marks, "drops {} should be rare next to marks {}", b.drops, b.marks);
    assert!(r.flows.iter().map(|f| f.ecn_reductions).sum::<u64>() > 0);
    assert!(b.utilization > 0.9, "utilization {}", b.utilization);
}

/// RED under a constant overload: a CBR source at 1.05 times the link rate.
/// The queue must shed 1 - 1/1.05 = 4.76 % of the arrivals, so the average
/// settles where RED's probability produces that drop rate.
#[test]
fn red_under_fixed_overload_settles_between_the_thresholds_at_the_formula_probability() {
    use pertlab_sim::scenario::{Arrivals, LinkSpec, MonitorSpec, Scenario, SizeDist, UdpSpec};
    let (min_th, max_th, max_p) = (20.0, 60.0, 0.1);
    let red =
        RedConfig { min_th: Some(min_th), max_th: Some(max_th), l_interm: 1.0 / max_p, q_w: Some(0.002), wait: false, gentle: true, ..RedConfig::default() };
    let rate = 10 * MBPS;
    let s = Scenario {
        seed: 3,
        duration_ns: secs(300),
        measure: Some(pertlab_sim::scenario::MeasureWindow { start_ns: secs(50), end_ns: secs(300) }),
        nodes: vec!["src".into(), "router".into(), "dst".into()],
        links: vec![
            LinkSpec {
                name: Some("access".into()),
                a: "src".into(),
                b: "router".into(),
                rate_bps: 100 * MBPS,
                delay_ns: ms(1),
                loss: 0.0,
                loss_ba: 0.0,
                burst_loss: None,
                queue: QueueSpec::default(),
                queue_ba: None,
            },
            LinkSpec {
                name: Some("bottleneck".into()),
                a: "router".into(),
                b: "dst".into(),
                rate_bps: rate,
                delay_ns: ms(10),
                loss: 0.0,
                loss_ba: 0.0,
                burst_loss: None,
                queue: QueueSpec { kind: "red".into(), limit_pkts: Some(200), red, ..QueueSpec::default() },
                queue_ba: None,
            },
        ],
        dumbbell: None,
        flows: vec![],
        udp: vec![UdpSpec {
            src: "src".into(),
            dst: "dst".into(),
            rate_bps: rate * 105 / 100,
            packet_size: 1000,
            arrivals: Arrivals::Cbr,
            sizes: SizeDist::Fixed,
            ecn: false,
            start_ns: 0,
            stop_ns: None,
            class: 0,
            pareto_shape: 1.9,
            burst_ns: 500_000_000,
            idle_ns: 500_000_000,
        }],
        web: vec![],
        monitor: MonitorSpec { sample_interval_ns: Some(ms(10)), flows: None, links: Some(vec!["bottleneck".into()]), ..Default::default() },
        capture: Vec::new(),
        engine: Default::default(),
    };
    let r = pertlab_sim::run(&s).unwrap();
    let b = r.bottleneck.unwrap();
    assert!(r.conservation.ok);
    assert!(b.avg_queue_pkts > min_th && b.avg_queue_pkts < max_th, "average queue {}", b.avg_queue_pkts);
    let drop_rate = b.drop_rate.expect("packets through");
    assert!((drop_rate - (1.0 - 1.0 / 1.05)).abs() < 0.002, "drop rate {drop_rate}");
    // Without `wait`, count spacing makes the gap between drops uniform on
    // 1..1/p_b, so the drop fraction is d = 2 p_b / (1 + p_b), i.e. p_b = d / (2 - d).
    let p_b_implied = drop_rate / (2.0 - drop_rate);
    let p_b_formula = max_p * (b.avg_queue_pkts - min_th) / (max_th - min_th);
    // And the discipline's own p_b, sampled over the window, agrees with both.
    let fwd = r.queues.iter().position(|q| q.link == "bottleneck" && q.from == "router").unwrap() as u32;
    let sampled: Vec<f64> = (0..r.queue_series.t_s.len())
        .filter(|&i| r.queue_series.queue[i] == fwd && r.queue_series.t_s[i] >= 50.0)
        .map(|i| r.queue_series.probability[i])
        .collect();
    let p_b_sampled = sampled.iter().sum::<f64>() / sampled.len() as f64;
    eprintln!(
        "RED overload: avg {:.2} pkts, drop rate {drop_rate:.4}, p_b implied {p_b_implied:.4}, formula at avg {p_b_formula:.4}, sampled {p_b_sampled:.4}",
        b.avg_queue_pkts
    );
    assert!((p_b_formula - p_b_implied).abs() / p_b_implied < 0.1, "formula {p_b_formula} vs implied {p_b_implied}");
    assert!((p_b_sampled - p_b_implied).abs() / p_b_implied < 0.05, "sampled {p_b_sampled} vs implied {p_b_implied}");
}

#[test]
fn pert_queueing_delay_in_the_flow_series_tracks_the_bottleneck_queue() {
    // Two PERT flows beside two Reno flows, which keep a standing queue whose
    // sawtooth drains at each halving (buffer one BDP), so P is the base RTT.
    let (bw, rtt) = (10, 60);
    let mut flows = bulk_flows(2, CcSpec::Pert(PertConfig::default()), TcpConfig::default(), secs(1));
    let mut reno = bulk_flows(4, CcSpec::Reno, TcpConfig::default(), secs(1));
    flows.extend(reno.drain(2..));
    let mut s = scenario(dumbbell(4, bw, rtt, droptail(bdp_pkts(bw, rtt))), flows, 120, 20);
    s.monitor = MonitorSpec { sample_interval_ns: Some(100 * NS_PER_MS), links: Some(vec!["bottleneck".into()]), ..Default::default() };
    let r = pertlab_sim::run(&s).unwrap();
    let fs = &r.flow_series;
    let after = |t: &f64| *t >= 20.0;
    let of_flow =
        |f: u32| -> Vec<Option<f64>> { fs.t_s.iter().zip(&fs.flow).zip(&fs.qdelay_ms).filter(|((t, &g), _)| after(t) && g == f).map(|(_, q)| *q).collect() };
    assert!(of_flow(2).iter().all(Option::is_none), "Reno estimates no queueing delay");
    // The data direction of the bottleneck (its other queue holds ACKs).
    let forward = r.queues.iter().position(|q| q.link == "bottleneck" && q.from == "r0").unwrap() as u32;
    let qs = &r.queue_series;
    let queue_ms: Vec<f64> =
        (0..qs.t_s.len()).filter(|&i| after(&qs.t_s[i]) && qs.queue[i] == forward).map(|i| qs.len_bytes[i] as f64 * 8.0 / (bw as f64 * 1e3)).collect();
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    let queue_mean = mean(&queue_ms);
    for f in 0..2 {
        let q: Vec<f64> = of_flow(f).into_iter().map(|q| q.expect("every PERT sample has it")).collect();
        let pert_mean = mean(&q);
        eprintln!("flow {f}: PERT's srtt_0.99 - P {pert_mean:.2} ms, bottleneck queue {queue_mean:.2} ms");
        assert!(q.iter().all(|&x| x >= 0.0));
        assert!((pert_mean - queue_mean).abs() < 0.2 * queue_mean, "PERT {pert_mean:.2} ms, queue {queue_mean:.2} ms");
    }
    // Beside each estimate, the response probability PERT/RED maps it to: zero up to
    // T_min (5 ms), rising with the estimate above it (P, the base RTT, is fixed here).
    let mut points: Vec<(f64, f64)> = (0..fs.t_s.len())
        .filter(|&i| after(&fs.t_s[i]) && fs.flow[i] < 2)
        .map(|i| (fs.qdelay_ms[i].unwrap(), fs.p_response[i].expect("every PERT sample has it")))
        .collect();
    assert!((0..fs.t_s.len()).filter(|&i| fs.flow[i] >= 2).all(|i| fs.p_response[i].is_none()), "Reno draws no early response");
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!(points.iter().all(|&(q, p)| (0.0..=1.0).contains(&p) && (q > 5.0 || p == 0.0)), "{points:?}");
    assert!(points.windows(2).all(|w| w[1].1 >= w[0].1), "the probability rises with the estimate");
    let above = points.iter().filter(|&&(q, _)| q > 5.5).count();
    assert!(above > 10 && points.iter().filter(|&&(q, _)| q > 5.5).all(|&(_, p)| p > 0.0), "{above} samples above T_min");
}
