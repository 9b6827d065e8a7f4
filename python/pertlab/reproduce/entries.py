"""The registered reproductions. Each entry runs an experiment module of
:mod:`pertlab.experiments`, evaluates the document's claims on what it got, and
fills a :class:`~pertlab.reproduce.registry.Report`."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..experiments import tahiliani_ch3 as ch3
from .. import units
from ..parallel import Workers
from .registry import Claim, Entry, Report, rank_correlation, register

THESIS = "Tahiliani, PhD thesis, NITK 2013, Chapter 3"


def _ch3_flows(quick: bool, out: Path, workers: Workers) -> Report:
    mode = ch3.QUICK if quick else ch3.FULL
    runs = ch3.run_s3a(mode, workers=workers)
    comparison = ch3.compare_with_thesis(runs)
    report = Report(
        name="tahiliani-ch3-flows",
        title="ARED, Re-ARED, FARED and CARED against the number of flows (Tables 3.3-3.9)",
        source=f"{THESIS}, Section 3.3.1 (S3-A)",
        mode="quick" if quick else "full",
        out_dir=out,
        tables={"runs": runs, "comparison": comparison},
        scenarios={f"{k}-{n}": ch3.s3a_scenario(k, n, mode).to_wire() for k in ch3.CONTROLLERS for n in mode.flows},
        notes=[
            f"Runs of {mode.duration}, flows {', '.join(map(str, mode.flows))}, all starting at 0. "
            "Throughput is the bottleneck's (utilization x 10 Mbit/s, headers included); the thesis does not "
            "say which throughput it reports. See docs/reproductions.md for every choice.",
        ],
    )
    report.claims = _ch3_flow_claims(runs, comparison, mode)
    path = out / "versus_flows.png"
    out.mkdir(parents=True, exist_ok=True)
    ch3.plot_versus_flows(comparison, path)
    report.figures.append(path)
    return report


def _ch3_flow_claims(runs: pl.DataFrame, comparison: pl.DataFrame, mode: ch3.Mode) -> list[Claim]:
    def col(kind: str, name: str) -> list[float]:
        return comparison.filter(pl.col("controller") == kind).sort("flows")[name].to_list()

    drops = {k: col(k, "drop_percent") for k in ch3.CONTROLLERS}
    flows = comparison.filter(pl.col("controller") == "ared").sort("flows")["flows"].to_list()
    # "Grows": rank correlation with the number of flows of at least 0.9 (the
    # thesis's columns are strictly increasing; ours may dip by noise at high loads).
    rho = {k: rank_correlation(flows, v) for k, v in drops.items()}
    seeds = len(mode.seeds)
    return [
        Claim(
            "The drop rate of every controller grows with the number of flows (Tables 3.4, 3.6, 3.9).",
            all(r >= 0.9 for r in rho.values()),
            "; ".join(f"{ch3.LABELS[k]} (rank corr. {rho[k]:.2f}): " + ", ".join(f"{d:.2f}" for d in v) + " %" for k, v in drops.items()),
        ),
        *_cared_drop_claims(runs, flows, seeds),
        *_scenario1_claims(runs, flows, units.parse_time(mode.duration) / 1e9),
    ]


def _cared_drop_claims(runs: pl.DataFrame, flows: list[int], seeds: int) -> list[Claim]:
    """Table 3.9's comparison, judged on CARED's drop rate minus ARED's and Re-ARED's on
    the same seed (paired 95 % intervals over seeds) rather than on one run each."""
    d = ch3.paired_differences(runs, "drop_percent", "cared", ("ared", "reared")).sort("flows")
    cols = ("cared_minus_ared", "cared_minus_reared")
    above = [r["flows"] for r in d.iter_rows(named=True) if any(r[c] - r[f"{c}_ci95"] > 0 for c in cols)]
    below = [r["flows"] for r in d.iter_rows(named=True) if all(r[c] + r[f"{c}_ci95"] < 0 for c in cols)]
    spread = runs.filter(pl.col("controller") == "ared").group_by("flows").agg(pl.col("drop_percent").std()).sort("flows")
    evidence = (
        "; ".join(f"CARED - {ch3.LABELS[c.rsplit('_', 1)[1]]}: " + ", ".join(f"{m:+.2f}±{h:.2f}" for m, h in zip(d[c], d[f"{c}_ci95"])) for c in cols)
        + f" points at {flows} flows ({seeds} seeds); ARED's own seed-to-seed standard deviation: "
        + ", ".join(f"{x:.2f}" for x in spread["drop_percent"])
        + " (the thesis's largest difference is 0.51)"
    )
    return [
        Claim(
            f"CARED's drop rate is not above ARED's and Re-ARED's (Table 3.9, Section 3.5.3): at no flow count is it "
            f"significantly higher (paired 95 % interval over {seeds} seeds).",
            not above,
            f"significantly higher at {above or 'no'} flow counts; {evidence}",
        ),
        Claim(
            "CARED \"consistently minimizes the packet drop rate\" (Section 3.5.3): significantly below both at every flow count.",
            len(below) == len(flows),
            f"significantly below both at {below or 'no'} flow counts",
        ),
    ]


def _scenario1_claims(runs: pl.DataFrame, flows: list[int], run_s: float) -> list[Claim]:
    """Scenario 1 (Figs. 3.2, 3.3, 3.12-3.14, 3.18-3.21): the common start of all flows is a
    sharp increase in load; how long each controller leaves the average above the band."""
    ret = ch3.mean_return_times(runs, run_s)
    t = {k: ret.filter(pl.col("controller") == k).sort("flows")["return_s"].to_list() for k in ch3.CONTROLLERS}
    evidence = "; ".join(f"{ch3.LABELS[k]}: " + ", ".join(f"{x:.1f}" for x in v) for k, v in t.items()) + f" s at {flows} flows"
    rho = rank_correlation(flows, t["ared"])
    reared = runs.filter(pl.col("controller") == "reared")
    adv = reared.group_by("flows").agg(pl.col("reared_step_advantage").mean()).sort("flows")["reared_step_advantage"].to_list()
    # "Many flows": the upper half of the thesis's flow counts ("even when the number of FTP flows is large").
    many = range(len(flows) // 2, len(flows))
    return [
        Claim(
            "As the number of flows grows, ARED leaves the average above the target longer (Figs. 3.2, 3.3).",
            rho >= 0.9,
            f"rank corr. {rho:.2f}; mean time until the average is back at or below {ch3.TARGET_BAND[1]:g} packets: {evidence}",
        ),
        Claim(
            f"With many flows ({flows[many[0]]}..{flows[-1]}), Re-ARED brings the average back faster than ARED, and CARED "
            "is faster than ARED and slower than Re-ARED (Figs. 3.2, 3.3, 3.21).",
            all(t["reared"][i] < t["cared"][i] < t["ared"][i] for i in many),
            evidence,
        ),
        Claim(
            "ARED brings the average back first exactly where Re-ARED's increase of max_p is the smaller of the two for "
            "most of the climb (pertlab's explanation of the order; docs/reproductions.md).",
            all((adv[i] < 0.5) == (t["ared"][i] < t["reared"][i]) for i in range(len(flows))),
            "share of Re-ARED's climb with the larger step: " + ", ".join(f"{a:.2f}" for a in adv) + f" at {flows} flows; {evidence}",
        ),
        Claim("FARED converges much more slowly than Re-ARED (Figs. 3.12-3.14).", all(f > 2 * r for f, r in zip(t["fared"], t["reared"])), evidence),
    ]


#: A larger load step than the thesis's, to test the explanation of its order (docs/reproductions.md).
LARGER_STEP_FLOWS = 60


def _sharp_increase_runs(seeds: tuple[int, ...], joining: int, controllers, workers: Workers) -> tuple[pl.DataFrame, pl.DataFrame, dict]:
    """Per-run rows, per-controller means and seed 1's series of S3-4 with ``joining`` flows."""
    rows, first = [], None
    for seed in seeds:
        series = ch3.run_sharp_increase(controllers, seed=seed, workers=workers, joining=joining)
        first = first or series
        for kind, s in series.items():
            back_s = ch3.return_time(s)
            rows.append(
                {"controller": kind, "joining": joining, "seed": seed, "return_s": back_s,
                 "excess_pkts": ch3.excess_after_step(s), "reared_step_advantage": ch3.reared_step_advantage(s, back_s)}
            )  # fmt: skip
    runs = pl.DataFrame(rows, schema_overrides={"return_s": pl.Float64, "reared_step_advantage": pl.Float64})
    means = ch3.mean_return_times(runs, ch3.STEP_RUN_S - ch3.STEP_AT_S, by=("controller",)).join(
        runs.group_by("controller").agg(pl.col("excess_pkts", "reared_step_advantage").mean()), on="controller"
    ).sort("controller")
    return runs, means, first


def _ch3_sharp_increase(quick: bool, out: Path, workers: Workers) -> Report:
    seeds = tuple(range(1, 11 if quick else 31))
    runs, means, first = _sharp_increase_runs(seeds, ch3.STEP_FLOWS, ch3.CONTROLLERS, workers)
    larger_runs, larger, _ = _sharp_increase_runs(seeds, LARGER_STEP_FLOWS, ("ared", "reared", "cared"), workers)
    ret = dict(zip(means["controller"], means["return_s"]))
    never = dict(zip(means["controller"], means["never"]))
    adv = float(means.filter(pl.col("controller") == "reared")["reared_step_advantage"].item())
    ret_larger = dict(zip(larger["controller"], larger["return_s"]))
    adv_larger = float(larger.filter(pl.col("controller") == "reared")["reared_step_advantage"].item())
    report = Report(
        name="tahiliani-ch3-sharp-increase",
        title="Sharp increase in congestion: 20 flows join at 25 s (Figs. 3.8, 3.9, 3.15, 3.24)",
        source=f"{THESIS}, Section 3.3 Scenario 4",
        mode="quick" if quick else "full",
        out_dir=out,
        tables={"runs": pl.concat([runs, larger_runs]), "means": means, f"means_{LARGER_STEP_FLOWS}_joining": larger},
        scenarios={
            **{k: ch3.sharp_increase_scenario(k).to_wire() for k in ch3.CONTROLLERS},
            **{f"{k}-{LARGER_STEP_FLOWS}-joining": ch3.sharp_increase_scenario(k, joining=LARGER_STEP_FLOWS).to_wire() for k in larger["controller"]},
        },
        notes=[
            f"return_s: seconds after the step until the 1-s moving mean of RED's average, having risen above "
            f"{ch3.TARGET_BAND[1]:g} packets, is back at or below it (empty if it never is; the means count such a run "
            f"as the {ch3.STEP_RUN_S - ch3.STEP_AT_S:g} s it had); excess_pkts: mean of (average - {ch3.TARGET_BAND[1]:g}) where positive, "
            f"over the {ch3.EXCESS_WINDOW_S:g} s after the step. Seeds: "
            + ", ".join(map(str, seeds))
            + ". The thesis states neither the bandwidth nor the RTT of this scenario; S3-A's 10 Mbps / 80 ms is used. "
            f"means_{LARGER_STEP_FLOWS}_joining: the same with {LARGER_STEP_FLOWS} joining flows instead of {ch3.STEP_FLOWS}, "
            "a test of the explanation of the order (not in the thesis).",
        ],
    )
    evidence = f"mean return time by controller: {_fmt(ret)} s; runs that never return: {_fmt(never)}"
    report.claims = [
        Claim("FARED fails to bring the average back to the target (Fig. 3.15).", max(ret, key=ret.get) == "fared", evidence),
        Claim("Re-ARED brings the average back faster than ARED (ARED takes 5 s longer; Figs. 3.8, 3.9).", ret["reared"] < ret["ared"], evidence),
        Claim("CARED is faster than ARED and slower than Re-ARED (Fig. 3.24).", ret["reared"] < ret["cared"] < ret["ared"], evidence),
        Claim(
            "Re-ARED's increase of max_p is the smaller of the two rules' for most of its climb back, which is why it is "
            "the slower one here (pertlab's explanation; docs/reproductions.md).",
            adv < 0.5,
            f"share of Re-ARED's climb with the larger step: {adv:.2f}",
        ),
        Claim(
            f"With {LARGER_STEP_FLOWS} joining flows instead of {ch3.STEP_FLOWS}, Re-ARED's step is the larger one for most of "
            "its climb and the thesis's order appears: Re-ARED back first, CARED next, ARED last (pertlab's test of "
            "the explanation).",
            adv_larger > 0.5 and ret_larger["reared"] < ret_larger["cared"] < ret_larger["ared"],
            f"mean return time: {_fmt(ret_larger)} s; share of Re-ARED's climb with the larger step: {adv_larger:.2f}",
        ),
    ]
    path = out / "average_queue.png"
    out.mkdir(parents=True, exist_ok=True)
    ch3.plot_average_queue(first, path, f"20 flows join at {ch3.STEP_AT_S:g} s (seed 1)")
    report.figures.append(path)
    return report


def _ch3_sharp_decrease(quick: bool, out: Path, workers: Workers) -> Report:
    seeds = (1, 2, 3) if quick else tuple(range(1, 11))
    runs = ch3.run_sharp_decrease(seeds=seeds, workers=workers)
    means = runs.group_by("controller", maintain_order=True).agg(pl.all().exclude("seed").mean())
    m = {r["controller"]: r for r in means.iter_rows(named=True)}
    report = Report(
        name="tahiliani-ch3-sharp-decrease",
        title="Sharp decrease in congestion: 20 of 22 flows stop from 25 s (Figs. 3.10, 3.11, 3.16, 3.25)",
        source=f"{THESIS}, Section 3.3 Scenario 5",
        mode="quick" if quick else "full",
        out_dir=out,
        tables={"runs": runs, "means": means},
        scenarios={k: ch3.sharp_decrease_scenario(k).to_wire() for k in ch3.CONTROLLERS},
        notes=[
            "The thesis only says the experiment of Scenario 4 is repeated with congestion decreasing sharply; "
            "this is its mirror image (22 long flows, 20 stop one every 0.1 s from 25 s), at 10 Mbps / 80 ms. "
            "Metrics over the 10 s after the first stop: bottleneck utilization, lowest RED average, fraction of "
            "samples (every 10 ms) with an empty queue. Seeds: " + ", ".join(map(str, seeds)) + ".",
        ],
    )
    report.claims = [
        Claim(
            "With Re-ARED the queue empties and the link is under-used for a few seconds, while ARED keeps the queue utilised (Figs. 3.10, 3.11).",
            m["reared"]["utilization"] < m["ared"]["utilization"] and m["reared"]["empty_fraction"] > m["ared"]["empty_fraction"],
            "utilization / empty fraction: " + ", ".join(f"{ch3.LABELS[k]} {m[k]['utilization']:.3f} / {m[k]['empty_fraction']:.2f}" for k in ch3.CONTROLLERS),
        ),
        Claim(
            "CARED does not let the average queue fall to 0 (Fig. 3.25).",
            m["cared"]["min_avg_pkts"] > 0.5,
            "lowest average: " + ", ".join(f"{ch3.LABELS[k]} {m[k]['min_avg_pkts']:.2f}" for k in ch3.CONTROLLERS),
        ),
    ]
    return report


#: Settling time and run length of Scenarios 2 and 3. Quick mode runs the full length too: the
#: oscillation differences the thesis describes are about 5 % of the standard deviation, below
#: what a 25 s window (100 RTTs) resolves (with 40 s runs ARED and Re-ARED swap places at 13.70
#: and 13.85 packets). 100 s runs take ~2 s.
S2_DURATION, S2_SETTLE = "100s", 20.0
S2_BAND = (ch3.S32_MIN_TH + 0.4 * (ch3.S32_MAX_TH - ch3.S32_MIN_TH), ch3.S32_MIN_TH + 0.6 * (ch3.S32_MAX_TH - ch3.S32_MIN_TH))


def _fixed_flow_statistics(background: bool, workers: Workers) -> tuple[dict[str, pl.DataFrame], pl.DataFrame]:
    series = ch3.run_fixed_flows(duration=S2_DURATION, workers=workers, background=background)
    rows = []
    for kind, s in series.items():
        w = s.filter(pl.col("t_s") >= S2_SETTLE)
        rows.append({
            "controller": kind, "avg_mean_pkts": float(w["avg"].mean()), "avg_std_pkts": float(w["avg"].std()),
            "in_band": float(w["avg"].is_between(*S2_BAND).mean()),
            "max_p_mean": float(w["max_p"].mean()), "max_p_std": float(w["max_p"].std()),
        })  # fmt: skip
    return series, pl.DataFrame(rows)


def _fixed_flow_report(name: str, title: str, scenario: str, background: bool, quick: bool, out: Path, stats: pl.DataFrame, series) -> Report:
    what = "100 fixed flows" + (" with background traffic" if background else "")
    report = Report(
        name=name,
        title=title,
        source=f"{THESIS}, Section 3.3 {scenario}",
        mode="quick" if quick else "full",
        out_dir=out,
        tables={"statistics": stats},
        scenarios={k: ch3.fixed_flows_scenario(k, duration=S2_DURATION, background=background).to_wire() for k in ch3.CONTROLLERS},
        notes=[
            f"15 Mbps, 250 ms RTT, 100 FTP flows starting within the first second, min_th 20, max_th 80, "
            f"a {ch3.S32_BUFFER_PKTS}-packet buffer (not stated in the thesis), {S2_DURATION} runs; statistics over "
            f"t >= {S2_SETTLE:g} s. ARED's and CARED's band is [{S2_BAND[0]:g}, {S2_BAND[1]:g}] packets (in_band: the "
            "fraction of samples of the average inside it); Re-ARED's and FARED's is the narrower [0.48, 0.52] band."
            + (f" Background: {ch3.S33_WEB_SESSIONS} web sessions (ns-2 WebTraf defaults) and one long reverse flow." if background else ""),
        ],
    )
    out.mkdir(parents=True, exist_ok=True)
    report.figures.append(out / "average_queue.png")
    ch3.plot_average_queue(series, report.figures[-1], what, band=S2_BAND)
    report.figures.append(out / "max_p.png")
    ch3.plot_max_p(series, report.figures[-1], f"max_p, {what}")
    return report


def _ch3_fixed_flows(quick: bool, out: Path, workers: Workers) -> Report:
    series, stats = _fixed_flow_statistics(False, workers)
    st = {r["controller"]: r for r in stats.iter_rows(named=True)}
    report = _fixed_flow_report(
        "tahiliani-ch3-fixed-flows", "Fixed long flows, no background traffic: average queue and max_p (Figs. 3.4, 3.5, 3.22, 3.26-3.28)",
        "Scenario 2", False, quick, out, stats, series,
    )  # fmt: skip
    std = {k: st[k]["avg_std_pkts"] for k in ch3.CONTROLLERS}
    report.claims = [
        Claim(
            "ARED and Re-ARED stabilise the average around the target (Figs. 3.4, 3.5).",
            all(S2_BAND[0] <= st[k]["avg_mean_pkts"] <= S2_BAND[1] for k in ("ared", "reared")),
            "mean average: " + ", ".join(f"{ch3.LABELS[k]} {st[k]['avg_mean_pkts']:.1f}" for k in ch3.CONTROLLERS),
        ),
        Claim("Re-ARED's average oscillates less than ARED's (narrower target).", std["reared"] < std["ared"], "std of the average: " + _fmt(std)),
        Claim(
            "CARED's oscillations are smaller than ARED's and slightly larger than Re-ARED's (Fig. 3.22).",
            std["reared"] < std["cared"] < std["ared"],
            "std of the average: " + _fmt(std),
        ),
        Claim(
            "CARED's max_p shows minimal variations (Figs. 3.26-3.28).",
            min(st, key=lambda k: st[k]["max_p_std"]) == "cared",
            "std of max_p: " + _fmt({k: st[k]["max_p_std"] for k in ch3.CONTROLLERS}),
        ),
    ]
    return report


def _ch3_background(quick: bool, out: Path, workers: Workers) -> Report:
    series, stats = _fixed_flow_statistics(True, workers)
    _, quiet = _fixed_flow_statistics(False, workers)
    st = {r["controller"]: r for r in stats.iter_rows(named=True)}
    q = {r["controller"]: r for r in quiet.iter_rows(named=True)}
    report = _fixed_flow_report(
        "tahiliani-ch3-background", "Fixed long flows with web and reverse traffic: average queue and max_p (Figs. 3.6, 3.7, 3.23, 3.29-3.31)",
        "Scenario 3", True, quick, out, stats, series,
    )  # fmt: skip
    report.tables["without_background"] = quiet
    std = {k: st[k]["avg_std_pkts"] for k in ch3.CONTROLLERS}
    band = {k: st[k]["in_band"] for k in ch3.CONTROLLERS}
    report.claims = [
        Claim(
            "ARED keeps the average inside the target band, with a few irregularities (Fig. 3.6).",
            band["ared"] >= 0.5,
            "fraction of time in ARED's band: " + _fmt(band),
        ),
        Claim(
            "Re-ARED oscillates out of the target: with the reverse traffic its average varies more than ARED's (Fig. 3.7).",
            std["reared"] > std["ared"],
            "std of the average: " + _fmt(std),
        ),
        Claim("CARED stays within the target apart from a few irregularities (Fig. 3.23).", band["cared"] >= 0.5, "fraction of time in the band: " + _fmt(band)),
        Claim(
            "CARED's max_p varies least and is not largely affected by background traffic (Figs. 3.29-3.31).",
            min(st, key=lambda k: st[k]["max_p_std"]) == "cared" and st["cared"]["max_p_std"] <= 2 * q["cared"]["max_p_std"],
            "std of max_p with / without background: "
            + ", ".join(f"{ch3.LABELS[k]} {st[k]['max_p_std']:.4f} / {q[k]['max_p_std']:.4f}" for k in ch3.CONTROLLERS),
        ),
    ]
    return report


def _fmt(values: dict[str, float]) -> str:
    return ", ".join(f"{ch3.LABELS[k]} {v:.4g}" for k, v in sorted(values.items(), key=lambda kv: kv[1]))


register(Entry("tahiliani-ch3-flows", "Tables 3.3-3.9: throughput and drop rate, 10..100 flows", THESIS, _ch3_flows))
register(Entry("tahiliani-ch3-fixed-flows", "Scenario 2: 100 fixed flows, average queue and max_p", THESIS, _ch3_fixed_flows))
register(Entry("tahiliani-ch3-background", "Scenario 3: fixed flows with web and reverse traffic", THESIS, _ch3_background))
register(Entry("tahiliani-ch3-sharp-increase", "Scenario 4: sharp increase in congestion", THESIS, _ch3_sharp_increase))
register(Entry("tahiliani-ch3-sharp-decrease", "Scenario 5: sharp decrease in congestion", THESIS, _ch3_sharp_decrease))
