"""pertlab: congestion-control and AQM research around PERT.

A packet-level simulator written in Rust (``pertlab._core``) driven from Python:

>>> import pertlab
>>> scenario = pertlab.dumbbell(bw="150Mbps", rtt="60ms", flows=50, cc="pert", duration="100s")
>>> results = pertlab.run(scenario)          # doctest: +SKIP
>>> results.bottleneck["avg_queue_norm"]     # doctest: +SKIP
>>> results.flows                            # a polars DataFrame  # doctest: +SKIP

Scenarios are pydantic models (:mod:`pertlab.scenario`), written in TOML with
human units or built with :mod:`pertlab.builders`; results are polars
DataFrames and Parquet files (:mod:`pertlab.results`).
"""

from __future__ import annotations

from typing import Any

from ._lazy import lazy_exports

#: Public names, by the module that defines them, imported on first use (:mod:`pertlab._lazy`).
_EXPORTS = {
    "run": ".runner",
    "ModelError": ".runner",
    "Simulation": ".simulation",
    "dumbbell": ".builders",
    "eval_suite": ".tcp_eval_suite",
    "Results": ".results",
    "CaptureWarning": ".results",
    "drop_ratio": ".results",
    **dict.fromkeys(
        (
            "DumbbellSpec", "FlowSpec", "LinkSpec", "MeasureWindow", "MonitorSpec", "Pert", "QueueSpec", "RedConfig", "Reno",
            "Scenario", "ScenarioError", "TcpConfig", "UdpSpec", "Vegas",
        ),
        ".scenario",
    ),
}  # fmt: skip

__all__ = list(_EXPORTS)
_export, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            globals()[name] = version("pertlab")
        except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
            globals()[name] = "0+unknown"
        return globals()[name]
    return _export(name)
