"""What pertlab writes as JSON is strict JSON (RFC 8259), which every parser reads: no ``NaN``
or ``Infinity``, which Python's ``json`` writes and reads but ``JSON.parse``, jq and serde
refuse. A value that is not a number (a confidence interval over one seed, a ratio to zero) is
``null`` (:func:`pertlab.jsonable.dumps`)."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pertlab.jsonable import dumps

import strict_json

ROOT = Path(__file__).resolve().parents[2]

SCENARIO = """
seed = 1
duration = "3s"
measure = { start = "1s", end = "3s" }

[dumbbell]
pairs = 2
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
bottleneck_queue = { kind = "droptail", limit_pkts = 50 }
access_rate = "100Mbps"
sender_access_delay = "1ms"
receiver_access_delay = "1ms"

[[flows]]
src = "s0"
dst = "d0"
cc = "reno"

[[flows]]
src = "s1"
dst = "d1"
cc = "reno"
"""


def test_dumps_writes_non_finite_numbers_as_null_and_numpy_as_plain():
    obj = {"nan": float("nan"), "inf": math.inf, "ninf": -math.inf, "np": np.float64("nan"), "n": np.int64(3), "f": np.float32(0.5), "b": np.bool_(True), "t": (1, 2.5)}
    assert strict_json.loads(dumps(obj)) == {"nan": None, "inf": None, "ninf": None, "np": None, "n": 3, "f": 0.5, "b": True, "t": [1, 2.5]}
    assert strict_json.loads(dumps({"x": [float("nan")]}, indent=2)) == {"x": [None]}


def test_the_strict_parser_of_these_tests_refuses_what_python_writes_by_default():
    import json

    with pytest.raises(ValueError, match="NaN"):
        strict_json.loads(json.dumps(float("nan")))


def test_sweep_json_over_one_seed_has_null_confidence_intervals(tmp_path):
    """One seed gives no confidence interval: the half-width is null, not ``NaN``."""
    (tmp_path / "s.toml").write_text(SCENARIO)
    out = subprocess.run(
        [str(Path(sys.executable).parent / "pertlab"), "sweep", str(tmp_path / "s.toml"), "--vary", "cc=pert,sack", "--seeds", "1", "--jobs", "1", "--out", str(tmp_path / "sw"), "--json"],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )  # fmt: skip
    points = strict_json.loads(out.stdout)["points"]
    assert sorted(p["cc"] for p in points) == ["pert", "sack"]
    for p in points:
        assert p["utilization_ci95"] is None and p["jain_ci95"] is None
        assert 0.5 < p["utilization"] <= 1 and p["seeds"] == 1


def test_every_json_file_in_docs_is_strict():
    files = subprocess.run(["git", "ls-files", "docs/*.json", "docs/**/*.json"], capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
    assert len(files) > 50
    refused = []
    for name in files:
        try:
            strict_json.loads((ROOT / name).read_text())
        except ValueError as e:
            refused.append(f"{name}: {e}")
    assert not refused, refused
