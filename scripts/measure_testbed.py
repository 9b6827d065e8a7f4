#!/usr/bin/env python3
"""Measure the testbed's delay line and the bottleneck rates it sustains
(docs/linux.md). Run as root from the venv:

    .venv/bin/python scripts/measure_testbed.py [--rates 10,100,200,500,1000] [--cc cubic] [--delayed-ack]

For each rate: one run of `duration` seconds with `flows` bulk flows, 20 ms
of round-trip delay and a one-BDP bfifo; prints a markdown table of the
utilization, idle and loaded ping, and the delay line's release lateness.
"""

from __future__ import annotations

import argparse

from pertlab.linux import testbed
from pertlab.linux.scenario import TestbedScenario


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rates", default="10,100,200,500,1000")
    ap.add_argument("--cc", default="cubic")
    ap.add_argument("--flows", type=int, default=2)
    ap.add_argument("--delay-ms", type=float, default=20)
    ap.add_argument("--duration", type=float, default=8)
    ap.add_argument("--delayed-ack", action="store_true", help="Linux delayed ACKs (half the ACKs through the delay line)")
    args = ap.parse_args()
    print("| rate Mbit/s | cc x flows | utilization | goodput Mbit/s | idle ping median (min-max) ms | loaded ping median (max) ms | delay line late mean / max us | releases > 100 us late | ring drops |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in [float(x) for x in args.rates.split(",")]:
        sc = TestbedScenario.parse({
            "name": f"rate{r:g}", "bottleneck": {"rate": f"{r:g}Mbps", "delay": f"{args.delay_ms:g}ms"}, "duration": args.duration,
            "warmup": "2s", "flows": [{"cc": args.cc, "count": args.flows}], "delayed_ack": args.delayed_ack,
        })  # fmt: skip
        res = testbed.run(sc)
        q = res.queues.to_dicts()[0]
        gp = sum(res.flows["goodput_mbps"])
        pi, pl_, dl = res.extra["ping_idle_ms"], res.extra["ping_load_ms"], res.extra["delayline"]
        share = dl.get("late_over_100us", 0) / max(dl.get("released", 1), 1)
        print(
            f"| {r:g} | {args.cc} x {args.flows} | {q['utilization']:.3f} | {gp:.1f} | {pi['median']:.3f} ({pi['min']:.3f}-{pi['max']:.3f}) | "
            f"{pl_.get('median', float('nan')):.2f} ({pl_.get('max', float('nan')):.2f}) | {dl.get('late_mean_us', 0):.1f} / {dl.get('late_max_us', 0):.0f} | "
            f"{share:.2%} | {dl.get('ring_full_drops', 0)} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
