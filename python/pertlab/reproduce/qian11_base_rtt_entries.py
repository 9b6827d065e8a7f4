"""Registry entry ``qian11-video-base-rtt``: pertlab's test of two more readings of why PERT's
video streams fail in ``qian11-video`` (Qian 2011, Chapter III.A, Fig 9), both about PERT's
propagation-delay estimate ``P``, which the theses do not describe beyond "the minimum RTT"
(spec C4), and of P's part at all: PERT given its path's RTT as P.

PERT's queueing-delay estimate is its smoothed RTT less ``P``, the smallest RTT sample it has seen
(``pert_signal::DelaySignal``). In ``qian11-video`` every flow starts within the first 10 s, so a
stream may sample the path before the Reno FTP flows fill the 150-packet buffer, learn the true
propagation delay, and then read the standing queue as tens of ms of queueing: early responses
about once per RTT. Two things could have let the thesis's streams see less of it:

- the order of starts, which the thesis does not give: streams that start after the FTP flows have
  filled the buffer might never sample the empty path. The late runs start the streams and the T/mu
  probe in [30, 40] s (``PathSetup.streams_start_s``), for PERT, Reno and CUBIC;
- a minimum over a sliding window (Linux's ``tcp_min_rtt``; ``min_rtt_window`` of adaptive PERT, an
  extension), which lets a queue that stands longer than the window into ``P``: PERT with windows of
  300 s (Linux's default) and 10 s, every flow starting in [0, 10] s, beside Reno and CUBIC.

Neither, nor anything else P could be, is at stake if PERT fails with the true P: the oracle
(``base_rtt = "propagation"``, the path's propagation and transmission delays, every flow starting
in [0, 10] s) runs beside them. PERT as ``qian11-video`` runs it (every flow in [0, 10] s, the
smallest sample) is run too, at the same loads and seeds; every run is measured from
:data:`WARMUP`, after the late starts.

With the true P, what is left is what PERT does with a correct queueing delay: the last claim
measures where the given-P streams' queueing delay sits on adaptive PERT's response curve and how
often they respond early, in round trips, against how often Reno's streams cut for a loss. A
PERT run's T/mu is its one greedy probe's, and a claim checks whether a probe held out of compete
mode while its streams are in it gives its run the lowest T/mu at its load. And since the thesis
does not say how T is measured, a claim reads it as standard TCP's: every
controller's streams binned by the T/mu of Reno's probe at the same load and seed, so that the
three are compared at the same loads whatever their own probes get."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..experiments import qian11_video as v
from ..parallel import Workers
from ..scenario.controllers import PertAdaptive
from ..plots import saved_figure
from .qian11_video_entries import Item, claim_bin, first_seed_scenarios, shown_in_bin, stream_summary, stream_table
from .registry import Claim, Entry, Figure, Report, Wire, fmt_values, register

NAME = "qian11-video-base-rtt"
TITLE = "Fig 9 against PERT's propagation-delay estimate: the streams starting after the FTP flows, a windowed minimum RTT, and the true one given; and T read as standard TCP's"
SOURCE = "Qian, MS thesis, 2011, Chapter III.A (Fig 9, Table I); spec C4"
#: When the streams and the probe start in the late runs (within 10 s of it).
LATE = v.PathSetup(streams_start_s=30)
#: Every run is measured from here, after the late starts.
WARMUP = "45s"
QUICK = v.Setup("120s", WARMUP, "5s", (1,), ((25, 25), (30, 30)))
FULL = v.Setup(v.VIDEO_LENGTH, WARMUP, "5s", (1, 2, 3), ((20, 20), (25, 25), (30, 30), (35, 35)))
PERT = "pert-adaptive"
WINDOWED = tuple(v.min_rtt_variant(w) for w in v.MIN_RTT_WINDOWS)
#: Every PERT of the runs with every flow starting in [0, 10] s: the smallest sample, each window, P given.
PERTS = (PERT, *WINDOWED, v.PATH_RTT)
#: (controller, path) of every run: PERT in both orders; Reno and CUBIC with the streams last;
#: PERT with each window, PERT given P, and Reno and CUBIC beside them, every flow in [0, 10] s.
RUNS = ((PERT, v.MAIN), (PERT, LATE), ("sack", LATE), ("cubic", LATE), *((cc, v.MAIN) for cc in WINDOWED), (v.PATH_RTT, v.MAIN), ("sack", v.MAIN), ("cubic", v.MAIN))
#: How far the late-start PERT streams' early responses per second may be from the early-start
#: ones' at a load (relative) for the claim that the order does not decide them.
SAME_WITHIN = 0.10
#: The share of their round trips in which PERT's streams, given P, must respond early, and how
#: many times as often as Reno's streams cut their windows for a loss, for the claim that a correct
#: queueing delay puts them high on the response curve. Set after an exploratory run (120 s at 20
#: and 30 streams: 0.70 to 0.79 of the round trips, 7 to 12 times Reno's).
RESPOND_SHARE = 0.5
TIMES_RENO = 5.0
#: A probe is held out of compete mode when it spends less than this share of the window there
#: while its run's streams spend more than STREAMS_COMPETE of theirs.
PROBE_OUT = 0.5
STREAMS_COMPETE = 0.9
#: Adaptive PERT's response curve at its defaults (Kotla III.A): T2 (t_max, where the probability
#: reaches p_max) and T3 = max(2 T2, t3_frac q_max), where it reaches 1.
CURVE = PertAdaptive()
T2_MS = CURVE.t_max / 1e6


def t3_ms(q_max_ms: float) -> float:
    """Where adaptive PERT's response probability reaches 1, for a largest queueing delay seen."""
    return max(2 * T2_MS if CURVE.t3_floor else 0.0, CURVE.t3_frac * q_max_ms)


def _items(setup: v.Setup) -> list[Item]:
    return [(cc, n, m, setup, seed, path) for cc, path in RUNS for n, m in setup.loads for seed in setup.seeds]


def _scenarios(quick: bool) -> Wire:
    """One scenario per run and load, at the first seed."""
    return first_seed_scenarios(_items(QUICK if quick else FULL))


def run_name(cc: str, start_s: int) -> str:
    """A run's name in the tables: its controller and, for the late runs, when its streams start."""
    return f"{cc}, streams from {start_s} s" if start_s else cc


def _starts_table(streams: pl.DataFrame) -> pl.DataFrame:
    """Per run and load: streams, success over them and at T/mu in Fig 9's range, mean T/mu,
    goodput, early responses per second."""
    order = {run_name(cc, path.streams_start_s): i for i, (cc, path) in enumerate(RUNS)}
    named = streams.with_columns(
        pl.struct("cc", "streams_start_s").map_elements(lambda r: run_name(r["cc"], r["streams_start_s"]), return_dtype=pl.String).alias("run")
    )
    return (
        stream_summary(named, ["run", "streams"], "stream_count")
        .with_columns(pl.col("run").replace_strict(order, return_dtype=pl.Int32).alias("order"))
        .sort("order", "streams").drop("order")
    )


def _run(quick: bool, out: Path, workers: Workers) -> Report:
    setup = QUICK if quick else FULL
    streams = stream_table(_items(setup), workers)
    runs = _starts_table(streams)
    report = Report(
        NAME, TITLE, SOURCE, "quick" if quick else "full", out,
        notes=[
            f"{setup.duration} runs{'' if setup.duration == v.VIDEO_LENGTH else f' (the thesis: {v.VIDEO_LENGTH})'}, seeds {fmt_values(list(setup.seeds))}, "
            f"measured from {setup.warmup}; (video streams, FTP flows) per run: {', '.join(f'({n}, {m})' for n, m in setup.loads)}; otherwise "
            f"qian11-video's main path (25 Mbit/s, {v.BUFFER_PKTS}-packet drop-tail buffer, RTT 100 ms, 1000-byte packets, {v.HTTP_SESSIONS} HTTP sessions, Reno FTP flows).",
            f"The late runs start the streams and the greedy probe that gives T/mu in [{LATE.streams_start_s}, {LATE.streams_start_s + 10}] s; the FTP flows "
            "and the web sessions start in [0, 10] s in every run, as in qian11-video. PERT is pert-adaptive with its defaults, whose P is the "
            f"smallest RTT sample of the connection; {', '.join(WINDOWED)} take P as the minimum over a sliding window of "
            f"{' and '.join(v.MIN_RTT_WINDOWS)} (`min_rtt_window`, Linux's tcp_min_rtt estimator; 300 s is Linux's default window); "
            f"{v.PATH_RTT} is given the path's RTT as P (`base_rtt = \"propagation\"`: propagation and transmission delays both ways, an oracle).",
            "Table runs: per run (controller, and when the streams start if late) and load, the streams' success over the run, their success "
            "at T/mu in Fig 9's range [1.4, 2.0), mean T/mu, goodput and early responses per second.",
        ],
    )  # fmt: skip
    report.tables = {"runs": runs, "streams": streams}
    report.claims = [
        _order_claim(runs),
        _fig9_claim(streams, LATE.streams_start_s, (PERT,), "with the streams starting after the FTP flows"),
        _fig9_claim(streams, 0, WINDOWED, f"with a windowed minimum RTT ({' or '.join(v.MIN_RTT_WINDOWS)})", " at some window"),
        _short_window_claim(streams),
        _fig9_claim(streams, 0, (v.PATH_RTT,), "with P given as the path's RTT (an oracle: no estimate of P can do better)"),
        _cuts_claim(streams),
        _probe_claim(streams),
        _fig9_claim(
            with_renos_t(streams), 0, PERTS,
            "with T read as standard TCP's (every controller's streams binned by the T/mu of Reno's probe at the same load and seed)", " for some PERT here",
        ),
    ]  # fmt: skip
    return report


def _order_claim(runs: pl.DataFrame) -> Claim:
    """pertlab: the order of starts does not change how often PERT's streams respond early."""
    early, late = (runs.filter(pl.col("run") == run_name(PERT, path.streams_start_s)) for path in (v.MAIN, LATE))
    by_load = dict(zip(early["streams"], early["early_responses_per_s"]))
    pairs = [(n, by_load[n], x) for n, x in zip(late["streams"], late["early_responses_per_s"]) if n in by_load]
    same = bool(pairs) and all(abs(x - e) <= SAME_WITHIN * e for _, e, x in pairs)
    return Claim(
        f"pertlab: PERT's streams respond early as often whichever flows start first: with the streams starting after the FTP flows have "
        f"filled the buffer, their early responses per second are within {SAME_WITHIN:.0%} of those with every flow starting in [0, 10] s, "
        "at every load (so the order does not change what PERT's estimate of the propagation delay lets it see).",
        same,
        "early responses per second of PERT's streams, by load (streams): " + ", ".join(f"{n}: {e:.3g} all from 0 s, {x:.3g} streams last" for n, e, x in pairs)
        + "; success over all streams: " + ", ".join(f"{r}: {s:.3g}" for r, s in zip(*_overall(runs))),
    )


def _overall(runs: pl.DataFrame) -> tuple[list[str], list[float]]:
    """Each run's success over all its streams (weighted by streams), in table order."""
    t = runs.group_by("run", maintain_order=True).agg(((pl.col("success_fraction") * pl.col("stream_count")).sum() / pl.col("stream_count").sum()).alias("s"))
    return t["run"].to_list(), t["s"].to_list()


def _fig9_claim(streams: pl.DataFrame, start_s: int, perts: tuple[str, ...], how: str, some: str = "") -> Claim:
    """Fig 9's statement among the runs whose streams start at ``start_s``, for some PERT of
    ``perts`` (``how`` they differ from ``qian11-video``'s; ``some``: " at some <variant>" where
    there are several)."""
    lo, hi = v.CLAIM_BIN
    these = streams.filter(pl.col("streams_start_s") == start_s)
    in_bin = claim_bin(these)
    every = these.group_by("cc").agg(pl.col("early_responses_per_s").mean(), pl.col("goodput_mbps").mean())
    shown = {r["cc"]: f"{r['early_responses_per_s']:.3g} early responses per second, goodput {r['goodput_mbps']:.3g} Mbit/s" for r in every.to_dicts()}
    measured = all(cc in in_bin for cc in ("sack", "cubic")) and any(cc in in_bin for cc in perts)
    best = max((in_bin[cc][0] for cc in perts if cc in in_bin), default=float("nan"))
    holds = measured and best >= max(in_bin["sack"][0], in_bin["cubic"][0])
    return Claim(
        f"Fig 9 {how}: PERT's success fraction at T/mu in [{lo}, {hi}] is at least Reno's and CUBIC's{some}.",
        holds,
        "at T/mu in the range: " + "; ".join(shown_in_bin(in_bin, cc) for cc in (*perts, "sack", "cubic"))
        + f"; over all their streams (video rate {v.VIDEO_RATE_MBPS} Mbit/s): " + "; ".join(f"{cc}: {shown[cc]}" for cc in perts if cc in shown),
    )


def _probe_claim(streams: pl.DataFrame) -> Claim:
    """pertlab: a PERT run's T/mu is its probe's, and the probe can be held out of compete mode
    while the streams are in it; such runs' T/mu is the lowest at their load."""
    runs = (
        streams.filter((pl.col("streams_start_s") == 0) & pl.col("cc").is_in(PERTS))
        .group_by("cc", "streams", "seed", maintain_order=True)
        .agg(pl.col("t_mu").first(), (pl.col("probe_compete_s") / pl.col("window_s")).first().alias("probe"), (pl.col("compete_s") / pl.col("window_s")).mean().alias("videos"))
    )  # fmt: skip
    out = runs.filter((pl.col("probe") < PROBE_OUT) & (pl.col("videos") > STREAMS_COMPETE))
    rest = runs.filter(pl.col("probe") >= PROBE_OUT).group_by("cc", "streams").agg(pl.col("t_mu").min().alias("lowest_in"))
    beside = out.join(rest, on=["cc", "streams"], how="left")
    holds = beside.height > 0 and beside["lowest_in"].null_count() == 0 and (beside["t_mu"] < beside["lowest_in"]).all()
    shown = "; ".join(
        f"{r['cc']} at {r['streams']} streams, seed {r['seed']}: probe {r['probe']:.2f}, streams {r['videos']:.2f} of the window in compete mode, "
        f"T/mu {r['t_mu']:.3g} against at least {r['lowest_in']:.3g}" if r["lowest_in"] is not None else f"{r['cc']} at {r['streams']} streams, seed {r['seed']}: no run of it with the probe in compete mode"
        for r in beside.sort("cc", "streams", "seed").to_dicts()
    )  # fmt: skip
    return Claim(
        f"pertlab: a PERT run's T/mu is its one probe's, which can be held out of compete mode while the run's streams are in it: some runs' probe "
        f"spends under {PROBE_OUT:.0%} of the window in compete mode while their streams spend over {STREAMS_COMPETE:.0%}, and each such run's "
        "T/mu is below that of every run of the same PERT and load whose probe is in compete mode.",
        holds,
        f"{beside.height} of {runs.height} PERT runs (every flow starting in [0, 10] s) held their probe out" + (f": {shown}" if shown else ""),
    )


def with_renos_t(streams: pl.DataFrame) -> pl.DataFrame:
    """``streams`` with every stream's T/mu that of Reno's (sack's) probe in the run of the same
    load, seed and start; the thesis's "achievable TCP throughput" read as standard TCP's, the
    same for every controller at a load (spec: how T is measured is unspecified)."""
    keys = ["streams", "seed", "streams_start_s"]
    reno = streams.filter(pl.col("cc") == "sack").group_by(keys).agg(pl.col("t_mu").first().alias("reno_t_mu"))
    return streams.join(reno, on=keys).with_columns(pl.col("reno_t_mu").alias("t_mu")).drop("reno_t_mu")


def _short_window_claim(streams: pl.DataFrame) -> Claim:
    """pertlab: with the shortest window PERT's streams spend less time in compete mode, get less
    goodput and end more of their losses in a timeout, at every load."""
    short = WINDOWED[-1]
    per_load = (
        streams.filter((pl.col("streams_start_s") == 0) & pl.col("cc").is_in([PERT, short]))
        .group_by("cc", "streams")
        .agg(pl.col("goodput_mbps").mean().alias("goodput"), (pl.col("compete_s") / pl.col("window_s")).mean().alias("compete"),
             (pl.col("timeouts") / (pl.col("timeouts") + pl.col("fast_recoveries"))).mean().alias("timeout_share"))
    )  # fmt: skip
    rows = per_load.pivot(on="cc", index="streams", values=["goodput", "compete", "timeout_share"]).sort("streams").to_dicts()
    col = lambda metric, cc: f"{metric}_{cc}"  # noqa: E731
    holds = bool(rows) and all(
        r[col("goodput", short)] < r[col("goodput", PERT)] and r[col("compete", short)] < r[col("compete", PERT)] and r[col("timeout_share", short)] > r[col("timeout_share", PERT)]
        for r in rows
    )
    return Claim(
        f"pertlab: with the {v.MIN_RTT_WINDOWS[-1]} window PERT's streams leave compete mode: at every load, against the smallest sample, "
        "they spend less of the run in compete mode, get less goodput, and repair more of their losses by retransmission timeouts "
        "rather than fast recoveries.",
        holds,
        "by load (streams), smallest sample against the window: "
        + "; ".join(
            f"{r['streams']}: goodput {r[col('goodput', PERT)]:.3g} against {r[col('goodput', short)]:.3g} Mbit/s, compete mode {r[col('compete', PERT)]:.2f} "
            f"against {r[col('compete', short)]:.2f} of the run, timeouts {r[col('timeout_share', PERT)]:.2f} against {r[col('timeout_share', short)]:.2f} of the repairs"
            for r in rows
        ),
    )


def _cuts_claim(streams: pl.DataFrame) -> Claim:
    """pertlab: given P, PERT's queueing delay is the buffer's, high on its response curve, so its
    streams cut their windows far more often than Reno's."""
    main = streams.filter(pl.col("streams_start_s") == 0)
    rtt_s = pl.col("rtt_mean_ms") / 1000
    per_load = (
        main.filter(pl.col("cc").is_in([v.PATH_RTT, "sack"]))
        .with_columns((pl.col("rtt_mean_ms") - pl.col("base_rtt_ms")).alias("q_ms"), (pl.col("rtt_max_ms") - pl.col("base_rtt_ms")).alias("q_max_ms"))
        .with_columns(pl.col("q_max_ms").map_elements(t3_ms, return_dtype=pl.Float64).alias("t3_ms"))
        .group_by("cc", "streams")
        .agg(pl.col("q_ms").mean(), pl.col("t3_ms").mean(), (pl.col("early_responses_per_s") * rtt_s).mean().alias("early"),
             ((pl.col("fast_recoveries") + pl.col("timeouts")) / pl.col("window_s") * rtt_s).mean().alias("loss_cuts"))
    )  # fmt: skip
    pert = {r["streams"]: r for r in per_load.filter(pl.col("cc") == v.PATH_RTT).to_dicts()}
    reno = {r["streams"]: r for r in per_load.filter(pl.col("cc") == "sack").to_dicts()}
    loads = sorted(pert.keys() & reno.keys())
    holds = bool(loads) and all(
        pert[n]["q_ms"] > T2_MS and pert[n]["early"] >= RESPOND_SHARE and pert[n]["early"] >= TIMES_RENO * reno[n]["loss_cuts"] for n in loads
    )
    return Claim(
        f"pertlab: what PERT does with a correct queueing delay. Given P, the queueing delay PERT's streams see is the Reno-filled buffer's, "
        f"above T2 = {T2_MS:g} ms where the response probability has reached p_max and rises on to 1 at T3 = max(2 T2, {CURVE.t3_frac:g} q_max), "
        f"so at every load they respond early in at least {RESPOND_SHARE:.0%} of their round trips, at least {TIMES_RENO:g} times as often "
        "as Reno's streams at the same load cut their windows for a loss (fast recoveries and timeouts).",
        holds,
        "by load (streams), mean over streams: "
        + "; ".join(
            f"{n}: queueing delay (mean RTT less P) {pert[n]['q_ms']:.3g} ms, T3 {pert[n]['t3_ms']:.3g} ms; PERT's early responses in "
            f"{pert[n]['early']:.2f} of its round trips, Reno's loss cuts in {reno[n]['loss_cuts']:.3f} of its (queueing delay {reno[n]['q_ms']:.3g} ms)"
            for n in loads
        ),
    )


def _figures(report: Report) -> list[Figure]:
    runs = report.tables["runs"]

    def draw(path: Path) -> None:
        with saved_figure(path, 1, 2, figsize=(12, 4), title="PERT's video streams and its estimate of the propagation delay") as (_, axes):
            for i, (name, rows) in enumerate(runs.group_by("run", maintain_order=True)):
                name = name[0]
                if name.startswith("pert"):
                    axes[0].plot(rows["streams"].to_list(), rows["early_responses_per_s"].to_list(), marker="o", color=f"C{i}", label=name)
                axes[1].plot(rows["streams"].to_list(), rows["success_fraction"].to_list(), marker="o", color=f"C{i}", label=name)
            axes[0].set(xlabel="video streams (and as many FTP flows)", ylabel="early responses per second, per stream", ylim=(0, None))
            axes[1].set(xlabel="video streams (and as many FTP flows)", ylabel="success fraction", ylim=(-0.02, 1.02))
            axes[0].legend(fontsize=7)
            axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))

    return [
        Figure(f"{NAME}.png", "Left: PERT's early responses per second per stream against the load: every flow starting in [0, 10] s, the streams "
               "starting after the FTP flows, a windowed minimum RTT, and P given as the path's RTT. Right: the success fraction of each run's streams against the load.", draw),
    ]  # fmt: skip


register(Entry(NAME, TITLE, SOURCE, _run, _figures, _scenarios, details=("streams",)))
