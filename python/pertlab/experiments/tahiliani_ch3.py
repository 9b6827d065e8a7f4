"""Tahiliani (PhD thesis, NITK 2013), Chapter 3: ARED, Re-ARED, FARED and CARED.

The four adaptive-RED controllers share one RED queue and differ only in how
they move max_p every 0.5 s (see ``docs/aqm.md``). Scenarios (thesis Section
3.3, extracted in shared/spec/aqm-xecn-surathkal-tahiliani.md section 2.1):

- **S3-A** (Tables 3.3-3.9): 10 Mbps bottleneck, 80 ms round-trip propagation
  delay, 10..100 FTP flows all starting at time 0, 1000-byte packets (1040 on
  the wire with ns-2's 40-byte TCP/IP header), thresholds, weight and max_p
  configured automatically for a 5 ms target delay with 1000-byte packets
  (target band [9, 11] packets).
  The common start of all flows is also the thesis's Scenario 1, a sharp
  increase in load (Figs. 3.2, 3.3, 3.18-3.21): :func:`return_time` measures
  how long each controller leaves the average above the band.
- **S3-4, sharp increase in congestion**: 2 long forward flows and 1 reverse
  flow; at 25 s, 20 new flows start one every 0.1 s; 50 s run. S3-5 is its
  mirror (20 of 22 flows stop). The thesis gives no link for either, only that
  the scenario is Floyd et al.'s (2001); :data:`FLOYD_NETWORK` is that
  scenario's 1.5 Mbps link as Floyd scripted it in ns-2.

The controllers' differences are smaller than one controller's seed-to-seed
spread, so S3-A runs many seeds and is compared on paired differences
(:func:`paired_differences`); :func:`reared_step_advantage` tells which of
ARED's and Re-ARED's rules moves max_p faster along a run.

Choices where the thesis is silent (documented in docs/reproductions.md):
the 80 ms is split as in :func:`pertlab.builders.split_rtt` (1 ms access links,
38 ms bottleneck one way); access links 100 Mbps; the bottleneck buffer is 50
packets (the thesis's router queue size in Chapter 4, "unless stated
otherwise"); TCP is Reno window rules with SACK recovery and ns-2's timers
(:data:`pertlab.builders.NS2_TCP`), ECN off (the tables
report drops); runs last 100 s with metrics over the whole run; "throughput"
is the bottleneck's throughput in kbit/s counting headers (utilization x
capacity), which is what ns-2 link monitors report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Literal

import polars as pl

from ..builders import NS2_TCP
from ..parallel import Workers
from ..results import Results
from ..runner import run
from ..scenario import RedConfig, Scenario

#: The four controllers compared in Chapter 3, as queue kinds of the core.
CONTROLLERS = ("ared", "reared", "fared", "cared")
LABELS = {"ared": "ARED", "reared": "Re-ARED", "fared": "FARED", "cared": "CARED"}

#: Bottleneck capacity (kbit/s), RTT and packet sizes of S3-A (thesis Sec. 3.3.1).
CAPACITY_KBPS = 10_000
RTT = "80ms"
PAYLOAD_BYTES = 1000
WIRE_BYTES = PAYLOAD_BYTES + 40
#: Bottleneck buffer in packets (thesis Ch. 4 router queue size; S3-A does not state it).
BUFFER_PKTS = 50
#: ARED's target band at 10 Mbps with 1000-byte packets and a 5 ms target delay (thesis Sec. 3.3).
TARGET_BAND = (9.0, 11.0)
#: Re-ARED's band top with the same thresholds (5 + 0.52 (15 - 5), thesis Table 3.2): the T of
#: its increase step (see :func:`reared_step_advantage`).
REARED_TARGET_UP = 10.2

#: Tables 3.3/3.5/3.8 (throughput, kbit/s) and 3.4/3.6/3.9 (drop rate, %), S3-A; the ARED and
#: Re-ARED columns are the same runs in all three pairs of tables.
THESIS_FLOWS = (10, 20, 30, 40, 50, 60, 70, 80, 90, 100)
THESIS_THROUGHPUT_KBPS = {
    "ared": (9177, 9171, 9175, 9186, 9178, 9166, 9162, 9144, 9145, 9108),
    "reared": (9189, 9182, 9186, 9185, 9178, 9171, 9160, 9153, 9139, 9097),
    "fared": (9193, 9189, 9186, 9195, 9187, 9181, 9168, 9156, 9139, 9108),
    "cared": (9189, 9200, 9195, 9195, 9190, 9178, 9164, 9159, 9145, 9110),
}
THESIS_DROP_PERCENT = {
    "ared": (0.23, 0.27, 3.50, 8.21, 10.41, 12.49, 13.94, 15.67, 17.00, 17.84),
    "reared": (0.22, 0.27, 3.31, 8.25, 10.54, 12.77, 14.02, 15.29, 16.75, 17.80),
    "fared": (0.22, 0.26, 2.42, 8.03, 10.34, 12.34, 13.75, 15.27, 16.93, 17.82),
    "cared": (0.23, 0.26, 2.99, 8.13, 10.35, 12.34, 14.01, 15.46, 16.95, 17.66),
}


@dataclass(frozen=True)
class Mode:
    """How much of the thesis's setup to run."""

    flows: tuple[int, ...]
    duration: str
    sample_interval: str
    seeds: tuple[int, ...]


#: Seeds per point: the controllers' differences in the thesis's tables (at most 0.51 points of
#: drop rate) are below the seed-to-seed spread of one controller (docs/reproductions.md), so
#: the claims are judged on paired differences over seeds, not on one run each.
FULL = Mode(flows=THESIS_FLOWS, duration="100s", sample_interval="50ms", seeds=tuple(range(1, 101)))
QUICK = Mode(flows=THESIS_FLOWS, duration="100s", sample_interval="100ms", seeds=tuple(range(1, 31)))
#: S3-A with and without RED's gentle region (``tahiliani-ch3-gentle``): half the seeds of
#: :data:`FULL` (the differences it tests are 30 to 120 kbit/s, against a 95 % interval of a few
#: kbit/s at 50 seeds); the quick mode runs the three flow counts where they are largest.
GENTLE_FULL = Mode(flows=THESIS_FLOWS, duration="100s", sample_interval="50ms", seeds=tuple(range(1, 51)))
GENTLE_QUICK = Mode(flows=(20, 30, 40), duration="100s", sample_interval="100ms", seeds=tuple(range(1, 11)))

#: max_th of S3-A's RED, packets: the automatic thresholds for a 5 ms target at 10 Mbps with
#: 1000-byte packets put min_th at its floor of 5 packets and max_th at 3 min_th; ARED's band
#: (min_th + [0.4, 0.6] (max_th - min_th)) is then :data:`TARGET_BAND`. With RED's gentle
#: region the drop probability climbs from max_p to 1 as the average goes from max_th to
#: 2 max_th; without it, every arrival is dropped above max_th.
MAX_TH_PKTS = 15.0


def _queue(kind: str, buffer_pkts: int = BUFFER_PKTS, gentle: bool = True) -> dict[str, Any]:
    # Automatic thresholds and weight for 1000-byte packets: the thesis's [9, 11] band (also at
    # 1.5 Mbps, where the 5-packet floor of min_th decides). Gentle is RED's default (ns-2's).
    red: dict[str, Any] = {"mean_pkt_size": PAYLOAD_BYTES} | ({} if gentle else {"gentle": False})
    return {"kind": kind, "limit_pkts": buffer_pkts, "red": red}


@dataclass(frozen=True)
class Network:
    """Links, buffer and window caps of a Chapter 3 dumbbell."""

    name: str
    rate: str
    bottleneck_delay: str
    buffer_pkts: int
    access_rate: str
    sender_access_delay: str
    receiver_access_delay: str
    #: Largest window (segments) of the flows present from the start and of the joining
    #: flows; None: no cap.
    long_window: int | None = None
    joining_window: int | None = None


#: S3-A's network (thesis Sec. 3.3.1: 10 Mbps, 80 ms RTT; the rest as chosen above).
S3A_NETWORK = Network("S3-A", f"{CAPACITY_KBPS}kbps", "38ms", BUFFER_PKTS, "100Mbps", "1ms", "1ms")
#: S3-4 and S3-5's network. The thesis states no link for them, only that the scenario is
#: "analogous to the one used in (Floyd et al. 2001)"; this is that scenario as Floyd scripted
#: it in ns-2 (tcl/test/test-suite-adaptive-red.tcl, Test/red2Adapt on topology net2): a
#: 1.5 Mbps, 20 ms bottleneck with 25 packets of buffer, 10 Mbps access links (2 ms on the
#: sender side, 4 ms on the receiver side: ns-2's s1-r1 and r2-s3), windows capped at 15
#: segments for the long flows and 20 for the joining ones. docs/reproductions.md shows the
#: same scenario on S3-A's network, where the order of the controllers reverses.
FLOYD_NETWORK = Network("Floyd et al. 2001", "1.5Mbps", "20ms", 25, "10Mbps", "2ms", "4ms", long_window=15, joining_window=20)


def _topology(pairs: int, kind: str, net: Network = S3A_NETWORK, gentle: bool = True) -> dict[str, Any]:
    return {
        "pairs": pairs,
        "bottleneck_rate": net.rate,
        "bottleneck_delay": net.bottleneck_delay,
        "bottleneck_queue": _queue(kind, net.buffer_pkts, gentle),
        "access_rate": net.access_rate,
        "sender_access_delay": net.sender_access_delay,
        "receiver_access_delay": net.receiver_access_delay,
    }


def _flow(src: str, dst: str, start: str, window: int | None = None) -> dict[str, Any]:
    cap = {} if window is None else {"max_cwnd": window}
    return {"src": src, "dst": dst, "cc": "reno", "start": start, "tcp": {"packet_size": WIRE_BYTES, **NS2_TCP, **cap}}


def s3a_scenario(kind: str, flows: int, mode: Mode = FULL, seed: int = 1, gentle: bool = True) -> Scenario:
    """S3-A: ``flows`` FTP flows, all starting at time 0, over controller ``kind`` (RED's
    gentle region on unless ``gentle`` is false)."""
    return Scenario.parse(
        {
            "seed": seed,
            "duration": mode.duration,
            "dumbbell": _topology(flows, kind, gentle=gentle),
            "flows": [_flow(f"s{i}", f"d{i}", "0s") for i in range(flows)],
            "monitor": {"sample_interval": mode.sample_interval, "flows": [], "links": ["bottleneck"]},
        }
    )


#: S3-4: load step time, number of new flows and their spacing (thesis Sec. 3.3, Scenario 4).
STEP_AT_S = 25.0
STEP_FLOWS = 20
STEP_SPACING_S = 0.1
#: S3-4 and S3-5 run length (s): "The total simulation time is 50 seconds" (thesis Sec. 3.3).
STEP_RUN_S = 50.0
#: Seconds a step run has after the step: a run not back in the band by then counts as this.
STEP_AFTER_S = STEP_RUN_S - STEP_AT_S


def sharp_increase_scenario(kind: str, seed: int = 1, duration: str = f"{STEP_RUN_S:g}s", net: Network = FLOYD_NETWORK) -> Scenario:
    """S3-4: 2 long forward flows and 1 reverse flow, then 20 flows from 25 s, one every 0.1 s."""
    pairs = 2 + STEP_FLOWS + 1
    long = net.long_window
    flows = [_flow("s0", "d0", "0s", long), _flow("s1", "d1", "0s", long), _flow(f"d{pairs - 1}", f"s{pairs - 1}", "0s", long)]
    flows += [_flow(f"s{2 + i}", f"d{2 + i}", f"{STEP_AT_S + STEP_SPACING_S * i:.1f}s", net.joining_window) for i in range(STEP_FLOWS)]
    return Scenario.parse(
        {
            "seed": seed,
            "duration": duration,
            "dumbbell": _topology(pairs, kind, net),
            "flows": flows,
            "monitor": {"sample_interval": "10ms", "flows": [], "links": ["bottleneck"]},
        }
    )


def sharp_decrease_scenario(kind: str, seed: int = 1, duration: str = f"{STEP_RUN_S:g}s", net: Network = FLOYD_NETWORK) -> Scenario:
    """S3-5, the mirror of S3-4 (the thesis only says "we repeat the above experiment"): 22 long
    forward flows and 1 reverse flow from 0 s; from 25 s, 20 of them stop one every 0.1 s.
    The 20 that stop have the joining flows' window cap of S3-4. Metrics cover the 10 s after
    the first stop."""
    pairs = 2 + STEP_FLOWS + 1
    flows = [_flow(f"s{i}", f"d{i}", "0s", net.long_window if i < 2 else net.joining_window) for i in range(2 + STEP_FLOWS)]
    for i in range(STEP_FLOWS):
        flows[2 + i]["stop"] = f"{STEP_AT_S + STEP_SPACING_S * i:.1f}s"
    flows.append(_flow(f"d{pairs - 1}", f"s{pairs - 1}", "0s", net.long_window))
    return Scenario.parse(
        {
            "seed": seed,
            "duration": duration,
            "measure": {"start": f"{STEP_AT_S:g}s", "end": f"{STEP_AT_S + EXCESS_WINDOW_S:g}s"},
            "dumbbell": _topology(pairs, kind, net),
            "flows": flows,
            "monitor": {"sample_interval": "10ms", "flows": [], "links": ["bottleneck"]},
        }
    )


def _run_decrease(args: tuple[str, int, Network, bool]) -> tuple[dict[str, Any], pl.DataFrame | None]:
    kind, seed, net, keep = args
    r = run(sharp_decrease_scenario(kind, seed, net=net))
    series = bottleneck_series(r)
    s = series.filter((pl.col("t_s") >= STEP_AT_S) & (pl.col("t_s") < STEP_AT_S + EXCESS_WINDOW_S))
    row = {
        "controller": kind,
        "seed": seed,
        "utilization": r.bottleneck["utilization"],
        "min_avg_pkts": float(s["avg"].min()),
        "empty_fraction": float((s["len_pkts"] == 0).mean()),
        "return_s": return_time(series, side="below"),
    }
    return row, series if keep else None


def run_sharp_decrease(
    controllers: Iterable[str] = CONTROLLERS, seeds: Iterable[int] = (1,), workers: Workers = Workers(), net: Network = FLOYD_NETWORK
) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """S3-5 per controller and seed: bottleneck utilization, lowest average queue and the
    fraction of samples with an empty queue, over the 10 s after the load drops, and the
    :func:`return_time` from below the band (``return_s``); with the first seed's queue
    series per controller (Figs. 3.10, 3.11, 3.16, 3.25)."""
    return _rows_and_first_series(_run_decrease, controllers, seeds, workers, net)


def _rows_and_first_series(worker, controllers: Iterable[str], seeds: Iterable[int], workers: Workers, net: Network):
    """Run ``worker`` on every (controller, seed): its rows as one table, and the queue series
    it keeps for the first seed, per controller."""
    seeds = tuple(seeds)
    out = workers.map(worker, [(k, s, net, s == seeds[0]) for k in controllers for s in seeds])
    rows = pl.DataFrame([row for row, _ in out], schema_overrides={"return_s": pl.Float64, "reared_step_advantage": pl.Float64})
    return rows, {row["controller"]: series for row, series in out if series is not None}


#: S3-2 (thesis Section 3.3, Scenario 2, after Floyd et al. 2001): 15 Mbps, 250 ms RTT,
#: 100 one-way FTP flows, min_th = 20 and max_th = 80 packets (thesis footnotes).
S32_RATE = "15Mbps"
S32_RTT_MS = 250
S32_FLOWS = 100
S32_MIN_TH, S32_MAX_TH = 20.0, 80.0
#: Bottleneck buffer of S3-2 (not stated; 2.5 max_th so that the gentle region fits).
S32_BUFFER_PKTS = 200


#: S3-3's background: web sessions and one long reverse flow (thesis Sec. 3.3, Scenario 3).
S33_WEB_SESSIONS = 20


def fixed_flows_scenario(kind: str, seed: int = 1, duration: str = "100s", background: bool = False) -> Scenario:
    """S3-2: 100 FTP flows starting uniformly in the first second (the thesis: "fixed" long
    flows), no reverse traffic; the time series of RED's average and max_p are recorded.
    With ``background`` it is S3-3: plus 20 web sessions (ns-2 WebTraf defaults, server
    on the sender side) and one long flow in the reverse direction."""
    pairs = S32_FLOWS + (2 if background else 0)
    topo = _topology(pairs, kind)
    topo.update(
        bottleneck_rate=S32_RATE,
        bottleneck_delay=f"{S32_RTT_MS // 2 - 2}ms",
        bottleneck_queue={"kind": kind, "limit_pkts": S32_BUFFER_PKTS, "red": {"mean_pkt_size": PAYLOAD_BYTES, "min_th": S32_MIN_TH, "max_th": S32_MAX_TH}},
    )
    flows = [{**_flow(f"s{i}", f"d{i}", "0s"), "start": None, "start_window": ["0s", "1s"]} for i in range(S32_FLOWS)]
    for f in flows:
        del f["start"]
    web = []
    if background:
        web_pair, reverse_pair = S32_FLOWS, S32_FLOWS + 1
        flows.append(_flow(f"d{reverse_pair}", f"s{reverse_pair}", "0s"))
        web.append({"clients": [f"d{web_pair}"], "servers": [f"s{web_pair}"], "sessions": S33_WEB_SESSIONS, "start_window": ["0s", "1s"],
                    "tcp": {"packet_size": WIRE_BYTES, **NS2_TCP}})  # fmt: skip
    return Scenario.parse(
        {"seed": seed, "duration": duration, "dumbbell": topo, "flows": flows, "web": web,
         "monitor": {"sample_interval": "50ms", "flows": [], "links": ["bottleneck"]}}
    )  # fmt: skip


def _run_fixed(args: tuple[str, int, str, bool]) -> tuple[str, pl.DataFrame]:
    kind, seed, duration, background = args
    return kind, bottleneck_series(run(fixed_flows_scenario(kind, seed, duration, background)))


def run_fixed_flows(
    controllers: Iterable[str] = CONTROLLERS, seeds: Iterable[int] = (1,), duration: str = "100s", workers: Workers = Workers(), background: bool = False
) -> dict[tuple[str, int], pl.DataFrame]:
    """The bottleneck's queue series (with avg and max_p) under S3-2 (S3-3 with ``background``),
    per controller and seed."""
    tasks = [(k, s, duration, background) for k in controllers for s in seeds]
    return {(k, s): series for (k, s, _, _), (_, series) in zip(tasks, workers.map(_run_fixed, tasks))}


def bottleneck_series(r: Results) -> pl.DataFrame:
    """Time series of the forward bottleneck queue: t_s, len_pkts, avg, max_p, and the link's
    utilization over the interval each sample ends."""
    return r.bottleneck_series.select("t_s", "len_pkts", "avg", "max_p", "utilization")


def _idle_seconds(series: pl.DataFrame) -> dict[str, float]:
    """The link's idle time over the run (``idle_s``), and the part of it in the sampling
    intervals that end with RED's average above :data:`MAX_TH_PKTS` (``idle_above_max_th_s``)."""
    dt = float(series["t_s"][1] - series["t_s"][0])
    idle = (1.0 - series["utilization"]) * dt
    return {"idle_s": float(idle.sum()), "idle_above_max_th_s": float(idle.filter(series["avg"] > MAX_TH_PKTS).sum())}


def _run_point(args: tuple[str, int, Mode, int, bool]) -> dict[str, Any]:
    kind, flows, mode, seed, gentle = args
    r = run(s3a_scenario(kind, flows, mode, seed, gentle))
    b = r.bottleneck
    series = bottleneck_series(r)
    back_s = return_time(series, after_s=0.0)
    return {
        "controller": kind,
        "flows": flows,
        "seed": seed,
        "gentle": gentle,
        "throughput_kbps": b["utilization"] * CAPACITY_KBPS,
        "goodput_kbps": float(r.flows["goodput_mbps"].sum()) * 1000,
        "drop_percent": 100 * b["drop_rate"],
        "avg_queue_pkts": b["avg_queue_pkts"],
        # The share of the run's samples at which RED's average is above max_th, and max_p's mean.
        "avg_above_max_th": float((series["avg"] > MAX_TH_PKTS).mean()),
        "max_p_mean": float(series["max_p"].mean()),
        # Seconds the link idled, and those of them in sampling intervals that end with the
        # average above max_th (tahiliani-ch3-gentle); the flows' retransmission timeouts.
        **_idle_seconds(series),
        "timeouts": int(r.flows["timeouts"].sum()),
        # Scenario 1 (Figs. 3.2, 3.3, 3.18-3.21): the flows' common start is a sharp increase in load.
        "return_s": back_s,
        "reared_step_advantage": reared_step_advantage(series, back_s, after_s=0.0),
        "conservation_ok": r.conservation["ok"],
    }


def run_s3a(mode: Mode = FULL, controllers: Iterable[str] = CONTROLLERS, workers: Workers = Workers(), gentle: bool = True) -> pl.DataFrame:
    """Every (controller, flow count, seed) point of S3-A, one row each."""
    points = [(k, n, mode, s, gentle) for k in controllers for n in mode.flows for s in mode.seeds]
    return pl.DataFrame(workers.map(_run_point, points), schema_overrides={"return_s": pl.Float64, "reared_step_advantage": pl.Float64})


def paired_differences(runs: pl.DataFrame, metric: str, kind: str, others: Iterable[str]) -> pl.DataFrame:
    """Per flow count, ``kind``'s ``metric`` minus each other controller's on the same
    seed: mean and 95 % confidence half-width over seeds (columns ``{kind}_minus_{other}``
    and ``..._ci95``), as :func:`pertlab.sweep.aggregate` gives them."""
    from ..sweep import aggregate

    others = tuple(others)
    wide = runs.pivot(on="controller", index=["flows", "seed"], values=metric)
    names = tuple(f"{kind}_minus_{o}" for o in others)
    diffs = wide.select("flows", *[(pl.col(kind) - pl.col(o)).alias(n) for o, n in zip(others, names)])
    return aggregate(diffs.sort("flows"), by=["flows"], metrics=names)


def mean_return_times(runs: pl.DataFrame, after_step_s: float, by: tuple[str, ...] = ("controller", "flows")) -> pl.DataFrame:
    """Mean :func:`return_time` per group (``never``: how many runs did not return); a run
    whose average is still above the band at the end counts as ``after_step_s``, the time
    it had (censored at the end of the run)."""
    return (
        runs.group_by(*by)
        .agg(pl.col("return_s").fill_null(after_step_s).mean(), pl.col("return_s").is_null().sum().alias("never"))
        .sort(*by)
    )


def compare_with_thesis(measured: pl.DataFrame) -> pl.DataFrame:
    """Measured means beside Tables 3.3-3.9 (rows where the thesis has the flow count)."""
    means = measured.group_by("controller", "flows").agg(pl.col("throughput_kbps", "drop_percent").mean())
    thesis = pl.DataFrame(
        [
            {"controller": k, "flows": n, "thesis_throughput_kbps": float(THESIS_THROUGHPUT_KBPS[k][i]), "thesis_drop_percent": THESIS_DROP_PERCENT[k][i]}
            for k in CONTROLLERS
            for i, n in enumerate(THESIS_FLOWS)
        ]
    )
    return (
        means.join(thesis, on=["controller", "flows"], how="inner")
        .with_columns(
            (pl.col("throughput_kbps") - pl.col("thesis_throughput_kbps")).alias("throughput_diff_kbps"),
            (pl.col("drop_percent") - pl.col("thesis_drop_percent")).alias("drop_diff_points"),
        )
        .sort("controller", "flows")
    )


#: Seconds after the step over which the excess of the average above the band is measured.
EXCESS_WINDOW_S = 10.0


def excess_after_step(series: pl.DataFrame, band: tuple[float, float] = TARGET_BAND, after_s: float = STEP_AT_S) -> float:
    """Mean of (average queue - top of the band), where positive, over the
    :data:`EXCESS_WINDOW_S` after the load step: how far, and how long, the
    controller lets the average stay above its target."""
    w = series.filter((pl.col("t_s") >= after_s) & (pl.col("t_s") < after_s + EXCESS_WINDOW_S))
    return float((w["avg"] - band[1]).clip(lower_bound=0).mean())


#: Window of the moving mean used to judge where the average queue is (s): RED's
#: average itself wobbles with every burst.
SMOOTHING_S = 1.0


def return_time(
    series: pl.DataFrame, band: tuple[float, float] = TARGET_BAND, after_s: float = STEP_AT_S, side: Literal["above", "below"] = "above"
) -> float | None:
    """Seconds after the load step until the average queue, having left the band
    on ``side`` (above: a sharp increase; below: a sharp decrease), is back at or
    inside the band's edge on that side: how long the controller takes to "bring
    the average back into the target range" (thesis Sec. 3.3, Scenarios 1, 4, 5).

    Judged on the moving mean of the average over :data:`SMOOTHING_S`. 0 if
    that mean never leaves the band on ``side`` after the step; None if it is
    still outside at the end of the run.
    """
    dt = float(series["t_s"][1] - series["t_s"][0])
    window = max(1, round(SMOOTHING_S / dt))
    smooth = pl.col("avg").rolling_mean(window, min_samples=window)
    # Distance outside the band's edge on ``side`` (positive: outside).
    out = smooth - band[1] if side == "above" else band[0] - smooth
    s = series.with_columns(out.alias("out")).filter(pl.col("t_s") >= after_s)
    left = s.filter(pl.col("out") > 0)
    if left.is_empty():
        return 0.0
    back = s.filter((pl.col("t_s") > left["t_s"][0]) & (pl.col("out") <= 0))
    return None if back.is_empty() else float(back["t_s"][0]) - after_s


def reared_step_advantage(series: pl.DataFrame, back_s: float | None, after_s: float = STEP_AT_S) -> float | None:
    """Fraction of the climb back (samples from the step until ``back_s``, the run's
    :func:`return_time`, with the average above the band) at which Re-ARED's increase of max_p is larger
    than ARED's would be from the same (avg, max_p):

        Re-ARED  0.25 max_p (avg - T)/T   (thesis Algorithm 2, T = REARED_TARGET_UP)
        ARED     min(0.01, 0.25 max_p)    (thesis Algorithm 1)

    Re-ARED's step is the larger one only where (avg - T)/T > min(1, 0.04/max_p): at
    small max_p the average must exceed 2 T, at large max_p ARED's step is capped at 0.01
    while Re-ARED's keeps growing. None if the average never rose above the band.
    """
    defaults = RedConfig()
    end = after_s + back_s if back_s is not None else float("inf")
    w = series.filter((pl.col("t_s") >= after_s) & (pl.col("t_s") < end) & (pl.col("avg") > TARGET_BAND[1]))
    if w.is_empty():
        return None
    reared = defaults.reared_increase_gain * pl.col("max_p") * (pl.col("avg") - REARED_TARGET_UP) / REARED_TARGET_UP
    # ARED's bound alpha < max_p/4 (Eq. 3.1.1) is the 0.25 Re-ARED's gain is taken from.
    ared = pl.min_horizontal(pl.lit(defaults.alpha), defaults.reared_increase_gain * pl.col("max_p"))
    return float(w.select((reared > ared).mean()).item())


def _run_step(args: tuple[str, int, Network, bool]) -> tuple[dict[str, Any], pl.DataFrame | None]:
    kind, seed, net, keep = args
    series = bottleneck_series(run(sharp_increase_scenario(kind, seed, net=net)))
    back_s = return_time(series)
    row = {
        "controller": kind, "network": net.name, "seed": seed, "return_s": back_s,
        "excess_pkts": excess_after_step(series), "reared_step_advantage": reared_step_advantage(series, back_s),
    }  # fmt: skip
    return row, series if keep else None


def run_sharp_increase(
    controllers: Iterable[str] = CONTROLLERS, seeds: Iterable[int] = (1,), workers: Workers = Workers(), net: Network = FLOYD_NETWORK
) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """S3-4 per controller and seed, one row each: :func:`return_time` (``return_s``),
    :func:`excess_after_step` (``excess_pkts``) and :func:`reared_step_advantage`; with the
    first seed's queue series per controller (Figs. 3.8, 3.9, 3.15, 3.24)."""
    return _rows_and_first_series(_run_step, controllers, seeds, workers, net)


#: The controllers of ``tahiliani-ch3-gentle``: FARED and the two it is compared with in Table 3.5.
GENTLE_CONTROLLERS = ("ared", "reared", "fared")


def gentle_differences(runs: pl.DataFrame) -> pl.DataFrame:
    """Per RED mode (``gentle``) and flow count: FARED's throughput (kbit/s) and drop rate
    (points) minus ARED's and Re-ARED's on the same seed (:func:`paired_differences`), beside
    the thesis's differences of Tables 3.3-3.6 (one run each, gentle mode not stated)."""
    parts = []
    for gentle in (True, False):
        part = runs.filter(pl.col("gentle") == gentle)
        tput = paired_differences(part, "throughput_kbps", "fared", ("ared", "reared"))
        drop = paired_differences(part, "drop_percent", "fared", ("ared", "reared")).drop("seeds")
        renamed = {c: c.replace("fared_minus", "drop") for c in drop.columns if c != "flows"}
        parts.append(tput.rename({c: c.replace("fared_minus", "tput") for c in tput.columns if c != "flows"}).join(drop.rename(renamed), on="flows").with_columns(pl.lit(gentle).alias("gentle")))
    thesis = pl.DataFrame(
        {
            "flows": list(THESIS_FLOWS),
            **{f"thesis_tput_{o}": [f - x for f, x in zip(THESIS_THROUGHPUT_KBPS["fared"], THESIS_THROUGHPUT_KBPS[o])] for o in ("ared", "reared")},
            **{f"thesis_drop_{o}": [round(f - x, 2) for f, x in zip(THESIS_DROP_PERCENT["fared"], THESIS_DROP_PERCENT[o])] for o in ("ared", "reared")},
        }
    )
    return pl.concat(parts).join(thesis, on="flows", how="left").sort("gentle", "flows", descending=[True, False])


def plot_gentle(differences: pl.DataFrame, path) -> None:
    """FARED minus ARED and Re-ARED (throughput, drop rate) against the number of flows, with
    RED's gentle region (solid) and without it (dashed); the thesis's differences as black diamonds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, metric, unit in ((axes[0], "tput", "kbit/s"), (axes[1], "drop", "points")):
        for i, other in enumerate(("ared", "reared")):
            for gentle, ls in ((True, "-"), (False, "--")):
                part = differences.filter(pl.col("gentle") == gentle).sort("flows")
                col = f"{metric}_{other}"
                ax.errorbar(part["flows"], part[col], yerr=part[f"{col}_ci95"], ls=ls, marker="o", ms=3, capsize=2, color=f"C{i}",
                            label=f"FARED - {LABELS[other]}, {'gentle' if gentle else 'not gentle'}")  # fmt: skip
            thesis = differences.filter(pl.col("gentle")).sort("flows")
            ax.plot(thesis["flows"], thesis[f"thesis_{metric}_{other}"], ls="none", marker="D", ms=4, color="black" if i == 0 else "grey",
                    label=f"thesis, FARED - {LABELS[other]}")  # fmt: skip
        ax.axhline(0, color="black", lw=0.5)
        ax.set(xlabel="FTP flows", ylabel=f"difference ({unit})")
    axes[0].set_title("throughput, FARED minus the others (Tables 3.3, 3.5)")
    axes[1].set_title("drop rate, FARED minus the others (Tables 3.4, 3.6)")
    axes[0].legend(fontsize="x-small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_versus_flows(comparison: pl.DataFrame, path) -> None:
    """Throughput and drop rate against the number of flows, ours (lines) and the thesis's (dashed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_t, ax_d) = plt.subplots(1, 2, figsize=(11, 4))
    for i, kind in enumerate(CONTROLLERS):
        part = comparison.filter(pl.col("controller") == kind).sort("flows")
        if part.is_empty():
            continue
        for ax, ours, theirs in ((ax_t, "throughput_kbps", "thesis_throughput_kbps"), (ax_d, "drop_percent", "thesis_drop_percent")):
            ax.plot(part["flows"], part[ours], marker="o", color=f"C{i}", label=f"{LABELS[kind]} (pertlab)")
            ax.plot(part["flows"], part[theirs], ls="--", color=f"C{i}", alpha=0.6, label=f"{LABELS[kind]} (thesis)")
    ax_t.set(xlabel="FTP flows", ylabel="bottleneck throughput (kbit/s)", title="Tables 3.3, 3.5, 3.8")
    ax_d.set(xlabel="FTP flows", ylabel="drop rate (%)", title="Tables 3.4, 3.6, 3.9")
    ax_d.legend(fontsize="x-small", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_average_queue(series: dict[str, pl.DataFrame], path, title: str, band: tuple[float, float] = TARGET_BAND) -> None:
    """Average queue (EWMA) over time per controller, with the target band shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(series), 1, figsize=(9, 2.2 * len(series)), sharex=True, squeeze=False)
    for ax, (kind, s) in zip(axes[:, 0], series.items()):
        ax.plot(s["t_s"], s["len_pkts"], lw=0.4, color="0.7", label="queue")
        ax.plot(s["t_s"], s["avg"], lw=1.0, color="C0", label="average")
        ax.axhspan(*band, color="C2", alpha=0.2, label=f"target {band[0]:g}..{band[1]:g}")
        ax.set(ylabel="packets", title=f"{LABELS.get(kind, kind)}: {title}")
        ax.legend(loc="upper right", fontsize="x-small")
    axes[-1, 0].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_max_p(series: dict[str, pl.DataFrame], path, title: str) -> None:
    """max_p over time per controller (Figs. 3.26-3.28)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 3.2))
    for i, (kind, s) in enumerate(series.items()):
        ax.plot(s["t_s"], s["max_p"], lw=0.9, color=f"C{i}", label=LABELS.get(kind, kind))
    ax.set(xlabel="time (s)", ylabel="max_p", title=title)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_statistics(sets: list[tuple[str, pl.DataFrame]], panels: list[tuple[str, str]], path, title: str) -> None:
    """One panel per ``(metric, title)``: a bar per controller for each ``(label, table)`` of
    ``sets`` (tables of per-controller means, as :func:`pertlab.sweep.aggregate` makes them),
    with the 95 % interval over seeds as error bars where the table has one."""
    from ..plots import _interval, _panels

    with _panels(path, len(panels), (4.25, 3.4), title) as axes:
        for ax, (metric, panel_title) in zip(axes, panels):
            width = 0.8 / len(sets)
            for i, (label, table) in enumerate(sets):
                t = pl.DataFrame({"controller": list(CONTROLLERS)}).join(table, on="controller", how="left", maintain_order="left")
                x = [j + (i - (len(sets) - 1) / 2) * width for j in range(t.height)]
                err = _interval(t, metric) if "seeds" in t.columns and t["seeds"].max() > 1 else None
                ax.bar(x, t[metric].to_list(), width, yerr=err, capsize=3, color=f"C{i}", label=label or None)
            ax.set_xticks(range(len(CONTROLLERS)), [LABELS[k] for k in CONTROLLERS])
            ax.set_title(panel_title, fontsize=10)
        if len(sets) > 1:
            axes[0].legend(fontsize=8)
