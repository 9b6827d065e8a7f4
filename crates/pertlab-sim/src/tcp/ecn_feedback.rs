//! How a receiver reports CE marks on its ACKs, and how the sender reads them.
//!
//! Three kinds of feedback ([`EcnFeedback`]), chosen per connection:
//! - `rfc3168` (default): the receiver sets ECE on every ACK from a CE
//!   segment until a segment with CWR arrives (RFC 3168 6.1.3); the sender
//!   reacts once per window of data. One ECE ACK tells "congestion", not how much.
//! - `xecn`: eXtended ECN (Tahiliani 2013, Ch. 4.2.2, Algorithms 5 and 6). The
//!   receiver marks the ACK of every CE segment with the Count Codepoint (CC:
//!   CWR = 1 and ECE = 1 on a non-SYN segment) and keeps the RFC 3168 ECE series
//!   on the others until CWR. The sender counts marks per window of data
//!   (the Counter of Algorithm 6): one per CC ACK, and one for the first ECE of
//!   a window whose Counter is still 0 (the CC ACKs were lost). With
//!   [`super::TcpConfig::xecn_count_lost_acks`] the ACKs inferred lost just
//!   before an ACK carrying ECE are counted as CC ACKs, the prose reading of
//!   Ch. 4.2.2 ("we assume that all the lost ACKs carried CC"): they replace
//!   the single increment of a first ECE, and add to a CC ACK's own.
//! - `dctcp`: RFC 8257 3.2: ECE on an ACK says the segments it acknowledges
//!   were CE (the thesis's "Modified ECN"); with delayed ACKs the receiver
//!   sends an ACK at once when the CE state of arriving segments changes.
//!
//! A window of data is DCTCP's (RFC 8257 3.3; spec 1.10 (b)): it ends when
//! `snd_una` reaches `snd_nxt` as it was when the window began. The count of
//! segments acknowledged in it ([`WindowSummary::acked`]) is the number of
//! packets sent in that round trip (Eq. 4.3.3's denominator).
//!
//! Choices where the thesis leaves room (spec 1.10 (a)-(d), documented in
//! docs/model.md):
//! - An ECE with Counter 0 counts only if its ACK covers data sent after the
//!   last window reduction (the RFC 3168 6.1.2 rule that the sender already
//!   uses): an ECE for older data is the echo of the CE that caused that
//!   reduction, not a lost CC. CC ACKs always count.
//! - ACKs inferred lost: the segments an ACK newly acknowledges, less the one
//!   (two with delayed ACKs) that ACK stands for.
//! - With delayed ACKs the XECN receiver sets CC on an ACK if any segment it
//!   acknowledges was CE: two CE segments give one mark (the thesis's ns-2
//!   sink ACKs every segment, spec 1.10 (c)).
//! - There is no negotiation in this simulator (no handshake): both ends of a
//!   connection use the same feedback. A CC ACK arriving at a sender that reads
//!   `rfc3168` feedback is an ECE (its CWR bit has no meaning on an ACK for an
//!   RFC 3168 sender, as spec 1.10 (d) says of a legacy sender); a sender
//!   without `ecn` ignores ECE, CWR and CC alike (RFC 3168 6.1.1: ECN was not
//!   negotiated).

use serde::{Deserialize, Serialize};

/// How CE marks travel back to the sender (see the module doc).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum EcnFeedback {
    /// ECE from CE until CWR (RFC 3168 6.1.3).
    #[default]
    Rfc3168,
    /// XECN (Tahiliani 2013, Algorithms 5 and 6).
    Xecn,
    /// One ECE per CE segment (RFC 8257 3.2).
    Dctcp,
}

impl EcnFeedback {
    pub const NAMES: [&'static str; 3] = ["rfc3168", "xecn", "dctcp"];

    /// Name as written in scenarios.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// Algorithm 5 (XECN receiver) and its RFC 3168 and RFC 8257 counterparts:
/// the (CWR, ECE) flags of an ACK. `ce` says whether a segment this ACK
/// acknowledges arrived CE, `echo` whether the RFC 3168 echo state is on (a CE
/// arrived and no CWR since).
pub fn ack_flags(feedback: EcnFeedback, ce: bool, echo: bool) -> (bool, bool) {
    match feedback {
        EcnFeedback::Rfc3168 => (false, echo),
        EcnFeedback::Xecn if ce => (true, true),
        EcnFeedback::Xecn => (false, echo),
        EcnFeedback::Dctcp => (false, ce),
    }
}

/// One ACK as the sender's mark counting sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckMarksIn {
    /// The ACK's flags.
    pub cwr: bool,
    pub ece: bool,
    /// Segments this ACK newly acknowledges (cumulatively or by SACK).
    pub acked: u32,
    /// ACKs inferred lost just before this one.
    pub inferred_lost: u32,
    /// The ACK covers no data sent after the last window reduction.
    pub stale: bool,
}

/// A finished window of data: marks counted and segments acknowledged in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowSummary {
    pub marks: u32,
    pub acked: u32,
}

impl WindowSummary {
    /// The fraction of the window's segments that were marked (0 for an empty
    /// window; at most 1): Surathkal's alpha and DCTCP's F (RFC 8257 3.3).
    pub fn marked_fraction(&self) -> f64 {
        if self.acked == 0 {
            0.0
        } else {
            (f64::from(self.marks) / f64::from(self.acked)).min(1.0)
        }
    }
}

/// What one ACK told the sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckMarks {
    /// Marks this ACK adds to the window's Counter.
    pub marks: u32,
    /// The sender should reduce its window (once per window; the sender's
    /// RFC 3168 6.1.2 rule decides whether it does) and set CWR.
    pub respond: bool,
    /// The window of data this ACK completed, if any.
    pub window: Option<WindowSummary>,
}

/// The sender's per-window Counter (Algorithm 6) and window bookkeeping.
#[derive(Clone, Debug)]
pub struct MarkCounter {
    feedback: EcnFeedback,
    count_lost_acks: bool,
    /// `snd_nxt` when the current window began; it ends when `snd_una` reaches it.
    window_end: u32,
    /// Algorithm 6's Counter for the current window.
    counter: u32,
    /// Segments acknowledged in the current window.
    acked: u32,
}

impl MarkCounter {
    pub fn new(feedback: EcnFeedback, count_lost_acks: bool) -> MarkCounter {
        MarkCounter { feedback, count_lost_acks, window_end: 0, counter: 0, acked: 0 }
    }

    /// Marks counted so far in the current window.
    pub fn counter(&self) -> u32 {
        self.counter
    }

    /// Read one ACK; `snd_una` and `snd_nxt` as they are after it.
    pub fn on_ack(&mut self, ack: &AckMarksIn, snd_una: u32, snd_nxt: u32) -> AckMarks {
        let cc = ack.cwr && ack.ece;
        let (marks, respond) = match self.feedback {
            EcnFeedback::Rfc3168 => (u32::from(ack.ece), ack.ece),
            EcnFeedback::Dctcp => (if ack.ece { ack.acked } else { 0 }, ack.ece),
            EcnFeedback::Xecn => {
                // With the option, lost ACKs before an ECE stand for the CC ACKs
                // Algorithm 6's single increment infers.
                let lost = if self.count_lost_acks && ack.ece { ack.inferred_lost } else { 0 };
                let marks = if cc {
                    lost.saturating_add(1)
                } else if lost > 0 {
                    lost
                } else {
                    u32::from(ack.ece && self.counter == 0 && !ack.stale)
                };
                (marks, marks > 0)
            }
        };
        self.counter = self.counter.saturating_add(marks);
        self.acked = self.acked.saturating_add(ack.acked);
        let mut window = None;
        if !super::cc::seq_after(self.window_end, snd_una) {
            window = Some(WindowSummary { marks: self.counter, acked: self.acked });
            self.window_end = snd_nxt;
            self.counter = 0;
            self.acked = 0;
        }
        AckMarks { marks, respond, window }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(cwr: bool, ece: bool, acked: u32) -> AckMarksIn {
        AckMarksIn { cwr, ece, acked, ..AckMarksIn::default() }
    }
    const PLAIN: (bool, bool) = (false, false);
    const ECE: (bool, bool) = (false, true);
    const CC: (bool, bool) = (true, true);

    /// Algorithm 5 on a sequence of (CE, CWR) arrivals: the flags of each ACK.
    fn receiver(feedback: EcnFeedback, arrivals: &[(bool, bool)]) -> Vec<(bool, bool)> {
        let mut echo = false;
        arrivals
            .iter()
            .map(|&(ce, cwr)| {
                echo = (echo && !cwr) || ce;
                ack_flags(feedback, ce, echo)
            })
            .collect()
    }

    #[test]
    fn xecn_receiver_marks_every_ce_ack_with_cc_and_echoes_until_cwr() {
        // CE, plain, CE, CE, plain, CWR, plain, CE on a CWR segment, plain.
        let arrivals =
            [(true, false), (false, false), (true, false), (true, false), (false, false), (false, true), (false, false), (true, true), (false, false)];
        assert_eq!(receiver(EcnFeedback::Xecn, &arrivals), vec![CC, ECE, CC, CC, ECE, PLAIN, PLAIN, CC, ECE]);
        // RFC 3168: the same series without the count.
        assert_eq!(receiver(EcnFeedback::Rfc3168, &arrivals), vec![ECE, ECE, ECE, ECE, ECE, PLAIN, PLAIN, ECE, ECE]);
        // RFC 8257: exactly the CE segments.
        assert_eq!(receiver(EcnFeedback::Dctcp, &arrivals), vec![ECE, PLAIN, ECE, ECE, PLAIN, PLAIN, PLAIN, ECE, PLAIN]);
    }

    /// Feed ACKs of one segment each, `snd_nxt` fixed at 100; returns the marks of each.
    fn feed(c: &mut MarkCounter, acks: &[AckMarksIn], first: u32) -> Vec<u32> {
        acks.iter().enumerate().map(|(i, a)| c.on_ack(a, first + i as u32 + 1, 100).marks).collect()
    }

    #[test]
    fn xecn_sender_counts_cc_acks_and_ignores_ece_after_cc() {
        let mut c = MarkCounter::new(EcnFeedback::Xecn, false);
        c.on_ack(&ack(false, false, 1), 1, 20); // window 1 ends at 20
        let acks = [ack(true, true, 1), ack(false, true, 1), ack(true, true, 1), ack(false, true, 1), ack(false, false, 1)];
        assert_eq!(feed(&mut c, &acks, 1), vec![1, 0, 1, 0, 0]);
        assert_eq!(c.counter(), 2);
        let r = c.on_ack(&ack(true, true, 1), 7, 20);
        assert!(r.respond && r.window.is_none());
        assert_eq!(c.counter(), 3);
    }

    #[test]
    fn xecn_sender_infers_a_lost_cc_from_the_first_ece() {
        // The CC ACKs were lost: the first ECE of the window counts once, later ones not.
        let mut c = MarkCounter::new(EcnFeedback::Xecn, false);
        c.on_ack(&ack(false, false, 1), 1, 50);
        let first = c.on_ack(&AckMarksIn { inferred_lost: 2, ..ack(false, true, 3) }, 4, 50);
        assert_eq!((first.marks, first.respond), (1, true));
        let second = c.on_ack(&ack(false, true, 1), 5, 50);
        assert_eq!((second.marks, second.respond), (0, false));
        // An ECE for data sent before the last reduction is its echo, not a lost CC.
        let mut c = MarkCounter::new(EcnFeedback::Xecn, false);
        let stale = c.on_ack(&AckMarksIn { stale: true, ..ack(false, true, 1) }, 1, 50);
        assert_eq!((stale.marks, stale.respond), (0, false));
        // ... but a CC for such data counts: it is one CE packet.
        assert_eq!(c.on_ack(&AckMarksIn { stale: true, ..ack(true, true, 1) }, 2, 50).marks, 1);
    }

    #[test]
    fn counting_inferred_lost_acks_adds_them_on_ece_acks_only() {
        let mut c = MarkCounter::new(EcnFeedback::Xecn, true);
        c.on_ack(&ack(false, false, 1), 1, 50);
        // CC for 1, then the ACKs of 2 and 3 lost, an ECE for 4 (acks 3 segments): 2 inferred lost.
        assert_eq!(c.on_ack(&ack(true, true, 1), 2, 50).marks, 1);
        let r = c.on_ack(&AckMarksIn { inferred_lost: 2, ..ack(false, true, 3) }, 5, 50);
        assert_eq!((r.marks, r.respond), (2, true));
        // Lost ACKs before a window's first ECE replace its single increment.
        let mut d = MarkCounter::new(EcnFeedback::Xecn, true);
        assert_eq!(d.on_ack(&AckMarksIn { inferred_lost: 3, ..ack(false, true, 4) }, 4, 50).marks, 3);
        // Lost ACKs before an unmarked ACK are not counted.
        assert_eq!(c.on_ack(&AckMarksIn { inferred_lost: 4, ..ack(false, false, 5) }, 10, 50).marks, 0);
        assert_eq!(c.counter(), 3);
        // Algorithm 6 as written counts the same sequence as 1.
        let mut c = MarkCounter::new(EcnFeedback::Xecn, false);
        c.on_ack(&ack(false, false, 1), 1, 50);
        c.on_ack(&ack(true, true, 1), 2, 50);
        c.on_ack(&AckMarksIn { inferred_lost: 2, ..ack(false, true, 3) }, 5, 50);
        assert_eq!(c.counter(), 1);
    }

    #[test]
    fn counter_resets_at_each_window_boundary() {
        let mut c = MarkCounter::new(EcnFeedback::Xecn, false);
        // The first ACK closes the empty window 0 and opens one ending at 10.
        assert_eq!(c.on_ack(&ack(false, false, 1), 1, 10).window, Some(WindowSummary { marks: 0, acked: 1 }));
        let mut windows = Vec::new();
        for una in 2..=30u32 {
            // CE on segments 4, 5 and 12; the ACKs of 6..=8 carry ECE; snd_nxt = una + 9.
            let a = match una {
                5 | 6 | 13 => ack(true, true, 1),
                7..=9 => ack(false, true, 1),
                _ => ack(false, false, 1),
            };
            if let Some(w) = c.on_ack(&a, una, una + 9).window {
                windows.push((una, w));
            }
        }
        // Windows end at 10 (opened at 1), then at 19 (snd_nxt when 10 was acked), then 28.
        assert_eq!(
            windows,
            vec![(10, WindowSummary { marks: 2, acked: 9 }), (19, WindowSummary { marks: 1, acked: 9 }), (28, WindowSummary { marks: 0, acked: 9 })]
        );
        // A new window's first ECE counts again (Counter back at 0).
        assert_eq!(c.on_ack(&ack(false, true, 1), 31, 40).marks, 1);
    }

    #[test]
    fn dctcp_counts_acked_segments_of_ece_acks_and_rfc3168_one_per_ece() {
        let mut c = MarkCounter::new(EcnFeedback::Dctcp, false);
        c.on_ack(&ack(false, false, 1), 1, 100);
        assert_eq!(c.on_ack(&ack(false, true, 2), 3, 100).marks, 2);
        assert_eq!(c.on_ack(&ack(false, false, 2), 5, 100).marks, 0);
        // RFC 3168 feedback: a CC from a peer is an ECE.
        let mut c = MarkCounter::new(EcnFeedback::Rfc3168, false);
        let r = c.on_ack(&ack(true, true, 1), 1, 100);
        assert_eq!((r.marks, r.respond), (1, true));
    }
}
