"""Qian (MS thesis, 2011), Chapter IV.C, Figs 25 to 29: PERT flows of three flavours sharing
one drop-tail bottleneck (shared/spec/pert-theses-kotla-qian.md B.7).

Flavours (the thesis's names): "Delay Pacing" = Qian's adaptive delayed ACK at the receiver
and pacing (srtt / cwnd) at the sender; "Delay ACK" = the adaptive receiver without pacing;
"No Delay" = an every-segment receiver without pacing. Every flow is PERT.

Scenarios:

- **Fig 25**: ``FIG25_FLOWS_PER_FLAVOUR`` flows of each flavour on the base point: each
  flavour's bandwidth and loss rate.
- **Figs 26 to 28 and the HTTP sweep**: Delay Pacing and Delay ACK flows together; one
  parameter of ``BASE`` moves at a time: the total flow count (Fig 26, half and half), the
  share of Delay ACK flows, the buffer as a factor of the BDP (Fig 27), the RTT (Fig 28),
  the number of HTTP (web) sessions as cross traffic. Per flavour and run: its share of the
  long flows' goodput, its drop ratio, Jain's index over its own flows' goodputs; per run the
  bottleneck's mean queue over its buffer.
- **Fig 29**: video with multiple PERT flows, each run of one flavour: ``VIDEO_STREAMS`` live
  video streams (Qian's Chapter III clients) and ``VIDEO_GREEDY`` greedy flows, along the BDP
  factor; Wei, Cao and Low's metrics (the thesis's [19]): the aggregate throughput of all flows
  and the late-packet fraction of the worst stream. The thesis gives no load; the video rate
  is ``VIDEO_RATE_MBPS`` (see there). pertlab's tests of why paced streams are late: which
  streams stall at PERT's floor window, PERT's queueing-delay estimate against the bottleneck's
  queue while they do, and how often a stream at the floor gets an RTT sample (every RTT sample
  of the streams is traced).

"Fairness" (the thesis does not say what it compares): Jain's index among the flows of one
flavour; Delay Pacing "is fairer" at a point when its index is above Delay ACK's there (the
mean over the seeds). The index over all flows and each flavour's bandwidth share are kept
beside it.

Choices where the thesis is silent (Chapter IV gives no link, buffer or packet size): the
bottleneck is ``BOTTLENECK_MBPS`` (see there), the base RTT Chapter V's 40 ms, packets of
1000 bytes, buffer = one BDP (at least two packets per flow, the builder's rule); receivers
echo the timestamp of the newest segment (``ts_echo = latest``, ns-2's sinks, as the thesis's
ns-2 runs did; with RFC 7323's echo a paced flow behind the adaptive receiver inflates its own
srtt: qian11-ack-coalescing); the web sessions are ns-2 WebTraf sessions whose transfers run
over PERT behind every-segment receivers (the builder's default), with the mean think time of
qian11-video. Flows start uniformly in ``START_WINDOW`` from the seed, so seeds differ in the
flows' start times (and the web sessions' draws), which breaks the phase locking of identical
flows (Floyd and Jacobson 1992).

pertlab's tests of why the fairness claims fail (not the thesis's runs; :data:`TEST_SWEEPS`): the
flow-count sweep again with ns-2's random send overhead (``flows+overhead``: do the indices near 1
come from phase lock?) and on a 10 Mbit/s link (``flows@10Mbps``: a link on which two packets per
flow exceed the BDP from 30 flows on, so the queue never drains), there also with the true P given
(``flows@10Mbps+P``: how much of the unfairness is the base-RTT split). Per flavour and run they add the
spread of its flows' minimum RTTs (PERT's base RTT estimate), the rank correlation of each flow's
minimum RTT with its goodput, and the coefficient of variation of its flows' goodputs.

Left out: the thesis's "normalised queue length" per flavour (only the bottleneck's whole queue
is measured).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from ..builders import dumbbell
from ..metrics import jain_index as jain, rate
from ..results import Results
from ..runner import run
from ..scenario import Scenario
from ..scenario.controllers import Pert
from .qian11 import PACKET_BYTES
from .qian11_video import THINK_TIME

#: The flavours of Figs 25-29: (receiver ACK policy, sender pacing), named as the thesis does.
FLAVOURS: dict[str, tuple[str, bool]] = {"delay-pacing": ("adaptive", True), "delay-ack": ("adaptive", False), "no-delay": ("every", False)}
#: Bottleneck rate (Mbit/s; our choice, Chapter IV gives none). Chapter V's 3 Mbit/s would give
#: each of Fig 26's 100 flows 0.3 packets (BDP 15 packets at 40 ms, plus a one-BDP buffer); at
#: 50 Mbit/s the BDP is 250 packets of 1000 B, so with a one-BDP buffer each of 100 flows
#: holds about 5 packets (window + queue) and each of 10 flows about 50, enough for the
#: adaptive receiver's trains of up to 4 segments to form.
BOTTLENECK_MBPS = 50.0
#: The point every sweep starts from: 20 flows (our choice), half Delay ACK (Fig 26's mix),
#: buffer one BDP, Chapter V's 40 ms RTT (20 ms one way), no HTTP sessions.
BASE: dict[str, float] = {"flows": 20, "delay_ack_share": 0.5, "bdp_factor": 1.0, "rtt_ms": 40, "http_sessions": 0}
#: Flows of each flavour in Fig 25's run (the thesis does not say; 5 gives each flavour's mean
#: some averaging and keeps the total, 15, near BASE's 20).
FIG25_FLOWS_PER_FLAVOUR = 5
#: Fig 25's point: BASE's link and buffer, the three flavours in equal numbers.
FIG25 = {**BASE, "flows": len(FLAVOURS) * FIG25_FLOWS_PER_FLAVOUR, "delay_ack_share": 1 / len(FLAVOURS)}
#: Flows start uniformly in [0, START_WINDOW] (drawn from the seed).
START_WINDOW = "5s"
#: The sweeps' parameters and their ranges in the thesis (Section IV.C, Figs 26-28).
THESIS_RANGES = {"flows": (10, 100), "delay_ack_share": (0.1, 1.0), "bdp_factor": (0.4, 4.0), "rtt_ms": (10, 100), "http_sessions": (100, 1000)}


#: pertlab's tests of the fairness explanation (not in the thesis): sweep name -> the link rate
#: and send overhead its runs change. ``flows+overhead``: ns-2's random send overhead (``overhead_``,
#: kotla08's setting; docs/reproductions.md, "Phase effects"), which breaks phase lock among
#: identical flows. ``flows@10Mbps``: BASE's RTT and one-BDP buffer on a link a fifth as fast, BDP
#: 50 packets: from 30 flows on, two packets per flow exceed the BDP.
#: ``flows@10Mbps+P``: the same with every flow given its path's RTT as P (``base_rtt =
#: "propagation"``, an oracle), which takes the base-RTT split out and leaves the standing queue;
#: ``flows@10Mbps+P-no-delay``: that with No Delay flows (an ACK per segment, unpaced) where the
#: Delay ACK flows were (``unpaced``: the flavour beside Delay Pacing), which tells pacing from
#: ACK coalescing.
TEST_SWEEPS: dict[str, dict[str, Any]] = {
    "flows+overhead": {"overhead": "1ms"}, "flows@10Mbps": {"bw_mbps": 10.0}, "flows@10Mbps+P": {"bw_mbps": 10.0, "base_rtt": "propagation"},
    "flows@10Mbps+P-no-delay": {"bw_mbps": 10.0, "base_rtt": "propagation", "unpaced": "no-delay"},
}  # fmt: skip

#: Fig 29: video streams and greedy flows per run, all PERT of one flavour (our choice: the
#: thesis says "multiple flows"; half and half, 20 flows as BASE).
VIDEO_STREAMS = 10
VIDEO_GREEDY = 10
#: T/mu of the streams if every flow got an equal share of the link: 1.5, the middle of the
#: 1.0 to 2.0 range Qian's Chapter III studies (Figs 4, 9), where streams succeed or fail by the
#: controller; the video rate follows (about 1.67 Mbit/s).
VIDEO_T_MU = 1.5
VIDEO_RATE_MBPS = BOTTLENECK_MBPS / (VIDEO_STREAMS + VIDEO_GREEDY) / VIDEO_T_MU
#: Start-up delay of the video clients (Chapter III: "a few seconds"; qian11-video's 5 s).
VIDEO_STARTUP = "5s"


@dataclass(frozen=True)
class Setup:
    duration: str
    warmup: str
    seeds: tuple[int, ...]
    #: Sweep values by BASE parameter.
    sweeps: dict[str, tuple[float, ...]]
    #: Fig 29's BDP factors.
    video_bdp: tuple[float, ...] = ()


def flavour_counts(point: dict[str, float], unpaced: str = "delay-ack") -> dict[str, int]:
    """Delay ACK (or ``unpaced``) and Delay Pacing flows of a sweep point (the Delay ACK share
    rounded to whole flows)."""
    n = int(point["flows"])
    ack = round(n * point["delay_ack_share"])
    return {"delay-pacing": n - ack, unpaced: ack}


def run_setup(sweep: str, point: dict[str, float]) -> tuple[dict[str, int], dict[str, Any]]:
    """The flavour counts and :func:`scenario`'s link arguments of a (non-video) run of ``sweep``."""
    link = dict(TEST_SWEEPS.get(sweep, {}))
    unpaced = link.pop("unpaced", "delay-ack")
    return (fig25_counts() if sweep == "fig25" else flavour_counts(point, unpaced)), link


def scenario(
    counts: dict[str, int], point: dict[str, float], setup: Setup, seed: int, bw_mbps: float | None = None, overhead: str | None = None,
    base_rtt: str = "observed",
) -> Scenario:
    """PERT flows of the flavours in ``counts`` (in that order) at ``point``'s RTT, buffer and web load;
    the link ``bw_mbps`` (default BOTTLENECK_MBPS), the senders' ``tcp.overhead`` (default none) and
    PERT's ``base_rtt`` (default measured) for :data:`TEST_SWEEPS`."""
    web = int(point["http_sessions"])
    sc = dumbbell(
        bw=f"{bw_mbps or BOTTLENECK_MBPS:g}Mbps", rtt=f"{point['rtt_ms']:g}ms", flows=sum(counts.values()), cc="pert",
        duration=setup.duration, warmup=setup.warmup, start_window=START_WINDOW, packet_size=PACKET_BYTES, seed=seed, web_sessions=web,
        web={"think_time": THINK_TIME} if web else None, buffer_bdp=point["bdp_factor"], tcp={"overhead": overhead} if overhead else None,
        cc_params={"pert": {"base_rtt": base_rtt}},
    )  # fmt: skip
    flavours = [name for name, k in counts.items() for _ in range(k)]
    wire = _with_flavours(sc, flavours, relabel=True)
    wire["monitor"] = {**wire.get("monitor", {}), "queue_positions": "bottleneck"}
    return Scenario.parse(wire)


def _with_flavours(sc: Scenario, flavours: list[str], relabel: bool) -> dict[str, Any]:
    """``sc``'s wire form with flow i's receiver and pacing those of ``flavours[i]`` (and its label
    the flavour's name with ``relabel``); every receiver, the web sessions' too, echoes the newest
    segment. The caller adds what else it changes and parses it once."""
    wire = sc.to_wire()
    for f, name in zip(wire["flows"], flavours, strict=True):
        policy, paced = FLAVOURS[name]
        f["tcp"].update(ack_policy=policy, pacing={"enabled": paced}, ts_echo="latest")
        if relabel:
            f["label"] = name
    for w in wire.get("web", []):
        w["tcp"]["ts_echo"] = "latest"
    return wire


def video_scenario(flavour: str, bdp_factor: float, setup: Setup, seed: int, ack_timeout_factor: float | None = None) -> Scenario:
    """Fig 29: VIDEO_GREEDY greedy flows and VIDEO_STREAMS video streams (label ``video-pert``),
    every one PERT of ``flavour``, BASE's link and RTT, buffer ``bdp_factor`` x BDP; every flow's
    window and PERT's queueing-delay estimate sampled each second (:data:`STALL_SAMPLE`), every RTT
    sample of the streams traced. ``ack_timeout_factor``: the adaptive
    receivers' ACK timer in expected gaps (default the builder's, 2; :data:`VIDEO_TESTS`)."""
    sc = dumbbell(
        bw=f"{BOTTLENECK_MBPS:g}Mbps", rtt=f"{BASE['rtt_ms']:g}ms", flows=VIDEO_GREEDY, cc="pert", duration=setup.duration,
        warmup=setup.warmup, start_window=START_WINDOW, buffer_bdp=bdp_factor, packet_size=PACKET_BYTES, seed=seed,
        video=f"{VIDEO_STREAMS}@{VIDEO_RATE_MBPS * 1e3:.0f}kbps:pert", startup_delay=VIDEO_STARTUP,
    )  # fmt: skip
    wire = _with_flavours(sc, [flavour] * (VIDEO_GREEDY + VIDEO_STREAMS), relabel=False)
    streams = [i for i, f in enumerate(wire["flows"]) if f.get("video")]
    wire["monitor"] = {**wire.get("monitor", {}), "sample_interval": STALL_SAMPLE, "trace_flows": streams}
    if ack_timeout_factor is not None:
        for f in wire["flows"]:
            f["tcp"]["adaptive_ack"]["timeout_factor"] = ack_timeout_factor
    return Scenario.parse(wire)


#: A stream "stalls" when its window is at PERT's floor of 2 segments (MIN_CWND) in more than
#: STALL_SECONDS of the per-second samples after its first second (the start of Fig 29's late streams).
STALL_SAMPLE = "1s"
STALL_SECONDS = 3
#: pertlab's test of Fig 29b (not in the thesis): Delay Pacing with the adaptive receiver's ACK timer
#: at half the expected gap instead of two (the receiver then acknowledges each paced segment;
#: the test of the paced flows' RTT samples used the same setting).
VIDEO_TESTS: dict[str, dict[str, Any]] = {"delay-pacing, timer 0.5": {"flavour": "delay-pacing", "ack_timeout_factor": 0.5}}


def _at_floor() -> pl.Expr:
    """Rows (per-second samples or RTT samples, with the stream's ``start_s``) taken after the
    stream's first second with its window at PERT's floor of 2 segments."""
    return (pl.col("t_s") > pl.col("start_s") + 1) & (pl.col("cwnd") <= 2)


def video_row(flavour: str, bdp_factor: float, setup: Setup, seed: int, label: str | None = None, ack_timeout_factor: float | None = None) -> dict[str, Any]:
    """One run of Fig 29: the aggregate goodput of all flows, the worst and the mean late fraction
    of the streams, their mean goodput, the bottleneck's drops and queue; the streams that stalled
    (:data:`STALL_SECONDS`) and the worst late fraction among them and among the others. ``label``:
    the row's flavour name (a :data:`VIDEO_TESTS` name)."""
    r = run(video_scenario(flavour, bdp_factor, setup, seed, ack_timeout_factor))
    f = r.flows
    v = f.filter(pl.col("label").str.starts_with("video"))
    series = r.flow_series.join(v.select(pl.col("id").alias("flow"), "start_s"), on="flow")
    floor = series.filter(_at_floor()).group_by("flow").len()
    stalled = set(floor.filter(pl.col("len") > STALL_SECONDS)["flow"].to_list())
    late = dict(zip(v["id"].to_list(), v["video_late_fraction"].to_list()))
    memory = _estimate_memory(r, series, stalled, late)
    return {
        "sweep": "video", "flavour": label or flavour, "bdp_factor": bdp_factor, "seed": seed, "aggregate_mbps": f["goodput_mbps"].sum(),
        "worst_late_fraction": v["video_late_fraction"].max(), "mean_late_fraction": v["video_late_fraction"].mean(),
        "video_goodput_mbps": v["goodput_mbps"].mean(), "greedy_goodput_mbps": f.filter(~pl.col("label").str.starts_with("video"))["goodput_mbps"].mean(),
        "drops": r.bottleneck["drops"], "avg_queue_norm": r.bottleneck["avg_queue_norm"], "stalled_streams": len(stalled),
        "worst_late_stalled": max((late[i] for i in stalled), default=None), "worst_late_unstalled": max((x for i, x in late.items() if i not in stalled), default=None),
        **memory,
    }  # fmt: skip


#: PERT's thresholds on its queueing-delay estimate (the flows' defaults), ms: below T_MIN_MS no
#: early response; above T_MAX_MS the probability climbs from p_max to 1 (at 2 T_MAX_MS).
T_MIN_MS = Pert().t_min / 1e6
T_MAX_MS = Pert().t_max / 1e6


def _estimate_memory(r: Results, series: pl.DataFrame, stalled: set[int], late: dict[int, float]) -> dict[str, Any]:
    """pertlab's test of why paced streams stall (Fig 29b): PERT's estimate srtt_0.99 - P against
    the bottleneck's queueing delay at the same per-second samples, and how often a stream at the
    floor window gets an RTT sample (srtt_0.99 moves 1 % of the way to each sample).

    ``stalls``: one entry per stalled stream with its mean estimate and the mean bottleneck
    queueing delay over its floor seconds (``q_ms``, ``queue_ms``); ``first_q_above_t_max``: the
    streams whose first sampled estimate after their start is above T_MAX_MS; ``floor_sample_gap_ms``:
    the mean time from an RTT sample taken at the floor window to the stream's next sample, over
    the streams' samples after their first second (None without one)."""
    queue = r.bottleneck_series.select("t_s", (pl.col("len_bytes") * 8 / (BOTTLENECK_MBPS * 1e3)).alias("queue_ms"))
    after = series.filter(pl.col("t_s") > pl.col("start_s")).join(queue, on="t_s", how="left").sort("flow", "t_s")
    first = after.group_by("flow").agg(pl.col("qdelay_ms").first())
    at_floor = after.filter(_at_floor() & pl.col("flow").is_in(sorted(stalled)))
    stalls = at_floor.group_by("flow").agg(pl.col("qdelay_ms").mean().alias("q_ms"), pl.col("queue_ms").mean().alias("queue_ms")).sort("flow")
    starts = series.group_by("flow").agg(pl.col("start_s").first())
    samples = r.trace_rtt.join(starts, on="flow").sort("flow", "t_s").with_columns(gap_ms=(pl.col("t_s").shift(-1).over("flow") - pl.col("t_s")) * 1e3)
    gaps = samples.filter(_at_floor())["gap_ms"].drop_nulls()
    return {
        "stalls": [{**row, "late_fraction": late[row["flow"]]} for row in stalls.iter_rows(named=True)],
        "first_q_above_t_max": first.filter(pl.col("qdelay_ms") > T_MAX_MS).height,
        "floor_sample_gap_ms": gaps.mean() if len(gaps) else None,
    }


def rows(counts: dict[str, int], point: dict[str, float], setup: Setup, seed: int, **link: Any) -> list[dict[str, Any]]:
    """One row per flavour of one run: its flows, mean goodput per flow, share of the long flows'
    goodput, drop ratio, Jain's index over its flows; the run's index over all flows and its queue.
    Also (for the fairness tests) the spread of the flavour's minimum RTTs (max - min over its flows),
    their rank correlation with the flows' goodputs (null when all are equal) and the coefficient of
    variation of its goodputs. ``link``: :func:`scenario`'s ``bw_mbps``, ``overhead`` and ``base_rtt``."""
    r = run(scenario(counts, point, setup, seed, **link))
    f, ctl = r.flows, r.controllers
    total = f["goodput_mbps"].sum()
    qp = r.queue_positions.group_by("label").agg(((pl.col("position") * pl.col("count")).sum() / pl.col("count").sum()).alias("ahead"))
    ahead = dict(qp.iter_rows())
    out = []
    for name in counts:
        if counts[name] == 0:
            continue
        g = f.filter(pl.col("label") == name)
        c = ctl.filter(pl.col("label") == name).row(0, named=True)
        out.append({
            **{k: point[k] for k in BASE}, "buffer_pkts": r.bottleneck["limit_pkts"],
            "seed": seed, "flavour": name, "n": g.height, "goodput_mbps": g["goodput_mbps"].mean(),
            "share": g["goodput_mbps"].sum() / total, "fair_share": g.height / f.height, "drop_rate": c["drop_rate"],
            "jain": jain(g["goodput_mbps"].to_list()), "data_ack_ratio": g["data_ack_ratio"].mean(), "timeouts": int(g["timeouts"].sum()),
            "rtt_mean_ms": g["rtt_mean_ms"].mean(), "early_per_segment": rate(g["early_responses"].sum(), g["segments_sent"].sum()),
            "queue_ahead_pkts": ahead.get(name), "min_rtt_spread_ms": g["rtt_min_ms"].max() - g["rtt_min_ms"].min(),
            "min_rtt_rho": _rank_corr(g["rtt_min_ms"].to_list(), g["goodput_mbps"].to_list()),
            "goodput_cv": g["goodput_mbps"].std() / g["goodput_mbps"].mean() if g.height > 1 else None,
            "jain_all": jain(f["goodput_mbps"].to_list()), "avg_queue_norm": r.bottleneck["avg_queue_norm"],
            "utilization": r.bottleneck["utilization"], "lockstep_warnings": sum("lock" in w for w in r.warnings),
        })  # fmt: skip
    return out


def _rank_corr(xs: list[float], ys: list[float]) -> float | None:
    """Spearman's rank correlation, None with fewer than 3 values or either side constant."""
    if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    from scipy.stats import spearmanr

    return float(spearmanr(xs, ys).statistic)


def fairness_test_points(setup: Setup) -> list[tuple[str, dict[str, float]]]:
    """:data:`TEST_SWEEPS`' runs: each at BASE and at every value of the flow-count sweep."""
    counts = sorted({int(BASE["flows"]), *setup.sweeps.get("flows", ())})
    return [(name, {**BASE, "flows": n}) for name in TEST_SWEEPS for n in counts]


def sweep_points(setup: Setup) -> list[tuple[str, dict[str, float]]]:
    """("base", BASE) and one point per sweep value, the others at BASE; a point another sweep
    already has is listed once, under the first."""
    points = [("base", dict(BASE))]
    for name, values in setup.sweeps.items():
        points += [(name, p) for p in ({**BASE, name: v} for v in values) if all(p != q for _, q in points)]
    return points


def fig25_counts() -> dict[str, int]:
    return {name: FIG25_FLOWS_PER_FLAVOUR for name in FLAVOURS}


def video_points(setup: Setup) -> list[dict[str, Any]]:
    """Fig 29's runs: each flavour at each BDP factor; then :data:`VIDEO_TESTS`' at each factor."""
    return [{"flavour": name, "bdp_factor": b} for name in FLAVOURS for b in setup.video_bdp] + [
        {"label": name, **test, "bdp_factor": b} for name, test in VIDEO_TESTS.items() for b in setup.video_bdp
    ]


def tasks(setup: Setup) -> list[tuple[str, dict[str, Any], Setup, int]]:
    """One run each: Fig 25's three-flavour run, every sweep point, Fig 29's runs and the fairness
    tests' runs (last), at every seed."""
    return (
        [("fig25", FIG25, setup, s) for s in setup.seeds] + [(n, p, setup, s) for n, p in sweep_points(setup) for s in setup.seeds]
        + [("video", p, setup, s) for p in video_points(setup) for s in setup.seeds]
        + [(n, p, setup, s) for n, p in fairness_test_points(setup) for s in setup.seeds]
    )  # fmt: skip


def task(item: tuple[str, dict[str, Any], Setup, int]) -> list[dict[str, Any]]:
    """The rows of one run of :func:`tasks`, each with its sweep's name."""
    sweep, point, setup, seed = item
    if sweep == "video":
        return [video_row(point["flavour"], point["bdp_factor"], setup, seed, point.get("label"), point.get("ack_timeout_factor"))]
    counts, link = run_setup(sweep, point)
    return [{"sweep": sweep, **row} for row in rows(counts, point, setup, seed, **link)]


#: The per-flavour columns of :func:`fairness` (suffixed ``_pacing`` and ``_ack``).
PER_FLAVOUR = (
    "share", "fair_share", "drop_rate", "jain", "goodput_mbps", "rtt_mean_ms", "early_per_segment", "goodput_cv", "min_rtt_spread_ms", "min_rtt_rho"
)  # fmt: skip


def fairness(runs: pl.DataFrame) -> pl.DataFrame:
    """Per sweep point: each flavour's mean (over the seeds) share, drop ratio and Jain index side by
    side, and whether Delay Pacing's index is above Delay ACK's (null where one flavour has no flow)."""
    keys = ["sweep", *BASE]
    mean = runs.filter(pl.col("sweep") != "fig25").group_by([*keys, "flavour"], maintain_order=True).agg(
        pl.col(*PER_FLAVOUR, "jain_all", "avg_queue_norm").mean(), pl.len().alias("runs")
    )
    out = None
    for name, tag in (("delay-pacing", "pacing"), ("delay-ack", "ack")):
        part = mean.filter(pl.col("flavour") == name).select(
            *keys, *[pl.col(c).alias(f"{c}_{tag}") for c in PER_FLAVOUR]
        )
        out = part if out is None else out.join(part, on=keys, how="full", coalesce=True, maintain_order="left")
    run_cols = mean.group_by(keys, maintain_order=True).agg(pl.col("jain_all", "avg_queue_norm").first(), pl.col("runs").first())
    out = run_cols.join(out, on=keys, how="left", maintain_order="left")
    return out.with_columns((pl.col("jain_pacing") > pl.col("jain_ack")).alias("pacing_fairer"))
