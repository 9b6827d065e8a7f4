"""`pertlab reproduce qian11-video --quick`: Qian 2011 Figs 9, 10, 11 on quick data. The Fig 9
claim (PERT's success at T/mu in [1.4, 2.0] at least Reno's and CUBIC's) does not hold here:
asserted as a known difference, with the mechanism the report gives and its test (the same PERT
without early responses succeeds as Reno does)."""

from __future__ import annotations

from pertlab.reproduce import get

from conftest import InProcess


def test_video_success_against_t_over_mu(tmp_path):
    report = get("qian11-video").report(True, tmp_path, InProcess())
    streams = report.tables["streams"]
    by = {cc: streams.filter(cc=cc) for cc in ("pert-adaptive", "sack", "cubic")}
    # Every controller has streams in the claim's range, so the claim is measured, not vacuous.
    for t in by.values():
        assert ((t["t_mu"] >= 1.4) & (t["t_mu"] < 2.0)).any()
    # Reno and CUBIC streams succeed at T/mu >= 1.35; PERT's fall behind the video rate.
    for cc in ("sack", "cubic"):
        assert by[cc].filter(by[cc]["t_mu"] >= 1.35)["success"].mean() >= 0.9
    fig10, fig11, c, cause = report.claims
    assert c.text.startswith("Fig 9") and not c.holds, c.evidence
    # Figs 10, 11 (success against the start-up delay, from the same runs): with 60 s runs PERT's
    # streams lag their schedule by less than 26 s, so longer delays rescue them; the quick loads
    # put no PERT or CUBIC stream below T/mu 1.4, so Fig 10 is not measured.
    assert fig11.holds, fig11.evidence
    assert not fig10.holds and "pert-adaptive: no stream in the range" in fig10.evidence
    startup = report.tables["startup"].filter(figure="Fig 11", cc="pert-adaptive")
    success = startup["success_fraction"].to_list()
    assert success == sorted(success) and success[0] < 0.2 and success[-1] >= 0.9
    pert = by["pert-adaptive"]
    assert pert["success"].mean() < 0.2 and pert["goodput_mbps"].mean() < 0.3
    assert pert["early_responses_per_s"].mean() > 1.0
    # The test of that mechanism: the same PERT without its early response (thresholds above the
    # buffer's delay, alpha held at 1) keeps its streams at the video rate, as Reno's.
    assert cause.holds, cause.evidence
    without = streams.filter(cc="pert-adaptive-no-early")
    assert without["early_responses_per_s"].max() == 0 and without["success"].mean() >= 0.9
    assert without["goodput_mbps"].mean() >= 0.299
    # The late-packet CDFs: a figure drawn from every stream's late fraction.
    assert (tmp_path / "qian11-video-late.png").stat().st_size > 0
    assert streams["late_fraction"].is_between(0, 1).all()
