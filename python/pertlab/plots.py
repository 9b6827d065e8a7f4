"""Figures of a run, or of several runs side by side (matplotlib, PNG).

- queue length of the bottleneck over time, with its buffer limit;
- congestion window of the sampled flows over time;
- goodput of every flow over the measurement window, coloured by controller.

The time-series figures need the run to have recorded series
(``monitor.sample_interval``); without them the panel says so.

For reproductions: metrics against a swept value (:func:`metric_panels`) with
the intervals :func:`pertlab.sweep.aggregate` makes, and ours against the
published values (:func:`comparison_panels`).
"""

from __future__ import annotations

import textwrap
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402

from .results import Results  # noqa: E402

__all__ = ["plot_queue", "plot_cwnd", "plot_throughput", "write_figures", "saved_figure", "metric_panels", "comparison_panels", "interval_note"]


@contextmanager
def saved_figure(path: Path, nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float], title: str | None = None, **kw) -> Iterator:
    """``plt.subplots(nrows, ncols)`` whose figure is titled, laid out, saved to ``path``
    (PNG, 110 dpi, no metadata: the bytes are a function of the data) and closed when
    the block ends; yields (figure, axes)."""
    fig, axes = plt.subplots(nrows, ncols, figsize=figsize, **kw)
    try:
        yield fig, axes
        if title:
            fig.suptitle(title)
        fig.tight_layout()
        fig.savefig(path, dpi=110, metadata={"Software": None})
    finally:
        plt.close(fig)


@contextmanager
def _panels(path: Path, n: int, size: tuple[float, float], title: str) -> Iterator[list[Axes]]:
    """:func:`saved_figure` with ``n`` panels of ``size`` inches in a row, or two by two when
    there are four (readable at a page's width); yields their axes in order."""
    rows, cols = (2, 2) if n == 4 else (1, n)
    with saved_figure(path, rows, cols, figsize=(size[0] * cols, size[1] * rows), title=title, squeeze=False) as (_, axes):
        yield list(axes.flat)


def _no_data(ax: Axes, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what} recorded", ha="center", va="center", transform=ax.transAxes, color="0.4")


def plot_queue(ax: Axes, results: Results, title: str = "") -> None:
    """Bottleneck queue length (packets) against time; the buffer as a dashed line."""
    b = results.bottleneck
    series = results.queue_series
    if b is not None:
        series = series.filter((pl.col("link") == b["link"]) & (pl.col("from") == b["from"]))
    if b is None or series.is_empty():
        _no_data(ax, "queue series")
    else:
        ax.plot(series["t_s"], series["len_pkts"], lw=0.6, color="C0")
        if b.get("limit_pkts"):
            ax.axhline(b["limit_pkts"], color="0.3", ls="--", lw=0.8, label="buffer")
            ax.legend(loc="upper right", fontsize="small")
        _shade_window(ax, results)
    ax.set(xlabel="time (s)", ylabel="queue (packets)", title=title)


def plot_cwnd(ax: Axes, results: Results, title: str = "") -> None:
    """Congestion window (segments) of every sampled flow against time."""
    series = results.flow_series
    if series.is_empty():
        _no_data(ax, "flow series")
    else:
        for (flow,), part in series.sort("flow", "t_s").group_by("flow", maintain_order=True):
            cc = part["cc"][0]
            ax.plot(part["t_s"], part["cwnd"], lw=0.6, label=f"flow {flow} ({cc})")
        ax.legend(loc="upper right", fontsize="x-small")
        _shade_window(ax, results)
    ax.set(xlabel="time (s)", ylabel="cwnd (segments)", title=title)


def plot_throughput(ax: Axes, results: Results, title: str = "") -> None:
    """Goodput of each TCP flow over the measurement window (bars, one colour per controller)."""
    flows = results.flows
    if flows.is_empty():
        _no_data(ax, "TCP flows")
    else:
        for i, (cc,) in enumerate(flows.select("cc").unique(maintain_order=True).iter_rows()):
            part = flows.filter(pl.col("cc") == cc)
            ax.bar(part["id"], part["goodput_mbps"], color=f"C{i}", label=cc, width=0.8)
        fair = flows["goodput_mbps"].mean()
        ax.axhline(fair, color="0.3", ls="--", lw=0.8, label=f"mean {fair:.2f}")
        ax.legend(loc="upper right", fontsize="small")
    ax.set(xlabel="flow", ylabel="goodput (Mbit/s)", title=title)


def _shade_window(ax: Axes, results: Results) -> None:
    """Grey out the time outside the measurement window."""
    start, end = results.data.get("window_start_s", 0.0), results.data.get("window_end_s")
    if start > 0:
        ax.axvspan(0, start, color="0.92", zorder=0)
    if end is not None and end < results.data.get("sim_seconds", end):
        ax.axvspan(end, results.data["sim_seconds"], color="0.92", zorder=0)


_FIGURES = {"queue.png": plot_queue, "cwnd.png": plot_cwnd, "throughput.png": plot_throughput}


def write_figures(runs: dict[str, Results], out_dir: str | Path) -> list[Path]:
    """One PNG per kind of figure, with a panel per run (labelled by its key)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cols = min(len(runs), 2)
    rows = -(-len(runs) // cols)
    written = []
    for name, draw in _FIGURES.items():
        fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, 3.6 * rows), squeeze=False, layout="constrained")
        for ax, (label, results) in zip(axes.flat, runs.items()):
            draw(ax, results, title=label)
        for ax in axes.flat[len(runs) :]:
            ax.set_visible(False)
        # Fixed metadata keeps the PNG bytes a function of the data alone.
        fig.savefig(out / name, dpi=110, metadata={"Software": None})
        plt.close(fig)
        written.append(out / name)
    return written


def _interval(t: pl.DataFrame, metric: str) -> list[list[float]] | None:
    """Error-bar lengths below and above each mean: the interval ``{metric}_lo95`` ..
    ``{metric}_hi95`` of :func:`pertlab.sweep.aggregate` (none where it is NaN)."""
    if f"{metric}_lo95" not in t.columns:
        return None
    below = (t[metric] - t[f"{metric}_lo95"]).fill_nan(0).fill_null(0)
    above = (t[f"{metric}_hi95"] - t[metric]).fill_nan(0).fill_null(0)
    return [below.to_list(), above.to_list()]


def interval_note(table: pl.DataFrame, panels: list[tuple[str, str]], bounds: dict | None = None) -> str:
    """The caption's sentence on the error bars of the ``panels`` whose metric has an
    interval in ``table`` ('' if none has): how they are made and each panel's range."""
    from .sweep import BOUNDS, INTERVAL, Range

    bounds = BOUNDS if bounds is None else bounds
    ranged = [f"{title} {bounds.get(m, Range())}" for m, title in panels if f"{m}_lo95" in table.columns]
    return f"Error bars: {INTERVAL} ({'; '.join(ranged)})." if ranged else ""


def metric_panels(
    table: pl.DataFrame, x: str, panels: list[tuple[str, str]], path: Path, title: str, *,
    by: str | None = None, labels: dict[str, str] | None = None, x_label: str | None = None, log_x: bool = False,
) -> None:
    """One panel per ``(metric, panel title)`` against ``x``, one line per value of
    ``by`` (named through ``labels``), error bars where the table has the metric's
    interval (``{metric}_lo95``, ``{metric}_hi95``: :func:`pertlab.sweep.aggregate`).
    A log x axis becomes symlog when ``x`` has a zero."""
    groups = table[by].unique(maintain_order=True).to_list() if by else [None]
    with _panels(path, len(panels), (4.25, 3.6), title) as axes:
        for ax, (metric, panel_title) in zip(axes, panels):
            for g in groups:
                t = (table if g is None else table.filter(pl.col(by) == g)).with_columns(pl.col(x).cast(pl.Float64)).sort(x)
                if metric not in t.columns:
                    continue
                name = None if g is None else (labels or {}).get(g, str(g))
                ax.errorbar(t[x].to_list(), t[metric].to_list(), yerr=_interval(t, metric), marker="o", ms=3, capsize=2, label=name)
            if log_x:
                if table[x].cast(pl.Float64).min() == 0:
                    ax.set_xscale("symlog", linthresh=1e-6)
                else:
                    ax.set_xscale("log")
            ax.set_xlabel(x_label or x)
            ax.set_title(panel_title)
        if by:
            axes[0].legend(fontsize=8)


def comparison_panels(
    table: pl.DataFrame, label: str, pairs: list[tuple[str, str, str]], path: Path, title: str, *, published: str = "paper",
) -> None:
    """One panel per ``(ours, published column, panel title)``: our value for each row of
    ``table`` (named by its ``label`` column) as a bar, with its interval where the table
    has one (``{ours}_lo95``, ``{ours}_hi95``), and the document's value as a black diamond."""
    x = list(range(table.height))
    width = max(3.4, 0.6 * table.height + 1.8)
    # About 7 characters of tick label fit in an inch: labels are wrapped to their slot,
    # or rotated when a slot is too narrow for a word.
    slot = int(7 * width / max(table.height, 1))
    rotate = slot < 8
    names = [textwrap.fill(str(v), 16 if rotate else slot) for v in table[label].to_list()]
    with _panels(path, len(pairs), (width, 3.8), title) as axes:
        for ax, (ours, theirs, panel_title) in zip(axes, pairs):
            # A row without a value (the document's table has a blank) draws nothing.
            ours_v, theirs_v = (table[c].cast(pl.Float64).fill_null(float("nan")).to_list() for c in (ours, theirs))
            err = _interval(table, ours)
            ax.bar(x, ours_v, 0.6, color="C0", yerr=err, capsize=3, label="pertlab")
            ax.scatter(x, theirs_v, marker="D", s=28, color="black", zorder=3, label=published)
            ax.set_xticks(x, names, rotation=30 if rotate else 0, ha="right" if rotate else "center")
            ax.set(title=panel_title, xlabel=label)
            # From 0 (or the lowest value), with room for the legend above the bars.
            tops = [v + e for v, e in zip(ours_v, err[1])] if err else ours_v
            drawn = [v for v in ours_v + theirs_v + tops if v == v]
            top = max(drawn, default=0.0)
            ax.set_ylim(min(0.0, *drawn), 1.3 * top if top > 0 else 1.0)
        axes[0].legend(loc="best", fontsize=8, scatterpoints=1)
