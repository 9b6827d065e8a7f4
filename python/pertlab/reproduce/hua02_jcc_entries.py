"""Registry entry ``hua02-jcc``: Chapter 4 of Hua's MPhil thesis (CUHK 2002), Joint
Congestion Control against Reno, Figures 4.6 to 4.15 and Table 4.1: window traces (4.6,
4.7), four flows joining at 0, 50, 100, 150 s (4.8), four RTTs (4.9), loss against the
number of flows (4.10), fairness over time (4.11), the parking lot of Figure 3.1 with JCC
beside Vegas (4.12), throughput and R over time for alpha = 0 and 0.02 with Table 4.1's
mean R and loss (4.13, 4.14), and two JCC flows against two Reno flows (4.15). Besides
the thesis's claims, the report holds pertlab's tests of the explanations of those that
do not hold (runs with larger windows, a faster RED average, the other reading of JCC's
loss response, a sweep of alpha). This module makes the runs and tables; the claims and
figures are :mod:`pertlab.reproduce.hua02_jcc_report`. Scenario choices:
:mod:`pertlab.experiments.hua02`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ..experiments import hua02 as h
from ..metrics import jain_index
from ..parallel import Workers
from ..sweep import Point
from . import hua02_jcc_report as rep
from .hua02_common import THESIS, new_report, run_all, seed_mean, seeded
from .registry import Entry, Report, register, wire_of

TITLE = "Figures 4.6 to 4.15, Table 4.1: Joint Congestion Control against Reno"


@dataclass(frozen=True)
class Mode:
    duration: str
    warmup: str
    loss_flows: tuple[int, ...]
    stagger_end_s: int
    lot_active: tuple[int, ...]
    lot_flows: tuple[int, ...]
    mix_alphas: tuple[float, ...]
    #: The thesis shows one run per point; the full mode runs three seeds and reports their mean.
    seeds: tuple[int, ...]


QUICK = Mode("60s", "20s", (10, 40), 250, (1, 10), (1, 8), (0.0, 0.02, 0.06), (1,))
FULL = Mode("200s", "50s", (5, 10, 20, 30, 40, 50), 300, tuple(range(1, 11)), tuple(range(1, 11)), (0.0, 0.02, 0.04, 0.06, 0.08), (1, 2, 3))

#: pertlab's test of Fig 4.8's utilization: RED's averaging weight that follows the queue within a few packets.
FAST_Q_W = 0.2
FAST_JCC = f"jcc, q_w {FAST_Q_W}"
#: Four flows from t = 0 on 1 Mbit/s (Figs 4.6, 4.7, 4.11, 4.13, 4.14, Table 4.1): the three the
#: thesis runs, and pertlab's test of an explanation (halving on every loss).
FOUR = {
    "jcc alpha 0": dict(cc="jcc", alpha=0.0),
    "jcc alpha 0.02": dict(cc="jcc", alpha=0.02),
    "reno": dict(cc="reno"),
    "jcc alpha 0, halve on loss": dict(cc="jcc", alpha=0.0, halve_on_loss=True),
    "jcc alpha 0.02, halve on loss": dict(cc="jcc", alpha=0.02, halve_on_loss=True),
}
#: The variants whose time series the report keeps (seed 1), sampled every SAMPLE_S.
TRACED, SAMPLE_S = ("jcc alpha 0", "jcc alpha 0.02", "reno"), 0.25
#: Fig 4.9: the four flows' RTTs.
RTTS = ("50ms", "100ms", "150ms", "200ms")
#: pertlab's test of Fig 4.10's difference: 40 flows on a link this fast (windows of about 12 segments).
WIDE_BW, WIDE_FLOWS = "40Mbps", 40


def _runs(mode: Mode) -> list[tuple[dict, Point]]:
    """Every run of the mode, with its labels (``exp`` says which figure), once per seed."""
    d, w = mode.duration, mode.warmup
    sample = f"{SAMPLE_S}s"
    pts: list[tuple[dict, Point]] = []

    def add(labels: dict, scenario) -> None:
        pts.append((labels, Point(tuple((k, str(v)) for k, v in labels.items()), 1, scenario)))

    for cc in ("jcc", "reno"):
        for n in mode.loss_flows:
            add({"exp": "4.10", "cc": cc, "flows": n}, h.jcc_dumbbell(cc, n, bw="10Mbps", duration=d, warmup=w))
            # pertlab's test of Fig 4.10's difference: the same with gentle RED (ns-2's default from April 2001).
            add({"exp": "4.10 gentle", "cc": cc, "flows": n}, h.jcc_dumbbell(cc, n, bw="10Mbps", duration=d, warmup=w, gentle=True))
        add({"exp": "4.10 wide", "cc": cc, "flows": WIDE_FLOWS}, h.jcc_dumbbell(cc, WIDE_FLOWS, bw=WIDE_BW, duration=d, warmup=w))
        end = f"{mode.stagger_end_s}s"
        add({"exp": "4.8", "cc": cc}, h.staggered(h.jcc_dumbbell(cc, 4, duration=end, warmup="150s", sample_interval="10s"), 50))
        if cc == "jcc":
            # pertlab's test of Fig 4.8's utilization: the same with a RED average that follows the queue.
            add({"exp": "4.8", "cc": FAST_JCC}, h.staggered(h.jcc_dumbbell(cc, 4, duration=end, warmup="150s", sample_interval="10s", q_w=FAST_Q_W), 50))
        add({"exp": "4.9", "cc": cc}, h.jcc_dumbbell(cc, 4, duration=d, warmup=w, rtt=list(RTTS)))
    for variant, kw in FOUR.items():
        add({"exp": "four", "variant": variant}, h.jcc_dumbbell(flows=4, duration=d, warmup=w, sample_interval=sample if variant in TRACED else None, **kw))
    for a in mode.mix_alphas:
        add({"exp": "4.15", "alpha": a}, h.jcc_dumbbell("jcc:2,reno:2", None, duration=d, warmup=w, alpha=a))
    for n in mode.lot_active:
        add({"exp": "4.12 hops", "x": n}, h.jcc_lot(h.LotRun(11, 10, tuple(10 if i < n else 0 for i in range(10))), duration=d, warmup=w))
    for m in mode.lot_flows:
        add({"exp": "4.12 flows", "x": m}, h.jcc_lot(h.LotRun.several(11, m), duration=d, warmup=w))
    out = seeded(pts, mode.seeds)
    # Vegas beside JCC on Fig 3.3's runs: it draws nothing at random (hua02-vegas), one seed.
    vegas = [({"exp": "4.12 vegas", "x": m}, Point((("exp", "4.12 vegas"), ("x", str(m))), 1, h.vegas_lot(h.LotRun.several(11, m), duration=d, warmup=w)))
             for m in mode.lot_flows]  # fmt: skip
    return out + seeded(vegas, mode.seeds[:1])


def _jcc(quick: bool, out: Path, workers: Workers) -> Report:
    mode = QUICK if quick else FULL
    runs = _runs(mode)
    results = run_all([p for _, p in runs], out, workers)
    by_exp: dict[str, list[tuple[dict, object]]] = {}
    for labels, p in runs:
        by_exp.setdefault(labels["exp"], []).append((labels, results[p.key]))
    tables = {
        "loss_vs_flows": _loss(by_exp["4.10"] + by_exp["4.10 wide"] + by_exp["4.10 gentle"]),
        **_staggered(by_exp["4.8"], mode),
        **_four(by_exp["four"], mode),
        "rtt_mix": _rtt_mix(by_exp["4.9"]),
        "jcc_and_reno": _mix(by_exp["4.15"]),
        "parking_lot": _lot(by_exp["4.12 hops"] + by_exp["4.12 flows"] + by_exp["4.12 vegas"]),
        "per_run": pl.DataFrame([
            {"run": ", ".join(f"{k} {v}" for k, v in labels.items() if k != "seed"), "seed": labels["seed"], "loss_ratio": r.bottleneck["drop_rate"],
             "utilization": r.bottleneck["utilization"], "jain": r.jain, "mean_r": r.flows["mean_r"].mean()}
            for labels, r in ((lb, results[p.key]) for lb, p in runs)
        ]),  # fmt: skip
    }
    report = new_report(
        "hua02-jcc", TITLE, "Chapter 4", quick, out,
        [f"Dumbbells of 100 ms RTT, 50-packet buffers, 1000-byte packets; RED with old ns-2's defaults (min_th 5, max_th 15, q_w 0.002, "
         f"max_p 0.1, not gentle) as jcc-red (m = 8) under JCC and plain RED under Reno alone; JCC alpha 0 unless stated (pertlab.experiments.hua02). "
         f"{mode.duration} runs with metrics after {mode.warmup}, flows starting within the first second, unless stated. "
         f"Fig 4.10: 10 Mbit/s ({WIDE_FLOWS} flows on {WIDE_BW} too, and every point with gentle RED: pertlab's tests). Fig 4.8: 1 Mbit/s, four flows starting at 0, 50, 100, 150 s, "
         f"shares over the last 50 s of {mode.stagger_end_s} s (also with RED's q_w {FAST_Q_W}: pertlab's test). Figs 4.6, 4.7, 4.11, 4.13, 4.14 and Table 4.1: four flows from t = 0 on 1 Mbit/s "
         f"(the tables four_series, cwnd_zoom and jain_series are seed 1's, sampled every {SAMPLE_S} s). Fig 4.9: 1 Mbit/s, RTTs {', '.join(RTTS)}. "
         "Fig 4.15: two JCC and two Reno flows on 1 Mbit/s over jcc-red. Fig 4.12: Figure 3.1 (N = 11, as hua02-vegas) with JCC over jcc-red "
         "gateways, Vegas over DropTail beside it (one seed: its runs draw nothing at random). "
         f"Seeds {', '.join(map(str, mode.seeds))}; the tables give the mean over seeds (per_run has every run; scenarios.json keeps seed {mode.seeds[0]}'s "
         "scenarios, the others differ only in the seed). mean_r is the mean R the probing ACKs echoed in the window."],
    )  # fmt: skip
    report.tables.update(tables)
    report.claims = rep.claims(report.tables)
    return report


def _loss(runs: list[tuple[dict, object]]) -> pl.DataFrame:
    """Fig 4.10's runs: loss ratio and the share of the drops that were RED's forced drops
    (average above max_th, every arrival dropped), by controller, link rate, flows and RED mode."""
    return seed_mean([
        {"cc": lb["cc"], "bw_mbps": float(WIDE_BW.removesuffix("Mbps")) if lb["exp"] == "4.10 wide" else 10.0, "gentle": lb["exp"] == "4.10 gentle",
         "flows": lb["flows"], "seed": lb["seed"], "loss_ratio": r.bottleneck["drop_rate"],
         "forced_share": r.bottleneck["drops_forced"] / r.bottleneck["drops"] if r.bottleneck["drops"] else 0.0,
         "utilization": r.bottleneck["utilization"], "mean_r": r.flows["mean_r"].mean(),
         "timeouts_per_flow": r.flows["timeouts"].mean(), "jain": r.jain, "thesis_loss_ratio": rep.THESIS_LOSS_AT_40[lb["cc"]] if lb["flows"] == 40 and lb["exp"] == "4.10" else None}
        for lb, r in runs
    ], ["cc", "bw_mbps", "gentle", "flows"])  # fmt: skip


def _staggered(runs: list[tuple[dict, object]], mode: Mode) -> dict[str, pl.DataFrame]:
    shares, series = [], []
    for lb, r in runs:
        g = r.flow_goodput()
        last = g.filter(pl.col("t_s") > mode.stagger_end_s - 50)
        for flow, mbps in last.group_by("flow").agg(pl.col("mbps").mean()).sort("flow").rows():
            shares.append({"cc": lb["cc"], "flow": flow, "seed": lb["seed"], "start_s": 50 * flow, "goodput_kbps": mbps * 1e3,
                           "cv_10s": last.filter(pl.col("flow") == flow)["mbps"].std() / mbps, "utilization": r.bottleneck["utilization"]})  # fmt: skip
        if lb["seed"] == mode.seeds[0] and lb["cc"] != FAST_JCC:
            series.append(g.select(pl.lit(lb["cc"]).alias("cc"), "flow", "t_s", (pl.col("mbps") * 1e3).alias("kbps")))
    return {"staggered_shares": seed_mean(shares, ["cc", "flow"]), "staggered_series": pl.concat(series)}


def _binned(r, bin_s: float, since_s: float) -> pl.DataFrame:
    """Per flow and bin of ``bin_s`` seconds after ``since_s``: goodput (kbit/s), the window's
    least, mean and largest sample, and the mean of the R samples."""
    fs = r.flow_series.sort("flow", "t_s")
    gp = r.flow_goodput().select("flow", "t_s", "mbps")
    fs = fs.join(gp, on=["flow", "t_s"], how="left").filter(pl.col("t_s") > since_s)
    return (
        fs.with_columns(((pl.col("t_s") / bin_s).ceil() * bin_s).alias("bin_s"))
        .group_by("flow", "bin_s")
        .agg((pl.col("mbps").mean() * 1e3).alias("kbps"), pl.col("cwnd").min().alias("cwnd_min"), pl.col("cwnd").mean().alias("cwnd_mean"),
             pl.col("cwnd").max().alias("cwnd_max"), pl.col("r").mean().alias("r"))  # fmt: skip
        .sort("flow", "bin_s")
    )


def _jain_bins(binned: pl.DataFrame) -> pl.DataFrame:
    """Jain's index (eq. 4.5, :func:`pertlab.metrics.jain_index`) of the flows' goodputs in each
    bin; None in a bin where no flow delivered anything."""
    index = pl.col("kbps").map_elements(lambda kbps: jain_index(kbps.to_list()), return_dtype=pl.Float64)
    return binned.group_by("bin_s").agg(pl.col("kbps")).select("bin_s", index.alias("jain")).sort("bin_s")


def _four(runs: list[tuple[dict, object]], mode: Mode) -> dict[str, pl.DataFrame]:
    """Table 4.1 and the per-variant summary of the four-flow runs; seed 1's time series."""
    warm = float(mode.warmup.removesuffix("s"))
    end = float(mode.duration.removesuffix("s"))
    rows, series, zoom, jains = [], [], [], []
    for lb, r in runs:
        v = lb["variant"]
        row = {"variant": v, "seed": lb["seed"], "loss_ratio_pct": 100 * r.bottleneck["drop_rate"], "mean_r": r.flows["mean_r"].mean(),
               "utilization": r.bottleneck["utilization"], "jain": r.jain}  # fmt: skip
        if v in TRACED:
            b2 = _binned(r, 2.0, warm)
            fs = r.flow_series.filter(pl.col("t_s") > warm)
            q = fs.group_by("flow").agg(pl.col("cwnd").quantile(0.05).alias("lo"), pl.col("cwnd").quantile(0.95).alias("hi"))
            row |= {"cwnd_p5": q["lo"].mean(), "cwnd_p95": q["hi"].mean(), "jain_5s": _jain_bins(_binned(r, 5.0, warm))["jain"].mean(),
                    "cv_2s": b2.group_by("flow").agg(pl.col("kbps").std() / pl.col("kbps").mean())["kbps"].mean()}  # fmt: skip
            if lb["seed"] == mode.seeds[0]:
                series.append(_binned(r, 2.0, 0.0).with_columns(pl.lit(v).alias("variant")))
                zoom.append(r.flow_series.filter(pl.col("t_s") > end - 50).select(pl.lit(v).alias("variant"), "flow", "t_s", "cwnd"))
                jains.append(_jain_bins(_binned(r, 5.0, 0.0)).with_columns(pl.lit(v).alias("variant")))
        rows.append(row)
    summary = seed_mean(rows, ["variant"])
    by_seed = {v: [x["loss_ratio_pct"] for x in rows if x["variant"] == v] for v in FOUR}
    r_by_seed = {v: [x["mean_r"] for x in rows if x["variant"] == v] for v in FOUR}
    summary = summary.with_columns(
        pl.Series("loss_ratio_pct_by_seed", [", ".join(f"{x:.3g}" for x in by_seed[v]) for v in summary["variant"].to_list()]),
        pl.Series("mean_r_by_seed", [", ".join(f"{x:.3g}" if x is not None else "-" for x in r_by_seed[v]) for v in summary["variant"].to_list()]),
        pl.Series("thesis_mean_r", [rep.thesis_41(v, 0) for v in summary["variant"].to_list()], dtype=pl.Float64),
        pl.Series("thesis_loss_ratio_pct", [rep.thesis_41(v, 1) for v in summary["variant"].to_list()], dtype=pl.Float64),
    )
    return {"four_flows": summary, "four_series": pl.concat(series), "cwnd_zoom": pl.concat(zoom), "jain_series": pl.concat(jains)}


def _rtt_mix(runs: list[tuple[dict, object]]) -> pl.DataFrame:
    return seed_mean([{"cc": lb["cc"], "rtt_ms": float(RTTS[i].removesuffix("ms")), "seed": lb["seed"], "goodput_kbps": g * 1e3}
                      for lb, r in runs for i, g in enumerate(r.flows.sort("id")["goodput_mbps"].to_list())], ["cc", "rtt_ms"])  # fmt: skip


def _mix(runs: list[tuple[dict, object]]) -> pl.DataFrame:
    rows = []
    for lb, r in runs:
        per = r.flows.group_by("cc").agg(pl.col("goodput_mbps").mean() * 1e3)
        kbps = dict(per.rows())
        rows.append({"alpha": lb["alpha"], "seed": lb["seed"], "jcc_kbps": kbps["jcc"], "reno_kbps": kbps["reno"], "jcc_over_reno": kbps["jcc"] / kbps["reno"],
                     "utilization": r.bottleneck["utilization"]})  # fmt: skip
    return seed_mean(rows, ["alpha"])


def _lot(runs: list[tuple[dict, object]]) -> pl.DataFrame:
    rows = []
    for lb, r in runs:
        n = lb["x"]
        lot = h.LotRun(11, 10, tuple(10 if i < n else 0 for i in range(10))) if lb["exp"] == "4.12 hops" else h.LotRun.several(11, n)
        conns = {c["connection"]: c for c in h.lot_connections(lot, r.flows).iter_rows(named=True)}
        fair = 2e6 / (lot.flows + max(lot.cross))
        rows.append({"exp": lb["exp"], "cc": "vegas" if lb["exp"] == "4.12 vegas" else "jcc", "x": n, "seed": lb["seed"], "conn0_kbps": conns[0]["bps_per_flow"] / 1e3,
                     "conn1_kbps": conns[1]["bps_per_flow"] / 1e3 if 1 in conns else math.nan, "fair_kbps": fair / 1e3,
                     "conn0_mean_r": conns[0]["mean_r"], "conn1_mean_r": conns[1]["mean_r"] if 1 in conns else None})  # fmt: skip
    return seed_mean(rows, ["exp", "cc", "x"])


def _scenarios(quick: bool):
    """The scenarios of the mode's first seed (the others differ only in the seed; per_run lists every run)."""
    mode = QUICK if quick else FULL
    return wire_of([p for labels, p in _runs(mode) if labels["seed"] == mode.seeds[0]])


register(Entry("hua02-jcc", TITLE, f"{THESIS}, Chapter 4", _jcc, rep.figures, _scenarios,
               details=("per_run", "staggered_series", "four_series", "cwnd_zoom", "jain_series")))  # fmt: skip
