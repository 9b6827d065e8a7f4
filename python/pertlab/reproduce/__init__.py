"""Reproductions of the papers' figures: a registry of named entries.

An entry has a name (``sigcomm07-fig13``), a one-line description and a
function ``run(mode, out_dir) -> Report`` with ``mode`` "quick" (a smaller or
shorter version, seconds to run, used by tests) or "full" (the paper's
settings). A run writes one report folder (see :mod:`.report`): index.html
with the PNG plots, the data as Parquet, the exact parameters as JSON and,
where the paper prints numbers, the paper's value beside ours with the
difference.

Adding an entry (any issue of the project)::

    from pertlab.reproduce import register
    from pertlab.reproduce.report import Report

    @register("sigcomm07-fig7", "PERT vs SACK/RED-ECN over end-to-end delay")
    def fig7(mode: str, out_dir: Path) -> Report:
        rep = Report("sigcomm07-fig7", "Figure 7 ...", out_dir, mode)
        ...
        return rep.finish()

and list the module in ``_ENTRY_MODULES`` below so that it is imported.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .report import Comparison, Report

__all__ = ["Entry", "register", "entries", "get", "run", "Report", "Comparison", "MODES"]

MODES = ("quick", "full")

#: Modules that register entries when imported.
_ENTRY_MODULES = ("pertlab.reproduce.sigcomm07_fig13", "pertlab.reproduce.tahiliani_ch5")


@dataclass(frozen=True)
class Entry:
    name: str
    description: str
    run: Callable[[str, Path], Report]


_REGISTRY: dict[str, Entry] = {}
_loaded = False


def register(name: str, description: str) -> Callable[[Callable[[str, Path], Report]], Callable[[str, Path], Report]]:
    """Decorator: register ``fn(mode, out_dir) -> Report`` under ``name``."""

    def deco(fn: Callable[[str, Path], Report]) -> Callable[[str, Path], Report]:
        if name in _REGISTRY and _REGISTRY[name].run is not fn:
            raise ValueError(f"name: reproduction {name!r} is registered twice")
        _REGISTRY[name] = Entry(name, description, fn)
        return fn

    return deco


def _load() -> None:
    global _loaded
    if not _loaded:
        for mod in _ENTRY_MODULES:
            importlib.import_module(mod)
        _loaded = True


def entries() -> list[Entry]:
    """All registered entries, sorted by name."""
    _load()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get(name: str) -> Entry:
    _load()
    if name not in _REGISTRY:
        raise ValueError(f"name: no reproduction {name!r}; known: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]


def run(name: str, mode: str = "full", out_dir: str | Path | None = None) -> Report:
    """Run one reproduction; the report goes to ``out_dir`` (default out/reproduce/NAME)."""
    if mode not in MODES:
        raise ValueError(f"mode: must be one of {', '.join(MODES)}, got {mode!r}")
    entry = get(name)
    out = Path(out_dir) if out_dir is not None else Path("out/reproduce") / name
    out.mkdir(parents=True, exist_ok=True)
    return entry.run(mode, out)
