"""Registry entry of Qian's 2011 thesis, Chapters IV and V: ``qian11-ack-coalescing``
(Figs 16, 17: data/ACK ratios of the three receivers; Figs 18a, 21, 22-24 and 31-34: the
srtt over-estimate ACK coalescing causes and its removal by pacing or by the ACK-train RTT
correction). The tables carry the thesis's numbers beside ours; every claim is computed from
the runs. Scenario choices: :mod:`pertlab.experiments.qian11`."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..experiments import qian11 as q
from ..parallel import Workers
from ..plots import saved_figure
from .registry import Claim, Entry, Figure, Report, fmt_values, register

NAME = "qian11-ack-coalescing"
TITLE = "Figs 16-18, 21-24, 31-34: ACK coalescing, the srtt it inflates, pacing and the RTT correction"
SOURCE = "Qian, MS thesis, 2011, Chapters IV.A-IV.C and V"
QUICK = q.Setup("30s", "10s", (1, 2), {"bw_mbps": (1.0, 10.0), "delay_ms": (5, 50), "cross_flows": (10,), "cross_size": (500,)})
FULL = q.Setup(
    "300s", "30s", (1, 2, 3, 4, 5),
    {"bw_mbps": (1.0, 2.0, 5.0, 10.0), "delay_ms": (5, 10, 35, 50), "cross_flows": (5, 7, 10), "cross_size": (500, 1000, 1500)},
)  # fmt: skip
#: The share of the plain inflation a fix must remove to "remove most of it".
MOST = 0.5


def _run(quick: bool, out: Path, workers: Workers) -> Report:
    setup = QUICK if quick else FULL
    tasks = q.tasks(setup)
    groups = workers.map(q.task, tasks)
    acks = pl.DataFrame([row for (kind, _), rows in zip(tasks, groups) if kind == "ack" for row in rows])
    runs = pl.DataFrame([row for (kind, _), rows in zip(tasks, groups) if kind == "srtt" for row in rows])
    ack_table = (
        acks.group_by("variant", "policy", maintain_order=True)
        .agg(pl.col("data_mbps", "ack_mbps", "data_ack_ratio", "goodput_mbps").mean(), pl.col("drops").sum())
        .with_columns(pl.col("policy").replace_strict(q.THESIS_RATIO, return_dtype=pl.Float64).alias("thesis_data_ack_ratio"))
    )
    inflation = q.removal(runs).with_columns(pl.lit(q.THESIS_INFLATION_MS).alias("thesis_inflation_none_ms"))
    report = Report(
        NAME, TITLE, SOURCE, "quick" if quick else "full", out,
        notes=[
            f"{setup.duration} runs, metrics after {setup.warmup}, seeds {fmt_values(list(setup.seeds))}; flows start in the first 1 s (ACK "
            "ratios) or 2 s (srtt).",
            "ACK ratios (Figs 16, 17): one SACK flow, 10 Mbit/s, 60 ms, 100-packet buffer; window_limited caps the window at 100 "
            "segments (no loss, the link busy), greedy has no cap (drop-tail losses). The thesis gives no link for these figures.",
            f"srtt (Figs 18a, 21-24, 31-34): Chapter V's two PERT flows, {q.BASE['bw_mbps']:g} Mbit/s, {q.BASE['delay_ms']} ms one-way "
            f"(RTT {2 * q.BASE['delay_ms']} ms), {q.PACKET_BYTES}-byte packets, {q.BUFFER_PKTS}-packet buffer (ns-2's default), one "
            "flow behind an every-segment receiver and one behind the adaptive receiver (\"Delay By 4\"). inflation = mean srtt "
            "(sender's smoothed RTT, sampled every 100 ms in the window) of the adaptive flow minus the every-segment flow's, same "
            "run; fixes applied to both measured flows: pacing (srtt / cwnd) or the RTT correction (eqs. 5.1-5.4). Sweeps move one "
            f"parameter; cross traffic is greedy PERT flows behind every-segment receivers ({q.CROSS_FLOWS_FOR_SIZE} of them in "
            "the packet-size sweep); the thesis does not say which protocol its cross traffic used.",
            "Timestamp echo: ns-2's TCPSink and DelAckSink echo the timestamp of the packet that triggers the ACK (ts_echo = "
            "latest), so the thesis's ns-2 runs (Ch. IV, pacing) measured RTTs that way; an RFC 7323 receiver echoes the "
            "earliest unacknowledged segment (ts_echo = earliest), whose sample includes the time the receiver held the ACK. "
            "Eq. 5.1's R runs from the train's first segment, which is the earliest echo. Both are run.",
            "Not reproduced here: Fig 18b (RTT samples grouped by sequence number mod 4), the pacing fairness sweeps (Figs 25-29).",
        ],
    )  # fmt: skip
    report.tables = {"ack_ratios": ack_table, "inflation": inflation, "acks": acks, "runs": runs}
    report.scenarios = {
        **{f"ack-{v}-{p}": q.ack_scenario(p, v, setup, setup.seeds[0]).to_wire() for v in ("window_limited", "greedy") for p in q.POLICIES},
        **{f"srtt-{s}-{fix}-{echo}-" + "-".join(f"{v:g}" for v in pt.values()): q.srtt_scenario(pt, fix, echo, setup, setup.seeds[0]).to_wire()
           for s, pt in q.sweep_points(setup) for fix in q.FIXES for echo in q.ECHOES},
    }  # fmt: skip
    report.claims = _ack_claims(ack_table) + _srtt_claims(inflation)
    return report


def _by_policy(t: pl.DataFrame, variant: str, col: str) -> dict[str, float]:
    rows = t.filter(pl.col("variant") == variant)
    return dict(zip(rows["policy"].to_list(), rows[col].to_list()))


def _ack_claims(t: pl.DataFrame) -> list[Claim]:
    ratio = _by_policy(t, "window_limited", "data_ack_ratio")
    acks = {v: _by_policy(t, v, "ack_mbps") for v in ("window_limited", "greedy")}
    data = _by_policy(t, "greedy", "data_mbps")
    a, d, e = (data[p] for p in q.THESIS_DATA_ORDER)
    return [
        Claim("Fig 17(c): data packets per ACK are about 4 (adaptive), 2 (delay by two), 1 (no delay): within 5 %, one window-limited flow.",
              all(abs(ratio[p] / q.THESIS_RATIO[p] - 1) <= 0.05 for p in q.POLICIES),
              "; ".join(f"{p} {ratio[p]:.3g} (thesis {q.THESIS_RATIO[p]:g})" for p in q.POLICIES)),
        Claim("Fig 17(b): the adaptive receiver sends the least ACK traffic (window-limited and greedy flow).",
              all(min(m, key=m.get) == "adaptive" for m in acks.values()),
              "; ".join(f"{v}: " + ", ".join(f"{p} {m[p]:.3g}" for p in q.POLICIES) + " Mbit/s" for v, m in acks.items())),
        Claim("Fig 17(a): data throughput adaptive > delay by two > no delay (greedy flow).", a > d > e,
              f"data Mbit/s: adaptive {a:.4g}, delayed {d:.4g}, every {e:.4g}"),
    ]  # fmt: skip


def _point(t: pl.DataFrame, sweep: str, echo: str) -> pl.DataFrame:
    return t.filter((pl.col("sweep") == sweep) & (pl.col("echo") == echo))


def _srtt_claims(t: pl.DataFrame) -> list[Claim]:
    base = {e: _point(t, "base", e).row(0, named=True) for e in q.ECHOES}
    sweeps = t.filter(pl.col("sweep") != "base")
    claims = [
        Claim("Fig 18a: without pacing, ACK coalescing inflates PERT's srtt (the adaptive flow's mean srtt above the every-segment flow's, both echoes).",
              all(b["inflation_none_ms"] > 0 for b in base.values()),
              "; ".join(f"{e}: {b['inflation_none_ms']:.3g} ms" for e, b in base.items())),
        Claim(f"Fig 18a: by about {q.THESIS_INFLATION_MS:g} ms (between half and twice that), with ns-2's echo.",
              q.THESIS_INFLATION_MS / 2 <= base["latest"]["inflation_none_ms"] <= 2 * q.THESIS_INFLATION_MS,
              f"latest: {base['latest']['inflation_none_ms']:.3g} ms; earliest: {base['earliest']['inflation_none_ms']:.3g} ms"),
    ]  # fmt: skip
    for echo, reading in (("latest", "ns-2's echo (latest)"), ("earliest", "RFC 7323's echo (earliest)")):
        b = base[echo]
        claims.append(Claim(f"Fig 21: pacing removes most (over half) of the inflation, with {reading}.", b["removed_by_pacing"] > MOST,
                            f"inflation {b['inflation_none_ms']:.3g} ms plain, {b['inflation_pacing_ms']:.3g} ms paced: "
                            f"{100 * b['removed_by_pacing']:.3g} % removed"))  # fmt: skip
    for echo in q.ECHOES:
        s = sweeps.filter(pl.col("echo") == echo)
        better = (s["inflation_pacing_ms"].abs() < s["inflation_none_ms"].abs()).to_list()
        claims.append(Claim(f"Figs 22-24: with pacing the error shrinks at most sweep points ({echo} echo: |paced| < |plain| at over half of them).",
                            sum(better) > len(better) / 2,
                            f"{sum(better)} of {len(better)} points; paced {fmt_values(s['inflation_pacing_ms'].to_list())} ms, plain "
                            f"{fmt_values(s['inflation_none_ms'].to_list())} ms"))  # fmt: skip
    for echo in q.ECHOES:
        b = base[echo]
        claims.append(Claim(f"Fig 31: the RTT correction removes most (over half) of the inflation ({echo} echo).", b["removed_by_correction"] > MOST,
                            f"inflation {b['inflation_none_ms']:.3g} ms plain, {b['inflation_correction_ms']:.3g} ms corrected: "
                            f"{100 * b['removed_by_correction']:.3g} % removed"))  # fmt: skip
    corr = sweeps.filter(pl.col("echo") == "earliest")
    d_ms = (q.PACKET_BYTES * 8 / (corr["bw_mbps"] * 1e3)).to_list()
    within = [abs(x) < d for x, d in zip(corr["inflation_correction_ms"].to_list(), d_ms)]
    claims.append(Claim("Figs 32-34: with the correction, the two flows' mean srtts are about equal at every sweep point "
                        "(apart by less than one packet time at the bottleneck; earliest echo, eq. 5.1's R).", all(within),
                        f"{sum(within)} of {len(within)} points; corrected inflation {fmt_values(corr['inflation_correction_ms'].to_list())} ms, "
                        f"packet times {fmt_values(d_ms)} ms"))  # fmt: skip
    return claims


def _figures(report: Report) -> list[Figure]:
    acks, infl = report.tables["ack_ratios"], report.tables["inflation"]

    def draw_acks(path: Path) -> None:
        with saved_figure(path, 1, 3, figsize=(12, 3.6), title="Figs 16-17: three receivers") as (_, axes):
            for ax, col, label in zip(axes, ("data_mbps", "ack_mbps", "data_ack_ratio"), ("data Mbit/s", "ACK Mbit/s", "data / ACK")):
                for k, variant in enumerate(("window_limited", "greedy")):
                    m = _by_policy(acks, variant, col)
                    ax.bar([i + 0.4 * k for i in range(3)], [m[p] for p in q.POLICIES], width=0.4, label=variant)
                if col == "data_ack_ratio":
                    ax.scatter(range(3), [q.THESIS_RATIO[p] for p in q.POLICIES], color="k", marker="x", label="thesis", zorder=3)
                ax.set_xticks([i + 0.2 for i in range(3)], q.POLICIES)
                ax.set_ylabel(label)
            axes[2].legend(fontsize=8)

    def draw_inflation(path: Path) -> None:
        sweeps = [s for s in ("bw_mbps", "delay_ms", "cross_flows", "cross_size") if s in infl["sweep"].to_list()]
        with saved_figure(path, 2, len(sweeps), figsize=(3.3 * len(sweeps), 6), title="srtt inflation (adaptive - every), ms", squeeze=False) as (_, axes):
            for row, echo in enumerate(q.ECHOES):
                for ax, sweep in zip(axes[row], sweeps):
                    t = infl.filter((pl.col("echo") == echo) & ((pl.col("sweep") == sweep) | (pl.col("sweep") == "base"))).sort(sweep)
                    if sweep == "cross_size":
                        t = t.filter(pl.col("sweep") == sweep)
                    for fix in q.FIXES:
                        ax.plot(t[sweep].to_list(), t[f"inflation_{fix}_ms"].to_list(), marker="o", label=fix)
                    ax.axhline(0, color="grey", lw=0.5)
                    ax.set_xlabel(sweep)
                    ax.set_title(f"{echo} echo", fontsize=9)
            axes[0][0].legend(fontsize=8)

    return [
        Figure(f"{NAME}-acks.png", "Figs 16-17: data and ACK throughput and data packets per ACK of the three receivers (crosses: the thesis's ratios).", draw_acks),
        Figure(f"{NAME}-srtt.png", "Figs 18a, 21-24, 31-34: mean srtt of the adaptive flow minus the every-segment flow's, plain, paced and "
               "corrected, along each sweep (base point included); top: ns-2's echo, bottom: RFC 7323's.", draw_inflation),
    ]  # fmt: skip


register(Entry(NAME, TITLE, SOURCE, _run, _figures, details=("acks", "runs")))
