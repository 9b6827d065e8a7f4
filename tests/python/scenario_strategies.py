"""Hypothesis strategies built from the scenario model itself.

:func:`model` draws an instance (as the mapping a scenario file holds) of any pydantic model of
:mod:`pertlab.scenario` by walking its fields: literals, booleans, numbers within their declared
bounds (the bounds themselves, values just inside, typical and extreme ones), quantities
(rates, times, sizes, written in units), optional fields, lists, nested models and the
controllers' tagged union. A field added to the model is therefore generated without touching
this file. What the model cannot say is written here once: which names a reference may take
(a flow's nodes, a monitor's link), and the :class:`Budget` that keeps a run's work small
(duration, rates, counts), beyond which the boundaries are still drawn now and then, so that
the refusals (memory estimate, timer bounds) are exercised too.

:func:`scenario` composes a whole valid-by-construction scenario: a dumbbell or a graph,
flows, UDP sources, web sessions and monitors over it, and the engine's settings. ``test_generated.mutated`` breaks one field of it.
"""

from __future__ import annotations

import copy
import math
import re
import tempfile
import types
import typing
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, Union

import annotated_types as at
from hypothesis import strategies as st
from pydantic import BaseModel, WithJsonSchema

from pertlab import scenario as sc


@dataclass(frozen=True)
class Budget:
    """The work of a generated run: its longest duration, fastest link, most flows (or pairs,
    sessions, sources), and how often a field takes an extreme value (per field drawn)."""

    duration_s: float = 2.0
    rate_bps: int = 200_000_000
    count: int = 4
    extreme: float = 0.02


BOUNDED = Budget()
CAMPAIGN = Budget(duration_s=5.0, rate_bps=1_000_000_000, count=8, extreme=0.05)

U64 = sc.U64_MAX


# --- one value of one field --------------------------------------------------------------


def _bounds(metadata: list[Any]) -> tuple[Any, bool, Any, bool]:
    """(low, low included, high, high included) from annotated-types constraints."""
    lo, lo_in, hi, hi_in = None, True, None, True
    for m in metadata:
        if isinstance(m, at.Ge):
            lo, lo_in = m.ge, True
        elif isinstance(m, at.Gt):
            lo, lo_in = m.gt, False
        elif isinstance(m, at.Le):
            hi, hi_in = m.le, True
        elif isinstance(m, at.Lt):
            hi, hi_in = m.lt, False
    return lo, lo_in, hi, hi_in


def _quantity(metadata: list[Any]) -> str | None:
    """"rate", "time" or "size" for a quantity field (its JSON schema says which)."""
    for m in metadata:
        if isinstance(m, WithJsonSchema):
            description = (m.json_schema or {}).get("description", "")
            for kind in ("rate", "time", "size"):
                if description.startswith(f"a {kind}:"):
                    return kind
    return None


def _positive_only(metadata: list[Any]) -> bool:
    return any(getattr(getattr(m, "func", None), "__qualname__", "").startswith("_positive") for m in metadata)


def _extreme_or(typical: st.SearchStrategy, extremes: list[Any], budget: Budget) -> st.SearchStrategy:
    """``typical`` mostly; one of ``extremes`` with probability ``budget.extreme``."""
    if not extremes:
        return typical
    cut = round(1000 * budget.extreme)
    return st.integers(0, 999).flatmap(lambda r: st.sampled_from(extremes) if r < cut else typical)


def _number(kind: type, metadata: list[Any], budget: Budget) -> st.SearchStrategy:
    lo, lo_in, hi, hi_in = _bounds(metadata)
    if kind is int:
        lo = 0 if lo is None else (lo if lo_in else lo + 1)
        hi = U64 if hi is None else (hi if hi_in else hi - 1)
        typical = st.integers(lo, min(hi, lo + max(budget.count, 20)))
        return _extreme_or(typical, sorted({lo, hi, min(hi, lo + 1)}), budget)
    low = -1e6 if lo is None else lo
    high = 1e6 if hi is None else hi
    typical = st.floats(low, min(high, low + 10), exclude_min=not lo_in, exclude_max=not hi_in and high <= low + 10, allow_nan=False)
    extremes = [x for x in (lo if lo_in else None, hi if hi_in else None, math.nextafter(lo, math.inf) if lo is not None else None,
                            math.nextafter(hi, -math.inf) if hi is not None else None, 1e300 if hi is None else None)
                if x is not None and (lo is None or x > lo or (lo_in and x == lo)) and (hi is None or x < hi or (hi_in and x == hi))]  # fmt: skip
    return _extreme_or(typical, extremes, budget)


def _quantity_value(kind: str, positive: bool, metadata: list[Any], budget: Budget) -> st.SearchStrategy:
    """A quantity written in units, within the budget mostly, at its boundaries now and then."""
    _, _, hi, _ = _bounds(metadata)
    lo = 1 if positive else 0
    if kind == "rate":
        # Log-uniform from 1 Mbit/s: small integers are what hypothesis draws most.
        typical = st.floats(6.0, math.log10(budget.rate_bps)).map(lambda e: f"{round(10**e)}bps")
        extremes = [f"{lo}bps", f"{U64}bps"]
    elif kind == "time":
        # Delays and timers mostly below 50 ms, so that round trips fit in the run.
        typical = _extreme_or(
            st.one_of(st.integers(lo, 1_000).map(lambda n: f"{n}us"), st.integers(max(lo, 1), 50).map(lambda n: f"{n}ms")),
            [f"{int(budget.duration_s * 1000) // k}ms" for k in (1, 2, 4)],
            budget,
        )
        extremes = [f"{lo}ns", f"{U64}ns", "1ns", "1h"]
    else:
        top = hi if hi is not None else U64
        typical = st.integers(max(lo, 41), min(top, 9000)).map(lambda n: f"{n}B")
        extremes = [f"{lo}B", f"{top}B"]
    return _extreme_or(typical, extremes, budget)


def value(annotation: Any, metadata: list[Any], budget: Budget) -> st.SearchStrategy:
    """A strategy for a field declared ``annotation`` with constraints ``metadata``."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        inner, *extra = args
        nested = [m for x in extra for m in (x.metadata if hasattr(x, "metadata") else [x])]
        return value(inner, [*nested, *metadata], budget)
    if origin in (Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        if all(isinstance(a, type) and issubclass(a, BaseModel) for a in members):  # the controllers
            # Not the controllers written in Python ("py"): they name a module that must exist;
            # tests/python/test_python_cc.py covers them, and their malformed names.
            strategies = [model(a, budget) for a in members if getattr(a.model_fields.get("kind"), "default", None) != "py"]
        else:
            strategies = [value(a, metadata, budget) for a in members]
        if type(None) in args:
            strategies.insert(0, st.none())
        return st.one_of(strategies)
    if origin is Literal:
        # Not the queue kind "py" (a discipline written in Python): it names a module that must
        # exist; tests/python/test_python_aqm.py covers it, and its malformed names.
        return st.sampled_from([a for a in args if a != "py"] if len(args) > 1 else args)
    if origin is list:
        return st.lists(value(args[0], [], budget), max_size=3)
    if origin is tuple:
        return st.tuples(*(value(a, [], budget) for a in args))
    if annotation is bool:
        return st.booleans()
    kind = _quantity(metadata)
    if kind is not None:
        return _quantity_value(kind, _positive_only(metadata), metadata, budget)
    if annotation in (int, float):
        return _number(annotation, metadata, budget)
    if annotation is str:
        return st.text(min_size=1, max_size=8)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model(annotation, budget)
    raise TypeError(f"no strategy for {annotation!r}")


def model(cls: type[BaseModel], budget: Budget = BOUNDED, **given: st.SearchStrategy) -> st.SearchStrategy:
    """A mapping of the model's fields (each present or left to its default), with ``given``
    strategies for some fields. Required fields are always present, and so are given ones."""
    fields = {name: given.get(name, strategy) for name, strategy in _fields(cls, budget).items()}
    return st.fixed_dictionaries(fields).map(_without_defaults)


@cache
def _fields(cls: type[BaseModel], budget: Budget) -> dict[str, st.SearchStrategy]:
    """The strategy of each field of ``cls`` by the name a scenario file writes it under, built
    once: :func:`scenario` asks for the same models in every case it draws."""
    fields = {}
    for field, info in cls.model_fields.items():
        if cls is sc.QueueSpec and field == "target":
            continue  # only a "py" queue names a class (see the queue kinds above)
        # A field whose name is a Python keyword (``class_``) is written under its alias (``class``).
        name = info.serialization_alias if field.endswith("_") and info.serialization_alias else field
        strategy = value(info.annotation, list(info.metadata), budget)
        fields[name] = strategy if info.is_required() else _sometimes(strategy)
    return fields


_DEFAULT = object()


def _without_defaults(drawn: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in drawn.items() if v is not _DEFAULT}


def _sometimes(strategy: st.SearchStrategy) -> st.SearchStrategy:
    """``strategy`` one time in four, else ``_DEFAULT``: with dozens of optional fields, most
    runs still carry traffic, and every field is drawn in every few cases.

    The strategy is the lambda's closure, not a default argument: hypothesis labels a flatmap
    by its function's code and the repr of its defaults, and the repr of a model's nested
    strategies took 85 % of the generated tests' time (2026-12-02: 121 of 141 s drawing,
    1.5 s running)."""
    return st.integers(0, 3).flatmap(lambda r: strategy if r == 0 else st.just(_DEFAULT))


# --- a whole scenario --------------------------------------------------------------------


@st.composite
def scenario(draw, budget: Budget = BOUNDED) -> dict[str, Any]:
    """A scenario the model accepts, of every topology kind, with references that resolve."""
    duration_ms = draw(_extreme_or(st.integers(100, int(budget.duration_s * 1000)), [1, 2, 10], budget))
    data: dict[str, Any] = {"seed": draw(st.integers(0, U64)), "duration": f"{duration_ms}ms"}
    if draw(st.booleans()):
        pairs = draw(_extreme_or(st.integers(1, budget.count), [sc.U32_MAX], budget))
        time = value(sc.Time, [], budget)
        delays = st.lists(time, min_size=1, max_size=1) | st.lists(time, min_size=pairs, max_size=pairs) if pairs <= budget.count else st.lists(time, min_size=1, max_size=1)
        data["dumbbell"] = draw(model(sc.DumbbellSpec, budget, pairs=st.just(pairs), sender_access_delay=delays, receiver_access_delay=delays))
        hosts = [(f"s{i}", f"d{i}") for i in range(min(pairs, budget.count))]
        links = ["bottleneck", *(f"s{i}-r0" for i in range(min(pairs, budget.count)))]
    else:
        n = draw(st.integers(2, 2 + budget.count))
        nodes = [f"n{i}" for i in range(n)]
        # A tree, so that every pair of nodes is connected.
        edges = [(nodes[draw(st.integers(0, i - 1))], nodes[i]) for i in range(1, n)]
        data["nodes"] = nodes
        data["links"] = [draw(model(sc.LinkSpec, budget, a=st.just(a), b=st.just(b), name=st.none() | st.just(f"L{j}")))
                         for j, (a, b) in enumerate(edges)]  # fmt: skip
        hosts = [(a, b) for a in nodes for b in nodes if a != b]
        links = [l.get("name") or f"{l['a']}-{l['b']}" for l in data["links"]]
    pair = st.sampled_from(hosts)
    nflows = draw(_extreme_or(st.integers(1, budget.count), [0], budget))
    flows = []
    for _ in range(nflows):
        src, dst = draw(pair)
        flows.append(draw(model(sc.FlowSpec, budget, src=st.just(src), dst=st.just(dst), **draw(_flow_times(duration_ms)))))
    data["flows"] = flows
    data["udp"] = [draw(model(sc.UdpSpec, budget, **dict(zip(("src", "dst"), map(st.just, draw(pair))))))
                   for _ in range(draw(st.integers(0, 2)))]  # fmt: skip
    if draw(st.integers(0, 3)) == 0:
        client, server = draw(pair)
        sessions = _extreme_or(st.integers(0, budget.count), [sc.U32_MAX], budget)
        data["web"] = [draw(model(sc.WebSpec, budget, clients=st.just([client]), servers=st.just([server]), sessions=sessions))]
    if any(t.get("cc", {}).get("kind") == "xcp" for t in [*flows, *data.get("web", [])]) and draw(st.booleans()):
        _xcp_routers(data)
    index = st.integers(0, max(nflows - 1, 0))
    data["monitor"] = draw(model(
        sc.MonitorSpec, budget,
        flows=st.none() | st.lists(index, max_size=2) if nflows else st.none(),
        links=st.none() | st.lists(st.sampled_from(links), max_size=2),
        trace_flows=st.lists(index, max_size=2) if nflows else st.just([]),
        trace_link=st.none(),
        queue_positions=st.none() | st.sampled_from(links),
    ))  # fmt: skip
    if draw(st.integers(0, 3)) == 0:
        data["capture"] = [draw(model(
            sc.CaptureSpec, budget,
            link=st.sampled_from(links), direction=st.none(), file=st.just(str(Path(tempfile.gettempdir()) / "pertlab-generated.pcap")),
            flows=st.none() | st.lists(index, max_size=2) if nflows else st.none(),
        ))]  # fmt: skip
    if draw(st.booleans()):
        start = draw(st.integers(0, duration_ms - 1))
        data["measure"] = {"start": f"{start}ms", "end": f"{draw(st.integers(start + 1, duration_ms))}ms"}
    # Either way of scheduling transmission ends, evenly: one changes the engine's path on every run.
    data["engine"] = draw(model(sc.EngineSpec, budget, tx_end_events=st.sampled_from(["always", "when_needed"])))
    return data


def _xcp_routers(data: dict[str, Any]) -> None:
    """Make every queue of the topology an XCP router, so that XCP flows run (without one on their
    path the core refuses them, a rule the model says only for a dumbbell without any)."""
    if "dumbbell" in data:
        queues = [data["dumbbell"].setdefault("bottleneck_queue", {}), data["dumbbell"].setdefault("access_queue", {})]
        queues += [data["dumbbell"]["bottleneck_queue_reverse"]] if data["dumbbell"].get("bottleneck_queue_reverse") else []
    else:
        queues = [link.setdefault("queue", {}) for link in data["links"]]
        queues += [link["queue_ba"] for link in data["links"] if link.get("queue_ba")]
    for q in queues:
        q["kind"] = "xcp"


@st.composite
def _flow_times(draw, duration_ms: int) -> dict[str, st.SearchStrategy]:
    """A fixed start or a start window, a stop, and leave/rejoin intervals between them, as the
    model's cross-field rules want them (times in ms, within the run or a little beyond)."""
    latest = draw(st.integers(0, max(duration_ms // 2, 1)) | st.sampled_from([duration_ms, duration_ms + 10]))
    fixed = draw(st.booleans())
    stop = draw(st.none() | st.integers(latest, duration_ms + 20))
    end = duration_ms + 20 if stop is None else stop
    cuts = sorted(draw(st.lists(st.integers(latest, end - 1), max_size=4, unique=True))) if end > latest else []
    off = [(f"{a}ms", f"{b}ms") for a, b in zip(cuts[::2], cuts[1::2])]
    return {
        "start": st.just(f"{latest}ms") if fixed else st.none(),
        "start_window": st.none() if fixed else st.integers(0, latest).map(lambda lo: (f"{lo}ms", f"{latest}ms")),
        "stop": st.just(None if stop is None else f"{stop}ms"),
        "off": st.just(off),
    }


#: Fields a repair may drop before it gives up.
REPAIR_ROUNDS = 20


def repair(data: dict[str, Any]) -> tuple[dict[str, Any], Any] | None:
    """The scenario with every field the model refuses left to its default instead, until the
    model accepts it (fields drawn independently break cross-field rules such as top >= bottom);
    None when that does not converge."""
    data = copy.deepcopy(data)
    for _ in range(REPAIR_ROUNDS):
        try:
            return data, sc.Scenario.parse(data)
        except sc.ScenarioError as e:
            for path, _message in e.errors:
                if not _drop(data, path):
                    return None
    return None


def _drop(data: Any, path: str) -> bool:
    """Delete the field at ``links[0].queue.red.top`` (an error path) from ``data``."""
    keys: list[Any] = [int(k) if k.isdigit() else k for k in re.findall(r"[^.\[\]]+", path)]
    target = data
    for k in keys[:-1]:
        try:
            target = target[k]
        except (KeyError, IndexError, TypeError):
            return False
    last = keys[-1]
    if isinstance(target, dict) and last in target:
        del target[last]
        return True
    if isinstance(target, list) and isinstance(last, int) and last < len(target):
        del target[last]
        return True
    return False
