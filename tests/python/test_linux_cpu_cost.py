"""`pertlab linux cpu-cost` (issue 22, Kotla 2008 Table VI today): a short measurement through
the namespace testbed (5 flows, 3 s, one run of adaptive PERT, Reno and CUBIC), what it
reports, and that nothing is left behind, also when a run fails half way. Bad input needs no
root; the rest skips, saying what is missing, without root, the testbed's tools or BPF
struct_ops."""

from __future__ import annotations

import json
import math
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pertlab.cli import app
from pertlab.linux import cpu_cost, loader, runs

from test_cli_flags import covers

#: Kernels, namespaces and signals against real time: run alone (pyproject.toml, markers).
pytestmark = pytest.mark.quiet_host

STATS_SYSCTL = Path("/proc/sys/kernel/bpf_stats_enabled")
PROBLEM = cpu_cost.support_problem(cpu_cost.DEFAULT_CCS)
root = pytest.mark.skipif(PROBLEM is not None, reason=f"cpu-cost: {PROBLEM}")
SHORT = ["--flows", "5", "--seconds", "3", "--repeat", "1", "--rate-mbit", "50", "--rtt-ms", "20"]
runner = CliRunner()


def _struct_ops(name: str = "pert_adaptive") -> set[int]:
    out = subprocess.run(["bpftool", "-j", "struct_ops", "list"], capture_output=True, text=True, check=True).stdout
    return {m["id"] for m in json.loads(out or "[]") if m.get("name") == name}


def _left_behind(before: dict) -> dict:
    """Namespaces and run directories that appeared since ``before`` and belong to no live run
    (other people's testbed runs on a shared machine come and go meanwhile)."""
    live = runs.live_runs()
    live_ns = {ns for r in live for ns in r.get("namespaces", [])}
    live_ids = {r.get("run_id") for r in live}
    dirs = {p.name for p in runs.RUN_ROOT.iterdir()} if runs.RUN_ROOT.is_dir() else set()
    return {
        "namespaces": {ns for ns in runs.list_namespaces() if ns.startswith("pltb")} - before["namespaces"] - live_ns,
        "run_dirs": dirs - before["run_dirs"] - live_ids,
    }


@pytest.fixture
def host():
    """The host as it was: no namespace, run directory, registration, BPF statistics descriptor
    or struct_ops left, ``kernel.bpf_stats_enabled`` untouched."""
    if loader.is_registered("pert_adaptive"):
        pytest.skip("pert_adaptive is already registered on this host (pertlab linux unload pert-adaptive, or another run holds it)")
    before = {
        "namespaces": {ns for ns in runs.list_namespaces() if ns.startswith("pltb")},
        "run_dirs": {p.name for p in runs.RUN_ROOT.iterdir()} if runs.RUN_ROOT.is_dir() else set(),
    }
    sysctl, foreign = STATS_SYSCTL.read_text(), _struct_ops()
    yield before
    assert _left_behind(before) == {"namespaces": set(), "run_dirs": set()}
    assert STATS_SYSCTL.read_text() == sysctl and cpu_cost.stats_fds() == []
    assert not loader.is_registered("pert_adaptive")
    # The sockets are gone with the sender (SO_LINGER 0), and with them the struct_ops.
    end = time.monotonic() + 5
    while _struct_ops() - foreign and time.monotonic() < end:
        time.sleep(0.05)
    assert not _struct_ops() - foreign


@covers("linux cpu-cost", "--flows", "--seconds", "--repeat", "--cc", "--rate-mbit", "--rtt-ms", "--out", "--json")
@root
def test_short_measurement_of_adaptive_pert_reno_and_cubic(tmp_path: Path, host: dict) -> None:
    out = tmp_path / "cpu.json"
    ccs = ["--cc", "pert-adaptive", "--cc", "reno", "--cc", "cubic"]
    r = runner.invoke(app, ["linux", "cpu-cost", *SHORT, *ccs, "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(out.read_text())
    assert '"summary"' in r.output
    assert [row["cc"] for row in d["runs"]] == ["pert-adaptive", "reno", "cubic"]
    for row in d["runs"]:
        # ss saw every connection use the congestion control asked for.
        assert row["flows_seen"] == 5, row
        assert row["mb"] > 1 and 0 < row["goodput_mbps"] <= 50.5, row
        for k in ("sender_cpu_ms_per_mb", "testbed_cpu_ms_per_mb", "machine_busy_ms_per_mb"):
            assert 0 < row[k] < math.inf, (k, row)
        assert row["sender_sys_ms_per_mb"] >= 0 and row["testbed_cpu_ms_per_mb"] >= row["sender_cpu_ms_per_mb"]
        assert len(row["load_before"]) == 3
        # The two halves (from the sender's TCP_INFO at the start and in the middle) make the whole.
        acked = row["goodput_first_half_mbps"] * row["first_half_s"] + row["goodput_second_half_mbps"] * row["second_half_s"]
        assert math.isclose(acked, row["goodput_mbps"] * row["window_s"], rel_tol=1e-9), row
        assert 0 < row["goodput_first_half_mbps"] and 0 < row["goodput_second_half_mbps"] <= row["payload_capacity_mbps"] * 1.01, row
        assert abs(row["first_half_s"] - 1.5) < 0.1, row
    # The simulator on the same scenarios, one seed each (repeat 1).
    assert [(r["cc"], r["seed"]) for r in d["simulator"]] == [("pert-adaptive", 1), ("reno", 1), ("cubic", 1)]
    assert set(d["simulator_summary"]) == {"pert-adaptive", "reno", "cubic"}
    assert "simulator" in r.output
    pert = d["runs"][0]
    progs = pert["bpf_programs"]
    assert {"bpf_perta_cong_avoid", "bpf_perta_pkts_acked", "bpf_perta_ssthresh"} <= set(progs), progs
    acked, avoid = progs["bpf_perta_pkts_acked"], progs["bpf_perta_cong_avoid"]
    # Called per ACK: with delayed ACKs about one per two segments; grows through the run.
    segments = pert["mb"] * 1e6 / 1448
    assert acked["calls"] > 0.1 * segments, (acked, segments)
    for p in (acked, avoid):
        assert 0 < p["calls_first_half"] < p["calls"], p
        assert 0 < p["ns_per_call"] < 100_000, p
    assert 0 < pert["bpf_ns_per_call"] < 100_000 and 0 < pert["bpf_cpu_pct"] < 100
    assert pert["bpf_calls"] == sum(p["calls"] for p in progs.values())
    assert isinstance(pert["ssthresh_repairs"], int) and pert["ssthresh_repairs"] >= 0
    # The built-in controllers have no BPF figures.
    assert all("bpf_calls" not in row for row in d["runs"][1:])
    s = d["summary"]
    assert s["pert-adaptive"]["runs"] == 1 and s["reno"]["sender_cpu_ms_per_mb"]["sd"] == 0.0
    assert d["thesis_table_vi_pct"]["PERT"] == [2.0, 3.6]
    # Each run had its own testbed, removed with its run directory.
    ids = [row["run_id"] for row in d["runs"]]
    assert len(set(ids)) == 3 and not any((runs.RUN_ROOT / i).exists() or set(runs.namespaces(i)) & set(runs.list_namespaces()) for i in ids)


@root
def test_a_failing_run_leaves_nothing_behind(monkeypatch: pytest.MonkeyPatch, host: dict) -> None:
    """A run that fails after the flows ran (here: reading the CPU time at the window's end)
    removes its testbed, unregisters the controller and turns the statistics off."""
    calls = []

    def failing() -> float:
        calls.append(1)
        if len(calls) == 2:
            assert cpu_cost.stats_fds(), "BPF statistics are not on during the run"
            assert loader.is_registered("pert_adaptive")
            raise RuntimeError("injected failure")
        return 0.0

    monkeypatch.setattr(cpu_cost, "ksoftirqd_cpu", failing)
    with pytest.raises(RuntimeError, match="injected failure"):
        cpu_cost.measure(cpu_cost.Setup(flows=2, seconds=1.0, repeat=1, ccs=("pert-adaptive",), rate_mbit=20, rtt_ms=20))
    assert len(calls) == 2


@covers("linux cpu-cost", "--flows", "--seconds", "--repeat", "--cc", "--rate-mbit", "--rtt-ms")
@pytest.mark.parametrize(
    "args, message",
    [
        (["--flows", "0"], "error: --flows: must be at least 1, got 0"),
        (["--seconds", "0"], "error: --seconds: must be positive, got 0.0"),
        (["--seconds", "-2"], "error: --seconds: must be positive, got -2.0"),
        (["--repeat", "0"], "error: --repeat: must be at least 1, got 0"),
        (["--cc", "vegas"], "error: --cc: unknown congestion control 'vegas'; allowed: pert-adaptive, pert, reno, cubic, bbr"),
        (["--cc", "reno", "--cc", "reno"], "error: --cc: each congestion control once, got reno, reno"),
        (["--rate-mbit", "0"], "error: --rate-mbit: must be positive, got 0.0"),
        (["--rtt-ms", "nan"], "error: --rtt-ms: must be positive, got nan"),
    ],
)
def test_bad_input_names_the_flag(args: list[str], message: str) -> None:
    r = runner.invoke(app, ["linux", "cpu-cost", *args])
    assert r.exit_code == 2 and message in r.output, r.output


def test_setup_checks_and_buffer() -> None:
    with pytest.raises(cpu_cost.CpuCostError) as e:
        cpu_cost.Setup(flows=0).validate()
    assert e.value.field == "flows"
    cpu_cost.Setup().validate()
    # One BDP (100 Mbit/s x 60 ms = 495 full-size frames), at least 2 packets per flow.
    assert cpu_cost.Setup().buffer_pkts() == 495
    assert cpu_cost.Setup(flows=400).buffer_pkts() == 800
    sc = cpu_cost.Setup(flows=7, rate_mbit=20, rtt_ms=40).scenario("pert-adaptive")
    assert [(g.cc, g.count) for g in sc.flows] == [("pert_adaptive", 7)] and sc.delayed_ack
    assert (sc.bottleneck.rate, sc.bottleneck.delay, sc.queue()) == (20_000_000, 40_000_000, ("pfifo", 66))
