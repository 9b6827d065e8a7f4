"""Limits of `pertlab sweep`: --seeds from 1 to MAX_SEEDS, and at most MAX_POINTS runs (seeds x the
product of the --vary value counts), refused before any point is built with one error line naming
--seeds / --vary, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

import pertlab
from pertlab import sweep
from pertlab.scenario import ScenarioError
from pertlab.sweep import MAX_POINTS, MAX_SEEDS, expand

from cli_errors import refusal

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def base() -> pertlab.Scenario:
    return pertlab.dumbbell(bw="5Mbps", rtt="40ms", flows=3, cc="sack", duration="6s", start_window="1s", warmup="2s")


@pytest.mark.parametrize("seeds", ["99999999999999999999999", str(MAX_SEEDS + 1), "0", "-3"])
def test_seeds_out_of_range_refused_at_once(seeds, tmp_path):
    line = refusal(["sweep", str(EXAMPLES / "dumbbell.toml"), "--seeds", seeds, "--out", str(tmp_path / "sw")], "--seeds:")
    assert f"must be 1 to {MAX_SEEDS}" in line and seeds in line


def test_too_many_points_names_seeds_and_vary(tmp_path):
    rates = ",".join(f"{i}Mbps" for i in range(1, 201))
    line = refusal(["sweep", str(EXAMPLES / "dumbbell.toml"), "--seeds", "100", "--vary", f"bottleneck.rate={rates}", "--out", str(tmp_path / "sw")], "--seeds, --vary:")
    assert "20,000 runs" in line and f"{MAX_POINTS:,}" in line and "at most 50 seeds" in line


def test_vary_product_alone_too_large(tmp_path):
    a = ",".join(str(i) for i in range(1, 102))
    b = ",".join(f"{i}Mbps" for i in range(1, 101))
    line = refusal(["sweep", str(EXAMPLES / "dumbbell.toml"), "--vary", f"dumbbell.pairs={a}", "--vary", f"bottleneck.rate={b}", "--out", str(tmp_path / "sw")], "--vary")
    assert "10,100 runs" in line and "fewer --vary values" in line


def test_expand_checks_before_building(monkeypatch):
    scenario = base()

    def built(*_):
        raise AssertionError("a point was built before the limits were checked")

    monkeypatch.setattr(sweep.Scenario, "parse", built)
    with pytest.raises(ScenarioError, match=r"^--seeds: must be 1 to"):
        expand(scenario, {}, 10**30)
    with pytest.raises(ScenarioError, match=r"^--seeds, --vary: .* at most 909 seeds"):
        expand(scenario, {"dumbbell.pairs": [str(i) for i in range(1, 12)]}, MAX_SEEDS)  # 11 000 runs
    with pytest.raises(ScenarioError, match=r"^--seeds, --vary: 1 seeds x 1000 \(dumbbell.pairs\) x 1000"):
        expand(scenario, {"dumbbell.pairs": [str(i) for i in range(1, 1001)],
                        "bottleneck.rate": [f"{i}Mbps" for i in range(1, 1001)]}, 1)  # fmt: skip


def test_valid_limits_still_expand():
    assert len(expand(base(), {}, 3)) == 3
    assert len(expand(base(), {"cc": ["pert", "sack"]}, 2)) == 4
    assert MAX_POINTS >= MAX_SEEDS  # one point may always have every seed allowed
