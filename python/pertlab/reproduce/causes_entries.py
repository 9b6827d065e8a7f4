"""``sigcomm07-causes``: runs that test our explanations of the differences of the PERT
paper's Figures 7 and 14 and Table 1 (:mod:`pertlab.experiments.sigcomm07_causes`). Each claim is
an explanation's prediction, judged on the changed scenario against the paper's."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..experiments import sigcomm07 as sc
from ..experiments import sigcomm07_causes as causes
from ..parallel import Workers
from .registry import Claim, Entry, Figure, Report, register, wire_of

PAPER = "Bhandarkar et al., SIGCOMM 2007, Sections 4.3-4.5 and 6.1 (Figures 7, 8 and 14, Table 1)"
#: How much the change must improve on the paper's scenario for a prediction to hold, set
#: before the runs: drops "all but vanish" or fall "by an order of magnitude" = to a tenth.
DROP_FACTOR = 0.1
#: "As high as at the other RTTs": PERT's lowest Jain index in Figure 7 at 10 and 50-500 ms
#: rounds down to 0.99 (committed sigcomm07-fig7 report; 1000 ms, 0.92, is a case of its own).
JAIN_OTHER_RTTS = 0.99
#: "Raises PERT's utilization to SACK/RED-ECN's": within this of it.
UTILIZATION_GAP = 0.02
#: "A flow's goodput rises with the minimum RTT it measured": a Spearman rank correlation of
#: at least this.
RANK_STRONG = 0.9
#: "Climbs at close to congestion avoidance's rate": at least this fraction of
#: :func:`~pertlab.experiments.sigcomm07_causes.additive_climb_per_s` (set after exploratory
#: runs of these seeds had shown 0.75 to 0.82 of it: early responses within the window take
#: back part of the increase).
CLIMB_FRACTION = 0.5
#: Figure 14's claims (sigcomm07-fig14): "similar utilization" within 5 points, "similar
#: queue" within 0.1 of the buffer, "avoids drops" below this drop rate.
FIG14_UTILIZATION_GAP = 0.05
QUEUE_GAP = 0.1
FIG14_DROP_RATE = 1e-4
#: "Removes most of the unfairness": the Jain index's gap to 1 at most this fraction of the
#: paper's scenario's (set after an exploratory run of seed 1: 0.24 -> 0.02).
JAIN_GAP_FACTOR = 0.5
#: "Take a larger share than their number": at least this many times it (set after an
#: exploratory run of seed 1: 15 % of the flows took 29 % of the goodput, 1.9 times).
INFLATED_SHARE_FACTOR = 1.5
#: Table 1's web transfers, each change to their PERT alone: "the drop rate falls" to below
#: these fractions of the 2 t_max run's. Both set after exploratory runs of seeds 1-6 (full
#: mode) had shown 1.1 times it with P given and 0.16 with the faster srtt (0.19 over seeds 1-3).
GIVEN_P_FACTOR = 0.5
WEB_SRTT_FACTOR = 1 / 3
#: "The web load stays the same": the web throughput within this fraction of the 2 t_max run's.
WEB_LOAD_TOLERANCE = 0.1


class _Summary:
    """The summary's rows by (case, variant), and the pairs the claims compare."""

    def __init__(self, summary: pl.DataFrame) -> None:
        self.rows = {(r["case"], r["variant"]): r for r in summary.iter_rows(named=True)}

    def __getitem__(self, key: tuple[str, str]) -> dict:
        return self.rows[key]

    def pair(self, case: str, variant: str, metric: str) -> tuple[float, float]:
        """(the paper's scenario, ``variant``)."""
        return self.compared(case, "baseline", variant, metric)

    def compared(self, case: str, before: str, after: str, metric: str) -> tuple[float, float]:
        """(``before``, ``after``): two variants of ``case``."""
        return self.rows[(case, before)][metric], self.rows[(case, after)][metric]

    def later(self, case: str, metric: str) -> tuple[tuple[float, float], tuple[float, float]]:
        """(PERT/PI, router PI-ECN), each (in the paper's window, measured later)."""
        return self.pair(case, "later", metric), (self.rows[(case, "pi_ecn")][metric], self.rows[(case, "pi_ecn_later")][metric])


def _fig7_claims(v: _Summary) -> list[Claim]:
    buffer = causes.two_t_max_buffer()
    d10 = v.pair("fig7-10ms", "buffer_2tmax", "drop_rate")
    q10 = v.pair("fig7-10ms", "buffer_2tmax", "avg_queue_norm")
    jain10 = v.pair("fig7-10ms", "buffer_2tmax", "jain")
    rank10 = v.pair("fig7-10ms", "buffer_2tmax", "rank_min_rtt_goodput")
    rank20 = v.pair("fig7-20ms", "early_starts", "rank_min_rtt_goodput")
    spread20 = v.pair("fig7-20ms", "early_starts", "min_rtt_spread_ms")
    jain20_overhead = v[("fig7-20ms", "send_overhead")]["jain"]
    u200 = v.pair("fig7-200ms", "scaled_thresholds", "utilization")
    u_red = v[("fig7-200ms", "sack_red_ecn")]["utilization"]
    j20 = v.pair("fig7-20ms", "early_starts", "jain")
    return [
        Claim(
            f"Fig. 7 at 10 ms: PERT drops because the one-BDP buffer is below 2 t_max of queueing; with {buffer} packets "
            f"(2 t_max) its drop rate falls to under {DROP_FACTOR:g} of the paper's scenario's.",
            d10[1] < DROP_FACTOR * d10[0],
            f"drop rate {d10[0]:.3g} -> {d10[1]:.3g}; normalized queue {q10[0]:.3f} -> {q10[1]:.3f}; but Jain {jain10[0]:.3f} -> "
            f"{jain10[1]:.3f}, with goodput ranked by measured minimum RTT at {rank10[0]:.2f} -> {rank10[1]:.2f} (the queue now stands "
            "inside PERT's band, and the base-RTT effect of the 20 ms case appears)",
        ),
        Claim(
            "Fig. 7 at 200 ms: PERT's utilization is low because its fixed thresholds are small against the BDP; with "
            f"thresholds scaled by RTT / {causes.REFERENCE_RTT_MS:g} ms it rises to within {UTILIZATION_GAP:g} of SACK/RED-ECN's.",
            u200[1] > u200[0] and u200[1] >= u_red - UTILIZATION_GAP,
            f"PERT utilization {u200[0]:.3f} -> {u200[1]:.3f}; SACK/RED-ECN {u_red:.3f}",
        ),
        Claim(
            "Fig. 7 at 20 ms: PERT's Jain index is low because flows count the standing queue into their minimum RTT: a flow's "
            f"goodput rises with the minimum RTT it measured (Spearman rank correlation at least {RANK_STRONG:g}).",
            rank20[0] >= RANK_STRONG,
            f"rank correlation {rank20[0]:.2f}; measured minimum RTTs spread over {spread20[0]:.1f} ms of a 20 ms path",
        ),
        Claim(
            "Fig. 7 at 20 ms: the spread of minimum RTTs comes from starts spread over 50 s; with every flow starting in the "
            f"first {causes.EARLY_START} PERT's Jain index is at least {JAIN_OTHER_RTTS:g}.",
            j20[1] >= JAIN_OTHER_RTTS,
            f"Jain {j20[0]:.3f} -> {j20[1]:.3f}; minimum RTTs spread over {spread20[0]:.1f} -> {spread20[1]:.1f} ms (the queue "
            f"forms in the first second too); with ns-2's send overhead of up to {causes.SEND_OVERHEAD} instead, Jain {jain20_overhead:.3f}",
        ),
    ]


def _fig8_claims(v: _Summary) -> list[Claim]:
    f8 = v[("fig8-1000", "baseline")]
    fair = causes.fig8_fair_window()
    return [
        Claim(
            f"Fig. 8 at {causes.FIG8_FLOWS} flows: PERT's Jain index is low because the flows' least windows hold a standing "
            "queue above 2 t_max and flows that start while it stands count it into their minimum RTT: the median flow responds "
            f"on every RTT (probability 1) at a window of at most {fair:g} packets ((BDP + buffer) / flows), and the flows whose "
            f"minimum RTT exceeds the least by more than t_min take at least {INFLATED_SHARE_FACTOR:g} times their number's share.",
            f8["p_median"] >= 0.99 and f8["cwnd_median"] <= fair and f8["inflated_share"] >= INFLATED_SHARE_FACTOR * f8["inflated_fraction"],
            f"median flow: probability {f8['p_median']:.3f}, window {f8['cwnd_median']:.1f} packets; flows with an inflated "
            f"minimum RTT: {f8['inflated_fraction']:.1%} of the flows, {f8['inflated_share']:.1%} of the goodput; Jain "
            f"{f8['jain']:.3f} (means over seeds)",
        ),
    ]


def _table1_claims(v: _Summary) -> list[Claim]:
    buffer = causes.two_t_max_buffer()
    dt1 = v.pair("table1", "buffer_2tmax", "drop_rate")
    dt1_no_web = v[("table1", "buffer_2tmax_no_web")]["drop_rate"]
    given_p = v[("table1", "buffer_2tmax_web_path_rtt")]["drop_rate"]
    fast = v.compared("table1", "buffer_2tmax", "buffer_2tmax_web_srtt", "drop_rate")
    web_mbps = v.compared("table1", "buffer_2tmax", "buffer_2tmax_web_srtt", "web_mbps")
    return [
        Claim(
            f"Table 1: PERT drops because the 150-packet buffer is below 2 t_max; with {buffer} packets its drop rate "
            f"falls to under {DROP_FACTOR:g} of the paper's scenario's (the paper: {sc.TABLE1_PAPER['pert'][1]:.3g}).",
            dt1[1] < DROP_FACTOR * dt1[0],
            f"drop rate {dt1[0]:.3g} -> {dt1[1]:.3g}",
        ),
        Claim(
            f"Table 1: the drops left with {buffer} packets come with the web sessions: without them, the ten long flows' drop "
            f"rate with that buffer falls to under {DROP_FACTOR:g} of the rate with them.",
            dt1_no_web < DROP_FACTOR * dt1[1],
            f"drop rate with {buffer} packets: {dt1[1]:.3g} with the web sessions, {dt1_no_web:.3g} without",
        ),
        Claim(
            f"Table 1 (a guess, tested): the web transfers overflow the {buffer} packets because their P, the least RTT sample of "
            "a transfer that starts with the queue standing, takes that queue in and hides it from them: given their path's RTT "
            f"as P, the drop rate falls below {GIVEN_P_FACTOR:g} of the rate with P measured.",
            given_p < GIVEN_P_FACTOR * dt1[1],
            f"drop rate with {buffer} packets: {dt1[1]:.3g} with P measured, {given_p:.3g} given",
        ),
        Claim(
            f"Table 1: the web transfers overflow the {buffer} packets because their srtt_0.99 lags: over an object's "
            f"{causes.WEB_OBJECT_SEGMENTS:g} segments (the mean) it moves {causes.web_srtt_progress(0.99):.0%} of the way to a new RTT "
            f"level, where a weight of {causes.WEB_SRTT_WEIGHT:g} (RFC 6298's) moves {causes.web_srtt_progress(causes.WEB_SRTT_WEIGHT):.0%}. "
            f"With that weight for the web transfers alone, the drop rate falls below {WEB_SRTT_FACTOR:.2g} of the rate with "
            f"0.99, the web throughput within {WEB_LOAD_TOLERANCE:.0%} of it.",
            fast[1] < WEB_SRTT_FACTOR * dt1[1] and abs(web_mbps[1] - web_mbps[0]) <= WEB_LOAD_TOLERANCE * web_mbps[0],
            f"drop rate with {buffer} packets: {dt1[1]:.3g} with srtt weight 0.99, {fast[1]:.3g} with {causes.WEB_SRTT_WEIGHT:g}; "
            f"web throughput {web_mbps[0]:.2f} -> {web_mbps[1]:.2f} Mbit/s",
        ),
    ]


def _fig14_claims(v: _Summary) -> list[Claim]:
    d14, d14_pi = v.later("fig14-10ms", "drop_rate")
    q14, q14_pi = v.later("fig14-10ms", "avg_queue_norm")
    u1s, u1s_pi = v.later("fig14-1s", "utilization")
    climb = v.pair("fig14-1s", "pi_ecn", "climb_per_s")
    before = v.pair("fig14-1s", "pi_ecn", "utilization_before")
    additive = causes.additive_climb_per_s()
    offsets = v[("fig14-100ms", "baseline")]
    jain100 = v.pair("fig14-100ms", "starts_together", "jain")
    return [
        Claim(
            f"Fig. 14 at 10 ms: PERT/PI drops because PI's integral term, with router PI's gains, is still raising the "
            f"probability that windows of a few packets need; measured {causes.LATER_S} s later its drop rate is below "
            f"{FIG14_DROP_RATE:g} and its average queue within {QUEUE_GAP:g} of the buffer of router PI-ECN's, as the paper claims.",
            d14[1] < FIG14_DROP_RATE and abs(q14[1] - q14_pi[1]) <= QUEUE_GAP,
            f"drop rate: PERT/PI {d14[0]:.3g} -> {d14[1]:.3g}, router PI-ECN {d14_pi[0]:.3g} -> {d14_pi[1]:.3g}; normalized queue: "
            f"PERT/PI {q14[0]:.3f} -> {q14[1]:.3f}, router PI-ECN {q14_pi[0]:.3f} -> {q14_pi[1]:.3f} (the paper's window -> later)",
        ),
        Claim(
            f"Fig. 14 at 1 s: the measurement window falls in congestion avoidance's climb after slow start; PERT/PI's "
            f"utilization rises through it at least {CLIMB_FRACTION:g} times as fast as {causes.FIG14_FLOWS} flows adding a "
            f"packet per RTT each refill the pipe ({additive:.2%} of capacity per second).",
            climb[0] >= CLIMB_FRACTION * additive,
            f"utilization's slope in the window, per second: PERT/PI {climb[0]:.5f} ({climb[0] / additive:.2f} of the additive "
            f"rate), router PI-ECN {climb[1]:.5f} ({climb[1] / additive:.2f}); utilization over the {causes.BEFORE_WINDOW_S:g} s "
            f"before the window (slow start over): PERT/PI {before[0]:.3f}, router PI-ECN {before[1]:.3f}",
        ),
        Claim(
            f"Fig. 14 at 1 s: measured after the climb ({causes.LATER_S} s later), PERT/PI's "
            f"utilization is within {FIG14_UTILIZATION_GAP:g} of router PI-ECN's or above it, as the paper claims.",
            u1s[1] >= u1s_pi[1] - FIG14_UTILIZATION_GAP,
            f"PERT/PI {u1s[0]:.3f} -> {u1s[1]:.3f}; router PI-ECN {u1s_pi[0]:.3f} -> {u1s_pi[1]:.3f} (the paper's window -> "
            "later)",
        ),
        Claim(
            "Fig. 14 at 100 ms: PERT/PI is less fair than router PI because each flow's PI integral starts with the flow: at "
            "the same queueing delay, flows that started earlier carry a higher early-response probability (Spearman rank "
            f"correlation of start time with it at most -{RANK_STRONG:g}) and take less (of it with goodput at most -{RANK_STRONG:g}).",
            offsets["rank_start_p"] <= -RANK_STRONG and offsets["rank_p_goodput"] <= -RANK_STRONG,
            f"rank correlations: start time with probability {offsets['rank_start_p']:.2f}, probability with goodput "
            f"{offsets['rank_p_goodput']:.2f}; the flows' mean probabilities over the window from {offsets['p_low']:.4f} to "
            f"{offsets['p_high']:.4f} (means over seeds); the flows' measured minimum RTTs spread over "
            f"{offsets['min_rtt_spread_ms']:.2f} ms, so the base-RTT effect of Fig. 7 at 20 ms plays no part",
        ),
        Claim(
            f"Fig. 14 at 100 ms: with every flow starting within {causes.STARTS_TOGETHER} (the integrals begin together) the "
            f"Jain index's gap to 1 falls to at most {JAIN_GAP_FACTOR:g} of the paper's scenario's.",
            1 - jain100[1] <= JAIN_GAP_FACTOR * (1 - jain100[0]),
            f"Jain {jain100[0]:.3f} -> {jain100[1]:.3f}",
        ),
    ]


def _claims(summary: pl.DataFrame) -> list[Claim]:
    v = _Summary(summary)
    return [*_fig7_claims(v), *_fig8_claims(v), *_table1_claims(v), *_fig14_claims(v)]


def _run(quick: bool, out: Path, workers: Workers) -> Report:
    mode = sc.QUICK if quick else sc.FULL
    runs, summary = causes.run_causes(mode, out, workers)
    return Report(
        name="sigcomm07-causes",
        title="Tests of the explanations of Figures 7's, 8's and 14's and Table 1's differences",
        source=PAPER,
        mode=mode.name,
        out_dir=out,
        claims=_claims(summary),
        tables={"summary": summary, "runs": runs},
        notes=[
            "Each case runs the paper's scenario (baseline) beside the changes that our explanation says remove the "
            "difference, or measures on the paper's scenario what the explanation says happens there (fig8-1000); a "
            "claim that does not hold means the explanation is wrong or incomplete. Thresholds of the claims were set "
            "before the runs (module constants), except CLIMB_FRACTION, JAIN_GAP_FACTOR, INFLATED_SHARE_FACTOR, GIVEN_P_FACTOR and WEB_SRTT_FACTOR, set "
            "after exploratory runs (their comments say what those showed). Later runs (fig14-10ms, fig14-1s) are made "
            "LATER_S longer and measured that much later. Setup as sigcomm07-fig7, -fig8, -fig14 and -table1; "
            f"{mode.duration} runs, metrics over {mode.warmup}..{mode.measure_end}, seeds {', '.join(map(str, mode.seeds))}.",
        ],
    )


#: The metric each case's explanation is about, for the figure (the cases with a changed
#: scenario: fig8-1000 measures on the paper's alone).
FIGURE_METRIC = {"fig7-10ms": "drop_rate", "fig7-200ms": "utilization", "fig7-20ms": "jain", "fig14-10ms": "drop_rate", "fig14-1s": "utilization", "fig14-100ms": "jain", "table1": "drop_rate"}


def plot(summary: pl.DataFrame, path: Path) -> None:
    from ..plots import saved_figure

    with saved_figure(path, 1, len(FIGURE_METRIC), figsize=(15.5, 3.2), title="The paper's scenario (baseline) and the change each explanation predicts a fix from") as (_, axes):
        for ax, (case, metric) in zip(axes, FIGURE_METRIC.items()):
            part = summary.filter(pl.col("case") == case)
            ax.bar(part["variant"].to_list(), part[metric].to_list(), color=["0.6"] + ["C0"] * (part.height - 1))
            ax.set_title(f"{case}: {metric.replace('_', ' ')}", fontsize=9)
            ax.tick_params(axis="x", labelsize=7)
            ax.set_xticks(range(part.height), part["variant"].to_list(), rotation=30, ha="right")


def _figures(report: Report) -> list[Figure]:
    summary = report.tables["summary"]
    caption = ("Per case with a changed scenario, the metric the explanation is about, mean over seeds: the paper's scenario (grey) and the changed "
               "ones (blue). The claims give the numbers.")  # fmt: skip
    return [Figure("causes.png", caption, lambda path: plot(summary, path))]


register(Entry(
    "sigcomm07-causes", "Explanations of Figures 7's, 8's and 14's and Table 1's differences, tested", PAPER, _run, _figures,
    lambda quick: wire_of(causes.points(sc.QUICK if quick else sc.FULL)),
))  # fmt: skip
