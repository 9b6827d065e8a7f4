"""Congestion controllers written in Python (cc kind "py", docs/python-cc.md): Reno written in
Python gives the bytes of the core's Reno, alone and beside Rust flows; a failure in user code
stops the run with the traceback, the simulated time, the flow and the hook, and keeps the
results; bad names and classes are refused naming the field."""

import json
from pathlib import Path

import pytest

import pertlab
from pertlab import _core
from pertlab.scenario import ScenarioError
import conftest
from conftest import canonical_short as dumbbell, write_module

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python_cc"


@pytest.fixture(autouse=True)
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))


def assert_same_run(a, b):
    conftest.assert_same_run(a, b, ("cc", "label"))


@pytest.mark.parametrize("kw", [dict(queue="droptail"), dict(queue="red", ecn=True, bw="20Mbps")], ids=["canonical", "red-ecn-20M"])
def test_reno_in_python_gives_the_bytes_of_rust_reno(kw):
    rust = pertlab.run(dumbbell(**kw))
    python = pertlab.run(dumbbell(cc="py:reno:Reno", **kw))
    assert set(python.flows["cc"]) == {"py:reno:Reno"} and set(rust.flows["cc"]) == {"reno"}
    assert_same_run(python, rust)
    # Not a vacuous comparison: the flows reduced their windows on losses (or ECN marks:
    # the ssthresh hook answers both) and recovered, and filled the link.
    f = rust.flows
    reductions = f["fast_recoveries"].sum() + f["ecn_reductions"].sum() + f["timeouts"].sum()
    assert reductions >= 6 and f["retransmits"].sum() + f["ecn_reductions"].sum() > 20
    assert rust.bottleneck["utilization"] > 0.9


def test_reno_in_python_gives_the_bytes_of_rust_reno_on_the_canonical_dumbbell():
    """The issue's own scenario, unshortened: 150 Mbit/s, 60 ms, 50 flows, 100 s, DropTail."""
    rust = pertlab.run(pertlab.dumbbell(cc="reno"))
    python = pertlab.run(pertlab.dumbbell(cc="py:reno:Reno"))
    assert_same_run(python, rust)
    assert rust.bottleneck["departures"] > 500_000 and rust.flows["fast_recoveries"].sum() > 1000


def test_python_and_rust_controllers_mixed():
    rust = pertlab.run(dumbbell(cc="reno:3,cubic:3", flows=None))
    mixed = pertlab.run(dumbbell(cc="py:reno:Reno:3,cubic:3", flows=None))
    assert list(mixed.flows["cc"]) == ["py:reno:Reno"] * 3 + ["cubic"] * 3
    assert_same_run(mixed, rust)


def test_a_delay_based_controller_in_python_keeps_the_queue_short():
    reno = pertlab.run(dumbbell(queue="droptail"))
    delay = pertlab.run(dumbbell(queue="droptail", cc="py:target_delay:TargetDelay"))
    # Reno fills the bandwidth-delay product's buffer (750 packets) to some 470 on average; the
    # delay-based flows (5 ms of queueing is 62.5 packets at 150 Mbit/s) keep it under a third
    # of that, at a cost in utilization while they grow back by one segment per RTT.
    assert delay.bottleneck["avg_queue_pkts"] < reno.bottleneck["avg_queue_pkts"] / 3
    assert reno.bottleneck["utilization"] > 0.95 and delay.bottleneck["utilization"] > 0.6


def test_a_stepped_run_with_python_controllers_gives_the_same_bytes():
    s = dumbbell(cc="py:reno:Reno:2,reno:2", flows=None, duration="2s")
    whole = pertlab.run(s)
    sim = pertlab.Simulation(s)
    for t in ["0.3s", "1s", "1.7s"]:
        sim.run_until(t)
        assert sim.flows().height == 4
    assert_same_run(sim.results(), whole)


def test_python_hooks_run_for_the_flows_that_name_the_class_only(tmp_path, monkeypatch):
    """A Python controller costs only the flows that use it: the core calls Python for them and for
    no other flow (the cost per ACK is in BENCHMARKS.md), once per ACK of new data."""
    write_module(tmp_path, monkeypatch, "counting_cc", '''
from reno import Reno

CALLS = {}

class Counting(Reno):
    def pkts_acked(self, tp, acked, rtt_ns):
        CALLS[tp.flow] = CALLS.get(tp.flow, 0) + 1
''')
    r = pertlab.run(dumbbell(cc="reno:2,py:counting_cc:Counting:2,reno:2", flows=None, duration="2s", warmup="0s"))
    import counting_cc

    assert list(r.flows["cc"]) == ["reno", "reno", "py:counting_cc:Counting", "py:counting_cc:Counting", "reno", "reno"]
    assert set(counting_cc.CALLS) == {2, 3}
    for f in (2, 3):
        # ACKs of new data: most of the ACKs the flow's receiver sent (not the duplicates).
        assert 0.5 * r.flows["acks_sent"][f] < counting_cc.CALLS[f] <= r.flows["acks_sent"][f]


FAILING = '''
class Fails:
    def ssthresh(self, tp):
        return max(tp.snd_cwnd >> 1, 2)

    def cong_avoid(self, tp, acked):
        if tp.now > 1_000_000_000 and tp.flow == 2:
            helper(tp)
        tp.snd_cwnd += 1 if tp.snd_cwnd < tp.snd_ssthresh else 0


def helper(tp):
    return 1 / (tp.snd_cwnd - tp.snd_cwnd)
'''


def test_an_exception_in_a_hook_stops_the_run_with_traceback_time_and_flow(tmp_path, monkeypatch):
    write_module(tmp_path, monkeypatch, "failing_cc", FAILING)
    s = dumbbell(cc="py:failing_cc:Fails", flows=4, duration="3s")
    with pytest.raises(pertlab.ModelError) as info:
        pertlab.run(s)
    message = str(info.value)
    assert message.startswith("flows[2] (py:failing_cc:Fails), hook cong_avoid, at simulated time 1.")
    assert "Traceback" in message and "in helper" in message and "ZeroDivisionError" in message
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    # The results up to that event are kept, flagged as interrupted.
    partial = info.value.results
    stopped_at = float(message.split("at simulated time ")[1].split(" s")[0])
    assert partial.interrupted and 1.0 < stopped_at < 1.5
    assert 0 < partial.summary["events"] and partial.flows["goodput_bytes"].sum() > 0
    # The same failure in a run taken in steps: raised by the step, the results stay available.
    sim = pertlab.Simulation(s)
    assert not sim.run_until("0.9s")
    with pytest.raises(pertlab.ModelError, match=r"flows\[2\].*cong_avoid"):
        sim.run_until("2s")
    assert sim.results(to_end=False).summary["events"] == partial.summary["events"]


@pytest.mark.parametrize(
    "value,shown",
    [("0", "to 0;"), ("-3", "to -3;"), ("2.5", "to 2.5 (a float)"), ("float('nan')", "to nan (a float)"), ("True", "to True (a bool)"), ("'10'", "to '10' (a str)")],
)
def test_a_hook_that_sets_an_invalid_window_is_named_with_the_value(tmp_path, monkeypatch, value, shown):
    module = f"bad_window_{abs(hash(value))}"  # one module per value: imports are cached
    write_module(tmp_path, monkeypatch, module, f'''
class Bad:
    def ssthresh(self, tp):
        return 2

    def cong_avoid(self, tp, acked):
        if tp.now > 500_000_000:
            tp.snd_cwnd = {value}
''')
    with pytest.raises(pertlab.ModelError) as info:
        pertlab.run(dumbbell(cc=f"py:{module}:Bad", flows=2, duration="1s"))
    message = str(info.value)
    assert ", hook cong_avoid, at simulated time 0.5" in message
    assert f"it set tp.snd_cwnd {shown}" in message and "integer number of segments" in message


def test_a_hook_that_returns_an_invalid_window_is_named(tmp_path, monkeypatch):
    write_module(tmp_path, monkeypatch, "bad_ssthresh", '''
class Bad:
    def ssthresh(self, tp):
        return tp.snd_cwnd // 1000

    def cong_avoid(self, tp, acked):
        tp.snd_cwnd += acked
''')
    with pytest.raises(pertlab.ModelError, match=r"hook ssthresh, at simulated time [0-9.]+ s: it returned 0;"):
        pertlab.run(dumbbell(cc="py:bad_ssthresh:Bad", flows=2, duration="2s"))


def test_hooks_see_the_state_and_draw_from_the_flows_stream(tmp_path, monkeypatch):
    write_module(tmp_path, monkeypatch, "spy", '''
SEEN = {}

class Spy:
    def init(self, tp):
        SEEN.setdefault("init", []).append((tp.flow, tp.snd_cwnd, tp.snd_ssthresh, tp.mss))

    def ssthresh(self, tp):
        return max(tp.snd_cwnd >> 1, 2)

    def cong_avoid(self, tp, acked):
        SEEN.setdefault("draws", []).append(tp.uniform())
        if tp.snd_cwnd < 20:
            tp.snd_cwnd += acked

    def pkts_acked(self, tp, acked, rtt_ns):
        SEEN.setdefault("rtt", []).append(rtt_ns)

    def set_state(self, tp, state):
        SEEN.setdefault("states", set()).add(state)

    def cwnd_event(self, tp, event):
        SEEN.setdefault("events", set()).add(event)
        try:
            tp.uniform()
        except RuntimeError as e:
            SEEN["no_stream"] = str(e)
''')
    pertlab.run(dumbbell(cc="py:spy:Spy", flows=2, duration="1s", bw="10Mbps"))
    import spy

    seen = spy.SEEN
    # Initial window 2 segments (the builder's TCP default), ssthresh "infinite" (Linux's 0x7fffffff).
    assert sorted(seen["init"]) == [(0, 2, 0x7FFFFFFF, 1500), (1, 2, 0x7FFFFFFF, 1500)]
    assert len(seen["draws"]) > 100 and all(0.0 <= d < 1.0 for d in seen["draws"])
    assert 0.4 < sum(seen["draws"]) / len(seen["draws"]) < 0.6
    rtts = [r for r in seen["rtt"] if r is not None]
    assert rtts and min(rtts) >= 60_000_000
    assert "tx_start" in seen["events"] and "in cong_avoid and pkts_acked only" in seen["no_stream"]


def test_a_scenario_file_finds_modules_in_its_directory(tmp_path):
    (tmp_path / "mine.py").write_text((EXAMPLES / "reno.py").read_text().replace("class Reno", "class Mine"))
    wire = json.loads(dumbbell(flows=2, duration="1s").to_wire_json())
    wire["flows"][1]["cc"] = {"kind": "py", "target": "mine:Mine"}
    (tmp_path / "s.json").write_text(json.dumps(wire))
    r = pertlab.run(tmp_path / "s.json")
    assert list(r.flows["cc"]) == ["reno", "py:mine:Mine"]


@pytest.mark.parametrize(
    "target,message",
    [
        ("nosuchmodule_xyz:Cls", "cannot import module 'nosuchmodule_xyz'"),
        ("reno:NoSuchClass", "has no class 'NoSuchClass'"),
        ("reno:slow_start", "has no class 'slow_start'"),
    ],
)
def test_unimportable_targets_are_refused_naming_the_field(target, message):
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.cc\.target: .*" + message):
        pertlab.run(dumbbell(cc=f"py:{target}", flows=1, duration="1s"))


def test_a_class_without_the_required_hooks_is_refused(tmp_path, monkeypatch):
    write_module(tmp_path, monkeypatch, "half", "class Half:\n    def ssthresh(self, tp):\n        return 2\n")
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.cc\.target: class half:Half lacks the hook cong_avoid; a controller defines ssthresh and cong_avoid"):
        pertlab.Simulation(dumbbell(cc="py:half:Half", flows=1, duration="1s"))


@pytest.mark.parametrize("cc", ["py:reno", "py:reno:", "py:1reno:Reno", "py:re-no:Reno", "py::Reno"])
def test_malformed_names_are_refused_with_the_form(cc):
    with pytest.raises(ScenarioError, match=r"^cc: a controller written in Python is py:module:Class .*; got"):
        dumbbell(cc=cc, flows=1)
    # In a scenario (the string shorthand, or a table), pydantic says the same of the field.
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.cc\.target: must be module:Class"):
        pertlab.Scenario.parse({"duration": "1s", "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}],
                                "flows": [{"src": "a", "dst": "b", "cc": cc}]})  # fmt: skip


def test_the_core_checks_the_target_form_and_refuses_py_for_web():
    wire = json.loads(dumbbell(flows=1, duration="1s").to_wire_json())
    wire["flows"][0]["cc"] = {"kind": "py", "target": "reno.Reno"}
    with pytest.raises(ValueError, match=r"^flows\[0\]\.cc\.target: must be module:Class"):
        _core.validate_json(json.dumps(wire))
    wire["flows"][0]["cc"] = {"kind": "py", "target": "reno:Reno"}
    with pytest.raises(ValueError, match=r'flows\[0\]\.cc\.target: no Python class was supplied for "reno:Reno"'):
        _core.run_json(json.dumps(wire))
    graph = {"duration": "1s", "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}]}
    web = {"clients": ["a"], "servers": ["b"], "sessions": 1, "cc": "py:reno:Reno"}
    with pytest.raises(ScenarioError, match=r'web\[0\]\.cc: a "py" controller drives long flows only'):
        pertlab.Scenario.parse({**graph, "web": [web]})
    wire = json.loads(pertlab.Scenario.parse({**graph, "web": [{**web, "cc": "reno"}]}).to_wire_json())
    wire["web"][0]["cc"] = {"kind": "py", "target": "reno:Reno"}
    with pytest.raises(ValueError, match=r'^web\[0\]\.cc\.kind: a "py" controller drives long flows only'):
        _core.validate_json(json.dumps(wire))


def test_the_command_line_runs_python_controllers_from_the_current_directory(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from pertlab.cli import app

    monkeypatch.chdir(EXAMPLES)
    args = ["dumbbell", "--bw", "10Mbps", "--rtt", "40ms", "--duration", "2s", "--json"]
    ok = CliRunner().invoke(app, [*args, "--cc", "py:target_delay:TargetDelay:2,reno:2"], catch_exceptions=False)
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["events"] > 10_000
    (tmp_path / "raises.py").write_text("class R:\n    def ssthresh(self, tp):\n        return 2\n    def cong_avoid(self, tp, acked):\n        raise OSError('no')\n")
    monkeypatch.chdir(tmp_path)
    failed = CliRunner().invoke(app, [*args, "--cc", "py:raises:R", "--flows", "1"], catch_exceptions=False)
    assert failed.exit_code == 1
    assert "error: flows[0] (py:raises:R), hook cong_avoid, at simulated time" in failed.output and "OSError: no" in failed.output


def test_the_command_line_writes_the_results_up_to_a_failure(tmp_path, monkeypatch):
    """A controller that fails at 1 s: the message, exit status 1, and with --out the results up
    to the failure written there (flagged interrupted), which stderr says."""
    from typer.testing import CliRunner

    from pertlab.cli import app
    from pertlab.results import Results

    write_module(tmp_path, monkeypatch, "failing_cli", FAILING)
    out = tmp_path / "out"
    args = ["dumbbell", "--bw", "10Mbps", "--rtt", "40ms", "--flows", "4", "--duration", "3s", "--cc", "py:failing_cli:Fails", "--sample-interval", "100ms"]
    failed = CliRunner().invoke(app, [*args, "--out", str(out)], catch_exceptions=False)
    assert failed.exit_code == 1
    assert "error: flows[2] (py:failing_cli:Fails), hook cong_avoid, at simulated time 1." in failed.output
    stopped_at = float(failed.output.split("at simulated time ")[1].split(" s")[0])
    assert f"results up to the failure ({stopped_at:g} s simulated, flagged interrupted) in {out}/" in " ".join(failed.output.split())
    partial = Results.read(out)
    assert partial.interrupted and partial.data["sim_seconds"] == pytest.approx(stopped_at)
    assert partial.flows.height == 4 and partial.flows["goodput_bytes"].sum() > 0
    # The series stop at the failure.
    assert 0.9 < partial.queue_series["t_s"].max() <= stopped_at
    # Without --out nothing is written, and the exit status is the same.
    monkeypatch.chdir(tmp_path)
    again = CliRunner().invoke(app, args, catch_exceptions=False)
    assert again.exit_code == 1 and "results up to the failure" not in again.output
    assert {p.name for p in tmp_path.iterdir()} - {"__pycache__"} == {"failing_cli.py", "out"}
