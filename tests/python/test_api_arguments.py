"""Arguments of the Python API that were wrong in type, out of range or of no use where given
(an audit of the API): each is refused with an error naming the argument and what it accepts,
and valid values still work."""

from __future__ import annotations

import inspect
import math

import numpy as np
import polars as pl
import pytest

import pertlab
from pertlab import ScenarioError
from pertlab.builders import ARGUMENT_KINDS, dumbbell, parking_lot
from pertlab.results import MAX_SEQ_MOD, rtt_by_seq_mod

SMALL = dict(bw="10Mbps", rtt="40ms", flows=2, duration="2s")
LOT = dict(routers=3, hosts=1, duration="2s")


class Odd:
    """A value of no type any argument takes."""

    def __repr__(self) -> str:
        return "<odd>"


# 1. Types ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("builder", [dumbbell, parking_lot], ids=lambda b: b.__name__)
def test_a_value_of_no_accepted_type_names_its_argument_for_every_argument(builder):
    for name in inspect.signature(builder).parameters:
        with pytest.raises(ValueError) as e:
            builder(**{name: Odd()})
        assert str(e.value).startswith(f"{name}: "), (name, str(e.value))


@pytest.mark.parametrize(
    "kw,message",
    [
        (dict(flows=1.5), "flows: must be an integer or None (the number of flows), got 1.5"),
        (dict(flows="2"), "flows: must be an integer or None (the number of flows), got '2'"),
        (dict(flows=True), "flows: must be an integer or None"),
        (dict(cc=None), "cc: must be a string (a controller or a mix, e.g. 'pert' or 'pert:25,sack:25'), got None"),
        (dict(queue=None), "queue: must be a string (a discipline: droptail, red,"),
        (dict(buffer_bdp="1"), "buffer_bdp: must be a number"),
        (dict(seed="1"), "seed: must be an integer"),
        (dict(ecn="yes"), "ecn: must be True or False"),
        (dict(reverse_flows=None), "reverse_flows: must be an integer"),
        (dict(web_sessions="1"), "web_sessions: must be an integer"),
        (dict(tcp=[1]), "tcp: must be a dict or None"),
        (dict(cc_params={"pert": 3}, cc="pert"), "cc_params: must be a dict of dicts or None"),
        (dict(video=3), "video: must be a string or None"),
        (dict(queue="wtp", flow_classes=[0, "1"]), "flow_classes: must be a list of integers or None"),
        (dict(queue="wtp", udp_load="0.1"), "udp_load: must be a number"),
    ],
)
def test_wrong_types_of_dumbbell_arguments_are_named(kw, message):
    with pytest.raises(ScenarioError) as e:
        dumbbell(**{**SMALL, **kw})
    assert str(e.value).startswith(message), str(e.value)


@pytest.mark.parametrize(
    "kw,name",
    [(dict(routers="3"), "routers"), (dict(hosts=None), "hosts"), (dict(cc=None), "cc"), (dict(queue=None), "queue"),
     (dict(cross_flows=[1, "a"]), "cross_flows"), (dict(long_flows=1.0), "long_flows"), (dict(equal_rtt=1), "equal_rtt"),
     (dict(buffer_pkts="5"), "buffer_pkts")],
)  # fmt: skip
def test_wrong_types_of_parking_lot_arguments_are_named(kw, name):
    with pytest.raises(ScenarioError, match=f"^{name}: must be "):
        parking_lot(**{**LOT, **kw})


def test_the_kinds_table_names_only_arguments_of_the_builders():
    arguments = set(inspect.signature(dumbbell).parameters) | set(inspect.signature(parking_lot).parameters)
    assert set(ARGUMENT_KINDS) <= arguments


def test_valid_values_of_every_accepted_type_still_build():
    s = dumbbell(bw="10Mbps", rtt="40ms", flows=np.int64(3), cc="pert", duration="2s", buffer_bdp=np.float64(0.5), seed=np.int64(7),
                 buffer_pkts=None, ecn=True, queue="red", aqm={"min_th": 5, "max_th": 15}, tcp={"initial_rto": "3s"},
                 cc_params={"pert": {"t_max": "10ms"}})  # fmt: skip
    assert len(s.flows) == 3 and s.seed == 7 and s.dumbbell.bottleneck_queue.red.max_th == 15
    c = dumbbell(**{**SMALL, "flows": 3}, queue="wtp", class_weights=(1, 2.5, 4), flow_classes=(0, 1, 2), udp_load=0.2, udp_split=[0.5, 0.25, 0.25])
    assert [f.class_ for f in c.flows] == [0, 1, 2] and len(c.udp) == 3
    lot = parking_lot(**LOT, cross_flows=(1, 0), long_flows=np.int32(2), equal_rtt=True, buffer_pkts=50)
    assert len(lot.flows) == 3
    assert pertlab.run(dumbbell(**{**SMALL, "flows": None}, cc="sack:1,pert:1")).flows.height == 2


# 2. memory_limit ---------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1e308, 2.0**64, 2**64, 0.5, -math.inf, math.nan, "1GB", True])
def test_a_memory_limit_beyond_the_core_s_bytes_is_refused_with_its_range(limit):
    scenario = dumbbell(**SMALL)
    message = f"^memory_limit: must be a positive number of bytes, 1 to {2**64 - 1} \\(2\\*\\*64 - 1\\), or math.inf for no limit, got "
    for call in (lambda: pertlab.run(scenario, memory_limit=limit), lambda: pertlab.Simulation(scenario, memory_limit=limit),
                 lambda: scenario.check(memory_limit=limit), lambda: dumbbell(**SMALL, memory_limit=limit)):  # fmt: skip
        with pytest.raises(ScenarioError, match=message):
            call()


def test_memory_limits_in_range_still_run():
    scenario = dumbbell(**SMALL)
    for limit in (2**64 - 1, 1e12, np.float64(1e12), math.inf):
        assert pertlab.run(scenario, memory_limit=limit).flows.height == 2
    assert dumbbell(**SMALL, memory_limit=2**64 - 1).flows


# 3. rtt_by_seq_mod's k ---------------------------------------------------------------------------

TRACE = pl.DataFrame({"seq": [0, 1, 4, 5, 8, 3], "ms": [10.0, 11.0, 12.0, 13.0, 14.0, 20.0]})


@pytest.mark.parametrize("k", [2**31, MAX_SEQ_MOD + 1, 0, -1, 2.5, "4", True, None])
def test_k_of_rtt_by_seq_mod_is_bounded_and_named(k):
    with pytest.raises(ValueError, match=rf"^k must be at least 1 and at most {MAX_SEQ_MOD} \(MAX_SEQ_MOD\), an integer, got "):
        rtt_by_seq_mod(TRACE, k)


def test_k_up_to_its_maximum_still_groups():
    assert rtt_by_seq_mod(TRACE, np.int64(4))["samples"].to_list() == [3, 2, 0, 1]
    g = rtt_by_seq_mod(TRACE, MAX_SEQ_MOD)
    assert g.height == MAX_SEQ_MOD and g["samples"].sum() == TRACE.height


# 4. Arguments given where they do not apply ------------------------------------------------------


@pytest.mark.parametrize(
    "kw,message",
    [
        (dict(aqm={"min_th": 5}), "aqm: applies only to an AQM queue (red, ared, reared, fared, cared, feng, nlred, jcc-red, pi, pie, codel, step, xcp); queue is 'droptail'"),
        (dict(aqm={"min_th": 5}, queue="wtp"), "aqm: applies only to an AQM queue (red, ared, reared, fared, cared, feng, nlred, jcc-red, pi, pie, codel, step, xcp); queue is 'wtp'"),
        (dict(monitor_flows=[0]), "monitor_flows: applies only with sample_interval (the time series it picks flows for); sample_interval is None"),
        (dict(web={"think_time": "1s"}), "web: applies only with web sessions (the parameters of their pair); web_sessions is 0"),
    ],
)
def test_arguments_that_do_not_apply_are_refused_naming_both(kw, message):
    with pytest.raises(ScenarioError) as e:
        dumbbell(**SMALL, **kw)
    assert str(e.value) == message


def test_aqm_on_a_parking_lot_without_aqm_is_refused():
    with pytest.raises(ScenarioError, match="^aqm: applies only to an AQM queue .*; queue is 'droptail'$"):
        parking_lot(**LOT, aqm={"min_th": 5})
    assert parking_lot(**LOT, queue="red", aqm={"min_th": 5}).links[0].queue.red.min_th == 5


def test_the_same_arguments_where_they_apply_still_run():
    s = dumbbell(**{**SMALL, "flows": 3}, queue="red", aqm={"min_th": 5, "max_th": 15}, sample_interval="100ms", monitor_flows=[0, 2],
                 web_sessions=2, web={"think_time": "1s"})  # fmt: skip
    assert s.dumbbell.bottleneck_queue.red.min_th == 5 and s.monitor.flows == [0, 2] and s.web[0].think_time == 10**9
    r = pertlab.run(s)
    assert r.bottleneck["discipline"] == "red" and sorted(r.flow_series["flow"].unique()) == [0, 2] and r.web["sessions"] == 2
    # Unset or empty, they are no argument given.
    assert dumbbell(**SMALL, aqm={}, monitor_flows=None, web=None).dumbbell.bottleneck_queue.kind == "droptail"


def test_the_package_s_callers_pass_only_what_applies():
    """The builders' callers that pass aqm, web or monitor_flows conditionally still build."""
    from pertlab import demo, tcp_eval_suite
    from pertlab.experiments import hua02

    assert tcp_eval_suite.eval_suite(queue="droptail", duration="10s").web
    assert tcp_eval_suite.eval_suite(duration="10s").dumbbell.bottleneck_queue.kind == "ared"
    run = hua02.LotRun.several(3, 1)
    assert hua02.vegas_lot(run, duration="10s", warmup="2s").links[0].queue.kind == "droptail"
    assert hua02.jcc_lot(run, duration="10s", warmup="2s").links[0].queue.kind == "jcc-red"
    assert all(demo.scenario_for(scheme, True, 1).monitor.flows == demo.FLOWS_SAMPLED for scheme in demo.SCHEMES)
