"""Fixed-step integrator for delay-differential equations (DDEs).

The fluid models of the PERT paper (SIGCOMM 2007, eqs. 2-7 and 14) and of
Misra, Gong and Towsley (the thesis's eqs. 5.1.1-5.1.3) are DDEs
``x'(t) = f(t, x(t), x(t - tau_1), ...)`` whose delays are a round-trip time,
constant (PERT's eq. 14) or state dependent (``R(q) = T_p + q/C``).

Method: classical fourth-order Runge-Kutta on a uniform grid of step ``h``. The
past is kept in a :class:`History` ring buffer of the grid states; a delayed
state ``x(s)`` between two grid points is the linear interpolation of its
neighbours, and before the start time it is the initial state (constant
initial history, as in the paper's "initial point (1, 1, 1)"). Every delay must
be at least one step (``tau >= h``) so that every RK stage only looks at stored
states; the integrator checks this. Linear interpolation makes the scheme second
order in ``h`` overall; the step of each model is justified by a step-halving
test (``tests/python/test_fluid_dde.py`` and ``docs/fluid.md``).

Discontinuities (flows leaving and joining) are handled by *events*: at a grid
time ``t_e`` a callback may replace the state; the history keeps the values
before the event, as the physical past does.

A solution that leaves the finite numbers raises :class:`Diverged`, which
carries the trajectory up to the last finite grid state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from .params import bound_text

__all__ = ["Diverged", "History", "Trajectory", "integrate", "MAX_STEPS", "check_steps"]

#: The most integration steps (duration / step) one :func:`integrate` call takes. The loop is plain
#: Python, 20 to 100 us a step for the models here: 1e6 steps is about one to two minutes. The
#: largest committed run, ``tahiliani-ch5-fluid``'s Scenario 2 (380 s at 1 ms), is 380 000 steps;
#: the default 1 ms step allows 1000 s. docs/fluid.md states the limit.
MAX_STEPS = 1_000_000

#: ``rhs(t, x, past) -> dx/dt``; ``past(tau)`` is the state at ``t - tau``.
Rhs = Callable[[float, np.ndarray, Callable[[float], np.ndarray]], np.ndarray]


def check_steps(duration: float, h: float) -> int:
    """The number of steps of ``h`` seconds that cover ``duration``; ValueError naming step and
    duration, with the smallest step allowed for that duration, beyond :data:`MAX_STEPS`."""
    ratio = duration / h - 1e-9
    if not ratio <= MAX_STEPS:
        raise ValueError(f"step, duration: {duration:g} s in steps of {h:g} s is {ratio:.3g} integration steps, above the "
                         f"limit of {MAX_STEPS:,}; for {duration:g} s the step must be at least "
                         f"{bound_text(duration / MAX_STEPS, digits=3)} s, or shorten the duration to at most "
                         f"{bound_text(MAX_STEPS * h, up=False, digits=3)} s")  # fmt: skip
    return int(math.ceil(ratio))


class History:
    """Ring buffer of the states on the grid ``t0 + k h`` with interpolation.

    Holds the last ``capacity`` grid states; ``at(s)`` returns the state at any
    time ``s`` between the oldest stored grid point and the newest, by linear
    interpolation, and the initial state for ``s <= t0``.
    """

    def __init__(self, t0: float, h: float, x0: np.ndarray, capacity: int) -> None:
        self.t0, self.h = float(t0), float(h)
        self.capacity = int(capacity)
        self.buf = np.empty((self.capacity, len(x0)))
        self.buf[0] = x0
        self.x0 = np.array(x0, dtype=float)
        self.n = 1  # grid points pushed so far (index of the next one)

    def push(self, x: np.ndarray) -> None:
        """Store the state at the next grid time."""
        self.buf[self.n % self.capacity] = x
        self.n += 1

    @property
    def t_newest(self) -> float:
        return self.t0 + (self.n - 1) * self.h

    def at(self, s: float) -> np.ndarray:
        """The state at time ``s`` (``s`` no later than the newest grid time)."""
        u = (s - self.t0) / self.h
        if u <= 0.0:
            return self.x0
        k = int(u)
        if k >= self.n - 1:
            if u - (self.n - 1) > 1e-9:
                raise ValueError(f"history: time {s:g} s lies after the newest stored state ({self.t_newest:g} s)")
            return self.buf[(self.n - 1) % self.capacity]
        if self.n - 1 - k >= self.capacity - 1:
            raise ValueError(
                f"history: time {s:g} s is older than the buffer holds ({self.capacity} steps); raise max_delay"
            )
        frac = u - k
        a = self.buf[k % self.capacity]
        if frac == 0.0:
            return a
        b = self.buf[(k + 1) % self.capacity]
        return a + frac * (b - a)


@dataclass
class Trajectory:
    """Recorded states: ``t`` (shape ``(n,)``) and ``x`` (shape ``(n, d)``);
    ``diverged_at`` the time (s) at which the solution left the finite numbers,
    None for a run integrated to its end."""

    t: np.ndarray
    x: np.ndarray
    step: float
    names: tuple[str, ...] = field(default=())
    diverged_at: float | None = None

    def column(self, name: str) -> np.ndarray:
        return self.x[:, self.names.index(name)]


class _NonFiniteDelay(Exception):
    """A delay the right-hand side asked for is NaN or infinite: it follows a state (the queue)
    that left the finite numbers in one of the step's stages."""


class Diverged(FloatingPointError):
    """The solution left the finite numbers; ``trajectory`` holds the recorded
    states up to the last finite grid state (its ``diverged_at`` is set)."""

    def __init__(self, trajectory: Trajectory) -> None:
        super().__init__(f"the solution left the finite numbers at t = {trajectory.diverged_at:g} s (the model diverged)")
        self.trajectory = trajectory


def integrate(
    rhs: Rhs,
    x0: Sequence[float],
    t_end: float,
    h: float,
    max_delay: float,
    *,
    t0: float = 0.0,
    record_every: int = 1,
    events: Sequence[tuple[float, Callable[[float, np.ndarray], np.ndarray]]] = (),
    names: Sequence[str] = (),
    project: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Trajectory:
    """Integrate ``x' = rhs(t, x, past)`` from ``t0`` to ``t_end`` with step ``h``.

    ``max_delay`` bounds every delay the right-hand side asks for (it sizes the
    ring buffer); a delay below ``h`` or above ``max_delay`` is an error.
    Every ``record_every``-th grid state is returned (the first and last always). At most
    :data:`MAX_STEPS` steps (ValueError naming ``step`` and ``duration`` beyond).
    ``events`` are ``(time, fn)`` pairs: at the first grid time ``>= time`` the
    state becomes ``fn(t, x)`` before the step from ``t`` is taken.
    ``project`` (optional) maps each new grid state back into the model's
    domain, e.g. a queue clipped at zero. A non-finite state raises
    :class:`Diverged` with the states recorded so far and the last finite one.
    """
    if not (h > 0 and math.isfinite(h)):
        raise ValueError(f"step: must be a positive number of seconds, got {h!r}")
    if not t_end > t0:
        raise ValueError(f"duration: must be positive, got {t_end - t0!r} s")
    if max_delay < h:
        raise ValueError(f"step: {h:g} s is longer than the largest delay {max_delay:g} s; use a smaller step")
    steps = check_steps(t_end - t0, h)
    x = np.array(x0, dtype=float)
    # No delayed state lies further back than the run's start (before it, the initial state).
    hist = History(t0, h, x, capacity=int(math.ceil(min(max_delay / h, steps))) + 3)
    n_rec = steps // record_every + 1 + (steps % record_every != 0)
    rec_t = np.empty(n_rec)
    rec_x = np.empty((n_rec, len(x)))
    rec_t[0], rec_x[0] = t0, x
    pending = sorted(events, key=lambda e: e[0])
    lo, hi = h * (1 - 1e-9), max_delay * (1 + 1e-9)

    with np.errstate(over="ignore", invalid="ignore"):
        return _loop(rhs, x, hist, steps, t0, h, lo, hi, max_delay, pending, project, record_every, rec_t, rec_x, names)


def _loop(rhs, x, hist, steps, t0, h, lo, hi, max_delay, pending, project, record_every, rec_t, rec_x, names):  # type: ignore[no-untyped-def]
    """The stepping loop of :func:`integrate`."""
    r, ev = 1, 0
    for i in range(steps):
        t = t0 + i * h
        while ev < len(pending) and pending[ev][0] <= t + 1e-9 * h:
            x = np.array(pending[ev][1](t, x.copy()), dtype=float)
            ev += 1

        def past_at(stage_t: float) -> Callable[[float], np.ndarray]:
            def past(tau: float) -> np.ndarray:
                if not lo <= tau <= hi:
                    if not math.isfinite(tau):
                        raise _NonFiniteDelay
                    raise ValueError(f"delay: {tau:g} s is outside [step, max_delay] = [{h:g}, {max_delay:g}] s")
                return hist.at(stage_t - tau)

            return past

        p0, p_half, p1 = past_at(t), past_at(t + 0.5 * h), past_at(t + h)
        x_t = x
        try:
            k1 = rhs(t, x, p0)
            k2 = rhs(t + 0.5 * h, x + 0.5 * h * k1, p_half)
            k3 = rhs(t + 0.5 * h, x + 0.5 * h * k2, p_half)
            k4 = rhs(t + h, x + h * k3, p1)
            x = x + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        except _NonFiniteDelay:  # a stage's state left the finite numbers, and its delay with it
            x = np.full_like(x_t, np.nan)
        if project is not None:
            x = project(x)
        if not np.all(np.isfinite(x)):
            if i % record_every:  # the last finite state, at t, was not recorded
                rec_t[r], rec_x[r] = t, x_t
                r += 1
            raise Diverged(Trajectory(t=rec_t[:r], x=rec_x[:r], step=h, names=tuple(names), diverged_at=t0 + (i + 1) * h))
        hist.push(x)
        if (i + 1) % record_every == 0 or i + 1 == steps:
            rec_t[r], rec_x[r] = t + h, x
            r += 1
    return Trajectory(t=rec_t[:r], x=rec_x[:r], step=h, names=tuple(names))
