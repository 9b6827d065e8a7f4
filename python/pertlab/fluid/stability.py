"""The stability theorems of the PERT paper as calculators.

- :func:`theorem1`: PERT/RED, Theorem 1 of Bhandarkar et al., SIGCOMM 2007:
  L_PERT and K (10), condition (11) with w_g from (12), the equilibrium (9) and
  the minimum sampling interval delta of (13).
- :func:`theorem2`: PERT/PI, Theorem 2: m and K of (21), and the bilinear
  discretisation (18) of the PI law with the erratum on (19).
- :func:`boundary_rtt`: the largest R+ that satisfies (11) (171 ms for the
  Figure 13 parameters).

All take seconds, packets and packets per second and return plain dataclasses
(``.as_dict()`` for JSON).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Callable

from . import params as chk

__all__ = ["Theorem1", "Theorem2", "theorem1", "theorem2", "min_delta", "boundary_rtt", "pi_discrete"]


@dataclass(frozen=True)
class Theorem1:
    """Theorem 1 evaluated at the bounds R+ (``rtt_max_s``) and N- (``flows_min``).

    ``stable``: condition (11) holds (sufficient for local stability of (8) for
    all N >= N-, R* <= R+). ``margin`` = rhs - lhs of (11) (>= 0 when it holds).
    ``equilibrium_within_pmax``: p* <= p_max, which the paper notes is also
    necessary (for the linear law it is not; see docs/fluid.md).
    ``min_delta_s``: the smallest sampling interval meeting (13); 0 when (11)
    holds for every delta (lhs <= 1).
    """

    stable: bool
    margin: float
    lhs: float
    rhs: float
    l_pert: float
    k: float
    w_g: float
    w_star: float
    p_star: float
    tq_star_s: float
    equilibrium_within_pmax: bool
    min_delta_s: float
    delta_s: float
    rtt_max_s: float
    flows_min: int
    capacity_pps: float
    boundary_rtt_s: float

    def as_dict(self) -> dict:
        return asdict(self)


def _check_red(capacity: float, rtt_max: float, flows_min: int, pmax: float, tmin: float, tmax: float,
               alpha: float) -> tuple[float, float, int, float]:  # fmt: skip
    C = chk.positive("capacity", capacity, " pkt/s")
    R = chk.positive("rtt", rtt_max, " s")
    N = chk.count("flows", flows_min)
    chk.unit_interval("pmax", pmax)
    chk.non_negative("tmin", tmin, " s")
    chk.positive("tmax", tmax, " s")
    chk.ordered("tmin", tmin, "tmax", tmax, " s")
    chk.open_unit("alpha", alpha)
    return C, R, N, pmax / (tmax - tmin)


def _wg(C: float, R: float, N: int) -> float:
    """(12): w_g = 0.1 min(2 N- / (R+^2 C), 1 / R+)."""
    return 0.1 * min(2.0 * N / (R * R * C), 1.0 / R)


def _lhs(L: float, C: float, R: float, N: int) -> float:
    """Left-hand side of (11): L_PERT R+^3 C^2 / (2 N-)^2."""
    return L * R**3 * C * C / (2.0 * N) ** 2


def min_delta(capacity: float, rtt_max: float, flows_min: int, pmax: float = 0.1, tmin: float = 0.05,
              tmax: float = 0.1, alpha: float = 0.99) -> float:  # fmt: skip
    """(13): delta >= -ln(alpha) / (4 N-^2 w_g) sqrt(L^2 R+^6 C^4 - 16 N-^4).

    Returns 0 when the square root's argument is not positive: then (11)
    holds for any delta."""
    C, R, N, L = _check_red(capacity, rtt_max, flows_min, pmax, tmin, tmax, alpha)
    arg = L * L * R**6 * C**4 - 16.0 * N**4
    if arg <= 0:
        return 0.0
    return -math.log(alpha) / (4.0 * N * N * _wg(C, R, N)) * math.sqrt(arg)


def boundary_rtt(capacity: float, flows_min: int, pmax: float = 0.1, tmin: float = 0.05, tmax: float = 0.1,
                 alpha: float = 0.99, delta: float = 1e-4) -> float:  # fmt: skip
    """The R+ at which (11) holds with equality (the theorem's stability boundary)."""
    C, _, N, L = _check_red(capacity, 1.0, flows_min, pmax, tmin, tmax, alpha)
    K = math.log(alpha) / chk.positive("delta", delta, " s")

    def gap(R: float) -> float:
        return math.sqrt((_wg(C, R, N) / K) ** 2 + 1.0) - _lhs(L, C, R, N)

    hi = 1.0
    while gap(hi) > 0:
        hi *= 2.0
    # (11) holds at small R+; on very fast links only below a nanosecond (1e30 pkt/s: about
    # 1e-17 s), so the lower end goes down until it does.
    lo = 1e-9
    while gap(lo) <= 0:
        if lo < 1e-300:
            raise ValueError(f"capacity: {C:g} pkt/s is beyond what Theorem 1 can evaluate: (11) fails at every R+ down to 1e-300 s")
        lo /= 1024.0
    return _sign_change(gap, lo, hi)


def bracket_end_root(flo: float, fhi: float, lo: float, hi: float) -> float | None:
    """``lo`` or ``hi`` when ``f`` is zero there (``flo``, ``fhi``), else None; raises when
    ``f`` has no sign change on ``[lo, hi]``. The check every root finder here starts with."""
    if flo == 0:
        return lo
    if fhi == 0:
        return hi
    if (flo > 0) == (fhi > 0):
        raise ValueError("no sign change on the bracket")
    return None


def _sign_change(f: Callable[[float], float], lo: float, hi: float) -> float:
    """The float at which a continuous ``f`` changes sign on ``[lo, hi]``: the bracket is halved
    until no float lies between its ends. Plain Python rather than scipy's brentq (which
    :func:`pertlab.fluid.models.bisect` uses): importing scipy.optimize costs about 0.3 s, most of
    the start-up of ``pertlab stability`` (issue 21), and about 60 halvings of a closed form cost
    microseconds. The result is as close to the root as a float can be."""
    flo, fhi = f(lo), f(hi)
    end = bracket_end_root(flo, fhi, lo, hi)
    if end is not None:
        return end
    while True:
        mid = lo + (hi - lo) / 2
        if not lo < mid < hi:
            return lo if abs(flo) <= abs(fhi) else hi
        fmid = f(mid)
        if fmid == 0:
            return mid
        if (fmid > 0) == (flo > 0):
            lo, flo = mid, fmid
        else:
            hi, fhi = mid, fmid


def theorem1(capacity: float, rtt_max: float, flows_min: int, pmax: float = 0.1, tmin: float = 0.05,
             tmax: float = 0.1, alpha: float = 0.99, delta: float = 1e-4) -> Theorem1:  # fmt: skip
    """Evaluate Theorem 1 (10)-(13) for capacity C (pkt/s), R+ (s), N-. Raises
    :class:`~pertlab.fluid.params.NoEquilibrium` when the equilibrium (9) would need p* > 1.

    Example (Figure 13, R+ = 160 ms): ``theorem1(100, 0.16, 5).stable`` is True,
    and the boundary R+ is 171 ms.
    """
    C, R, N, L = _check_red(capacity, rtt_max, flows_min, pmax, tmin, tmax, alpha)
    d = chk.positive("delta", delta, " s")
    K = math.log(alpha) / d
    wg = _wg(C, R, N)
    lhs = _lhs(L, C, R, N)
    rhs = math.sqrt((wg / K) ** 2 + 1.0)
    w, p = chk.pert_equilibrium(C, R, N)  # (9): W* = R C / N, p* = 2 N^2 / (R C)^2 <= 1, else NoEquilibrium
    return Theorem1(
        stable=lhs <= rhs,
        margin=rhs - lhs,
        lhs=lhs,
        rhs=rhs,
        l_pert=L,
        k=K,
        w_g=wg,
        w_star=w,
        p_star=p,
        tq_star_s=tmin + p / L,
        equilibrium_within_pmax=p <= pmax,
        min_delta_s=min_delta(C, R, N, pmax, tmin, tmax, alpha),
        delta_s=d,
        rtt_max_s=R,
        flows_min=N,
        capacity_pps=C,
        boundary_rtt_s=boundary_rtt(C, N, pmax, tmin, tmax, alpha, d),
    )


@dataclass(frozen=True)
class Theorem2:
    """Theorem 2 (21) for PERT/PI: the PI zero ``m`` (1/s) and gain ``k``;
    with a sampling interval, the coefficients of the discrete law (18):
    p(t) = p(t-1) + gamma (T_q(t) - T_q*) - beta (T_q(t-1) - T_q*)."""

    m: float
    k: float
    w_star: float
    p_star: float
    assumption_w_star_gg_2: bool
    rtt_max_s: float
    r_star_s: float
    flows_min: int
    capacity_pps: float
    delta_s: float | None = None
    gamma: float | None = None
    beta: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def pi_discrete(k: float, m: float, delta: float) -> tuple[float, float]:
    """(gamma, beta) of (18): gamma = K/m + K delta/2, beta = K/m - K delta/2.

    ERRATUM: (18), C(z) = (gamma z - beta)/(z - 1), gives
    p(t) - p(t-1) = gamma dT_q(t) - beta dT_q(t-1); the printed (19) swaps
    gamma and beta. The form from (18) (larger weight on the current sample,
    as in Hollot's router PI) is the one to implement."""
    return k / m + k * delta / 2.0, k / m - k * delta / 2.0


def theorem2(capacity: float, rtt_max: float, flows_min: int, r_star: float | None = None,
             delta: float | None = None) -> Theorem2:  # fmt: skip
    """(21): m = 2 N- / (R+^2 C), K = m |j R* m + 1| / (R+^3 C^2 / (2 N-)^2).

    ``r_star`` is the stationary RTT R* (default R+, the worst case). Raises
    :class:`~pertlab.fluid.params.NoEquilibrium` when p* = 2 / W*^2 would exceed 1.
    ``assumption_w_star_gg_2`` reports (20) as W* = R+ C / N- >= 10 (a
    judgement of "much larger than 2")."""
    C = chk.positive("capacity", capacity, " pkt/s")
    R = chk.positive("rtt", rtt_max, " s")
    N = chk.count("flows", flows_min)
    Rs = R if r_star is None else chk.positive("r_star", r_star, " s")
    w, p = chk.pert_equilibrium(C, R, N)  # W* = R+ C / N-, p* = 2 / W*^2 <= 1, else NoEquilibrium
    m = 2.0 * N / (R * R * C)
    k = m * abs(complex(1.0, Rs * m)) / (R**3 * C * C / (2.0 * N) ** 2)
    out = dict(m=m, k=k, w_star=w, p_star=p, assumption_w_star_gg_2=w >= 10.0, rtt_max_s=R,
               r_star_s=Rs, flows_min=N, capacity_pps=C)  # fmt: skip
    if delta is not None:
        d = chk.positive("delta", delta, " s")
        g, b = pi_discrete(k, m, d)
        out.update(delta_s=d, gamma=g, beta=b)
    return Theorem2(**out)  # type: ignore[arg-type]
