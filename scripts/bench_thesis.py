"""Wall time of the two largest runs of Kotla's thesis (issue 7), written to BENCHMARKS.md
between the ``bench-thesis`` markers. Called by scripts/bench.sh (``make bench``).

- one adaptive PERT flow on 2.4 Gbit/s / 70 ms (Figure 23), 100 simulated seconds;
- 1000 flows, a 50-50 mix of adaptive PERT and SACK on 150 Mbit/s / 60 ms (Figure 8's last
  point), the thesis's full 400 s;
- 1000 adaptive PERT flows alone on 500 Mbit/s (Figure 19's last point), 400 s.
Each is run once (they take seconds to minutes; criterion's repetitions are for the short
canonical run) and reported with its events, events/s and what it simulated.
"""

from __future__ import annotations

import resource
import sys
import time

import pertlab
from bench_block import write_block
from pertlab.experiments import kotla08 as k


def runs() -> list[tuple[str, pertlab.Scenario]]:
    full = k.FULL
    single = k.highspeed_points(k.HighSpeed(2.4e9, (2.4e9,), "100s", "50s", (1,)))
    return [
        ("1 adaptive PERT flow, 2.4 Gbit/s, 70 ms, 100 s", next(p.scenario for p in single if dict(p.values)["scheme"] == k.PERT)),
        ("1000 flows (500 PERT + 500 SACK), 150 Mbit/s, 60 ms, 400 s", k.kotla_dumbbell(k.mix(500, 500), full, 1)),
        ("1000 adaptive PERT flows, 500 Mbit/s, 60 ms, 400 s", k.kotla_dumbbell(f"{k.PERT}:1000", full, 1, bw=500e6)),
    ]


def main() -> None:
    rows = []
    for name, scenario in runs():
        t = time.perf_counter()
        r = pertlab.run(scenario)
        wall = time.perf_counter() - t
        b = r.bottleneck
        events = r.data["events"]
        rows.append(f"| {name} | {wall:.1f} | {events / 1e6:.0f} M | {events / wall / 1e6:.1f} M | {b['utilization']:.3f} | {b['drop_rate']:.2e} |")
        print(rows[-1], file=sys.stderr)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    write_block("bench-thesis", [
        "**Kotla 2008's largest runs** (issue 7; `scripts/bench_thesis.py`, through the Python front,",
        f"one run each, same machine; peak RSS of the process {rss:.0f} MiB):",
        "",
        "| run | wall s | events | events/s | bottleneck utilization | drop rate |",
        "|---|---|---|---|---|---|",
        *rows,
    ])  # fmt: skip


if __name__ == "__main__":
    main()
