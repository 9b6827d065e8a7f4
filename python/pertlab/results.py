"""Results of a run: the core's JSON as polars tables, and their files.

The core reports summaries over the measurement window (one row per queue,
per TCP flow, per UDP source) and optional time series in columns. Metric
definitions are the core's (``crates/pertlab-sim/src/stats/mod.rs``,
docs/model.md "Metrics"): time-weighted average queue; every rate a ratio of
counts of one population over the window, in [0, 1] (a queue's drop rate =
drops / (departures + drops), the packets whose fate it decided; a flow's =
data packets lost / (data packets received + lost)); utilization = bits sent /
(capacity x window); goodput excludes retransmissions; Jain's index over TCP
goodputs. ``controllers`` sums the flows of each label (share of the long
flows' goodput, drop rate as a flow's); the thesis's "drop ratio" of one label
to another is :func:`drop_ratio`, and nothing else computes it. A ratio, mean or
percentile over an empty set is undefined: None here, null in the JSON and the
Parquet files (a rate of a queue or flow with no packet decided, Jain's index and
every share when no long flow delivered anything, the RTT statistics of a flow
without a sample, web response times without a completed object, ...). The RTT samples
of a traced flow grouped by the sequence number of the segment each measures,
modulo k (Qian 2011, Fig 18b), are :func:`rtt_by_seq_mod`.

:meth:`Results.write` saves

- ``summary.json``: every scalar and per-row summary (no time series), without
  the wall-clock time, so that two runs of one scenario give identical bytes;
- ``flows.parquet``, ``queues.parquet``, ``udp.parquet``,
  ``controllers.parquet``, ``queue_positions.parquet``, ``video_playout.parquet``,
  ``queue_series.parquet``, ``flow_series.parquet``, and ``class_trace.parquet`` when a
  multi-class queue keeps per-packet waits (``sched.trace_packets``);
- ``scenario.json``: the scenario in the core's wire format (loads back with
  :meth:`pertlab.Scenario.load`);
- ``run_info.json``: what differs between identical runs (wall-clock seconds,
  versions).
"""

from __future__ import annotations

import json
import warnings as _warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .jsonable import dumps
from .ack_hold import ack_hold_warnings
from .backlog import backlog_warnings
from .lockstep import lockstep_warnings
from .scenario import Scenario

if TYPE_CHECKING:
    import polars as pl

# polars (about 0.15 s to import) and the tables' column types (pertlab.tables) are imported
# when a table is first read: a run printed as JSON, and the summary, need no DataFrame
# (issue 21's start-up time).

__all__ = ["Results", "CaptureWarning", "SUCCESS_LATE_FRACTION", "drop_ratio", "empty_run_warnings", "undue_video_warnings", "rtt_by_seq_mod", "MAX_SEQ_MOD"]

#: A video stream succeeds when its late fraction is below this (Qian 2011, III.A.1, after Wang
#: et al.: success is a late fraction below 10^-4). The core decides ``video_success`` (its
#: ``SUCCESS_LATE_FRACTION``, crates/pertlab-sim/src/traffic/video.rs, which it does not export);
#: this is its value for Python's labels and plots, and tests/python/test_offline_testbed.py
#: checks it against ``pertlab._core.video_playout`` on both sides of it.
SUCCESS_LATE_FRACTION = 1e-4
#: :data:`SUCCESS_LATE_FRACTION` as the labels write it: "1e-4".
SUCCESS_LATE_FRACTION_TEXT = f"{SUCCESS_LATE_FRACTION:.0e}".replace("e-0", "e-")


class CaptureWarning(RuntimeWarning):
    """A ``capture`` file could not be written to the end (the disk filled, the file went
    away): the message names ``capture[i].file``, the file and the error; the run itself is whole."""

SERIES = ("queue_series", "flow_series", "trace", "class_traces")
TABLES = ("flows", "queues", "udp", "controllers", "queue_positions", "video_playout", "queue_series", "flow_series")
# Fields of the core's results that change between identical runs.
RUN_INFO = ("wall_seconds",)
#: What :meth:`Results.read` needs of a ``summary.json``, with their JSON types: a file without
#: them (another tool's, one cut down by hand) is refused, not read into a :class:`KeyError` later.
SUMMARY_KEYS: dict[str, type | tuple[type, ...]] = {
    "flows": list, "queues": list, "udp": list, "bottleneck": (dict, type(None)), "window_start_s": (int, float), "window_end_s": (int, float),
    "seed": int, "sim_seconds": (int, float), "events": int, "conservation": dict, "jain": (int, float, type(None)),
}  # fmt: skip


class Results:
    """What a run produced. Tables are polars DataFrames, built on first use."""

    def __init__(self, data: dict[str, Any], scenario: Scenario | None = None):
        self.data = data
        self.scenario = scenario
        self._frames: dict[str, pl.DataFrame] = {}

    def __repr__(self) -> str:
        d = self.data
        state = ", interrupted" if self.interrupted else ""
        return (
            f"Results({len(d['flows'])} flows, {len(d['queues'])} queues, {len(d['udp'])} udp, "
            f"window {d['window_start_s']:g}..{d['window_end_s']:g} s, seed {d['seed']}{state})"
        )

    @classmethod
    def from_json(cls, text: str, scenario: Scenario | None = None) -> Results:
        """The results of a run the core just made, from its JSON text. A capture whose file
        could not be written to the end is reported now, as a :class:`CaptureWarning`, and
        stays in :attr:`warnings`."""
        results = cls(json.loads(text), scenario)
        for error in results.data.get("capture_errors", []):
            _warnings.warn(error, CaptureWarning, stacklevel=2)
        return results

    # -- scalars --

    @property
    def summary(self) -> dict[str, Any]:
        """Everything but the time series: bottleneck, queues, flows, udp, jain,
        events, wall_seconds, interrupted, conservation, warnings, window and seed."""
        return {k: v for k, v in self.data.items() if k not in SERIES} | {"warnings": self.warnings}

    @property
    def bottleneck(self) -> dict[str, Any] | None:
        return self.data.get("bottleneck")

    @property
    def web(self) -> dict[str, Any] | None:
        """Web objects completed in the window (response times in ms), or None without web sessions."""
        return self.data.get("web")

    @property
    def jain(self) -> float | None:
        """Jain's index over the long TCP flows' goodputs; None without a flow or when every
        goodput is 0."""
        return self.data["jain"]

    @property
    def interrupted(self) -> bool:
        return bool(self.data.get("interrupted"))

    @property
    def warnings(self) -> list[str]:
        """The captures that could not be written to the end (``capture_errors``, each naming its
        ``capture[i].file``), the queues whose discipline can never act on their buffer
        (``queue_warnings``: RED's min_th at or above it, CoDel's or PIE's delay threshold
        beyond what it holds), what makes the run's numbers meaningless
        (:func:`empty_run_warnings`, :func:`undue_video_warnings`) or unlike real hosts'
        (:func:`pertlab.lockstep.lockstep_warnings`), the FAST and Vegas flows whose backlog
        targets the bottleneck cannot hold (:func:`pertlab.backlog.backlog_warnings`), and the
        delay-based flows that read their receivers' ACK hold as queueing delay
        (:func:`pertlab.ack_hold.ack_hold_warnings`); empty when nothing does."""
        if "warnings" not in self.data:
            core = list(self.data.get("capture_errors", [])) + list(self.data.get("queue_warnings", []))
            self.data["warnings"] = (
                core + empty_run_warnings(self.data) + undue_video_warnings(self.data, self.scenario) + lockstep_warnings(self.data, self.scenario)
                + backlog_warnings(self.data, self.scenario) + ack_hold_warnings(self.data, self.scenario)
            )
        return self.data["warnings"]

    @property
    def conservation(self) -> dict[str, Any]:
        return self.data["conservation"]

    # -- tables --

    @property
    def flows(self) -> pl.DataFrame:
        """One row per TCP flow: goodput, drops, RTT statistics over the window."""
        from .tables import FLOW_SCHEMA, rows_frame

        return self._frame("flows", lambda: rows_frame([{k: v for k, v in f.items() if k != "video_playout"} for f in self.data["flows"]], FLOW_SCHEMA))

    @property
    def video_playout(self) -> pl.DataFrame:
        """One row per video flow and further start-up delay (``VideoSpec.startup_delays``): the
        flow's ``video_packets``, ``video_late``, ``video_late_fraction`` and ``video_success``
        had its client started playback after that delay (Qian 2011, Figs 7, 8, 10-12)."""
        from .tables import VIDEO_PLAYOUT_SCHEMA, rows_frame

        rows = [{"flow": f["id"], **p} for f in self.data["flows"] for p in f.get("video_playout", [])]
        return self._frame("video_playout", lambda: rows_frame(rows, VIDEO_PLAYOUT_SCHEMA))

    @property
    def queues(self) -> pl.DataFrame:
        """One row per queue (each direction of each link), named by ``link``, ``from``, ``to``."""
        from .tables import QUEUE_SCHEMA, rows_frame

        return self._frame("queues", lambda: rows_frame(self.data["queues"], QUEUE_SCHEMA))

    @property
    def controllers(self) -> pl.DataFrame:
        """One row per flow label (default the controller's name; the dumbbell
        builder's names such as ``sack``, ``pert``): flows, goodput_mbps (sum),
        share of all long flows' goodput, segments_sent, segments_received, drops,
        drop_rate = drops / (segments_received + drops)."""
        from .tables import CONTROLLER_SCHEMA, rows_frame

        return self._frame("controllers", lambda: rows_frame(self.data.get("controllers", []), CONTROLLER_SCHEMA))

    @property
    def queue_positions(self) -> pl.DataFrame:
        """Positions (packets waiting + 1) of the data packets the queue named by
        ``monitor.queue_positions`` accepted in the window: label, position,
        count, non-zero rows only (empty when not configured)."""
        from .tables import QUEUE_POSITION_SCHEMA, columns_frame

        cols = self.data.get("queue_positions") or {}
        return self._frame("queue_positions", lambda: columns_frame({k: cols.get(k, []) for k in QUEUE_POSITION_SCHEMA}, QUEUE_POSITION_SCHEMA))

    @property
    def udp(self) -> pl.DataFrame:
        """One row per UDP source."""
        from .tables import UDP_SCHEMA, rows_frame

        return self._frame("udp", lambda: rows_frame(self.data["udp"], UDP_SCHEMA))

    @property
    def schedulers(self) -> pl.DataFrame:
        """One row per multi-class queue (kinds priority, wtp, swtp, bpr): decisions and
        operations per decision in the window, K of its delay-ratio windows."""
        from .tables import SCHEDULER_SCHEMA, rows_frame

        return self._frame("schedulers", lambda: rows_frame(self.data.get("schedulers", []), SCHEDULER_SCHEMA))

    @property
    def classes(self) -> pl.DataFrame:
        """One row per class of each multi-class queue: arrivals, drops, departures, mean
        wait (ms and packet-transmission times), the long-run ratio of its mean wait to the
        next class's, and the 5/25/50/75/95th percentiles of that ratio over windows of K
        departures (Hua's thesis section 5.4)."""
        from .tables import CLASS_SCHEMA, rows_frame

        return self._frame("classes", lambda: rows_frame(self.data.get("classes", []), CLASS_SCHEMA))

    @property
    def class_trace(self) -> pl.DataFrame:
        """The waits of the first ``sched.trace_packets`` departures of each multi-class
        queue that keeps them, one row per packet from the measurement window's start:
        departure time, class, wait from arrival to the start of transmission in ms and in
        packet-transmission times (as ``classes.mean_wait_tx``; Hua's Fig 5.3)."""
        import polars as pl

        from .tables import CLASS_TRACE_SCHEMA, columns_frame

        def build() -> pl.DataFrame:
            frames = [
                columns_frame({**{k: t[k] for k in ("t_s", "class", "wait_ms", "wait_tx")}, **{k: [t[k]] * len(t["t_s"]) for k in ("link", "from", "to")}}, CLASS_TRACE_SCHEMA)
                for t in self.data.get("class_traces", [])
            ]  # fmt: skip
            return pl.concat(frames) if frames else pl.DataFrame(schema=CLASS_TRACE_SCHEMA)

        return self._frame("class_trace", build)

    @property
    def queue_series(self) -> pl.DataFrame:
        """Queue samples: length, the discipline's probability, average and max_p, and the
        ``utilization`` of the link the queue feeds over the interval since the previous sample
        (the fraction of it the link was transmitting, as the summary's; 0 at t = 0);
        ``queue`` indexes :attr:`queues`, whose link and direction are joined in as ``link``,
        ``from``, ``to``."""
        import polars as pl

        from .tables import QUEUE_SERIES_SCHEMA, columns_frame

        def build() -> pl.DataFrame:
            series = columns_frame(self.data["queue_series"], QUEUE_SERIES_SCHEMA)
            names = self.queues.select(
                pl.int_range(pl.len(), dtype=pl.UInt32).alias("queue"), "link", "from", "to"
            )
            return series.join(names, on="queue", how="left", maintain_order="left")

        return self._frame("queue_series", build)

    @property
    def bottleneck_series(self) -> pl.DataFrame:
        """The rows of :attr:`queue_series` of the bottleneck's queue (:attr:`bottleneck`'s link
        and direction); none without a bottleneck."""
        import polars as pl

        b = self.bottleneck
        if b is None:
            return self.queue_series.clear()
        return self.queue_series.filter((pl.col("link") == b["link"]) & (pl.col("from") == b["from"]))

    @property
    def flow_series(self) -> pl.DataFrame:
        """cwnd, ssthresh, srtt and delivered bytes of the sampled flows; ``cc`` joined in.
        Every PERT flow also has ``qdelay_ms``, the queueing delay it estimates and responds to
        (srtt_0.99 - P), and ``p_response``, the early-response probability each ACK is drawn
        with (the AQM it emulates); adaptive PERT flows ``mode``, ``alpha``, ``beta``, ``p``, ``p_early`` and
        ``q_max_ms``, JCC flows ``r``, the last path load reduction
        factor R echoed, as a probability (null for other controllers)."""
        import polars as pl

        from .tables import FLOW_SERIES_SCHEMA, columns_frame

        def build() -> pl.DataFrame:
            series = columns_frame(self.data["flow_series"], FLOW_SERIES_SCHEMA)
            ccs = self.flows.select(pl.col("id").alias("flow"), "cc")
            return series.join(ccs, on="flow", how="left", maintain_order="left")

        return self._frame("flow_series", build)

    def flow_goodput(self) -> pl.DataFrame:
        """Each sampled flow's goodput between consecutive flow samples, ``mbps``
        (Mbit/s of payload delivered in order), at the sample ending the interval."""
        import polars as pl

        fs = self.flow_series.sort("flow", "t_s")
        return fs.with_columns(
            (pl.col("delivered_bytes").cast(pl.Float64).diff().over("flow") * 8 / pl.col("t_s").diff().over("flow") / 1e6).alias("mbps")
        ).drop_nulls("mbps")

    def _trace(self, name: str) -> pl.DataFrame:
        from .tables import TRACE_TABLES, columns_frame

        prefix, schema = TRACE_TABLES[name]
        trace = self.data.get("trace") or {}
        return self._frame(name, lambda: columns_frame({k: trace.get(prefix + k, []) for k in schema}, schema))

    @property
    def trace_rtt(self) -> pl.DataFrame:
        """Every RTT sample of the traced flows (``ms``), the segment it measures (``seq``: the one
        whose timestamp the ACK echoed, by ``tcp.ts_echo``; with ``tcp.rtt_samples = "linux"`` the
        controller's sample and its segment), their window and the traced queue's length."""
        return self._trace("trace_rtt")

    @property
    def trace_losses(self) -> pl.DataFrame:
        """Losses of the traced flows' data packets, anywhere."""
        return self._trace("trace_losses")

    @property
    def trace_drops(self) -> pl.DataFrame:
        """Drops at the traced link's queue, of any flow."""
        return self._trace("trace_drops")

    @property
    def trace_queue_limit(self) -> int:
        """Buffer of the traced queue, packets."""
        return int((self.data.get("trace") or {}).get("queue_limit_pkts", 0))

    def _frame(self, name: str, build) -> pl.DataFrame:
        if name not in self._frames:
            self._frames[name] = build()
        return self._frames[name]

    # -- files --

    def write(self, out_dir: str | Path) -> Path:
        """Write the result files (see the module doc) into ``out_dir``; returns it."""
        from .tables import TRACE_TABLES

        out = _directory(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        for name in TABLES:
            getattr(self, name).write_parquet(out / f"{name}.parquet", compression="zstd", statistics=True)
        if self.trace_rtt.height or self.trace_drops.height:
            for name in TRACE_TABLES:
                getattr(self, name).write_parquet(out / f"{name}.parquet", compression="zstd", statistics=True)
            (out / "trace.json").write_text(dumps({"queue_limit_pkts": self.trace_queue_limit}) + "\n")
        if self.class_trace.height:
            self.class_trace.write_parquet(out / "class_trace.parquet", compression="zstd", statistics=True)
        summary = {k: v for k, v in self.summary.items() if k not in RUN_INFO}
        (out / "summary.json").write_text(dumps(summary, indent=2) + "\n")
        if self.scenario is not None:
            (out / "scenario.json").write_text(self.scenario.to_wire_json(indent=2) + "\n")
        (out / "run_info.json").write_text(dumps(self._run_info(), indent=2) + "\n")
        return out

    def _run_info(self) -> dict[str, Any]:
        from . import __version__, _core

        info = {k: self.data.get(k) for k in RUN_INFO}
        return {**info, "pertlab": __version__, "core": _core.version()}

    @classmethod
    def read(cls, out_dir: str | Path) -> Results:
        """Load what :meth:`write` saved (time series from Parquet)."""
        import polars as pl

        from .tables import FLOW_SERIES_SCHEMA, QUEUE_SERIES_SCHEMA, TRACE_TABLES

        out = _directory(out_dir)
        if not (out / "summary.json").is_file():
            raise ValueError(f"out_dir: {str(out)!r} holds no results (no summary.json); Results.write writes them")
        data = json.loads((out / "summary.json").read_text())
        missing = [k for k, kind in SUMMARY_KEYS.items() if not isinstance(data, dict) or not isinstance(data.get(k), kind)]
        if missing:
            raise ValueError(f"{out / 'summary.json'}: not a summary pertlab wrote ({'it is not an object' if not isinstance(data, dict) else 'no ' + ', '.join(missing)})")
        info = json.loads((out / "run_info.json").read_text())
        data.update({k: info[k] for k in RUN_INFO})
        for name in ("queue_series", "flow_series"):
            frame = pl.read_parquet(out / f"{name}.parquet")
            schema = QUEUE_SERIES_SCHEMA if name == "queue_series" else FLOW_SERIES_SCHEMA
            data[name] = {k: frame[k].to_list() for k in schema if k in frame.columns}
        if (out / "trace.json").exists():
            data["trace"] = json.loads((out / "trace.json").read_text())
            for name, (prefix, schema) in TRACE_TABLES.items():
                frame = pl.read_parquet(out / f"{name}.parquet")
                data["trace"].update({prefix + k: frame[k].to_list() for k in schema})
        if (out / "class_trace.parquet").exists():
            frame = pl.read_parquet(out / "class_trace.parquet")
            data["class_traces"] = [
                {"link": link, "from": a, "to": b, **{k: g[k].to_list() for k in ("t_s", "class", "wait_ms", "wait_tx")}}
                for (link, a, b), g in frame.group_by("link", "from", "to", maintain_order=True)
            ]  # fmt: skip
        scenario_file = out / "scenario.json"
        scenario = Scenario.load(scenario_file) if scenario_file.exists() else None
        return cls(data, scenario)


def _directory(out_dir: Any) -> Path:
    """``out_dir`` of :meth:`Results.write` and :meth:`Results.read` as a path; anything but a
    non-empty path (an empty text would be the current directory) is an error naming it."""
    import os

    if not isinstance(out_dir, (str, os.PathLike)):
        raise TypeError(f"out_dir: must be the path of a directory, got {out_dir!r}")
    if out_dir == "":
        raise ValueError("out_dir: must be the path of a directory, got '' (write '.' for the current directory)")
    return Path(out_dir)


def empty_run_warnings(data: dict[str, Any]) -> list[str]:
    """Warnings of a run nobody wants, from the core's summary: the run stopped before its
    measurement window opened (then only that), the bottleneck (the
    link named ``bottleneck``, else the busiest queue) sent no packet in the
    measurement window, or a TCP flow had no RTT sample (no round trip completed)
    by the end of the window (the core reports ``rtt_min_ms`` None then)."""
    out = []
    window = f"[{data['window_start_s']:g}, {data['window_end_s']:g}] s"
    if data["window_end_s"] <= data["window_start_s"]:
        # Stopped (interrupted, or a step run read early) before the window opened: every
        # figure is over no time at all.
        return [f"the run stopped at {data['window_end_s']:g} s, before its measurement window opened: its rates, "
                "averages and utilizations are over an empty window (0), not measured"]
    b = data.get("bottleneck")
    if b is not None and b["departures"] == 0:
        out.append(f"the bottleneck ({b['link']}: {b['from']} -> {b['to']}) carried no packet in the measurement window {window}")
    silent = [f for f in data["flows"] if f["rtt_min_ms"] is None]
    if silent:
        ids = ", ".join(f"{f['id']} ({f['label']}, starts at {f['start_s']:g} s)" for f in silent[:5])
        more = f" and {len(silent) - 5} more" if len(silent) > 5 else ""
        out.append(f"{len(silent)} of {len(data['flows'])} TCP flows completed no round trip by the end of the window {window}: {ids}{more}")
    return out


def undue_video_warnings(data: dict[str, Any], scenario: Scenario | None) -> list[str]:
    """A warning when the run ended before some video stream's first segment was due at one of its
    start-up delays (stream start + delay after the end): its late fraction and success there count
    only the segments delivered ahead of their deadlines, so a stream far slower than its video
    rate still "succeeds" (found by generated command lines: ``--video 1@200Mbps`` over 10 Mbit/s
    for 2 s, success 1.00). None without the scenario (the own start-up delay is in it)."""
    if scenario is None or len(scenario.flows) > len(data["flows"]):
        return []
    end = data["sim_seconds"]
    undue: dict[float, int] = {}
    streams = 0
    for spec, flow in zip(scenario.flows, data["flows"]):
        if spec.video is None:
            continue
        streams += 1
        for delay in (spec.video.startup_delay / 1e9, *(d / 1e9 for d in spec.video.startup_delays)):
            if flow["start_s"] + delay > end:
                undue[delay] = undue.get(delay, 0) + 1
    if not undue:
        return []
    at = ", ".join(f"{delay:g} s ({n} of {streams} streams)" for delay, n in sorted(undue.items()))
    return [
        f"the run ended at {end:g} s, before the first segment of a video stream was due at start-up delay {at}: "
        "their late fractions and success there count only the segments delivered early, not whether the stream "
        "keeps up with its rate; run for longer than each stream's start plus its start-up delay"
    ]


def drop_ratio(results: Results, of: str, to: str) -> float:
    """Drop rate of the flows labelled ``of`` over that of the flows labelled
    ``to`` (Kotla's "drop ratio", e.g. ``drop_ratio(r, "pert", "sack")``);
    NaN when ``to`` has a zero drop rate, or either label an undefined one (None: none
    of its data packets was decided in the window). A label not in the run is an error
    listing the labels."""
    from .arguments import check_kinds

    if not isinstance(results, Results):
        raise TypeError(f"results: must be the Results of a run (pertlab.run), got {results!r}")
    check_kinds({"of": of, "to": to}, {"of": ("str", "a flow label, e.g. 'pert'"), "to": ("str", "a flow label, e.g. 'sack'")})
    rates = dict(results.controllers.select("label", "drop_rate").iter_rows())
    for argument, name in (("of", of), ("to", to)):
        if name not in rates:
            raise ValueError(f"{argument}: no flows labelled {name!r}; labels: {', '.join(rates) or 'none'}")
    if rates[of] is None or rates[to] is None or rates[to] == 0:
        return float("nan")
    return rates[of] / rates[to]


#: The largest ``k`` of :func:`rtt_by_seq_mod`: its table has a row per group, empty ones too, so an
#: unbounded k (2**31) would allocate gigabytes; trains of coalesced ACKs are a few segments long.
MAX_SEQ_MOD = 2**16


def rtt_by_seq_mod(trace_rtt: pl.DataFrame, k: int) -> pl.DataFrame:
    """RTT samples grouped by ``seq mod k`` (Qian 2011, Chapter IV.B, Fig 18b: the samples of a
    flow whose receiver coalesces up to k ACKs, by the position of the measured segment in a
    train of k). ``trace_rtt`` is :attr:`Results.trace_rtt`, or rows of it (one flow, a time
    window); ``k`` an integer from 1 to :data:`MAX_SEQ_MOD` (else a ValueError naming k). One row
    per group 0..k-1, empty groups included: ``group``, ``samples``,
    ``mean_ms`` (null when empty) and ``diff_ms``, the group's mean minus the previous group's
    (null for group 0 and next to an empty group)."""
    import numbers

    import polars as pl

    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= MAX_SEQ_MOD:
        raise ValueError(f"k must be at least 1 and at most {MAX_SEQ_MOD} (MAX_SEQ_MOD), an integer, got {k!r}")
    groups = pl.DataFrame({"group": pl.Series(range(k), dtype=pl.UInt32)})
    means = (
        trace_rtt.select((pl.col("seq") % k).cast(pl.UInt32).alias("group"), "ms")
        .group_by("group")
        .agg(pl.len().cast(pl.UInt32).alias("samples"), pl.col("ms").mean().alias("mean_ms"))
    )
    return (
        groups.join(means, on="group", how="left")
        .sort("group")
        .with_columns(pl.col("samples").fill_null(0), pl.col("mean_ms").diff().alias("diff_ms"))
    )
