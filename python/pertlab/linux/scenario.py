"""The testbed's scenario file (docs/linux.md), validated like the simulator's.

The models share :mod:`pertlab.scenario`'s base (unknown fields are errors
that list the allowed ones), its quantities (``Rate``, ``Time``,
``Duration``, ``Size``: "10Mbps", "20ms", "50KB", held in bit/s, ns and
bytes) and its PERT parameters (the ``[pert]`` table is the simulator's
``Pert`` controller, the same fields and checks). Every error is a
:class:`~pertlab.scenario.ScenarioError` whose lines read
``field.path: message``; the command line prints them and exits with 2.

What a scenario leaves out: one bottleneck (a dumbbell of one sender, one
router and one receiver namespace), all flows starting together, one
round-trip delay for every flow. Flow groups may start later than the first
(``start``: kernel Reno flows joining adaptive PERT), all end together.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from ..scenario import U64_MAX, Count, Duration, Pert, PertAdaptive, Rate, ScenarioError, Size, Time
from ..scenario.base import _compared_to, _Model
from ..units import format_time
from .adaptive_params import PertAdaptiveParams
from .loader import PertParamError, PertParams

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = ["KERNEL_CCS", "EBPF_CCS", "CCS", "Bottleneck", "FlowGroup", "TestbedScenario", "load_scenario"]

#: Congestion controls of the kernel the testbed selects by name, and the eBPF ``pert`` and
#: ``pert_adaptive``.
KERNEL_CCS = ("reno", "cubic", "bbr")
EBPF_CCS = ("pert", "pert_adaptive")
CCS = (*KERNEL_CCS, *EBPF_CCS)
FRAME_BYTES = 1514  # a full-size Ethernet frame, what htb and bfifo count
#: The loader's names of the ``[pert]`` table's fields where they differ (the rest are the same).
PERT_FIELDS = {"t_min_ms": "t_min", "t_max_ms": "t_max", "t_end_ms": "t_curve_end"}


class Bottleneck(_Model):
    """The router's egress towards the receiver: htb at ``rate`` with a FIFO leaf."""

    rate: Rate = Field(10_000_000, description="htb rate")
    delay: Time = Field(20_000_000, description="round-trip propagation delay (the delay line holds each direction half of it)")
    buffer: Size | None = Field(None, description="bfifo limit in bytes; default one BDP, at least 10 full-size frames")
    buffer_pkts: Count | None = Field(None, description="pfifo limit in packets instead of a bfifo")
    loss: Annotated[float, Field(ge=0.0, lt=1.0)] = Field(0.0, description="random loss per packet, each direction")

    @field_validator("buffer_pkts")
    @classmethod
    def _one_limit(cls, v: int | None, info: ValidationInfo) -> int | None:
        if v is not None and info.data.get("buffer") is not None:
            raise ValueError("give buffer (bytes) or buffer_pkts, not both")
        return v


class FlowGroup(_Model):
    """``count`` bulk TCP connections with one congestion control, in one sender process."""

    cc: Literal[CCS]  # type: ignore[valid-type]
    count: Count = 1
    start: Time = Field(0, description="when the group starts sending, after the first group (all groups stop together)")


class TestbedScenario(_Model):
    """A testbed run."""

    __test__ = False  # not a pytest test class

    name: str = "testbed"
    duration: Duration = Field(10_000_000_000, description="how long the flows send")
    warmup: Time = Field(2_000_000_000, description="metrics cover [warmup, duration]")
    sample_interval: Duration = Field(100_000_000, description="TCP_INFO and queue sampling interval")
    seed: Annotated[int, Field(ge=0, le=U64_MAX)] = Field(1, description="seed of the delay line's random loss")
    delayed_ack: bool = Field(False, description="Linux's delayed ACKs at the receiver; default one ACK per segment (quickack), as the simulator")
    bottleneck: Bottleneck = Field(default_factory=Bottleneck)
    flows: list[FlowGroup] = Field(default_factory=lambda: [FlowGroup(cc="pert")], min_length=1)
    pert: Pert = Field(default_factory=Pert, description="PERT's parameters: the simulator's `pert` controller fields")
    pert_adaptive: PertAdaptive = Field(
        default_factory=PertAdaptive, description="adaptive PERT's parameters: the simulator's `pert-adaptive` controller fields"
    )

    _warmup_below_duration = field_validator("warmup")(_compared_to("duration", "<", format_time))

    @field_validator("flows")
    @classmethod
    def _starts_before_the_end(cls, v: list[FlowGroup], info: ValidationInfo) -> list[FlowGroup]:
        duration = info.data.get("duration")
        for i, g in enumerate(v):
            if duration is not None and g.start >= duration:
                raise PydanticCustomError(
                    "item_error", "{message}", {"index": i, "field": "start", "message": f"must be before duration ({format_time(duration)}), got {format_time(g.start)}"}
                )
        return v

    @field_validator("pert_adaptive")
    @classmethod
    def _adaptive_fits_the_kernel_code(cls, v: PertAdaptive) -> PertAdaptive:
        """The eBPF program takes the ranges of PertAdaptiveParams (alpha_max <= 4000, ...)."""
        try:
            PertAdaptiveParams.from_sim_config(v.model_dump(by_alias=True)).validate()
        except PertParamError as e:
            field = e.field.removesuffix("_ms") if e.field.endswith("_ms") else e.field
            raise PydanticCustomError("field_error", "{message}", {"field": field, "message": e.message}) from None
        return v

    @field_validator("pert")
    @classmethod
    def _fits_the_kernel_code(cls, v: Pert) -> Pert:
        """The eBPF program's fixed point takes thresholds up to the loader's bound (10^6 ms)."""
        try:
            PertParams.from_sim_config(v.model_dump(by_alias=True)).validate()
        except PertParamError as e:
            raise PydanticCustomError("field_error", "{message}", {"field": PERT_FIELDS.get(e.field, e.field), "message": e.message}) from None
        return v

    @classmethod
    def parse(cls, data: dict) -> TestbedScenario:
        """Validate a mapping (as read from TOML); raises :class:`ScenarioError`."""
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            raise ScenarioError.from_pydantic(e) from None

    @property
    def bdp_bytes(self) -> int:
        return self.bottleneck.rate * self.bottleneck.delay // 8 // 1_000_000_000

    def queue(self) -> tuple[str, int]:
        """('pfifo', packets) or ('bfifo', bytes)."""
        b = self.bottleneck
        if b.buffer_pkts is not None:
            return "pfifo", b.buffer_pkts
        return "bfifo", b.buffer if b.buffer is not None else max(self.bdp_bytes, 10 * FRAME_BYTES)

    def pert_params(self) -> PertParams:
        """The ``[pert]`` table in the loader's units."""
        return PertParams.from_sim_config(self.pert.model_dump(by_alias=True))

    def pert_adaptive_params(self) -> PertAdaptiveParams:
        """The ``[pert_adaptive]`` table in the loader's units."""
        return PertAdaptiveParams.from_sim_config(self.pert_adaptive.model_dump(by_alias=True))

    @property
    def ebpf_ccs(self) -> list[str]:
        """The eBPF congestion controls the flows use."""
        return [c for c in EBPF_CCS if any(f.cc == c for f in self.flows)]

    @property
    def needs_pert(self) -> bool:
        return bool(self.ebpf_ccs)


def load_scenario(path: Path | str) -> TestbedScenario:
    """Read a testbed scenario file (TOML); raises :class:`ScenarioError`."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ScenarioError([(str(path), "no such file")]) from None
    except OSError as e:
        raise ScenarioError([(str(path), f"cannot read: {e.strerror}")]) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError([(str(path), f"not valid TOML: {e}")]) from None
    return TestbedScenario.parse(data)
