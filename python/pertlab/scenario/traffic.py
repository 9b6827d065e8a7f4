"""What sends: long-lived TCP flows (with their TCP options), UDP sources and web sessions."""

import math
from typing import Annotated, Any, Literal, Union

from pydantic import AliasChoices, BeforeValidator, Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ..kinds import CC_KINDS
from ..units import format_time
from .base import U32, Count, Duration, PacketSize, Rate, Time, _compared_to, _Model, _unit
from .controllers import CcSpec, Reno

#: IPv4 + TCP headers without options, bytes: a TCP packet of ``packet_size`` bytes carries
#: ``packet_size - TCP_IP_HEADER_BYTES`` of payload (the core's ``TCP_IP_HEADER_BYTES``).
TCP_IP_HEADER_BYTES = 40

#: Largest receive window, bytes of payload: 2^30 (RFC 7323 2.3, window scale 14; the core's
#: ``tcp::MAX_WINDOW_BYTES``): ``max_cwnd`` segments of payload must fit in it.
MAX_WINDOW_BYTES = 2**30
#: ``max_cwnd`` when none is given, segments (the core's default), where that many segments fit in
#: :data:`MAX_WINDOW_BYTES` (packets up to 10,777 bytes): :func:`default_max_cwnd`.
DEFAULT_MAX_CWND = 100_000


def most_segments(packet_size: int) -> int:
    """The largest ``max_cwnd`` of packets of ``packet_size`` bytes: :data:`MAX_WINDOW_BYTES` of payload."""
    return MAX_WINDOW_BYTES // (packet_size - TCP_IP_HEADER_BYTES)


def default_max_cwnd(packet_size: int) -> int:
    """``max_cwnd`` when none is given: :data:`DEFAULT_MAX_CWND`, or as many segments as a window
    holds when that is fewer (packets above 10,777 bytes)."""
    return min(DEFAULT_MAX_CWND, most_segments(packet_size))


#: A service class at multi-class queues (the packet's ``class: u8``; 0 is the lowest priority).
Class = Annotated[int, Field(ge=0, le=255)]


def _class_field() -> Any:
    return Field(0, validation_alias=AliasChoices("class", "class_"), serialization_alias="class", description="service class at multi-class queues (0 = lowest priority)")


def class_rates(link_rate: int, utilization: float, split: list[float]) -> list[int]:
    """Per-class rates (bit/s) that load a link of ``link_rate`` bit/s to ``utilization`` split
    among classes by ``split`` (fractions summing to 1): Hua's thesis section 5.4. Raises
    :class:`ScenarioError` naming ``utilization`` or ``split``."""
    from .errors import ScenarioError

    if not (utilization > 0 and math.isfinite(utilization)):
        raise ScenarioError([("utilization", f"must be a positive number, got {utilization}")])
    for i, f in enumerate(split):
        if not (f >= 0 and math.isfinite(f)):
            raise ScenarioError([(f"split[{i}]", f"must be zero or positive, got {f}")])
    if not split or abs(sum(split) - 1.0) > 1e-6:
        raise ScenarioError([("split", f"the class load fractions must sum to 1, got {sum(split)} from {len(split)} classes")])
    return [round(link_rate * utilization * f) for f in split]


#: Qian's minPktPerAck: one segment per ACK after a start, a loss or a timeout (fixed, as in the core).
MIN_SEGMENTS_PER_ACK = 1


class AdaptiveAck(_Model):
    """Qian 2011 (IV.A) adaptive delayed ACK: 1 to 4 segments per ACK, ACK timer 2 x the expected inter-arrival time."""

    max_segments: U32 = Field(4, description="maxPktPerAck: most segments one ACK covers (Qian: 4), at least minPktPerAck (1)")
    ewma_weight: float = Field(0.9, ge=0.0, lt=1.0, description="alpha: history weight of the inter-arrival EWMA (Qian: 0.9)")
    timeout_factor: float = Field(
        2.0, gt=0.0, le=1000.0, description="beta: ACK timer and lateness threshold, x the expected inter-arrival time (Qian: 2.0)"
    )

    @field_validator("max_segments")
    @classmethod
    def _at_least_min(cls, v: int) -> int:
        if v < MIN_SEGMENTS_PER_ACK:
            raise ValueError(f"must be at least the minimum segments per ACK ({MIN_SEGMENTS_PER_ACK}), got {v}")
        return v


class LinuxAck(_Model):
    """Linux's delayed ACK (ack_policy = "linux"): quickack mode, the ACK-timeout estimator, the timer on jiffies."""

    hz: Literal[100, 250, 300, 1000] = Field(250, description="the kernel's CONFIG_HZ: the delayed-ACK timer counts jiffies of 1 / hz s (Debian's: 250)")
    quickacks: int = Field(
        16, ge=0, le=16, description="ACKs sent at once in quickack mode (Linux: min(rcv_wnd / 2 MSS, TCP_MAX_QUICKACKS = 16), 16 from a 64 KB window); 0: none"
    )


ACK_POLICIES = ("every", "delayed", "adaptive", "linux")


class Pacing(_Model):
    """Sender pacing (Qian 2011, IV.C): consecutive segments leave srtt / cwnd apart, in the states chosen."""

    enabled: bool = Field(False, description="pace this flow's data segments")
    open: bool = Field(True, description="pace in the Open state (slow start and congestion avoidance)")
    disorder: bool = Field(True, description="pace in Disorder (duplicate ACKs, before recovery)")
    cwr: bool = Field(True, description="pace in CWR (window reduction after an ECN echo)")
    recovery: bool = Field(True, description="pace in fast recovery")
    loss: bool = Field(True, description="pace in Loss (after a retransmission timeout)")


class TcpConfig(_Model):
    """Options of a TCP connection; defaults are the core's (ns-2 / RFC values)."""

    packet_size: PacketSize = Field(1500, description="segment size on the wire, headers included, bytes")
    sack: bool = Field(True, description="SACK loss recovery (RFC 6675); false: NewReno (RFC 6582)")
    ecn: bool = Field(False, description="ECN-capable flow (RFC 3168)")
    ecn_feedback: Literal["rfc3168", "xecn", "dctcp"] = Field(
        "rfc3168",
        description="how CE marks return: rfc3168 (ECE until CWR), xecn (Count Codepoint per CE, Tahiliani 2013), "
        "dctcp (ECE per CE segment, RFC 8257); xecn and dctcp need ecn",
    )
    xecn_count_lost_acks: bool = Field(
        False, description="xecn only: count the ACKs inferred lost before an ECE ACK as marks (default: Algorithm 6's single increment)"
    )
    init_cwnd: Count = Field(2, description="initial window, segments")
    max_cwnd: Count = Field(
        DEFAULT_MAX_CWND,
        description="receiver window, segments, at most 2^30 bytes of payload (RFC 7323 2.3); "
        "default 100,000, or as many as 2^30 bytes hold of segments above 10,777 bytes",
    )
    dupthresh: Count = 3
    limited_transmit: bool = True
    initial_rto: Duration = _unit("initial_rto", "initial_rto_ns", 1_000_000_000)
    min_rto: Duration = _unit("min_rto", "min_rto_ns", 200_000_000)
    rto_min_on: Literal["variance", "rto"] = Field(
        "variance", description="min_rto bounds SRTT's margin (Linux: RTO >= SRTT + min_rto) or the whole RTO (RFC 6298, ns-2)"
    )
    rto_estimator: Literal["rfc6298", "linux"] = Field(
        "rfc6298",
        description="the RTO's estimator: RFC 6298 with per-RTT gains (RFC 7323 Appendix G), or Linux's tcp_rtt_estimator "
        '(full gains per sample, the largest deviation of each round trip; needs rto_min_on = "variance")',
    )
    max_rto: Duration = _unit("max_rto", "max_rto_ns", "60s")
    clock_granularity: Time = _unit("clock_granularity", "clock_granularity_ns", 1_000_000)
    delayed_ack: bool = Field(False, description='one ACK per two segments (RFC 5681); the same as ack_policy = "delayed"')
    ack_policy: Literal["every", "delayed", "adaptive", "linux"] = Field(
        "every", description="receiver ACK policy: every segment, classic delayed ACK, Qian's adaptive delayed ACK, or Linux's delayed ACK"
    )
    adaptive_ack: AdaptiveAck = Field(default_factory=AdaptiveAck, description='parameters of ack_policy = "adaptive"')
    linux_ack: LinuxAck = Field(default_factory=LinuxAck, description='parameters of ack_policy = "linux"')
    delayed_ack_timeout: Duration = _unit("delayed_ack_timeout", "delayed_ack_timeout_ns", 100_000_000, 'timer of ack_policy = "delayed"')
    ack_size: Count = 40
    rtt_noise: Time = _unit(
        "rtt_noise", "rtt_noise_ns", 0, "mean of the uniform noise U(0, 2 x mean) added to each RTT sample; 0: none"
    )
    pacing: Pacing = Field(default_factory=Pacing, description="sender pacing, srtt / cwnd between segments (Qian 2011, IV.C)")
    cwnd_validation: bool = Field(
        False, description="grow the window only while the flow uses it, as Linux's tcp_is_cwnd_limited (default: on every ACK, as ns-2)"
    )
    ts_echo: Literal["earliest", "latest"] = Field(
        "earliest",
        description="timestamp an ACK echoes: earliest (RFC 7323; a delayed ACK's sample includes the hold) or latest (ns-2's sinks)",
    )
    rtt_samples: Literal["echo", "linux"] = Field(
        "echo",
        description=(
            "where RTT samples come from: echo (the echoed timestamp gives one, to the RTO estimator and the "
            "controller alike, as ns-2) or linux (from the sender's send times, as Linux's tcp_clean_rtx_queue: "
            "the estimator takes the first newly acknowledged segment's, the controller the last one's; SACKs too)"
        ),
    )
    rtt_correction: bool = Field(
        False, description="subtract the self-induced delay of ACK trains from each RTT sample (Qian 2011, eqs. 5.1-5.4); not with rtt_samples = linux"
    )
    overhead: Time = _unit(
        "overhead",
        "overhead_ns",
        0,
        "ns-2's overhead_: a sender with segments to send waits U(0, overhead), then sends them; breaks drop-tail phase effects; 0: none",
    )
    prr: bool = Field(
        False,
        description=(
            "Proportional Rate Reduction (RFC 6937, as Linux's tcp_cwnd_reduction): in fast recovery and an ECN "
            "reduction the window follows the data delivered down to ssthresh (default: cut to ssthresh at once, as ns-2)"
        ),
    )
    rack_retransmits: bool = Field(
        False,
        description=(
            "Linux's RACK (RFC 8985) on retransmissions: one still in flight is lost once a segment sent after it is "
            "delivered, and is sent again (default: only the retransmission timer finds it, as RFC 6675 and ns-2); "
            "needs sack = true and rtt_samples = linux"
        ),
    )
    rack: bool = Field(
        False,
        description=(
            "Linux's RACK (RFC 8985) on every segment, in place of RFC 6675's DupThresh (Linux's only loss detection with "
            "SACK since 2025): a segment is lost once one sent after it is delivered and the reordering window has passed "
            "(min_rtt / 4 while fewer than dupthresh segments are SACKed, else 0), waited for by a timer on the jiffies of "
            "linux_ack.hz; includes rack_retransmits; needs sack = true and rtt_samples = linux"
        ),
    )
    tso_segs: int = Field(
        1,
        ge=1,
        le=255,
        description=(
            "Linux's TSO chunks (net.ipv4.tcp_min_tso_segs, 2 in Linux): of the new segments sent at one instant, every "
            "tso_segs-th carries PSH, which a Linux receiver (ack_policy = linux) acknowledges at once when alone; 1: none"
        ),
    )

    @field_validator("packet_size")
    @classmethod
    def _above_header(cls, v: int) -> int:
        if v <= TCP_IP_HEADER_BYTES:
            raise ValueError(f"must exceed the {TCP_IP_HEADER_BYTES}-byte TCP/IP header, got {v}")
        return v

    _rto_bounds = field_validator("max_rto")(_compared_to("min_rto", ">=", format_time))

    @field_validator("ecn_feedback")
    @classmethod
    def _feedback_needs_ecn(cls, v: str, info: ValidationInfo) -> str:
        if v != "rfc3168" and not info.data.get("ecn", False):
            raise ValueError(f"{v} feedback needs an ECN-capable flow (ecn = true); without ECN only the default rfc3168 is allowed")
        return v

    @field_validator("xecn_count_lost_acks")
    @classmethod
    def _xecn_only(cls, v: bool, info: ValidationInfo) -> bool:
        if v and info.data.get("ecn_feedback") != "xecn":
            raise ValueError('applies to ecn_feedback = "xecn" only')
        return v

    @field_validator("rto_estimator")
    @classmethod
    def _linux_bounds_the_margin(cls, v: str, info: ValidationInfo) -> str:
        if v == "linux" and info.data.get("rto_min_on") != "variance":
            raise ValueError('"linux" needs rto_min_on = "variance" (Linux\'s min_rto bounds the margin above SRTT; "rto" is RFC 6298\'s bound)')
        return v

    @field_validator("rtt_correction")
    @classmethod
    def _echo_to_correct(cls, v: bool, info: ValidationInfo) -> bool:
        if v and info.data.get("rtt_samples") == "linux":
            raise ValueError('corrects the echoed timestamp\'s sample (Qian 2011, eq. 5.4), which rtt_samples = "linux" does not take; use rtt_samples = "echo" with it')
        return v

    @field_validator("rack_retransmits", "rack")
    @classmethod
    def _rack_reads_sacks_and_send_times(cls, v: bool, info: ValidationInfo) -> bool:
        if v and not (info.data.get("sack") and info.data.get("rtt_samples") == "linux"):
            raise ValueError(
                "needs SACK (sack = true, not newreno) and Linux's RTT samples (rtt_samples = \"linux\", --rtt-samples linux): "
                "RACK reads SACKs and the segments' send times, and Linux runs it only with SACK"
            )
        return v

    @field_validator("ack_policy")
    @classmethod
    def _one_delayed_ack(cls, v: str, info: ValidationInfo) -> str:
        if v in ("adaptive", "linux") and info.data.get("delayed_ack"):
            raise ValueError('delayed_ack = true means ack_policy = "delayed"; give one of them')
        return v

    @model_validator(mode="after")
    def _window_fits(self) -> "TcpConfig":
        """``max_cwnd`` segments of payload fit in a window of 2^30 bytes, as the core requires:
        unset, it is :func:`default_max_cwnd` of the packet size (unchanged where 100,000 fit);
        set, a larger one is an error naming both."""
        most = most_segments(self.packet_size)
        if "max_cwnd" not in self.model_fields_set:
            self.__dict__["max_cwnd"] = default_max_cwnd(self.packet_size)
        elif self.max_cwnd > most:
            message = (
                f"must be at most {most} segments with packet_size {self.packet_size} B: a window holds at most 2^30 bytes "
                f"of payload (RFC 7323 2.3), {self.packet_size - TCP_IP_HEADER_BYTES} bytes a segment; got {self.max_cwnd}"
            )
            raise PydanticCustomError("field_error", "{message}", {"field": "max_cwnd", "message": message})
        return self


def _cc_shorthand(value: Any) -> Any:
    """``"pert"`` -> ``{"kind": "pert"}``; ``"py:module:Class"`` -> ``{"kind": "py", "target": "module:Class"}``."""
    if isinstance(value, str) and value.startswith("py:"):
        return {"kind": "py", "target": value[3:]}
    return {"kind": value} if isinstance(value, str) else value


#: At most this many further start-up delays per video stream (the core's ``MAX_STARTUP_DELAYS``).
MAX_STARTUP_DELAYS = 64


class VideoSpec(_Model):
    """A live video source over TCP (Qian 2011): the application writes ``rate`` of payload at a constant rate,
    one segment at a time; the client plays segment i at its generation time + ``startup_delay``."""

    rate: Rate = _unit("rate", "rate_bps", description="video bit rate mu, payload (Qian: 300 kb/s); at most the sender's access link rate")
    startup_delay: Time = _unit("startup_delay", "startup_delay_ns", description="the client's start-up delay (Qian: 1 to 30 s)")
    startup_delays: list[Time] = _unit(
        "startup_delays", "startup_delays_ns", [],
        f"further start-up delays, strictly increasing, at most {MAX_STARTUP_DELAYS}, at which the client also counts late segments "
        "(Qian's Figs 7, 8, 10-12 sweep 1 to 30 s); results: Results.video_playout",
    )  # fmt: skip

    @field_validator("startup_delays")
    @classmethod
    def _increasing(cls, v: list[int]) -> list[int]:
        if len(v) > MAX_STARTUP_DELAYS:
            raise ValueError(f"at most {MAX_STARTUP_DELAYS} delays, got {len(v)}")
        for j in range(1, len(v)):
            if v[j] <= v[j - 1]:
                message = f"must be strictly increasing, got {format_time(v[j])} after {format_time(v[j - 1])}"
                raise PydanticCustomError("item_error", "{message}", {"index": j, "message": message})
        return v


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
    class_: Class = _class_field()
    tcp: TcpConfig = Field(default_factory=TcpConfig)
    video: VideoSpec | None = Field(None, description="a live video source instead of bulk data (Qian 2011)")
    probe: bool = Field(
        False,
        description="a greedy flow measuring T for the video streams of its controller: their video_t_mu is the mean goodput "
        "of the run's probes of that controller over the video rate (Qian 2011, III.A.1); cannot carry a video",
    )

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

    @field_validator("probe")
    @classmethod
    def _probe_is_greedy(cls, v: bool, info: ValidationInfo) -> bool:
        if v and info.data.get("video") is not None:
            raise ValueError("a probe is a greedy flow measuring T for the video streams; it cannot carry a video")
        return v


class UdpSpec(_Model):
    """An open-loop UDP source at a mean rate."""

    src: str
    dst: str
    rate: Rate = _unit("rate", "rate_bps", description="mean offered load")
    packet_size: PacketSize = Field(..., description="size, or mean size, in bytes")
    arrivals: Literal["cbr", "cbr_random", "poisson", "pareto", "pareto_onoff"] = Field(
        "poisson",
        description="cbr_random: ns-2's CBR with random_ 1 (each gap the interval x (1 + U(-0.5, 0.5))); pareto: Pareto gaps; "
        "pareto_onoff: ns-2's Pareto on/off bursts at the peak rate rate x (burst + idle) / burst",
    )
    sizes: Literal["fixed", "exponential", "mix"] = Field(
        "fixed", description="mix: Hua's 40 % 100 B, 40 % 500 B, 20 % 1000 B (packet_size unused)"
    )
    ecn: bool = False
    start: Time = _unit("start", "start_ns", 0)
    stop: Time | None = _unit("stop", "stop_ns", None)
    class_: Class = _class_field()
    pareto_shape: Annotated[float, Field(ge=1.1, le=100.0)] = Field(
        1.9, description="shape of Pareto gaps or on/off periods (Hua: 1.9); at least 1.1, so a source stays within 11x its mean rate"
    )
    burst: Duration = _unit("burst", "burst_ns", "500ms", "mean burst of pareto_onoff (ns-2 burst_time_)")
    idle: Duration = _unit("idle", "idle_ns", "500ms", "mean idle period of pareto_onoff (ns-2 idle_time_)")

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
    objects_per_page: Count = 1
    inter_object: Duration = _unit("inter_object", "inter_object_ns", 10_000_000, "mean time between a page's requests")
    object_mean_segments: Annotated[float, Field(gt=0.0)] = Field(10.0, description="mean object size in segments (Pareto II)")
    object_shape: Annotated[float, Field(gt=1.0)] = Field(1.2, description="Pareto II shape of the object size")
    cc: Annotated[CcSpec, BeforeValidator(_cc_shorthand, json_schema_input_type=Union[Literal[CC_KINDS], CcSpec])] = Field(  # type: ignore[valid-type]
        default_factory=Reno, description="controller of the object transfers"
    )
    tcp: TcpConfig = Field(default_factory=TcpConfig)

    @field_validator("cc")
    @classmethod
    def _core_controller(cls, v: Any) -> Any:
        if v.kind == "py":
            raise ValueError('a "py" controller drives long flows only (a web object\'s connection is built during the run); use a core controller here')
        return v

    @field_validator("start_window")
    @classmethod
    def _ordered(cls, v: tuple[int, int]) -> tuple[int, int]:
        if v[0] > v[1]:
            raise ValueError(f"need lo <= hi, got [{format_time(v[0])}, {format_time(v[1])}]")
        return v
