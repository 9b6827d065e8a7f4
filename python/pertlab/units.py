"""Quantities written the way people write them: "150Mbps", "60ms", "1500B".

The simulator core takes integers in base units (bit/s, nanoseconds, bytes);
these parsers turn human text into those integers and say clearly what they
accept when they cannot.

- Rates: ``150Mbps``, ``150 Mbit/s``, ``1Gbps``, ``10kbps``, ``12.5MB/s``,
  ``12.5MBps``. A lower-case ``b`` (``bps``, ``bit/s``) counts bits, an upper-case
  ``B`` (``Bps``, ``B/s``) counts bytes. Prefixes are decimal (k = 1e3,
  M = 1e6, G = 1e9, T = 1e12). A plain number (``1.5e6``) is bits per second.
- Times: ``60ms``, ``2s``, ``500us`` (or ``500µs``), ``10ns``, ``1min``. A plain
  number is seconds.
- Sizes: ``1500B``, ``64KB``, ``1MB`` (decimal), ``64KiB``, ``1MiB`` (binary).
  A plain number is bytes.

Other values written on the command line (``--vary``, ``--cc-param``) are read by
:func:`parse_value`: a number or boolean when they read as one, else the text.

Every parser takes an optional ``field``: when given, the error message starts
with it (``--bw: cannot read ...``), the convention of every pertlab error.
"""

from __future__ import annotations

import functools
import json
import math
import re
from fractions import Fraction
from typing import Any

__all__ = ["parse_rate", "parse_time", "parse_size", "parse_value", "format_rate", "format_size", "format_time"]

#: The largest packet: IPv4's 16-bit total length (RFC 791); the core holds packet sizes in u32.
#: Here, not in the scenario models, so that a command converting a bit rate to packets/s
#: (``pertlab stability``) need not import pydantic and the models for it (issue 21).
MAX_PACKET_BYTES = 65_535

_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_QUANTITY = re.compile(rf"^\s*(?P<num>{_NUMBER})\s*(?P<unit>[^\d\s][^\s]*)?\s*$")

_DECIMAL = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30}

_RATE_UNITS: dict[str, float] = {}
for _p, _m in _DECIMAL.items():
    for _suffix in ("bps", "bit/s", "b/s"):
        _RATE_UNITS[_p + _suffix] = _m
    for _suffix in ("Bps", "B/s"):
        _RATE_UNITS[_p + _suffix] = 8 * _m

_TIME_UNITS = {"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9, "sec": 1e9, "min": 60e9, "h": 3600e9}

_SIZE_UNITS: dict[str, float] = {"": 1, "B": 1}
for _p, _m in _DECIMAL.items():
    if _p:
        _SIZE_UNITS[_p + "B"] = _m
for _p, _m in _BINARY.items():
    _SIZE_UNITS[_p + "B"] = _m

_BASE = {"rate": "bit/s", "time": "ns", "size": "bytes"}

RATE_FORMS = "a number with a unit such as 150Mbps, 1Gbps, 10kbps, 100Mbit/s, 12.5MB/s, or a plain number of bit/s"
TIME_FORMS = "a number with a unit such as 60ms, 2s, 500us, 10ns, 1min, or a plain number of seconds"
SIZE_FORMS = "a number with a unit such as 1500B, 64KB, 64KiB, 1MB, or a plain number of bytes"


#: Units, the factor of a plain number, and the forms to write, per kind of quantity.
_KINDS: dict[str, tuple[dict[str, float], float, str]] = {
    "rate": (_RATE_UNITS, 1.0, RATE_FORMS), "time": (_TIME_UNITS, 1e9, TIME_FORMS), "size": (_SIZE_UNITS, 1.0, SIZE_FORMS),
}  # fmt: skip

#: The largest quantity the core holds (its integers are u64: bit/s, ns, bytes).
U64_MAX = 2**64 - 1


def _fail(field: str | None, message: str) -> ValueError:
    return ValueError(f"{field}: {message}" if field else message)


def _parse_kind(value: object, kind: str, field: str | None) -> int:
    """:func:`_parse` of a ``kind`` ("rate", "time", "size"); texts and numbers are remembered:
    scenarios repeat the same few quantities in every flow."""
    if isinstance(value, (str, int, float)):
        return _parse_remembered(value, kind, field)
    units, default, forms = _KINDS[kind]
    return _parse(value, units, default, kind, forms, field)


@functools.lru_cache(maxsize=1 << 16, typed=True)
def _parse_remembered(value: str | int | float, kind: str, field: str | None) -> int:
    """(Typed, so that True is not taken for a remembered 1.)"""
    units, default, forms = _KINDS[kind]
    return _parse(value, units, default, kind, forms, field)


def _parse(value: object, units: dict[str, float], default: float, kind: str, forms: str, field: str | None) -> int:
    """Split ``value`` into number and unit and return number x unit factor, rounded
    to an integer of the base unit (half away from zero).

    The arithmetic is exact (:class:`~fractions.Fraction` of the number as written),
    so ``"0.1s"`` is 100000000 ns and ``"18446744073709551615ns"`` is that many ns,
    where a float would round both."""
    too_large = f"{value!r} is too large: a {kind} is at most {U64_MAX} {_BASE[kind]}; write {forms}"
    if isinstance(value, bool):
        raise _fail(field, f"cannot read {value!r} as a {kind}; write {forms}")
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise _fail(field, f"a {kind} must be finite, got {value!r}; write {forms}")
        # repr() of a float is the shortest text that reads back as it: 0.06 is 6/100.
        number, factor = Fraction(repr(value)) if isinstance(value, float) else Fraction(value), default
    elif isinstance(value, str):
        m = _QUANTITY.match(value)
        unit = m.group("unit") if m else None
        if m is None or (unit is not None and unit not in units):
            hint = f" (unknown unit {unit!r})" if m is not None else ""
            raise _fail(field, f"cannot read {value!r} as a {kind}{hint}; write {forms}")
        factor = default if unit is None else units[unit]
        rough = float(m.group("num")) * factor
        if not abs(rough) < 2 * U64_MAX:  # also inf: "1e400", whose Fraction would be a huge integer
            raise _fail(field, too_large)
        if abs(rough) < 0.25:  # rounds to 0; "1e-999999" would make a huge Fraction
            return 0
        number = Fraction(m.group("num"))
    else:
        raise _fail(field, f"cannot read {value!r} as a {kind}; write {forms}")
    x = number * Fraction(factor)
    n = math.floor(abs(x) + Fraction(1, 2)) * (1 if x >= 0 else -1)
    if abs(n) > U64_MAX:
        raise _fail(field, too_large)
    return n


def parse_rate(value: object, field: str | None = None) -> int:
    """A rate in bit/s (integer). ``parse_rate("150Mbps") == 150_000_000``."""
    return _parse_kind(value, "rate", field)


def parse_time(value: object, field: str | None = None) -> int:
    """A time or duration in integer nanoseconds. ``parse_time("60ms") == 60_000_000``."""
    return _parse_kind(value, "time", field)


def parse_size(value: object, field: str | None = None) -> int:
    """A size in bytes (integer). ``parse_size("64KiB") == 65536``."""
    return _parse_kind(value, "size", field)


def format_rate(bps: float) -> str:
    """Shortest readable form of a rate: ``150Mbps``, ``1.5Gbps``, ``64kbps``."""
    for prefix, factor in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(bps) >= factor:
            return f"{bps / factor:g}{prefix}bps"
    return f"{bps:g}bps"


def format_size(n_bytes: float) -> str:
    """A size in binary units, three figures: ``1.5 GiB``, ``640 KiB``, ``512 B``."""
    for unit, factor in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n_bytes) >= factor:
            return f"{n_bytes / factor:.3g} {unit}"
    return f"{n_bytes:.0f} B"


def format_time(ns: float) -> str:
    """Shortest readable form of a time given in ns: ``60ms``, ``2s``, ``500us``."""
    for unit, factor in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(ns) >= factor:
            return f"{ns / factor:g}{unit}"
    return f"{ns:g}ns"


def parse_value(text: str) -> Any:
    """A command-line value: a number or boolean when it reads as one, else the text (units, names)."""
    try:
        return json.loads(text)
    except ValueError:
        return text
