"""Theorems 1 and 2 as calculators, checked on hand-computed cases, and the
Figure 13 regimes of the DDE (14) (what the model gives, the paper's claim beside)."""

from __future__ import annotations

import math

import pytest

from pertlab.fluid import PertRed, min_delta, theorem1, theorem2
from pertlab.fluid.linear import linear_boundary_rtt
from pertlab.fluid.regimes import classify

FIG13 = dict(capacity=100, flows=5)


def test_theorem1_hand_computed_fig13_at_160ms():
    r = theorem1(100, 0.16, 5, pmax=0.1, tmin=0.05, tmax=0.1, alpha=0.99, delta=1e-4)
    # L = 0.1 / 0.05 = 2; K = ln 0.99 / 1e-4 = -100.503
    assert r.l_pert == pytest.approx(2.0)
    assert r.k == pytest.approx(-100.50335853501)
    # w_g = 0.1 min(10 / (0.0256 * 100), 1 / 0.16) = 0.1 * 3.90625
    assert r.w_g == pytest.approx(0.390625)
    # lhs = 2 * 0.16^3 * 100^2 / 10^2 = 0.8192; rhs = sqrt((0.390625/100.503)^2 + 1)
    assert r.lhs == pytest.approx(0.8192)
    assert r.rhs == pytest.approx(math.sqrt((0.390625 / 100.50335853501) ** 2 + 1))
    assert r.stable and r.margin == pytest.approx(r.rhs - 0.8192)
    assert (r.w_star, r.p_star) == (pytest.approx(3.2), pytest.approx(2 * 25 / 16**2))
    assert r.tq_star_s == pytest.approx(0.05 + 0.1953125 / 2)
    assert not r.equilibrium_within_pmax  # p* = 0.195 > p_max = 0.1, as in every Fig. 13 case
    assert r.min_delta_s == 0.0  # lhs < 1: any delta
    assert r.boundary_rtt_s == pytest.approx(0.171, abs=5e-5)  # the paper's 171 ms: (100 / 20000)^(1/3)


@pytest.mark.parametrize("capacity, flows, delta", [(100, 5, 1e-4), (100, 1, 1e-2), (12500, 50, 1e-3), (1e5, 5, 1e-4)])
def test_boundary_rtt_is_the_root_scipy_finds(capacity, flows, delta):
    # boundary_rtt halves its bracket in plain Python (no scipy for `pertlab stability`);
    # the root is the one scipy's brentq finds, to brentq's own tolerance.
    from pertlab.fluid.models import bisect
    from pertlab.fluid.stability import _lhs, _wg, boundary_rtt

    K = math.log(0.99) / delta
    L = 0.1 / 0.05
    def gap(R):
        return math.sqrt((_wg(capacity, R, flows) / K) ** 2 + 1.0) - _lhs(L, capacity, R, flows)

    ours = boundary_rtt(capacity, flows, delta=delta)
    assert ours == pytest.approx(bisect(gap, 1e-9, 4.0), rel=0, abs=1e-12)
    assert gap(ours) * gap(math.nextafter(ours, 0)) <= 0 or gap(ours) * gap(math.nextafter(ours, 1)) <= 0


def test_theorem1_fails_beyond_171ms():
    r = theorem1(100, 0.175, 5)
    assert not r.stable and r.margin < 0
    assert r.lhs == pytest.approx(2 * 0.175**3 * 1e4 / 100)


@pytest.mark.parametrize(
    "n, expected",
    [
        # (13) by hand: R = 0.2, C = 1000, L = 2: L R^3 C^2 = 16000; w_g = 0.1 min(2N/40, 5)
        (40, -math.log(0.99) / (4 * 1600 * 0.2) * math.sqrt(16000**2 - 16 * 40**4)),  # 0.1151 s
        (50, -math.log(0.99) / (4 * 2500 * 0.25) * math.sqrt(16000**2 - 16 * 50**4)),
        (10, -math.log(0.99) / (4 * 100 * 0.05) * math.sqrt(16000**2 - 16 * 10**4)),
    ],
)
def test_min_delta_fig13a_points(n, expected):
    got = min_delta(1000, 0.2, n, pmax=0.1, tmin=0.05, tmax=0.1, alpha=0.99)
    assert got == pytest.approx(expected, rel=1e-12)
    if n == 40:
        assert got == pytest.approx(0.1151, abs=1e-4)  # the paper: "reaches 0.1 seconds as N- goes to 40"


def test_theorem2_hand_computed():
    r = theorem2(100, 0.16, 5, delta=1e-3)
    m = 2 * 5 / (0.16**2 * 100)
    k = m * math.hypot(1, 0.16 * m) / (0.16**3 * 1e4 / 100)
    assert r.m == pytest.approx(m) and r.k == pytest.approx(k)
    assert r.k == pytest.approx(11.2462, abs=1e-4)
    assert r.gamma == pytest.approx(k / m + k * 1e-3 / 2) and r.gamma > r.beta  # erratum: gamma on T_q(t)


def test_theorem_errors_name_the_parameter():
    with pytest.raises(ValueError, match="^flows: "):
        theorem1(100, 0.16, 0)
    with pytest.raises(ValueError, match="^tmin, tmax: "):
        theorem1(100, 0.16, 5, tmin=0.1, tmax=0.05)
    with pytest.raises(ValueError, match="^alpha: "):
        theorem1(100, 0.16, 5, alpha=1.2)
    with pytest.raises(ValueError, match="^rtt: "):
        theorem2(100, -0.16, 5)


def _regime(rtt: float, decrease: str = "paper", duration: float = 60.0):
    m = PertRed(rtt=rtt, decrease=decrease, **FIG13)
    c = m.simulate(duration).columns()
    return classify(c["t_s"], c["window_pkts"], m.equilibrium().w_star)


def test_fig13b_monotone_at_100ms():
    r = _regime(0.100)
    assert r.regime == "monotone" and r.crossings == 0 and r.amplitude_last < 1e-6


def test_fig13c_decaying_oscillation_at_160ms():
    r = _regime(0.160)
    assert r.regime == "decaying oscillation"
    assert r.crossings > 10 and r.amplitude_last < 0.005 and r.growth < 0.1


def test_fig13d_persistent_oscillation_at_171ms():
    r = _regime(0.171)
    # envelope of the last 10 s: the window swings over about its own size
    assert r.regime == "persistent oscillation" and r.amplitude_last > 0.8 and r.growth > 0.9


def test_linear_boundaries_explain_171_and_175():
    kappa = -math.log(0.99) / 1e-4
    # (14) as printed loses stability before Theorem 1's 171 ms (the paper: "not exact")
    assert linear_boundary_rtt(100, 5, 2.0, kappa, "paper") == pytest.approx(0.1658, abs=5e-4)
    # W(t-R) -> W(t), the proof's approximation: boundary between 171 and 175 ms, as the paper says
    assert linear_boundary_rtt(100, 5, 2.0, kappa, "current") == pytest.approx(0.1727, abs=5e-4)


def test_proof_form_oscillates_at_175ms():
    assert _regime(0.175, "current").regime == "persistent oscillation"
