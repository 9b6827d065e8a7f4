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
