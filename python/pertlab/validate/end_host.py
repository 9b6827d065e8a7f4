"""docs/validation.md's "End-host timing" table, measured from a ``pertlab validate kernel`` run.

Identical simulated flows on deterministic links lose in lock-step (Floyd and Jacobson 1992);
the kernel's flows, whose hosts' timing is noisy, do not, and lose more. For the cases
:data:`CASES` this puts the kernel's run and the simulator's (both from the validate run's
folders, the first seed's of a case of several) beside the simulator's scenario rerun with ns-2's
send overhead (``tcp.overhead``, a sender waits U(0, overhead) before sending) of
:data:`OVERHEADS_MS` on every flow, and says how much of the gap in drops each closes.

``python -m pertlab.validate.end_host OUT [JSON]`` measures from the validate run in ``OUT`` and
writes ``JSON`` (default ``docs/validation/kernel/end_host_timing.json``); ``make docs`` writes the
table from it (:func:`render`, through :mod:`.doc`). Left out: several kernel runs per case (the
drop count of one 60 s kernel run varies by a few per cent between runs).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import polars as pl

from .._core import jain_index
from ..linux.sim_side import SIM_CC
from ..results import Results
from ..scenario import Scenario
from .kernel import FULL, runs_of
from .tolerance import TOLERANCES

__all__ = ["CASES", "OVERHEADS_MS", "measure", "render", "main"]

#: The validate kernel cases of the table: identical reno flows, and PERT beside reno.
CASES = ("reno-5mbps", "pert-reno")
#: The send overheads of the simulator's extra columns, in ms.
OVERHEADS_MS = (1, 5)


#: The simulator's controller of each kernel one, the other way round (``testbed compare``'s map).
KERNEL_CC = {sim: kernel for kernel, sim in SIM_CC.items()}


def _per_flow(flows: pl.DataFrame, column: str, cc: str) -> list[int]:
    """``column`` of each flow of controller ``cc``, least first."""
    return sorted(int(x) for x in flows.filter(pl.col("cc") == cc)[column].to_list())


def _column(queue: dict[str, Any], flows: pl.DataFrame, jain: float, simulated: bool) -> dict[str, Any]:
    """One column of the table: the bottleneck's drops, queue and Jain's index, and each kernel
    controller's flows' retransmissions (and, in the simulator, their loss responses: fast
    recoveries and timeouts), the simulator's flows under the kernel controller they stand for."""
    if simulated:
        flows = flows.with_columns(pl.col("cc").replace(KERNEL_CC))
    kinds = sorted(set(flows["cc"].to_list()))
    col: dict[str, Any] = {
        "drops": int(queue["drops"]), "drop_rate": float(queue["drop_rate"]),
        "avg_queue_pkts": float(queue["avg_queue_pkts"]), "jain": float(jain),
        "retransmits": {cc: _per_flow(flows, "retransmits", cc) for cc in kinds},
    }  # fmt: skip
    if simulated:
        col["fast_recoveries"] = {cc: _per_flow(flows, "fast_recoveries", cc) for cc in kinds}
        col["timeouts"] = {cc: _per_flow(flows, "timeouts", cc) for cc in kinds}
    return col


def measure(out: Path) -> dict[str, Any]:
    """The table's data from the validate kernel run in ``out``, for each case of :data:`CASES`
    it holds: the kernel's column, the simulator's, and the simulator's with each send overhead."""
    from ..runner import run

    data: dict[str, Any] = {"overheads_ms": list(OVERHEADS_MS), "cases": {}}
    for case in (next(c for c in FULL if c.name == name) for name in CASES):
        folder = out / runs_of(case)[0][0]
        if not (folder / "testbed").is_dir():
            continue
        real_flows = pl.read_parquet(folder / "testbed" / "flows.parquet")
        real_queue = pl.read_parquet(folder / "testbed" / "queues.parquet").to_dicts()[0]
        sim = Results.read(folder / "sim")
        scenario = Scenario.from_json((folder / "sim" / "scenario.json").read_text())
        columns = {
            "testbed": _column(real_queue, real_flows, jain_index(real_flows["goodput_mbps"].to_list()), simulated=False),
            "simulator": _column(sim.bottleneck, sim.flows, sim.jain, simulated=True),
        }
        for ms in OVERHEADS_MS:
            flows = [f.model_copy(update={"tcp": f.tcp.model_copy(update={"overhead": ms * 1_000_000})}) for f in scenario.flows]
            res = run(scenario.model_copy(update={"flows": flows}))
            columns[f"overhead_{ms}ms"] = _column(res.bottleneck, res.flows, res.jain, simulated=True)
        data["cases"][case.name] = {"what": case.what, "seed_folder": folder.name, "columns": columns}
    return data


def _range(values: list[int]) -> str:
    return f"{values[0]}" if values[0] == values[-1] else f"{values[0]}-{values[-1]}"


def _responses(col: dict[str, Any], label: str) -> str:
    """A simulated column's loss responses per flow: fast recoveries, plus timeouts if any."""
    fr, to = col["fast_recoveries"][label], col["timeouts"][label]
    return _range(fr) + (f" + {_range(to)} timeouts" if to[-1] > 0 else "")


def _closed(case: dict[str, Any], overheads_ms: list[int]) -> str:
    """How much of the simulator's gap in drops to the kernel each send overhead closes; none
    when the two drop rates differ by no more than ``drop_rate``'s absolute tolerance (the
    validation's, :mod:`.tolerance`: too little to call a gap). A gap within the relative
    tolerance is still a gap, said as such: lock-step's is about that size. An overhead that
    carries the simulator's drops past the kernel's (more than all of the gap) says so."""
    cols = case["columns"]
    real, sim = cols["testbed"], cols["simulator"]
    tolerance = TOLERANCES["drop_rate"]
    if abs(sim["drop_rate"] - real["drop_rate"]) <= tolerance.absolute:
        return f"the simulator's drops agree with the kernel's ({sim['drops']} against {real['drops']}, drop rates within {tolerance.absolute:.1%}), no gap to close".replace("%", " %")
    gap = real["drops"] - sim["drops"]

    def one(ms: int) -> str:
        drops = cols[f"overhead_{ms}ms"]["drops"]
        share = (drops - sim["drops"]) / gap
        past = f" (past the kernel's: {drops} drops)" if share > 1 else ""
        return f"{ms} ms {share:.0%}".replace("%", " %") + past

    closed = ", ".join(one(ms) for ms in overheads_ms)
    within = ", a gap within `drop_rate`'s tolerance" if tolerance.agrees(sim["drop_rate"], real["drop_rate"]) else ""
    return f"of the gap in drops ({sim['drops']} against the kernel's {real['drops']}{within}), the send overhead closes {closed}"


def _percent(x: float) -> str:
    return f"{x:.1%}".replace("%", " %")


def render(data: dict[str, Any]) -> str:
    """The table (one block of rows per case) and, per case, how much of the gap in drops each
    send overhead closes."""
    keys = ["testbed", "simulator", *(f"overhead_{ms}ms" for ms in data["overheads_ms"])]
    head = ["", "testbed (Linux)", "simulator", *(f"simulator, `overhead` {ms} ms" for ms in data["overheads_ms"])]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    closing = []
    for name, case in data["cases"].items():
        cols = [case["columns"][k] for k in keys]
        run = f", its run `{case['seed_folder']}`" if case["seed_folder"] != name else ""
        lines.append(f"| `{name}` ({case['what']}{run}): drops | " + " | ".join(f"{c['drops']} ({_percent(c['drop_rate'])})" for c in cols) + " |")
        for cc in sorted(cols[0]["retransmits"]):
            lines.append(f"| same: {cc} retransmissions per flow | " + " | ".join(_range(c["retransmits"][cc]) for c in cols) + " |")
            lines.append(f"| same: {cc} loss responses per flow (fast recoveries + timeouts) | - | " + " | ".join(_responses(c, cc) for c in cols[1:]) + " |")
        lines.append("| same: average queue (packets), Jain | " + " | ".join(f"{c['avg_queue_pkts']:.1f}, {c['jain']:.3f}" for c in cols) + " |")
        closing.append(f"`{name}`: {_closed(case, data['overheads_ms'])}")
    return "\n".join([*lines, "", *(f"{c}." for c in closing)]) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m pertlab.validate.end_host OUT [JSON]", file=sys.stderr)
        return 2
    target = Path(args[1] if len(args) > 1 else "docs/validation/kernel/end_host_timing.json")
    data = measure(Path(args[0]))
    if not data["cases"]:
        print(f"{args[0]}: no case of {', '.join(CASES)} with its testbed tables", file=sys.stderr)
        return 1
    target.write_text(json.dumps(data, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
