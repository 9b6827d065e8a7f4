"""Registry entries of Kotla's 2008 thesis (adaptive PERT): Tables I to V, queue positions
(Figures 27, 28), intermittent CBR (Figure 12) and flows joining and leaving (Figure 24).
Each report states the thesis's claims and whether our data bears them out; the tables
carry the thesis's numbers beside ours."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import polars as pl

from ..experiments import kotla08 as k
from ..parallel import Workers
from ..plots import comparison_panels, saved_figure
from ..sweep import BOUNDS, Point, aggregate, stored_results
from .kotla08_common import DRAWN_BY_RUN, PLOT_ONLY, THESIS, judge, mode_for, mode_note, new_report, one_point, plot_goodput, run_one, thesis_figure, values_of
from .registry import Claim, Entry, Figure, Report, fmt_values, register, wire_of


# --------------------------------------------------------- queue positions


def _positions(quick: bool, out: Path, workers: Workers) -> Report:
    mode = k.QUICK if quick else k.FULL
    pts = k.queue_position_points(mode)
    k.run_table(pts, out, workers)
    report = new_report(
        "kotla08-queue-positions", "Figures 27-28: where in the queue each protocol's packets are enqueued (80 flows)", "Section VII.A", quick, out,
        [mode_note(mode), "Position = packets waiting + 1 when a data packet is accepted at the bottleneck (1 = head); shares per tenth of the buffer."],
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
               lambda quick: wire_of(k.queue_position_points(mode_for(quick))), details=()))  # fmt: skip


# ------------------------------------------------------------- Table I


def _table1(quick: bool, out: Path, workers: Workers) -> Report:
    mode = k.QUICK if quick else k.FULL
    r = run_one(one_point("six-routers", k.six_router_scenario(mode)), out, workers)
    table = k.six_router_table(r)
    report = new_report(
        "kotla08-table1", "Table I: six routers, adaptive PERT on every link", "Section VI.D", quick, out,
        [mode_note(mode), "Thesis's utilization column is labelled Mbps but is a percentage (95.24 on 150 Mbit/s links). "
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



_TABLE1_FIGURE = thesis_figure("kotla08-table1.png", "table1", "link", [("drop_rate", "drop rate"), ("avg_queue_norm", "avg queue / buffer"),
                                ("utilization_pct", "utilization (%)"), ("jain", "Jain index")])  # fmt: skip
register(Entry("kotla08-table1", "Table I: six routers, adaptive PERT on every link", f"{THESIS}, Section VI.D", _table1,
               lambda report: [_TABLE1_FIGURE(report)], lambda quick: wire_of([one_point("six-routers", k.six_router_scenario(mode_for(quick)))]), details=()))  # fmt: skip


# ------------------------------------------------------------ Table II


def _share_table(name: str, title: str, scenario: Callable[[k.Mode], Any], thesis: dict[str, tuple[float, float]], claims: Callable[[dict, dict], list[Claim]]) -> None:
    """A table of bandwidth share (%) and drop rate per protocol in one mixed run, the thesis's beside."""
    short = name.split("-")[-1]

    def run(quick: bool, out: Path, workers: Workers) -> Report:
        mode = k.QUICK if quick else k.FULL
        r = run_one(one_point(name, scenario(mode)), out, workers)
        c = {row["label"]: row for row in r.controllers.iter_rows(named=True)}
        rows = [{"protocol": lbl, "share_pct": 100 * c[lbl]["share"], "thesis_share_pct": t[0], "drop_rate": c[lbl]["drop_rate"], "thesis_drop_rate": t[1]} for lbl, t in thesis.items()]
        report = new_report(name, title, "Section VII.B", quick, out, [mode_note(mode)])
        report.tables[short] = pl.DataFrame(rows)
        report.claims = claims({r_["protocol"]: r_["share_pct"] for r_ in rows}, {r_["protocol"]: r_["drop_rate"] for r_ in rows})
        return report

    figure = thesis_figure(f"{name}.png", short, "protocol", [("share_pct", "bandwidth share (%)"), ("drop_rate", "drop rate")])
    register(Entry(name, title, f"{THESIS}, Section VII.B", run, lambda report: [figure(report)],
                   lambda quick: wire_of([one_point(name, scenario(mode_for(quick)))]), details=()))  # fmt: skip


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
    report = new_report(
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
_TABLE5_FIGURE = thesis_figure("kotla08-table5.png", "table5", "time_s", [("avg_queue_norm", "avg queue / buffer"), ("drop_rate", "drop rate")])


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
    r = run_one(one_point("cbr", k.cbr_scenario(setup)), out, workers)
    table = k.phase_throughput(r, setup)
    report = new_report(
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
    plot_goodput(out / "kotla08-cbr.png", report.title, r, shade=[(u.start / 1e9, u.stop / 1e9) for u in r.scenario.udp])
    return report


def _cbr_figures(report: Report) -> list[Figure]:
    return [Figure("kotla08-cbr.png", f"PERT's goodput over time; shaded: the phases with the CBR flow on. {PLOT_ONLY} {DRAWN_BY_RUN}")]


register(Entry("kotla08-cbr", "Figure 12: one PERT flow with intermittent CBR traffic", f"{THESIS}, Section V.D", _cbr, _cbr_figures,
               lambda quick: wire_of([one_point("cbr", k.cbr_scenario(k.CBR_QUICK if quick else k.CBR_FULL))]), details=()))  # fmt: skip


# ------------------------------------------------------ join/leave (Fig. 24)


def _join_leave(quick: bool, out: Path, workers: Workers) -> Report:
    setup = k.JOIN_LEAVE_QUICK if quick else k.JOIN_LEAVE_FULL
    r = run_one(one_point("join-leave", k.join_leave_scenario(setup)), out, workers)
    table = k.join_leave_phases(r, setup)
    report = new_report(
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
    plot_goodput(out / "kotla08-join-leave.png", report.title, r)
    return report


def _join_leave_figures(report: Report) -> list[Figure]:
    return [Figure("kotla08-join-leave.png", f"Each flow's goodput over time as the four flows join and leave. {PLOT_ONLY} {DRAWN_BY_RUN}")]


register(Entry("kotla08-join-leave", "Figure 24: PERT flows joining and leaving", f"{THESIS}, Section VI.G", _join_leave, _join_leave_figures,
               lambda quick: wire_of([one_point("join-leave", k.join_leave_scenario(k.JOIN_LEAVE_QUICK if quick else k.JOIN_LEAVE_FULL))]), details=()))  # fmt: skip
