"""Registry entries of Tahiliani's 2013 thesis, Chapter 4, Section 4.4.1 (S4-A (a), (b)): TCP
Surathkal (XECN) against TCP SACK (RFC 3168 ECN) on the dumbbell of Fig. 4.3
(:mod:`pertlab.experiments.tahiliani_ch4`), with the bottleneck capacity swept
(``tahiliani-ch4-capacity``, Fig. 4.4) and its propagation delay swept (``tahiliani-ch4-rtt``,
Fig. 4.5). The claims checked are the thesis's headlines: Surathkal's throughput is not below
SACK's (up to 15.82 % and 11.59 % above it); along the delay sweep SACK degrades and Surathkal
barely does. Fairness and stability (Figs. 4.6 to 4.9) are in
:mod:`pertlab.reproduce.tahiliani_stability_entries`, the wireless sweeps in
:mod:`pertlab.reproduce.tahiliani_wireless_entries`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..experiments import tahiliani_ch4 as ch4
from ..parallel import Workers
from ..plots import saved_figure
from .registry import Claim, Entry, Figure, Report, Wire, fmt_seeds, fmt_values, register

THESIS = "Tahiliani, PhD thesis, NITK Surathkal 2013"
CCS = ("sack", "surathkal")
#: Run lengths: the thesis's 1100 s with 3 seeds (it shows one run), metrics after 100 s; quick runs
#: measure after 60 s, the time Surathkal takes to fill the link after slow start at a 408 ms RTT.
FULL = ch4.Mode("1100s", "100s", (1, 2, 3))
QUICK = ch4.Mode("200s", "60s", (1,))
#: "Barely affected" (Sec. 4.4.1, Fig. 4.5) read as: Surathkal's goodput at every delay within
#: this many percent of its goodput at the shortest delay (the thesis gives no number).
BARELY_PCT = 5.0


@dataclass(frozen=True)
class Sweep:
    """One S4-A sweep: the keyword of :func:`~pertlab.experiments.tahiliani_ch4.s4a` it varies,
    its grids (quick, full), the axis label and the thesis's largest gain of Surathkal over SACK."""

    name: str
    title: str
    source: str
    x: str
    quick: tuple[float, ...]
    full: tuple[float, ...]
    label: str
    thesis_max_gain_pct: float

    def points(self, quick: bool) -> list[tuple[str, float, str, int, ch4.Mode]]:
        mode = QUICK if quick else FULL
        xs = self.quick if quick else self.full
        return [(self.x, x, cc, seed, mode) for x in xs for cc in CCS for seed in mode.seeds]


#: Fig. 4.4: 2 flows, 50 ms; capacities (Mbit/s) read from the figure (spec 2.2: "sweep ranges ... in the figures only").
CAPACITY = Sweep("tahiliani-ch4-capacity", "Fig. 4.4: TCP Surathkal vs TCP SACK, bottleneck capacity swept", f"{THESIS}, Section 4.4.1 (S4-A (a))",
                 "bw_mbps", (2, 5, 8), (1, 2, 4, 6, 8), "bottleneck capacity (Mbit/s)", 15.82)  # fmt: skip
#: Fig. 4.5: 2 flows, 8 Mbit/s; the bottleneck's one-way propagation delay (ms), our grid (the figure's axis is not in the text).
RTT = Sweep("tahiliani-ch4-rtt", "Fig. 4.5: TCP Surathkal vs TCP SACK, bottleneck propagation delay swept", f"{THESIS}, Section 4.4.1 (S4-A (b))",
            "delay_ms", (10, 100, 200), (10, 25, 50, 75, 100, 150, 200), "bottleneck propagation delay, one way (ms)", 11.59)  # fmt: skip


def _row(item: tuple[str, float, str, int, ch4.Mode]) -> dict[str, Any]:
    x, value, cc, seed, mode = item
    return {x: float(value), "cc": cc, "seed": seed, **ch4.flow_row(ch4.s4a(cc, mode, seed, **{x: value}))}


def _scenarios(sweep: Sweep, quick: bool) -> Wire:
    return {f"{sweep.x}={v:g}-{cc}-seed{seed}": ch4.s4a(cc, mode, seed, **{x: v}).to_wire() for x, v, cc, seed, mode in sweep.points(quick)}


def _comparison(runs: pl.DataFrame, x: str, thesis_gain: float) -> pl.DataFrame:
    """Mean goodput over seeds per point and controller, Surathkal's gain over SACK (%) from the
    means, and the smallest per-seed gain."""
    means = runs.group_by(x, "cc").agg(pl.col("goodput_mbps").mean()).pivot(on="cc", index=x, values="goodput_mbps").sort(x)
    per_seed = runs.pivot(on="cc", index=[x, "seed"], values="goodput_mbps").with_columns(((pl.col("surathkal") / pl.col("sack") - 1) * 100).alias("g"))
    worst = per_seed.group_by(x).agg(pl.col("g").min().alias("min_seed_gain_pct"))
    return (
        means.with_columns(((pl.col("surathkal") / pl.col("sack") - 1) * 100).alias("gain_pct"), pl.lit(thesis_gain).alias("thesis_max_gain_pct"))
        .join(worst, on=x)
        .sort(x)
    )


def _common_claims(sweep: Sweep, wide: pl.DataFrame) -> list[Claim]:
    xs, gains = wide[sweep.x].to_list(), wide["gain_pct"].to_list()
    return [
        Claim(f"Surathkal's throughput is not below SACK's at any point ({sweep.title.split(':')[0]}; mean over seeds).", all(g >= 0 for g in gains),
              f"gain over SACK (%) at {fmt_values(xs)}: {fmt_values(gains)}; smallest per seed {fmt_values(wide['min_seed_gain_pct'].to_list())}"),
        Claim(f"Surathkal gains over SACK somewhere in the sweep (the thesis: up to {sweep.thesis_max_gain_pct} %).", max(gains) > 0,
              f"largest gain {max(gains):.3g} %"),
    ]  # fmt: skip


def _rtt_claims(wide: pl.DataFrame) -> list[Claim]:
    """Fig. 4.5's shape: SACK falls as the delay grows, Surathkal stays within BARELY_PCT."""
    sack, sur = wide["sack"].to_list(), wide["surathkal"].to_list()
    sack_drop = (1 - sack[-1] / sack[0]) * 100
    sur_dev = [abs(v / sur[0] - 1) * 100 for v in sur]
    return [
        Claim("SACK degrades as the delay grows: from the shortest to the longest delay its goodput falls by more than Surathkal's.",
              sack_drop > (1 - sur[-1] / sur[0]) * 100, f"SACK falls {sack_drop:.3g} %, Surathkal {(1 - sur[-1] / sur[0]) * 100:.3g} %"),
        Claim(f"Surathkal is barely affected by the delay (every point within {BARELY_PCT:g} % of its shortest-delay goodput).",
              max(sur_dev) <= BARELY_PCT, f"largest deviation {max(sur_dev):.3g} %; goodput {fmt_values(sur)} Mbit/s"),
    ]  # fmt: skip


def _run(sweep: Sweep, quick: bool, out: Path, workers: Workers) -> Report:
    mode = QUICK if quick else FULL
    runs = pl.DataFrame(workers.map(_row, sweep.points(quick)))
    wide = _comparison(runs, sweep.x, sweep.thesis_max_gain_pct)
    report = Report(
        sweep.name, sweep.title, sweep.source, "quick" if quick else "full", out,
        notes=[
            f"{sweep.label}: {fmt_values(list(sweep.quick if quick else sweep.full))}; {mode.duration} runs, metrics after {mode.warmup}, "
            f"seeds {fmt_seeds(list(mode.seeds))} (the thesis shows one run); goodput is the mean over seeds.",
            "Dumbbell of Fig. 4.3 as pertlab's builder makes it: 10 Mbit/s access links of 1 ms (the thesis: 2 ms) and a "
            "bottleneck 2 ms longer than the thesis's, so the RTT is the thesis's 2 (d + 4) ms; ARED (target 5 ms) with a 50-packet "
            "buffer; SACK is Reno over SACK recovery with RFC 3168 ECN, Surathkal reads XECN (alpha timing Option A, halving on loss).",
            f"The thesis reports Surathkal's throughput up to {sweep.thesis_max_gain_pct} % above SACK's; gain_pct is ours.",
        ],
    )  # fmt: skip
    report.tables = {"comparison": wide, "runs": runs}
    report.claims = _common_claims(sweep, wide) + (_rtt_claims(wide) if sweep is RTT else [])
    return report


def _figures(sweep: Sweep, report: Report) -> list[Figure]:
    def draw(path: Path) -> None:
        wide = report.tables["comparison"]
        with saved_figure(path, 1, 1, figsize=(6, 3.6), title=report.title) as (_, ax):
            for cc in CCS:
                ax.plot(wide[sweep.x].to_list(), wide[cc].to_list(), marker="o", label=cc)
            ax.set_xlabel(sweep.label)
            ax.set_ylabel("total goodput (Mbit/s)")
            ax.legend(fontsize=8)

    return [Figure(f"{sweep.name}.png", f"Total goodput of the two flows (mean over seeds, headers excluded) against the {sweep.label}.", draw)]


for _sweep in (CAPACITY, RTT):
    register(
        Entry(
            _sweep.name, _sweep.title, _sweep.source,
            lambda quick, out, workers, s=_sweep: _run(s, quick, out, workers),
            lambda report, s=_sweep: _figures(s, report),
            lambda quick, s=_sweep: _scenarios(s, quick),
        )
    )  # fmt: skip
