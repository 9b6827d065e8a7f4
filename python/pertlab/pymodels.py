"""Models written in Python, resolved for a run (docs/python-cc.md, docs/python-aqm.md).

A scenario names a controller or a queue discipline written in Python as ``{kind = "py",
target = "module:Class"}`` (``--cc py:module:Class`` and ``--queue py:module:Class`` on the
command line). Before a run, :func:`resolve` imports each module (the scenario file's directory
searched first when the scenario was loaded from a file, the current directory otherwise, then
``sys.path``), finds the class and checks that it has the hooks a controller or a discipline
needs; the core then makes one instance per flow or per queue and calls its hooks where it calls
the Rust ones (``crates/pertlab-py/src/pycc.rs``, ``pyqueue.rs``). Every error names the field.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

from .scenario import Scenario, ScenarioError

__all__ = ["resolve", "queue_specs", "CC_REQUIRED", "CC_OPTIONAL", "QUEUE_REQUIRED", "QUEUE_OPTIONAL"]

#: The hooks every controller written in Python defines, and those it may (the core's
#: ``CongestionControl`` trait, Linux ``struct tcp_congestion_ops``).
CC_REQUIRED = ("ssthresh", "cong_avoid")
CC_OPTIONAL = ("init", "pkts_acked", "set_state", "cwnd_event", "undo_cwnd", "ecn_ssthresh")


#: The hook every queue discipline written in Python defines, and those it may (the core's
#: ``QueueDiscipline`` trait; ``timer`` with the attribute ``timer_interval_ns``).
QUEUE_REQUIRED = ("enqueue",)
QUEUE_OPTIONAL = ("dequeue", "timer")


def resolve(scenario: Scenario) -> dict[str, type]:
    """``{target: class}`` for every Python model of ``scenario`` (empty without any). A class
    named both as a controller and as a discipline must have the hooks of both."""
    classes: dict[str, type] = {}
    checked: set[tuple[str, str]] = set()
    search = search_dir(scenario)
    named = [(f"flows[{i}].cc.target", f.cc.target, "cc") for i, f in enumerate(scenario.flows) if f.cc.kind == "py"]
    named += [(f"{field}.target", q.target, "queue") for field, q in queue_specs(scenario) if q.kind == "py"]
    for field, target, role in named:
        if (target, role) not in checked:
            required, what = (CC_REQUIRED, "a controller") if role == "cc" else (QUEUE_REQUIRED, "a queue discipline")
            classes[target] = load_class(target, field, search, required, what)
            checked.add((target, role))
    return classes


def queue_specs(scenario: Scenario) -> list[tuple[str, Any]]:
    """Every queue spec of ``scenario`` with its field: ``links[i].queue``, ``links[i].queue_ba``,
    or the dumbbell's ``bottleneck_queue``, ``bottleneck_queue_reverse`` and ``access_queue``."""
    specs: list[tuple[str, Any]] = []
    for i, link in enumerate(scenario.links):
        specs.append((f"links[{i}].queue", link.queue))
        if link.queue_ba is not None:
            specs.append((f"links[{i}].queue_ba", link.queue_ba))
    d = scenario.dumbbell
    if d is not None:
        specs.append(("dumbbell.bottleneck_queue", d.bottleneck_queue))
        if d.bottleneck_queue_reverse is not None:
            specs.append(("dumbbell.bottleneck_queue_reverse", d.bottleneck_queue_reverse))
        specs.append(("dumbbell.access_queue", d.access_queue))
    return specs


def search_dir(scenario: Scenario) -> Path:
    """Where a scenario's modules are looked for first: its file's directory, or the current one."""
    return scenario.source_dir or Path.cwd()


def load_class(target: str, field: str, search: Path | None, required: tuple[str, ...], what: str) -> type:
    """The class ``module:Class`` names, imported with ``search`` (if any) first on the path;
    a :class:`ScenarioError` on ``field`` if it cannot be imported or lacks a required hook."""
    module_name, _, class_name = target.partition(":")
    where = f"{search} or sys.path" if search else "sys.path"
    added = search is not None and str(search) not in sys.path
    if added:
        sys.path.insert(0, str(search))
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ScenarioError([(field, f"cannot import module {module_name!r}: {e}; it must be importable from {where}")]) from None
    except Exception as e:  # the module's own code failed while importing
        raise ScenarioError([(field, f"importing module {module_name!r} raised {type(e).__name__}: {e}")]) from e
    finally:
        if added:
            sys.path.remove(str(search))
    cls: Any = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise ScenarioError([(field, f"module {module_name!r} ({module.__file__}) has no class {class_name!r}")])
    missing = [h for h in required if not callable(getattr(cls, h, None))]
    if missing:
        raise ScenarioError([(field, f"class {target} lacks the hook {', '.join(missing)}; {what} defines {' and '.join(required)}")])
    return cls
