"""Registry entry of Qian's 2011 thesis, Chapters IV and V: ``qian11-ack-coalescing``
(Figs 16, 17: data/ACK ratios of the three receivers; Figs 18a, 21, 22-24 and 31-34: the
srtt over-estimate ACK coalescing causes and its removal by pacing or by the ACK-train RTT
correction; Fig 18b: the RTT samples grouped by sequence number mod 4). The tables carry the thesis's numbers beside ours; every claim is computed from
the runs. Scenario choices: :mod:`pertlab.experiments.qian11`. The video study (Chapter III.A) is
:mod:`.qian11_video_entries`."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..experiments import qian11 as q
from ..parallel import Workers
from ..plots import saved_figure
from .registry import Claim, Entry, Figure, Report, Wire, fmt_values, register

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
#: Fig 18b, "different groups of packets have different measured RTT values": the four group
#: means spread over at least this share of a packet time at the bottleneck (the step between
#: successive positions in a train that the thesis's self-induced delay predicts).
DIFFERENT = 0.5
#: Fig 18b, "the difference between values of different groups is the same", roughly: the three
#: successive differences have one sign and each is within this share of their mean.
ROUGHLY = 0.5
#: Fig 18b's test of why groups blur: the share of an aligned flow's samples in one group.
ONE_GROUP = 0.99
#: How the claims name the two timestamp echoes.
READINGS = {"latest": "ns-2's echo (latest)", "earliest": "RFC 7323's echo (earliest)"}


def _scenarios(quick: bool) -> Wire:
    """The scenarios of the ACK and srtt runs, at the first seed (the others differ only in the seed)."""
    setup = QUICK if quick else FULL
    return {
        **{f"ack-{v}-{p}": q.ack_scenario(p, v, setup, setup.seeds[0]).to_wire() for v in q.ACK_VARIANTS for p in q.POLICIES},
        **{f"trains-{n}-{echo}": q.train_scenario(n, echo, setup, setup.seeds[0]).to_wire() for n in q.TRAIN_RUNS for echo in q.ECHOES},
        **{f"srtt-{s}-{fix}-{echo}-" + "-".join(f"{v:g}" for v in pt.values()): q.srtt_scenario(pt, fix, echo, setup, setup.seeds[0]).to_wire()
           for s, pt in q.sweep_points(setup) for fix in q.FIXES for echo in q.ECHOES},
    }  # fmt: skip


def _run(quick: bool, out: Path, workers: Workers) -> Report:
    setup = QUICK if quick else FULL
    tasks = q.tasks(setup)
    groups = workers.map(q.task, tasks)
    acks = pl.DataFrame([row for (kind, _), rows in zip(tasks, groups) if kind == "ack" for row in rows])
    runs = pl.DataFrame([row for (kind, _), rows in zip(tasks, groups) if kind == "srtt" for row in rows])
    trains = q.train_groups(pl.DataFrame([row for (kind, _), rows in zip(tasks, groups) if kind == "trains" for row in rows]))
    ack_table = (
        acks.group_by("variant", "policy", maintain_order=True)
        .agg(pl.col("data_mbps", "ack_mbps", "data_ack_ratio", "goodput_mbps", "reverse_drop_rate").mean(), pl.col("drops").sum())
        .with_columns(pl.col("policy").replace_strict(q.THESIS_RATIO, return_dtype=pl.Float64).alias("thesis_data_ack_ratio"))
    )
    inflation = q.removal(runs).with_columns(pl.lit(q.THESIS_INFLATION_MS).alias("thesis_inflation_none_ms"))
    report = Report(
        NAME, TITLE, SOURCE, "quick" if quick else "full", out,
        notes=[
            f"{setup.duration} runs, metrics after {setup.warmup}, seeds {fmt_values(list(setup.seeds))}; flows start in the first 1 s (ACK "
            "ratios) or 2 s (srtt).",
            "ACK ratios (Figs 16, 17): one SACK flow, 10 Mbit/s, 60 ms, 100-packet buffer; window_limited caps the window at 100 "
            "segments (no loss, the link busy), greedy has no cap (drop-tail losses). The thesis gives no link for these figures. "
            f"ack_path_overloaded is greedy with UDP (CBR with random gaps, {q.PACKET_BYTES}-byte packets) from the receiver's side "
            f"offering {q.REVERSE_LOAD:g} times the bottleneck's rate on the ACKs' direction, so that queue stays full and drops ACKs "
            "with the UDP packets (reverse_drop_rate: that direction's drop rate).",
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
            "Why claims fail. Fig 17(a): one flow keeps a loss-free or drop-tail link busy behind any receiver, so the data "
            "throughputs tie at the link rate (the thesis's ordering needs something that slows the every-segment flow, which "
            "it does not describe). A congested ACK path is not it (the ack_path_overloaded claim): with the ACKs dropped there, "
            "the adaptive receiver's flow does worst. A shared medium where ACKs take airtime from data "
            "(the wireless links Chapter IV has in view) might give the thesis's order; pertlab does not model one. Fig 18a's 5 ms: with two flows interleaving at the bottleneck the adaptive receiver sees "
            "irregular inter-arrival times and coalesces about 2 segments per ACK, not 4 (ratio_adaptive in the runs table), "
            "and a train of 2 adds one packet time (2.67 ms at 3 Mbit/s) to its last segment. Fig 21 with RFC 7323's echo: "
            "paced segments arrive srtt / cwnd apart, the adaptive receiver holds up to 3 of them, and the earliest echo puts "
            "that hold into the sample; srtt grows, the pacing interval with it, and PERT reads the growth as queueing "
            "(the adaptive flow's goodput collapses). With ns-2's echo pacing removes about half the inflation, the rest being "
            "the interleaving of the two flows' paced segments. Sweeps: where the plain inflation is within a few tenths of a "
            "millisecond of zero (cross traffic), the ratios removed_by_* are noise.",
            "The correction with ns-2's echo over-corrects at low rates (bw 1 Mbit/s): the sample then runs from the train's "
            "last segment, which has no self-induced delay left to subtract.",
            f"Fig 18b: the base point's plain run (Fig 18a's) with the adaptive flow traced, one RTT sample per ACK, each "
            f"labelled with the segment whose timestamp the ACK echoed (the last the ACK covers with ns-2's echo, the first "
            f"with RFC 7323's); the samples in the window, all seeds pooled, grouped by sequence number mod {q.TRAIN} (table "
            f"fig18b). Tolerances, fixed before the full runs from the thesis's mechanism (each later segment of a train "
            f"waits one packet time more, {q.packet_time_ms(q.BASE['bw_mbps']):.3g} ms here): the groups differ when their "
            f"means spread over at least {DIFFERENT:g} packet time; the successive differences are roughly constant when "
            f"they share a sign and each is within {100 * ROUGHLY:g} % of their mean. Beside it (run aligned) Fig 16's "
            "window-limited flow behind the adaptive receiver, traced, both echoes.",
            "Why Fig 18b's claims fail here: pertlab's trace has one RTT sample per ACK, taken on one segment of the ACK. The "
            "adaptive flow's trains (about 2 segments per ACK, see Fig 18a) drift against the sequence numbers, so each group "
            "mod 4 collects every train position about equally (a quarter of the samples each, share in table fig18b) and the "
            "four means agree to a fraction of a packet time; group 0's margin over all samples, whichever its sign, is "
            "of that size too (noise). The aligned run tests this: when trains of 4 stay aligned, every sample falls in one "
            "group, the train's last segment with ns-2's echo and its first with RFC 7323's, and both echoes measure the same "
            "RTT (the first segment's sample includes the receiver's hold for the other three, the last's its wait behind "
            "them). Four groups a constant step apart would fit RTTs taken for every segment of a train, each from its own "
            "send to its own arrival, which timestamps echoed once per ACK do not give (not tested here); the thesis does not "
            "say how its Fig 18b samples were taken.",
            "Not reproduced here: the pacing fairness sweeps (Figs 25-29).",
        ],
    )  # fmt: skip
    report.tables = {"ack_ratios": ack_table, "inflation": inflation, "fig18b": trains, "acks": acks, "runs": runs}
    report.claims = _ack_claims(ack_table) + _srtt_claims(inflation) + _train_claims(trains)
    return report


def _by_policy(t: pl.DataFrame, variant: str, col: str) -> dict[str, float]:
    rows = t.filter(pl.col("variant") == variant)
    return dict(zip(rows["policy"].to_list(), rows[col].to_list()))


def _ack_claims(t: pl.DataFrame) -> list[Claim]:
    ratio = _by_policy(t, "window_limited", "data_ack_ratio")
    acks = {v: _by_policy(t, v, "ack_mbps") for v in ("window_limited", "greedy")}
    data = _by_policy(t, "greedy", "data_mbps")
    a, d, e = (data[p] for p in q.THESIS_DATA_ORDER)
    jammed, jammed_drops = _by_policy(t, "ack_path_overloaded", "data_mbps"), _by_policy(t, "ack_path_overloaded", "reverse_drop_rate")
    return [
        Claim("Fig 17(c): data packets per ACK are about 4 (adaptive), 2 (delay by two), 1 (no delay): within 5 %, one window-limited flow.",
              all(abs(ratio[p] / q.THESIS_RATIO[p] - 1) <= 0.05 for p in q.POLICIES),
              "; ".join(f"{p} {ratio[p]:.3g} (thesis {q.THESIS_RATIO[p]:g})" for p in q.POLICIES)),
        Claim("Fig 17(b): the adaptive receiver sends the least ACK traffic (window-limited and greedy flow).",
              all(min(m, key=m.get) == "adaptive" for m in acks.values()),
              "; ".join(f"{v}: " + ", ".join(f"{p} {m[p]:.3g}" for p in q.POLICIES) + " Mbit/s" for v, m in acks.items())),
        Claim("Fig 17(a): data throughput adaptive > delay by two > no delay (greedy flow).", a > d > e,
              f"data Mbit/s: adaptive {a:.4g}, delayed {d:.4g}, every {e:.4g}"),
        Claim(f"pertlab's test of Fig 17(a): a congested ACK path does not give the thesis's order. With UDP offering {q.REVERSE_LOAD:g} times "
              "the bottleneck's rate on the ACKs' direction (ACKs dropped there), the greedy flow behind the adaptive receiver has the lowest "
              "data throughput of the three, where Fig 17(a) has it highest.",
              jammed["adaptive"] < min(jammed["delayed"], jammed["every"]),
              "data Mbit/s: " + ", ".join(f"{p} {jammed[p]:.4g}" for p in q.POLICIES) + "; drop rate of the ACKs' direction: "
              + ", ".join(f"{p} {jammed_drops[p]:.3g}" for p in q.POLICIES)),
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
    for echo, reading in READINGS.items():
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
    d_ms = q.packet_time_ms(corr["bw_mbps"]).to_list()
    within = [abs(x) < d for x, d in zip(corr["inflation_correction_ms"].to_list(), d_ms)]
    claims.append(Claim("Figs 32-34: with the correction, the two flows' mean srtts are about equal at every sweep point "
                        "(apart by less than one packet time at the bottleneck; earliest echo, eq. 5.1's R).", all(within),
                        f"{sum(within)} of {len(within)} points; corrected inflation {fmt_values(corr['inflation_correction_ms'].to_list())} ms, "
                        f"packet times {fmt_values(d_ms)} ms"))  # fmt: skip
    return claims


def _groups(t: pl.DataFrame, run: str, echo: str) -> pl.DataFrame:
    return t.filter((pl.col("run") == run) & (pl.col("echo") == echo)).sort("group")


def _train_claims(t: pl.DataFrame) -> list[Claim]:
    """Fig 18b's three statements on the base point's adaptive flow, each with both echoes, and
    pertlab's test of what a group mod 4 selects (the aligned run)."""
    step = q.packet_time_ms(q.BASE["bw_mbps"])
    claims = []
    for echo, reading in READINGS.items():
        g = _groups(t, "fig18a_base", echo)
        means, diffs, overall = g["mean_ms"].to_list(), g["diff_ms"].to_list()[1:], g["all_mean_ms"][0]
        sampled = all(m is not None for m in means)
        spread = max(means) - min(means) if sampled else 0.0
        mean_diff = sum(diffs) / len(diffs) if sampled else 0.0
        constant = sampled and mean_diff != 0 and all(d * mean_diff > 0 and abs(d - mean_diff) <= ROUGHLY * abs(mean_diff) for d in diffs)
        shown = f"group means {fmt_values([round(m, 3) for m in means]) if sampled else means} ms ({fmt_values(g['samples'].to_list())} samples)"
        claims += [
            Claim(f"Fig 18b: the four groups of sequence numbers mod {q.TRAIN} measure different RTTs (means spread over at least "
                  f"{DIFFERENT:g} packet time), with {reading}.", sampled and spread >= DIFFERENT * step,
                  f"{shown}; spread {spread:.3g} ms against {DIFFERENT * step:.3g} ms"),
            Claim(f"Fig 18b: the difference between successive groups is roughly constant (one sign, each within {100 * ROUGHLY:g} % "
                  f"of their mean), with {reading}.", constant,
                  f"successive differences {fmt_values([round(d, 3) for d in diffs]) if sampled else diffs} ms"),
            Claim(f"Fig 18b: sampling group 0 alone gives a higher RTT estimate than all samples, with {reading}.",
                  sampled and means[0] > overall,
                  f"group 0 {means[0]:.4g} ms, all samples {overall:.4g} ms ({means[0] - overall:+.3g} ms; a packet time is {step:.3g} ms)"),
        ]  # fmt: skip
    aligned = {e: _groups(t, "aligned", e) for e in q.ECHOES}
    top = {e: g.row(g["share"].arg_max(), named=True) for e, g in aligned.items()}
    claims.append(Claim(
        f"Fig 18b, pertlab's test of what a group selects: with trains of {q.TRAIN} that stay aligned (Fig 16's window-limited flow), "
        f"one RTT sample per ACK measures one position of the train, so at least {100 * ONE_GROUP:g} % of the samples fall in one "
        f"group: the train's last segment with ns-2's echo, its first with RFC 7323's ({q.TRAIN - 1} groups on, mod {q.TRAIN}).",
        all(r["share"] >= ONE_GROUP for r in top.values()) and (top["latest"]["group"] - top["earliest"]["group"]) % q.TRAIN == q.TRAIN - 1,
        "; ".join(f"{e}: group {r['group']} holds {100 * r['share']:.4g} % of {aligned[e]['samples'].sum()} samples, mean {r['mean_ms']:.4g} ms"
                  for e, r in top.items()),
    ))  # fmt: skip
    return claims


def _figures(report: Report) -> list[Figure]:
    acks, infl, trains = report.tables["ack_ratios"], report.tables["inflation"], report.tables["fig18b"]

    def draw_acks(path: Path) -> None:
        with saved_figure(path, 1, 3, figsize=(12, 3.6), title="Figs 16-17: three receivers") as (_, axes):
            for ax, col, label in zip(axes, ("data_mbps", "ack_mbps", "data_ack_ratio"), ("data Mbit/s", "ACK Mbit/s", "data / ACK")):
                for k, variant in enumerate(q.ACK_VARIANTS):
                    m = _by_policy(acks, variant, col)
                    ax.bar([i + 0.27 * k for i in range(3)], [m[p] for p in q.POLICIES], width=0.27, label=variant)
                if col == "data_ack_ratio":
                    ax.scatter(range(3), [q.THESIS_RATIO[p] for p in q.POLICIES], color="k", marker="x", label="thesis", zorder=3)
                ax.set_xticks([i + 0.27 for i in range(3)], q.POLICIES)
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

    def draw_trains(path: Path) -> None:
        with saved_figure(path, 1, 2, figsize=(10, 3.8), title=f"Fig 18b: RTT samples by sequence number mod {q.TRAIN}") as (_, axes):
            for k, echo in enumerate(q.ECHOES):
                g = _groups(trains, "fig18a_base", echo)
                axes[0].bar([i + 0.4 * k for i in g["group"].to_list()], g["mean_ms"].fill_null(0).to_list(), width=0.4, label=f"{echo} echo")
                axes[0].axhline(g["all_mean_ms"][0], color=f"C{k}", ls="--", lw=0.8)
                a = _groups(trains, "aligned", echo)
                axes[1].bar([i + 0.4 * k for i in a["group"].to_list()], a["share"].to_list(), width=0.4, label=f"{echo} echo")
            low = trains.filter(pl.col("run") == "fig18a_base")["mean_ms"].min()
            axes[0].set(title="Fig 18a's adaptive flow (dashed: all samples)", xlabel="sequence number mod 4", ylabel="mean RTT sample (ms)",
                        ylim=(low - 1, None))
            axes[1].set(title="window-limited flow, aligned trains", xlabel="sequence number mod 4", ylabel="share of the samples")
            for ax in axes:
                ax.set_xticks([i + 0.2 for i in range(q.TRAIN)], [str(i) for i in range(q.TRAIN)])
                ax.legend(fontsize=8)

    return [
        Figure(f"{NAME}-acks.png", "Figs 16-17: data and ACK throughput and data packets per ACK of the three receivers (crosses: the thesis's ratios).", draw_acks),
        Figure(f"{NAME}-srtt.png", "Figs 18a, 21-24, 31-34: mean srtt of the adaptive flow minus the every-segment flow's, plain, paced and "
               "corrected, along each sweep (base point included); top: ns-2's echo, bottom: RFC 7323's.", draw_inflation),
        Figure(f"{NAME}-fig18b.png", f"Fig 18b: left, the mean RTT sample of the base point's adaptive flow per group of sequence numbers mod "
               f"{q.TRAIN} (dashed: all its samples); right, the share of the samples in each group for Fig 16's window-limited flow.", draw_trains),
    ]  # fmt: skip


register(Entry(NAME, TITLE, SOURCE, _run, _figures, _scenarios, details=("acks", "runs")))
