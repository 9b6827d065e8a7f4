"""Kotla (2008), Section V.E: the live experiments (Figs 13, 14, 16, 17) redone on this host's
kernel over emulated wide-area paths, with the simulator beside it.

The thesis downloaded from two servers at Texas A&M, one with its adaptive PERT kernel and one
with the standard kernel (SACK over NewReno, or Compound TCP for Figs 16 and 17), to PlanetLab
clients in six places; "1 flow, 2 flows and 10 flows of each flavor competing with corresponding
number of flows of the other flavor", ten times at each node, mean and 95 % interval of the
throughput and of the number of losses. Here each run is one namespace testbed
(:mod:`pertlab.linux.testbed`): N connections of the eBPF ``pert_adaptive`` and N of a kernel
competitor, ``reno`` (SACK on, Linux's default) or ``cubic`` (today's default, in place of
Compound TCP, which Linux does not ship), over one of the six path profiles
(:mod:`pertlab.linux.profiles`: the RTT, jitter and loss of each client kind, each number with
its source). What the thesis leaves unstated and is chosen here:

- the bottleneck: the access link's rate for the DSL and cable profiles (3 and 6 Mbit/s), and
  :data:`PLANETLAB_RATE` for the four PlanetLab paths, whose bottlenecks are unknown; a
  one-BDP drop-tail buffer (the testbed's default);
- the run length (the thesis says only "longer duration"): :data:`FULL` and :data:`QUICK`;
- "losses" are the sender's retransmitted segments over the measurement window, per
  connection (``tcpi_total_retrans`` at the end less at the warm-up's end, as the simulator
  counts them; the report of 2026-11 counted the whole run); throughput is goodput per
  connection over the measurement window;
- no cross traffic beyond the two groups (the thesis's paths carried unknown other traffic).

The simulator runs each scenario too (:func:`pertlab.linux.sim_side.sim_scenario`: the path's
mean delay, jitter included, and its data-direction loss rate; not the jitter's variation, the
loss bursts or losses of ACKs), with the same seeds. Both sides start at the kernel's initial
window of 10 segments (the scenario sets it; before 2026-12-05 the simulator started at its own 2,
a large part of an 8 s run on the long paths).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

__all__ = ["Mode", "QUICK", "FULL", "PROFILE_ORDER", "COMPETITORS", "PLANETLAB_RATE", "FIG15_PROFILES", "Case", "cases", "fig15_cases", "long_cases", "all_cases", "scenario_of", "run_table"]

#: The thesis's order of the clients (Figs 13, 14, 16, 17: cn, fr, nz, se, US DSL, US cable).
PROFILE_ORDER = ("cn", "fr", "nz", "se", "us-dsl", "us-cable")
#: Kernel competitors: reno for the thesis's SACK (Figs 13, 14), cubic in place of CTCP (16, 17).
COMPETITORS = ("reno", "cubic")
#: The bottleneck of the four PlanetLab paths (unknown in the thesis): a choice.
PLANETLAB_RATE = "10Mbps"
#: The adaptive controller under test, as the testbed names it.
PERT = "pert_adaptive"
#: Times a kernel run is taken when a PERT connection came out of it without a window (its
#: counters not read when the warm-up ended: the testbed's sampling loop was held back).
KERNEL_ATTEMPTS = 3


#: Columns only a kernel run has (None in the simulator's rows).
KERNEL_ONLY = ("delayline_late_mean_us", "delayline_late_max_us", "ssthresh_repairs", "invalid_ssthresh_samples")


@dataclass(frozen=True)
class Mode:
    profiles: tuple[str, ...]
    flows: tuple[int, ...]
    seeds: tuple[int, ...]
    duration: str
    warmup: str


#: Every client kind, 1, 2 and 10 flows of each, ten repetitions (Section V.E); 8 s runs with
#: the window from 2 s (one connection of each reaches its share on the 230 ms China path in about
#: seven round trips, 1.6 s), a choice that keeps the 360 kernel runs near 65 minutes.
FULL = Mode(PROFILE_ORDER, (1, 2, 10), tuple(range(1, 11)), "8s", "2s")
#: One short path, one flow of each, two repetitions: the test suite's form.
QUICK = Mode(("us-cable",), (1,), (1, 2), "6s", "2s")


@dataclass(frozen=True)
class Case:
    profile: str
    flows: int
    competitor: str
    seed: int
    #: False: the path's jitter replaced by its mean (a constant delay of the same mean RTT).
    jitter: bool = True
    #: The eBPF program's RTT samples and srtt_0.99 recorded (``trace_rtt``).
    trace: bool = False
    #: A run of :data:`LONG_DURATION` instead of the mode's.
    long: bool = False

    @property
    def key(self) -> str:
        return (f"{self.profile}-{self.flows}-{self.competitor}-s{self.seed}" + ("" if self.jitter else "-steady") + ("-trace" if self.trace else "")
                + ("-long" if self.long else ""))  # fmt: skip


def cases(mode: Mode) -> list[Case]:
    """Repetition by repetition, so that a run stopped early has every case with fewer repetitions."""
    return [Case(p, n, c, s) for s in mode.seeds for p in mode.profiles for n in mode.flows for c in COMPETITORS]


#: Fig. 15's access paths: the thesis traced its cable and DSL hosts.
FIG15_PROFILES = ("us-dsl", "us-cable")


def fig15_cases(mode: Mode) -> list[Case]:
    """Fig. 15 and its test: one PERT connection against one reno on each access path, traced
    (the first repetition), and with the jitter replaced by its mean (every repetition), to set
    beside the jittered runs of :func:`cases` with the same seeds."""
    profiles = [p for p in FIG15_PROFILES if p in mode.profiles]
    traced = [Case(p, 1, "reno", mode.seeds[0], trace=True) for p in profiles]
    return traced + [Case(p, 1, "reno", s, jitter=False) for s in mode.seeds for p in profiles]


#: pertlab's test of whether the runs' start (slow start's overshoot, a large share of an 8 s run
#: on a 140 ms path) explains PERT's deficit against reno: one connection each on the two paths
#: where it was largest, :data:`LONG_DURATION` runs with the window from :data:`LONG_WARMUP`, the
#: first :data:`LONG_SEEDS` repetitions (full mode only).
LONG_PROFILES = ("fr", "se")
LONG_DURATION, LONG_WARMUP, LONG_SEEDS = "60s", "10s", 3


def long_cases(mode: Mode) -> list[Case]:
    if mode != FULL:
        return []
    return [Case(p, 1, "reno", s, long=True) for s in mode.seeds[:LONG_SEEDS] for p in LONG_PROFILES]


def all_cases(mode: Mode) -> list[Case]:
    """Every run of a mode: the figures' cases, Fig. 15's and the long runs."""
    return cases(mode) + fig15_cases(mode) + long_cases(mode)


def scenario_of(case: Case, mode: Mode) -> Any:
    """The testbed scenario of one run (:class:`pertlab.linux.scenario.TestbedScenario`)."""
    from ..linux.profiles import PROFILES
    from ..linux.scenario import LINUX_INIT_CWND, TestbedScenario

    rate = PROFILES[case.profile].rate or PLANETLAB_RATE
    duration, warmup = (LONG_DURATION, LONG_WARMUP) if case.long else (mode.duration, mode.warmup)
    data = {
        "name": f"kotla08-live-{case.key}", "duration": duration, "warmup": warmup, "seed": case.seed,
        "delayline_rtprio": 10, "path": {"profile": case.profile}, "bottleneck": {"rate": rate}, "trace_rtt": case.trace, "init_cwnd": LINUX_INIT_CWND,
        "flows": [{"cc": PERT, "count": case.flows}, {"cc": case.competitor, "count": case.flows}],
    }  # fmt: skip
    sc = TestbedScenario.model_validate(data)
    if case.jitter:
        return sc
    mean_rtt = round(sc.bottleneck.delay + 2 * sc.path.jitter.mean_ns)
    return TestbedScenario.model_validate(data | {"path": {"profile": case.profile, "jitter": {"dist": "none"}}, "bottleneck": {"rate": rate, "delay": f"{mean_rtt}ns"}})


def _row(case: Case, source: str, flows: pl.DataFrame, capacity_mbps: float) -> dict[str, Any]:
    """One run's figures: per-connection means of each group, PERT's share, and the goodput of all
    connections over the bottleneck's rate (``goodput_over_capacity``: not the link's utilization;
    in-order deliveries over a short window can exceed the rate when a loss's hole is filled)."""
    pert, comp = flows.filter(pl.col("cc") == PERT), flows.filter(pl.col("cc") != PERT)
    total = flows["goodput_mbps"].sum()
    return {
        "source": source, "profile": case.profile, "flows": case.flows, "competitor": case.competitor, "seed": case.seed,
        "jitter": case.jitter, "traced": case.trace, "long": case.long,
        "pert_mbps": pert["goodput_mbps"].mean(), "comp_mbps": comp["goodput_mbps"].mean(),
        "pert_share": pert["goodput_mbps"].sum() / total if total > 0 else None,
        "pert_retx": float(pert["retransmits"].mean()), "comp_retx": float(comp["retransmits"].mean()),
        "goodput_over_capacity": total / capacity_mbps,
        "pert_compete_frac": pert["compete_frac"].mean() if "compete_frac" in pert.columns else None,
    }  # fmt: skip


def _kernel(case: Case, mode: Mode, runs_dir: Path) -> dict[str, Any]:
    """The kernel run of ``case``, stored as JSON under ``runs_dir`` (with a traced run's
    samples beside it, ``{key}.trace.parquet``) and read back on a rerun."""
    from ..linux import testbed

    stored = runs_dir / f"{case.key}.json"
    if stored.is_file():
        return json.loads(stored.read_text())
    sc = scenario_of(case, mode)
    for _ in range(KERNEL_ATTEMPTS):
        res = testbed.run(sc)
        if res.interrupted:
            raise KeyboardInterrupt(f"kotla08-live interrupted in run {case.key}; the runs before it are kept under {runs_dir}")
        windows = {fid: m["window"] for fid, m in res.extra.get("pert_adaptive_modes", {}).items()}
        unmeasured = [fid for fid in res.flows.filter(pl.col("cc") == PERT)["id"] if windows.get(fid) is None]
        if not unmeasured:
            break
        print(f"kotla08-live: run {case.key} has no window for PERT connections {unmeasured} (counters read at the warm-up: {res.extra['warm_read_s']} s); taken again", file=sys.stderr)
    runs_dir.mkdir(parents=True, exist_ok=True)
    if res.rtt_trace is not None:
        res.rtt_trace.with_columns(pl.lit(case.profile).alias("profile")).write_parquet(runs_dir / f"{case.key}.trace.parquet")
    compete = {fid: w["compete_s"] / max(1e-9, sum(w.values())) for fid, w in windows.items() if w}
    flows = res.flows.with_columns(pl.col("id").replace_strict(compete, default=None, return_dtype=pl.Float64).alias("compete_frac"))
    row = _row(case, "kernel", flows, sc.bottleneck.rate / 1e6) | {
        "delayline_late_mean_us": res.extra.get("delayline", {}).get("late_mean_us"),
        "delayline_late_max_us": res.extra.get("delayline", {}).get("late_max_us"),
        # docs/linux.md, "A stale slow-start threshold": the thresholds the program put back, and
        # the TCP_INFO samples of the run that held one above Linux's largest.
        "ssthresh_repairs": res.extra.get(f"{PERT}_counters", {}).get("ssthresh_repairs"),
        "invalid_ssthresh_samples": res.extra.get("invalid_ssthresh_samples"),
    }
    tmp = stored.with_suffix(".tmp")
    tmp.write_text(json.dumps(row))
    tmp.replace(stored)
    return row


def _sim(case: Case, mode: Mode) -> dict[str, Any]:
    from ..linux.sim_side import sim_scenario
    from ..runner import run as sim_run

    sc = scenario_of(case, mode)
    res = sim_run(sim_scenario(sc))
    flows = res.flows.with_columns(
        pl.when(pl.col("cc").str.starts_with("pert")).then(pl.lit(PERT)).otherwise(pl.col("cc")).alias("cc"),
        (pl.col("compete_s") / (pl.col("high_speed_s") + pl.col("safe_s") + pl.col("compete_s"))).alias("compete_frac"),
    )
    return _row(case, "sim", flows, sc.bottleneck.rate / 1e6) | dict.fromkeys(KERNEL_ONLY)


def run_table(mode: Mode, out: Path, progress: bool = True) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Every case of ``mode`` and of Fig. 15 on the kernel (stored runs reused), the first in
    the simulator as well: one row per run and source; and the traced runs' samples."""
    rows = []
    todo = all_cases(mode)
    for i, case in enumerate(todo):
        rows.append(_kernel(case, mode, out / "runs"))
        if case.jitter and not case.trace and not case.long:
            rows.append(_sim(case, mode))
        if progress:
            print(f"kotla08-live: {i + 1}/{len(todo)} {case.key}", flush=True)
    traces = [pl.read_parquet(out / "runs" / f"{c.key}.trace.parquet") for c in todo if c.trace]
    return pl.DataFrame(rows, infer_schema_length=None), pl.concat(traces) if traces else pl.DataFrame()
