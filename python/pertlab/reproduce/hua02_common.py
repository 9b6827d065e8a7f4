"""Helpers shared by the registry entries of Hua's MPhil thesis (CUHK 2002): runs once per
seed, their means over seeds, and the report header (``hua02_entries``, ``hua02_jcc_entries``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from ..parallel import Workers
from ..scenario import Scenario
from ..sweep import Point, run_points, stored_results
from .registry import Report

THESIS = "Hua, MPhil thesis, CUHK 2002"


def seeded(points: list[tuple[dict, Point]], seeds: tuple[int, ...]) -> list[tuple[dict, Point]]:
    """Every (labels, point) once per seed, the scenario's seed set and ``seed`` in the labels."""
    out = []
    for labels, p in points:
        for seed in seeds:
            wire = p.scenario.to_wire()
            wire["seed"] = seed
            out.append(({**labels, "seed": seed}, Point(p.values, seed, Scenario.parse(wire))))
    return out


def seed_mean(rows: list[dict], by: list[str]) -> pl.DataFrame:
    """The mean over seeds of every other numeric column of ``rows``, in first-seen order of ``by``."""
    df = pl.DataFrame(rows, infer_schema_length=None).with_row_index("_order")
    cols = [c for c, t in df.schema.items() if c not in (*by, "seed", "_order") and t.is_numeric()]
    return df.group_by(by, maintain_order=True).agg(pl.col("_order").min(), *(pl.col(c).mean() for c in cols)).sort("_order").drop("_order")


def run_all(points: list[Point], out: Path, workers: Workers) -> dict[str, Any]:
    """Run (or resume) every point; their results by key."""
    run_points(points, out, jobs=workers.jobs, cluster=workers.cluster)
    return {p.key: stored_results(p, out) for p in points}


def new_report(name: str, title: str, section: str, quick: bool, out: Path, notes: list[str]) -> Report:
    return Report(name=name, title=title, source=f"{THESIS}, {section}", mode="quick" if quick else "full", out_dir=out, notes=notes)
