"""Figures of ``hua02-swtp`` (Hua's MPhil thesis, CUHK 2002, Chapter 5), drawn from the
report's tables (:mod:`pertlab.reproduce.hua02_swtp_entries`): Fig 5.3's packet waits,
Tables 5.1/5.2, Figs 5.4 and 5.5, and the operations per decision."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..plots import saved_figure
from .registry import Figure, Report

#: Names of the schedulers in legends.
SCHEDULERS = {"swtp": "S-WTP", "swtp-no-global": "S-WTP without global update", "wtp": "WTP"}


def figures(report: Report) -> list[Figure]:
    t = report.tables

    def draw_trace(path: Path) -> None:
        tr = t["fig_5_3"]
        with saved_figure(path, 1, 2, figsize=(12, 3.8), title="Fig 5.3: waits of single packets, three classes, U = 0.95, target 2.0", sharey=True) as (_, axes):
            for ax, sched in zip(axes, ("swtp", "wtp")):
                g = tr.filter(pl.col("sched") == sched)
                for c in sorted(set(g["class"].to_list())):
                    p = g.filter(pl.col("class") == c)
                    ax.plot(p["departure"].to_list(), p["wait_tx"].to_list(), ".", ms=2.5, label=f"class {c + 1}")
                ax.set_title(SCHEDULERS[sched])
                ax.set_xlabel("departure")
                ax.set_ylabel("queueing delay (packet transmission times)")
                ax.legend(fontsize=7, markerscale=3)

    def draw_tables(path: Path) -> None:
        tab = t["tables_5_1_5_2"]
        with saved_figure(path, 1, 2, figsize=(12, 3.8), title="Tables 5.1 and 5.2: average delay ratios at U = 0.95") as (_, axes):
            for ax, target in zip(axes, (2.0, 1.5)):
                g = tab.filter(pl.col("target") == target)
                labels = [f"{n}:{p}" for n, p in zip(g["classes"].to_list(), g["pair"].to_list())]
                xs = list(range(len(labels)))
                for col, style in (("swtp", "o"), ("wtp", "s"), ("thesis_swtp", "x"), ("thesis_wtp", "+")):
                    ax.plot(xs, g[col].to_list(), style, label=col.replace("_", " "))
                ax.axhline(target, color="grey", lw=0.8)
                ax.set_xticks(xs, labels, rotation=60, fontsize=7)
                ax.set_xlabel("classes:pair")
                ax.set_ylabel("delay ratio")
                ax.set_title(f"target {target}")
                ax.legend(fontsize=7)

    def draw_sweep(path: Path) -> None:
        f55 = t["fig_5_5"]
        splits = sorted(set(f55["split"].to_list()), reverse=True)
        with saved_figure(path, 1, len(splits), figsize=(4.5 * len(splits), 3.8), title="Fig 5.5: long-run delay ratios against utilization", squeeze=False) as (_, axes):
            for ax, split in zip(axes[0], splits):
                g = f55.filter(pl.col("split") == split)
                for pair in sorted(set(g["pair"].to_list())):
                    p = g.filter(pl.col("pair") == pair).sort("u")
                    for sched in [c for c in SCHEDULERS if c in p.columns and p[c].null_count() < p.height]:
                        ax.plot(p["u"].to_list(), p[sched].to_list(), {"swtp": "o-", "wtp": "s--", "swtp-no-global": "x:"}[sched], label=f"{SCHEDULERS[sched]}, {pair}")
                ax.axhline(2.0, color="grey", lw=0.8)
                ax.set_xlabel("utilization U")
                ax.set_ylabel("delay ratio")
                ax.set_title(f"split {split}")
                ax.legend(fontsize=6)

    def draw_windows(path: Path) -> None:
        f54 = t["fig_5_4"]
        with saved_figure(path, 1, 2, figsize=(11, 3.8), title="Fig 5.4: ratio percentiles over windows of K departures (U = 0.95)") as (_, axes):
            for ax, pair in zip(axes, ("1/2", "2/3")):
                for i, sched in enumerate(("swtp", "wtp")):
                    g = f54.filter((pl.col("pair") == pair) & (pl.col("sched") == sched)).sort("k")
                    xs = [j + (i - 0.5) * 0.2 for j in range(g.height)]
                    ax.vlines(xs, g["p5"].to_list(), g["p95"].to_list(), colors=f"C{i}")
                    ax.vlines(xs, g["p25"].to_list(), g["p75"].to_list(), colors=f"C{i}", lw=5)
                    ax.plot(xs, g["p50"].to_list(), "k_", ms=12)
                    ax.plot([], [], color=f"C{i}", label=SCHEDULERS[sched])
                    ax.set_xticks(range(g.height), [str(k) for k in g["k"].to_list()])
                ax.axhline(2.0, color="grey", lw=0.8)
                ax.set_xlabel("K (departures per window)")
                ax.set_ylabel(f"class {pair} delay ratio")
                ax.legend(fontsize=7)

    def draw_ops(path: Path) -> None:
        ops = t["ops_per_decision"].sort("classes")
        with saved_figure(path, 1, 1, figsize=(6, 3.8), title="Operations per decision, every class backlogged") as (_, ax):
            for col, style in (("wtp", "s-"), ("thesis_wtp", "k--"), ("swtp", "o-"), ("thesis_swtp", "k:")):
                ax.plot(ops["classes"].to_list(), ops[col].to_list(), style, label=col.replace("thesis_wtp", "3N - 1").replace("thesis_swtp", "2 (2 + log2 N)"))
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("classes N")
            ax.set_ylabel("operations per decision")
            ax.legend(fontsize=8)

    return [
        Figure("hua02-swtp-fig53.png", "Fig 5.3: queueing delay of each traced packet at its departure, by class, S-WTP and WTP on the same arrivals.", draw_trace),
        Figure("hua02-swtp-tables.png", "Tables 5.1 and 5.2: S-WTP and WTP delay ratios per pair of consecutive classes, the thesis's values beside ours.", draw_tables),
        Figure("hua02-swtp-fig55.png", "Fig 5.5: long-run delay ratios against utilization for each class-load split; S-WTP without its global update on the equal split.", draw_sweep),
        Figure("hua02-swtp-fig54.png", "Fig 5.4: 5/25/50/75/95th percentiles of the per-window ratios against the window K.", draw_windows),
        Figure("hua02-swtp-ops.png", "Operations per scheduling decision against the number of classes, with the thesis's counts.", draw_ops),
    ]  # fmt: skip
