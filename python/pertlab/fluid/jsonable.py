"""Strict JSON of the fluid models' results (numpy scalars, tuples, non-finite floats), in a
module of its own so that the stability calculators print JSON without loading plotting."""

from __future__ import annotations

import numpy as np


def jsonable(obj: object) -> object:
    """``obj`` with tuples as lists and non-finite floats as None (strict JSON)."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return float(obj) if np.isfinite(obj) else None
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj
