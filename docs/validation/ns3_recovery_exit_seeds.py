"""The `100mbps` case of `pertlab validate ns3` for several seeds and ns-3 controllers (docs/validation.md,
"Random loss, short RTTs, 100 Mbit/s"): per seed, pertlab once, then the ns-3 program once per
controller, with the matrix's arguments (as `validate/ns3.py` runs a seed); one JSON line per run.

Build the experiment program first: apply ns3_recovery_exit_experiment.diff to a copy of the
repository and point PERTLAB_ROOT and PERTLAB_NS3_CACHE at the copy. Then

    PERTLAB_ROOT=COPY PERTLAB_NS3_CACHE=COPY/cache python docs/validation/ns3_recovery_exit_seeds.py \
        1,2,3,4 ,ns3::TcpLinuxRenoNoExitCredit,ns3::TcpLinuxRenoNoExitCreditCntReset

An empty controller is the case's own (TcpLinuxReno); `TypeId+Attribute=Value` adds one
Config::SetDefault to the run (e.g. `ns3::TcpLinuxRenoNoExitCreditCntReset+ResetCount=false`).
The program's stderr (entries into recovery and loss in the window) is in "stderr".
"""

import json
import subprocess
import sys
from pathlib import Path

# This folder holds the report folder ns3/, which would hide the ns3 wheel from ns3build.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from pertlab.runner import run
from pertlab.validate.cases import FULL
from pertlab.validate.compare import metrics
from pertlab.validate.ns3 import CWND_SAMPLE_S
from pertlab.validate.ns3build import program
from pertlab.validate.translate import ns3_arguments

case = next(c for c in FULL if c.name == "100mbps")
binary = str(program())
for seed in (int(s) for s in sys.argv[1].split(",")):
    sc = case.scenario(seed)
    sc = sc.model_copy(update={"monitor": sc.monitor.model_copy(update={"sample_interval": round(CWND_SAMPLE_S * 1e9), "flows": [0]})})
    r = run(sc)
    print(json.dumps({"seed": seed, "tool": "pertlab", **metrics(r.bottleneck, r.flows["goodput_mbps"].to_numpy(), r.jain)}), flush=True)
    for tcp in sys.argv[2].split(","):
        type_id, _, attribute = tcp.partition("+")
        args = ns3_arguments(sc, r.flows["start_s"].to_list(), CWND_SAMPLE_S, type_id or None)
        if attribute:
            args = [f"{a}|{type_id}::{attribute}" if a.startswith("--defaults=") else a for a in args]
        p = subprocess.run([binary, *args], capture_output=True, text=True, check=True)
        m = json.loads(p.stdout)
        d = sc.dumbbell
        arrivals = max(m["arrivals"], 1)
        queue = {"avg_queue_pkts": m["avg_queue_pkts"], "drop_rate": m["drops"] / arrivals, "mark_rate": m["marks"] / arrivals,
                 "utilization": m["tx_bytes"] * 8 / (d.bottleneck_rate * m["window_s"])}  # fmt: skip
        print(json.dumps({"seed": seed, "tool": tcp or "ns-3", "stderr": p.stderr.strip(), **metrics(queue, m["rx_bytes"])}), flush=True)
