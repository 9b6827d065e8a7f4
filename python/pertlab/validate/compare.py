"""pertlab's measurements beside a reference tool's (ns-3, the Linux kernel), metric by metric.

A case's result holds both tools' values of the metrics of :mod:`.tolerance`; each metric
gets a verdict: "agrees" (within the tolerance), "explained" (outside it in the direction
the case explains, docs/validation.md), "differs" (outside, unexplained), "explained
difference not seen" (the explained difference is gone or reversed: the docs are out of
date), or "missing" when the reference cannot run the case (then ``missing`` says why).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .tolerance import METRICS, TOLERANCES

__all__ = ["CaseResult", "verdicts", "rows", "spread"]


class _Explained(Protocol):
    metric: str
    direction: str
    anchor: str


class _Case(Protocol):
    name: str
    what: str
    explained: tuple[_Explained, ...]


@dataclass(frozen=True)
class CaseResult:
    case: Any
    pertlab: dict[str, float]
    reference: dict[str, float] | None
    missing: str | None
    cwnd: dict[str, list[tuple[float, float]]]
    seconds: dict[str, float]


def spread(goodputs: np.ndarray) -> tuple[float, float]:
    """(Jain's index, coefficient of variation) of per-flow goodputs; NaN when all are 0."""
    mean = goodputs.mean()
    if mean <= 0:
        return float("nan"), float("nan")
    return float(goodputs.sum() ** 2 / (len(goodputs) * (goodputs**2).sum())), float(goodputs.std() / mean)


def verdicts(result: CaseResult, missing: str = "not in ns-3") -> dict[str, str]:
    """The verdict of each metric (module doc); ``missing`` is the word for a case the reference lacks."""
    if result.reference is None:
        return {m: missing for m in METRICS}
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


def rows(results: list[CaseResult], missing: str = "not in ns-3") -> list[dict[str, Any]]:
    """One row per case and metric: both values, their ratio, the verdict and its reason."""
    table = []
    for r in results:
        v = verdicts(r, missing)
        for metric in METRICS:
            ours = r.pertlab[metric]
            theirs = None if r.reference is None else r.reference[metric]
            table.append({
                "case": r.case.name, "what": r.case.what, "metric": metric, "pertlab": ours, "reference": theirs,
                "ratio": None if theirs is None else _ratio(ours, theirs), "verdict": v[metric],
                "reason": r.missing or next((e.anchor for e in r.case.explained if e.metric == metric), ""),
            })  # fmt: skip
    return table
