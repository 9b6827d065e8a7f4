"""Cost of a congestion controller written in Python against the core's, on the canonical dumbbell
(150 Mbit/s, 60 ms, 50 flows, DropTail) shortened to SECONDS simulated (default 10): Rust Reno,
Reno written in Python (examples/python_cc/reno.py) on every flow, on 25 of the 50 and on one.
Medians of ROUNDS alternated rounds (default 3). The extra wall time over Rust, divided by the
ACKs the Python flows received, is the cost per ACK; a Python controller slows only the flows
that use it when a mixed run's extra time is that cost times the Python flows' ACKs.
Run: .venv/bin/python scripts/bench_python_models.py [SECONDS] [ROUNDS]
(figures in BENCHMARKS.md, "Models written in Python")."""

import statistics
import sys
from pathlib import Path

import pertlab

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "python_cc"))
seconds = sys.argv[1] if len(sys.argv) > 1 else "10"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
# Measured from 0 (warmup 0) so that the ACK counts are those of the whole run, every hook call.
base = dict(bw="150Mbps", rtt="60ms", flows=50, queue="droptail", duration=f"{seconds}s", warmup="0s")
cases = {"rust": "reno", "python": "py:reno:Reno", "half python": "py:reno:Reno:25,reno:25", "one python": "py:reno:Reno:1,reno:49"}
walls: dict[str, list[float]] = {k: [] for k in cases}
results = {}
pertlab.run(pertlab.dumbbell(**{**base, "duration": "1s"}, cc=cases["one python"]))  # imports, warm caches
for _ in range(rounds):
    for name, cc in cases.items():
        results[name] = pertlab.run(pertlab.dumbbell(**base, cc=cc))
        # The core's own wall time of the run (building the world and results included).
        walls[name].append(results[name].data["wall_seconds"])

wall = {k: statistics.median(v) for k, v in walls.items()}
# ACKs the senders received = ACKs the receivers sent (minus the few in flight at the end).
acks = {k: r.flows["acks_sent"] for k, r in results.items()}
events = {k: r.summary["events"] for k, r in results.items()}
assert events["rust"] == events["python"], "Reno in Python must give the bytes of Rust Reno"
per_ack_us = (wall["python"] - wall["rust"]) / acks["python"].sum() * 1e6
print(f"canonical dumbbell, {seconds} s simulated, medians of {rounds} rounds")
for k in cases:
    print(f"  {k:10s}  wall {wall[k]:7.3f} s  events {events[k]:>10,}  ACKs {int(acks[k].sum()):>10,}")
print(f"  Rust Reno per event: {wall['rust'] / events['rust'] * 1e9:.0f} ns; per ACK (whole run / ACKs): {wall['rust'] / acks['rust'].sum() * 1e9:.0f} ns")
print(f"  Python Reno: {per_ack_us:.2f} us more per ACK")
for name, n in (("half python", 25), ("one python", 1)):
    mine = int(acks[name][:n].sum())
    print(f"  {name}: its {n} Python flows received {mine:,} ACKs -> predicted extra {per_ack_us * mine / 1e6:.3f} s, measured {wall[name] - wall['rust']:.3f} s")
