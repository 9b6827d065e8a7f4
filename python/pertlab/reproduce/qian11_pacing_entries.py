"""Registry entry ``qian11-pacing``: Qian's 2011 thesis, Chapter IV.C, Figs 25 to 29: PERT flows
with pacing and ACK coalescing ("Delay Pacing"), coalescing alone ("Delay ACK") and neither
("No Delay") on one bottleneck; each flavour's bandwidth and loss (Fig 25), the fairness of
Delay Pacing against Delay ACK along sweeps of the flow count, the Delay ACK share, the buffer,
the RTT and HTTP cross traffic (Figs 26-28), and video streams with greedy flows of one flavour
along the buffer (Fig 29). Every claim is computed from the runs. Scenario choices and what is
left out: :mod:`pertlab.experiments.qian11_pacing`."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..experiments import qian11_pacing as p
from ..parallel import Workers
from ..plots import saved_figure
from .registry import Claim, Entry, Figure, Report, Wire, fmt_values, rank_correlation, register

NAME = "qian11-pacing"
TITLE = "Figs 25-29: PERT with pacing and ACK coalescing, bandwidth, loss and fairness against Delay ACK, video"
SOURCE = "Qian, MS thesis, 2011, Chapter IV.C"
QUICK = p.Setup(
    "30s", "10s", (1,),
    {"flows": (10, 40, 100), "delay_ack_share": (0.1, 0.9), "bdp_factor": (0.4, 4.0), "rtt_ms": (10, 100), "http_sessions": (1000,)},
    (0.4, 4.0),
)  # fmt: skip
FULL = p.Setup(
    "300s", "30s", (1, 2, 3),
    {"flows": (10, 30, 40, 60, 80, 100), "delay_ack_share": (0.1, 0.2, 0.3, 0.7, 0.9, 1.0), "bdp_factor": (0.4, 0.7, 1.5, 2.0, 3.0, 4.0),
     "rtt_ms": (10, 20, 60, 80, 100), "http_sessions": (100, 250, 500, 750, 1000)},
    (0.4, 0.6, 0.8, 1.0, 2.0, 4.0),
)  # fmt: skip
#: "Nearly the same bandwidth" (Fig 25a): each flavour's mean goodput per flow within this
#: fraction of the mean over all flows of the run.
NEAR = 0.1
#: "In almost all cases" (Section IV.C, after Fig 26): the share of sweep points at which Delay
#: Pacing must be the fairer flavour.
ALMOST_ALL = 0.8
#: The further sweeps the "almost all cases" sentence covers.
FURTHER = ("delay_ack_share", "bdp_factor", "rtt_ms", "http_sessions")
LABELS = {"flows": "flows", "delay_ack_share": "Delay ACK share", "bdp_factor": "buffer / BDP", "rtt_ms": "RTT (ms)", "http_sessions": "HTTP sessions"}


def _scenarios(quick: bool) -> Wire:
    """Each run's scenario at the first seed (the others differ only in the seed)."""
    setup = QUICK if quick else FULL
    out = {}
    for sweep, point, _, seed in p.tasks(setup):
        if seed != setup.seeds[0]:
            continue
        key = f"{sweep}-" + "-".join(f"{k}={v:g}" if isinstance(v, (int, float)) else f"{k}={v}" for k, v in point.items())
        if sweep == "video":
            out[key] = p.video_scenario(point["flavour"], point["bdp_factor"], setup, seed, point.get("ack_timeout_factor")).to_wire()
        else:
            counts, link = p.run_setup(sweep, point)
            out[key] = p.scenario(counts, point, setup, seed, **link).to_wire()
    return out


def _run(quick: bool, out: Path, workers: Workers) -> Report:
    setup = QUICK if quick else FULL
    tasks = p.tasks(setup)
    groups = workers.map(p.task, tasks)
    runs = pl.DataFrame([row for (kind, *_), rows in zip(tasks, groups) if kind != "video" and kind not in p.TEST_SWEEPS for row in rows])
    test_runs = pl.DataFrame([row for (kind, *_), rows in zip(tasks, groups) if kind in p.TEST_SWEEPS for row in rows])
    video_runs = pl.DataFrame([row for (kind, *_), rows in zip(tasks, groups) if kind == "video" for row in rows])
    video = (
        video_runs.group_by("flavour", "bdp_factor", maintain_order=True)
        .agg(pl.col("aggregate_mbps", "worst_late_fraction", "mean_late_fraction", "video_goodput_mbps", "greedy_goodput_mbps", "avg_queue_norm").mean(),
             pl.col("drops").mean(), pl.col("stalled_streams", "first_q_above_t_max").sum(), pl.col("worst_late_stalled", "worst_late_unstalled").max(),
             pl.col("floor_sample_gap_ms").mean())
        .sort("flavour", "bdp_factor")
    )  # fmt: skip
    # One row per stalled stream: PERT's estimate and the bottleneck's queueing delay over its floor seconds.
    stalls = video_runs.select("flavour", "bdp_factor", "seed", "stalls").explode("stalls").drop_nulls("stalls").unnest("stalls")
    video_runs = video_runs.drop("stalls")
    fig25 = (
        runs.filter(pl.col("sweep") == "fig25").group_by("flavour", maintain_order=True)
        .agg(pl.col("goodput_mbps", "share", "drop_rate", "jain", "data_ack_ratio", "rtt_mean_ms", "early_per_segment", "queue_ahead_pkts").mean(), pl.col("timeouts").sum())
    )  # fmt: skip
    fairness = p.fairness(runs)
    # The thesis's flow-count sweep beside pertlab's two tests of it (one row per sweep and flow count).
    fairness_tests = p.fairness(pl.concat([runs.filter(pl.col("sweep").is_in(["base", "flows"])).with_columns(sweep=pl.lit("flows")), test_runs], how="diagonal_relaxed")).sort("sweep", "flows")
    report = Report(
        NAME, TITLE, SOURCE, "quick" if quick else "full", out,
        notes=[
            f"{setup.duration} runs, metrics after {setup.warmup}, seeds {fmt_values(list(setup.seeds))}; flows start uniformly in the "
            f"first {p.START_WINDOW} (drawn from the seed), so the seeds differ in the flows' start times and the web sessions' draws.",
            f"Every flow is PERT on a {p.BOTTLENECK_MBPS:g} Mbit/s drop-tail dumbbell, 1000-byte packets, buffer = BDP factor x BDP; "
            "Delay Pacing = adaptive delayed ACK (up to 4 segments per ACK) + sender pacing (srtt / cwnd), Delay ACK = the adaptive "
            "receiver alone, No Delay = an ACK per segment; receivers echo the newest segment's timestamp (ns-2's sinks). The thesis "
            f"gives no link, buffer or packet size for Chapter IV; {p.BOTTLENECK_MBPS:g} Mbit/s keeps several packets per flow at 100 "
            "flows (Chapter V's 3 Mbit/s would leave a fifth of one).",
            f"Fig 25: {p.FIG25_FLOWS_PER_FLAVOUR} flows of each flavour at the base point. Sweeps move one parameter of the base point "
            f"({', '.join(f'{k} {v:g}' for k, v in p.BASE.items())}); the Delay ACK share is rounded to whole flows; HTTP cross "
            f"traffic is ns-2 WebTraf sessions (mean think time {p.THINK_TIME}) over PERT with every-segment receivers.",
            "Fairness: Jain's index over the goodputs of one flavour's flows (jain_pacing, jain_ack), the mean over the seeds; Delay "
            "Pacing is fairer at a point when its index is above Delay ACK's. The thesis does not say what its fairness compares; "
            "the index over all flows (jain_all) and each flavour's bandwidth share against its share of the flows (share, "
            "fair_share) are in the tables. normalised queue = the bottleneck's mean queue over its buffer (the whole queue, "
            "not per flavour).",
            "Loss: PERT responds to queueing delay of 5 to 20 ms, far below a one-BDP buffer at this rate (40 ms at the base "
            "RTT), so at most points no flavour loses a packet (drop ratio 0 for all): Fig 25b has nothing to rank there. "
            "Losses appear where the buffer is a few ms (short RTTs, small BDP factors); the claim on the sweeps' drop ratios "
            "counts those points.",
            "Why the bandwidths differ (Fig 25a), measured: PERT draws its early response once per ACK (at most once per RTT), "
            "so a No Delay flow, which returns an ACK per segment, draws about three times as often per segment as a "
            "coalescing flow at the same queueing delay and responds more often (early_per_segment; data_ack_ratio), and gets "
            "the least. Delay Pacing and Delay ACK flows return about as many ACKs per segment, but the paced flows' RTT samples "
            "average above the unpaced ones' in the same run (rtt_mean_ms), and they respond more often per segment: they get "
            "less than their share of the flows (share against fair_share in the fairness table). The longer samples are not "
            "a longer queue: the paced segments find as many packets ahead of them at the bottleneck as the unpaced ones "
            "(queue_ahead_pkts; the claim on the base point below). They fit the receiver's ACK timer: with ns-2's echo of the "
            "newest segment, an ACK the timer sends (up to twice the expected gap after the last paced segment) carries that "
            "wait in its sample, and with the timer at half the expected gap instead the paced flows' samples equal the "
            "others'; their share then falls further, the receiver acknowledging every paced segment (more draws, as No "
            "Delay). (Aggarwal, Savage and Anderson, the thesis's [18], also found paced flows losing to unpaced competitors, "
            "there through drop-tail losses.)",
            "Fairness: loss-free PERT flows converge to nearly equal rates within a flavour (Jain indices near 1 at every "
            "point), so the differences between the flavours' indices are in the third decimal or below and change sign from "
            "point to point and between the quick and the full mode: neither the fall with the flow count nor a gain from "
            "pacing shows. pertlab tests two explanations on the flow-count sweep (tables fairness_tests, test_runs). Phase "
            f"lock (Floyd and Jacobson 1992) is not it: the sweep loses no packet, the flows' goodputs differ (goodput_cv), and "
            f"ns-2's random send overhead (U(0, {p.TEST_SWEEPS['flows+overhead']['overhead']}), sweep flows+overhead) leaves the "
            "indices where they were. A queue that cannot drain is: on a "
            f"{p.TEST_SWEEPS['flows@10Mbps']['bw_mbps']:g} Mbit/s link (sweep flows@10Mbps), once PERT's floor window of "
            f"{MIN_WINDOW_PKTS} segments per flow exceeds the BDP, the queue stands; flows that start after it formed never see the "
            "empty path, take a longer minimum RTT as their base (min_rtt_spread_ms), see less queueing delay than there is and "
            "get more (min_rtt_rho), while the first flows sit at the floor window (the persistent congestion Low, Peterson and "
            "Wang found for Vegas, 2002). There both indices fall with the flow count and Delay Pacing's is mostly the higher. "
            "The sweep flows@10Mbps+P runs the same with every flow given its path's RTT as P (base_rtt propagation, an "
            "oracle), which takes the split base out and leaves the standing queue, and flows@10Mbps+P-no-delay that with No "
            "Delay flows in the Delay ACK flows' place, which tells pacing from ACK coalescing. "
            f"On the {p.BOTTLENECK_MBPS:g} Mbit/s link every flow learns the same base. The thesis gives no link for Chapter IV; "
            "Chapter V's 3 Mbit/s (BDP 15 packets at 40 ms) would be in that regime from 8 flows on.",
            f"Fig 29: per run {p.VIDEO_GREEDY} greedy flows and {p.VIDEO_STREAMS} live video streams of {p.VIDEO_RATE_MBPS:.3g} Mbit/s "
            f"(T/mu {p.VIDEO_T_MU:g} at an equal share of the link: the thesis gives no load), start-up delay {p.VIDEO_STARTUP}, all "
            "PERT of one flavour, base link and RTT, buffer = BDP factor x BDP. aggregate = the goodput of all flows; worst late "
            "fraction = the largest fraction of a stream's packets that missed their playout time, per run; both the mean over "
            "the seeds (table video; per run: video_runs). The claims compare Delay Pacing with No Delay, as the thesis does. "
            "The worst stream is one stream of ten in a run: a stream that falls behind its schedule after repeated early "
            "responses sets it, so it varies much between seeds (video_runs). The aggregate is set by the greedy flows (the "
            "streams get their rate with every flavour): No Delay's respond early more often (an ACK per segment, Fig 25's "
            "mechanism) and leave more of the link idle, at every buffer, not only below one BDP; over 30 s (quick mode) the "
            "difference is within the noise. Only Delay Pacing's streams are late in more than a few runs (Fig 29b), and "
            "the late ones are the streams that stall at PERT's floor window of 2 segments for seconds after their start "
            f"(stalled_streams: at cwnd 2 in more than {p.STALL_SECONDS} of the per-second samples after the stream's first "
            "second); they fall seconds behind their schedule there and catch up later. No unpaced stream stalls so. The stall "
            "needs the adaptive receiver's ACK timer (up to two expected gaps after the last paced segment): with it at half a "
            "gap (flavour 'delay-pacing, timer 0.5', the receiver acknowledging each paced segment) no Delay Pacing stream is late. "
            "What holds a stalled stream at the floor is PERT's own estimate: srtt_0.99 moves 1 % of the way to each RTT sample, "
            "so after a stream's first samples meet a full buffer its estimate stays above T_max (response probability near 1) "
            "for tens of samples after the queue has drained; at the floor the receiver acknowledges a paced pair of segments "
            "once, about every 1.5 RTT, where an unpaced pair gets two ACKs an RTT. Table stalls: each stalled stream's mean "
            "estimate and the bottleneck's queueing delay over its floor seconds (video_runs: floor_sample_gap_ms, the mean time "
            "from an RTT sample at the floor window to the next).",
        ],
    )  # fmt: skip
    report.tables = {"fig25": fig25, "fairness": fairness, "fairness_tests": fairness_tests, "video": video, "runs": runs, "video_runs": video_runs, "test_runs": test_runs, "stalls": stalls}
    report.claims = _fig25_claims(fig25) + _fairness_claims(fairness) + _video_claims(video) + [_queue_claim(runs)] + _fairness_test_claims(fairness_tests) + [_pacing_or_coalescing_claim(test_runs), _video_test_claim(video)] + _stall_claims(video) + [_memory_claim(video, stalls)]
    return report


#: "As many packets ahead": within one packet (0.16 ms at 50 Mbit/s with 1000-byte packets).
SAME_QUEUE_PKTS = 1.0


def _queue_claim(runs: pl.DataFrame) -> Claim:
    """pertlab's test of where the paced flows' longer RTT samples come from, at the base point."""
    base = runs.filter(pl.col("sweep") == "base").group_by("flavour").agg(pl.col("queue_ahead_pkts", "rtt_mean_ms").mean())
    m = {f: (q, r) for f, q, r in base.iter_rows()}
    (qp, rp), (qa, ra) = m["delay-pacing"], m["delay-ack"]
    pkt_ms = p.PACKET_BYTES * 8 / (p.BOTTLENECK_MBPS * 1e3)
    return Claim(
        f"pertlab: the paced flows' longer RTT samples do not come from the bottleneck queue: at the base point their segments find as "
        f"many packets ahead (within {SAME_QUEUE_PKTS:g}) as the unpaced flows' while their mean sample is longer by more than that queue "
        "difference.",
        abs(qp - qa) <= SAME_QUEUE_PKTS and (rp - ra) > abs(qp - qa) * pkt_ms,
        f"packets ahead at the bottleneck on arrival: Delay Pacing {qp:.3g}, Delay ACK {qa:.3g} ({(qp - qa) * pkt_ms:.3g} ms at "
        f"{pkt_ms:.3g} ms a packet); mean RTT sample: Delay Pacing {rp:.4g} ms, Delay ACK {ra:.4g} ms ({rp - ra:+.3g} ms)",
    )


#: "Within" for the phase-lock test: the send overhead moves no flavour's index by more than this.
PHASE_JAIN = 0.01
#: Goodputs "not equal": the coefficient of variation of a flavour's flows above this (phase-locked
#: identical flows would have equal goodputs to many digits).
UNEQUAL_CV = 0.005
#: "Agree on the base RTT": the flows' minimum RTTs within this many ms of each other (a packet is
#: 0.16 ms at 50 Mbit/s); "disagree": over BASE_RTT_SPLIT_MS apart.
BASE_RTT_AGREE_MS = 1.0
BASE_RTT_SPLIT_MS = 10.0
#: PERT's floor window (its early response keeps at least 2 segments): from this many packets per
#: flow on, the windows alone exceed the BDP and the queue cannot drain.
MIN_WINDOW_PKTS = 2
#: The BDP of the fairness tests' slower link (BASE's RTT at flows@10Mbps's rate), packets.
SMALL_LINK_BDP = p.BASE["rtt_ms"] * 1e-3 * p.TEST_SWEEPS["flows@10Mbps"]["bw_mbps"] * 1e6 / (8 * p.PACKET_BYTES)
#: The rows of that link's runs in which the queue stands: PERT's floor windows exceed the BDP.
STANDING = pl.col("flows") * MIN_WINDOW_PKTS > SMALL_LINK_BDP


def _fairness_test_claims(t: pl.DataFrame) -> list[Claim]:
    """pertlab's tests of why the fairness claims fail: phase lock (the send overhead), and a
    standing queue that splits the flows' base RTTs (the 10 Mbit/s link)."""
    plain, over, small, given = (t.filter(sweep=s).sort("flows") for s in ("flows", "flows+overhead", "flows@10Mbps", "flows@10Mbps+P"))
    n = plain["flows"].to_list()
    shift = max(abs(plain[f"jain_{tag}"].mean() - over[f"jain_{tag}"].mean()) for tag in ("pacing", "ack"))
    rho_over = {tag: rank_correlation(n, over[f"jain_{tag}"].to_list()) for tag in ("pacing", "ack")}
    cv = min(x for tag in ("pacing", "ack") for x in plain[f"goodput_cv_{tag}"].to_list())
    bdp = SMALL_LINK_BDP
    standing, standing_given = small.filter(STANDING), given.filter(STANDING)
    rises = {tag: [b > a for a, b in zip(standing[f"jain_{tag}"].to_list(), standing_given[f"jain_{tag}"].to_list())] for tag in ("pacing", "ack")}
    ns = small["flows"].to_list()
    rho = {tag: rank_correlation(ns, small[f"jain_{tag}"].to_list()) for tag in ("pacing", "ack")}
    fairer = standing["pacing_fairer"].to_list()
    top = small.row(-1, named=True)
    spread50 = max(x for tag in ("pacing", "ack") for x in plain[f"min_rtt_spread_ms_{tag}"].to_list())
    return [
        Claim(f"pertlab: the Jain indices near 1 are not phase lock: with ns-2's random send overhead (U(0, {p.TEST_SWEEPS['flows+overhead']['overhead']})) "
              "Fig 26's pattern still does not appear (the indices do not fall with the flow count for both flavours, or Delay Pacing is not the "
              f"fairer at every count), each flavour's mean index over the flow counts moves by at most {PHASE_JAIN:g}, and without the overhead no "
              f"flavour's flows get equal goodputs (coefficient of variation above {100 * UNEQUAL_CV:g} % at every flow count).",
              not (all(r < 0 for r in rho_over.values()) and all(over["pacing_fairer"].to_list())) and shift <= PHASE_JAIN and cv > UNEQUAL_CV,
              f"flows {fmt_values(n)}: Jain without the overhead: Delay Pacing {fmt_values(plain['jain_pacing'].to_list())}, Delay ACK "
              f"{fmt_values(plain['jain_ack'].to_list())}; with it: {fmt_values(over['jain_pacing'].to_list())} (rank corr. {rho_over['pacing']:.2f}), "
              f"{fmt_values(over['jain_ack'].to_list())} ({rho_over['ack']:.2f}), Delay Pacing fairer at {sum(over['pacing_fairer'].to_list())} of "
              f"{over.height}; mean index moved by at most {shift:.2g}; smallest goodput CV without it {100 * cv:.2g} %"),
        Claim(f"pertlab: Fig 26c's fall appears where the flows cannot drain the queue: on a {p.TEST_SWEEPS['flows@10Mbps']['bw_mbps']:g} Mbit/s "
              f"link (BDP {bdp:.0f} packets; from {standing['flows'].min()} flows on, {MIN_WINDOW_PKTS} packets per flow, PERT's floor window, exceed "
              "it) both flavours' indices fall as the flows rise (rank correlation with the flow count negative for both).",
              all(r < 0 for r in rho.values()),
              f"flows {fmt_values(ns)}: Jain Delay Pacing {fmt_values(small['jain_pacing'].to_list())} (rank corr. {rho['pacing']:.2f}), Delay ACK "
              f"{fmt_values(small['jain_ack'].to_list())} ({rho['ack']:.2f}); mean queue / buffer {fmt_values(small['avg_queue_norm'].to_list())}"),
        Claim(f"pertlab: Fig 26's ranking appears there too: on the {p.TEST_SWEEPS['flows@10Mbps']['bw_mbps']:g} Mbit/s link Delay Pacing's index "
              f"is above Delay ACK's at every flow count at which {MIN_WINDOW_PKTS} packets per flow exceed the BDP.",
              len(fairer) > 0 and all(fairer),
              f"Delay Pacing fairer at {sum(fairer)} of {len(fairer)} flow counts ({fmt_values(standing['flows'].to_list())}): Jain Delay Pacing "
              f"{fmt_values(standing['jain_pacing'].to_list())}, Delay ACK {fmt_values(standing['jain_ack'].to_list())}"),
        Claim(f"pertlab: there the flows disagree on the base RTT: on the {p.TEST_SWEEPS['flows@10Mbps']['bw_mbps']:g} Mbit/s link at {top['flows']} flows "
              f"each flavour's minimum RTTs span over {BASE_RTT_SPLIT_MS:g} ms and its flows with the longer minimum get more (rank correlation of "
              f"minimum RTT with goodput positive for both), while on the {p.BOTTLENECK_MBPS:g} Mbit/s link every flavour's minimum RTTs are within "
              f"{BASE_RTT_AGREE_MS:g} ms at every flow count.",
              min(top["min_rtt_spread_ms_pacing"], top["min_rtt_spread_ms_ack"]) > BASE_RTT_SPLIT_MS
              and min(top["min_rtt_rho_pacing"] or 0, top["min_rtt_rho_ack"] or 0) > 0 and spread50 <= BASE_RTT_AGREE_MS,
              f"{p.TEST_SWEEPS['flows@10Mbps']['bw_mbps']:g} Mbit/s, {top['flows']} flows: minimum RTTs span {top['min_rtt_spread_ms_pacing']:.3g} ms "
              f"(Delay Pacing), {top['min_rtt_spread_ms_ack']:.3g} ms (Delay ACK); rank corr. with goodput {top['min_rtt_rho_pacing'] or float('nan'):.2f}, "
              f"{top['min_rtt_rho_ack'] or float('nan'):.2f}; {p.BOTTLENECK_MBPS:g} Mbit/s: largest span {spread50:.2g} ms"),
        Claim(f"pertlab: the split base RTT is part of that unfairness: on the {p.TEST_SWEEPS['flows@10Mbps']['bw_mbps']:g} Mbit/s link, with every "
              "flow given its path's RTT as P (an oracle), both flavours' indices rise at every flow count at which "
              f"{MIN_WINDOW_PKTS} packets per flow exceed the BDP.",
              standing_given["flows"].to_list() == standing["flows"].to_list() and len(standing) > 0 and all(all(r) for r in rises.values()),
              f"flows {fmt_values(standing['flows'].to_list())}: Jain Delay Pacing {fmt_values(standing['jain_pacing'].to_list())} measured, "
              f"{fmt_values(standing_given['jain_pacing'].to_list())} given; Delay ACK {fmt_values(standing['jain_ack'].to_list())} measured, "
              f"{fmt_values(standing_given['jain_ack'].to_list())} given; Delay Pacing fairer with P given at "
              f"{sum(standing_given['pacing_fairer'].to_list())} of {len(standing_given)}"),
    ]  # fmt: skip


def _pacing_or_coalescing_claim(test_runs: pl.DataFrame) -> Claim:
    """pertlab's test of what keeps Delay Pacing the fairer with P given: pacing, or the Delay ACK
    receiver's coalescing (its wait for a second segment enters the sender's RTT samples)?"""
    given = (
        test_runs.filter(pl.col("sweep").is_in(["flows@10Mbps+P", "flows@10Mbps+P-no-delay"]) & STANDING)
        .group_by("sweep", "flows", "flavour").agg(pl.col("jain").mean())
    )  # fmt: skip
    index = {(r["sweep"], r["flows"], r["flavour"]): r["jain"] for r in given.iter_rows(named=True)}
    ns = sorted({n for _, n, _ in index})
    paced = [index[("flows@10Mbps+P-no-delay", n, "delay-pacing")] for n in ns]
    every = [index[("flows@10Mbps+P-no-delay", n, "no-delay")] for n in ns]
    coalesced = [index[("flows@10Mbps+P", n, "delay-ack")] for n in ns]
    return Claim(
        f"pertlab: with P given, what keeps Delay Pacing the fairer on the {p.TEST_SWEEPS['flows@10Mbps']['bw_mbps']:g} Mbit/s link is pacing, not "
        "the Delay ACK receiver's coalescing (whose wait enters the sender's RTT samples): with No Delay flows (an ACK per segment, unpaced) "
        "in the Delay ACK flows' place, Delay Pacing's index is above theirs at every standing-queue flow count.",
        bool(ns) and all(a > b for a, b in zip(paced, every)),
        f"flows {fmt_values(ns)}, P given: Jain Delay Pacing {fmt_values(paced)} beside No Delay {fmt_values(every)}; Delay ACK beside "
        f"Delay Pacing {fmt_values(coalesced)}",
    )


def _stall_claims(t: pl.DataFrame) -> list[Claim]:
    """pertlab's test of how pacing makes streams late: the stall at the floor window, and the
    receiver's ACK timer it needs."""
    def col(flavour: str, name: str) -> dict[float, float]:
        part = t.filter(pl.col("flavour") == flavour).sort("bdp_factor")
        return dict(zip(part["bdp_factor"].to_list(), part[name].to_list()))

    stalled = {f: sum(col(f, "stalled_streams").values()) for f in p.FLAVOURS}
    s_late, u_late = col("delay-pacing", "worst_late_stalled"), col("delay-pacing", "worst_late_unstalled")
    with_stall = [b for b, x in s_late.items() if x is not None]
    [test] = p.VIDEO_TESTS
    late_p, late_t, stalled_t = col("delay-pacing", "worst_late_fraction"), col(test, "worst_late_fraction"), sum(col(test, "stalled_streams").values())
    at = [b for b in late_p if late_p[b] > 0]
    factors = list(late_p)
    return [
        Claim(f"pertlab: Delay Pacing's late streams are the ones that stall at PERT's floor window after their start (cwnd 2 in more than {p.STALL_SECONDS} "
              "of the per-second samples): only paced streams stall (no Delay ACK or No Delay stream does), and at every BDP factor with a stalled "
              "stream the worst stalled stream is later than the worst of the others.",
              stalled["delay-pacing"] > 0 and stalled["delay-ack"] == 0 and stalled["no-delay"] == 0 and all(s_late[b] > (u_late[b] or 0) for b in with_stall),
              f"stalled streams over all runs: {', '.join(f'{k} {v}' for k, v in stalled.items())}; Delay Pacing, BDP factors {fmt_values(factors)}: "
              f"worst late fraction of the stalled {', '.join('-' if s_late[b] is None else f'{s_late[b]:.3g}' for b in factors)}, of the others "
              f"{', '.join('-' if u_late[b] is None else f'{u_late[b]:.3g}' for b in factors)}"),
        Claim("pertlab: the stall needs the adaptive receiver's ACK timer: with the timer at half the expected gap instead of two (each paced segment "
              "acknowledged), fewer paced streams stall and Delay Pacing's worst late fraction is below the default's at every BDP factor where "
              "that is above 0.",
              len(at) > 0 and stalled_t < stalled["delay-pacing"] and all(late_t[b] < late_p[b] for b in at),
              f"BDP factors {fmt_values(factors)}: worst late fraction, timer 2 gaps {fmt_values([late_p[b] for b in factors])}, half a gap "
              f"{fmt_values([late_t[b] for b in factors])}; stalled streams {stalled['delay-pacing']}, {stalled_t}"),
    ]  # fmt: skip


#: The share of stalled streams whose PERT estimate must exceed the bottleneck's queueing delay by
#: more than T_min for the memory claim ("most": the queue itself may also be high at a stall).
MEMORY_SHARE = 0.75
#: How much further apart a paced stream's RTT samples must come at the floor window than an
#: unpaced one's: the adaptive receiver acknowledges a paced pair once (Delay ACK's back-to-back
#: pair is acknowledged segment by segment, the second as the window's last), so at least twice.
FLOOR_GAP_RATIO = 2.0


def _memory_claim(t: pl.DataFrame, stalls: pl.DataFrame) -> Claim:
    """pertlab's test of why a paced stream stays at the floor: PERT's srtt_0.99 still holds a
    queue that has gone (every stream's first estimates are taken while the others' slow starts
    fill the buffer), and at the floor a paced stream's samples come too seldom to forget it soon."""
    [test] = p.VIDEO_TESTS
    gap = {f: t.filter(pl.col("flavour") == f)["floor_sample_gap_ms"].mean() for f in (*p.FLAVOURS, test)}
    high_start = {f: t.filter(pl.col("flavour") == f)["first_q_above_t_max"].sum() for f in p.FLAVOURS}
    paced = stalls.filter(pl.col("flavour") == "delay-pacing")
    remembered = paced.filter(pl.col("q_ms") - pl.col("queue_ms") > p.T_MIN_MS).height
    unpaced = [f for f in p.FLAVOURS if f != "delay-pacing"]
    holds = (
        paced.height > 0 and remembered >= MEMORY_SHARE * paced.height and all(high_start[f] > 0 for f in unpaced)
        and all(gap[f] is not None for f in p.FLAVOURS) and all(gap["delay-pacing"] >= FLOOR_GAP_RATIO * gap[f] for f in unpaced)
    )  # fmt: skip
    shown = "; ".join(f"{f}: {'-' if gap[f] is None else f'{gap[f]:.3g} ms'}" for f in gap)
    return Claim(
        f"pertlab: a paced stream stalls because PERT's estimate remembers a queue that has gone: while it is stalled, PERT's estimate (srtt_0.99 - P) "
        f"exceeds the bottleneck's queueing delay by more than T_min ({p.T_MIN_MS:g} ms) for most stalled streams (at least {MEMORY_SHARE:.0%}); "
        f"unpaced streams also start with an estimate above T_max ({p.T_MAX_MS:g} ms), but at the floor window a paced stream's RTT samples come "
        f"at least {FLOOR_GAP_RATIO:g} times as far apart as an unpaced one's (the receiver acknowledges a paced pair once), so srtt_0.99, which "
        "moves 1 % of the way to each sample, takes that much longer to forget.",
        holds,
        f"stalled Delay Pacing streams {paced.height}, estimate above the queueing delay by more than T_min in {remembered}; over their floor "
        f"seconds, mean estimate {paced['q_ms'].mean() or float('nan'):.3g} ms, mean queueing delay {paced['queue_ms'].mean() or float('nan'):.3g} ms; "
        f"streams whose first estimate is above T_max: {', '.join(f'{f} {n}' for f, n in high_start.items())}; mean time from an RTT sample at "
        f"the floor window to the next: {shown}",
    )  # fmt: skip


def _video_test_claim(t: pl.DataFrame) -> Claim:
    """pertlab's test of Fig 29b: Delay ACK is Delay Pacing without the pacing."""
    late = {f: dict(zip(g["bdp_factor"].to_list(), g["worst_late_fraction"].to_list())) for (f,), g in t.group_by("flavour")}
    late_p, late_a = late["delay-pacing"], late["delay-ack"]
    at = [b for b in sorted(late_p) if late_p[b] > 0]
    return Claim(
        "pertlab: Delay Pacing's late streams come with its pacing, not its receiver: at every BDP factor at which Delay Pacing's worst "
        "stream is late at all, Delay ACK's (the same adaptive receiver, unpaced) has the lower late fraction.",
        len(at) > 0 and all(late_a[b] < late_p[b] for b in at),
        f"BDP factors {fmt_values(sorted(late_p))}: worst late fraction Delay Pacing {fmt_values([late_p[b] for b in sorted(late_p)])}, "
        f"Delay ACK {fmt_values([late_a[b] for b in sorted(late_p)])}",
    )


def _fig25_claims(t: pl.DataFrame) -> list[Claim]:
    goodput = dict(zip(t["flavour"].to_list(), t["goodput_mbps"].to_list()))
    drops = dict(zip(t["flavour"].to_list(), t["drop_rate"].to_list()))
    mean = sum(goodput.values()) / len(goodput)
    return [
        Claim(f"Fig 25a: the three flavours get nearly the same bandwidth (each flavour's mean goodput per flow within {100 * NEAR:g} % of the mean).",
              all(abs(g / mean - 1) <= NEAR for g in goodput.values()),
              "Mbit/s per flow: " + ", ".join(f"{k} {g:.3g}" for k, g in goodput.items())),
        Claim("Fig 25b: Delay Pacing (pacing and ACK coalescing) has the lowest loss rate of the three (strictly below the other two).",
              all(drops["delay-pacing"] < d for k, d in drops.items() if k != "delay-pacing"),
              "drop ratio: " + ", ".join(f"{k} {d:.3g}" for k, d in drops.items())),
    ]  # fmt: skip


def _along(t: pl.DataFrame, sweep: str) -> pl.DataFrame:
    """The points of one sweep, the base point included, in the sweep's order."""
    return t.filter((pl.col("sweep") == sweep) | (pl.col("sweep") == "base")).sort(sweep)


def _fairness_claims(t: pl.DataFrame) -> list[Claim]:
    flows = _along(t, "flows")
    n = flows["flows"].to_list()
    rho = {tag: rank_correlation(n, flows[f"jain_{tag}"].to_list()) for tag in ("pacing", "ack")}
    fairer = flows["pacing_fairer"].to_list()
    further = t.filter(pl.col("sweep").is_in(["base", *FURTHER]) & pl.col("pacing_fairer").is_not_null())
    count = {s: (sum(x := _along(further, s)["pacing_fairer"].to_list()), len(x)) for s in FURTHER}
    held = further["pacing_fairer"].to_list()
    lossy = t.drop_nulls(["drop_rate_pacing", "drop_rate_ack"]).filter((pl.col("drop_rate_pacing") > 0) | (pl.col("drop_rate_ack") > 0))
    lower = (lossy["drop_rate_pacing"] < lossy["drop_rate_ack"]).to_list()
    return [
        Claim("Figs 26b-28b (Fig 25b's statement along the sweeps, our reading): at the points where either flavour loses packets, "
              "Delay Pacing's drop ratio is below Delay ACK's at most (over half) of them.",
              len(lower) > 0 and sum(lower) > len(lower) / 2,
              f"{sum(lower)} of {len(lower)} points with loss (of {t.height}); drop ratio Delay Pacing {fmt_values(lossy['drop_rate_pacing'].to_list())}, "
              f"Delay ACK {fmt_values(lossy['drop_rate_ack'].to_list())}"),
        Claim("Fig 26c: the fairness of both flavours falls as the flows rise from 10 to 100 (Jain index among a flavour's flows; rank correlation with the flow count negative for both).",
              all(r < 0 for r in rho.values()),
              f"flows {fmt_values(n)}: Jain Delay Pacing {fmt_values(flows['jain_pacing'].to_list())} (rank corr. {rho['pacing']:.2f}), "
              f"Delay ACK {fmt_values(flows['jain_ack'].to_list())} ({rho['ack']:.2f})"),
        Claim("Fig 26: Delay Pacing is always fairer than Delay ACK (higher Jain index among its own flows at every flow count).",
              all(fairer), f"{sum(fairer)} of {len(fairer)} flow counts"),
        Claim(f"Figs 27, 28 and the share and HTTP sweeps: in almost all cases (at least {100 * ALMOST_ALL:g} % of the points) Delay Pacing is fairer than Delay ACK.",
              sum(held) >= ALMOST_ALL * len(held),
              f"{sum(held)} of {len(held)} points (base counted once); " + "; ".join(f"{LABELS[s]}: {a} of {b}" for s, (a, b) in count.items())),
    ]  # fmt: skip


def _video_claims(t: pl.DataFrame) -> list[Claim]:
    def col(flavour: str, name: str) -> dict[float, float]:
        part = t.filter(pl.col("flavour") == flavour)
        return dict(zip(part["bdp_factor"].to_list(), part[name].to_list()))

    agg_p, agg_n = col("delay-pacing", "aggregate_mbps"), col("no-delay", "aggregate_mbps")
    late_p, late_n = col("delay-pacing", "worst_late_fraction"), col("no-delay", "worst_late_fraction")
    small = [b for b in agg_p if b < 1.0]
    lower = [late_p[b] < late_n[b] for b in late_p]
    return [
        Claim("Fig 29a: with BDP factors below 1.0 Delay Pacing gets a higher aggregate throughput than No Delay (at every such factor).",
              bool(small) and all(agg_p[b] > agg_n[b] for b in small),
              "; ".join(f"BDP factor {b:g}: Delay Pacing {agg_p[b]:.4g}, No Delay {agg_n[b]:.4g} Mbit/s" for b in small)),
        Claim("Fig 29b: Delay Pacing's worst stream has a lower late-packet fraction than No Delay's (at over half the BDP factors; equal is not lower).",
              sum(lower) > len(lower) / 2,
              f"{sum(lower)} of {len(lower)} factors; BDP factors {fmt_values(list(late_p))}: Delay Pacing {fmt_values(list(late_p.values()))}, "
              f"No Delay {fmt_values(list(late_n.values()))}"),
    ]  # fmt: skip


def _figures(report: Report) -> list[Figure]:
    fig25, fair = report.tables["fig25"], report.tables["fairness"]
    sweeps = [s for s in p.BASE if s in fair["sweep"].to_list()]

    def draw25(path: Path) -> None:
        with saved_figure(path, 1, 2, figsize=(8, 3.4), title="Fig 25: three PERT flavours on one bottleneck") as (_, axes):
            names = fig25["flavour"].to_list()
            for ax, col, label in zip(axes, ("goodput_mbps", "drop_rate"), ("goodput per flow (Mbit/s)", "drop ratio")):
                ax.bar(names, fig25[col].to_list(), color=["C0", "C1", "C2"][: len(names)])
                ax.set_ylabel(label)

    def draw_sweeps(path: Path) -> None:
        metrics = (("share", "bandwidth share"), ("drop_rate", "drop ratio"), ("jain", "Jain index (own flows)"), (None, "normalised queue"))
        with saved_figure(path, len(metrics), len(sweeps), figsize=(3.2 * len(sweeps), 2.6 * len(metrics)),
                          title="Figs 26-28: Delay Pacing (paced) against Delay ACK", squeeze=False) as (_, axes):  # fmt: skip
            for j, sweep in enumerate(sweeps):
                t = _along(fair, sweep)
                x = t[sweep].to_list()
                for i, (col, label) in enumerate(metrics):
                    ax = axes[i][j]
                    if col is None:
                        ax.plot(x, t["avg_queue_norm"].to_list(), marker="o", color="k")
                    else:
                        for tag, name in (("pacing", "Delay Pacing"), ("ack", "Delay ACK")):
                            ax.plot(x, t[f"{col}_{tag}"].to_list(), marker="o", label=name)
                        if col == "share":
                            ax.plot(x, t["fair_share_pacing"].to_list(), ls=":", color="C0", label="Delay Pacing's share of flows")
                    if j == 0:
                        ax.set_ylabel(label)
                    if i == len(metrics) - 1:
                        ax.set_xlabel(LABELS[sweep])
            axes[0][0].legend(fontsize=7)

    video = report.tables["video"]

    def draw_video(path: Path) -> None:
        with saved_figure(path, 1, 2, figsize=(9, 3.4), title="Fig 29: video streams with greedy flows, one flavour per run") as (_, axes):
            for i, name in enumerate([*p.FLAVOURS, *p.VIDEO_TESTS]):
                t = video.filter(pl.col("flavour") == name).sort("bdp_factor")
                for ax, col in zip(axes, ("aggregate_mbps", "worst_late_fraction")):
                    ax.plot(t["bdp_factor"].to_list(), t[col].to_list(), marker="o", label=name, ls="-" if name in p.FLAVOURS else "--", color=f"C{i}")
            axes[0].set(xlabel="buffer / BDP", ylabel="aggregate throughput (Mbit/s)")
            axes[1].set(xlabel="buffer / BDP", ylabel="worst stream's late fraction")
            axes[0].legend(fontsize=7)

    return [
        Figure(f"{NAME}-fig29.png", "Fig 29: the goodput of all flows and the late fraction of the worst video stream against the buffer, "
               "per flavour (mean over the seeds); dashed: pertlab's test, Delay Pacing with the adaptive receiver's ACK timer at half the "
               "expected gap.", draw_video),
        Figure(f"{NAME}-fig25.png", "Fig 25: mean goodput per flow and drop ratio of each flavour (five flows each, mean over the seeds).", draw25),
        Figure(f"{NAME}-sweeps.png", "Figs 26-28 and the share and HTTP sweeps: each flavour's bandwidth share (dotted: Delay Pacing's share of the "
               "flows), drop ratio, Jain index among its own flows, and the bottleneck's mean queue over its buffer; means over the seeds.", draw_sweeps),
    ]  # fmt: skip


register(Entry(NAME, TITLE, SOURCE, _run, _figures, _scenarios, details=("runs", "video_runs", "test_runs")))
