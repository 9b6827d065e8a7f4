"""The committed ``testbed compare`` runs made before the simulator's Linux side was the default,
their simulator side taken again as ``testbed compare`` now sets it up (:data:`.sim_side.LINUX_SIDE`:
RACK, htb's frame ahead; docs/linux.md, "testbed compare"), beside each run's kernel values.

It answers one question with data: does the new default bring the simulator closer to the kernel?
For each such run, at the run's own seeds, it takes the bottleneck's rows every report has
(:data:`.compare.BOTTLENECK_ROWS`: utilization, average queue, drops, drop rate; the same
definitions as the report's) with the Linux side, and keeps them beside the run's committed
kernel and simulator values. The kernel runs are not taken again: the kernel's side of a run does
not depend on the simulator's.

``python -m pertlab.linux.linux_side docs/linux/linux_side.json`` writes the study (about a
minute); ``make docs`` renders its block in docs/linux.md (:func:`render`), and
tests/python/test_linux_doc.py checks that a run of it reproduces and that the prose holds.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

from .compare import BOTTLENECK_ROWS
from .compare_doc import BLOCKS, Record, bottleneck_values, rows_of, side_flags
from .sim_side import LINUX_SIDE, SimSide

#: The study's rows: the bottleneck's metrics it compares (drops are the drop rate's numerator).
METRICS = tuple((name, key, fmt) for name, key, fmt in BOTTLENECK_ROWS if key != "drops")


def committed_runs(page_dir: Path) -> dict[str, Record]:
    """Every committed compare run behind a block of docs/linux.md (not the plain kernel runs some
    blocks read), by its file's stem, whose simulator side is not the Linux side
    (:func:`.compare_doc.side_flags` names an option)."""
    paths = {path for data, _ in BLOCKS.values() for path in data.values()}
    records = {Path(p).stem: json.loads((page_dir / p).read_text()) for p in sorted(paths)}
    return {name: rec for name, rec in records.items() if "rows" in rec and side_flags(rec)}


#: The Linux side's two parts alone, to tell which moves a metric: RACK, and htb's frame ahead.
PARTS = {"rack_alone": SimSide(rack=True), "frame_ahead_alone": SimSide(frame_ahead=True)}


def study_run(record: Record) -> dict[str, Any]:
    """One run's entry: its options, and per metric the kernel's value, the committed simulator
    seeds', the Linux side's and each of its :data:`PARTS`' alone."""
    rows = rows_of(record)
    sides = {"linux_side": bottleneck_values(record, LINUX_SIDE)} | {part: bottleneck_values(record, side) for part, side in PARTS.items()}
    return {
        "options": side_flags(record),
        "sim_seeds": record["sim_seeds"],
        "metrics": {
            name: {"kernel": rows[name].testbed, "committed": rows[name].sim} | {side: values[name] for side, values in sides.items()}
            for name, _, _ in METRICS
        },
    }


def study(page_dir: Path) -> dict[str, Any]:
    """The whole study, every committed run :func:`committed_runs` finds."""
    return {"linux_side": {"rack": LINUX_SIDE.rack, "frame_ahead": LINUX_SIDE.frame_ahead}, "runs": {n: study_run(r) for n, r in committed_runs(page_dir).items()}}


#: Each metric's format in the table (:data:`METRICS`).
FORMATS = {name: fmt for name, _, fmt in METRICS}


def shown(value: float, metric: str) -> float:
    """``value`` as the table shows it (rounded to its format)."""
    return float(FORMATS[metric].format(value))


def median_of(entry: dict[str, Any], side: str, metric: str) -> float:
    """The median of ``side``'s seeds as the table shows it."""
    return shown(statistics.median(entry[side]), metric)


def tally(data: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Per metric, in how many runs the Linux side's median lies closer to the kernel's value than
    the committed seeds' median (``closer``), farther, or as far (``same``), all as the table shows them."""
    out = {name: {"closer": 0, "farther": 0, "same": 0} for name in FORMATS}
    for run in data["runs"].values():
        for name, entry in run["metrics"].items():
            kernel = shown(entry["kernel"], name)
            then, now = abs(median_of(entry, "committed", name) - kernel), abs(median_of(entry, "linux_side", name) - kernel)
            out[name]["closer" if now < then else "farther" if now > then else "same"] += 1
    return out


def moved(data: dict[str, Any], side: str, metric: str) -> list[float]:
    """How far ``side``'s median of ``metric`` lies from the committed median, run by run (as shown)."""
    return [median_of(e, side, metric) - median_of(e, "committed", metric) for e in (run["metrics"][metric] for run in data["runs"].values())]


#: The average queue's row, the one the parts of the Linux side are told apart on.
QUEUE = next(name for name, key, _ in METRICS if key == "avg_queue_pkts")


def render(data: dict[str, Any], data_path: str) -> str:
    """The block: one row per run (the kernel, the committed seeds' median, the Linux side's median,
    per metric), the tally in words, and how far each part alone moves the average queue."""
    head = " | ".join(f"{name}: kernel / then / Linux side" for name in FORMATS)
    lines = [f"| run | {head} |", "|---|" + "---|" * len(FORMATS)]
    for run_name, run in data["runs"].items():
        cells = [
            " / ".join(FORMATS[n].format(v) for v in (e["kernel"], median_of(e, "committed", n), median_of(e, "linux_side", n)))
            for n, e in run["metrics"].items()
        ]
        lines.append(f"| `{run_name}` | " + " | ".join(cells) + " |")
    words = "; ".join(f"{name}, {c['closer']} closer, {c['farther']} farther, {c['same']} as far" for name, c in tally(data).items())
    queue = {side: moved(data, side, QUEUE) for side in ("linux_side", *PARTS)}
    longer = {side: sum(d > 0 for d in ds) for side, ds in queue.items()}
    span = lambda ds: f"{min(ds):+.1f} to {max(ds):+.1f}"  # noqa: E731
    return (
        "\n".join(lines)
        + f"\n\nThe simulator's values are medians over each run's seeds, compared as shown. Of the {len(data['runs'])} runs, those whose "
        f"Linux-side median lies closer to the kernel's value than the committed median, farther, or as far: {words}. "
        f"Against the committed medians the Linux side moves the simulated average queue by {span(queue['linux_side'])} packets, longer in "
        f"{longer['linux_side']} runs; RACK alone by {span(queue['rack_alone'])}, longer in {longer['rack_alone']}; the frame ahead alone by "
        f"{span(queue['frame_ahead_alone'])}, longer in {longer['frame_ahead_alone']}. Data: {data_path} (`python -m pertlab.linux.linux_side`).\n"
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m pertlab.linux.linux_side OUT.json (the committed runs are read from docs/)", file=sys.stderr)
        return 2
    out = Path(args[0])
    out.write_text(json.dumps(study(Path(__file__).resolve().parents[3] / "docs"), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
