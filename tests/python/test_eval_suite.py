"""The TCP evaluation suite's dumbbell (:mod:`pertlab.tcp_eval_suite`, Tahiliani 2013 Section 4.4.2):
its links, buffer, queues, traffic and start times against the suite's rules, and its sources
measured in a run."""

from __future__ import annotations

from pathlib import Path

import pytest

import pertlab
from pertlab.tcp_eval_suite import (
    SUITE_RED, START_WINDOW_NS, STREAMING_PACKET_BYTES, STREAMING_RATE_BPS, VOICE_PACKET_BYTES, VOICE_RATE_BPS, WEB_SESSIONS, eval_suite,
    suite_buffer_pkts,
)  # fmt: skip
from pertlab.scenario import ScenarioError


def test_links_buffer_and_queues_follow_the_suite_rules():
    w = eval_suite("sack", bw="10Mbps", rtt="80ms").to_wire()
    d = w["dumbbell"]
    # Bottleneck 0.4 RTTp one way, edges 0.05 RTTp: a round trip of exactly RTTp.
    assert d["bottleneck_delay_ns"] == 32_000_000 and d["sender_access_delay_ns"] == d["receiver_access_delay_ns"] == [4_000_000]
    assert 2 * (d["bottleneck_delay_ns"] + 2 * 4_000_000) == 80_000_000
    assert d["access_rate_bps"] == 20_000_000
    # One BDP of 1000-byte packets: 10 Mbit/s x 80 ms = 100 packets; at least 2 per FTP flow (10 flows).
    assert d["bottleneck_queue"]["limit_pkts"] == 100 == suite_buffer_pkts(10_000_000, 80_000_000)
    assert suite_buffer_pkts(10_000_000, 10_000_000) == 20 and suite_buffer_pkts(10**9, 80_000_000) == 10_000
    # The suite's adaptive gentle ECN RED, the same discipline in both directions.
    q = d["bottleneck_queue"]
    assert q["kind"] == "ared" and d["bottleneck_queue_reverse"] == q
    red = q["red"]
    assert red["use_ecn"] and red["gentle"] and red["q_w"] == SUITE_RED["q_w"] == 0.001 and red["bottom"] == 0.001
    assert red["target_delay_ns"] == 5_000_000
    # Long round trips too: the RTT once reached the dumbbell builder in ns, which reads a plain
    # number as seconds, so 20 s was refused as 2e19 ns "too large".
    long = eval_suite("sack", bw="10Mbps", rtt="20s", duration="30s").to_wire()["dumbbell"]
    assert 2 * (long["bottleneck_delay_ns"] + 2 * long["sender_access_delay_ns"][0]) == 20 * 10**9
    # XCP runs over XCP routers both ways, without ECN.
    x = eval_suite("xcp").to_wire()["dumbbell"]
    assert x["bottleneck_queue"]["kind"] == x["bottleneck_queue_reverse"]["kind"] == "xcp"


def test_traffic_mix_and_start_times():
    s = eval_suite("surathkal", bw="20Mbps", rtt="100ms", seed=3)
    w = s.to_wire()
    flows = w["flows"]
    forward = [f for f in flows if f["src"].startswith("s")]
    reverse = [f for f in flows if f["src"].startswith("d")]
    assert len(forward) == len(reverse) == 5
    assert all(f["cc"]["kind"] == "surathkal" and f["tcp"]["ecn"] and f["tcp"]["ecn_feedback"] == "xecn" for f in flows)
    assert all(f["tcp"]["packet_size"] == 1040 for f in flows)
    voice = [u for u in w["udp"] if u["rate_bps"] == VOICE_RATE_BPS]
    streaming = [u for u in w["udp"] if u["rate_bps"] == STREAMING_RATE_BPS]
    assert len(voice) == 10 and len(streaming) == 10 and len(w["udp"]) == 20
    assert {u["packet_size"] for u in voice} == {VOICE_PACKET_BYTES} and {u["packet_size"] for u in streaming} == {STREAMING_PACKET_BYTES}
    # Voice is two-way (5 each way), streaming 5 forward and 5 reverse.
    for group in (voice, streaming):
        assert sum(u["src"].startswith("s") for u in group) == 5 and sum(u["src"].startswith("d") for u in group) == 5
    assert all(u["arrivals"] == "cbr_random" for u in w["udp"])
    lo, hi = START_WINDOW_NS
    assert all(lo <= u["start_ns"] <= hi for u in w["udp"]) and len({u["start_ns"] for u in w["udp"]}) == 20
    assert all(f["start_window_ns"] == [lo, hi] for f in flows) and w["web"][0]["start_window_ns"] == [lo, hi]
    assert w["web"][0]["sessions"] == WEB_SESSIONS
    # The UDP starts come from the seed: the same seed gives the same scenario, another seed others.
    assert eval_suite("surathkal", bw="20Mbps", rtt="100ms", seed=3) == s
    assert [u["start_ns"] for u in eval_suite("surathkal", bw="20Mbps", rtt="100ms", seed=4).to_wire()["udp"]] != [u["start_ns"] for u in w["udp"]]
    # CUBIC runs without ECN, as in the suite.
    assert not any(f["tcp"]["ecn"] for f in eval_suite("cubic").to_wire()["flows"])


def test_a_run_carries_every_source_at_its_rate_and_reverse_traffic_loads_the_ack_path():
    s = eval_suite("sack", bw="10Mbps", rtt="80ms", duration="20s", warmup="5s")
    r = pertlab.run(s)
    sent = dict(zip(r.udp["id"].to_list(), r.udp["sent"].to_list()))
    # Packets sent in the 15 s window, per source, averaged over each group: dithered CBR keeps the
    # mean rate (one source's count varies by about 1 % over 15 s; a group of 10 by about 0.3 %).
    for rate, size in ((VOICE_RATE_BPS, VOICE_PACKET_BYTES), (STREAMING_RATE_BPS, STREAMING_PACKET_BYTES)):
        ids = [i for i, u in enumerate(s.to_wire()["udp"]) if u["rate_bps"] == rate]
        mean = sum(sent[i] for i in ids) / len(ids)
        assert mean == pytest.approx(rate / (8 * size) * 15, rel=0.01), (rate, [sent[i] for i in ids])
        assert len({sent[i] for i in ids}) > 1  # dithered: the sources do not move in lock-step
    # Both directions of the bottleneck carry data: the reverse FTP flows and streams load the ACK path.
    both = r.queues.filter(r.queues["link"] == "bottleneck")
    assert both.height == 2 and both["utilization"].min() > 0.5
    # Web: about the suite's 15 new connections a second (15 sessions, 1 s mean think time, less
    # the transfer time of each page).
    assert 12 <= r.web["objects_requested"] / 20 <= 15, r.web


def test_a_discipline_written_in_python_runs_in_both_directions(monkeypatch):
    """``queue`` replaces the suite's RED with any discipline, here RED written in Python
    (examples/python_aqm), on both directions of the bottleneck, as the suite's RED is."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "examples" / "python_aqm"))
    s = eval_suite("sack", bw="10Mbps", duration="4s", warmup="1s", queue="py:red:Red")
    d = s.to_wire()["dumbbell"]
    assert d["bottleneck_queue"] == d["bottleneck_queue_reverse"]
    assert (d["bottleneck_queue"]["kind"], d["bottleneck_queue"]["target"], d["bottleneck_queue"]["limit_pkts"]) == ("py", "red:Red", 100)
    r = pertlab.run(s)
    both = r.queues.filter(r.queues["link"] == "bottleneck")
    assert set(both["discipline"]) == {"py:red:Red"} and both["utilization"].min() > 0.5


def test_bad_input_names_the_argument():
    with pytest.raises(ScenarioError, match="cc"):
        eval_suite("tahoe")
    for bad, field in (({"bw": "0Mbps"}, "bw"), ({"bw": "fast"}, "bw"), ({"rtt": "-3ms"}, "rtt"), ({"warmup": "200s"}, "warmup")):
        with pytest.raises(ValueError, match=f"^{field}: "):  # ScenarioError is a ValueError
            eval_suite(**bad)

