"""A three-namespace testbed with a real bottleneck (docs/linux.md).

::

    sender ns            router ns                                  receiver ns
    s0 10.201.1.1 ---- r0 10.201.1.2   [dl0: TUN delay line]   r1 10.201.2.2 ---- d0 10.201.2.1
                                                             htb rate + bfifo/pfifo (bottleneck)

Every packet the router receives on r0 or r1 is routed (policy rule, table
100) into the TUN device dl0; ``native/delayline.c`` reads it and writes it
back to dl0 half the configured round-trip delay later (so both directions
are delayed and ping sees the full delay), optionally dropping it at random
(forward and reverse alike); the router then forwards it by its main table.
The bottleneck is the router's egress towards the receiver: htb at the
configured rate with a bfifo (bytes) or pfifo (packets) leaf of the
configured size. Segmentation and receive offloads are off on every veth.

Flows: ``python -m pertlab.linux.flows`` senders (one process per congestion
control, ``count`` connections each, TCP_CONGESTION set per socket) and one
receiver. Sampled every interval: TCP_INFO of each sender socket (cwnd,
ssthresh, srtt, bytes acked), the receiver's byte counts, the bottleneck's
``tc -s`` backlog and drops; ``ss -tin`` once in the middle of the run
records which congestion control each flow really uses; PERT's early
responses per flow come from the BPF program's ``flows`` map.

Everything is removed at the end, also on exceptions, SIGINT and SIGTERM:
processes are stopped, namespaces deleted (which deletes the veths); the TUN
device dies with the delay line. Names carry the owner's pid, and namespaces
of owners that no longer run are removed at the next start.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import polars as pl

from .._core import jain_index
from ..results import FLOW_SCHEMA, FLOW_SERIES_SCHEMA, QUEUE_SCHEMA, QUEUE_SERIES_SCHEMA, _rows
from ..units import parse_rate, parse_size, parse_time
from . import build, loader

PREFIX = "pltb"
SND_IP, RTR_SND_IP, RTR_RCV_IP, RCV_IP = "10.201.1.1", "10.201.1.2", "10.201.2.2", "10.201.2.1"
PORT = 5201
KERNEL_CCS = ("reno", "cubic", "bbr")
HEADER_BYTES = 66  # Ethernet 14 + IPv4 20 + TCP 20 + timestamps 12, per 1448-byte segment


@dataclass
class FlowGroup:
    cc: str
    count: int = 1


@dataclass
class TestbedScenario:
    """A testbed run; TOML form in docs/linux.md."""

    name: str = "testbed"
    rate_bps: int = 10_000_000
    delay_ns: int = 20_000_000  # round-trip propagation delay
    buffer_bytes: int | None = None  # bfifo; default one BDP (at least 10 packets)
    buffer_pkts: int | None = None  # pfifo instead of bfifo
    loss: float = 0.0  # random loss probability per packet, each direction
    duration_ns: int = 10_000_000_000
    warmup_ns: int = 2_000_000_000
    sample_interval_ns: int = 100_000_000
    flows: list[FlowGroup] = field(default_factory=lambda: [FlowGroup("pert", 1)])
    pert: loader.PertParams = field(default_factory=loader.PertParams)
    seed: int = 1
    #: Receiver delays ACKs (Linux default). Off by default, as in the
    #: simulator: the receiver's route has `quickack 1`, one ACK per segment.
    delayed_ack: bool = False

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TestbedScenario":
        d = dict(d)
        tb = dict(d.pop("bottleneck", {}))
        sc = cls(name=d.pop("name", "testbed"))
        if "rate" in tb:
            sc.rate_bps = parse_rate(tb.pop("rate"), "bottleneck.rate")
        if "delay" in tb:
            sc.delay_ns = parse_time(tb.pop("delay"), "bottleneck.delay")
        if "buffer" in tb:
            sc.buffer_bytes = parse_size(tb.pop("buffer"), "bottleneck.buffer")
        if "buffer_pkts" in tb:
            sc.buffer_pkts = int(tb.pop("buffer_pkts"))
        sc.loss = float(tb.pop("loss", 0.0))
        if tb:
            raise ValueError(f"unknown bottleneck fields: {', '.join(tb)}")
        for key, attr in (("duration", "duration_ns"), ("warmup", "warmup_ns"), ("sample_interval", "sample_interval_ns")):
            if key in d:
                setattr(sc, attr, parse_time(d.pop(key), key))
        sc.seed = int(d.pop("seed", 1))
        sc.delayed_ack = bool(d.pop("delayed_ack", False))
        if "flows" in d:
            sc.flows = [FlowGroup(str(f["cc"]), int(f.get("count", 1))) for f in d.pop("flows")]
        if "pert" in d:
            sc.pert = loader.PertParams(**d.pop("pert"))
        if d:
            raise ValueError(f"unknown scenario fields: {', '.join(d)}")
        sc.validate()
        return sc

    def validate(self) -> None:
        if self.rate_bps <= 0 or self.delay_ns < 0 or self.duration_ns <= 0:
            raise ValueError("rate and duration must be positive, delay not negative")
        if not 0 <= self.warmup_ns < self.duration_ns:
            raise ValueError("warmup must lie in [0, duration)")
        if not 0 <= self.loss < 1:
            raise ValueError(f"loss must lie in [0, 1), got {self.loss}")
        for f in self.flows:
            if f.cc not in (*KERNEL_CCS, "pert"):
                raise ValueError(f"unknown congestion control {f.cc!r}; allowed: {', '.join((*KERNEL_CCS, 'pert'))}")
            if f.count < 1:
                raise ValueError("flow count must be at least 1")
        self.pert.validate()

    @property
    def bdp_bytes(self) -> int:
        return self.rate_bps * self.delay_ns // 8 // 1_000_000_000

    def queue(self) -> tuple[str, int]:
        """('pfifo', packets) or ('bfifo', bytes)."""
        if self.buffer_pkts is not None:
            return "pfifo", self.buffer_pkts
        return "bfifo", self.buffer_bytes if self.buffer_bytes is not None else max(self.bdp_bytes, 10 * 1514)


def load_scenario(path: Path | str) -> TestbedScenario:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    return TestbedScenario.from_dict(data.get("testbed", data))


# ---------------------------------------------------------------- system checks


def support_problem(needs_pert: bool = True) -> str | None:
    """None when the testbed can run here; else what is missing."""
    if os.geteuid() != 0:
        return "not running as root (network namespaces, tc and TUN need CAP_NET_ADMIN)"
    for tool, pkg in (("ip", "iproute2"), ("tc", "iproute2"), ("ss", "iproute2"), ("ethtool", "ethtool"), ("cc", "gcc")):
        if not any(os.access(os.path.join(d, tool), os.X_OK) for d in os.environ.get("PATH", "/usr/sbin:/usr/bin").split(":") + ["/usr/sbin", "/sbin"]):
            return f"`{tool}` not found (Debian package {pkg})"
    if not os.path.exists("/dev/net/tun"):
        return "/dev/net/tun missing (kernel without TUN)"
    if needs_pert:
        return loader.support_problem()
    return None


# ---------------------------------------------------------------- plumbing


def _sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run(list(cmd), capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip() or r.returncode}")
    return r


def _pid_alive(pid: int) -> bool:
    return os.path.exists(f"/proc/{pid}")


def list_namespaces() -> list[str]:
    out = _sh("ip", "netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def cleanup_stale() -> list[str]:
    """Delete testbed namespaces whose owner process is gone."""
    gone = []
    for ns in list_namespaces():
        m = re.fullmatch(rf"{PREFIX}(\d+)-(snd|rtr|rcv)", ns)
        if m and not _pid_alive(int(m.group(1))):
            _kill_ns_processes(ns)
            _sh("ip", "netns", "del", ns, check=False)
            gone.append(ns)
    return gone


def _kill_ns_processes(ns: str) -> None:
    pids = _sh("ip", "netns", "pids", ns, check=False).stdout.split()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)


class Testbed:
    """The namespaces, links, bottleneck and delay line of one run (a context manager)."""

    def __init__(self, sc: TestbedScenario):
        self.sc = sc
        tag = f"{PREFIX}{os.getpid()}"
        self.snd, self.rtr, self.rcv = f"{tag}-snd", f"{tag}-rtr", f"{tag}-rcv"
        self.namespaces: list[str] = []
        self.procs: list[subprocess.Popen] = []
        self.delayline: subprocess.Popen | None = None
        self.delayline_stats: dict = {}

    # -- construction
    def ns(self, ns: str, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        return _sh("ip", "netns", "exec", ns, *cmd, check=check)

    def popen(self, ns: str, *cmd: str) -> subprocess.Popen:
        p = subprocess.Popen(["ip", "netns", "exec", ns, *cmd], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(p)
        return p

    def __enter__(self) -> "Testbed":
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _build(self) -> None:
        cleanup_stale()
        delayline = build.build_delayline()
        for ns in (self.snd, self.rtr, self.rcv):
            _sh("ip", "netns", "add", ns)
            self.namespaces.append(ns)
            self.ns(ns, "ip", "link", "set", "lo", "up")
        _sh("ip", "link", "add", "s0", "netns", self.snd, "type", "veth", "peer", "name", "r0", "netns", self.rtr)
        _sh("ip", "link", "add", "d0", "netns", self.rcv, "type", "veth", "peer", "name", "r1", "netns", self.rtr)
        for ns, dev, addr in ((self.snd, "s0", SND_IP), (self.rtr, "r0", RTR_SND_IP), (self.rtr, "r1", RTR_RCV_IP), (self.rcv, "d0", RCV_IP)):
            self.ns(ns, "ip", "addr", "add", f"{addr}/24", "dev", dev)
            self.ns(ns, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off", check=False)
            self.ns(ns, "ip", "link", "set", dev, "up")
        self.ns(self.snd, "ip", "route", "add", "default", "via", RTR_SND_IP)
        quick = [] if self.sc.delayed_ack else ["quickack", "1"]
        self.ns(self.rcv, "ip", "route", "add", "default", "via", RTR_RCV_IP, *quick)
        for key in ("net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0", "net.ipv4.conf.all.send_redirects=0"):
            self.ns(self.rtr, "sysctl", "-qw", key)
        # Delay line: half the round trip each way.
        loss_ppm = round(self.sc.loss * 1_000_000)
        self.delayline = self.popen(self.rtr, str(delayline), "dl0", str(self.sc.delay_ns // 2000), str(loss_ppm), str(self.sc.seed))
        line = self.delayline.stdout.readline() if self.delayline.stdout else ""
        if not line.startswith("ready"):
            raise RuntimeError(f"delay line failed: {self.delayline.stderr.read() if self.delayline.stderr else ''}")
        self.ns(self.rtr, "sysctl", "-qw", "net.ipv4.conf.dl0.rp_filter=0")
        self.ns(self.rtr, "ip", "link", "set", "dl0", "up")
        self.ns(self.rtr, "ip", "route", "add", "default", "dev", "dl0", "table", "100")
        for dev in ("r0", "r1"):
            self.ns(self.rtr, "ip", "rule", "add", "iif", dev, "lookup", "100")
        # Bottleneck: htb rate limit, FIFO leaf of the scenario's size.
        rate = str(self.sc.rate_bps)
        kind, limit = self.sc.queue()
        self.ns(self.rtr, "tc", "qdisc", "add", "dev", "r1", "root", "handle", "1:", "htb", "default", "1")
        self.ns(self.rtr, "tc", "class", "add", "dev", "r1", "parent", "1:", "classid", "1:1", "htb", "rate", f"{rate}bit", "ceil", f"{rate}bit")
        self.ns(self.rtr, "tc", "qdisc", "add", "dev", "r1", "parent", "1:1", "handle", "10:", kind, "limit", str(limit))

    def close(self) -> None:
        """Stop every process and delete every namespace; safe to call twice."""
        for p in self.procs:
            if p.poll() is None:
                with contextlib.suppress(Exception):
                    p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=3)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if self.delayline is not None and self.delayline.stdout and not self.delayline_stats:
            with contextlib.suppress(Exception):
                for line in self.delayline.stdout.read().splitlines():
                    if line.startswith("{"):
                        self.delayline_stats = json.loads(line)
        self.procs.clear()
        for ns in reversed(self.namespaces):
            _kill_ns_processes(ns)
            _sh("ip", "netns", "del", ns, check=False)
        self.namespaces.clear()

    # -- measurements
    def ping(self, count: int = 10, interval: float = 0.05) -> list[float]:
        """ICMP echo RTTs (ms) from the sender to the receiver."""
        out = self.ns(self.snd, "ping", "-n", "-c", str(count), "-i", str(interval), RCV_IP).stdout
        return [float(m) for m in re.findall(r"time=([\d.]+) ms", out)]

    def qdisc_stats(self) -> dict:
        data = json.loads(self.ns(self.rtr, "tc", "-s", "-j", "qdisc", "show", "dev", "r1").stdout)
        leaf = next(q for q in data if q.get("kind") in ("bfifo", "pfifo"))
        return {k: leaf.get(k, 0) for k in ("bytes", "packets", "drops", "backlog", "qlen", "overlimits")}

    def ss(self) -> dict[int, str]:
        """Local port -> congestion control, from `ss -tin` in the sender namespace."""
        out = self.ns(self.snd, "ss", "-tinH", "dst", RCV_IP).stdout
        result, port = {}, None
        for line in out.splitlines():
            if not line.startswith((" ", "\t")):
                m = re.search(rf"{re.escape(SND_IP)}:(\d+)", line)
                port = int(m.group(1)) if m else None
            elif port is not None:
                tokens = line.split()
                if tokens:
                    result[port] = tokens[0]
        return result


# ---------------------------------------------------------------- a run


@dataclass
class TestbedResults:
    scenario: TestbedScenario
    flows: pl.DataFrame
    queues: pl.DataFrame
    flow_series: pl.DataFrame
    queue_series: pl.DataFrame
    extra: dict

    def summary(self) -> dict:
        return {"scenario": self.scenario.name, "flows": self.flows.to_dicts(), "queues": self.queues.to_dicts(), **self.extra}

    def write(self, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(self.summary(), indent=2, default=str) + "\n")
        for name in ("flows", "queues", "flow_series", "queue_series"):
            getattr(self, name).write_parquet(out / f"{name}.parquet")

    def report(self) -> str:
        lines = [f"testbed {self.scenario.name}: {self.scenario.rate_bps / 1e6:g} Mbit/s, {self.scenario.delay_ns / 1e6:g} ms, {self.scenario.duration_ns / 1e9:g} s"]
        lines.append(f"{'flow':>4} {'cc':>6} {'ss cc':>6} {'goodput Mbit/s':>15} {'rtt mean ms':>12} {'retrans':>8} {'early':>8}")
        for f in self.flows.to_dicts():
            er = "-" if f["early_responses"] is None else f["early_responses"]
            lines.append(f"{f['id']:>4} {f['cc']:>6} {f['ss_cc'] or '-':>6} {f['goodput_mbps']:>15.3f} {f['rtt_mean_ms'] or 0:>12.2f} {f['retransmits']:>8} {er:>8}")
        q = self.queues.to_dicts()[0]
        lines.append(f"bottleneck: {q['discipline']} avg {q['avg_queue_pkts']:.1f} pkts, drops {q['drops']} ({q['drop_rate']:.4f}), utilization {q['utilization']:.3f}")
        lines.append(f"idle ping: median {self.extra['ping_idle_ms']['median']:.3f} ms; delay line late mean {self.extra['delayline'].get('late_mean_us', 0):.1f} us")
        if "pert_counters" in self.extra:
            lines.append(f"pert counters: {self.extra['pert_counters']}")
        return "\n".join(lines)


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """SIGTERM (and SIGHUP) end the run like Ctrl-C, so that cleanup runs."""

    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        for s in old:
            signal.signal(s, handler)
    except ValueError:  # not the main thread
        old = {}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def run(sc: TestbedScenario) -> TestbedResults:
    needs_pert = any(f.cc == "pert" for f in sc.flows)
    problem = support_problem(needs_pert)
    if problem:
        raise RuntimeError(problem)
    with _signals_raise(), contextlib.ExitStack() as stack:
        holder = None
        if needs_pert and not loader.is_registered():
            holder = stack.enter_context(loader.hold(params=sc.pert))
        tb = stack.enter_context(Testbed(sc))
        return _run(sc, tb, holder)
    raise AssertionError("unreachable")


def run_file(path: Path | str) -> TestbedResults:
    return run(load_scenario(path))


def _run(sc: TestbedScenario, tb: Testbed, holder) -> TestbedResults:
    py = sys.executable
    interval = sc.sample_interval_ns / 1e9
    duration = sc.duration_ns / 1e9
    ping_idle = tb.ping(count=10, interval=0.05)
    counters_before = holder.counters() if holder else None
    recv = tb.popen(tb.rcv, py, "-m", "pertlab.linux.flows", "recv", "--port", str(PORT), "--interval", str(interval))
    if not (recv.stdout and recv.stdout.readline().startswith("ready")):
        raise RuntimeError(f"receiver failed: {recv.stderr.read() if recv.stderr else ''}")
    t0 = time.monotonic() + 0.5 + 0.1 * len(sc.flows)
    senders = []
    for g in sc.flows:
        p = tb.popen(tb.snd, py, "-m", "pertlab.linux.flows", "send", "--dst", RCV_IP, "--port", str(PORT), "--cc", g.cc, "--count", str(g.count), "--t0", repr(t0), "--duration", repr(duration), "--interval", str(interval))
        senders.append((g, p))
    ports: dict[int, tuple[int, str]] = {}  # port -> (flow id, cc)
    fid = 0
    for g, p in senders:
        line = p.stdout.readline() if p.stdout else ""
        if not line.startswith("{"):
            raise RuntimeError(f"sender ({g.cc}) failed: {p.stderr.read() if p.stderr else ''}")
        for port in json.loads(line)["ready"]:
            ports[port] = (fid, g.cc)
            fid += 1
    # Sample the bottleneck; look at ss in the middle of the run.
    qseries, ss_cc, ping_load = [], {}, []
    q_warm: dict | None = None  # tc counters at the start of the measurement window
    early_warm: dict[int, int] = {}  # per-flow early responses then
    end = t0 + duration
    nxt = t0
    while (now := time.monotonic()) < end:
        if now >= t0:
            st = tb.qdisc_stats()
            if q_warm is None and now - t0 >= sc.warmup_ns / 1e9:
                q_warm = st
                early_warm = _early_by_port(holder)
            qseries.append({"t_s": now - t0, "queue": 0, "len_pkts": st["qlen"], "len_bytes": st["backlog"], "probability": 0.0})
            if not ss_cc and now - t0 >= duration / 2:
                ss_cc = tb.ss()
                ping_load = tb.ping(count=5, interval=0.02)
        nxt = max(nxt + interval, time.monotonic())
        time.sleep(max(0.0, min(nxt, end) - time.monotonic()))
    q_end = tb.qdisc_stats()
    send_out = []
    for g, p in senders:
        out, err = p.communicate(timeout=30)
        send_out.append(json.loads(out.strip().splitlines()[-1]))
    recv_out, _ = recv.communicate(input="", timeout=30)
    recv_series = json.loads(recv_out.strip().splitlines()[-1])["series"]
    pinned = (loader.PIN_DIR / "bss").exists()
    counters_after = holder.counters() if holder else (loader.counters() if pinned else None)
    early_end = _early_by_port(holder)
    # Over the measurement window, as the simulator counts them.
    early = {port: n - early_warm.get(port, 0) for port, n in early_end.items()}
    tb.close()

    # Goodput over [warmup, duration] from the receiver's byte counts.
    t_w, t_e = t0 + sc.warmup_ns / 1e9, end

    def bytes_at(port: int, t: float) -> float:
        pts = [(s["t"], s["bytes"].get(str(port), 0)) for s in recv_series]
        before = [p for p in pts if p[0] <= t]
        after = [p for p in pts if p[0] >= t]
        if not before:
            return 0.0
        if not after:
            return float(before[-1][1])
        (ta, ba), (tb_, bb) = before[-1], after[0]
        return float(ba if tb_ == ta else ba + (bb - ba) * (t - ta) / (tb_ - ta))

    samples = [s for out in send_out for s in out["samples"]]
    finals = {f["port"]: f for out in send_out for f in out["final"]}
    flow_rows, series_rows = [], []
    for port, (i, cc) in sorted(ports.items(), key=lambda kv: kv[1][0]):
        gbytes = bytes_at(port, t_e) - bytes_at(port, t_w)
        rtts = [s["srtt_us"] / 1000 for s in samples if s["port"] == port and t_w <= s["t"] <= t_e]
        fin = finals.get(port, {})
        flow_rows.append({
            "id": i, "cc": cc, "src": "snd", "dst": "rcv", "start_s": 0.0,
            "goodput_mbps": gbytes * 8 / (t_e - t_w) / 1e6, "goodput_bytes": int(gbytes),
            "retransmits": fin.get("total_retrans", 0),
            "early_responses": early.get(port, 0) if cc == "pert" else None,
            "base_rtt_ms": sc.delay_ns / 1e6, "rtt_samples": len(rtts),
            "rtt_mean_ms": statistics.fmean(rtts) if rtts else None,
            "rtt_min_ms": fin.get("min_rtt_us", 0) / 1000 if fin else None,
            "rtt_max_ms": max(rtts) if rtts else None,
            "ss_cc": ss_cc.get(port), "local_port": port,
        })  # fmt: skip
        for s in samples:
            if s["port"] == port:
                series_rows.append({"t_s": s["t"] - t0, "flow": i, "cwnd": s["cwnd"], "ssthresh": s["ssthresh"], "srtt_ms": s["srtt_us"] / 1000, "delivered_bytes": s["bytes_acked"]})
    kind, limit = sc.queue()
    in_window = [q for q in qseries if sc.warmup_ns / 1e9 <= q["t_s"]]
    sent_bits = sum(r["goodput_bytes"] for r in flow_rows) * 8 * (1448 + HEADER_BYTES) / 1448
    # Counters over the measurement window, as the simulator reports them.
    q0 = q_warm or {"packets": 0, "drops": 0}
    departures, drops = q_end["packets"] - q0["packets"], q_end["drops"] - q0["drops"]
    arrivals = departures + drops
    queue_row = {
        "link": "bottleneck", "from": "rtr", "to": "rcv", "discipline": kind, "rate_bps": sc.rate_bps,
        "limit_pkts": limit if kind == "pfifo" else None, "limit_bytes": limit if kind == "bfifo" else None,
        "avg_queue_pkts": statistics.fmean(q["len_pkts"] for q in in_window) if in_window else 0.0,
        "avg_queue_bytes": statistics.fmean(q["len_bytes"] for q in in_window) if in_window else 0.0,
        "arrivals": arrivals, "departures": departures, "drops": drops, "marks": 0,
        "drop_rate": drops / arrivals if arrivals else 0.0, "mark_rate": 0.0,
        "utilization": sent_bits / (sc.rate_bps * (t_e - t_w)), "link_losses": tb.delayline_stats.get("lost", 0),
    }  # fmt: skip
    extra: dict = {
        "ping_idle_ms": _stats(ping_idle), "ping_load_ms": _stats(ping_load), "delayline": tb.delayline_stats,
        "namespaces": [tb.snd, tb.rtr, tb.rcv], "drops_whole_run": q_end["drops"],
    }  # fmt: skip
    if counters_after is not None:
        extra["pert_counters"] = {k: v - (counters_before or {}).get(k, 0) for k, v in counters_after.items()}
    flow_schema = {**FLOW_SCHEMA, "ss_cc": pl.String, "local_port": pl.UInt32}
    return TestbedResults(sc, _rows(flow_rows, flow_schema), _rows([queue_row], QUEUE_SCHEMA), _rows(series_rows, FLOW_SERIES_SCHEMA), _rows(qseries, QUEUE_SERIES_SCHEMA), extra)


def _early_by_port(holder) -> dict[int, int]:
    """Early responses so far per sender port, from the BPF per-connection map."""
    if holder is not None:
        rows = holder.flow_counters()
    elif (loader.PIN_DIR / "flows").exists():
        rows = loader.flow_counters()
    else:
        return {}
    return {f["sport"]: f["early_responses"] for f in rows if f["daddr"] == RCV_IP and f["dport"] == PORT}


def _stats(xs: list[float]) -> dict:
    if not xs:
        return {"n": 0}
    return {"n": len(xs), "min": min(xs), "median": statistics.median(xs), "mean": statistics.fmean(xs), "max": max(xs)}


# Testbed congestion control -> simulator controller.
#: Kernel congestion controls with a simulator counterpart: Reno (with SACK, as Linux) and
#: CUBIC (RFC 9438; the simulator's has no HyStart, docs/model.md). Kernel bbr has none.
SIM_CC = {"pert": "pert", "reno": "sack", "cubic": "cubic"}


def sim_scenario(sc: TestbedScenario):
    """The same experiment for the simulator: a dumbbell with the bottleneck's
    rate, round-trip delay and buffer (bfifo bytes -> 1514-byte frames),
    all flows starting at 0, the testbed's PERT parameters. Kernel bbr has no
    simulator counterpart (:data:`SIM_CC`); random loss is not carried over."""
    from ..builders import dumbbell

    missing = [f.cc for f in sc.flows if f.cc not in SIM_CC]
    if missing:
        raise ValueError(f"the simulator has no {', '.join(sorted(set(missing)))}; compare supports {', '.join(SIM_CC)}")
    kind, limit = sc.queue()
    pkts = limit if kind == "pfifo" else max(2, round(limit / 1514))
    p = sc.pert
    pert_cfg = {
        "t_min_ns": round(p.t_min_ms * 1e6), "t_max_ns": round(p.t_max_ms * 1e6), "p_max": p.p_max,
        "decrease": p.decrease, "srtt_weight": p.srtt_weight, "thresholds": "literal" if p.literal else "queueing_delay",
        "respond_in_slow_start": p.respond_in_slow_start,
    }  # fmt: skip
    if p.t_end_ms is not None:
        pert_cfg["t_curve_end_ns"] = round(p.t_end_ms * 1e6)
    return dumbbell(
        bw=sc.rate_bps, rtt=f"{sc.delay_ns}ns", cc=",".join(f"{SIM_CC[f.cc]}:{f.count}" for f in sc.flows), flows=None,
        duration=f"{sc.duration_ns}ns", warmup=f"{sc.warmup_ns}ns", start_window=0, buffer_pkts=pkts, seed=sc.seed,
        sample_interval=f"{sc.sample_interval_ns}ns", cc_params={"pert": pert_cfg},
    )  # fmt: skip


def compare(sc: TestbedScenario, out: Path) -> str:
    """Run `sc` in the simulator and in the testbed; write both result sets
    and report.md under `out`; return the report."""
    from ..builders import CC_NAMES
    from ..run import run as sim_run

    sim_sc = sim_scenario(sc)  # fails early on controllers the simulator lacks
    sim = sim_run(sim_sc)
    real = run(sc)
    out.mkdir(parents=True, exist_ok=True)
    sim.write(out / "sim")
    real.write(out / "testbed")
    sq = sim.queues.sort("utilization", descending=True).to_dicts()[0]
    rq = real.queues.to_dicts()[0]
    rows = []

    def row(name: str, a, b, fmt: str = "{:.3f}") -> None:
        f = lambda v: "-" if v is None else fmt.format(v)  # noqa: E731
        rows.append(f"| {name} | {f(a)} | {f(b)} |")

    for cc in dict.fromkeys(f.cc for f in sc.flows):
        rf = real.flows.filter(pl.col("cc") == cc)
        sf = sim.flows.filter(pl.col("cc") == CC_NAMES[SIM_CC[cc]][0])
        row(f"{cc}: flows", len(rf), len(sf), "{}")
        row(f"{cc}: goodput per flow, Mbit/s (mean)", rf["goodput_mbps"].mean(), sf["goodput_mbps"].mean())
        row(f"{cc}: goodput total, Mbit/s", rf["goodput_mbps"].sum(), sf["goodput_mbps"].sum())
        row(f"{cc}: RTT mean, ms", rf["rtt_mean_ms"].mean(), sf["rtt_mean_ms"].mean(), "{:.2f}")
        row(f"{cc}: retransmissions", rf["retransmits"].sum(), sf["retransmits"].sum(), "{}")
        if cc == "pert":
            row("pert: early responses", rf["early_responses"].sum(), sf["early_responses"].sum(), "{}")
    row("Jain index (all flows)", jain_index(real.flows["goodput_mbps"].to_list()), sim.jain)
    row("bottleneck utilization", rq["utilization"], sq["utilization"])
    row("bottleneck average queue, packets", rq["avg_queue_pkts"], sq["avg_queue_pkts"], "{:.1f}")
    row("bottleneck drops", rq["drops"], sq["drops"], "{}")
    row("bottleneck drop rate", rq["drop_rate"], sq["drop_rate"], "{:.5f}")
    report = "\n".join([
        f"# {sc.name}: testbed vs simulator",
        "",
        f"{sc.rate_bps / 1e6:g} Mbit/s bottleneck, {sc.delay_ns / 1e6:g} ms round-trip delay, {sc.queue()[0]} {sc.queue()[1]}, "
        f"{sc.duration_ns / 1e9:g} s, metrics over [{sc.warmup_ns / 1e9:g} s, end]."
        + (" Random loss is not modelled in the simulator run." if sc.loss else ""),
        "",
        "| metric | testbed (Linux) | simulator |",
        "|---|---|---|",
        *rows,
        "",
        f"Testbed idle ping: {real.extra['ping_idle_ms']}; under load: {real.extra['ping_load_ms']}.",
        "Result tables: testbed/ and sim/ (same schemas). Figure: cwnd.png (congestion windows and bottleneck queue, side by side).",
        "",
    ])  # fmt: skip
    (out / "report.md").write_text(report)
    plot_side_by_side(real, sim, out / "cwnd.png", f"{sc.name}: {sc.rate_bps / 1e6:g} Mbit/s, {sc.delay_ns / 1e6:g} ms")
    return report


def plot_side_by_side(real: TestbedResults, sim, path: Path, title: str) -> None:
    """Congestion windows (top) and bottleneck queue (bottom), testbed left, simulator right."""
    from ..plots import saved_figure

    sim_queue = sim.queue_series.filter(pl.col("queue") == sim.queue_series["queue"][0]) if sim.queue_series.height else sim.queue_series
    with saved_figure(path, 2, 2, figsize=(12, 6.5), title=title, sharex=True, sharey="row") as (_, axes):
        for col, (label, fs, qs) in enumerate((("testbed (Linux)", real.flow_series, real.queue_series), ("simulator", sim.flow_series, sim_queue))):
            for flow in fs["flow"].unique().sort().to_list():
                f = fs.filter(pl.col("flow") == flow)
                axes[0, col].plot(f["t_s"], f["cwnd"], lw=0.7)
            axes[0, col].set_title(label)
            if qs.height:
                axes[1, col].plot(qs["t_s"], qs["len_pkts"], lw=0.7, color="k")
            axes[1, col].set_xlabel("time (s)")
        axes[0, 0].set_ylabel("cwnd (segments)")
        axes[1, 0].set_ylabel("bottleneck queue (packets)")


def compare_file(path: Path | str, out: Path) -> str:
    return compare(load_scenario(path), out)
