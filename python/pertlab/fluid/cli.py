"""``pertlab fluid ...`` and ``pertlab stability ...`` (typer sub-apps).

``pertlab.cli`` adds both to the main ``pertlab`` app when a command line names them. Errors print
``error: --flag: message`` on stderr and exit with status 2; a fluid model that
diverges is written up to the divergence, then ``error: ...``, status 1.
"""

# Annotations stay objects, no `from __future__ import annotations` (see pertlab.cli's module doc).

import sys
from pathlib import Path
from typing import Annotated, Callable, Optional

import typer

from .quantities import parse_capacity, parse_seconds

__all__ = ["fluid_app", "stability_app"]

fluid_app = typer.Typer(help="Integrate a fluid model; write trajectories (Parquet), a plot (PNG) and parameters (JSON).",
                        short_help="Integrate a fluid model (Parquet, PNG, JSON).",
                        no_args_is_help=True, add_completion=False, rich_markup_mode=None)  # fmt: skip
stability_app = typer.Typer(help="The PERT paper's stability theorems as calculators.", no_args_is_help=True,
                            add_completion=False, rich_markup_mode=None)  # fmt: skip

_FLAGS = {
    "capacity": "--capacity", "rtt": "--rtt", "prop_delay": "--rtt", "flows": "--flows", "pmax": "--pmax", "tmin": "--tmin",
    "tmax": "--tmax", "alpha": "--alpha", "delta": "--delta", "duration": "--duration", "step": "--step",
    "beta": "--beta", "target": "--target", "packet_size": "--packet-size", "min_th": "--min-th",
    "max_th": "--max-th", "max_p": "--max-p", "w_q": "--wq", "buffer": "--buffer", "m": "--m", "k": "--k",
    "decrease": "--decrease", "r_star": "--r-star", "gentle": "--gentle",
}  # fmt: skip

Capacity = Annotated[str, typer.Option(help="Link capacity C: 100pkt/s, or a bit rate (10Mbps) with --packet-size.")]
_SIZE_HELP = "Packet size converting a bit-rate --capacity to pkt/s, 1B to 65535B [default: {}]; refused with a capacity in pkt/s."
PacketSize = Annotated[Optional[str], typer.Option(help=_SIZE_HELP.format("1250B"))]
TcpPacketSize = Annotated[Optional[str], typer.Option(help=_SIZE_HELP.format("500B"))]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
OutDir = Annotated[Path, typer.Option("--out", help="Directory of the output files.")]
Flows = Annotated[int, typer.Option(help="Number of flows N.")]
Step = Annotated[Optional[str], typer.Option(help="Integration step [default: 1ms].")]
Duration = Annotated[str, typer.Option(help="Time integrated.")]
# PERT/RED's emulated RED (fluid pert-red, stability pert-red)
Pmax = Annotated[float, typer.Option(help="p_max, the early-response probability at T_max.")]
Tmin = Annotated[str, typer.Option(help="T_min (queueing delay).")]
Tmax = Annotated[str, typer.Option(help="T_max (queueing delay).")]
Alpha = Annotated[float, typer.Option(help="EWMA weight of the RTT filter (5).")]
# The TCP/RED models (tcp-red, surathkal-tcp-red)
PropDelay = Annotated[str, typer.Option(help="Round-trip propagation delay T_p.")]
MinTh = Annotated[float, typer.Option(help="RED min_th (packets).")]
MaxTh = Annotated[float, typer.Option(help="RED max_th (packets).")]
MaxP = Annotated[float, typer.Option(help="RED max_p (drop probability at max_th).")]
Wq = Annotated[float, typer.Option("--wq", help="RED EWMA weight w_q (delta = 1/C).")]
Gentle = Annotated[bool, typer.Option(help="Gentle RED above max_th.")]
Buffer = Annotated[Optional[float], typer.Option(help="Queue limit (packets) [default: 4 max_th].")]


def _guard(fn: Callable[[], None]) -> None:
    """Run ``fn``, its errors named by the flags (:func:`pertlab.cli.checks.computed`)."""
    global _failed_integrating
    from ..cli.checks import computed
    from ..culprit import rerunning

    if not rerunning():
        _failed_integrating = False
    computed(fn, _FLAGS, "the model")


def _print(obj: dict, as_json: bool, title: str) -> None:
    from ..jsonable import dumps

    if as_json:
        sys.stdout.write(dumps(obj) + "\n")
        return
    typer.echo(title)
    width = max(len(k) for k in obj)
    for k, v in obj.items():
        typer.echo(f"  {k:<{width}}  {v:.6g}" if isinstance(v, float) else f"  {k:<{width}}  {v}")


#: Whether the integration raised the arithmetic error of this command: only then do the culprit
#: search's reruns (:mod:`pertlab.culprit`) integrate, as long as the run did.
_failed_integrating = False


def _simulate(model, duration: str, step: Optional[str], out_dir: Path, as_json: bool) -> None:
    """Integrate ``model``, write its files and print a summary. A run that diverges is written and
    printed up to its last finite step (``diverged_at_s`` set), then ``error: ...`` and exit 1."""
    from ..cli.checks import check_out_dir
    from ..culprit import rerunning
    from .dde import Diverged
    from .models import FluidRun
    from .output import write_run
    from .params import NoEquilibrium

    check_out_dir(out_dir)
    try:  # a path with no equilibrium with p in [0, 1] is refused before any work (exit 2)
        model.equilibrium()
    except NoEquilibrium:
        raise
    except ValueError:
        pass  # an equilibrium the model cannot place (e.g. on original RED's jump): the run still means something

    global _failed_integrating
    if rerunning() and not _failed_integrating:
        return  # the error came before the integration, and the model is built: nothing is integrated or written
    try:
        run = model.simulate(parse_seconds(duration, "duration"), None if step is None else parse_seconds(step, "step"))
    except Diverged as e:
        run = FluidRun(model=model, trajectory=e.trajectory)
    except (ArithmeticError, MemoryError):
        _failed_integrating = True
        raise
    diverged = run.trajectory.diverged_at
    if rerunning():
        return  # the integration went through: nothing is written for a rerun
    paths = write_run(run, out_dir, model.name)
    summary = {"model": model.name, "final": run.final(), "files": {k: str(v) for k, v in paths.items()},
               "diverged_at_s": diverged}  # fmt: skip
    try:
        summary["equilibrium"] = model.equilibrium().as_dict()
    except ValueError as e:
        summary["equilibrium"] = {"error": str(e)}
    if as_json:
        _print(summary, True, "")
    else:
        if diverged is None:
            typer.echo(f"{model.name}: integrated {duration} with step {run.trajectory.step:g} s")
        else:
            typer.echo(f"{model.name}: diverged at t = {diverged:g} s of {duration} (step {run.trajectory.step:g} s); "
                       f"final = last finite state, t = {run.trajectory.t[-1]:g} s")  # fmt: skip
        for k, v in summary["equilibrium"].items():
            typer.echo(f"  equilibrium {k:<12} {v:.6g}" if isinstance(v, float) else f"  equilibrium {k:<12} {v}")
        for k, v in run.final().items():
            typer.echo(f"  final {k:<18} {v:.6g}")
        for k, v in paths.items():
            typer.echo(f"  wrote {v}")
    if diverged is not None:
        typer.echo(f"error: {_divergence(model, diverged, out_dir)}", err=True)
        raise typer.Exit(1)


def _divergence(model, at: float, out_dir: Path) -> str:
    """The one-line error of a run that diverged at ``at`` seconds, with what the linearisation
    says where the model has one (PERT/RED: the rightmost root of :mod:`.linear`)."""
    from .linear import rightmost_root
    from .models import PertPi, PertRed

    msg = f"the model diverged at t = {at:g} s (the solution left the finite numbers); the run up to then is in {out_dir}/"
    if isinstance(model, PertRed):
        P = model.params
        try:
            # linear.py's loop gain L C/(2N) is beta = 1/2's; beta enters it only as the product beta L.
            root = rightmost_root(P.rtt, P.capacity, P.flows, 2 * P.beta * P.l_pert, -P.k, P.decrease).real
        except ArithmeticError:
            return f"{msg}; see `pertlab stability pert-red` (Theorem 1) and docs/fluid.md"
        verdict = "unstable" if root > 0 else "stable (the divergence is not local)"
        return (f"{msg}; linearised about its equilibrium, (14) with --decrease {P.decrease} is {verdict} for these "
                f"parameters (rightmost root {root:+.3g} 1/s); `pertlab stability pert-red` checks Theorem 1 (docs/fluid.md)")  # fmt: skip
    step = "; a smaller --step tells a numerical instability from the model's"
    if isinstance(model, PertPi):
        return f"{msg}{step}, `pertlab stability pert-pi` gives Theorem 2's gains for this path (docs/fluid.md)"
    return msg + step


# --- fluid ------------------------------------------------------------------


@fluid_app.command("pert-red", short_help="PERT/RED fluid model, DDE (14) of the PERT paper.")
def fluid_pert_red(
    capacity: Capacity = "100pkt/s",
    rtt: Annotated[str, typer.Option(help="Round-trip time R of DDE (14).")] = "160ms",
    flows: Flows = 5,
    pmax: Pmax = 0.1,
    tmin: Tmin = "50ms",
    tmax: Tmax = "100ms",
    alpha: Alpha = 0.99,
    delta: Annotated[str, typer.Option(help="Sampling interval delta of (6).")] = "0.1ms",
    beta: Annotated[float, typer.Option(help="Window decrease factor (0.5 in Section 5).")] = 0.5,
    decrease: Annotated[str, typer.Option(help="paper: W(t)W(t-R) as in (14); current: W(t)^2; delayed: W(t-R)^2.")] = "paper",
    duration: Duration = "60s",
    step: Step = None,
    packet_size: PacketSize = None,
    out_dir: OutDir = Path("out/fluid"),
    as_json: AsJson = False,
) -> None:
    """PERT/RED, DDE (14) of the SIGCOMM 2007 paper (Figure 13(b)-(d))."""
    from .models import PertRed

    def go() -> None:
        m = PertRed(capacity=parse_capacity(capacity, packet_size), rtt=parse_seconds(rtt, "rtt"), flows=flows,
                    pmax=pmax, tmin=parse_seconds(tmin, "tmin"), tmax=parse_seconds(tmax, "tmax"), alpha=alpha,
                    delta=parse_seconds(delta, "delta"), beta=beta, decrease=decrease)  # fmt: skip
        _simulate(m, duration, step, out_dir, as_json)

    _guard(go)


@fluid_app.command("pert-pi", short_help="PERT/PI fluid model with the PI law (16).")
def fluid_pert_pi(
    capacity: Capacity = "100pkt/s",
    rtt: Annotated[str, typer.Option(help="Round-trip propagation delay T_p (R = T_p + T_q).")] = "160ms",
    flows: Flows = 5,
    target: Annotated[str, typer.Option(help="Reference queueing delay T_q*.")] = "3ms",
    m: Annotated[Optional[float], typer.Option(help="PI zero m (1/s) [default: Theorem 2].")] = None,
    k: Annotated[Optional[float], typer.Option(help="PI gain K [default: Theorem 2].")] = None,
    beta: Annotated[float, typer.Option(help="Window decrease factor.")] = 0.5,
    duration: Duration = "60s",
    step: Step = None,
    packet_size: PacketSize = None,
    out_dir: OutDir = Path("out/fluid"),
    as_json: AsJson = False,
) -> None:
    """PERT/PI: (2), (3), (7) with the PI law (16) on the queueing delay."""
    from .models import PertPi

    def go() -> None:
        model = PertPi(capacity=parse_capacity(capacity, packet_size), prop_delay=parse_seconds(rtt, "rtt"),
                       flows=flows, target=parse_seconds(target, "target"), m=m, k=k, beta=beta)  # fmt: skip
        _simulate(model, duration, step, out_dir, as_json)

    _guard(go)


def _tcp_red_command(name: str, model: str, doc: str, short_help: str) -> None:
    """Register ``pertlab fluid NAME`` for the TCP/RED model class ``model`` of :mod:`.models`
    (``tcp-red`` and ``surathkal-tcp-red`` take the same options)."""

    def command(
        capacity: Capacity = "5Mbps",
        rtt: PropDelay = "200ms",
        flows: Flows = 40,
        min_th: MinTh = 150.0,
        max_th: MaxTh = 200.0,
        max_p: MaxP = 0.1,
        wq: Wq = 1e-4,
        gentle: Gentle = True,
        buffer: Buffer = None,
        duration: Duration = "70s",
        step: Step = None,
        packet_size: TcpPacketSize = None,
        out_dir: OutDir = Path("out/fluid"),
        as_json: AsJson = False,
    ) -> None:
        from . import models

        def go() -> None:
            m = getattr(models, model).homogeneous(parse_capacity(capacity, packet_size, default_size=500), flows, parse_seconds(rtt, "rtt"),
                                                   min_th=min_th, max_th=max_th, max_p=max_p, w_q=wq, gentle=gentle, buffer=buffer)  # fmt: skip
            _simulate(m, duration, step, out_dir, as_json)

        _guard(go)

    command.__doc__ = doc
    fluid_app.command(name, short_help=short_help)(command)


_tcp_red_command("tcp-red", "TcpRed", "TCP/RED, Misra-Gong-Towsley / Hollot et al. (thesis eqs. 5.1.1-5.1.4).", "TCP/RED fluid model (Misra-Gong-Towsley, Hollot).")
_tcp_red_command("surathkal-tcp-red", "SurathkalTcpRed", "The thesis's TCP Surathkal model (5.2.1): decrease scaled by alpha_i = p.",
                 "TCP Surathkal's fluid model (Tahiliani, 5.2.1).")


# --- stability --------------------------------------------------------------


@stability_app.command("pert-red", short_help="Theorem 1: PERT/RED's local stability, condition (11).")
def stability_pert_red(
    capacity: Capacity = "100pkt/s",
    rtt: Annotated[str, typer.Option(help="Bound R+ on the stationary RTT.")] = "160ms",
    flows: Annotated[int, typer.Option(help="Bound N- on the number of flows.")] = 5,
    pmax: Pmax = 0.1,
    tmin: Tmin = "50ms",
    tmax: Tmax = "100ms",
    alpha: Alpha = 0.99,
    delta: Annotated[str, typer.Option(help="Sampling interval delta.")] = "0.1ms",
    packet_size: PacketSize = None,
    as_json: AsJson = False,
) -> None:
    """Theorem 1: condition (11) with w_g (12), equilibrium (9), minimum delta (13)."""
    from .stability import theorem1

    def go() -> None:
        r = theorem1(parse_capacity(capacity, packet_size), parse_seconds(rtt, "rtt"), flows, pmax,
                     parse_seconds(tmin, "tmin"), parse_seconds(tmax, "tmax"), alpha, parse_seconds(delta, "delta"))  # fmt: skip
        verdict = "holds: locally stable" if r.stable else "does NOT hold (no stability guarantee)"
        _print(r.as_dict(), as_json, f"Theorem 1, condition (11) {verdict}; margin {r.margin:.6g}")

    _guard(go)


@stability_app.command("pert-pi")
def stability_pert_pi(
    capacity: Capacity = "100pkt/s",
    rtt: Annotated[str, typer.Option(help="Bound R+ on the stationary RTT.")] = "160ms",
    flows: Annotated[int, typer.Option(help="Bound N- on the number of flows.")] = 5,
    r_star: Annotated[Optional[str], typer.Option(help="Stationary RTT R* in (21) [default: R+].")] = None,
    delta: Annotated[Optional[str], typer.Option(help="Sampling interval: also print (18)'s gamma and beta.")] = None,
    packet_size: PacketSize = None,
    as_json: AsJson = False,
) -> None:
    """Theorem 2: the PI zero m and gain K of (21)."""
    from .stability import theorem2

    def go() -> None:
        r = theorem2(parse_capacity(capacity, packet_size), parse_seconds(rtt, "rtt"), flows,
                     None if r_star is None else parse_seconds(r_star, "r_star"),
                     None if delta is None else parse_seconds(delta, "delta"))  # fmt: skip
        _print(r.as_dict(), as_json, f"Theorem 2 (21): m = {r.m:.6g} 1/s, K = {r.k:.6g}")

    _guard(go)

