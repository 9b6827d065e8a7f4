"""Generated scenarios, mutated scenarios and command lines: what the schema accepts runs to the
end or is refused up front with field errors; nothing panics, aborts or prints a traceback, and
every result is a possible one (issue 25). Runs taken in steps, with changes between them, are
generated in ``test_generated_steps.py``.

Invariants on every run (``generated.check_results``): packets conserved per flow and in total;
every rate and fraction in [0, 1]; every number finite; wall time bounded by the work done
(events). Outcomes are counted per kind; the counts are printed at the end and written to
``$PERTLAB_FUZZ_COUNTS`` when set.

Profiles (``PERTLAB_FUZZ_PROFILE``): ``bounded`` (default, in ``make test``: fixed seed, a few
hundred cases, about two minutes) and ``campaign`` (``make fuzz``: many cases, a wider budget,
resuming from and growing hypothesis's example database in ``.hypothesis/``).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import pertlab
from pertlab.cli import app
from pertlab.linux.sim_side import sim_scenario
from pertlab.linux.scenario import TestbedScenario
from pertlab.scenario.base import Duration
from pertlab.scenario.controllers import Cubic, Pert, PertAdaptive, PertPi, Vegas

import generated
import scenario_strategies as gen
import strict_json
from generated import BAD_VALUES, BUDGET, COMMON, FEWER, MEMORY_LIMIT, OUTCOMES, SETTINGS, check_results, field_errors, finite_everywhere, run_or_refuse, work_bound


ROOT = Path(__file__).resolve().parents[2]


#: Files a generated scenario names (a capture) land in a directory of the module's own.
pytestmark = pytest.mark.usefixtures("files_in_a_temporary_directory")


@pytest.fixture(scope="module", autouse=True)
def report_counts():
    yield
    generated.report_counts()


@settings(**SETTINGS, **COMMON)
@given(gen.scenario(BUDGET))
def test_valid_scenarios_run_or_are_refused_with_field_errors(data):
    repaired = gen.repair(data)
    assume(repaired is not None)
    data, scenario = repaired
    note(json.dumps(data, default=str))
    run_or_refuse(scenario, "valid")


def _every_transfer(data: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> tuple[dict[str, Any], pertlab.Scenario]:
    """``data`` with ``change`` made to every long flow and web group, repaired (a draw that
    cannot be is discarded) and noted: a field that the scenarios above set only now and then,
    set everywhere."""
    for t in [*data.get("flows", []), *data.get("web", [])]:
        change(t)
    repaired = gen.repair(data)
    assume(repaired is not None)
    data, scenario = repaired
    note(json.dumps(data, default=str))
    return data, scenario


@settings(**FEWER, **COMMON)
@given(gen.scenario(BUDGET), st.data())
def test_vegas_with_either_base_rtt_runs_or_is_refused_with_field_errors(data, draw):
    """Vegas's ``base_rtt`` ("observed", or "propagation": the path's RTT, which the core computes
    from the routes when it builds each long flow and each web connection) on every topology the
    strategy draws: every long flow and web group runs a drawn Vegas with ``base_rtt`` set
    (in the scenarios above Vegas is one controller of many and the field is set one time in four)."""
    vegas = gen.model(Vegas, BUDGET, kind=st.just("vegas"), base_rtt=st.sampled_from(["observed", "propagation"]))
    data, scenario = _every_transfer(data, lambda t: t.update(cc=draw.draw(vegas)))
    # What was drawn, a kind of its own: the outcome is counted under "vegas base_rtt".
    OUTCOMES[("vegas base_rtt drawn", "propagation" if '"propagation"' in json.dumps(data) else "observed only")] += 1
    run_or_refuse(scenario, "vegas base_rtt")


@settings(**FEWER, **COMMON)
@given(gen.scenario(BUDGET), st.data())
def test_cubic_of_either_variant_runs_or_is_refused_with_field_errors(data, draw):
    """CUBIC of either ``variant`` on every long flow and web group the strategy draws (above,
    CUBIC is one controller of many): application-limited senders (video streams, web objects,
    flows that stop) and delayed ACKs send after nothing was in flight, where CUBIC moves its
    stage's start past the idle time (RFC 9438 5.8; the variants count it from different times)."""
    cubic = gen.model(Cubic, BUDGET, kind=st.just("cubic"), variant=st.sampled_from(["rfc9438", "linux"]))
    _, scenario = _every_transfer(data, lambda t: t.update(cc=draw.draw(cubic)))
    idle = bool(scenario.web) or any(f.video or f.stop is not None or f.tcp.delayed_ack or f.tcp.ack_policy != "every" for f in scenario.flows)
    OUTCOMES[("cubic drawn", "with senders that go idle" if idle else "bulk flows only")] += 1
    run_or_refuse(scenario, "cubic variants")


@settings(**FEWER, **COMMON)
@given(gen.scenario(BUDGET), st.data())
def test_linuxs_hystart_and_rto_estimator_run_or_are_refused_with_field_errors(data, draw):
    """Linux's CUBIC with HyStart drawn on or off (``cubic.hystart``) and Linux's RTO estimator
    (``tcp.rto_estimator = "linux"``, with the ``rto_min_on = "variance"`` it needs) on every long
    flow and web group the strategy draws (above, each is drawn in a few scenarios of hundreds)."""
    cubic = gen.model(Cubic, BUDGET, kind=st.just("cubic"), variant=st.just("linux"), hystart=st.booleans())

    def linux(t: dict[str, Any]) -> None:
        t["cc"] = draw.draw(cubic)
        t["tcp"] = t.get("tcp", {}) | {"rto_estimator": "linux", "rto_min_on": "variance"}

    _, scenario = _every_transfer(data, linux)
    hystart = any(f.cc.hystart for f in scenario.flows) or any(w.cc.hystart for w in scenario.web)
    OUTCOMES[("linux hystart and rto drawn", "hystart on some" if hystart else "hystart off")] += 1
    run_or_refuse(scenario, "linux hystart and rto")


@settings(**FEWER, **COMMON)
@given(gen.scenario(BUDGET), st.data())
def test_tso_chunks_behind_linux_receivers_run_or_are_refused_with_field_errors(data, draw):
    """Linux's TSO chunks (``tcp.tso_segs``: PSH on every N-th segment sent at once) with Linux's
    receivers (``ack_policy = "linux"``, which acknowledge a lone PSH segment at once) on every
    long flow and web group the strategy draws (above, each is set one time in four, rarely
    together)."""

    def chunks(t: dict[str, Any]) -> None:
        tcp = {k: v for k, v in t.get("tcp", {}).items() if k != "delayed_ack"}
        t["tcp"] = tcp | {"tso_segs": draw.draw(st.integers(1, 255)), "ack_policy": "linux"}

    _, scenario = _every_transfer(data, chunks)
    chunked = any(f.tcp.tso_segs > 1 for f in scenario.flows) or any(w.tcp.tso_segs > 1 for w in scenario.web)
    OUTCOMES[("tso chunks drawn", "some in chunks" if chunked else "none in chunks")] += 1
    run_or_refuse(scenario, "tso chunks")


@settings(**FEWER, **COMMON)
@given(gen.scenario(BUDGET), st.data())
def test_rack_runs_or_is_refused_with_field_errors(data, draw):
    """Linux's RACK, on retransmissions only (``tcp.rack_retransmits``) or on every segment
    (``tcp.rack``: its reordering timer in the retransmission timer's slot), with the SACK and
    Linux's send times (``rtt_samples = "linux"``) it needs, on every long flow and web group the
    strategy draws, over every topology, loss and queue it draws: the run's conservation checks
    cover the segments RACK marks lost and the retransmissions sent again."""
    extent = draw.draw(st.sampled_from(["rack_retransmits", "rack"]), label="extent")

    def rack(t: dict[str, Any]) -> None:
        tcp = {k: v for k, v in t.get("tcp", {}).items() if k != "rtt_correction"}
        t["tcp"] = tcp | {extent: True, "sack": True, "rtt_samples": "linux"}

    _, scenario = _every_transfer(data, rack)
    lossy = scenario.dumbbell is not None and scenario.dumbbell.bottleneck_loss > 0
    OUTCOMES[(f"{extent} drawn", "with random loss" if lossy else "without random loss")] += 1
    run_or_refuse(scenario, extent)


@settings(**FEWER, **COMMON)
@given(gen.scenario(BUDGET), st.data())
def test_every_pert_with_a_windowed_or_given_p_runs_or_is_refused_with_field_errors(data, draw):
    """PERT/RED, PERT/PI and adaptive PERT with ``P`` from a sliding window (``min_rtt_window``)
    or given as the path's RTT (``base_rtt = "propagation"``) on every long flow and web group
    the strategy draws (above, the three are among many controllers and each setting is drawn
    one time in four or so): windows from a nanosecond to hours, on every topology. The flows
    are sampled, so that the invariants cover each PERT's response probability in the flow
    series (``p_response``)."""
    window = gen.value(Duration, [], BUDGET)
    p_sources = ({"min_rtt_window": window, "base_rtt": st.just("observed")}, {"min_rtt_window": st.none(), "base_rtt": st.just("propagation")})
    perts = st.one_of(*(gen.model(m, BUDGET, kind=st.just(m.model_fields["kind"].default), **p) for m in (Pert, PertPi, PertAdaptive) for p in p_sources))
    data["monitor"]["sample_interval"] = draw.draw(st.sampled_from(["1ms", "10ms", "100ms"]))
    _, scenario = _every_transfer(data, lambda t: t.update(cc=draw.draw(perts)))
    given = any(f.cc.kind.startswith("pert") and f.cc.base_rtt == "propagation" for f in [*scenario.flows, *scenario.web])
    OUTCOMES[("pert P source drawn", "given on some" if given else "windowed only")] += 1
    run_or_refuse(scenario, "pert P source")


# --- mutations of valid scenarios --------------------------------------------------------

def leaves(x: Any, path: tuple = ()) -> list[tuple]:
    """Paths of every value in a nested mapping (dicts and lists), containers included."""
    out = [path] if path else []
    if isinstance(x, dict):
        for k, v in x.items():
            out += leaves(v, (*path, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            out += leaves(v, (*path, i))
    return out


@st.composite
def mutated(draw) -> tuple[dict[str, Any], str]:
    data, _ = draw(gen.scenario(BUDGET).map(gen.repair).filter(lambda r: r is not None))
    data = copy.deepcopy(data)
    paths = leaves(data)
    path = draw(st.sampled_from(paths))
    parent = data
    for k in path[:-1]:
        parent = parent[k]
    how = draw(st.sampled_from(["replace", "delete", "unknown field"]))
    if how == "replace":
        parent[path[-1]] = draw(st.sampled_from(BAD_VALUES))
    elif how == "delete":
        del parent[path[-1]]
    else:
        target = parent[path[-1]] if isinstance(parent[path[-1]], dict) else parent if isinstance(parent, dict) else data
        target["bogus_field"] = 1
    return data, f"{how} {'.'.join(map(str, path))}"


@settings(**SETTINGS, **COMMON)
@given(mutated())
def test_mutated_scenarios_are_refused_with_field_errors_or_run(case):
    data, how = case
    note(how)
    try:
        scenario = pertlab.Scenario.parse(data)
    except pertlab.ScenarioError as e:
        field_errors(e)
        OUTCOMES[("mutated", "refused by the model")] += 1
        return
    run_or_refuse(scenario, "mutated")


# --- sweeps ------------------------------------------------------------------------------

#: What a user writes after ``--vary PATH=``: plausible values of many kinds, and garbage.
VARY_VALUES = st.sampled_from(
    ["0", "-1", "nan", "1e400", "abc", "4294967296", "0.5", "true", "null", "[]", "{}"]
    + ["1", "2", "10", "1000", "10ms", "1s", "100us", "5Mbps", "1Gbps", "1500B", "pert", "droptail", "red", "observed"]
)
#: What ``--vary cc=`` takes, and a name it does not.
VARY_CC = st.sampled_from(["pert", "sack", "vegas", "cubic", "pert-pi", "bbr"])


def people_path(path: tuple) -> str:
    """A wire path as a sweep's ``--vary`` names it: ``flows[0].tcp.min_rto`` for
    ``("flows", 0, "tcp", "min_rto_ns")``."""
    text = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path).lstrip(".")
    return re.sub(r"_(?:bps|ns)$", "", text)


@st.composite
def swept(draw) -> tuple[pertlab.Scenario, str, list[str]]:
    """A valid scenario the core accepts, one field of it (a value, not a section) or ``cc``, and
    one or two values."""
    _, scenario = draw(gen.scenario(BUDGET).map(gen.repair).filter(lambda r: r is not None))
    try:
        scenario.check(MEMORY_LIMIT)
    except pertlab.ScenarioError:
        assume(False)  # a base the core refuses: every point of it would be refused alike
    wire = scenario.to_wire()

    def at(path: tuple) -> Any:
        x = wire
        for k in path:
            x = x[k]
        return x

    # people's path -> (the value, its unit: the wire's `x_ns` is people's `x`, in ns)
    fields = {people_path(p): (at(p), wire_unit(str(p[-1]))) for p in leaves(wire) if not isinstance(at(p), (dict, list))}
    # The conveniences that set a field of every flow: tcp.X, and KIND.X for the flows running KIND.
    for p in [p for p in leaves(wire) if len(p) >= 4 and p[0] in ("flows", "web") and p[2] in ("tcp", "cc") and p[3] != "kind"]:
        if not isinstance(at(p), (dict, list)):
            owner = "tcp" if p[2] == "tcp" else wire[p[0]][p[1]]["cc"]["kind"]
            fields.setdefault(people_path((owner, *p[3:])), (at(p), wire_unit(str(p[-1]))))
    path = draw(st.sampled_from(["cc", *fields]))
    if path == "cc":
        return scenario, path, draw(st.lists(VARY_CC, min_size=1, max_size=2, unique=True))
    return scenario, path, draw(st.lists(st.one_of(VARY_VALUES, near(*fields[path])), min_size=1, max_size=2, unique=True))


def wire_unit(key: str) -> str:
    """The unit of a wire field's number: ``ns`` for ``x_ns``, ``bps`` for ``x_bps``, else none."""
    return "ns" if key.endswith("_ns") else "bps" if key.endswith("_bps") else ""


def near(value: Any, unit: str) -> st.SearchStrategy:
    """Values a sweep of the field would try: its own value (with the wire's unit), halved and
    doubled; so that most points of a sweep run, where :data:`VARY_VALUES` are mostly refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return st.just(value if isinstance(value, str) else json.dumps(value))
    scaled = [value, value * 2, value / 2] if isinstance(value, float) else [value, value * 2, max(value // 2, 1)]
    return st.sampled_from([f"{x}{unit}" for x in scaled])


@settings(**FEWER, **COMMON)
@given(swept())
def test_sweep_points_are_refused_with_field_errors_or_run(case):
    """A sweep of a valid scenario over one of its fields: every point is refused up front with
    field errors naming the point, or runs on a worker (``sweep._simulate``, here in-process)
    with the invariants of every run. Found: points the core refused (a topology without the
    flows' nodes) failed on a worker, and points too large for memory killed the workers."""
    from pertlab.sweep import _simulate, expand

    base, path, values = case
    note(f"--vary {path}={','.join(values)}")
    try:
        points = expand(base, {path: values}, 1, memory_limit=MEMORY_LIMIT)
    except pertlab.ScenarioError as e:
        field_errors(e)
        OUTCOMES[("sweep point", "refused")] += 1
        return
    for point in points:
        wire = point.scenario.to_wire()
        assume(work_bound(wire) <= 4 * work_bound(base.to_wire()))  # the field may make the run longer; keep it cheap
        results = pertlab.Results.from_json(_simulate((point.scenario.to_wire_json(), MEMORY_LIMIT)), point.scenario)
        check_results(results)
    OUTCOMES[("sweep point", "ran")] += 1


# --- the command line --------------------------------------------------------------------

GARBAGE = st.sampled_from(["0", "-1", "nan", "inf", "-inf", "1e400", "abc", "", "1e300", "10 parsecs", "4294967296", "0.5", "x"])


def mostly(valid: st.SearchStrategy) -> st.SearchStrategy:
    """A valid value four times in five, else garbage."""
    return st.integers(0, 4).flatmap(lambda r: GARBAGE if r == 0 else valid)


RATE = st.integers(1, 100).map(lambda n: f"{n}Mbps")
TIME = st.one_of(st.integers(0, 500).map(lambda n: f"{n}ms"), st.integers(1, 2).map(lambda n: f"{n}s"))
CLI_FLAGS = {
    "--bw": mostly(RATE), "--rtt": mostly(st.integers(1, 300).map(lambda n: f"{n}ms")), "--flows": mostly(st.integers(1, 6).map(str)),
    "--cc": mostly(st.sampled_from(["sack", "newreno", "pert", "pert-adaptive", "vegas", "cubic", "fast", "pert:1,sack:1", "pert:50%,sack:50%"])),
    "--queue": mostly(st.sampled_from(["droptail", "red", "ared", "reared", "cared", "codel", "pie", "pi"])),
    "--duration": mostly(st.integers(100, 2000).map(lambda n: f"{n}ms")), "--buffer-bdp": mostly(st.sampled_from(["0", "0.5", "1", "4"])),
    "--buffer": mostly(st.integers(1, 500).map(str)), "--start-window": mostly(TIME), "--warmup": mostly(TIME), "--seed": mostly(st.integers(0, 2**64 - 1).map(str)),
    "--access-rate": mostly(RATE), "--packet-size": mostly(st.integers(41, 9000).map(lambda n: f"{n}B")),
    "--sample-interval": mostly(st.integers(1, 500).map(lambda n: f"{n}ms")), "--web-sessions": mostly(st.integers(0, 5).map(str)),
    "--send-overhead": mostly(st.integers(0, 20).map(lambda n: f"{n}ms")),
    "--cc-param": mostly(st.sampled_from(["pert.p_max=0.2", "pert.p_max=2", "reno.x=1", "vegas.alpha=3", "pert-adaptive.alpha_max=8"])),
    "--ack-policy": mostly(st.sampled_from(["every", "delayed", "adaptive", "linux"])),
    "--ts-echo": mostly(st.sampled_from(["earliest", "latest"])),
    "--tx-end-events": mostly(st.sampled_from(["always", "when_needed"])),
    "--memory-limit": mostly(st.sampled_from(["8GiB", "none", "1KiB", "256MiB"])),
}  # fmt: skip
#: Options that take no value.
CLI_SWITCHES = ["--ecn", "--pacing", "--rtt-correction", "--prr"]
#: Options that only mean something together, drawn as a group so that most of them run:
#: live video streams (Qian 2011) and a multi-class queue with its classes (Hua 2002).
CLI_GROUPS = {
    "video": {
        "--video": mostly(st.builds("{}@{}kbps{}".format, st.integers(1, 4), st.integers(1, 3000), st.sampled_from(["", ":pert", ":sack", ":cubic", ":pert-adaptive", ":vegas"]))),
        "--startup-delay": mostly(TIME), "--startup-delays": mostly(st.lists(TIME, min_size=1, max_size=3).map(",".join)),
        "--t-mu-probe": st.none(),
    },
    "classes": {
        "--queue": mostly(st.sampled_from(["priority", "wtp", "swtp", "bpr"])),
        "--class-weights": mostly(st.lists(st.sampled_from(["1", "2", "4", "0.5", "8"]), min_size=1, max_size=4).map(",".join)),
        "--flow-classes": mostly(st.lists(st.integers(0, 3).map(str), min_size=1, max_size=4).map(",".join)),
        "--udp-load": mostly(st.sampled_from(["0", "0.1", "0.5", "0.9", "1", "1.5"])),
        "--udp-split": mostly(st.lists(st.sampled_from(["0", "0.2", "0.5", "0.6", "1"]), min_size=1, max_size=4).map(",".join)),
        "--udp-arrivals": mostly(st.sampled_from(["pareto", "pareto_onoff", "poisson", "cbr", "cbr_random"])),
    },
}  # fmt: skip


@st.composite
def command_lines(draw) -> list[str]:
    """Options with values first, then the switches (``--json`` last)."""
    args = ["dumbbell", "--bw", "10Mbps", "--duration", "2s", "--flows", "3"]
    switches = draw(st.lists(st.sampled_from(CLI_SWITCHES), max_size=2, unique=True))
    grouped: set[str] = set()
    for group in draw(st.lists(st.sampled_from(sorted(CLI_GROUPS)), max_size=2, unique=True)):
        members = CLI_GROUPS[group]
        # the group's first option (what the others need) four times in five, then any others
        chosen = [next(iter(members))] if draw(st.integers(0, 4)) else []
        chosen += draw(st.lists(st.sampled_from(sorted(members)), max_size=3, unique=True))
        for flag in dict.fromkeys(chosen):
            value = draw(members[flag])
            if value is None:
                switches.append(flag)
            else:
                args += [flag, value]
        grouped |= set(chosen)
    for flag in draw(st.lists(st.sampled_from(sorted(set(CLI_FLAGS) - grouped)), max_size=3, unique=True)):
        args += [flag, draw(CLI_FLAGS[flag])]
    return args + switches + ["--json", "--no-progress"]


def _cheap(args: list[str]) -> bool:
    """A command line whose run stays small: at most 2 s simulated, 100 Mbit/s, 6 flows."""
    values = dict(zip(args[1::2], args[2::2]))  # the pairs come first, the switches after them
    try:
        seconds = pertlab.units.parse_time(values["--duration"]) / 1e9
        bw = pertlab.units.parse_rate(values["--bw"])
        flows = int(values["--flows"])
    except (ValueError, KeyError):
        return True  # refused before anything runs
    return seconds <= 2 and bw <= 100e6 and flows <= 6 and "--web-sessions" not in values


@settings(**SETTINGS, **COMMON)
@given(command_lines())
def test_command_lines_run_or_name_the_flag(args):
    assume(_cheap(args))
    note(" ".join(args))
    result = CliRunner().invoke(app, args)
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 2), (result.exit_code, result.output, result.exception)
    if result.exit_code == 2:
        given_flags = {arg for arg in args if arg.startswith("--")}
        for line in result.stderr.splitlines():
            if line.startswith("error: "):
                # "--bw", "--cc-param reno", or the flags that set a value together: "--flows, --memory-limit"
                assert {name.split(" ")[0] for name in line.split(": ")[1].split(", ")} <= given_flags, line
        assert "error: " in result.stderr or "Invalid value for '--" in result.stderr, result.stderr
        OUTCOMES[("command line", "refused")] += 1
        return
    _ran(result, "command line")


def _ran(result: Any, kind: str) -> None:
    """A command's `--json` summary: strict JSON, packets conserved, every number finite."""
    summary = strict_json.loads(result.stdout)
    assert summary["conservation"]["ok"], summary["conservation"]
    finite_everywhere(summary)
    OUTCOMES[(kind, "ran")] += 1


#: `eval-suite`'s options (Tahiliani's suite dumbbell): every controller `--cc` names, rates from
#: 1 kbit/s to 10 Gbit/s, RTTs from 1 us to 30 s, runs of at most 1 s.
EVAL_SUITE_FLAGS = {
    "--cc": mostly(st.sampled_from(["sack", "newreno", "reno", "vegas", "pert", "pert-pi", "pert-adaptive", "hstcp", "cubic", "compound", "illinois", "fast", "jcc", "surathkal", "dctcp", "scalable", "westwood", "xcp", "agent"])),
    "--bw": mostly(st.sampled_from(["1kbps", "64kbps", "1Mbps", "10Mbps", "100Mbps", "1Gbps", "10Gbps"])),
    "--rtt": mostly(st.sampled_from(["1us", "1ms", "10ms", "80ms", "300ms", "2s", "20s", "30s"])),
    "--duration": mostly(st.sampled_from(["1ns", "10ms", "200ms", "1s"])),
    "--warmup": mostly(st.sampled_from(["0s", "1ms", "100ms", "900ms", "1s"])), "--seed": mostly(st.integers(0, 2**64 - 1).map(str)),
    "--memory-limit": mostly(st.sampled_from(["8GiB", "none", "1KiB", "256MiB"])),
}  # fmt: skip


@st.composite
def eval_suite_lines(draw) -> list[str]:
    args = ["eval-suite", "--duration", "1s"]
    for flag in draw(st.lists(st.sampled_from(sorted(EVAL_SUITE_FLAGS)), min_size=1, max_size=3, unique=True)):
        args += [flag, draw(EVAL_SUITE_FLAGS[flag])]
    return args + (["--pacing"] if draw(st.booleans()) else []) + ["--json", "--no-progress"]


@settings(**FEWER, **COMMON)
@given(eval_suite_lines())
def test_eval_suite_command_lines_run_or_name_the_flag(args):
    """`eval-suite` with every controller and rates, RTTs and durations far from the suite's:
    a run whose results keep every invariant, or exit 2 naming an option given (beside the other
    options of a value set by two, or, for a refusal under `--memory-limit`, the part of the
    suite's fixed network that needs the most)."""
    values = dict(zip(args[1::2], args[2::2]))
    try:
        bits = pertlab.units.parse_rate(values.get("--bw", "10Mbps")) * pertlab.units.parse_time(values["--duration"]) / 1e9
    except ValueError:
        bits = 0  # refused before anything runs
    assume(bits <= 1e9)  # at most 1 Gbit of the bottleneck's capacity: about 125,000 packets
    note(" ".join(args))
    result = CliRunner().invoke(app, args)
    assert "Traceback" not in result.output and result.exit_code in (0, 2), (result.exit_code, result.output, result.exception)
    if result.exit_code == 2:
        given_flags = {a for a in args if a.startswith("--")}
        lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
        assert lines or "Invalid value for '--" in result.stderr, result.stderr
        for line in lines:
            named = line.removeprefix("error: ").split(": ")[0].split(", ")
            flags = {name for name in named if name.startswith("--")}
            # A value set by two options (the buffer, one BDP: --bw and --rtt) names both.
            assert flags & given_flags and flags <= set(EVAL_SUITE_FLAGS) and all(re.fullmatch(generated._PATH, name) for name in set(named) - flags), line
        OUTCOMES[("eval-suite command line", "refused")] += 1
        return
    _ran(result, "eval-suite command line")


# --- the closed-form and fluid-model commands --------------------------------------------

#: A magnitude anywhere in the floats' range, the kind of value the arithmetic cannot take.
MAGNITUDE = st.one_of(st.integers(-320, 308).map(lambda e: f"1e{e}"), st.sampled_from(["0", "-1", "0.5", "2", "nan", "inf"]))
COUNT = st.one_of(st.integers(0, 50).map(str), st.sampled_from(["4294967296", "1000000000", "-3"]))
#: Per command: its required arguments, and each option with its values (a unit appended to a
#: magnitude for quantities, a count for None, or a strategy of its own). Fluid runs integrate at
#: most 1 s.
ARITHMETIC_COMMANDS = {
    ("stability", "pert-red"): ([], {"--capacity": "pkt/s", "--rtt": "s", "--flows": None, "--pmax": "", "--tmin": "s", "--tmax": "s", "--alpha": "", "--delta": "s"}),
    ("stability", "pert-pi"): ([], {"--capacity": "pkt/s", "--rtt": "s", "--flows": None, "--r-star": "s", "--delta": "s"}),
    ("fluid", "pert-pi"): (["--duration", "1s"], {"--capacity": "pkt/s", "--rtt": "s", "--flows": None, "--target": "s", "--m": "", "--k": "", "--beta": ""}),
    ("fluid", "pert-red"): (["--duration", "1s"], {"--capacity": "pkt/s", "--rtt": "s", "--flows": None, "--pmax": "", "--tmin": "s", "--tmax": "s", "--alpha": "", "--delta": "s", "--beta": "", "--decrease": st.sampled_from(["paper", "current", "delayed", "0.5", ""])}),
    ("fluid", "tcp-red"): (["--duration", "1s"], {"--capacity": "pkt/s", "--rtt": "s", "--flows": None, "--min-th": "", "--max-th": "", "--max-p": "", "--wq": "", "--buffer": ""}),
    ("fluid", "surathkal-tcp-red"): (["--duration", "1s"], {"--capacity": "pkt/s", "--rtt": "s", "--flows": None, "--min-th": "", "--max-th": "", "--max-p": "", "--wq": "", "--buffer": ""}),
    ("analyze", "vegas-parking-lot"): (["--hops", "3", "--flows", "2"], {"--capacity": "bps", "--packet-size": None, "--base-rtt": "s", "--alpha": "", "--beta": ""}),
}  # fmt: skip


@st.composite
def arithmetic_command_lines(draw) -> list[str]:
    command = draw(st.sampled_from(sorted(ARITHMETIC_COMMANDS)))
    required, options = ARITHMETIC_COMMANDS[command]
    args = [*command, *required]
    for flag in draw(st.lists(st.sampled_from(sorted(options)), min_size=1, max_size=3, unique=True)):
        unit = options[flag]
        if isinstance(unit, st.SearchStrategy):  # an option that takes names, not magnitudes
            args += [flag, draw(unit)]
        else:
            args += [flag, draw(COUNT) if unit is None else draw(MAGNITUDE) + unit]
    return args


@settings(**SETTINGS, **COMMON)
@given(args=arithmetic_command_lines())
def test_arithmetic_commands_compute_or_name_the_option(args, tmp_path_factory):
    """`stability`, `fluid` and `analyze` with values anywhere in the floats' range: a result
    (exit 0; 1 for a fluid run that diverged, written and said), or exit 2 with every error
    naming an option given: at the start of the line, or as the culprit of an overflow
    (pertlab.culprit), or among the options given when none is alone. Never a traceback."""
    note(" ".join(args))
    if args[0] == "fluid":
        args = [*args, "--out", str(tmp_path_factory.mktemp("fluid"))]
    result = CliRunner().invoke(app, args)
    assert "Traceback" not in result.output and not isinstance(result.exception, (ArithmeticError, MemoryError))
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output, result.exception)
    if result.exit_code == 1:
        assert args[0] == "fluid" and "diverged" in result.stderr, result.stderr
    if result.exit_code == 2:
        given_flags = {a for a in args if a.startswith("--")}
        for line in result.stderr.splitlines():
            if not line.startswith("error: "):
                continue
            if "cannot be computed with these values" in line:
                blamed = line.split("): ", 1)[1]
                named = re.findall(r"--[a-z-]+", blamed)
                assert named and set(named) <= given_flags, line
            else:  # "--capacity: ...", or "--alpha, --beta: ..." for a value they set together
                named = re.findall(r"--[a-z-]+", line.removeprefix("error: ").split(": ")[0])
                assert named and set(named) & given_flags, line
        OUTCOMES[("arithmetic command", "refused")] += 1
        return
    OUTCOMES[("arithmetic command", "computed" if result.exit_code == 0 else "diverged")] += 1


# --- reproduce command lines -------------------------------------------------------------

#: What `reproduce --out` is given: a copy of the committed report of sigcomm07-fig13, an empty
#: place, a file, a path under a file, and a committed report of another entry.
REPRODUCE_OUT = ("report", "new", "file", "under a file", "other report")
REPRODUCE_OPTIONS = {
    "--jobs": st.sampled_from(["1", "2", "0", "-1", "x", "1.5", ""]),
    "--cluster": st.sampled_from(["tcp://127.0.0.1:9", "nonsense", "", "x:y", "tcp://127.0.0.1:99999", "udp://h:1"]),
    "--out": st.sampled_from(REPRODUCE_OUT),
}


@st.composite
def reproduce_lines(draw) -> tuple[list[str], str | None]:
    """`reproduce` with any of its options: a name (an entry's, an unknown one, or none), the
    switches, and option values valid or not. The kind of --out is returned beside the line."""
    json_switch = ["--json"] if draw(st.booleans()) else []
    # One line in three of each of the uses that succeed (the list; a report redrawn), with
    # anything else in it only now and then; the rest are any mix.
    use = draw(st.sampled_from(["list", "redraw", "any"]))
    if use == "list":
        return ["reproduce", "--list", *json_switch], None
    if use == "redraw":
        out = draw(st.sampled_from(["report", "report", "other report", "new"]))
        return ["reproduce", draw(st.sampled_from(["sigcomm07-fig13", "sigcomm07-fig13", "nope"])), "--render-only", "--out", out, *json_switch], out
    args = ["reproduce"]
    name = draw(st.sampled_from([None, "sigcomm07-fig13", "tahiliani-ch5-fluid", "nope"]))
    if name is not None:
        args.append(name)
    out = None
    for flag in draw(st.lists(st.sampled_from(sorted(REPRODUCE_OPTIONS)), max_size=3, unique=True)):
        value = draw(REPRODUCE_OPTIONS[flag])
        out = value if flag == "--out" else out
        args += [flag, value]
    args += draw(st.lists(st.sampled_from(["--list", "--quick", "--render-only"]), max_size=2, unique=True))
    return args + json_switch, out


def _runs_a_reproduction(args: list[str], out: str | None) -> bool:
    """Whether the line would start a reproduction's runs (seconds to minutes): a known name,
    neither --list nor --render-only, no --jobs or --cluster (the two entries drawn solve their
    models here and refuse both), --out absent or a folder that can be."""
    return (
        args[1:2] in (["sigcomm07-fig13"], ["tahiliani-ch5-fluid"])
        and not {"--list", "--render-only", "--jobs", "--cluster"} & set(args)
        and out in (None, "report", "new", "other report")
    )


@settings(**FEWER, **COMMON)
@given(case=reproduce_lines())
def test_reproduce_command_lines_that_run_nothing_exit_0_or_name_the_option(case, tmp_path_factory):
    """Every `reproduce` line that starts no run (those would take minutes each): the list, a
    report redrawn (--render-only), or exit 2 with an error that names the option, or `name`,
    at the start of its line. Never a traceback. A redrawn report's --json is strict JSON."""
    args, out = case
    assume(not _runs_a_reproduction(args, out))
    where = tmp_path_factory.mktemp("reproduce")
    paths = {
        "report": where / "fig13", "new": where / "new", "file": where / "file", "under a file": where / "file" / "x",
        "other report": where / "table1",
    }
    shutil.copytree(ROOT / "docs" / "reproductions" / "sigcomm07-fig13", paths["report"], ignore=shutil.ignore_patterns("tasks"))
    shutil.copytree(ROOT / "docs" / "reproductions" / "sigcomm07-table1", paths["other report"], ignore=shutil.ignore_patterns("tasks"))
    paths["file"].write_text("")
    if out is not None:
        args = [str(paths[out]) if a == out and args[i - 1] == "--out" else a for i, a in enumerate(args)]
    note(" ".join(args))
    result = CliRunner().invoke(app, args)
    assert "Traceback" not in result.output and (result.exception is None or isinstance(result.exception, SystemExit)), (result.output, result.exception)
    assert result.exit_code in (0, 2), (result.exit_code, result.output)
    if result.exit_code == 2:
        given = {a for a in args if a.startswith("--")} | ({"name"} if args[1:2] and not args[1].startswith("--") else set())
        # --render-only without --out redraws --out's default folder, and a refusal names it so.
        given |= {"--out"} if "--render-only" in args else set()
        errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
        if errors:
            named = set(re.findall(r"--[a-z-]+|\bname\b", errors[0].removeprefix("error: ").split(": ")[0]))
            assert named and named <= given, errors[0]
        else:  # click's own refusal of a value its type cannot take
            assert "Invalid value for '--" in result.stderr, result.stderr
        OUTCOMES[("reproduce command line", "refused")] += 1
        return
    if "--json" in args:
        strict_json.loads(result.stdout)
    OUTCOMES[("reproduce command line", "listed" if "--render-only" not in args else "redrawn")] += 1


# --- testbed scenario files ---------------------------------------------------------------


@cache
def _delayline() -> str | None:
    """The delay line's binary (built here), or None without a C compiler."""
    from pertlab.linux import build

    return str(build.build_delayline()) if shutil.which("cc") else None


@settings(**SETTINGS, **COMMON)
@given(gen.model(TestbedScenario, BUDGET), st.booleans())
def test_testbed_scenarios_are_refused_with_field_errors_or_fit_the_kernel_code(data, mutate):
    """What the testbed's model accepts, the kernel side can run: the ``[pert]`` and
    ``[pert_adaptive]`` tables fit the eBPF programs' fixed point (their loaders' checks), every
    group starts before the end, the bottleneck's queue is a valid qdiscs'."""
    if mutate:
        data = {**data, "bottleneck": {**data.get("bottleneck", {}), "rate": "0Mbps"}, "flows": [{"cc": "bbr", "cnt": 4}]}
    try:
        scenario = TestbedScenario.parse(data)
    except pertlab.ScenarioError as e:
        field_errors(e)
        OUTCOMES[("testbed scenario", "refused by the model")] += 1
        return
    scenario.pert_params().validate()
    scenario.pert_adaptive_params().validate()
    assert all(g.start < scenario.duration for g in scenario.flows)
    kind, limit = scenario.queue()
    assert kind in ("bfifo", "pfifo") and limit >= 1
    # The delay line takes the path the model accepted (jitter, order, loss, seed).
    if _delayline():
        r = subprocess.run([_delayline(), "--check", *scenario.delayline_args()], capture_output=True, text=True, timeout=10)
        assert r.returncode == 0, (scenario.delayline_args(), r.stderr)
    assert 0.0 <= scenario.loss_rate <= 1.0
    # `testbed compare` puts it in the simulator, or says what the simulator refuses (a
    # controller it lacks, a path with no delay) naming the testbed file's field.
    try:
        sim_scenario(scenario)
    except pertlab.ScenarioError as e:
        assert all(re.split(r"[.\[]", path)[0] in TestbedScenario.model_fields for path, _ in e.errors), e
        OUTCOMES[("testbed scenario", "accepted, refused by the simulator")] += 1
        return
    OUTCOMES[("testbed scenario", "accepted")] += 1


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark missing (make sysdeps installs it)")
@settings(**SETTINGS, **COMMON)
@given(gen.model(TestbedScenario, BUDGET), st.none() | st.floats(0.0, 1.0), st.booleans(), st.booleans(), st.booleans())
def test_testbed_compares_simulator_half_captures_its_receivers(data, step, rack, rack_retransmits, frame_ahead):
    """`testbed compare`'s simulator half with ``capture_acks`` (:func:`linux.sim_side.simulated`):
    the run keeps every invariant with its receivers captured, and the ACKs read back from the
    captures make a summary of shares in [0, 1], holds that are not negative and no PSH (the
    simulator sets none); the captures are removed once read. With ``step`` the bottleneck marks
    from ``bottleneck.step_k`` at that fraction of its buffer (a drawn threshold seldom fits below
    the buffer): the simulator's step queue and ECN, and kernel cubic as Linux's CUBIC. ``rack``:
    the simulated senders with SACK find every loss by RACK (``--sim-rack``), or else with
    ``rack_retransmits`` lost retransmissions only (``--sim-rack-retransmits``);
    ``frame_ahead``: the round trip a data packet's time shorter (``--sim-frame-ahead``)."""
    import tempfile

    from pertlab.linux.sim_side import SimSide, simulated

    try:
        sc = TestbedScenario.parse(data)
        if step is not None and sc.buffer_frames > 1:
            sc = TestbedScenario.parse(data | {"bottleneck": {**data.get("bottleneck", {}), "step_k": 1 + int(step * (sc.buffer_frames - 2))}})
            OUTCOMES[("testbed compare's captures", "with step marking")] += 1
        sim = sim_scenario(sc, side=SimSide(rack=rack, rack_retransmits=rack_retransmits, frame_ahead=frame_ahead))
    except pertlab.ScenarioError:
        OUTCOMES[("testbed compare's captures", "refused")] += 1
        return
    # Cut to at most 1e6 events of work (the run, not the scenario, is what is checked here).
    wire = sim.to_wire()
    duration = max(2, int(wire["duration_ns"] * min(1.0, 1e6 / work_bound(wire))))
    wire |= {"duration_ns": duration, "measure": {"start_ns": min(wire["measure"]["start_ns"], duration // 2), "end_ns": duration}}
    try:
        sim = pertlab.Scenario.parse(wire).check(MEMORY_LIMIT)
    except pertlab.ScenarioError as e:  # a sample interval of a few ns records more than the limit
        field_errors(e)
        OUTCOMES[("testbed compare's captures", "refused by the core")] += 1
        return
    with tempfile.TemporaryDirectory() as tmp:
        res, summary = simulated(sim, Path(tmp), capture_acks=True)
        check_results(res)
        assert summary is not None and not list(Path(tmp).glob("**/*.pcap"))
        table = pl.read_parquet(Path(tmp) / "acks.parquet")
    for key in ("lone_share", "lone_at_once_share", "at_once_push_share", "push_at_once_share", "data_push_share", "cue_at_once_share"):
        assert summary[key] is None or 0.0 <= summary[key] <= 1.0, (key, summary)
    assert summary["data_push_share"] in (None, 0.0) and not table["push"].any()
    assert table.is_empty() or (table["segments"].min() >= 1 and table["hold_ms"].min() > -1e-6), table.describe()
    assert table["cue_hold_ms"].drop_nulls().is_empty() or table["cue_hold_ms"].min() > -1e-6, table.describe()
    OUTCOMES[("testbed compare's captures", "run, ACKs counted")] += 1


@settings(**SETTINGS, **COMMON)
@given(gen.model(TestbedScenario, BUDGET), st.floats(0.0, 1.0))
def test_testbed_compares_warm_up_run_is_the_start_of_its_run(data, cut):
    """`testbed compare`'s simulator side of adaptive PERT's time before the window
    (:func:`linux.sim_side.warm_up_of`) is the same run cut at the warm-up's end: its flows' and
    queue's series match the whole run's up to there, sample for sample, and its flows' times in
    the modes add up to at most the warm-up. The warm-up is put at ``cut`` of the duration, which
    is cut to about 1e6 events of work first."""
    from pertlab.linux.sim_side import warm_up_of
    from pertlab.runner import run as sim_run

    try:
        sc = TestbedScenario.parse(data)
        wire = sim_scenario(sc).to_wire()
    except pertlab.ScenarioError:
        OUTCOMES[("testbed compare's warm-up run", "refused")] += 1
        return
    duration = max(2, int(sc.duration * min(1.0, 1e6 / work_bound(wire))))
    sc = sc.model_copy(update={"duration": duration, "warmup": max(1, int(cut * duration))})
    try:
        whole, start = sim_run(sim_scenario(sc, MEMORY_LIMIT)), warm_up_of(sc, sc.seed, MEMORY_LIMIT)
    except pertlab.ScenarioError as e:  # a sample interval of a few ns records more than the limit
        field_errors(e)
        OUTCOMES[("testbed compare's warm-up run", "refused by the core")] += 1
        return
    check_results(start)
    end_s = sc.warmup / 1e9
    for series in ("flow_series", "queue_series"):
        a, b = (getattr(r, series).filter(pl.col("t_s") < end_s) for r in (whole, start))
        assert a.equals(b), (series, a, b)
    modes = start.flows.select(pl.col("high_speed_s") + pl.col("safe_s") + pl.col("compete_s"))
    assert modes.is_empty() or modes.to_series().max() <= end_s + 1e-9
    OUTCOMES[("testbed compare's warm-up run", "the whole run's start")] += 1


@settings(**SETTINGS, **COMMON)
@given(gen.model(TestbedScenario, BUDGET))
def test_testbed_scenarios_read_back_from_their_json_dump(data):
    """``model_dump(mode="json")`` is a scenario again, the same one: its times are written with
    their unit ("20000000ns"; a plain number would read as seconds), rates and sizes too."""
    try:
        scenario = TestbedScenario.parse(data)
    except pertlab.ScenarioError:
        OUTCOMES[("testbed scenario dump", "refused by the model")] += 1
        return
    # The default warm-up (2 s) is checked against the duration like a given one.
    assert scenario.warmup < scenario.duration
    dumped = json.loads(json.dumps(scenario.model_dump(mode="json")))
    assert TestbedScenario.parse(dumped) == scenario, dumped
    assert TestbedScenario.parse(json.loads(scenario.model_dump_json(by_alias=True))) == scenario
    OUTCOMES[("testbed scenario dump", "read back")] += 1


@settings(**FEWER, **COMMON)
@given(gen.scenario(BUDGET))
def test_scenarios_read_back_from_their_dumps(data):
    """A simulator scenario dumps under the core's wire names (``duration_ns``), whose plain
    numbers read back as ns, so ``model_validate(model_dump())`` is the same scenario, in Python
    and in JSON (under the human names a plain number would read as seconds)."""
    repaired = gen.repair(data)
    assume(repaired is not None)
    _, scenario = repaired
    assert pertlab.Scenario.model_validate(scenario.model_dump()) == scenario
    assert pertlab.Scenario.model_validate(json.loads(json.dumps(scenario.model_dump(mode="json")))) == scenario
    assert pertlab.Scenario.model_validate_json(scenario.model_dump_json()) == scenario
    OUTCOMES[("scenario dump", "read back")] += 1


# --- `linux load` options -----------------------------------------------------------------

#: A value for a `linux load` option: the usual magnitudes, ones the kernel code's units (whole
#: microseconds, millionths, 2^-32) cannot tell from 0 or from 1, and the float's extremes.
_LOAD_EDGES = st.sampled_from([0.0, 1.0, 1e-12, 1e-9, 4e-7, 5e-7, 1e-6, 0.0004, 0.0009995, 0.001, 0.9999995, 0.9999999, 1 - 1e-12, 1e6, 1e7, -1.0])
LOAD_VALUE = st.one_of(_LOAD_EDGES, st.floats(0, 1e-5), st.floats(0, 100, allow_nan=False), st.floats(-1e300, 1e300))
LOAD_OPTIONS = {
    "pert": ("t_min_ms", "t_max_ms", "t_end_ms", "p_max", "decrease", "srtt_weight", "min_rtt_window_ms"),
    "pert-adaptive": ("t_min_ms", "t_max_ms", "p_max", "srtt_weight", "alpha_max", "compete_frac", "t3_frac", "ramp_pole_frac", "q_max_init_ms", "alpha_period_rtts", "high_speed_step", "compete_step", "safe_decay", "interval_weights", "min_rtt_window_ms"),
}  # fmt: skip


@st.composite
def load_options(draw) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(sorted(LOAD_OPTIONS)))
    chosen = draw(st.lists(st.sampled_from(LOAD_OPTIONS[name]), min_size=1, max_size=4, unique=True))
    given = {}
    for field in chosen:
        if field == "interval_weights":
            given[field] = ",".join(repr(draw(LOAD_VALUE)) for _ in range(draw(st.integers(1, 9))))
        elif field in ("t_max_ms", "t_end_ms") and "t_min_ms" in given and draw(st.booleans()):
            # Close to t_min: ordered in ms, perhaps not in the kernel code's microseconds.
            given[field] = given["t_min_ms"] + draw(st.sampled_from([1e-7, 4e-4, 1e-3, 1.5e-3]))
        else:
            given[field] = draw(LOAD_VALUE)
    return name, given


def _kernel_reads_what_was_given(name: str, fixed: dict[str, Any], params: Any) -> None:
    """The fixed point the loader hands the eBPF program keeps what the checks accepted: the
    thresholds ordered, every positive value positive, every value below 1 below 1."""
    from pertlab.linux.loader import PPM, PROB_ONE

    assert fixed["t_min"] < fixed["t_max"], fixed
    assert 1 <= fixed["p_max"] <= PROB_ONE, fixed
    assert 0 < fixed["weight_ppm"] < PPM, fixed
    assert (fixed["min_rtt_window_us"] > 0) == (params.min_rtt_window_ms is not None), fixed  # 0 is no window
    if name == "pert":
        assert 0 < fixed["keep_ppm"] < PPM, fixed
        assert not fixed["have_t_end"] or fixed["t_end"] > fixed["t_max"], fixed
        return
    assert fixed["alpha_max"] >= PPM and 0 < fixed["compete_frac"] <= fixed["t3_frac"] <= PPM, fixed
    assert 0 < fixed["safe_decay"] <= PPM and fixed["ramp_pole_frac"] > 0 and fixed["alpha_period_rtts"] > 0, fixed
    for field in ("high_speed_step", "compete_step"):
        assert (fixed[field] > 0) == (getattr(params, field) > 0), (field, fixed)
    assert all((w > 0) == (x > 0) for w, x in zip(fixed["weights"], params.interval_weights)) and sum(fixed["weights"]) > 0, fixed


@settings(**SETTINGS, **COMMON)
@given(load_options())
def test_linux_load_options_fit_the_kernel_code_or_name_the_flag(case):
    """`linux load` accepts only parameters the eBPF program reads as given (its fixed point:
    whole microseconds, millionths, 2^-32), and refuses the rest before anything is compiled
    (exit 2, naming flags given, no traceback): `--t-min-ms 0.0001 --t-max-ms 0.0005` once
    registered t_min = t_max = 0, an early response on every ACK."""
    import typer

    from pertlab.linux.cli import load_params

    name, given = case
    note(f"{name} {given}")
    options = {"t_min_ms": 5.0, "t_max_ms": 10.0, "t_end_ms": None, "p_max": 0.05, "decrease": None, "srtt_weight": 0.99, "literal": False, "slow_start_response": None}
    options |= {field: None for field in LOAD_OPTIONS["pert-adaptive"] if field not in options} | given
    try:
        params = load_params(name, options)
    except typer.Exit as e:
        assert e.exit_code == 2
        args = ["linux", "load", name, *(x for field, v in given.items() for x in (f"--{field.replace('_', '-')}", str(v)))]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        named = re.findall(r"--[a-z0-9-]+|NAME", result.stderr.removeprefix("error: ").split(": ")[0])
        assert set(named) & {a for a in args if a.startswith("--")}, result.stderr  # a constraint names the flags it binds
        OUTCOMES[("linux load options", "refused")] += 1
        return
    _kernel_reads_what_was_given(name, params.fixed(), params)
    OUTCOMES[("linux load options", "accepted")] += 1


# --- testbed run command lines -----------------------------------------------------------

#: Scenario files `testbed run` is given, by kind; "missing" and "directory" name no file.
TESTBED_FILES = {
    "valid": 'duration = "2s"\nwarmup = "1s"\n[[flows]]\ncc = "reno"\n',
    "empty": "",  # every field at its default: a valid scenario
    "bad toml": "x = \n",
    "bad field": '[bottleneck]\nrate = "0Mbps"\n',
    "unknown field": "colour = 1\n",
}
#: What each kind of file is refused naming (the path as written where the file is the fault).
TESTBED_FILE_FAULT = {"missing": "PATH", "directory": "PATH", "bad toml": "PATH", "bad field": "bottleneck.rate", "unknown field": "scenario"}
#: What `--out` is given: nothing, a new folder, a file, a path under a file, one that root's
#: permissions allow but nothing can be made in (/proc).
TESTBED_OUT = (None, "new", "file", "under a file", "proc")


@settings(**FEWER, **COMMON)
@given(kind=st.sampled_from([*TESTBED_FILES, "missing", "directory"]), out=st.sampled_from(TESTBED_OUT), as_json=st.booleans())
def test_testbed_run_command_lines_that_run_nothing_exit_2_naming_the_file_field_or_out(kind, out, as_json, tmp_path_factory):
    """Every `testbed run` line that starts no run (a run needs root and seconds): exit 2 with
    one error whose subject is the scenario's path (missing, a directory, not TOML), the field
    at fault, or --out, in that order of checking, before any namespace is made. Never a
    traceback."""
    assume(not (kind in ("valid", "empty") and out in (None, "new")))
    where = tmp_path_factory.mktemp("testbed-run")
    path = where / "scenario.toml"
    if kind in TESTBED_FILES:
        path.write_text(TESTBED_FILES[kind])
    elif kind == "directory":
        path.mkdir()
    (where / "file").write_text("")
    outs = {"new": where / "new", "file": where / "file", "under a file": where / "file" / "x", "proc": Path("/proc/pertlab-out")}
    args = ["testbed", "run", str(path), *(["--out", str(outs[out])] if out else []), *(["--json"] if as_json else [])]
    note(" ".join(args))
    result = CliRunner().invoke(app, args)
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit), (result.output, result.exception)
    assert result.exit_code == 2, (result.exit_code, result.output)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr
    subject = errors[0].removeprefix("error: ").split(": ")[0]
    fault = TESTBED_FILE_FAULT.get(kind, "--out")
    assert subject == (str(path) if fault == "PATH" else fault), errors[0]
    assert not (where / "new").exists()
    OUTCOMES[("testbed run command line", "refused")] += 1
