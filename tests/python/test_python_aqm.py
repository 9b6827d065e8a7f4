"""Queue disciplines written in Python (queue kind "py", docs/python-aqm.md): RED written in Python
gives the bytes of the core's RED, with and without ECN and in steps; a sojourn-time discipline
with a timer keeps the delay near its target; a failure in user code stops the run with the
traceback, the simulated time, the queue and the hook, and keeps the results; bad classes and
names are refused naming the field."""

import json
from pathlib import Path

import polars as pl
import pytest

import pertlab
from pertlab.scenario import ScenarioError
import conftest
from conftest import canonical_short as dumbbell, write_module

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python_aqm"


@pytest.fixture(autouse=True)
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))


def assert_same_run(a, b):
    conftest.assert_same_run(a, b, ("discipline",))


# RED's mean packet size, which only its idle-time decay reads in packet mode: the builder gives
# the core's RED the flows' packet size, the example's class takes the first data packet's. A
# subclass with ns-3's 500 bytes matches a core RED given 500 (on the canonical dumbbell RED acts
# more with it: 26 early drops in 4 s where 1500 bytes give 1).
RED_500 = "from red import Red\n\n\nclass Red500(Red):\n    mean_pkt_size = 500\n"


@pytest.mark.parametrize(
    "target,aqm,kw",
    [("red_500:Red500", {"mean_pkt_size": 500}, {}), ("red:RedEcn", None, dict(ecn=True, bw="20Mbps"))],
    ids=["canonical-500B", "ecn-20M"],
)
def test_red_in_python_gives_the_bytes_of_rust_red(target, aqm, kw, tmp_path, monkeypatch):
    write_module(tmp_path, monkeypatch, "red_500", RED_500)
    rust = pertlab.run(dumbbell(queue="red", aqm=aqm, **kw))
    python = pertlab.run(dumbbell(queue=f"py:{target}", **kw))
    assert python.bottleneck["discipline"] == f"py:{target}" and rust.bottleneck["discipline"] == "red"
    assert_same_run(python, rust)
    # Not a vacuous comparison: RED dropped (or marked) early and drew from the queue's stream,
    # its average moved, and the flows responded.
    b = rust.bottleneck
    assert b["drops"] + b["marks"] > 20, b
    assert rust.queue_series["avg"].max() > 5  # above min_th
    f = rust.flows
    assert f["fast_recoveries"].sum() + f["ecn_reductions"].sum() + f["timeouts"].sum() >= 6


def test_red_in_python_gives_the_bytes_of_rust_red_on_the_canonical_dumbbell():
    """The issue's own scenario, unshortened (150 Mbit/s, 60 ms, 50 Reno flows, 100 s) with RED
    at the bottleneck as the builder sets it up, and RED written in Python as it comes."""
    rust = pertlab.run(pertlab.dumbbell(cc="reno", queue="red"))
    python = pertlab.run(pertlab.dumbbell(cc="reno", queue="py:red:Red"))
    assert_same_run(python, rust)
    assert rust.bottleneck["departures"] > 500_000 and rust.bottleneck["drops"] > 1000


def test_red_in_python_takes_the_packet_size_the_builder_gives_rust_red():
    """``--queue red`` and ``--queue py:red:Red`` as they come: the same run. Not by chance: the
    mean packet size changes this run (with ns-3's 500 bytes it has another event count)."""
    from typer.testing import CliRunner

    from pertlab.cli import app

    args = ["dumbbell", "--flows", "4", "--duration", "10s", "--json", "--no-progress", "--queue"]
    rust, python = (json.loads(CliRunner().invoke(app, [*args, q], catch_exceptions=False).stdout) for q in ("red", "py:red:Red"))
    keys = lambda d: (d["events"], d["bottleneck"]["drops"], d["bottleneck"]["marks"], d["bottleneck"]["avg_queue_pkts"])  # noqa: E731
    assert keys(python) == keys(rust) and python["bottleneck"]["discipline"] == "py:red:Red"
    assert rust["bottleneck"]["drops"] > 0
    # The command line's scenario, then with ns-3's 500 bytes.
    same = dict(flows=4, duration="10s", queue="red")
    assert pertlab.run(pertlab.dumbbell(**same)).summary["events"] == rust["events"]
    assert pertlab.run(pertlab.dumbbell(**same, aqm={"mean_pkt_size": 500})).summary["events"] != rust["events"]


def test_a_stepped_run_with_a_python_discipline_gives_the_same_bytes():
    s = dumbbell(queue="py:red:Red", duration="2s")
    whole = pertlab.run(s)
    sim = pertlab.Simulation(s)
    for t in ["0.3s", "1s", "1.7s"]:
        sim.run_until(t)
        bottleneck = sim.queues().filter((pl.col("link") == "bottleneck") & (pl.col("from") == "r0")).row(0, named=True)
        # The discipline's own variables, read from the object's attributes.
        assert bottleneck["discipline"] == "py:red:Red" and bottleneck["average"] is not None and bottleneck["max_p"] == 0.02
    assert_same_run(sim.results(), whole)


def test_a_delay_pi_written_in_python_keeps_the_delay_near_its_target():
    """The example's PI controller of the sojourn time (dequeue and timer hooks) against DropTail:
    on 20 Mbit/s and 40 ms with a buffer of 4 BDPs, DropTail's 10 Reno flows fill the buffer (some
    250 packets, 150 ms of delay), the controller holds the average within a few times its 15 ms
    target (25 packets)."""
    base = dict(bw="20Mbps", rtt="40ms", flows=10, duration="20s", buffer_bdp=4)
    droptail = pertlab.run(dumbbell(**base))
    pi = pertlab.run(dumbbell(**base, queue="py:delay_pi:DelayPI"))
    avg_delay_ms = lambda r: r.bottleneck["avg_queue_pkts"] * 1500 * 8 / 20e6 * 1e3  # noqa: E731
    assert avg_delay_ms(droptail) > 100
    assert avg_delay_ms(pi) < 40, avg_delay_ms(pi)
    assert pi.bottleneck["utilization"] > 0.9 and pi.bottleneck["drops"] > 0
    # Its probability is in the series.
    assert pi.queue_series["probability"].max() > 0


TIMER = '''
SEEN = []

class Ticks:
    timer_interval_ns = 7_000_000

    def enqueue(self, q, pkt):
        SEEN.append(("enqueue", q.now, q.len_pkts, None))
        return "accept"

    def dequeue(self, q, pkt):
        SEEN.append(("dequeue", q.now, q.len_pkts, q.now - pkt.enqueued_at))

    def timer(self, q):
        SEEN.append(("timer", q.now, q.len_pkts, None))
'''


def test_timers_run_at_their_instants_with_the_queue_as_it_stood(tmp_path, monkeypatch):
    """Timer instants k x 7 ms, in order, each run before the packet event that catches it up,
    with the queue as it stood: what the arriving packet found, or one packet more than the
    departing one leaves."""
    write_module(tmp_path, monkeypatch, "ticks", TIMER)
    r = pertlab.run(dumbbell(queue="py:ticks:Ticks", bw="10Mbps", flows=2, duration="1s"))
    import ticks

    timers = [t for kind, t, _, _ in ticks.SEEN if kind == "timer"]
    assert timers == [7_000_000 * k for k in range(1, len(timers) + 1)]
    # Caught up at the queue's packet events: the last instant before the last event of the run.
    assert 1e9 - 7_000_000 * 3 < timers[-1] <= 1e9
    for (k0, t0, n0, _), (k1, t1, n1, _) in zip(ticks.SEEN, ticks.SEEN[1:]):
        assert t1 >= t0
        if (k0, k1) == ("timer", "enqueue"):
            assert n1 == n0
        elif (k0, k1) == ("timer", "dequeue"):
            assert n1 == n0 - 1
    pairs = {(k0, k1) for (k0, *_), (k1, *_) in zip(ticks.SEEN, ticks.SEEN[1:])}
    assert {("timer", "enqueue"), ("timer", "dequeue"), ("timer", "timer")} <= pairs
    sojourns = [s for kind, _, _, s in ticks.SEEN if kind == "dequeue"]
    assert min(sojourns) == 0 and max(sojourns) > 1_000_000
    assert not r.interrupted


FAILING = '''
class Fails:
    def enqueue(self, q, pkt):
        if q.now > 1_000_000_000 and q.len_pkts > 3:
            helper(q)
        return "accept"


def helper(q):
    return {}["no such key"]
'''


def test_an_exception_in_a_hook_stops_the_run_with_traceback_time_and_queue(tmp_path, monkeypatch):
    write_module(tmp_path, monkeypatch, "failing_aqm", FAILING)
    s = dumbbell(queue="py:failing_aqm:Fails", bw="20Mbps", duration="3s")
    with pytest.raises(pertlab.ModelError) as info:
        pertlab.run(s)
    message = str(info.value)
    assert message.startswith("queue bottleneck r0->r1 (dumbbell.bottleneck_queue, py:failing_aqm:Fails), hook enqueue, at simulated time 1.")
    assert "Traceback" in message and "in helper" in message and "KeyError: 'no such key'" in message
    assert isinstance(info.value.__cause__, KeyError)
    partial = info.value.results
    stopped_at = float(message.split("at simulated time ")[1].split(" s")[0])
    assert partial.interrupted and 1.0 < stopped_at < 2.0
    assert partial.summary["sim_seconds"] == pytest.approx(stopped_at, abs=1e-6)
    assert partial.flows["goodput_bytes"].sum() > 0
    # In steps: the step raises, the results so far stay available.
    sim = pertlab.Simulation(s)
    sim.run_until("0.9s")
    with pytest.raises(pertlab.ModelError, match=r"queue bottleneck r0->r1 .*hook enqueue"):
        sim.run_until("2s")
    assert sim.results(to_end=False).summary["events"] == partial.summary["events"]


@pytest.mark.parametrize(
    "hook,value,shown",
    [
        ("enqueue", "None", "it returned None (a NoneType); enqueue returns 'accept', 'drop' or 'mark'"),
        ("enqueue", "'DROP'", "it returned 'DROP' (a str); enqueue returns 'accept', 'drop' or 'mark'"),
        ("enqueue", "True", "it returned True (a bool); enqueue returns"),
        ("enqueue", "'mark'", "it returned 'mark' for a packet that is not ECN-capable (pkt.ecn_capable is False); return 'drop' for those"),
        ("dequeue", "0", "it returned 0 (a int); dequeue returns None, 'accept', 'drop' or 'mark'"),
        ("probability", "'high'", "the attribute probability is 'high'; it must be a number in [0, 1] (or None)"),
        ("probability", "float('nan')", "the attribute probability is nan; it must be a number in [0, 1] (or None)"),
        ("probability", "2**70", "the attribute probability is 1180591620717411303424; it must be a number in [0, 1] (or None)"),
        ("average", "float('inf')", "the attribute average is inf; it must be a finite number (or None)"),
    ],
)
def test_an_invalid_value_is_named_with_the_hook(tmp_path, monkeypatch, hook, value, shown):
    module = f"bad_{hook}_{abs(hash(value))}"  # one module per case: imports are cached
    body = {
        "enqueue": f"    def enqueue(self, q, pkt):\n        return {value} if q.now > 500_000_000 else 'accept'\n",
        "dequeue": f"    def enqueue(self, q, pkt):\n        return 'accept'\n\n    def dequeue(self, q, pkt):\n        return {value} if q.now > 500_000_000 else None\n",
        "probability": f"    probability = {value}\n\n    def enqueue(self, q, pkt):\n        return 'accept'\n",
        "average": f"    average = {value}\n\n    def enqueue(self, q, pkt):\n        return 'accept'\n",
    }[hook]
    write_module(tmp_path, monkeypatch, module, f"class Bad:\n{body}")
    with pytest.raises(pertlab.ModelError) as info:
        pertlab.run(dumbbell(queue=f"py:{module}:Bad", flows=2, duration="1s"))
    message = str(info.value)
    assert f"hook {hook}, at simulated time " in message and shown in message, message


@pytest.mark.parametrize(
    "body,message",
    [
        ("    def dequeue(self, q, pkt):\n        pass\n", r"class MODULE:C lacks the hook enqueue; a queue discipline defines enqueue"),
        ("    def enqueue(self, q, pkt):\n        return 'accept'\n\n    def timer(self, q):\n        pass\n", r"defines timer but no timer_interval_ns"),
        ("    timer_interval_ns = 10**7\n\n    def enqueue(self, q, pkt):\n        return 'accept'\n", r"sets timer_interval_ns but defines no method timer"),
        ("    timer_interval_ns = 1000\n\n    def enqueue(self, q, pkt):\n        return 'accept'\n\n    def timer(self, q):\n        pass\n", r"timer_interval_ns is 1000; it must be an int of at least 1000000"),
    ],
    ids=["no-enqueue", "timer-without-interval", "interval-without-timer", "interval-too-short"],
)
def test_bad_classes_are_refused_before_the_run_naming_the_field(tmp_path, monkeypatch, body, message):
    module = f"bad_class_{abs(hash(body))}"
    write_module(tmp_path, monkeypatch, module, f"class C:\n{body}")
    with pytest.raises(ScenarioError, match=r"^dumbbell\.bottleneck_queue\.target: .*" + message.replace("MODULE", module)):
        pertlab.Simulation(dumbbell(queue=f"py:{module}:C", flows=1, duration="1s"))


def test_uniform_draws_in_enqueue_only(tmp_path, monkeypatch):
    write_module(tmp_path, monkeypatch, "draws", '''
SEEN = {"draws": [], "elsewhere": None}

class Draws:
    def enqueue(self, q, pkt):
        SEEN["draws"].append(q.uniform())
        return "accept"

    def dequeue(self, q, pkt):
        try:
            q.uniform()
        except RuntimeError as e:
            SEEN["elsewhere"] = str(e)
''')
    pertlab.run(dumbbell(queue="py:draws:Draws", flows=2, duration="1s", bw="10Mbps"))
    import draws

    d = draws.SEEN["draws"]
    assert len(d) > 100 and 0.4 < sum(d) / len(d) < 0.6
    assert "in enqueue only" in draws.SEEN["elsewhere"]


def test_names_in_scenarios_builders_and_the_command_line(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from pertlab.cli import app

    graph = {"duration": "1s", "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms", "queue": {"kind": "py"}}]}
    with pytest.raises(ScenarioError, match=r'links\[0\]\.queue\.target: a "py" queue names its class'):
        pertlab.Scenario.parse(graph)
    graph["links"][0]["queue"] = {"kind": "red", "target": "red:Red"}
    with pytest.raises(ScenarioError, match=r'links\[0\]\.queue\.target: only a "py" queue names a class'):
        pertlab.Scenario.parse(graph)
    for bad in ["py:red", "py:1red:Red", "py"]:
        with pytest.raises(ScenarioError, match=r"^queue: "):
            dumbbell(queue=bad)
    with pytest.raises(ScenarioError, match=r"^aqm: a discipline written in Python takes no aqm parameters"):
        dumbbell(queue="py:red:Red", aqm={"use_ecn": True})
    # A scenario file finds its module next to it.
    (tmp_path / "mine_aqm.py").write_text((EXAMPLES / "red.py").read_text())
    wire = json.loads(dumbbell(flows=2, duration="1s").to_wire_json())
    wire["dumbbell"]["bottleneck_queue"] = {"kind": "py", "target": "mine_aqm:Red", "limit_pkts": 100}
    (tmp_path / "s.json").write_text(json.dumps(wire))
    assert pertlab.run(tmp_path / "s.json").bottleneck["discipline"] == "py:mine_aqm:Red"
    # The command line, from the examples' directory.
    monkeypatch.chdir(EXAMPLES)
    args = ["dumbbell", "--bw", "10Mbps", "--rtt", "40ms", "--flows", "3", "--duration", "2s", "--json", "--no-progress"]
    ok = CliRunner().invoke(app, [*args, "--queue", "py:red:Red"], catch_exceptions=False)
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["bottleneck"]["discipline"] == "py:red:Red"
    bad = CliRunner().invoke(app, [*args, "--queue", "py:red"])
    assert bad.exit_code == 2 and "queue" in bad.output and "py:module:Class" in bad.output
