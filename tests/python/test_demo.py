"""The PERT paper comparison in quick mode: one table and the figures."""

import polars as pl
from typer.testing import CliRunner

from pertlab.cli import app
from pertlab.demo import PAPER_CLAIMS, SCHEMES


def test_quick_demo_writes_table_plots_and_results(tmp_path):
    result = CliRunner().invoke(app, ["demo", "--quick", "--out", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for s in SCHEMES:
        assert s.label in result.stdout
        assert (tmp_path / s.slug / "flows.parquet").is_file()
    table = pl.read_csv(tmp_path / "table.csv")
    assert table["scheme"].to_list() == [s.label for s in SCHEMES]
    assert ((table["utilization"] > 0.5) & (table["utilization"] <= 1.0)).all()
    assert ((table["jain"] > 0) & (table["jain"] <= 1)).all()
    by = {r["scheme"]: r for r in table.iter_rows(named=True)}
    # The paper's shape: PERT keeps a shorter queue than SACK over DropTail, and RED-ECN marks.
    assert by["PERT/DropTail"]["avg_queue_norm"] < by["SACK/DropTail"]["avg_queue_norm"]
    assert by["SACK/RED-ECN"]["mark_rate"] > 0
    for name in ("queue.png", "cwnd.png", "throughput.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
    table_md = (tmp_path / "table.md").read_text()
    for s in SCHEMES:
        assert PAPER_CLAIMS[s.label] in table_md
