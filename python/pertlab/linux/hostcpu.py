"""CPU time of this machine and of its processes, from /proc (clock ticks, USER_HZ).

What the testbed and the CPU-cost study read to say where time went: a process's user and
system seconds, and the machine's seconds by kind. ``steal`` is the time a virtual machine's
host ran something else while this machine had work: it holds the delay line's releases back,
so a timing measurement taken while it rises measures the host, not the path (docs/linux.md)."""

from __future__ import annotations

import os
from pathlib import Path

_CLK_TCK = os.sysconf("SC_CLK_TCK")
_STAT_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def proc_cpu(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of a process so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / _CLK_TCK, int(fields[12]) / _CLK_TCK


def machine_cpu() -> dict[str, float]:
    """The machine's CPU seconds by kind, all CPUs (/proc/stat)."""
    first = Path("/proc/stat").read_text().splitlines()[0].split()
    return {k: int(v) / _CLK_TCK for k, v in zip(_STAT_FIELDS, first[1:])}


def steal_s() -> float:
    """Seconds the host has taken from this machine's CPUs so far, all CPUs together."""
    return machine_cpu()["steal"]
