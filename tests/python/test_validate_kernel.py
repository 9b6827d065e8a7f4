"""``pertlab validate kernel --quick``: pertlab beside the kernel in the namespace testbed.

Needs root and TUN (the quick case runs kernel reno only, no BPF); skips saying why
otherwise. Its options are registered in test_cli_flags.py's coverage here.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pertlab.cli import app
from pertlab.linux import testbed
from test_cli_flags import covers

PROBLEM = testbed.support_problem(needs_pert=False)
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"testbed: {PROBLEM}")


@covers("validate kernel", "--quick", "--out", "--json")
def test_validate_kernel_quick(tmp_path):
    """Ten identical reno flows on 5 Mbit/s: queue, utilization and fairness agree with the
    kernel's; the kernel drops more, as docs/validation.md ('End-host timing') explains."""
    result = CliRunner().invoke(app, ["validate", "kernel", "--quick", "--out", str(tmp_path), "--json"], catch_exceptions=False)
    rows = {r["metric"]: r for r in json.loads(result.stdout)["rows"]}
    verdicts = {m: r["verdict"] for m, r in rows.items()}
    # The kernel drops about 1.33-1.5 times what the simulator does (ratios 0.67-0.75 measured);
    # drop_rate's stated tolerance is 25 %, so a 30 s kernel run lands on either side of it: the
    # verdict is "explained" or, at the edge, "explained difference not seen" (and the command
    # exits 1 then). The direction is asserted either way; everything else must agree.
    assert verdicts.pop("drop_rate") in ("explained", "explained difference not seen"), result.output
    assert verdicts == {"avg_queue_pkts": "agrees", "mark_rate": "agrees", "utilization": "agrees", "jain": "agrees", "goodput_cov": "agrees"}
    assert result.exit_code == (0 if rows["drop_rate"]["verdict"] == "explained" else 1), result.output
    assert rows["drop_rate"]["ratio"] < 0.8
    assert (tmp_path / "report.html").is_file() and (tmp_path / "reno-5mbps" / "report.md").is_file()
    # Stored: a rerun reads the case back without running the testbed.
    again = CliRunner().invoke(app, ["validate", "kernel", "--quick", "--out", str(tmp_path), "--json"], catch_exceptions=False)
    assert json.loads(again.stdout)["rows"] == json.loads(result.stdout)["rows"]
