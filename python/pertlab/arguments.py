"""What the Python API's arguments accept, checked on entry: one table per function, of the
form ``{argument: (kind, what it means)}``, and one check that names the argument.

The builders (:data:`pertlab.builders.ARGUMENT_KINDS`), :func:`pertlab.run`,
:class:`pertlab.Simulation`, :func:`pertlab.eval_suite` and the Gymnasium environment check
their arguments that are neither quantities (read by :mod:`pertlab.units`, whose errors name
them) nor scenario fields (checked by :mod:`pertlab.scenario`) with :func:`check_kinds`, so that
``dumbbell(flows=1.5)`` is an error naming ``flows``, not a TypeError deep inside.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

from .scenario.errors import ScenarioError

__all__ = ["KINDS", "check_kinds"]


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


#: The kinds: a test of the value and what it reads as in an error (``bool`` is not a number).
KINDS = {
    "int": (_is_int, "an integer"),
    "number": (_is_number, "a number"),
    "bool": (lambda v: isinstance(v, bool), "True or False"),
    "str": (lambda v: isinstance(v, str), "a string"),
    "dict": (lambda v: isinstance(v, Mapping), "a dict"),
    "dicts": (lambda v: isinstance(v, Mapping) and all(isinstance(x, Mapping) for x in v.values()), "a dict of dicts"),
    "finite": (lambda v: _is_number(v) and math.isfinite(v), "a finite number"),
    "callable": (callable, "a callable"),
    "list": (lambda v: isinstance(v, (list, tuple)), "a list"),
    "ints": (lambda v: isinstance(v, (list, tuple)) and all(map(_is_int, v)), "a list of integers"),
    "numbers": (lambda v: isinstance(v, (list, tuple)) and all(map(_is_number, v)), "a list of numbers"),
}  # fmt: skip

def check_kinds(arguments: Mapping[str, Any], kinds: Mapping[str, tuple[str, str]]) -> None:
    """``arguments`` (a function's ``locals()`` on entry, or some of them) of the kinds ``kinds``
    says (a kind of :data:`KINDS`, ``?`` for "or None"), before anything reads them; the error
    names the argument and what it accepts. Arguments not in ``kinds`` are not checked."""
    for name, value in arguments.items():
        if name not in kinds:
            continue
        kind, what = kinds[name]
        optional = kind.endswith("?")
        test, text = KINDS[kind.rstrip("?")]
        if not (test(value) or (optional and value is None)):
            raise ScenarioError([(name, f"must be {text}{' or None' if optional else ''} ({what}), got {value!r}")])
