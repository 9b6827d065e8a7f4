"""`pertlab linux ...` and `pertlab testbed ...` (registered in pertlab.cli)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, Optional

import typer

if TYPE_CHECKING:
    from .scenario import TestbedScenario

linux_app = typer.Typer(help="The eBPF PERT congestion control on this host (needs root).", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
testbed_app = typer.Typer(help="Network-namespace testbed with a real bottleneck (needs root).", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)


def _die(msg: str, code: int = 1) -> NoReturn:
    """``error: ...`` on stderr (one line per line of ``msg``), then exit with ``code``:
    2 for bad input, 1 when the host cannot do it or it failed."""
    for line in msg.splitlines():
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(code)


@linux_app.command()
def load(
    name: Annotated[str, typer.Argument(help="Congestion control to register (only 'pert').")] = "pert",
    t_min_ms: Annotated[float, typer.Option(help="Queueing delay where the response probability starts to rise.")] = 5.0,
    t_max_ms: Annotated[float, typer.Option(help="Queueing delay where it reaches p_max.")] = 10.0,
    t_end_ms: Annotated[Optional[float], typer.Option(help="Queueing delay where it reaches 1 [default: 2 x t_max].")] = None,
    p_max: Annotated[float, typer.Option(help="Response probability at t_max.")] = 0.05,
    decrease: Annotated[float, typer.Option(help="Share of cwnd removed by an early response.")] = 0.35,
    srtt_weight: Annotated[float, typer.Option(help="History weight of the smoothed RTT.")] = 0.99,
    literal: Annotated[bool, typer.Option("--literal", help="Thresholds on srtt as printed in the paper (2 (P + T_max)).")] = False,
    no_slow_start_response: Annotated[bool, typer.Option("--no-slow-start-response", help="No early responses in slow start.")] = False,
) -> None:
    """Compile (clang) and register NAME as a TCP congestion control, pinned in bpffs."""
    from .loader import PertParamError, PertParams, load as do_load

    params = PertParams(t_min_ms, t_max_ms, t_end_ms, p_max, decrease, srtt_weight, literal, not no_slow_start_response)
    try:
        params.validate()
    except PertParamError as e:
        # Bad input: the message names the flag the user wrote (t_min_ms -> --t-min-ms), exit 2.
        _die(f"--{e.field.replace('_', '-')}: {e.message}", 2)
    try:
        pin = do_load(name, params)
    except (RuntimeError, ValueError) as e:
        _die(str(e))
    typer.echo(f"{name} registered (link pinned at {pin}/link); select it with setsockopt(TCP_CONGESTION, \"{name}\") or iperf3 -C {name}")


@linux_app.command()
def unload(name: Annotated[str, typer.Argument(help="Congestion control to remove.")] = "pert") -> None:
    """Remove the pinned registration of NAME."""
    from .loader import unload as do_unload

    try:
        had = do_unload(name)
    except (RuntimeError, ValueError) as e:
        _die(str(e))
    typer.echo(f"{name} unregistered" if had else f"{name} was not loaded by pertlab")


@linux_app.command()
def status(as_json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False) -> None:
    """What is registered, and the counters (early responses, ...) of a pinned pert."""
    from .loader import status as do_status

    st = do_status()
    if as_json:
        typer.echo(json.dumps(st, indent=2))
        return
    typer.echo(f"available: {' '.join(st['available'])}")
    typer.echo(f"pert: {'registered' if st['registered'] else 'not registered'}" + (f", pinned at {st['pin_dir']}" if st["pinned"] else ""))
    for k, v in st.get("counters", {}).items():
        typer.echo(f"  {k}: {v}")
    for f in st.get("flows", []):
        typer.echo(f"  flow {f['saddr']}:{f['sport']} -> {f['daddr']}:{f['dport']}: early_responses {f['early_responses']}, draws {f['draws']}")
    if "params_fixed" in st:
        typer.echo("  parameters (fixed point): " + ", ".join(f"{k}={v}" for k, v in st["params_fixed"].items()))
    if "note" in st:
        typer.echo(f"  {st['note']}")


@testbed_app.command("run")
def testbed_run(
    scenario_file: Annotated[Path, typer.Argument(help="Testbed scenario (.toml).", metavar="SCENARIO")],
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Directory of the result files.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Build the namespaces, run the flows through the bottleneck, collect, remove everything.

    Ctrl-C or SIGTERM stops the flows and keeps what was measured (exit 130)."""
    from . import testbed

    sc = _scenario(scenario_file)
    try:
        res = testbed.run(sc)
    except RuntimeError as e:
        _die(str(e))
    except KeyboardInterrupt:
        _interrupted_early()
    if out_dir:
        res.write(out_dir)
    typer.echo(json.dumps(res.summary(), indent=2) if as_json else res.report())
    if res.interrupted:
        raise typer.Exit(130)


@testbed_app.command("compare")
def testbed_compare(
    scenario_file: Annotated[Path, typer.Argument(help="Testbed scenario (.toml).", metavar="SCENARIO")],
    out_dir: Annotated[Path, typer.Option("--out", help="Directory of the report and both result sets.")] = Path("out/compare"),
) -> None:
    """Run SCENARIO in the testbed and in the simulator; write a side-by-side report."""
    from ..scenario import ScenarioError
    from .compare import compare

    sc = _scenario(scenario_file)
    try:
        report, real = compare(sc, out_dir)
    except ScenarioError as e:
        _die(str(e), 2)
    except RuntimeError as e:
        _die(str(e))
    except KeyboardInterrupt:
        _interrupted_early()
    typer.echo(report)
    if real is None or real.interrupted:
        raise typer.Exit(130)


@testbed_app.command("cleanup")
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


def _scenario(path: Path) -> TestbedScenario:
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
