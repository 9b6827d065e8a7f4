"""The scenarios of ``pertlab validate ns3``: each written once, as :func:`pertlab.dumbbell`
arguments, and translated to ns-3 (:mod:`.translate`).

Every case pins the TCP options ns-3 can express (:data:`COMMON_TCP`); the rest are the
builder's defaults (docs/cli.md). ``explained`` lists the metrics on which the two tools
legitimately differ, each with the direction of the difference and the section of
docs/validation.md that says why; the suite then asserts that difference instead of the
agreement (so a change that removes or flips it is caught).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..builders import dumbbell
from ..scenario import Scenario

__all__ = ["Case", "Explained", "explained", "QUICK", "FULL", "COMMON_TCP", "QUICK_DURATION", "quick", "select", "seeds"]

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


#: The simulated time of a case in the quick matrix, unless the case says otherwise.
QUICK_DURATION = "40s"


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    args: tuple[tuple[str, Any], ...]
    explained: tuple[Explained, ...] = field(default=())
    #: An ns-3 controller other than the counterpart of pertlab's (``translate.NS3_CC``).
    ns3_tcp: str | None = None
    #: Run seeds 1..``seeds`` in each tool and compare the means of the metrics: for a case whose
    #: outcome one seed does not measure (docs/validation.md, "Vegas").
    seeds: int = 1
    #: The simulated time in the quick matrix: long enough for the explained differences to show.
    quick_duration: str = QUICK_DURATION

    def scenario(self, seed: int | None = None) -> Scenario:
        """The pertlab scenario (the source of both runs), with ``seed`` if given. A ``loss``
        argument is the bottleneck's Bernoulli loss probability, and ``cc_params`` the
        controller's parameters, which the builder does not take."""
        kw = dict(self.args)
        loss = kw.pop("loss", 0.0)
        cc_params = dict(kw.pop("cc_params", ()))
        kw["tcp"] = {**COMMON_TCP, **dict(kw.get("tcp", ()))}
        if seed is not None:
            kw["seed"] = seed
        s = dumbbell(**kw)
        if cc_params:
            s = s.model_copy(update={"flows": [f.model_copy(update={"cc": f.cc.model_copy(update=cc_params)}) for f in s.flows]})
        return s.model_copy(update={"dumbbell": s.dumbbell.model_copy(update={"bottleneck_loss": loss})}) if loss else s


def seeds(c: Case) -> tuple[int, ...]:
    """The seeds a case runs: 1..``c.seeds``."""
    return tuple(range(1, c.seeds + 1))


def case(
    name: str, what: str, explained: tuple[Explained, ...] = (), ns3_tcp: str | None = None, *, seeds: int = 1,
    quick_duration: str = QUICK_DURATION, **kw: Any,
) -> Case:  # fmt: skip
    for key in ("tcp", "cc_params"):
        if isinstance(kw.get(key), dict):
            kw[key] = tuple(sorted(kw[key].items()))
    return Case(name, what, tuple(sorted(kw.items())), explained, ns3_tcp, seeds, quick_duration)


#: The network of issue 19's PIE report: 10 Mbit/s, 80 ms, 30 SACK flows, a BDP buffer.
BASE = {"bw": "10Mbps", "rtt": "80ms", "flows": 30, "cc": "sack", "duration": "100s"}
#: Fewer flows for the controllers, so that windows are tens of segments.
CC_BASE = {"bw": "10Mbps", "rtt": "80ms", "flows": 10, "queue": "droptail", "duration": "100s"}

#: ns-3's TcpNewReno halves from the bytes in flight and grows one MSS^2/cwnd per ACK: at the
#: PIE network's 3-segment windows it needs fewer drops than Linux Reno (pertlab's reno).
NEWRENO = "tcp-newreno"
#: ns-3 without SACK: its timer, not restarted by a fast retransmit, ends recoveries in timeouts
#: followed by go-back-N; the rest is its RFC 6675 scoreboard fed guessed SACKs (AddRenoSack).
RENO_SACK = "ns3-reno-sack-emulation"
#: ns-3's TcpIllinois adds alpha x ACKed segments to an integer counter: alpha < 1 adds nothing.
ILLINOIS = "ns3-illinois-integer-alpha"
#: ns-3 grows the window, on the ACK that ends fast recovery, by every segment that ACK covers
#: (SACKed ones included): up to two segments per loss event more than Linux (pertlab).
RECOVERY_EXIT = "ns3-recovery-exit-credit"
#: ns-3's RED computes the gentle segment once from the initial max_p: once ARED has raised max_p,
#: the probability falls at max_th and the average settles just above it.
ARED_GENTLE = "ns3-ared-gentle-slope"
#: ns-3 does not restart the retransmission timer when it retransmits SND.UNA (Linux, ns-2 and
#: pertlab do): the timer set by the last advancing ACK often expires before the retransmission's ACK.
RTO_RESTART = "ns3-rto-not-restarted"

#: A link far above what 30 flows get at a few % loss: only TCP's loss response sets the rate.
LOSS_BASE = {"bw": "100Mbps", "rtt": "95ms", "flows": 30, "cc": "sack", "queue": "droptail", "duration": "100s"}

FULL: tuple[Case, ...] = (
    # Disciplines, with and without ECN, on the PIE report's network.
    case("droptail", "DropTail", **BASE, queue="droptail"),
    case("red", "RED (gentle)", explained(RTO_RESTART, utilization="lower"), **BASE, queue="red", quick_duration="60s"),
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
    # Run whole in the quick matrix too: in a shorter window pertlab's flows are still uneven from
    # their start-up recoveries, NewReno's one hole per round trip, which ns-3's timer cuts short
    # (docs/validation.md, "NewReno without SACK").
    case(
        "newreno", "NewReno (no SACK)", explained(RENO_SACK, drop_rate="lower", utilization="higher"), **CC_BASE, cc="newreno",
        quick_duration="100s",
    ),  # fmt: skip
    case("sack-10", "SACK, 10 flows", explained(RECOVERY_EXIT, jain="higher", goodput_cov="lower"), **CC_BASE, cc="sack"),
    case("cubic", "CUBIC", **CC_BASE, cc="cubic"),
    # One seed's Vegas run is not a measurement of Vegas: each flow's base RTT is the queue it met
    # at its start; so the means of 6 seeds. ns-3's TcpVegas grows every RTT in slow start, as Linux.
    case("vegas", "Vegas, Linux's slow start, mean of seeds 1-6", **CC_BASE, cc="vegas", cc_params={"slow_start_every_other_rtt": False}, seeds=6),
    case("vegas-ns2-slow-start", "Vegas, slow start every other RTT (pertlab's default)", **CC_BASE, cc="vegas"),
    case("hstcp", "HighSpeed TCP", **CC_BASE, cc="hstcp"),
    case(
        "illinois", "Illinois",
        explained(ILLINOIS, avg_queue_pkts="lower", drop_rate="higher", jain="higher", goodput_cov="lower"),
        **CC_BASE, cc="illinois", quick_duration="100s",
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
        bw="10Mbps", rtt="10ms", flows=5, cc="sack", queue="droptail", duration="60s", quick_duration="60s",
    ),  # fmt: skip
    case(
        "rtt-200ms", "200 ms RTT, 5 flows", explained(RTO_RESTART, utilization="higher"),
        bw="10Mbps", rtt="200ms", flows=5, cc="sack", queue="droptail", duration="200s", quick_duration="200s",
    ),  # fmt: skip
    # Delayed ACKs.
    case("delack", "DropTail, delayed ACKs", **CC_BASE, cc="sack", tcp={"delayed_ack": True}),
    case("delack-pie", "PIE, delayed ACKs", **BASE, queue="pie", tcp={"delayed_ack": True}),
    # TCP alone: the response to random loss, on a link that never saturates (30 flows, 95 ms,
    # the PIE case's RTT with its 15 ms target delay).
    case("loss-3pct", "Bernoulli loss 3 %, 30 flows, 100 Mbit/s", explained(RECOVERY_EXIT, utilization="lower"), **LOSS_BASE, loss=0.03),
    case("loss-8pct", "Bernoulli loss 8 %, 30 flows, 100 Mbit/s", explained(RECOVERY_EXIT, utilization="lower"), **LOSS_BASE, loss=0.08),
)

def quick(c: Case) -> Case:
    """``c`` shortened to its quick duration (:data:`QUICK_DURATION` unless it says otherwise)."""
    return replace(c, args=tuple(sorted({**dict(c.args), "duration": c.quick_duration}.items())))


#: The cases of the test suite: agreement (DropTail, PIE, delayed ACKs, CUBIC), "not in ns-3"
#: (PERT), and an explained difference of each section of docs/validation.md whose run is cheap
#: for ns-3 (a few CPU seconds; not 100mbps and loss-3pct, whose explanation loss-8pct and
#: sack-10 hold): ns-3's TcpNewReno, its SACK emulation, Illinois's integer increase, the
#: recovery-exit credit, the retransmission timer. ARED's gentle slope runs with --case ared-ecn.
QUICK: tuple[Case, ...] = tuple(
    quick(c)
    for c in FULL
    if c.name in (
        "droptail", "pie", "pie-ns3-newreno", "pie-ecn-ns3-newreno", "delack", "cubic", "pert", "newreno", "sack-10", "red",
        "illinois", "rtt-10ms", "rtt-200ms", "loss-8pct",
    )
)  # fmt: skip


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
