"""Quantities of the fluid commands: capacities in packets/s, times in seconds.

Capacities are written ``100pkt/s`` (also ``100pps``, ``100 pkts/s``; a plain
number is packets per second) or as a bit rate (``10Mbps``) with a packet size
(``1250B``): C = rate / (8 x size). Times are ``160ms``, ``0.1ms``, ``60s``
(a plain number is seconds). Bit rates, sizes and times are read by
:mod:`pertlab.units`.
"""

from __future__ import annotations

import re

from ..units import MAX_PACKET_BYTES
from ..units import parse_rate as _rate_bps
from ..units import parse_size as _size_bytes
from ..units import parse_time as _time_ns

__all__ = ["parse_capacity", "parse_seconds", "parse_bytes"]

_PKT = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(pkt/s|pkts/s|packets/s|pps|pkt/sec)?\s*$")

#: The number at the front of a quantity (``1e-300`` of ``1e-300s``).
_NUMBER = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


def parse_seconds(value: object, field: str) -> float:
    """``"160ms"`` -> 0.16; a plain number is seconds. Times are read to the nanosecond, so a
    time that is not zero but rounds to 0 ns (``1e-300s``) is an error, not 0."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    ns = _time_ns(value, field)
    if ns == 0 and (m := _NUMBER.match(str(value))) and float(m.group(1)) != 0:
        raise ValueError(f"{field}: {value} is below the nanosecond times are read to; write at least 1ns")
    return ns / 1e9


def parse_bytes(value: object, field: str) -> int:
    """``"1250B"`` -> 1250."""
    return _size_bytes(value, field)


def parse_capacity(value: object, packet_size: object = None, field: str = "capacity", default_size: int = 1250) -> float:
    """Packets per second from ``"100pkt/s"``, ``100`` or ``"10Mbps"`` (with ``packet_size``,
    1 to :data:`pertlab.units.MAX_PACKET_BYTES` bytes; ``default_size`` when None).

    A packet size serves only to convert a bit rate: given with a capacity in packets/s it
    would be ignored, so the pair is refused (``packet_size, capacity: ...``)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        pps = float(value)
    elif m := _PKT.match(str(value)):
        pps = float(m.group(1))
    else:
        bps = _rate_bps(value, field)
        size = parse_bytes(default_size if packet_size is None else packet_size, "packet_size")
        if not 1 <= size <= MAX_PACKET_BYTES:
            raise ValueError(f"packet_size: must be 1 to {MAX_PACKET_BYTES} bytes, got {packet_size!r}")
        return bps / (8.0 * size)
    if packet_size is not None:
        raise ValueError(f"packet_size, {field}: a packet size only converts a bit-rate {field} to packets/s, and "
                         f"{value!r} is in packets/s already; drop the packet size, or give the {field} as a bit rate "
                         "(10Mbps)")  # fmt: skip
    return pps
