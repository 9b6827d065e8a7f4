"""Strict JSON (RFC 8259) of pertlab's outputs: numpy scalars, tuples and non-finite floats
made plain, in a module of its own so that commands print JSON without loading numpy or
plotting.

Python's ``json.dumps`` writes NaN and infinities as ``NaN`` and ``Infinity``, which strict
parsers (``JSON.parse``, jq, serde) refuse; every JSON file and ``--json`` line pertlab writes
goes through :func:`dumps` instead, where they become ``null`` ("no value": a confidence
interval over one seed, a ratio to zero)."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

__all__ = ["jsonable", "dumps"]


def jsonable(obj: object) -> object:
    """``obj`` with tuples as lists and non-finite floats as None (strict JSON)."""
    # An object can only be a numpy scalar if numpy is loaded: the stability calculators, which
    # compute in plain floats, then print without importing it (issue 21's start-up time).
    np = sys.modules.get("numpy")
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, float) or (np is not None and isinstance(obj, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    if np is None:
        return obj
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


def dumps(obj: Any, **kw: Any) -> str:
    """``json.dumps`` of :func:`jsonable` ``(obj)``: strict JSON whatever floats ``obj`` holds
    (``kw`` as for ``json.dumps``: ``indent``, ``sort_keys``, ``default``)."""
    if "default" not in kw:
        # Most outputs are plain already: the C encoder writes them without the walk (a run's
        # summary: 1.5 ms against 5 ms). It refuses what the walk would change (a non-finite
        # float, a numpy integer or bool, a tuple key), which then takes the walk; with a
        # ``default`` it would hand the numpy values to it instead. (A key that is a bool or
        # None, which no output of pertlab has, is spelled true or null here, True or None by
        # the walk.)
        try:
            return json.dumps(obj, allow_nan=False, **kw)
        except (ValueError, TypeError):
            pass
    return json.dumps(jsonable(obj), allow_nan=False, **kw)
