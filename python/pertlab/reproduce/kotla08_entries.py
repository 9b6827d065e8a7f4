"""Registry entries of Kotla's 2008 thesis (adaptive PERT): the mix, flow-count
and buffer sweeps (Figures 4, 5, 8, 9) with the mix under phase effects, the
sweeps against TCP-Illinois (Figures 10, 11), PERT alone up to 1000 flows (Figure 19),
one flow on a high-BDP path (Figure 23), channel errors (Figure 26), RTT noise
(Figure 25), intermittent CBR (Figure 12), flows joining and leaving (Figure 24),
queue positions (Figures 27, 28) and Tables I to V. Each
report states the thesis's claims and whether our data bears them out; the
tables carry the thesis's numbers beside ours."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import polars as pl

from ..experiments import kotla08 as k
from ..parallel import Workers
from ..plots import comparison_panels, interval_note, metric_panels, saved_figure
from ..sweep import BOUNDS, FRACTION, INTERVAL, NON_NEGATIVE, Point, Range, aggregate, stored_results
from .registry import Claim, Entry, Figure, Report, fmt_values, rank_correlation, register, wire_of

THESIS = "Kotla, MS thesis, Texas A&M 2008"
PLOT_ONLY = "The thesis prints this figure as a plot only: there are no published values to mark; its claims are checked above."
#: Said of a figure the run draws from a run's time series, which the report does not keep.
DRAWN_BY_RUN = "Drawn by the run from the run's samples, which the report does not keep."


def _per_point(runs: pl.DataFrame) -> str:
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


def _col(table: pl.DataFrame, x: str, *cols: str, **where: str) -> tuple[list[float], ...]:
    """``x`` and each of ``cols`` (NaN where a column is missing) as lists sorted by ``x``,
    over the rows matching ``where``. With several seeds per ``x`` (a runs table), or
    from a table :func:`pertlab.sweep.aggregate` made, the values are :class:`Mean` values."""
    t = table
    for key, val in where.items():
        t = t.filter(pl.col(key) == val)
    if "seed" in t.columns and t["seed"].n_unique() > 1:
        t = aggregate(t, [x], tuple(cols), _bounds(cols))
    t = t.with_columns(pl.col(x).cast(pl.Float64)).sort(x)
    return t[x].to_list(), *(_values(t, c) for c in cols)


def _values(t: pl.DataFrame, c: str) -> list[float]:
    """Column ``c`` of ``t`` (NaN if missing), as :class:`Mean` values where ``t`` has their
    interval (not of a mean of one seed)."""
    if c not in t.columns:
        return [math.nan] * t.height
    if f"{c}_lo95" not in t.columns:
        return t[c].to_list()
    return [Mean(m, lo, hi) if not math.isnan(lo) else m for m, lo, hi in zip(t[c].to_list(), t[f"{c}_lo95"].to_list(), t[f"{c}_hi95"].to_list())]


def _plot_goodput(path: Path, title: str, results: Any, shade: list[tuple[float, float]] = ()) -> None:
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


def _mode(quick: bool) -> k.Mode:
    return k.QUICK if quick else k.FULL


def _one(key: str, scenario: Any) -> Point:
    """The point of an entry that runs one scenario."""
    return Point((("run", key),), 1, scenario)


def _run_one(pt: Point, out: Path, workers: Workers) -> Any:
    """Run (or reuse) one point under ``out/runs``; its results."""
    k.run_table([pt], out, workers)
    return stored_results(pt, out)


def _report(name: str, title: str, section: str, quick: bool, out: Path, notes: list[str]) -> Report:
    mode = "quick" if quick else "full"
    return Report(name=name, title=title, source=f"{THESIS}, {section}", mode=mode, out_dir=out, notes=notes)


def _mode_note(mode: k.Mode) -> str:
    return (
        f"{mode.duration} runs, starts uniform in (0, 10) s, metrics over [{mode.warmup}, {mode.measure_end}], "
        f"seeds {', '.join(map(str, mode.seeds))}. Runs are stored under runs/ by scenario hash and reused. {_seeds_note(mode.seeds)}"
    ).rstrip()


def _seeds_note(seeds: tuple[int, ...]) -> str:
    """How the claims read several seeds ('' for one)."""
    if len(seeds) < 2:
        return ""
    return (
        f"The claims judge the mean over the {len(seeds)} seeds of each point; their evidence gives each mean "
        f"with its interval in brackets ({INTERVAL}); the runs table keeps every run."
    )


def _judged(report: Report, claims: Callable[[pl.DataFrame], list[Claim]], runs: pl.DataFrame) -> None:
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


def _bounds(metrics: Any) -> dict[str, Range]:
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


def _sweep_figure(file: str, runs: pl.DataFrame, x: str, panels: list[tuple[str, str]], title: str, *, by: str | None = None, log_x: bool = False) -> Figure:
    """A sweep's metrics against ``x`` (:func:`pertlab.plots.metric_panels`), from its runs table:
    the runs themselves with one seed, their means with 95 % intervals with more."""
    table = runs
    bounds = _bounds(m for m, _ in panels)
    if runs["seed"].n_unique() > 1:
        table = aggregate(runs, [c for c in (by, x) if c], tuple(bounds), bounds)
    bars = interval_note(table, panels, bounds) if table is not runs else ""
    caption = f"{', '.join(t for _, t in panels)} against {x}{f', one line per {by}' if by else ''}: {_per_point(runs)}. {bars} {PLOT_ONLY}"
    return Figure(file, caption.replace(".  ", ". "), lambda path: metric_panels(table, x, panels, path, title, by=by, log_x=log_x))


def _sweep_entry(
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
        report = _report(name, title, section, quick, out, [_mode_note(mode)])
        report.tables["runs"] = table
        _judged(report, claims, table)
        return report

    def figures(report: Report) -> list[Figure]:
        return [_sweep_figure(f"{name}.png", report.tables["runs"], x, panels, title, by=by, log_x=log_x)]

    # One run per point: the runs table is the summary.
    register(Entry(name, title, f"{THESIS}, {section}", run, figures, lambda quick: wire_of(make_points(mode_of(quick))), details=()))


# ------------------------------------------------------------------ mix


def _mix_claims(t: pl.DataFrame) -> list[Claim]:
    xs, share, ratio, drop, queue, pd, sd = _col(
        t, "pert_percent", "pert_share", "pert_drop_ratio", "drop_rate", "avg_queue_norm", "pert_var_over_mean", "sack_var_over_mean"
    )
    at = dict(zip(xs, range(len(xs))))
    half = at.get(50.0)
    mixed = [i for i, v in enumerate(xs) if 0 < v < 100]
    claims = []
    if half is not None:
        claims.append(Claim("In a 50-50 mix PERT's bandwidth share is between 35 % and 65 %.", 0.35 <= share[half] <= 0.65, f"PERT share at 50 %: {share[half]:.3f}"))
        claims.append(Claim("In a 50-50 mix PERT's drop rate is below SACK's (drop ratio < 1).", ratio[half] < 1, f"drop ratio at 50 %: {ratio[half]:.3f}"))
    claims.append(Claim("The PERT/SACK drop ratio is below 1 in every mix (Fig. 5).", all(ratio[i] < 1 for i in mixed), f"at {fmt_values([xs[i] for i in mixed])} % PERT: {fmt_values([ratio[i] for i in mixed])}"))
    if 100.0 in at:
        claims.append(Claim("A homogeneous PERT population has near-zero drops (drop rate below 1e-4; Fig. 4: zero at 100 %).", drop[at[100.0]] < 1e-4, f"drop rate at 100 % PERT: {drop[at[100.0]]:.3g}"))
    if 0.0 in at:
        claims.append(Claim("Mixed deployments drop less than 100 % SACK (Fig. 4).", all(drop[i] < drop[at[0.0]] for i in mixed), f"drop rate: {fmt_values(drop)} at {fmt_values(xs)} % PERT"))
    if 100.0 in at:
        claims.append(Claim("The queue is much lower at 100 % PERT than in any mix (Fig. 4).", all(queue[at[100.0]] < 0.5 * queue[i] for i in mixed), f"avg queue / buffer: {fmt_values(queue)}"))
    claims.append(Claim("PERT's bandwidth varies less than SACK's: variance / mean of 1-s samples lower in every mix (Fig. 6).", all(pd[i] < sd[i] for i in mixed),
                        f"PERT {fmt_values([pd[i] for i in mixed])}; SACK {fmt_values([sd[i] for i in mixed])}"))  # fmt: skip
    pure = [i for i, v in enumerate(xs) if v > 0 and not math.isnan(pd[i])]
    if len(pure) >= 2:
        rho = rank_correlation([xs[i] for i in pure], [pd[i] for i in pure]) if len(pure) > 2 else (-1.0 if pd[pure[-1]] < pd[pure[0]] else 1.0)
        claims.append(Claim("PERT's variance / mean keeps falling as PERT's percentage rises (Fig. 6; rank correlation below 0).", rho < 0,
                            f"Spearman {rho:.2f}; {fmt_values([pd[i] for i in pure])} at {fmt_values([xs[i] for i in pure])} %"))  # fmt: skip
    near = [i for i in mixed if abs(share[i] - xs[i] / 100) <= 0.15]
    claims.append(Claim("PERT's share is close to its fair share, the PERT percentage (within 0.15; Fig. 5).", len(near) == len(mixed), f"share {fmt_values([share[i] for i in mixed])} at {fmt_values([xs[i] for i in mixed])} %"))
    return claims


_sweep_entry("kotla08-mix", "Figures 4-6: 100 flows, PERT share 0..100 % (rest SACK), 150 Mbit/s, 60 ms", "Section V.A.1", k.mix_points, "pert_percent", _mix_claims)


def _fast_mix_claims(t: pl.DataFrame) -> list[Claim]:
    xs, share, ratio, drop, queue = _col(t, "fast_percent", "fast_share", "fast_drop_ratio", "drop_rate", "avg_queue_norm")
    mixed = [i for i, v in enumerate(xs) if 0 < v < 100]
    return [
        Claim("The queue falls as FAST's percentage rises (Fig. 7).", queue[-1] < queue[0], f"avg queue / buffer {fmt_values(queue)} at {fmt_values(xs)} % FAST"),
        Claim("FAST's drop rate is below SACK's in the mixes.", all(ratio[i] < 1 for i in mixed), f"FAST/SACK drop ratio {fmt_values([ratio[i] for i in mixed])}"),
        Claim("The overall drop rate is higher at 100 % FAST than at 100 % SACK.", drop[-1] > drop[0], f"drop rate {fmt_values(drop)}"),
        Claim("FAST takes a larger share than SACK: per flow, FAST gets more than SACK in every mix.", all(share[i] > xs[i] / 100 for i in mixed), f"FAST share {fmt_values([share[i] for i in mixed])} at {fmt_values([xs[i] for i in mixed])} % FAST"),
    ]


_sweep_entry(
    "kotla08-fast-mix", "Figure 7: 100 flows, FAST share 0..100 % (rest SACK), 150 Mbit/s, 60 ms", "Section V.A.1", k.fast_mix_points, "fast_percent",
    _fast_mix_claims, panels=[("fast_share", "FAST bandwidth share"), ("fast_drop_ratio", "FAST/SACK drop ratio"), ("drop_rate", "drop rate (all)"), ("avg_queue_norm", "avg queue / buffer")],
)  # fmt: skip


# ---------------------------------------------------------------- flows


def _flows_claims(t: pl.DataFrame) -> list[Claim]:
    xs, share, ratio, drop = _col(t, "flows", "pert_share", "pert_drop_ratio", "drop_rate")
    return [
        Claim("PERT's share is lower with few flows than with many (Fig. 8).", share[0] < share[-1], f"share {fmt_values(share)} at {fmt_values(xs)} flows"),
        Claim("PERT's share stabilises near 50 % with many flows (between 35 % and 65 % at the largest count).", 0.35 <= share[-1] <= 0.65, f"{share[-1]:.3f} at {xs[-1]:g} flows"),
        Claim("The drop rate grows with the number of flows (Fig. 8).", drop[-1] > drop[0], f"drop rate {fmt_values(drop)}"),
        Claim("PERT's drop rate is below SACK's at every flow count (drop ratio < 1).", all(r < 1 for r in ratio), f"drop ratio {fmt_values(ratio)}"),
    ]


_sweep_entry("kotla08-flows", "Figure 8: 50-50 mix of 20..1000 flows, 150 Mbit/s, 60 ms", "Section V.A.2", k.flows_points, "flows", _flows_claims, log_x=True)


# --------------------------------------------------------------- buffer


def _buffer_claims(t: pl.DataFrame) -> list[Claim]:
    xs, share, ratio = _col(t, "buffer_bdp", "pert_share", "pert_drop_ratio")
    fair = [(x, s) for x, s in zip(xs, share) if 0.5 <= x <= 3.0]
    large = [(x, s) for x, s in zip(xs, share) if x >= 3.5]
    claims = [
        Claim("PERT's share is highest at the smallest buffer (compete mode early; Fig. 9).", share[0] == max(share), f"share {fmt_values(share)} at {fmt_values(xs)} BDP"),
        Claim("PERT/SACK drop ratio below 1 at every buffer size (Fig. 9).", all(r < 1 for r in ratio), f"drop ratio {fmt_values(ratio)}"),
    ]
    if fair:
        claims.append(Claim("PERT is fair to SACK (share 35..65 %) from 0.5 to 3 BDP.", all(0.35 <= s <= 0.65 for _, s in fair), f"{fmt_values([s for _, s in fair])} at {fmt_values([x for x, _ in fair])} BDP"))
    if large:
        claims.append(Claim("PERT loses to SACK (share below 35 %) at 3.5 BDP and more (safe mode).", all(s < 0.35 for _, s in large), f"{fmt_values([s for _, s in large])} at {fmt_values([x for x, _ in large])} BDP"))
    return claims


_sweep_entry("kotla08-buffer", "Figure 9: 40 PERT + 40 SACK, buffer 0.25..4 BDP", "Section V.A.3", k.buffer_points, "buffer_bdp", _buffer_claims)


# ------------------------------------------------------------- Illinois


ILLINOIS_PANELS = [("illinois_share", "Illinois bandwidth share"), ("illinois_drop_ratio", "Illinois/PERT drop ratio"), ("drop_rate", "drop rate (all)"), ("avg_queue_norm", "avg queue / buffer")]


def _illinois_mix_claims(t: pl.DataFrame) -> list[Claim]:
    xs, share, ratio, drop, queue = _col(t, "illinois_percent", "illinois_share", "illinois_drop_ratio", "drop_rate", "avg_queue_norm")
    mixed = [i for i, v in enumerate(xs) if 0 < v < 100]
    rho_queue = rank_correlation(xs, queue)
    above = [ratio[i] for i in mixed if ratio[i] > 1]
    claims = []
    if len(mixed) > 2:  # a trend among the mixes (the full sweep; quick has one mix)
        rho_drop = rank_correlation([xs[i] for i in mixed], [drop[i] for i in mixed])
        claims.append(Claim("The overall drop rate falls as Illinois' percentage rises among the mixes (Fig. 10; rank correlation below 0).", rho_drop < 0,
                            f"Spearman {rho_drop:.2f}; drop rate {fmt_values(drop)} at {fmt_values(xs)} % Illinois"))  # fmt: skip
    return claims + [
        Claim("The drop rate at 100 % PERT is far less than at 100 % Illinois (below half).", drop[0] < 0.5 * drop[-1], f"{drop[0]:.3g} at 0 %, {drop[-1]:.3g} at 100 %"),
        Claim("The queue grows with Illinois' percentage (rank correlation above 0).", rho_queue > 0, f"Spearman {rho_queue:.2f}; avg queue / buffer {fmt_values(queue)}"),
        Claim("The Illinois/PERT drop ratio is above 1 in most mixes.", 2 * len(above) > len(mixed), f"{len(above)} of {len(mixed)}: {fmt_values([ratio[i] for i in mixed])}"),
        Claim("Illinois gets less than its fair share (its percentage) in most mixes.", 2 * sum(share[i] < xs[i] / 100 for i in mixed) > len(mixed),
              f"share {fmt_values([share[i] for i in mixed])} at {fmt_values([xs[i] for i in mixed])} %"),
    ]  # fmt: skip


def _illinois_flows_claims(t: pl.DataFrame) -> list[Claim]:
    xs, share, ratio, drop, queue = _col(t, "flows", "pert_share", "illinois_drop_ratio", "drop_rate", "avg_queue_norm")
    return [
        Claim("PERT drops less than Illinois at every flow count (Illinois/PERT drop ratio above 1; Fig. 11).", all(r > 1 for r in ratio), f"Illinois/PERT {fmt_values(ratio)} at {fmt_values(xs)} flows"),
        Claim("PERT's share is always more than Illinois' (above 50 %).", all(x > 0.5 for x in share), f"PERT share {fmt_values(share)}"),
        Claim("The queue and the drop rate grow with the number of flows.", queue[-1] > queue[0] and drop[-1] > drop[0], f"queue {fmt_values(queue)}; drop rate {fmt_values(drop)}"),
        Claim("The queue is very high (above 0.8 of the buffer) at every flow count.", min(queue) > 0.8, f"avg queue / buffer {fmt_values(queue)}"),
    ]  # fmt: skip


_sweep_entry("kotla08-illinois-mix", "Figure 10: 100 flows, Illinois share 0..100 % (rest PERT), 150 Mbit/s, 60 ms", "Section V.B", k.illinois_mix_points, "illinois_percent", _illinois_mix_claims, panels=ILLINOIS_PANELS)
_sweep_entry("kotla08-illinois-flows", "Figure 11: 50-50 mix of PERT and Illinois, 20..1000 flows", "Section V.C", k.illinois_flows_points, "flows", _illinois_flows_claims, log_x=True,
             panels=[("pert_share", "PERT bandwidth share"), ("illinois_drop_ratio", "Illinois/PERT drop ratio"), ("drop_rate", "drop rate (all)"), ("avg_queue_norm", "avg queue / buffer")])  # fmt: skip


# ------------------------------------------------------------- PERT only


def _pert_only_claims(t: pl.DataFrame) -> list[Claim]:
    xs, drop, queue, util = _col(t, "flows", "drop_rate", "avg_queue_norm", "utilization")
    return [
        Claim("The drop rate stays zero for 1..1000 PERT flows (Fig. 19).", all(d == 0 for d in drop), f"drop rate {fmt_values(drop)} at {fmt_values(xs)} flows"),
        Claim("The normalized queue stays at most 0.35 (Section VI.B).", max(queue) <= 0.35, f"avg queue / buffer {fmt_values(queue)}"),
        Claim("The link is fully used (utilization at least 0.95).", min(util) >= 0.95, f"utilization {fmt_values(util)}"),
    ]


_sweep_entry("kotla08-pert-only", "Figure 19: adaptive PERT alone, 1..1000 flows, 500 Mbit/s", "Section VI.B", k.pert_only_points, "flows", _pert_only_claims, log_x=True)


# ------------------------------------------------------------ high speed


def _highspeed(quick: bool, out: Path, workers: Workers) -> Report:
    setup = k.HIGHSPEED_QUICK if quick else k.HIGHSPEED_FULL
    pts = k.highspeed_points(setup)
    table = k.run_table(pts, out, workers, row=k.highspeed_row)
    report = _report(
        "kotla08-highspeed", "Figure 23: one flow on a high-BDP path (70 ms)", "Section VI.F", quick, out,
        [f"Bottleneck {setup.bottleneck_bps / 1e9:g} Gbit/s, 70 ms RTT, buffer 1 BDP of the slower link, {setup.duration} runs, "
         f"metrics from {setup.warmup}, seeds {', '.join(map(str, setup.seeds))}. Utilization is that of the slower of the end-host link and the bottleneck. "
         f"Quick mode: 1 Gbit/s (8750-packet BDP) instead of 2.4 Gbit/s. {_seeds_note(setup.seeds)}"],
    )  # fmt: skip
    report.tables["runs"] = table
    _judged(report, _highspeed_claims, table)
    return report


def _highspeed_claims(table: pl.DataFrame) -> list[Claim]:
    # At the fastest end-host link.
    u, d = {}, {}
    for cc in k.HIGHSPEED_SCHEMES:
        _, util, drops = _col(table, "access_mbps", "utilization", "flow_drops", scheme=cc)
        u[cc], d[cc] = util[-1], drops[-1]
    return [
        Claim("A single adaptive PERT flow fills the high-BDP link far better than the original PERT (utilization at least 1.5 x).",
              u["pert-adaptive"] >= 1.5 * u["pert"], f"utilization: adaptive {u['pert-adaptive']:.3f}, original {u['pert']:.3f}, SACK {u['sack']:.3f}"),
        Claim("It nearly fills the link (utilization at least 0.8 over the window).", u["pert-adaptive"] >= 0.8, f"{u['pert-adaptive']:.3f}"),
        Claim("With zero packet losses (within the window).", d["pert-adaptive"] == 0, f"losses in the window: {d['pert-adaptive']}"),
    ]  # fmt: skip


def _highspeed_figures(report: Report) -> list[Figure]:
    panels = [("utilization", "utilization"), ("flow_drops", "losses in window")]
    return [_sweep_figure("kotla08-highspeed.png", report.tables["runs"], "access_mbps", panels, report.title, by="scheme", log_x=True)]


register(Entry("kotla08-highspeed", "Figure 23: one flow on a high-BDP path (70 ms)", f"{THESIS}, Section VI.F", _highspeed, _highspeed_figures,
               lambda quick: wire_of(k.highspeed_points(k.HIGHSPEED_QUICK if quick else k.HIGHSPEED_FULL)), details=()))  # fmt: skip


# -------------------------------------------------------- channel errors


def _channel(quick: bool, out: Path, workers: Workers) -> Report:
    mode = k.QUICK if quick else k.FULL
    pts = k.channel_points(mode)
    table = k.run_table(pts, out, workers)
    report = _report(
        "kotla08-channel-errors", "Figure 26: one flow with random channel losses", "Section VI.I", quick, out,
        [_mode_note(mode), "(a) 1 Gbit/s / 60 ms dumbbell, Bernoulli loss on the bottleneck's data direction; "
         "(b) 100 Mbit/s / 5 ms source link and a 55 Mbit/s / 20 ms lossy end-host link."],
    )  # fmt: skip
    report.tables["runs"] = table
    _judged(report, _channel_claims, table)
    return report


def _channel_claims(table: pl.DataFrame) -> list[Claim]:
    def util(path: str, cc: str) -> tuple[list[float], list[float]]:
        return _col(table, "loss", "utilization", path=path, scheme=cc)

    claims = []
    for path in ("1gbps", "wireless"):
        xs, pu = util(path, k.PERT)
        _, su = util(path, k.SACK)
        lossy = [(a, b) for x, a, b in zip(xs, pu, su) if x > 0]
        claims.append(Claim(f"({path}) PERT's utilization is at least SACK's at every non-zero loss rate.", all(a >= b for a, b in lossy), f"loss {fmt_values(xs)}: PERT {fmt_values(pu)}; SACK {fmt_values(su)}"))
    xs, pu = util("1gbps", k.PERT)
    low = [u for x, u in zip(xs, pu) if x <= 1e-5]
    if low:
        claims.append(Claim("(1 Gbit/s) PERT stays high (utilization at least 0.9) up to a loss rate of 1e-5.", min(low) >= 0.9, f"{fmt_values(low)}"))
    xs, pu = util("wireless", k.PERT)
    low = [u for x, u in zip(xs, pu) if x < 1e-3]
    if low:
        claims.append(Claim("(wireless) PERT deteriorates only at about 1e-3 (utilization at least 0.9 below it).", min(low) >= 0.9, f"{fmt_values(low)}"))
    return claims


def _channel_figures(report: Report) -> list[Figure]:
    runs, panels = report.tables["runs"], [("utilization", "utilization"), ("drop_rate", "loss rate seen")]
    return [
        _sweep_figure(f"kotla08-channel-{path}.png", runs.filter(pl.col("path") == path), "loss", panels, f"{report.title} ({path})", by="scheme", log_x=True)
        for path in ("1gbps", "wireless")
    ]


register(Entry("kotla08-channel-errors", "Figure 26: one flow with random channel losses", f"{THESIS}, Section VI.I", _channel, _channel_figures,
               lambda quick: wire_of(k.channel_points(_mode(quick))), details=()))  # fmt: skip


# ---------------------------------------------------------- phase effects


PHASE_TITLE = "Figure 5 under phase effects: the 50-50 mix by access-link rate, with and without the phase lock broken"
PHASE_METRICS = ("pert_drop_ratio", "pert_share", "pert_drop_rate", "sack_drop_rate")
PHASE_BOUNDS = {**BOUNDS, "pert_drop_ratio": NON_NEGATIVE, "pert_share": FRACTION, "pert_drop_rate": FRACTION, "sack_drop_rate": FRACTION}


def _phase(quick: bool, out: Path, workers: Workers) -> Report:
    setup = k.PHASE_QUICK if quick else k.PHASE_FULL
    pts = k.phase_points(setup)
    runs = k.run_table(pts, out, workers)
    table = aggregate(runs, ["breaker", "access_mbps"], PHASE_METRICS, PHASE_BOUNDS)
    report = _report(
        "kotla08-phase", PHASE_TITLE, "Section V.A.1", quick, out,
        [
            _mode_note(setup.mode),
            "100 flows (50 adaptive PERT, 50 SACK), 150 Mbit/s, 60 ms, 1 BDP drop-tail buffer (Figure 5's 50 % point); means and 95 % CIs over the seeds. "
            "Breakers: none (equal RTTs, deterministic links: the thesis's setup as stated); 'overhead' (ns-2's random "
            "send overhead, U(0, 1 ms) before each send); 'rtt_spread' (RTTs evenly over 58..62 ms, the same for both controllers).",
        ],
    )  # fmt: skip
    report.tables["runs"] = runs
    report.tables["mean"] = table
    claims = []
    for breaker, what in (("none", "with equal RTTs as stated"), ("overhead", "with ns-2's send overhead"), ("rtt_spread", "with RTTs spread over 58..62 ms")):
        ratio, share = (runs.filter(pl.col("breaker") == breaker)[c] for c in ("pert_drop_ratio", "pert_share"))
        mean = table.filter(pl.col("breaker") == breaker)
        at = f"at {', '.join(mean['access_mbps'])} Mbit/s"
        claims.append(Claim(f"PERT's drop rate is below SACK's in the 50-50 mix {what}, at every access-link rate (Fig. 5).", ratio.max() < 1,
                            f"drop ratio {fmt_values(mean['pert_drop_ratio'].to_list())} {at} (runs {ratio.min():.2f}..{ratio.max():.2f})"))  # fmt: skip
        claims.append(Claim(f"PERT's share is between 35 % and 65 % {what}, at every access-link rate (Fig. 5).", share.min() >= 0.35 and share.max() <= 0.65,
                            f"share {fmt_values(mean['pert_share'].to_list())} {at} (runs {share.min():.2f}..{share.max():.2f})"))  # fmt: skip
    report.claims = claims
    return report


def _phase_figures(report: Report) -> list[Figure]:
    runs = report.tables["runs"]
    table = aggregate(runs, ["breaker", "access_mbps"], PHASE_METRICS, PHASE_BOUNDS)
    panels = [("pert_drop_ratio", "PERT/SACK drop ratio"), ("pert_share", "PERT bandwidth share")]
    caption = (
        f"The 50-50 mix of Figure 5 against the access-link rate, one line per phase-lock breaker: the mean over {runs['seed'].n_unique()} seeds. "
        f"{interval_note(table, panels, PHASE_BOUNDS)} {PLOT_ONLY}"
    )
    return [Figure("kotla08-phase.png", caption, lambda path: metric_panels(table, "access_mbps", panels, path, PHASE_TITLE, by="breaker",
                                                                          x_label="access-link rate (Mbit/s)", log_x=True))]  # fmt: skip


register(Entry("kotla08-phase", PHASE_TITLE, f"{THESIS}, Section V.A.1", _phase, _phase_figures,
               lambda quick: wire_of(k.phase_points(k.PHASE_QUICK if quick else k.PHASE_FULL))))  # fmt: skip


# ----------------------------------------------------------------- noise


def _noise(quick: bool, out: Path, workers: Workers) -> Report:
    mode = k.QUICK if quick else k.FULL
    pts = k.noise_points(mode)
    table = k.run_table(pts, out, workers)
    report = _report(
        "kotla08-noise", "Figure 25: RTT-measurement noise, two flows on 1 Mbit/s / 60 ms", "Section VI.H", quick, out,
        [_mode_note(mode), "Noise: U(0, 2 x mean) added to each RTT sample of the noisy flows (the thesis gives only the mean)."],
    )  # fmt: skip
    report.tables["runs"] = table
    _judged(report, _noise_claims, table)
    return report


def _noise_claims(table: pl.DataFrame) -> list[Claim]:
    claims = []
    for noisy in ("both", "one"):
        xs, pd, pu = _col(table, "noise_ms", "drop_rate", "utilization", scheme=k.PERT, noisy=noisy)
        _, sd = _col(table, "noise_ms", "drop_rate", scheme=k.SACK, noisy=noisy)
        claims.append(Claim(f"({noisy} noisy) PERT's drop rate stays zero at every noise level.", all(d == 0 for d in pd), f"noise {fmt_values(xs)} ms: {fmt_values(pd)}"))
        claims.append(Claim(f"({noisy} noisy) PERT almost fills the link (utilization at least 0.9).", min(pu) >= 0.9, f"{fmt_values(pu)}"))
        claims.append(Claim(f"({noisy} noisy) PERT is more robust than SACK: its drop rate is not above SACK's.", all(a <= b for a, b in zip(pd, sd)), f"PERT {fmt_values(pd)}; SACK {fmt_values(sd)}"))
    return claims


def _noise_figures(report: Report) -> list[Figure]:
    runs, panels = report.tables["runs"], [("utilization", "utilization"), ("drop_rate", "drop rate"), ("avg_queue_norm", "avg queue / buffer")]
    return [
        _sweep_figure(f"kotla08-noise-{noisy}.png", runs.filter(pl.col("noisy") == noisy), "noise_ms", panels, f"{report.title} ({noisy} noisy)", by="scheme")
        for noisy in ("both", "one")
    ]


register(Entry("kotla08-noise", "Figure 25: RTT-measurement noise, two flows on 1 Mbit/s / 60 ms", f"{THESIS}, Section VI.H", _noise, _noise_figures,
               lambda quick: wire_of(k.noise_points(_mode(quick))), details=()))  # fmt: skip


# --------------------------------------------------------- queue positions


def _positions(quick: bool, out: Path, workers: Workers) -> Report:
    mode = k.QUICK if quick else k.FULL
    pts = k.queue_position_points(mode)
    k.run_table(pts, out, workers)
    report = _report(
        "kotla08-queue-positions", "Figures 27-28: where in the queue each protocol's packets are enqueued (80 flows)", "Section VII.A", quick, out,
        [_mode_note(mode), "Position = packets waiting + 1 when a data packet is accepted at the bottleneck (1 = head); shares per tenth of the buffer."],
    )  # fmt: skip
    frames, means = [], {}
    for p in pts:
        r = stored_results(p, out)
        limit = r.bottleneck["limit_pkts"]
        name = dict(p.values)["mix"]
        frames.append(k.position_deciles(r, limit).with_columns(pl.lit(name).alias("mix")))
        means[name] = {lbl: m / limit for lbl, m in k.mean_position(r).items()}
    deciles = pl.concat(frames)
    report.tables["deciles"] = deciles
    report.tables["mean_position"] = pl.DataFrame([{"mix": m, "label": l, "mean_position_over_buffer": v} for m, d in means.items() for l, v in d.items()])
    s, p, mx = means["sack"].get(k.SACK, math.nan), means["pert"].get(k.PERT, math.nan), means["pert-sack"]
    report.claims = [
        Claim("Alone, SACK's packets sit mostly toward the end of the queue and PERT's toward the beginning (Fig. 27).", p < s,
              f"mean position / buffer: SACK alone {s:.3f}, PERT alone {p:.3f}"),
        Claim("In the 50-50 mix, PERT's packets sit nearer the head than SACK's (Fig. 28).", mx.get(k.PERT, math.nan) < mx.get(k.SACK, math.nan),
              f"mean position / buffer in the mix: PERT {mx.get(k.PERT, math.nan):.3f}, SACK {mx.get(k.SACK, math.nan):.3f}"),
    ]  # fmt: skip
    return report


def _positions_figures(report: Report) -> list[Figure]:
    deciles = report.tables["deciles"]
    caption = ("Where each protocol's accepted packets sit in the bottleneck queue: the share per tenth of the buffer (1 = head), "
               f"alone and in the 50-50 mix. {PLOT_ONLY}")  # fmt: skip
    return [Figure("kotla08-queue-positions.png", caption, lambda path: _plot_positions(deciles, path, report.title))]


def _plot_positions(deciles: pl.DataFrame, path: Path, title: str) -> None:
    with saved_figure(path, 1, 3, figsize=(14, 3.6), title=title) as (_, axes):
        for ax, name in zip(axes, k.QUEUE_POSITION_MIXES):
            t = deciles.filter(pl.col("mix") == name)
            for lbl in t["label"].unique(maintain_order=True).to_list():
                u = t.filter(pl.col("label") == lbl)
                ax.plot(u["decile"].to_list(), u["share"].to_list(), marker="o", ms=3, label=lbl)
            ax.set_xlabel("tenth of the buffer (1 = head)")
            ax.set_xticks(range(1, 11))
            ax.set_ylim(0, 1)
            ax.set_ylabel("share of its accepted packets")
            ax.set_title(name)
            ax.legend(fontsize=8)


register(Entry("kotla08-queue-positions", "Figures 27-28: queue positions per protocol", f"{THESIS}, Section VII.A", _positions, _positions_figures,
               lambda quick: wire_of(k.queue_position_points(_mode(quick))), details=()))  # fmt: skip


# ------------------------------------------------------------- Table I


def _table1(quick: bool, out: Path, workers: Workers) -> Report:
    mode = k.QUICK if quick else k.FULL
    r = _run_one(_one("six-routers", k.six_router_scenario(mode)), out, workers)
    table = k.six_router_table(r)
    report = _report(
        "kotla08-table1", "Table I: six routers, adaptive PERT on every link", "Section VI.D", quick, out,
        [_mode_note(mode), "Thesis's utilization column is labelled Mbps but is a percentage (95.24 on 150 Mbit/s links). "
         "JFI per link: over the flows crossing that link (our reading)."],
    )  # fmt: skip
    report.tables["table1"] = table
    links = table.filter(pl.col("link") != "R1->R6 flows")
    report.claims = [
        Claim("The drop rate is zero on every router link.", links["drop_rate"].max() == 0, f"drop rates {fmt_values(links['drop_rate'].to_list())}"),
        Claim("Utilization is about 95 % on every link (at least 90 %).", links["utilization_pct"].min() >= 90, f"{fmt_values(links['utilization_pct'].to_list())} %"),
        Claim("The normalized queue is about 0.17 (between 0.1 and 0.25).", all(0.1 <= q <= 0.25 for q in links["avg_queue_norm"].to_list()), f"{fmt_values(links['avg_queue_norm'].to_list())}"),
        Claim("The flows crossing each router link share it fairly (JFI at least 0.9; thesis 0.97 to 1.00).", links["jain"].min() >= 0.9, f"JFI {fmt_values(links['jain'].to_list())}"),
        Claim("The R1 -> R6 flows share fairly (JFI at least 0.9; thesis 0.92).", table.filter(pl.col("link") == "R1->R6 flows")["jain"][0] >= 0.9, f"JFI {table.filter(pl.col('link') == 'R1->R6 flows')['jain'][0]:.3f}"),
    ]  # fmt: skip
    return report


def _thesis_figure(file: str, name: str, label: str, pairs: list[tuple[str, str]]) -> Callable[[Report], Figure]:
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


_TABLE1_FIGURE = _thesis_figure("kotla08-table1.png", "table1", "link", [("drop_rate", "drop rate"), ("avg_queue_norm", "avg queue / buffer"),
                                ("utilization_pct", "utilization (%)"), ("jain", "Jain index")])  # fmt: skip
register(Entry("kotla08-table1", "Table I: six routers, adaptive PERT on every link", f"{THESIS}, Section VI.D", _table1,
               lambda report: [_TABLE1_FIGURE(report)], lambda quick: wire_of([_one("six-routers", k.six_router_scenario(_mode(quick)))]), details=()))  # fmt: skip


# ------------------------------------------------------------ Table II


def _share_table(name: str, title: str, scenario: Callable[[k.Mode], Any], thesis: dict[str, tuple[float, float]], claims: Callable[[dict, dict], list[Claim]]) -> None:
    """A table of bandwidth share (%) and drop rate per protocol in one mixed run, the thesis's beside."""
    short = name.split("-")[-1]

    def run(quick: bool, out: Path, workers: Workers) -> Report:
        mode = k.QUICK if quick else k.FULL
        r = _run_one(_one(name, scenario(mode)), out, workers)
        c = {row["label"]: row for row in r.controllers.iter_rows(named=True)}
        rows = [{"protocol": lbl, "share_pct": 100 * c[lbl]["share"], "thesis_share_pct": t[0], "drop_rate": c[lbl]["drop_rate"], "thesis_drop_rate": t[1]} for lbl, t in thesis.items()]
        report = _report(name, title, "Section VII.B", quick, out, [_mode_note(mode)])
        report.tables[short] = pl.DataFrame(rows)
        report.claims = claims({r_["protocol"]: r_["share_pct"] for r_ in rows}, {r_["protocol"]: r_["drop_rate"] for r_ in rows})
        return report

    figure = _thesis_figure(f"{name}.png", short, "protocol", [("share_pct", "bandwidth share (%)"), ("drop_rate", "drop rate")])
    register(Entry(name, title, f"{THESIS}, Section VII.B", run, lambda report: [figure(report)],
                   lambda quick: wire_of([_one(name, scenario(_mode(quick)))]), details=()))  # fmt: skip


_share_table(
    "kotla08-table2", "Table II: 33 SACK, 33 Illinois, 33 PERT flows, 150 Mbit/s / 60 ms", k.table2_scenario, k.TABLE2,
    lambda share, drop: [
        Claim("PERT gets the largest share, Illinois the smallest.", share[k.PERT] > share["sack"] > share["illinois"], f"shares % {fmt_values([share[p] for p in k.TABLE2])} (SACK, Illinois, PERT)"),
        Claim("PERT has the lowest drop rate, Illinois the highest.", drop[k.PERT] < drop["sack"] < drop["illinois"], f"drop rates {fmt_values([drop[p] for p in k.TABLE2])}"),
    ],
)  # fmt: skip
_share_table(
    "kotla08-table3", "Table III: 25 each of FAST, SACK, Illinois and PERT, 150 Mbit/s / 60 ms", k.table3_scenario, k.TABLE3,
    lambda share, drop: [
        Claim("FAST takes most of the link (share above 50 %).", share["fast"] > 50, f"shares % {fmt_values([share[p] for p in k.TABLE3])} (FAST, SACK, Illinois, PERT)"),
        Claim("PERT gets the smallest share.", share[k.PERT] == min(share.values()), f"shares % {fmt_values([share[p] for p in k.TABLE3])}"),
        Claim("FAST has the lowest drop rate and PERT the highest.", drop["fast"] == min(drop.values()) and drop[k.PERT] == max(drop.values()), f"drop rates {fmt_values([drop[p] for p in k.TABLE3])}"),
    ],
)  # fmt: skip


# ------------------------------------------------------------ Table IV


def _table4(quick: bool, out: Path, workers: Workers) -> Report:
    mode = k.QUICK if quick else k.FULL
    pts = k.table4_points(mode)
    runs = k.run_table(pts, out, workers).with_columns(pl.concat_str(pl.col("cc").str.to_uppercase(), pl.col("queue"), separator="-").alias("scheme"))
    report = _report(
        "kotla08-table4", "Table IV: PERT and SACK over RED and DropTail (20 flows, 100 Mbit/s / 60 ms)", "Section VII.C", quick, out,
        [_mode_note(mode), "RED: the core's RED with the flows' packet size and its automatic thresholds (the thesis gives no RED parameters)."],
    )  # fmt: skip
    report.tables["table4"] = _table4_means(runs)
    report.tables["runs"] = runs
    _judged(report, _table4_claims, runs)
    return report


TABLE4_METRICS = ("avg_queue_norm", "drop_rate")


def _table4_means(runs: pl.DataFrame) -> pl.DataFrame:
    """One row per scheme: the mean over the seeds (with its interval when there are several), the thesis's beside."""
    means = aggregate(runs, ["scheme", "cc", "queue"], TABLE4_METRICS, BOUNDS) if runs["seed"].n_unique() > 1 else runs
    thesis = pl.DataFrame([{"cc": cc, "queue": q, "thesis_avg_queue_norm": tq, "thesis_drop_rate": td} for (cc, q), (tq, td) in k.TABLE4.items()])
    shown = [c for c in means.columns if c.startswith(TABLE4_METRICS) and not c.endswith("_ci95")]
    return means.join(thesis, on=["cc", "queue"]).select("scheme", *shown, "thesis_avg_queue_norm", "thesis_drop_rate")


def _table4_claims(runs: pl.DataFrame) -> list[Claim]:
    table = _table4_means(runs)
    v = {scheme: dict(zip(TABLE4_METRICS, vals)) for scheme, *vals in zip(table["scheme"].to_list(), *(_values(table, m) for m in TABLE4_METRICS))}
    return [
        Claim("PERT over DropTail drops nothing and keeps the queue far below SACK's over DropTail.", v["PERT-droptail"]["drop_rate"] == 0 and v["PERT-droptail"]["avg_queue_norm"] < 0.5 * v["SACK-droptail"]["avg_queue_norm"],
              f"PERT-DropTail queue {v['PERT-droptail']['avg_queue_norm']:.3f}, drops {v['PERT-droptail']['drop_rate']:.3g}; SACK-DropTail queue {v['SACK-droptail']['avg_queue_norm']:.3f}"),
        Claim("Over RED, PERT drops more than SACK (it stays in high-speed mode with a short queue).", v["PERT-red"]["drop_rate"] > v["SACK-red"]["drop_rate"],
              f"PERT-RED {v['PERT-red']['drop_rate']:.3g}; SACK-RED {v['SACK-red']['drop_rate']:.3g}"),
    ]  # fmt: skip


_TABLE4_FIGURE = _thesis_figure("kotla08-table4.png", "table4", "scheme", [("avg_queue_norm", "avg queue / buffer"), ("drop_rate", "drop rate")])
register(Entry("kotla08-table4", "Table IV: PERT and SACK over RED and DropTail", f"{THESIS}, Section VII.C", _table4, lambda report: [_TABLE4_FIGURE(report)],
               lambda quick: wire_of(k.table4_points(_mode(quick))), details=("runs",)))  # fmt: skip


# ------------------------------------------------------------- Table V


def _table5_points(quick: bool) -> tuple[list[Point], Point, Point]:
    """Table V's run (read over three windows) and the two follow-ups."""
    follow = k.FOLLOW_QUICK if quick else k.FOLLOW_FULL
    exits = Point((("follow_up", "exits"),), 1, k.exits_scenario(follow))
    joins = Point((("follow_up", "joins"),), 1, k.joins_scenario(follow))
    return k.table5_points(), exits, joins


def _all_table5_points(quick: bool) -> list[Point]:
    pts, exits, joins = _table5_points(quick)
    return [*pts, exits, joins]


def _table5(quick: bool, out: Path, workers: Workers) -> Report:
    pts, exits, joins = _table5_points(quick)
    follow = k.FOLLOW_QUICK if quick else k.FOLLOW_FULL
    runs = k.run_table(_all_table5_points(quick), out, workers)
    rows = []
    for r_ in runs.filter(pl.col("time_s").is_not_null()).iter_rows(named=True):
        t = int(r_["time_s"])
        tq, td = k.TABLE5[t]
        rows.append({"time_s": t, "avg_queue_norm": r_["avg_queue_norm"], "thesis_avg_queue_norm": tq, "drop_rate": r_["drop_rate"], "thesis_drop_rate": td, "pert_compete_frac": r_.get("pert_compete_frac")})
    table = pl.DataFrame(rows).sort("time_s")
    n_exits = k.exits_to_safe(stored_results(exits, out), follow)
    n_joins = k.joins_to_compete(stored_results(joins, out), follow)
    report = _report(
        "kotla08-table5", "Table V: 80 PERT flows, 80 SACK flows from 100 to 200 s (hysteresis), and its follow-ups", "Section VII.D", quick, out,
        ["One 300 s run (the same in quick and full mode), read over three windows: (50, 100), (150, 200), (250, 300) s; "
         "the thesis's 'at 100/200/300 s' is read as the 50 s before each time. pert_compete_frac: mean share of the window PERT flows spent in compete mode.",
         f"Follow-ups (the thesis: one flow every 10 s): (i) after SACK leaves at 200 s, a PERT flow leaves every {follow.exit_step_s:g} s; (ii) a SACK flow joins every {follow.join_step_s:g} s. (i) after SACK leaves at 200 s, PERT flows leave one by one; "
         "counted: PERT flows gone when fewer than half of those left compete from then on. (ii) 80 PERT flows alone, then SACK flows join from 100 s; "
         "counted: SACK flows present when half of the PERT flows first compete."],
    )  # fmt: skip
    report.tables["table5"] = table
    report.tables["follow_ups"] = pl.DataFrame([
        {"follow_up": "PERT flows gone when PERT returns to safe mode", "ours": n_exits, "thesis": float(k.THESIS_EXITS_TO_SAFE)},
        {"follow_up": "SACK flows present when PERT enters compete mode", "ours": n_joins, "thesis": float(k.THESIS_JOINS_TO_COMPETE)},
    ])  # fmt: skip
    v = {r_["time_s"]: r_ for r_ in rows}
    report.claims = [
        Claim("Before SACK arrives, the queue is low and nothing is dropped.", v[100]["drop_rate"] == 0 and v[100]["avg_queue_norm"] < 0.3, f"at 100 s: queue {v[100]['avg_queue_norm']:.3f}, drops {v[100]['drop_rate']:.3g}"),
        Claim("With SACK present the queue and the drop rate rise.", v[200]["avg_queue_norm"] > 2 * v[100]["avg_queue_norm"] and v[200]["drop_rate"] > 0, f"at 200 s: queue {v[200]['avg_queue_norm']:.3f}, drops {v[200]['drop_rate']:.3g}"),
        Claim("After SACK leaves, PERT stays in compete mode: queue and drops remain high (hysteresis).", v[300]["avg_queue_norm"] > 0.5 * v[200]["avg_queue_norm"] and v[300]["drop_rate"] > 0,
              f"at 300 s: queue {v[300]['avg_queue_norm']:.3f}, drops {v[300]['drop_rate']:.3g}, compete share {v[300]['pert_compete_frac']:.2f}"),
        Claim("PERT returns to safe mode only when most PERT flows have left (the thesis: about 65 of 80; here at least 40).", n_exits >= 40, f"{n_exits:g} PERT flows gone"),
        Claim("PERT tolerates a few SACK flows: it enters compete mode only after 5 to 15 of them join (the thesis: about 9).", 5 <= n_joins <= 15, f"{n_joins:g} SACK flows"),
    ]  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    with saved_figure(out / FOLLOW_UPS_PNG, 1, 2, figsize=(11, 3.6), title="share of PERT flows in compete mode") as (_, axes):
        for ax, (pt, label) in zip(axes, ((exits, "SACK 100-200 s, then PERT flows leave"), (joins, "SACK flows join from 100 s"))):
            share = k.compete_share(stored_results(pt, out))
            ax.plot(share["t_s"].to_list(), share["compete"].to_list())
            ax.set_xlabel("time (s)")
            ax.set_title(label)
    return report


FOLLOW_UPS_PNG = "kotla08-table5-follow-ups.png"
_TABLE5_FIGURE = _thesis_figure("kotla08-table5.png", "table5", "time_s", [("avg_queue_norm", "avg queue / buffer"), ("drop_rate", "drop rate")])


def _table5_figures(report: Report) -> list[Figure]:
    follow_ups = report.tables["follow_ups"]
    counts = Figure(
        "kotla08-table5-follow-up-counts.png",
        "The follow-ups' counts: ours from one run (bars) and the thesis's (black diamonds).",
        lambda path: comparison_panels(follow_ups, "follow_up", [("ours", "thesis", "flows")], path, "Table V follow-ups", published="thesis"),
    )
    series = Figure(FOLLOW_UPS_PNG, f"Share of the PERT flows in compete mode over time in the two follow-up runs. {DRAWN_BY_RUN}")
    return [_TABLE5_FIGURE(report), counts, series]


register(Entry("kotla08-table5", "Table V: PERT hysteresis after SACK leaves", f"{THESIS}, Section VII.D", _table5, _table5_figures,
               lambda quick: wire_of(_all_table5_points(quick)), details=()))  # fmt: skip


# ------------------------------------------------------------ CBR (Fig. 12)


def _cbr(quick: bool, out: Path, workers: Workers) -> Report:
    setup = k.CBR_QUICK if quick else k.CBR_FULL
    r = _run_one(_one("cbr", k.cbr_scenario(setup)), out, workers)
    table = k.phase_throughput(r, setup)
    report = _report(
        "kotla08-cbr", "Figure 12: one PERT flow with intermittent CBR traffic, 1 Gbit/s / 60 ms", "Section V.D", quick, out,
        [f"Phases of {setup.phase_s:g} s; CBR UDP at {setup.cbr_bps / 1e6:g} Mbit/s (the thesis does not state its rate) in every other phase. "
         "pert_mbps: PERT's goodput over the second half of each phase; available_mbps: payload capacity left to it; "
         "seconds_to_90pct: from the phase's start until PERT's goodput is at 90 % of that (in CBR phases: after the dip the CBR's arrival causes)."],
    )  # fmt: skip
    report.tables["phases"] = table
    later = table.filter(pl.col("phase") > 0)
    ok = [row["pert_mbps"] >= 0.9 * row["available_mbps"] for row in later.iter_rows(named=True)]
    up = table.filter(~pl.col("udp") & (pl.col("phase") > 0))
    report.claims = [
        Claim("PERT uses what the CBR flow leaves, and the whole link again when it stops (at least 90 % of what is available, second half of every phase).", all(ok),
              f"PERT {fmt_values(later['pert_mbps'].to_list())} Mbit/s of {fmt_values(later['available_mbps'].to_list())}"),
        Claim("PERT ramps up quickly after the CBR flow leaves (90 % of the link within a fifth of a phase).", all(x <= setup.phase_s / 5 for x in up["seconds_to_90pct"].to_list()),
              f"seconds: {fmt_values(up['seconds_to_90pct'].to_list())}"),
    ]  # fmt: skip
    _plot_goodput(out / "kotla08-cbr.png", report.title, r, shade=[(u.start / 1e9, u.stop / 1e9) for u in r.scenario.udp])
    return report


def _cbr_figures(report: Report) -> list[Figure]:
    return [Figure("kotla08-cbr.png", f"PERT's goodput over time; shaded: the phases with the CBR flow on. {PLOT_ONLY} {DRAWN_BY_RUN}")]


register(Entry("kotla08-cbr", "Figure 12: one PERT flow with intermittent CBR traffic", f"{THESIS}, Section V.D", _cbr, _cbr_figures,
               lambda quick: wire_of([_one("cbr", k.cbr_scenario(k.CBR_QUICK if quick else k.CBR_FULL))]), details=()))  # fmt: skip


# ------------------------------------------------------ join/leave (Fig. 24)


def _join_leave(quick: bool, out: Path, workers: Workers) -> Report:
    setup = k.JOIN_LEAVE_QUICK if quick else k.JOIN_LEAVE_FULL
    r = _run_one(_one("join-leave", k.join_leave_scenario(setup)), out, workers)
    table = k.join_leave_phases(r, setup)
    report = _report(
        "kotla08-join-leave", "Figure 24: four PERT flows joining and leaving, 150 Mbit/s / 60 ms", "Section VI.G", quick, out,
        [f"Flow i starts at i x {setup.step_s:g} s and lasts {', '.join(f'{x:g}' for x in setup.lifetimes_s)} s (the bottleneck is not stated: "
         "150 Mbit/s, 60 ms). Utilization and Jain index over the second half of each phase."],
    )  # fmt: skip
    report.tables["phases"] = table
    many = table.filter(pl.col("flows") >= 2)
    report.claims = [
        Claim("The link stays fully used as flows come and go (utilization at least 0.9 in every phase).", table["utilization"].min() >= 0.9, f"{fmt_values(table['utilization'].to_list())}"),
        Claim("The flows converge to their fair share (Jain index at least 0.9 in every phase with two or more flows).", many["jain"].min() >= 0.9, f"{fmt_values(many['jain'].to_list())}"),
    ]  # fmt: skip
    _plot_goodput(out / "kotla08-join-leave.png", report.title, r)
    return report


def _join_leave_figures(report: Report) -> list[Figure]:
    return [Figure("kotla08-join-leave.png", f"Each flow's goodput over time as the four flows join and leave. {PLOT_ONLY} {DRAWN_BY_RUN}")]


register(Entry("kotla08-join-leave", "Figure 24: PERT flows joining and leaving", f"{THESIS}, Section VI.G", _join_leave, _join_leave_figures,
               lambda quick: wire_of([_one("join-leave", k.join_leave_scenario(k.JOIN_LEAVE_QUICK if quick else k.JOIN_LEAVE_FULL))]), details=()))  # fmt: skip

