"""Receiver ACK policies (Qian 2011, IV.A): every segment, classic delayed ACK,
adaptive delayed ACK, and Linux's delayed ACK; the data/ACK metrics of the results; bad input."""

import pytest

from pertlab import Scenario, ScenarioError
from pertlab.builders import dumbbell
from pertlab.runner import run

from conftest import udp_graph


def one_flow(**tcp):
    """One greedy SACK flow on 10 Mbit/s, 60 ms; its window (100) lies between the
    path's 50 packets and the path plus the 100-packet buffer: no loss, the link busy,
    data arriving in order one packet time apart (Qian's Fig 16/17 conditions)."""
    sc = dumbbell(bw="10Mbps", rtt="60ms", flows=1, duration="20s", buffer_pkts=100, start_window=0, warmup="5s",
                  tcp={"max_cwnd": 100, **tcp})  # fmt: skip
    return run(sc).flows.row(0, named=True)


@pytest.mark.parametrize(
    "tcp, policy, ratio",
    [({"ack_policy": "adaptive"}, "adaptive", 4.0), ({"ack_policy": "delayed"}, "delayed", 2.0),
     ({"delayed_ack": True}, "delayed", 2.0), ({"ack_policy": "linux"}, "linux", 2.0), ({}, "every", 1.0)],
)  # fmt: skip
def test_data_per_ack_ratio_of_one_greedy_flow(tcp, policy, ratio):
    """Qian Fig 17(c): data/ACK about 4 (adaptive), 2 (delay by two), 1 (no delay)."""
    f = one_flow(**tcp)
    assert f["ack_policy"] == policy
    assert f["drops"] == 0 and f["data_mbps"] > 9.5
    assert abs(f["data_ack_ratio"] - ratio) <= 0.05 * ratio, f
    # One definition: ratio = data packets received / ACKs sent; ACK Mbit/s from the ACK size (40 B).
    assert f["data_ack_ratio"] == pytest.approx(f["segments_received"] / f["acks_sent"])
    assert f["ack_mbps"] == pytest.approx(f["acks_sent"] * 40 * 8 / 15 / 1e6)
    assert f["data_mbps"] == pytest.approx(f["segments_received"] * 1500 * 8 / 15 / 1e6)


def test_bad_ack_parameters_name_the_field():
    def error(tcp):
        with pytest.raises(ScenarioError) as e:
            Scenario.parse(udp_graph(flows=[{"src": "a", "dst": "b", "tcp": tcp}]))
        return str(e.value)

    assert error({"ack_policy": "adaptive", "adaptive_ack": {"max_segments": 0}}) == (
        "flows[0].tcp.adaptive_ack.max_segments: must be at least the minimum segments per ACK (1), got 0"
    )
    assert error({"adaptive_ack": {"ewma_weight": 1.0}}).startswith("flows[0].tcp.adaptive_ack.ewma_weight: ")
    assert error({"ack_policy": "sometimes"}).startswith("flows[0].tcp.ack_policy: ")
    assert error({"delayed_ack": True, "ack_policy": "adaptive"}).startswith(
        'flows[0].tcp.ack_policy: delayed_ack = true means ack_policy = "delayed"'
    )
    assert error({"delayed_ack": True, "ack_policy": "linux"}).startswith(
        'flows[0].tcp.ack_policy: delayed_ack = true means ack_policy = "delayed"'
    )
    assert error({"ack_policy": "linux", "linux_ack": {"hz": 200}}) == "flows[0].tcp.linux_ack.hz: got 200; allowed: 100, 250, 300 or 1000"
    assert error({"linux_ack": {"quickacks": 17}}).startswith("flows[0].tcp.linux_ack.quickacks: ")
