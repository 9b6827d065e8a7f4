"""Scenarios of Hua's MPhil thesis (CUHK 2002), Chapter 5: WTP and S-WTP for
proportional delay differentiation on one link (Figure 5.2's R1 -> R2).

Choices where the thesis is silent (spec vegas-jcc-swtp-hua.md, section 4.4;
docs/model.md, "Multi-class scheduling"):

- **Link** (not given): 80 Mbit/s with a buffer of 100 000 packets per class,
  so no packet is lost (the thesis assumes no loss); 1 ms each way. Delays are
  counted in transmission times of the mean departing packet.
- **Sources**: the thesis's "Pareto, shape 1.9" read as ns-2 Pareto on/off
  sources (the spec's other reading), :data:`SOURCES_PER_CLASS` per class with
  mean burst = mean idle = :data:`BURST` (30 ms: 55 to 80 packets per burst at
  a source's peak at U = 0.95 with 4 to 6 classes; spec section 4.4, GAP). The
  burst in packets, not the rate, sets the differentiation: the top class's
  wait has a floor of about one transmission time, so the top pair falls short
  of the target by that floor over the top class's mean wait, under WTP as under
  S-WTP (docs/reproductions.md, "hua02-swtp"; crates/pertlab-sim/tests/class_sched.rs).
- **Sizes**: the thesis's mix, 40 % 100 B, 40 % 500 B, 20 % 1000 B, for every class.
- **Class loads**: a total utilization U split among classes (equal unless a
  figure gives the split); :func:`pertlab.scenario.class_rates`.
- **Weights**: b_i = ratio^i, class 0 (the thesis's class 1) the lowest.
"""

from __future__ import annotations

from ..scenario import Scenario, class_rates

__all__ = ["LINK_RATE_BPS", "SOURCES_PER_CLASS", "BURST", "classed_link", "weights"]

#: Not in the thesis: the rate of R1 -> R2 (with :data:`BURST`, it sets the packets per burst).
LINK_RATE_BPS = 80_000_000
#: Not in the thesis: Pareto on/off sources per class (Section 5.4, Fig 5.2: "a number of
#: connections ... each consists of several flows which belong to different classes").
SOURCES_PER_CLASS = 4
#: Mean burst = mean idle time of each Pareto on/off source. The thesis gives only the shape
#: (1.9; spec vegas-jcc-swtp-hua.md section 4.4, GAP: "source model"), not the burst period.
#: 30 ms is the shortest of 10, 20, 30 and 50 ms at which WTP's and S-WTP's 6-class top pair
#: comes within 3 % of 2.0 over ten seeds (1.97; 1.89 at 10 ms, 1.93 at 20 ms; Table 5.1: 1.96); longer
#: bursts gain nothing on the mean and scatter more between seeds (docs/reproductions.md).
BURST = "30ms"
#: Not in the thesis: a per-class buffer deep enough that nothing is lost.
BUFFER_PKTS = 100_000
#: Thesis 5.4: the mean of the size mix, 0.4 x 100 + 0.4 x 500 + 0.2 x 1000 bytes.
MEAN_PACKET_BYTES = 440


def weights(classes: int, ratio: float) -> list[float]:
    """b_i = ratio^i for classes 0 .. classes - 1: the target d_i / d_{i+1} = ratio (thesis 5.4)."""
    return [ratio**i for i in range(classes)]


def classed_link(
    kind: str, split: list[float], utilization: float, *, ratio: float = 2.0, packets: int = 1_000_000, window_k: int = 1000,
    global_update: bool = True, seed: int = 1, trace_packets: int = 0, burst: str = BURST,
) -> Scenario:  # fmt: skip
    """Figure 5.2's link under scheduler ``kind`` ("wtp", "swtp", ...), loaded to
    ``utilization`` with class loads in proportions ``split``, run long enough for about
    ``packets`` departures; the first 2 % of the run is left out of the metrics. The link
    keeps the waits of its first ``trace_packets`` departures after that one by one (Fig 5.3).
    ``burst``: the sources' mean burst and idle time."""
    rates = class_rates(LINK_RATE_BPS, utilization, split)
    sched: dict = {"weights": weights(len(split), ratio), "window_k": window_k}
    if trace_packets:
        sched["trace_packets"] = trace_packets
    if kind == "swtp":
        sched["global_update"] = global_update
    duration_s = packets * MEAN_PACKET_BYTES * 8 / (LINK_RATE_BPS * min(utilization, 1.0))
    udp = [
        {"src": "a", "dst": "b", "rate": f"{max(1, round(r / SOURCES_PER_CLASS))}bps", "packet_size": MEAN_PACKET_BYTES, "arrivals": "pareto_onoff",
         "sizes": "mix", "class": c, "burst": burst, "idle": burst}
        for c, r in enumerate(rates) for _ in range(SOURCES_PER_CLASS)
    ]  # fmt: skip
    return Scenario.parse({
        "seed": seed, "duration": f"{duration_s:.3f}s", "measure": {"start": f"{0.02 * duration_s:.3f}s", "end": f"{duration_s:.3f}s"},
        "nodes": ["a", "r", "b"],
        "links": [
            {"a": "a", "b": "r", "rate": "10Gbps", "delay": "1ms"},
            {"name": "R1-R2", "a": "r", "b": "b", "rate": f"{LINK_RATE_BPS}bps", "delay": "1ms",
             "queue": {"kind": kind, "limit_pkts": BUFFER_PKTS, "sched": sched}},
        ],
        "udp": udp,
    })  # fmt: skip
