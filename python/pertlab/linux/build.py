"""Build the C sources in ``bpf/``: the eBPF object, its loader, and the
user-space harness that replays the shared PERT vectors.

Outputs go to ``build/bpf/`` in the repository (or ``$PERTLAB_BUILD_DIR``) and
are rebuilt when a source is newer than the output. Builds in several processes at once
(test workers, Dask workers) wait for one another on a lock file there, so that none runs
a program another is still writing.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

VMLINUX_BTF = Path("/sys/kernel/btf/vmlinux")


def repo_root() -> Path:
    """The checkout this package runs from (holds ``bpf/pert_algo.h``)."""
    env = os.environ.get("PERTLAB_ROOT")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "bpf" / "pert_algo.h").is_file():
            return parent
    raise FileNotFoundError("bpf/pert_algo.h not found above " + str(here) + " (set PERTLAB_ROOT)")


def bpf_dir() -> Path:
    return repo_root() / "bpf"


def build_dir() -> Path:
    d = Path(os.environ.get("PERTLAB_BUILD_DIR") or repo_root() / "build" / "bpf")
    d.mkdir(parents=True, exist_ok=True)
    return d


@contextmanager
def _locked() -> Iterator[Path]:
    """The build directory, held against builds in other processes until the block ends."""
    d = build_dir()
    with open(d / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield d


def missing_build_tools(bpf: bool = True) -> list[str]:
    """What is missing to build (empty when everything is there)."""
    missing = []
    if not shutil.which("cc"):
        missing.append("a C compiler `cc` (Debian package gcc)")
    if bpf:
        if not shutil.which("clang"):
            missing.append("`clang` (Debian package clang)")
        if not shutil.which("bpftool"):
            missing.append("`bpftool` (Debian package bpftool)")
        if not Path("/usr/include/bpf/libbpf.h").is_file():
            missing.append("libbpf headers /usr/include/bpf/libbpf.h (Debian package libbpf-dev)")
        if not VMLINUX_BTF.is_file():
            missing.append(f"kernel BTF {VMLINUX_BTF} (kernel built with CONFIG_DEBUG_INFO_BTF)")
    return missing


def _stale(out: Path, sources: list[Path]) -> bool:
    if not out.exists():
        return True
    t = out.stat().st_mtime
    return any(s.stat().st_mtime > t for s in sources)


def _run(cmd: list[str], **kw) -> None:
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stdout}{r.stderr}")


def build_vector_harness(name: str = "pert_vectors") -> Path:
    """A user-space vector harness (``bpf/pert_vectors.c``, ``bpf/pert_adaptive_vectors.c``)
    with the system C compiler."""
    src = bpf_dir()
    with _locked() as d:
        out = d / name
        if _stale(out, [src / f"{name}.c", *src.glob("*.h")]):
            _run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-I", str(src), "-o", str(out), str(src / f"{name}.c")])
    return out


def build_bpf(source: str = "tcp_pert") -> tuple[Path, Path]:
    """An eBPF congestion control (``bpf/SOURCE.bpf.c``: ``tcp_pert`` or ``tcp_pert_adaptive``,
    clang -target bpf against vmlinux.h) and its loader (``bpf/pert_loader.c``, built with
    -DPERT_ADAPTIVE for the adaptive one).

    Returns (object, loader)."""
    missing = missing_build_tools()
    if missing:
        raise RuntimeError("cannot build the eBPF congestion control; missing: " + "; ".join(missing))
    with _locked() as out:
        return _build_bpf(source, bpf_dir(), out)


def _vmlinux(out: Path) -> Path:
    """``vmlinux.h`` of the running kernel's BTF in ``out``, made again when the BTF is newer."""
    vmlinux = out / "vmlinux.h"
    if not vmlinux.exists() or vmlinux.stat().st_mtime < VMLINUX_BTF.stat().st_mtime:
        r = subprocess.run(["bpftool", "btf", "dump", "file", str(VMLINUX_BTF), "format", "c"], capture_output=True, text=True, check=True)
        tmp = vmlinux.with_suffix(".tmp")
        tmp.write_text(r.stdout)
        tmp.replace(vmlinux)
    return vmlinux


def _clang_bpf(source: Path, obj: Path, out: Path, defines: tuple[str, ...] = ()) -> None:
    """``source`` compiled for BPF into ``obj`` against ``vmlinux.h`` in ``out``, if stale."""
    src = source.parent
    if _stale(obj, [source, *sorted(src.glob("*.h")), _vmlinux(out)]):
        _run(["clang", "-target", "bpf", "-O2", "-g", "-D__TARGET_ARCH_x86", *(f"-D{d}" for d in defines), "-I", str(out), "-I", str(src), "-c", str(source), "-o", str(obj)])


def _build_bpf(source: str, src: Path, out: Path) -> tuple[Path, Path]:
    headers = sorted(src.glob("*.h"))
    obj = out / f"{source}.bpf.o"
    _clang_bpf(src / f"{source}.bpf.c", obj, out)
    skel = out / f"{source}.skel.h"
    if _stale(skel, [obj]):
        r = subprocess.run(["bpftool", "gen", "skeleton", str(obj), "name", f"{source}_bpf"], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("bpftool gen skeleton failed:\n" + r.stderr)
        skel.write_text(r.stdout)
    adaptive = source == "tcp_pert_adaptive"
    loader = out / ("pert_adaptive_loader" if adaptive else "pert_loader")
    if _stale(loader, [skel, src / "pert_loader.c", *headers]):
        _run(["cc", "-O2", "-Wall", *(["-DPERT_ADAPTIVE"] if adaptive else []), "-I", str(out), "-I", str(src), "-o", str(loader), str(src / "pert_loader.c"), "-lbpf"])
    return obj, loader


#: The highest bottleneck rate ``bpf/ce_mark.bpf.c`` drains its virtual queue at without
#: overflowing its arithmetic (64 bits: a second's nanoseconds times the rate).
CE_MARK_MAX_RATE_BPS = 10_000_000_000


def build_ce_mark(rate_bps: int, k_bytes: int, limit_bytes: int) -> Path:
    """``bpf/ce_mark.bpf.c``, the testbed's step ECN marking, for a bottleneck of ``rate_bps``
    marking from ``k_bytes`` queued in a FIFO of ``limit_bytes`` (one object per setting)."""
    if not 0 < rate_bps <= CE_MARK_MAX_RATE_BPS:
        raise ValueError(f"the step marker's rate must lie in (0, {CE_MARK_MAX_RATE_BPS}] bit/s, got {rate_bps}")
    missing = missing_build_tools()
    if missing:
        raise RuntimeError("cannot build the step ECN marker; missing: " + "; ".join(missing))
    with _locked() as out:
        obj = out / f"ce_mark_{rate_bps}_{k_bytes}_{limit_bytes}.bpf.o"
        _clang_bpf(bpf_dir() / "ce_mark.bpf.c", obj, out, (f"RATE_BPS={rate_bps}ULL", f"K_BYTES={k_bytes}ULL", f"LIMIT_BYTES={limit_bytes}ULL"))
    return obj


def build_delayline() -> Path:
    """``native/delayline.c`` (the testbed's user-space delay line)."""
    src = repo_root() / "native" / "delayline.c"
    with _locked() as d:
        out = d / "delayline"
        if _stale(out, [src]):
            _run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(out), str(src), "-lm"])
    return out
