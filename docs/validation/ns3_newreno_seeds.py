"""The `newreno` and `sack-10` cases of `pertlab validate ns3` with ns-3's retransmission timer restarted
(docs/validation.md, "NewReno without SACK"): per case and seed, pertlab once, then the ns-3 program three
times with the matrix's arguments: as it is, with the timer restarted when a sender retransmits SND.UNA
(`--headRestart=1`), and with that and without the recovery-exit credit
(`--tcp=ns3::TcpLinuxRenoNoExitCredit`). One JSON line per run: drops per arrival, utilization and Jain's
index as the matrix computes them, and the senders' counts in the measurement window (pertlab: its
flows' counters; ns-3: entries into fast recovery and into loss recovery, data segments sent and those
resent).

Build the experiment program first: `git apply docs/validation/ns3_newreno_experiment.diff` in a copy of
the repository (the timer experiment of ns3_timer_vegas_experiment.diff, the controllers of
ns3_recovery_exit_experiment.diff and a count of resent segments from the sockets' `Tx` trace), and
point PERTLAB_ROOT and PERTLAB_NS3_CACHE at the copy:

    PERTLAB_ROOT=COPY PERTLAB_NS3_CACHE=COPY/cache python docs/validation/ns3_newreno_seeds.py newreno,sack-10 1,2,3
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
from pertlab.validate.ns3 import reference_metrics
from pertlab.validate.ns3build import program
from pertlab.validate.translate import ns3_arguments

binary = str(program())
COUNTS = ("recoveries", "timeouts", "segments", "retransmissions")
for name in sys.argv[1].split(","):
    case = next(c for c in FULL if c.name == name)
    for seed in (int(s) for s in sys.argv[2].split(",")):
        sc = case.scenario(seed)
        r = run(sc)
        f = r.flows
        ours = metrics(r.bottleneck, f["goodput_mbps"].to_numpy(), r.jain)
        counts = {k: sum(f[c].to_list()) for k, c in zip(COUNTS, ("fast_recoveries", "timeouts", "segments_sent", "retransmits"))}
        print(json.dumps({"case": name, "seed": seed, "tool": "pertlab", **{k: ours[k] for k in ("drop_rate", "utilization", "jain")}, **counts}), flush=True)
        for tool, restart, tcp in (("ns-3", 0, None), ("ns-3, timer restarted", 1, None), ("ns-3, timer restarted, no credit", 1, "ns3::TcpLinuxRenoNoExitCredit")):
            args = ns3_arguments(sc, f["start_s"].to_list(), 0, tcp or case.ns3_tcp) + [f"--headRestart={restart}"]
            p = subprocess.run([binary, *args], capture_output=True, text=True, check=True)
            theirs = reference_metrics(sc, json.loads(p.stdout))
            counts = dict(zip(COUNTS, (int(x) for x in p.stderr.split()[1::2])))
            print(json.dumps({"case": name, "seed": seed, "tool": tool, **{k: theirs[k] for k in ("drop_rate", "utilization", "jain")}, **counts}), flush=True)
