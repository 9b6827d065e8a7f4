"""Start-up of the command line (issue 21: "`pertlab --help` and `pertlab stability ...` under
0.3 s, and `pertlab dumbbell` adding under 0.3 s to the core's time"), written to BENCHMARKS.md
between the ``bench-cli`` markers. Called by scripts/bench.sh (``make bench``).

Each figure is a whole process timed from outside: wall seconds from the start of
``python -c "from pertlab.cli import main; main()" ARGS`` (what the ``pertlab`` script runs) to its
exit, and its user + system CPU seconds from the operating system (``os.wait4``). For
``dumbbell --json``, the time added to the core's is the process's wall time minus the
``wall_seconds`` the core reports in the same run. Each row gives the median of ``--runs`` runs.

``--vs REV`` (repeatable) measures the command line of another revision beside this tree's: its
``python/`` directory is extracted (``git archive``) into a temporary directory, put first on
``PYTHONPATH`` and given this tree's compiled core, so the Python code differs and the simulator
does not. The variants run in turn, one run of each
per round (this tree, REV, this tree, REV, ...), so that a machine that slows down during the
measurement slows every variant alike; each ratio is the median of the rounds' ratios. Every
tree's modules are compiled to bytecode first (``compileall``), as an installed package's are.

The heavy modules each command loads are read from one run under ``python -X importtime``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import bench_block
from bench_block import write_block

ROOT = pathlib.Path(__file__).resolve().parent.parent

#: (label, arguments): the commands of issue 21; the stability arguments are docs/fluid.md's.
COMMANDS = [
    ("pertlab --help", ["--help"]),
    ("pertlab stability pert-red ... --json", ["stability", "pert-red", "--capacity", "100pkt/s", "--rtt", "160ms", "--flows", "5",
                                                "--pmax", "0.1", "--tmin", "50ms", "--tmax", "100ms", "--json"]),
    ("pertlab dumbbell --json (canonical run)", ["dumbbell", "--json"]),
    # The same command with a run of 10 ms: nearly all of it is the command line's own time.
    ("pertlab dumbbell --duration 10ms --json", ["dumbbell", "--duration", "10ms", "--json"]),
]  # fmt: skip
#: Packages whose import costs tenths of a second; a command should load only those it uses.
HEAVY = ("pydantic", "polars", "pyarrow", "numpy", "scipy", "matplotlib", "dask", "distributed", "rich", "pertlab._core")


def run_once(python_path: pathlib.Path, args: list[str]) -> tuple[float, float, float | None]:
    """Wall and CPU seconds of one ``pertlab ARGS`` process, and the core's wall seconds when
    it prints a run's JSON."""
    env = {**os.environ, "PYTHONPATH": str(python_path)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", "from pertlab.cli import main; main()", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)  # fmt: skip
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"pertlab {' '.join(args)} with PYTHONPATH={python_path} exited with status {proc.returncode}")
    core = None
    if args[0] == "dumbbell":
        core = json.loads(output)["wall_seconds"]
    return wall, usage.ru_utime + usage.ru_stime, core


def heavy_modules(python_path: pathlib.Path, args: list[str]) -> list[str]:
    """The packages of :data:`HEAVY` one ``pertlab ARGS`` process imports (``python -X importtime``)."""
    env = {**os.environ, "PYTHONPATH": str(python_path)}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "from pertlab.cli import main; main()", *args],
                          capture_output=True, text=True, env=env)  # fmt: skip
    names = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    return [h for h in HEAVY if h in names]


def python_of(rev: str, into: pathlib.Path) -> tuple[str, pathlib.Path]:
    """``(short commit, python directory)`` of ``rev`` extracted into ``into``, with this tree's core."""
    commit = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    into.mkdir()
    archive = subprocess.run(["git", "archive", commit, "python"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    for core in (ROOT / "python" / "pertlab").glob("_core*.so"):
        shutil.copy2(core.resolve(), into / "python" / "pertlab" / core.name)
    return commit, into / "python"


def machine() -> str:
    return f"{bench_block.machine()[:-1]}; Python {platform.python_version()}."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of each command and variant (default 10)")
    parser.add_argument("--vs", action="append", default=[], metavar="REV", help="also measure this revision's command line (repeatable)")
    parser.add_argument("--no-write", action="store_true", help="print the block, leave BENCHMARKS.md as it is")
    opts = parser.parse_args()
    where = machine()
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        variants = [("this tree", ROOT / "python")]
        for i, rev in enumerate(opts.vs):
            commit, path = python_of(rev, pathlib.Path(tmp) / f"rev{i}")
            variants.append((f"`{commit}`", path))
        for _, path in variants:
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(path)], check=True, stdout=subprocess.DEVNULL)
        lines = measure_all(variants, opts.runs)
        loaded = [(label, name, heavy_modules(path, args)) for label, args in COMMANDS for name, path in variants]
    block = [
        where + f" Medians of {opts.runs} runs of each; written by `scripts/bench_cli.py"
        + "".join(f" --vs {rev}" for rev in opts.vs) + "` (`make bench`).",
        "",
        *lines,
        "",
        "Heavy packages each command imports (`python -X importtime`):",
        "",
        "| command | code | imports |",
        "|---|---|---|",
        *(f"| {label} | {name} | {', '.join(mods) or 'none of them'} |" for label, name, mods in loaded),
    ]
    print("\n".join(block))
    if not opts.no_write:
        write_block("bench-cli", block, ROOT / "BENCHMARKS.md")


def measure_all(variants: list[tuple[str, pathlib.Path]], runs: int) -> list[str]:
    """The table of medians: one row per command and variant, runs interleaved round by round."""
    rows = ["| command | code | wall s | CPU s | added to the core's wall s | wall / this tree's |", "|---|---|---|---|---|---|"]
    for label, args in COMMANDS:
        run_once(variants[0][1], args)  # warm the file cache
        walls = {name: [] for name, _ in variants}
        cpus = {name: [] for name, _ in variants}
        added = {name: [] for name, _ in variants}
        for _ in range(runs):
            for name, path in variants:
                wall, cpu, core = run_once(path, args)
                walls[name].append(wall)
                cpus[name].append(cpu)
                if core is not None:
                    added[name].append(wall - core)
        this = variants[0][0]
        for name, _ in variants:
            ratio = statistics.median(a / b for a, b in zip(walls[name], walls[this]))
            extra = f"{statistics.median(added[name]):.2f}" if added[name] else ""
            rows.append(f"| {label} | {name} | {statistics.median(walls[name]):.2f} | {statistics.median(cpus[name]):.2f} | {extra} | {ratio:.2f} |")
    return rows


if __name__ == "__main__":
    main()
