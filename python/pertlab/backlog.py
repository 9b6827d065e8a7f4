"""The warning that delay-based flows aim to keep more packets queued than the bottleneck holds.

FAST (Jin, Wei, Low 2004) and Vegas (Brakmo, Peterson 1995) hold each flow's backlog, the
packets it keeps queued in the network, at a target: FAST at ``alpha`` (200 packets in the
papers' gigabit experiments, our default), Vegas between ``alpha`` and ``beta`` (it grows
while fewer than ``alpha`` are queued). At equilibrium the flows through a bottleneck queue
the sum of their targets there. When that sum is more than the bottleneck's buffer, the
equilibrium does not exist: the flows keep filling the queue, whose overflow (or AQM) drops or
marks their packets again and again, and each time they answer as Reno does (halving). ``pertlab dumbbell --cc fast --bw 10Mbps --flows 5``
asks for 1000 packets in a 50-packet buffer and drops more than a tenth of its packets
(``tests/python/test_backlog.py``).

We warn rather than refuse: the overflow is what such a run measures (and a comparison may
want it), and the targets are the papers' own. The warning is a statement about the
scenario, checked in the dumbbell only, where each direction's flows share one bottleneck
and, when the access links are not slower than it, queue nowhere else at equilibrium (in
other topologies a flow's backlog may spread over several queues). The run's drop rate of
the flows named, and their ECN reductions, are given beside it.
"""

from __future__ import annotations

from typing import Any

from .kinds import CLASS_KINDS
from .scenario import Scenario
from .scenario.queues import DEFAULT_LIMIT_PKTS
from .scenario.topology import DUMBBELL_DIRECTIONS

__all__ = ["backlog_warnings", "BACKLOG_KINDS"]

#: The controllers whose equilibrium is a backlog, and the parameter that sets its least value.
BACKLOG_KINDS = {"fast": "alpha", "vegas": "alpha"}


def backlog_warnings(data: dict[str, Any], scenario: Scenario | None) -> list[str]:
    """One warning per direction of a dumbbell whose FAST and Vegas flows' backlog targets,
    summed, exceed the bottleneck's buffer in that direction (none for other topologies, a
    multi-class bottleneck, slower access links, or without the scenario). Video streams,
    which send what their application writes, do not count."""
    d = None if scenario is None else scenario.dumbbell
    if d is None or d.access_rate < d.bottleneck_rate:
        return []
    assert scenario is not None
    reverse = d.bottleneck_queue_reverse or d.bottleneck_queue.model_copy(update={"kind": "droptail"})
    out = []
    for sender, queue in (("s", d.bottleneck_queue), ("d", reverse)):
        direction = " -> ".join(DUMBBELL_DIRECTIONS[sender])
        # Greedy flows only: a video stream sends what its application writes, not a window.
        members = [(i, f) for i, f in enumerate(scenario.flows) if f.src.startswith(sender) and f.cc.kind in BACKLOG_KINDS and f.video is None]
        if not members or queue.kind in CLASS_KINDS:
            continue
        # The targets, in the buffer's unit: packets, or bytes of each flow's packets.
        wanted = sum(getattr(f.cc, BACKLOG_KINDS[f.cc.kind]) * (f.tcp.packet_size if queue.limit_bytes is not None else 1) for _, f in members)
        held, unit = (queue.limit_bytes, "bytes") if queue.limit_bytes is not None else (queue.limit_pkts or DEFAULT_LIMIT_PKTS, "packets")
        if wanted <= held:
            continue
        kinds = sorted({f.cc.kind for _, f in members})
        params = ", ".join(f"{k}.{BACKLOG_KINDS[k]}" for k in kinds)
        out.append(
            f"bottleneck ({direction}): {_its(len(members), ' and '.join(kinds))} to keep {wanted:g} {unit} queued "
            f"({params} each), more than its buffer holds ({held:g} {unit}): their equilibrium does not exist, so they keep "
            f"filling the queue and live on its drops (or ECN marks), answered as Reno answers them{_signals(data, [i for i, _ in members])}; "
            f"lower {params} or enlarge the buffer"
        )
    return out


def _its(n: int, kinds: str) -> str:
    return f"its {kinds} flow aims" if n == 1 else f"its {n} {kinds} flows aim"


def _signals(data: dict[str, Any], flows: list[int]) -> str:
    """The run's drop rate of ``flows`` together, as a flow's is defined (drops over data packets
    received plus drops, docs/model.md "Metrics"), and their ECN reductions if any, when the
    results have them."""
    rows = data.get("flows") or []
    if not rows or max(flows) >= len(rows):
        return ""
    drops = sum(rows[i]["drops"] for i in flows)
    decided = drops + sum(rows[i]["segments_received"] for i in flows)
    ecn = sum(rows[i]["ecn_reductions"] for i in flows)
    said = [f"drop rate {drops / decided:.3g}"] if decided else []
    said += [f"{ecn} ECN reductions"] if ecn else []
    return f" (in this run: {', '.join(said)})" if said else ""
