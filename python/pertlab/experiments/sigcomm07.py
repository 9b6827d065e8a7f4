"""Bhandarkar, Reddy, Zhang, Loguinov, "Emulating AQM from End Hosts" (SIGCOMM
2007), Section 4 and Section 6.1: the packet-level evaluation of PERT.

Common setup (Section 4, STATED): 400 s runs, metrics over 100..300 s, buffer
= BDP and at least 2 x flows, flow starts uniform in (0, 50) s; schemes
PERT (DropTail), SACK/DropTail, SACK/RED-ECN (adaptive RED) and Vegas
(DropTail). Every scenario is built with :func:`pertlab.builders.dumbbell`
(delay split, access links and buffer rule documented there) except the
multiple-bottleneck topology of Figure 10 (:func:`parking_lot`).

Choices where the paper is silent (docs/reproductions.md):

- **Packet size** 1500 bytes on the wire (ns-2's TCP default is 1000 bytes of
  payload; the paper does not say; it changes the buffer in packets only).
- **Figure 6**: "the number of flows is varied such that the link is
  efficiently utilized": N = max(2, bandwidth / 5 Mbit/s), i.e. 2 flows up to
  10 Mbit/s and 200 at 1 Gbit/s.
- **Figure 12**: the bandwidth and RTT are not stated; Section 4's 150 Mbit/s
  and 60 ms are used. Groups leave in the order they arrived (the first 25
  flows at 400 s). Throughput per group from the flows' delivered bytes,
  sampled every second.
- **ns-2's TCP timers** (:data:`pertlab.builders.NS2_TCP`): initial RTO 3 s,
  ``minrto_`` 200 ms on the whole RTO, 10 ms tick. The core's defaults are
  RFC 6298's 1 s initial RTO and Linux's bound; with a 1 s initial RTO at a
  1 s RTT the first timeout fires before the first ACK can return and leaves
  every flow in congestion avoidance from a window of 2 (Figure 7's last point).
- **Web sessions** (Figure 9, Table 1): ns-2's WebTraf model with the defaults
  of ns-2's ``tcl/ex/web-traffic.tcl`` (the paper cites Feldmann et al.'s
  guidelines without numbers); transfers use the scheme's transport.
- **Table 1**: the buffer is one BDP at the shortest RTT (12 ms: 150 packets).
  "Buffer = BDP" does not say which RTT; with this reading SACK/DropTail's
  Jain index (0.44) and PERT's queue (0.28) come out as the paper prints them,
  with the mean RTT (825 packets) they do not (docs/reproductions.md).
- **Figure 14**: "parameters of router PI multiplied by the link capacity"
  (see :mod:`pertlab` core ``tcp/cc/pert_pi.rs``); router PI with ECN uses the
  ns-2 defaults, qref = 50 packets.

Quick modes shorten the runs (150 s, metrics over 100..150 s, the paper's starts
in (0, 50) s, one seed) and take fewer points; full modes are the paper's setup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import polars as pl

from ..builders import NS2_TCP, buffer_packets, dumbbell, parking_lot
from ..parallel import Workers
from ..scenario import Scenario
from ..sweep import BOUNDS, Point, Range, aggregate, run_points, stored_results

__all__ = ["Scheme", "SCHEMES", "PI_SCHEMES", "Mode", "FULL", "QUICK", "Figure", "FIGURES", "run_figure", "plot_figure"]


@dataclass(frozen=True)
class Scheme:
    """A transport over a queue discipline, as the paper names it."""

    label: str
    slug: str
    cc: str
    queue: str
    ecn: bool = False


#: The four schemes of Section 4.
SCHEMES = (
    Scheme("PERT", "pert", "pert", "droptail"),
    Scheme("SACK/DropTail", "sack-droptail", "sack", "droptail"),
    Scheme("SACK/RED-ECN", "sack-red-ecn", "sack", "ared", ecn=True),
    Scheme("Vegas", "vegas", "vegas", "droptail"),
)
#: Section 6.1: PERT emulating PI against router PI with ECN.
PI_SCHEMES = (
    Scheme("PERT/PI", "pert-pi", "pert-pi", "droptail"),
    Scheme("SACK/PI-ECN", "sack-pi-ecn", "sack", "pi", ecn=True),
)
LABELS = {s.slug: s.label for s in SCHEMES + PI_SCHEMES}


@dataclass(frozen=True)
class Mode:
    """Run length, start window, measurement window and seeds."""

    name: str
    duration: str
    start_window: str
    warmup: str
    measure_end: str
    seeds: tuple[int, ...]


#: Section 4: 400 s, starts in (0, 50) s, metrics over 100..300 s; three seeds for confidence intervals.
FULL = Mode("full", "400s", "50s", "100s", "300s", (1, 2, 3))
#: Quick: the paper's start phase (starts in (0, 50) s, measurement from 100 s) but a 50 s
#: window and one seed. Compressing the starts instead would measure the start transient
#: (with PERT/PI at 200 ms, a burst of spurious timeouts while flows join; docs/reproductions.md).
QUICK = Mode("quick", "150s", "50s", "100s", "150s", (1,))


def _dumbbell(scheme: Scheme, mode: Mode, seed: int, **kw: Any) -> Scenario:
    """Section 4's dumbbell for ``scheme``; ``tcp`` options go on top of ns-2's timers."""
    tcp = {**NS2_TCP, **kw.pop("tcp", {})}
    return dumbbell(
        cc=scheme.cc, queue=scheme.queue, ecn=scheme.ecn, duration=mode.duration, start_window=mode.start_window,
        warmup=mode.warmup, measure_end=mode.measure_end, seed=seed, buffer_bdp=1.0, tcp=tcp, **kw,
    )  # fmt: skip


def fig6_flows(bw_mbps: float) -> int:
    """Figure 6's flow count (CHOICE): one flow per 5 Mbit/s, at least 2."""
    return max(2, round(bw_mbps / 5))


@dataclass(frozen=True)
class Figure:
    """A figure of metrics against one varied quantity."""

    name: str
    title: str
    x: str
    x_label: str
    full: tuple[float, ...]
    quick: tuple[float, ...]
    make: Callable[[Scheme, float, Mode, int], Scenario]
    schemes: tuple[Scheme, ...] = SCHEMES
    notes: tuple[str, ...] = field(default_factory=tuple)


FIGURES = {
    "fig6": Figure(
        "fig6", "Impact of bottleneck bandwidth (Figure 6)", "bw_mbps", "bottleneck bandwidth (Mbit/s)",
        (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000), (1, 10, 100),
        lambda s, x, m, seed: _dumbbell(s, m, seed, bw=f"{x}Mbps", rtt="60ms", flows=fig6_flows(x)),
        notes=("RTT 60 ms; N = max(2, bandwidth / 5 Mbit/s) flows (the paper only says the flows are scaled so the link is used).",),
    ),
    "fig7": Figure(
        "fig7", "Impact of end-to-end RTT (Figure 7)", "rtt_ms", "round-trip propagation delay (ms)",
        (10, 20, 50, 100, 200, 500, 1000), (10, 60, 200),
        lambda s, x, m, seed: _dumbbell(s, m, seed, bw="150Mbps", rtt=f"{x}ms", flows=50),
        notes=("150 Mbit/s, 50 flows.",),
    ),
    "fig8": Figure(
        "fig8", "Impact of the number of long-lived flows (Figure 8)", "flows", "long-lived flows",
        (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000), (1, 10, 100),
        lambda s, x, m, seed: _dumbbell(s, m, seed, bw="500Mbps", rtt="60ms", flows=int(x)),
        notes=("500 Mbit/s, 60 ms.",),
    ),
    "fig9": Figure(
        "fig9", "Impact of web traffic (Figure 9)", "web_sessions", "web sessions",
        (10, 20, 50, 100, 200, 500, 1000), (10, 100, 1000),
        lambda s, x, m, seed: _dumbbell(s, m, seed, bw="150Mbps", rtt="60ms", flows=50, web_sessions=int(x)),
        notes=("150 Mbit/s, 60 ms, 50 long-lived flows; web sessions as pertlab.builders.dumbbell adds them (ns-2 web-traffic.tcl defaults, "
               "transfers with the scheme's transport); the Jain index is over the 50 long-lived flows.",),
    ),
    "fig14": Figure(
        "fig14", "PERT/PI against router PI with ECN (Figure 14)", "rtt_ms", "round-trip propagation delay (ms)",
        (10, 20, 50, 100, 200, 500, 1000), (10, 60, 200),
        lambda s, x, m, seed: _dumbbell(s, m, seed, bw="150Mbps", rtt=f"{x}ms", flows=50),
        schemes=PI_SCHEMES,
        notes=("Figure 7's scenario (150 Mbit/s, 50 flows); PERT/PI target delay 3 ms, a and b = router PI's x capacity; router PI qref 50 packets, ECN.",),
    ),
}


def figure_points(fig: Figure, mode: Mode) -> list[Point]:
    xs = fig.quick if mode is QUICK else fig.full
    return [
        Point((("scheme", s.slug), (fig.x, str(x))), seed, fig.make(s, x, mode, seed))
        for s in fig.schemes
        for x in xs
        for seed in mode.seeds
    ]


def run_figure(fig: Figure, mode: Mode, out: Path, workers: Workers = Workers(), on_progress=None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Run (or reuse from ``out/runs``) every point; return (runs, mean and 95 % CI per scheme and x)."""
    runs = run_points(figure_points(fig, mode), out, jobs=workers.jobs, cluster=workers.cluster, on_progress=on_progress)
    runs = runs.with_columns(pl.col(fig.x).cast(pl.Float64))
    return runs, figure_table(runs, fig.x)


def figure_table(runs: pl.DataFrame, x: str) -> pl.DataFrame:
    """Mean and intervals (:func:`pertlab.sweep.aggregate`) per scheme and ``x``: what the figure plots."""
    return aggregate(runs, ["scheme", x]).sort("scheme", x)


#: The four panels of Figures 6-9, 11 and 14.
PANELS = (("avg_queue_norm", "average queue / buffer"), ("drop_rate", "drop rate"), ("utilization", "utilization"), ("jain", "Jain index"))


def plot_figure(table: pl.DataFrame, x: str, x_label: str, title: str, path: Path, log_x: bool = True) -> None:
    """Four panels against ``x``, one line per scheme, 95 % CI as error bars."""
    from ..plots import metric_panels

    metric_panels(table, x, list(PANELS), path, title, by="scheme", labels=LABELS, x_label=x_label, log_x=log_x)


# ------------------------------------------------------------------ Figure 12


@dataclass(frozen=True)
class DynamicSetup:
    """Figure 12: groups of flows join every ``step`` and leave every ``step`` after all joined;
    every scheme runs with each of ``seeds``."""

    bw: str
    group: int
    groups: int
    step_s: float
    seeds: tuple[int, ...] = (1,)


#: Full: seeds 1, 2 and 3 (the paper shows one run).
FIG12_FULL = DynamicSetup("150Mbps", 25, 4, 100.0, (1, 2, 3))
#: Quick: the same pattern at a fifth of the time scale and bandwidth, one seed.
FIG12_QUICK = DynamicSetup("30Mbps", 10, 4, 20.0)


def fig12_scenario(scheme: Scheme, setup: DynamicSetup, seed: int = 1) -> Scenario:
    """Group g (0-based) starts at g x step and stops at (groups + g) x step,
    except the last group, which runs to the end; the run lasts (2 groups - 1) x step + step."""
    n = setup.group * setup.groups
    duration_s = 2 * setup.groups * setup.step_s - setup.step_s
    base = dumbbell(
        bw=setup.bw, rtt="60ms", flows=n, cc=scheme.cc, queue=scheme.queue, ecn=scheme.ecn, duration=f"{duration_s}s",
        start_window=0, warmup=0, seed=seed, sample_interval="1s", buffer_bdp=1.0, tcp=NS2_TCP,
    )  # fmt: skip
    wire = base.to_wire()
    for i, flow in enumerate(wire["flows"]):
        g = i // setup.group
        flow.pop("start_window_ns", None)
        flow["start_ns"] = int(g * setup.step_s * 1e9)
        if g < setup.groups - 1:
            flow["stop_ns"] = int((setup.groups + g) * setup.step_s * 1e9)
    return Scenario.parse(wire)


def fig12_points(setup: DynamicSetup, schemes=SCHEMES) -> list[Point]:
    return [Point((("scheme", s.slug),), seed, fig12_scenario(s, setup, seed)) for s in schemes for seed in setup.seeds]


def group_throughput(results, setup: DynamicSetup) -> pl.DataFrame:
    """Aggregate throughput (Mbit/s) of each group per sampling interval."""
    rate = results.flow_goodput().with_columns((pl.col("flow") // setup.group).alias("group"))
    return rate.group_by("t_s", "group").agg(pl.col("mbps").sum()).sort("group", "t_s")


def run_fig12(setup: DynamicSetup, out: Path, workers: Workers = Workers(), schemes=SCHEMES) -> pl.DataFrame:
    """Every group's throughput per second (:func:`group_throughput`) of every run, with
    columns ``scheme`` and ``seed``."""
    points = fig12_points(setup, schemes)
    run_points(points, out, jobs=workers.jobs, cluster=workers.cluster)
    return pl.concat(
        group_throughput(stored_results(p, out), setup).with_columns(pl.lit(p.values[0][1]).alias("scheme"), pl.lit(p.seed).alias("seed"))
        for p in points
    )


def phase_jain(series: pl.DataFrame, setup: DynamicSetup) -> pl.DataFrame:
    """Jain index of the groups' throughputs over the second half of each phase
    with more than one group active (joins, then departures)."""
    from .. import _core

    rows = []
    phases = 2 * setup.groups - 1
    for k in range(phases):
        active = list(range(k + 1)) if k < setup.groups else list(range(k - setup.groups + 1, setup.groups))
        if len(active) < 2:
            continue
        lo, hi = (k + 0.5) * setup.step_s, (k + 1) * setup.step_s
        w = series.filter((pl.col("t_s") > lo) & (pl.col("t_s") <= hi) & pl.col("group").is_in(active))
        means = w.group_by("group").agg(pl.col("mbps").mean()).sort("group")["mbps"].to_list()
        rows.append({"phase": k, "from_s": lo, "to_s": hi, "groups": len(active), "jain": _core.jain_index(means)})
    return pl.DataFrame(rows)


def fig12_means(throughput: pl.DataFrame) -> pl.DataFrame:
    """Each group's throughput per scheme and second: the mean over seeds with its 95 % interval
    (``mbps_lo95``, ``mbps_hi95``, cut at 0; NaN with one seed)."""
    from ..sweep import NON_NEGATIVE, aggregate

    by = ["scheme", "group", "t_s"]
    return aggregate(throughput.sort(*by), by=by, metrics=("mbps",), bounds={"mbps": NON_NEGATIVE})


def plot_fig12(throughput: pl.DataFrame, setup: DynamicSetup, path: Path) -> None:
    """Each group's throughput over time, one panel per scheme: the mean over seeds, shaded
    over its 95 % interval when there are several."""
    from ..plots import saved_figure

    means = fig12_means(throughput)
    schemes = throughput["scheme"].unique(maintain_order=True).to_list()
    title = f"Flows joining and leaving (Figure 12): {setup.group} flows per group, {setup.bw}"
    with saved_figure(path, 1, len(schemes), figsize=(4.3 * len(schemes), 3.6), title=title, sharey=True) as (_, axes):
        for ax, slug in zip(axes, schemes):
            s = means.filter(pl.col("scheme") == slug)
            for g in range(setup.groups):
                t = s.filter(pl.col("group") == g).sort("t_s")
                ax.plot(t["t_s"], t["mbps"], lw=0.8, color=f"C{g}", label=f"group {g + 1}")
                if t["seeds"].max() > 1:
                    mean, lo, hi = (t[c].cast(pl.Float64).fill_null(float("nan")).to_numpy() for c in ("mbps", "mbps_lo95", "mbps_hi95"))
                    ax.fill_between(t["t_s"], np.where(np.isnan(lo), mean, lo), np.where(np.isnan(hi), mean, hi), color=f"C{g}", alpha=0.25, lw=0)
            ax.set_title(LABELS[slug])
            ax.set_xlabel("time (s)")
        axes[0].set_ylabel("aggregate throughput (Mbit/s)")
        axes[0].legend(fontsize=8)


# ------------------------------------------------------------------ Figure 11


def fig11_scenario(scheme: Scheme, mode: Mode, seed: int = 1, hosts: int = 20) -> Scenario:
    """Figure 10's six-router chain (see :func:`pertlab.builders.parking_lot`)."""
    return parking_lot(
        routers=6, hosts=hosts, cc=scheme.cc, queue=scheme.queue, ecn=scheme.ecn, duration=mode.duration,
        start_window=mode.start_window, warmup=mode.warmup, measure_end=mode.measure_end, seed=seed, tcp=NS2_TCP,
    )  # fmt: skip


def fig11_points(mode: Mode) -> list[Point]:
    return [Point((("scheme", s.slug),), seed, fig11_scenario(s, mode, seed)) for s in SCHEMES for seed in mode.seeds]


def fig11_links(results, slug: str, seed: int, hosts: int = 20) -> pl.DataFrame:
    """Per router link (direction R_i -> R_i+1): queue, drops, utilization, and the
    Jain index of the flows between that pair of routers (cloud i to cloud i+1)."""
    from .. import _core

    q = results.queues.filter(pl.col("link").str.starts_with("R") & (pl.col("from") < pl.col("to"))).sort("from")
    goodput = results.flows.sort("id")["goodput_mbps"].to_list()
    rows = []
    for i, link in enumerate(q.iter_rows(named=True)):
        rows.append({
            "scheme": slug, "seed": seed, "link": link["link"], "avg_queue_norm": link["avg_queue_norm"],
            "drop_rate": link["drop_rate"], "mark_rate": link["mark_rate"], "utilization": link["utilization"],
            "jain": _core.jain_index(goodput[i * hosts:(i + 1) * hosts]),
        })  # fmt: skip
    return pl.DataFrame(rows)


def run_fig11(mode: Mode, out: Path, workers: Workers = Workers()) -> pl.DataFrame:
    points = fig11_points(mode)
    run_points(points, out, jobs=workers.jobs, cluster=workers.cluster)
    per_run = pl.concat([fig11_links(stored_results(p, out), p.values[0][1], p.seed) for p in points])
    return per_run


def plot_fig11(table: pl.DataFrame, path: Path) -> None:
    from ..plots import saved_figure

    with saved_figure(path, 1, 4, figsize=(17, 3.8), title="Multiple bottlenecks (Figure 11): router links R1-R2 .. R5-R6") as (_, axes):
        for ax, (metric, label) in zip(axes, PANELS):
            for slug in table["scheme"].unique(maintain_order=True).to_list():
                t = table.filter(pl.col("scheme") == slug).sort("link")
                ax.plot(t["link"].to_list(), t[metric].to_list(), marker="o", ms=3, label=LABELS[slug])
            ax.set_title(label)
            ax.tick_params(axis="x", labelrotation=45)
        axes[0].legend(fontsize=8)


# ------------------------------------------------------------------ Table 1

#: Table 1 of the paper: Q (normalized average queue), p (drop rate), U (utilization, %), F (Jain).
TABLE1_PAPER = {
    "pert": (0.28, 3.98e-06, 93.81, 0.86),
    "sack-droptail": (0.42, 7.18e-04, 93.77, 0.44),
    "sack-red-ecn": (0.41, 4.95e-04, 93.90, 0.51),
    "vegas": (0.07, 0.0, 99.99, 0.98),
}
TABLE1_RTTS = tuple(f"{12 * i}ms" for i in range(1, 11))


#: Table 1 is one point: its full mode takes ten seeds (the Jain index of ten flows varies
#: much from seed to seed: a 95 % interval of +-0.16 with three).
TABLE1_FULL = Mode("full", FULL.duration, FULL.start_window, FULL.warmup, FULL.measure_end, tuple(range(1, 11)))


def table1_scenario(scheme: Scheme, mode: Mode, seed: int = 1) -> Scenario:
    """Section 4.5: 150 Mbit/s, 10 flows with RTTs 12, 24, ..., 120 ms, 100 web sessions;
    buffer one BDP at the shortest RTT."""
    buffer = buffer_packets(150_000_000, 12_000_000, 1500, 1.0, 10)
    return _dumbbell(scheme, mode, seed, bw="150Mbps", rtt=list(TABLE1_RTTS), flows=10, web_sessions=100, buffer_pkts=buffer)


def table1_points(mode: Mode) -> list[Point]:
    return [Point((("scheme", s.slug),), seed, table1_scenario(s, mode, seed)) for s in SCHEMES for seed in mode.seeds]


def run_table1(mode: Mode, out: Path, workers: Workers = Workers()) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(runs, table): the table has our mean and 95 % CI beside the paper's value for Q, p, U, F."""
    runs = run_points(table1_points(mode), out, jobs=workers.jobs, cluster=workers.cluster, on_progress=None)
    return runs, table1_table(runs)


#: Table 1's columns: the paper's name, our metric and its scale (U is in %).
TABLE1_COLUMNS = {"Q": ("avg_queue_norm", 1), "p": ("drop_rate", 1), "U": ("utilization", 100), "F": ("jain", 1)}
#: The range of each column (:data:`pertlab.sweep.BOUNDS`, scaled).
TABLE1_RANGES = {name: Range(BOUNDS[m].lower * k, BOUNDS[m].upper * k, BOUNDS[m].per_flow_floor) for name, (m, k) in TABLE1_COLUMNS.items()}


def table1_table(runs: pl.DataFrame) -> pl.DataFrame:
    """Per scheme and column of Table 1: our mean over seeds, its 95 % half-width, the paper's
    value, ours minus the paper's, and our interval cut to the column's range
    (:func:`pertlab.sweep.aggregate`)."""
    rows = []
    for r in aggregate(runs, ["scheme"]).iter_rows(named=True):
        row: dict[str, Any] = {"scheme": LABELS[r["scheme"]], "slug": r["scheme"]}
        for (name, (m, k)), paper in zip(TABLE1_COLUMNS.items(), TABLE1_PAPER[r["scheme"]]):
            row |= {name: k * r[m], f"{name}_ci95": k * r[f"{m}_ci95"], f"{name}_paper": paper, f"{name}_diff": k * r[m] - paper}
        for name, (m, k) in TABLE1_COLUMNS.items():
            row |= {f"{name}_lo95": k * r[f"{m}_lo95"], f"{name}_hi95": k * r[f"{m}_hi95"]}
        rows.append(row)
    return pl.DataFrame(rows)
