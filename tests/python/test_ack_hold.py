"""The warning that delay-based flows read their receivers' ACK hold as queueing delay
(pertlab.ack_hold): when it fires, that its numbers are the run's, and that its explanation
holds (the echo it names is what costs the link, and the echo it recommends removes it)."""

from __future__ import annotations

import re

import pertlab

# Five PERT flows on 10 Mbit/s, 60 ms, behind delayed-ACK receivers (docs/model.md, "Timestamp echo").
PATH = dict(bw="10Mbps", rtt="60ms", flows=5, duration="60s", seed=1)
DELAYED = {"ack_policy": "delayed"}


def _hold(results: pertlab.Results) -> list[str]:
    return [w for w in results.warnings if "ts_echo = earliest" in w]


def _excess_ms(results: pertlab.Results) -> tuple[float, float]:
    """The flows' mean RTT above their propagation delay, and the bottleneck's mean queueing delay."""
    f = results.flows
    b = results.bottleneck
    return (f["rtt_mean_ms"] - f["base_rtt_ms"]).mean(), b["avg_queue_bytes"] * 8 / b["rate_bps"] * 1e3


def test_pert_behind_delayed_acks_with_the_rfc_echo_is_named_with_the_runs_numbers_and_the_fix_holds():
    rfc = pertlab.run(pertlab.dumbbell(cc="pert", tcp=DELAYED, **PATH))
    [warning] = _hold(rfc)
    assert warning.startswith("the 5 pert flows 'pert' take queueing delay from RTT samples")
    assert "(ack_policy delayed)" in warning and "--ts-echo latest" in warning
    excess, queue = _excess_ms(rfc)
    assert f"the samples averaged {excess:.1f} ms above the propagation delay, of which the bottleneck's queue explains {queue:.1f} ms" in warning
    # The hold, not the queue, is most of what PERT reads: more than its t_max (10 ms) of excess
    # the queue does not explain.
    assert excess - queue > 10
    # The explanation's test: with ns-2's echo the same flows read about the queue alone and
    # fill the link they left idle, and nothing is said.
    ns2 = pertlab.run(pertlab.dumbbell(cc="pert", tcp={**DELAYED, "ts_echo": "latest"}, **PATH))
    assert _hold(ns2) == []
    excess_ns2, queue_ns2 = _excess_ms(ns2)
    assert excess_ns2 - queue_ns2 < 3
    assert rfc.bottleneck["utilization"] < 0.85 < 0.9 < ns2.bottleneck["utilization"]


def test_only_delay_based_controllers_behind_holding_receivers_with_the_rfc_echo_are_named():
    short = {**PATH, "duration": "5s"}
    # Loss-based flows beside delay-based ones: only the latter, each label once.
    mixed = pertlab.run(pertlab.dumbbell(**{**short, "flows": None}, cc="sack:2,vegas:2,pert-adaptive:1", tcp={"ack_policy": "adaptive"}))
    named = [re.match(r"the (\d) ([\w-]+) flows? '([\w-]+)'", w).groups() for w in _hold(mixed)]
    assert sorted(named) == [("1", "pert-adaptive", "pert-adaptive"), ("2", "vegas", "vegas")]
    assert "its receiver holds segments (ack_policy adaptive) and echoes" in [w for w in _hold(mixed) if "pert-adaptive" in w][0]
    # Every-segment ACKs hold nothing.
    assert _hold(pertlab.run(pertlab.dumbbell(cc="pert", **short))) == []
