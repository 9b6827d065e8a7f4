"""Scenario models: human units in, the core's wire format out, and errors
that name the field and what is allowed."""

import json
from pathlib import Path

import pytest

import pertlab
from pertlab import Scenario, ScenarioError

from conftest import udp_graph

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def error_of(data: dict) -> str:
    with pytest.raises(ScenarioError) as e:
        Scenario.parse(data)
    return str(e.value)


def core_error_of(data: dict) -> str:
    with pytest.raises(ScenarioError) as e:
        Scenario.parse(data).check()
    return str(e.value)


def test_human_units_become_wire_units():
    wire = Scenario.parse(udp_graph()).to_wire()
    assert wire["duration_ns"] == 5_000_000_000
    assert wire["links"][1]["rate_bps"] == 10_000_000
    assert wire["links"][1]["delay_ns"] == 5_000_000
    assert wire["udp"][0]["rate_bps"] == 9_000_000 and wire["udp"][0]["packet_size"] == 1000
    assert wire["monitor"]["sample_interval_ns"] == 100_000_000
    assert "rate" not in wire["links"][1] and "measure" not in wire  # None fields are left to the core


def test_wire_format_reads_back_with_plain_numbers_in_wire_units():
    s = pertlab.dumbbell(bw="150Mbps", rtt="60ms", flows=3, cc="pert", duration="10s", warmup="2s")
    again = Scenario.from_json(s.to_wire_json())
    assert again == s
    assert again.dumbbell.bottleneck_delay == 28_000_000  # "bottleneck_delay_ns": 28000000 is ns, not seconds


def test_examples_load():
    graph = Scenario.from_toml(EXAMPLES / "graph.toml")
    assert [f.cc.kind for f in graph.flows] == ["pert", "reno"]
    assert graph.links[2].queue.kind == "red" and graph.udp[0].rate == 4_000_000
    dumbbell = Scenario.from_toml(EXAMPLES / "dumbbell.toml")
    assert dumbbell.dumbbell.pairs == len(dumbbell.flows) == 10
    assert dumbbell.dumbbell.sender_access_delay == [1_000_000]


def test_unknown_field_is_named_with_the_allowed_ones():
    msg = error_of(udp_graph(colour="blue"))
    assert msg.startswith("scenario: unknown field `colour`; allowed: seed, duration,")
    bad = udp_graph()
    bad["links"][1]["queue"]["size"] = 3
    assert error_of(bad).startswith("links[1].queue: unknown field `size`; allowed: kind, target, limit_pkts, limit_bytes, red")


def test_negative_rate():
    bad = udp_graph()
    bad["links"][0]["rate"] = "-5Mbps"
    msg = error_of(bad)
    assert msg.startswith("links[0].rate: must be a positive rate, got '-5Mbps'") and "150Mbps" in msg


def test_zero_buffer():
    bad = udp_graph()
    bad["links"][1]["queue"]["limit_pkts"] = 0
    assert error_of(bad).startswith("links[1].queue.limit_pkts: ") and "greater than or equal to 1" in error_of(bad)


def test_unknown_queue_and_controller_list_the_allowed_values():
    bad = udp_graph()
    bad["links"][1]["queue"]["kind"] = "fifo"
    assert error_of(bad) == (
        "links[1].queue.kind: got 'fifo'; allowed: 'droptail', 'red', 'ared', 'reared', 'fared', 'cared', "
        "'feng', 'nlred', 'pi', 'pie', 'codel', 'jcc-red', 'step', 'priority', 'wtp', 'swtp', 'bpr', 'xcp' or 'py'"
    )
    flows = {"flows": [{"src": "a", "dst": "b", "cc": "bbr"}]}
    assert error_of(udp_graph(**flows)) == (
        "flows[0].cc: unknown kind 'bbr'; allowed: 'reno', 'vegas', 'pert', 'pert-pi', 'pert-adaptive', 'hstcp', 'cubic', 'compound', 'illinois', 'fast', "
        "'jcc', 'surathkal', 'dctcp', 'scalable', 'westwood', 'xcp', 'agent', 'py'"
    )


@pytest.mark.parametrize(("name", "sack"), [("sack", "true"), ("newreno", "false")])
def test_a_command_line_controller_name_in_a_scenario_says_what_to_write(name, sack):
    """`--cc sack` and `--cc newreno` name the recovery too; a scenario file writes it apart."""
    message = error_of(udp_graph(flows=[{"src": "a", "dst": "b", "cc": name}]))
    assert message.startswith(f"flows[0].cc: unknown kind '{name}'; allowed: 'reno', ")
    assert message.endswith(f"('{name}' is a command-line name: in a scenario, write 'reno' with tcp.sack = {sack})")


def test_cross_field_errors_name_the_field():
    assert error_of(udp_graph(measure={"start": "4s", "end": "9s"})).startswith("measure: need start < end <= duration (5s)")
    flows = {"flows": [{"src": "a", "dst": "b", "start": "1s", "start_window": ["0s", "2s"]}]}
    assert error_of(udp_graph(**flows)) == "flows[0].start_window: give start or start_window, not both"
    flows = {"flows": [{"src": "a", "dst": "b", "tcp": {"min_rto": "1s", "max_rto": "100ms"}}]}
    assert error_of(udp_graph(**flows)) == "flows[0].tcp.min_rto, flows[0].tcp.max_rto: max_rto must be at least min_rto (1s), got 100ms"
    dumbbell = {"pairs": 1, "bottleneck_rate": "1Mbps", "bottleneck_delay": "1ms", "access_rate": "1Gbps",
                "sender_access_delay": "1ms", "receiver_access_delay": ["1ms", "2ms"]}  # fmt: skip
    assert error_of(udp_graph(dumbbell=dumbbell)).startswith(
        "dumbbell.receiver_access_delay: give one delay for all hosts or one per pair (1), got 2"
    )
    dumbbell["receiver_access_delay"] = "1ms"
    assert error_of(udp_graph(dumbbell=dumbbell)) == "dumbbell: give either `dumbbell` or `nodes`/`links`, not both"
    for tcp in ({"rack_retransmits": True}, {"rack_retransmits": True, "rtt_samples": "linux", "sack": False}):
        flows = {"flows": [{"src": "a", "dst": "b", "tcp": tcp}]}
        assert error_of(udp_graph(**flows)).startswith("flows[0].tcp.rack_retransmits: needs SACK (sack = true, not newreno) and Linux's RTT samples"), tcp


def test_every_error_is_reported():
    bad = udp_graph(duration="-1s")
    bad["udp"][0]["arrivals"] = "bursty"
    lines = error_of(bad).splitlines()
    assert [line.split(":")[0] for line in lines] == ["duration", "udp[0].arrivals"]


def test_core_names_the_flow_between_unconnected_nodes():
    data = {
        "duration": "1s",
        "nodes": ["a", "b", "c", "d"],
        "links": [{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}, {"a": "c", "b": "d", "rate": "1Mbps", "delay": 0}],
        "flows": [{"src": "a", "dst": "d"}],
    }
    msg = core_error_of(data)
    assert msg.startswith("flows[0]: ") and "not connected" in msg
    data["flows"][0]["dst"] = "x"
    assert core_error_of(data).startswith("flows[0].dst: unknown node `x`; nodes are: a, b, c, d")


def test_run_raises_the_same_errors():
    with pytest.raises(ScenarioError, match=r"^udp\[0\]\.dst: unknown node `z`"):
        pertlab.run(udp_graph(udp=[{"src": "a", "dst": "z", "rate": "1Mbps", "packet_size": 100}]))


def test_json_schema_describes_human_fields():
    schema = Scenario.json_schema()
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"duration"}
    link = schema["$defs"]["LinkSpec"]["properties"]
    assert "rate" in link and "150Mbps" in link["rate"]["description"]
    json.dumps(schema)  # serialisable


def test_controller_and_red_parameters_are_checked():
    def flow(cc):
        return udp_graph(flows=[{"src": "a", "dst": "b", "cc": cc}])

    assert error_of(flow({"kind": "pert", "p_max": 2})) == "flows[0].cc.p_max: Input should be less than or equal to 1, got 2"
    assert error_of(flow({"kind": "pert", "t_max": "4ms"})) == "flows[0].cc.t_min, flows[0].cc.t_max: t_max must be greater than t_min (5ms), got 4ms"
    assert error_of(flow({"kind": "vegas", "alpha": 4})) == "flows[0].cc.alpha, flows[0].cc.beta: beta must be at least alpha (4), got 3"
    assert error_of(flow({"kind": "vegas", "alhpa": 4})).startswith("flows[0].cc: unknown field `alhpa`; allowed: kind, alpha,")
    red = udp_graph()
    red["links"][1]["queue"] = {"kind": "ared", "red": {"bottom": 0.7}}
    assert error_of(red) == "links[1].queue.red.bottom: must lie in [0, top (0.5)], got 0.7"
    red["links"][1]["queue"]["red"] = {"q_w": -1}
    assert core_error_of(red).startswith("links[1].queue.red.q_w: must lie in (0, 1]")  # the core knows the codes
    ok = Scenario.parse(flow({"kind": "pert", "t_min": "2ms", "t_max": "4ms", "thresholds": "literal"}))
    assert ok.to_wire()["flows"][0]["cc"] == {
        "kind": "pert", "t_min_ns": 2_000_000, "t_max_ns": 4_000_000, "p_max": 0.05, "decrease": 0.35,
        "srtt_weight": 0.99, "thresholds": "literal", "respond_in_slow_start": True, "base_rtt": "observed",
    }  # fmt: skip


def _two_nodes(**flow_tcp) -> dict:
    return {
        "duration": "1s", "nodes": ["a", "b"],
        "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "5ms", "queue": {"kind": "red", "red": {"q_w": 0.002}}}],
        "flows": [{"src": "a", "dst": "b", "tcp": flow_tcp}],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("links", 0, "queue", "red", "q_w"), float("nan"), "links[0].queue.red.q_w: Input should be a finite number"),
        (("links", 0, "queue", "red", "l_interm"), float("inf"), "links[0].queue.red.l_interm: Input should be a finite number"),
        (("flows", 0, "tcp", "packet_size"), 70_000, "flows[0].tcp.packet_size: Input should be less than or equal to 65535"),
        (("flows", 0, "tcp", "init_cwnd"), 2**32, "flows[0].tcp.init_cwnd: Input should be less than or equal to 4294967295"),
        (("seed",), 2**64, "seed: Input should be less than or equal to 18446744073709551615"),
        (("duration",), "1e300s", "duration: '1e300s' is too large"),
    ],
)
def test_values_the_core_cannot_hold_are_field_errors(path, value, message):
    """Issue 25: NaN, infinities and integers beyond the core's types reached its JSON parser and
    came back worded by it ('expected value at line 1 column 223')."""
    data = _two_nodes()
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(pertlab.ScenarioError) as e:
        pertlab.Scenario.parse(data)
    assert str(e.value).startswith(message), str(e.value)


def test_largest_values_the_model_accepts_reach_the_core_as_numbers():
    # The largest window the core allows for that packet: 2^30 bytes (RFC 7323 2.3) of 65,495-byte payloads.
    s = pertlab.Scenario.parse({**_two_nodes(packet_size=65_535, max_cwnd=16_394), "seed": 2**64 - 1})
    wire = json.loads(s.to_wire_json())
    assert wire["seed"] == 2**64 - 1 and wire["flows"][0]["tcp"]["packet_size"] == 65_535
    s.check()
