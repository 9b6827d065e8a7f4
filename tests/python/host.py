"""Testbed runs taken again when this virtual machine's host held the run back.

A testbed measurement needs the machine's time: the delay line's releases, the sampling loop's
reads. The host of this virtual machine sometimes takes it for minutes at a time, so a run whose
own record shows that (the delay line's lateness, a read taken late) is no measurement and is
taken again after each of :data:`HOST_WAITS_S`. The claim is then asserted on the last run.

When every run was held back, the host's steal over each run (``/proc/stat``: the time the
hypervisor ran something else while this machine had work) says whose fault it was. If the host
took at least :data:`STEAL_SHARE` of the machine's CPU time during every one of them, the machine
did not have the processors the measurement needs, and the test is skipped saying so, with every
run's lateness and steal. Otherwise the lateness is this machine's own, and the test fails."""

from __future__ import annotations

import os
from collections.abc import Callable
from time import monotonic, sleep
from typing import TypeVar

import pytest

from pertlab.linux.hostcpu import steal_s

T = TypeVar("T")

#: Waits (s) before a run is taken again: a host that takes time does so for minutes (on
#: 2026-12-02 a spell of 12 to 38 % stolen lasted through four runs and 50 s of waits, and was
#: over a few minutes later), so the last wait is long enough to outlast most of one.
HOST_WAITS_S = (5.0, 15.0, 30.0, 60.0)

#: The share of the machine's CPU time (wall time x processors) the host must have taken during a
#: held-back run for the run to count as the host's doing. The steal is the time a processor of
#: this machine waited for the host to run it, so it measures what makes the delay line late:
#: on 2026-12-01, right after a fresh clone's jitter test was held back in all four of its runs,
#: runs of its probe (20,000 packets) had 22 to 35 % stolen and releases 109 to 1440 us late on
#: average; half an hour later 13 % (212 us late), 2.8 % (73 us) and 0 % (9 to 10 us) in
#: successive runs. Two busy loops on an idle machine see 0.75 %. The steal is an average over
#: the run, while the delay line waits out each stolen slice whole: on 2026-12-02 a run with 2.4 %
#: stolen (about 0.5 s of the machine's 20 CPU-seconds) had releases 250 us late on average, after
#: three runs of the same spell at 12 to 27 % (1085 to 1248 us late), and the same test passed
#: minutes later with nothing stolen. So a run counts as the host's doing when the host took twice
#: what an idle machine sees; a delay line late on a machine the host left alone still fails.
STEAL_SHARE = 0.015

#: The delay line's mean lateness (release after due time, us) above which the host, not the
#: delay line, is what a run measures: healthy releases are 10 to 20 us late on average here.
HOST_LATE_US = 100.0


def late_releases(delayline: dict) -> str | None:
    """Why a testbed run's delay line (its ``delayline`` record) measured the host rather than
    the path: its releases more than :data:`HOST_LATE_US` late on average; None if it kept time."""
    late = delayline.get("late_mean_us", 0.0)
    return f"delay line releases {late:.0f} us late on average (healthy at most {HOST_LATE_US})" if late > HOST_LATE_US else None


def missed_while_late(delayline: dict, missed: str | None) -> str | None:
    """Why a testbed run whose claim missed (``missed`` says how; None when it held) measured the
    host: its delay line released late (:func:`late_releases`) during it; None otherwise, a
    miss on time included (that one is the claim's to fail)."""
    late = late_releases(delayline)
    return f"{missed} while the {late}" if missed and late else None


def host_share(stolen_s: float, wall_s: float) -> float:
    """The share of the machine's CPU time (``wall_s`` x processors) that the host took, given
    the CPU seconds ``stolen_s`` it took over that time (``/proc/stat`` steal, all CPUs)."""
    return stolen_s / (wall_s * (os.cpu_count() or 1))


def measured(run: Callable[[], T], held_back: Callable[[T], str | None], waits: tuple[float, ...] = HOST_WAITS_S) -> tuple[T, list[str | None]]:
    """``run()`` until ``held_back`` finds nothing (None), at most once more per wait of
    ``waits``; the last run and what ``held_back`` said of each. When every run was held back:
    skipped if the host took at least :data:`STEAL_SHARE` of the machine during each, else fails."""
    said: list[str | None] = []
    stolen: list[float] = []
    for wait in (*waits, None):
        steal, start = steal_s(), monotonic()
        got = run()
        stolen.append(host_share(steal_s() - steal, monotonic() - start))
        said.append(held_back(got))
        if said[-1] is None or wait is None:
            break
        sleep(wait)
    if said[-1] is not None:
        runs = "; ".join(f"{why} (the host took {share:.1%} of the machine)" for why, share in zip(said, stolen))
        if min(stolen) >= STEAL_SHARE:
            pytest.skip(f"the host took this machine's processors during every run, none is a measurement: {runs}")
        raise AssertionError(f"every run was held back, and not by the host alone: {runs}")
    return got, said
