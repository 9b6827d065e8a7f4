"""Sweeps: one base scenario, some of its fields varied, several seeds.

``pertlab sweep scenario.toml --vary bottleneck.rate=1Mbps,10Mbps --vary cc=pert,sack --seeds 5``
runs the cross product of the varied values, each with seeds 1..5.

- **Where runs execute.** On Dask distributed: a ``LocalCluster`` of worker
  processes by default (``jobs`` of them), or the scheduler at ``cluster``
  (``tcp://host:8786``) whose workers have pertlab installed. Workers only
  compute; the client stores every result as soon as it arrives.
- **Nothing finished is lost.** Each run is stored under ``OUT/runs/KEY/``,
  KEY a hash of the run's scenario in the core's wire format (seed included),
  written to a temporary folder and renamed when complete. A sweep started again
  with the same arguments (after Ctrl-C, a crash or a lost worker) skips every
  KEY already stored.
- **Statistics.** ``OUT/runs.parquet`` has one row per run (varied values,
  seed, summary metrics, the run's warnings); ``OUT/aggregate.parquet`` per varied point the mean,
  the half-width of the 95 % confidence interval (Student t over seeds) and that
  interval cut to the range the metric cannot leave (:data:`BOUNDS`), which is
  what figures draw.

Paths given to ``--vary`` name fields of the scenario as written in files,
with three conveniences: ``bottleneck.X`` is the dumbbell's ``bottleneck_X`` (or
field X of the link named "bottleneck"), ``cc`` sets every flow's
controller by the names the dumbbell builder knows (``sack``, ``newreno``,
``reno``, ``vegas``, ``pert``, ``pert-pi``, ``hstcp``, ``cubic``, ``compound``,
``illinois``, ``fast``), ``tcp.X`` sets field X of every TCP flow's and web
group's ``tcp`` options (``tcp.ack_policy``, ``tcp.pacing.enabled``), as the
dumbbell builder's ``tcp`` argument does, and ``KIND.X`` parameter X of every
flow whose controller is KIND (``pert.t_max``, ``pert-adaptive.alpha_max``), as
``pertlab dumbbell --cc-param`` does. ``cc`` is applied first, so that the
parameters varied with it belong to the controller it names.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import os
import re
import shutil
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import polars as pl

from .builders import CC_NAMES
from .kinds import CC_KINDS
from .jsonable import dumps
from .parallel import StoredRunWarning, run_tasks
from .results import Results
from .scenario import Scenario, ScenarioError, TcpConfig
from .units import parse_rate, parse_value

__all__ = [
    "Point", "parse_vary", "expand", "run_key", "run_points", "stored_results", "summary_row", "run_sweep", "aggregate",
    "METRICS", "Range", "BOUNDS", "INTERVAL", "clipped_interval", "MAX_SEEDS", "MAX_POINTS",
]  # fmt: skip

#: The most seeds per point (``--seeds``): Student t over 1000 seeds is the normal interval already.
MAX_SEEDS = 1000
#: The most runs of one sweep (seeds x the product of the numbers of ``--vary`` values): every point
#: is built (a scenario each) before the first run starts, and 10 000 runs are days of simulation.
MAX_POINTS = 10_000

#: Summary metrics collected per run (bottleneck queue and flows).
METRICS = ("avg_queue_norm", "avg_queue_pkts", "drop_rate", "mark_rate", "utilization", "jain", "goodput_mbps")


@dataclass(frozen=True)
class Range:
    """The values a metric cannot leave by its nature. ``per_flow_floor``: the lower
    bound is 1/n for a run over n TCP flows (column ``tcp_flows``), as for the Jain index."""

    lower: float = -math.inf
    upper: float = math.inf
    per_flow_floor: bool = False

    def lower_of(self, runs: pl.DataFrame) -> float:
        """The lower bound over ``runs`` (the loosest of theirs)."""
        return float((1 / runs["tcp_flows"].cast(pl.Float64)).min()) if self.per_flow_floor else self.lower

    def __str__(self) -> str:
        def end(v: float) -> str:
            return "∞" if math.isinf(v) else f"{v:g}"

        return f"[{'1/n' if self.per_flow_floor else end(self.lower)}, {end(self.upper)}]"


FRACTION = Range(0.0, 1.0)
NON_NEGATIVE = Range(0.0)

#: The range of every metric :func:`aggregate` cuts its intervals to; metrics not named
#: here (differences) are unbounded. Reproductions add their own (``{**BOUNDS, ...}``).
BOUNDS: dict[str, Range] = {
    "avg_queue_norm": FRACTION, "avg_queue_pkts": NON_NEGATIVE, "drop_rate": FRACTION, "mark_rate": FRACTION,
    "utilization": FRACTION, "jain": Range(upper=1.0, per_flow_floor=True), "goodput_mbps": NON_NEGATIVE,
}  # fmt: skip

#: How the intervals of aggregated metrics are made, for captions and docs.
INTERVAL = "95 % Student-t confidence interval of the mean over seeds, cut to the range the quantity cannot leave"


def clipped_interval(mean: float, half: float, lower: float, upper: float) -> tuple[float, float]:
    """``mean`` +- ``half`` cut to [``lower``, ``upper``], but never past the mean itself
    (a measured mean can sit a hair outside its range, utilization above 1 from the
    window's edges). The true mean lies in the range, so the cut interval covers it
    exactly as often as the whole one. NaN without a half-width (one seed)."""
    if math.isnan(half):
        return math.nan, math.nan
    return min(mean, max(mean - half, lower)), max(mean, min(mean + half, upper))


@dataclass(frozen=True)
class Point:
    """One run of a sweep: the varied values, the seed and the full scenario."""

    values: tuple[tuple[str, str], ...]
    seed: int
    scenario: Scenario

    @property
    def key(self) -> str:
        return run_key(self.scenario)


def run_key(scenario: Scenario) -> str:
    """Stable name of a run: a hash of its scenario in the wire format (seed included)."""
    wire = json.dumps(scenario.to_wire(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(wire.encode()).hexdigest()[:20]


def parse_vary(items: list[str]) -> dict[str, list[str]]:
    """``["a.b=1,2", "cc=pert,sack"]`` -> ``{"a.b": ["1", "2"], "cc": ["pert", "sack"]}``."""
    vary: dict[str, list[str]] = {}
    for item in items:
        path, sep, values = item.partition("=")
        path = path.strip()
        if not sep or not path or not values.strip():
            raise ScenarioError([("--vary", f"write PATH=V1,V2,..., got {item!r}")])
        if path in vary:
            raise ScenarioError([("--vary", f"{path!r} is varied twice")])
        if path == "seed":  # every point runs with seeds 1..N, which would overwrite the varied one
            raise ScenarioError([("--vary", "the seed is not a varied field: --seeds N runs every point with seeds 1..N")])
        listed = [v.strip() for v in values.split(",")]
        if not all(listed):
            raise ScenarioError([("--vary", f"an empty value in {item!r}")])
        if len(set(listed)) < len(listed):
            raise ScenarioError([("--vary", f"a value listed twice in {item!r}")])
        vary[path] = listed
    return vary


def _set_cc(wire: dict[str, Any], name: str) -> None:
    if name not in CC_NAMES:
        raise ScenarioError([("cc", f"unknown controller {name!r}; allowed: {', '.join(CC_NAMES)}")])
    kind, sack = CC_NAMES[name]
    if not wire.get("flows"):
        raise ScenarioError([("cc", "the scenario has no flows to set a controller on")])
    for flow in wire["flows"]:
        flow["cc"] = {"kind": kind}
        flow.setdefault("tcp", {})["sack"] = sack
        if kind == "pert-pi":
            flow["cc"]["capacity_pps"] = _bottleneck_pps(wire, flow)


def _set_varied(wire: dict[str, Any], path: str, text: str, where: str) -> None:
    """Set the varied ``path`` (a field, or one of the conveniences of the module doc) to
    ``text`` in the wire-format dict; ``where`` is the point, for errors."""
    kind, _, field = path.partition(".")
    if path == "cc":
        _set_cc(wire, text)
    elif kind == "tcp" and field:
        _set_in_each(wire, path, text, _owners(wire), "TCP flows to set an option on")
    elif kind in CC_KINDS and field:
        owners = [(name, section) for name, section in _owners(wire) if section.get("cc", {}).get("kind") == kind]
        _set_in_each(wire, f"cc.{field}", text, owners, f"flow running {kind} (with {where})", path)
    else:
        _set_path(wire, path, text)


def _owners(wire: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every TCP flow and web group: its name as errors write it (``flows[0]``, ``web[1]``) and
    its section of the wire-format dict."""
    return [(f"{key}[{i}]", section) for key in ("flows", "web") for i, section in enumerate(wire.get(key) or [])]


def _set_in_each(wire: dict[str, Any], field: str, text: str, owners: list[tuple[str, dict[str, Any]]], what: str, varied: str | None = None) -> None:
    """Set ``field`` (``tcp.ack_policy``, ``cc.t_max``) of each of ``owners`` to ``text``; an
    error names ``varied`` (default ``field``) and ``what`` there is none of."""
    if not owners:
        raise ScenarioError([(varied or field, f"the scenario has no {what}")])
    for name, section in owners:
        section.setdefault(field.partition(".")[0], {})
        _set_path(wire, f"{name}.{field}", text)


def _as_varied(wire: dict[str, Any], field: str, paths: list[str]) -> str:
    """An error's field in a flow's tcp or cc section as the sweep varied it (``tcp.X`` or
    ``KIND.X``), when it did; else as the error names it."""
    m = re.match(r"^((?:flows|web)\[\d+\])\.(tcp|cc)(\..*)?$", field)
    if not m:
        return field
    owner, section, rest = m.groups()
    name = "tcp" if section == "tcp" else dict(_owners(wire))[owner].get("cc", {}).get("kind")
    return f"{name}{rest or ''}" if any(p.startswith(f"{name}.") for p in paths) else field


def _bottleneck_pps(wire: dict[str, Any], flow: dict[str, Any]) -> float:
    """The dumbbell bottleneck in packets/s of the flow's size (PERT/PI's capacity)."""
    d = wire.get("dumbbell")
    rate = (d or {}).get("bottleneck_rate_bps", (d or {}).get("bottleneck_rate"))
    if rate is None:
        raise ScenarioError([("cc", "pert-pi needs the bottleneck capacity: only dumbbell scenarios derive it; "
                             "set flows[i].cc.capacity_pps in the scenario file instead")])
    size = TcpConfig.model_validate(flow.get("tcp", {})).packet_size
    return parse_rate(rate, "bottleneck.rate") / (8 * size)


def _set_path(wire: dict[str, Any], path: str, text: str) -> None:
    """Set the field at dotted ``path`` of the wire-format dict to a value as written by people;
    a list entry is ``flows[0]`` (as errors name it) or ``flows.0``."""
    parts = re.sub(r"\[(\d+)\]", r".\1", path).split(".")
    if parts[0] == "bottleneck" and len(parts) == 2:
        if wire.get("dumbbell"):
            parts = ["dumbbell", f"bottleneck_{parts[1]}"]
        else:
            names = [link.get("name") for link in wire.get("links", [])]
            if "bottleneck" not in names:
                raise ScenarioError([(path, "the scenario has no dumbbell and no link named 'bottleneck'")])
            parts = ["links", str(names.index("bottleneck")), parts[1]]
    node: Any = wire
    for i, part in enumerate(parts[:-1]):
        where = re.sub(r"\.(\d+)", r"[\1]", ".".join(parts[: i + 1]))  # flows[12], as errors name it
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise ScenarioError([(path, f"{where}: not an index below {len(node)}")])
            node = node[int(part)]
        elif isinstance(node, dict) and isinstance(node.get(part), (dict, list)):
            node = node[part]
        else:
            raise ScenarioError([(path, f"{where}: no such section in the scenario")])
    last = parts[-1]
    if isinstance(node, list):
        raise ScenarioError([(path, "cannot replace a whole list entry; name a field inside it")])
    # Fields with units are held as `<name>_bps` / `<name>_ns`: replace them by the
    # human-readable name, which the scenario parser reads with units.
    for suffix in ("_bps", "_ns"):
        node.pop(last + suffix, None)
    node[last] = parse_value(text)


def expand(base: Scenario, vary: dict[str, list[str]], seeds: int, memory_limit: float | None = None) -> list[Point]:
    """Every combination of the varied values, each with seeds 1..``seeds``: at most
    :data:`MAX_SEEDS` seeds and :data:`MAX_POINTS` runs (checked before any is built). Each
    combination passes the core's check (:meth:`Scenario.check` with ``memory_limit``)."""
    if not 1 <= seeds <= MAX_SEEDS:
        raise ScenarioError([("--seeds", f"must be 1 to {MAX_SEEDS} (seeds per point), got {seeds}")])
    counts = [len(v) for v in vary.values()]
    total = seeds * math.prod(counts)
    if total > MAX_POINTS:
        sizes = " x ".join(f"{len(v)} ({p})" for p, v in vary.items())
        fit = MAX_POINTS // math.prod(counts)
        hint = f"at most {fit} seed{'s' if fit > 1 else ''} with these --vary values" if fit else "fewer --vary values"
        raise ScenarioError([("--seeds, --vary", f"{seeds} seeds x {sizes} values = {total:,} runs, above the limit of "
                              f"{MAX_POINTS:,} runs per sweep; use {hint}, or split the sweep")])  # fmt: skip
    points = []
    paths = list(vary)
    for combo in itertools.product(*(vary[p] for p in paths)):
        where = ", ".join(f"{p}={v}" for p, v in zip(paths, combo))
        for seed in range(1, seeds + 1):
            wire = copy.deepcopy(base.to_wire())
            for path, text in sorted(zip(paths, combo), key=lambda varied: varied[0] != "cc"):
                _set_varied(wire, path, text, where)
            wire["seed"] = seed
            try:
                scenario = Scenario.parse(wire)
                if seed == 1:
                    # The core's own check (the topology, the memory estimate), once per
                    # combination: the seed changes neither. Without it a point the model accepts
                    # failed on a worker (`dumbbell.pairs=1` with flows on s1), or killed four of
                    # them in turn (`monitor.sample_interval=1ns`).
                    scenario.check(memory_limit)
            except ScenarioError as e:
                # A value every flow (of a controller) got is wrong in all of them alike: one line,
                # named as varied.
                errors = list(dict.fromkeys((", ".join(_as_varied(wire, one, paths) for one in f.split(", ")), m) for f, m in e.errors))
                raise ScenarioError([(f, f"{m} (with {where})") for f, m in errors]) from None
            points.append(Point(tuple(zip(paths, combo)), seed, scenario))
    return points


#: Waits (s) before a run is tried again that the memory available at that instant refused
#: (the default limit), though the machine's memory holds it: other work had taken the memory
#: for a moment (a fresh clone's tests on 2026-12-01 lost two reproductions' runs so, while a
#: long experiment ran beside them). 15 s in all; then the refusal stands.
MEMORY_WAITS_S = (1.0, 2.0, 4.0, 8.0)


def _simulate(task: tuple[str, float | None]) -> str:
    """Run one scenario (its wire JSON) in the core, on a Dask worker, held to the memory limit
    (None: the memory the worker's host has now, waited for as :data:`MEMORY_WAITS_S` says),
    so that a run too large for it is refused, not killed; returns the results JSON."""
    import time

    from . import _core
    from .memory import core_limit

    wire_json, memory_limit = task
    for wait in (*MEMORY_WAITS_S, None):
        started = time.perf_counter()
        try:
            text = _core.run_json(wire_json, None, core_limit(memory_limit))
            break
        except ValueError as e:
            error = ScenarioError.from_core(e, memory_limit="default" if memory_limit is None else "given")
            if wait is None or not _short_for_now(error, memory_limit, wire_json):
                # A plain ValueError crosses to the client intact; the message in the names people write.
                raise ValueError(str(error)) from None
            time.sleep(wait)
    data = json.loads(text)
    data["wall_seconds"] = time.perf_counter() - started
    return json.dumps(data)


def _short_for_now(error: ScenarioError, memory_limit: float | None, wire_json: str) -> bool:
    """Whether the memory available now (the default limit) refused a run that the machine's
    memory holds: one that may run once other work gives memory back."""
    from . import _core
    from .memory import total_memory

    if memory_limit is not None or not error.memory_refusal:
        return False
    machine = total_memory()
    return machine is not None and json.loads(_core.memory_estimate_json(wire_json, None))["total"] <= machine


def _store(out: Path, point: Point, results_json: str) -> None:
    """Write a finished run under ``out/runs/KEY`` atomically (temporary folder, then rename)."""
    final = out / "runs" / point.key
    tmp = out / "runs" / f".{point.key}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    Results(json.loads(results_json), point.scenario).write(tmp)
    (tmp / "point.json").write_text(dumps({"values": dict(point.values), "seed": point.seed}, indent=2) + "\n")
    tmp.rename(final)


def summary_row(point: Point, results: Results) -> dict[str, Any]:
    """The point's key, values and seed, the bottleneck's metrics (:data:`METRICS`), the
    Jain index and the number of TCP flows it is over (``tcp_flows``), the long flows'
    total goodput and the wall time: one row of a sweep. A metric the run leaves undefined
    (a drop rate over no packet, the Jain index when nothing was delivered) is None."""
    return _point_columns(point) | _run_metrics(results)


def _point_columns(point: Point) -> dict[str, Any]:
    """The part of :func:`summary_row` that comes from the point: its key, values and seed."""
    return {"key": point.key, **dict(point.values), "seed": point.seed}


def _run_metrics(results: Results) -> dict[str, Any]:
    """The part of :func:`summary_row` that comes from the run."""
    b = results.bottleneck or {}
    row: dict[str, Any] = {}
    for m in ("avg_queue_norm", "avg_queue_pkts", "drop_rate", "mark_rate", "utilization"):
        row[m] = b.get(m)
    row["jain"] = results.jain
    row["tcp_flows"] = results.flows.height
    row["goodput_mbps"] = float(results.flows["goodput_mbps"].sum()) if results.flows.height else 0.0
    row["wall_seconds"] = results.data.get("wall_seconds")
    return row


def aggregate(runs: pl.DataFrame, by: list[str], metrics: tuple[str, ...] = METRICS, bounds: dict[str, Range] = BOUNDS) -> pl.DataFrame:
    """Per point, of every metric (:data:`METRICS` unless given): the mean, the half-width
    of its 95 % confidence interval (Student t over seeds, ``{m}_ci95``) and that interval
    cut to the metric's range in ``bounds`` (``{m}_lo95``, ``{m}_hi95``; see
    :func:`clipped_interval`). Runs where a metric is undefined (null: a share of a class
    with no flows at that point) are left out of its mean; with none left it is NaN."""
    from scipy import stats

    present = [m for m in metrics if m in runs.columns]
    groups = runs.group_by(by, maintain_order=True) if by else [((), runs)]
    rows = []
    for keys, part in groups:
        row: dict[str, Any] = dict(zip(by, keys if isinstance(keys, tuple) else (keys,)))
        n = part.height
        row["seeds"] = n
        for m in present:
            # Undefined values (null) are skipped, not propagated: the mean is over the seeds
            # where the metric is defined (a seed whose window delivered nothing says nothing
            # about fairness), NaN when it is defined in none.
            x = part[m].cast(pl.Float64).drop_nulls()
            k = x.len()
            mean = float(x.mean()) if k else math.nan
            half = float(stats.t.ppf(0.975, k - 1) * x.std() / math.sqrt(k)) if k > 1 else math.nan
            row[m] = mean
            row[f"{m}_ci95"] = half
            r = bounds.get(m, Range())
            row[f"{m}_lo95"], row[f"{m}_hi95"] = clipped_interval(mean, half, r.lower_of(part), r.upper)
        rows.append(row)
    return pl.DataFrame(rows)


def run_points(
    points: list[Point],
    out: str | Path,
    *,
    jobs: int | None = None,
    cluster: str | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    memory_limit: float | None = None,
) -> pl.DataFrame:
    """Run every point not yet stored under ``out/runs`` on Dask and return one
    row of summary metrics per point (:data:`METRICS`, plus the varied values and the
    run's ``warnings``).

    Workers are a ``LocalCluster`` of ``jobs`` processes, or the scheduler at
    ``cluster`` (:func:`pertlab.parallel.run_tasks`). Each run is held to ``memory_limit``
    (bytes, or ``math.inf``; None: the memory its worker's host has when it starts), so that a
    run too large is refused, not killed. ``on_progress(done, total)``
    is called as runs finish (stored ones count as done). A stop signal keeps the
    runs stored so far and raises :class:`KeyboardInterrupt`. Used by sweeps and
    by reproductions alike.
    """
    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    unique = {p.key: p for p in points}
    # Each stored run is read once: what its row needs is kept, not the run.
    metrics = {key: _run_row(r) for key in unique if (r := _stored(out / "runs" / key)) is not None}
    todo = [p for key, p in unique.items() if key not in metrics]
    total = len(unique)
    done = total - len(todo)
    if on_progress:
        on_progress(done, total)

    def keep(i: int, results_json: str) -> None:
        nonlocal done
        _store(out, todo[i], results_json)
        done += 1
        if on_progress:
            on_progress(done, total)

    run_tasks(_simulate, [(p.scenario.to_wire_json(), memory_limit) for p in todo], keep, jobs=jobs, cluster=cluster)
    # The metrics stay Float64 columns when a run leaves one undefined (None), even in every run.
    for p in todo:
        metrics[p.key] = _run_row(Results.read(out / "runs" / p.key))
    rows = [_point_columns(p) | metrics[p.key] for p in points]
    return pl.DataFrame(rows, schema_overrides={m: pl.Float64 for m in METRICS} | {"warnings": pl.List(pl.String)}, infer_schema_length=None)


def _run_row(results: Results) -> dict[str, Any]:
    """A run's part of its row in :func:`run_points`: its metrics and what it warned of
    (:attr:`pertlab.Results.warnings`; a stored run's as recorded when it ran)."""
    return _run_metrics(results) | {"warnings": results.warnings}


def _stored(run: Path) -> Results | None:
    """The stored run in ``run``, if it holds one that can be read. One that cannot (damaged or cut by
    something else than pertlab, whose writes are atomic; or written by another version) is
    renamed ``.KEY.unreadable``, a :class:`StoredRunWarning` says so, and it is run again: read
    only at the end, it stopped the sweep there on every resume."""
    if not run.is_dir():
        return None
    try:
        return Results.read(run)
    except (OSError, ValueError) as e:  # a file missing or unreadable (JSONDecodeError is a ValueError)
        aside = run.with_name(f".{run.name}.unreadable")
        shutil.rmtree(aside, ignore_errors=True)
        run.rename(aside)
        warnings.warn(f"{run}: a stored run that cannot be read ({type(e).__name__}: {e}); moved to {aside.name}, and run again", StoredRunWarning, stacklevel=3)
        return None


def stored_results(point: Point, out: str | Path) -> Results:
    """The stored results of a point that :func:`run_points` has run."""
    return Results.read(Path(out) / "runs" / point.key)


def run_sweep(
    base: Scenario,
    vary: dict[str, list[str]],
    seeds: int,
    out: str | Path,
    *,
    jobs: int | None = None,
    cluster: str | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    memory_limit: float | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Run every point not yet stored under ``out``; return (runs, aggregate) tables.

    ``on_progress(done, total)`` is called as runs finish (stored ones count as done). Every
    point is checked against ``memory_limit`` before the first run starts, and each run is held
    to it on its worker (:func:`run_points`).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    points = expand(base, vary, seeds, memory_limit)
    (out / "sweep.json").write_text(
        dumps({"base": base.to_wire(), "vary": vary, "seeds": seeds}, indent=2, sort_keys=True) + "\n"
    )
    runs = run_points(points, out, jobs=jobs, cluster=cluster, on_progress=on_progress, memory_limit=memory_limit)
    table = aggregate(runs, list(vary))
    runs.write_parquet(out / "runs.parquet")
    table.write_parquet(out / "aggregate.parquet")
    return runs, table


def progress_printer() -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A rich progress bar on stderr (runs done / total, time left) and its closer."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn("[bold]sweep"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("runs"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(file=sys.stderr),
    )
    task = None

    def update(done: int, total: int) -> None:
        nonlocal task
        if task is None:
            bar.start()
            task = bar.add_task("sweep", total=total)
        bar.update(task, completed=done)

    def close() -> None:
        if task is not None:  # a bar never started would print an empty line (before an error)
            bar.stop()

    return update, close
