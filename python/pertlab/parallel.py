"""Where independent simulations run: local process pools, or a Dask cluster.

Local workers are spawned, not forked: forking a process whose polars thread
pool is running can deadlock the child. :class:`Workers` is what reproductions
take: ``jobs`` local processes, or the scheduler of a Dask distributed cluster
(``pertlab reproduce --cluster tcp://host:8786``) whose workers have pertlab.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["process_pool", "parallel_map", "Workers"]


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


@dataclass(frozen=True)
class Workers:
    """``jobs`` local worker processes (default one per core), or the Dask
    scheduler at ``cluster`` when given."""

    jobs: int | None = None
    cluster: str | None = None

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``[fn(x) for x in items]`` on these workers, in order."""
        items = list(items)
        if self.cluster is None:
            return parallel_map(fn, items, self.jobs)
        from dask.distributed import Client

        with Client(self.cluster) as client:
            return client.gather(client.map(fn, items, pure=False))
