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
    # step marks at K = 65 packets, more than this path's BDP buffer (33) holds: refused without a larger one.
    buffer = ["--buffer", "100"] if kind == "step" else []
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
    s = dumbbell(bw="10Mbps", rtt="40ms", flows=4, queue=kind, duration="5s", start_window="1s", warmup="1s")
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
