"""pertlab.acks: the ACKs a receiver sent, read from a capture (the segments each covered, how
long the last was held). On hand-made packets, and on the simulator's own pcaps, whose receivers'
delayed-ACK timer is known exactly. The testbed's captures: test_testbed.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from pertlab import acks
from pertlab.builders import dumbbell
from pertlab.runner import run
from pertlab.scenario.model import CaptureSpec

S, R = "10.0.0.1:10000", "10.0.0.2:5001"


def test_each_ack_counts_the_segments_it_covers_and_the_hold_of_the_last():
    packets = [acks.Packet(*p) for p in [
        (1.000, S, R, 1, 1000, 1, False),
        (1.001, S, R, 1001, 1000, 1, True),
        (1.002, R, S, 1, 0, 2001, False),  # both at once, 1 ms after the second
        (1.010, S, R, 2001, 1000, 1, False),
        (1.050, R, S, 1, 0, 3001, False),  # the lone one, held 40 ms
        (1.051, R, S, 1, 0, 3001, False),  # a duplicate covers nothing new: no row
        (1.060, S, R, 3001, 1000, 1, True),
        (1.0605, R, S, 1, 0, 4001, False),  # a lone pushed one, at once
    ]]
    table = acks.ack_holds(packets, t0=1.0)
    assert table["segments"].to_list() == [2, 1, 1]
    assert [round(h, 6) for h in table["hold_ms"]] == [1.0, 40.0, 0.5]
    assert table["push"].to_list() == [True, False, True]
    assert table["conn"].unique().to_list() == [f"{S} > {R}"]
    s = acks.summary(table, 0.0, 1.0)
    assert s == pytest.approx({"acks": 3, "segments_per_ack": 4 / 3, "lone_share": 2 / 3, "lone_at_once_share": 0.5, "at_once_push_share": 1.0, "push_at_once_share": 1.0, "lone_held_median_ms": 40.0, "cue_acks": 0, "cue_at_once_share": None, "data_push_share": None})
    # Had the held lone segment carried PSH, half the lone pushed ones would have gone at once.
    held_pushed = acks.summary(table.with_columns(push=pl.lit(True)), 0.0, 1.0)
    assert (held_pushed["push_at_once_share"], held_pushed["at_once_push_share"]) == (0.5, 1.0)
    # Two of the four data segments carry PSH; over [0, 5 ms] from t0, one of the two.
    assert acks.push_share(packets, 0.0, 1.0, t0=1.0) == 0.5 and acks.push_share(packets, 0.0, 0.005, t0=1.0) == 0.5
    assert acks.push_share(packets, 0.0, 0.0005, t0=1.0) == 0.0 and acks.push_share(packets, 5.0, 6.0) is None
    assert acks.summary_text(acks.summary(table, 0.0, 1.0, 0.5)).startswith("50 % of the data segments with PSH; 3 ACKs covering new data")
    # Moved to the segments' arrival (a capture upstream of the receiver), the holds shrink.
    assert [round(h, 6) for h in acks.ack_holds(packets, arrival_offset_s=0.0005)["hold_ms"]] == [0.5, 39.5, 0.0]
    assert acks.summary(table, 5.0, 6.0)["acks"] == 0 and acks.summary_text(acks.summary(table, 5.0, 6.0)) == "no ACK covered new data"


def test_ecn_cues_are_cwr_the_first_ce_since_cwr_and_not_ect_after_ect():
    ect, ce = 2, acks.CE
    packets = [acks.Packet(*p) for p in [
        (1.000, S, R, 1, 1000, 1, False, ect, False),
        (1.001, S, R, 1001, 1000, 1, False, ce, False),  # first CE: a cue
        (1.002, R, S, 1, 0, 2001, False),  # at once after it
        (1.010, S, R, 2001, 1000, 1, False, ce, False),  # CE again before CWR: none
        (1.050, R, S, 1, 0, 3001, False),
        (1.060, S, R, 3001, 1000, 1, False, ect, True),  # CWR: a cue
        (1.070, S, R, 4001, 1000, 1, False, ce, False),  # CE after the CWR: a cue
        (1.071, R, S, 1, 0, 5001, False),  # covers both, 11 ms after the CWR, 1 ms after the CE
        (1.080, S, R, 5001, 1000, 1, False, acks.NOT_ECT, False),  # Not-ECT after ECT: a retransmission
        (1.120, R, S, 1, 0, 6001, False),  # held 40 ms
    ]]
    assert acks.ecn_cues(packets) == {1, 5, 6, 8}
    assert acks.ecn_cues([p._replace(ecn=acks.NOT_ECT, cwr=False) for p in packets]) == set()  # no ECN: no cue
    table = acks.ack_holds(packets, t0=1.0)
    assert [None if h is None else round(h, 6) for h in table["cue_hold_ms"]] == [1.0, None, 1.0, 40.0]
    s = acks.summary(table, 0.0, 1.0)
    assert (s["cue_acks"], s["cue_at_once_share"]) == (3, pytest.approx(2 / 3))


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark missing (make sysdeps installs it)")
def test_the_simulators_linux_receivers_acknowledge_ecn_cues_at_once(tmp_path: Path):
    # Step marking at a 10-packet queue and ECN (testbed compare's bottleneck.step_k): with Linux's
    # delayed ACK every ACK covering a cue (CWR, the first CE since CWR, a retransmission) is sent
    # at once after it, read from the pcap's ECN bits and flags. The classic delayed ACK has no
    # such rule: a cue that arrives alone waits for its timer (most arrive second of a pair and
    # are acknowledged at once all the same).
    def cue_share(policy: str) -> tuple[int, float]:
        sc = dumbbell(bw="4Mbps", rtt="40ms", flows=4, cc="cubic", queue="step", aqm={"k_pkts": 10}, ecn=True, duration="10s", warmup="2s", tcp={"ack_policy": policy})
        sc = sc.model_copy(update={"capture": [CaptureSpec(link="r1-d0", file=str(tmp_path / f"{policy}.pcap"))]})
        assert run(sc).bottleneck["marks"] > 0
        d = sc.to_wire()["dumbbell"]
        offset = d["receiver_access_delay_ns"][0] / 1e9 + 1500 * 8 / d["access_rate_bps"]
        s = acks.summary(acks.ack_holds(acks.read_packets(tmp_path / f"{policy}.pcap"), arrival_offset_s=offset), 2.0, 10.0)
        return s["cue_acks"], s["cue_at_once_share"]

    n, linux = cue_share("linux")
    assert n > 20 and linux == 1.0, (n, linux)
    n, delayed = cue_share("delayed")
    assert n > 20 and delayed < 1.0, (n, delayed)


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark missing (make sysdeps installs it)")
@pytest.mark.parametrize("timeout", ["40ms", "25ms"])
def test_the_simulators_delayed_ack_holds_every_lone_segment_for_its_timer(tmp_path: Path, timeout: str):
    # One ACK per two segments and a timer: with no loss (a buffer PERT never fills), every ACK
    # covers one or two segments, a pair acknowledged on the second's arrival and a lone segment
    # when the timer fires.
    sc = dumbbell(bw="10Mbps", rtt="40ms", flows=2, cc="pert", duration="10s", warmup="2s", buffer_pkts=500, tcp={"ack_policy": "delayed", "delayed_ack_timeout": timeout})
    sc = sc.model_copy(update={"capture": [CaptureSpec(link="r1-d0", file=str(tmp_path / "d0.pcap"))]})
    assert run(sc).bottleneck["drops"] == 0
    d = sc.to_wire()["dumbbell"]
    offset = d["receiver_access_delay_ns"][0] / 1e9 + 1500 * 8 / d["access_rate_bps"]
    table = acks.ack_holds(acks.read_packets(tmp_path / "d0.pcap"), arrival_offset_s=offset)
    assert set(table["segments"].unique()) <= {1, 2} and table.height > 100
    pairs, lone = table.filter(pl.col("segments") == 2), table.filter(pl.col("segments") == 1)
    assert pairs["hold_ms"].abs().max() < 1e-6
    assert lone.height > 0 and (lone["hold_ms"] - float(timeout.removesuffix("ms"))).abs().max() < 1e-6
    assert acks.summary(table, 2.0, 10.0)["lone_at_once_share"] == 0.0
    assert acks.push_share(acks.read_packets(tmp_path / "d0.pcap"), 2.0, 10.0) == 0.0  # the simulator sets no PSH


def test_a_capture_tshark_cannot_read_is_an_error_naming_it(tmp_path: Path):
    if shutil.which("tshark") is None:
        with pytest.raises(RuntimeError, match="tshark not found"):
            acks.read_packets(tmp_path / "x.pcap")
        return
    bad = tmp_path / "x.pcap"
    bad.write_bytes(b"not a capture")
    with pytest.raises(RuntimeError, match="tshark could not read .*x.pcap"):
        acks.read_packets(bad)


def test_the_first_windows_are_each_connections_first_segments_in_capture_order():
    """`first_windows`: every connection's first `init_cwnd` segments (counted in its first
    segment's size, from its first segment's number), once each, in the capture's order; ACKs,
    later segments and retransmissions left out. `order_text` writes the senders as runs."""
    A, B = "10.0.0.3:10001", "10.0.0.4:10002"
    packets = [acks.Packet(*p) for p in [
        (1.000, A, R, 1, 1000, 1, False),
        (1.001, S, R, 1, 1000, 1, False),
        (1.002, A, R, 1001, 1000, 1, False),
        (1.003, R, A, 1, 0, 2001, False),  # an ACK: not data
        (1.004, A, R, 1001, 1000, 1, False),  # a retransmission of the second: once only
        (1.005, B, R, 501, 500, 1, False),  # B's first segment is 500 bytes from 501: its window is [501, 1501)
        (1.006, A, R, 2001, 1000, 1, False),  # A's third: past a window of 2
        (1.007, B, R, 1001, 500, 1, False),
        (1.008, S, R, 1001, 1000, 1, False),
    ]]  # fmt: skip
    first = acks.first_windows(packets, init_cwnd=2)
    assert [(p.src, p.seq) for p in first] == [(A, 1), (S, 1), (A, 1001), (B, 501), (B, 1001), (S, 1001)]
    ids = {A: 1, S: 0, B: 2}
    assert acks.order_text([ids[p.src] for p in first]) == "1x1 0x1 1x1 2x2 0x1"
    assert acks.order_text([]) == ""


def test_first_windows_of_one_flow_per_capture_merge_by_their_stamps():
    """`merged_first_windows`: captures holding one flow each (the simulator's receivers' access
    links), their first windows merged by time into flow indices."""
    one = [acks.Packet(*p) for p in [(0.001, S, R, 1, 1000, 1, False), (0.004, S, R, 1001, 1000, 1, False)]]
    two = [acks.Packet(*p) for p in [(0.002, "10.0.0.3:1", R, 1, 1000, 1, False), (0.003, "10.0.0.3:1", R, 1001, 1000, 1, False), (0.005, "10.0.0.3:1", R, 2001, 1000, 1, False)]]
    assert acks.merged_first_windows([one, two], init_cwnd=2) == [0, 1, 1, 0]
