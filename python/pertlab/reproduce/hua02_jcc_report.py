"""Claims and figures of ``hua02-jcc`` (Hua's MPhil thesis, CUHK 2002, Chapter 4), from the
tables :mod:`pertlab.reproduce.hua02_jcc_entries` makes: the thesis's statements of Sections
4.3.1 to 4.3.7 with its numbers beside ours, then pertlab's tests of the explanations of
those that do not hold."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from .._core import jain_index as jain
from ..plots import saved_figure
from .registry import Claim, Figure, Report, fmt_values, rank_correlation

#: Fig 4.10 at 40 flows, read off the text (Section 4.3.3): loss ratio about 10 % (Reno), about 2 % (JCC).
THESIS_LOSS_AT_40 = {"reno": 0.10, "jcc": 0.02}
#: Table 4.1: mean R and packet loss ratio (%) for alpha = 0 and 0.02.
THESIS_TABLE_4_1 = {0.0: (0.0057, 0.2574), 0.02: (0.0235, 1.4004)}
#: Fig 4.6 (Section 4.3.1): Reno's window swings over 0 to 20, JCC's stays within 5 to 10.
THESIS_CWND = {"reno": (0, 20), "jcc": (5, 10)}


def thesis_41(variant: str, i: int) -> float | None:
    """Table 4.1's mean R (i = 0) or loss ratio in % (i = 1) for a four-flow variant the thesis ran."""
    return {"jcc alpha 0": THESIS_TABLE_4_1[0.0][i], "jcc alpha 0.02": THESIS_TABLE_4_1[0.02][i]}.get(variant)


def _row(t: pl.DataFrame, variant: str) -> dict:
    return t.filter(pl.col("variant") == variant).row(0, named=True)


def claims(t: dict[str, pl.DataFrame]) -> list[Claim]:
    return _window_claims(t) + _loss_claims(t) + _fairness_claims(t) + _alpha_claims(t) + _explanation_claims(t)


def _window_claims(t: dict[str, pl.DataFrame]) -> list[Claim]:
    four = t["four_flows"]
    j, r = _row(four, "jcc alpha 0"), _row(four, "reno")
    shares = t["staggered_shares"]
    jcc = shares.filter(pl.col("cc") == "jcc").sort("flow")
    reno = shares.filter(pl.col("cc") == "reno").sort("flow")
    fj = jain(jcc["goodput_kbps"].to_list())
    util = jcc["utilization"][0]
    rtt = t["rtt_mix"]
    halves = {cc: [rtt.filter(pl.col("cc") == cc).sort("rtt_ms")["goodput_kbps"].to_list()[i] for i in range(4)] for cc in ("jcc", "reno")}
    return [
        Claim("Fig 4.6/4.7: JCC's window swings over a narrower range than Reno's saw-tooth (5th to 95th percentile after warm-up, mean over the four flows).",
              j["cwnd_p95"] - j["cwnd_p5"] < r["cwnd_p95"] - r["cwnd_p5"],
              f"JCC {j['cwnd_p5']:.3g} to {j['cwnd_p95']:.3g}, Reno {r['cwnd_p5']:.3g} to {r['cwnd_p95']:.3g} segments (thesis: JCC 5 to 10, Reno 0 to 20)"),
        Claim("Fig 4.6: JCC's window stays within about 5 to 10 segments (we ask a 5th percentile of at least 4 and a 95th of at most 11).",
              j["cwnd_p5"] >= 4 and j["cwnd_p95"] <= 11, f"JCC {j['cwnd_p5']:.3g} to {j['cwnd_p95']:.3g} segments"),
        Claim("Fig 4.8: four JCC flows joining at 0, 50, 100, 150 s converge to near-equal shares (Jain index at least 0.95 over the last 50 s).", fj >= 0.95,
              f"JCC {fmt_values(jcc['goodput_kbps'].to_list())} kbit/s, Jain {fj:.3g}; Reno {fmt_values(reno['goodput_kbps'].to_list())}, Jain {jain(reno['goodput_kbps'].to_list()):.3g}"),
        Claim("Fig 4.8: they share the whole link, about 250 kbit/s each (utilization at least 0.95).", util >= 0.95, f"utilization {util:.3g}"),
        Claim("Fig 4.8: JCC's throughput varies less than Reno's once settled (mean coefficient of variation of 10 s goodputs).",
              jcc["cv_10s"].mean() < reno["cv_10s"].mean(), f"JCC {jcc['cv_10s'].mean():.3g}, Reno {reno['cv_10s'].mean():.3g}"),
        Claim("Fig 4.9: JCC is RTT-unfair as Reno is: the two flows of shorter RTT (50, 100 ms) get more than the two of longer RTT (150, 200 ms), for both.",
              all(sum(g[:2]) > sum(g[2:]) for g in halves.values()),
              "; ".join(f"{cc.upper() if cc == 'jcc' else 'Reno'} {fmt_values(g)} kbit/s" for cc, g in halves.items())),
    ]  # fmt: skip


def _loss_at(loss: pl.DataFrame, cc: str, n: int, bw: float = 10.0, gentle: bool = False, col: str = "loss_ratio") -> float:
    return loss.filter((pl.col("cc") == cc) & (pl.col("flows") == n) & (pl.col("bw_mbps") == bw) & (pl.col("gentle") == gentle))[col][0]


def _thesis_runs(loss: pl.DataFrame) -> pl.DataFrame:
    """Fig 4.10's runs as the thesis's: 10 Mbit/s, RED not gentle."""
    return loss.filter((pl.col("bw_mbps") == 10.0) & ~pl.col("gentle"))


def _loss_claims(t: dict[str, pl.DataFrame]) -> list[Claim]:
    loss = _thesis_runs(t["loss_vs_flows"])
    j40, r40 = _loss_at(loss, "jcc", 40), _loss_at(loss, "reno", 40)

    def rises(cc: str) -> bool:
        g = loss.filter(pl.col("cc") == cc).sort("flows")
        if g.height > 2:
            return rank_correlation(g["flows"].to_list(), g["loss_ratio"].to_list()) > 0.5
        return g["loss_ratio"][-1] > g["loss_ratio"][0]

    series = lambda cc: fmt_values(loss.filter(pl.col("cc") == cc).sort("flows")["loss_ratio"].to_list())  # noqa: E731
    return [
        Claim("Fig 4.10: at 40 flows JCC loses fewer packets than Reno.", j40 < r40, f"JCC {100 * j40:.3g} %, Reno {100 * r40:.3g} % (thesis about 2 % and 10 %)"),
        Claim("Fig 4.10: ... by as much as the thesis says, about a fifth of Reno's loss (we ask for at most 0.3 of it).", j40 <= 0.3 * r40,
              f"JCC / Reno = {j40 / r40:.3g} (thesis about 0.2)"),
        Claim("Fig 4.10: the loss ratio rises with the number of flows, for both.", rises("jcc") and rises("reno"),
              f"flows {fmt_values(sorted(set(loss['flows'].to_list())))}: JCC {series('jcc')}, Reno {series('reno')}"),
    ]  # fmt: skip


def _log_gap(ratios: list[float]) -> float:
    """Mean |ln r| of throughput ratios: 0 when every one is 1."""
    return sum(abs(math.log(r)) for r in ratios) / len(ratios)


def _fairness_claims(t: dict[str, pl.DataFrame]) -> list[Claim]:
    four = t["four_flows"]
    j, r = _row(four, "jcc alpha 0"), _row(four, "reno")
    lot = t["parking_lot"]
    hops = lot.filter(pl.col("exp") == "4.12 hops").sort("x")
    flows_j = lot.filter(pl.col("exp") == "4.12 flows").sort("x")
    flows_v = lot.filter(pl.col("exp") == "4.12 vegas").sort("x")
    ratio = lambda g: [a / b for a, b in zip(g["conn0_kbps"].to_list(), g["conn1_kbps"].to_list())]  # noqa: E731
    rj, rv = ratio(flows_j), ratio(flows_v)
    c0 = hops["conn0_kbps"].to_list()
    return [
        Claim("Fig 4.11: four JCC flows from t = 0 share more fairly over time than four Reno flows (mean Jain index of 5 s goodputs after warm-up).",
              j["jain_5s"] > r["jain_5s"], f"JCC {j['jain_5s']:.3g}, Reno {r['jain_5s']:.3g}"),
        Claim("Fig 4.12: on Figure 3.1's parking lot JCC is fairer than Vegas between the multi-hop conn 0 and the one-hop conn 1 "
              "(conn 0 / conn 1 closer to 1: mean |ln(conn 0 / conn 1)| over the flows per connection).",
              _log_gap(rj) < _log_gap(rv),
              f"m {fmt_values(flows_j['x'].to_list())}: conn 0 / conn 1 JCC {fmt_values(rj)} (mean |ln| {_log_gap(rj):.3g}), Vegas {fmt_values(rv)} ({_log_gap(rv):.3g}); "
              f"JCC conn 0 {fmt_values(flows_j['conn0_kbps'].to_list())}, fair {fmt_values(flows_j['fair_kbps'].to_list())} kbit/s"),
        Claim("Fig 4.12: JCC's multi-hop throughput is insensitive to the number of congested hops (conn 0 at the most active cross connections "
              "at least 0.75 of its throughput at one).",
              c0[-1] >= 0.75 * c0[0],
              f"active cross connections {fmt_values(hops['x'].to_list())}: conn 0 {fmt_values(c0)}, conn 1 {fmt_values(hops['conn1_kbps'].to_list())} kbit/s per flow (fair 100)"),
    ]  # fmt: skip


def _alpha_claims(t: dict[str, pl.DataFrame]) -> list[Claim]:
    four = t["four_flows"]
    a0, a2 = _row(four, "jcc alpha 0"), _row(four, "jcc alpha 0.02")
    mix = t["jcc_and_reno"].sort("alpha")
    at = {a: x for a, x in zip(mix["alpha"].to_list(), mix["jcc_over_reno"].to_list())}
    return [
        Claim("Table 4.1: a larger alpha makes JCC more aggressive: more loss at alpha = 0.02 than at 0.", a2["loss_ratio_pct"] > a0["loss_ratio_pct"],
              f"alpha 0: {a0['loss_ratio_pct']:.3g} %, alpha 0.02: {a2['loss_ratio_pct']:.3g} % (thesis 0.2574 %, 1.4004 %); by seed: "
              f"alpha 0: {a0['loss_ratio_pct_by_seed']} %; alpha 0.02: {a2['loss_ratio_pct_by_seed']} %"),
        Claim("Table 4.1: the mean R is larger at alpha = 0.02 than at 0.", a2["mean_r"] > a0["mean_r"],
              f"alpha 0: {a0['mean_r']:.3g}, alpha 0.02: {a2['mean_r']:.3g} (thesis 0.0057, 0.0235); by seed: alpha 0: {a0['mean_r_by_seed']}; alpha 0.02: {a2['mean_r_by_seed']}"),
        Claim("Section 4.3.6: JCC holds R near alpha (mean R within 0.01 of alpha for alpha = 0 and 0.02).",
              abs(a0["mean_r"]) <= 0.01 and abs(a2["mean_r"] - 0.02) <= 0.01, f"mean R {a0['mean_r']:.3g} at alpha 0, {a2['mean_r']:.3g} at alpha 0.02"),
        Claim("Figs 4.13/4.14: with the larger alpha the throughput is burstier (mean coefficient of variation of 2 s goodputs).", a2["cv_2s"] > a0["cv_2s"],
              f"alpha 0: {a0['cv_2s']:.3g}, alpha 0.02: {a2['cv_2s']:.3g}"),
        Claim("Fig 4.15: with alpha = 0 two JCC flows fail to get their share against two Reno flows (a JCC flow gets under 0.75 of a Reno flow's).",
              at[0.0] < 0.75, f"JCC / Reno per flow {at[0.0]:.3g}; JCC {mix['jcc_kbps'][0]:.3g}, Reno {mix['reno_kbps'][0]:.3g} kbit/s"),
        Claim("Fig 4.15: with alpha = 0.02 JCC is about as aggressive as Reno and shares fairly (JCC / Reno per flow within 0.75 to 1.33).",
              0.75 <= at[0.02] <= 1.33, f"JCC / Reno per flow {at[0.02]:.3g}"),
    ]  # fmt: skip


def _explanation_claims(t: dict[str, pl.DataFrame]) -> list[Claim]:
    loss = t["loss_vs_flows"]
    wide = loss.filter(pl.col("bw_mbps") > 10.0)
    bw = wide["bw_mbps"][0]
    jw, rw = _loss_at(loss, "jcc", int(wide["flows"][0]), bw), _loss_at(loss, "reno", int(wide["flows"][0]), bw)
    four = t["four_flows"]
    shares = t["staggered_shares"]
    fast_name = next(c for c in shares["cc"].unique().to_list() if "q_w" in c)
    fast, slow = (shares.filter(pl.col("cc") == c)["utilization"][0] for c in (fast_name, "jcc"))
    h0, h2 = _row(four, "jcc alpha 0, halve on loss"), _row(four, "jcc alpha 0.02, halve on loss")
    a0, a2, reno = _row(four, "jcc alpha 0"), _row(four, "jcc alpha 0.02"), _row(four, "reno")
    by_seed = lambda row: [float(x) for x in row["loss_ratio_pct_by_seed"].split(", ")]  # noqa: E731
    mix = t["jcc_and_reno"].sort("alpha")
    lot = t["parking_lot"].filter(pl.col("exp") == "4.12 flows").sort("x")
    r0, r1 = lot["conn0_mean_r"].to_list(), lot["conn1_mean_r"].to_list()
    f40 = {cc: _loss_at(loss, cc, 40, col="forced_share") for cc in ("jcc", "reno")}
    g40 = {cc: _loss_at(loss, cc, 40, gentle=True) for cc in ("jcc", "reno")}
    gentle_flows = sorted(set(loss.filter(pl.col("gentle"))["flows"].to_list()))
    return [
        Claim("pertlab's test of Fig 4.12's difference: the long connection's R, the largest of ten gateways' fluctuating codes (eq. 4.1), is "
              "larger than a one-hop connection's at every m (at least twice), so it cuts its window more often although no gateway is more congested.",
              all(a >= 2 * b for a, b in zip(r0, r1)), f"m {fmt_values(lot['x'].to_list())}: mean R conn 0 {fmt_values(r0)}, conn 1 {fmt_values(r1)}"),
        Claim(f"pertlab's test of Fig 4.10's difference: with larger windows ({int(wide['flows'][0])} flows on {bw:g} Mbit/s, about 12 segments each, "
              "against about 3 on 10 Mbit/s) JCC's loss falls to a fifth of Reno's (at most 0.3 of it).",
              jw <= 0.3 * rw, f"JCC {100 * jw:.3g} %, Reno {100 * rw:.3g} %: JCC / Reno = {jw / rw:.3g} (10 Mbit/s: "
              f"{_loss_at(loss, 'jcc', 40) / _loss_at(loss, 'reno', 40):.3g}); JCC's mean R {wide.filter(pl.col('cc') == 'jcc')['mean_r'][0]:.3g}"),
        Claim("pertlab's test of Fig 4.10's difference, its cause: at 40 flows most of JCC's drops are RED's forced drops (average above max_th, "
              "every arrival dropped: the flows' synchronized growth carries RED's lagging average past max_th), a larger share than Reno's.",
              f40["jcc"] > 0.5 and f40["jcc"] > f40["reno"], f"forced drops / drops: JCC {f40['jcc']:.3g}, Reno {f40['reno']:.3g}"),
        Claim("pertlab's test of Fig 4.10's difference, its removal: with gentle RED (ns-2's default from April 2001, no forced drops below "
              "2 max_th) JCC's loss at 40 flows falls to a fifth of Reno's (at most 0.3 of it).",
              g40["jcc"] <= 0.3 * g40["reno"], f"JCC {100 * g40['jcc']:.3g} %, Reno {100 * g40['reno']:.3g} %: JCC / Reno = {g40['jcc'] / g40['reno']:.3g} "
              f"(not gentle {_loss_at(loss, 'jcc', 40) / _loss_at(loss, 'reno', 40):.3g}); flows {fmt_values(gentle_flows)}: JCC / Reno "
              f"{fmt_values([_loss_at(loss, 'jcc', n, gentle=True) / _loss_at(loss, 'reno', n, gentle=True) for n in gentle_flows])}"),
        Claim(f"pertlab's test of Fig 4.8's utilization: with a RED average that follows the queue ({fast_name.split(', ')[1]}), the four staggered "
              "JCC flows use at least 0.95 of the link.",
              fast >= 0.95, f"utilization {fast:.3g}; with q_w 0.002 {slow:.3g}"),
        Claim("pertlab's test of Fig 4.11's difference: beta is set at a flow's last loss; with alpha = 0.02, where losses go on and keep "
              "resetting every flow's beta, the four flows share fairly (mean Jain index of 5 s goodputs at least 0.95, above Reno's).",
              a2["jain_5s"] >= 0.95 and a2["jain_5s"] > reno["jain_5s"],
              f"Jain alpha 0.02 {a2['jain_5s']:.3g} (loss {a2['loss_ratio_pct']:.3g} %), alpha 0 {a0['jain_5s']:.3g} (loss {a0['loss_ratio_pct']:.3g} %), Reno {reno['jain_5s']:.3g}"),
        Claim("pertlab's check of the other reading of JCC's loss response (spec 3.5 GAP): when JCC also halves its window on every loss, "
              "alpha = 0.02 still loses more than alpha = 0, in every seed.",
              all(b > a for a, b in zip(by_seed(h0), by_seed(h2))), f"alpha 0: {h0['loss_ratio_pct_by_seed']} %; alpha 0.02: {h2['loss_ratio_pct_by_seed']} %"),
        Claim("pertlab's test of Fig 4.15's difference: JCC's share grows with alpha and reaches Reno's (JCC / Reno per flow at least 0.9) "
              "at some alpha of the sweep: the alpha at which JCC and Reno share fairly depends on the network (Section 4.3.7).",
              rank_correlation(mix["alpha"].to_list(), mix["jcc_over_reno"].to_list()) > 0.9 and max(mix["jcc_over_reno"].to_list()) >= 0.9,
              f"alpha {fmt_values(mix['alpha'].to_list())}: JCC / Reno {fmt_values(mix['jcc_over_reno'].to_list())}"),
    ]  # fmt: skip


def figures(report: Report) -> list[Figure]:
    t = report.tables

    def draw_cwnd(path: Path) -> None:
        s, z = t["four_series"], t["cwnd_zoom"]
        with saved_figure(path, 2, 2, figsize=(12, 6.5), title="Figs 4.6/4.7: congestion windows, four flows on 1 Mbit/s (flow 0; seed 1)") as (_, axes):
            for col, variant in enumerate(("jcc alpha 0", "reno")):
                g = s.filter((pl.col("variant") == variant) & (pl.col("flow") == 0))
                ax = axes[0][col]
                ax.fill_between(g["bin_s"].to_list(), g["cwnd_min"].to_list(), g["cwnd_max"].to_list(), alpha=0.3, label="least to largest in 2 s")
                ax.plot(g["bin_s"].to_list(), g["cwnd_mean"].to_list(), label="mean")
                ax.set_title(f"Fig 4.6: {variant}")
                zz = z.filter((pl.col("variant") == variant) & (pl.col("flow") == 0))
                axes[1][col].step(zz["t_s"].to_list(), zz["cwnd"].to_list(), where="post")
                axes[1][col].set_title(f"Fig 4.7: {variant}, the last 50 s")
                for ax_ in (ax, axes[1][col]):
                    ax_.set_xlabel("time (s)")
                    ax_.set_ylabel("cwnd (segments)")
                ax.legend(fontsize=7)

    def draw_staggered(path: Path) -> None:
        s = t["staggered_series"]
        with saved_figure(path, 1, 2, figsize=(12, 3.8), title="Fig 4.8: four flows joining at 0, 50, 100, 150 s on 1 Mbit/s (10 s goodputs, seed 1)") as (_, axes):
            for ax, cc in zip(axes, ("jcc", "reno")):
                for flow in range(4):
                    g = s.filter((pl.col("cc") == cc) & (pl.col("flow") == flow)).sort("t_s")
                    ax.plot(g["t_s"].to_list(), g["kbps"].to_list(), label=f"flow {flow}")
                ax.axhline(250, color="grey", lw=0.8)
                ax.set_title(cc.upper() if cc == "jcc" else "Reno")
                ax.set_xlabel("time (s)")
                ax.set_ylabel("goodput (kbit/s)")
                ax.legend(fontsize=7)

    def draw_rtt_loss(path: Path) -> None:
        rtt, loss = t["rtt_mix"], _thesis_runs(t["loss_vs_flows"])
        gentle = t["loss_vs_flows"].filter((pl.col("bw_mbps") == 10.0) & pl.col("gentle"))
        with saved_figure(path, 1, 2, figsize=(12, 3.8), title="Fig 4.9 (four RTTs) and Fig 4.10 (loss against flows, 10 Mbit/s)") as (_, axes):
            for i, cc in enumerate(("jcc", "reno")):
                g = rtt.filter(pl.col("cc") == cc).sort("rtt_ms")
                axes[0].bar([x + (i - 0.5) * 18 for x in g["rtt_ms"].to_list()], g["goodput_kbps"].to_list(), width=18, label=cc)
                for runs, style, suffix in ((loss, "o-", ""), (gentle, "s--", ", gentle RED")):
                    g = runs.filter(pl.col("cc") == cc).sort("flows")
                    axes[1].plot(g["flows"].to_list(), [100 * v for v in g["loss_ratio"].to_list()], style, color=f"C{i}", label=cc + suffix)
            axes[1].plot([40, 40], [100 * THESIS_LOSS_AT_40["jcc"], 100 * THESIS_LOSS_AT_40["reno"]], "k*", label="thesis at 40 flows")
            axes[0].set_xlabel("RTT (ms)")
            axes[0].set_ylabel("goodput (kbit/s)")
            axes[1].set_xlabel("flows")
            axes[1].set_ylabel("loss ratio (%)")
            for ax in axes:
                ax.legend(fontsize=8)

    def draw_fairness(path: Path) -> None:
        js, lot = t["jain_series"], t["parking_lot"]
        with saved_figure(path, 1, 3, figsize=(15, 3.8), title="Fig 4.11 (Jain index of 5 s goodputs, seed 1) and Fig 4.12 (JCC on Figure 3.1, N = 11)") as (_, axes):
            for variant in ("jcc alpha 0", "reno"):
                g = js.filter(pl.col("variant") == variant)
                axes[0].plot(g["bin_s"].to_list(), g["jain"].to_list(), label=variant)
            axes[0].set_xlabel("time (s)")
            axes[0].set_ylabel("Jain index")
            for ax, exp, xlabel in ((axes[1], "4.12 hops", "active cross connections"), (axes[2], "4.12 flows", "flows per connection")):
                for e, style in ((exp, "-"), ("4.12 vegas", "--")) if exp == "4.12 flows" else ((exp, "-"),):
                    g = lot.filter(pl.col("exp") == e).sort("x")
                    who = "Vegas" if e == "4.12 vegas" else "JCC"
                    ax.plot(g["x"].to_list(), g["conn0_kbps"].to_list(), "x" + style, label=f"{who} conn 0")
                    ax.plot(g["x"].to_list(), g["conn1_kbps"].to_list(), "+" + style, label=f"{who} conn 1")
                g = lot.filter(pl.col("exp") == exp).sort("x")
                ax.plot(g["x"].to_list(), g["fair_kbps"].to_list(), "k:", label="fair share")
                ax.set_xlabel(xlabel)
                ax.set_ylabel("throughput per flow (kbit/s)")
                ax.set_yscale("log")
            for ax in axes:
                ax.legend(fontsize=7)

    def draw_alpha(path: Path) -> None:
        s, mix = t["four_series"], t["jcc_and_reno"].sort("alpha")
        with saved_figure(path, 2, 3, figsize=(15, 6.5), title="Figs 4.13/4.14: goodput and R, four JCC flows (seed 1); Fig 4.15: two JCC against two Reno") as (_, axes):
            for col, variant in enumerate(("jcc alpha 0", "jcc alpha 0.02")):
                for flow in range(4):
                    g = s.filter((pl.col("variant") == variant) & (pl.col("flow") == flow))
                    axes[0][col].plot(g["bin_s"].to_list(), g["kbps"].to_list(), lw=0.8, label=f"flow {flow}")
                    axes[1][col].plot(g["bin_s"].to_list(), g["r"].to_list(), lw=0.8)
                axes[0][col].set_title(variant)
                axes[0][col].set_ylabel("goodput over 2 s (kbit/s)")
                axes[1][col].set_ylabel("R (mean over 2 s)")
                axes[1][col].set_xlabel("time (s)")
                axes[0][col].legend(fontsize=7)
            axes[0][2].plot(mix["alpha"].to_list(), mix["jcc_kbps"].to_list(), "o-", label="JCC per flow")
            axes[0][2].plot(mix["alpha"].to_list(), mix["reno_kbps"].to_list(), "s-", label="Reno per flow")
            axes[0][2].set_xlabel("JCC's alpha")
            axes[0][2].set_ylabel("goodput (kbit/s)")
            axes[0][2].set_title("Fig 4.15")
            axes[0][2].legend(fontsize=7)
            axes[1][2].plot(mix["alpha"].to_list(), mix["jcc_over_reno"].to_list(), "o-")
            axes[1][2].axhline(1.0, color="grey", lw=0.8)
            axes[1][2].set_xlabel("JCC's alpha")
            axes[1][2].set_ylabel("JCC / Reno per flow")

    return [
        Figure("hua02-jcc-cwnd.png", "Figs 4.6 and 4.7: the window of one of four JCC (alpha 0) and four Reno flows over the run, and over its last 50 s.", draw_cwnd),
        Figure("hua02-jcc-staggered.png", "Fig 4.8: goodput of four flows joining at 0, 50, 100 and 150 s; the fair share 250 kbit/s.", draw_staggered),
        Figure("hua02-jcc-loss.png", "Fig 4.9: goodput of four flows of RTT 50 to 200 ms; Fig 4.10: loss ratio against the number of flows (dashed: with gentle RED, pertlab's test), the thesis's values at 40 flows marked.", draw_rtt_loss),
        Figure("hua02-jcc-fairness.png", "Fig 4.11: Jain's index over time; Fig 4.12: per-flow throughput of conn 0 and conn 1 on Figure 3.1 with JCC (Vegas dashed).", draw_fairness),
        Figure("hua02-jcc-alpha.png", "Figs 4.13 and 4.14: goodput and R of four JCC flows with alpha 0 and 0.02; Fig 4.15: two JCC flows against two Reno flows against alpha.", draw_alpha),
    ]  # fmt: skip
