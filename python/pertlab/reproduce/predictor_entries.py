"""Registry entries of the PERT paper's congestion-predictor study (SIGCOMM 2007,
Section 2, Figures 2 to 4). The three share one set of runs, kept beside their report
folders in ``sigcomm07-predictors/runs/`` (:func:`sigcomm07_predictors.runs_dir`); each
reports its figure and evaluates the paper's claims, at the paper's 65 ms threshold and
again at P + 5 ms (P the tagged flow's least RTT; docs/predictors.md)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..experiments import sigcomm07_predictors as sp
from ..parallel import Workers
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
            f"{mode.duration_s} s per case, trace from {sp.SKIP_S:g} s; 100 Mbit/s / 20 ms bottleneck, 750-packet buffers, "
            f"tagged flow 60 ms, high RTT above {sp.THRESHOLD_MS:g} ms (the paper) and above P + {sp.MARGIN_MS:g} ms "
            f"(P the tagged flow's least RTT in the trace; predictors named NAME{sp.AT_P}). Losses 'at the queue' are the drops of the "
            "bottleneck queue on the tagged flow's data path (every flow's). See docs/predictors.md for every choice.",
        ],
    )
    out.mkdir(parents=True, exist_ok=True)
    return report, fig2, fig3, fig4


def _scenarios(quick: bool) -> Wire:
    """The study's cases (the three figures share them)."""
    mode = sp.QUICK if quick else sp.FULL
    return {c: sp.case_scenario(c, mode).to_wire() for c in mode.cases}


def _mean(fig3: pl.DataFrame, metric: str) -> dict[str, float]:
    m = fig3.group_by("predictor").agg(pl.col(metric).mean())
    return dict(zip(m["predictor"], m[metric]))


def _fmt(d: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.3f}" for k, v in sorted(d.items(), key=lambda kv: -kv[1]))


def _fig2(quick: bool, out: Path, workers: Workers) -> Report:
    report, fig2, fig3, _ = _report("fig2", "High RTT followed by loss: losses in the flow vs at the queue (Figure 2)", quick, out, workers)
    report.tables = {"fig2": fig2}
    eff = {(r["threshold"], r["case"], r["losses"]): r["efficiency"] for r in fig2.iter_rows(named=True)}
    p_ms = {r["case"]: r["p_ms"] for r in fig2.iter_rows(named=True)}
    cases = fig2["case"].unique(maintain_order=True).to_list()
    text = "The fraction of high-RTT periods that end in a loss is significantly higher with losses counted at the bottleneck queue than within the flow"
    report.claims = [
        Claim(
            f"{text}{suffix}.",
            all(eff[(label, c, "queue")] > eff[(label, c, "flow")] for c in cases),
            "; ".join(f"{c}{f' (P = {p_ms[c]:.1f} ms)' if label != '65ms' else ''}: flow {eff[(label, c, 'flow')]:.3f}, queue {eff[(label, c, 'queue')]:.3f}" for c in cases),
        )
        for label, suffix in (("65ms", ""), ("P+5ms", f" (high RTT read as above P + {sp.MARGIN_MS:g} ms, P the tagged flow's least RTT)"))
    ]
    return report


def _fig2_figures(report: Report) -> list[Figure]:
    fig2 = report.tables["fig2"]
    caption = ("Per case, the fraction of exits from a high-RTT period that end in a loss, counting the tagged flow's own losses "
               "or every loss at the bottleneck queue. The paper prints this figure as a plot only.")  # fmt: skip
    return [Figure("fig2.png", caption, lambda path: sp.plot_fig2(fig2, path))]


def _fig3(quick: bool, out: Path, workers: Workers) -> Report:
    report, _, fig3, _ = _report("fig3", "Prediction efficiency, false positives and false negatives of the predictors (Figure 3)", quick, out, workers)
    report.tables = {"fig3": fig3}
    eff, fn, fp = _mean(fig3, "efficiency"), _mean(fig3, "false_negatives"), _mean(fig3, "false_positives")
    existing_eff = {k: eff[k] for k in EXISTING}
    existing_fn = {k: fn[k] for k in EXISTING}
    report.claims = [
        Claim("Among the existing schemes Vegas has the highest prediction efficiency.", max(existing_eff, key=existing_eff.get) == "vegas", _fmt(existing_eff)),
        Claim("Among the existing schemes Vegas has the lowest false negatives.", min(existing_fn, key=existing_fn.get) == "vegas", _fmt(existing_fn)),
        *(
            claim
            for suffix, reading in (("", ""), (sp.AT_P, f" (threshold P + {sp.MARGIN_MS:g} ms)"))
            for claim in (
                Claim(
                    f"The instantaneous per-ACK RTT with a threshold predicts better than Vegas{reading}.",
                    eff["rtt" + suffix] > eff["vegas"],
                    f"rtt{suffix} {eff['rtt' + suffix]:.3f}, vegas {eff['vegas']:.3f}",
                ),
                Claim(
                    f"srtt_0.99 has a high efficiency with few false positives (the paper: 0.7-1.5 %){reading}.",
                    eff["srtt_0.99" + suffix] >= eff["vegas"] and fp["srtt_0.99" + suffix] <= 0.015,
                    f"efficiency {eff['srtt_0.99' + suffix]:.3f}, false positives {fp['srtt_0.99' + suffix]:.4f}",
                ),
            )
        ),
    ]
    return report


def _fig3_figures(report: Report) -> list[Figure]:
    fig3 = report.tables["fig3"]
    caption = ("Prediction efficiency, false positives and false negatives of each predictor, the mean over the cases (losses at "
               "the bottleneck queue). The paper prints this figure as a plot only.")  # fmt: skip
    return [Figure("fig3.png", caption, lambda path: sp.plot_fig3(fig3, path))]


def _fig4(quick: bool, out: Path, workers: Workers) -> Report:
    report, _, fig3, fig4 = _report("fig4", "Bottleneck queue at the moments of false positives (Figure 4)", quick, out, workers)
    summary = fig4.group_by("predictor", maintain_order=True).agg(pl.len().alias("false_positives"), (pl.col("queue_norm") < 0.5).mean().alias("below_half"))
    report.tables = {"fig4": fig4, "summary": summary}
    below = dict(zip(summary["predictor"], summary["below_half"]))
    report.claims = []
    for at_p, reading in ((False, ""), (True, f" (threshold P + {sp.MARGIN_MS:g} ms)")):
        mine = {k: v for k, v in below.items() if k.endswith(sp.AT_P) == at_p}
        report.claims.append(
            Claim(
                f"False positives occur mostly with the queue below 50 % of the buffer{reading}.",
                bool(mine) and all(v > 0.5 for v in mine.values()),
                ("fraction below half: " + _fmt(mine)) if mine else "no false positive of the RTT-based predictors to look at",
            )
        )
    return report


def _fig4_figures(report: Report) -> list[Figure]:
    fig4 = report.tables["fig4"]
    caption = ("Distribution of the bottleneck queue (fraction of the buffer) at the false positives of the RTT-based predictors; "
               "the legend gives how many each had. The paper prints this figure as a plot only.")  # fmt: skip
    return [Figure("fig4.png", caption, lambda path: sp.plot_fig4(fig4, path))]


register(Entry("sigcomm07-fig2", "Figure 2: loss after high RTT, flow vs queue", PAPER, _fig2, _fig2_figures, _scenarios))
register(Entry("sigcomm07-fig3", "Figure 3: congestion predictors compared", PAPER, _fig3, _fig3_figures, _scenarios))
register(Entry("sigcomm07-fig4", "Figure 4: queue at false positives", PAPER, _fig4, _fig4_figures, _scenarios, details=("fig4",)))
