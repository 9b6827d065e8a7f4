"""Sweeps on a real Dask LocalCluster: expansion, storage by key, resume, statistics."""

import json
from pathlib import Path

import polars as pl
import pytest

import pertlab
from pertlab.results import Results
from pertlab.scenario import ScenarioError
from pertlab.sweep import StoredRunWarning, aggregate, expand, parse_vary, run_key, run_sweep


def base() -> pertlab.Scenario:
    return pertlab.dumbbell(bw="5Mbps", rtt="40ms", flows=3, cc="sack", duration="6s", start_window="1s", warmup="2s")


def test_vary_parsing_and_its_errors():
    assert parse_vary(["bottleneck.rate=1Mbps, 10Mbps", "cc=pert,sack"]) == {"bottleneck.rate": ["1Mbps", "10Mbps"], "cc": ["pert", "sack"]}
    with pytest.raises(ScenarioError, match="--vary: write PATH=V1,V2"):
        parse_vary(["bottleneck.rate"])
    with pytest.raises(ScenarioError, match="varied twice"):
        parse_vary(["cc=pert", "cc=sack"])
    # The seeds come from --seeds: a varied seed was overwritten (seed=1,2 ran seed 1 twice).
    with pytest.raises(ScenarioError, match="--vary: the seed is not a varied field: --seeds N"):
        parse_vary(["seed=1,2"])
    with pytest.raises(ScenarioError, match="--vary: an empty value"):
        parse_vary(["cc=pert,,sack"])
    with pytest.raises(ScenarioError, match="--vary: a value listed twice"):
        parse_vary(["cc=pert,pert"])


def test_expansion_sets_the_named_fields_and_the_seeds():
    points = expand(base(), {"bottleneck.rate": ["1Mbps", "10Mbps"], "cc": ["pert", "newreno"]}, seeds=3)
    assert len(points) == 12
    assert len({p.key for p in points}) == 12
    p = points[-1]
    assert dict(p.values) == {"bottleneck.rate": "10Mbps", "cc": "newreno"} and p.seed == 3
    wire = p.scenario.to_wire()
    assert wire["dumbbell"]["bottleneck_rate_bps"] == 10_000_000
    assert all(f["cc"]["kind"] == "reno" and f["tcp"]["sack"] is False for f in wire["flows"])
    assert points[0].scenario.to_wire()["flows"][0]["cc"]["kind"] == "pert"
    # The key depends on the scenario only.
    assert run_key(p.scenario) == expand(base(), {"bottleneck.rate": ["10Mbps"], "cc": ["newreno"]}, seeds=3)[-1].key


def test_expansion_errors_name_the_path():
    with pytest.raises(ScenarioError, match=r"dumbbell.nothing: no such section"):
        expand(base(), {"dumbbell.nothing.x": ["1"]}, seeds=1)
    with pytest.raises(ScenarioError, match=r"cc: unknown controller 'bbr'"):
        expand(base(), {"cc": ["bbr"]}, seeds=1)
    with pytest.raises(ScenarioError, match=r"bottleneck_rate.*with bottleneck.rate=-1Mbps"):
        expand(base(), {"bottleneck.rate": ["-1Mbps"]}, seeds=1)


def test_list_entries_are_named_as_errors_name_them():
    [bracket] = expand(base(), {"flows[1].tcp.init_cwnd": ["4"]}, seeds=1)
    [dotted] = expand(base(), {"flows.1.tcp.init_cwnd": ["4"]}, seeds=1)
    assert bracket.scenario.to_wire() == dotted.scenario.to_wire()
    assert [f["tcp"]["init_cwnd"] for f in bracket.scenario.to_wire()["flows"]] == [2, 4, 2]
    with pytest.raises(ScenarioError, match=r"^flows\[7\].cc: flows\[7\]: not an index below 3$"):
        expand(base(), {"flows[7].cc": ["pert"]}, seeds=1)


def test_tcp_options_are_set_on_every_flow_and_web_group():
    """``tcp.X`` varies an option of every TCP flow and web group together (``flows[i].tcp.X``
    names one flow, and varying each flow on its own would make a cross product of them)."""
    with_web = pertlab.dumbbell(bw="5Mbps", rtt="40ms", flows=3, web_sessions=2, duration="6s", start_window="1s", warmup="2s")
    points = expand(with_web, {"tcp.ack_policy": ["every", "delayed"], "tcp.pacing.enabled": ["true"]}, seeds=1)
    assert [dict(p.values) for p in points] == [{"tcp.ack_policy": a, "tcp.pacing.enabled": "true"} for a in ("every", "delayed")]
    for p, policy in zip(points, ("every", "delayed")):
        wire = p.scenario.to_wire()
        tcps = [f["tcp"] for f in wire["flows"]] + [w["tcp"] for w in wire["web"]]
        assert len(tcps) == 4 and all(t["ack_policy"] == policy and t["pacing"]["enabled"] for t in tcps), tcps
    # A bad option is one error, named as it was varied, not one per flow.
    with pytest.raises(ScenarioError) as e:
        expand(base(), {"tcp.ack_policy": ["sometimes"]}, seeds=1)
    assert e.value.errors == [("tcp.ack_policy", "got 'sometimes'; allowed: 'every', 'delayed', 'adaptive' or 'linux' (with tcp.ack_policy=sometimes)")]
    no_flows = base().to_wire()
    no_flows["flows"] = []
    with pytest.raises(ScenarioError, match=r"^tcp.sack: the scenario has no TCP flows to set an option on$"):
        expand(pertlab.Scenario.parse(no_flows), {"tcp.sack": ["true"]}, seeds=1)


def test_controller_parameters_are_set_on_the_flows_running_that_controller():
    """``KIND.X`` varies parameter X of every flow whose controller is KIND, as ``--cc-param``
    does; with ``cc`` in the same sweep it applies to the controller ``cc`` names, whatever the
    order of the --vary options."""
    mix = pertlab.dumbbell(bw="5Mbps", rtt="40ms", cc="pert:2,cubic:2", duration="6s", start_window="1s", warmup="2s")
    points = expand(mix, {"pert.t_max": ["20ms", "40ms"], "cubic.beta": ["0.5"]}, seeds=1)
    for p, t_max in zip(points, (20_000_000, 40_000_000)):
        ccs = [f["cc"] for f in p.scenario.to_wire()["flows"]]
        assert [c["t_max_ns"] for c in ccs[:2]] == [t_max] * 2 and [c["beta"] for c in ccs[2:]] == [0.5] * 2, ccs
    [after_cc] = expand(base(), {"pert.p_max": ["0.2"], "cc": ["pert"]}, seeds=1)
    assert {f["cc"]["p_max"] for f in after_cc.scenario.to_wire()["flows"]} == {0.2}
    # One error for the parameter all of them got, named as varied; none running the controller.
    with pytest.raises(ScenarioError) as e:
        expand(mix, {"pert.t_max": ["5ms"]}, seeds=1)
    assert [f for f, _ in e.value.errors] == ["pert.t_min, pert.t_max"], e.value.errors
    with pytest.raises(ScenarioError, match=r"^vegas.alpha: the scenario has no flow running vegas \(with vegas.alpha=2, cc=sack\)$"):
        expand(base(), {"vegas.alpha": ["2"], "cc": ["sack"]}, seeds=1)


def test_points_the_core_refuses_are_refused_before_any_run(tmp_path):
    """Points the scenario model accepts and the core refuses (a topology without the flows'
    nodes; more memory than the limit) are refused up front naming the field and the point:
    before, the first failed on a worker and the second killed four workers in turn."""
    with pytest.raises(ScenarioError, match=r"^flows\[1\].src: unknown node `s1`.*\(with dumbbell.pairs=1\)$"):
        run_sweep(base(), {"dumbbell.pairs": ["3", "1"]}, 1, tmp_path / "pairs")
    assert not (tmp_path / "pairs" / "runs").exists()  # nothing started
    with pytest.raises(ScenarioError, match=r"^monitor.sample_interval: .* more than the memory limit .*\(with monitor.sample_interval=1ns\)$"):
        expand(base(), {"monitor.sample_interval": ["1ns"]}, seeds=1)
    # A limit given is named beside the field; it also holds each run on its worker.
    with pytest.raises(ScenarioError, match=r"^monitor.sample_interval, memory_limit: .* more than the memory limit 1.00 KiB"):
        expand(base(), {"monitor.sample_interval": ["10ms"]}, seeds=1, memory_limit=1024)
    from pertlab.sweep import _simulate

    wire = expand(base(), {"monitor.sample_interval": ["10ms"]}, seeds=1)[0].scenario.to_wire_json()
    with pytest.raises(ValueError, match=r"^monitor.sample_interval, memory_limit: .* more than the memory limit 1.00 KiB"):
        _simulate((wire, 1024))
    assert json.loads(_simulate((wire, None)))["conservation"]["ok"]


def test_a_run_the_memory_available_refused_for_a_moment_is_tried_again(monkeypatch):
    """With the default limit (the memory available now), a run refused while other work held the
    memory, though the machine's memory holds it, waits and is tried again (MEMORY_WAITS_S); one
    that the machine's memory cannot hold, or a limit given, is refused at once."""
    import pertlab.memory
    from pertlab import sweep

    wire = expand(base(), {"monitor.sample_interval": ["10ms"]}, seeds=1)[0].scenario.to_wire_json()
    real = pertlab.memory.available_memory
    short = iter([1024, 1024])  # the first two tries find 1 KiB available
    monkeypatch.setattr(pertlab.memory, "available_memory", lambda: next(short, None) or real())
    waits: list[float] = []
    monkeypatch.setattr("time.sleep", waits.append)
    assert json.loads(sweep._simulate((wire, None)))["conservation"]["ok"]
    assert waits == [1.0, 2.0]
    # Memory short at every try: the refusal stands after the waits, saying it was the memory available.
    monkeypatch.setattr(pertlab.memory, "available_memory", lambda: 1024)
    waits.clear()
    with pytest.raises(ValueError, match=r"more than the memory limit 1.00 KiB; .* \(the memory available now; "):
        sweep._simulate((wire, None))
    assert waits == list(sweep.MEMORY_WAITS_S)
    # A run that needs more than the machine has is refused without waiting.
    monkeypatch.setattr(pertlab.memory, "total_memory", lambda: 2048)
    waits.clear()
    with pytest.raises(ValueError, match="more than the memory limit 1.00 KiB"):
        sweep._simulate((wire, None))
    assert waits == []
    # So is a run above a limit the caller gave.
    with pytest.raises(ValueError, match=r"^monitor.sample_interval, memory_limit: "):
        sweep._simulate((wire, 1024))
    assert waits == []


def test_confidence_interval_is_student_t_over_seeds():
    runs = pl.DataFrame({"cc": ["a", "a", "a", "b"], "utilization": [1.0, 2.0, 3.0, 5.0]})
    table = aggregate(runs, ["cc"]).sort("cc")
    a = table.row(0, named=True)
    # t(0.975, 2) = 4.302653; std = 1; half-width = 4.302653 / sqrt(3).
    assert a["utilization"] == pytest.approx(2.0)
    assert a["utilization_ci95"] == pytest.approx(4.302653 / 3**0.5, rel=1e-6)
    assert a["seeds"] == 3
    b = table.row(1, named=True)
    assert b["seeds"] == 1 and b["utilization_ci95"] != b["utilization_ci95"]  # NaN with one seed


def test_sweep_on_dask_stores_every_run_and_resumes_after_a_loss(tmp_path):
    vary = {"cc": ["pert", "sack"]}
    calls = []
    runs, table = run_sweep(base(), vary, 2, tmp_path, jobs=2, on_progress=lambda d, t: calls.append((d, t)))
    assert calls[0] == (0, 4) and calls[-1] == (4, 4)
    keys = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert len(keys) == 4 and sorted(runs["key"].to_list()) == keys
    for k in keys:
        point = json.loads((tmp_path / "runs" / k / "point.json").read_text())
        assert set(point) == {"values", "seed"}
        assert (tmp_path / "runs" / k / "flows.parquet").is_file()
    assert table.height == 2 and set(table["seeds"]) == {2}
    # PERT keeps the queue below SACK's on the same seeds.
    by = {r["cc"]: r for r in table.iter_rows(named=True)}
    assert by["pert"]["avg_queue_norm"] < by["sack"]["avg_queue_norm"]

    # Lose one stored run (as if its worker had crashed before it was written):
    # the same sweep again computes that one only and gives the same table.
    kept = {k: (tmp_path / "runs" / k / "summary.json").stat().st_mtime_ns for k in keys[1:]}
    summary_lost = (tmp_path / "runs" / keys[0] / "summary.json").read_bytes()
    for f in (tmp_path / "runs" / keys[0]).iterdir():
        f.unlink()
    (tmp_path / "runs" / keys[0]).rmdir()
    calls.clear()
    # Each run is read once on a resume: the three stored ones when they are checked, the one
    # computed again when it is done (each stored run used to be read twice).
    reads: list[str] = []
    real_read = Results.read
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Results, "read", staticmethod(lambda path: reads.append(Path(path).name) or real_read(path)))
        runs2, table2 = run_sweep(base(), vary, 2, tmp_path, jobs=1, on_progress=lambda d, t: calls.append((d, t)))
    assert sorted(reads) == keys, reads
    assert calls[0] == (3, 4) and calls[-1] == (4, 4)
    assert {k: (tmp_path / "runs" / k / "summary.json").stat().st_mtime_ns for k in keys[1:]} == kept
    assert (tmp_path / "runs" / keys[0] / "summary.json").read_bytes() == summary_lost
    assert table2.equals(table)

    # A stored run damaged by something else (cut, edited) is moved aside with a warning naming it,
    # and run again: it used to stop every resume at the end with a bare JSONDecodeError.
    (tmp_path / "runs" / keys[1] / "summary.json").write_text("{")
    with pytest.warns(StoredRunWarning, match=rf"runs/{keys[1]}: a stored run that cannot be read \(JSONDecodeError"):
        _, table3 = run_sweep(base(), vary, 2, tmp_path, jobs=1)
    assert table3.equals(table) and (tmp_path / "runs" / f".{keys[1]}.unreadable" / "summary.json").read_text() == "{"


def test_aggregate_leaves_undefined_values_out_of_the_mean():
    """A metric undefined in some runs (null: the PERT share at a 0 % PERT mix) is averaged over
    the runs that define it, and is NaN where none does (a full kotla08-mix run crashed on it)."""
    import math

    runs = pl.DataFrame({"mix": [0, 0, 0, 50, 50, 50], "seed": [1, 2, 3] * 2, "share": [None, None, None, 0.4, 0.5, None]})
    table = aggregate(runs, ["mix"], ("share",)).sort("mix")
    assert math.isnan(table["share"][0]) and math.isnan(table["share_lo95"][0])
    assert table["share"][1] == pytest.approx(0.45) and table["seeds"][1] == 3
    # Two values: t(0.975, 1) x std / sqrt(2).
    assert table["share_ci95"][1] == pytest.approx(12.706 * 0.0707107 / math.sqrt(2), rel=1e-3)


def test_each_runs_warnings_are_in_the_runs_table_and_the_command_line_says_them(tmp_path):
    # PERT behind delayed-ACK receivers with RFC 7323's echo warns (pertlab.ack_hold); SACK does not.
    from typer.testing import CliRunner

    from pertlab.cli import app

    scenario_file = tmp_path / "base.json"
    scenario_file.write_text(base().model_dump_json(by_alias=True, exclude_none=True))
    vary = ["--vary", "cc=pert,sack", "--vary", "tcp.ack_policy=every,delayed"]
    result = CliRunner().invoke(app, ["sweep", str(scenario_file), *vary, "--out", str(tmp_path / "out"), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    runs = pl.read_parquet(tmp_path / "out" / "runs.parquet")
    for r in runs.iter_rows(named=True):
        stored = json.loads((tmp_path / "out" / "runs" / r["key"] / "summary.json").read_text())["warnings"]
        assert r["warnings"] == stored
        assert bool(stored) == ((r["cc"], r["tcp.ack_policy"]) == ("pert", "delayed")), r
    [warned] = runs.filter(pl.col("warnings").list.len() > 0).iter_rows(named=True)
    assert (warned["cc"], warned["tcp.ack_policy"]) == ("pert", "delayed")
    assert f"warning: cc=pert, tcp.ack_policy=delayed, seed 1: {warned['warnings'][0]}" in " ".join(result.stderr.split())
    # --json lists them with their points; resumed from the stored runs, the same ones.
    again = CliRunner().invoke(app, ["sweep", str(scenario_file), *vary, "--out", str(tmp_path / "out"), "--json"])
    said = json.loads(again.stdout)["warnings"]
    assert said == [{"key": warned["key"], "cc": "pert", "tcp.ack_policy": "delayed", "seed": 1, "warning": warned["warnings"][0]}]
