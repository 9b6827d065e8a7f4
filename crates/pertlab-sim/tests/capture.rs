//! pcap captures of a run (`capture`, `crate::pcap`): flows whose ids are
//! past the first range of sending ports keep a TCP 4-tuple of their own, and
//! a capture whose file cannot be written says so in the results.

use std::collections::BTreeSet;

use pertlab_sim::pcap::SENDER_PORTS;
use pertlab_sim::scenario::Scenario;

/// Two nodes on one link, `flows` Reno flows from a to b of which only `started`
/// start (the others after the run's end), `a-b` captured for those into `file`.
fn two_hosts(flows: u32, started: &[u32], file: &str) -> Scenario {
    let flow = |i: u32| serde_json::json!({"src": "a", "dst": "b", "start_ns": if started.contains(&i) { 0u64 } else { 10_000_000_000 }});
    let json = serde_json::json!({
        "duration_ns": 1_000_000_000u64,
        "nodes": ["a", "b"],
        "links": [{"a": "a", "b": "b", "rate_bps": 10_000_000u64, "delay_ns": 5_000_000u64}],
        "flows": (0..flows).map(flow).collect::<Vec<_>>(),
        "capture": [{"link": "a-b", "file": file, "flows": started}],
    });
    Scenario::from_json(&json.to_string()).unwrap()
}

/// The TCP conversations of a pcap file (LINKTYPE_ETHERNET, IPv4): each as its
/// two ends `(address, port)`, lower end first, as Wireshark groups them.
fn conversations(bytes: &[u8]) -> BTreeSet<[([u8; 4], u16); 2]> {
    let mut out = BTreeSet::new();
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let caplen = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        let frame = &bytes[at + 16..at + 16 + caplen];
        at += 16 + caplen;
        let ip = &frame[14..];
        assert_eq!(ip[9], 6, "TCP");
        let port = |i: usize| u16::from_be_bytes([ip[20 + i], ip[21 + i]]);
        let mut ends = [(ip[12..16].try_into().unwrap(), port(0)), (ip[16..20].try_into().unwrap(), port(2))];
        ends.sort();
        out.insert(ends);
    }
    out
}

#[test]
fn flows_past_the_first_sending_ports_have_a_conversation_of_their_own() {
    let dir = std::env::temp_dir().join(format!("pertlab-capture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("two.pcap");
    // Flow 0 and flow SENDER_PORTS share their sending port; they used to share the 4-tuple.
    let last = SENDER_PORTS;
    let r = pertlab_sim::run(&two_hosts(last + 1, &[0, last], file.to_str().unwrap())).unwrap();
    assert!(r.capture_errors.is_empty());
    let bytes = std::fs::read(&file).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let a = [10, 0, 0, 1];
    let b = [10, 0, 0, 2];
    let want: BTreeSet<_> = [[(a, 10000), (b, 5001)], [(a, 10000), (b, 5002)]].into_iter().collect();
    assert_eq!(conversations(&bytes), want);
    assert!(r.flows[0].goodput_bytes > 0 && r.flows[last as usize].goodput_bytes > 0);
}

#[test]
fn a_capture_that_cannot_be_written_is_in_the_results() {
    // Writes to /dev/full fail with ENOSPC once the 64 KiB buffer is flushed.
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full on this system");
        return;
    }
    let r = pertlab_sim::run(&two_hosts(1, &[0], "/dev/full")).unwrap();
    assert_eq!(r.capture_errors.len(), 1, "{:?}", r.capture_errors);
    let e = &r.capture_errors[0];
    assert!(e.starts_with("capture[0].file: writing `/dev/full` failed (") && e.contains("the file is incomplete"), "{e}");
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["capture_errors"][0], e.as_str());
    // A run whose captures were written has no such field.
    let fine = serde_json::to_value(pertlab_sim::run(&two_hosts(1, &[], "/dev/null")).unwrap()).unwrap();
    assert!(fine.get("capture_errors").is_none());
}
