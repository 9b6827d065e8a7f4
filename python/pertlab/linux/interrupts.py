"""Ctrl-C, SIGTERM and SIGHUP while the testbed owns namespaces and processes.

:class:`SignalGuard` turns the first of these signals into
``KeyboardInterrupt`` (the run stops measuring and keeps what it measured)
while ``interruptible`` is true. Every later signal, and any signal once the
code has set ``interruptible = False`` (collecting results, tearing down), is
only noted on stderr: a second Ctrl-C cannot cut the removal of the testbed
short. The testbed starts its helper processes in their own sessions, so a
Ctrl-C typed at the terminal reaches the driver alone and the driver stops
them in order.

Left out: outside the main thread Python delivers no signals to this code, so
the guard installs nothing there (the main thread gets them as before).
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class SignalGuard:
    """A context manager; see the module documentation."""

    def __init__(self, interruptible: bool = True) -> None:
        self.interruptible = interruptible
        self.received: list[str] = []  # signal names, in order
        self.raised = False
        self._old: dict[int, object] = {}

    def __enter__(self) -> SignalGuard:
        if threading.current_thread() is threading.main_thread():
            self._old = {s: signal.getsignal(s) for s in SIGNALS}
            for s in SIGNALS:
                signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for s, handler in self._old.items():
            signal.signal(s, handler)  # type: ignore[arg-type]
        self._old = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        self.received.append(name)
        if self.interruptible and not self.raised:
            self.raised = True
            raise KeyboardInterrupt(name)
        sys.stderr.write(f"pertlab: {name} noted; removing the testbed first, please wait\n")
        sys.stderr.flush()
