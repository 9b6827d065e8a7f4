#!/usr/bin/env bash
# Paired A/B of two builds of the canonical example, alternated so that the load
# of the machine falls on both alike (issue 21). Reports the medians and their
# ratio for the wall time of the run (printed by the example) and for the CPU
# time of the process (user + system, less sensitive to a loaded machine).
# Usage: scripts/ab_wall.sh OLD_BIN NEW_BIN [ROUNDS] [FLOWS] [SECONDS]
set -euo pipefail
exec python3 - "$@" <<'PY'
import json, resource, statistics, subprocess, sys

old, new = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 7
args = [sys.argv[4] if len(sys.argv) > 4 else "50", sys.argv[5] if len(sys.argv) > 5 else "100"]

def run(binary):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([binary, *args], capture_output=True, text=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(out)["wall_seconds"], cpu

runs = {old: [], new: []}
for _ in range(rounds):
    for binary in (old, new):
        runs[binary].append(run(binary))
for i, what in enumerate(("wall", "cpu")):
    a = [r[i] for r in runs[old]]
    b = [r[i] for r in runs[new]]
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"{what}: old median {ma:.3f} s, new median {mb:.3f} s, new/old {mb / ma:.3f}")
PY
