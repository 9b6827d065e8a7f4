"""The scenario: pydantic models of everything a run depends on.

The models mirror the core's wire format (``crates/pertlab-sim/src/scenario/``)
field for field, with one difference in spelling: quantities take human units
and drop the unit suffix of the wire name. A TOML file writes

    [[links]]
    a = "r0"
    b = "r1"
    rate = "150Mbps"      # wire: rate_bps = 150000000
    delay = "28ms"        # wire: delay_ns = 28000000

The wire names are accepted too, so the ``scenario.json`` written next to the
results loads back. Validated values are held in the core's units (a link's
``rate`` is an ``int`` of bit/s, every time an ``int`` of nanoseconds), and
:meth:`Scenario.to_wire_json` writes the JSON the core reads.

Unknown fields are errors. Every error is a :class:`ScenarioError` whose lines
read ``field.path: what is wrong and what is allowed``, like the core's.
Topology references (a flow's nodes exist and are connected) are checked by
the core when the world is built: :meth:`Scenario.check`.

The models live by subject: :mod:`.base` (quantities, the base model),
:mod:`.queues`, :mod:`.topology`, :mod:`.controllers`, :mod:`.traffic`
(flows, UDP, web), :mod:`.model` (the whole scenario) and :mod:`.errors`.
"""

from ..kinds import CC_KINDS
from ..units import U64_MAX
from .base import MAX_PACKET_BYTES, U32, U32_MAX, Count, Duration, NonNegative, PacketSize, Probability, Rate, Size, Time
from .controllers import (
    Agent, CcSpec, Compound, Cubic, Dctcp, Fast, Hstcp, Illinois, Jcc, Pert, PertAdaptive, PertPi, Reno, Scalable, Surathkal,
    Vegas, Westwood, Xcp,
)  # fmt: skip
from .errors import ScenarioError
from .model import TX_END_EVENTS_DEFAULT, CaptureSpec, EngineSpec, MeasureWindow, MonitorSpec, Scenario, tx_end_events_default
from .queues import CLASS_KINDS, QUEUE_KINDS, CodelConfig, JccQueueConfig, PieConfig, PiConfig, QueueSpec, RedConfig, SchedConfig, StepConfig, XcpQueueConfig
from .topology import BurstLoss, DumbbellSpec, LinkSpec
from .traffic import AdaptiveAck, FlowSpec, LinuxAck, Pacing, TcpConfig, UdpSpec, VideoSpec, WebSpec, class_rates

__all__ = [
    "ScenarioError", "Scenario", "MeasureWindow", "LinkSpec", "BurstLoss", "QueueSpec", "RedConfig", "PiConfig", "PieConfig",
    "CodelConfig", "StepConfig", "SchedConfig", "CLASS_KINDS", "class_rates", "DumbbellSpec", "Reno", "Vegas", "Pert", "PertPi",
    "PertAdaptive", "Hstcp", "Cubic", "Compound", "Illinois", "Fast", "Jcc", "JccQueueConfig", "Surathkal", "Dctcp", "Scalable",
    "Westwood", "Xcp", "Agent", "XcpQueueConfig", "CcSpec", "TcpConfig", "AdaptiveAck", "LinuxAck", "Pacing", "VideoSpec", "FlowSpec", "UdpSpec", "WebSpec", "MonitorSpec", "CaptureSpec", "EngineSpec", "TX_END_EVENTS_DEFAULT", "tx_end_events_default", "QUEUE_KINDS",
    "CC_KINDS", "Rate", "Time", "Duration", "Size", "PacketSize", "Probability", "Count", "U32", "NonNegative",
    "MAX_PACKET_BYTES", "U32_MAX", "U64_MAX",
]  # fmt: skip
