"""Random valid scenarios: the core never panics and conserves packets."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pertlab

controllers = st.sampled_from(["sack", "newreno", "reno", "vegas", "pert"])


@st.composite
def small_dumbbells(draw) -> pertlab.Scenario:
    flows = draw(st.integers(1, 5))
    mix = ",".join(f"{draw(controllers)}:1" for _ in range(flows))
    queue = draw(st.sampled_from(["droptail", "red", "ared"]))
    return pertlab.dumbbell(
        bw=f"{draw(st.integers(1, 30))}Mbps",
        rtt=f"{draw(st.integers(4, 200))}ms",
        flows=None,
        cc=mix,
        queue=queue,
        ecn=draw(st.booleans()),
        duration="3s",
        start_window=f"{draw(st.integers(0, 1000))}ms",
        warmup="1s",
        buffer_bdp=draw(st.sampled_from([0.1, 0.5, 1.0, 2.0])),
        seed=draw(st.integers(0, 2**64 - 1)),
    )


@st.composite
def small_graphs(draw) -> dict:
    """A chain h0 - r0 - .. - r{k-1} - h1 with a flow and a UDP source end to end."""
    routers = draw(st.integers(1, 3))
    nodes = ["h0", *(f"r{i}" for i in range(routers)), "h1"]
    links = [
        {
            "a": a,
            "b": b,
            "rate": f"{draw(st.integers(1, 50))}Mbps",
            "delay": f"{draw(st.integers(0, 30))}ms",
            "loss": draw(st.sampled_from([0.0, 0.0, 0.01])),
            "queue": {"kind": draw(st.sampled_from(["droptail", "red"])), "limit_pkts": draw(st.integers(2, 200))},
        }
        for a, b in zip(nodes, nodes[1:])
    ]
    return {
        "seed": draw(st.integers(0, 1000)),
        "duration": "2s",
        "nodes": nodes,
        "links": links,
        "flows": [{"src": "h0", "dst": "h1", "cc": draw(st.sampled_from(["reno", "vegas", "pert"]))}],
        "udp": [
            {
                "src": "h1",
                "dst": "h0",
                "rate": f"{draw(st.integers(1, 20))}Mbps",
                "packet_size": draw(st.integers(40, 1500)),
                "arrivals": draw(st.sampled_from(["cbr", "poisson"])),
                "sizes": draw(st.sampled_from(["fixed", "exponential"])),
            }
        ],
    }


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(small_dumbbells())
def test_random_dumbbells_conserve_packets(scenario):
    r = pertlab.run(scenario)
    assert r.conservation["ok"], r.conservation["violations"]
    assert not r.interrupted
    # Utilization is the busy fraction of the window (a packet straddling an
    # edge counts for its part inside), so it can never exceed 1.
    assert 0 <= r.bottleneck["utilization"] <= 1
    assert r.flows.height == scenario.dumbbell.pairs


@SETTINGS
@given(small_graphs())
def test_random_graphs_conserve_packets(data):
    r = pertlab.run(data)
    assert r.conservation["ok"], r.conservation["violations"]
    assert (r.queues["utilization"] <= 1).all()
