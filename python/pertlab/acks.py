"""The ACKs a TCP receiver sent, read from a capture of its link: how many data segments each
newly covered, and how long the receiver held the last of them before acknowledging it.

One definition for both sides of ``testbed compare``: the testbed's capture of the receivers'
interface (``capture_acks``, real packets through tshark) and the simulator's pcap of its
receivers' access links (docs/pcap.md). What it shows is the receiver's ACK policy at work:
RFC 5681's delayed ACK holds a lone segment for its timer, where Linux acknowledges a lone
full-sized segment carrying PSH as soon as the application has read it (docs/linux.md, "Ten
PERT flows behind delayed ACKs").

Left out: ACKs that cover no new segment (duplicate ACKs, window updates) are not rows; a
segment that arrives out of order or again is counted when an ACK first covers its end. Times
are those of the capture point: ``arrival_offset_s`` moves the data segments' stamps to their
arrival at the receiver where the capture is taken upstream of it (the simulator records a
packet when it starts transmission at the link's far end)."""

from __future__ import annotations

import shutil
import statistics
import subprocess
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

#: An ACK sent within this time of the last segment it covers was sent at once: well below the
#: shortest delayed-ACK timeout of Linux (``TCP_DELACK_MIN``, 40 ms) and of the simulator's
#: scenarios, well above a receiver's processing time.
AT_ONCE_S = 0.010

#: The table of :func:`ack_holds`: one row per ACK that covered new data.
ACK_SCHEMA = {"conn": pl.String, "t_s": pl.Float64, "segments": pl.UInt32, "hold_ms": pl.Float64, "push": pl.Boolean, "cue_hold_ms": pl.Float64}

#: The ECN codepoints of the IP header (RFC 3168 5).
NOT_ECT, CE = 0, 3


class Packet(NamedTuple):
    """A captured TCP packet as :func:`read_packets` gives it."""

    t: float  #: capture time, s
    src: str  #: "address:port"
    dst: str
    seq: int  #: relative sequence number
    length: int  #: payload bytes (0: an ACK)
    ack: int  #: relative ACK number
    push: bool  #: the PSH flag
    ecn: int = NOT_ECT  #: the IP header's ECN field (0 Not-ECT, 1 and 2 ECT, 3 CE)
    cwr: bool = False  #: the CWR flag


_FIELDS = ("frame.time_epoch", "ip.src", "tcp.srcport", "ip.dst", "tcp.dstport", "tcp.seq", "tcp.len", "tcp.ack", "tcp.flags.push", "ip.dsfield.ecn", "tcp.flags.cwr")


def read_packets(path: Path) -> list[Packet]:
    """The TCP packets of the capture at ``path``, through tshark."""
    if shutil.which("tshark") is None:
        raise RuntimeError("tshark not found (Debian package tshark; make sysdeps installs it)")
    cmd = ["tshark", "-r", str(path), "-Y", "tcp", "-T", "fields", "-E", "separator=,", *[a for f in _FIELDS for a in ("-e", f)]]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"tshark could not read {path}: {r.stderr.strip()}")
    out = []
    for line in r.stdout.splitlines():
        t, src, sport, dst, dport, seq, length, ack, push, ecn, cwr = line.split(",")
        if not (seq and length and ack):  # a fragment or a packet cut before its TCP header
            continue
        flag = lambda v: v in ("1", "True")  # noqa: E731
        out.append(Packet(float(t), f"{src}:{sport}", f"{dst}:{dport}", int(seq), int(length), int(ack), flag(push), int(ecn or 0), flag(cwr)))
    return out


def ack_holds(packets: list[Packet], arrival_offset_s: float = 0.0, t0: float = 0.0) -> pl.DataFrame:
    """Every ACK that newly covers data (:data:`ACK_SCHEMA`): its connection ("sender > receiver"),
    its time from ``t0`` (s, on the capture's clock), the segments it covered, how long after the
    last of them arrived it was sent (ms), whether that segment carried PSH, and how long after
    the last ECN cue among them it was sent (ms; null if none: :func:`ecn_cues`). ``packets`` as
    :func:`read_packets` gives them, in time order; a data segment arrives ``arrival_offset_s``
    after its stamp."""
    waiting: dict[tuple[str, str], list[tuple[int, float, bool, bool]]] = {}  # (sender, receiver) -> segments not yet covered: (end, arrival, PSH, cue)
    cues = ecn_cues(packets)
    rows = []
    for i, (t, src, dst, seq, length, ack, push, _, _) in enumerate(packets):
        if length > 0:
            waiting.setdefault((src, dst), []).append((seq + length, t + arrival_offset_s, push, i in cues))
            continue
        pending = waiting.get((dst, src))
        if not pending:
            continue
        covered = [s for s in pending if s[0] <= ack]
        if not covered:
            continue
        waiting[(dst, src)] = [s for s in pending if s[0] > ack]
        last = max(covered, key=lambda s: s[1])
        cue = max((s[1] for s in covered if s[3]), default=None)
        rows.append({"conn": f"{dst} > {src}", "t_s": t - t0, "segments": len(covered), "hold_ms": (t - last[1]) * 1e3, "push": last[2],
                     "cue_hold_ms": None if cue is None else (t - cue) * 1e3})  # fmt: skip
    return pl.DataFrame(rows, schema=ACK_SCHEMA)


def ecn_cues(packets: list[Packet]) -> set[int]:
    """The indices in ``packets`` of the data segments whose ECN bits ask a Linux receiver for an
    ACK at once (``tcp_ecn_accept_cwr``, ``tcp_data_ecn_check``; docs/model.md, "Linux's delayed
    ACK"): a segment with CWR, the first CE segment since the connection's last CWR, and a
    Not-ECT segment after ECT ones (a retransmission). None without ECN (no ECT segment)."""
    demand_cwr: dict[tuple[str, str], bool] = {}  # a CE segment arrived, no CWR since
    ect_seen: set[tuple[str, str]] = set()
    cues = set()
    for i, p in enumerate(packets):
        if p.length == 0:
            continue
        conn = (p.src, p.dst)
        if p.cwr:
            demand_cwr[conn] = False
        if p.cwr or (p.ecn == CE and not demand_cwr.get(conn)) or (p.ecn == NOT_ECT and conn in ect_seen):
            cues.add(i)
        if p.ecn == CE:
            demand_cwr[conn] = True
        if p.ecn != NOT_ECT:
            ect_seen.add(conn)
    return cues


def push_share(packets: list[Packet], start_s: float, end_s: float, t0: float = 0.0) -> float | None:
    """The share of the data segments stamped in [``start_s``, ``end_s``] from ``t0`` that carry
    PSH (None if there are none): Linux sets it on the last segment of a TSO chunk sent whole
    (docs/linux.md), the simulator with `tcp.tso_segs`."""
    data = [p.push for p in packets if p.length > 0 and start_s <= p.t - t0 <= end_s]
    return sum(data) / len(data) if data else None


def first_windows(packets: list[Packet], init_cwnd: int) -> list[Packet]:
    """The data segments of every connection's first window, in the order of ``packets`` (a
    capture in time order, :func:`read_packets`): its first ``init_cwnd`` segments, counted in
    the size of its first data segment from that segment's sequence number, each once (a
    retransmission is left out). Captured past a bottleneck, this is the order in which the
    flows' first windows went through it, which decides where their slow starts end when they
    start together (docs/linux.md, "Live video")."""
    first: dict[tuple[str, str], tuple[int, int]] = {}  # connection -> its first data segment's (seq, length)
    seen: set[tuple[str, str, int]] = set()
    out = []
    for p in packets:
        if p.length == 0:
            continue
        seq0, mss = first.setdefault((p.src, p.dst), (p.seq, p.length))
        if seq0 <= p.seq < seq0 + init_cwnd * mss and (p.src, p.dst, p.seq) not in seen:
            seen.add((p.src, p.dst, p.seq))
            out.append(p)
    return out


def merged_first_windows(captures: list[list[Packet]], init_cwnd: int) -> list[int]:
    """:func:`first_windows` over captures that each hold one flow's packets, stamped at one point
    of the path (the simulator's receivers' access links, stamped as a packet leaves the router):
    the flows' indices in ``captures``, in the order of the stamps."""
    return [i for _, i in sorted((p.t, i) for i, packets in enumerate(captures) for p in first_windows(packets, init_cwnd))]


def order_text(flows: list[int]) -> str:
    """Flow ids in order (:func:`first_windows`' senders) as runs, "flow x segments": ``[0, 1, 1, 0]``
    is "0x1 1x2 0x1"."""
    runs: list[list[int]] = []
    for f in flows:
        if runs and runs[-1][0] == f:
            runs[-1][1] += 1
        else:
            runs.append([f, 1])
    return " ".join(f"{f}x{n}" for f, n in runs)


def summary(acks: pl.DataFrame, start_s: float, end_s: float, data_push_share: float | None = None) -> dict[str, Any]:
    """What the ACKs sent in [``start_s``, ``end_s``] say of the receivers' policy: how many there
    were and the segments each covered (mean); the share that covered one segment; of those, the
    share sent at once (:data:`AT_ONCE_S`), of the ones sent at once the share whose segment
    carried PSH, of the lone segments that carried PSH the share acknowledged at once (Linux's
    rule, whatever else sends an ACK at once: quickack mode acknowledges every segment), and the
    median hold of those not sent at once (ms); the ACKs covering an ECN cue
    (:func:`ecn_cues`) and the share of them sent at once after it. None where there is nothing
    to count. ``data_push_share`` (:func:`push_share`) is carried along."""
    acks = acks.filter(pl.col("t_s").is_between(start_s, end_s))
    lone = acks.filter(pl.col("segments") == 1)
    at_once = lone.filter(pl.col("hold_ms") < AT_ONCE_S * 1e3)
    pushed_at_once = at_once.filter(pl.col("push"))
    held = lone.filter(pl.col("hold_ms") >= AT_ONCE_S * 1e3)["hold_ms"].to_list()
    cued = acks.filter(pl.col("cue_hold_ms").is_not_null())
    share = lambda part, whole: part.height / whole.height if whole.height else None  # noqa: E731
    return {
        "acks": acks.height,
        "segments_per_ack": float(acks["segments"].mean()) if acks.height else None,  # type: ignore[arg-type]
        "lone_share": share(lone, acks),
        "lone_at_once_share": share(at_once, lone),
        "at_once_push_share": share(pushed_at_once, at_once),
        "push_at_once_share": share(pushed_at_once, lone.filter(pl.col("push"))),
        "lone_held_median_ms": statistics.median(held) if held else None,
        "cue_acks": cued.height,
        "cue_at_once_share": share(cued.filter(pl.col("cue_hold_ms") < AT_ONCE_S * 1e3), cued),
        "data_push_share": data_push_share,
    }


def summary_text(s: dict[str, Any]) -> str:
    """:func:`summary` in a line."""
    pct = lambda v: "-" if v is None else f"{100 * v:.0f} %"  # noqa: E731
    if not s["acks"]:
        return "no ACK covered new data"
    return (
        (f"{pct(s['data_push_share'])} of the data segments with PSH; " if s.get("data_push_share") is not None else "")
        + f"{s['acks']} ACKs covering new data, {s['segments_per_ack']:.2f} segments each; {pct(s['lone_share'])} covered one segment,"
        f" {pct(s['lone_at_once_share'])} of those sent at once (within {AT_ONCE_S * 1e3:g} ms; {pct(s['at_once_push_share'])} of these on a segment with PSH;"
        f" {pct(s['push_at_once_share'])} of the lone segments with PSH acknowledged at once)"
        + (f", the others after a median {s['lone_held_median_ms']:.1f} ms" if s["lone_held_median_ms"] is not None else "")
        + (f"; {s['cue_acks']} covered an ECN cue, {pct(s['cue_at_once_share'])} of them sent at once after it" if s.get("cue_acks") else "")
    )
