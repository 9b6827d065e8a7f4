"""What the registry entries of Kotla's 2008 thesis share: claims judged on the mean over
seeds (:class:`Mean`, :func:`judge`), the notes that say how, and the sweep and
thesis-comparison figures. The entries themselves:
:mod:`.kotla08_entries` (sweeps and single-flow figures), :mod:`.kotla08_tables` (Tables I
to V, queue positions, CBR, flows joining and leaving) and
:mod:`.kotla08_homogeneous_entries` (Section VI)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import polars as pl

from ..experiments import kotla08 as k
from ..parallel import Workers
from ..plots import comparison_panels, interval_note, metric_panels, saved_figure
from ..sweep import BOUNDS, FRACTION, INTERVAL, NON_NEGATIVE, Point, Range, aggregate
from .registry import Claim, Entry, Figure, Report, fmt_values, register, wire_of

THESIS = "Kotla, MS thesis, Texas A&M 2008"
PLOT_ONLY = "The thesis prints this figure as a plot only: there are no published values to mark; its claims are checked above."
#: Said of a figure the run draws from a run's time series, which the report does not keep.
DRAWN_BY_RUN = "Drawn by the run from the run's samples, which the report does not keep."


def per_point(runs: pl.DataFrame) -> str:
    """How many runs each point of a sweep is (no error bars with one)."""
    seeds = runs["seed"].unique().sort().to_list()
    return f"one run per point (seed {seeds[0]}), so no error bars" if len(seeds) == 1 else f"the mean of {len(seeds)} runs per point (seeds {fmt_values(seeds)})"


class Mean(float):
    """A mean over seeds that a claim judges like any number and its evidence shows with
    the mean's 95 % interval (:data:`pertlab.sweep.INTERVAL`): ``f"{m:.3g}"`` is
    ``0.55 [0.52, 0.58]``."""

    lo: float
    hi: float

    def __new__(cls, mean: float, lo: float, hi: float) -> "Mean":
        m = super().__new__(cls, mean)
        m.lo, m.hi = lo, hi
        return m

    def __format__(self, spec: str) -> str:
        return f"{float(self):{spec}} [{self.lo:{spec}}, {self.hi:{spec}}]"


def column_values(table: pl.DataFrame, x: str, *cols: str, **where: str) -> tuple[list[float], ...]:
    """``x`` and each of ``cols`` (NaN where a column is missing) as lists sorted by ``x``,
    over the rows matching ``where``. With several seeds per ``x`` (a runs table), or
    from a table :func:`pertlab.sweep.aggregate` made, the values are :class:`Mean` values."""
    t = table
    for key, val in where.items():
        t = t.filter(pl.col(key) == val)
    if "seed" in t.columns and t["seed"].n_unique() > 1:
        t = aggregate(t, [x], tuple(cols), bounds_of(cols))
    t = t.with_columns(pl.col(x).cast(pl.Float64)).sort(x)
    return t[x].to_list(), *(values_of(t, c) for c in cols)


def values_of(t: pl.DataFrame, c: str) -> list[float]:
    """Column ``c`` of ``t`` (NaN if missing), as :class:`Mean` values where ``t`` has their
    interval (not of a mean of one seed)."""
    if c not in t.columns:
        return [math.nan] * t.height
    if f"{c}_lo95" not in t.columns:
        return t[c].to_list()
    return [Mean(m, lo, hi) if not math.isnan(lo) else m for m, lo, hi in zip(t[c].to_list(), t[f"{c}_lo95"].to_list(), t[f"{c}_hi95"].to_list())]


def plot_goodput(path: Path, title: str, results: Any, shade: list[tuple[float, float]] = ()) -> None:
    """Each long flow's goodput over time (from the flow samples), intervals shaded."""
    path.parent.mkdir(parents=True, exist_ok=True)
    thr = results.flow_goodput()
    with saved_figure(path, 1, 1, figsize=(9, 3.6), title=title) as (_, ax):
        for f in thr["flow"].unique(maintain_order=True).to_list():
            t = thr.filter(pl.col("flow") == f)
            ax.plot(t["t_s"].to_list(), t["mbps"].to_list(), label=f"flow {f}")
        for lo, hi in shade:
            ax.axvspan(lo, hi, color="0.9")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("goodput (Mbit/s)")
        ax.legend(fontsize=8)


def mode_for(quick: bool) -> k.Mode:
    return k.QUICK if quick else k.FULL


def new_report(name: str, title: str, section: str, quick: bool, out: Path, notes: list[str]) -> Report:
    mode = "quick" if quick else "full"
    return Report(name=name, title=title, source=f"{THESIS}, {section}", mode=mode, out_dir=out, notes=notes)


def mode_note(mode: k.Mode) -> str:
    return (
        f"{mode.duration} runs, starts uniform in (0, 10) s, metrics over [{mode.warmup}, {mode.measure_end}], "
        f"seeds {', '.join(map(str, mode.seeds))}. Runs are stored under runs/ by scenario hash and reused. {seeds_note(mode.seeds)}"
    ).rstrip()


def seeds_note(seeds: tuple[int, ...]) -> str:
    """How the claims read several seeds ('' for one)."""
    if len(seeds) < 2:
        return ""
    return (
        f"The claims judge the mean over the {len(seeds)} seeds of each point; their evidence gives each mean "
        f"with its interval in brackets ({INTERVAL}); the runs table keeps every run."
    )


def judge(report: Report, claims: Callable[[pl.DataFrame], list[Claim]], runs: pl.DataFrame) -> None:
    """Set the report's claims, judged on ``runs`` (the mean over its seeds), and with several
    seeds add a note naming every claim whose verdict on one seed's runs alone differs from
    another seed's or from the mean's (a claim that held on seed 1 only, say)."""
    report.claims = claims(runs)
    seeds = runs["seed"].unique().sort().to_list()
    if len(seeds) < 2:
        return
    alone = {s: claims(runs.filter(pl.col("seed") == s)) for s in seeds}
    differ = []
    for i, c in enumerate(report.claims):
        held = [s for s in seeds if alone[s][i].holds]
        if len(held) not in (0, len(seeds)) or bool(held) != c.holds:
            on = f"seed{'s' if len(held) > 1 else ''} {', '.join(map(str, held))}" if held else "no seed"
            differ.append(f"'{c.text}' holds on {on} alone and {'holds' if c.holds else 'does not hold'} on the mean")
    report.notes.append(
        "Judged on each seed's runs alone, the claims agree with the mean on every seed." if not differ
        else f"Judged on each seed's runs alone, {len(differ)} claim{'s change' if len(differ) > 1 else ' changes'} verdict: {'; '.join(differ)}."
    )  # fmt: skip


PERT_PANELS = [("pert_share", "PERT bandwidth share"), ("pert_drop_ratio", "PERT/SACK drop ratio"), ("drop_rate", "drop rate (all)"), ("avg_queue_norm", "avg queue / buffer")]


#: Ranges of the residency fractions (for error bars over seeds).
SWEEP_BOUNDS = {**BOUNDS, "pert_compete_frac": FRACTION, "pert_high_speed_frac": FRACTION}


def bounds_of(metrics: Any) -> dict[str, Range]:
    """The range of each metric of a kotla08 table: :data:`SWEEP_BOUNDS`, else by the
    column's kind (a label's share or drop rate is a fraction; a drop ratio, a dispersion,
    a count of drops are not negative)."""

    def of(m: str) -> Range:
        if m in SWEEP_BOUNDS:
            return SWEEP_BOUNDS[m]
        if m.endswith(("_share", "_drop_rate", "_frac")):
            return FRACTION
        return NON_NEGATIVE if m.endswith(("_drop_ratio", "_var_over_mean", "_mbps", "_drops")) else Range()

    return {m: of(m) for m in metrics}


def sweep_figure(file: str, runs: pl.DataFrame, x: str, panels: list[tuple[str, str]], title: str, *, by: str | None = None, log_x: bool = False) -> Figure:
    """A sweep's metrics against ``x`` (:func:`pertlab.plots.metric_panels`), from its runs table:
    the runs themselves with one seed, their means with 95 % intervals with more."""
    table = runs
    bounds = bounds_of(m for m, _ in panels)
    if runs["seed"].n_unique() > 1:
        table = aggregate(runs, [c for c in (by, x) if c], tuple(bounds), bounds)
    bars = interval_note(table, panels, bounds) if table is not runs else ""
    caption = f"{', '.join(t for _, t in panels)} against {x}{f', one line per {by}' if by else ''}: {per_point(runs)}. {bars} {PLOT_ONLY}"
    return Figure(file, caption.replace(".  ", ". "), lambda path: metric_panels(table, x, panels, path, title, by=by, log_x=log_x))


def sweep_entry(
    name: str, title: str, section: str, make_points: Callable[[k.Mode], list[Point]], x: str, claims: Callable[[pl.DataFrame], list[Claim]],
    *, log_x: bool = False, panels: list[tuple[str, str]] = PERT_PANELS, by: str | None = None, full: k.Mode = k.FULL,
) -> None:
    """A sweep of ``make_points(mode)`` (quick or ``full``), one row per run; one figure of
    ``panels`` against ``x`` (a line per ``by``)."""

    def mode_of(quick: bool) -> k.Mode:
        return k.QUICK if quick else full

    def run(quick: bool, out: Path, workers: Workers) -> Report:
        mode = mode_of(quick)
        pts = make_points(mode)
        table = k.run_table(pts, out, workers)
        report = new_report(name, title, section, quick, out, [mode_note(mode)])
        report.tables["runs"] = table
        judge(report, claims, table)
        return report

    def figures(report: Report) -> list[Figure]:
        return [sweep_figure(f"{name}.png", report.tables["runs"], x, panels, title, by=by, log_x=log_x)]

    # One run per point: the runs table is the summary.
    register(Entry(name, title, f"{THESIS}, {section}", run, figures, lambda quick: wire_of(make_points(mode_of(quick))), details=()))


def thesis_figure(file: str, name: str, label: str, pairs: list[tuple[str, str]]) -> Callable[[Report], Figure]:
    """A comparison figure of table ``name``: per row (named by ``label``), our value (bar) of
    each ``(column, panel title)`` and the thesis's (``thesis_{column}``, black diamond)."""

    def figure(report: Report) -> Figure:
        table = report.tables[name]
        what = report.title.split(":")[0]
        runs = report.tables.get("runs")
        ours = (f"ours the mean over {runs['seed'].n_unique()} seeds (bars; error bars: {INTERVAL})"
                if any(f"{c}_lo95" in table.columns for c, _ in pairs) and runs is not None else "ours from one run (bars)")  # fmt: skip
        caption = f"{what}: {ours} and the thesis's published values (black diamonds), per {label}."
        full = [(c, f"thesis_{c}", t) for c, t in pairs]
        return Figure(file, caption, lambda path: comparison_panels(table, label, full, path, report.title, published="thesis"))

    return figure
