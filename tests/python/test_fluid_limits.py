"""Limits of `pertlab fluid` and `pertlab stability`: a path with no equilibrium with p in [0, 1]
is refused (naming --capacity, --rtt, --flows), --packet-size is checked (range, and refused with a
capacity in pkt/s, which it would not change), and a run is at most MAX_STEPS integration steps
(naming --step and --duration). Each refusal exits 2 with one `error: --flag...` line; the valid
neighbours still work."""

from __future__ import annotations

import math
import warnings

import pytest
from typer.testing import CliRunner

import strict_json
from pertlab.cli import app
from pertlab.fluid import PertPi, PertRed, SurathkalTcpRed, TcpRed, theorem1, theorem2
from pertlab.fluid.dde import MAX_STEPS, check_steps
from pertlab.fluid.params import NoEquilibrium, bound_text
from pertlab.fluid.quantities import parse_capacity
from pertlab.scenario import MAX_PACKET_BYTES

from cli_errors import refusal

runner = CliRunner()


# --- no equilibrium with p in [0, 1] -------------------------------------------------------------


@pytest.mark.parametrize("command", ["pert-red", "pert-pi"])
def test_stability_refuses_p_star_above_one(command):
    line = refusal(["stability", command, "--capacity", "10"], "--capacity, --rtt, --flows:")
    assert "no equilibrium with p in [0, 1]" in line and "19.5 > 1" in line
    # What would do: C >= sqrt(2) N / R = 44.19 (printed rounded up), R >= 0.7071 s, N <= 1.
    assert "capacity >= 44.2 pkt/s" in line and "rtt >= 0.7072 s" in line and "flows <= 1" in line


@pytest.mark.parametrize("command", ["pert-red", "pert-pi"])
def test_stability_at_the_bound_still_works(command):
    # 45 pkt/s: W* = 0.16 * 45 / 5 = 1.44 >= sqrt(2), p* = 2 / W*^2 = 0.9645.
    r = runner.invoke(app, ["stability", command, "--capacity", "45", "--json"])
    assert r.exit_code == 0, r.output
    d = strict_json.loads(r.stdout)
    assert d["p_star"] == pytest.approx(2 / 1.44**2) and 0 < d["p_star"] <= 1


def test_one_flow_too_many_is_said():
    line = refusal(["stability", "pert-pi", "--capacity", "10", "--flows", "50", "--rtt", "10ms"], "--capacity")
    assert "even one flow is too many" in line


def test_theorems_raise_no_equilibrium():
    with pytest.raises(NoEquilibrium, match=r"^capacity, rtt, flows: no equilibrium"):
        theorem1(10, 0.16, 5)
    with pytest.raises(NoEquilibrium, match=r"^capacity, rtt, flows: no equilibrium"):
        theorem2(10, 0.16, 5)
    assert isinstance(NoEquilibrium("x"), ValueError)
    assert theorem1(100, 0.16, 5).p_star == pytest.approx(2 * 25 / 16**2)


@pytest.mark.parametrize("command", ["pert-red", "pert-pi"])
def test_fluid_refuses_p_star_above_one_before_any_work(command, tmp_path):
    out = tmp_path / "out"
    # The fluid models take the decrease factor (and PERT/PI its target delay) too: named with the
    # value of each that gives an equilibrium.
    named = {"pert-red": "--capacity, --rtt, --flows, --beta:", "pert-pi": "--capacity, --rtt, --flows, --target, --beta:"}[command]
    line = refusal(["fluid", command, "--capacity", "10", "--out", str(out)], named)
    assert not out.exists()
    if command == "pert-pi":
        assert line.endswith("or target >= 0.5472 s, or flows <= 1"), line
    line = refusal(["fluid", command, "--beta", "0.01", "--out", str(out)], named)
    assert "or beta >= 0.0" in line, line


def test_pert_models_raise_no_equilibrium():
    with pytest.raises(NoEquilibrium):
        PertRed(capacity=10, rtt=0.16, flows=5).equilibrium()
    with pytest.raises(NoEquilibrium, match="R = rtt \\+ target"):
        PertPi(capacity=10, prop_delay=0.16, flows=5)  # Theorem 2's default gains need the equilibrium
    with pytest.raises(NoEquilibrium):
        PertPi(capacity=10, prop_delay=0.16, flows=5, m=1.0, k=1.0).equilibrium()
    # beta enters the bound: p* = 1/(beta W*^2) <= 1 needs W* >= sqrt(1/beta).
    assert PertRed(capacity=100, rtt=0.1, flows=5, beta=0.3).equilibrium().p_star == pytest.approx(1 / (0.3 * 4))


@pytest.mark.parametrize("command", ["tcp-red", "surathkal-tcp-red"])
def test_tcp_red_refuses_only_when_even_p_one_overloads(command, tmp_path):
    line = refusal(["fluid", command, "--capacity", "100pkt/s", "--flows", "2000", "--out", str(tmp_path)],
                   "--capacity, --rtt, --flows, --buffer:")  # fmt: skip
    assert "even at p = 1" in line and "flows <= 579" in line


@pytest.mark.parametrize("cls", [TcpRed, SurathkalTcpRed])
def test_tcp_red_equilibrium_past_the_curve_is_at_p_one(cls):
    # 400 flows at 100 pkt/s: at 2 max_th RED's p = 1 still overloads, the buffer (800) holds them:
    # W* = sqrt(2) with (0.2 + q/100) 100 / 400 = sqrt(2).
    eq = cls.homogeneous(100, 400, 0.2).equilibrium()
    assert eq.p_star == 1.0 and eq.w_star == pytest.approx(math.sqrt(2))
    assert eq.q_star_pkts == pytest.approx((4 * math.sqrt(2) - 0.2) * 100)
    with pytest.raises(NoEquilibrium):
        cls.homogeneous(100, 2000, 0.2).equilibrium()


def test_tcp_red_other_equilibrium_errors_name_their_option():
    with pytest.raises(ValueError, match="^gentle: the equilibrium falls on original RED's jump"):
        TcpRed.homogeneous(100, 60, 0.2, gentle=False).equilibrium()
    with pytest.raises(ValueError, match="^buffer: 100 packets is not above min_th"):
        TcpRed.homogeneous(100, 40, 0.2, buffer=100).equilibrium()


def test_tcp_red_on_red_jump_still_runs(tmp_path):
    """An equilibrium the model cannot place (not p > 1) is reported, not refused."""
    r = runner.invoke(app, ["fluid", "tcp-red", "--capacity", "100pkt/s", "--flows", "60", "--no-gentle",
                            "--duration", "1s", "--out", str(tmp_path), "--json"])  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "jump" in strict_json.loads(r.stdout)["equilibrium"]["error"]


# --- --packet-size -------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["stability", "pert-red"], ["stability", "pert-pi"], ["fluid", "pert-red"],
                                  ["fluid", "tcp-red"], ["fluid", "surathkal-tcp-red"]])  # fmt: skip
def test_packet_size_with_a_pkt_per_s_capacity_is_refused(args, tmp_path):
    out = ["--out", str(tmp_path)] if args[0] == "fluid" else []
    line = refusal([*args, "--capacity", "100pkt/s", "--packet-size", "1500B", *out], "--packet-size, --capacity:")
    assert "already" in line


@pytest.mark.parametrize("size", ["0B", "-5B", f"{MAX_PACKET_BYTES + 1}B", "1MB"])
def test_packet_size_out_of_range(size):
    line = refusal(["stability", "pert-red", "--capacity", "10Mbps", f"--packet-size={size}"], "--packet-size:")
    assert f"1 to {MAX_PACKET_BYTES} bytes" in line


def test_packet_size_valid_values():
    for size, pps in (("1B", 1.25e6), (f"{MAX_PACKET_BYTES}B", 1e7 / (8 * MAX_PACKET_BYTES)), ("1000B", 1250.0)):
        r = runner.invoke(app, ["stability", "pert-red", "--capacity", "10Mbps", "--packet-size", size, "--flows", "1", "--json"])
        assert r.exit_code == 0, r.output
        assert strict_json.loads(r.stdout)["capacity_pps"] == pytest.approx(pps)
    # Without --packet-size: 1250B (500B for the TCP/RED models); a capacity in pkt/s needs none.
    assert parse_capacity("10Mbps") == 1000.0 and parse_capacity("10Mbps", default_size=500) == 2500.0
    assert parse_capacity("100pkt/s") == 100.0 and parse_capacity(100) == 100.0
    r = runner.invoke(app, ["stability", "pert-pi", "--capacity", "100pkt/s", "--json"])
    assert r.exit_code == 0 and strict_json.loads(r.stdout)["capacity_pps"] == 100.0


# --- integration steps ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["pert-red", "pert-pi", "tcp-red", "surathkal-tcp-red"])
def test_too_many_steps_refused_before_any_work(command, tmp_path):
    out = tmp_path / "out"
    line = refusal(["fluid", command, "--step", "1ns", "--duration", "60s", "--out", str(out)], "--step, --duration:")
    assert f"{MAX_STEPS:,}" in line and "the step must be at least 6e-05 s" in line
    assert not out.exists()


def test_the_smallest_step_printed_is_allowed():
    for duration in (60.0, 70.0, 73.33, 380.0, 1e-3):
        with pytest.raises(ValueError, match="^step, duration: ") as e:
            check_steps(duration, duration / MAX_STEPS / 10)
        smallest = float(str(e.value).split("at least ")[1].split(" s")[0])
        assert check_steps(duration, smallest) <= MAX_STEPS
    assert check_steps(60.0, 60.0 / MAX_STEPS) == MAX_STEPS
    with pytest.raises(ValueError, match="^step, duration: "):
        check_steps(1e300, 1e-300)  # no overflow


def test_documented_and_committed_runs_fit():
    # docs/fluid.md's examples (60 s, 70 s at 1 ms) and tahiliani-ch5-fluid's longest run (380 s at 1 ms).
    for duration in (60.0, 70.0, 380.0, 1000.0):
        assert check_steps(duration, 1e-3) <= MAX_STEPS


def test_a_valid_small_step_runs(tmp_path):
    r = runner.invoke(app, ["fluid", "pert-red", "--duration", "0.5s", "--step", "0.1ms", "--out", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    assert strict_json.loads(r.stdout)["final"]["t_s"] == pytest.approx(0.5)


def test_bound_text_rounds_outwards():
    assert bound_text(44.194) == "44.2" and bound_text(0.70710678) == "0.7072"
    assert bound_text(0.0019999, up=False, digits=3) == "0.00199" and bound_text(6e-5, digits=3) == "6e-05"


def test_the_stability_boundary_below_a_nanosecond_is_found():
    """On a link of 1e30 pkt/s Theorem 1's boundary R+ lies far below 1 ns (the search started
    there and failed with "no sign change on the bracket"); (11) holds just below it, not above."""
    from pertlab.fluid.stability import boundary_rtt

    r = boundary_rtt(1e30, 5)
    assert 0 < r < 1e-9
    assert theorem1(1e30, 0.99 * r, 5).stable and not theorem1(1e30, 1.01 * r, 5).stable


# --- subnormal quantities --------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["fluid", "tcp-red"], ["fluid", "surathkal-tcp-red"], ["stability", "pert-red"]])
def test_a_subnormal_capacity_is_refused_where_its_reciprocal_would_be_infinite(command, tmp_path):
    # 1e-320 pkt/s passed as positive, and tcp-red's queueing delay q / C came out infinite (written
    # as null, with numpy's overflow warning on stderr): found by make fuzz.
    out = ["--out", str(tmp_path)] if command[0] == "fluid" else []
    line = refusal([*command, "--capacity", "1e-320pkt/s", *out], "--capacity:")
    assert "must be at least 2.23e-308 pkt/s" in line


@pytest.mark.parametrize("capacity", ["1e-300pkt/s", "2.3e-308pkt/s"])
@pytest.mark.parametrize("command", ["tcp-red", "surathkal-tcp-red"])
def test_a_tiny_normal_capacity_still_gives_a_finite_queueing_delay_and_its_plot(command, capacity, tmp_path):
    # At 2.3e-308 pkt/s the delay (about 1e306 s) was finite, but the plot's ms overflowed (numpy's
    # overflow warning on stderr): the panel is then drawn in seconds.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok = runner.invoke(app, ["fluid", command, "--capacity", capacity, "--duration", "1s", "--json", "--out", str(tmp_path)])
    assert ok.exit_code == 0, ok.output
    final = strict_json.loads(ok.stdout)["final"]
    assert math.isfinite(final["queueing_delay_s"]) and final["queueing_delay_s"] > 1e298, final
    assert (tmp_path / f"{command}.png").stat().st_size > 0
