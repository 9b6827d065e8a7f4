"""Options read and refused: ``error: --flag: message`` lines on stderr and exit status 2, before
any work where the command can tell (a directory it could not write in, a cluster address, a
memory limit), and for values the checks pass but the arithmetic cannot take."""

from __future__ import annotations

import contextlib
import math
import re
from pathlib import Path
from typing import Any, Callable, NoReturn, TypeVar

import typer

from ..kinds import CC_KINDS
from ..units import parse_size, parse_value
from .output import say

T = TypeVar("T")


def fail(exc: ValueError, flags: dict[str, str] | None = None) -> None:
    """Print ``error: field: message`` lines and exit 2; ``flags`` renames builder arguments (and
    the scenario fields they set, an index in a per-flow list dropped) to the flags that set them."""
    from ..builders import argument_of

    for line in str(exc).splitlines():
        field, sep, message = line.partition(": ")
        # one field, or the fields that set a value together (``flows, memory_limit``)
        fields = field.split(", ")
        arguments = [re.sub(r"\[\d+\]$", "", argument_of(f)) for f in fields]
        if flags and sep and any(a in flags for a in arguments):
            line = f"{', '.join(flags.get(a, f) for f, a in zip(fields, arguments))}: {message}"
        say(line, "error", "bold red")
    raise typer.Exit(2)


def numbers(value: str | None, flag: str, kind: type = float) -> list | None:
    """``"1,2,4"`` -> ``[1.0, 2.0, 4.0]`` (or ints); None stays None; a bad item exits naming ``flag``."""
    if value is None:
        return None
    try:
        return [kind(x) for x in value.split(",")]
    except ValueError:
        fail(ValueError(f"{flag}: write comma-separated {'integers' if kind is int else 'numbers'}, e.g. {'0,1,2' if kind is int else '1,2,4'}; got {value!r}"))


def cc_params(items: list[str]) -> dict[str, dict[str, Any]]:
    """``["pert-adaptive.alpha_max=16"]`` -> ``{"pert-adaptive": {"alpha_max": 16}}``."""
    if not items:
        return {}
    from pydantic import TypeAdapter, ValidationError

    from ..scenario import CcSpec, ScenarioError
    from ..scenario.errors import field_of

    params: dict[str, dict[str, Any]] = {}
    for item in items:
        key, eq, value = item.partition("=")
        kind, dot, name = key.strip().partition(".")
        if not (eq and dot and kind and name):
            raise ScenarioError([("--cc-param", f"write KIND.FIELD=VALUE, as in pert-adaptive.alpha_max=16; got {item!r}")])
        if kind in ("sack", "newreno"):  # --cc names of the core's reno, which has no parameters
            raise ScenarioError([(f"--cc-param {kind}", f"{kind} is the core's reno controller, which has no parameters")])
        if kind not in CC_KINDS:
            raise ScenarioError([("--cc-param", f"unknown controller kind {kind!r}; allowed: {', '.join(CC_KINDS)}")])
        params.setdefault(kind, {})[name] = parse_value(value.strip())
    errors = []
    for kind, fields in params.items():
        try:
            TypeAdapter(CcSpec).validate_python({"kind": kind, **fields})
        except ValidationError as e:
            # Fields the builder derives (pert-pi's capacity) are missing here, not wrong.
            if not _cc_fields(kind):
                errors.append((f"--cc-param {kind}", f"{kind} has no parameters" + (" (sack and newreno are reno)" if kind == "reno" else "")))
                continue
            for x in e.errors():
                if x["type"] != "missing":
                    # The field as a scenario error names it (a check of the whole controller, such as
                    # a boolean for a number, names its field in the error's context).
                    field = field_of(x, x["loc"][1:], whole="")  # loc[0] is the kind; two fields for a joint check
                    errors.append((", ".join(f"--cc-param {kind}" + (f".{f.lstrip('.')}" if f else "") for f in field.split(", ")), x["msg"].removeprefix("Value error, ")))
    if errors:
        raise ScenarioError(errors)
    return params


def _cc_fields(kind: str) -> list[str]:
    """The parameters of controller ``kind`` (its scenario model's fields but ``kind``)."""
    from typing import get_args

    from ..scenario import CcSpec

    model = next(m for m in get_args(get_args(CcSpec)[0]) if m.model_fields["kind"].default == kind)
    return [name for name in model.model_fields if name != "kind"]


def check_cluster(value: str | None) -> None:
    """``--cluster``, when given: a Dask scheduler address, checked before anything runs."""
    from ..parallel import check_cluster_address

    try:
        if value is not None:
            check_cluster_address(value)
    except ValueError as e:
        fail(e, {"cluster": "--cluster"})


def read_memory_limit(value: str | None) -> float | None:
    """``--memory-limit``: a size (``4GiB``), ``none`` for no limit, or unset for the memory available now."""
    if value is None:
        return None
    if value.strip().lower() == "none":
        return math.inf
    try:
        return parse_size(value, "--memory-limit")
    except ValueError as e:
        fail(e)


MEMORY_LIMIT_HELP = "Refuse a run whose memory estimate is larger: a size (8GiB), or none [default: the memory available now]."


def computed(fn: Callable[[], T], flags: dict[str, str], what: str) -> T:
    """``fn()`` of a command that computes from its options (`stability`, `fluid`, `analyze`). A
    ValueError becomes one ``error: --flag: message`` line per line of it, the field (or the fields
    that set a value together, ``capacity, rtt, flows``) named by ``flags``, and exit 2; values the
    checks pass but the arithmetic of ``what`` cannot take go to :func:`fail_out_of_range`."""
    try:
        return fn()
    except ValueError as e:
        for line in str(e).splitlines():
            line = re.sub(r"^\w+(?:, \w+)*(?=:)", lambda m: ", ".join(flags.get(n, n) for n in m.group(0).split(", ")), line)
            typer.echo(f"error: {line}", err=True)
        raise typer.Exit(2)
    except (ArithmeticError, MemoryError) as e:
        fail_out_of_range(e, what)


def fail_out_of_range(exc: ArithmeticError | MemoryError, what: str) -> NoReturn:
    """Exit 2 for values the checks passed but the arithmetic of ``what`` cannot take (a capacity of
    1e-320 divides by zero, 1e308 overflows, a buffer of 1e10 packets does not fit in memory),
    naming the option to blame: the one given on the command line whose default, put in its
    place, lets the arithmetic through (:mod:`pertlab.culprit`); failing that, every option given.
    In one of the culprit search's reruns, raises :class:`pertlab.culprit.StillOutOfRange`."""
    from .. import culprit

    if culprit.rerunning():
        raise culprit.StillOutOfRange
    found, given = culprit.search()
    if found:
        blame = f"{' and '.join(found)}{' is' if len(found) == 1 else ': each is'} far outside the range it can take (with its default in its place, {what} is computed)"
    else:
        blame = "one of the options given is far outside its range" + (f" (given: {', '.join(given)})" if given else "")
    say(f"{what} cannot be computed with these values ({type(exc).__name__}: {exc}): {blame}", "error", "bold red")
    raise typer.Exit(2)


def check_out_dir(out_dir: Path, flag: str = "--out") -> None:
    """Exit 2 naming ``flag`` before any work if ``out_dir`` cannot become a directory of result
    files (a file is there, or in its way, or it cannot be made, or a file cannot be written in
    it): found only when the results are written, the run's work would be lost. It is made and
    a file written in it to know (permissions alone do not tell: root may write anywhere but in
    /proc), then what was made is removed."""
    out = out_dir.absolute()
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        fail(ValueError(f"{flag}: {existing} is {'there' if existing == out else 'in the way'} and is not a directory"))
    made = [p for p in (out, *out.parents) if not p.exists()]  # the deepest first
    try:
        out.mkdir(parents=True, exist_ok=True)
        import tempfile  # 6 ms with shutil and random: only the commands that write files (issue 21)

        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as e:
        fail(ValueError(f"{flag}: cannot write in {out if not made else existing}: {e.strerror}"))
    finally:
        for p in made:
            with contextlib.suppress(OSError):
                p.rmdir()
