"""PERT/PI's integral at a long RTT: what happens when it winds up (crates/pertlab-sim/src/tcp/cc/pert_pi.rs,
"Wind-up"). Figure 14's path at 1 s (150 Mbit/s, 50 flows, a BDP of buffer), flow 0 sampled every second."""

import polars as pl
import pytest

from pertlab.builders import NS2_TCP, dumbbell
from pertlab.runner import run
from pertlab.scenario.controllers import PertPi

#: The stretch where the queue has long drained and the integral unwinds, in the 400 s run.
UNWIND = (300.0, 400.0)


def _fig14_at_1s(respond_in_slow_start: bool):
    s = dumbbell(
        cc="pert-pi", queue="droptail", bw="150Mbps", rtt="1000ms", flows=50, duration="400s", start_window="50s",
        warmup="300s", measure_end="400s", seed=1, buffer_bdp=1.0, tcp=NS2_TCP,
        cc_params={"pert-pi": {"respond_in_slow_start": respond_in_slow_start}}, sample_interval="1s", monitor_flows=[0],
    )  # fmt: skip
    return s, run(s)


@pytest.fixture(scope="module")
def wound_up():
    return _fig14_at_1s(False)


def test_without_responses_in_slow_start_the_integral_winds_up_and_the_link_idles(wound_up):
    """Slow start overfills the 12,500-packet buffer, the integral reaches 1 and every flow
    responds on every RTT down to its least window; long after the queue has drained the
    probability is still near 1 and the link nearly idle. With responses in slow start (the
    default) the same path is used."""
    _, r = wound_up
    f0 = r.flow_series.filter(pl.col("t_s").is_between(*UNWIND, closed="right"))
    q = r.queue_series.filter(pl.col("from") == "r0")
    assert q["len_pkts"].max() >= 12_000, "slow start fills the buffer"
    assert f0["p_response"].min() > 0.9, f0["p_response"].describe()
    assert f0["cwnd"].max() <= 3 and f0["qdelay_ms"].max() < 3.0
    assert r.summary["bottleneck"]["utilization"] < 0.05
    _, default = _fig14_at_1s(True)
    assert default.summary["bottleneck"]["utilization"] > 0.8
    assert default.flow_series.filter(pl.col("t_s").is_between(*UNWIND, closed="right"))["p_response"].max() < 0.5


def test_the_wound_up_integral_unwinds_at_most_at_the_rate_its_gains_allow(wound_up):
    """Below the target delay T_q* the law lowers p by (a - b) C (T_q* - T_q) per sample, w
    samples a second: at most (a - b) C w T_q* per second with an empty queue (3.8e-4 with the
    paper's parameters here, so over 2,600 s from 1 to 0). The measured fall of flow 0's
    probability matches that rate, at the queueing delay the flow estimates."""
    s, r = wound_up
    cc = s.flows[0].cc
    assert isinstance(cc, PertPi)
    a, b, w, target_s = cc.a, cc.b, cc.w_hz, cc.target_delay / 1e9
    f0 = r.flow_series.filter(pl.col("t_s").is_between(*UNWIND, closed="right"))
    t, p, qdelay_s = f0["t_s"].to_numpy(), f0["p_response"].to_numpy(), f0["qdelay_ms"].to_numpy() / 1e3
    fall_per_s = -float(((p[-1] - p[0]) / (t[-1] - t[0])))
    predicted = (a - b) * cc.capacity_pps * w * float((target_s - qdelay_s).mean())
    ceiling = (a - b) * cc.capacity_pps * w * target_s
    assert 0 < fall_per_s <= ceiling
    assert fall_per_s == pytest.approx(predicted, rel=0.1), (fall_per_s, predicted, ceiling)
