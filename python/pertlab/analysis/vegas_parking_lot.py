"""Equilibrium of TCP Vegas on a parking lot of congested gateways (Hua, MPhil
thesis, CUHK 2002, Section 3.3, eqs. 3.5 to 3.13; spec section 2.5).

The network is Hua's Figure 3.1: ``hops`` gateway-to-gateway links of equal
capacity C in a chain; a long connection of ``flows`` flows crosses all of
them, and link i also carries ``cross_flows[i]`` one-hop flows. Every flow runs
Vegas, which holds its own backlog in the network, Δ = x · Σ(queueing delays on
its path) (eqs. 3.1 to 3.3 with 3.8), between alpha and beta packets. With the
same Δ for every flow, every link with cross traffic saturated and no flow
window-limited, the equilibrium is the one that maximises Σ Δ log x
(proportional fairness, Low et al. 2002), which on this topology is closed form:

- long flow: x0 = C / (m + Σ c_i), with m = ``flows`` and c_i = ``cross_flows[i]``;
- cross flow on link i (c_i > 0): x_i = (C - m x0) / c_i;
- queueing delay of link i: Δ / x_i seconds (zero on links without cross
  traffic, which the long flows alone cannot fill), so link i holds
  n_i = Δ C / x_i packets (rates in packets/s): c_i Δ of its cross flows plus
  m Δ x0 / x_i of the long flows, whose backlog spreads over the congested
  links in proportion to their delays (eq. 3.13 when these are equal);
- no cross traffic at all: the long flows alone fill every link (x0 = C / m)
  and their backlog, n_1 = m Δ packets, queues at the first link, since the
  later ones receive the first one's output, at most C (eq. 3.11's case 1 with
  the first gateway; pertlab's simulator puts it there too). The
  proportionally fair optimum leaves this split open (the links' rows of the
  routing matrix coincide, so Low et al.'s unique-price condition fails); the
  path's total delay Δ / x0 is all the equations fix.

Either way the long flow's queueing delays add up to Δ / x0, so its window is
W = x0 · d̃ + Δ (its base window plus its backlog) and Σ n_i = Δ C / x0.

The shares do not depend on Δ; the queues do, linearly, so they are given at
Δ = alpha and Δ = beta (the band Vegas allows). Beside them, eqs. 3.9 and 3.10
evaluated with the long flow's window W = x0 · RTT: the backlog it sees,
M = Δ/(W - Δ) · d̃/τ, equals Σ n_i (a check of the closed form against the
thesis's algebra), and the bounds of eq. 3.12 on the largest per-gateway
backlog, M/N <= n <= M.

What is left out: the thesis's reverse path (ACK queues, taken as empty), the
over-estimation of baseRTT by flows that start into a queue (the thesis ignores
it too), window limits (the closed form reports W so that a caller can compare
it with a receiver window) and the integer granularity of windows.

Vegas only bounds Δ to [alpha, beta], so flows may hold different backlogs, and
the shares move with them: with D0 the long connection's total backlog and D_i
that of link i's cross connection, the same argument gives the long connection
C · D0 / (D0 + Σ D_i) (the proportionally fair allocation weighted by Δ).
``backlog_long`` and ``backlog_cross`` (mean Δ per flow of each connection)
give the shares for measured backlogs; the queues stay those of equal ones.
"""

from __future__ import annotations

import math

from dataclasses import asdict, dataclass


__all__ = ["VegasParkingLot", "vegas_parking_lot", "DEFAULT_CAPACITY_BPS", "DEFAULT_PACKET_BYTES"]

#: Gateway-to-gateway link rate of Hua's Figure 3.1 (Section 3.4): 2 Mbit/s.
DEFAULT_CAPACITY_BPS = 2_000_000
#: Packet size: not given by the thesis; ns-2's ``packetSize_`` default, 1000 bytes (spec section 6.1).
DEFAULT_PACKET_BYTES = 1000
#: Vegas alpha and beta in packets: not given by the thesis; ns-2's ``v_alpha_``, ``v_beta_`` (spec section 6.1).
DEFAULT_ALPHA, DEFAULT_BETA = 1.0, 3.0


@dataclass(frozen=True)
class VegasParkingLot:
    """The closed-form equilibrium; rates in bit/s, queues in packets, times in seconds."""

    hops: int
    flows: int
    cross_flows: list[int]
    capacity_bps: float
    packet_bytes: int
    base_rtt_s: float
    alpha: float
    beta: float
    #: Per-flow throughput of the long connection and of each link's cross flows (0 where none).
    long_flow_bps: float
    cross_flow_bps: list[float]
    #: Max-min fair share of a long flow: the least of C / (m + c_i) over the links.
    fair_share_bps: float
    #: Per-link total queue (all flows) at Δ = alpha and at Δ = beta.
    queue_pkts_alpha: list[float]
    queue_pkts_beta: list[float]
    #: Eq. 3.10's M at Δ = alpha and beta, from the long flow's window (equals the sums of the queues).
    backlog_eq310_alpha: float
    backlog_eq310_beta: float
    #: The long flow's window (packets) at Δ = alpha and beta.
    long_window_alpha: float
    long_window_beta: float
    #: Eq. 3.12's bounds on the largest per-gateway backlog at Δ = beta: M/N and M, N the links holding a queue.
    bound_eq312_low: float
    bound_eq312_high: float

    def as_dict(self) -> dict:
        return asdict(self)


def vegas_parking_lot(
    hops: int,
    flows: int,
    cross_flows: list[int] | None = None,
    *,
    capacity_bps: float = DEFAULT_CAPACITY_BPS,
    packet_bytes: int = DEFAULT_PACKET_BYTES,
    base_rtt_s: float = 0.1,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    backlog_long: float | None = None,
    backlog_cross: list[float] | None = None,
) -> VegasParkingLot:
    """The equilibrium of ``flows`` long Vegas flows across ``hops`` links with
    ``cross_flows[i]`` one-hop flows on link i (default ``flows`` on every link, Hua's
    Exp. 3.4.2); ``base_rtt_s`` is d̃ of eq. 3.7 (propagation plus service times);
    ``backlog_long``, ``backlog_cross``: mean Δ per flow of each connection (default equal)."""
    cross = [flows] * hops if cross_flows is None else list(cross_flows)
    errors = []
    if hops < 1:
        errors.append(("hops", f"need at least 1 congested link, got {hops}"))
    if flows < 1:
        errors.append(("flows", f"need at least 1 long flow, got {flows}"))
    if hops >= 1 and (len(cross) != hops or any(c < 0 for c in cross)):
        errors.append(("cross_flows", f"one count (zero or positive) per link, {hops} in all; got {cross_flows}"))
    for name, v in (("capacity_bps", capacity_bps), ("packet_bytes", packet_bytes), ("base_rtt_s", base_rtt_s)):
        if not v > 0:
            errors.append((name, f"must be positive, got {v}"))
    if not 0 < alpha <= beta < math.inf:
        errors.append(("alpha, beta", f"need 0 < alpha <= beta, both finite, got alpha {alpha}, beta {beta}"))
    d0 = 1.0 if backlog_long is None else backlog_long
    dc = [1.0] * len(cross) if backlog_cross is None else list(backlog_cross)
    if not d0 > 0:
        errors.append(("backlog_long", f"must be positive, got {backlog_long}"))
    if len(dc) != len(cross) or not all(d > 0 for d in dc):
        errors.append(("backlog_cross", f"one positive backlog per link, {len(cross)} in all; got {backlog_cross}"))
    if errors:
        from ..scenario import ScenarioError  # pydantic's import cost only on bad input

        raise ScenarioError(errors)
    m = flows
    # Long connection's share C · D0 / (D0 + Σ D_i); the rest of each congested link to its cross flows.
    x0 = capacity_bps * d0 / (m * d0 + sum(c * d for c, d in zip(cross, dc)))
    rest = capacity_bps - m * x0
    xc = [rest / c if c else 0.0 for c in cross]
    pkt_bits = 8 * packet_bytes
    # Each link's queueing delay per packet of Δ (seconds): 1 / x_i where cross flows saturate it, none
    # elsewhere; without any cross flow the long flows' 1 / x0 sits at the first link (module doc).
    if any(cross):
        delay_per_pkt = [pkt_bits / xc[i] if cross[i] else 0.0 for i in range(hops)]
    else:
        delay_per_pkt = [pkt_bits / x0] + [0.0] * (hops - 1)
    congested = [i for i, d in enumerate(delay_per_pkt) if d]

    def queues(delta: float) -> list[float]:
        # Link i's queueing delay at Δ = delta, in packets at rate C.
        return [delta * d * capacity_bps / pkt_bits for d in delay_per_pkt]

    def window(delta: float) -> float:
        # Long flow: x0 (packets/s) times its RTT, d̃ + Σ queueing delays (eq. 3.8).
        return x0 / pkt_bits * (base_rtt_s + delta * sum(delay_per_pkt))

    def backlog_eq310(delta: float) -> float:
        w = window(delta)
        return delta / (w - delta) * base_rtt_s / (pkt_bits / capacity_bps)

    fair = min(capacity_bps / (m + c) for c in cross)
    m_beta = backlog_eq310(beta)
    return VegasParkingLot(
        hops=hops, flows=flows, cross_flows=cross, capacity_bps=float(capacity_bps), packet_bytes=packet_bytes,
        base_rtt_s=base_rtt_s, alpha=alpha, beta=beta, long_flow_bps=x0, cross_flow_bps=xc, fair_share_bps=fair,
        queue_pkts_alpha=queues(alpha), queue_pkts_beta=queues(beta),
        backlog_eq310_alpha=backlog_eq310(alpha), backlog_eq310_beta=m_beta,
        long_window_alpha=window(alpha), long_window_beta=window(beta),
        bound_eq312_low=m_beta / len(congested), bound_eq312_high=m_beta,
    )  # fmt: skip
