"""Running a scenario in the Rust core.

:func:`run` hands the scenario to the core as JSON and wraps what comes back
in :class:`~pertlab.results.Results`. The core calls back once per simulated
second and at least every 65 536 events; that drives the progress bar (on
stderr) and lets Ctrl-C stop a long run, even one that crawls through simulated
time: the results computed so far come back with ``interrupted`` set.
Inside :func:`pertlab.interrupt.deferred` (the ``pertlab`` commands) a stop
signal does the same without raising.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from . import _core
from .interrupt import requested
from .results import Results
from .scenario import Scenario, ScenarioError

__all__ = ["run", "as_scenario"]


def as_scenario(scenario: Scenario | dict[str, Any] | str | Path) -> Scenario:
    """A :class:`Scenario` from itself, a mapping, or a ``.toml``/``.json`` file path."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return Scenario.parse(scenario)
    return Scenario.load(scenario)


def run(scenario: Scenario | dict[str, Any] | str | Path, *, progress: bool = False) -> Results:
    """Run a scenario and return its results.

    ``progress=True`` shows simulated time on stderr. Bad input raises
    :class:`~pertlab.scenario.ScenarioError` (``field.path: message``); the
    core never panics on a validated scenario.
    """
    scenario = as_scenario(scenario)
    wire = scenario.to_wire_json()
    if not progress:
        # The core checks for Ctrl-C when it calls back; a deferred stop signal ends the run too.
        return _run(wire, scenario, lambda _t: not requested())
    total = scenario.duration / 1e9
    bar = Progress(
        TextColumn("[bold]simulating"),
        BarColumn(),
        TextColumn("{task.completed:.0f}/{task.total:.0f} s simulated"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    )
    with bar:
        task = bar.add_task("run", total=total)
        return _run(wire, scenario, lambda t: bar.update(task, completed=t) or not requested())


def _run(wire: str, scenario: Scenario, callback) -> Results:
    try:
        text = _core.run_json(wire, callback)
    except ValueError as e:
        raise ScenarioError.from_core(e) from None
    return Results.from_json(text, scenario)
