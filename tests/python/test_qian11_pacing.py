"""`pertlab reproduce qian11-pacing --quick`: Qian 2011 Figs 25-29 (PERT with pacing and ACK
coalescing against coalescing alone and neither) on quick data. None of the thesis's claims holds
here; each is asserted as a known difference with the measurements the report's notes give as its
cause: PERT draws its early response per ACK, the paced flows' RTT samples are the higher,
loss-free PERT flows share fairly at every flow count on the 50 Mbit/s link (not by phase lock;
the fall of Fig 26 appears where the queue cannot drain), and paced video streams stall at the
floor window behind the adaptive receiver's ACK timer (Fig 29b)."""

from __future__ import annotations

import polars as pl
import pytest

from pertlab.reproduce import get

from conftest import InProcess


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return get("qian11-pacing").report(True, tmp_path_factory.mktemp("qian11-pacing"), InProcess())


def claim(report, prefix: str):
    [c] = [c for c in report.claims if c.text.startswith(prefix)]
    return c


def by_flavour(table: pl.DataFrame, col: str) -> dict[str, float]:
    return dict(zip(table["flavour"].to_list(), table[col].to_list()))


def test_runs_are_not_phase_locked(report):
    runs = report.tables["runs"]
    assert runs["lockstep_warnings"].sum() == 0


def test_fig25_bandwidth_follows_the_acks_per_segment(report):
    fig25 = report.tables["fig25"]
    goodput, early, ratio = (by_flavour(fig25, c) for c in ("goodput_mbps", "early_per_segment", "data_ack_ratio"))
    # Not nearly equal: No Delay returns an ACK per segment, coalescing flows about three, and
    # PERT draws once per ACK, so No Delay responds most often per segment and gets the least.
    assert not claim(report, "Fig 25a").holds
    assert ratio["no-delay"] == pytest.approx(1.0, abs=0.01) and min(ratio["delay-ack"], ratio["delay-pacing"]) > 2.5
    assert early["no-delay"] > max(early["delay-ack"], early["delay-pacing"])
    assert goodput["no-delay"] < min(goodput["delay-ack"], goodput["delay-pacing"])
    assert goodput["delay-pacing"] < 0.9 * goodput["delay-ack"]
    # Fig 25b: PERT keeps the one-BDP queue below the buffer; no flavour loses a packet.
    assert not claim(report, "Fig 25b").holds
    assert fig25["drop_rate"].max() == 0


def test_paced_flows_see_higher_rtts_and_respond_more(report):
    fair = report.tables["fairness"].drop_nulls(["jain_pacing", "jain_ack"])
    base = fair.filter(sweep="base").row(0, named=True)
    # In the same run the paced flows' RTT samples are higher and they respond more per segment,
    # so they get less than their share of the flows.
    assert base["rtt_mean_ms_pacing"] > base["rtt_mean_ms_ack"]
    assert base["early_per_segment_pacing"] > base["early_per_segment_ack"]
    assert base["share_pacing"] < base["fair_share_pacing"] - 0.05
    assert (fair["rtt_mean_ms_pacing"] > fair["rtt_mean_ms_ack"]).mean() > 0.8


def test_fairness_neither_falls_with_the_flows_nor_favours_pacing(report):
    fair = report.tables["fairness"]
    flows = fair.filter(pl.col("sweep").is_in(["base", "flows"]))
    # Loss-free PERT flows share nearly equally within a flavour at every flow count.
    assert not claim(report, "Fig 26c").holds
    assert flows["jain_ack"].min() > 0.95 and flows["jain_pacing"].min() > 0.9
    assert not claim(report, "Fig 26:").holds
    assert (flows["jain_pacing"] < flows["jain_ack"]).all()
    assert not claim(report, "Figs 27, 28").holds
    # Losses appear where the buffer is a few milliseconds (the 10 ms RTT point: 10 ms of
    # queue); there the paced flows lose the fewer packets.
    rtt10 = fair.filter(sweep="rtt_ms", rtt_ms=10).row(0, named=True)
    assert 0 < rtt10["drop_rate_pacing"] < rtt10["drop_rate_ack"]


def test_fig29_video_pacing_brings_no_gain(report):
    video = report.tables["video"]

    def at(flavour: str, col: str) -> dict[float, float]:
        t = video.filter(flavour=flavour)
        return dict(zip(t["bdp_factor"].to_list(), t[col].to_list()))

    agg_p, agg_n = at("delay-pacing", "aggregate_mbps"), at("no-delay", "aggregate_mbps")
    # Fig 29a: the greedy flows keep the link busy with either flavour, small buffer or not:
    # the aggregates are within 2 % of each other, not higher with pacing.
    assert not claim(report, "Fig 29a").holds
    assert all(abs(agg_p[b] / agg_n[b] - 1) < 0.02 for b in agg_p)
    assert min(agg_n.values()) > 0.9 * 50
    # Fig 29b: No Delay's streams are never late here, so pacing cannot do better.
    assert not claim(report, "Fig 29b").holds
    assert max(at("no-delay", "worst_late_fraction").values()) == 0


def test_the_paced_flows_deficit_is_not_the_receivers_ack_timer():
    """The report's explanation of Fig 25a rules out the adaptive receiver's ACK timer (beta = 2
    expected gaps) holding the last paced segment into its RTT sample (ns-2's echo): with the
    timer at half a gap the receiver acknowledges every paced segment, the paced flows' mean RTT
    sample falls to the Delay ACK flows', and they still get less than half the link."""
    from pertlab.experiments import qian11_pacing as p
    from pertlab.runner import run
    from pertlab.scenario import Scenario

    setup = p.Setup("30s", "10s", (1,), {})
    wire = p.scenario(p.flavour_counts(p.BASE), dict(p.BASE), setup, 1).to_wire()
    for f in wire["flows"]:
        f["tcp"]["adaptive_ack"] = {"timeout_factor": 0.5}
    f = run(Scenario.parse(wire)).flows
    paced, unpaced = (f.filter(label=name) for name in ("delay-pacing", "delay-ack"))
    assert paced["data_ack_ratio"].mean() < 1.1 < 2.5 < unpaced["data_ack_ratio"].mean()
    assert abs(paced["rtt_mean_ms"].mean() - unpaced["rtt_mean_ms"].mean()) < 0.3
    assert paced["goodput_mbps"].sum() < 0.45 * f["goodput_mbps"].sum()


def test_the_full_sweeps_span_the_thesis_ranges():
    from pertlab.experiments.qian11_pacing import BASE, THESIS_RANGES
    from pertlab.reproduce.qian11_pacing_entries import FULL

    for name, (lo, hi) in THESIS_RANGES.items():
        values = [*FULL.sweeps[name], BASE[name]] if BASE[name] else list(FULL.sweeps[name])
        assert (min(values), max(values)) == (lo, hi), name


def test_the_paced_flows_longer_samples_are_not_a_longer_queue(report):
    """At the base point the paced segments find as many packets ahead of them at the bottleneck
    as the unpaced ones (within one packet), while their mean RTT sample is the longer: the
    difference is not in the bottleneck queue (the report's note: the receiver's ACK timer)."""
    c = claim(report, "pertlab: the paced flows' longer RTT samples")
    base = report.tables["runs"].filter(sweep="base")
    ahead = base.group_by("flavour").agg(pl.col("queue_ahead_pkts").mean())
    q = by_flavour(ahead, "queue_ahead_pkts")
    assert q["delay-pacing"] > 1 and q["delay-ack"] > 1 and abs(q["delay-pacing"] - q["delay-ack"]) <= 1.0
    assert c.holds, c.evidence


def test_the_indices_near_1_are_not_phase_lock(report):
    """ns-2's random send overhead neither lowers the indices nor brings Fig 26's pattern, the
    flows' goodputs are not equal (as phase-locked identical flows' would be), and the flow-count
    sweep loses no packet: drop-tail phase effects have nothing to act on."""
    assert claim(report, "pertlab: the Jain indices near 1 are not phase lock").holds
    t = report.tables["fairness_tests"]
    plain, over = (t.filter(sweep=s).sort("flows") for s in ("flows", "flows+overhead"))
    assert plain["flows"].to_list() == over["flows"].to_list() == [10, 20, 40, 100]
    for tag in ("pacing", "ack"):
        assert abs(plain[f"jain_{tag}"].mean() - over[f"jain_{tag}"].mean()) < 0.01
        assert plain[f"goodput_cv_{tag}"].min() > 0.02
        assert plain[f"drop_rate_{tag}"].max() == 0 and over[f"drop_rate_{tag}"].max() == 0
    assert not over["pacing_fairer"].all()


def test_fairness_falls_where_the_queue_cannot_drain(report):
    """On a 10 Mbit/s link (BDP 50 packets) 40 and 100 flows cannot drain the queue at PERT's
    floor window of 2: the queue stands, the flows' minimum RTTs (PERT's base) split by tens of ms,
    the flows with the longer base get more, Delay ACK's index falls below 0.97 and Delay Pacing's
    is above it. On the 50 Mbit/s link every flow's minimum RTT is within a packet time of the others'.
    Given the path's RTT as P, Delay ACK's index rises there: the split base is part of it; and
    Delay Pacing stays the fairer beside No Delay flows too: what is left is pacing, not coalescing."""
    for prefix in ("pertlab: Fig 26c's fall", "pertlab: Fig 26's ranking", "pertlab: there the flows disagree", "pertlab: with P given, what keeps"):
        c = claim(report, prefix)
        assert c.holds, c.evidence
    t = report.tables["fairness_tests"]
    small = t.filter(sweep="flows@10Mbps").sort("flows")
    few, many = small.filter(pl.col("flows") <= 20), small.filter(pl.col("flows") >= 40)
    assert few["jain_ack"].min() > 0.98 and many["jain_ack"].max() < 0.97
    assert (many["jain_pacing"] > many["jain_ack"]).all()
    assert many["min_rtt_spread_ms_ack"].min() > 10 and few["min_rtt_spread_ms_ack"].max() < 1
    top = small.row(-1, named=True)
    assert top["avg_queue_norm"] > 0.5 and top["min_rtt_rho_ack"] > 0 and top["min_rtt_rho_pacing"] > 0
    given = t.filter(sweep="flows@10Mbps+P").sort("flows")
    assert given["flows"].to_list() == small["flows"].to_list()
    assert given["drop_rate_ack"].max() == 0 and given["drop_rate_pacing"].max() == 0
    # The claim that both flavours' indices rise with P given holds in the full report (3 seeds of
    # 300 s); the quick mode's one 30-s run at 40 flows has Delay Pacing's near 1 either way and
    # lower given (0.997 against 0.985), so the claim does not hold here; Delay ACK's rises.
    assert not claim(report, "pertlab: the split base RTT is part").holds
    standing_given, standing = given.filter(pl.col("flows") >= 40), many
    assert (standing_given["jain_ack"] > standing["jain_ack"] + 0.02).all(), (standing_given["jain_ack"], standing["jain_ack"])
    big = t.filter(sweep="flows")
    assert big["min_rtt_spread_ms_pacing"].max() <= 0.16 + 1e-9 and big["min_rtt_spread_ms_ack"].max() <= 0.16 + 1e-9


def test_fig29b_the_late_streams_stall_with_pacing_and_the_ack_timer(report):
    """Only paced streams stall at the floor window after their start, the stalled ones are the
    late ones, and with the adaptive receiver's ACK timer at half the expected gap no Delay Pacing
    stream stalls or is late; the same receiver unpaced (Delay ACK) is never as late. What holds a
    stalled stream at the floor is PERT's estimate of a queue that has gone, forgotten slowly
    because a paced stream's samples at the floor come seldom."""
    for prefix in ("pertlab: Delay Pacing's late streams come with its pacing", "pertlab: Delay Pacing's late streams are the ones that stall",
                   "pertlab: the stall needs", "pertlab: a paced stream stalls because PERT's estimate remembers"):  # fmt: skip
        c = claim(report, prefix)
        assert c.holds, c.evidence
    video = report.tables["video"]
    stalled = by_flavour(video.group_by("flavour").agg(pl.col("stalled_streams").sum()), "stalled_streams")
    assert stalled["delay-pacing"] > 0 and stalled["delay-ack"] == stalled["no-delay"] == stalled["delay-pacing, timer 0.5"] == 0
    paced = video.filter(flavour="delay-pacing", bdp_factor=4.0).row(0, named=True)
    assert paced["worst_late_stalled"] > 0.5 > 0.1 > paced["worst_late_unstalled"]
    assert video.filter(flavour="delay-pacing, timer 0.5")["worst_late_fraction"].max() == 0
    # With each paced segment acknowledged, the samples at the floor window come at least twice as often.
    gap = by_flavour(video.group_by("flavour").agg(pl.col("floor_sample_gap_ms").mean()), "floor_sample_gap_ms")
    assert gap["delay-pacing, timer 0.5"] <= gap["delay-pacing"] / 2
