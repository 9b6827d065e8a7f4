//! Tests of PIE against RFC 8033's pseudocode, with the numbers worked out by
//! hand in the comments (alpha 0.125/s, beta 1.25/s, QDELAY_REF 15 ms,
//! T_UPDATE 15 ms, MAX_BURST 150 ms unless said otherwise).

use super::*;
use crate::packet::{Ecn, PacketKind};
use crate::queue::QueueLimit;
use crate::rng::from_seed;

const RATE: u64 = 8_000_000; // 1e6 bytes/s: 1000 bytes = 1 ms

fn view(len_bytes: u64) -> QueueView {
    QueueView { len_pkts: (len_bytes / 1000) as u32, len_bytes, limit: QueueLimit::Packets(1000), link_rate_bps: RATE }
}

fn pkt(ecn: Ecn) -> Packet {
    let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1000);
    p.ecn = ecn;
    p
}

/// One `calculate_drop_prob` from drop_prob `p` and qdelay_old `old` with delay `qdelay` (seconds).
fn step(cfg: &PieConfig, p: f64, old: f64, qdelay: f64) -> f64 {
    let mut s = State { p, qdelay_old: old, burst: 0 };
    Pie::update(cfg, &mut s, qdelay);
    assert_eq!(s.qdelay_old, qdelay);
    s.p
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-15
}

#[test]
fn the_step_is_scaled_by_the_range_of_drop_prob() {
    let cfg = PieConfig::default();
    // qdelay 25 ms, old 20 ms: raw = 0.125 * 0.010 + 1.25 * 0.005 = 0.00125 + 0.00625 = 0.0075.
    // drop_prob 0.005 < 0.01: / 8 -> + 0.0009375 = 0.0059375.
    assert!(close(step(&cfg, 0.005, 0.020, 0.025), 0.005_937_5));
    // 0.05 < 0.1: / 2 -> + 0.00375 = 0.05375.
    assert!(close(step(&cfg, 0.05, 0.020, 0.025), 0.053_75));
    // 0.15: unscaled -> 0.1575 (below the 0.02 cap).
    assert!(close(step(&cfg, 0.15, 0.020, 0.025), 0.1575));
    // From 0: raw at 30 ms after 0 = 0.125 * 0.015 + 1.25 * 0.030 = 0.039375; / 2048 = 1.922607421875e-5.
    assert!(close(step(&cfg, 0.0, 0.0, 0.030), 1.922_607_421_875e-5));
    // 5e-6 (< 1e-5): / 512; raw at 30 ms steady = 0.001875 -> + 3.662109375e-6.
    assert!(close(step(&cfg, 5e-6, 0.030, 0.030), 5e-6 + 3.662_109_375e-6));
    // 5e-4 (< 1e-3): / 32 -> + 5.859375e-5.
    assert!(close(step(&cfg, 5e-4, 0.030, 0.030), 5e-4 + 5.859_375e-5));
}

#[test]
fn a_large_step_above_ten_percent_is_capped_at_two_percent() {
    let cfg = PieConfig::default();
    // qdelay 100 ms after 20 ms: raw = 0.125 * 0.085 + 1.25 * 0.08 = 0.010625 + 0.1 = 0.110625.
    assert!(close(step(&cfg, 0.15, 0.020, 0.100), 0.17));
    let uncapped = PieConfig { cap_drop_adjustment: false, ..cfg };
    assert!(close(step(&uncapped, 0.15, 0.020, 0.100), 0.260_625));
    // Below 0.1 the cap does not apply: 0.09 + 0.110625 / 2 = 0.1453125.
    assert!(close(step(&cfg, 0.09, 0.020, 0.100), 0.145_312_5));
}

#[test]
fn an_empty_queue_decays_and_the_probability_stays_in_range() {
    let cfg = PieConfig::default();
    // qdelay 0 after 0: raw = -0.001875; 0.01 is not < 0.01, so / 2: 0.01 - 0.0009375 = 0.0090625;
    // then * 0.98 = 0.00888125.
    assert!(close(step(&cfg, 0.01, 0.0, 0.0), 0.008_881_25));
    // qdelay 0 after 30 ms: raw = -0.001875 - 0.0375 = -0.039375; 1e-4 -> / 32 = -0.00123046875:
    // below 0, clamped (no decay: the old delay was not 0).
    assert_eq!(step(&cfg, 1e-4, 0.030, 0.0), 0.0);
    // 1 s of delay at drop_prob 1: clamped at 1.
    assert_eq!(step(&uncapped_at_one(), 1.0, 0.5, 1.0), 1.0);
}

fn uncapped_at_one() -> PieConfig {
    PieConfig { cap_drop_adjustment: false, ..PieConfig::default() }
}

#[test]
fn a_fixed_delay_trace_through_the_queue_with_the_burst_allowance() {
    let cfg = PieConfig { delay: PieDelay::QueueOverRate, ..PieConfig::default() };
    let mut pie = Pie::new(cfg);
    let mut rng = from_seed(1);
    let ms = NS_PER_MS;
    // t = 0, empty queue: drop_prob 0 and both delays < 7.5 ms: burst allowance = 150 ms.
    assert_eq!(pie.on_arrival(&view(0), &mut pkt(Ecn::NotEct), 0, &mut rng), Verdict::Pass);
    assert_eq!(pie.state.burst, 150 * ms);
    // From 1 ms on 30 000 bytes wait (30 ms at 1e6 B/s). Updates at 15, 30, ..., 150 ms, each
    // taking 15 ms of allowance:
    //  u1: 0.039375 / 2048                 = 1.922607421875e-5
    //  u2..u7: + 0.001875 / 128 = 1.46484375e-5 each (drop_prob in [1e-5, 1e-4)):
    //      3.387451171875e-5, 4.852294921875e-5, 6.317138671875e-5, 7.781982421875e-5,
    //      9.246826171875e-5, 1.0711669921875e-4
    //  u8..u10: + 0.001875 / 32 = 5.859375e-5 each: 1.6571044921875e-4, 2.2430419921875e-4,
    //      2.8289794921875e-4
    assert_eq!(pie.on_arrival(&view(30_000), &mut pkt(Ecn::NotEct), ms, &mut rng), Verdict::Pass);
    pie.on_arrival(&view(30_000), &mut pkt(Ecn::NotEct), 149 * ms, &mut rng);
    assert_eq!(pie.state.burst, 15 * ms); // nine updates so far
    assert!(close(pie.probability(), 2.2430419921875e-4), "{}", pie.probability());
    pie.on_arrival(&view(30_000), &mut pkt(Ecn::NotEct), 150 * ms, &mut rng);
    assert_eq!(pie.state.burst, 0);
    assert!((pie.probability() - 2.828_979_492_187_5e-4).abs() < 1e-18, "{}", pie.probability());
    assert!(close(pie.state.qdelay_old, 0.030));
}

#[test]
fn no_random_drop_while_the_burst_allowance_lasts_or_the_safeguard_holds() {
    let mut pie = Pie::new(PieConfig { delay: PieDelay::QueueOverRate, ..PieConfig::default() });
    let mut rng = from_seed(2);
    let full = view(30_000);
    // drop_prob 1 but burst allowance left: pass.
    pie.state = State { p: 1.0, qdelay_old: 0.030, burst: 15 * NS_PER_MS };
    assert_eq!(pie.on_arrival(&full, &mut pkt(Ecn::NotEct), 0, &mut rng), Verdict::Pass);
    // Allowance used up: every arrival dropped at drop_prob 1.
    pie.state.burst = 0;
    assert_eq!(pie.on_arrival(&full, &mut pkt(Ecn::NotEct), 0, &mut rng), Verdict::Drop(DropKind::Early));
    // Safeguard: at most 2 mean-size packets queued.
    assert_eq!(pie.on_arrival(&view(2000), &mut pkt(Ecn::NotEct), 0, &mut rng), Verdict::Pass);
    // Safeguard: old delay < 7.5 ms and drop_prob < 0.2.
    pie.state = State { p: 0.19, qdelay_old: 0.007, burst: 0 };
    let drops = (0..1000).filter(|_| pie.on_arrival(&full, &mut pkt(Ecn::NotEct), 0, &mut rng) != Verdict::Pass).count();
    assert_eq!(drops, 0);
}

#[test]
fn ecn_capable_packets_are_marked_below_the_threshold_and_dropped_above() {
    let mut pie = Pie::new(PieConfig { delay: PieDelay::QueueOverRate, use_ecn: true, ..PieConfig::default() });
    let mut rng = from_seed(3);
    let full = view(30_000);
    // drop_prob 0.05 < 0.1 (old delay 30 ms, so no safeguard): about 5 % marked, none dropped.
    pie.state = State { p: 0.05, qdelay_old: 0.030, burst: 0 };
    let (mut marks, mut drops) = (0, 0);
    for _ in 0..10_000 {
        let mut p = pkt(Ecn::Ect);
        match pie.on_arrival(&full, &mut p, 0, &mut rng) {
            Verdict::Pass if p.ecn == Ecn::Ce => marks += 1,
            Verdict::Pass => {}
            Verdict::Drop(_) => drops += 1,
        }
    }
    // Binomial(10000, 0.05): mean 500, sd 22.
    assert_eq!(drops, 0);
    assert!((400..=600).contains(&marks), "{marks}");
    // drop_prob 1 >= 0.1: dropped even though ECN-capable.
    pie.state.p = 1.0;
    assert_eq!(pie.on_arrival(&full, &mut pkt(Ecn::Ect), 0, &mut rng), Verdict::Drop(DropKind::Early));
}

#[test]
fn the_sojourn_reading_takes_the_last_departure() {
    let mut pie = Pie::new(PieConfig::default());
    let mut p = pkt(Ecn::NotEct);
    p.enq_ts = 10 * NS_PER_MS;
    // Leaves at 40 ms with packets behind it: 30 ms.
    pie.on_departure(&view(3000), &mut p, 40 * NS_PER_MS);
    assert!(close(pie.last_sojourn, 0.030));
    // The update at 45 ms uses it: 0.039375 / 2048.
    pie.on_departure(&view(2000), &mut p, 45 * NS_PER_MS);
    assert!(close(pie.probability(), 1.922_607_421_875e-5));
    // Leaving the queue empty: 0 (ns-3).
    pie.on_departure(&view(0), &mut p, 46 * NS_PER_MS);
    assert_eq!(pie.last_sojourn, 0.0);
}

#[test]
fn validation_names_the_field() {
    let d = PieConfig::default;
    let err = |c: PieConfig| c.validate("q.pie").unwrap_err().field;
    assert!(d().validate("q.pie").is_ok());
    assert_eq!(err(PieConfig { target_delay_ns: 0, ..d() }), "q.pie.target_delay_ns");
    assert_eq!(err(PieConfig { t_update_ns: 0, ..d() }), "q.pie.t_update_ns");
    assert_eq!(err(PieConfig { t_update_ns: NS_PER_MS - 1, ..d() }), "q.pie.t_update_ns");
    assert!(PieConfig { t_update_ns: NS_PER_MS, ..d() }.validate("q.pie").is_ok());
    assert_eq!(err(PieConfig { alpha: 2e9, ..d() }), "q.pie.alpha");
    assert_eq!(err(PieConfig { alpha: -0.1, ..d() }), "q.pie.alpha");
    assert_eq!(err(PieConfig { beta: f64::NAN, ..d() }), "q.pie.beta");
    assert_eq!(err(PieConfig { mean_pkt_size: 0, ..d() }), "q.pie.mean_pkt_size");
    assert_eq!(err(PieConfig { mark_ecn_threshold: 1.5, ..d() }), "q.pie.mark_ecn_threshold");
    let c: PieConfig = serde_json::from_str(r#"{"delay": "queue_over_rate", "use_ecn": true}"#).unwrap();
    assert_eq!(c, PieConfig { delay: PieDelay::QueueOverRate, use_ecn: true, ..d() });
    assert!(serde_json::from_str::<PieConfig>(r#"{"qdelay_ref": 1}"#).is_err());
}

#[test]
fn the_auto_tuned_scale_counts_each_range_at_its_divisor() {
    assert_eq!(scaled(0.0), 0.0);
    assert!(close(scaled(1e-6), 1e-6 * 2048.0));
    assert!(close(scaled(1e-5), 1e-6 * 2048.0 + 9e-6 * 512.0));
    // Up to 0.2: 2048e-6 + 512 x 9e-6 + 128 x 9e-5 + 32 x 9e-4 + 8 x 9e-3 + 2 x 0.09 + 0.1.
    assert!(close(scaled(SAFEGUARD_PROB), 0.398976));
}

#[test]
fn a_buffer_that_drains_within_half_the_target_is_reported_as_one_pie_never_acts_on() {
    let pie = Pie::new(PieConfig::default());
    let at = |limit| QueueBounds { limit, rate_bps: 100_000_000, largest_packet: Some(1500) };
    // 62 packets of 1500 bytes at 100 Mbit/s: 7.44 ms, below half of 15 ms; 63: 7.56 ms.
    let why = pie.never_acts(&at(QueueLimit::Packets(62))).expect("7.44 ms < 7.5 ms");
    assert_eq!(
        why,
        "the longest a packet can wait in it, 7.440 ms (the buffer full of its largest packets, 1500 bytes, at 100000000 bit/s), is below half its target (7.500 ms), where its safeguard passes every packet while drop_prob is below 0.2, which such delays cannot raise it to (beta 1.25): pie never drops or marks"
    );
    assert_eq!(pie.never_acts(&at(QueueLimit::Packets(63))), None);
    // A beta large enough that 7.44 ms could take drop_prob to 0.2: nothing is said.
    let steep = Pie::new(PieConfig { beta: 60.0, ..PieConfig::default() });
    assert_eq!(steep.never_acts(&at(QueueLimit::Packets(62))), None);
    assert!(steep.never_acts(&at(QueueLimit::Packets(20))).is_some()); // 60 x 2.4 ms = 0.144 < 0.399
    assert_eq!(pie.never_acts(&QueueBounds { largest_packet: None, ..at(QueueLimit::Packets(1)) }), None);
}

proptest::proptest! {
    /// The bound `never_acts` rests on: whatever the delays below QDELAY_REF, in whatever
    /// order, `scaled(drop_prob)` stays at or below beta times the largest of them.
    #[test]
    fn drop_prob_in_the_auto_tuned_scale_stays_below_beta_times_the_largest_delay(
        delays in proptest::collection::vec(0.0f64..0.015, 1..400),
        alpha in 0.0f64..10.0,
        beta in 0.0f64..100.0,
        cap in proptest::bool::ANY,
    ) {
        let cfg = PieConfig { alpha, beta, cap_drop_adjustment: cap, ..PieConfig::default() };
        let mut s = State { p: 0.0, qdelay_old: 0.0, burst: 0 };
        let mut largest = 0.0f64;
        for &q in &delays {
            Pie::update(&cfg, &mut s, q);
            largest = largest.max(q);
            proptest::prop_assert!(scaled(s.p) <= beta * largest * (1.0 + 1e-9) + 1e-15, "p {} after {:?}", s.p, delays);
        }
    }
}
