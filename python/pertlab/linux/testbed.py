"""A three-namespace testbed with a real bottleneck (docs/linux.md).

::

    sender ns            router ns                                  receiver ns
    s0 10.201.1.1 ---- r0 10.201.1.2   [dl0: TUN delay line]   r1 10.201.2.2 ---- d0 10.201.2.1
                                                             htb rate + bfifo/pfifo (bottleneck)

Every packet the router receives on r0 or r1 is routed (policy rule, table
100) into the TUN device dl0; ``native/delayline.c`` reads it and writes it
back to dl0 half the configured round-trip delay later (so both directions
are delayed and ping sees the full delay), plus the scenario's ``[path]``
jitter (packets between two addresses kept in order, or not), optionally
dropping it at random, Bernoulli or in bursts (forward and reverse alike;
a named path profile fills these, :mod:`.profiles`); the router then
forwards it by its main table.
The bottleneck is the router's egress towards the receiver: htb at the
configured rate with a bfifo (bytes) or pfifo (packets) leaf of the
configured size. Segmentation and receive offloads are off on every veth.

Flows: ``python -m pertlab.linux.flows`` senders (one process per congestion
control, ``count`` connections each, TCP_CONGESTION set per socket) and one
receiver; the flows start together once every connection is open (t0), so the
measurement window holds them whatever their count and round trip. Sampled
every interval: TCP_INFO of each sender socket (cwnd,
ssthresh, srtt, bytes acked), the receiver's byte counts, the bottleneck's
``tc -s`` backlog and drops; ``ss -tin`` once in the middle of the run
records which congestion control each flow really uses; PERT's early
responses per flow come from the BPF program's ``flows`` map.

What a run owns is recorded in its run directory (:mod:`.runs`), whose lock
the driver holds; runs left behind by a driver that died are removed before
every run and by ``pertlab testbed cleanup``. Ctrl-C, SIGTERM and SIGHUP stop
the flows and keep what was measured (:mod:`pertlab.interrupt`); the removal
(processes stopped, namespaces deleted with their veths and qdiscs, the TUN
device gone with the delay line, the directory and its lock last) is not
interrupted by further signals. Helper processes run in their own sessions
and end by themselves when the driver dies (their standard input closes).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from .. import acks as acks_of_capture
from .. import interrupt
from .._core import video_playout
from ..jsonable import dumps
from ..metrics import rate
from ..results import SUCCESS_LATE_FRACTION_TEXT
from ..tables import FLOW_SCHEMA, FLOW_SERIES_SCHEMA, QUEUE_SCHEMA, QUEUE_SERIES_SCHEMA, rows_frame
from . import build, flows, loader, runs
from .hostcpu import steal_s
from .scenario import EBPF_CCS, FRAME_BYTES, LINUX_INIT_CWND, FlowGroup, TestbedScenario

SND_IP, RTR_SND_IP, RTR_RCV_IP, RCV_IP = "10.201.1.1", "10.201.1.2", "10.201.2.2", "10.201.2.1"
PORT = 5201
#: Linux's largest slow-start threshold (TCP_INFINITE_SSTHRESH, include/net/tcp.h).
TCP_INFINITE_SSTHRESH = 0x7FFFFFFF
#: Seconds a ping waits for replies beyond its requests' span and twice the path's longest
#: round trip (:meth:`Testbed._ping_cmd`) before it ends.
PING_WAIT_S = 2
#: The ICMP payload of an echo request in a full-size frame (:data:`FRAME_BYTES` less the Ethernet,
#: IP and ICMP headers, 14 + 20 + 8 bytes): the idle ping of full frames, whose RTT against the
#: small ping's shows what the bottleneck adds to a frame's trip (htb: nothing, it lets a frame
#: leave when a link of its rate would start sending it; docs/linux.md, "Random loss").
FULL_FRAME_PING_PAYLOAD = FRAME_BYTES - 14 - 20 - 8
#: Bytes kept of each captured packet (``capture_acks``): Ethernet, IPv4 and TCP headers with
#: their options, no payload.
CAPTURE_SNAPLEN = 128


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
    # No stop signal reaches it: a Ctrl-C at the terminal must not kill `ip netns del` half way.
    r = interrupt.run_detached(cmd)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip() or r.returncode}")
    return r


def ping_rtts(out: str) -> list[float]:
    """The RTTs (ms) in ``ping -n`` output, one per reply."""
    return [float(m) for m in re.findall(r"time=([\d.]+) ms", out)]


class Testbed:
    """The namespaces, links, bottleneck and delay line of one run.

    :meth:`build` makes them, :meth:`close` removes them (idempotent)."""

    def __init__(self, sc: TestbedScenario, run: runs.Run):
        self.sc = sc
        self.namespaces = run.namespaces
        self.snd, self.rtr, self.rcv = self.namespaces
        self.dir = run.path
        self.procs: list[subprocess.Popen] = []
        self.delayline: subprocess.Popen | None = None
        self.delayline_stats: dict = {}
        self.steered = False

    def ns(self, ns: str, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        return _sh("ip", "netns", "exec", ns, *cmd, check=check)

    def popen(self, ns: str, *cmd: str) -> subprocess.Popen:
        """A process in ``ns``, in its own session (:func:`pertlab.interrupt.popen_detached`: a
        Ctrl-C while it starts does not kill it), with its standard input a pipe from this process
        (the helpers stop when it closes)."""
        p = interrupt.popen_detached(["ip", "netns", "exec", ns, *cmd], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(p)
        return p

    def build(self) -> None:
        delayline = build.build_delayline()
        for ns in self.namespaces:
            _sh("ip", "netns", "add", ns)
            self.ns(ns, "ip", "link", "set", "lo", "up")
        _sh("ip", "link", "add", "s0", "netns", self.snd, "type", "veth", "peer", "name", "r0", "netns", self.rtr)
        _sh("ip", "link", "add", "d0", "netns", self.rcv, "type", "veth", "peer", "name", "r1", "netns", self.rtr)
        steered = []
        for ns, dev, addr in ((self.snd, "s0", SND_IP), (self.rtr, "r0", RTR_SND_IP), (self.rtr, "r1", RTR_RCV_IP), (self.rcv, "d0", RCV_IP)):
            self.ns(ns, "ip", "addr", "add", f"{addr}/24", "dev", dev)
            self.ns(ns, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off", check=False)
            self.ns(ns, "ip", "link", "set", dev, "up")
            steered.append(self.steer_receives(ns, dev))
        self.steered = all(steered)
        initcwnd = [] if self.sc.init_cwnd is None else ["initcwnd", str(self.sc.init_cwnd)]
        self.ns(self.snd, "ip", "route", "add", "default", "via", RTR_SND_IP, *initcwnd)
        quick = [] if self.sc.delayed_ack else ["quickack", "1"]
        self.ns(self.rcv, "ip", "route", "add", "default", "via", RTR_RCV_IP, *quick)
        for key in ("net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0", "net.ipv4.conf.all.send_redirects=0"):
            self.ns(self.rtr, "sysctl", "-qw", key)
        if self.sc.min_tso_segs is not None:
            self.ns(self.snd, "sysctl", "-qw", f"net.ipv4.tcp_min_tso_segs={self.sc.min_tso_segs}")
        if not self.sc.sack:  # offered by neither end, so no connection negotiates it
            for ns in (self.snd, self.rcv):
                self.ns(ns, "sysctl", "-qw", "net.ipv4.tcp_sack=0")
        if not self.sc.tlp:
            self.ns(self.snd, "sysctl", "-qw", "net.ipv4.tcp_early_retrans=0")
        # As the senders' connections will find it (recorded with the run): 0 is no tail loss probe.
        self.early_retrans = int(self.ns(self.snd, "sysctl", "-n", "net.ipv4.tcp_early_retrans").stdout)
        # Delay line: half the round trip each way, the path's jitter, order and loss.
        b = self.sc.bottleneck
        self.delayline = self.popen(self.rtr, str(delayline), "dl0", *self.sc.delayline_args())
        line = self.delayline.stdout.readline() if self.delayline.stdout else ""
        if not line.startswith("ready"):
            raise RuntimeError(f"delay line failed: {self.delayline.stderr.read() if self.delayline.stderr else ''}")
        self.ns(self.rtr, "sysctl", "-qw", "net.ipv4.conf.dl0.rp_filter=0")
        self.ns(self.rtr, "ip", "link", "set", "dl0", "up")
        self.ns(self.rtr, "ip", "route", "add", "default", "dev", "dl0", "table", "100")
        for dev in ("r0", "r1"):
            self.ns(self.rtr, "ip", "rule", "add", "iif", dev, "lookup", "100")
        # Bottleneck: htb rate limit, FIFO leaf of the scenario's size.
        rate = str(b.rate)
        kind, limit = self.sc.queue()
        self.ns(self.rtr, "tc", "qdisc", "add", "dev", "r1", "root", "handle", "1:", "htb", "default", "1")
        self.ns(self.rtr, "tc", "class", "add", "dev", "r1", "parent", "1:", "classid", "1:1", "htb", "rate", f"{rate}bit", "ceil", f"{rate}bit")
        self.ns(self.rtr, "tc", "qdisc", "add", "dev", "r1", "parent", "1:1", "handle", "10:", kind, "limit", str(limit))
        if b.step_k is not None:  # step ECN marking ahead of the rate limit, ECN at both ends
            marker = build.build_ce_mark(b.rate, b.step_k * FRAME_BYTES, self.sc.buffer_bytes)
            self.ns(self.rtr, "tc", "qdisc", "add", "dev", "r1", "clsact")
            self.ns(self.rtr, "tc", "filter", "add", "dev", "r1", "egress", "bpf", "direct-action", "obj", str(marker), "sec", "tc")
            for ns in (self.snd, self.rcv):
                self.ns(ns, "sysctl", "-qw", "net.ipv4.tcp_ecn=1")

    def steer_receives(self, ns: str, dev: str) -> bool:
        """What veth ``dev`` receives to one CPU's backlog (RPS, ``rps_cpus`` = CPU 0), as on every veth.

        A veth hands a packet to the per-CPU backlog of the CPU that sends it, so two packets sent
        in order from two CPUs (a sender or the delay line moved between CPUs, or htb's timer
        firing on the other one) are delivered in the order the two backlogs are served: under
        load, sometimes the later first. Measured with the delay line keeping order (exponential
        jitter, 50,000 UDP probes per round, both CPUs busy): 4 reorderings at the receiver in 28
        rounds without this, none in 40 rounds with it, and none in the delay line's own count
        in either (docs/linux.md). False on a kernel without RPS, where the order is as the kernel
        gives it (``self.steered`` says whether every veth was steered)."""
        return self.ns(ns, "sh", "-c", f"echo 1 > /sys/class/net/{dev}/queues/rx-0/rps_cpus", check=False).returncode == 0

    def close(self) -> None:
        """Stop every process and delete every namespace; safe to call twice."""
        for p in self.procs:
            if p.poll() is None:
                with contextlib.suppress(Exception):
                    p.terminate()
        for p in self.procs:
            _ended(p, timeout=3)
        if self.delayline is not None and self.delayline.stdout and not self.delayline_stats:
            with contextlib.suppress(Exception):
                for line in self.delayline.stdout.read().splitlines():
                    if line.startswith("{"):
                        self.delayline_stats = json.loads(line)
        self.procs.clear()
        runs.remove_namespaces(self.namespaces)

    # -- measurements
    def _ping_cmd(self, count: int, interval: float, payload: int | None = None) -> list[str]:
        """``ping`` from the sender to the receiver, ending by its deadline (``-w``) even when
        replies are lost: without one, iputils waits 10 s for a reply that never comes. The
        deadline leaves twice the path's longest round trip (its delay, a full buffer's drain,
        the jitter's mean each way) and PING_WAIT_S after the last request. ``payload``: the
        echo's ICMP payload in bytes, never fragmented (default: ping's 56)."""
        sc = self.sc
        kind, limit = sc.queue()
        drain_s = (limit * FRAME_BYTES if kind == "pfifo" else limit) * 8 / sc.bottleneck.rate
        rtt_s = sc.bottleneck.delay / 1e9 + drain_s + 2 * sc.path.jitter.mean_ns / 1e9
        deadline = math.ceil(count * interval + 2 * rtt_s) + PING_WAIT_S
        size = [] if payload is None else ["-s", str(payload), "-M", "do"]
        return ["ping", "-n", "-c", str(count), "-i", str(interval), "-w", str(deadline), *size, RCV_IP]

    def ping(self, count: int = 10, interval: float = 0.05, payload: int | None = None) -> list[float]:
        """ICMP echo RTTs (ms) from the sender to the receiver (those answered); ``payload`` as
        :meth:`_ping_cmd` takes it."""
        return ping_rtts(self.ns(self.snd, *self._ping_cmd(count, interval, payload), check=False).stdout)

    def ping_started(self, count: int, interval: float) -> subprocess.Popen:
        """:meth:`ping` in the background; its output goes to :func:`ping_rtts`."""
        return self.popen(self.snd, *self._ping_cmd(count, interval))

    def qdisc_stats(self) -> dict:
        data = json.loads(self.ns(self.rtr, "tc", "-s", "-j", "qdisc", "show", "dev", "r1").stdout)
        leaf = next(q for q in data if q.get("kind") in ("bfifo", "pfifo"))
        return {k: leaf.get(k, 0) for k in ("bytes", "packets", "drops", "backlog", "qlen", "overlimits")}

    def marks(self) -> int:
        """The bottleneck's CE marks so far, as the receiver's namespace counts the packets it
        received CE-marked (``IpExt: InCEPkts``; a marked packet the FIFO then dropped is not
        counted); 0 without marking."""
        if self.sc.bottleneck.step_k is None:
            return 0
        return self.netstat(self.rcv, "IpExt")["InCEPkts"]

    def netstat(self, ns: str, group: str) -> dict[str, int]:
        """One group (``IpExt``, ``TcpExt``) of the namespace's ``/proc/net/netstat`` counters, by name."""
        lines = [line.split() for line in self.ns(ns, "cat", "/proc/net/netstat").stdout.splitlines() if line.startswith(f"{group}:")]
        return {name: int(value) for name, value in zip(lines[0][1:], lines[1][1:])}

    def hystart_exits(self) -> dict[str, int] | None:
        """The sender namespace's HyStart counters so far, over every CUBIC connection in it (Linux
        counts them per namespace from 5.6, and this one is new with the run): slow starts ended
        on an ACK train and on a delay increase, and the sums of the windows (segments) at those
        exits. None on a kernel without them."""
        c = self.netstat(self.snd, "TcpExt")
        if "TCPHystartTrainDetect" not in c:
            return None
        return {f"{how}_{what}": c[f"TCPHystart{how.title()}{counter}"] for how in HYSTART_DETECTIONS for what, counter in (("exits", "Detect"), ("cwnd_sum", "Cwnd"))}

    def recovery_counters(self) -> dict[str, int]:
        """The sender namespace's loss-recovery counters so far (``TcpExt``, over every connection
        in it; the namespace is new with the run), by :data:`SENDER_RECOVERY_COUNTERS`' names; a
        counter this kernel lacks is left out."""
        c = self.netstat(self.snd, "TcpExt")
        return {name: c[key] for name, key in SENDER_RECOVERY_COUNTERS.items() if key in c}

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

    def capture_started(self) -> subprocess.Popen:
        """tshark on the receivers' interface (headers only) into the run directory's
        ``runs.CAPTURE_FILE``, returned once it captures; :meth:`capture_stopped` ends it."""
        p = self.popen(self.rcv, "tshark", "-q", "-i", "d0", "-s", str(CAPTURE_SNAPLEN), "-f", "tcp", "-w", str(self.dir / runs.CAPTURE_FILE))
        said = []
        while p.stderr and (line := p.stderr.readline()):  # it names the interface once it captures (after a warning when run as root)
            said.append(line.strip())
            if line.startswith("Capturing on"):
                return p
        raise RuntimeError(f"tshark could not capture on the receivers' interface: {' '.join(said)}")

    def capture_stopped(self, p: subprocess.Popen) -> Path:
        """Stop :meth:`capture_started`'s tshark (it completes its file) and return the file."""
        p.terminate()
        _ended(p, timeout=15)
        return self.dir / runs.CAPTURE_FILE


def _ended(p: subprocess.Popen, timeout: float) -> None:
    """Wait ``timeout`` s for ``p`` (asked to stop) to end; then kill it."""
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


# ---------------------------------------------------------------- a run


@dataclass
class TestbedResults:
    __test__ = False  # not a pytest test class

    scenario: TestbedScenario
    flows: pl.DataFrame
    queues: pl.DataFrame
    flow_series: pl.DataFrame
    queue_series: pl.DataFrame
    extra: dict
    #: With ``trace_rtt``: every RTT sample of the pert_adaptive connections and the srtt_0.99
    #: and P it gave (t_s from the flows' start, flow, rtt_ms, srtt_ms, min_rtt_ms), as the eBPF
    #: program saw them.
    rtt_trace: pl.DataFrame | None = None
    #: With ``capture_acks``: every ACK the receivers sent that covered new data (pertlab.acks:
    #: the segments it covered, how long the last was held, PSH), timed from the flows' start,
    #: over the whole run (``extra["acks"]`` sums up those of the measurement window).
    acks: pl.DataFrame | None = None

    @property
    def interrupted(self) -> bool:
        """The run was stopped (Ctrl-C, SIGTERM, SIGHUP) before its end; the metrics cover
        [window_start_s, window_end_s] (empty if it stopped before the warm-up ended)."""
        return bool(self.extra.get("interrupted"))

    def summary(self) -> dict:
        """summary.json: the scenario's name and whole (``testbed_scenario``, as a compare's
        report.json has it), the flows' and queues' rows, and what the run measured besides."""
        return {"scenario": self.scenario.name, "testbed_scenario": self.scenario.model_dump(mode="json"), "flows": self.flows.to_dicts(), "queues": self.queues.to_dicts(), **self.extra}

    def write(self, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(dumps(self.summary(), indent=2, default=str) + "\n")
        for name in ("flows", "queues", "flow_series", "queue_series", "rtt_trace", "acks"):
            if getattr(self, name) is not None:
                getattr(self, name).write_parquet(out / f"{name}.parquet")

    def report(self) -> str:
        sc, x = self.scenario, self.extra
        lines = [f"testbed {sc.name}: {sc.bottleneck.rate / 1e6:g} Mbit/s, {sc.bottleneck.delay / 1e6:g} ms, {sc.duration / 1e9:g} s" + _path_words(sc)]
        if self.interrupted and x["window_end_s"] > x["window_start_s"]:
            lines.append(f"interrupted at {x['stopped_at_s']:.1f} s; metrics over [{x['window_start_s']:.1f} s, {x['window_end_s']:.1f} s]")
        elif self.interrupted:
            lines.append(f"interrupted at {x['stopped_at_s']:.1f} s, before the warm-up ({sc.warmup / 1e9:g} s) ended: no window metrics")
        read = x.get("warm_read_s", sc.warmup / 1e9)  # absent from runs stored before it was recorded
        if read is None and not self.interrupted:
            lines.append("the counters were not read when the warm-up ended (the sampling loop was held back): no queue or eBPF window metrics")
        elif read is not None and read - sc.warmup / 1e9 > 2 * sc.sample_interval / 1e9:
            lines.append(f"the counters were read {read - sc.warmup / 1e9:.2f} s after the warm-up ended: the queue's and eBPF's window metrics start then")
        lines.append(f"{'flow':>4} {'cc':>6} {'ss cc':>6} {'goodput Mbit/s':>15} {'rtt mean ms':>12} {'retrans':>8} {'early':>8}")
        for f in self.flows.to_dicts():
            lines.append(
                f"{f['id']:>4} {f['cc']:>6} {f['ss_cc'] or '-':>6} {_fmt(f['goodput_mbps'], '.3f'):>15} {_fmt(f['rtt_mean_ms'], '.2f'):>12} "
                f"{f['retransmits']:>8} {_fmt(f['early_responses'], 'd'):>8}"
            )
        for f in self.flows.filter(pl.col("video_packets").is_not_null()).to_dicts() if "video_packets" in self.flows.columns else []:
            lines.append(
                f"video flow {f['id']} ({f['cc']}): late {f['video_late']} of {f['video_packets']} segments ({_fmt(f['video_late_fraction'], '.2e')}), "
                + ("no segment counted" if f["video_success"] is None else "successful" if f["video_success"]
                   else f"not successful (late fraction {SUCCESS_LATE_FRACTION_TEXT} or more)")
            )
        q = self.queues.to_dicts()[0]
        lines.append(
            f"bottleneck: {q['discipline']} avg {_fmt(q['avg_queue_pkts'], '.1f')} pkts, drops {_fmt(q['drops'], 'd')} "
            f"({_fmt(q['drop_rate'], '.4f')}), utilization {_fmt(q['utilization'], '.3f')}"
            + (f", CE marks {_fmt(q['marks'], 'd')} ({_fmt(q['mark_rate'], '.4f')}) from {sc.bottleneck.step_k} frames queued" if sc.bottleneck.step_k is not None else "")
        )
        dl = x["delayline"]
        lines.append(
            f"idle ping: median {x['ping_idle_ms']['median']:.3f} ms"
            + (f" ({x['ping_idle_full_ms']['median']:.3f} ms in full-size frames)" if x.get("ping_idle_full_ms", {}).get("n") else "")
            + f"; delay line late mean {dl.get('late_mean_us', 0):.1f} us"
            + (f"; the host took {steal['idle_ping']:.2f} s of CPU during the idle ping, {steal['run']:.2f} s over the run" if (steal := x.get("host_steal_s")) else "")
            + (f"; lost {dl.get('lost', 0)} of {dl.get('packets', 0)} packets" if dl.get("lost") else "")
            + (f"; delay given mean {dl['delay_given']['mean_us'] / 1000:.2f} ms, p90 {dl['delay_given']['p90_us'] / 1000:.2f} ms each way" if sc.path.jitter.dist != "none" and "delay_given" in dl else "")
        )
        if "acks" in x:
            lines.append(f"receivers' ACKs (capture): {acks_of_capture.summary_text(x['acks'])}")
        if "first_windows" in x:
            lines.append(f"first windows through the bottleneck (flow x segments, in order): {acks_of_capture.order_text(x['first_windows'])}")
        if (h := x.get("hystart")) is not None:
            lines.append(f"HyStart over the run, every cubic connection: {hystart_words(h)}")
        if "pert_counters" in x:
            lines.append(f"pert counters: {x['pert_counters']}")
        if "pert_adaptive_counters" in x:
            lines.append(f"pert_adaptive counters: {x['pert_adaptive_counters']}")
        for fid, m in x.get("pert_adaptive_modes", {}).items():
            w = m["window"]
            lines.append(
                f"flow {fid} pert_adaptive: alpha {m['alpha']:g}, mode {m['mode']}, q_max {m['q_max_ms']:.1f} ms; "
                + (f"in the window high speed {w['high_speed_s']:.2f} s, safe {w['safe_s']:.2f} s, compete {w['compete_s']:.2f} s" if w else "no window")
            )
        return "\n".join(lines)


def _path_words(sc: TestbedScenario) -> str:
    """The path's profile, jitter, order and loss, when there is more than a constant delay."""
    p, words = sc.path, []
    if p.profile:
        words.append(f"profile {p.profile}")
    if p.jitter.dist != "none":
        words.append(f"{p.jitter.dist} jitter of mean {p.jitter.mean_ns / 1e6:g} ms each way, order {p.order}")
    if sc.loss_rate:
        words.append(f"{p.loss.model if p.loss.model != 'none' else 'bernoulli'} loss {sc.loss_rate:.4g} each way")
    return f" ({'; '.join(words)})" if words else ""


#: The senders' loss-recovery counters the run reports over its measurement window (Linux's
#: ``TcpExt`` names): retransmissions marked lost again (by RACK, RFC 8985, on connections with
#: SACK, or at a timeout), tail loss probes sent and the losses they repaired, timeouts, entries
#: into fast recovery with SACK and without, timeouts found spurious (F-RTO), and window
#: reductions undone as spurious (`tcp_try_undo_*`: whole, partial, by DSACK, after a timeout)
#: with the DSACKs that tell of a segment received twice.
SENDER_RECOVERY_COUNTERS = {
    "lost_retransmits": "TCPLostRetransmit", "loss_probes": "TCPLossProbes", "loss_probe_recoveries": "TCPLossProbeRecovery",
    "timeouts": "TCPTimeouts", "sack_recoveries": "TCPSackRecovery", "reno_recoveries": "TCPRenoRecovery", "spurious_rtos": "TCPSpuriousRTOs",
    "full_undos": "TCPFullUndo", "partial_undos": "TCPPartialUndo", "dsack_undos": "TCPDSACKUndo", "loss_undos": "TCPLossUndo",
    "dsacks_received": "TCPDSACKRecv",
}  # fmt: skip
#: HyStart's two detections, as :meth:`Testbed.hystart_exits` names their counters.
HYSTART_DETECTIONS = ("train", "delay")


def hystart_mean_window(h: dict[str, int], detections: tuple[str, ...] = HYSTART_DETECTIONS) -> float | None:
    """The mean window (segments) at HyStart's exits by ``detections``, from counters as
    :meth:`Testbed.hystart_exits` gives them; None without an exit."""
    n = sum(h[f"{how}_exits"] for how in detections)
    return sum(h[f"{how}_cwnd_sum"] for how in detections) / n if n else None


def hystart_words(h: dict[str, int]) -> str:
    """HyStart's counters (:meth:`Testbed.hystart_exits`) in words: the exits by detection, and
    the mean window at them."""

    def exits(how: str) -> str:
        window = hystart_mean_window(h, (how,))
        return f"{h[f'{how}_exits']}" + ("" if window is None else f" (mean window {window:.1f} segments)")

    return f"slow starts ended on an ACK train {exits('train')}, on a delay increase {exits('delay')}"


def _fmt(v: float | int | None, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def run(sc: TestbedScenario) -> TestbedResults:
    """Run ``sc``; raises RuntimeError when the host cannot, KeyboardInterrupt when
    stopped before the flows started (nothing measured). Stopped later, the results
    come back with ``interrupted`` set."""
    problem = support_problem(sc.needs_pert)
    if problem is None and sc.capture_acks and shutil.which("tshark") is None:
        problem = "capture_acks: tshark not found (Debian package tshark; make sysdeps installs it)"
    if problem:
        raise RuntimeError(problem)
    with interrupt.deferred(interruptible=True) as guard:
        stale = [r.what for r in runs.cleanup()]
        run_dir = runs.begin()
        stack = contextlib.ExitStack()
        trace = run_dir.path / runs.RTT_TRACE_FILE if sc.trace_rtt else None
        res = None
        try:
            holders: dict[str, loader.Holder] = {}
            for cc in sc.ebpf_ccs:
                if cc == "pert_adaptive" and trace is not None and loader.is_registered(cc):
                    raise RuntimeError("trace_rtt: pert_adaptive is already registered on this host, without the trace (pertlab linux unload pert-adaptive)")
                if not loader.is_registered(cc):
                    params = sc.pert_params() if cc == "pert" else sc.pert_adaptive_params()
                    holders[cc] = stack.enter_context(loader.hold(cc, params, trace=trace if cc == "pert_adaptive" else None))
            tb = Testbed(sc, run_dir)
            stack.callback(tb.close)
            tb.build()
            res = _measure(sc, tb, holders, guard)
            res.extra.update(run_id=run_dir.id, stale_runs_removed=stale)
            return res
        finally:
            # Signals from here on are only noted (pertlab.interrupt).
            guard.interruptible = False
            stack.close()  # the loader has written the whole trace once it has ended
            if trace is not None:
                if res is not None and trace.is_file():
                    res.rtt_trace = _read_trace(trace, res)
                trace.unlink(missing_ok=True)
            runs.finish(run_dir)


def _read_trace(path: Path, res: TestbedResults) -> pl.DataFrame:
    """The loader's trace file as a frame: the samples of this run's connections (by local
    port), timed from the flows' start."""
    flow_of = dict(zip(res.flows["local_port"].to_list(), res.flows["id"].to_list()))
    t0 = res.extra["t0_monotonic"]
    rows = []
    for line in path.read_text().splitlines():
        t_us, sport, _dport, rtt_us, srtt_us, min_rtt_us = map(int, line.split())
        if sport in flow_of:
            rows.append({"t_s": t_us / 1e6 - t0, "flow": flow_of[sport], "rtt_ms": rtt_us / 1e3, "srtt_ms": srtt_us / 1e3, "min_rtt_ms": min_rtt_us / 1e3})
    schema = {"t_s": pl.Float64, "flow": pl.UInt32, "rtt_ms": pl.Float64, "srtt_ms": pl.Float64, "min_rtt_ms": pl.Float64}
    return pl.DataFrame(rows, schema=schema).sort("flow", "t_s")


def _finish(p: subprocess.Popen, what: str, timeout: float = 15.0) -> dict:
    """Close a helper's standard input (it stops) and read the JSON object it prints last."""
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise RuntimeError(f"{what} did not stop within {timeout:g} s") from None
    lines = out.strip().splitlines()
    if not lines or not lines[-1].startswith("{"):
        raise RuntimeError(f"{what} failed (exit {p.returncode}): {err.strip()}")
    return json.loads(lines[-1])


@dataclass
class _Flows:
    """The run's helper processes and its connections, once every one is open."""

    recv: subprocess.Popen
    senders: list[tuple[FlowGroup, subprocess.Popen]]
    ports: dict[int, tuple[int, str]]  # sender port -> (flow id, cc); ids as TestbedScenario.flow_groups numbers them
    t0: float  # when the flows started, CLOCK_MONOTONIC s


def _start_flows(sc: TestbedScenario, tb: Testbed, interval: float) -> _Flows:
    """Start the receiver and one sender per flow group (``count`` connections each), then the
    flows together once every connection is open: each sender opens its own one after the other
    (a handshake each), and a group starts at its ``start`` after t0."""
    py = sys.executable
    videos = any(g.video is not None for g in sc.flows)
    recv = tb.popen(tb.rcv, py, "-m", "pertlab.linux.flows", "recv", "--port", str(PORT), "--interval", str(interval), *(["--log"] if videos else []))
    if not (recv.stdout and recv.stdout.readline().startswith("ready")):
        raise RuntimeError(f"receiver failed: {recv.stderr.read() if recv.stderr else ''}")
    senders = []
    for g in sc.flows:
        start = g.start / 1e9  # later groups join; a group's writes end at its stop (default t0 + duration)
        p = tb.popen(
            tb.snd, py, "-m", "pertlab.linux.flows", "send", "--dst", RCV_IP, "--port", str(PORT), "--cc", g.cc, "--count", str(g.count),
            "--duration", repr(sc.stop_of(g) / 1e9 - start), "--interval", str(interval),
            *(["--video-rate", str(g.video.rate), "--segment", str(g.video.segment)] if g.video else []),
        )  # fmt: skip
        senders.append((g, p))
    ports: dict[int, tuple[int, str]] = {}
    for g, p in senders:
        line = p.stdout.readline() if p.stdout else ""
        if not line.startswith("{"):
            raise RuntimeError(f"sender ({g.cc}) failed: {p.stderr.read() if p.stderr else ''}")
        for port in json.loads(line)["ready"]:
            ports[port] = (len(ports), g.cc)
    t0 = flows.start([(p, g.start / 1e9) for g, p in senders])
    return _Flows(recv, senders, ports, t0)


@dataclass
class _Sampled:
    """What the sampling loop read while the flows ran."""

    qseries: list[dict]  # the bottleneck's queue every interval
    ss_cc: dict  # ss's congestion control per connection, in the middle of the run
    ping_load: subprocess.Popen | None  # the ping under load, started in the middle of the run
    q_warm: dict | None  # tc counters at the start of the measurement window
    ebpf_warm: dict[int, dict]  # per-flow eBPF counters then
    warm_read_s: float | None  # when they were read, s from t0
    recovery_warm: dict[str, int] | None  # the senders' loss-recovery counters then
    interrupted: bool


def _sample(sc: TestbedScenario, tb: Testbed, holders: dict[str, loader.Holder], guard: interrupt.Stop, t0: float) -> _Sampled:
    """Sample the bottleneck every interval until the run's end; at the warm-up's end read the
    counters the window starts from; look at ss in the middle of the run and ping under load
    (in the background: nothing here may hold the loop past the warm-up's reads). A signal
    stops the loop."""
    interval, duration, warmup = sc.sample_interval / 1e9, sc.duration / 1e9, sc.warmup / 1e9
    s = _Sampled([], {}, None, None, {}, None, None, False)
    end = t0 + duration
    nxt = t0
    try:
        while (now := time.monotonic()) < end:
            if now >= t0:
                st = tb.qdisc_stats()
                if s.q_warm is None and now - t0 >= warmup:
                    s.q_warm = st | {"marks": tb.marks(), "t_s": now - t0}
                    s.ebpf_warm = _ebpf_flows(sc, holders)
                    s.recovery_warm = tb.recovery_counters()
                    s.warm_read_s = now - t0
                s.qseries.append({"t_s": now - t0, "queue": 0, "len_pkts": st["qlen"], "len_bytes": st["backlog"], "probability": 0.0})
                if s.ping_load is None and now - t0 >= duration / 2:
                    s.ss_cc = tb.ss()
                    s.ping_load = tb.ping_started(count=5, interval=0.02)
            nxt = max(nxt + interval, time.monotonic())
            time.sleep(max(0.0, min(nxt, end) - time.monotonic()))
        guard.interruptible = False
    except KeyboardInterrupt:
        s.interrupted = True
    return s


def _measure(sc: TestbedScenario, tb: Testbed, holders: dict[str, loader.Holder], guard: interrupt.Stop) -> TestbedResults:
    interval = sc.sample_interval / 1e9
    duration = sc.duration / 1e9
    warmup = sc.warmup / 1e9
    # The host's steal over the idle ping and over the run: a ping the host held back measures the host.
    steal_start, load_start = steal_s(), os.getloadavg()[0]
    ping_idle = tb.ping(count=10, interval=0.05)
    steal_idle = steal_s() - steal_start
    ping_idle_full = tb.ping(count=10, interval=0.05, payload=FULL_FRAME_PING_PAYLOAD)
    counters_before = {cc: h.counters() for cc, h in holders.items()}
    capture = tb.capture_started() if sc.capture_acks else None
    fl = _start_flows(sc, tb, interval)
    t0, ports = fl.t0, fl.ports
    s = _sample(sc, tb, holders, guard, t0)
    # From here on signals are only noted: the flows stop (their standard input
    # closes) and what they measured is collected. The measurement window is
    # [warmup, duration] from t0, cut at the stop; empty if it stopped before the warm-up ended.
    w_end = min(max(0.0, time.monotonic() - t0), duration) if s.interrupted else duration
    w_start = min(warmup, w_end)
    q_end = {"t_s": time.monotonic() - t0} | tb.qdisc_stats() | {"marks": tb.marks()}  # timed as q_warm: just before the read
    # The flows' eBPF counters at the window's end too, before the senders stop: a sender's
    # connections run on until it has closed them, later still on a loaded host.
    ebpf_end = _ebpf_flows(sc, holders)
    recovery_end = tb.recovery_counters()
    end_read_s = time.monotonic() - t0
    send_out = [_finish(p, f"sender ({g.cc})") for g, p in fl.senders]
    ping_load_rtts = ping_rtts(s.ping_load.communicate()[0]) if s.ping_load is not None else []  # it ends by its deadline
    recv_out = _finish(fl.recv, "receiver")
    counters_after = {cc: holders[cc].counters() if cc in holders else loader.counters(name=cc) for cc in sc.ebpf_ccs if cc in holders or (loader.pin_dir(cc) / "bss").exists()}
    acks, first = None, None
    if capture is not None:
        pcap = tb.capture_stopped(capture)
        t0_epoch = t0 + time.time() - time.monotonic()  # the capture's stamps are wall-clock times
        packets = acks_of_capture.read_packets(pcap)
        acks = acks_of_capture.ack_holds(packets, t0=t0_epoch)
        pushed = acks_of_capture.push_share(packets, w_start, w_end, t0=t0_epoch)
        first = [ports[port][0] for pk in acks_of_capture.first_windows(packets, sc.init_cwnd or LINUX_INIT_CWND) if (port := int(pk.src.rsplit(":", 1)[1])) in ports]
        pcap.unlink()
    # Over the measurement window, as the simulator counts them.
    early = {port: f["early_responses"] - s.ebpf_warm.get(port, {}).get("early_responses", 0) for port, f in ebpf_end.items()}
    hystart = tb.hystart_exits()
    tb.close()

    flow_rows, series_rows = _flow_rows(sc, fl, send_out, recv_out, s.ss_cc, early if s.q_warm is not None else None, w_start, w_end)
    # Linux's chrono statistics over the connection's life: busy sending, and limited by the send buffer or the receiver's window.
    flow_schema = {**FLOW_SCHEMA, "ss_cc": pl.String, "sack": pl.Boolean, "local_port": pl.UInt32, "hystart_exit_cwnd": pl.UInt32, "busy_s": pl.Float64, "sndbuf_limited_s": pl.Float64, "rwnd_limited_s": pl.Float64}
    extra: dict = {
        "interrupted": s.interrupted, "stopped_at_s": w_end, "window_start_s": w_start, "window_end_s": w_end,
        "ping_idle_ms": _stats(ping_idle), "ping_idle_full_ms": _stats(ping_idle_full), "ping_load_ms": _stats(ping_load_rtts), "warm_read_s": s.warm_read_s, "end_read_s": end_read_s, "delayline": tb.delayline_stats,
        "namespaces": tb.namespaces, "drops_whole_run": q_end["drops"], "sender_tcp_early_retrans": tb.early_retrans, "t0_monotonic": t0, "receives_on_one_cpu": tb.steered,
        "host_steal_s": {"idle_ping": steal_idle, "run": steal_s() - steal_start},
        # when and where: the day (UTC), the kernel, and the load average before and after the run
        "date": time.strftime("%Y-%m-%d", time.gmtime()), "kernel": os.uname().release, "load_average": [load_start, os.getloadavg()[0]],
        # Samples holding a slow-start threshold Linux cannot have set (docs/linux.md, "A stale
        # slow-start threshold"; the eBPF controllers put it back and count it).
        "invalid_ssthresh_samples": sum(1 for r in series_rows if r["ssthresh"] > TCP_INFINITE_SSTHRESH),
    }  # fmt: skip
    for cc, after in counters_after.items():
        extra[f"{cc}_counters"] = {k: v - counters_before.get(cc, {}).get(k, 0) for k, v in after.items()}
    modes = {ports[port][0]: _modes(f, s.ebpf_warm.get(port), s.warm_read_s is not None) for port, f in ebpf_end.items() if port in ports and ports[port][1] == "pert_adaptive"}
    if modes:
        extra["pert_adaptive_modes"] = dict(sorted(modes.items()))
    if acks is not None:
        extra["acks"] = acks_of_capture.summary(acks, w_start, w_end, pushed)
    if first is not None:
        extra["first_windows"] = first  # flow ids, in the order the flows' first windows reached the receivers
    if hystart is not None:
        extra["hystart"] = hystart  # over the run, as the simulator's flows table counts them
    if s.recovery_warm is not None:  # over the measurement window, as the flows table counts
        extra["sender_recovery"] = {k: v - s.recovery_warm.get(k, 0) for k, v in recovery_end.items()}
    queue_row = _queue_row(sc, s.qseries, s.q_warm, q_end, w_end - w_start, tb.delayline_stats)
    return TestbedResults(sc, rows_frame(flow_rows, flow_schema), rows_frame([queue_row], QUEUE_SCHEMA), rows_frame(series_rows, FLOW_SERIES_SCHEMA), rows_frame(s.qseries, QUEUE_SERIES_SCHEMA), extra, acks=acks)


def _flow_rows(sc: TestbedScenario, fl: _Flows, send_out: list[dict], recv_out: dict, ss_cc: dict, early: dict[int, int] | None, w_start: float, w_end: float) -> tuple[list[dict], list[dict]]:
    """The flows table's rows over the window [``w_start``, ``w_end``] s from t0 and the flow
    series' rows, from what the senders (``send_out``) and the receiver (``recv_out``) printed
    and ss showed (``ss_cc``: congestion control by sender port); ``early``: the eBPF controllers' early responses in the window by sender port (None when
    the window's counters were never read)."""
    t0 = fl.t0
    recv_series = recv_out["series"]

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

    samples: dict[int, list[dict]] = {}  # by connection, in time order
    for out in send_out:
        for s in out["samples"]:
            samples.setdefault(s["port"], []).append(s)
    finals = {f["port"]: f for out in send_out for f in out["final"]}
    t_w, t_e = t0 + w_start, t0 + w_end
    span = w_end - w_start
    flow_rows, series_rows = [], []
    groups = sc.flow_groups()
    for port, (i, cc) in sorted(fl.ports.items(), key=lambda kv: kv[1][0]):
        g = groups[i]
        gbytes = bytes_at(port, t_e) - bytes_at(port, t_w)
        mine = samples.get(port, [])
        rtts = [s["srtt_us"] / 1000 for s in mine if t_w <= s["t"] <= t_e]
        fin = finals.get(port, {})
        flow_rows.append({
            "id": i, "cc": cc, "src": "snd", "dst": "rcv", "start_s": g.start / 1e9,
            "goodput_mbps": gbytes * 8 / span / 1e6 if span > 0 else None, "goodput_bytes": int(gbytes) if span > 0 else None,
            "retransmits": _in_window(mine, fin, t_w, "total_retrans"),
            "timeouts": _in_window(mine, fin, t_w, "total_rto"),
            "early_responses": early.get(port, 0) if cc in EBPF_CCS and early is not None else None,
            "base_rtt_ms": sc.bottleneck.delay / 1e6, "rtt_samples": len(rtts),
            "rtt_mean_ms": statistics.fmean(rtts) if rtts else None,
            "rtt_min_ms": fin.get("min_rtt_us", 0) / 1000 if fin else None,
            "rtt_max_ms": max(rtts) if rtts else None,
            "ss_cc": ss_cc.get(port), "sack": fin.get("sack"), "local_port": port, "hystart_exit_cwnd": _hystart_exit_cwnd(mine) if cc == "cubic" else None,
            **{f"{k}_s": fin[f"{k}_us"] / 1e6 if f"{k}_us" in fin else None for k in ("busy", "sndbuf_limited", "rwnd_limited")},
            **_video_columns(sc, g, recv_out.get("arrivals", {}).get(str(port), []), t0, w_end),
        })  # fmt: skip
        series_rows += [{"t_s": s["t"] - t0, "flow": i, "cwnd": s["cwnd"], "ssthresh": s["ssthresh"], "srtt_ms": s["srtt_us"] / 1000, "delivered_bytes": s["bytes_acked"]} for s in mine]
    return flow_rows, series_rows


def _video_columns(sc: TestbedScenario, g: FlowGroup, arrivals: list[list[float]], t0: float, end_s: float) -> dict:
    """A video stream's playout over the run (the simulator's ``video_*`` columns, its one
    definition): segment i written at t0 + start + i x segment / rate, delivered when the
    receiver's byte count first reached (i + 1) x segment (``arrivals``: its (time, bytes so
    far) after each read), due ``startup_delay`` after it was written; the run ends at the
    group's stop or at ``end_s`` from t0 (an interrupted run's stop), whichever is first."""
    if g.video is None:
        return {}
    seg, interval = g.video.segment, round(g.video.segment * 8e9 / g.video.rate)
    deliveries, i = [], 0
    for t, total in arrivals:
        while (i + 1) * seg <= total:
            deliveries.append(max(0, round((t - t0) * 1e9)))
            i += 1
    end = min(sc.stop_of(g), round(end_s * 1e9))
    packets, late, late_fraction, success = video_playout(g.start, interval, g.video.startup_delay, deliveries, end)
    return {"video_packets": packets, "video_late": late, "video_late_fraction": late_fraction, "video_success": success}


def _queue_row(sc: TestbedScenario, qseries: list[dict], q_warm: dict | None, q_end: dict, span: float, delayline: dict) -> dict:
    """The bottleneck over the measurement window, as the simulator reports it
    (counters None when the run stopped before the window opened; rates and averages None over an
    empty population, as the simulator's: :mod:`pertlab.metrics`). Marks are those of the step
    marker (``bottleneck.step_k``; :meth:`Testbed.marks`), 0 without it."""
    kind, limit = sc.queue()
    row = {
        "link": "bottleneck", "from": "rtr", "to": "rcv", "discipline": kind, "rate_bps": sc.bottleneck.rate,
        "limit_pkts": limit if kind == "pfifo" else None, "limit_bytes": limit if kind == "bfifo" else None,
        "marks": 0 if sc.bottleneck.step_k is None else None, "mark_rate": None, "link_losses": delayline.get("lost", 0),
        "avg_queue_pkts": None, "avg_queue_bytes": None, "arrivals": None, "departures": None, "drops": None,
        "drop_rate": None, "utilization": None,
    }  # fmt: skip
    if q_warm is None or span <= 0:
        return row
    in_window = [q for q in qseries if sc.warmup / 1e9 <= q["t_s"]]
    # The simulator's utilization is the share of the window the link was busy: here the bits the
    # FIFO sent (its `bytes`: whole frames, retransmissions included) over what the rate sends
    # between the two reads of its counters. (Goodput stood in for it until 2026-12-04: in-order
    # bytes, which a hole filled just after the window opens pushes above the rate.)
    sent_bits = (q_end["bytes"] - q_warm["bytes"]) * 8
    read_span = q_end["t_s"] - q_warm["t_s"]
    departures, drops, marks = (q_end[k] - q_warm[k] for k in ("packets", "drops", "marks"))
    arrivals = departures + drops
    return row | {
        "avg_queue_pkts": statistics.fmean(q["len_pkts"] for q in in_window) if in_window else None,
        "avg_queue_bytes": statistics.fmean(q["len_bytes"] for q in in_window) if in_window else None,
        "arrivals": arrivals, "departures": departures, "drops": drops,
        "drop_rate": rate(drops, arrivals), "marks": marks, "mark_rate": rate(marks, arrivals), "utilization": sent_bits / (sc.bottleneck.rate * read_span) if read_span > 0 else None,
    }  # fmt: skip


def _ebpf_flows(sc: TestbedScenario, holders: dict[str, loader.Holder]) -> dict[int, dict]:
    """The eBPF controllers' per-connection counters so far, by sender port (held
    registrations, or pinned ones made by ``pertlab linux load``)."""
    rows: list[dict] = []
    for cc in sc.ebpf_ccs:
        if cc in holders:
            rows += holders[cc].flow_counters()
        elif (loader.pin_dir(cc) / "flows").exists():
            rows += loader.flow_counters(name=cc)
    return {f["sport"]: f for f in rows if f["daddr"] == RCV_IP and f["dport"] == PORT}


def _modes(end: dict, warm: dict | None, warm_read: bool) -> dict:
    """An adaptive-PERT flow's alpha, mode and q_max (the largest queueing delay it has seen,
    ms: it never decays, so one outlying RTT sample sets its thresholds for the rest of the
    run) at its last update, and its time in each mode over the whole run and over the
    measurement window (seconds), from its counters read at the window's end (``end``): the
    run's less its counters at the warm-up's read (``warm``; None when it had none yet: it had
    not started). No window (None) when the counters were not read at the warm-up
    (``warm_read`` false: the run stopped before it), never the whole run in its place."""
    run = {f"{m}_s": end[f"{m}_us"] / 1e6 for m in loader.MODES}
    window = {k: v - (warm or {}).get(k.removesuffix("_s") + "_us", 0) / 1e6 for k, v in run.items()} if warm_read else None
    return {"alpha": end["alpha"], "mode": end["mode"], "q_max_ms": end["q_max_us"] / 1e3, "run": run, "window": window, "at_warm_read": warm is not None}


def _hystart_exit_cwnd(samples: list[dict]) -> int | None:
    """The window (segments) at which HyStart ended a cubic connection's first slow start: its
    first slow-start threshold below Linux's largest, HyStart's ``ssthresh = cwnd``, when no
    segment had been retransmitted by the sample that showed it (``samples``: the connection's,
    in time order); None where a loss came first or no sample held a threshold. Over a
    namespace's connections these add up to its ``TCPHystart*Cwnd`` counters when every
    connection left slow start so (tests/python/test_testbed.py)."""
    first = next((s for s in samples if s["ssthresh"] < TCP_INFINITE_SSTHRESH), None)
    return first["ssthresh"] if first is not None and first["total_retrans"] == 0 else None


def _in_window(samples: list[dict], fin: dict, t_w: float, counter: str) -> int | None:
    """A connection's count of ``counter`` (``total_retrans``: segments retransmitted;
    ``total_rto``: retransmission timeouts, Linux >= 6.7) over the measurement window, as the
    simulator counts them: the cumulative count over the connection's life at the end (``fin``),
    less its last sample (``samples``: the connection's, in time order) at or before the
    window's start (0 if none was taken); None where the kernel does not report it."""
    if fin.get(counter, 0) is None:
        return None
    before = [s[counter] for s in samples if s["t"] <= t_w]
    return max(0, fin.get(counter, 0) - (before[-1] if before else 0))


def _stats(xs: list[float]) -> dict:
    if not xs:
        return {"n": 0}
    return {"n": len(xs), "min": min(xs), "median": statistics.median(xs), "mean": statistics.fmean(xs), "max": max(xs)}
