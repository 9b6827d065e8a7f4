"""The dumbbell builder's documented choices (docs/cli.md)."""

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
        (dict(cc="cubic"), "cc: unknown controller 'cubic'; allowed: sack, newreno, reno, vegas, pert"),
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


def test_mix_without_flow_count_needs_counts():
    with pytest.raises(ScenarioError, match="^flows: give the number of flows"):
        pertlab.dumbbell(flows=None, cc="sack")
