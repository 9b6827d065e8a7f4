"""Proportional Rate Reduction (``tcp.prr``, RFC 6937 as Linux's ``tcp_cwnd_reduction``) in the
simulator, against the kernel run of ``validate kernel``'s case ``cubic-10-ecn`` committed in
docs/validation/kernel (docs/linux.md, "ECN at the bottleneck").

Simulator only: the kernel's values are those of the committed run. The sender-level behaviour
is tested in crates/pertlab-sim/src/tcp/prr_tests.rs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pertlab.linux.compare import sim_scenario
from pertlab.linux.scenario import TestbedScenario
from pertlab.runner import run
from pertlab.scenario import Scenario
from pertlab.validate.compare import metrics
from pertlab.validate.kernel import FULL
from pertlab.validate.tolerance import TOLERANCES

ROWS = Path(__file__).resolve().parents[2] / "docs" / "validation" / "kernel" / "rows.json"
#: A send overhead of one packet time at the case's 10 Mbit/s (1500 B): the timing noise of real
#: hosts, which breaks the phase locking of identical simulated flows (docs/validation.md,
#: "End-host timing": one to two packet times matched the kernel's drops), so that the seeds differ
#: and no one phase decides the result. With a quarter of it the simulated flows stay locked and
#: which of them split depends on the marking threshold, with PRR or without.
OVERHEAD = "1.2ms"
#: Seeds, and the marking thresholds K (packets) around the case's 10.
RUNS = [(1, 10), (2, 10), (3, 10), (1, 9), (1, 11)]


def _simulated(prr: bool, seed: int, k: int) -> dict[str, float]:
    case = next(c for c in FULL if c.name == "cubic-10-ecn")
    data = sim_scenario(TestbedScenario.model_validate(json.loads(case.scenario))).model_dump(mode="json", by_alias=True, exclude_none=True)
    data["seed"] = seed
    step = data["dumbbell"]["bottleneck_queue"]["step"]
    assert step["k_pkts"] == 10
    step["k_pkts"] = k
    for flow in data["flows"]:
        flow["tcp"] |= {"prr": prr, "overhead_ns": OVERHEAD}
    res = run(Scenario.parse(data))
    return metrics(res.bottleneck, res.flows["goodput_mbps"].to_numpy(), res.jain)


@pytest.mark.parametrize(("seed", "k"), RUNS)
def test_prr_evens_the_goodputs_that_cutting_at_once_spreads_behind_step_marking(seed: int, k: int) -> None:
    # Ten CUBIC flows with windows of 2 to 6 segments behind step marking from K packets. The
    # kernel's goodputs spread little (CoV 0.02 to 0.03 at K = 10); cut to ssthresh at once, the
    # simulated flows split into groups that keep apart, and with Linux's reduction they do not.
    kernel = {r["metric"]: r["reference"] for r in json.loads(ROWS.read_text()) if r["case"] == "cubic-10-ecn"}
    cut, prr = _simulated(False, seed, k), _simulated(True, seed, k)
    cov = TOLERANCES["goodput_cov"]
    assert not cov.agrees(cut["goodput_cov"], kernel["goodput_cov"]) and cut["goodput_cov"] > kernel["goodput_cov"], (cut, kernel)
    assert cov.agrees(prr["goodput_cov"], kernel["goodput_cov"]) and prr["goodput_cov"] < cut["goodput_cov"], (prr, kernel)
    if k != 10:  # the kernel ran K = 10 only: at 9 and 11, the spread alone
        return
    # The queue and the mark rate still agree with the kernel's; PRR closes less than half of the
    # gap to the kernel's utilization, which it does not explain (open, docs/linux.md).
    for metric in ("avg_queue_pkts", "mark_rate"):
        assert TOLERANCES[metric].agrees(prr[metric], kernel[metric]), (metric, prr, kernel)
    gap = {name: kernel["utilization"] - sim["utilization"] for name, sim in (("cut", cut), ("prr", prr))}
    assert gap["prr"] > gap["cut"] / 2 and not TOLERANCES["utilization"].agrees(prr["utilization"], kernel["utilization"]), gap
