"""The TCP evaluation suite's dumbbell (Wang, Xia and Harrison's ns-2 scripts, 2007) as Tahiliani's
2013 thesis used it in Section 4.4.2 (Figs. 4.10 to 4.15; shared/spec/aqm-xecn-surathkal-tahiliani.md
2.2, "S4-B"): long-lived FTP flows of the controller under test in both directions, two-way voice,
streaming in both directions and short web transfers over one bottleneck.

What is modelled, each a named constant below with its source:

- **Links** (suite defaults): the bottleneck's one-way delay is 0.4 RTTp and each edge link's
  0.05 RTTp, so a packet's round trip is RTTp; edge links run at twice the bottleneck rate.
- **Buffer**: one bandwidth-delay product in 1000-byte packets, at least 2 packets per FTP flow.
- **Queue**, in both directions of the bottleneck: the suite's "RED" is adaptive, gentle RED that marks ECN-capable packets
  (``adaptive_ 1``, ``gentle_ 1``, ``setbit_ 1``, ``targetdelay_ 5 ms``, ``bottom_ 0.001``,
  ``q_weight_ 0.001``); XCP flows run over XCP routers instead (the thesis: "XCP uses XCP
  routers"). ECN is on for every TCP controller but CUBIC, as in the suite; Surathkal reads XECN.
- **Forward traffic**: 5 FTP flows, 5 voice sources (G.711, 64 kbit/s of 200-byte packets, each
  two-way, so 5 more in reverse), 5 streaming sources (640 kbit/s, 840-byte packets) and web
  sessions. **Reverse traffic**: 5 FTP flows and 5 streaming sources, to congest the ACK path.
- **Sources** are ns-2 CBR with ``random_ 1`` (the UDP arrival kind ``cbr_random``); every FTP,
  voice, streaming and web source starts at a uniform time in [1, 300] ms (UDP starts are drawn
  here from the seed, TCP and web starts by the core from the same seed).

Left out: PackMime-HTTP. The suite's web load (15 new connections a second) is approximated by ns-2
WebTraf sessions whose one-object pages follow each other after a mean 1 s think time, one
session per connection a second (:data:`WEB_SESSIONS`); objects keep WebTraf's Pareto sizes
(mean 10 segments, shape 1.2). PackMime's request and response size distributions are heavier
tailed; docs/reproductions.md says what this changes. The suite's on/off voice variant is not used.
"""

from __future__ import annotations

import random
from typing import Any

from .arguments import check_kinds
from .builders import ARGUMENT_KINDS, _positive, dumbbell
from .kinds import CC_NAMES
from .scenario import U32_MAX, Scenario, ScenarioError
from .units import parse_rate, parse_time

#: FTP flows each way, voice sources each way, streaming sources each way (spec 2.2, S4-B).
FTP_FLOWS = 5
VOICE_SOURCES = 5
STREAMING_SOURCES = 5
#: G.711 voice: 64 kbit/s of 200-byte packets (160 B payload + 20 IP + 8 UDP + 12 RTP).
VOICE_RATE_BPS = 64_000
VOICE_PACKET_BYTES = 200
#: Live streaming: 640 kbit/s of 840-byte packets.
STREAMING_RATE_BPS = 640_000
STREAMING_PACKET_BYTES = 840
#: TCP packets: 1000-byte payloads (the suite's ``packetSize_``, as in the thesis's Section 4.4.1),
#: 1040 bytes on the wire; the buffer rule counts 1000-byte packets, as the suite does.
PACKET_BYTES = 1000
WIRE_BYTES = PACKET_BYTES + 40
#: Start times of every source: uniform in [1, 300] ms (suite default).
START_WINDOW_NS = (1_000_000, 300_000_000)
#: The bottleneck's one-way delay and each edge link's, as fractions of RTTp (suite default).
BOTTLENECK_DELAY_FRACTION = 0.4
EDGE_DELAY_FRACTION = 0.05
#: Edge links run at this multiple of the bottleneck rate (suite default).
EDGE_RATE_FACTOR = 2
#: Least buffer, packets per FTP flow (suite default: 2 x the number of FTP flows).
MIN_BUFFER_PER_FTP = 2
#: The suite's adaptive gentle ECN RED (``red.tcl`` of the suite; ``bottom_``, ``q_weight_``).
SUITE_RED: dict[str, Any] = {"target_delay": "5ms", "bottom": 0.001, "q_w": 0.001, "gentle": True, "use_ecn": True}
#: Web sessions: one per new connection a second at a 1 s mean think time, for the suite's
#: ``http_rate`` of 15 connections a second.
WEB_SESSIONS = 15
WEB: dict[str, Any] = {"think_time_ns": 1_000_000_000, "objects_per_page": 1}
#: Metrics start after 20 s of the 100-s run (the thesis's runs; spec 2.2), or after a fifth of
#: a shorter run.
WARMUP_NS = 20_000_000_000
#: Controllers the suite runs without ECN (CUBIC and BIC in the suite; BIC is not modelled).
NO_ECN = frozenset({"cubic"})


#: What :func:`eval_suite`'s arguments that are not quantities accept (:func:`pertlab.arguments.check_kinds`).
EVAL_SUITE_KINDS = {
    "cc": ("str", "a controller, e.g. 'pert'"),
    "seed": ARGUMENT_KINDS["seed"],
    "queue": ("str?", ARGUMENT_KINDS["queue"][1]),
    "pacing": ("bool", "whether every TCP sender paces its segments"),
}


def suite_buffer_pkts(rate_bps: int, rtt_ns: int) -> int:
    """The suite's bottleneck buffer: rate x RTT in 1000-byte packets, at least
    :data:`MIN_BUFFER_PER_FTP` per FTP flow (both directions' flows)."""
    bdp = round(rate_bps * rtt_ns / 1e9 / 8 / PACKET_BYTES)
    return max(bdp, MIN_BUFFER_PER_FTP * 2 * FTP_FLOWS)


def eval_suite(cc: str = "sack", bw: str | int = "10Mbps", rtt: str | int = "80ms", duration: str | int = "100s", *,
               warmup: str | int | None = None, seed: int = 1, queue: str | None = None, pacing: bool = False,
               sample_interval: str | int | None = None) -> Scenario:  # fmt: skip
    """The suite's dumbbell with bottleneck ``bw`` and round-trip propagation delay ``rtt``, every
    TCP flow (FTP both ways and web) running ``cc`` (a name ``--cc`` takes). ``queue`` replaces the
    bottleneck's discipline (default: the suite's adaptive RED, or ``"xcp"`` for XCP flows);
    ``pacing`` spaces every TCP sender's segments srtt / cwnd apart (not in the suite: a test of
    how much bursts matter); metrics cover ``[warmup, duration]`` (default warmup: :data:`WARMUP_NS`,
    or a fifth of ``duration`` if that is shorter). The UDP start times come from
    ``seed``, so the scenario is a pure function of its arguments. Bad arguments raise a
    ``ValueError`` (:class:`~pertlab.scenario.ScenarioError` or a unit's) naming the argument."""
    check_kinds(locals(), EVAL_SUITE_KINDS)
    if cc not in CC_NAMES:
        raise ScenarioError([("cc", f"unknown controller {cc!r}; allowed: {', '.join(CC_NAMES)}")])
    kind = CC_NAMES[cc][0]
    rate = _positive(parse_rate, bw, "bw")
    rtt_ns = _positive(parse_time, rtt, "rtt")
    buffer = suite_buffer_pkts(rate, rtt_ns)
    if buffer > U32_MAX:
        # Both values, since the caller may have typed only one of them (the other its default).
        message = f"the buffer, one bandwidth-delay product (bw {bw} x rtt {rtt}), is {buffer} packets; a queue holds at most {U32_MAX}"
        raise ScenarioError([("bw, rtt", message)])
    queue = ("xcp" if kind == "xcp" else "ared") if queue is None else queue
    ecn = kind not in NO_ECN and queue != "xcp"
    aqm = dict(SUITE_RED) if queue == "ared" else None
    if warmup is None:
        warmup = f"{min(WARMUP_NS, _positive(parse_time, duration, 'duration') // 5)}ns"
    base = dumbbell(
        bw=rate, rtt=f"{rtt_ns}ns", flows=FTP_FLOWS, cc=cc, queue=queue, duration=duration, warmup=warmup, start_window=0,
        buffer_pkts=buffer, seed=seed, ecn=ecn, aqm=aqm, packet_size=WIRE_BYTES,
        access_rate=EDGE_RATE_FACTOR * rate, reverse_flows=FTP_FLOWS, web_sessions=WEB_SESSIONS, web=WEB,
        tcp={"pacing": {"enabled": True}} if pacing else None, sample_interval=sample_interval,
    ).to_wire()  # fmt: skip
    wire = _suite_links(base, rtt_ns)
    for f in wire["flows"]:
        f["start_window_ns"] = list(START_WINDOW_NS)
    for w in wire["web"]:
        w["start_window_ns"] = list(START_WINDOW_NS)
    wire["udp"] = _udp_sources(wire["dumbbell"], seed)
    return Scenario.parse(wire)


def _suite_links(wire: dict[str, Any], rtt_ns: int) -> dict[str, Any]:
    """The suite's delays (bottleneck 0.4 RTTp, edges 0.05 RTTp each), its bottleneck's discipline
    in both directions (an ns-2 duplex link: the reverse FTP flows and streams meet the same
    queue, where the forward flows' ACKs are dropped or marked) and two more host pairs, one for
    the voice sources and one for the streaming sources."""
    d = wire["dumbbell"]
    d["bottleneck_queue_reverse"] = dict(d["bottleneck_queue"])
    edge_ns = round(EDGE_DELAY_FRACTION * rtt_ns)
    d["bottleneck_delay_ns"] = round(BOTTLENECK_DELAY_FRACTION * rtt_ns)
    d["sender_access_delay_ns"] = [edge_ns]
    d["receiver_access_delay_ns"] = [edge_ns]
    d["pairs"] += 2
    return wire


def _udp_sources(dumbbell_wire: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """Voice both ways on the second-last host pair, streaming both ways (5 forward, 5 reverse) on
    the last; each source starts at a uniform time in :data:`START_WINDOW_NS` drawn from ``seed``."""
    draw = random.Random(f"eval-suite-udp-{seed}")
    voice, streaming = dumbbell_wire["pairs"] - 2, dumbbell_wire["pairs"] - 1
    sources = []
    for pair, rate, size, count in ((voice, VOICE_RATE_BPS, VOICE_PACKET_BYTES, VOICE_SOURCES), (streaming, STREAMING_RATE_BPS, STREAMING_PACKET_BYTES, STREAMING_SOURCES)):
        for src, dst in ((f"s{pair}", f"d{pair}"), (f"d{pair}", f"s{pair}")):
            for _ in range(count):
                sources.append({"src": src, "dst": dst, "rate_bps": rate, "packet_size": size, "arrivals": "cbr_random",
                                "start_ns": draw.randint(*START_WINDOW_NS)})  # fmt: skip
    return sources
