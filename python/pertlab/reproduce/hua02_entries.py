"""Registry entries of Hua's MPhil thesis (CUHK 2002): ``hua02-vegas`` (Chapter 3,
Figures 3.2 to 3.5: TCP Vegas on a parking lot of congested gateways, beside the
closed form of eqs. 3.5 to 3.13) and ``hua02-jcc`` (Chapter 4, Figures 4.8 and
4.10, Table 4.1: Joint Congestion Control against Reno). Each report states the
thesis's claims and whether our data bears them out; the tables carry the
thesis's numbers beside ours. Scenario choices: :mod:`pertlab.experiments.hua02`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from .._core import jain_index as jain
from ..analysis import vegas_parking_lot
from ..experiments import hua02 as h
from ..parallel import Workers
from ..plots import saved_figure
from ..scenario import Scenario
from ..sweep import Point, run_points, stored_results
from .registry import Claim, Entry, Figure, Report, Wire, fmt_values, rank_correlation, register, wire_of

THESIS = "Hua, MPhil thesis, CUHK 2002"


@dataclass(frozen=True)
class Mode:
    duration: str
    warmup: str
    cross_active: tuple[int, ...]
    flows_per_conn: tuple[int, ...]
    lot4_flows: tuple[int, ...]
    jcc_flows: tuple[int, ...]
    stagger_end_s: int
    #: The thesis shows one run per point; the full mode runs three seeds and reports their mean.
    seeds: tuple[int, ...]


QUICK = Mode("60s", "20s", (1, 2, 5, 10), (1, 2, 4, 8), (2, 4, 8), (10, 40), 250, (1,))
FULL = Mode("200s", "50s", tuple(range(1, 11)), tuple(range(1, 11)), tuple(range(1, 11)), (5, 10, 20, 30, 40, 50), 300, (1, 2, 3))


def _seeded(points: list[tuple[dict, Point]], seeds: tuple[int, ...]) -> list[tuple[dict, Point]]:
    """Every (labels, point) once per seed, the scenario's seed set and ``seed`` in the labels."""
    out = []
    for labels, p in points:
        for seed in seeds:
            wire = p.scenario.to_wire()
            wire["seed"] = seed
            out.append(({**labels, "seed": seed}, Point(p.values, seed, Scenario.parse(wire))))
    return out


def _seed_mean(rows: list[dict], by: list[str]) -> pl.DataFrame:
    """The mean over seeds of every other numeric column of ``rows``, in first-seen order of ``by``."""
    df = pl.DataFrame(rows, infer_schema_length=None).with_row_index("_order")
    cols = [c for c, t in df.schema.items() if c not in (*by, "seed", "_order") and t.is_numeric()]
    return df.group_by(by, maintain_order=True).agg(pl.col("_order").min(), *(pl.col(c).mean() for c in cols)).sort("_order").drop("_order")


def _run(points: list[Point], out: Path, workers: Workers) -> dict[str, Any]:
    run_points(points, out, jobs=workers.jobs, cluster=workers.cluster)
    return {p.key: stored_results(p, out) for p in points}


def _report(name: str, title: str, section: str, quick: bool, out: Path, notes: list[str]) -> Report:
    return Report(name=name, title=title, source=f"{THESIS}, {section}", mode="quick" if quick else "full", out_dir=out, notes=notes)


# ------------------------------------------------------------------ Chapter 3: Vegas


def _lots(mode: Mode) -> list[tuple[str, int, h.LotRun]]:
    """(figure, x, run): Fig 3.2 (N = 11, conn 0 of 10 flows, the first n links with 10 cross
    flows), Fig 3.3 (N = 11, m flows everywhere), Fig 3.4/3.5 (N = 4, cases 1 and 2)."""
    runs = [("3.2", n, h.LotRun(11, 10, tuple(10 if i < n else 0 for i in range(10)))) for n in mode.cross_active]
    runs += [("3.3", m, h.LotRun.several(11, m)) for m in mode.flows_per_conn]
    runs += [("3.4 case 1", m, h.LotRun.one(4, m)) for m in mode.lot4_flows]
    runs += [("3.4 case 2", m, h.LotRun.several(4, m)) for m in mode.lot4_flows]
    return runs


def _vegas_seeds(mode: Mode) -> tuple[int, ...]:
    """The Vegas runs draw nothing at random: every flow starts at 0 s (the start draw is over
    an empty window), Vegas and DropTail are deterministic, and there is no send overhead,
    RTT noise or link loss. Every seed gives the same run (tests/python/test_hua02.py checks
    seeds 1 to 3), so they run the mode's first seed only."""
    return mode.seeds[:1]


VEGAS_ONE_SEED = (
    "One seed: these runs draw nothing at random (every flow starts at 0 s, Vegas over DropTail, no send overhead, RTT noise "
    "or link loss), so every seed gives the same run; the three-seed report this replaces found a spread of 0 kbit/s between seeds at every point."
)


def _vegas_runs(mode: Mode) -> list[tuple[dict, Point]]:
    """One run per lot of :func:`_lots` (and seed of :func:`_vegas_seeds`), in that order, with its labels."""
    return _seeded([({"figure": fig, "x": x, "lot": lot}, Point((("figure", fig), ("x", str(x))), 1, h.vegas_lot(lot, duration=mode.duration, warmup=mode.warmup)))
                    for fig, x, lot in _lots(mode)], _vegas_seeds(mode))  # fmt: skip


def _first_seed(runs: list[tuple[dict, Point]]) -> Wire:
    """The scenarios of the runs of the first seed: what scenarios.json keeps (the others differ
    only in the seed)."""
    first = runs[0][0]["seed"]
    return wire_of([p for labels, p in runs if labels["seed"] == first])


def _vegas(quick: bool, out: Path, workers: Workers) -> Report:
    mode = QUICK if quick else FULL
    runs = _vegas_runs(mode)
    points = [p for _, p in runs]
    results = _run(points, out, workers)
    rows = []
    for labels, p in runs:
        fig, x, lot = labels["figure"], labels["x"], labels["lot"]
        r = results[p.key]
        conns = h.lot_connections(lot, r.flows)
        per_flow = dict(zip(conns["connection"].to_list(), conns["bps_per_flow"].to_list()))
        closed = vegas_parking_lot(lot.gateways - 1, lot.flows, list(lot.cross))
        queues = r.queues.filter(pl.col("link").str.starts_with("R") & (pl.col("from") < pl.col("to")))
        q = dict(zip(queues["link"].to_list(), queues["avg_queue_pkts"].to_list()))
        rows.append({
            "figure": fig, "x": x, "seed": labels["seed"], "conn0_kbps": per_flow[0] / 1e3, "conn1_kbps": per_flow.get(1, math.nan) / 1e3,
            "closed_form_conn0_kbps": closed.long_flow_bps / 1e3, "closed_form_conn1_kbps": closed.cross_flow_bps[0] / 1e3,
            "fair_kbps": closed.fair_share_bps / 1e3, "queue_g1": q.get("R1-R2"), "queue_g2": q.get("R2-R3"), "queue_g3": q.get("R3-R4"),
            "closed_form_queue_sum_alpha": sum(closed.queue_pkts_alpha), "closed_form_queue_sum_beta": sum(closed.queue_pkts_beta),
        })  # fmt: skip
    table = _seed_mean(rows, ["figure", "x"])
    report = _report(
        "hua02-vegas", "Figures 3.2 to 3.5: Vegas on a parking lot of congested gateways", "Chapter 3", quick, out,
        [f"{mode.duration} runs, metrics after {mode.warmup}, seed {', '.join(map(str, _vegas_seeds(mode)))}, every flow starting at 0 s; Figure 3.1 with 2 Mbit/s gateway links, "
         "10 ms per gateway link, 2 ms per access link, 50-packet DropTail buffers, 1000-byte packets, Vegas alpha 1, beta 3, "
         "equal base RTTs (pertlab.experiments.hua02). Throughputs are per flow on the wire (goodput / 0.96). "
         "closed_form_* is pertlab.analysis.vegas_parking_lot (every flow holding the same backlog); fair_kbps the max-min fair share. "
         "The thesis prints these figures as plots only: its claims are checked below.", VEGAS_ONE_SEED],
    )  # fmt: skip
    report.tables["runs"] = table
    report.tables["per_run"] = pl.DataFrame(rows, infer_schema_length=None)
    report.claims = _vegas_claims(table)
    return report


def _sel(table: pl.DataFrame, fig: str, *cols: str) -> list[list[float]]:
    t = table.filter(pl.col("figure") == fig).sort("x")
    return [t["x"].to_list(), *(t[c].to_list() for c in cols)]


def _vegas_claims(t: pl.DataFrame) -> list[Claim]:
    xs, c0, c1, cf0 = _sel(t, "3.2", "conn0_kbps", "conn1_kbps", "closed_form_conn0_kbps")
    rho = rank_correlation(xs, c0)
    claims = [
        Claim("Fig 3.2: the long connection loses throughput as congested hops are added (rank correlation <= -0.9, last point below half the first).",
              rho <= -0.9 and c0[-1] < 0.5 * c0[0], f"active cross connections {fmt_values(xs)}: conn 0 {fmt_values(c0)} kbit/s per flow "
              f"(closed form {fmt_values(cf0)}); rank correlation {rho:.3g}"),
        Claim("Fig 3.2: with one active cross connection, conn 0 and conn 1 both get about their fair share, 100 kbit/s (within 25 %).",
              xs[0] == 1 and all(abs(v / 100 - 1) <= 0.25 for v in (c0[0], c1[0])), f"n = {xs[0]}: conn 0 {c0[0]:.3g}, conn 1 {c1[0]:.3g} kbit/s"),
    ]  # fmt: skip
    ms, c0, fair = _sel(t, "3.3", "conn0_kbps", "fair_kbps")
    claims.append(Claim("Fig 3.3: as flows per connection grow, conn 0 drops below its fair share (below 0.75 of it at the most flows).",
                        c0[-1] < 0.75 * fair[-1], f"m {fmt_values(ms)}: conn 0 {fmt_values(c0)} against fair {fmt_values(fair)} kbit/s"))
    ms, one, fair1 = _sel(t, "3.4 case 1", "conn0_kbps", "fair_kbps")
    _, several, fair2 = _sel(t, "3.4 case 2", "conn0_kbps", "fair_kbps")
    claims.append(Claim("Fig 3.4 case 1 (one congested gateway): conn 0 always gets its fair share (within 20 %).",
                        all(abs(a / b - 1) <= 0.2 for a, b in zip(one, fair1)), f"m {fmt_values(ms)}: {fmt_values(one)} against {fmt_values(fair1)} kbit/s"))
    claims.append(Claim("Fig 3.4 case 2 (three congested gateways): conn 0 falls below its fair share, to the level of case 1 (within 25 % at the most flows).",
                        several[-1] < 0.75 * fair2[-1] and abs(several[-1] / one[-1] - 1) <= 0.25,
                        f"m {fmt_values(ms)}: case 2 {fmt_values(several)} (fair {fmt_values(fair2)}), case 1 {fmt_values(one)} kbit/s"))
    q1 = t.filter(pl.col("figure") == "3.4 case 1").sort("x").select("queue_g1", "queue_g2", "queue_g3").rows()
    q2 = t.filter(pl.col("figure") == "3.4 case 2").sort("x").select("queue_g1", "queue_g2", "queue_g3").rows()
    claims.append(Claim("Fig 3.5: case 1 queues at the first gateway only, case 2 at all three alike, and the sums are close (within 30 %).",
                        all(a[0] >= 0.9 * sum(a) and min(b) >= 0.2 * sum(b) and abs(sum(a) / sum(b) - 1) <= 0.3 for a, b in zip(q1, q2)),
                        f"m {fmt_values(ms)}: case 1 {[fmt_values(list(a)) for a in q1]}; case 2 {[fmt_values(list(b)) for b in q2]} packets"))
    return claims


def _vegas_figures(report: Report) -> list[Figure]:
    t = report.tables["runs"]

    def draw(path: Path) -> None:
        with saved_figure(path, 1, 3, figsize=(13, 3.8), title=report.title) as (_, axes):
            for ax, (fig, xlabel) in zip(axes, (("3.2", "active cross connections"), ("3.3", "flows per connection (N = 11)"), ("3.4", "flows m (N = 4)"))):
                if fig == "3.4":
                    for case in ("3.4 case 1", "3.4 case 2"):
                        xs, c0, fair = _sel(t, case, "conn0_kbps", "fair_kbps")
                        ax.plot(xs, c0, "o-", label=f"conn 0, {case[4:]}")
                        ax.plot(xs, fair, ":", label=f"fair, {case[4:]}")
                else:
                    xs, c0, c1, cf0, fair = _sel(t, fig, "conn0_kbps", "conn1_kbps", "closed_form_conn0_kbps", "fair_kbps")
                    ax.plot(xs, c0, "x-", label="conn 0")
                    ax.plot(xs, c1, "+-", label="conn 1")
                    ax.plot(xs, cf0, "--", label="conn 0, closed form")
                    ax.plot(xs, fair, ":", label="fair share")
                ax.set_xlabel(xlabel)
                ax.set_ylabel("throughput per flow (kbit/s)")
                ax.set_title(f"Fig {fig}")
                ax.legend(fontsize=7)

    return [Figure("hua02-vegas.png", "Per-flow throughput of the long connection (conn 0) and of a cross connection, beside the closed form and the fair share.", draw)]


register(Entry("hua02-vegas", "Figures 3.2 to 3.5: Vegas on a parking lot of congested gateways", f"{THESIS}, Chapter 3", _vegas, _vegas_figures,
               lambda quick: _first_seed(_vegas_runs(QUICK if quick else FULL)), details=("per_run",)))  # fmt: skip


# ------------------------------------------------------------------ Chapter 4: JCC

#: Fig 4.10 at 40 flows, read off the text (Section 4.3.3): loss ratio about 10 % (Reno), about 2 % (JCC).
THESIS_LOSS_AT_40 = {"reno": 0.10, "jcc": 0.02}
#: Table 4.1: packet loss ratio (%) and mean R for alpha = 0 and 0.02.
THESIS_TABLE_4_1 = {0.0: (0.0057, 0.2574), 0.02: (0.0235, 1.4004)}


def _jcc_runs(mode: Mode) -> tuple[list[tuple[dict, Point]], list[tuple[dict, Point]], list[tuple[dict, Point]]]:
    """Fig 4.10's loss runs, Fig 4.8's staggered runs and Table 4.1's runs, each once per seed."""
    loss_pts = _seeded([({"cc": cc, "flows": n}, Point((("figure", "4.10"), ("cc", cc), ("flows", str(n))), 1, h.jcc_dumbbell(cc, n, bw="10Mbps", duration=mode.duration, warmup=mode.warmup)))
                        for cc in ("jcc", "reno") for n in mode.jcc_flows], mode.seeds)  # fmt: skip
    end = f"{mode.stagger_end_s}s"
    stag_pts = _seeded([({"cc": cc}, Point((("figure", "4.8"), ("cc", cc)), 1, h.staggered(h.jcc_dumbbell(cc, 4, duration=end, warmup="150s", sample_interval="10s"), 50)))
                        for cc in ("jcc", "reno")], mode.seeds)  # fmt: skip
    alpha_pts = _seeded([({"alpha": a}, Point((("figure", "table 4.1"), ("alpha", str(a))), 1, h.jcc_dumbbell("jcc", 4, duration=mode.duration, warmup=mode.warmup, alpha=a)))
                         for a in THESIS_TABLE_4_1], mode.seeds)  # fmt: skip
    return loss_pts, stag_pts, alpha_pts


def _jcc(quick: bool, out: Path, workers: Workers) -> Report:
    mode = QUICK if quick else FULL
    loss_pts, stag_pts, alpha_pts = _jcc_runs(mode)
    end = f"{mode.stagger_end_s}s"
    points = [p for _, p in loss_pts + stag_pts + alpha_pts]
    results = _run(points, out, workers)
    loss = _seed_mean([
        {"cc": lb["cc"], "flows": lb["flows"], "seed": lb["seed"], "loss_ratio": results[p.key].bottleneck["drop_rate"],
         "utilization": results[p.key].bottleneck["utilization"], "jain": results[p.key].jain,
         "thesis_loss_ratio": THESIS_LOSS_AT_40[lb["cc"]] if lb["flows"] == 40 else None}
        for lb, p in loss_pts
    ], ["cc", "flows"])  # fmt: skip
    shares = []
    for lb, p in stag_pts:
        g = results[p.key].flow_goodput().filter(pl.col("t_s") > mode.stagger_end_s - 50)
        for flow, mbps in g.group_by("flow").agg(pl.col("mbps").mean()).sort("flow").rows():
            shares.append({"cc": lb["cc"], "flow": flow, "seed": lb["seed"], "start_s": 50 * flow, "goodput_kbps": mbps * 1e3,
                           "cv_10s": g.filter(pl.col("flow") == flow)["mbps"].std() / mbps, "utilization": results[p.key].bottleneck["utilization"]})  # fmt: skip
    shares_t = _seed_mean(shares, ["cc", "flow"])
    t41_rows = [
        {"alpha": lb["alpha"], "seed": lb["seed"], "loss_ratio_pct": 100 * results[p.key].bottleneck["drop_rate"], "thesis_loss_ratio_pct": THESIS_TABLE_4_1[lb["alpha"]][1],
         "thesis_mean_r": THESIS_TABLE_4_1[lb["alpha"]][0], "utilization": results[p.key].bottleneck["utilization"]}
        for lb, p in alpha_pts
    ]  # fmt: skip
    table41 = _seed_mean(t41_rows, ["alpha"])
    by_seed = {a: fmt_values([r["loss_ratio_pct"] for r in t41_rows if r["alpha"] == a]) for a in THESIS_TABLE_4_1}
    table41 = table41.with_columns(pl.Series("loss_ratio_pct_by_seed", [by_seed[a] for a in table41["alpha"].to_list()]))
    report = _report(
        "hua02-jcc", "Figures 4.8 and 4.10, Table 4.1: Joint Congestion Control against Reno", "Chapter 4", quick, out,
        [f"Dumbbells of 100 ms RTT, 50-packet buffers, 1000-byte packets; RED with old ns-2's defaults (min_th 5, max_th 15, q_w 0.002, "
         f"max_p 0.1, not gentle) as jcc-red (m = 8) for JCC and plain RED for Reno; JCC alpha 0 unless stated (pertlab.experiments.hua02). "
         f"Fig 4.10: 10 Mbit/s, {mode.duration} runs after {mode.warmup}. Fig 4.8: 1 Mbit/s, four flows starting at 0, 50, 100, 150 s, "
         f"shares over the last 50 s of {end}. Table 4.1: four JCC flows on 1 Mbit/s. Seeds {', '.join(map(str, mode.seeds))}; the tables give the mean over seeds. The mean R of Table 4.1 is not measured "
         "(the controller does not report it)."],
    )  # fmt: skip
    report.tables.update({"loss_vs_flows": loss, "staggered_shares": shares_t, "table_4_1": table41})
    report.claims = _jcc_claims(loss, shares_t, table41)
    return report


def _jcc_claims(loss: pl.DataFrame, shares: pl.DataFrame, t41: pl.DataFrame) -> list[Claim]:
    def at(cc: str, n: int) -> float:
        return loss.filter((pl.col("cc") == cc) & (pl.col("flows") == n))["loss_ratio"][0]

    j40, r40 = at("jcc", 40), at("reno", 40)
    jcc = shares.filter(pl.col("cc") == "jcc").sort("flow")
    reno = shares.filter(pl.col("cc") == "reno").sort("flow")
    fj = jain(jcc["goodput_kbps"].to_list())
    util = jcc["utilization"][0]
    a0, a2 = t41.sort("alpha")["loss_ratio_pct"].to_list()
    return [
        Claim("Fig 4.10: at 40 flows JCC loses fewer packets than Reno.", j40 < r40, f"JCC {100 * j40:.3g} %, Reno {100 * r40:.3g} % (thesis about 2 % and 10 %)"),
        Claim("Fig 4.10: ... by as much as the thesis says, about a fifth of Reno's loss (we ask for at most half).", j40 <= 0.5 * r40,
              f"JCC / Reno = {j40 / r40:.3g} (thesis about 0.2)"),
        Claim("Fig 4.10: the loss ratio rises with the number of flows, for both.",
              all(rank_correlation(*[loss.filter(pl.col("cc") == cc).sort("flows")[c].to_list() for c in ("flows", "loss_ratio")]) > 0.5 if loss.filter(pl.col("cc") == cc).height > 2
                  else at(cc, loss["flows"].max()) > at(cc, loss["flows"].min()) for cc in ("jcc", "reno")),
              f"flows {fmt_values(sorted(set(loss['flows'].to_list())))}: JCC {fmt_values(loss.filter(pl.col('cc') == 'jcc').sort('flows')['loss_ratio'].to_list())}, "
              f"Reno {fmt_values(loss.filter(pl.col('cc') == 'reno').sort('flows')['loss_ratio'].to_list())}"),
        Claim("Fig 4.8: four JCC flows joining at 0, 50, 100, 150 s converge to near-equal shares (Jain index at least 0.95 over the last 50 s).", fj >= 0.95,
              f"JCC {fmt_values(jcc['goodput_kbps'].to_list())} kbit/s, Jain {fj:.3g}; Reno {fmt_values(reno['goodput_kbps'].to_list())}, Jain {jain(reno['goodput_kbps'].to_list()):.3g}"),
        Claim("Fig 4.8: they share the whole link, about 250 kbit/s each (utilization at least 0.95).", util >= 0.95, f"utilization {util:.3g}"),
        Claim("Fig 4.8: JCC's throughput varies less than Reno's once settled (mean coefficient of variation of 10 s goodputs).",
              jcc["cv_10s"].mean() < reno["cv_10s"].mean(), f"JCC {jcc['cv_10s'].mean():.3g}, Reno {reno['cv_10s'].mean():.3g}"),
        Claim("Table 4.1: a larger alpha makes JCC more aggressive: more loss at alpha = 0.02 than at 0.", a2 > a0, f"alpha 0: {a0:.3g} %, alpha 0.02: {a2:.3g} % (thesis 0.2574 %, 1.4004 %); by seed: "
              + "; ".join(f"alpha {a:g}: {v} %" for a, v in t41.sort("alpha").select("alpha", "loss_ratio_pct_by_seed").rows())),
    ]  # fmt: skip


def _jcc_figures(report: Report) -> list[Figure]:
    loss = report.tables["loss_vs_flows"]

    def draw(path: Path) -> None:
        with saved_figure(path, 1, 1, figsize=(6, 3.8), title="Fig 4.10: loss ratio against the number of flows") as (_, ax):
            for cc in ("jcc", "reno"):
                t = loss.filter(pl.col("cc") == cc).sort("flows")
                ax.plot(t["flows"].to_list(), [100 * v for v in t["loss_ratio"].to_list()], "o-", label=cc)
            ax.plot([40, 40], [100 * THESIS_LOSS_AT_40["jcc"], 100 * THESIS_LOSS_AT_40["reno"]], "k*", label="thesis at 40 flows")
            ax.set_xlabel("flows")
            ax.set_ylabel("loss ratio (%)")
            ax.legend(fontsize=8)

    return [Figure("hua02-jcc-loss.png", "Loss ratio of JCC and Reno against the number of flows, the thesis's two values at 40 flows marked.", draw)]


register(Entry("hua02-jcc", "Figures 4.8 and 4.10, Table 4.1: Joint Congestion Control against Reno", f"{THESIS}, Chapter 4", _jcc, _jcc_figures,
               lambda quick: wire_of([p for _, p in sum(_jcc_runs(QUICK if quick else FULL), [])]), details=()))  # fmt: skip
