"""The testbed's parts that need no root, namespaces or BPF: its scenario's JSON dump, its
report, its video labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pertlab.linux.scenario import Bottleneck, NetPath, TestbedScenario, load_scenario

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "testbed").glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_scenarios_read_back_from_their_json_dump(path: Path) -> None:
    sc = load_scenario(path)
    dumped = json.loads(json.dumps(sc.model_dump(mode="json")))
    assert TestbedScenario.model_validate(dumped) == sc
    assert TestbedScenario.model_validate(json.loads(sc.model_dump_json(by_alias=True))) == sc


def test_the_json_dump_writes_quantities_with_their_unit() -> None:
    sc = TestbedScenario.parse({"duration": "2.5s", "bottleneck": {"rate": "10Mbps", "delay": "20ms", "buffer": "15140B"},
                                "flows": [{"cc": "reno", "start": "250ms", "video": {"rate": "2Mbps"}}], "pert": {"t_max": "12ms"}})  # fmt: skip
    d = sc.model_dump(mode="json")
    assert (d["duration"], d["warmup"], d["sample_interval"]) == ("2500000000ns", "2000000000ns", "100000000ns")
    assert d["bottleneck"] == {"rate": "10000000bps", "delay": "20000000ns", "buffer": "15140B", "buffer_pkts": None, "loss": 0.0}
    assert d["flows"][0]["start"] == "250000000ns" and d["flows"][0]["stop"] is None
    assert d["flows"][0]["video"] == {"rate": "2000000bps", "startup_delay": "2000000000ns", "segment": "1448B"}
    assert (d["pert"]["t_min"], d["pert"]["t_max"], d["pert"]["t_curve_end"]) == ("5000000ns", "12000000ns", None)
    assert d["pert_adaptive"]["q_max_init"] == "10000000ns"
    # Under the wire names too; the Python dump keeps the integers.
    assert sc.model_dump(mode="json", by_alias=True)["pert"]["t_max_ns"] == "12000000ns"
    assert sc.model_dump()["duration"] == 2_500_000_000 and sc.pert.model_dump(mode="json", by_alias=True)["t_max_ns"] == 12_000_000
    assert TestbedScenario.model_validate(d) == sc


def test_a_bottleneck_given_as_a_model_beside_a_path_profile_keeps_its_delay() -> None:
    """The profile fills what the bottleneck leaves out; the bottleneck's own 50 ms stays 50 ms
    (it was read back from the model's integer ns as 5e7 s)."""
    sc = TestbedScenario(path=NetPath(profile="nz"), bottleneck=Bottleneck(delay="50ms"))
    assert sc.bottleneck.delay == 50_000_000
    assert TestbedScenario.parse({"path": {"profile": "nz"}, "bottleneck": {"delay": "50ms"}}) == sc
