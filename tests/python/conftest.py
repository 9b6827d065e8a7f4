"""Small scenarios shared by the tests: fast enough to run many times."""

from __future__ import annotations

import pytest

import pertlab


def small_dumbbell(**overrides) -> pertlab.Scenario:
    """4 SACK flows on a 10 Mbps / 40 ms dumbbell for 10 s, metrics over 2..10 s."""
    args = dict(bw="10Mbps", rtt="40ms", flows=4, cc="sack", duration="10s", start_window="1s", warmup="2s")
    args.update(overrides)
    return pertlab.dumbbell(**args)


def udp_graph(**overrides) -> dict:
    """Two hosts and a router; one Poisson UDP source through a 10 Mbps link."""
    data = {
        "duration": "5s",
        "nodes": ["a", "r", "b"],
        "links": [
            {"a": "a", "b": "r", "rate": "100Mbps", "delay": "1ms"},
            {"name": "bottleneck", "a": "r", "b": "b", "rate": "10Mbps", "delay": "5ms", "queue": {"limit_pkts": 30}},
        ],
        "udp": [{"src": "a", "dst": "b", "rate": "9Mbps", "packet_size": "1000B"}],
        "monitor": {"sample_interval": "100ms"},
    }
    data.update(overrides)
    return data


@pytest.fixture
def dumbbell_scenario() -> pertlab.Scenario:
    return small_dumbbell(sample_interval="100ms")


class InProcess:
    """Workers that run a quick reproduction's tasks in this process, one after another
    (no worker processes to start: the quick runs take less than starting them)."""

    def map(self, fn, items):
        return [fn(x) for x in items]
