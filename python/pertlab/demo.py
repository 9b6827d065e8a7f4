"""The PERT paper's single-bottleneck comparison (Bhandarkar et al., SIGCOMM
2007, Section 4 and Table 1), redone in the simulator.

Scenario (as the paper states it): 150 Mbps bottleneck, 60 ms end-to-end
round-trip propagation delay, 50 long-lived flows starting uniformly in
(0, 50) s, buffer = bandwidth-delay product (at least 2 x flows), 400 s runs,
metrics over 100..300 s. Four schemes:

- PERT over DropTail,
- SACK over DropTail,
- SACK over adaptive RED with ECN marking,
- Vegas over DropTail.

Each scheme's results go to ``OUT/<scheme>/`` (Parquet + JSON, see
:mod:`pertlab.results`); ``OUT/table.csv`` and ``OUT/table.md`` hold the
comparison, with the paper's Table 1 alongside; ``OUT/queue.png``,
``OUT/cwnd.png`` and ``OUT/throughput.png`` show the four runs side by side.
``quick=True`` shortens the runs (for tests and a first look).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from .builders import dumbbell
from .plots import write_figures
from .results import Results
from .run import run

__all__ = ["SCHEMES", "PAPER_TABLE_1", "scenario_for", "run_demo"]


@dataclass(frozen=True)
class Scheme:
    label: str
    slug: str
    cc: str
    queue: str
    ecn: bool = False


SCHEMES = (
    Scheme("PERT/DropTail", "pert-droptail", "pert", "droptail"),
    Scheme("SACK/DropTail", "sack-droptail", "sack", "droptail"),
    Scheme("SACK/RED-ECN", "sack-red-ecn", "sack", "ared", ecn=True),
    Scheme("Vegas/DropTail", "vegas-droptail", "vegas", "droptail"),
)

#: Table 1 of the paper: normalized average queue Q, drop rate p, utilization U (%), Jain index F.
PAPER_TABLE_1 = {
    "PERT/DropTail": (0.28, 3.98e-06, 93.81, 0.86),
    "SACK/DropTail": (0.42, 7.18e-04, 93.77, 0.44),
    "SACK/RED-ECN": (0.41, 4.95e-04, 93.90, 0.51),
    "Vegas/DropTail": (0.07, 0.0, 99.99, 0.98),
}

# (duration, start window, measurement window) of the full and the quick run.
FULL = ("400s", "50s", ("100s", "300s"))
QUICK = ("30s", "5s", ("10s", "30s"))
FLOWS_SAMPLED = [0, 1, 2, 3]


def scenario_for(scheme: Scheme, quick: bool = False, seed: int = 1):
    duration, start_window, (warmup, end) = QUICK if quick else FULL
    return dumbbell(
        bw="150Mbps",
        rtt="60ms",
        flows=50,
        cc=scheme.cc,
        queue=scheme.queue,
        ecn=scheme.ecn,
        duration=duration,
        buffer_bdp=1.0,
        start_window=start_window,
        warmup=warmup,
        measure_end=end,
        seed=seed,
        sample_interval="100ms",
        monitor_flows=FLOWS_SAMPLED,
    )


def _run_one(scheme: Scheme, quick: bool, seed: int, out: Path) -> tuple[str, float]:
    started = time.perf_counter()
    run(scenario_for(scheme, quick, seed)).write(out / scheme.slug)
    return scheme.label, time.perf_counter() - started


def run_demo(out_dir: str | Path = "demo-out", *, quick: bool = False, seed: int = 1, jobs: int | None = None) -> pl.DataFrame:
    """Run the four schemes (in parallel over ``jobs`` processes), write every
    file, and return the comparison table."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = jobs or min(len(SCHEMES), os.cpu_count() or 1)
    # Spawned, not forked, workers: forking a process that runs polars' thread pool can deadlock.
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_run_one, s, quick, seed, out) for s in SCHEMES]
        for f in futures:
            label, seconds = f.result()
            print(f"{label}: simulated in {seconds:.1f} s", file=sys.stderr)

    runs = {s.label: Results.read(out / s.slug) for s in SCHEMES}
    table = comparison_table(runs)
    table.write_csv(out / "table.csv")
    (out / "table.md").write_text(markdown_table(table))
    write_figures(runs, out)
    return table


def comparison_table(runs: dict[str, Results]) -> pl.DataFrame:
    """One row per scheme: the bottleneck's metrics and the paper's."""
    rows = []
    for label, r in runs.items():
        b = r.bottleneck or {}
        q, p, u, f = PAPER_TABLE_1[label]
        rows.append(
            {
                "scheme": label,
                "avg_queue_norm": b.get("avg_queue_norm"),
                "drop_rate": b.get("drop_rate"),
                "mark_rate": b.get("mark_rate"),
                "utilization": b.get("utilization"),
                "jain": r.jain,
                "paper_avg_queue_norm": q,
                "paper_drop_rate": p,
                "paper_utilization": u / 100,
                "paper_jain": f,
            }
        )
    return pl.DataFrame(rows)


def markdown_table(table: pl.DataFrame) -> str:
    """The comparison as a Markdown table: measured value, then the paper's in brackets."""
    lines = [
        "| scheme | avg queue (norm.) | drop rate | utilization | Jain index |",
        "|---|---|---|---|---|",
    ]
    for r in table.iter_rows(named=True):
        lines.append(
            f"| {r['scheme']} | {r['avg_queue_norm']:.2f} ({r['paper_avg_queue_norm']:.2f}) "
            f"| {r['drop_rate']:.2e} ({r['paper_drop_rate']:.2e}) "
            f"| {100 * r['utilization']:.2f} % ({100 * r['paper_utilization']:.2f} %) "
            f"| {r['jain']:.2f} ({r['paper_jain']:.2f}) |"
        )
    return "\n".join(lines) + "\n\nIn brackets: Table 1 of the PERT paper (SIGCOMM 2007).\n"
