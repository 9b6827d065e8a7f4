#!/usr/bin/env bash
# Byte-identity of results between two builds of the canonical example (issue 21:
# speed work must not change any result). Writes each build's full results JSON
# for a few queue kinds and flow counts and compares them.
# Usage: scripts/check_identical.sh OLD_BIN NEW_BIN [SECONDS]
set -euo pipefail
old=$1; new=$2; seconds=${3:-100}
dir=$(mktemp -d)
status=0
for run in "50 droptail" "50 red" "50 pie" "50 codel" "200 droptail"; do
  set -- $run
  "$old" "$1" "$seconds" "$2" "$dir/old.json" >/dev/null
  "$new" "$1" "$seconds" "$2" "$dir/new.json" >/dev/null
  if cmp -s "$dir/old.json" "$dir/new.json"; then
    echo "identical: $1 flows, $2 ($(wc -c <"$dir/new.json") bytes)"
  else
    echo "DIFFERENT: $1 flows, $2"; status=1
  fi
done
rm -rf "$dir"
exit $status
