"""kotla08-live (Kotla 2008, Section V.E, on this host's kernel): the scenarios it runs, what the
simulator is given of each path, and the quick mode end to end on the namespace testbed, with
its stored runs reused on a rerun."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from pertlab.experiments import kotla08_live as live
from pertlab.linux import loader, testbed
from pertlab.linux.sim_side import sim_scenario
from pertlab.linux.scenario import SEGMENT_BYTES
from pertlab.reproduce import REGISTRY
from pertlab.units import parse_time

#: Kernels, namespaces and signals against real time: run alone (pyproject.toml, markers).
pytestmark = pytest.mark.quiet_host

PROBLEM = testbed.support_problem(needs_pert=True)


def test_full_mode_is_every_client_flow_count_competitor_and_ten_repetitions():
    cases = live.cases(live.FULL)
    assert len(cases) == 6 * 3 * 2 * 10 == len({c.key for c in cases})
    assert {c.profile for c in cases} == set(live.PROFILE_ORDER) and {c.flows for c in cases} == {1, 2, 10}
    assert {c.competitor for c in cases} == {"reno", "cubic"} and {c.seed for c in cases} == set(range(1, 11))
    # Repetition by repetition: the first 36 runs are every case once.
    assert {c.seed for c in cases[:36]} == {1} and len({(c.profile, c.flows, c.competitor) for c in cases[:36]}) == 36
    rates = {c.profile: live.scenario_of(c, live.FULL).bottleneck.rate for c in cases}
    assert rates == {"cn": 10e6, "fr": 10e6, "nz": 10e6, "se": 10e6, "us-dsl": 3e6, "us-cable": 6e6}
    sc = live.scenario_of(live.Case("nz", 10, "cubic", 4), live.FULL)
    assert [(g.cc, g.count) for g in sc.flows] == [("pert_adaptive", 10), ("cubic", 10)] and sc.seed == 4 and sc.delayline_rtprio > 0
    # Both sides start at the kernel's initial window.
    assert sc.init_cwnd == 10 and {f.tcp.init_cwnd for f in sim_scenario(sc).flows} == {10}


def test_the_simulator_gets_the_paths_mean_delay_and_loss_rate():
    """China: 230 ms plus exponential jitter of mean 4 ms each way, Gilbert-Elliott loss of
    stationary rate 0.001 / (0.001 + 0.25); the simulator's round trip is 238 ms (bottleneck
    one way 117 ms, with 1 ms access links each side) and its data direction loses 0.398 %."""
    sc = live.scenario_of(live.Case("cn", 1, "reno", 1), live.QUICK)
    d = sim_scenario(sc).dumbbell
    assert d.bottleneck_delay + d.sender_access_delay[0] + d.receiver_access_delay[0] == 119_000_000
    assert math.isclose(d.bottleneck_loss, 0.001 / 0.251)
    # A path without jitter or loss: as before, the constant delay alone and no loss.
    plain = sc.model_copy(update={"path": type(sc.path)()})
    assert sim_scenario(plain).dumbbell.bottleneck_loss == 0 and sim_scenario(plain).dumbbell.bottleneck_delay == 113_000_000


@pytest.mark.skipif(PROBLEM is not None, reason=f"testbed: {PROBLEM}")
def test_quick_mode_on_the_kernel_then_a_rerun_from_the_stored_runs(tmp_path, monkeypatch):
    entry = REGISTRY["kotla08-live"]
    report = entry.report(True, tmp_path, None)
    runs = report.tables["runs"]
    # Four runs of the figures' cases, on the kernel and in the simulator; Fig. 15's traced run
    # and two runs with the jitter replaced by its mean on the kernel only.
    assert runs.group_by("source").len().sort("source").rows() == [("kernel", 7), ("sim", 4)]
    assert runs.filter(pl.col("source") == "kernel").group_by("jitter", "traced").len().sort("jitter", "traced").rows() == [(False, False, 2), (True, False, 4), (True, True, 1)]
    kernel = runs.filter(pl.col("source") == "kernel")
    # Every kernel run carried both groups over the 6 Mbit/s cable path, and PERT was adaptive.
    assert kernel["pert_mbps"].min() > 0.1 and kernel["comp_mbps"].min() > 0.1
    assert 0.3 < kernel["goodput_over_capacity"].min() and kernel["goodput_over_capacity"].max() <= 1.1
    assert kernel["pert_compete_frac"].is_not_null().all() and kernel["delayline_late_mean_us"].is_not_null().all()
    # Each kernel run counts the stale slow-start thresholds it met (docs/linux.md), and the report says so.
    assert kernel["ssthresh_repairs"].is_not_null().all() and kernel["invalid_ssthresh_samples"].is_not_null().all()
    stale = [n for n in report.notes if n.startswith("Stale slow-start thresholds")]
    assert len(stale) == 1 and f"of the {kernel.height} kernel runs that count them" in stale[0] and "record neither" not in stale[0], stale
    assert len(report.claims) == 9 and all(c.evidence for c in report.claims)
    assert {f.file for f in report.figures} == {"kotla08-live-reno.png", "kotla08-live-cubic.png", "kotla08-live-fig15.png"}
    assert all((tmp_path / f.file).stat().st_size > 10_000 for f in report.figures)
    assert len(list((tmp_path / "runs").glob("*.json"))) == 7
    # The kernel's trace: the PERT connection's samples over the whole 6 s run, one per ACK, so in
    # the metric window as many as the segments its goodput there delivered (within 5 %: its rate
    # varies from run to run, and the first 2 s's with it, so only the same window compares);
    # srtt_0.99 within the samples' range and smoother.
    trace = report.tables["fig15_trace"]
    assert trace["flow"].unique().to_list() == [0] and trace["profile"].unique().to_list() == ["us-cable"]
    traced_mbps = kernel.filter(pl.col("traced"))["pert_mbps"].item()
    warmup_s, duration_s = parse_time(live.QUICK.warmup) / 1e9, parse_time(live.QUICK.duration) / 1e9
    in_window = trace.filter(pl.col("t_s").is_between(warmup_s, duration_s, closed="left")).height
    segments = (duration_s - warmup_s) * traced_mbps * 1e6 / 8 / SEGMENT_BYTES
    assert 0.95 < in_window / segments < 1.05, f"{in_window} samples in [{warmup_s}, {duration_s}) s for {segments:.0f} segments ({traced_mbps:.3g} Mbit/s)"
    assert 0 <= trace["t_s"].min() < 0.5 and 5.5 < trace["t_s"].max() < 6.5
    assert trace["rtt_ms"].min() >= 15 and trace["srtt_ms"].min() >= trace["rtt_ms"].min() and trace["srtt_ms"].max() <= trace["rtt_ms"].max()
    assert trace["srtt_ms"].diff().abs().mean() < 0.1 * trace["rtt_ms"].diff().abs().mean()
    assert not loader.is_registered("pert_adaptive")

    def refuse(sc):  # a rerun must not run the testbed again
        raise AssertionError(f"ran {sc.name} again")

    monkeypatch.setattr(testbed, "run", refuse)
    again = entry.report(True, tmp_path, None).tables["runs"]
    assert again.filter(pl.col("source") == "kernel").equals(kernel)


def test_trace_rtt_needs_a_pert_adaptive_group_and_only_pert_adaptive_traces():
    from pertlab.linux.scenario import ScenarioError, TestbedScenario

    with pytest.raises(ScenarioError, match="trace_rtt: traces the eBPF pert_adaptive's RTT samples: give a flow group with cc = 'pert_adaptive'"):
        TestbedScenario.parse({"trace_rtt": True, "flows": [{"cc": "reno"}]})
    assert TestbedScenario.parse({"trace_rtt": True, "flows": [{"cc": "pert_adaptive"}, {"cc": "reno"}]}).trace_rtt
    with pytest.raises(ValueError, match="trace: only pert_adaptive emits its RTT samples, not pert"):
        with loader.hold("pert", trace=Path("/tmp/x")):
            pass
