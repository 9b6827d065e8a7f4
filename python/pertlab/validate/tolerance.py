"""How close pertlab and ns-3 must be, per metric, to be said to agree.

Stated before the matrix was first run, and not to be widened to make a case pass: a
difference outside these is fixed, or explained in docs/validation.md and listed in the
case (``Case.explained``), and the test then asserts the explained difference.

Two simulators with independent TCP implementations, independent random draws and one
run each do not give equal numbers: the bounds are what one seed's run-to-run spread of
a synchronised sawtooth leaves between two correct implementations (a few tens of
seconds of measurement), not what a change of the algorithm would.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Tolerance", "TOLERANCES", "METRICS"]


@dataclass(frozen=True)
class Tolerance:
    """Agreement when ``|a - b| <= max(absolute, relative * max(|a|, |b|))``."""

    relative: float
    absolute: float
    why: str

    def agrees(self, a: float, b: float) -> bool:
        return abs(a - b) <= max(self.absolute, self.relative * max(abs(a), abs(b)))


TOLERANCES: dict[str, Tolerance] = {
    "avg_queue_pkts": Tolerance(
        0.25, 2.0,
        "a time average of a sawtooth over tens of seconds moves by 10-20 % between seeds; 2 packets "
        "for queues a few packets long, where one packet in service or not is already 20 %",
    ),
    "drop_rate": Tolerance(
        0.25, 0.002,
        "drops are a few hundred to a few thousand events per run (Poisson spread 2-6 %) and follow "
        "the queue's sawtooth; 0.2 percentage points where rates are near zero",
    ),
    "mark_rate": Tolerance(0.25, 0.002, "as drop_rate: marks replace drops one for one"),
    "utilization": Tolerance(0.0, 0.02, "a saturated link is busy 98-100 % in any TCP; 2 points is a real difference"),
    "jain": Tolerance(0.0, 0.05, "Jain's index over tens of flows in tens of seconds varies by a few hundredths between seeds"),
    "goodput_cov": Tolerance(
        0.0, 0.1, "the coefficient of variation of per-flow goodput: the same spread as Jain's index, in units a reader reads"
    ),
}  # fmt: skip
METRICS = tuple(TOLERANCES)
