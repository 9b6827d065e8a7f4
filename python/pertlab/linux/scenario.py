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
and stop earlier than the run (``start``, ``stop``: kernel Reno flows joining
adaptive PERT, then leaving).
"""

from __future__ import annotations

import functools
import types
import typing
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, FieldSerializationInfo, PlainSerializer, SerializerFunctionWrapHandler, ValidationError, ValidationInfo, field_serializer, field_validator, model_validator
from pydantic_core import PydanticCustomError

from .. import scenario as _sim
from ..scenario import U64_MAX, Count, Pert, PertAdaptive, ScenarioError
from ..scenario.base import _compared_to
from ..scenario.model import parse_toml
from ..scenario.traffic import DEFAULT_MAX_CWND
from ..scenario.base import _Model as _SimModel
from ..units import format_rate, format_time
from .adaptive_params import PertAdaptiveParams
from .build import CE_MARK_MAX_RATE_BPS
from .loader import PertParamError, PertParams
from .profiles import PROFILES, profile_names

__all__ = ["KERNEL_CCS", "LINUX_INIT_CWND", "EBPF_CCS", "CCS", "Bottleneck", "FlowGroup", "TestbedVideo", "Jitter", "Loss", "NetPath", "TestbedScenario", "load_scenario"]

#: Congestion controls of the kernel the testbed selects by name, and the eBPF ``pert`` and
#: ``pert_adaptive``.
KERNEL_CCS = ("reno", "cubic", "bbr")
EBPF_CCS = ("pert", "pert_adaptive")
CCS = (*KERNEL_CCS, *EBPF_CCS)
FRAME_BYTES = 1514  # a full-size Ethernet frame, what htb and bfifo count
SEGMENT_BYTES = 1448  # payload of a full-size segment with the timestamps option
#: The loader's names of the ``[pert]`` table's fields where they differ by more than ``_ms``.
PERT_FIELDS = {"t_end_ms": "t_curve_end"}


class _Model(_SimModel):
    """The testbed's models dump under their own names (``duration``), with the units written
    out in JSON (``Time`` and the others below); the simulator's dump under the core's wire names."""

    model_config = ConfigDict(serialize_by_alias=False)


def _in_unit(unit: str) -> PlainSerializer:
    """Written to JSON as text with its unit ("1500000000ns", "10000000bps", "1448B"): a plain
    number is read back as seconds for a time, so ``model_dump(mode="json")`` would not read back."""
    return PlainSerializer(lambda v: f"{v}{unit}", return_type=str, when_used="json")


# The simulator's quantities (held in ns, bit/s and bytes), written with their unit in JSON.
Time = Annotated[_sim.Time, _in_unit("ns")]
Duration = Annotated[_sim.Duration, _in_unit("ns")]
Rate = Annotated[_sim.Rate, _in_unit("bps")]
Size = Annotated[_sim.Size, _in_unit("B")]
#: What reads a time in the simulator's models (the parser of ``Time`` and of ``Duration``).
_TIME_PARSERS = [m for t in (_sim.Time, _sim.Duration) for m in t.__metadata__ if isinstance(m, BeforeValidator)]


@functools.cache
def _time_fields(cls: type[BaseModel]) -> frozenset[str]:
    """The fields of ``cls`` that are times (``Time``, ``Duration``, optional or not)."""
    names = set()
    for name, f in cls.model_fields.items():
        meta = list(f.metadata)
        for a in typing.get_args(f.annotation) if typing.get_origin(f.annotation) in (typing.Union, types.UnionType) else ():
            meta += getattr(a, "__metadata__", ())
        if any(m in _TIME_PARSERS for m in meta):
            names.add(name)
    return frozenset(names)


class Bottleneck(_Model):
    """The router's egress towards the receiver: htb at ``rate`` with a FIFO leaf."""

    rate: Rate = Field(10_000_000, description="htb rate")
    delay: Time = Field(20_000_000, description="round-trip propagation delay (the delay line holds each direction half of it)")
    buffer: Size | None = Field(None, description="bfifo limit in bytes; default one BDP, at least 10 full-size frames")
    buffer_pkts: Count | None = Field(None, description="pfifo limit in packets instead of a bfifo")
    loss: Annotated[float, Field(ge=0.0, lt=1.0)] = Field(0.0, description="random loss per packet, each direction")
    step_k: Count | None = Field(
        None,
        description="step ECN marking, as DCTCP's switches and the simulator's `step` queue: CE on an ECN-capable packet that arrives while the "
        "queue holds at least step_k full-size frames (a tc BPF program's copy of the queue, bpf/ce_mark.bpf.c), with ECN on at the senders and "
        "the receiver (net.ipv4.tcp_ecn = 1); below the buffer's frames. Default none: no marking, ECN off",
    )

    @field_validator("buffer_pkts")
    @classmethod
    def _one_limit(cls, v: int | None, info: ValidationInfo) -> int | None:
        if v is not None and info.data.get("buffer") is not None:
            raise ValueError("give buffer (bytes) or buffer_pkts, not both")
        return v


#: The delay line's jitter distributions (native/delayline.c) and its limit on a delay or a jitter (10 s).
JITTERS = ("none", "uniform", "exponential", "normal", "pareto")
MAX_DELAY_NS = 10_000_000_000
Probability = Annotated[float, Field(ge=0.0, le=1.0)]


def _kernel_error(e: PertParamError) -> PydanticCustomError:
    """A refusal of the eBPF code's parameters at the scenario's fields (``t_min_ms`` ->
    ``t_min``, ``t_end_ms`` -> ``t_curve_end``), with those a constraint binds it to."""
    def name(f: str) -> str:
        return PERT_FIELDS.get(f, f.removesuffix("_ms"))

    return _field_error(e.fields(name), e.text(name))


def _field_error(field: str, message: str) -> PydanticCustomError:
    return PydanticCustomError("field_error", "{message}", {"field": field, "message": message})


class Jitter(_Model):
    """A random delay added to each packet's constant delay, drawn per packet in each direction."""

    dist: Literal[JITTERS] = Field("none", description="none, uniform, exponential, normal or pareto")  # type: ignore[valid-type]
    scale: Time | None = Field(None, description="uniform: the upper bound (U(0, scale)); exponential, normal, pareto: the mean")
    sd: Time | None = Field(None, description="normal only: the standard deviation (the draw is truncated at 0)")
    shape: Annotated[float, Field(gt=1.0, le=100.0)] | None = Field(None, description="pareto only: the shape, above 1 (default 2.5); a Pareto II draw starting at 0")

    @model_validator(mode="after")
    def _parameters_fit_the_distribution(self) -> Jitter:
        if self.dist == "none":
            for f in ("scale", "sd", "shape"):
                if getattr(self, f) is not None:
                    raise _field_error(f, f"is not used with dist = 'none' (give a dist: {', '.join(JITTERS[1:])})")
            return self
        if self.scale is None:
            raise _field_error("scale", f"required with dist = {self.dist!r} (" + ("the upper bound" if self.dist == "uniform" else "the mean") + ")")
        if self.scale > MAX_DELAY_NS:
            raise _field_error("scale", f"must be at most 10s, got {format_time(self.scale)}")
        if self.dist == "normal":
            if self.sd is None:
                raise _field_error("sd", "required with dist = 'normal'")
            if self.sd > MAX_DELAY_NS:
                raise _field_error("sd", f"must be at most 10s, got {format_time(self.sd)}")
        elif self.sd is not None:
            raise _field_error("sd", f"only for dist = 'normal', not {self.dist!r}")
        if self.shape is not None and self.dist != "pareto":
            raise _field_error("shape", f"only for dist = 'pareto', not {self.dist!r}")
        return self

    @property
    def mean_ns(self) -> float:
        """The mean of the configured distribution (normal: before its truncation at 0)."""
        if self.dist == "none" or self.scale is None:
            return 0.0
        return self.scale / 2 if self.dist == "uniform" else float(self.scale)

    def delayline_args(self) -> list[str]:
        if self.dist == "none":
            return []
        args = [f"jitter={self.dist}", f"jitter_us={self.scale / 1000:.12g}"]
        if self.dist == "normal":
            args.append(f"jitter_sd_us={self.sd / 1000:.12g}")  # type: ignore[operator]
        if self.dist == "pareto":
            args.append(f"pareto_shape={self.shape if self.shape is not None else 2.5:g}")
        return args


class Loss(_Model):
    """Random loss per packet, each direction: none, Bernoulli, or bursty (Gilbert-Elliott)."""

    model: Literal["none", "bernoulli", "gilbert"] = Field("none", description="none, bernoulli or gilbert")
    rate: Probability | None = Field(None, description="bernoulli: the loss probability")
    p_good_bad: Probability | None = Field(None, description="gilbert: probability per packet of going from the good to the bad state")
    p_bad_good: Annotated[float, Field(gt=0.0, le=1.0)] | None = Field(None, description="gilbert: probability per packet of leaving the bad state (the mean burst is 1 / p_bad_good packets)")
    loss_bad: Probability | None = Field(None, description="gilbert: loss probability in the bad state (default 1)")
    loss_good: Probability | None = Field(None, description="gilbert: loss probability in the good state (default 0)")

    @model_validator(mode="after")
    def _parameters_fit_the_model(self) -> Loss:
        gilbert = ("p_good_bad", "p_bad_good", "loss_bad", "loss_good")
        unused = {"none": ("rate", *gilbert), "bernoulli": gilbert, "gilbert": ("rate",)}[self.model]
        for f in unused:
            if getattr(self, f) is not None:
                raise _field_error(f, f"is not used with model = {self.model!r}")
        if self.model == "bernoulli" and self.rate is None:
            raise _field_error("rate", "required with model = 'bernoulli'")
        if self.model == "gilbert":
            for f in ("p_good_bad", "p_bad_good"):
                if getattr(self, f) is None:
                    raise _field_error(f, "required with model = 'gilbert'")
        return self

    @property
    def stationary_rate(self) -> float:
        """The long-run loss probability per packet."""
        if self.model == "bernoulli":
            return self.rate or 0.0
        if self.model == "gilbert":
            p, r = self.p_good_bad or 0.0, self.p_bad_good or 1.0
            bad = 1.0 if self.loss_bad is None else self.loss_bad
            good = self.loss_good or 0.0
            return (r * good + p * bad) / (p + r)
        return 0.0

    def delayline_args(self) -> list[str]:
        if self.model == "bernoulli":
            return [f"loss={self.rate!r}"]
        if self.model == "gilbert":
            return [f"ge_p={self.p_good_bad!r}", f"ge_r={self.p_bad_good!r}", f"ge_bad={1.0 if self.loss_bad is None else self.loss_bad!r}", f"ge_good={self.loss_good or 0.0!r}"]
        return []


class NetPath(_Model):
    """What the delay line does to each packet besides the constant delay (``bottleneck.delay``):
    jitter, reordering, loss; or a named profile (:mod:`.profiles`) that fills them."""

    profile: Literal[tuple(PROFILES)] | None = Field(  # type: ignore[valid-type]
        None, description=f"a named path profile: {profile_names()}; fields given here or in [bottleneck] override it"
    )
    jitter: Jitter = Field(default_factory=Jitter)
    order: Literal["keep", "free"] = Field("keep", description="keep: packets between two addresses leave in the order they came; free: each at its own time (jitter reorders)")
    loss: Loss = Field(default_factory=Loss)

    @model_validator(mode="before")
    @classmethod
    def _profile_fills_the_rest(cls, data: object) -> object:
        if not isinstance(data, dict) or data.get("profile") is None:
            return data
        name = data["profile"]
        if not isinstance(name, str) or name not in PROFILES:
            raise _field_error("profile", f"unknown path profile {name!r}; known: {profile_names()}")
        prof = PROFILES[name]
        return {"jitter": dict(prof.jitter), "loss": dict(prof.loss), "order": prof.order} | data


class TestbedVideo(_Model):
    """A live video stream on each connection of a group (Qian 2011, III.A and III.B): the sender
    writes ``segment`` bytes every ``segment / rate`` (application-limited, ``TCP_NODELAY``), the
    receiver plays segment i ``startup_delay`` after the sender wrote it; late and success as the
    simulator counts them (``pertlab._core.video_playout``)."""

    rate: Rate = Field(description="video bit rate mu, payload; at most the bottleneck's rate")
    startup_delay: Time = Field(2_000_000_000, description="the client's start-up delay")
    segment: Size = Field(SEGMENT_BYTES, description="bytes per write, one full-size segment by default")


class FlowGroup(_Model):
    """``count`` TCP connections with one congestion control, in one sender process: bulk
    transfers, or a live video stream each (``video``)."""

    cc: Literal[CCS]  # type: ignore[valid-type]
    count: Count = 1
    start: Time = Field(0, description="when the group starts sending, after the first group")
    stop: Time | None = Field(None, description="when the group stops writing (its data in flight still drains); default the end of the run")
    video: TestbedVideo | None = Field(None, description="a live video stream on each connection instead of bulk data")


#: The kernel's initial window, segments (``TCP_INIT_CWND``, include/net/tcp.h; RFC 6928).
LINUX_INIT_CWND = 10


class TestbedScenario(_Model):
    """A testbed run."""

    __test__ = False  # not a pytest test class

    name: str = "testbed"
    duration: Duration = Field(10_000_000_000, description="how long the flows send")
    warmup: Time = Field("2s", description="metrics cover [warmup, duration]", validate_default=True)
    sample_interval: Duration = Field(100_000_000, description="TCP_INFO and queue sampling interval")
    seed: Annotated[int, Field(ge=0, le=U64_MAX)] = Field(1, description="seed of the delay line's random loss and jitter")
    delayline_rtprio: Annotated[int, Field(ge=0, le=99)] = Field(
        0, description="run the delay line under SCHED_FIFO at this priority (1 to 99; 0: the normal scheduler); its releases are then less late on a busy machine"
    )
    delayed_ack: bool = Field(False, description="Linux's delayed ACKs at the receiver; default one ACK per segment (quickack), as the simulator")
    sack: bool = Field(
        True,
        description="SACK at the hosts (net.ipv4.tcp_sack in both namespaces; the flows table's `sack` says what each connection negotiated). "
        "false: Linux's recovery without SACK (NewReno's partial ACKs, RFC 6582), and the simulator's flows' `tcp.sack = false` in `testbed compare`",
    )
    tlp: bool = Field(
        True,
        description="Linux's tail loss probe at the senders (net.ipv4.tcp_early_retrans, the kernel's default 3; RFC 8985 section 7). "
        "false: 0, no probe, a lost tail waits for the retransmission timer, as in the simulator, which models no probe. "
        "(RACK, Linux's other loss detection, which finds lost retransmissions, has no such switch since 2025: docs/linux.md, \"Random loss\")",
    )
    init_cwnd: Annotated[int, Field(ge=1, le=DEFAULT_MAX_CWND)] | None = Field(
        None,
        description="the senders' initial window, 1 to 100000 segments (the simulator's max_cwnd): set on the sender's route (initcwnd), and the simulator's flows' `tcp.init_cwnd` in `testbed compare`; "
        f"default the kernel's, {LINUX_INIT_CWND} (RFC 6928), which `testbed compare` gives the simulator's flows too",
    )
    min_tso_segs: Annotated[int, Field(ge=1, le=255)] | None = Field(
        None,
        description="the senders' net.ipv4.tcp_min_tso_segs, 1 to 255: the fewest segments Linux puts in one TSO/GSO chunk however slow the flow "
        "(the last segment of a chunk often carries PSH, docs/linux.md); default the kernel's (2). The simulator sends segment by segment",
    )
    trace_rtt: bool = Field(
        False, description="record every RTT sample of the eBPF pert_adaptive connections with the srtt_0.99 it gave (Kotla Fig. 15): TestbedResults.rtt_trace"
    )
    capture_acks: bool = Field(
        False,
        description="capture the receivers' interface (tshark, headers only) and count the ACKs they sent: the segments each covered and how long "
        "the last was held (pertlab.acks; TestbedResults.acks); `testbed compare` captures the simulator's receivers too",
    )
    path: NetPath = Field(default_factory=NetPath, description="the delay line's jitter, reordering and loss, or a named path profile")
    bottleneck: Bottleneck = Field(default_factory=Bottleneck, validate_default=True)
    flows: list[FlowGroup] = Field(default_factory=lambda: [FlowGroup(cc="pert")], min_length=1)
    pert: Pert = Field(default_factory=Pert, description="PERT's parameters: the simulator's `pert` controller fields")
    pert_adaptive: PertAdaptive = Field(
        default_factory=PertAdaptive, description="adaptive PERT's parameters: the simulator's `pert-adaptive` controller fields"
    )

    _warmup_below_duration = field_validator("warmup")(_compared_to("duration", "<", format_time))

    @field_serializer("pert", "pert_adaptive", mode="wrap", when_used="json")
    def _pert_times_in_ns(self, v: Pert | PertAdaptive, handler: SerializerFunctionWrapHandler, info: FieldSerializationInfo) -> Any:
        """The simulator's models keep their times as integers of ns in JSON (the core reads them
        so, under the ``*_ns`` names); here they are written "5000000ns", which reads back under
        either name."""
        names = {f.serialization_alias: n for n, f in type(v).model_fields.items() if f.serialization_alias}
        times = _time_fields(type(v))
        out = {}
        # The handler writes the wire names (the simulator's models dump under them); they are
        # kept only when the caller asked for them.
        for key, value in handler(v).items():
            name = names.get(key, key)
            out[key if info.by_alias else name] = f"{value}ns" if name in times and isinstance(value, int) else value
        return out

    @field_validator("bottleneck", mode="before")
    @classmethod
    def _profile_fills_delay_and_rate(cls, v: object, info: ValidationInfo) -> object:
        """A path profile gives the round-trip delay (and the rate of an access link) unless the file does."""
        path = info.data.get("path")
        if path is None or path.profile is None or not isinstance(v, (dict, Bottleneck)):
            return v
        prof = PROFILES[path.profile]
        if isinstance(v, Bottleneck):
            v = v.model_dump(mode="json", exclude_unset=True)  # quantities with their units: a plain number of ns would read as seconds
        fill = {"delay": prof.rtt} | ({"rate": prof.rate} if prof.rate else {})
        return fill | v

    @model_validator(mode="after")
    def _traced_controller_present(self) -> TestbedScenario:
        if self.trace_rtt and not any(g.cc == "pert_adaptive" for g in self.flows):
            raise _field_error("trace_rtt", "traces the eBPF pert_adaptive's RTT samples: give a flow group with cc = 'pert_adaptive'")
        return self

    @field_validator("bottleneck")
    @classmethod
    def _one_loss_and_delays_in_range(cls, v: Bottleneck, info: ValidationInfo) -> Bottleneck:
        path = info.data.get("path")
        if v.delay // 2 > MAX_DELAY_NS:
            raise _field_error("delay", f"must be at most 20s (10s each way), got {format_time(v.delay)}")
        if path is not None and v.loss > 0 and path.loss.model != "none":
            raise _field_error("loss", "give bottleneck.loss or a [path.loss] table (or a path profile's loss), not both")
        return v

    @model_validator(mode="after")
    def _marking_below_the_buffer(self) -> TestbedScenario:
        k = self.bottleneck.step_k
        if k is None:
            return self
        frames = self.buffer_frames
        if k >= frames:
            raise _field_error("bottleneck.step_k", f"must be below the buffer's {frames} full-size frames, or no packet is ever marked; got {k}")
        if self.bottleneck.rate > CE_MARK_MAX_RATE_BPS:
            raise _field_error("bottleneck.step_k", f"marks at bottleneck rates up to {format_rate(CE_MARK_MAX_RATE_BPS)}, got {format_rate(self.bottleneck.rate)}")
        return self

    @field_validator("flows")
    @classmethod
    def _starts_and_stops_within_the_run(cls, v: list[FlowGroup], info: ValidationInfo) -> list[FlowGroup]:
        duration = info.data.get("duration")
        for i, g in enumerate(v):
            if duration is not None and g.start >= duration:
                message = f"must be before duration ({format_time(duration)}), got {format_time(g.start)}"
                raise PydanticCustomError("item_error", "{message}", {"index": i, "field": "start", "message": message})
            if g.stop is not None and (g.stop <= g.start or (duration is not None and g.stop > duration)):
                message = f"must lie after start ({format_time(g.start)}) and at most at duration ({format_time(duration or 0)}), got {format_time(g.stop)}"
                raise PydanticCustomError("item_error", "{message}", {"index": i, "field": "stop", "message": message})
            bottleneck = info.data.get("bottleneck")
            if g.video is not None and bottleneck is not None and g.video.rate > bottleneck.rate:
                message = f"must be at most the bottleneck's rate ({format_rate(bottleneck.rate)}), got {format_rate(g.video.rate)}"
                raise PydanticCustomError("item_error", "{message}", {"index": i, "field": "video.rate", "message": message})
        return v

    def flow_groups(self) -> list[FlowGroup]:
        """Each flow's group, in the order of the flows' ids: a group's ``count`` flows are numbered
        one after the other, as the testbed and ``compare``'s simulator number them."""
        return [g for g in self.flows for _ in range(g.count)]

    def stop_of(self, group: FlowGroup) -> int:
        """When ``group`` stops writing, ns: its ``stop``, or the end of the run."""
        return self.duration if group.stop is None else group.stop

    @field_validator("pert_adaptive")
    @classmethod
    def _adaptive_fits_the_kernel_code(cls, v: PertAdaptive) -> PertAdaptive:
        """The eBPF program takes the ranges of PertAdaptiveParams (alpha_max <= 4000, ...)."""
        try:
            PertAdaptiveParams.from_sim_config(v.model_dump(by_alias=True)).validate()
        except PertParamError as e:
            raise _kernel_error(e) from None
        return v

    @field_validator("pert")
    @classmethod
    def _fits_the_kernel_code(cls, v: Pert) -> Pert:
        """The eBPF program's fixed point takes thresholds up to the loader's bound (10^6 ms)."""
        try:
            PertParams.from_sim_config(v.model_dump(by_alias=True)).validate()
        except PertParamError as e:
            raise _kernel_error(e) from None
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

    @property
    def buffer_bytes(self) -> int:
        """The buffer in bytes (a pfifo's packets as full-size frames)."""
        kind, limit = self.queue()
        return limit if kind == "bfifo" else limit * FRAME_BYTES

    @property
    def buffer_frames(self) -> int:
        """The buffer in full-size frames (a bfifo's bytes rounded, at least 2), as the simulator's buffer in packets."""
        kind, limit = self.queue()
        return limit if kind == "pfifo" else max(2, round(limit / FRAME_BYTES))

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

    def delayline_args(self) -> list[str]:
        """The delay line's options (native/delayline.c) for one direction: half the round trip,
        the path's jitter, order and loss, the seed."""
        loss = self.path.loss.delayline_args() or ([f"loss={self.bottleneck.loss!r}"] if self.bottleneck.loss else [])
        rt = [f"rtprio={self.delayline_rtprio}"] if self.delayline_rtprio else []
        return [f"delay_us={self.bottleneck.delay / 2000:.12g}", *self.path.jitter.delayline_args(), f"order={self.path.order}", *loss, f"seed={self.seed}", *rt]

    @property
    def loss_rate(self) -> float:
        """The configured loss probability per packet, each direction."""
        return self.path.loss.stationary_rate if self.path.loss.model != "none" else self.bottleneck.loss

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
    return TestbedScenario.parse(parse_toml(text, path))
