"""The eBPF PERT congestion control on this kernel: register, use from a
socket, read the counters, unregister. Skips (saying what is missing) without
root, the build tools, or struct_ops TCP congestion control in the kernel."""

from __future__ import annotations

import json
import socket

import pytest

from pertlab.linux import loader

from loopback import transfer
from test_cli_flags import covers

PROBLEM = loader.support_problem()
pytestmark = [pytest.mark.quiet_host, pytest.mark.skipif(PROBLEM is not None, reason=f"eBPF congestion control: {PROBLEM}")]


@pytest.fixture(autouse=True)
def nothing_left_behind():
    if loader.is_registered():
        pytest.skip("pert is already registered on this host (pertlab linux unload pert)")
    try:
        yield
    finally:
        loader.unload()
        assert not loader.is_registered()


def test_load_use_and_unload_pinned() -> None:
    loader.load()
    assert "pert" in loader.available()
    t = transfer("pert", nbytes=8 << 20)
    n, cc, ss = t.received, t.cc, t.ss
    assert n == 8 << 20 and cc == "pert"
    assert " pert " in ss or "\tpert " in ss, ss
    st = loader.status()
    assert st["registered"] and st["pinned"]
    assert st["counters"]["sockets"] >= 1 and st["counters"]["rtt_samples"] > 0
    assert st["params_fixed"]["p_max"] == 214748365 and st["params_fixed"]["keep_ppm"] == 650000
    # The connection has its entry in the per-connection map (no draws on an
    # uncongested loopback, but the key is there once it has drawn; absent is fine).
    assert all(f["dport"] > 0 for f in st["flows"])
    assert loader.unload()
    assert "pert" not in loader.available()
    with socket.socket() as s, pytest.raises(OSError):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"pert")


def test_parameters_are_set_at_load_time() -> None:
    loader.load(params=loader.PertParams(p_max=0.1, decrease=0.5, t_end_ms=40))
    fixed = loader.status()["params_fixed"]
    assert (fixed["p_max"], fixed["keep_ppm"], fixed["have_t_end"], fixed["t_end"]) == (429496730, 500000, 1, 40000 << 10)


def test_the_program_runs_with_the_parameters_the_loader_set_p_max_1_included() -> None:
    """On loopback the queueing delay is microseconds: with the defaults (5 and 10 ms) PERT never
    responds early; registered with t_min 0, t_max 1 us and p_max 1 it responds on most ACKs, so
    the program reads the parameters the loader set. p_max 1 (2^32, the 128-bit product) made
    the verifier pass its million-instruction budget in cong_avoid until pert_mul_div became a
    global function (2026-12-05): the load failed with "Argument list too long"."""
    counts = []
    for params in (loader.PertParams(), loader.PertParams(t_min_ms=0.0, t_max_ms=0.001, p_max=1.0)):
        loader.load(params=params)
        try:
            assert transfer("pert", seconds=0.5).cc == "pert"
            counts.append(loader.status()["counters"])
        finally:
            loader.unload()
    default, eager = counts
    assert default["early_responses"] == 0 and default["rtt_samples"] > 1000, default
    assert eager["early_responses"] > eager["rtt_samples"] / 2, eager


def test_held_registration_ends_with_the_loader() -> None:
    with loader.hold() as h:
        assert loader.is_registered()
        transfer("pert", nbytes=1 << 20)
        assert h.counters()["sockets"] >= 1
        h.process.kill()  # the loader dies: the kernel drops its link
        h.process.wait()
        assert loader._wait_for(lambda: not loader.is_registered())
    assert not loader.is_registered()


#: Every option of `pertlab linux load`: the PertParams field it sets and a value other than the default.
LOAD_FLAGS = {
    "--t-min-ms": (["--t-min-ms", "3"], "t_min_ms", 3.0),
    "--t-max-ms": (["--t-max-ms", "12"], "t_max_ms", 12.0),
    "--t-end-ms": (["--t-end-ms", "30"], "t_end_ms", 30.0),
    "--p-max": (["--p-max", "0.2"], "p_max", 0.2),
    "--decrease": (["--decrease", "0.5"], "decrease", 0.5),
    "--srtt-weight": (["--srtt-weight", "0.9"], "srtt_weight", 0.9),
    "--literal": (["--literal"], "literal", True),
    "--no-slow-start-response": (["--no-slow-start-response"], "respond_in_slow_start", False),
    "--min-rtt-window-ms": (["--min-rtt-window-ms", "10000"], "min_rtt_window_ms", 10000.0),
}
covers("linux load", "NAME", *LOAD_FLAGS)
covers("linux unload", "NAME")
covers("linux status", "--json")


def test_every_load_option_reaches_the_kernel() -> None:
    """One load with every option at its non-default value (one load instead of one per option:
    it saves ten seconds of test time): the fixed-point parameters pinned in the kernel are those
    of the values given, and each differs from the default's."""
    from typer.testing import CliRunner

    from pertlab.cli import app

    args = [a for flag_args, _, _ in LOAD_FLAGS.values() for a in flag_args]
    r = CliRunner().invoke(app, ["linux", "load", "pert", *args])
    assert r.exit_code == 0, r.output
    status = json.loads(CliRunner().invoke(app, ["linux", "status", "--json"]).stdout)
    expected = loader.PertParams(**{field: value for _, field, value in LOAD_FLAGS.values()}).fixed()
    default = loader.PertParams().fixed()
    assert status["registered"] and status["params_fixed"] == expected
    assert all(expected[k] != default[k] for k in default), [k for k in default if expected[k] == default[k]]


def test_cli_load_status_unload() -> None:
    from typer.testing import CliRunner

    from pertlab.cli import app

    r = CliRunner().invoke(app, ["linux", "load", "pert", "--p-max", "0.2"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["linux", "status"])
    assert "pert: registered" in r.output and "early_responses: 0" in r.output and "p_max=858993459" in r.output
    r = CliRunner().invoke(app, ["linux", "unload", "pert"])
    assert r.exit_code == 0 and "unregistered" in r.output


def test_a_second_load_is_a_name_clash_with_a_clear_message() -> None:
    loader.load()
    with pytest.raises(RuntimeError, match=r"pert is already registered \(pertlab linux unload pert first\)"):
        loader.load()


def test_missing_clang_is_named_with_its_debian_package(monkeypatch) -> None:
    # A PATH without clang (the real lookup, on a directory that lacks it).
    from pertlab.linux import build

    monkeypatch.setenv("PATH", "/nonexistent")
    assert "`clang` (Debian package clang)" in build.missing_build_tools()
    problem = loader.support_problem()
    assert problem is not None and problem.startswith("missing:") and "clang" in problem
    with pytest.raises(RuntimeError, match="clang"):
        loader.load()


def test_a_kernel_without_bpf_congestion_control_is_reported(monkeypatch, tmp_path) -> None:
    # A BTF file that lacks the tcp_congestion_ops struct_ops type, as an older kernel's would.
    from pertlab.linux import build

    fake_btf = tmp_path / "vmlinux"
    fake_btf.write_bytes(b"\x9f\xeb\x01\x00 no struct_ops here")
    monkeypatch.setattr(build, "VMLINUX_BTF", fake_btf)
    assert loader.support_problem() == "the kernel has no BPF struct_ops for TCP congestion control (bpf_struct_ops_tcp_congestion_ops not in BTF)"
    with pytest.raises(RuntimeError, match="no BPF struct_ops for TCP congestion control"):
        loader.load()
