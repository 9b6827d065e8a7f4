#!/usr/bin/env bash
# Measure the simulator on the canonical dumbbell and write BENCHMARKS.md.
# - criterion (cargo bench) for a statistically sound wall time of the 50-flow run;
# - the `canonical` example for events/s, packet-hops/s and peak memory, at
#   50 flows and at larger flow counts to show how memory grows.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -p pertlab-sim --example canonical
bin=target/release/examples/canonical

cargo bench -p pertlab-bench --bench dumbbell -- --noplot 2>&1 | tee target/criterion-output.txt
crit=$(grep -A1 'canonical_150mbps_50flows_100s' target/criterion-output.txt | grep -o 'time: *\[[^]]*\]' | head -1)

rows=""
for flows in 50 100 200 400; do
  line=$($bin "$flows" 100)
  rows+="$(python3 - "$line" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
print(f"| {r['flows']} | {r['wall_seconds']:.2f} | {r['events']/1e6:.1f} M | {r['events_per_second']/1e6:.1f} M | {r['packet_hops']/1e6:.1f} M | {r['packet_hops_per_second']/1e6:.1f} M | {r['peak_rss_kib']/1024:.1f} | {r['utilization']:.4f} |")
PY
)"$'\n'
done

# Cost per event with each AQM at the bottleneck, relative to DropTail (issue 6: an
# AQM must not slow the core by more than 10 %). Best of three rounds; each round runs
# every kind once, so a warm-up or a busy moment does not fall on one kind only.
declare -A best
kinds="droptail red ared reared cared pi pie codel"
for _ in 1 2 3; do
  for kind in $kinds; do
    ns=$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["wall_seconds"]*1e9/r["events"])' "$($bin 50 100 "$kind")")
    best[$kind]=$(python3 -c 'import sys; a=sys.argv[1]; print(min(float(a), float(sys.argv[2])) if a else sys.argv[2])' "${best[$kind]:-}" "$ns")
  done
done
aqm_rows=""
for kind in $kinds; do
  aqm_rows+="$kind ${best[$kind]}"$'\n'
done

cpu=$(python3 -c 'import sys; sys.path.insert(0, "scripts"); import bench_block; print(bench_block.cpu())')
cores=$(nproc)
mem=$(free -g | awk '/Mem:/ {print $2}')
rustc_v=$(rustc --version)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
today=$(date -u +%Y-%m-%d)

aqm_crit=$(grep -A1 '^aqm/' target/criterion-output.txt | grep -o '^aqm/[a-z]*\|time: *\[[^]]*\]' | paste - - || true)

python3 - "$crit" "$rows" "$cpu" "$cores" "$mem" "$rustc_v" "$commit" "$today" "$aqm_rows" "$aqm_crit" <<'PY'
import sys, re, pathlib
crit, rows, cpu, cores, mem, rustc, commit, today, aqm_rows, aqm_crit = sys.argv[1:]
costs = dict((k, float(v)) for k, v in (line.split() for line in aqm_rows.strip().splitlines()))
crits = dict(line.split("\t", 1) for line in aqm_crit.strip().splitlines() if "\t" in line)
aqm_table = "\n".join(
    f"| {k} | {v:.1f} | {100 * (v / costs['droptail'] - 1):+.1f} % | {crits.get('aqm/' + k, 'n/a')} |" for k, v in costs.items()
)
path = pathlib.Path("BENCHMARKS.md")
text = path.read_text() if path.exists() else ""
marker_start, marker_end = "<!-- bench:start -->", "<!-- bench:end -->"
block = f"""{marker_start}
Measured {today} at commit `{commit}` on {cpu}, {cores} cores, {mem} GiB, {rustc}, release build
(LTO, one codegen unit), single thread. Written by `make bench` (scripts/bench.sh).

**Canonical dumbbell** (150 Mbps, 60 ms RTT, 50 SACK flows, DropTail, BDP buffer of 750 packets,
100 simulated seconds; the default engine, `engine.tx_end_events = when_needed`): criterion {crit or 'n/a'}.

| flows | wall s | events | events/s | packet-hops | packet-hops/s | peak RSS MiB | bottleneck utilization |
|---|---|---|---|---|---|---|---|
{rows.rstrip()}

**AQMs at the bottleneck** (the same run with each discipline and its defaults; the dynamics
differ, so the comparison is the wall time per simulated event, best of three rounds of the
`canonical` example, against DropTail's; criterion's wall time of the whole run beside it):

| queue | ns per event | vs DropTail | criterion (whole run) |
|---|---|---|---|
{aqm_table}
{marker_end}"""
if marker_start in text and marker_end in text:
    text = re.sub(re.escape(marker_start) + ".*?" + re.escape(marker_end), lambda _: block, text, flags=re.S)
else:
    text = "# Benchmarks\n\n" + block + "\n"
path.write_text(text)
print(block)
PY

# Kotla 2008's largest runs (issue 7): 2.4 Gbit/s single flow, 1000 flows.
.venv/bin/python scripts/bench_thesis.py

# The evaluation suite at 1 Gbit/s (issue 16), beside the canonical run in events per CPU second.
.venv/bin/python scripts/bench_suite.py

# Start-up of the command line (issue 21), beside the code of main before this work (5f013c3)
# and before the first start-up commit of issue 21 (60568a6~1), run with this tree's core.
.venv/bin/python scripts/bench_cli.py --vs 5f013c3 --vs 60568a6~1

# The core at scale (issue 21): 50 to 10,000 flows, 10 Mbit/s to 10 Gbit/s, peak memory, a plot.
.venv/bin/python scripts/bench_scale.py

# Qian's video study at the thesis's 7000 s (issue 15), with the `scenario` example bench_scale.py built.
.venv/bin/python scripts/bench_video.py

# The canonical run against a minimal Reno-only engine of the same scenario (issue 21: canonical
# in at most 1.25 times the minimal engine's time), paired whole processes.
python3 scripts/bench_minimal.py

# pertlab against ns-3 on the canonical dumbbell, both run here (the project's aim: 100 times
# ns-3's speed on the same scenario); the ns-3 program is built on first use.
.venv/bin/python scripts/bench_ns3.py
