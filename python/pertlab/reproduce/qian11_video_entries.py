"""Registry entry ``qian11-video``: Qian's 2011 thesis, Chapter III.A, live video over PERT, Reno
and CUBIC in the simulator: the success fraction against T/mu (Fig 9, with 1000- and 200-byte
packets), against the start-up delay (Figs 10, 11) and against the streams' loss rate (Figs 8,
12); PERT's late fraction against T/mu and the RTT (Fig 6); with pertlab's test of why PERT's
streams fail here. Scenario choices: :mod:`pertlab.experiments.qian11_video`."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import polars as pl

from ..experiments import qian11_video as v
from ..parallel import Workers
from ..plots import saved_figure
from .registry import Claim, Entry, Figure, Report, Wire, fmt_values, register

VIDEO_NAME = "qian11-video"
VIDEO_TITLE = "Figs 6, 8-12: live video streams' success against T/mu, start-up delay, loss rate, RTT and packet size, PERT vs Reno vs CUBIC"
VIDEO_QUICK = v.Setup("60s", "10s", "5s", (1,), ((25, 25), (30, 30)))
#: What runs on the main path: the thesis's controllers and pertlab's tests of PERT's failure.
MAIN_RUNS = (*v.CONTROLLERS, v.NO_EARLY_RESPONSE, v.ALPHA_AT_TARGET, v.QIAN_COMPETE)
VIDEO_FULL = v.Setup(v.VIDEO_LENGTH, "30s", "5s", (1, 2, 3), ((20, 20), (25, 25), (30, 30), (35, 35)))


Item = tuple[str, int, int, v.Setup, int, v.PathSetup]


def first_seed_scenarios(items: list[Item]) -> Wire:
    """The scenarios of ``items`` at their first seed, one per controller, load and path: what a
    report records (``Entry.scenarios``)."""
    return {f"{cc}-{n}x{m}{path.key}": v.video_scenario(cc, n, m, setup, seed, path).to_wire()
            for cc, n, m, setup, seed, path in items if seed == setup.seeds[0]}  # fmt: skip


def stream_table(items: list[Item], workers: Workers) -> pl.DataFrame:
    """One row per stream of every run of ``items`` (:func:`v.video_rows`), with its T/mu bin."""
    every = pl.DataFrame([row for rows in workers.map(v.video_rows, items) for row in rows])
    return every.with_columns(pl.col("t_mu").map_elements(v.bin_of, return_dtype=pl.String).alias("bin"))


def _video_scenarios(quick: bool) -> Wire:
    """One scenario per controller and load, at the first seed."""
    return first_seed_scenarios(v.runs_of(VIDEO_QUICK if quick else VIDEO_FULL, MAIN_RUNS))


def _video(quick: bool, out: Path, workers: Workers) -> Report:
    setup = VIDEO_QUICK if quick else VIDEO_FULL
    every = stream_table(v.runs_of(setup, MAIN_RUNS), workers)
    # Figs 8 to 12 are of the main path; Fig 6's RTTs and Fig 9's 200-byte packets have their own claims.
    streams = main_path(every)
    packets = v.stream_packets(setup, v.MAIN)
    late_ok = int(packets * v.SUCCESS_LATE_FRACTION)
    table = (
        streams.filter(pl.col("bin").is_not_null()).group_by("cc", "bin").agg(pl.len().alias("streams"), pl.col("success").mean().alias("success_fraction"))
        .sort("cc", "bin")
    )  # fmt: skip
    report = Report(
        VIDEO_NAME, VIDEO_TITLE, "Qian, MS thesis, 2011, Chapter III.A", "quick" if quick else "full", out,
        notes=[
            f"{setup.duration} runs{'' if setup.duration == v.VIDEO_LENGTH else f' (the thesis: {v.VIDEO_LENGTH})'}, seeds {fmt_values(list(setup.seeds))} (the thesis: 20 seeds, 0-19), start-up delay {setup.startup_delay}; "
            f"(video streams, FTP flows) per run: {', '.join(f'({n}, {m})' for n, m in setup.loads)}. Table I otherwise: 25 Mbit/s, "
            f"{v.BUFFER_PKTS}-packet drop-tail buffer, 10 Mbit/s access links, RTT 100 ms, 1000-byte packets, {v.HTTP_SESSIONS} Reno "
            f"(SACK) HTTP sessions (WebTraf, {v.THINK_TIME} mean think time: our choice), Reno (SACK) FTP flows.",
            "T/mu: the goodput of one greedy probe flow of the streams' controller in the same run over 300 kbit/s "
            "(docs/model.md); a run's streams share its T/mu and fall in the thesis's bins 1.0-1.2 ... 1.8-2.0 (streams "
            "outside 1.0-2.0 are left out of the table). Success: late fraction below "
            f"{v.SUCCESS_LATE_FRACTION:g} over the whole run: a {v.MAIN.packet_size}-byte stream sends about {packets} packets in "
            f"{setup.duration} and succeeds with {f'at most {late_ok}' if late_ok else 'none'} of them late.",
            "The thesis prints Fig 9 as a plot: its statement (PERT's and CUBIC's success above Reno's, flat from 1.4 to 2.0) is "
            "the claim checked; the quick mode's two loads may leave bins empty. PERT is pert-adaptive (Kotla's modified PERT, "
            "which the thesis's Chapter II describes, with Kotla's defaults; the chapter's two differences from Kotla, alpha "
            "= 1 + p'/p in compete mode and compete above 0.65 q_max, are tested in the ramp claim); the original PERT "
            "(pert) is run beside it.",
            "Why PERT's streams fail here: the Reno FTP flows keep the 150-packet drop-tail buffer full (tens of ms of queueing), "
            "far above PERT's thresholds (5 and 10 ms), so a PERT sender responds early about once per RTT; an application-"
            "limited stream of 300 kbit/s needs a window of about 5 segments at this RTT, and the repeated cuts keep it below "
            "that (goodput below the video rate, in the claim's evidence), so it falls behind its playout schedule by more than the "
            f"{setup.startup_delay} start-up delay; longer start-up delays rescue many of them, more at higher T/mu (table startup). A "
            "greedy PERT probe keeps more window between cuts and reaches T/mu above 1. The first pertlab claim tests this: the same runs "
            f"with PERT's early response taken away ({v.NO_EARLY_RESPONSE}: thresholds of 0.5 and 1 s, above any delay the buffer "
            "holds, alpha held at 1, PERT's loss response kept). The thesis's ns-2 PERT evidently kept its streams going under "
            "the same load; which of its details does that is not in the thesis. One candidate is tested in the second pertlab claim: "
            "how fast alpha rises in compete mode. Between cuts a stream's window grows by alpha segments per RTT, and alpha's "
            "target 1 + p'/p is large here (early responses far outnumber losses), but at 0.1 per 5-RTT period alpha stays far "
            f"below it. {v.ALPHA_AT_TARGET} sets alpha to the target at each period's end, which is how Qian's Chapter II "
            "describes compete mode. Her chapter also puts compete mode above 0.65 q_max, where Kotla has 0.5 q_max "
            f"(spec C1): {v.QIAN_COMPETE} takes that too, and its success is in the claim's evidence. It does worse: the "
            "standing queue here is near 0.65 q_max, and at the lighter loads its streams spend most of the window out of "
            "compete mode (the evidence's compete-mode seconds by load), where alpha decays toward 1.",
            "Fig 8's high loss: three duplicate ACKs need three segments sent after the lost one. A window kept small by the "
            "early responses, of a stream that often has no new data to send (limited transmit, RFC 3042, is on, but needs "
            "new data), often does not have them, and the loss waits for the retransmission timer. The timeout claim compares the "
            "share of loss repairs that are timeouts; the table streams has each stream's timeouts and fast recoveries. The claim "
            "after it asks how much of the failure those timeouts can carry: while a stream waits on the timer no ACK moves its "
            "window on, so it compares each stream's time spent waiting on timeouts (from the timer's arming to its expiry, `rto_wait_s` "
            "in the table streams, out of `window_s`) with its shortfall from the video rate. Waits shorter than the shortfall "
            "leave the rest to the small windows between timeouts.",
        ],
    )  # fmt: skip
    report.notes.append(
        f"Figs 10 and 11: every client also counts late packets at start-up delays of {fmt_values(list(v.STARTUP_DELAYS_S))} s "
        "(`video.startup_delays`: one run gives what a run with each delay would); table startup: the success fraction per "
        "controller, T/mu range and delay. Fig 7 (PERT's success rising with the delay) holds by construction: a packet on "
        "time at one delay is on time at every longer one."
    )
    small, same_buffer, same_wire = v.SMALL_PACKETS, v.SMALL_SAME_BUFFER, v.SMALL_SAME_WIRE
    report.notes.append(
        f"Fig 9's {small.packet_size}-byte packets: every packet carries {v.HEADER_BYTES} bytes of TCP/IP header and the video rate is of payload, "
        f"so a {small.video_kbps} kbit/s stream puts {v.wire_kbps(small):.4g} kbit/s on the wire with {small.packet_size}-byte packets and "
        f"{v.wire_kbps(v.MAIN):.4g} with {v.MAIN.packet_size}-byte ones, and a greedy flow's goodput (T) is {small.packet_size - v.HEADER_BYTES}/"
        f"{small.packet_size} of its share of the wire instead of {v.MAIN.packet_size - v.HEADER_BYTES}/{v.MAIN.packet_size}: the same load leaves "
        f"Reno's and CUBIC's streams a lower T/mu. (The web sessions' objects are counted in segments, so their load in bytes is smaller with "
        f"{small.packet_size}-byte packets.) The last claim tests this against the buffer: the {v.BUFFER_PKTS}-packet buffer holds a fifth of the "
        f"bytes with {small.packet_size}-byte packets. Reno and CUBIC run again with {small.packet_size}-byte packets and a {same_buffer.buffer_pkts}-packet "
        f"buffer (the {v.MAIN.packet_size}-byte runs' bytes and ms), and with the video rate at {same_wire.video_kbps} kbit/s, whose packets take "
        f"{v.wire_kbps(same_wire):.4g} kbit/s of the wire as the {v.MAIN.packet_size}-byte streams' do; and the converse, {v.MAIN.packet_size}-byte "
        f"packets at {v.BIG_SMALL_WIRE.video_kbps} kbit/s ({v.wire_kbps(v.BIG_SMALL_WIRE):.4g} kbit/s on the wire). The thesis does not say how its "
        "packet sizes count headers."
    )
    report.tables = {"success": table, "startup": _startup_table(streams), "loss": loss_table(streams), "paths": _paths_table(every), "streams": every}
    lo, hi = v.CLAIM_BIN
    in_bin = claim_bin(streams)
    measured = all(cc in in_bin for cc in ("pert-adaptive", "sack", "cubic"))
    pert = streams.filter(pl.col("cc") == "pert-adaptive")
    report.claims = _startup_claims(report.tables["startup"]) + _loss_claims(report.tables["loss"]) + [
        Claim(f"Fig 9: PERT's (pert-adaptive) success fraction at T/mu in [{lo}, {hi}] is at least Reno's and CUBIC's.",
              measured and in_bin["pert-adaptive"][0] >= max(in_bin["sack"][0], in_bin["cubic"][0]),
              "; ".join(shown_in_bin(in_bin, cc) for cc in v.CONTROLLERS)
              + f". PERT's streams: goodput {pert['goodput_mbps'].mean():.3g} Mbit/s (the video rate is {v.VIDEO_RATE_MBPS}), "
              f"{pert['early_responses_per_s'].mean():.3g} early responses per second, in compete mode {pert['compete_s'].mean():.3g} s "
              f"of the window, mean late fraction {pert['late_fraction'].mean():.3g}"),
        _early_response_claim(streams),
        _timeout_claim(streams),
        _timeout_wait_claim(streams),
        _alpha_ramp_claim(streams),
        *_fig6_claims(every),
        _small_packets_claim(every),
        _small_packets_cause_claim(every),
    ]  # fmt: skip
    return report


def in_claim_bin() -> pl.Expr:
    """A stream's T/mu is in Fig 9's range (``v.CLAIM_BIN``)."""
    lo, hi = v.CLAIM_BIN
    return (pl.col("t_mu") >= lo) & (pl.col("t_mu") < hi)


def stream_summary(streams: pl.DataFrame, by: str | list[str], count: str, *extra: pl.Expr) -> pl.DataFrame:
    """Per group of ``by``: the streams (column ``count``), their success over all of them and at T/mu
    in Fig 9's range, mean T/mu, goodput and early responses per second, then ``extra``."""
    in_range = in_claim_bin()
    return streams.group_by(by).agg(
        pl.len().alias(count), pl.col("success").mean().alias("success_fraction"), in_range.sum().alias("streams_in_range"),
        pl.col("success").filter(in_range).mean().alias("success_in_range"), pl.col("t_mu").mean().alias("mean_t_mu"),
        pl.col("goodput_mbps").mean().alias("mean_goodput_mbps"), pl.col("early_responses_per_s").mean(), *extra,
    )  # fmt: skip


def claim_bin(streams: pl.DataFrame) -> dict[str, tuple[float, int]]:
    """Per controller, the success fraction of its streams at T/mu in Fig 9's range and their number."""
    t = streams.filter(in_claim_bin()).group_by("cc").agg(pl.col("success").mean(), pl.len())
    return {cc: (success, n) for cc, success, n in t.select("cc", "success", "len").iter_rows()}


def shown_in_bin(in_bin: dict[str, tuple[float, int]], cc: str) -> str:
    """``cc``'s entry of :func:`claim_bin` as evidence."""
    if cc not in in_bin:
        return f"{cc}: no stream in the range"
    success, n = in_bin[cc]
    return f"{cc}: {success:.3g} of {n} streams"


def _paths_table(every: pl.DataFrame) -> pl.DataFrame:
    """Per controller, RTT and packet size: streams, success fraction, mean late fraction, mean
    T/mu, early responses per second (Figs 6 and 9's 200-byte packets beside the main runs)."""
    return (
        every.group_by("cc", "rtt_ms", "packet_size", "buffer_pkts", "video_kbps")
        .agg(pl.len().alias("streams"), pl.col("success").mean().alias("success_fraction"), pl.col("late_fraction").mean().alias("mean_late_fraction"),
             pl.col("t_mu").mean().alias("mean_t_mu"), pl.col("early_responses_per_s").mean(), pl.col("drop_rate").mean().alias("mean_drop_rate"),
             pl.col("timeouts").mean().alias("mean_timeouts"), pl.col("utilization").mean().alias("mean_utilization"))
        .sort("cc", "packet_size", "rtt_ms", "buffer_pkts", "video_kbps")
    )  # fmt: skip


def on_path(every: pl.DataFrame, path: v.PathSetup) -> pl.DataFrame:
    """The streams of the runs on ``path``."""
    return every.filter((pl.col("rtt_ms") == path.rtt_ms) & (pl.col("packet_size") == path.packet_size)
                        & (pl.col("buffer_pkts") == path.buffer_pkts) & (pl.col("video_kbps") == path.video_kbps))  # fmt: skip


def _fig6_claims(every: pl.DataFrame) -> list[Claim]:
    pert = every.filter((pl.col("cc") == "pert-adaptive") & (pl.col("packet_size") == v.MAIN.packet_size))
    main = pert.filter(pl.col("rtt_ms") == v.MAIN.rtt_ms)
    by_bin = main.filter(pl.col("bin").is_not_null()).group_by("bin").agg(pl.col("late_fraction").mean(), pl.len()).sort("bin")
    lo = main.filter((pl.col("t_mu") >= 1.0) & (pl.col("t_mu") < 1.4))["late_fraction"].mean()
    hi = main.filter((pl.col("t_mu") >= 1.4) & (pl.col("t_mu") < 2.0))["late_fraction"].mean()
    rtts = pert.group_by("rtt_ms").agg(pl.col("late_fraction").mean(), pl.len(), pl.col("t_mu").mean(), pl.col("drop_rate").mean(), pl.col("timeouts").mean()).sort("rtt_ms")
    # At equal T/mu (the thesis plots one curve per RTT against T/mu): the bins every RTT has streams in.
    per = pert.filter(pl.col("bin").is_not_null()).group_by("bin", "rtt_ms").agg(pl.col("late_fraction").mean()).sort("bin", "rtt_ms")
    shared = [b for b in per["bin"].unique().sort().to_list() if per.filter(pl.col("bin") == b).height == 3]
    rising = [b for b in shared if (x := per.filter(pl.col("bin") == b)["late_fraction"].to_list()) == sorted(x) and x[0] < x[-1]]
    bins = ", ".join(f"{b}: {x:.3g} ({n} streams)" for b, x, n in by_bin.iter_rows())
    at_bins = "; ".join(f"{b}: " + ", ".join(f"{r} ms {x:.3g}" for _, r, x in per.filter(pl.col("bin") == b).iter_rows()) for b in shared)
    return [
        Claim("Fig 6: PERT's late fraction falls as T/mu goes from 1.0 to 2.0, sharply from 1.0 to 1.4 (the mean late fraction "
              "at T/mu in [1.0, 1.4) at least twice that in [1.4, 2.0)).",
              lo is not None and hi is not None and lo >= 2 * hi, f"mean late fraction per T/mu bin: {bins or 'no stream in 1.0-2.0'}"),
        Claim("Fig 6: PERT's late fraction rises with the RTT from 50 to 150 ms (at equal T/mu: in most of the T/mu bins that "
              "streams at all three RTTs fall in).",
              bool(shared) and len(rising) > len(shared) / 2,
              f"rising in {len(rising)} of {len(shared)} shared bins ({at_bins or 'none'}). Over the same loads and seeds: "
              + ", ".join(f"{r} ms: late {x:.3g}, T/mu {t:.3g}, loss rate {d:.3g}, timeouts {o:.3g} per stream ({n} streams)" for r, x, n, t, d, o in rtts.iter_rows())),
    ]  # fmt: skip


def _small_packets_claim(every: pl.DataFrame) -> Claim:
    at = pl.concat([on_path(every, v.MAIN), on_path(every, v.SMALL_PACKETS)]).group_by("cc", "packet_size").agg(pl.col("success").mean(), pl.col("early_responses_per_s").mean())
    ok = {(cc, size): (s_, e) for cc, size, s_, e in at.iter_rows()}
    small, big = v.SMALL_PACKETS.packet_size, v.MAIN.packet_size
    ccs = v.SMALL_CONTROLLERS
    holds = all(ok[(cc, small)][0] > ok[(cc, big)][0] for cc in ccs) and ok[("pert-adaptive", small)][0] >= ok[("cubic", small)][0]
    return Claim(
        f"Fig 9: {small}-byte packets give higher success than {big}-byte ones for every controller, and with them PERT's is at least CUBIC's.",
        holds,
        "success over every stream of the same loads and seeds, "
        + "; ".join(f"{cc}: {ok[(cc, big)][0]:.3g} ({big} B), {ok[(cc, small)][0]:.3g} ({small} B)" for cc in ccs)
        + f". PERT's early responses per second: {ok[('pert-adaptive', big)][1]:.3g} ({big} B), {ok[('pert-adaptive', small)][1]:.3g} ({small} B): "
        f"the {v.BUFFER_PKTS}-packet buffer holds at most {v.BUFFER_PKTS * small * 8 / 25e6 * 1e3:.3g} ms of {small}-byte packets at 25 Mbit/s, "
        f"{v.BUFFER_PKTS * big * 8 / 25e6 * 1e3:.3g} ms of {big}-byte ones",
    )


def _small_packets_cause_claim(every: pl.DataFrame) -> Claim:
    """pertlab's test of why Reno's and CUBIC's streams do worse with 200-byte packets (the note):
    their success on :data:`v.SMALL_TESTS` against the 1000- and 200-byte runs, same loads and seeds."""
    paths = {"big": v.MAIN, "small": v.SMALL_PACKETS, "buffer": v.SMALL_SAME_BUFFER, "wire": v.SMALL_SAME_WIRE, "big_wire": v.BIG_SMALL_WIRE}
    at = {(cc, k): on_path(every, p).filter(pl.col("cc") == cc) for cc in v.SMALL_TEST_CONTROLLERS for k, p in paths.items()}
    ok = {key: float(t["success"].mean()) for key, t in at.items()}
    loss = {key: float(t["drop_rate"].mean()) for key, t in at.items()}
    rto = {key: float(t["timeouts"].mean()) for key, t in at.items()}
    use = {key: float(t["utilization"].mean()) for key, t in at.items()}
    ccs = v.SMALL_TEST_CONTROLLERS
    holds = all(ok[(cc, "wire")] >= ok[(cc, "big")] - SAME_SUCCESS and ok[(cc, "big_wire")] <= ok[(cc, "small")] + SAME_SUCCESS
                and ok[(cc, "buffer")] < ok[(cc, "big")] - SAME_SUCCESS
                and loss[(cc, "small")] < loss[(cc, "big")] and rto[(cc, "small")] < rto[(cc, "big")] for cc in ccs)  # fmt: skip
    big, small, same_buffer, same_wire, big_wire = v.MAIN, v.SMALL_PACKETS, v.SMALL_SAME_BUFFER, v.SMALL_SAME_WIRE, v.BIG_SMALL_WIRE
    label = {"big": f"{big.packet_size} B", "small": f"{small.packet_size} B", "buffer": f"{small.packet_size} B, {same_buffer.buffer_pkts}-packet buffer",
             "wire": f"{small.packet_size} B at {same_wire.video_kbps} kbit/s", "big_wire": f"{big.packet_size} B at {big_wire.video_kbps} kbit/s"}  # fmt: skip
    return Claim(
        f"pertlab: Reno's and CUBIC's streams do worse with {small.packet_size}-byte packets because of the {v.HEADER_BYTES} header bytes in every "
        f"packet (a {small.video_kbps} kbit/s stream then puts {v.wire_kbps(small):.4g} kbit/s on the wire, not {v.wire_kbps(big):.4g}), not because of "
        f"the buffer's smaller size in bytes: at the video rate whose packets take {v.wire_kbps(same_wire):.4g} kbit/s of the wire ({same_wire.video_kbps} "
        f"kbit/s) their success is back within {SAME_SUCCESS:g} of their {big.packet_size}-byte success or above, and {big.packet_size}-byte streams "
        f"that take {v.wire_kbps(big_wire):.4g} kbit/s ({big_wire.video_kbps} kbit/s) do within {SAME_SUCCESS:g} of the {small.packet_size}-byte ones or "
        f"worse, while with the {big.packet_size}-byte runs' buffer in bytes ({same_buffer.buffer_pkts} packets) their success stays more than "
        f"{SAME_SUCCESS:g} below their {big.packet_size}-byte success; "
        "and their streams lose fewer packets and "
        f"time out less with {small.packet_size}-byte packets, not more.",
        holds,
        "; ".join(f"{cc}: success " + ", ".join(f"{ok[(cc, k)]:.3g} ({label[k]})" for k in paths)
                  + f"; T/mu {at[(cc, 'big')]['t_mu'].mean():.3g} ({label['big']}), {at[(cc, 'small')]['t_mu'].mean():.3g} ({label['small']}), "
                  f"{at[(cc, 'wire')]['t_mu'].mean():.3g} ({label['wire']}), {at[(cc, 'big_wire')]['t_mu'].mean():.3g} ({label['big_wire']}); loss rate {loss[(cc, 'big')]:.3g} ({label['big']}), {loss[(cc, 'small')]:.3g} "
                  f"({label['small']}); timeouts per stream {rto[(cc, 'big')]:.3g} ({label['big']}), {rto[(cc, 'small')]:.3g} ({label['small']}); "
                  f"bottleneck utilization " + ", ".join(f"{use[(cc, k)]:.3g} ({label[k]})" for k in ("big", "small", "buffer"))
                  for cc in ccs),
    )  # fmt: skip


def loss_table(streams: pl.DataFrame, controllers: Sequence[str] = v.CONTROLLERS) -> pl.DataFrame:
    """Per loss-rate bin (:data:`v.LOSS_BINS`, a stream's own drop rate), controller and start-up
    delay: streams and success fraction, over every T/mu (Figs 8 and 12)."""
    return _by_delay(streams, "drop_rate", [({"loss_range": f"{lo:.2f}-{hi:.2f}"}, lo, hi) for lo, hi in v.LOSS_BINS], controllers)


#: Fig 8's "above 11 s" and its two levels: success "> 90 %" at low loss, "60 %" at high loss
#: (read as at least half), and Reno's "almost all fail" (at most a tenth succeed).
FIG8_LOW, FIG8_HIGH, ALMOST_ALL_FAIL = 0.9, 0.5, 0.1
#: Fig 8's lowest and highest loss bins, as :func:`loss_table` names them.
LOW_LOSS, HIGH_LOSS = (f"{lo:.2f}-{hi:.2f}" for lo, hi in (v.LOSS_BINS[0], v.LOSS_BINS[-1]))
#: The start-up delays "above 11 s" of Fig 8.
ABOVE_11_S = [d for d in map(float, v.STARTUP_DELAYS_S) if d > 11]


def loss_success(loss: pl.DataFrame, bin_: str, cc: str) -> dict[float, float]:
    """``cc``'s success fraction by start-up delay in a loss bin of :func:`loss_table` (empty: no stream)."""
    t = loss.filter((pl.col("loss_range") == bin_) & (pl.col("cc") == cc) & (pl.col("streams") > 0))
    return dict(zip(t["startup_delay_s"].to_list(), t["success_fraction"].to_list()))


def shown_by_loss(loss: pl.DataFrame, bin_: str, ccs: Sequence[str]) -> str:
    """The evidence of a loss bin: each of ``ccs``'s streams and success by start-up delay."""

    def one(cc: str) -> str:
        s = loss_success(loss, bin_, cc)
        n = loss.filter((pl.col("loss_range") == bin_) & (pl.col("cc") == cc))["streams"][0]
        return f"{cc} ({n} streams): {fmt_values(list(s.values()))}" if s else f"{cc}: no stream in the range"

    return f"loss {bin_}, success at {fmt_values(list(v.STARTUP_DELAYS_S))} s: " + "; ".join(one(cc) for cc in ccs)


def fig8_low(pert: dict[float, float]) -> bool:
    """Fig 8 at low loss: more than :data:`FIG8_LOW` of PERT's streams succeed above 11 s."""
    return bool(pert) and all(pert[d] > FIG8_LOW for d in ABOVE_11_S)


def fig8_high(pert: dict[float, float], reno: dict[float, float]) -> bool:
    """Fig 8 at high loss: at least :data:`FIG8_HIGH` of PERT's streams succeed above 11 s, at
    most :data:`ALMOST_ALL_FAIL` of Reno's."""
    return bool(pert and reno) and all(pert[d] >= FIG8_HIGH and reno[d] <= ALMOST_ALL_FAIL for d in ABOVE_11_S)


def fig12(pert: dict[float, float], reno: dict[float, float], cubic: dict[float, float]) -> bool:
    """Fig 12: PERT's success at least Reno's and CUBIC's at most start-up delays."""
    return bool(pert and reno and cubic) and sum(pert[d] >= max(reno[d], cubic[d]) for d in pert) > len(pert) / 2


#: The statements of :func:`fig8_low`, :func:`fig8_high` and :func:`fig12`.
FIG8_LOW_TEXT = f"at loss {LOW_LOSS}, more than {FIG8_LOW:.0%} of PERT's streams succeed with start-up delays above 11 s"
FIG8_HIGH_TEXT = (f"at loss {HIGH_LOSS}, about 60 % of PERT's streams succeed (at least {FIG8_HIGH:.0%} with start-up delays above 11 s), "
                  f"while almost all of Reno's fail (at most {ALMOST_ALL_FAIL:.0%} succeed)")  # fmt: skip
FIG12_TEXT = f"at loss {HIGH_LOSS}, PERT is generally better than Reno and CUBIC (its success at least theirs at most start-up delays)"


def _loss_claims(loss: pl.DataFrame) -> list[Claim]:
    p_low, p_high = loss_success(loss, LOW_LOSS, "pert-adaptive"), loss_success(loss, HIGH_LOSS, "pert-adaptive")
    r_high, c_high = loss_success(loss, HIGH_LOSS, "sack"), loss_success(loss, HIGH_LOSS, "cubic")
    return [
        Claim(f"Fig 8: {FIG8_LOW_TEXT}.", fig8_low(p_low), shown_by_loss(loss, LOW_LOSS, ("pert-adaptive",))),
        Claim(f"Fig 8: {FIG8_HIGH_TEXT}.", fig8_high(p_high, r_high), shown_by_loss(loss, HIGH_LOSS, ("pert-adaptive", "sack"))),
        Claim(f"Fig 12: {FIG12_TEXT}.", fig12(p_high, r_high, c_high), shown_by_loss(loss, HIGH_LOSS, ("pert-adaptive", "sack", "cubic"))),
    ]  # fmt: skip


#: "A larger share" in the test of why PERT's high-loss streams fail: PERT's share of loss repairs
#: that are timeouts at least this many times Reno's and its own without early responses.
TIMEOUT_SHARE_RATIO = 1.5


def _high_loss(streams: pl.DataFrame) -> tuple[float, float, pl.DataFrame]:
    """Fig 8's high-loss bin (the last of :data:`v.LOSS_BINS`) and the streams whose own drop rate
    falls in it."""
    lo, hi = v.LOSS_BINS[-1]
    return lo, hi, streams.filter((pl.col("drop_rate") >= lo) & (pl.col("drop_rate") < hi))


def _timeout_share(t: pl.DataFrame) -> float:
    """Of the loss repairs of ``t``'s streams, the share that were retransmission timeouts (timeouts
    over timeouts plus fast recoveries); NaN for streams that repaired nothing."""
    timeouts, fast = float(t["timeouts"].sum()), float(t["fast_recoveries"].sum())
    return timeouts / (timeouts + fast) if timeouts + fast else float("nan")


def _timeout_claim(streams: pl.DataFrame) -> Claim:
    """pertlab's test of why PERT's streams fail at Fig 8's high loss: the early responses keep the
    window below what three duplicate ACKs need, so losses end in timeouts. In the loss bin, PERT
    against Reno; over every stream of the same runs, PERT against itself without early responses
    (whose streams lose less and seldom fall in the bin)."""
    lo, hi, in_bin = _high_loss(streams)
    ccs = ("pert-adaptive", "sack")
    bin_ = {cc: in_bin.filter(pl.col("cc") == cc) for cc in ccs}
    every = {cc: streams.filter(pl.col("cc") == cc) for cc in ("pert-adaptive", v.NO_EARLY_RESPONSE)}
    share_bin = {cc: _timeout_share(t) for cc, t in bin_.items()}
    share_all = {cc: _timeout_share(t) for cc, t in every.items()}

    def shown(t: pl.DataFrame, share: float) -> str:
        if not t.height:
            return "no stream"
        return (f"{share:.3g} ({t.height} streams: {t['timeouts'].mean():.3g} timeouts and {t['fast_recoveries'].mean():.3g} fast "
                f"recoveries each, goodput {t['goodput_mbps'].mean():.3g} Mbit/s, success {t['success'].mean():.3g})")  # fmt: skip

    return Claim(
        f"pertlab: at loss {lo:.2f}-{hi:.2f}, PERT's early responses keep its streams' windows too small for three duplicate "
        f"ACKs, so more of their losses end in timeouts: of their loss repairs, the share that are timeouts is at least "
        f"{TIMEOUT_SHARE_RATIO:g} times Reno's in the same loss range and {TIMEOUT_SHARE_RATIO:g} times that of PERT without early "
        f"responses ({v.NO_EARLY_RESPONSE}) over the same runs.",
        all(bin_[cc].height for cc in ccs)
        and share_bin["pert-adaptive"] >= TIMEOUT_SHARE_RATIO * share_bin["sack"]
        and share_all["pert-adaptive"] >= TIMEOUT_SHARE_RATIO * share_all[v.NO_EARLY_RESPONSE],
        f"timeouts among loss repairs at loss {lo:.2f}-{hi:.2f}: " + "; ".join(f"{cc} {shown(bin_[cc], share_bin[cc])}" for cc in ccs)
        + "; over every stream of the same runs: " + "; ".join(f"{cc} {shown(every[cc], share_all[cc])}" for cc in every),
    )


def _wait_and_shortfall(t: pl.DataFrame) -> tuple[float, float]:
    """Of ``t``'s streams, the mean share of the window spent waiting on retransmission timeouts,
    and the mean shortfall of the goodput from the video rate, as a share of that rate."""
    wait = (t["rto_wait_s"] / t["window_s"]).mean()
    shortfall = (1 - t["goodput_mbps"] * 1000 / t["video_kbps"]).mean()
    return float(wait), float(shortfall)


def _timeout_wait_claim(streams: pl.DataFrame) -> Claim:
    """pertlab's test of how much of PERT's failure at Fig 8's high loss the timeouts can carry: a
    stream's window does not move while it waits on the retransmission timer (an ACK that moved it
    would restart the timer), so if that time is smaller than its shortfall from the video rate,
    something else must make up the difference."""
    lo, hi, in_bin = _high_loss(streams)
    ccs = ("pert-adaptive", "sack")
    t = {cc: in_bin.filter(pl.col("cc") == cc) for cc in ccs}
    measured = all(x.height for x in t.values())
    ws = {cc: _wait_and_shortfall(x) for cc, x in t.items() if x.height}

    def shown(cc: str) -> str:
        if cc not in ws:
            return f"{cc}: no stream"
        (wait, shortfall), x = ws[cc], t[cc]
        return (f"{cc} ({x.height} streams): waiting {wait:.3g} of the window ({x['rto_wait_s'].mean():.4g} s in "
                f"{x['timeouts'].mean():.4g} timeouts, {x['rto_wait_s'].sum() / max(x['timeouts'].sum(), 1):.3g} s each), "
                f"shortfall {shortfall:.3g}")  # fmt: skip

    return Claim(
        f"pertlab: at loss {lo:.2f}-{hi:.2f}, PERT's streams spend at least as large a share of the run waiting on retransmission "
        f"timeouts as they fall short of the video rate (so the timeouts alone can account for the shortfall), and at least "
        f"{TIMEOUT_SHARE_RATIO:g} times the share Reno's streams in the same loss range wait.",
        measured and ws["pert-adaptive"][0] >= ws["pert-adaptive"][1] > 0 and ws["pert-adaptive"][0] >= TIMEOUT_SHARE_RATIO * ws["sack"][0],
        f"at loss {lo:.2f}-{hi:.2f}, share of the window waiting on timeouts against the shortfall of goodput from the video "
        "rate: " + "; ".join(shown(cc) for cc in ccs),
    )


#: "About as often as Reno's" in the test of the cause: within this share of the streams.
SAME_SUCCESS = 0.1


def _early_response_claim(streams: pl.DataFrame) -> Claim:
    """pertlab's test of the note's explanation, over every stream of the same loads and seeds."""
    by = {cc: streams.filter(pl.col("cc") == cc) for cc in ("pert-adaptive", v.NO_EARLY_RESPONSE, "sack")}
    ok = {cc: float(t["success"].mean()) for cc, t in by.items()}
    rate = by[v.NO_EARLY_RESPONSE]["early_responses_per_s"].mean()
    return Claim(
        f"pertlab: PERT's early responses are why its streams fail: without them ({v.NO_EARLY_RESPONSE}) its streams succeed about as "
        f"often as Reno's at the same loads (within {SAME_SUCCESS:g}) and more often than PERT's.",
        ok[v.NO_EARLY_RESPONSE] >= ok["sack"] - SAME_SUCCESS and ok[v.NO_EARLY_RESPONSE] > ok["pert-adaptive"],
        f"success over all streams of the same runs: pert-adaptive {ok['pert-adaptive']:.3g}, {v.NO_EARLY_RESPONSE} {ok[v.NO_EARLY_RESPONSE]:.3g} "
        f"({rate:.3g} early responses per second, goodput {by[v.NO_EARLY_RESPONSE]['goodput_mbps'].mean():.3g} Mbit/s), sack {ok['sack']:.3g}",
    )


#: "Much of the gap": the share of the gap between PERT's and Reno's success (all streams of the
#: same loads) that alpha at its target must close.
RAMP_CLOSES = 0.5


def _alpha_ramp_claim(streams: pl.DataFrame) -> Claim:
    """pertlab's test of the compete-mode alpha ramp (:data:`v.ALPHA_AT_TARGET`): over every stream
    of the same loads and seeds, and in Fig 9's T/mu range."""
    ccs = ("pert-adaptive", v.ALPHA_AT_TARGET, v.QIAN_COMPETE, "sack")
    by_cc = {cc: streams.filter(pl.col("cc") == cc) for cc in ccs}
    ok = {cc: float(t["success"].mean()) for cc, t in by_cc.items()}
    lo, hi = v.CLAIM_BIN
    in_bin = claim_bin(streams)

    def compete_by_load(cc: str) -> str:
        t = by_cc[cc].group_by("streams").agg(pl.col("compete_s").mean()).sort("streams")
        return f"{cc} " + ", ".join(f"{n}: {c:.0f}" for n, c in t.iter_rows())

    return Claim(
        f"pertlab: the compete-mode alpha ramp, whose speed neither thesis gives (spec C8; 0.1 per period is the third-party port's), "
        f"decides much of PERT's failure: with alpha at its target min(alpha_max, 1 + p'/p) at each period's end ({v.ALPHA_AT_TARGET}, "
        f"Qian's Chapter II reading of compete mode) PERT's streams close at least {RAMP_CLOSES:.0%} of the gap to Reno's success at the same loads.",
        ok[v.ALPHA_AT_TARGET] - ok["pert-adaptive"] >= RAMP_CLOSES * (ok["sack"] - ok["pert-adaptive"]),
        "success over all streams of the same runs: " + ", ".join(f"{cc} {ok[cc]:.3g}" for cc in ccs)
        + f"; mean T/mu {by_cc[v.ALPHA_AT_TARGET]['t_mu'].mean():.3g} ({v.ALPHA_AT_TARGET}) against {by_cc['pert-adaptive']['t_mu'].mean():.3g}; "
        f"seconds of the window in compete mode, by load (streams): {'; '.join(compete_by_load(cc) for cc in ccs[:3])}; "
        f"at T/mu in [{lo}, {hi}]: " + ", ".join(shown_in_bin(in_bin, cc) for cc in ccs),
    )


#: The T/mu ranges of Figs 10 and 11 (Section III.A.2).
STARTUP_RANGES = {"Fig 10": (1.0, 1.4), "Fig 11": (1.4, 1.8)}


def _startup_table(streams: pl.DataFrame) -> pl.DataFrame:
    """Per figure's T/mu range, controller and start-up delay: streams and success fraction."""
    return _by_delay(streams, "t_mu", [({"figure": fig, "t_mu_range": f"{lo}-{hi}"}, lo, hi) for fig, (lo, hi) in STARTUP_RANGES.items()])


def _by_delay(streams: pl.DataFrame, column: str, ranges: list[tuple[dict[str, str], float, float]], controllers: Sequence[str] = v.CONTROLLERS) -> pl.DataFrame:
    """Per range [lo, hi) of ``column`` (with its label columns), controller and start-up delay:
    the streams in the range and the fraction that succeed at that delay."""
    rows = []
    for labels, lo, hi in ranges:
        part = streams.filter((pl.col(column) >= lo) & (pl.col(column) < hi))
        for cc in controllers:
            t = part.filter(pl.col("cc") == cc)
            for d in v.STARTUP_DELAYS_S:
                rows.append({**labels, "cc": cc, "startup_delay_s": float(d), "streams": t.height,
                             "success_fraction": float(t[f"success_{d}s"].mean()) if t.height else None})  # fmt: skip
    return pl.DataFrame(rows, schema_overrides={"success_fraction": pl.Float64})


def _draw_by_delay(path: Path, table: pl.DataFrame, key: str, panels: list[tuple[str, str]], title: str, width: float) -> None:
    """One panel per ``(value of key, panel title)``: each controller's success fraction against the start-up delay."""
    with saved_figure(path, 1, len(panels), figsize=(width, 3.8), title=title) as (_, axes):
        for ax, (value, panel_title) in zip(axes, panels):
            for cc in v.CONTROLLERS:
                t = table.filter((pl.col(key) == value) & (pl.col("cc") == cc) & (pl.col("streams") > 0))
                if t.height:
                    ax.plot(t["startup_delay_s"].to_list(), t["success_fraction"].to_list(), marker="o", label=f"{cc} ({t['streams'][0]} streams)")
            ax.set(title=panel_title, xlabel="start-up delay (s)", ylabel="success fraction", ylim=(-0.05, 1.05))
            ax.legend(fontsize=7)


def _startup_claims(startup: pl.DataFrame) -> list[Claim]:
    def success(fig: str, cc: str) -> dict[float, float]:
        t = startup.filter((pl.col("figure") == fig) & (pl.col("cc") == cc) & (pl.col("streams") > 0))
        return dict(zip(t["startup_delay_s"].to_list(), t["success_fraction"].to_list()))

    def shown(fig: str) -> str:
        parts = [f"{cc}: {fmt_values(list(s.values()))}" if (s := success(fig, cc)) else f"{cc}: no stream in the range" for cc in v.CONTROLLERS]
        return f"success at {fmt_values(list(v.STARTUP_DELAYS_S))} s: " + "; ".join(parts)

    p10, c10, r10 = (success("Fig 10", cc) for cc in ("pert-adaptive", "cubic", "sack"))
    p11, c11 = (success("Fig 11", cc) for cc in ("pert-adaptive", "cubic"))
    late = [d for d in map(float, v.STARTUP_DELAYS_S) if d > 11]
    return [
        Claim("Fig 10: at T/mu in [1.0, 1.4), PERT's success is at least CUBIC's and CUBIC's at least Reno's at every start-up delay.",
              bool(p10 and c10 and r10) and all(p10[d] >= c10[d] >= r10[d] for d in p10), shown("Fig 10")),
        Claim("Fig 11: at T/mu in [1.4, 1.8), PERT's and CUBIC's streams reach about 100 % success with start-up delays above 11 s (at least 0.9).",
              bool(p11 and c11) and all(min(p11[d], c11[d]) >= 0.9 for d in late), shown("Fig 11")),
    ]  # fmt: skip


def main_path(streams: pl.DataFrame) -> pl.DataFrame:
    """The streams of the main runs (:data:`v.MAIN`: 100 ms, 1000-byte packets)."""
    return on_path(streams, v.MAIN)


def _video_figures(report: Report) -> list[Figure]:
    streams = main_path(report.tables["streams"])
    startup = report.tables["startup"]

    def draw_startup(path: Path) -> None:
        panels = [(fig, f"{fig}: T/mu in [{lo}, {hi})") for fig, (lo, hi) in STARTUP_RANGES.items()]
        _draw_by_delay(path, startup, "figure", panels, "Figs 10, 11: video success against the start-up delay", 11)

    def draw(path: Path) -> None:
        with saved_figure(path, 1, 1, figsize=(6, 3.8), title="Fig 9: video success against T/mu") as (_, ax):
            for cc in v.CONTROLLERS:
                t = streams.filter(pl.col("cc") == cc).group_by("t_mu").agg(pl.col("success").mean()).sort("t_mu")
                ax.plot(t["t_mu"].to_list(), t["success"].to_list(), marker="o", label=cc)
            for lo, _ in v.BINS:
                ax.axvline(lo, color="grey", lw=0.4)
            ax.set_xlabel("T / mu (one point per run)")
            ax.set_ylabel("success fraction")
            ax.legend(fontsize=8)

    def draw_late(path: Path) -> None:
        with saved_figure(path, 1, 1, figsize=(6, 3.8), title="Late packets: CDF of the streams' late fractions") as (_, ax):
            for cc in v.CONTROLLERS:
                late = sorted(streams.filter(pl.col("cc") == cc)["late_fraction"].to_list())
                if late:
                    ax.step(late, [(i + 1) / len(late) for i in range(len(late))], where="post", label=f"{cc} ({len(late)} streams)")
            ax.axvline(v.SUCCESS_LATE_FRACTION, color="grey", lw=0.6, ls="--")
            ax.set_xscale("symlog", linthresh=v.SUCCESS_LATE_FRACTION / 10)
            ax.set(xlabel="late fraction of a stream's packets", ylabel="fraction of streams", xlim=(0, 1.05), ylim=(0, 1.02))
            ax.legend(fontsize=8)

    loss = report.tables["loss"]

    def draw_loss(path: Path) -> None:
        panels = [(b, f"stream loss rate {b}") for b in (f"{lo:.2f}-{hi:.2f}" for lo, hi in v.LOSS_BINS)]
        _draw_by_delay(path, loss, "loss_range", panels, "Figs 8, 12: video success against the start-up delay, per loss-rate bin", 13)

    return [
        Figure(f"{VIDEO_NAME}.png", "Fraction of a run's streams that succeed (late fraction < 1e-4) against the run's T/mu; grey lines: the thesis's bins.", draw),
        Figure(f"{VIDEO_NAME}-loss.png", "Figs 8 and 12: the fraction of the streams whose own loss rate falls in each of the thesis's bins that succeed, "
               "against the start-up delay, per controller, over every T/mu.", draw_loss),
        Figure(f"{VIDEO_NAME}-startup.png", "Figs 10 and 11: the fraction of the streams in each T/mu range that succeed, against the start-up delay, per controller "
               "(a controller without streams in the range is not drawn).", draw_startup),
        Figure(f"{VIDEO_NAME}-late.png", f"CDF of the streams' late fractions per controller, every run and load pooled "
               f"({streams.height} streams in all); dashed: the success threshold "
               f"{v.SUCCESS_LATE_FRACTION:g}; the axis is linear below {v.SUCCESS_LATE_FRACTION / 10:g}.", draw_late),
    ]  # fmt: skip


register(Entry(VIDEO_NAME, VIDEO_TITLE, "Qian, MS thesis, 2011, Chapter III.A", _video, _video_figures, _video_scenarios, details=("streams",)))
