"""The dumbbell builder's documented choices (docs/cli.md)."""

import polars as pl
import pytest

import pertlab
from pertlab import ScenarioError
from pertlab.builders import buffer_packets, parse_cc_mix, split_rtt


def test_paper_dumbbell():
    s = pertlab.dumbbell(bw="150Mbps", rtt="60ms", flows=50, cc="sack", duration="400s",
                         start_window="50s", warmup="100s", measure_end="300s")  # fmt: skip
    d = s.dumbbell
    assert d.pairs == 50 and d.bottleneck_rate == 150_000_000
    # RTT = 2 x (1 ms + 28 ms + 1 ms)
    assert (d.sender_access_delay, d.bottleneck_delay, d.receiver_access_delay) == ([1_000_000], 28_000_000, [1_000_000])
    assert d.access_rate == 1_500_000_000  # max(10 x 150 Mbps, 1 Gbps)
    assert d.bottleneck_queue.kind == "droptail" and d.bottleneck_queue.limit_pkts == 750  # BDP in 1500 B packets
    assert (s.measure.start, s.measure.end, s.duration) == (100 * 10**9, 300 * 10**9, 400 * 10**9)
    assert all(f.start_window == (0, 50 * 10**9) for f in s.flows)
    assert all(f.cc.kind == "reno" and f.tcp.sack and not f.tcp.ecn for f in s.flows)


def test_rtt_split_keeps_the_round_trip():
    for rtt in (60_000_000, 10_000_000, 4_000_000, 1_000_000):
        access, bottleneck = split_rtt(rtt)
        assert 2 * (2 * access + bottleneck) == rtt
        assert 0 < access <= 1_000_000 and bottleneck > 0


def test_buffer_rule_has_a_floor_of_two_packets_per_flow():
    assert buffer_packets(150_000_000, 60_000_000, 1500, 1.0, 50) == 750
    assert buffer_packets(150_000_000, 60_000_000, 1500, 0.5, 50) == 375
    assert buffer_packets(10_000_000, 60_000_000, 1500, 1.0, 50) == 100  # BDP 50 < 2 x 50 flows
    assert pertlab.dumbbell(bw="1Gbps", flows=10, access_rate="2Gbps").dumbbell.access_rate == 2_000_000_000
    assert pertlab.dumbbell(bw="10Mbps", flows=10).dumbbell.access_rate == 1_000_000_000


def test_controller_mix():
    assert parse_cc_mix("pert:25,sack:25", None) == [("pert", 25), ("sack", 25)]
    s = pertlab.dumbbell(flows=None, cc="pert:2, newreno:3")
    assert [(f.cc.kind, f.tcp.sack) for f in s.flows] == [("pert", True)] * 2 + [("reno", False)] * 3
    assert [f.src for f in s.flows] == ["s0", "s1", "s2", "s3", "s4"]


@pytest.mark.parametrize(
    ("kwargs", "start"),
    [
        (dict(cc="bbr"), "cc: unknown controller 'bbr'; allowed: sack, newreno, reno, vegas, pert, pert-pi, pert-adaptive, hstcp, cubic, compound, illinois, fast"),
        (dict(cc="pert:25,sack:20", flows=50), "cc: the mix has 45 flows but flows is 50"),
        (dict(cc="pert:x"), "cc: flow count of 'pert' must be a positive integer"),
        (dict(cc="pert,sack:3"), "cc: in a mix every controller needs a flow count"),
        (dict(queue="fifo"), "queue: unknown queue 'fifo'; allowed: droptail, red, ared"),
        (dict(bw="-1Mbps"), "bw: must be positive"),
        (dict(warmup="200s", duration="100s"), "warmup: must lie in [0, duration)"),
        (dict(rtt="fast"), "rtt: cannot read 'fast' as a time"),
    ],
)
def test_bad_arguments_are_named(kwargs, start):
    with pytest.raises(ValueError) as e:
        pertlab.dumbbell(**kwargs)
    assert str(e.value).startswith(start)


def test_ecn_with_ared_marks():
    s = pertlab.dumbbell(flows=4, queue="ared", ecn=True)
    q = s.dumbbell.bottleneck_queue
    assert q.kind == "ared" and q.red.use_ecn
    assert all(f.tcp.ecn for f in s.flows)


def test_without_a_flow_count_the_mix_or_the_default_decides():
    """flows=None: the counts of the mix, else DEFAULT_FLOWS (also for a py:module:Class, whose
    colons are not counts); parse_cc_mix without a default still asks for a number."""
    from pertlab.builders import DEFAULT_FLOWS, parse_cc_mix

    assert len(pertlab.dumbbell(flows=None, cc="sack").flows) == DEFAULT_FLOWS == 50
    assert len(pertlab.dumbbell(cc="pert:3,sack:4").flows) == 7
    assert [n for _, n in parse_cc_mix("pert:50%,sack:50%", None, default_flows=DEFAULT_FLOWS)] == [25, 25]
    with pytest.raises(ScenarioError, match="^flows: give the number of flows"):
        parse_cc_mix("sack", None)


def test_one_rtt_per_flow_sets_each_pairs_access_delays():
    from pertlab.builders import dumbbell

    s = dumbbell(bw="150Mbps", rtt=",".join(f"{12 * i}ms" for i in range(1, 11)), flows=10, duration="10s", warmup="1s")
    d = s.to_wire()["dumbbell"]
    # 12 ms: 1 + 4 + 1 ms one way; 120 ms: 28 + 4 + 28 ms.
    assert d["bottleneck_delay_ns"] == 4_000_000
    assert [2 * (2 * a + d["bottleneck_delay_ns"]) for a in d["sender_access_delay_ns"]] == [12_000_000 * i for i in range(1, 11)]
    # Buffer: BDP at the mean RTT (66 ms) in 1500-byte packets.
    assert d["bottleneck_queue"]["limit_pkts"] == round(150e6 * 0.066 / 12000)
    r = pertlab.run(s)
    assert r.flows["base_rtt_ms"].to_list() == [12.0 * i for i in range(1, 11)]


def test_rtt_list_of_the_wrong_length_and_negative_reverse_flows_are_errors():
    from pertlab.builders import dumbbell

    with pytest.raises(pertlab.ScenarioError, match="rtt: give one RTT or one per flow"):
        dumbbell(rtt="10ms,20ms", flows=3)
    with pytest.raises(pertlab.ScenarioError, match="reverse_flows"):
        dumbbell(reverse_flows=-1)


def test_reverse_flows_send_from_the_receiver_side():
    from pertlab.builders import dumbbell

    r = pertlab.run(dumbbell(bw="10Mbps", rtt="40ms", flows=2, reverse_flows=2, duration="10s", warmup="2s", start_window="1s"))
    rev = r.flows.filter(pl.col("src").str.starts_with("d"))
    assert rev.height == 2 and (rev["goodput_mbps"] > 1).all()
    # Both directions are loaded: each direction's bottleneck queue carries data.
    busy = r.queues.filter((pl.col("link") == "bottleneck") & (pl.col("utilization") > 0.5))
    assert sorted(zip(busy["from"], busy["to"])) == [("r0", "r1"), ("r1", "r0")]
