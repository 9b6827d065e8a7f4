"""The PERT paper's single-bottleneck comparison (Bhandarkar et al., SIGCOMM
2007, Section 4), redone in the simulator.

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
comparison; ``OUT/queue.png``,
``OUT/cwnd.png`` and ``OUT/throughput.png`` show the four runs side by side.
``quick=True`` shortens the runs (for tests and a first look).

The paper prints numbers for this comparison only as points of its Figures
6 to 8 (not in the text) and in Table 1, which is a *different* scenario
(10 flows with RTTs 12..120 ms plus 100 web sessions; reproduced by
`pertlab reproduce` once issue 3 lands). So the table states the paper's
qualitative claims for this point instead of numbers: PERT has near-zero
drops and a queue below SACK/DropTail's, close to SACK/RED-ECN's.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import polars as pl

from .builders import dumbbell
from .experiments.sigcomm07 import Scheme
from .parallel import run_tasks
from .plots import write_figures
from .results import Results
from .runner import run

__all__ = ["SCHEMES", "PAPER_CLAIMS", "scenario_for", "run_demo"]


#: Section 4's four schemes, labelled with their queue as the demo's table shows them.
SCHEMES = (
    Scheme("PERT/DropTail", "pert-droptail", "pert", "droptail"),
    Scheme("SACK/DropTail", "sack-droptail", "sack", "droptail"),
    Scheme("SACK/RED-ECN", "sack-red-ecn", "sack", "ared", ecn=True),
    Scheme("Vegas/DropTail", "vegas-droptail", "vegas", "droptail"),
)

#: What Section 4 of the paper says of each scheme at this kind of point (Figs. 6-8).
PAPER_CLAIMS = {
    "PERT/DropTail": "near-zero drops; queue like (or below) SACK/RED-ECN's; Jain near 1",
    "SACK/DropTail": "high queue and drops; Jain near 1",
    "SACK/RED-ECN": "low queue, zero losses in most cases (marks instead)",
    "Vegas/DropTail": "no drops, high utilization; queue can exceed SACK/DropTail's; low fairness",
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


def _run_one(task: tuple[Scheme, bool, int, Path]) -> tuple[str, float]:
    scheme, quick, seed, out = task
    started = time.perf_counter()
    run(scenario_for(scheme, quick, seed)).write(out / scheme.slug)
    return scheme.label, time.perf_counter() - started


def run_demo(out_dir: str | Path = "demo-out", *, quick: bool = False, seed: int = 1, jobs: int | None = None) -> pl.DataFrame:
    """Run the four schemes (in parallel over ``jobs`` processes), write every
    file, and return the comparison table."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    def report(_i: int, done: tuple[str, float]) -> None:
        print(f"{done[0]}: simulated in {done[1]:.1f} s", file=sys.stderr)

    run_tasks(_run_one, [(s, quick, seed, out) for s in SCHEMES], report, jobs=jobs)

    runs = {s.label: Results.read(out / s.slug) for s in SCHEMES}
    table = comparison_table(runs)
    table.write_csv(out / "table.csv")
    (out / "table.md").write_text(markdown_table(table))
    write_figures(runs, out)
    return table


def comparison_table(runs: dict[str, Results]) -> pl.DataFrame:
    """One row per scheme: the bottleneck's metrics and the paper's claim."""
    rows = []
    for label, r in runs.items():
        b = r.bottleneck or {}
        rows.append(
            {
                "scheme": label,
                "avg_queue_norm": b.get("avg_queue_norm"),
                "drop_rate": b.get("drop_rate"),
                "mark_rate": b.get("mark_rate"),
                "utilization": b.get("utilization"),
                "jain": r.jain,
                "paper_claim": PAPER_CLAIMS[label],
            }
        )
    return pl.DataFrame(rows)


def markdown_table(table: pl.DataFrame) -> str:
    """The comparison as a Markdown table, with the paper's claim per scheme."""
    lines = [
        "| scheme | avg queue (norm.) | drop rate | mark rate | utilization | Jain index | paper (Section 4) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in table.iter_rows(named=True):
        lines.append(
            f"| {r['scheme']} | {r['avg_queue_norm']:.2f} | {r['drop_rate']:.2e} | {r['mark_rate']:.2e} "
            f"| {100 * r['utilization']:.2f} % | {r['jain']:.2f} | {r['paper_claim']} |"
        )
    return "\n".join(lines) + "\n"
