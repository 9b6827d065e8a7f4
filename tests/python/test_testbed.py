"""The namespace testbed on this machine: namespaces, htb/bfifo bottleneck, the
TUN delay line, PERT flows through the eBPF congestion control; and that no
run leaves anything behind, however it ends (issue 25, item 8): a double
Ctrl-C, SIGTERM, SIGKILL (then a reused PID), a normal end (no controller
left loaded). Skips, saying what is missing, without root or the tools.

The interruption tests drive ``pertlab testbed run`` as a shell would (its own
process group; a terminal's Ctrl-C goes to the whole group) and look at the
host itself: namespaces, processes, ``bpftool struct_ops list``."""

from __future__ import annotations

import json
import os
import signal
import statistics
import struct
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import polars as pl
import pytest

from pertlab import acks
from pertlab.linux import bpf_syscall, build, loader, runs, testbed
from pertlab.linux.sim_side import DEFAULT_HZ, kernel_hz
from pertlab.linux.scenario import FRAME_BYTES, load_scenario

from compare_report import report_row
from host import STEAL_SHARE, host_share, late_releases, measured
from processes import wait_until
from test_cli_flags import covers

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "examples" / "testbed" / "smoke.toml"
PERTLAB = str(Path(sys.executable).parent / "pertlab")
PROBLEM = testbed.support_problem(needs_pert=True)
# bpf/ce_mark.bpf.c's struct virtual_queue: a bpf_spin_lock (4 bytes, padded to 8), backlog, last_ns.
VIRTUAL_QUEUE_SIZE = 24
pytestmark = [pytest.mark.quiet_host, pytest.mark.skipif(PROBLEM is not None, reason=f"testbed: {PROBLEM}")]


@pytest.fixture(autouse=True)
def nothing_left_behind():
    if loader.is_registered():
        pytest.skip("pert is already registered on this host (pertlab linux unload pert)")
    try:
        yield
    finally:
        runs.cleanup()
        loader.unload()


# ---------------------------------------------------------------- what is on the host


def _namespaces() -> set[str]:
    """Every namespace a testbed run of any pertlab version makes."""
    return {ns for ns in runs.list_namespaces() if ns.startswith("pltb")}


def _run_id(namespaces: set[str]) -> str:
    """The run id in the name of one of a run's namespaces (``pltb-RUN_ID-role``)."""
    return next(iter(namespaces)).split("-")[1]


def _pert_struct_ops() -> set[int]:
    """Ids of the struct_ops maps named pert that are loaded (registered or kept by sockets)."""
    out = subprocess.run(["bpftool", "-j", "struct_ops", "list"], capture_output=True, text=True, check=True).stdout
    return {m["id"] for m in json.loads(out or "[]") if m.get("name") == "pert"}


@pytest.fixture
def foreign_struct_ops() -> set[int]:
    """pert struct_ops loaded before the test (another checkout's run on a shared machine)."""
    return _pert_struct_ops()


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _comm(pid: int) -> str | None:
    """The command name of process ``pid``, None if it has ended."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except FileNotFoundError:
        return None


def _ns_pids(ns: str) -> list[int]:
    return [int(p) for p in subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()]


def _scenario(tmp_path: Path, duration: str, warmup: str = "1s") -> Path:
    f = tmp_path / f"smoke-{duration}.toml"
    f.write_text(SMOKE.read_text().replace('duration = "5s"', f'duration = "{duration}"').replace('warmup = "1s"', f'warmup = "{warmup}"'))
    return f


@contextmanager
def _driver(*args: str, own_group: bool = True) -> Iterator[subprocess.Popen]:
    """`pertlab testbed ARGS`, in its own process group as a shell job (or in the test's);
    killed if the test fails."""
    p = subprocess.Popen([PERTLAB, "testbed", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=own_group)
    try:
        yield p
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()


def _flows_running(before: set[str], p: subprocess.Popen, after_s: float = 1.0) -> set[str]:
    """Wait until the run's three namespaces exist and its flows are established, then ``after_s`` more."""

    def established() -> bool:
        new = _namespaces() - before
        snd = [ns for ns in new if ns.endswith("-snd")]
        return (
            len(new) == 3
            and len(snd) == 1
            and bool(subprocess.run(["ip", "netns", "exec", snd[0], "ss", "-tnH", "state", "established"], capture_output=True, text=True).stdout.strip())
        )

    if not wait_until(lambda: established() or p.poll() is not None, 30) or p.poll() is not None:
        pytest.fail(f"no flows after 30 s: new namespaces {_namespaces() - before}, driver " + (f"exited: {p.communicate()}" if p.poll() is not None else "running"))
    time.sleep(after_s)
    return _namespaces() - before


# ---------------------------------------------------------------- runs


#: CPU seconds the host may take from this machine (/proc/stat steal, all CPUs) during the idle
#: ping (0.5 s on 2 CPUs) before the ping measures the host rather than the delay line: one clock
#: tick (0.01 s), which a quiet host's count reaches by rounding.
HOST_STEAL_S = 0.01

#: The smoke run's goodput floor: 80 % of the 10 Mbit/s bottleneck.
GOODPUT_FLOOR_MBPS = 0.8 * 10


def test_smoke_run_pert_through_a_10mbit_20ms_bottleneck(record_property) -> None:
    sc = load_scenario(SMOKE)
    # The delay line: idle ping within 1 ms of the configured 20 ms. On a quiet host the median
    # is 20.5 ms. Fresh clones on 2026-12-01 measured 21.45 and 23.15 ms while the virtual
    # machine's host took about 9 % of its CPUs (steal), and 20.5 ms when rerun minutes later.
    # A ping out of bounds while the host took more than HOST_STEAL_S is measured again, at most
    # twice; one out of bounds on a host that took nothing fails.
    # The goodput: above 80 % of the 10 Mbit/s. A fresh clone on 2026-12-02 measured 7.19 Mbit/s
    # while the host took 9 to 31 % of the machine all session. A goodput below the floor is
    # measured again only when the run's own record shows the host: the delay line's releases
    # late on average (HOST_LATE_US) or the host taking STEAL_SHARE of the machine over the run.
    runs_seen = []

    def held_back(res) -> str | None:
        ping, steal = res.extra["ping_idle_ms"], res.extra["host_steal_s"]
        goodput, late = res.flows["goodput_mbps"][0], res.extra["delayline"].get("late_mean_us", 0.0)
        runs_seen.append({"ping_median_ms": ping["median"], "ping_min_ms": ping["min"], "goodput_mbps": goodput, "delayline_late_mean_us": late, "host_steal_s": steal})
        if abs(ping["median"] - 20.0) >= 1.0 and steal["idle_ping"] > HOST_STEAL_S:
            return f"idle ping median {ping['median']} ms while the host took {steal['idle_ping']:.2f} s"
        if goodput <= GOODPUT_FLOOR_MBPS and (late_releases(res.extra["delayline"]) or host_share(steal["run"], sc.duration / 1e9) >= STEAL_SHARE):
            return f"goodput {goodput:.2f} Mbit/s while the delay line released {late:.0f} us late on average and the host took {steal['run']:.2f} s over the run"
        return None

    res, _ = measured(lambda: testbed.run(sc), held_back, waits=(0.0, 0.0))
    record_property("runs", json.dumps(runs_seen))
    assert abs(runs_seen[-1]["ping_median_ms"] - 20.0) < 1.0, runs_seen
    flow = res.flows.to_dicts()[0]
    # ss saw the flow using the eBPF congestion control.
    assert flow["ss_cc"] == "pert", res.report()
    assert flow["goodput_mbps"] > GOODPUT_FLOOR_MBPS, (runs_seen, res.report())
    assert res.extra["pert_counters"]["rtt_samples"] > 100
    # Per-flow early responses come from the BPF program's per-connection map.
    # (the flow's over the measurement window, the global counter over the run)
    assert 0 <= flow["early_responses"] <= res.extra["pert_counters"]["early_responses"]
    assert res.queues["drops"][0] >= 0 and len(res.flow_series) > 10 and len(res.queue_series) > 10
    assert not res.interrupted and (res.extra["window_start_s"], res.extra["window_end_s"]) == (1.0, 5.0)
    # Everything is gone afterwards: namespaces, run directory, registration.
    assert set(res.extra["namespaces"]) == set(runs.namespaces(res.extra["run_id"]))
    assert not set(res.extra["namespaces"]) & _namespaces()
    assert not (runs.RUN_ROOT / res.extra["run_id"]).exists()
    assert not loader.is_registered()


def test_no_controller_left_loaded_after_a_run(tmp_path: Path, foreign_struct_ops: set[int]) -> None:
    """Issue 25, 8 (c): the sender sockets kept the pert struct_ops loaded for about 2 minutes.

    Ten flows through 40 ms: their send buffers still hold data when the run ends."""
    ten = tmp_path / "ten.toml"
    ten.write_text('duration = "3s"\nwarmup = "1s"\n[bottleneck]\nrate = "10Mbps"\ndelay = "40ms"\nbuffer = "50KB"\n[[flows]]\ncc = "pert"\ncount = 10\n')
    before = _namespaces()
    with _driver("run", str(ten)) as p:
        _flows_running(before, p, after_s=0.5)
        ours = _pert_struct_ops() - foreign_struct_ops
        assert ours, "pert is not loaded while the flows run"
        out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert wait_until(lambda: not ours & _pert_struct_ops(), 5), f"struct_ops {ours} still loaded: {_pert_struct_ops()}"
    assert "pert" not in loader.available()


@covers("testbed compare", "SCENARIO", "--out")
def test_compare_writes_both_result_sets_and_a_report(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pertlab.cli import app

    before = _namespaces()
    r = CliRunner().invoke(app, ["testbed", "compare", str(_scenario(tmp_path, "2s", "0.5s")), "--out", str(tmp_path / "cmp")])
    assert r.exit_code == 0, r.output
    report = (tmp_path / "cmp" / "report.md").read_text()
    assert "| metric | testbed (Linux) | simulator |" in report and "pert: goodput total" in report
    # The scenario sets no initial window: both sides start at the kernel's default, and say so.
    assert "Initial window 10 segments on both sides (the kernel's default; `init_cwnd` sets another)." in report
    assert json.loads((tmp_path / "cmp" / "sim" / "scenario.json").read_text())["flows"][0]["tcp"]["init_cwnd"] == 10
    assert "Receivers: one ACK per segment on both sides." in report
    assert pl.read_parquet(tmp_path / "cmp" / "testbed" / "flows.parquet")["sack"].to_list() == [True] and "SACK off" not in report
    for side in ("sim", "testbed"):
        assert (tmp_path / "cmp" / side / "flows.parquet").is_file()
    # The median and the range of the flows' goodputs, beside the mean, are each side's flows'.
    real, sim = (pl.read_parquet(tmp_path / "cmp" / side / "flows.parquet")["goodput_mbps"] for side in ("testbed", "sim"))
    assert f"| pert: goodput per flow, Mbit/s (median) | {real.median():.3f} | {sim.median():.3f} |" in report
    assert f"| pert: goodput per flow, Mbit/s (least .. most) | {real.min():.3f} .. {real.max():.3f} | {sim.min():.3f} .. {sim.max():.3f} |" in report
    # Timeouts on both sides, the kernel's from tcpi_total_rto over the window (Linux >= 6.7).
    flows = pl.read_parquet(tmp_path / "cmp" / "testbed" / "flows.parquet")
    if flows["timeouts"].null_count() == 0:
        assert report_row(report, "pert: retransmission timeouts") == (flows["timeouts"].sum(), pl.read_parquet(tmp_path / "cmp" / "sim" / "flows.parquet")["timeouts"].sum())
    else:
        assert "| pert: retransmission timeouts | - |" in report
    assert "The simulator's run warned" not in report  # one PERT flow for 2 s: nothing to warn of
    assert _namespaces() == before


@covers("testbed compare", "--sim-seeds", "--memory-limit", "--sim-send-overhead")
def test_compare_over_several_simulator_seeds_gives_their_median_and_range(tmp_path: Path) -> None:
    # One kernel run beside three simulated ones (PERT's early responses are random draws, so the
    # seeds differ): each row's new cell is the median (least .. most) of the seeds' own results.
    # The simulator's runs are held to a limit they fit in (its refusals: test_linux_units.py), and
    # their senders carry the send overhead asked for, which the report says.
    from typer.testing import CliRunner

    from pertlab.cli import app

    args = ["--sim-seeds", "3", "--memory-limit", "1GiB", "--sim-send-overhead", "1ms"]
    r = CliRunner().invoke(app, ["testbed", "compare", str(_scenario(tmp_path, "4s")), "--out", str(tmp_path / "cmp"), *args])
    assert r.exit_code == 0, r.output
    report = (tmp_path / "cmp" / "report.md").read_text()
    assert "The simulated senders wait U(0, 1 ms) before each send" in report
    assert json.loads((tmp_path / "cmp" / "report.json").read_text())["sim_send_overhead_ns"] == 1_000_000
    for side in ("sim", "sim-seed-2", "sim-seed-3"):
        assert {f["tcp"]["overhead_ns"] for f in json.loads((tmp_path / "cmp" / side / "scenario.json").read_text())["flows"]} == {1_000_000}
    assert "| metric | testbed (Linux) | simulator | simulator, seeds 1 to 3: median (least .. most) |" in report
    sims = [json.loads((tmp_path / "cmp" / side / "summary.json").read_text()) for side in ("sim", "sim-seed-2", "sim-seed-3")]
    assert [s["seed"] for s in sims] == [1, 2, 3]
    early = sorted(sum(f["early_responses"] for f in s["flows"]) for s in sims)
    first = sum(f["early_responses"] for f in sims[0]["flows"])
    real = pl.read_parquet(tmp_path / "cmp" / "testbed" / "flows.parquet")["early_responses"].sum()
    assert f"| pert: early responses | {real} | {first} | {early[1]} ({early[0]} .. {early[2]}) |" in report
    assert "the simulator's other seeds in sim-seed-2/ to sim-seed-3/" in report
    bad = CliRunner().invoke(app, ["testbed", "compare", str(_scenario(tmp_path, "4s")), "--out", str(tmp_path / "bad"), "--sim-seeds", "0"])
    assert bad.exit_code == 2 and "--sim-seeds" in bad.output and not (tmp_path / "bad").exists()


def _compare_of(tmp_path: Path, toml: str, *options: str) -> Path:
    """`testbed compare` of the scenario file ``toml`` (its text) with ``options``, which leaves
    no namespace behind; the report's directory."""
    from typer.testing import CliRunner

    from pertlab.cli import app

    f = tmp_path / "scenario.toml"
    f.write_text(toml)
    before = _namespaces()
    r = CliRunner().invoke(app, ["testbed", "compare", str(f), "--out", str(tmp_path / "cmp"), *options])
    assert r.exit_code == 0, r.output
    assert _namespaces() == before
    return tmp_path / "cmp"


def _outputs(out: Path) -> tuple[dict, dict, dict]:
    """A compare's outputs under ``out``: the testbed run's summary.json, the report.json and the
    simulator's scenario.json."""
    return tuple(json.loads((out / name).read_text()) for name in ("testbed/summary.json", "report.json", "sim/scenario.json"))  # type: ignore[return-value]


def test_compare_says_what_the_simulators_run_warned_of(tmp_path: Path) -> None:
    # Two identical Reno flows through a 20-frame buffer for 10 s: the simulator's lose in
    # lock-step (each flow responds to loss the same number of times), which real hosts' timing
    # noise breaks up; the report says so beside the numbers it explains.
    out = _compare_of(tmp_path, 'duration = "10s"\nwarmup = "1s"\n\n[bottleneck]\nrate = "10Mbps"\ndelay = "20ms"\nbuffer = "30KB"\n\n[[flows]]\ncc = "reno"\ncount = 2\n')
    report = (out / "report.md").read_text()
    warned = json.loads((out / "sim" / "summary.json").read_text())["warnings"]
    assert any("lost in lock-step" in w for w in warned), warned
    assert "The simulator's run warned (as `pertlab run` does after its tables):\n" + "\n".join(f"- {w}" for w in warned) in report


@covers("testbed compare", "--sim-frame-ahead")
def test_sack_off_at_both_hosts_is_newreno_on_both_sides(tmp_path: Path) -> None:
    # `sack = false`: no connection negotiates SACK (tcpi_options, read at the end of the run),
    # and the simulator's flows recover as NewReno.
    # With `--no-sim-frame-ahead` the simulator's link keeps a frame's time on the round trip.
    out = _compare_of(tmp_path, 'sack = false\nduration = "3s"\nwarmup = "1s"\n\n[bottleneck]\nrate = "10Mbps"\ndelay = "20ms"\nbuffer = "15KB"\n\n[[flows]]\ncc = "reno"\ncount = 2\n', "--no-sim-frame-ahead")
    assert pl.read_parquet(out / "testbed" / "flows.parquet")["sack"].to_list() == [False, False]
    sim = json.loads((out / "sim" / "scenario.json").read_text())
    assert [(f["label"], f["tcp"]["sack"], f["tcp"]["rack"]) for f in sim["flows"]] == [("newreno", False, False)] * 2
    assert sim["dumbbell"]["bottleneck_delay_ns"] == 10_000_000 - 2 * 1_000_000  # 20 ms round trip, 1 ms access links
    report = (out / "report.md").read_text()
    assert "SACK off on both sides" in report
    assert "(`--no-sim-frame-ahead`; by default the simulator takes that time off its round trip)" in report


@covers("testbed compare", "--sim-rack", "--sim-rack-retransmits")
@pytest.mark.parametrize(
    "flags, field, words",
    [
        (("--sim-rack",), "rack", "the simulated senders find every lost segment by RACK too"),
        (("--no-sim-rack", "--sim-rack-retransmits"), "rack_retransmits", "the simulated senders find lost retransmissions by RACK too"),
    ],
)
def test_tail_loss_probe_off_at_the_senders_and_their_recovery_counters(tmp_path: Path, flags: tuple[str, ...], field: str, words: str) -> None:
    # `tlp = false`: the senders' namespace runs with net.ipv4.tcp_early_retrans = 0, and the run
    # reports the namespace's loss-recovery counters over its window, which the report shows beside
    # the simulator's (3 % loss: retransmissions are resent and lost); with `--sim-rack` the
    # simulated senders find every loss by RACK, as the kernel's do (the default), with
    # `--no-sim-rack --sim-rack-retransmits` the lost retransmissions only.
    toml = 'tlp = false\nduration = "4s"\nwarmup = "1s"\n\n[path.loss]\nmodel = "bernoulli"\nrate = 0.03\n\n[bottleneck]\nrate = "10Mbps"\ndelay = "20ms"\nbuffer = "100KB"\n\n[[flows]]\ncc = "reno"\ncount = 2\n'
    out = _compare_of(tmp_path, toml, *flags)
    summary, record, sim = _outputs(out)
    assert summary["sender_tcp_early_retrans"] == 0
    rec = summary["sender_recovery"]
    assert rec["loss_probes"] == 0 and rec["sack_recoveries"] > 0 and rec["reno_recoveries"] == 0, rec
    rows = {r["metric"]: r for r in record["rows"]}
    assert rows["senders: retransmissions marked lost again (TCPLostRetransmit)"]["testbed"] == rec["lost_retransmits"]
    assert isinstance(rows["senders: retransmissions dropped"]["sim"][0], int)
    assert [f["tcp"][field] for f in sim["flows"]] == [True, True]
    assert record[f"sim_{field}"] is True and record["sim_rack"] is (field == "rack")
    assert f"send no tail loss probes (`tlp = false`); {words}" in (out / "report.md").read_text()


@covers("testbed compare", "--sim-frame-ahead")
def test_htb_adds_nothing_to_an_idle_frames_trip_and_the_simulator_can_take_a_frames_time_off(tmp_path: Path) -> None:
    # htb lets a frame leave when a link of its rate would start sending it: on the idle path an
    # echo in full-size frames (1.2 ms each at 10 Mbit/s) comes back as soon as a small one, not a
    # frame's time later as through a link that delivers a frame when its last bit has gone, as
    # the simulator's does. `--sim-frame-ahead` (the default) takes that time off the simulated round trip.
    toml = 'duration = "4s"\nwarmup = "1s"\n\n[bottleneck]\nrate = "10Mbps"\ndelay = "20ms"\nbuffer = "100KB"\n\n[[flows]]\ncc = "reno"\ncount = 2\n'
    out = _compare_of(tmp_path, toml)
    summary, record, sim = _outputs(out)
    small, full = summary["ping_idle_ms"], summary["ping_idle_full_ms"]
    frame_ms = FRAME_BYTES * 8 / 10e6 * 1e3
    assert small["n"] >= 8 and full["n"] >= 8, (small, full)
    assert full["median"] - small["median"] < frame_ms / 2, (small, full)
    assert record["sim_frame_ahead"] is True
    delay = sim["dumbbell"]["bottleneck_delay_ns"]
    assert delay == 10_000_000 - 2 * 1_000_000 - 1500 * 8 * 100 // 2  # 20 ms round trip, 1 ms access links, half a 1500-byte packet's 1.2 ms
    report = (out / "report.md").read_text()
    assert "the simulator's round trip is that much shorter (`--sim-frame-ahead`: 1.200 ms" in report
    assert f"idle in full-size frames {full['n']} replies, median {full['median']:.2f}" in report


def test_hystart_ends_each_cubic_flows_slow_start_at_windows_the_simulator_gives_too(tmp_path: Path) -> None:
    # examples/testbed/video_cubic.toml cut to 15 s: three CUBIC flows (a 4 Mbit/s stream, two bulk)
    # on 15 Mbit/s, 90 ms, 500 kB. Linux's HyStart ends each flow's slow start before a loss, and
    # compare gives the simulator's CUBIC the host's HyStart. Both sides count the exits: the
    # sender namespace's TcpExt TCPHystart* counters and the simulator's flows table. Where HyStart
    # stops a flow is chance in the kernel (the hosts' timing noise): six runs of 2026-12-06 gave
    # mean windows at the exits of 91.0 to 134.7 segments. With the noise as --sim-send-overhead
    # 0.8ms (docs/linux.md, "Live video") the simulator's seeds give the same exits, window for
    # window (in the commonest an ACK train at 138, the kernel's at 137 or 138, and delay increases
    # at 48 and 88), and the kernel's run lands within 10 % of one of its 20 seeds.
    from pertlab.linux.compare import HYSTART_EXIT_METRICS, HYSTART_WINDOW_METRIC, STREAM_HYSTART_METRIC
    from pertlab.linux.sim_side import hystart_runs, kernel_hystart

    if not hystart_runs(params := kernel_hystart()):
        pytest.skip(f"this host's tcp_cubic runs without HyStart ({params})")
    toml = (ROOT / "examples" / "testbed" / "video_cubic.toml").read_text().replace('duration = "60s"', 'duration = "15s"')
    out = _compare_of(tmp_path, toml, "--sim-seeds", "20", "--sim-send-overhead", "0.8ms")
    h = json.loads((out / "testbed" / "summary.json").read_text())["hystart"]
    # Each connection's exit from its TCP_INFO samples (its first threshold, set without a loss)
    # adds up to the namespace's counters: every connection left slow start so in the 7 runs of
    # 2026-12-06 that kept both (the stream at 146, 88, 88, 146, 48, 88 and 48 segments).
    per_flow = pl.read_parquet(out / "testbed" / "flows.parquet")["hystart_exit_cwnd"]
    assert per_flow.null_count() == 0 and per_flow.sum() == h["train_cwnd_sum"] + h["delay_cwnd_sum"], (per_flow.to_list(), h)
    assert report_row((out / "report.md").read_text(), STREAM_HYSTART_METRIC)[0] == per_flow[0]
    rows = {r["metric"]: r for r in json.loads((out / "report.json").read_text())["rows"]}
    exits = [rows[metric] for metric in HYSTART_EXIT_METRICS.values()]
    assert [r["testbed"] for r in exits] == [h["train_exits"], h["delay_exits"]] and sum(h[k] for k in ("train_exits", "delay_exits")) >= 3, h
    assert all(train + delay >= 3 for train, delay in zip(exits[0]["sim"], exits[1]["sim"])), exits
    window = rows[HYSTART_WINDOW_METRIC]
    assert window["testbed"] == pytest.approx((h["train_cwnd_sum"] + h["delay_cwnd_sum"]) / (h["train_exits"] + h["delay_exits"]))
    assert any(abs(window["testbed"] / w - 1) <= 0.1 for w in window["sim"]), window


def test_the_first_windows_through_the_bottleneck_set_where_the_streams_slow_start_ends() -> None:
    # examples/testbed/video_cubic.toml cut to 3 s, its receivers captured: the testbed records the
    # order of the three flows' first windows through the bottleneck (10 segments each), and where
    # the stream's first segment fell among the bulk flows' sets where HyStart ends its slow start.
    # The kernel's run must leave at the window the simulator gave at the same position: within
    # first_windows.EXIT_TOLERANCE segments of an exit of the committed study's seeds there
    # (docs/linux/video_first_windows.json, checked against the model by test_offline_testbed.py).
    # In the study's kernel runs the stream's first segment went 0, 1, 2, 10 or 20 segments
    # behind the bulk flows' (docs/linux.md, "The first windows decide"), all positions its seeds reached.
    from pertlab.linux import first_windows
    from pertlab.linux.sim_side import hystart_runs, kernel_hystart

    if not hystart_runs(params := kernel_hystart()):
        pytest.skip(f"this host's tcp_cubic runs without HyStart ({params})")
    study = json.loads((ROOT / "docs" / "linux" / "video_first_windows.json").read_text())
    sc = first_windows.cut(load_scenario(ROOT / "examples" / "testbed" / "video_cubic.toml"), round(study["duration_s"] * 1e9))

    def stream_pieces(record: dict) -> list[int]:
        """How the stream's first window went through: its segments in each run of the order."""
        return [int(n) for flow, n in (r.split("x") for r in record["order"].split()) if flow == "0"]

    def sim_exits(record: dict) -> list[float]:
        """The stream's exits in the committed study's seeds at the kernel run's position, its
        window in the same pieces."""
        return [r["exits"][0] for r in study["sim_seeds"] if (r["ahead"], stream_pieces(r)) == (record["ahead"], stream_pieces(record)) and r["exits"][0] is not None]

    def held_back(record: dict) -> str | None:
        # The stream writes its window one segment at a time; the simulator's seeds and 39 of the
        # study's 40 kernel runs sent its first segment alone and the other nine later together (or
        # all ten at once, behind 20). A loaded host (2026-12-06, two busy loops beside the run) sent
        # the first two together, or the second alone further back, and the stream left at 134
        # where the seeds give 145 for its first segment first: a window the simulator never sent
        # has no seed to compare with, and the run is taken again.
        return None if sim_exits(record) else f"the stream's first window went through in pieces {stream_pieces(record)}, {record['ahead']} bulk segments ahead, as no seed of the study sent it"

    record, _ = measured(lambda: first_windows.kernel_run(sc), held_back)
    runs = [r.split("x") for r in record["order"].split()]
    totals: dict[str, int] = {}
    for flow, n in runs:
        totals[flow] = totals.get(flow, 0) + int(n)
    assert totals == {"0": 10, "1": 10, "2": 10}, record
    first_stream_run = [flow for flow, _ in runs].index("0")
    assert record["ahead"] == sum(int(n) for _, n in runs[:first_stream_run]), record
    stream_exit = record["exits"][0]
    assert stream_exit is not None, record
    sim = sim_exits(record)
    assert sim, f"no seed of the committed study sent the stream's window so: {record}"
    assert any(abs(stream_exit - w) <= first_windows.EXIT_TOLERANCE for w in sim), (record, sorted(set(sim)))


def test_captured_acks_show_linux_acknowledging_a_lone_pushed_segment_at_once(tmp_path: Path) -> None:
    # Four PERT flows behind Linux's delayed ACKs, their receivers captured on both sides. Linux
    # holds a lone segment for its delayed-ACK timer (at least TCP_DELACK_MIN, 40 ms) unless it
    # carries PSH: a lone full-sized segment with PSH is acknowledged as soon as the application
    # has read it. The simulator has no PSH; its receivers follow Linux's other rules (compare's
    # ack_policy = "linux"): past quickack mode a lone segment waits more than TCP_DELACK_MIN
    # (40 ms) and at most the handshake's RTT in jiffies and one jiffy more (the capture's times
    # moved to the segments' arrival). docs/linux.md, "Ten PERT flows behind delayed ACKs".
    out = _compare_of(tmp_path, 'delayed_ack = true\ncapture_acks = true\nduration = "8s"\nwarmup = "2s"\n\n[bottleneck]\nrate = "10Mbps"\ndelay = "40ms"\nbuffer = "50KB"\n\n[[flows]]\ncc = "pert"\ncount = 4\n')
    real = json.loads((out / "testbed" / "summary.json").read_text())["acks"]
    assert real["acks"] > 500 and 1.5 < real["segments_per_ack"] < 2.0, real
    # Linux's rule: a lone segment with PSH is acknowledged at once. Quickack mode (after a gap or
    # early in a connection) acknowledges every segment at once, with PSH or without: in one run
    # 24 of the 346 lone segments acknowledged at once carried no PSH, all of one connection in
    # the window's first 140 ms, every segment of its rounds acknowledged alone.
    assert real["lone_at_once_share"] > 0.3 and real["push_at_once_share"] > 0.95 and real["at_once_push_share"] > 0.5, real
    assert 40.0 <= real["lone_held_median_ms"] < 60.0 and real["data_push_share"] > 0.1, real
    sim = pl.read_parquet(out / "sim" / "acks.parquet").filter(pl.col("t_s") >= 2.0)
    lone = sim.filter(pl.col("segments") == 1)
    assert lone.height > 0 and not sim["push"].any()
    jiffy_ms = 1000 / (kernel_hz() or DEFAULT_HZ)
    held = lone.filter(pl.col("hold_ms") > 1.0)["hold_ms"]
    assert held.len() > 0.9 * lone.height, lone["hold_ms"].describe()  # the others: quickack mode after a gap
    assert held.min() > 40.0 and held.max() <= 40.0 + 2 * jiffy_ms + 0.01, held.describe()
    report = (out / "report.md").read_text()
    assert f"| receivers: of those sent at once, on a segment with PSH, share | {real['at_once_push_share']:.3f} | - |" in report
    assert f"| receivers: lone segments with PSH, sent at once, share | {real['push_at_once_share']:.3f} | - |" in report
    # Both sides' first windows through the bottleneck (acks.first_windows): 10 segments of each
    # of the 4 flows, in an order the report writes as runs.
    first = json.loads((out / "report.json").read_text())["first_windows"]
    for order in [first["testbed"], *first["sim"]]:
        assert sorted(order) == sorted(list(range(4)) * 10), order
    assert f"testbed {acks.order_text(first['testbed'])}; simulator seed 1 {acks.order_text(first['sim'][0])}." in report
    assert not list((out / "sim").glob("**/*.pcap"))  # the captures are read, then removed
    assert not list(runs.RUN_ROOT.glob("*/acks.pcapng"))


def test_one_segment_tso_chunks_leave_almost_no_segment_pushed(tmp_path: Path) -> None:
    # docs/linux.md, "Ten PERT flows behind delayed ACKs": the kernel's PSH marks come with the
    # senders' TSO chunks, at least net.ipv4.tcp_min_tso_segs segments each (2 by default; more
    # than 10 % of the segments carry PSH then, the test above). With chunks of one segment
    # almost none do, and few lone segments are acknowledged at once.
    toml = 'delayed_ack = true\ncapture_acks = true\nmin_tso_segs = 1\nduration = "8s"\nwarmup = "2s"\n\n[bottleneck]\nrate = "10Mbps"\ndelay = "40ms"\nbuffer = "50KB"\n\n[[flows]]\ncc = "pert"\ncount = 4\n'
    out = _compare_of(tmp_path, toml)
    real = json.loads((out / "testbed" / "summary.json").read_text())["acks"]
    assert real["acks"] > 500 and real["data_push_share"] < 0.05, real
    assert "The kernel's senders' TSO chunks hold at least 1 segment (`min_tso_segs`); the simulator sends segment by segment." in (out / "report.md").read_text()


def test_step_marking_in_the_kernel_and_linux_acknowledging_every_ecn_cue_at_once(tmp_path: Path) -> None:
    # bottleneck.step_k: the BPF step marker ahead of htb (bpf/ce_mark.bpf.c), ECN at both ends,
    # against the simulator's step queue. Linux's receivers (delayed ACKs, one-segment TSO chunks
    # so that no PSH speeds an ACK) hold many lone segments for their timer, but acknowledge every
    # ECN cue at once: a segment with CWR, the first CE since CWR (tcp_ecn_accept_cwr,
    # tcp_data_ecn_check), as the simulator's `ack_policy = "linux"` does (docs/model.md).
    toml = (
        'delayed_ack = true\ncapture_acks = true\nmin_tso_segs = 1\nduration = "12s"\nwarmup = "3s"\n\n'
        '[bottleneck]\nrate = "4Mbps"\ndelay = "40ms"\nstep_k = 10\n\n[[flows]]\ncc = "cubic"\ncount = 4\n'
    )
    out = _compare_of(tmp_path, toml)
    real = json.loads((out / "testbed" / "summary.json").read_text())
    sim = json.loads((out / "sim" / "summary.json").read_text())
    rq, sq = real["queues"][0], sim["bottleneck"]
    assert rq["marks"] > 50 and sq["marks"] > 50, (rq, sq)
    assert 0.5 < rq["mark_rate"] / sq["mark_rate"] < 2.0, (rq["mark_rate"], sq["mark_rate"])
    acks_real = real["acks"]
    assert acks_real["cue_acks"] > 50 and acks_real["cue_at_once_share"] >= 0.98, acks_real
    assert acks_real["lone_at_once_share"] < 0.9 and acks_real["data_push_share"] < 0.05, acks_real
    report = (out / "report.md").read_text()
    assert "| receivers: of those, sent at once after the cue, share | " in report and "| bottleneck CE marks | " in report
    assert "in the simulator a `step` queue of K = 10 packets; ECN on at every host." in report


#: Between the kernel's lead in utilization over the simulator with Linux's TSO chunks and without
#: them (the test below; its comment gives the runs it comes from).
UTIL_SPLIT = 0.022


def test_linuxs_two_segment_tso_chunks_keep_its_link_busier_than_the_simulators_behind_delayed_acks(tmp_path: Path) -> None:
    # docs/linux.md, "ECN at the bottleneck": ten CUBIC flows behind step marking and delayed ACKs
    # (the examples ten_flows_cubic_step_ecn and its _tso1, 60 s as committed). With Linux's chunks
    # of two segments, PSH on many, its receivers send more ACKs than the simulator's, whose sender
    # sends segment by segment, and its link is about 3 points busier; with one-segment chunks
    # (min_tso_segs = 1) the kernel's ACKs and utilization come to the simulator's.
    # UTIL_SPLIT parts the two gaps (kernel minus simulator). Eight 60 s kernel runs of each on
    # 2026-12-04: with the chunks 0.029 to 0.032 (0.923 to 0.926), without 0.002 to 0.015 (0.896
    # to 0.909, a wider spread); the bound of 0.015 this test had for the second failed on the
    # run at 0.015, and one 30 s run in five before it. Those runs, and the committed ones, set the
    # simulator's side without RACK and htb's frame ahead (the frame ahead alone lifts the simulated
    # utilization about a point, docs/linux.md's `linux-side` block): this test keeps that side.
    examples = Path(__file__).parents[2] / "examples" / "testbed"
    psh, per_ack, util = "senders: data segments with PSH, share", "receivers: segments per ACK (mean)", "bottleneck utilization"
    rows = {}
    for name in ("ten_flows_cubic_step_ecn", "ten_flows_cubic_step_ecn_tso1"):
        (tmp_path / name).mkdir()
        report = (_compare_of(tmp_path / name, (examples / f"{name}.toml").read_text(), "--no-sim-rack", "--no-sim-frame-ahead") / "report.md").read_text()
        rows[name] = {m: report_row(report, m) for m in (psh, per_ack, util)}
    chunks, single = rows["ten_flows_cubic_step_ecn"], rows["ten_flows_cubic_step_ecn_tso1"]
    assert chunks[psh][0] > 0.15 and single[psh][0] < 0.01, rows
    assert chunks[per_ack][0] < chunks[per_ack][1] - 0.08 and abs(single[per_ack][0] - single[per_ack][1]) <= 0.04, rows
    assert chunks[util][0] - chunks[util][1] >= UTIL_SPLIT and abs(single[util][0] - single[util][1]) < UTIL_SPLIT, rows


def test_the_step_markers_queue_follows_the_real_fifo_about_a_frame_longer(tmp_path: Path) -> None:
    # bpf/ce_mark.bpf.c marks from a copy of the queue: the FIFO of a link sending at exactly the
    # htb rate (the simulator's link). Sampled beside the real bfifo's backlog every 10 ms, drained
    # to the sample's time (bpf_ktime_get_ns is CLOCK_MONOTONIC, as time.monotonic_ns): the two
    # move together, and htb's bursts (its tokens) keep the real FIFO about a frame shorter.
    f = tmp_path / "vq.toml"
    f.write_text('duration = "8s"\nwarmup = "1s"\n\n[bottleneck]\nrate = "10Mbps"\ndelay = "40ms"\nstep_k = 10\n\n[[flows]]\ncc = "cubic"\ncount = 4\n')
    before = _namespaces()
    with _driver("run", str(f)) as p:
        rtr = next(iter(ns for ns in _flows_running(before, p) if ns.endswith("-rtr")))
        tc = lambda *a: json.loads(subprocess.run(["ip", "netns", "exec", rtr, "tc", "-j", *a], capture_output=True, text=True, check=True).stdout)  # noqa: E731
        prog = next(x["options"]["prog"]["id"] for x in tc("filter", "show", "dev", "r1", "egress") if "options" in x)
        (vq,) = json.loads(subprocess.run(["bpftool", "prog", "show", "id", str(prog), "-j"], capture_output=True, text=True, check=True).stdout)["map_ids"]
        vq_fd = bpf_syscall.map_fd(vq)
        real, virtual = [], []
        while p.poll() is None and len(real) < 400:
            # The run may end (its namespaces removed) between the loop's test and the read: a
            # loaded host (2026-12-06) took so long over each read that 400 never came in 8 s.
            # `tc -n` enters the namespace itself: one process per read instead of two (`ip netns exec`).
            shown = subprocess.run(["tc", "-n", rtr, "-j", "-s", "qdisc", "show", "dev", "r1"], capture_output=True, text=True)
            if shown.returncode != 0 and rtr not in _namespaces():
                break
            shown.check_returncode()
            # The copy is read in this process, its time taken at once. Until 2026-12-07 a bpftool
            # process read it and the time was taken when that process had ended: frames that came
            # in meanwhile were missed and the copy drained for longer, biased short by the spawn's
            # time at the rate. With six busy processes beside the run that put the copy 0.2 frame
            # *under* the real FIFO (correlation 0.82, as CI saw on 2026-12-07), against 1.4 frames
            # over (0.98) read here in the same samples.
            b, last_ns = struct.unpack_from("QQ", bpf_syscall.map_lookup(vq_fd, bytes(4), VIRTUAL_QUEUE_SIZE, bpf_syscall.BPF_F_LOCK), 8)
            now = time.monotonic_ns()
            real.append(next(q["backlog"] for q in json.loads(shown.stdout) if q["kind"] == "bfifo"))
            virtual.append(max(0.0, b - (now - last_ns) * 10e6 / 8e9))
            time.sleep(0.01)
        os.close(vq_fd)
        p.communicate(timeout=60)
    assert len(real) > 200, len(real)
    gap = (statistics.fmean(virtual) - statistics.fmean(real)) / FRAME_BYTES
    assert statistics.correlation(real, virtual) > 0.9 and 0.0 < gap < 2.0, (statistics.correlation(real, virtual), gap)


def test_many_connections_over_a_long_round_trip_start_together_at_the_window() -> None:
    # A sender opens its connections one after the other, a handshake each: 20 over 150 ms take
    # 3 s. Until 2026-12-05 the flows' start (t0) was fixed before they connected (0.6 s ahead
    # for one group), so they started about 2.5 s into a run whose window began at 0 s, and the
    # goodput, divided by the whole window, came out far below what the link carried (50 eBPF
    # adaptive PERT flows over 60 ms: 74 Mbit/s of goodput on a link 0.89 busy). Now t0 follows
    # the last connection: every flow delivers within the first samples, and the goodput is what
    # the bottleneck carried less the headers.
    from pertlab.linux.scenario import TestbedScenario

    many = {"name": "many", "duration": "3s", "warmup": "0s", "bottleneck": {"rate": "20Mbps", "delay": "150ms", "buffer": "400KB"}, "flows": [{"cc": "reno", "count": 20}]}
    res = testbed.run(TestbedScenario.parse(many))
    first = res.flow_series.filter(pl.col("delivered_bytes") > 0).group_by("flow").agg(pl.col("t_s").min())
    assert first.height == 20 and first["t_s"].max() <= 0.5, first.sort("t_s")
    util = res.queues.row(0, named=True)["utilization"]
    goodput = res.flows["goodput_mbps"].sum()
    assert util > 0.5 and 0.85 <= goodput / (util * 20 * 1448 / 1514) <= 1.05, (goodput, util)


def _pert_against_cubic(min_rtt_window: str | None):
    """One eBPF PERT (PERT/RED) flow against one kernel CUBIC flow, 20 Mbit/s, 40 ms, a buffer
    of two bandwidth-delay products, 20 s measured after 5; with ``[pert] min_rtt_window``."""
    from pertlab.linux.scenario import TestbedScenario

    data = {
        "name": "pert-window", "duration": "20s", "warmup": "5s",
        "bottleneck": {"rate": "20Mbps", "delay": "40ms", "buffer": "200KB"},
        "flows": [{"cc": "pert", "count": 1}, {"cc": "cubic", "count": 1}],
    }  # fmt: skip
    if min_rtt_window is not None:
        data["pert"] = {"min_rtt_window": min_rtt_window}
    return TestbedScenario.parse(data)


def test_pert_red_with_a_windowed_minimum_rtt_responds_early_less_often_against_cubic() -> None:
    # bpf/pert_algo.h's windowed minimum (Nichols' estimator, as the simulator's windowed_min.rs):
    # with a 1 s window, P takes in the standing queue CUBIC keeps in a 2-BDP buffer, so srtt - P,
    # and with it PERT/RED's response probability, stays small. The simulator predicts it on the
    # same scenario (seeds 1 to 8: early responses in the window fall to at most half), and the
    # kernel does the same, each setting's mean (two runs with the window, one without) within
    # 35 % of the simulator's mean. With the window the count varies from run to run on both sides:
    # on 2026-12-07 the simulator gave 41 to 60 over seeds 1 to 20 (mean 51.6), sixteen kernel
    # runs on a quiet host 38 to 58 (mean 46), and one CI run
    # gave 29, which failed the comparison of a single run against two seeds. Without the window
    # both give 147 every time. test_linux_adaptive.py tests adaptive PERT's window.
    from pertlab.linux.sim_side import sim_scenario
    from pertlab.runner import run as sim_run

    def sim_early(window: str | None) -> float:
        sims = [sim_run(sim_scenario(_pert_against_cubic(window)).model_copy(update={"seed": seed})) for seed in range(1, 9)]
        return statistics.fmean(s.flows.row(0, named=True)["early_responses"] for s in sims)

    def kernel_early(window: str | None) -> float:
        counts = []
        for _ in range(2 if window else 1):  # without the window every run gives the same count
            flow = testbed.run(_pert_against_cubic(window)).flows.row(0, named=True)
            assert flow["ss_cc"] == "pert", flow
            counts.append(flow["early_responses"])
        return statistics.fmean(counts)

    predicted = {w: sim_early(w) for w in (None, "1s")}
    assert predicted[None] >= 100 and predicted["1s"] <= 0.5 * predicted[None], predicted
    got = {w: kernel_early(w) for w in (None, "1s")}
    assert got["1s"] <= 0.5 * got[None], (got, predicted)
    assert all(abs(got[w] - predicted[w]) <= 0.35 * predicted[w] for w in got), (got, predicted)
    assert not loader.is_registered()


# ---------------------------------------------------------------- interruptions


@pytest.mark.parametrize("gap_s", [0.01, 0.02, 0.03])
def test_double_ctrl_c_keeps_results_and_removes_everything(tmp_path: Path, gap_s: float, foreign_struct_ops: set[int]) -> None:
    """Issue 25, 8 (a): a second Ctrl-C during cleanup left the namespaces, veths and qdiscs."""
    before = _namespaces()
    with _driver("run", str(_scenario(tmp_path, "60s"))) as p:
        new = _flows_running(before, p, after_s=1.5)
        os.killpg(p.pid, signal.SIGINT)  # what a terminal does: the whole process group
        time.sleep(gap_s)
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
    assert not _namespaces() & new, err
    assert wait_until(lambda: not _pert_struct_ops() - foreign_struct_ops, 5) and not loader.is_registered()
    assert p.returncode == 130, err
    assert "SIGINT: already stopping" in err and "Traceback" not in err, err
    # The flows' results up to the Ctrl-C are printed.
    assert "interrupted at" in out and "   0   pert" in out, out
    assert not (runs.RUN_ROOT / _run_id(new)).exists()  # nothing left for a cleanup


@covers("testbed run", "SCENARIO", "--out", "--json")
def test_sigterm_keeps_what_was_measured(tmp_path: Path, foreign_struct_ops: set[int]) -> None:
    before = _namespaces()
    out_dir = tmp_path / "out"
    with _driver("run", str(_scenario(tmp_path, "60s")), "--out", str(out_dir), "--json") as p:
        new = _flows_running(before, p, after_s=2.5)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    summary = json.loads(out)
    assert summary == json.loads((out_dir / "summary.json").read_text())
    assert summary["interrupted"] and summary["window_start_s"] == 1.0 and 1.5 < summary["window_end_s"] < 10.0, summary
    flow = summary["flows"][0]
    # Measured over [1 s, the SIGTERM]: the 10 Mbit/s bottleneck was used.
    assert 5.0 < flow["goodput_mbps"] < 10.0 and summary["queues"][0]["utilization"] > 0.5, summary
    assert (out_dir / "flow_series.parquet").is_file()
    assert not _namespaces() & new
    assert wait_until(lambda: not _pert_struct_ops() - foreign_struct_ops, 5)


@covers("testbed cleanup", "testbed cleanup")
def test_sigkill_helpers_end_by_themselves_and_cleanup_removes_the_rest(tmp_path: Path, foreign_struct_ops: set[int]) -> None:
    """Issue 25, 8 (b): the delay line never exited on its own; `pertlab testbed cleanup` did not exist."""
    before = _namespaces()
    with _driver("run", str(_scenario(tmp_path, "60s"))) as p:
        new = _flows_running(before, p)
        # a short-lived process (a ping, a sysctl) may end between the listing and the read
        names = {pid: _comm(pid) for ns in new for pid in _ns_pids(ns)}
        helpers = {pid: name for pid, name in names.items() if name is not None}
        assert "delayline" in helpers.values() and len(helpers) >= 3, helpers  # delay line, receiver, sender
        p.kill()
        p.communicate()
    # The delay line, the receiver and the sender see their standard input close and end.
    assert wait_until(lambda: not any(_alive(pid) for pid in helpers), 10), {pid: c for pid, c in helpers.items() if _alive(pid)}
    # With them the sockets, and with the loader the registration: pert is unloaded.
    assert wait_until(lambda: not _pert_struct_ops() - foreign_struct_ops, 5) and not loader.is_registered()
    # The namespaces stay until a cleanup.
    assert new <= _namespaces()
    r = subprocess.run([PERTLAB, "testbed", "cleanup"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    run_id = _run_id(new)
    assert f"removed run {run_id} (pid {p.pid}" in r.stdout and "its driver is gone" in r.stdout, r.stdout
    assert not _namespaces() & new
    assert not (runs.RUN_ROOT / run_id).exists()
    r = subprocess.run([PERTLAB, "testbed", "cleanup"], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, "nothing to remove\n")


def _process_with_pid(pid: int) -> subprocess.Popen:
    """A process that gets ``pid`` (free now), as after PIDs wrap: /proc/sys/kernel/ns_last_pid."""
    last = Path("/proc/sys/kernel/ns_last_pid")
    if not os.access(last, os.W_OK):
        pytest.skip(f"cannot choose a PID: {last} is not writable here")
    for _ in range(100):
        last.write_text(str(pid - 1))
        p = subprocess.Popen(["sleep", "600"])
        if p.pid == pid:
            return p
        p.kill()
        p.wait()
    pytest.fail(f"could not start a process with PID {pid} in 100 tries (other processes took it)")


def test_sigkill_then_pid_reuse_next_run_and_cleanup_remove_leftovers(tmp_path: Path) -> None:
    """Issue 25, 8 (b): leftovers were removed only while the killed driver's PID was free."""
    before = _namespaces()
    # Not a process group leader (a PGID in use cannot be reused as a PID).
    with _driver("run", str(_scenario(tmp_path, "60s")), own_group=False) as p:
        new = _flows_running(before, p, after_s=0.2)
        p.kill()
        p.communicate()
    impostor = _process_with_pid(p.pid)
    try:
        assert _alive(p.pid) and new <= _namespaces()
        # The next run removes them although a process with the dead driver's PID runs.
        r = subprocess.run([PERTLAB, "testbed", "run", str(_scenario(tmp_path, "1s", "0s"))], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert not _namespaces() & new
        # And so does `pertlab testbed cleanup`: a run directory whose PID is alive (ours) but whose lock is free.
        before = _namespaces()
        with _driver("run", str(_scenario(tmp_path, "60s"))) as q:
            new = _flows_running(before, q, after_s=0.2)
            q.kill()
            q.communicate()
        run_json = runs.RUN_ROOT / _run_id(new) / "run.json"
        run_json.write_text(json.dumps(json.loads(run_json.read_text()) | {"pid": impostor.pid}))
        r = subprocess.run([PERTLAB, "testbed", "cleanup"], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and f"(pid {impostor.pid}" in r.stdout, r.stdout + r.stderr
        assert not _namespaces() & new and not run_json.exists()
    finally:
        impostor.kill()
        impostor.wait()


def test_cleanup_leaves_a_live_run_alone_and_ctrl_c_before_the_window(tmp_path: Path) -> None:
    before = _namespaces()
    with _driver("run", str(_scenario(tmp_path, "60s", warmup="30s")), "--json") as p:
        new = _flows_running(before, p, after_s=0.2)
        r = subprocess.run([PERTLAB, "testbed", "cleanup"], capture_output=True, text=True, timeout=60)
        assert new <= _namespaces() and p.poll() is None
        assert f"left alone: run {next(iter(new)).split('-')[1]} in progress (pid {p.pid}" in r.stdout, r.stdout
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and not _namespaces() & new, err
    # Stopped before the 30 s warm-up ended: an empty window, no window metrics; the series are kept.
    summary = json.loads(out)
    assert summary["interrupted"] and summary["window_start_s"] == summary["window_end_s"] < 30.0
    assert summary["flows"][0]["goodput_mbps"] is None and summary["queues"][0]["utilization"] is None


def test_cleanup_goes_by_the_lock_not_the_pid() -> None:
    """Run directories only (no namespaces): a free lock is a run that is over, whatever
    process now has its PID; a held lock is a live run."""
    made = {}
    for run_id, info in (("0badc0de", {"pid": os.getpid(), "boot_id": runs.boot_id()}), ("01db0075", None), ("0e0e0e0e", {"pid": 1, "boot_id": "an-earlier-boot"})):
        d = runs.RUN_ROOT / run_id
        d.mkdir(parents=True)
        (d / "lock").touch()
        if info is not None:
            (d / "run.json").write_text(json.dumps({"run_id": run_id, "started": "then", **info}))
        made[run_id] = d
    code = "import fcntl, sys, time\nf = open(sys.argv[1])\nfcntl.flock(f, fcntl.LOCK_EX)\nprint(flush=True)\ntime.sleep(600)\n"
    holder = subprocess.Popen([sys.executable, "-c", code, str(made["0badc0de"] / "lock")], stdout=subprocess.PIPE, text=True)
    try:
        holder.stdout.readline()  # type: ignore[union-attr]
        assert "0badc0de" in [r["run_id"] for r in runs.live_runs()]
        removed = {r.what for r in runs.cleanup()}
        assert removed == {"run 01db0075 (no run.json: its driver died while starting)", "run 0e0e0e0e (pid 1, started then; from an earlier boot)"}
        assert made["0badc0de"].is_dir()  # held: left alone, although nothing of it runs
    finally:
        holder.kill()
        holder.wait()
    assert [r.what for r in runs.cleanup()] == [f"run 0badc0de (pid {os.getpid()}, started then; its driver is gone)"]
    assert not any(d.exists() for d in made.values())


def test_delay_line_exits_when_its_parent_dies() -> None:
    """Issue 25, 8 (b): the delay line never exited on its own."""
    dl = build.build_delayline()
    # A parent in a network namespace of its own starts the delay line, reports its PID, waits.
    code = (
        "import subprocess, sys, time\n"
        f"p = subprocess.Popen([{str(dl)!r}, 'dltest0', 'delay_us=10000'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)\n"
        "assert p.stdout.readline().startswith('ready')\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen(["unshare", "--net", sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(parent.stdout.readline())  # type: ignore[union-attr]
        assert _alive(pid) and Path(f"/proc/{pid}/comm").read_text().strip() == "delayline"
        parent.kill()
        parent.wait()
        assert wait_until(lambda: not _alive(pid), 5), "the delay line outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
