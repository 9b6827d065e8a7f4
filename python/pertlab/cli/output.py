"""What the command line prints: rich tables on stdout (made when first printed, as wide as
their cells off a terminal), ``label: message`` lines on stderr (rich only where it draws), and the
results of a run as tables or one JSON object."""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any, Iterator

import typer

from ..jsonable import dumps

if TYPE_CHECKING:
    from ..results import Results


#: Columns of stdout off a terminal (see :func:`stdout_console`).
PIPE_WIDTH = 1000


def stdout_console() -> Any:
    """A rich Console on stdout. Off a terminal (a pipe, a log file) rich would take 80 columns and
    cut the tables' labels and numbers (``pert-a…``); there a table is as wide as its cells, unless
    COLUMNS says otherwise."""
    from rich.console import Console

    piped = not sys.stdout.isatty() and "COLUMNS" not in os.environ
    return Console(width=PIPE_WIDTH) if piped else Console()


class _Console:
    """:func:`stdout_console` made when first used: importing rich takes about 25 ms, which
    `pertlab --help` and the commands that print plain text need not wait for (issue 21). Made
    again when ``sys.stdout`` is another (a caller running commands in one process, such as
    click's test runner): a console keeps the colours and width of the stdout it was made for."""

    def __init__(self) -> None:
        self._console = None
        self._stdout = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None or self._stdout is not sys.stdout:
            self._console, self._stdout = stdout_console(), sys.stdout
        return getattr(self._console, name)


out = _Console()


def rich_stderr() -> bool:
    """Whether rich may draw on stderr: a terminal, or one of the variables by which rich is told
    to treat the stream as one (FORCE_COLOR, TTY_COMPATIBLE). Elsewhere (a log, a pipe) rich would
    write plain characters and nothing live, so the command need not import it (about 25 ms;
    issue 21)."""
    return sys.stderr.isatty() or any(name in os.environ for name in ("FORCE_COLOR", "TTY_COMPATIBLE"))


@contextlib.contextmanager
def warnings_said(*categories: type[Warning]) -> Iterator[None]:
    """Inside, warnings of ``categories`` print as ``warning: ...`` lines (:func:`say`) when
    they are raised, each time, not as Python's ``file:line: Category: ...`` once."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", categories)  # type: ignore[arg-type]
        shown = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *rest: Any, **kw: Any) -> None:
            if issubclass(category, categories):
                say(str(message), "warning", "bold yellow")
            else:
                shown(message, category, *rest, **kw)

        warnings.showwarning = show  # catch_warnings puts the old one back
        yield


def say(text: str, label: str = "", style: str = "") -> None:
    """One message on stderr, ``label: text``; where rich draws (:func:`rich_stderr`) with
    ``style`` on the label (on the text if there is none), elsewhere as plain characters."""
    if not rich_stderr():
        sys.stderr.write(f"{label}: {text}\n" if label else f"{text}\n")
        return
    from rich.console import Console
    from rich.text import Text

    message = Text.assemble((f"{label}:", style), " ", text) if label else Text(text, style)
    Console(stderr=True).print(message, soft_wrap=True)


def cell(x: float | None, spec: str, undefined: str = "") -> str:
    """A table cell: ``x`` formatted, or ``undefined`` (a blank cell) when the metric is undefined
    (None; NaN, a mean over seeds none of which defines it)."""
    return undefined if x is None or x != x else format(x, spec)


def emit(results: Results, as_json: bool, title: str) -> None:
    """Print the results; an interrupted run then exits with 130, as after Ctrl-C."""
    if as_json:
        sys.stdout.write(dumps(results.summary) + "\n")
    else:
        print_summary(results, title)
    if results.interrupted:
        raise typer.Exit(130)


def _print_video(results: Results) -> None:
    """The video streams (Qian 2011), by label: T/mu (with a probe), the mean and the worst late
    fraction, and the share of streams that succeed, at the start-up delay and at each further one."""
    import polars as pl
    from rich.table import Table

    from ..results import SUCCESS_LATE_FRACTION_TEXT

    # Video flows have a packet count; their late fraction and success are None (a blank cell
    # here, as in the mean over a label's streams) when a stream counted no segment.
    videos = results.flows.filter(pl.col("video_packets").is_not_null())
    if videos.is_empty():
        return
    by_label = videos.group_by("label", maintain_order=True).agg(
        pl.len().alias("streams"), pl.col("video_t_mu").mean(), pl.col("video_late_fraction").mean().alias("late"),
        pl.col("video_late_fraction").max().alias("worst"), pl.col("video_success").mean().alias("success"),
    )  # fmt: skip
    playout = results.video_playout.join(videos.select(pl.col("id").alias("flow"), "label"), on="flow")
    delays = playout["startup_delay_s"].unique(maintain_order=True).sort().to_list()
    at = {(r["label"], r["startup_delay_s"]): r["success"] for r in playout.group_by("label", "startup_delay_s").agg(pl.col("success").mean()).iter_rows(named=True)}
    # The start-up delay of each label's streams, as the scenario gives it (a file may give its
    # streams different ones, and different further delays: a label's cell is empty at a delay
    # its streams do not count at).
    start: dict[str, set[float]] = {}
    if results.scenario is not None:
        for f in videos.select("id", "label").iter_rows(named=True):
            start.setdefault(f["label"], set()).add(results.scenario.flows[f["id"]].video.startup_delay / 1e9)
    t = Table(title=f"video streams (success: late fraction below {SUCCESS_LATE_FRACTION_TEXT})")
    columns = ["label", "streams", "T/mu", "start-up delay", "late fraction", "worst", "success", *(f"success at {d:g} s" for d in delays)]
    for col in columns:
        t.add_column(col, justify="left" if col == "label" else "right")
    for r in by_label.iter_rows(named=True):
        delay = ", ".join(f"{d:g} s" for d in sorted(start.get(r["label"], ())))
        t.add_row(r["label"], str(r["streams"]), cell(r["video_t_mu"], ".2f"), delay, cell(r["late"], ".2e"), cell(r["worst"], ".2e"), cell(r["success"], ".2f"),
                  *(cell(at.get((r["label"], d)), ".2f") for d in delays))  # fmt: skip
    out.print(t)


def print_summary(results: Results, title: str) -> None:
    import polars as pl
    from rich.table import Table

    # The run's description on its own line: as a table's title it wrapped to the table's width.
    out.print(title, style="bold", markup=False, highlight=False)
    b = results.bottleneck
    if b is not None:
        t = Table(caption=f"{b['link']}: {b['from']} -> {b['to']}, {b['discipline']}")
        for col in ("queue", "avg pkts", "avg/buffer", "drop rate", "mark rate", "utilization"):
            t.add_column(col, justify="left" if col == "queue" else "right", no_wrap=True)
        t.add_row(
            b["link"],
            f"{b['avg_queue_pkts']:.1f}",
            f"{b['avg_queue_norm']:.3f}",
            cell(b["drop_rate"], ".2e"),
            cell(b["mark_rate"], ".2e"),
            f"{100 * b['utilization']:.2f} %",
        )
        out.print(t)
    flows = results.flows
    if not flows.is_empty():
        spread = flows.group_by("label", maintain_order=True).agg(
            pl.col("goodput_mbps").min().alias("min"),
            pl.col("goodput_mbps").max().alias("max"),
            pl.col("timeouts").sum(),
        )
        by_label = results.controllers.join(spread, on="label", how="left", maintain_order="left")
        t = Table(title=f"TCP flows (Jain index {cell(results.jain, '.3f', '-')})")
        for col in ("label", "flows", "goodput Mbit/s", "share", "min", "max", "drops", "drop rate", "timeouts"):
            t.add_column(col, justify="left" if col == "label" else "right")
        for r in by_label.iter_rows(named=True):
            t.add_row(
                r["label"], str(r["flows"]), f"{r['goodput_mbps']:.2f}", cell(r["share"], ".3f"), f"{r['min']:.2f}",
                f"{r['max']:.2f}", str(r["drops"]), cell(r["drop_rate"], ".2e"), str(r["timeouts"]),
            )  # fmt: skip
        out.print(t)
    _print_video(results)
    udp = results.udp
    if not udp.is_empty():
        t = Table(title="UDP sources")
        for col in ("id", "src -> dst", "sent", "received", "dropped", "Mbit/s"):
            t.add_column(col, justify="right")
        for r in udp.iter_rows(named=True):
            t.add_row(str(r["id"]), f"{r['src']} -> {r['dst']}", str(r["sent"]), str(r["received"]), str(r["dropped"]), f"{r['throughput_mbps']:.2f}")
        out.print(t)
    classes = results.classes
    if not classes.is_empty():
        t = Table(title="service classes (multi-class queues)")
        for col in ("queue", "class", "departures", "drops", "mean wait ms", "wait (tx times)", "ratio to next"):
            t.add_column(col, justify="left" if col == "queue" else "right")
        for r in classes.filter(pl.col("departures") + pl.col("drops") > 0).iter_rows(named=True):
            t.add_row(f"{r['from']} -> {r['to']}", str(r["class"]), str(r["departures"]), str(r["drops"]),
                      cell(r["mean_wait_ms"], ".3f"), cell(r["mean_wait_tx"], ".2f"), cell(r["ratio_to_next"], ".3f"))  # fmt: skip
        out.print(t)
    w = results.web
    if w is not None:
        t = Table(title=f"web: {w['sessions']} sessions, objects completed in the window")
        for col in ("objects", "Mbit/s", "response mean ms", "p50", "p95", "p99"):
            t.add_column(col, justify="right")
        t.add_row(
            str(w["objects_completed"]), f"{w['throughput_mbps']:.2f}", cell(w["response_ms_mean"], ".1f"),
            cell(w["response_ms_p50"], ".1f"), cell(w["response_ms_p95"], ".1f"), cell(w["response_ms_p99"], ".1f"),
        )  # fmt: skip
        out.print(t)
    d = results.data
    out.print(
        f"[dim]metrics over {d['window_start_s']:g}..{d['window_end_s']:g} s; "
        f"{d['events']:,} events in {d['wall_seconds']:.2f} s wall; "
        f"conservation {'ok' if d['conservation']['ok'] else 'VIOLATED'}",
        highlight=False,
    )
