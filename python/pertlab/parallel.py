"""Where independent simulations run: Dask workers, local or on a cluster.

:func:`run_tasks` is the one loop every parallel command uses (sweeps, reproductions,
the demo): tasks go to a Dask ``LocalCluster`` of spawned worker processes (not
forked: forking a process whose polars thread pool is running can deadlock the
child), or to the scheduler of a Dask distributed cluster whose workers have
pertlab; each result is handed back in this process as soon as it arrives, so
that the caller can store it. A stop signal (Ctrl-C, SIGTERM; see
:mod:`pertlab.interrupt`) cancels what has not finished, closes the workers and
then raises :class:`KeyboardInterrupt`: nothing handed back before is lost.

:class:`Workers` is what reproductions take: ``jobs`` local processes or a
cluster, and optionally a store where each task's result is kept by a key of
the task, with the code it ran (see :func:`loaded_code`), so that an
interrupted reproduction resumes, and a change to code no task ran (a
report's claims, notes or figures) reruns nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import importlib.util
import multiprocessing.spawn as mp_spawn
import os
import pickle
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence, TypeVar

from . import interrupt

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["run_tasks", "run_program", "Workers", "code_fingerprint", "loaded_code", "write_atomically"]

#: How often the gathering loop looks for finished tasks and stop signals, seconds.
POLL_S = 0.05


def _with_tx_end_events_default(value: str, fn: Callable[[T], R], item: T) -> R:
    """``fn(item)`` with the scenarios it makes defaulting to ``engine.tx_end_events = value``."""
    from .scenario.model import tx_end_events_default

    with tx_end_events_default(value):
        return fn(item)


def check_cluster_address(cluster: str) -> None:
    """Refuse, naming ``cluster``, what is not a Dask scheduler address as Dask reads one
    (``[scheme://]host:port``, a scheme Dask has, a port in 1 to 65535), before any connection
    is tried: Dask's own words named no option, and a port beyond 65535 waited 30 s."""
    from distributed.comm import parse_address
    from distributed.comm.addressing import parse_host_port
    from distributed.comm.registry import backends

    try:
        scheme, loc = parse_address(cluster)
        if scheme not in backends:
            raise ValueError(f"unknown scheme {scheme!r} (known: {', '.join(sorted(backends))})")
        if scheme not in ("inproc", "ucx"):
            try:
                host, port = parse_host_port(loc)
            except ValueError:
                raise ValueError(f"the port of {loc!r} is not a whole number") from None
            if not host or not 1 <= port <= 65535:
                raise ValueError(f"host {host!r}, port {port}: want a host and a port in 1 to 65535")
    except ValueError as e:
        raise ValueError(f"cluster: not a Dask scheduler address, {e}; write [scheme://]host:port, e.g. tcp://10.0.0.5:8786; got {cluster!r}") from None


def run_tasks(
    fn: Callable[[T], R],
    items: Iterable[T],
    on_result: Callable[[int, R], None],
    *,
    jobs: int | None = None,
    cluster: str | None = None,
) -> None:
    """Call ``fn(item)`` for every item on Dask workers, and ``on_result(index, result)``
    here as each one finishes (in completion order).

    Workers are a ``LocalCluster`` of ``jobs`` processes (default one per core, at most one
    per item) or the scheduler at ``cluster``; a line on stderr says which. A worker's
    exception is raised here.
    """
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs: must be at least 1 (or None for one per core), got {jobs}")
    if cluster is not None:
        check_cluster_address(cluster)
    items = list(items)
    if not items:
        return
    from dask.distributed import Client, LocalCluster, as_completed

    from .scenario.model import current_tx_end_events_default

    # The scenarios a task makes on its worker default as they would here (a reproduction's hold
    # the engine of its committed report: pertlab.reproduce.registry.REPRODUCTION_TX_END_EVENTS).
    fn = functools.partial(_with_tx_end_events_default, current_tx_end_events_default(), fn)

    from ._worker_logs import QuietClose

    with interrupt.deferred() as stop:
        local = client = None
        try:
            if cluster is None:
                workers = max(1, min(jobs or os.cpu_count() or 1, len(items)))
                with _workers_ignore_stop_signals():
                    try:
                        local = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
                    except RuntimeError:
                        # A stop signal while the workers start can make their start fail
                        # ("Nanny failed to start"): that is the stop, reported as one below.
                        if not stop:
                            raise
            if not stop:
                try:
                    client = Client(local or cluster)
                except OSError as e:  # no scheduler there (Dask's connect timeout, an unknown host)
                    raise ValueError(f"cluster: cannot reach the Dask scheduler at {cluster}: {e}") from None
                if local is not None:
                    client.register_plugin(QuietClose(), name="pertlab-quiet-close")
                where = f"{workers} local worker process{'es' if workers > 1 else ''}" if local else f"the Dask cluster at {cluster}"
                print(f"{len(items)} task{'s' if len(items) > 1 else ''} on {where}", file=sys.stderr)
                # Keys name the tasks on the scheduler (and its dashboard) as pertlab's runs.
                run_id = uuid.uuid4().hex[:12]
                futures = {client.submit(fn, x, key=f"pertlab-run-{run_id}-{i}", pure=False): i for i, x in enumerate(items)}
                finished = as_completed(futures)
                while not finished.is_empty() and not stop:
                    batch = finished.next_batch(block=False)
                    for future in batch:
                        on_result(futures[future], future.result())
                    if not batch:
                        time.sleep(POLL_S)
                if stop:
                    client.cancel(list(futures))
        finally:
            if client is not None:
                client.close()
            if local is not None:
                local.close()
    stop.check()


@contextlib.contextmanager
def _workers_ignore_stop_signals() -> Iterator[None]:
    """Processes spawned inside start with the stop signals ignored, and so do theirs.

    A Ctrl-C at the terminal goes to the whole process group, and a batch scheduler's
    SIGTERM to every process of the job: worker processes would die mid-task, each
    printing a traceback. They ignore them instead (a disposition kept across exec,
    which Python keeps at start-up), and this process stops them in order. Python's
    spawn runs :func:`multiprocessing.spawn.get_executable`; inside, that is a
    shell script that ignores the signals and then runs this interpreter."""
    previous = mp_spawn.get_executable()
    mp_spawn.set_executable(str(_python_ignoring_stop_signals()))
    try:
        yield
    finally:
        mp_spawn.set_executable(previous)


#: Linux's prctl option: the signal a process gets when the thread that started it ends.
PR_SET_PDEATHSIG = 1


def run_program(args: Sequence[str]) -> subprocess.CompletedProcess:
    """``subprocess.run(args, capture_output=True, text=True)`` of a program a task runs (ns-3 in
    ``pertlab validate``), which dies with the process that started it.

    The program inherits the worker's ignored stop signals (:func:`_workers_ignore_stop_signals`),
    so a stop does not reach it; the worker, busy waiting for it, is killed a few seconds into
    the stop, and the program would run on as an orphan that SIGTERM cannot stop. With Linux's
    PR_SET_PDEATHSIG it gets SIGKILL when the thread that started it ends: with the worker."""
    return subprocess.run(list(args), capture_output=True, text=True, preexec_fn=functools.partial(_killed_with_parent, os.getpid()))


def _killed_with_parent(parent: int) -> None:
    """In the child before exec (:func:`run_program`): SIGKILL when the parent thread ends, and at
    once if the parent process ``parent`` ended already (the child then belongs to another)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


@cache
def _python_ignoring_stop_signals() -> Path:
    names = " ".join(signal.Signals(s).name.removeprefix("SIG") for s in interrupt.SIGNALS)
    text = f'#!/bin/sh\ntrap "" {names}\nexec {shlex.quote(sys.executable)} "$@"\n'
    path = Path(tempfile.gettempdir()) / f"pertlab-{os.getuid()}" / f"python-{hashlib.sha256(text.encode()).hexdigest()[:12]}"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, text.encode(), mode=0o755)
    return path


@cache
def code_fingerprint() -> str:
    """A hash of pertlab's Python sources and of the compiled core: stored results of
    another build of the code are not reused."""
    package = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")) + sorted(package.glob("_core*.so")):
        h.update(path.relative_to(package).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _file_hash(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


@cache
def _hash_as_loaded(path: str) -> str:
    """The hash of ``path`` the first time this process asks: the code a process runs is what
    it imported, and a file changed since does not change it."""
    return _file_hash(path)


def _module_file(name: str) -> str | None:
    """The source (or compiled core) of the module ``name`` as it is on disk now, without
    importing it; None for a module that has no file or no longer exists."""
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    if path is None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        path = spec.origin if spec is not None and spec.has_location else None
    return path if path is not None and Path(path).is_file() else None


def loaded_code(task_module: str) -> dict[str, str]:
    """Module name -> hash of its file, for every pertlab module this process has loaded (the
    compiled core among them) and ``task_module``, the task function's own: the code a task
    may have run. Loaded by any task of a long-lived worker counts too, so the record can only
    name more modules than the task used, never fewer."""
    names = {n for n in list(sys.modules) if n == "pertlab" or n.startswith("pertlab.")} | {task_module}
    code = {}
    for name in sorted(names):
        path = _module_file(name)
        if path is not None:
            code[name] = _hash_as_loaded(path)
    return code


def _run_recording_code(fn: Callable[[T], R], item: T) -> tuple[dict[str, str], R]:
    """``fn(item)`` and the code it ran (:func:`loaded_code`), as a worker returns them."""
    result = fn(item)
    return loaded_code(fn.__module__), result


#: The format of a stored result: a pickle of ``(loaded_code, result)``; part of its key, so
#: that a store written in another format is not read.
STORE_FORMAT = 2


@dataclass(frozen=True)
class Workers:
    """``jobs`` local worker processes (default one per core), or the Dask scheduler
    at ``cluster`` when given; with ``store``, results are kept there and reused."""

    jobs: int | None = None
    cluster: str | None = None
    store: Path | None = None

    def __post_init__(self) -> None:
        # Refused when given, even to a reproduction that computes here and never uses it.
        if self.cluster is not None:
            check_cluster_address(self.cluster)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``[fn(x) for x in items]`` on these workers, in order. With a store, each
        result is written there as it arrives (a pickle named by a hash of ``fn`` and the
        item, holding the result and the code that computed it, :func:`loaded_code`), and a
        result stored is not computed again while every file of that code is as it was."""
        items = list(items)
        results: dict[int, R] = {}
        if self.store is None:
            run_tasks(fn, items, results.__setitem__, jobs=self.jobs, cluster=self.cluster)
            return [results[i] for i in range(len(items))]
        paths = [self._path(fn, x) for x in items]
        on_disk: dict[str, str | None] = {}
        for i, path in enumerate(paths):
            if path.is_file():
                try:
                    code, result = pickle.loads(path.read_bytes())
                except Exception as e:  # noqa: BLE001 (unpickling a damaged file raises almost anything)
                    warnings.warn(f"{path}: a stored result that cannot be read ({type(e).__name__}: {e}); computed again", StoredRunWarning, stacklevel=2)
                    continue
                if all(_hash_now(name, on_disk) == h for name, h in code.items()):
                    results[i] = result
        todo = [i for i in range(len(items)) if i not in results]

        def keep(j: int, stored: tuple[dict[str, str], R]) -> None:
            i = todo[j]
            results[i] = stored[1]
            write_atomically(paths[i], pickle.dumps(stored))

        run_tasks(functools.partial(_run_recording_code, fn), [items[i] for i in todo], keep, jobs=self.jobs, cluster=self.cluster)
        return [results[i] for i in range(len(items))]

    def _path(self, fn: Callable, item: object) -> Path:
        assert self.store is not None
        key = hashlib.sha256(pickle.dumps((STORE_FORMAT, fn.__module__, fn.__qualname__, item), protocol=4)).hexdigest()[:20]
        return self.store / f"{key}.pickle"


class StoredRunWarning(UserWarning):
    """A stored run or result that cannot be read (damaged, or cut by something else than
    pertlab, whose writes are atomic) is run again."""


def _hash_now(name: str, seen: dict[str, str | None]) -> str | None:
    """The hash of module ``name``'s file as it is on disk now (None if it has none), once per
    name in ``seen``."""
    if name not in seen:
        path = _module_file(name)
        seen[name] = _file_hash(path) if path is not None else None
    return seen[name]


def write_atomically(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed over it: a reader sees the old
    file or the whole new one, never a part (a kill mid-write leaves only the temporary file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data)
    tmp.chmod(mode)
    tmp.replace(path)
