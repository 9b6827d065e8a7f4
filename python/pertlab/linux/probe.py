"""UDP probes across the testbed's path, to measure what the delay line does
(``ip netns exec NS python -m pertlab.linux.probe send|recv ...``).

- ``send``: ``count`` datagrams at ``rate`` per second (in batches every
  millisecond), each carrying its sequence number and its send time on
  CLOCK_REALTIME (the host's clock: namespaces share it); prints
  ``{"sent": N, "seconds": S}``.
- ``recv``: records each datagram's sequence number and one-way delay
  (the kernel's receive time stamp, SO_TIMESTAMPNS, minus the send time,
  microseconds); prints one JSON object ``{"seq": [...], "delay_us": [...]}``
  when its standard input closes.

The one-way delay includes the delay line's lateness (the time between a
packet's due time and its write), and the sender's time from its time stamp
to the delay line's read; not the receiver's wake-up.
"""

from __future__ import annotations

import argparse
import json
import select
import socket
import struct
import sys
import time

_HEADER = struct.Struct("!QQ")  # sequence number, send time (ns)
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
_TIMESPEC = struct.Struct("@qq")


def send(args: argparse.Namespace) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    pad = bytes(max(0, args.size - _HEADER.size))
    per_ms = args.rate / 1000.0
    t0 = time.monotonic()
    seq = 0
    while seq < args.count:
        due = int((time.monotonic() - t0) * 1000.0 * per_ms) + 1
        while seq < min(due, args.count):
            sock.sendto(_HEADER.pack(seq, time.time_ns()) + pad, (args.dst, args.port))
            seq += 1
        time.sleep(0.001)
    print(json.dumps({"sent": seq, "seconds": time.monotonic() - t0}), flush=True)


def recv(args: argparse.Namespace) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 23)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.bind((args.bind, args.port))
    sock.setblocking(False)
    seqs: list[int] = []
    delays: list[float] = []
    print("ready", flush=True)
    stdin = sys.stdin.buffer.raw  # type: ignore[attr-defined]
    while True:
        ready, _, _ = select.select([sock, stdin], [], [])
        if sock in ready:
            while True:
                try:
                    data, anc, _, _ = sock.recvmsg(2048, socket.CMSG_SPACE(_TIMESPEC.size))
                except BlockingIOError:
                    break
                now = time.time_ns()
                for level, kind, cdata in anc:
                    if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(cdata) >= _TIMESPEC.size:
                        sec, nsec = _TIMESPEC.unpack_from(cdata)
                        now = sec * 1_000_000_000 + nsec
                if len(data) >= _HEADER.size:
                    seq, sent = _HEADER.unpack_from(data)
                    seqs.append(seq)
                    delays.append((now - sent) / 1000.0)
        if stdin in ready and not stdin.read(4096):
            break
    print(json.dumps({"seq": seqs, "delay_us": delays}), flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m pertlab.linux.probe")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("--dst", required=True)
    s.add_argument("--port", type=int, default=5301)
    s.add_argument("--count", type=int, default=10000)
    s.add_argument("--rate", type=float, default=10000.0, help="datagrams per second")
    s.add_argument("--size", type=int, default=100, help="datagram payload, bytes")
    r = sub.add_parser("recv")
    r.add_argument("--bind", default="0.0.0.0")
    r.add_argument("--port", type=int, default=5301)
    args = ap.parse_args(argv)
    send(args) if args.cmd == "send" else recv(args)


if __name__ == "__main__":
    main()
