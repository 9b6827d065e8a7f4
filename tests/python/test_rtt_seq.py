"""The segment each traced RTT sample measures (``Results.trace_rtt``'s ``seq``) and the samples
grouped by it modulo k (:func:`pertlab.results.rtt_by_seq_mod`, Qian 2011 Fig 18b)."""

from __future__ import annotations

import polars as pl
import pytest

import pertlab
from pertlab.results import rtt_by_seq_mod


def traced_flow(**tcp) -> pertlab.Results:
    """One window-limited (loss-free) flow for 5 s, its RTT samples traced."""
    wire = pertlab.dumbbell(bw="10Mbps", rtt="40ms", flows=1, duration="5s", tcp={"max_cwnd": 20, **tcp}).to_wire()
    wire["monitor"]["trace_flows"] = [0]
    return pertlab.run(pertlab.Scenario.parse(wire))


def test_one_ack_per_segment_samples_every_segment_in_order():
    r = traced_flow(ack_policy="every")
    seq = r.trace_rtt["seq"].to_list()
    assert r.flows["drops"][0] == 0 and len(seq) > 1000
    assert seq == list(range(len(seq)))
    groups = rtt_by_seq_mod(r.trace_rtt, 4)
    assert groups["group"].to_list() == [0, 1, 2, 3]
    assert groups["samples"].max() - groups["samples"].min() <= 1
    assert groups["samples"].sum() == len(seq)


def test_coalesced_acks_sample_the_first_or_the_last_segment_by_the_echo():
    """Delayed ACKs cover two segments: RFC 7323's echo measures the first, ns-2's the last."""
    first, last = (traced_flow(ack_policy="delayed", ts_echo=e).trace_rtt["seq"] for e in ("earliest", "latest"))
    assert first.len() == last.len() > 500
    assert (first % 2 == 0).all() and (last % 2 == 1).all()
    assert (last - first == 1).all()


def test_groups_by_seq_mod_k():
    trace = pl.DataFrame({"seq": [0, 1, 4, 5, 8, 3], "ms": [10.0, 11.0, 12.0, 13.0, 14.0, 20.0]})
    g = rtt_by_seq_mod(trace, 4)
    assert g["group"].to_list() == [0, 1, 2, 3]
    assert g["samples"].to_list() == [3, 2, 0, 1]
    assert g["mean_ms"].to_list() == [12.0, 12.0, None, 20.0]
    # Successive differences; none next to the empty group.
    assert g["diff_ms"].to_list() == [None, 0.0, None, None]
    assert rtt_by_seq_mod(trace.head(0), 2)["samples"].to_list() == [0, 0]
    with pytest.raises(ValueError, match="k must be at least 1"):
        rtt_by_seq_mod(trace, 0)
