"""pertlab's measurements beside a reference tool's (ns-3, the Linux kernel), metric by metric.

A case's result holds both tools' values of the metrics of :mod:`.tolerance`; each metric
gets a verdict: "agrees" (within the tolerance), "explained" (outside it in the direction
the case explains, docs/validation.md), "differs" (outside, unexplained), "explained
difference not seen" (the explained difference is gone or reversed: the docs are out of
date), or :data:`NOT_IN_REFERENCE` when the reference cannot run the case (then
``CaseResult.missing`` says why).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._core import jain_index
from .tolerance import METRICS, TOLERANCES

__all__ = ["CaseResult", "verdicts", "rows", "metrics", "pertlab_metrics", "mean_metrics", "NOT_IN_REFERENCE"]

#: The verdict of every metric of a case the reference cannot run (only ns-3 lacks some).
NOT_IN_REFERENCE = "not in ns-3"


@dataclass(frozen=True)
class CaseResult:
    case: Any
    pertlab: dict[str, float]
    reference: dict[str, float] | None
    missing: str | None
    cwnd: dict[str, list[tuple[float, float]]]
    seconds: dict[str, float]
    #: With several seeds, each seed's metrics by tool ("pertlab", "reference"): the spread the
    #: means (what the verdicts judge) hide. Empty for a case of one seed.
    per_seed: dict[str, list[dict[str, float]]] = field(default_factory=dict)

    @classmethod
    def of_seeds(
        cls, case: Any, ours: list[dict[str, float]], theirs: list[dict[str, float]] | None, missing: str | None,
        cwnd: dict[str, list[tuple[float, float]]], seconds: dict[str, float],
    ) -> CaseResult:  # fmt: skip
        """A case's result from its seeds' metrics (``theirs`` None where the reference cannot run
        it): the means, and with several seeds each seed's."""
        per_seed = {} if len(ours) == 1 else {"pertlab": ours} | ({"reference": theirs} if theirs is not None else {})
        return cls(case, mean_metrics(ours), None if theirs is None else mean_metrics(theirs), missing, cwnd, seconds, per_seed)


def _cov(goodputs: np.ndarray) -> float:
    """The coefficient of variation of per-flow goodputs; NaN when all are 0."""
    mean = goodputs.mean()
    return float(goodputs.std() / mean) if mean > 0 else float("nan")


def metrics(queue: dict[str, Any], goodputs: Any, jain: float | None = None) -> dict[str, float]:
    """The metrics of :mod:`.tolerance` from a bottleneck queue's summary and the flows' goodputs;
    ``jain`` when the results already hold Jain's index (``Results.jain``), else the core's
    :func:`pertlab._core.jain_index` of ``goodputs``."""
    goodputs = np.asarray(goodputs, dtype=float)
    return {"avg_queue_pkts": queue["avg_queue_pkts"], "drop_rate": queue["drop_rate"], "mark_rate": queue.get("mark_rate") or 0.0,
            "utilization": queue["utilization"], "jain": jain_index(goodputs.tolist()) if jain is None else jain,
            "goodput_cov": _cov(goodputs)}  # fmt: skip


def pertlab_metrics(r: Any) -> dict[str, float]:
    """The metrics of :mod:`.tolerance` from pertlab's results ``r`` (:class:`pertlab.results.Results`)."""
    return metrics(r.bottleneck, r.flows["goodput_mbps"].to_numpy(), r.jain)


def mean_metrics(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each metric's mean over the runs of a case of several seeds (what its verdicts judge)."""
    return {k: float(np.mean([r[k] for r in runs])) for k in runs[0]}


def verdicts(result: CaseResult) -> dict[str, str]:
    """The verdict of each metric (module doc)."""
    if result.reference is None:
        return {m: NOT_IN_REFERENCE for m in METRICS}
    explained = {e.metric: e.direction for e in result.case.explained}
    out: dict[str, str] = {}
    for metric in METRICS:
        a, b = result.pertlab[metric], result.reference[metric]
        agrees = TOLERANCES[metric].agrees(a, b)
        if metric not in explained:
            out[metric] = "agrees" if agrees else "differs"
        elif not agrees and (a > b) == (explained[metric] == "higher"):
            out[metric] = "explained"
        else:
            out[metric] = "explained difference not seen"
    return out


def _ratio(a: float, b: float) -> float:
    return a / b if b else (1.0 if a == b else float("inf"))


def rows(results: list[CaseResult]) -> list[dict[str, Any]]:
    """One row per case and metric: both values, their ratio, the verdict and its reason."""
    table = []
    for r in results:
        v = verdicts(r)
        for metric in METRICS:
            ours = r.pertlab[metric]
            theirs = None if r.reference is None else r.reference[metric]
            table.append({
                "case": r.case.name, "what": r.case.what, "metric": metric, "pertlab": ours, "reference": theirs,
                "ratio": None if theirs is None else _ratio(ours, theirs), "verdict": v[metric],
                "reason": r.missing or next((e.anchor for e in r.case.explained if e.metric == metric), ""),
            })  # fmt: skip
    return table
