"""Intervals that stay inside what the quantity can be (issue 20, item 5): the error bars the
reproductions draw, checked on the committed full runs of Figure 7 and on hand-made samples."""

import json
from pathlib import Path

import matplotlib.figure
import polars as pl
import pytest
from matplotlib.container import ErrorbarContainer

from pertlab.experiments import sigcomm07 as sc
from pertlab.sweep import aggregate

FIG7 = Path(__file__).parents[2] / "docs" / "reproductions" / "sigcomm07-fig7"
FIG7_FLOWS = 50


def _fig7_runs() -> pl.DataFrame:
    """The committed runs, with the number of flows of each (from its scenario) where the
    runs table predates the ``tcp_flows`` column."""
    runs = pl.read_parquet(FIG7 / "runs.parquet")
    if "tcp_flows" in runs.columns:
        return runs
    scenarios = json.loads((FIG7 / "scenarios.json").read_text())
    flows = pl.DataFrame({"key": list(scenarios), "tcp_flows": [len(w["flows"]) for w in scenarios.values()]})
    return runs.join(flows, on="key")


def _drawn_figure(monkeypatch, draw) -> matplotlib.figure.Figure:
    """The figure ``draw()`` saves (its file is not written)."""
    saved = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", lambda fig, *a, **k: saved.append(fig))
    draw()
    assert len(saved) == 1
    return saved[0]


def _error_bars(ax) -> list[tuple[float, float]]:
    """(low, high) end of every vertical error bar drawn on ``ax``."""
    bars = []
    for c in ax.containers:
        if isinstance(c, ErrorbarContainer):
            for col in c.lines[2]:
                bars += [(float(min(seg[:, 1])), float(max(seg[:, 1]))) for seg in col.get_segments()]
    return bars


def test_figure7_error_bars_stay_inside_each_quantitys_range(monkeypatch):
    runs = _fig7_runs()
    assert runs["tcp_flows"].unique().to_list() == [FIG7_FLOWS]
    table = aggregate(runs, ["scheme", "rtt_ms"]).sort("scheme", "rtt_ms")
    ranges = {"avg_queue_norm": (0.0, 1.0), "drop_rate": (0.0, 1.0), "utilization": (0.0, 1.0), "jain": (1 / FIG7_FLOWS, 1.0)}
    # The data has what pushes a plain t-interval out: Vegas' Jain index at 1 s, 0.18 with a
    # half-width of 0.32 over three seeds, and its queue near the buffer with a wide spread.
    raw = table.select(
        (pl.col("jain") - pl.col("jain_ci95")).min().alias("jain_low"),
        (pl.col("avg_queue_norm") + pl.col("avg_queue_norm_ci95")).max().alias("queue_high"),
    ).row(0, named=True)
    assert raw["jain_low"] < 0 and raw["queue_high"] > 1, raw
    fig = _drawn_figure(monkeypatch, lambda: sc.plot_figure(table, "rtt_ms", "RTT", "Figure 7", FIG7 / "unused.png"))
    for ax, (metric, _) in zip(fig.axes, sc.PANELS):
        lower, upper = ranges[metric]
        bars = _error_bars(ax)
        assert bars, metric
        outside = [(lo, hi) for lo, hi in bars if lo < lower - 1e-12 or hi > upper + 1e-12]
        assert not outside, (metric, outside)


def test_an_interval_is_cut_to_the_range_and_keeps_its_mean():
    # Three seeds with a mean near 0 and a large spread: the t-interval 0.1 +- 0.43 is cut
    # at 0 below; the Jain index of 4 flows at 1/4; a mean a hair above 1 keeps its interval
    # from the mean (it is measured, not drawn).
    runs = pl.DataFrame({
        "p": ["a"] * 3, "drop_rate": [0.0, 0.0, 0.3], "jain": [0.26, 0.9, 0.3], "tcp_flows": [4] * 3, "utilization": [1.0003, 1.0, 1.0],
    })  # fmt: skip
    row = aggregate(runs, ["p"], ("drop_rate", "jain", "utilization")).row(0, named=True)
    assert row["drop_rate"] == pytest.approx(0.1) and row["drop_rate_ci95"] == pytest.approx(4.302653 * 0.3 / 3, rel=1e-6)
    assert row["drop_rate_lo95"] == 0.0 and row["drop_rate_hi95"] == pytest.approx(0.1 + row["drop_rate_ci95"])
    assert row["jain_lo95"] == 0.25 and row["jain_hi95"] == 1.0
    assert row["utilization_lo95"] < row["utilization"] == row["utilization_hi95"] > 1
