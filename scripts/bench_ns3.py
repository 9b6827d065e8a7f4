"""pertlab against ns-3 on the canonical dumbbell, both run here, written to BENCHMARKS.md between
the ``bench-ns3`` markers. Called by scripts/bench.sh (``make bench``).

The scenario is the canonical dumbbell (150 Mbit/s, 60 ms, 50 SACK flows starting in the first
10 s, DropTail with a BDP of buffer, 100 s) with the one TCP option ns-3 cannot take otherwise:
the RTO's floor on the whole RTO (``validate.cases.COMMON_TCP``, as every case of
``pertlab validate ns3``). ns-3 is the program of ``pertlab validate ns3`` (native/ns3/dumbbell.cc,
built against the ns3 wheel of requirements.lock), given the scenario through
``validate.translate`` with pertlab's flows' start times, so both tools run the same network,
traffic and measurement window.

Each of ROUNDS rounds runs, in turn, as whole processes:
- the core alone: ``examples/scenario`` on the scenario's wire JSON;
- the Python API as a user calls it: a fresh interpreter that imports pertlab, loads the
  scenario and runs it (``pertlab.run``, the results built as polars frames);
- ns-3.
Each is timed in wall time and in CPU time (user + system, from the operating system's
accounting of the finished child); the ratios are ns-3's over pertlab's, per round, and their
median. What each tool measured (utilization, drops per arrival, average queue, Jain's index of
the goodputs) is printed beside the times: the same work, not only the same inputs.

Run: .venv/bin/python scripts/bench_ns3.py [ROUNDS] (default 3; an ns-3 run takes minutes).
"""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

from bench_block import machine, timed, write_block

from pertlab.builders import dumbbell
from pertlab.runner import run
from pertlab.validate.cases import COMMON_TCP
from pertlab.validate.ns3 import pertlab_metrics, reference_metrics
from pertlab.validate.ns3build import program, wheel_version
from pertlab.validate.translate import ns3_arguments

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCENARIO_BIN = ROOT / "target" / "release" / "examples" / "scenario"
#: The project's aim: at least this many times ns-3's speed on the same scenario.
AIM = 100
#: What the fresh interpreter of the Python API run does.
PYTHON_RUN = "import sys; from pertlab import run; from pertlab.scenario import Scenario; run(Scenario.load(sys.argv[1]))"


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "pertlab-sim", "--example", "scenario"], cwd=ROOT, check=True)
    ns3 = program()
    where = machine()
    scenario = dumbbell(flows=50, start_window="10s", warmup=0, duration="100s", tcp=COMMON_TCP)
    r = run(scenario)
    ours = pertlab_metrics(r)
    args = ns3_arguments(scenario, r.flows["start_s"].to_list())
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "canonical.json"
        path.write_text(scenario.to_wire_json())
        commands = {"core": [str(SCENARIO_BIN), str(path)], "python": [sys.executable, "-c", PYTHON_RUN, str(path)], "ns3": [str(ns3), *args]}
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        outputs: dict[str, str] = {}
        for _ in range(rounds):
            for name, cmd in commands.items():
                wall, cpu_s, outputs[name] = timed(cmd)
                runs[name].append((wall, cpu_s))
    load_end = os.getloadavg()[0]
    events = json.loads(outputs["core"])["events"]
    theirs = reference_metrics(scenario, json.loads(outputs["ns3"]))
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
    # ns-3's (wall, CPU) time over each of pertlab's, per round, and their medians.
    ratio = {name: tuple(statistics.median(n[i] / o[i] for n, o in zip(runs["ns3"], runs[name])) for i in (0, 1)) for name in ("core", "python")}
    print(json.dumps({"medians": med, "ratios": ratio, "pertlab": ours, "ns3": theirs}), file=sys.stderr)
    aim = {name: "meets" if ratio[name][1] >= AIM else "does not meet" for name in ratio}
    write_block("bench-ns3", [
        "**Against ns-3** (`scripts/bench_ns3.py`: the canonical dumbbell, 50 SACK flows, 150 Mbit/s, 60 ms, DropTail,",
        f"100 s, with ns-3's RTO floor, in pertlab and in ns-3 {wheel_version()} (the program of `pertlab validate ns3`, the",
        "same flows' start times). Each tool a whole process; pertlab's core alone (`examples/scenario`) and through",
        "the Python API (a fresh interpreter: import, load the scenario, `pertlab.run`).",
        f"{where[:-1]}, {load_end:.1f} at the end: {rounds} rounds, the three in turn.",
        "",
        "| | pertlab, core alone | pertlab, Python API | ns-3 |",
        "|---|---|---|---|",
        f"| wall s, median | {med['core'][0]:.2f} | {med['python'][0]:.2f} | {med['ns3'][0]:.1f} |",
        f"| CPU s, median (user + system) | {med['core'][1]:.2f} | {med['python'][1]:.2f} | {med['ns3'][1]:.1f} |",
        f"| ns-3's CPU time over this, median of the rounds | {ratio['core'][1]:.0f} | {ratio['python'][1]:.0f} | |",
        f"| ns-3's wall time over this, median of the rounds | {ratio['core'][0]:.0f} | {ratio['python'][0]:.0f} | |",
        f"| bottleneck utilization | {ours['utilization']:.4f} | (the same run) | {theirs['utilization']:.4f} |",
        f"| drops per packet arriving at the bottleneck | {ours['drop_rate']:.5f} | | {theirs['drop_rate']:.5f} |",
        f"| average bottleneck queue, packets | {ours['avg_queue_pkts']:.1f} | | {theirs['avg_queue_pkts']:.1f} |",
        f"| Jain's index of the goodputs | {ours['jain']:.4f} | | {theirs['jain']:.4f} |",
        "",
        f"pertlab ran {events / 1e6:.2f} M events. The project aims at {AIM} times ns-3's speed on the same scenario: in CPU time",
        f"this run {aim['core']} it with the core alone and {aim['python']} it through the Python API.",
    ])  # fmt: skip


if __name__ == "__main__":
    main()
