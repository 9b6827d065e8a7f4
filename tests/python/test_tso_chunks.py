"""Linux's TSO chunks in the simulator (``tcp.tso_segs``): PSH on the last segment of each chunk a
sender sends whole, and the Linux receiver's immediate ACK of a lone segment with PSH
(``ack_policy = "linux"``), against the kernel's run of ``examples/testbed/ten_flows_cubic_step_ecn``
committed in docs/linux/ten_flows_cubic_step_ecn.md (docs/linux.md, "ECN at the bottleneck").

Simulator only: the kernel's values are the committed report's. The pcap's PSH bit is checked in
crates/pertlab-sim/src/pcap/tests.rs, the receiver's rule in tcp/ack/linux.rs.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pertlab.linux.sim_side import sim_scenario, simulated
from pertlab.linux.scenario import TestbedScenario

from compare_report import report_row

ROOT = Path(__file__).resolve().parents[2]
REPORT = (ROOT / "docs" / "linux" / "ten_flows_cubic_step_ecn.md").read_text()

pytestmark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark missing (make sysdeps installs it)")


def _kernel(metric: str) -> float:
    """The testbed's value in ``metric``'s row of the committed report."""
    return report_row(REPORT, metric)[0]


def _simulated(tmp_path: Path, tso_segs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The example's simulator run with ``tcp.tso_segs``: the bottleneck's summary and the receivers' ACKs."""
    sc = TestbedScenario.model_validate(tomllib.loads((ROOT / "examples" / "testbed" / "ten_flows_cubic_step_ecn.toml").read_text()))
    sim = sim_scenario(sc)
    sim = sim.model_copy(update={"flows": [f.model_copy(update={"tcp": f.tcp.model_copy(update={"tso_segs": tso_segs})}) for f in sim.flows]})
    res, acks = simulated(sim, tmp_path / f"tso{tso_segs}", capture_acks=True)
    assert acks is not None
    return res.bottleneck, acks


def test_two_segment_chunks_give_the_simulators_receivers_the_kernels_acks(tmp_path: Path) -> None:
    # Segment by segment, the simulator's receivers send fewer ACKs than the kernel's (1.76 segments
    # per ACK against 1.62); with chunks of two and PSH on the second, as Linux's senders, they send
    # as many, as many of them cover one segment, and as many of those go at once on a PSH segment.
    per_ack, lone = _kernel("receivers: segments per ACK (mean)"), _kernel("receivers: ACKs covering one segment, share")
    on_psh = _kernel("receivers: of those sent at once, on a segment with PSH, share")
    _, single = _simulated(tmp_path, 1)
    queue, chunks = _simulated(tmp_path, 2)
    assert single["segments_per_ack"] > per_ack + 0.08 and single["data_push_share"] == 0.0, single
    assert abs(chunks["segments_per_ack"] - per_ack) <= 0.04 and abs(chunks["lone_share"] - lone) <= 0.04, chunks
    assert abs(chunks["at_once_push_share"] - on_psh) <= 0.05 and chunks["push_at_once_share"] == 1.0, chunks
    # The kernel's senders put PSH on fewer segments (0.30): the simulator marks every pair it sends.
    assert _kernel("senders: data segments with PSH, share") < chunks["data_push_share"] < 0.5, chunks
    # The ACKs are not what keeps the kernel's link busier: the simulated one stays below it.
    assert queue["utilization"] < _kernel("bottleneck utilization") - 0.015, queue
