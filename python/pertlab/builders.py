"""Scenario builders: a whole experiment from a few numbers.

:func:`dumbbell` builds the single-bottleneck topology of most congestion-control
papers. Its choices, where a paper gives only "bandwidth, RTT, flows":

- **Delay split.** The RTT is the two-way propagation delay
  ``2 * (sender access + bottleneck + receiver access)``. Each access link gets
  1 ms (or RTT/8 when the RTT is below 8 ms) and the bottleneck the rest, so a
  60 ms RTT is 1 + 28 + 1 ms one way.
- **Access links** run at ``max(10 x bottleneck, 1 Gbps)``, so they never become
  the bottleneck, with the core's default 1000-packet DropTail buffers.
- **Buffer** = ``buffer_bdp x BDP`` packets of the flows' packet size (BDP =
  bottleneck rate x RTT), and at least ``2 x flows`` packets, the PERT paper's
  rule ("buffer = BDP, at least 2 x number of flows").
- **Controllers.** ``sack`` is Reno window rules with SACK recovery (RFC 6675),
  ``newreno`` the same without SACK (RFC 6582 recovery), ``reno`` an alias of
  ``sack`` (Reno window rules with the default SACK recovery); ``vegas`` and
  ``pert`` run over SACK recovery, as in the PERT paper, and so do ``pert-adaptive``
  (Kotla 2008) and the baselines ``hstcp``, ``cubic``, ``compound``, ``illinois``
  and ``fast``, and Tahiliani's (2013) ``surathkal`` with the baselines
  ``dctcp``, ``scalable`` and ``westwood``, and ``xcp`` (Katabi 2002, which needs
  ``queue="xcp"``, the XCP router, at the bottleneck) (docs/model.md). A mix is written
  ``"pert:25,sack:25"``: flows take the controllers in that order. With
  ``flows`` given, a mix may be written in percentages, ``"pert:50%,sack:50%"``
  (they must sum to 100; see :func:`parse_cc_mix` for the rounding). Each flow's
  ``label`` is the name written (``sack``, ``newreno``, ``pert``, ...), so that
  ``results.controllers`` has one row per name.
- **ECN.** ``ecn=True`` makes every flow ECN-capable and an AQM bottleneck
  (any kind but droptail) mark instead of drop (``queue="ared", ecn=True`` is
  the PERT paper's SACK/RED-ECN). With it, ``surathkal`` flows report marks
  with XECN and ``dctcp`` flows with RFC 8257 feedback (:data:`ECN_FEEDBACK`);
  the others with RFC 3168's. Without it they get no marks (Surathkal is then
  Reno with the chosen loss response, DCTCP Reno).
- **RED's packet size.** A RED-family bottleneck counts in packets of the
  flows' size (``mean_pkt_size`` = ``packet_size``): its automatic thresholds
  (target delay x capacity) are then in the packets that actually queue. With
  ns-2's 500-byte default and 1500-byte packets they are three times too high
  (at 150 Mbit/s max_th = 281 packets, above a 150-packet buffer: RED never acts).
- **Starts** are drawn uniformly in ``[0, start_window]`` from the seed;
  metrics cover ``[warmup, duration]``. Unset, they fit any run: the start
  window is 10 s and the warm-up 20 s (the PERT paper's runs), or a tenth and a
  fifth of the measured span when it is shorter than 100 s (:func:`window_defaults`).
- **Different RTTs.** ``rtt`` may be a list (or "12ms,24ms,..."), one RTT per
  flow (PERT paper Table 1). The bottleneck delay is the split of the smallest
  RTT; each pair's two access links make up the rest of its RTT. The buffer's
  BDP uses the mean RTT (the paper does not say which RTT it used).
- **Web traffic.** ``web_sessions`` adds one more host pair: a web server on
  the sender side and a client on the receiver side, so object data crosses
  the bottleneck like the long flows' data. The transfers use the first
  controller of ``cc`` and the flows' TCP options (the PERT paper does not say
  which transport its web sessions used); the pair's RTT is the mean RTT.
  Session starts are uniform in ``[0, start_window]``.
- **Reverse traffic.** ``reverse_flows`` adds that many pairs whose flow runs
  from the receiver side to the sender side (the first controller of ``cc``),
  so data and ACKs of both directions share the bottleneck's two queues.
- **Service classes** (Hua's thesis, Chapter 5). With a multi-class ``queue``
  (priority, wtp, swtp, bpr), ``class_weights`` are its b_i (default 1, 2, 4),
  ``flow_classes`` the classes of the flows in turn (flow i gets
  ``flow_classes[i % len]``; default all class 0), and ``udp_load`` > 0 adds one
  more host pair with one UDP source per class loading the bottleneck to
  ``udp_load`` (a fraction of its rate) split by ``udp_split`` (default equal),
  with ``udp_arrivals`` (Pareto gaps by default, shape 1.9) and the thesis's
  100/500/1000-byte mix (:data:`UDP_MIX_MEAN_BYTES` mean).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

from .arguments import check_kinds
from .kinds import CC_NAMES, CLASS_KINDS, PY_FORM, QUEUE_NAMES
from .scenario.controllers import check_target
from .scenario import MAX_PACKET_BYTES, U32_MAX, Scenario, ScenarioError, class_rates
from .scenario.traffic import TCP_IP_HEADER_BYTES
from .units import U64_MAX, format_size, parse_rate, parse_size, parse_time

__all__ = [
    "CC_NAMES", "QUEUE_NAMES", "NS2_TCP", "dumbbell", "parking_lot", "parse_cc_mix", "split_rtt", "buffer_packets",
    "window_defaults",
]  # fmt: skip

NS_PER_MS = 1_000_000
#: Bytes of an ACK on the wire: a bare TCP/IP header.
ACK_BYTES = TCP_IP_HEADER_BYTES

#: ECN feedback of the controllers that read marks per packet, used when ``ecn`` is on
#: (TCP Surathkal reads XECN, Tahiliani 2013 Ch. 4.2.2; DCTCP reads RFC 8257 3.2 feedback).
ECN_FEEDBACK: dict[str, str] = {"surathkal": "xecn", "dctcp": "dctcp"}
#: TCP timer options of ns-2's agents (ns-default.tcl, ns-2.30 and later), for reproductions of
#: papers simulated in ns-2: initial RTO 3 s (``rtxcur_init_``, changed from 6 s on 2006-01-21),
#: ``minrto_`` 200 ms bounding the whole RTO (RFC 6298 2.4 form), clock tick 10 ms (``tcpTick_``),
#: which is also ns-2's least margin of the RTO above SRTT.
NS2_TCP: dict[str, Any] = {"initial_rto": "3s", "min_rto": "200ms", "rto_min_on": "rto", "clock_granularity": "10ms"}
#: The configuration section of each AQM kind in a queue spec (the RED family shares ``red``).
AQM_SECTION = {k: "red" for k in ("red", "ared", "reared", "fared", "cared", "feng", "nlred", "jcc-red")} | {k: k for k in ("pi", "pie", "codel", "step", "xcp")}


#: Flows of a dumbbell when neither ``flows`` nor counts in its ``cc`` say how many.
DEFAULT_FLOWS = 50


def parse_cc_mix(cc: str, flows: int | None, field: str = "cc", default_flows: int | None = None) -> list[tuple[str, int]]:
    """``"sack"`` -> ``[("sack", flows)]``; ``"pert:25,sack:25"`` -> two groups;
    ``"pert:50%,sack:50%"`` with ``flows`` -> two groups of those shares.

    With counts, ``flows`` may be None (the counts decide) or must equal their sum.
    Without counts, a None ``flows`` means ``default_flows`` (an error if that is None too).
    Percentages need ``flows`` (or ``default_flows``), must sum to 100 and cannot be mixed with counts;
    a 0% entry gives no flows. Rounding: largest remainder (Hamilton): each group
    gets the whole part of its share of ``flows``, and the flows left over go one
    each to the groups with the largest fractional parts, ties to the earlier
    group, so the counts sum to ``flows``.
    """
    given = default_flows if flows is None else flows  # the count of a controller without one
    if "%" in cc:
        return _parse_percent_mix(cc, given, field)
    allowed = ", ".join(CC_NAMES)
    groups: list[tuple[str, int]] = []
    for part in cc.split(","):
        name, sep, count = _split_part(part, field)
        if name not in CC_NAMES and not name.startswith("py:"):
            raise ScenarioError([(field, f"unknown controller {name!r}; allowed: {allowed}, {PY_FORM} (or a mix such as pert:25,sack:25)")])
        if not sep:
            if len(cc.split(",")) > 1:
                raise ScenarioError([(field, f"in a mix every controller needs a flow count, as in pert:25,sack:25; got {cc!r}")])
            if given is None:
                raise ScenarioError([("flows", "give the number of flows, or counts in the controller mix (pert:25,sack:25)")])
            groups.append((name, given))
            continue
        try:
            n = int(count)
        except ValueError:
            n = -1
        if n < 1:
            raise ScenarioError([(field, f"flow count of {name!r} must be a positive integer, got {count!r}")])
        groups.append((name, n))
    total = sum(n for _, n in groups)
    if flows is not None and total != flows:
        raise ScenarioError([(field, f"the mix has {total} flows but flows is {flows}")])
    return groups


def _split_part(part: str, field: str) -> tuple[str, str, str]:
    """One entry of a mix: ``"pert:25"`` -> ("pert", ":", "25"); a controller written in Python
    keeps its name's case and colons: ``"py:mod:Cls:25"`` -> ("py:mod:Cls", ":", "25")."""
    part = part.strip()
    if part.lower().startswith("py:"):
        pieces = part.split(":")
        name = ":".join(["py", *pieces[1:3]])
        try:
            check_target(name[3:])
        except ValueError as e:
            raise ScenarioError([(field, f"a controller written in Python is {PY_FORM}; {e}")]) from None
        return name, ":" if len(pieces) > 3 else "", ":".join(pieces[3:])
    name, sep, rest = part.partition(":")
    return name.strip().lower(), sep, rest


def cc_wire(name: str) -> tuple[dict[str, Any], bool]:
    """The scenario's ``cc`` of a controller name of :data:`CC_NAMES` or ``py:module:Class``,
    and whether its flows recover with SACK."""
    if name.startswith("py:"):
        return {"kind": "py", "target": name[3:]}, True
    kind, sack = CC_NAMES[name]
    return {"kind": kind}, sack


def _parse_percent_mix(cc: str, flows: int | None, field: str) -> list[tuple[str, int]]:
    allowed = ", ".join(CC_NAMES)
    shares: list[tuple[str, Fraction]] = []
    for part in cc.split(","):
        name, sep, value = _split_part(part, field)
        value = value.strip()
        if name not in CC_NAMES and not name.startswith("py:"):
            raise ScenarioError([(field, f"unknown controller {name!r}; allowed: {allowed} (or a mix such as pert:50%,sack:50%)")])
        if not sep or not value.endswith("%"):
            raise ScenarioError([(field, f"a mix gives every controller a count (pert:25,sack:25) or every one a percentage (pert:50%,sack:50%), not both; got {cc!r}")])
        try:
            pct = Fraction(value[:-1].strip())
        except (ValueError, ZeroDivisionError):
            pct = Fraction(-1)
        if pct < 0:
            raise ScenarioError([(field, f"percentage of {name!r} must be a number >= 0 followed by %, got {value!r}")])
        shares.append((name, pct))
    total = sum(p for _, p in shares)
    if total != 100:
        raise ScenarioError([(field, f"the percentages sum to {float(total):g}, they must sum to 100")])
    if flows is None:
        raise ScenarioError([("flows", "give the number of flows: a mix in percentages shares out that number")])
    exact = [p * flows / 100 for _, p in shares]
    counts = [int(x) for x in exact]
    by_remainder = sorted(range(len(shares)), key=lambda i: -(exact[i] - counts[i]))
    for i in by_remainder[: flows - sum(counts)]:
        counts[i] += 1
    return [(name, n) for (name, _), n in zip(shares, counts)]


def split_rtt(rtt_ns: int) -> tuple[int, int]:
    """(access delay, bottleneck delay), one way, for a two-way propagation delay."""
    access = min(NS_PER_MS, rtt_ns // 8)
    return access, rtt_ns // 2 - 2 * access


def buffer_packets(rate_bps: int, rtt_ns: int, packet_size: int, buffer_bdp: float, flows: int) -> int:
    """``buffer_bdp x BDP`` in packets, at least ``2 x flows`` (and at least 1)."""
    bdp = rate_bps * rtt_ns / 1e9 / (8 * packet_size)
    return max(round(buffer_bdp * bdp), 2 * flows, 1)


#: Start window and warm-up of runs of 100 s or more (the PERT paper's Section 4 runs start
#: their flows in the first seconds and measure after a warm-up).
START_WINDOW_NS = 10 * 10**9
WARMUP_NS = 20 * 10**9


def window_defaults(end_ns: int) -> tuple[int, int]:
    """(start window, warm-up) in ns when the caller gives none, for metrics ending at ``end_ns``:
    10 s and 20 s, or a tenth and a fifth of ``end_ns`` when that is shorter than 100 s
    (ns-3 users' 20 % warm-up), so that both fit every run."""
    return min(START_WINDOW_NS, end_ns // 10), min(WARMUP_NS, end_ns // 5)


#: The video clients' start-up delay when none is given (docs/cli.md, ``--startup-delay``).
DEFAULT_STARTUP_DELAY = "5s"


def _parse_video(video: str | None, startup_delay: str | int | None, startup_delays: list[str | int] | None, default_cc: str) -> tuple[str, int, dict[str, Any]] | None:
    """``"20@300kbps:pert"`` -> ("pert", 20, the flows' video section); None without ``video``."""
    if video is None:
        if startup_delays:
            raise ScenarioError([("startup_delays", "further start-up delays need video streams (video)")])
        if startup_delay is not None:
            raise ScenarioError([("startup_delay", "a start-up delay needs video streams (video)")])
        return None
    startup_delay = DEFAULT_STARTUP_DELAY if startup_delay is None else startup_delay
    count, at, rest = video.partition("@")
    rate, _, name = rest.partition(":")
    name = name.strip() or default_cc
    if not (at and count.strip().isdigit() and int(count) >= 1 and rate.strip()):
        raise ScenarioError([("video", f"write N@RATE or N@RATE:CC with N >= 1, as in 20@300kbps:pert; got {video!r}")])
    if name not in CC_NAMES:
        raise ScenarioError([("video", f"unknown controller {name!r}; allowed: {', '.join(CC_NAMES)}")])
    delay_ns = parse_time(startup_delay, "startup_delay")
    if delay_ns < 0:
        raise ScenarioError([("startup_delay", f"must be zero or positive, got {startup_delay!r}")])
    further = [parse_time(d, f"startup_delays[{i}]") for i, d in enumerate(startup_delays or [])]
    for i, d in enumerate(further):
        if d < 0:
            raise ScenarioError([(f"startup_delays[{i}]", f"must be zero or positive, got {startup_delays[i]!r}")])
    for i in range(1, len(further)):
        if further[i] <= further[i - 1]:
            raise ScenarioError([(f"startup_delays[{i}]", f"must be strictly increasing, got {startup_delays[i]} after {startup_delays[i - 1]}")])
    section = {"rate_bps": _positive(parse_rate, rate.strip(), "video"), "startup_delay_ns": delay_ns}
    return name, int(count), section | ({"startup_delays_ns": further} if further else {})


def dumbbell(
    bw: str | int = "150Mbps",
    rtt: str | int | list[str | int] = "60ms",
    flows: int | None = None,
    cc: str = "sack",
    queue: str = "droptail",
    duration: str | int = "100s",
    *,
    buffer_bdp: float = 1.0,
    buffer_pkts: int | None = None,
    start_window: str | int | None = None,
    warmup: str | int | None = None,
    measure_end: str | int | None = None,
    seed: int = 1,
    ecn: bool = False,
    access_rate: str | int | None = None,
    packet_size: str | int = 1500,
    sample_interval: str | int | None = None,
    monitor_flows: list[int] | None = None,
    cc_params: dict[str, dict[str, Any]] | None = None,
    aqm: dict[str, Any] | None = None,
    reverse_flows: int = 0,
    tcp: dict[str, Any] | None = None,
    web_sessions: int = 0,
    web: dict[str, Any] | None = None,
    memory_limit: float | None = None,
    video: str | None = None,
    startup_delay: str | int | None = None,
    startup_delays: list[str | int] | None = None,
    class_weights: list[float] | None = None,
    flow_classes: list[int] | None = None,
    udp_load: float = 0.0,
    udp_split: list[float] | None = None,
    udp_arrivals: str | None = None,
    t_mu_probe: bool = False,
) -> Scenario:
    """A single-bottleneck scenario (see the module doc for every choice).

    Quantities take human units ("150Mbps", "60ms") or numbers in base units
    (bit/s; seconds for times). Metrics cover ``[warmup, measure_end]``
    (default: to the end of the run); unset ``start_window`` and ``warmup``
    follow :func:`window_defaults`. ``cc`` is one controller name or a mix with
    counts ("pert:25,sack:25") or percentages ("pert:50%,sack:50%"); ``flows`` is the number of
    flows (default: the sum of the mix's counts, else :data:`DEFAULT_FLOWS`). ``sample_interval``
    turns on time series of the bottleneck queue and of ``monitor_flows``
    (default: all flows). ``cc_params`` maps a core controller ("pert",
    "vegas") to its parameters; ``aqm`` holds the parameters of the bottleneck's
    discipline (its ``red``, ``pi``, ``pie`` or ``codel`` section); ``tcp``
    holds further TCP options of every flow (e.g. ``{"initial_rto": "3s"}``).
    ``web_sessions`` adds a server/client pair whose web sessions send through
    the bottleneck like the long flows (``web`` overrides the web parameters).
    ``video`` ("N@RATE" or "N@RATE:CC", e.g. "20@300kbps:pert") adds N live video streams over TCP
    (Qian 2011; controller CC, default the first of ``cc``, label ``video-CC``) whose clients play
    with ``startup_delay`` (default :data:`DEFAULT_STARTUP_DELAY`) (and count late segments at each of ``startup_delays`` too:
    ``Results.video_playout``). ``t_mu_probe`` adds one greedy probe flow of the streams' controller
    (label ``probe-CC``, ``FlowSpec.probe``) whose goodput over the video rate is each stream's
    ``video_t_mu`` (Qian's T/mu).
    ``class_weights``, ``flow_classes``, ``udp_load``, ``udp_split`` and ``udp_arrivals`` set up
    service classes on a multi-class ``queue`` (module doc, "Service classes").
    ``memory_limit`` (as :func:`pertlab.runner.run` takes it) refuses at once more flows
    than it can hold. Errors are :class:`~pertlab.scenario.ScenarioError` naming the argument
    (a value of the wrong type too, :data:`ARGUMENT_KINDS`), or a ``ValueError`` of a quantity
    naming it; an argument given where it does not apply (``aqm`` with a queue that takes none,
    ``monitor_flows`` without ``sample_interval``, ``web`` without ``web_sessions``) is refused.
    """
    check_kinds(locals(), ARGUMENT_KINDS)
    rate = _positive(parse_rate, bw, "bw")
    if access_rate is None and 10 * rate > U64_MAX:  # the derived access rate would not fit: the bottleneck rate is at fault
        raise ScenarioError([("bw", f"must be at most {U64_MAX // 10} bit/s unless the access rate is given (the access links run at 10 x bw, and a rate is at most {U64_MAX} bit/s), got {bw!r}")])
    rtt_list = [x.strip() for x in rtt.split(",")] if isinstance(rtt, str) else rtt if isinstance(rtt, (list, tuple)) else [rtt]
    rtts_ns = [_positive(parse_time, x, "rtt") for x in rtt_list]
    duration_ns, end_ns, window_ns, warmup_ns = _window(duration, start_window, warmup, measure_end)
    size = _packet_size(packet_size)
    if flows is not None and flows < 1:
        raise ScenarioError([("flows", f"must be at least 1, got {flows}")])
    groups, roles, video_group = _flow_groups(cc, flows, video, startup_delay, startup_delays, t_mu_probe)
    n = sum(k for _, k in groups)
    if len(rtts_ns) not in (1, n):
        raise ScenarioError([("rtt", f"give one RTT or one per flow ({n}), got {len(rtts_ns)}")])
    if reverse_flows < 0:
        raise ScenarioError([("reverse_flows", f"must be zero or positive, got {reverse_flows}")])
    _fits_in_memory(n + reverse_flows, memory_limit)
    if web_sessions < 0:
        raise ScenarioError([("web_sessions", f"must be zero or positive, got {web_sessions}")])
    _applies("web", web, web_sessions > 0, f"with web sessions (the parameters of their pair); web_sessions is {web_sessions}")
    _applies("monitor_flows", monitor_flows, sample_interval is not None, "with sample_interval (the time series it picks flows for); sample_interval is None")
    _check_queue(queue)
    _check_xcp_router([name for name, _ in groups], queue)
    _check_window(end_ns, window_ns, warmup_ns, start_window, warmup, measure_end)
    _check_buffer_bdp(buffer_bdp)

    _, bottleneck_ns = split_rtt(min(rtts_ns))
    access_ns = [(r // 2 - bottleneck_ns) // 2 for r in rtts_ns]
    mean_rtt_ns = round(sum(rtts_ns) / len(rtts_ns))
    limit = buffer_pkts if buffer_pkts is not None else _bdp_buffer(rate, mean_rtt_ns, size, buffer_bdp, n + reverse_flows, ("bw", "rtt"))
    bottleneck_queue = _queue_wire(queue, limit, aqm, ecn, size)
    udp_wire = _classes(queue, bottleneck_queue, rate, class_weights, flow_classes, udp_load, udp_split, udp_arrivals)

    flows_wire = _flows_wire(groups, roles, video_group, rate, size, window_ns, ecn, cc_params, tcp, flow_classes)
    for _ in range(reverse_flows):
        i = len(flows_wire)
        flows_wire.append({**flows_wire[0], "src": f"d{i}", "dst": f"s{i}"})
    web_wire = _web_wire(groups, flows_wire, web_sessions, web, window_ns)
    pairs = n + reverse_flows + len(web_wire)
    for u in udp_wire:
        u.update(src=f"s{pairs}", dst=f"d{pairs}")
    pairs += 1 if udp_wire else 0
    if len(access_ns) > 1:  # one RTT per flow: reverse flows take the first flow's, the web and UDP pairs the mean
        access_ns += [access_ns[0]] * reverse_flows + [(mean_rtt_ns // 2 - bottleneck_ns) // 2] * (pairs - n - reverse_flows)

    access_bps = _positive(parse_rate, access_rate, "access_rate") if access_rate is not None else max(10 * rate, 10**9)
    if video_group is not None and video_group[2]["rate_bps"] > access_bps:
        raise ScenarioError([("video", f"the video rate ({video_group[2]['rate_bps']} bit/s) must be at most the access link rate ({access_bps} bit/s)")])
    return _parse(
        {
            "seed": seed,
            "duration_ns": duration_ns,
            "measure": {"start_ns": warmup_ns, "end_ns": end_ns},
            "dumbbell": {
                "pairs": pairs,
                "bottleneck_rate_bps": rate,
                "bottleneck_delay_ns": bottleneck_ns,
                "bottleneck_queue": bottleneck_queue,
                "access_rate_bps": access_bps,
                "sender_access_delay_ns": access_ns,
                "receiver_access_delay_ns": access_ns,
            },
            "flows": flows_wire,
            "web": web_wire,
            "udp": udp_wire,
            "monitor": {
                "sample_interval": sample_interval,
                "flows": monitor_flows,
                "links": ["bottleneck"],
            }
            if sample_interval is not None
            else {},
        },
        buffer_given=buffer_pkts is not None,
    )


def _flow_groups(cc: str, flows: int | None, video: str | None, startup_delay: str | int | None, startup_delays: list[str | int] | None, t_mu_probe: bool) -> tuple[list[tuple[str, int]], list[str], tuple[str, int, dict[str, Any]] | None]:
    """:func:`dumbbell`'s flow groups (controller name, count) in order, each one's role (bulk
    flows, the video streams, their T/mu probe) and the video group (None without one)."""
    groups = [(name, k) for name, k in parse_cc_mix(cc, flows, default_flows=DEFAULT_FLOWS) if k > 0]
    video_group = _parse_video(video, startup_delay, startup_delays, groups[0][0] if groups else "sack")
    if t_mu_probe and video_group is None:
        raise ScenarioError([("t_mu_probe", "a T/mu probe needs video streams to measure T for")])
    roles = ["bulk"] * len(groups)
    if video_group is not None:
        groups.append(video_group[:2])
        roles.append("video")
        if t_mu_probe:
            groups.append((video_group[0], 1))
            roles.append("probe")
    return groups, roles, video_group


def _flows_wire(
    groups: list[tuple[str, int]], roles: list[str], video_group: tuple[str, int, dict[str, Any]] | None, rate: int, size: int, window_ns: int,
    ecn: bool, cc_params: dict[str, dict[str, Any]] | None, tcp: dict[str, Any] | None, flow_classes: list[int] | None,
) -> list[dict[str, Any]]:  # fmt: skip
    """:func:`dumbbell`'s long flows, one per pair s{i} -> d{i} in the groups' order, each with its
    group's controller (the parameters derived from the bottleneck, then ``cc_params``'), its
    role's label and the TCP options; ``cc_params`` of a controller no flow runs is refused."""
    kind_of = {name: cc_wire(name)[0]["kind"] for name, _ in groups}
    unused = sorted(set(cc_params or {}) - set(kind_of.values()))
    if unused:
        running = sorted(name if name == kind else f"{name} ({kind})" for name, kind in kind_of.items())
        raise ScenarioError([("cc_params", f"parameters of {', '.join(unused)}, which no flow runs (the flows run {', '.join(running)})")])
    flows_wire: list[dict[str, Any]] = []
    for (name, count), role in zip(groups, roles):
        spec, sack = cc_wire(name)
        kind = spec["kind"]
        spec = {**spec, **_derived_cc_params(kind, rate, size), **(cc_params or {}).get(kind, {})}
        for _ in range(count):
            i = len(flows_wire)
            flows_wire.append(
                {
                    "src": f"s{i}",
                    "dst": f"d{i}",
                    "cc": spec,
                    "start_window_ns": [0, window_ns],
                    "label": name if role == "bulk" else f"{role}-{name}",
                    "tcp": {"packet_size": size, "sack": sack, "ecn": ecn, **_feedback(kind, ecn), **(tcp or {})},
                    **({"video": video_group[2]} if role == "video" and video_group is not None else {"probe": True} if role == "probe" else {}),
                    **({"class": flow_classes[i % len(flow_classes)]} if flow_classes else {}),
                }
            )
    return flows_wire


def _web_wire(groups: list[tuple[str, int]], flows_wire: list[dict[str, Any]], web_sessions: int, web: dict[str, Any] | None, window_ns: int) -> list[dict[str, Any]]:
    """:func:`dumbbell`'s web sessions (none without ``web_sessions``): one server/client pair on
    the next pair of hosts, with the first flow's controller and TCP options (a controller written
    in Python drives long flows only, so it may not come first then)."""
    if not web_sessions:
        return []
    i = len(flows_wire)
    first = flows_wire[0]
    if first["cc"]["kind"] == "py":
        reordered = sorted(groups, key=lambda g: g[0].startswith("py:"))  # core controllers first
        example = ",".join(f"{name}:{k}" for name, k in (reordered if reordered != groups else [("sack", 1), *groups]))
        raise ScenarioError([("cc", f"web sessions take the first controller of the mix, here {groups[0][0]!r}, and a controller written in Python drives long flows only; put a core controller first (e.g. {example})")])
    return [{
        "clients": [f"d{i}"], "servers": [f"s{i}"], "sessions": web_sessions, "start_window_ns": [0, window_ns],
        "cc": first["cc"], "tcp": first["tcp"], **(web or {}),
    }]  # fmt: skip


def parking_lot(
    routers: int = 6,
    hosts: int = 20,
    cc: str = "sack",
    queue: str = "droptail",
    duration: str | int = "100s",
    *,
    core_rate: str | int = "150Mbps",
    core_delay: str | int = "5ms",
    access_rate: str | int = "1Gbps",
    access_delay: str | int = "5ms",
    buffer_bdp: float = 1.0,
    start_window: str | int | None = None,
    warmup: str | int | None = None,
    measure_end: str | int | None = None,
    seed: int = 1,
    ecn: bool = False,
    packet_size: str | int = 1500,
    aqm: dict[str, Any] | None = None,
    tcp: dict[str, Any] | None = None,
    long_flows: int | None = None,
    cross_flows: list[int] | None = None,
    equal_rtt: bool = False,
    buffer_pkts: int | None = None,
) -> Scenario:
    """Routers ``R1..Rn`` in a chain, a cloud of ``hosts`` hosts on each
    (PERT paper Figure 10: six routers, 150 Mbit/s / 5 ms between routers, 20
    hosts per router on 1 Gbit/s / 5 ms). Host j of cloud i sends to host j of
    cloud i+1, and host j of cloud 1 also sends to host j of cloud n (the long
    flows, which cross every router link). Flow ``k * hosts + j`` is host j's
    flow from cloud k+1; the long flows come last.

    Router links are named ``Ri-Ri+1`` and carry the scheme's ``queue``; the
    buffer is ``buffer_bdp`` x the BDP of the longest path (the long flows'
    RTT; CHOICE: the paper says "BDP" without saying which RTT) and at least 2 x
    the flows crossing a link. Access links get DropTail buffers of 1000 packets.

    Hua's Figure 3.1 (thesis, Chapter 3) varies the flows per connection:
    ``long_flows`` (default ``hosts``) long flows, and ``cross_flows[i]``
    (default ``hosts`` each) one-hop flows on router link i (0 leaves that link
    without cross traffic); cloud i then has as many hosts as its busiest role
    needs. ``equal_rtt`` gives every flow the long flows' base RTT ("propagation
    delay and transmission time are the same for all connections", Section 3.4):
    the long flows get hosts of their own, and each cross host's access delay
    grows by a quarter of what the long round trip has more (a cross flow
    crosses two such links each way): (n - 2) router links of propagation both
    ways plus the transmission of one packet and one ACK on each, to the
    nanosecond. ``buffer_pkts`` sets the router buffers in packets instead of
    ``buffer_bdp`` (Hua gives no buffer; ns-2's default is 50). Errors name the argument, as
    :func:`dumbbell`'s do.
    """
    check_kinds(locals(), ARGUMENT_KINDS)
    if routers < 2:
        raise ScenarioError([("routers", f"need at least 2 routers, got {routers}")])
    if hosts < 1:
        raise ScenarioError([("hosts", f"need at least 1 host per router, got {hosts}")])
    _check_queue(queue)
    if cc not in CC_NAMES:
        raise ScenarioError([("cc", f"unknown controller {cc!r}; allowed: {', '.join(CC_NAMES)}")])
    _check_xcp_router([cc], queue)
    n_long = hosts if long_flows is None else long_flows
    cross = [hosts] * (routers - 1) if cross_flows is None else list(cross_flows)
    if n_long < 0:
        raise ScenarioError([("long_flows", f"must be zero or positive, got {long_flows}")])
    if len(cross) != routers - 1 or any(c < 0 for c in cross):
        raise ScenarioError([("cross_flows", f"one count (zero or positive) per router link, {routers - 1} in all; got {cross_flows}")])
    if n_long + sum(cross) == 0:
        raise ScenarioError([("long_flows", "no flows: give long_flows or cross_flows above zero")])
    rate = _positive(parse_rate, core_rate, "core_rate")
    core_ns = parse_time(core_delay, "core_delay")
    acc_rate = _positive(parse_rate, access_rate, "access_rate")
    acc_ns = parse_time(access_delay, "access_delay")
    duration_ns, end_ns, window_ns, warmup_ns = _window(duration, start_window, warmup, measure_end)
    _check_window(end_ns, window_ns, warmup_ns, start_window, warmup, measure_end)
    size = _packet_size(packet_size)
    _check_buffer_bdp(buffer_bdp)
    long_rtt_ns = 2 * (2 * acc_ns + (routers - 1) * core_ns)
    busiest = max(n_long + c for c in cross)
    if buffer_pkts is None:
        limit = _bdp_buffer(rate, long_rtt_ns, size, buffer_bdp, busiest, ("core_rate", "core_delay", "access_delay"))
    elif not 1 <= buffer_pkts <= U32_MAX:
        raise ScenarioError([("buffer_pkts", f"must lie in [1, {U32_MAX}], got {buffer_pkts}")])
    else:
        limit = buffer_pkts
    router_queue = _queue_wire(queue, limit, aqm, ecn, size)
    names = [f"R{i + 1}" for i in range(routers)]
    host = lambda i, j: f"h{i + 1}_{j}"  # noqa: E731
    # Hosts of cloud i: senders of link i's cross flows, receivers of link i-1's, and the long
    # flows' ends in the first and last cloud (hosts of their own with equal_rtt).
    long_base = [0] * routers
    n_hosts = [max(cross[i] if i < routers - 1 else 0, cross[i - 1] if i > 0 else 0) for i in range(routers)]
    for i in (0, routers - 1):
        long_base[i] = n_hosts[i] if equal_rtt else 0
        n_hosts[i] = long_base[i] + n_long if equal_rtt else max(n_hosts[i], n_long)
    # Equal base RTT: a quarter of the long round trip's extra on each cross access link.
    extra_ns = (routers - 2) * (2 * core_ns + (size + ACK_BYTES) * 8 * 10**9 // rate) // 4 if equal_rtt else 0
    host_delay = lambda i, j: acc_ns + (extra_ns if j < long_base[i] or i not in (0, routers - 1) else 0)  # noqa: E731
    links = [
        {"name": f"{a}-{b}", "a": a, "b": b, "rate_bps": rate, "delay_ns": core_ns, "queue": router_queue}
        for a, b in zip(names, names[1:])
    ] + [{"a": host(i, j), "b": names[i], "rate_bps": acc_rate, "delay_ns": host_delay(i, j)} for i in range(routers) for j in range(n_hosts[i])]
    kind, sack = CC_NAMES[cc]
    cc_spec = {"kind": kind, **_derived_cc_params(kind, rate, size)}
    pairs = [(host(i, j), host(i + 1, j)) for i in range(routers - 1) for j in range(cross[i])]
    pairs += [(host(0, long_base[0] + j), host(routers - 1, long_base[-1] + j)) for j in range(n_long)]
    return _parse(
        {
            "seed": seed,
            "duration_ns": duration_ns,
            "measure": {"start_ns": warmup_ns, "end_ns": end_ns},
            "nodes": names + [host(i, j) for i in range(routers) for j in range(n_hosts[i])],
            "links": links,
            "flows": [
                {"src": a, "dst": b, "cc": cc_spec, "start_window_ns": [0, window_ns], "tcp": {"packet_size": size, "sack": sack, "ecn": ecn, **_feedback(kind, ecn), **(tcp or {})}}
                for a, b in pairs
            ],
        }
    )


#: Hua's size mix (thesis 5.4): 0.4 x 100 + 0.4 x 500 + 0.2 x 1000 bytes.
UDP_MIX_MEAN_BYTES = 440
#: Arrival processes of the dumbbell's class sources (the core's ``Arrivals``).
UDP_ARRIVALS = ("cbr", "cbr_random", "poisson", "pareto", "pareto_onoff")


#: Arrivals of the UDP sources when none are given (Hua 2002's Pareto gaps, docs/cli.md).
DEFAULT_UDP_ARRIVALS = "pareto"


def _classes(
    queue: str, bottleneck_queue: dict[str, Any], rate: int, weights: list[float] | None, flow_classes: list[int] | None, load: float,
    split: list[float] | None, arrivals: str | None,
) -> list[dict[str, Any]]:  # fmt: skip
    """The dumbbell's service classes: ``sched.weights`` set on ``bottleneck_queue``, and the
    UDP sources (their pair is filled in by the caller); errors name the argument."""
    uses = [name for name, given in (("class_weights", weights), ("flow_classes", flow_classes), ("udp_load", load), ("udp_split", split)) if given]
    if uses and queue not in CLASS_KINDS:
        raise ScenarioError([(uses[0], f"needs a multi-class queue ({', '.join(CLASS_KINDS)}), got queue {queue!r}")])
    if weights is not None:
        bottleneck_queue["sched"] = {"weights": list(weights)}
    classes = len(weights) if weights is not None else 3
    for i, c in enumerate(flow_classes or []):
        if not 0 <= c < classes:
            raise ScenarioError([(f"flow_classes[{i}]", f"class {c} has no queue: the bottleneck's {classes} classes are 0 to {classes - 1}")])
    for name, given in (("udp_split", split), ("udp_arrivals", arrivals)):
        if given is not None and load <= 0:
            raise ScenarioError([(name, "needs udp_load above 0")])
    arrivals = DEFAULT_UDP_ARRIVALS if arrivals is None else arrivals
    if not (0 <= load <= 1 and math.isfinite(load)):
        raise ScenarioError([("udp_load", f"must lie in [0, 1] (a fraction of the bottleneck rate), got {load}")])
    if arrivals not in UDP_ARRIVALS:
        raise ScenarioError([("udp_arrivals", f"unknown arrivals {arrivals!r}; allowed: {', '.join(UDP_ARRIVALS)}")])
    if load == 0:
        return []
    split = split if split is not None else [1 / classes] * classes
    if len(split) != classes:
        raise ScenarioError([("udp_split", f"give one fraction per class ({classes}), got {len(split)}")])
    try:
        rates = class_rates(rate, load, split)
    except ScenarioError as e:
        raise ScenarioError([("udp_" + f, m) for f, m in e.errors]) from None
    return [
        {"rate_bps": r, "packet_size": UDP_MIX_MEAN_BYTES, "arrivals": arrivals, "sizes": "mix", "class": c}
        for c, r in enumerate(rates) if r > 0
    ]  # fmt: skip


def _feedback(kind: str, ecn: bool) -> dict[str, str]:
    """The ECN feedback option of a controller's flows (:data:`ECN_FEEDBACK`), when ECN is on."""
    return {"ecn_feedback": ECN_FEEDBACK[kind]} if ecn and kind in ECN_FEEDBACK else {}


def _check_xcp_router(names: list[str], queue: str) -> None:
    """XCP flows need the XCP router at the bottleneck (the core refuses an XCP flow with none on its path)."""
    if queue != "xcp" and any(n in CC_NAMES and CC_NAMES[n][0] == "xcp" for n in names):
        raise ScenarioError([("queue", f'xcp flows need queue "xcp" (the XCP router) at the bottleneck, got {queue!r}')])


#: What the builders' arguments accept, but the quantities (``bw``, ``rtt``, ``duration``, ...,
#: read by :mod:`pertlab.units`) and ``memory_limit`` (:func:`pertlab.memory.core_limit`), whose
#: errors name them already: a kind of :data:`pertlab.arguments.KINDS` (``?``: or None) and what
#: the value means.
ARGUMENT_KINDS: dict[str, tuple[str, str]] = {
    "flows": ("int?", "the number of flows"),
    "cc": ("str", "a controller or a mix, e.g. 'pert' or 'pert:25,sack:25'"),
    "queue": ("str", f"a discipline: {', '.join(QUEUE_NAMES)}, or py:module:Class"),
    "buffer_bdp": ("number", "bandwidth-delay products"),
    "buffer_pkts": ("int?", "packets"),
    "seed": ("int", "the seed of every random draw"),
    "ecn": ("bool", "whether the flows use ECN"),
    "monitor_flows": ("ints?", "indices of the flows to sample"),
    "cc_params": ("dicts?", "a controller's parameters by its name, e.g. {'pert': {'t_max': '10ms'}}"),
    "aqm": ("dict?", "the parameters of the queue's discipline, e.g. {'min_th': 5, 'max_th': 15}"),
    "reverse_flows": ("int", "the number of reverse flows"),
    "tcp": ("dict?", "TCP options, e.g. {'initial_rto': '3s'}"),
    "web_sessions": ("int", "the number of web sessions"),
    "web": ("dict?", "web parameters, e.g. {'think_time': '1s'}"),
    "video": ("str?", "N@RATE or N@RATE:CC, e.g. '20@300kbps:pert'"),
    "startup_delays": ("list?", "times, e.g. ['10s', '20s']"),
    "class_weights": ("numbers?", "one weight per class"),
    "flow_classes": ("ints?", "the classes of the flows in turn"),
    "udp_load": ("number", "a fraction of the bottleneck rate"),
    "udp_split": ("numbers?", "one fraction per class"),
    "udp_arrivals": ("str?", f"one of {', '.join(UDP_ARRIVALS)}"),
    "t_mu_probe": ("bool", "whether to add a T/mu probe flow"),
    "routers": ("int", "the number of routers"),
    "hosts": ("int", "hosts per router"),
    "long_flows": ("int?", "the number of long flows"),
    "cross_flows": ("ints?", "one count per router link"),
    "equal_rtt": ("bool", "whether every flow gets the long flows' RTT"),
}


def _applies(argument: str, value: Any, applies: bool, where: str) -> None:
    """Refuse an ``argument`` given (not None or empty) where it does not apply, rather than drop
    it: ``where`` says where it applies and why not here, naming the argument that decides."""
    if value and not applies:
        raise ScenarioError([(argument, f"applies only {where}")])


def _check_queue(queue: str) -> None:
    """``queue`` is a discipline of the core or ``py:module:Class``; an error names the argument."""
    if queue.startswith("py:"):
        try:
            check_target(queue[3:])
        except ValueError as e:
            raise ScenarioError([("queue", f"a discipline written in Python is {PY_FORM}; {e}")]) from None
    elif queue not in QUEUE_NAMES:
        raise ScenarioError([("queue", f"unknown queue {queue!r}; allowed: {', '.join(QUEUE_NAMES)}, {PY_FORM}")])


def _queue_wire(queue: str, limit: int, aqm: dict[str, Any] | None, ecn: bool, packet_size: int) -> dict[str, Any]:
    """The spec of a router queue of ``limit`` packets: a core discipline with its section
    (:func:`_aqm_section`), or ``py:module:Class`` (its parameters are its class's)."""
    if queue.startswith("py:"):
        if aqm:
            raise ScenarioError([("aqm", "a discipline written in Python takes no aqm parameters: they are its class's attributes (subclass it)")])
        return {"kind": "py", "target": queue[3:], "limit_pkts": limit}
    _applies("aqm", aqm, queue in AQM_SECTION, f"to an AQM queue ({', '.join(AQM_SECTION)}); queue is {queue!r}")
    wire: dict[str, Any] = {"kind": queue, "limit_pkts": limit}
    if queue in AQM_SECTION:
        wire[AQM_SECTION[queue]] = _aqm_section(queue, aqm, ecn, packet_size)
    return wire


def _aqm_section(queue: str, aqm: dict[str, Any] | None, ecn: bool, packet_size: int) -> dict[str, Any]:
    """The discipline's parameters: ``aqm`` as given, marking when the flows use ECN, and for
    the RED family the flows' packet size as the mean packet size, so that the automatic
    thresholds (ns-2 ``mean_pktsize_``, default 500 bytes) count the flows' packets."""
    section = dict(aqm or {})
    if ecn and queue not in ("step", "xcp"):  # step marks ECN-capable packets always; XCP never marks
        section.setdefault("use_ecn", True)
    if AQM_SECTION[queue] == "red":
        section.setdefault("mean_pkt_size", packet_size)
    return section


def _derived_cc_params(kind: str, rate_bps: int, packet_size: int) -> dict[str, Any]:
    """Parameters a controller takes from the bottleneck: PERT/PI scales router
    PI's a, b by the capacity in packets/s (SIGCOMM 2007 Section 6.1)."""
    return {"capacity_pps": rate_bps / (8 * packet_size)} if kind == "pert-pi" else {}


#: Bytes a flow's description takes in Python (its model, about 3.3 KB, and its share of the
#: wire JSON, about 0.5 KB; measured with 50,000 flows), before the core's own per-flow state.
MODEL_BYTES_PER_FLOW = 4096


def _fits_in_memory(flows: int, memory_limit: float | None) -> None:
    """Refuse, before describing them, more flows than the memory limit can hold (the model of
    each flow and the least the core needs for it): ``--flows 100000000`` would otherwise spend
    minutes building a description that cannot run. Without a limit (``math.inf``) the memory
    available now still bounds the description, which must fit before anything runs. The run's
    own estimate comes later."""
    from . import _core
    from .memory import available_memory, core_limit

    given = core_limit(memory_limit)
    limit = given if given is not None else available_memory()
    need = flows * (MODEL_BYTES_PER_FLOW + _core.bytes_per_flow())
    if limit is not None and need > limit:
        limited = given is not None and memory_limit is not None
        what = "of the memory limit" if limited else "available now"
        raise ScenarioError([("flows, memory_limit" if limited else "flows", f"{flows:,} flows need at least {format_size(need)} to describe and run, more than the {format_size(limit)} {what}")])


def _window(duration: Any, start_window: Any, warmup: Any, measure_end: Any) -> tuple[int, int, int, int]:
    """(duration, end of the metrics, start window, warm-up) in ns, the unset ones from
    :func:`window_defaults`; the end must lie in (0, duration]."""
    duration_ns = _positive(parse_time, duration, "duration")
    end_ns = duration_ns if measure_end is None else parse_time(measure_end, "measure_end")
    if not 0 < end_ns <= duration_ns:
        raise ScenarioError([("measure_end", f"must lie in (0, duration], got {measure_end!r} with duration {duration!r}")])
    auto_window_ns, auto_warmup_ns = window_defaults(end_ns)
    window_ns = auto_window_ns if start_window is None else parse_time(start_window, "start_window")
    warmup_ns = auto_warmup_ns if warmup is None else parse_time(warmup, "warmup")
    return duration_ns, end_ns, window_ns, warmup_ns


def _check_window(end_ns: int, window_ns: int, warmup_ns: int, start_window: Any, warmup: Any, measure_end: Any) -> None:
    """The warm-up lies before the end of the metrics; the start window is not negative."""
    if not 0 <= warmup_ns < end_ns:
        raise ScenarioError([("warmup", f"must lie in [0, {'measure_end' if measure_end is not None else 'duration'}), got {warmup!r}")])
    if window_ns < 0:
        raise ScenarioError([("start_window", f"must be zero or positive, got {start_window!r}")])


def _check_buffer_bdp(buffer_bdp: float) -> None:
    if not (math.isfinite(buffer_bdp) and buffer_bdp >= 0):
        raise ScenarioError([("buffer_bdp", f"must be a finite number, zero or positive, got {buffer_bdp}")])


def _positive(parse, value: Any, field: str) -> int:
    n = parse(value, field)
    if n <= 0:
        raise ScenarioError([(field, f"must be positive, got {value!r}")])
    return n


def _bdp_buffer(rate_bps: int, rtt_ns: int, packet_size: int, buffer_bdp: float, flows: int, bdp_fields: tuple[str, ...]) -> int:
    """:func:`buffer_packets`, or an error when a queue cannot hold that many: naming the
    arguments of the bandwidth-delay product (``bdp_fields``) when one BDP is already too many
    packets, else ``buffer_bdp``, which multiplies it past the bound."""
    try:
        limit = buffer_packets(rate_bps, rtt_ns, packet_size, buffer_bdp, flows)
    except OverflowError:  # buffer_bdp x BDP beyond the floats: round(inf)
        raise ScenarioError([("buffer_bdp", f"{buffer_bdp:g} bandwidth-delay products are more packets than a queue holds (at most {U32_MAX})")]) from None
    if limit <= U32_MAX:
        return limit
    bdp = buffer_packets(rate_bps, rtt_ns, packet_size, 1.0, flows)
    if bdp > U32_MAX:
        message = f"one bandwidth-delay product is {bdp} packets; a queue holds at most {U32_MAX}"
        raise ScenarioError([(", ".join(bdp_fields), message)])
    raise ScenarioError([("buffer_bdp", f"gives a buffer of {limit} packets; a queue holds at most {U32_MAX}")])


def _packet_size(value: Any) -> int:
    """The flows' packet size: above the 40-byte TCP/IP header, at most :data:`MAX_PACKET_BYTES`."""
    size = parse_size(value, "packet_size")
    if not 40 < size <= MAX_PACKET_BYTES:
        raise ScenarioError([("packet_size", f"must exceed the 40-byte TCP/IP header and be at most {MAX_PACKET_BYTES} bytes, got {value!r}")])
    return size


#: Scenario fields the builders fill, as the builder argument that sets them (first match wins),
#: so that an error found by the scenario model names what the caller wrote.
_ARGUMENT_OF_FIELD = [
    (r"dumbbell\.bottleneck_queue\.sched\.weights", "class_weights"),
    (r"flows\[\d+\]\.class", "flow_classes"),
    (r"udp\[\d+\]", "udp_load"),
    (r"dumbbell\.pairs", "flows"),
    (r"dumbbell\.bottleneck_rate(?:_bps)?", "bw"),
    # A PI reference not below the buffer (the error of the whole pi section) or a step K above it
    # is the buffer's to fix where the caller sets only the buffer (the queue's where the buffer is
    # derived, :data:`_FITS_IN_BUFFER`).
    (r"dumbbell\.bottleneck_queue\.(?:limit_pkts|step|pi$)|links\[\d+\]\.queue\.limit_pkts", "buffer_pkts"),
    (r"dumbbell\.(?:bottleneck|sender_access|receiver_access)_delay(?:_ns)?", "rtt"),
    (r"dumbbell\.bottleneck_queue\.(?:red|pi|pie|codel)|links\[\d+\]\.queue\.(?:red|pi|pie|codel)", "aqm"),
    (r"dumbbell\.access_rate(?:_bps)?", "access_rate"),
    (r"(?:flows|web)\[\d+\]\.tcp\.packet_size", "packet_size"),
    (r"(?:flows|web)\[\d+\]\.tcp", "tcp"),
    (r"(?:flows|web)\[\d+\]\.cc\.target", "cc"),
    (r"(?:flows|web)\[\d+\]\.cc", "cc_params"),
    (r"flows\[\d+\]\.video\.startup_delays(?:_ns)?", "startup_delays"),
    (r"flows\[\d+\]\.video\.startup_delay(?:_ns)?", "startup_delay"),
    (r"flows\[\d+\]\.video", "video"),
    (r"dumbbell\.bottleneck_queue\.target", "queue"),
    (r"web\[\d+\]\.sessions", "web_sessions"),
    (r"web\[\d+\]", "web"),
    (r"measure\.start(?:_ns)?", "warmup"),
    (r"measure\.end(?:_ns)?", "measure_end"),
    (r"monitor\.sample_interval(?:_ns)?", "sample_interval"),
    (r"monitor\.flows", "monitor_flows"),
]


#: The dumbbell's fields that must fit in its buffer (PI's qref, step's K): their errors name
#: ``buffer_pkts`` where the caller gave it, else ``queue``, the choice that asked for them (the
#: buffer is then a BDP, which no argument sets alone).
_FITS_IN_BUFFER = re.compile(r"dumbbell\.bottleneck_queue\.(?:step|pi)$")


def _parse(wire: dict[str, Any], buffer_given: bool = True) -> Scenario:
    """:meth:`Scenario.parse`, with the fields of its errors renamed to the builder's arguments."""
    try:
        return Scenario.parse(wire)
    except ScenarioError as e:
        rename = lambda path: "queue" if not buffer_given and _FITS_IN_BUFFER.match(path) else _cc_param(wire, path) or argument_of(path)  # noqa: E731
        # One line per argument and message: a bad tcp option is wrong in every flow alike.
        raise ScenarioError(list(dict.fromkeys((rename(path), message) for path, message in e.errors))) from None


def _cc_param(wire: dict[str, Any], path: str) -> str | None:
    """A controller parameter's field as ``cc_params`` holds it, under the controller's name
    (``flows[2].cc.beta`` of a cubic flow -> ``cc_params.cubic.beta``: Compound and CUBIC both have a
    ``beta``; ``flows[2].cc``, an unknown parameter's, -> ``cc_params.cubic``); None for any other
    field."""
    m = re.match(r"(flows|web)\[(\d+)\]\.cc(?:$|\.(?!target\b)(\w.*))", path)
    if not m:
        return None
    try:
        kind = wire[m[1]][int(m[2])]["cc"]["kind"]
    except (KeyError, IndexError, TypeError):
        return None
    return f"cc_params.{kind}" + (f".{m[3]}" if m[3] else "")


def argument_of(path: str) -> str:
    """The builder argument behind a scenario field (``dumbbell.pairs`` -> ``flows``, with what
    follows the field kept: ``flows[0].tcp.overhead`` -> ``tcp.overhead``), or the path itself."""
    for pattern, argument in _ARGUMENT_OF_FIELD:
        m = re.match(rf"(?:{pattern})(?=$|[.\[])", path)
        if m:
            return argument + path[m.end():]
    return path
