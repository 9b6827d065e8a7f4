"""The generated block of docs/linux.md "On the testbed: Reno flows join, and leave": adaptive
PERT's time in compete mode before and in the measurement window, in the kernel (the eBPF
``pert_adaptive``) and in the simulator, from the committed ``pertlab testbed compare`` runs of
examples/testbed/adaptive_reno_join.toml and adaptive_reno_leave.toml (their ``report.json``,
committed as docs/linux/NAME.json beside the report, NAME.md, and its figure, NAME.png).

The block holds, per scenario, the kernel's run, the simulator's first seed and the median
(least .. most) over its seeds, and a sentence per scenario and phase saying where the kernel's
share lies against the seeds' range. The prose around it says what the scenarios are and what
the tests assert. Rendered by :mod:`.doc` (``make docs``).
"""

from __future__ import annotations

import statistics
from typing import Any

from .compare import MODES, mode_metric

__all__ = ["ADAPTIVE_RENO", "ADAPTIVE_RENO_DATA", "render_adaptive_reno"]

#: The block's name, and its data under the page's folder: each run's report.json, by the
#: example file it ran.
ADAPTIVE_RENO = "adaptive-reno"
ADAPTIVE_RENO_DATA = {
    "linux/adaptive_reno_join.json": "examples/testbed/adaptive_reno_join.toml",
    "linux/adaptive_reno_leave.json": "examples/testbed/adaptive_reno_leave.toml",
}

#: The two phases of a run: before the measurement window (the warm-up) and in it.
PHASES = ((True, "before the window"), (False, "in the window"))


def compete(record: dict[str, Any], before_window: bool) -> list[tuple[float, float]]:
    """Adaptive PERT's seconds in compete mode, and their share of its time in any mode, in one
    phase of a compare run: the kernel's first, then each simulator seed's."""
    rows = {r["metric"]: r for r in record["rows"]}
    times = [rows[mode_metric(m, before_window)] for m in MODES]
    sides = [[r["testbed"] for r in times]] + [list(seed) for seed in zip(*(r["sim"] for r in times))]
    c = MODES.index("compete")
    return [(side[c], side[c] / sum(side) if sum(side) > 0 else float("nan")) for side in sides]


def _median_range(values: list[float], fmt: str) -> str:
    return f"{statistics.median(values):{fmt}} ({min(values):{fmt}} .. {max(values):{fmt}})"


def _against(kernel: float, seeds: list[float]) -> str:
    """Where the kernel's share lies against the simulator seeds' range, to 0.01."""
    lo, hi = min(seeds), max(seeds)
    if round(lo, 2) <= round(kernel, 2) <= round(hi, 2):
        return "within the seeds' range"
    return f"{kernel - hi:.2f} above the seeds' most ({hi:.2f})" if kernel > hi else f"{lo - kernel:.2f} below the seeds' least ({lo:.2f})"


def render_adaptive_reno(records: dict[str, dict[str, Any]]) -> str:
    """The block's Markdown from the compare runs' report.json files (``records``, by the
    example file each ran, in :data:`ADAPTIVE_RENO_DATA`'s order)."""
    lines = [
        "| scenario | side | compete mode before the window, s (share) | in the window, s (share) |",
        "|---|---|---|---|",
    ]
    said, runs = [], []
    for example, rec in records.items():
        name = f"`{example.rsplit('/', 1)[-1]}`"
        phases = {before: compete(rec, before) for before, _ in PHASES}
        first, last = rec["sim_seeds"]
        cell = lambda v: f"{v[0]:.2f} ({v[1]:.2f})"  # noqa: E731
        lines.append(f"| {name} | kernel | {cell(phases[True][0])} | {cell(phases[False][0])} |")
        lines.append(f"| | simulator, seed {first} | {cell(phases[True][1])} | {cell(phases[False][1])} |")
        if last > first:
            spread = lambda vs: f"{_median_range([v[0] for v in vs], '.2f')}; share {_median_range([v[1] for v in vs], '.2f')}"  # noqa: E731
            lines.append(f"| | simulator, seeds {first} to {last}: median (least .. most) | {spread(phases[True][1:])} | {spread(phases[False][1:])} |")
        said.append(
            f"{name}: the kernel's share "
            + "; ".join(f"{words} {phases[before][0][1]:.2f}, {_against(phases[before][0][1], [v[1] for v in phases[before][1:]])}" for before, words in PHASES)
        )  # fmt: skip
        load = rec["load_average"]
        runs.append(f"{name} on {rec['date']} (load average {load[0]:.2f} at the start, {load[1]:.2f} at the end)")
    kernels = sorted({rec["kernel"].split("-")[0] for rec in records.values()})
    return (
        "\n".join(lines)
        + "\n\n"
        + ". ".join(said)
        + ".\n\nKernel runs: "
        + "; ".join(runs)
        + f"; kernel {', '.join(kernels)}. Each is `pertlab testbed compare FILE --out DIR --sim-seeds N`, its report.md, cwnd.png and"
        " report.json committed as docs/linux/NAME.md, .png and .json.\n"
    )
