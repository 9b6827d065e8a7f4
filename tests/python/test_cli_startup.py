"""The command line imports only what a command uses (issue 21): `pertlab --help` loads no
pydantic, polars, numpy, core or rich, and the closed-form commands no polars, core or Dask. Checked
by the modules a fresh process has loaded, not by a wall-clock limit."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("polars", "pydantic", "numpy", "scipy", "pyarrow", "dask", "distributed", "matplotlib", "pertlab._core", "rich")

PROBE = """
import json, sys
from pertlab.cli import main
sys.argv = ["pertlab", *sys.argv[1:]]
try:
    main()
except SystemExit as e:
    code = e.code
heavy = sorted(m for m in {HEAVY} if m in sys.modules)
print(json.dumps({{"code": code, "heavy": heavy}}), file=sys.stderr)
"""


def _loaded(*args: str) -> tuple[int, list[str]]:
    proc = subprocess.run([sys.executable, "-c", PROBE.format(HEAVY=HEAVY), *args], capture_output=True, text=True, check=False)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report["code"], report["heavy"]


def test_help_loads_no_heavy_module():
    assert _loaded("--help") == (0, [])


@pytest.mark.parametrize(
    "args, allowed",
    [
        # typer itself imports pydantic to run any command; the theorems compute in plain floats.
        (["stability", "pert-red", "--capacity", "10Mbps", "--flows", "50", "--rtt", "100ms", "--json"], {"pydantic"}),
        (["stability", "pert-pi", "--capacity", "100pkt/s", "--delta", "1ms", "--json"], {"pydantic"}),
        (["analyze", "vegas-parking-lot", "--hops", "3", "--flows", "1", "--json"], {"pydantic"}),
    ],
)
def test_closed_form_commands_load_no_simulator(args, allowed):
    code, heavy = _loaded(*args)
    assert code in (0, None)
    assert set(heavy) <= allowed, heavy


def test_dumbbell_json_loads_no_dataframe_library():
    # The summary is printed from the core's JSON: polars and pyarrow come with a table or --out.
    code, heavy = _loaded("dumbbell", "--duration", "1s", "--flows", "2", "--json", "--no-progress")
    assert code in (0, None)
    assert set(heavy) <= {"pydantic", "pertlab._core", "rich"}, heavy


def test_run_is_the_function_whatever_was_imported_first():
    # pertlab.runner holds it: a module named `run` would shadow the function once imported.
    code = "import pertlab.cli, pertlab.runner, pertlab; assert callable(pertlab.run) and pertlab.run.__module__ == 'pertlab.runner'"
    subprocess.run([sys.executable, "-c", code], check=True)
