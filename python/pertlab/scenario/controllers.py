"""Congestion controllers and their parameters (the core's ``tcp/cc/``), one model per
controller, told apart by ``kind``: :data:`CcSpec`."""

import re
from typing import Annotated, Literal, Union

from pydantic import Field, ValidationInfo, field_validator

from ..units import format_time
from .base import U32, Duration, PiCoefficient, Time, _compared_to, _Model, _unit


class Reno(_Model):
    """Reno/NewReno window rules (AIMD 1, 1/2); recovery is chosen by ``tcp.sack``."""

    kind: Literal["reno"] = "reno"


#: Where a delay-based controller's base RTT comes from (the core's ``tcp::cc::base_rtt``).
BaseRtt = Literal["observed", "propagation"]


class Vegas(_Model):
    """TCP Vegas; thresholds in packets queued in the network (ns-2 defaults)."""

    kind: Literal["vegas"] = "vegas"
    alpha: U32 = Field(1, description="grow the window below this many queued packets")
    beta: U32 = Field(3, description="shrink the window above this many queued packets", validate_default=True)
    gamma: U32 = Field(1, description="slow start ends above this many queued packets")
    slow_start_every_other_rtt: bool = Field(True, description="grow in slow start every other RTT (Brakmo et al.)")
    base_rtt: BaseRtt = Field(
        "observed",
        description="baseRTT: the minimum RTT measured (Brakmo et al., Hua 2002 eq. 3.1), or the path's propagation plus "
        "transmission delays computed when the flow is built (Hua's d~, eq. 3.7; never lowered by samples)",
    )

    _beta_at_least_alpha = field_validator("beta")(_compared_to("alpha", ">="))


def _pert_base_rtt():
    """Every PERT's ``base_rtt`` (``propagation`` is an oracle: the papers measure P)."""
    return Field(
        "observed",
        description="P, the propagation-delay estimate: the smallest RTT sample (the papers), or the path's propagation plus "
        "transmission delays computed when the flow is built (an oracle that tests what a measured P costs); not with min_rtt_window",
    )


def _given_p_has_no_window(cls, v: str, info: ValidationInfo) -> str:
    """Every PERT's ``base_rtt`` check: a P given as the path's RTT has no window to measure it over."""
    if v == "propagation" and info.data.get("min_rtt_window") is not None:
        raise ValueError('"propagation" gives P as the path\'s RTT, which no window measures: unset min_rtt_window, or base_rtt "observed"')
    return v


def _min_rtt_window():
    """Every PERT's ``min_rtt_window`` (an extension: the papers keep the smallest sample)."""
    return _unit(
        "min_rtt_window", "min_rtt_window_ns", None, "P over a sliding window (Linux's tcp_min_rtt) instead of the smallest RTT sample; unset: the smallest (the papers)"
    )


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
    min_rtt_window: Duration | None = _min_rtt_window()
    base_rtt: BaseRtt = _pert_base_rtt()

    _given_p = field_validator("base_rtt")(_given_p_has_no_window)

    _t_max_above_t_min = field_validator("t_max")(_compared_to("t_min", ">", format_time))

    _end_above_t_max = field_validator("t_curve_end")(_compared_to("t_max", ">", format_time))


class PertPi(_Model):
    """PERT/PI (SIGCOMM 2007, Section 6): PERT's signal and response with the PI
    law on the queueing delay; router PI's a, b scaled by the capacity."""

    kind: Literal["pert-pi"] = "pert-pi"
    target_delay: Time = _unit("target_delay", "target_delay_ns", "3ms", "target queueing delay T_q* (Section 6.1)")
    a: PiCoefficient = Field(1.822e-5, description="router PI's a (per packet of queue), ns-2 default; in [0, 1]")
    b: PiCoefficient = Field(1.816e-5, description="router PI's b (per packet of queue), ns-2 default; in [0, 1]")
    capacity_pps: Annotated[float, Field(gt=0.0)] = Field(
        description="bottleneck capacity in packets/s that scales a and b (Section 6.1); builders set it"
    )
    w_hz: Annotated[float, Field(gt=0.0, le=1e9)] = Field(170.0, description="sampling frequency of the law, Hz (router PI's)")
    decrease: Annotated[float, Field(gt=0.0, lt=1.0)] = Field(0.35, description="fraction of the window an early response removes")
    srtt_weight: Annotated[float, Field(gt=0.0, lt=1.0)] = Field(0.99, description="history weight of the smoothed RTT")
    respond_in_slow_start: bool = Field(
        True, description="early responses in slow start too, as PERT/RED; false lets slow start wind the PI integral up (pert_pi.rs, Wind-up)"
    )
    min_rtt_window: Duration | None = _min_rtt_window()
    base_rtt: BaseRtt = _pert_base_rtt()

    _given_p = field_validator("base_rtt")(_given_p_has_no_window)


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
    min_rtt_window: Duration | None = _min_rtt_window()
    base_rtt: BaseRtt = _pert_base_rtt()

    _given_p = field_validator("base_rtt")(_given_p_has_no_window)

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
    variant: Literal["rfc9438", "linux"] = Field(
        "rfc9438",
        description="rfc9438: ssthresh = beta cwnd rounded to the nearest segment, the Reno estimate at 1 segment per RTT past cwnd_prior; "
        "linux: Linux's tcp_cubic.c, ssthresh and the fast-convergence W_max in integers rounded down (a window of 4 goes to 2), the Reno "
        "estimate at alpha_cubic per RTT throughout, and the growth (bictcp_update) in the kernel's integers and jiffies",
    )
    hz: Literal[100, 250, 300, 1000] = Field(250, description="the linux variant's clock, jiffies per second (Linux's CONFIG_HZ)")
    hystart: bool = Field(
        False, description="Linux's HyStart: slow start ends by ACK train or delay increase before the first loss (variant = linux only; on in Linux)"
    )

    @field_validator("hystart")
    @classmethod
    def _hystart_is_linuxs(cls, v: bool, info: ValidationInfo) -> bool:
        if v and info.data.get("variant") != "linux":
            raise ValueError('is Linux\'s HyStart: it needs variant = "linux" (the rfc9438 variant\'s slow start is standard)')
        return v


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


class Jcc(_Model):
    """Joint Congestion Control (Hua 2002, Chapter 4): one probe per RTT carries the path's
    largest RED code R (eq. 4.2, "jcc-red" routers); AIED window law (eq. 4.3). Probabilities."""

    kind: Literal["jcc"] = "jcc"
    alpha: Annotated[float, Field(ge=0.0, lt=1.0)] = Field(0.0, description="eq. 4.3's alpha: grow by one per RTT at or below it (thesis: 0, and 0.02)")
    beta: Annotated[float, Field(gt=0.0, le=1.0)] | None = Field(
        None, description="initial beta, in (alpha, max_p]; unset: max_p (Section 4.2.4); reset to the last R on every loss", validate_default=True
    )
    max_p: Annotated[float, Field(gt=0.0, le=1.0)] = Field(0.1, description="the routers' RED max_p, which codes are scaled to (ns-2's 0.1), above alpha", validate_default=True)
    bits: Annotated[int, Field(ge=1, le=16)] = Field(8, description="m, bits of R in the header (must match the routers')")
    halve_on_loss: bool = Field(False, description="halve on every loss as Reno (default: only a lost probe halves)")

    _beta_above_alpha = field_validator("beta")(_compared_to("alpha", ">"))

    _max_p_above_alpha = field_validator("max_p")(_compared_to("alpha", ">"))

    _beta_at_most_max_p = field_validator("max_p")(_compared_to("beta", ">="))


class Surathkal(_Model):
    """TCP Surathkal (Tahiliani 2013 Ch. 4.3): Reno growth; once per window cwnd *= 1 - alpha/2,
    alpha the fraction of packets marked in a window (XECN feedback: ``tcp.ecn_feedback = "xecn"``)."""

    kind: Literal["surathkal"] = "surathkal"
    alpha_timing: Literal["previous_window", "end_of_window"] = Field(
        "previous_window",
        description="previous_window: at the first mark, the alpha of the last completed window (Option A); "
        "end_of_window: CWR at the first mark, the reduction when that window ends with its alpha (Option B)",
    )
    loss_response: Literal["halve", "xecn_only"] = Field(
        "halve", description="loss by duplicate ACKs/SACK halves the window, or leaves it (only XECN marks reduce)"
    )


class Dctcp(_Model):
    """DCTCP (RFC 8257): alpha = (1 - g) alpha + g F per window, cwnd *= 1 - alpha/2 on ECE
    (``tcp.ecn_feedback = "dctcp"``); Reno's halving on loss."""

    kind: Literal["dctcp"] = "dctcp"
    g: Annotated[float, Field(gt=0.0, le=1.0)] = Field(1 / 16, description="EWMA weight of a window's marked fraction (RFC 8257: 1/16)")
    init_alpha: Annotated[float, Field(ge=0.0, le=1.0)] = Field(1.0, description="alpha before the first window completes (Linux: 1)")


class Scalable(_Model):
    """Scalable TCP (Kelly 2003): cwnd += a per ACK (Standard TCP below 1/a segments); cwnd -= b cwnd on loss."""

    kind: Literal["scalable"] = "scalable"
    a: _OpenUnit = Field(0.01, description="window increase per ACKed segment")
    b: _OpenUnit = Field(0.125, description="fraction of the window given up on loss")


class Westwood(_Model):
    """TCP Westwood+ (Grieco and Mascolo 2004; Linux): after a loss ssthresh = bandwidth estimate x RTT_min."""

    kind: Literal["westwood"] = "westwood"


class Xcp(_Model):
    """XCP's end host (Katabi, Handley, Rohrs, SIGCOMM 2002, Section 3.2): a congestion header on every
    data segment, cwnd = max(cwnd + H_feedback, s) per ACK; Reno's halving on loss. Needs an ``xcp``
    queue (the router) on its data path."""

    kind: Literal["xcp"] = "xcp"


class Agent(_Model):
    """A window set from outside between the steps of a run (a learning agent: :mod:`pertlab.gym`,
    :meth:`pertlab.Simulation.set_cwnd`); no growth or reduction of its own, a timeout still sets one segment."""

    kind: Literal["agent"] = "agent"


#: ``module:Class``: a dotted path of identifiers, a colon, an identifier (ASCII, as the core checks).
_TARGET = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")


def check_target(value: str) -> str:
    """``value`` if it is ``module:Class``, else a ValueError saying the form."""
    if not isinstance(value, str) or not _TARGET.fullmatch(value):
        raise ValueError(f"must be module:Class (a dotted module path importable from sys.path or the scenario's directory, a colon, a class name), as in reno:Reno; got {value!r}")
    return value


class Py(_Model):
    """A controller written in Python (docs/python-cc.md): the class ``target`` names, with the hooks of the
    core's trait; run inside the simulator for the long flows that name it (not for web transfers).
    On the command line and as a string: ``"py:module:Class"``."""

    kind: Literal["py"] = "py"
    target: str = Field(description="module:Class, the module importable from sys.path or the scenario file's directory")

    _target_form = field_validator("target")(classmethod(lambda cls, v: check_target(v)))


CcSpec = Annotated[
    Union[Reno, Vegas, Pert, PertPi, PertAdaptive, Hstcp, Cubic, Compound, Illinois, Fast, Jcc, Surathkal, Dctcp, Scalable, Westwood, Xcp, Agent, Py],
    Field(discriminator="kind"),
]
