"""Fluid models of window-based congestion control against an AQM.

One class per model, each with a validated frozen parameter set, the closed
form of its equilibrium and the right-hand side of its DDE:

- :class:`PertRed`: PERT emulating RED, the DDE (14) of Bhandarkar et al.,
  SIGCOMM 2007, Section 5.3 (the form the paper integrated for Figure 13).
- :class:`PertPi`: PERT emulating PI (Section 6): eqs. (8) with the PI law (16)
  on the queueing delay.
- :class:`TcpRed`: TCP against a RED router, Misra, Gong and Towsley (2000) as
  written by Hollot et al. and by the Tahiliani thesis (eqs. 5.1.1-5.1.4), with
  RED's EWMA (5.1.2), groups of flows that may leave and return.
- :class:`SurathkalTcpRed`: the thesis's modification (5.2.1), the decrease
  scaled by the marked fraction alpha_i.

Units: windows and queues in packets, times in seconds, capacity in packets
per second.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass, field
from typing import Callable, Literal

import numpy as np

from . import params as chk
from .params import NoEquilibrium
from .dde import Trajectory, check_steps, integrate
from .stability import bracket_end_root

__all__ = [
    "Equilibrium",
    "FlowGroup",
    "PertRed",
    "PertRedParams",
    "PertPi",
    "PertPiParams",
    "TcpRed",
    "TcpRedParams",
    "SurathkalTcpRed",
    "red_drop_probability",
    "pert_operating_point",
    "bisect",
]


@dataclass(frozen=True)
class Equilibrium:
    """A model's stationary point. ``w_star`` per flow (packets), ``p_star`` the
    drop/response probability, ``tq_star_s`` the queueing delay (seconds),
    ``r_star_s`` the round-trip time; ``q_star_pkts`` the queue where the model
    has one."""

    w_star: float
    p_star: float
    tq_star_s: float
    r_star_s: float
    q_star_pkts: float | None = None

    def as_dict(self) -> dict[str, float | None]:
        return asdict(self)


def bisect(f: Callable[[float], float], lo: float, hi: float, tol: float = 1e-13) -> float:
    """Root of a continuous ``f`` with a sign change on ``[lo, hi]`` (scipy's brentq)."""
    from scipy.optimize import brentq

    end = bracket_end_root(f(lo), f(hi), lo, hi)
    if end is not None:
        return end
    return float(brentq(f, lo, hi, xtol=tol * max(1.0, abs(lo), abs(hi)), rtol=1e-15, maxiter=500))


# --------------------------------------------------------------------------
# PERT/RED (Section 5)
# --------------------------------------------------------------------------

Decrease = Literal["paper", "current", "delayed"]


@dataclass(frozen=True)
class PertRedParams:
    """Parameters of PERT/RED, eqs. (10) and (14).

    ``rtt`` is the constant round-trip time R of (14) (the paper keeps
    R = R+); ``delta`` the sampling interval of the LPF (6); ``beta`` the
    window decrease factor (Section 5 uses 0.5; PERT's early response is 0.35).
    ``decrease`` chooses the product in the window equation: ``"paper"`` is
    W(t) W(t-R) as printed in (14); ``"current"`` is W(t)^2, the approximation
    under which Theorem 1 is derived (W(t-R) replaced by W(t)); ``"delayed"`` is
    W(t-R)^2 (W(t) replaced by W(t-R)). See docs/fluid.md for what each gives.
    """

    capacity: float
    rtt: float
    flows: int
    pmax: float = 0.1
    tmin: float = 0.05
    tmax: float = 0.1
    alpha: float = 0.99
    delta: float = 1e-4
    beta: float = 0.5
    decrease: Decrease = "paper"
    initial: tuple[float, float, float] = (1.0, 1.0, 1.0)

    def __post_init__(self) -> None:
        chk.positive("capacity", self.capacity, " pkt/s")
        chk.positive("rtt", self.rtt, " s")
        chk.count("flows", self.flows)
        chk.unit_interval("pmax", self.pmax)
        chk.non_negative("tmin", self.tmin, " s")
        chk.positive("tmax", self.tmax, " s")
        chk.ordered("tmin", self.tmin, "tmax", self.tmax, " s")
        chk.open_unit("alpha", self.alpha)
        chk.positive("delta", self.delta, " s")
        chk.open_unit("beta", self.beta)
        if self.decrease not in ("paper", "current", "delayed"):
            raise ValueError(f"decrease: must be 'paper', 'current' or 'delayed', got {self.decrease!r}")
        chk.state("initial", self.initial, "W, T_q, filtered T_q")

    @property
    def l_pert(self) -> float:
        """L_PERT = p_max / (T_max - T_min), eq. (10)."""
        return self.pmax / (self.tmax - self.tmin)

    @property
    def k(self) -> float:
        """K = ln(alpha) / delta, eq. (10) (negative: the LPF pole)."""
        return math.log(self.alpha) / self.delta


class FluidModel:
    """Common interface: ``names``, ``initial_state``, ``max_delay``, ``rhs``,
    ``equilibrium``, ``outputs`` and :meth:`simulate`."""

    name: str = ""
    names: tuple[str, ...] = ()
    default_step: float = 1e-3

    def initial_state(self) -> np.ndarray:
        raise NotImplementedError

    def max_delay(self) -> float:
        raise NotImplementedError

    def min_delay(self) -> tuple[float, str]:
        """The least delay (s) the model looks back by, and the parameter that sets it: the
        integration's step may not exceed it."""
        raise NotImplementedError

    def rhs(self, t: float, x: np.ndarray, past: Callable[[float], np.ndarray]) -> np.ndarray:
        raise NotImplementedError

    def equilibrium(self) -> Equilibrium:
        raise NotImplementedError

    def events(self) -> list[tuple[float, Callable[[float, np.ndarray], np.ndarray]]]:
        return []

    def project(self, x: np.ndarray) -> np.ndarray:
        return x

    def outputs(self, traj: Trajectory) -> dict[str, np.ndarray]:
        """Columns for the trajectory table (``t_s`` first)."""
        raise NotImplementedError

    def config(self) -> dict:
        return {"model": self.name, **asdict(self.params)}  # type: ignore[attr-defined]

    def simulate(self, duration: float, step: float | None = None, record_every: int | None = None) -> "FluidRun":
        """Integrate from t = 0 to ``duration`` (seconds) with the fixed step
        ``step`` (default :attr:`default_step`); keep about 10 000 rows unless
        ``record_every`` is given."""
        chk.positive("duration", duration, " s")
        h = self.default_step if step is None else chk.positive("step", step, " s")
        least, field = self.min_delay()
        if h > least:  # a delayed state would fall inside the step being taken
            raise ValueError(f"step, {field}: the step {h:g} s is longer than the least delay the model looks back by, {field} = {least:g} s; use a smaller step")
        check_steps(duration, h)  # before anything counts them: 1e308 s is no number of steps
        if record_every is not None and (isinstance(record_every, bool) or not isinstance(record_every, numbers.Integral) or record_every < 1):
            raise ValueError(f"record_every: must be an integer of at least 1 (keep every n-th step), got {record_every!r}")
        if record_every is None:
            record_every = max(1, int(duration / h) // 10_000)
        traj = integrate(
            self.rhs,
            self.initial_state(),
            duration,
            h,
            self.max_delay(),
            record_every=record_every,
            events=self.events(),
            names=self.names,
            project=self.project,
        )
        return FluidRun(model=self, trajectory=traj)


@dataclass
class FluidRun:
    """A model and its integrated trajectory."""

    model: FluidModel
    trajectory: Trajectory
    meta: dict = field(default_factory=dict)

    def columns(self) -> dict[str, np.ndarray]:
        return self.model.outputs(self.trajectory)

    def final(self) -> dict[str, float]:
        return {k: float(v[-1]) for k, v in self.columns().items()}


class PertRed(FluidModel):
    """PERT emulating RED, DDE (14) of the SIGCOMM 2007 paper::

        x1' = 1/R - beta L x1(t) x1(t-R) (x3(t-R) - T_min) / R
        x2' = N x1(t) / (R C) - 1
        x3' = K x3(t) - K x2(t)

    x1 = W (packets), x2 = queueing delay T_q, x3 = its low-pass filtered value
    (the srtt_0.99 signal, eqs. 5-6) (seconds). With beta = 1/2 this is the
    paper's (14). The probability p = L (x3 - T_min) is the linear RED law (4)
    as the paper integrates it: not clipped to [0, 1], so the equilibrium may
    lie above p_max (it does in every Figure 13 case). (14) moves the loop delay
    R from the queue (eq. 7) to the probability (eq. 3); the loop is the same.
    """

    name = "pert-red"
    names = ("window", "queueing_delay", "filtered_delay")
    #: K = ln(0.99)/0.1 ms = -100.5 1/s: RK4 needs h |K| < 2.8; 1 ms gives 0.1,
    #: and halving it changes the state by < 1e-4 (tests/python/test_fluid_dde.py).
    default_step = 1e-3

    def __init__(self, params: PertRedParams | None = None, **kw: object) -> None:
        self.params = params if params is not None else PertRedParams(**kw)  # type: ignore[arg-type]

    def initial_state(self) -> np.ndarray:
        return np.array(self.params.initial, dtype=float)

    def max_delay(self) -> float:
        return self.params.rtt

    def min_delay(self) -> tuple[float, str]:
        return self.params.rtt, "rtt"

    def rhs(self, t: float, x: np.ndarray, past: Callable[[float], np.ndarray]) -> np.ndarray:
        P = self.params
        R = P.rtt
        d = past(R)
        w, w_r = x[0], d[0]
        if P.decrease == "paper":
            prod = w * w_r
        elif P.decrease == "current":
            prod = w * w
        else:
            prod = w_r * w_r
        p_r = P.l_pert * (d[2] - P.tmin)
        k = P.k
        return np.array(
            [
                1.0 / R - P.beta * prod * p_r / R,
                P.flows * w / (R * P.capacity) - 1.0,
                k * x[2] - k * x[1],
            ]
        )

    def equilibrium(self) -> Equilibrium:
        """(9): W* = R C / N, p* = 2 N^2 / (R C)^2 (p* = 1 / (beta W*^2) for a
        general beta), T_q* = T_min + p* / L_PERT from (4). Raises
        :class:`~pertlab.fluid.params.NoEquilibrium` when p* would exceed 1."""
        P = self.params
        w, p = chk.pert_equilibrium(P.capacity, P.rtt, P.flows, P.beta)
        tq = P.tmin + p / P.l_pert
        return Equilibrium(w_star=w, p_star=p, tq_star_s=tq, r_star_s=P.rtt, q_star_pkts=tq * P.capacity)

    def outputs(self, traj: Trajectory) -> dict[str, np.ndarray]:
        P = self.params
        x = traj.x
        return {
            "t_s": traj.t,
            "window_pkts": x[:, 0],
            "queueing_delay_s": x[:, 1],
            "filtered_delay_s": x[:, 2],
            "filtered_rtt_s": P.rtt + x[:, 2],
            "p": P.l_pert * (x[:, 2] - P.tmin),
        }


# --------------------------------------------------------------------------
# PERT/PI (Section 6)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class PertPiParams:
    """Parameters of PERT/PI: (2), (3), (7) with the PI law (16) on the
    queueing delay.

    ``prop_delay`` is T_p (the round-trip propagation delay); the RTT is
    R(t) = T_p + T_q(t), eq. (2). ``m`` and ``k`` are the PI zero and gain of
    (16); left as None they come from Theorem 2 (21) with N- = ``flows`` and
    R+ = R* = T_p + ``target``. ``target`` is the reference queueing delay
    T_q* (Figure 14 uses 3 ms). ``tq_limit`` caps the queueing delay (the
    buffer, in seconds).
    """

    capacity: float
    prop_delay: float
    flows: int
    target: float = 0.003
    m: float | None = None
    k: float | None = None
    beta: float = 0.5
    tq_limit: float = 1.0
    initial: tuple[float, float, float] = (1.0, 0.0, 0.0)

    def __post_init__(self) -> None:
        chk.positive("capacity", self.capacity, " pkt/s")
        chk.positive("rtt", self.prop_delay, " s")
        chk.count("flows", self.flows)
        chk.non_negative("target", self.target, " s")
        if self.m is not None:
            chk.positive("m", self.m, " 1/s")
        if self.k is not None:
            chk.positive("k", self.k)
        chk.open_unit("beta", self.beta)
        chk.positive("tq_limit", self.tq_limit, " s")
        chk.ordered("target", self.target, "tq_limit", self.tq_limit, " s")
        chk.state("initial", self.initial, "W, T_q, integral of T_q - target")

    def gains(self) -> tuple[float, float]:
        """(m, K): given, or Theorem 2's (21) at R+ = T_p + target (for a path with an
        equilibrium: :class:`~pertlab.fluid.params.NoEquilibrium` otherwise)."""
        from .stability import theorem2

        if self.m is not None and self.k is not None:
            m, k = self.m, self.k
        else:
            chk.pert_equilibrium(self.capacity, self.prop_delay, self.flows, self.beta, self.target)
            t2 = theorem2(capacity=self.capacity, rtt_max=self.prop_delay + self.target, flows_min=self.flows)
            m, k = (self.m if self.m is not None else t2.m, self.k if self.k is not None else t2.k)
        if not math.isfinite(k / m):  # (16)'s proportional gain: m = 1e-308 overflows it
            raise ValueError(f"m, k: the proportional gain K/m must be finite, got K = {k:g}, m = {m:g}")
        return m, k


class PertPi(FluidModel):
    """PERT emulating PI, with the RTT following the queue (eq. 2)::

        R(t) = T_p + T_q(t)
        W'   = 1/R(t) - beta W(t) W(t-R) p(t-R) / R(t-R)
        T_q' = N W(t) / (R(t) C) - 1                   (0 <= T_q <= tq_limit)
        y'   = T_q(t) - T_q*                            (integral state)
        p    = clip(K/m (T_q - T_q*) + K y, 0, 1)        (16): C(s) = K (1 + s/m) / s

    As in (14), the loop delay R sits on p rather than on the queue. Unlike
    (14), R follows the queue: with R constant the queue is a pure integrator
    and, with the PI's integrator, the loop has two poles at s = 0 and no
    gain makes it stable (docs/fluid.md); the -1/R term of dT_q'/dT_q is what
    Theorem 2 (like Hollot et al.'s PI design) relies on. The integrator stops
    while p is saturated and the error would push it further (anti-windup).
    """

    name = "pert-pi"
    names = ("window", "queueing_delay", "integral")
    default_step = 1e-3

    def __init__(self, params: PertPiParams | None = None, **kw: object) -> None:
        self.params = params if params is not None else PertPiParams(**kw)  # type: ignore[arg-type]
        self.m, self.k = self.params.gains()

    def _p_raw(self, x: np.ndarray) -> float:
        return self.k / self.m * (x[1] - self.params.target) + self.k * x[2]

    def initial_state(self) -> np.ndarray:
        return np.array(self.params.initial, dtype=float)

    def max_delay(self) -> float:
        return self.params.prop_delay + self.params.tq_limit

    def min_delay(self) -> tuple[float, str]:
        return self.params.prop_delay, "prop_delay"  # R = prop_delay + T_q with an empty queue

    def project(self, x: np.ndarray) -> np.ndarray:
        x[1] = min(max(x[1], 0.0), self.params.tq_limit)
        return x

    def rhs(self, t: float, x: np.ndarray, past: Callable[[float], np.ndarray]) -> np.ndarray:
        P = self.params
        tq = min(max(x[1], 0.0), P.tq_limit)
        R = P.prop_delay + tq
        d = past(R)
        R_d = P.prop_delay + min(max(d[1], 0.0), P.tq_limit)
        p_r = min(max(self._p_raw(d), 0.0), 1.0)
        dw = 1.0 / R - P.beta * x[0] * d[0] * p_r / R_d
        dq = P.flows * x[0] / (R * P.capacity) - 1.0
        if (tq <= 0 and dq < 0) or (tq >= P.tq_limit and dq > 0):
            dq = 0.0
        err = tq - P.target
        raw = self._p_raw(x)
        dy = 0.0 if (raw >= 1 and err > 0) or (raw <= 0 and err < 0) else err
        return np.array([dw, dq, dy])

    def equilibrium(self) -> Equilibrium:
        """(9) with T_q* = the PI's target and R* = T_p + T_q*:
        W* = R* C / N, p* = 2 N^2 / (R* C)^2 (:class:`~pertlab.fluid.params.NoEquilibrium`
        when it would exceed 1)."""
        P = self.params
        r = P.prop_delay + P.target
        w, p = chk.pert_equilibrium(P.capacity, P.prop_delay, P.flows, P.beta, P.target)
        return Equilibrium(w_star=w, p_star=p, tq_star_s=P.target, r_star_s=r,
                           q_star_pkts=P.target * P.capacity)  # fmt: skip

    def outputs(self, traj: Trajectory) -> dict[str, np.ndarray]:
        x = traj.x
        p = np.clip(self.k / self.m * (x[:, 1] - self.params.target) + self.k * x[:, 2], 0.0, 1.0)
        return {"t_s": traj.t, "window_pkts": x[:, 0], "queueing_delay_s": x[:, 1],
                "rtt_s": self.params.prop_delay + x[:, 1], "integral_s2": x[:, 2], "p": p}  # fmt: skip

    def config(self) -> dict:
        return {**super().config(), "m_used": self.m, "k_used": self.k}


# --------------------------------------------------------------------------
# TCP/RED (Misra, Gong, Towsley 2000; thesis Ch. 5)
# --------------------------------------------------------------------------


def red_drop_probability(x: float, min_th: float, max_th: float, max_p: float, gentle: bool = True) -> float:
    """RED's drop probability of the average queue ``x`` (packets): 0 below
    ``min_th``, linear to ``max_p`` at ``max_th``; above, linear to 1 at
    ``2 max_th`` (gentle) or 1 (original RED)."""
    if x < min_th:
        return 0.0
    if x < max_th:
        return max_p * (x - min_th) / (max_th - min_th)
    if not gentle:
        return 1.0
    if x < 2 * max_th:
        return max_p + (1 - max_p) * (x - max_th) / max_th
    return 1.0


@dataclass(frozen=True)
class FlowGroup:
    """``count`` identical flows with round-trip propagation delay ``prop_delay``
    (T_p, seconds), sending during the ``on`` intervals ``[(start, stop), ...]``.
    A group that starts again restarts its window at the initial window."""

    count: int
    prop_delay: float
    on: tuple[tuple[float, float], ...] = ((0.0, math.inf),)

    def __post_init__(self) -> None:
        chk.count("flows", self.count)
        chk.positive("rtt", self.prop_delay, " s")
        last = -math.inf
        if not isinstance(self.on, (list, tuple)) or not self.on:
            raise ValueError(f"on: must be a non-empty list of (start, stop) intervals in seconds, got {self.on!r}")
        for interval in self.on:
            if not (isinstance(interval, (list, tuple)) and len(interval) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in interval)):
                raise ValueError(f"on: each interval is a pair (start, stop) of seconds, got {interval!r}")
            start, stop = interval
            if not (start >= 0 and stop > start and start >= last):
                raise ValueError(f"on: intervals must be increasing and non-overlapping (start < stop), got {self.on!r}")
            last = stop

    def active(self, t: float) -> bool:
        return any(a <= t < b for a, b in self.on)


@dataclass(frozen=True)
class TcpRedParams:
    """Parameters of the TCP/RED fluid model (thesis 5.1.1-5.1.4).

    ``capacity`` C in packets/s; RED thresholds ``min_th``, ``max_th`` in
    packets, ``max_p``, EWMA weight ``w_q``; ``delta`` the sampling interval of
    (5.1.2), default 1/C as in Misra et al. and the thesis; ``buffer`` the
    queue limit in packets, default 4 max_th ("large enough that all losses
    come from RED").
    """

    capacity: float
    groups: tuple[FlowGroup, ...]
    min_th: float = 150.0
    max_th: float = 200.0
    max_p: float = 0.1
    w_q: float = 1e-4
    delta: float | None = None
    gentle: bool = True
    buffer: float | None = None
    initial_window: float = 1.0
    initial_queue: float = 0.0

    def __post_init__(self) -> None:
        chk.positive("capacity", self.capacity, " pkt/s")
        if not self.groups:
            raise ValueError("flows: at least one group of flows is needed")
        if not isinstance(self.groups, (list, tuple)) or not all(isinstance(g, FlowGroup) for g in self.groups):
            raise ValueError(f"flows: groups must be a tuple of FlowGroup, got {self.groups!r}")
        if not isinstance(self.gentle, bool):
            raise ValueError(f"gentle: must be True or False, got {self.gentle!r}")
        chk.non_negative("min_th", self.min_th, " pkts")
        chk.positive("max_th", self.max_th, " pkts")
        chk.ordered("min_th", self.min_th, "max_th", self.max_th, " pkts")
        chk.unit_interval("max_p", self.max_p)
        chk.open_unit("w_q", self.w_q)
        if self.delta is not None:
            chk.positive("delta", self.delta, " s")
        if self.buffer is not None:
            chk.positive("buffer", self.buffer, " pkts")
        chk.positive("initial_window", self.initial_window, " pkts")
        chk.non_negative("initial_queue", self.initial_queue, " pkts")

    @property
    def sampling_interval(self) -> float:
        return 1.0 / self.capacity if self.delta is None else self.delta

    @property
    def k(self) -> float:
        """ln(1 - w_q) / delta, the EWMA pole of (5.1.2)."""
        return math.log(1.0 - self.w_q) / self.sampling_interval

    @property
    def queue_limit(self) -> float:
        return 4.0 * self.max_th if self.buffer is None else self.buffer

    @property
    def flows(self) -> int:
        return sum(g.count for g in self.groups)


class TcpRed(FluidModel):
    """TCP against RED, per group i of N_i flows (thesis 5.1.1-5.1.4)::

        W_i' = 1/R_i(t) - (W_i(t)/2) W_i(t-tau_i) p(x(t-tau_i)) / R_i(t-tau_i)
        x'   = K (x - q),  K = ln(1 - w_q)/delta          (RED's EWMA)
        q'   = sum_i N_i(t) W_i / R_i(t) - C               (0 <= q <= buffer)
        R_i  = T_p,i + q/C,   tau_i = R_i(t)

    ``p`` is RED's drop function of the average ``x``. The state is
    (W_1, ..., W_G, x, q).
    """

    name = "tcp-red"
    default_step = 1e-3

    def __init__(self, params: TcpRedParams | None = None, **kw: object) -> None:
        self.params = params if params is not None else TcpRedParams(**kw)  # type: ignore[arg-type]
        G = len(self.params.groups)
        self.names = tuple(f"window_{i}" for i in range(G)) + ("avg_queue", "queue")

    @classmethod
    def homogeneous(cls, capacity: float, flows: int, prop_delay: float, **kw: object) -> "TcpRed":
        """``flows`` identical persistent flows of round-trip propagation delay ``prop_delay``."""
        groups = (FlowGroup(count=flows, prop_delay=prop_delay),)
        return cls(TcpRedParams(capacity=capacity, groups=groups, **kw))  # type: ignore[arg-type]

    def alpha_factor(self, p_delayed: float) -> float:
        """Scale of the multiplicative decrease: 1 for TCP."""
        return 1.0

    def initial_state(self) -> np.ndarray:
        P = self.params
        return np.array([P.initial_window] * len(P.groups) + [P.initial_queue, P.initial_queue], dtype=float)

    def max_delay(self) -> float:
        P = self.params
        return max(g.prop_delay for g in P.groups) + P.queue_limit / P.capacity

    def min_delay(self) -> tuple[float, str]:
        return min(g.prop_delay for g in self.params.groups), "prop_delay"  # a group's R with an empty queue

    def project(self, x: np.ndarray) -> np.ndarray:
        lim = self.params.queue_limit
        if x[-1] < 0:
            x[-1] = 0.0
        elif x[-1] > lim:
            x[-1] = lim
        return x

    def events(self) -> list[tuple[float, Callable[[float, np.ndarray], np.ndarray]]]:
        out = []
        w0 = self.params.initial_window
        for i, g in enumerate(self.params.groups):
            for start, _ in g.on:
                if start > 0:

                    def restart(t: float, x: np.ndarray, i: int = i) -> np.ndarray:
                        x[i] = w0
                        return x

                    out.append((start, restart))
        return out

    def _p(self, x: float) -> float:
        P = self.params
        return red_drop_probability(x, P.min_th, P.max_th, P.max_p, P.gentle)

    def rhs(self, t: float, x: np.ndarray, past: Callable[[float], np.ndarray]) -> np.ndarray:
        P = self.params
        C = P.capacity
        q = min(max(x[-1], 0.0), P.queue_limit)
        G = len(P.groups)
        dx = np.empty_like(x)
        arrival = 0.0
        for i, g in enumerate(P.groups):
            R = g.prop_delay + q / C
            if not g.active(t):
                dx[i] = 0.0
                continue
            d = past(R)
            q_d = min(max(d[-1], 0.0), P.queue_limit)
            R_d = g.prop_delay + q_d / C
            p_d = self._p(d[-2])
            dx[i] = 1.0 / R - 0.5 * x[i] * self.alpha_factor(p_d) * d[i] * p_d / R_d
            arrival += g.count * x[i] / R
        dq = arrival - C
        if (q <= 0 and dq < 0) or (q >= P.queue_limit and dq > 0):
            dq = 0.0
        dx[G] = P.k * (x[G] - q)
        dx[G + 1] = dq
        return dx

    def _window_of_p(self, p: float) -> float:
        """Stationary window for drop probability p: 1/R = W^2 p / (2R)."""
        return math.sqrt(2.0 / p)

    def equilibrium(self, at: float = 0.0) -> Equilibrium:
        """Stationary point with the groups active at time ``at``.

        Every window is W* = sqrt(2/p*) and the link is full:
        C = W* sum_i N_i / (T_p,i + q*/C), p* = p_RED(q*) (x* = q*); q* by
        bisection. For one group this is W* = R* C / N, p* = 2 N^2/(R* C)^2.
        Past the end of RED's curve (2 max_th gentle, max_th original) p = 1 up to
        the queue limit, where q* may also lie. Raises
        :class:`~pertlab.fluid.params.NoEquilibrium` when even p = 1 with the queue
        at its limit leaves the flows sending more than C.
        """
        P = self.params
        C = P.capacity
        act = [g for g in P.groups if g.active(at)]
        if not act:
            raise ValueError(f"at: no flows are active at t = {at:g} s")

        def excess(q: float, p: float | None = None) -> float:
            p = self._p(q) if p is None else p
            if p <= 0:
                return math.inf
            return self._window_of_p(p) * sum(g.count / (g.prop_delay + q / C) for g in act) - C

        limit = P.queue_limit
        lo = P.min_th + 1e-12 * max(1.0, P.max_th)
        if limit <= lo:
            raise ValueError(f"buffer: {limit:g} packets is not above min_th = {P.min_th:g}: RED never drops, so the "
                             "windows grow without bound (no equilibrium)")  # fmt: skip
        if excess(limit, 1.0) > 0:
            raise NoEquilibrium(self._overload(act, limit))
        end = 2 * P.max_th if P.gentle else P.max_th  # where RED's probability reaches 1
        hi = min(end if P.gentle else P.max_th * (1 - 1e-12), limit)
        if excess(hi) <= 0:
            q = bisect(excess, lo, hi)
            p = self._p(q)
        elif end >= limit:
            raise ValueError(f"buffer: the equilibrium needs a queue above the queue limit ({limit:g} packets), "
                             "which cuts RED's curve before its end; raise it")  # fmt: skip
        elif excess(end, 1.0) <= 0:  # original RED jumps from max_p to 1 at max_th
            raise ValueError(f"gentle: the equilibrium falls on original RED's jump from max_p to 1 at max_th = {P.max_th:g} "
                             "packets (p* between max_p and 1): the model has none there; gentle RED has one")  # fmt: skip
        else:
            q = bisect(lambda v: excess(v, 1.0), end, limit)
            p = 1.0
        w = self._window_of_p(p)
        r = sum(g.count * (g.prop_delay + q / C) for g in act) / sum(g.count for g in act)
        return Equilibrium(w_star=w, p_star=p, tq_star_s=q / C, r_star_s=r, q_star_pkts=q)

    def _overload(self, act: list[FlowGroup], limit: float) -> str:
        """The message of :class:`NoEquilibrium`: even windows of p = 1 over a full queue overload C."""
        P = self.params
        C = P.capacity
        w1 = self._window_of_p(1.0)
        rate = w1 * sum(g.count / (g.prop_delay + limit / C) for g in act)
        n = sum(g.count for g in act)
        msg = (f"capacity, rtt, flows, buffer: no equilibrium with p in [0, 1]: even at p = 1 (windows of {w1:.3g} "
               f"packets) with the queue at its limit ({limit:g} packets) the {n} flows send {rate:.4g} pkt/s, more than "
               f"C = {C:.4g} pkt/s")  # fmt: skip
        if len({g.prop_delay for g in act}) > 1:
            return msg + "; raise capacity, rtt or buffer, or use fewer flows"
        tp = act[0].prop_delay
        need = w1 * n  # packets in flight at p = 1: the link and the queue must hold them (C T_p + limit)
        fewer = f", or flows <= {math.floor((C * tp + limit) / w1)}" if C * tp + limit >= w1 else ""
        up = chk.bound_text
        return (f"{msg}; an equilibrium needs C rtt + buffer >= {need:.4g} packets: capacity >= {up((need - limit) / tp)} pkt/s, "
                f"rtt >= {up((need - limit) / C)} s, buffer >= {up(need - C * tp)} packets{fewer}")  # fmt: skip

    def outputs(self, traj: Trajectory) -> dict[str, np.ndarray]:
        P = self.params
        x = traj.x
        G = len(P.groups)
        cols: dict[str, np.ndarray] = {"t_s": traj.t}
        counts = np.array([[g.count if g.active(t) else 0 for g in P.groups] for t in traj.t], dtype=float)
        n = counts.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            cols["window_pkts"] = np.where(n > 0, (x[:, :G] * counts).sum(axis=1) / np.maximum(n, 1), np.nan)
        for i in range(G):
            cols[f"window_{i}_pkts"] = x[:, i]
        cols["avg_queue_pkts"] = x[:, G]
        cols["queue_pkts"] = x[:, G + 1]
        cols["queueing_delay_s"] = x[:, G + 1] / P.capacity
        cols["active_flows"] = n
        cols["p"] = np.array([self._p(v) for v in x[:, G]])
        return cols

    def config(self) -> dict:
        d = super().config()
        d["groups"] = [{"count": g.count, "prop_delay": g.prop_delay, "on": [list(iv) for iv in g.on]} for g in self.params.groups]
        return d


class SurathkalTcpRed(TcpRed):
    """The thesis's TCP Surathkal model (5.2.1): the decrease of (5.1.1)
    multiplied by alpha_i, "the fraction of packets marked in the last RTT".

    The thesis does not say how alpha_i is computed in the fluid model; we close
    it with the marking probability seen one RTT ago, alpha_i = p(x(t - tau_i))
    (the fraction of marked packets of a Bernoulli marker). The equilibrium
    then satisfies W* p* = sqrt(2) instead of W*^2 p* = 2.
    """

    name = "surathkal-tcp-red"

    def alpha_factor(self, p_delayed: float) -> float:
        return p_delayed

    def _window_of_p(self, p: float) -> float:
        return math.sqrt(2.0) / p


# --------------------------------------------------------------------------
# PERT's operating point with R = T_p + T_q (for the packet cross-check)
# --------------------------------------------------------------------------


def pert_response_probability(tq: float, tmin: float, tmax: float, pmax: float, gentle: bool = True) -> float:
    """PERT's response curve on the queueing delay (Section 3, "gentle RED")."""
    return red_drop_probability(tq, tmin, tmax, pmax, gentle)


def pert_operating_point(
    capacity: float,
    prop_rtt: float,
    flows: int,
    *,
    tmin: float = 0.005,
    tmax: float = 0.010,
    pmax: float = 0.05,
    beta: float = 0.35,
    gentle: bool = True,
) -> Equilibrium:
    """Equilibrium of the PERT model (2)-(7) with the RTT depending on the queue,
    R* = T_p + T_q*, and PERT's actual response curve (gentle, thresholds on
    the queueing delay, Section 3) and decrease factor ``beta`` (0.35):

        W* = R* C / N,   p(T_q*) = 1 / (beta W*^2).

    Solved for T_q* by bisection. This is what the packet simulator's PERT
    dumbbell should sit at (docs/fluid.md, the cross-check).
    """
    chk.positive("capacity", capacity, " pkt/s")
    chk.positive("rtt", prop_rtt, " s")
    chk.count("flows", flows)
    chk.ordered("tmin", tmin, "tmax", tmax, " s")
    chk.unit_interval("pmax", pmax)
    chk.open_unit("beta", beta)

    def excess(tq: float) -> float:
        p = pert_response_probability(tq, tmin, tmax, pmax, gentle)
        w = (prop_rtt + tq) * capacity / flows
        return p - 1.0 / (beta * w * w)

    hi = 2 * tmax if gentle else tmax * (1 - 1e-12)
    if excess(hi) < 0:
        raise ValueError("the response curve cannot bring this load to equilibrium (p* above the curve)")
    tq = bisect(excess, tmin, hi)
    r = prop_rtt + tq
    w = r * capacity / flows
    return Equilibrium(w_star=w, p_star=1.0 / (beta * w * w), tq_star_s=tq, r_star_s=r, q_star_pkts=tq * capacity)
