"""Where a video stream's slow start ends, against where its first segment went through the
bottleneck among the other flows' first windows: kernel runs and simulator seeds of one testbed
scenario side by side (docs/linux.md, "Live video", "The first windows decide").

With flows that start together, CUBIC's HyStart ends each slow start at a window set by how
their ACKs interleave, and that interleaving is laid down by the first round: the order in which
the flows' first windows (:func:`pertlab.acks.first_windows`) went through the bottleneck. For a
video stream, whose first window leaves one segment at a time at the video rate, the order comes
down to one number: how many segments of the other flows went ahead of its first one
(``ahead``). This module measures, for each kernel run and each simulator seed, that number and
the window at which HyStart ended each cubic flow's slow start, so that the two sides can be
compared position by position rather than only in their spread of outcomes.

The kernel's runs are ``testbed run`` with ``capture_acks`` (the testbed records the order,
``first_windows`` in its summary), optionally with the senders' ``min_tso_segs`` set (Linux sends
the first TSO chunk of a write at once, the rest of the write later: with chunks of 2 segments a
bulk flow's first 2 segments can go ahead of the stream's first, docs/linux.md). The simulator's
are :func:`.sim_side.sim_scenario`'s runs with the send overhead (``tcp.overhead``) and each
receiver's access link captured. Each side's exit is the window at the flow's one HyStart exit
(the testbed's ``hystart_exit_cwnd``; the simulator's flows table, as ``compare`` reads it).

Leaves out: flows without a video stream (``ahead`` is the stream's), runs with a loss before
HyStart (no exit window), and scenarios with more than one video stream (the first is taken).

``python -m pertlab.linux.first_windows SCENARIO --out FILE`` runs the study (``--help``);
``make docs`` writes the block of docs/linux.md from the committed FILE with :func:`render`.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from .. import acks
from ..units import parse_time
from .compare import single_exit_cwnd
from .sim_side import SimSide, sim_scenario, simulated
from .scenario import LINUX_INIT_CWND, TestbedScenario, load_scenario

__all__ = ["EXIT_TOLERANCE", "ahead_of", "by_ahead", "cut", "disagreements", "kernel_run", "sim_run", "study", "render", "main"]


def ahead_of(order: list[int], flow: int) -> int | None:
    """How many segments of other flows went ahead of ``flow``'s first one in ``order`` (flow ids
    in the order their first windows went through the bottleneck); None if ``flow`` is not there."""
    return order.index(flow) if flow in order else None


def _record(order: list[int], exits: list[float | None], stream: int) -> dict[str, Any]:
    return {"order": acks.order_text(order), "ahead": ahead_of(order, stream), "exits": [None if e is None else round(e, 1) for e in exits]}


def kernel_run(sc: TestbedScenario) -> dict[str, Any] | None:
    """One testbed run of ``sc`` with its receivers captured: the order of the first windows and each
    flow's HyStart exit window (None without one). None when the run was stopped (Ctrl-C, SIGTERM)."""
    from .testbed import run

    try:
        res = run(sc.model_copy(update={"capture_acks": True}))
    except KeyboardInterrupt:  # stopped before the flows started
        return None
    if res.interrupted:
        return None
    exits = res.flows.sort("id")["hystart_exit_cwnd"].to_list()
    return _record(res.extra["first_windows"], exits, _stream(sc))


def sim_run(sc: TestbedScenario, seed: int, send_overhead: str | None) -> dict[str, Any] | None:
    """The simulator's run of ``sc`` with ``seed`` and ``send_overhead``, as ``compare`` runs it with
    ``capture_acks`` (:func:`.sim_side.simulated`): :func:`kernel_run`'s record and the seed (None
    when stopped)."""
    sim = sim_scenario(sc.model_copy(update={"seed": seed}), side=SimSide(send_overhead=send_overhead))
    with tempfile.TemporaryDirectory() as d:
        res, captured = simulated(sim, Path(d), capture_acks=True)
    if captured is None:
        return None
    exits = single_exit_cwnd(res.flows.sort("id")).to_list()
    return _record(captured["first_windows"], exits, _stream(sc)) | {"seed": seed}


def cut(sc: TestbedScenario, duration: int) -> TestbedScenario:
    """``sc`` cut to ``duration`` ns (the slow starts end within the first second), its warm-up at
    most half of that: the scenario of each run of the study."""
    return sc.model_copy(update={"duration": duration, "warmup": min(sc.warmup, duration // 2)})


def _stream(sc: TestbedScenario) -> int:
    """The id of the scenario's first video stream."""
    streams = [fid for fid, g in enumerate(sc.flow_groups()) if g.video is not None]
    if not streams:
        raise ValueError("flows: the study needs a group with a `video` table (the stream whose first segment it places)")
    return streams[0]


def study(sc: TestbedScenario, runs: int, tso: list[int | None], sim_seeds: int, send_overhead: str | None, out: Path, progress=print) -> dict[str, Any]:
    """``runs`` kernel runs of ``sc`` for each ``min_tso_segs`` in ``tso`` (None: the kernel's), then
    the simulator's seeds 1 to ``sim_seeds``: the data :func:`render` writes from, written to ``out``
    after every run, so that a study stopped midway (Ctrl-C, SIGTERM: ``interrupted`` in the data)
    keeps what it measured."""
    data = {
        "scenario": sc.name, "duration_s": sc.duration / 1e9, "stream": _stream(sc), "init_cwnd": sc.init_cwnd or LINUX_INIT_CWND,
        "date": datetime.date.today().isoformat(), "kernel": platform.release(), "load": os.getloadavg(),
        "sim_send_overhead": send_overhead, "kernel_runs": {"default" if t is None else str(t): [] for t in tso}, "sim_seeds": [],
    }  # fmt: skip
    todo = [(f"kernel, min_tso_segs {key}, run {i + 1}", data["kernel_runs"][key], lambda t=t: kernel_run(sc.model_copy(update={"min_tso_segs": t})))
            for t, key in zip(tso, data["kernel_runs"]) for i in range(runs)]  # fmt: skip
    todo += [(f"simulator seed {seed}", data["sim_seeds"], lambda seed=seed: sim_run(sc, seed, send_overhead)) for seed in range(1, sim_seeds + 1)]
    for what, into, measure in todo:
        try:
            record = measure()
        except KeyboardInterrupt:  # between a run's end and its record (reading a capture)
            record = None
        if record is None:
            data["interrupted"] = what
            progress(f"{what}: stopped; {out} keeps the runs before it")
            break
        into.append(record)
        out.write_text(json.dumps(data, indent=1) + "\n")
        progress(f"{what}: {record}")
    out.write_text(json.dumps(data, indent=1) + "\n")
    return data


def _exit_words(windows: list[float]) -> str:
    """Exit windows and how many runs ended there: "88 (5), 145 (2)"."""
    return ", ".join(f"{w:g} ({n})" for w, n in sorted(Counter(windows).items()))


def by_ahead(records: list[dict[str, Any]], stream: int) -> dict[int, list[float]]:
    """The ``stream``'s exit windows of ``records`` by their position (:func:`ahead_of`); records
    without a position or an exit left out."""
    out: dict[int, list[float]] = {}
    for r in records:
        if r["ahead"] is not None and r["exits"][stream] is not None:
            out.setdefault(r["ahead"], []).append(r["exits"][stream])
    return out


#: A kernel run's exit agrees with the simulator's at its position when within this many segments
#: of one the simulator gave there (Linux's and the simulator's ACK-train exits differ by a segment
#: or two with the ACKs' timing, 137 and 138 on the same combination).
EXIT_TOLERANCE = 3


def disagreements(kernel: dict[int, list[float]], sim: dict[int, list[float]]) -> dict[int, list[float]]:
    """By position (:func:`ahead_of`) reached on both sides, the kernel's exits farther than
    :data:`EXIT_TOLERANCE` from every exit the simulator gave there (empty lists left out)."""
    out = {a: [w for w in ws if all(abs(w - v) > EXIT_TOLERANCE for v in sim[a])] for a, ws in kernel.items() if a in sim}
    return {a: ws for a, ws in out.items() if ws}


def _agreement(kernel: dict[int, list[float]], sim: dict[int, list[float]]) -> str:
    """Whether a kernel side's exits (:func:`by_ahead`) are the simulator's at the positions both
    reached, and the kernel's positions the simulator never reached."""
    shared = sorted(a for a in kernel if a in sim)
    off = disagreements(kernel, sim)
    verdict = "every run's exit lies" if not off else "every run's exit but " + ", ".join(f"{w:g} at {a}" for a, ws in off.items() for w in ws) + " lies"
    agree = (f"at the positions the simulator reached too ({', '.join(map(str, shared))} segments ahead), {verdict} within {EXIT_TOLERANCE} segments of an exit the simulator gave there."
             if shared else "the simulator reached none of its positions.")  # fmt: skip
    alone = sorted((a, ws) for a, ws in kernel.items() if a not in sim)
    return agree + ("" if not alone else " The simulator never reached " + ", ".join(f"{a} (the kernel's exits {_exit_words(ws)})" for a, ws in alone) + ".")


def render(data: dict[str, Any], data_link: str | None = None) -> str:
    """The block of docs/linux.md: for each number of segments ahead of the stream's first, the
    runs on each side and the windows at which the stream's slow start ended; ``data_link`` the
    link to the study's data the block ends with."""
    s = data["stream"]
    kernel = {f"kernel (min_tso_segs {k})" if k != "default" else "kernel": by_ahead(v, s) for k, v in data["kernel_runs"].items()}
    sim = by_ahead(data["sim_seeds"], s)
    sides = kernel | {f"simulator (seeds 1 to {len(data['sim_seeds'])})": sim}
    head = "| segments ahead of the stream's first | " + " | ".join(f"{name}: runs, the stream's exit window (runs)" for name in sides) + " |"
    lines = [head, "|" + "---|" * (len(sides) + 1)]
    for a in sorted({a for side in sides.values() for a in side}):
        cells = [f"{len(side[a])}: {_exit_words(side[a])}" if a in side else "-" for side in sides.values()]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    for name, side in kernel.items():
        lines += ["", f"{name}: {_agreement(side, sim)}"]
    inside = range(1, data["init_cwnd"])
    counts = [f"{name} {sum(len(side.get(a, [])) for a in inside)} of {sum(map(len, side.values()))}" for name, side in sides.items()]
    runs = {k: len(v) for k, v in data["kernel_runs"].items()}
    lines += [
        "",
        f"The stream's first segment inside another flow's first window (1 to {data['init_cwnd'] - 1} segments ahead): {'; '.join(counts)} runs.",
        "",
        f"`{data['scenario']}` cut to {data['duration_s']:g} s, {data['init_cwnd']} segments of initial window; kernel runs on {data['date']} "
        f"(kernel {data['kernel']}; {', '.join(f'{n} with min_tso_segs {k}' for k, n in runs.items())}), "
        + (f"the simulator with `tcp.overhead` {data['sim_send_overhead']}. " if data["sim_send_overhead"] else "the simulator without send overhead. ")
        + "`python -m pertlab.linux.first_windows` wrote " + (f"[its data]({data_link})." if data_link else "its data.")
        + (f" Stopped at: {data['interrupted']}." if "interrupted" in data else ""),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m pertlab.linux.first_windows", description=__doc__.split("\n\n")[0])
    p.add_argument("scenario", type=Path, help="testbed scenario (.toml) with a video group")
    p.add_argument("--out", type=Path, required=True, help="the study's JSON")
    p.add_argument("--duration", default="3s", help="each run's duration (the slow starts end in the first second); default 3s")
    p.add_argument("--runs", type=int, default=10, help="kernel runs per min_tso_segs value; default 10")
    p.add_argument("--min-tso-segs", default="default", help="comma-separated: 'default' (the kernel's) or values 1 to 255; default 'default'")
    p.add_argument("--sim-seeds", type=int, default=100, help="simulator seeds 1 to N; default 100")
    p.add_argument("--sim-send-overhead", default="0.8ms", help="the simulated senders' send overhead (tcp.overhead), or 'none'; default 0.8ms")
    a = p.parse_args(argv)
    if a.runs < 0 or a.sim_seeds < 0:
        p.error(f"--runs and --sim-seeds must be 0 or more; got {a.runs} and {a.sim_seeds}")
    try:
        if (duration := parse_time(a.duration, "--duration")) <= 0:
            p.error(f"--duration: must be more than 0; got {a.duration!r}")
        sc = cut(load_scenario(a.scenario), duration)
        _stream(sc)
    except (OSError, ValueError) as e:
        p.error(str(e))
    try:
        tso = [None if t == "default" else int(t) for t in a.min_tso_segs.split(",")]
    except ValueError:
        p.error(f"--min-tso-segs: 'default' or integers 1 to 255, comma-separated; got {a.min_tso_segs!r}")
    if any(t is not None and not 1 <= t <= 255 for t in tso):
        p.error(f"--min-tso-segs: each value must lie in [1, 255] (net.ipv4.tcp_min_tso_segs); got {a.min_tso_segs!r}")
    data = study(sc, a.runs, tso, a.sim_seeds, None if a.sim_send_overhead == "none" else a.sim_send_overhead, a.out, progress=lambda m: print(m, file=sys.stderr))
    print(render(data, str(a.out)))
    return 130 if "interrupted" in data else 0


if __name__ == "__main__":
    raise SystemExit(main())
