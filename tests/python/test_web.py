"""Web sessions from Python: the scenario model (units, errors naming the field),
the dumbbell builder's web pair, the CLI flag, and the results' web summary."""

import json

import pytest
from typer.testing import CliRunner

import pertlab
from pertlab.builders import dumbbell
from pertlab.cli import app


def _graph(**web) -> dict:
    return {
        "duration": "30s",
        "nodes": ["s", "r", "c"],
        "links": [{"a": "s", "b": "r", "rate": "100Mbps", "delay": "5ms"}, {"a": "r", "b": "c", "rate": "10Mbps", "delay": "5ms"}],
        "web": [{"clients": ["c"], "servers": ["s"], "sessions": 20, **web}],
    }


def test_web_spec_reads_units_and_has_ns2_defaults():
    s = pertlab.Scenario.parse(_graph(think_time="500ms", start_window=["0s", "2s"]))
    w = s.to_wire()["web"][0]
    assert w["think_time_ns"] == 500_000_000 and w["start_window_ns"] == [0, 2_000_000_000]
    # ns-2 tcl/ex/web-traffic.tcl: 1 object per page, 10 ms between objects, Pareto II mean 10 shape 1.2.
    assert (w["objects_per_page"], w["inter_object_ns"], w["object_mean_segments"], w["object_shape"]) == (1, 10_000_000, 10.0, 1.2)


@pytest.mark.parametrize(
    "web, field",
    [
        ({"object_shape": 1.0}, "web[0].object_shape"),
        ({"clients": []}, "web[0].clients"),
        ({"start_window": ["3s", "1s"]}, "web[0].start_window"),
        ({"cc": "bbr"}, "web[0].cc"),
    ],
)
def test_bad_web_fields_are_named(web, field):
    with pytest.raises(pertlab.ScenarioError) as e:
        pertlab.Scenario.parse(_graph(**web))
    assert field in str(e.value)


def test_unknown_web_node_is_named_by_the_core():
    s = pertlab.Scenario.parse(_graph(servers=["nowhere"]))
    with pytest.raises(pertlab.ScenarioError, match=r"web\[0\]\.servers\[0\]"):
        s.check()


def test_results_carry_the_web_summary():
    r = pertlab.run(pertlab.Scenario.parse(_graph()))
    w = r.web
    assert w["sessions"] == 20 and w["objects_completed"] > 100
    assert w["response_ms_p50"] <= w["response_ms_p95"] <= w["response_ms_p99"]
    # At least one RTT (20 ms) per object.
    assert w["response_ms_p50"] >= 20.0
    assert r.conservation["ok"]


def test_dumbbell_adds_a_web_pair_that_crosses_the_bottleneck():
    s = dumbbell(bw="20Mbps", rtt="40ms", flows=3, cc="pert", duration="20s", warmup="5s", web_sessions=30)
    w = s.to_wire()
    assert w["dumbbell"]["pairs"] == 4
    web = w["web"][0]
    assert (web["servers"], web["clients"], web["sessions"]) == (["s3"], ["d3"], 30)
    # The transfers use the scheme's transport.
    assert web["cc"]["kind"] == "pert"
    r = pertlab.run(s)
    assert r.web["throughput_mbps"] > 0.5 and r.flows.height == 3


def test_dumbbell_web_pair_rtt_is_the_mean_rtt_with_per_flow_rtts():
    s = dumbbell(bw="150Mbps", rtt="12ms,24ms,36ms", flows=3, duration="10s", warmup="1s", web_sessions=5)
    d = s.to_wire()["dumbbell"]
    # Bottleneck 4 ms one way (the 12 ms flow's split); the web pair's 24 ms = mean RTT.
    assert d["sender_access_delay_ns"][-1] == (12_000_000 - 4_000_000) // 2


def test_cli_web_sessions_flag():
    res = CliRunner().invoke(app, ["dumbbell", "--bw", "20Mbps", "--flows", "3", "--duration", "20s", "--warmup", "5s", "--web-sessions", "25", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["web"]["sessions"] == 25
    bad = CliRunner().invoke(app, ["dumbbell", "--web-sessions", "-1"])
    assert bad.exit_code == 2 and "--web-sessions" in bad.output
