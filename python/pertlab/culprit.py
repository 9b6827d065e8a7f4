"""Which option given on the command line a command's arithmetic cannot take.

A value the checks pass can still be too large or too small for the formulas (stability at
1e250 pkt/s overflows; a capacity of 1e-300 pkt/s divides by zero). :func:`search` runs the
command again once per option given, with that option back at its default and the others as
given, its output discarded, and names the options whose default lets the command finish.
:func:`pertlab.cli.checks.fail_out_of_range` prints the result.

A command that writes files asks :func:`rerunning` and returns before writing in a rerun (the
fluid models, which also skip the integration when the error came before it). Left out: pairs
of options that only together are out of range (then every option given is listed instead).
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

__all__ = ["StillOutOfRange", "rerunning", "search"]


class StillOutOfRange(Exception):
    """Raised by :func:`pertlab.cli.checks.fail_out_of_range` in a rerun: the option put back did not help."""


#: Set while :func:`search` runs the command again.
_rerunning = False


def rerunning() -> bool:
    """Whether the running command is one of :func:`search`'s reruns."""
    return _rerunning


def search() -> tuple[list[str], list[str]]:
    """(the culprits, every option given), each as written back (``--capacity 1e250pkt/s``). A
    culprit is an option that, put back to its default with the others kept, lets the running
    command finish; a required option has no default and is not tried."""
    global _rerunning
    ctx = _click_context()
    given = _options_given(ctx)
    found = []
    _rerunning = True
    try:
        for p, text in given:
            if p.required:
                continue
            sink = io.StringIO()
            try:
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                    ctx.invoke(ctx.command.callback, **{**ctx.params, p.name: p.process_value(ctx, p.get_default(ctx))})
            except SystemExit as e:  # typer.Exit is a RuntimeError, not a SystemExit
                if e.code not in (0, None):
                    continue
            except Exception as e:  # typer.Exit carries its code; StillOutOfRange, an ArithmeticError or another refusal did not finish
                if getattr(e, "exit_code", None) != 0:
                    continue
            found.append(text)
    finally:
        _rerunning = False
    return found, [text for _, text in given]


def _click_context() -> Any:
    """The click context of the running command, or None outside one (typer's own click, or the
    click package under an older typer)."""
    try:
        from typer._click.globals import get_current_context
    except ImportError:  # an older typer, on click itself
        from click.globals import get_current_context
    return get_current_context(silent=True)


def _options_given(ctx: Any) -> list[tuple[Any, str]]:
    """The options of the running command that the command line set with a value, each with its
    text as written back; the defaults are in range and switches have none, so the culprit is
    among them."""
    if ctx is None:
        return []
    out = []
    for p in ctx.command.params:
        if p.name in ctx.params and ctx.get_parameter_source(p.name).name == "COMMANDLINE" and p.opts[0].startswith("--"):
            value = ctx.params[p.name]
            if not isinstance(value, bool):
                out.append((p, f"{p.opts[0]} {value}"))
    return out
