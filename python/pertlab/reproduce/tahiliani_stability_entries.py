"""Registry entries of Tahiliani's 2013 thesis, Chapter 4, Section 4.4.1 (S4-A (c) to (e)) on the
Fig. 4.3 dumbbell at 8 Mbit/s, 50 ms (:mod:`pertlab.experiments.tahiliani_ch4`):

- ``tahiliani-ch4-fairness`` (Figs. 4.6, 4.7): 2..50 flows, half SACK (RFC 3168 ECN) and half
  Surathkal (XECN); each class's mean throughput per flow and Jain's index (Eq. 4.4.1) read both
  ways (over every flow, and over the two class means); a second run per point with ns-2's random
  send overhead tells whether the result rests on phase effects (Floyd and Jacobson 1992).
- ``tahiliani-ch4-stability`` (Figs. 4.8, 4.9): two flows of one controller; the swing of each
  flow's cwnd (5th to 95th percentile) and the mean and spread of ARED's average queue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from ..experiments import tahiliani_ch4 as ch4
from ..experiments.tahiliani_ch3 import bottleneck_series
from ..parallel import Workers
from ..plots import saved_figure
from ..runner import run
from ..units import parse_time
from .registry import Claim, Entry, Figure, Report, Wire, fmt_seeds, fmt_values, register
from .tahiliani_entries import CCS, FULL, QUICK, THESIS

# ------------------------------------------------------------------ fairness (Figs. 4.6, 4.7)

FAIRNESS = "tahiliani-ch4-fairness"
FAIRNESS_TITLE = "Figs. 4.6, 4.7: half SACK, half Surathkal, 2..50 flows"
FAIRNESS_SOURCE = f"{THESIS}, Section 4.4.1 (S4-A (c))"
#: Total flows (half of each controller); the thesis's range 2..50, grid ours (spec 6, item 11).
FAIRNESS_FULL = (2, 4, 8, 16, 24, 32, 40, 50)
FAIRNESS_QUICK = (2, 32, 50)
#: The thesis's fairness thresholds (Sec. 4.4.1 after Fig. 4.7): above 90 % with 32 or more flows,
#: above 95 % with more than 40.
THESIS_FAIR_90_FROM, THESIS_FAIR_95_ABOVE = 32, 40
#: The phase-effect check: ns-2's random send overhead (``tcp.overhead``), about one packet time at 8 Mbit/s.
OVERHEAD = "1ms"
#: Runs per point: name -> (TCP options, controller parameters). ``overhead`` tests phase effects;
#: ``end_of_window`` is Surathkal with the other reading of alpha's timing (Option B; spec 6, item 9).
VARIANTS: dict[str, tuple[dict[str, Any] | None, dict[str, dict[str, Any]] | None]] = {
    "plain": (None, None),
    "overhead": ({"overhead": OVERHEAD}, None),
    "end_of_window": (None, {"surathkal": {"alpha_timing": "end_of_window"}}),
}


def _fairness_points(quick: bool) -> list[tuple[int, str, int, ch4.Mode]]:
    mode = QUICK if quick else FULL
    return [(n, v, seed, mode) for n in (FAIRNESS_QUICK if quick else FAIRNESS_FULL) for v in VARIANTS for seed in mode.seeds]


def _fairness_scenario(n: int, variant: str, seed: int, mode: ch4.Mode) -> Any:
    tcp, params = VARIANTS[variant]
    return ch4.s4a(f"sack:{n // 2},surathkal:{n // 2}", mode, seed, flows=None, tcp=tcp, cc_params=params)


def _fairness_row(item: tuple[int, str, int, ch4.Mode]) -> dict[str, Any]:
    n, variant, seed, _ = item
    return {"flows": n, "variant": variant, "seed": seed, **ch4.fairness_row(_fairness_scenario(*item))}


def _fairness_scenarios(quick: bool) -> Wire:
    return {f"{n}flows-{v}-seed{seed}": _fairness_scenario(n, v, seed, mode).to_wire() for n, v, seed, mode in _fairness_points(quick)}


def _above(table: pl.DataFrame, col: str, threshold: float, at: Any) -> tuple[bool, str]:
    t = table.filter(at)
    return bool((t[col] > threshold).all()), f"{col} at {fmt_values(t['flows'].to_list())} flows: {fmt_values(t[col].to_list())}"


def _fairness_claims(means: pl.DataFrame) -> list[Claim]:
    plain = means.filter(pl.col("variant") == "plain").sort("flows")
    few, many = plain.row(0, named=True), plain.row(-1, named=True)
    claims = [
        Claim("With few flows Surathkal's average throughput is significantly higher than SACK's (Fig. 4.6; ratio above 1.1 at the fewest flows).",
              few["ratio"] > 1.1, f"Surathkal / SACK per flow at {few['flows']} flows: {few['ratio']:.3g}"),
        Claim("With many flows the two classes converge (the ratio at the most flows closer to 1 than at the fewest).",
              abs(many["ratio"] - 1) < abs(few["ratio"] - 1), f"ratio at {fmt_values(plain['flows'].to_list())} flows: {fmt_values(plain['ratio'].to_list())}"),
    ]  # fmt: skip
    for col, reading in (("jain_classes", "over the two class means"), ("jain_flows", "over every flow")):
        for threshold, at, text in (
            (0.9, pl.col("flows") >= THESIS_FAIR_90_FROM, f"{THESIS_FAIR_90_FROM} or more flows"),
            (0.95, pl.col("flows") > THESIS_FAIR_95_ABOVE, f"more than {THESIS_FAIR_95_ABOVE} flows"),
        ):
            holds, evidence = _above(plain, col, threshold, at)
            claims.append(Claim(f"Fairness above {threshold:.0%} with {text} (Fig. 4.7; Jain's index {reading}).", holds, evidence))
    return claims


def _fairness_run(quick: bool, out: Path, workers: Workers) -> Report:
    mode = QUICK if quick else FULL
    runs = pl.DataFrame(workers.map(_fairness_row, _fairness_points(quick)))
    metrics = ("sack_mbps", "surathkal_mbps", "ratio", "jain_flows", "jain_classes", "jain_sack", "jain_surathkal")
    means = runs.group_by("flows", "variant").agg(pl.col(c).mean() for c in metrics).sort("variant", "flows")
    both = means.pivot(on="variant", index="flows", values="jain_classes").sort("flows")
    shift = (both["overhead"] - both["plain"]).abs().max()
    at = both.filter(pl.col("flows") == THESIS_FAIR_90_FROM)
    report = Report(
        FAIRNESS, FAIRNESS_TITLE, FAIRNESS_SOURCE, "quick" if quick else "full", out,
        notes=[
            f"Flows {fmt_values(list(FAIRNESS_QUICK if quick else FAIRNESS_FULL))} (half SACK, half Surathkal), 8 Mbit/s, 50 ms, "
            f"{mode.duration} runs, metrics after {mode.warmup}, seeds {fmt_seeds(list(mode.seeds))}; tables hold means over seeds.",
            "jain_flows is Eq. 4.4.1 over every flow's goodput (the thesis's definition, n = all flows); jain_classes over the two "
            "classes' mean goodput per flow (n = 2; our reading of 'fairness between TCP Surathkal and TCP SACK'). Within each class "
            "the flows share evenly (jain_sack, jain_surathkal near 1), so the two readings nearly agree.",
            f"Phase effects: every point is run again with ns-2's random send overhead of {OVERHEAD} (variant 'overhead'), which breaks "
            f"the lock-step of identical flows; the largest change of jain_classes is {shift:.3g}, so the fairness result "
            f"{'does not rest' if shift < 0.02 else 'rests partly'} on phase effects.",
            "Variant 'end_of_window' runs Surathkal with alpha computed at the end of the marked window (Option B) instead of from "
            "the previous window (Option A, the default and the claims' reading)"
            + (f"; at {THESIS_FAIR_90_FROM} flows jain_classes is {at['plain'][0]:.3g} with A and {at['end_of_window'][0]:.3g} with B." if at.height else "."),
        ],
    )  # fmt: skip
    report.tables = {"comparison": means, "runs": runs}
    report.claims = _fairness_claims(means)
    return report


def _fairness_figures(report: Report) -> list[Figure]:
    def draw(path: Path) -> None:
        t = report.tables["comparison"].filter(pl.col("variant") == "plain").sort("flows")
        with saved_figure(path, 1, 2, figsize=(10, 3.6), title=report.title) as (_, axes):
            for cc in CCS:
                axes[0].plot(t["flows"].to_list(), t[f"{cc}_mbps"].to_list(), marker="o", label=cc)
            axes[0].set_ylabel("mean goodput per flow (Mbit/s)")
            for col in ("jain_flows", "jain_classes"):
                axes[1].plot(t["flows"].to_list(), t[col].to_list(), marker="o", label=col)
            axes[1].axhline(0.9, color="grey", lw=0.5)
            axes[1].axhline(0.95, color="grey", lw=0.5)
            axes[1].set_ylabel("Jain's index (Eq. 4.4.1)")
            for ax in axes:
                ax.set_xlabel("total flows")
                ax.legend(fontsize=8)

    return [Figure(f"{FAIRNESS}.png", "Mean goodput per flow of each class (Fig. 4.6) and Jain's index both ways (Fig. 4.7), means over seeds.", draw)]


# --------------------------------------------------------- stability (Figs. 4.8, 4.9)

STABILITY = "tahiliani-ch4-stability"
STABILITY_TITLE = "Figs. 4.8, 4.9: cwnd and ARED's average queue over time, SACK vs Surathkal"
STABILITY_SOURCE = f"{THESIS}, Section 4.4.1 (S4-A (d), (e))"
#: The thesis's cwnd ranges (Sec. 4.4.1, Fig. 4.8), packets.
THESIS_SACK_CWND = (10, 100)
THESIS_SURATHKAL_CWND = (55, 70)
#: ARED's target band for avg at 8 Mbit/s (Sec. 4.4.1: thresholds 5 and 15, band [9, 11]) and the
#: thesis's avg with each controller (Fig. 4.9).
TARGET_BAND = (9.0, 11.0)
THESIS_AVG = {"sack": 7.0, "surathkal": 10.0}
SAMPLE = "100ms"
#: The report keeps every this many samples (0.5 s) of the first flow's cwnd and of avg, to draw the figures.
KEEP_EVERY = 5


def _stability_points(quick: bool) -> list[tuple[str, int, ch4.Mode]]:
    mode = QUICK if quick else FULL
    return [(cc, seed, mode) for cc in CCS for seed in mode.seeds]


def _stability_scenario(cc: str, seed: int, mode: ch4.Mode) -> Any:
    return ch4.s4a(cc, mode, seed, sample_interval=SAMPLE)


def _stability_run_one(item: tuple[str, int, ch4.Mode]) -> tuple[dict[str, Any], pl.DataFrame, pl.DataFrame]:
    """One run: its row (cwnd percentiles per flow averaged over the two flows, avg's mean and
    standard deviation after the warm-up) and, thinned for the figures, the first flow's cwnd and avg over time."""
    cc, seed, mode = item
    r = run(_stability_scenario(cc, seed, mode))
    cw = r.flow_series.select("t_s", "flow", "cwnd").with_columns(pl.lit(cc).alias("cc"))
    q = bottleneck_series(r).with_columns(pl.lit(cc).alias("cc"))
    warm = parse_time(mode.warmup) / 1e9
    per_flow = cw.filter(pl.col("t_s") >= warm).group_by("flow").agg(
        pl.col("cwnd").quantile(0.05).alias("p5"), pl.col("cwnd").quantile(0.95).alias("p95"), pl.col("cwnd").mean().alias("mean"))
    qa = q.filter(pl.col("t_s") >= warm)["avg"]
    row = {
        "cc": cc, "seed": seed, "cwnd_p5": float(per_flow["p5"].mean()), "cwnd_p95": float(per_flow["p95"].mean()),
        "cwnd_mean": float(per_flow["mean"].mean()), "avg_mean": float(qa.mean()), "avg_std": float(qa.std()),
        "avg_in_band": float(((qa >= TARGET_BAND[0]) & (qa <= TARGET_BAND[1])).mean()),
    }  # fmt: skip
    kept_cw = cw.filter(pl.col("flow") == cw["flow"].min()).sort("t_s").gather_every(KEEP_EVERY)
    kept_q = q.select("t_s", "avg", "cc").sort("t_s").gather_every(KEEP_EVERY)
    return {**row, "cwnd_swing": row["cwnd_p95"] - row["cwnd_p5"]}, kept_cw, kept_q


def _stability_scenarios(quick: bool) -> Wire:
    return {f"{cc}-seed{seed}": _stability_scenario(cc, seed, mode).to_wire() for cc, seed, mode in _stability_points(quick)}


def _stability_claims(m: dict[str, dict[str, float]]) -> list[Claim]:
    s, k = m["sack"], m["surathkal"]
    lo, hi = THESIS_SURATHKAL_CWND
    return [
        Claim("Surathkal's cwnd swings less than SACK's (Fig. 4.8; 5th to 95th percentile).", k["cwnd_swing"] < s["cwnd_swing"],
              f"swing SACK {s['cwnd_swing']:.3g}, Surathkal {k['cwnd_swing']:.3g} packets (thesis {THESIS_SACK_CWND[1] - THESIS_SACK_CWND[0]} and {hi - lo})"),
        Claim(f"Surathkal's cwnd stays within {lo}..{hi} packets (Fig. 4.8; 5th to 95th percentile).", k["cwnd_p5"] >= lo and k["cwnd_p95"] <= hi,
              f"Surathkal {k['cwnd_p5']:.3g}..{k['cwnd_p95']:.3g}"),
        Claim(f"SACK's cwnd oscillates around Surathkal's range, below and above it (Fig. 4.8: {THESIS_SACK_CWND[0]}..{THESIS_SACK_CWND[1]}).",
              s["cwnd_p5"] < k["cwnd_p5"] and s["cwnd_p95"] > k["cwnd_p95"], f"SACK {s['cwnd_p5']:.3g}..{s['cwnd_p95']:.3g}, Surathkal {k['cwnd_p5']:.3g}..{k['cwnd_p95']:.3g}"),
        Claim(f"With Surathkal ARED's avg is about {THESIS_AVG['surathkal']:g} packets, inside the target band {TARGET_BAND[0]:g}..{TARGET_BAND[1]:g} (Fig. 4.9; mean).",
              TARGET_BAND[0] <= k["avg_mean"] <= TARGET_BAND[1], f"mean avg {k['avg_mean']:.3g}"),
        Claim(f"With SACK ARED's avg is lower, below the band (Fig. 4.9: about {THESIS_AVG['sack']:g} packets).",
              s["avg_mean"] < TARGET_BAND[0] and s["avg_mean"] < k["avg_mean"], f"mean avg SACK {s['avg_mean']:.3g}, Surathkal {k['avg_mean']:.3g}"),
        Claim("ARED's avg oscillates more with SACK than with Surathkal (Fig. 4.9; standard deviation).", s["avg_std"] > k["avg_std"],
              f"std SACK {s['avg_std']:.3g}, Surathkal {k['avg_std']:.3g} packets"),
    ]  # fmt: skip


def _stability_run(quick: bool, out: Path, workers: Workers) -> Report:
    mode = QUICK if quick else FULL
    results = workers.map(_stability_run_one, _stability_points(quick))
    runs = pl.DataFrame([row for row, _, _ in results])
    first = mode.seeds[0]
    cwnd = pl.concat([c for row, c, _ in results if row["seed"] == first])
    queue = pl.concat([q for row, _, q in results if row["seed"] == first])
    means = runs.drop("seed").group_by("cc").mean().sort("cc")
    report = Report(
        STABILITY, STABILITY_TITLE, STABILITY_SOURCE, "quick" if quick else "full", out,
        notes=[
            f"Two flows of one controller, 8 Mbit/s, 50 ms (RTT 108 ms), {mode.duration} runs sampled every {SAMPLE}, statistics after "
            f"{mode.warmup}, seeds {fmt_seeds(list(mode.seeds))}; the comparison holds means over seeds and flows, the series seed {first}.",
            "The thesis's 'oscillates between' ranges are read as the 5th to 95th percentile of the sampled cwnd (the extremes of a "
            "plot are its rare spikes); ARED's avg is the bottleneck queue's EWMA at each sample.",
        ],
    )  # fmt: skip
    report.tables = {"comparison": means, "runs": runs, "cwnd_series": cwnd, "queue_series": queue}
    report.claims = _stability_claims({r["cc"]: r for r in means.to_dicts()})
    return report


def _stability_figures(report: Report) -> list[Figure]:
    def draw(path: Path) -> None:
        cw, q = report.tables["cwnd_series"], report.tables["queue_series"]
        with saved_figure(path, 2, 1, figsize=(8, 6), title=report.title) as (_, axes):
            for cc in CCS:
                t = cw.filter(pl.col("cc") == cc).sort("t_s")
                axes[0].plot(t["t_s"].to_list(), t["cwnd"].to_list(), lw=0.6, label=f"{cc}, first flow")
                t = q.filter(pl.col("cc") == cc).sort("t_s")
                axes[1].plot(t["t_s"].to_list(), t["avg"].to_list(), lw=0.6, label=cc)
            axes[0].set_ylabel("cwnd (packets)")
            axes[1].axhspan(*TARGET_BAND, color="grey", alpha=0.2)
            axes[1].set_ylabel("ARED avg (packets)")
            for ax in axes:
                ax.set_xlabel("time (s)")
                ax.legend(fontsize=8)

    return [Figure(f"{STABILITY}.png", "cwnd of one flow (Fig. 4.8) and ARED's average queue with the target band (Fig. 4.9), first seed, every 0.5 s.", draw)]


register(Entry(FAIRNESS, FAIRNESS_TITLE, FAIRNESS_SOURCE, _fairness_run, _fairness_figures, _fairness_scenarios))
register(Entry(STABILITY, STABILITY_TITLE, STABILITY_SOURCE, _stability_run, _stability_figures, _stability_scenarios, details=("runs", "cwnd_series", "queue_series")))
