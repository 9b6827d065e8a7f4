"""Write a block of BENCHMARKS.md between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``
(appended at the end the first time); shared by the benchmark scripts that keep a block of
their own."""

from __future__ import annotations

import pathlib


def write_block(name: str, lines: list[str], path: pathlib.Path = pathlib.Path("BENCHMARKS.md")) -> None:
    """Replace the block ``name`` of ``path`` with ``lines`` (the markers are added here)."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = "\n".join([start, *lines, end])
    text = path.read_text()
    if start in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text)
