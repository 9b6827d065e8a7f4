"""Registry entry ``kotla08-live``: Kotla (2008), Section V.E, Figs 13, 14, 16 and 17 redone on
this host's kernel (the eBPF adaptive PERT against kernel reno and cubic over the six emulated
client paths), with the simulator on the same scenarios beside it. Setups and choices:
:mod:`pertlab.experiments.kotla08_live`. Needs root and BPF (the namespace testbed); its kernel
runs are stored under runs/ as they finish and reused, so an interrupted run resumes."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..experiments import kotla08_live as live
from ..linux.scenario import LINUX_INIT_CWND
from ..sweep import FRACTION, INTERVAL, NON_NEGATIVE, aggregate
from .kotla08_common import THESIS
from .registry import Claim, Entry, Figure, Report, fmt_values, register

NAME = "kotla08-live"
TITLE = "Figures 13, 14, 16, 17: adaptive PERT against reno and cubic over six emulated client paths, on this host's kernel"
SECTION = "Section V.E"
METRICS = ("pert_mbps", "comp_mbps", "pert_share", "pert_retx", "comp_retx", "goodput_over_capacity", "pert_compete_frac")
BOUNDS = {"pert_mbps": NON_NEGATIVE, "comp_mbps": NON_NEGATIVE, "pert_share": FRACTION, "pert_retx": NON_NEGATIVE, "comp_retx": NON_NEGATIVE,
          "goodput_over_capacity": NON_NEGATIVE, "pert_compete_frac": FRACTION}  # fmt: skip
#: "Similar" throughputs (Figs 13, 16): the mean per-connection throughputs within a factor of
#: two of each other. The thesis gives no number; a choice.
SIMILAR_RATIO = 2.0
#: "Almost all" cases (Fig 14): all but at most one in six. The thesis gives no number; a choice.
ALMOST_ALL = 5 / 6
#: "srtt_0.99 is a smooth signal" (Fig. 15): its mean change from one sample to the next at most
#: this fraction of the instantaneous RTT's. A choice; an EWMA of weight 0.99 gives about 0.01
#: to 0.02 on a signal that varies from sample to sample.
SMOOTH_RATIO = 0.1
#: "PERT is not affected by instantaneous RTT variability" (Section V.E.1): its share of the
#: throughput against one reno connection moves by at most this much when the path's jitter is
#: replaced by its mean. A choice.
UNAFFECTED_SHARE = 0.1
KEYS = ["profile", "flows", "competitor"]


def _mode(quick: bool) -> live.Mode:
    return live.QUICK if quick else live.FULL


def _summary(runs: pl.DataFrame) -> pl.DataFrame:
    """Per source and case: every metric's mean over the repetitions with its 95 % interval."""
    order = {p: i for i, p in enumerate(live.PROFILE_ORDER)}
    t = aggregate(runs, ["source", *KEYS], METRICS, BOUNDS)
    return t.with_columns(pl.col("profile").replace_strict(order, return_dtype=pl.Int32).alias("_o")).sort("source", "competitor", "_o", "flows").drop("_o")


def _case(row: dict) -> str:
    return f"{row['profile']} x{row['flows']}"


def _kernel_claims(summary: pl.DataFrame, competitor: str, figs: tuple[int, int], baseline: str) -> list[Claim]:
    k = summary.filter((pl.col("source") == "kernel") & (pl.col("competitor") == competitor)).to_dicts()
    if not k:
        return []
    ratios = [r["pert_mbps"] / r["comp_mbps"] if r["comp_mbps"] else float("inf") for r in k]
    similar = [1 / SIMILAR_RATIO <= x <= SIMILAR_RATIO for x in ratios]
    higher = [r["pert_mbps"] >= r["comp_mbps"] for r in k]
    fewer = [r["pert_retx"] <= r["comp_retx"] for r in k]
    cases = ", ".join(f"{_case(r)} {x:.3g}" for r, x in zip(k, ratios))
    retx = ", ".join(f"{_case(r)} {r['pert_retx']:.3g}/{r['comp_retx']:.3g}" for r in k)
    n = len(k)
    out = [
        Claim(f"PERT's and {baseline}'s throughputs are similar at every client (Fig. {figs[0]}; per connection, within a factor of {SIMILAR_RATIO:g}).",
              all(similar), f"PERT / {competitor} throughput per connection: {cases}"),
    ]  # fmt: skip
    if competitor == "reno":
        out += [
            Claim(f"PERT gets a little more than {baseline} in most cases (Fig. {figs[0]}: more than half of the {n} cases).",
                  sum(higher) > n / 2, f"PERT at least {competitor}'s throughput in {sum(higher)} of {n} cases"),
            Claim(f"PERT's losses are at most {baseline}'s in almost all cases (Fig. {figs[1]}: in at least {ALMOST_ALL:.3g} of the {n} cases).",
                  sum(fewer) >= ALMOST_ALL * n, f"retransmissions per connection, PERT/{competitor}: {retx}; PERT's at most in {sum(fewer)} of {n}"),
        ]  # fmt: skip
    else:
        out.append(
            Claim(f"PERT has fewer losses than {baseline} in most cases (Fig. {figs[1]}: more than half of the {n} cases).",
                  sum(r["pert_retx"] < r["comp_retx"] for r in k) > n / 2, f"retransmissions per connection, PERT/{competitor}: {retx}")
        )  # fmt: skip
    return out


def _agreement(summary: pl.DataFrame) -> pl.DataFrame:
    """Per case: the kernel's and the simulator's PERT share and per-connection retransmissions,
    and whether their intervals overlap."""
    k = summary.filter(pl.col("source") == "kernel").drop("source")
    s = summary.filter(pl.col("source") == "sim").drop("source")
    cols = [c for m in ("pert_share", "pert_retx", "comp_retx", "goodput_over_capacity") for c in (m, f"{m}_lo95", f"{m}_hi95")]
    t = k.select(KEYS + cols).join(s.select(KEYS + cols), on=KEYS, suffix="_sim", maintain_order="left")
    return t.with_columns(
        *[((pl.col(f"{m}_lo95") <= pl.col(f"{m}_hi95_sim")) & (pl.col(f"{m}_lo95_sim") <= pl.col(f"{m}_hi95"))).alias(f"{m}_agree")
          for m in ("pert_share", "pert_retx", "goodput_over_capacity")]
    )  # fmt: skip


def _agreement_claims(agree: pl.DataFrame) -> list[Claim]:
    n = agree.height
    share = agree["pert_share_agree"].sum()
    differ = ", ".join(f"{_case(r)} {r['competitor']} (kernel {r['pert_share']:.3g}, sim {r['pert_share_sim']:.3g})" for r in agree.filter(~pl.col("pert_share_agree")).to_dicts())
    util = agree["goodput_over_capacity_agree"].sum()
    return [
        Claim("pertlab: the simulator, given each path's mean delay and loss rate, predicts the kernel's PERT share: their 95 % intervals overlap in most cases.",
              share > n / 2, f"overlap in {share} of {n} cases; they differ at: {differ or 'none'}"),
        Claim("pertlab: the simulator predicts the connections' aggregate goodput over the bottleneck's rate: their intervals overlap in most cases.",
              util > n / 2, f"overlap in {util} of {n} cases; kernel {fmt_values(agree['goodput_over_capacity'].to_list())}; sim {fmt_values(agree['goodput_over_capacity_sim'].to_list())}"),
    ]  # fmt: skip


def _run(quick: bool, out: Path, workers: object) -> Report:
    from ..linux import testbed

    problem = testbed.support_problem(needs_pert=True)
    if problem:
        raise RuntimeError(f"{NAME} runs the namespace testbed and the eBPF adaptive PERT: {problem}")
    mode = _mode(quick)
    runs, traces = live.run_table(mode, out)
    main = runs.filter(pl.col("jitter") & ~pl.col("traced") & ~pl.col("long"))
    summary = _summary(main)
    variability = _variability(runs)
    agree = _agreement(summary)
    report = Report(NAME, TITLE, f"{THESIS}, {SECTION}", "quick" if quick else "full", out, notes=[
        f"Clients (path profiles, docs/linux.md): {', '.join(mode.profiles)}; {', '.join(map(str, mode.flows))} connection(s) of the eBPF "
        f"pert_adaptive against as many of reno (SACK on) and of cubic (in place of Compound TCP); {len(mode.seeds)} repetitions each "
        f"(seeds {fmt_values(list(mode.seeds))}: the delay line's jitter and loss draws); {mode.duration} runs, throughput per connection "
        f"over [{mode.warmup}, {mode.duration}], losses = retransmitted segments per connection over the run. Bottleneck: the access "
        f"link's rate for us-dsl and us-cable, {live.PLANETLAB_RATE} for the PlanetLab paths; a one-BDP drop-tail buffer.",
        f"Summary means with their {INTERVAL}. The kernel runs are stored under runs/ and reused; the simulator runs each case with the "
        "same seeds, given the path's mean delay (jitter included) and its data-direction loss rate: no jitter variation, no loss bursts, "
        f"no ACK losses (pertlab.linux.sim_side.sim_scenario). Both sides start at the kernel's initial window of {LINUX_INIT_CWND} segments.",
        f"Fig. 15: on {', '.join(live.FIG15_PROFILES)}, one PERT connection against one reno, with the eBPF program's trace on (every RTT "
        "sample and the srtt_0.99 it gave, from the kernel; the first repetition); and, to test whether the RTT's variability affects "
        "PERT, the same runs with the path's jitter replaced by its mean (a constant delay of the same mean RTT), every repetition, "
        "set beside the jittered runs with the same seeds.",
    ])  # fmt: skip
    kernel = runs.filter(pl.col("source") == "kernel")
    report.notes.append(
        f"{kernel.height} kernel runs ({kernel.filter(~pl.col('long')).height} of {mode.duration}, {kernel.filter(pl.col('long')).height} of "
        f"{live.LONG_DURATION}), each with about 3 s of testbed set-up and removal besides; they are run one at a time."
    )
    report.notes.append(_stale_thresholds(kernel))
    report.tables["summary"] = summary
    report.tables["kernel_vs_sim"] = agree
    report.tables["fig15_variability"] = variability
    report.tables["fig15_trace"] = traces
    report.tables["runs"] = runs
    report.claims = (
        _kernel_claims(summary, "reno", (13, 14), "SACK (kernel reno)") + _kernel_claims(summary, "cubic", (16, 17), "CTCP (kernel cubic here)")
        + _fig15_claims(traces, variability, mode) + _agreement_claims(agree) + _long_claims(runs)
    )  # fmt: skip
    return report


def _stale_thresholds(kernel: pl.DataFrame) -> str:
    """What the kernel runs met of docs/linux.md's stale slow-start threshold: the thresholds the
    eBPF program put back and the TCP_INFO samples that held one (runs stored before the program
    counted them, 2026-12-05, record neither)."""
    counted = kernel.filter(pl.col("ssthresh_repairs").is_not_null())
    text = (f"Stale slow-start thresholds (docs/linux.md, \"A stale slow-start threshold\"): the eBPF program put back "
            f"{counted['ssthresh_repairs'].sum()} in {counted.filter(pl.col('ssthresh_repairs') > 0).height} of the {counted.height} kernel runs "
            f"that count them, and {counted['invalid_ssthresh_samples'].sum()} of their TCP_INFO samples held one above Linux's largest.")
    missing = kernel.height - counted.height
    return text + (f" {missing} runs stored before the program counted them record neither." if missing else "")


#: "Not explained by the start": PERT's share in the long runs within this of the short runs'.
SAME_SHARE = 0.1


def _long_claims(runs: pl.DataFrame) -> list[Claim]:
    """pertlab's test of the runs' start as the cause of PERT's deficit against reno (full mode)."""
    long = runs.filter(pl.col("long"))
    if not long.height:
        return []
    seeds = long["seed"].unique().to_list()
    short = runs.filter((pl.col("source") == "kernel") & ~pl.col("long") & pl.col("jitter") & ~pl.col("traced") & (pl.col("flows") == 1)
                        & (pl.col("competitor") == "reno") & pl.col("profile").is_in(live.LONG_PROFILES) & pl.col("seed").is_in(seeds))  # fmt: skip
    means = lambda d, cols: {r["profile"]: r for r in d.group_by("profile").agg(pl.col(*cols).mean()).to_dicts()}  # noqa: E731
    a, b = means(short, ["pert_share"]), means(long, ["pert_share", "pert_retx", "comp_retx"])
    return [
        Claim(f"pertlab: the runs' start does not explain PERT's deficit against reno: over {live.LONG_DURATION} (window from "
              f"{live.LONG_WARMUP}) its share with one connection each on {', '.join(live.LONG_PROFILES)} is within {SAME_SHARE:g} of the "
              f"{live.FULL.duration} runs' (same seeds).",
              all(abs(b[p]["pert_share"] - a[p]["pert_share"]) <= SAME_SHARE for p in live.LONG_PROFILES),
              "PERT's share: " + "; ".join(f"{p}: {a[p]['pert_share']:.3g} over {live.FULL.duration}, {b[p]['pert_share']:.3g} over {live.LONG_DURATION}"
                                           for p in live.LONG_PROFILES)
              + f" (seeds {fmt_values(sorted(seeds))}); retransmissions per connection over {live.LONG_DURATION}, PERT/reno: "
              + "; ".join(f"{p} {b[p]['pert_retx']:.3g}/{b[p]['comp_retx']:.3g}" for p in live.LONG_PROFILES)),
    ]  # fmt: skip


def _variability(runs: pl.DataFrame) -> pl.DataFrame:
    """The Fig. 15 paths' one-against-one reno runs, with their jitter and with its mean instead:
    PERT's share, throughput and retransmissions, means over the repetitions with intervals."""
    t = runs.filter((pl.col("source") == "kernel") & ~pl.col("traced") & pl.col("profile").is_in(live.FIG15_PROFILES) & (pl.col("flows") == 1) & (pl.col("competitor") == "reno"))
    return aggregate(t, ["profile", "jitter"], ("pert_share", "pert_mbps", "pert_retx", "comp_retx"), BOUNDS).sort("profile", "jitter")


def _smoothness(trace: pl.DataFrame, warmup_s: float) -> tuple[float, float, float]:
    """Of one connection's samples after the warm-up: the mean change from one sample to the next
    of srtt_0.99 over the RTT's, and the standard deviations of the RTT and of srtt (ms)."""
    t = trace.filter(pl.col("t_s") >= warmup_s).sort("t_s")
    d = t.select(pl.col("rtt_ms").diff().abs().mean().alias("rtt"), pl.col("srtt_ms").diff().abs().mean().alias("srtt")).row(0, named=True)
    return d["srtt"] / d["rtt"], float(t["rtt_ms"].std()), float(t["srtt_ms"].std())


def _fig15_claims(traces: pl.DataFrame, variability: pl.DataFrame, mode: live.Mode) -> list[Claim]:
    profiles = [p for p in live.FIG15_PROFILES if p in mode.profiles]
    if not profiles:
        return []
    warm = float(mode.warmup.rstrip("s"))
    smooth = {p: _smoothness(traces.filter((pl.col("profile") == p) & (pl.col("flow") == 0)), warm) for p in profiles}
    share = {(r["profile"], r["jitter"]): r for r in variability.to_dicts()}
    moved = {p: share[(p, True)]["pert_share"] - share[(p, False)]["pert_share"] for p in profiles}
    shares = "; ".join(f"{p}: {share[(p, True)]['pert_share']:.3g} [{share[(p, True)]['pert_share_lo95']:.3g}, {share[(p, True)]['pert_share_hi95']:.3g}] "
                       f"with jitter, {share[(p, False)]['pert_share']:.3g} [{share[(p, False)]['pert_share_lo95']:.3g}, {share[(p, False)]['pert_share_hi95']:.3g}] "
                       f"with its mean" for p in profiles)  # fmt: skip
    return [
        Claim(f"srtt_0.99 is a smooth signal despite a highly varying instantaneous RTT on the cable and DSL paths (Fig. 15; its mean change per "
              f"sample at most {SMOOTH_RATIO:g} of the RTT's).",
              all(r <= SMOOTH_RATIO for r, _, _ in smooth.values()),
              "; ".join(f"{p}: change per sample {r:.3g} of the RTT's; sd of the RTT {a:.3g} ms, of srtt_0.99 {b:.3g} ms" for p, (r, a, b) in smooth.items())),
        Claim(f"PERT is not affected by the instantaneous RTT's variability (Section V.E.1): its share against one reno connection moves by at most "
              f"{UNAFFECTED_SHARE:g} when the jitter is replaced by its mean (pertlab's test of the statement).",
              all(abs(m) <= UNAFFECTED_SHARE for m in moved.values()), f"PERT's share, mean over repetitions: {shares}"),
    ]  # fmt: skip


def _bars(summary: pl.DataFrame, competitor: str, path: Path, title: str) -> None:
    from ..plots import saved_figure

    k = summary.filter((pl.col("source") == "kernel") & (pl.col("competitor") == competitor)).to_dicts()
    s = {(r["profile"], r["flows"]): r for r in summary.filter((pl.col("source") == "sim") & (pl.col("competitor") == competitor)).to_dicts()}
    xs = list(range(len(k)))
    with saved_figure(path, 2, 1, figsize=(10, 6), title=title) as (_, axes):
        for ax, (m, label) in zip(axes, (("mbps", "throughput per connection (Mbit/s)"), ("retx", "retransmissions per connection"))):
            for off, who, name in ((-0.2, "pert", "adaptive PERT"), (0.2, "comp", competitor)):
                col = f"{who}_{m}"
                ys = [r[col] for r in k]
                err = [[y - r[f"{col}_lo95"] for y, r in zip(ys, k)], [r[f"{col}_hi95"] - y for y, r in zip(ys, k)]]
                ax.bar([x + off for x in xs], ys, width=0.4, yerr=err, capsize=2, label=f"{name} (kernel)")
                ax.plot([x + off for x in xs], [s[(r["profile"], r["flows"])][col] for r in k], "kD", ms=4, label=f"{name} (simulator)" if off < 0 else None)
            ax.set_xticks(xs, [f"{r['profile']}\nx{r['flows']}" for r in k], fontsize=7)
            ax.set_ylabel(label)
        axes[0].legend(fontsize=7)


def _trace_figure(trace: pl.DataFrame, path: Path, title: str) -> None:
    from ..plots import saved_figure

    profiles = [p for p in live.FIG15_PROFILES if p in trace["profile"].unique().to_list()]
    with saved_figure(path, len(profiles), 1, figsize=(10, 3 * len(profiles)), title=title, squeeze=False) as (_, axes):
        for ax, p in zip(axes[:, 0], profiles):
            t = trace.filter((pl.col("profile") == p) & (pl.col("flow") == 0))
            ax.plot(t["t_s"].to_list(), t["rtt_ms"].to_list(), ".", ms=1.5, color="0.6", label="instantaneous RTT")
            ax.plot(t["t_s"].to_list(), t["srtt_ms"].to_list(), "-", lw=1.2, color="C3", label="srtt_0.99")
            ax.set_title(p, fontsize=9)
            ax.set_ylabel("ms")
        axes[-1, 0].set_xlabel("time (s)")
        axes[0, 0].legend(fontsize=7)


def _figures(report: Report) -> list[Figure]:
    summary = report.tables["summary"]
    out = []
    trace = report.tables.get("fig15_trace")
    if trace is not None and trace.height:
        caption = ("Fig. 15: the PERT connection's every RTT sample (grey dots) and the srtt_0.99 it gave (red), as the eBPF program "
                   "computed them in the kernel, on the DSL and cable paths against one reno connection (first repetition).")  # fmt: skip
        out.append(Figure("kotla08-live-fig15.png", caption, lambda path: _trace_figure(trace, path, "Fig. 15: instantaneous RTT and srtt_0.99")))
    for competitor, figs in (("reno", "13 and 14"), ("cubic", "16 and 17")):
        caption = (f"Figs. {figs}: per client path and number of connections of each, the kernel's mean throughput and retransmissions per "
                   f"connection of adaptive PERT and {competitor} (bars; error bars: {INTERVAL}) and the simulator's means (black diamonds).")  # fmt: skip
        out.append(Figure(f"kotla08-live-{competitor}.png", caption, lambda path, c=competitor: _bars(summary, c, path, f"{TITLE.split(':')[0]}: against {c}")))
    return out


def _scenarios(quick: bool) -> dict:
    mode = _mode(quick)
    return {c.key: live.scenario_of(c, mode).model_dump(mode="json") for c in live.all_cases(mode)}


register(
    Entry(
        NAME,
        TITLE,
        f"{THESIS}, {SECTION}",
        _run,
        _figures,
        _scenarios,
        details=("runs", "fig15_trace"),
        runs_here="its runs are real kernel connections in network namespaces of this host, one at a time",
    )
)
