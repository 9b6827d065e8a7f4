"""Running scenarios: results as tables and files, determinism, interrupts."""

import json
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

import pertlab
from pertlab import _core
from pertlab.results import TABLES, Results

from conftest import small_dumbbell, udp_graph

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

DETERMINISTIC_FILES = [f"{t}.parquet" for t in TABLES] + ["summary.json", "scenario.json"]


def test_udp_run_tables():
    r = pertlab.run(udp_graph(), progress=True)
    assert isinstance(r.queues, pl.DataFrame) and r.queues.height == 4  # two links, two directions
    b = r.bottleneck
    assert b["link"] == "bottleneck" and (b["from"], b["to"]) == ("r", "b")
    assert 0.8 < b["utilization"] < 1.0  # 9 Mbps offered on 10 Mbps
    assert r.udp["throughput_mbps"][0] == pytest.approx(9.0, rel=0.1)
    assert r.conservation["ok"]
    qs = r.queue_series.filter(pl.col("link") == "bottleneck")
    assert qs.height == 2 * 51  # both directions, samples at 0, 0.1, .., 5 s
    assert qs["len_pkts"].max() <= 30
    # Each sample's utilization is the summary's over its interval: the samples that tile the
    # measurement window average to the summary's figure.
    forward = qs.filter(pl.col("from") == "r")
    window = forward.filter(pl.col("t_s").is_between(r.data["window_start_s"], r.data["window_end_s"], closed="right"))
    assert window.height == round((r.data["window_end_s"] - r.data["window_start_s"]) / 0.1)
    assert window["utilization"].mean() == pytest.approx(b["utilization"], rel=1e-12)
    assert forward["utilization"][0] == 0.0 and window["utilization"].min() > 0.5


def test_dumbbell_tables(dumbbell_scenario):
    r = pertlab.run(dumbbell_scenario)
    assert r.flows.height == 4 and set(r.flows["cc"]) == {"reno"}
    assert r.conservation["ok"], r.conservation["violations"]
    assert r.bottleneck["utilization"] > 0.5
    assert r.flows["goodput_mbps"].sum() == pytest.approx(10 * r.bottleneck["utilization"], rel=0.1)
    assert r.flows["base_rtt_ms"].to_list() == pytest.approx([40.0] * 4, abs=0.5)
    fs = r.flow_series
    assert set(fs["flow"].unique()) == {0, 1, 2, 3} and (fs["cwnd"] > 0).any()
    assert 0 < r.jain <= 1


def test_parquet_round_trip(tmp_path):
    r = pertlab.run(udp_graph())
    r.write(tmp_path)
    for name in TABLES:
        # Read back by an independent Parquet reader.
        table = pq.read_table(tmp_path / f"{name}.parquet")
        assert pl.from_arrow(table).equals(getattr(r, name))
    again = Results.read(tmp_path)
    assert again.queue_series.equals(r.queue_series)
    # Files written before the queue series had its utilization read back with it null.
    pl.read_parquet(tmp_path / "queue_series.parquet").drop("utilization").write_parquet(tmp_path / "queue_series.parquet")
    older = Results.read(tmp_path).queue_series
    assert older["utilization"].null_count() == older.height > 0
    assert older.drop("utilization").equals(r.queue_series.drop("utilization"))
    assert again.summary == r.summary
    assert again.scenario == r.scenario
    assert "wall_seconds" not in json.loads((tmp_path / "summary.json").read_text())
    assert json.loads((tmp_path / "run_info.json").read_text())["wall_seconds"] == r.data["wall_seconds"]


@pytest.mark.parametrize("scenario", [pytest.param(udp_graph, id="udp"), pytest.param(small_dumbbell, id="tcp")])
def test_same_seed_gives_identical_files(tmp_path, scenario):
    s = pertlab.Scenario.parse(scenario()) if scenario is udp_graph else scenario(sample_interval="100ms")
    pertlab.run(s).write(tmp_path / "a")
    pertlab.run(s).write(tmp_path / "b")
    for name in DETERMINISTIC_FILES:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_other_seed_gives_other_start_times():
    a = pertlab.run(small_dumbbell(seed=1)).flows["start_s"].to_list()
    b = pertlab.run(small_dumbbell(seed=2)).flows["start_s"].to_list()
    assert a != b
    assert all(0 <= t <= 1 for t in a + b)  # drawn in [0, start_window]


def test_stopping_early_keeps_partial_results():
    wire = pertlab.Scenario.parse(udp_graph()).to_wire_json()
    seen = []

    def stop_after_two_seconds(t):
        seen.append(t)
        return t < 2

    r = json.loads(_core.run_json(wire, stop_after_two_seconds))
    assert r["interrupted"] and 1 < r["sim_seconds"] < 5
    assert r["udp"][0]["sent"] > 0
    assert seen == sorted(seen)


def test_udp_counts_are_events_in_the_window():
    """docs/model.md, Metrics: a UDP source's sent, received and dropped count what happened in
    the window, so over the whole run sent = received + dropped + the packets still in the
    network, and over a later window the two sides differ by at most what the path holds;
    throughput = bytes received in the window / its length."""
    over = {"udp": [{"src": "a", "dst": "b", "rate": "12Mbps", "packet_size": "1000B"}]}  # above the 10 Mbps link: drops
    whole = pertlab.run(pertlab.Scenario.parse(udp_graph(**over)))
    u = whole.udp.row(0, named=True)
    assert u["dropped"] > 0 and u["sent"] == u["received"] + u["dropped"] + whole.data["conservation"]["in_network"], u
    late = pertlab.run(pertlab.Scenario.parse(udp_graph(**over, measure={"start": "2s", "end": "5s"})))
    v = late.udp.row(0, named=True)
    # The path holds the 30-packet buffer and what is on its wires (a few packets at 10 Mbps and 12 ms).
    assert 0 < v["sent"] < u["sent"] and abs(v["sent"] - v["received"] - v["dropped"]) <= 40, v
    assert v["throughput_mbps"] == pytest.approx(v["received"] * 1000 * 8 / 3.0 / 1e6, rel=1e-9)


def test_keyboard_interrupt_keeps_partial_results():
    def interrupt(t):
        if t >= 1:
            raise KeyboardInterrupt

    r = Results.from_json(_core.run_json(pertlab.Scenario.parse(udp_graph()).to_wire_json(), interrupt))
    assert r.interrupted and r.data["sim_seconds"] < 5 and r.udp["sent"][0] > 0


def test_python_defaults_are_the_cores():
    """The models spell out the core's defaults; a run with every default
    written out equals a run where the core fills them in."""
    s = small_dumbbell(cc="pert:2,vegas:1,sack:1", queue="ared", duration="4s", warmup="1s")
    explicit = json.loads(s.to_wire_json())
    implicit = json.loads(s.to_wire_json())
    for f in implicit["flows"]:
        f["tcp"] = {k: f["tcp"][k] for k in ("sack", "ecn")}
        f["cc"] = {"kind": f["cc"]["kind"]}
    # The builder's one non-default RED value: the flows' packet size.
    implicit["dumbbell"]["bottleneck_queue"]["red"] = {"mean_pkt_size": 1500}
    a, b = (json.loads(_core.run_json(json.dumps(w))) for w in (explicit, implicit))
    for r in (a, b):
        del r["wall_seconds"]
    assert a == b


def test_a_run_that_carries_nothing_says_so(tmp_path):
    """Issue 20: the flows start after the end of the run: the bottleneck sends nothing in the
    window and no flow completes a round trip; the results say so, and the CLI on stderr."""
    from typer.testing import CliRunner

    from pertlab.cli import app

    wire = small_dumbbell(duration="5s").to_wire()
    wire.pop("measure")
    for f in wire["flows"]:
        f.pop("start_window_ns")
        f["start_ns"] = 6 * 10**9
    silent = pertlab.run(wire)
    assert silent.bottleneck["departures"] == 0
    assert silent.warnings == [
        "the bottleneck (bottleneck: r0 -> r1) carried no packet in the measurement window [0, 5] s",
        "4 of 4 TCP flows completed no round trip by the end of the window [0, 5] s: 0 (sack, starts at 6 s), "
        "1 (sack, starts at 6 s), 2 (sack, starts at 6 s), 3 (sack, starts at 6 s)",
    ]
    assert pertlab.run(small_dumbbell()).warnings == []
    # A flow whose ACKs are all lost completes no round trip, though the bottleneck is busy.
    data = udp_graph(flows=[{"src": "a", "dst": "b"}])
    data["links"][1]["loss_ba"] = 1.0
    lossy = pertlab.run(data)
    assert lossy.bottleneck["departures"] > 0 and len(lossy.warnings) == 1
    assert lossy.warnings[0].startswith("1 of 1 TCP flows completed no round trip")
    path = tmp_path / "silent.json"
    path.write_text(json.dumps(wire))
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(tmp_path / "out"), "--json", "--no-progress"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["warnings"] == silent.warnings
    assert "warning: the bottleneck (bottleneck: r0 -> r1) carried no packet" in result.stderr
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["warnings"] == silent.warnings


def test_a_scenario_loaded_from_a_file_equals_the_same_scenario_built_in_code(tmp_path):
    """Where a scenario was loaded from (the directory searched for its Python models) is not
    part of it: equality compares the fields."""
    built = pertlab.Scenario.parse(udp_graph())
    (tmp_path / "s.json").write_text(json.dumps(built.to_wire()))
    loaded = pertlab.Scenario.load(tmp_path / "s.json")
    assert loaded.source_dir == tmp_path.resolve() and built.source_dir is None
    assert loaded == built and loaded != built.model_copy(update={"seed": 2})


def test_transmission_ends_when_needed_from_a_scenario_file(tmp_path):
    """``engine.tx_end_events`` (docs/model.md, "Transmission ends") in the example dumbbell
    file: by default ``when_needed``, the same results as ``always`` with about 0.6 of its events;
    a value outside the two is refused naming the field and both values."""
    from pertlab.scenario import Scenario, ScenarioError

    example = (EXAMPLES / "dumbbell.toml").read_text().replace('duration = "100s"', 'duration = "30s"').replace('end = "100s"', 'end = "30s"')
    (tmp_path / "always.toml").write_text(example + '\n[engine]\ntx_end_events = "always"\n')
    (tmp_path / "when_needed.toml").write_text(example)
    always, when_needed = Scenario.load(tmp_path / "always.toml"), Scenario.load(tmp_path / "when_needed.toml")
    assert (always.engine.tx_end_events, when_needed.engine.tx_end_events) == ("always", "when_needed")
    a, w = pertlab.run(always), pertlab.run(when_needed)
    assert 0.5 < w.summary["events"] / a.summary["events"] < 0.7
    assert a.bottleneck["departures"] > 100_000
    for table in ("flows", "queues"):
        assert getattr(a, table).equals(getattr(w, table)), table
    with pytest.raises(ScenarioError) as e:
        Scenario.parse({**always.model_dump(), "engine": {"tx_end_events": "sometimes"}})
    assert "engine.tx_end_events" in str(e.value) and "when_needed" in str(e.value)
