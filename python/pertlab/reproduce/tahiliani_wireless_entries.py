"""Registry entry of Tahiliani's 2013 thesis, Chapter 4, Section 4.4.3 (S4-C): TCP Surathkal
(XECN) against TCP SACK and TCP Westwood+ behind a single wireless hop
(:func:`pertlab.experiments.tahiliani_ch4.s4c`): the hop's rate swept 5..12 Mbit/s without
channel errors (Figs. 4.17, 4.18) and its per-packet error rate swept 0..4 % on data and ACKs at
11 Mbit/s (Figs. 4.19, 4.20), with SACK with and without ECN. The claims are the thesis's headline
numbers. Two extra configurations test our explanations of the differences: Surathkal with the
thesis's prose reading of its loss response (``xecn_only``: channel losses keep the window) and
Westwood+ with errors on the data only (does the loss of ACKs break its estimate, as the thesis says?)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from ..experiments import tahiliani_ch4 as ch4
from ..parallel import Workers
from ..plots import saved_figure
from .registry import Claim, Entry, Figure, Report, Wire, fmt_seeds, fmt_values, register
from .tahiliani_entries import FULL, QUICK, THESIS

NAME = "tahiliani-ch4-wireless"
TITLE = "Figs. 4.17-4.20: Surathkal vs SACK and Westwood+ behind a lossy wireless hop"
SOURCE = f"{THESIS}, Section 4.4.3 (S4-C)"
#: Wireless rates (Mbit/s) of Figs. 4.17/4.18 (5..12, steps of 1 Mbit/s: spec 6, item 11) and
#: error rates of Figs. 4.19/4.20 (0..4 %, steps of 0.5 %).
RATES_FULL = (5, 6, 7, 8, 9, 10, 11, 12)
RATES_QUICK = (5, 12)
ERRORS_FULL = (0.0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04)
ERRORS_QUICK = (0.02, 0.04)
#: The thesis's headline gains of Surathkal (Sec. 4.4.3), percent.
THESIS_GAIN_ERROR_FREE = 4.02  # over SACK (Fig. 4.17)
THESIS_GAIN = {"sack_ecn": 3.62, "sack_noecn": 6.68, "westwood": 76.96}  # with channel errors (Figs. 4.19, 4.20)
#: A gain counts as one (for "outperforms", "considerable increase") when it is at least this many percent.
MATERIAL_PCT = 1.0
#: "Exactly the same" throughput as Westwood (Fig. 4.18) read as within this many percent.
SAME_PCT = 1.0
XECN_ONLY = {"surathkal": {"loss_response": "xecn_only"}}
#: Configurations: name -> (controller, ECN, controller parameters, errors on ACKs too).
CONFIGS: dict[str, tuple[str, bool, dict[str, Any] | None, bool]] = {
    "surathkal": ("surathkal", True, None, True),
    "sack_ecn": ("sack", True, None, True),
    "sack_noecn": ("sack", False, None, True),
    "westwood": ("westwood", True, None, True),
    "surathkal_xecn_only": ("surathkal", True, XECN_ONLY, True),
    "westwood_data_errors": ("westwood", True, None, False),
}
RATE_CONFIGS = ("surathkal", "sack_ecn", "westwood")


def _points(quick: bool) -> list[tuple[str, float, float, str, int, ch4.Mode]]:
    mode = QUICK if quick else FULL
    rates = [("rate", r, 0.0, c) for r in (RATES_QUICK if quick else RATES_FULL) for c in RATE_CONFIGS]
    errors = [("error", ch4.WIRELESS_RATE_MBPS, e, c) for e in (ERRORS_QUICK if quick else ERRORS_FULL) for c in CONFIGS]
    return [(sweep, r, e, c, seed, mode) for sweep, r, e, c in rates + errors for seed in mode.seeds]


def _scenario(rate: float, error: float, config: str, seed: int, mode: ch4.Mode) -> Any:
    cc, ecn, params, ack_errors = CONFIGS[config]
    return ch4.s4c(cc, mode, seed, wireless_mbps=rate, error=error, ack_errors=ack_errors, ecn=ecn, cc_params=params)


def _row(item: tuple[str, float, float, str, int, ch4.Mode]) -> dict[str, Any]:
    sweep, rate, error, config, seed, mode = item
    return {"sweep": sweep, "rate_mbps": float(rate), "error": error, "config": config, "seed": seed, **ch4.flow_row(_scenario(rate, error, config, seed, mode))}


def _scenarios(quick: bool) -> Wire:
    return {f"{s}-{r:g}Mbps-{e:g}-{c}-seed{seed}": _scenario(r, e, c, seed, m).to_wire() for s, r, e, c, seed, m in _points(quick)}


def _wide(runs: pl.DataFrame, sweep: str, x: str) -> pl.DataFrame:
    """Mean goodput over seeds per point and configuration, and Surathkal's gain (%) over each."""
    t = runs.filter(pl.col("sweep") == sweep).group_by(x, "config").agg(pl.col("goodput_mbps").mean())
    wide = t.pivot(on="config", index=x, values="goodput_mbps").sort(x)
    others = [c for c in wide.columns if c not in (x, "surathkal")]
    return wide.with_columns(((pl.col("surathkal") / pl.col(c) - 1) * 100).alias(f"gain_over_{c}_pct") for c in others)


def _gain_claim(wide: pl.DataFrame, x: str, other: str, text: str, thesis: float) -> Claim:
    gains = wide[f"gain_over_{other}_pct"].to_list()
    return Claim(f"{text} (not below anywhere, at least {MATERIAL_PCT:g} % above somewhere; the thesis: up to {thesis} %).",
                 all(g >= 0 for g in gains) and max(gains) >= MATERIAL_PCT,
                 f"Surathkal's gain over {other} (%) at {x} {fmt_values(wide[x].to_list())}: {fmt_values(gains)}")  # fmt: skip


def _claims(rates: pl.DataFrame, errors: pl.DataFrame) -> list[Claim]:
    same = [abs(g) for g in rates["gain_over_westwood_pct"].to_list()]
    lossy = errors.filter(pl.col("error") > 0)
    ecn_gain = ((lossy["sack_ecn"] / lossy["sack_noecn"] - 1) * 100).to_list()
    return [
        _gain_claim(rates, "rate_mbps", "sack_ecn", "Fig. 4.17: without channel errors Surathkal outperforms SACK across the wireless rates",
                    THESIS_GAIN_ERROR_FREE),
        Claim(f"Fig. 4.18: without channel errors Surathkal's throughput equals Westwood's (within {SAME_PCT:g} % at every rate).", max(same) <= SAME_PCT,
              f"|gain| over Westwood (%): {fmt_values(same)}"),
        Claim(f"Fig. 4.19: with channel errors ECN raises SACK's throughput considerably (SACK+ECN above SACK without ECN by {MATERIAL_PCT:g} % or more on average over the error rates).",
              sum(ecn_gain) / len(ecn_gain) >= MATERIAL_PCT,
              f"mean {sum(ecn_gain) / len(ecn_gain):.3g} %; SACK+ECN over SACK without (%) at error {fmt_values(lossy['error'].to_list())}: {fmt_values(ecn_gain)}"),
        _gain_claim(errors, "error", "sack_ecn", "Fig. 4.19: Surathkal outperforms SACK+ECN across the error rates", THESIS_GAIN["sack_ecn"]),
        _gain_claim(errors, "error", "sack_noecn", "Fig. 4.19: Surathkal outperforms SACK without ECN across the error rates", THESIS_GAIN["sack_noecn"]),
        _gain_claim(errors, "error", "westwood", "Fig. 4.20: Surathkal outperforms Westwood+ across the error rates", THESIS_GAIN["westwood"]),
    ]  # fmt: skip


def _run(quick: bool, out: Path, workers: Workers) -> Report:
    mode = QUICK if quick else FULL
    runs = pl.DataFrame(workers.map(_row, _points(quick)))
    rates, errors = _wide(runs, "rate", "rate_mbps"), _wide(runs, "error", "error")
    marks = runs.filter(pl.col("sweep") == "error").group_by("error", "config").agg(pl.col("ecn_reductions", "avg_queue_pkts", "utilization").mean()).sort("config", "error")
    report = Report(
        NAME, TITLE, SOURCE, "quick" if quick else "full", out,
        notes=[
            f"Wireless rates {fmt_values(list(RATES_QUICK if quick else RATES_FULL))} Mbit/s without errors; error rates "
            f"{fmt_values(list(ERRORS_QUICK if quick else ERRORS_FULL))} at {ch4.WIRELESS_RATE_MBPS} Mbit/s; {mode.duration} runs "
            f"(the thesis: 1150 s from t = 50 s), metrics after {mode.warmup}, seeds {fmt_seeds(list(mode.seeds))}; goodput is the mean over seeds.",
            "Topology: sources s0, s1 -> router -> access point over 75 Mbit/s, 5 ms links, then a wireless hop of 1 ms (not stated) to "
            "one mobile host; ARED (target 5 ms, 50 packets) on the access point's queue; Bernoulli errors on data and ACKs, no link-layer "
            "retransmissions. Not an 802.11 MAC: no contention and none of the RTT variation the thesis blames for SACK's losses.",
            "Surathkal is the S4-A controller (halving on a loss); surathkal_xecn_only keeps the window on a loss repaired by fast "
            "recovery (the thesis's prose: it 'does not react to packet losses due to the channel error'); westwood_data_errors loses data only.",
        ],
    )  # fmt: skip
    report.tables = {"rate_sweep": rates, "error_sweep": errors, "signals": marks, "runs": runs}
    report.claims = _claims(rates, errors)
    return report


def _figures(report: Report) -> list[Figure]:
    def draw(path: Path) -> None:
        rates, errors = report.tables["rate_sweep"], report.tables["error_sweep"]
        with saved_figure(path, 1, 2, figsize=(11, 3.8), title=report.title) as (_, axes):
            for c in RATE_CONFIGS:
                axes[0].plot(rates["rate_mbps"].to_list(), rates[c].to_list(), marker="o", label=c)
            axes[0].set_xlabel("wireless rate (Mbit/s), no errors")
            for c in CONFIGS:
                axes[1].plot([e * 100 for e in errors["error"].to_list()], errors[c].to_list(), marker="o", label=c)
            axes[1].set_xlabel("error rate (%) on data and ACKs, 11 Mbit/s")
            for ax in axes:
                ax.set_ylabel("total goodput (Mbit/s)")
                ax.legend(fontsize=7)

    return [Figure(f"{NAME}.png", "Goodput against the wireless rate (Figs. 4.17, 4.18) and the error rate (Figs. 4.19, 4.20), means over seeds.", draw)]


register(Entry(NAME, TITLE, SOURCE, _run, _figures, _scenarios))
