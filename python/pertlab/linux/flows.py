"""Bulk TCP flows for the testbed, run inside a namespace with
``ip netns exec NS python -m pertlab.linux.flows send|recv ...``.

- ``recv``: accepts connections, counts bytes per connection and records the
  cumulative count every sample interval (on CLOCK_MONOTONIC, which all
  namespaces share), and with ``--log`` after every read as well (what a video
  client's playout is computed from); prints one JSON object when its standard
  input closes.
- ``send``: opens ``count`` connections with ``setsockopt(TCP_CONGESTION)``,
  one after the other (a handshake each), prints their ports, reads ``t0``
  (CLOCK_MONOTONIC) from its standard input (:func:`start`: the driver gives
  it once every sender is connected, so the flows start together whatever the
  count and the round trip), then
  sends as fast as the window allows until ``t0 + duration`` or until its
  standard input closes (the driver stopped the run, or died), or with
  ``--video-rate`` writes ``--segment`` bytes every ``segment / rate`` from
  ``t0`` on each connection (a live video source, ``TCP_NODELAY``), and samples
  TCP_INFO of each socket (cwnd, ssthresh, srtt, bytes acked, retransmits)
  every interval; prints one JSON object at the end. Its sockets linger 0 s
  (``SO_LINGER``): closing one, also when the process is killed, resets the
  connection instead of leaving an orphan that keeps retransmitting its
  unsent data (and keeps the eBPF ``pert`` loaded) for minutes.
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import subprocess
import sys
import threading
import time

# struct tcp_info offsets (include/uapi/linux/tcp.h), stable since 2.6 / 4.x.
_TCPI_LEN = 244
_OFF_CA_STATE = 1
_OFF_OPTIONS = 5
#: tcpi_options: the connection negotiated SACK.
_TCPI_OPT_SACK = 2
_OFF_RTT = 68
_OFF_SSTHRESH = 76
_OFF_CWND = 80
_OFF_TOTAL_RETRANS = 100
_OFF_BYTES_ACKED = 120
_OFF_MIN_RTT = 148
# Linux >= 4.10 (chrono stats): time busy sending, and the parts of it limited by the
# receiver's window and by the send buffer (us).
_OFF_BUSY_TIME = 168
_OFF_RWND_LIMITED = 176
_OFF_SNDBUF_LIMITED = 184
# Linux >= 6.7: retransmission timeouts over the connection's life (u16; tcpi_total_rto).
_OFF_TOTAL_RTO = 240


def tcp_info(sock: socket.socket) -> dict:
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCPI_LEN)
    u32 = lambda off: struct.unpack_from("I", raw, off)[0]  # noqa: E731
    return {
        "ca_state": raw[_OFF_CA_STATE],
        "sack": bool(raw[_OFF_OPTIONS] & _TCPI_OPT_SACK),
        "srtt_us": u32(_OFF_RTT),
        "ssthresh": u32(_OFF_SSTHRESH),
        "cwnd": u32(_OFF_CWND),
        "total_retrans": u32(_OFF_TOTAL_RETRANS),
        "bytes_acked": struct.unpack_from("Q", raw, _OFF_BYTES_ACKED)[0],
        "min_rtt_us": u32(_OFF_MIN_RTT),
        "busy_us": struct.unpack_from("Q", raw, _OFF_BUSY_TIME)[0],
        "rwnd_limited_us": struct.unpack_from("Q", raw, _OFF_RWND_LIMITED)[0],
        "sndbuf_limited_us": struct.unpack_from("Q", raw, _OFF_SNDBUF_LIMITED)[0],
        # None where the kernel's tcp_info ends before it (older than 6.7)
        "total_rto": struct.unpack_from("H", raw, _OFF_TOTAL_RTO)[0] if len(raw) >= _OFF_TOTAL_RTO + 2 else None,
    }


def _wait_stdin_eof() -> None:
    while sys.stdin.buffer.read(4096):
        pass


#: Seconds from the moment every sender is connected to t0, the flows' start: time for the
#: senders, blocked reading their standard input, to read it.
START_MARGIN_S = 0.2


def start(senders: list[tuple[subprocess.Popen, float]]) -> float:
    """Start connected ``send`` processes together: t0 is :data:`START_MARGIN_S` from now
    (CLOCK_MONOTONIC, shared by all namespaces), and each sender (started with a text pipe on
    its standard input, as :meth:`pertlab.linux.testbed.Testbed.popen` starts it, and past its
    ``ready`` line) is given t0 plus its offset, s. Returns t0."""
    t0 = time.monotonic() + START_MARGIN_S
    for sender, offset in senders:
        sender.stdin.write(f"{t0 + offset!r}\n")  # type: ignore[union-attr]
        sender.stdin.flush()  # type: ignore[union-attr]
    return t0


def recv(args: argparse.Namespace) -> None:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((args.bind, args.port))
    srv.listen(256)
    counts: dict[int, list[int]] = {}  # peer port -> [bytes]
    arrivals: dict[int, list[tuple[float, int]]] = {}  # peer port -> (time, bytes so far) after each read, with --log
    series: list[tuple[float, dict[int, int]]] = []
    lock = threading.Lock()

    def conn_loop(conn: socket.socket, port: int) -> None:
        cell = [0]
        log: list[tuple[float, int]] = []
        with lock:
            counts[port] = cell
            if args.log:
                arrivals[port] = log
        buf = bytearray(1 << 18)
        view = memoryview(buf)
        while True:
            try:
                n = conn.recv_into(view)
            except OSError:
                break
            if n <= 0:
                break
            cell[0] += n
            if args.log:
                log.append((time.monotonic(), cell[0]))
        conn.close()

    def accept_loop() -> None:
        while True:
            try:
                conn, peer = srv.accept()
            except OSError:
                return
            threading.Thread(target=conn_loop, args=(conn, peer[1]), daemon=True).start()

    def sampler() -> None:
        nxt = time.monotonic()
        while True:
            nxt += args.interval
            time.sleep(max(0.0, nxt - time.monotonic()))
            with lock:
                series.append((time.monotonic(), {p: c[0] for p, c in counts.items()}))

    threading.Thread(target=accept_loop, daemon=True).start()
    threading.Thread(target=sampler, daemon=True).start()
    print("ready", flush=True)
    _wait_stdin_eof()
    with lock:
        series.append((time.monotonic(), {p: c[0] for p, c in counts.items()}))
        out = {"series": [{"t": t, "bytes": {str(p): b for p, b in c.items()}} for t, c in series], "arrivals": {str(p): log for p, log in arrivals.items()}}
    print(json.dumps(out), flush=True)


def send(args: argparse.Namespace) -> None:
    socks = []
    for _ in range(args.count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, args.cc.encode())
        if args.video_rate:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.connect((args.dst, args.port))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    stop = threading.Event()

    def watch_stdin() -> None:
        _wait_stdin_eof()
        stop.set()

    print(json.dumps({"ready": ports}), flush=True)
    # Start together at t0, which the driver sends once every sender is connected (end of
    # input instead: the driver stopped or died; stop at once).
    line = sys.stdin.buffer.readline().strip()
    t0 = float(line) if line else time.monotonic()
    if not line:
        stop.set()
    threading.Thread(target=watch_stdin, daemon=True).start()
    stop.wait(max(0.0, t0 - time.monotonic()))
    end = t0 + args.duration
    chunk = b"\0" * (1 << 16)

    def pump(s: socket.socket) -> None:
        s.settimeout(0.2)
        while time.monotonic() < end and not stop.is_set():
            try:
                s.send(chunk)
            except socket.timeout:
                continue
            except OSError:
                return

    def write_video(s: socket.socket) -> None:
        """Segment i at t0 + i x segment / rate, or as soon as the socket takes it when behind."""
        s.settimeout(0.2)
        segment = b"\0" * args.segment
        interval = args.segment * 8 / args.video_rate
        i = 0
        while not stop.is_set() and (due := t0 + i * interval) < end:
            if stop.wait(max(0.0, due - time.monotonic())):
                return
            view = memoryview(segment)
            while view and not stop.is_set() and time.monotonic() < end:
                try:
                    view = view[s.send(view) :]
                except socket.timeout:
                    continue
                except OSError:
                    return
            i += 1

    threads = [threading.Thread(target=write_video if args.video_rate else pump, args=(s,), daemon=True) for s in socks]
    for t in threads:
        t.start()
    samples = []
    nxt = time.monotonic()
    while not stop.is_set():
        now = time.monotonic()
        if now >= end:
            break
        for i, s in enumerate(socks):
            try:
                info = tcp_info(s)
            except OSError:
                continue
            info["t"] = now
            info["port"] = ports[i]
            samples.append(info)
        nxt += args.interval
        stop.wait(max(0.0, min(nxt, end) - time.monotonic()))
    for t in threads:
        t.join(2)
    final = []
    for i, s in enumerate(socks):
        try:
            info = tcp_info(s)
        except OSError:
            info = {}
        info["port"] = ports[i]
        final.append(info)
        s.close()
    print(json.dumps({"ports": ports, "samples": samples, "final": final}), flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m pertlab.linux.flows")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("recv")
    r.add_argument("--bind", default="0.0.0.0")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--interval", type=float, default=0.1)
    r.add_argument("--log", action="store_true", help="record (time, bytes so far) after every read")
    s = sub.add_parser("send")
    s.add_argument("--dst", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--cc", required=True)
    s.add_argument("--count", type=int, default=1)
    s.add_argument("--duration", type=float, required=True)
    s.add_argument("--interval", type=float, default=0.1)
    s.add_argument("--video-rate", type=float, default=0.0, help="bit/s: a live video source on each connection instead of bulk data")
    s.add_argument("--segment", type=int, default=1448, help="bytes per video write")
    args = ap.parse_args(argv)
    (recv if args.cmd == "recv" else send)(args)


if __name__ == "__main__":
    main()
