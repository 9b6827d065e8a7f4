"""Local process pools for independent simulations.

Workers are spawned, not forked: forking a process whose polars thread pool
is running can deadlock the child.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["process_pool", "parallel_map"]


def process_pool(jobs: int | None = None, tasks: int | None = None) -> ProcessPoolExecutor:
    """A pool of ``jobs`` spawned workers (default: one per core, at most ``tasks``)."""
    workers = jobs or os.cpu_count() or 1
    if tasks is not None:
        workers = max(1, min(workers, tasks))
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))


def parallel_map(fn: Callable[[T], R], items: Iterable[T], jobs: int | None = None) -> list[R]:
    """``[fn(x) for x in items]`` over spawned worker processes, in order."""
    items = list(items)
    with process_pool(jobs, len(items)) as pool:
        return list(pool.map(fn, items))
