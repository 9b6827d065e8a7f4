"""Fluid models and stability analysis (PERT/RED, PERT/PI, TCP/RED, TCP Surathkal).

See docs/fluid.md. Equation numbers refer to Bhandarkar, Reddy, Zhang,
Loguinov, "Emulating AQM from End Hosts", SIGCOMM 2007 (Sections 5 and 6) and
to Chapter 5 of the Tahiliani thesis (NITK Surathkal, 2013).
"""

from .dde import History, Trajectory, integrate
from .models import (
    Equilibrium,
    FlowGroup,
    PertPi,
    PertPiParams,
    PertRed,
    PertRedParams,
    SurathkalTcpRed,
    TcpRed,
    TcpRedParams,
    pert_operating_point,
    red_drop_probability,
)
from .stability import Theorem1, Theorem2, boundary_rtt, min_delta, pi_discrete, theorem1, theorem2

__all__ = [
    "History", "Trajectory", "integrate", "Equilibrium", "FlowGroup", "PertPi", "PertPiParams", "PertRed",
    "PertRedParams", "SurathkalTcpRed", "TcpRed", "TcpRedParams", "pert_operating_point", "red_drop_probability",
    "Theorem1", "Theorem2", "boundary_rtt", "min_delta", "pi_discrete", "theorem1", "theorem2",
]  # fmt: skip
