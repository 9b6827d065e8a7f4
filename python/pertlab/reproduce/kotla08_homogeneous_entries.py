"""Registry entries of Kotla's 2008 thesis, Section VI (adaptive PERT in homogeneous
environments): web sessions (Figure 18), drops against the RTT (Figure 20) and low buffers
(Figure 22). Setups and choices: :mod:`pertlab.experiments.kotla08_homogeneous`. The thesis
prints these figures as plots only; each report checks its stated claims, on the mean over
three seeds in full mode."""

from __future__ import annotations

import polars as pl

from ..experiments import kotla08 as k
from ..experiments import kotla08_homogeneous as h
from ..sweep import aggregate
from .kotla08_common import bounds_of, column_values, sweep_entry
from .registry import Claim, fmt_values

#: "Negligible" drops, "low" queue: the PERT paper's own reading of Figure 9 (no loss: a drop
#: rate below 1e-4, as sigcomm07-fig9 checks) and the bound of Section VI.B (the normalized
#: queue "reaches at most 0.35" with PERT alone).
NEGLIGIBLE_DROP_RATE = 1e-4
LOW_QUEUE = 0.35
#: "Comparable" utilization (Figure 22): within 5 points, as the SIGCOMM entries read "similar".
COMPARABLE_UTILIZATION = 0.05
#: pertlab's test of why adaptive PERT drops more in small buffers (set after an exploratory run
#: of seed 1): the buffers where each adaptation is the cause, "falls" as to under this fraction,
#: "the original's" as within this factor of it.
HIGH_SPEED_BUFFER = 1 / 8
LOSS_DECREASE_BUFFER = 1 / 64
DROP_FALL = 0.2
SAME_DROP_FACTOR = 1.5


def _means(t: pl.DataFrame, keys: list[str], metrics: tuple[str, ...]) -> pl.DataFrame:
    return aggregate(t, keys, metrics, bounds_of(metrics))


def _web_claims(t: pl.DataFrame) -> list[Claim]:
    m = _means(t, ["scheme", "web_sessions"], ("avg_queue_norm", "drop_rate"))
    xs, pq, pd = column_values(m, "web_sessions", "avg_queue_norm", "drop_rate", scheme=k.PERT)
    # The long flows' own drop rate (the web transfers are not among them).
    _, long_pd = column_values(_means(t.filter(pl.col("scheme") == k.PERT), ["web_sessions"], ("pert_drop_rate",)), "web_sessions", "pert_drop_rate")
    lossy = [i for i, d in enumerate(pd) if d > 0]
    _, sq, sd = column_values(m, "web_sessions", "avg_queue_norm", "drop_rate", scheme=k.SACK)
    _, ss_pd = column_values(m, "web_sessions", "drop_rate", scheme=h.SLOW_START_RESPONSES)
    at = f"at {fmt_values(xs)} web sessions"
    return [
        Claim(f"PERT's packet losses are negligible as the web load grows (drop rate below {NEGLIGIBLE_DROP_RATE:g} at every load; Fig. 18).",
              max(pd) < NEGLIGIBLE_DROP_RATE, f"PERT drop rate {fmt_values(pd)} {at}"),
        Claim(f"PERT's average queue remains low (at most {LOW_QUEUE:g} of the buffer at every load).", max(pq) <= LOW_QUEUE, f"PERT avg queue / buffer {fmt_values(pq)}"),
        Claim("SACK has higher queues than PERT at every web load.", all(s > p for s, p in zip(sq, pq)), f"avg queue / buffer: SACK {fmt_values(sq)}; PERT {fmt_values(pq)} {at}"),
        Claim("SACK has higher drop rates than PERT at every web load.", all(s > p for s, p in zip(sd, pd)), f"drop rate: SACK {fmt_values(sd)}; PERT {fmt_values(pd)}"),
        Claim("Where PERT's link drops, the drops fall on the web transfers: the long PERT flows' own drop rate is below a tenth of the "
              "link's (pertlab's check of where the losses are).",
              all(long_pd[i] < 0.1 * pd[i] for i in lossy), f"long PERT flows {fmt_values(long_pd)}; link {fmt_values(pd)} {at}"),
        Claim("They come from the web transfers' slow starts, where adaptive PERT does not respond early (spec A.2.5): responding there too, "
              f"its losses are negligible at every load (drop rate below {NEGLIGIBLE_DROP_RATE:g}; pertlab's test).",
              max(ss_pd) < NEGLIGIBLE_DROP_RATE, f"drop rate responding in slow start {fmt_values(ss_pd)}; not {fmt_values(pd)} {at}"),
    ]  # fmt: skip


def _rtt_claims(t: pl.DataFrame) -> list[Claim]:
    m = _means(t, ["rtt_ms"], ("drop_rate", "pert_compete_frac"))
    xs, drop, compete = column_values(m, "rtt_ms", "drop_rate", "pert_compete_frac")
    worst = dict(t.group_by("rtt_ms").agg(pl.col("drop_rate").max()).with_columns(pl.col("rtt_ms").cast(pl.Float64)).iter_rows())
    lossy = [x for x in xs if worst[x] > 0]
    clean = [i for i, x in enumerate(xs) if x not in lossy]
    return [
        Claim("The drop rate is non-zero at the lowest RTT (Fig. 20).", drop[0] > 0, f"mean drop rate {fmt_values(drop)} at {fmt_values(xs)} ms"),
        Claim("It is zero for the rest: only the lowest RTTs have drops, and from some RTT on no run drops a packet.",
              bool(clean) and lossy == xs[: len(lossy)], f"RTTs with drops in some run: {fmt_values(lossy) or 'none'} ms"),
        Claim("Where there are drops, PERT has been pushed into compete mode: it spends more of the window there than at any RTT without drops (the thesis's explanation).",
              bool(lossy) and bool(clean) and min(compete[: len(lossy)]) > max(compete[i] for i in clean),
              f"mean share of the window in compete mode {fmt_values(compete)} at {fmt_values(xs)} ms"),
    ]  # fmt: skip


def _low_buffer_claims(t: pl.DataFrame) -> list[Claim]:
    m = _means(t, ["scheme", "buffer_bdp"], ("utilization", "drop_rate"))
    xs, adaptive, adaptive_d = column_values(m, "buffer_bdp", "utilization", "drop_rate", scheme=k.PERT)
    _, original, original_d = column_values(m, "buffer_bdp", "utilization", "drop_rate", scheme="pert")
    _, _, alpha1_d = column_values(m, "buffer_bdp", "utilization", "drop_rate", scheme=h.ALPHA_ONE)
    _, plain, plain_d = column_values(m, "buffer_bdp", "utilization", "drop_rate", scheme=h.ALPHA_ONE_HALF)
    evidence = f"utilization: adaptive {fmt_values(adaptive)}; original {fmt_values(original)} at {fmt_values(xs)} BDP"
    drops = (f"drop rate at {fmt_values(xs)} BDP: adaptive {fmt_values(adaptive_d)}; alpha held at 1 {fmt_values(alpha1_d)}; "
             f"and Reno's loss decrease {fmt_values(plain_d)}; original {fmt_values(original_d)}")  # fmt: skip
    hs, ld = xs.index(HIGH_SPEED_BUFFER), xs.index(LOSS_DECREASE_BUFFER)

    def same(a: float, b: float) -> bool:
        return max(a, b) <= SAME_DROP_FACTOR * min(a, b)

    return [
        Claim("At the smallest buffer (1/128 BDP) adaptive PERT's utilization is lower than the original PERT's (Fig. 22).", adaptive[0] < original[0], evidence),
        Claim("At the largest buffer (1/2 BDP) it is higher than the original's.", adaptive[-1] > original[-1], evidence),
        Claim(f"The two are comparable: within {COMPARABLE_UTILIZATION:g} of each other at every buffer.",
              all(abs(a - o) <= COMPARABLE_UTILIZATION for a, o in zip(adaptive, original)), evidence),
        Claim("Adaptive PERT drops more than the original PERT in every buffer below 1/4 BDP (pertlab's check; the thesis plots "
              "utilization only).", all(a > o for x, a, o in zip(xs, adaptive_d, original_d) if x < 0.25), drops),
        Claim(f"Its high-speed mode is the cause at 1/{1 / HIGH_SPEED_BUFFER:g} BDP: the queueing delay never reaches T1 there, so "
              f"alpha climbs; held at 1, the drop rate falls to under {DROP_FALL:g} of adaptive PERT's.",
              alpha1_d[hs] < DROP_FALL * adaptive_d[hs], drops),
        Claim(f"Its loss decrease q / (q + q_max), small when the queue is, is the cause at 1/{1 / LOSS_DECREASE_BUFFER:g} BDP: "
              "alpha held at 1 does not lower the drop rate there.", alpha1_d[ld] >= adaptive_d[ld], drops),
        Claim(f"Without both adaptations adaptive PERT drops as the original does at every buffer (within a factor "
              f"{SAME_DROP_FACTOR:g}): the two are the whole cause.", all(same(a, o) for a, o in zip(plain_d, original_d)),
              f"{drops}; utilization without both adaptations {fmt_values(plain)}; original {fmt_values(original)}"),
    ]  # fmt: skip


sweep_entry(
    "kotla08-web", "Figure 18: adaptive PERT or SACK, 50 long flows and 10..1000 web sessions, 150 Mbit/s, 60 ms", "Section VI.A",
    h.web_points, "web_sessions", _web_claims, log_x=True, by="scheme", full=h.SEEDED,
    panels=[("avg_queue_norm", "avg queue / buffer"), ("drop_rate", "drop rate"), ("utilization", "utilization")],
)  # fmt: skip
sweep_entry(
    "kotla08-rtt", "Figure 20: 50 adaptive PERT flows, RTT 10 ms..1 s, 150 Mbit/s", "Section VI.C", h.rtt_points, "rtt_ms", _rtt_claims,
    log_x=True, full=h.SEEDED,
    panels=[("drop_rate", "drop rate"), ("pert_compete_frac", "share of the window in compete mode"), ("avg_queue_norm", "avg queue / buffer"), ("utilization", "utilization")],
)  # fmt: skip
sweep_entry(
    "kotla08-low-buffer", "Figure 22: 20 flows, adaptive against original PERT, buffer 1/128..1/2 BDP, 100 Mbit/s, 60 ms", "Section VI.E",
    h.low_buffer_points, "buffer_bdp", _low_buffer_claims, log_x=True, by="scheme", full=h.SEEDED,
    panels=[("utilization", "utilization"), ("avg_queue_norm", "avg queue / buffer"), ("drop_rate", "drop rate")],
)  # fmt: skip
