"""Registry entries of the PERT paper's congestion-predictor study (SIGCOMM 2007,
Section 2, Figures 2 to 4). The three share one set of runs, kept beside their report
folders in ``sigcomm07-predictors/runs/`` (:func:`sigcomm07_predictors.runs_dir`); each
reports its figure and evaluates the paper's claims, at the paper's 65 ms threshold and
again at P + 5 ms (P the tagged flow's least RTT; docs/predictors.md). The full mode runs
every case with seeds 1, 2 and 3 (the paper shows one run): claims are judged on the mean
over seeds, and their evidence gives the spread."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..experiments import sigcomm07_predictors as sp
from ..parallel import Workers
from ..sweep import INTERVAL
from .registry import Claim, Entry, Figure, Report, Wire, register

PAPER = "Bhandarkar et al., SIGCOMM 2007, Section 2"
EXISTING = ("vegas", "card", "tris", "dual", "cim")


def _report(key: str, title: str, quick: bool, out: Path, workers: Workers) -> tuple[Report, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    mode = sp.QUICK if quick else sp.FULL
    fig2, fig3, fig4 = sp.run_study(mode, out, workers)
    report = Report(
        name=f"sigcomm07-{key}",
        title=title,
        source=PAPER,
        mode=mode.name,
        out_dir=out,
        notes=[
            f"Cases {', '.join(f'{c} = {sp.CASES[c][0]} flows each way + {sp.CASES[c][1]} web sessions' for c in mode.cases)}; "
            f"{mode.duration_s} s per case, seeds {', '.join(map(str, mode.seeds))}, trace from {sp.SKIP_S:g} s; 100 Mbit/s / 20 ms bottleneck, 750-packet buffers, "
            f"tagged flow 60 ms, high RTT above {sp.THRESHOLD_MS:g} ms (the paper) and above P + {sp.MARGIN_MS:g} ms "
            f"(P the tagged flow's least RTT in the trace; predictors named NAME{sp.AT_P}). Losses 'at the queue' are the drops of the "
            "bottleneck queue on the tagged flow's data path (every flow's). See docs/predictors.md for every choice.",
        ],
    )
    out.mkdir(parents=True, exist_ok=True)
    return report, fig2, fig3, fig4


def _scenarios(quick: bool) -> Wire:
    """The study's runs, every case with every seed of the mode (the three figures share them)."""
    mode = sp.QUICK if quick else sp.FULL
    return {f"{p.values[0][1]}-seed{p.seed}": p.scenario.to_wire() for p in sp.points(mode)}


def _pm(value: float, half: float, digits: int = 3) -> str:
    """``value`` with its 95 % half-width over seeds, where there is one (several seeds)."""
    return f"{value:.{digits}f}" + (f" ± {half:.{digits}f}" if half == half else "")


def _scores(fig3: pl.DataFrame, metric: str) -> dict[str, tuple[float, float]]:
    """Per predictor, the mean of ``metric`` over cases and seeds and its half-width over seeds."""
    m = sp.fig3_means(fig3)
    return {r["predictor"]: (r[metric], r[f"{metric}_ci95"]) for r in m.iter_rows(named=True)}


def _fmt(d: dict[str, tuple[float, float]], digits: int = 3) -> str:
    return ", ".join(f"{k} {_pm(*v, digits)}" for k, v in sorted(d.items(), key=lambda kv: -kv[1][0]))


def _per_seed_rank(fig3: pl.DataFrame, metric: str, names: tuple[str, ...], best: str, pick) -> str:
    """In how many seeds ``best`` is ``pick`` (max or min) of ``names`` on ``metric`` (mean over the cases)."""
    per = sp.fig3_per_seed(fig3).filter(pl.col("predictor").is_in(names))
    seeds = sorted(per["seed"].unique().to_list())
    if len(seeds) < 2:
        return ""
    first = 0
    for s in seeds:
        rows = per.filter(pl.col("seed") == s)
        first += pick(rows.iter_rows(named=True), key=lambda r: r[metric])["predictor"] == best
    return f"; {best} first in {first} of {len(seeds)} seeds"


def _per_seed_pairs(fig3: pl.DataFrame, metric: str, a: str, b: str) -> str:
    """Per seed, ``a``'s and ``b``'s ``metric`` (mean over the cases), where there are several seeds."""
    per = sp.fig3_per_seed(fig3)
    seeds = sorted(per["seed"].unique().to_list())
    if len(seeds) < 2:
        return ""
    v = {(r["predictor"], r["seed"]): r[metric] for r in per.iter_rows(named=True)}
    return "; per seed: " + ", ".join(f"{v[(a, s)]:.3f} / {v[(b, s)]:.3f}" for s in seeds)


def _fig2(quick: bool, out: Path, workers: Workers) -> Report:
    report, fig2, fig3, _ = _report("fig2", "High RTT followed by loss: losses in the flow vs at the queue (Figure 2)", quick, out, workers)
    report.tables = {"fig2": fig2}
    eff = {(r["threshold"], r["case"], r["losses"]): r["efficiency"] for r in sp.fig2_means(fig2).iter_rows(named=True)}
    # Queue minus flow on the same seed: its mean and its range over seeds (the queue's losses include the flow's,
    # so the difference is not below 0 and a symmetric interval would say little).
    paired = fig2.pivot(on="losses", index=["case", "threshold", "seed"], values="efficiency").with_columns((pl.col("queue") - pl.col("flow")).alias("d"))
    diff = {
        (r["threshold"], r["case"]): (r["mean"], r["lo"], r["hi"])
        for r in paired.group_by("threshold", "case").agg(pl.col("d").mean().alias("mean"), pl.col("d").min().alias("lo"), pl.col("d").max().alias("hi")).iter_rows(named=True)
    }
    p = fig2.group_by("case").agg(pl.col("p_ms").min().alias("lo"), pl.col("p_ms").max().alias("hi"))
    p_ms = {r["case"]: f"{r['lo']:.1f}" if r["lo"] == r["hi"] else f"{r['lo']:.1f}-{r['hi']:.1f}" for r in p.iter_rows(named=True)}
    cases = fig2["case"].unique(maintain_order=True).to_list()
    seeds = fig2["seed"].n_unique()
    text = "The fraction of high-RTT periods that end in a loss is significantly higher with losses counted at the bottleneck queue than within the flow"

    def case(label: str, c: str) -> str:
        d, lo, hi = diff[(label, c)]
        spread = f", queue - flow {d:+.3f} (per seed {lo:+.3f} to {hi:+.3f})" if seeds > 1 else ""
        return f"{c}{f' (P = {p_ms[c]} ms)' if label != '65ms' else ''}: flow {eff[(label, c, 'flow')]:.3f}, queue {eff[(label, c, 'queue')]:.3f}{spread}"

    over = f"mean over {seeds} seeds, and queue - flow on the same seed: its mean and its range over the seeds; " if seeds > 1 else ""
    report.claims = [
        Claim(
            f"{text}{suffix}.",
            all(eff[(label, c, "queue")] > eff[(label, c, "flow")] for c in cases),
            over + "; ".join(case(label, c) for c in cases),
        )
        for label, suffix in (("65ms", ""), ("P+5ms", f" (high RTT read as above P + {sp.MARGIN_MS:g} ms, P the tagged flow's least RTT)"))
    ]
    return report


def _fig2_figures(report: Report) -> list[Figure]:
    fig2 = report.tables["fig2"]
    seeds = fig2["seed"].n_unique() if "seed" in fig2.columns else 1
    caption = ("Per case, the fraction of exits from a high-RTT period that end in a loss, counting the tagged flow's own losses "
               "or every loss at the bottleneck queue" + (f": the mean over {seeds} seeds. Error bars: {INTERVAL} ([0, 1])." if seeds > 1 else ".")
               + " The paper prints this figure as a plot only.")  # fmt: skip
    return [Figure("fig2.png", caption, lambda path: sp.plot_fig2(fig2, path))]


def _fig3(quick: bool, out: Path, workers: Workers) -> Report:
    report, _, fig3, _ = _report("fig3", "Prediction efficiency, false positives and false negatives of the predictors (Figure 3)", quick, out, workers)
    report.tables = {"fig3": fig3}
    eff, fn, fp = _scores(fig3, "efficiency"), _scores(fig3, "false_negatives"), _scores(fig3, "false_positives")
    existing_eff = {k: eff[k] for k in EXISTING}
    existing_fn = {k: fn[k] for k in EXISTING}
    seeds = fig3["seed"].n_unique()
    over = f"mean over the cases and {seeds} seeds ± 95 % interval over seeds: " if seeds > 1 else ""
    report.claims = [
        Claim(
            "Among the existing schemes Vegas has the highest prediction efficiency.",
            max(existing_eff, key=lambda k: existing_eff[k][0]) == "vegas",
            over + _fmt(existing_eff) + _per_seed_rank(fig3, "efficiency", EXISTING, "vegas", max),
        ),
        Claim(
            "Among the existing schemes Vegas has the lowest false negatives.",
            min(existing_fn, key=lambda k: existing_fn[k][0]) == "vegas",
            over + _fmt(existing_fn) + _per_seed_rank(fig3, "false_negatives", EXISTING, "vegas", min),
        ),
        *(
            claim
            for suffix, reading in (("", ""), (sp.AT_P, f" (threshold P + {sp.MARGIN_MS:g} ms)"))
            for claim in (
                Claim(
                    f"The instantaneous per-ACK RTT with a threshold predicts better than Vegas{reading}.",
                    eff["rtt" + suffix][0] > eff["vegas"][0],
                    f"{over}rtt{suffix} {_pm(*eff['rtt' + suffix])}, vegas {_pm(*eff['vegas'])}" + _per_seed_pairs(fig3, "efficiency", "rtt" + suffix, "vegas"),
                ),
                Claim(
                    f"srtt_0.99 has a high efficiency with few false positives (the paper: 0.7-1.5 %){reading}.",
                    eff["srtt_0.99" + suffix][0] >= eff["vegas"][0] and fp["srtt_0.99" + suffix][0] <= 0.015,
                    f"{over}efficiency {_pm(*eff['srtt_0.99' + suffix])} (vegas {_pm(*eff['vegas'])}), false positives {_pm(*fp['srtt_0.99' + suffix], 4)}",
                ),
            )
        ),
    ]
    return report


def _fig3_figures(report: Report) -> list[Figure]:
    fig3 = report.tables["fig3"]
    seeds = fig3["seed"].n_unique() if "seed" in fig3.columns else 1
    caption = ("Prediction efficiency, false positives and false negatives of each predictor, the mean over the cases"
               + (f" and {seeds} seeds" if seeds > 1 else "") + " (losses at the bottleneck queue)."
               + (f" Error bars: {INTERVAL}, of the per-seed means over the cases ([0, 1])." if seeds > 1 else "")
               + " The paper prints this figure as a plot only.")  # fmt: skip
    return [Figure("fig3.png", caption, lambda path: sp.plot_fig3(fig3, path))]


def _fig4(quick: bool, out: Path, workers: Workers) -> Report:
    report, _, fig3, fig4 = _report("fig4", "Bottleneck queue at the moments of false positives (Figure 4)", quick, out, workers)
    # Per predictor and seed: how many false positives, and the fraction of them with the queue below half the buffer.
    summary = (
        fig4.group_by("predictor", "seed", maintain_order=True)
        .agg(pl.len().alias("false_positives"), (pl.col("queue_norm") < 0.5).mean().alias("below_half"))
        .sort("predictor", "seed", maintain_order=True)
    )
    report.tables = {"fig4": fig4, "summary": summary}
    seeds = sorted(set(fig3["seed"].to_list()))
    per_seed = {}
    for r in summary.iter_rows(named=True):
        per_seed.setdefault(r["predictor"], {})[r["seed"]] = r["below_half"]
    # The mean over the seeds in which the predictor had false positives.
    below = {k: sum(v.values()) / len(v) for k, v in per_seed.items()}

    def evidence(mine: dict[str, float]) -> str:
        if len(seeds) == 1:
            return "fraction below half: " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(mine.items(), key=lambda kv: -kv[1]))
        return f"fraction below half, mean over the seeds with false positives (per seed {', '.join(map(str, seeds))}): " + ", ".join(
            f"{k} {v:.3f} (" + ", ".join(f"{per_seed[k][s]:.3f}" if s in per_seed[k] else "none" for s in seeds) + ")"
            for k, v in sorted(mine.items(), key=lambda kv: -kv[1])
        )

    report.claims = []
    for at_p, reading in ((False, ""), (True, f" (threshold P + {sp.MARGIN_MS:g} ms)")):
        mine = {k: v for k, v in below.items() if k.endswith(sp.AT_P) == at_p}
        report.claims.append(
            Claim(
                f"False positives occur mostly with the queue below 50 % of the buffer{reading}.",
                bool(mine) and all(v > 0.5 for v in mine.values()),
                evidence(mine) if mine else "no false positive of the RTT-based predictors to look at",
            )
        )
    return report


def _fig4_figures(report: Report) -> list[Figure]:
    fig4 = report.tables["fig4"]
    seeds = fig4["seed"].n_unique() if "seed" in fig4.columns else 1
    caption = ("Distribution of the bottleneck queue (fraction of the buffer) at the false positives of the RTT-based predictors"
               + (f", pooled over the cases and {seeds} seeds" if seeds > 1 else "")
               + "; the legend gives how many each had. The paper prints this figure as a plot only.")  # fmt: skip
    return [Figure("fig4.png", caption, lambda path: sp.plot_fig4(fig4, path))]


register(Entry("sigcomm07-fig2", "Figure 2: loss after high RTT, flow vs queue", PAPER, _fig2, _fig2_figures, _scenarios))
register(Entry("sigcomm07-fig3", "Figure 3: congestion predictors compared", PAPER, _fig3, _fig3_figures, _scenarios))
register(Entry("sigcomm07-fig4", "Figure 4: queue at false positives", PAPER, _fig4, _fig4_figures, _scenarios, details=("fig4",)))
