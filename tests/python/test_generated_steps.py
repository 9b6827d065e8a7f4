"""Runs taken in steps (:class:`pertlab.Simulation`) with generated changes between the steps:
what the step API accepts runs on, and what it refuses it refuses with an error naming the
argument or the field; nothing panics, and the results at the end keep every invariant of a
run (``generated.check_results``: conservation, rates in [0, 1], finite numbers, work bounded by
the links' capacity, here at the fastest rate a step gave them).

The scenarios are those of ``test_generated.py`` that the core accepts. Between the steps: moves
of the clock (within the run, beyond its end, before the time reached, garbage), link rates and
delays (the budget's, the boundaries, 0, 2^64 - 1, negative, NaN, words), starts, stops and
resumptions of flows, a window or a pacing rate for any flow (only ``agent`` flows take them), and
a parameter of a flow's controller: one of the controller's own fields with a value drawn from its
declaration (so valid values and its bounds), a bad value, or a name it does not have. The live
state is read after every step. ``make test`` draws 40 cases (the bounded profile's ``FEWER``),
``make fuzz`` as many as the other kinds.
"""

from __future__ import annotations

import json
import typing
from typing import Any

import pytest
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

import pertlab
from pertlab import scenario as sc
from pertlab.units import parse_rate

import generated
import scenario_strategies as gen
from generated import BUDGET, COMMON, FEWER, FIELD_ERROR, MEMORY_LIMIT, OUTCOMES, check_results, field_errors

KIND = "steps"


def mostly(valid: st.SearchStrategy, other: st.SearchStrategy) -> st.SearchStrategy:
    """``valid`` four times in five, else ``other`` (boundaries and garbage): most steps are
    taken, so that the changes they make reach the core."""
    return st.integers(0, 4).flatmap(lambda r: other if r == 0 else valid)


#: What a caller may give a step for a rate: the budget's rates mostly, the boundaries, and garbage.
RATES = mostly(
    st.floats(3.0, 9.0).map(lambda e: f"{round(10**e)}bps"),
    st.sampled_from(["1bps", f"{gen.U64}bps", f"{2**64}bps", "0bps", "-5Mbps", -1, 1e7, float("nan"), float("inf"), "fast", None, [1]]),
)
#: ... and for a time (a link's delay).
TIMES = mostly(
    st.integers(0, 100_000).map(lambda us: f"{us}us"),
    st.sampled_from(["0s", "1ns", "1h", f"{gen.U64}ns", f"{2**64}ns", "-1ms", -1, 0.02, float("nan"), float("inf"), "soon", None]),
)
#: The controllers of a scenario's flows, by kind (the Python-written "py" left out, as in
#: scenario_strategies), and the parameters a run in steps may change, by kind.
CONTROLLERS = {cls.model_fields["kind"].default: cls for cls in typing.get_args(sc.FlowSpec.model_fields["cc"].annotation)}
CONTROLLERS.pop("py")
LIVE = pertlab.Simulation.live_params()
#: Flow numbers beyond the scenario's own.
OTHER_FLOWS = st.sampled_from([-1, 2**32, 2**40, True, "0", 1.5, None])


def link_names(sim: pertlab.Simulation) -> list[str]:
    return sorted({q["link"] for q in sim.state()["queues"]})


@st.composite
def step(draw, sim: pertlab.Simulation) -> tuple[str, tuple]:
    """One call on ``sim``: its method's name and arguments."""
    flows = len(sim.scenario.flows)
    flow = mostly(st.integers(0, flows - 1), OTHER_FLOWS) if flows else OTHER_FLOWS
    link = mostly(st.sampled_from(link_names(sim)), st.sampled_from(["nowhere", "", None, 3]))
    method = draw(st.sampled_from(["run_until", "set_link_rate", "set_link_delay", "start_flow", "stop_flow", "resume_flow", "set_cwnd", "set_pacing_rate", "set_cc_param"]))
    if method == "run_until":
        t = draw(mostly(st.floats(0.0, 1.2).map(lambda f: f * sim.duration), st.sampled_from([-1.0, "soon", float("nan"), 1e300, f"{gen.U64}ns"])))
        return method, (t,)
    if method in ("set_link_rate", "set_link_delay"):
        return method, (draw(link), draw(RATES if method == "set_link_rate" else TIMES))
    if method in ("start_flow", "stop_flow", "resume_flow"):
        return method, (draw(flow),)
    agents = [i for i, f in enumerate(sim.scenario.flows) if f.cc.kind == "agent"]
    if method == "set_cwnd":
        flow = mostly(st.sampled_from(agents), flow) if agents else flow
        return method, (draw(flow), draw(mostly(st.integers(1, 1000), st.sampled_from([0, -1, 2**32 - 1, 2**32, 1.5, True, None]))))
    if method == "set_pacing_rate":
        flow = mostly(st.sampled_from(agents), flow) if agents else flow
        return method, (draw(flow), draw(RATES))
    live = [i for i, f in enumerate(sim.scenario.flows) if f.cc.kind in LIVE]
    i = draw(mostly(st.sampled_from(live), flow) if live else flow)
    if not (isinstance(i, int) and not isinstance(i, bool) and 0 <= i < flows):
        return method, (i, "p_max", 0.1)
    cc = sim.scenario.flows[i].cc
    fields = {name: info for name, info in type(cc).model_fields.items() if name != "kind"}
    # A live parameter mostly, else another field of the controller or a name it does not have.
    names = sorted(fields) or ["alpha"]
    field = draw(mostly(st.sampled_from(LIVE.get(cc.kind, names)), st.sampled_from([*names, "bogus", "", None])))
    if field in fields:
        info = fields[field]
        value = draw(mostly(gen.value(info.annotation, list(info.metadata), BUDGET), st.sampled_from(generated.BAD_VALUES)))
    else:
        value = draw(st.sampled_from([0.1, 1, "3ms"]))
    return method, (i, field, value)


def refusal(e: ValueError) -> None:
    """A step refused: every line names an argument or a field (a ScenarioError's fields, or the
    message of a value that could not be read: ``rate: cannot read 'fast' as a rate``)."""
    if isinstance(e, pertlab.ScenarioError):
        field_errors(e)
    else:
        lines = str(e).splitlines()
        assert lines and all(FIELD_ERROR.match(line) for line in lines), lines


def fastest(wire: dict[str, Any], rates: dict[str, int]) -> dict[str, Any]:
    """``wire`` with each link at the fastest rate a step gave it (``rates``, by link name), so
    that :func:`generated.work_bound` bounds what the changed links could carry."""
    wire = json.loads(json.dumps(wire))
    if d := wire.get("dumbbell"):
        for name, rate in rates.items():
            key = "bottleneck_rate_bps" if name == "bottleneck" else "access_rate_bps"
            d[key] = max(d[key], rate)
    else:
        for link in wire["links"]:
            name = link.get("name") or f"{link['a']}-{link['b']}"
            link["rate_bps"] = max(link["rate_bps"], rates.get(name, 0))
    return wire


#: Files a generated scenario names (a capture) land in a directory of the module's own.
pytestmark = pytest.mark.usefixtures("files_in_a_temporary_directory")


@pytest.fixture(scope="module", autouse=True)
def report_counts():
    yield
    generated.report_counts()


@settings(**FEWER, **COMMON)
@given(gen.scenario(BUDGET), st.data())
def test_steps_with_changes_run_or_are_refused_naming_the_argument(data, draw):
    # Controllers with live parameters, and agents (which take a window or a pacing rate), for
    # most flows: the scenarios' own draws leave most flows at the default, Reno.
    for flow in data["flows"]:
        kind = draw.draw(mostly(st.sampled_from([*LIVE, "agent"]), st.sampled_from(sorted(CONTROLLERS))), label="cc")
        flow["cc"] = {**draw.draw(gen.model(CONTROLLERS[kind], BUDGET), label=f"{kind} parameters"), "kind": kind}
    repaired = gen.repair(data)
    assume(repaired is not None)
    data, scenario = repaired
    try:
        sim = pertlab.Simulation(scenario, memory_limit=MEMORY_LIMIT)
    except pertlab.ScenarioError as e:
        field_errors(e)
        OUTCOMES[(KIND, "scenario refused by the core")] += 1
        return
    note(json.dumps(data, default=str))
    rates: dict[str, int] = {}
    refused = 0
    for _ in range(draw.draw(st.integers(1, 8), label="steps")):
        method, args = draw.draw(step(sim), label="step")
        before = sim.now
        try:
            getattr(sim, method)(*args)
        except ValueError as e:
            note(f"{method}{args!r} refused: {e}")
            refusal(e)
            refused += 1
            OUTCOMES[(f"{KIND}: {method}", "refused")] += 1
        else:
            OUTCOMES[(f"{KIND}: {method}", "taken")] += 1
            if method == "set_link_rate":
                rates[args[0]] = max(rates.get(args[0], 0), parse_rate(args[1], "rate"))
        # The live state after every step: the clock never goes back, every flow and queue is there.
        state = sim.state()
        assert before <= sim.now <= sim.duration and state["now_ns"] == sim._core.now_ns(), (method, args, before, sim.now)
        assert len(state["flows"]) == len(scenario.flows)
        assert sim.flows().height == len(scenario.flows) and sim.queues().height == len(state["queues"])
        generated.finite_everywhere(state)
    to_end = draw.draw(st.booleans(), label="to_end")
    reached = sim.duration if to_end else sim.now
    results = sim.results(to_end=to_end)
    assert results.summary["interrupted"] == (reached < sim.duration), (to_end, reached)
    check_results(results, work=generated.work_bound(fastest(scenario.to_wire(), rates)))
    OUTCOMES[(KIND, "ran, every step taken" if not refused else "ran, some steps refused")] += 1
