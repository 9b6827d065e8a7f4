"""Registry entry ``hua02-swtp``: Chapter 5 of Hua's MPhil thesis (CUHK 2002), WTP
against S-WTP for proportional delay differentiation. Fig 5.3 (the waits of single
packets of three classes, S-WTP and WTP on the same arrivals), Tables 5.1 and 5.2
(average delay ratios of consecutive classes at U = 0.95, 4 to 6 classes, targets 2.0
and 1.5), Fig 5.4 (percentiles of the ratios over windows of K departures), Fig 5.5
(long-run ratios against utilization for three class-load splits), S-WTP without its
global update (the thesis's starvation argument, Section 5.3) and the operations per
decision against the number of classes (Section 5.3's cost). The thesis's numbers
sit beside ours; the claims are computed from the runs. Scenario choices: :mod:`pertlab.experiments.hua02_swtp`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ..experiments import hua02_swtp as h
from ..parallel import Workers
from ..sweep import Point, run_points, stored_results
from .hua02_swtp_figures import figures
from .registry import Claim, Entry, Report, Wire, fmt_values, register, wire_of

THESIS = "Hua, MPhil thesis, CUHK 2002"
TITLE = "Fig 5.3, Tables 5.1, 5.2 and Figs 5.4, 5.5: S-WTP against WTP"

#: Tables 5.1 (target 2.0) and 5.2 (target 1.5): ratio class-i/class-(i+1) per number of classes, (S-WTP, WTP).
THESIS_TABLES: dict[float, dict[int, list[tuple[float, float]]]] = {
    2.0: {4: [(1.9843, 2.0093), (1.9776, 1.9919), (1.9639, 1.9620)],
          5: [(1.9644, 2.0015), (1.9892, 1.9817), (1.9499, 1.9739), (2.0053, 1.9880)],
          6: [(1.9607, 2.0092), (1.9473, 1.9822), (1.9834, 1.9847), (1.9431, 1.9553), (1.9567, 1.9617)]},
    1.5: {4: [(1.4370, 1.4443), (1.4645, 1.4888), (1.4694, 1.4993)],
          5: [(1.4251, 1.4118), (1.5327, 1.5496), (1.4757, 1.4897), (1.5459, 1.5052)],
          6: [(1.4898, 1.5185), (1.4837, 1.4953), (1.5033, 1.4780), (1.5077, 1.5037), (1.4693, 1.5069)]},
}  # fmt: skip
#: Fig 5.5's class-load splits (the text's; the captions give 30:40:30 and 20:30:50 for the last two).
SPLITS = {"60:20:20": [0.6, 0.2, 0.2], "33:33:33": [1 / 3] * 3, "20:20:60": [0.2, 0.2, 0.6]}
#: Section 5.3: operations per decision, WTP N subtractions + N multiplications + (N - 1) comparisons
#: ("about 3N"), S-WTP 2 (2 + log2 N).
THESIS_OPS = {"wtp": lambda n: 3 * n - 1, "swtp": lambda n: 2 * (2 + math.log2(n))}
#: Weight ratio of the cost runs: close weights keep every class served, so all N stay backlogged.
OPS_RATIO, OPS_LOAD = 1.1, 1.2
#: Fig 5.3 ("an instance of packet transmissions with three classes"; load not given): 3 equal classes
#: at U = 0.95, target 2.0, the waits of TRACE_PACKETS departures of a run of TRACE_RUN_PACKETS.
TRACE_PACKETS, TRACE_RUN_PACKETS = 1500, 100_000
#: Fig 5.3's claims look at the trace in windows of this many departures.
TRACE_WINDOW = 150
#: pertlab's test of Fig 5.3's difference: the instance traced again with this burst period, the
#: shortest tried for :data:`pertlab.experiments.hua02_swtp.BURST` (three times the bursts per trace).
SHORT_BURST = "10ms"


@dataclass(frozen=True)
class Mode:
    seeds: tuple[int, ...]
    table_packets: int
    sweep_packets: int
    ops_packets: int
    utilizations: tuple[float, ...]
    splits: tuple[str, ...]
    ks: tuple[int, ...]
    ops_classes: tuple[int, ...]
    #: Fig 5.3's instance is traced once per seed here, at each burst period (pertlab's test).
    instance_seeds: tuple[int, ...]


QUICK = Mode((1,), 100_000, 100_000, 50_000, (0.65, 0.8, 0.95), ("33:33:33",), (500, 5000), (4, 16, 64), (1, 2))
FULL = Mode((1, 2, 3), 2_000_000, 1_000_000, 200_000, (0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95), tuple(SPLITS), (500, 1000, 5000, 10_000), (2, 4, 8, 16, 32, 64),
            (1, 2, 3, 4, 5, 6, 7, 8, 9, 10))  # fmt: skip


def _points(mode: Mode) -> list[tuple[dict, Point]]:
    """(labels, point) for every run: tables, Fig 5.5 (with S-WTP's global update off on the
    equal split), Fig 5.4 (3 equal classes at U = 0.95), the cost runs, and Fig 5.3's traced
    runs (one instance per seed of ``instance_seeds`` and burst period; the figure's is the
    first seed's at the report's burst period)."""
    runs: list[tuple[dict, dict]] = []
    for target in THESIS_TABLES:
        for n in THESIS_TABLES[target]:
            for s in ("swtp", "wtp"):
                runs.append(({"exp": "table", "target": target, "classes": n, "sched": s}, dict(split=[1 / n] * n, utilization=0.95, ratio=target, packets=mode.table_packets)))
    for name in mode.splits:
        for u in mode.utilizations:
            for s in ("swtp", "wtp") + (("swtp-no-global",) if name == "33:33:33" else ()):
                runs.append(({"exp": "fig5.5", "split": name, "u": u, "sched": s}, dict(split=SPLITS[name], utilization=u, packets=mode.sweep_packets)))
    for k in mode.ks:
        for s in ("swtp", "wtp"):
            runs.append(({"exp": "fig5.4", "k": k, "sched": s}, dict(split=SPLITS["33:33:33"], utilization=0.95, packets=mode.table_packets, window_k=k)))
    for n in mode.ops_classes:
        for s in ("swtp", "wtp"):
            runs.append(({"exp": "ops", "classes": n, "sched": s}, dict(split=[1 / n] * n, utilization=OPS_LOAD, ratio=OPS_RATIO, packets=mode.ops_packets)))
    for burst in (h.BURST, SHORT_BURST):
        for s in ("swtp", "wtp"):
            runs.append(({"exp": "fig5.3", "burst": burst, "sched": s},
                         dict(split=SPLITS["33:33:33"], utilization=0.95, packets=TRACE_RUN_PACKETS, trace_packets=TRACE_PACKETS, burst=burst)))  # fmt: skip
    out = []
    for labels, kw in runs:
        kind, global_update = ("swtp", False) if labels["sched"] == "swtp-no-global" else (labels["sched"], True)
        for seed in mode.instance_seeds if labels["exp"] == "fig5.3" else mode.seeds:
            sc = h.classed_link(kind, global_update=global_update, seed=seed, **kw)
            out.append(({**labels, "seed": seed}, Point(tuple((k, str(v)) for k, v in labels.items()), seed, sc)))
    return out


def _rows(labels: dict, results) -> list[dict]:
    """One row per pair of consecutive classes of the run's R1 -> R2 queue."""
    classes = results.classes.filter(pl.col("from") == "r").sort("class")
    sched = results.schedulers.filter(pl.col("from") == "r")
    base = {"exp": labels["exp"], "sched": labels["sched"], "seed": labels["seed"], "target": labels.get("target", 2.0 if labels["exp"] != "ops" else OPS_RATIO),
            "classes": labels.get("classes", classes.height), "split": labels.get("split"), "u": labels.get("u", OPS_LOAD if labels["exp"] == "ops" else 0.95),
            "k": labels.get("k", sched["window_k"][0]), "ops_per_decision": sched["ops_per_decision"][0], "drops": int(classes["drops"].sum())}  # fmt: skip
    rows = []
    for c in classes.filter(pl.col("ratio_to_next").is_not_null()).iter_rows(named=True):
        rows.append({**base, "pair": f"{c['class'] + 1}/{c['class'] + 2}", "ratio": c["ratio_to_next"], "wait_tx": c["mean_wait_tx"],
                     **{f"p{q}": c[f"window_ratio_p{q}"] for q in (5, 25, 50, 75, 95)}})  # fmt: skip
    return rows or [{**base, "pair": None, "ratio": None, "wait_tx": None, **{f"p{q}": None for q in (5, 25, 50, 75, 95)}}]


def _scenarios(quick: bool) -> Wire:
    """Every distinct scenario the mode runs."""
    return wire_of({p.key: p for _, p in _points(QUICK if quick else FULL)}.values())


def _run(quick: bool, out: Path, workers: Workers) -> Report:
    mode = QUICK if quick else FULL
    runs = _points(mode)
    unique = list({p.key: p for _, p in runs}.values())
    run_points(unique, out, jobs=workers.jobs, cluster=workers.cluster)
    rows = [r for labels, p in runs if labels["exp"] != "fig5.3" for r in _rows(labels, stored_results(p, out))]
    per_run = pl.DataFrame(rows, infer_schema_length=None)
    traces = pl.concat([
        stored_results(p, out).class_trace.filter(pl.col("from") == "r").select(
            pl.lit(labels["burst"]).alias("burst"), pl.lit(labels["seed"]).alias("seed"), pl.lit(labels["sched"]).alias("sched"),
            pl.int_range(pl.len()).alias("departure"), "t_s", "class", "wait_tx")
        for labels, p in runs if labels["exp"] == "fig5.3"
    ])  # fmt: skip
    instance = (pl.col("burst") == h.BURST) & (pl.col("seed") == mode.instance_seeds[0])
    report = Report(
        name="hua02-swtp", title=TITLE, source=f"{THESIS}, Chapter 5", mode="quick" if quick else "full",
        out_dir=out,
        notes=[f"One link of {h.LINK_RATE_BPS / 1e6:g} Mbit/s (Fig 5.2's R1 -> R2) with a multi-class queue, {h.SOURCES_PER_CLASS} ns-2 Pareto on/off "
               f"sources per class (shape 1.9, mean burst = idle = {h.BURST}), the size mix 40 % 100 B, 40 % 500 B, 20 % 1000 B, no loss "
               f"(pertlab.experiments.hua02_swtp). Runs of about {mode.table_packets:,} departures for the tables and Fig 5.4, {mode.sweep_packets:,} for "
               f"Fig 5.5, the first 2 % left out; seeds {', '.join(map(str, mode.seeds))}; numbers are means over seeds. Delays in transmission times "
               f"of the mean packet. Cost runs: every class backlogged (total load {OPS_LOAD}, weights {OPS_RATIO}^i), {mode.ops_packets:,} decisions. "
               f"Fig 5.3: the waits of the first {TRACE_PACKETS:,} departures after the first 2 % of a run of about {TRACE_RUN_PACKETS:,} (3 equal classes, "
               f"U = 0.95, target 2.0, seed {mode.instance_seeds[0]}), S-WTP and WTP on the same arrivals (table fig_5_3); the same instance "
               f"traced with seeds {', '.join(map(str, mode.instance_seeds))} and with {SHORT_BURST} bursts too (table fig_5_3_instances: pertlab's test)."],
    )  # fmt: skip
    report.tables.update(_tables(per_run))
    report.tables["fig_5_3"] = traces.filter(instance).drop("burst", "seed")
    report.tables["fig_5_3_instances"] = pl.DataFrame([
        {"burst": b, "seed": sd, **_trace_stats(g)} for (b, sd), g in traces.group_by("burst", "seed", maintain_order=True)
    ])  # fmt: skip
    report.tables["per_run"] = per_run
    report.claims = _claims(report.tables)
    return report


def _mean(df: pl.DataFrame, by: list[str], cols: list[str]) -> pl.DataFrame:
    return df.group_by(by).agg(*(pl.col(c).mean() for c in cols), pl.col("ratio").min().alias("ratio_min"), pl.col("ratio").max().alias("ratio_max")).sort(by)


def _tables(per_run: pl.DataFrame) -> dict[str, pl.DataFrame]:
    t = per_run.filter(pl.col("exp") == "table")
    wide = _mean(t, ["target", "classes", "pair", "sched"], ["ratio"]).pivot(on="sched", index=["target", "classes", "pair"], values=["ratio", "ratio_min", "ratio_max"])
    thesis = pl.DataFrame([
        {"target": tg, "classes": n, "pair": f"{i + 1}/{i + 2}", "thesis_swtp": s, "thesis_wtp": w}
        for tg, by_n in THESIS_TABLES.items() for n, pairs in by_n.items() for i, (s, w) in enumerate(pairs)
    ])  # fmt: skip
    tables = wide.join(thesis, on=["target", "classes", "pair"], how="left").select(
        "target", "classes", "pair", pl.col("ratio_swtp").alias("swtp"), "thesis_swtp", pl.col("ratio_wtp").alias("wtp"), "thesis_wtp",
        (pl.col("ratio_swtp") - pl.col("ratio_wtp")).alias("swtp_minus_wtp"), pl.col("ratio_min_swtp").alias("swtp_seed_min"), pl.col("ratio_max_swtp").alias("swtp_seed_max"),
    ).sort("target", "classes", "pair", descending=[True, False, False])  # fmt: skip
    sweep = _mean(per_run.filter(pl.col("exp") == "fig5.5"), ["split", "u", "pair", "sched"], ["ratio"]).drop("ratio_min", "ratio_max")
    sweep = sweep.pivot(on="sched", index=["split", "u", "pair"], values="ratio").sort("split", "u", "pair")
    fig54 = _mean(per_run.filter(pl.col("exp") == "fig5.4"), ["k", "pair", "sched"], ["p5", "p25", "p50", "p75", "p95", "ratio"]).drop("ratio_min", "ratio_max")
    ops = per_run.filter(pl.col("exp") == "ops").group_by("classes", "sched").agg(pl.col("ops_per_decision").mean()).pivot(on="sched", index="classes", values="ops_per_decision")
    ops = ops.sort("classes")
    ops = ops.with_columns(*(pl.Series(f"thesis_{s}", [float(THESIS_OPS[s](n)) for n in ops["classes"].to_list()]) for s in ("wtp", "swtp")))
    return {"tables_5_1_5_2": tables, "fig_5_5": sweep, "fig_5_4": fig54, "ops_per_decision": ops.select("classes", "swtp", "thesis_swtp", "wtp", "thesis_wtp")}


def _table_claims(t: pl.DataFrame, target: float, band: float, thesis_err: float) -> list[Claim]:
    t = t.filter(pl.col("target") == target)
    by_n = {n: t.filter(pl.col("classes") == n).sort("pair") for n in sorted(set(t["classes"].to_list()))}
    means = {n: g["swtp"].mean() for n, g in by_n.items()}
    worst = max(abs(v / target - 1) for v in t["swtp"].to_list())
    gap = max(abs(v) for v in t["swtp_minus_wtp"].to_list())
    table = "5.1" if target == 2.0 else "5.2"
    thesis_gap = max(abs(s - w) for pairs in THESIS_TABLES[target].values() for s, w in pairs)
    return [
        Claim(f"Table {table}: at U = 0.95 S-WTP's mean ratio over the pairs lies within {100 * band:g} % of {target} for 4, 5 and 6 classes.",
              all(abs(m / target - 1) <= band for m in means.values()), "; ".join(f"{n} classes: {m:.4f}" for n, m in means.items())),
        Claim(f"Table {table}: every pair's S-WTP ratio lies within {100 * band:g} % of {target} (the thesis's largest error {100 * thesis_err:g} %).",
              worst <= band, f"largest error {100 * worst:.3g} %; S-WTP per pair: " + "; ".join(f"{n}: {fmt_values(g['swtp'].to_list())}" for n, g in by_n.items())),
        Claim(f"Table {table}: S-WTP follows WTP, every pair within 0.05 (the thesis's largest gap {thesis_gap:.3f}).", gap <= 0.05,
              f"largest |S-WTP - WTP| {gap:.3g}; WTP per pair: " + "; ".join(f"{n}: {fmt_values(g['wtp'].to_list())}" for n, g in by_n.items())),
    ]  # fmt: skip


def _trace_stats(trace: pl.DataFrame) -> dict:
    """What Fig 5.3's claims read from one traced instance (S-WTP and WTP on the same
    arrivals): windows of :data:`TRACE_WINDOW` departures ordered by class, of all; the highest
    class's median and the lowest class's 95th percentile wait (transmission times); whether
    each of the two claims holds."""
    classes = sorted(set(trace["class"].to_list()))
    windows = (
        trace.with_columns((pl.col("departure") // TRACE_WINDOW).alias("window"))
        .group_by("sched", "window", "class")
        .agg(pl.col("wait_tx").mean())
        .pivot(on="class", index=["sched", "window"], values="wait_tx")
        .sort("sched", "window")
    )  # fmt: skip
    cols = [str(c) for c in classes]
    ordered = [all(r[a] is None or r[b] is None or r[a] > r[b] for a, b in zip(cols, cols[1:])) for r in windows.iter_rows(named=True)]
    top_median = trace.filter(pl.col("class") == classes[-1])["wait_tx"].median()
    low_p95 = trace.filter(pl.col("class") == classes[0])["wait_tx"].quantile(0.95)
    return {"windows_ordered": sum(ordered), "windows": len(ordered), "top_median_tx": top_median, "low_p95_tx": low_p95,
            "ordered_holds": all(ordered), "range_holds": 10 <= top_median < 100 and low_p95 >= 100}  # fmt: skip


def _trace_claims(trace: pl.DataFrame) -> list[Claim]:
    """Fig 5.3 from the traced departures of S-WTP and WTP (the same arrivals)."""
    means = trace.group_by("sched", "class").agg(pl.col("wait_tx").mean()).sort("sched", "class")
    mean = {(sd, c): w for sd, c, w in means.rows()}
    classes = sorted(set(trace["class"].to_list()))
    gap = max(abs(mean[("swtp", c)] / mean[("wtp", c)] - 1) for c in classes)
    st = _trace_stats(trace)
    low = trace.filter(pl.col("class") == classes[0])["wait_tx"]
    top = trace.filter(pl.col("class") == classes[-1])["wait_tx"]
    return [
        Claim("Fig 5.3: no notable difference between S-WTP and WTP at the packet level (each class's mean wait over the traced packets within 15 %).",
              gap <= 0.15, "mean wait (transmission times) by class, S-WTP " + fmt_values([mean[("swtp", c)] for c in classes])
              + ", WTP " + fmt_values([mean[("wtp", c)] for c in classes]) + f"; largest relative gap {gap:.3g}"),
        Claim(f"Fig 5.3: higher classes always see smaller delays (in every window of {TRACE_WINDOW} traced departures, each class's mean wait "
              "above the next higher class's), for both schedulers.", st["ordered_holds"],
              f"{st['windows_ordered']} of {st['windows']} windows ordered (S-WTP and WTP together)"),
        Claim("Fig 5.3: the waits run from tens of transmission times (highest class: median 10 to 100) to hundreds (lowest class: 95th percentile at least 100).",
              st["range_holds"],
              f"highest class median {top.median():.3g}, 95th {top.quantile(0.95):.3g}; lowest class median {low.median():.3g}, 95th {low.quantile(0.95):.3g}"),
    ]  # fmt: skip


def _instance_claims(inst: pl.DataFrame) -> list[Claim]:
    """pertlab's tests of Fig 5.3's difference: the figure is one instance, a draw."""
    at = {b: inst.filter(pl.col("burst") == b).sort("seed") for b in (h.BURST, SHORT_BURST)}
    both = at[h.BURST].filter(pl.col("ordered_holds") & pl.col("range_holds"))["seed"].to_list()
    share = {b: g["windows_ordered"].sum() / g["windows"].sum() for b, g in at.items()}
    per_seed = lambda b, col: fmt_values(at[b][col].to_list())  # noqa: E731
    return [
        Claim(f"pertlab's test of Fig 5.3's difference: the figure is one instance; traced with seeds {fmt_values(at[h.BURST]['seed'].to_list())}, "
              "both its claims (every window ordered, the waits' range) hold together in at least one instance.", bool(both),
              f"both hold with seeds {fmt_values(both) or 'none'}; windows ordered {per_seed(h.BURST, 'windows_ordered')} of {at[h.BURST]['windows'][0]}; "
              f"highest class median {per_seed(h.BURST, 'top_median_tx')}; lowest class 95th {per_seed(h.BURST, 'low_p95_tx')} transmission times"),
        Claim(f"pertlab's test of Fig 5.3's difference: with {SHORT_BURST} bursts (three times the bursts in a trace) the windows are ordered more often "
              f"than with {h.BURST} (over the same seeds).", share[SHORT_BURST] > share[h.BURST],
              f"windows ordered: {SHORT_BURST} {share[SHORT_BURST]:.3g} ({per_seed(SHORT_BURST, 'windows_ordered')}), {h.BURST} {share[h.BURST]:.3g}"),
    ]  # fmt: skip


def _claims(tables: dict[str, pl.DataFrame]) -> list[Claim]:
    claims = _trace_claims(tables["fig_5_3"]) + _instance_claims(tables["fig_5_3_instances"])
    claims += _table_claims(tables["tables_5_1_5_2"], 2.0, 0.03, 0.028) + _table_claims(tables["tables_5_1_5_2"], 1.5, 0.05, 0.059)
    f54 = tables["fig_5_4"]
    ks = sorted(set(f54["k"].to_list()))
    sw = f54.filter(pl.col("sched") == "swtp")
    spread = {k: sw.filter(pl.col("k") == k).select((pl.col("p95") - pl.col("p5")).max()).item() for k in ks}
    last = sw.filter(pl.col("k") == ks[-1])
    med_gap = f54.pivot(on="sched", index=["k", "pair"], values="p50").select((pl.col("swtp") - pl.col("wtp")).abs().max()).item()
    claims += [
        Claim("Fig 5.4: the ratios over windows narrow as K grows (S-WTP's widest 5-95 % range, both pairs).", spread[ks[-1]] < spread[ks[0]],
              "K " + ", ".join(f"{k}: {spread[k]:.3g}" for k in ks)),
        Claim(f"Fig 5.4: at K = {ks[-1]} they lie in about 1.8 to 2.0 (we ask 5th percentile >= 1.7, 95th <= 2.2).",
              last["p5"].min() >= 1.7 and last["p95"].max() <= 2.2, f"S-WTP 5th {fmt_values(last['p5'].to_list())}, 95th {fmt_values(last['p95'].to_list())}"),
        Claim("Fig 5.4: S-WTP's ratio distribution is close to WTP's (medians within 0.1 at every K).", med_gap <= 0.1, f"largest median gap {med_gap:.3g}"),
    ]  # fmt: skip
    f55 = tables["fig_5_5"]
    us = sorted(set(f55["u"].to_list()))
    gap = f55.with_columns((pl.col("swtp") - pl.col("wtp")).abs().alias("gap"))
    gap_at = {u: gap.filter(pl.col("u") == u)["gap"].mean() for u in us}
    top = f55.filter(pl.col("u") == us[-1])
    eq = f55.filter(pl.col("split") == "33:33:33").sort("u", "pair")
    claims += [
        Claim("Fig 5.5: S-WTP is close to WTP in almost all cases (within 0.1 at every load, split and pair).", gap["gap"].max() <= 0.1,
              f"largest |S-WTP - WTP| {gap['gap'].max():.3g}; mean by U " + ", ".join(f"{u:g}: {gap_at[u]:.3g}" for u in us)),
        Claim("Fig 5.5: the deviation is largest at moderate load and shrinks as load rises (mean |S-WTP - WTP| at the highest U below that at the lowest).",
              gap_at[us[-1]] < gap_at[us[0]], f"{gap_at[us[0]]:.3g} at U = {us[0]:g}, {gap_at[us[-1]]:.3g} at U = {us[-1]:g}"),
        Claim(f"Fig 5.5: at heavy load both approach the target 2.0 (within 10 % at U = {us[-1]:g}, every split and pair).",
              all(abs(v / 2 - 1) <= 0.1 for v in top["swtp"].to_list() + top["wtp"].to_list()),
              f"S-WTP {fmt_values(top['swtp'].to_list())}, WTP {fmt_values(top['wtp'].to_list())}"),
        Claim("Section 5.3: without the global update S-WTP's differentiation degrades (at every load, each pair's ratio - 1 below half of S-WTP's with it).",
              all(z - 1 < (a - 1) / 2 for a, z in zip(eq["swtp"].to_list(), eq["swtp-no-global"].to_list())),
              f"U {fmt_values(eq['u'].to_list())}: with {fmt_values(eq['swtp'].to_list())}, without {fmt_values(eq['swtp-no-global'].to_list())}"),
    ]  # fmt: skip
    ops = tables["ops_per_decision"].sort("classes")
    ns, s, w = ops["classes"].to_list(), ops["swtp"].to_list(), ops["wtp"].to_list()
    claims += [
        Claim("Section 5.3: WTP costs about 3N operations per decision with N classes backlogged (within 10 % of 3N - 1).", all(abs(x / THESIS_OPS["wtp"](n) - 1) <= 0.1 for n, x in zip(ns, w)),
              f"N {fmt_values(ns)}: WTP {fmt_values(w)}"),
        Claim("Section 5.3: S-WTP costs about 2 (2 + log2 N) operations per decision (within 20 %).", all(abs(x / THESIS_OPS["swtp"](n) - 1) <= 0.2 for n, x in zip(ns, s)),
              f"N {fmt_values(ns)}: S-WTP {fmt_values(s)} against {fmt_values([THESIS_OPS['swtp'](n) for n in ns])}"),
        Claim("Section 5.3: S-WTP's cost is O(log N): from the fewest to the most classes it grows by less than log2 N does.",
              s[-1] / s[0] < math.log2(ns[-1]) / math.log2(ns[0]),
              f"S-WTP x {s[-1] / s[0]:.3g} from N = {ns[0]} to {ns[-1]}; WTP x {w[-1] / w[0]:.3g}"),
        Claim("Section 5.3: S-WTP is cheaper than WTP from 4 classes on (thesis: 8 against 12 at N = 4).", all(a < b for n, a, b in zip(ns, s, w) if n >= 4),
              f"N {fmt_values(ns)}: S-WTP / WTP {fmt_values([a / b for a, b in zip(s, w)])}"),
    ]  # fmt: skip
    return claims


register(Entry("hua02-swtp", TITLE, f"{THESIS}, Chapter 5", _run, figures, _scenarios, details=("per_run", "fig_5_3", "fig_5_3_instances")))
