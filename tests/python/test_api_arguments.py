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


# 5. The rest of the API: run, Simulation, eval_suite, results, Scenario files, gym, fluid -------


@pytest.mark.parametrize("scenario", [None, 1.5, True, [1], 2**64])
def test_a_scenario_of_no_accepted_type_is_named(scenario):
    message = "^scenario: must be a Scenario, a dict or the path of a .toml or .json file, got "
    for call in (lambda: pertlab.run(scenario), lambda: pertlab.Simulation(scenario)):
        with pytest.raises(ScenarioError, match=message):
            call()


def test_scenario_files_that_cannot_be_read_are_named(tmp_path):
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ScenarioError, match=r"bin\.toml: not UTF-8 text"):
        pertlab.run(tmp_path / "bin.toml")
    with pytest.raises(ScenarioError, match=r"missing\.toml: cannot read the scenario file: No such file or directory"):
        pertlab.Scenario.load(tmp_path / "missing.toml")
    with pytest.raises(ScenarioError, match=r"cannot read the scenario file: Is a directory"):
        pertlab.Scenario.load(tmp_path)
    for path in (None, 3, ""):
        with pytest.raises(ScenarioError, match="^path: must be the path of a .toml or .json scenario file"):
            pertlab.Scenario.load(path)
    with pytest.raises(ScenarioError, match="^scenario: JSON text must be a str, bytes or bytearray, got None"):
        pertlab.Scenario.from_json(None)
    path = tmp_path / "ok.json"
    path.write_text(dumbbell(**SMALL).to_wire_json(indent=2))
    assert pertlab.Scenario.load(str(path)) == dumbbell(**SMALL)


@pytest.mark.parametrize("indent", [10**9, -1, 1.5, "  ", True])
def test_indent_of_the_wire_json_is_bounded(indent):
    with pytest.raises(ValueError, match=r"^indent: must be None or an integer from 0 to 64"):
        dumbbell(**SMALL).to_wire_json(indent=indent)


def test_flags_of_run_and_results_are_booleans():
    scenario = dumbbell(**SMALL)
    with pytest.raises(ScenarioError, match=r"^progress: must be True or False \(whether to show simulated time on stderr\), got 'no'"):
        pertlab.run(scenario, progress="no")
    with pytest.raises(ScenarioError, match=r"^to_end: must be True or False .*, got 0"):
        pertlab.Simulation(scenario).results(to_end=0)
    assert pertlab.Simulation(scenario).results(to_end=False).interrupted


@pytest.mark.parametrize("call,name", [
    (lambda s: s.set_link_rate(None, "5Mbps"), "link"), (lambda s: s.set_link_delay(3, "5ms"), "link"),
    (lambda s: s.set_cc_param(0, None, 0.5), "field"),
])  # fmt: skip
def test_names_given_to_a_simulation_must_be_strings(call, name):
    with pytest.raises(ScenarioError, match=f"^{name}: must be a string"):
        call(pertlab.Simulation(dumbbell(**SMALL)))


def test_controller_parameters_mid_run_name_their_field():
    sim = pertlab.Simulation(dumbbell(**SMALL, cc="pert"))
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.cc\.p_max: must be a number, got true$"):
        sim.set_cc_param(0, "p_max", True)
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.cc\.foo: must be finite, got nan$"):
        sim.set_cc_param(0, "foo", math.nan)
    sim.set_cc_param(0, "p_max", 0.2)
    assert sim.results().flows.height == 2


@pytest.mark.parametrize("kw,message", [
    (dict(cc=["pert"]), "cc: must be a string"), (dict(queue=""), "queue: unknown queue ''"), (dict(queue=0), "queue: must be a string or None"),
    (dict(pacing="yes"), "pacing: must be True or False"), (dict(seed=1.5), "seed: must be an integer"),
])  # fmt: skip
def test_eval_suite_arguments_are_named(kw, message):
    with pytest.raises(ScenarioError) as e:
        pertlab.eval_suite(duration="10s", **kw)
    assert str(e.value).startswith(message), str(e.value)
    assert pertlab.eval_suite(duration="10s", queue=None, pacing=True).dumbbell.bottleneck_queue.kind == "ared"


def test_drop_ratio_and_result_files_name_their_arguments(tmp_path):
    r = pertlab.run(dumbbell(**SMALL, cc="pert:1,sack:1"))
    with pytest.raises(TypeError, match=r"^results: must be the Results of a run"):
        pertlab.drop_ratio(None, "pert", "sack")
    with pytest.raises(ScenarioError, match=r"^of: must be a string"):
        pertlab.drop_ratio(r, ["pert"], "sack")
    with pytest.raises(ValueError, match=r"^to: no flows labelled 'vegas'; labels: pert, sack"):
        pertlab.drop_ratio(r, "pert", "vegas")
    with pytest.raises(ValueError, match=r"^out_dir: must be the path of a directory, got ''"):
        r.write("")
    with pytest.raises(TypeError, match=r"^out_dir: must be the path of a directory, got None"):
        pertlab.Results.read(None)
    with pytest.raises(ValueError, match=r"^out_dir: .* holds no results \(no summary.json\)"):
        pertlab.Results.read(tmp_path)
    assert pertlab.Results.read(r.write(tmp_path / "out")).flows.height == 2


AGENT = dict(SMALL, cc="agent:1,sack:1")


@pytest.mark.parametrize("kw,name", [
    (dict(multiplier_range=None), "multiplier_range"), (dict(multiplier_range=(0.5, 1, 2)), "multiplier_range"),
    (dict(rate_range=1.5), "rate_range"), (dict(rate_range=("1Mbps",)), "rate_range"), (dict(max_cwnd=True), "max_cwnd"),
    (dict(max_cwnd=2**64), "max_cwnd"), (dict(reward="x"), "reward"), (dict(delay_weight=None), "delay_weight"),
    (dict(loss_weight=math.inf), "loss_weight"), (dict(observe_queue=3), "observe_queue"),
])  # fmt: skip
def test_gym_constructor_arguments_are_named(kw, name):
    from pertlab.gym import CongestionEnv

    with pytest.raises(ScenarioError, match=f"^{name}: "):
        CongestionEnv(dumbbell(**AGENT), **kw)


@pytest.mark.parametrize("action", [None, "abc", math.nan, math.inf, [1.0, 2.0], {}])
def test_gym_actions_that_are_not_one_finite_number_per_agent_are_named(action):
    from pertlab.gym import CongestionEnv

    for kind in ("cwnd_multiplier", "cwnd", "pacing_rate"):
        env = CongestionEnv(dumbbell(**AGENT), action=kind)
        env.reset(seed=1)
        with pytest.raises(ScenarioError, match=rf"^action: must be 1 finite number \(one per agent flow, {kind}\), got "):
            env.step(action)
        assert env.step([1e308])[0].shape == (1, 8)  # out of range but finite: clipped to the action space


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "1", True])
def test_a_gym_reset_seed_out_of_range_is_named(seed):
    from pertlab.gym import CongestionEnv

    env = CongestionEnv(dumbbell(**AGENT))
    with pytest.raises(ScenarioError, match=r"^seed: must be None or an integer from 0 to 18446744073709551615"):
        env.reset(seed=seed)
    assert env.reset(seed=2**64 - 1)[0].shape == (1, 8)  # the largest seed runs


def test_a_gym_step_after_the_episode_ended_is_refused():
    from pertlab.gym import CongestionEnv

    env = CongestionEnv(dumbbell(**AGENT), step="500ms")
    env.reset(seed=1)
    ends = [env.step([1.0])[2] for _ in range(3)]
    assert ends == [False, False, True]  # 2 s in steps of 0.5 s, the first taken by reset
    with pytest.raises(RuntimeError, match=r"^the episode is over \(terminated at the run's end, 2 s\); call reset\(\)"):
        env.step([1.0])
    env.reset(seed=2)
    assert env.step([1.0])[2] is False


def test_a_gym_reward_that_is_not_a_number_is_named():
    from pertlab.gym import CongestionEnv

    env = CongestionEnv(dumbbell(**AGENT), reward=lambda obs, info: "x")
    env.reset(seed=1)
    with pytest.raises(TypeError, match=r"^reward: the callable must return a number, it returned 'x'"):
        env.step([1.0])
    env = CongestionEnv(dumbbell(**AGENT), reward=lambda obs, info: np.float32(0.5), delay_weight=0, loss_weight=np.float64(2))
    env.reset(seed=1)
    assert env.step([1.0])[1] == 0.5


@pytest.mark.parametrize("kw,message", [
    (dict(flows=math.nan), "flows: must be a positive integer, got nan"), (dict(flows=math.inf), "flows: must be a positive integer, got inf"),
    (dict(flows=1e308), "flows: must be a positive integer (at least one flow, at most 4294967295)"),
    (dict(initial=None), "initial: needs 3 values (W, T_q, filtered T_q), got None"), (dict(initial="abc"), "initial: needs 3 values"),
    (dict(initial=(1, math.nan, 1)), "initial[1]: must be finite, got nan"), (dict(initial=(1, "a", 1)), "initial[1]: must be a number"),
])  # fmt: skip
def test_fluid_model_parameters_are_named(kw, message):
    from pertlab.fluid import PertRed

    with pytest.raises(ValueError) as e:
        PertRed(**{"capacity": 100, "rtt": 0.16, "flows": 5, **kw})
    assert str(e.value).startswith(message), str(e.value)
    assert PertRed(capacity=100, rtt=0.16, flows=5.0, initial=[1, 1, 1]).params.flows == 5.0


def test_fluid_tcp_red_arguments_are_named():
    from pertlab.fluid import FlowGroup, TcpRed

    with pytest.raises(ValueError, match=r"^gentle: must be True or False, got 'no'"):
        TcpRed.homogeneous(capacity=1250, flows=40, prop_delay=0.2, gentle="no")
    with pytest.raises(ValueError, match=r"^flows: groups must be a tuple of FlowGroup, got \[1\]"):
        TcpRed(capacity=1250, groups=[1])
    with pytest.raises(ValueError, match=r"^on: must be a non-empty list of \(start, stop\) intervals"):
        FlowGroup(count=5, prop_delay=0.1, on=None)
    with pytest.raises(ValueError, match=r"^on: each interval is a pair \(start, stop\) of seconds, got 1"):
        FlowGroup(count=5, prop_delay=0.1, on=[1, 2])
    assert FlowGroup(count=5, prop_delay=0.1, on=[(0, 1), (2, 3)]).active(2.5)


@pytest.mark.parametrize("kw,message", [
    (dict(record_every=0), "record_every: must be an integer of at least 1"), (dict(record_every=1.5), "record_every: must be an integer"),
    (dict(record_every="2"), "record_every: must be an integer"), (dict(duration=1e308), "step, duration: 1e+308 s in steps of 0.001 s"),
])  # fmt: skip
def test_fluid_simulate_arguments_are_named(kw, message):
    from pertlab.fluid import PertRed

    model = PertRed(capacity=100, rtt=0.16, flows=5)
    with pytest.raises(ValueError) as e:
        model.simulate(**{"duration": 1, **kw})
    assert str(e.value).startswith(message), str(e.value)
    assert model.simulate(1, record_every=np.int64(100)).trajectory.t.shape == (11,)
