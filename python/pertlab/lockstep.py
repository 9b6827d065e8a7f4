"""The warning that identical flows lost in lock-step (docs/validation.md, "End-host timing").

Simulated hosts have no timing noise: identical TCP flows (same controller, same TCP
options, same path) through a drop-tail bottleneck then see every congestion event
together and halve at once, run after run. Real hosts desynchronise them (scheduling,
interrupt coalescing, TSQ): in the namespace testbed ten kernel Reno flows on 5 Mbit/s
each retransmitted a different number of times, while the simulator's ten identical flows
each had the same number of loss responses, one drop each time, and the kernel dropped
more packets (the measured table: docs/validation.md, "End-host timing"). ns-2 users add
``overhead_`` (here ``tcp.overhead``), which breaks the lock-step.

We warn rather than add a default jitter: the jitter that reproduces the kernel's drops
scales with the bottleneck's packet time (one to two packet times in the testbed
comparisons), so no one default fits, and a default would change every run.

The warning is a statement of fact about the run: a group of at least
:data:`MIN_FLOWS` flows of one label, controller, TCP options and path, with no
``overhead``, each with the same number (at least :data:`MIN_EVENTS`) of loss
responses (fast recoveries + timeouts) in the measurement window.
"""

from __future__ import annotations

from typing import Any

from .scenario import Scenario

__all__ = ["lockstep_warnings", "MIN_FLOWS", "MIN_EVENTS"]

#: Flows in a group before equal loss counts say anything.
MIN_FLOWS = 2
#: Loss responses per flow before equal counts say more than chance: two independent flows
#: with 20 events each have equal counts with probability about 1/sqrt(4 pi 20) = 6 %.
MIN_EVENTS = 20


def _access(scenario: Scenario, node: str) -> tuple[str, int]:
    """The access link of a dumbbell node: ``s3`` is the third sender's (``sender_access_delay``),
    ``d3`` the third receiver's; the routers have none."""
    d = scenario.dumbbell
    assert d is not None
    delays = {"s": d.sender_access_delay, "d": d.receiver_access_delay}.get(node[:1])
    if delays is None or not node[1:].isdigit():
        return (node, 0)
    k = int(node[1:])
    return (node[:1], delays[0] if len(delays) == 1 else delays[k])


def _path(scenario: Scenario, i: int) -> tuple[tuple[str, int], tuple[str, int]]:
    """Flow ``i``'s path as its two access links (the bottleneck is common to all): by its
    nodes, since any number of flows may share a pair (found by generated scenarios: seven
    flows on pair 0 of a four-pair dumbbell)."""
    flow = scenario.flows[i]
    return (_access(scenario, flow.src), _access(scenario, flow.dst))


def lockstep_warnings(data: dict[str, Any], scenario: Scenario | None) -> list[str]:
    """Warnings for the groups of identical, jitter-free flows of a dumbbell run whose loss
    responses were equal in number (none for other topologies or without the scenario)."""
    if scenario is None or scenario.dumbbell is None or len(scenario.flows) > len(data["flows"]):
        return []
    groups: dict[Any, list[int]] = {}
    for i, (spec, flow) in enumerate(zip(scenario.flows, data["flows"])):
        if spec.tcp.overhead == 0:
            key = (flow["label"], spec.cc.model_dump_json(), spec.tcp.model_dump_json(), _path(scenario, i))
            groups.setdefault(key, []).append(flow["fast_recoveries"] + flow["timeouts"])
    out = []
    for (label, *_), events in groups.items():
        if len(events) >= MIN_FLOWS and min(events) >= MIN_EVENTS and max(events) == min(events):
            out.append(
                f"the {len(events)} identical {label} flows each responded to loss exactly {events[0]} times: they lost in "
                "lock-step, which real hosts' timing noise breaks up (docs/validation.md, 'End-host timing'); "
                "tcp.overhead (ns-2's overhead_, e.g. one packet time at the bottleneck) adds that noise"
            )
    return out
