"""A run taken in steps: :class:`Simulation`.

>>> sim = pertlab.Simulation(pertlab.dumbbell(flows=10, duration="60s"))   # doctest: +SKIP
>>> sim.run_until("12.5s")                                                  # doctest: +SKIP
>>> sim.flows()        # per flow: cwnd, ssthresh, srtt, min RTT, bytes acked, CA state  # doctest: +SKIP
>>> sim.set_link_rate("bottleneck", "5Mbps")                                # doctest: +SKIP
>>> results = sim.results()     # runs to the end, then the usual Results  # doctest: +SKIP

The core processes every event due up to the time asked for and stops there
(``crates/pertlab-sim/src/world/live.rs``); reading the state changes nothing, so
a run taken in steps gives the results of :func:`pertlab.run` on the same
scenario, byte for byte. Between steps a link's rate can change (from the next
packet each direction sends) and its delay (from the next packet each direction
finishes sending; packets on the wire keep theirs and none overtakes another), a
long flow can start before its start time, its application can stop or resume, a
core controller's parameter can change (PERT's thresholds, Vegas' alpha and beta,
CUBIC's C and beta, ...: docs/simulation.md), and an ``agent`` flow takes a window
or a pacing rate; the results then show the change at the instant it was made.

Left out: changing queue disciplines mid-run; web transfers and UDP sources in
the live state (their counters are in the results).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import _core
from .results import Results
from .runner import as_scenario
from .memory import core_limit
from .pymodels import resolve
from .scenario import Scenario, ScenarioError
from .scenario.errors import people_path
from .arguments import check_kinds
from .units import parse_rate, parse_time

__all__ = ["Simulation"]

#: What the methods' arguments that are neither times, rates nor flows accept
#: (:func:`pertlab.arguments.check_kinds`).
SIMULATION_KINDS = {
    "link": ("str", "a link's name, e.g. 'bottleneck'"),
    "field": ("str", "a parameter of the flow's controller, e.g. 'p_max'"),
    "to_end": ("bool", "whether to run to the end first"),
}


class Simulation:
    """A scenario built into the core, run in steps with :meth:`run_until`.

    ``scenario``: a :class:`~pertlab.scenario.Scenario`, a mapping or a TOML/JSON path;
    ``memory_limit`` as for :func:`pertlab.run`. Bad input raises
    :class:`~pertlab.scenario.ScenarioError` naming the field.
    """

    def __init__(self, scenario: Scenario | dict[str, Any] | str | Path, *, memory_limit: float | None = None):
        self.scenario = as_scenario(scenario)
        #: The controllers whose parameters :meth:`set_cc_param` changed, by flow (the scenario keeps those it gave).
        self._cc_in_force: dict[int, Any] = {}
        models = resolve(self.scenario)
        #: What :meth:`results` returned: asked again, the same.
        self._taken: Results | None = None
        try:
            self._core = _core.Simulation(self.scenario.to_wire_json(), core_limit(memory_limit), models or None)
        except ValueError as e:
            raise ScenarioError.from_core(e, memory_limit="default" if memory_limit is None else "given") from None

    @property
    def now(self) -> float:
        """The simulated time reached, seconds."""
        return self._core.now_ns() / 1e9

    @property
    def duration(self) -> float:
        """The run's duration, seconds."""
        return self.scenario.duration / 1e9

    def run_until(self, t: str | float) -> bool:
        """Process every event due at or before ``t`` ("12.5s", "800ms", or seconds as a
        number), at most the run's duration; True once the run has reached its end.
        Ctrl-C stops the step where it stands and raises KeyboardInterrupt, a failure in a
        model written in Python raises :data:`pertlab.ModelError`; the results computed so
        far stay available from ``results(to_end=False)``."""
        until = parse_time(t, "t")
        if until < self._core.now_ns():
            raise ValueError(f"t: {until / 1e9:g} s is before the time already reached, {self.now:g} s; a run only moves forward")
        return self._core.run_until(until)

    def state(self) -> dict[str, Any]:
        """Everything live now: ``{"now_ns", "events", "flows": [...], "queues": [...]}``
        (each flow's and each queue's fields as in :meth:`flows` and :meth:`queues`)."""
        return json.loads(self._core.live_json())

    def flows(self):
        """One row per long flow: ``flow, label, cc, started, cwnd, ssthresh`` (None before
        the first reduction), ``srtt_ns, min_rtt_ns, rto_ns, ca_state`` (open, disorder, cwr,
        recovery, loss), ``in_flight, bytes_acked, segments_sent, retransmits, timeouts,
        fast_recoveries, ecn_marks``, the ``pacing_rate_bps`` set from outside (None unless
        set), and adaptive PERT's ``mode`` and ``alpha``."""
        import polars as pl

        return pl.DataFrame(self.state()["flows"], infer_schema_length=None)

    def queues(self):
        """One row per queue (one direction of a link): ``link, from, to, discipline,
        rate_bps, length_packets, length_bytes, arrivals, departures, departure_bytes, drops,
        marks``, the discipline's ``probability``, ``average`` and ``max_p``, and a column for
        each of its other variables (CoDel's ``dropping``, ``count``, ``drop_next_s``,
        ``first_above_s``; PIE's ``qdelay_old_s``, ``burst_allowance_s``; the XCP router's
        ``interval_s``, ``phi_bytes``), null where a queue's discipline has no such variable.
        :meth:`state` keeps them per queue under ``variables``."""
        import polars as pl

        rows = [{**{k: v for k, v in q.items() if k != "variables"}, **q["variables"]} for q in self.state()["queues"]]
        return pl.DataFrame(rows, infer_schema_length=None)

    def set_link_rate(self, link: str, rate: str | float) -> None:
        """From the next packet it sends, each direction of ``link`` sends at ``rate``
        ("5Mbps" or bit/s). The packet being sent keeps its end time; disciplines keep
        what they derived from the rate when built (RED's automatic parameters)."""
        check_kinds({"link": link}, SIMULATION_KINDS)
        self._call(self._core.set_link_rate, link, _not_negative(parse_rate(rate, "rate"), "rate", rate))

    def set_link_delay(self, link: str, delay: str | float) -> None:
        """Each direction of ``link`` gives the packets that finish their transmission from now
        on the propagation delay ``delay`` ("30ms", or seconds as a number). Packets on the
        wire keep their arrival times and none overtakes another: after a decrease, the first
        packets sent with the new delay leave the wire right behind the last ones sent with
        the old (docs/simulation.md)."""
        check_kinds({"link": link}, SIMULATION_KINDS)
        self._call(self._core.set_link_delay, link, _not_negative(parse_time(delay, "delay"), "delay", delay))

    def set_pacing_rate(self, flow: int, rate: str | float) -> None:
        """Long flow ``flow``, whose controller must be ``agent``, paces its segments at ``rate``
        ("5Mbps" or bit/s) from now on: consecutive segments leave at least one segment's
        transmission time at that rate apart, in every state; its window still bounds what is
        in flight (:mod:`pertlab.gym`'s ``action="pacing_rate"``)."""
        self._call(self._core.set_pacing_rate, _flow(flow), _not_negative(parse_rate(rate, "rate"), "rate", rate))

    def stop_flow(self, flow: int) -> None:
        """Long flow ``flow``'s application has no new data from now (what it sent is still delivered)."""
        self._call(self._core.set_flow_sending, _flow(flow), False)

    def resume_flow(self, flow: int) -> None:
        """Long flow ``flow``'s application has data again (after :meth:`stop_flow` or a scheduled stop).
        A flow that has not started yet is refused, naming its start time: :meth:`start_flow` starts it."""
        self._call(self._core.set_flow_sending, _flow(flow), True)

    def start_flow(self, flow: int) -> None:
        """Long flow ``flow``, which has not started yet, starts now instead of at its start time
        (the results' ``start_s`` is then now; its stop and pauses keep their times). A flow that
        has started, or carries a video (whose writes are scheduled from its start time), is refused."""
        self._call(self._core.start_flow, _flow(flow))

    def set_cc_param(self, flow: int, field: str, value: Any) -> None:
        """Parameter ``field`` of long flow ``flow``'s controller becomes ``value`` (written as in a
        scenario: ``set_cc_param(0, "t_min", "3ms")``, ``set_cc_param(2, "alpha", 4)``), from the
        controller's next ACK; its state is kept. The parameters that change mid-run are the core's
        list (docs/simulation.md); the value is checked as a scenario's would be, with the same
        message (``flows[0].cc.p_max: ...``)."""
        i = _flow(flow)
        check_kinds({"field": field}, SIMULATION_KINDS)
        if i >= len(self.scenario.flows):
            self._call(self._core.set_cc_param, i, field, "null")  # the core names the flows there are
        changed = _with_param(self._cc_in_force.get(i, self.scenario.flows[i].cc), i, field, value)
        if changed is None:  # not a field of the controller: the core says what changes mid-run
            try:
                text = json.dumps(value, default=str, allow_nan=False)
            except ValueError:  # NaN or an infinity, which JSON cannot carry
                raise ScenarioError([(f"flows[{i}].cc.{field}", f"must be finite, got {value!r}")]) from None
            self._call(self._core.set_cc_param, i, field, text)
            return
        wire = _wire_name(changed, field)
        self._call(self._core.set_cc_param, i, wire, json.dumps(changed.model_dump(by_alias=True)[wire]))
        self._cc_in_force[i] = changed

    @staticmethod
    def live_params() -> dict[str, tuple[str, ...]]:
        """The controller parameters :meth:`set_cc_param` may change, by controller kind:
        ``{"pert": ("t_min", "t_max", "p_max", "decrease"), "vegas": ("alpha", "beta", "gamma"), ...}``
        (the core's list; the other controllers have none)."""
        return {kind: tuple(fields) for kind, fields in _core.live_params()}

    def set_cwnd(self, flow: int, cwnd: int) -> None:
        """Long flow ``flow``'s window becomes ``cwnd`` segments (at most its receiver window);
        its controller must be ``agent``, which keeps what it is given (:mod:`pertlab.gym`)."""
        if isinstance(cwnd, bool) or not isinstance(cwnd, int) or not 1 <= cwnd < 2**32:
            raise ScenarioError([("cwnd", f"{cwnd!r} is not a window: a whole number of segments, 1 to {2**32 - 1}")])
        self._call(self._core.set_cwnd, _flow(flow), cwnd)

    def results(self, *, to_end: bool = True) -> Results:
        """The run's :class:`~pertlab.results.Results`, after running to its end
        (``to_end=False``: where it stands, flagged ``interrupted`` when short of the end).
        The simulation is then spent: asked again, it returns the same results (refused only
        ``to_end=True`` after results taken short of the end)."""
        check_kinds({"to_end": to_end}, SIMULATION_KINDS)
        if self._taken is not None:
            # Results taken to the end are never interrupted: only those taken short of it refuse.
            if not (to_end and self._taken.interrupted):
                return self._taken
            raise RuntimeError("results(to_end=False) took this simulation's results short of its end; build a new one to run it to the end")
        if to_end:
            self._core.run_until(self.scenario.duration)
        self._taken = Results.from_json(self._core.results_json(), self.scenario)
        return self._taken

    @staticmethod
    def _call(method, *args) -> None:
        try:
            method(*args)
        except ValueError as e:
            raise ScenarioError.from_core(e) from None


def _not_negative(value: int, field: str, given: Any) -> int:
    """``value`` (a rate or time parsed from ``given``) if it is zero or more; the core takes
    unsigned numbers. The error shows ``given`` as the caller wrote it (``-1ms``, not -1000000)."""
    if value < 0:
        raise ScenarioError([(field, f"must not be negative, got {given!r}")])
    return value


def _wire_name(spec: Any, field: str) -> str | None:
    """The core's name of ``field`` (its name, or already its wire name) in the controller model
    ``spec``; None when the model has no such field."""
    for name, info in type(spec).model_fields.items():
        if name != "kind" and field in (name, info.serialization_alias):
            return info.serialization_alias or name
    return None


def _with_param(spec: Any, flow: int, field: str, value: Any) -> Any:
    """The controller model ``spec`` with ``field`` set to ``value``, checked as in a scenario
    (errors at ``flows[flow].cc.<field>``, as the scenario's would read); None when ``spec`` has no
    such field."""
    from pydantic import ValidationError

    wire = _wire_name(spec, field)
    if wire is None:
        return None
    data = spec.model_dump(by_alias=True)
    del data[wire]
    try:
        return type(spec).model_validate({**data, field: value})
    except ValidationError as e:
        prefix = f"flows[{flow}].cc"
        # The model's own checks (a boolean for a number) name a part of it, ".field"; a check
        # between two fields names both, "alpha, beta".
        errors = [(", ".join(prefix + people_path(p) if p[:1] in ("", ".", "[") else f"{prefix}.{people_path(p)}" for p in path.split(", ")), message)
                  for path, message in ScenarioError.from_pydantic(e, whole="").errors]  # fmt: skip
        raise ScenarioError([_joint(prefix, field, path, message) for path, message in errors]) from None


def _joint(prefix: str, field: str, path: str, message: str) -> tuple[str, str]:
    """An error of a check between two fields (Vegas' ``beta >= alpha``, both named) when the
    earlier field (``alpha``) was changed: it says the other keeps its value, so that the other
    changes first."""
    names = [p.removeprefix(prefix + ".") for p in path.split(", ")]
    if len(names) != 2 or names[0] != field:
        return path, message
    other = names[1]
    return path, f"{message} ({other} keeps its value: to move both, change {other} first)"


def _flow(flow: object) -> int:
    if isinstance(flow, bool) or not isinstance(flow, int) or not 0 <= flow < 2**32:
        raise ScenarioError([("flow", f"{flow!r} is not a flow number (0, 1, ... in the order of the scenario's flows)")])
    return flow
