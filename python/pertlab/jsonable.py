"""Strict JSON of the fluid models' results (numpy scalars, tuples, non-finite floats), in a
module of its own so that the stability calculators print JSON without loading plotting."""

from __future__ import annotations

import math
import sys


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
