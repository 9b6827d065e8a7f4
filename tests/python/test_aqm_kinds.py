"""Every queue discipline of the core from the CLI and Python: runs, names, ECN, errors."""

import json

import pytest
from typer.testing import CliRunner

import pertlab
from pertlab import _core
from pertlab.builders import AQM_SECTION, dumbbell
from pertlab.cli import app
from pertlab.kinds import QUEUE_NAMES
from pertlab.scenario import ScenarioError

runner = CliRunner()


@pytest.mark.parametrize("kind", QUEUE_NAMES)  # "py" (written in Python): test_python_aqm.py
def test_every_kind_runs_from_the_cli(kind):
    # step marks at K = 65 packets and PI holds the queue at qref = 50, more than this path's BDP
    # buffer (33) holds: refused without a larger one.
    buffer = ["--buffer", "100"] if kind in ("step", "pi") else []
    res = runner.invoke(app, ["dumbbell", "--queue", kind, "--duration", "10s", "--flows", "5", "--bw", "10Mbps", "--rtt", "40ms", "--warmup", "2s", "--start-window", "1s", *buffer, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["conservation"]["ok"]
    assert out["bottleneck"]["discipline"] == kind
    assert out["bottleneck"]["utilization"] > 0.5


@pytest.mark.parametrize("kind", ["cared", "pie", "codel", "pi"])
def test_ecn_makes_the_aqm_mark_instead_of_drop(kind):
    # 5 flows on a 20 Mbps, 80 ms path with a 300-packet buffer: the needed
    # signal rate is low (PIE marks only while its probability is below 10 %,
    # RED's family below its forced region), every AQM acts long before the buffer
    # overflows, so with ECN all its signals are marks.
    r = pertlab.run(dumbbell(bw="20Mbps", rtt="80ms", flows=5, queue=kind, ecn=True, buffer_pkts=300, duration="40s", start_window="2s", warmup="10s"))
    b = r.bottleneck
    assert b["marks"] > 0 and b["drops"] == 0, b


@pytest.mark.parametrize("kind", ["reared", "fared", "cared", "feng", "nlred", "pi", "pie", "codel"])
def test_python_defaults_are_the_cores(kind):
    """A run with every parameter written out by Python equals one where the core fills in defaults."""
    # PI's qref (50 packets) must lie below the buffer: a BDP here is 33.
    buffer = {"buffer_pkts": 100} if kind == "pi" else {}
    s = dumbbell(bw="10Mbps", rtt="40ms", flows=4, queue=kind, duration="5s", start_window="1s", warmup="1s", **buffer)
    explicit = s.to_wire()
    implicit = json.loads(json.dumps(explicit))
    implicit["dumbbell"]["bottleneck_queue"] = {"kind": kind, "limit_pkts": explicit["dumbbell"]["bottleneck_queue"]["limit_pkts"]}
    if AQM_SECTION[kind] == "red":
        # The one value the builder sets rather than defaults: RED counts in the flows' packets.
        implicit["dumbbell"]["bottleneck_queue"]["red"] = {"mean_pkt_size": 1500}
    assert len(explicit["dumbbell"]["bottleneck_queue"][AQM_SECTION[kind]]) > 3
    a, b = (json.loads(_core.run_json(json.dumps(w))) for w in (explicit, implicit))
    for r in (a, b):
        del r["wall_seconds"]
    assert a == b


def test_unknown_kind_lists_the_allowed_ones():
    res = runner.invoke(app, ["dumbbell", "--queue", "fifo", "--json"])
    assert res.exit_code == 2
    assert "--queue" in res.output and "codel" in res.output and "reared" in res.output


def test_bad_pie_parameter_names_its_field():
    with pytest.raises(ScenarioError, match=r"^aqm\.mark_ecn_threshold: "):  # the builder argument the caller wrote
        dumbbell(bw="10Mbps", flows=2, queue="pie", aqm={"mark_ecn_threshold": 2.0})


def test_red_thresholds_out_of_order_are_refused_when_the_scenario_is_built():
    # The core refuses them too; the model says so first, so that the builder's caller (and a
    # scenario file's reader) hears of it before anything runs, naming the argument.
    with pytest.raises(ScenarioError, match=r"^aqm\.max_th: must be at least min_th \(20\), got 10$"):
        dumbbell(bw="10Mbps", flows=2, queue="red", aqm={"min_th": 20, "max_th": 10})
    with pytest.raises(ScenarioError, match=r"^aqm\.max_th: an explicit max_th needs an explicit min_th"):
        dumbbell(bw="10Mbps", flows=2, queue="red", aqm={"max_th": 10})
    assert pertlab.run(dumbbell(bw="10Mbps", flows=2, queue="red", aqm={"min_th": 10, "max_th": 10}, duration="5s")).bottleneck["utilization"] > 0.5


def test_pi_with_its_reference_at_the_buffer_is_refused_and_would_act_as_drop_tail():
    """The queue never exceeds its buffer, so with qref (default 50 packets) at or above it PI's
    integral only falls: refused, naming --buffer where the command line gives it and --queue where
    the buffer is the BDP (an error names only flags the user typed). The core, given such a
    scenario in the wire format (which skips the model), shows why: nearly every drop is an
    overflow, where a buffer above qref gives mostly PI's own early drops."""
    refused = runner.invoke(app, ["dumbbell", "--queue", "pi", "--bw", "10Mbps", "--rtt", "60ms", "--flows", "5", "--duration", "1s"])
    assert refused.exit_code == 2
    assert refused.stderr.startswith("error: --queue: qref = 50 packets is not below the buffer (50 packets, limit_pkts)"), refused.stderr
    given = runner.invoke(app, ["dumbbell", "--queue", "pi", "--bw", "10Mbps", "--buffer", "40", "--flows", "5", "--duration", "1s"])
    assert given.exit_code == 2
    assert given.stderr.startswith("error: --buffer: qref = 50 packets is not below the buffer (40 packets, limit_pkts)"), given.stderr
    with pytest.raises(ScenarioError, match=r"^queue: qref = 50 packets is not below the buffer \(50 packets"):
        dumbbell(bw="10Mbps", rtt="60ms", flows=5, queue="pi")  # the Python API names what was given too
    with pytest.raises(ScenarioError, match=r"buffer_pkts: qref = 49 packets is not below the buffer \(40 packets"):
        dumbbell(bw="10Mbps", queue="pi", buffer_pkts=40, aqm={"qref": 49})
    assert dumbbell(bw="10Mbps", queue="pi", buffer_pkts=50, aqm={"qref": 49}).dumbbell.bottleneck_queue.pi.qref == 49
    wire = dumbbell(bw="10Mbps", rtt="40ms", flows=5, queue="pi", buffer_pkts=100, duration="30s").to_wire()
    drops = {}
    for limit in (100, 50):
        wire["dumbbell"]["bottleneck_queue"]["limit_pkts"] = limit
        b = json.loads(_core.run_json(json.dumps(wire)))["bottleneck"]
        drops[limit] = (b["drops_early"], b["drops_overflow"])
    (early_100, overflow_100), (early_50, overflow_50) = drops[100], drops[50]
    assert early_100 > overflow_100 and overflow_50 > 10 * early_50, drops


def test_a_red_queue_whose_min_th_its_buffer_cannot_reach_is_named_in_the_warnings():
    """RED's average never exceeds the buffer, and its drop curve is 0 up to min_th: with a buffer
    at or below min_th (here RED's 5 packets) the queue is drop-tail, which the run's warnings say
    (the Python model cannot: an automatic min_th comes from the link rate, in the core). Its
    drops are all overflows, where a buffer above min_th gives only RED's early drops."""
    scenario = dumbbell(bw="10Mbps", rtt="40ms", flows=4, queue="red", buffer_pkts=5, duration="20s", tcp={"overhead": "1ms"})
    before = scenario.queue_warnings()  # from the built network, before anything runs
    small = pertlab.run(scenario)
    assert small.warnings == before
    b = small.bottleneck
    assert b["drops_early"] == b["marks"] == 0 and b["drops_overflow"] > 50, b
    assert small.warnings == [
        "bottleneck (r0 -> r1, red): min_th (5 packets) is not below the buffer (5 packets): the average queue never exceeds it, "
        "so red never drops or marks early; the queue drops on overflow only, as drop-tail"
    ], small.warnings
    large = pertlab.run(dumbbell(bw="10Mbps", rtt="40ms", flows=4, queue="red", buffer_pkts=30, duration="20s", tcp={"overhead": "1ms"}))
    assert large.warnings == [] == large.scenario.queue_warnings() and large.bottleneck["drops_early"] > 50 and large.bottleneck["drops_overflow"] == 0, large.bottleneck


@pytest.mark.parametrize(("kind", "small", "drains_in", "limit", "large", "signal"), [
    # CoDel drops only packets that waited its target, 5 ms.
    ("codel", 20, "2.400 ms", "below target (5.000 ms)", 200, "drops_departure"),
    # PIE's safeguard passes every packet below half its 15 ms target while drop_prob < 0.2,
    # which delays that short cannot raise it to (queue/pie.rs, never_acts).
    ("pie", 50, "6.000 ms", "below half its target (7.500 ms)", 500, "drops_early"),
])  # fmt: skip
def test_a_delay_aqm_whose_buffer_drains_too_soon_is_named_in_the_warnings(kind, small, drains_in, limit, large, signal):
    """A buffer of 1500-byte packets at 100 Mbit/s that drains before the discipline's delay
    threshold leaves it nothing to do: the run's warnings say so from the built network (the
    core knows the largest packet that crosses each queue), its drops are all overflows, and
    with a buffer that holds many times more the discipline acts and nothing is said."""
    args = dict(bw="100Mbps", rtt="40ms", flows=8, queue=kind, duration="20s", tcp={"overhead": "0.12ms"})
    scenario = dumbbell(buffer_pkts=small, **args)
    held = pertlab.run(scenario)
    [warning] = held.warnings
    assert warning == scenario.queue_warnings()[0]
    assert warning.startswith(f"bottleneck (r0 -> r1, {kind}): the longest a packet can wait in it, {drains_in} (the buffer full of its largest packets, 1500 bytes, at 100000000 bit/s), is {limit}")
    assert warning.endswith(f"{kind} never drops or marks; the queue drops on overflow only, as drop-tail")
    b = held.bottleneck
    assert b["drops_early"] == b["drops_departure"] == b["marks"] == 0 and b["drops_overflow"] > 50, b
    acting = pertlab.run(dumbbell(buffer_pkts=large, **args))
    assert acting.warnings == [] and acting.bottleneck[signal] > 30, acting.bottleneck
