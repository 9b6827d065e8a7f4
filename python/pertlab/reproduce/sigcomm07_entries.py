"""Registry entries of the PERT paper's packet-level evaluation (SIGCOMM 2007,
Sections 4 and 6.1): Figures 6, 7, 8, 12 and 14. Each evaluates the paper's
qualitative claims on its own data; the paper prints no numbers for these
figures (only plots), so the reports carry claims, not digit comparisons."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..experiments import sigcomm07 as sc
from ..parallel import Workers
from ..plots import comparison_panels, interval_note
from ..sweep import INTERVAL
from .registry import Claim, Entry, Figure, Report, Wire, fmt_values, register, wire_of

PAPER = "Bhandarkar et al., SIGCOMM 2007"
PLOT_ONLY = "The paper prints this figure as a plot only: there are no published values to mark."


def _runs(report: Report) -> pl.DataFrame:
    """The report's runs with ``tcp_flows`` (the Jain index's floor is 1/n), which runs tables
    written before it was a column get from each run's scenario."""
    runs = report.tables["runs"]
    if "tcp_flows" in runs.columns:
        return runs
    flows = pl.DataFrame({"key": list(report.scenarios), "tcp_flows": [len(w["flows"]) for w in report.scenarios.values()]})
    return runs.join(flows, on="key", how="left")


def _seeds(runs: pl.DataFrame) -> str:
    n = runs["seed"].n_unique()
    return f"{n} seed{'s' if n > 1 else ''}"


def _values(table: pl.DataFrame, slug: str, x: str, metric: str) -> list[float]:
    return table.filter(pl.col("scheme") == slug).sort(x)[metric].to_list()


def common_claims(table: pl.DataFrame, x: str) -> list[Claim]:
    """Section 4's claims that every single-bottleneck figure repeats."""
    xs = table.filter(pl.col("scheme") == "pert").sort(x)[x].to_list()
    q = {s: _values(table, s, x, "avg_queue_norm") for s in ("pert", "sack-droptail", "sack-red-ecn")}
    p = {s: _values(table, s, x, "drop_rate") for s in ("pert", "sack-droptail")}
    drop_ok = [xv for xv, a, b in zip(xs, p["pert"], p["sack-droptail"]) if a <= b]
    queue_ok = [xv for xv, a, b in zip(xs, q["pert"], q["sack-droptail"]) if a < b]
    # "Similar": within 0.1 of the buffer (our reading; the paper gives no tolerance).
    near = [xv for xv, a, b in zip(xs, q["pert"], q["sack-red-ecn"]) if abs(a - b) <= 0.1 or a <= b]
    return [
        Claim(
            "PERT's drop rate is not above SACK/DropTail's.",
            len(drop_ok) == len(xs),
            f"at {x} = {fmt_values(xs)}: PERT {fmt_values(p['pert'])}; SACK/DropTail {fmt_values(p['sack-droptail'])}",
        ),
        Claim(
            "PERT's average queue is below SACK/DropTail's, which \"remains high for most experiments\" (at most points).",
            2 * len(queue_ok) > len(xs),
            f"normalized queue: PERT {fmt_values(q['pert'])}; SACK/DropTail {fmt_values(q['sack-droptail'])}",
        ),
        Claim(
            "PERT's average queue is similar to (or below) SACK/RED-ECN's (within 0.1 of the buffer).",
            len(near) == len(xs),
            f"normalized queue: PERT {fmt_values(q['pert'])}; SACK/RED-ECN {fmt_values(q['sack-red-ecn'])}; holds at {x} = {fmt_values(near) or 'none'}",
        ),
    ]


def _figure_entry(key: str, specific) -> None:
    fig = sc.FIGURES[key]

    def run(quick: bool, out: Path, workers: Workers) -> Report:
        mode = sc.QUICK if quick else sc.FULL
        runs, table = sc.run_figure(fig, mode, out, workers)
        report = Report(
            name=f"sigcomm07-{key}",
            title=fig.title,
            source=f"{PAPER}, Section {'6.1' if key == 'fig14' else '4'}",
            mode=mode.name,
            out_dir=out,
            tables={"runs": runs, "aggregate": table},
            notes=[
                *fig.notes,
                f"{mode.duration} runs, starts uniform in (0, {mode.start_window}), metrics over [{mode.warmup}, {mode.measure_end}], "
                f"seeds {', '.join(map(str, mode.seeds))} (error bars: 95 % CI over seeds when more than one). "
                f"Every run is stored under runs/ by the hash of its scenario; a second invocation reuses them. "
                f"Wall time of the simulations: {runs['wall_seconds'].sum():.1f} s in total.",
            ],
        )
        report.claims = specific(table, fig.x)
        return report

    def figures(report: Report) -> list[Figure]:
        runs = _runs(report)
        table = sc.figure_table(runs, fig.x)
        caption = " ".join(c for c in (f"{fig.title}: per {fig.x_label} and scheme, the mean over {_seeds(runs)}.", interval_note(table, list(sc.PANELS)), PLOT_ONLY) if c)
        return [Figure(f"{key}.png", caption, lambda path: sc.plot_figure(table, fig.x, fig.x_label, fig.title, path))]

    def scenarios(quick: bool) -> Wire:
        return wire_of(sc.figure_points(fig, sc.QUICK if quick else sc.FULL))

    register(Entry(f"sigcomm07-{key}", fig.title, f"{PAPER}, {'Section 6.1' if key == 'fig14' else 'Section 4'}", run, figures, scenarios))


def _fig6_claims(table: pl.DataFrame, x: str) -> list[Claim]:
    return common_claims(table, x)


def _fig7_claims(table: pl.DataFrame, x: str) -> list[Claim]:
    jain = _values(table, "pert", x, "jain")
    pu, ru = _values(table, "pert", x, "utilization"), _values(table, "sack-red-ecn", x, "utilization")
    return common_claims(table, x) + [
        Claim("The Jain index of PERT remains high (at least 0.9) across RTTs.", min(jain) >= 0.9, f"PERT Jain: {fmt_values(jain)}"),
        Claim(
            "SACK/RED-ECN's utilization is only slightly better than PERT's (within 5 points).",
            all(b - a <= 0.05 for a, b in zip(pu, ru)),
            f"PERT {fmt_values(pu)}; SACK/RED-ECN {fmt_values(ru)}",
        ),
    ]


def _fig8_claims(table: pl.DataFrame, x: str) -> list[Claim]:
    xs = table.filter(pl.col("scheme") == "vegas").sort(x)[x].to_list()
    vq, vj, pj = (_values(table, "vegas", x, "avg_queue_norm"), _values(table, "vegas", x, "jain"), _values(table, "pert", x, "jain"))
    many = [i for i, n in enumerate(xs) if n >= 10]
    return common_claims(table, x) + [
        Claim(
            "Vegas is unfair as flows grow: its Jain index is below PERT's from 10 flows up.",
            all(vj[i] < pj[i] for i in many),
            f"flows {fmt_values([xs[i] for i in many])}: Vegas {fmt_values([vj[i] for i in many])}; PERT {fmt_values([pj[i] for i in many])}",
        ),
        Claim("Vegas' average queue grows with the number of flows.", vq == sorted(vq), f"Vegas normalized queue: {fmt_values(vq)}"),
        Claim("PERT's Jain index remains high (at least 0.9).", min(pj) >= 0.9, f"PERT Jain: {fmt_values(pj)}"),
    ]


def _fig14_claims(table: pl.DataFrame, x: str) -> list[Claim]:
    pp, rp = (_values(table, s, x, "drop_rate") for s in ("pert-pi", "sack-pi-ecn"))
    pu, ru = (_values(table, s, x, "utilization") for s in ("pert-pi", "sack-pi-ecn"))
    pq, rq = (_values(table, s, x, "avg_queue_norm") for s in ("pert-pi", "sack-pi-ecn"))
    pj, rj = (_values(table, s, x, "jain") for s in ("pert-pi", "sack-pi-ecn"))
    return [
        Claim("PERT/PI avoids packet drops (drop rate below 1e-4 at every RTT).", max(pp) < 1e-4, f"PERT/PI {fmt_values(pp)}; router PI-ECN {fmt_values(rp)}"),
        Claim(
            "PERT/PI's link utilization is similar to router PI-ECN's (within 5 points).",
            all(abs(a - b) <= 0.05 for a, b in zip(pu, ru)),
            f"PERT/PI {fmt_values(pu)}; router PI-ECN {fmt_values(ru)}",
        ),
        Claim(
            "PERT/PI's average queue is similar to router PI-ECN's (within 0.1 of the buffer).",
            all(abs(a - b) <= 0.1 for a, b in zip(pq, rq)),
            f"normalized queue: PERT/PI {fmt_values(pq)}; router PI-ECN {fmt_values(rq)}",
        ),
        Claim(
            "PERT/PI's Jain index is slightly worse than router PI's at the lowest RTT and slightly better at the highest.",
            pj[0] <= rj[0] and pj[-1] >= rj[-1],
            f"PERT/PI {fmt_values(pj)}; router PI-ECN {fmt_values(rj)}",
        ),
    ]


def _fig9_claims(table: pl.DataFrame, x: str) -> list[Claim]:
    pp = _values(table, "pert", x, "drop_rate")
    pu, ru = _values(table, "pert", x, "utilization"), _values(table, "sack-red-ecn", x, "utilization")
    pj = _values(table, "pert", x, "jain")
    return common_claims(table, x) + [
        Claim("No packet losses are observed for PERT as the web load grows (drop rate below 1e-4).", max(pp) < 1e-4, f"PERT drop rate: {fmt_values(pp)}"),
        Claim(
            "PERT's utilization is slightly lower than SACK/RED-ECN's (within 5 points).",
            all(b - a <= 0.05 for a, b in zip(pu, ru)),
            f"PERT {fmt_values(pu)}; SACK/RED-ECN {fmt_values(ru)}",
        ),
        Claim("The Jain index of the long-term PERT flows remains high (at least 0.9).", min(pj) >= 0.9, f"PERT Jain: {fmt_values(pj)}"),
    ]


_figure_entry("fig6", _fig6_claims)
_figure_entry("fig7", _fig7_claims)
_figure_entry("fig8", _fig8_claims)
_figure_entry("fig9", _fig9_claims)
_figure_entry("fig14", _fig14_claims)


def _fig12_scenarios(quick: bool) -> Wire:
    return {f"{p.values[0][1]}-seed{p.seed}": p.scenario.to_wire() for p in sc.fig12_points(sc.FIG12_QUICK if quick else sc.FIG12_FULL)}


def _fig12(quick: bool, out: Path, workers: Workers) -> Report:
    setup = sc.FIG12_QUICK if quick else sc.FIG12_FULL
    throughput = sc.run_fig12(setup, out, workers)
    runs = throughput.select("scheme", "seed").unique(maintain_order=True).iter_rows()
    jain = pl.concat(
        sc.phase_jain(throughput.filter((pl.col("scheme") == slug) & (pl.col("seed") == seed)), setup)
        .with_columns(pl.lit(slug).alias("scheme"), pl.lit(seed).alias("seed"))
        for slug, seed in runs
    )
    schemes = throughput["scheme"].unique(maintain_order=True).to_list()
    seeds = sorted(throughput["seed"].unique().to_list())
    # Each phase's Jain index, the mean over seeds; a scheme's worst phase is the lowest of those means.
    per_phase = jain.group_by("scheme", "phase", maintain_order=True).agg(pl.col("jain").mean())
    worst = {slug: float(per_phase.filter(pl.col("scheme") == slug)["jain"].min()) for slug in schemes}
    # And each seed's own lowest phase, for the spread.
    lowest = jain.group_by("scheme", "seed").agg(pl.col("jain").min()).sort("seed")
    per_seed = {slug: lowest.filter(pl.col("scheme") == slug)["jain"].to_list() for slug in schemes}

    def show(slug: str) -> str:
        spread = f" (per seed {', '.join(f'{v:.3f}' for v in per_seed[slug])})" if len(seeds) > 1 else ""
        return f"{sc.LABELS[slug]} {worst[slug]:.3f}{spread}"

    over = f"lowest phase Jain (of the phases' means over {len(seeds)} seeds; per seed: that seed's lowest phase): " if len(seeds) > 1 else ""
    report = Report(
        name="sigcomm07-fig12",
        title="Response to flows joining and leaving (Figure 12)",
        source=f"{PAPER}, Section 4.7",
        mode="quick" if quick else "full",
        out_dir=out,
        tables={"group_throughput": throughput, "phase_jain": jain},
        notes=[
            f"{setup.groups} groups of {setup.group} flows at {setup.bw}, 60 ms; a group joins every {setup.step_s:g} s, "
            f"then the groups leave in arrival order every {setup.step_s:g} s; seeds {', '.join(map(str, seeds))}. phase_jain: Jain "
            "index of the groups' mean throughputs over the second half of each phase with two or more groups active, per run.",
        ],
    )
    report.claims = [
        Claim(
            "PERT flows respond quickly: groups share the link fairly in every phase (Jain of group throughputs at least 0.9).",
            worst["pert"] >= 0.9,
            (over or "lowest phase Jain: ") + ", ".join(show(k) for k in schemes),
        ),
        Claim(
            "Vegas is unfair among groups that started at different times (lowest phase Jain below PERT's).",
            worst["vegas"] < worst["pert"],
            f"{over}{show('vegas')}, {show('pert')}",
        ),
        Claim(
            "SACK/DropTail and SACK/RED-ECN behave like PERT (lowest phase Jain at least 0.9).",
            min(worst["sack-droptail"], worst["sack-red-ecn"]) >= 0.9,
            f"{over}{show('sack-droptail')}, {show('sack-red-ecn')}",
        ),
    ]
    return report


def _fig12_figures(report: Report) -> list[Figure]:
    setup = sc.FIG12_QUICK if report.mode == "quick" else sc.FIG12_FULL
    t = report.tables["group_throughput"]
    if "seed" not in t.columns:  # reports written before Figure 12 had seeds
        t = t.with_columns(pl.lit(1).alias("seed"))
    seeds = t["seed"].n_unique()
    over = (f"the mean over {seeds} seeds, shaded over its {INTERVAL} ([0, ∞))" if seeds > 1 else "one run")
    caption = (
        f"Aggregate throughput of each group of {setup.group} flows per second, one panel per scheme ({setup.bw}, 60 ms; {over}): a group "
        f"joins every {setup.step_s:g} s, then the groups leave in arrival order. {PLOT_ONLY}"
    )
    return [Figure("fig12.png", caption, lambda path: sc.plot_fig12(t, setup, path))]


register(Entry("sigcomm07-fig12", "Figure 12: flows joining and leaving", f"{PAPER}, Section 4.7", _fig12, _fig12_figures, _fig12_scenarios,
               details=("group_throughput",)))  # fmt: skip


def _fig11(quick: bool, out: Path, workers: Workers) -> Report:
    mode = sc.QUICK if quick else sc.FULL
    per_run = sc.run_fig11(mode, out, workers)
    metrics = ["avg_queue_norm", "drop_rate", "mark_rate", "utilization", "jain"]
    table = per_run.group_by("scheme", "link", maintain_order=True).agg(pl.col(m).mean() for m in metrics).sort("scheme", "link")

    def col(slug: str, m: str) -> list[float]:
        return table.filter(pl.col("scheme") == slug).sort("link")[m].to_list()

    pu, ru = col("pert", "utilization"), col("sack-red-ecn", "utilization")
    report = Report(
        name="sigcomm07-fig11",
        title="Multiple bottlenecks (Figures 10, 11)",
        source=f"{PAPER}, Section 4.6",
        mode=mode.name,
        out_dir=out,
        tables={"per_run": per_run, "links": table},
        notes=[
            "Six routers, 150 Mbit/s / 5 ms between routers, 20 hosts per router on 1 Gbit/s / 5 ms; host j of each cloud "
            "sends to host j of the next cloud, and cloud R1's hosts also to cloud R6's (120 flows). Router buffers: one BDP "
            "of the longest path (70 ms). Per link: the direction R_i -> R_i+1; Jain index over the 20 flows between that "
            f"pair of routers. {mode.duration} runs, metrics over [{mode.warmup}, {mode.measure_end}], seeds {', '.join(map(str, mode.seeds))}.",
        ],
    )
    report.claims = [
        Claim("PERT keeps zero drops on every router link.", max(col("pert", "drop_rate")) == 0.0, f"PERT drop rates: {fmt_values(col('pert', 'drop_rate'))}"),
        Claim(
            "PERT keeps the queues low on every link (below SACK/DropTail's, within 0.1 of the buffer of SACK/RED-ECN's or below).",
            all(a < b and (a <= c or a - c <= 0.1) for a, b, c in zip(col("pert", "avg_queue_norm"), col("sack-droptail", "avg_queue_norm"), col("sack-red-ecn", "avg_queue_norm"))),
            f"normalized queue: PERT {fmt_values(col('pert', 'avg_queue_norm'))}; SACK/DropTail {fmt_values(col('sack-droptail', 'avg_queue_norm'))}; SACK/RED-ECN {fmt_values(col('sack-red-ecn', 'avg_queue_norm'))}",
        ),
        Claim("PERT's utilization is similar to SACK/RED-ECN's (within 5 points) on every link.", all(abs(a - b) <= 0.05 for a, b in zip(pu, ru)), f"PERT {fmt_values(pu)}; SACK/RED-ECN {fmt_values(ru)}"),
        Claim("Fairness among PERT flows between each pair of routers is maintained (Jain at least 0.9).", min(col("pert", "jain")) >= 0.9, f"PERT Jain per link: {fmt_values(col('pert', 'jain'))}"),
    ]
    return report


def _fig11_figures(report: Report) -> list[Figure]:
    links = report.tables["links"]
    caption = (
        f"Per router link R_i -> R_i+1 and scheme, the mean over {_seeds(report.tables['per_run'])} of the normalized queue, the drop "
        f"rate, the utilization and the Jain index of the flows between that pair of routers. {PLOT_ONLY}"
    )
    return [Figure("fig11.png", caption, lambda path: sc.plot_fig11(links, path))]


register(Entry("sigcomm07-fig11", "Figure 11: multiple bottlenecks (six-router chain)", f"{PAPER}, Section 4.6", _fig11, _fig11_figures,
               lambda quick: wire_of(sc.fig11_points(sc.QUICK if quick else sc.FULL))))  # fmt: skip


def _table1(quick: bool, out: Path, workers: Workers) -> Report:
    mode = sc.QUICK if quick else sc.TABLE1_FULL
    runs, table = sc.run_table1(mode, out, workers)
    t = {r["slug"]: r for r in table.iter_rows(named=True)}
    report = Report(
        name="sigcomm07-table1",
        title="Flows with different RTTs (Table 1)",
        source=f"{PAPER}, Section 4.5",
        mode=mode.name,
        out_dir=out,
        tables={"table1": table, "runs": runs},
        notes=[
            "150 Mbit/s, 10 long-lived flows with round-trip propagation delays 12, 24, ..., 120 ms, 100 web sessions "
            "(ns-2 WebTraf defaults, transfers with the scheme's transport, RTT 66 ms), buffer one BDP at the shortest RTT "
            "(150 packets; the paper does not say which RTT, docs/reproductions.md compares with the mean RTT's 825). "
            f"{mode.duration} runs, starts uniform in (0, {mode.start_window}), metrics over [{mode.warmup}, {mode.measure_end}], "
            f"seeds {', '.join(map(str, mode.seeds))}. Q: normalized average queue, p: drop rate, U: utilization (%), "
            "F: Jain index of the 10 long flows; *_paper: Table 1 of the paper, *_diff: ours minus the paper's. "
            f"Wall time of the simulations: {runs['wall_seconds'].sum():.1f} s in total.",
        ],
    )
    report.claims = [
        Claim(
            "PERT and Vegas reduce the RTT unfairness inherent to TCP (higher F than SACK/DropTail and SACK/RED-ECN).",
            min(t["pert"]["F"], t["vegas"]["F"]) > max(t["sack-droptail"]["F"], t["sack-red-ecn"]["F"]),
            "F: " + ", ".join(f"{r['scheme']} {r['F']:.2f} (paper {r['F_paper']:.2f})" for r in t.values()),
        ),
        Claim(
            "PERT's utilization is similar to SACK's with DropTail and RED-ECN (within 3 points).",
            abs(t["pert"]["U"] - t["sack-droptail"]["U"]) <= 3 and abs(t["pert"]["U"] - t["sack-red-ecn"]["U"]) <= 3,
            "U: " + ", ".join(f"{r['scheme']} {r['U']:.2f} (paper {r['U_paper']:.2f})" for r in t.values()),
        ),
        Claim(
            "PERT's average queue and drop rate are lower than SACK's with DropTail and RED-ECN.",
            t["pert"]["Q"] < min(t["sack-droptail"]["Q"], t["sack-red-ecn"]["Q"]) and t["pert"]["p"] < min(t["sack-droptail"]["p"], t["sack-red-ecn"]["p"]),
            "Q / p: " + ", ".join(f"{r['scheme']} {r['Q']:.2f} / {r['p']:.2e}" for r in t.values()),
        ),
    ]
    return report


TABLE1_PANELS = [("Q", "Q: average queue / buffer"), ("p", "p: drop rate"), ("U", "U: utilization (%)"), ("F", "F: Jain index of the 10 long flows")]


def _table1_figures(report: Report) -> list[Figure]:
    runs = _runs(report)
    table = sc.table1_table(runs)
    caption = (
        f"Table 1 per scheme: our mean over {_seeds(runs)} (bars) and the paper's value (black diamonds). "
        + interval_note(table, TABLE1_PANELS, sc.TABLE1_RANGES)
    )
    pairs = [(name, f"{name}_paper", title) for name, title in TABLE1_PANELS]
    return [Figure("table1.png", caption, lambda path: comparison_panels(table, "scheme", pairs, path, report.title, published="paper (Table 1)"))]


register(Entry("sigcomm07-table1", "Table 1: ten flows with RTTs 12..120 ms and 100 web sessions", f"{PAPER}, Section 4.5", _table1, _table1_figures,
               lambda quick: wire_of(sc.table1_points(sc.QUICK if quick else sc.TABLE1_FULL))))  # fmt: skip
