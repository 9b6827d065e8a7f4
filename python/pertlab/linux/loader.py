"""Register the eBPF PERT congestion controls with the kernel (``pert``: PERT/RED,
``pert_adaptive``: adaptive PERT, ``pertlab linux load pert-adaptive``), remove them, and
read their counters.

Two ways to hold the registration, both through a BPF link (the loader sets
BPF_F_LINK on the struct_ops map and creates the link itself, see
bpf/pert_loader.c):

- :func:`load` pins the link and the counter / parameter maps under
  ``/sys/fs/bpf/pertlab/NAME`` and returns; it stays registered until
  :func:`unload` removes the pins. If the loader dies before it has pinned the
  link, the kernel drops the link with the process and nothing stays
  registered.
- :func:`hold` (a context manager; used by the tests and the testbed) keeps the
  link in a loader process that owns the only reference: when the context
  ends, or the loader or its parent dies (its standard input closes), ``pert``
  is unregistered.

Sockets that already use ``pert`` keep it until they close; new sockets can no
longer select it once it is unregistered.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterator

from ..interrupt import popen_detached, run_detached
from . import build

NAME = "pert"
BPFFS = Path("/sys/fs/bpf")
PIN_DIR = BPFFS / "pertlab" / NAME
AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
SRTT_SHIFT = 10
PPM = 1_000_000
PROB_ONE = 1 << 32
#: Largest threshold, ms: 10^6 ms is 2^40 in pert_algo.h's units (us << 10), well inside the
#: 2^50 its division assumes (with P added, every divisor stays below 2^63).
MAX_TIME_MS = 1e6


#: Thresholds that must rise in this order (a field absent from a parameter set, or None, is skipped).
ORDERED_TIMES = (("t_min_ms", "t_max_ms"), ("t_max_ms", "t_end_ms"))


def _round(x: float) -> int:
    """Rust's f64::round for non-negative values (half away from zero)."""
    return int(math.floor(x + 0.5))


def _us(ms: float) -> int:
    """A time in ms in the kernel code's unit, whole microseconds (ns rounded, then truncated)."""
    return _round(ms * 1e6) // 1000


def refuse_lost_precision(params, times: tuple[str, ...], millionths: tuple[str, ...], below_one: tuple[str, ...]) -> None:
    """Raise :class:`PertParamError` where the kernel code's units read a value the ranges
    accept as another (``linux load pert --t-min-ms 0.0001 --t-max-ms 0.0005`` once registered
    t_min = t_max = 0, an early response on every ACK): a positive time below a microsecond (0),
    ``t_min_ms`` below ``t_max_ms`` (or ``t_max_ms`` below ``t_end_ms``) but equal in
    microseconds, a positive fraction below half a millionth (0), one that must stay below 1
    within half a millionth of it (1), a positive ``p_max`` below 2^-33 (0 in units of 2^-32).
    ``times``, ``millionths``: the fields of ``params`` in each unit; ``below_one``: the
    millionths whose range is open at 1."""
    for name in times:
        v = getattr(params, name)
        if v is not None and v > 0 and _us(v) == 0:
            raise PertParamError(name, f"a positive time must be at least 0.001 ms (the kernel code counts whole microseconds), got {v}")
    us = {name: _us(getattr(params, name)) for name in times if getattr(params, name) is not None}
    for earlier, later in ORDERED_TIMES:
        if earlier in us and later in us and us[later] <= us[earlier]:
            raise PertParamError.ordered(earlier, later, f"{us[earlier]} us", f"{us[later]} us ({getattr(params, later)} ms)", "greater than", why="; the kernel code counts whole microseconds")
    for name in millionths:
        v = getattr(params, name)
        fixed = _round(v * PPM)
        if v > 0 and fixed == 0:
            raise PertParamError(name, f"a positive value must be at least 5e-07 (the kernel code counts millionths), got {v}")
        if name in below_one and fixed >= PPM:
            raise PertParamError(name, f"must be at most 0.9999995 (the kernel code counts millionths), got {v}")
    if params.p_max > 0 and _round(params.p_max * PROB_ONE) == 0:
        raise PertParamError("p_max", f"must be at least 2^-33 (1.2e-10; the kernel code counts probabilities in 2^-32), got {params.p_max}")


def check_min_rtt_window(window_ms: float | None) -> None:
    """Raise :class:`PertParamError` for a ``min_rtt_window_ms`` the kernel code cannot take (a
    window, if set, lies in (0, MAX_TIME_MS]; its whole microseconds are checked with the other
    times by :func:`refuse_lost_precision`)."""
    if window_ms is not None and not 0 < window_ms <= MAX_TIME_MS:
        raise PertParamError("min_rtt_window_ms", f"must lie in (0, {MAX_TIME_MS:g}], got {window_ms}")


def refuse_given_p(cfg: dict) -> None:
    """Raise :class:`PertParamError` for a simulator PERT config whose ``P`` is given
    (``base_rtt = "propagation"``, the simulator's oracle): the kernel code measures ``P``."""
    if (given := cfg.get("base_rtt", "observed")) != "observed":
        raise PertParamError("base_rtt", f'must be "observed" in the kernel, which measures P (its smallest RTT sample); "propagation" is the simulator\'s oracle, got {given!r}')


def min_rtt_window_us(window_ms: float | None) -> int:
    """The loader's ``min_rtt_window_us``: the window in whole microseconds, 0 for none."""
    return 0 if window_ms is None else _us(window_ms)


class PertParamError(ValueError):
    """A parameter the kernel code cannot take: ``field`` (a :class:`PertParams` field name),
    ``also`` (the fields a constraint between values binds it to: ``t_max_ms`` for ``t_min_ms <
    t_max_ms``) and ``message``, where ``{t_min_ms}`` stands for a field's name as the
    reader wrote it; :meth:`render` writes the error with the names of a command line
    (``--t-min-ms``) or of a scenario file (``pert.t_min``)."""

    def __init__(self, field: str, message: str, also: tuple[str, ...] = ()) -> None:
        self.field = field
        self.also = also
        self.message = message
        super().__init__(self.render(lambda name: name))

    @classmethod
    def ordered(cls, earlier: str, later: str, ref: object, value: object, words: str, why: str = "") -> PertParamError:
        """``earlier, later: later must be <words> earlier (ref), got value<why>``: the wording of
        the simulator's checks between two fields (``scenario.base._compared_to``), naming both,
        the earlier first."""
        return cls(earlier, f"{{{later}}} must be {words} {{{earlier}}} ({ref}), got {value}{why}", also=(later,))

    def render(self, name: Callable[[str], str]) -> str:
        """``field, also...: message`` with every field written as ``name`` gives it."""
        return f"{self.fields(name)}: {self.text(name)}"

    def fields(self, name: Callable[[str], str]) -> str:
        """``field, also...``, each written as ``name`` gives it."""
        return ", ".join(map(name, (self.field, *self.also)))

    def text(self, name: Callable[[str], str]) -> str:
        """The message with every field written as ``name`` gives it."""
        message = self.message
        for f in (self.field, *self.also):
            message = message.replace("{" + f + "}", name(f))
        return message


@dataclass
class PertParams:
    """PERT/RED parameters in the paper's units (Section 3); defaults are the paper's."""

    t_min_ms: float = 5.0
    t_max_ms: float = 10.0
    #: End of the gentle region (queueing delay); None: 2 T_max in the form `literal` selects.
    t_end_ms: float | None = None
    p_max: float = 0.05
    decrease: float = 0.35
    srtt_weight: float = 0.99
    literal: bool = False
    respond_in_slow_start: bool = True
    #: P over a sliding window of this many ms (Linux's tcp_min_rtt estimator; an extension);
    #: None: the smallest RTT sample of the connection (the paper).
    min_rtt_window_ms: float | None = None

    def validate(self) -> None:
        """Raise :class:`PertParamError` for parameters the kernel code cannot take."""
        for name in ("t_min_ms", "t_max_ms", "t_end_ms"):
            v = getattr(self, name)
            if v is not None and not v <= MAX_TIME_MS:
                finite = "a finite number, " if math.isnan(v) else ""
                raise PertParamError(name, f"must be {finite}at most {MAX_TIME_MS:g} ms, got {v}")
        if not 0 <= self.t_min_ms:
            raise PertParamError("t_min_ms", f"must be at least 0, got {self.t_min_ms}")
        for earlier, later in ORDERED_TIMES:
            if getattr(self, later) is not None and not getattr(self, earlier) < getattr(self, later):
                raise PertParamError.ordered(earlier, later, f"{getattr(self, earlier)} ms", f"{getattr(self, later)} ms", "greater than")
        if not 0 < self.p_max <= 1:
            raise PertParamError("p_max", f"must lie in (0, 1], got {self.p_max}")
        for name in ("decrease", "srtt_weight"):
            v = getattr(self, name)
            if not 0 < v < 1:
                raise PertParamError(name, f"must lie strictly between 0 and 1, got {v}")
        check_min_rtt_window(self.min_rtt_window_ms)
        refuse_lost_precision(self, times=("t_min_ms", "t_max_ms", "t_end_ms", "min_rtt_window_ms"), millionths=("decrease", "srtt_weight"), below_one=("decrease", "srtt_weight"))

    @classmethod
    def from_sim_config(cls, cfg: dict) -> "PertParams":
        """From the simulator's PertConfig (JSON / TOML form, times in ns)."""
        refuse_given_p(cfg)
        d = PertParams()
        end = cfg.get("t_curve_end_ns")
        window = cfg.get("min_rtt_window_ns")
        return cls(
            t_min_ms=cfg.get("t_min_ns", d.t_min_ms * 1e6) / 1e6,
            t_max_ms=cfg.get("t_max_ns", d.t_max_ms * 1e6) / 1e6,
            t_end_ms=None if end is None else end / 1e6,
            p_max=cfg.get("p_max", d.p_max),
            decrease=cfg.get("decrease", d.decrease),
            srtt_weight=cfg.get("srtt_weight", d.srtt_weight),
            literal=cfg.get("thresholds", "queueing_delay") == "literal",
            respond_in_slow_start=cfg.get("respond_in_slow_start", True),
            min_rtt_window_ms=None if window is None else window / 1e6,
        )

    def fixed(self) -> dict:
        """The fixed point of bpf/pert_algo.h, derived as the Rust reference does
        (times truncated to microseconds then << 10; fractions rounded)."""

        def scaled(ms: float) -> int:
            ns = _round(ms * 1e6)
            return (ns // 1000) << SRTT_SHIFT

        def ppm(x: float) -> int:
            return _round(min(max(x, 0.0), 1.0) * PPM)

        return {
            "t_min": scaled(self.t_min_ms),
            "t_max": scaled(self.t_max_ms),
            "t_end": 0 if self.t_end_ms is None else scaled(self.t_end_ms),
            "have_t_end": int(self.t_end_ms is not None),
            "p_max": _round(min(max(self.p_max, 0.0), 1.0) * PROB_ONE),
            "weight_ppm": ppm(self.srtt_weight),
            "keep_ppm": PPM - ppm(self.decrease),
            "literal": int(self.literal),
            "respond_in_slow_start": int(self.respond_in_slow_start),
            "min_rtt_window_us": min_rtt_window_us(self.min_rtt_window_ms),
        }

    def loader_args(self) -> list[str]:
        return [f"{k}={v}" for k, v in self.fixed().items()]


@dataclass(frozen=True)
class Controller:
    """One eBPF congestion control: its kernel name, the name commands take, its source."""

    name: str
    cli_name: str
    source: str

    def default_params(self):
        if self.name == NAME:
            return PertParams()
        from .adaptive_params import PertAdaptiveParams

        return PertAdaptiveParams()


CONTROLLERS = (Controller(NAME, NAME, "tcp_pert"), Controller("pert_adaptive", "pert-adaptive", "tcp_pert_adaptive"))


def controller(name: str) -> Controller:
    """The controller called ``name`` (kernel or command name); ValueError naming the allowed ones."""
    for c in CONTROLLERS:
        if name in (c.name, c.cli_name):
            return c
    raise ValueError(f"unknown congestion control {name!r}; allowed: {', '.join(c.cli_name for c in CONTROLLERS)}")


def pin_dir(name: str = NAME) -> Path:
    """Where ``load`` pins the link and maps of ``name``."""
    return BPFFS / "pertlab" / controller(name).name


def available() -> list[str]:
    return AVAILABLE.read_text().split()


def is_registered(name: str = NAME) -> bool:
    return controller(name).name in available()


def support_problem() -> str | None:
    """None when this machine can load the eBPF congestion control; else what is missing."""
    if os.geteuid() != 0:
        return "not running as root (loading a BPF struct_ops congestion control needs CAP_BPF and CAP_NET_ADMIN)"
    missing = build.missing_build_tools()
    if missing:
        return "missing: " + "; ".join(missing)
    if not AVAILABLE.exists():
        return f"{AVAILABLE} does not exist (no IPv4 TCP?)"
    try:
        with open(build.VMLINUX_BTF, "rb") as f:
            if b"bpf_struct_ops_tcp_congestion_ops" not in f.read():
                return "the kernel has no BPF struct_ops for TCP congestion control (bpf_struct_ops_tcp_congestion_ops not in BTF)"
    except OSError as e:
        return f"cannot read kernel BTF: {e}"
    return None


def ensure_bpffs() -> None:
    """Mount bpffs at /sys/fs/bpf if it is not mounted (pins live there)."""
    for line in Path("/proc/mounts").read_text().splitlines():
        parts = line.split()
        if len(parts) > 2 and parts[1] == str(BPFFS) and parts[2] == "bpf":
            return
    subprocess.run(["mount", "-t", "bpf", "bpf", str(BPFFS)], check=True, capture_output=True)


def _wait_for(cond, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def _prepare(name: str, params) -> tuple[Controller, object, Path]:
    """What loading and holding both check first; builds the BPF object and its loader."""
    ctrl = controller(name)
    params = params or ctrl.default_params()
    params.validate()
    problem = support_problem()
    if problem:
        raise RuntimeError(problem)
    if is_registered(ctrl.name):
        raise RuntimeError(f"{ctrl.name} is already registered (pertlab linux unload {ctrl.cli_name} first)")
    _, loader = build.build_bpf(ctrl.source)
    return ctrl, params, loader


def load(name: str = NAME, params=None) -> Path:
    """Build if needed, register ``name`` and pin it; returns the pin directory."""
    ctrl, params, loader = _prepare(name, params)
    pin = pin_dir(ctrl.name)
    ensure_bpffs()
    if pin.exists():
        _remove_pins(pin)
    pin.mkdir(parents=True)
    r = subprocess.run([str(loader), "pin", str(pin), *params.loader_args()], capture_output=True, text=True)
    if r.returncode != 0:
        _remove_pins(pin)
        raise RuntimeError(f"{loader.name} failed: {r.stderr.strip()}")
    if not _wait_for(lambda: is_registered(ctrl.name)):
        raise RuntimeError(f"{ctrl.name} not in {AVAILABLE} after loading")
    return pin


def _remove_pins(pin: Path = PIN_DIR) -> None:
    for f in ("link", "bss", "rodata", "flows"):
        with contextlib.suppress(FileNotFoundError):
            (pin / f).unlink()
    for d in (pin, pin.parent):
        with contextlib.suppress(OSError):
            d.rmdir()


def unload(name: str = NAME) -> bool:
    """Remove the pinned registration; True if there was one."""
    ctrl = controller(name)
    pin = pin_dir(ctrl.name)
    had = (pin / "link").exists()
    _remove_pins(pin)
    if had and not _wait_for(lambda: not is_registered(ctrl.name)):
        raise RuntimeError(f"{ctrl.name} is still registered after removing its link (held by another loader?)")
    return had


def _map_entries(args: list[str]) -> list[dict]:
    """``bpftool -j map dump`` of one map: its entries as JSON. No stop signal reaches bpftool
    (:func:`pertlab.interrupt.run_detached`), so a Ctrl-C does not kill the read of results that a
    stopping run is keeping."""
    r = run_detached(["bpftool", "-j", "map", "dump", *args])
    if r.returncode != 0:
        # With -j, bpftool writes its error on stdout as {"error": ...}.
        raise RuntimeError(f"bpftool map dump {' '.join(args)} (exit {r.returncode}): {(r.stderr + r.stdout).strip()}")
    return json.loads(r.stdout)


def _dump(args: list[str]) -> dict:
    """A .bss / .rodata map's variables, by name, from bpftool's BTF-typed JSON."""
    out: dict = {}
    for entry in _map_entries(args):
        formatted = entry.get("formatted", entry)
        for section in formatted.get("value", {}).values():
            for var in section:
                out.update(var)
    return out


def _map_args(map_id: int | None, name: str, pinned: str) -> list[str]:
    return ["id", str(map_id)] if map_id is not None else ["pinned", str(pin_dir(name) / pinned)]


def counters(bss_map_id: int | None = None, name: str = NAME) -> dict:
    """The program's counters (cnt_*), from the pinned map or a map id."""
    return {k.removeprefix("cnt_"): v for k, v in _dump(_map_args(bss_map_id, name, "bss")).items()}


#: Names of adaptive PERT's modes, by number (the simulator's Mode).
MODES = ("high_speed", "safe", "compete")


def flow_counters(flows_map_id: int | None = None, name: str = NAME) -> list[dict]:
    """Per-connection counters: saddr, daddr (dotted quads), sport, dport, and the
    value's fields (pert: draws, early_responses; pert_adaptive also losses,
    alpha_periods, alpha, mode, q_max_us, p, p_early and mode_time_us per mode);
    from the pinned map or a map id."""
    import ipaddress

    rows = []
    for entry in _map_entries(_map_args(flows_map_id, name, "flows")):
        f = entry.get("formatted", entry)
        k, v = f["key"], f["value"]
        addr = lambda x: str(ipaddress.IPv4Address(int(x).to_bytes(4, "little")))  # noqa: E731  (network order in a u32)
        row = {"saddr": addr(k["saddr"]), "daddr": addr(k["daddr"]), "sport": k["sport"], "dport": k["dport"]}
        for key, val in v.items():
            if key == "pad":
                continue
            if key == "mode":
                row["mode"] = MODES[val] if 0 <= val < len(MODES) else val
            elif key == "mode_time_us":
                row.update({f"{m}_us": t for m, t in zip(MODES, val)})
            elif key.endswith("_ppm"):
                row[key.removesuffix("_ppm")] = val / PPM
            else:
                row[key] = val
        rows.append(row)
    return rows


def _params_fixed(name: str) -> dict:
    """The parameters pinned with ``name``, fixed point, by the loader's names."""
    raw = _dump(["pinned", str(pin_dir(name) / "rodata")])
    if "perta_params" not in raw:
        return {k.removeprefix("pert_"): v for k, v in raw.items()}
    pp = dict(raw["perta_params"])
    base = pp.pop("base")
    n = pp.pop("n_weights")
    pp["weights"] = pp["weights"][:n]
    return {**{k: base[k] for k in ("t_min", "t_max", "p_max", "weight_ppm", "respond_in_slow_start", "min_rtt_window_us")}, **pp}


def status(name: str = NAME) -> dict:
    """What is registered and loaded, with counters and parameters when pinned."""
    ctrl = controller(name)
    pin = pin_dir(ctrl.name)
    st: dict = {"name": ctrl.name, "available": available(), "registered": is_registered(ctrl.name), "pinned": (pin / "link").exists(), "pin_dir": str(pin)}
    if st["pinned"] and shutil.which("bpftool"):
        st["counters"] = counters(name=ctrl.name)
        st["flows"] = flow_counters(name=ctrl.name)
        st["params_fixed"] = _params_fixed(ctrl.name)
    elif st["registered"]:
        st["note"] = "registered by another process (a testbed run, a test, or pertlab's loader holding it: `pgrep -af '_loader hold'`)"
    return st


@dataclass
class Holder:
    process: subprocess.Popen
    bss_map_id: int
    flows_map_id: int
    params: object
    name: str = NAME

    def counters(self) -> dict:
        return counters(self.bss_map_id, self.name)

    def flow_counters(self) -> list[dict]:
        return flow_counters(self.flows_map_id, self.name)

    def as_dict(self) -> dict:
        return {"name": self.name, "pid": self.process.pid, "bss_map_id": self.bss_map_id, "flows_map_id": self.flows_map_id, "params": asdict(self.params)}


@contextlib.contextmanager
def hold(name: str = NAME, params=None, trace: Path | None = None) -> Iterator[Holder]:
    """Register ``name`` for the duration of the context (see module doc). ``trace``
    (pert_adaptive only): a file the loader writes every RTT sample to, with the srtt_0.99 and
    P it gave, a line each ("t_us sport dport rtt_us srtt_us min_rtt_us", t_us on
    CLOCK_MONOTONIC); complete when the context has ended."""
    # The arguments first: a bad one is refused on any host, before the build tools are looked for.
    if trace is not None and (kind := controller(name).name) != "pert_adaptive":
        raise ValueError(f"trace: only pert_adaptive emits its RTT samples, not {kind}")
    ctrl, params, loader = _prepare(name, params)
    # Its own session: a Ctrl-C at the terminal reaches the caller, which ends the hold in order.
    proc = popen_detached(
        [str(loader), "hold", *params.loader_args(), *([f"trace={trace}"] if trace is not None else [])], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line.startswith("ready"):
            proc.wait(timeout=5)
            raise RuntimeError(f"{loader.name} failed: {proc.stderr.read().strip() if proc.stderr else ''}")
        ids = dict(kv.split("=") for kv in line.split()[1:])
        if not _wait_for(lambda: is_registered(ctrl.name)):
            raise RuntimeError(f"{ctrl.name} not in {AVAILABLE} after loading")
        yield Holder(proc, int(ids["bss_map_id"]), int(ids["flows_map_id"]), params, ctrl.name)
    finally:
        if proc.poll() is None:
            with contextlib.suppress(Exception):
                proc.stdin.close()  # type: ignore[union-attr]
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        _wait_for(lambda: not is_registered(ctrl.name), timeout=5)
