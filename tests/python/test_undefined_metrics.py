"""Metrics over an empty set are undefined: null in JSON and Parquet, None in Python, a blank
cell (or "-") in the printed tables; never a made-up 0 or 1 (Jain's index of all-zero goodputs,
a share of a zero total, a drop rate over no packet, response times of no web object)."""

import math

import polars as pl
import pytest
from typer.testing import CliRunner

from pertlab import _core
from pertlab.cli import app
from pertlab.results import Results
from pertlab.sweep import aggregate

import strict_json

runner = CliRunner()

# A 10 ms window at the very end of the run: the flows start at 1.45 and 1.5 s and deliver
# nothing in order inside it.
NOTHING_DELIVERED = ["dumbbell", "--bw", "10Mbps", "--flows", "2", "--duration", "2s", "--start-window", "2s", "--warmup", "1.99s", "--seed", "3"]
# One web session over 0.2..1 s: its first object does not complete inside the window.
NO_WEB_OBJECT = ["dumbbell", "--bw", "10Mbps", "--flows", "2", "--duration", "1s", "--web-sessions", "1"]


def invoke(*args: str):
    return runner.invoke(app, [*args, "--no-progress"], catch_exceptions=False)


def test_jain_and_shares_are_null_when_no_flow_delivers_anything(tmp_path, monkeypatch):
    result = invoke(*NOTHING_DELIVERED, "--json", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    out = strict_json.loads(result.stdout)
    assert [f["goodput_mbps"] for f in out["flows"]] == [0.0, 0.0]
    # 0/0: neither a perfectly fair 1.0 nor a share of 0.0.
    assert out["jain"] is None
    assert [c["share"] for c in out["controllers"]] == [None]
    # Flow 0 had no data packet decided in the window (no drop rate, no data/ACK ratio); flow 1
    # got 8 packets, none lost, one ACK each: both defined. Neither took an RTT sample in the window.
    f0, f1 = out["flows"]
    assert (f0["segments_received"], f0["drops"], f0["acks_sent"]) == (0, 0, 0)
    assert (f0["drop_rate"], f0["data_ack_ratio"]) == (None, None)
    assert (f1["segments_received"], f1["drops"], f1["drop_rate"], f1["data_ack_ratio"]) == (8, 0, 0.0, 1.0)
    assert [(f["rtt_samples"], f["rtt_mean_ms"]) for f in out["flows"]] == [(0, None), (0, None)]
    # The flows took samples before the window: the run's least and largest are defined.
    assert all(f["rtt_min_ms"] > 60 and f["rtt_max_ms"] >= f["rtt_min_ms"] for f in out["flows"])
    # Written files: strict JSON, and the Parquet columns keep their types with nulls in them.
    summary = strict_json.loads((tmp_path / "summary.json").read_text())
    assert summary["jain"] is None and summary["controllers"][0]["share"] is None
    controllers = pl.read_parquet(tmp_path / "controllers.parquet")
    assert controllers.schema["share"] == pl.Float64 and controllers["share"].to_list() == [None]
    flows = pl.read_parquet(tmp_path / "flows.parquet")
    assert flows.schema["drop_rate"] == flows.schema["rtt_mean_ms"] == flows.schema["data_ack_ratio"] == pl.Float64
    assert flows["drop_rate"].to_list() == [None, 0.0] and flows["rtt_mean_ms"].null_count() == 2
    assert Results.read(tmp_path).jain is None
    # The table prints, with "-" for the index and a blank share.
    monkeypatch.setenv("COLUMNS", "200")
    table = invoke(*NOTHING_DELIVERED)
    assert table.exit_code == 0, table.output
    assert "TCP flows (Jain index -)" in table.stdout
    row = next(line for line in table.stdout.splitlines() if line.startswith("│ sack"))
    cells = [c.strip() for c in row.strip("│").split("│")]
    assert cells[:4] == ["sack", "2", "0.00", ""], cells


def test_web_response_times_are_null_without_a_completed_object(monkeypatch):
    result = invoke(*NO_WEB_OBJECT, "--json")
    assert result.exit_code == 0, result.output
    web = strict_json.loads(result.stdout)["web"]
    assert (web["objects_requested"], web["objects_completed"]) == (1, 0)
    assert [web[k] for k in ("response_ms_mean", "response_ms_p50", "response_ms_p95", "response_ms_p99")] == [None] * 4
    monkeypatch.setenv("COLUMNS", "200")
    table = invoke(*NO_WEB_OBJECT)
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if "response mean ms" in line)
    cells = [c.strip() for c in lines[header + 2].strip("│").split("│")]
    assert cells == ["0", "0.00", "", "", "", ""], cells


def test_the_cores_jain_index_is_undefined_for_nothing_shared():
    assert _core.jain_index([0.0, 0.0]) is None
    assert _core.jain_index([]) is None
    # (1 + 2)^2 / (2 (1 + 4)) = 0.9; one flow taking everything of four: 1/4.
    assert _core.jain_index([1.0, 2.0]) == pytest.approx(0.9, rel=1e-15)
    assert _core.jain_index([4.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25, rel=1e-15)


def test_a_video_stream_with_no_segment_counted_has_no_late_fraction():
    # Segments every 10 ms from 100 ms, played 50 ms after generation: the first is due at 150 ms.
    assert _core.video_playout(100_000_000, 10_000_000, 50_000_000, [], 149_000_000) == (0, 0, None, None)
    # At 170 ms three are due and one was delivered on time: 2 of 3 late.
    packets, late, fraction, success = _core.video_playout(100_000_000, 10_000_000, 50_000_000, [120_000_000], 170_000_000)
    assert (packets, late, success) == (3, 2, False) and fraction == pytest.approx(2 / 3, rel=1e-15)


def test_sweep_means_skip_undefined_runs():
    """A seed where a metric is undefined is left out of that metric's mean over seeds; with
    none defined the mean is NaN (null in the JSON)."""
    runs = pl.DataFrame(
        {"x": [1, 1, 1, 2, 2], "tcp_flows": [2] * 5, "jain": [0.5, None, 0.7, None, None]},
        schema_overrides={"jain": pl.Float64},
    )
    t = aggregate(runs, ["x"], metrics=("jain",))
    assert t["seeds"].to_list() == [3, 2]
    assert t["jain"][0] == pytest.approx(0.6, rel=1e-12) and math.isnan(t["jain"][1])


def test_a_drop_ratio_with_an_undefined_drop_rate_is_nan():
    from pertlab.results import drop_ratio

    row = {"flows": 1, "goodput_mbps": 0.0, "share": None, "segments_sent": 0, "segments_received": 0, "drops": 0}
    r = Results({"controllers": [{**row, "label": "a", "drop_rate": None}, {**row, "label": "b", "drop_rate": 0.1}]})
    assert math.isnan(drop_ratio(r, "a", "b")) and math.isnan(drop_ratio(r, "b", "a"))
    assert drop_ratio(r, "b", "b") == 1.0


def test_pythons_rates_follow_the_cores_rule():
    from pertlab.metrics import rate

    assert rate(3, 4) == 0.75
    assert rate(0, 4) == 0.0
    assert rate(0, 0) is None


def test_jain_per_bin_is_null_where_no_flow_delivered():
    # hua02-jcc's Jain series takes the core's definition, bin by bin.
    from pertlab.reproduce.hua02_jcc_entries import _jain_bins

    binned = pl.DataFrame({"bin_s": [0.0, 0.0, 5.0, 5.0, 10.0, 10.0], "kbps": [1.0, 3.0, 2.0, 2.0, 0.0, 0.0]})
    assert _jain_bins(binned)["jain"].to_list() == [0.8, 1.0, None]


def test_the_testbeds_queue_rates_are_undefined_without_arrivals():
    from pertlab.linux.scenario import load_scenario
    from pertlab.linux.testbed import _queue_row

    sc = load_scenario("examples/testbed/smoke.toml")
    start = sc.warmup / 1e9
    warm = {"packets": 10, "drops": 2, "marks": 1, "bytes": 15_140, "t_s": start}
    # Nothing reached the queue in the window, and no length sample fell inside it: the link idle.
    idle = _queue_row(sc, [{"t_s": start - 0.1, "len_pkts": 3, "len_bytes": 4500}], warm, warm | {"t_s": start + 1.0}, 1.0, {})
    assert (idle["arrivals"], idle["drop_rate"], idle["mark_rate"], idle["avg_queue_pkts"], idle["utilization"]) == (0, None, None, None, 0.0)
    # Six frames sent in the second between the counters' reads: the link busy 6 frame times of it.
    end = {"packets": 16, "drops": 4, "marks": 3, "bytes": 15_140 + 6 * 1514, "t_s": start + 1.0}
    busy = _queue_row(sc, [{"t_s": start + 0.1, "len_pkts": 3, "len_bytes": 4500}], warm, end, 1.0, {})
    assert (busy["arrivals"], busy["drop_rate"], busy["marks"], busy["mark_rate"], busy["avg_queue_pkts"]) == (8, 0.25, 2, 0.25, 3.0)
    assert busy["utilization"] == pytest.approx(6 * 1514 * 8 / sc.bottleneck.rate)


def test_a_run_stopped_before_its_window_says_its_figures_are_not_measured():
    from pertlab import Simulation, dumbbell

    sim = Simulation(dumbbell(bw="10Mbps", rtt="20ms", flows=2, duration="4s", start_window="0.5s", warmup="2s"))
    sim.run_until("1s")
    r = sim.results(to_end=False)
    assert r.interrupted and (r.summary["window_start_s"], r.summary["window_end_s"]) == (1.0, 1.0)
    assert r.warnings == ["the run stopped at 1 s, before its measurement window opened: its rates, averages and "
                          "utilizations are over an empty window (0), not measured"]  # fmt: skip
    # Stopped inside the window: measured, no such warning.
    sim = Simulation(dumbbell(bw="10Mbps", rtt="20ms", flows=2, duration="4s", start_window="0.5s", warmup="2s"))
    sim.run_until("3s")
    assert not any("empty window" in w for w in sim.results(to_end=False).warnings)
