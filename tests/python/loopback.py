"""A TCP transfer over loopback with a chosen congestion control: what the tests of the eBPF
controllers use to put a real connection through them."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Transfer:
    received: int
    #: The congestion control the socket reports after connecting (``TCP_CONGESTION``).
    cc: str
    #: ``ss -tin`` of the connection while it was open.
    ss: str


def transfer(cc: str, *, nbytes: int | None = None, seconds: float | None = None) -> Transfer:
    """Send ``nbytes``, or as much as goes through in ``seconds``, to a receiver on 127.0.0.1
    over a connection with ``TCP_CONGESTION=cc``; the receiver counts what arrives."""
    assert (nbytes is None) != (seconds is None), "give nbytes or seconds"
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    got = []

    def rx() -> None:
        conn, _ = srv.accept()
        n = 0
        while b := conn.recv(1 << 16):
            n += len(b)
        got.append(n)
        conn.close()

    t = threading.Thread(target=rx, daemon=True)
    t.start()
    s = socket.socket()
    try:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        s.connect(("127.0.0.1", port))
        read_back = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
        if nbytes is not None:
            s.sendall(b"\0" * nbytes)
        else:
            end, chunk = time.monotonic() + seconds, b"\0" * (1 << 16)
            while time.monotonic() < end:
                s.sendall(chunk)
        ss = subprocess.run(["ss", "-tin", "dst", f"127.0.0.1:{port}"], capture_output=True, text=True, check=True).stdout
    finally:
        s.close()
        t.join(10)
        srv.close()
    return Transfer(got[0], read_back, ss)
