"""Generated blocks of the docs pages, written from committed data by ``make docs``.

Prose that restates numbers drifts from them, so a page marks what is written from data with a
pair of HTML comments::

    <!-- BEGIN generated: NAME -->
    ...  (rewritten by ``make docs``; do not edit)
    <!-- END generated -->

:func:`fill` replaces one block's body; :func:`main` is the command line of a page's generator
(``python -m MODULE [--check] [PAGE]``). docs/reproductions.md's blocks name several reports
each and have their own reader (:mod:`pertlab.reproduce.doc`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["fill", "main"]


def fill(text: str, block: str, body: str) -> str:
    """``text`` with the generated block ``block``'s body replaced by ``body``; ValueError when
    the page has no such block."""
    pattern = re.compile(rf"(<!-- BEGIN generated: {re.escape(block)} -->\n)(?P<body>.*?)(<!-- END generated -->)", re.S)
    if not pattern.search(text):
        raise ValueError(f"no <!-- BEGIN generated: {block} --> ... <!-- END generated --> block")
    return pattern.sub(lambda g: g.group(1) + body + g.group(3), text)


def main(argv: list[str] | None, default_page: str, render_page: Callable[[str, Path], str]) -> int:
    """Rewrite the generated blocks of PAGE (``default_page`` when not given) with
    ``render_page(text, PAGE's folder)``; with ``--check``, exit 1 when one differs instead."""
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    page = Path(args[0] if args else default_page)
    text = page.read_text()
    fresh = render_page(text, page.parent)
    if check:
        if fresh != text:
            print(f"{page}: a generated block is out of date (make docs)", file=sys.stderr)
            return 1
        return 0
    page.write_text(fresh)
    return 0
