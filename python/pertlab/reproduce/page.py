"""The HTML page of a report (``index.html``), in the order a reader wants it.

Title, source and mode; the document's claims, whether each holds here and its
evidence; the figures with their captions; the summary tables; the notes on the
setup; the tables of per-run rows folded away (``<details>``). Plain HTML and CSS:
a wide table scrolls inside its own box, so the page is never wider than the window.
"""

from __future__ import annotations

import math
from html import escape
from typing import TYPE_CHECKING, Any

import polars as pl

from .registry import fmt_seeds

if TYPE_CHECKING:
    from .registry import Claim, Figure, Report

__all__ = ["html_page", "MAX_ROWS"]

#: Rows of a table shown in the page; the Parquet file has them all.
MAX_ROWS = 200

CSS = """
body{margin:0;color:#1b1b1b;background:#fff;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:64rem;margin:0 auto;padding:1.5rem 1rem 3rem}
h1{font-size:1.6rem;line-height:1.25;margin:.3rem 0 .5rem}
h2{font-size:1.25rem;margin:2.2rem 0 .7rem;padding-bottom:.2rem;border-bottom:1px solid #ddd}
h3{font-size:1.05rem;margin:1.4rem 0 .3rem}
p,li,figcaption{overflow-wrap:break-word}
a{color:#0b57d0}
.meta,.small{color:#555}
.small{font-size:.85rem;margin:.2rem 0}
ol.claims{list-style:none;margin:0;padding:0}
ol.claims li{display:flex;gap:.9rem;padding:.65rem 0;border-bottom:1px solid #eee}
.verdict{flex:0 0 7rem;align-self:flex-start;padding:.1rem .3rem;border-radius:4px;font-size:.85rem;font-weight:600;text-align:center}
.holds .verdict{background:#e2f3e5;color:#0b6a21}
.fails .verdict{background:#fce6e6;color:#a11212}
.claim-text{margin:0 0 .3rem;font-weight:500}
.evidence{margin:0;color:#444;font-size:.9rem}
figure{margin:1rem 0 2rem}
figure img{display:block;max-width:100%;height:auto;border:1px solid #e4e4e4}
figcaption{max-width:50rem;margin-top:.5rem;font-size:.92rem;color:#333}
.scroll{width:fit-content;max-width:100%;overflow-x:auto;margin:.3rem 0 1.2rem;border:1px solid #e4e4e4}
table{border-collapse:collapse;font-size:.85rem;font-variant-numeric:tabular-nums}
th,td{padding:.2rem .6rem;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th{background:#f4f4f4}
.text{text-align:left}
tbody tr:nth-child(even){background:#fafafa}
.notes p{max-width:50rem}
details{margin:.5rem 0 1rem}
summary{cursor:pointer;font-weight:600}
"""


def html_page(report: Report) -> str:
    """The whole page of ``report``."""
    summary = {k: t for k, t in report.tables.items() if k not in report.details}
    details = {k: t for k, t in report.tables.items() if k in report.details}
    parts = [
        "<!doctype html>",
        "<html lang='en'><head><meta charset='utf-8'><meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{escape(report.title)}</title><style>{CSS}</style></head><body><main>",
        f"<h1>{escape(report.title)}</h1>",
        f"<p class='meta'>Source: {escape(report.source)}. Mode: <b>{escape(report.mode)}</b>. Seeds: {escape(fmt_seeds(report.seeds()))}. "
        + (f"Wall time: {report.wall_seconds:.0f} s. " if report.wall_seconds is not None else "")
        + "Data: <a href='report.json'>report.json</a>, <a href='scenarios.json'>scenarios.json</a> (every scenario run) "
        "and each table as Parquet.</p>",
        _claims(report.claims),
        _queue_warnings(report),
        _figures(report.figures),
    ]
    if summary:
        parts.append("<section id='summary'><h2>Summary</h2>" + "".join(_table_section(k, t) for k, t in summary.items()) + "</section>")
    if report.notes:
        parts.append("<section class='notes' id='notes'><h2>Setup and notes</h2>" + "".join(f"<p>{escape(n)}</p>" for n in report.notes) + "</section>")
    if details:
        parts.append("<section id='runs'><h2>Per-run data</h2>" + "".join(_details(k, t) for k, t in details.items()) + "</section>")
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"


def _claims(claims: list[Claim]) -> str:
    if not claims:
        return ""
    held = sum(c.holds for c in claims)
    items = "".join(
        f"<li class='{'holds' if c.holds else 'fails'}'><span class='verdict'>{'holds' if c.holds else 'does not hold'}</span>"
        f"<div><p class='claim-text'>{escape(c.text)}</p><p class='evidence'>{escape(c.evidence)}</p></div></li>"
        for c in claims
    )
    return f"<section id='claims'><h2>Claims of the document</h2><p class='small'>{held} of {len(claims)} hold here.</p><ol class='claims'>{items}</ol></section>"


def _queue_warnings(report: Report) -> str:
    groups = report.queue_warning_groups()
    if not groups:
        return ""
    items = "".join(f"<li>{escape(w)} (in {len(names)} scenario{'s' if len(names) > 1 else ''}: {escape(', '.join(names))})</li>" for w, names in groups)
    return (
        "<section id='queues'><h2>Queues that cannot act</h2><p class='small'>In these scenarios (named as in scenarios.json, and in a "
        f"table's <code>key</code> column where it has one) a queue's discipline can never act on its buffer, so it runs as drop-tail.</p><ul>{items}</ul></section>"
    )


def _figures(figures: list[Figure]) -> str:
    if not figures:
        return ""
    body = "".join(
        f"<figure><a href='{escape(f.file)}'><img src='{escape(f.file)}' alt='{escape(f.caption)}'></a>"
        f"<figcaption><b>Figure {i}.</b> {escape(f.caption)}</figcaption></figure>"
        for i, f in enumerate(figures, 1)
    )
    return f"<section id='figures'><h2>Figures</h2>{body}</section>"


def _table_section(name: str, table: pl.DataFrame) -> str:
    return f"<h3>{escape(name)}</h3>{_caption(name, table)}<div class='scroll'>{_html_table(table)}</div>"


def _details(name: str, table: pl.DataFrame) -> str:
    return (
        f"<details><summary>{escape(name)}: {table.height} rows, {table.width} columns</summary>"
        f"{_caption(name, table)}<div class='scroll'>{_html_table(table)}</div></details>"
    )


def _caption(name: str, table: pl.DataFrame) -> str:
    """Where the whole table is, and how much of it the page shows."""
    shown = f"the first {MAX_ROWS} of {table.height} rows; " if table.height > MAX_ROWS else ""
    return f"<p class='small'>{shown}all of it in <a href='{escape(name)}.parquet'>{escape(name)}.parquet</a></p>"


def _cell(v: Any) -> str:
    """A number to four significant digits, a missing one as a dash."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    return escape(str(v))


def _html_table(table: pl.DataFrame) -> str:
    """Numbers right-aligned, text left-aligned; the first :data:`MAX_ROWS` rows."""
    attr = ["" if dt.is_numeric() else " class='text'" for dt in table.dtypes]
    head = "".join(f"<th{a}>{escape(name)}</th>" for a, name in zip(attr, table.columns))
    rows = "".join(
        "<tr>" + "".join(f"<td{a}>{_cell(v)}</td>" for a, v in zip(attr, row)) + "</tr>" for row in table.head(MAX_ROWS).iter_rows()
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
