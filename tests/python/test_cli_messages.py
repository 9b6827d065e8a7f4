"""Errors of `pertlab dumbbell` and `pertlab run` name the option the user typed (not a scenario
path or a derived option) in one line with what is allowed, and the valid values next to them
still run: --startup-delays, --pcap, a --cc or --queue written in Python, a huge --bw, PI's a and
b, booleans given for numbers, and packets too large for the default receiver window."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

import pertlab
from pertlab.cli import app
from pertlab.scenario import U64_MAX, Scenario, ScenarioError

import strict_json

from cli_errors import refusal

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()

#: A dumbbell that runs in a few milliseconds.
TINY = ["dumbbell", "--bw", "10Mbps", "--rtt", "20ms", "--flows", "2", "--duration", "2s", "--no-progress"]


def run_json(args: list[str]) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return strict_json.loads(result.stdout)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # A negative further start-up delay: once, naming the option, not once per stream.
        (["--video", "2@300kbps", "--startup-delays", "-1"], "error: --startup-delays: must be zero or positive, got '-1'"),
        (["--video", "3@300kbps", "--startup-delays", "1s,-2s"], "error: --startup-delays: must be zero or positive, got '-2s'"),
        # A check of the scenario model reaches the option through the fields' mapping, once.
        (["--video", "3@300kbps", "--startup-delays", ",".join(f"{i}s" for i in range(1, 66))], "error: --startup-delays: at most 64 delays, got 65"),
        (["--pcap", "nosuch:x.pcap"], "error: --pcap: no link named `nosuch`; links: bottleneck, s0-r0 .. s1-r0, r1-d0 .. r1-d1"),
        (["--pcap", "s2-r0:x.pcap"], "error: --pcap: no link named `s2-r0`; links: bottleneck, s0-r0 .. s1-r0, r1-d0 .. r1-d1"),
        (["--cc", "py:nosuch_module_xyz:X"], "error: --cc: cannot import module 'nosuch_module_xyz'"),
        (["--cc", "sack:1,py:pertlab.pymodels:Nope:1", "--flows", "2"], "error: --cc: module 'pertlab.pymodels'"),
        (["--queue", "py:nosuch_module_xyz:X"], "error: --queue: cannot import module 'nosuch_module_xyz'"),
        # The access rate is derived from --bw, which the error names (with the largest --bw).
        (["--bw", "18446744073709551615bps"], "error: --bw: must be at most 1844674407370955161 bit/s unless the access rate is given"),
        (["--bw", "2e18bps", "--buffer", "100"], "error: --bw: must be at most 1844674407370955161 bit/s unless the access rate is given"),
        (["--bw", "18446744073709551616bps"], "error: --bw: '18446744073709551616bps' is too large: a rate is at most 18446744073709551615 bit/s"),
        # PI's a and b in [0, 1], the core's bounds, in a short line.
        (["--cc", "pert-pi", "--cc-param", "pert-pi.b=1e308"], "error: --cc-param pert-pi.b: must lie in [0, 1], got 1e+308"),
        (["--cc", "pert-pi", "--cc-param", "pert-pi.a=-1"], "error: --cc-param pert-pi.a: must lie in [0, 1], got -1"),
        (["--cc", "pert-pi", "--cc-param", "pert-pi.a=1.5"], "error: --cc-param pert-pi.a: must lie in [0, 1], got 1.5"),
        # A boolean where a number is expected, float or int, alone or in a list.
        (["--cc", "pert-pi", "--cc-param", "pert-pi.a=true"], "error: --cc-param pert-pi.a: must be a number, got true"),
        (["--cc", "pert", "--cc-param", "pert.p_max=true"], "error: --cc-param pert.p_max: must be a number, got true"),
        (["--cc", "vegas", "--cc-param", "vegas.alpha=false"], "error: --cc-param vegas.alpha: must be a number, got false"),
        (["--cc", "pert-adaptive", "--cc-param", "pert-adaptive.interval_weights=[1,true]"], "error: --cc-param pert-adaptive.interval_weights[1]: must be a number, got true"),
    ],
)
def test_dumbbell_errors_name_the_option_typed_in_one_line(args, message):
    line = refusal([*TINY, *args])
    assert line.startswith(message), line
    assert "flows[" not in line and "capture[" not in line and "--access-rate" not in line
    assert len(line) < 300, line


def test_pi_bounds_and_booleans_in_a_scenario_file(tmp_path):
    """A scenario file's errors keep its field paths: PI's a in [0, 1] as the core bounds it, a
    boolean for a number refused, a captured link that is not in the topology named with the
    ones that are."""
    base = (
        'duration = "2s"\n[dumbbell]\npairs = 2\nbottleneck_rate = "10Mbps"\nbottleneck_delay = "10ms"\naccess_rate = "100Mbps"\n'
        'sender_access_delay = "1ms"\nreceiver_access_delay = "1ms"\n[dumbbell.bottleneck_queue]\nkind = "pi"\nlimit_pkts = 100\n'
        "pi = {{ a = {a} }}\n[[flows]]\nsrc = \"s0\"\ndst = \"d0\"\ncc = {{ kind = \"pert\", p_max = {p_max} }}\n"
    )
    cases = [
        ({"a": "1e308", "p_max": "0.1"}, "error: dumbbell.bottleneck_queue.pi.a: must lie in [0, 1], got 1e+308"),
        ({"a": "0.5", "p_max": "true"}, "error: flows[0].cc.p_max: must be a number, got true"),
    ]
    for values, message in cases:
        path = tmp_path / "s.toml"
        path.write_text(base.format(**values))
        assert refusal(["run", str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == message
    # A top-level field is named alone, as the other errors of the whole scenario name it.
    path.write_text("seed = true\n" + base.format(a="0.5", p_max="0.1"))
    assert refusal(["run", str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == "error: seed: must be a number, got true"
    path.write_text(base.format(a="0.5", p_max="0.1") + '[[capture]]\nlink = "s5-r0"\nfile = "x.pcap"\n')
    line = refusal(["run", str(path), "--out", str(tmp_path / "out"), "--no-progress"])
    assert line == "error: capture[0].link: no link named `s5-r0`; links: bottleneck, s0-r0 .. s1-r0, r1-d0 .. r1-d1"
    path.write_text(base.format(a="1", p_max="0.1"))  # the bounds are closed
    assert refusal(["run", str(path), "--out", str(tmp_path / "out"), "--pcap", "nosuch:x.pcap"]).startswith("error: --pcap: no link named `nosuch`")
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out"), "--no-progress", "--json"])
    assert result.exit_code == 0, result.output


def test_a_controller_param_refuses_booleans_in_python_too():
    with pytest.raises(ScenarioError, match=r"^cc_params\.pert-pi\.a: must be a number, got true$"):
        pertlab.dumbbell(flows=2, cc="pert-pi", duration="2s", cc_params={"pert-pi": {"a": True}})
    # Named under its controller: Compound and CUBIC both have a beta.
    with pytest.raises(ScenarioError, match=r"^cc_params\.cubic\.beta: Input should be less than 1, got 2\.0$"):
        pertlab.dumbbell(cc="compound:1,cubic:1", duration="2s", cc_params={"compound": {"beta": 0.5}, "cubic": {"beta": 2.0}})
    with pytest.raises(ScenarioError, match=r"^cc_params\.pert: unknown field `beta`"):
        pertlab.dumbbell(cc="pert:1,cubic:1", duration="2s", cc_params={"pert": {"beta": 0.5}})
    with pytest.raises(ScenarioError, match=r"^aqm\.b: must lie in \[0, 1\], got 2$"):
        pertlab.dumbbell(flows=2, queue="pi", duration="2s", aqm={"b": 2})


def test_valid_values_next_to_the_refused_ones_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = run_json([*TINY, "--video", "2@300kbps", "--startup-delays", "0s,1s"])
    assert [r["startup_delay_s"] for r in out["flows"][2]["video_playout"]] == [0.0, 1.0]
    run_json([*TINY, "--pcap", "bottleneck:b.pcap", "--pcap", "s1-r0:s1.pcap", "--pcap", "r1-d0:d0.pcap"])
    assert all((tmp_path / f).stat().st_size > 24 for f in ("b.pcap", "s1.pcap", "d0.pcap"))
    for a, b in (("0.001", "0.0005"), ("1", "0")):
        out_dir = tmp_path / f"pi-{a}"
        result = runner.invoke(app, [*TINY, "--cc", "pert-pi", "--cc-param", f"pert-pi.a={a}", "--cc-param", f"pert-pi.b={b}", "--out", str(out_dir), "--json"])
        assert result.exit_code == 0, result.output
        cc = strict_json.loads((out_dir / "scenario.json").read_text())["flows"][0]["cc"]
        assert (cc["a"], cc["b"]) == (float(a), float(b))
    monkeypatch.chdir(EXAMPLES / "python_cc")
    assert run_json([*TINY, "--cc", "py:reno:Reno"])["flows"][0]["goodput_mbps"] > 0


def test_the_largest_bw_without_an_access_rate_builds_and_a_larger_one_with_one():
    assert pertlab.dumbbell(bw=U64_MAX // 10, flows=1, buffer_pkts=100).dumbbell.access_rate == 10 * (U64_MAX // 10)
    assert pertlab.dumbbell(bw=2 * 10**18, flows=1, buffer_pkts=100, access_rate=U64_MAX).dumbbell.access_rate == U64_MAX


def test_the_default_receiver_window_fits_the_packet_size(tmp_path):
    """max_cwnd unset is 100,000 segments wherever they fit in 2^30 bytes (up to 10,777-byte
    packets: those scenarios are unchanged), else as many as fit; a max_cwnd set too large is
    refused naming it and the packet size."""
    for size, window in ((1500, 100_000), (10_777, 100_000), (10_778, 2**30 // 10_738), (65_535, 2**30 // 65_495)):
        tcp = pertlab.dumbbell(flows=1, packet_size=size).flows[0].tcp
        assert tcp.max_cwnd == window and "max_cwnd" not in tcp.model_fields_set
    assert pertlab.dumbbell(flows=1, packet_size=10_778, tcp={"max_cwnd": 500}).flows[0].tcp.max_cwnd == 500
    out_dir = tmp_path / "big"
    result = runner.invoke(app, [*TINY, "--packet-size", "10778", "--out", str(out_dir), "--json"])
    assert result.exit_code == 0, result.output
    assert strict_json.loads(result.stdout)["bottleneck"]["departures"] > 0
    assert strict_json.loads((out_dir / "scenario.json").read_text())["flows"][0]["tcp"]["max_cwnd"] == 99_994
    with pytest.raises(ScenarioError, match=r"^tcp\.max_cwnd: must be at most 53794 segments with packet_size 20000 B: .*; got 100000$"):
        pertlab.dumbbell(flows=2, packet_size=20_000, tcp={"max_cwnd": 100_000})
    two_nodes = {
        "duration": "1s", "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "1ms"}],
        "flows": [{"src": "a", "dst": "b", "tcp": {"packet_size": 20_000, "max_cwnd": 60_000}}],
    }  # fmt: skip
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.tcp\.max_cwnd: must be at most 53794 segments with packet_size 20000 B"):
        Scenario.parse(two_nodes)
    # The window follows the packet size set later, while max_cwnd is unset.
    tcp = pertlab.dumbbell(flows=1).flows[0].tcp
    tcp.packet_size = 20_000
    assert tcp.max_cwnd == 53_794
