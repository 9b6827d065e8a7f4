"""Tahiliani (2013) Ch. 4 pieces through the Python front: XECN/DCTCP feedback options,
TCP Surathkal's options, the step-marking queue, and their errors."""

from __future__ import annotations

import json
import math

import pytest

from pertlab.builders import dumbbell
from pertlab.runner import run
from pertlab.scenario import Scenario, ScenarioError


def error_of(data: dict) -> str:
    with pytest.raises(ScenarioError) as e:
        Scenario.parse(data)
    return str(e.value)


def two_nodes(tcp: dict, cc: object = "reno", queue: dict | None = None) -> dict:
    return {
        "duration": "1s",
        "nodes": ["a", "b"],
        "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "10ms", "queue": queue or {}}],
        "flows": [{"src": "a", "dst": "b", "cc": cc, "tcp": tcp}],
    }


def test_feedback_needs_ecn_and_count_lost_acks_needs_xecn():
    assert error_of(two_nodes({"ecn_feedback": "xecn"})).startswith("flows[0].tcp.ecn_feedback: xecn feedback needs an ECN-capable flow")
    assert error_of(two_nodes({"ecn": True, "xecn_count_lost_acks": True})).startswith(
        'flows[0].tcp.xecn_count_lost_acks: applies to ecn_feedback = "xecn" only'
    )
    assert "ecn_feedback" in error_of(two_nodes({"ecn": True, "ecn_feedback": "accecn"}))
    Scenario.parse(two_nodes({"ecn": True, "ecn_feedback": "xecn", "xecn_count_lost_acks": True}))


def test_the_core_refuses_the_same_feedback_without_ecn():
    # The wire format skips the Python model: the core names the same field.
    from pertlab import _core
    from pertlab.memory import core_limit

    data = Scenario.parse(two_nodes({"ecn": True, "ecn_feedback": "dctcp"})).to_wire()
    data["flows"][0]["tcp"]["ecn"] = False
    with pytest.raises(ValueError, match=r"flows\[0\]\.tcp\.ecn_feedback: dctcp feedback needs an ECN-capable flow"):
        _core.validate_json(json.dumps(data), core_limit(math.inf))


def test_step_k_zero_is_an_error_naming_the_field():
    msg = error_of(two_nodes({}, queue={"kind": "step", "step": {"k_pkts": 0}}))
    assert msg.startswith("links[0].queue.step.k_pkts: ") and "greater than or equal to 1" in msg


def test_step_k_above_the_buffer_is_an_error_with_the_default_k_too():
    """The default K of 65 is checked against the buffer as a written one is: left out, a buffer
    of 1 packet was accepted, and its dump (which writes K) then refused (found by make fuzz)."""
    for queue in ({"kind": "step", "limit_pkts": 1}, {"kind": "step", "limit_pkts": 1, "step": {"k_pkts": 65}}):
        msg = error_of(two_nodes({}, queue=queue))
        assert msg.startswith("links[0].queue.step: K = 65 packets is more than the buffer holds (1 packets, limit_pkts)"), msg
    assert Scenario.parse(two_nodes({}, queue={"kind": "step", "limit_pkts": 65})).links[0].queue.step.k_pkts == 65


def test_surathkal_options_are_checked_and_recorded_in_the_results(tmp_path):
    assert "alpha_timing" in error_of(two_nodes({}, cc={"kind": "surathkal", "alpha_timing": "eventually"}))
    s = dumbbell(bw="8Mbps", rtt="60ms", flows=2, cc="surathkal", queue="ared", duration="20s", ecn=True, packet_size=1040)
    assert s.flows[0].tcp.ecn_feedback == "xecn"
    r = run(s)
    r.write(tmp_path / "run")
    wire = json.loads((tmp_path / "run" / "scenario.json").read_text())
    cc = wire["flows"][0]["cc"]
    assert (cc["kind"], cc["alpha_timing"], cc["loss_response"]) == ("surathkal", "previous_window", "halve")
    assert wire["flows"][0]["tcp"]["ecn_feedback"] == "xecn"
    # XECN marks reached the sender and it reduced, without losses on the ECN bottleneck.
    assert r.flows["ecn_reductions"].sum() > 10
    # DCTCP flows get RFC 8257 feedback; the others keep RFC 3168's.
    assert dumbbell(flows=1, cc="dctcp", queue="step", ecn=True, duration="10s").flows[0].tcp.ecn_feedback == "dctcp"
    assert dumbbell(flows=1, cc="sack", queue="ared", ecn=True, duration="10s").flows[0].tcp.ecn_feedback == "rfc3168"
    assert dumbbell(flows=1, cc="surathkal", queue="ared", duration="10s").flows[0].tcp.ecn_feedback == "rfc3168"


@pytest.mark.parametrize("cc", ["scalable", "westwood", "dctcp"])
def test_baselines_run_from_the_builder(cc):
    r = run(dumbbell(bw="10Mbps", rtt="40ms", flows=2, cc=cc, queue="droptail", duration="20s"))
    assert r.flows["goodput_mbps"].sum() > 0.9 * 10 * 1460 / 1500


@pytest.mark.parametrize(
    ("burst", "field", "words"),
    [
        ({"rate": 1.0, "mean_burst_pkts": 2}, "rate", "less than 1"),
        ({"rate": -0.01, "mean_burst_pkts": 2}, "rate", "greater than or equal to 0"),
        ({"rate": 0.1, "mean_burst_pkts": 0.5}, "mean_burst_pkts", "greater than or equal to 1"),
        ({"rate": 0.6, "mean_burst_pkts": 1}, "mean_burst_pkts", "at most B / (B + 1) = 0.5"),
    ],
)
def test_burst_loss_errors_name_the_field(burst, field, words):
    data = two_nodes({})
    data["links"][0]["burst_loss"] = burst
    msg = error_of(data)
    assert msg.startswith(f"links[0].burst_loss.{field}: ") and words in msg, msg


def test_gilbert_elliott_last_hop_from_python():
    data = two_nodes({})
    data["duration"] = "300s"
    data["links"][0] |= {"rate": "11Mbps", "burst_loss": {"rate": 0.03, "mean_burst_pkts": 2}}
    data["monitor"] = {"links": ["a-b"]}
    r = run(Scenario.parse(data))
    q = r.queues.filter(r.queues["from"] == "a").row(0, named=True)
    assert abs(q["link_losses"] / q["departures"] - 0.03) <= 0.003, q
