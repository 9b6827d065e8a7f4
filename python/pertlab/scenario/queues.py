"""Queue disciplines and their parameters: DropTail, the RED family (one ``red`` section),
PI, PIE and CoDel, with the papers' and RFCs' defaults, and the multi-class schedulers
(strict priority, WTP, S-WTP, BPR; one ``sched`` section) (the core's ``queue/``)."""

from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator

from ..kinds import CLASS_KINDS, QUEUE_KINDS
from .controllers import check_target
from .base import _unit, Count, Duration, NonNegative, PacketSize, PiCoefficient, Probability, Size, Time, _Model, MAX_PACKET_BYTES, U32



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
    mean_pkt_size: PacketSize = Field(500, description="bytes per packet for C and for byte mode")
    idle_pkt_size: Annotated[int, Field(ge=0, le=MAX_PACKET_BYTES)] = Field(0, description="bytes per packet for the idle decay; 0: mean_pkt_size")
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

    @field_validator("max_th")
    @classmethod
    def _max_th_above_min_th(cls, v: float | None, info: ValidationInfo) -> float | None:
        # The core checks the same (queue/red.rs, RedParams::validate); here too, so that a
        # builder's ``aqm`` or a scenario file hears of it when it is read, not when it runs.
        min_th = info.data.get("min_th")
        if v and not min_th:
            raise ValueError("an explicit max_th needs an explicit min_th (an automatic min_th depends on the link rate); give min_th too, or leave max_th unset for 3 x min_th")
        if v and v < min_th:
            raise ValueError(f"must be at least min_th ({min_th:g}), got {v:g}")
        return v

    @field_validator("bottom")
    @classmethod
    def _bottom_below_top(cls, v: float, info: ValidationInfo) -> float:
        top = info.data.get("top")
        if top is not None and v > top:
            raise ValueError(f"must lie in [0, top ({top})], got {v}")
        return v


class PiConfig(_Model):
    """Router PI controller (Hollot, Misra, Towsley, Gong 2001; ns-2 ``Queue/PI`` defaults)."""

    a: PiCoefficient = Field(1.822e-5, description="coefficient of q - qref, in [0, 1]")
    b: PiCoefficient = Field(1.816e-5, description="coefficient of q_old - qref, in [0, 1]")
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
    mean_pkt_size: PacketSize = Field(1000, description="MEAN_PKTSIZE of the safeguard, bytes")
    use_ecn: bool = Field(False, description="mark ECN-capable packets while drop_prob is low")
    mark_ecn_threshold: Probability = Field(0.1, description="marking stops at this drop probability")
    cap_drop_adjustment: bool = Field(True, description="cap an update at +0.02 once drop_prob >= 0.1")
    delay: Literal["sojourn", "queue_over_rate"] = Field("sojourn", description="how the queueing delay is measured")


class CodelConfig(_Model):
    """CoDel (RFC 8289) parameters, with the RFC's defaults."""

    target: Duration = _unit("target", "target_ns", 5_000_000, "TARGET")
    interval: Duration = _unit("interval", "interval_ns", 100_000_000, "INTERVAL")
    max_packet_bytes: PacketSize = Field(1500, description="MAXPACKET, bytes")
    use_ecn: bool = Field(False, description="mark ECN-capable packets instead of dropping them")


class JccQueueConfig(_Model):
    """The JCC router (Hua 2002, eq. 4.4): RED (the ``red`` section) coding its level in m bits."""

    bits: Annotated[int, Field(ge=1, le=16)] = Field(8, description="m, bits of R in the header (thesis: unspecified)")


class StepConfig(_Model):
    """Step marking (DCTCP's switch, Alizadeh et al. 2010; RFC 8257 3.1): ECN-capable arrivals are
    marked CE while K or more packets are queued; nothing is dropped early."""

    k_pkts: Count = Field(65, description="marking threshold K, packets (the DCTCP paper's 10 Gbps setting); at least 1")


class XcpQueueConfig(_Model):
    """The XCP router (Katabi, Handley, Rohrs, SIGCOMM 2002, Section 3.5) over a DropTail FIFO: per
    control interval d (the flows' average RTT) the aggregate feedback phi = alpha d S - beta Q, of which
    the fairness controller shuffles gamma of the traffic; per-packet feedback in the XCP header."""

    alpha: Annotated[float, Field(gt=0.0, le=1.0)] = Field(0.4, description="weight of the spare bandwidth S in phi (Section 3.5)")
    beta: Annotated[float, Field(gt=0.0, le=1.0)] = Field(0.226, description="weight of the persistent queue Q in phi (Section 3.5; alpha^2 sqrt 2)")
    gamma: Annotated[float, Field(ge=0.0, le=1.0)] = Field(0.1, description="fraction of the input traffic shuffled per interval (Section 3.5)")
    initial_interval: Duration = _unit(
        "initial_interval", "initial_interval_ns", 100_000_000, "control interval until a packet tells its RTT (our choice; the paper is silent)"
    )


class SchedConfig(_Model):
    """Multi-class scheduling (Hua's thesis, CUHK 2002, Chapter 5): one FIFO and one buffer of
    the queue's limit per class; class 0 is the lowest priority."""

    weights: Annotated[list[Annotated[float, Field(gt=0.0)]], Field(min_length=1, max_length=256)] = Field(
        default_factory=lambda: [1.0, 2.0, 4.0],
        description="b_i per class, strictly increasing; their number is the number of classes (target ratio b_{i+1}/b_i)",
    )
    global_update: bool = Field(True, description="S-WTP's global update (off only to show why it exists)")
    window_k: Count = Field(1000, description="departures per window of the windowed delay ratios")
    trace_packets: U32 | None = Field(
        None, description="departures whose waits are kept one by one from the measurement window's start (Fig 5.3; Results.class_trace); none unset"
    )

    @field_validator("weights")
    @classmethod
    def _increasing(cls, v: list[float]) -> list[float]:
        for i in range(1, len(v)):
            if v[i] <= v[i - 1]:
                raise ValueError(f"must increase with the class (class 0 is the lowest priority), got {v[i]} at class {i} after {v[i - 1]}")
        return v




#: The buffer of a queue that gives neither limit, packets (the core's `QueueSpec::DEFAULT_LIMIT_PKTS`).
DEFAULT_LIMIT_PKTS = 1000


class QueueSpec(_Model):
    """A queue discipline and its buffer (the core's default buffer is :data:`DEFAULT_LIMIT_PKTS`). Kind ``py``
    is a discipline written in Python, the class ``target`` names (docs/python-aqm.md)."""

    kind: Literal[QUEUE_KINDS] = "droptail"  # type: ignore[valid-type]
    target: str | None = Field(
        None, description="kind py: module:Class, the module importable from sys.path or the scenario file's directory", validate_default=True
    )
    limit_pkts: Count | None = Field(None, description="buffer in packets (exclusive with limit_bytes)")
    limit_bytes: Size | None = Field(None, description="buffer in bytes, e.g. '64KB'")
    red: RedConfig = Field(default_factory=RedConfig, description="the RED family: red, ared, reared, fared, cared, feng, nlred")
    pi: PiConfig = Field(default_factory=PiConfig, validate_default=True)
    pie: PieConfig = Field(default_factory=PieConfig)
    codel: CodelConfig = Field(default_factory=CodelConfig)
    jcc: JccQueueConfig = Field(default_factory=JccQueueConfig, description="jcc-red: the code's bits (RED's parameters are in red)")
    step: StepConfig = Field(default_factory=StepConfig, description="kind step: DCTCP's marking threshold K", validate_default=True)
    xcp: XcpQueueConfig = Field(default_factory=XcpQueueConfig, description="kind xcp: the XCP router's controllers")
    sched: SchedConfig = Field(default_factory=SchedConfig, description="the multi-class kinds: priority, wtp, swtp, bpr")

    def classes(self) -> int | None:
        """The number of classes of a multi-class queue, None for a single FIFO."""
        return len(self.sched.weights) if self.kind in CLASS_KINDS else None

    @field_validator("target")
    @classmethod
    def _target_of_py(cls, v: str | None, info: ValidationInfo) -> str | None:
        kind = info.data.get("kind")
        if kind == "py" and v is None:
            raise ValueError("a \"py\" queue names its class: module:Class, as in red:Red")
        if kind != "py" and v is not None and kind is not None:
            raise ValueError(f"only a \"py\" queue names a class; this queue's kind is {kind!r}")
        return v if v is None else check_target(v)

    @field_validator("step")
    @classmethod
    def _k_within_buffer(cls, v: StepConfig, info: ValidationInfo) -> StepConfig:
        limit = info.data.get("limit_pkts")
        if info.data.get("kind") == "step" and limit is not None and v.k_pkts > limit:
            raise ValueError(f"K = {v.k_pkts} packets is more than the buffer holds ({limit} packets, limit_pkts): the queue would never mark; make k_pkts at most limit_pkts")
        return v

    @field_validator("pi")
    @classmethod
    def _qref_below_buffer(cls, v: PiConfig, info: ValidationInfo) -> PiConfig:
        # The queue never exceeds the buffer, so with qref at or above it q - qref is never
        # positive and PI's integral only falls (test_aqm_kinds: nearly all drops are overflows).
        limit = info.data.get("limit_pkts")
        if info.data.get("kind") == "pi" and limit is not None and v.qref >= limit:
            raise ValueError(
                f"qref = {v.qref:g} packets is not below the buffer ({limit} packets, limit_pkts): the queue never exceeds "
                "its reference, so PI's probability stays near 0 and the queue drops on overflow, as drop-tail; make qref less than limit_pkts"
            )
        return v

    @field_validator("limit_bytes")
    @classmethod
    def _one_limit(cls, v: int | None, info: ValidationInfo) -> int | None:
        if v is not None and info.data.get("limit_pkts") is not None:
            raise ValueError("give limit_pkts or limit_bytes, not both")
        return v
