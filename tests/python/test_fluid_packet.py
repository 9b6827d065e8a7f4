"""Cross-check: the packet simulator's PERT dumbbell sits at the fluid
equilibrium (docs/fluid.md, "Packet cross-check").

50 Mbps (1500-byte packets: C = 4166.7 pkt/s), 60 ms propagation RTT, 30 PERT
flows with the Section 3 response (5/10/20 ms, p_max 0.05, decrease 35 %),
buffer = BDP; 100 s, metrics over 40..100 s. The fluid operating point with
R = T_p + T_q: W* = R* C / N, p(T_q*) = 1 / (0.35 W*^2).
"""

from __future__ import annotations

import polars as pl

import pertlab
from pertlab.fluid import pert_operating_point

BW, RTT, N, WARMUP = 50e6, 0.06, 30, 40.0


def test_packet_pert_dumbbell_matches_fluid_equilibrium():
    sc = pertlab.dumbbell(bw="50Mbps", rtt="60ms", flows=N, cc="pert", duration="100s", warmup="40s",
                          sample_interval="100ms", packet_size="1500B")  # fmt: skip
    res = pertlab.run(sc)
    C = BW / (8 * 1500)
    eq = pert_operating_point(C, RTT, N)
    w = res.flow_series.filter(pl.col("t_s") >= WARMUP)["cwnd"].mean()
    b = res.bottleneck
    tq = b["avg_queue_pkts"] / C
    print(f"packet: W {w:.2f} pkts, T_q {tq * 1e3:.2f} ms, util {b['utilization']:.3f}; "
          f"fluid: W* {eq.w_star:.2f}, T_q* {eq.tq_star_s * 1e3:.2f} ms")  # fmt: skip
    assert b["drops"] == 0  # all congestion signals are PERT's early responses
    assert abs(w / eq.w_star - 1) < 0.15
    assert abs(tq / eq.tq_star_s - 1) < 0.15
