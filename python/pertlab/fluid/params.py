"""Domain checks shared by the fluid models and the theorem calculators.

Every check raises :class:`ValueError` whose message starts with the
parameter's name (``flows: must be a positive integer, got 0``), the
convention of every pertlab error; the CLI maps the name to its flag.
"""

from __future__ import annotations

import math
import sys

__all__ = ["positive", "non_negative", "count", "open_unit", "unit_interval", "ordered", "state", "NoEquilibrium",
           "pert_equilibrium", "bound_text", "MAX_FLOWS"]  # fmt: skip


def _num(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name}: must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name}: must be finite, got {value!r}")
    return v


def positive(name: str, value: object, unit: str = "") -> float:
    """A finite number > 0 whose reciprocal is finite too: a subnormal float (below
    ``sys.float_info.min``, 2.2e-308) is refused, as 1 / C of a capacity of 1e-320 pkt/s would
    be infinite (found by make fuzz: an infinite queueing delay, written as null)."""
    v = _num(name, value)
    if v <= 0:
        raise ValueError(f"{name}: must be positive, got {v:g}{unit}")
    if v < sys.float_info.min:
        raise ValueError(f"{name}: must be at least {sys.float_info.min:.3g}{unit} (a normal float, whose reciprocal is finite), got {v:g}{unit}")
    return v


def non_negative(name: str, value: object, unit: str = "") -> float:
    """A finite number >= 0."""
    v = _num(name, value)
    if v < 0:
        raise ValueError(f"{name}: must be zero or positive, got {v:g}{unit}")
    return v


#: The most flows a model takes: the packet simulator's bound (a u32), far beyond any path's.
MAX_FLOWS = 2**32 - 1


def count(name: str, value: object) -> int:
    """An integer from 1 to :data:`MAX_FLOWS` (a number of flows)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or float(value) != int(value):
        raise ValueError(f"{name}: must be a positive integer, got {value!r}")
    if not 1 <= int(value) <= MAX_FLOWS:
        raise ValueError(f"{name}: must be a positive integer (at least one flow, at most {MAX_FLOWS}), got {int(value)}")
    return int(value)


def state(name: str, value: object, what: str) -> tuple[float, ...]:
    """A model's initial point: a list or tuple of finite numbers, as many as ``what`` names
    (``"W, T_q, filtered T_q"``)."""
    size = len(what.split(", "))
    if not isinstance(value, (list, tuple)) or len(value) != size:
        raise ValueError(f"{name}: needs {size} values ({what}), got {value!r}")
    return tuple(_num(f"{name}[{i}]", v) for i, v in enumerate(value))


def open_unit(name: str, value: object) -> float:
    """A number strictly inside (0, 1), e.g. the EWMA weight alpha."""
    v = _num(name, value)
    if not 0 < v < 1:
        raise ValueError(f"{name}: must lie strictly between 0 and 1, got {v:g}")
    return v


def unit_interval(name: str, value: object) -> float:
    """A probability in (0, 1]."""
    v = _num(name, value)
    if not 0 < v <= 1:
        raise ValueError(f"{name}: must lie in (0, 1], got {v:g}")
    return v


def ordered(lo_name: str, lo: float, hi_name: str, hi: float, unit: str = "") -> None:
    """Require ``lo < hi``; the message names both parameters, as the field of the error too
    (either may be the one given)."""
    if not lo < hi:
        raise ValueError(f"{lo_name}, {hi_name}: {lo_name} must be below {hi_name} ({lo_name} = {lo:g}{unit}, {hi_name} = {hi:g}{unit})")


def bound_text(x: float, up: bool = True, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits rounded up (``up``) or down, so that a printed lower
    (upper) bound is itself allowed: 44.194 -> "44.2" up to three digits, not "44.19"."""
    if not (math.isfinite(x) and x > 0):
        return f"{x:g}"
    scale = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    v = x / scale
    n = math.ceil(v * (1 - 1e-12)) if up else math.floor(v * (1 + 1e-12))
    return f"{n * scale:.{digits}g}"


class NoEquilibrium(ValueError):
    """The operating point has no equilibrium with the probability p in [0, 1]: even p = 1, the
    flows' smallest stationary windows, sends more than the link carries at that RTT. The
    message starts with the parameters that set the point (``capacity, rtt, flows: ...``)."""


def pert_equilibrium(capacity: float, rtt: float, flows: int, beta: float | None = None, target: float | None = None) -> tuple[float, float]:
    """(W*, p*) of the PERT models' equilibrium (9): W* = R C / N, p* = 1 / (beta W*^2), with
    R = ``rtt`` (+ ``target``, PERT/PI's queueing delay, when given) and ``beta`` the decrease
    factor (None: the theorems' fixed 1/2, not a parameter). Raises :class:`NoEquilibrium` when
    p* > 1, i.e. W* < sqrt(1/beta): the N flows cannot load a link of C pkt/s and that R to its
    equilibrium; the message names the parameters that set the point and the value of each that
    would."""
    b = 0.5 if beta is None else beta
    R = rtt + (target or 0.0)
    w = R * capacity / flows
    p = 1.0 / (b * w * w)
    if p <= 1.0:
        return w, p
    w_min = math.sqrt(1.0 / b)
    r_text = f"R = rtt + target = {R:.4g} s" if target else f"R = rtt = {R:.4g} s"
    n_max = math.floor(R * capacity / w_min)
    needs = [f"capacity >= {bound_text(w_min * flows / R)} pkt/s", f"rtt >= {bound_text(w_min * flows / capacity - (target or 0.0))} s"]
    names = ["capacity", "rtt", "flows"]
    if target:
        names.append("target")
        needs.append(f"target >= {bound_text(w_min * flows / capacity - rtt)} s")
    if beta is not None:
        names.append("beta")
        if 1.0 / (w * w) <= 1.0:
            needs.append(f"beta >= {bound_text(1.0 / (w * w))}")
    if n_max >= 1:
        needs.append(f"flows <= {n_max}")
    alternatives = ", or ".join(needs) + ("" if n_max >= 1 else " (even one flow is too many for this capacity and RTT)")
    raise NoEquilibrium(
        f"{', '.join(names)}: no equilibrium with p in [0, 1]: {flows} flows over C = {capacity:.4g} pkt/s and "
        f"{r_text} have W* = R C / N = {w:.3g} packets and would need p* = 1/(beta W*^2) = {p:.3g} > 1; "
        f"an equilibrium needs W* >= sqrt(1/beta) = {w_min:.3g}: {alternatives}"
    )
