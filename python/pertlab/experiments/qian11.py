"""Qian (MS thesis, 2011), Chapters IV and V: ACK coalescing at the receiver, the RTT
over-estimate it causes, and its two fixes, sender pacing and the ACK-train RTT correction
(shared/spec/pert-theses-kotla-qian.md B.5 to B.8).

Scenarios:

- **ACK ratios** (Figs 16, 17): one greedy SACK flow, 10 Mbit/s, 60 ms, a 100-packet
  buffer, each receiver policy (``every`` = "No Delay", ``delayed`` = "Delay By Two",
  ``adaptive`` = "Adaptive Delay"). ``window_limited`` caps the window at 100 segments,
  between the path (50) and the path plus the buffer (150): no loss, the link busy, as in
  Fig 16's trace. ``greedy`` has no cap: drop-tail losses every few seconds (Fig 17 shows
  throughputs that differ, which a loss-free flow cannot give). The thesis gives neither
  link nor buffer for these figures. ``ack_path_overloaded`` is ``greedy`` with UDP from the
  receiver's side offering ``REVERSE_LOAD`` times the bottleneck's rate on the ACKs' direction:
  pertlab's test of whether a congested ACK path, where fewer ACKs should help, gives Fig
  17(a)'s order.
- **srtt inflation** (Figs 18a, 21, 31 to 34): Chapter V's validation, two PERT flows on
  a 3 Mbit/s bottleneck with 20 ms one-way ("end-to-end") delay (RTT 40 ms) and
  1000-byte packets, one flow behind an every-segment receiver and one behind the
  adaptive receiver ("Delay By 4"). Inflation = mean srtt of the adaptive flow minus that
  of the every-segment flow in the same run, so queueing both see cancels. Each point runs
  three ways: plain, both flows paced (Fig 21: "Delay Pacing"), both with the RTT
  correction (Fig 31); and with both timestamp echoes (``tcp.ts_echo``: ``latest`` is
  ns-2's sinks, ``earliest`` RFC 7323's). Sweeps: bottleneck 1 to 10 Mbit/s, one-way delay
  5 to 50 ms (Figs 24, 33), cross-traffic flows 5 to 10 (Figs 22, 32), cross-traffic packet
  size 500 to 1500 B (Figs 23, 34).
- **RTT samples by sequence number** (Fig 18b): the base point's plain run, with both echoes,
  the adaptive flow traced (one RTT sample per ACK, each with the segment it measures, see
  ``Results.trace_rtt``); its samples in the window grouped by sequence number mod 4
  (:func:`pertlab.results.rtt_by_seq_mod`). Beside it Fig 16's window-limited flow behind the
  adaptive receiver, whose trains of 4 stay aligned to the sequence numbers: which groups its
  samples fall in shows what a group mod 4 selects.

Choices where the thesis is silent: the buffer is ns-2's default queue limit, 50 packets;
cross traffic is greedy PERT flows behind every-segment receivers, neither paced nor
corrected (the thesis does not say which protocol; Reno cross traffic would fill the
buffer and starve the PERT flows, leaving no trains to measure); flows start uniformly in
the first 2 s; srtt is the sender's smoothed RTT (RFC 6298) sampled every 100 ms in the
window.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from ..builders import dumbbell
from ..results import rtt_by_seq_mod
from ..runner import run
from ..scenario import Scenario

#: Fig 17(c): data packets per ACK of the three receivers.
THESIS_RATIO = {"adaptive": 4.0, "delayed": 2.0, "every": 1.0}
#: Fig 17(a)/(b): the order of data throughput and ACK throughput, highest first.
THESIS_DATA_ORDER = ("adaptive", "delayed", "every")
#: The ACK-ratio runs: Fig 16's window-limited flow, Fig 17's greedy one, and the greedy one
#: with its ACK path overloaded (see the module doc).
ACK_VARIANTS = ("window_limited", "greedy", "ack_path_overloaded")
#: ``ack_path_overloaded``: UDP load on the ACKs' direction of the bottleneck, as a share of its
#: rate (above 1, so the reverse queue stays full and drops ACKs as well as UDP packets).
REVERSE_LOAD = 1.1
#: Fig 18(a): srtt of the "Delay By 4" flow above the "No Delay" flow, ms ("about 5 ms").
THESIS_INFLATION_MS = 5.0
POLICIES = ("adaptive", "delayed", "every")
#: How the two measured flows run: plain (Fig 18a), paced (Fig 21), RTT-corrected (Fig 31).
FIXES = ("none", "pacing", "correction")
ECHOES = ("latest", "earliest")
#: Chapter V's validation (spec B.8): 3 Mbit/s, 20 ms end-to-end (one-way) delay, 1000 B.
BASE = {"bw_mbps": 3.0, "delay_ms": 20, "cross_flows": 0, "cross_size": 1000}
PACKET_BYTES = 1000
#: The ACK-ratio runs' bottleneck (Figs 16, 17: the thesis gives none), Mbit/s.
ACK_RATE_MBPS = 10
#: Cross-traffic flows of the packet-size sweep (Figs 23, 34; the thesis does not say).
CROSS_FLOWS_FOR_SIZE = 5
#: ns-2's default queue limit (packets); the thesis gives no buffer for Chapters IV-V.
BUFFER_PKTS = 50
#: Fig 18b: the samples are grouped by sequence number mod 4, the adaptive receiver's largest
#: train (IV.A: up to 4 data packets per ACK).
TRAIN = 4
#: Fig 18b's runs: Fig 18a's base point (its adaptive flow, flow 1) and Fig 16's window-limited
#: flow (flow 0), whose trains stay aligned.
TRAIN_RUNS = {"fig18a_base": 1, "aligned": 0}


def packet_time_ms(bw_mbps):
    """Transmission time of one ``PACKET_BYTES`` packet at ``bw_mbps`` (a number or a column), ms."""
    return PACKET_BYTES * 8 / (bw_mbps * 1e3)


@dataclass(frozen=True)
class Setup:
    duration: str
    warmup: str
    seeds: tuple[int, ...]
    #: Sweep values by parameter; each sweep moves that parameter of BASE (the cross-traffic
    #: packet size with ``CROSS_FLOWS_FOR_SIZE`` cross flows).
    sweeps: dict[str, tuple[float, ...]]


def ack_scenario(policy: str, variant: str, setup: Setup, seed: int, echo: str | None = None) -> Scenario:
    """One SACK flow behind ``policy``, as :data:`ACK_VARIANTS` says; ``echo`` sets
    ``tcp.ts_echo`` (the default otherwise)."""
    cap = {"max_cwnd": 100} if variant == "window_limited" else {}
    ts = {"ts_echo": echo} if echo else {}
    sc = dumbbell(
        bw=f"{ACK_RATE_MBPS}Mbps", rtt="60ms", flows=1, duration=setup.duration, warmup=setup.warmup, start_window="1s", buffer_pkts=100, seed=seed,
        tcp={"ack_policy": policy, **cap, **ts},
    )  # fmt: skip
    if variant != "ack_path_overloaded":
        return sc
    wire = sc.to_wire()
    wire["udp"] = [{"src": "d0", "dst": "s0", "rate_bps": round(REVERSE_LOAD * ACK_RATE_MBPS * 1e6), "packet_size": PACKET_BYTES, "arrivals": "cbr_random"}]
    return Scenario.parse(wire)


def ack_row(item: tuple[str, str, Setup, int]) -> dict[str, Any]:
    """The flow's data and ACK throughputs, and the drop rate of the bottleneck's ACK direction."""
    policy, variant, setup, seed = item
    r = run(ack_scenario(policy, variant, setup, seed))
    f = r.flows.row(0, named=True)
    reverse = r.queues.filter((pl.col("link") == "bottleneck") & (pl.col("from") == "r1")).row(0, named=True)
    return {
        "variant": variant, "policy": policy, "seed": seed, "data_mbps": f["data_mbps"], "ack_mbps": f["ack_mbps"],
        "data_ack_ratio": f["data_ack_ratio"], "goodput_mbps": f["goodput_mbps"], "drops": f["drops"], "reverse_drop_rate": reverse["drop_rate"],
    }  # fmt: skip


def srtt_scenario(point: dict[str, float], fix: str, echo: str, setup: Setup, seed: int) -> Scenario:
    """Chapter V's two PERT flows (every-segment and adaptive receivers) at ``point``, plus
    ``cross_flows`` PERT flows of ``cross_size`` bytes; ``fix`` applied to the two measured flows."""
    cross = int(point["cross_flows"])
    sc = dumbbell(
        bw=f"{point['bw_mbps']}Mbps", rtt=f"{2 * point['delay_ms']}ms", flows=2 + cross, cc="pert", duration=setup.duration,
        warmup=setup.warmup, start_window="2s", buffer_pkts=BUFFER_PKTS, packet_size=PACKET_BYTES, seed=seed, sample_interval="100ms",
        monitor_flows=[0, 1],
    )  # fmt: skip
    wire = sc.to_wire()
    for i, f in enumerate(wire["flows"]):
        tcp = f["tcp"]
        tcp["ts_echo"] = echo
        if i < 2:
            tcp["ack_policy"] = ("every", "adaptive")[i]
            tcp["pacing"] = {"enabled": fix == "pacing"}
            tcp["rtt_correction"] = fix == "correction"
            f["label"] = ("pert-every", "pert-adaptive")[i]
        else:
            tcp["packet_size"] = int(point["cross_size"])
            f["label"] = "cross"
    return Scenario.parse(wire)


def srtt_row(item: tuple[str, dict[str, float], str, str, Setup, int]) -> dict[str, Any]:
    sweep, point, fix, echo, setup, seed = item
    r = run(srtt_scenario(point, fix, echo, setup, seed))
    start = r.summary["window_start_s"]
    srtt = r.flow_series.filter(pl.col("t_s") >= start).group_by("flow").agg(pl.col("srtt_ms").mean()).sort("flow")["srtt_ms"].to_list()
    f = r.flows
    return {
        "sweep": sweep, **point, "fix": fix, "echo": echo, "seed": seed,
        "srtt_every_ms": srtt[0], "srtt_adaptive_ms": srtt[1], "inflation_ms": srtt[1] - srtt[0],
        "rtt_mean_every_ms": f["rtt_mean_ms"][0], "rtt_mean_adaptive_ms": f["rtt_mean_ms"][1],
        "goodput_every_mbps": f["goodput_mbps"][0], "goodput_adaptive_mbps": f["goodput_mbps"][1],
        "ratio_adaptive": f["data_ack_ratio"][1], "drops": int(f["drops"][:2].sum()), "avg_queue_pkts": r.bottleneck["avg_queue_pkts"],
    }  # fmt: skip


def train_scenario(name: str, echo: str, setup: Setup, seed: int) -> Scenario:
    """Fig 18b's run ``name`` (a key of ``TRAIN_RUNS``) with ``echo``, its flow of
    ``TRAIN_RUNS[name]`` traced."""
    if name == "fig18a_base":
        sc = srtt_scenario(dict(BASE), "none", echo, setup, seed)
    else:
        sc = ack_scenario("adaptive", "window_limited", setup, seed, echo)
    wire = sc.to_wire()
    wire["monitor"]["trace_flows"] = [TRAIN_RUNS[name]]
    return Scenario.parse(wire)


def train_rows(item: tuple[str, str, Setup, int]) -> list[dict[str, Any]]:
    """Fig 18b: the traced flow's RTT samples in the window grouped by sequence number mod
    ``TRAIN``, one row per group, with the sum of the samples (to pool seeds)."""
    name, echo, setup, seed = item
    r = run(train_scenario(name, echo, setup, seed))
    samples = r.trace_rtt.filter(pl.col("t_s") >= r.summary["window_start_s"])
    groups = rtt_by_seq_mod(samples, TRAIN)
    return [
        {"run": name, "echo": echo, "seed": seed, "group": g["group"], "samples": g["samples"],
         "sum_ms": (g["mean_ms"] or 0.0) * g["samples"]}
        for g in groups.iter_rows(named=True)
    ]  # fmt: skip


def train_groups(rows: pl.DataFrame) -> pl.DataFrame:
    """Fig 18b's table: per run, echo and group, the samples of every seed pooled: ``samples``,
    ``mean_ms`` (null for an empty group), ``diff_ms`` (minus the previous group's mean),
    ``share`` (of the run and echo's samples), and ``all_mean_ms``, the mean of all of them."""
    keys = ["run", "echo"]
    t = rows.group_by([*keys, "group"], maintain_order=True).agg(pl.col("samples").sum(), pl.col("sum_ms").sum()).sort([*keys, "group"])
    return t.with_columns(
        pl.when(pl.col("samples") > 0).then(pl.col("sum_ms") / pl.col("samples")).alias("mean_ms"),
        (pl.col("samples") / pl.col("samples").sum().over(keys)).alias("share"),
        (pl.col("sum_ms").sum().over(keys) / pl.col("samples").sum().over(keys)).alias("all_mean_ms"),
    ).with_columns(pl.col("mean_ms").diff().over(keys).alias("diff_ms")).select(
        *keys, "group", "samples", "share", "mean_ms", "diff_ms", "all_mean_ms"
    )


def sweep_points(setup: Setup) -> list[tuple[str, dict[str, float]]]:
    """("base", BASE) and one point per sweep value, the other parameters at BASE; a point that
    another sweep already has (the packet-size sweep's 1000 B is the cross-flow sweep's 5 flows)
    is listed once, under the first."""
    points = [("base", dict(BASE))]
    for name, values in setup.sweeps.items():
        extra = {"cross_flows": CROSS_FLOWS_FOR_SIZE} if name == "cross_size" else {}
        points += [(name, p) for p in ({**BASE, **extra, name: v} for v in values) if all(p != q for _, q in points)]
    return points


def tasks(setup: Setup) -> list[tuple[str, tuple]]:
    """The runs in groups, one task each: the three receivers of an ACK-ratio variant and seed,
    Fig 18b's traced runs of a seed, and the fixes and echoes of an srtt point and seed (fewer, longer tasks for the workers)."""
    acks = [("ack", (v, setup, s)) for v in ACK_VARIANTS for s in setup.seeds]
    trains = [("trains", (setup, s)) for s in setup.seeds]
    return acks + trains + [("srtt", (name, p, setup, s)) for name, p in sweep_points(setup) for s in setup.seeds]


def task(item: tuple[str, tuple]) -> list[dict[str, Any]]:
    """The rows of one group of :func:`tasks`."""
    kind, args = item
    if kind == "ack":
        variant, setup, seed = args
        return [ack_row((p, variant, setup, seed)) for p in POLICIES]
    if kind == "trains":
        setup, seed = args
        return [row for name in TRAIN_RUNS for echo in ECHOES for row in train_rows((name, echo, setup, seed))]
    name, point, setup, seed = args
    return [srtt_row((name, point, fix, echo, setup, seed)) for fix in FIXES for echo in ECHOES]


def removal(inflation: pl.DataFrame) -> pl.DataFrame:
    """Per (sweep point, echo): mean inflation of each fix over the seeds and the fraction of the
    plain inflation that pacing and the correction remove (1 - fixed / plain)."""
    keys = ["sweep", "bw_mbps", "delay_ms", "cross_flows", "cross_size", "echo"]
    mean = inflation.group_by([*keys, "fix"], maintain_order=True).agg(pl.col("inflation_ms").mean())
    wide = mean.pivot(on="fix", index=keys, values="inflation_ms")
    return wide.rename({f: f"inflation_{f}_ms" for f in FIXES}).with_columns(
        (1 - pl.col("inflation_pacing_ms") / pl.col("inflation_none_ms")).alias("removed_by_pacing"),
        (1 - pl.col("inflation_correction_ms") / pl.col("inflation_none_ms")).alias("removed_by_correction"),
    )
