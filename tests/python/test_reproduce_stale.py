"""The stale-report check (pertlab.reproduce.stale, make stale-reports): every entry gives its
scenarios without running them, a committed report whose code did not change is up to date, a
field the model added since (written with its default) is not a change, and a changed rate
makes a report stale naming the field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pertlab.reproduce import REGISTRY
from pertlab.reproduce.stale import compare, compare_all, diff, main

REPORTS = Path(__file__).resolve().parents[2] / "docs" / "reproductions"
#: A committed report of an entry whose scenarios have not changed since it was written, and
#: small (thirty two-flow scenarios, named by capacity, controller and seed).
NAME = "tahiliani-ch4-capacity"


def test_every_registered_entry_gives_its_scenarios_without_running():
    # Quick mode (full mode builds the same way, larger: make stale-reports reads it).
    for name, entry in REGISTRY.items():
        scenarios = entry.scenarios(True)
        assert scenarios and all(isinstance(k, str) and v not in (None, {}, []) for k, v in scenarios.items()), name
        json.dumps(scenarios)
        if name == "kotla08-live":  # testbed scenarios (TestbedScenario's JSON), named by their case
            assert all(k.startswith(v["path"]["profile"]) and v["name"] == f"kotla08-live-{k}" for k, v in scenarios.items()), name
        elif name.startswith(("kotla08", "sigcomm07-fig6")):  # wire scenarios, named by their hash
            assert all(len(k) == 20 and v["duration_ns"] > 0 for k, v in scenarios.items()), name


def _engine_of_a_new_scenario(_item: int) -> str:
    """``engine.tx_end_events`` of a scenario made where this runs (a Dask worker)."""
    from pertlab.builders import dumbbell

    return dumbbell(bw="10Mbps", flows=1, duration="1s").engine.tx_end_events


def test_reproductions_hold_the_engine_their_committed_reports_ran():
    """Scenarios default to ``when_needed`` (issue 21), but every reproduction's hold ``always``,
    the engine of its committed report (REPRODUCTION_TX_END_EVENTS): those ``Entry.scenarios``
    gives, and those its tasks make on Dask workers (real ones: run_tasks carries the default)."""
    from pertlab.parallel import run_tasks
    from pertlab.reproduce.registry import REPRODUCTION_TX_END_EVENTS, _holding_reproduction_engine
    from pertlab.scenario import TX_END_EVENTS_DEFAULT

    assert (TX_END_EVENTS_DEFAULT, REPRODUCTION_TX_END_EVENTS) == ("when_needed", "always")
    assert _engine_of_a_new_scenario(0) == "when_needed"
    engines = {name: {w["engine"]["tx_end_events"] for w in entry.scenarios(True).values() if isinstance(w, dict) and "duration_ns" in w} for name, entry in REGISTRY.items()}
    assert {e for found in engines.values() for e in found} == {"always"}, engines
    assert sum(bool(found) for found in engines.values()) > 40
    assert _engine_of_a_new_scenario(0) == "when_needed", "the entries' default does not leak out"

    def on_workers() -> list[str]:
        found: list[str] = []
        run_tasks(_engine_of_a_new_scenario, [0, 1], lambda _i, e: found.append(e), jobs=2)
        return found

    assert on_workers() == ["when_needed"] * 2
    assert _holding_reproduction_engine(on_workers)() == ["always"] * 2


def _copy(tmp_path: Path, name: str = NAME) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for f in ("report.json", "scenarios.json"):
        shutil.copy(REPORTS / name / f, folder / f)
    return folder


def _edit(folder: Path, change) -> None:
    path = folder / "scenarios.json"
    scenarios = json.loads(path.read_text())
    change(scenarios)
    path.write_text(json.dumps(scenarios))


def test_a_committed_report_whose_code_did_not_change_is_up_to_date():
    c = compare(REGISTRY[NAME], REPORTS / NAME)
    assert not c.stale, c.lines()
    assert len(c.pairs) == 30 and not c.only_report and not c.only_today
    assert all(p.old_key == p.new_key and not p.changes for p in c.pairs)
    assert "up to date" in c.lines()[0]


def test_a_changed_rate_makes_the_report_stale_naming_the_field(tmp_path, capsys):
    folder = _copy(tmp_path)
    _edit(folder, lambda s: s["bw_mbps=2-sack-seed1"]["dumbbell"].update(bottleneck_rate_bps=3_000_000))
    c = compare(REGISTRY[NAME], folder)
    assert c.stale
    (pair,) = [p for p in c.pairs if p.changes]
    assert pair.old_key == "bw_mbps=2-sack-seed1"
    assert [(d.path, d.kind, d.old, d.new) for d in pair.changes] == [("dumbbell.bottleneck_rate_bps", "changed", 3_000_000, 2_000_000)]
    assert main(["--dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{NAME} (full): stale" in out and "dumbbell.bottleneck_rate_bps changed (3000000 -> 2000000)" in out
    assert "1 of 1 reports stale" in out


def test_a_field_added_with_its_default_is_not_a_change(tmp_path, capsys):
    # As if the report had been written before `tcp.dupthresh` existed: today's model reads the
    # old scenario with the default (3), which is what the entry writes today.
    folder = _copy(tmp_path)

    def drop_dupthresh(scenarios):
        for s in scenarios.values():
            for f in s["flows"]:
                assert f["tcp"].pop("dupthresh") == 3

    _edit(folder, drop_dupthresh)
    c = compare(REGISTRY[NAME], folder)
    assert not c.stale, c.lines()
    assert {d.path for p in c.pairs for d in p.defaulted} >= {"flows[0].tcp.dupthresh", "flows[1].tcp.dupthresh"}
    assert main(["--dir", str(tmp_path)]) == 0
    assert "new defaulted fields (not counted as changes): " in capsys.readouterr().out


def test_testbed_scenarios_are_read_through_today_s_testbed_model(tmp_path):
    """kotla08-live's scenarios are namespace-testbed scenarios, read through today's testbed
    model: a report written before the testbed had `capture_acks` and `min_tso_segs` (as the one
    of 2026-11 was) reads them as defaulted fields; set in the report, one is a change. Fields
    added after the committed report was written, such as adaptive PERT's `min_rtt_window`, are
    defaulted fields of the report as committed. (`init_cwnd` is not among them: the scenarios
    set it since 2026-12-05, so a report without it is stale.)"""
    name = "kotla08-live"
    committed = compare(REGISTRY[name], REPORTS / name)
    assert not committed.stale
    already = {d.path for p in committed.pairs for d in p.defaulted}
    folder = _copy(tmp_path, name)
    added = ("capture_acks", "min_tso_segs")

    def as_before(scenarios):
        for sc in scenarios.values():
            for field in added:
                sc.pop(field)

    _edit(folder, as_before)
    c = compare(REGISTRY[name], folder)
    assert not c.stale, c.lines()
    assert {d.path for p in c.pairs for d in p.defaulted} == already | set(added)
    key = next(iter(json.loads((folder / "scenarios.json").read_text())))
    _edit(folder, lambda s: s[key].update(min_tso_segs=2))
    (pair,) = [p for p in compare(REGISTRY[name], folder).pairs if p.changes]
    assert [(d.path, d.old, d.new) for d in pair.changes] == [("min_tso_segs", 2, None)]


def test_a_field_set_away_from_its_default_is_a_change(tmp_path):
    folder = _copy(tmp_path)
    _edit(folder, lambda s: s["bw_mbps=4-surathkal-seed1"]["flows"][1]["tcp"].update(dupthresh=4))
    (pair,) = [p for p in compare(REGISTRY[NAME], folder).pairs if p.changes]
    assert [(d.path, d.old, d.new) for d in pair.changes] == [("flows[1].tcp.dupthresh", 4, 3)]


def test_hash_named_scenarios_are_paired_by_content(tmp_path):
    # Sweep points are named by their scenario's hash, which any field changes: a renamed
    # scenario with a changed rate is one change, not one scenario gone and another new.
    name = "kotla08-table2"
    folder = _copy(tmp_path, name)
    # Today's scenarios as the committed ones (a field added to the model since the report was
    # written, with its default, renames every scenario: paired by content, as checked below).
    today = REGISTRY[name].scenarios(False)
    assert not compare(REGISTRY[name], folder).stale
    _edit(folder, lambda s: (s.clear(), s.update(today)))
    committed = json.loads((folder / "scenarios.json").read_text())
    assert set(committed) == set(today) and len(committed) == 3  # one per seed
    key = sorted(committed)[0]
    rate = committed[key]["dumbbell"]["bottleneck_rate_bps"]
    _edit(folder, lambda s: s.update(old=s.pop(key)))
    c = compare(REGISTRY[name], folder)
    renamed = [p for p in c.pairs if p.old_key != p.new_key]
    assert not c.stale and [(p.old_key, p.new_key) for p in renamed] == [("old", key)] and len(c.pairs) == 3
    _edit(folder, lambda s: s["old"]["dumbbell"].update(bottleneck_rate_bps=rate // 2))
    c = compare(REGISTRY[name], folder)
    assert c.stale and not c.only_report and not c.only_today
    assert [(p.old_key, [d.path for d in p.changes]) for p in c.pairs if p.changes] == [("old", ["dumbbell.bottleneck_rate_bps"])]


def test_scenarios_only_one_side_has_and_unknown_reports_are_stale(tmp_path):
    folder = _copy(tmp_path)
    _edit(folder, lambda s: s.pop("bw_mbps=8-sack-seed1"))
    c = compare(REGISTRY[NAME], folder)
    assert c.stale and c.only_today == ["bw_mbps=8-sack-seed1"] and not c.only_report
    shutil.copytree(folder, tmp_path / "no-such-entry")
    (unknown,) = [c for c in compare_all(tmp_path, REGISTRY) if c.name == "no-such-entry"]
    assert unknown.stale and "no registered entry" in unknown.lines()[0]
    with pytest.raises(ValueError, match="kotla08-mix"):
        compare_all(tmp_path, REGISTRY, ["kotla08-mix"])


def test_diff_names_paths_in_dicts_and_lists():
    old = {"a": {"b": 1, "gone": 0}, "l": [1, 2, 3]}
    new = {"a": {"b": 2, "new": 5}, "l": [1, 4]}
    assert [(d.path, d.kind) for d in diff(old, new)] == [
        ("a.b", "changed"), ("a.gone", "removed"), ("a.new", "added"), ("l[1]", "changed"), ("l[2]", "removed"),
    ]  # fmt: skip


def test_a_report_records_the_scenarios_whose_queue_cannot_act_and_is_stale_when_they_differ(tmp_path, capsys):
    """sigcomm07-fig6 follows the paper's buffer of one BDP and at least twice the flows: at
    1 Mbit/s that is 5 packets, ARED's min_th there, so its RED-ECN point at 1 Mbit/s is drop-tail
    in all three seeds. report.json records those three scenarios (the core's queue_warnings of
    each, from its built network), and a report whose record is not what today's core finds in
    its scenarios is stale, naming the scenarios on both sides."""
    name = "sigcomm07-fig6"
    committed = json.loads((REPORTS / name / "scenarios.json").read_text())
    recorded = json.loads((REPORTS / name / "report.json").read_text())["queue_warnings"]
    ared = {k: s["dumbbell"] for k, s in committed.items() if s["dumbbell"]["bottleneck_queue"]["kind"] == "ared"}
    drop_tail = {k for k, d in ared.items() if d["bottleneck_rate_bps"] == 1_000_000}
    assert set(recorded) == drop_tail and len(drop_tail) == 3 and {committed[k]["seed"] for k in drop_tail} == {1, 2, 3}
    assert all(d["bottleneck_queue"]["limit_pkts"] == 5 for k, d in ared.items() if k in drop_tail)
    assert all(d["bottleneck_queue"]["limit_pkts"] > 5 for k, d in ared.items() if k not in drop_tail)
    assert all(w == [recorded[k][0]] and "min_th (5 packets) is not below the buffer (5 packets)" in w[0] for k, w in recorded.items())
    assert not compare(REGISTRY[name], REPORTS / name).stale

    folder = _copy(tmp_path, name)
    report = json.loads((folder / "report.json").read_text())
    gone = sorted(report["queue_warnings"])[0]
    del report["queue_warnings"][gone]
    (folder / "report.json").write_text(json.dumps(report))
    c = compare(REGISTRY[name], folder)
    assert c.stale and not any(p.changes for p in c.pairs)
    assert main(["--dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{name} (full): stale" in out and "by today's core" in out and gone in out.split("in the report,")[1]
