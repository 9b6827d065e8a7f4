"""The same experiment in the simulator and in the testbed, side by side (docs/linux.md,
"testbed compare"): :func:`compare` runs the simulator's side (:mod:`.sim_side`: the testbed
scenario as a simulator dumbbell, at each seed) and then the kernel's, and writes the report: a
table of rows (:class:`Row`), each a metric of both sides under one definition, with the words
that say what each side models and what it leaves out, report.json and a figure.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from .. import acks
from .._core import jain_index
from ..results import SUCCESS_LATE_FRACTION_TEXT, Results
from ..scenario import Scenario, ScenarioError, TcpConfig
from . import MAX_SIM_SEEDS
from .scenario import LINUX_INIT_CWND, TestbedScenario
from .sim_side import LINUX_SIDE, SimSide, frame_time_ns, hystart_differences, kernel_hystart, sim_cc, sim_scenario, simulated, warm_up_of
from .testbed import HYSTART_DETECTIONS, TestbedResults, hystart_mean_window, run


#: The compare row of the mean window (segments) at which HyStart ended the CUBIC flows' slow starts.
HYSTART_WINDOW_METRIC = "cubic: window at HyStart's exits, segments (mean)"
#: HyStart's detections (:data:`HYSTART_DETECTIONS`) in words, and the compare rows of the slow
#: starts each ended.
HYSTART_EXIT_WORDS = {"train": "an ACK train", "delay": "a delay increase"}
HYSTART_EXIT_METRICS = {how: f"cubic: slow starts HyStart ended on {words}" for how, words in HYSTART_EXIT_WORDS.items()}
#: The compare row of the window at which HyStart ended the (cubic) video streams' slow start.
STREAM_HYSTART_METRIC = "video streams: window where HyStart ended slow start, segments (mean)"


#: The report's row of retransmissions marked lost again, by RACK or at a timeout: the kernel
#: senders' ``TCPLostRetransmit`` (the testbed's ``sender_recovery``), the simulator's flows'
#: ``lost_retransmits``, one definition.
LOST_RETRANSMITS_METRIC = "senders: retransmissions marked lost again (TCPLostRetransmit)"
#: The report's row of the senders' entries into fast recovery: the kernel's ``TCPSackRecovery`` and
#: ``TCPRenoRecovery`` (namespace-wide, over the window), the simulator's flows' ``fast_recoveries``.
RECOVERIES_METRIC = "senders: entries into fast recovery (TCPSackRecovery, TCPRenoRecovery)"
#: The report's row of the kernel senders' tail loss probes (``TCPLossProbes``), which the simulator does not send.
LOSS_PROBES_METRIC = "senders: tail loss probes (kernel's TCPLossProbes)"
#: The report's row of the kernel senders' window reductions undone as spurious (the sum of the
#: testbed's :data:`UNDO_COUNTERS`), which the simulator never undoes (``tcp::prr``).
UNDOS_METRIC = "senders: window reductions undone (kernel's TCP*Undo)"
#: The testbed's ``sender_recovery`` counters of undone reductions: whole, partial, by DSACK, after a timeout.
UNDO_COUNTERS = ("full_undos", "partial_undos", "dsack_undos", "loss_undos")
#: The testbed's ``sender_recovery`` counters of entries into fast recovery: with SACK and without.
RECOVERY_COUNTERS = ("sack_recoveries", "reno_recoveries")


def counted(recovery: dict[str, int], keys: tuple[str, ...]) -> int | None:
    """The sum of a testbed run's ``sender_recovery`` counters ``keys`` (:data:`RECOVERY_COUNTERS`,
    :data:`UNDO_COUNTERS`); None when the run lacks one (a kernel without it, a run made before it
    was read)."""
    values = [recovery.get(k) for k in keys]
    return None if None in values else sum(values)

#: The bottleneck's rows of every report: metric, the key of the bottleneck queue's results on
#: both sides (the testbed's ``queues`` table, the simulator's ``Results.bottleneck``), format.
BOTTLENECK_ROWS = (
    ("bottleneck utilization", "utilization", "{:.3f}"),
    ("bottleneck average queue, packets", "avg_queue_pkts", "{:.1f}"),
    ("bottleneck drops", "drops", "{}"),
    ("bottleneck drop rate", "drop_rate", "{:.5f}"),
)


def _frame_words(sim_sc: Scenario, side: SimSide) -> str:
    """The report's words on the bottleneck's timing: htb's frame ahead, and whether the simulator's round trip carries it."""
    size = sim_sc.flows[0].tcp.packet_size
    sim = (f"the simulator's round trip is that much shorter (`--sim-frame-ahead`: {frame_time_ns(size, sim_sc.dumbbell.bottleneck_rate) / 1e6:.3f} ms, "
           f"a {size}-byte data packet's time at the rate)" if side.frame_ahead else
           "the simulator's link delivers it when its last bit has gone (`--no-sim-frame-ahead`; by default the simulator takes that time off its round trip)")
    return f" The testbed's htb lets a frame leave a frame's time before its last bit would leave a link of the rate; {sim}."


def _kernel_recovery_words(sc: TestbedScenario, tcp: TcpConfig) -> str:
    """The report's words on the kernel's loss detection (RACK: Linux runs it only on connections
    with SACK) and the simulator's (``tcp``, its flows' TCP options)."""
    if not sc.sack:
        return ""
    probe = "tail loss probes" if sc.tlp else "no tail loss probes (`tlp = false`)"
    sim = ("the simulated senders find every lost segment by RACK too (`--sim-rack`, `tcp.rack`) and send no probes" if tcp.rack else
           "the simulated senders find lost retransmissions by RACK too (`--no-sim-rack --sim-rack-retransmits`, `tcp.rack_retransmits`), other "
           "losses by three duplicate ACKs, and send no probes" if tcp.rack_retransmits else
           "the simulator finds losses by three duplicate ACKs and lost retransmissions by its timer, and sends no probes "
           "(`--no-sim-rack`; by default the simulated senders run RACK too)")
    return f" The kernel's senders find lost segments, retransmissions too, by RACK, and send {probe}; {sim}."


def compare(
    sc: TestbedScenario, out: Path, sim_seeds: int = 1, memory_limit: float | None = None, side: SimSide = LINUX_SIDE
) -> tuple[str, TestbedResults | None]:
    """Run ``sc`` in the simulator and in the testbed; write both result sets
    and report.md under ``out``; return the report and the testbed's results
    (None when a Ctrl-C stopped the simulation: the testbed is then not run).

    With ``sim_seeds`` > 1 the simulator also runs seeds ``sc.seed + 1`` onwards (results in
    ``sim-seed-K/``) and the report adds a column with each metric's median and range over the
    seeds: which flows a probabilistic controller holds back, or whether identical flows lock in
    phase, can be chance in one simulated run as in one kernel run. ``memory_limit`` holds the
    simulator's runs (:func:`pertlab.runner.run`); the kernel's is not estimated. ``side`` is what
    the simulator's side adds to the scenario (:class:`SimSide`)."""
    if not 1 <= sim_seeds <= MAX_SIM_SEEDS:
        raise ScenarioError([("sim_seeds", f"must be in [1, {MAX_SIM_SEEDS}], got {sim_seeds}")])
    sim_sc = sim_scenario(sc, memory_limit, side)  # fails early on controllers the simulator lacks
    out.mkdir(parents=True, exist_ok=True)
    running = {f.cc for f in sc.flows}
    sims, sim_acks = [], []
    warm_ups: list[Results] | None = [] if sc.warmup > 0 and "pert_adaptive" in running else None
    for seed in range(sim_sc.seed, sim_sc.seed + sim_seeds):
        folder = "sim" if seed == sim_sc.seed else f"sim-seed-{seed}"
        seeded, seeded_acks = simulated(sim_sc.model_copy(update={"seed": seed}), out / folder, sc.capture_acks, memory_limit)
        sims.append(seeded)
        sim_acks.append(seeded_acks)
        if warm_ups is not None and not seeded.interrupted:
            warm_ups.append(warm_up_of(sc, seed, memory_limit, side))
            seeded = warm_ups[-1]  # interrupted in its turn: said as the seed's
        if seeded.interrupted:
            report = f"# {sc.name}: testbed vs simulator\n\nInterrupted in the simulation (seed {seed}) at {seeded.data['window_end_s']:g} s; the testbed was not run. Simulator results so far: {'sim/' if folder == 'sim' else f'sim/ to {folder}/'}.\n"
            (out / "report.md").write_text(report)
            return report, None
    sim = sims[0]
    overhead_ns = sim_sc.flows[0].tcp.overhead
    load_before = os.getloadavg()[0]
    real = run(sc)
    real.write(out / "testbed")
    rows = _rows(sc, real, sims, sim_acks, warm_ups)
    first = _first_windows(real, sim_acks)
    record = {
        "scenario": sc.name, "date": time.strftime("%Y-%m-%d", time.gmtime()), "kernel": os.uname().release,
        "load_average": [load_before, os.getloadavg()[0]], "duration_s": sc.duration / 1e9, "warmup_s": sc.warmup / 1e9,
        "init_cwnd": sc.init_cwnd, "sim_seeds": [sim_sc.seed, sim_sc.seed + sim_seeds - 1], "sim_send_overhead_ns": overhead_ns,
        "sim_rack": sim_sc.flows[0].tcp.rack, "sim_rack_retransmits": sim_sc.flows[0].tcp.rack_retransmits, "sim_frame_ahead": side.frame_ahead, "testbed_scenario": sc.model_dump(mode="json"),
        "ssthresh_repairs": ssthresh_repairs(real.extra),
        "invalid_ssthresh_samples": real.extra.get("invalid_ssthresh_samples", 0),
        **({"kernel_hystart": kernel_hystart()} if "cubic" in running else {}), "rows": [r.record() for r in rows],
        **({"first_windows": first} if first else {}),
    }  # fmt: skip
    (out / "report.json").write_text(json.dumps(record, indent=2) + "\n")
    seeds = f"seeds {sim_sc.seed} to {sim_sc.seed + sim_seeds - 1}"
    report = "\n".join([
        f"# {sc.name}: testbed vs simulator",
        "",
        f"{sc.bottleneck.rate / 1e6:g} Mbit/s bottleneck, {sc.bottleneck.delay / 1e6:g} ms round-trip delay, {sc.queue()[0]} {sc.queue()[1]}, "
        f"{sc.duration / 1e9:g} s, metrics over [{sc.warmup / 1e9:g} s, end]."
        + (f" Initial window {sc.init_cwnd} segments on both sides." if sc.init_cwnd is not None else
           f" Initial window {LINUX_INIT_CWND} segments on both sides (the kernel's default; `init_cwnd` sets another).")
        + (f" Receivers: Linux's delayed ACKs; in the simulator Linux's rules (`ack_policy = \"linux\"`) at HZ = {sim_sc.flows[0].tcp.linux_ack.hz}."
           if sc.delayed_ack else " Receivers: one ACK per segment on both sides.")
        + ("" if sc.sack else " SACK off on both sides (`sack = false`: the kernel's net.ipv4.tcp_sack = 0, the simulator's NewReno recovery).")
        + _kernel_recovery_words(sc, sim_sc.flows[0].tcp)
        + _frame_words(sim_sc, side)
        + " RTT samples taken as Linux takes them on both sides (the RTO's from the first segment an ACK covers, the controller's from the last);"
        " windows reduced by Proportional Rate Reduction on both sides (`tcp.prr`, Linux's `tcp_cwnd_reduction`)."
        + (_cubic_words(sim_sc) if "cubic" in running else "")
        + (f" The simulated senders wait U(0, {overhead_ns / 1e6:g} ms) before each send (`--sim-send-overhead`, ns-2's send overhead:"
           " the hosts' timing noise)." if overhead_ns else "")
        + (" The receivers' ACKs are counted from captures of their links (`capture_acks`; pertlab.acks; in the simulator ACKs carry no PSH)." if sc.capture_acks else "")
        + (f" The kernel's senders' TSO chunks hold at least {sc.min_tso_segs} segment{'s' if sc.min_tso_segs > 1 else ''} (`min_tso_segs`); the simulator sends segment by segment." if sc.min_tso_segs is not None else "")
        + (f" Step ECN marking from {sc.bottleneck.step_k} full-size frames queued (`bottleneck.step_k`): in the testbed a tc BPF program's copy of"
           f" the queue (bpf/ce_mark.bpf.c) marks, in the simulator a `step` queue of K = {sc.bottleneck.step_k} packets; ECN on at every host." if sc.bottleneck.step_k is not None else "")
        + (f" The simulator loses data packets at random at the path's long-run loss rate ({sc.loss_rate:.3g}); the testbed's losses of ACKs"
           f"{' and the bursts of its Gilbert-Elliott losses' if sc.path.loss.model == 'gilbert' else ''} are not carried." if sc.loss_rate else "")
        + (f" The testbed's {sc.path.jitter.dist} jitter is not modelled in the simulator run." if sc.path.jitter.dist != "none" else "")
        + (f" The testbed run was interrupted at {real.extra['stopped_at_s']:.1f} s: its metrics cover"
           f" [{real.extra['window_start_s']:.1f} s, {real.extra['window_end_s']:.1f} s], the simulator's the whole window." if real.interrupted else ""),
        "",
        "| metric | testbed (Linux) | simulator |" + (f" simulator, {seeds}: median (least .. most) |" if sim_seeds > 1 else ""),
        "|---|---|---|" + ("---|" if sim_seeds > 1 else ""),
        *(r.markdown() for r in rows),
        "",
        f"Testbed ping, ms: idle {_ping_words(real.extra['ping_idle_ms'])}; idle in full-size frames {_ping_words(real.extra['ping_idle_full_ms'])};"
        f" under load {_ping_words(real.extra['ping_load_ms'])}.",
        *([f"First windows through the bottleneck (flow x segments, in order; pertlab.acks.first_windows): testbed {acks.order_text(first['testbed'])}; "
           + "simulator " + ", ".join(f"seed {sim_sc.seed + k} {acks.order_text(o)}" for k, o in enumerate(first["sim"])) + "."] if first else []),
        *stale_thresholds(real.extra),
        "Result tables: testbed/ and sim/ (same schemas)"
        + (f"; the simulator's other seeds in {_seed_folders(sim_sc.seed + 1, sim_sc.seed + sim_seeds - 1)}" if sim_seeds > 1 else "")
        + ". Figure: cwnd.png (congestion windows and bottleneck queue, side by side; the simulator's first seed)."
        " The table's values, unformatted, with the scenario, the run's date, kernel and load average: report.json.",
        # What the simulator's run warned of (flows in lock-step, a queue that cannot act, ...)
        # often says why its column differs from the kernel's.
        *(["", "The simulator's run warned (as `pertlab run` does after its tables):", *[f"- {w}" for w in sim.warnings]] if sim.warnings else []),
        "",
    ])  # fmt: skip
    (out / "report.md").write_text(report)
    plot_side_by_side(real, sim, out / "cwnd.png", f"{sc.name}: {sc.bottleneck.rate / 1e6:g} Mbit/s, {sc.bottleneck.delay / 1e6:g} ms")
    return report, real


def _first_windows(real: TestbedResults, sim_acks: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """Both sides' orders of the flows' first windows through the bottleneck (flow ids), where
    both captured their receivers (``capture_acks``); None otherwise."""
    if "first_windows" not in real.extra or any(a is None for a in sim_acks):
        return None
    return {"testbed": real.extra["first_windows"], "sim": [a["first_windows"] for a in sim_acks if a is not None]}


def _cubic_words(sim_sc: Scenario) -> str:
    """The report's sentence on CUBIC: Linux's on both sides, HyStart as this host's tcp_cubic
    runs it, and which of the kernel's HyStart parameters the simulator's does not follow."""
    on = next(f.cc.hystart for f in sim_sc.flows if f.cc.kind == "cubic")
    params = kernel_hystart()
    differing = hystart_differences(params)
    return (
        f" CUBIC in Linux's arithmetic {'and with' if on else 'without'} Linux's HyStart on both sides"
        f" (this host's `tcp_cubic` hystart = {params.get('hystart', 'unreadable')}, hystart_detect = {params.get('hystart_detect', 'unreadable')})."
        + (f" The simulator's HyStart has Linux's defaults where this host's differ: {', '.join(differing)}." if differing else "")
    )


#: Adaptive PERT's modes (Kotla 2008, Ch. III.B), as the results name their times (``{mode}_s``).
MODES = ("high_speed", "safe", "compete")


def mode_metric(mode: str, before_window: bool = False) -> str:
    """The report's row of adaptive PERT's time in ``mode``: in the measurement window, or before it."""
    return f"pert_adaptive: time in {mode} mode{' before the window' if before_window else ''}, s (all flows)"


@dataclass(frozen=True)
class Row:
    """One metric of a compare report: the testbed's value and the simulator's of each seed,
    written with ``fmt``."""

    metric: str
    testbed: Any
    sim: list[Any]
    fmt: str = "{:.3f}"

    def text(self, v: Any) -> str:
        """A value as the table writes it ("-" for none)."""
        return "-" if v is None else self.fmt.format(v)

    def spread(self) -> str:
        """The simulator seeds' median (least .. most)."""
        values = [v for v in self.sim if isinstance(v, (int, float))]
        if not values:
            return "-"
        median = statistics.median(values)
        if all(isinstance(v, int) for v in values) and median == int(median):
            median = int(median)  # a count stays a count
        return f"{self.text(median)} ({self.text(min(values))} .. {self.text(max(values))})"

    def markdown(self) -> str:
        """The table's row: the testbed, the simulator's first seed and, with more seeds, their
        median (least .. most)."""
        cells = [self.text(self.testbed), self.text(self.sim[0])] + ([self.spread()] if len(self.sim) > 1 else [])
        return f"| {self.metric} | {' | '.join(cells)} |"

    def record(self) -> dict[str, Any]:
        """The row for report.json: the values as measured, unformatted, and the format the
        table writes them with (``Row(**record)`` is the row again)."""
        return {"metric": self.metric, "testbed": self.testbed, "sim": self.sim, "fmt": self.fmt}


def ssthresh_repairs(extra: dict[str, Any]) -> dict[str, int]:
    """The stale slow-start thresholds each eBPF controller of a testbed run put back (its
    counters' ``ssthresh_repairs``), by controller."""
    return {k.removesuffix("_counters"): v.get("ssthresh_repairs", 0) for k, v in extra.items() if k.endswith("_counters")}


def stale_thresholds(extra: dict[str, Any]) -> list[str]:
    """A line when the testbed met a slow-start threshold Linux cannot have set (docs/linux.md, "A
    stale slow-start threshold"): the thresholds its eBPF controllers put back, and the TCP_INFO
    samples that held one; nothing when there were none."""
    said = [f"{cc} put back {n}" for cc, n in sorted(ssthresh_repairs(extra).items()) if n]
    invalid = extra.get("invalid_ssthresh_samples", 0)
    if not said and not invalid:
        return []
    return [
        "Stale slow-start thresholds in the kernel (docs/linux.md, \"A stale slow-start threshold\"): "
        + "; ".join(said + ([f"{invalid} TCP_INFO samples held one above Linux's largest"] if invalid else [])) + "."
    ]


def _ping_words(stats: dict[str, Any]) -> str:
    """A ping's RTT statistics (testbed ``_stats``) in words, to 0.01 ms."""
    return "no reply" if not stats["n"] else f"{stats['n']} replies, median {stats['median']:.2f}, mean {stats['mean']:.2f} ({stats['min']:.2f} .. {stats['max']:.2f})"


def _seed_folders(first: int, last: int) -> str:
    """The simulator's result folders of seeds ``first`` to ``last``."""
    return f"sim-seed-{first}/" if first == last else f"sim-seed-{first}/ to sim-seed-{last}/"


#: The report's row of the flows' smoothed RTT as both sides sample it (:func:`srtt_mean`).
SRTT_MEAN_METRIC = "{cc}: srtt mean over the samples, ms"


def srtt_mean(flow_series: pl.DataFrame | None, flows: pl.Series, start_s: float, end_s: float) -> float | None:
    """The mean over ``flows`` of each flow's mean srtt in the samples of ``flow_series`` from
    ``start_s`` to ``end_s`` (both sides' series sample every ``sample_interval``); None without a sample."""
    if flow_series is None or "srtt_ms" not in flow_series.columns:
        return None
    inside = flow_series.filter(pl.col("flow").is_in(flows.to_list()) & pl.col("t_s").is_between(start_s, end_s) & pl.col("srtt_ms").is_not_null())
    per_flow = inside.group_by("flow").agg(pl.col("srtt_ms").mean())["srtt_ms"]
    return None if per_flow.is_empty() else per_flow.mean()


def _rows(sc: TestbedScenario, real: TestbedResults, sims: list[Results], sim_acks: list[dict[str, Any] | None], sim_warm_ups: list[Results] | None) -> list[Row]:
    """The report's table rows: each metric of the testbed's run and of each simulator seed; with
    ``capture_acks``, the receivers' ACKs (``sim_acks``: each seed's :func:`pertlab.acks.summary`);
    with adaptive PERT and a warm-up, its time in each mode before the window too (``sim_warm_ups``:
    each seed's :func:`warm_up_of` run)."""
    from ..builders import CC_NAMES

    rq = real.queues.to_dicts()[0]
    rows = []

    def row(name: str, a, of_sim: Callable[[Results], Any], fmt: str = "{:.3f}") -> None:
        """A metric: the testbed's value ``a`` and the simulator's ``of_sim(results)`` of each seed."""
        row_of(name, a, [of_sim(s) for s in sims], fmt)

    def row_of(name: str, a, seeded: list[Any], fmt: str = "{:.3f}") -> None:
        """A metric: the testbed's value ``a`` and the simulator's of each seed (``seeded``)."""
        rows.append(Row(name, a, seeded, fmt))

    # the measurement windows, in seconds of each side's series (the kernel's cut short if it was stopped)
    kernel_window = (sc.warmup / 1e9, real.extra.get("window_end_s", sc.duration / 1e9))
    sim_window = (sc.warmup / 1e9, sc.duration / 1e9)
    for cc in dict.fromkeys(f.cc for f in sc.flows):
        rf = real.flows.filter(pl.col("cc") == cc)
        sf = lambda s, cc=cc: s.flows.filter(pl.col("cc") == CC_NAMES[sim_cc(sc, cc)][0])  # noqa: E731
        row(f"{cc}: flows", len(rf), lambda s: len(sf(s)), "{}")
        row(f"{cc}: goodput per flow, Mbit/s (mean)", rf["goodput_mbps"].mean(), lambda s: sf(s)["goodput_mbps"].mean())
        # The median and the range show what a mean hides: flows held apart (docs/linux.md,
        # "Ten PERT flows behind delayed ACKs": most held at a small window, a few escaped).
        row(f"{cc}: goodput per flow, Mbit/s (median)", rf["goodput_mbps"].median(), lambda s: sf(s)["goodput_mbps"].median())
        spread = lambda g: None if g.is_empty() else f"{g.min():.3f} .. {g.max():.3f}"  # noqa: E731
        row(f"{cc}: goodput per flow, Mbit/s (least .. most)", spread(rf["goodput_mbps"]), lambda s: spread(sf(s)["goodput_mbps"]), "{}")
        # How many a few flows hold apart from the rest, as a number the prose can be checked by.
        above = lambda g: None if g.is_empty() else int((g > 2 * g.mean()).sum())  # noqa: E731
        row(f"{cc}: flows above twice the mean goodput", above(rf["goodput_mbps"]), lambda s: above(sf(s)["goodput_mbps"]), "{}")
        row(f"{cc}: goodput total, Mbit/s", rf["goodput_mbps"].sum(), lambda s: sf(s)["goodput_mbps"].sum())
        row(f"{cc}: RTT mean, ms", rf["rtt_mean_ms"].mean(), lambda s: sf(s)["rtt_mean_ms"].mean(), "{:.2f}")
        # One definition on both sides, where "RTT mean" has two (the kernel's the mean of its srtt
        # samples, the simulator's of its RTT samples): the flows' srtt as sampled every
        # sample_interval over the window, each flow's mean, then their mean.
        row(SRTT_MEAN_METRIC.format(cc=cc), srtt_mean(real.flow_series, rf["id"], *kernel_window),
            lambda s: srtt_mean(s.flow_series, sf(s)["id"], *sim_window), "{:.2f}")
        row(f"{cc}: retransmissions", rf["retransmits"].sum(), lambda s: sf(s)["retransmits"].sum(), "{}")
        # Linux reports its timeouts from 6.7 (tcpi_total_rto); none on an older kernel.
        row(f"{cc}: retransmission timeouts", None if rf["timeouts"].null_count() else rf["timeouts"].sum(), lambda s: sf(s)["timeouts"].sum(), "{}")
        if cc == "cubic":
            # Namespace-wide in the kernel, so over every cubic flow; over the run on both sides.
            h = real.extra.get("hystart")  # absent from runs made before it was read
            for how, metric in HYSTART_EXIT_METRICS.items():
                row(metric, None if h is None else h[f"{how}_exits"], lambda s, how=how: _hystart_counts(sf(s))[f"{how}_exits"], "{}")
            row(HYSTART_WINDOW_METRIC, None if h is None else hystart_mean_window(h), lambda s: hystart_mean_window(_hystart_counts(sf(s))), "{:.1f}")
        if cc in ("pert", "pert_adaptive"):
            row(f"{cc}: early responses", rf["early_responses"].sum(), lambda s: sf(s)["early_responses"].sum(), "{}")
        if cc == "pert_adaptive":
            modes = list(real.extra.get("pert_adaptive_modes", {}).values())
            windows = [x["window"] for x in modes]
            for m in MODES:
                row(mode_metric(m), sum(w[f"{m}_s"] for w in windows) if all(windows) else None, lambda s, m=m: sf(s)[f"{m}_s"].sum(), "{:.2f}")
            if sim_warm_ups is not None:
                for m in MODES:  # the run's less the window's: the controller's counters read at the warm-up's end
                    before = sum(x["run"][f"{m}_s"] - x["window"][f"{m}_s"] for x in modes) if all(windows) else None
                    row_of(mode_metric(m, before_window=True), before, [sf(s)[f"{m}_s"].sum() for s in sim_warm_ups], "{:.2f}")
    if "video_packets" in real.flows.columns and (rv := real.flows.filter(pl.col("video_packets").is_not_null())).height:
        sv = lambda s: s.flows.filter(pl.col("video_packets").is_not_null())  # noqa: E731
        row("video streams: goodput per stream, Mbit/s (mean)", rv["goodput_mbps"].mean(), lambda s: sv(s)["goodput_mbps"].mean())
        row("video streams: late fraction (worst stream)", rv["video_late_fraction"].max(), lambda s: sv(s)["video_late_fraction"].max(), "{:.2e}")
        row(f"video streams: successful (late fraction below {SUCCESS_LATE_FRACTION_TEXT})", int(rv["video_success"].sum()), lambda s: int(sv(s)["video_success"].sum()), "{}")
        if "hystart_exit_cwnd" in rv.columns and (rv["cc"] == "cubic").any():
            # Where HyStart stopped a cubic stream decides whether it keeps up (docs/linux.md, "Live video").
            row(STREAM_HYSTART_METRIC, rv["hystart_exit_cwnd"].mean(), lambda s: single_exit_cwnd(sv(s)).mean(), "{:.1f}")
    # Lost retransmissions: both sides count those marked lost again, by RACK or at a timeout (the
    # kernel namespace-wide, over the window; absent from runs made before it was read); the
    # simulator also the ones it dropped. The kernel probes lost tails, the simulator does not.
    rec = real.extra.get("sender_recovery", {})
    row("senders: retransmissions dropped", None, lambda s: s.flows["retransmit_drops"].sum(), "{}")
    row(LOST_RETRANSMITS_METRIC, rec.get("lost_retransmits"), lambda s: s.flows["lost_retransmits"].sum(), "{}")
    row(RECOVERIES_METRIC, counted(rec, RECOVERY_COUNTERS), lambda s: s.flows["fast_recoveries"].sum(), "{}")
    row_of(LOSS_PROBES_METRIC, rec.get("loss_probes"), [None] * len(sims), "{}")
    row_of(UNDOS_METRIC, counted(rec, UNDO_COUNTERS), [None] * len(sims), "{}")
    row("Jain index (all flows)", jain_index(real.flows["goodput_mbps"].to_list()), lambda s: s.jain)
    for name, key, fmt in BOTTLENECK_ROWS:
        row(name, rq[key], lambda s, key=key: s.bottleneck[key], fmt)
    if sc.bottleneck.step_k is not None:
        row("bottleneck CE marks", rq["marks"], lambda s: s.bottleneck["marks"], "{}")
        row("bottleneck mark rate", rq["mark_rate"], lambda s: s.bottleneck["mark_rate"], "{:.5f}")
    if "acks" in real.extra and all(sim_acks):
        ecn = (
            ("cue_acks", "receivers: ACKs covering an ECN cue (CWR, first CE since CWR, retransmission)", "{}"),
            ("cue_at_once_share", "receivers: of those, sent at once after the cue, share", "{:.3f}"),
        )
        for key, name, fmt in (
            ("data_push_share", "senders: data segments with PSH, share", "{:.3f}"),
            ("segments_per_ack", "receivers: segments per ACK (mean)", "{:.2f}"),
            ("lone_share", "receivers: ACKs covering one segment, share", "{:.3f}"),
            ("lone_at_once_share", f"receivers: of those, sent at once (within {acks.AT_ONCE_S * 1e3:g} ms), share", "{:.3f}"),
            ("at_once_push_share", "receivers: of those sent at once, on a segment with PSH, share", "{:.3f}"),
            ("push_at_once_share", "receivers: lone segments with PSH, sent at once, share", "{:.3f}"),
            ("lone_held_median_ms", "receivers: the others' hold, ms (median)", "{:.1f}"),
            *(ecn if sc.bottleneck.step_k is not None else ()),
        ):
            row_of(name, real.extra["acks"][key], [a[key] for a in sim_acks], fmt)
    return rows


def single_exit_cwnd(flows: pl.DataFrame) -> pl.Series:
    """Each simulated flow's window at its HyStart exit where it had exactly one, as the
    testbed's ``hystart_exit_cwnd`` gives a kernel connection's first; null otherwise."""
    one = (pl.col("hystart_train_exits") + pl.col("hystart_delay_exits")) == 1
    return flows.select(pl.when(one).then(pl.coalesce("hystart_train_cwnd", "hystart_delay_cwnd"))).to_series()


def _hystart_counts(flows: pl.DataFrame) -> dict[str, int]:
    """HyStart's exits over a simulator run's flows as the kernel counts them over a namespace
    (:meth:`pertlab.linux.testbed.Testbed.hystart_exits`): by detection, the exits and the sum
    of the windows at them (each flow's mean window times its exits)."""
    counts = {}
    for how in HYSTART_DETECTIONS:
        exits, mean = flows[f"hystart_{how}_exits"], flows[f"hystart_{how}_cwnd"].fill_null(0)
        counts |= {f"{how}_exits": int(exits.sum()), f"{how}_cwnd_sum": round((exits * mean).sum())}
    return counts


def plot_side_by_side(real: TestbedResults, sim, path: Path, title: str) -> None:
    """Congestion windows (top) and bottleneck queue (bottom), testbed left, simulator right."""
    from ..plots import saved_figure

    sim_queue = sim.queue_series.filter(pl.col("queue") == sim.queue_series["queue"][0]) if sim.queue_series.height else sim.queue_series
    with saved_figure(path, 2, 2, figsize=(12, 6.5), title=title, sharex=True, sharey="row") as (_, axes):
        for col, (label, fs, qs) in enumerate((("testbed (Linux)", real.flow_series, real.queue_series), ("simulator", sim.flow_series, sim_queue))):
            for flow in fs["flow"].unique().sort().to_list():
                f = fs.filter(pl.col("flow") == flow)
                axes[0, col].plot(f["t_s"], f["cwnd"], lw=0.7)
            axes[0, col].set_title(label)
            if qs.height:
                axes[1, col].plot(qs["t_s"], qs["len_pkts"], lw=0.7, color="k")
            axes[1, col].set_xlabel("time (s)")
        axes[0, 0].set_ylabel("cwnd (segments)")
        axes[1, 0].set_ylabel("bottleneck queue (packets)")
