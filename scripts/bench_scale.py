"""The core at scale (issue 21: "a `scale` section ... with flows from 50 to 10,000 and rates from
10 Mbit/s to 10 Gbit/s, each point's wall time, events/s and peak memory, and a plot"), written to
BENCHMARKS.md between the ``bench-scale`` markers and to docs/benchmarks/scale.png. Called by
scripts/bench.sh (``make bench``).

Each point is the canonical dumbbell (SACK, DropTail, a BDP of buffer, 100 s) with one thing
changed: the number of flows at 150 Mbit/s and 60 ms, or the bottleneck rate with 100 flows. It
runs as its own process, the core alone (``examples/scenario``, built here, given the scenario the
Python front writes), so its peak resident memory (Linux VmHWM, which the process reports) is the
run's. Wall time and events are the core's own report.
The memory per flow is the slope of the peak between the two largest flow counts.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import pertlab
from bench_block import machine, write_block

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release" / "examples" / "scenario"
FIGURE = ROOT / "docs" / "benchmarks" / "scale.png"
#: Flow counts at the canonical 150 Mbit/s and rates with 100 flows (issue 21's ranges).
FLOWS = (50, 100, 1000, 5000, 10000)
RATES = ("10Mbps", "100Mbps", "1Gbps", "10Gbps")
RATE_FLOWS = 100


def run(scenario: pertlab.Scenario, work: pathlib.Path) -> dict:
    """The core's report of one run in its own process, with its peak resident memory (MiB)."""
    path = work / "scenario.json"
    path.write_text(scenario.to_wire_json())
    proc = subprocess.run([str(BIN), str(path)], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{BIN} failed: {proc.stderr}")
    report = json.loads(proc.stdout)
    report["peak_mib"] = report["peak_rss_kib"] / 1024
    return report


#: Runs of each point; the table gives the one of median wall time (single runs of the 1000-flow
#: point took 0.77 to 1.30 s on an idle machine, 2026-11-29).
REPEATS = 3


def median_run(scenario: pertlab.Scenario, work: pathlib.Path) -> dict:
    """:func:`run` :data:`REPEATS` times; the report of median wall time (the runs are identical
    but for their timing)."""
    reports = sorted((run(scenario, work) for _ in range(REPEATS)), key=lambda r: r["wall_seconds"])
    return reports[len(reports) // 2]


def row(what: str, r: dict) -> str:
    return f"| {what} | {r['wall_seconds']:.2f} | {r['events'] / 1e6:.1f} M | {r['events_per_second'] / 1e6:.1f} M | {r['peak_mib']:.0f} | {r['utilization']:.3f} |"


def plot(by_flows: dict[int, dict], by_rate: dict[str, dict]) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), constrained_layout=True)
    for ax, xs, points, label in ((axes[0], list(by_flows), list(by_flows.values()), "flows (150 Mbit/s, 60 ms)"),
                                  (axes[1], [pertlab.units.parse_rate(r) / 1e6 for r in by_rate], list(by_rate.values()), f"bottleneck rate, Mbit/s ({RATE_FLOWS} flows)")):  # fmt: skip
        ax.plot(xs, [p["events_per_second"] / 1e6 for p in points], "o-", color="tab:blue")
        ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("million events per second", color="tab:blue")
        ax.set_ylim(bottom=0)
        mem = ax.twinx()
        mem.plot(xs, [p["peak_mib"] for p in points], "s--", color="tab:red")
        mem.set_ylabel("peak memory, MiB", color="tab:red")
        mem.set_ylim(bottom=0)
    FIGURE.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIGURE, dpi=110)


def main() -> None:
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "pertlab-sim", "--example", "scenario"], cwd=ROOT, check=True)
    where = machine()
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        by_flows = {n: median_run(pertlab.dumbbell(flows=n), work) for n in FLOWS}
        by_rate = {r: median_run(pertlab.dumbbell(bw=r, flows=RATE_FLOWS), work) for r in RATES}
    plot(by_flows, by_rate)
    big, bigger = FLOWS[-2], FLOWS[-1]
    per_flow = (by_flows[bigger]["peak_mib"] - by_flows[big]["peak_mib"]) * 2**20 / (bigger - big)
    header = ["| run | wall s | events | events/s | peak MiB | bottleneck utilization |", "|---|---|---|---|---|---|"]
    write_block("bench-scale", [
        "**The core at scale** (issue 21; `scripts/bench_scale.py`: the canonical dumbbell, SACK, DropTail, a BDP",
        f"of buffer, 100 s, with one thing changed; each run its own process, the core alone, the median of {REPEATS} runs; peak resident memory",
        "as the process reports it). Figure: [docs/benchmarks/scale.png](docs/benchmarks/scale.png).",
        where,
        "",
        *header,
        *(row(f"{n} flows, 150 Mbit/s, 60 ms", r) for n, r in by_flows.items()),
        *(row(f"{RATE_FLOWS} flows, {rate.replace('bps', 'bit/s').replace('M', ' M').replace('G', ' G')}, 60 ms", r) for rate, r in by_rate.items()),
        "",
        f"Memory per flow (the peak's slope from {big} to {bigger} flows): {per_flow / 1024:.1f} KiB.",
    ])  # fmt: skip


if __name__ == "__main__":
    main()
