//! Linux's HyStart (`hystart_update` in `net/ipv4/tcp_cubic.c`, 6.x; Ha and
//! Rhee, "Taming the elephants: new TCP slow start", 2011), for the `linux`
//! variant with `hystart = true`: slow start ends (ssthresh set to the window)
//! before the first loss when either
//! - an ACK train: ACKs no more than `hystart_ack_delta` (2 ms) apart have kept
//!   coming for more than half the least RTT (`delay_min / 2`) since the round
//!   began, the round's ACKs spread over half a round trip: the pipe is full; or
//! - a delay increase: the least of a round's first 8 RTT samples exceeds
//!   `delay_min` by `clamp(delay_min / 8, 4 ms, 16 ms)`: a queue is building.
//!
//! Only from a window of `hystart_low_window` (16) segments up. A round ends
//! when `snd_una` passes the `snd_nxt` of its start. A timeout clears "found"
//! and the round (`cubictcp_state`); a window reduction does not, so a flow
//! that left slow start by loss does not run HyStart again until its next
//! timeout, as in Linux.
//!
//! The ACK train's threshold carries Linux's cushion for TSO/GRO aggregation
//! (`hystart_ack_delay`, [`ack_delay`]): the time 4 GSO frames of 64 KB take at
//! the flow's pacing rate, at most 1 ms, which at the rates of this project's
//! scenarios (up to about 2 Gbit/s of pacing rate) is the 1 ms cap. Linux's TCP
//! always segments in software where the device does not (the testbed turns the
//! veths' GSO off and still sees 2-segment chunks, docs/linux.md), so its
//! `sk_gso_max_size` is the device's 64 KB there too.
//!
//! Leaves out: the halving of the train's threshold that Linux skips for paced
//! flows (`SK_PACING_FQ`; the simulator's Linux-like flows are not paced), and
//! that Linux's pacing rate is the one set at the previous ACK (here the window
//! and smoothed RTT of this one: they differ by one RTT sample, and only
//! matter where the cushion is below its cap).

use crate::time::{SimTime, NS_PER_MS};

/// `HYSTART_MIN_SAMPLES`: RTT samples a round takes before the delay test.
const MIN_SAMPLES: u32 = 8;
/// `HYSTART_DELAY_MIN` and `HYSTART_DELAY_MAX`: bounds of the delay test's margin.
const DELAY_MIN_MARGIN: SimTime = 4 * NS_PER_MS;
const DELAY_MAX_MARGIN: SimTime = 16 * NS_PER_MS;
/// `hystart_low_window`: HyStart acts from this window (segments) up.
pub const LOW_WINDOW: u32 = 16;
/// `hystart_ack_delta_us`: ACKs at most this far apart make a train.
pub const ACK_DELTA: SimTime = 2 * NS_PER_MS;
/// `sk_gso_max_size`: the largest TSO/GSO frame, bytes (`GSO_LEGACY_MAX_SIZE`,
/// a device's default `gso_max_size`; before Linux 5.19 `hystart_ack_delay` used
/// the constant `GSO_MAX_SIZE`, the same 64 KB).
pub const GSO_MAX_SIZE: u64 = 65_536;
/// `hystart_ack_delay`'s cap, 1 ms (`USEC_PER_MSEC`).
const ACK_DELAY_MAX: SimTime = NS_PER_MS;
/// `tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio` (Linux's defaults, percent):
/// the pacing rate is this share of `mss * max(cwnd, packets_out) / srtt`, the
/// first while the window is below half the slow-start threshold.
const PACING_SS_RATIO: u64 = 200;
const PACING_CA_RATIO: u64 = 120;

/// `hystart_ack_delay`: the cushion Linux adds to the ACK train's threshold,
/// the time 4 frames of [`GSO_MAX_SIZE`] take at the pacing rate that
/// `tcp_update_pacing_rate` sets (`mss` bytes times the ratio times
/// `max(cwnd, packets_out)` per `srtt`), at most 1 ms; none before the first
/// RTT sample (`srtt` 0: Linux leaves the rate unbounded, the cushion 0).
pub(super) fn ack_delay(mss: u32, cwnd: u32, ssthresh: u32, packets_out: u32, srtt: SimTime) -> SimTime {
    if srtt == 0 {
        return 0;
    }
    let ratio = if cwnd < ssthresh / 2 { PACING_SS_RATIO } else { PACING_CA_RATIO };
    let bytes_per_srtt = u128::from(mss) * u128::from(cwnd.max(packets_out)) * u128::from(ratio);
    // 4 GSO frames over (bytes_per_srtt / 100) per srtt, in ns.
    let delay = (4 * u128::from(GSO_MAX_SIZE) * 100 * u128::from(srtt)).checked_div(bytes_per_srtt).unwrap_or(u128::MAX);
    delay.min(u128::from(ACK_DELAY_MAX)) as SimTime
}

/// Per-connection HyStart state (`struct bictcp`'s `found`, `round_start`,
/// `end_seq`, `last_ack`, `curr_rtt`, `sample_cnt`).
#[derive(Clone, Debug, Default)]
pub(super) struct Hystart {
    found: bool,
    round_start: SimTime,
    last_ack: SimTime,
    end_seq: u32,
    /// The least RTT sample of the round (`None` before the first).
    curr_rtt: Option<SimTime>,
    sample_cnt: u32,
    /// Slow starts ended by each [`Exit`] (indexed by `Exit as usize`) and the
    /// sum of the windows (segments) at those exits, as Linux counts them per
    /// network namespace (`TCPHystartTrainDetect` and `TCPHystartTrainCwnd`,
    /// `TCPHystartDelayDetect` and `TCPHystartDelayCwnd`).
    exits: [u64; 2],
    exit_cwnd: [u64; 2],
}

/// What ended slow start, as Linux counts it (`TCPHystartTrainDetect`,
/// `TCPHystartDelayDetect`); the index of [`Hystart::counts`]' arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Exit {
    AckTrain = 0,
    Delay = 1,
}

impl Hystart {
    /// `bictcp_hystart_reset`: a new round from `now`, ending at `snd_nxt`.
    pub(super) fn reset_round(&mut self, now: SimTime, snd_nxt: u32) {
        (self.round_start, self.last_ack, self.end_seq) = (now, now, snd_nxt);
        (self.curr_rtt, self.sample_cnt) = (None, 0);
    }

    /// A timeout (`cubictcp_state` to Loss): HyStart may act again, from a new round.
    pub(super) fn restart(&mut self, now: SimTime, snd_nxt: u32) {
        self.found = false;
        self.reset_round(now, snd_nxt);
    }

    /// Whether HyStart has ended slow start since the last timeout.
    pub(super) fn found(&self) -> bool {
        self.found
    }

    /// Exits so far by [`Exit`], and the sum of the windows at them.
    pub(super) fn counts(&self) -> ([u64; 2], [u64; 2]) {
        (self.exits, self.exit_cwnd)
    }

    /// Slow start ends here, by `how`, at window `cwnd`.
    fn exit(&mut self, how: Exit, cwnd: u32) -> Option<Exit> {
        self.found = true;
        self.exits[how as usize] += 1;
        self.exit_cwnd[how as usize] += u64::from(cwnd);
        Some(how)
    }

    /// `hystart_update` on an RTT sample `delay` taken in slow start, with the
    /// connection's least RTT `delay_min` (none yet: no test) and the train's
    /// cushion `ack_delay` ([`ack_delay`], computed as Linux does only when an
    /// ACK continues a train): `Some` when slow start ends here (the caller sets
    /// ssthresh to the window).
    // Linux's `hystart_update` reads these from the socket; each is one of its inputs.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_sample(
        &mut self,
        now: SimTime,
        delay: SimTime,
        delay_min: Option<SimTime>,
        ack_delay: impl FnOnce() -> SimTime,
        cwnd: u32,
        snd_una: u32,
        snd_nxt: u32,
    ) -> Option<Exit> {
        if self.found {
            return None;
        }
        if snd_una > self.end_seq {
            self.reset_round(now, snd_nxt);
        }
        if cwnd < LOW_WINDOW {
            return None;
        }
        let delay_min = delay_min?;
        if now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            if now.saturating_sub(self.round_start) > (delay_min + ack_delay()) / 2 {
                return self.exit(Exit::AckTrain, cwnd);
            }
        }
        let curr = self.curr_rtt.map_or(delay, |c| c.min(delay));
        self.curr_rtt = Some(curr);
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if curr > delay_min + (delay_min / 8).clamp(DELAY_MIN_MARGIN, DELAY_MAX_MARGIN) {
            return self.exit(Exit::Delay, cwnd);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: SimTime = 40 * NS_PER_MS;

    #[test]
    fn a_rising_delay_ends_slow_start_after_eight_samples() {
        let mut h = Hystart::default();
        h.reset_round(0, 100);
        // ACKs 5 ms apart (no train), each sample 50 ms against a least RTT of 40 ms: the
        // margin is clamp(5 ms, 4, 16) = 5 ms, 50 > 45. Eight samples first, then the test.
        let mut exit = None;
        for i in 0..9 {
            exit = h.on_sample(5 * NS_PER_MS * (i + 1), 50 * NS_PER_MS, Some(RTT), || 0, 20, 10, 120);
            if i < 8 {
                assert_eq!(exit, None, "sample {i}");
            }
        }
        assert_eq!(exit, Some(Exit::Delay));
        assert!(h.found());
        assert_eq!(h.counts(), ([0, 1], [0, 20]));
        // Found: nothing more until a timeout restarts it.
        assert_eq!(h.on_sample(100 * NS_PER_MS, 90 * NS_PER_MS, Some(RTT), || 0, 40, 10, 120), None);
        h.restart(200 * NS_PER_MS, 200);
        assert!(!h.found());
        // A second slow start, ended by an ACK train at 48 segments: the counts add up.
        h.reset_round(200 * NS_PER_MS, 300);
        let exit = (1..=21).map(|i| h.on_sample(200 * NS_PER_MS + i * NS_PER_MS, RTT, Some(RTT), || 0, 48, 250, 300)).last();
        assert_eq!(exit, Some(Some(Exit::AckTrain)));
        assert_eq!(h.counts(), ([1, 1], [48, 20]));
    }

    #[test]
    fn a_delay_within_the_margin_does_not() {
        let mut h = Hystart::default();
        h.reset_round(0, 100);
        for i in 0..20 {
            assert_eq!(h.on_sample(5 * NS_PER_MS * (i + 1), 44 * NS_PER_MS, Some(RTT), || 0, 20, 10, 120), None);
        }
    }

    #[test]
    fn an_ack_train_longer_than_half_the_least_rtt_ends_slow_start() {
        let mut h = Hystart::default();
        h.reset_round(0, 1000);
        // ACKs 1 ms apart at the least RTT: the train passes 20 ms (RTT / 2) at its 21st ACK.
        let mut exits = (1..=21).map(|i| h.on_sample(i * NS_PER_MS, RTT, Some(RTT), || 0, 32, 10, 1000));
        assert!(exits.by_ref().take(20).all(|e| e.is_none()));
        assert_eq!(exits.next(), Some(Some(Exit::AckTrain)));
    }

    #[test]
    fn a_gap_between_acks_breaks_the_train_and_small_windows_are_left_alone() {
        let mut h = Hystart::default();
        h.reset_round(0, 1000);
        // 3 ms apart: never a train; the RTT steady: no delay exit either.
        assert!((1..=40).all(|i| h.on_sample(3 * NS_PER_MS * i, RTT, Some(RTT), || 0, 32, 10, 1000).is_none()));
        // Below 16 segments nothing is tested, however long the train.
        let mut h = Hystart::default();
        h.reset_round(0, 1000);
        assert!((1..=100).all(|i| h.on_sample(i * NS_PER_MS / 2, 2 * RTT, Some(RTT), || 0, 15, 10, 1000).is_none()));
    }

    #[test]
    fn a_new_round_starts_when_snd_una_passes_the_rounds_end() {
        let mut h = Hystart::default();
        h.reset_round(0, 100);
        // 15 ms of train in the first round, then snd_una passes 100: the round restarts at 16 ms,
        // so the train must run 20 ms more before it counts.
        for i in 1..=15 {
            assert_eq!(h.on_sample(i * NS_PER_MS, RTT, Some(RTT), || 0, 32, 50, 100), None);
        }
        for i in 16..=36 {
            assert_eq!(h.on_sample(i * NS_PER_MS, RTT, Some(RTT), || 0, 32, 101, 300), None, "{i}");
        }
        assert_eq!(h.on_sample(37 * NS_PER_MS, RTT, Some(RTT), || 0, 32, 101, 300), Some(Exit::AckTrain));
    }

    #[test]
    fn linuxs_cushion_lengthens_the_train_by_half_of_it() {
        // ACKs 0.25 ms apart at the least RTT (40 ms): without a cushion the train passes 20 ms at
        // 20.25 ms; with Linux's 1 ms cap, (40 + 1) / 2 = 20.5 ms, at 20.75 ms.
        for (cushion, exit_at) in [(0, 81), (NS_PER_MS, 83)] {
            let mut h = Hystart::default();
            h.reset_round(0, 1000);
            let first = (1..=100).find(|&i| h.on_sample(i * NS_PER_MS / 4, RTT, Some(RTT), || cushion, 32, 10, 1000).is_some());
            assert_eq!(first, Some(exit_at), "cushion {cushion} ns");
        }
    }

    #[test]
    fn the_cushion_is_four_gso_frames_at_the_pacing_rate_at_most_1_ms() {
        // 1448-byte segments, window 10,000, srtt 1 ms, in slow start (ratio 200 %): 2.9 GB/s, so
        // 4 x 64 KB take 4 x 65536 x 100 x 1e6 / (1448 x 10000 x 200) = 9051.9 ns, 9051 truncated as Linux divides.
        assert_eq!(ack_delay(1448, 10_000, u32::MAX, 0, NS_PER_MS), 9051);
        // In congestion avoidance (window at least half the threshold) the rate is 120 %: 15086 ns;
        // packets out above the window count instead of it.
        assert_eq!(ack_delay(1448, 10_000, 10_000, 0, NS_PER_MS), 15086);
        assert_eq!(ack_delay(1448, 5_000, u32::MAX, 10_000, NS_PER_MS), 9051);
        // This project's scenarios: 137 segments over 100 ms is 4 Mbit/s of pacing rate: the cap.
        assert_eq!(ack_delay(1448, 137, u32::MAX, 100, 100 * NS_PER_MS), NS_PER_MS);
        // No RTT sample yet: Linux's rate is unbounded, the cushion 0.
        assert_eq!(ack_delay(1448, 10, u32::MAX, 0, 0), 0);
    }
}
