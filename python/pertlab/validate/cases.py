"""The scenarios of ``pertlab validate ns3``: each written once, as :func:`pertlab.dumbbell`
arguments, and translated to ns-3 (:mod:`.translate`).

Every case pins the TCP options ns-3 can express (:data:`COMMON_TCP`); the rest are the
builder's defaults (docs/cli.md). ``explained`` lists the metrics on which the two tools
legitimately differ, each with the direction of the difference and the section of
docs/validation.md that says why; the suite then asserts that difference instead of the
agreement (so a change that removes or flips it is caught).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..builders import dumbbell
from ..scenario import Scenario

__all__ = ["Case", "Explained", "explained", "QUICK", "FULL", "COMMON_TCP", "QUICK_DURATION", "quick", "select"]

#: ns-3 bounds the whole RTO by MinRto (RFC 6298 2.4); pertlab's default bounds SRTT's margin (Linux).
COMMON_TCP: dict[str, Any] = {"rto_min_on": "rto"}


@dataclass(frozen=True)
class Explained:
    """pertlab's value lies above (``higher``) or below (``lower``) ns-3's beyond the tolerance,
    for the reason in docs/validation.md, section ``anchor``."""

    metric: str
    direction: Literal["higher", "lower"]
    anchor: str


def explained(anchor: str, **directions: Literal["higher", "lower"]) -> tuple[Explained, ...]:
    """The differences of one section of docs/validation.md: ``metric="higher"`` or ``"lower"``, in order."""
    return tuple(Explained(metric, direction, anchor) for metric, direction in directions.items())


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    args: tuple[tuple[str, Any], ...]
    explained: tuple[Explained, ...] = field(default=())
    #: An ns-3 controller other than the counterpart of pertlab's (``translate.NS3_CC``).
    ns3_tcp: str | None = None

    def scenario(self) -> Scenario:
        """The pertlab scenario (the source of both runs). A ``loss`` argument is the
        bottleneck's Bernoulli loss probability, which the builder does not take."""
        kw = dict(self.args)
        loss = kw.pop("loss", 0.0)
        kw["tcp"] = {**COMMON_TCP, **dict(kw.get("tcp", ()))}
        s = dumbbell(**kw)
        return s.model_copy(update={"dumbbell": s.dumbbell.model_copy(update={"bottleneck_loss": loss})}) if loss else s


def case(name: str, what: str, explained: tuple[Explained, ...] = (), ns3_tcp: str | None = None, **kw: Any) -> Case:
    if isinstance(kw.get("tcp"), dict):
        kw["tcp"] = tuple(sorted(kw["tcp"].items()))
    return Case(name, what, tuple(sorted(kw.items())), explained, ns3_tcp)


#: The network of issue 19's PIE report: 10 Mbit/s, 80 ms, 30 SACK flows, a BDP buffer.
BASE = {"bw": "10Mbps", "rtt": "80ms", "flows": 30, "cc": "sack", "duration": "100s"}
#: Fewer flows for the controllers, so that windows are tens of segments.
CC_BASE = {"bw": "10Mbps", "rtt": "80ms", "flows": 10, "queue": "droptail", "duration": "100s"}

#: ns-3's TcpNewReno halves from the bytes in flight and grows one MSS^2/cwnd per ACK: at the
#: PIE network's 3-segment windows it needs fewer drops than Linux Reno (pertlab's reno).
NEWRENO = "tcp-newreno"
#: ns-3 without SACK feeds its RFC 6675 scoreboard guessed SACKs (TcpTxBuffer::AddRenoSack).
RENO_SACK = "ns3-reno-sack-emulation"
#: ns-3's TcpIllinois adds alpha x ACKed segments to an integer counter: alpha < 1 adds nothing.
ILLINOIS = "ns3-illinois-integer-alpha"
#: ns-3 grows the window, on the ACK that ends fast recovery, by every segment that ACK covers
#: (SACKed ones included): up to two segments per loss event more than Linux (pertlab).
RECOVERY_EXIT = "ns3-recovery-exit-credit"
#: ns-3's RED computes the gentle segment once from the initial max_p: once ARED has raised max_p,
#: the probability falls at max_th and the average settles just above it.
ARED_GENTLE = "ns3-ared-gentle-slope"

#: A link far above what 30 flows get at a few % loss: only TCP's loss response sets the rate.
LOSS_BASE = {"bw": "100Mbps", "rtt": "95ms", "flows": 30, "cc": "sack", "queue": "droptail", "duration": "100s"}

FULL: tuple[Case, ...] = (
    # Disciplines, with and without ECN, on the PIE report's network.
    case("droptail", "DropTail", **BASE, queue="droptail"),
    case("red", "RED (gentle)", **BASE, queue="red"),
    case("red-ecn", "RED (gentle), ECN", **BASE, queue="red", ecn=True),
    case("ared", "Adaptive RED", **BASE, queue="ared"),
    case("ared-ecn", "Adaptive RED, ECN", explained(ARED_GENTLE, avg_queue_pkts="lower"), **BASE, queue="ared", ecn=True),
    case("codel", "CoDel", **BASE, queue="codel"),
    case("codel-ecn", "CoDel, ECN", **BASE, queue="codel", ecn=True),
    case("pie", "PIE", **BASE, queue="pie"),
    case("pie-ecn", "PIE, ECN", **BASE, queue="pie", ecn=True),
    # Issue 19's report: the same PIE network against ns-3's TcpNewReno, which is not pertlab's Reno.
    case("pie-ns3-newreno", "PIE against ns-3's TcpNewReno", explained(NEWRENO, drop_rate="higher"), "ns3::TcpNewReno", **BASE, queue="pie"),
    case(
        "pie-ecn-ns3-newreno", "PIE, ECN, against ns-3's TcpNewReno",
        explained(NEWRENO, drop_rate="higher", mark_rate="lower"), "ns3::TcpNewReno", **BASE, queue="pie", ecn=True,
    ),  # fmt: skip
    # Senders.
    case(
        "newreno", "NewReno (no SACK)",
        explained(RENO_SACK, drop_rate="lower", utilization="higher", jain="lower", goodput_cov="higher"),
        **CC_BASE, cc="newreno",
    ),  # fmt: skip
    case("sack-10", "SACK, 10 flows", explained(RECOVERY_EXIT, jain="higher", goodput_cov="lower"), **CC_BASE, cc="sack"),
    case("cubic", "CUBIC", **CC_BASE, cc="cubic"),
    case("vegas", "Vegas", **CC_BASE, cc="vegas"),
    case("hstcp", "HighSpeed TCP", **CC_BASE, cc="hstcp"),
    case(
        "illinois", "Illinois",
        explained(ILLINOIS, avg_queue_pkts="lower", drop_rate="higher", jain="higher", goodput_cov="lower"),
        **CC_BASE, cc="illinois",
    ),  # fmt: skip
    case("pert", "PERT", **CC_BASE, cc="pert"),
    case("compound", "Compound TCP", **CC_BASE, cc="compound"),
    # Flow counts, rates, RTTs.
    case("one-flow", "1 flow", **{**CC_BASE, "flows": 1}, cc="sack"),
    case("100-flows", "100 flows", **{**BASE, "flows": 100}, queue="droptail"),
    case(
        "100mbps", "100 Mbit/s, 20 ms, 10 flows", explained(RECOVERY_EXIT, avg_queue_pkts="lower", utilization="lower"),
        bw="100Mbps", rtt="20ms", flows=10, cc="sack", queue="red", duration="40s",
    ),  # fmt: skip
    case("1gbps", "1 Gbit/s, 10 ms, 50 CUBIC flows, 3 s", bw="1Gbps", rtt="10ms", flows=50, cc="cubic", queue="droptail", duration="3s"),
    case(
        "rtt-10ms", "10 ms RTT, 5 flows", explained(RECOVERY_EXIT, drop_rate="lower"),
        bw="10Mbps", rtt="10ms", flows=5, cc="sack", queue="droptail", duration="60s",
    ),  # fmt: skip
    case("rtt-200ms", "200 ms RTT, 5 flows", bw="10Mbps", rtt="200ms", flows=5, cc="sack", queue="droptail", duration="200s"),
    # Delayed ACKs.
    case("delack", "DropTail, delayed ACKs", **CC_BASE, cc="sack", tcp={"delayed_ack": True}),
    case("delack-pie", "PIE, delayed ACKs", **BASE, queue="pie", tcp={"delayed_ack": True}),
    # TCP alone: the response to random loss, on a link that never saturates (30 flows, 95 ms,
    # the PIE case's RTT with its 15 ms target delay).
    case("loss-3pct", "Bernoulli loss 3 %, 30 flows, 100 Mbit/s", explained(RECOVERY_EXIT, utilization="lower"), **LOSS_BASE, loss=0.03),
    case("loss-8pct", "Bernoulli loss 8 %, 30 flows, 100 Mbit/s", explained(RECOVERY_EXIT, utilization="lower"), **LOSS_BASE, loss=0.08),
)

#: The simulated time of a case in the quick matrix.
QUICK_DURATION = "40s"


def quick(c: Case) -> Case:
    """``c`` shortened to :data:`QUICK_DURATION`."""
    return case(c.name, c.what, c.explained, c.ns3_tcp, **{**dict(c.args), "duration": QUICK_DURATION})


#: A handful of short scenarios for the test suite.
QUICK: tuple[Case, ...] = tuple(quick(c) for c in FULL if c.name in ("droptail", "pie", "pie-ns3-newreno", "delack", "cubic", "pert"))


def select(names: list[str], short: bool) -> tuple[Case, ...]:
    """The cases to run: all of the quick (``short``) or full matrix when ``names`` is empty, else
    the named cases of the full matrix, in its order, shortened when ``short``; an unknown name
    raises ValueError naming the cases."""
    if not names:
        return QUICK if short else FULL
    unknown = sorted(set(names) - {c.name for c in FULL})
    if unknown:
        raise ValueError(f"unknown case {', '.join(map(repr, unknown))}; the cases are {', '.join(c.name for c in FULL)}")
    return tuple(quick(c) if short else c for c in FULL if c.name in names)
