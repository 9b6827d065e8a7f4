"""The simulator's half of the committed ``validate kernel`` run (docs/validation/kernel), rerun
with today's simulator against the committed kernel values: every case's verdicts must be the
committed ones.

No root needed: the kernel's side is the committed run's (``rows.json``'s ``reference``). The
simulator's side is built and judged as ``validate kernel`` builds and judges it
(``testbed compare``'s ``sim_scenario`` of each of the case's runs, with its default side
:data:`~pertlab.linux.sim_side.LINUX_SIDE`, the means over a case's
seeds, :func:`pertlab.validate.compare.verdicts`). A change of the simulator that moves a case into
or out of agreement with the kernel fails here; then rerun ``pertlab validate kernel`` and say
why in docs/validation.md. For :data:`EXACT` the simulator's side must also be the committed one
to the last digit: the committed run is of today's simulator.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pertlab.linux.sim_side import LINUX_SIDE, SimSide, sim_scenario
from pertlab.linux.scenario import TestbedScenario
from pertlab.runner import run
from pertlab.validate.compare import CaseResult, mean_metrics, pertlab_metrics, verdicts
from pertlab.validate.kernel import FULL, KernelCase, runs_of

ROWS = json.loads((Path(__file__).resolve().parents[2] / "docs" / "validation" / "kernel" / "rows.json").read_text())
#: Cases whose simulated metrics must equal the committed ones: Reno, and Linux's CUBIC behind step marking.
EXACT = ("reno-5mbps", "cubic-10-ecn")


def _simulated(case: KernelCase, side: SimSide = LINUX_SIDE) -> dict[str, float]:
    """The case's metrics in today's simulator with ``side``: the mean over its runs (one per seed)."""
    return mean_metrics([pertlab_metrics(run(sim_scenario(TestbedScenario.parse(json.loads(seeded.scenario)), side=side))) for _, seeded in runs_of(case)])


@pytest.mark.parametrize("case", FULL, ids=lambda c: c.name)
def test_the_committed_kernel_verdicts_hold_for_todays_simulator(case: KernelCase) -> None:
    committed = {r["metric"]: r for r in ROWS if r["case"] == case.name}
    ours = _simulated(case)
    result = CaseResult(case, ours, {m: r["reference"] for m, r in committed.items()}, None, {}, {})
    got = verdicts(result)
    changed = {m: (committed[m]["pertlab"], ours[m], committed[m]["reference"]) for m in committed if got[m] != committed[m]["verdict"]}
    assert not changed, f"verdicts changed (metric: committed simulator value, today's, kernel's): {changed}"
    if case.name in EXACT:
        assert ours == {m: r["pertlab"] for m, r in committed.items()}, case.name


def test_rack_and_the_frame_ahead_bring_every_lossy_cases_drop_rate_toward_the_kernels() -> None:
    """docs/validation.md, "Against the run before": against the committed kernel values, each case
    with losses has its simulated drop rate closer with ``LINUX_SIDE`` (what ``validate kernel`` runs)
    than with the simulator's side of the run before (neither RACK nor the frame ahead)."""
    kernel_drops = {r["case"]: r["reference"] for r in ROWS if r["metric"] == "drop_rate"}
    lossy = [c for c in FULL if kernel_drops[c.name] > 0]
    assert len(lossy) == 5
    for case in lossy:
        kernel = kernel_drops[case.name]
        before, now = _simulated(case, SimSide()), _simulated(case)
        assert abs(now["drop_rate"] - kernel) < abs(before["drop_rate"] - kernel), (case.name, before["drop_rate"], now["drop_rate"], kernel)
