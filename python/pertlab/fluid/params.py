"""Domain checks shared by the fluid models and the theorem calculators.

Every check raises :class:`ValueError` whose message starts with the
parameter's name (``flows: must be a positive integer, got 0``), the
convention of every pertlab error; the CLI maps the name to its flag.
"""

from __future__ import annotations

import math

__all__ = ["positive", "non_negative", "count", "open_unit", "unit_interval", "ordered"]


def _num(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name}: must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name}: must be finite, got {value!r}")
    return v


def positive(name: str, value: object, unit: str = "") -> float:
    """A finite number > 0."""
    v = _num(name, value)
    if v <= 0:
        raise ValueError(f"{name}: must be positive, got {v:g}{unit}")
    return v


def non_negative(name: str, value: object, unit: str = "") -> float:
    """A finite number >= 0."""
    v = _num(name, value)
    if v < 0:
        raise ValueError(f"{name}: must be zero or positive, got {v:g}{unit}")
    return v


def count(name: str, value: object) -> int:
    """An integer >= 1 (a number of flows)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or float(value) != int(value):
        raise ValueError(f"{name}: must be a positive integer, got {value!r}")
    if int(value) < 1:
        raise ValueError(f"{name}: must be a positive integer (at least one flow), got {int(value)}")
    return int(value)


def open_unit(name: str, value: object) -> float:
    """A number strictly inside (0, 1), e.g. the EWMA weight alpha."""
    v = _num(name, value)
    if not 0 < v < 1:
        raise ValueError(f"{name}: must lie strictly between 0 and 1, got {v:g}")
    return v


def unit_interval(name: str, value: object) -> float:
    """A probability in (0, 1]."""
    v = _num(name, value)
    if not 0 < v <= 1:
        raise ValueError(f"{name}: must lie in (0, 1], got {v:g}")
    return v


def ordered(lo_name: str, lo: float, hi_name: str, hi: float, unit: str = "") -> None:
    """Require ``lo < hi``; the message names both parameters."""
    if not lo < hi:
        raise ValueError(f"{lo_name}: must be below {hi_name} ({lo_name} = {lo:g}{unit}, {hi_name} = {hi:g}{unit})")
