"""Fluid models and stability analysis (PERT/RED, PERT/PI, TCP/RED, TCP Surathkal).

See docs/fluid.md. Equation numbers refer to Bhandarkar, Reddy, Zhang,
Loguinov, "Emulating AQM from End Hosts", SIGCOMM 2007 (Sections 5 and 6) and
to Chapter 5 of the Tahiliani thesis (NITK Surathkal, 2013).
"""

from .._lazy import lazy_exports

#: Public names, by module, imported on first use (``pertlab stability`` needs no DDE solver).
_EXPORTS = {
    **dict.fromkeys(("Diverged", "History", "Trajectory", "integrate"), ".dde"),
    **dict.fromkeys(
        (
            "Equilibrium", "FlowGroup", "PertPi", "PertPiParams", "PertRed", "PertRedParams", "SurathkalTcpRed", "TcpRed",
            "TcpRedParams", "pert_operating_point", "red_drop_probability",
        ),
        ".models",
    ),
    **dict.fromkeys(("Theorem1", "Theorem2", "boundary_rtt", "min_delta", "pi_discrete", "theorem1", "theorem2"), ".stability"),
}  # fmt: skip

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
