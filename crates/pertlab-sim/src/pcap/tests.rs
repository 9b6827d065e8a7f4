//! The header bytes of one data segment and one SACK ACK, checked field by
//! field against values worked out by hand (checksums by RFC 1071 on paper).

use super::*;
use crate::packet::{Ecn, Packet, PacketKind, SackBlock};

/// Flow 3 from node 0 to node 5, 1500-byte segments: 1448 payload bytes each.
fn data() -> Packet {
    let mut p = Packet::new(PacketKind::Data, 3, 0, 5, 1500);
    p.seq = 2;
    p.ecn = Ecn::Ect;
    p.cwr = true;
    p.ts = 1_000_000;
    p
}

#[test]
fn a_data_segment_has_byte_sequence_numbers_ect_cwr_and_a_timestamp() {
    let mut out = Vec::new();
    let len = headers(&data(), 0, 4, 2_000_000, 1500, &mut out);
    assert_eq!(len, 14 + 1500, "wire length: Ethernet + the simulated size");
    #[rustfmt::skip]
    let want: Vec<u8> = vec![
        // Ethernet: to node 4, from node 0, IPv4.
        0x02, 0, 0, 0, 0, 4,   0x02, 0, 0, 0, 0, 0,   0x08, 0x00,
        // IPv4: version 4 IHL 5, ECT(0), total 1500, id 0, DF, TTL 64, TCP, checksum 0x2114, 10.0.0.1 -> 10.0.0.6.
        0x45, 0x02, 0x05, 0xdc,   0, 0, 0x40, 0,   64, 6, 0x21, 0x14,   10, 0, 0, 1,   10, 0, 0, 6,
        // TCP: 10003 -> 5001, seq 1 + 2 x 1448 = 2897, ack 1, 32-byte header, ACK|CWR, window 65535, checksum 0x12b9.
        0x27, 0x13, 0x13, 0x89,   0, 0, 0x0b, 0x51,   0, 0, 0, 1,   0x80, 0x90, 0xff, 0xff,   0x12, 0xb9, 0, 0,
        // NOP NOP TS(10): TSval 1000 us (the send time), TSecr 0.
        1, 1, 8, 10,   0, 0, 0x03, 0xe8,   0, 0, 0, 0,
    ];
    assert_eq!(out, want);
    assert!(out.len() < len as usize, "captured short: the payload is not written");
}

#[test]
fn a_sack_ack_has_its_blocks_in_bytes_ece_and_the_echoed_timestamp() {
    let mut p = Packet::new(PacketKind::Ack, 3, 5, 0, 40);
    p.seq = 2;
    p.ece = true;
    p.ts = 1_000_000;
    p.n_sack = 2;
    p.sack[0] = SackBlock { start: 4, end: 6 };
    p.sack[1] = SackBlock { start: 8, end: 9 };
    let mut out = Vec::new();
    let len = headers(&p, 4, 0, 3_000_000, 1500, &mut out);
    #[rustfmt::skip]
    let want: Vec<u8> = vec![
        0x02, 0, 0, 0, 0, 0,   0x02, 0, 0, 0, 0, 4,   0x08, 0x00,
        // IPv4: not ECT, total 72 (20 + 52: the options outgrow the simulated 40 bytes), checksum 0x26aa, 10.0.0.6 -> 10.0.0.1.
        0x45, 0, 0, 72,   0, 0, 0x40, 0,   64, 6, 0x26, 0xaa,   10, 0, 0, 6,   10, 0, 0, 1,
        // TCP: 5001 -> 10003, seq 1, ack 1 + 2 x 1448 = 2897, 52-byte header, ACK|ECE, checksum 0x1e05.
        0x13, 0x89, 0x27, 0x13,   0, 0, 0, 1,   0, 0, 0x0b, 0x51,   0xd0, 0x50, 0xff, 0xff,   0x1e, 0x05, 0, 0,
        // NOP NOP TS: TSval 3000 us (now), TSecr 1000 us (the echoed send time).
        1, 1, 8, 10,   0, 0, 0x0b, 0xb8,   0, 0, 0x03, 0xe8,
        // NOP NOP SACK(18): [5793, 8689) = segments [4, 6), [11585, 13033) = [8, 9).
        1, 1, 5, 18,   0, 0, 0x16, 0xa1,   0, 0, 0x21, 0xf1,   0, 0, 0x2d, 0x41,   0, 0, 0x32, 0xe9,
    ];
    assert_eq!(out, want);
    assert_eq!(len, 14 + 72);
}

#[test]
fn three_sack_blocks_fill_the_option_space() {
    let mut p = Packet::new(PacketKind::Ack, 0, 1, 0, 40);
    p.n_sack = 3;
    let mut out = Vec::new();
    headers(&p, 1, 0, 0, 1000, &mut out);
    assert_eq!(out[14 + 20 + 12] >> 4, 15, "data offset: 60 bytes, TCP's largest header");
    assert_eq!(out.len() as u32, SNAPLEN);
}

#[test]
fn a_record_has_nanosecond_time_and_both_lengths() {
    let mut w = Vec::new();
    write_record(&mut w, 3 * NS_PER_SEC + 7, &[9; 5], 1514).unwrap();
    assert_eq!(w[..16], [3, 0, 0, 0, 7, 0, 0, 0, 5, 0, 0, 0, 0xea, 0x05, 0, 0]);
    assert_eq!(file_header()[..4], [0x4d, 0x3c, 0xb2, 0xa1]);
}

#[test]
fn every_flow_id_has_its_own_ports_and_addresses() {
    // The inverse of `flow_ends` over the ids at the edges of each range, and a stride through all of them.
    let ids = (0..120_000u32)
        .chain((1..=17).flat_map(|k| {
            let edge = k * SENDER_PORTS * SERVER_PORTS;
            edge.saturating_sub(60_000)..edge.saturating_add(60_000)
        }))
        .chain((0..u32::MAX).step_by(7_919))
        .chain(u32::MAX - 10..=u32::MAX);
    let mut seen = 0u64;
    for id in ids {
        let (sport, dport, octet) = flow_ends(id);
        assert!((10000..60000).contains(&sport) && (5001..10000).contains(&dport) && (10..=27).contains(&octet), "{id}: {sport} {dport} {octet}");
        let back = u64::from(octet - FIRST_OCTET) * u64::from(SERVER_PORTS) * u64::from(SENDER_PORTS)
            + u64::from(dport - SERVER_PORT) * u64::from(SENDER_PORTS)
            + u64::from(sport - SENDER_PORT_BASE);
        assert_eq!(back, u64::from(id));
        seen += 1;
    }
    assert!(seen > 2_000_000);
    // The first flows keep the ports and addresses they always had.
    assert_eq!(flow_ends(0), (10000, 5001, 10));
    assert_eq!(flow_ends(49_999), (59_999, 5001, 10));
    assert_eq!(flow_ends(50_000), (10000, 5002, 10));
    assert_eq!(flow_ends(SENDER_PORTS * SERVER_PORTS), (10000, 5001, 11));
}

#[test]
fn a_flow_past_the_first_ranges_has_its_port_and_address_in_the_headers() {
    let id = SENDER_PORTS * SERVER_PORTS + 2 * SENDER_PORTS + 7;
    let mut p = Packet::new(PacketKind::Data, id, 0, 5, 1500);
    p.seq = 0;
    let mut out = Vec::new();
    headers(&p, 0, 4, 0, 1500, &mut out);
    assert_eq!(out[14 + 12..14 + 20], [11, 0, 0, 1, 11, 0, 0, 6], "11.0.0.1 -> 11.0.0.6");
    assert_eq!(out[34..38], [0x27, 0x17, 0x13, 0x8b], "10007 -> 5003");
}

#[test]
fn a_segment_with_psh_has_the_flag_and_others_do_not() {
    // The flags byte: 14 bytes of Ethernet, 20 of IPv4, then the 14th byte of the TCP header.
    const FLAGS: usize = 14 + 20 + 13;
    for (psh, want) in [(false, 0x90), (true, 0x98)] {
        let mut out = Vec::new();
        headers(&Packet { psh, ..data() }, 0, 4, 2_000_000, 1500, &mut out);
        assert_eq!(out[FLAGS], want, "ACK|CWR, and PSH when set");
    }
}
