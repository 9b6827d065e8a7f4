"""The Python side's ratios over populations, with the core's rule for an empty one.

The core's metrics (crates/pertlab-sim/src/stats) are undefined over an empty set: a drop rate
without arrivals, Jain's index when nothing was delivered. They come out as None (null in JSON
and Parquet, a blank cell in the tables), never as 0 or 1. The experiments that aggregate
results in Python use these functions, so their derived figures follow the same rule.
"""

from __future__ import annotations

from ._core import jain_index

__all__ = ["jain_index", "rate"]


def rate(count: float, population: float) -> float | None:
    """``count / population``, or None when the population is empty (0): a loss fraction
    without packets sent is undefined, not 0."""
    return count / population if population else None
