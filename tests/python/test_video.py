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


def test_without_a_start_up_delay_every_packet_is_late():
    """Deadline = generation time: no packet can make it (the path takes 60 ms)."""
    videos, _ = video_rows(startup_delay="0s")
    for v in videos:
        assert v["video_late"] == v["video_packets"] > 700
        assert v["video_late_fraction"] == 1.0 and v["video_success"] is False


def test_bad_video_input_names_the_field():
    with pytest.raises(ScenarioError, match=r"^video: the video rate \(20000000 bit/s\) must be at most the access link rate \(10000000 bit/s\)"):
        dumbbell(bw="1Mbps", flows=1, access_rate="10Mbps", video="1@20Mbps")
    with pytest.raises(ScenarioError, match=r"^startup_delay: "):
        dumbbell(flows=1, video="1@300kbps", startup_delay="-1s")
    with pytest.raises(ScenarioError, match=r"^video: write N@RATE"):
        dumbbell(flows=1, video="300kbps")
    # The model and the core, on a scenario file.
    flows = [{"src": "a", "dst": "b", "video": {"rate": "300kbps", "startup_delay": "-1s"}}]
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.video\.startup_delay: "):
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
