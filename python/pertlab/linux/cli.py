"""`pertlab linux ...` and `pertlab testbed ...` (registered in pertlab.cli)."""

# Annotations stay objects, no `from __future__ import annotations` (see pertlab.cli's module doc).

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, Optional

import typer

from ..cli.checks import MEMORY_LIMIT_HELP
from ..jsonable import dumps
from . import MAX_SIM_SEEDS

if TYPE_CHECKING:
    from .adaptive_params import PertAdaptiveParams
    from .loader import PertParams
    from .scenario import TestbedScenario

linux_app = typer.Typer(help="The eBPF PERT congestion controls on this host (pert, pert-adaptive; needs root).", short_help="The eBPF PERT congestion controls on this host (root).", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
testbed_app = typer.Typer(help="Network-namespace testbed with a real bottleneck (needs root).", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)


def _controller(name: str):
    """The controller the argument NAME names; exits 2 naming NAME and the allowed ones."""
    from .loader import controller

    try:
        return controller(name)
    except ValueError as e:
        _die(f"NAME: {e}", 2)


def _die(msg: str, code: int = 1) -> NoReturn:
    """``error: ...`` on stderr (one line per line of ``msg``), then exit with ``code``:
    2 for bad input, 1 when the host cannot do it or it failed."""
    for line in msg.splitlines():
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(code)


#: Options of `load` for pert-adaptive only: (flag, help). Their defaults are the thesis's
#: (PertAdaptiveParams); given with `pert` they are an error.
_ADAPTIVE_ONLY = ("alpha_max", "compete_frac", "t3_frac", "t3_floor", "ramp_pole_frac", "q_max_init_ms", "q_max_source", "loss_beta", "alpha_period_rtts", "high_speed_step", "compete_step", "safe_decay", "interval_weights")


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


@linux_app.command(short_help="Compile and register a PERT congestion control (eBPF).")
def load(
    name: Annotated[str, typer.Argument(help="Congestion control to register: pert (PERT/RED) or pert-adaptive (Kotla 2008).")] = "pert",
    t_min_ms: Annotated[float, typer.Option(help="Queueing delay where the response probability starts to rise.")] = 5.0,
    t_max_ms: Annotated[float, typer.Option(help="Queueing delay where it reaches p_max.")] = 10.0,
    t_end_ms: Annotated[Optional[float], typer.Option(help="pert: queueing delay where it reaches 1 [default: 2 x t_max].")] = None,
    p_max: Annotated[float, typer.Option(help="Response probability at t_max.")] = 0.05,
    decrease: Annotated[Optional[float], typer.Option(help="pert: share of cwnd removed by an early response [default: 0.35].")] = None,
    srtt_weight: Annotated[float, typer.Option(help="History weight of the smoothed RTT.")] = 0.99,
    literal: Annotated[bool, typer.Option("--literal", help="pert: thresholds on srtt as printed in the paper (2 (P + T_max)).")] = False,
    slow_start_response: Annotated[
        Optional[bool], typer.Option("--slow-start-response/--no-slow-start-response", help="Early responses in slow start [default: pert yes, pert-adaptive no].")
    ] = None,
    alpha_max: Annotated[Optional[float], typer.Option(help="pert-adaptive: cap of alpha, 1 to 4000 [default: 32].")] = None,
    compete_frac: Annotated[Optional[float], typer.Option(help="pert-adaptive: compete mode above this fraction of q_max [default: 0.5].")] = None,
    t3_frac: Annotated[Optional[float], typer.Option(help="pert-adaptive: the curve reaches 1 at this fraction of q_max [default: 0.65].")] = None,
    t3_floor: Annotated[Optional[bool], typer.Option("--t3-floor/--no-t3-floor", help="pert-adaptive: floor the third threshold at 2 t_max [default: yes].")] = None,
    ramp_pole_frac: Annotated[Optional[float], typer.Option(help="pert-adaptive: pole of the compete target's ramp, fraction of q_max [default: 0.01].")] = None,
    q_max_init_ms: Annotated[Optional[float], typer.Option(help="pert-adaptive: initial maximum queueing delay [default: 10].")] = None,
    q_max_source: Annotated[Optional[str], typer.Option(help="pert-adaptive: q_max from RTT 'sample's or 'srtt' [default: sample].")] = None,
    loss_beta: Annotated[Optional[str], typer.Option(help="pert-adaptive: decrease on a loss, 'adaptive' or 'half' [default: adaptive].")] = None,
    alpha_period_rtts: Annotated[Optional[float], typer.Option(help="pert-adaptive: alpha is adapted every this many RTTs [default: 5].")] = None,
    high_speed_step: Annotated[Optional[float], typer.Option(help="pert-adaptive: alpha step per period in high-speed mode [default: 0.5].")] = None,
    compete_step: Annotated[Optional[float], typer.Option(help="pert-adaptive: alpha step per period in compete mode [default: 0.1].")] = None,
    safe_decay: Annotated[Optional[float], typer.Option(help="pert-adaptive: alpha factor per period in safe mode [default: 0.9].")] = None,
    interval_weights: Annotated[
        Optional[str], typer.Option(help="pert-adaptive: loss-interval weights, most recent first, 1 to 8 in [0, 1] [default: 1,1,1,1,0.8,0.6,0.4,0.2].")
    ] = None,
    min_rtt_window_ms: Annotated[
        Optional[float], typer.Option(help="P is the minimum RTT over this sliding window (Linux's tcp_min_rtt estimator) [default: the smallest RTT sample].")
    ] = None,
) -> None:
    """Compile (clang) and register NAME as a TCP congestion control, pinned in bpffs."""
    options = {k: v for k, v in locals().items() if k != "name"}
    from .loader import load as do_load

    ctrl = _controller(name)
    params = load_params(ctrl.cli_name, options)
    try:
        pin = do_load(ctrl.name, params)
    except (RuntimeError, ValueError) as e:
        _die(str(e))
    typer.echo(f"{ctrl.name} registered (link pinned at {pin}/link); select it with setsockopt(TCP_CONGESTION, \"{ctrl.name}\") or iperf3 -C {ctrl.name}")


def load_params(cli_name: str, options: dict[str, Any]) -> "PertParams | PertAdaptiveParams":
    """The parameters `load` registers controller ``cli_name`` with, from its options
    (``t_min_ms``...; None where not given), checked as the kernel code takes them; exits 2
    naming the flags of a bad value (those a constraint binds it to too)."""
    from .adaptive_params import PertAdaptiveParams
    from .loader import PertParamError, PertParams

    given = {k: v for k, v in options.items() if k in _ADAPTIVE_ONLY and v is not None}
    o = options
    if cli_name == "pert":
        if given:
            _die(f"{_flag(next(iter(given)))}: applies to pert-adaptive only", 2)
        params = PertParams(
            o["t_min_ms"], o["t_max_ms"], o["t_end_ms"], o["p_max"], 0.35 if o["decrease"] is None else o["decrease"], o["srtt_weight"], o["literal"], o["slow_start_response"] is not False, o["min_rtt_window_ms"]
        )
    else:
        for flag, v in (("--t-end-ms", o["t_end_ms"]), ("--decrease", o["decrease"]), ("--literal", o["literal"] or None)):
            if v is not None:
                _die(f"{flag}: applies to pert only (pert-adaptive's curve ends at t3_frac q_max and its decrease is q / (q + q_max))", 2)
        if "interval_weights" in given:
            try:
                given["interval_weights"] = tuple(float(x) for x in given["interval_weights"].split(","))
            except ValueError:
                _die(f"--interval-weights: a comma-separated list of numbers, got {o['interval_weights']!r}", 2)
        params = PertAdaptiveParams(
            t_min_ms=o["t_min_ms"], t_max_ms=o["t_max_ms"], p_max=o["p_max"], srtt_weight=o["srtt_weight"], respond_in_slow_start=bool(o["slow_start_response"]), min_rtt_window_ms=o["min_rtt_window_ms"], **given
        )
    try:
        params.validate()
    except PertParamError as e:
        # Bad input: the message names the flags the user wrote (t_min_ms -> --t-min-ms), and
        # those a constraint binds them to (--t-min-ms, --t-max-ms), exit 2.
        _die(e.render(_flag), 2)
    return params


@linux_app.command()
def unload(name: Annotated[str, typer.Argument(help="Congestion control to remove: pert or pert-adaptive.")] = "pert") -> None:
    """Remove the pinned registration of NAME."""
    from .loader import unload as do_unload

    ctrl = _controller(name)
    try:
        had = do_unload(ctrl.name)
    except ValueError as e:
        _die(str(e), 2)
    except RuntimeError as e:
        _die(str(e))
    typer.echo(f"{ctrl.name} unregistered" if had else f"{ctrl.name} was not loaded by pertlab")


@linux_app.command(short_help="What is registered, and its counters.")
def status(
    name: Annotated[str, typer.Argument(help="Congestion control: pert or pert-adaptive.")] = "pert",
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """What is registered, and the counters (early responses, ...; for pert-adaptive also mode
    residency and alpha per connection) of a pinned NAME."""
    from .loader import status as do_status

    ctrl = _controller(name)
    try:
        st = do_status(ctrl.name)
    except ValueError as e:
        _die(str(e), 2)
    if as_json:
        typer.echo(dumps(st, indent=2))
        return
    typer.echo(f"available: {' '.join(st['available'])}")
    typer.echo(f"{st['name']}: {'registered' if st['registered'] else 'not registered'}" + (f", pinned at {st['pin_dir']}" if st["pinned"] else ""))
    for k, v in st.get("counters", {}).items():
        typer.echo(f"  {k}: {v}")
    for f in st.get("flows", []):
        rest = ", ".join(f"{k} {v:.6g}" if isinstance(v, float) else f"{k} {v}" for k, v in f.items() if k not in ("saddr", "daddr", "sport", "dport"))
        typer.echo(f"  flow {f['saddr']}:{f['sport']} -> {f['daddr']}:{f['dport']}: {rest}")
    if "params_fixed" in st:
        typer.echo("  parameters (fixed point): " + ", ".join(f"{k}={v}" for k, v in st["params_fixed"].items()))
    if "note" in st:
        typer.echo(f"  {st['note']}")


@linux_app.command("cpu-cost", short_help="CPU cost of congestion controls (Kotla 2008, Table VI).")
def cpu_cost(
    flows: Annotated[int, typer.Option(help="Bulk TCP connections per run (one sender process).")] = 50,
    seconds: Annotated[float, typer.Option(help="How long each run's flows send.")] = 20.0,
    repeat: Annotated[int, typer.Option(help="Runs per congestion control (interleaved).")] = 3,
    cc: Annotated[Optional[list[str]], typer.Option("--cc", help="Congestion control, repeatable: pert-adaptive, pert (eBPF), reno, cubic, bbr [default: pert-adaptive, reno, cubic].")] = None,
    rate_mbit: Annotated[float, typer.Option(help="Bottleneck rate, Mbit/s (htb; pfifo of one BDP, at least 2 packets per flow).")] = 100.0,
    rtt_ms: Annotated[float, typer.Option(help="Round-trip propagation delay, ms (the testbed's delay line).")] = 60.0,
    out: Annotated[Optional[Path], typer.Option("--out", help="Write every run's figures and the summary here (JSON).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print them as JSON instead of the table.")] = False,
) -> None:
    """CPU cost of congestion controls (Kotla 2008, Table VI): FLOWS bulk connections through the
    testbed per run; the eBPF programs' run time per call (BPF statistics) and the sender's,
    the testbed's and the machine's CPU time per megabyte; the goodput of each half of the run,
    with the simulator's on the same scenario beside it. See docs/linux.md."""
    from ..cli.checks import check_out_dir
    from .cpu_cost import DEFAULT_CCS, CpuCostError, Setup, measure

    setup = Setup(flows=flows, seconds=seconds, repeat=repeat, ccs=tuple(cc) if cc else DEFAULT_CCS, rate_mbit=rate_mbit, rtt_ms=rtt_ms)
    try:
        setup.validate()
    except CpuCostError as e:
        _die(f"{_flag(e.field)}: {e.message}", 2)
    if out:
        if out.is_dir():
            _die(f"--out: {out} is a directory; give the file to write", 2)
        check_out_dir(out.parent)

    def progress(row: dict) -> None:
        bpf = f", BPF {row['bpf_ns_per_call']:.0f} ns per call" if row.get("bpf_ns_per_call") else ""
        typer.echo(f"run {row['repeat'] + 1}/{repeat} {row['cc']}: {row['goodput_mbps']:.1f} Mbit/s, sender {row['sender_cpu_ms_per_mb']:.2f} ms/MB{bpf}", err=True)

    try:
        res = measure(setup, progress)
    except RuntimeError as e:
        _die(str(e))
    except KeyboardInterrupt:
        typer.echo("interrupted: the testbed was removed and the controller unregistered; nothing kept", err=True)
        raise typer.Exit(130)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(dumps(res.as_dict(), indent=2) + "\n")
    typer.echo(dumps(res.as_dict(), indent=2) if as_json else res.report())


@testbed_app.command("run", short_help="Run a scenario's flows through a real bottleneck.")
def testbed_run(
    scenario_file: Annotated[Path, typer.Argument(help="Testbed scenario (.toml).", metavar="SCENARIO")],
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Directory of the result files.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Build the namespaces, run the flows through the bottleneck, collect, remove everything.

    Ctrl-C or SIGTERM stops the flows and keeps what was measured (exit 130)."""
    from ..cli.checks import check_out_dir
    from . import testbed

    sc = _scenario(scenario_file)
    if out_dir:
        check_out_dir(out_dir)
    try:
        res = testbed.run(sc)
    except RuntimeError as e:
        _die(str(e))
    except KeyboardInterrupt:
        _interrupted_early()
    if out_dir:
        res.write(out_dir)
    typer.echo(dumps(res.summary(), indent=2) if as_json else res.report())
    if res.interrupted:
        raise typer.Exit(130)


@testbed_app.command("compare", short_help="A scenario in the testbed and in the simulator.")
def testbed_compare(
    scenario_file: Annotated[Path, typer.Argument(help="Testbed scenario (.toml).", metavar="SCENARIO")],
    out_dir: Annotated[Path, typer.Option("--out", help="Directory of the report and both result sets.")] = Path("out/compare"),
    sim_seeds: Annotated[
        int,
        typer.Option(
            min=1, max=MAX_SIM_SEEDS,
            help="Simulator runs, seeds from the scenario's on: the report adds each metric's median and range over them "
            "(one kernel run; which flows a probabilistic controller holds back is chance on either side).",
        ),
    ] = 1,
    memory_limit: Annotated[Optional[str], typer.Option(help=f"The simulator's runs: {MEMORY_LIMIT_HELP}")] = None,
    sim_send_overhead: Annotated[
        Optional[str],
        typer.Option(
            help="The simulated senders wait U(0, this) before each send, e.g. 0.8ms (ns-2's send overhead, tcp.overhead): "
            "the hosts' timing noise, so that the simulator's seeds differ where kernel runs do. Default: none."
        ),
    ] = None,
    sim_rack: Annotated[
        bool,
        typer.Option(
            "--sim-rack/--no-sim-rack",
            help="The simulated senders find every lost segment as Linux's RACK does (tcp.rack; flows with SACK), as the "
            "kernel's senders do; --no-sim-rack: three duplicate ACKs find a loss and only their timer a lost retransmission "
            "(docs/linux.md, \"Random loss\").",
        ),
    ] = True,  # sim_side.LINUX_SIDE (test_linux_units checks the two agree)
    sim_rack_retransmits: Annotated[
        bool,
        typer.Option(
            "--sim-rack-retransmits",
            help="With --no-sim-rack: the simulated senders find lost retransmissions as Linux's RACK does, other losses by "
            "three duplicate ACKs (tcp.rack_retransmits; flows with SACK).",
        ),
    ] = False,
    sim_frame_ahead: Annotated[
        bool,
        typer.Option(
            "--sim-frame-ahead/--no-sim-frame-ahead",
            help="The simulated round trip one data packet's transmission time at the bottleneck rate shorter: the testbed's htb "
            "lets a frame leave when a link would start sending it, the simulator's link delivers it a frame's time later "
            "(docs/linux.md, \"Random loss\"); --no-sim-frame-ahead: the simulator's link as it is.",
        ),
    ] = True,
) -> None:
    """Run SCENARIO in the testbed and in the simulator; write a side-by-side report."""
    from ..cli.checks import check_out_dir, fail, read_memory_limit
    from ..scenario import ScenarioError
    from .compare import compare
    from .sim_side import SimSide

    if sim_rack and sim_rack_retransmits:
        _die("--sim-rack-retransmits: goes with --no-sim-rack (RACK on every segment, the default, includes the retransmissions)", 2)
    sc = _scenario(scenario_file)
    limit = read_memory_limit(memory_limit)
    check_out_dir(out_dir)
    try:
        report, real = compare(sc, out_dir, sim_seeds, limit, SimSide(sim_send_overhead, rack=sim_rack, rack_retransmits=sim_rack_retransmits, frame_ahead=sim_frame_ahead))
    except ScenarioError as e:
        fail(e, {"memory_limit": "--memory-limit", "sim_send_overhead": "--sim-send-overhead"})
    except RuntimeError as e:
        _die(str(e))
    except KeyboardInterrupt:
        _interrupted_early()
    typer.echo(report)
    if real is None or real.interrupted:
        raise typer.Exit(130)


@testbed_app.command("cleanup", short_help="Remove what testbed runs whose driver died left.")
def testbed_cleanup() -> None:
    """Remove what testbed runs whose driver died left: their processes (delay lines,
    flows), namespaces (with their links and qdiscs) and run directories. Runs in
    progress are left alone."""
    from . import runs, testbed
    from .. import interrupt

    problem = testbed.support_problem(needs_pert=False)
    if problem:
        _die(problem)
    with interrupt.deferred():
        removed = runs.cleanup()
    for r in removed:
        typer.echo(f"removed {r.what}: namespaces {', '.join(r.namespaces) or '(none left)'}; {r.processes} processes killed")
    if not removed:
        typer.echo("nothing to remove")
    for info in runs.live_runs():
        typer.echo(f"left alone: run {info.get('run_id')} in progress (pid {info.get('pid')}, started {info.get('started')})")


@testbed_app.command("profiles", short_help="The named path profiles of testbed scenarios.")
def testbed_profiles(
    sources: Annotated[bool, typer.Option("--sources", help="Also print where each profile's numbers come from.")] = False,
) -> None:
    """The named path profiles a scenario's `[path] profile = NAME` picks (no root needed)."""
    from .profiles import PROFILES, describe

    for p in PROFILES.values():
        typer.echo(describe(p))
        if sources:
            typer.echo(f"    source: {p.source}")


def _scenario(path: Path) -> "TestbedScenario":
    """The testbed scenario in ``path``, or exit 2 with ``error: field: message`` lines."""
    from ..scenario import ScenarioError
    from .scenario import load_scenario

    try:
        return load_scenario(path)
    except ScenarioError as e:
        _die(str(e), 2)


def _interrupted_early() -> NoReturn:
    typer.echo("interrupted before the flows started: nothing was measured; the testbed was removed", err=True)
    raise typer.Exit(130)
