"""Classifying a trajectory's approach to equilibrium (Figure 13's three regimes).

- *monotone*: the window crosses its equilibrium W* at most once and has
  settled (last-window envelope below ``tol`` W*);
- *decaying oscillation*: it crosses W* repeatedly but the oscillation dies
  out (settled envelope, or an envelope that shrinks: the last ``last``
  seconds have less than 0.8 of the amplitude of the ``last`` seconds ending
  half-way through the run);
- *persistent oscillation*: the envelope of the last ``last`` seconds is
  above ``tol`` W* and does not shrink.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

__all__ = ["Regime", "classify", "settling_time"]


@dataclass(frozen=True)
class Regime:
    regime: str
    crossings: int
    amplitude_last: float  # (max - min) / W* over the last seconds
    amplitude_mid: float  # the same over the window ending at half the run
    growth: float  # amplitude_last / amplitude_mid

    def as_dict(self) -> dict:
        return asdict(self)


def _amp(t: np.ndarray, w: np.ndarray, end: float, span: float, ref: float) -> float:
    sel = (t >= end - span) & (t <= end)
    return float((w[sel].max() - w[sel].min()) / ref)


def classify(t: np.ndarray, w: np.ndarray, w_star: float, last: float = 10.0, tol: float = 0.01) -> Regime:
    """Regime of the window trajectory ``w(t)`` around ``w_star``."""
    dev = w - w_star
    s = np.sign(dev[np.abs(dev) > 1e-6 * w_star])
    crossings = int(np.sum(s[1:] != s[:-1])) if len(s) > 1 else 0
    a_last = _amp(t, w, t[-1], last, w_star)
    a_mid = _amp(t, w, t[-1] / 2, last, w_star)
    growth = a_last / a_mid if a_mid > 0 else 0.0
    if a_last <= tol:
        regime = "monotone" if crossings <= 1 else "decaying oscillation"
    elif growth < 0.8:
        regime = "decaying oscillation"
    else:
        regime = "persistent oscillation"
    return Regime(regime, crossings, a_last, a_mid, growth)


def settling_time(t: np.ndarray, w: np.ndarray, w_star: float, band: float = 0.05) -> float:
    """The last time the trajectory is outside ``w_star (1 +- band)`` (0 if never)."""
    out = np.nonzero(np.abs(w - w_star) > band * w_star)[0]
    return float(t[out[-1]]) if len(out) else 0.0
