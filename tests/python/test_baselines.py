"""The baseline controllers (hstcp, cubic, compound, illinois) from Python:
defaults as the core's, a bad parameter named with what is allowed, and a
short dumbbell run through the builder."""

import pytest

import pertlab
from pertlab import Scenario, ScenarioError
from pertlab.builders import dumbbell

from conftest import udp_graph


def flow_with(cc) -> dict:
    return udp_graph(flows=[{"src": "a", "dst": "b", "cc": cc}])


def error_of(cc) -> str:
    with pytest.raises(ScenarioError) as e:
        Scenario.parse(flow_with(cc))
    return str(e.value)


@pytest.mark.parametrize(
    "cc, start",
    [
        ({"kind": "hstcp", "high_decrease": 0.7}, "flows[0].cc.high_decrease: Input should be less than or equal to 0.5"),
        ({"kind": "hstcp", "low_window": 100, "high_window": 50}, "flows[0].cc.high_window: must be greater than low_window (100.0), got 50.0"),
        ({"kind": "cubic", "beta": 1.2}, "flows[0].cc.beta: Input should be less than 1"),
        ({"kind": "cubic", "beta": 0}, "flows[0].cc.beta: Input should be greater than 0"),
        ({"kind": "compound", "k": 1.5}, "flows[0].cc.k: Input should be less than or equal to 1"),
        ({"kind": "compound", "gamma": -3}, "flows[0].cc.gamma: Input should be greater than 0"),
        ({"kind": "illinois", "alpha_min": 2, "alpha_max": 1}, "flows[0].cc.alpha_max: must be greater than alpha_min (2.0), got 1.0"),
        ({"kind": "illinois", "d2_frac": 0.5, "d3_frac": 0.4}, "flows[0].cc.d3_frac: must be greater than d2_frac (0.5), got 0.4"),
        ({"kind": "cubic", "beta_cubic": 0.7}, "flows[0].cc: unknown field `beta_cubic`; allowed: kind, c, beta, fast_convergence, reno_friendly"),
    ],
)
def test_a_bad_parameter_is_named(cc, start):
    msg = error_of(cc)
    assert msg.startswith(start), msg


@pytest.mark.parametrize("kind", ["hstcp", "cubic", "compound", "illinois"])
def test_defaults_reach_the_core_as_written(kind):
    s = Scenario.parse(flow_with(kind))
    cc = s.to_wire()["flows"][0]["cc"]
    assert cc["kind"] == kind
    s.check()  # the core accepts the wire form


def test_published_defaults():
    wire = {k: Scenario.parse(flow_with(k)).to_wire()["flows"][0]["cc"] for k in ("hstcp", "cubic", "compound", "illinois")}
    assert (wire["hstcp"]["low_window"], wire["hstcp"]["high_window"], wire["hstcp"]["high_p"], wire["hstcp"]["high_decrease"]) == (38, 83000, 1e-7, 0.1)
    assert (wire["cubic"]["c"], wire["cubic"]["beta"], wire["cubic"]["fast_convergence"]) == (0.4, 0.7, True)
    assert (wire["compound"]["alpha"], wire["compound"]["beta"], wire["compound"]["k"], wire["compound"]["gamma"]) == (0.125, 0.5, 0.75, 30)
    il = wire["illinois"]
    assert (il["alpha_min"], il["alpha_max"], il["beta_min"], il["beta_max"], il["win_thresh"], il["theta"]) == (0.3, 10, 0.125, 0.5, 15, 5)
    assert (il["d1_frac"], il["d2_frac"], il["d3_frac"]) == (0.01, 0.1, 0.8)


def test_the_builder_runs_a_mix_of_the_baselines():
    s = dumbbell(bw="10Mbps", rtt="40ms", cc="hstcp:1,cubic:1,compound:1,illinois:1", flows=None, duration="15s", warmup="5s", start_window="1s")
    r = pertlab.run(s)
    kinds = [f["cc"]["kind"] for f in s.to_wire()["flows"]]
    assert kinds == ["hstcp", "cubic", "compound", "illinois"]
    assert r.flows.height == 4 and (r.flows["goodput_mbps"] > 0.5).all()
    assert r.bottleneck["utilization"] > 0.9
