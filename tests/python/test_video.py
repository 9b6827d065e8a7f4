"""Live video over TCP (Qian 2011): an application-limited constant-rate writer,
the playout-deadline client, its metrics and bad input."""

import pytest

from pertlab import Scenario, ScenarioError
from pertlab.builders import dumbbell
from pertlab.runner import run

from conftest import udp_graph


def video_rows(**kw):
    sc = dumbbell(bw="10Mbps", rtt="60ms", flows=3, cc="pert", duration="20s", packet_size=1000, start_window=0,
                  warmup="4s", video="2@300kbps", **kw)  # fmt: skip
    flows = run(sc).flows
    return flows.filter(flows["label"] == "video-pert").to_dicts(), flows.filter(flows["label"] == "pert").to_dicts()


def test_a_video_stream_sends_its_rate_and_plays_on_time():
    videos, bulk = video_rows(startup_delay="2s")
    for v in videos:
        # 300 kbit/s of payload (960 of the 1000 bytes): one segment per 25.6 ms, 781 in 20 s.
        assert v["goodput_mbps"] == pytest.approx(0.3, rel=0.01)
        assert v["segments_sent"] - v["retransmits"] <= 781
        # Counted: every segment delivered (all on time, deadlines up to 22 s) plus the due ones
        # missing (none): the 781 written less the last few still on the 60 ms path.
        assert 776 <= v["video_packets"] <= 781
        assert (v["video_late"], v["video_late_fraction"], v["video_success"]) == (0, 0.0, True)
    assert all(b["video_packets"] is None and b["video_success"] is None for b in bulk)


def test_a_run_that_ends_before_any_segment_is_due_warns():
    """A 2 Mbit/s stream on a 1 Mbit/s link cannot keep up, but a 3-s run with a 5-s start-up delay
    judges only the segments delivered early: all on time, success. The run says so; a run that
    outlasts the delay judges the stream (late) and does not warn."""
    sc = dict(bw="1Mbps", rtt="60ms", flows=1, cc="sack", packet_size=1000, start_window=0, warmup="1s", video="2@2Mbps")
    short = run(dumbbell(duration="3s", startup_delay="5s", startup_delays=["1s", "6s"], **sc))
    videos = short.flows.filter(short.flows["video_packets"].is_not_null())
    assert videos["video_success"].to_list() == [True, True]
    [warning] = [w for w in short.warnings if "video" in w]
    assert "ended at 3 s" in warning and "5 s (2 of 2 streams), 6 s (2 of 2 streams)" in warning and " 1 s" not in warning
    assert short.video_playout.filter(short.video_playout["startup_delay_s"] == 1.0)["success"].to_list() == [False, False]
    long = run(dumbbell(duration="8s", startup_delay="5s", **sc))
    assert long.flows.filter(long.flows["video_packets"].is_not_null())["video_success"].to_list() == [False, False]
    assert not [w for w in long.warnings if "video" in w]


def test_without_a_start_up_delay_every_packet_is_late():
    """Deadline = generation time: no packet can make it (the path takes 60 ms)."""
    videos, _ = video_rows(startup_delay="0s")
    for v in videos:
        assert v["video_late"] == v["video_packets"] > 700
        assert v["video_late_fraction"] == 1.0 and v["video_success"] is False


def test_further_start_up_delays_count_as_a_run_with_that_delay_would():
    """One run with further start-up delays gives, at each, what a run with that start-up
    delay gives (the delay changes the accounting, not the traffic); the late fraction falls
    as the delay grows. 4 SACK flows fill the 4 Mbit/s link's buffer, so some segments are late."""
    delays = {"100ms": 0.1, "300ms": 0.3, "1s": 1.0}
    sc = dict(bw="4Mbps", rtt="100ms", flows=4, cc="sack", duration="30s", packet_size=1000, warmup="4s", video="2@300kbps")
    r = run(dumbbell(startup_delay="2s", startup_delays=list(delays), **sc))
    table = r.video_playout
    assert table["startup_delay_s"].to_list() == list(delays.values()) * 2
    for d, seconds in delays.items():
        flows = run(dumbbell(startup_delay=d, **sc)).flows
        alone = flows.filter(flows["video_packets"].is_not_null())
        at = table.filter(table["startup_delay_s"] == seconds)
        assert at["late"].to_list() == alone["video_late"].to_list() and at["packets"].to_list() == alone["video_packets"].to_list()
    for flow in (0, 1):
        late = table.filter(table["flow"] == table["flow"].unique().sort()[flow])["late_fraction"].to_list()
        assert late == sorted(late, reverse=True) and late[0] > late[-1]
    # Flows without a video, and runs without further delays, have no rows.
    assert run(dumbbell(startup_delay="2s", **sc)).video_playout.height == 0


def test_bad_video_input_names_the_field():
    with pytest.raises(ScenarioError, match=r"^video: the video rate \(20000000 bit/s\) must be at most the access link rate \(10000000 bit/s\)"):
        dumbbell(bw="1Mbps", flows=1, access_rate="10Mbps", video="1@20Mbps")
    with pytest.raises(ScenarioError, match=r"^startup_delay: "):
        dumbbell(flows=1, video="1@300kbps", startup_delay="-1s")
    with pytest.raises(ScenarioError, match=r"^video: write N@RATE"):
        dumbbell(flows=1, video="300kbps")
    with pytest.raises(ScenarioError, match=r"^startup_delays: further start-up delays need video streams"):
        dumbbell(flows=1, startup_delays=["1s"])
    with pytest.raises(ScenarioError, match=r"^startup_delays\[1\]: must be strictly increasing, got 1s after 2s"):
        dumbbell(flows=1, video="1@300kbps", startup_delays=["2s", "1s"])
    # The model and the core, on a scenario file.
    flows = [{"src": "a", "dst": "b", "video": {"rate": "300kbps", "startup_delay": "-1s"}}]
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.video\.startup_delay: "):
        Scenario.parse(udp_graph(flows=flows))
    flows = [{"src": "a", "dst": "b", "video": {"rate": "300kbps", "startup_delay": "1s", "startup_delays": ["1s", "1s"]}}]
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.video\.startup_delays\[1\]: must be strictly increasing, got 1s after 1s"):
        Scenario.parse(udp_graph(flows=flows))
    graph = udp_graph(flows=[{"src": "a", "dst": "b", "video": {"rate": "1Gbps", "startup_delay": "1s"}}])
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.video\.rate: must be at most the sender's access link rate"):
        Scenario.parse(graph).check()


def test_t_over_mu_is_the_fair_share_of_a_greedy_probe_over_the_video_rate():
    """Qian's T/mu with a probe: 3 greedy SACK flows, the probe and two 1 Mbit/s streams on
    10 Mbit/s (1460 of 1500 bytes payload: 9.733 Mbit/s). The streams take their 2 Mbit/s; the
    4 greedy flows share the rest, T = (9.733 - 2) / 4 = 1.933 Mbit/s, so T/mu = 1.93."""
    sc = dumbbell(bw="10Mbps", rtt="40ms", flows=3, duration="60s", warmup="10s", video="2@1Mbps", startup_delay="2s",
                  t_mu_probe=True, tcp={"overhead": "1ms"})  # fmt: skip
    flows = run(sc).flows
    probe = flows.filter(flows["probe"])
    assert probe["label"].to_list() == ["probe-sack"]
    videos = flows.filter(flows["label"] == "video-sack")
    expected = (10 * 1460 / 1500 - 2) / 4
    assert probe["goodput_mbps"][0] == pytest.approx(expected, rel=0.10)
    assert videos["video_t_mu"].to_list() == pytest.approx([probe["goodput_mbps"][0] / 1.0] * 2, rel=1e-12)
    assert flows.filter(~flows["probe"] & (flows["label"] == "sack"))["video_t_mu"].null_count() == 3


def test_a_probe_cannot_carry_a_video_and_needs_streams():
    flows = [{"src": "a", "dst": "b", "probe": True, "video": {"rate": "300kbps", "startup_delay": "1s"}}]
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.probe: a probe is a greedy flow measuring T for the video streams; it cannot carry a video"):
        Scenario.parse(udp_graph(flows=flows))
    with pytest.raises(ScenarioError, match=r"^t_mu_probe: a T/mu probe needs video streams"):
        dumbbell(flows=1, t_mu_probe=True)
