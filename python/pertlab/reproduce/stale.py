"""Which committed reports ran scenarios other than the ones the code would run today.

A report folder keeps the scenarios it ran (``scenarios.json``, name -> wire format); every
registered entry gives the scenarios of a mode without running them (``Entry.scenarios``).
A report is *stale* when the two differ in what runs: a scenario only one side has, or a field
whose value differs. Both sides are first read through today's :class:`~pertlab.scenario.Scenario`
model, so that a field added since the report was made, which today's wire format writes with
its default, shows as a *new defaulted field* and does not make the report stale (the
convention of the code base: a new field's default keeps the old behaviour). The fluid entries'
"scenarios" are model parameters, compared as they are.

Scenarios are matched by name first. Sweep points are named by the hash of their scenario
(:func:`pertlab.sweep.run_key`), which changes with any field; the ones left are paired by
content (fewest differing fields), so that a change shows as its fields rather than as one
scenario removed and another added.

A report is stale too when the queues it records as unable to act (``report.json``'s
``queue_warnings``) are not those today's core finds in its scenarios
(:func:`pertlab.reproduce.registry.queue_warnings_of`).

A model change that alters results without changing any scenario (a fix inside the core or
an analysis) is not seen here.

``python -m pertlab.reproduce.stale [--dir DIR] [NAME ...]`` (``make stale-reports``) prints,
per committed report, "up to date" or "stale" with the differences; exit status 1 if any is.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..scenario import Scenario, ScenarioError
from .registry import Entry, Wire, queue_warnings_of

__all__ = ["Diff", "Pair", "Comparison", "diff", "compare", "compare_all", "main"]

#: Differing field paths shown per scenario (grouped over list indices; the rest are counted).
SHOWN = 4


@dataclass(frozen=True)
class Diff:
    """One field that differs: ``kind`` is "added" (only today), "removed" (only in the report)
    or "changed"; ``old`` and ``new`` its values (None where absent)."""

    path: str
    kind: str
    old: Any = None
    new: Any = None


def diff(old: Any, new: Any, path: str = "") -> list[Diff]:
    """The leaves where ``new`` differs from ``old`` (dicts by key, lists by index)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[Diff] = []
        for key in sorted(old.keys() | new.keys()):
            sub = f"{path}.{key}" if path else str(key)
            if key not in new:
                out.append(Diff(sub, "removed", old[key], None))
            elif key not in old:
                out.append(Diff(sub, "added", None, new[key]))
            else:
                out += diff(old[key], new[key], sub)
        return out
    if isinstance(old, list) and isinstance(new, list):
        out = [d for i, (a, b) in enumerate(zip(old, new)) for d in diff(a, b, f"{path}[{i}]")]
        out += [Diff(f"{path}[{i}]", "removed", a, None) for i, a in enumerate(old[len(new) :], len(new))]
        out += [Diff(f"{path}[{i}]", "added", None, b) for i, b in enumerate(new[len(old) :], len(old))]
        return out
    return [] if old == new else [Diff(path, "changed", old, new)]


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 40 else text[:37] + "..."


def _general(path: str) -> str:
    """A path with its list indices as ``[*]``."""
    return re.sub(r"\[\d+\]", "[*]", path)


def describe(diffs: Iterable[Diff], shown: int = SHOWN) -> str:
    """Differences for a reader: grouped over list indices (``flows[*].tcp``), the first
    ``shown`` groups with their values, then how many more."""
    groups: dict[tuple[str, str], list[Diff]] = {}
    for d in diffs:
        groups.setdefault((_general(d.path), d.kind), []).append(d)
    parts = []
    for (path, kind), ds in list(groups.items())[:shown]:
        d = ds[0]
        value = {"added": lambda: _short(d.new), "removed": lambda: _short(d.old), "changed": lambda: f"{_short(d.old)} -> {_short(d.new)}"}[kind]()
        parts.append(f"{path} {kind} ({value}){f' x{len(ds)}' if len(ds) > 1 else ''}")
    if len(groups) > shown:
        parts.append(f"... {len(groups) - shown} more fields")
    return "; ".join(parts)


@dataclass
class Pair:
    """A scenario of the report and today's counterpart: ``changes`` alter what runs,
    ``defaulted`` are fields today's model adds with their defaults."""

    old_key: str
    new_key: str
    changes: list[Diff]
    defaulted: list[Diff]


@dataclass
class Comparison:
    """A committed report against what its entry would run today."""

    name: str
    mode: str
    pairs: list[Pair] = field(default_factory=list)
    #: Scenario names only the report has, and only today's code has.
    only_report: list[str] = field(default_factory=list)
    only_today: list[str] = field(default_factory=list)
    #: Why the report cannot be compared (no registered entry, no scenarios.json), if so.
    problem: str | None = None
    #: The scenarios with a queue that cannot act, as the report records them and as today's
    #: core finds them in the report's scenarios, when the two differ; else None.
    queue_warnings: tuple[list[str] | None, list[str]] | None = None

    @property
    def stale(self) -> bool:
        return bool(self.problem or self.only_report or self.only_today or self.queue_warnings or any(p.changes for p in self.pairs))

    def lines(self) -> list[str]:
        """The comparison for a reader: a first line, then one indented line per difference."""
        if self.problem:
            return [f"{self.name}: stale ({self.problem})"]
        changed = [p for p in self.pairs if p.changes]
        defaulted = Counter(_general(d.path) for p in self.pairs for d in p.defaulted)
        n = len(self.pairs) + len(self.only_report)
        head = f"{self.name} ({self.mode}): " + ("stale" if self.stale else "up to date") + f", {n} scenarios"
        if changed or self.only_report or self.only_today:
            head += f": {len(changed)} changed, {len(self.only_report)} only in the report, {len(self.only_today)} only today"
        out = [head]
        # Scenarios whose changes are to the same fields: the first shown, the others counted.
        alike: dict[frozenset[tuple[str, str]], list[Pair]] = {}
        for p in changed:
            alike.setdefault(frozenset((_general(d.path), d.kind) for d in p.changes), []).append(p)
        for pairs in alike.values():
            p = pairs[0]
            key = p.old_key if p.old_key == p.new_key else f"{p.old_key} -> {p.new_key}"
            more = f" (and {len(pairs) - 1} more scenarios with changes to the same fields)" if len(pairs) > 1 else ""
            out.append(f"  {key}: {describe(p.changes)}{more}")
        if self.queue_warnings:
            recorded, today = self.queue_warnings
            out.append(f"  queues that cannot act: {'none recorded' if recorded is None else ', '.join(recorded) or 'none'} in the report, "
                       f"{', '.join(today) or 'none'} by today's core (the scenarios' names)")  # fmt: skip
        for what, keys in (("only in the report", self.only_report), ("only today", self.only_today)):
            if keys:
                out.append(f"  {what}: {', '.join(keys[:SHOWN])}{f' and {len(keys) - SHOWN} more' if len(keys) > SHOWN else ''}")
        if defaulted:
            example = next(d for p in self.pairs for d in p.defaulted)
            fields = ", ".join(sorted(defaulted)[:SHOWN]) + (f" and {len(defaulted) - SHOWN} more" if len(defaulted) > SHOWN else "")
            out.append(f"  new defaulted fields (not counted as changes): {fields} (e.g. {example.path} = {_short(example.new)})")
        return out


def _read_today(wire: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """``wire`` read through today's scenario model and written again; the error if it no
    longer reads. A namespace-testbed scenario (kotla08-live's) is read through today's
    testbed model."""
    try:
        return Scenario.parse(wire).to_wire(), None
    except ScenarioError as e:
        from ..linux.scenario import TestbedScenario

        try:  # its fields are not a simulator scenario's: either model reads only its own
            return TestbedScenario.parse(wire).model_dump(mode="json"), None
        except ScenarioError:
            return wire, str(e)


def _is_scenario(wire: Any) -> bool:
    return isinstance(wire, dict) and _read_today(wire)[1] is None


def _pair(old: dict[str, Any], old_raw: dict[str, Any], error: str | None, key: str, new_key: str, new: Any) -> Pair:
    """``old`` (read today) against ``new``; what reading added to ``old_raw`` is defaulted."""
    read = diff(old_raw, old)
    defaulted = [d for d in read if d.kind == "added"]
    # Anything else reading changed (a value read differently today) alters what runs.
    changes = [d for d in read if d.kind != "added"] + diff(old, new)
    if error:
        changes.insert(0, Diff("(scenario)", "changed", "valid", f"no longer valid today: {error}"))
    return Pair(key, new_key, changes, defaulted)


def _leaves(x: Any, path: str = "") -> Iterable[tuple[str, str]]:
    """(path, value as JSON) of every leaf of ``x``."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path, json.dumps(x)


def _costs(old: list[Any], new: list[Any]) -> list[list[int]]:
    """How many leaves differ between each of ``old`` and each of ``new`` (the leaves all
    share set aside first: a sweep's points differ in a few)."""
    a, b = [set(_leaves(x)) for x in old], [set(_leaves(x)) for x in new]
    common = set.intersection(*a, *b)
    a, b = [s - common for s in a], [s - common for s in b]
    return [[len(x ^ y) for y in b] for x in a]


def compare(entry: Entry, folder: Path) -> Comparison:
    """The report in ``folder`` against ``entry.scenarios`` of its mode."""
    report = json.loads((folder / "report.json").read_text())
    mode = report.get("mode", "full")
    out = Comparison(entry.name, mode)
    if not (folder / "scenarios.json").is_file():
        out.problem = "no scenarios.json"
        return out
    committed: Wire = json.loads((folder / "scenarios.json").read_text())
    recorded, found = report.get("queue_warnings"), queue_warnings_of(committed)
    if recorded != found:
        out.queue_warnings = (None if recorded is None else sorted(recorded), sorted(found))
    today = entry.scenarios(mode == "quick")
    wire = all(_is_scenario(v) for v in today.values())
    read = {k: _read_today(v) if wire else (v, None) for k, v in committed.items()}

    new_keys = [k for k in today if k not in committed]
    old_keys = [k for k in committed if k not in today]
    for k in committed:
        if k in today:
            out.pairs.append(_pair(read[k][0], committed[k], read[k][1], k, k, today[k]))
    # Same content under another name (a hash that changed with a defaulted field) first, then
    # the rest paired by fewest differing fields.
    canon = {json.dumps(today[k], sort_keys=True): k for k in new_keys}
    for k in list(old_keys):
        match = canon.pop(json.dumps(read[k][0], sort_keys=True), None)
        if match is not None:
            out.pairs.append(_pair(read[k][0], committed[k], read[k][1], k, match, today[match]))
            old_keys.remove(k)
            new_keys.remove(match)
    if old_keys and new_keys:
        from scipy.optimize import linear_sum_assignment

        rows, cols = linear_sum_assignment(_costs([read[o][0] for o in old_keys], [today[n] for n in new_keys]))
        for i, j in zip(rows, cols):
            o, n = old_keys[i], new_keys[j]
            out.pairs.append(_pair(read[o][0], committed[o], read[o][1], o, n, today[n]))
        paired_old, paired_new = {old_keys[i] for i in rows}, {new_keys[j] for j in cols}
        old_keys = [k for k in old_keys if k not in paired_old]
        new_keys = [k for k in new_keys if k not in paired_new]
    out.only_report, out.only_today = old_keys, new_keys
    return out


def compare_all(reports_dir: Path, registry: dict[str, Entry], names: Iterable[str] = ()) -> list[Comparison]:
    """Every committed report under ``reports_dir`` (or those named), in name order."""
    wanted = set(names)
    out = []
    for folder in sorted(d for d in reports_dir.iterdir() if (d / "report.json").is_file()):
        if wanted and folder.name not in wanted:
            continue
        entry = registry.get(folder.name)
        if entry is None:
            out.append(Comparison(folder.name, "?", problem="no registered entry of this name"))
        else:
            out.append(compare(entry, folder))
    missing = wanted - {c.name for c in out}
    if missing:
        raise ValueError(f"no committed report under {reports_dir} for {', '.join(sorted(missing))}")
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m pertlab.reproduce.stale [--dir DIR] [NAME ...]``: compare the committed
    reports (default docs/reproductions) with today's scenarios; 1 if any is stale."""
    import argparse

    from . import REGISTRY

    parser = argparse.ArgumentParser(prog="python -m pertlab.reproduce.stale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=Path("docs/reproductions"), help="folder of report folders (default: docs/reproductions)")
    parser.add_argument("names", nargs="*", help="reports to compare (default: all)")
    args = parser.parse_args(argv)
    try:
        comparisons = compare_all(args.dir, REGISTRY, args.names)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    for c in comparisons:
        print("\n".join(c.lines()))
    stale = [c.name for c in comparisons if c.stale]
    print(f"{len(stale)} of {len(comparisons)} reports stale" + (f": {', '.join(stale)} (regenerate with pertlab reproduce NAME --full)" if stale else ""))
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
