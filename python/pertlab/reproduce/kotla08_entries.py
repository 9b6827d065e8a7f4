"""Registry entries of Kotla's 2008 thesis (adaptive PERT), Section V and single flows of
Section VI: the mix, flow-count and buffer sweeps (Figures 4, 5, 8, 9) with the mix under
phase effects, the sweeps against TCP-Illinois (Figures 10, 11), PERT alone up to 1000
flows (Figure 19), one flow on a high-BDP path (Figure 23), channel errors (Figure 26) and
RTT noise (Figure 25). Each report states the thesis's claims and whether our data bears
them out. Tables I to V and the other single-run figures: :mod:`.kotla08_tables`."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from ..experiments import kotla08 as k
from ..parallel import Workers
from ..plots import interval_note, metric_panels
from ..sweep import BOUNDS, FRACTION, NON_NEGATIVE, aggregate
from .kotla08_common import PLOT_ONLY, THESIS, column_values, judge, mode_for, mode_note, new_report, seeds_note, sweep_entry, sweep_figure
from .registry import Claim, Entry, Figure, Report, fmt_values, rank_correlation, register, wire_of


# ------------------------------------------------------------------ mix


def _mix_claims(t: pl.DataFrame) -> list[Claim]:
    xs, share, ratio, drop, queue, pd, sd = column_values(
        t, "pert_percent", "pert_share", "pert_drop_ratio", "drop_rate", "avg_queue_norm", "pert_var_over_mean", "sack_var_over_mean"
    )
    at = dict(zip(xs, range(len(xs))))
    half = at.get(50.0)
    mixed = [i for i, v in enumerate(xs) if 0 < v < 100]
    claims = []
    if half is not None:
        claims.append(Claim("In a 50-50 mix PERT's bandwidth share is between 35 % and 65 %.", 0.35 <= share[half] <= 0.65, f"PERT share at 50 %: {share[half]:.3f}"))
        claims.append(Claim("In a 50-50 mix PERT's drop rate is below SACK's (drop ratio < 1).", ratio[half] < 1, f"drop ratio at 50 %: {ratio[half]:.3f}"))
    claims.append(Claim("The PERT/SACK drop ratio is below 1 in every mix (Fig. 5).", all(ratio[i] < 1 for i in mixed), f"at {fmt_values([xs[i] for i in mixed])} % PERT: {fmt_values([ratio[i] for i in mixed])}"))
    if 100.0 in at:
        claims.append(Claim("A homogeneous PERT population has near-zero drops (drop rate below 1e-4; Fig. 4: zero at 100 %).", drop[at[100.0]] < 1e-4, f"drop rate at 100 % PERT: {drop[at[100.0]]:.3g}"))
    if 0.0 in at:
        claims.append(Claim("Mixed deployments drop less than 100 % SACK (Fig. 4).", all(drop[i] < drop[at[0.0]] for i in mixed), f"drop rate: {fmt_values(drop)} at {fmt_values(xs)} % PERT"))
    if 100.0 in at:
        claims.append(Claim("The queue is much lower at 100 % PERT than in any mix (Fig. 4).", all(queue[at[100.0]] < 0.5 * queue[i] for i in mixed), f"avg queue / buffer: {fmt_values(queue)}"))
    claims.append(Claim("PERT's bandwidth varies less than SACK's: variance / mean of 1-s samples lower in every mix (Fig. 6).", all(pd[i] < sd[i] for i in mixed),
                        f"PERT {fmt_values([pd[i] for i in mixed])}; SACK {fmt_values([sd[i] for i in mixed])}"))  # fmt: skip
    pure = [i for i, v in enumerate(xs) if v > 0 and not math.isnan(pd[i])]
    if len(pure) >= 2:
        rho = rank_correlation([xs[i] for i in pure], [pd[i] for i in pure]) if len(pure) > 2 else (-1.0 if pd[pure[-1]] < pd[pure[0]] else 1.0)
        claims.append(Claim("PERT's variance / mean keeps falling as PERT's percentage rises (Fig. 6; rank correlation below 0).", rho < 0,
                            f"Spearman {rho:.2f}; {fmt_values([pd[i] for i in pure])} at {fmt_values([xs[i] for i in pure])} %"))  # fmt: skip
    near = [i for i in mixed if abs(share[i] - xs[i] / 100) <= 0.15]
    claims.append(Claim("PERT's share is close to its fair share, the PERT percentage (within 0.15; Fig. 5).", len(near) == len(mixed), f"share {fmt_values([share[i] for i in mixed])} at {fmt_values([xs[i] for i in mixed])} %"))
    return claims


sweep_entry("kotla08-mix", "Figures 4-6: 100 flows, PERT share 0..100 % (rest SACK), 150 Mbit/s, 60 ms", "Section V.A.1", k.mix_points, "pert_percent", _mix_claims)


def _fast_mix_claims(t: pl.DataFrame) -> list[Claim]:
    xs, share, ratio, drop, queue = column_values(t, "fast_percent", "fast_share", "fast_drop_ratio", "drop_rate", "avg_queue_norm")
    mixed = [i for i, v in enumerate(xs) if 0 < v < 100]
    return [
        Claim("The queue falls as FAST's percentage rises (Fig. 7).", queue[-1] < queue[0], f"avg queue / buffer {fmt_values(queue)} at {fmt_values(xs)} % FAST"),
        Claim("FAST's drop rate is below SACK's in the mixes.", all(ratio[i] < 1 for i in mixed), f"FAST/SACK drop ratio {fmt_values([ratio[i] for i in mixed])}"),
        Claim("The overall drop rate is higher at 100 % FAST than at 100 % SACK.", drop[-1] > drop[0], f"drop rate {fmt_values(drop)}"),
        Claim("FAST takes a larger share than SACK: per flow, FAST gets more than SACK in every mix.", all(share[i] > xs[i] / 100 for i in mixed), f"FAST share {fmt_values([share[i] for i in mixed])} at {fmt_values([xs[i] for i in mixed])} % FAST"),
    ]


sweep_entry(
    "kotla08-fast-mix", "Figure 7: 100 flows, FAST share 0..100 % (rest SACK), 150 Mbit/s, 60 ms", "Section V.A.1", k.fast_mix_points, "fast_percent",
    _fast_mix_claims, panels=[("fast_share", "FAST bandwidth share"), ("fast_drop_ratio", "FAST/SACK drop ratio"), ("drop_rate", "drop rate (all)"), ("avg_queue_norm", "avg queue / buffer")],
)  # fmt: skip


# ---------------------------------------------------------------- flows


def _flows_claims(t: pl.DataFrame) -> list[Claim]:
    xs, share, ratio, drop = column_values(t, "flows", "pert_share", "pert_drop_ratio", "drop_rate")
    return [
        Claim("PERT's share is lower with few flows than with many (Fig. 8).", share[0] < share[-1], f"share {fmt_values(share)} at {fmt_values(xs)} flows"),
        Claim("PERT's share stabilises near 50 % with many flows (between 35 % and 65 % at the largest count).", 0.35 <= share[-1] <= 0.65, f"{share[-1]:.3f} at {xs[-1]:g} flows"),
        Claim("The drop rate grows with the number of flows (Fig. 8).", drop[-1] > drop[0], f"drop rate {fmt_values(drop)}"),
        Claim("PERT's drop rate is below SACK's at every flow count (drop ratio < 1).", all(r < 1 for r in ratio), f"drop ratio {fmt_values(ratio)}"),
    ]


sweep_entry("kotla08-flows", "Figure 8: 50-50 mix of 20..1000 flows, 150 Mbit/s, 60 ms", "Section V.A.2", k.flows_points, "flows", _flows_claims, log_x=True)


# --------------------------------------------------------------- buffer


def _buffer_claims(t: pl.DataFrame) -> list[Claim]:
    xs, share, ratio = column_values(t, "buffer_bdp", "pert_share", "pert_drop_ratio")
    fair = [(x, s) for x, s in zip(xs, share) if 0.5 <= x <= 3.0]
    large = [(x, s) for x, s in zip(xs, share) if x >= 3.5]
    claims = [
        Claim("PERT's share is highest at the smallest buffer (compete mode early; Fig. 9).", share[0] == max(share), f"share {fmt_values(share)} at {fmt_values(xs)} BDP"),
        Claim("PERT/SACK drop ratio below 1 at every buffer size (Fig. 9).", all(r < 1 for r in ratio), f"drop ratio {fmt_values(ratio)}"),
    ]
    if fair:
        claims.append(Claim("PERT is fair to SACK (share 35..65 %) from 0.5 to 3 BDP.", all(0.35 <= s <= 0.65 for _, s in fair), f"{fmt_values([s for _, s in fair])} at {fmt_values([x for x, _ in fair])} BDP"))
    if large:
        claims.append(Claim("PERT loses to SACK (share below 35 %) at 3.5 BDP and more (safe mode).", all(s < 0.35 for _, s in large), f"{fmt_values([s for _, s in large])} at {fmt_values([x for x, _ in large])} BDP"))
    return claims


sweep_entry("kotla08-buffer", "Figure 9: 40 PERT + 40 SACK, buffer 0.25..4 BDP", "Section V.A.3", k.buffer_points, "buffer_bdp", _buffer_claims)


# ------------------------------------------------------------- Illinois


ILLINOIS_PANELS = [("illinois_share", "Illinois bandwidth share"), ("illinois_drop_ratio", "Illinois/PERT drop ratio"), ("drop_rate", "drop rate (all)"), ("avg_queue_norm", "avg queue / buffer")]


def _illinois_mix_claims(t: pl.DataFrame) -> list[Claim]:
    xs, share, ratio, drop, queue = column_values(t, "illinois_percent", "illinois_share", "illinois_drop_ratio", "drop_rate", "avg_queue_norm")
    mixed = [i for i, v in enumerate(xs) if 0 < v < 100]
    rho_queue = rank_correlation(xs, queue)
    above = [ratio[i] for i in mixed if ratio[i] > 1]
    claims = []
    if len(mixed) > 2:  # a trend among the mixes (the full sweep; quick has one mix)
        rho_drop = rank_correlation([xs[i] for i in mixed], [drop[i] for i in mixed])
        claims.append(Claim("The overall drop rate falls as Illinois' percentage rises among the mixes (Fig. 10; rank correlation below 0).", rho_drop < 0,
                            f"Spearman {rho_drop:.2f}; drop rate {fmt_values(drop)} at {fmt_values(xs)} % Illinois"))  # fmt: skip
    return claims + [
        Claim("The drop rate at 100 % PERT is far less than at 100 % Illinois (below half).", drop[0] < 0.5 * drop[-1], f"{drop[0]:.3g} at 0 %, {drop[-1]:.3g} at 100 %"),
        Claim("The queue grows with Illinois' percentage (rank correlation above 0).", rho_queue > 0, f"Spearman {rho_queue:.2f}; avg queue / buffer {fmt_values(queue)}"),
        Claim("The Illinois/PERT drop ratio is above 1 in most mixes.", 2 * len(above) > len(mixed), f"{len(above)} of {len(mixed)}: {fmt_values([ratio[i] for i in mixed])}"),
        Claim("Illinois gets less than its fair share (its percentage) in most mixes.", 2 * sum(share[i] < xs[i] / 100 for i in mixed) > len(mixed),
              f"share {fmt_values([share[i] for i in mixed])} at {fmt_values([xs[i] for i in mixed])} %"),
    ]  # fmt: skip


def _illinois_flows_claims(t: pl.DataFrame) -> list[Claim]:
    xs, share, ratio, drop, queue = column_values(t, "flows", "pert_share", "illinois_drop_ratio", "drop_rate", "avg_queue_norm")
    return [
        Claim("PERT drops less than Illinois at every flow count (Illinois/PERT drop ratio above 1; Fig. 11).", all(r > 1 for r in ratio), f"Illinois/PERT {fmt_values(ratio)} at {fmt_values(xs)} flows"),
        Claim("PERT's share is always more than Illinois' (above 50 %).", all(x > 0.5 for x in share), f"PERT share {fmt_values(share)}"),
        Claim("The queue and the drop rate grow with the number of flows.", queue[-1] > queue[0] and drop[-1] > drop[0], f"queue {fmt_values(queue)}; drop rate {fmt_values(drop)}"),
        Claim("The queue is very high (above 0.8 of the buffer) at every flow count.", min(queue) > 0.8, f"avg queue / buffer {fmt_values(queue)}"),
    ]  # fmt: skip


sweep_entry("kotla08-illinois-mix", "Figure 10: 100 flows, Illinois share 0..100 % (rest PERT), 150 Mbit/s, 60 ms", "Section V.B", k.illinois_mix_points, "illinois_percent", _illinois_mix_claims, panels=ILLINOIS_PANELS)
sweep_entry("kotla08-illinois-flows", "Figure 11: 50-50 mix of PERT and Illinois, 20..1000 flows", "Section V.C", k.illinois_flows_points, "flows", _illinois_flows_claims, log_x=True,
             panels=[("pert_share", "PERT bandwidth share"), ("illinois_drop_ratio", "Illinois/PERT drop ratio"), ("drop_rate", "drop rate (all)"), ("avg_queue_norm", "avg queue / buffer")])  # fmt: skip


# ------------------------------------------------------------- PERT only


def _pert_only_claims(t: pl.DataFrame) -> list[Claim]:
    xs, drop, queue, util = column_values(t, "flows", "drop_rate", "avg_queue_norm", "utilization")
    return [
        Claim("The drop rate stays zero for 1..1000 PERT flows (Fig. 19).", all(d == 0 for d in drop), f"drop rate {fmt_values(drop)} at {fmt_values(xs)} flows"),
        Claim("The normalized queue stays at most 0.35 (Section VI.B).", max(queue) <= 0.35, f"avg queue / buffer {fmt_values(queue)}"),
        Claim("The link is fully used (utilization at least 0.95).", min(util) >= 0.95, f"utilization {fmt_values(util)}"),
    ]


sweep_entry("kotla08-pert-only", "Figure 19: adaptive PERT alone, 1..1000 flows, 500 Mbit/s", "Section VI.B", k.pert_only_points, "flows", _pert_only_claims, log_x=True)


# ------------------------------------------------------------ high speed


def _highspeed(quick: bool, out: Path, workers: Workers) -> Report:
    setup = k.HIGHSPEED_QUICK if quick else k.HIGHSPEED_FULL
    pts = k.highspeed_points(setup)
    table = k.run_table(pts, out, workers, row=k.highspeed_row)
    report = new_report(
        "kotla08-highspeed", "Figure 23: one flow on a high-BDP path (70 ms)", "Section VI.F", quick, out,
        [f"Bottleneck {setup.bottleneck_bps / 1e9:g} Gbit/s, 70 ms RTT, buffer 1 BDP of the slower link, {setup.duration} runs, "
         f"metrics from {setup.warmup}, seeds {', '.join(map(str, setup.seeds))}. Utilization is that of the slower of the end-host link and the bottleneck. "
         f"Quick mode: 1 Gbit/s (8750-packet BDP) instead of 2.4 Gbit/s. {seeds_note(setup.seeds)}"],
    )  # fmt: skip
    report.tables["runs"] = table
    judge(report, _highspeed_claims, table)
    return report


def _highspeed_claims(table: pl.DataFrame) -> list[Claim]:
    # At the fastest end-host link.
    u, d = {}, {}
    for cc in k.HIGHSPEED_SCHEMES:
        _, util, drops = column_values(table, "access_mbps", "utilization", "flow_drops", scheme=cc)
        u[cc], d[cc] = util[-1], drops[-1]
    return [
        Claim("A single adaptive PERT flow fills the high-BDP link far better than the original PERT (utilization at least 1.5 x).",
              u["pert-adaptive"] >= 1.5 * u["pert"], f"utilization: adaptive {u['pert-adaptive']:.3f}, original {u['pert']:.3f}, SACK {u['sack']:.3f}"),
        Claim("It nearly fills the link (utilization at least 0.8 over the window).", u["pert-adaptive"] >= 0.8, f"{u['pert-adaptive']:.3f}"),
        Claim("With zero packet losses (within the window).", d["pert-adaptive"] == 0, f"losses in the window: {d['pert-adaptive']}"),
    ]  # fmt: skip


def _highspeed_figures(report: Report) -> list[Figure]:
    panels = [("utilization", "utilization"), ("flow_drops", "losses in window")]
    return [sweep_figure("kotla08-highspeed.png", report.tables["runs"], "access_mbps", panels, report.title, by="scheme", log_x=True)]


register(Entry("kotla08-highspeed", "Figure 23: one flow on a high-BDP path (70 ms)", f"{THESIS}, Section VI.F", _highspeed, _highspeed_figures,
               lambda quick: wire_of(k.highspeed_points(k.HIGHSPEED_QUICK if quick else k.HIGHSPEED_FULL)), details=()))  # fmt: skip


# -------------------------------------------------------- channel errors


def _channel(quick: bool, out: Path, workers: Workers) -> Report:
    mode = k.QUICK if quick else k.FULL
    pts = k.channel_points(mode)
    table = k.run_table(pts, out, workers)
    report = new_report(
        "kotla08-channel-errors", "Figure 26: one flow with random channel losses", "Section VI.I", quick, out,
        [mode_note(mode), "(a) 1 Gbit/s / 60 ms dumbbell, Bernoulli loss on the bottleneck's data direction; "
         "(b) 100 Mbit/s / 5 ms source link and a 55 Mbit/s / 20 ms lossy end-host link."],
    )  # fmt: skip
    report.tables["runs"] = table
    judge(report, _channel_claims, table)
    return report


def _channel_claims(table: pl.DataFrame) -> list[Claim]:
    def util(path: str, cc: str) -> tuple[list[float], list[float]]:
        return column_values(table, "loss", "utilization", path=path, scheme=cc)

    claims = []
    for path in ("1gbps", "wireless"):
        xs, pu = util(path, k.PERT)
        _, su = util(path, k.SACK)
        lossy = [(a, b) for x, a, b in zip(xs, pu, su) if x > 0]
        claims.append(Claim(f"({path}) PERT's utilization is at least SACK's at every non-zero loss rate.", all(a >= b for a, b in lossy), f"loss {fmt_values(xs)}: PERT {fmt_values(pu)}; SACK {fmt_values(su)}"))
    xs, pu = util("1gbps", k.PERT)
    low = [u for x, u in zip(xs, pu) if x <= 1e-5]
    if low:
        claims.append(Claim("(1 Gbit/s) PERT stays high (utilization at least 0.9) up to a loss rate of 1e-5.", min(low) >= 0.9, f"{fmt_values(low)}"))
    xs, pu = util("wireless", k.PERT)
    low = [u for x, u in zip(xs, pu) if x < 1e-3]
    if low:
        claims.append(Claim("(wireless) PERT deteriorates only at about 1e-3 (utilization at least 0.9 below it).", min(low) >= 0.9, f"{fmt_values(low)}"))
    return claims


def _channel_figures(report: Report) -> list[Figure]:
    runs, panels = report.tables["runs"], [("utilization", "utilization"), ("drop_rate", "loss rate seen")]
    return [
        sweep_figure(f"kotla08-channel-{path}.png", runs.filter(pl.col("path") == path), "loss", panels, f"{report.title} ({path})", by="scheme", log_x=True)
        for path in ("1gbps", "wireless")
    ]


register(Entry("kotla08-channel-errors", "Figure 26: one flow with random channel losses", f"{THESIS}, Section VI.I", _channel, _channel_figures,
               lambda quick: wire_of(k.channel_points(mode_for(quick))), details=()))  # fmt: skip


# ---------------------------------------------------------- phase effects


PHASE_TITLE = "Figure 5 under phase effects: the 50-50 mix by access-link rate, with and without the phase lock broken"
PHASE_METRICS = ("pert_drop_ratio", "pert_share", "pert_drop_rate", "sack_drop_rate")
PHASE_BOUNDS = {**BOUNDS, "pert_drop_ratio": NON_NEGATIVE, "pert_share": FRACTION, "pert_drop_rate": FRACTION, "sack_drop_rate": FRACTION}


def _phase(quick: bool, out: Path, workers: Workers) -> Report:
    setup = k.PHASE_QUICK if quick else k.PHASE_FULL
    pts = k.phase_points(setup)
    runs = k.run_table(pts, out, workers)
    table = aggregate(runs, ["breaker", "access_mbps"], PHASE_METRICS, PHASE_BOUNDS)
    report = new_report(
        "kotla08-phase", PHASE_TITLE, "Section V.A.1", quick, out,
        [
            mode_note(setup.mode),
            "100 flows (50 adaptive PERT, 50 SACK), 150 Mbit/s, 60 ms, 1 BDP drop-tail buffer (Figure 5's 50 % point); means and 95 % CIs over the seeds. "
            "Breakers: none (equal RTTs, deterministic links: the thesis's setup as stated); 'overhead' (ns-2's random "
            "send overhead, U(0, 1 ms) before each send); 'rtt_spread' (RTTs evenly over 58..62 ms, the same for both controllers).",
        ],
    )  # fmt: skip
    report.tables["runs"] = runs
    report.tables["mean"] = table
    claims = []
    for breaker, what in (("none", "with equal RTTs as stated"), ("overhead", "with ns-2's send overhead"), ("rtt_spread", "with RTTs spread over 58..62 ms")):
        ratio, share = (runs.filter(pl.col("breaker") == breaker)[c] for c in ("pert_drop_ratio", "pert_share"))
        mean = table.filter(pl.col("breaker") == breaker)
        at = f"at {', '.join(mean['access_mbps'])} Mbit/s"
        claims.append(Claim(f"PERT's drop rate is below SACK's in the 50-50 mix {what}, at every access-link rate (Fig. 5).", ratio.max() < 1,
                            f"drop ratio {fmt_values(mean['pert_drop_ratio'].to_list())} {at} (runs {ratio.min():.2f}..{ratio.max():.2f})"))  # fmt: skip
        claims.append(Claim(f"PERT's share is between 35 % and 65 % {what}, at every access-link rate (Fig. 5).", share.min() >= 0.35 and share.max() <= 0.65,
                            f"share {fmt_values(mean['pert_share'].to_list())} {at} (runs {share.min():.2f}..{share.max():.2f})"))  # fmt: skip
    report.claims = claims
    return report


def _phase_figures(report: Report) -> list[Figure]:
    runs = report.tables["runs"]
    table = aggregate(runs, ["breaker", "access_mbps"], PHASE_METRICS, PHASE_BOUNDS)
    panels = [("pert_drop_ratio", "PERT/SACK drop ratio"), ("pert_share", "PERT bandwidth share")]
    caption = (
        f"The 50-50 mix of Figure 5 against the access-link rate, one line per phase-lock breaker: the mean over {runs['seed'].n_unique()} seeds. "
        f"{interval_note(table, panels, PHASE_BOUNDS)} {PLOT_ONLY}"
    )
    return [Figure("kotla08-phase.png", caption, lambda path: metric_panels(table, "access_mbps", panels, path, PHASE_TITLE, by="breaker",
                                                                          x_label="access-link rate (Mbit/s)", log_x=True))]  # fmt: skip


register(Entry("kotla08-phase", PHASE_TITLE, f"{THESIS}, Section V.A.1", _phase, _phase_figures,
               lambda quick: wire_of(k.phase_points(k.PHASE_QUICK if quick else k.PHASE_FULL))))  # fmt: skip


# ----------------------------------------------------------------- noise


def _noise(quick: bool, out: Path, workers: Workers) -> Report:
    mode = k.QUICK if quick else k.FULL
    pts = k.noise_points(mode)
    table = k.run_table(pts, out, workers)
    report = new_report(
        "kotla08-noise", "Figure 25: RTT-measurement noise, two flows on 1 Mbit/s / 60 ms", "Section VI.H", quick, out,
        [mode_note(mode), "Noise: U(0, 2 x mean) added to each RTT sample of the noisy flows (the thesis gives only the mean)."],
    )  # fmt: skip
    report.tables["runs"] = table
    judge(report, _noise_claims, table)
    return report


def _noise_claims(table: pl.DataFrame) -> list[Claim]:
    claims = []
    for noisy in ("both", "one"):
        xs, pd, pu = column_values(table, "noise_ms", "drop_rate", "utilization", scheme=k.PERT, noisy=noisy)
        _, sd = column_values(table, "noise_ms", "drop_rate", scheme=k.SACK, noisy=noisy)
        claims.append(Claim(f"({noisy} noisy) PERT's drop rate stays zero at every noise level.", all(d == 0 for d in pd), f"noise {fmt_values(xs)} ms: {fmt_values(pd)}"))
        claims.append(Claim(f"({noisy} noisy) PERT almost fills the link (utilization at least 0.9).", min(pu) >= 0.9, f"{fmt_values(pu)}"))
        claims.append(Claim(f"({noisy} noisy) PERT is more robust than SACK: its drop rate is not above SACK's.", all(a <= b for a, b in zip(pd, sd)), f"PERT {fmt_values(pd)}; SACK {fmt_values(sd)}"))
    return claims


def _noise_figures(report: Report) -> list[Figure]:
    runs, panels = report.tables["runs"], [("utilization", "utilization"), ("drop_rate", "drop rate"), ("avg_queue_norm", "avg queue / buffer")]
    return [
        sweep_figure(f"kotla08-noise-{noisy}.png", runs.filter(pl.col("noisy") == noisy), "noise_ms", panels, f"{report.title} ({noisy} noisy)", by="scheme")
        for noisy in ("both", "one")
    ]


register(Entry("kotla08-noise", "Figure 25: RTT-measurement noise, two flows on 1 Mbit/s / 60 ms", f"{THESIS}, Section VI.H", _noise, _noise_figures,
               lambda quick: wire_of(k.noise_points(mode_for(quick))), details=()))  # fmt: skip
