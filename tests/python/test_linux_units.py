"""The Linux side's pure parts, on any machine (no root, no BPF)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pertlab.cli import app
from pertlab.linux import loader, testbed

ROOT = Path(__file__).resolve().parents[2]


def test_default_parameters_are_the_bpf_programs_defaults() -> None:
    src = (ROOT / "bpf" / "tcp_pert.bpf.c").read_text()
    fixed = loader.PertParams().fixed()
    for name, value in fixed.items():
        m = re.search(rf"const volatile __u\d+ pert_{name} = ([^;]+);", src)
        assert m, name
        assert eval(m.group(1).replace("ULL", "").replace("PERT_SRTT_SHIFT", "10")) == value, name  # noqa: S307


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(t_min_ms=10, t_max_ms=10), "t_min_ms < t_max_ms"),
        (dict(t_end_ms=10), "t_end_ms"),
        (dict(p_max=0), "p_max"),
        (dict(decrease=1.0), "decrease"),
        (dict(srtt_weight=0), "srtt_weight"),
    ],
)
def test_parameter_validation_names_the_field(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        loader.PertParams(**kwargs).validate()


def test_smoke_scenario_parses() -> None:
    sc = testbed.load_scenario(ROOT / "examples" / "testbed" / "smoke.toml")
    assert (sc.rate_bps, sc.delay_ns, sc.buffer_bytes, sc.duration_ns, sc.warmup_ns) == (10_000_000, 20_000_000, 50_000, 5 * 10**9, 10**9)
    assert [(f.cc, f.count) for f in sc.flows] == [("pert", 1)]
    assert sc.queue() == ("bfifo", 50_000) and not sc.delayed_ack


def test_scenario_defaults_and_errors() -> None:
    sc = testbed.TestbedScenario.from_dict({"bottleneck": {"rate": "100Mbps", "delay": "40ms"}, "pert": {"p_max": 0.1}})
    assert sc.queue() == ("bfifo", 500_000)  # one BDP
    assert testbed.TestbedScenario.from_dict({"bottleneck": {"buffer_pkts": 30}}).queue() == ("pfifo", 30)
    assert sc.pert.p_max == 0.1
    for bad, msg in [
        ({"flows": [{"cc": "vegas"}]}, "unknown congestion control"),
        ({"bottleneck": {"rate": "1Mbps", "queue": "red"}}, "unknown bottleneck fields"),
        ({"colour": 1}, "unknown scenario fields"),
        ({"duration": "1s", "warmup": "2s"}, "warmup"),
        ({"bottleneck": {"loss": 1.5}}, "loss"),
    ]:
        with pytest.raises(ValueError, match=msg):
            testbed.TestbedScenario.from_dict(bad)


def test_simulator_scenario_mirrors_the_testbed() -> None:
    sc = testbed.TestbedScenario.from_dict({"bottleneck": {"rate": "10Mbps", "delay": "20ms", "buffer": "15140B"}, "flows": [{"cc": "pert", "count": 2}, {"cc": "reno"}]})
    sim = testbed.sim_scenario(sc).model_dump(mode="json")
    text = str(sim)
    assert "'pert'" in text and "10000000" in text
    with pytest.raises(ValueError, match="no bbr"):
        testbed.sim_scenario(testbed.TestbedScenario(flows=[testbed.FlowGroup("bbr", 1)]))
    # Kernel cubic is the simulator's CUBIC, kernel reno its Reno with SACK.
    both = testbed.sim_scenario(testbed.TestbedScenario(flows=[testbed.FlowGroup("cubic", 2), testbed.FlowGroup("reno", 1)]))
    assert [f.cc.kind for f in both.flows] == ["cubic", "cubic", "reno"]
    assert all(f.tcp.sack for f in both.flows)


def test_cli_lists_the_linux_and_testbed_commands() -> None:
    r = CliRunner().invoke(app, ["linux", "--help"])
    assert r.exit_code == 0 and all(c in r.output for c in ("load", "unload", "status"))
    r = CliRunner().invoke(app, ["testbed", "--help"])
    assert r.exit_code == 0 and "run" in r.output and "compare" in r.output
