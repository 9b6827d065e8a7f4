//! Tests of RED and Adaptive RED. Expected numbers are worked out by hand in
//! the comments.

use super::*;
use crate::packet::{Ecn, PacketKind};
use crate::rng::from_seed;

const RATE_10M: u64 = 10_000_000;

fn pkt(size: u32, ecn: Ecn) -> Packet {
    let mut p = Packet::new(PacketKind::Data, 0, 0, 1, size);
    p.ecn = ecn;
    p
}

fn view(len_pkts: u32) -> QueueView {
    QueueView { len_pkts, len_bytes: len_pkts as u64 * 1000, limit: QueueLimit::Packets(1000), link_rate_bps: RATE_10M }
}

/// One 1000-byte arrival finding `len` packets queued.
fn arrive(red: &mut Red, len: u32, now: SimTime, rng: &mut SimRng) -> Verdict {
    red.on_arrival(&view(len), &mut pkt(1000, Ecn::NotEct), now, rng)
}

/// RED whose average equals the instantaneous queue (q_w = 1), thresholds
/// 5/15, max_p = 1/l_interm.
fn instant_red(l_interm: f64, gentle: bool, wait: bool) -> Red {
    let cfg = RedConfig { min_th: Some(5.0), max_th: Some(15.0), q_w: Some(1.0), l_interm, gentle, wait, ..RedConfig::default() };
    cfg.validate("red").unwrap();
    Red::new(cfg, RedVariant::Red, 1000, RATE_10M)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

// ---------------------------------------------------------------- parameters

#[test]
fn automatic_parameters_at_10_mbps_with_1000_byte_packets_give_the_thesis_band() {
    let cfg = RedConfig { mean_pkt_size: 1000, ..RedConfig::default() };
    let red = Red::new(cfg, RedVariant::Ared, 50, RATE_10M);
    // C = 10e6 / (8 * 1000) = 1250 pkt/s; 0.005 * 1250 / 2 = 3.125 < 5 -> min_th 5, max_th 15.
    assert_eq!(red.thresholds(), (5.0, 15.0));
    // Band [5 + 0.4 * 10, 5 + 0.6 * 10] = [9, 11] (thesis §3.3.2 footnote 1, §4.4.1).
    let band = red.target_band().unwrap();
    assert!(close(band.low, 9.0, 1e-12) && close(band.high, 11.0, 1e-12), "{band:?}");
    // q_w = 1 - exp(-1/1250) = 0.0008 - 0.0008^2/2 + 0.0008^3/6 = 0.000799680085...
    assert!(close(red.q_w(), 0.000_799_680_085, 1e-12), "{}", red.q_w());
    // ARED starts from max_p = 1/l_interm = 1/50.
    assert_eq!(red.max_p(), 0.02);
    assert_eq!(red.name(), "ared");
}

#[test]
fn the_ns_default_mean_packet_size_does_not_give_the_thesis_band() {
    let red = Red::new(RedConfig::default(), RedVariant::Ared, 50, RATE_10M);
    // C = 10e6 / 4000 = 2500; 0.005 * 2500 / 2 = 6.25 -> min_th 6.25, max_th 18.75.
    assert_eq!(red.thresholds(), (6.25, 18.75));
    // Band [6.25 + 0.4 * 12.5, 6.25 + 0.6 * 12.5] = [11.25, 13.75].
    let band = red.target_band().unwrap();
    assert!(close(band.low, 11.25, 1e-12) && close(band.high, 13.75, 1e-12), "{band:?}");
    // q_w = 1 - exp(-1/2500) = 0.0004 - 0.00000008 + ... = 0.000399920011
    assert!(close(red.q_w(), 0.000_399_920_011, 1e-12), "{}", red.q_w());
}

#[test]
fn automatic_thresholds_grow_with_the_link_rate() {
    let cfg = RedConfig { mean_pkt_size: 1000, ..RedConfig::default() };
    let red = Red::new(cfg, RedVariant::Ared, 750, 150_000_000);
    // C = 150e6 / 8000 = 18750; 0.005 * 18750 / 2 = 46.875; max_th = 140.625.
    assert_eq!(red.thresholds(), (46.875, 140.625));
}

#[test]
fn plain_red_uses_ns3_defaults() {
    let red = Red::new(RedConfig::default(), RedVariant::Red, 50, RATE_10M);
    assert_eq!(red.thresholds(), (5.0, 15.0));
    assert_eq!(red.q_w(), 0.002);
    assert_eq!(red.max_p(), 0.02);
    assert_eq!(red.target_band(), None);
    assert_eq!(red.name(), "red");
}

#[test]
fn explicit_values_are_kept_under_ared_and_max_th_defaults_to_three_min_th() {
    let cfg = RedConfig { min_th: Some(20.0), max_th: Some(80.0), q_w: Some(0.001), ..RedConfig::default() };
    let red = Red::new(cfg, RedVariant::Ared, 100, 15_000_000);
    assert_eq!(red.thresholds(), (20.0, 80.0));
    assert_eq!(red.q_w(), 0.001);
    // Thesis Scenarios 2/3: [20 + 0.4 * 60, 20 + 0.6 * 60] = [44, 56].
    let band = red.target_band().unwrap();
    assert!(close(band.low, 44.0, 1e-12) && close(band.high, 56.0, 1e-12), "{band:?}");

    let cfg = RedConfig { min_th: Some(20.0), ..RedConfig::default() };
    assert_eq!(Red::new(cfg, RedVariant::Red, 100, RATE_10M).thresholds(), (20.0, 60.0));
    // 0 means automatic even for plain RED.
    let cfg = RedConfig { min_th: Some(0.0), q_w: Some(0.0), mean_pkt_size: 1000, ..RedConfig::default() };
    let red = Red::new(cfg, RedVariant::Red, 100, RATE_10M);
    assert_eq!(red.thresholds(), (5.0, 15.0));
    assert!(close(red.q_w(), 0.000_799_680_085, 1e-12));
    // -2: 1 - exp(-10/1250) = 1 - exp(-0.008) = 0.0079680851...
    let cfg = RedConfig { q_w: Some(-2.0), mean_pkt_size: 1000, ..RedConfig::default() };
    assert!(close(Red::new(cfg, RedVariant::Red, 100, RATE_10M).q_w(), 0.007_968_085_1, 1e-10));
}

#[test]
fn byte_mode_scales_automatic_and_default_thresholds_by_the_mean_packet_size() {
    let cfg = RedConfig { mode: RedMode::Bytes, mean_pkt_size: 1000, ..RedConfig::default() };
    assert_eq!(Red::new(cfg.clone(), RedVariant::Ared, 50, RATE_10M).thresholds(), (5000.0, 15000.0));
    assert_eq!(Red::new(cfg, RedVariant::Red, 50, RATE_10M).thresholds(), (5000.0, 15000.0));
    // Explicit thresholds are bytes already.
    let cfg = RedConfig { mode: RedMode::Bytes, min_th: Some(3000.0), ..RedConfig::default() };
    assert_eq!(Red::new(cfg, RedVariant::Red, 50, RATE_10M).thresholds(), (3000.0, 9000.0));
}

#[test]
fn automatic_bottom_follows_ns3() {
    // bottom = min(0.01, 1 / (C * 0.1 s)); at 150 Mbps with 500-byte packets
    // C = 37500, W = 3750 packets, 1/W = 0.000266...
    let cfg = RedConfig { bottom: 0.0, ..RedConfig::default() };
    let p = band_params(&cfg, 150_000_000);
    assert!(close(p.bottom, 1.0 / 3750.0, 1e-15), "{}", p.bottom);
    // At 1 Mbps: C = 250, W = 25, 1/W = 0.04 -> capped at 0.01.
    assert_eq!(band_params(&cfg, 1_000_000).bottom, 0.01);
    // And never above top (issue 25 item 1: the range [0.01, 0.001] made the clamp panic).
    let cfg = RedConfig { bottom: 0.0, top: 0.001, ..RedConfig::default() };
    assert_eq!(band_params(&cfg, 1_000_000).bottom, 0.001);
    for variant in [RedVariant::Ared, RedVariant::ReAred, RedVariant::Fared, RedVariant::Cared] {
        assert_eq!(Red::new(cfg.clone(), variant, 50, RATE_10M).max_p(), 0.001, "{variant:?}");
    }
}

// ---------------------------------------------------------------- average

#[test]
fn ewma_follows_every_arrival() {
    let mut red = Red::new(RedConfig::default(), RedVariant::Red, 50, RATE_10M); // q_w = 0.002
    let mut rng = from_seed(1);
    let mut t = 0;
    let mut avgs = Vec::new();
    for len in [0, 10, 10, 20] {
        arrive(&mut red, len, t, &mut rng);
        avgs.push(red.avg());
        t += NS_PER_MS;
    }
    // 0; 0.002 * 10 = 0.02; 0.02 * 0.998 + 0.02 = 0.03996;
    // 0.03996 * 0.998 + 0.002 * 20 = 0.03988008 + 0.04 = 0.07988008.
    let want = [0.0, 0.02, 0.03996, 0.07988008];
    for (got, want) in avgs.iter().zip(want) {
        assert!(close(*got, want, 1e-15), "{avgs:?}");
    }
}

/// A RED with q_w = 0.5 whose average is 2 after one arrival at t = 0 that
/// found 4 packets, and whose queue emptied with a 1000-byte departure at 1 ms.
/// At 10 Mbps the departing packet is on the wire for 800 us: idle from 1.8 ms.
fn red_gone_idle(idle_pkt_size: u32) -> Red {
    let cfg = RedConfig { q_w: Some(0.5), mean_pkt_size: 1000, idle_pkt_size, ..RedConfig::default() };
    let mut red = Red::new(cfg, RedVariant::Red, 50, RATE_10M);
    arrive(&mut red, 4, 0, &mut from_seed(1));
    assert_eq!(red.avg(), 2.0);
    assert_eq!(red.on_departure(&view(0), &mut pkt(1000, Ecn::NotEct), NS_PER_MS), Verdict::Pass);
    red
}

#[test]
fn idle_time_decays_the_average() {
    let mut red = red_gone_idle(0);
    // 4 ms idle at C = 1250 pkt/s: m = 5 -> avg = 2 * 0.5^(5 + 1) + 0.5 * 0 = 0.03125.
    arrive(&mut red, 0, 5_800_000, &mut from_seed(1));
    assert_eq!(red.avg(), 0.031_25);
}

#[test]
fn idle_time_counts_idle_packet_size_packets() {
    let mut red = red_gone_idle(500);
    // 500-byte idle packets: 2500 pkt/s, m = 10 -> avg = 2 * 0.5^11 = 0.0009765625.
    arrive(&mut red, 0, 5_800_000, &mut from_seed(1));
    assert_eq!(red.avg(), 0.000_976_562_5);
}

#[test]
fn an_arrival_while_the_last_packet_is_on_the_wire_is_not_after_idle_time() {
    let mut red = red_gone_idle(0);
    // At 1.5 ms the link still sends: m = 0 -> avg = 2 * 0.5 = 1.
    arrive(&mut red, 0, 1_500_000, &mut from_seed(1));
    assert_eq!(red.avg(), 1.0);
    // The idle state is consumed: a later arrival sees no idle time either.
    arrive(&mut red, 0, 9_000_000, &mut from_seed(1));
    assert_eq!(red.avg(), 0.5);
}

// ---------------------------------------------------------------- probability

#[test]
fn count_spacing_of_the_drop_probability() {
    // p_b = 0.05. Without wait: p_a = p_b / (1 - count p_b).
    assert!(close(spaced_probability(0.05, 10.0, false), 0.05 / 0.5, 1e-15)); // 0.1
    assert!(close(spaced_probability(0.05, 16.0, false), 0.05 / 0.2, 1e-12)); // 0.25
    assert_eq!(spaced_probability(0.05, 20.0, false), 1.0);
    // With wait: 0 while count p_b < 1, then p_b / (2 - count p_b), 1 from 2 on.
    assert_eq!(spaced_probability(0.05, 10.0, true), 0.0);
    assert!(close(spaced_probability(0.05, 30.0, true), 0.05 / 0.5, 1e-12)); // 0.1
    assert_eq!(spaced_probability(0.05, 40.0, true), 1.0);
}

#[test]
fn byte_mode_counts_mean_size_packets_and_spares_small_packets() {
    let cfg = RedConfig { mode: RedMode::Bytes, wait: false, mean_pkt_size: 1000, ..RedConfig::default() };
    let mut red = Red::new(cfg, RedVariant::Red, 50, RATE_10M);
    red.count_bytes = 10_500; // 10 whole mean-size packets
                              // p_b 0.05 -> 0.05 / (1 - 0.5) = 0.1, times 500 / 1000 for a 500-byte packet = 0.05.
    assert!(close(red.arrival_probability(0.05, 500), 0.05, 1e-15));
    assert!(close(red.arrival_probability(0.05, 1000), 0.1, 1e-15));
    // Once the spacing says 1, the packet size does not matter.
    red.count_bytes = 20_000;
    assert_eq!(red.arrival_probability(0.05, 500), 1.0);
}

#[test]
fn drop_probability_in_the_linear_and_gentle_regions() {
    let mut red = instant_red(10.0, true, true); // max_p 0.1
    let mut rng = from_seed(1);
    let mut at = |red: &mut Red, len| {
        arrive(red, len, 0, &mut rng);
        red.probability()
    };
    assert_eq!(at(&mut red, 3), 0.0);
    // 0.1 * (10 - 5) / (15 - 5) = 0.05.
    assert!(close(at(&mut red, 10), 0.05, 1e-15));
    // At max_th: max_p.
    assert!(close(at(&mut red, 15), 0.1, 1e-15));
    // Gentle: 0.1 + 0.9 * (20 - 15) / 15 = 0.4.
    assert!(close(at(&mut red, 20), 0.4, 1e-15));
    // 2 max_th and beyond: 1.
    assert_eq!(at(&mut red, 30), 1.0);
    assert_eq!(at(&mut red, 40), 1.0);

    let mut harsh = instant_red(10.0, false, true);
    assert_eq!(at(&mut harsh, 15), 1.0);
}

#[test]
fn forced_region_drops_every_arrival() {
    let mut rng = from_seed(3);
    let mut gentle = instant_red(10.0, true, true);
    assert_eq!(arrive(&mut gentle, 29, 0, &mut rng), Verdict::Pass); // first arrival above min_th
    assert_eq!(arrive(&mut gentle, 30, 0, &mut rng), Verdict::Drop(DropKind::Forced));
    let mut harsh = instant_red(10.0, false, true);
    assert_eq!(arrive(&mut harsh, 15, 0, &mut rng), Verdict::Drop(DropKind::Forced));
    // Forced drops reset the count (ns-2).
    assert_eq!(harsh.count, 0);
}

#[test]
fn the_first_arrival_above_min_th_and_a_one_packet_queue_are_never_dropped() {
    // max_p = 1, avg 14: p_b = 0.9; without wait count 2 gives p_a = 1.
    let mut red = instant_red(1.0, true, false);
    let mut rng = from_seed(5);
    assert_eq!(arrive(&mut red, 14, 0, &mut rng), Verdict::Pass);
    assert_eq!(red.count, 1);
    assert_eq!(arrive(&mut red, 14, 0, &mut rng), Verdict::Drop(DropKind::Early));
    assert_eq!(red.count, 0);

    // q_w = 0.5: avg 7.5 >= min_th but only one packet queued -> no drop, and
    // the next arrival counts as a new crossing.
    let cfg = RedConfig { min_th: Some(5.0), max_th: Some(15.0), q_w: Some(0.5), l_interm: 1.0, wait: false, ..RedConfig::default() };
    let mut red = Red::new(cfg, RedVariant::Red, 1000, RATE_10M);
    for _ in 0..60 {
        arrive(&mut red, 14, 0, &mut rng);
    }
    assert_eq!(arrive(&mut red, 1, 0, &mut rng), Verdict::Pass);
    assert!(red.avg() >= 5.0);
    assert_eq!(arrive(&mut red, 14, 0, &mut rng), Verdict::Pass);
    assert_eq!(red.count, 1);
}

#[test]
fn a_buffer_overflow_resets_the_count_like_ns2() {
    let mut red = instant_red(10.0, true, true);
    let mut rng = from_seed(1);
    let full = QueueView { limit: QueueLimit::Packets(10), ..view(10) };
    arrive(&mut red, 3, 0, &mut rng);
    assert_eq!(red.count, 1);
    // avg 10: probability region, but the verdict Pass will meet a full buffer.
    let v = red.on_arrival(&full, &mut pkt(1000, Ecn::NotEct), 0, &mut rng);
    assert_eq!(v, Verdict::Pass);
    assert_eq!(red.count, 0);
}

// ---------------------------------------------------------------- ECN

#[test]
fn ecn_capable_packets_are_marked_instead_of_dropped_early() {
    let cfg = RedConfig { use_ecn: true, ..instant_red(10.0, true, false).config_for_tests() };
    let mut red = Red::new(cfg, RedVariant::Red, 1000, RATE_10M);
    let mut rng = from_seed(9);
    let (mut marks, mut drops) = (0, 0);
    for _ in 0..10_000 {
        let mut p = pkt(1000, Ecn::Ect);
        match red.on_arrival(&view(10), &mut p, 0, &mut rng) {
            Verdict::Pass if p.ecn == Ecn::Ce => marks += 1,
            Verdict::Pass => {}
            Verdict::Drop(_) => drops += 1,
        }
    }
    // p_b = 0.05 without wait: one mark per 10 arrivals on average (see the statistical test).
    assert_eq!(drops, 0);
    assert!((900..=1100).contains(&marks), "marks {marks}");
    // Not ECN-capable: dropped.
    let v = (0..100).map(|_| arrive(&mut red, 10, 0, &mut rng)).filter(|v| *v == Verdict::Drop(DropKind::Early)).count();
    assert!(v > 0);
}

#[test]
fn without_use_ecn_ecn_capable_packets_are_dropped() {
    let mut red = instant_red(1.0, true, false);
    let mut rng = from_seed(2);
    red.on_arrival(&view(14), &mut pkt(1000, Ecn::Ect), 0, &mut rng);
    let mut p = pkt(1000, Ecn::Ect);
    assert_eq!(red.on_arrival(&view(14), &mut p, 0, &mut rng), Verdict::Drop(DropKind::Early));
    assert_eq!(p.ecn, Ecn::Ect);
}

#[test]
fn forced_drops_hit_ecn_packets_unless_hard_drop_is_off() {
    let mut rng = from_seed(4);
    let base = RedConfig { use_ecn: true, ..instant_red(10.0, true, true).config_for_tests() };
    let mut hard = Red::new(base.clone(), RedVariant::Red, 1000, RATE_10M);
    let mut p = pkt(1000, Ecn::Ect);
    // avg 30 = 2 max_th: forced.
    assert_eq!(hard.on_arrival(&view(30), &mut p, 0, &mut rng), Verdict::Drop(DropKind::Forced));
    assert_eq!(p.ecn, Ecn::Ect);

    let mut soft = Red::new(RedConfig { use_hard_drop: false, ..base }, RedVariant::Red, 1000, RATE_10M);
    let mut p = pkt(1000, Ecn::Ect);
    assert_eq!(soft.on_arrival(&view(30), &mut p, 0, &mut rng), Verdict::Pass);
    assert_eq!(p.ecn, Ecn::Ce);
    // Not ECN-capable: still a forced drop.
    assert_eq!(arrive(&mut soft, 30, 0, &mut rng), Verdict::Drop(DropKind::Forced));
}

// ---------------------------------------------------------------- statistics

/// Fraction of `n` arrivals dropped at a constant queue of 10 packets
/// (avg = 10, p_b = 0.1 * (10 - 5) / 10 = 0.05).
fn drop_fraction(wait: bool, n: u32) -> f64 {
    let mut red = instant_red(10.0, true, wait);
    let mut rng = from_seed(2024);
    let drops = (0..n).filter(|_| arrive(&mut red, 10, 0, &mut rng) != Verdict::Pass).count();
    drops as f64 / n as f64
}

#[test]
fn drop_rate_without_wait_matches_count_spacing() {
    // count = n at the n-th arrival after a drop; p_a(n) = p/(1 - n p), and
    // P(gap = n) = prod_{i<n} (1 - p_a(i)) * p_a(n) telescopes to p/(1-p) = 1/19
    // for n = 1..19 (p_a(19) = 1). Mean gap 10, drop fraction 1/10 = 2 p_b.
    // Gap variance (19^2 - 1)/12 = 30: over 200000 arrivals the count of drops
    // has sd sqrt(200000 * 30 / 10^3) = 77 around 20000, i.e. 0.4 %.
    let f = drop_fraction(false, 200_000);
    assert!(close(f, 0.1, 0.002), "{f}");
}

#[test]
fn drop_rate_with_wait_matches_count_spacing() {
    // With wait, p_a(n) = 0 for n < 20, p/(2 - n p) for 20 <= n < 40: the gap
    // telescopes to uniform on 20..39, mean 29.5, drop fraction 1/29.5 = 0.033898.
    // Gap variance (20^2 - 1)/12 = 33.25: sd of the drop count over 200000
    // arrivals sqrt(200000 * 33.25 / 29.5^3) = 16 around 6780, i.e. 0.24 %.
    let f = drop_fraction(true, 200_000);
    assert!(close(f, 1.0 / 29.5, 0.000_3), "{f}");
}

#[test]
fn same_seed_same_decisions() {
    let run = || {
        let mut red = Red::new(RedConfig { mean_pkt_size: 1000, ..RedConfig::default() }, RedVariant::Ared, 100, RATE_10M);
        let mut rng = from_seed(77);
        (0..5000u64).map(|i| arrive(&mut red, (i % 40) as u32, i * 100_000, &mut rng)).collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}

// ---------------------------------------------------------------- Adaptive RED

/// ARED at 10 Mbps with 1000-byte packets (band [9, 11]) and avg = queue.
fn instant_ared(l_interm: f64) -> Red {
    let cfg = RedConfig { q_w: Some(1.0), mean_pkt_size: 1000, l_interm, ..RedConfig::default() };
    Red::new(cfg, RedVariant::Ared, 1000, RATE_10M)
}

#[test]
fn ared_adapts_max_p_below_inside_and_above_the_band() {
    let mut red = instant_ared(50.0); // max_p 0.02
    let mut rng = from_seed(6);
    let ms = NS_PER_MS;
    let mut at = |red: &mut Red, len, t| {
        arrive(red, len, t, &mut rng);
        red.max_p()
    };
    // Above 11 after 0.5 s: 0.02 + min(0.01, 0.02/4) = 0.025.
    assert!(close(at(&mut red, 12, 600 * ms), 0.025, 1e-15));
    // Not again before 1.1 s.
    assert!(close(at(&mut red, 12, 700 * ms), 0.025, 1e-15));
    // 0.025 + 0.00625 = 0.03125.
    assert!(close(at(&mut red, 12, 1200 * ms), 0.031_25, 1e-15));
    // Below 9: 0.03125 * 0.9 = 0.028125.
    assert!(close(at(&mut red, 8, 1800 * ms), 0.028_125, 1e-15));
    // Inside the band: unchanged, and the last change stays at 1.8 s ...
    assert!(close(at(&mut red, 10, 2400 * ms), 0.028_125, 1e-15));
    // ... so leaving the band at 2.45 s answers at once: + 0.25 * 0.028125 = 0.03515625.
    assert!(close(at(&mut red, 12, 2450 * ms), 0.035_156_25, 1e-15));
}

#[test]
fn ared_increases_by_at_most_0_01() {
    let mut red = instant_ared(10.0); // max_p 0.1
    let mut rng = from_seed(6);
    arrive(&mut red, 12, 600 * NS_PER_MS, &mut rng);
    // min(0.01, 0.1 / 4) = 0.01.
    assert!(close(red.max_p(), 0.11, 1e-15));
}

#[test]
fn ared_keeps_max_p_within_0_01_and_0_5() {
    let mut rng = from_seed(8);
    let step = 600 * NS_PER_MS;
    // From 0.01 up: +0.0025, +0.003125, ... then +0.01 steps, stopping at 0.5.
    let mut red = instant_ared(100.0);
    let mut prev = red.max_p();
    for k in 1..=80 {
        arrive(&mut red, 14, k * step, &mut rng);
        assert!(red.max_p() >= prev && red.max_p() <= 0.5, "{}", red.max_p());
        prev = red.max_p();
    }
    assert_eq!(red.max_p(), 0.5);
    // And back down by factors of 0.9 to 0.01, never below.
    for k in 81..=160 {
        arrive(&mut red, 6, k * step, &mut rng);
        assert!(red.max_p() <= prev && red.max_p() >= 0.01, "{}", red.max_p());
        prev = red.max_p();
    }
    assert_eq!(red.max_p(), 0.01);
    // An initial max_p above top starts at top.
    assert_eq!(instant_ared(1.0).max_p(), 0.5);
}

// ---------------------------------------------------------------- the rest of the family

/// A family member at 10 Mbps with 1000-byte packets and avg = queue.
fn instant_variant(variant: RedVariant, cfg: RedConfig) -> Red {
    let cfg = RedConfig { q_w: Some(1.0), mean_pkt_size: 1000, ..cfg };
    cfg.validate("red").unwrap();
    Red::new(cfg, variant, 1000, RATE_10M)
}

#[test]
fn variants_are_named_by_their_queue_kind() {
    for v in RedVariant::ALL {
        assert_eq!(RedVariant::from_name(v.name()), Some(v));
        assert_eq!(Red::new(RedConfig::default(), v, 100, RATE_10M).name(), v.name());
    }
    assert_eq!(RedVariant::from_name("droptail"), None);
}

#[test]
fn the_adaptive_family_configures_itself_like_ared_with_its_own_band() {
    let cfg = RedConfig { mean_pkt_size: 1000, ..RedConfig::default() };
    // All four: min_th 5, max_th 15, q_w 1 - exp(-1/1250) at 10 Mbps (see the ARED test).
    let band = |v| {
        let red = Red::new(cfg.clone(), v, 100, RATE_10M);
        assert_eq!(red.thresholds(), (5.0, 15.0));
        assert!(close(red.q_w(), 0.000_799_680_085, 1e-12));
        let b = red.target_band().unwrap();
        (b.low, b.high)
    };
    // ARED and CARED: [5 + 0.4 * 10, 5 + 0.6 * 10] = [9, 11].
    for v in [RedVariant::Ared, RedVariant::Cared] {
        let (lo, hi) = band(v);
        assert!(close(lo, 9.0, 1e-12) && close(hi, 11.0, 1e-12));
    }
    // Re-ARED and FARED: [5 + 0.48 * 10, 5 + 0.52 * 10] = [9.8, 10.2].
    for v in [RedVariant::ReAred, RedVariant::Fared] {
        let (lo, hi) = band(v);
        assert!(close(lo, 9.8, 1e-12) && close(hi, 10.2, 1e-12));
    }
    // An explicit band overrides the paper's.
    let red = Red::new(RedConfig { target_band: Some([0.25, 0.75]), ..cfg.clone() }, RedVariant::ReAred, 100, RATE_10M);
    assert_eq!(red.target_band().map(|b| (b.low, b.high)), Some((7.5, 12.5)));
    // Feng and NLRED keep plain RED's defaults (ns-3) and have no band.
    for v in [RedVariant::Feng, RedVariant::Nlred] {
        let red = Red::new(cfg.clone(), v, 100, RATE_10M);
        assert_eq!((red.thresholds(), red.q_w(), red.target_band()), ((5.0, 15.0), 0.002, None));
    }
}

/// max_p after one arrival finding `len` packets at 0.6 s (past the first interval),
/// starting from max_p = 0.1.
fn max_p_after(variant: RedVariant, cfg: RedConfig, prev_len: u32, len: u32) -> f64 {
    let mut red = instant_variant(variant, RedConfig { l_interm: 10.0, ..cfg });
    let mut rng = from_seed(1);
    // An arrival at 0.4 s sets the previous average (within the first interval: no change).
    arrive(&mut red, prev_len, 400 * NS_PER_MS, &mut rng);
    assert_eq!(red.max_p(), 0.1);
    arrive(&mut red, len, 600 * NS_PER_MS, &mut rng);
    red.max_p()
}

#[test]
fn each_controller_moves_max_p_through_the_queue() {
    let d = RedConfig::default;
    // Thresholds 5/15. Re-ARED band [9.8, 10.2]:
    // below, avg 7: 0.1 (1 - 0.17 * 2.8 / 4.8) = 0.0900833...; inside: 0.1;
    // above, avg 12: 0.1 + 0.25 * 0.1 * 1.8 / 10.2 = 0.1044117...
    let v = RedVariant::ReAred;
    assert!(close(max_p_after(v, d(), 0, 7), 0.090_083_333_333_333_3, 1e-12));
    assert_eq!(max_p_after(v, d(), 0, 10), 0.1);
    assert!(close(max_p_after(v, d(), 0, 12), 0.104_411_764_705_882_35, 1e-12));
    // The gains are parameters: 0.34 doubles the decrease: 0.1 (1 - 0.34 * 2.8 / 4.8) = 0.0801666...
    assert!(close(max_p_after(v, RedConfig { reared_decrease_gain: 0.34, ..d() }, 0, 7), 0.080_166_666_666_666_7, 1e-12));
    // FARED: 0.1 (1 - 0.0385 * 2.8 / 4.8) = 0.0977541666...; 0.1 + 0.042 * 0.1 * 1.8 / 10.2 = 0.1007411764...
    let v = RedVariant::Fared;
    assert!(close(max_p_after(v, d(), 0, 7), 0.097_754_166_666_666_7, 1e-12));
    assert_eq!(max_p_after(v, d(), 0, 10), 0.1);
    assert!(close(max_p_after(v, d(), 0, 12), 0.100_741_176_470_588_2, 1e-12));
    // CARED, band [9, 11]: below and rising (prev 0 -> 7): ARED 0.09; below and
    // falling (prev 8 -> 7): Re-ARED from 9, 0.1 (1 - 0.17 * 2 / 4) = 0.0915.
    let v = RedVariant::Cared;
    assert!(close(max_p_after(v, d(), 0, 7), 0.09, 1e-15));
    assert!(close(max_p_after(v, d(), 8, 7), 0.0915, 1e-15));
    assert_eq!(max_p_after(v, d(), 0, 10), 0.1);
    // Above and rising (0 -> 12): Re-ARED from 11, 0.1 + 0.025 / 11 = 0.1022727...;
    // above and falling (13 -> 12): ARED, 0.11.
    assert!(close(max_p_after(v, d(), 0, 12), 0.102_272_727_272_727_3, 1e-12));
    assert!(close(max_p_after(v, d(), 13, 12), 0.11, 1e-15));
    // ARED: 0.09 / 0.1 / 0.11.
    let v = RedVariant::Ared;
    assert!(close(max_p_after(v, d(), 0, 7), 0.09, 1e-15));
    assert_eq!(max_p_after(v, d(), 0, 10), 0.1);
    assert!(close(max_p_after(v, d(), 0, 12), 0.11, 1e-15));
}

#[test]
fn feng_scales_max_p_at_every_arrival_through_the_queue() {
    let mut red = instant_variant(RedVariant::Feng, RedConfig { min_th: Some(5.0), l_interm: 10.0, ..RedConfig::default() });
    let mut rng = from_seed(1);
    let mut at = |red: &mut Red, len, t| {
        arrive(red, len, t, &mut rng);
        red.max_p()
    };
    // No interval: the first arrival (avg 0 < 5, status starts Above) divides: 0.1 / 3.
    assert!(close(at(&mut red, 0, 0), 0.1 / 3.0, 1e-15));
    assert!(close(at(&mut red, 2, 1), 0.1 / 3.0, 1e-15));
    // Above 15: x 2 = 0.0666...; again above: unchanged; between: unchanged.
    assert!(close(at(&mut red, 16, 2), 0.2 / 3.0, 1e-15));
    assert!(close(at(&mut red, 20, 3), 0.2 / 3.0, 1e-15));
    assert!(close(at(&mut red, 10, 4), 0.2 / 3.0, 1e-15));
}

#[test]
fn nlred_probability_is_quadratic_between_the_thresholds() {
    let mut red = instant_variant(RedVariant::Nlred, RedConfig { min_th: Some(5.0), max_th: Some(15.0), l_interm: 10.0, ..RedConfig::default() });
    let mut rng = from_seed(1);
    let mut at = |len| {
        arrive(&mut red, len, 0, &mut rng);
        red.probability()
    };
    // p_b = 1.5 * 0.1 * ((avg - 5) / 10)^2.
    assert_eq!(at(3), 0.0);
    assert_eq!(at(5), 0.0);
    assert!(close(at(7), 1.5 * 0.1 * 0.04, 1e-15)); // 0.006
    assert!(close(at(10), 1.5 * 0.1 * 0.25, 1e-15)); // 0.0375
    assert!(close(at(14), 1.5 * 0.1 * 0.81, 1e-15)); // 0.1215
                                                     // The gentle segment is RED's: 0.1 + 0.9 * 5 / 15 = 0.4.
    assert!(close(at(20), 0.4, 1e-15));
    assert_eq!(at(30), 1.0);
}

// ---------------------------------------------------------------- configuration

fn err_field(cfg: RedConfig) -> String {
    cfg.validate("q.red").unwrap_err().field
}

#[test]
fn validation_names_the_field() {
    assert!(RedConfig::default().validate("q.red").is_ok());
    let d = RedConfig::default;
    assert_eq!(err_field(RedConfig { min_th: Some(20.0), max_th: Some(10.0), ..d() }), "q.red.min_th");
    assert_eq!(err_field(RedConfig { min_th: Some(-1.0), ..d() }), "q.red.min_th");
    assert_eq!(err_field(RedConfig { max_th: Some(f64::NAN), ..d() }), "q.red.max_th");
    assert_eq!(err_field(RedConfig { max_th: Some(15.0), ..d() }), "q.red.max_th");
    assert_eq!(err_field(RedConfig { q_w: Some(1.5), ..d() }), "q.red.q_w");
    assert_eq!(err_field(RedConfig { q_w: Some(-0.5), ..d() }), "q.red.q_w");
    assert_eq!(err_field(RedConfig { l_interm: 0.5, ..d() }), "q.red.l_interm");
    assert_eq!(err_field(RedConfig { mean_pkt_size: 0, ..d() }), "q.red.mean_pkt_size");
    assert_eq!(err_field(RedConfig { target_delay_ns: 0, ..d() }), "q.red.target_delay_ns");
    assert_eq!(err_field(RedConfig { interval_ns: 0, ..d() }), "q.red.interval_ns");
    assert_eq!(err_field(RedConfig { top: 1.5, ..d() }), "q.red.top");
    assert_eq!(err_field(RedConfig { top: 0.0, ..d() }), "q.red.top");
    assert_eq!(err_field(RedConfig { bottom: 0.6, ..d() }), "q.red.bottom");
    assert_eq!(err_field(RedConfig { bottom: -0.1, ..d() }), "q.red.bottom");
    assert_eq!(err_field(RedConfig { alpha: 0.0, ..d() }), "q.red.alpha");
    assert_eq!(err_field(RedConfig { beta: 1.0, ..d() }), "q.red.beta");
    assert_eq!(err_field(RedConfig { target_band: Some([0.6, 0.4]), ..d() }), "q.red.target_band");
    assert_eq!(err_field(RedConfig { target_band: Some([-0.1, 0.4]), ..d() }), "q.red.target_band");
    assert_eq!(err_field(RedConfig { target_band: Some([0.4, 1.1]), ..d() }), "q.red.target_band");
    assert_eq!(err_field(RedConfig { reared_decrease_gain: 1.5, ..d() }), "q.red.reared_decrease_gain");
    assert_eq!(err_field(RedConfig { reared_increase_gain: -0.1, ..d() }), "q.red.reared_increase_gain");
    assert_eq!(err_field(RedConfig { fared_decrease_gain: f64::NAN, ..d() }), "q.red.fared_decrease_gain");
    assert_eq!(err_field(RedConfig { fared_increase_gain: f64::INFINITY, ..d() }), "q.red.fared_increase_gain");
    assert_eq!(err_field(RedConfig { feng_alpha: 0.5, ..d() }), "q.red.feng_alpha");
    assert_eq!(err_field(RedConfig { feng_beta: 0.0, ..d() }), "q.red.feng_beta");
    assert_eq!(err_field(RedConfig { nlred_scale: 0.0, ..d() }), "q.red.nlred_scale");
    // ns-2's RTT-based code is refused with a reason.
    let e = RedConfig { q_w: Some(-1.0), ..d() }.validate("q.red").unwrap_err();
    assert!(e.message.contains("link delay"), "{e}");
    // Accepted special values.
    for ok in [
        RedConfig { q_w: Some(0.0), ..d() },
        RedConfig { q_w: Some(-2.0), ..d() },
        RedConfig { q_w: Some(1.0), ..d() },
        RedConfig { min_th: Some(0.0), max_th: Some(0.0), ..d() },
        RedConfig { min_th: Some(5.0), max_th: Some(5.0), ..d() },
        RedConfig { bottom: 0.0, ..d() },
    ] {
        assert!(ok.validate("q.red").is_ok(), "{ok:?}");
    }
}

#[test]
fn config_reads_from_json_and_rejects_unknown_fields() {
    let cfg: RedConfig = serde_json::from_str(r#"{"mode": "bytes", "min_th": 10, "use_ecn": true}"#).unwrap();
    assert_eq!(cfg, RedConfig { mode: RedMode::Bytes, min_th: Some(10.0), use_ecn: true, ..RedConfig::default() });
    assert!(serde_json::from_str::<RedConfig>(r#"{"minth": 10}"#).is_err());
    let back: RedConfig = serde_json::from_str(&serde_json::to_string(&cfg).unwrap()).unwrap();
    assert_eq!(back, cfg);
    let cfg: RedConfig = serde_json::from_str(r#"{"ratio_target": "midpoint", "cared_trend": "update", "target_band": [0.3, 0.7]}"#).unwrap();
    assert_eq!((cfg.ratio_target, cfg.cared_trend, cfg.target_band), (RatioTarget::Midpoint, TrendReference::Update, Some([0.3, 0.7])));
    assert_eq!(cfg.fared_increase_gain, 0.042);
}

#[test]
fn edge_configurations_do_not_panic_and_keep_probabilities_in_range() {
    let d = RedConfig::default;
    let cfgs = [
        RedConfig { min_th: Some(5.0), max_th: Some(5.0), ..d() },
        RedConfig { min_th: Some(5.0), max_th: Some(5.0), gentle: false, ..d() },
        RedConfig { q_w: Some(1.0), l_interm: 1.0, wait: false, ..d() },
        RedConfig { mode: RedMode::Bytes, idle_pkt_size: 1, ..d() },
        RedConfig { bottom: 0.0, ..d() },
    ];
    let mut rng = from_seed(11);
    for cfg in cfgs {
        cfg.validate("q").unwrap();
        let runs = RedVariant::ALL.into_iter().map(|v| (v, RATE_10M)).chain([(RedVariant::Ared, 0), (RedVariant::Cared, u64::MAX)]);
        for (variant, rate) in runs {
            let mut red = Red::new(cfg.clone(), variant, 10, rate);
            for i in 0..3000u64 {
                let len = ((i * 7) % 50) as u32;
                let v = QueueView { link_rate_bps: rate, ..view(len) };
                red.on_arrival(&v, &mut pkt(1 + (i % 1500) as u32, Ecn::Ect), i * 1_000_000, &mut rng);
                if i % 3 == 0 {
                    red.on_departure(&QueueView { link_rate_bps: rate, ..view(0) }, &mut pkt(1000, Ecn::Ect), i * 1_000_000 + 1);
                }
                let p = red.probability();
                assert!((0.0..=1.0).contains(&p) && red.avg().is_finite(), "{p} {}", red.avg());
                assert!((0.0..=1.0).contains(&red.max_p()));
            }
        }
    }
}

impl Red {
    /// The configuration `instant_red` used, to derive variants from (test only).
    fn config_for_tests(&self) -> RedConfig {
        RedConfig {
            min_th: Some(self.p.min_th),
            max_th: Some(self.p.max_th),
            q_w: Some(self.p.q_w),
            l_interm: 1.0 / self.max_p,
            gentle: self.p.gentle,
            wait: self.p.wait,
            ..RedConfig::default()
        }
    }
}

#[test]
fn through_an_output_queue_marks_and_forced_drops_are_counted() {
    use crate::queue::{Enqueued, OutputQueue, StandaloneQueue};
    // avg = queue; max_p 1; thresholds 2/4; not gentle, no wait; ECN on.
    let cfg =
        RedConfig { min_th: Some(2.0), max_th: Some(4.0), q_w: Some(1.0), l_interm: 1.0, gentle: false, wait: false, use_ecn: true, ..RedConfig::default() };
    let red = Red::new(cfg, RedVariant::Red, 100, RATE_10M);
    let mut q = StandaloneQueue::new(OutputQueue::new(QueueLimit::Packets(100), RATE_10M, Box::new(red), from_seed(1)));
    let outcomes: Vec<_> = (0..6).map(|_| q.offer(pkt(1000, Ecn::Ect), 0)).collect();
    // Queue 0, 1: below min_th. 2: first arrival above min_th (count restarts at 1).
    // 3: p_b = (3 - 2)/2 = 0.5, count 2 -> count p_b = 1 -> p_a = 1: marked, queued.
    // 4, 4: avg >= max_th without gentle: forced drops, ECN or not.
    let dropped = Enqueued::Dropped(DropKind::Forced);
    assert_eq!(outcomes, [Enqueued::Queued, Enqueued::Queued, Enqueued::Queued, Enqueued::Queued, dropped, dropped]);
    assert_eq!(q.counters.drops_forced, 2);
    assert_eq!(q.counters.drops_early, 0);
    assert_eq!(q.packets().filter(|p| p.ecn == Ecn::Ce).count(), 1);
    // A mark counts when the marked packet leaves (the fourth to leave).
    let mut left = Vec::new();
    for _ in 0..4 {
        assert_eq!(q.counters.marks, left.iter().filter(|p: &&Packet| p.ecn == Ecn::Ce).count() as u64);
        left.push(q.serve(0).unwrap());
    }
    assert_eq!(q.counters.marks, 1);
    assert!(left[3].ecn == Ecn::Ce && left[3].marked);
}

#[test]
fn a_buffer_at_or_below_min_th_is_reported_as_one_red_never_acts_on() {
    // RED's bound is the buffer's alone: the rate and the packets' sizes do not enter it.
    let at = |limit| QueueBounds { limit, rate_bps: 1_000_000_000, largest_packet: Some(1500) };
    // ARED at 1 Gbit/s with 1500-byte packets: min_th = max(5, 5 ms x 83 333 pkt/s / 2) = 208.33.
    let cfg = RedConfig { mean_pkt_size: 1500, ..RedConfig::default() };
    let ared = Red::new(cfg.clone(), RedVariant::Ared, 20, 1_000_000_000);
    let why = ared.never_acts(&at(QueueLimit::Packets(20))).expect("208 packets of min_th above a 20-packet buffer");
    assert_eq!(why, "min_th (208.33 packets) is not below the buffer (20 packets): the average queue never exceeds it, so ared never drops or marks early");
    assert_eq!(ared.never_acts(&at(QueueLimit::Packets(209))), None);
    // Plain RED's min_th of 5: a buffer of 5 cannot hold an average above it, one of 6 can.
    let red = instant_red(10.0, true, true);
    assert!(red.never_acts(&at(QueueLimit::Packets(5))).is_some() && red.never_acts(&at(QueueLimit::Packets(6))).is_none());
    // A buffer in bytes against an average in packets: no exact bound, nothing said.
    assert_eq!(ared.never_acts(&at(QueueLimit::Bytes(1500))), None);
}
