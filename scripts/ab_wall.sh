#!/usr/bin/env bash
# Paired wall-time A/B of two builds of the canonical example, alternated so that
# the load of the machine falls on both alike (issue 21). Reports the medians and
# their ratio. Usage: scripts/ab_wall.sh OLD_BIN NEW_BIN [ROUNDS] [FLOWS] [SECONDS]
set -euo pipefail
old=$1; new=$2; rounds=${3:-7}; flows=${4:-50}; seconds=${5:-100}
a=(); b=()
for _ in $(seq "$rounds"); do
  a+=("$("$old" "$flows" "$seconds" | python3 -c 'import json,sys; print(json.load(sys.stdin)["wall_seconds"])')")
  b+=("$("$new" "$flows" "$seconds" | python3 -c 'import json,sys; print(json.load(sys.stdin)["wall_seconds"])')")
done
python3 - "${a[*]}" "${b[*]}" <<'PY'
import statistics, sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
ma, mb = statistics.median(a), statistics.median(b)
print(f"old: median {ma:.4f} s  {sorted(a)}")
print(f"new: median {mb:.4f} s  {sorted(b)}")
print(f"new/old: {mb/ma:.3f}")
PY
