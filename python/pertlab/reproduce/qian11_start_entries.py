"""Registry entry ``qian11-video-start``: pertlab's test of one more reading of why PERT's video
streams fail in ``qian11-video`` (Qian 2011, Chapter III.A, Fig 9): the order in which the flows
start, which the thesis does not give.

PERT's queueing-delay estimate is its smoothed RTT less the smallest RTT sample it has seen
(``pert_signal::DelaySignal``). In ``qian11-video`` every flow starts within the first 10 s, so a
stream may sample the path before the Reno FTP flows fill the 150-packet buffer, learn the true
propagation delay, and then see the standing queue as tens of ms of queueing: early responses about
once per RTT. Had the thesis's streams started after the FTP flows filled the buffer, their smallest
sample might have carried a standing queue and their estimate stayed low. This entry runs the main
path of ``qian11-video`` with the streams and the T/mu probe starting in [30, 40] s, after the FTP
flows and the web sessions (still in [0, 10] s), for PERT, Reno and CUBIC, and PERT with every flow
starting in [0, 10] s beside them, at the same loads and seeds. Both runs of PERT start measuring at
the same time (a warm-up of :data:`WARMUP`)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..experiments import qian11_video as v
from ..parallel import Workers
from ..plots import saved_figure
from .qian11_video_entries import Item, claim_bin, first_seed_scenarios, shown_in_bin, stream_table
from .registry import Claim, Entry, Figure, Report, Wire, fmt_values, register

NAME = "qian11-video-start"
TITLE = "Fig 9 against the order of starts: PERT's, Reno's and CUBIC's video streams starting after the FTP flows have filled the buffer"
SOURCE = "Qian, MS thesis, 2011, Chapter III.A (Fig 9, Table I)"
#: When the streams and the probe start in the late runs (within 10 s of it); the window starts
#: after them in both orders.
LATE = v.PathSetup(streams_start_s=30)
WARMUP = "45s"
QUICK = v.Setup("120s", WARMUP, "5s", (1,), ((25, 25), (30, 30)))
FULL = v.Setup(v.VIDEO_LENGTH, WARMUP, "5s", (1, 2, 3), ((20, 20), (25, 25), (30, 30), (35, 35)))
#: (controller, path) of every run: PERT in both orders, Reno and CUBIC with the streams last.
RUNS = (("pert-adaptive", v.MAIN), ("pert-adaptive", LATE), ("sack", LATE), ("cubic", LATE))
#: How far the late-start PERT streams' early responses per second may be from the early-start
#: ones' at a load (relative) for the claim that the order does not decide them.
SAME_WITHIN = 0.10


def _items(setup: v.Setup) -> list[Item]:
    return [(cc, n, m, setup, seed, path) for cc, path in RUNS for n, m in setup.loads for seed in setup.seeds]


def _scenarios(quick: bool) -> Wire:
    """One scenario per controller, order and load, at the first seed."""
    return first_seed_scenarios(_items(QUICK if quick else FULL))


def _label(cc: str, start_s: int) -> str:
    return f"{cc}, streams from {start_s} s" if start_s else f"{cc}, all from 0 s"


def _with_run(streams: pl.DataFrame) -> pl.DataFrame:
    """The streams with their run's name (controller and order) in ``run``, in :data:`RUNS` order."""
    names = [_label(cc, path.streams_start_s) for cc, path in RUNS]
    labelled = streams.with_columns(
        pl.struct("cc", "streams_start_s").map_elements(lambda r: _label(r["cc"], r["streams_start_s"]), return_dtype=pl.String).alias("run")
    )
    return labelled.with_columns(pl.col("run").replace_strict({n: i for i, n in enumerate(names)}, return_dtype=pl.Int32).alias("order"))


def _starts_table(streams: pl.DataFrame) -> pl.DataFrame:
    """Per run and load: streams, success over them and at T/mu in Fig 9's range, mean T/mu,
    goodput, early responses per second."""
    lo, hi = v.CLAIM_BIN
    in_range = (pl.col("t_mu") >= lo) & (pl.col("t_mu") < hi)
    return (
        _with_run(streams).group_by("run", "order", "streams")
        .agg(pl.len().alias("stream_count"), pl.col("success").mean().alias("success_fraction"), in_range.sum().alias("streams_in_range"),
             pl.col("success").filter(in_range).mean().alias("success_in_range"), pl.col("t_mu").mean().alias("mean_t_mu"),
             pl.col("goodput_mbps").mean().alias("mean_goodput_mbps"), pl.col("early_responses_per_s").mean())
        .sort("order", "streams").drop("order")
    )  # fmt: skip


def _run(quick: bool, out: Path, workers: Workers) -> Report:
    setup = QUICK if quick else FULL
    streams = stream_table(_items(setup), workers)
    starts = _starts_table(streams)
    report = Report(
        NAME, TITLE, SOURCE, "quick" if quick else "full", out,
        notes=[
            f"{setup.duration} runs{'' if setup.duration == v.VIDEO_LENGTH else f' (the thesis: {v.VIDEO_LENGTH})'}, seeds {fmt_values(list(setup.seeds))}, "
            f"measured from {setup.warmup}; (video streams, FTP flows) per run: {', '.join(f'({n}, {m})' for n, m in setup.loads)}; otherwise "
            f"qian11-video's main path (25 Mbit/s, {v.BUFFER_PKTS}-packet drop-tail buffer, RTT 100 ms, 1000-byte packets, {v.HTTP_SESSIONS} HTTP sessions, Reno FTP flows).",
            f"The late runs start the streams and the greedy probe that gives T/mu in [{LATE.streams_start_s}, {LATE.streams_start_s + 10}] s; the FTP flows "
            "and the web sessions start in [0, 10] s in every run, as in qian11-video. PERT is pert-adaptive with its defaults.",
            "Table starts: per run (controller and order) and load, the streams' success over the run, their success at T/mu in "
            "Fig 9's range [1.4, 2.0), mean T/mu, goodput and early responses per second.",
        ],
    )  # fmt: skip
    report.tables = {"starts": starts, "streams": streams}
    report.claims = [_order_claim(starts), _fig9_claim(streams)]
    return report


def _order_claim(starts: pl.DataFrame) -> Claim:
    """pertlab: the order of starts does not change how often PERT's streams respond early."""
    early, late = (starts.filter(pl.col("run") == _label("pert-adaptive", path.streams_start_s)) for path in (v.MAIN, LATE))
    by_load = dict(zip(early["streams"], early["early_responses_per_s"]))
    pairs = [(n, by_load[n], x) for n, x in zip(late["streams"], late["early_responses_per_s"]) if n in by_load]
    same = bool(pairs) and all(abs(x - e) <= SAME_WITHIN * e for _, e, x in pairs)
    return Claim(
        f"pertlab: PERT's streams respond early as often whichever flows start first: with the streams starting after the FTP flows have "
        f"filled the buffer, their early responses per second are within {SAME_WITHIN:.0%} of those with every flow starting in [0, 10] s, "
        "at every load (so the smallest RTT sample, PERT's propagation-delay estimate, is not what the order changes).",
        same,
        "early responses per second of PERT's streams, by load (streams): " + ", ".join(f"{n}: {e:.3g} all from 0 s, {x:.3g} streams last" for n, e, x in pairs)
        + "; success over all streams: " + ", ".join(f"{r}: {s:.3g}" for r, s in zip(*_overall(starts))),
    )


def _overall(starts: pl.DataFrame) -> tuple[list[str], list[float]]:
    """Each run's success over all its streams (weighted by streams), in table order."""
    t = starts.group_by("run", maintain_order=True).agg(((pl.col("success_fraction") * pl.col("stream_count")).sum() / pl.col("stream_count").sum()).alias("s"))
    return t["run"].to_list(), t["s"].to_list()


def _fig9_claim(streams: pl.DataFrame) -> Claim:
    """Fig 9's statement with the streams starting last (every controller's)."""
    lo, hi = v.CLAIM_BIN
    late = streams.filter(pl.col("streams_start_s") == LATE.streams_start_s)
    in_bin = claim_bin(late)
    measured = all(cc in in_bin for cc in ("pert-adaptive", "sack", "cubic"))
    holds = measured and in_bin["pert-adaptive"][0] >= max(in_bin["sack"][0], in_bin["cubic"][0])
    return Claim(
        f"Fig 9 with the streams starting after the FTP flows: PERT's success fraction at T/mu in [{lo}, {hi}] is at least Reno's and CUBIC's.",
        holds,
        "at T/mu in the range, streams last: " + "; ".join(shown_in_bin(in_bin, cc) for cc in ("pert-adaptive", "sack", "cubic")),
    )


def _figures(report: Report) -> list[Figure]:
    starts = report.tables["starts"]

    def draw(path: Path) -> None:
        with saved_figure(path, 1, 2, figsize=(11, 3.8), title="PERT's video streams and the order of starts") as (_, axes):
            for i, (run, rows) in enumerate(starts.group_by("run", maintain_order=True)):
                run = run[0]
                if run.startswith("pert"):
                    axes[0].plot(rows["streams"].to_list(), rows["early_responses_per_s"].to_list(), marker="o", color=f"C{i}", label=run)
                axes[1].plot(rows["streams"].to_list(), rows["success_fraction"].to_list(), marker="o", color=f"C{i}", label=run)
            axes[0].set(xlabel="video streams (and as many FTP flows)", ylabel="early responses per second, per stream", ylim=(0, None))
            axes[1].set(xlabel="video streams (and as many FTP flows)", ylabel="success fraction", ylim=(-0.02, 1.02))
            for ax in axes:
                ax.legend(fontsize=8)

    return [
        Figure(f"{NAME}.png", "Left: PERT's early responses per second per stream against the load, with every flow starting in [0, 10] s and with "
               "the streams starting after the FTP flows. Right: the success fraction of each run's streams against the load.", draw),
    ]  # fmt: skip


register(Entry(NAME, TITLE, SOURCE, _run, _figures, _scenarios, details=("streams",)))
