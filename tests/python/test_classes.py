"""Multi-class queues from Python (Hua's thesis Chapter 5): the scenario fields, their errors
naming the field, the per-class rates helper, and the per-class results of a run."""

from __future__ import annotations

import polars as pl
import pytest

import pertlab
from pertlab import Scenario, ScenarioError
from pertlab.scenario import class_rates

from conftest import udp_graph


def classed(kind: str = "swtp", weights=(1, 2, 4), classes=(0, 1, 2), **udp) -> dict:
    """The udp_graph with a multi-class bottleneck and one Pareto source per class at 90 % load."""
    data = udp_graph(duration="20s")
    data["links"][1]["queue"] = {"kind": kind, "limit_pkts": 10_000, "sched": {"weights": list(weights), "window_k": 500}}
    rates = class_rates(10_000_000, 0.9, [1 / len(classes)] * len(classes))
    data["udp"] = [
        {"src": "a", "dst": "b", "rate": f"{r}bps", "packet_size": 440, "arrivals": "pareto", "sizes": "mix", "class": c, **udp}
        for c, r in zip(classes, rates)
    ]
    return data


def error_of(data: dict) -> str:
    with pytest.raises(ScenarioError) as e:
        Scenario.parse(data)
    return str(e.value)


def test_class_fields_reach_the_wire():
    wire = Scenario.parse(classed()).to_wire()
    assert [u["class"] for u in wire["udp"]] == [0, 1, 2]
    assert wire["links"][1]["queue"]["sched"] == {"weights": [1.0, 2.0, 4.0], "global_update": True, "window_k": 500}
    assert wire["udp"][0]["arrivals"] == "pareto" and wire["udp"][0]["sizes"] == "mix" and wire["udp"][0]["pareto_shape"] == 1.9


def test_weights_must_increase_with_the_class():
    msg = error_of(classed(weights=(1, 4, 2)))
    assert msg.startswith("links[1].queue.sched.weights: must increase with the class"), msg


def test_a_class_without_a_queue_is_named():
    msg = error_of(classed(weights=(1, 2), classes=(0, 2)))
    assert msg.startswith("udp[1].class: class 2 has no queue at links[1].queue, whose 2 classes are 0 to 1"), msg
    flows = classed(weights=(1, 2))
    flows["udp"] = flows["udp"][:1]
    flows["flows"] = [{"src": "a", "dst": "b", "class": 3}]
    assert error_of(flows).startswith("flows[0].class: class 3 has no queue"), error_of(flows)


def test_class_split_must_sum_to_one():
    with pytest.raises(ScenarioError, match=r"^split: the class load fractions must sum to 1"):
        class_rates(10_000_000, 0.95, [0.5, 0.3])
    assert class_rates(10_000_000, 0.95, [0.6, 0.2, 0.2]) == [5_700_000, 1_900_000, 1_900_000]


@pytest.mark.parametrize("kind", ["priority", "wtp", "swtp", "bpr"])
def test_every_scheduler_differentiates_and_reports_per_class_rows(kind):
    r = pertlab.run(Scenario.parse(classed(kind)))
    rows = r.classes.filter(r.classes["from"] == "r").sort("class")
    assert rows["class"].to_list() == [0, 1, 2]
    assert rows["drops"].sum() == 0 and rows["departures"].min() > 10_000
    waits = rows["mean_wait_tx"].to_list()
    assert waits[0] > waits[1] > waits[2], waits
    sched = r.schedulers.filter(r.schedulers["from"] == "r")
    assert sched["scheduler"].to_list() == [kind] and sched["ops_per_decision"][0] > 0
    assert rows["window_ratio_p5"][0] <= rows["window_ratio_p50"][0] <= rows["window_ratio_p95"][0]


def test_the_first_departures_waits_are_kept_one_by_one_and_written(tmp_path):
    """``sched.trace_packets`` (Fig 5.3): the waits of the first departures from the measurement
    window's start, one row per packet, in ms and in transmission times as the class rows; they
    survive ``Results.write`` / ``Results.read``. Without it there is no trace."""
    data = classed("wtp")
    data["measure"] = {"start": "5s", "end": "20s"}
    data["links"][1]["queue"]["sched"]["trace_packets"] = 3000
    r = pertlab.run(Scenario.parse(data))
    t = r.class_trace
    assert t.height == 3000 and set(t["class"].to_list()) == {0, 1, 2}
    assert t["link"].unique().to_list() == ["bottleneck"] and t["from"].unique().to_list() == ["r"]
    assert t["t_s"].min() >= 5.0 and t["t_s"].is_sorted()
    rows = r.classes.filter(r.classes["from"] == "r").sort("class")
    tx_ms = rows["mean_wait_ms"][0] / rows["mean_wait_tx"][0]
    assert (t["wait_tx"] * tx_ms - t["wait_ms"]).abs().max() < 1e-9
    means = t.group_by("class").agg(pl.col("wait_tx").mean()).sort("class")["wait_tx"].to_list()
    assert means[0] > means[1] > means[2], means
    back = pertlab.Results.read(r.write(tmp_path / "run"))
    assert back.class_trace.equals(t) and (tmp_path / "run" / "class_trace.parquet").is_file()
    assert pertlab.run(Scenario.parse(classed("wtp"))).class_trace.height == 0
