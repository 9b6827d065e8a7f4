"""Testbed runs taken again when this virtual machine's host held the run back.

A testbed measurement needs the machine's time: the delay line's releases, the sampling loop's
reads. The host of this virtual machine sometimes takes it for minutes at a time, so a run whose
own record shows that (the delay line's lateness, a read taken late) is no measurement and is
taken again after each of :data:`HOST_WAITS_S`. The claim is then asserted on the last run,
and a run the host never let through fails, naming every attempt."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: Waits (s) before a run is taken again: a host that takes time does so for minutes.
HOST_WAITS_S = (5.0, 15.0, 30.0)


def measured(run: Callable[[], T], held_back: Callable[[T], str | None], waits: tuple[float, ...] = HOST_WAITS_S) -> tuple[T, list[str | None]]:
    """``run()`` until ``held_back`` finds nothing (None), at most once more per wait of
    ``waits``; the last run and what ``held_back`` said of each. Fails when every run was."""
    said: list[str | None] = []
    for wait in (*waits, None):
        got = run()
        said.append(held_back(got))
        if said[-1] is None or wait is None:
            break
        time.sleep(wait)
    assert said[-1] is None, f"the host held every run back, no measurement: {said}"
    return got, said
