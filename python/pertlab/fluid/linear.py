"""Linearisation of PERT/RED's DDE (14) about its equilibrium (9).

With a = N/(R^2 C) (= p* W* / (2R)), G = L_PERT C / (2N) and kappa = -K =
-ln(alpha)/delta, the characteristic equation of (14) linearised is::

    "paper"   (W(t) W(t-R)):  s + a (1 + e^{-sR}) + G kappa e^{-sR} / (s (s + kappa)) = 0
    "current" (W(t)^2):       s + 2a             + G kappa e^{-sR} / (s (s + kappa)) = 0
    "delayed" (W(t-R)^2):     s + 2a e^{-sR}     + G kappa e^{-sR} / (s (s + kappa)) = 0

"current" is the approximation W(t-R) = W(t) under which Theorem 1 is
proved (as in Hollot et al.). :func:`rightmost_root` finds the root with the
largest real part (Newton's method from a grid of starting points), and
:func:`linear_boundary_rtt` the R at which it crosses the imaginary axis, i.e.
the exact local stability boundary of each form, to set beside Theorem 1's
sufficient bound (171 ms for Figure 13). Used by docs/fluid.md and the
sigcomm07-fig13 reproduction.
"""

from __future__ import annotations

import cmath
import math

import numpy as np

from .models import bisect

__all__ = ["characteristic", "rightmost_root", "linear_boundary_rtt"]


def characteristic(s: complex, rtt: float, capacity: float, flows: int, l_pert: float, kappa: float,
                   decrease: str = "paper") -> complex:  # fmt: skip
    """The characteristic function Delta(s) of the linearised (14)."""
    a = flows / (rtt * rtt * capacity)
    g = l_pert * capacity / (2.0 * flows)
    e = cmath.exp(-s * rtt)
    loop = g * kappa * e / (s * (s + kappa))
    if decrease == "paper":
        return s + a * (1.0 + e) + loop
    if decrease == "current":
        return s + 2.0 * a + loop
    if decrease == "delayed":
        return s + 2.0 * a * e + loop
    raise ValueError(f"decrease: must be 'paper', 'current' or 'delayed', got {decrease!r}")


def rightmost_root(rtt: float, capacity: float, flows: int, l_pert: float, kappa: float, decrease: str = "paper",
                   max_imag: float = 60.0) -> complex:  # fmt: skip
    """The root of Delta with the largest real part among those found by
    Newton's method started on a grid of the strip -5 < Re s < 5, 0 < Im s < max_imag."""
    best: complex | None = None

    def f(s: complex) -> complex:
        return characteristic(s, rtt, capacity, flows, l_pert, kappa, decrease)

    for re0 in np.linspace(-5.0, 5.0, 6):
        for im0 in np.linspace(0.25, max_imag, 40):
            s = complex(re0, im0)
            for _ in range(80):
                fs = f(s)
                h = 1e-7 * max(1.0, abs(s))
                d = (f(s + h) - fs) / h
                if d == 0:
                    break
                step = fs / d
                s -= step
                if abs(step) < 1e-12 * max(1.0, abs(s)):
                    break
            if abs(f(s)) < 1e-8 and abs(s) > 1e-9 and math.isfinite(s.real) and abs(s.real) < 1e3:
                if best is None or s.real > best.real:
                    best = s
    if best is None:
        raise ArithmeticError("no root found")
    return best


def linear_boundary_rtt(capacity: float, flows: int, l_pert: float, kappa: float, decrease: str = "paper",
                        lo: float = 0.1, hi: float = 0.5) -> float:  # fmt: skip
    """The R at which the rightmost root of the linearised (14) crosses Re s = 0."""
    return bisect(lambda r: rightmost_root(r, capacity, flows, l_pert, kappa, decrease).real, lo, hi, tol=1e-6)
