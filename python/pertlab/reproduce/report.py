"""The report folder every reproduction writes.

``Report(name, title, out_dir, mode)`` collects figures (PNG), tables
(Parquet), parameters (JSON), comparisons with the paper's printed numbers and
notes; :meth:`Report.finish` writes ``params.json``, ``report.json`` and
``index.html`` (a plain page that shows the plots and tables) and returns the
report.
"""

from __future__ import annotations

import html
import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Comparison", "Report"]


def _clean(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalars
        return _clean(obj.item())
    return obj


@dataclass
class Comparison:
    """A number the paper prints beside ours. ``paper`` may be None when the
    paper states a claim rather than a number (``claim`` then says it)."""

    quantity: str
    ours: float | str | bool
    paper: float | str | bool | None = None
    unit: str = ""
    claim: str = ""
    note: str = ""

    @property
    def difference(self) -> float | None:
        """ours - paper, when both are numbers."""
        num = (int, float)
        if isinstance(self.ours, num) and isinstance(self.paper, num) and not isinstance(self.ours, bool):
            return float(self.ours) - float(self.paper)
        return None

    @property
    def relative(self) -> float | None:
        d = self.difference
        if d is None or not self.paper:
            return None
        return d / abs(float(self.paper))  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "difference": self.difference, "relative_difference": self.relative}


@dataclass
class Report:
    name: str
    title: str
    out_dir: Path
    mode: str
    description: str = ""
    figures: list[tuple[str, str]] = field(default_factory=list)  # (file name, caption)
    tables: list[tuple[str, str]] = field(default_factory=list)  # (file name, caption)
    params: dict[str, Any] = field(default_factory=dict)
    comparisons: list[Comparison] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.time)
    elapsed_s: float = 0.0

    def __post_init__(self) -> None:
        self.out_dir = Path(self.out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)

    def path(self, file_name: str) -> Path:
        return self.out_dir / file_name

    def add_figure(self, file_name: str, caption: str) -> None:
        """Record a PNG already written to ``path(file_name)``."""
        self.figures.append((file_name, caption))

    def add_table(self, df: Any, file_name: str, caption: str) -> None:
        """Write a polars DataFrame as Parquet and record it."""
        df.write_parquet(self.path(file_name))
        self.tables.append((file_name, caption))

    def compare(self, quantity: str, ours: Any, paper: Any = None, unit: str = "", claim: str = "", note: str = "") -> None:
        self.comparisons.append(Comparison(quantity, ours, paper, unit, claim, note))

    def as_dict(self) -> dict[str, Any]:
        return _clean({
            "name": self.name, "title": self.title, "mode": self.mode, "description": self.description,
            "out_dir": str(self.out_dir), "elapsed_s": self.elapsed_s,
            "figures": [{"file": f, "caption": c} for f, c in self.figures],
            "tables": [{"file": f, "caption": c} for f, c in self.tables],
            "params_file": "params.json", "comparisons": [c.as_dict() for c in self.comparisons], "notes": self.notes,
        })  # fmt: skip

    def finish(self) -> "Report":
        """Write params.json, report.json and index.html."""
        self.elapsed_s = time.time() - self.started
        self.path("params.json").write_text(json.dumps(_clean(self.params), indent=2) + "\n")
        self.path("report.json").write_text(json.dumps(self.as_dict(), indent=2) + "\n")
        self.path("index.html").write_text(self._html())
        return self

    def _html(self) -> str:
        e = html.escape

        def fmt(v: Any) -> str:
            if v is None:
                return ""
            if isinstance(v, float):
                return f"{v:.4g}"
            return e(str(v))

        rows = "".join(
            f"<tr><td>{e(c.quantity)}</td><td>{fmt(c.paper) or e(c.claim)}</td><td>{fmt(c.ours)}</td>"
            f"<td>{fmt(c.difference)}</td><td>{'' if c.relative is None else f'{100 * c.relative:+.1f} %'}</td>"
            f"<td>{e(c.unit)}</td><td>{e(c.note)}</td></tr>"
            for c in self.comparisons
        )
        figs = "".join(f'<figure><img src="{e(f)}" style="max-width:100%"><figcaption>{e(c)}</figcaption></figure>'
                       for f, c in self.figures)  # fmt: skip
        tabs = "".join(f'<li><a href="{e(f)}">{e(f)}</a>: {e(c)}</li>' for f, c in self.tables)
        notes = "".join(f"<li>{e(n)}</li>" for n in self.notes)
        return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>{e(self.name)}</title>
<style>body{{font-family:sans-serif;max-width:1000px;margin:auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 6px;font-size:13px}}figcaption{{font-size:13px;color:#444}}</style></head>
<body><h1>{e(self.title)}</h1>
<p><code>pertlab reproduce {e(self.name)}</code> ({e(self.mode)} mode, {self.elapsed_s:.1f} s). {e(self.description)}</p>
<h2>Paper vs ours</h2>
<table><tr><th>quantity</th><th>paper</th><th>ours</th><th>difference</th><th>relative</th><th>unit</th><th>note</th></tr>{rows}</table>
<h2>Notes</h2><ul>{notes}</ul>
<h2>Figures</h2>{figs}
<h2>Data</h2><ul>{tabs}<li><a href="params.json">params.json</a>: the exact parameters and scenarios</li>
<li><a href="report.json">report.json</a>: this report as data</li></ul>
</body></html>
"""
