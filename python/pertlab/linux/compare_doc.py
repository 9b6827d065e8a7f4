"""The generated blocks of docs/linux.md written from committed ``pertlab testbed compare`` runs:
each run's ``report.json`` (the table's values, unformatted, with the scenario, date, kernel and
load average), committed as docs/linux/NAME.json beside its report, NAME.md, and its figure.

- ``smoke`` ("testbed compare"): the smoke scenario's one PERT flow beside the simulator.
- ``mix`` ("Ten PERT flows behind delayed ACKs", its end): two PERT flows against a cubic flow.
- ``ten-flows`` ("Ten flows, 10 Mbit/s, 40 ms"): kernel Reno and PERT beside the simulator.
- ``ten-flows-nosack`` ("Reno without SACK"): the ten Reno flows with SACK and without.
- ``random-loss`` ("Random loss, with SACK and without"): four Reno flows through 3 % random loss, with SACK
  (the kernel also without its tail loss probe) and without SACK.
- ``random-loss-rack`` (the same section): the SACK run compared with ``--sim-rack-retransmits``;
  ``random-loss-frame`` with ``--sim-frame-ahead`` too; ``random-loss-all`` with ``--sim-rack`` (RACK
  for every segment) and ``--sim-frame-ahead``; ``random-loss-kernel-runs`` six more kernel runs of
  the scenario beside the seeds of the last two.
- ``pert-delack`` ("Ten PERT flows behind delayed ACKs"): with the kernel's TSO chunks and without.
- ``step-ecn`` ("ECN at the bottleneck"): ten CUBIC flows behind step marking, with the chunks and without.
- ``fifty-flows`` ("CPU cost: Table VI today"): the start of fifty adaptive PERT flows.
- ``video`` ("Live video"): the three video streams' goodput, late fraction and round trip.
- ``video-noise`` ("Live video"): CUBIC's stream with the simulated hosts' timing noise.
- ``adaptive-reno`` ("Reno flows join, and leave"): adaptive PERT's time in compete mode before
  and in the measurement window.

Each block gives the kernel's run and the simulator's seeds (one value where every seed agrees,
else the median (least .. most)), and says when and on which kernel the runs were made. The
prose around a block explains; tests/python/test_linux_doc.py checks that what it claims holds
in the committed data. Rendered by :mod:`.doc` (``make docs``).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from ..results import SUCCESS_LATE_FRACTION, SUCCESS_LATE_FRACTION_TEXT
from .compare import (
    BOTTLENECK_ROWS, HYSTART_EXIT_METRICS, HYSTART_EXIT_WORDS, HYSTART_WINDOW_METRIC, LOST_RETRANSMITS_METRIC, SRTT_MEAN_METRIC, STREAM_HYSTART_METRIC, MODES, RECOVERIES_METRIC,
    RECOVERY_COUNTERS, UNDO_COUNTERS, UNDOS_METRIC, Row, counted, mode_metric,
)  # fmt: skip
from .sim_side import LINUX_SIDE, SimSide, sim_scenario
from .scenario import TestbedScenario

__all__ = ["BLOCKS", "compete", "render_adaptive_reno", "render_video", "render_video_noise", "side_by_side", "simulator_side_changes"]

Record = dict[str, Any]


def rows_of(record: Record) -> dict[str, Row]:
    """A run's table rows by metric."""
    return {r["metric"]: Row(**r) for r in record["rows"]}


def cc_of(record: Record) -> str:
    """The congestion control of a run's first flow group, as the testbed names it."""
    return record["testbed_scenario"]["flows"][0]["cc"]


def sim_cell(row: Row) -> str:
    """The simulator's value: one where every seed gives it, else the median (least .. most), or
    the first seed's where the values are not numbers (a range written out)."""
    if len(set(row.sim)) == 1:
        return row.text(row.sim[0])
    return row.spread() if all(isinstance(v, (int, float)) for v in row.sim) else f"{row.text(row.sim[0])} (first seed)"


def bottleneck_values(record: Record, side: SimSide) -> dict[str, list[Any]]:
    """The bottleneck's rows (:data:`.compare.BOTTLENECK_ROWS`, as the report defines them) of a
    committed run's scenario (``testbed_scenario``) built as ``compare`` builds it with ``side``,
    at each of the run's seeds, by metric."""
    from ..runner import run

    sim = sim_scenario(TestbedScenario.model_validate(record["testbed_scenario"]), side=side)
    first, last = record["sim_seeds"]
    results = [run(sim.model_copy(update={"seed": seed})).bottleneck for seed in range(first, last + 1)]
    return {name: [b[key] for b in results] for name, key, _ in BOTTLENECK_ROWS}


def simulator_side_changes(record: Record) -> list[str]:
    """What the simulator gives today for a committed run's simulator side, where it differs from
    the run's: its :func:`bottleneck_values` with the run's simulator side
    (:meth:`SimSide.of_record`; every report has those rows, and a change in the model's
    dynamics shows in them). Empty when the committed side is today's: a model change that alters
    it asks for the run to be taken again."""
    rows = rows_of(record)
    seeds = range(record["sim_seeds"][0], record["sim_seeds"][1] + 1)
    return [
        f"seed {seed}, {name}: committed {rows[name].sim[k]}, today {today}"
        for name, values in bottleneck_values(record, SimSide.of_record(record)).items()
        if name in rows
        for k, (seed, today) in enumerate(zip(seeds, values))
        if rows[name].sim[k] != today
    ]


#: The options of ``testbed compare`` that :func:`side_flags` may name, in the order a command line gives them.
SIDE_FLAGS = ("--no-sim-rack", "--sim-rack-retransmits", "--no-sim-frame-ahead")


def side_flags(record: Record) -> list[str]:
    """The options that give ``testbed compare`` the simulator's side ``record`` was made with
    (:meth:`SimSide.of_record`), against its defaults (:data:`LINUX_SIDE`): a run recorded before RACK
    and the frame ahead were the defaults needs ``--no-sim-rack`` (where its flows have SACK: without,
    RACK does not act) and ``--no-sim-frame-ahead``."""
    side, sack = SimSide.of_record(record), record["testbed_scenario"].get("sack", True)
    needed = (sack and side.rack != LINUX_SIDE.rack, side.rack_retransmits and not side.rack, side.frame_ahead != LINUX_SIDE.frame_ahead)
    return [flag for flag, need in zip(SIDE_FLAGS, needed) if need]


def provenance(records: dict[str, Record]) -> str:
    """When and where the runs were made: each run's date and load average, the kernels, the
    simulator's seeds, and the command."""
    runs = [
        f"`{name}` on {rec['date']} (load average {rec['load_average'][0]:.2f} at the start, {rec['load_average'][1]:.2f} at the end)"
        for name, rec in records.items()
    ]
    kernels = sorted({rec["kernel"].split("-")[0] for rec in records.values()})
    seeds = sorted({tuple(rec["sim_seeds"]) for rec in records.values()})
    said = ", ".join(f"{a} to {b}" if b > a else f"{a}" for a, b in seeds)
    # the option a run was made with beyond the seeds (runs before it was recorded had none)
    noisy = any(rec.get("sim_send_overhead_ns") for rec in records.values())
    options, some = " --sim-send-overhead T" if noisy else "", []
    flags = {name: side_flags(rec) for name, rec in records.items()}
    for flag in SIDE_FLAGS:
        made = [name for name in records if flag in flags[name]]
        options += f" {flag}" if len(made) == len(records) else f" [{flag}]" if made else ""
        some += [f"with `{flag}`: {', '.join(f'`{n}`' for n in made)}"] if made and len(made) < len(records) else []
    which = f" ({'; '.join(some)})" if some else ""
    return (
        "Kernel runs: " + "; ".join(runs) + f"; kernel {', '.join(kernels)}; simulator seeds {said}. Each is "
        f"`pertlab testbed compare FILE --out DIR --sim-seeds N{options}`{which}, its report.md, cwnd.png and report.json committed as "
        "docs/linux/NAME.md, .png and .json.\n"
    )


# -- side by side: ten flows, the mix and the smoke scenario -----------------------------------------------

#: The rows of a side-by-side table: label, and the metric (``{cc}`` the run's controller).
TEN_FLOWS_ROWS = (
    ("goodput total, Mbit/s", "{cc}: goodput total, Mbit/s"),
    ("Jain index", "Jain index (all flows)"),
    ("average queue, packets", "bottleneck average queue, packets"),
    ("drop rate", "bottleneck drop rate"),
    ("RTT mean, ms", "{cc}: RTT mean, ms"),
    ("retransmissions", "{cc}: retransmissions"),
    ("early responses", "{cc}: early responses"),
)
RANDOM_LOSS_ROWS = (
    ("goodput total, Mbit/s", "{cc}: goodput total, Mbit/s"),
    ("bottleneck utilization", "bottleneck utilization"),
    ("retransmissions", "{cc}: retransmissions"),
    ("retransmission timeouts", "{cc}: retransmission timeouts"),
    ("retransmissions dropped (simulator)", "senders: retransmissions dropped"),
    ("retransmissions marked lost again", "senders: retransmissions marked lost again (TCPLostRetransmit)"),
    ("tail loss probes (kernel)", "senders: tail loss probes (kernel's TCPLossProbes)"),
    ("Jain index", "Jain index (all flows)"),
)
#: The random-loss rows of the runs made with RACK (and ``--sim-frame-ahead``), which
#: have the rows added with them: the round trip (one definition on both sides), the queue, the
#: entries into fast recovery and the kernel's undone reductions.
RANDOM_LOSS_RACK_ROWS = (
    *RANDOM_LOSS_ROWS[:1],
    ("srtt mean over the samples, ms", SRTT_MEAN_METRIC),
    *RANDOM_LOSS_ROWS[1:2],
    ("bottleneck average queue, packets", "bottleneck average queue, packets"),
    *RANDOM_LOSS_ROWS[2:6],
    ("entries into fast recovery", RECOVERIES_METRIC),
    *RANDOM_LOSS_ROWS[6:7],
    ("reductions undone (kernel)", UNDOS_METRIC),
    *RANDOM_LOSS_ROWS[7:],
)
SMOKE_ROWS = (
    ("goodput total, Mbit/s", "{cc}: goodput total, Mbit/s"),
    ("RTT mean, ms", "{cc}: RTT mean, ms"),
    ("retransmissions", "{cc}: retransmissions"),
    ("early responses", "{cc}: early responses"),
    ("utilization", "bottleneck utilization"),
    ("average queue, packets", "bottleneck average queue, packets"),
    ("drops", "bottleneck drops"),
)

#: Ten CUBIC flows behind step marking, with the kernel's TSO chunks and without.
STEP_ECN_ROWS = (
    ("goodput per flow, Mbit/s (least .. most)", "{cc}: goodput per flow, Mbit/s (least .. most)"),
    ("Jain index", "Jain index (all flows)"),
    ("utilization", "bottleneck utilization"),
    ("average queue, packets", "bottleneck average queue, packets"),
    ("mark rate", "bottleneck mark rate"),
    ("data segments with PSH, share", "senders: data segments with PSH, share"),
    ("segments per ACK", "receivers: segments per ACK (mean)"),
    ("ACKs covering one segment, share", "receivers: ACKs covering one segment, share"),
    ("ACKs covering an ECN cue, sent at once, share", "receivers: of those, sent at once after the cue, share"),
)
#: Ten PERT flows behind delayed ACKs, with the kernel's TSO chunks and without.
PERT_DELACK_ROWS = (
    ("goodput per flow, Mbit/s (median)", "{cc}: goodput per flow, Mbit/s (median)"),
    ("goodput per flow, Mbit/s (least .. most)", "{cc}: goodput per flow, Mbit/s (least .. most)"),
    ("flows above twice the mean goodput", "{cc}: flows above twice the mean goodput"),
    ("utilization", "bottleneck utilization"),
    ("average queue, packets", "bottleneck average queue, packets"),
    ("RTT mean, ms", "{cc}: RTT mean, ms"),
    ("data segments with PSH, share", "senders: data segments with PSH, share"),
    ("ACKs covering one segment, share", "receivers: ACKs covering one segment, share"),
    ("of those, sent at once, share", "receivers: of those, sent at once (within 10 ms), share"),
    ("the others' hold, ms (median)", "receivers: the others' hold, ms (median)"),
)
#: Fifty adaptive PERT flows at 100 Mbit/s, 60 ms: the start of the CPU-cost runs.
FIFTY_FLOWS_ROWS = (
    ("goodput total, Mbit/s", "{cc}: goodput total, Mbit/s"),
    ("flows above twice the mean goodput", "{cc}: flows above twice the mean goodput"),
    ("utilization", "bottleneck utilization"),
    ("average queue, packets", "bottleneck average queue, packets"),
    ("drops", "bottleneck drops"),
    ("early responses", "{cc}: early responses"),
    ("time in compete mode, s (all flows)", mode_metric("compete")),
)

MIX_ROWS = (
    ("cubic goodput, Mbit/s", "cubic: goodput total, Mbit/s"),
    ("each PERT flow, Mbit/s (mean)", "pert: goodput per flow, Mbit/s (mean)"),
    ("PERT early responses (both flows)", "pert: early responses"),
    ("bottleneck average queue, packets", "bottleneck average queue, packets"),
    ("bottleneck drops", "bottleneck drops"),
    ("mean RTT, ms (cubic)", "cubic: RTT mean, ms"),
    ("retransmissions, PERT", "pert: retransmissions"),
    ("retransmissions, cubic", "cubic: retransmissions"),
    ("cubic's window where HyStart ended its slow start, segments", HYSTART_WINDOW_METRIC),
)


def side_by_side(spec: tuple[tuple[str, str], ...]) -> Callable[[dict[str, Record]], str]:
    """A renderer of kernel and simulator side by side, a pair of columns per run, a row per
    (label, metric) of ``spec``."""

    def render(records: dict[str, Record]) -> str:
        # the runs' columns are named by their controllers where each runs one and no two the same,
        # else by the runs' names
        ccs = [{g["cc"] for g in r["testbed_scenario"]["flows"]} for r in records.values()]
        by_cc = all(len(c) == 1 for c in ccs) and len(set().union(*ccs)) == len(ccs)
        label = lambda name, r: cc_of(r) if by_cc else name  # noqa: E731
        head = "| |" + "".join(f" {label(n, r)} testbed | {label(n, r)} simulator |" for n, r in records.items())
        lines = [head, "|---|" + "---|---|" * len(records)]
        for label, metric in spec:
            cells = []
            for rec in records.values():
                row = rows_of(rec).get(metric.format(cc=cc_of(rec)))
                cells += ["-", "-"] if row is None else [row.text(row.testbed), sim_cell(row)]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n\n" + provenance(records)

    return render


# -- one scenario's kernel runs -------------------------------------------------------------------

#: The columns of the kernel-runs table: heading, the value in a ``testbed run``'s summary.json, and
#: the report row of the same metric (``{cc}`` the run's controller), as ``compare`` computes it.
KERNEL_RUN_COLUMNS: tuple[tuple[str, Callable[[Record], Any], str, str], ...] = (
    ("goodput total, Mbit/s", lambda s: sum(f["goodput_mbps"] for f in s["flows"]), "{cc}: goodput total, Mbit/s", "{:.3f}"),
    # a testbed run's flows' RTT mean is the mean of their srtt samples over the window: the row's definition
    ("srtt mean over the samples, ms", lambda s: statistics.fmean(f["rtt_mean_ms"] for f in s["flows"]), SRTT_MEAN_METRIC, "{:.2f}"),
    ("bottleneck utilization", lambda s: s["queues"][0]["utilization"], "bottleneck utilization", "{:.3f}"),
    ("retransmissions", lambda s: sum(f["retransmits"] for f in s["flows"]), "{cc}: retransmissions", "{}"),
    ("retransmission timeouts", lambda s: sum(f["timeouts"] for f in s["flows"]), "{cc}: retransmission timeouts", "{}"),
    ("retransmissions marked lost again", lambda s: s["sender_recovery"]["lost_retransmits"], LOST_RETRANSMITS_METRIC, "{}"),
    ("entries into fast recovery", lambda s: counted(s["sender_recovery"], RECOVERY_COUNTERS), RECOVERIES_METRIC, "{}"),
    ("reductions undone (kernel)", lambda s: counted(s["sender_recovery"], UNDO_COUNTERS), UNDOS_METRIC, "{}"),
)


def kernel_runs(compared: tuple[tuple[str, str], ...], folder: str, runs: int) -> tuple[dict[str, str], Callable[[dict[str, Record]], str]]:
    """A block of several ``pertlab testbed run``s of one scenario, their summary.json committed as
    ``folder``/run-K.json (K from 1 to ``runs``), beside ``testbed compare``s of it (``compared``:
    each one's name and record): a row per kernel run, then the runs' median (least .. most) and
    each comparison's simulator seeds', on the columns of :data:`KERNEL_RUN_COLUMNS`. One kernel
    run is as much chance as one seed; this puts the kernel's spread beside the seeds'."""

    def render(records: dict[str, Record]) -> str:
        summaries = [records[f"run {k}"] for k in range(1, runs + 1)]
        lines = ["| | " + " | ".join(head for head, *_ in KERNEL_RUN_COLUMNS) + " |", "|---|" + "---|" * len(KERNEL_RUN_COLUMNS)]
        for k, summary in enumerate(summaries, 1):
            lines.append(f"| kernel, run {k} | " + " | ".join(fmt.format(value(summary)) for _, value, _, fmt in KERNEL_RUN_COLUMNS) + " |")
        spreads = [Row(head, None, [value(s) for s in summaries], fmt).spread() for head, value, _, fmt in KERNEL_RUN_COLUMNS]
        lines.append(f"| kernel, the {runs} runs | " + " | ".join(spreads) + " |")
        for name, _ in compared:
            rows, cc = rows_of(records[name]), cc_of(records[name])
            first, last = records[name]["sim_seeds"]
            seeded = [sim_cell(rows[metric.format(cc=cc)]) if metric.format(cc=cc) in rows else "-" for _, _, metric, _ in KERNEL_RUN_COLUMNS]
            lines.append(f"| simulator, seeds {first} to {last} (`{name}`) | " + " | ".join(seeded) + " |")
        loads = [x for r in summaries for x in r["load_average"]]
        names = " and ".join(f"`{name}`" for name, _ in compared)
        paths = ", ".join(f"docs/{path}" for _, path in compared)
        return "\n".join(lines) + (
            f"\n\nKernel runs: {runs} of `pertlab testbed run FILE --out DIR`, FILE the scenario {names} compared, on "
            f"{', '.join(sorted({r['date'] for r in summaries}))} (load averages {min(loads):.2f} to {max(loads):.2f}); kernel "
            f"{', '.join(sorted({r['kernel'].split('-')[0] for r in summaries}))}; each run's summary.json committed as docs/{folder}/run-K.json. "
            f"The simulator's seeds are those of {names} ({paths}).\n"
        )

    return dict(compared) | {f"run {k}": f"{folder}/run-{k}.json" for k in range(1, runs + 1)}, render


# -- video ----------------------------------------------------------------------------------------

#: The columns of the video table: heading, and the metric (``{cc}`` the run's controller).
VIDEO_COLUMNS = (
    ("stream goodput, Mbit/s", "video streams: goodput per stream, Mbit/s (mean)"),
    ("late fraction", "video streams: late fraction (worst stream)"),
    ("RTT mean, ms (all flows)", "{cc}: RTT mean, ms"),
)


def on_time(record: Record) -> str:
    """Whether the run's stream was on time (worst late fraction below the success threshold) in
    the kernel, and on how many simulator seeds."""
    late = rows_of(record)["video streams: late fraction (worst stream)"]
    first, last = record["sim_seeds"]
    seeds = sum(x < SUCCESS_LATE_FRACTION for x in late.sim)
    return f"{cc_of(record)}: the kernel's stream {'on time' if late.testbed < SUCCESS_LATE_FRACTION else 'late'}, the simulator's on time on {seeds} of {last - first + 1} seeds ({first} to {last})"


def render_video(records: dict[str, Record]) -> str:
    """A row per stream's controller, each column its testbed / simulator values; then whether
    each stream was on time on each side."""
    lines = [
        "| streams' controller | " + " | ".join(f"{h}, testbed / simulator" for h, _ in VIDEO_COLUMNS) + " |",
        "|---|" + "---|" * len(VIDEO_COLUMNS),
    ]
    for rec in records.values():
        rows = rows_of(rec)
        cells = [f"{r.text(r.testbed)} / {sim_cell(r)}" for r in (rows[m.format(cc=cc_of(rec))] for _, m in VIDEO_COLUMNS)]
        lines.append(f"| {cc_of(rec)} | " + " | ".join(cells) + " |")
    said = f"On time (worst late fraction below {SUCCESS_LATE_FRACTION_TEXT}): " + "; ".join(map(on_time, records.values())) + "."
    return "\n".join(lines) + "\n\n" + said + "\n\n" + provenance(records)


def render_video_noise(records: dict[str, Record]) -> str:
    """A video run whose simulated senders carry the hosts' timing noise: the send overhead, and
    whether the stream was on time on each side, with the late seeds' range; then where HyStart
    ended the flows' slow starts, on the late seeds, the on-time ones and the kernel."""
    lines = []
    for rec in records.values():
        late = [x for x in rows_of(rec)["video streams: late fraction (worst stream)"].sim if x >= SUCCESS_LATE_FRACTION]
        overhead = rec["sim_send_overhead_ns"] / 1e6
        lines.append(
            f"With the simulated senders waiting U(0, {overhead:g} ms) before each send: {on_time(rec)}"
            + (f"; the late seeds' late fraction {min(late):.3f} to {max(late):.3f}" if late else "") + "."
        )  # fmt: skip
        if (exits := hystart_split(rec)) is not None:
            lines.append(exits)
    return "\n\n".join(lines) + "\n\n" + provenance(records)


def hystart_split(record: Record) -> str | None:
    """Where HyStart ended the slow starts (the kernel's namespace counters and its stream's
    TCP_INFO, the simulator's flows table): the flows' mean window at the exits, and the stream's
    own, on the seeds whose stream was late and on those on time, and in the kernel's run; None
    for a run made before compare counted the exits."""
    rows = rows_of(record)
    window = rows.get(HYSTART_WINDOW_METRIC)
    if window is None or window.testbed is None:
        return None
    late_fraction = rows["video streams: late fraction (worst stream)"]
    said, own = [f"the flows' mean window at the exits: {_split(window, late_fraction)}"], ""
    if (stream := rows.get(STREAM_HYSTART_METRIC)) is not None and stream.testbed is not None:
        said.append(f"the stream's own: {_split(stream, late_fraction)}")
        own = f", its stream's own {stream.text(stream.testbed)}"
    exits = "; ".join(f"{rows[HYSTART_EXIT_METRICS[how]].testbed} on {words}" for how, words in HYSTART_EXIT_WORDS.items())
    kernel = "on time" if late_fraction.testbed < SUCCESS_LATE_FRACTION else "late"
    return (
        f"Where HyStart ended the slow starts (Linux's TCPHystart* counters and the stream's TCP_INFO, the simulator's flows table), "
        f"over the simulator's seeds: {'; '.join(said)}. "
        f"The kernel's run: a mean of {window.text(window.testbed)} ({exits}){own}, its stream {kernel}."
    )


def _split(window: Row, late_fraction: Row) -> str:
    """A window row's values on the seeds whose stream was late and on those on time: the bound
    between them when they part, else each side's range (seeds without a value left out)."""
    pairs = [(w, x) for w, x in zip(window.sim, late_fraction.sim) if w is not None]
    late = [w for w, x in pairs if x >= SUCCESS_LATE_FRACTION]
    on_time = [w for w, x in pairs if x < SUCCESS_LATE_FRACTION]
    if late and on_time and max(late) < min(on_time):
        return f"{window.text(max(late))} segments or less wherever the stream was late, {window.text(min(on_time))} or more wherever it was on time"
    span = lambda ws: f"{window.text(min(ws))} to {window.text(max(ws))}" if ws else "no seed"  # noqa: E731
    return f"{span(late)} segments where the stream was late, {span(on_time)} where it was on time"


# -- adaptive PERT: Reno flows join, and leave ---------------------------------------------------

#: The two phases of a run: before the measurement window (the warm-up) and in it.
PHASES = ((True, "before the window"), (False, "in the window"))


def compete(record: Record, before_window: bool) -> list[tuple[float, float]]:
    """Adaptive PERT's seconds in compete mode, and their share of its time in any mode, in one
    phase of a compare run: the kernel's first, then each simulator seed's."""
    rows = rows_of(record)
    times = [rows[mode_metric(m, before_window)] for m in MODES]
    sides = [[r.testbed for r in times]] + [list(seed) for seed in zip(*(r.sim for r in times))]
    c = MODES.index("compete")
    return [(side[c], side[c] / sum(side) if sum(side) > 0 else float("nan")) for side in sides]


def against(kernel: float, seeds: list[float]) -> str:
    """Where the kernel's share lies against the simulator seeds' range, to 0.01."""
    lo, hi = min(seeds), max(seeds)
    if round(lo, 2) <= round(kernel, 2) <= round(hi, 2):
        return "within the seeds' range"
    return f"{kernel - hi:.2f} above the seeds' most ({hi:.2f})" if kernel > hi else f"{lo - kernel:.2f} below the seeds' least ({lo:.2f})"


def render_adaptive_reno(records: dict[str, Record]) -> str:
    """Per run: the kernel, the simulator's first seed and the median (least .. most) over its
    seeds; then where the kernel's share lies against the seeds' range in each phase."""
    lines = [
        "| scenario | side | compete mode before the window, s (share) | in the window, s (share) |",
        "|---|---|---|---|",
    ]
    said = []
    for name, rec in records.items():
        phases = {before: compete(rec, before) for before, _ in PHASES}
        first, last = rec["sim_seeds"]
        cell = lambda v: f"{v[0]:.2f} ({v[1]:.2f})"  # noqa: E731
        lines.append(f"| `{name}` | kernel | {cell(phases[True][0])} | {cell(phases[False][0])} |")
        lines.append(f"| | simulator, seed {first} | {cell(phases[True][1])} | {cell(phases[False][1])} |")
        if last > first:
            median_range = lambda values: Row("", None, values, "{:.2f}").spread()  # noqa: E731
            spread = lambda vs: f"{median_range([v[0] for v in vs])}; share {median_range([v[1] for v in vs])}"  # noqa: E731
            lines.append(f"| | simulator, seeds {first} to {last}: median (least .. most) | {spread(phases[True][1:])} | {spread(phases[False][1:])} |")
        said.append(
            f"`{name}`: the kernel's share "
            + "; ".join(f"{words} {phases[before][0][1]:.2f}, {against(phases[before][0][1], [v[1] for v in phases[before][1:]])}" for before, words in PHASES)
        )  # fmt: skip
    return "\n".join(lines) + "\n\n" + ". ".join(said) + ".\n\n" + provenance(records)


#: Each block: the committed runs it is written from (their report.json under the page's folder,
#: by the name of the example file each ran, examples/testbed/NAME.toml), and its renderer.
BLOCKS: dict[str, tuple[dict[str, str], Callable[[dict[str, Record]], str]]] = {
    "smoke": ({"smoke": "linux/smoke.json"}, side_by_side(SMOKE_ROWS)),
    "mix": ({"mix": "linux/mix.json"}, side_by_side(MIX_ROWS)),
    "ten-flows": ({"ten_flows_reno": "linux/ten_flows_reno.json", "ten_flows_pert": "linux/ten_flows_pert.json"}, side_by_side(TEN_FLOWS_ROWS)),
    "ten-flows-nosack": ({n: f"linux/{n}.json" for n in ("ten_flows_reno", "ten_flows_reno_nosack")}, side_by_side(TEN_FLOWS_ROWS)),
    "random-loss": ({n: f"linux/{n}.json" for n in ("reno_loss", "reno_loss_notlp", "reno_loss_nosack")}, side_by_side(RANDOM_LOSS_ROWS)),
    "random-loss-rack": ({"reno_loss": "linux/reno_loss_rack.json"}, side_by_side(RANDOM_LOSS_RACK_ROWS)),
    "random-loss-frame": ({"reno_loss": "linux/reno_loss_rack_frame.json"}, side_by_side(RANDOM_LOSS_RACK_ROWS)),
    "random-loss-all": ({"reno_loss": "linux/reno_loss_rack_all.json"}, side_by_side(RANDOM_LOSS_RACK_ROWS)),
    "random-loss-kernel-runs": kernel_runs(
        (("reno_loss_rack_frame", "linux/reno_loss_rack_frame.json"), ("reno_loss_rack_all", "linux/reno_loss_rack_all.json")), "linux/reno_loss_runs", 6
    ),
    "step-ecn": ({n: f"linux/{n}.json" for n in ("ten_flows_cubic_step_ecn", "ten_flows_cubic_step_ecn_tso1")}, side_by_side(STEP_ECN_ROWS)),
    "pert-delack": ({n: f"linux/{n}.json" for n in ("ten_flows_pert_delack", "ten_flows_pert_delack_tso1")}, side_by_side(PERT_DELACK_ROWS)),
    "fifty-flows": ({"fifty_flows_pert_adaptive": "linux/fifty_flows_pert_adaptive.json"}, side_by_side(FIFTY_FLOWS_ROWS)),
    "video": ({f"video_{cc}": f"linux/video_compare_{cc}.json" for cc in ("pert", "reno", "cubic")}, render_video),
    "video-noise": ({"video_cubic": "linux/video_compare_cubic_noise.json"}, render_video_noise),
    "adaptive-reno": ({"adaptive_reno_join": "linux/adaptive_reno_join.json", "adaptive_reno_leave": "linux/adaptive_reno_leave.json"}, render_adaptive_reno),
}
