"""The warning that FAST or Vegas flows aim to keep more packets queued than the bottleneck holds
(pertlab.backlog): when it fires, and that its explanation holds in runs (the overflow goes away
when the targets fit)."""

from __future__ import annotations

import pertlab
from pertlab.backlog import backlog_warnings

# 10 Mbit/s and 60 ms: the dumbbell's one-BDP buffer is 50 packets of 1500 bytes.
PATH = dict(bw="10Mbps", rtt="60ms", duration="20s", seed=1)


def _backlog(results: pertlab.Results) -> list[str]:
    return [w for w in results.warnings if "to keep" in w]


def _drop_rate(results: pertlab.Results, label: str) -> float:
    return results.controllers.filter(label=label)["drop_rate"].item()


def test_fast_alpha_above_the_buffer_is_named_and_is_why_the_flows_lose_a_fifth_of_their_packets():
    # FAST's default alpha, 200 packets per flow: 1000 packets wanted in a 50-packet buffer.
    big = pertlab.run(pertlab.dumbbell(flows=5, cc="fast", **PATH))
    [warning] = _backlog(big)
    assert "5 fast flows aim to keep 1000 packets queued (fast.alpha each)" in warning
    assert "buffer holds (50 packets)" in warning
    rate = _drop_rate(big, "fast")
    assert rate > 0.1
    assert f"(in this run: drop rate {rate:.3g})" in warning
    # The explanation's test: with targets that fit (5 x 8 = 40 packets) the same flows lose
    # packets an order of magnitude less often, and nothing is said.
    fits = pertlab.run(pertlab.dumbbell(flows=5, cc="fast", cc_params={"fast": {"alpha": 8}}, **PATH))
    assert _backlog(fits) == []
    assert _drop_rate(fits, "fast") < rate / 5


def test_vegas_counts_by_its_alpha_and_other_controllers_do_not_count():
    # 60 Vegas flows at alpha = 1 want 60 packets; 40 Reno flows beside them add nothing.
    many = pertlab.dumbbell(flows=100, cc="vegas:60,sack:40", buffer_pkts=50, **PATH)
    [warning] = backlog_warnings({}, many)
    assert "its 60 vegas flows aim to keep 60 packets queued (vegas.alpha each)" in warning
    assert "drop rate" not in warning  # no results given
    assert backlog_warnings({}, pertlab.dumbbell(flows=100, cc="vegas:50,sack:50", buffer_pkts=50, **PATH)) == []


def test_a_buffer_in_bytes_counts_each_flows_packets_in_bytes():
    s = pertlab.dumbbell(flows=2, cc="fast", cc_params={"fast": {"alpha": 30}}, packet_size=1000, **PATH)
    held = s.dumbbell.bottleneck_queue.model_copy(update={"limit_pkts": None, "limit_bytes": 59_999})
    [warning] = backlog_warnings({}, s.model_copy(update={"dumbbell": s.dumbbell.model_copy(update={"bottleneck_queue": held})}))
    assert "aim to keep 60000 bytes queued" in warning and "(59999 bytes)" in warning
    held = held.model_copy(update={"limit_bytes": 60_000})
    assert backlog_warnings({}, s.model_copy(update={"dumbbell": s.dumbbell.model_copy(update={"bottleneck_queue": held})})) == []


def test_reverse_flows_are_held_by_the_reverse_bottleneck():
    s = pertlab.dumbbell(flows=1, cc="fast", reverse_flows=1, buffer_pkts=300, **PATH)
    # One flow each way, 200 packets each: both fit in 300 packets.
    assert backlog_warnings({}, s) == []
    small = s.dumbbell.bottleneck_queue.model_copy(update={"limit_pkts": 100})
    [warning] = backlog_warnings({}, s.model_copy(update={"dumbbell": s.dumbbell.model_copy(update={"bottleneck_queue_reverse": small})}))
    assert warning.startswith("bottleneck (r1 -> r0): its fast flow aims to keep 200 packets")


def test_nothing_is_said_where_the_backlog_may_sit_elsewhere():
    s = pertlab.dumbbell(flows=5, cc="fast", **PATH)
    assert len(backlog_warnings({}, s)) == 1
    # Access links slower than the bottleneck queue too.
    slow = s.dumbbell.model_copy(update={"access_rate": s.dumbbell.bottleneck_rate - 1})
    assert backlog_warnings({}, s.model_copy(update={"dumbbell": slow})) == []
    assert backlog_warnings({}, None) == []


def test_behind_an_ecn_aqm_the_warning_counts_the_marks_the_flows_answered():
    # The evaluation suite's bottleneck is adaptive ECN RED with a 100-packet buffer each way.
    from pertlab.tcp_eval_suite import eval_suite

    results = pertlab.run(eval_suite("fast", duration="20s"))
    forward, reverse = _backlog(results)
    assert forward.startswith("bottleneck (r0 -> r1): its 5 fast flows aim to keep 1000 packets queued")
    assert reverse.startswith("bottleneck (r1 -> r0): its 5 fast flows aim to keep 1000 packets queued")
    flows = results.data["flows"]
    ecn = [sum(f["ecn_reductions"] for f in flows if f["label"] == "fast" and f["src"].startswith(side)) for side in "sd"]
    assert min(ecn) > 0
    assert f"{ecn[0]} ECN reductions)" in forward and f"{ecn[1]} ECN reductions)" in reverse


def test_video_streams_send_what_is_written_and_do_not_count():
    s = pertlab.dumbbell(flows=1, cc="sack", video="5@300kbps:fast", **PATH)
    assert [f.cc.kind for f in s.flows].count("fast") == 5
    assert backlog_warnings({}, s) == []
