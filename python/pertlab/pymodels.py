"""Models written in Python, resolved for a run (docs/python-cc.md).

A scenario names a controller written in Python as ``{kind = "py", target = "module:Class"}``
(``--cc py:module:Class`` on the command line). Before a run, :func:`resolve` imports each
module (the scenario file's directory searched first when the scenario was loaded from a file,
the current directory otherwise, then ``sys.path``), finds the class and checks that it has the hooks a controller needs;
the core then makes one instance per flow and calls its hooks where it calls the Rust ones
(``crates/pertlab-py/src/pycc.rs``). Every error names the field.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

from .scenario import Scenario, ScenarioError

__all__ = ["resolve", "CC_REQUIRED", "CC_OPTIONAL"]

#: The hooks every controller written in Python defines, and those it may (the core's
#: ``CongestionControl`` trait, Linux ``struct tcp_congestion_ops``).
CC_REQUIRED = ("ssthresh", "cong_avoid")
CC_OPTIONAL = ("init", "pkts_acked", "set_state", "cwnd_event", "undo_cwnd", "ecn_ssthresh")


def resolve(scenario: Scenario) -> dict[str, type]:
    """``{target: class}`` for every Python model of ``scenario`` (empty without any)."""
    classes: dict[str, type] = {}
    for i, flow in enumerate(scenario.flows):
        if flow.cc.kind == "py" and flow.cc.target not in classes:
            classes[flow.cc.target] = load_class(flow.cc.target, f"flows[{i}].cc.target", search_dir(scenario), CC_REQUIRED, "a controller")
    return classes


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
