"""Qian (MS thesis, 2011), Chapter III.A: live video over PERT, Reno and CUBIC in ns-2
(shared/spec/pert-theses-kotla-qian.md B.2, B.3): the success fraction of video streams
against T/mu (Fig 9).

Table I's dumbbell: a 25 Mbit/s bottleneck with a 150-packet drop-tail buffer, 10 Mbit/s
access links, 20 to 35 video streams of 300 kbit/s over the controller under test ("CBR
senders PERT/RENO/CUBIC", standard receivers), 20 to 35 Reno FTP flows and 300 Reno HTTP
sessions as background, 1000-byte packets. T is measured by one greedy probe flow of the
streams' controller in the same run (``FlowSpec.probe``, docs/model.md); each stream is
successful if fewer than 1e-4 of its packets miss their playout deadline.

Choices where the thesis is silent or too long for the run budget: RTT 100 ms (the middle
of its 50 to 150 ms); runs of ``Setup.duration`` instead of 7000 s, start-up delay
``Setup.startup_delay`` (the thesis: "only a few seconds"); Reno is SACK (the thesis's
RENO-SACK); the HTTP sessions are ns-2 WebTraf sessions with a 5 s mean think time (the
thesis does not give its HTTP model; with WebTraf's 1 s the 300 sessions alone would offer
about 15 Mbit/s); flows and sessions start in the first 10 s. Every packet carries 40 bytes of
TCP/IP header, and the video rate is of payload (docs/model.md): :data:`SMALL_TESTS` are the runs
that test what that costs Reno's and CUBIC's streams with 200-byte packets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..builders import dumbbell
from ..results import SUCCESS_LATE_FRACTION as _SUCCESS_LATE_FRACTION
from ..runner import run
from ..scenario import Scenario
from ..scenario.controllers import PertAdaptive
from ..scenario.traffic import TCP_IP_HEADER_BYTES as HEADER_BYTES  # a packet carries packet_size - this of payload; the video rate is of payload
from ..units import parse_time

#: Controllers of the video streams: the thesis's PERT (its Chapter II describes Kotla's modified
#: PERT, with the high-speed, safe and compete modes: ``pert-adaptive``), RENO (SACK) and CUBIC;
#: and the original PERT (SIGCOMM 2007) beside them.
CONTROLLERS = ("pert-adaptive", "sack", "cubic", "pert")
#: The thesis's T/mu bins (Fig 4); the claim reads [1.4, 2.0].
BINS = ((1.0, 1.2), (1.2, 1.4), (1.4, 1.6), (1.6, 1.8), (1.8, 2.0))
CLAIM_BIN = (1.4, 2.0)
#: A stream succeeds when fewer than this share of its packets are late (Section III.A; the
#: core's ``video_success``): :data:`pertlab.results.SUCCESS_LATE_FRACTION`.
SUCCESS_LATE_FRACTION = _SUCCESS_LATE_FRACTION
#: The thesis's run length (Section III.A: "video length to 7,000 seconds"): the full mode's.
VIDEO_LENGTH = "7000s"
#: Video rate mu (Table I), HTTP sessions, bottleneck buffer (packets), access link rate.
VIDEO_KBPS = 300
VIDEO_RATE_MBPS = VIDEO_KBPS / 1e3
HTTP_SESSIONS = 300
BUFFER_PKTS = 150
#: Mean think time of the HTTP sessions (our choice; see the module doc).
THINK_TIME = "5s"
#: The thesis's loss-rate bins (Figs 8, 12; B.2.1): a stream's own drop rate. Fig 12's caption
#: says 0.02-0.06 and its text 0.04-0.06 (spec erratum): the text's bin is the one checked.
LOSS_BINS = ((0.0, 0.02), (0.02, 0.04), (0.04, 0.06))
#: pertlab's test of why PERT's streams fail (the report's note): the same PERT with its early
#: response taken away and nothing else changed that would help a stream. Its thresholds sit far
#: above any queueing delay the 150-packet buffer can hold (48 ms at 25 Mbit/s), so the response
#: curve is never reached; that puts it in high-speed mode, whose growing alpha is held at 1 by
#: ``alpha_max``; its loss response (q / (q + q_max)) stays PERT's.
NO_EARLY_RESPONSE = "pert-adaptive-no-early"
#: pertlab's test of the compete-mode alpha ramp, whose speed neither thesis gives (spec C8; the
#: default 0.1 per 5-RTT period is the third-party port's): alpha set to its target
#: ``min(alpha_max, 1 + p'/p)`` at the end of every compete period, as Qian's Chapter II reads
#: ("increases the window every RTT additively with alpha = 1 + p'/p"). A step of ``alpha_max``
#: reaches any target at once; nothing else changes.
ALPHA_AT_TARGET = "pert-adaptive-alpha-at-target"
ALPHA_MAX: float = PertAdaptive.model_fields["alpha_max"].default
_AT_TARGET = {"compete_step": ALPHA_MAX}
#: The rest of Qian's Chapter II reading: compete mode above her "TCP-compete threshold" of
#: 0.65 q_max (Kotla: 0.5 q_max, spec C1), alpha at its target there as in ALPHA_AT_TARGET.
QIAN_COMPETE = "pert-adaptive-qian-compete"
QIAN_COMPETE_FRAC = 0.65
#: pertlab's sweep of the same ramp (``qian11-video-ramp``): alpha's step per compete-mode period
#: from the default (0.1) to ``alpha_max`` (ALPHA_AT_TARGET), about three times larger each time.
RAMP_STEPS: tuple[float, ...] = (PertAdaptive.model_fields["compete_step"].default, 0.3, 1.0, 3.0, ALPHA_MAX)


def ramp_variant(step: float) -> str:
    """The name of PERT with ``step`` of :data:`RAMP_STEPS`: ``pert-adaptive`` at the default
    step, :data:`ALPHA_AT_TARGET` at ``alpha_max``, else ``pert-adaptive-step-{step}``."""
    return {RAMP_STEPS[0]: "pert-adaptive", ALPHA_MAX: ALPHA_AT_TARGET}.get(step, f"pert-adaptive-step-{step:g}")


#: pertlab's test of PERT's propagation-delay estimate (``qian11-video-base-rtt``): the minimum RTT
#: over a sliding window (Linux's ``tcp_min_rtt``: 300 s, its default window, and 10 s) instead of
#: the smallest sample of the connection, which both theses keep (spec C4).
MIN_RTT_WINDOWS = ("300s", "10s")


#: PERT given its path's RTT as P (``base_rtt = "propagation"``, an oracle: the theses measure P).
PATH_RTT = "pert-adaptive-path-rtt"


def min_rtt_variant(window: str) -> str:
    """The name of PERT with its minimum RTT over ``window`` (one of :data:`MIN_RTT_WINDOWS`)."""
    return f"pert-adaptive-min-rtt-{window}"


VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    NO_EARLY_RESPONSE: ("pert-adaptive", {"pert-adaptive": {"t_min": "500ms", "t_max": "1s", "alpha_max": 1.0}}),
    ALPHA_AT_TARGET: ("pert-adaptive", {"pert-adaptive": _AT_TARGET}),
    QIAN_COMPETE: ("pert-adaptive", {"pert-adaptive": {**_AT_TARGET, "compete_frac": QIAN_COMPETE_FRAC}}),
    **{ramp_variant(step): ("pert-adaptive", {"pert-adaptive": {"compete_step": step}}) for step in RAMP_STEPS[1:-1]},
    **{min_rtt_variant(w): ("pert-adaptive", {"pert-adaptive": {"min_rtt_window": w}}) for w in MIN_RTT_WINDOWS},
    PATH_RTT: ("pert-adaptive", {"pert-adaptive": {"base_rtt": "propagation"}}),
}
#: Start-up delays (s) at which every stream's client also counts late packets: the thesis's
#: Figs 7, 10 and 11 sweep 1 to 30 s and read "above 11 s" (Section III.A.2); steps of 5 s.
STARTUP_DELAYS_S = (1, 6, 11, 16, 21, 26)


@dataclass(frozen=True)
class PathSetup:
    """A run's round-trip time and packet size (Table I: RTT 50 to 150 ms, 200- or 1000-byte
    packets, every flow's); the main runs are :data:`MAIN`."""

    rtt_ms: int = 100
    packet_size: int = 1000
    #: pertlab's tests of Fig 9's 200-byte packets change these too: the bottleneck buffer
    #: (packets) and the video rate (kbit/s of payload).
    buffer_pkts: int = BUFFER_PKTS
    video_kbps: int = VIDEO_KBPS
    #: pertlab's test of the order of starts (``qian11-video-base-rtt``): the streams and the T/mu
    #: probe start in [streams_start_s, streams_start_s + 10] s; the FTP flows and the web sessions
    #: in [0, 10] s whatever it is (the thesis gives no start times).
    streams_start_s: int = 0

    @property
    def key(self) -> str:
        if self == MAIN:
            return ""
        extra = (f"-{self.buffer_pkts}p" if self.buffer_pkts != BUFFER_PKTS else "") + (f"-{self.video_kbps}kbps" if self.video_kbps != VIDEO_KBPS else "")
        extra += f"-start{self.streams_start_s}s" if self.streams_start_s else ""
        return f"-{self.rtt_ms}ms-{self.packet_size}B{extra}"


#: The main runs' path: the middle of Table I's RTTs and its 1000-byte packets (Figs 8 to 12).
MAIN = PathSetup()
#: Fig 6 (PERT's late fraction against the RTT): PERT's streams at the ends of Table I's RTTs too.
FIG6_PATHS = (PathSetup(50), PathSetup(150))
FIG6_CONTROLLERS = ("pert-adaptive",)
#: Fig 9's 200-byte packets: PERT, Reno and CUBIC at 100 ms.
SMALL_PACKETS = PathSetup(100, 200)
SMALL_CONTROLLERS = ("pert-adaptive", "sack", "cubic")


def stream_packets(setup: "Setup", path: PathSetup) -> int:
    """Packets a stream of ``path`` sends over a run of ``setup`` (its rate is of payload)."""
    return int(parse_time(setup.duration) / 1e9 * path.video_kbps * 1e3 / 8 / (path.packet_size - HEADER_BYTES))


def wire_kbps(path: PathSetup) -> float:
    """The bit rate (kbit/s) a stream of ``path.video_kbps`` of payload puts on the wire."""
    return path.video_kbps * path.packet_size / (path.packet_size - HEADER_BYTES)


#: pertlab's test of why Reno's and CUBIC's streams do worse with 200-byte packets: 200-byte
#: packets with the buffer of the 1000-byte runs in bytes (and ms at 25 Mbit/s: 750 packets), and
#: 200-byte packets with the video rate whose packets take as much of the wire as the 1000-byte
#: runs' streams (250 kbit/s of payload: 312.5 kbit/s on the wire); and the converse, 1000-byte
#: packets with the video rate whose packets take as much of the wire as the 200-byte runs'
#: streams (360 kbit/s of payload: 375 kbit/s on the wire).
SMALL_SAME_BUFFER = PathSetup(100, 200, buffer_pkts=BUFFER_PKTS * MAIN.packet_size // SMALL_PACKETS.packet_size)
SMALL_SAME_WIRE = PathSetup(100, 200, video_kbps=round(wire_kbps(MAIN) * (200 - HEADER_BYTES) / 200))
BIG_SMALL_WIRE = PathSetup(100, 1000, video_kbps=round(wire_kbps(SMALL_PACKETS) * (1000 - HEADER_BYTES) / 1000))
SMALL_TESTS = (SMALL_SAME_BUFFER, SMALL_SAME_WIRE, BIG_SMALL_WIRE)
SMALL_TEST_CONTROLLERS = ("sack", "cubic")


def runs_of(setup: "Setup", controllers: tuple[str, ...]) -> list[tuple[str, int, int, "Setup", int, PathSetup]]:
    """Every run of a mode: each of ``controllers`` on the main path, PERT at Fig 6's RTTs, and
    Fig 9's controllers with 200-byte packets, and Reno and CUBIC on :data:`SMALL_TESTS`; at each
    load and seed."""
    combos = [(cc, MAIN) for cc in controllers] + [(cc, p) for p in FIG6_PATHS for cc in FIG6_CONTROLLERS] + [(cc, SMALL_PACKETS) for cc in SMALL_CONTROLLERS]
    combos += [(cc, p) for p in SMALL_TESTS for cc in SMALL_TEST_CONTROLLERS]
    return [(cc, n, m, setup, s, path) for cc, path in combos for n, m in setup.loads for s in setup.seeds]


@dataclass(frozen=True)
class Setup:
    duration: str
    warmup: str
    startup_delay: str
    seeds: tuple[int, ...]
    #: (video streams, FTP flows) per run: the load that sets T/mu.
    loads: tuple[tuple[int, int], ...]


def video_scenario(cc: str, streams: int, ftp: int, setup: Setup, seed: int, path: PathSetup = MAIN) -> Scenario:
    """Table I's dumbbell with ``streams`` video streams over ``cc`` (a controller or one of
    :data:`VARIANTS`) and ``ftp`` Reno FTP flows, on ``path``."""
    cc, cc_params = VARIANTS.get(cc, (cc, None))
    scenario = dumbbell(
        bw="25Mbps", rtt=f"{path.rtt_ms}ms", flows=ftp, cc="sack", duration=setup.duration, warmup=setup.warmup, start_window="10s",
        buffer_pkts=path.buffer_pkts, packet_size=path.packet_size, access_rate="10Mbps", seed=seed, web_sessions=HTTP_SESSIONS,
        web={"think_time": THINK_TIME}, video=f"{streams}@{path.video_kbps}kbps:{cc}", startup_delay=setup.startup_delay, t_mu_probe=True,
        startup_delays=[f"{d}s" for d in STARTUP_DELAYS_S], cc_params=cc_params,
    )  # fmt: skip
    if path.streams_start_s:
        late = (f"{path.streams_start_s}s", f"{path.streams_start_s + 10}s")
        for flow in scenario.flows:
            if flow.video is not None or flow.probe:
                flow.start_window = late
    return scenario


def video_rows(item: tuple[str, int, int, Setup, int, PathSetup]) -> list[dict[str, Any]]:
    """One row per stream of one run: its T/mu, late fraction and success, and its success at
    each of :data:`STARTUP_DELAYS_S` (``success_{d}s``); its losses' repairs (timeouts, fast
    recoveries) and the seconds it waited on the timeouts in the window of ``window_s``; its
    path's RTT without queueing and the mean and largest of its RTT samples; and the run's
    bottleneck utilization (of its rate, headers counted) and the seconds its T/mu probe spent in
    compete mode (``probe_compete_s``, adaptive PERT's)."""
    cc, streams, ftp, setup, seed, path = item
    r = run(video_scenario(cc, streams, ftp, setup, seed, path))
    flows, window_s = r.flows, r.summary["window_end_s"] - r.summary["window_start_s"]
    videos = flows.filter(flows["label"] == f"video-{VARIANTS.get(cc, (cc,))[0]}")
    at = {(p["flow"], p["startup_delay_s"]): p["success"] for p in r.video_playout.to_dicts()}
    probe_compete_s = flows.filter(flows["probe"])["compete_s"].first()
    return [
        {"cc": cc, "rtt_ms": path.rtt_ms, "packet_size": path.packet_size, "buffer_pkts": path.buffer_pkts, "video_kbps": path.video_kbps, "streams_start_s": path.streams_start_s, "streams": streams, "ftp": ftp, "seed": seed, "t_mu": v["video_t_mu"], "late_fraction": v["video_late_fraction"],
         "success": v["video_success"], "goodput_mbps": v["goodput_mbps"], "drop_rate": v["drop_rate"], "timeouts": v["timeouts"], "rto_wait_s": v["rto_wait_s"], "window_s": window_s, "fast_recoveries": v["fast_recoveries"], "utilization": r.summary["bottleneck"]["utilization"],
         "early_responses_per_s": v["early_responses"] / window_s, "compete_s": v["compete_s"],
         "base_rtt_ms": v["base_rtt_ms"], "rtt_mean_ms": v["rtt_mean_ms"], "rtt_max_ms": v["rtt_max_ms"], "probe_compete_s": probe_compete_s,
         **{f"success_{d}s": at[(v["id"], float(d))] for d in STARTUP_DELAYS_S}}
        for v in videos.to_dicts()
    ]  # fmt: skip


def bin_of(t_mu: float) -> str | None:
    """The thesis's bin holding ``t_mu`` ("1.4-1.6"), None outside 1.0 to 2.0."""
    for lo, hi in BINS:
        if lo <= t_mu < hi:
            return f"{lo:.1f}-{hi:.1f}"
    return None
