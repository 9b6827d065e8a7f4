"""The generated blocks of docs/validation.md: the matrices of the committed full runs of ``pertlab
validate ns3`` and ``pertlab validate kernel``, and the end-host timing table.

Each table of every case (pertlab / the reference per metric, with the verdict's mark), the count
of each verdict and, for ns-3, the run times are written from a run's ``rows.json`` and
``cases.json`` (the report of ``pertlab validate ns3 --out docs/validation/ns3``, or of
``validate kernel --out docs/validation/kernel``); the end-host timing table from
``validation/kernel/end_host_timing.json`` (:mod:`.end_host`), each between::

    <!-- BEGIN generated: ns3-matrix -->      (kernel-matrix, end-host-timing)
    ...  (rewritten by ``make docs``; do not edit)
    <!-- END generated -->

``python -m pertlab.validate.doc [--check] [PAGE]`` rewrites the blocks (or, with ``--check``,
exits 1 when one differs from what would be written); tests/python/test_validate.py checks it.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import docblock
from . import end_host
from .compare import NOT_IN_REFERENCE
from .tolerance import METRICS

__all__ = ["Matrix", "MATRICES", "render_matrix", "render_page", "main"]


@dataclass(frozen=True)
class Matrix:
    """A generated matrix: its block's name, the committed run's folder (relative to the page's)
    and what the reference is called in the cells."""

    block: str
    folder: str
    reference: str


MATRICES = (Matrix("ns3-matrix", "validation/ns3", "ns-3"), Matrix("kernel-matrix", "validation/kernel", "Linux"))

#: Column heading and number format of each metric.
COLUMNS = {
    "avg_queue_pkts": ("queue (pkts)", "{:.1f}"), "drop_rate": ("drops", "{:.2%}"), "mark_rate": ("marks", "{:.2%}"),
    "utilization": ("utilization", "{:.3f}"), "jain": ("Jain", "{:.3f}"), "goodput_cov": ("goodput CoV", "{:.3f}"),
}  # fmt: skip
#: The mark a cell carries for its verdict.
MARKS = {"agrees": "", "explained": " (e)", "differs": " **(d)**", "explained difference not seen": " **(not seen)**"}
#: How the verdicts are named in the count (and NOT_IN_REFERENCE: "are not in" the reference).
COUNTED = {"agrees": "agree", "explained": "differ as explained", "differs": "differ unexplained (open, below)",
           "explained difference not seen": "explained but not seen"}  # fmt: skip


def _value(metric: str, v: float) -> str:
    """A metric's value as the tables write it."""
    return COLUMNS[metric][1].format(v).replace("%", " %")


def _head(first: str) -> list[str]:
    """A table's heading lines: ``first``, then a column per metric."""
    return [f"| {first} | " + " | ".join(COLUMNS[m][0] for m in METRICS) + " |", "|---|" + "---|" * len(METRICS)]


def _cell(row: dict[str, Any], reference: str) -> str:
    ours = _value(row["metric"], row["pertlab"])
    if row["verdict"] == NOT_IN_REFERENCE:
        return f"{ours} / not in {reference}"
    return f"{ours} / {_value(row['metric'], row['reference'])}{MARKS[row['verdict']]}"


def per_seed_table(case: dict[str, Any], reference: str) -> list[str]:
    """A case of several seeds, seed by seed (pertlab / the reference per metric, as the matrix
    writes them): the spread its means hide."""
    ours, theirs = case["per_seed"]["pertlab"], case["per_seed"].get("reference")
    cell = lambda m, i: _value(m, ours[i][m]) + ("" if theirs is None else " / " + _value(m, theirs[i][m]))  # noqa: E731
    return [
        f"`{case['case']}` seed by seed (pertlab / {reference}):",
        "",
        *_head("seed"),
        *(f"| {i + 1} | " + " | ".join(cell(m, i) for m in METRICS) + " |" for i in range(len(ours))),
    ]


def render_matrix(rows: list[dict[str, Any]], cases: list[dict[str, Any]], reference: str = "ns-3") -> str:
    """The block's Markdown: one table row per case, a table seed by seed of each case of several
    seeds (where the run recorded them), the verdict counts and the run times (where the run
    recorded them)."""
    by_case: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        by_case.setdefault(row["case"], {})[row["metric"]] = row
    lines = _head("case")
    for c in cases:
        seeds = f" (mean of seeds 1-{c['seeds']})" if c["seeds"] > 1 else ""
        lines.append(f"| {c['case']}{seeds} | " + " | ".join(_cell(by_case[c["case"]][m], reference) for m in METRICS) + " |")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
    for c in cases:
        if c.get("per_seed"):
            lines += ["", *per_seed_table(c, reference)]
    counted = {**COUNTED, NOT_IN_REFERENCE: f"are not in {reference}"}
    said = ", ".join(f"{counts[v]} {name}" for v, name in counted.items() if counts.get(v))
    summary = f"Verdicts over the {len(rows)} case-metric pairs of {len(cases)} cases: {said}."
    if all("reference" in c["seconds"] for c in cases):
        ref = sum(c["seconds"]["reference"] for c in cases)
        ours = sum(c["seconds"]["pertlab"] for c in cases)
        summary += f" Run time summed over the cases: {reference} {ref / 60:.0f} min, pertlab {ours:.0f} s."
    return "\n".join([*lines, "", summary]) + "\n"


#: The end-host timing table's block, and its data under the page's folder.
END_HOST, END_HOST_DATA = "end-host-timing", "validation/kernel/end_host_timing.json"


def render_page(text: str, page_dir: Path) -> str:
    """``text`` with each block of :data:`MATRICES` written from its run under ``page_dir``, and
    the :data:`END_HOST` block from its data."""
    for m in MATRICES:
        report_dir = page_dir / m.folder
        rows = json.loads((report_dir / "rows.json").read_text())
        cases = json.loads((report_dir / "cases.json").read_text())
        text = docblock.fill(text, m.block, render_matrix(rows, cases, m.reference))
    return docblock.fill(text, END_HOST, end_host.render(json.loads((page_dir / END_HOST_DATA).read_text())))


def main(argv: list[str] | None = None) -> int:
    return docblock.main(argv, "docs/validation.md", render_page)


if __name__ == "__main__":
    sys.exit(main())
