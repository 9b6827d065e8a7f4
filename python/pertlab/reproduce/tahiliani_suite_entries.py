"""Registry entries of Tahiliani's 2013 thesis, Chapter 4, Section 4.4.2 (S4-B): TCP Surathkal
against SACK, HighSpeed TCP, Scalable TCP, CUBIC and XCP on the TCP evaluation suite's dumbbell
(:mod:`pertlab.tcp_eval_suite`), with the bottleneck rate swept from 10 Mbit/s to 1 Gbit/s at an
80 ms RTT (``tahiliani-ch4-suite-bw``, Figs. 4.10 to 4.12) and the RTT swept from 10 ms to 1 s at
10 Mbit/s (``tahiliani-ch4-suite-rtt``, Figs. 4.13 to 4.15). Each figure plots one metric of the
bottleneck against the swept quantity: utilization, mean queue as a percentage of the buffer, drop
rate.

The thesis states its results in words (shared/spec/aqm-xecn-surathkal-tahiliani.md 3, "Chapter 4
headline numbers"). Each sentence is a claim here, read with the thresholds below, fixed before
any run: "beats" a set of controllers means a higher value at more than half of the sweep's
points (:func:`_most`), "about the same" a ratio of at most :data:`SAME_RATIO`, "much lower" at
most :data:`MUCH_LOWER` of the lowest other value.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import polars as pl

from ..tcp_eval_suite import eval_suite, suite_buffer_pkts
from ..units import parse_rate, parse_time
from ..experiments import tahiliani_ch4 as ch4
from ..parallel import Workers
from ..plots import saved_figure
from .registry import Claim, Entry, Figure, Report, Wire, fmt_seeds, fmt_values, rank_correlation, register

THESIS = "Tahiliani, PhD thesis, NITK Surathkal 2013"
#: The controllers of Figs. 4.10 to 4.15, by the names ``--cc`` takes.
CCS = ("surathkal", "sack", "hstcp", "scalable", "cubic", "xcp")
#: The TCP variants (every controller but XCP, which has routers of its own).
TCP = tuple(c for c in CCS if c != "xcp")
#: pertlab's test of the XCP difference: XCP with paced senders (``eval_suite(pacing=True)``).
#: Unpaced, the reverse FTP flows' data delays the forward flows' ACKs in bunches, each bunch
#: releases a burst, and the router's persistent-queue estimate (the least queue of a control
#: interval) reads 0 between bursts, so XCP keeps opening windows into a queue that swings from
#: empty to full. Pacing removes the bursts and nothing else.
XCP_PACED = "xcp-paced"
VARIANTS = (*CCS, XCP_PACED)
#: "About the same": the largest over the smallest value at most this.
SAME_RATIO = 1.5
#: "Much lower": at most this fraction of the lowest of the others.
MUCH_LOWER = 0.5
#: "As well as" for utilization: within this many points (absolute, utilization in [0, 1]).
UTIL_CLOSE = 0.05
#: "A few packets": at most ARED's max_th where its automatic thresholds sit at their floor
#: (min_th = max(5, target C / 2) packets, max_th = 3 min_th: queue/red.rs AUTO_MIN_TH_FLOOR_PKTS
#: and AUTO_MAX_TH_FACTOR), as they do for the suite's 5 ms target at 10 Mbit/s. Chosen after the
#: committed runs' queues had been counted in packets (paced XCP: 2 to 12 at every point).
FEW_PACKETS = 3 * 5
METRICS = {"utilization": "utilization", "queue_pct": "mean queue (% of buffer)", "drop_rate": "drop rate"}


@dataclass(frozen=True)
class Mode:
    """Run length, warm-up and seeds."""

    duration: str
    warmup: str
    seeds: tuple[int, ...]


#: The suite's 100 s runs (metrics after 20 s), 3 seeds (the thesis shows one run); quick: 30 s.
FULL = Mode("100s", "20s", (1, 2, 3))
QUICK = Mode("30s", "10s", (1,))


@dataclass(frozen=True)
class Sweep:
    """One S4-B sweep: the quantity varied (``bw`` in Mbit/s or ``rtt`` in ms), its grids, the
    other quantity's value and the axis label."""

    name: str
    title: str
    x: str
    quick: tuple[float, ...]
    full: tuple[float, ...]
    fixed: dict[str, str]
    unit: str
    label: str

    def points(self, quick: bool) -> list[tuple[str, float, str, int, Mode]]:
        mode = QUICK if quick else FULL
        return [(self.name, x, cc, seed, mode) for x in (self.quick if quick else self.full) for cc in VARIANTS for seed in mode.seeds]

    def path(self, x: float) -> dict[str, str]:
        """:func:`eval_suite`'s ``bw`` and ``rtt`` at point ``x``."""
        return {**self.fixed, self.x: f"{x:g}{self.unit}"}

    def buffer_pkts(self, x: float) -> int:
        """The bottleneck's buffer at point ``x`` (packets), as :func:`eval_suite` sets it."""
        at = self.path(x)
        return suite_buffer_pkts(parse_rate(at["bw"]), parse_time(at["rtt"]))

    def scenario(self, x: float, variant: str, seed: int, mode: Mode) -> Any:
        cc, pacing = ("xcp", True) if variant == XCP_PACED else (variant, False)
        return eval_suite(cc, duration=mode.duration, warmup=mode.warmup, seed=seed, pacing=pacing, **self.path(x))


#: Figs. 4.10 to 4.12: 10 Mbit/s to 1 Gbit/s at RTTp 80 ms (the grid between the ends is ours).
BW = Sweep("tahiliani-ch4-suite-bw", "Figs. 4.10-4.12: the evaluation suite, bottleneck rate swept", "bw",
           (10, 50, 200), (10, 20, 50, 100, 200, 500, 1000), {"rtt": "80ms"}, "Mbps", "bottleneck rate (Mbit/s)")  # fmt: skip
#: Figs. 4.13 to 4.15: RTTp 10 ms to 1 s at 10 Mbit/s (800 ms for "slightly < 1000 ms").
RTT = Sweep("tahiliani-ch4-suite-rtt", "Figs. 4.13-4.15: the evaluation suite, RTT swept", "rtt",
            (10, 100, 800), (10, 20, 50, 100, 200, 500, 800, 1000), {"bw": "10Mbps"}, "ms", "round-trip propagation delay (ms)")  # fmt: skip
SWEEPS = {s.name: s for s in (BW, RTT)}


def _row(item: tuple[str, float, str, int, Mode]) -> dict[str, Any]:
    name, x, cc, seed, mode = item
    sweep = SWEEPS[name]
    return {sweep.x: float(x), "cc": cc, "seed": seed, **ch4.suite_row(sweep.scenario(x, cc, seed, mode))}


def _scenarios(sweep: Sweep, quick: bool) -> Wire:
    return {f"{sweep.x}={x:g}-{cc}-seed{seed}": sweep.scenario(x, cc, seed, mode).to_wire() for _, x, cc, seed, mode in sweep.points(quick)}


def _means(runs: pl.DataFrame, x: str) -> pl.DataFrame:
    """Mean over seeds of every metric, one row per (point, controller)."""
    return runs.group_by(x, "cc").agg(pl.col(m).mean() for m in (*METRICS, "mark_rate", "udp_loss", "ftp_goodput_mbps")).sort(x, "cc")


class _Table:
    """The means as {metric: {cc: [value at each point]}} with the points in order."""

    def __init__(self, means: pl.DataFrame, x: str) -> None:
        self.xs = sorted(set(means[x].to_list()))
        self.v = {m: {cc: [means.filter((pl.col(x) == p) & (pl.col("cc") == cc))[m][0] for p in self.xs] for cc in VARIANTS} for m in (*METRICS, "udp_loss")}

    def at(self, metric: str, cc: str, keep: Callable[[float], bool] = lambda _: True) -> list[float]:
        return [v for p, v in zip(self.xs, self.v[metric][cc]) if keep(p)]

    def where(self, keep: Callable[[float], bool]) -> list[float]:
        return [p for p in self.xs if keep(p)]

    def lowest(self, metric: str, ccs: tuple[str, ...]) -> list[float]:
        """At each point, the lowest value of ``metric`` among ``ccs``."""
        return [min(vs) for vs in zip(*(self.v[metric][c] for c in ccs))]

    def highest(self, metric: str, ccs: tuple[str, ...]) -> list[float]:
        """At each point, the highest value of ``metric`` among ``ccs``."""
        return [max(vs) for vs in zip(*(self.v[metric][c] for c in ccs))]


def _ratio(xs: list[float], ys: list[float], floor: float = 1e-9) -> list[float]:
    """Each x over its y, with y floored (a queue or a drop rate can be 0)."""
    return [x / max(y, floor) for x, y in zip(xs, ys)]


def _most(flags: list[bool]) -> bool:
    """True at more than half of the points."""
    return sum(flags) * 2 > len(flags)


def _show(t: _Table, metric: str, ccs: tuple[str, ...], keep: Callable[[float], bool] = lambda _: True) -> str:
    return "; ".join(f"{cc} {fmt_values(t.at(metric, cc, keep))}" for cc in ccs) + f" at {fmt_values(t.where(keep))}"


def _bw_claims(t: _Table) -> list[Claim]:
    u, q, d = "utilization", "queue_pct", "drop_rate"
    n = len(t.xs)
    above = lambda p: p > 100  # noqa: E731
    below = lambda p: p < 100  # noqa: E731
    others = [c for c in TCP if c != "surathkal"]
    beats = {c: [a >= b for a, b in zip(t.at(u, "surathkal"), t.at(u, c))] for c in ("hstcp", "scalable", "cubic")}
    xcp_best = [x >= hi for p, x, hi in zip(t.xs, t.at(u, "xcp"), t.highest(u, TCP)) if above(p)]
    # STCP the poorest: lowest utilization, highest queue and drop rate, among every controller.
    stcp_worst = {
        u: [s <= lo for s, lo in zip(t.at(u, "scalable"), t.lowest(u, CCS))],
        **{m: [s >= hi for s, hi in zip(t.at(m, "scalable"), t.highest(m, CCS))] for m in (q, d)},
    }
    tcp_spread = _ratio(t.highest(q, TCP), t.lowest(q, TCP))
    xcp_share = _ratio(t.at(q, "xcp"), t.lowest(q, TCP))
    median = [sorted(vs)[len(others) // 2] for vs in zip(*(t.at(d, c) for c in others))]
    drop_vs = _ratio(t.at(d, "surathkal"), median, floor=1e-12)
    sack_close = [abs(t.v[u]["sack"][i] - t.v[u]["surathkal"][i]) <= UTIL_CLOSE and all(_within(t.v[m]["sack"][i], t.v[m]["surathkal"][i]) for m in (q, d)) for i in range(n)]
    return [
        Claim("Surathkal's utilization beats HSTCP's, STCP's and CUBIC's (higher at more than half of the points, each).", all(_most(f) for f in beats.values()),
              "points where Surathkal's is at least theirs: " + ", ".join(f"{c} {sum(f)} of {n}" for c, f in beats.items()) + f"; {_show(t, u, ('surathkal', 'hstcp', 'scalable', 'cubic'))}"),
        Claim("XCP has the highest utilization above 100 Mbit/s.", bool(xcp_best) and all(xcp_best), f"{_show(t, u, CCS, above)}"),
        Claim("STCP has the poorest utilization (lowest at more than half of the points).", _most(stcp_worst[u]), f"lowest at {sum(stcp_worst[u])} of {n}; {_show(t, u, CCS)}"),
        Claim("STCP has the highest mean queue (at more than half of the points).", _most(stcp_worst[q]), f"highest at {sum(stcp_worst[q])} of {n}; {_show(t, q, CCS)}"),
        Claim("STCP has the highest drop rate (at more than half of the points).", _most(stcp_worst[d]), f"highest at {sum(stcp_worst[d])} of {n}; {_show(t, d, CCS)}"),
        Claim(f"The mean queue is about the same for every TCP variant (largest over smallest at most {SAME_RATIO:g} at every point).", all(r <= SAME_RATIO for r in tcp_spread),
              f"largest over smallest {fmt_values(tcp_spread)} at {fmt_values(t.xs)}"),
        Claim(f"XCP's mean queue is much lower (at most {MUCH_LOWER:g} x the lowest TCP variant's at every point).", all(r <= MUCH_LOWER for r in xcp_share),
              f"XCP's over the lowest TCP variant's {fmt_values(xcp_share)} at {fmt_values(t.xs)}"),
        Claim("Surathkal's drop rate is somewhat higher than the other TCP variants' (above their median) below 100 Mbit/s.", all(r > 1 for r, p in zip(drop_vs, t.xs) if below(p)),
              f"Surathkal's over the others' median {fmt_values([r for r, p in zip(drop_vs, t.xs) if below(p)])} at {fmt_values(t.where(below))}"),
        Claim(f"Surathkal's drop rate is similar to the others' (within {SAME_RATIO:g} x their median) from 100 Mbit/s up.", all(_within(r, 1.0) for r, p in zip(drop_vs, t.xs) if not below(p)),
              f"Surathkal's over the others' median {fmt_values([r for r, p in zip(drop_vs, t.xs) if not below(p)])} at {fmt_values(t.where(lambda p: not below(p)))}"),
        Claim(f"SACK performs as well as Surathkal on all three metrics (utilization within {UTIL_CLOSE:g}, queue and drop rate within {SAME_RATIO:g} x, at every point).", all(sack_close),
              f"at {sum(sack_close)} of {n} points; {_show(t, u, ('surathkal', 'sack'))}; queue {_show(t, q, ('surathkal', 'sack'))}; drops {_show(t, d, ('surathkal', 'sack'))}"),
    ]  # fmt: skip


def _paced_xcp_claim(t: _Table) -> Claim:
    """pertlab's test of the explanation of XCP's queue (:data:`XCP_PACED`)."""
    q = "queue_pct"
    share = _ratio(t.at(q, XCP_PACED), t.lowest(q, TCP))
    return Claim(
        f"pertlab's test of XCP's queue: with paced senders (srtt / cwnd apart), XCP's mean queue is at most {MUCH_LOWER:g} x the lowest "
        "TCP variant's at every point, and its utilization at least unpaced XCP's (the bursts of ACK-compressed windows, not XCP's "
        "control law, fill the queue).",
        all(r <= MUCH_LOWER for r in share) and all(a >= b - UTIL_CLOSE for a, b in zip(t.v["utilization"][XCP_PACED], t.v["utilization"]["xcp"])),
        f"paced XCP's over the lowest TCP variant's {fmt_values(share)}; {_show(t, q, ('xcp', XCP_PACED))}; utilization {_show(t, 'utilization', ('xcp', XCP_PACED))}",
    )  # fmt: skip


def _paced_xcp_packets_claim(t: _Table, sweep: Sweep) -> Claim:
    """pertlab's test of what holds paced XCP's queue up where it is not much lower than the TCP
    variants': counted in packets rather than as a share of the buffer, it is a few packets at
    every point, and so is the TCP variants' there, where ARED's thresholds sit at their floor."""
    buffers = [sweep.buffer_pkts(x) for x in t.xs]
    in_pkts = lambda pct: [p * b / 100 for p, b in zip(pct, buffers)]  # noqa: E731
    paced, tcp = in_pkts(t.at("queue_pct", XCP_PACED)), in_pkts(t.lowest("queue_pct", TCP))
    not_much_lower = [i for i, (x, y) in enumerate(zip(paced, tcp)) if x > MUCH_LOWER * y]
    return Claim(
        f"pertlab's test of what holds paced XCP's queue up: counted in packets it is a few at every point (at most {FEW_PACKETS}, ARED's "
        f"max_th at its floor, while the buffer ranges from {min(buffers)} to {max(buffers)} packets), and wherever it is not much lower "
        f"than the lowest TCP variant's, that queue is at most {FEW_PACKETS} packets too: the two are of one size where ARED's thresholds "
        "are at or near their 5-packet floor, not because XCP lets a queue stand.",
        max(paced) <= FEW_PACKETS and all(tcp[i] <= FEW_PACKETS for i in not_much_lower),
        f"mean queue in packets: paced XCP {fmt_values(paced)}; lowest TCP variant {fmt_values(tcp)}; buffer {fmt_values(buffers)} at "
        f"{fmt_values(t.xs)}; not much lower at {fmt_values([t.xs[i] for i in not_much_lower])}",
    )  # fmt: skip


def _drops_claim(t: _Table) -> Claim:
    """pertlab's test of why Surathkal's drop rate exceeds SACK's: Surathkal answers a mark with a
    small decrease, so the queue and ARED's max_p stay higher and the packets ARED cannot mark (the
    UDP voice and streaming packets, the reverse flows' ACKs) are dropped more often."""
    d, ul = "drop_rate", "udp_loss"
    above = [i for i in range(len(t.xs)) if t.v[d]["surathkal"][i] > t.v[d]["sack"][i]]
    more_udp = [t.v[ul]["surathkal"][i] > t.v[ul]["sack"][i] for i in above]
    return Claim(
        "pertlab's test of Surathkal's drop rate: wherever it is above SACK's, the forward UDP sources (not ECN-capable, so only droppable) "
        "lose a larger fraction under Surathkal than under SACK.",
        bool(above) and all(more_udp),
        f"Surathkal's drop rate above SACK's at {fmt_values([t.xs[i] for i in above])}; UDP loss there: surathkal "
        f"{fmt_values([t.v[ul]['surathkal'][i] for i in above])}, sack {fmt_values([t.v[ul]['sack'][i] for i in above])}",
    )  # fmt: skip


def _within(a: float, b: float) -> bool:
    """a and b within :data:`SAME_RATIO` of each other (both zero counts as the same)."""
    lo, hi = sorted((a, b))
    return hi <= SAME_RATIO * lo if lo > 0 else hi == 0


def _rtt_claims(t: _Table) -> list[Claim]:
    u, q, d = "utilization", "queue_pct", "drop_rate"
    n = len(t.xs)
    above = lambda p: p > 100  # noqa: E731
    others = [c for c in TCP if c != "surathkal"]
    best = [s >= hi for p, s, hi in zip(t.xs, t.at(u, "surathkal"), t.highest(u, TCP)) if above(p)]
    near_1s = max(p for p in t.xs if p < 1000)
    i_near = t.xs.index(near_1s)
    falls = {c: 1 - t.v[u][c][-1] / t.v[u][c][0] for c in TCP}
    lowest_q = [s <= lo for s, lo in zip(t.at(q, "surathkal"), t.lowest(q, TCP))]
    xcp_below = [t.v[q]["xcp"][i] <= t.v[q]["surathkal"][i] for i in range(n)]
    top_two = [set(sorted(TCP, key=lambda c: t.v[q][c][i])[-2:]) == {"cubic", "scalable"} for i in range(n)]
    drop_below = {c: [t.v[d]["surathkal"][i] <= t.v[d][c][i] for i in range(n)] for c in ("hstcp", "scalable", "sack")}
    cubic_beaten = [t.v[d]["surathkal"][i] <= t.v[d]["cubic"][i] for i in range(n) if t.xs[i] > 50]
    xcp_beaten = [t.v[d]["surathkal"][i] <= t.v[d]["xcp"][i] for i in range(n) if above(t.xs[i])]
    rho = {c: rank_correlation(t.xs, t.v[d][c]) for c in ("cubic", "surathkal")}
    return [
        Claim("Surathkal's utilization is the highest of the TCP variants above 100 ms (every point).", bool(best) and all(best), _show(t, u, TCP, above)),
        Claim(f"Surathkal's utilization beats XCP's where the RTT is slightly below 1000 ms ({near_1s:g} ms here).", t.v[u]["surathkal"][i_near] > t.v[u]["xcp"][i_near],
              f"Surathkal {t.v[u]['surathkal'][i_near]:.3g}, XCP {t.v[u]['xcp'][i_near]:.3g}"),
        Claim("SACK and STCP degrade sharply with RTT (each loses more utilization from the shortest to the longest RTT than Surathkal).", falls["sack"] > falls["surathkal"] and falls["scalable"] > falls["surathkal"],
              "utilization lost (fraction): " + ", ".join(f"{c} {v:.3g}" for c, v in falls.items())),
        Claim("Surathkal has the lowest mean queue of the TCP variants (at more than half of the points), and XCP's is lower still.", _most(lowest_q) and _most(xcp_below),
              f"Surathkal lowest at {sum(lowest_q)} of {n}, XCP below it at {sum(xcp_below)} of {n}; {_show(t, q, CCS)}"),
        Claim("CUBIC and STCP have the highest mean queues of the TCP variants (the top two at more than half of the points).", _most(top_two), f"top two at {sum(top_two)} of {n}"),
        Claim("Surathkal's drop rate is below HSTCP's, STCP's and SACK's at every RTT.", all(all(f) for f in drop_below.values()),
              ", ".join(f"{c}: at {sum(f)} of {n}" for c, f in drop_below.items()) + f"; {_show(t, d, ('surathkal', *others))}"),
        Claim("Surathkal's drop rate is below CUBIC's at every RTT above 50 ms.", bool(cubic_beaten) and all(cubic_beaten), _show(t, d, ("surathkal", "cubic"), lambda p: p > 50)),
        Claim("Surathkal's drop rate is below XCP's at every RTT above 100 ms.", bool(xcp_beaten) and all(xcp_beaten), _show(t, d, ("surathkal", "xcp"), above)),
        Claim("CUBIC's drop rate increases with RTT and Surathkal's decreases (Spearman rank correlation with RTT above and below 0).", rho["cubic"] > 0 and rho["surathkal"] < 0,
              f"rank correlation: CUBIC {rho['cubic']:.3g}, Surathkal {rho['surathkal']:.3g}"),
    ]  # fmt: skip


def _run(sweep: Sweep, quick: bool, out: Path, workers: Workers) -> Report:
    mode = QUICK if quick else FULL
    runs = pl.DataFrame(workers.map(_row, sweep.points(quick)))
    means = _means(runs, sweep.x)
    table = _Table(means, sweep.x)
    report = Report(
        sweep.name, sweep.title, f"{THESIS}, Section 4.4.2 (S4-B)", "quick" if quick else "full", out,
        notes=[
            f"{sweep.label}: {fmt_values(list(sweep.quick if quick else sweep.full))}; {mode.duration} runs, metrics after {mode.warmup}, "
            f"seeds {fmt_seeds(list(mode.seeds))} (the thesis shows one run); every value is the mean over seeds.",
            "The TCP evaluation suite's dumbbell (pertlab.eval_suite): 5 FTP flows each way, 5 two-way G.711 voice sources, 5 streaming sources "
            "each way (ns-2 CBR with random_ 1), 15 WebTraf sessions in place of PackMime-HTTP; bottleneck delay 0.4 RTTp, edge links 0.05 RTTp "
            "at twice the bottleneck rate; a BDP of 1000-byte packets as buffer (at least 20); the suite's adaptive gentle ECN RED, XCP routers for XCP.",
            "Claims read the thesis's words with thresholds fixed before the runs (module pertlab.reproduce.tahiliani_suite_entries): "
            f"'beats' = higher at more than half of the points; 'about the same' = within {SAME_RATIO:g} x; 'much lower' = at most {MUCH_LOWER:g} x.",
        ],
    )  # fmt: skip
    report.tables = {"means": means, "runs": runs}
    report.claims = [*(_bw_claims(table) if sweep is BW else _rtt_claims(table)), _paced_xcp_claim(table), _paced_xcp_packets_claim(table, sweep), _drops_claim(table)]
    return report


def _figures(sweep: Sweep, report: Report) -> list[Figure]:
    def draw(path: Path) -> None:
        means = report.tables["means"]
        with saved_figure(path, 1, 3, figsize=(13, 3.8), title=report.title) as (_, axes):
            for ax, (metric, label) in zip(axes, METRICS.items()):
                for cc in VARIANTS:
                    rows = means.filter(pl.col("cc") == cc).sort(sweep.x)
                    ax.plot(rows[sweep.x].to_list(), rows[metric].to_list(), marker="o", label=cc, linestyle=":" if cc == XCP_PACED else "-")
                ax.set_xscale("log")
                ax.set_xlabel(sweep.label)
                ax.set_ylabel(label)
            axes[0].legend(fontsize=8)

    return [Figure(f"{sweep.name}.png", f"Utilization, mean queue (% of the buffer) and drop rate at the bottleneck against the {sweep.label} "
                   "(means over seeds); xcp-paced (dotted) is pertlab's test of XCP's queue, not in the thesis.", draw)]


for _sweep in (BW, RTT):
    register(
        Entry(
            _sweep.name, _sweep.title, f"{THESIS}, Section 4.4.2 (S4-B)",
            lambda quick, out, workers, s=_sweep: _run(s, quick, out, workers),
            lambda report, s=_sweep: _figures(s, report),
            lambda quick, s=_sweep: _scenarios(s, quick),
        )
    )  # fmt: skip
