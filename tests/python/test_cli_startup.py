"""The command line imports only what a command uses (issue 21): `pertlab --help` loads no
pydantic, polars, numpy, core or rich, and the closed-form commands no polars, core or Dask. Checked
by the modules a fresh process has loaded, not by a wall-clock limit."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# click is not heavy, but typer (0.26 and later) carries its own: the click package would be 20 ms for nothing.
# importlib.metadata (20 to 28 ms with email, zipfile and csv) is what pydantic's plugin loader
# imports; the command line runs pydantic without plugins (cli._without_pydantic_plugins).
HEAVY = ("polars", "pydantic", "numpy", "scipy", "pyarrow", "dask", "distributed", "matplotlib", "pertlab._core", "rich", "click", "importlib.metadata")
#: Light, but not for every command: the modules of the command groups (cli._GROUPS), and tempfile
#: (with shutil and random) that only the commands writing files use.
GROUP_MODULES = ("pertlab.fluid.cli", "pertlab.linux.cli", "pertlab.validate.cli", "pertlab.analysis.cli", "tempfile")

PROBE = """
import json, sys
from pertlab.cli import main
sys.argv = ["pertlab", *sys.argv[1:]]
try:
    main()
except SystemExit as e:
    code = e.code
heavy = sorted(m for m in {HEAVY} if m in sys.modules)
groups = sorted(m for m in {GROUP_MODULES} if m in sys.modules)
# Regular expressions tokenize compiled (its first use compiles a large one, 12 ms).
tokenize = sys.modules["tokenize"]._compile.cache_info().currsize if "tokenize" in sys.modules else 0
print(json.dumps({{"code": code, "heavy": heavy, "groups": groups, "tokenize": tokenize}}), file=sys.stderr)
"""


def _report(*args: str) -> dict:
    """The exit status (``code``), the heavy modules (``heavy``) and the group modules
    (``groups``) one command loaded, its stderr a pipe (no terminal, and none forced on rich by
    the environment)."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    probe = PROBE.format(HEAVY=HEAVY, GROUP_MODULES=GROUP_MODULES)
    proc = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=False, env=env)
    return json.loads(proc.stderr.strip().splitlines()[-1])


def _loaded(*args: str) -> tuple[int, list[str]]:
    """The exit status and the heavy modules of one command."""
    report = _report(*args)
    return report["code"], report["heavy"]


def test_help_loads_no_heavy_module():
    assert _loaded("--help") == (0, [])


@pytest.mark.parametrize(
    "args",
    [
        # The theorems compute in plain floats, and typer 0.28 parses options without pydantic
        # (0.29 builds a pydantic TypeAdapter per option: pinned in requirements.lock for that).
        ["stability", "pert-red", "--capacity", "10Mbps", "--flows", "50", "--rtt", "100ms", "--json"],
        ["stability", "pert-pi", "--capacity", "100pkt/s", "--delta", "1ms", "--json"],
        ["analyze", "vegas-parking-lot", "--hops", "3", "--flows", "1", "--json"],
    ],
)
def test_closed_form_commands_load_no_heavy_module(args):
    code, heavy = _loaded(*args)
    assert code in (0, None) and heavy == [], heavy


def test_dumbbell_json_loads_no_dataframe_library_nor_rich_off_a_terminal():
    # The summary is printed from the core's JSON: polars and pyarrow come with a table or --out.
    # Off a terminal the progress bar (on by default) would draw nothing, and a warning (a run of
    # 10 ms has one: no flow completes a round trip) is plain text: rich is not needed.
    code, heavy = _loaded("dumbbell", "--duration", "10ms", "--flows", "2", "--json")
    assert code in (0, None)
    assert set(heavy) <= {"pydantic", "pertlab._core"}, heavy


def test_messages_off_a_terminal_are_rich_s_characters():
    """`warning: ...` and `error: ...` written without rich are what rich writes to a pipe."""
    args = [sys.executable, "-c", "from pertlab.cli import main; main()", "dumbbell", "--duration", "10ms", "--flows", "2", "--json"]
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    plain = subprocess.run(args, capture_output=True, text=True, check=True, env=env).stderr
    assert "\nwarning: 2 of 2 TCP flows completed no round trip" in plain and plain.startswith("warning: the bottleneck"), plain
    # With TTY_COMPATIBLE=0 rich writes the same message itself, without escape codes.
    by_rich = subprocess.run(args, capture_output=True, text=True, check=True, env={**env, "TTY_COMPATIBLE": "0"}).stderr
    assert by_rich == plain
    bad = subprocess.run([*args[:4], "--bw", "0"], capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and bad.stderr == "error: --bw: must be positive, got '0'\n", bad.stderr


def test_run_is_the_function_whatever_was_imported_first():
    # pertlab.runner holds it: a module named `run` would shadow the function once imported.
    code = "import pertlab.cli, pertlab.runner, pertlab; assert callable(pertlab.run) and pertlab.run.__module__ == 'pertlab.runner'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_python_dash_m_runs_the_command():
    """`python -m pertlab` is the `pertlab` command (for a Python whose scripts are not on the PATH)."""
    proc = subprocess.run([sys.executable, "-m", "pertlab", "stability", "pert-red", "--help"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Usage: python -m pertlab stability pert-red [OPTIONS]")


@pytest.mark.parametrize(
    ("args", "groups"),
    [
        (["dumbbell", "--duration", "10ms", "--flows", "2", "--json"], []),
        (["stability", "pert-pi", "--capacity", "100pkt/s", "--delta", "1ms", "--json"], ["pertlab.fluid.cli"]),
        (["analyze", "vegas-parking-lot", "--hops", "3", "--flows", "1", "--json"], ["pertlab.analysis.cli"]),
        # The whole command line's help lists every group, so it imports them all.
        (["--help"], ["pertlab.analysis.cli", "pertlab.fluid.cli", "pertlab.linux.cli", "pertlab.validate.cli"]),
    ],
)
def test_a_command_imports_only_its_own_group(args, groups):
    report = _report(*args)
    assert report["code"] in (0, None) and report["groups"] == groups, report


def test_reading_a_scenario_does_not_tokenize():
    """pydantic reads the signature of each field's default factory; a builtin's (``list``) is
    parsed from its text with tokenize, whose first use compiles a large regular expression
    (12 ms). The scenario models' factories are Python functions (``scenario.model._empty_list``)."""
    report = _report("dumbbell", "--duration", "10ms", "--flows", "2", "--json")
    assert report["code"] in (0, None) and report["tokenize"] == 0, report
