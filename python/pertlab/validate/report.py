"""The report of ``pertlab validate``: ``report.md``, ``report.html``, ``rows.json`` (one row per
case and metric), ``cases.json`` (each case's description, seeds, the seconds each tool
took and, with several seeds, each seed's metrics) and one figure per case of flow 0's congestion window in both tools (``cwnd-CASE.png``).

Each case is one table row per metric: pertlab's value, the reference tool's (ns-3, Linux),
their ratio, the tolerance and the verdict (:func:`pertlab.validate.compare.verdicts`); a
case the reference cannot run says so and why.
"""

from __future__ import annotations

import math
from html import escape
from pathlib import Path
from typing import Any

from ..jsonable import dumps
from ..plots import saved_figure
from ..reproduce.page import CSS
from .compare import CaseResult, rows
from .tolerance import TOLERANCES

__all__ = ["write_report"]


#: Columns of words, aligned left (the numbers align right).
TEXT_COLUMNS = (0, 1, 6, 7)


def _header(tool: str) -> tuple[str, ...]:
    return ("case", "metric", "pertlab", tool, "ratio", "tolerance", "verdict", "why")


def _num(v: float | None) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return f"{v:.4g}"


def _tolerance(metric: str) -> str:
    t = TOLERANCES[metric]
    return f"{t.relative:.0%} or {t.absolute:g}" if t.relative else f"{t.absolute:g}"


def _cells(row: dict[str, Any]) -> list[str]:
    why = f"docs/validation.md#{row['reason']}" if row["verdict"].startswith("explained") else row["reason"]
    return [row["case"], row["metric"], _num(row["pertlab"]), _num(row["reference"]), _num(row["ratio"]), _tolerance(row["metric"]),
            row["verdict"], why]  # fmt: skip


def _cwnd_figure(r: CaseResult, path: Path, tool: str) -> None:
    with saved_figure(path, figsize=(8, 3), title=f"{r.case.name}: {r.case.what}, flow 0") as (_, ax):
        for name, series in r.cwnd.items():
            if series:
                t, w = zip(*series)
                ax.plot(t, w, lw=0.8, label=name if name == "pertlab" else tool)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (segments)")
        ax.legend(loc="upper right")


def write_report(results: list[CaseResult], out: Path, title: str, tool: str = "ns-3") -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Write the report of pertlab beside ``tool`` into ``out``; returns the count of each verdict
    and the table's rows (:func:`pertlab.validate.compare.rows`)."""
    out.mkdir(parents=True, exist_ok=True)
    table = rows(results)
    header = _header(tool)
    (out / "rows.json").write_text(dumps(table, indent=1) + "\n")
    cases = [{"case": r.case.name, "what": r.case.what, "seeds": r.case.seeds, "seconds": r.seconds} | ({"per_seed": r.per_seed} if r.per_seed else {}) for r in results]
    (out / "cases.json").write_text(dumps(cases, indent=1) + "\n")
    for r in results:
        _cwnd_figure(r, out / f"cwnd-{r.case.name}.png", tool)
    counts: dict[str, int] = {}
    for row in table:
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
    summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    md = [f"# {title}", "", f"Metrics: {summary}.", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    md += ["| " + " | ".join(_cells(row)) + " |" for row in table]
    md += ["", "Congestion windows of flow 0: " + ", ".join(f"[{r.case.name}](cwnd-{r.case.name}.png)" for r in results), ""]
    (out / "report.md").write_text("\n".join(md))
    body = "".join(
        f'<tr class="{escape(row["verdict"].replace(" ", "-"))}">' + "".join(
            f'<td class="text">{escape(c)}</td>' if i in TEXT_COLUMNS else f"<td>{escape(c)}</td>" for i, c in enumerate(_cells(row))
        ) + "</tr>"
        for row in table
    )  # fmt: skip
    head = "".join(f"<th{' class=text' if i in TEXT_COLUMNS else ''}>{escape(h)}</th>" for i, h in enumerate(header))
    figures = "".join(
        f'<figure><img src="cwnd-{escape(r.case.name)}.png" alt="cwnd of flow 0, {escape(r.case.what)}">'
        f"<figcaption>{escape(r.case.what)}: flow 0's congestion window in both tools.</figcaption></figure>"
        for r in results
    )
    html = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}'
        ".differs td{background:#fce6e6}.explained-difference-not-seen td{background:#fff1d6}</style></head>"
        f"<body><main><h1>{escape(title)}</h1><p class=meta>Metrics: {escape(summary)}.</p>"
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div><h2>Congestion windows</h2>{figures}</main></body></html>\n"
    )
    (out / "report.html").write_text(html)
    return counts, table
