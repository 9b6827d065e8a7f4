"""Testbed smoke run on this machine: namespaces, htb/bfifo bottleneck, the
TUN delay line, one PERT flow through the eBPF congestion control. Skips,
saying what is missing, without root or the tools."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pertlab.linux import loader, testbed

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "examples" / "testbed" / "smoke.toml"
PROBLEM = testbed.support_problem(needs_pert=True)
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"testbed: {PROBLEM}")


def _ours() -> list[str]:
    return [ns for ns in testbed.list_namespaces() if ns.startswith(testbed.PREFIX)]


@pytest.fixture(autouse=True)
def nothing_left_behind():
    if loader.is_registered():
        pytest.skip("pert is already registered on this host (pertlab linux unload pert)")
    try:
        yield
    finally:
        testbed.cleanup_stale()
        for ns in _ours():
            if ns.startswith(f"{testbed.PREFIX}{os.getpid()}-"):
                subprocess.run(["ip", "netns", "del", ns], check=False)
        loader.unload()


def test_smoke_run_pert_through_a_10mbit_20ms_bottleneck() -> None:
    sc = testbed.load_scenario(SMOKE)
    assert (sc.rate_bps, sc.delay_ns, sc.flows[0].cc) == (10_000_000, 20_000_000, "pert")
    res = testbed.run(sc)
    flow = res.flows.to_dicts()[0]
    # ss saw the flow using the eBPF congestion control.
    assert flow["ss_cc"] == "pert", res.report()
    assert flow["goodput_mbps"] > 0.8 * 10, res.report()
    # The delay line: idle ping within 1 ms of the configured 20 ms.
    assert abs(res.extra["ping_idle_ms"]["median"] - 20.0) < 1.0, res.extra["ping_idle_ms"]
    assert res.extra["pert_counters"]["rtt_samples"] > 100
    # Per-flow early responses come from the BPF program's per-connection map.
    # (the flow's over the measurement window, the global counter over the run)
    assert 0 <= flow["early_responses"] <= res.extra["pert_counters"]["early_responses"]
    assert res.queues["drops"][0] >= 0 and len(res.flow_series) > 10 and len(res.queue_series) > 10
    # Everything is gone afterwards.
    assert not [ns for ns in testbed.list_namespaces() if ns in res.extra["namespaces"]]
    assert not loader.is_registered()


def test_interrupted_run_removes_everything(tmp_path: Path) -> None:
    long = tmp_path / "long.toml"
    long.write_text(SMOKE.read_text().replace('duration = "5s"', 'duration = "60s"'))
    p = subprocess.Popen([str(Path(sys.executable).parent / "pertlab"), "testbed", "run", str(long)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        prefix = f"{testbed.PREFIX}{p.pid}-"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (loader.is_registered() and len([n for n in testbed.list_namespaces() if n.startswith(prefix)]) == 3):
            time.sleep(0.1)
        assert len([n for n in testbed.list_namespaces() if n.startswith(prefix)]) == 3
        time.sleep(1.5)  # flows running
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert not [n for n in testbed.list_namespaces() if n.startswith(prefix)]
    assert not loader.is_registered()


def test_compare_writes_both_result_sets_and_a_report(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pertlab.cli import app

    short = tmp_path / "short.toml"
    short.write_text(SMOKE.read_text().replace('duration = "5s"', 'duration = "2s"').replace('warmup = "1s"', 'warmup = "0.5s"'))
    r = CliRunner().invoke(app, ["testbed", "compare", str(short), "--out", str(tmp_path / "cmp")])
    assert r.exit_code == 0, r.output
    report = (tmp_path / "cmp" / "report.md").read_text()
    assert "| metric | testbed (Linux) | simulator |" in report and "pert: goodput total" in report
    for side in ("sim", "testbed"):
        assert (tmp_path / "cmp" / side / "flows.parquet").is_file()
    assert not _ours() or all(not ns.startswith(f"{testbed.PREFIX}{os.getpid()}-") for ns in _ours())

