"""``pertlab validate kernel --quick``: pertlab beside the kernel in the namespace testbed.

Needs root and TUN (the quick case runs kernel reno only, no BPF); skips saying why
otherwise. Its options are registered in test_cli_flags.py's coverage here.
"""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner, Result

from pertlab.cli import app
from pertlab.linux import testbed
from pertlab.validate.kernel import QUICK
from host import measured, missed_while_late
from test_cli_flags import covers

PROBLEM = testbed.support_problem(needs_pert=False)
pytestmark = [pytest.mark.quiet_host, pytest.mark.skipif(PROBLEM is not None, reason=f"testbed: {PROBLEM}")]

_CASE = json.loads(QUICK[0].scenario)
INIT_CWND = _CASE["init_cwnd"]
WARMUP_S = float(_CASE["warmup"].removesuffix("s"))
RTT_S = float(_CASE["bottleneck"]["delay"].removesuffix("ms")) / 1e3


def _starts(out) -> pl.DataFrame:
    """Per kernel flow of the quick case: its windows sampled before its first ACK could return
    (within the round-trip propagation delay) and when its first byte arrived (null: never)."""
    series = pl.read_parquet(out / "reno-5mbps" / "testbed" / "flow_series.parquet")
    return series.group_by("flow").agg(
        pl.col("cwnd").filter(pl.col("t_s") < RTT_S).unique().alias("first_cwnds"),
        pl.col("t_s").filter(pl.col("delivered_bytes") > 1).min().alias("first_delivery_s"),
    )  # fmt: skip


def _locked_out(starts: pl.DataFrame) -> list[int]:
    """The flows locked out through the warm-up (docs/validation.md, 'Start-up lockout'): each
    lost its first window and its retransmissions until after the warm-up's end, so its first
    byte arrived in the measurement window or never."""
    locked = starts.filter(pl.col("first_delivery_s").is_null() | (pl.col("first_delivery_s") >= WARMUP_S))
    return sorted(locked["flow"].to_list())


@covers("validate kernel", "--quick", "--out", "--json")
def test_validate_kernel_quick(tmp_path):
    """Ten identical reno flows on 5 Mbit/s, starting with 2 segments on both sides: queue,
    utilization and fairness agree with the kernel's; the kernel drops more, as
    docs/validation.md ('End-host timing') explains.

    A kernel flow can still lose its first window and its retransmissions until past the
    warm-up (docs/validation.md, 'Start-up lockout': 3 in 8 quick runs with the kernel's own
    window of 10, none in 9 with 2): its share then differs in the window. Such a run is
    asserted to be that lockout and the case runs once more, a new sample of the unseeded
    testbed; the second run must agree.

    A run whose verdicts differ while the testbed's delay line released late on average (the
    host held the machine back: tests/python/host.py) is taken again; on 2026-12-02 one had
    utilization "differs" in a spell of 12 to 38 % stolen, and passed minutes later."""
    attempt = itertools.count()

    def validate() -> tuple[Path, Result, dict]:
        out = tmp_path / f"run{next(attempt)}"
        result = CliRunner().invoke(app, ["validate", "kernel", "--quick", "--out", str(out), "--json"], catch_exceptions=False)
        return out, result, {r["metric"]: r for r in json.loads(result.stdout)["rows"]}

    def held_back(got: tuple[Path, Result, dict]) -> str | None:
        out, _, rows = got
        delayline = json.loads((out / "reno-5mbps" / "testbed" / "summary.json").read_text())["delayline"]
        differ = sorted(m for m, r in rows.items() if m != "drop_rate" and r["verdict"] != "agrees")
        return missed_while_late(delayline, f"{', '.join(differ)} differ" if differ else None)

    (out, result, rows), _ = measured(validate, held_back)
    if {rows["jain"]["verdict"], rows["goodput_cov"]["verdict"]} != {"agrees"}:
        assert _locked_out(_starts(out)), result.output
        (out, result, rows), _ = measured(validate, held_back)
    # The kernel's flows started with the case's window (the sender's route's initcwnd): every
    # sample taken before an ACK could return (the sampler starts with the flows, about 2 ms in).
    first = _starts(out)["first_cwnds"].explode().drop_nulls()
    assert first.len() == 0 or first.unique().to_list() == [INIT_CWND], first
    verdicts = {m: r["verdict"] for m, r in rows.items()}
    # The simulator's identical flows drop less than the kernel's (lock-step): with the simulator's
    # side of `testbed compare` (RACK, the frame ahead) about 0.89 of the kernel's drop rate (the
    # full run of 2026-12-08 and this case's 30 s runs; 0.67-0.75 without them). drop_rate's stated
    # tolerance is 25 %, so the verdict is "explained difference not seen" (the command exits 1
    # then), or "explained" in a run whose gap passes the tolerance. The direction is asserted
    # either way; everything else must agree.
    assert verdicts.pop("drop_rate") in ("explained", "explained difference not seen"), result.output
    assert verdicts == {"avg_queue_pkts": "agrees", "mark_rate": "agrees", "utilization": "agrees", "jain": "agrees", "goodput_cov": "agrees"}
    assert result.exit_code == (0 if rows["drop_rate"]["verdict"] == "explained" else 1), result.output
    assert rows["drop_rate"]["ratio"] < 0.95
    assert (out / "report.html").is_file() and (out / "reno-5mbps" / "report.md").is_file()
    # Stored: a rerun reads the case back without running the testbed.
    again = CliRunner().invoke(app, ["validate", "kernel", "--quick", "--out", str(out), "--json"], catch_exceptions=False)
    assert json.loads(again.stdout)["rows"] == json.loads(result.stdout)["rows"]
    # docs/validation.md, "End-host timing", measured from this run's folder: the simulator's
    # identical flows each respond to loss the same number of times (lock-step), the kernel drops
    # more, and a send overhead brings the simulator's drops up.
    from pertlab.validate.end_host import measure, render

    data = measure(out)
    assert list(data["cases"]) == ["reno-5mbps"]
    cols = data["cases"]["reno-5mbps"]["columns"]
    sim, real = cols["simulator"], cols["testbed"]
    # Lock-step: with RACK and the frame ahead the 30 s window's edge splits the ten flows' counts
    # by one (75 and 76 on 2026-12-08), no more.
    recoveries = sim["fast_recoveries"]["reno"]
    assert max(recoveries) - min(recoveries) <= 1 and sim["timeouts"]["reno"][-1] == 0, sim
    assert real["drops"] > sim["drops"] and cols["overhead_5ms"]["drops"] > sim["drops"], cols
    assert "| `reno-5mbps` (" in render(data)


def test_a_kept_case_that_cannot_be_read_is_run_again(tmp_path):
    """No root needed: what `run_kernel` resumes from. A truncated file (written before kept cases
    were written atomically) or one holding anything but an object is no kept case."""
    from pertlab.validate.kernel import _stored

    for text in ("", '{"key": ', "[1]", "null"):
        (tmp_path / "case.json").write_text(text)
        assert _stored(tmp_path / "case.json") is None
    assert _stored(tmp_path / "missing.json") is None
    (tmp_path / "case.json").write_text('{"key": "k"}')
    assert _stored(tmp_path / "case.json") == {"key": "k"}


def test_a_case_of_several_seeds_is_judged_on_the_means_of_its_runs_each_kept(tmp_path):
    """A case of two seeds (two reno flows, 8 s): each seed runs the scenario with that seed on
    both sides, into its own folder; the case's metrics are the means of the two runs', each run
    is kept, and a rerun reads them back without running anything."""
    from pertlab.validate.tolerance import METRICS
    from pertlab.validate.kernel import kcase, run_kernel

    net = {"duration": "8s", "warmup": "2s", "sample_interval": "100ms", "init_cwnd": 2, "bottleneck": {"rate": "10Mbps", "delay": "40ms", "buffer": "50KB"}}
    c = kcase("reno-2", "2 reno flows, 2 seeds", seeds=2, **net, flows=[{"cc": "reno", "count": 2}])
    (r,) = run_kernel(False, tmp_path, (c,))
    kept = [json.loads((tmp_path / "runs" / f"reno-2-seed-{seed}.json").read_text()) for seed in (1, 2)]
    for seed in (1, 2):
        folder = tmp_path / f"reno-2-seed-{seed}"
        assert json.loads((folder / "sim" / "summary.json").read_text())["seed"] == seed
        assert (folder / "testbed" / "summary.json").is_file()
    for metric in METRICS:
        for side in ("pertlab", "reference"):
            runs = [k[side][metric] for k in kept]
            assert getattr(r, side)[metric] == pytest.approx(sum(runs) / 2, abs=1e-12), (metric, side, runs)
    # The kernel's side is two runs, not one read twice: each seed's testbed run has its own id.
    # (Their metrics can coincide: two reno flows' queue, sampled every 100 ms, averaged to the
    # same 19.6167 packets in both runs of a CI run on 2026-12-05.)
    run_ids = {json.loads((tmp_path / f"reno-2-seed-{seed}" / "testbed" / "summary.json").read_text())["run_id"] for seed in (1, 2)}
    assert len(run_ids) == 2, run_ids
    for seed in (1, 2):
        shutil.rmtree(tmp_path / f"reno-2-seed-{seed}")
    (again,) = run_kernel(False, tmp_path, (c,))
    assert (again.pertlab, again.reference) == (r.pertlab, r.reference)
    assert not (tmp_path / "reno-2-seed-1").exists() and not (tmp_path / "reno-2-seed-2").exists()
