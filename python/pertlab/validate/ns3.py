"""``pertlab validate ns3``: the cases of :mod:`.cases` in pertlab and in ns-3, side by side.

Each task runs one case: the pertlab scenario first (its flows' start times, drawn from
the seed, are then handed to ns-3), then the ns-3 program with the translated arguments
(:mod:`.translate`), unless the scenario uses something ns-3 lacks, which is recorded as
"not in ns-3". Tasks go through :class:`pertlab.parallel.Workers`, so a run is stored per
case and an interrupted matrix resumes; the stored key includes the ns-3 program's, so a
changed C++ source runs again.

Both sides measure the same things over the scenario's window: the time-weighted
bottleneck backlog in packets, drops and marks per packet arriving at the bottleneck,
utilization (bits sent / capacity x window), Jain's index and the coefficient of
variation of the flows' goodput, and flow 0's congestion window every
:data:`CWND_SAMPLE_S`.
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..parallel import Workers
from ..run import run
from .cases import FULL, QUICK, Case
from .ns3build import program
from .tolerance import METRICS, TOLERANCES
from .translate import NotInNs3, ns3_arguments

__all__ = ["CaseResult", "run_case", "run_matrix", "verdicts", "CWND_SAMPLE_S"]

#: The interval of the congestion-window series of flow 0, seconds.
CWND_SAMPLE_S = 0.1


@dataclass(frozen=True)
class CaseResult:
    case: Case
    pertlab: dict[str, float]
    ns3: dict[str, float] | None
    not_in_ns3: str | None
    cwnd: dict[str, list[tuple[float, float]]]
    seconds: dict[str, float]


def _spread(goodputs: np.ndarray) -> tuple[float, float]:
    """(Jain's index, coefficient of variation) of per-flow goodputs."""
    mean = goodputs.mean()
    if mean <= 0:
        return float("nan"), float("nan")
    return float(goodputs.sum() ** 2 / (len(goodputs) * (goodputs**2).sum())), float(goodputs.std() / mean)


def run_case(item: tuple[Case, str]) -> CaseResult:
    """Run one case in both tools (``item``: the case and the ns-3 program's path)."""
    c, ns3_program = item
    scenario = c.scenario()
    scenario = scenario.model_copy(
        update={"monitor": scenario.monitor.model_copy(update={"sample_interval": round(CWND_SAMPLE_S * 1e9), "flows": [0]})}
    )
    t0 = time.perf_counter()
    r = run(scenario)
    seconds = {"pertlab": time.perf_counter() - t0}
    b = r.bottleneck
    jain, cov = _spread(r.flows["goodput_mbps"].to_numpy())
    ours = {"avg_queue_pkts": b["avg_queue_pkts"], "drop_rate": b["drop_rate"], "mark_rate": b["mark_rate"],
            "utilization": b["utilization"], "jain": jain, "goodput_cov": cov}  # fmt: skip
    fs = r.flow_series.filter(flow=0)
    cwnd = {"pertlab": list(zip(fs["t_s"].to_list(), fs["cwnd"].to_list()))}
    try:
        args = ns3_arguments(scenario, r.flows["start_s"].to_list(), CWND_SAMPLE_S)
    except NotInNs3 as e:
        return CaseResult(c, ours, None, str(e), cwnd, seconds)
    t0 = time.perf_counter()
    p = subprocess.run([ns3_program, *args], capture_output=True, text=True)
    seconds["ns3"] = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"ns-3 failed on case {c.name} ({p.returncode}): {p.stderr[-2000:]}")
    m = json.loads(p.stdout)
    arrivals = max(m["arrivals"], 1)
    d = scenario.dumbbell
    assert d is not None
    jain, cov = _spread(np.array(m["rx_bytes"], dtype=float))
    theirs = {"avg_queue_pkts": m["avg_queue_pkts"], "drop_rate": m["drops"] / arrivals, "mark_rate": m["marks"] / arrivals,
              "utilization": m["tx_bytes"] * 8 / (d.bottleneck_rate * m["window_s"]), "jain": jain, "goodput_cov": cov}  # fmt: skip
    cwnd["ns3"] = [tuple(x) for x in m["cwnd"]]
    return CaseResult(c, ours, theirs, None, cwnd, seconds)


def run_matrix(quick: bool, out: Path, jobs: int | None = None, cluster: str | None = None) -> list[CaseResult]:
    """Every case of the quick or full matrix, stored under ``out/runs`` and resumed from there."""
    cases = QUICK if quick else FULL
    binary = str(program())
    return Workers(jobs, cluster, store=out / "runs").map(run_case, [(c, binary) for c in cases])


def verdicts(result: CaseResult) -> dict[str, str]:
    """Per metric: "agrees", "explained" (outside the tolerance in the direction the case
    explains), "differs" (outside, unexplained), "explained difference not seen" (inside
    the tolerance or the other way round), or "not in ns-3"."""
    if result.ns3 is None:
        return {m: "not in ns-3" for m in METRICS}
    explained = {e.metric: e.direction for e in result.case.explained}
    out: dict[str, str] = {}
    for metric in METRICS:
        a, b = result.pertlab[metric], result.ns3[metric]
        agrees = TOLERANCES[metric].agrees(a, b)
        if metric not in explained:
            out[metric] = "agrees" if agrees else "differs"
        elif not agrees and (a > b) == (explained[metric] == "higher"):
            out[metric] = "explained"
        else:
            out[metric] = "explained difference not seen"
    return out


def ratio(a: float, b: float) -> float:
    return a / b if b else (1.0 if a == b else float("inf"))


def rows(results: list[CaseResult]) -> list[dict[str, Any]]:
    """One row per case and metric: both values, their ratio and the verdict."""
    table = []
    for r in results:
        v = verdicts(r)
        for metric in METRICS:
            ours = r.pertlab[metric]
            theirs = None if r.ns3 is None else r.ns3[metric]
            table.append({
                "case": r.case.name, "what": r.case.what, "metric": metric, "pertlab": ours, "ns3": theirs,
                "ratio": None if theirs is None else ratio(ours, theirs), "verdict": v[metric],
                "reason": r.not_in_ns3 or next((e.anchor for e in r.case.explained if e.metric == metric), ""),
            })  # fmt: skip
    return table
