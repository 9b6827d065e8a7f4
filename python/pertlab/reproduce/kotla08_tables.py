"""Registry entries of Kotla's 2008 thesis (adaptive PERT): Tables I to V, queue positions
(Figures 27, 28), intermittent CBR (Figure 12) and flows joining and leaving (Figure 24).
Each is one run in the thesis; here one run per seed (three in full mode), each run read
into a table of its own (per link, protocol, phase...), and the claims judge the mean of
those tables over the seeds with its interval (:func:`seed_means`). The tables carry the
thesis's numbers beside ours."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import polars as pl

from ..experiments import kotla08 as k
from ..parallel import Workers
from ..plots import comparison_panels, saved_figure
from ..results import Results
from ..sweep import BOUNDS, FRACTION, NON_NEGATIVE, Point, Range, aggregate, stored_results
from .kotla08_common import DRAWN_BY_RUN, PLOT_ONLY, THESIS, judge, mode_for, mode_note, new_report, plot_goodput, thesis_figure, values_of
from .registry import Claim, Entry, Figure, Report, fmt_values, register, wire_of

#: The range of each metric these tables average over seeds. The Jain index of a link's flows
#: is cut to [0, 1] (its floor 1/n needs the flow count, which a per-link row does not carry).
TABLE_BOUNDS: dict[str, Range] = {
    **BOUNDS, "jain": FRACTION, "jain_one_hop": FRACTION, "utilization_pct": Range(0.0, 100.0), "share_pct": Range(0.0, 100.0), "pert_compete_frac": FRACTION,
    "pert_mbps": NON_NEGATIVE, "seconds_to_90pct": NON_NEGATIVE, "share": FRACTION, "mean_position_over_buffer": NON_NEGATIVE,
    "ours": NON_NEGATIVE,
}  # fmt: skip


def seeded(key: str, scenario: Callable[[int], Any], seeds: tuple[int, ...]) -> list[Point]:
    """One point per seed of an entry that runs one scenario."""
    return [Point((("run", key),), seed, scenario(seed)) for seed in seeds]


def per_seed(points: list[Point], out: Path, workers: Workers, table: Callable[[Point, Results], pl.DataFrame]) -> pl.DataFrame:
    """Run (or reuse) ``points`` under ``out/runs``; ``table(point, results)`` of each with
    a ``seed`` column, stacked: the report's ``runs`` table."""
    k.run_table(points, out, workers)
    return pl.concat([table(p, stored_results(p, out)).with_columns(pl.lit(p.seed).alias("seed")) for p in points], how="diagonal_relaxed")


def seed_means(runs: pl.DataFrame, metrics: tuple[str, ...]) -> pl.DataFrame:
    """``runs`` (:func:`per_seed`) as one row per key, the key being every column that is not
    a metric nor the seed (a link, a phase, the thesis's values): with one seed the run's
    own values, with several the mean of each metric and its 95 % interval
    (:func:`pertlab.sweep.aggregate`, ``{m}_lo95`` and ``{m}_hi95`` after ``{m}``)."""
    if runs["seed"].n_unique() < 2:
        return runs.drop("seed")
    keys = [c for c in runs.columns if c not in metrics and c != "seed"]
    means = aggregate(runs, keys, metrics, {m: TABLE_BOUNDS.get(m, Range()) for m in metrics})
    order = [c for c in runs.columns if c != "seed" for c in ((c, f"{c}_lo95", f"{c}_hi95") if c in metrics else (c,))]
    return means.select(*order, "seeds")


def first_run(points: list[Point], out: Path) -> Results:
    """The first seed's run (the one a figure of time series draws)."""
    return stored_results(points[0], out)


# --------------------------------------------------------- queue positions


POSITION_METRICS = ("share",)


def _positions(quick: bool, out: Path, workers: Workers) -> Report:
    mode = mode_for(quick)
    pts = k.queue_position_points(mode)
    means: list[pl.DataFrame] = []

    def deciles(p: Point, r: Results) -> pl.DataFrame:
        limit = r.bottleneck["limit_pkts"]
        name = dict(p.values)["mix"]
        mean = k.mean_position(r)
        means.append(pl.DataFrame([{"mix": name, "label": lbl, "mean_position_over_buffer": m / limit, "seed": p.seed} for lbl, m in mean.items()]))
        return k.position_deciles(r, limit).select(pl.lit(name).alias("mix"), "label", "decile", "share")

    runs = per_seed(pts, out, workers, deciles)
    report = new_report(
        "kotla08-queue-positions", "Figures 27-28: where in the queue each protocol's packets are enqueued (80 flows)", "Section VII.A", quick, out,
        [mode_note(mode), "Position = packets waiting + 1 when a data packet is accepted at the bottleneck (1 = head); shares per tenth of the buffer."],
    )  # fmt: skip
    report.tables["deciles"] = seed_means(runs, POSITION_METRICS)
    report.tables["runs"] = runs
    report.tables["mean_position_runs"] = pl.concat(means)
    report.tables["mean_position"] = seed_means(report.tables["mean_position_runs"], ("mean_position_over_buffer",))
    judge(report, _positions_claims, report.tables["mean_position_runs"])
    return report


def _positions_claims(runs: pl.DataFrame) -> list[Claim]:
    t = seed_means(runs, ("mean_position_over_buffer",))

    def at(mix: str, label: str) -> float:
        row = t.filter((pl.col("mix") == mix) & (pl.col("label") == label))
        return values_of(row, "mean_position_over_buffer")[0] if row.height else math.nan

    s, p = at("sack", k.SACK), at("pert", k.PERT)
    mp, ms = at("pert-sack", k.PERT), at("pert-sack", k.SACK)
    return [
        Claim("Alone, SACK's packets sit mostly toward the end of the queue and PERT's toward the beginning (Fig. 27).", p < s,
              f"mean position / buffer: SACK alone {s:.3f}, PERT alone {p:.3f}"),
        Claim("In the 50-50 mix, PERT's packets sit nearer the head than SACK's (Fig. 28).", mp < ms,
              f"mean position / buffer in the mix: PERT {mp:.3f}, SACK {ms:.3f}"),
    ]  # fmt: skip


def _positions_figures(report: Report) -> list[Figure]:
    deciles = report.tables["deciles"]
    caption = ("Where each protocol's accepted packets sit in the bottleneck queue: the share per tenth of the buffer (1 = head), "
               f"alone and in the 50-50 mix; {_over_seeds(report)}. {PLOT_ONLY}")  # fmt: skip
    return [Figure("kotla08-queue-positions.png", caption, lambda path: _plot_positions(deciles, path, report.title))]


def _over_seeds(report: Report) -> str:
    """What a figure's values are: one run's, or the mean over the report's seeds."""
    n = report.tables["runs"]["seed"].n_unique()
    return "one run" if n == 1 else f"the mean over {n} seeds"


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
               lambda quick: wire_of(k.queue_position_points(mode_for(quick))), details=("runs", "mean_position_runs")))  # fmt: skip


# ------------------------------------------------------------- Table I


TABLE1_METRICS = ("drop_rate", "avg_queue_norm", "utilization_pct", "jain", "jain_one_hop")
LONG_FLOWS = "R1->R6 flows"
#: The ``starts`` of Table I's runs, and of pertlab's test of its long flows' unfairness.
SPREAD, TOGETHER = f"within {k.SIX_ROUTER_STARTS}", f"within {k.SIX_ROUTER_STARTS_TOGETHER}"


def _table1_points(quick: bool) -> list[Point]:
    mode = mode_for(quick)
    return [
        Point((("run", "six-routers"), ("starts", starts)), seed, k.six_router_scenario(mode, seed, window))
        for starts, window in ((SPREAD, k.SIX_ROUTER_STARTS), (TOGETHER, k.SIX_ROUTER_STARTS_TOGETHER))
        for seed in mode.seeds
    ]  # fmt: skip


def _table1(quick: bool, out: Path, workers: Workers) -> Report:
    runs = per_seed(_table1_points(quick), out, workers, lambda p, r: k.six_router_table(r).with_columns(pl.lit(dict(p.values)["starts"]).alias("starts")))
    report = new_report(
        "kotla08-table1", "Table I: six routers, adaptive PERT on every link", "Section VI.D", quick, out,
        [mode_note(mode_for(quick)), "Thesis's utilization column is labelled Mbps but is a percentage (95.24 on 150 Mbit/s links). "
         "JFI per link: over the flows crossing that link (our reading); jain_one_hop: over the link's one-hop flows alone.",
         f"pertlab's test of why the R1 -> R6 flows share unfairly: the same runs with every flow starting {TOGETHER} instead of "
         f"{SPREAD} (table start_test); only the last two claims read them."],
    )  # fmt: skip
    report.tables["table1"], report.tables["start_test"] = _table1_means(runs)
    report.tables["runs"] = runs
    judge(report, _table1_claims, runs)
    return report


def _table1_means(runs: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Table I from the runs with the thesis's starts, and the R1 -> R6 flows' Jain index
    under either start window; each the mean over the seeds."""
    table = seed_means(runs.filter(pl.col("starts") == SPREAD).drop("starts"), TABLE1_METRICS)
    starts = seed_means(runs.filter(pl.col("link") == LONG_FLOWS).select("starts", "jain", "seed"), ("jain",))
    return table, starts


def _table1_claims(runs: pl.DataFrame) -> list[Claim]:
    t, starts = _table1_means(runs)
    links = t.filter(pl.col("link") != LONG_FLOWS)
    drop, queue, util, jain, one_hop = (values_of(links, m) for m in TABLE1_METRICS)
    long = values_of(t.filter(pl.col("link") == LONG_FLOWS), "jain")[0]
    together = values_of(starts.filter(pl.col("starts") == TOGETHER), "jain")[0]
    return [
        Claim("The drop rate is zero on every router link.", max(drop) == 0, f"drop rates {fmt_values(drop)}"),
        Claim("Utilization is about 95 % on every link (at least 90 %).", min(util) >= 90, f"{fmt_values(util)} %"),
        Claim("The normalized queue is about 0.17 (between 0.1 and 0.25).", all(0.1 <= q <= 0.25 for q in queue), f"{fmt_values(queue)}"),
        Claim("The flows crossing each router link share it fairly (JFI at least 0.9; thesis 0.97 to 1.00).", min(jain) >= 0.9, f"JFI {fmt_values(jain)}"),
        Claim("The R1 -> R6 flows share fairly (JFI at least 0.9; thesis 0.92).", long >= 0.9, f"JFI {long:.3f}"),
        Claim("(pertlab's check of where the per-link unfairness lies) The one-hop flows of each link share it fairly among themselves "
              "(JFI at least 0.9): what the link's JFI loses is between them and the R1 -> R6 flows, which see five queues.",
              min(one_hop) >= 0.9, f"one-hop JFI {fmt_values(one_hop)}; all crossing flows {fmt_values(jain)}"),
        Claim(f"(pertlab's test of our explanation) With every flow starting {TOGETHER}, all see the same start-up queue and the R1 -> R6 "
              "flows share fairly (JFI at least 0.9): their unfairness comes from the start-up queue each flow's q_max remembers.",
              together >= 0.9, f"R1 -> R6 JFI: starts {TOGETHER} {together:.3f}; {SPREAD} {long:.3f}"),
    ]  # fmt: skip


_TABLE1_FIGURE = thesis_figure("kotla08-table1.png", "table1", "link", [("drop_rate", "drop rate"), ("avg_queue_norm", "avg queue / buffer"),
                                ("utilization_pct", "utilization (%)"), ("jain", "Jain index")])  # fmt: skip
register(Entry("kotla08-table1", "Table I: six routers, adaptive PERT on every link", f"{THESIS}, Section VI.D", _table1,
               lambda report: [_TABLE1_FIGURE(report)], lambda quick: wire_of(_table1_points(quick)), details=("runs",)))  # fmt: skip


# ------------------------------------------------------------ Table II


def _share_table(name: str, title: str, scenario: Callable[[k.Mode, int], Any], thesis: dict[str, tuple[float, float]], claims: Callable[[dict, dict], list[Claim]]) -> None:
    """A table of bandwidth share (%) and drop rate per protocol in one mixed run per seed, the thesis's beside."""
    short = name.split("-")[-1]
    metrics = ("share_pct", "drop_rate")

    def points(quick: bool) -> list[Point]:
        mode = mode_for(quick)
        return seeded(name, lambda seed: scenario(mode, seed), mode.seeds)

    def table(_: Point, r: Results) -> pl.DataFrame:
        c = {row["label"]: row for row in r.controllers.iter_rows(named=True)}
        return pl.DataFrame([{"protocol": lbl, "share_pct": 100 * c[lbl]["share"], "thesis_share_pct": t[0], "drop_rate": c[lbl]["drop_rate"], "thesis_drop_rate": t[1]}
                             for lbl, t in thesis.items()])  # fmt: skip

    def judged(runs: pl.DataFrame) -> list[Claim]:
        t = seed_means(runs, metrics)
        share, drop = ({p: v for p, v in zip(t["protocol"].to_list(), values_of(t, m))} for m in metrics)
        return claims(share, drop)

    def run(quick: bool, out: Path, workers: Workers) -> Report:
        runs = per_seed(points(quick), out, workers, table)
        report = new_report(name, title, "Section VII.B", quick, out, [mode_note(mode_for(quick))])
        report.tables[short] = seed_means(runs, metrics)
        report.tables["runs"] = runs
        judge(report, judged, runs)
        return report

    figure = thesis_figure(f"{name}.png", short, "protocol", [("share_pct", "bandwidth share (%)"), ("drop_rate", "drop rate")])
    register(Entry(name, title, f"{THESIS}, Section VII.B", run, lambda report: [figure(report)], lambda quick: wire_of(points(quick)), details=("runs",)))  # fmt: skip


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
    report = new_report(
        "kotla08-table4", "Table IV: PERT and SACK over RED and DropTail (20 flows, 100 Mbit/s / 60 ms)", "Section VII.C", quick, out,
        [mode_note(mode), "RED: the core's RED with the flows' packet size and its automatic thresholds (the thesis gives no RED parameters)."],
    )  # fmt: skip
    report.tables["table4"] = _table4_means(runs)
    report.tables["runs"] = runs
    judge(report, _table4_claims, runs)
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
    v = {scheme: dict(zip(TABLE4_METRICS, vals)) for scheme, *vals in zip(table["scheme"].to_list(), *(values_of(table, m) for m in TABLE4_METRICS))}
    return [
        Claim("PERT over DropTail drops nothing and keeps the queue far below SACK's over DropTail.", v["PERT-droptail"]["drop_rate"] == 0 and v["PERT-droptail"]["avg_queue_norm"] < 0.5 * v["SACK-droptail"]["avg_queue_norm"],
              f"PERT-DropTail queue {v['PERT-droptail']['avg_queue_norm']:.3f}, drops {v['PERT-droptail']['drop_rate']:.3g}; SACK-DropTail queue {v['SACK-droptail']['avg_queue_norm']:.3f}"),
        Claim("Over RED, PERT drops more than SACK (it stays in high-speed mode with a short queue).", v["PERT-red"]["drop_rate"] > v["SACK-red"]["drop_rate"],
              f"PERT-RED {v['PERT-red']['drop_rate']:.3g}; SACK-RED {v['SACK-red']['drop_rate']:.3g}"),
    ]  # fmt: skip


_TABLE4_FIGURE = thesis_figure("kotla08-table4.png", "table4", "scheme", [("avg_queue_norm", "avg queue / buffer"), ("drop_rate", "drop rate")])
register(Entry("kotla08-table4", "Table IV: PERT and SACK over RED and DropTail", f"{THESIS}, Section VII.C", _table4, lambda report: [_TABLE4_FIGURE(report)],
               lambda quick: wire_of(k.table4_points(mode_for(quick))), details=("runs",)))  # fmt: skip


# ------------------------------------------------------------- Table V


TABLE5_METRICS = ("avg_queue_norm", "drop_rate", "pert_compete_frac")
EXITS_TO_SAFE = "PERT flows gone when PERT returns to safe mode"
JOINS_TO_COMPETE = "SACK flows present when PERT enters compete mode"


def _table5_points(quick: bool) -> tuple[list[Point], list[Point], list[Point]]:
    """Table V's runs (each read over three windows) and the two follow-ups, per seed."""
    follow = k.FOLLOW_QUICK if quick else k.FOLLOW_FULL
    seeds = mode_for(quick).seeds
    windows = [p for seed in seeds for p in k.table5_points(seed)]
    exits = [Point((("follow_up", "exits"),), seed, k.exits_scenario(follow, seed)) for seed in seeds]
    joins = [Point((("follow_up", "joins"),), seed, k.joins_scenario(follow, seed)) for seed in seeds]
    return windows, exits, joins


def _all_table5_points(quick: bool) -> list[Point]:
    return [p for pts in _table5_points(quick) for p in pts]


def _table5(quick: bool, out: Path, workers: Workers) -> Report:
    windows, exits, joins = _table5_points(quick)
    follow = k.FOLLOW_QUICK if quick else k.FOLLOW_FULL
    runs = k.run_table(_all_table5_points(quick), out, workers)
    rows = []
    for r_ in runs.filter(pl.col("time_s").is_not_null()).iter_rows(named=True):
        t = int(r_["time_s"])
        tq, td = k.TABLE5[t]
        rows.append({"time_s": t, "avg_queue_norm": r_["avg_queue_norm"], "thesis_avg_queue_norm": tq, "drop_rate": r_["drop_rate"], "thesis_drop_rate": td,
                     "pert_compete_frac": r_.get("pert_compete_frac"), "seed": r_["seed"]})  # fmt: skip
    follow_ups = [
        {"follow_up": what, "ours": count(stored_results(p, out), follow), "thesis": float(thesis), "seed": p.seed}
        for what, pts, count, thesis in ((EXITS_TO_SAFE, exits, k.exits_to_safe, k.THESIS_EXITS_TO_SAFE), (JOINS_TO_COMPETE, joins, k.joins_to_compete, k.THESIS_JOINS_TO_COMPETE))
        for p in pts
    ]  # fmt: skip
    table5_runs = pl.concat([pl.DataFrame(rows).sort("seed", "time_s"), pl.DataFrame(follow_ups)], how="diagonal_relaxed")
    report = new_report(
        "kotla08-table5", "Table V: 80 PERT flows, 80 SACK flows from 100 to 200 s (hysteresis), and its follow-ups", "Section VII.D", quick, out,
        [f"One 300 s run per seed (the same run in quick and full mode; seeds {', '.join(map(str, mode_for(quick).seeds))}), read over three windows: (50, 100), (150, 200), (250, 300) s; "
         "the thesis's 'at 100/200/300 s' is read as the 50 s before each time. pert_compete_frac: mean share of the window PERT flows spent in compete mode.",
         f"Follow-ups (the thesis: one flow every 10 s): (i) after SACK leaves at 200 s, a PERT flow leaves every {follow.exit_step_s:g} s; (ii) a SACK flow joins every {follow.join_step_s:g} s. (i) after SACK leaves at 200 s, PERT flows leave one by one; "
         "counted: PERT flows gone when fewer than half of those left compete from then on. (ii) 80 PERT flows alone, then SACK flows join from 100 s; "
         "counted: SACK flows present when half of the PERT flows first compete."],
    )  # fmt: skip
    report.tables["table5"], report.tables["follow_ups"] = _table5_means(table5_runs)
    report.tables["runs"] = table5_runs
    judge(report, _table5_claims, table5_runs)
    out.mkdir(parents=True, exist_ok=True)
    with saved_figure(out / FOLLOW_UPS_PNG, 1, 2, figsize=(11, 3.6), title="share of PERT flows in compete mode") as (_, axes):
        for ax, (pt, label) in zip(axes, ((exits[0], "SACK 100-200 s, then PERT flows leave"), (joins[0], "SACK flows join from 100 s"))):
            share = k.compete_share(stored_results(pt, out))
            ax.plot(share["t_s"].to_list(), share["compete"].to_list())
            ax.set_xlabel("time (s)")
            ax.set_title(f"{label} (seed {pt.seed})")
    return report


def _table5_means(runs: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Table V's windows and the follow-ups' counts, each the mean over the seeds."""
    windows = runs.filter(pl.col("time_s").is_not_null()).select("time_s", "avg_queue_norm", "thesis_avg_queue_norm", "drop_rate", "thesis_drop_rate", "pert_compete_frac", "seed")
    follow_ups = runs.filter(pl.col("follow_up").is_not_null()).select("follow_up", "ours", "thesis", "seed")
    return seed_means(windows, TABLE5_METRICS), seed_means(follow_ups, ("ours",))


def _table5_claims(runs: pl.DataFrame) -> list[Claim]:
    windows, follow_ups = _table5_means(runs)
    v = {t: dict(zip(TABLE5_METRICS, vals)) for t, *vals in zip(windows["time_s"].to_list(), *(values_of(windows, m) for m in TABLE5_METRICS))}
    n = dict(zip(follow_ups["follow_up"].to_list(), values_of(follow_ups, "ours")))
    n_exits, n_joins = n[EXITS_TO_SAFE], n[JOINS_TO_COMPETE]
    return [
        Claim("Before SACK arrives, the queue is low and nothing is dropped.", v[100]["drop_rate"] == 0 and v[100]["avg_queue_norm"] < 0.3, f"at 100 s: queue {v[100]['avg_queue_norm']:.3f}, drops {v[100]['drop_rate']:.3g}"),
        Claim("With SACK present the queue and the drop rate rise.", v[200]["avg_queue_norm"] > 2 * v[100]["avg_queue_norm"] and v[200]["drop_rate"] > 0, f"at 200 s: queue {v[200]['avg_queue_norm']:.3f}, drops {v[200]['drop_rate']:.3g}"),
        Claim("After SACK leaves, PERT stays in compete mode: queue and drops remain high (hysteresis).", v[300]["avg_queue_norm"] > 0.5 * v[200]["avg_queue_norm"] and v[300]["drop_rate"] > 0,
              f"at 300 s: queue {v[300]['avg_queue_norm']:.3f}, drops {v[300]['drop_rate']:.3g}, compete share {v[300]['pert_compete_frac']:.2f}"),
        Claim("PERT returns to safe mode only when most PERT flows have left (the thesis: about 65 of 80; here at least 40).", n_exits >= 40, f"{n_exits:.3g} PERT flows gone"),
        Claim("PERT tolerates a few SACK flows: it enters compete mode only after 5 to 15 of them join (the thesis: about 9).", 5 <= n_joins <= 15, f"{n_joins:.3g} SACK flows"),
    ]  # fmt: skip


FOLLOW_UPS_PNG = "kotla08-table5-follow-ups.png"
_TABLE5_FIGURE = thesis_figure("kotla08-table5.png", "table5", "time_s", [("avg_queue_norm", "avg queue / buffer"), ("drop_rate", "drop rate")])


def _table5_figures(report: Report) -> list[Figure]:
    follow_ups = report.tables["follow_ups"]
    counts = Figure(
        "kotla08-table5-follow-up-counts.png",
        f"The follow-ups' counts: ours {_over_seeds(report)} (bars{'' if 'ours_lo95' not in follow_ups.columns else '; error bars: their 95 % interval'}) and the thesis's (black diamonds).",
        lambda path: comparison_panels(follow_ups, "follow_up", [("ours", "thesis", "flows")], path, "Table V follow-ups", published="thesis"),
    )
    series = Figure(FOLLOW_UPS_PNG, f"Share of the PERT flows in compete mode over time in the first seed's two follow-up runs. {DRAWN_BY_RUN}")
    return [_TABLE5_FIGURE(report), counts, series]


register(Entry("kotla08-table5", "Table V: PERT hysteresis after SACK leaves", f"{THESIS}, Section VII.D", _table5, _table5_figures,
               lambda quick: wire_of(_all_table5_points(quick)), details=("runs",)))  # fmt: skip


# ------------------------------------------------------------ CBR (Fig. 12)


CBR_METRICS = ("pert_mbps", "seconds_to_90pct")


def _cbr_points(quick: bool) -> list[Point]:
    setup = k.CBR_QUICK if quick else k.CBR_FULL
    return seeded("cbr", lambda seed: k.cbr_scenario(setup, seed), mode_for(quick).seeds)


def _cbr(quick: bool, out: Path, workers: Workers) -> Report:
    setup = k.CBR_QUICK if quick else k.CBR_FULL
    pts = _cbr_points(quick)
    runs = per_seed(pts, out, workers, lambda _, r: k.phase_throughput(r, setup))
    report = new_report(
        "kotla08-cbr", "Figure 12: one PERT flow with intermittent CBR traffic, 1 Gbit/s / 60 ms", "Section V.D", quick, out,
        [f"Phases of {setup.phase_s:g} s; CBR UDP at {setup.cbr_bps / 1e6:g} Mbit/s (the thesis does not state its rate) in every other phase; "
         f"one run per seed (seeds {', '.join(str(p.seed) for p in pts)}), the claims judge the mean over them. "
         "pert_mbps: PERT's goodput over the second half of each phase; available_mbps: payload capacity left to it; "
         "seconds_to_90pct: from the phase's start until PERT's goodput is at 90 % of that (in CBR phases: after the dip the CBR's arrival causes)."],
    )  # fmt: skip
    report.tables["phases"] = seed_means(runs, CBR_METRICS)
    report.tables["runs"] = runs
    judge(report, lambda rs: _cbr_claims(rs, setup), runs)
    first = first_run(pts, out)
    plot_goodput(out / "kotla08-cbr.png", f"{report.title} (seed {pts[0].seed})", first, shade=[(u.start / 1e9, u.stop / 1e9) for u in first.scenario.udp])
    return report


def _cbr_claims(runs: pl.DataFrame, setup: k.Cbr) -> list[Claim]:
    t = seed_means(runs, CBR_METRICS)
    later = t.filter(pl.col("phase") > 0)
    pert, available = values_of(later, "pert_mbps"), later["available_mbps"].to_list()
    up = values_of(t.filter(~pl.col("udp") & (pl.col("phase") > 0)), "seconds_to_90pct")
    return [
        Claim("PERT uses what the CBR flow leaves, and the whole link again when it stops (at least 90 % of what is available, second half of every phase).",
              all(p >= 0.9 * a for p, a in zip(pert, available)), f"PERT {fmt_values(pert)} Mbit/s of {fmt_values(available)}"),
        Claim("PERT ramps up quickly after the CBR flow leaves (90 % of the link within a fifth of a phase).", all(x <= setup.phase_s / 5 for x in up),
              f"seconds: {fmt_values(up)}"),
    ]  # fmt: skip


def _cbr_figures(report: Report) -> list[Figure]:
    return [Figure("kotla08-cbr.png", f"PERT's goodput over time in the first seed's run; shaded: the phases with the CBR flow on. {PLOT_ONLY} {DRAWN_BY_RUN}")]


register(Entry("kotla08-cbr", "Figure 12: one PERT flow with intermittent CBR traffic", f"{THESIS}, Section V.D", _cbr, _cbr_figures,
               lambda quick: wire_of(_cbr_points(quick)), details=("runs",)))  # fmt: skip


# ------------------------------------------------------ join/leave (Fig. 24)


JOIN_LEAVE_METRICS = ("utilization", "jain")


def _join_leave_points(quick: bool) -> list[Point]:
    setup = k.JOIN_LEAVE_QUICK if quick else k.JOIN_LEAVE_FULL
    return seeded("join-leave", lambda seed: k.join_leave_scenario(setup, seed), mode_for(quick).seeds)


def _join_leave(quick: bool, out: Path, workers: Workers) -> Report:
    setup = k.JOIN_LEAVE_QUICK if quick else k.JOIN_LEAVE_FULL
    pts = _join_leave_points(quick)
    runs = per_seed(pts, out, workers, lambda _, r: k.join_leave_phases(r, setup))
    report = new_report(
        "kotla08-join-leave", "Figure 24: four PERT flows joining and leaving, 150 Mbit/s / 60 ms", "Section VI.G", quick, out,
        [f"Flow i starts at i x {setup.step_s:g} s and lasts {', '.join(f'{x:g}' for x in setup.lifetimes_s)} s (the bottleneck is not stated: "
         f"150 Mbit/s, 60 ms). Utilization and Jain index over the second half of each phase; one run per seed (seeds {', '.join(str(p.seed) for p in pts)}), "
         "the claims judge the mean over them."],
    )  # fmt: skip
    report.tables["phases"] = seed_means(runs, JOIN_LEAVE_METRICS)
    report.tables["runs"] = runs
    judge(report, _join_leave_claims, runs)
    plot_goodput(out / "kotla08-join-leave.png", f"{report.title} (seed {pts[0].seed})", first_run(pts, out))
    return report


def _join_leave_claims(runs: pl.DataFrame) -> list[Claim]:
    t = seed_means(runs, JOIN_LEAVE_METRICS)
    util, many = values_of(t, "utilization"), values_of(t.filter(pl.col("flows") >= 2), "jain")
    return [
        Claim("The link stays fully used as flows come and go (utilization at least 0.9 in every phase).", min(util) >= 0.9, f"{fmt_values(util)}"),
        Claim("The flows converge to their fair share (Jain index at least 0.9 in every phase with two or more flows).", min(many) >= 0.9, f"{fmt_values(many)}"),
    ]  # fmt: skip


def _join_leave_figures(report: Report) -> list[Figure]:
    return [Figure("kotla08-join-leave.png", f"Each flow's goodput over time as the four flows join and leave, in the first seed's run. {PLOT_ONLY} {DRAWN_BY_RUN}")]


register(Entry("kotla08-join-leave", "Figure 24: PERT flows joining and leaving", f"{THESIS}, Section VI.G", _join_leave, _join_leave_figures,
               lambda quick: wire_of(_join_leave_points(quick)), details=("runs",)))  # fmt: skip
