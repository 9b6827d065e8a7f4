//! `capture` entries: a link's traffic written to a pcap file as a tcpdump on
//! the link's egress would record it. A packet is captured when it starts
//! transmission on a captured channel (it leaves the queue), at that simulated
//! time; headers are synthesised by [`crate::pcap`] (docs/pcap.md). Writing is
//! buffered; the file is complete when the run ends, interrupted or not
//! ([`World::finish`](super::World::finish) flushes, and so does dropping the world).

use std::fs::File;
use std::io::{BufWriter, Write};

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::net::Channel;
use crate::packet::{Packet, PacketKind};
use crate::pcap;
use crate::time::SimTime;

/// Buffer of each capture's writer.
pub const BUFFER_BYTES: usize = 64 * 1024;

/// One `[[capture]]` entry.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CaptureSpec {
    /// Name of the link captured.
    pub link: String,
    /// `"a->b"` (node names) for one direction, `"both"` (default) for both, in one file.
    #[serde(default)]
    pub direction: Option<String>,
    /// File written, relative to the current directory of the run.
    pub file: String,
    /// Only the packets (data and ACKs) of these TCP flows (`flows` indices); default every packet.
    #[serde(default)]
    pub flows: Option<Vec<u32>>,
    /// Stop capturing after this many packets; default no limit.
    #[serde(default)]
    pub max_packets: Option<u64>,
}

/// An open capture.
pub(super) struct Capture {
    channels: Vec<u32>,
    flows: Option<Vec<bool>>,
    left: u64,
    out: BufWriter<File>,
    frame: Vec<u8>,
    /// The first write error; the capture stops there.
    pub error: Option<String>,
    field: String,
    file: String,
}

impl Capture {
    /// Open the captures of `specs` on the built network.
    pub fn open_all(specs: &[CaptureSpec], channels: &[Channel], node_names: &[String], n_flows: usize) -> Result<Vec<Capture>, ConfigError> {
        specs.iter().enumerate().map(|(i, s)| Capture::open(i, s, channels, node_names, n_flows)).collect()
    }

    fn open(i: usize, s: &CaptureSpec, channels: &[Channel], names: &[String], n_flows: usize) -> Result<Capture, ConfigError> {
        let of_link: Vec<u32> = (0..channels.len() as u32).filter(|&c| channels[c as usize].link_name == s.link).collect();
        if of_link.is_empty() {
            return Err(ConfigError::new(format!("capture[{i}].link"), format!("no link named `{}`", s.link)));
        }
        let chosen = match s.direction.as_deref() {
            None | Some("both") => of_link,
            Some(d) => {
                let name = |c: u32| format!("{}->{}", names[channels[c as usize].from as usize], names[channels[c as usize].to as usize]);
                let allowed: Vec<String> = of_link.iter().map(|&c| name(c)).collect();
                match of_link.iter().find(|&&c| name(c) == d) {
                    Some(&c) => vec![c],
                    None => return Err(ConfigError::new(format!("capture[{i}].direction"), format!("got `{d}`; allowed: both, {}", allowed.join(", ")))),
                }
            }
        };
        let flows = match &s.flows {
            None => None,
            Some(ids) => {
                let mut on = vec![false; n_flows];
                for (j, &f) in ids.iter().enumerate() {
                    match on.get_mut(f as usize) {
                        Some(x) => *x = true,
                        None => return Err(ConfigError::new(format!("capture[{i}].flows[{j}]"), format!("flow index must be below {n_flows}, got {f}"))),
                    }
                }
                Some(on)
            }
        };
        let field = format!("capture[{i}].file");
        let file = File::create(&s.file).map_err(|e| ConfigError::new(field.clone(), format!("cannot create `{}`: {e}", s.file)))?;
        let mut out = BufWriter::with_capacity(BUFFER_BYTES, file);
        out.write_all(&pcap::file_header()).map_err(|e| ConfigError::new(field.clone(), format!("cannot write `{}`: {e}", s.file)))?;
        Ok(Capture { channels: chosen, flows, left: s.max_packets.unwrap_or(u64::MAX), out, frame: Vec::new(), error: None, field, file: s.file.clone() })
    }

    /// Whether this capture records `pkt` starting transmission on channel `c`.
    pub fn wants(&self, c: u32, pkt: &Packet) -> bool {
        self.left > 0
            && self.error.is_none()
            && self.channels.contains(&c)
            && self.flows.as_ref().is_none_or(|on| pkt.kind != PacketKind::Udp && on.get(pkt.flow as usize).copied().unwrap_or(false))
    }

    /// Record `pkt` on `ch` at `now`; `segment_bytes` is its TCP flow's data packet size.
    pub fn record(&mut self, ch: &Channel, pkt: &Packet, now: SimTime, segment_bytes: u32) {
        let len = pcap::headers(pkt, ch.from, ch.to, now, segment_bytes, &mut self.frame);
        self.left -= 1;
        if let Err(e) = pcap::write_record(&mut self.out, now, &self.frame, len) {
            self.error = Some(self.failed(&e));
        }
    }

    pub fn flush(&mut self) {
        if let Err(e) = self.out.flush() {
            let why = self.failed(&e);
            self.error.get_or_insert(why);
        }
    }

    /// What a write error means, naming the field and the file.
    fn failed(&self, e: &std::io::Error) -> String {
        format!("{}: writing `{}` failed ({e}); the file is incomplete, the capture stopped there", self.field, self.file)
    }
}
