"""Files of a fluid run: the trajectory table (Parquet), a plot (PNG) and the
parameters with the equilibrium (JSON)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from ..jsonable import dumps  # noqa: E402
from .models import FluidRun  # noqa: E402

__all__ = ["frame", "write_run", "plot_runs", "envelope"]

#: Panels of the standard plot: (column, (axis label, unit shown, scale from the column's unit)).
#: A delay is shown in ms unless that would overflow (then in s, the column's own unit).
_PANELS = {
    "window_pkts": ("window W", "packets", 1.0),
    "queueing_delay_s": ("queueing delay T_q", "ms", 1e3),
    "filtered_delay_s": ("filtered delay", "ms", 1e3),
    "avg_queue_pkts": ("RED avg queue x", "packets", 1.0),
    "queue_pkts": ("queue q", "packets", 1.0),
    "p": ("probability p", "", 1.0),
}


def _panel_scale(col: str, runs: Sequence[tuple[str, FluidRun]]) -> tuple[float, str]:
    """The scale and axis label of ``col``'s panel: its panel's unit, or the column's own unit
    (seconds for a delay) where the panel's would turn a finite value of some run infinite (a
    delay of 1e306 s, from a capacity near the smallest normal float, has no finite value in ms)."""
    label, unit, scale = _PANELS.get(col, (col, "", 1.0))
    values = np.concatenate([np.asarray(run.columns()[col], dtype=float) for _, run in runs])
    top = float(np.max(np.abs(values[np.isfinite(values)]), initial=0.0))
    if top > sys.float_info.max / scale:
        scale, unit = 1.0, col.rsplit("_", 1)[-1]  # the column's name ends in its unit (queueing_delay_s)
    return scale, f"{label} ({unit})" if unit else label


def frame(run: FluidRun) -> pl.DataFrame:
    """The trajectory as a polars DataFrame (one row per recorded time)."""
    return pl.DataFrame({k: np.asarray(v, dtype=float) for k, v in run.columns().items()})


def envelope(run: FluidRun, column: str, last: float) -> tuple[float, float]:
    """(min, max) of ``column`` over the last ``last`` seconds."""
    c = run.columns()
    t = c["t_s"]
    sel = t >= t[-1] - last
    return float(np.min(c[column][sel])), float(np.max(c[column][sel]))


def plot_runs(runs: Sequence[tuple[str, FluidRun]], path: Path, title: str, columns: Sequence[str] | None = None) -> Path:
    """One panel per column, one line per labelled run, the equilibrium dashed."""
    cols0 = runs[0][1].columns()
    columns = [c for c in (columns or _PANELS) if c in cols0]
    fig, axes = plt.subplots(len(columns), 1, figsize=(8, 2.2 * len(columns) + 0.6), sharex=True, squeeze=False)
    for ax, col in zip(axes[:, 0], columns):
        scale, label = _panel_scale(col, runs)
        for name, run in runs:
            c = run.columns()
            (line,) = ax.plot(c["t_s"], c[col] * scale, lw=1.0, label=name)
            try:
                eq = run.model.equilibrium() if not hasattr(run.model.params, "groups") else None
            except ValueError:  # none with p in [0, 1] (NoEquilibrium): no dashed line
                eq = None
            if eq is not None and col == "window_pkts":
                ax.axhline(eq.w_star, color=line.get_color(), ls="--", lw=0.7)
        ax.set_ylabel(label, fontsize=8)
        ax.grid(alpha=0.3)
    axes[0, 0].set_title(title, fontsize=9)
    if len(runs) > 1:
        axes[0, 0].legend(fontsize=7, loc="best")
    axes[-1, 0].set_xlabel("time (s)")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_run(run: FluidRun, out_dir: Path, stem: str | None = None, title: str | None = None) -> dict[str, Path]:
    """Write ``<stem>.parquet``, ``<stem>.png`` and ``<stem>.json`` into ``out_dir``; the JSON's
    ``diverged_at_s`` is the time the model diverged (the run then ends before it), else null."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = stem or run.model.name
    paths = {"parquet": out / f"{stem}.parquet", "png": out / f"{stem}.png", "json": out / f"{stem}.json"}
    frame(run).write_parquet(paths["parquet"])
    plot_runs([(stem, run)], paths["png"], title or stem)
    try:
        eq = run.model.equilibrium().as_dict()
    except ValueError as e:
        eq = {"error": str(e)}
    meta = {"parameters": run.model.config(), "step_s": run.trajectory.step, "equilibrium": eq, "final": run.final(),
            "diverged_at_s": run.trajectory.diverged_at}  # fmt: skip
    paths["json"].write_text(dumps(meta, indent=2) + "\n")
    return paths
