#!/usr/bin/env bash
# `make fuzz`: a long property-based campaign over everything a user can write (issue 25).
#   - the Rust property tests over Scenario::validate and World::build, PROPTEST_CASES cases each;
#   - the generated-scenario tests (tests/python/test_generated.py, test_generated_steps.py) in their `campaign` profile:
#     FUZZ_EXAMPLES cases per kind, a wider budget, resuming from and growing hypothesis's
#     example database in .hypothesis/ (so a second campaign starts where the first stopped
#     and replays every failure found before);
# then writes the outcome counts to docs/reliability/campaign.json and the table of
# docs/reliability.md from them (scripts/reliability.py), and prints the counts.
set -uo pipefail
cd "$(dirname "$0")/.."

examples=${FUZZ_EXAMPLES:-5000}
cases=${PROPTEST_CASES:-20000}
started=$(date +%s)

PROPTEST_CASES=$cases cargo test --release -p pertlab-sim --test robust_property
rust=$?

counts=$(mktemp)
PERTLAB_FUZZ_PROFILE=campaign PERTLAB_FUZZ_EXAMPLES=$examples PERTLAB_FUZZ_COUNTS=$counts \
  .venv/bin/python -m pytest -q -s -p no:logging tests/python/test_generated.py tests/python/test_generated_steps.py
python=$?

mkdir -p docs/reliability
.venv/bin/python - "$counts" "$examples" "$cases" "$rust" "$python" "$started" <<'PY'
import json, os, sys, time
counts_path, examples, cases, rust, python, started = sys.argv[1:]
counts = json.load(open(counts_path))
sys.path.insert(0, "scripts")
from bench_block import cpu as describe_cpu
cpu = describe_cpu()
mem = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal"))
failures = [name for name, code in (("Rust property tests", rust), ("generated-scenario tests", python)) if code != "0"]
campaign = {
    "date": time.strftime("%Y-%m-%d"),
    "machine": f"{os.cpu_count()} x {cpu}, {mem / 2**20:.0f} GiB",
    "profile": counts["profile"],
    "examples": int(examples),
    "proptest_cases": int(cases),
    "proptest_result": "passed" if rust == "0" else "FAILED",
    "wall_minutes": (time.time() - int(started)) / 60,
    "failures": "none" if not failures else "in the " + " and the ".join(failures) + " (see the campaign's output)",
    "counts": counts["counts"],
}
open("docs/reliability/campaign.json", "w").write(json.dumps(campaign, indent=1) + "\n")
print(json.dumps(campaign, indent=1))
PY
.venv/bin/python scripts/reliability.py
rm -f "$counts"
[ "$rust" = 0 ] && [ "$python" = 0 ]
