"""``pertlab validate kernel``: pertlab beside the Linux kernel, through ``testbed compare``.

Each case is a namespace-testbed scenario (docs/linux.md: kernel reno and cubic, the eBPF
PERT, a bfifo bottleneck: the queue disciplines the testbed sets up) run by
:func:`pertlab.linux.compare.compare`, which runs the same dumbbell in the simulator and
writes both result sets; the metrics of :mod:`.tolerance` are read back from them and
judged as ``validate ns3`` judges ns-3's (:mod:`.compare`). Cases run one after another
(the testbed's namespaces have fixed names); each finished case is kept in
``OUT/runs/NAME.json`` under a key of the case and of the code, so a rerun resumes.

Needs root, TUN and, for PERT, a kernel with BPF struct_ops (``testbed.support_problem``).
Left out: RED, CoDel and PIE qdiscs (the testbed sets up only bfifo/pfifo), ECN.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..parallel import code_fingerprint
from ..results import Results
from .cases import Explained
from .compare import CaseResult, spread

__all__ = ["KernelCase", "FULL", "QUICK", "run_kernel"]


@dataclass(frozen=True)
class KernelCase:
    """A testbed scenario (its TOML form as JSON text) and the differences docs/validation.md explains."""

    name: str
    what: str
    scenario: str
    explained: tuple[Explained, ...] = ()


def kcase(name: str, what: str, explained: tuple[Explained, ...] = (), **scenario: Any) -> KernelCase:
    return KernelCase(name, what, json.dumps({"name": name, **scenario}, sort_keys=True), explained)


#: Issue 5's network (docs/linux.md): 10 Mbit/s, 40 ms, a one-BDP bfifo, 60 s from 10 s on.
NET = {"duration": "60s", "warmup": "10s", "sample_interval": "100ms", "bottleneck": {"rate": "10Mbps", "delay": "40ms", "buffer": "50KB"}}
#: Identical flows lose in lock-step in the simulator, not in the kernel (docs/validation.md, "End-host timing").
LOCKSTEP = (Explained("drop_rate", "lower", "end-host-timing"),)

FULL: tuple[KernelCase, ...] = (
    kcase("reno-10", "10 kernel reno flows", **NET, flows=[{"cc": "reno", "count": 10}]),
    kcase("cubic-10", "10 kernel cubic flows", **NET, flows=[{"cc": "cubic", "count": 10}]),
    kcase("pert-10", "10 eBPF PERT flows", **NET, flows=[{"cc": "pert", "count": 10}]),
    kcase("pert-reno", "3 PERT and 3 reno flows", **NET, flows=[{"cc": "pert", "count": 3}, {"cc": "reno", "count": 3}]),
    kcase(
        "reno-5mbps", "10 reno flows, 5 Mbit/s, 25 KB", LOCKSTEP,
        **{**NET, "bottleneck": {"rate": "5Mbps", "delay": "40ms", "buffer": "25KB"}}, flows=[{"cc": "reno", "count": 10}],
    ),  # fmt: skip
)
#: One short case for the test suite.
QUICK: tuple[KernelCase, ...] = (
    kcase("reno-5mbps", "10 reno flows, 5 Mbit/s, 25 KB, 30 s", LOCKSTEP, **{**NET, "duration": "30s", "warmup": "5s",
          "bottleneck": {"rate": "5Mbps", "delay": "40ms", "buffer": "25KB"}}, flows=[{"cc": "reno", "count": 10}]),
)  # fmt: skip


def _metrics(queue: dict[str, Any], goodputs: Any) -> dict[str, float]:
    jain, cov = spread(goodputs)
    return {"avg_queue_pkts": queue["avg_queue_pkts"], "drop_rate": queue["drop_rate"], "mark_rate": queue.get("mark_rate") or 0.0,
            "utilization": queue["utilization"], "jain": jain, "goodput_cov": cov}  # fmt: skip


def _series(fs: pl.DataFrame) -> list[tuple[float, float]]:
    first = fs.filter(pl.col("flow") == fs["flow"].min()) if fs.height else fs
    return list(zip(first["t_s"].to_list(), first["cwnd"].to_list()))


def run_case(c: KernelCase, out: Path) -> CaseResult:
    """Run ``c`` through ``testbed compare`` into ``out/NAME`` and read both sides back."""
    from ..linux.compare import compare
    from ..linux.scenario import TestbedScenario

    folder = out / c.name
    compare(TestbedScenario.parse(json.loads(c.scenario)), folder)
    sim = Results.read(folder / "sim")
    real = {name: pl.read_parquet(folder / "testbed" / f"{name}.parquet") for name in ("flows", "queues", "flow_series")}
    ours = _metrics(sim.bottleneck, sim.flows["goodput_mbps"].to_numpy())
    theirs = _metrics(real["queues"].to_dicts()[0], real["flows"]["goodput_mbps"].to_numpy())
    cwnd = {"pertlab": _series(sim.flow_series), "reference": _series(real["flow_series"])}
    return CaseResult(c, ours, theirs, None, cwnd, {})


def run_kernel(quick: bool, out: Path) -> list[CaseResult]:
    """Every case of the quick or full list, kept in ``out/runs`` and resumed from there."""
    results = []
    for c in QUICK if quick else FULL:
        key = hashlib.sha256(f"{c}{code_fingerprint()}".encode()).hexdigest()[:20]
        stored = out / "runs" / f"{c.name}.json"
        if stored.is_file() and json.loads(stored.read_text())["key"] == key:
            d = json.loads(stored.read_text())
            results.append(CaseResult(c, d["pertlab"], d["reference"], None, {k: [tuple(x) for x in v] for k, v in d["cwnd"].items()}, {}))
            continue
        r = run_case(c, out)
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_text(json.dumps({"key": key, "pertlab": r.pertlab, "reference": r.reference, "cwnd": r.cwnd}))
        results.append(r)
    return results
