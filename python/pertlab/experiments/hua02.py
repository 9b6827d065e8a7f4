"""Scenarios of Hua's MPhil thesis (CUHK 2002): Chapter 3's parking lot of
congested gateways under TCP Vegas (Figure 3.1) and Chapter 4's Joint
Congestion Control (JCC) against Reno on one bottleneck.

Choices where the thesis is silent (spec vegas-jcc-swtp-hua.md, sections 2.3
and 6; docs/reproductions.md):

- **Figure 3.1**: 2 Mbit/s between gateways and 10 Mbit/s access links (the
  thesis's), 10 ms per gateway link and 2 ms per access link, DropTail buffers
  of 50 packets (ns-2's default), 1000-byte packets (ns-2's ``packetSize_``),
  Vegas alpha = 1, beta = 3 (ns-2's). Every connection's base RTT is the long
  connection's ("propagation delay and transmission time are the same for all
  connections", :func:`pertlab.builders.parking_lot` ``equal_rtt``).
- **Starts**: every flow starts at t = 0. With starts spread over even one
  second, a flow that starts into a queue takes that queue for part of its
  base RTT and holds more packets than Vegas means it to (the over-estimation
  the thesis sets aside, Section 3.3): at N = 4, two flows per connection, the
  cross flows of the middle link then took 1.60 and 0.13 Mbit/s and the long
  flows 0.10 and 0.09 instead of 0.25 each (docs/reproductions.md).
- **Chapter 4's network** (Fig 4.5, not described): a dumbbell, 100 ms RTT,
  1000-byte packets, 50-packet buffer; the routers run RED with old ns-2's
  defaults (min_th 5, max_th 15, q_w 0.002, max_p 0.1, not gentle; spec 6.2),
  as "jcc-red" for JCC and plain RED for Reno ("under the same conditions"),
  with m = 8 bits. The bottleneck is 1 Mbit/s where the thesis says so (Fig
  4.8's four flows); the loss-against-flows runs (Fig 4.10) use 10 Mbit/s, as
  at 1 Mbit/s forty flows of one segment each already hold 40 packets against
  a 12.5-packet pipe: every flow is at its one-segment floor and both schemes
  lose a fifth to a quarter of their packets (17 % and 25 %).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ..builders import dumbbell, parking_lot
from ..scenario import Scenario

__all__ = ["LotRun", "vegas_lot", "jcc_lot", "lot_connections", "PAYLOAD_FRACTION", "jcc_dumbbell", "JCC_RED", "staggered"]

#: Core rate, access rate of Figure 3.1 (Section 3.4).
CORE_RATE, ACCESS_RATE = "2Mbps", "10Mbps"
#: Not in the thesis (spec 2.3 GAP): per-link delays, buffer (ns-2 default 50), packet size (ns-2 default 1000 B).
CORE_DELAY, ACCESS_DELAY, BUFFER_PKTS, PACKET_BYTES = "10ms", "2ms", 50, 1000
#: Goodput counts payload: 1000-byte packets carry 960 bytes of it (40 bytes of TCP/IP header).
PAYLOAD_FRACTION = (PACKET_BYTES - 40) / PACKET_BYTES


@dataclass(frozen=True)
class LotRun:
    """Figure 3.1 with ``gateways`` gateways: the long connection's ``flows`` flows and
    ``cross[i]`` flows on link i."""

    gateways: int
    flows: int
    cross: tuple[int, ...]

    @classmethod
    def several(cls, gateways: int, m: int) -> LotRun:
        """Every cross connection active with m flows (Exp. 3.4.2, 3.4.3 case 2)."""
        return cls(gateways, m, (m,) * (gateways - 1))

    @classmethod
    def one(cls, gateways: int, m: int) -> LotRun:
        """Only connection 1 active, with 3m flows (Exp. 3.4.3 case 1)."""
        return cls(gateways, m, (3 * m,) + (0,) * (gateways - 2))


def vegas_lot(
    run: LotRun, cc: str = "vegas", duration: str = "100s", warmup: str = "20s", seed: int = 1, buffer_pkts: int = BUFFER_PKTS, base_rtt: str = "observed",
) -> Scenario:  # fmt: skip
    """Figure 3.1 as a scenario (choices in the module doc), DropTail gateways of ``buffer_pkts``.
    ``base_rtt`` is the Vegas flows' source of baseRTT: "observed" (Vegas's, the least RTT
    measured) or "propagation" (the path's propagation and transmission delays, Hua's d~ of
    eq. 3.7, which the thesis's analysis takes as baseRTT)."""
    s = _lot(run, cc, "droptail", None, duration, warmup, seed, buffer_pkts)
    if base_rtt == "observed":
        return s
    wire = s.to_wire()
    for f in wire["flows"]:
        if f["cc"]["kind"] == "vegas":
            f["cc"]["base_rtt"] = base_rtt
    return Scenario.parse(wire)


def jcc_lot(run: LotRun, duration: str = "100s", warmup: str = "20s", seed: int = 1) -> Scenario:
    """Figure 3.1 with JCC flows and jcc-red gateways (Section 4.3.5: "the same multiple-hop
    network ... and the same simulation experiments with JCC"), RED as :data:`JCC_RED`."""
    return _lot(run, "jcc", "jcc-red", JCC_RED, duration, warmup, seed, BUFFER_PKTS)


def _lot(run: LotRun, cc: str, queue: str, aqm: dict | None, duration: str, warmup: str, seed: int, buffer_pkts: int) -> Scenario:
    return parking_lot(
        routers=run.gateways, hosts=1, cc=cc, queue=queue, aqm=aqm, duration=duration, warmup=warmup, start_window="0s", seed=seed,
        long_flows=run.flows, cross_flows=list(run.cross), equal_rtt=True, buffer_pkts=buffer_pkts, packet_size=PACKET_BYTES,
        core_rate=CORE_RATE, core_delay=CORE_DELAY, access_rate=ACCESS_RATE, access_delay=ACCESS_DELAY,
    )  # fmt: skip


def lot_connections(run: LotRun, flows: pl.DataFrame) -> pl.DataFrame:
    """One row per connection (0 the long one, i link i's cross traffic): flows, wire
    throughput of the connection and per flow (bit/s, goodput / payload fraction), the
    mean backlog a flow holds, Δ = rate x (mean RTT - least RTT) in packets (eq. 3.3), and
    how far its flows' least RTT (Vegas's baseRTT) lies above the smallest of the run, ms
    (every base RTT is equal, so this is the queue a flow took for propagation), and the
    mean R its probing ACKs echoed (JCC; null for others)."""
    ids = []
    for i, c in enumerate(run.cross):
        ids += [i + 1] * c
    ids += [0] * run.flows
    f = flows.sort("id").with_columns(pl.Series("connection", ids))
    wire = pl.col("goodput_mbps") * 1e6 / PAYLOAD_FRACTION
    backlog = wire / (8 * PACKET_BYTES) * (pl.col("rtt_mean_ms") - pl.col("rtt_min_ms")) / 1000
    return (
        f.with_columns(wire.alias("bps"), backlog.alias("backlog_pkts"), (pl.col("rtt_min_ms") - pl.col("rtt_min_ms").min()).alias("base_excess_ms"))
        .group_by("connection")
        .agg(pl.len().alias("flows"), pl.col("bps").sum().alias("bps"), pl.col("bps").mean().alias("bps_per_flow"), pl.col("backlog_pkts").mean(), pl.col("base_excess_ms").mean(), pl.col("mean_r").mean())
        .sort("connection")
    )


#: RED of Chapter 4's routers: old ns-2's defaults (spec 6.2), max_p = 1 / l_interm = 0.1.
JCC_RED = {"min_th": 5, "max_th": 15, "q_w": 0.002, "l_interm": 10, "gentle": False}
#: The day ns-2's default for RED's ``gentle_`` changed from false to true (the comment beside
#: ``Queue/RED set gentle_ true`` in ns-2.35's tcl/lib/ns-default.tcl: "changed from false to
#: true on Apr 23, 2001"), a year before the thesis (2002), which does not name its ns-2
#: version. The same file dates the automatic thresholds and weight (``thresh_ 0``,
#: ``q_weight_ -1``) to 12/29/01, so ns-2 ran 5 / 15 / 0.002 with gentle from April to
#: December 2001 and without it before. The runs keep the spec's choice (not gentle, spec
#: 6.2), and ``hua02-jcc`` runs Fig 4.10 with gentle beside it.
GENTLE_DEFAULT_SINCE = "2001-04-23"


def jcc_dumbbell(
    cc: str, flows: int | None, bw: str = "1Mbps", duration: str = "200s", warmup: str = "50s", seed: int = 1, alpha: float | None = None,
    sample_interval: str | None = None, rtt: str | list[str] = "100ms", halve_on_loss: bool | None = None, q_w: float | None = None,
    gentle: bool | None = None,
) -> Scenario:  # fmt: skip
    """Chapter 4's dumbbell (choices in the module doc): ``cc`` a controller or a mix
    ("jcc:2,reno:2", ``flows`` None) over "jcc-red" when JCC is in it, else plain RED with the
    same parameters; ``rtt`` one RTT or one per flow (Fig 4.9). ``alpha`` and ``halve_on_loss``
    set the JCC flows' parameters, ``q_w`` RED's averaging weight instead of old ns-2's 0.002,
    ``gentle`` RED's gentle mode instead of off (:data:`GENTLE_DEFAULT_SINCE`)."""
    jcc = any(part.split(":")[0].strip() == "jcc" for part in cc.split(","))
    aqm = JCC_RED | {k: v for k, v in (("q_w", q_w), ("gentle", gentle)) if v is not None}
    s = dumbbell(
        bw=bw, rtt=rtt, flows=flows, cc=cc, queue="jcc-red" if jcc else "red", duration=duration, warmup=warmup, start_window="1s", seed=seed,
        packet_size=PACKET_BYTES, buffer_pkts=BUFFER_PKTS, aqm=aqm, sample_interval=sample_interval,
    )  # fmt: skip
    params = {k: v for k, v in (("alpha", alpha), ("halve_on_loss", halve_on_loss)) if v is not None}
    if not params:
        return s
    wire = s.to_wire()
    for f in wire["flows"]:
        if f["cc"]["kind"] == "jcc":
            f["cc"].update(params)
    return Scenario.parse(wire)


def staggered(scenario: Scenario, every_s: float) -> Scenario:
    """Flow i starts at i x ``every_s`` seconds (Fig 4.8: 0, 50, 100, 150 s)."""
    wire = scenario.to_wire()
    for i, f in enumerate(wire["flows"]):
        f.pop("start_window_ns", None)
        f["start_ns"] = int(i * every_s * 1e9)
    return Scenario.parse(wire)
