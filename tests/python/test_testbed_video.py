"""Issue 15, the thesis's Linux test (Qian 2011, III.B) on the namespace testbed: a live video
stream on real sockets (``[[flows]] video = {...}``: an application-limited constant-rate
writer, ``pertlab.linux.flows``) and its playout at the receiver, counted by the core's one
definition (``pertlab._core.video_playout``), beside the simulator (``compare``).

The playout arithmetic and the validation need nothing but Python; the runs need root,
namespaces and TUN (skipped, saying what is missing, without them)."""

from __future__ import annotations

import pytest

from pertlab._core import video_playout
from pertlab.linux import runs, testbed
from pertlab.linux.sim_side import sim_scenario
from pertlab.linux.scenario import TestbedScenario, load_scenario
from pertlab.linux.testbed import _video_columns
from pertlab.scenario import ScenarioError

#: Kernels, namespaces and signals against real time: run alone (pyproject.toml, markers).
pytestmark = pytest.mark.quiet_host

PROBLEM = testbed.support_problem(needs_pert=False)
needs_testbed = pytest.mark.skipif(PROBLEM is not None, reason=f"testbed: {PROBLEM}")
MS = 1_000_000


def test_the_playout_counts_a_hand_made_delivery_trace() -> None:
    """Segments every 10 ms from 0, start-up delay 15 ms, so due at 15, 25, 35, ... ms; delivered
    in order at 10 (on time), 30 (late: due 25) and 30 ms (on time: due 35); the run ends at
    100 ms, by which 9 were due: 6 never delivered are late too. 7 late of 9."""
    assert video_playout(0, 10 * MS, 15 * MS, [10 * MS, 30 * MS, 30 * MS], 100 * MS) == (9, 7, 7 / 9, False)
    # Every segment on time up to the end: a success.
    on_time = [i * 10 * MS + 5 * MS for i in range(9)]
    assert video_playout(0, 10 * MS, 15 * MS, on_time, 100 * MS) == (9, 0, 0.0, True)
    with pytest.raises(ValueError, match="interval_ns"):
        video_playout(0, 0, 15 * MS, [], 100 * MS)
    with pytest.raises(ValueError, match="deliveries_ns"):
        video_playout(0, 10 * MS, 15 * MS, [30 * MS, 10 * MS], 100 * MS)


def test_the_receivers_byte_counts_become_segment_deliveries() -> None:
    """1000-byte segments at 8 Mbit/s (one per ms) from t0 + 1 s, start-up delay 5 ms. The
    receiver's reads: 1500 bytes at 1.002 s (segment 0), 3000 at 1.0065 s (segments 1 and 2:
    due at 1.006 and 1.007 s, so segment 1 is late), 4000 at 1.008 s (segment 3, due 1.008).
    The run ends at 1.010 s: segments 4 and 5 were due (1.009, 1.010) and never came."""
    sc = TestbedScenario.parse({"duration": "1010ms", "warmup": "1ms", "flows": [{"cc": "reno", "start": "1s", "video": {"rate": "8Mbps", "startup_delay": "5ms", "segment": "1000B"}}]})
    t0 = 100.0
    arrivals = [[t0 + 1.002, 1500], [t0 + 1.0065, 3000], [t0 + 1.008, 4000]]
    cols = _video_columns(sc, sc.flows[0], arrivals, t0, 1.010)
    assert cols == {"video_packets": 6, "video_late": 3, "video_late_fraction": 0.5, "video_success": False}
    # A bulk group has no video columns.
    assert _video_columns(sc, sc.flows[0].model_copy(update={"video": None}), arrivals, t0, 1.010) == {}


@pytest.mark.parametrize(
    "data, error",
    [
        ({"bottleneck": {"rate": "10Mbps"}, "flows": [{"cc": "reno", "video": {"rate": "12Mbps"}}]},
         "flows[0].video.rate: must be at most the bottleneck's rate (10Mbps), got 12Mbps"),
        ({"flows": [{"cc": "reno", "video": {"rate": "1Mbps", "startup_delay": "-1s"}}]}, "flows[0].video.startup_delay"),
        ({"flows": [{"cc": "reno", "video": {"rate": "1Mbps", "segment": "0B"}}]}, "flows[0].video.segment: must be a positive size, got '0B'"),
        ({"flows": [{"cc": "reno", "video": {"startup_delay": "1s"}}]}, "flows[0].video.rate: required field is missing"),
        ({"flows": [{"cc": "reno", "video": {"rate": "1Mbps", "fps": 24}}]}, "flows[0].video: unknown field `fps`; allowed: rate, startup_delay, segment"),
    ],
)  # fmt: skip
def test_video_errors_name_the_field(data: dict, error: str) -> None:
    with pytest.raises(ScenarioError) as e:
        TestbedScenario.parse(data)
    assert error in str(e.value)


@pytest.mark.parametrize("cc", ["pert", "reno", "cubic"])
def test_the_thesis_scenarios_map_to_the_simulator(cc: str) -> None:
    """examples/testbed/video_{pert,reno,cubic}.toml: 15 Mbit/s, 90 ms, 500 kB; one 4 Mbit/s
    stream and two bulk flows of the same controller; in the simulator the stream's flow
    carries the same video rate and start-up delay."""
    sc = load_scenario(f"examples/testbed/video_{cc}.toml")
    assert (sc.bottleneck.rate, sc.bottleneck.delay, sc.bottleneck.buffer) == (15_000_000, 90 * MS, 500_000)
    flows = sim_scenario(sc).to_wire()["flows"]
    assert [f.get("video") for f in flows] == [{"rate_bps": 4_000_000, "startup_delay_ns": 2_000_000_000, "startup_delays_ns": []}, None, None]


@needs_testbed
def test_a_stream_alone_is_on_time_and_never_sends_more_than_written() -> None:
    """One 2 Mbit/s stream of kernel reno alone on 10 Mbit/s, 20 ms, 6 s: its goodput over the
    window is its rate (within 10 %: it sends only what was written), it plays with no late
    segment, and the segments counted are those written by the end, 2 Mbit/s x 6 s / 1448 B,
    within 5 %."""
    sc = TestbedScenario.parse({"duration": "6s", "warmup": "1s", "bottleneck": {"rate": "10Mbps", "delay": "20ms"},
                                "flows": [{"cc": "reno", "video": {"rate": "2Mbps", "startup_delay": "500ms"}}]})  # fmt: skip
    try:
        f = testbed.run(sc).flows.row(0, named=True)
    finally:
        runs.cleanup()
    assert abs(f["goodput_mbps"] - 2.0) <= 0.2, f
    assert f["video_late"] == 0 and f["video_success"], f
    assert abs(f["video_packets"] - 2e6 * 6 / 8 / 1448) <= 0.05 * 2e6 * 6 / 8 / 1448, f


@needs_testbed
def test_a_stream_that_falls_behind_is_late() -> None:
    """A 6 Mbit/s stream of kernel reno against four bulk reno flows on 10 Mbit/s (a fair share of
    2 Mbit/s), start-up delay 500 ms, 8 s: it gets less than its rate over the window, and the
    segments it cannot deliver in time are counted late (a late fraction above 0.1, no success)."""
    sc = TestbedScenario.parse({"duration": "8s", "warmup": "2s", "bottleneck": {"rate": "10Mbps", "delay": "20ms"},
                                "flows": [{"cc": "reno", "video": {"rate": "6Mbps", "startup_delay": "500ms"}}, {"cc": "reno", "count": 4}]})  # fmt: skip
    try:
        f = testbed.run(sc).flows.row(0, named=True)
    finally:
        runs.cleanup()
    assert f["goodput_mbps"] < 0.9 * 6.0, f
    assert f["video_late_fraction"] > 0.1 and not f["video_success"], f
