"""`pertlab fluid`, `pertlab stability` and the fluid reproductions from the CLI."""

from __future__ import annotations

import polars as pl
import pytest
from typer.testing import CliRunner

from pertlab.cli import app

import strict_json

runner = CliRunner()
ARGS = ["--capacity", "100pkt/s", "--rtt", "160ms", "--flows", "5", "--pmax", "0.1", "--tmin", "50ms",
        "--tmax", "100ms", "--alpha", "0.99", "--delta", "0.1ms"]  # fmt: skip


def test_stability_pert_red_json_keys():
    r = runner.invoke(app, ["stability", "pert-red", *ARGS, "--json"])
    assert r.exit_code == 0, r.output
    d = strict_json.loads(r.stdout)
    for key in ("stable", "margin", "w_star", "p_star", "tq_star_s", "min_delta_s"):
        assert key in d
    assert d["stable"] is True
    assert abs(d["margin"] - 0.18081) < 1e-4 and abs(d["w_star"] - 3.2) < 1e-12


def test_stability_pert_red_text_and_unit_forms():
    r = runner.invoke(app, ["stability", "pert-red", "--capacity", "1Mbps", "--packet-size", "1250B", "--rtt", "0.175s"])
    assert r.exit_code == 0, r.output
    assert "does NOT hold" in r.stdout


def test_stability_pert_pi_json():
    r = runner.invoke(app, ["stability", "pert-pi", "--capacity", "100pkt/s", "--rtt", "160ms", "--flows", "5", "--json"])
    d = strict_json.loads(r.stdout)
    assert abs(d["m"] - 3.90625) < 1e-9 and abs(d["k"] - 11.2462) < 1e-3


def test_errors_name_the_flag(tmp_path):
    r = runner.invoke(app, ["stability", "pert-red", "--flows", "0"])
    assert r.exit_code == 2 and "--flows:" in r.stderr
    r = runner.invoke(app, ["fluid", "pert-red", "--tmin", "100ms", "--tmax", "50ms"])
    assert r.exit_code == 2 and "error: --tmin, --tmax: tmin must be below tmax" in r.stderr
    # Only --tmax given: the two that must be ordered are named, the one given among them.
    r = runner.invoke(app, ["fluid", "pert-red", "--tmax", "10ms"])
    assert r.exit_code == 2 and "error: --tmin, --tmax: tmin must be below tmax (tmin = 0.05 s, tmax = 0.01 s)" in r.stderr
    # PI's proportional gain K/m of (16) overflows with m = 3e-308 (found by the generated
    # command lines with 1e-308, now refused as subnormal): refused naming both, where the run
    # went NaN at its first step.
    r = runner.invoke(app, ["fluid", "pert-pi", "--m", "3e-308", "--duration", "1s"])
    assert r.exit_code == 2 and "error: --m, --k: the proportional gain K/m must be finite" in r.stderr, r.stderr
    r = runner.invoke(app, ["stability", "pert-red", "--delta=-0.1ms"])
    assert r.exit_code == 2 and "--delta:" in r.stderr
    # A time below the nanosecond times are read to was 0 ("must be positive, got 0 s").
    for command in (["fluid", "pert-red", "--duration", "1s"], ["stability", "pert-red"]):
        r = runner.invoke(app, [*command, "--delta", "1e-300s"])
        assert r.exit_code == 2 and r.stderr.startswith("error: --delta: 1e-300s is below the nanosecond times are read to; write at least 1ns"), r.stderr
    # A round trip shorter than the step: TCP/RED's and Surathkal's delays grow with the queue, so the
    # check against the largest passed and the run stopped at its first short delay with
    # "error: delay: 0.0001 s is outside [step, max_delay]", naming no option (the fuzz campaign of
    # 2026-12-06). Every model is checked against its least delay before it integrates.
    for model in ("pert-red", "pert-pi", "tcp-red", "surathkal-tcp-red"):
        r = runner.invoke(app, ["fluid", model, "--duration", "1s", "--rtt", "1e-4s", "--capacity", "1e8pkt/s", "--out", str(tmp_path / model)])
        assert not (tmp_path / model).exists()
        assert r.exit_code == 2 and r.stderr.startswith("error: --step, --rtt: the step 0.001 s is longer than the least delay the model looks back by"), (model, r.stderr)


def test_fluid_pert_red_writes_parquet_png_json(tmp_path):
    r = runner.invoke(app, ["fluid", "pert-red", *ARGS, "--duration", "5s", "--out", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    d = strict_json.loads(r.stdout)
    df = pl.read_parquet(tmp_path / "pert-red.parquet")
    assert {"t_s", "window_pkts", "queueing_delay_s", "filtered_rtt_s"} <= set(df.columns)
    assert df["t_s"][-1] == 5.0 and (tmp_path / "pert-red.png").stat().st_size > 1000
    meta = strict_json.loads((tmp_path / "pert-red.json").read_text())
    assert meta["parameters"]["rtt"] == 0.16 and meta["diverged_at_s"] is None and d["diverged_at_s"] is None
    assert d["equilibrium"]["w_star"] == 3.2


@pytest.mark.parametrize(
    "args, at, root",
    [
        # C = 1000 pkt/s: Theorem 1 fails, the linearised (14) has its rightmost root at +5.21 1/s
        (["--capacity", "10Mbps", "--duration", "2s"], 1.904, "+5.21"),
        # W(t-R)^2 at 160 ms: unstable above 153.4 ms (docs/fluid.md), root +0.225 1/s
        (["--decrease", "delayed", "--duration", "20s", "--json"], 7.502, "+0.225"),
    ],
)
def test_fluid_divergence_writes_the_run_and_exits_1(tmp_path, args, at, root):
    out = tmp_path / "flx"
    r = runner.invoke(app, ["fluid", "pert-red", *args, "--out", str(out)])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), r.exception  # not an uncaught FloatingPointError
    assert "Traceback" not in r.stdout + r.stderr
    (err,) = r.stderr.strip().splitlines()
    assert err.startswith(f"error: the model diverged at t = {at:g} s ") and f"in {out}/" in err
    assert f"is unstable for these parameters (rightmost root {root} 1/s)" in err and "`pertlab stability pert-red`" in err
    df = pl.read_parquet(out / "pert-red.parquet")
    assert 0 < df["t_s"][-1] < at and df["t_s"][-1] == pytest.approx(at - 0.001)  # up to the last finite step
    assert df.height > 1000 and all(df[c].is_finite().all() for c in df.columns)
    meta = strict_json.loads((out / "pert-red.json").read_text())
    assert meta["diverged_at_s"] == pytest.approx(at) and meta["final"]["t_s"] == df["t_s"][-1]
    assert (out / "pert-red.png").stat().st_size > 1000
    if "--json" in args:
        d = strict_json.loads(r.stdout)
        assert d["diverged_at_s"] == pytest.approx(at) and d["files"]["parquet"] == str(out / "pert-red.parquet")
    else:
        assert f"pert-red: diverged at t = {at:g} s" in r.stdout and f"wrote {out / 'pert-red.json'}" in r.stdout


def test_every_fluid_model_reports_divergence_the_same_way(tmp_path):
    # A 0.9 s step on a 1 s RTT with RED at max_p = 1 from 1 packet: RK4 leaves the finite numbers.
    big_step = ["--rtt", "1s", "--step", "0.9s", "--duration", "60s"]
    red = ["--max-p", "1", "--min-th", "1", "--max-th", "2", "--flows", "100"]
    for cmd in (["tcp-red", *big_step, *red], ["surathkal-tcp-red", *big_step, *red], ["pert-pi", *big_step, "--k", "1000"]):
        r = runner.invoke(app, ["fluid", *cmd, "--out", str(tmp_path), "--json"])
        assert r.exit_code == 1 and isinstance(r.exception, SystemExit), (cmd, r.exception)
        (err,) = r.stderr.strip().splitlines()
        at = strict_json.loads(r.stdout)["diverged_at_s"]
        assert 0 < at < 60 and err.startswith(f"error: the model diverged at t = {at:g} s ") and "smaller --step" in err
        meta = strict_json.loads((tmp_path / f"{cmd[0]}.json").read_text())
        assert meta["diverged_at_s"] == at and 0 < meta["final"]["t_s"] < at


def test_fluid_other_models_run(tmp_path):
    for cmd in (["pert-pi", "--duration", "2s"], ["tcp-red", "--duration", "2s"], ["surathkal-tcp-red", "--duration", "2s"]):
        r = runner.invoke(app, ["fluid", *cmd, "--out", str(tmp_path), "--json"])
        assert r.exit_code == 0, r.output
    assert len(list(tmp_path.glob("*.parquet"))) == 3


def test_reproduce_list_has_the_fluid_entries():
    r = runner.invoke(app, ["reproduce", "--list", "--json"])
    names = strict_json.loads(r.stdout)
    assert "sigcomm07-fig13" in names and "tahiliani-ch5-fluid" in names


def test_quick_fig13_reproduction(tmp_path):
    r = runner.invoke(app, ["reproduce", "sigcomm07-fig13", "--quick", "--out", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    d = strict_json.loads(r.stdout)
    assert (tmp_path / "index.html").exists() and (tmp_path / "scenarios.json").exists()
    assert len(list(tmp_path.glob("*.png"))) == 3 and len(list(tmp_path.glob("*.parquet"))) >= 3
    holds = {c["text"][:40]: c["holds"] for c in d["claims"]}
    assert all(holds.values()), holds
    b = pl.read_parquet(tmp_path / "boundaries.parquet")
    assert abs(b["ours_ms"][0] - 171.0) < 0.05 and abs(b["difference_ms"][0]) < 0.05
