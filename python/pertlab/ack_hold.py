"""The warning that delay-based flows read their receivers' ACK hold as queueing delay.

A receiver that holds segments before it acknowledges them (``ack_policy`` "delayed", RFC 5681,
or "adaptive", Qian 2011 Chapter IV) echoes, under RFC 7323's rule (``tcp.ts_echo`` "earliest",
our default), the timestamp of the first segment it held. Each RTT sample of such an ACK then
includes the hold, up to the delayed-ACK timeout (100 ms by default). Controllers whose signal
is the queueing delay they read from RTT samples take the hold for queueing: five PERT flows on
10 Mbit/s, 60 ms, with delayed ACKs, leave part of the link idle that they fill with ns-2's
echo (``tests/python/test_ack_hold.py`` asserts by how much; docs/model.md, "Timestamp echo",
has the mechanism and ``tests/delayed_ack_echo.rs`` the core's test). Real stacks do not feed them that sample:
Linux hands a congestion control the last acknowledged segment's RTT (``ca_rtt_us``), and
ns-2's sinks echo the newest timestamp (``tcp.ts_echo`` "latest").

We warn rather than change the default: RFC 7323's echo is what the RTO estimator of a real
stack sees, and a new default would change every committed run with delayed ACKs. The warning
is a statement about the scenario (controller, receiver, echo), with the run's evidence beside
it: how far the flows' RTT samples lay above their propagation delay, and in a dumbbell how
much of that the bottleneck's queue explains.
"""

from __future__ import annotations

from typing import Any

from .scenario import FlowSpec, Scenario
from .scenario.topology import DUMBBELL_DIRECTIONS

__all__ = ["ack_hold_warnings", "DELAY_KINDS", "HOLDING_POLICIES"]

#: A flow's description and its row of the results.
Member = tuple[FlowSpec, dict[str, Any]]

#: The controllers whose congestion signal is the queueing delay read from RTT samples: every
#: PERT variant (srtt - P, SIGCOMM 2007 Section 3; Kotla 2008), Vegas and FAST (the backlog
#: from RTT - baseRTT; Brakmo and Peterson 1995, Jin, Wei and Low 2004), Illinois (alpha and
#: beta from the average queueing delay; Liu, Basar and Srikant 2006) and Compound (its delay
#: window; Tan et al. 2006).
DELAY_KINDS = ("pert", "pert-pi", "pert-adaptive", "vegas", "fast", "illinois", "compound")

#: The receivers' ACK policies that hold a segment before acknowledging it.
HOLDING_POLICIES = ("delayed", "adaptive", "linux")


def ack_hold_warnings(data: dict[str, Any], scenario: Scenario | None) -> list[str]:
    """One warning per label whose flows run a controller of :data:`DELAY_KINDS` behind
    receivers of :data:`HOLDING_POLICIES` with RFC 7323's echo (``tcp.ts_echo`` "earliest") as
    their samples (``tcp.rtt_samples`` "echo"), with the mean of their RTT samples' excess over their propagation delay (none without
    the scenario)."""
    if scenario is None or len(scenario.flows) > len(data["flows"]):
        return []
    groups: dict[str, list[Member]] = {}
    for spec, flow in zip(scenario.flows, data["flows"]):
        echoed = spec.tcp.rtt_samples == "echo" and spec.tcp.ts_echo == "earliest"
        if spec.cc.kind in DELAY_KINDS and flow["ack_policy"] in HOLDING_POLICIES and echoed:
            groups.setdefault(flow["label"], []).append((spec, flow))
    return [_warning(label, members, data, scenario) for label, members in groups.items()]


def _warning(label: str, members: list[Member], data: dict[str, Any], scenario: Scenario) -> str:
    kinds = " and ".join(sorted({spec.cc.kind for spec, _ in members}))
    policies = " or ".join(sorted({f["ack_policy"] for _, f in members}))
    sampled = [f for _, f in members if f.get("rtt_samples") and f.get("rtt_mean_ms") is not None]
    if sampled:
        excess = sum(f["rtt_mean_ms"] - f["base_rtt_ms"] for f in sampled) / len(sampled)
        evidence = f"the samples averaged {excess:.1f} ms above the propagation delay"
        queue_ms = _queue_delay_ms(members, data, scenario)
        if queue_ms is not None:
            evidence += f", of which the bottleneck's queue explains {queue_ms:.1f} ms (its mean delay)"
    else:
        evidence = "no RTT sample was taken in the window"
    n = len(members)
    return (
        f"the {n} {kinds} flow{'s' if n > 1 else ''} '{label}' take{'' if n > 1 else 's'} queueing delay from RTT samples, and "
        f"{'their receivers hold' if n > 1 else 'its receiver holds'} segments (ack_policy {policies}) and echo{'' if n > 1 else 'es'} "
        "the first one held (tcp.ts_echo = earliest, RFC 7323), so each sample includes the hold, up to the receiver's ACK "
        f"timeout: {evidence}. Linux gives a congestion control the last acknowledged segment's RTT (tcp.rtt_samples = linux, --rtt-samples linux), "
        "and ns-2's sinks echo the newest timestamp: tcp.ts_echo = latest (--ts-echo latest) does the same, though a "
        "segment acknowledged alone still carries its wait (docs/model.md, 'Timestamp echo')"
    )


def _queue_delay_ms(members: list[Member], data: dict[str, Any], scenario: Scenario) -> float | None:
    """The time-average delay of the dumbbell's bottleneck queue that the flows' data cross
    (:data:`~pertlab.scenario.topology.DUMBBELL_DIRECTIONS`), or None when they cross both or
    the topology is not a dumbbell."""
    sides = {spec.src[:1] for spec, _ in members}
    if scenario.dumbbell is None or len(sides) != 1 or not sides <= DUMBBELL_DIRECTIONS.keys():
        return None
    src, dst = DUMBBELL_DIRECTIONS[sides.pop()]
    for q in data.get("queues", []):
        if q.get("from") == src and q.get("to") == dst and q.get("rate_bps") and q.get("avg_queue_bytes") is not None:
            return q["avg_queue_bytes"] * 8 / q["rate_bps"] * 1e3
    return None
