"""Lazy public names of a package (PEP 562): a package lists, per name, the module that
defines it, and the module is imported when the name is first read. ``import pertlab``
and the command line then load only what is used; pydantic, polars, numpy and the core
cost about a second to import."""

from __future__ import annotations

from importlib import import_module
from typing import Any, Callable


def lazy_exports(package: str, namespace: dict[str, Any], exports: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` whose globals are ``namespace``: each name of
    ``exports`` is read from its module (relative to the package) on first access and kept."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(exports[name], package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports})

    return __getattr__, __dir__
