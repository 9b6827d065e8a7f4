//! Linux's delayed ACK, as a receiver that only receives (Linux 6.x,
//! net/ipv4/tcp_input.c `tcp_event_data_recv`, `__tcp_ack_snd_check`,
//! `tcp_enter_quickack_mode`; net/ipv4/tcp_output.c `tcp_send_delayed_ack`;
//! net/ipv4/tcp_timer.c `tcp_delack_timer_handler`; include/net/tcp.h's
//! constants; kernel/time/timer.c's wheel):
//!
//! - an ACK for every second full-sized segment ("more than one full frame
//!   received", `rcv_nxt - rcv_wup > rcv_mss`);
//! - quickack mode: every segment acknowledged at once for the next
//!   [`LinuxAckConfig::quickacks`] ACKs, entered on the connection's first
//!   data, on data after a gap longer than the receiver's RTO, and on a
//!   duplicate segment;
//! - otherwise the timer, `ato` jiffies after the arrival. `ato` is the
//!   ACK-timeout estimator: [`ato_min`](LinuxAck::ato_min) at first, halved
//!   toward the segments' inter-arrival time on each arrival, doubled when
//!   the timer fires ("delayed ACK missed: inflate ATO"), reset to the minimum
//!   when quickack mode ends. Above `TCP_DELACK_MIN` it is bounded by the
//!   receiver's RTT estimate, which a receiver that sends no data has from the
//!   handshake only (here the empty path's round trip of small packets:
//!   [`TcpReceiver::with_handshake_rtt`](super::super::receiver::TcpReceiver::with_handshake_rtt));
//! - the timer runs on jiffies (1 / HZ s) and the timer wheel fires it one
//!   jiffy after its expiry at the wheel's first level, later at coarser ones,
//!   so a lone segment waits between `ato` and `ato` + 1 jiffies: 40 to 44 ms
//!   at HZ = 250 and the minimum ATO (docs/linux.md, "Ten PERT flows behind
//!   delayed ACKs", for what these 0 to 4 ms do).
//!
//! - with ECN (`tcp_ecn_accept_cwr`, `tcp_data_ecn_check`; see [`EcnCue`]):
//!   a segment with CWR is acknowledged at once ("its cwnd may be very low"),
//!   and two quick ACKs follow the first CE segment since the last CWR and a
//!   Not-ECT segment after ECT ones ("probably a retransmit"; this
//!   simulator's senders, as Linux's, retransmit without ECT).
//!
//! - a lone full-sized segment with PSH is acknowledged at once
//!   (`tcp_measure_rcv_mss` marks it pushed, `tcp_cleanup_rbuf` sends the ACK
//!   once the application has read it, which here it does at once); segments
//!   carry PSH only from senders with `tcp.tso_segs` > 1.
//!
//! Left out: pingpong mode (entered when the receiver sends data; a bulk
//! receiver never does), ACK compression of SACKs, receive-window updates, and
//! the wheel's clock lagging jiffies on an idle CPU. Out-of-order, duplicate
//! and gap-filling segments are acknowledged at once, as by every policy.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::tcp::jiffies::{check_hz, Jiffies, LinuxClock, DEFAULT_HZ};
use crate::time::{SimTime, NS_PER_MS};

/// `TCP_MAX_QUICKACKS` (include/net/tcp.h): most ACKs sent at once in quickack mode.
pub const MAX_QUICKACKS: u32 = 16;

/// Linux's `TCP_RTO_MIN` (include/net/tcp.h: HZ / 5), the floor of the
/// receiver's RTO variance term.
const RTO_MIN_NS: SimTime = 200 * NS_PER_MS;

/// Parameters of `ack_policy = "linux"`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LinuxAckConfig {
    /// The kernel's tick rate, `CONFIG_HZ`: the delayed-ACK timer counts
    /// jiffies of 1 / hz s. One of [`LINUX_HZ_CHOICES`](crate::tcp::jiffies::LINUX_HZ_CHOICES); default
    /// [`DEFAULT_HZ`], 250
    /// (Debian's kernels and the testbed host's).
    pub hz: u32,
    /// ACKs sent at once in quickack mode: Linux's `tcp_incr_quickack` takes
    /// min(rcv_wnd / (2 rcv_mss), `TCP_MAX_QUICKACKS` = 16), which is 16 from
    /// the initial receive window of about 64 KB (Linux 5.9 on, commit
    /// a337531b942b) with full-sized segments. 0 to 16; 0: no quickack mode.
    pub quickacks: u32,
}

impl Default for LinuxAckConfig {
    fn default() -> Self {
        LinuxAckConfig { hz: DEFAULT_HZ, quickacks: MAX_QUICKACKS }
    }
}

impl LinuxAckConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check_hz(path, self.hz)?;
        if self.quickacks > MAX_QUICKACKS {
            return Err(ConfigError::new(format!("{path}.quickacks"), format!("must lie in [0, {MAX_QUICKACKS}] (TCP_MAX_QUICKACKS), got {}", self.quickacks)));
        }
        Ok(())
    }
}

/// Quick ACKs after an ECN cue: `tcp_enter_quickack_mode(sk, 2)` in `tcp_data_ecn_check`.
const ECN_QUICKACKS: u8 = 2;

/// What a data segment's ECN bits ask of a Linux receiver that negotiated ECN
/// (Linux 6.x `tcp_ecn_accept_cwr` and `tcp_data_ecn_check`; RFC 3168 feedback,
/// as Linux's DCTCP also uses). The receiver works it out; the other policies
/// take no notice of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EcnCue {
    /// The segment carries CWR: the sender has just cut its window, "so we
    /// should ACK immediately".
    pub cwr: bool,
    /// Two quick ACKs: the segment is the first CE one since the last CWR
    /// ("Better not delay acks, sender can have a very low cwnd"), or it is
    /// Not-ECT after ECT ones ("it is probably a retransmit").
    pub quickack: bool,
}

/// The receiver's state. Narrow fields where the values allow: every receiver's ACK clock is as
/// large as its largest policy's, and this one is kept within the adaptive policy's size.
#[derive(Clone, Debug)]
pub struct LinuxAck {
    clock: LinuxClock,
    /// At most [`MAX_QUICKACKS`].
    quickacks: u8,
    /// `icsk_ack.quick`: ACKs still to be sent at once.
    quick: u8,
    /// In-order segments received and not yet acknowledged (at most 2: the second is acknowledged).
    unacked: u8,
    /// `icsk_ack.ato`; 0 before the first data segment.
    ato: Jiffies,
    /// `icsk_ack.lrcvtime`: the last in-order arrival.
    lrcvtime: Jiffies,
    /// `usecs_to_jiffies(srtt)` of the handshake; 0 without one (Linux's `srtt_us == 0`).
    srtt: Jiffies,
    /// `icsk_rto` of the receiver: from the handshake's RTT, else `TCP_TIMEOUT_INIT` (1 s).
    rto: Jiffies,
    /// When the timer fires, if armed.
    at: Option<SimTime>,
}

impl LinuxAck {
    pub fn new(cfg: &LinuxAckConfig) -> LinuxAck {
        let quickacks = cfg.quickacks.min(MAX_QUICKACKS) as u8;
        let clock = LinuxClock::new(cfg.hz);
        LinuxAck { clock, quickacks, quick: 0, unacked: 0, ato: 0, lrcvtime: 0, srtt: 0, rto: clock.hz(), at: None }
    }

    /// The receiver's RTT estimate from the handshake (`tcp_synack_rtt_meas`):
    /// the delayed-ACK bound, and the RTO of Linux's first sample,
    /// srtt + max(2 srtt, `TCP_RTO_MIN`) (`tcp_rtt_estimator`, `__tcp_set_rto`).
    pub fn with_handshake_rtt(mut self, rtt: SimTime) -> LinuxAck {
        self.srtt = self.clock.up(rtt).max(1); // Linux takes a 0 us sample as 1 us
        self.rto = self.clock.up(rtt.saturating_add(rtt.saturating_mul(2).max(RTO_MIN_NS)));
        self
    }

    /// `TCP_ATO_MIN` and `TCP_DELACK_MIN`: HZ / 25 (40 ms).
    fn ato_min(&self) -> Jiffies {
        self.clock.hz() / 25
    }

    /// `TCP_DELACK_MAX`: HZ / 5 (200 ms), the socket's `icsk_delack_max` by default.
    fn delack_max(&self) -> Jiffies {
        self.clock.hz() / 5
    }

    /// `tcp_incr_quickack(sk, max_quickacks)` with the receive window of a bulk
    /// receiver (see [`LinuxAckConfig::quickacks`]).
    fn incr_quickack(&mut self, max_quickacks: u8) {
        self.quick = self.quick.max(self.quickacks.min(max_quickacks));
    }

    /// `tcp_enter_quickack_mode`: quick ACKs, and the ATO back to its minimum.
    fn enter_quickack_mode(&mut self, max_quickacks: u8) {
        self.incr_quickack(max_quickacks);
        self.ato = self.ato_min();
    }

    /// `tcp_data_ecn_check`, after the estimator as in `tcp_event_data_recv`.
    fn ecn_check(&mut self, ecn: EcnCue) {
        if ecn.quickack {
            self.enter_quickack_mode(ECN_QUICKACKS);
        }
    }

    /// `tcp_event_data_recv`'s ACK-timeout estimator, for an in-order arrival at `now`.
    fn data_received(&mut self, now: Jiffies) {
        if self.ato == 0 {
            self.incr_quickack(MAX_QUICKACKS as u8);
            self.ato = self.ato_min();
        } else {
            let m = now.saturating_sub(self.lrcvtime);
            if m <= self.ato_min() / 2 {
                self.ato = self.ato / 2 + self.ato_min() / 2;
            } else if m < self.ato {
                self.ato = (self.ato / 2 + m).min(self.rto);
            } else if m > self.rto {
                self.incr_quickack(MAX_QUICKACKS as u8);
            }
        }
        self.lrcvtime = now;
    }

    /// An in-order segment at `now` that filled no gap, with its ECN cue and
    /// its PSH flag: true if it is acknowledged now (`__tcp_ack_snd_check`; a
    /// full-sized segment with PSH once the application has read it,
    /// `tcp_measure_rcv_mss` and `tcp_cleanup_rbuf`, the application reading
    /// at once here), else the timer is armed (`tcp_send_delayed_ack`; a held
    /// segment is always alone, so no older timer is pending).
    pub fn in_order(&mut self, now: SimTime, ecn: EcnCue, psh: bool) -> bool {
        let now_j = self.clock.at(now);
        self.data_received(now_j);
        self.ecn_check(ecn);
        self.unacked = self.unacked.saturating_add(1);
        if self.unacked >= 2 || self.quick > 0 || ecn.cwr || psh {
            return true;
        }
        let mut ato = self.ato;
        if ato > self.ato_min() {
            let mut max_ato = self.clock.hz() / 2;
            if self.srtt > 0 {
                max_ato = max_ato.min(self.srtt.max(self.ato_min()));
            }
            ato = ato.min(max_ato);
        }
        ato = ato.min(self.delack_max());
        self.at = Some(self.clock.instant(timer_wheel_expiry(now_j, now_j + ato)));
        false
    }

    /// A segment that was not simply the next in order: a duplicate enters
    /// quickack mode (`tcp_data_queue`: "a retransmit ... force an immediate
    /// ack"); one filling a gap is in-order data for the estimator; the ECN
    /// cue of either other kind counts (`tcp_data_queue_ofo` checks it too).
    /// The receiver acknowledges each at once.
    pub fn disorder(&mut self, now: SimTime, duplicate: bool, filled_gap: bool, ecn: EcnCue) {
        if duplicate {
            self.enter_quickack_mode(MAX_QUICKACKS as u8);
            return;
        }
        if filled_gap {
            self.data_received(self.clock.at(now));
        }
        self.ecn_check(ecn);
    }

    /// An ACK was sent: quickack mode counts it down (`tcp_dec_quickack_mode`,
    /// which deflates the ATO when the mode ends), and the timer is cleared.
    pub fn ack_sent(&mut self) {
        if self.quick > 0 {
            self.quick -= 1;
            if self.quick == 0 {
                self.ato = self.ato_min();
            }
        }
        self.unacked = 0;
        self.at = None;
    }

    /// The timer fired: "delayed ACK missed: inflate ATO" (`tcp_delack_timer_handler`).
    pub fn timer_fired(&mut self) {
        self.ato = (self.ato << 1).min(self.rto);
    }

    pub fn deadline(&self) -> Option<SimTime> {
        self.at
    }
}

/// The jiffy at which the timer wheel fires a timer armed at `clk` for
/// `expires` (kernel/time/timer.c `calc_wheel_index`, `calc_index`): level n
/// of the wheel has a granularity of 8^n jiffies and starts at a delay of
/// 63 x 8^(n-1); the expiry is rounded up to the next multiple of the
/// granularity, one jiffy later at level 0 ("a timer does not fire early").
fn timer_wheel_expiry(clk: Jiffies, expires: Jiffies) -> Jiffies {
    let delta = expires.saturating_sub(clk);
    let mut level = 0;
    while level < 7 && delta >= 63 << (3 * level) {
        level += 1;
    }
    let shift = 3 * level;
    ((expires >> shift) + 1) << shift
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = NS_PER_MS;
    /// A segment whose ECN bits ask nothing.
    const PLAIN: EcnCue = EcnCue { cwr: false, quickack: false };

    fn receiver(hz: u32, quickacks: u32) -> LinuxAck {
        LinuxAck::new(&LinuxAckConfig { hz, quickacks })
    }

    #[test]
    fn the_state_fits_in_the_adaptive_policys() {
        // Every receiver's ACK clock is as large as its largest policy's (see `LinuxAck`).
        assert!(std::mem::size_of::<LinuxAck>() <= std::mem::size_of::<super::super::adaptive::AdaptiveAck>());
    }

    #[test]
    fn the_wheel_fires_a_level_0_timer_one_jiffy_late_and_rounds_up_at_level_1() {
        assert_eq!(timer_wheel_expiry(100, 110), 111);
        assert_eq!(timer_wheel_expiry(100, 162), 163);
        // 63 jiffies and more: level 1, granularity 8
        assert_eq!(timer_wheel_expiry(100, 163), 168);
        assert_eq!(timer_wheel_expiry(0, 200), 208);
        // 504 and more: level 2, granularity 64
        assert_eq!(timer_wheel_expiry(0, 504), 512);
        assert_eq!(timer_wheel_expiry(0, 600), 640);
    }

    #[test]
    fn a_lone_segment_with_psh_is_acknowledged_at_once() {
        // Out of quickack mode a lone segment waits for the timer; one with PSH (a full-sized
        // segment, the application reading at once) is acknowledged as soon as it arrives.
        let mut r = receiver(250, 0);
        assert!(!r.in_order(0, PLAIN, false));
        r.ack_sent();
        assert!(r.in_order(MS, PLAIN, true), "PSH: at once");
        r.ack_sent();
        assert!(!r.in_order(2 * MS, PLAIN, false), "the next lone segment without PSH waits");
    }

    #[test]
    fn quickack_mode_acknowledges_the_first_segments_at_once_then_every_second() {
        let mut r = receiver(250, 16);
        for i in 0..16 {
            assert!(r.in_order(i * MS, PLAIN, false), "segment {i} in quickack mode");
            r.ack_sent();
        }
        assert!(!r.in_order(20 * MS, PLAIN, false), "quickack mode is over: a lone segment waits");
        assert!(r.in_order(21 * MS, PLAIN, false), "the second is acknowledged at once");
        r.ack_sent();
        let mut none = receiver(250, 0);
        assert!(!none.in_order(0, PLAIN, false), "no quickack mode: the first segment waits");
    }

    #[test]
    fn a_lone_segment_waits_ato_to_ato_plus_one_jiffy() {
        // HZ = 250: 4 ms jiffies, the minimum ATO is 10 of them
        for arrival in [1_000 * MS, 1_001 * MS, 1_003 * MS + 999_999] {
            let mut r = receiver(250, 0);
            assert!(!r.in_order(arrival, PLAIN, false));
            let hold = r.deadline().unwrap() - arrival;
            assert!(hold > 40 * MS && hold <= 44 * MS, "hold {hold} ns of a segment at {arrival} ns");
        }
        // HZ = 1000: 40 to 41 ms
        let mut r = receiver(1000, 0);
        assert!(!r.in_order(5 * MS + MS / 2, PLAIN, false));
        assert_eq!(r.deadline(), Some(46 * MS));
    }

    #[test]
    fn a_missed_delayed_ack_inflates_the_ato_up_to_the_handshake_rtt() {
        // handshake RTT 41 ms: 11 jiffies at HZ = 250; RTO 41 + 200 ms
        let mut r = receiver(250, 0).with_handshake_rtt(41 * MS);
        assert_eq!((r.srtt, r.rto), (11, 61));
        assert!(!r.in_order(0, PLAIN, false));
        assert_eq!(r.deadline(), Some(44 * MS));
        r.timer_fired();
        r.ack_sent();
        assert_eq!(r.ato, 20, "doubled");
        // the next lone segment comes 100 ms later (m = 25 > ato): the ATO stays 20, bounded by the RTT's 11 jiffies
        assert!(!r.in_order(100 * MS, PLAIN, false));
        assert_eq!(r.deadline(), Some((25 + 11 + 1) * 4 * MS));
        // without a handshake the bound is HZ / 2, and the ATO itself (20 jiffies) is used
        let mut free = receiver(250, 0);
        assert!(!free.in_order(0, PLAIN, false));
        free.timer_fired();
        free.ack_sent();
        assert!(!free.in_order(100 * MS, PLAIN, false));
        assert_eq!(free.deadline(), Some((25 + 20 + 1) * 4 * MS));
    }

    #[test]
    fn arrivals_close_together_pull_the_ato_back_to_its_minimum() {
        let mut r = receiver(250, 0).with_handshake_rtt(41 * MS);
        assert!(!r.in_order(0, PLAIN, false));
        r.timer_fired();
        r.ack_sent();
        for k in 1..8 {
            let _ = r.in_order(100 * MS + k * MS, PLAIN, false);
            r.ack_sent();
        }
        assert_eq!(r.ato, 10, "m <= ATO_MIN / 2: ato = ato / 2 + ATO_MIN / 2 converges to the minimum");
    }

    #[test]
    fn a_gap_longer_than_the_rto_or_a_duplicate_enters_quickack_mode_again() {
        let mut r = receiver(250, 3).with_handshake_rtt(40 * MS);
        for i in 0..3 {
            assert!(r.in_order(i * MS, PLAIN, false));
            r.ack_sent();
        }
        assert!(!r.in_order(10 * MS, PLAIN, false));
        r.ack_sent();
        // the receiver's RTO is 40 + 200 ms: 60 jiffies
        assert!(r.in_order(10 * MS + 245 * MS, PLAIN, false), "after a gap above the RTO");
        r.ack_sent();
        for t in [256, 257] {
            assert!(r.in_order(t * MS, PLAIN, false));
            r.ack_sent();
        }
        assert!(!r.in_order(258 * MS, PLAIN, false), "three quick ACKs, then delayed again");
        r.ack_sent();
        r.disorder(259 * MS, true, false, PLAIN);
        assert!(r.in_order(260 * MS, PLAIN, false), "a duplicate: quickack mode");
    }

    #[test]
    fn a_first_ce_or_a_not_ect_retransmission_gets_two_quick_acks_and_cwr_one() {
        let ce = EcnCue { cwr: false, quickack: true };
        let cwr = EcnCue { cwr: true, quickack: false };
        let mut r = receiver(250, 16);
        let mut t = 0;
        let mut arrive = |r: &mut LinuxAck, ecn| {
            t += MS;
            let now = r.in_order(t, ecn, false);
            if now {
                r.ack_sent();
            }
            now
        };
        for _ in 0..16 {
            assert!(arrive(&mut r, PLAIN));
        }
        assert!(!arrive(&mut r, PLAIN), "quickack mode is over");
        r.timer_fired();
        r.ack_sent();
        assert_eq!(r.ato, 20);
        assert!(arrive(&mut r, ce), "the CE segment itself");
        assert_eq!(r.ato, 10, "tcp_enter_quickack_mode deflates the ATO");
        assert!(arrive(&mut r, PLAIN), "and the one after it");
        assert!(!arrive(&mut r, PLAIN), "two quick ACKs, then delayed again");
        r.ack_sent();
        assert!(arrive(&mut r, cwr), "CWR: at once");
        assert!(!arrive(&mut r, PLAIN), "and no quickack mode after it");
        r.ack_sent();
        // An out-of-order CE segment is acknowledged at once and leaves one quick ACK.
        r.disorder(100 * MS, false, false, ce);
        r.ack_sent();
        assert!(arrive(&mut r, PLAIN));
        assert!(!arrive(&mut r, PLAIN));
        // Without quickack mode (quickacks 0) a cue gives no quick ACK; CWR is still acknowledged at once.
        let mut none = receiver(250, 0);
        assert!(!none.in_order(0, ce, false));
        none.ack_sent();
        assert!(none.in_order(MS, cwr, false));
    }
}
