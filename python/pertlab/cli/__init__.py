"""The ``pertlab`` command line.

Every command that computes something prints a rich table, or with ``--json``
one JSON object on stdout. Bad input prints ``error: field: message`` on
stderr and exits with status 2; no traceback. Ctrl-C, SIGTERM or SIGHUP stop a
command, once or more, keeping what it finished (:mod:`pertlab.interrupt`); it
then exits with status 130.

The package: :mod:`~pertlab.cli.commands` (the commands that run the simulator),
:mod:`~pertlab.cli.runs` (a scenario to its results), :mod:`~pertlab.cli.checks` (options
read and refused), :mod:`~pertlab.cli.output` (what is printed); here, the command line as a
process starts it: only the command it names is built, only the group it names imported.

The modules that define commands (here, and each group's ``cli.py``) keep their annotations as
objects, without ``from __future__ import annotations``: typer reads a command's options from
its annotations when it builds the command, and strings would be compiled and evaluated then,
at every start (issue 21: 12 ms for the dumbbell's 32 options, 3 ms as objects, for 1 ms more at
import). A name imported only for type checking is written as a string where it is used.
"""

from __future__ import annotations

import functools
import gc
import sys
import types
from typing import Any, Iterable

import typer

# typer (0.26 to 0.28, pyproject.toml) parses with the click it carries (typer._click): its usage
# errors derive from typer._click's ClickException and its abort is typer.Abort, and the click
# package, 20 ms to import, is not loaded (issue 21).
from typer._click.exceptions import ClickException as _ClickException

from .. import interrupt
from .commands import APP_SETTINGS, commands_app
from .output import say

_ABORTS: tuple[type[BaseException], ...] = (typer.Abort, KeyboardInterrupt)


#: The command groups other modules define, in the order `pertlab --help` lists them (after the
#: commands of :mod:`~pertlab.cli.commands`): name -> (module, its typer app). A command line that names one
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
    of :data:`~pertlab.cli.commands.commands_app`) and the groups ``names`` of :data:`_GROUPS`, each module imported now."""
    import importlib

    whole = typer.Typer(**APP_SETTINGS)
    whole.registered_commands = commands
    for name in names:
        module, attribute = _GROUPS[name]
        whole.add_typer(getattr(importlib.import_module(module), attribute), name=name)
    return whole


@functools.cache
def _whole_app() -> typer.Typer:
    return _with_groups(_GROUPS, commands_app.registered_commands)


def __getattr__(name: str) -> Any:
    """``app``: the whole command line, every command and group (made on first use, see
    :data:`_GROUPS`); what ``typer.testing.CliRunner`` and the docs' generator are given."""
    if name == "app":
        return _whole_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _app_for(args: list[str]) -> typer.Typer:
    """The command line as ``args`` needs it: when they start with the name of a command or
    group, a group holding that one alone, else the whole app (``--help``, no command, a name
    that is none, which then lists them all). Typer builds the parameters of every command it
    is given, resolving each annotation, at every start: about 60 ms, most of what a command's
    start-up had left (issue 21); and a group's module is imported only when named
    (:data:`_GROUPS`). Usage lines, help and errors are the ones the whole app gives, as the
    group keeps its name and settings."""
    name = args[0] if args else None
    commands = [c for c in commands_app.registered_commands if command_name(c) == name]
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
        say("finished work is kept; run the same command again to resume where it can", "interrupted")
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
