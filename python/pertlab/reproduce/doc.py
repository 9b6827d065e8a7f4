"""The parts of docs/reproductions.md that state results, generated from the committed reports.

Prose that restates numbers drifts from them; so every statement of what holds and what does
not, with its evidence, is written here from ``docs/reproductions/NAME/report.json`` and
nowhere by hand. The page marks each generated part with a pair of HTML comments::

    <!-- BEGIN generated: kotla08-mix kotla08-phase -->
    ...  (rewritten by ``make docs``; do not edit)
    <!-- END generated -->

``index`` as the name list makes the table of every registered reproduction (committed
report or not, claims holding, seeds, wall time); entry names make, for each, its claims
with their evidence. Hand-written prose around the blocks explains causes and choices.
BENCHMARKS.md has one block, ``wall-times``: the wall time of every committed full run and
their total. ``make docs`` (``python -m pertlab.reproduce.doc``) rewrites the blocks of both
pages; tests/python/test_reproductions_doc.py checks that they equal what this module writes.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Any

from .registry import Report, fmt_seeds

__all__ = ["render_page", "stale_blocks", "main"]

BLOCK = re.compile(r"(<!-- BEGIN generated: (?P<names>[^>]*?) -->\n)(?P<body>.*?)(<!-- END generated -->)", re.S)


def _held(r: Report) -> int:
    return sum(c.holds for c in r.claims)


def _cell(text: str) -> str:
    """Text for one Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _wall(r: Report) -> str:
    return "not recorded" if r.wall_seconds is None else f"{r.wall_seconds:.0f} s"


def _seeds(r: Report) -> str:
    return fmt_seeds(r.seeds())


def _index(reports: dict[str, Report], registry: dict[str, Any]) -> str:
    rows = ["| entry | committed report | claims holding | seeds | wall time |", "|---|---|---|---|---|"]
    for name in sorted(registry):
        r = reports.get(name)
        if r is None:
            rows.append(f"| `{name}` | none (quick mode in the tests only) | | | |")
            continue
        link = f"[{r.mode}](reproductions/{name}/index.html)"
        rows.append(f"| `{name}` | {link} | {_held(r)} of {len(r.claims)} | {_seeds(r)} | {_wall(r)} |")
    committed = [r for r in reports.values() if r.name in registry]
    held = sum(_held(r) for r in committed)
    total = sum(len(r.claims) for r in committed)
    rows.append("")
    rows.append(
        f"{len(committed)} of {len(registry)} registered reproductions have a committed report; "
        f"{held} of the {total} claims those reports check hold."
    )
    return "\n".join(rows) + "\n"


def _wall_times(reports: dict[str, Report], registry: dict[str, Any]) -> str:
    """BENCHMARKS.md's table: the wall time of each committed report's run, and the total."""
    rows = ["| reproduction | mode | seeds | wall time |", "|---|---|---|---|"]
    recorded = [r for r in reports.values() if r.wall_seconds is not None]
    for name in sorted(registry):
        r = reports.get(name)
        rows.append(f"| `{name}` | none committed | | |" if r is None else f"| `{name}` | {r.mode} | {_seeds(r)} | {_wall(r)} |")
    # fsum: exact, so the total does not depend on the order the reports are read in (a sum ending in .5 rounds one way).
    total = math.fsum(r.wall_seconds or 0.0 for r in recorded)
    rows.append("")
    rows.append(
        f"Total over the {len(recorded)} reports that record it: {total:.0f} s ({total / 3600:.1f} h); "
        f"{len(reports) - len(recorded)} committed reports predate the record of wall time, "
        f"{len(set(registry) - set(reports))} registered reproductions have no committed report."
    )
    return "\n".join(rows) + "\n"


def _claims(r: Report) -> str:
    lines = [
        f"**[`{r.name}`](reproductions/{r.name}/index.html)**, {_cell(r.title)} "
        f"({r.mode} mode; seeds {_seeds(r)}; wall time {_wall(r)}): "
        f"{_held(r)} of {len(r.claims)} claims hold.",
        "",
        "| | claim | evidence |",
        "|---|---|---|",
    ]
    for c in r.claims:
        verdict = "holds" if c.holds else "**does not hold**"
        lines.append(f"| {verdict} | {_cell(c.text)} | {_cell(c.evidence)} |")
    for w, names in r.queue_warning_groups():
        scenarios = ", ".join(f"`{n}`" for n in names)
        lines += ["", f"A queue that cannot act, in {len(names)} scenario{'s' if len(names) > 1 else ''} ({scenarios}): {w}."]
    return "\n".join(lines) + "\n"


def _body(names: list[str], reports: dict[str, Report], registry: dict[str, Any]) -> str:
    if names == ["index"]:
        return _index(reports, registry)
    if names == ["wall-times"]:
        return _wall_times(reports, registry)
    parts = []
    for name in names:
        if name not in registry:
            raise ValueError(f"docs block names {name!r}, which is not a registered reproduction")
        if name not in reports:
            raise ValueError(f"docs block names {name!r}, which has no committed report under docs/reproductions/")
        parts.append(_claims(reports[name]))
    return "\n".join(parts)


def read_reports(reports_dir: Path) -> dict[str, Report]:
    """The reports committed in ``reports_dir`` by folder name, read without their scenarios
    (what the generated pages use of a report: :meth:`Report.read`)."""
    return {d.name: Report.read(d, with_scenarios=False) for d in sorted(reports_dir.iterdir()) if (d / "report.json").is_file()}


def render_page(text: str, reports_dir: Path, registry: dict[str, Any], every_report: bool = True) -> str:
    """``text`` with every generated block rewritten from the reports in ``reports_dir``.
    With ``every_report`` (docs/reproductions.md), every committed report must be named by
    exactly one block."""
    reports = read_reports(reports_dir)
    named: list[str] = []

    def replace(m: re.Match[str]) -> str:
        names = m.group("names").split()
        named.extend(n for n in names if n not in ("index", "wall-times"))
        return m.group(1) + _body(names, reports, registry) + m.group(4)

    out = BLOCK.sub(replace, text)
    twice = sorted({n for n in named if named.count(n) > 1})
    if twice:
        raise ValueError(f"docs blocks name {', '.join(twice)} more than once")
    missing = sorted(set(reports) - set(named))
    if every_report and missing:
        raise ValueError(f"committed reports with no docs block: {', '.join(missing)} (add <!-- BEGIN generated: NAME --> ... <!-- END generated -->)")
    return out


def stale_blocks(page: Path, reports_dir: Path, registry: dict[str, Any], every_report: bool = True) -> list[str]:
    """Names of the blocks of ``page`` that differ from what :func:`render_page` writes."""
    text = page.read_text()
    fresh = {m.group("names"): m.group("body") for m in BLOCK.finditer(render_page(text, reports_dir, registry, every_report))}
    return [m.group("names") for m in BLOCK.finditer(text) if fresh[m.group("names")] != m.group("body")]


def main(argv: list[str] | None = None) -> int:
    """``python -m pertlab.reproduce.doc [--check] [PAGE] [--benchmarks FILE]``: rewrite (or with
    --check, compare) the generated blocks of PAGE (default docs/reproductions.md) from the
    reports beside it, and those of the benchmarks page (default BENCHMARKS.md beside PAGE's
    folder, if it exists)."""
    from . import REGISTRY

    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    benchmarks = None
    if "--benchmarks" in args:
        i = args.index("--benchmarks")
        benchmarks = Path(args[i + 1])
        del args[i : i + 2]
    page = Path(args[0] if args else "docs/reproductions.md")
    reports_dir = page.parent / "reproductions"
    pages = [(page, True)]
    benchmarks = benchmarks or page.parent.parent / "BENCHMARKS.md"
    if benchmarks.is_file():
        pages.append((benchmarks, False))
    status = 0
    for path, every_report in pages:
        if check:
            for names in stale_blocks(path, reports_dir, REGISTRY, every_report):
                print(f"{path}: block '{names}' differs from its reports (run make docs)", file=sys.stderr)
                status = 1
        else:
            path.write_text(render_page(path.read_text(), reports_dir, REGISTRY, every_report))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
