"""Quantities of the fluid commands: capacities in packets/s, times in seconds.

Capacities are written ``100pkt/s`` (also ``100pps``, ``100 pkts/s``; a plain
number is packets per second) or as a bit rate (``10Mbps``) with a packet size
(``1250B``): C = rate / (8 x size). Times are ``160ms``, ``0.1ms``, ``60s``
(a plain number is seconds). Bit rates, sizes and times are read by
:mod:`pertlab.units` when the package has it; otherwise by the small fallback
parser below (same forms, decimal prefixes).
"""

from __future__ import annotations

import re

__all__ = ["parse_capacity", "parse_seconds", "parse_bytes"]

_PKT = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(pkt/s|pkts/s|packets/s|pps|pkt/sec)?\s*$")

try:  # the package's parser (python/pertlab/units.py)
    from ..units import parse_rate as _rate_bps
    from ..units import parse_size as _size_bytes
    from ..units import parse_time as _time_ns
except ImportError:  # pragma: no cover - only before the units module exists
    _Q = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-zµ/]*)\s*$")
    _P = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}

    def _split(v: object, field: str | None, kind: str) -> tuple[float, str]:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v), ""
        m = _Q.match(str(v))
        if not m:
            raise ValueError(f"{field}: cannot read {v!r} as a {kind}")
        return float(m.group(1)), m.group(2)

    def _rate_bps(v: object, field: str | None = None) -> int:
        n, u = _split(v, field, "rate")
        for pre, f in _P.items():
            if u in (pre + "bps", pre + "bit/s"):
                return round(n * f)
            if u in (pre + "Bps", pre + "B/s"):
                return round(8 * n * f)
        raise ValueError(f"{field}: cannot read {v!r} as a rate; write e.g. 10Mbps")

    def _size_bytes(v: object, field: str | None = None) -> int:
        n, u = _split(v, field, "size")
        if u in ("", "B"):
            return round(n)
        if u.endswith("B") and u[:-1] in _P:
            return round(n * _P[u[:-1]])
        raise ValueError(f"{field}: cannot read {v!r} as a size; write e.g. 1250B")

    def _time_ns(v: object, field: str | None = None) -> int:
        n, u = _split(v, field, "time")
        f = {"": 1e9, "s": 1e9, "ms": 1e6, "us": 1e3, "µs": 1e3, "ns": 1.0, "min": 60e9}.get(u)
        if f is None:
            raise ValueError(f"{field}: cannot read {v!r} as a time; write e.g. 160ms")
        return round(n * f)


def parse_seconds(value: object, field: str) -> float:
    """``"160ms"`` -> 0.16; a plain number is seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return _time_ns(value, field) / 1e9


def parse_bytes(value: object, field: str) -> int:
    """``"1250B"`` -> 1250."""
    return _size_bytes(value, field)


def parse_capacity(value: object, packet_size: object = None, field: str = "capacity", default_size: int = 1250) -> float:
    """Packets per second from ``"100pkt/s"``, ``100`` or ``"10Mbps"`` (with ``packet_size``,
    1 to :data:`pertlab.scenario.MAX_PACKET_BYTES` bytes; ``default_size`` when None).

    A packet size serves only to convert a bit rate: given with a capacity in packets/s it
    would be ignored, so the pair is refused (``packet_size, capacity: ...``)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        pps = float(value)
    elif m := _PKT.match(str(value)):
        pps = float(m.group(1))
    else:
        bps = _rate_bps(value, field)
        size = parse_bytes(default_size if packet_size is None else packet_size, "packet_size")
        from ..scenario import MAX_PACKET_BYTES  # here only: pertlab.scenario costs 0.2 s to import

        if not 1 <= size <= MAX_PACKET_BYTES:
            raise ValueError(f"packet_size: must be 1 to {MAX_PACKET_BYTES} bytes, got {packet_size!r}")
        return bps / (8.0 * size)
    if packet_size is not None:
        raise ValueError(f"packet_size, {field}: a packet size only converts a bit-rate {field} to packets/s, and "
                         f"{value!r} is in packets/s already; drop the packet size, or give the {field} as a bit rate "
                         "(10Mbps)")  # fmt: skip
    return pps
