"""Runs that test our explanations of where the PERT paper's Figure 7 and Table 1 differ
from ours (docs/reproductions.md, sigcomm07-fig7 and sigcomm07-table1).

Each explanation predicts what one change to the paper's scenario does; each case here runs
the paper's scenario (``baseline``) beside the changed one, with the same seeds:

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
- ``table1``: the 150-packet buffer (12 ms of queueing) is below 2 t_max too. Prediction: with
  2 t_max of buffer PERT's drop rate falls by an order of magnitude, toward the paper's 3.98e-6.

Modes are sigcomm07's (FULL: 400 s, three seeds; QUICK: 150 s, one seed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import polars as pl

from ..parallel import Workers
from ..scenario import Scenario
from ..sweep import Point, run_points, stored_results
from . import sigcomm07 as sc

__all__ = ["CASES", "Case", "points", "run_causes"]

#: PERT's t_max (Section 3; pertlab.scenario.Pert's default) and the bottleneck of Fig. 7 and Table 1.
T_MAX_S = 0.010
BOTTLENECK_BPS = 150e6
PACKET_BYTES = 1500
#: The RTT at which the paper's 5 / 10 ms thresholds are set (Section 4: the 60 ms default path).
REFERENCE_RTT_MS = 60.0
#: Starts in the first second (the paper's: 50 s).
EARLY_START = "1s"
#: ns-2's random send overhead of the kotla08 mixes (``Agent/TCP overhead_``).
SEND_OVERHEAD = "1ms"

PERT = sc.SCHEMES[0]
RED_ECN = sc.SCHEMES[2]


def two_t_max_buffer() -> int:
    """Packets of the bottleneck that hold 2 t_max of queueing."""
    return math.ceil(2 * T_MAX_S * BOTTLENECK_BPS / (8 * PACKET_BYTES))


def _scaled_thresholds(rtt_ms: float) -> dict[str, dict[str, str]]:
    k = rtt_ms / REFERENCE_RTT_MS
    return {"pert": {"t_min": f"{5 * k:.6f}ms", "t_max": f"{10 * k:.6f}ms"}}


@dataclass(frozen=True)
class Case:
    """One explanation: the paper's scenario and the changed ones, by variant name."""

    name: str
    variants: dict[str, Callable[[sc.Mode, int], Scenario]]


def _early(mode: sc.Mode) -> sc.Mode:
    return replace(mode, start_window=EARLY_START)


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
    Case("table1", {
        "baseline": lambda m, s: sc.table1_scenario(PERT, m, s),
        "buffer_2tmax": lambda m, s: sc._dumbbell(
            PERT, m, s, bw="150Mbps", rtt=list(sc.TABLE1_RTTS), flows=10, web_sessions=100, buffer_pkts=two_t_max_buffer()
        ),
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


def run_causes(mode: sc.Mode, out: Path, workers: Workers = Workers()) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(runs, summary): one row per run (with :func:`base_rtt_effect`), and per case and variant
    the mean over seeds of the bottleneck's queue, drop rate, utilization, the Jain index and
    the base-RTT effect."""
    pts = points(mode)
    runs = run_points(pts, out, jobs=workers.jobs, cluster=workers.cluster, on_progress=None)
    effect = pl.DataFrame([{"key": p.key, **base_rtt_effect(stored_results(p, out))} for p in pts])
    runs = runs.join(effect, on="key", how="left")
    metrics = ("avg_queue_norm", "drop_rate", "utilization", "jain", "rank_min_rtt_goodput", "min_rtt_spread_ms")
    summary = runs.group_by("case", "variant", maintain_order=True).agg(pl.len().alias("seeds"), *(pl.col(m).mean() for m in metrics))
    return runs, summary
