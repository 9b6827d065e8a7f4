//! Test bench for the TCP sender and receiver (tests only, not the engine): one
//! sender and one receiver joined by a data path with a serialisation time and
//! a constant propagation delay (so packets arrive in order), and an ACK path
//! with a constant delay. Chosen packets can be dropped or CE-marked.

use std::collections::VecDeque;

use super::cc::reno::Reno;
use super::cc::{CaState, CongestionControl};
use super::receiver::TcpReceiver;
use super::sender::{RttSample, TcpSender};
use super::TcpConfig;
use crate::packet::{Ecn, Packet};
use crate::rng::{self, SimRng};
use crate::time::{SimTime, NS_PER_MS, NS_PER_SEC};

/// What the path does to a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Deliver,
    Drop,
    MarkCe,
}

/// One data transmission, as logged.
#[derive(Clone, Copy, Debug)]
pub struct Sent {
    pub at: SimTime,
    pub seq: u32,
    pub retx: bool,
    pub cwr: bool,
    pub psh: bool,
    pub ecn: Ecn,
    pub fate: Fate,
}

/// A change of the sender's state, with the window right after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transition {
    pub at: SimTime,
    pub state: CaState,
    pub cwnd: u32,
    pub ssthresh: u32,
}

type Rule = Box<dyn FnMut(&Packet) -> Fate>;

pub struct Bench {
    pub snd: TcpSender,
    pub rcv: TcpReceiver,
    pub rng: SimRng,
    pub now: SimTime,
    /// Serialisation time of a data packet on the data path.
    pub tx_ns: SimTime,
    /// One-way propagation delay of each path.
    pub delay_ns: SimTime,
    pub data_rule: Rule,
    pub ack_rule: Rule,
    pub log: Vec<Sent>,
    pub transitions: Vec<Transition>,
    /// ACKs as they arrived at the sender.
    pub acks_seen: Vec<(SimTime, Packet)>,
    /// The RTT samples the ACKs gave, each with its ACK's arrival, the ACK and
    /// `snd_una` before it.
    pub samples: Vec<(SimTime, Packet, u32, RttSample)>,
    pub data_delivered: u64,
    pub data_dropped: u64,
    /// Check the sender's invariants after every sender call (O(window) each).
    pub check_each_step: bool,
    data: VecDeque<(SimTime, Packet)>,
    acks: VecDeque<(SimTime, Packet)>,
    link_free: SimTime,
    buf: Vec<Packet>,
}

/// The next thing that happens on the bench.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    DataArrives,
    AckArrives,
    DelayedAck,
    Rto,
    Release,
}

impl Bench {
    /// Reno over the given configuration; 1 ms per data packet, 50 ms each way
    /// (RTT 101 ms for the first segment of an idle path).
    pub fn new(cfg: TcpConfig) -> Bench {
        Bench::with_cc(cfg, Box::new(Reno))
    }

    /// As [`Bench::new`] with the controller `cc`.
    pub fn with_cc(cfg: TcpConfig, cc: Box<dyn CongestionControl>) -> Bench {
        Bench {
            snd: TcpSender::new(0, 0, 1, cfg.clone(), cc),
            rcv: TcpReceiver::new(0, 1, 0, cfg),
            rng: rng::from_seed(1),
            now: 0,
            tx_ns: NS_PER_MS,
            delay_ns: 50 * NS_PER_MS,
            data_rule: Box::new(|_| Fate::Deliver),
            ack_rule: Box::new(|_| Fate::Deliver),
            log: Vec::new(),
            transitions: Vec::new(),
            acks_seen: Vec::new(),
            samples: Vec::new(),
            data_delivered: 0,
            data_dropped: 0,
            check_each_step: true,
            data: VecDeque::new(),
            acks: VecDeque::new(),
            link_free: 0,
            buf: Vec::new(),
        }
    }

    /// Drop the first transmission of each listed segment.
    pub fn drop_first_transmission_of(mut self, segs: &[u32]) -> Bench {
        let segs = segs.to_vec();
        self.data_rule = Box::new(move |p| if !p.retx && segs.contains(&p.seq) { Fate::Drop } else { Fate::Deliver });
        self
    }

    /// Drop the first `n` transmissions of each listed `(segment, n)`.
    pub fn drop_transmissions(mut self, drops: &[(u32, u32)]) -> Bench {
        let mut left = drops.to_vec();
        self.data_rule = Box::new(move |p| match left.iter_mut().find(|(seq, n)| *seq == p.seq && *n > 0) {
            Some((_, n)) => {
                *n -= 1;
                Fate::Drop
            }
            None => Fate::Deliver,
        });
        self
    }

    pub fn start(&mut self) {
        let mut buf = std::mem::take(&mut self.buf);
        self.snd.start(self.now, &mut self.rng, &mut buf);
        self.after_sender(&mut buf);
        self.buf = buf;
    }

    /// The application has written `segments` segments in all (`TcpSender::write`).
    pub fn write(&mut self, segments: u32) {
        let mut buf = std::mem::take(&mut self.buf);
        self.snd.write(self.now, segments, &mut buf);
        self.after_sender(&mut buf);
        self.buf = buf;
    }

    /// The application rejoins at the bench's current time (`TcpSender::resume`).
    pub fn resume(&mut self) {
        let mut buf = std::mem::take(&mut self.buf);
        self.snd.resume(self.now, &mut buf);
        self.after_sender(&mut buf);
        self.buf = buf;
    }

    /// Process every event up to and including `t_end`.
    pub fn run_until(&mut self, t_end: SimTime) {
        while let Some((at, ev)) = self.next_event() {
            if at > t_end {
                break;
            }
            self.now = at;
            self.dispatch(ev);
        }
        self.now = self.now.max(t_end);
    }

    fn next_event(&self) -> Option<(SimTime, Event)> {
        [
            self.data.front().map(|(t, _)| (*t, Event::DataArrives)),
            self.acks.front().map(|(t, _)| (*t, Event::AckArrives)),
            self.rcv.delack_deadline().map(|t| (t, Event::DelayedAck)),
            self.snd.rto_deadline().map(|t| (t, Event::Rto)),
            self.snd.release_deadline().map(|t| (t, Event::Release)),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn dispatch(&mut self, ev: Event) {
        let mut buf = std::mem::take(&mut self.buf);
        match ev {
            Event::DataArrives => {
                let (_, pkt) = self.data.pop_front().expect("event of a queued packet");
                self.data_delivered += 1;
                self.rcv.on_data(self.now, &pkt, || self.snd.view(), &mut buf);
                self.after_receiver(&mut buf);
            }
            Event::DelayedAck => {
                self.rcv.on_delack_timer(self.now, &mut buf);
                self.after_receiver(&mut buf);
            }
            Event::AckArrives => {
                let (_, ack) = self.acks.pop_front().expect("event of a queued packet");
                self.acks_seen.push((self.now, ack));
                let snd_una = self.snd.tp.snd_una;
                self.snd.on_ack(self.now, &ack, &mut self.rng, &mut buf);
                if let Some(sample) = self.snd.last_rtt_sample {
                    self.samples.push((self.now, ack, snd_una, sample));
                }
                self.after_sender(&mut buf);
            }
            Event::Rto => {
                self.snd.on_rto(self.now, &mut self.rng, &mut buf);
                self.after_sender(&mut buf);
            }
            Event::Release => {
                self.snd.on_release(self.now, &mut buf);
                self.after_sender(&mut buf);
            }
        }
        self.buf = buf;
    }

    fn after_sender(&mut self, buf: &mut Vec<Packet>) {
        for mut pkt in buf.drain(..) {
            let fate = (self.data_rule)(&pkt);
            self.log.push(Sent { at: self.now, seq: pkt.seq, retx: pkt.retx, cwr: pkt.cwr, psh: pkt.psh, ecn: pkt.ecn, fate });
            if fate == Fate::Drop {
                self.data_dropped += 1;
                continue;
            }
            if fate == Fate::MarkCe && pkt.ecn == Ecn::Ect {
                pkt.ecn = Ecn::Ce;
            }
            let departs = self.now.max(self.link_free) + self.tx_ns;
            self.link_free = departs;
            self.data.push_back((departs + self.delay_ns, pkt));
        }
        let tp = &self.snd.tp;
        if self.transitions.last().map_or(CaState::Open, |t| t.state) != tp.ca_state {
            self.transitions.push(Transition { at: self.now, state: tp.ca_state, cwnd: tp.snd_cwnd, ssthresh: tp.snd_ssthresh });
        }
        if self.check_each_step {
            self.snd.check_invariants();
        }
    }

    fn after_receiver(&mut self, buf: &mut Vec<Packet>) {
        for ack in buf.drain(..) {
            if (self.ack_rule)(&ack) != Fate::Drop {
                self.acks.push_back((self.now + self.delay_ns, ack));
            }
        }
    }

    /// Transmissions that were retransmissions.
    pub fn retransmissions(&self) -> Vec<Sent> {
        self.log.iter().copied().filter(|s| s.retx).collect()
    }

    /// Conservation: every transmission is delivered, dropped, or on the wire;
    /// every new segment is sent once; every segment below `snd_una` arrived
    /// (some copy of it got through: a lost segment was sent again);
    /// delivered segments are counted once each.
    pub fn check_conservation(&self) {
        let c = self.snd.counters();
        assert_eq!(c.segments_sent, self.log.len() as u64);
        assert_eq!(c.segments_sent, self.data_delivered + self.data_dropped + self.data.len() as u64);
        assert_eq!(u64::from(self.snd.tp.snd_nxt), c.segments_sent - c.retransmits);
        assert_eq!(c.retransmits, self.log.iter().filter(|s| s.retx).count() as u64);
        assert!(self.rcv.rcv_nxt() >= self.snd.tp.snd_una);
        assert!(self.rcv.rcv_nxt() <= self.snd.tp.snd_nxt);
        assert_eq!(self.rcv.counters().segments_delivered, u64::from(self.rcv.rcv_nxt()));
        let mut got_through = vec![false; self.snd.tp.snd_nxt as usize];
        for s in self.log.iter().filter(|s| s.fate != Fate::Drop) {
            got_through[s.seq as usize] = true;
        }
        let acked = &got_through[..self.snd.tp.snd_una as usize];
        assert!(acked.iter().all(|&g| g), "a segment was acknowledged but no copy of it got through");
    }
}

/// Segments a drawn case sends before its losses and marks are all behind it.
pub const DRAWN_SPAN: u32 = 400;

/// 30 s of a flow with `cfg` over a path that drops the first transmissions
/// of `drops`, marks those of `marks` (CE), and, if `lose_a_retransmission`,
/// the first retransmission too; segments conserved.
pub fn drawn_path(cfg: TcpConfig, drops: Vec<u32>, marks: Vec<u32>, lose_a_retransmission: bool) -> Bench {
    let mut b = Bench::new(cfg);
    let mut retransmission_lost = !lose_a_retransmission;
    b.data_rule = Box::new(move |p| {
        if p.retx && !retransmission_lost {
            retransmission_lost = true;
            Fate::Drop
        } else if !p.retx && drops.contains(&p.seq) {
            Fate::Drop
        } else if !p.retx && marks.contains(&p.seq) {
            Fate::MarkCe
        } else {
            Fate::Deliver
        }
    });
    b.start();
    b.run_until(30 * NS_PER_SEC);
    b.check_conservation();
    b
}
