"""`pertlab reproduce NAME --render-only`: a committed report drawn again from its data,
the data left as it was, the same bytes every time."""

import html
import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from pertlab.cli import app

runner = CliRunner()
COMMITTED = Path(__file__).parents[2] / "docs" / "reproductions"


def _render(name: str, folder: Path):
    return runner.invoke(app, ["reproduce", name, "--render-only", "--out", str(folder)])


def test_render_only_redraws_the_page_and_figures_and_keeps_the_data(tmp_path):
    folder = tmp_path / "sigcomm07-table1"
    shutil.copytree(COMMITTED / "sigcomm07-table1", folder)
    data = {p.name: p.read_bytes() for p in folder.iterdir() if p.suffix in (".json", ".parquet")}
    res = _render("sigcomm07-table1", folder)
    assert res.exit_code == 0, res.output
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.suffix in (".json", ".parquet")} == data
    page = (folder / "index.html").read_text()
    report = json.loads(data["report.json"])
    # The claims as committed, in order, before the figure, before the table.
    at = [page.index(html.escape(c["evidence"])) for c in report["claims"]]
    assert at == sorted(at) and at[-1] < page.index("<img src='table1.png'") < page.index("<table>")
    first = {name: (folder / name).read_bytes() for name in ("index.html", "table1.png")}
    assert _render("sigcomm07-table1", folder).exit_code == 0
    assert {name: (folder / name).read_bytes() for name in first} == first


def test_render_only_needs_a_report_of_that_entry(tmp_path):
    res = _render("sigcomm07-table1", tmp_path)
    assert res.exit_code == 2 and res.stderr.startswith(f"error: --out: {tmp_path}: no report.json here"), res.output
    shutil.copytree(COMMITTED / "kotla08-table2", tmp_path / "t2")
    res = _render("sigcomm07-table1", tmp_path / "t2")
    assert res.exit_code == 2 and res.stderr.startswith(f"error: --out: {tmp_path / 't2'} holds the report of 'kotla08-table2'"), res.output
    # A report with a file missing or damaged is named, not a KeyError or FileNotFoundError traceback.
    for damage, said in (("report.json", "(KeyError: 'name')"), ("table1.parquet", "(FileNotFoundError:"), ("scenarios.json", "(FileNotFoundError:")):
        folder = tmp_path / damage
        shutil.copytree(COMMITTED / "sigcomm07-table1", folder)
        if damage == "report.json":
            (folder / damage).write_text("{}")
        else:
            (folder / damage).unlink()
        res = _render("sigcomm07-table1", folder)
        assert res.exit_code == 2 and f"error: --out: {folder}: not a whole report of pertlab reproduce {said}" in res.stderr, res.output
        assert "Traceback" not in res.output


def test_options_that_need_a_run_are_refused_where_nothing_runs():
    """Without a name the command lists the reproductions; it used to ignore --render-only,
    --quick and the rest silently there (and --quick beside --render-only)."""
    for flag, args in (("--render-only", []), ("--quick", []), ("--jobs", ["2"]), ("--out", ["x", "--list"])):
        res = runner.invoke(app, ["reproduce", flag, *args])
        assert res.exit_code == 2 and f"error: {flag}: needs a reproduction's name" in res.output, (flag, res.output)
    res = runner.invoke(app, ["reproduce", "sigcomm07-table1", "--list"])
    assert res.exit_code == 2 and "error: name: --list names every reproduction; give a name or --list, not both" in res.output
    res = runner.invoke(app, ["reproduce", "sigcomm07-table1", "--render-only", "--quick"])
    assert res.exit_code == 2 and "error: --quick: --render-only runs nothing" in res.output
    assert runner.invoke(app, ["reproduce", "--list", "--json"]).exit_code == 0
    res = runner.invoke(app, ["reproduce", "sigcomm07-table1", "--render-only"])
    assert res.exit_code == 2 and res.stderr.startswith("error: --out: reports/sigcomm07-table1: no report.json here") and "(--out was not given: reports/NAME is its default)" in res.stderr, res.output
    res = runner.invoke(app, ["reproduce", "nope"])
    assert res.exit_code == 2 and res.stderr.startswith("error: name: unknown reproduction 'nope'; known: hua02-jcc, "), res.output
