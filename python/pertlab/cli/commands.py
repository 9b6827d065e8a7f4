"""The commands of ``pertlab`` that run the simulator or read its results (``dumbbell``,
``eval-suite``, ``run``, ``sweep``, ``reproduce``, ``plot``, ``schema``, ``demo``); the groups of
other modules are added by :mod:`pertlab.cli`. A command imports pydantic, polars, rich and the
core only when it runs (issue 21)."""

# Annotations stay objects, no `from __future__ import annotations` (see pertlab.cli's module doc).

import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..jsonable import dumps
from ..kinds import CC_NAMES, QUEUE_NAMES
from ..units import U64_MAX, format_rate
from .checks import MEMORY_LIMIT_HELP, cc_params, check_cluster, check_out_dir, fail, numbers, read_memory_limit
from .output import cell, out, say, warnings_said
from .runs import TX_END_EVENTS_HELP, run_and_report, with_pcap, with_tx_end_events

#: The settings of the command line's typer apps (this module's, and the whole one of :mod:`pertlab.cli`).
APP_SETTINGS: dict[str, Any] = dict(
    help="pertlab: congestion-control and AQM experiments on a packet-level simulator.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


#: The commands defined in this module. The whole command line, ``pertlab.cli.app``, adds the
#: groups of other modules (``pertlab.cli._GROUPS``).
commands_app = typer.Typer(**APP_SETTINGS)


# Builder argument names as the CLI spells them, for error messages (scenario fields the core
# refuses reach them through builders.argument_of).
_FLAGS = {
    "bw": "--bw", "rtt": "--rtt", "flows": "--flows", "cc": "--cc", "queue": "--queue", "duration": "--duration",
    "buffer_bdp": "--buffer-bdp", "buffer_pkts": "--buffer", "start_window": "--start-window",
    "warmup": "--warmup", "seed": "--seed", "access_rate": "--access-rate", "packet_size": "--packet-size",
    "sample_interval": "--sample-interval", "web_sessions": "--web-sessions", "tcp.overhead": "--send-overhead",
    "tcp.ack_policy": "--ack-policy", "tcp.ts_echo": "--ts-echo", "tcp.rtt_samples": "--rtt-samples", "tcp.rto_estimator": "--rto-estimator",
    "tcp.pacing": "--pacing", "tcp.rtt_correction": "--rtt-correction", "tcp.prr": "--prr", "tcp.rack_retransmits": "--rack-retransmits", "tcp.rack": "--rack",
    "video": "--video", "startup_delay": "--startup-delay", "startup_delays": "--startup-delays", "t_mu_probe": "--t-mu-probe", "class_weights": "--class-weights", "flow_classes": "--flow-classes",
    "udp_load": "--udp-load", "udp_split": "--udp-split", "udp_arrivals": "--udp-arrivals", "cc_params": "--cc-param", "memory_limit": "--memory-limit",
}  # fmt: skip


@commands_app.command(short_help="One bottleneck shared by long-lived TCP flows.")
def dumbbell(
    bw: Annotated[str, typer.Option(help="Bottleneck rate, e.g. 150Mbps, 1Gbps.")] = "150Mbps",
    rtt: Annotated[str, typer.Option(help="Round-trip propagation delay, e.g. 60ms.")] = "60ms",
    flows: Annotated[
        Optional[int], typer.Option(help="Number of flows [default: 50, or the sum of the counts in --cc].")
    ] = None,
    cc: Annotated[
        str, typer.Option(help=f"Controller of all flows ({', '.join(CC_NAMES)}, or py:module:Class written in Python), or a mix: pert:25,sack:25.")
    ] = "sack",
    queue: Annotated[str, typer.Option(help=f"Bottleneck queue: {', '.join(QUEUE_NAMES)}, or py:module:Class (written in Python).")] = "droptail",
    ecn: Annotated[bool, typer.Option("--ecn", help="ECN-capable flows; RED/ARED marks instead of dropping.")] = False,
    duration: Annotated[str, typer.Option(help="Simulated time.")] = "100s",
    buffer_bdp: Annotated[float, typer.Option(help="Bottleneck buffer in bandwidth-delay products (at least 2 x flows packets).")] = 1.0,
    buffer: Annotated[Optional[int], typer.Option(help="Bottleneck buffer in packets (overrides --buffer-bdp).")] = None,
    start_window: Annotated[
        Optional[str],
        typer.Option(help="Flows start uniformly at random in [0, start-window] [default: 10s, or a tenth of --duration below 100s]."),
    ] = None,
    warmup: Annotated[
        Optional[str], typer.Option(help="Metrics cover [warmup, duration] [default: 20s, or a fifth of --duration below 100s].")
    ] = None,
    seed: Annotated[int, typer.Option(min=0, max=U64_MAX, help="Seed of every random draw.")] = 1,
    access_rate: Annotated[Optional[str], typer.Option(help="Access link rate [default: max(10 x bw, 1Gbps)].")] = None,
    packet_size: Annotated[str, typer.Option(help="TCP segment size on the wire.")] = "1500B",
    sample_interval: Annotated[
        Optional[str], typer.Option(help="Record time series of the bottleneck and the flows at this interval.")
    ] = None,
    web_sessions: Annotated[int, typer.Option(help="Web sessions beside the long flows (ns-2 WebTraf defaults).")] = 0,
    send_overhead: Annotated[
        str,
        typer.Option(help="ns-2's random send overhead of every sender, e.g. 1ms: breaks the phase lock of equal RTTs (docs/model.md)."),
    ] = "0s",
    ack_policy: Annotated[
        str,
        typer.Option(help="Receivers' ACK policy: every (one ACK per segment), delayed (RFC 5681, one per two), adaptive (Qian 2011, 1 to 4 per ACK), linux (Linux's delayed ACK: quickack mode, a 40 to 44 ms timer at HZ 250); with delay-based controllers see --ts-echo."),
    ] = "every",
    ts_echo: Annotated[
        str,
        typer.Option(
            help="Timestamp an ACK of several segments echoes: earliest (RFC 7323: its RTT sample includes the time the receiver held the first) "
            "or latest (ns-2's sinks; the last segment's RTT, as a Linux controller gets it). With delayed ACKs, PERT reads the hold of "
            "earliest as queueing delay (docs/model.md)."
        ),
    ] = "earliest",
    rtt_samples: Annotated[
        str,
        typer.Option(
            help="Where the senders' RTT samples come from: echo (the echoed timestamp, one sample per ACK, as ns-2) or linux "
            "(send times, as Linux: the RTO estimator the first newly acknowledged segment's, the controller the last one's, "
            "SACKed segments too; docs/model.md)."
        ),
    ] = "echo",
    rto_estimator: Annotated[
        str,
        typer.Option(
            help="The senders' RTO estimator: rfc6298 (RFC 6298 with per-RTT gains, RFC 7323 Appendix G) or linux "
            "(Linux's tcp_rtt_estimator: full gains per sample, the round trip's largest deviation as the margin; "
            "testbed compare runs it; docs/model.md)."
        ),
    ] = "rfc6298",
    video: Annotated[
        Optional[str],
        typer.Option(help="N live video streams over TCP beside the flows: N@RATE or N@RATE:CC, e.g. 20@300kbps:pert (Qian 2011).", metavar="N@RATE[:CC]"),
    ] = None,
    startup_delay: Annotated[Optional[str], typer.Option(help="Start-up delay of the video clients' playback [default: 5s].")] = None,
    startup_delays: Annotated[
        Optional[str],
        typer.Option(help="Further start-up delays the video clients also count late packets at, increasing, e.g. 1s,11s,21s (results: video_playout).", metavar="T,T,..."),
    ] = None,
    t_mu_probe: Annotated[
        bool, typer.Option("--t-mu-probe", help="Add a greedy probe flow of the video streams' controller; each stream's video_t_mu is its goodput over the video rate.")
    ] = False,
    pacing: Annotated[bool, typer.Option("--pacing", help="Senders pace their segments srtt / cwnd apart (Qian 2011).")] = False,
    rtt_correction: Annotated[
        bool, typer.Option("--rtt-correction", help="Senders remove the self-induced delay of ACK trains from RTT samples (Qian 2011, eq. 5.4).")
    ] = False,
    prr: Annotated[
        bool, typer.Option("--prr", help="Senders reduce their windows by Proportional Rate Reduction in recovery and on ECN (RFC 6937, as Linux).")
    ] = False,
    rack_retransmits: Annotated[
        bool,
        typer.Option(
            "--rack-retransmits",
            help="Senders find lost retransmissions as Linux's RACK does (RFC 8985), not only by their timer; needs SACK and --rtt-samples linux.",
        ),
    ] = False,
    rack: Annotated[
        bool,
        typer.Option(
            "--rack",
            help="Senders find every lost segment as Linux's RACK does (RFC 8985: sent before a delivered one, and a reordering "
            "window passed), in place of three duplicate ACKs; includes --rack-retransmits; needs SACK and --rtt-samples linux.",
        ),
    ] = False,
    cc_param: Annotated[
        Optional[list[str]],
        typer.Option(help="A controller parameter, KIND.FIELD=VALUE, e.g. pert-adaptive.alpha_max=16 (repeatable).", metavar="KIND.FIELD=VALUE"),
    ] = None,
    class_weights: Annotated[
        Optional[str], typer.Option(help="Weights b_i of a multi-class --queue (priority, wtp, swtp, bpr), one per class, increasing [default: 1,2,4].", metavar="B1,B2,...")
    ] = None,
    flow_classes: Annotated[
        Optional[str], typer.Option(help="Classes of the flows in turn, e.g. 0,1,2: flow i gets the (i mod n)-th [default: all class 0].", metavar="C1,C2,...")
    ] = None,
    udp_load: Annotated[
        float, typer.Option(help="UDP load on the bottleneck, a fraction of --bw: one source per class (Hua's 100/500/1000-byte mix) from one more host pair.")
    ] = 0.0,
    udp_split: Annotated[Optional[str], typer.Option(help="Class shares of --udp-load, summing to 1, e.g. 0.6,0.2,0.2 [default: equal].", metavar="F1,F2,...")] = None,
    udp_arrivals: Annotated[Optional[str], typer.Option(help="Arrivals of the UDP sources: pareto (gaps, shape 1.9), pareto_onoff, poisson, cbr or cbr_random (ns-2's random_ 1) [default: pareto].")] = None,
    pcap: Annotated[
        Optional[list[str]], typer.Option(help="Capture a link (both directions) to a pcap file, LINK:FILE, FILE relative to the current directory (repeatable; docs/pcap.md).", metavar="LINK:FILE")
    ] = None,
    tx_end_events: Annotated[Optional[str], typer.Option(help=TX_END_EVENTS_HELP + " [default: when_needed]", metavar="when_needed|always")] = None,
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Also write the result files here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
    progress: Annotated[bool, typer.Option(help="Progress bar on stderr.")] = True,
    memory_limit: Annotated[Optional[str], typer.Option(help=MEMORY_LIMIT_HELP)] = None,
) -> None:
    """One bottleneck shared by long-lived TCP flows (see docs/cli.md for the defaults)."""
    from ..builders import dumbbell as build_dumbbell

    limit = read_memory_limit(memory_limit)
    classes = {
        "class_weights": numbers(class_weights, "--class-weights"), "flow_classes": numbers(flow_classes, "--flow-classes", int),
        "udp_load": udp_load, "udp_split": numbers(udp_split, "--udp-split"), "udp_arrivals": udp_arrivals,
    }  # fmt: skip
    try:
        params = cc_params(cc_param or [])
        scenario = build_dumbbell(
            bw=bw, rtt=rtt, flows=flows, cc=cc, queue=queue, duration=duration, buffer_bdp=buffer_bdp,
            buffer_pkts=buffer, start_window=start_window, warmup=warmup, seed=seed, ecn=ecn,
            access_rate=access_rate, packet_size=packet_size, sample_interval=sample_interval, web_sessions=web_sessions,
            cc_params=params, tcp={"overhead": send_overhead, "ack_policy": ack_policy, "ts_echo": ts_echo, "rtt_samples": rtt_samples, "rto_estimator": rto_estimator, "pacing": {"enabled": pacing}, "rtt_correction": rtt_correction, "prr": prr, "rack_retransmits": rack_retransmits, "rack": rack}, memory_limit=limit, video=video, startup_delay=startup_delay, startup_delays=startup_delays.split(",") if startup_delays else None, t_mu_probe=t_mu_probe, **classes,
        )  # fmt: skip
    except ValueError as e:
        fail(e, _FLAGS)
    scenario = with_tx_end_events(with_pcap(scenario, pcap), tx_end_events)
    d = scenario.dumbbell
    bulk = sum(f.video is None and not f.probe for f in scenario.flows)
    streams = f", video {video}{' and a T/mu probe' if t_mu_probe else ''}" if video else ""
    title = (
        f"dumbbell {format_rate(d.bottleneck_rate)}, RTT {rtt}, {bulk} flows ({cc}){streams}, "
        f"buffer {d.bottleneck_queue.limit_pkts} pkts{', ECN' if ecn else ''}, seed {seed}"
    )
    run_and_report(scenario, progress and not as_json, out_dir, as_json, title, limit, _FLAGS)


@commands_app.command("eval-suite", short_help="The TCP evaluation suite's dumbbell (Tahiliani 2013).")
def eval_suite_command(
    cc: Annotated[str, typer.Option(help="Controller of every TCP flow (FTP both ways, web), e.g. surathkal, sack, cubic, xcp.")] = "sack",
    bw: Annotated[str, typer.Option(help="Bottleneck rate, e.g. 10Mbps, 1Gbps.")] = "10Mbps",
    rtt: Annotated[str, typer.Option(help="Round-trip propagation delay RTTp (bottleneck 0.4 RTTp, edges 0.05 RTTp).")] = "80ms",
    duration: Annotated[str, typer.Option(help="Simulated time (the suite: 100s).")] = "100s",
    warmup: Annotated[Optional[str], typer.Option(help="Metrics start here [default: 20s, or a fifth of --duration if shorter].")] = None,
    seed: Annotated[int, typer.Option(min=0, max=U64_MAX, help="Random seed.")] = 1,
    pacing: Annotated[bool, typer.Option(help="Pace every TCP sender (srtt / cwnd apart); not in the suite.")] = False,
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Write Parquet tables and summary.json here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
    progress: Annotated[bool, typer.Option(help="Progress bar on stderr.")] = True,
    memory_limit: Annotated[Optional[str], typer.Option(help=MEMORY_LIMIT_HELP)] = None,
) -> None:
    """The TCP evaluation suite's dumbbell (Tahiliani 2013, Sec. 4.4.2): 5 FTP flows each way, two-way voice,
    streaming both ways and web sessions over the suite's adaptive ECN RED (XCP routers for xcp)."""
    from ..tcp_eval_suite import eval_suite

    # The suite derives the access rate (2 x --bw) and the buffer (a BDP) from the options too.
    flags = {k: _FLAGS[k] for k in ("cc", "bw", "rtt", "duration", "warmup", "seed")} | {"access_rate": "--bw", "buffer_pkts": "--bw, --rtt", "memory_limit": "--memory-limit"}
    try:
        scenario = eval_suite(cc, bw=bw, rtt=rtt, duration=duration, warmup=warmup, seed=seed, pacing=pacing)
    except ValueError as e:
        fail(e, flags)
    q = scenario.dumbbell.bottleneck_queue
    title = f"evaluation suite {bw}, RTT {rtt}, {cc}{' paced' if pacing else ''}, buffer {q.limit_pkts} pkts ({q.kind}), seed {seed}"
    run_and_report(scenario, progress and not as_json, out_dir, as_json, title, read_memory_limit(memory_limit), flags)


@commands_app.command("run")
def run_file(
    scenario_file: Annotated[Path, typer.Argument(help="Scenario file (.toml, or .json).", metavar="SCENARIO")],
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Directory of the result files [default: out/<scenario name>].")] = None,
    seed: Annotated[Optional[int], typer.Option(min=0, max=U64_MAX, help="Override the scenario's seed.")] = None,
    pcap: Annotated[
        Optional[list[str]], typer.Option(help="Capture a link (both directions) to a pcap file, LINK:FILE, FILE relative to the current directory (repeatable; docs/pcap.md).", metavar="LINK:FILE")
    ] = None,
    tx_end_events: Annotated[
        Optional[str], typer.Option(help=TX_END_EVENTS_HELP + " [default: the scenario's engine.tx_end_events]", metavar="when_needed|always")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
    progress: Annotated[bool, typer.Option(help="Progress bar on stderr.")] = True,
    memory_limit: Annotated[Optional[str], typer.Option(help=MEMORY_LIMIT_HELP)] = None,
) -> None:
    """Run a scenario file; save Parquet tables and the summary JSON."""
    from ..runner import as_scenario

    try:
        scenario = as_scenario(scenario_file)
        if seed is not None:
            scenario = scenario.model_copy(update={"seed": seed})
    except ValueError as e:
        fail(e)
    scenario = with_tx_end_events(with_pcap(scenario, pcap), tx_end_events)
    target = out_dir if out_dir is not None else Path("out") / scenario_file.stem
    run_and_report(scenario, progress, target, as_json, f"{scenario_file.name}, seed {scenario.seed}", read_memory_limit(memory_limit))


@commands_app.command(short_help="A scenario over a grid of fields and seeds (Dask).")
def sweep(
    scenario_file: Annotated[Path, typer.Argument(help="Base scenario file (.toml, or .json).", metavar="SCENARIO")],
    vary: Annotated[Optional[list[str]], typer.Option("--vary", help="PATH=V1,V2,... (repeatable), e.g. bottleneck.rate=1Mbps,10Mbps, cc=pert,sack, tcp.ack_policy=every,delayed or pert.t_max=5ms,10ms (every flow's).")] = None,
    seeds: Annotated[int, typer.Option(help="Seeds 1..N for every point.")] = 1,
    out_dir: Annotated[Path, typer.Option("--out", help="Directory of the sweep; runs already stored there are skipped.")] = Path("out/sweep"),
    jobs: Annotated[Optional[int], typer.Option(min=1, help="Local worker processes [default: one per core].")] = None,
    cluster: Annotated[Optional[str], typer.Option(help="Dask scheduler address (tcp://host:8786) instead of local workers.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the aggregate table as one JSON object.")] = False,
    memory_limit: Annotated[
        Optional[str], typer.Option(help="Refuse a point whose memory estimate is larger, before any run starts: a size (8GiB), or none [default: the memory available now; each run is also held to its worker's].")
    ] = None,
) -> None:
    """Run a scenario over the cross product of varied fields and seeds (Dask); resumable."""
    from ..runner import as_scenario
    from ..parallel import StoredRunWarning
    from ..sweep import parse_vary, progress_printer, run_sweep

    check_out_dir(out_dir)
    limit = read_memory_limit(memory_limit)
    check_cluster(cluster)
    update, stop = progress_printer()
    try:
        base = as_scenario(scenario_file)
        varied = parse_vary(vary or [])
        with warnings_said(StoredRunWarning):
            runs, table = run_sweep(base, varied, seeds, out_dir, jobs=jobs, cluster=cluster, on_progress=None if as_json else update, memory_limit=limit)
    except ValueError as e:
        stop()
        fail(e, {"--vary": "--vary", "--seeds": "--seeds", "cluster": "--cluster", "memory_limit": "--memory-limit"})
    except KeyboardInterrupt:
        stop()
        say(f"finished runs are kept in {out_dir}/runs; run the same command to resume", "interrupted")
        raise typer.Exit(130)
    stop()
    warned = [(r, w) for r in runs.iter_rows(named=True) for w in r["warnings"]]
    if as_json:
        said = [{"key": r["key"], **{k: r[k] for k in varied}, "seed": r["seed"], "warning": w} for r, w in warned]
        sys.stdout.write(dumps({"out": str(out_dir), "points": table.to_dicts(), "warnings": said}) + "\n")
        return
    from rich.table import Table

    t = Table(title=f"sweep of {scenario_file.name}: mean (+- 95 % CI over {seeds} seed{'s' if seeds > 1 else ''})")
    keys = list(varied)
    for c in keys + list(_SWEEP_METRICS):
        t.add_column(c, justify="right")
    for r in table.iter_rows(named=True):
        cells = [str(r[k]) for k in keys]
        for m in _SWEEP_METRICS:
            mean, ci = cell(r[m], ".3g"), cell(r.get(f"{m}_ci95"), ".2g")
            cells.append(f"{mean} +- {ci}" if mean and ci else mean)
        t.add_row(*cells)
    out.print(t)
    out.print(f"[dim]runs.parquet and aggregate.parquet in {out_dir}/", highlight=False)
    _say_sweep_warnings(warned, list(varied), runs.height)


#: The warnings a sweep prints in full; the rest are counted (all are in runs.parquet).
SWEEP_WARNINGS_SHOWN = 5


def _say_sweep_warnings(warned: list[tuple[dict[str, Any], str]], keys: list[str], runs: int) -> None:
    """The runs' warnings, as a single run prints them after its tables, each with its point;
    past :data:`SWEEP_WARNINGS_SHOWN`, how many more and where they are."""
    for r, w in warned[:SWEEP_WARNINGS_SHOWN]:
        point = ", ".join([f"{k}={r[k]}" for k in keys] + [f"seed {r['seed']}"])
        say(f"{point}: {w}", "warning", "bold yellow")
    if len(warned) > SWEEP_WARNINGS_SHOWN:
        with_any = len({r["key"] for r, _ in warned})
        say(f"{len(warned) - SWEEP_WARNINGS_SHOWN} more ({with_any} of {runs} runs warned): runs.parquet's warnings column, or each run's summary.json", "warning", "bold yellow")


_SWEEP_METRICS = ("avg_queue_norm", "drop_rate", "utilization", "jain")


@commands_app.command(short_help="Reproduce a table or figure of the source documents.")
def reproduce(
    name: Annotated[Optional[str], typer.Argument(help="Reproduction to run (see --list).")] = None,
    list_: Annotated[bool, typer.Option("--list", help="Name every reproducible table and figure.")] = False,
    quick: Annotated[bool, typer.Option("--quick", help="Scaled-down version (about a minute).")] = False,
    jobs: Annotated[Optional[int], typer.Option(min=1, help="Parallel runs [default: one per core].")] = None,
    cluster: Annotated[
        Optional[str], typer.Option(help="Run on this Dask scheduler (tcp://host:8786) instead of local processes.")
    ] = None,
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Report folder [default: reports/NAME].")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
    render_only: Annotated[
        bool, typer.Option("--render-only", help="Redraw the figures and index.html of the report already in --out from its stored tables; runs nothing.")
    ] = False,
) -> None:
    """Reproduce a table or figure of the source documents; writes an HTML report with data and plots."""
    from ..reproduce import REGISTRY, get

    # Options that mean something only for one reproduction's run, or only when it runs.
    runs = {"--quick": quick, "--jobs": jobs is not None, "--cluster": cluster is not None}
    given = [flag for flag, on in {**runs, "--out": out_dir is not None, "--render-only": render_only}.items() if on]
    if list_ and name is not None:
        fail(ValueError("name: --list names every reproduction; give a name or --list, not both"))
    if (list_ or name is None) and given:
        fail(ValueError(f"{given[0]}: needs a reproduction's name (pertlab reproduce NAME {given[0]}; --list names them)"))
    if render_only and (ran := [flag for flag, on in runs.items() if on]):
        fail(ValueError(f"{ran[0]}: --render-only runs nothing (it redraws the report in --out from its stored tables)"))
    if list_ or name is None:
        if as_json:
            sys.stdout.write(dumps({n: {"title": e.title, "source": e.source} for n, e in sorted(REGISTRY.items())}) + "\n")
            return
        from rich.table import Table

        t = Table(title="reproducible tables and figures")
        t.add_column("name", no_wrap=True)  # names are copied into commands whole
        for col in ("what", "source"):
            t.add_column(col)
        for n, e in sorted(REGISTRY.items()):
            t.add_row(n, e.title, e.source)
        out.print(t)
        return
    try:
        entry = get(name)
    except ValueError as e:
        fail(ValueError(f"name: {e}"))
    if entry.runs_here and (unused := [flag for flag in ("--jobs", "--cluster") if runs[flag]]):
        fail(ValueError(f"{unused[0]}: {name} sends nothing to workers ({entry.runs_here}); leave {unused[0]} out"))
    from ..parallel import Workers

    folder = out_dir or Path("reports") / name
    check_out_dir(folder)
    if render_only:
        try:
            report = entry.render(folder)
        except ValueError as e:
            # Every refusal here is about the folder --out gives, or its default.
            fail(ValueError(f"--out: {e}" + ("" if out_dir else " (--out was not given: reports/NAME is its default)")))
    else:
        from ..parallel import StoredRunWarning

        try:
            with warnings_said(StoredRunWarning):
                report = entry.report(quick, folder, Workers(jobs, cluster, store=folder / "tasks"))
        except ValueError as e:
            fail(e, {"cluster": "--cluster"})
        except KeyboardInterrupt:
            say(f"finished runs are kept in {folder}; run the same command to resume", "interrupted")
            raise typer.Exit(130)
    index = folder / "index.html"
    if as_json:
        sys.stdout.write(dumps(report.summary()) + "\n")
        return
    for c in report.claims:
        mark = "[green]holds[/]" if c.holds else "[red]does not hold[/]"
        out.print(f"{mark}: {c.text}\n    {c.evidence}")
    out.print(f"[dim]report: {index}", highlight=False)


@commands_app.command(short_help="Plot a saved run: queue, windows, throughput.")
def plot(
    results_dir: Annotated[Path, typer.Argument(help="A directory written by `run --out` or `dumbbell --out`.")],
) -> None:
    """Write queue.png, cwnd.png and throughput.png of a saved run into its directory."""
    from ..plots import write_figures
    from ..results import Results

    if not (results_dir / "summary.json").is_file():
        runs = results_dir / "runs"
        hint = f"; this is a sweep's: plot one of its runs, {runs / '<key>'} (runs.parquet names them)" if (results_dir / "sweep.json").is_file() and runs.is_dir() else ""
        fail(ValueError(f"{results_dir}: no summary.json here; give a directory written by `pertlab run`{hint}"))
    try:
        results = Results.read(results_dir)
    except (OSError, ValueError) as e:  # a file missing or unreadable (JSONDecodeError is a ValueError)
        fail(ValueError(f"{results_dir}: not a complete result directory of `pertlab run` ({type(e).__name__}: {e})"))
    for path in write_figures({results_dir.name: results}, results_dir):
        out.print(str(path), highlight=False)


@commands_app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    from ..scenario import Scenario

    sys.stdout.write(dumps(Scenario.json_schema(), indent=2) + "\n")


@commands_app.command(short_help="The PERT paper's comparison: PERT, SACK, RED-ECN, Vegas.")
def demo(
    out_dir: Annotated[Path, typer.Option("--out", help="Output directory.")] = Path("demo-out"),
    quick: Annotated[bool, typer.Option("--quick", help="30 s runs instead of 400 s (a first look, and tests).")] = False,
    seed: Annotated[int, typer.Option(min=0, max=U64_MAX, help="Seed of every run.")] = 1,
    jobs: Annotated[Optional[int], typer.Option(min=1, help="Parallel runs [default: one per core, at most 4].")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the table as one JSON object.")] = False,
) -> None:
    """The PERT paper's single-bottleneck comparison of PERT, SACK, SACK/RED-ECN and Vegas."""
    from ..demo import run_demo

    check_out_dir(out_dir)
    table = run_demo(out_dir, quick=quick, seed=seed, jobs=jobs)
    if as_json:
        sys.stdout.write(dumps({"schemes": table.to_dicts()}) + "\n")
        return
    from rich.table import Table

    t = Table(title="150 Mbps, RTT 60 ms, 50 flows, buffer = BDP" + (" (quick run)" if quick else ""))
    t.add_column("scheme", no_wrap=True)
    for col in ("avg queue (norm.)", "drop rate", "mark rate", "utilization", "Jain index"):
        t.add_column(col, justify="right")
    for r in table.iter_rows(named=True):
        t.add_row(
            r["scheme"],
            f"{r['avg_queue_norm']:.2f}",
            f"{r['drop_rate']:.2e}",
            f"{r['mark_rate']:.2e}",
            f"{100 * r['utilization']:.2f} %",
            f"{r['jain']:.2f}",
        )
    out.print(t)
    out.print("What the paper's Section 4 reports for each scheme at such points (Figs. 6-8):", highlight=False)
    for r in table.iter_rows(named=True):
        out.print(f"  {r['scheme']}: {r['paper_claim']}", highlight=False)
    out.print(f"[dim]Files, tables and plots in {out_dir}/", highlight=False)
