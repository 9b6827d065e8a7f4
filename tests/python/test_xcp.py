"""XCP (Katabi, Handley, Rohrs, SIGCOMM 2002) through the Python front: the router's parameters and
their errors, an XCP flow without an XCP router refused by the model and by the core, and
``pertlab dumbbell --cc xcp --queue xcp``."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pertlab.builders import dumbbell
from pertlab.cli import app
from pertlab.runner import run
from pertlab.scenario import Scenario, ScenarioError


def error_of(data: dict) -> str:
    with pytest.raises(ScenarioError) as e:
        Scenario.parse(data)
    return str(e.value)


def graph(queue: dict, cc: str = "xcp") -> dict:
    return {
        "duration": "2s",
        "nodes": ["a", "r", "b"],
        "links": [
            {"a": "a", "b": "r", "rate": "100Mbps", "delay": "1ms"},
            {"a": "r", "b": "b", "rate": "10Mbps", "delay": "20ms", "queue": queue},
        ],
        "flows": [{"src": "a", "dst": "b", "cc": cc}],
    }


def test_router_parameters_have_the_papers_defaults_and_bad_ones_name_the_field():
    q = Scenario.parse(graph({"kind": "xcp", "limit_pkts": 100})).to_wire()["links"][1]["queue"]["xcp"]
    assert q == {"alpha": 0.4, "beta": 0.226, "gamma": 0.1, "initial_interval_ns": 100_000_000}
    for field, bad in [("alpha", 0.0), ("beta", 1.5), ("gamma", -0.1), ("initial_interval", "0s")]:
        msg = error_of(graph({"kind": "xcp", "xcp": {field: bad}}))
        assert msg.startswith(f"links[1].queue.xcp.{field}: "), msg


def test_an_xcp_flow_without_an_xcp_router_is_refused():
    # On a dumbbell the model sees it; on a graph the core checks the path when it builds the world.
    data = {"duration": "1s", "dumbbell": {"pairs": 1, "bottleneck_rate": "10Mbps", "bottleneck_delay": "10ms", "access_rate": "100Mbps",
            "sender_access_delay": ["1ms"], "receiver_access_delay": ["1ms"]}, "flows": [{"src": "s0", "dst": "d0", "cc": "xcp"}]}  # fmt: skip
    assert error_of(data).startswith('flows[0].cc: an xcp flow needs an "xcp" queue on its data path')
    with pytest.raises(ScenarioError, match=r"queue: xcp flows need queue \"xcp\""):
        dumbbell(flows=2, cc="xcp", queue="droptail", duration="2s")
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.cc: an xcp flow needs an \"xcp\" queue on its data path"):
        run(Scenario.parse(graph({"kind": "droptail"})))


def test_xcp_fills_a_10_mbps_link_with_a_short_queue():
    r = run(Scenario.parse({**graph({"kind": "xcp", "limit_pkts": 100}), "measure": {"start": "1s", "end": "2s"}}))
    b = r.bottleneck
    assert b["utilization"] > 0.95, b
    assert b["avg_queue_pkts"] < 5.0, b
    assert b["drops"] == 0


def test_cli_dumbbell_with_xcp_flows_and_router():
    res = CliRunner().invoke(app, ["dumbbell", "--cc", "xcp", "--queue", "xcp", "--bw", "20Mbps", "--rtt", "40ms,120ms", "--flows", "2", "--duration", "6s", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    goodputs = [f["goodput_mbps"] for f in data["flows"]]
    assert min(goodputs) / max(goodputs) > 0.9, goodputs
    res = CliRunner().invoke(app, ["dumbbell", "--cc", "xcp", "--queue", "red", "--duration", "2s"])
    assert res.exit_code != 0 and "--queue" in res.output and "xcp" in res.output, res.output
