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

from importlib.metadata import PackageNotFoundError, version

from .builders import dumbbell
from .results import Results, drop_ratio
from .run import run
from .scenario import (
    DumbbellSpec,
    FlowSpec,
    LinkSpec,
    MeasureWindow,
    MonitorSpec,
    Pert,
    QueueSpec,
    RedConfig,
    Reno,
    Scenario,
    ScenarioError,
    TcpConfig,
    UdpSpec,
    Vegas,
)

try:
    __version__ = version("pertlab")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"

__all__ = [
    "run",
    "dumbbell",
    "Results",
    "drop_ratio",
    "Scenario",
    "ScenarioError",
    "DumbbellSpec",
    "LinkSpec",
    "QueueSpec",
    "RedConfig",
    "FlowSpec",
    "TcpConfig",
    "Reno",
    "Vegas",
    "Pert",
    "UdpSpec",
    "MonitorSpec",
    "MeasureWindow",
]
