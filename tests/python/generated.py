"""What every generated-input test shares (issue 25): the profiles, the outcome counts, what a
field error looks like, and the invariants of every run (:func:`check_results`), with the work a
scenario may take (:func:`work_bound`).

The counts of every generated test module go into one :data:`OUTCOMES`; each module's
:func:`report_counts` fixture prints them when it ends and writes them to
``$PERTLAB_FUZZ_COUNTS`` when set (the last module's write holds every kind: ``make fuzz``).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, note
from hypothesis.database import DirectoryBasedExampleDatabase

import pertlab
from pertlab.cli.output import print_summary
from pertlab.jsonable import dumps

import scenario_strategies as gen
import strict_json

PROFILE = os.environ.get("PERTLAB_FUZZ_PROFILE", "bounded")
BUDGET = gen.CAMPAIGN if PROFILE == "campaign" else gen.BOUNDED
#: Memory the generated runs may take; larger estimates are refused up front (and counted).
MEMORY_LIMIT = 256 * 2**20
SETTINGS = {
    "bounded": dict(max_examples=150, derandomize=True, database=None),
    "campaign": dict(max_examples=int(os.environ.get("PERTLAB_FUZZ_EXAMPLES", "5000")), database=DirectoryBasedExampleDatabase(".hypothesis/pertlab-fuzz")),
}[PROFILE]
#: The tests that draw the scenarios of the first test again to check one property of them take
#: 40 examples in the bounded profile (in a campaign, as many as the others).
FEWER = {**SETTINGS, "max_examples": min(SETTINGS["max_examples"], 40) if PROFILE == "bounded" else SETTINGS["max_examples"]}
COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much], print_blob=True)
OUTCOMES: Counter[tuple[str, str]] = Counter()

#: Values that break a field: wrong types, out of range, NaN, beyond 2^64.
BAD_VALUES = [None, "", "x", "-1", "nan", "1e400", -1, -1.5, 0, 2**64, 2**70, float("nan"), float("inf"), [], {}, [1, 2], {"x": 1}, True]

#: A field's path: ``links[0].queue.red.top``.
_PATH = r"(?:[A-Za-z_][\w-]*|\[\d+\])(?:\.[A-Za-z_][\w-]*|\[\d+\])*"
#: A line of a field error: ``links[0].queue.red.top: message``, or the fields that refuse a value
#: together: ``dumbbell.pairs, memory_limit: message``.
FIELD_ERROR = re.compile(rf"^{_PATH}(?:, {_PATH})*: \S")


def report_counts() -> None:
    """Print the counts so far, and write them to ``$PERTLAB_FUZZ_COUNTS`` when set."""
    counts: dict[str, dict[str, int]] = {}
    for (kind, outcome), n in sorted(OUTCOMES.items()):
        counts.setdefault(kind, {})[outcome] = n
    print("\ngenerated cases:", json.dumps(counts, indent=1))
    if path := os.environ.get("PERTLAB_FUZZ_COUNTS"):
        with open(path, "w") as f:
            json.dump({"profile": PROFILE, "counts": counts}, f, indent=1)


def field_errors(e: pertlab.ScenarioError) -> list[str]:
    lines = str(e).splitlines()
    assert lines and all(FIELD_ERROR.match(line) for line in lines), lines
    return lines


def finite_everywhere(x: Any, path: str = "") -> None:
    if isinstance(x, float):
        assert math.isfinite(x), f"{path} = {x}"
    elif isinstance(x, dict):
        for k, v in x.items():
            finite_everywhere(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            finite_everywhere(v, f"{path}[{i}]")


def in_unit_interval(value: float, what: str) -> None:
    assert 0.0 <= value <= 1.0, f"{what} = {value}"


def rate_of(value: float | None, population: int, what: str) -> None:
    """A rate: undefined (None) exactly when its population is empty, else in [0, 1]."""
    assert (value is None) == (population == 0), f"{what} = {value} over {population}"
    if value is not None:
        in_unit_interval(value, what)


def check_results(r: pertlab.Results, work: float | None = None) -> None:
    """The invariants of every run; ``work``: the most events it may take (by default
    :func:`work_bound` of its scenario)."""
    summary = r.summary
    assert r.conservation["ok"], r.conservation["violations"]
    finite_everywhere(summary)
    for q in summary["queues"]:
        where = f"queues[{q['link']} {q['from']}->{q['to']}]"
        for m in ("utilization", "avg_queue_norm"):
            in_unit_interval(q[m], f"{where}.{m}")
        for m in ("drop_rate", "mark_rate"):
            rate_of(q[m], q["departures"] + q["drops"], f"{where}.{m}")
        # A mark counts as its packet leaves (`QueueCounters::marks`), a drop at arrival or at
        # departure: a packet marked on arrival before the window and leaving in it is a mark of
        # the window without its arrival (found 2026-12-05: a step queue's first packet).
        assert q["drops"] <= q["arrivals"] + q["departures"] and q["marks"] <= q["departures"], q
        assert q["drops"] == sum(q[f"drops_{cause}"] for cause in ("overflow", "early", "forced", "departure")), q
    delivered = sum(f["goodput_bytes"] for f in summary["flows"])
    for c in summary["controllers"]:
        assert (c["share"] is None) == (delivered == 0), (c["label"], c["share"], delivered)
        if c["share"] is not None:
            in_unit_interval(c["share"], f"controllers[{c['label']}].share")
        rate_of(c["drop_rate"], c["segments_received"] + c["drops"], f"controllers[{c['label']}].drop_rate")
    assert (summary["jain"] is None) == (delivered == 0), (summary["jain"], delivered)
    if summary["jain"] is not None:
        in_unit_interval(summary["jain"], "jain")
    # A flow waits on each timeout that fires from the timer's arming on; those waits never
    # overlap (each ends at a firing, after which the timer is armed anew), so the window's
    # add up to at most the window and the part of one wait (an RTO, at most max_rto) before it.
    window_s = summary["window_end_s"] - summary["window_start_s"]
    flow_specs = r.scenario.to_wire()["flows"]
    for f in r.flows.iter_rows(named=True):
        tcp = flow_specs[f["id"]]["tcp"]
        longest_rto_s = max(tcp["max_rto_ns"], tcp["min_rto_ns"]) / 1e9
        assert (f["rto_wait_s"] > 0) == (f["timeouts"] > 0) and f["rto_wait_s"] <= window_s + longest_rto_s + 1e-9, (f["id"], f["timeouts"], f["rto_wait_s"], window_s)
        # The retransmissions dropped are drops, counted at the same instants.
        assert f["retransmit_drops"] <= f["drops"], (f["id"], f["retransmit_drops"], f["drops"])
        # HyStart acts only where asked (Linux's CUBIC with hystart) and from a window of
        # hystart_low_window (16) up; a window at its exits exactly where it exited.
        cc = flow_specs[f["id"]]["cc"]
        hystart = cc["kind"] == "cubic" and cc.get("hystart", False)
        for how in ("train", "delay"):
            exits, cwnd = f[f"hystart_{how}_exits"], f[f"hystart_{how}_cwnd"]
            assert (exits > 0) == (cwnd is not None) and (hystart or exits == 0) and (cwnd is None or cwnd >= 16), (f["id"], cc, how, exits, cwnd)
    series = r.data.get("queue_series") or {}
    for m in ("utilization", "probability"):
        for i, v in enumerate(series.get(m, [])):
            in_unit_interval(v, f"queue_series.{m}[{i}]")
    # A PERT flow's early-response probability (null for other controllers).
    for i, v in enumerate((r.data.get("flow_series") or {}).get("p_response", [])):
        if v is not None:
            in_unit_interval(v, f"flow_series.p_response[{i}]")
    work = work_bound(r.scenario.to_wire()) if work is None else work
    assert summary["events"] <= work, (summary["events"], work)
    # What `pertlab run` prints of any run: its tables, and its --json as strict JSON.
    print_summary(r, "generated")
    strict_json.loads(dumps(summary))


#: Events one packet or one timer expiry may cause (enqueue, transmission end, arrival,
#: the ACK it triggers, the timers it sets), with room to spare.
EVENTS_PER_UNIT = 16


def _peak(u: dict[str, Any]) -> float:
    """A UDP source's highest rate over its mean: a Pareto gap is at least mean (a - 1) / a; an
    on/off source sends at rate (burst + idle) / burst during a burst; a dithered CBR gap is at
    least half the interval."""
    if u["arrivals"] == "pareto":
        return u["pareto_shape"] / (u["pareto_shape"] - 1)
    if u["arrivals"] == "pareto_onoff":
        return (u["burst_ns"] + u["idle_ns"]) / u["burst_ns"]
    if u["arrivals"] == "cbr_random":
        return 2.0  # its shortest gap is half the interval
    return 1.0


def work_bound(wire: dict[str, Any]) -> float:
    """The most events a run can take: what its links can carry (every direction full of
    the smallest packet any source sends), the packets its UDP sources send, and its timers at
    the rate of their lower bounds (each flow's RTO at its floor, web think times and requests,
    monitor samples), times
    :data:`EVENTS_PER_UNIT`. An event storm (issue 25: 1-ns RTOs took 78 s for 3 s simulated)
    breaks it; the project's rules keep wall-clock limits out of tests, so this bounds the
    work, not the time it takes."""
    seconds = wire["duration_ns"] / 1e9
    sizes = [40]
    for f in wire["flows"]:
        sizes += [f["tcp"]["ack_size"], f["tcp"]["packet_size"]]
    sizes += [100 if u["sizes"] == "mix" else u["packet_size"] for u in wire["udp"]]
    smallest_bits = 8 * max(1, min(sizes))
    if d := wire.get("dumbbell"):
        rates = [d["bottleneck_rate_bps"]] + [d["access_rate_bps"]] * (2 * d["pairs"])
    else:
        rates = [link["rate_bps"] for link in wire["links"]]
    packets = sum(2 * rate * seconds / smallest_bits for rate in rates)
    per_second = lambda ns: 1e9 / max(ns, 1_000)  # noqa: E731  (timers fire at most every microsecond)
    timers = sum(per_second(f["tcp"]["min_rto_ns"]) for f in wire["flows"]) * seconds
    timers += sum(w["sessions"] * (per_second(w["think_time_ns"]) + per_second(w["inter_object_ns"])) for w in wire["web"]) * seconds
    # A UDP source sends at its own rate whatever its link carries (the queue drops the rest).
    # Pareto sources send at up to their peak rate (the core bounds it), with Hua's mix down to 100 B.
    timers += sum(u["rate_bps"] * _peak(u) / (8 * (100 if u["sizes"] == "mix" else max(1, u["packet_size"]))) for u in wire["udp"]) * seconds
    if interval := wire["monitor"].get("sample_interval_ns"):
        timers += (1 + len(wire["flows"])) * per_second(interval) * seconds
    return EVENTS_PER_UNIT * (packets + timers) + 10_000


def run_or_refuse(scenario: pertlab.Scenario, kind: str) -> None:
    try:
        results = pertlab.run(scenario, memory_limit=MEMORY_LIMIT)
    except pertlab.ScenarioError as e:
        note(f"refused: {e}")
        field_errors(e)
        OUTCOMES[(kind, "refused by the core")] += 1
        return
    check_results(results)
    # The queues that cannot act are known from the built network, before the run; the
    # results list them (the key is absent when there is none).
    recorded = results.data.get("queue_warnings", [])
    assert recorded == scenario.queue_warnings(MEMORY_LIMIT), recorded
    # And they are sound: a queue said never to act made no early drop, departure drop or mark.
    queues = {(q["link"], q["from"], q["to"]): q for q in results.data["queues"]}
    for warning in recorded:
        where = re.match(r"(.*) \((.+?) -> (.+?), [\w-]+\): ", warning)
        assert where, warning
        q = queues[where.groups()]
        assert q["drops_early"] == q["drops_forced"] == q["drops_departure"] == q["marks"] == 0, (warning, q)
    OUTCOMES[(kind, "ran" if not results.warnings else "ran, with warnings")] += 1
