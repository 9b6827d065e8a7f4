"""``pertlab validate kernel``: pertlab beside the Linux kernel, through ``testbed compare``.

Each case is a namespace-testbed scenario (docs/linux.md: kernel reno and cubic, the eBPF
PERT, a bfifo bottleneck: the queue disciplines the testbed sets up, with or without its step
ECN marker) run by
:func:`pertlab.linux.compare.compare`, which runs the same dumbbell in the simulator and
writes both result sets; the metrics of :mod:`.tolerance` are taken from them and judged
as ``validate ns3`` judges ns-3's (:mod:`.compare`). Cases run one after another: two
testbeds at once would compete for the CPU that runs their senders and delay lines, and so
disturb each other's timing. A case of several seeds (``KernelCase.seeds``) runs each seed on
both sides and is judged on the means, as ``validate ns3`` judges its. Each finished run is kept
in ``OUT/runs/NAME.json`` (``NAME-seed-K.json`` for a case of several seeds) under a key of the
run and of the code, so a rerun resumes; a run whose simulation or testbed run was interrupted is
not kept (:func:`run_case` raises ``KeyboardInterrupt``).

Needs root, TUN and, for PERT, a kernel with BPF struct_ops (``testbed.support_problem``).
Left out: RED, CoDel and PIE qdiscs (the testbed sets up only bfifo/pfifo and step marking).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import polars as pl

from ..parallel import code_fingerprint, write_atomically
from ..results import Results
from .cases import Explained, explained
from .compare import CaseResult, metrics, pertlab_metrics

__all__ = ["KernelCase", "FULL", "QUICK", "cases", "needs_pert", "runs_of", "run_kernel"]


@dataclass(frozen=True)
class KernelCase:
    """A testbed scenario (its TOML form as JSON text) and the differences docs/validation.md explains."""

    name: str
    what: str
    scenario: str
    explained: tuple[Explained, ...] = ()
    #: Runs on each side: with more than one, seeds 1..``seeds``, each one kernel run and one
    #: simulator run of the scenario with that ``seed`` (which seeds the testbed's delay line and
    #: the simulator; the kernel's own draws, the eBPF PERT's among them, are not seeded), and the
    #: case is judged on each metric's mean: for a case whose outcome one run of each does not
    #: measure (docs/validation.md, "pert-reno").
    seeds: int = 1


def kcase(name: str, what: str, explained: tuple[Explained, ...] = (), seeds: int = 1, **scenario: Any) -> KernelCase:
    return KernelCase(name, what, json.dumps({"name": name, **scenario}, sort_keys=True), explained, seeds)


#: Issue 5's network (docs/linux.md): 10 Mbit/s, 40 ms, a one-BDP bfifo, 60 s from 10 s on. Both
#: sides start with 2 segments (the simulator's default): with the kernel's own 10, ten first
#: windows into the buffer locked flows out past the warm-up (docs/validation.md, "Start-up lockout").
NET = {"duration": "60s", "warmup": "10s", "sample_interval": "100ms", "init_cwnd": 2, "bottleneck": {"rate": "10Mbps", "delay": "40ms", "buffer": "50KB"}}
#: Identical flows lose in lock-step in the simulator, not in the kernel (docs/validation.md, "End-host timing").
LOCKSTEP = explained("end-host-timing", drop_rate="lower")

FULL: tuple[KernelCase, ...] = (
    kcase("reno-10", "10 kernel reno flows", **NET, flows=[{"cc": "reno", "count": 10}]),
    kcase("cubic-10", "10 kernel cubic flows", **NET, flows=[{"cc": "cubic", "count": 10}]),
    kcase("pert-10", "10 eBPF PERT flows", **NET, flows=[{"cc": "pert", "count": 10}]),
    # Which flows PERT's random early responses hold back is chance on both sides: four runs each.
    kcase("pert-reno", "3 PERT and 3 reno flows, 4 seeds", seeds=4, **NET, flows=[{"cc": "pert", "count": 3}, {"cc": "reno", "count": 3}]),
    # Linux's delayed ACKs against the simulator's Linux rules (ack_policy = "linux"), their
    # ACKs counted from captures (the case's report.md, receivers: rows). PERT behind delayed ACKs
    # is docs/linux.md's "Ten PERT flows behind delayed ACKs".
    kcase("reno-10-delack", "10 kernel reno flows behind delayed ACKs", **NET, delayed_ack=True, capture_acks=True, flows=[{"cc": "reno", "count": 10}]),
    # Step ECN marking from 10 queued frames (bottleneck.step_k: the testbed's BPF marker, the
    # simulator's step queue), ECN at every host: docs/linux.md, "ECN at the bottleneck".
    kcase("cubic-10-ecn", "10 kernel cubic flows, step ECN marking from 10 frames", **{**NET, "bottleneck": {**NET["bottleneck"], "step_k": 10}}, flows=[{"cc": "cubic", "count": 10}]),
    kcase(
        "reno-5mbps", "10 reno flows, 5 Mbit/s, 25 KB", LOCKSTEP,
        **{**NET, "bottleneck": {"rate": "5Mbps", "delay": "40ms", "buffer": "25KB"}}, flows=[{"cc": "reno", "count": 10}],
    ),  # fmt: skip
)


def _shortened(c: KernelCase, duration: str, warmup: str, what: str) -> KernelCase:
    """``c`` with another duration and warm-up (``what`` is added to its description)."""
    scenario = {**json.loads(c.scenario), "duration": duration, "warmup": warmup}
    return replace(c, what=f"{c.what}, {what}", scenario=json.dumps(scenario, sort_keys=True))


#: One short case for the test suite: FULL's reno-5mbps for 30 s.
QUICK: tuple[KernelCase, ...] = tuple(_shortened(c, "30s", "5s", "30 s") for c in FULL if c.name == "reno-5mbps")


def cases(quick: bool) -> tuple[KernelCase, ...]:
    return QUICK if quick else FULL


def needs_pert(kernel_cases: tuple[KernelCase, ...]) -> bool:
    """Whether a case has eBPF PERT flows (the host then needs BPF struct_ops)."""
    from ..linux.scenario import TestbedScenario

    return any(TestbedScenario.parse(json.loads(c.scenario)).needs_pert for c in kernel_cases)


def _series(fs: pl.DataFrame) -> list[tuple[float, float]]:
    first = fs.filter(pl.col("flow") == fs["flow"].min()) if fs.height else fs
    return list(zip(first["t_s"].to_list(), first["cwnd"].to_list()))


def runs_of(c: KernelCase) -> list[tuple[str, KernelCase]]:
    """The runs of ``c``: the name of each (its folder under OUT, and its kept file's under
    OUT/runs) and the case it runs, with its seed when ``c`` has several."""
    if c.seeds == 1:
        return [(c.name, c)]
    return [(f"{c.name}-seed-{seed}", replace(c, scenario=json.dumps({**json.loads(c.scenario), "seed": seed}, sort_keys=True))) for seed in range(1, c.seeds + 1)]


def run_case(c: KernelCase, folder: Path) -> dict[str, Any]:
    """Run ``c`` through ``testbed compare`` into ``folder``: both sides' metrics and flow 0's
    cwnd series. The simulator's side is read back from what that call wrote, the testbed's is the
    one it returns. Raises ``KeyboardInterrupt`` when either run was interrupted, so that no
    partial run is kept."""
    from ..linux.compare import compare
    from ..linux.scenario import TestbedScenario
    from ..linux.sim_side import LINUX_SIDE

    # The simulator's side as `testbed compare` takes it by default (RACK, htb's frame
    # ahead); test_validate_kernel_sim.py reruns it against the committed kernel values.
    _, real = compare(TestbedScenario.parse(json.loads(c.scenario)), folder, side=LINUX_SIDE)
    if real is None or real.interrupted:
        raise KeyboardInterrupt
    sim = Results.read(folder / "sim")
    ours = pertlab_metrics(sim)
    theirs = metrics(real.queues.to_dicts()[0], real.flows["goodput_mbps"].to_numpy())
    return {"pertlab": ours, "reference": theirs, "cwnd": {"pertlab": _series(sim.flow_series), "reference": _series(real.flow_series)}}


def _stored(path: Path) -> dict[str, Any] | None:
    """The kept case in ``path``, or None when there is none (or only a truncated one, which
    runs written before ``write_atomically`` could leave, or anything but an object)."""
    try:
        kept = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    return kept if isinstance(kept, dict) else None


def _kept_or_run(name: str, c: KernelCase, out: Path) -> dict[str, Any]:
    """The run ``name`` of :func:`runs_of`: read back from OUT/runs when kept under this run's and
    this code's key, else run into ``out/name`` and kept."""
    key = hashlib.sha256(f"{c}{code_fingerprint()}".encode()).hexdigest()[:20]
    stored = out / "runs" / f"{name}.json"
    d = _stored(stored)
    if d is not None and d.get("key") == key:
        return d
    r = run_case(c, out / name)
    write_atomically(stored, json.dumps({"key": key, **r}).encode())
    return r


def run_kernel(quick: bool, out: Path, kernel_cases: tuple[KernelCase, ...] | None = None) -> list[CaseResult]:
    """Every case of the quick or full list (or ``kernel_cases``), each run kept in ``out/runs``
    and resumed from there; a case of several seeds has the means of its runs' metrics and its
    first run's cwnd series."""
    results = []
    for c in cases(quick) if kernel_cases is None else kernel_cases:
        runs = [_kept_or_run(name, run, out) for name, run in runs_of(c)]
        cwnd = {k: [tuple(x) for x in v] for k, v in runs[0]["cwnd"].items()}
        results.append(CaseResult.of_seeds(c, [r["pertlab"] for r in runs], [r["reference"] for r in runs], None, cwnd, {}))
    return results
