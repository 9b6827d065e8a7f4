"""The ``pertlab`` command line.

Every command that computes something prints a rich table, or with ``--json``
one JSON object on stdout. Bad input prints ``error: field: message`` on
stderr and exits with status 2; no traceback. Ctrl-C, SIGTERM or SIGHUP stop a
command, once or more, keeping what it finished (:mod:`pertlab.interrupt`); it
then exits with status 130.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import math
import os
import re
import sys
import types
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable, Iterable, Iterator, NoReturn, Optional, TypeVar

import typer

from . import interrupt
from .jsonable import dumps
from .kinds import CC_KINDS, CC_NAMES
from .kinds import QUEUE_NAMES
from .units import format_rate, parse_size, parse_value

# The command line imports pydantic, polars and the core only in the commands that use them,
# so that `pertlab --help` and the closed-form commands start at once (issue 21).
if TYPE_CHECKING:
    from .results import Results
    from .scenario import Scenario

# typer (0.26 to 0.28, pyproject.toml) parses with the click it carries (typer._click): its usage
# errors derive from typer._click's ClickException and its abort is typer.Abort, and the click
# package, 20 ms to import, is not loaded (issue 21).
from typer._click.exceptions import ClickException as _ClickException

_ABORTS: tuple[type[BaseException], ...] = (typer.Abort, KeyboardInterrupt)

T = TypeVar("T")


_APP_SETTINGS: dict[str, Any] = dict(
    help="pertlab: congestion-control and AQM experiments on a packet-level simulator.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
#: The commands defined in this module. The whole command line, :data:`app`, adds the groups of
#: :data:`_GROUPS`.
_commands = typer.Typer(**_APP_SETTINGS)


#: The largest seed (the core's seeds are 64-bit).
U64_MAX = 2**64 - 1
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


def _rich_stderr() -> bool:
    """Whether rich may draw on stderr: a terminal, or one of the variables by which rich is told
    to treat the stream as one (FORCE_COLOR, TTY_COMPATIBLE). Elsewhere (a log, a pipe) rich would
    write plain characters and nothing live, so the command need not import it (about 25 ms;
    issue 21)."""
    return sys.stderr.isatty() or any(name in os.environ for name in ("FORCE_COLOR", "TTY_COMPATIBLE"))


@contextlib.contextmanager
def _warnings_said(*categories: type[Warning]) -> Iterator[None]:
    """Inside, warnings of ``categories`` print as ``warning: ...`` lines (:func:`_say`) when
    they are raised, each time, not as Python's ``file:line: Category: ...`` once."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", categories)  # type: ignore[arg-type]
        shown = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *rest: Any, **kw: Any) -> None:
            if issubclass(category, categories):
                _say(str(message), "warning", "bold yellow")
            else:
                shown(message, category, *rest, **kw)

        warnings.showwarning = show  # catch_warnings puts the old one back
        yield


def _say(text: str, label: str = "", style: str = "") -> None:
    """One message on stderr, ``label: text``; where rich draws (:func:`_rich_stderr`) with
    ``style`` on the label (on the text if there is none), elsewhere as plain characters."""
    if not _rich_stderr():
        sys.stderr.write(f"{label}: {text}\n" if label else f"{text}\n")
        return
    from rich.console import Console
    from rich.text import Text

    message = Text.assemble((f"{label}:", style), " ", text) if label else Text(text, style)
    Console(stderr=True).print(message, soft_wrap=True)


#: The command groups other modules define, in the order `pertlab --help` lists them (after the
#: commands of this module): name -> (module, its typer app). A command line that names one
#: imports that module alone, and the others none of them (issue 21: 5 to 8 ms of a run's start).
_GROUPS: dict[str, tuple[str, str]] = {
    # Fluid models and stability theorems (docs/fluid.md).
    "fluid": ("pertlab.fluid.cli", "fluid_app"),
    "stability": ("pertlab.fluid.cli", "stability_app"),
    # Real Linux hosts: the eBPF congestion control and the namespace testbed.
    "linux": ("pertlab.linux.cli", "linux_app"),
    "testbed": ("pertlab.linux.cli", "testbed_app"),
    # pertlab beside ns-3 and the kernel (docs/validation.md).
    "validate": ("pertlab.validate.cli", "validate_app"),
    # Closed-form models beside the simulator (docs/cli.md).
    "analyze": ("pertlab.analysis.cli", "analyze_app"),
}


def _with_groups(names: Iterable[str], commands: list[Any]) -> typer.Typer:
    """A typer app of the command line's settings holding ``commands`` (typer's ``CommandInfo``s
    of this module) and the groups ``names`` of :data:`_GROUPS`, each module imported now."""
    import importlib

    whole = typer.Typer(**_APP_SETTINGS)
    whole.registered_commands = commands
    for name in names:
        module, attribute = _GROUPS[name]
        whole.add_typer(getattr(importlib.import_module(module), attribute), name=name)
    return whole


@functools.cache
def _whole_app() -> typer.Typer:
    return _with_groups(_GROUPS, _commands.registered_commands)


def __getattr__(name: str) -> Any:
    """``app``: the whole command line, every command and group (made on first use, see
    :data:`_GROUPS`); what ``typer.testing.CliRunner`` and the docs' generator are given."""
    if name == "app":
        return _whole_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Builder argument names as the CLI spells them, for error messages (scenario fields the core
# refuses reach them through builders.argument_of).
_FLAGS = {
    "bw": "--bw", "rtt": "--rtt", "flows": "--flows", "cc": "--cc", "queue": "--queue", "duration": "--duration",
    "buffer_bdp": "--buffer-bdp", "buffer_pkts": "--buffer", "start_window": "--start-window",
    "warmup": "--warmup", "seed": "--seed", "access_rate": "--access-rate", "packet_size": "--packet-size",
    "sample_interval": "--sample-interval", "web_sessions": "--web-sessions", "tcp.overhead": "--send-overhead",
    "tcp.ack_policy": "--ack-policy",
    "tcp.pacing": "--pacing", "tcp.rtt_correction": "--rtt-correction",
    "video": "--video", "startup_delay": "--startup-delay", "startup_delays": "--startup-delays", "t_mu_probe": "--t-mu-probe", "class_weights": "--class-weights", "flow_classes": "--flow-classes",
    "udp_load": "--udp-load", "udp_split": "--udp-split", "udp_arrivals": "--udp-arrivals", "cc_params": "--cc-param", "memory_limit": "--memory-limit",
}  # fmt: skip


def _numbers(value: str | None, flag: str, kind: type = float) -> list | None:
    """``"1,2,4"`` -> ``[1.0, 2.0, 4.0]`` (or ints); None stays None; a bad item exits naming ``flag``."""
    if value is None:
        return None
    try:
        return [kind(x) for x in value.split(",")]
    except ValueError:
        _fail(ValueError(f"{flag}: write comma-separated {'integers' if kind is int else 'numbers'}, e.g. {'0,1,2' if kind is int else '1,2,4'}; got {value!r}"))


def _cc_params(items: list[str]) -> dict[str, dict[str, Any]]:
    """``["pert-adaptive.alpha_max=16"]`` -> ``{"pert-adaptive": {"alpha_max": 16}}``."""
    if not items:
        return {}
    from pydantic import TypeAdapter, ValidationError

    from .scenario import CcSpec, ScenarioError
    from .scenario.errors import field_of

    params: dict[str, dict[str, Any]] = {}
    for item in items:
        key, eq, value = item.partition("=")
        kind, dot, name = key.strip().partition(".")
        if not (eq and dot and kind and name):
            raise ScenarioError([("--cc-param", f"write KIND.FIELD=VALUE, as in pert-adaptive.alpha_max=16; got {item!r}")])
        if kind not in CC_KINDS:
            raise ScenarioError([("--cc-param", f"unknown controller kind {kind!r}; allowed: {', '.join(CC_KINDS)}")])
        params.setdefault(kind, {})[name] = parse_value(value.strip())
    errors = []
    for kind, fields in params.items():
        try:
            TypeAdapter(CcSpec).validate_python({"kind": kind, **fields})
        except ValidationError as e:
            # Fields the builder derives (pert-pi's capacity) are missing here, not wrong.
            if not _cc_fields(kind):
                errors.append((f"--cc-param {kind}", f"{kind} has no parameters" + (" (sack and newreno are reno)" if kind == "reno" else "")))
                continue
            for x in e.errors():
                if x["type"] != "missing":
                    # The field as a scenario error names it (a check of the whole controller, such as
                    # a boolean for a number, names its field in the error's context).
                    field = field_of(x, x["loc"][1:], whole="")  # loc[0] is the kind; two fields for a joint check
                    errors.append((", ".join(f"--cc-param {kind}" + (f".{f.lstrip('.')}" if f else "") for f in field.split(", ")), x["msg"].removeprefix("Value error, ")))
    if errors:
        raise ScenarioError(errors)
    return params


def _cc_fields(kind: str) -> list[str]:
    """The parameters of controller ``kind`` (its scenario model's fields but ``kind``)."""
    from typing import get_args

    from .scenario import CcSpec

    model = next(m for m in get_args(get_args(CcSpec)[0]) if m.model_fields["kind"].default == kind)
    return [name for name in model.model_fields if name != "kind"]


def _fail(exc: ValueError, flags: dict[str, str] | None = None) -> None:
    """Print ``error: field: message`` lines and exit 2; ``flags`` renames builder arguments (and
    the scenario fields they set, an index in a per-flow list dropped) to the flags that set them."""
    from .builders import argument_of

    for line in str(exc).splitlines():
        field, sep, message = line.partition(": ")
        # one field, or the fields that set a value together (``flows, memory_limit``)
        fields = field.split(", ")
        arguments = [re.sub(r"\[\d+\]$", "", argument_of(f)) for f in fields]
        if flags and sep and any(a in flags for a in arguments):
            line = f"{', '.join(flags.get(a, f) for f, a in zip(fields, arguments))}: {message}"
        _say(line, "error", "bold red")
    raise typer.Exit(2)


def check_cluster(value: str | None) -> None:
    """``--cluster``, when given: a Dask scheduler address, checked before anything runs."""
    from .parallel import check_cluster_address

    try:
        if value is not None:
            check_cluster_address(value)
    except ValueError as e:
        _fail(e, {"cluster": "--cluster"})


def _memory_limit(value: str | None) -> float | None:
    """``--memory-limit``: a size (``4GiB``), ``none`` for no limit, or unset for the memory available now."""
    if value is None:
        return None
    if value.strip().lower() == "none":
        return math.inf
    try:
        return parse_size(value, "--memory-limit")
    except ValueError as e:
        _fail(e)


MEMORY_LIMIT_HELP = "Refuse a run whose memory estimate is larger: a size (8GiB), or none [default: the memory available now]."


def _run_and_report(
    scenario: Scenario, progress: bool, out_dir: Path | None, as_json: bool, title: str, memory_limit: float | None, flags: dict[str, str] | None = None
) -> None:
    """Run, write the result files into ``out_dir`` (if given) and print; a stop signal ends the
    run where it is, and the results so far are still written and printed (exit status 130).
    ``memory_limit`` as :func:`_memory_limit` reads it; ``flags`` names the flags behind the
    fields of a refusal."""
    if out_dir is not None:
        check_out_dir(out_dir)
    with interrupt.deferred():
        results = _run(scenario, progress, memory_limit, flags, out_dir)
        if out_dir is not None:
            _say(f"results in {results.write(out_dir)}/")
        _emit(results, as_json, title)


def _cell(x: float | None, spec: str, undefined: str = "") -> str:
    """A table cell: ``x`` formatted, or ``undefined`` (a blank cell) when the metric is undefined
    (None; NaN, a mean over seeds none of which defines it)."""
    return undefined if x is None or x != x else format(x, spec)


def computed(fn: Callable[[], T], flags: dict[str, str], what: str) -> T:
    """``fn()`` of a command that computes from its options (`stability`, `fluid`, `analyze`). A
    ValueError becomes one ``error: --flag: message`` line per line of it, the field (or the fields
    that set a value together, ``capacity, rtt, flows``) named by ``flags``, and exit 2; values the
    checks pass but the arithmetic of ``what`` cannot take go to :func:`fail_out_of_range`."""
    try:
        return fn()
    except ValueError as e:
        for line in str(e).splitlines():
            line = re.sub(r"^\w+(?:, \w+)*(?=:)", lambda m: ", ".join(flags.get(n, n) for n in m.group(0).split(", ")), line)
            typer.echo(f"error: {line}", err=True)
        raise typer.Exit(2)
    except (ArithmeticError, MemoryError) as e:
        fail_out_of_range(e, what)


def fail_out_of_range(exc: ArithmeticError | MemoryError, what: str) -> NoReturn:
    """Exit 2 for values the checks passed but the arithmetic of ``what`` cannot take (a capacity of
    1e-320 divides by zero, 1e308 overflows, a buffer of 1e10 packets does not fit in memory),
    naming the option to blame: the one given on the command line whose default, put in its
    place, lets the arithmetic through (:mod:`pertlab.culprit`); failing that, every option given.
    In one of the culprit search's reruns, raises :class:`pertlab.culprit.StillOutOfRange`."""
    from . import culprit

    if culprit.rerunning():
        raise culprit.StillOutOfRange
    found, given = culprit.search()
    if found:
        blame = f"{' and '.join(found)}{' is' if len(found) == 1 else ': each is'} far outside the range it can take (with its default in its place, {what} is computed)"
    else:
        blame = "one of the options given is far outside its range" + (f" (given: {', '.join(given)})" if given else "")
    _say(f"{what} cannot be computed with these values ({type(exc).__name__}: {exc}): {blame}", "error", "bold red")
    raise typer.Exit(2)


def check_out_dir(out_dir: Path, flag: str = "--out") -> None:
    """Exit 2 naming ``flag`` before any work if ``out_dir`` cannot become a directory of result
    files (a file is there, or in its way, or it cannot be made, or a file cannot be written in
    it): found only when the results are written, the run's work would be lost. It is made and
    a file written in it to know (permissions alone do not tell: root may write anywhere but in
    /proc), then what was made is removed."""
    out = out_dir.absolute()
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        _fail(ValueError(f"{flag}: {existing} is {'there' if existing == out else 'in the way'} and is not a directory"))
    made = [p for p in (out, *out.parents) if not p.exists()]  # the deepest first
    try:
        out.mkdir(parents=True, exist_ok=True)
        import tempfile  # 6 ms with shutil and random: only the commands that write files (issue 21)

        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as e:
        _fail(ValueError(f"{flag}: cannot write in {out if not made else existing}: {e.strerror}"))
    finally:
        for p in made:
            with contextlib.suppress(OSError):
                p.rmdir()


def _emit(results: Results, as_json: bool, title: str) -> None:
    """Print the results; an interrupted run then exits with 130, as after Ctrl-C."""
    if as_json:
        sys.stdout.write(dumps(results.summary) + "\n")
    else:
        _print_summary(results, title)
    if results.interrupted:
        raise typer.Exit(130)


def _app_for(args: list[str]) -> typer.Typer:
    """The command line as ``args`` needs it: when they start with the name of a command or
    group, a group holding that one alone, else the whole app (``--help``, no command, a name
    that is none, which then lists them all). Typer builds the parameters of every command it
    is given, resolving each annotation, at every start: about 60 ms, most of what a command's
    start-up had left (issue 21); and a group's module is imported only when named
    (:data:`_GROUPS`). Usage lines, help and errors are the ones the whole app gives, as the
    group keeps its name and settings."""
    name = args[0] if args else None
    commands = [c for c in _commands.registered_commands if command_name(c) == name]
    if not commands and name not in _GROUPS:
        return _whole_app()
    one = _with_groups([name] if name in _GROUPS else [], commands)
    # A callback keeps it a group when it holds one command (typer would run that command as
    # the program itself); the app has no options of its own, and neither has this.
    one.callback()(_no_options)
    return one


def command_name(info: Any) -> str:
    """The name a registered command (typer's ``CommandInfo``) is called by."""
    return info.name or typer.main.get_command_name(info.callback.__name__)


def _no_options() -> None:
    pass


def _without_pydantic_plugins() -> None:
    """Run this process's pydantic without plugins, as ``PYDANTIC_DISABLE_PLUGINS=__all__`` would,
    and without the module that looks for them. pydantic imports its plugin loader when it builds
    the first model's validator, and the loader imports ``importlib.metadata`` (with ``email``,
    ``zipfile`` and ``csv``) to read every installed package's entry points: 20 to 28 ms of every
    command that reads a scenario, where the plugins are of no use (issue 21; ``pertlab dumbbell
    --duration 10ms --json``: wall 0.959 of before, median of 20 paired runs). The stand-in is
    the loader's one function, which pydantic (2.14, pinned in requirements.lock) imports in one
    place, ``pydantic.plugin._schema_validator``; ``tests/python/test_cli_startup.py`` checks that
    a scenario command loads no ``importlib.metadata``. A library user's pydantic is untouched:
    only the ``pertlab`` command calls this."""
    if "pydantic.plugin._loader" not in sys.modules:
        loader = types.ModuleType("pydantic.plugin._loader", "pertlab's command line: pydantic without plugins")
        loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
        sys.modules["pydantic.plugin._loader"] = loader


def main() -> None:
    """The ``pertlab`` command: the whole command line (``app``), with stop signals ending it in status 130, no traceback."""
    interrupt.install()
    _without_pydantic_plugins()
    command = typer.main.get_command(_app_for(sys.argv[1:]))
    try:
        code = command.main(standalone_mode=False)
    except _ClickException as e:
        e.show()
        code = e.exit_code
    except _ABORTS:
        interrupt.ignore()
        _say("finished work is kept; run the same command again to resume where it can", "interrupted")
        code = 130
    # The command is over: a stop signal now would only turn a clean exit into a killed process.
    interrupt.ignore()
    # The interpreter's last collection at exit would walk every object still alive, most of them
    # typer's and pydantic's models and schemas made at start-up: about 20 ms of a short command
    # (issue 21). Frozen, they are only freed with the process. What must happen at exit still
    # does: the command's files were closed by their context managers, and atexit handlers
    # (Dask's) run after this line.
    gc.freeze()
    sys.exit(code if isinstance(code, int) else 0)


# --- commands ---------------------------------------------------------------


@_commands.command()
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
        typer.Option(help="Receivers' ACK policy: every (one ACK per segment), delayed (RFC 5681, one per two), adaptive (Qian 2011, 1 to 4 per ACK)."),
    ] = "every",
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
    tx_end_events: Annotated[str, typer.Option(help=TX_END_EVENTS_HELP, metavar="always|when_needed")] = "always",
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Also write the result files here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
    progress: Annotated[bool, typer.Option(help="Progress bar on stderr.")] = True,
    memory_limit: Annotated[Optional[str], typer.Option(help=MEMORY_LIMIT_HELP)] = None,
) -> None:
    """One bottleneck shared by long-lived TCP flows (see docs/cli.md for the defaults)."""
    from .builders import dumbbell as build_dumbbell

    limit = _memory_limit(memory_limit)
    classes = {
        "class_weights": _numbers(class_weights, "--class-weights"), "flow_classes": _numbers(flow_classes, "--flow-classes", int),
        "udp_load": udp_load, "udp_split": _numbers(udp_split, "--udp-split"), "udp_arrivals": udp_arrivals,
    }  # fmt: skip
    try:
        params = _cc_params(cc_param or [])
        scenario = build_dumbbell(
            bw=bw, rtt=rtt, flows=flows, cc=cc, queue=queue, duration=duration, buffer_bdp=buffer_bdp,
            buffer_pkts=buffer, start_window=start_window, warmup=warmup, seed=seed, ecn=ecn,
            access_rate=access_rate, packet_size=packet_size, sample_interval=sample_interval, web_sessions=web_sessions,
            cc_params=params, tcp={"overhead": send_overhead, "ack_policy": ack_policy, "pacing": {"enabled": pacing}, "rtt_correction": rtt_correction}, memory_limit=limit, video=video, startup_delay=startup_delay, startup_delays=startup_delays.split(",") if startup_delays else None, t_mu_probe=t_mu_probe, **classes,
        )  # fmt: skip
    except ValueError as e:
        _fail(e, _FLAGS)
    scenario = _with_tx_end_events(_with_pcap(scenario, pcap), tx_end_events)
    d = scenario.dumbbell
    bulk = sum(f.video is None and not f.probe for f in scenario.flows)
    streams = f", video {video}{' and a T/mu probe' if t_mu_probe else ''}" if video else ""
    title = (
        f"dumbbell {format_rate(d.bottleneck_rate)}, RTT {rtt}, {bulk} flows ({cc}){streams}, "
        f"buffer {d.bottleneck_queue.limit_pkts} pkts{', ECN' if ecn else ''}, seed {seed}"
    )
    _run_and_report(scenario, progress and not as_json, out_dir, as_json, title, limit, _FLAGS)


@_commands.command("eval-suite")
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
    from .tcp_eval_suite import eval_suite

    # The suite derives the access rate (2 x --bw) and the buffer (a BDP) from the options too.
    flags = {k: _FLAGS[k] for k in ("cc", "bw", "rtt", "duration", "warmup", "seed")} | {"access_rate": "--bw", "buffer_pkts": "--bw, --rtt", "memory_limit": "--memory-limit"}
    try:
        scenario = eval_suite(cc, bw=bw, rtt=rtt, duration=duration, warmup=warmup, seed=seed, pacing=pacing)
    except ValueError as e:
        _fail(e, flags)
    q = scenario.dumbbell.bottleneck_queue
    title = f"evaluation suite {bw}, RTT {rtt}, {cc}{' paced' if pacing else ''}, buffer {q.limit_pkts} pkts ({q.kind}), seed {seed}"
    _run_and_report(scenario, progress and not as_json, out_dir, as_json, title, _memory_limit(memory_limit), flags)


@_commands.command("run")
def run_file(
    scenario_file: Annotated[Path, typer.Argument(help="Scenario file (.toml, or .json).", metavar="SCENARIO")],
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Directory of the result files [default: out/<scenario name>].")] = None,
    seed: Annotated[Optional[int], typer.Option(min=0, max=U64_MAX, help="Override the scenario's seed.")] = None,
    pcap: Annotated[
        Optional[list[str]], typer.Option(help="Capture a link (both directions) to a pcap file, LINK:FILE, FILE relative to the current directory (repeatable; docs/pcap.md).", metavar="LINK:FILE")
    ] = None,
    tx_end_events: Annotated[
        Optional[str], typer.Option(help=TX_END_EVENTS_HELP + " [default: the scenario's engine.tx_end_events]", metavar="always|when_needed")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
    progress: Annotated[bool, typer.Option(help="Progress bar on stderr.")] = True,
    memory_limit: Annotated[Optional[str], typer.Option(help=MEMORY_LIMIT_HELP)] = None,
) -> None:
    """Run a scenario file; save Parquet tables and the summary JSON."""
    from .runner import as_scenario

    try:
        scenario = as_scenario(scenario_file)
        if seed is not None:
            scenario = scenario.model_copy(update={"seed": seed})
    except ValueError as e:
        _fail(e)
    scenario = _with_tx_end_events(_with_pcap(scenario, pcap), tx_end_events)
    target = out_dir if out_dir is not None else Path("out") / scenario_file.stem
    _run_and_report(scenario, progress, target, as_json, f"{scenario_file.name}, seed {scenario.seed}", _memory_limit(memory_limit))


@_commands.command()
def sweep(
    scenario_file: Annotated[Path, typer.Argument(help="Base scenario file (.toml, or .json).", metavar="SCENARIO")],
    vary: Annotated[Optional[list[str]], typer.Option("--vary", help="PATH=V1,V2,... (repeatable), e.g. bottleneck.rate=1Mbps,10Mbps or cc=pert,sack.")] = None,
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
    from .runner import as_scenario
    from .parallel import StoredRunWarning
    from .sweep import parse_vary, progress_printer, run_sweep

    check_out_dir(out_dir)
    limit = _memory_limit(memory_limit)
    check_cluster(cluster)
    update, stop = progress_printer()
    try:
        base = as_scenario(scenario_file)
        varied = parse_vary(vary or [])
        with _warnings_said(StoredRunWarning):
            _, table = run_sweep(base, varied, seeds, out_dir, jobs=jobs, cluster=cluster, on_progress=None if as_json else update, memory_limit=limit)
    except ValueError as e:
        stop()
        _fail(e, {"--vary": "--vary", "--seeds": "--seeds", "cluster": "--cluster", "memory_limit": "--memory-limit"})
    except KeyboardInterrupt:
        stop()
        _say(f"finished runs are kept in {out_dir}/runs; run the same command to resume", "interrupted")
        raise typer.Exit(130)
    stop()
    if as_json:
        sys.stdout.write(dumps({"out": str(out_dir), "points": table.to_dicts()}) + "\n")
        return
    from rich.table import Table

    t = Table(title=f"sweep of {scenario_file.name}: mean (+- 95 % CI over {seeds} seed{'s' if seeds > 1 else ''})")
    keys = list(varied)
    for c in keys + list(_SWEEP_METRICS):
        t.add_column(c, justify="right")
    for r in table.iter_rows(named=True):
        cells = [str(r[k]) for k in keys]
        for m in _SWEEP_METRICS:
            mean, ci = _cell(r[m], ".3g"), _cell(r.get(f"{m}_ci95"), ".2g")
            cells.append(f"{mean} +- {ci}" if mean and ci else mean)
        t.add_row(*cells)
    out.print(t)
    out.print(f"[dim]runs.parquet and aggregate.parquet in {out_dir}/", highlight=False)


_SWEEP_METRICS = ("avg_queue_norm", "drop_rate", "utilization", "jain")


@_commands.command()
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
    from .reproduce import REGISTRY, get

    # Options that mean something only for one reproduction's run, or only when it runs.
    runs = {"--quick": quick, "--jobs": jobs is not None, "--cluster": cluster is not None}
    given = [flag for flag, on in {**runs, "--out": out_dir is not None, "--render-only": render_only}.items() if on]
    if list_ and name is not None:
        _fail(ValueError("name: --list names every reproduction; give a name or --list, not both"))
    if (list_ or name is None) and given:
        _fail(ValueError(f"{given[0]}: needs a reproduction's name (pertlab reproduce NAME {given[0]}; --list names them)"))
    if render_only and (ran := [flag for flag, on in runs.items() if on]):
        _fail(ValueError(f"{ran[0]}: --render-only runs nothing (it redraws the report in --out from its stored tables)"))
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
        _fail(ValueError(f"name: {e}"))
    if entry.runs_here and (unused := [flag for flag in ("--jobs", "--cluster") if runs[flag]]):
        _fail(ValueError(f"{unused[0]}: {name} sends nothing to workers ({entry.runs_here}); leave {unused[0]} out"))
    from .parallel import Workers

    folder = out_dir or Path("reports") / name
    check_out_dir(folder)
    if render_only:
        try:
            report = entry.render(folder)
        except ValueError as e:
            # Every refusal here is about the folder --out gives, or its default.
            _fail(ValueError(f"--out: {e}" + ("" if out_dir else " (--out was not given: reports/NAME is its default)")))
    else:
        from .parallel import StoredRunWarning

        try:
            with _warnings_said(StoredRunWarning):
                report = entry.report(quick, folder, Workers(jobs, cluster, store=folder / "tasks"))
        except ValueError as e:
            _fail(e, {"cluster": "--cluster"})
        except KeyboardInterrupt:
            _say(f"finished runs are kept in {folder}; run the same command to resume", "interrupted")
            raise typer.Exit(130)
    index = folder / "index.html"
    if as_json:
        sys.stdout.write(dumps(report.summary()) + "\n")
        return
    for c in report.claims:
        mark = "[green]holds[/]" if c.holds else "[red]does not hold[/]"
        out.print(f"{mark}: {c.text}\n    {c.evidence}")
    out.print(f"[dim]report: {index}", highlight=False)


@_commands.command()
def plot(
    results_dir: Annotated[Path, typer.Argument(help="A directory written by `run --out` or `dumbbell --out`.")],
) -> None:
    """Write queue.png, cwnd.png and throughput.png of a saved run into its directory."""
    from .plots import write_figures
    from .results import Results

    if not (results_dir / "summary.json").is_file():
        _fail(ValueError(f"{results_dir}: no summary.json here; give a directory written by `pertlab run`"))
    try:
        results = Results.read(results_dir)
    except (OSError, ValueError) as e:  # a file missing or unreadable (JSONDecodeError is a ValueError)
        _fail(ValueError(f"{results_dir}: not a complete result directory of `pertlab run` ({type(e).__name__}: {e})"))
    for path in write_figures({results_dir.name: results}, results_dir):
        out.print(str(path), highlight=False)


@_commands.command()
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    from .scenario import Scenario

    sys.stdout.write(dumps(Scenario.json_schema(), indent=2) + "\n")


@_commands.command()
def demo(
    out_dir: Annotated[Path, typer.Option("--out", help="Output directory.")] = Path("demo-out"),
    quick: Annotated[bool, typer.Option("--quick", help="30 s runs instead of 400 s (a first look, and tests).")] = False,
    seed: Annotated[int, typer.Option(min=0, max=U64_MAX, help="Seed of every run.")] = 1,
    jobs: Annotated[Optional[int], typer.Option(min=1, help="Parallel runs [default: one per core, at most 4].")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the table as one JSON object.")] = False,
) -> None:
    """The PERT paper's single-bottleneck comparison of PERT, SACK, SACK/RED-ECN and Vegas."""
    from .demo import run_demo

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


# --- helpers ----------------------------------------------------------------


TX_END_EVENTS_HELP = (
    "Which transmission ends are events: always (every one; the committed reports' convention) or when_needed "
    "(only where a loss is drawn or a queued packet starts: fewer events, a faster run, results that differ only "
    "where two events fall on one nanosecond; docs/model.md, Transmission ends)."
)


def _with_tx_end_events(scenario: Scenario, value: str | None) -> Scenario:
    """``--tx-end-events`` set in the scenario's ``engine`` section (None: as the scenario has it)."""
    from typing import get_args

    from .scenario import EngineSpec

    if value is None:
        return scenario
    allowed = get_args(EngineSpec.model_fields["tx_end_events"].annotation)
    if value not in allowed:
        _fail(ValueError(f"--tx-end-events: must be one of {', '.join(allowed)}, got `{value}`"))
    return scenario.model_copy(update={"engine": scenario.engine.model_copy(update={"tx_end_events": value})})


def _with_pcap(scenario: Scenario, pcap: list[str] | None) -> Scenario:
    """``--pcap LINK:FILE`` entries added to the scenario's ``capture`` list (both directions)."""
    from .scenario import CaptureSpec
    from .scenario.model import same_capture_file

    if not pcap:
        return scenario
    added = []
    for value in pcap:
        link, sep, file = value.partition(":")
        if not (sep and link and file):
            _fail(ValueError(f"--pcap: give LINK:FILE, e.g. bottleneck:bottleneck.pcap, got `{value}`"))
        if not scenario.has_link(link):
            _fail(ValueError(f"--pcap: no link named `{link}`; links: {scenario.link_names()}"))
        folder = Path(file).parent
        if Path(file).is_dir() or not folder.is_dir():
            where = f"`{file}` is a directory" if Path(file).is_dir() else f"no directory `{folder}`"
            _fail(ValueError(f"--pcap: cannot write `{file}`: {where}"))
        added.append(CaptureSpec(link=link, file=file))
    captures = [*scenario.capture, *added]
    if same := same_capture_file(captures):
        i, j = same
        earlier = f"--pcap {pcap[i - len(scenario.capture)]}" if i >= len(scenario.capture) else f"the scenario's capture[{i}]"
        _fail(ValueError(f"--pcap: `{captures[j].file}` is also the file of {earlier}: two captures cannot write one file; give each its own"))
    return scenario.model_copy(update={"capture": captures})


def _run(scenario: Scenario, progress: bool, memory_limit: float | None, flags: dict[str, str] | None, out_dir: Path | None = None) -> Results:
    """Run ``scenario``; a failure of a model written in Python prints its message, writes the
    results up to the failure into ``out_dir`` (if given) and exits with status 1."""
    from .results import CaptureWarning
    from .runner import ModelError, run

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CaptureWarning)  # printed below with the run's other warnings
            # The bar is transient: where rich does not draw on stderr it would leave nothing.
            results = run(scenario, progress=progress and _rich_stderr(), memory_limit=memory_limit)
    except ModelError as e:
        # A model written in Python failed: its traceback, the simulated time, the flow, the hook.
        _say(str(e), "error", "bold red")
        if out_dir is not None:
            at = e.results.data["sim_seconds"]
            _say(f"results up to the failure ({at:g} s simulated, flagged interrupted) in {e.results.write(out_dir)}/")
        raise typer.Exit(1)
    except ValueError as e:
        _fail(e, flags)
    if results.interrupted:
        _say(f"interrupted at {results.data['sim_seconds']:.1f} s simulated; results so far follow", style="yellow")
    for warning in results.warnings:
        _say(warning, "warning", "bold yellow")
    return results


def _print_video(results: Results) -> None:
    """The video streams (Qian 2011), by label: T/mu (with a probe), the mean and the worst late
    fraction, and the share of streams that succeed, at the start-up delay and at each further one."""
    import polars as pl
    from rich.table import Table

    from .results import SUCCESS_LATE_FRACTION_TEXT

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
        t.add_row(r["label"], str(r["streams"]), _cell(r["video_t_mu"], ".2f"), delay, _cell(r["late"], ".2e"), _cell(r["worst"], ".2e"), _cell(r["success"], ".2f"),
                  *(_cell(at.get((r["label"], d)), ".2f") for d in delays))  # fmt: skip
    out.print(t)


def _print_summary(results: Results, title: str) -> None:
    import polars as pl
    from rich.table import Table

    b = results.bottleneck
    if b is not None:
        t = Table(title=title, caption=f"{b['link']}: {b['from']} -> {b['to']}, {b['discipline']}")
        for col in ("queue", "avg pkts", "avg/buffer", "drop rate", "mark rate", "utilization"):
            t.add_column(col, justify="left" if col == "queue" else "right", no_wrap=True)
        t.add_row(
            b["link"],
            f"{b['avg_queue_pkts']:.1f}",
            f"{b['avg_queue_norm']:.3f}",
            _cell(b["drop_rate"], ".2e"),
            _cell(b["mark_rate"], ".2e"),
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
        t = Table(title=f"TCP flows (Jain index {_cell(results.jain, '.3f', '-')})")
        for col in ("label", "flows", "goodput Mbit/s", "share", "min", "max", "drops", "drop rate", "timeouts"):
            t.add_column(col, justify="left" if col == "label" else "right")
        for r in by_label.iter_rows(named=True):
            t.add_row(
                r["label"], str(r["flows"]), f"{r['goodput_mbps']:.2f}", _cell(r["share"], ".3f"), f"{r['min']:.2f}",
                f"{r['max']:.2f}", str(r["drops"]), _cell(r["drop_rate"], ".2e"), str(r["timeouts"]),
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
                      _cell(r["mean_wait_ms"], ".3f"), _cell(r["mean_wait_tx"], ".2f"), _cell(r["ratio_to_next"], ".3f"))  # fmt: skip
        out.print(t)
    w = results.web
    if w is not None:
        t = Table(title=f"web: {w['sessions']} sessions, objects completed in the window")
        for col in ("objects", "Mbit/s", "response mean ms", "p50", "p95", "p99"):
            t.add_column(col, justify="right")
        t.add_row(
            str(w["objects_completed"]), f"{w['throughput_mbps']:.2f}", _cell(w["response_ms_mean"], ".1f"),
            _cell(w["response_ms_p50"], ".1f"), _cell(w["response_ms_p95"], ".1f"), _cell(w["response_ms_p99"], ".1f"),
        )  # fmt: skip
        out.print(t)
    d = results.data
    out.print(
        f"[dim]metrics over {d['window_start_s']:g}..{d['window_end_s']:g} s; "
        f"{d['events']:,} events in {d['wall_seconds']:.2f} s wall; "
        f"conservation {'ok' if d['conservation']['ok'] else 'VIOLATED'}",
        highlight=False,
    )
