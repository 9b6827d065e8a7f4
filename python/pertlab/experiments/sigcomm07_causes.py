"""Runs that test our explanations of where the PERT paper's Figures 7, 8 and 14 and Table 1
differ from ours (docs/reproductions.md, sigcomm07-fig7, -fig8, -fig14 and -table1).

Each explanation predicts what a change to the paper's scenario does, or what happens in the
paper's scenario itself; each case here runs the paper's scenario (``baseline``) beside the
changed ones, with the same seeds:

- ``fig7-10ms``: at 10 ms the one-BDP buffer holds less queueing than PERT's 2 t_max (its
  response probability reaches 1 at 2 t_max = 20 ms), so PERT cannot respond before the buffer
  overflows. Prediction: with a buffer of 2 t_max of queueing PERT's drops all but vanish.
- ``fig7-200ms``: PERT's fixed 5 / 10 ms thresholds are 2.5-5 % of the BDP at 200 ms, and a
  35 % cut empties such a queue and idles the link (eq. (1) of the paper asks for 54 % of a BDP).
  Prediction: thresholds scaled with the RTT (5 / 10 ms at the paper's 60 ms reference, times
  RTT / 60 ms) raise PERT's utilization to SACK/RED-ECN's, which adapts to the RTT.
- ``fig7-20ms``: flows that start late (starts are spread over 50 s) measure the standing
  queue into their minimum RTT, under-estimate their queueing delay and respond less, hence
  the Jain index of 0.83. Predictions: a flow's goodput rises with the minimum RTT it measured;
  with every flow starting in the first second, before a queue stands, the Jain index is as
  high as at the other RTTs. A third variant adds ns-2's random send overhead (up to 1 ms, as
  the kotla08 mixes do) to show how much phase effects (Floyd and Jacobson 1992) contribute.
- ``fig14-10ms``: at 10 ms PERT/PI drops packets and holds a longer queue than router PI-ECN.
  50 flows share a BDP of 125 packets, windows of a few packets, which need a high early
  response probability; PI's integral term, with router PI's gains, raises it slowly (by
  (a - b) per sample and unit of error). Prediction: measured :data:`LATER_S` later (the runs
  made that much longer, the window moved with them) PERT/PI no longer drops (Figure 14's
  1e-4) and its queue is within 0.1 of the buffer of router PI-ECN's.
- ``fig14-1s``: at 1 s, PERT/PI's utilization over 100..300 s is below router PI-ECN's. At
  that RTT a flow's fair window is 250 packets and congestion avoidance adds one per RTT, so the
  50 flows refill the pipe at 50 / (RTT^2 C) = 0.4 % of capacity per second: the window
  measures how far below the BDP each scheme left slow start, not a steady state. Predictions:
  PERT/PI's utilization climbs through the window at close to that rate, and measured
  :data:`LATER_S` later PERT/PI's utilization is within Figure 14's 5 points of router
  PI-ECN's, or above it.
- ``fig14-100ms``: between 20 and 200 ms PERT/PI is less fair than router PI (Jain 0.75 at
  100 ms against 1.0). Each flow runs its own PI law, whose integral starts when the flow
  starts; the flows see the same queueing delay afterwards, so the integrals differ by what the
  earlier starters integrated before the later ones began, and the difference stays.
  Predictions: flows that started earlier carry a higher response probability at the same delay
  and take less; with every flow starting within :data:`STARTS_TOGETHER` the Jain index's gap to
  1 at least halves.
- ``fig8-1000``: with 1000 flows PERT's Jain index falls below 0.9 and its queue rises to
  several times RED-ECN's. A flow's window is a few packets there; the flows' least windows
  together hold a standing queue above 2 t_max, where PERT responds on every RTT and cannot give
  back more, and flows that start while it stands count it into their minimum RTT, see little
  queueing delay and take more. Predictions (no change to the scenario): the median flow's
  response probability is 1 at a window of a few packets, and the flows whose minimum RTT
  exceeds the least one by more than t_min take a larger share than their number.
- ``table1``: the 150-packet buffer (12 ms of queueing) is below 2 t_max too. Prediction: with
  2 t_max of buffer PERT's drop rate falls by an order of magnitude, toward the paper's 3.98e-6.
  It falls by less on the full run; a third variant tests where the drops left come from: the
  same buffer without the web sessions. Two more test why the web transfers overflow it, each
  changing the web transfers' PERT alone: given their path's RTT as P (``base_rtt =
  "propagation"``), in case their P, a sample taken with the queue standing, hides the queue
  from them; and with :data:`WEB_SRTT_WEIGHT`, in case their ``srtt_0.99``, which moves 1 % of
  the way to each sample, barely leaves its first over a transfer of a few segments.

Modes are sigcomm07's (FULL: 400 s, three seeds; QUICK: 150 s, one seed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np
import polars as pl

from ..parallel import Workers
from ..scenario import Scenario, WebSpec
from ..sweep import Point, run_points, stored_results
from ..units import format_time, parse_time
from . import sigcomm07 as sc

__all__ = ["CASES", "Case", "additive_climb_per_s", "points", "run_causes", "web_srtt_progress"]

#: PERT's t_min and t_max (Section 3; pertlab.scenario.Pert's defaults) and the bottleneck of
#: Figures 7 and 14 and Table 1.
T_MIN_S = 0.005
T_MAX_S = 0.010
BOTTLENECK_BPS = 150e6
PACKET_BYTES = 1500
#: The RTT at which the paper's 5 / 10 ms thresholds are set (Section 4: the 60 ms default path).
REFERENCE_RTT_MS = 60.0
#: Starts in the first second (the paper's: 50 s).
EARLY_START = "1s"
#: Figure 8's largest point and its path (sigcomm07.FIGURES["fig8"]).
FIG8_FLOWS = 1000
FIG8_BPS = 500e6
FIG8_RTT_S = 0.060
#: Starts close enough for the flows' PI integrals to begin together (Fig. 14 at 100 ms).
STARTS_TOGETHER = "10ms"
#: The RTT of Fig. 14 where PERT/PI is least fair (committed sigcomm07-fig14 report).
FIG14_LEAST_FAIR_RTT_S = 0.100
#: ns-2's random send overhead of the kotla08 mixes (``Agent/TCP overhead_``).
SEND_OVERHEAD = "1ms"
#: Figure 14's longest RTT, its flows, and the sampling of the time series (the bottleneck's
#: utilization, the flows' response probabilities) that Figures 8's and 14's cases measure on.
FIG14_LONGEST_RTT_S = 1.0
FIG14_FLOWS = 50
SAMPLE_INTERVAL = "1s"
#: How much later the "later" runs of Figure 14's cases measure (their duration, warm-up and
#: window end all move by this): 100..300 s becomes 600..800 s of a 900 s run. Exploratory
#: runs of seeds 1-3: at 1 s PERT/PI leaves slow start near a third of capacity and climbs
#: 0.3 to 0.4 % of it per second, so the climb is over by about 300 s; at 10 ms PERT/PI's
#: queue is down to router PI-ECN's by 600 s.
LATER_S = 500
#: The web transfers' srtt weight in Table 1's test of the signal's lag: 7/8, RFC 6298's (TCP's
#: own RTT smoothing, alpha = 1/8), against PERT's 0.99.
WEB_SRTT_WEIGHT = 0.875
#: A web object's mean size in segments (ns-2's web-traffic.tcl default, ``WebSpec``'s).
WEB_OBJECT_SEGMENTS: float = WebSpec.model_fields["object_mean_segments"].default
#: The stretch before the measurement window whose utilization is reported: in the paper's
#: scenario, from the last flow's start (50 s) to the window (100 s), where slow start has ended.
BEFORE_WINDOW_S = 50.0

PERT = sc.SCHEMES[0]
RED_ECN = sc.SCHEMES[2]
PERT_PI, PI_ECN = sc.PI_SCHEMES


def fig8_fair_window() -> float:
    """Packets per flow that Figure 8's largest point holds in flight with a full buffer:
    (BDP + buffer) / flows, the buffer being one BDP."""
    bdp = FIG8_BPS * FIG8_RTT_S / (8 * PACKET_BYTES)
    return 2 * bdp / FIG8_FLOWS


def additive_climb_per_s() -> float:
    """How fast congestion avoidance refills Figure 14's pipe at 1 s, in utilization per second:
    each flow adds a packet per RTT, so the aggregate rate grows by flows / RTT^2 packets/s per
    second, against a capacity of C packets/s."""
    capacity_pps = BOTTLENECK_BPS / (8 * PACKET_BYTES)
    return FIG14_FLOWS / (FIG14_LONGEST_RTT_S**2 * capacity_pps)


def web_srtt_progress(weight: float) -> float:
    """How far an srtt of history weight ``weight`` moves from its first sample toward a new
    level of the RTT over a web object's mean number of segments (one sample each): 1 - w^n."""
    return 1 - weight**WEB_OBJECT_SEGMENTS


def two_t_max_buffer() -> int:
    """Packets of the bottleneck that hold 2 t_max of queueing."""
    return math.ceil(2 * T_MAX_S * BOTTLENECK_BPS / (8 * PACKET_BYTES))


def _scaled_thresholds(rtt_ms: float) -> dict[str, dict[str, str]]:
    k = rtt_ms / REFERENCE_RTT_MS
    return {"pert": {"t_min": f"{5 * k:.6f}ms", "t_max": f"{10 * k:.6f}ms"}}


def _table1_2t_max(mode: sc.Mode, seed: int, web_sessions: int = 100, **kw) -> Scenario:
    """Table 1's scenario (its ten RTTs, 100 web sessions) with 2 t_max of buffer; ``web``
    changes the web transfers' settings (their controller is PERT's, as the flows')."""
    return sc._dumbbell(
        PERT, mode, seed, bw="150Mbps", rtt=list(sc.TABLE1_RTTS), flows=10, web_sessions=web_sessions, buffer_pkts=two_t_max_buffer(), **kw
    )


@dataclass(frozen=True)
class Case:
    """One explanation: the paper's scenario and the changed ones, by variant name."""

    name: str
    variants: dict[str, Callable[[sc.Mode, int], Scenario]]


def _early(mode: sc.Mode) -> sc.Mode:
    return replace(mode, start_window=EARLY_START)


def _measured_later(mode: sc.Mode) -> sc.Mode:
    def later(t: str) -> str:
        return format_time(parse_time(t) + LATER_S * 1e9)

    return replace(mode, duration=later(mode.duration), warmup=later(mode.warmup), measure_end=later(mode.measure_end))


def _fig14(scheme: sc.Scheme, mode: sc.Mode, seed: int, rtt_s: float, every_flow: bool = False) -> Scenario:
    """Figure 14's scenario at ``rtt_s``, with the bottleneck and flow 0 (or every flow) sampled."""
    return sc._dumbbell(
        scheme, mode, seed, bw="150Mbps", rtt=f"{rtt_s * 1000:g}ms", flows=FIG14_FLOWS,
        sample_interval=SAMPLE_INTERVAL, monitor_flows=None if every_flow else [0],
    )  # fmt: skip


def _fig14_case(rtt_s: float) -> Case:
    """Figure 14's scenario at ``rtt_s``, PERT/PI (baseline) and router PI-ECN, each also
    measured :data:`LATER_S` later."""

    def make(scheme: sc.Scheme, later: bool) -> Callable[[sc.Mode, int], Scenario]:
        return lambda m, s: _fig14(scheme, _measured_later(m) if later else m, s, rtt_s)

    name = f"fig14-{rtt_s:g}s" if rtt_s >= 1 else f"fig14-{rtt_s * 1000:g}ms"
    return Case(name, {
        "baseline": make(PERT_PI, False), "pi_ecn": make(PI_ECN, False),
        "later": make(PERT_PI, True), "pi_ecn_later": make(PI_ECN, True),
    })  # fmt: skip


CASES = (
    Case("fig7-10ms", {
        "baseline": lambda m, s: sc._dumbbell(PERT, m, s, bw="150Mbps", rtt="10ms", flows=50),
        "buffer_2tmax": lambda m, s: sc._dumbbell(PERT, m, s, bw="150Mbps", rtt="10ms", flows=50, buffer_pkts=two_t_max_buffer()),
    }),
    Case("fig7-200ms", {
        "baseline": lambda m, s: sc._dumbbell(PERT, m, s, bw="150Mbps", rtt="200ms", flows=50),
        "scaled_thresholds": lambda m, s: sc._dumbbell(PERT, m, s, bw="150Mbps", rtt="200ms", flows=50, cc_params=_scaled_thresholds(200)),
        "sack_red_ecn": lambda m, s: sc._dumbbell(RED_ECN, m, s, bw="150Mbps", rtt="200ms", flows=50),
    }),
    Case("fig7-20ms", {
        "baseline": lambda m, s: sc._dumbbell(PERT, m, s, bw="150Mbps", rtt="20ms", flows=50),
        "early_starts": lambda m, s: sc._dumbbell(PERT, _early(m), s, bw="150Mbps", rtt="20ms", flows=50),
        "send_overhead": lambda m, s: sc._dumbbell(PERT, m, s, bw="150Mbps", rtt="20ms", flows=50, tcp={"overhead": SEND_OVERHEAD}),
    }),
    _fig14_case(0.010),
    _fig14_case(FIG14_LONGEST_RTT_S),
    Case("fig14-100ms", {
        "baseline": lambda m, s: _fig14(PERT_PI, m, s, FIG14_LEAST_FAIR_RTT_S, every_flow=True),
        "starts_together": lambda m, s: _fig14(PERT_PI, replace(m, start_window=STARTS_TOGETHER), s, FIG14_LEAST_FAIR_RTT_S, every_flow=True),
    }),
    Case("fig8-1000", {
        "baseline": lambda m, s: sc._dumbbell(
            PERT, m, s, bw=f"{FIG8_BPS / 1e6:g}Mbps", rtt=f"{FIG8_RTT_S * 1000:g}ms", flows=FIG8_FLOWS, sample_interval=SAMPLE_INTERVAL
        ),
    }),
    Case("table1", {
        "baseline": lambda m, s: sc.table1_scenario(PERT, m, s),
        "buffer_2tmax": lambda m, s: _table1_2t_max(m, s),
        "buffer_2tmax_no_web": lambda m, s: _table1_2t_max(m, s, web_sessions=0),
        "buffer_2tmax_web_path_rtt": lambda m, s: _table1_2t_max(m, s, web={"cc": {"kind": "pert", "base_rtt": "propagation"}}),
        "buffer_2tmax_web_srtt": lambda m, s: _table1_2t_max(m, s, web={"cc": {"kind": "pert", "srtt_weight": WEB_SRTT_WEIGHT}}),
    }),
)  # fmt: skip


def points(mode: sc.Mode) -> list[Point]:
    return [
        Point((("case", c.name), ("variant", v)), seed, make(mode, seed))
        for c in CASES
        for v, make in c.variants.items()
        for seed in mode.seeds
    ]


def base_rtt_effect(results) -> dict[str, float]:
    """How the flows' shares follow the minimum RTT each measured: the Spearman rank
    correlation of goodput with measured minimum RTT, and that minimum's spread (ms)."""
    from ..reproduce.registry import rank_correlation

    f = results.flows
    spread = float(f["rtt_min_ms"].max() - f["rtt_min_ms"].min())
    rho = rank_correlation(f["rtt_min_ms"].to_list(), f["goodput_mbps"].to_list()) if spread > 0 else float("nan")
    return {"rank_min_rtt_goodput": rho, "min_rtt_spread_ms": spread}


def _in_window(series: pl.DataFrame, results) -> pl.DataFrame:
    """The samples of ``series`` that end an interval of the run's measurement window."""
    return series.filter(pl.col("t_s").is_between(results.summary["window_start_s"], results.summary["window_end_s"], closed="right"))


def utilization_climb(results) -> dict[str, float]:
    """Where a run has the bottleneck's utilization sampled: its slope over the measurement
    window (least squares, per second) and its mean over the :data:`BEFORE_WINDOW_S` before the
    window. NaN elsewhere."""
    q = results.bottleneck_series
    if q.is_empty():
        return {"climb_per_s": float("nan"), "utilization_before": float("nan")}
    start = results.summary["window_start_s"]
    window = _in_window(q, results)
    before = q.filter(pl.col("t_s").is_between(start - BEFORE_WINDOW_S, start, closed="right"))
    slope = float(np.polyfit(window["t_s"].to_numpy(), window["utilization"].to_numpy(), 1)[0])
    return {"climb_per_s": slope, "utilization_before": float(before["utilization"].mean())}


#: What :func:`flow_probabilities` returns, NaN where it does not apply.
FLOW_PROBABILITY_METRICS = (
    "rank_start_p", "rank_p_goodput", "p_low", "p_high", "p_median", "cwnd_median", "inflated_fraction", "inflated_share",
)  # fmt: skip


def flow_probabilities(results) -> dict[str, float]:
    """Where every flow's early-response probability is sampled (PERT variants), from each
    flow's means over the window: the Spearman rank correlation of start time with probability
    and of probability with goodput; the range and median of the probabilities and the median
    window; and the flows whose measured minimum RTT exceeds the least of them by more than
    PERT's t_min (they took standing queue into it), as a fraction of the flows and as their
    share of the goodput. NaN elsewhere."""
    from ..reproduce.registry import rank_correlation

    series = results.flow_series
    if series.is_empty() or series["p_response"].null_count() == series.height or series["flow"].n_unique() < results.flows.height:
        return dict.fromkeys(FLOW_PROBABILITY_METRICS, float("nan"))
    means = _in_window(series, results).group_by("flow", maintain_order=True).agg(pl.col("p_response", "cwnd").mean())
    f = results.flows.join(means, left_on="id", right_on="flow")
    inflated = f["rtt_min_ms"] > f["rtt_min_ms"].min() + T_MIN_S * 1000
    return {
        "rank_start_p": rank_correlation(f["start_s"].to_list(), f["p_response"].to_list()),
        "rank_p_goodput": rank_correlation(f["p_response"].to_list(), f["goodput_mbps"].to_list()),
        "p_low": float(f["p_response"].min()),
        "p_high": float(f["p_response"].max()),
        "p_median": float(f["p_response"].median()),
        "cwnd_median": float(f["cwnd"].median()),
        "inflated_fraction": float(inflated.mean()),
        "inflated_share": float(f.filter(inflated)["goodput_mbps"].sum() / f["goodput_mbps"].sum()),
    }


def web_throughput(results) -> dict[str, float]:
    """The web objects' throughput over the window (Mbit/s), NaN without web sessions."""
    web = results.web
    return {"web_mbps": float("nan") if web is None else web["throughput_mbps"]}


def _effects(results) -> dict[str, float]:
    return {**base_rtt_effect(results), **utilization_climb(results), **flow_probabilities(results), **web_throughput(results)}


def run_causes(mode: sc.Mode, out: Path, workers: Workers = Workers()) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(runs, summary): one row per run (with :func:`base_rtt_effect`, :func:`utilization_climb`,
    :func:`flow_probabilities` and :func:`web_throughput`), and per case and variant
    the mean over seeds of the bottleneck's queue, drop rate, utilization, the Jain index, the
    base-RTT effect, the utilization's climb, the flows' response probabilities and the web
    throughput."""
    pts = points(mode)
    runs = run_points(pts, out, jobs=workers.jobs, cluster=workers.cluster, on_progress=None)
    effect = pl.DataFrame([{"key": p.key, **_effects(stored_results(p, out))} for p in pts])
    runs = runs.join(effect, on="key", how="left")
    metrics = ("avg_queue_norm", "drop_rate", "utilization", "jain", "rank_min_rtt_goodput", "min_rtt_spread_ms", "climb_per_s", "utilization_before",
               *FLOW_PROBABILITY_METRICS, "web_mbps")  # fmt: skip
    summary = runs.group_by("case", "variant", maintain_order=True).agg(pl.len().alias("seeds"), *(pl.col(m).mean() for m in metrics))
    return runs, summary
