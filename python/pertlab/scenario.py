"""The scenario: pydantic models of everything a run depends on.

The models mirror the core's wire format (``crates/pertlab-sim/src/scenario.rs``)
field for field, with one difference in spelling: quantities take human units
and drop the unit suffix of the wire name. A TOML file writes

    [[links]]
    a = "r0"
    b = "r1"
    rate = "150Mbps"      # wire: rate_bps = 150000000
    delay = "28ms"        # wire: delay_ns = 28000000

The wire names are accepted too, so the ``scenario.json`` written next to the
results loads back. Validated values are held in the core's units (a link's
``rate`` is an ``int`` of bit/s, every time an ``int`` of nanoseconds), and
:meth:`Scenario.to_wire_json` writes the JSON the core reads.

Unknown fields are errors. Every error is a :class:`ScenarioError` whose lines
read ``field.path: what is wrong and what is allowed``, like the core's.
Topology references (a flow's nodes exist and are connected) are checked by
the core when the world is built: :meth:`Scenario.check`.
"""

from __future__ import annotations

import json
import operator
import sys
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, Union

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .units import RATE_FORMS, SIZE_FORMS, TIME_FORMS, format_time, parse_rate, parse_size, parse_time

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = [
    "ScenarioError",
    "Scenario",
    "MeasureWindow",
    "LinkSpec",
    "QueueSpec",
    "RedConfig",
    "DumbbellSpec",
    "Reno",
    "Vegas",
    "Pert",
    "PertPi",
    "PertAdaptive",
    "Hstcp",
    "Cubic",
    "Compound",
    "Illinois",
    "Fast",
    "CcSpec",
    "TcpConfig",
    "FlowSpec",
    "UdpSpec",
    "MonitorSpec",
]

U64_MAX = 2**64 - 1


class ScenarioError(ValueError):
    """A scenario that cannot run. ``errors`` lists ``(field_path, message)``;
    the text is one ``field.path: message`` line per error."""

    def __init__(self, errors: list[tuple[str, str]]):
        self.errors = errors
        super().__init__("\n".join(f"{path}: {message}" for path, message in errors))

    @classmethod
    def from_pydantic(cls, exc: ValidationError) -> ScenarioError:
        return cls([(_path(e["loc"]) + _item(e), _message(e)) for e in exc.errors()])

    @classmethod
    def from_core(cls, exc: ValueError) -> ScenarioError:
        """The core raises ``ValueError("field.path: message")``."""
        path, _, message = str(exc).partition(": ")
        return cls([(path, message)] if message else [("scenario", str(exc))])


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

Probability = Annotated[float, Field(ge=0.0, le=1.0)]
Count = Annotated[int, Field(ge=1, le=2**32 - 1)]
U32 = Annotated[int, Field(ge=0, le=2**32 - 1)]
NonNegative = Annotated[float, Field(ge=0.0)]


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
    ``other``, declared before it (when set). The message reads ``must be
    greater than t_min (5ms), got 4ms``, values written with ``show``."""
    words, holds = _ORDER[relation]

    def check(cls: Any, v: Any, info: ValidationInfo) -> Any:
        ref = info.data.get(other)
        if v is not None and ref is not None and not holds(v, ref):
            raise ValueError(f"must be {words} {other} ({show(ref)}), got {show(v)}")
        return v

    return check


class _Model(BaseModel):
    """Strict about names: an unknown field is an error listing the allowed ones.

    A quantity may be written under its wire name (``delay_ns``), as in the
    JSON the core reads; a plain number there is in the wire unit (ns), where
    under the human name (``delay``) it would be seconds.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True, validate_assignment=True)

    @model_validator(mode="before")
    @classmethod
    def _read_names(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        accepted = set(cls.model_fields)
        wire_ns = set()
        for f in cls.model_fields.values():
            if isinstance(f.validation_alias, AliasChoices):
                accepted.update(f.validation_alias.choices)
                if f.serialization_alias.endswith("_ns"):
                    wire_ns.add(f.serialization_alias)
        unknown = [k for k in data if k not in accepted]
        if unknown:
            raise PydanticCustomError(
                "unknown_field",
                "unknown field `{field}`; allowed: {allowed}",
                {"field": unknown[0], "allowed": ", ".join(cls.model_fields)},
            )
        return {k: _in_ns(v) if k in wire_ns else v for k, v in data.items()}


def _in_ns(value: Any) -> Any:
    """Mark plain numbers given under a ``*_ns`` name as nanoseconds."""
    if isinstance(value, (list, tuple)):
        return [_in_ns(v) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value}ns"
    return value


# --- queues -----------------------------------------------------------------


class RedConfig(_Model):
    """RED / Adaptive RED parameters (names and defaults of ns-3's RedQueueDisc).
    Whether max_p adapts is chosen by the queue kind ("red" or "ared").
    Unset thresholds and weight are automatic (see the core's ``queue/red.rs``)."""

    mode: Literal["packets", "bytes"] = Field("packets", description="average and thresholds in packets or bytes")
    min_th: NonNegative | None = Field(None, description="0 or unset: automatic (RED 5 packets, ARED max(5, target_delay C/2))")
    max_th: NonNegative | None = Field(None, description="unset or 0: 3 x min_th; an explicit max_th needs min_th")
    q_w: float | None = Field(None, description="EWMA weight in (0, 1]; 0: 1 - exp(-1/C); -2: 1 - exp(-10/C); unset: RED 0.002, ARED automatic")
    l_interm: Annotated[float, Field(ge=1.0)] = Field(50.0, description="1 / initial max_p")
    gentle: bool = Field(True, description="p rises from max_p to 1 between max_th and 2 max_th")
    wait: bool = Field(True, description="space drops out evenly")
    use_ecn: bool = Field(False, description="mark ECN-capable packets instead of dropping them early")
    use_hard_drop: bool = Field(True, description="forced drops stay drops for ECN-capable packets")
    mean_pkt_size: Size = Field(500, description="bytes per packet for C and for byte mode")
    idle_pkt_size: Annotated[int, Field(ge=0)] = Field(0, description="bytes per packet for the idle decay; 0: mean_pkt_size")
    target_delay: Duration = _unit("target_delay", "target_delay_ns", 5_000_000, "ARED: target average queueing delay")
    interval: Duration = _unit("interval", "interval_ns", 500_000_000, "ARED: least time between changes of max_p")
    top: Annotated[float, Field(gt=0.0, le=1.0)] = Field(0.5, description="ARED: largest max_p")
    bottom: Probability = Field(0.01, description="ARED: smallest max_p, at most top; 0: automatic", validate_default=True)
    alpha: Annotated[float, Field(gt=0.0, le=1.0)] = Field(0.01, description="ARED: cap of the additive increase of max_p")
    beta: Annotated[float, Field(gt=0.0, lt=1.0)] = Field(0.9, description="ARED: multiplicative decrease of max_p")
    target_band: tuple[Probability, Probability] | None = Field(
        None, description="adaptive family: [low, high] fractions of max_th - min_th above min_th; unset: the paper's band"
    )
    reared_decrease_gain: Probability = Field(0.17, description="Re-ARED (and CARED) decrease gain (thesis Algorithm 2)")
    reared_increase_gain: NonNegative = Field(0.25, description="Re-ARED (and CARED) increase gain (thesis Algorithm 2)")
    fared_decrease_gain: Probability = Field(0.0385, description="FARED decrease gain (thesis Eq. 3.4.13)")
    fared_increase_gain: NonNegative = Field(0.042, description="FARED increase gain (thesis Eq. 3.4.7)")
    ratio_target: Literal["edges", "midpoint"] = Field("edges", description="Re-ARED/FARED: band edge or middle as T")
    cared_trend: Literal["arrival", "update"] = Field("arrival", description="CARED: compare avg with the previous arrival's or update's")
    feng_alpha: Annotated[float, Field(ge=1.0)] = Field(3.0, description="Feng: max_p divided by this below min_th")
    feng_beta: Annotated[float, Field(ge=1.0)] = Field(2.0, description="Feng: max_p multiplied by this above max_th")
    nlred_scale: Annotated[float, Field(gt=0.0)] = Field(1.5, description="NLRED: p_b = scale max_p x^2")

    @field_validator("bottom")
    @classmethod
    def _bottom_below_top(cls, v: float, info: ValidationInfo) -> float:
        top = info.data.get("top")
        if top is not None and v > top:
            raise ValueError(f"must lie in [0, top ({top})], got {v}")
        return v


class PiConfig(_Model):
    """Router PI controller (Hollot, Misra, Towsley, Gong 2001; ns-2 ``Queue/PI`` defaults)."""

    a: NonNegative = Field(1.822e-5, description="coefficient of q - qref")
    b: NonNegative = Field(1.816e-5, description="coefficient of q_old - qref")
    w_hz: Annotated[float, Field(gt=0.0, le=1e9)] = Field(170.0, description="sampling frequency, Hz")
    qref: NonNegative = Field(50.0, description="target queue, packets")
    use_ecn: bool = Field(False, description="mark ECN-capable packets instead of dropping them")


class PieConfig(_Model):
    """PIE (RFC 8033) parameters, with the RFC's defaults."""

    target_delay: Duration = _unit("target_delay", "target_delay_ns", 15_000_000, "QDELAY_REF")
    t_update: Duration = _unit("t_update", "t_update_ns", 15_000_000, "T_UPDATE")
    max_burst: Time = _unit("max_burst", "max_burst_ns", 150_000_000, "MAX_BURST; 0 disables the burst allowance")
    alpha: NonNegative = Field(0.125, description="alpha, Hz")
    beta: NonNegative = Field(1.25, description="beta, Hz")
    mean_pkt_size: Size = Field(1000, description="MEAN_PKTSIZE of the safeguard, bytes")
    use_ecn: bool = Field(False, description="mark ECN-capable packets while drop_prob is low")
    mark_ecn_threshold: Probability = Field(0.1, description="marking stops at this drop probability")
    cap_drop_adjustment: bool = Field(True, description="cap an update at +0.02 once drop_prob >= 0.1")
    delay: Literal["sojourn", "queue_over_rate"] = Field("sojourn", description="how the queueing delay is measured")


class CodelConfig(_Model):
    """CoDel (RFC 8289) parameters, with the RFC's defaults."""

    target: Duration = _unit("target", "target_ns", 5_000_000, "TARGET")
    interval: Duration = _unit("interval", "interval_ns", 100_000_000, "INTERVAL")
    max_packet_bytes: Size = Field(1500, description="MAXPACKET, bytes")
    use_ecn: bool = Field(False, description="mark ECN-capable packets instead of dropping them")


#: Queue disciplines of the core (``QueueSpec::KINDS``).
QUEUE_KINDS = ("droptail", "red", "ared", "reared", "fared", "cared", "feng", "nlred", "pi", "pie", "codel")


class QueueSpec(_Model):
    """A queue discipline and its buffer (the core's default buffer is 1000 packets)."""

    kind: Literal[QUEUE_KINDS] = "droptail"  # type: ignore[valid-type]
    limit_pkts: Count | None = Field(None, description="buffer in packets (exclusive with limit_bytes)")
    limit_bytes: Size | None = Field(None, description="buffer in bytes, e.g. '64KB'")
    red: RedConfig = Field(default_factory=RedConfig, description="the RED family: red, ared, reared, fared, cared, feng, nlred")
    pi: PiConfig = Field(default_factory=PiConfig)
    pie: PieConfig = Field(default_factory=PieConfig)
    codel: CodelConfig = Field(default_factory=CodelConfig)

    @field_validator("limit_bytes")
    @classmethod
    def _one_limit(cls, v: int | None, info: ValidationInfo) -> int | None:
        if v is not None and info.data.get("limit_pkts") is not None:
            raise ValueError("give limit_pkts or limit_bytes, not both")
        return v


# --- topology ---------------------------------------------------------------


class LinkSpec(_Model):
    """A full-duplex point-to-point link between two named nodes."""

    name: str | None = Field(None, description='name used in results; default "a-b"')
    a: str
    b: str
    rate: Rate = _unit("rate", "rate_bps")
    delay: Time = _unit("delay", "delay_ns", description="one-way propagation delay")
    loss: Probability = Field(0.0, description="Bernoulli loss probability a -> b")
    loss_ba: Probability = Field(0.0, description="Bernoulli loss probability b -> a")
    queue: QueueSpec = Field(default_factory=QueueSpec, description="queue of the a -> b direction")
    queue_ba: QueueSpec | None = Field(None, description="queue of the b -> a direction; default: as `queue`")


def _one_or_many(value: Any) -> Any:
    return value if isinstance(value, (list, tuple)) else [value]


class DumbbellSpec(_Model):
    """Senders s0.. on router r0, receivers d0.. on router r1, one bottleneck
    link r0 - r1 named "bottleneck"; each host has its own access link."""

    pairs: Count
    bottleneck_rate: Rate = _unit("bottleneck_rate", "bottleneck_rate_bps")
    bottleneck_delay: Time = _unit("bottleneck_delay", "bottleneck_delay_ns", description="one-way")
    bottleneck_queue: QueueSpec = Field(default_factory=QueueSpec)
    bottleneck_queue_reverse: QueueSpec | None = Field(None, description="ACK direction; default DropTail, same limit")
    bottleneck_loss: Probability = 0.0
    access_rate: Rate = _unit("access_rate", "access_rate_bps")
    sender_access_delay: Annotated[list[Time], BeforeValidator(_one_or_many, json_schema_input_type=Union[Time, list[Time]])] = _unit(
        "sender_access_delay", "sender_access_delay_ns", description="one value for all, or one per pair"
    )
    receiver_access_delay: Annotated[list[Time], BeforeValidator(_one_or_many, json_schema_input_type=Union[Time, list[Time]])] = _unit(
        "receiver_access_delay", "receiver_access_delay_ns", description="one value for all, or one per pair"
    )
    access_queue: QueueSpec = Field(default_factory=QueueSpec)

    @field_validator("sender_access_delay", "receiver_access_delay")
    @classmethod
    def _delays_per_pair(cls, v: list[int], info: ValidationInfo) -> list[int]:
        pairs = info.data.get("pairs")
        if pairs is not None and len(v) not in (1, pairs):
            raise ValueError(f"give one delay for all hosts or one per pair ({pairs}), got {len(v)}")
        return v


# --- transport --------------------------------------------------------------


class Reno(_Model):
    """Reno/NewReno window rules (AIMD 1, 1/2); recovery is chosen by ``tcp.sack``."""

    kind: Literal["reno"] = "reno"


class Vegas(_Model):
    """TCP Vegas; thresholds in packets queued in the network (ns-2 defaults)."""

    kind: Literal["vegas"] = "vegas"
    alpha: U32 = Field(1, description="grow the window below this many queued packets")
    beta: U32 = Field(3, description="shrink the window above this many queued packets", validate_default=True)
    gamma: U32 = Field(1, description="slow start ends above this many queued packets")
    slow_start_every_other_rtt: bool = Field(True, description="grow in slow start every other RTT (Brakmo et al.)")

    _beta_at_least_alpha = field_validator("beta")(_compared_to("alpha", ">="))


class Pert(_Model):
    """PERT/RED (SIGCOMM 2007, Section 3): early response with a probability
    that rises with the queueing delay estimated from the smoothed RTT."""

    kind: Literal["pert"] = "pert"
    t_min: Time = _unit("t_min", "t_min_ns", 5_000_000, "queueing delay where the response probability starts to rise")
    t_max: Time = _unit("t_max", "t_max_ns", "10ms", "queueing delay where the probability reaches p_max")
    p_max: Annotated[float, Field(gt=0.0, le=1.0)] = Field(0.05, description="response probability at t_max")
    t_curve_end: Time | None = _unit("t_curve_end", "t_curve_end_ns", None, "where the probability reaches 1; unset: 2 t_max")
    decrease: Annotated[float, Field(gt=0.0, lt=1.0)] = Field(0.35, description="fraction of the window an early response removes")
    srtt_weight: Annotated[float, Field(gt=0.0, lt=1.0)] = Field(0.99, description="history weight of the smoothed RTT")
    thresholds: Literal["queueing_delay", "literal"] = Field(
        "queueing_delay", description="thresholds on the queueing delay (theses) or on srtt as printed (P + t)"
    )
    respond_in_slow_start: bool = True

    _t_max_above_t_min = field_validator("t_max")(_compared_to("t_min", ">", format_time))

    _end_above_t_max = field_validator("t_curve_end")(_compared_to("t_max", ">", format_time))


class PertPi(_Model):
    """PERT/PI (SIGCOMM 2007, Section 6): PERT's signal and response with the PI
    law on the queueing delay; router PI's a, b scaled by the capacity."""

    kind: Literal["pert-pi"] = "pert-pi"
    target_delay: Time = _unit("target_delay", "target_delay_ns", "3ms", "target queueing delay T_q* (Section 6.1)")
    a: Annotated[float, Field(ge=0.0)] = Field(1.822e-5, description="router PI's a (per packet of queue), ns-2 default")
    b: Annotated[float, Field(ge=0.0)] = Field(1.816e-5, description="router PI's b (per packet of queue), ns-2 default")
    capacity_pps: Annotated[float, Field(gt=0.0)] = Field(
        description="bottleneck capacity in packets/s that scales a and b (Section 6.1); builders set it"
    )
    w_hz: Annotated[float, Field(gt=0.0, le=1e9)] = Field(170.0, description="sampling frequency of the law, Hz (router PI's)")
    decrease: Annotated[float, Field(gt=0.0, lt=1.0)] = Field(0.35, description="fraction of the window an early response removes")
    srtt_weight: Annotated[float, Field(gt=0.0, lt=1.0)] = Field(0.99, description="history weight of the smoothed RTT")
    respond_in_slow_start: bool = True


class PertAdaptive(_Model):
    """Adaptive PERT (Kotla 2008, Chapters III-IV): PERT/RED's signal with
    beta = q / (q + q_max), alpha adapted every 5 RTTs across the high-speed,
    safe and compete modes, and loss / early-response rates from 8-interval
    estimators. Defaults are the thesis's; see docs/model.md for the choices."""

    kind: Literal["pert-adaptive"] = "pert-adaptive"
    t_min: Time = _unit("t_min", "t_min_ns", 5_000_000, "T1: the curve starts to rise; high-speed mode below it")
    t_max: Time = _unit("t_max", "t_max_ns", "10ms", "T2: the probability reaches p_max")
    p_max: Annotated[float, Field(gt=0.0, le=1.0)] = Field(0.05, description="response probability at t_max")
    srtt_weight: Annotated[float, Field(gt=0.0, lt=1.0)] = Field(0.99, description="history weight of the smoothed RTT")
    alpha_max: Annotated[float, Field(ge=1.0, allow_inf_nan=False)] = Field(32.0, description="cap of alpha (at least 1)")
    compete_frac: Annotated[float, Field(gt=0.0, le=1.0)] = Field(0.5, description="compete mode above this fraction of q_max")
    t3_frac: Annotated[float, Field(gt=0.0, le=1.0)] = Field(
        0.65, description="the curve reaches 1 at this fraction of q_max", validate_default=True
    )
    t3_floor: bool = Field(True, description="floor the third threshold at 2 t_max")
    ramp_pole_frac: Annotated[float, Field(gt=0.0, allow_inf_nan=False)] = Field(
        0.01, description="the compete target's hyperbolic ramp has its pole this fraction of q_max below compete_frac q_max"
    )
    q_max_init: Duration = _unit("q_max_init", "q_max_init_ns", "10ms", "initial maximum queueing delay")
    q_max_source: Literal["sample", "srtt"] = Field("sample", description="q_max from raw RTT samples or from srtt")
    loss_beta: Literal["adaptive", "half"] = Field("adaptive", description="decrease on a loss: q / (q + q_max) or 0.5")
    alpha_period_rtts: Annotated[float, Field(gt=0.0, allow_inf_nan=False)] = Field(5.0, description="alpha is adapted every this many RTTs")
    high_speed_step: Annotated[float, Field(ge=0.0, allow_inf_nan=False)] = Field(0.5, description="alpha step per period, high-speed mode")
    compete_step: Annotated[float, Field(ge=0.0, allow_inf_nan=False)] = Field(0.1, description="alpha step per period, compete mode")
    safe_decay: Annotated[float, Field(gt=0.0, le=1.0)] = Field(0.9, description="alpha factor per period, safe mode")
    interval_weights: list[Annotated[float, Field(ge=0.0, allow_inf_nan=False)]] = Field(
        default_factory=lambda: [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2],
        description="weights of the loss-interval estimators, most recent first",
    )
    respond_in_slow_start: bool = Field(False, description="early responses in slow start too (thesis: congestion avoidance only)")

    _t_max_above_t_min = field_validator("t_max")(_compared_to("t_min", ">", format_time))

    _t3_above_compete = field_validator("t3_frac")(_compared_to("compete_frac", ">="))

    @field_validator("interval_weights")
    @classmethod
    def _weights_positive_sum(cls, v: list[float]) -> list[float]:
        if not v or sum(v) <= 0:
            raise ValueError(f"must sum to a positive number, got {v}")
        return v


_Positive = Annotated[float, Field(gt=0.0, allow_inf_nan=False)]
_OpenUnit = Annotated[float, Field(gt=0.0, lt=1.0)]


class Hstcp(_Model):
    """HighSpeed TCP (RFC 3649): a(w), b(w) from the response function through
    (low_window, low_p) and (high_window, high_p); Standard TCP at or below low_window."""

    kind: Literal["hstcp"] = "hstcp"
    low_window: _Positive = Field(38.0, description="Standard TCP at or below this window, segments (Low_Window)")
    high_window: _Positive = Field(83_000.0, description="upper anchor of the response function, segments (High_Window)", validate_default=True)
    low_p: _OpenUnit = Field(1e-3, description="loss rate at low_window (Low_P)")
    high_p: _OpenUnit = Field(1e-7, description="loss rate at high_window (High_P)", validate_default=True)
    high_decrease: Annotated[float, Field(gt=0.0, le=0.5)] = Field(0.1, description="decrease factor b at high_window (High_Decrease)")

    _above_low_window = field_validator("high_window")(_compared_to("low_window", ">"))

    _below_low_p = field_validator("high_p")(_compared_to("low_p", "<"))


class Cubic(_Model):
    """CUBIC (RFC 9438): W_cubic(t) = C (t - K)^3 + W_max, Reno-friendly region, fast convergence."""

    kind: Literal["cubic"] = "cubic"
    c: _Positive = Field(0.4, description="aggressiveness C of the cubic curve, segments/s^3")
    beta: _OpenUnit = Field(0.7, description="multiplicative decrease beta_cubic")
    fast_convergence: bool = Field(True, description="lower W_max after a smaller peak (Section 4.7)")
    reno_friendly: bool = Field(True, description="grow at least as fast as the Reno estimate W_est (Section 4.3)")


class Compound(_Model):
    """Compound TCP (Tan et al., INFOCOM 2006): win = cwnd + dwnd, dwnd from the packets queued once per RTT."""

    kind: Literal["compound"] = "compound"
    alpha: _Positive = Field(0.125, description="scale of the delay component's increase alpha win^k")
    beta: _OpenUnit = Field(0.5, description="decrease of the whole window on loss")
    k: Annotated[float, Field(ge=0.0, le=1.0)] = Field(0.75, description="exponent of the increase")
    gamma: _Positive = Field(30.0, description="packets queued at which the delay component backs off")
    zeta: _Positive = Field(1.0, description="back-off of dwnd per packet queued above gamma")


class Illinois(_Model):
    """TCP-Illinois (Liu, Basar, Srikant 2006; Linux defaults): alpha, beta from the queueing delay per RTT."""

    kind: Literal["illinois"] = "illinois"
    alpha_min: _Positive = Field(0.3, description="increase at large queueing delay, segments per RTT")
    alpha_max: _Positive = Field(10.0, description="increase at small queueing delay, segments per RTT", validate_default=True)
    beta_min: _OpenUnit = Field(0.125, description="decrease at small queueing delay")
    beta_max: _OpenUnit = Field(0.5, description="decrease at large queueing delay", validate_default=True)
    win_thresh: U32 = Field(15, description="below this window alpha, beta are Reno's, segments")
    theta: U32 = Field(5, description="low-delay RTTs before alpha returns to alpha_max")
    d1_frac: _OpenUnit = Field(0.01, description="d1 as a fraction of the maximum queueing delay")
    d2_frac: _OpenUnit = Field(0.1, description="d2 as a fraction of the maximum queueing delay")
    d3_frac: _OpenUnit = Field(0.8, description="d3 as a fraction of the maximum queueing delay", validate_default=True)

    _above_alpha_min = field_validator("alpha_max")(_compared_to("alpha_min", ">"))

    _at_least_beta_min = field_validator("beta_max")(_compared_to("beta_min", ">="))

    _above_d2 = field_validator("d3_frac")(_compared_to("d2_frac", ">"))


_UnitInterval = Annotated[float, Field(gt=0.0, le=1.0)]


class Fast(_Model):
    """FAST TCP (Jin, Wei, Low, INFOCOM 2004): once per RTT
    w <- min(2w, (1 - gamma) w + gamma (baseRTT / avgRTT w + alpha)); Reno's halving on loss."""

    kind: Literal["fast"] = "fast"
    alpha: _Positive = Field(200.0, description="packets each flow keeps queued in the network (the papers' experiments: 200)")
    gamma: _UnitInterval = Field(0.5, description="step toward the target window per update, in (0, 1]")
    rtt_weight_max: _UnitInterval = Field(0.25, description="largest weight of one RTT sample in avgRTT; the weight is min(3 / cwnd, this)")


CcSpec = Annotated[Union[Reno, Vegas, Pert, PertPi, PertAdaptive, Hstcp, Cubic, Compound, Illinois, Fast], Field(discriminator="kind")]
CC_KINDS = ("reno", "vegas", "pert", "pert-pi", "pert-adaptive", "hstcp", "cubic", "compound", "illinois", "fast")


class TcpConfig(_Model):
    """Options of a TCP connection; defaults are the core's (ns-2 / RFC values)."""

    packet_size: Size = Field(1500, description="segment size on the wire, headers included, bytes")
    sack: bool = Field(True, description="SACK loss recovery (RFC 6675); false: NewReno (RFC 6582)")
    ecn: bool = Field(False, description="ECN-capable flow (RFC 3168)")
    init_cwnd: Count = Field(2, description="initial window, segments")
    max_cwnd: Count = Field(100_000, description="receiver window, segments")
    dupthresh: Count = 3
    limited_transmit: bool = True
    initial_rto: Duration = _unit("initial_rto", "initial_rto_ns", 1_000_000_000)
    min_rto: Duration = _unit("min_rto", "min_rto_ns", 200_000_000)
    rto_min_on: Literal["variance", "rto"] = Field(
        "variance", description="min_rto bounds SRTT's margin (Linux: RTO >= SRTT + min_rto) or the whole RTO (RFC 6298, ns-2)"
    )
    max_rto: Duration = _unit("max_rto", "max_rto_ns", "60s")
    clock_granularity: Time = _unit("clock_granularity", "clock_granularity_ns", 1_000_000)
    delayed_ack: bool = False
    delayed_ack_timeout: Duration = _unit("delayed_ack_timeout", "delayed_ack_timeout_ns", 100_000_000)
    ack_size: Count = 40
    rtt_noise: Time = _unit(
        "rtt_noise", "rtt_noise_ns", 0, "mean of the uniform noise U(0, 2 x mean) added to each RTT sample; 0: none"
    )
    overhead: Time = _unit(
        "overhead",
        "overhead_ns",
        0,
        "ns-2's overhead_: a sender with segments to send waits U(0, overhead), then sends them; breaks drop-tail phase effects; 0: none",
    )

    @field_validator("packet_size")
    @classmethod
    def _above_header(cls, v: int) -> int:
        if v <= 40:
            raise ValueError(f"must exceed the 40-byte TCP/IP header, got {v}")
        return v

    _rto_bounds = field_validator("max_rto")(_compared_to("min_rto", ">=", format_time))


def _cc_shorthand(value: Any) -> Any:
    return {"kind": value} if isinstance(value, str) else value


class FlowSpec(_Model):
    """A long-lived bulk TCP flow from ``src`` to ``dst``."""

    src: str
    dst: str
    cc: Annotated[CcSpec, BeforeValidator(_cc_shorthand, json_schema_input_type=Union[Literal[CC_KINDS], CcSpec])] = Field(  # type: ignore[valid-type]
        default_factory=Reno, description='a controller: "pert", or a table such as {kind = "pert", p_max = 0.1}'
    )
    start: Time | None = _unit("start", "start_ns", None, "fixed start time (exclusive with start_window)")
    start_window: tuple[Time, Time] | None = _unit(
        "start_window", "start_window_ns", None, "start drawn uniformly in [lo, hi] from the run's seed"
    )
    stop: Time | None = _unit("stop", "stop_ns", None, "the application stops: no new data afterwards")
    off: list[tuple[Time, Time]] = _unit(
        "off", "off_ns", [], "[start, end) intervals without new data: the flow leaves, then rejoins (restart after idle)"
    )
    label: Annotated[str, Field(min_length=1)] | None = Field(None, description="group name in results; default the controller's name")
    tcp: TcpConfig = Field(default_factory=TcpConfig)

    @field_validator("start_window")
    @classmethod
    def _start(cls, v: tuple[int, int] | None, info: ValidationInfo) -> tuple[int, int] | None:
        if v is not None and info.data.get("start") is not None:
            raise ValueError("give start or start_window, not both")
        if v is not None and v[0] > v[1]:
            raise ValueError(f"need lo <= hi, got [{format_time(v[0])}, {format_time(v[1])}]")
        return v

    @field_validator("stop")
    @classmethod
    def _stop_after_start(cls, v: int | None, info: ValidationInfo) -> int | None:
        window = info.data.get("start_window")
        latest = window[1] if window else (info.data.get("start") or 0)
        if v is not None and v < latest:
            raise ValueError(f"must not be before the (latest) start {format_time(latest)}, got {format_time(v)}")
        return v

    @field_validator("off")
    @classmethod
    def _off_intervals(cls, v: list[tuple[int, int]], info: ValidationInfo) -> list[tuple[int, int]]:
        window = info.data.get("start_window")
        latest = window[1] if window else (info.data.get("start") or 0)
        stop = info.data.get("stop")
        for j, (lo, hi) in enumerate(v):
            if lo >= hi:
                message = f"need start < end, got [{format_time(lo)}, {format_time(hi)}]"
            elif lo < latest:
                message = f"must not start before the flow's (latest) start {format_time(latest)}, got {format_time(lo)}"
            elif j > 0 and lo <= v[j - 1][1]:
                message = f"must start after off[{j - 1}] ends ({format_time(v[j - 1][1])}): intervals are sorted and disjoint"
            elif stop is not None and hi >= stop:
                message = f"must end before stop ({format_time(stop)}), got {format_time(hi)}"
            else:
                continue
            raise PydanticCustomError("item_error", "{message}", {"index": j, "message": message})
        return v


class UdpSpec(_Model):
    """An open-loop UDP source at a mean rate."""

    src: str
    dst: str
    rate: Rate = _unit("rate", "rate_bps", description="mean offered load")
    packet_size: Size = Field(..., description="size, or mean size, in bytes")
    arrivals: Literal["cbr", "poisson"] = "poisson"
    sizes: Literal["fixed", "exponential"] = "fixed"
    ecn: bool = False
    start: Time = _unit("start", "start_ns", 0)
    stop: Time | None = _unit("stop", "stop_ns", None)

    @field_validator("stop")
    @classmethod
    def _stop_after_start(cls, v: int | None, info: ValidationInfo) -> int | None:
        start = info.data.get("start")
        if v is not None and start is not None and v < start:
            raise ValueError(f"must not be before start ({format_time(start)}), got {format_time(v)}")
        return v


class WebSpec(_Model):
    """Web sessions (ns-2 WebTraf): pages of objects, each object over its own TCP
    connection from a server to the session's client; defaults from ns-2's
    ``tcl/ex/web-traffic.tcl`` (docs/model.md, Web traffic)."""

    clients: Annotated[list[str], Field(min_length=1)] = Field(description="client nodes; session i runs on clients[i % len]")
    servers: Annotated[list[str], Field(min_length=1)] = Field(description="server nodes; each object's server is drawn uniformly")
    sessions: U32
    start_window: tuple[Time, Time] = _unit("start_window", "start_window_ns", (0, 0), "session starts uniform in [lo, hi]")
    pages_per_session: U32 | None = Field(None, description="default: browse until the end")
    think_time: Duration = _unit("think_time", "think_time_ns", 1_000_000_000, "mean think time between pages (exponential)")
    objects_per_page: Annotated[int, Field(ge=1, le=2**32 - 1)] = 1
    inter_object: Duration = _unit("inter_object", "inter_object_ns", 10_000_000, "mean time between a page's requests")
    object_mean_segments: Annotated[float, Field(gt=0.0)] = Field(10.0, description="mean object size in segments (Pareto II)")
    object_shape: Annotated[float, Field(gt=1.0)] = Field(1.2, description="Pareto II shape of the object size")
    cc: Annotated[CcSpec, BeforeValidator(_cc_shorthand, json_schema_input_type=Union[Literal[CC_KINDS], CcSpec])] = Field(  # type: ignore[valid-type]
        default_factory=Reno, description="controller of the object transfers"
    )
    tcp: TcpConfig = Field(default_factory=TcpConfig)

    @field_validator("start_window")
    @classmethod
    def _ordered(cls, v: tuple[int, int]) -> tuple[int, int]:
        if v[0] > v[1]:
            raise ValueError(f"need lo <= hi, got [{format_time(v[0])}, {format_time(v[1])}]")
        return v


class MonitorSpec(_Model):
    """Time series to record (none unless ``sample_interval`` is given)."""

    sample_interval: Duration | None = _unit("sample_interval", "sample_interval_ns", None)
    flows: list[Annotated[int, Field(ge=0)]] | None = Field(None, description="flow indices to sample; default all")
    links: list[str] | None = Field(None, description="link names whose queues are sampled; default all")
    trace_flows: list[Annotated[int, Field(ge=0)]] = Field(
        default_factory=list, description="flows whose every RTT sample and loss is traced (predictor study)"
    )
    trace_link: str | None = Field(None, description="link on the first traced flow's path: its queue length and drops are traced")
    queue_positions: str | None = Field(
        None,
        description="link whose a -> b queue (dumbbell bottleneck: r0 -> r1) counts the position of each data packet it accepts in the window, per flow label",
    )


class MeasureWindow(_Model):
    """Window over which summary metrics are computed."""

    start: Time = _unit("start", "start_ns")
    end: Duration = _unit("end", "end_ns")


# --- the scenario -----------------------------------------------------------


class Scenario(_Model):
    """Everything a run depends on; a run is a pure function of it (``seed`` included)."""

    seed: Annotated[int, Field(ge=0, le=U64_MAX)] = 1
    duration: Duration = _unit("duration", "duration_ns")
    measure: MeasureWindow | None = Field(None, description="default: the whole run")
    nodes: list[str] = Field(default_factory=list)
    links: list[LinkSpec] = Field(default_factory=list)
    dumbbell: DumbbellSpec | None = None
    flows: list[FlowSpec] = Field(default_factory=list)
    udp: list[UdpSpec] = Field(default_factory=list)
    web: list[WebSpec] = Field(default_factory=list)
    monitor: MonitorSpec = Field(default_factory=MonitorSpec)

    @field_validator("measure")
    @classmethod
    def _within_run(cls, v: MeasureWindow | None, info: ValidationInfo) -> MeasureWindow | None:
        duration = info.data.get("duration")
        if v is not None and duration is not None and not (v.start < v.end <= duration):
            raise ValueError(f"need start < end <= duration ({format_time(duration)}), got [{format_time(v.start)}, {format_time(v.end)}]")
        return v

    @field_validator("dumbbell")
    @classmethod
    def _one_topology(cls, v: DumbbellSpec | None, info: ValidationInfo) -> DumbbellSpec | None:
        if v is not None and (info.data.get("nodes") or info.data.get("links")):
            raise ValueError("give either `dumbbell` or `nodes`/`links`, not both")
        return v

    # -- construction --

    @classmethod
    def parse(cls, data: dict[str, Any]) -> Scenario:
        """Validate a mapping (as read from TOML or JSON); raises :class:`ScenarioError`."""
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            raise ScenarioError.from_pydantic(e) from None

    @classmethod
    def from_toml(cls, path: str | Path) -> Scenario:
        """Read a scenario file written in TOML with human units."""
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError([(str(path), f"not valid TOML: {e}")]) from None
        return cls.parse(data)

    @classmethod
    def from_json(cls, text: str) -> Scenario:
        """Read a scenario from JSON (human units or the wire format)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ScenarioError([("scenario", f"not valid JSON: {e}")]) from None
        return cls.parse(data)

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Read a ``.toml`` or ``.json`` scenario file."""
        path = Path(path)
        if path.suffix == ".json":
            return cls.from_json(path.read_text())
        return cls.from_toml(path)

    # -- output --

    def to_wire(self) -> dict[str, Any]:
        """The core's wire format as a dict: rates in bit/s, times in ns."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    def to_wire_json(self, indent: int | None = None) -> str:
        """The core's wire format as JSON text."""
        return json.dumps(self.to_wire(), indent=indent)

    def check(self, memory_limit: float | None = None) -> Scenario:
        """Ask the core to build the world without running it (checks node names,
        connectivity, and the memory estimate against ``memory_limit``: bytes,
        default the memory available now, ``math.inf`` for none; see
        :func:`pertlab.run.run`); raises :class:`ScenarioError`. Returns ``self``."""
        from . import _core
        from .run import _from_core, core_memory_limit

        limit = core_memory_limit(memory_limit)
        try:
            _core.validate_json(self.to_wire_json(), limit)
        except ValueError as e:
            raise _from_core(e, memory_limit is None) from None
        return self

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """JSON Schema of the scenario file format (human units)."""
        return cls.model_json_schema(mode="validation")


# --- error text -------------------------------------------------------------


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
    return "".join(parts) or "scenario"


def _item(err: dict[str, Any]) -> str:
    """The index of the list item a validator of the whole list names (``off[1]``)."""
    return f"[{err['ctx']['index']}]" if err["type"] == "item_error" else ""


def _message(err: dict[str, Any]) -> str:
    kind, ctx, value = err["type"], err.get("ctx", {}), err.get("input")
    if kind == "missing":
        return "required field is missing"
    if kind == "literal_error":
        return f"got {value!r}; allowed: {ctx['expected']}"
    if kind == "union_tag_invalid":
        return f"unknown {ctx['discriminator'].strip(chr(39))} {ctx['tag']!r}; allowed: {ctx['expected_tags']}"
    if kind == "union_tag_not_found":
        return f"needs a `{ctx['discriminator'].strip(chr(39))}`; allowed: {', '.join(CC_KINDS)}"
    msg = err["msg"]
    if kind == "value_error":
        return msg.removeprefix("Value error, ")
    if isinstance(value, (dict, list)):
        return msg
    return f"{msg}, got {value!r}"
