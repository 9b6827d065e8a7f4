"""What a testbed run owns on this host, and how a run left behind is recognised and removed.

Every run has a directory ``/run/pertlab/testbed/RUN_ID/`` (``RUN_ID``: 8
random hex digits) holding

- ``lock``: an ``flock`` the run's driver holds while it lives. A lock dies
  with its process (SIGKILL, a crash, a reboot), and a later process that
  happens to get the same PID does not hold it, so a free lock means the run
  is over, whatever became of its PID;
- ``run.json``: the driver's PID, the boot id, the start time and the
  namespace names, for people reading it (the lock alone decides).

The run's namespaces are named from its id (``pltb-RUN_ID-snd|rtr|rcv``);
its links, qdiscs and TUN device live inside them, and its delay line and
flow endpoints run inside them. :func:`cleanup` removes every run whose lock
it can take (its processes, namespaces and directory) and every
``pltb-RUN_ID-*`` namespace without a run directory. Creating a run and
scanning for stale ones hold ``/run/pertlab/testbed/.lock``, so a scan never
sees a run half made. Processes are killed through pidfds and only after
their network namespace was checked, so a reused PID is never signalled.

Left out: namespaces named by earlier pertlab versions (``pltb<pid>-...``),
which carry nothing but a PID, are not touched (delete them with ``ip netns
del``); a driver that forks without exec would share its lock with the child
(the testbed only starts programs with exec).
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import re
import secrets
import select
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..interrupt import run_detached
from ..jsonable import dumps

RUN_ROOT = Path("/run/pertlab/testbed")
NETNS_DIR = Path("/run/netns")
NS_PREFIX = "pltb-"
ROLES = ("snd", "rtr", "rcv")
#: Files a run writes into its directory while it runs, removed with it (a stale run's too): the
#: eBPF RTT trace (``trace_rtt``) and the receivers' capture (``capture_acks``).
RTT_TRACE_FILE, CAPTURE_FILE = "rtt_trace.txt", "acks.pcapng"
RUN_FILES = (RTT_TRACE_FILE, CAPTURE_FILE)
_RUN_ID = re.compile(r"[0-9a-f]{8}")
_NS_NAME = re.compile(rf"{re.escape(NS_PREFIX)}({_RUN_ID.pattern})-({'|'.join(ROLES)})")
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


def boot_id() -> str:
    return BOOT_ID.read_text().strip()


def namespaces(run_id: str) -> list[str]:
    """The sender, router and receiver namespaces of a run."""
    return [f"{NS_PREFIX}{run_id}-{role}" for role in ROLES]


def list_namespaces() -> list[str]:
    out = run_detached(["ip", "netns", "list"]).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def testbed_namespaces() -> list[str]:
    """Namespaces named by a testbed run (``pltb-RUN_ID-role``)."""
    return [ns for ns in list_namespaces() if _NS_NAME.fullmatch(ns)]


@contextlib.contextmanager
def _registry() -> Iterator[None]:
    """Excludes other processes from creating or scanning run directories meanwhile."""
    RUN_ROOT.mkdir(parents=True, exist_ok=True)
    fd = os.open(RUN_ROOT / ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@dataclass
class Run:
    """A run directory whose lock this process holds (its own run, or a stale one being removed)."""

    id: str
    path: Path
    lock_fd: int
    info: dict = field(default_factory=dict)

    @property
    def namespaces(self) -> list[str]:
        return namespaces(self.id)

    def describe(self) -> str:
        i = self.info
        if not i:
            return f"run {self.id} (no run.json: its driver died while starting)"
        why = "its driver is gone" if i.get("boot_id") == boot_id() else "from an earlier boot"
        return f"run {self.id} (pid {i.get('pid')}, started {i.get('started')}; {why})"


def begin() -> Run:
    """A new run directory; this process holds its lock until :func:`finish`."""
    with _registry():
        while True:
            run_id = secrets.token_hex(4)
            path = RUN_ROOT / run_id
            try:
                path.mkdir()
                break
            except FileExistsError:
                continue
        fd = os.open(path / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        info = {
            "run_id": run_id, "pid": os.getpid(), "boot_id": boot_id(),
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "namespaces": namespaces(run_id), "argv": sys.argv,
        }  # fmt: skip
        tmp = path / "run.json.tmp"
        tmp.write_text(dumps(info, indent=2) + "\n")
        tmp.replace(path / "run.json")
        return Run(run_id, path, fd, info)


def finish(run: Run) -> None:
    """Remove the run directory, then release its lock (safe to call twice)."""
    if run.lock_fd >= 0:
        with _registry():
            _remove_dir(run)


def _remove_dir(run: Run) -> None:
    for name in ("run.json.tmp", "run.json", *RUN_FILES, "lock"):
        (run.path / name).unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        run.path.rmdir()
    os.close(run.lock_fd)
    run.lock_fd = -1


def live_runs() -> list[dict]:
    """``run.json`` of every run whose driver holds its lock."""
    out = []
    with _registry():
        for path in _run_dirs():
            fd = _claim(path)
            if fd is None:
                with contextlib.suppress(OSError, ValueError):
                    out.append(json.loads((path / "run.json").read_text()))
            else:
                os.close(fd)
    return out


def _run_dirs() -> list[Path]:
    if not RUN_ROOT.is_dir():
        return []
    return sorted(p for p in RUN_ROOT.iterdir() if p.is_dir() and _RUN_ID.fullmatch(p.name))


def _claim(path: Path) -> int | None:
    """The lock of a run that is over (now held by us), or None while its driver lives."""
    try:
        fd = os.open(path / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except FileNotFoundError:  # the directory went away meanwhile
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


@dataclass
class Removed:
    """What :func:`cleanup` removed for one run (or for namespaces without a run)."""

    what: str
    namespaces: list[str]
    processes: int


def cleanup() -> list[Removed]:
    """Remove every run that is over and every testbed namespace without a run; idempotent."""
    removed = []
    with _registry():
        for path in _run_dirs():
            fd = _claim(path)
            if fd is None:
                continue
            try:
                info = json.loads((path / "run.json").read_text())
            except (OSError, ValueError):
                info = {}
            run = Run(path.name, path, fd, info)
            present = set(list_namespaces())
            names = [ns for ns in run.namespaces if ns in present]
            killed = remove_namespaces(names)
            _remove_dir(run)
            removed.append(Removed(run.describe(), names, killed))
        runs = {p.name for p in _run_dirs()}
        orphans = [ns for ns in testbed_namespaces() if _NS_NAME.fullmatch(ns).group(1) not in runs]  # type: ignore[union-attr]
        if orphans:
            removed.append(Removed("namespaces without a run directory", orphans, remove_namespaces(orphans)))
    return removed


# ---------------------------------------------------------------- processes and namespaces


def _netns_id(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _pidfds_in(ns: str) -> list[int]:
    """pidfds of the processes in network namespace ``ns`` (checked after opening the pidfd,
    so a PID reused meanwhile by a process outside ``ns`` is left alone)."""
    target = _netns_id(str(NETNS_DIR / ns))
    if target is None:
        return []
    fds = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or _netns_id(f"/proc/{entry}/ns/net") != target:
            continue
        try:
            fd = os.pidfd_open(int(entry))
        except OSError:  # gone meanwhile
            continue
        if _netns_id(f"/proc/{entry}/ns/net") == target:
            fds.append(fd)
        else:
            os.close(fd)
    return fds


def kill_processes(namespaces: list[str], timeout: float = 5.0) -> int:
    """SIGKILL every process in these namespaces and wait (up to ``timeout``) until they are gone."""
    fds = [fd for ns in namespaces for fd in _pidfds_in(ns)]
    poller = select.poll()
    for fd in fds:
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        poller.register(fd, select.POLLIN)
    pending = set(fds)
    deadline = time.monotonic() + timeout
    while pending and (left := deadline - time.monotonic()) > 0:
        for fd, _ in poller.poll(left * 1000):
            poller.unregister(fd)
            pending.discard(fd)
    for fd in fds:
        os.close(fd)
    return len(fds)


def remove_namespaces(names: list[str]) -> int:
    """Kill the processes in these namespaces, then delete them (their veths, qdiscs and
    routes go with them); names that do not exist are passed over. Returns the number
    of processes killed."""
    killed = kill_processes(names)
    for ns in names:
        run_detached(["ip", "netns", "del", ns])
    return killed
