"""The registry of reproductions and the report every one of them writes."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import polars as pl

__all__ = ["Claim", "Report", "Entry", "REGISTRY", "register", "get", "fmt_values", "rank_correlation"]


def fmt_values(xs: list[Any]) -> str:
    """Values for a claim's evidence: numbers to three significant digits."""
    return ", ".join(f"{v:.3g}" if isinstance(v, (int, float)) else str(v) for v in xs)


def rank_correlation(xs: list[float], ys: list[float]) -> float:
    """Spearman rank correlation of ``ys`` with ``xs`` (NaN with fewer than 3 points),
    how the claims judge "grows" and "falls" along a sweep."""
    from scipy.stats import spearmanr

    return float(spearmanr(xs, ys).statistic) if len(xs) > 2 else float("nan")


@dataclass(frozen=True)
class Claim:
    """A statement of the document, and whether our data bears it out."""

    text: str
    holds: bool
    evidence: str


@dataclass
class Report:
    """What a reproduction produced; :meth:`write` makes the report folder."""

    name: str
    title: str
    source: str
    mode: str
    out_dir: Path
    notes: list[str] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    #: Tables saved as Parquet and shown in the page (comparisons carry the published columns).
    tables: dict[str, pl.DataFrame] = field(default_factory=dict)
    #: PNG files inside ``out_dir``.
    figures: list[Path] = field(default_factory=list)
    #: Scenarios run, by name, in the core's wire format.
    scenarios: dict[str, dict[str, Any]] = field(default_factory=dict)

    def write(self) -> Path:
        out = self.out_dir
        out.mkdir(parents=True, exist_ok=True)
        for name, table in self.tables.items():
            table.write_parquet(out / f"{name}.parquet")
        (out / "scenarios.json").write_text(json.dumps(self.scenarios, indent=1, sort_keys=True) + "\n")
        (out / "report.json").write_text(json.dumps(self.summary(), indent=2) + "\n")
        (out / "index.html").write_text(self._html())
        return out / "index.html"

    def summary(self) -> dict[str, Any]:
        """The report as one JSON object (the ``--json`` output)."""
        return {
            "name": self.name,
            "title": self.title,
            "source": self.source,
            "mode": self.mode,
            "out": str(self.out_dir),
            "claims": [{"text": c.text, "holds": c.holds, "evidence": c.evidence} for c in self.claims],
            "tables": {k: v.to_dicts() for k, v in self.tables.items()},
            "figures": [p.name for p in self.figures],
            "notes": self.notes,
        }

    def _html(self) -> str:
        e = html.escape
        parts = [
            "<!doctype html><meta charset='utf-8'>",
            f"<title>{e(self.title)}</title>",
            "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto}table{border-collapse:collapse;margin:1em 0}"
            "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}.no{color:#b00}.yes{color:#070}</style>",
            f"<h1>{e(self.title)}</h1>",
            f"<p>Source: {e(self.source)}. Mode: <b>{e(self.mode)}</b>. Scenarios: <a href='scenarios.json'>scenarios.json</a>.</p>",
        ]
        if self.claims:
            parts.append("<h2>Claims of the document</h2><table><tr><th>claim</th><th>holds here</th><th>evidence</th></tr>")
            for c in self.claims:
                cls, word = ("yes", "yes") if c.holds else ("no", "no")
                parts.append(f"<tr><td style='text-align:left'>{e(c.text)}</td><td class='{cls}'>{word}</td><td style='text-align:left'>{e(c.evidence)}</td></tr>")
            parts.append("</table>")
        for note in self.notes:
            parts.append(f"<p>{e(note)}</p>")
        for name, table in self.tables.items():
            parts.append(f"<h2>{e(name)}</h2><p><a href='{e(name)}.parquet'>{e(name)}.parquet</a></p>{_html_table(table)}")
        for fig in self.figures:
            parts.append(f"<p><img src='{e(fig.name)}' style='max-width:100%'></p>")
        return "\n".join(parts) + "\n"


def _html_table(table: pl.DataFrame, max_rows: int = 200) -> str:
    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.4g}"
        return html.escape(str(v))

    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    rows = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>" for row in table.head(max_rows).iter_rows())
    return f"<table><tr>{head}</tr>{rows}</table>"


@dataclass(frozen=True)
class Entry:
    """A named reproduction: ``run(quick, out_dir, workers)`` returns its report (not yet written);
    ``workers`` (:class:`pertlab.parallel.Workers`) says where its runs execute."""

    name: str
    title: str
    source: str
    run: Callable[[bool, Path, Any], Report]


REGISTRY: dict[str, Entry] = {}


def register(entry: Entry) -> Entry:
    if entry.name in REGISTRY:
        raise ValueError(f"reproduction {entry.name!r} registered twice")
    REGISTRY[entry.name] = entry
    return entry


def get(name: str) -> Entry:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown reproduction {name!r}; known: {', '.join(sorted(REGISTRY))} (see pertlab reproduce --list)") from None
