"""Reproductions of the fluid-model figures (see docs/fluid.md).

- ``sigcomm07-fig13``: Figure 13 of the PERT paper: (a) the minimum sampling
  interval of (13) against N-, (b)-(d) the DDE (14) at R = 100, 160, 171 ms,
  with the W(t) = W(t-R) remark (175 ms) and the exact linear boundaries.
- ``tahiliani-ch5-fluid``: the thesis's Chapter 5 scenarios, TCP/RED against
  TCP Surathkal (40 flows, 5 Mbps, 200 ms; 20 flows leave at 75 s and return at
  300 s).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from ..fluid.linear import linear_boundary_rtt
from ..fluid.models import FlowGroup, PertRed, SurathkalTcpRed, TcpRed, TcpRedParams
from ..jsonable import jsonable
from ..fluid.output import frame, plot_runs
from ..fluid.regimes import classify, settling_time
from ..fluid.stability import boundary_rtt, min_delta, theorem1
from ..parallel import Workers
from .registry import Claim, Entry, Figure, Report, Wire, register

PAPER = "Bhandarkar, Reddy, Zhang, Loguinov, SIGCOMM 2007"
THESIS = "Tahiliani, PhD thesis, NITK 2013, Chapter 5"

#: Figure 13(b)-(d): C = 100 pkt/s, delta = 0.1 ms, N = 5, p_max = 0.1,
#: T_min = 50 ms, T_max = 100 ms, alpha = 0.99, initial point (1, 1, 1).
FIG13 = dict(capacity=100.0, flows=5, pmax=0.1, tmin=0.05, tmax=0.1, alpha=0.99, delta=1e-4)
#: Figure 13(a): R = 200 ms, C = 10 Mbps / 1250 B = 1000 pkt/s.
FIG13A = dict(capacity=1000.0, rtt_max=0.2, pmax=0.1, tmin=0.05, tmax=0.1, alpha=0.99)
PAPER_REGIME = {0.100: "monotone", 0.160: "decaying oscillation", 0.171: "persistent oscillation"}


def _fig13_duration(quick: bool) -> float:
    """Seconds integrated per DDE run (the proof-form runs for twice that)."""
    return 30.0 if quick else 60.0


def _fig13_scenarios(quick: bool) -> Wire:
    """Figure 13's model parameters (the fluid runs have no wire scenario)."""
    bcd = {**FIG13, "rtt": list(PAPER_REGIME), "initial": [1, 1, 1], "duration_s": _fig13_duration(quick), "step_s": 1e-3}
    return jsonable({"fig13a": FIG13A, "fig13bcd": bcd})  # type: ignore[no-any-return]


def _fig13(quick: bool, out: Path, workers: Workers) -> Report:
    out.mkdir(parents=True, exist_ok=True)
    duration = _fig13_duration(quick)
    claims: list[Claim] = []

    # (a) minimum delta against N-
    n = np.arange(1, 51)
    a = pl.DataFrame({"flows_min": n, "min_delta_s": [min_delta(flows_min=int(k), **FIG13A) for k in n]})
    d40 = float(a.filter(pl.col("flows_min") == 40)["min_delta_s"][0])
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(a["flows_min"], a["min_delta_s"], marker=".")
    ax.set_yscale("log")
    ax.set_xlabel("N- (minimum number of flows)")
    ax.set_ylabel("minimum delta (s), eq. (13)")
    ax.set_title("Figure 13(a): R+ = 200 ms, C = 1000 pkt/s", fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "fig13a.png", dpi=110)
    plt.close(fig)
    mono = bool(np.all(np.diff(a["min_delta_s"].to_numpy()) < 0))
    claims.append(Claim("Fig. 13(a): the minimum delta decreases monotonically in N- and reaches 0.1 s as N- goes to 40.",
                        mono and 0.05 < d40 < 0.2,
                        f"monotone decreasing: {mono}; eq. (13) at N- = 40: {d40:.4f} s (paper: about 0.1 s)"))  # fmt: skip

    # (b)-(d): the DDE (14) as printed
    rows, runs = [], []
    for R, paper in PAPER_REGIME.items():
        m = PertRed(rtt=R, **FIG13)
        run = m.simulate(duration)
        c = run.columns()
        eq = m.equilibrium()
        reg = classify(c["t_s"], c["window_pkts"], eq.w_star)
        t1 = theorem1(capacity=FIG13["capacity"], rtt_max=R, flows_min=FIG13["flows"], pmax=0.1, tmin=0.05,
                      tmax=0.1, alpha=0.99, delta=1e-4)  # fmt: skip
        rows.append({"form": "paper (14)", "rtt_ms": R * 1e3, "theorem1_holds": t1.stable, "w_star": eq.w_star,
                     "w_final": float(c["window_pkts"][-1]), "crossings": reg.crossings,
                     "amplitude_last_10s": reg.amplitude_last, "regime": reg.regime, "paper_regime": paper})  # fmt: skip
        runs.append((f"R = {R * 1e3:.0f} ms", run))
        frame(run).write_parquet(out / f"fig13_R{R * 1e3:.0f}ms.parquet")
        claims.append(Claim(f"Fig. 13: at R = {R * 1e3:.0f} ms the trajectories show {paper}.", reg.regime == paper,
                            f"ours: {reg.regime} ({reg.crossings} crossings of W* = {eq.w_star:.3g}, "
                            f"envelope of the last 10 s {reg.amplitude_last:.2g} W*, growth {reg.growth:.2g})"))  # fmt: skip
    plot_runs(runs, out / "fig13bcd.png", "Figure 13(b)-(d): DDE (14), C = 100 pkt/s, N = 5, delta = 0.1 ms",
              ["window_pkts", "queueing_delay_s", "filtered_delay_s"])  # fmt: skip

    # The W(t) = W(t-R) remark: the proof's approximation, simulated at 171 and 175 ms.
    var_runs = []
    for R in (0.171, 0.175):
        for form in ("current", "delayed"):
            m = PertRed(rtt=R, decrease=form, **FIG13)  # type: ignore[arg-type]
            try:
                run = m.simulate(2 * duration)
            except FloatingPointError:
                rows.append({"form": form, "rtt_ms": R * 1e3, "theorem1_holds": R <= 0.171, "w_star": m.equilibrium().w_star,
                             "w_final": math.nan, "crossings": -1, "amplitude_last_10s": math.inf,
                             "regime": "diverges", "paper_regime": "stable" if R < 0.1745 else "persistent oscillation"})  # fmt: skip
                continue
            c = run.columns()
            reg = classify(c["t_s"], c["window_pkts"], m.equilibrium().w_star)
            rows.append({"form": form, "rtt_ms": R * 1e3, "theorem1_holds": R <= 0.171, "w_star": m.equilibrium().w_star,
                         "w_final": float(c["window_pkts"][-1]), "crossings": reg.crossings,
                         "amplitude_last_10s": reg.amplitude_last, "regime": reg.regime,
                         "paper_regime": "stable" if R < 0.1745 else "persistent oscillation"})  # fmt: skip
            if form == "current":
                var_runs.append((f"W(t)^2, R = {R * 1e3:.0f} ms", run))
    plot_runs(var_runs, out / "fig13_proof_form.png", "(14) with W(t-R) replaced by W(t) (the proof's approximation)",
              ["window_pkts", "filtered_delay_s"])  # fmt: skip
    regimes = pl.DataFrame(rows)
    cur = {r["rtt_ms"]: r["regime"] for r in rows if r["form"] == "current"}
    claims.append(Claim("With W(t) = W(t-R) the system is stable at 171 ms and oscillates at 175 ms (Section 5.3).",
                        cur.get(171.0, "").startswith(("monotone", "decaying")) and cur.get(175.0) == "persistent oscillation",
                        f"with W(t-R) -> W(t) (the proof's approximation): 171 ms {cur.get(171.0)}, 175 ms {cur.get(175.0)}; "
                        "with W(t) -> W(t-R) the model is unstable already at 153 ms (see boundaries)"))  # fmt: skip

    # Boundaries: Theorem 1 against the exact linear boundaries of each form.
    kappa = -math.log(0.99) / 1e-4
    lp = 0.1 / 0.05
    th = boundary_rtt(capacity=100.0, flows_min=5, pmax=0.1, tmin=0.05, tmax=0.1, alpha=0.99, delta=1e-4)
    bounds = pl.DataFrame({
        "boundary": ["Theorem 1, condition (11)", "linearised (14) as printed: W(t) W(t-R)",
                     "linearised, W(t-R) -> W(t) (proof's approximation)", "linearised, W(t) -> W(t-R)"],
        "ours_ms": [th * 1e3] + [linear_boundary_rtt(100.0, 5, lp, kappa, f) * 1e3 for f in ("paper", "current", "delayed")],
        "paper_ms": [171.0, None, 175.0, 175.0],
    })  # fmt: skip
    bounds = bounds.with_columns((pl.col("ours_ms") - pl.col("paper_ms")).alias("difference_ms"))
    claims.append(Claim("Theorem 1's boundary for Fig. 13's parameters is R = 171 ms.", abs(th - 0.171) < 0.0005,
                        f"condition (11) holds with equality at R+ = {th * 1e3:.2f} ms"))  # fmt: skip

    return Report(
        name="sigcomm07-fig13",
        title="PERT/RED fluid model: minimum sampling interval and the DDE (14) (Figure 13)",
        source=f"{PAPER}, Section 5, Figure 13",
        mode="quick" if quick else "full",
        out_dir=out,
        notes=[
            f"DDE (14) integrated with fixed-step RK4 (step 1 ms, linear interpolation of delayed states) for {duration:g} s "
            "(the proof-form runs for twice that); initial point (1, 1, 1), constant history. p = L (x3 - T_min) is not "
            "clipped, as in (14): the equilibrium p* lies above p_max in every case (0.5, 0.195, 0.171).",
            "The regime is read from the window: crossings of W*, the envelope of the last 10 s relative to W*, and its "
            "growth against the 10 s ending half-way (fluid/regimes.py).",
            "The paper's 'W(t) = W(t-R)' remark can be read two ways; only W(t-R) -> W(t) (Theorem 1's approximation, "
            "the Hollot et al. form) gives a boundary between 171 and 175 ms (172.7 ms). docs/fluid.md has the analysis.",
        ],
        claims=claims,
        tables={"fig13a_min_delta": a, "fig13_regimes": regimes, "boundaries": bounds},
    )


# --------------------------------------------------------------------------
# Tahiliani, Chapter 5
# --------------------------------------------------------------------------

#: 40 flows, 5 Mbps, T_p = 200 ms; RED min_th 150, max_th 200, w_q 1e-4, max_p 0.1,
#: delta = 1/C. CHOICE: 500-byte packets (Misra et al.'s size): C = 1250 pkt/s; gentle RED.
CH5 = dict(capacity=5e6 / (8 * 500), min_th=150.0, max_th=200.0, max_p=0.1, w_q=1e-4, gentle=True)


def _ch5_times(quick: bool) -> tuple[float, float, float, float, float]:
    """RK4 step, Scenario 1's length, and when Scenario 2's group leaves, returns and the run ends (s)."""
    return (2e-3, 40.0, 75.0, 140.0, 160.0) if quick else (1e-3, 70.0, 75.0, 300.0, 380.0)


def _ch5_scenarios(quick: bool) -> Wire:
    """Chapter 5's model parameters (the fluid runs have no wire scenario)."""
    step, d1, off, back, end = _ch5_times(quick)
    return jsonable({"model": {**CH5, "prop_delay_s": 0.2, "packet_size_B": 500},  # type: ignore[no-any-return]
                     "scenario1": {"flows": 40, "duration_s": d1},
                     "scenario2": {"groups": [{"count": 20, "on": [[0, off], [back, end]]},
                                              {"count": 20, "on": [[0, end]]}], "duration_s": end},
                     "step_s": step})  # fmt: skip


def _ch5(quick: bool, out: Path, workers: Workers) -> Report:
    out.mkdir(parents=True, exist_ok=True)
    step, d1, off, back, end = _ch5_times(quick)
    claims: list[Claim] = []
    rows = []
    s1_runs, s2_runs = [], []
    stats: dict[str, dict[str, float]] = {}
    for label, cls in (("TCP", TcpRed), ("TCP Surathkal", SurathkalTcpRed)):
        m1 = cls(TcpRedParams(groups=(FlowGroup(40, 0.2),), **CH5))  # type: ignore[arg-type]
        r1 = m1.simulate(d1, step=step)
        c1 = r1.columns()
        eq1 = m1.equilibrium()
        settle = settling_time(c1["t_s"], c1["window_pkts"], eq1.w_star)
        last = c1["t_s"] >= d1 - 20
        amp1 = float(np.ptp(c1["window_pkts"][last]) / eq1.w_star)
        frame(r1).write_parquet(out / f"scenario1_{cls.name}.parquet")
        s1_runs.append((label, r1))

        groups = (FlowGroup(20, 0.2, ((0.0, off), (back, end))), FlowGroup(20, 0.2))
        m2 = cls(TcpRedParams(groups=groups, **CH5))  # type: ignore[arg-type]
        r2 = m2.simulate(end, step=step)
        c2 = r2.columns()
        eq2 = m2.equilibrium(at=off + 1)
        win = (c2["t_s"] >= back - 50) & (c2["t_s"] < back)
        amp_w = float(np.ptp(c2["window_1_pkts"][win]) / eq2.w_star)
        amp_q = float(np.ptp(c2["queue_pkts"][win]))
        frame(r2).write_parquet(out / f"scenario2_{cls.name}.parquet")
        s2_runs.append((label, r2))
        stats[label] = {"settle": settle, "amp1": amp1, "amp_w": amp_w, "amp_q": amp_q}
        rows.append({"model": label, "w_star_40": eq1.w_star, "p_star_40": eq1.p_star, "q_star_40": eq1.q_star_pkts,
                     "s1_settling_s": settle, "s1_window_envelope_last20s": amp1, "w_star_20": eq2.w_star,
                     "q_star_20": eq2.q_star_pkts, "s2_window_envelope_before_return": amp_w,
                     "s2_queue_envelope_before_return_pkts": amp_q})  # fmt: skip
    plot_runs(s1_runs, out / "scenario1.png", "Thesis Ch. 5, Scenario 1: 40 flows, 5 Mbps, 200 ms",
              ["window_pkts", "avg_queue_pkts", "queue_pkts"])  # fmt: skip
    plot_runs(s2_runs, out / "scenario2.png",
              f"Scenario 2: 20 flows leave at {off:g} s, return at {back:g} s (window_0: ON-OFF, window_1: persistent)",
              ["window_0_pkts", "window_1_pkts", "avg_queue_pkts", "queue_pkts"])  # fmt: skip
    tcp, sur = stats["TCP"], stats["TCP Surathkal"]
    claims.append(Claim("Scenario 1: TCP Surathkal's average cwnd stabilises much quicker than TCP's (Figs 5.1-5.3).",
                        sur["amp1"] < 0.75 * tcp["amp1"],
                        f"window envelope over the last 20 s: Surathkal {sur['amp1']:.3f} W*, TCP {tcp['amp1']:.3f} W*; "
                        f"last time outside W* +- 5 %: Surathkal {sur['settle']:.1f} s, TCP {tcp['settle']:.1f} s"))  # fmt: skip
    claims.append(Claim("Scenario 2: with 20 flows off, TCP oscillates widely until they return; Surathkal minimises "
                        "the oscillations (Figs 5.4-5.7).",
                        tcp["amp_w"] > 0.1 and sur["amp_w"] < tcp["amp_w"],
                        f"persistent senders' window envelope in the 50 s before the return: TCP {tcp['amp_w']:.3f} W*, "
                        f"Surathkal {sur['amp_w']:.3f} W*; queue envelope TCP {tcp['amp_q']:.1f}, Surathkal {sur['amp_q']:.1f} pkts"))  # fmt: skip
    return Report(
        name="tahiliani-ch5-fluid",
        title="TCP/RED and TCP Surathkal fluid models (thesis Chapter 5)",
        source=f"{THESIS}, Section 5.3",
        mode="quick" if quick else "full",
        out_dir=out,
        notes=[
            "Misra-Gong-Towsley model (5.1.1)-(5.1.4) with RED's EWMA (5.1.2), delta = 1/C; Surathkal (5.2.1) with the "
            "closure alpha_i = p(x(t - tau)) (the thesis does not say how alpha_i is computed). CHOICES: 500-byte "
            "packets (C = 1250 pkt/s), gentle RED, queue limit 4 max_th (losses only from RED), windows start at 1 "
            "packet and restart at 1 when a group returns.",
            f"Fixed RK4 step {step * 1e3:g} ms. Quick mode runs Scenario 1 for {d1:g} s and a compressed Scenario 2 "
            f"(off at {off:g} s, back at {back:g} s, end {end:g} s).",
            "The thesis prints no numbers for Chapter 5; the claims are its qualitative statements.",
        ],
        claims=claims,
        tables={"summary": pl.DataFrame(rows)},
    )


#: Said of the fluid figures: the run draws them from its trajectories, stored beside the report
#: as Parquet but not among its tables, so re-rendering leaves them as they are.
DRAWN_BY_RUN = "Drawn by the run from the integrated trajectories (the *.parquet files beside the report)."


def _fig13_figures(report: Report) -> list[Figure]:
    return [
        Figure("fig13a.png", f"Figure 13(a): the minimum sampling interval delta of condition (13) against N-, R+ = 200 ms, C = 1000 pkt/s "
               f"(the paper: about 0.1 s at N- = 40; the table fig13a_min_delta has the values). {DRAWN_BY_RUN}"),
        Figure("fig13bcd.png", f"Figure 13(b)-(d): window, queueing delay and filtered delay of the DDE (14) at R = 100, 160 and 171 ms; "
               f"the paper's regimes are in fig13_regimes. {DRAWN_BY_RUN}"),
        Figure("fig13_proof_form.png", f"(14) with W(t-R) replaced by W(t), the approximation of Theorem 1's proof, at 171 and 175 ms. {DRAWN_BY_RUN}"),
    ]  # fmt: skip


def _ch5_figures(report: Report) -> list[Figure]:
    return [
        Figure("scenario1.png", f"Scenario 1: window, average and instantaneous queue of TCP/RED and TCP Surathkal, 40 flows. {DRAWN_BY_RUN}"),
        Figure("scenario2.png", f"Scenario 2: 20 of the 40 flows leave and return (window_0: the ON-OFF group, window_1: the persistent one). {DRAWN_BY_RUN}"),
    ]  # fmt: skip


#: Why the fluid entries use no workers.
SOLVED_HERE = "its fluid models are solved in this process, in seconds"
register(Entry("sigcomm07-fig13", "PERT/RED fluid model and Theorem 1 (Figure 13 a-d)", f"{PAPER}, Section 5", _fig13, _fig13_figures, _fig13_scenarios, runs_here=SOLVED_HERE))
register(Entry("tahiliani-ch5-fluid", "TCP/RED vs TCP Surathkal fluid models (Scenarios 1 and 2)", f"{THESIS}", _ch5, _ch5_figures, _ch5_scenarios, runs_here=SOLVED_HERE))
