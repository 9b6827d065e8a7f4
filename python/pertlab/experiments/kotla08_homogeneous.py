"""Kotla's 2008 thesis, Section VI ("evaluation in homogeneous environments"): Figures 18,
20 and 22, which check that adaptive PERT keeps the original PERT's behaviour when it runs
alone. The thesis ran "simulations similar to the ones in [6]" (the PERT paper) and states
few parameters; the choices (docs/reproductions.md):

- **Figure 18** (K12): web sessions 10..1000 with the long-lived flows constant; neither the
  link nor the number of long flows is stated. The setup of the PERT paper's Figure 9 is used
  (150 Mbit/s, 60 ms, 50 long-lived flows, :mod:`pertlab.experiments.sigcomm07`), web
  sessions as :func:`pertlab.builders.dumbbell` adds them (ns-2 web-traffic.tcl defaults,
  transfers with the scheme's transport). Adaptive PERT against SACK, both over DropTail, and
  adaptive PERT responding early in slow start too (pertlab's test of where its drops come from:
  the spec reads the thesis as responding in congestion avoidance only, A.2.5, and a web
  transfer spends most of its life in slow start).
- **Figure 20** (K14): RTT 10 ms .. 1 s, PERT alone; link and flows unstated: the PERT paper's
  Figure 7 (150 Mbit/s, 50 flows).
- **Figure 22** (K16): 100 Mbit/s, 60 ms, 20 flows, buffer 1/128..1/2 BDP; adaptive PERT
  against the original PERT. The buffer is the stated fraction of the BDP without the floor of
  two packets per flow the other sweeps keep (the thesis sweeps below it). Two more schemes
  test why adaptive PERT drops more than the original in small buffers: adaptive PERT with
  alpha held at 1 (``alpha_max`` 1: no high-speed mode, in which alpha climbs while the
  queueing delay stays below T1, as it always does in a small buffer), and with Reno's loss
  decrease as well (``loss_beta`` half, instead of ``q / (q + q_max)``, which is small when
  the queue is). With both, adaptive PERT is the original PERT but for its estimators.

Everything else is Section V's dumbbell (:func:`pertlab.experiments.kotla08.kotla_dumbbell`:
ns-2's TCP timers and send overhead, 1000-byte payloads, starts in (0, 10) s, 400 s runs with
metrics over 100..300 s). The thesis shows one run per point; the full modes run three seeds.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from ..scenario import Scenario
from ..sweep import Point
from .kotla08 import FULL, PERT, QUICK, SACK, Mode, kotla_dumbbell, points

__all__ = ["SEEDED", "web_points", "rtt_points", "low_buffer_points", "WEB_SCHEMES", "LOW_BUFFER_SCHEMES", "ALPHA_ONE", "ALPHA_ONE_HALF", "SLOW_START_RESPONSES"]

#: Full mode of the three figures: Section V's runs, three seeds (the thesis: one run per point).
SEEDED = replace(FULL, seeds=(1, 2, 3))

#: Adaptive PERT responding early in slow start too (Figure 18's test).
SLOW_START_RESPONSES = "pert-adaptive in slow start"
#: Figure 18: web sessions (the thesis's range), over 50 long-lived flows on 150 Mbit/s / 60 ms.
WEB_FULL, WEB_QUICK = [10, 20, 50, 100, 200, 500, 1000], [10, 1000]
WEB_LONG_FLOWS = 50
#: Scheme -> (builder controller, its parameters), as LOW_BUFFER_SCHEMES.
WEB_SCHEMES: dict[str, tuple[str, dict[str, Any]]] = {
    PERT: (PERT, {}),
    SACK: (SACK, {}),
    SLOW_START_RESPONSES: (PERT, {"respond_in_slow_start": True}),
}

#: Figure 20: round-trip propagation delays (ms), 50 adaptive PERT flows on 150 Mbit/s.
RTT_FULL, RTT_QUICK = [10, 20, 50, 100, 200, 500, 1000], [10, 200]
RTT_FLOWS = 50

#: Adaptive PERT with alpha held at 1, and with Reno's loss decrease too (Figure 22's test).
ALPHA_ONE = "pert-adaptive alpha 1"
ALPHA_ONE_HALF = "pert-adaptive alpha 1 loss 0.5"
#: Figure 22: buffers as fractions of the BDP (1/128 .. 1/2), 20 flows on 100 Mbit/s / 60 ms.
LOW_BUFFER_FULL = [1 / 128, 1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2]
LOW_BUFFER_QUICK = [1 / 128, 1 / 64, 1 / 8, 1 / 2]
LOW_BUFFER_FLOWS = 20
#: Adaptive PERT (the thesis's "modified PERT") and the PERT paper's, then adaptive PERT
#: without its adaptations one by one (pertlab's test of why it drops more): scheme -> (builder
#: controller, its parameters).
LOW_BUFFER_SCHEMES: dict[str, tuple[str, dict[str, Any]]] = {
    PERT: (PERT, {}),
    "pert": ("pert", {}),
    ALPHA_ONE: (PERT, {"alpha_max": 1.0}),
    ALPHA_ONE_HALF: (PERT, {"alpha_max": 1.0, "loss_beta": "half"}),
}


def _scheme_points(
    schemes: dict[str, tuple[str, dict[str, Any]]], xs: list[Any], x: str, mode: Mode, make: Callable[[str, Any, int, dict[str, Any]], Scenario]
) -> list[Point]:
    """A point per scheme, ``x`` value and seed, built by ``make(cc, value, seed, cc_kw)``:
    ``cc_kw`` is kotla_dumbbell's keyword for the scheme's parameters (none when they are the
    defaults, so the scenario and its stored run stay those of the plain controller)."""

    def of(cc: str, params: dict[str, Any]) -> Callable[[Any, int], Scenario]:
        cc_kw = {"cc_params": {cc: params}} if params else {}
        return lambda value, seed: make(cc, value, seed, cc_kw)

    return [p for scheme, (cc, params) in schemes.items() for p in points(of(cc, params), xs, x, mode, (("scheme", scheme),))]


def web_points(mode: Mode) -> list[Point]:
    """Figure 18: per scheme and number of web sessions."""
    xs = WEB_QUICK if mode is QUICK else WEB_FULL
    return _scheme_points(
        WEB_SCHEMES, xs, "web_sessions", mode,
        lambda cc, n, seed, cc_kw: kotla_dumbbell(f"{cc}:{WEB_LONG_FLOWS}", mode, seed, web_sessions=int(n), **cc_kw),
    )  # fmt: skip


def rtt_points(mode: Mode) -> list[Point]:
    """Figure 20: adaptive PERT alone, per round-trip propagation delay."""
    xs = RTT_QUICK if mode is QUICK else RTT_FULL
    return points(lambda ms, seed: kotla_dumbbell(f"{PERT}:{RTT_FLOWS}", mode, seed, rtt_ms=float(ms)), xs, "rtt_ms", mode)


def low_buffer_points(mode: Mode) -> list[Point]:
    """Figure 22: per scheme and buffer (fraction of the BDP), 100 Mbit/s, 60 ms."""
    xs = LOW_BUFFER_QUICK if mode is QUICK else LOW_BUFFER_FULL
    return _scheme_points(
        LOW_BUFFER_SCHEMES, xs, "buffer_bdp", mode,
        lambda cc, k, seed, cc_kw: kotla_dumbbell(f"{cc}:{LOW_BUFFER_FLOWS}", mode, seed, bw=100e6, buffer_bdp=k, buffer_floor=False, **cc_kw),
    )  # fmt: skip
