"""Topologies: explicit links between named nodes, or the dumbbell the core expands."""

from typing import Annotated, Any, Union

from pydantic import BeforeValidator, Field, ValidationInfo, field_validator

from .base import Count, Probability, Rate, Time, _Model, _unit
from .queues import QueueSpec



class BurstLoss(_Model):
    """Gilbert-Elliott burst losses (a packet is lost in the Bad state, kept in the Good state),
    given by the mean loss rate and the mean burst length. Not an 802.11 MAC (docs/model.md)."""

    rate: Annotated[float, Field(ge=0.0, lt=1.0)] = Field(description="mean packet loss rate, in [0, 1)")
    mean_burst_pkts: Annotated[float, Field(ge=1.0, allow_inf_nan=False)] = Field(description="mean packets lost in a row, at least 1")

    @field_validator("mean_burst_pkts")
    @classmethod
    def _rate_reachable(cls, v: float, info: ValidationInfo) -> float:
        rate = info.data.get("rate")
        if rate is not None and rate / (1 - rate) > v:
            raise ValueError(f"bursts of {v} packets allow a loss rate of at most B / (B + 1) = {v / (v + 1)}, got rate {rate}")
        return v


class LinkSpec(_Model):
    """A full-duplex point-to-point link between two named nodes."""

    name: str | None = Field(None, description='name used in results; default "a-b"')
    a: str
    b: str
    rate: Rate = _unit("rate", "rate_bps")
    delay: Time = _unit("delay", "delay_ns", description="one-way propagation delay")
    loss: Probability = Field(0.0, description="Bernoulli loss probability a -> b")
    loss_ba: Probability = Field(0.0, description="Bernoulli loss probability b -> a")
    burst_loss: BurstLoss | None = Field(
        None, description="Gilbert-Elliott burst losses on both directions (data and ACKs), one chain each, on top of loss/loss_ba"
    )
    queue: QueueSpec = Field(default_factory=QueueSpec, description="queue of the a -> b direction")
    queue_ba: QueueSpec | None = Field(None, description="queue of the b -> a direction; default: as `queue`")


def _one_or_many(value: Any) -> Any:
    return value if isinstance(value, (list, tuple)) else [value]


#: The dumbbell's bottleneck direction (from, to) that a host's data cross, by the host's side:
#: the senders s0.. sit on r0, the receivers d0.. (and the reverse flows they start) on r1.
DUMBBELL_DIRECTIONS = {"s": ("r0", "r1"), "d": ("r1", "r0")}


class DumbbellSpec(_Model):
    """Senders s0.. on router r0, receivers d0.. on router r1, one bottleneck
    link r0 - r1 named "bottleneck"; each host has its own access link."""

    pairs: Count
    bottleneck_rate: Rate = _unit("bottleneck_rate", "bottleneck_rate_bps")
    bottleneck_delay: Time = _unit("bottleneck_delay", "bottleneck_delay_ns", description="one-way")
    bottleneck_queue: QueueSpec = Field(default_factory=QueueSpec)
    bottleneck_queue_reverse: QueueSpec | None = Field(None, description="ACK direction; default DropTail, same limit")
    bottleneck_loss: Probability = 0.0
    access_rate: Rate = _unit("access_rate", "access_rate_bps")
    sender_access_delay: Annotated[list[Time], BeforeValidator(_one_or_many, json_schema_input_type=Union[Time, list[Time]])] = _unit(
        "sender_access_delay", "sender_access_delay_ns", description="one value for all, or one per pair"
    )
    receiver_access_delay: Annotated[list[Time], BeforeValidator(_one_or_many, json_schema_input_type=Union[Time, list[Time]])] = _unit(
        "receiver_access_delay", "receiver_access_delay_ns", description="one value for all, or one per pair"
    )
    access_queue: QueueSpec = Field(default_factory=QueueSpec)

    @field_validator("sender_access_delay", "receiver_access_delay")
    @classmethod
    def _delays_per_pair(cls, v: list[int], info: ValidationInfo) -> list[int]:
        pairs = info.data.get("pairs")
        if pairs is not None and len(v) not in (1, pairs):
            raise ValueError(f"give one delay for all hosts or one per pair ({pairs}), got {len(v)}")
        return v
