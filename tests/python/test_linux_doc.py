"""docs/linux.md's generated CPU-cost block (:mod:`pertlab.linux.doc`) against the committed run
of ``pertlab linux cpu-cost`` it is written from (docs/linux/cpu_cost_table6.json). No root."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from pertlab.linux import cpu_cost
from pertlab.linux.doc import CPU_COST_DATA, LABELS, render_cpu_cost, render_page

DOCS = Path(__file__).resolve().parents[2] / "docs"
DATA = json.loads((DOCS / CPU_COST_DATA).read_text())


def test_the_cpu_cost_block_is_generated_from_the_committed_run() -> None:
    page = (DOCS / "linux.md").read_text()
    assert render_page(page, DOCS) == page


def test_the_committed_summary_is_the_summary_of_its_runs() -> None:
    """The table is written from the file's summary; it must be what :class:`cpu_cost.CpuCost`
    computes from the runs the file holds (a summary edited by hand, or of other runs, fails)."""
    setup = cpu_cost.Setup(**{**DATA["setup"], "ccs": tuple(DATA["setup"]["ccs"])})
    setup.validate()
    fresh = json.loads(json.dumps(cpu_cost.CpuCost(setup, runs=DATA["runs"]).summary()))
    assert fresh == DATA["summary"]
    assert [r["cc"] for r in DATA["runs"]] == list(setup.ccs) * setup.repeat  # interleaved, every run kept


def test_every_connection_of_every_committed_run_used_the_congestion_control_asked_for() -> None:
    """docs/linux.md: ``ss`` in the middle of each run saw the congestion control asked for on
    every connection; and every run measured a finite, positive cost."""
    for r in DATA["runs"]:
        assert r["flows_seen"] == r["flows"] == DATA["setup"]["flows"], r["run_id"]
        assert r["mb"] > 0 and math.isfinite(r["testbed_cpu_ms_per_mb"]) and r["testbed_cpu_ms_per_mb"] > 0, r["run_id"]
        if r["cc"] in cpu_cost.EBPF:
            assert r["bpf_calls"] > 0 and 0 < r["bpf_ns_per_call"] < 1e5, r["run_id"]


@pytest.mark.parametrize("load, said", [(0.5, "otherwise idle"), (9.0, "the figures are noisy")])
def test_the_block_says_whether_other_jobs_shared_the_machine(load: float, said: str) -> None:
    data = json.loads(json.dumps(DATA))
    data["host"]["load_start"] = [load, load, load]
    data["host"]["load_end"] = [load, load, load]
    assert said in render_cpu_cost(data).splitlines()[0]


def test_a_difference_from_reno_beyond_the_runs_spread_is_said_to_be_outside() -> None:
    """The verdict of the last paragraph follows the numbers: a protocol moved far from Reno's
    testbed CPU per MB is "outside", one set equal to Reno's "inside"."""
    data = json.loads(json.dumps(DATA))
    reno = data["summary"]["reno"]["testbed_cpu_ms_per_mb"]
    other = next(cc for cc in data["setup"]["ccs"] if cc != "reno")
    data["summary"][other]["testbed_cpu_ms_per_mb"] = {**reno, "mean": reno["mean"] + 10 * (reno["sd"] + 1)}
    assert "outside the two standard deviations" in render_cpu_cost(data)
    data["summary"][other]["testbed_cpu_ms_per_mb"] = dict(reno)
    assert f"{LABELS[other]} +0.0 ms per MB (inside" in render_cpu_cost(data)



def test_the_committed_simulator_rows_are_the_simulators_today() -> None:
    """The block's simulator rows come from the file; they must be what :func:`cpu_cost.simulate`
    gives for its setup now (deterministic). After a change of the simulator:
    ``cpu_cost.refresh_simulator(Path("docs/linux/cpu_cost_table6.json"))``, then ``make docs``."""
    setup = cpu_cost.Setup(**{**DATA["setup"], "ccs": tuple(DATA["setup"]["ccs"])})
    assert json.loads(json.dumps(cpu_cost.simulate(setup))) == DATA["simulator"]
    assert DATA["simulator_summary"] == json.loads(json.dumps(cpu_cost.CpuCost(setup, simulator=DATA["simulator"]).sim_summary()))


def test_the_simulator_beside_the_kernel_runs_every_controller_it_has_per_seed() -> None:
    """Seeds 1 to ``repeat`` per congestion control the simulator has (not bbr); the halves of a
    run average to the whole; both sides start at the kernel's initial window; and each side's
    capacity is its own payload per packet."""
    setup = cpu_cost.Setup(flows=4, seconds=4.0, repeat=2, ccs=("pert-adaptive", "reno", "bbr"), rate_mbit=10, rtt_ms=20)
    rows = cpu_cost.simulate(setup)
    assert [(r["cc"], r["seed"]) for r in rows] == [("pert-adaptive", 1), ("pert-adaptive", 2), ("reno", 1), ("reno", 2)]
    for r in rows:
        assert math.isclose((r["goodput_first_half_mbps"] + r["goodput_second_half_mbps"]) / 2, r["goodput_mbps"], rel_tol=1e-9)
        assert 0 < r["goodput_mbps"] <= r["payload_capacity_mbps"] and math.isclose(r["payload_capacity_mbps"], 10 * 1460 / 1500)
    assert setup.scenario("reno").init_cwnd == 10
    assert rows == cpu_cost.simulate(setup)


def _adaptive_reno_runs() -> dict[str, dict]:
    from pertlab.linux.modes_doc import ADAPTIVE_RENO_DATA

    return {example: json.loads((DOCS / data).read_text()) for data, example in ADAPTIVE_RENO_DATA.items()}


def test_the_committed_join_and_leave_runs_are_of_todays_example_files() -> None:
    """docs/linux.md's "Reno flows join, and leave" block: each committed compare run ran its
    example file as it reads today (a file changed since needs the run again), met no stale
    slow-start threshold, and its report.md is the run's (the rows of report.json, written)."""
    from pertlab.linux.compare import Row
    from pertlab.linux.scenario import TestbedScenario, load_scenario

    for example, rec in _adaptive_reno_runs().items():
        assert TestbedScenario.parse(rec["testbed_scenario"]) == load_scenario(DOCS.parent / example), example
        assert rec["invalid_ssthresh_samples"] == 0 and set(rec["ssthresh_repairs"].values()) == {0}, example
        report = (DOCS / "linux" / Path(example).with_suffix(".md").name).read_text()
        table = [line for line in report.splitlines() if line.startswith("| ") and not line.startswith("| metric")]
        assert [Row(**row).markdown() for row in rec["rows"]] == table, example


def test_the_committed_join_and_leave_runs_show_what_the_prose_says() -> None:
    """The prose around the block: on both sides adaptive PERT is in compete mode at most a
    quarter of the time alone and at least half of it after Reno joins, and, when Reno leaves,
    spends seconds in compete mode while it is there and at most a quarter of the window after."""
    from pertlab.linux.modes_doc import compete

    runs = _adaptive_reno_runs()
    join, leave = runs["examples/testbed/adaptive_reno_join.toml"], runs["examples/testbed/adaptive_reno_leave.toml"]
    for side, (alone, after) in enumerate(zip(compete(join, True), compete(join, False))):
        assert alone[1] <= 0.25 and after[1] >= 0.5, (side, alone, after)
    for side, (during, window) in enumerate(zip(compete(leave, True), compete(leave, False))):
        assert during[0] >= 2.0 and window[1] <= 0.25, (side, during, window)


def test_the_block_says_where_the_kernels_share_lies_against_the_seeds() -> None:
    from pertlab.linux.modes_doc import _against

    assert _against(0.5, [0.4, 0.6]) == "within the seeds' range"
    assert _against(0.604, [0.4, 0.6]) == "within the seeds' range"  # equal to 0.01
    assert _against(0.7, [0.4, 0.6]) == "0.10 above the seeds' most (0.60)"
    assert _against(0.2, [0.4, 0.6]) == "0.20 below the seeds' least (0.40)"
