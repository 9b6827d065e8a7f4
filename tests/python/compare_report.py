"""Reading a ``pertlab testbed compare`` report's table in tests."""

from __future__ import annotations


def report_row(report: str, metric: str) -> tuple[float, float]:
    """The testbed's and the simulator's value in ``metric``'s row of a `compare` report (its
    first seed's, when the simulator ran several)."""
    (line,) = [row for row in report.splitlines() if row.startswith(f"| {metric} | ")]
    real, sim = line.removesuffix(" |").split(" | ")[1:3]
    return float(real), float(sim)
