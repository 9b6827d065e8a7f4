//! TCP Vegas (Brakmo and Peterson, IEEE JSAC 13(8), 1995), in the structure of
//! Linux `net/ipv4/tcp_vegas.c`.
//!
//! What is modelled: once per RTT (when `snd_una` passes the `snd_nxt` recorded
//! at the start of the RTT) Vegas compares the window with the window the path
//! would carry without queueing,
//! `diff = cwnd * (rtt - baseRTT) / baseRTT` (packets queued in the network),
//! where `baseRTT` is the minimum RTT ever seen and `rtt` the minimum RTT seen
//! during the RTT just ended. In congestion avoidance it adds one segment if
//! `diff < alpha`, removes one if `diff > beta`, else holds. In slow start it
//! leaves slow start when `diff > gamma`, setting the window to what the
//! measured rate supports. Between these once-per-RTT decisions the window
//! grows only in slow start. With fewer than three RTT samples in the last RTT
//! (likely all delayed ACKs) the decision is Reno's update for that one ACK, as
//! in Linux: slow start goes on as usual, while congestion avoidance then
//! advances `snd_cwnd_cnt` by one ACK per RTT only. Outside `Open` state Vegas
//! is off and the window grows as Reno's (Linux `tcp_vegas_state`).
//!
//! What is left out: Vegas's own fine-grained retransmission timer and its
//! 1/4 window reduction on the first loss; loss recovery belongs to the sender,
//! and `ssthresh` after a loss is Reno's `max(cwnd / 2, 2)` as in Linux.
//!
//! Differences between the two references, both of which papers have used
//! (the PERT paper's Vegas runs are ns-2's `Agent/TCP/Vegas`):
//! - RTT per round: Linux takes the *minimum* RTT sample of the last RTT (to
//!   filter delayed ACKs); ns-2 takes the *mean* of its fine-grained samples.
//!   This module follows Linux.
//! - `diff`: Linux computes `cwnd * (rtt - baseRTT) / baseRTT`, truncated, i.e.
//!   Brakmo's `Diff = expected - actual` times the RTT; Brakmo's backlog and
//!   ns-2 (and ns-3, `cwnd - cwnd * baseRTT / rtt`) multiply by baseRTT instead,
//!   `cwnd * (rtt - baseRTT) / rtt`. ns-2 computes it from segments in flight and
//!   segments sent during the last RTT, rounded to nearest. Linux here.
//! - Growth in congestion avoidance: Linux adds the segment at once at the end
//!   of the RTT; ns-2 spreads it as `1/cwnd` per ACK over the next RTT, and
//!   only while `cwnd - in_flight <= 2`. Linux here.
//! - Slow start: Brakmo and ns-2 double the window only every other RTT and
//!   test `gamma` at the end of the RTTs in which the window was held; Linux
//!   grows every RTT and tests every RTT. Selectable with
//!   [`VegasConfig::slow_start_every_other_rtt`] (default: every other RTT).
//!   With Linux's minimum RTT either way lags: a round's samples are of the
//!   segments sent in the round before, whose first segment left before that
//!   round's growth, so `gamma` sees the queue of an earlier, smaller window
//!   (ns-2's mean sees part of the growth). On a 10 Mbit/s, 80 ms path with a
//!   67-packet buffer a lone flow grows 64 -> 128 -> 256 and stops at the loss
//!   in both modes (docs/validation.md, "Vegas").
//! - Leaving slow start: ns-2 cuts `cwnd` by 1/8 and sets `ssthresh = 2`; Linux
//!   sets `cwnd = min(cwnd, cwnd * baseRTT / rtt + 1)`. Linux here.
//! - Defaults: ns-2 `alpha = 1, beta = 3, gamma = 1`; Linux `2, 4, 1`. The
//!   defaults here are ns-2's, since the papers reproduced used ns-2.
//!
//! Base RTT: [`VegasConfig::base_rtt`] selects where `baseRTT` comes from.
//! `observed` (default) is the minimum RTT ever seen, as above: a flow that
//! starts into a queue keeps part of that queue in its `baseRTT`, counts less
//! backlog than it holds and may hold more than `beta` packets (Hua 2002,
//! Section 3.3, sets this over-estimate of the propagation delay aside). `propagation` gives the flow its true base RTT instead,
//! the RTT of a segment over the empty path (Hua's `d~`, eq. 3.7: propagation
//! plus every link's transmission time), computed by the world when the flow
//! is built (`world::flows::path_rtt`) and never lowered by samples.
//!
//! Counters: each Vegas decision that lowers `snd_cwnd` (a congestion-avoidance
//! decrease, or leaving slow start with a window cut to the measured rate)
//! counts as one `early_responses`, as [`CcCounters`] defines them.

use super::base_rtt::BaseRtt;
use super::reno::{reno_cong_avoid, reno_ssthresh};
use super::rtt_round::RttRound;
use super::{AckSample, CaEvent, CaState, CcCounters, CcState, CongestionControl};
use crate::error::ConfigError;
use crate::rng::SimRng;
use crate::scenario::CcSpec;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// ns-2 `Agent/TCP/Vegas` default `v_alpha_` (ns-default.tcl); Linux uses 2.
pub const DEFAULT_ALPHA: u32 = 1;
/// ns-2 default `v_beta_`; Linux uses 4.
pub const DEFAULT_BETA: u32 = 3;
/// ns-2 default `v_gamma_`; Linux uses 1 as well.
pub const DEFAULT_GAMMA: u32 = 1;
/// Linux `tcp_vegas.c`: with at most this many RTT samples in the last RTT
/// they are probably all delayed ACKs, so the round falls back to Reno.
const MIN_SAMPLES_EXCLUSIVE: u32 = 2;
/// Linux clamps `snd_cwnd` to at least 2 after a Vegas adjustment.
const MIN_CWND: u32 = 2;
/// "No sample yet" for the RTT minima (Linux uses 0x7fffffff microseconds).
const NO_RTT: SimTime = SimTime::MAX;

/// Vegas parameters, in packets (segments) queued in the network.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct VegasConfig {
    /// Lower bound on packets queued: grow the window below it.
    /// Default 1 (ns-2 `v_alpha_`); Linux `alpha` is 2.
    pub alpha: u32,
    /// Upper bound on packets queued: shrink the window above it.
    /// Default 3 (ns-2 `v_beta_`); Linux `beta` is 4.
    pub beta: u32,
    /// Slow start ends when more than this many packets are queued.
    /// Default 1 (ns-2 `v_gamma_`, Linux `gamma`).
    pub gamma: u32,
    /// Grow in slow start only every other RTT and test `gamma` after the RTTs
    /// with a constant window (Brakmo et al., ns-2). `false` grows and tests
    /// every RTT, as Linux does. Default `true`.
    pub slow_start_every_other_rtt: bool,
    /// Where `baseRTT` comes from: "observed" (default, the minimum RTT
    /// measured) or "propagation" (the path's propagation and transmission
    /// delays, Hua's `d~`, eq. 3.7); see [`BaseRtt`].
    pub base_rtt: BaseRtt,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig { alpha: DEFAULT_ALPHA, beta: DEFAULT_BETA, gamma: DEFAULT_GAMMA, slow_start_every_other_rtt: true, base_rtt: BaseRtt::Observed }
    }
}

impl VegasConfig {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        if self.beta < self.alpha {
            return Err(ConfigError::new(format!("{path}.beta"), format!("must be at least alpha ({}), got {}", self.alpha, self.beta)));
        }
        Ok(())
    }
}

/// TCP Vegas state (Linux `struct vegas`).
#[derive(Clone, Debug)]
pub struct Vegas {
    cfg: VegasConfig,
    /// Vegas adjusts the window this RTT (off outside `Open`, as in Linux).
    doing_vegas_now: bool,
    /// The current RTT and its samples.
    round: RttRound,
    /// Smallest RTT sample ever (the propagation-delay estimate), or the
    /// path's RTT when it is known.
    base_rtt: SimTime,
    /// The path's RTT without queueing, when `cfg.base_rtt` is
    /// `propagation` ([`Vegas::with_path_rtt`]): `base_rtt` is held there.
    path_rtt: Option<SimTime>,
    /// In every-other-RTT slow start: the window is held during this RTT.
    ss_hold: bool,
    /// `diff` of the last completed Vegas round, for traces.
    last_diff: Option<u32>,
    counters: CcCounters,
}

impl Vegas {
    pub fn new(cfg: VegasConfig) -> Vegas {
        Vegas {
            cfg,
            doing_vegas_now: true,
            round: RttRound::default(),
            base_rtt: NO_RTT,
            path_rtt: None,
            ss_hold: false,
            last_diff: None,
            counters: CcCounters::default(),
        }
    }

    /// Vegas whose `baseRTT` is `rtt_ns` throughout, the path's RTT without
    /// queueing ([`BaseRtt::Propagation`]); samples never lower it. At least 1 ns.
    pub fn with_path_rtt(cfg: VegasConfig, rtt_ns: SimTime) -> Vegas {
        let rtt = rtt_ns.max(1);
        Vegas { base_rtt: rtt, path_rtt: Some(rtt), ..Vegas::new(cfg) }
    }

    /// The `baseRTT` in use: the minimum RTT ever seen (the propagation-delay
    /// estimate), or the path's RTT when known; None before any sample.
    pub fn base_rtt_ns(&self) -> Option<SimTime> {
        (self.base_rtt != NO_RTT).then_some(self.base_rtt)
    }

    /// Packets estimated queued at the last Vegas round (Linux's `diff`).
    pub fn last_diff(&self) -> Option<u32> {
        self.last_diff
    }

    /// Linux `vegas_enable`: start a fresh round at the next RTT boundary.
    fn enable(&mut self, tp: &CcState) {
        self.doing_vegas_now = true;
        self.round.begin(tp.snd_nxt);
        self.ss_hold = false;
    }

    /// Linux `tcp_vegas_init`: also forget the base RTT (a known path RTT stays).
    fn reset(&mut self, tp: &CcState) {
        self.base_rtt = self.path_rtt.unwrap_or(NO_RTT);
        self.enable(tp);
    }

    /// The once-per-RTT decision, on the first ACK beyond the round's start.
    fn end_of_round(&mut self, tp: &mut CcState, acked: u32) {
        if self.round.samples() <= MIN_SAMPLES_EXCLUSIVE {
            // Not enough samples: this round is Reno's, and the next one grows.
            self.ss_hold = false;
            reno_cong_avoid(tp, acked);
        } else {
            let in_ss = tp.in_slow_start();
            // In every-other-RTT slow start the test belongs to the end of a
            // round with a constant window, i.e. before a growing round.
            let test_gamma = if in_ss && self.cfg.slow_start_every_other_rtt {
                self.ss_hold = !self.ss_hold;
                !self.ss_hold
            } else {
                self.ss_hold = false;
                true
            };
            let rtt = self.round.min().unwrap_or(NO_RTT);
            let diff = queued_packets(tp.snd_cwnd, rtt, self.base_rtt);
            self.last_diff = Some(diff);
            let before = tp.snd_cwnd;
            if in_ss && test_gamma && diff > self.cfg.gamma {
                self.leave_slow_start(tp, rtt);
            } else if in_ss {
                if !self.ss_hold {
                    tp.slow_start(acked);
                }
            } else {
                self.avoid_congestion(tp, diff);
            }
            tp.snd_cwnd = tp.snd_cwnd.clamp(MIN_CWND, tp.snd_cwnd_clamp.max(MIN_CWND));
            // Linux `tcp_current_ssthresh` in Open state: remember 3/4 of the
            // window, never more than the window itself here.
            tp.snd_ssthresh = tp.snd_ssthresh.max((tp.snd_cwnd >> 1) + (tp.snd_cwnd >> 2));
            if tp.snd_cwnd < before {
                self.counters.early_responses += 1;
            }
        }
        self.round.begin(tp.snd_nxt);
    }

    /// Too many packets queued in slow start: set the window to the rate the
    /// path delivered (`cwnd * baseRTT / rtt`, plus one for the truncation).
    fn leave_slow_start(&mut self, tp: &mut CcState, rtt: SimTime) {
        let target = u128::from(tp.snd_cwnd) * u128::from(self.base_rtt) / u128::from(rtt.max(1));
        let target = u32::try_from(target).unwrap_or(u32::MAX).saturating_add(1);
        tp.snd_cwnd = tp.snd_cwnd.min(target);
        tp.snd_ssthresh = tp.snd_ssthresh.min(tp.snd_cwnd);
        self.ss_hold = false;
    }

    /// Congestion avoidance: keep between `alpha` and `beta` packets queued.
    fn avoid_congestion(&mut self, tp: &mut CcState, diff: u32) {
        if diff > self.cfg.beta {
            tp.snd_cwnd = tp.snd_cwnd.saturating_sub(1);
            tp.snd_ssthresh = tp.snd_ssthresh.min(tp.snd_cwnd);
        } else if diff < self.cfg.alpha {
            tp.snd_cwnd = tp.snd_cwnd.saturating_add(1);
        }
    }
}

/// Linux's `diff`, the packets queued as Linux estimates them: Brakmo's
/// `expected - actual` times the RTT, `cwnd * (rtt - base) / base`, truncated.
fn queued_packets(cwnd: u32, rtt: SimTime, base: SimTime) -> u32 {
    let extra = u128::from(rtt.saturating_sub(base));
    let diff = u128::from(cwnd) * extra / u128::from(base.max(1));
    u32::try_from(diff).unwrap_or(u32::MAX)
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.reset(tp);
    }

    /// Reno's, as Linux `tcp_vegas` uses `tcp_reno_ssthresh`.
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        if !self.doing_vegas_now {
            reno_cong_avoid(tp, acked);
        } else if self.round.is_over(tp.snd_una) {
            self.end_of_round(tp, acked);
        } else if tp.in_slow_start() && !self.ss_hold {
            tp.slow_start(acked);
        }
    }

    fn pkts_acked(&mut self, _tp: &mut CcState, sample: &AckSample, _rng: &mut SimRng) {
        let Some(rtt) = sample.rtt else { return };
        // Never a zero RTT: base RTT is a divisor.
        let rtt = rtt.max(1);
        if self.path_rtt.is_none() {
            self.base_rtt = self.base_rtt.min(rtt);
        }
        self.round.add(rtt);
    }

    fn set_state(&mut self, tp: &mut CcState, new_state: CaState) {
        if new_state == CaState::Open {
            self.enable(tp);
        } else {
            self.doing_vegas_now = false;
        }
    }

    /// After idle the saved window and samples are stale: start over (Linux).
    fn cwnd_event(&mut self, tp: &mut CcState, ev: CaEvent) {
        if matches!(ev, CaEvent::CwndRestart | CaEvent::TxStart) {
            self.reset(tp);
        }
    }

    fn counters(&self, _now: SimTime) -> CcCounters {
        self.counters
    }

    /// `alpha`, `beta` and `gamma` apply from the end of the round in
    /// progress (Linux reads its module parameters there too). The base RTT's
    /// source is not a live parameter (`LIVE_PARAMS`): it stays as built.
    fn set_params(&mut self, spec: &CcSpec) {
        if let CcSpec::Vegas(cfg) = spec {
            self.cfg = cfg.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::ack_clock::AckClock;
    use crate::tcp::cc::INFINITE_SSTHRESH;
    use crate::time::NS_PER_MS;

    const MS: SimTime = NS_PER_MS;

    #[test]
    fn defaults_are_ns2s() {
        let c = VegasConfig::default();
        assert_eq!((c.alpha, c.beta, c.gamma), (1, 3, 1));
        assert!(c.slow_start_every_other_rtt);
        assert!(c.validate("flows[0].cc").is_ok());
    }

    #[test]
    fn beta_below_alpha_is_rejected_by_name() {
        let c = VegasConfig { alpha: 4, beta: 2, ..VegasConfig::default() };
        let e = c.validate("flows[1].cc").unwrap_err();
        assert_eq!(e.field, "flows[1].cc.beta");
        assert!(e.message.contains("at least alpha (4)"), "{}", e.message);
    }

    #[test]
    fn config_reads_from_json_and_rejects_unknown_fields() {
        let c: VegasConfig = serde_json::from_str(r#"{"alpha": 2, "beta": 4}"#).unwrap();
        assert_eq!(c, VegasConfig { alpha: 2, beta: 4, ..VegasConfig::default() });
        assert!(serde_json::from_str::<VegasConfig>(r#"{"delta": 1}"#).is_err());
    }

    #[test]
    fn no_queueing_grows_one_segment_per_rtt_in_congestion_avoidance() {
        // base RTT = RTT = 100 ms: diff = 0 < alpha. The first round ends on the
        // first ACK of the second driver round; each later round adds one.
        let mut f = AckClock::new(Vegas::new(VegasConfig::default()), 10, 5);
        f.round(Some(100 * MS));
        assert_eq!(f.tp.snd_cwnd, 10);
        for k in 1..=10 {
            f.round(Some(100 * MS));
            assert_eq!(f.tp.snd_cwnd, 10 + k);
        }
        assert_eq!(f.cc.last_diff(), Some(0));
        assert_eq!(f.cc.base_rtt_ns(), Some(100 * MS));
        assert_eq!(f.cc.counters(0).early_responses, 0);
        // Linux keeps ssthresh at 3/4 of the window in Open state: 20/2 + 20/4.
        assert_eq!(f.tp.snd_ssthresh, 15);
    }

    #[test]
    fn diff_above_beta_removes_one_segment_per_rtt() {
        let mut f = AckClock::new(Vegas::new(VegasConfig::default()), 20, 5);
        f.round(Some(100 * MS));
        // The round that ends here still saw the 100 ms samples: +1.
        f.round(Some(200 * MS));
        assert_eq!(f.tp.snd_cwnd, 21);
        // From now on min RTT = 200 ms: diff = 21 * 100 / 100 = 21 > 3.
        for k in 1..=5 {
            f.round(Some(200 * MS));
            assert_eq!(f.tp.snd_cwnd, 21 - k);
            // min(ssthresh, cwnd), then at least 3/4 of cwnd: 21/2 + 21/4 = 15.
            assert_eq!(f.tp.snd_ssthresh, 15);
        }
        assert_eq!(f.cc.last_diff(), Some(17));
        assert_eq!(f.cc.counters(0).early_responses, 5);
    }

    #[test]
    fn diff_between_alpha_and_beta_holds_the_window() {
        let mut f = AckClock::new(Vegas::new(VegasConfig::default()), 20, 5);
        f.round(Some(100 * MS));
        f.round(Some(110 * MS));
        assert_eq!(f.tp.snd_cwnd, 21);
        // diff = 21 * 10 / 100 = 2, within [1, 3].
        for _ in 0..5 {
            f.round(Some(110 * MS));
            assert_eq!(f.tp.snd_cwnd, 21);
        }
        assert_eq!(f.cc.last_diff(), Some(2));
    }

    #[test]
    fn slow_start_every_other_rtt_exits_when_diff_exceeds_gamma() {
        // Round 1 at 100 ms sets base RTT; then 120 ms (20 % queueing).
        // Rounds: 1 grow 2->4; 2 hold; 3 test diff = 4*20/100 = 0, grow 4->8;
        // 4 hold; 5 test diff = 1, grow 8->16; 6 hold; 7 test diff = 3 > 1:
        // cwnd = min(16, 16*100/120 + 1) = 14 = ssthresh.
        let mut f = AckClock::new(Vegas::new(VegasConfig::default()), 2, INFINITE_SSTHRESH);
        f.round(Some(100 * MS));
        let expect = [4, 4, 8, 8, 16, 16];
        for (i, w) in expect.iter().enumerate().skip(1) {
            f.round(Some(120 * MS));
            assert_eq!(f.tp.snd_cwnd, *w, "after round {}", i + 1);
            assert_eq!(f.tp.snd_ssthresh, INFINITE_SSTHRESH);
        }
        f.round(Some(120 * MS));
        assert_eq!((f.tp.snd_cwnd, f.tp.snd_ssthresh), (14, 14));
        assert_eq!(f.cc.counters(0).early_responses, 1);
    }

    #[test]
    fn linux_slow_start_grows_and_tests_every_rtt() {
        // Rounds: 1 grow 2->4; 2 test diff 0 (min still 100 ms), grow 4->8;
        // 3 test diff = 8*20/100 = 1, grow 8->16; 4 test diff = 3 > 1: 14.
        let cfg = VegasConfig { slow_start_every_other_rtt: false, ..VegasConfig::default() };
        let mut f = AckClock::new(Vegas::new(cfg), 2, INFINITE_SSTHRESH);
        f.round(Some(100 * MS));
        assert_eq!(f.tp.snd_cwnd, 4);
        f.round(Some(120 * MS));
        assert_eq!(f.tp.snd_cwnd, 8);
        f.round(Some(120 * MS));
        assert_eq!(f.tp.snd_cwnd, 16);
        f.round(Some(120 * MS));
        assert_eq!((f.tp.snd_cwnd, f.tp.snd_ssthresh), (14, 14));
    }

    #[test]
    fn without_rtt_samples_slow_start_is_renos() {
        let mut f = AckClock::new(Vegas::new(VegasConfig::default()), 2, INFINITE_SSTHRESH);
        for w in [4, 8, 16, 32] {
            f.round(None);
            assert_eq!(f.tp.snd_cwnd, w);
        }
        assert_eq!(f.cc.base_rtt_ns(), None);
    }

    #[test]
    fn loss_threshold_is_renos() {
        let mut cc = Vegas::new(VegasConfig::default());
        let mut tp = CcState::new(41, 1000, 1500);
        assert_eq!(cc.ssthresh(&tp), 20);
        tp.snd_cwnd = 3;
        assert_eq!(cc.ssthresh(&tp), 2);
    }

    #[test]
    fn outside_open_state_growth_is_renos_and_vegas_restarts_on_open() {
        let mut f = AckClock::new(Vegas::new(VegasConfig::default()), 10, 5);
        f.round(Some(100 * MS));
        f.cc.set_state(&mut f.tp, CaState::Disorder);
        // Reno congestion avoidance: one segment per window of ACKs.
        f.round(Some(300 * MS));
        assert_eq!(f.tp.snd_cwnd, 11);
        f.cc.set_state(&mut f.tp, CaState::Open);
        assert_eq!(f.cc.round.beg_snd_nxt(), f.tp.snd_nxt);
        assert_eq!(f.cc.base_rtt_ns(), Some(100 * MS));
    }

    #[test]
    fn base_rtt_reads_from_json_and_refuses_other_sources() {
        let c: VegasConfig = serde_json::from_str(r#"{"base_rtt": "propagation"}"#).unwrap();
        assert_eq!(c, VegasConfig { base_rtt: BaseRtt::Propagation, ..VegasConfig::default() });
        assert_eq!(VegasConfig::default().base_rtt, BaseRtt::Observed);
        let e = serde_json::from_str::<VegasConfig>(r#"{"base_rtt": "minimum"}"#).unwrap_err().to_string();
        assert!(e.starts_with(r#"base_rtt: must be "observed""#) && e.contains(r#""propagation""#) && e.contains(r#"got "minimum""#), "{e}");
        assert!(serde_json::from_str::<VegasConfig>(r#"{"base_rtt": 5}"#).is_err());
        assert_eq!(serde_json::to_value(VegasConfig::default()).unwrap()["base_rtt"], "observed");
        // As a flow's controller: the path stops at the controller's table, the message names the field.
        let e = crate::scenario::Scenario::from_json(
            r#"{"duration_ns": 1000000000, "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate_bps": 1000000, "delay_ns": 1000000}],
                "flows": [{"src": "a", "dst": "b", "cc": {"kind": "vegas", "base_rtt": "minimum"}}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.field, "flows[0].cc", "{e:?}");
        assert!(e.message.starts_with("base_rtt: must be"), "{e:?}");
    }

    /// Every sample is 130 ms: the flow never saw the path's 100 ms (it
    /// started into a 30 ms queue). With the observed minimum the queue is
    /// taken for propagation; with the path's RTT it is counted.
    #[test]
    fn path_rtt_counts_the_queue_the_observed_minimum_takes_for_propagation() {
        let mut observed = AckClock::new(Vegas::new(VegasConfig::default()), 20, 5);
        let cfg = VegasConfig { base_rtt: BaseRtt::Propagation, ..VegasConfig::default() };
        let mut known = AckClock::new(Vegas::with_path_rtt(cfg, 100 * MS), 20, 5);
        assert_eq!(known.cc.base_rtt_ns(), Some(100 * MS));
        observed.round(Some(130 * MS));
        known.round(Some(130 * MS));
        // diff = cwnd * 30 / 100, truncated: 6, 5, 5, 5, 4, 4, 4 > beta = 3, one
        // segment off per round, then 13 * 30 / 100 = 3 holds.
        let expect = [19, 18, 17, 16, 15, 14, 13, 13, 13];
        for (k, w) in expect.iter().enumerate() {
            observed.round(Some(130 * MS));
            known.round(Some(130 * MS));
            assert_eq!(known.tp.snd_cwnd, *w, "round {}", k + 2);
            // Observed: base 130 ms, diff 0 < alpha: one more segment each round.
            assert_eq!(observed.tp.snd_cwnd, 21 + k as u32);
        }
        assert_eq!((known.cc.last_diff(), observed.cc.last_diff()), (Some(3), Some(0)));
        assert_eq!(observed.cc.base_rtt_ns(), Some(130 * MS));
        assert_eq!(known.cc.counters(0).early_responses, 7);
        // A sample below the path's RTT does not lower it: diff 0 (the ACK that
        // ends a round brings its sample first), one more segment per round.
        known.round(Some(90 * MS));
        known.round(Some(90 * MS));
        assert_eq!((known.cc.base_rtt_ns(), known.cc.last_diff(), known.tp.snd_cwnd), (Some(100 * MS), Some(0), 15));
        // Nor does a restart after idle forget it (Linux forgets the minimum).
        known.cc.cwnd_event(&mut known.tp, CaEvent::TxStart);
        observed.cc.cwnd_event(&mut observed.tp, CaEvent::TxStart);
        assert_eq!((known.cc.base_rtt_ns(), observed.cc.base_rtt_ns()), (Some(100 * MS), None));
    }

    #[test]
    fn path_rtt_exits_slow_start_on_the_queue_of_the_first_round() {
        // Samples of 150 ms over a 100 ms path from the start. Observed: base
        // 150 ms, diff 0 every round: grow 2 -> 4, hold, grow 4 -> 8. Known:
        // grow 2 -> 4, hold, then the test after the held round finds diff =
        // 4 * 50 / 100 = 2 > gamma = 1: cwnd = min(4, 4 * 100 / 150 + 1) = 3
        // = ssthresh.
        let cfg = VegasConfig { base_rtt: BaseRtt::Propagation, ..VegasConfig::default() };
        let mut known = AckClock::new(Vegas::with_path_rtt(cfg, 100 * MS), 2, INFINITE_SSTHRESH);
        let mut observed = AckClock::new(Vegas::new(VegasConfig::default()), 2, INFINITE_SSTHRESH);
        for _ in 0..3 {
            known.round(Some(150 * MS));
            observed.round(Some(150 * MS));
        }
        assert_eq!((known.tp.snd_cwnd, known.tp.snd_ssthresh), (3, 3));
        assert_eq!((observed.tp.snd_cwnd, observed.tp.snd_ssthresh), (8, INFINITE_SSTHRESH));
    }

    #[test]
    fn zero_and_huge_rtts_do_not_panic() {
        let mut f = AckClock::new(Vegas::new(VegasConfig::default()), 10, 5);
        f.round(Some(0));
        f.round(Some(u64::MAX));
        f.round(Some(u64::MAX));
        assert_eq!(f.cc.base_rtt_ns(), Some(1));
        // diff saturates: the window shrinks by one per round, never below 2.
        assert!(f.tp.snd_cwnd >= MIN_CWND);
        assert_eq!(queued_packets(u32::MAX, u64::MAX, 1), u32::MAX);
    }
}
