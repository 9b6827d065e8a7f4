"""Tahiliani (PhD thesis, NITK 2013), Chapter 4: TCP Surathkal (XECN) against TCP SACK
(RFC 3168 ECN) and TCP Westwood+, on the wired dumbbell of Fig. 4.3 (Section 4.4.1, S4-A) and
on the single-hop wireless topology of Fig. 4.16 (Section 4.4.3, S4-C); extracted in
shared/spec/aqm-xecn-surathkal-tahiliani.md 2.2 ("S4-A", "S4-C") and 3 ("Chapter 4 headline
numbers").

- **S4-A** (:func:`s4a`): n FTP flows from t = 0 on a dumbbell with 10 Mbit/s access links,
  1000-byte payloads (1040 bytes on the wire), ARED (target delay 5 ms) with a 50-packet
  buffer; the bottleneck's one-way propagation delay d gives an RTT of 2 (d + 4) ms (the
  thesis's 2 ms access links; pertlab's builder splits it as 1 ms access links and a
  d + 2 ms bottleneck, :func:`pertlab.builders.split_rtt`). Used by Figs. 4.4 (capacity),
  4.5 (delay), 4.6/4.7 (fairness, half the flows each controller) and 4.8/4.9 (cwnd and
  ARED's average over time).
- **S4-C** (:func:`s4c`): two FTP flows from wired sources through a router to an access
  point over 75 Mbit/s, 5 ms links, then one wireless hop to a mobile host (the hop's rate
  swept 5..12 Mbit/s, default 11). The hop is a point-to-point link with a Bernoulli
  per-packet error on data and on ACKs (link-layer retransmissions off), not an 802.11 MAC:
  no contention, no interference-driven RTT variation (docs/model.md "Network"). ARED as in
  S4-A sits in the access point's queue onto the hop.

- **S4-B** (:func:`suite_row`): the TCP evaluation suite of Section 4.4.2 (Figs. 4.10 to 4.15),
  built by :func:`pertlab.tcp_eval_suite.eval_suite`; one controller at a time, its bottleneck's
  utilization, mean queue as a percentage of the buffer and drop rate.

Choices where the thesis is silent are named constants below and listed in
docs/reproductions.md ("Tahiliani Chapter 4").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..builders import dumbbell
from ..metrics import jain_index as jain, rate
from ..runner import run
from ..scenario import Scenario

#: Payload bytes of every packet (Sec. 4.4.1); 40 bytes of TCP/IP headers on the wire.
PAYLOAD_BYTES = 1000
WIRE_BYTES = PAYLOAD_BYTES + 40
#: Router queue size in packets (Sec. 4.4.1, "unless otherwise specified"; used for S4-C too).
BUFFER_PKTS = 50
#: ARED's target queueing delay (Sec. 4.4.1): thresholds 5 and 15 packets at 8 Mbit/s.
ARED_TARGET = "5ms"
#: Access links of the dumbbell (Sec. 4.4.1): 10 Mbit/s, 2 ms one way.
ACCESS_RATE = "10Mbps"
ACCESS_DELAY_MS = 2
#: Bottleneck of S4-A (b)..(e): 8 Mbit/s, 50 ms propagation delay (Sec. 4.4.1).
S4A_RATE_MBPS = 8
S4A_DELAY_MS = 50
#: Wired links of S4-C (Sec. 4.4.3): 75 Mbit/s, 5 ms.
WIRED_RATE = "75Mbps"
WIRED_DELAY = "5ms"
#: Wireless hop of S4-C: 11 Mbit/s unless swept (Sec. 4.4.3); its delay is not stated (1 ms here).
WIRELESS_RATE_MBPS = 11
WIRELESS_DELAY = "1ms"


@dataclass(frozen=True)
class Mode:
    """Run length, warm-up and seeds of one mode of an entry."""

    duration: str
    warmup: str
    seeds: tuple[int, ...]


def s4a(
    cc: str, mode: Mode, seed: int, *, bw_mbps: float = S4A_RATE_MBPS, delay_ms: float = S4A_DELAY_MS, flows: int | None = 2,
    sample_interval: str | None = None, tcp: dict[str, Any] | None = None, cc_params: dict[str, dict[str, Any]] | None = None,
) -> Scenario:  # fmt: skip
    """S4-A: ``cc`` (one controller for ``flows`` flows, or a mix such as ``"sack:8,surathkal:8"``
    with ``flows=None``) on the Fig. 4.3 dumbbell with bottleneck ``bw_mbps`` / ``delay_ms``.
    SACK marks with RFC 3168 ECN, Surathkal reads XECN (the builder's ECN feedback per controller);
    ``tcp`` and ``cc_params`` as :func:`pertlab.builders.dumbbell` takes them."""
    rtt_ms = 2 * (delay_ms + 2 * ACCESS_DELAY_MS)
    return dumbbell(
        bw=f"{bw_mbps}Mbps", rtt=f"{rtt_ms:g}ms", flows=flows, cc=cc, queue="ared", duration=mode.duration, warmup=mode.warmup,
        start_window="0s", buffer_pkts=BUFFER_PKTS, ecn=True, packet_size=WIRE_BYTES, access_rate=ACCESS_RATE,
        aqm={"target_delay": ARED_TARGET}, seed=seed, sample_interval=sample_interval, tcp=tcp, cc_params=cc_params,
    )  # fmt: skip


def s4c(
    cc: str, mode: Mode, seed: int, *, wireless_mbps: float = WIRELESS_RATE_MBPS, error: float = 0.0, ack_errors: bool = True,
    ecn: bool = True, cc_params: dict[str, dict[str, Any]] | None = None,
) -> Scenario:  # fmt: skip
    """S4-C: two ``cc`` flows from wired sources s0, s1 via router r and access point ap to the
    mobile host mh over a ``wireless_mbps`` hop losing a fraction ``error`` of the data packets
    and, with ``ack_errors``, of the ACKs (the thesis: "High channel error rates lead to ACKs
    being dropped"); ECN (XECN for Surathkal) when ``ecn``; ``cc_params`` as
    :func:`pertlab.builders.dumbbell` takes them (e.g. Surathkal's ``loss_response``)."""
    base = dumbbell(
        bw=f"{wireless_mbps}Mbps", rtt="20ms", flows=2, cc=cc, queue="ared", duration=mode.duration, warmup=mode.warmup,
        start_window="0s", buffer_pkts=BUFFER_PKTS, ecn=ecn, packet_size=WIRE_BYTES, aqm={"target_delay": ARED_TARGET}, seed=seed,
        cc_params=cc_params,
    ).to_wire()  # fmt: skip
    wired = {"rate": WIRED_RATE, "delay": WIRED_DELAY, "queue": {"limit_pkts": 1000}}
    flows = [{**f, "src": f"s{i}", "dst": "mh"} for i, f in enumerate(base["flows"])]
    return Scenario.parse({
        "seed": seed, "duration_ns": base["duration_ns"], "measure": base["measure"],
        "nodes": ["s0", "s1", "r", "ap", "mh"],
        "links": [
            {"a": "s0", "b": "r", **wired}, {"a": "s1", "b": "r", **wired}, {"a": "r", "b": "ap", **wired},
            {"name": "bottleneck", "a": "ap", "b": "mh", "rate": f"{wireless_mbps}Mbps", "delay": WIRELESS_DELAY,
             "loss": error, "loss_ba": error if ack_errors else 0.0, "queue": base["dumbbell"]["bottleneck_queue"]},
        ],
        "flows": flows,
    })  # fmt: skip


def flow_row(scenario: Scenario) -> dict[str, Any]:
    """Run ``scenario``: its flows' goodput summed over each label, the bottleneck's utilization
    and time-averaged queue, and loss counters (one dict, labels as ``goodput_<label>``)."""
    r = run(scenario)
    f = r.flows
    row: dict[str, Any] = {
        "goodput_mbps": float(f["goodput_mbps"].sum()), "ecn_reductions": int(f["ecn_reductions"].sum()),
        "retransmits": int(f["retransmits"].sum()), "timeouts": int(f["timeouts"].sum()),
        "utilization": float(r.bottleneck["utilization"]), "avg_queue_pkts": float(r.bottleneck["avg_queue_pkts"]),
    }  # fmt: skip
    return row


def suite_row(scenario: Scenario) -> dict[str, Any]:
    """Run an evaluation-suite ``scenario`` (S4-B): the forward bottleneck's utilization, its
    time-averaged queue as a percentage of the buffer (Figs. 4.11, 4.14: "% mean queue"), its drop
    and mark rates over every packet that reached it, the forward FTP flows' goodput, and the
    fraction of the forward UDP sources' packets lost (voice and streaming: traffic that is not
    ECN-capable, so an AQM can only drop it)."""
    r = run(scenario)
    b, f, u = r.bottleneck, r.flows, r.udp.filter(r.udp["src"].str.starts_with("s"))
    buffer = scenario.dumbbell.bottleneck_queue.limit_pkts
    forward = f.filter(f["src"].str.starts_with("s"))  # the reverse FTP flows send from the d hosts
    return {
        "utilization": float(b["utilization"]), "queue_pct": 100 * float(b["avg_queue_pkts"]) / buffer,
        "drop_rate": b["drop_rate"], "mark_rate": b["mark_rate"],
        "ftp_goodput_mbps": float(forward["goodput_mbps"].sum()), "timeouts": int(f["timeouts"].sum()),
        "udp_loss": rate(int(u["dropped"].sum()), int(u["sent"].sum())),
    }  # fmt: skip


def fairness_row(scenario: Scenario) -> dict[str, Any]:
    """Run a half-SACK, half-Surathkal ``scenario`` (Figs. 4.6, 4.7): each class's mean goodput
    per flow, Eq. 4.4.1 over every flow's goodput (``jain_flows``) and over the two class means
    (``jain_classes``, the other reading of the thesis's "fairness ratio"; spec 6, item 14). The
    index (:func:`pertlab._core.jain_index`, the one definition) and the ratio are None where
    nothing was delivered to divide by."""
    f = run(scenario).flows
    by = {label: f.filter(f["label"] == label)["goodput_mbps"].to_list() for label in ("sack", "surathkal")}
    means = {label: sum(xs) / len(xs) for label, xs in by.items()}
    return {
        "sack_mbps": means["sack"], "surathkal_mbps": means["surathkal"], "ratio": means["surathkal"] / means["sack"] if means["sack"] > 0 else None,
        "jain_flows": jain(by["sack"] + by["surathkal"]), "jain_classes": jain(list(means.values())),
        "jain_sack": jain(by["sack"]), "jain_surathkal": jain(by["surathkal"]),
    }  # fmt: skip
