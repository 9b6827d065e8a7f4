"""The DDE integrator: history interpolation, delay checks, and the step
justified by halving it (the final state changes by far less than 1 %)."""

from __future__ import annotations

import numpy as np
import pytest

from pertlab.fluid import Diverged, History, PertPi, PertRed, TcpRed, integrate


def test_history_interpolates_and_holds_initial_state():
    h = History(0.0, 0.1, np.array([1.0]), capacity=5)
    for k in range(1, 8):
        h.push(np.array([1.0 + k]))  # x(t) = 1 + 10 t on the grid
    assert h.at(0.55)[0] == pytest.approx(6.5)
    assert h.at(0.7)[0] == pytest.approx(8.0)
    with pytest.raises(ValueError, match="older than the buffer"):
        h.at(0.05)
    h0 = History(0.0, 0.1, np.array([3.0]), capacity=5)
    assert h0.at(-1.0)[0] == 3.0


def test_delay_differential_equation_exact_solution():
    # x'(t) = -x(t - 1), x = 1 on [-1, 0]: x(t) = 1 - t on [0, 1], 1 - t + (t-1)^2/2 on [1, 2].
    tr = integrate(lambda t, x, past: -past(1.0), [1.0], 2.0, 1e-3, 1.0)
    assert tr.x[-1, 0] == pytest.approx(1 - 2 + 0.5, abs=1e-6)


def test_divergence_keeps_the_trajectory_up_to_the_last_finite_state():
    # x' = x^2, x(0) = 1: x = 1/(1 - t) blows up at t = 1; RK4 overflows three steps after.
    with pytest.raises(Diverged) as e:
        integrate(lambda t, x, past: x * x, [1.0], 2.0, 1e-3, 1e-3, record_every=7)
    assert isinstance(e.value, FloatingPointError)  # what callers that only stop on it catch
    tr = e.value.trajectory
    assert tr.diverged_at == pytest.approx(1.003) and "t = 1.003 s" in str(e.value)
    # every 7th step as asked (1.001 s = step 1001), then the last finite state, 1.002 s, unrecorded otherwise
    assert tr.t[-3:] == pytest.approx([0.994, 1.001, 1.002]) and len(tr.t) == 1001 // 7 + 2
    assert np.all(np.isfinite(tr.x)) and tr.x[-1, 0] > 1e100
    assert tr.x[-3, 0] == pytest.approx(1 / (1 - 0.994), rel=1e-3)  # still on the exact solution


def test_a_delay_that_follows_a_state_gone_non_finite_is_a_divergence():
    """A delay taken from the state (R = T_p + T_q) is NaN once the state is: the run diverged
    (its trajectory kept), not an error about the delay's range. x goes NaN in the first step's
    second stage (x + h/2 k1 with k1 = inf - inf)."""

    def rhs(t, x, past):
        d = past(0.01 + min(max(x[0], 0.0), 0.05) if np.isfinite(x[0]) else x[0])
        return np.array([np.inf - np.inf if t > 0 else d[0] * 0.0])

    with pytest.raises(Diverged) as e:
        integrate(rhs, [0.01], 1.0, 1e-3, 0.1)
    assert e.value.trajectory.diverged_at == pytest.approx(1e-3)


def test_delay_shorter_than_step_is_an_error():
    with pytest.raises(ValueError, match="^step: "):
        integrate(lambda t, x, past: -past(1e-4), [1.0], 1.0, 1e-3, 1e-4)


@pytest.mark.parametrize(
    "model, duration",
    [
        (lambda: PertRed(capacity=100, rtt=0.16, flows=5), 40.0),  # decaying oscillation
        (lambda: PertRed(capacity=100, rtt=0.171, flows=5), 20.0),  # limit cycle: compare mid-oscillation
        (lambda: PertPi(capacity=1000, prop_delay=0.1, flows=5, target=0.01), 30.0),
        (lambda: TcpRed.homogeneous(1250, 40, 0.2), 30.0),
    ],
)
def test_halving_the_step_changes_the_final_state_by_under_one_percent(model, duration):
    m = model()
    a = m.simulate(duration, step=m.default_step).trajectory.x[-1]
    b = m.simulate(duration, step=m.default_step / 2).trajectory.x[-1]
    scale = np.maximum(np.abs(b), 1e-3)
    assert np.max(np.abs(a - b) / scale) < 0.01
