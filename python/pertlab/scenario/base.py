"""What every scenario model shares: quantities written with units and held in the core's
units (``Rate``, ``Time``, ``Duration``, ``Size``, ``PacketSize``), bounded numbers
(``Probability``, ``Count``, ``U32``), the base model (unknown fields are errors; wire
names accepted) and the cross-field comparison validator."""

import functools
import operator
import types
from typing import Annotated, Any, Callable, Union, get_args, get_origin

from pydantic import AfterValidator, AliasChoices, BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, WithJsonSchema, model_validator
from pydantic_core import PydanticCustomError

from ..units import MAX_PACKET_BYTES, RATE_FORMS, SIZE_FORMS, TIME_FORMS, parse_rate, parse_size, parse_time

U32_MAX = 2**32 - 1


# --- quantities -------------------------------------------------------------


def _positive(parse, kind: str, forms: str):
    def check(value: Any) -> int:
        n = parse(value)
        if n <= 0:
            raise ValueError(f"must be a positive {kind}, got {value!r}; write {forms}")
        return n

    return check


def _non_negative(parse, kind: str, forms: str):
    def check(value: Any) -> int:
        n = parse(value)
        if n < 0:
            raise ValueError(f"must be zero or a positive {kind}, got {value!r}; write {forms}")
        return n

    return check


def _schema(description: str) -> WithJsonSchema:
    return WithJsonSchema({"anyOf": [{"type": "number", "minimum": 0}, {"type": "string"}], "description": description})


#: A rate > 0, held in bit/s; accepts "150Mbps", "1Gbps", or a number of bit/s.
Rate = Annotated[int, BeforeValidator(_positive(parse_rate, "rate", RATE_FORMS)), _schema(f"a rate: {RATE_FORMS}")]
#: A time >= 0, held in ns; accepts "60ms", "2s", or a number of seconds.
Time = Annotated[int, BeforeValidator(_non_negative(parse_time, "time", TIME_FORMS)), _schema(f"a time: {TIME_FORMS}")]
#: A duration > 0, held in ns.
Duration = Annotated[int, BeforeValidator(_positive(parse_time, "duration", TIME_FORMS)), _schema(f"a time: {TIME_FORMS}")]
#: A size > 0, held in bytes; accepts "1500B", "64KB", or a number of bytes.
Size = Annotated[int, BeforeValidator(_positive(parse_size, "size", SIZE_FORMS)), _schema(f"a size: {SIZE_FORMS}")]

#: A packet size in bytes, 1..MAX_PACKET_BYTES.
PacketSize = Annotated[Size, Field(le=MAX_PACKET_BYTES)]

Probability = Annotated[float, Field(ge=0.0, le=1.0)]
Count = Annotated[int, Field(ge=1, le=U32_MAX)]
U32 = Annotated[int, Field(ge=0, le=U32_MAX)]
NonNegative = Annotated[float, Field(ge=0.0)]


def _within(lo: float, hi: float) -> AfterValidator:
    """A check that a number lies in [lo, hi], whose error names the range as the core's
    ``check::in_range`` does (``must lie in [0, 1], got 2``), the value written short."""

    def check(v: float) -> float:
        if not lo <= v <= hi:
            raise ValueError(f"must lie in [{lo:g}, {hi:g}], got {v:g}")
        return v

    return AfterValidator(check)


#: A coefficient of the PI law, router PI's and PERT/PI's ``a`` and ``b``: in [0, 1], the core's
#: bounds (``queue/pi.rs``, ``tcp/cc/pert_pi.rs``: 1 already moves the probability across [0, 1] on
#: one packet of error), checked here so that 1e308 is refused in a line, not in 309 digits.
PiCoefficient = Annotated[float, _within(0.0, 1.0), WithJsonSchema({"type": "number", "minimum": 0, "maximum": 1})]


def _unit(name: str, wire: str, default: Any = ..., description: str | None = None) -> Any:
    """A field spelled ``name`` by people and ``wire`` by the core; both are read.

    A default written as text ("10ms") is parsed like input, so that checks
    against other fields also see it."""
    return Field(
        default,
        validation_alias=AliasChoices(name, wire),
        serialization_alias=wire,
        description=description,
        validate_default=isinstance(default, str),
    )


# --- base model -------------------------------------------------------------


#: ``_compared_to`` relations: the words of the message and the test.
_ORDER: dict[str, tuple[str, Callable[[Any, Any], bool]]] = {
    ">": ("greater than", operator.gt),
    ">=": ("at least", operator.ge),
    "<": ("less than", operator.lt),
}


def _compared_to(other: str, relation: str, show: Callable[[Any], str] = str) -> Callable[..., Any]:
    """A field validator: the field (when set) must be ``relation`` the field
    ``other``, declared before it (when set). The error (type ``joint_error``) names
    both fields, since either may be the one written wrong (``alpha = 4`` against
    beta's default 3): ``t_min, t_max: t_max must be greater than t_min (5ms), got
    4ms``, values written with ``show`` (:func:`.errors.field_of` gives the path)."""
    words, holds = _ORDER[relation]

    def check(cls: Any, v: Any, info: ValidationInfo) -> Any:
        ref = info.data.get(other)
        if v is not None and ref is not None and not holds(v, ref):
            raise PydanticCustomError(
                "joint_error",
                "{field} must be {words} {other} ({ref}), got {value}",
                {"field": info.field_name, "words": words, "other": other, "ref": show(ref), "value": show(v)},
            )
        return v

    return check


class _Model(BaseModel):
    """Strict about names: an unknown field is an error listing the allowed ones.

    A quantity may be written under its wire name (``delay_ns``), as in the
    JSON the core reads; a plain number there is in the wire unit (ns), where
    under the human name (``delay``) it would be seconds. Dumps use the wire
    names, so ``model_validate(model_dump())`` is the same model again.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True, validate_assignment=True, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _read_names(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        accepted, wire_ns = _names(cls)
        unknown = [k for k in data if k not in accepted]
        if unknown:
            raise PydanticCustomError(
                "unknown_field",
                "unknown field `{field}`; allowed: {allowed}",
                {"field": unknown[0], "allowed": ", ".join(cls.model_fields)},
            )
        _refuse_booleans(data, _number_fields(cls))
        return {k: _in_ns(v) if k in wire_ns else v for k, v in data.items()}


@functools.cache
def _names(cls: type[BaseModel]) -> tuple[frozenset[str], frozenset[str]]:
    """The names a model accepts (its fields' and their aliases) and its wire names in ns
    (read once per model: every flow of a scenario is read with them)."""
    accepted = set(cls.model_fields)
    wire_ns = set()
    for f in cls.model_fields.values():
        if isinstance(f.validation_alias, AliasChoices):
            accepted.update(f.validation_alias.choices)
            if f.serialization_alias.endswith("_ns"):
                wire_ns.add(f.serialization_alias)
    return frozenset(accepted), frozenset(wire_ns)


@functools.cache
def _number_fields(cls: type[BaseModel]) -> frozenset[str]:
    """The names (and aliases) of the fields of ``cls`` that take plain numbers (:func:`_takes_number`)."""
    names = set()
    for name, f in cls.model_fields.items():
        if not any(isinstance(m, BeforeValidator) for m in f.metadata) and _takes_number(f.annotation):
            aliases = f.validation_alias.choices if isinstance(f.validation_alias, AliasChoices) else [f.alias or name]
            names.update([name, *(a for a in aliases if isinstance(a, str))])
    return frozenset(names)


def _takes_number(tp: Any) -> bool:
    """Whether values of ``tp`` are plain numbers: int or float, alone, optional or in a list.
    A quantity read by a parser of its own (``Rate``, ``Time``: a ``BeforeValidator``) refuses a
    boolean itself, in its own words; a field that also takes a bool is not a number field."""
    origin = get_origin(tp)
    if origin is Annotated:
        base, *meta = get_args(tp)
        return not any(isinstance(m, BeforeValidator) for m in meta) and _takes_number(base)
    if origin in (Union, types.UnionType, list, tuple):
        args = [a for a in get_args(tp) if a is not type(None) and a is not Ellipsis]
        return bool(args) and all(_takes_number(a) for a in args)
    return tp in (int, float)


def _refuse_booleans(data: dict[str, Any], numbers: frozenset[str]) -> None:
    """A boolean given for a number is an error naming the field: Python's bool is an int, and
    pydantic would read ``true`` as 1 (``a = true`` in a file, ``--cc-param pert-pi.a=true``)."""
    for key, value in data.items():
        if key not in numbers:
            continue
        items = list(enumerate(value)) if isinstance(value, (list, tuple)) else [(None, value)]
        for i, v in items:
            if isinstance(v, bool):
                field = key if i is None else f"{key}[{i}]"
                raise PydanticCustomError("field_error", "must be a number, got {value}", {"field": field, "value": str(v).lower()})


def _in_ns(value: Any) -> Any:
    """Mark plain numbers given under a ``*_ns`` name as nanoseconds."""
    if isinstance(value, (list, tuple)):
        return [_in_ns(v) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value}ns"
    return value
