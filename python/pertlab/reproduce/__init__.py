"""Reproductions of the source documents' tables and figures, one command each.

``pertlab reproduce --list`` names them; ``pertlab reproduce NAME [--quick]``
runs one and writes a report folder (``index.html`` with the figures, the data
as Parquet, the exact scenarios as JSON, and the published numbers beside ours
with the difference). Each entry has a full mode (the document's setup) and a
quick mode (scaled down, about a minute) that the test suite runs.
``--render-only`` draws a written report's figures and page again from its data.
"""

from .registry import REGISTRY, Claim, Entry, Figure, Report, get, register

__all__ = ["REGISTRY", "Entry", "Report", "Claim", "Figure", "get", "register"]

# Entries register themselves on import.
from . import entries  # noqa: E402,F401
from . import fluid_entries  # noqa: E402,F401  (fluid models: sigcomm07-fig13, tahiliani-ch5-fluid)
from . import sigcomm07_entries  # noqa: E402,F401  (PERT paper Section 4 and 6.1: Figures 6, 7, 8, 12, 14)
from . import predictor_entries  # noqa: E402,F401  (PERT paper Section 2: Figures 2, 3, 4)
from . import kotla08_entries  # noqa: E402,F401  (Kotla 2008: adaptive PERT, Figures 4-11, 19, 23, 25, 26)
from . import kotla08_tables  # noqa: E402,F401  (Kotla 2008: Tables I-V, Figures 12, 24, 27, 28)
from . import kotla08_homogeneous_entries  # noqa: E402,F401  (Kotla 2008, Section VI: Figures 18, 20, 22)
from . import kotla08_live_entries  # noqa: E402,F401  (Kotla 2008, Section V.E: the live experiments on this kernel, Figures 13, 14, 16, 17)
from . import hua02_entries  # noqa: E402,F401  (Hua 2002: Vegas parking lot Figs 3.2-3.5)
from . import hua02_jcc_entries  # noqa: E402,F401  (Hua 2002: JCC against Reno, Figs 4.6-4.15, Table 4.1)
from . import hua02_swtp_entries  # noqa: E402,F401  (Hua 2002: S-WTP against WTP, Tables 5.1, 5.2, Figs 5.4, 5.5)
from . import tahiliani_entries  # noqa: E402,F401  (Tahiliani 2013 Ch. 4: Surathkal vs SACK, capacity and delay sweeps)
from . import tahiliani_stability_entries  # noqa: E402,F401  (Tahiliani 2013 Ch. 4: fairness, cwnd and ARED avg stability)
from . import tahiliani_wireless_entries  # noqa: E402,F401  (Tahiliani 2013 Ch. 4: wireless rate and error-rate sweeps)
from . import tahiliani_suite_entries  # noqa: E402,F401  (Tahiliani 2013 Ch. 4: the TCP evaluation suite, Figs 4.10-4.15)
from . import causes_entries  # noqa: E402,F401  (tests of the explanations of the PERT paper's Fig. 7 and Table 1 differences)
from . import qian11_entries  # noqa: E402,F401  (Qian 2011 Ch. IV-V: ACK coalescing, pacing, RTT correction)
from . import qian11_video_entries  # noqa: E402,F401  (Qian 2011 Ch. III.A: live video, Figs 8-12)
from . import qian11_ramp_entries  # noqa: E402,F401  (Qian 2011 Fig 9 against adaptive PERT's compete-mode alpha step)
from . import qian11_base_rtt_entries  # noqa: E402,F401  (Qian 2011 Fig 9 against PERT's propagation-delay estimate)
from . import qian11_pacing_entries  # noqa: E402,F401  (Qian 2011 Ch. IV.C: pacing and ACK coalescing, fairness, Figs 25-28)
