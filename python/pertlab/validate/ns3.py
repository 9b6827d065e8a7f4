"""``pertlab validate ns3``: the cases of :mod:`.cases` in pertlab and in ns-3, side by side.

Each task runs one case: the pertlab scenario first (its flows' start times, drawn from
the seed, are then handed to ns-3), then the ns-3 program with the translated arguments
(:mod:`.translate`), unless the scenario uses something ns-3 lacks, which is recorded as
"not in ns-3". Tasks go through :class:`pertlab.parallel.Workers`, so a run is stored per
case and an interrupted matrix resumes; the stored key includes the ns-3 program's, so a
changed C++ source runs again.

A case with several seeds (``Case.seeds``) runs each in both tools and compares the means
of the metrics. Both sides measure the same things over the scenario's window: the time-weighted
bottleneck backlog in packets, drops and marks per packet arriving at the bottleneck,
utilization (bits sent / capacity x window), Jain's index and the coefficient of
variation of the flows' goodput, and flow 0's congestion window every
:data:`CWND_SAMPLE_S`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from ..parallel import Workers, run_program
from ..runner import run
from ..scenario import Scenario
from .cases import Case, seeds, select
from .compare import CaseResult, metrics, pertlab_metrics
from .ns3build import program
from .translate import NotInNs3, ns3_arguments

__all__ = ["run_case", "run_matrix", "pertlab_metrics", "reference_metrics", "CWND_SAMPLE_S"]

#: The interval of the congestion-window series of flow 0, seconds.
CWND_SAMPLE_S = 0.1


def _run_seed(
    c: Case, seed: int, ns3_program: str
) -> tuple[dict[str, float], dict[str, float] | None, str | None, dict[str, list], dict[str, float]]:
    """One seed of a case in both tools: pertlab's metrics, ns-3's (None when ns-3 lacks
    something, with the reason), flow 0's cwnd series and the seconds each tool took."""
    scenario = c.scenario(seed)
    scenario = scenario.model_copy(
        update={"monitor": scenario.monitor.model_copy(update={"sample_interval": round(CWND_SAMPLE_S * 1e9), "flows": [0]})}
    )
    t0 = time.perf_counter()
    r = run(scenario)
    seconds = {"pertlab": time.perf_counter() - t0}
    ours = pertlab_metrics(r)
    fs = r.flow_series.filter(flow=0)
    cwnd = {"pertlab": list(zip(fs["t_s"].to_list(), fs["cwnd"].to_list()))}
    try:
        args = ns3_arguments(scenario, r.flows["start_s"].to_list(), CWND_SAMPLE_S, c.ns3_tcp)
    except NotInNs3 as e:
        return ours, None, str(e), cwnd, seconds
    t0 = time.perf_counter()
    p = run_program([ns3_program, *args])  # dies with this worker when a stop kills it
    seconds["reference"] = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"ns-3 failed on case {c.name} ({p.returncode}): {p.stderr[-2000:]}")
    m = json.loads(p.stdout)
    cwnd["reference"] = [tuple(x) for x in m["cwnd"]]
    return ours, reference_metrics(scenario, m), None, cwnd, seconds


def reference_metrics(scenario: Scenario, m: dict) -> dict[str, float]:
    """The metrics of :mod:`.tolerance` from the ns-3 program's output ``m`` (its JSON line) for
    ``scenario``, the dumbbell it was given."""
    arrivals = max(m["arrivals"], 1)
    d = scenario.dumbbell
    assert d is not None
    queue = {"avg_queue_pkts": m["avg_queue_pkts"], "drop_rate": m["drops"] / arrivals, "mark_rate": m["marks"] / arrivals,
             "utilization": m["tx_bytes"] * 8 / (d.bottleneck_rate * m["window_s"])}  # fmt: skip
    return metrics(queue, m["rx_bytes"])


def run_case(item: tuple[Case, str]) -> CaseResult:
    """Run one case in both tools (``item``: the case and the ns-3 program's path); with several
    seeds (``Case.seeds``) the metrics are the means over them, the cwnd series the first seed's
    and the seconds the sums."""
    c, ns3_program = item
    runs = [_run_seed(c, seed, ns3_program) for seed in seeds(c)]
    ours, theirs, missing, cwnd, _ = runs[0]
    seconds = {k: sum(r[4].get(k, 0.0) for r in runs) for k in runs[0][4]}
    return CaseResult.of_seeds(c, [r[0] for r in runs], None if missing is not None else [r[1] for r in runs], missing, cwnd, seconds)  # type: ignore[misc]


def run_matrix(quick: bool, out: Path, jobs: int | None = None, cluster: str | None = None, names: list[str] | None = None) -> list[CaseResult]:
    """Every case of the quick or full matrix, or the ``names``d ones (``cases.select``), stored
    under ``out/runs`` and resumed from there."""
    cases = select(names or [], quick)
    binary = str(program())
    return Workers(jobs, cluster, store=out / "runs").map(run_case, [(c, binary) for c in cases])
