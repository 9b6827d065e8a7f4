"""Running a scenario in the Rust core (``pertlab.run`` is this module's :func:`run`; the
module is not named ``run`` so that importing it cannot shadow the function on the package).

:func:`run` hands the scenario to the core as JSON and wraps what comes back
in :class:`~pertlab.results.Results`. The core calls back once per simulated
second and at least every 65 536 events; that drives the progress bar (on
stderr) and lets Ctrl-C stop a long run, even one that crawls through simulated
time: the results computed so far come back with ``interrupted`` set.
Inside :func:`pertlab.interrupt.deferred` (the ``pertlab`` commands) a stop
signal does the same without raising.

Before anything is built the core estimates the memory the run needs (its
nodes, links and routes, each flow's state and largest window, buffers, time
series, web sessions; ``crates/pertlab-sim/src/world/memory.rs``) and refuses
the run, naming the field responsible, when that exceeds ``memory_limit``:
by default the memory available now (:func:`pertlab.memory.available_memory`).
"""

from __future__ import annotations

import json
import sys
from os import PathLike
from pathlib import Path
from typing import Any

from . import _core
from .interrupt import requested
from .results import Results
from .scenario import Scenario, ScenarioError
from .memory import available_memory, core_limit
from .pymodels import resolve
from .scenario.errors import people_path

__all__ = ["run", "as_scenario", "available_memory", "memory_estimate", "ModelError"]

#: Raised when the code of a model written in Python fails during a run: its message has the
#: Python traceback, the simulated time, the flow and the hook; ``results`` holds the results
#: up to the event where it happened (flagged ``interrupted``).
ModelError = _core.ModelError

def as_scenario(scenario: Scenario | dict[str, Any] | str | Path) -> Scenario:
    """A :class:`Scenario` from itself, a mapping, or a ``.toml``/``.json`` file path."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return Scenario.parse(scenario)
    if not isinstance(scenario, (str, PathLike)):
        raise ScenarioError([("scenario", f"must be a Scenario, a dict or the path of a .toml or .json file, got {scenario!r}")])
    return Scenario.load(scenario)


def memory_estimate(scenario: Scenario | dict[str, Any] | str | Path, *, memory_limit: float | None = None) -> dict[str, Any]:
    """The core's estimate of the memory a run needs: ``{"total": bytes,
    "complete": bool, "parts": [{"field", "what", "bytes", "advice"}, ...]}``.
    Parts that need the network built (windows, buffers) are there only when
    the rest fits within ``memory_limit`` (``complete``)."""
    wire = as_scenario(scenario).to_wire_json()
    limit = core_limit(memory_limit)
    try:
        estimate = json.loads(_core.memory_estimate_json(wire, limit))
    except ValueError as e:
        raise ScenarioError.from_core(e) from None
    for part in estimate["parts"]:
        part["field"] = people_path(part["field"])
    return estimate


#: What :func:`run`'s flags accept (:func:`pertlab.arguments.check_kinds`).
RUN_KINDS = {"progress": ("bool", "whether to show simulated time on stderr")}


def run(scenario: Scenario | dict[str, Any] | str | Path, *, progress: bool = False, memory_limit: float | None = None) -> Results:
    """Run a scenario and return its results.

    ``progress=True`` shows simulated time on stderr. ``memory_limit`` (bytes, 1 to
    2**64 - 1; default the memory available now, ``math.inf`` for none): a run whose
    memory estimate is larger is refused before it starts. Bad input raises
    :class:`~pertlab.scenario.ScenarioError` (``field.path: message``); the
    core never panics on a validated scenario. A model written in Python whose code
    fails stops the run with :data:`ModelError` (results so far in its ``results``).
    """
    from .arguments import check_kinds

    check_kinds({"progress": progress}, RUN_KINDS)
    scenario = as_scenario(scenario)
    wire = scenario.to_wire_json()
    limit = core_limit(memory_limit)
    defaulted = memory_limit is None
    if not progress:
        # The core checks for Ctrl-C when it calls back; a deferred stop signal ends the run too.
        return _run(wire, scenario, lambda _t: not requested(), limit, defaulted)
    # rich only for the bar: importing it costs a run without one about 30 ms (issue 21).
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

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
        return _run(wire, scenario, lambda t: bar.update(task, completed=t) or not requested(), limit, defaulted)


def _run(wire: str, scenario: Scenario, callback, limit: int | None, defaulted: bool) -> Results:
    models = resolve(scenario)
    try:
        text = _core.run_json(wire, callback, limit, models or None)
    except ModelError as e:
        # A model written in Python failed: the run stopped after that event; its
        # results up to there ride on the exception.
        e.results = Results.from_json(e.results_json, scenario)
        raise
    except ValueError as e:
        raise ScenarioError.from_core(e, memory_limit="default" if defaulted else "given") from None
    return Results.from_json(text, scenario)
