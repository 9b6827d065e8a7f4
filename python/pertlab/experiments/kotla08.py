"""Kotla, "Adapting a Delay-based Protocol to Heterogeneous Environments" (MS
thesis, Texas A&M 2008): adaptive PERT against TCP-SACK and alone.

Common setup (Section V.A, STATED): ns-2 dumbbell, drop-tail bottleneck of
150 Mbit/s, 60 ms RTT, buffer = 1 BDP and at least 2 x flows, 400 s runs with
metrics over 100..300 s, starts uniform in (0, 10) s. Scenarios are extracted in
shared/spec/pert-theses-kotla-qian.md (Part A.6, K1..K27).

Choices where the thesis is silent (docs/reproductions.md, "Kotla 2008"):

- **Packets** of 1000 bytes of payload, 1040 on the wire with ns-2's 40-byte
  header: the thesis's BDP of 1123 packets at 150 Mbit/s x 60 ms is about
  1125 packets of 1000 bytes (DERIVED). The buffer is ``k`` x this BDP
  (payload packets, as the thesis counts it), at least 2 x flows.
- **TCP**: SACK is Reno window rules with SACK recovery; ns-2's timers
  (:data:`pertlab.builders.NS2_TCP`). PERT is ``pert-adaptive`` with its
  defaults (docs/model.md); "original PERT" is ``pert`` (PERT/RED).
- **Delay split, access links**: :func:`pertlab.builders.dumbbell`'s.
- **Phase effects**: every scenario of many flows adds ns-2's random send
  overhead (:data:`SEND_OVERHEAD`, ``tcp.overhead``). With the thesis's equal
  RTTs on deterministic links, which flow loses the packets that overflow a
  drop-tail queue is otherwise decided by timing (Floyd and Jacobson 1992):
  100 identical SACK flows get a Jain index of 0.85 without it and 0.99 with it,
  and 50 AIMD(2) flows against 50 SACK get 0.33 of the link without it and 0.57
  with it (theory 0.586). :func:`phase_points` (``kotla08-phase``) shows the
  mix both ways. Runs of one to four flows go without.
- **Drop ratio** = PERT's drop rate / SACK's (:func:`pertlab.results.drop_ratio`);
  **share** = a label's goodput / all long flows' goodput.

Quick modes keep the thesis's start phase and a shorter run, one seed; full modes are the
thesis's setup with seeds 1, 2 and 3 (the thesis states none and shows single runs: three
seeds show the spread, and the claims judge their mean).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import polars as pl

from .._core import jain_index
from ..builders import CC_NAMES, NS2_TCP, buffer_packets, dumbbell, parking_lot, parse_cc_mix
from ..parallel import Workers
from ..results import Results, drop_ratio
from ..scenario import Scenario
from ..sweep import Point, run_points, stored_results, summary_row

PERT = "pert-adaptive"
SACK = "sack"
#: Column prefixes of the labels in result tables.
SHORT = {PERT: "pert", SACK: "sack", "pert": "pert_orig"}
#: Payload and wire size of a packet (see the module doc).
PAYLOAD_BYTES = 1000
WIRE_BYTES = PAYLOAD_BYTES + 40


@dataclass(frozen=True)
class Mode:
    """Run length, measurement window and seeds."""

    name: str
    duration: str
    warmup: str
    measure_end: str
    seeds: tuple[int, ...]


#: Section V.A: 400 s, metrics over 100..300 s; three seeds (module doc).
FULL = Mode("full", "400s", "100s", "300s", (1, 2, 3))
#: Quick: the same start phase; metrics over 100..150 s (alpha has reached its target by 100 s).
QUICK = Mode("quick", "150s", "100s", "150s", (1,))


def mix(pert: int, sack: int, pert_cc: str = PERT, other: str = SACK) -> str:
    """The builder's mix string for ``pert`` flows of ``pert_cc`` and ``sack`` of ``other``."""
    return ",".join(f"{name}:{n}" for name, n in ((pert_cc, pert), (other, sack)) if n > 0)


#: ns-2's random send overhead (``Agent/TCP overhead_``) of the scenarios of many flows
#: (module doc): about 18 packet times of the 150 Mbit/s bottleneck, under 2 % of the RTT.
SEND_OVERHEAD = "1ms"


def kotla_dumbbell(
    cc: str, mode: Mode, seed: int, *, bw: float = 150e6, rtt_ms: float = 60.0, rtt_spread_ms: float = 0.0, buffer_bdp: float = 1.0,
    start_window: str = "10s", send_overhead: str = SEND_OVERHEAD, buffer_floor: bool = True, **kw: Any,
) -> Scenario:
    """A dumbbell of Section V.A: ``cc`` a builder mix ("pert-adaptive:50,sack:50"),
    ns-2's TCP timers and ``send_overhead`` ("0s": none). ``rtt_spread_ms`` > 0
    spreads each controller's flows evenly over ``rtt_ms`` +- ``rtt_spread_ms``
    (every controller gets the same RTTs). The buffer is ``buffer_bdp`` BDPs, at least two
    packets per flow unless not ``buffer_floor`` (Figure 22 sweeps below that)."""
    counts = [n for _, n in parse_cc_mix(cc, None)]
    flows = sum(counts)
    rtt: str | list[str] = f"{rtt_ms}ms"
    if rtt_spread_ms > 0:
        rtt = [f"{r:.6f}ms" for n in counts for r in np.linspace(rtt_ms - rtt_spread_ms, rtt_ms + rtt_spread_ms, n)]
    # The thesis counts its BDP (1123 packets at 150 Mbit/s, 60 ms) in 1000-byte payloads.
    limit = buffer_packets(int(bw), int(rtt_ms * 1e6), PAYLOAD_BYTES, buffer_bdp, flows if buffer_floor else 0)
    return dumbbell(
        bw=int(bw), rtt=rtt, flows=None, cc=cc, duration=mode.duration, warmup=mode.warmup,
        measure_end=mode.measure_end, start_window=start_window, seed=seed, packet_size=WIRE_BYTES, buffer_pkts=limit,
        tcp={**NS2_TCP, "overhead": send_overhead, **kw.pop("tcp", {})}, **kw,
    )  # fmt: skip


def short_name(label: str) -> str:
    """Column prefix of a flow label in result tables (:data:`SHORT`, else the label)."""
    return SHORT.get(label, label.replace("-", "_"))


def run_row(point: Point, results: Results) -> dict[str, Any]:
    """One row of a result table: the point's values, bottleneck metrics, Jain
    index, per label (``pert`` for adaptive PERT, ``pert_orig`` for PERT/RED,
    else the label) its share, drop rate and drop ratio (``pert_drop_ratio``,
    ...) to SACK when SACK is present, else to adaptive PERT (Figures 10 and 11:
    Illinois / PERT), and adaptive PERT's compete and high-speed residency."""
    row = summary_row(point, results)
    span = results.data["window_end_s"] - results.data["window_start_s"]
    labels = results.controllers["label"].to_list()
    reference = SACK if SACK in labels else PERT if PERT in labels else None
    for c in results.controllers.iter_rows(named=True):
        short = short_name(c["label"])
        row[f"{short}_share"] = c["share"]
        row[f"{short}_drop_rate"] = c["drop_rate"]
        row[f"{short}_goodput_mbps"] = c["goodput_mbps"]
        if reference is not None and c["label"] != reference:
            row[f"{short}_drop_ratio"] = drop_ratio(results, c["label"], reference)
    if results.flow_series.height:
        for label, dispersion in bandwidth_dispersion(results).items():
            row[f"{short_name(label)}_var_over_mean"] = dispersion
    pert_flows = results.flows.filter(pl.col("cc") == PERT)
    if pert_flows.height and span > 0:
        row["pert_compete_frac"] = float(pert_flows["compete_s"].mean()) / span
        row["pert_high_speed_frac"] = float(pert_flows["high_speed_s"].mean()) / span
    return row


def bandwidth_dispersion(results: Results) -> dict[str, float]:
    """Figure 6: per label, the mean over its flows of variance / mean of the flow's goodput
    (Mbit/s) measured once per sample interval inside the measurement window."""
    lo, hi = results.data["window_start_s"], results.data["window_end_s"]
    thr = results.flow_goodput().filter((pl.col("t_s") > lo) & (pl.col("t_s") <= hi))
    labels = results.flows.select(pl.col("id").alias("flow"), "label")
    per_flow = thr.join(labels, on="flow").group_by("label", "flow").agg((pl.col("mbps").var() / pl.col("mbps").mean()).alias("d"))
    return dict(per_flow.group_by("label").agg(pl.col("d").mean()).iter_rows())


def run_table(points: list[Point], out: Path, workers: Workers = Workers(), row: Callable[[Point, Results], dict[str, Any]] = run_row) -> pl.DataFrame:
    """Run (or reuse from ``out/runs``) every point; one row per point."""
    run_points(points, out, jobs=workers.jobs, cluster=workers.cluster)
    return pl.DataFrame([row(p, stored_results(p, out)) for p in points], infer_schema_length=None)


def points(make: Callable[[Any, int], Scenario], xs: list[Any], x: str, mode: Mode, extra: tuple[tuple[str, str], ...] = ()) -> list[Point]:
    return [Point(((x, str(v)), *extra), seed, make(v, seed)) for v in xs for seed in mode.seeds]


# ------------------------------------------------------------ K1/K2: the mix


MIX_FULL = list(range(0, 101, 5))
MIX_QUICK = [0, 50, 100]


def mix_points(mode: Mode) -> list[Point]:
    """Figures 4 to 6: 100 long flows, PERT's percentage 0..100 (the rest SACK); flow samples
    every second for Figure 6's variance / mean of each flow's bandwidth."""
    xs = MIX_QUICK if mode is QUICK else MIX_FULL
    return points(lambda pct, seed: kotla_dumbbell(mix(pct, 100 - pct), mode, seed, sample_interval="1s"), xs, "pert_percent", mode)


def fast_mix_points(mode: Mode) -> list[Point]:
    """Figure 7: 100 long flows, FAST's percentage 0..100 (the rest SACK); FAST with its defaults."""
    xs = MIX_QUICK if mode is QUICK else MIX_FULL
    return points(lambda pct, seed: kotla_dumbbell(mix(pct, 100 - pct, pert_cc="fast"), mode, seed), xs, "fast_percent", mode)


# ------------------------------------- K2: phase effects in the 50-50 mix


@dataclass(frozen=True)
class Phase:
    """The 50-50 mix of Figure 5 under what the thesis leaves open: the access-link
    rate (both ends; the thesis gives none, the builder's default is 10 x the
    bottleneck, 1.5 Gbit/s) and whether the equal-RTT phase lock is broken; ``mode``
    gives the run length and the seeds."""

    access_bps: tuple[float, ...]
    mode: Mode


PHASE_FULL = Phase((140e6, 1e9, 1.5e9, 10e9), FULL)
PHASE_QUICK = Phase((140e6, 1.5e9, 10e9), QUICK)
#: How the phase lock of equal RTTs on deterministic links is broken: not at all (the
#: thesis's setup as stated); ns-2's random send overhead (:data:`SEND_OVERHEAD`, the
#: other entries' setting); or RTTs spread over 58..62 ms, the same for both controllers.
PHASE_BREAKS: dict[str, dict[str, Any]] = {"none": {"send_overhead": "0s"}, "overhead": {}, "rtt_spread": {"send_overhead": "0s", "rtt_spread_ms": 2.0}}


def phase_points(setup: Phase) -> list[Point]:
    """50 adaptive PERT + 50 SACK flows for every phase breaker, access rate and seed."""
    return [
        Point((("breaker", b), ("access_mbps", f"{a / 1e6:g}")), seed, kotla_dumbbell(mix(50, 50), setup.mode, seed, access_rate=int(a), **kw))
        for b, kw in PHASE_BREAKS.items() for a in setup.access_bps for seed in setup.mode.seeds
    ]  # fmt: skip


# ----------------------------------------------------- K4: number of flows


FLOWS_FULL = [20, 50, 100, 200, 400, 600, 800, 1000]
FLOWS_QUICK = [20, 100]


def flows_points(mode: Mode) -> list[Point]:
    """Figure 8: a 50-50 mix of 20..1000 flows."""
    xs = FLOWS_QUICK if mode is QUICK else FLOWS_FULL
    return points(lambda n, seed: kotla_dumbbell(mix(n // 2, n - n // 2), mode, seed), xs, "flows", mode)


# ------------------------------------------------------- K5: buffer size


BUFFER_FULL = [0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]
BUFFER_QUICK = [0.25, 1.0, 4.0]


def buffer_points(mode: Mode) -> list[Point]:
    """Figure 9: 40 PERT + 40 SACK flows, buffer 0.25..4 BDP."""
    xs = BUFFER_QUICK if mode is QUICK else BUFFER_FULL
    return points(lambda k, seed: kotla_dumbbell(mix(40, 40), mode, seed, buffer_bdp=k), xs, "buffer_bdp", mode)


# ------------------------------------------- K6/K7: PERT against Illinois


def illinois_mix_points(mode: Mode) -> list[Point]:
    """Figure 10: 100 long flows, TCP-Illinois' percentage 0..100 (the rest adaptive PERT)."""
    xs = MIX_QUICK if mode is QUICK else MIX_FULL
    return points(lambda pct, seed: kotla_dumbbell(mix(100 - pct, pct, other="illinois"), mode, seed), xs, "illinois_percent", mode)


def illinois_flows_points(mode: Mode) -> list[Point]:
    """Figure 11: a 50-50 mix of adaptive PERT and TCP-Illinois, 20..1000 flows (the thesis
    gives no range; Figure 8's)."""
    xs = FLOWS_QUICK if mode is QUICK else FLOWS_FULL
    return points(lambda n, seed: kotla_dumbbell(mix(n // 2, n - n // 2, other="illinois"), mode, seed), xs, "flows", mode)


# ------------------------------------------------ K17: one flow, 2.4 Gbps


@dataclass(frozen=True)
class HighSpeed:
    """Figure 23: one flow on a high-BDP path (70 ms RTT), end-host link rates."""

    bottleneck_bps: float
    access_bps: tuple[float, ...]
    duration: str
    warmup: str
    seeds: tuple[int, ...]


HIGHSPEED_FULL = HighSpeed(2.4e9, (10e6, 100e6, 622e6, 1e9, 2.4e9), "200s", "50s", FULL.seeds)
#: Quick: 1 Gbit/s / 70 ms (a BDP of 8750 packets), 60 s.
HIGHSPEED_QUICK = HighSpeed(1e9, (1e9,), "60s", "20s", QUICK.seeds)
HIGHSPEED_SCHEMES = ("pert-adaptive", "pert", "sack")


def highspeed_points(setup: HighSpeed) -> list[Point]:
    """One flow of each scheme; the end-host links at ``access`` (both sides). Every link's
    buffer is one BDP of the slower of the end-host link and the bottleneck (where the queue
    forms when the end-host link is not faster)."""
    out = []
    for cc in HIGHSPEED_SCHEMES:
        for acc in setup.access_bps:
            limit = buffer_packets(int(min(acc, setup.bottleneck_bps)), 70_000_000, PAYLOAD_BYTES, 1.0, 1)
            for seed in setup.seeds:
                s = dumbbell(
                    bw=int(setup.bottleneck_bps), rtt="70ms", flows=1, cc=cc, duration=setup.duration, warmup=setup.warmup,
                    start_window="0s", packet_size=WIRE_BYTES, tcp=NS2_TCP, access_rate=int(acc), buffer_pkts=limit, seed=seed,
                ).to_wire()  # fmt: skip
                # The end-host link is the bottleneck when it is not faster: it gets the same buffer.
                s["dumbbell"]["access_queue"] = {"limit_pkts": limit}
                out.append(Point((("scheme", cc), ("access_mbps", f"{acc / 1e6:g}")), seed, Scenario.parse(s)))
    return out


def highspeed_row(point: Point, results: Results) -> dict[str, Any]:
    """Utilization of the slower of the end-host link and the bottleneck; losses in the window."""
    row = run_row(point, results)
    acc = float(dict(point.values)["access_mbps"]) * 1e6
    b = results.bottleneck or {}
    row["utilization"] = b["utilization"] * b["rate_bps"] / min(acc, b["rate_bps"])
    row["flow_drops"] = int(results.flows["drops"].sum())
    return row


# ------------------------------------------- K13: PERT only, 1..1000 flows


PERT_ONLY_FULL = [1, 10, 100, 250, 500, 1000]
PERT_ONLY_QUICK = [10, 100]


def pert_only_points(mode: Mode) -> list[Point]:
    """Figure 19: adaptive PERT alone on 500 Mbit/s (60 ms; the RTT is unstated)."""
    xs = PERT_ONLY_QUICK if mode is QUICK else PERT_ONLY_FULL
    return points(lambda n, seed: kotla_dumbbell(f"{PERT}:{n}", mode, seed, bw=500e6), xs, "flows", mode)


# ----------------------------------------- K20/K21: random channel losses


CHANNEL_FULL = [0.0, 1e-6, 1e-5, 1e-4, 1e-3]
CHANNEL_QUICK = [1e-5, 1e-3]


def lossy_dumbbell(cc: str, loss: float, mode: Mode, seed: int = 1) -> Scenario:
    """Figure 26a: one flow on 1 Gbit/s / 60 ms with Bernoulli loss on the bottleneck (data direction)."""
    s = kotla_dumbbell(f"{cc}:1", mode, seed, bw=1e9, send_overhead="0s").to_wire()
    s["dumbbell"]["bottleneck_loss"] = loss
    return Scenario.parse(s)


def wireless(cc: str, loss: float, mode: Mode, seed: int = 1) -> Scenario:
    """Figure 26b: source link 100 Mbit/s / 5 ms, wireless end-host link 55 Mbit/s / 20 ms
    with Bernoulli loss (data direction); buffer 1 BDP of the 50 ms path at 55 Mbit/s."""
    limit = buffer_packets(55_000_000, 50_000_000, PAYLOAD_BYTES, 1.0, 1)
    kind, sack = CC_NAMES[cc]
    tcp = {"packet_size": WIRE_BYTES, "sack": sack, **NS2_TCP}
    return Scenario.parse({
        "seed": seed, "duration": mode.duration, "measure": {"start": mode.warmup, "end": mode.measure_end},
        "nodes": ["src", "ap", "dst"],
        "links": [
            {"a": "src", "b": "ap", "rate": "100Mbps", "delay": "5ms", "queue": {"limit_pkts": 1000}},
            {"name": "bottleneck", "a": "ap", "b": "dst", "rate": "55Mbps", "delay": "20ms", "loss": loss,
             "queue": {"limit_pkts": limit}},
        ],
        "flows": [{"src": "src", "dst": "dst", "cc": kind, "label": cc, "start_window": ["0s", "10s"], "tcp": tcp}],
    })  # fmt: skip


def channel_points(mode: Mode) -> list[Point]:
    xs = CHANNEL_QUICK if mode is QUICK else CHANNEL_FULL
    out = []
    for cc in (PERT, SACK):
        for loss in xs:
            for seed in mode.seeds:
                out.append(Point((("path", "1gbps"), ("scheme", cc), ("loss", f"{loss:g}")), seed, lossy_dumbbell(cc, loss, mode, seed)))
                out.append(Point((("path", "wireless"), ("scheme", cc), ("loss", f"{loss:g}")), seed, wireless(cc, loss, mode, seed)))
    return out


# ------------------------------------------------------ K19: RTT noise


NOISE_FULL = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
NOISE_QUICK = [0, 50, 100]


def noise_scenario(cc: str, noise_ms: float, noisy: str, mode: Mode, seed: int = 1) -> Scenario:
    """Figure 25: two flows on 1 Mbit/s / 60 ms; uniform noise of mean ``noise_ms``
    added to the RTT samples of both flows (``noisy="both"``) or of the first."""
    s = kotla_dumbbell(f"{cc}:2", mode, seed, bw=1e6, send_overhead="0s").to_wire()
    for i, f in enumerate(s["flows"]):
        if noisy == "both" or i == 0:
            f["tcp"]["rtt_noise_ns"] = int(noise_ms * 1e6)
    return Scenario.parse(s)


def noise_points(mode: Mode) -> list[Point]:
    xs = NOISE_QUICK if mode is QUICK else NOISE_FULL
    return [
        Point((("scheme", cc), ("noisy", noisy), ("noise_ms", str(ms))), seed, noise_scenario(cc, ms, noisy, mode, seed))
        for cc in (PERT, SACK)
        for noisy in ("both", "one")
        for ms in xs
        for seed in mode.seeds
    ]


# --------------------------------------------- K15: six routers (Table I)


#: Table I (K15, modified PERT): per router link, drop rate, normalized queue, utilization (%), JFI.
TABLE1 = {
    "R1-R2": (0.0, 0.172138, 95.2394, 0.999875),
    "R2-R3": (0.0, 0.168135, 95.238, 0.999872),
    "R3-R4": (0.0, 0.17454, 95.2374, 0.969581),
    "R4-R5": (0.0, 0.172938, 95.2385, 0.999889),
    "R5-R6": (0.0, 0.164932, 95.2385, 0.99986),
}
#: Section VI.D: Jain index of the R1 -> R6 flows.
TABLE1_LONG_JFI = 0.92


#: Table I's flows start uniformly in this window (Section V.A's "(0, 10) s").
SIX_ROUTER_STARTS = "10s"
#: pertlab's test of why Table I's long flows share unfairly: every flow starts within this
#: window, so all see the same start-up queue (docs/reproductions.md, Table I).
SIX_ROUTER_STARTS_TOGETHER = "1ms"


def six_router_scenario(mode: Mode, seed: int = 1, start_window: str = SIX_ROUTER_STARTS) -> Scenario:
    """Figure 21: routers R1..R6 (150 Mbit/s, 5 ms), 20 hosts each on 1 Gbit/s / 5 ms;
    each cloud sends to the next, R1's cloud also to R6's (buffer: 1 BDP of the long path)."""
    return parking_lot(
        routers=6, hosts=20, cc=PERT, duration=mode.duration, warmup=mode.warmup, measure_end=mode.measure_end,
        start_window=start_window, seed=seed, packet_size=WIRE_BYTES, tcp={**NS2_TCP, "overhead": SEND_OVERHEAD},
    )  # fmt: skip


def six_router_table(results: Results, hosts: int = 20) -> pl.DataFrame:
    """Per router link: drop rate, normalized queue, utilization (%) and the Jain index
    of the flows that cross it (the thesis's JFI column; our reading), thesis's beside, and
    the Jain index of the link's one-hop flows alone (``jain_one_hop``)."""
    flows = results.flows
    rows = []
    for i, link in enumerate(TABLE1):
        q = results.queues.filter((pl.col("link") == link) & (pl.col("from") == f"R{i + 1}")).row(0, named=True)
        crossing = list(range(i * hosts, (i + 1) * hosts)) + list(range(5 * hosts, 6 * hosts))
        goodputs = flows.filter(pl.col("id").is_in(crossing))["goodput_mbps"].to_list()
        d, nq, u, j = TABLE1[link]
        rows.append({
            "link": link, "drop_rate": q["drop_rate"], "thesis_drop_rate": d, "avg_queue_norm": q["avg_queue_norm"],
            "thesis_avg_queue_norm": nq, "utilization_pct": 100 * q["utilization"], "thesis_utilization_pct": u,
            "jain": jain_index(goodputs), "thesis_jain": j, "jain_one_hop": jain_index(goodputs[:hosts]),
        })  # fmt: skip
    long = flows.filter(pl.col("id") >= 5 * hosts)["goodput_mbps"].to_list()
    rows.append({"link": "R1->R6 flows", "jain": jain_index(long), "thesis_jain": TABLE1_LONG_JFI})
    return pl.DataFrame(rows, infer_schema_length=None)


# ---------------------------------------- K23: three protocols (Table II)


#: Table II: bandwidth share (%) and drop rate, 33 flows each of SACK, Illinois and PERT.
TABLE2 = {"sack": (34.5888, 0.00275), "illinois": (21.3449, 0.00311), PERT: (44.0663, 0.00228)}


def table2_scenario(mode: Mode, seed: int = 1) -> Scenario:
    return kotla_dumbbell(f"{PERT}:33,illinois:33,{SACK}:33", mode, seed)


#: Table III: bandwidth share (%) and drop rate, 25 flows each of FAST, SACK, Illinois and PERT.
TABLE3 = {"fast": (82.5992, 0.00326), "sack": (6.8721, 0.0242), "illinois": (6.5698, 0.02499), PERT: (3.9588, 0.03598)}


def table3_scenario(mode: Mode, seed: int = 1) -> Scenario:
    return kotla_dumbbell(f"fast:25,{SACK}:25,illinois:25,{PERT}:25", mode, seed)


# ------------------------------------------------ K25: AQM (Table IV)


#: Table IV: normalized queue and drop rate, 20 flows on 100 Mbit/s / 60 ms, buffer = BDP.
TABLE4 = {("pert", "red"): (0.0214, 0.028), ("pert", "droptail"): (0.083, 0.0), ("sack", "red"): (0.016, 0.012), ("sack", "droptail"): (0.576, 0.0004)}


def table4_points(mode: Mode) -> list[Point]:
    """Each of PERT and SACK alone (20 flows) over RED (ns-2 defaults, gentle) or DropTail."""
    return [
        Point((("cc", cc), ("queue", queue)), seed, kotla_dumbbell(f"{PERT if cc == 'pert' else SACK}:20", mode, seed, bw=100e6, queue=queue))
        for cc in ("pert", "sack")
        for queue in ("red", "droptail")
        for seed in mode.seeds
    ]


# -------------------------------------------- K26: hysteresis (Table V)


#: Table V: normalized queue and drop rate at 100, 200 and 300 s.
TABLE5 = {100: (0.113, 0.0), 200: (0.760, 0.0196), 300: (0.753, 0.0190)}


def table5_scenario(window: tuple[int, int], seed: int = 1) -> Scenario:
    """80 PERT flows from 0 to 300 s, 80 SACK flows from 100 to 200 s on 150 Mbit/s / 60 ms;
    metrics over ``window`` (s). CHOICE: "at t" is read as the 50 s before t (the state at t,
    past the flows' start-up before 100 s)."""
    mode = Mode("t5", "300s", f"{window[0]}s", f"{window[1]}s", (seed,))
    s = kotla_dumbbell(mix(80, 80), mode, seed).to_wire()
    for f in s["flows"][80:]:
        f.pop("start_window_ns", None)
        f["start_ns"], f["stop_ns"] = 100 * 10**9, 200 * 10**9
    return Scenario.parse(s)


def table5_points(seed: int = 1) -> list[Point]:
    return [Point((("time_s", str(t)),), seed, table5_scenario((t - 50, t), seed)) for t in TABLE5]


#: Section VII.D's follow-ups: PERT returns to safe mode after about 65 of its 80 flows exit,
#: and enters compete mode after about 9 SACK flows join.
THESIS_EXITS_TO_SAFE = 65
THESIS_JOINS_TO_COMPETE = 9


@dataclass(frozen=True)
class FollowUp:
    """One PERT flow leaves every ``exit_step_s`` seconds; one SACK flow joins every
    ``join_step_s`` seconds, ``joins`` of them."""

    exit_step_s: float
    join_step_s: float
    joins: int


FOLLOW_FULL = FollowUp(10.0, 10.0, 30)
#: Quick: PERT flows leave every 3 s (alpha moves every 5 RTTs, about 0.6 s); SACK flows join
#: at the thesis's pace (a faster pace counts more joins before PERT reacts) but fewer of them.
FOLLOW_QUICK = FollowUp(3.0, 10.0, 12)


def exits_scenario(setup: FollowUp, seed: int = 1) -> Scenario:
    """80 PERT flows from 0 s, 80 SACK flows from 100 to 200 s, then PERT flow j leaves at
    200 + (j + 1) step; flow series every second."""
    end = 200 + 81 * setup.exit_step_s
    mode = Mode("exits", f"{end}s", "100s", f"{end}s", (seed,))
    s = kotla_dumbbell(mix(80, 80), mode, seed, sample_interval="1s").to_wire()
    for j, f in enumerate(s["flows"][:80]):
        f["stop_ns"] = int((200 + (j + 1) * setup.exit_step_s) * 1e9)
    for f in s["flows"][80:]:
        f.pop("start_window_ns", None)
        f["start_ns"], f["stop_ns"] = 100 * 10**9, 200 * 10**9
    return Scenario.parse(s)


def joins_scenario(setup: FollowUp, seed: int = 1) -> Scenario:
    """80 PERT flows from 0 s; SACK flow k joins at 100 + k step (k = 0..joins-1)."""
    joins = setup.joins
    end = 100 + (joins + 5) * setup.join_step_s
    mode = Mode("joins", f"{end}s", "50s", f"{end}s", (seed,))
    s = kotla_dumbbell(mix(80, joins), mode, seed, sample_interval="1s").to_wire()
    for k_, f in enumerate(s["flows"][80:]):
        f.pop("start_window_ns", None)
        f["start_ns"] = int((100 + k_ * setup.join_step_s) * 1e9)
    return Scenario.parse(s)


def compete_share(results: Results, active: Callable[[pl.DataFrame], pl.Expr] | None = None) -> pl.DataFrame:
    """Per sample time: the share of the (active) adaptive PERT flows whose mode is compete."""
    fs = results.flow_series.filter(pl.col("cc") == PERT)
    if active is not None:
        fs = fs.filter(active(fs))
    return fs.group_by("t_s").agg((pl.col("mode") == "compete").mean().alias("compete"), pl.len().alias("flows")).sort("t_s")


def exits_to_safe(results: Results, setup: FollowUp) -> float:
    """PERT flows gone when fewer than half of those left compete (sustained for the rest of
    the run), counting from 200 s; NaN if that never happens."""
    stop = {i: 200 + (i + 1) * setup.exit_step_s for i in range(80)}
    share = compete_share(results, lambda fs: pl.col("t_s") < pl.col("flow").replace_strict(stop, default=1e18))
    after = share.filter(pl.col("t_s") >= 200)
    high = after.filter(pl.col("compete") >= 0.5)
    t = (high["t_s"].max() + 1.0) if high.height else 200.0
    return float(min(80, max(0, (t - 200) // setup.exit_step_s))) if t <= after["t_s"].max() else float("nan")


def joins_to_compete(results: Results, setup: FollowUp) -> float:
    """SACK flows present when half the PERT flows first compete (after 100 s); NaN if never."""
    share = compete_share(results).filter(pl.col("t_s") >= 100)
    hit = share.filter(pl.col("compete") >= 0.5)
    if hit.height == 0:
        return float("nan")
    return float((hit["t_s"].min() - 100) // setup.join_step_s + 1)


# --------------------------------------- K8: intermittent CBR (Figure 12)


@dataclass(frozen=True)
class Cbr:
    """One PERT flow on ``bw`` / 60 ms; a CBR UDP flow of ``cbr_bps`` in every other phase."""

    bw: float
    cbr_bps: float
    phase_s: float
    phases: int


#: Section V.D: 1 Gbit/s, about 900 s, UDP for 150 s in every 300 s (its rate is not stated: half the link).
CBR_FULL = Cbr(1e9, 500e6, 150.0, 6)
CBR_QUICK = Cbr(1e9, 500e6, 30.0, 5)


def cbr_scenario(setup: Cbr, seed: int = 1) -> Scenario:
    end = setup.phase_s * setup.phases
    mode = Mode("cbr", f"{end}s", "0s", f"{end}s", (seed,))
    s = kotla_dumbbell(f"{PERT}:1", mode, seed, bw=setup.bw, start_window="0s", send_overhead="0s", sample_interval="1s").to_wire()
    s["udp"] = [
        {"src": "s0", "dst": "d0", "rate_bps": int(setup.cbr_bps), "packet_size": WIRE_BYTES, "arrivals": "cbr",
         "start_ns": int(i * setup.phase_s * 1e9), "stop_ns": int((i + 1) * setup.phase_s * 1e9)}
        for i in range(1, setup.phases, 2)
    ]  # fmt: skip
    return Scenario.parse(s)


def phase_throughput(results: Results, setup: Cbr) -> pl.DataFrame:
    """Per phase: whether UDP was on, PERT's mean throughput over the phase's second half
    (Mbit/s, payload), and the seconds PERT took after the phase began to reach 90 % of
    what was left to it (the link, or the link less the CBR rate)."""
    thr = results.flow_goodput()
    rows = []
    for i in range(setup.phases):
        lo, hi = i * setup.phase_s, (i + 1) * setup.phase_s
        udp = i % 2 == 1
        left = (setup.bw - (setup.cbr_bps if udp else 0)) * PAYLOAD_BYTES / WIRE_BYTES / 1e6
        ph = thr.filter((pl.col("t_s") > lo) & (pl.col("t_s") <= hi))
        late = ph.filter(pl.col("t_s") > (lo + hi) / 2)["mbps"]
        reached = ph.filter(pl.col("mbps") >= 0.9 * left)["t_s"]
        rows.append({
            "phase": i, "udp": udp, "available_mbps": left, "pert_mbps": float(late.mean()),
            "seconds_to_90pct": float(reached.min() - lo) if reached.len() else float("nan"),
        })  # fmt: skip
    return pl.DataFrame(rows)


# ------------------------------------- K18: flows join and leave (Figure 24)


@dataclass(frozen=True)
class JoinLeave:
    """Flow i starts at ``i * step_s`` and lasts ``lifetimes_s[i]``."""

    bw: float
    step_s: float
    lifetimes_s: tuple[float, ...]


#: Section VI.G: a flow every 300 s, lasting 2100, 1500, 900 and 300 s (bottleneck unstated: 150 Mbit/s, 60 ms).
JOIN_LEAVE_FULL = JoinLeave(150e6, 300.0, (2100.0, 1500.0, 900.0, 300.0))
#: Quick: the same pattern at a fifth of the time scale.
JOIN_LEAVE_QUICK = JoinLeave(150e6, 60.0, (420.0, 300.0, 180.0, 60.0))


def join_leave_scenario(setup: JoinLeave, seed: int = 1) -> Scenario:
    n = len(setup.lifetimes_s)
    end = max(i * setup.step_s + life for i, life in enumerate(setup.lifetimes_s))
    mode = Mode("join-leave", f"{end}s", "0s", f"{end}s", (seed,))
    s = kotla_dumbbell(f"{PERT}:{n}", mode, seed, bw=setup.bw, send_overhead="0s", sample_interval="1s").to_wire()
    for i, (f, life) in enumerate(zip(s["flows"], setup.lifetimes_s)):
        f.pop("start_window_ns", None)
        f["start_ns"], f["stop_ns"] = int(i * setup.step_s * 1e9), int((i * setup.step_s + life) * 1e9)
    return Scenario.parse(s)


def join_leave_phases(results: Results, setup: JoinLeave) -> pl.DataFrame:
    """Per phase between arrivals and departures: active flows, link utilization (payload
    goodput / payload capacity) and Jain index over the active flows, both over the phase's
    second half."""
    spans = [(i * setup.step_s, i * setup.step_s + life) for i, life in enumerate(setup.lifetimes_s)]
    edges = sorted({t for span in spans for t in span})
    thr = results.flow_goodput()
    capacity = setup.bw * PAYLOAD_BYTES / WIRE_BYTES / 1e6
    rows = []
    for lo, hi in zip(edges, edges[1:]):
        active = [i for i, (a, b) in enumerate(spans) if a <= lo and b >= hi]
        late = thr.filter((pl.col("t_s") > (lo + hi) / 2) & (pl.col("t_s") <= hi) & pl.col("flow").is_in(active))
        per_flow = late.group_by("flow").agg(pl.col("mbps").mean()).sort("flow")["mbps"].to_list()
        rows.append({"from_s": lo, "to_s": hi, "flows": len(active), "utilization": sum(per_flow) / capacity, "jain": jain_index(per_flow)})
    return pl.DataFrame(rows)


# ------------------------------------------- K22: queue positions (Figs 27, 28)


QUEUE_POSITION_MIXES = {"sack": f"{SACK}:80", "pert": f"{PERT}:80", "pert-sack": mix(40, 40)}


def queue_position_points(mode: Mode) -> list[Point]:
    """80 flows, one protocol or a 50-50 mix; the bottleneck counts the queue
    position of every accepted data packet per label."""
    out = []
    for name, cc in QUEUE_POSITION_MIXES.items():
        for seed in mode.seeds:
            s = kotla_dumbbell(cc, mode, seed).to_wire()
            s["monitor"] = {**s.get("monitor", {}), "queue_positions": "bottleneck"}
            out.append(Point((("mix", name),), seed, Scenario.parse(s)))
    return out


def position_deciles(results: Results, limit: int) -> pl.DataFrame:
    """Share of each label's accepted packets in each tenth of the buffer (1 = head)."""
    qp = results.queue_positions
    if qp.height == 0:
        return pl.DataFrame(schema={"label": pl.String, "decile": pl.Int64, "share": pl.Float64})
    qp = qp.with_columns(((pl.col("position").cast(pl.Float64) - 1) * 10 / limit).floor().clip(0, 9).cast(pl.Int64).alias("decile") + 1)
    agg = qp.group_by("label", "decile").agg(pl.col("count").sum())
    every = qp.select("label").unique().join(pl.DataFrame({"decile": list(range(1, 11))}), how="cross")
    agg = every.join(agg, on=["label", "decile"], how="left").with_columns(pl.col("count").fill_null(0))
    return agg.with_columns((pl.col("count") / pl.col("count").sum().over("label")).alias("share")).sort("label", "decile")


def mean_position(results: Results) -> dict[str, float]:
    """Count-weighted mean queue position per label."""
    qp = results.queue_positions
    g = qp.group_by("label").agg(((pl.col("position").cast(pl.Float64) * pl.col("count")).sum() / pl.col("count").sum()).alias("mean"))
    return dict(g.iter_rows())
