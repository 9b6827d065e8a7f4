"""`pertlab reproduce qian11-ack-coalescing --quick`: Qian 2011's ACK-coalescing claims on
quick data. The claims that hold are asserted to hold; the known differences from the thesis
(docs/model.md, the report's notes) are asserted as differences, with the numbers that make them."""

from __future__ import annotations

import pytest

from pertlab.reproduce import get

from conftest import InProcess


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return get("qian11-ack-coalescing").report(True, tmp_path_factory.mktemp("qian11"), InProcess())


def claim(report, prefix: str, *words: str):
    [c] = [c for c in report.claims if c.text.startswith(prefix) and all(w in c.text for w in words)]
    return c


def test_claims_that_hold(report):
    for prefix, words in [
        ("Fig 17(c)", ()), ("Fig 17(b)", ()), ("Fig 18a: without pacing", ()),
        ("Fig 31", ("latest",)), ("Fig 31", ("earliest",)), ("Figs 32-34", ()),
    ]:  # fmt: skip
        c = claim(report, prefix, *words)
        assert c.holds, f"{c.text}: {c.evidence}"
    ratios = report.tables["ack_ratios"].filter(variant="window_limited")
    ratio = dict(zip(ratios["policy"], ratios["data_ack_ratio"]))
    assert [ratio[p] for p in ("adaptive", "delayed", "every")] == pytest.approx([4.0, 2.0, 1.0], rel=0.05)


def test_known_differences(report):
    infl = report.tables["inflation"].filter(sweep="base")
    latest, earliest = (infl.filter(echo=e).row(0, named=True) for e in ("latest", "earliest"))
    # Fig 17(a): one flow keeps the link busy behind any receiver: the same data throughput.
    assert not claim(report, "Fig 17(a)").holds
    data = report.tables["ack_ratios"].filter(variant="greedy")["data_mbps"]
    assert data.max() - data.min() < 0.01 * data.max()
    # Nor does a congested ACK path give the thesis's order: with the ACKs' direction overloaded
    # (ACKs dropped there), the adaptive receiver's flow does worst, not best as in Fig 17(a).
    c = claim(report, "pertlab's test of Fig 17(a)")
    assert c.holds, c.evidence
    jammed = report.tables["ack_ratios"].filter(variant="ack_path_overloaded")
    assert all(0.05 < r < 0.2 for r in jammed["reverse_drop_rate"]), jammed
    # Fig 18a: the inflation is about 2 ms here, not 5: two flows interleave, so the adaptive
    # receiver coalesces about 2 segments per ACK, not 4 (trains of 2 add one packet time, 2.67 ms).
    assert not claim(report, "Fig 18a: by about").holds
    assert 1.0 < latest["inflation_none_ms"] < 2.5
    assert report.tables["runs"].filter(sweep="base", fix="none")["ratio_adaptive"].mean() < 2.5
    # Fig 21, ns-2's echo: pacing removes about half the inflation (49 % here; 54 % in the full
    # report's 5 seeds, so the "most" claim holds there by a hair), far from "disappears".
    assert 0.35 < latest["removed_by_pacing"] < 0.65
    # Fig 21, RFC 7323's echo: paced arrivals are srtt / cwnd apart, the receiver holds up to 3 of
    # them and the earliest echo adds the hold: the adaptive flow's srtt grows tens of ms.
    assert not claim(report, "Fig 21", "earliest").holds
    assert earliest["inflation_pacing_ms"] > 10 * earliest["inflation_none_ms"] > 0
    assert not claim(report, "Figs 22-24", "earliest").holds


def test_fig18b_rtt_groups(report):
    """Fig 18b: the groups by sequence number mod 4 do not differ here (the claims fail, both
    echoes), and the aligned run shows why: one sample per ACK, always the same train position."""
    step = 1000 * 8 / 3e3  # a packet time at the base point, ms
    t = report.tables["fig18b"]
    for echo in ("latest", "earliest"):
        base = t.filter(run="fig18a_base", echo=echo).sort("group")
        # Every group is sampled, about a quarter each: the trains drift against the numbers.
        assert base["share"].to_list() == pytest.approx([0.25] * 4, abs=0.03)
        assert base["mean_ms"].max() - base["mean_ms"].min() < 0.5 * step
        assert not claim(report, "Fig 18b: the four groups", echo).holds
        assert not claim(report, "Fig 18b: the difference", echo).holds
        # Group 0 against all samples: within a fraction of a packet time, either side.
        assert abs(base["mean_ms"][0] - base["all_mean_ms"][0]) < 0.25 * step
        aligned = t.filter(run="aligned", echo=echo)
        assert aligned["share"].max() == 1.0 and aligned["mean_ms"].drop_nulls().to_list() == pytest.approx([120.0], abs=0.5)
    # ns-2's echo samples the train's last segment (group 0 here), RFC 7323's its first (group 1).
    groups = {e: t.filter(run="aligned", echo=e, share=1.0)["group"][0] for e in ("latest", "earliest")}
    assert groups == {"latest": 0, "earliest": 1}
    c = claim(report, "Fig 18b, pertlab's test")
    assert c.holds, c.evidence
    assert "Fig 18b (RTT" not in " ".join(report.notes)
