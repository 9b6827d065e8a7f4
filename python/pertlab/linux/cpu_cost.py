"""CPU cost of a congestion control in the kernel (Kotla 2008, Table VI, today; docs/linux.md).

For each congestion control (default: adaptive PERT through eBPF, kernel Reno, kernel CUBIC),
``flows`` bulk TCP connections send for ``seconds`` through the namespace testbed
(:class:`pertlab.linux.testbed.Testbed`: sender, router with an htb bottleneck and the TUN delay
line, receiver), each setting repeated ``repeat`` times, the congestion controls interleaved
(cc1, cc2, cc3, cc1, ...) so that a change of the shared machine's load touches all alike.

Per run, between the flows' start (t0) and the sender's exit:

- the eBPF programs' run time and call count (``run_time_ns``, ``run_cnt`` of every struct_ops
  program of the held controller, from ``bpftool prog show``), collected while BPF run-time
  statistics are on: this module turns them on with the ``BPF_ENABLE_STATS`` system call, whose
  file descriptor keeps them on until it is closed (by this module after the run, or by the
  kernel when the process dies, however it dies); ``kernel.bpf_stats_enabled`` is not written,
  so there is nothing to restore;
- the sender process's user and system CPU time (``/proc/PID/stat`` at t0, ``wait4``'s rusage
  at its exit); the delay line's and the receiver's too, and the machine's ``/proc/stat``
  (every process, other people's jobs included);
- the bytes the sender's connections had acknowledged (TCP_INFO ``bytes_acked``); a megabyte
  is 10^6 bytes;
- in the middle of the run, which congestion control ``ss`` sees on each connection, a
  third snapshot of the BPF counters (the counts grow with the traffic), and the bytes
  acknowledged (the goodput of each half of the run: the first holds the start);
- the load average before and after.

Beside the kernel's runs, the simulator runs the same scenario (:func:`simulate`:
:func:`pertlab.linux.sim_side.sim_scenario`, both sides starting at the kernel's initial window
of 10 segments), seeds 1 to ``repeat``, for its goodput over the run and each half.

Where the sender's kernel work is charged, on this host: the send path (``tcp_sendmsg`` down
to the veth) runs in the sender process; ACKs reach the sender's TCP in softirq context on
whatever task is running when the router forwards them, mostly the delay line writing them
back into its TUN device (without ``CONFIG_IRQ_TIME_ACCOUNTING``, softirq time is charged to
the interrupted task as system time, sampled at the tick). So the congestion control's own
work (``cong_avoid``, ``pkts_acked``) is mostly in the delay line's system time, not the
sender's; the BPF statistics measure it exactly for the eBPF controllers, and nothing
measures it for the built-in ones (Reno, CUBIC are C functions without run-time counters;
fentry / fexit timing would add more than it measures).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import math
import os
import platform
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import interrupt
from . import bpf_syscall, flows, loader, runs
from .hostcpu import machine_cpu, proc_cpu
from .scenario import FRAME_BYTES, KERNEL_CCS, LINUX_INIT_CWND, SEGMENT_BYTES, TestbedScenario

#: The congestion controls a run can use, by the names the command takes: the eBPF ones
#: (held for the measurement) and the kernel's built-in ones.
EBPF = {"pert-adaptive": "pert_adaptive", "pert": "pert"}
CCS = (*EBPF, *KERNEL_CCS)
DEFAULT_CCS = ("pert-adaptive", "reno", "cubic")
MB = 1_000_000
#: The thesis's Table VI: CPU utilisation range (%) with 50 flows from the client (Linux 2.6.18).
THESIS_TABLE_VI = {"SACK (NewReno)": (1.5, 3.5), "CTCP": (1.0, 3.0), "PERT": (2.0, 3.6)}

_BPF_STATS_RUN_TIME = 0  # enum bpf_stats_type (include/uapi/linux/bpf.h)


class CpuCostError(ValueError):
    """Bad input: ``field`` (a :class:`Setup` field) and ``message``; reads ``field: message``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass
class Setup:
    """What is measured: ``flows`` connections per run, ``seconds`` long, ``repeat`` runs per
    congestion control, through ``rate_mbit`` with ``rtt_ms`` of round-trip delay and a pfifo of
    one bandwidth-delay product, at least 2 packets per flow (the thesis's buffer rule)."""

    flows: int = 50
    seconds: float = 20.0
    repeat: int = 3
    ccs: tuple[str, ...] = DEFAULT_CCS
    rate_mbit: float = 100.0
    rtt_ms: float = 60.0

    def validate(self) -> None:
        if not (isinstance(self.flows, int) and self.flows >= 1):
            raise CpuCostError("flows", f"must be at least 1, got {self.flows}")
        if self.flows > 1000:
            raise CpuCostError("flows", f"at most 1000 (one sender process), got {self.flows}")
        if not (self.seconds > 0 and math.isfinite(self.seconds)):
            raise CpuCostError("seconds", f"must be positive, got {self.seconds}")
        if not (isinstance(self.repeat, int) and self.repeat >= 1):
            raise CpuCostError("repeat", f"must be at least 1, got {self.repeat}")
        if not self.ccs:
            raise CpuCostError("cc", "give at least one congestion control")
        for cc in self.ccs:
            if cc not in CCS:
                raise CpuCostError("cc", f"unknown congestion control {cc!r}; allowed: {', '.join(CCS)}")
        if len(set(self.ccs)) != len(self.ccs):
            raise CpuCostError("cc", f"each congestion control once, got {', '.join(self.ccs)}")
        if not (self.rate_mbit > 0 and math.isfinite(self.rate_mbit)):
            raise CpuCostError("rate_mbit", f"must be positive, got {self.rate_mbit}")
        if not (self.rtt_ms > 0 and math.isfinite(self.rtt_ms)):
            raise CpuCostError("rtt_ms", f"must be positive, got {self.rtt_ms}")

    def buffer_pkts(self) -> int:
        bdp = self.rate_mbit * 1e6 * self.rtt_ms / 1e3 / 8 / FRAME_BYTES
        return max(round(bdp), 2 * self.flows, 10)

    def scenario(self, cc: str) -> TestbedScenario:
        """The testbed scenario of one run (the delay line, bottleneck and receiver it builds).
        Its initial window is the kernel's own (10 segments), given so that the simulator's
        flows (:func:`simulate`) start as the kernel's do rather than at the simulator's 2; both
        sides sample their flows at the start and in the middle (``sample_interval``), which
        splits the run into halves."""
        return TestbedScenario.parse({
            "name": f"cpu-cost-{cc}", "duration": f"{self.seconds}s", "warmup": "0s", "delayed_ack": True, "init_cwnd": LINUX_INIT_CWND,
            "sample_interval": f"{self.seconds / 2}s",
            "bottleneck": {"rate": f"{self.rate_mbit}Mbps", "delay": f"{self.rtt_ms}ms", "buffer_pkts": self.buffer_pkts()},
            "flows": [{"cc": EBPF.get(cc, cc), "count": self.flows}],
        })  # fmt: skip


# ---------------------------------------------------------------- BPF run-time statistics


@contextlib.contextmanager
def bpf_stats():
    """BPF run-time statistics on while inside (``BPF_ENABLE_STATS``; the kernel keeps them on
    while any such descriptor is open, and closes ours if this process dies)."""
    attr = ctypes.create_string_buffer(8)  # union bpf_attr's enable_stats: __u32 type, zero padded
    ctypes.c_uint32.from_buffer(attr).value = _BPF_STATS_RUN_TIME
    try:
        fd = bpf_syscall.bpf(bpf_syscall.BPF_ENABLE_STATS, attr)
    except OSError as e:
        raise RuntimeError(f"BPF_ENABLE_STATS failed: {e.strerror or e} (needs Linux 5.8 and CAP_SYS_ADMIN)") from e
    try:
        yield fd
    finally:
        os.close(fd)


def stats_fds() -> list[int]:
    """Descriptors of this process that hold BPF statistics on (none after :func:`bpf_stats`)."""
    out = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:bpf-stats":
                out.append(int(fd))
    return out


def controller_programs(holder: loader.Holder) -> dict[int, str]:
    """The struct_ops programs of a held controller, id -> name: those using its private maps
    (its ``.bss`` or ``flows`` map, and the other maps those programs use), so that another
    copy loaded by someone else on this host is not counted."""
    progs = [p for p in _bpftool_progs() if p.get("type") == "struct_ops"]
    maps = {holder.bss_map_id, holder.flows_map_id}
    for p in progs:
        if maps & set(p.get("map_ids", [])):
            maps |= set(p["map_ids"])
    found = {p["id"]: p["name"] for p in progs if maps & set(p.get("map_ids", []))}
    if not found:
        raise RuntimeError(f"no struct_ops program of {holder.name} found (maps {sorted(maps)})")
    return found


def _bpftool_progs() -> list[dict]:
    r = interrupt.run_detached(["bpftool", "-j", "prog", "show"])
    if r.returncode != 0:
        raise RuntimeError(f"bpftool prog show: {r.stderr.strip()}")
    return json.loads(r.stdout or "[]")


def prog_stats(ids: dict[int, str]) -> dict[str, dict]:
    """``run_cnt`` and ``run_time_ns`` of these programs, by name."""
    if not ids:
        return {}
    out = {}
    for p in _bpftool_progs():
        if p.get("id") in ids:
            out[ids[p["id"]]] = {"run_cnt": p.get("run_cnt", 0), "run_time_ns": p.get("run_time_ns", 0)}
    missing = set(ids.values()) - set(out)
    if missing:
        raise RuntimeError(f"BPF programs gone during the run: {sorted(missing)}")
    return out


# ---------------------------------------------------------------- CPU time


def ksoftirqd_cpu() -> float:
    """CPU seconds of the ksoftirqd threads so far (softirq work the kernel deferred to them:
    ours, and that of every other job on the machine)."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if Path(f"/proc/{entry}/comm").read_text().startswith("ksoftirqd/"):
                    total += sum(proc_cpu(int(entry)))
    return total


def loadavg() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


# ---------------------------------------------------------------- one run


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def run_once(setup: Setup, cc: str, holder: loader.Holder | None, guard: interrupt.Stop) -> dict:
    """One run of ``cc`` in a fresh testbed; the figures of :func:`measure`'s ``runs`` rows."""
    from .testbed import PORT, RCV_IP, Testbed  # the testbed imports polars; only here

    sc = setup.scenario(cc)
    py = sys.executable
    load_before = loadavg()
    run_dir = runs.begin()
    tb = Testbed(sc, run_dir)
    try:
        tb.build()
        progs = controller_programs(holder) if holder else {}
        repairs_before = holder.counters().get("ssthresh_repairs", 0) if holder else 0
        recv = tb.popen(tb.rcv, py, "-m", "pertlab.linux.flows", "recv", "--port", str(PORT), "--interval", "1")
        if not (recv.stdout and recv.stdout.readline().startswith("ready")):
            raise RuntimeError(f"receiver failed: {recv.stderr.read() if recv.stderr else ''}")
        snd = tb.popen(
            tb.snd, py, "-m", "pertlab.linux.flows", "send", "--dst", RCV_IP, "--port", str(PORT), "--cc", EBPF.get(cc, cc),
            "--count", str(setup.flows), "--duration", repr(setup.seconds), "--interval", repr(sc.sample_interval / 1e9),
        )  # fmt: skip
        line = snd.stdout.readline() if snd.stdout else ""
        if not line.startswith("{"):
            raise RuntimeError(f"sender ({cc}) failed: {snd.stderr.read() if snd.stderr else ''}")
        # Start of the window: the BPF counters and the testbed's processes now, while the
        # connections are established and idle (the sender waits for t0); the machine's
        # counters, which other jobs move meanwhile, at t0.
        a = {"bpf": prog_stats(progs), "snd": proc_cpu(snd.pid), "dl": proc_cpu(tb.delayline.pid), "rcv": proc_cpu(recv.pid)}  # type: ignore[union-attr]
        t0 = flows.start([(snd, 0.0)])
        time.sleep(max(0.0, t0 - time.monotonic()))
        started = time.monotonic()
        a |= {"machine": machine_cpu(), "ksoftirqd": ksoftirqd_cpu()}
        time.sleep(max(0.0, t0 + setup.seconds / 2 - time.monotonic()))
        mid = {"t": time.monotonic(), "bpf": prog_stats(progs)}
        ss_cc = tb.ss()
        # The sender stops at t0 + seconds, prints its TCP_INFO and exits; its standard input
        # closed then (as the testbed does), its thread reading it ends too.
        time.sleep(max(0.0, t0 + setup.seconds - time.monotonic()))
        with contextlib.suppress(OSError):
            snd.stdin.close()  # type: ignore[union-attr]
        # A sender that does not stop is killed (its output then fails the run below); not yet
        # reaped, its PID cannot have been reused.
        watchdog = threading.Timer(30.0, _kill, (snd.pid,))
        watchdog.start()
        try:
            out = snd.stdout.read() if snd.stdout else ""  # type: ignore[union-attr]
        finally:
            watchdog.cancel()
        guard.interruptible = False
        _, status, ru = os.wait4(snd.pid, 0)
        snd.returncode = os.waitstatus_to_exitcode(status)
        repairs = holder.counters().get("ssthresh_repairs", 0) - repairs_before if holder else None
        b = {"t": time.monotonic(), "bpf": prog_stats(progs), "machine": machine_cpu(), "dl": proc_cpu(tb.delayline.pid), "rcv": proc_cpu(recv.pid), "ksoftirqd": ksoftirqd_cpu()}  # type: ignore[union-attr]
        if snd.returncode != 0 or not out.strip().startswith("{"):
            raise RuntimeError(f"sender ({cc}) exited with {snd.returncode}: {snd.stderr.read() if snd.stderr else ''}")
        result = json.loads(out.strip().splitlines()[-1])
    finally:
        guard.interruptible = False
        tb.close()
        runs.finish(run_dir)
    # The sender's TCP_INFO of every connection at the start and in the middle (a set each,
    # taken at one instant ``t``), and at its exit.
    t_start, t_mid = sorted({s["t"] for s in result["samples"]})[:2]
    start_acked, mid_acked = ({s["port"]: s.get("bytes_acked", 0) for s in result["samples"] if s["t"] == t} for t in (t_start, t_mid))
    final_acked = {f["port"]: f.get("bytes_acked", 0) for f in result["final"]}
    acked = sum(final_acked[p] - start_acked.get(p, 0) for p in final_acked)
    acked_first = sum(mid_acked.get(p, 0) - start_acked.get(p, 0) for p in final_acked)
    window = b["t"] - started
    mb = acked / MB
    snd_user, snd_sys = ru.ru_utime - a["snd"][0], ru.ru_stime - a["snd"][1]
    dl_user, dl_sys = (b["dl"][i] - a["dl"][i] for i in (0, 1))
    rcv_user, rcv_sys = (b["rcv"][i] - a["rcv"][i] for i in (0, 1))
    mach = {k: b["machine"][k] - a["machine"][k] for k in a["machine"]}
    busy = sum(mach[k] for k in ("user", "nice", "system", "irq", "softirq"))
    testbed_s = snd_user + snd_sys + dl_user + dl_sys + rcv_user + rcv_sys
    per_mb = lambda s: s * 1e3 / mb if mb > 0 else float("nan")  # noqa: E731  (CPU ms per MB)
    row = {
        "cc": cc, "window_s": window, "mb": mb, "goodput_mbps": acked * 8 / window / 1e6,
        "goodput_first_half_mbps": acked_first * 8 / (t_mid - t_start) / 1e6, "first_half_s": t_mid - t_start,
        "goodput_second_half_mbps": (acked - acked_first) * 8 / (b["t"] - t_mid) / 1e6, "second_half_s": b["t"] - t_mid,
        "payload_capacity_mbps": setup.rate_mbit * SEGMENT_BYTES / FRAME_BYTES,
        "retransmits": sum(f.get("total_retrans", 0) for f in result["final"]),
        "flows_seen": sum(1 for v in ss_cc.values() if v == EBPF.get(cc, cc)), "flows": setup.flows,
        "sender_user_s": snd_user, "sender_sys_s": snd_sys,
        "sender_cpu_ms_per_mb": per_mb(snd_user + snd_sys), "sender_sys_ms_per_mb": per_mb(snd_sys),
        "sender_cpu_pct": 100 * (snd_user + snd_sys) / window,
        "delayline_sys_ms_per_mb": per_mb(dl_sys), "delayline_cpu_ms_per_mb": per_mb(dl_user + dl_sys),
        "receiver_cpu_ms_per_mb": per_mb(rcv_user + rcv_sys),
        "testbed_cpu_ms_per_mb": per_mb(testbed_s), "testbed_cpu_pct": 100 * testbed_s / window,
        "ksoftirqd_ms_per_mb": per_mb(b["ksoftirqd"] - a["ksoftirqd"]),
        "machine_busy_ms_per_mb": per_mb(busy), "machine_busy_pct": 100 * busy / (window * os.cpu_count()),  # type: ignore[operator]
        "machine_steal_s": mach["steal"], "machine_softirq_s": mach["softirq"],
        "load_before": load_before, "load_after": loadavg(), "run_id": run_dir.id,
    }  # fmt: skip
    if progs:
        progs_rows = {}
        for name in sorted(a["bpf"]):
            calls = b["bpf"][name]["run_cnt"] - a["bpf"][name]["run_cnt"]
            ns = b["bpf"][name]["run_time_ns"] - a["bpf"][name]["run_time_ns"]
            progs_rows[name] = {
                "calls": calls, "ns": ns, "ns_per_call": ns / calls if calls else None, "calls_per_s": calls / window,
                "calls_first_half": mid["bpf"][name]["run_cnt"] - a["bpf"][name]["run_cnt"],
            }  # fmt: skip
        calls = sum(p["calls"] for p in progs_rows.values())
        ns = sum(p["ns"] for p in progs_rows.values())
        row |= {
            "bpf_programs": progs_rows, "bpf_calls": calls, "bpf_ns_per_call": ns / calls if calls else None,
            "bpf_calls_per_s": calls / window, "bpf_cpu_pct": 100 * ns / (window * 1e9),
            "bpf_ms_per_mb": per_mb(ns / 1e9), "bpf_calls_per_mb": calls / mb if mb > 0 else float("nan"),
            "bpf_first_half_s": mid["t"] - started,
            # Stale slow-start thresholds the program put back (docs/linux.md).
            "ssthresh_repairs": repairs,
        }  # fmt: skip
    return row


# ---------------------------------------------------------------- the simulator beside it


def simulate(setup: Setup) -> list[dict]:
    """The simulator on each congestion control's scenario (:func:`pertlab.linux.sim_side.sim_scenario`
    of :meth:`Setup.scenario`), seeds 1 to ``setup.repeat``: its goodput over the run and over
    each half (the bytes its flows had delivered at the middle sample), and the payload its link
    can carry (its packets' headers are not the kernel's frames', so each side's goodput is set
    against its own capacity). A congestion control the simulator lacks (bbr) has no rows."""
    import polars as pl

    from .. import runner
    from ..scenario.traffic import TCP_IP_HEADER_BYTES
    from .sim_side import SIM_CC, sim_scenario

    out = []
    for cc in setup.ccs:
        if EBPF.get(cc, cc) not in SIM_CC:
            continue
        sim = sim_scenario(setup.scenario(cc))
        half_s = sim.monitor.sample_interval / 1e9
        packet = sim.flows[0].tcp.packet_size
        for seed in range(1, setup.repeat + 1):
            res = runner.run(sim.model_copy(update={"seed": seed}))
            gp = res.summary["controllers"][0]["goodput_mbps"]
            first = res.flow_series.filter((pl.col("t_s") - half_s).abs() < 1e-9)["delivered_bytes"].sum() * 8 / half_s / 1e6
            out.append({
                "cc": cc, "seed": seed, "goodput_mbps": gp, "goodput_first_half_mbps": first, "goodput_second_half_mbps": 2 * gp - first,
                "payload_capacity_mbps": setup.rate_mbit * (packet - TCP_IP_HEADER_BYTES) / packet,
            })  # fmt: skip
    return out


def refresh_simulator(path: Path) -> None:
    """Recompute the simulator's rows of a ``linux cpu-cost --out`` file in place (after a change
    of the simulator), keeping its kernel runs: ``python -c "from pertlab.linux import cpu_cost;
    cpu_cost.refresh_simulator(...)"``."""
    from ..jsonable import dumps

    data = json.loads(path.read_text())
    setup = Setup(**{**data["setup"], "ccs": tuple(data["setup"]["ccs"])})
    res = CpuCost(setup, runs=data["runs"], host=data["host"], simulator=simulate(setup))
    path.write_text(dumps(res.as_dict(), indent=2) + "\n")


# ---------------------------------------------------------------- the measurement


#: Figures summarised per congestion control (mean, sample standard deviation, min, max).
SUMMARY_FIELDS = (
    "goodput_mbps", "goodput_first_half_mbps", "goodput_second_half_mbps", "sender_cpu_ms_per_mb", "sender_sys_ms_per_mb", "sender_cpu_pct", "delayline_sys_ms_per_mb", "testbed_cpu_ms_per_mb",
    "testbed_cpu_pct",
    "ksoftirqd_ms_per_mb",
    "machine_busy_ms_per_mb", "machine_busy_pct", "bpf_ns_per_call", "bpf_calls_per_s", "bpf_cpu_pct", "bpf_ms_per_mb",
    "bpf_calls_per_mb",
)  # fmt: skip


#: The simulator's figures summarised per congestion control, as :data:`SUMMARY_FIELDS`.
SIM_SUMMARY_FIELDS = ("goodput_mbps", "goodput_first_half_mbps", "goodput_second_half_mbps")


def _spread(rows: list[dict], keys: tuple[str, ...]) -> dict:
    """Mean, sample standard deviation, min and max of each of ``keys`` over ``rows``."""
    s: dict = {"runs": len(rows)}
    for k in keys:
        xs = [r[k] for r in rows if r.get(k) is not None]
        if xs:
            s[k] = {"mean": statistics.fmean(xs), "sd": statistics.stdev(xs) if len(xs) > 1 else 0.0, "min": min(xs), "max": max(xs)}
    return s


@dataclass
class CpuCost:
    setup: Setup
    runs: list[dict] = field(default_factory=list)
    host: dict = field(default_factory=dict)
    #: :func:`simulate`'s rows.
    simulator: list[dict] = field(default_factory=list)

    def sim_summary(self) -> dict[str, dict]:
        """The simulator's goodputs per congestion control it has (mean and spread over the seeds)."""
        ccs = [cc for cc in self.setup.ccs if any(r["cc"] == cc for r in self.simulator)]
        return {cc: _spread([r for r in self.simulator if r["cc"] == cc], SIM_SUMMARY_FIELDS) for cc in ccs}

    def summary(self) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for cc in self.setup.ccs:
            rows = [r for r in self.runs if r["cc"] == cc]
            s = _spread(rows, SUMMARY_FIELDS)
            progs = sorted({p for r in rows for p in r.get("bpf_programs", {})})
            if progs:
                s["bpf_programs"] = {}
                for p in progs:
                    xs = [r["bpf_programs"][p] for r in rows if p in r.get("bpf_programs", {})]
                    ns = [x["ns_per_call"] for x in xs if x["ns_per_call"] is not None]
                    s["bpf_programs"][p] = {"calls_per_s": statistics.fmean(x["calls_per_s"] for x in xs), "ns_per_call": statistics.fmean(ns) if ns else None}
            out[cc] = s
        return out

    def as_dict(self) -> dict:
        return {
            "setup": asdict(self.setup), "host": self.host, "runs": self.runs, "summary": self.summary(),
            "simulator": self.simulator, "simulator_summary": self.sim_summary(), "thesis_table_vi_pct": THESIS_TABLE_VI,
        }  # fmt: skip

    def report(self) -> str:
        st, h = self.setup, self.host
        lines = [
            f"CPU cost: {st.flows} flows, {st.seconds:g} s, {st.repeat} run(s) per cc; {st.rate_mbit:g} Mbit/s, {st.rtt_ms:g} ms, pfifo {st.buffer_pkts()} packets",
            f"host: {h.get('cpus')} CPUs, kernel {h.get('kernel')}; load average {h.get('load_start')} at start, {h.get('load_end')} at end",
            "mean ± sd over runs; CPU ms per MB (10^6 bytes acknowledged)",
            f"{'cc':>13} {'Mbit/s':>9} {'sender':>10} {'(sys)':>10} {'sender %':>9} {'testbed':>10} {'machine':>11} {'BPF ns/call':>11} {'calls/s':>10} {'BPF %':>12} {'BPF':>10}",
            f"{'':>13} {'':>9} {'ms/MB':>10} {'ms/MB':>10} {'1 CPU':>9} {'ms/MB':>10} {'ms/MB':>11} {'':>11} {'':>10} {'1 CPU':>12} {'ms/MB':>10}",
        ]  # fmt: skip

        def f(s: dict, k: str, spec: str) -> str:
            v = s.get(k)
            return "-" if v is None else f"{v['mean']:{spec}}±{v['sd']:{spec}}"

        for cc, s in self.summary().items():
            lines.append(
                f"{cc:>13} {f(s, 'goodput_mbps', '.1f'):>9} {f(s, 'sender_cpu_ms_per_mb', '.2f'):>10} {f(s, 'sender_sys_ms_per_mb', '.2f'):>10} "
                f"{f(s, 'sender_cpu_pct', '.1f'):>9} {f(s, 'testbed_cpu_ms_per_mb', '.1f'):>10} {f(s, 'machine_busy_ms_per_mb', '.0f'):>11} "
                f"{f(s, 'bpf_ns_per_call', '.0f'):>11} {f(s, 'bpf_calls_per_s', '.0f'):>10} {f(s, 'bpf_cpu_pct', '.3f'):>12} {f(s, 'bpf_ms_per_mb', '.3f'):>10}"
            )
            for p, v in s.get("bpf_programs", {}).items():
                ns = "-" if v["ns_per_call"] is None else f"{v['ns_per_call']:.0f}"
                lines.append(f"{'':>13}   {p}: {ns} ns per call, {v['calls_per_s']:.0f} calls/s")
        halves = lambda s: f"{f(s, 'goodput_first_half_mbps', '.1f')} then {f(s, 'goodput_second_half_mbps', '.1f')}"  # noqa: E731
        lines.append("goodput, Mbit/s, first half then second half of the run (the first holds the start):")
        sim = self.sim_summary()
        for cc, s in self.summary().items():
            lines.append(f"{cc:>13} kernel {halves(s)}" + (f"; simulator {f(sim[cc], 'goodput_mbps', '.1f')} over the run, {halves(sim[cc])}" if cc in sim else ""))
        lines.append("thesis Table VI (Linux 2.6.18, CPU utilisation %, 50 flows): " + ", ".join(f"{k} {a:g}-{b:g}" for k, (a, b) in THESIS_TABLE_VI.items()))
        if any(x > h.get("cpus", 1) for x in h.get("load_start", []) + h.get("load_end", [])):
            lines.append("the load average exceeded the number of CPUs: other jobs shared the machine, the CPU figures are noisy")
        return "\n".join(lines)


def support_problem(ccs: tuple[str, ...]) -> str | None:
    from .testbed import support_problem as testbed_problem

    problem = testbed_problem(needs_pert=any(cc in EBPF for cc in ccs))
    if problem:
        return problem
    missing = [cc for cc in ccs if cc not in EBPF and cc not in loader.available()]
    if missing:
        with contextlib.suppress(OSError):
            for cc in list(missing):
                subprocess.run(["modprobe", f"tcp_{cc}"], capture_output=True)
        missing = [cc for cc in missing if cc not in loader.available()]
    if missing:
        return f"congestion control not available in this kernel: {', '.join(missing)} ({loader.AVAILABLE})"
    return None


def measure(setup: Setup, progress=None) -> CpuCost:
    """Run every congestion control ``setup.repeat`` times; raises :class:`CpuCostError` for bad
    input, RuntimeError when the host cannot, KeyboardInterrupt when stopped (the testbed of
    the run in progress is removed, the controller unregistered, statistics off)."""
    setup.validate()
    problem = support_problem(setup.ccs)
    if problem:
        raise RuntimeError(problem)
    for cc in setup.ccs:
        if cc in EBPF and loader.is_registered(EBPF[cc]):
            raise RuntimeError(f"{EBPF[cc]} is already registered (pertlab linux unload {cc}, or wait for the run holding it)")
    # The simulator first: a few seconds, and what it refuses is known before the testbed runs.
    simulated = simulate(setup)
    res = CpuCost(setup, host={"cpus": os.cpu_count(), "kernel": platform.release(), "load_start": loadavg(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, simulator=simulated)
    with interrupt.deferred(interruptible=True) as guard, contextlib.ExitStack() as stack:
        runs.cleanup()
        holders = {cc: stack.enter_context(loader.hold(EBPF[cc])) for cc in setup.ccs if cc in EBPF}
        stack.enter_context(bpf_stats())
        try:
            for i in range(setup.repeat):
                for cc in setup.ccs:
                    guard.interruptible = True
                    row = run_once(setup, cc, holders.get(cc), guard)
                    row["repeat"] = i
                    res.runs.append(row)
                    if progress:
                        progress(row)
        finally:
            # Removing the testbed and unregistering the controller are not cut short by signals.
            guard.interruptible = False
    res.host["load_end"] = loadavg()
    return res
