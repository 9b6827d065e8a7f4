"""The baseline controllers (hstcp, cubic, compound, illinois, fast) from Python:
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
        ({"kind": "hstcp", "low_window": 100, "high_window": 50}, "flows[0].cc.low_window, flows[0].cc.high_window: high_window must be greater than low_window (100.0), got 50.0"),
        ({"kind": "cubic", "beta": 1.2}, "flows[0].cc.beta: Input should be less than 1"),
        ({"kind": "cubic", "beta": 0}, "flows[0].cc.beta: Input should be greater than 0"),
        ({"kind": "compound", "k": 1.5}, "flows[0].cc.k: Input should be less than or equal to 1"),
        ({"kind": "compound", "gamma": -3}, "flows[0].cc.gamma: Input should be greater than 0"),
        ({"kind": "illinois", "alpha_min": 2, "alpha_max": 1}, "flows[0].cc.alpha_min, flows[0].cc.alpha_max: alpha_max must be greater than alpha_min (2.0), got 1.0"),
        ({"kind": "illinois", "d2_frac": 0.5, "d3_frac": 0.4}, "flows[0].cc.d2_frac, flows[0].cc.d3_frac: d3_frac must be greater than d2_frac (0.5), got 0.4"),
        ({"kind": "cubic", "beta_cubic": 0.7}, "flows[0].cc: unknown field `beta_cubic`; allowed: kind, c, beta, fast_convergence, reno_friendly"),
        ({"kind": "fast", "gamma": 0}, "flows[0].cc.gamma: Input should be greater than 0"),
        ({"kind": "fast", "gamma": 1.5}, "flows[0].cc.gamma: Input should be less than or equal to 1"),
        ({"kind": "fast", "alpha": -5}, "flows[0].cc.alpha: Input should be greater than 0"),
        ({"kind": "fast", "rtt_weight_max": 2}, "flows[0].cc.rtt_weight_max: Input should be less than or equal to 1"),
        ({"kind": "fast", "beta": 0.5}, "flows[0].cc: unknown field `beta`; allowed: kind, alpha, gamma, rtt_weight_max"),
    ],
)
def test_a_bad_parameter_is_named(cc, start):
    msg = error_of(cc)
    assert msg.startswith(start), msg


@pytest.mark.parametrize("kind", ["hstcp", "cubic", "compound", "illinois", "fast"])
def test_defaults_reach_the_core_as_written(kind):
    s = Scenario.parse(flow_with(kind))
    cc = s.to_wire()["flows"][0]["cc"]
    assert cc["kind"] == kind
    s.check()  # the core accepts the wire form


def test_published_defaults():
    wire = {k: Scenario.parse(flow_with(k)).to_wire()["flows"][0]["cc"] for k in ("hstcp", "cubic", "compound", "illinois", "fast")}
    assert (wire["hstcp"]["low_window"], wire["hstcp"]["high_window"], wire["hstcp"]["high_p"], wire["hstcp"]["high_decrease"]) == (38, 83000, 1e-7, 0.1)
    assert (wire["cubic"]["c"], wire["cubic"]["beta"], wire["cubic"]["fast_convergence"]) == (0.4, 0.7, True)
    assert (wire["compound"]["alpha"], wire["compound"]["beta"], wire["compound"]["k"], wire["compound"]["gamma"]) == (0.125, 0.5, 0.75, 30)
    il = wire["illinois"]
    assert (il["alpha_min"], il["alpha_max"], il["beta_min"], il["beta_max"], il["win_thresh"], il["theta"]) == (0.3, 10, 0.125, 0.5, 15, 5)
    assert (il["d1_frac"], il["d2_frac"], il["d3_frac"]) == (0.01, 0.1, 0.8)
    assert (wire["fast"]["alpha"], wire["fast"]["gamma"], wire["fast"]["rtt_weight_max"]) == (200, 0.5, 0.25)


def test_the_builder_runs_a_mix_of_the_baselines():
    s = dumbbell(bw="10Mbps", rtt="40ms", cc="hstcp:1,cubic:1,compound:1,illinois:1", flows=None, duration="15s", warmup="5s", start_window="1s")
    r = pertlab.run(s)
    kinds = [f["cc"]["kind"] for f in s.to_wire()["flows"]]
    assert kinds == ["hstcp", "cubic", "compound", "illinois"]
    assert r.flows.height == 4 and (r.flows["goodput_mbps"] > 0.5).all()
    assert r.bottleneck["utilization"] > 0.9


def test_fast_through_the_builder_queues_alpha_per_flow():
    # 2 FAST flows with alpha = 30 on 10 Mbps / 40 ms, 200-packet buffer: the
    # bottleneck holds n alpha = 60 packets, less up to one per flow for the
    # integer window, +-1 for the packet in transmission (as the core's test).
    s = dumbbell(
        bw="10Mbps", rtt="40ms", cc="fast", flows=2, duration="20s", warmup="8s", start_window="100ms",
        buffer_pkts=200, cc_params={"fast": {"alpha": 30}},
    )
    assert s.to_wire()["flows"][0]["cc"] == {"kind": "fast", "alpha": 30, "gamma": 0.5, "rtt_weight_max": 0.25}
    b = pertlab.run(s).bottleneck
    assert b["utilization"] > 0.9 and b["drops"] == 0, b
    assert 2 * 29 - 1 <= b["avg_queue_pkts"] <= 2 * 30 + 1, b["avg_queue_pkts"]
