"""docs/reproductions.md states results only through blocks generated from the committed
reports (pertlab.reproduce.doc): the page must equal what the generator writes, every
committed report must have its block, and a changed report must show as a stale block."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from pertlab.reproduce import REGISTRY, Report
from pertlab.reproduce.doc import main, read_reports, render_page, stale_blocks

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGE = DOCS / "reproductions.md"
BENCHMARKS = DOCS.parent / "BENCHMARKS.md"


def test_the_page_equals_what_its_reports_generate():
    assert stale_blocks(PAGE, DOCS / "reproductions", REGISTRY) == []
    assert stale_blocks(BENCHMARKS, DOCS / "reproductions", REGISTRY, every_report=False) == []
    assert main(["--check", str(PAGE)]) == 0


def test_benchmarks_total_wall_time_is_the_sum_of_the_reports():
    recorded = [r.wall_seconds for r in read_reports(DOCS / "reproductions").values() if r.wall_seconds is not None]
    assert recorded, "no committed report records its wall time"
    text = BENCHMARKS.read_text()
    assert f"Total over the {len(recorded)} reports that record it: {math.fsum(recorded):.0f} s" in text


def test_every_committed_report_is_a_registered_entry():
    committed = {d.name for d in (DOCS / "reproductions").iterdir() if (d / "report.json").is_file()}
    assert committed <= set(REGISTRY), committed - set(REGISTRY)


def _copy(tmp_path: Path) -> tuple[Path, Path]:
    page = tmp_path / "reproductions.md"
    shutil.copy(PAGE, page)
    reports = tmp_path / "reproductions"
    for d in (DOCS / "reproductions").iterdir():
        if (d / "report.json").is_file():
            shutil.copytree(d, reports / d.name, ignore=shutil.ignore_patterns("*.png", "*.html", "tasks", "runs"))
    return page, reports


def test_a_changed_report_makes_its_block_stale_and_make_docs_rewrites_it(tmp_path):
    page, reports = _copy(tmp_path)
    report = reports / "kotla08-join-leave" / "report.json"
    data = json.loads(report.read_text())
    data["claims"][1]["holds"] = not data["claims"][1]["holds"]
    data["claims"][1]["evidence"] = "0.5, 0.5"
    data["wall_seconds"] = 12.3
    report.write_text(json.dumps(data))
    stale = stale_blocks(page, reports, REGISTRY)
    assert len(stale) == 2 and "index" in stale and any("kotla08-join-leave" in s for s in stale)
    assert main([str(page), "--benchmarks", str(tmp_path / "BENCHMARKS.md")]) == 0
    assert stale_blocks(page, reports, REGISTRY) == []
    text = page.read_text()
    assert "| 0.5, 0.5 |" in text and "wall time 12 s" in text


def test_a_report_without_a_block_is_an_error(tmp_path):
    page, reports = _copy(tmp_path)
    shutil.copytree(reports / "kotla08-cbr", reports / "kotla08-cbr-copy")
    with pytest.raises(ValueError, match="kotla08-cbr-copy"):
        render_page(page.read_text(), reports, {**REGISTRY, "kotla08-cbr-copy": None})


def test_seeds_come_from_the_run_tables(tmp_path):
    # tahiliani-ch3-flows keeps one scenario per point in scenarios.json but runs 100 seeds.
    assert Report.read(DOCS / "reproductions" / "tahiliani-ch3-flows").seeds() == list(range(1, 101))
    assert Report.read(DOCS / "reproductions" / "kotla08-phase").seeds() == [1, 2, 3]


def test_the_seeds_report_json_records_are_those_of_its_scenarios_and_tables(tmp_path):
    """The generated pages read the reports without their scenarios (most of their bytes) and
    take the seeds report.json records; those are the seeds of the scenarios and tables, in every
    committed report. One without recorded seeds (written before they were) is read whole."""
    for name, light in read_reports(DOCS / "reproductions").items():
        whole = Report.read(light.out_dir)
        assert light.scenarios is None and light.seeds() == whole.seeds() == whole.recorded_seeds, name
    old = tmp_path / "old"
    shutil.copytree(DOCS / "reproductions" / "kotla08-phase", old, ignore=shutil.ignore_patterns("*.png", "*.html", "tasks", "runs"))
    data = json.loads((old / "report.json").read_text())
    del data["seeds"]
    (old / "report.json").write_text(json.dumps(data))
    light = Report.read(old, with_scenarios=False)
    assert light.scenarios and light.seeds() == [1, 2, 3]
    with pytest.raises(ValueError, match="without its scenarios"):
        Report.read(DOCS / "reproductions" / "kotla08-phase", with_scenarios=False).write()


#: Registered reproductions whose full run is not committed yet (none: every entry has its full
#: report). The set is exact, so a new entry without a full report, or a report committed
#: without updating this set, fails.
NOT_YET_FULL: set[str] = set()


def test_every_registered_reproduction_has_a_committed_full_report():
    reports = read_reports(DOCS / "reproductions")
    assert set(REGISTRY) - set(reports) == NOT_YET_FULL
    assert {name for name, r in reports.items() if r.mode != "full"} == set()


#: Reports whose runs draw nothing at random, so that one seed is all there is: the fluid models,
#: and hua02-vegas (every flow starts at 0 on DropTail without loss; its notes say so and that a
#: three-seed report found no spread between seeds).
DETERMINISTIC = {"sigcomm07-fig13", "tahiliani-ch5-fluid", "hua02-vegas"}


def test_reports_of_random_runs_have_three_seeds():
    """Issue 18: every committed report of random runs has at least three seeds, so that the
    spread is visible where the source shows a single run."""
    reports = read_reports(DOCS / "reproductions")
    few = {name for name, r in reports.items() if len(r.seeds()) < 3}
    assert few <= DETERMINISTIC, f"reports of random runs with fewer than three seeds: {sorted(few - DETERMINISTIC)}"
    assert "spread of 0" in " ".join(reports["hua02-vegas"].notes)


def test_committed_fractions_do_not_exceed_one():
    """Residencies are fractions of the measurement window (issue 25's fix): no committed table
    may hold one above 1, as the kotla08 reports made before the fix did (1.0012)."""
    import polars as pl

    for path in (DOCS / "reproductions").glob("*/*.parquet"):
        table = pl.read_parquet(path)
        for column in ("pert_compete_frac", "pert_high_speed_frac", "pert_safe_frac"):
            if column in table.columns and table[column].drop_nulls().len():
                assert table[column].max() <= 1.0, (path, column, table[column].max())


def test_a_report_names_the_scenarios_whose_queue_cannot_act_in_its_page_and_its_block(tmp_path):
    """What a reproduction's report records of its scenarios' queues (queue_warnings_of, called by
    Entry.report): a RED queue whose buffer is at its min_th is named with the scenarios that have
    it, in report.json, the page and the docs block; a RED queue that can act and the fluid
    entries' model parameters (not core scenarios) are not."""
    from pertlab.builders import dumbbell
    from pertlab.reproduce.doc import _claims
    from pertlab.reproduce.registry import queue_warnings_of

    def red(buffer: int) -> dict:
        return dumbbell(bw="10Mbps", flows=2, queue="red", buffer_pkts=buffer, duration="1s").to_wire()

    scenarios = {"small-1": red(5), "small-2": red(4), "large": red(30), "fluid": {"capacity": 1000, "duration_s": 10.0}}
    found = queue_warnings_of(scenarios)
    assert sorted(found) == ["small-1", "small-2"]
    assert "min_th (5 packets) is not below the buffer (5 packets)" in found["small-1"][0]
    report = Report(name="x", title="t", source="s", mode="quick", out_dir=tmp_path / "x", scenarios=scenarios, queue_warnings=found)
    report.write()
    back = Report.read(tmp_path / "x", with_scenarios=False)
    assert back.queue_warnings == found
    assert [names for _, names in back.queue_warning_groups()] == [["small-1"], ["small-2"]]  # two buffers, two warnings
    page = (tmp_path / "x" / "index.html").read_text()
    assert "<h2>Queues that cannot act</h2>" in page and "in 1 scenario: small-2" in page
    block = _claims(back)
    assert "A queue that cannot act, in 1 scenario (`small-1`): bottleneck (r0 -> r1, red): min_th (5 packets)" in block
    quiet = Report(name="y", title="t", source="s", mode="quick", out_dir=tmp_path / "y", scenarios={"large": scenarios["large"]}, queue_warnings={})
    quiet.write()
    assert "cannot act" not in (tmp_path / "y" / "index.html").read_text() and "cannot act" not in _claims(quiet)
