"""`pertlab reproduce qian11-video-start --quick`: Qian 2011 Fig 9 against the order in which the
flows start (the thesis gives none). With the video streams and the T/mu probe starting after the
FTP flows have filled the buffer, PERT's streams respond early about as often as when every flow
starts in the first 10 s, and still fail where Reno's and CUBIC's succeed."""

from __future__ import annotations

import polars as pl
import pytest

from pertlab.experiments import qian11_video as v
from pertlab.reproduce import get
from pertlab.reproduce.qian11_start_entries import LATE, QUICK, RUNS

from conftest import InProcess

S = 1_000_000_000


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return get("qian11-video-start").report(True, tmp_path_factory.mktemp("qian11-video-start"), InProcess())


def test_the_late_runs_start_only_the_streams_and_the_probe_late():
    early, late = (v.video_scenario("pert-adaptive", 25, 25, QUICK, 1, path) for path in (v.MAIN, LATE))
    windows = lambda s: {(f.label, f.start_window) for f in s.flows}  # noqa: E731
    assert windows(early) == {("sack", (0, 10 * S)), ("video-pert-adaptive", (0, 10 * S)), ("probe-pert-adaptive", (0, 10 * S))}
    assert windows(late) == {("sack", (0, 10 * S)), ("video-pert-adaptive", (30 * S, 40 * S)), ("probe-pert-adaptive", (30 * S, 40 * S))}
    # Nothing else differs: the web sessions, the path and the streams themselves are the same.
    assert early.model_copy(update={"flows": []}) == late.model_copy(update={"flows": []})
    assert LATE.key == "-100ms-1000B-start30s" and v.MAIN.key == ""


def test_every_run_at_every_load(report):
    starts = report.tables["starts"]
    assert starts.select("run", "streams").rows() == [
        (f"{cc}, all from 0 s" if path.streams_start_s == 0 else f"{cc}, streams from 30 s", n) for cc, path in RUNS for n, _ in QUICK.loads
    ]
    assert starts["stream_count"].to_list() == [n for _ in RUNS for n, _ in QUICK.loads]
    assert set(report.tables["streams"]["streams_start_s"]) == {0, 30}


def test_pert_s_streams_respond_early_and_fail_whichever_flows_start_first(report):
    starts = report.tables["starts"].with_columns(pl.col("run").str.split(",").list.first().alias("cc"))
    pert = starts.filter(pl.col("cc") == "pert-adaptive")
    # About once per RTT in both orders (the quick runs measure 75 s: their rates stay within a
    # quarter of each other at each load; the full report's claim asks for 10 %).
    rates = pert.pivot(on="run", index="streams", values="early_responses_per_s").drop("streams").rows()
    assert all(min(r) > 3 and max(r) < 1.25 * min(r) for r in rates), rates
    assert pert["success_fraction"].max() < 0.2
    assert starts.filter(pl.col("cc") != "pert-adaptive")["success_fraction"].min() >= 0.9
    order, fig9 = report.claims
    assert order.text.startswith("pertlab: PERT's streams respond early as often whichever flows start first")
    # Fig 9's ordering does not come back with the streams starting last.
    assert not fig9.holds and "pert-adaptive: no stream in the range" in fig9.evidence, fig9.evidence
