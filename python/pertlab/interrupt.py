"""Stopping a long command without losing what it computed.

A run, a sweep or a reproduction can be stopped by Ctrl-C (SIGINT), by SIGTERM
(what batch schedulers such as Slurm send before the kill at a time limit) or
by SIGHUP (a closed terminal), once or several times, at any moment:

- :func:`install` makes SIGTERM and SIGHUP raise :class:`KeyboardInterrupt` like
  Ctrl-C does, so that every command handles the three alike; the ``pertlab``
  command installs it at start-up.
- :func:`deferred` is a section in which these signals raise nothing: the first
  one is recorded (the section's :class:`Stop` turns true, and so does
  :func:`requested`, which the loops of pertlab poll: the core's progress
  callback, the loop that gathers a sweep's runs) and a line on stderr says
  that finished work is kept; later ones only say that the stop is under way.
  Code inside finishes its step (stores a run, writes result files, closes
  worker processes); after the section, ``stop.check()`` raises
  :class:`KeyboardInterrupt` if a signal came.
- ``deferred(interruptible=True)`` is for code that waits (the testbed's
  measurement): the first signal raises :class:`KeyboardInterrupt` there, as
  long as ``stop.interruptible`` is true; once the code sets it false (it is
  collecting results, removing namespaces), signals are only recorded, so a
  second Ctrl-C cannot cut that short.

- :func:`run_detached` runs a short command (``ip``, ``tc``, ``bpftool``) that no stop signal
  kills, so that a Ctrl-C cannot cut it short (a namespace half deleted, a counter unread), and
  :func:`popen_detached` starts a long-lived one (the testbed's flows, its delay line, the eBPF
  loader's hold), which the caller stops itself.

Left out: no number of signals forces an exit; SIGKILL cannot be caught, and
what it loses is bounded by the stores (each run is stored as it finishes).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from typing import Iterator, Sequence

__all__ = ["SIGNALS", "Stop", "install", "ignore", "deferred", "requested", "run_detached", "popen_detached"]

#: The signals that stop a command.
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stop:
    """The stop signals received inside one :func:`deferred` section; while ``interruptible``,
    the first one raises :class:`KeyboardInterrupt`."""

    def __init__(self, interruptible: bool = False) -> None:
        self.signals: list[int] = []
        self.interruptible = interruptible

    def __bool__(self) -> bool:
        return bool(self.signals)

    def check(self) -> None:
        """Raise :class:`KeyboardInterrupt` if a stop signal came."""
        if self.signals:
            raise KeyboardInterrupt(signal.Signals(self.signals[0]).name)

    def _record(self, signum: int, _frame: object) -> None:
        self.signals.append(signum)
        name = signal.Signals(signum).name
        if self.interruptible and len(self.signals) == 1:
            raise KeyboardInterrupt(name)
        said = "stopping; finished work is kept" if len(self.signals) == 1 else "already stopping: finishing the current step so that nothing is lost"
        sys.stderr.write(f"\n{name}: {said}\n")
        sys.stderr.flush()


# The innermost open section's record.
_current: Stop | None = None


def install() -> None:
    """SIGTERM and SIGHUP raise :class:`KeyboardInterrupt`, as SIGINT does (main thread only)."""
    if threading.current_thread() is threading.main_thread():
        for s in SIGNALS[1:]:
            signal.signal(s, signal.default_int_handler)


def ignore() -> None:
    """Ignore the stop signals from now on (a command that is exiting; main thread only)."""
    if threading.current_thread() is threading.main_thread():
        for s in SIGNALS:
            signal.signal(s, signal.SIG_IGN)


def requested() -> bool:
    """A stop signal arrived inside the open :func:`deferred` section."""
    return bool(_current)


@contextlib.contextmanager
def deferred(interruptible: bool = False) -> Iterator[Stop]:
    """Record stop signals instead of raising while inside (see the module doc).

    A section opened inside another shares its record. Outside the main thread,
    where Python cannot install handlers, signals are left as they are.
    """
    global _current
    if _current is not None:
        yield _current
        return
    stop = Stop(interruptible)
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = {s: signal.signal(s, stop._record) for s in SIGNALS}
    _current = stop
    try:
        yield stop
    finally:
        _current = None
        for s, handler in previous.items():
            signal.signal(s, handler)


def run_detached(args: Sequence[str]) -> subprocess.CompletedProcess:
    """``subprocess.run(args, capture_output=True, text=True)`` of a short command that no stop signal kills.

    The command runs in a session of its own (``start_new_session``), out of the process group
    that a terminal's Ctrl-C goes to. That alone leaves a gap: CPython's child restores the
    signals' default actions and unblocks them before it calls ``setsid``, so a Ctrl-C in between
    kills it (exit -2): 659 of 9238 spawns of ``true`` under a stream of SIGINTs to the group.
    Such a child dies before ``exec``, having done nothing, and after ``setsid`` nothing sends it a
    stop signal, so a command killed by one is run again. (Blocking the signals here while the
    child starts closes the gap too, but two Ctrl-Cs in that time then merge into one.)"""
    stop_codes = {-s for s in SIGNALS}
    while True:
        r = subprocess.run(list(args), capture_output=True, text=True, start_new_session=True)
        if r.returncode not in stop_codes:
            return r


def popen_detached(args: Sequence[str], **kwargs) -> subprocess.Popen:
    """``subprocess.Popen(args, start_new_session=True, **kwargs)`` of a long-lived program that
    no stop signal kills while it starts (the gap of :func:`run_detached`).

    Popen returns once the child has called ``exec`` (its error pipe closes on exec) or died. A
    child that died has no executable image left, so ``/proc/PID/exe`` cannot be read: then its
    exit status tells a stop signal's victim (it died before ``exec``: after ``setsid`` nothing
    sends it one) from a program that ran and ended by itself, and only the first is started
    again. A program that runs is returned at once; stopping it is the caller's business."""
    stop_codes = {-s for s in SIGNALS}
    while True:
        p = subprocess.Popen(list(args), start_new_session=True, **kwargs)
        try:
            os.readlink(f"/proc/{p.pid}/exe")
            return p
        except OSError:
            pass
        if p.wait() not in stop_codes:
            return p
        for pipe in (p.stdin, p.stdout, p.stderr):
            if pipe is not None:
                pipe.close()
