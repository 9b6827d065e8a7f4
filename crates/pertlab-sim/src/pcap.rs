//! pcap captures: the simulator's packets as classic libpcap records with
//! synthesised Ethernet/IPv4/TCP or UDP headers, for Wireshark and tshark
//! (issue 23). The format is libpcap's (wiki.wireshark.org/Development/LibpcapFileFormat)
//! with the nanosecond magic `0xa1b23c4d`: simulated times are nanoseconds and a
//! 1500-byte packet takes 1.2 us at 10 Gb/s, so microseconds would merge
//! back-to-back packets into one timestamp and reorder nothing but blur RTTs.
//!
//! Mapping (docs/pcap.md): node `n` has IPv4 address 10.0.0.0 + (n + 1) and MAC
//! 02:00:00 + n (locally administered); the Ethernet source and destination are
//! the captured link direction's ends. TCP flow (or UDP source) `f` sends from
//! port [`SENDER_PORT_BASE`] + f mod [`SENDER_PORTS`] to port [`SERVER_PORT`] +
//! (f / [`SENDER_PORTS`]) mod [`SERVER_PORTS`], between its hosts' addresses
//! in the /8 numbered 10 + f / ([`SENDER_PORTS`] x [`SERVER_PORTS`]) (10 up to
//! 250 million flows, at most 27): every flow id of the core (a `u32`) has its
//! own 4-tuple ([`flow_ends`]), and a receiver's port is always below every
//! sender's port, so no flow's pair of ends is another's reversed. Sequence numbers are bytes: segment `s` starts at
//! 1 + s x payload (an ISN of 0, its SYN not simulated), where payload = packet
//! size - 40 - 12 (the 12 bytes of the timestamps option every segment carries
//! come out of the payload, so the wire length stays the simulated size). An ACK
//! acknowledges 1 + ack x payload and its SACK blocks are mapped the same way;
//! an ACK's length is its headers' (20 + 20 + options), not its simulated
//! size (an ACK of 40 simulated bytes holds no options, and more would read as payload). TCP timestamps (RFC 7323) tick in
//! microseconds: a segment's TSval is its send time, an ACK's TSecr the send time
//! it echoes and its TSval the capture time. ECN: IP ECT(0)/CE, TCP ECE/CWR
//! (RFC 3168). Checksums (IPv4 header, TCP/UDP over the pseudo-header) are
//! computed for an all-zero payload: correct for the bytes a reader would
//! assume, and the payload itself is not written (records are captured short:
//! caplen < len, which readers report as "packet size limited during
//! capture", not as malformed).
//!
//! Left out: handshakes and FINs, payload bytes, IP options, fragmentation, the
//! other XCP/JCC header fields (not on the wire of a real TCP either).

use std::io::{self, Write};

use crate::packet::{Ecn, Packet, PacketKind, SackBlock, TCP_IP_HEADER_BYTES};
use crate::time::{SimTime, NS_PER_SEC};

/// First sending port: flow (or UDP source) `f` sends from `SENDER_PORT_BASE + f % SENDER_PORTS`.
pub const SENDER_PORT_BASE: u16 = 10000;
/// Sending ports, 10000 to 59999.
pub const SENDER_PORTS: u32 = 50000;
/// The receiving port of the first [`SENDER_PORTS`] flows (iperf's); the next
/// ones use the next ports, up to 9999 (below every sending port).
pub const SERVER_PORT: u16 = 5001;
/// Receiving ports, 5001 to 9999.
pub const SERVER_PORTS: u32 = 4999;
/// The first octet of the addresses of the first `SENDER_PORTS x SERVER_PORTS` flows (10.0.0.0/8).
pub const FIRST_OCTET: u8 = 10;
/// Bytes of the timestamps option with its two NOPs (RFC 7323, Appendix A layout).
pub const TS_OPTION_BYTES: u32 = 12;
/// Largest record written: Ethernet 14 + IPv4 20 + TCP 60.
pub const SNAPLEN: u32 = 14 + 20 + 60;
/// libpcap's nanosecond-resolution magic number.
pub const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_ETHERNET.
pub const LINKTYPE_ETHERNET: u32 = 1;

const ETH_HEADER: usize = 14;
const IP_HEADER: usize = 20;

/// The 24-byte global header of a capture file.
pub fn file_header() -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    // thiszone, sigfigs: 0.
    h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
    h
}

/// IPv4 address of node `n` in the /8 numbered `octet` (10 for all but huge runs).
pub fn node_ip(n: u32, octet: u8) -> [u8; 4] {
    ((u32::from(octet) << 24) | (n.wrapping_add(1) & 0x00ff_ffff)).to_be_bytes()
}

/// The sending port, the receiving port and the first octet of the addresses
/// of flow (or UDP source) `id`: a different triple for every `u32` (see the module doc).
pub fn flow_ends(id: u32) -> (u16, u16, u8) {
    let r = id / SENDER_PORTS;
    (SENDER_PORT_BASE + (id % SENDER_PORTS) as u16, SERVER_PORT + (r % SERVER_PORTS) as u16, FIRST_OCTET + (r / SERVER_PORTS) as u8)
}

/// MAC address of node `n`.
pub fn node_mac(n: u32) -> [u8; 6] {
    let b = n.to_be_bytes();
    [0x02, 0, b[0], b[1], b[2], b[3]]
}

/// TCP payload bytes of one data segment of `packet_size` wire bytes.
pub fn segment_payload(packet_size: u32) -> u32 {
    packet_size.saturating_sub(TCP_IP_HEADER_BYTES + TS_OPTION_BYTES)
}

/// Ones' complement sum of 16-bit big-endian words (RFC 1071), not yet folded.
fn sum16(bytes: &[u8]) -> u32 {
    bytes.chunks(2).map(|c| u32::from(c[0]) << 8 | u32::from(*c.get(1).unwrap_or(&0))).sum()
}

fn fold(mut s: u32) -> u16 {
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

/// Microsecond timestamp-option clock (RFC 7323 leaves the tick to the host).
fn ts_clock(t: SimTime) -> u32 {
    (t / 1000) as u32
}

/// The headers of one packet as a capture on link direction `from -> to` at
/// `now` records them, and its length on the wire. `segment_bytes` is the data
/// packet size of the packet's TCP flow (for byte sequence numbers).
pub fn headers(pkt: &Packet, from: u32, to: u32, now: SimTime, segment_bytes: u32, out: &mut Vec<u8>) -> u32 {
    out.clear();
    out.extend_from_slice(&node_mac(to));
    out.extend_from_slice(&node_mac(from));
    out.extend_from_slice(&0x0800u16.to_be_bytes());
    let ip_start = out.len();
    out.resize(ip_start + IP_HEADER, 0);
    let l4_start = out.len();
    let (sender_port, server_port, octet) = flow_ends(pkt.flow);
    let (proto, ip_len) = match pkt.kind {
        PacketKind::Udp => {
            let len = pkt.size.max(IP_HEADER as u32 + 8);
            out.extend_from_slice(&sender_port.to_be_bytes());
            out.extend_from_slice(&server_port.to_be_bytes());
            out.extend_from_slice(&((len - IP_HEADER as u32) as u16).to_be_bytes());
            out.extend_from_slice(&[0, 0]);
            (17u8, len)
        }
        PacketKind::Data | PacketKind::Ack => (6u8, tcp_header(pkt, now, segment_payload(segment_bytes), (sender_port, server_port), out)),
    };
    let ip_len = ip_len.min(u32::from(u16::MAX));
    let ip = &mut out[ip_start..l4_start];
    ip[0] = 0x45;
    ip[1] = match pkt.ecn {
        Ecn::NotEct => 0,
        Ecn::Ect => 0b10,
        Ecn::Ce => 0b11,
    };
    ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
    // Identification 0 with Don't Fragment (RFC 6864, atomic datagrams).
    ip[6] = 0x40;
    ip[8] = 64;
    ip[9] = proto;
    ip[12..16].copy_from_slice(&node_ip(pkt.src, octet));
    ip[16..20].copy_from_slice(&node_ip(pkt.dst, octet));
    let ip_sum = fold(sum16(ip));
    ip[10..12].copy_from_slice(&ip_sum.to_be_bytes());
    // Transport checksum over the pseudo-header and the header: the zero payload adds nothing.
    let l4_len = ip_len - IP_HEADER as u32;
    let pseudo = sum16(&ip[12..20]) + u32::from(proto) + l4_len;
    let l4_sum = match fold(pseudo + sum16(&out[l4_start..])) {
        0 if proto == 17 => 0xffff,
        s => s,
    };
    let at = l4_start + if proto == 17 { 6 } else { 16 };
    out[at..at + 2].copy_from_slice(&l4_sum.to_be_bytes());
    ETH_HEADER as u32 + ip_len
}

/// Append the TCP header of a data segment or ACK of the flow with ports
/// `(sender, server)`; returns the IP total length.
fn tcp_header(pkt: &Packet, now: SimTime, payload: u32, (sender, server): (u16, u16), out: &mut Vec<u8>) -> u32 {
    let bytes = |segment: u32| 1u32.wrapping_add(segment.wrapping_mul(payload));
    let data = pkt.kind == PacketKind::Data;
    let (sport, dport) = if data { (sender, server) } else { (server, sender) };
    // Data: the sender's bytes, acknowledging the receiver's (empty) stream; ACK: the reverse.
    let (seq, ack) = if data { (bytes(pkt.seq), 1) } else { (1, bytes(pkt.seq)) };
    let (tsval, tsecr) = if data { (ts_clock(pkt.ts), 0) } else { (ts_clock(now), ts_clock(pkt.ts)) };
    let sacks = if data { &[][..] } else { pkt.sack_blocks() };
    let opt_len = TS_OPTION_BYTES as usize + if sacks.is_empty() { 0 } else { 4 + 8 * sacks.len() };
    let header_len = 20 + opt_len;
    let mut flags = 0x10u8; // ACK
    if pkt.cwr {
        flags |= 0x80;
    }
    if pkt.ece {
        flags |= 0x40;
    }
    if pkt.psh {
        flags |= 0x08;
    }
    out.extend_from_slice(&sport.to_be_bytes());
    out.extend_from_slice(&dport.to_be_bytes());
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(&ack.to_be_bytes());
    out.push(((header_len / 4) as u8) << 4);
    out.push(flags);
    out.extend_from_slice(&65535u16.to_be_bytes()); // window: the simulator's receivers do not limit it here
    out.extend_from_slice(&[0, 0, 0, 0]); // checksum (filled by the caller), urgent pointer
    out.extend_from_slice(&[1, 1, 8, 10]);
    out.extend_from_slice(&tsval.to_be_bytes());
    out.extend_from_slice(&tsecr.to_be_bytes());
    if !sacks.is_empty() {
        out.extend_from_slice(&[1, 1, 5, (2 + 8 * sacks.len()) as u8]);
        for &SackBlock { start, end } in sacks {
            out.extend_from_slice(&bytes(start).to_be_bytes());
            out.extend_from_slice(&bytes(end).to_be_bytes());
        }
    }
    // A data segment keeps its simulated size; an ACK carries no payload, so its
    // length is its headers' whatever its simulated size.
    let ip_len = IP_HEADER as u32 + header_len as u32;
    if data {
        ip_len + payload
    } else {
        ip_len
    }
}

/// Append one record (16-byte record header, then `frame`, of wire length `len`).
pub fn write_record(w: &mut impl Write, now: SimTime, frame: &[u8], len: u32) -> io::Result<()> {
    let mut h = [0u8; 16];
    h[0..4].copy_from_slice(&((now / NS_PER_SEC) as u32).to_le_bytes());
    h[4..8].copy_from_slice(&((now % NS_PER_SEC) as u32).to_le_bytes());
    h[8..12].copy_from_slice(&(frame.len() as u32).to_le_bytes());
    h[12..16].copy_from_slice(&len.to_le_bytes());
    w.write_all(&h)?;
    w.write_all(frame)
}

#[cfg(test)]
mod tests;
