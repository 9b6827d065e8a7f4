"""Fluid models: the equilibrium of every model against its closed form (1 %),
and domain errors that name the parameter."""

from __future__ import annotations

import math

import pytest

from pertlab.fluid import FlowGroup, PertPi, PertRed, SurathkalTcpRed, TcpRed, TcpRedParams, pert_operating_point
from pertlab.fluid.models import red_drop_probability


def rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


def test_pert_red_equilibrium_closed_form_and_simulation():
    m = PertRed(capacity=100, rtt=0.1, flows=5)
    eq = m.equilibrium()
    assert eq.w_star == pytest.approx(0.1 * 100 / 5)  # W* = R C / N
    assert eq.p_star == pytest.approx(2 * 5**2 / (0.1 * 100) ** 2)  # p* = 2 N^2 / (R C)^2 = 0.5
    assert eq.tq_star_s == pytest.approx(0.05 + 0.5 / 2.0)  # T_min + p*/L
    f = m.simulate(40).final()
    assert rel(f["window_pkts"], eq.w_star) < 0.01
    assert rel(f["p"], eq.p_star) < 0.01
    assert rel(f["filtered_delay_s"], eq.tq_star_s) < 0.01


def test_pert_pi_converges_to_target_and_closed_form():
    m = PertPi(capacity=1000, prop_delay=0.1, flows=5, target=0.01)
    eq = m.equilibrium()
    R = 0.11
    assert eq.w_star == pytest.approx(R * 1000 / 5)
    assert eq.p_star == pytest.approx(2 * 25 / (R * 1000) ** 2)
    f = m.simulate(60).final()
    assert rel(f["window_pkts"], eq.w_star) < 0.01
    assert rel(f["p"], eq.p_star) < 0.01
    assert rel(f["queueing_delay_s"], 0.01) < 0.01


@pytest.mark.parametrize("cls", [TcpRed, SurathkalTcpRed])
def test_tcp_red_models_reach_their_equilibrium(cls):
    m = cls.homogeneous(1250, 60, 0.1)  # Misra et al.'s 60 flows; converges
    eq = m.equilibrium()
    R = 0.1 + eq.q_star_pkts / 1250
    assert eq.r_star_s == pytest.approx(R)
    assert eq.p_star == pytest.approx(red_drop_probability(eq.q_star_pkts, 150, 200, 0.1))
    if cls is TcpRed:  # W* = R C / N, p* = 2 N^2 / (R C)^2
        assert eq.w_star == pytest.approx(R * 1250 / 60)
        assert eq.p_star == pytest.approx(2 * 60**2 / (R * 1250) ** 2)
    else:  # alpha = p closure: W* p* = sqrt(2), and the link is full
        assert eq.w_star * eq.p_star == pytest.approx(math.sqrt(2))
        assert eq.w_star == pytest.approx(R * 1250 / 60)
    f = m.simulate(100, step=2e-3).final()
    assert rel(f["window_pkts"], eq.w_star) < 0.01
    assert rel(f["avg_queue_pkts"], eq.q_star_pkts) < 0.01
    assert rel(f["queue_pkts"], eq.q_star_pkts) < 0.01


def test_groups_leave_and_return():
    groups = (FlowGroup(20, 0.2, ((0.0, 5.0), (8.0, 20.0))), FlowGroup(20, 0.2))
    m = TcpRed(TcpRedParams(capacity=1250, groups=groups))
    assert m.equilibrium(at=6.0).w_star > m.equilibrium(at=1.0).w_star  # fewer flows, larger windows
    c = m.simulate(10, step=2e-3).columns()
    i = int((abs(c["t_s"] - 8.01)).argmin())
    assert c["window_0_pkts"][i] < 1.1  # restarted at one packet
    assert c["active_flows"][int((abs(c["t_s"] - 6.0)).argmin())] == 20


def test_pert_operating_point():
    eq = pert_operating_point(50e6 / 12000, 0.06, 30)
    w = (0.06 + eq.tq_star_s) * 50e6 / 12000 / 30
    assert eq.w_star == pytest.approx(w)
    assert eq.p_star == pytest.approx(1 / (0.35 * w * w))
    assert 0.005 < eq.tq_star_s < 0.010  # on the linear part of the curve


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(flows=0), "flows"),
        (dict(rtt=-0.1), "rtt"),
        (dict(tmin=0.1, tmax=0.1), "tmin, tmax"),  # either may be the one given
        (dict(tmin=0.2, tmax=0.1), "tmin, tmax"),
        (dict(alpha=1.0), "alpha"),
        (dict(alpha=0.0), "alpha"),
        (dict(capacity=0), "capacity"),
        (dict(delta=-1e-4), "delta"),
    ],
)
def test_domain_errors_name_the_parameter(kw, name):
    args = dict(capacity=100, rtt=0.16, flows=5)
    args.update(kw)
    with pytest.raises(ValueError, match=rf"^{name}: "):
        PertRed(**args)


def test_tcp_red_domain_errors():
    with pytest.raises(ValueError, match=r"^flows: "):
        TcpRed.homogeneous(1250, 0, 0.2)
    with pytest.raises(ValueError, match=r"^min_th, max_th: "):
        TcpRed.homogeneous(1250, 40, 0.2, min_th=200, max_th=150)
    with pytest.raises(ValueError, match=r"^w_q: "):
        TcpRed.homogeneous(1250, 40, 0.2, w_q=1.5)
    with pytest.raises(ValueError, match=r"^rtt: "):
        PertPi(capacity=100, prop_delay=-0.01, flows=5)
