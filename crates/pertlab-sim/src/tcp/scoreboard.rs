//! The sender's scoreboard (RFC 6675 section 3): what it knows of each
//! outstanding segment, and the derived counts that make "pipe" O(1).
//!
//! Models: one flag byte per segment in `snd_una..snd_nxt`, held in a ring
//! buffer indexed from `snd_una` (no allocation once it has grown to the largest
//! window); SACKed, lost (RFC 6675 `IsLost`, or declared lost by NewReno or a
//! timeout) and retransmitted marks; the counts `sacked_out`, `lost_out`,
//! `retrans_out` (as in Linux) from which pipe is computed in constant time.
//!
//! Each per-ACK operation is amortised O(1) in the window size:
//! - loss marking keeps a scan point `lost_scan` below which every un-SACKed
//!   segment is already marked lost; `IsLost` is monotone in the sequence number
//!   (fewer SACKed segments lie above a higher one), so the point only moves up;
//! - the search for the next segment to retransmit (NextSeg rule 1) keeps the
//!   point `high_rxt` below which nothing needs retransmitting;
//! - SACK blocks are compared with the blocks of the previous ACK, so a block
//!   that merely grew costs only its new segments (Linux's `recv_sack_cache`).
//!
//! Leaves out: reneging (the receiver model never discards SACKed data, so SACK
//! marks are kept until the cumulative ACK covers them) and D-SACK. Lost
//! retransmissions are found by the RTO, or with `rack_retransmits` by the
//! sender (`sender::rack`), which marks them here; with `rack` RACK marks
//! every lost segment here too, in place of `IsLost`.

use super::segment_flags::SegmentFlags;
use crate::packet::{SackBlock, MAX_SACK_BLOCKS};

/// The receiver holds this segment (a SACK block covered it).
const SACKED: u8 = 1 << 0;
/// The segment is considered lost and not received (IsLost, NewReno, or RTO).
const LOST: u8 = 1 << 1;
/// A retransmission of the segment is in flight (counts in pipe, RFC 6675 S1.b).
const RETRANS: u8 = 1 << 2;
/// The segment has been retransmitted at least once (Karn's algorithm).
const EVER_RETRANS: u8 = 1 << 3;

/// What a cumulative ACK removed from the scoreboard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acked {
    /// Segments newly covered by the cumulative ACK.
    pub segments: u32,
    /// Of those, segments not SACKed before (delivered news to the sender).
    pub not_sacked_before: u32,
    /// The first of them (the old `snd_una`) had been retransmitted: an RTT
    /// sample echoed from it may come from a retransmission (Karn).
    pub first_was_retransmitted: bool,
    /// Some segment it covers had been retransmitted (Linux's
    /// `FLAG_RETRANS_DATA_ACKED`: no RTT sample from send times, Karn).
    pub any_retransmitted: bool,
    /// The first and the last of them not SACKed before, as offsets from the
    /// old `snd_una` (Linux's `first_ackt` and `last_ackt` segments).
    pub fresh: Option<(u32, u32)>,
    /// The last of them never retransmitted, as an offset from the old
    /// `snd_una`: sent in sequence order, so the latest sent (RACK).
    pub last_original: Option<u32>,
}

/// What the SACK blocks of one ACK added to the scoreboard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sacked {
    /// Segments newly SACKed.
    pub newly: u32,
    /// The lowest and the highest of them never retransmitted (Linux's
    /// `first_sackt` and `last_sackt` segments: sent in sequence order, so
    /// the earliest and the latest sent).
    pub fresh: Option<(u32, u32)>,
}

/// Per-segment state of `snd_una..snd_nxt`.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Flags of segments `snd_una..snd_nxt`; `flags[0]` is `snd_una`.
    flags: SegmentFlags,
    /// Sequence number of `flags[0]` (SND.UNA).
    snd_una: u32,
    /// Segments SACKed.
    sacked_out: u32,
    /// Un-SACKed segments marked lost.
    lost_out: u32,
    /// Segments ever marked lost by SACK or as the head (not by a timeout),
    /// wrapping: its growth over an ACK is what the ACK newly marked.
    marked_lost: u32,
    /// Un-SACKed segments with a retransmission in flight.
    retrans_out: u32,
    /// Every un-SACKed segment below this point is marked lost.
    lost_scan: u32,
    /// SACKed segments in `lost_scan..snd_nxt` (what IsLost counts for `lost_scan`).
    sacked_above_scan: u32,
    /// RFC 6675 HighRxt, stored as the segment after it: no segment below this
    /// point is lost and waiting for retransmission.
    high_rxt: u32,
    /// SACK blocks of the previous ACK, already applied.
    sack_cache: [SackBlock; MAX_SACK_BLOCKS],
    n_cache: usize,
}

/// A segment's flags say its retransmission is in flight: retransmitted, and
/// neither SACKed nor found lost again since.
fn retransmitted_in_flight(flags: u8) -> bool {
    flags & (SACKED | RETRANS) == RETRANS
}

impl Scoreboard {
    pub fn new() -> Scoreboard {
        Scoreboard::default()
    }

    pub fn snd_una(&self) -> u32 {
        self.snd_una
    }

    /// SND.NXT: the next new segment.
    pub fn snd_nxt(&self) -> u32 {
        self.snd_una + self.flags.len() as u32
    }

    /// Segments sent and not cumulatively acknowledged (snd_nxt - snd_una).
    pub fn outstanding(&self) -> u32 {
        self.flags.len() as u32
    }

    pub fn sacked_out(&self) -> u32 {
        self.sacked_out
    }

    pub fn lost_out(&self) -> u32 {
        self.lost_out
    }

    /// How many segments SACKs and head losses have marked lost so far (wrapping;
    /// the difference over an ACK is what it newly marked).
    pub fn marked_lost(&self) -> u32 {
        self.marked_lost
    }

    pub fn retrans_out(&self) -> u32 {
        self.retrans_out
    }

    /// RFC 6675 section 4 SetPipe, with `extra_sacked` segments known to have
    /// left the network without SACK (NewReno's duplicate ACKs): every un-SACKed
    /// segment not lost counts once (S1.a), every retransmission in flight once
    /// more (S1.b). Equal to Linux `tcp_packets_in_flight`.
    pub fn pipe(&self, extra_sacked: u32) -> u32 {
        (self.outstanding() + self.retrans_out).saturating_sub(self.sacked_out + extra_sacked + self.lost_out)
    }

    /// Append the segment `snd_nxt` (just sent for the first time) and return its number.
    pub fn push_new(&mut self) -> u32 {
        let seq = self.snd_nxt();
        self.flags.push_back(0);
        seq
    }

    /// Whether the segment `snd_una` is marked lost.
    pub fn head_is_lost(&self) -> bool {
        self.flags.front().is_some_and(|f| f & LOST != 0)
    }

    /// Cumulative ACK up to `ack` (segments below it are received). `ack` must
    /// lie in `snd_una..=snd_nxt`; anything else is ignored.
    pub fn ack_to(&mut self, ack: u32) -> Acked {
        let mut acked = Acked::default();
        if ack <= self.snd_una || ack > self.snd_nxt() {
            return acked;
        }
        acked.first_was_retransmitted = self.flags.front().is_some_and(|f| f & EVER_RETRANS != 0);
        while self.snd_una < ack {
            let Some(f) = self.flags.pop_front() else { break };
            acked.any_retransmitted |= f & EVER_RETRANS != 0;
            if f & SACKED != 0 {
                self.sacked_out -= 1;
                if self.snd_una >= self.lost_scan {
                    self.sacked_above_scan -= 1;
                }
            } else {
                let i = acked.segments;
                acked.fresh = Some(acked.fresh.map_or((i, i), |(first, _)| (first, i)));
                if f & EVER_RETRANS == 0 {
                    acked.last_original = Some(i);
                }
                acked.not_sacked_before += 1;
                self.lost_out -= u32::from(f & LOST != 0);
                self.retrans_out -= u32::from(f & RETRANS != 0);
            }
            self.snd_una += 1;
            acked.segments += 1;
        }
        self.lost_scan = self.lost_scan.max(self.snd_una);
        self.high_rxt = self.high_rxt.max(self.snd_una);
        acked
    }

    /// Apply the SACK blocks of an ACK (RFC 2018 / RFC 6675 Update()); returns
    /// what it newly SACKed. Blocks that are empty, reversed, or reach beyond
    /// `snd_nxt` are ignored (they cannot describe data we sent); parts below
    /// `snd_una` are already acknowledged and skipped.
    pub fn apply_sack(&mut self, blocks: &[SackBlock]) -> Sacked {
        let mut newly = Sacked::default();
        let snd_nxt = self.snd_nxt();
        let mut applied = [SackBlock::default(); MAX_SACK_BLOCKS];
        let mut n_applied = 0;
        for b in blocks.iter().take(MAX_SACK_BLOCKS) {
            if b.start >= b.end || b.end > snd_nxt || b.end <= self.snd_una {
                continue;
            }
            let block = SackBlock { start: b.start.max(self.snd_una), end: b.end };
            self.mark_sacked_outside_cache(block, &mut newly);
            applied[n_applied] = block;
            n_applied += 1;
        }
        // Only blocks actually applied may be trusted as "already marked" next time.
        self.sack_cache = applied;
        self.n_cache = n_applied;
        newly
    }

    /// Mark `block` SACKed, skipping the parts that a block of the previous ACK
    /// already covered (those are marked: SACK marks are never cleared); what
    /// it newly SACKs is added to `newly`.
    fn mark_sacked_outside_cache(&mut self, block: SackBlock, newly: &mut Sacked) {
        let mut start = block.start;
        while start < block.end {
            // The cached block covering `start`, if any, lets us jump over it.
            if let Some(c) = self.sack_cache[..self.n_cache].iter().find(|c| c.start <= start && start < c.end) {
                start = c.end;
                continue;
            }
            // Otherwise mark up to the next cached block start (or the block's end).
            let stop = self.sack_cache[..self.n_cache].iter().filter(|c| c.start > start).map(|c| c.start).min().unwrap_or(block.end).min(block.end);
            for seq in start..stop {
                self.mark_sacked(seq, newly);
            }
            start = stop;
        }
    }

    /// Mark one segment (in the window) SACKed, counted in `newly` if it was not before.
    fn mark_sacked(&mut self, seq: u32, newly: &mut Sacked) {
        let i = (seq - self.snd_una) as usize;
        let f = self.flags[i];
        if f & SACKED != 0 {
            return;
        }
        newly.newly += 1;
        if f & EVER_RETRANS == 0 {
            newly.fresh = Some(newly.fresh.map_or((seq, seq), |(low, high)| (low.min(seq), high.max(seq))));
        }
        self.flags[i] = (f | SACKED) & !(LOST | RETRANS);
        self.sacked_out += 1;
        self.lost_out -= u32::from(f & LOST != 0);
        self.retrans_out -= u32::from(f & RETRANS != 0);
        if seq >= self.lost_scan {
            self.sacked_above_scan += 1;
        }
    }

    /// RFC 6675 section 4 IsLost, applied to every segment it has become true
    /// for: a segment is lost once `dupthresh` or more segments above it are
    /// SACKed. At segment granularity this one test covers both conditions of
    /// IsLost (DupThresh discontiguous SACKed sequences imply DupThresh SACKed
    /// segments; more than (DupThresh - 1) * SMSS SACKed bytes means DupThresh
    /// segments). Returns the number of segments newly marked lost.
    pub fn mark_lost_by_sack(&mut self, dupthresh: u32) -> u32 {
        let dupthresh = dupthresh.max(1);
        self.mark_lost_while(|_, sacked_above| sacked_above >= dupthresh)
    }

    /// Mark lost every un-SACKed segment from [`Scoreboard::lost_scan`] up to
    /// `seq` (RACK, `sender::rack`: the segments sent once are lost in the
    /// order they were sent). Returns the number newly marked.
    pub fn mark_lost_through(&mut self, seq: u32) -> u32 {
        self.mark_lost_while(|scan, _| scan <= seq)
    }

    /// Move the lost point up over SACKed segments and over un-SACKed ones
    /// that `lost(seq, SACKed segments above it)` says are lost, marking them;
    /// stops at the first un-SACKed segment that is not. Returns how many it marked.
    fn mark_lost_while(&mut self, lost: impl Fn(u32, u32) -> bool) -> u32 {
        let mut newly = 0;
        while self.lost_scan < self.snd_nxt() {
            let i = (self.lost_scan - self.snd_una) as usize;
            let f = self.flags[i];
            if f & SACKED != 0 {
                self.sacked_above_scan -= 1;
            } else if lost(self.lost_scan, self.sacked_above_scan) {
                newly += self.mark_lost_at(i);
            } else {
                break;
            }
            self.lost_scan += 1;
        }
        newly
    }

    /// The lost point: every un-SACKed segment below it is marked lost, none
    /// at or above it is (so none above it was ever retransmitted).
    pub fn lost_scan(&self) -> u32 {
        self.lost_scan
    }

    /// Declare `snd_una` lost (RFC 5681 fast retransmit, RFC 6582 partial ACK,
    /// RFC 6675 entering recovery on DupThresh duplicate ACKs).
    pub fn mark_head_lost(&mut self) {
        if self.flags.is_empty() {
            return;
        }
        if self.flags[0] & SACKED == 0 {
            self.mark_lost_at(0);
        }
        if self.lost_scan == self.snd_una {
            if self.flags[0] & SACKED != 0 {
                self.sacked_above_scan -= 1;
            }
            self.lost_scan += 1;
        }
        self.high_rxt = self.snd_una;
    }

    /// Retransmission timeout (RFC 6675 5.1, RFC 5681 3.1): every un-SACKed
    /// segment is considered lost and every retransmission in flight too, so the
    /// whole window is sent again from `snd_una` (go-back-N), skipping SACKed
    /// segments. SACK marks are kept (RFC 6675 5.1: continue to use the
    /// scoreboard to avoid retransmitting data the receiver holds).
    pub fn mark_all_lost(&mut self) {
        self.flags.update_all(|f| {
            if *f & SACKED == 0 {
                *f = (*f | LOST) & !RETRANS;
            }
        });
        self.lost_out = self.outstanding() - self.sacked_out;
        self.retrans_out = 0;
        self.lost_scan = self.snd_nxt();
        self.sacked_above_scan = 0;
        self.high_rxt = self.snd_una;
    }

    /// RFC 6675 NextSeg rule 1: the lowest segment above HighRxt that is lost,
    /// not SACKed and not already retransmitted. Does not mark it; call
    /// [`Scoreboard::mark_retransmitted`] when it is sent.
    pub fn next_lost(&mut self) -> Option<u32> {
        let mut seq = self.high_rxt.max(self.snd_una);
        while seq < self.lost_scan {
            let f = self.flags[(seq - self.snd_una) as usize];
            if f & (LOST | RETRANS | SACKED) == LOST {
                self.high_rxt = seq;
                return Some(seq);
            }
            seq += 1;
        }
        self.high_rxt = seq;
        None
    }

    /// Record that segment `seq` (in the window, not SACKed) was retransmitted.
    pub fn mark_retransmitted(&mut self, seq: u32) {
        let Some(i) = seq.checked_sub(self.snd_una).map(|i| i as usize) else { return };
        let Some(f) = self.flags.get(i).copied() else { return };
        if f & (SACKED | RETRANS) == 0 {
            self.retrans_out += 1;
        }
        self.flags[i] = f | RETRANS | EVER_RETRANS;
        self.high_rxt = self.high_rxt.max(seq + 1);
    }

    /// The flags of segment `seq` and its index in the window, None outside it.
    fn flags_of(&self, seq: u32) -> Option<(usize, u8)> {
        let i = seq.checked_sub(self.snd_una)? as usize;
        Some((i, *self.flags.get(i)?))
    }

    /// Whether segment `seq` (in the window) is SACKed.
    pub fn is_sacked(&self, seq: u32) -> bool {
        self.flags_of(seq).is_some_and(|(_, f)| f & SACKED != 0)
    }

    /// Whether segment `seq` has a retransmission in flight: in the window,
    /// retransmitted, and neither SACKed nor found lost again since.
    pub fn retransmission_in_flight(&self, seq: u32) -> bool {
        self.flags_of(seq).is_some_and(|(_, f)| retransmitted_in_flight(f))
    }

    /// The retransmission of `seq` in flight is lost too (RACK): it no longer
    /// counts in pipe, and NextSeg rule 1 finds the segment again (it is still
    /// marked lost: only a lost segment is retransmitted). Returns whether
    /// `seq` had a retransmission in flight ([`Scoreboard::retransmission_in_flight`]).
    pub fn mark_retransmission_lost(&mut self, seq: u32) -> bool {
        let Some((i, f)) = self.flags_of(seq).filter(|&(_, f)| retransmitted_in_flight(f)) else { return false };
        debug_assert!(f & LOST != 0, "segment {seq} retransmitted without being lost");
        self.flags[i] = f & !RETRANS;
        self.retrans_out -= 1;
        self.high_rxt = self.high_rxt.min(seq);
        true
    }

    fn mark_lost_at(&mut self, i: usize) -> u32 {
        let f = self.flags[i];
        if f & LOST != 0 {
            return 0;
        }
        self.flags[i] = f | LOST;
        self.lost_out += 1;
        self.marked_lost = self.marked_lost.wrapping_add(1);
        1
    }

    /// Recount everything from the flags (tests: the incremental counts must agree).
    #[cfg(test)]
    pub fn check_invariants(&self) {
        let mut sacked = 0;
        let mut lost = 0;
        let mut retrans = 0;
        let mut above = 0;
        for (i, &f) in self.flags.iter().enumerate() {
            let seq = self.snd_una + i as u32;
            if f & SACKED != 0 {
                sacked += 1;
                above += u32::from(seq >= self.lost_scan);
                assert_eq!(f & (LOST | RETRANS), 0, "SACKed segment {seq} marked lost or in flight");
            } else {
                lost += u32::from(f & LOST != 0);
                retrans += u32::from(f & RETRANS != 0);
                if seq < self.lost_scan {
                    assert!(f & LOST != 0, "segment {seq} below lost_scan not marked lost");
                }
            }
        }
        assert_eq!((sacked, lost, retrans, above), (self.sacked_out, self.lost_out, self.retrans_out, self.sacked_above_scan));
        assert!(self.lost_scan >= self.snd_una && self.lost_scan <= self.snd_nxt());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u32) -> Scoreboard {
        let mut sb = Scoreboard::new();
        for _ in 0..n {
            sb.push_new();
        }
        sb
    }

    fn blk(start: u32, end: u32) -> SackBlock {
        SackBlock { start, end }
    }

    #[test]
    fn is_lost_needs_dupthresh_sacked_segments_above() {
        let mut sb = board(10);
        // Segment 2 missing; 3 and 4 SACKed: not yet lost.
        assert_eq!(sb.apply_sack(&[blk(3, 5)]).newly, 2);
        assert_eq!(sb.mark_lost_by_sack(3), 0);
        // 5 SACKed: three above 0, 1 and 2, which are all lost.
        assert_eq!(sb.apply_sack(&[blk(3, 6)]).newly, 1);
        assert_eq!(sb.mark_lost_by_sack(3), 3);
        assert!(sb.head_is_lost());
        assert_eq!((sb.sacked_out(), sb.lost_out()), (3, 3));
        // pipe: 10 outstanding - 3 SACKed - 3 lost = 4 (segments 6..9).
        assert_eq!(sb.pipe(0), 4);
        sb.check_invariants();
        assert_eq!(sb.next_lost(), Some(0));
        sb.mark_retransmitted(0);
        assert_eq!(sb.pipe(0), 5);
        assert_eq!(sb.next_lost(), Some(1));
        sb.check_invariants();
    }

    #[test]
    fn the_segments_newly_sacked_never_retransmitted_are_named() {
        let mut sb = board(10);
        assert_eq!(sb.apply_sack(&[blk(3, 5)]), Sacked { newly: 2, fresh: Some((3, 4)) });
        // Already SACKed segments are not news; a retransmitted one is news without a send
        // time to sample (Karn); the lowest and highest of the rest, over every block.
        sb.mark_retransmitted(6);
        assert_eq!(sb.apply_sack(&[blk(3, 7), blk(8, 9)]), Sacked { newly: 3, fresh: Some((5, 8)) });
        assert_eq!(sb.apply_sack(&[blk(3, 9)]), Sacked { newly: 1, fresh: Some((7, 7)) });
        sb.check_invariants();
    }

    #[test]
    fn cumulative_ack_removes_sacked_and_lost_counts() {
        let mut sb = board(10);
        sb.apply_sack(&[blk(1, 4)]);
        sb.mark_lost_by_sack(3);
        sb.mark_retransmitted(0);
        let a = sb.ack_to(4);
        // Segments 1..4 were SACKed: segment 0, the one not SACKed before, is both ends.
        assert_eq!(
            a,
            Acked { segments: 4, not_sacked_before: 1, first_was_retransmitted: true, any_retransmitted: true, fresh: Some((0, 0)), last_original: None }
        );
        assert_eq!((sb.sacked_out(), sb.lost_out(), sb.retrans_out(), sb.outstanding()), (0, 0, 0, 6));
        sb.check_invariants();
    }

    #[test]
    fn invalid_blocks_and_acks_are_ignored() {
        let mut sb = board(5);
        assert_eq!(sb.apply_sack(&[blk(3, 2), blk(4, 9), blk(0, 0), blk(u32::MAX - 1, u32::MAX)]).newly, 0);
        assert_eq!(sb.ack_to(7), Acked::default());
        assert_eq!(sb.ack_to(0), Acked::default());
        sb.check_invariants();
    }

    #[test]
    fn timeout_marks_every_unsacked_segment_lost() {
        let mut sb = board(6);
        sb.apply_sack(&[blk(2, 3)]);
        sb.mark_head_lost();
        sb.mark_retransmitted(0);
        sb.mark_all_lost();
        assert_eq!((sb.lost_out(), sb.retrans_out(), sb.pipe(0)), (5, 0, 0));
        sb.check_invariants();
        let order: Vec<u32> = std::iter::from_fn(|| {
            let s = sb.next_lost()?;
            sb.mark_retransmitted(s);
            Some(s)
        })
        .collect();
        assert_eq!(order, vec![0, 1, 3, 4, 5]);
        sb.check_invariants();
    }
}
