"""Build ``native/ns3/dumbbell.cc``, the ns-3 side of ``pertlab validate ns3``, on demand.

ns-3 comes from its pip wheel (``ns3`` in requirements.lock), which ships the headers and
shared libraries; the program is compiled with the system C++ compiler against them, once,
into a cache directory named by a hash of the source, the wheel's version and place (the
binary is linked to its libraries by path) and the compiler's version, so that a new source,
wheel, environment or compiler builds again and every later run (and every test session)
reuses the binary. Concurrent builds (Dask workers, test processes)
wait for one another on a lock file.

The cache is ``$PERTLAB_NS3_CACHE`` or ``~/.cache/pertlab/ns3``.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

__all__ = ["missing", "program", "wheel_version"]

#: The ns-3 modules the program links, in dependency order.
LIBRARIES = ("traffic-control", "internet", "applications", "point-to-point", "network", "core")
#: Defines the wheel's own builds use (its ns3Targets.cmake): logging and asserts compiled in.
DEFINES = ("NS3_BUILD_PROFILE_RELEASE", "NS3_LOG_ENABLE", "NS3_ASSERT_ENABLE")
#: ns-3 3.44 is written in C++20.
STANDARD = "c++20"


def _repo_source() -> Path:
    from ..linux.build import repo_root

    return repo_root() / "native" / "ns3" / "dumbbell.cc"


def _wheel_dir() -> Path | None:
    """The installed ``ns3`` package's directory, found without importing it (that loads cppyy)."""
    spec = importlib.util.find_spec("ns3")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def wheel_version() -> str | None:
    try:
        return importlib.metadata.version("ns3")
    except importlib.metadata.PackageNotFoundError:
        return None


def _compiler() -> str | None:
    """``$CXX`` (a name on the PATH or a path) when set, else ``c++`` or ``g++``; None when not found."""
    cxx = os.environ.get("CXX")
    if cxx:
        return shutil.which(cxx)
    return shutil.which("c++") or shutil.which("g++")


def missing() -> str | None:
    """Why the ns-3 program cannot be built here, or None when it can."""
    wheel = _wheel_dir()
    if wheel is None or not (wheel / "include" / "ns3" / "core-module.h").is_file():
        return "the ns3 wheel is not installed (pip install -r requirements.lock installs ns3)"
    if _compiler() is None:
        if os.environ.get("CXX"):
            return f"the C++ compiler CXX={os.environ['CXX']} is not found (unset CXX to use c++ or g++)"
        return "no C++ compiler (c++ or g++; Debian package g++, which make sysdeps installs)"
    if not _repo_source().is_file():
        return f"{_repo_source()} not found (run from a pertlab checkout or set PERTLAB_ROOT)"
    return None


def _cache_dir() -> Path:
    return Path(os.environ.get("PERTLAB_NS3_CACHE") or Path.home() / ".cache" / "pertlab" / "ns3")


@cache
def program() -> Path:
    """The built program, compiling it first when the cache has none for this source,
    wheel and compiler. Raises RuntimeError saying what is missing or what the compiler said."""
    why = missing()
    if why:
        raise RuntimeError(f"cannot build the ns-3 program: {why}")
    wheel, cxx, source = _wheel_dir(), _compiler(), _repo_source()
    assert wheel is not None and cxx is not None
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True, check=True).stdout
    # The binary finds the wheel's libraries by the path linked into it (its run path): one linked
    # against another environment's wheel fails once that environment is gone, so the path is
    # part of the key as well.
    lib = wheel / "lib64"
    key = hashlib.sha256(source.read_bytes() + f"{wheel_version()}\n{version}\n{lib}".encode()).hexdigest()[:16]
    out = _cache_dir() / f"dumbbell-{key}"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if out.is_file():
            return out
        tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
        cmd = [
            cxx, f"-std={STANDARD}", "-O2", "-Wall", *(f"-D{d}" for d in DEFINES), "-I", str(wheel / "include"),
            str(source), "-o", str(tmp), "-L", str(lib), f"-Wl,-rpath,{lib}", *(f"-lns3.44-{m}" for m in LIBRARIES),
        ]  # fmt: skip
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"building the ns-3 program failed ({r.returncode}):\n{' '.join(cmd)}\n{r.stderr[-4000:]}")
        tmp.replace(out)
    return out
