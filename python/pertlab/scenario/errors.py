"""Scenario errors: :class:`ScenarioError`, whose lines read ``field.path: message``, and the
text of pydantic's errors in that form (a list item or sub-field named, union tags left out)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from ..kinds import CC_KINDS, CC_NAMES

__all__ = ["ScenarioError"]


class ScenarioError(ValueError):
    """A scenario that cannot run. ``errors`` lists ``(field_path, message)``;
    the text is one ``field.path: message`` line per error."""

    def __init__(self, errors: list[tuple[str, str]]):
        self.errors = errors
        super().__init__("\n".join(f"{path}: {message}" for path, message in errors))

    @property
    def memory_refusal(self) -> bool:
        """Whether the core refused the run for the memory it would need (above the limit)."""
        return any(_MEMORY_REFUSAL in message for _, message in self.errors)

    @classmethod
    def from_pydantic(cls, exc: ValidationError, whole: str = "scenario") -> ScenarioError:
        """The errors of a validation, each at its field (:func:`field_of`; ``whole`` names the
        model validated when an error is about all of it)."""
        return cls([(field_of(e, whole=whole), _message(e)) for e in exc.errors()])

    @classmethod
    def from_core(cls, exc: ValueError, memory_limit: Literal["default", "given"] | None = None) -> ScenarioError:
        """The core raises ``ValueError("field.path: message")`` in its wire names
        (``monitor.sample_interval_ns``); the path is given back in the names people write
        (``monitor.sample_interval``). ``memory_limit``: what the run was held to, if the core
        checked it against a limit. A refusal for memory then says it was the memory available
        now (``"default"``, no ``memory_limit`` given), or names ``memory_limit`` beside the field
        (``"given"``: the caller's limit is one of the two values that refuse the run)."""
        path, _, message = str(exc).partition(": ")
        if not message:
            return cls([("scenario", str(exc))])
        path = people_path(path)
        if _MEMORY_REFUSAL in message:
            if memory_limit == "default":
                message += _DEFAULT_LIMIT_NOTE
            elif memory_limit == "given":
                path += ", memory_limit"
        return cls([(path, message)])


#: The core's words for a run above the memory limit, and what a refusal adds when the limit was the default.
_MEMORY_REFUSAL = "more than the memory limit"
_DEFAULT_LIMIT_NOTE = " (the memory available now; raise it with memory_limit=BYTES, on the command line --memory-limit SIZE)"


def people_path(path: str) -> str:
    """A field path of the core's wire format in the names people write:
    ``monitor.sample_interval_ns`` -> ``monitor.sample_interval``."""
    names = _names_of_wire_fields()
    return _WORD.sub(lambda m: names.get(m[0], m[0]), path)


#: A field name inside a path (``monitor.sample_interval_ns``, ``flows[0].tcp``).
_WORD = re.compile(r"[A-Za-z_][\w-]*")


@cache
def _names_of_wire_fields() -> dict[str, str]:
    """``{"sample_interval_ns": "sample_interval", ...}``: every field the models spell one way
    for people and another for the core (``_unit``)."""
    from . import base, controllers, model, queues, topology, traffic

    names = {}
    for module in (base, controllers, model, queues, topology, traffic):
        for cls in vars(module).values():
            if isinstance(cls, type) and issubclass(cls, BaseModel):
                for name, field in cls.model_fields.items():
                    if field.serialization_alias and field.serialization_alias != name:
                        names[field.serialization_alias] = name
    return names


def field_of(err: dict[str, Any], loc: tuple[Any, ...] | None = None, whole: str = "scenario") -> str:
    """The field a pydantic error names, in the names people write: the path of ``loc`` (default
    the error's own; ``whole`` when it names the model itself) and the part of it a validator of
    the whole field names (:func:`_item`); both fields, the earlier first, for a check between two
    (``t_min, t_max``)."""
    loc = err["loc"] if loc is None else loc
    path, item = _path(loc), _item(err)
    if err["type"] == "joint_error":  # a check between two fields (``_compared_to``): both, the earlier first
        parent = _path(loc[:-1])
        return (f"{parent}.{err['ctx']['other']}" if parent else err["ctx"]["other"]) + ", " + path
    if not path:  # a validator of the whole model naming one of its fields: that field alone
        return item.removeprefix(".") or whole
    if err["type"] == "field_error":  # one field of it, or those a constraint binds ("t_min, t_max")
        return ", ".join(f"{path}.{field}" for field in err["ctx"]["field"].split(", "))
    return path + item


def _path(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for i, item in enumerate(loc):
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif i > 0 and loc[i - 1] == "cc" and item in CC_KINDS:
            continue  # pydantic names the union member; the path does not need it
        elif item.startswith("function-") or item.startswith("tagged-union"):
            continue
        else:
            parts.append(("." if parts else "") + item)
    return "".join(parts)


def _item(err: dict[str, Any]) -> str:
    """The part of the field a validator of the whole field names: a list item (``off[1]``,
    error type ``item_error``, or a field of it, ``udp[1].class``, with ``field`` in its context) or a sub-field (``pert.t_max``, error type ``field_error``)."""
    if err["type"] == "item_error":
        field = err["ctx"].get("field")
        return f"[{err['ctx']['index']}]" + (f".{field}" if field else "")
    if err["type"] == "field_error":
        return f".{err['ctx']['field']}"
    return ""


def _message(err: dict[str, Any]) -> str:
    kind, ctx, value = err["type"], err.get("ctx", {}), err.get("input")
    if kind == "missing":
        return "required field is missing"
    if kind == "literal_error":
        return f"got {value!r}; allowed: {ctx['expected']}"
    if kind == "union_tag_invalid":
        said = f"unknown {ctx['discriminator'].strip(chr(39))} {ctx['tag']!r}; allowed: {ctx['expected_tags']}"
        if ctx["tag"] in CC_NAMES and ctx["tag"] not in CC_KINDS:
            # `sack` and `newreno` name a recovery as well as a controller on the command line.
            core, sack = CC_NAMES[ctx["tag"]]
            said += f" ({ctx['tag']!r} is a command-line name: in a scenario, write {core!r} with tcp.sack = {str(sack).lower()})"
        return said
    if kind == "union_tag_not_found":
        return f"needs a `{ctx['discriminator'].strip(chr(39))}`; allowed: {', '.join(CC_KINDS)}"
    msg = err["msg"]
    if kind == "joint_error":
        return msg
    if kind == "value_error":
        return msg.removeprefix("Value error, ")
    if isinstance(value, (dict, list)):
        return msg
    return f"{msg}, got {value!r}"
