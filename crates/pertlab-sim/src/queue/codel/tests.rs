//! CoDel's drop schedule on fixed traces, worked out by hand from RFC 8289's
//! pseudocode (TARGET 5 ms, INTERVAL 100 ms, MAXPACKET 1500 bytes).

use super::*;
use crate::packet::{Ecn, PacketKind};
use crate::queue::{QueueBounds, QueueLimit};

const MS: SimTime = NS_PER_MS;
/// Trace times are counted from 1 s, so that a packet at trace time 0 can have waited.
const BASE: SimTime = 1000 * MS;

fn view(len_pkts: u32) -> QueueView {
    QueueView { len_pkts, len_bytes: len_pkts as u64 * 1000, limit: QueueLimit::Packets(1000), link_rate_bps: 10_000_000 }
}

/// Offer packets at `BASE + t` as the `OutputQueue` does, each having waited
/// `sojourn` with 10 packets behind it, until one passes. Returns the
/// number of packets dropped and whether the delivered one was marked.
fn dequeue_at(c: &mut Codel, t: SimTime, sojourn: SimTime, ecn: Ecn) -> (u32, bool) {
    let mut drops = 0;
    loop {
        let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1000);
        p.ecn = ecn;
        p.enq_ts = BASE + t - sojourn;
        match c.on_departure(&view(10), &mut p, BASE + t) {
            Verdict::Pass => return (drops, p.ecn == Ecn::Ce && ecn != Ecn::Ce),
            Verdict::Drop(_) => drops += 1,
        }
    }
}

/// Departures every 10 ms from trace time `from` to `to` (inclusive, ms) with a constant sojourn;
/// the times (ms) at which a packet was dropped or marked.
fn signals(c: &mut Codel, from: u64, to: u64, sojourn: SimTime, ecn: Ecn) -> Vec<u64> {
    let mut out = Vec::new();
    for t in (from..=to).step_by(10) {
        let (drops, marked) = dequeue_at(c, t * MS, sojourn, ecn);
        assert!(drops <= 1, "at most one drop per dequeue on this trace");
        if drops == 1 || marked {
            out.push(t);
        }
    }
    out
}

// drop_next after each drop (trace time), from INTERVAL / sqrt(count) rounded to the ns:
//   entry at 100 ms, count 1: 200
//   count 2: + 70.710678 = 270.710678     count 3: + 57.735027 = 328.445705
//   count 4: + 50        = 378.445705     count 5: + 44.721360 = 423.167065
//   count 6: + 40.824829 = 463.991894     count 7: + 37.796447 = 501.788341
//   count 8: + 35.355339 = 537.143680
// On a 10 ms grid the drops fall at 100, 200, 280, 330, 380, 430, 470, 510 ms.
const SCHEDULE: [u64; 8] = [100, 200, 280, 330, 380, 430, 470, 510];

#[test]
fn first_drop_after_an_interval_above_target_then_interval_over_sqrt_count() {
    let mut c = Codel::new(CodelConfig::default());
    // Sojourn 20 ms > 5 ms from t = 0: first_above_time = 100 ms.
    assert_eq!(signals(&mut c, 0, 510, 20 * MS, Ecn::NotEct), SCHEDULE);
    assert_eq!(c.count, 8);
    assert_eq!(c.drop_next, BASE + 537_143_680);
    assert!(c.dropping);
}

#[test]
fn a_short_sojourn_ends_the_dropping_state_and_a_quick_return_resumes_the_count() {
    let mut c = Codel::new(CodelConfig::default());
    signals(&mut c, 0, 510, 20 * MS, Ecn::NotEct);
    // 2 ms < target at 520 ms: leave the dropping state, forget first_above_time.
    assert_eq!(dequeue_at(&mut c, 520 * MS, 2 * MS, Ecn::NotEct), (0, false));
    assert!(!c.dropping && c.first_above.is_none());
    // Above target again from 530 ms: first_above_time 630 ms; entry at 630 ms with
    // delta = count - lastcount = 8 - 1 = 7 > 1 and 630 - 537.14 < 1600 ms: count = 7,
    // drop_next = 630 + 100 / sqrt 7 = 667.796447 -> next drop at 670 ms.
    assert_eq!(signals(&mut c, 530, 670, 20 * MS, Ecn::NotEct), [630, 670]);
    assert_eq!(c.lastcount, 7);
    assert_eq!(c.count, 8);
}

#[test]
fn at_most_one_mtu_queued_is_never_dropped() {
    let mut c = Codel::new(CodelConfig::default());
    let mut p = Packet::new(PacketKind::Data, 0, 0, 1, 1000);
    for t in (0..1000).step_by(10) {
        p.enq_ts = BASE + t * MS;
        // Sojourn 50 ms but one packet (1000 bytes <= 1500) left behind.
        assert_eq!(c.on_departure(&view(1), &mut p, BASE + t * MS + 50 * MS), Verdict::Pass);
    }
    assert!(c.first_above.is_none() && !c.dropping);
}

#[test]
fn with_ecn_the_same_schedule_marks_instead_of_dropping() {
    let mut c = Codel::new(CodelConfig { use_ecn: true, ..CodelConfig::default() });
    // A marked packet is delivered and ends the RFC's loop, the schedule advancing at once:
    // the same instants as the drops.
    assert_eq!(signals(&mut c, 0, 510, 20 * MS, Ecn::Ect), SCHEDULE);
    // Not ECN-capable: dropped.
    assert_eq!(dequeue_at(&mut c, 540 * MS, 20 * MS, Ecn::NotEct).0, 1);
}

#[test]
fn validation_names_the_field() {
    let d = CodelConfig::default;
    assert!(d().validate("q.codel").is_ok());
    assert_eq!(CodelConfig { target_ns: 0, ..d() }.validate("q.codel").unwrap_err().field, "q.codel.target_ns");
    assert_eq!(CodelConfig { interval_ns: 0, ..d() }.validate("q.codel").unwrap_err().field, "q.codel.interval_ns");
    let c: CodelConfig = serde_json::from_str(r#"{"target_ns": 10000000}"#).unwrap();
    assert_eq!(c, CodelConfig { target_ns: 10 * MS, ..d() });
    assert!(serde_json::from_str::<CodelConfig>(r#"{"target": 1}"#).is_err());
}

#[test]
fn a_buffer_that_drains_within_target_is_reported_as_one_codel_never_acts_on() {
    let c = Codel::new(CodelConfig::default());
    let at = |limit, largest_packet| QueueBounds { limit, rate_bps: 100_000_000, largest_packet };
    // 20 packets of 1500 bytes at 100 Mbit/s: 2.4 ms at most, below the 5 ms target.
    let why = c.never_acts(&at(QueueLimit::Packets(20), Some(1500))).expect("2.4 ms < 5 ms");
    assert_eq!(
        why,
        "the longest a packet can wait in it, 2.400 ms (the buffer full of its largest packets, 1500 bytes, at 100000000 bit/s), is below target (5.000 ms): no sojourn time reaches it, so codel never drops or marks"
    );
    // 42 packets: 5.04 ms, so a sojourn can reach the target; 41: 4.92 ms cannot.
    assert_eq!(c.never_acts(&at(QueueLimit::Packets(42), Some(1500))), None);
    assert!(c.never_acts(&at(QueueLimit::Packets(41), Some(1500))).is_some());
    // In bytes: the buffer and one packet in transmission. 60 000 + 1500 bytes: 4.92 ms.
    assert!(c.never_acts(&at(QueueLimit::Bytes(60_000), Some(1500))).is_some());
    assert_eq!(c.never_acts(&at(QueueLimit::Bytes(61_000), Some(1500))), None);
    // No bound on the packets' size (exponential UDP sizes): nothing said.
    assert_eq!(c.never_acts(&at(QueueLimit::Packets(1), None)), None);
}
