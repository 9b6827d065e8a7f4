"""Registry entry ``qian11-video-ramp``: pertlab's sweep of adaptive PERT's compete-mode alpha step
under the load of Qian's video study (2011, Chapter III.A, Fig 9).

Neither thesis says how fast alpha rises toward its compete-mode target 1 + p'/p (Kotla: "linearly",
every 5 RTTs; Qian: "increased linearly"; spec C8), and ``qian11-video`` finds that the speed
decides much of why PERT's streams fail there (its ramp claim: the default step, 0.1 per period,
against alpha at its target). This entry asks the question Fig 9 leaves: is there a step at which
PERT's streams do as the thesis says, at least as well as Reno's and CUBIC's at T/mu in
[1.4, 2.0]? It runs the main path of ``qian11-video`` (100 ms, 1000-byte packets) with PERT at each
step of :data:`pertlab.experiments.qian11_video.RAMP_STEPS`, and Reno and CUBIC beside them, at the
same loads and seeds. Each run's T/mu comes from a greedy probe of the same PERT, so a faster ramp
moves the probe's T as well as the streams. Figs 8 and 12 (success by the streams' own loss rate)
are judged at every step as ``qian11-video`` judges them for the default one."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..experiments import qian11_video as v
from ..parallel import Workers
from ..plots import saved_figure
from .qian11_video_entries import (
    FIG8_HIGH_TEXT, FIG8_LOW_TEXT, FIG12_TEXT, HIGH_LOSS, LOW_LOSS, Item, claim_bin, fig8_high, fig8_low, fig12, first_seed_scenarios,
    loss_success, loss_table, shown_by_loss, shown_in_bin, stream_summary, stream_table,
)  # fmt: skip
from .registry import Claim, Entry, Figure, Report, Wire, fmt_values, register

NAME = "qian11-video-ramp"
TITLE = "Fig 9 against the compete-mode alpha step (spec C8): PERT's video streams as alpha rises faster, beside Reno and CUBIC"
SOURCE = "Qian, MS thesis, 2011, Chapter III.A (Fig 9); Kotla, MS thesis, 2008, Chapter IV (the alpha ramp)"
QUICK = v.Setup("60s", "10s", "5s", (1,), ((25, 25), (30, 30)))
FULL = v.Setup(v.VIDEO_LENGTH, "30s", "5s", (1, 2, 3), ((20, 20), (25, 25), (30, 30), (35, 35)))
#: PERT at each step of the ramp, then the thesis's other two controllers.
PERT_RUNS = tuple(v.ramp_variant(step) for step in v.RAMP_STEPS)
RUNS = (*PERT_RUNS, "sack", "cubic")
#: How far a larger step's success may fall below a smaller one's before the sweep counts as
#: falling (a run's streams share its T/mu, so a load's success moves in steps).
FALL_SLACK = 0.05


def _items(setup: v.Setup) -> list[Item]:
    return [(cc, n, m, setup, seed, v.MAIN) for cc in RUNS for n, m in setup.loads for seed in setup.seeds]


def _scenarios(quick: bool) -> Wire:
    """One scenario per controller and load, at the first seed."""
    return first_seed_scenarios(_items(QUICK if quick else FULL))


def _steps_table(streams: pl.DataFrame) -> pl.DataFrame:
    """Per controller (PERT per step, then Reno and CUBIC): streams, success over all of them and at
    T/mu in Fig 9's range, mean T/mu, goodput, early responses per second, compete-mode seconds."""
    steps = {v.ramp_variant(step): step for step in v.RAMP_STEPS}
    return (
        stream_summary(streams, "cc", "streams", pl.col("compete_s").mean().alias("mean_compete_s"))
        .with_columns(pl.col("cc").replace_strict(steps, default=None, return_dtype=pl.Float64).alias("compete_step"), pl.col("cc").replace_strict({cc: i for i, cc in enumerate(RUNS)}).alias("order"))
        .sort("order").drop("order").select("cc", "compete_step", pl.exclude("cc", "compete_step"))
    )  # fmt: skip


def _run(quick: bool, out: Path, workers: Workers) -> Report:
    setup = QUICK if quick else FULL
    streams = stream_table(_items(setup), workers)
    steps = _steps_table(streams)
    report = Report(
        NAME, TITLE, SOURCE, "quick" if quick else "full", out,
        notes=[
            f"{setup.duration} runs{'' if setup.duration == v.VIDEO_LENGTH else f' (the thesis: {v.VIDEO_LENGTH})'}, seeds {fmt_values(list(setup.seeds))}; "
            f"(video streams, FTP flows) per run: {', '.join(f'({n}, {m})' for n, m in setup.loads)}; otherwise qian11-video's main path "
            f"(25 Mbit/s, {v.BUFFER_PKTS}-packet drop-tail buffer, RTT 100 ms, 1000-byte packets, {v.HTTP_SESSIONS} HTTP sessions, Reno FTP flows).",
            f"PERT is pert-adaptive with alpha's compete-mode step per 5-RTT period (`compete_step`) at {fmt_values(list(v.RAMP_STEPS))}: "
            f"{v.ramp_variant(v.RAMP_STEPS[0])} is the default (the third-party port's 0.1), {v.ALPHA_AT_TARGET} the step of alpha_max, which "
            "reaches any target at the end of the period (qian11-video's ramp claim). Nothing else changes; the greedy probe that gives "
            "a run's T/mu is the same PERT, so its T moves with the step too, and the streams of one step fall in other T/mu bins than "
            "those of another.",
            "Success: late fraction below 1e-4 over the run, as in qian11-video; table steps: per controller, the success over all its "
            "streams and over those at T/mu in Fig 9's range [1.4, 2.0). Table loss: per loss bin (a stream's own drop rate), controller "
            "and start-up delay, the success as qian11-video's Figs 8 and 12 claims read it; each of those claims holds here if it "
            "holds at some step.",
        ],
    )  # fmt: skip
    loss = loss_table(streams, RUNS)
    report.tables = {"steps": steps, "loss": loss, "streams": streams}
    report.claims = [_fig9_claim(streams), _no_fall_claim(steps), *_loss_claims(loss)]
    return report


def _fig9_claim(streams: pl.DataFrame) -> Claim:
    """Fig 9's statement at the step that suits PERT best."""
    lo, hi = v.CLAIM_BIN
    in_bin = claim_bin(streams)
    others = [in_bin[cc][0] for cc in ("sack", "cubic") if cc in in_bin]
    measured = len(others) == 2 and any(cc in in_bin for cc in PERT_RUNS)
    best = max((in_bin[cc][0] for cc in PERT_RUNS if cc in in_bin), default=float("nan"))
    return Claim(
        f"Fig 9 at the ramp that suits PERT best: at some compete-mode step, PERT's success fraction at T/mu in [{lo}, {hi}] is at least Reno's and CUBIC's.",
        measured and best >= max(others),
        "at T/mu in the range: " + "; ".join(shown_in_bin(in_bin, cc) for cc in RUNS),
    )


def _no_fall_claim(steps: pl.DataFrame) -> Claim:
    """pertlab: PERT's success over all its streams does not fall as the step grows."""
    pert = steps.filter(pl.col("compete_step").is_not_null())
    success = pert["success_fraction"].to_list()
    never_falls = all(b >= a - FALL_SLACK for a, b in zip(success, success[1:]))
    reno = steps.filter(pl.col("cc") == "sack")["success_fraction"].to_list()
    return Claim(
        f"pertlab: PERT's success over all its streams does not fall as the compete-mode step grows (no larger step more than {FALL_SLACK} "
        "below a smaller one), so the ramp's speed, which neither thesis gives, moves Fig 9 one way only.",
        never_falls,
        "success over all streams, by step: " + ", ".join(f"{s:g}: {x:.3g}" for s, x in zip(pert["compete_step"], success))
        + f"; Reno (sack) at the same loads {reno[0]:.3g}; mean T/mu by step: " + ", ".join(f"{s:g}: {t:.3g}" for s, t in zip(pert["compete_step"], pert["mean_t_mu"])),
    )


def _loss_claims(loss: pl.DataFrame) -> list[Claim]:
    """Figs 8 and 12, as qian11-video judges them, at the step that suits PERT best: each holds if
    it holds at some step (a stream's loss bin is its own drop rate, so each step's streams fall
    in the bins apart)."""
    low = {cc: loss_success(loss, LOW_LOSS, cc) for cc in PERT_RUNS}
    high = {cc: loss_success(loss, HIGH_LOSS, cc) for cc in RUNS}
    checks = [
        ("Fig 8", FIG8_LOW_TEXT, [cc for cc in PERT_RUNS if fig8_low(low[cc])], LOW_LOSS, PERT_RUNS),
        ("Fig 8", FIG8_HIGH_TEXT, [cc for cc in PERT_RUNS if fig8_high(high[cc], high["sack"])], HIGH_LOSS, (*PERT_RUNS, "sack")),
        ("Fig 12", FIG12_TEXT, [cc for cc in PERT_RUNS if fig12(high[cc], high["sack"], high["cubic"])], HIGH_LOSS, RUNS),
    ]
    return [
        Claim(f"{fig} at the ramp that suits PERT best: at some compete-mode step, {text}.", bool(steps),
              ("holds at " + ", ".join(steps) if steps else "holds at no step") + "; " + shown_by_loss(loss, bin_, ccs))
        for fig, text, steps, bin_, ccs in checks
    ]  # fmt: skip


def _figures(report: Report) -> list[Figure]:
    steps = report.tables["steps"]

    lo, hi = v.CLAIM_BIN
    in_range = f"T/mu in [{lo}, {hi})"

    def draw(path: Path) -> None:
        pert = steps.filter(pl.col("compete_step").is_not_null())
        with saved_figure(path, 1, 1, figsize=(8.5, 3.8), title="PERT's video success against the compete-mode alpha step") as (_, ax):
            ax.plot(pert["compete_step"].to_list(), pert["success_fraction"].to_list(), marker="o", color="C0", label="PERT, all streams")
            ax.plot(pert["compete_step"].to_list(), pert["success_in_range"].to_list(), marker="s", ls="--", color="C0", label=f"PERT, {in_range}")
            for cc, color in (("sack", "C2"), ("cubic", "C3")):
                row = steps.filter(pl.col("cc") == cc)
                ax.axhline(row["success_fraction"][0], color=color, ls=":", lw=1, label=f"{cc}, all streams")
                if row["success_in_range"][0] is not None:
                    ax.axhline(row["success_in_range"][0], color=color, ls="--", lw=1, label=f"{cc}, {in_range}")
            ax.set_xscale("log")
            ax.set(xlabel="alpha step per compete-mode period (log)", ylabel="success fraction", ylim=(-0.02, 1.02))
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))

    return [
        Figure(f"{NAME}.png", "The success fraction of PERT's streams against alpha's compete-mode step per 5-RTT period (the rightmost point is "
               "alpha_max: alpha at its target), over all streams (solid) and over those at T/mu in Fig 9's range (dashed; a step with none "
               "there has no point); horizontal lines: Reno's (sack) and CUBIC's streams at the same loads, all (dotted) and in the range (dashed).", draw),
    ]  # fmt: skip


register(Entry(NAME, TITLE, SOURCE, _run, _figures, _scenarios, details=("loss", "streams")))
