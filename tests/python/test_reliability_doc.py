"""docs/reliability.md's campaign figures are generated from docs/reliability/campaign.json
(scripts/reliability.py, which ``make fuzz`` runs): the doc and the data must agree, and the
recorded campaign must have passed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_campaign_table_is_generated_from_the_data():
    check = subprocess.run([sys.executable, "scripts/reliability.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_the_recorded_campaign_found_no_invariant_failure():
    campaign = json.loads((ROOT / "docs" / "reliability" / "campaign.json").read_text())
    assert campaign["failures"] == "none" and campaign["proptest_result"] == "passed", campaign
    kinds = campaign["counts"]
    assert sum(n for outcomes in kinds.values() for n in outcomes.values()) >= 4 * campaign["examples"] // 2, kinds
    assert {"valid", "mutated", "command line", "testbed scenario"} <= kinds.keys(), kinds
