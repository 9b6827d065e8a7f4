"""The registry of reproductions, the report every one of them writes and the figures
it lists; :mod:`pertlab.reproduce.page` lays the report out as HTML."""

from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import polars as pl

from ..jsonable import dumps

__all__ = ["Claim", "Figure", "Report", "Entry", "REGISTRY", "register", "get", "queue_warnings_of", "fmt_values", "fmt_seeds", "rank_correlation", "Wire", "wire_of"]

#: Scenarios by name in the core's wire format (:meth:`pertlab.scenario.Scenario.to_wire`; the fluid
#: entries' model parameters instead), as a report's scenarios.json holds them.
Wire = dict[str, Any]


def wire_of(points: Any) -> Wire:
    """The wire scenarios of sweep points (:class:`pertlab.sweep.Point`), by their keys."""
    return {p.key: p.scenario.to_wire() for p in points}


def queue_warnings_of(scenarios: Wire) -> dict[str, list[str]]:
    """The core's ``queue_warnings`` of every packet-level scenario in ``scenarios`` that has any
    (:meth:`pertlab.scenario.Scenario.queue_warnings`, from the built network, nothing run), by
    name. The fluid and live entries' model parameters are not core scenarios (no ``duration_ns``)
    and have none."""
    from .. import _core

    found = {}
    for name, wire in scenarios.items():
        if isinstance(wire, dict) and "duration_ns" in wire:
            if warnings := _core.validate_json(json.dumps(wire), None):
                found[name] = warnings
    return found


def fmt_values(xs: list[Any]) -> str:
    """Values for a claim's evidence: numbers to three significant digits."""
    return ", ".join(f"{v:.3g}" if isinstance(v, (int, float)) else str(v) for v in xs)


def fmt_seeds(seeds: list[int]) -> str:
    """Seeds for a report's header: a run of consecutive ones as ``first..last``."""
    if not seeds:
        return "none (no random runs)"
    if len(seeds) > 4 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}..{seeds[-1]}"
    return ", ".join(map(str, seeds))


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


@dataclass(frozen=True)
class Figure:
    """A PNG of a report and its caption. ``draw(path)`` makes it from the report's tables;
    None for a figure the run draws from data the report does not keep (time series of a
    run), which re-rendering leaves as it is."""

    file: str
    caption: str
    draw: Callable[[Path], None] | None = None


#: Tables of one row per run, shown folded under the summary unless an entry says otherwise.
RUN_TABLES = ("runs", "per_run")


@dataclass
class Report:
    """What a reproduction produced; :meth:`write` makes the report folder, :meth:`read`
    reads one back (the page alone is rewritten by :meth:`write_page`)."""

    name: str
    title: str
    source: str
    mode: str
    out_dir: Path
    notes: list[str] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    #: Tables saved as Parquet and shown in the page (comparisons carry the published columns).
    tables: dict[str, pl.DataFrame] = field(default_factory=dict)
    #: PNG files inside ``out_dir``, with their captions.
    figures: list[Figure] = field(default_factory=list)
    #: Scenarios run, by name, in the core's wire format; None in a report read back without
    #: them (:meth:`read`), which cannot be written.
    scenarios: Wire | None = field(default_factory=dict)
    #: Names of the tables of per-run (or per-sample) rows: folded away in the page.
    details: tuple[str, ...] = RUN_TABLES
    #: Seconds of every invocation that ran into the report's folder (an interrupted one
    #: and the ones that resumed it, as kept in :data:`WALL_LEDGER`); None for a report read
    #: back from one written before this was kept.
    wall_seconds: float | None = None
    #: The seeds ``report.json`` records (:meth:`seeds` when the report was written), which
    #: answer :meth:`seeds` for a report read back without its scenarios.
    recorded_seeds: list[int] | None = None
    #: The scenarios (by name) in which a queue can never act on its buffer, with the core's
    #: ``queue_warnings`` (:func:`queue_warnings_of`): the points where an AQM the report names
    #: is drop-tail. None for a report read back from one written before this was kept.
    queue_warnings: dict[str, list[str]] | None = None

    def write(self) -> Path:
        if self.scenarios is None:
            raise ValueError(f"{self.out_dir}: the report was read without its scenarios; Report.read(folder) to write it again")
        out = self.out_dir
        out.mkdir(parents=True, exist_ok=True)
        for name, table in self.tables.items():
            table.write_parquet(out / f"{name}.parquet")
        (out / "scenarios.json").write_text(dumps(self.scenarios, indent=1, sort_keys=True) + "\n")
        (out / "report.json").write_text(dumps(self.summary(), indent=2) + "\n")
        return self.write_page()

    def write_page(self) -> Path:
        """``index.html`` alone (see :mod:`pertlab.reproduce.page`)."""
        from .page import html_page

        (self.out_dir / "index.html").write_text(html_page(self))
        return self.out_dir / "index.html"

    @classmethod
    def read(cls, folder: Path, with_scenarios: bool = True) -> Report:
        """The report a folder holds: ``report.json``, its tables' Parquet files and
        ``scenarios.json`` (figures are the entry's to list: :meth:`Entry.render`). A folder
        missing one of them, or holding one damaged, is a ``ValueError`` naming the folder.

        Without ``with_scenarios``, ``scenarios.json`` is left unread when ``report.json``
        records the seeds: it is most of a report's bytes (200 of the committed reports' 218 MB
        on 2026-12-02), and the pages generated from the reports need only the seeds of it."""
        try:
            data = json.loads((folder / "report.json").read_text())
            seeds = data.get("seeds")
            return cls(
                name=data["name"], title=data["title"], source=data["source"], mode=data["mode"], out_dir=folder, notes=data["notes"],
                claims=[Claim(**c) for c in data["claims"]],
                tables={name: pl.read_parquet(folder / f"{name}.parquet") for name in data["tables"]},
                scenarios=json.loads((folder / "scenarios.json").read_text()) if with_scenarios or seeds is None else None,
                wall_seconds=data.get("wall_seconds"), recorded_seeds=seeds, queue_warnings=data.get("queue_warnings"),
            )  # fmt: skip
        except (OSError, ValueError, KeyError, TypeError, pl.exceptions.PolarsError) as e:  # JSONDecodeError is a ValueError
            raise ValueError(f"{folder}: not a whole report of pertlab reproduce ({type(e).__name__}: {e}); run the reproduction again") from None

    def queue_warning_groups(self) -> list[tuple[str, list[str]]]:
        """:attr:`queue_warnings` as (warning, the scenarios that carry it) pairs, in the order
        first met: what the report's page and docs/reproductions.md print."""
        groups: dict[str, list[str]] = {}
        for name, warnings in (self.queue_warnings or {}).items():
            for w in warnings:
                groups.setdefault(w, []).append(name)
        return list(groups.items())

    def seeds(self) -> list[int]:
        """Seeds of the report's runs: its tables' ``seed`` columns and its scenarios' seeds
        (an entry may keep one scenario per point and run it with many seeds); those
        ``report.json`` records when the scenarios were not read."""
        if self.scenarios is None:
            assert self.recorded_seeds is not None, "read() reads the scenarios when report.json records no seeds"
            return self.recorded_seeds
        seeds = {s["seed"] for s in self.scenarios.values() if isinstance(s, dict) and "seed" in s}
        for table in self.tables.values():
            if "seed" in table.columns:
                seeds |= set(table["seed"].to_list())
        return sorted(seeds)

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
            "figures": [f.file for f in self.figures],
            "notes": self.notes,
            "wall_seconds": self.wall_seconds,
            "seeds": self.seeds(),
            "queue_warnings": self.queue_warnings,
        }


#: The seconds spent so far by the invocations that ran into a report folder, beside the
#: runs they stored (``tasks/``, which a resumed run reuses; removed with them).
WALL_LEDGER = Path("tasks") / "wall_seconds.json"


@dataclass(frozen=True)
class Entry:
    """A named reproduction: ``run(quick, out_dir, workers)`` returns its report (not yet
    written, without figures or scenarios); ``workers`` (:class:`pertlab.parallel.Workers`)
    says where its runs execute. ``figures(report)`` lists its figures, drawn from the report's
    tables, so that a written report can be rendered again without running anything.
    ``scenarios(quick)`` gives the scenarios a mode runs without running them (the run builds
    its runs from the same function; :mod:`pertlab.reproduce.stale` compares them with a
    committed report's). ``details`` names its tables of per-run rows. ``runs_here`` says why
    an entry computes everything in this process and sends nothing to ``workers`` (None for the
    entries that use them); the command line then refuses ``--jobs`` and ``--cluster``."""

    name: str
    title: str
    source: str
    run: Callable[[bool, Path, Any], Report]
    figures: Callable[[Report], list[Figure]]
    scenarios: Callable[[bool], Wire]
    details: tuple[str, ...] = RUN_TABLES
    runs_here: str | None = None

    def report(self, quick: bool, out: Path, workers: Any) -> Report:
        """Run the reproduction and write its report folder. Its wall time adds this
        invocation's to those of the earlier ones that ran into ``out`` (kept in
        :data:`WALL_LEDGER`, whether they finished or were interrupted): a resumed
        reproduction's report counts the time its stored runs took."""
        started, ledger = time.monotonic(), out / WALL_LEDGER
        earlier = float(json.loads(ledger.read_text())) if ledger.is_file() else 0.0
        try:
            scenarios = self.scenarios(quick)
            report = self.run(quick, out, workers)
        finally:
            spent = round(earlier + time.monotonic() - started, 3)
            ledger.parent.mkdir(parents=True, exist_ok=True)
            ledger.write_text(dumps(spent) + "\n")
        report.scenarios = scenarios
        report.queue_warnings = queue_warnings_of(scenarios)
        report.wall_seconds = round(spent, 1)
        self._present(report)
        report.write()
        return report

    def render(self, folder: Path) -> Report:
        """Draw the figures of the report written in ``folder`` again from its tables and
        rewrite its page; the data files stay as they are."""
        if not (folder / "report.json").is_file():
            raise ValueError(f"{folder}: no report.json here; give a folder written by `pertlab reproduce {self.name}`")
        report = Report.read(folder)
        if report.name != self.name:
            raise ValueError(f"{folder} holds the report of {report.name!r}, not {self.name!r}")
        self._present(report)
        report.write_page()
        return report

    def _present(self, report: Report) -> None:
        report.details = self.details
        report.figures = self.figures(report)
        report.out_dir.mkdir(parents=True, exist_ok=True)
        for f in report.figures:
            path = report.out_dir / f.file
            if f.draw is not None:
                f.draw(path)
            elif not path.is_file():
                raise ValueError(f"{path}: {self.name}'s run draws this figure from data the report does not keep; run the reproduction")


REGISTRY: dict[str, Entry] = {}


#: Which transmission ends are events in the scenarios of every reproduction that do not say:
#: ``always``, the convention the committed reports were made with (docs/model.md,
#: "Transmission ends"), so that a report's rerun is the run it records; the scenarios of the
#: rest of pertlab default to the faster ``when_needed``.
REPRODUCTION_TX_END_EVENTS = "always"


def _holding_reproduction_engine(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with the scenarios it makes (here and on its workers) holding
    :data:`REPRODUCTION_TX_END_EVENTS`."""
    from ..scenario import tx_end_events_default

    @functools.wraps(fn)
    def held(*args: Any, **kwargs: Any) -> Any:
        with tx_end_events_default(REPRODUCTION_TX_END_EVENTS):
            return fn(*args, **kwargs)

    return held


def register(entry: Entry) -> Entry:
    """Add ``entry`` to the registry, its ``run`` and ``scenarios`` holding
    :data:`REPRODUCTION_TX_END_EVENTS`; returns the entry registered."""
    if entry.name in REGISTRY:
        raise ValueError(f"reproduction {entry.name!r} registered twice")
    entry = replace(entry, run=_holding_reproduction_engine(entry.run), scenarios=_holding_reproduction_engine(entry.scenarios))
    REGISTRY[entry.name] = entry
    return entry


def get(name: str) -> Entry:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown reproduction {name!r}; known: {', '.join(sorted(REGISTRY))} (see pertlab reproduce --list)") from None
