"""Cost of models written in Python against the core's, on the canonical dumbbell (150 Mbit/s,
60 ms, 50 flows) shortened to SECONDS simulated (default 10), medians of ROUNDS alternated rounds
(default 3), measured from 0 (warm-up 0) so that the counts are those of the whole run, every
hook call. Times are the CPU time of the process during ``pertlab.run`` (the run is one thread):
unlike wall time, it does not grow with the load of a shared machine; the core's own wall time is
printed beside it.

Controllers (DropTail): Rust Reno, Reno written in Python (examples/python_cc/reno.py) on every
flow, on 25 of the 50 and on one. The extra CPU time over Rust, divided by the ACKs the Python
flows received, is the cost per ACK; a Python controller slows only the flows that use it when a
mixed run's extra time is that cost times the Python flows' ACKs.

Queue disciplines (Rust Reno flows): the core's RED against RED written in Python
(examples/python_aqm/red.py, ``enqueue`` and ``dequeue`` per packet) at the bottleneck, both with
ns-3's defaults. The extra CPU time divided by the packets that arrived at the bottleneck is the
cost per packet; the access links' queues stay Rust DropTail.

Run: .venv/bin/python scripts/bench_python_models.py [SECONDS] [ROUNDS]
(figures in BENCHMARKS.md, "Models written in Python")."""

import statistics
import sys
import time
from pathlib import Path

import pertlab

examples = Path(__file__).resolve().parents[1] / "examples"
sys.path[:0] = [str(examples / "python_cc"), str(examples / "python_aqm")]
seconds = sys.argv[1] if len(sys.argv) > 1 else "10"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
base = dict(bw="150Mbps", rtt="60ms", flows=50, duration=f"{seconds}s", warmup="0s")
cases = {
    "rust": dict(cc="reno", queue="droptail"),
    "python": dict(cc="py:reno:Reno", queue="droptail"),
    "half python": dict(cc="py:reno:Reno:25,reno:25", queue="droptail", flows=None),
    "one python": dict(cc="py:reno:Reno:1,reno:49", queue="droptail", flows=None),
    # The example's RED has ns-3's MeanPktSize (500 bytes); the builder would give the core's the flows' 1500.
    "rust red": dict(cc="reno", queue="red", aqm={"mean_pkt_size": 500}),
    "python red": dict(cc="reno", queue="py:red:Red"),
}
cpus: dict[str, list[float]] = {k: [] for k in cases}
cores: dict[str, list[float]] = {k: [] for k in cases}
results = {}
for warm in ("one python", "python red"):  # imports, warm caches
    pertlab.run(pertlab.dumbbell(**{**base, **cases[warm], "duration": "1s"}))
for _ in range(rounds):
    for name, kw in cases.items():
        scenario = pertlab.dumbbell(**{**base, **kw})
        started = time.process_time()
        results[name] = pertlab.run(scenario)
        cpus[name].append(time.process_time() - started)
        # The core's own wall time of the run (building the world and results included).
        cores[name].append(results[name].data["wall_seconds"])

cpu = {k: statistics.median(v) for k, v in cpus.items()}
core = {k: statistics.median(v) for k, v in cores.items()}
# ACKs the senders received = ACKs the receivers sent (minus the few in flight at the end).
acks = {k: r.flows["acks_sent"] for k, r in results.items()}
events = {k: r.summary["events"] for k, r in results.items()}
assert events["rust"] == events["python"], "Reno in Python must give the bytes of Rust Reno"
assert events["rust red"] == events["python red"], "RED in Python must give the bytes of Rust RED"
per_ack_us = (cpu["python"] - cpu["rust"]) / acks["python"].sum() * 1e6
print(f"canonical dumbbell, {seconds} s simulated, medians of {rounds} rounds")
for k in cases:
    b = results[k].bottleneck
    print(f"  {k:10s}  CPU {cpu[k]:7.3f} s (core wall {core[k]:7.3f} s)  events {events[k]:>10,}  ACKs {int(acks[k].sum()):>10,}  bottleneck arrivals {b['arrivals']:>9,}")
print(f"  Rust Reno per event: {cpu['rust'] / events['rust'] * 1e9:.0f} ns; per ACK (whole run / ACKs): {cpu['rust'] / acks['rust'].sum() * 1e9:.0f} ns")
print(f"  Python Reno: {per_ack_us:.2f} us more per ACK")
for name, n in (("half python", 25), ("one python", 1)):
    mine = int(acks[name][:n].sum())
    print(f"  {name}: its {n} Python flows received {mine:,} ACKs -> predicted extra {per_ack_us * mine / 1e6:.3f} s, measured {cpu[name] - cpu['rust']:.3f} s")
packets = results["python red"].bottleneck["arrivals"]
print(f"  Rust RED per event: {cpu['rust red'] / events['rust red'] * 1e9:.0f} ns")
print(f"  Python RED: {(cpu['python red'] - cpu['rust red']) / packets * 1e6:.2f} us more per packet at the bottleneck ({packets:,} packets, an enqueue and a dequeue call each)")
