"""The matrix of docs/validation.md, generated from the committed full run of ``pertlab validate ns3``.

The page's table of every case (pertlab / ns-3 per metric, with the verdict's mark), the count of
each verdict and the run times are written from ``docs/validation/ns3/rows.json`` and
``cases.json`` (the report of ``pertlab validate ns3 --out docs/validation/ns3``), between::

    <!-- BEGIN generated: ns3-matrix -->
    ...  (rewritten by ``make docs``; do not edit)
    <!-- END generated -->

``python -m pertlab.validate.doc [--check] [PAGE]`` rewrites the block (or, with ``--check``,
exits 1 when it differs from what would be written); tests/python/test_validate.py checks it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from .compare import NOT_IN_REFERENCE
from .tolerance import METRICS

__all__ = ["render_matrix", "render_page", "main"]

BLOCK = re.compile(r"(<!-- BEGIN generated: ns3-matrix -->\n)(?P<body>.*?)(<!-- END generated -->)", re.S)

#: Column heading and number format of each metric.
COLUMNS = {
    "avg_queue_pkts": ("queue (pkts)", "{:.1f}"), "drop_rate": ("drops", "{:.2%}"), "mark_rate": ("marks", "{:.2%}"),
    "utilization": ("utilization", "{:.3f}"), "jain": ("Jain", "{:.3f}"), "goodput_cov": ("goodput CoV", "{:.3f}"),
}  # fmt: skip
#: The mark a cell carries for its verdict.
MARKS = {"agrees": "", "explained": " (e)", "differs": " **(d)**", "explained difference not seen": " **(not seen)**"}
#: How the verdicts are named in the count.
COUNTED = {"agrees": "agree", "explained": "differ as explained", "differs": "differ unexplained (open, below)",
           "explained difference not seen": "explained but not seen", NOT_IN_REFERENCE: "are not in ns-3"}  # fmt: skip


def _cell(row: dict[str, Any]) -> str:
    fmt = COLUMNS[row["metric"]][1]
    ours = fmt.format(row["pertlab"]).replace("%", " %")
    if row["verdict"] == NOT_IN_REFERENCE:
        return f"{ours} / not in ns-3"
    return f"{ours} / {fmt.format(row['reference']).replace('%', ' %')}{MARKS[row['verdict']]}"


def render_matrix(rows: list[dict[str, Any]], cases: list[dict[str, Any]]) -> str:
    """The block's Markdown: one table row per case, the verdict counts and the run times."""
    by_case: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        by_case.setdefault(row["case"], {})[row["metric"]] = row
    lines = ["| case | " + " | ".join(COLUMNS[m][0] for m in METRICS) + " |", "|---|" + "---|" * len(METRICS)]
    for c in cases:
        seeds = f" (mean of seeds 1-{c['seeds']})" if c["seeds"] > 1 else ""
        lines.append(f"| {c['case']}{seeds} | " + " | ".join(_cell(by_case[c["case"]][m]) for m in METRICS) + " |")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
    said = ", ".join(f"{counts[v]} {name}" for v, name in COUNTED.items() if counts.get(v))
    ns3 = sum(c["seconds"].get("reference", 0.0) for c in cases)
    ours = sum(c["seconds"]["pertlab"] for c in cases)
    lines += [
        "",
        f"Verdicts over the {len(rows)} case-metric pairs of {len(cases)} cases: {said}. Run time summed over"
        f" the cases: ns-3 {ns3 / 60:.0f} min, pertlab {ours:.0f} s.",
    ]
    return "\n".join(lines) + "\n"


def render_page(text: str, report_dir: Path) -> str:
    """``text`` with its ns3-matrix block written from the report in ``report_dir``."""
    rows = json.loads((report_dir / "rows.json").read_text())
    cases = json.loads((report_dir / "cases.json").read_text())
    body = render_matrix(rows, cases)
    if not BLOCK.search(text):
        raise ValueError("no <!-- BEGIN generated: ns3-matrix --> ... <!-- END generated --> block")
    return BLOCK.sub(lambda m: m.group(1) + body + m.group(3), text)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    page = Path(args[0] if args else "docs/validation.md")
    text = page.read_text()
    fresh = render_page(text, page.parent / "validation" / "ns3")
    if check:
        if fresh != text:
            print(f"{page}: the ns3-matrix block is out of date (make docs)", file=sys.stderr)
            return 1
        return 0
    page.write_text(fresh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
