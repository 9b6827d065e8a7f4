"""pertlab.Simulation: a run taken in steps gives pertlab.run's results, its live state moves
with the run, and a change between steps (a link's rate or delay, a flow's start or sending, a
controller's parameter) shows in the results at the instant it was made."""

import re
from pathlib import Path

import polars as pl
import pytest

import pertlab
from pertlab.scenario import ScenarioError


def scenario(**kw):
    args = dict(bw="20Mbps", rtt="40ms", flows=10, cc="sack", queue="red", duration="20s", warmup="5s", sample_interval="100ms")
    return pertlab.dumbbell(**{**args, **kw})



def test_a_run_in_steps_gives_the_results_of_one_run():
    s = scenario(cc_params=None)
    whole = pertlab.run(s)
    sim = pertlab.Simulation(s)
    for t in ["0.5s", 3, "5s", "5.0001s", "12345ms", "19.999s"]:
        assert not sim.run_until(t)
        sim.flows(), sim.queues()  # reading changes nothing
    assert sim.run_until("25s") and sim.now == 20.0
    stepped = sim.results()
    for name in ("flows", "queues", "queue_series", "flow_series"):
        assert getattr(stepped, name).equals(getattr(whole, name)), name
    assert stepped.summary["events"] == whole.summary["events"] and not stepped.summary["interrupted"]


def test_live_flows_and_queues():
    sim = pertlab.Simulation(scenario(flows=4, cc="pert"))
    sim.run_until("8s")
    flows, queues = sim.flows(), sim.queues()
    assert flows.height == 4 and set(flows["cc"]) == {"pert"} and flows["started"].all()
    # 40 ms of propagation: every srtt and min RTT is at least that, and the queue adds little under PERT.
    assert (flows["min_rtt_ns"] >= 40e6).all() and (flows["srtt_ns"] < 80e6).all()
    assert (flows["bytes_acked"] > 0).all() and set(flows["ca_state"]) <= {"open", "disorder", "cwr", "recovery", "loss"}
    bottleneck = queues.filter((pl.col("link") == "bottleneck") & (pl.col("from") == "r0")).row(0, named=True)
    assert bottleneck["discipline"] == "red" and bottleneck["rate_bps"] == 20_000_000 and bottleneck["average"] is not None
    # What the flows have acknowledged has left the bottleneck.
    assert flows["bytes_acked"].sum() <= bottleneck["departure_bytes"]
    assert sim.state()["now_ns"] == 8_000_000_000


def test_codel_and_pie_show_their_own_variables_between_steps():
    """CoDel's dropping state and count, PIE's delay estimate and burst allowance, read between
    steps on a bottleneck ten SACK flows overload; null for the DropTail access queues."""
    sim = pertlab.Simulation(scenario(queue="codel", duration="12s"))
    seen_dropping = 0
    for t in range(2, 12):
        sim.run_until(f"{t}s")
        q = sim.queues()
        b = q.filter((pl.col("link") == "bottleneck") & (pl.col("from") == "r0")).row(0, named=True)
        assert b["dropping"] in (0.0, 1.0) and b["count"] >= 0 and b["count"] == int(b["count"])
        # count resumes from the last state's, but never exceeds what CoDel has dropped or marked.
        assert b["count"] <= b["drops"] + b["marks"]
        if b["dropping"]:
            seen_dropping += 1
            # The next drop is due within one interval (100 ms) of now: INTERVAL / sqrt(count).
            assert t - 0.1 <= b["drop_next_s"] <= t + 0.1, b
        else:
            assert b["drop_next_s"] is None
        assert q.filter(pl.col("discipline") == "droptail")["dropping"].is_null().all()
    assert seen_dropping >= 2 and b["drops"] > 0
    pie = pertlab.Simulation(scenario(queue="pie", duration="6s"))
    pie.run_until("5s")
    b = pie.queues().filter((pl.col("link") == "bottleneck") & (pl.col("from") == "r0")).row(0, named=True)
    # Ten flows keep a standing queue: PIE's estimate is near its 15 ms target, its burst allowance spent.
    assert 0.0 < b["qdelay_old_s"] < 0.1 and b["burst_allowance_s"] == 0.0 and 0.0 < b["probability"] < 1.0, b
    assert pie.state()["queues"][0]["variables"] == {}
    # The XCP router's control interval is its flows' average RTT: 40 ms of propagation plus a small queue.
    xcp = pertlab.Simulation(scenario(cc="xcp", queue="xcp", duration="6s"))
    xcp.run_until("5s")
    b = xcp.queues().filter((pl.col("link") == "bottleneck") & (pl.col("from") == "r0")).row(0, named=True)
    assert 0.040 <= b["interval_s"] < 0.05 and abs(b["phi_bytes"]) < 20e6 / 8 * b["interval_s"], b


def test_a_rate_change_shows_in_the_series_at_that_instant():
    sim = pertlab.Simulation(scenario())
    sim.run_until("10s")
    sim.set_link_rate("bottleneck", "5Mbps")

    def departed() -> int:
        return sim.queues().filter((pl.col("link") == "bottleneck") & (pl.col("from") == "r0"))["departure_bytes"][0]

    # In the 100 ms after the change the bottleneck sends at most 5 Mbit/s' worth, and one
    # 1500-byte packet begun before it.
    d0 = departed()
    sim.run_until("10.1s")
    assert 0.9 * 62_500 < departed() - d0 <= 62_500 + 1500
    r = sim.results()
    delivered = (
        r.flow_series.group_by("t_s").agg(pl.col("delivered_bytes").sum()).sort("t_s")
        .with_columns(mbps=pl.col("delivered_bytes").diff() * 8 / 0.1 / 1e6)
    )
    before = delivered.filter(pl.col("t_s").is_between(6.0, 10.0, closed="right"))["mbps"].mean()
    after = delivered.filter(pl.col("t_s").is_between(10.3, 20.0, closed="right"))["mbps"].mean()
    # Payload rate: 1460 of each 1500 bytes. RED keeps the link about 93 % busy at 5 Mbit/s
    # with these ten flows (its thresholds stay those computed for 20 Mbit/s).
    assert 0.9 * 20 * 1460 / 1500 < before <= 20 * 1460 / 1500 + 0.2
    assert 0.85 * 5 * 1460 / 1500 < after <= 5 * 1460 / 1500 + 0.2
    # The queue series shows it from the first sample after the change. For about one round trip
    # (40 ms) the ACK clock still brings packets at the pace of the old rate, 15 Mbit/s (1250
    # packets/s) more than the link now sends: the queue grows by some 50 packets within 100 ms.
    q = r.queue_series.filter((pl.col("link") == "bottleneck") & (pl.col("from") == "r0")).sort("t_s")
    at = {round(t, 1): row for t, row in zip(q["t_s"], q.iter_rows(named=True))}
    assert at[10.1]["len_pkts"] > at[10.0]["len_pkts"] + 30, (at[10.0], at[10.1])
    # That queue is more than 100 ms of sending at 5 Mbit/s (42 packets): the link is busy
    # throughout the next two intervals, and the utilization (busy time, as the summary's) says so.
    assert at[10.1]["len_pkts"] > 42 and at[10.1]["utilization"] == at[10.2]["utilization"] == 1.0
    # Busy nearly all the time at the lower rate, while what it delivers fell to that rate (above);
    # before the change RED let it idle a tenth of the time at 20 Mbit/s.
    busy = lambda lo, hi: q.filter(pl.col("t_s").is_between(lo, hi, closed="right"))["utilization"].mean()  # noqa: E731
    assert busy(10.0, 20.0) > 0.97 and 0.8 < busy(6.0, 10.0) < 0.95, (busy(10.0, 20.0), busy(6.0, 10.0))
    assert at[0.0]["utilization"] == 0.0 and q["utilization"].is_between(0.0, 1.0).all()


def traced(**kw) -> pertlab.Scenario:
    """``scenario(**kw)`` with flow 0's RTT samples traced (``monitor.trace_flows``)."""
    wire = scenario(**kw).to_wire()
    wire["monitor"]["trace_flows"] = [0]
    return pertlab.Scenario.parse(wire)


def test_a_delay_change_shows_in_the_rtt_samples_right_after():
    """The bottleneck's delay 18 ms -> 48 ms at 5 s, then -> 8 ms at 6.5 s (both directions, so the
    base RTT goes 40 -> 100 -> 20 ms): every RTT sample of flow 0 taken once a round trip at the new
    delay has passed is the new base RTT plus the queue; none before the first change is. The live
    srtt follows at its pace."""
    s = traced(flows=4, duration="8s", warmup="1s")
    sim = pertlab.Simulation(s)
    sim.run_until("5s")
    sim.set_link_delay("bottleneck", "48ms")
    sim.run_until("6s")
    # The live srtt (RFC 6298's gain of 1/8, one sample a round trip) is most of the way there.
    assert 75e6 < sim.flows()["srtt_ns"][0] < 101e6
    sim.run_until("6.5s")
    sim.set_link_delay("bottleneck", 0.008)
    r = sim.results()
    rtt = r.trace_rtt.filter(pl.col("flow") == 0)

    def samples(lo: float, hi: float) -> pl.Series:
        return rtt.filter(pl.col("t_s").is_between(lo, hi, closed="right"))["ms"]

    # Base RTTs 40.64, 100.64 and 20.64 ms (the access links' and the transmissions' share is 0.64 ms).
    before, longer = samples(4.0, 5.0), samples(5.0 + 0.101, 6.5)
    assert min(len(before), len(longer)) > 100
    assert 40.6 <= before.min() and before.median() < 50
    assert 100.6 <= longer.min() and longer.median() < 110
    # After the cut, segments sent at once wait on the wire behind those sent before it (48 ms at
    # most), then take 20.64 ms: the first sample of the new base comes within 70 ms, and every
    # later one is at least that base (the held packets, released together, make a short queue).
    first = rtt.filter((pl.col("t_s") > 6.5) & (pl.col("ms") < 25.0))["t_s"].min()
    shorter = samples(first, 8.0)
    assert first < 6.5 + 0.048 + 0.021 + 0.001 and len(shorter) > 100
    assert 20.6 <= shorter.min() and shorter.median() < 30
    # The results give the base RTT of the delays in force at the end.
    assert r.flows["base_rtt_ms"][0] == pytest.approx(20.0)


def test_a_shorter_delay_lets_no_packet_overtake_another():
    """One Reno flow whose window (20 segments) never fills the buffer: the delay cut from 48 ms to
    8 ms while a window is on the wire. Were a packet sent after the cut to overtake one sent
    before it, the receiver would see a gap, send duplicate ACKs and the sender would retransmit;
    it does not, and every segment is delivered in order."""
    s = scenario(flows=1, cc="reno", queue="droptail", duration="6s", tcp={"max_cwnd": 20})
    sim = pertlab.Simulation(s)
    sim.set_link_delay("bottleneck", "48ms")
    sim.run_until("3s")
    sim.set_link_delay("bottleneck", "8ms")
    sim.run_until("3.2s")
    mid = sim.flows().row(0, named=True)
    r = sim.results()
    f = r.flows.row(0, named=True)
    assert f["retransmits"] == 0 and f["fast_recoveries"] == 0 and f["timeouts"] == 0
    assert r.bottleneck["drops"] == 0 and r.summary["conservation"]["ok"]
    # The window-limited flow sends faster once the round trip is shorter: 20 segments per RTT.
    assert mid["srtt_ns"] < 80e6 and f["goodput_mbps"] > 0


def test_a_stopped_flow_sends_nothing_new_until_resumed():
    sim = pertlab.Simulation(scenario(flows=3))
    sim.run_until("5s")
    sim.stop_flow(1)
    sim.run_until("7s")
    sent = sim.flows()["segments_sent"][1]
    sim.run_until("9s")
    assert sim.flows()["segments_sent"][1] == sent
    sim.resume_flow(1)
    sim.run_until("10s")
    assert sim.flows()["segments_sent"][1] > sent


def test_a_flow_starts_when_told_and_not_by_resume():
    """A flow due at 5 s: resume_flow at 1 s is refused naming its start time (it would do nothing),
    start_flow starts it then: it sends at once, and the results give 1 s as its start."""
    wire = scenario(flows=3, duration="8s", warmup="2s").to_wire()
    del wire["flows"][2]["start_window_ns"]
    wire["flows"][2]["start"] = "5s"
    sim = pertlab.Simulation(pertlab.Scenario.parse(wire))
    sim.run_until("1s")
    with pytest.raises(ScenarioError, match=r"^flow: flow 2 has not started \(its start time is 5 s\), so it cannot resume; start_flow starts it now"):
        sim.resume_flow(2)
    assert not sim.flows()["started"][2]
    sim.start_flow(2)
    flow = sim.flows().row(2, named=True)
    assert flow["started"] and flow["segments_sent"] > 0
    sim.run_until("3s")
    # Two seconds of a third of 20 Mbit/s at least.
    assert sim.flows()["bytes_acked"][2] > 2 * 20e6 / 3 / 8 / 2
    with pytest.raises(ScenarioError, match=r"^flow: flow 2 started already, at 1 s"):
        sim.start_flow(2)
    r = sim.results()
    assert r.flows["start_s"][2] == 1.0 and r.summary["conservation"]["ok"]


def vegas(**kw) -> pertlab.Scenario:
    """Four Vegas flows starting together on 20 Mbit/s and 40 ms, a DropTail buffer of four BDPs."""
    return scenario(flows=4, cc="vegas", queue="droptail", buffer_bdp=4, start_window="0s", duration="30s", **kw)


def test_vegas_alpha_and_beta_raised_mid_run_move_the_queue_its_flows_keep():
    """Each Vegas flow holds Linux's diff = cwnd (rtt - base) / base between alpha and beta (a
    truncated number: below beta + 1). Summed over the flows that is Q (1 + Q / BDP) for a queue of
    Q packets and a BDP of 67.7 (40.64 ms at 20 Mbit/s). With alpha, beta = 1, 3 (ns-2) four flows
    keep it in [4, 16]; raised to 10, 12 at 15 s, in [40, 52], and the queue follows within the
    second."""
    sim = pertlab.Simulation(vegas())
    sim.run_until("15s")
    for f in range(4):
        sim.set_cc_param(f, "beta", 12)  # beta first: it may never be below alpha
        sim.set_cc_param(f, "alpha", 10)
    r = sim.results()
    q = r.queue_series.filter((pl.col("link") == "bottleneck") & (pl.col("from") == "r0"))
    queued = lambda lo, hi: q.filter(pl.col("t_s").is_between(lo, hi, closed="right"))["len_pkts"].mean()  # noqa: E731
    diff_sum = lambda queue: queue * (1 + queue / 67.7)  # noqa: E731
    before, after = queued(8.0, 15.0), queued(16.0, 30.0)
    assert 4 * 1 <= diff_sum(before) <= 4 * (3 + 1), before
    assert 4 * 10 <= diff_sum(after) <= 4 * (12 + 1), after
    assert r.flows["retransmits"].sum() == 0  # the buffer never filled: the queue is Vegas's


def test_a_parameter_set_to_its_value_gives_the_bytes_of_a_plain_run():
    """Every kind with live parameters, one flow each, each set to what it already is at 2 s."""
    s = scenario(cc="pert:1,vegas:1,cubic:1,fast:1,dctcp:1,scalable:1", flows=None, duration="6s", warmup="1s")
    whole = pertlab.run(s)
    sim = pertlab.Simulation(s)
    sim.run_until("2s")
    for flow, field, value in [(0, "t_min", "5ms"), (0, "p_max", 0.05), (1, "alpha", 1), (2, "c", 0.4), (2, "beta", 0.7), (3, "alpha", 200), (4, "g", 1 / 16), (5, "a", 0.01)]:
        sim.set_cc_param(flow, field, value)
    stepped = sim.results()
    for name in ("flows", "queues", "queue_series", "flow_series"):
        assert getattr(stepped, name).equals(getattr(whole, name)), name
    assert stepped.summary["events"] == whole.summary["events"]


def test_live_params_are_the_cores_list_and_the_docs_table():
    """``Simulation.live_params()`` is what ``set_cc_param`` takes (each field changes, another is
    refused naming the list), and docs/simulation.md's table says the same."""
    live = pertlab.Simulation.live_params()
    assert live["pert"] == ("t_min", "t_max", "p_max", "decrease") and "reno" not in live
    doc = (Path(__file__).resolve().parents[2] / "docs" / "simulation.md").read_text()
    rows = re.findall(r"^  \| `([a-z-]+)` \| ((?:`\w+`(?:, )?)+) \|", doc, re.M)
    assert {kind: tuple(re.findall(r"`(\w+)`", fields)) for kind, fields in rows} == live
    for kind, fields in live.items():
        sim = pertlab.Simulation(pertlab.dumbbell(flows=1, cc=kind, duration="1s"))
        sim.run_until("0.5s")
        wire = sim.scenario.flows[0].cc.model_dump(by_alias=True)
        for field in fields:  # to the value it has, under the wire's name (`t_min_ns`, in ns)
            key = field if field in wire else f"{field}_ns"
            sim.set_cc_param(0, key, wire[key])
        with pytest.raises(ScenarioError, match=rf"not a parameter of {kind} that changes mid-run; those are {', '.join(fields)}$"):
            sim.set_cc_param(0, "bogus", 1)


def test_bad_controller_parameters_name_the_flow_the_field_and_what_is_allowed():
    s = scenario(flows=3, cc="pert:2,sack:1", duration="4s", warmup="1s")
    sim = pertlab.Simulation(s)
    sim.run_until("1s")
    # Out of range: the message a scenario holding the value gets.
    wire = s.to_wire()
    wire["flows"][1]["cc"]["p_max"] = 1.5
    with pytest.raises(ScenarioError) as scenario_error:
        pertlab.Scenario.parse(wire)
    with pytest.raises(ScenarioError) as set_error:
        sim.set_cc_param(1, "p_max", 1.5)
    assert str(set_error.value) == str(scenario_error.value) == "flows[1].cc.p_max: Input should be less than or equal to 1, got 1.5"
    # A check between two fields names both, the changed one first, and says which to change first.
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.cc\.t_min, flows\[0\]\.cc\.t_max: t_max must be greater than t_min \(12ms\), got 10ms \(t_max keeps its value: to move both, change t_max first\)$"):
        sim.set_cc_param(0, "t_min", "12ms")
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.cc\.t_min: cannot read 'soon' as a time"):
        sim.set_cc_param(0, "t_min", "soon")
    # A field that does not change mid-run, or none at all; a controller without such fields; no such flow.
    with pytest.raises(ScenarioError, match=r"^field: must name a parameter of pert; those that change mid-run are t_min, t_max, p_max, decrease$"):
        sim.set_cc_param(0, "", 0.9)
    for field in ("srtt_weight", "cwnd"):
        with pytest.raises(ScenarioError, match=rf"^flows\[0\]\.cc\.{field}: not a parameter of pert that changes mid-run; those are t_min, t_max, p_max, decrease$"):
            sim.set_cc_param(0, field, 0.9)
    with pytest.raises(ScenarioError, match=r"^flows\[2\]\.cc: flow 2's controller is reno, which has no parameters that change mid-run; those that have: pert \(t_min, .*vegas \(alpha, beta, gamma\)"):
        sim.set_cc_param(2, "p_max", 0.1)
    with pytest.raises(ScenarioError, match=r"^flow: no flow 3; the long flows are 0 to 2"):
        sim.set_cc_param(3, "p_max", 0.1)
    # Both names of a time are read; refused values changed nothing, accepted ones stay in force.
    sim.set_cc_param(0, "t_max_ns", 30_000_000)
    sim.set_cc_param(0, "t_min", "12ms")
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.cc\.t_min, flows\[0\]\.cc\.t_max: t_max must be greater than t_min \(12ms\), got 11ms$"):
        sim.set_cc_param(0, "t_max", "11ms")


def test_results_before_the_end_are_flagged_and_the_simulation_is_spent():
    sim = pertlab.Simulation(scenario())
    sim.run_until("8s")
    r = sim.results(to_end=False)
    assert r.summary["interrupted"] and r.summary["sim_seconds"] == pytest.approx(8.0)
    # Asked again where it stands: the same results; to the end: refused, the run cannot go on.
    assert sim.results(to_end=False) is r
    with pytest.raises(RuntimeError, match=r"^results\(to_end=False\) took this simulation's results short of its end"):
        sim.results()
    with pytest.raises(RuntimeError, match="were taken"):
        sim.run_until("9s")


def test_results_asked_again_are_the_same():
    """A notebook cell run twice asks for the results twice: the second call gets the same."""
    sim = pertlab.Simulation(scenario())
    r = sim.results()
    assert not r.interrupted and sim.results() is r and sim.results(to_end=False) is r


def test_bad_steps_and_changes_name_the_field():
    sim = pertlab.Simulation(scenario())
    sim.run_until("2s")
    with pytest.raises(ValueError, match=r"^t: 1 s is before the time already reached, 2 s"):
        sim.run_until("1s")
    with pytest.raises(ValueError, match="cannot read 'soon' as a time"):
        sim.run_until("soon")
    with pytest.raises(ScenarioError, match=r'^link: no link named "nowhere"; links: .*bottleneck'):
        sim.set_link_rate("nowhere", "1Mbps")
    with pytest.raises(ValueError, match="rate"):
        sim.set_link_rate("bottleneck", "0bps")
    with pytest.raises(ScenarioError, match=r'^link: no link named "nowhere"; links: .*bottleneck'):
        sim.set_link_delay("nowhere", "1ms")
    with pytest.raises(ValueError, match="cannot read 'slow' as a time"):
        sim.set_link_delay("bottleneck", "slow")
    with pytest.raises(ScenarioError, match=r"^flow: no flow 10; the long flows are 0 to 9"):
        sim.stop_flow(10)
    with pytest.raises(ScenarioError, match=r"^flow: -1 is not a flow number"):
        sim.resume_flow(-1)
    with pytest.raises(ScenarioError, match=r"^duration"):
        pertlab.Simulation({"duration": "0s"})


# Generated scenarios (the strategies of test_generated.py): stepping at drawn times, reading the
# live state at each, gives the results of one run.
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import scenario_strategies as gen  # noqa: E402


@settings(max_examples=12, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(gen.scenario(gen.BOUNDED), st.lists(st.floats(0.0, 1.2), min_size=1, max_size=4))
def test_generated_scenarios_give_the_same_results_in_steps(data, fractions):
    repaired = gen.repair(data)
    assume(repaired is not None)
    _, scenario = repaired
    try:
        whole = pertlab.run(scenario, memory_limit=256 * 2**20)
    except ScenarioError:
        assume(False)
    sim = pertlab.Simulation(scenario, memory_limit=256 * 2**20)
    for f in sorted(fractions):
        sim.run_until(max(sim.now, f * sim.duration))
        state = sim.state()
        assert len(state["flows"]) == whole.flows.height and state["now_ns"] == sim._core.now_ns()
    stepped = sim.results()
    for name in ("flows", "queues", "udp", "queue_series", "flow_series"):
        assert getattr(stepped, name).equals(getattr(whole, name)), name
    assert {k: v for k, v in stepped.summary.items() if k != "wall_seconds"} == {k: v for k, v in whole.summary.items() if k != "wall_seconds"}


@pytest.mark.parametrize(("method", "value", "field"), [("set_link_rate", "-5Mbps", "rate"), ("set_link_delay", "-1ms", "delay")])
def test_a_negative_rate_or_delay_is_refused_naming_it(method, value, field):
    """The core takes unsigned numbers: a negative one was an OverflowError from the binding."""
    sim = pertlab.Simulation(pertlab.dumbbell(bw="20Mbps", rtt="40ms", flows=2, duration="2s"))
    with pytest.raises(ScenarioError, match=rf"^{field}: must not be negative, got '{value}'$"):
        getattr(sim, method)("bottleneck", value)
