"""The simulator's side of a testbed comparison (docs/linux.md, "testbed compare").

:func:`sim_scenario` maps a testbed scenario to a simulator dumbbell: the
bottleneck's rate, round-trip delay and buffer (bfifo bytes -> full-size
frames), each flow group starting and stopping when the testbed's does (a video group
with the same video rate and start-up delay; the simulator's segments carry its packet
size's payload), the testbed's
PERT parameters (the ``[pert]`` and ``[pert_adaptive]`` tables are the
simulator's ``pert`` and ``pert-adaptive`` controllers). Kernel reno maps
to the simulator's Reno with SACK, kernel cubic to its CUBIC in Linux's arithmetic,
with Linux's HyStart when this host's tcp_cubic runs it (:func:`linux_cubic`); kernel bbr has no counterpart and is refused. Random loss
is carried as the data direction's loss at its long-run rate (not the losses of ACKs nor a
Gilbert-Elliott path's bursts), and the path's jitter not at all. What the simulator's side adds
beyond the scenario is a :class:`SimSide` (``testbed compare``'s ``--sim-...`` options).
:func:`simulated` and :func:`warm_up_of` run it. The report that sets it beside the kernel's run
is :mod:`.compare`'s.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import polars as pl

from .. import acks
from ..results import Results
from ..scenario import Scenario, ScenarioError
from ..scenario.model import CaptureSpec
from .scenario import LINUX_INIT_CWND, TestbedScenario


#: The simulator's senders take their RTT samples as Linux does (``rtt_samples = linux``: the RTO
#: estimator from the first newly acknowledged segment's send time, the congestion control from the
#: last one's, ``ca_rtt_us``, which the eBPF PERT reads; docs/model.md, "Timestamp echo"), and its
#: receivers echo as Linux's (RFC 7323's ``earliest``, the default). They reduce their windows as
#: Linux does, by Proportional Rate Reduction in fast recovery and on ECN-Echo (``prr``,
#: ``tcp_cwnd_reduction``; docs/linux.md, "ECN at the bottleneck"). Their RTO comes from Linux's
#: estimator (``rto_estimator = "linux"``, ``tcp_rtt_estimator``): RFC 6298's with per-RTT gains
#: lagged the RTT's rise at the end of slow start and fired timeouts Linux's senders do not
#: (docs/linux.md, "Live video").
LINUX_TCP = {"rtt_samples": "linux", "prr": True, "rto_estimator": "linux"}


#: The tick rate assumed for the testbed's kernel when its configuration cannot be read
#: (Debian's ``CONFIG_HZ``).
DEFAULT_HZ = 250


@cache
def kernel_hz() -> int | None:
    """This host's ``CONFIG_HZ``, from /boot/config-RELEASE or /proc/config.gz (None if neither says)."""
    import gzip

    release = os.uname().release
    for path, opener in ((Path(f"/boot/config-{release}"), open), (Path("/proc/config.gz"), gzip.open)):
        try:
            with opener(path, "rt") as f:
                for line in f:
                    if line.startswith("CONFIG_HZ="):
                        return int(line.split("=", 1)[1])
        except (OSError, ValueError):
            continue
    return None


def linux_delayed_ack() -> dict[str, Any]:
    """The simulator's receivers for a testbed scenario with ``delayed_ack = true``: Linux's delayed
    ACK (``ack_policy = "linux"``: quickack mode, the ACK-timeout estimator, the timer on this
    host's jiffies, docs/model.md), the kernel's ``CONFIG_HZ`` read from this host, else
    :data:`DEFAULT_HZ`."""
    return {"ack_policy": "linux", "linux_ack": {"hz": kernel_hz() or DEFAULT_HZ}}


#: Where tcp_cubic's module parameters are (built in or loaded, the same place).
CUBIC_PARAMETERS = Path("/sys/module/tcp_cubic/parameters")


#: tcp_cubic's HyStart parameters as the simulator's HyStart has them, fixed
#: (tcp/cc/cubic/hystart.rs): both detections (ACK train and delay), from a window of 16
#: segments, ACKs at most 2 ms apart making a train. Linux's defaults.
HYSTART_MODEL = {"hystart_detect": 3, "hystart_low_window": 16, "hystart_ack_delta_us": 2000}


@cache
def kernel_hystart() -> dict[str, int]:
    """This host's tcp_cubic HyStart parameters (``hystart`` and :data:`HYSTART_MODEL`'s), read
    from :data:`CUBIC_PARAMETERS`; those it cannot read are left out (a kernel whose tcp_cubic is
    not loaded yet loads it with its defaults: HyStart on, as :data:`HYSTART_MODEL`)."""
    params = {}
    for name in ("hystart", *HYSTART_MODEL):
        try:
            params[name] = int((CUBIC_PARAMETERS / name).read_text())
        except (OSError, ValueError):
            continue
    return params


def hystart_runs(params: dict[str, int]) -> bool:
    """Whether tcp_cubic with ``params`` (as :func:`kernel_hystart` reads them) runs HyStart: on
    unless ``hystart`` or ``hystart_detect`` is 0 (Linux's defaults where unread)."""
    return params.get("hystart", 1) != 0 and params.get("hystart_detect", 3) != 0


def hystart_differences(params: dict[str, int]) -> list[str]:
    """The HyStart parameters of ``params`` (as :func:`kernel_hystart` reads them) the
    simulator's HyStart does not follow, as ``name = kernel's (simulator's)``."""
    if not hystart_runs(params):
        return []  # off on both sides: its parameters do not act
    return [f"{k} = {params[k]} ({v})" for k, v in HYSTART_MODEL.items() if k in params and params[k] != v]


def linux_cubic() -> dict[str, Any]:
    """The simulator's CUBIC is Linux's where the two differ (tcp_cubic.c, ``variant = linux``:
    integer reductions rounded down, the Reno estimate at alpha_cubic per RTT throughout, the growth
    in the kernel's integers and jiffies, on this host's ``CONFIG_HZ`` as :func:`linux_delayed_ack`):
    with the few segments per flow of the examples here, the RFC's kept the simulated flows more
    window than the kernel's and its real-valued growth left the link less busy (docs/linux.md,
    "ECN at the bottleneck"). With Linux's HyStart (``hystart``) when this host's tcp_cubic runs
    it (:func:`hystart_runs`): the kernel's
    CUBIC left slow start by it with about 40 drops where the simulator's without overshot the
    buffer like Reno (docs/linux.md, "Live video")."""
    return {"variant": "linux", "hz": kernel_hz() or DEFAULT_HZ, "hystart": hystart_runs(kernel_hystart())}


#: Kernel congestion controls with a simulator counterpart: Reno (with SACK, as Linux) and
#: CUBIC (Linux's, :func:`linux_cubic`). Kernel bbr has none.
SIM_CC = {"pert": "pert", "pert_adaptive": "pert-adaptive", "reno": "sack", "cubic": "cubic"}


def sim_cc(sc: TestbedScenario, cc: str) -> str:
    """The simulator's controller for the testbed's ``cc``: kernel reno without SACK (``sack =
    false``) is the simulator's ``newreno``; every flow's ``tcp.sack`` follows the scenario too."""
    return "newreno" if cc == "reno" and not sc.sack else SIM_CC[cc]


@dataclass(frozen=True)
class SimSide:
    """What the simulator's side of a comparison adds to the testbed scenario: each an option of
    ``testbed compare`` (``--sim-...``) and a field of its report.json (``sim_...``; a run recorded
    before a field existed was made without it).

    - ``send_overhead`` (a time, as the scenario's ``tcp.overhead`` takes it): every simulated sender
      waits U(0, send_overhead) before it sends (ns-2's send overhead): the hosts' timing noise,
      which the simulator otherwise lacks, so that its seeds differ where the kernel's runs do
      (docs/linux.md, "Live video"); refused values are named ``sim_send_overhead``.
    - ``rack``: the simulated senders find every lost segment as Linux's RACK does (``tcp.rack``,
      on flows with SACK: the kernel's only loss detection there; docs/linux.md, "Random loss").
    - ``rack_retransmits``: RACK on retransmissions only (``tcp.rack_retransmits``), three duplicate
      ACKs for the rest: the step docs/linux.md's "Random loss" took before ``rack``.
    - ``frame_ahead``: the simulated round trip is one data packet's transmission time at the
      bottleneck's rate shorter (half of it off the bottleneck's delay each way). The testbed's htb
      lets a frame leave as soon as its tokens are not negative and charges its time after, so a
      frame leaves when a link's transmission of it would start, where the simulator's link
      delivers it when its last bit has gone: the kernel's least RTT is the path's delay, the
      simulator's one frame's time more (docs/linux.md, "Random loss")."""

    send_overhead: str | int | None = None
    rack: bool = False
    rack_retransmits: bool = False
    frame_ahead: bool = False

    @classmethod
    def of_record(cls, record: dict[str, Any]) -> SimSide:
        """The simulator's side a committed run's report.json says it was made with."""
        overhead = record.get("sim_send_overhead_ns")
        return cls(
            f"{overhead}ns" if overhead else None, rack=record.get("sim_rack", False),
            rack_retransmits=record.get("sim_rack_retransmits", False), frame_ahead=record.get("sim_frame_ahead", False),
        )


#: The simulator's side ``testbed compare`` takes by default: the senders with SACK find losses by
#: RACK, as the kernel's do (Linux 6.18 has no other loss detection with SACK), and the round trip
#: is a frame's time shorter, as through the testbed's htb. Comparisons recorded before these were
#: the defaults (2026-12-07) name what they were made with (``sim_rack``, ``sim_frame_ahead`` in
#: their report.json; :meth:`SimSide.of_record`).
LINUX_SIDE = SimSide(rack=True, frame_ahead=True)


def frame_time_ns(size_bytes: int, rate_bps: int) -> int:
    """The time a link of ``rate_bps`` takes to send ``size_bytes``, in whole ns rounded up (the
    simulator's ``time::tx_time``)."""
    return -(-size_bytes * 8 * 10**9 // rate_bps)


def sim_scenario(sc: TestbedScenario, memory_limit: float | None = None, side: SimSide = SimSide()) -> Scenario:
    """The simulator's dumbbell for ``sc``; a :class:`ScenarioError` names a flow
    whose congestion control the simulator lacks. Of the delay line's path it carries the
    mean: the round trip is the constant delay plus the jitter's mean each way, and the data
    direction loses packets at random at the path's long-run loss rate. The simulator has no
    jitter, so the variation of the delay, a Gilbert-Elliott path's bursts (its stationary rate
    is used) and the losses of ACKs are not carried. The initial window is the scenario's
    (``init_cwnd``), else the kernel's default (:data:`LINUX_INIT_CWND`) on both sides.
    Linux's delayed ACKs (``delayed_ack``) are carried as :func:`linux_delayed_ack`, its RTT samples
    and window reductions as :data:`LINUX_TCP`, Linux's CUBIC as :func:`linux_cubic`; ``side``
    adds what :class:`SimSide` says.
    What the simulator refuses is named by the testbed's field (``bottleneck.delay``), a run too
    large for ``memory_limit`` (bytes, as :func:`pertlab.runner.run` takes it) included."""
    missing = [(f"flows[{i}].cc", f"the simulator has no {f.cc} to compare with; allowed: {', '.join(SIM_CC)}") for i, f in enumerate(sc.flows) if f.cc not in SIM_CC]
    if missing:
        raise ScenarioError(missing)
    pkts = sc.buffer_frames
    rtt = round(sc.bottleneck.delay + 2 * sc.path.jitter.mean_ns)
    running = {SIM_CC[f.cc] for f in sc.flows}
    try:  # the core builds it too: what it refuses (a run too large for memory) is known before either side runs
        return _dumbbell_of(sc, rtt, pkts, running, side).check(memory_limit)
    except ScenarioError as e:  # named by the testbed file's fields (a testbed with no delay: bottleneck.delay)
        # the core's advice names its monitor, which the testbed file sets as sample_interval
        raise ScenarioError([(", ".join(map(_testbed_field, path.split(", "))), f"in the simulator, {message.replace('(monitor)', '(sample_interval)')}") for path, message in e.errors]) from None


#: What :func:`sim_scenario` sets in the simulator (the builder's arguments, the scenario's
#: fields), by the testbed field each comes from.
_TESTBED_FIELDS = {
    "bw": "bottleneck.rate", "rtt": "bottleneck.delay", "buffer_pkts": "bottleneck.buffer", "duration": "duration", "warmup": "warmup",
    "sample_interval": "sample_interval", "monitor.sample_interval": "sample_interval", "seed": "seed", "cc": "flows", "cc_params": "pert",
    "tcp.overhead": "sim_send_overhead", "tcp": "init_cwnd",
    "dumbbell.bottleneck_loss": "path.loss", "flows": "flows",
}  # fmt: skip


def _testbed_field(path: str) -> str:
    """The testbed field a simulator scenario's ``path`` comes from (``path`` itself if none)."""
    return next((field for sim, field in _TESTBED_FIELDS.items() if re.match(rf"{re.escape(sim)}(?:$|[.\[])", path)), path)


def _tcp_of(sc: TestbedScenario, side: SimSide) -> dict[str, Any]:
    """The simulator's TCP options for the testbed scenario: Linux's RTT samples, the kernel's
    initial window (the scenario's, else Linux's default), SACK as the scenario has it, Linux's
    delayed ACKs where the scenario asks for them, the send overhead where ``side`` gives one, and
    with its ``rack`` or ``rack_retransmits`` (and SACK) RACK's loss detection."""
    overhead = {} if side.send_overhead is None else {"overhead": side.send_overhead}
    found = {"rack": side.rack, "rack_retransmits": side.rack_retransmits} if sc.sack else {}
    return LINUX_TCP | {"init_cwnd": sc.init_cwnd or LINUX_INIT_CWND, "sack": sc.sack} | (linux_delayed_ack() if sc.delayed_ack else {}) | overhead | found


def _marking_of(sc: TestbedScenario) -> dict[str, Any]:
    """The simulator's bottleneck marking for the testbed's ``bottleneck.step_k``: a `step` queue
    of that threshold in packets, ECN at every flow."""
    k = sc.bottleneck.step_k
    return {} if k is None else {"queue": "step", "aqm": {"k_pkts": k}, "ecn": True}


def _dumbbell_of(sc: TestbedScenario, rtt: int, pkts: int, running: set[str], side: SimSide) -> Scenario:
    from ..builders import dumbbell

    sim = dumbbell(
        bw=sc.bottleneck.rate, rtt=f"{rtt}ns", cc=",".join(f"{sim_cc(sc, f.cc)}:{f.count}" for f in sc.flows), flows=None,
        duration=f"{sc.duration}ns", warmup=f"{sc.warmup}ns", start_window=0, buffer_pkts=pkts, seed=sc.seed,
        sample_interval=f"{sc.sample_interval}ns", tcp=_tcp_of(sc, side), **_marking_of(sc),
        cc_params={name: params.model_dump(mode="json", by_alias=True, exclude_none=True)  # of the PERTs the flows run
                   for name, params in (("pert", sc.pert), ("pert-adaptive", sc.pert_adaptive)) if name in running}
                  | ({"cubic": linux_cubic()} if "cubic" in running else {}),
    )  # fmt: skip
    loss = sc.loss_rate  # a [path.loss] table's long-run rate, or bottleneck.loss
    # half a data packet's transmission each way: the round trip a frame's time shorter (SimSide.frame_ahead)
    # (never below a delay of 0: on a path shorter than a frame's time the round trip keeps the rest)
    ahead = min(frame_time_ns(sim.flows[0].tcp.packet_size, sc.bottleneck.rate) // 2, sim.dumbbell.bottleneck_delay) if side.frame_ahead else 0
    if loss == 0 and ahead == 0 and all(f.start == 0 and f.stop is None and f.video is None for f in sc.flows):
        return sim
    data = sim.model_dump(mode="json", by_alias=True, exclude_none=True)
    data["dumbbell"]["bottleneck_loss"] = loss
    data["dumbbell"]["bottleneck_delay_ns"] -= ahead
    for flow, g in zip(data["flows"], sc.flow_groups()):
        flow["start_window_ns"] = [g.start, g.start]
        if g.stop is not None and g.stop < sc.duration:
            flow["stop_ns"] = g.stop
        if g.video is not None:
            flow["video"] = {"rate_bps": g.video.rate, "startup_delay_ns": g.video.startup_delay}
    return Scenario.parse(data)


def warm_up_of(sc: TestbedScenario, seed: int, memory_limit: float | None = None, side: SimSide = SimSide()) -> Results:
    """The simulator's run of ``sc`` with ``seed`` cut at the end of the warm-up and measured from
    0: the start of :func:`sim_scenario`'s run, since a run is a pure function of its scenario and
    seed and nothing after the warm-up acts before it (tests/python/test_linux_units.py checks the
    two runs' series agree). Its flows' times in adaptive PERT's modes are the simulator's side of
    the kernel's run-less-window."""
    from ..runner import run as sim_run

    cut = sc.model_copy(update={"duration": sc.warmup, "warmup": 0, "seed": seed})
    return sim_run(sim_scenario(cut, memory_limit, side), memory_limit=memory_limit)


def simulated(sim: Scenario, folder: Path, capture_acks: bool, memory_limit: float | None = None) -> tuple[Results, dict[str, Any] | None]:
    """``sim`` (:func:`sim_scenario`'s) run within ``memory_limit``, its results written to ``folder``; with ``capture_acks``
    its receivers' access links captured too, and the :func:`pertlab.acks.summary` of their ACKs
    (None without, or when the run was interrupted)."""
    from ..runner import run as sim_run

    if capture_acks:
        captures = folder / "captures"
        captures.mkdir(parents=True, exist_ok=True)
        sim = sim.model_copy(update={"capture": [CaptureSpec(link=f"r1-d{i}", file=str(captures / f"r1-d{i}.pcap")) for i in range(len(sim.flows))]})
    res = sim_run(sim, memory_limit=memory_limit)
    res.write(folder)
    return res, _receiver_acks(sim, folder) if capture_acks and not res.interrupted else None


def _receiver_acks(sim: Scenario, folder: Path) -> dict[str, Any]:
    """The ACKs in :func:`simulated`'s captures (pertlab.acks), written to ``folder/acks.parquet``
    (the captures are then removed), summed up over the measurement window, with the order in which
    the flows' first windows left r1 (``first_windows``, flow ids: :func:`pertlab.acks.merged_first_windows`).
    A data segment is recorded as it leaves r1, and reaches its receiver one access delay and one packet time later."""
    d = sim.to_wire()["dumbbell"]
    delays = d["receiver_access_delay_ns"]
    packet_s = sim.flows[0].tcp.packet_size * 8 / d["access_rate_bps"]
    start_s, end_s = sim.measure.start / 1e9, sim.measure.end / 1e9
    tables, data, captured = [], [], []
    for i, capture in enumerate(sim.capture):
        offset_s = delays[i if len(delays) > 1 else 0] / 1e9 + packet_s
        packets = acks.read_packets(Path(capture.file))
        tables.append(acks.ack_holds(packets, arrival_offset_s=offset_s))
        data += packets
        captured.append(packets)
        Path(capture.file).unlink()
    Path(sim.capture[0].file).parent.rmdir()
    table = pl.concat(tables)
    table.write_parquet(folder / "acks.parquet")
    first = acks.merged_first_windows(captured, sim.flows[0].tcp.init_cwnd)
    return acks.summary(table, start_s, end_s, acks.push_share(data, start_s, end_s)) | {"first_windows": first}
