"""Registry entry of Tahiliani's 2013 thesis, Chapter 4: TCP Surathkal (XECN) against
TCP SACK (RFC 3168 ECN) on the dumbbell of Fig. 4.3, bottleneck capacity swept (Fig. 4.4).
The claim checked is the thesis's headline: Surathkal's throughput is not below SACK's
(up to 15.82 % above it). The other Chapter 4 figures are not reproduced yet (issue 16)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from ..builders import dumbbell
from ..parallel import Workers
from ..plots import saved_figure
from ..runner import run
from .registry import Claim, Entry, Figure, Report, Wire, fmt_values, register

NAME = "tahiliani-ch4-capacity"
TITLE = "Fig. 4.4: TCP Surathkal vs TCP SACK, bottleneck capacity swept"
SOURCE = "Tahiliani, PhD thesis, NITK Surathkal 2013, Section 4.4.1 (S4-A (a))"
#: The thesis's headline gain of Surathkal over SACK in this sweep (Section 4.4.1).
THESIS_MAX_GAIN_PCT = 15.82
#: Capacities (Mbit/s) and run length; the thesis gives the range only in the figure
#: (spec 2.2: "sweep ranges ... in the figures only"); access links are 10 Mbit/s.
FULL = {"bw_mbps": [1, 2, 4, 6, 8], "duration": "1100s", "warmup": "100s"}
QUICK = {"bw_mbps": [2, 5, 8], "duration": "200s", "warmup": "20s"}
CCS = ("sack", "surathkal")


def _scenario(bw_mbps: float, cc: str, setup: dict[str, Any]) -> Any:
    """S4-A: 2 FTP flows from t = 0, 1000-byte payloads (1040 bytes on the wire), ARED with a
    5 ms target delay and a 50-packet buffer, ECN (SACK: RFC 3168; Surathkal: XECN), RTT 108 ms
    (2 x (2 + 50 + 2) ms)."""
    return dumbbell(
        bw=f"{bw_mbps}Mbps", rtt="108ms", flows=2, cc=cc, queue="ared", duration=setup["duration"], warmup=setup["warmup"],
        start_window="0s", buffer_pkts=50, ecn=True, packet_size=1040, access_rate="10Mbps", aqm={"target_delay": "5ms"}, seed=1,
    )  # fmt: skip


def _row(item: tuple[float, str, dict[str, Any]]) -> dict[str, Any]:
    bw, cc, setup = item
    r = run(_scenario(bw, cc, setup))
    f = r.flows
    return {
        "bw_mbps": float(bw), "cc": cc, "goodput_mbps": float(f["goodput_mbps"].sum()), "ecn_reductions": int(f["ecn_reductions"].sum()),
        "retransmits": int(f["retransmits"].sum()), "timeouts": int(f["timeouts"].sum()), "utilization": float(r.bottleneck["utilization"]),
    }  # fmt: skip


def _scenarios(quick: bool) -> Wire:
    setup = QUICK if quick else FULL
    return {f"{bw}Mbps-{cc}": _scenario(bw, cc, setup).to_wire() for bw in setup["bw_mbps"] for cc in CCS}


def _run(quick: bool, out: Path, workers: Workers) -> Report:
    setup = QUICK if quick else FULL
    items = [(bw, cc, setup) for bw in setup["bw_mbps"] for cc in CCS]
    runs = pl.DataFrame(workers.map(_row, items))
    wide = runs.pivot(on="cc", index="bw_mbps", values="goodput_mbps").sort("bw_mbps")
    wide = wide.with_columns(((pl.col("surathkal") / pl.col("sack") - 1) * 100).alias("gain_pct"), pl.lit(THESIS_MAX_GAIN_PCT).alias("thesis_max_gain_pct"))
    report = Report(
        NAME, TITLE, SOURCE, "quick" if quick else "full", out,
        notes=[
            f"Capacities {fmt_values(setup['bw_mbps'])} Mbit/s, {setup['duration']} runs, metrics after {setup['warmup']}, one run per point (seed 1).",
            "Dumbbell of Fig. 4.3 as pertlab's builder makes it: 10 Mbit/s access links of 1 ms (the thesis: 2 ms) and a "
            "52 ms bottleneck, so the RTT is the thesis's 108 ms; ARED (target 5 ms) with a 50-packet buffer; SACK is Reno "
            "over SACK recovery with RFC 3168 ECN, Surathkal reads XECN (alpha timing Option A, halving on loss).",
            f"The thesis reports Surathkal's throughput up to {THESIS_MAX_GAIN_PCT} % above SACK's; gain_pct is ours.",
        ],
    )  # fmt: skip
    report.tables = {"comparison": wide, "runs": runs}
    gains = wide["gain_pct"].to_list()
    report.claims = [
        Claim("Surathkal's throughput is not below SACK's at any capacity (Fig. 4.4).", all(g >= 0 for g in gains),
              f"gain over SACK (%) at {fmt_values(wide['bw_mbps'].to_list())} Mbit/s: {fmt_values(gains)}"),
        Claim(f"Surathkal gains over SACK somewhere in the sweep (the thesis: up to {THESIS_MAX_GAIN_PCT} %).", max(gains) > 0,
              f"largest gain {max(gains):.3g} %"),
    ]  # fmt: skip
    return report


def _figures(report: Report) -> list[Figure]:
    def draw(path: Path) -> None:
        runs = report.tables["runs"]
        with saved_figure(path, 1, 1, figsize=(6, 3.6), title=report.title) as (_, ax):
            for cc in CCS:
                t = runs.filter(pl.col("cc") == cc).sort("bw_mbps")
                ax.plot(t["bw_mbps"].to_list(), t["goodput_mbps"].to_list(), marker="o", label=cc)
            ax.set_xlabel("bottleneck capacity (Mbit/s)")
            ax.set_ylabel("total goodput (Mbit/s)")
            ax.legend(fontsize=8)

    return [Figure(f"{NAME}.png", "Total goodput of the two flows against the bottleneck capacity (headers excluded).", draw)]


register(Entry(NAME, TITLE, SOURCE, _run, _figures, _scenarios))
