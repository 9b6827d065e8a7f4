"""One pertlab dumbbell scenario as the ns-3 program's command line (``native/ns3/dumbbell.cc``).

pertlab's scenario model is the source: every choice it makes (rates, delays, buffer,
discipline and its parameters, controller and its parameters, TCP options, start times,
measurement window) is written out as ns-3 attributes, and what ns-3 cannot express is
refused with :class:`NotInNs3` saying what, which the report shows as "not in ns-3"
instead of failing.

The mapping, pertlab -> ns-3 3.44:

- Disciplines: ``droptail`` -> ``FifoQueueDisc``; ``red`` and ``ared`` -> ``RedQueueDisc``
  (``ARED`` on for ``ared``), with ns-3's attribute names, which pertlab's RED section
  uses in snake case; ``feng``, ``nlred`` -> ``RedQueueDisc`` with ``FengAdaptive`` or
  ``NLRED``; ``codel`` -> ``CoDelQueueDisc``; ``pie`` -> ``PieQueueDisc``. The buffer is
  ``MaxSize`` in packets. ``pi``, ``reared``, ``fared`` and ``cared`` are not in ns-3.
- Controllers: ``reno`` -> ``TcpLinuxReno`` (Linux's ``tcp_reno_*``, as pertlab's: ssthresh
  = cwnd / 2, one segment per window of ACKed segments; SACK or NewReno recovery is the
  ``Sack`` attribute). ns-3's ``TcpNewReno`` is another algorithm (ssthresh = bytes in
  flight / 2, one MSS^2 / cwnd per ACK whatever it acknowledges) that a case may ask for
  with ``ns3_tcp`` (docs/validation.md, "PIE"). ``cubic`` -> ``TcpCubic`` (HyStart
  off: pertlab's slow start is standard), ``vegas`` -> ``TcpVegas`` (with Linux's slow
  start, ``slow_start_every_other_rtt = false``: ns-3 has no other), ``hstcp`` ->
  ``TcpHighSpeed`` (RFC 3649's table; pertlab's default response function only),
  ``illinois`` -> ``TcpIllinois``. PERT, Compound and FAST are not in ns-3.
- Recovery: ``TcpClassicRecovery`` (RFC 5681/6675 window halving; ns-3's default is
  PRR, RFC 6937, which pertlab does not model).
- TCP options: segment = packet size - 40 (timestamps off, so that a full segment is
  the packet size on the wire, as in pertlab), ``InitialCwnd``, ``DelAckCount`` 2 or 1
  with pertlab's ``DelAckTimeout``, ``ReTxThreshold``, ``LimitedTransmit``, ``MinRto``,
  ``ClockGranularity``, ``UseEcn``. ns-3 bounds the whole RTO by ``MinRto`` (RFC 6298),
  so a scenario must say ``rto_min_on = "rto"``. Send and receive buffers are set so
  that they never limit the window (:data:`BUFFER_HEADROOM` times what the path and the
  bottleneck buffer hold), and ``DataRetries`` so that no connection is abandoned
  (pertlab's senders never give up).
- Start times: the ones pertlab drew from the seed, so both runs start the same flows at
  the same instants. ns-3 opens connections with a handshake, pertlab's agents do not.
"""

from __future__ import annotations

from typing import Any

from ..scenario import Scenario
from ..scenario.traffic import TCP_IP_HEADER_BYTES

__all__ = ["NotInNs3", "ns3_arguments", "NS3_CC", "NS3_QUEUE"]

#: pertlab controller -> ns-3 TypeId.
NS3_CC = {"reno": "ns3::TcpLinuxReno", "cubic": "ns3::TcpCubic", "vegas": "ns3::TcpVegas", "hstcp": "ns3::TcpHighSpeed", "illinois": "ns3::TcpIllinois"}
#: pertlab queue kind -> ns-3 queue disc TypeId.
NS3_QUEUE = {
    "droptail": "ns3::FifoQueueDisc", "red": "ns3::RedQueueDisc", "ared": "ns3::RedQueueDisc", "feng": "ns3::RedQueueDisc",
    "nlred": "ns3::RedQueueDisc", "codel": "ns3::CoDelQueueDisc", "pie": "ns3::PieQueueDisc",
}  # fmt: skip
#: Send/receive buffers hold this many times the packets the path and the bottleneck buffer can hold.
BUFFER_HEADROOM = 2
#: ns-3's least socket buffer, bytes (its default SndBufSize / RcvBufSize).
NS3_MIN_BUFFER = 131072
#: Retransmissions before ns-3 abandons a connection; pertlab's senders never give up.
NS3_DATA_RETRIES = 1_000_000


class NotInNs3(ValueError):
    """The scenario uses something ns-3 does not have (the message says what)."""


def ns3_arguments(scenario: Scenario, starts_s: list[float], sample_interval_s: float = 0.0, ns3_tcp: str | None = None) -> list[str]:
    """The ns-3 program's arguments for ``scenario`` (a dumbbell of long-lived TCP flows), its
    flows starting at ``starts_s``; raises :class:`NotInNs3` for what ns-3 cannot express.
    ``ns3_tcp`` replaces the controller's ns-3 counterpart by another ns-3 TypeId."""
    d = scenario.dumbbell
    if d is None or scenario.links or scenario.udp or scenario.web:
        raise NotInNs3("only dumbbells of long-lived TCP flows are translated")
    flows = scenario.flows
    if len(flows) != d.pairs or len(starts_s) != len(flows):
        raise NotInNs3("one flow per host pair (no reverse traffic)")
    if any(f.cc != flows[0].cc or f.tcp != flows[0].tcp for f in flows):
        raise NotInNs3("the ns-3 program gives every flow the same controller and TCP options")
    if d.sender_access_delay != d.receiver_access_delay:
        raise NotInNs3("sender and receiver access delays differ")
    tcp = flows[0].tcp
    measure = scenario.measure
    start_ns, end_ns = (measure.start, measure.end) if measure else (0, scenario.duration)
    q = d.bottleneck_queue
    if q.limit_pkts is None:
        raise NotInNs3("a byte-limited bottleneck buffer (the program takes packets)")
    bdp_pkts = d.bottleneck_rate * 2 * (d.bottleneck_delay + 2 * max(d.sender_access_delay)) / 1e9 / (8 * tcp.packet_size)
    buffer_bytes = max(NS3_MIN_BUFFER, BUFFER_HEADROOM * int(bdp_pkts + q.limit_pkts + 1) * tcp.packet_size)
    buffer_bytes = min(buffer_bytes, max(NS3_MIN_BUFFER, tcp.max_cwnd * (tcp.packet_size - TCP_IP_HEADER_BYTES)))
    return [
        f"--rate={d.bottleneck_rate}",
        f"--bottleneckDelay={d.bottleneck_delay}",
        f"--accessRate={d.access_rate}",
        "--accessDelays=" + ",".join(str(x) for x in d.sender_access_delay),
        "--starts=" + ",".join(repr(s) for s in starts_s),
        f"--duration={scenario.duration / 1e9!r}",
        f"--warmup={start_ns / 1e9!r}",
        f"--end={end_ns / 1e9!r}",
        f"--seed={scenario.seed}",
        f"--packetSize={tcp.packet_size}",
        f"--queueDisc={_ns3_type(NS3_QUEUE, 'queue', q.kind)}",
        "--queueAttrs=" + "|".join(f"{k}={v}" for k, v in _queue_attributes(q, d).items()),
        f"--tcp={ns3_tcp or _ns3_type(NS3_CC, 'controller', flows[0].cc.kind)}",
        "--defaults=" + "|".join(f"{k}={v}" for k, v in {**_tcp_defaults(tcp, buffer_bytes), **_cc_defaults(flows[0].cc)}.items()),
        f"--lossRate={d.bottleneck_loss!r}",
        f"--sampleInterval={sample_interval_s!r}",
    ]


def _ns3_type(types: dict[str, str], what: str, kind: str) -> str:
    """ns-3's TypeId for pertlab's ``kind`` of ``what`` ("queue", "controller")."""
    if kind not in types:
        raise NotInNs3(f"{what} {kind!r}")
    return types[kind]


def _bool(x: bool) -> str:
    return "true" if x else "false"


def _queue_attributes(q: Any, d: Any) -> dict[str, Any]:
    attrs: dict[str, Any] = {"MaxSize": f"{q.limit_pkts}p"}
    if q.kind == "codel":
        c = q.codel
        return attrs | {"Target": f"{c.target}ns", "Interval": f"{c.interval}ns", "MinBytes": c.max_packet_bytes, "UseEcn": _bool(c.use_ecn)}
    if q.kind == "pie":
        p = q.pie
        if p.delay != "sojourn":
            raise NotInNs3("PIE's queue_over_rate delay (ns-3 estimates the dequeue rate instead)")
        return attrs | {
            "QueueDelayReference": f"{p.target_delay}ns", "Tupdate": f"{p.t_update}ns", "MaxBurstAllowance": f"{p.max_burst}ns",
            "A": p.alpha, "B": p.beta, "MeanPktSize": p.mean_pkt_size, "UseEcn": _bool(p.use_ecn),
            "MarkEcnThreshold": p.mark_ecn_threshold, "UseCapDropAdjustment": _bool(p.cap_drop_adjustment),
        }  # fmt: skip
    if q.kind in ("red", "ared", "feng", "nlred"):
        r = q.red
        if r.mode != "packets":
            raise NotInNs3("RED in byte mode (the program's buffer is in packets)")
        attrs |= {
            "LInterm": r.l_interm, "Gentle": _bool(r.gentle), "Wait": _bool(r.wait), "UseEcn": _bool(r.use_ecn),
            "UseHardDrop": _bool(r.use_hard_drop), "MeanPktSize": r.mean_pkt_size, "IdlePktSize": r.idle_pkt_size,
            "LinkBandwidth": f"{d.bottleneck_rate}bps", "LinkDelay": f"{d.bottleneck_delay}ns",
        }  # fmt: skip
        if r.min_th:
            attrs["MinTh"] = r.min_th
        if r.max_th:
            attrs["MaxTh"] = r.max_th
        if r.q_w is not None:
            attrs["QW"] = r.q_w
        if q.kind == "ared":
            attrs |= {
                "ARED": "true", "TargetDelay": f"{r.target_delay}ns", "Interval": f"{r.interval}ns", "Top": r.top,
                "Bottom": r.bottom, "Alpha": r.alpha, "Beta": r.beta,
            }  # fmt: skip
        if q.kind == "feng":
            attrs |= {"FengAdaptive": "true", "FengAlpha": r.feng_alpha, "FengBeta": r.feng_beta}
        if q.kind == "nlred":
            attrs["NLRED"] = "true"
    return attrs


def _tcp_defaults(tcp: Any, buffer_bytes: int) -> dict[str, Any]:
    if tcp.rto_min_on != "rto":
        raise NotInNs3('rto_min_on = "variance" (ns-3 bounds the whole RTO by MinRto, RFC 6298)')
    if tcp.overhead or tcp.rtt_noise:
        raise NotInNs3("ns-2's overhead_ or RTT noise")
    return {
        "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery",
        "ns3::TcpSocketBase::Sack": _bool(tcp.sack),
        "ns3::TcpSocketBase::Timestamp": "false",
        "ns3::TcpSocketBase::UseEcn": "On" if tcp.ecn else "Off",
        "ns3::TcpSocketBase::LimitedTransmit": _bool(tcp.limited_transmit),
        "ns3::TcpSocketBase::ReTxThreshold": tcp.dupthresh,
        "ns3::TcpSocketBase::MinRto": f"{tcp.min_rto}ns",
        "ns3::TcpSocketBase::ClockGranularity": f"{tcp.clock_granularity}ns",
        "ns3::TcpSocket::InitialCwnd": tcp.init_cwnd,
        "ns3::TcpSocket::DelAckCount": 2 if tcp.delayed_ack else 1,
        "ns3::TcpSocket::DelAckTimeout": f"{tcp.delayed_ack_timeout}ns",
        "ns3::TcpSocket::SndBufSize": buffer_bytes,
        "ns3::TcpSocket::RcvBufSize": buffer_bytes,
        "ns3::TcpSocket::DataRetries": NS3_DATA_RETRIES,
    }


#: pertlab's HighSpeed TCP parameters that ns-3's fixed RFC 3649 table implies.
_HSTCP_RFC = {"low_window": 38.0, "high_window": 83_000.0, "low_p": 1e-3, "high_p": 1e-7, "high_decrease": 0.1}
#: pertlab's Illinois delay thresholds that ns-3's TcpIllinois fixes (Linux's d1, d2, d3).
_ILLINOIS_FIXED = {"d1_frac": 0.01, "d2_frac": 0.1, "d3_frac": 0.8}


def _cc_defaults(cc: Any) -> dict[str, Any]:
    if cc.kind == "cubic":
        return {
            "ns3::TcpCubic::C": cc.c, "ns3::TcpCubic::Beta": cc.beta, "ns3::TcpCubic::FastConvergence": _bool(cc.fast_convergence),
            "ns3::TcpCubic::TcpFriendliness": _bool(cc.reno_friendly), "ns3::TcpCubic::HyStart": "false",
        }  # fmt: skip
    if cc.kind == "vegas":
        if cc.slow_start_every_other_rtt:
            raise NotInNs3("Vegas's slow start every other RTT (Brakmo, ns-2; ns-3's TcpVegas grows every RTT, as Linux)")
        return {"ns3::TcpVegas::Alpha": cc.alpha, "ns3::TcpVegas::Beta": cc.beta, "ns3::TcpVegas::Gamma": cc.gamma}
    if cc.kind == "hstcp":
        if any(getattr(cc, k) != v for k, v in _HSTCP_RFC.items()):
            raise NotInNs3("HighSpeed TCP with another response function than RFC 3649's (ns-3 has the table)")
        return {}
    if cc.kind == "illinois":
        if any(getattr(cc, k) != v for k, v in _ILLINOIS_FIXED.items()):
            raise NotInNs3("Illinois delay thresholds other than Linux's (fixed in ns-3)")
        return {
            "ns3::TcpIllinois::AlphaMin": cc.alpha_min, "ns3::TcpIllinois::AlphaMax": cc.alpha_max,
            "ns3::TcpIllinois::BetaMin": cc.beta_min, "ns3::TcpIllinois::BetaMax": cc.beta_max,
            "ns3::TcpIllinois::WinThresh": cc.win_thresh, "ns3::TcpIllinois::Theta": cc.theta,
        }  # fmt: skip
    return {}
