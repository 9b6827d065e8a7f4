"""The memory limit a run is held to: the bytes given, or the memory available now.

The core estimates the memory a run needs before it builds anything
(``crates/pertlab-sim/src/world/memory.rs``) and refuses the run above the limit it is
handed; :func:`pertlab.runner.run`, :meth:`pertlab.Scenario.check` and the builders' early
check all take their limit from :func:`core_limit`.
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path

from .scenario.errors import ScenarioError
from .units import U64_MAX

__all__ = ["available_memory", "total_memory", "core_limit"]


def available_memory() -> int | None:
    """Bytes of memory available for new work now: ``MemAvailable`` of
    ``/proc/meminfo`` (Linux), else psutil's figure when psutil is installed,
    else None (no limit)."""
    return _meminfo("MemAvailable:", "available")


def total_memory() -> int | None:
    """Bytes of memory of the machine: ``MemTotal`` of ``/proc/meminfo`` (Linux), else
    psutil's figure when psutil is installed, else None."""
    return _meminfo("MemTotal:", "total")


def _meminfo(line_start: str, psutil_field: str) -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith(line_start):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import psutil
    except ImportError:
        return None
    return int(getattr(psutil.virtual_memory(), psutil_field))


def core_limit(memory_limit: float | None) -> int | None:
    """The limit handed to the core: ``memory_limit`` bytes (1 to :data:`~pertlab.units.U64_MAX`,
    the core's u64; a fraction rounds down), the available memory when None, no limit (None)
    for ``math.inf``. Anything else is an error naming ``memory_limit``."""
    if memory_limit is None:
        return available_memory()
    if isinstance(memory_limit, bool) or not isinstance(memory_limit, numbers.Real) or math.isnan(memory_limit) or not (1 <= memory_limit <= U64_MAX or memory_limit == math.inf):
        raise ScenarioError([("memory_limit", f"must be a positive number of bytes, 1 to {U64_MAX} (2**64 - 1), or math.inf for no limit, got {memory_limit!r}")])
    return None if math.isinf(memory_limit) else int(memory_limit)
