"""`pertlab reproduce qian11-video --quick`: Qian 2011 Figs 9, 10, 11 on quick data. The Fig 9
claim (PERT's success at T/mu in [1.4, 2.0] at least Reno's and CUBIC's) does not hold here:
asserted as a known difference, with the mechanism the report gives and its test (the same PERT
without early responses succeeds as Reno does), the timeouts that follow from it at high loss,
and pertlab's test of alpha's compete-mode ramp;
Fig 9's 200-byte packets, and the test of why Reno's and CUBIC's streams do worse with them (the
packets' header bytes)."""

from __future__ import annotations

import polars as pl

from pertlab.reproduce import get
from pertlab.reproduce.qian11_video_entries import main_path

from conftest import InProcess


def test_video_success_against_t_over_mu(tmp_path):
    report = get("qian11-video").report(True, tmp_path, InProcess())
    every = report.tables["streams"]
    streams = main_path(every)
    by = {cc: streams.filter(cc=cc) for cc in ("pert-adaptive", "sack", "cubic")}
    # Every controller has streams in the claim's range, so the claim is measured, not vacuous.
    for t in by.values():
        assert ((t["t_mu"] >= 1.4) & (t["t_mu"] < 2.0)).any()
    # Reno and CUBIC streams succeed at T/mu >= 1.35; PERT's fall behind the video rate.
    for cc in ("sack", "cubic"):
        assert by[cc].filter(by[cc]["t_mu"] >= 1.35)["success"].mean() >= 0.9
    fig10, fig11, fig8_low, fig8_high, fig12, c, cause, timeouts, waits, ramp, fig6_t_mu, fig6_rtt, small, small_cause = report.claims
    assert c.text.startswith("Fig 9") and not c.holds, c.evidence
    # Figs 10, 11 (success against the start-up delay, from the same runs): with 60 s runs PERT's
    # streams lag their schedule by less than 26 s, so longer delays rescue them. The quick loads
    # put no PERT stream below T/mu 1.4, so Fig 10 is not measured, and CUBIC's two runs (one
    # greedy probe each gives their T/mu) fall on either side of Fig 11's range, so that claim
    # is measured for PERT only here: its part holds, above 11 s.
    assert not fig10.holds and "pert-adaptive: no stream in the range" in fig10.evidence
    assert not fig11.holds and "cubic: no stream in the range" in fig11.evidence
    startup = report.tables["startup"].filter(figure="Fig 11", cc="pert-adaptive")
    success = startup["success_fraction"].to_list()
    assert success == sorted(success) and success[0] < 0.2
    assert min(startup.filter(pl.col("startup_delay_s") > 11)["success_fraction"]) >= 0.9
    pert = by["pert-adaptive"]
    assert pert["success"].mean() < 0.2 and pert["goodput_mbps"].mean() < 0.3
    assert pert["early_responses_per_s"].mean() > 1.0
    # The test of that mechanism: the same PERT without its early response (thresholds above the
    # buffer's delay, alpha held at 1) keeps its streams at the video rate, as Reno's.
    assert cause.holds, cause.evidence
    without = streams.filter(cc="pert-adaptive-no-early")
    assert without["early_responses_per_s"].max() == 0 and without["success"].mean() >= 0.9
    assert without["goodput_mbps"].mean() >= 0.299
    # Why PERT's streams fail at high loss: the early responses keep the window below what three
    # duplicate ACKs need, so a larger share of their loss repairs are timeouts, against Reno's in
    # the same loss range and against the same PERT without early responses over the same runs.
    assert timeouts.text.startswith("pertlab: at loss 0.04-0.06") and timeouts.holds, timeouts.evidence
    repairs = {cc: streams.filter(cc=cc).select(pl.col("timeouts").sum(), pl.col("fast_recoveries").sum()).row(0) for cc in ("pert-adaptive", "pert-adaptive-no-early")}
    share = {cc: t / (t + f) for cc, (t, f) in repairs.items()}
    assert share["pert-adaptive"] > 3 * share["pert-adaptive-no-early"] and repairs["pert-adaptive"][1] > 1000
    # How much of the high-loss failure those timeouts can carry: PERT's streams wait on the timer
    # far longer than Reno's, but for less of the run than they fall short of the video rate, so the
    # timeouts are not the whole of it (a known difference from the explanation, measured).
    assert waits.text.startswith("pertlab: at loss 0.04-0.06") and not waits.holds, waits.evidence
    lo, hi = 0.04, 0.06
    in_bin = streams.filter((pl.col("drop_rate") >= lo) & (pl.col("drop_rate") < hi))
    wait = {cc: (t["rto_wait_s"] / t["window_s"]).mean() for cc, t in ((cc, in_bin.filter(cc=cc)) for cc in ("pert-adaptive", "sack"))}
    pert_bin = in_bin.filter(cc="pert-adaptive")
    shortfall = (1 - pert_bin["goodput_mbps"] * 1000 / pert_bin["video_kbps"]).mean()
    assert wait["pert-adaptive"] > 5 * wait["sack"] and 0.02 < wait["pert-adaptive"] < shortfall / 2, (wait, shortfall)
    assert (pert_bin["rto_wait_s"] >= 0.2 * pert_bin["timeouts"]).all(), "each timeout waits at least the 200 ms RTO floor"
    # pertlab's test of one detail the thesis leaves open: alpha's ramp in compete mode. Set to its
    # target 1 + p'/p at each period's end, alpha keeps the streams' windows up between cuts; the
    # early responses stay as frequent, and the streams and the greedy probe both do better.
    assert ramp.text.startswith("pertlab: the compete-mode alpha ramp") and ramp.holds, ramp.evidence
    at_target = streams.filter(cc="pert-adaptive-alpha-at-target")
    assert at_target["early_responses_per_s"].mean() > 0.8 * pert["early_responses_per_s"].mean()
    assert at_target["success"].mean() >= 0.9 and at_target["t_mu"].mean() > pert["t_mu"].mean() + 0.3
    # With Qian's compete threshold (0.65 q_max) as well, the streams spend less of the window in
    # compete mode at every load, and succeed less often.
    qian = streams.filter(cc="pert-adaptive-qian-compete")
    for n in (25, 30):
        assert qian.filter(streams=n)["compete_s"].mean() < at_target.filter(streams=n)["compete_s"].mean()
    assert qian["success"].mean() < at_target["success"].mean()
    assert "compete mode, by load" in ramp.evidence
    # Figs 8 and 12: per loss-rate bin (a stream's own drop rate), the streams of every T/mu; each
    # stream below 0.06 falls in one bin, and success can only rise with the start-up delay.
    loss = report.tables["loss"]
    for cc in ("pert-adaptive", "sack", "cubic"):
        t = loss.filter(cc=cc, startup_delay_s=1.0)
        assert t["streams"].sum() == by[cc].filter(by[cc]["drop_rate"] < 0.06).height
        for b in t["loss_range"]:
            s = loss.filter(cc=cc, loss_range=b)["success_fraction"].drop_nulls().to_list()
            assert s == sorted(s)
    assert fig8_low.text.startswith("Fig 8") and fig8_high.text.startswith("Fig 8") and fig12.text.startswith("Fig 12")
    # On quick data PERT's low-loss streams all succeed from 11 s on; at 0.04-0.06 Reno's do too,
    # so the thesis's "almost all Reno streams fail" there does not hold.
    assert fig8_low.holds, fig8_low.evidence
    assert not fig8_high.holds and "sack (13 streams): 0.0769, 1, 1, 1, 1, 1" in fig8_high.evidence
    assert (tmp_path / "qian11-video-loss.png").stat().st_size > 0
    # Fig 6: PERT's streams at 50, 100 and 150 ms, the same loads and seeds: later with a longer RTT.
    paths = report.tables["paths"]
    pert_rtt = paths.filter(cc="pert-adaptive", packet_size=1000).sort("rtt_ms")
    assert pert_rtt["rtt_ms"].to_list() == [50, 100, 150] and pert_rtt["streams"].to_list() == [55, 55, 55]
    late = pert_rtt["mean_late_fraction"].to_list()
    assert late == sorted(late) and late[-1] - late[0] > 0.2 and "shared bins" in fig6_rtt.evidence
    assert fig6_t_mu.text.startswith("Fig 6")
    # Fig 9's 200-byte packets: the 150-packet buffer then holds at most 9.6 ms, below PERT's
    # t_max, so PERT's early responses become rare and its streams succeed, as the cause above
    # predicts; Reno's and CUBIC's success falls, so the claim (every controller gains) does not hold.
    small_pert = paths.filter(cc="pert-adaptive", packet_size=200).row(0, named=True)
    main_pert = pert_rtt.filter(rtt_ms=100).row(0, named=True)
    assert small_pert["early_responses_per_s"] < 0.1 * main_pert["early_responses_per_s"]
    assert small_pert["success_fraction"] >= 0.9 > main_pert["success_fraction"]
    assert not small.holds and "9.6 ms" in small.evidence
    # Why Reno's and CUBIC's streams do worse with 200-byte packets: not more loss or more timeouts
    # (both fall), not the buffer's bytes (a 750-packet buffer, the 1000-byte runs' bytes, does not
    # bring their success back), but the 40 header bytes per packet: at 250 kbit/s, whose 200-byte
    # packets take the 1000-byte streams' 312.5 kbit/s of the wire, they succeed as with 1000-byte
    # packets, and 1000-byte streams at 360 kbit/s (375 kbit/s on the wire) do as the 200-byte ones.
    assert small_cause.text.startswith("pertlab: Reno's and CUBIC's") and small_cause.holds, small_cause.evidence
    for cc in ("sack", "cubic"):
        at = {(r["packet_size"], r["buffer_pkts"], r["video_kbps"]): r for r in paths.filter(cc=cc).iter_rows(named=True)}
        big, small_, same_buffer, same_wire, big_wire = (at[k] for k in ((1000, 150, 300), (200, 150, 300), (200, 750, 300), (200, 150, 250), (1000, 150, 360)))
        assert all(x["streams"] == 55 for x in (big, small_, same_buffer, same_wire, big_wire))
        assert small_["mean_drop_rate"] < 0.25 * big["mean_drop_rate"] and small_["mean_timeouts"] < 0.5 * big["mean_timeouts"]
        assert big["success_fraction"] == 1.0 and small_["success_fraction"] < 0.95 and same_buffer["success_fraction"] < 0.8
        assert same_wire["success_fraction"] >= 0.98 and same_wire["mean_t_mu"] > small_["mean_t_mu"]
        assert big_wire["success_fraction"] < 0.95 and big_wire["mean_t_mu"] < big["mean_t_mu"]
    # Reno's greedy probe also gets less with 200-byte packets than with 1000-byte ones. CUBIC's
    # does not on quick data (two 60 s runs per point, one probe each: 1.77 against 1.53), though
    # its streams still succeed less: the T/mu half of the explanation is Reno's here.
    reno = {r["packet_size"]: r["mean_t_mu"] for r in paths.filter(cc="sack", buffer_pkts=150, video_kbps=300, rtt_ms=100).iter_rows(named=True)}
    assert reno[1000] > reno[200], reno
    # The late-packet CDFs: a figure drawn from every stream's late fraction.
    assert (tmp_path / "qian11-video-late.png").stat().st_size > 0
    assert streams["late_fraction"].is_between(0, 1).all()
