"""Write a block of BENCHMARKS.md between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``
(appended at the end the first time), and the line saying where and when its figures were
measured, and the timing of a whole process; shared by the benchmark scripts that keep a block of
their own."""

from __future__ import annotations

import datetime
import os
import pathlib
import platform
import resource
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def cpu() -> str:
    """The processor as the figures depend on it: its name, and, where Linux says, its family and
    model numbers and its caches. This virtual machine names every host "AMD EPYC", and the
    same build's times moved by 40 % between hosts of different generations (BENCHMARKS.md,
    "Against a minimal engine"), so the name alone does not tell two hosts apart."""
    info = {}
    for line in open("/proc/cpuinfo"):
        key, _, value = line.partition(":")
        if not key.strip():
            break  # the first processor's block is enough
        info.setdefault(key.strip(), value.strip())
    name = info.get("model name", platform.processor())
    details = [f"family {info['cpu family']} model {info['model']}"] if "cpu family" in info and "model" in info else []
    caches = pathlib.Path("/sys/devices/system/cpu/cpu0/cache")
    for index in sorted(caches.glob("index*")):
        try:
            level, kind, size = ((index / f).read_text().strip() for f in ("level", "type", "size"))
        except OSError:
            continue
        if kind != "Instruction":
            kib = int(size.rstrip("K")) if size.endswith("K") and size[:-1].isdigit() else None
            shown = size if kib is None else f"{kib // 1024} MiB" if kib % 1024 == 0 else f"{kib} KiB"
            details.append(f"L{level}{'d' if kind == 'Data' else ''} {shown}")
    return f"{name} ({'; '.join(details)})" if details else name


def machine() -> str:
    """Date, commit, processor, cores and load: what the figures depend on."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return f"Measured {datetime.date.today()} at commit `{commit}` on {cpu()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start."


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


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system, the operating system's accounting of the finished
    child) of one run of ``cmd`` as a whole process, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out
