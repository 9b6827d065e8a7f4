#!/usr/bin/env bash
# Instruction counts of the canonical dumbbell (issue 21): callgrind on a
# shortened run, repeatable whatever the load of the machine (wall time is not).
# Usage: scripts/profile.sh [FLOWS] [SECONDS] [QUEUE KIND]   (default 50 10 droptail)
# BIN=path profiles that build of the example instead (e.g. an older copy), and
# OUT=path names the callgrind output (default target/callgrind.out).
# Prints the total instructions, per event, and the top functions (inclusive of
# nothing: self cost, with inlined code counted in its caller).
set -euo pipefail
cd "$(dirname "$0")/.."
flows=${1:-50}; seconds=${2:-10}; kind=${3:-droptail}
bin=${BIN:-target/release/examples/canonical}
[ -n "${BIN:-}" ] || cargo build --release -q -p pertlab-sim --example canonical
out=${OUT:-target/callgrind.out}
valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$flows" "$seconds" "$kind" \
  2>target/callgrind.log | tee target/callgrind.summary
events=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])' < target/callgrind.summary)
total=$(grep -o 'Collected : [0-9]*' target/callgrind.log | grep -o '[0-9]*$')
echo "instructions: $total  events: $events  per event: $(python3 -c "print(round($total/$events, 1))")"
callgrind_annotate "$out" 2>/dev/null | sed -n '/^Ir/,$p' | head -40
