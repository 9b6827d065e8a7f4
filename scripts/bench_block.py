"""Write a block of BENCHMARKS.md between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``
(appended at the end the first time), and the line saying where and when its figures were
measured; shared by the benchmark scripts that keep a block of their own."""

from __future__ import annotations

import datetime
import os
import pathlib
import platform
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent


def machine() -> str:
    """Date, commit, processor, cores and load: what the figures depend on."""
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.processor())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return f"Measured {datetime.date.today()} at commit `{commit}` on {cpu} ({os.cpu_count()} cores), load average {os.getloadavg()[0]:.1f} at the start."


def write_block(name: str, lines: list[str], path: pathlib.Path = pathlib.Path("BENCHMARKS.md")) -> None:
    """Replace the block ``name`` of ``path`` with ``lines`` (the markers are added here)."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = "\n".join([start, *lines, end])
    text = path.read_text()
    if start in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text)
