"""Events per second of the 1 Gbit/s points of Tahiliani's evaluation-suite sweep (issue 16:
"the 1 Gbps points of the sweeps run at the simulator's usual events per second"), beside the
canonical dumbbell measured the same way in the same process, written to BENCHMARKS.md between
the ``bench-suite`` markers. Called by scripts/bench.sh (``make bench``).

Each run goes through the Python front (``pertlab.run``), as the reproduction's runs do. The
figure is events per CPU second of the process (``time.process_time``), which a loaded machine
changes less than wall time; the canonical run is taken best of three, each suite point once
(they take tens of seconds).

Beside the sweep's points, the same suite with DropTail queues in both directions for three TCP
controllers: standing queues both ways at a high load, the traffic XCP's points carry. They test
the explanation that a point's events per second follow its load (packets inside the network),
not its controller: the last line of the block compares XCP's rate with theirs.
"""

from __future__ import annotations

import sys
import time

import pertlab
from bench_block import machine, write_block
from pertlab.reproduce.tahiliani_suite_entries import FULL, VARIANTS


#: TCP controllers run on the suite with DropTail queues (the load of XCP's points, not the sweep's).
DROPTAIL_CONTROLLERS = ("sack", "cubic", "hstcp")


def measure(scenario: pertlab.Scenario) -> tuple[float, int, dict]:
    """CPU seconds, events and the bottleneck summary of one run."""
    t = time.process_time()
    r = pertlab.run(scenario)
    return time.process_time() - t, r.data["events"], r.bottleneck


def main() -> None:
    where = machine()
    canonical = pertlab.dumbbell()
    cpu, events, _ = min(measure(canonical) for _ in range(3))
    base = events / cpu
    rows = [f"| canonical dumbbell (150 Mbit/s, 60 ms, 50 SACK flows, 100 s) | {cpu:.2f} | {events / 1e6:.1f} M | {base / 1e6:.1f} M | 1.00 | | |"]
    rates = {}
    points = [(variant, None) for variant in VARIANTS] + [(cc, "droptail") for cc in DROPTAIL_CONTROLLERS]
    for variant, queue in points:
        cc, pacing = ("xcp", True) if variant == "xcp-paced" else (variant, False)
        s = pertlab.eval_suite(cc, bw="1Gbps", rtt="80ms", duration=FULL.duration, warmup=FULL.warmup, pacing=pacing, queue=queue)
        cpu, events, b = measure(s)
        rates[(variant, queue)] = events / cpu
        name = f"suite, {variant}" + (", DropTail both ways" if queue else "")
        rows.append(
            f"| {name}, 1 Gbit/s, 80 ms, 100 s | {cpu:.2f} | {events / 1e6:.1f} M | {events / cpu / 1e6:.1f} M | {events / cpu / base:.2f} "
            f"| {b['utilization']:.3f} | {b['avg_queue_pkts']:.0f} |"
        )
        print(rows[-1], file=sys.stderr)
    xcp = rates[("xcp", None)]
    against = ", ".join(f"{xcp / rates[(cc, 'droptail')]:.2f} of {cc}'s" for cc in DROPTAIL_CONTROLLERS)
    compare = f"XCP's events per CPU second, against the TCP controllers on the suite with DropTail queues both ways: {against}."
    write_block("bench-suite", [
        "**Evaluation suite at 1 Gbit/s** (issue 16; `scripts/bench_suite.py`: Tahiliani's Figs. 4.10-4.12 at their",
        "largest point, seed 1, through the Python front; CPU seconds of the process, so events per CPU second;",
        "the canonical run measured the same way, best of three, in the same process).",
        where,
        "",
        "| run | CPU s | events | events per CPU s | vs canonical | bottleneck utilization | bottleneck queue (pkts) |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        compare,
    ])  # fmt: skip


if __name__ == "__main__":
    main()
