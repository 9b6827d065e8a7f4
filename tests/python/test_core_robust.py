"""Issue 25 through the Python front: a scenario the schema accepts runs to the
end or is refused up front with a field error (no panic, no abort, no storm, no
impossible number), and the core's memory estimate against measured memory."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import textwrap

import pytest

import pertlab
from pertlab import _core
from pertlab.runner import as_scenario, available_memory, memory_estimate
from pertlab.scenario import ScenarioError


def two_nodes(queue: dict | None = None, tcp: dict | None = None, **extra) -> dict:
    """The issue's scenario: 10 Mbit/s, 5 ms from a to b, one flow, 1 s."""
    link = {"a": "a", "b": "b", "rate": "10Mbps", "delay": "5ms"}
    if queue is not None:
        link["queue"] = queue
    flow = {"src": "a", "dst": "b"}
    if tcp is not None:
        flow["tcp"] = tcp
    return {"duration": "1s", "nodes": ["a", "b"], "links": [link], "flows": [flow], **extra}


def refusal(scenario: dict, **kw) -> str:
    with pytest.raises(ScenarioError) as e:
        pertlab.run(scenario, **kw)
    return str(e.value)


@pytest.mark.parametrize("kind", ["ared", "reared", "fared", "cared"])
def test_adaptive_red_with_top_below_the_automatic_bottom_runs(kind):
    # Item 1: PanicException "min > max" from run and from Scenario.check().
    s = two_nodes(queue={"kind": kind, "red": {"top": 0.001, "bottom": 0}})
    pertlab.Scenario.parse(s).check()
    r = pertlab.run(s)
    assert r.conservation["ok"] and r.flows["segments_sent"][0] > 100


def test_conservation_holds_with_a_send_overhead():
    # Item 2: "flow 0: sent 1630 != received 815 + dropped 0 + in network 811".
    r = pertlab.run(two_nodes(tcp={"overhead": "10ms"}))
    assert r.conservation["ok"], r.conservation["violations"]


def test_every_rate_is_a_fraction_when_the_window_starts_late():
    # Item 3: drop rates of 906.0 and 47.7 when the window opens on a backlog CoDel drops.
    flow = {"src": "a", "dst": "b", "tcp": {"init_cwnd": 250, "min_rto": "30s", "initial_rto": "30s"}}
    s = {
        "duration": "6s", "measure": {"start": "2s", "end": "6s"}, "nodes": ["a", "b"],
        "links": [{"a": "a", "b": "b", "rate": "1Mbps", "delay": "5ms", "queue": {"kind": "codel", "limit_pkts": 1000}}],
        "flows": [flow] * 4,
    }  # fmt: skip
    r = pertlab.run(s)
    q = r.queues.row(0, named=True)
    assert q["drops"] > q["arrivals"]
    for table, columns in ((r.queues, ["drop_rate", "mark_rate", "utilization", "avg_queue_norm"]), (r.flows, ["drop_rate"]), (r.controllers, ["drop_rate", "share"])):
        for c in columns:
            assert table[c].is_between(0.0, 1.0).all(), (c, table[c].to_list())
    assert q["drop_rate"] == q["drops"] / (q["drops"] + q["departures"])


def test_timers_below_their_floors_are_refused_naming_the_field():
    # Item 4: 1 ns / 2 ns RTO bounds on a 1 kbit/s link took 78 s for 3 simulated seconds.
    s = two_nodes(tcp={"min_rto": "1ns", "max_rto": "2ns"})
    s["links"][0]["rate"] = "1kbps"
    assert refusal(s) == "flows[0].tcp.min_rto: must be at least 1000 ns (1 us, the least Linux's tcp_rto_min_us allows), got 1"


def test_progress_is_called_within_a_simulated_second():
    # Ctrl-C reaches the core through the progress callback, now every 65,536 events.
    s = two_nodes(duration="900ms")
    s["links"][0]["rate"] = "1Gbps"
    s["engine"] = {"tx_end_events": "always"}  # every transmission's end an event: 200,000 or more
    calls = []
    text = _core.run_json(pertlab.Scenario.parse(s).to_wire_json(), lambda t: calls.append(t) or True)
    events = json.loads(text)["events"]
    assert events > 4 * 65536 and len(calls) == events // 65536


@pytest.mark.parametrize(
    ("scenario", "field"),
    [
        (two_nodes(monitor={"sample_interval": "1ns"}), "monitor.sample_interval"),
        ({"duration": "1s", "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "5ms"}],
          "web": [{"clients": ["a"], "servers": ["b"], "sessions": 4294967295}]}, "web[0].sessions"),
        ({"duration": "1s", "dumbbell": {"pairs": 2**31, "bottleneck_rate": "10Mbps", "bottleneck_delay": "1ms", "access_rate": "100Mbps",
          "sender_access_delay": "1us", "receiver_access_delay": "1us"}}, "dumbbell.pairs"),
    ],
)  # fmt: skip
def test_runs_larger_than_the_memory_are_refused_up_front(scenario, field):
    # Item 5: each of these aborted the process (SIGABRT, memory allocation failed).
    message = refusal(scenario)
    assert message.startswith(f"{field}: ") and "more than the memory limit" in message, message
    assert message.endswith("or raise the limit (the memory available now; raise it with memory_limit=BYTES, on the command line --memory-limit SIZE)"), message
    with pytest.raises(ScenarioError, match=f"^{re.escape(field)}: "):
        pertlab.Scenario.parse(scenario).check()


def test_windows_and_byte_limits_that_hold_no_packet_are_refused():
    # Item 5: init_cwnd = max_cwnd = 2^32 - 1; a 1000-byte buffer for 1500-byte packets.
    assert refusal(two_nodes(tcp={"init_cwnd": 2**32 - 1, "max_cwnd": 2**32 - 1})).startswith("flows[0].tcp.max_cwnd: must be at most 735439 segments")
    assert refusal(two_nodes(queue={"limit_bytes": "1000B"})).startswith("links[0].queue.limit_bytes: must be at least 1500 bytes")


def test_memory_limit_is_a_number_of_bytes_or_inf():
    s = two_nodes(monitor={"sample_interval": "1ms"})
    message = refusal(s, memory_limit=1000)
    assert "more than the memory limit 1000 B" in message and "(the memory available now" not in message, message
    assert pertlab.run(s, memory_limit=math.inf).queue_series.height == 2 * 1001
    with pytest.raises(ScenarioError, match="^memory_limit: must be a positive number of bytes"):
        pertlab.run(s, memory_limit=-1)
    with pytest.raises(ScenarioError, match="memory limit 1000 B"):
        pertlab.Scenario.parse(s).check(memory_limit=1000)


def test_the_estimate_names_its_parts_and_a_builder_can_refuse_by_the_flow():
    e = memory_estimate(two_nodes(monitor={"sample_interval": "1ms"}))
    assert e["complete"] and e["total"] == sum(p["bytes"] for p in e["parts"])
    series = [p for p in e["parts"] if p["field"] == "monitor.sample_interval"]
    # 1001 samples of 2 queues (7 columns) and 1 flow (13 columns): 27,027 values.
    assert e["recorded_values"] >= 1001 * (2 * 7 + 13) and series
    # The least one flow costs: 100 million of them need more than this machine has.
    per_flow = _core.bytes_per_flow()
    assert 1000 < per_flow < 100_000
    assert available_memory() is None or 100_000_000 * per_flow > available_memory()


#: Runs whose memory is dominated by one part of the estimate: time series, flows
#: (their hosts, routes and buffers), web sessions.
MEASURED = {
    "series": {"duration": "100s", "nodes": ["a", "b"],
               "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "5ms", "queue": {"kind": "red"}}],
               "flows": [{"src": "a", "dst": "b", "cc": "pert-adaptive"}], "monitor": {"sample_interval": "1ms"}},
    "flows": None,
    "web": {"duration": "20s", "nodes": ["c", "r", "s"],
            "links": [{"a": "c", "b": "r", "rate": "10Gbps", "delay": "5ms"}, {"a": "r", "b": "s", "rate": "10Gbps", "delay": "5ms"}],
            "web": [{"clients": ["c"], "servers": ["s"], "sessions": 2000, "think_time": "100ms", "objects_per_page": 4}]},
}  # fmt: skip

#: Runs the wire scenario of argv[1] in a fresh process (the results as pertlab.run
#: makes them, series included) and prints the growth of its peak memory. The peak is
#: the process's own VmHWM, reset once the warm-up is done (writing 5 to clear_refs):
#: getrusage's ru_maxrss would also count the parent's memory at the fork, which made
#: the measured growth depend on the size of the test process.
MEASURE = textwrap.dedent(
    """
    from pathlib import Path
    import sys
    from pertlab import _core
    from pertlab.results import Results

    def status(field):
        line = next(l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith(field + ":"))
        return int(line.split()[1]) * 1024

    # Load what a run uses once (polars, the results code) before measuring.
    tiny = '{"duration_ns": 1000000, "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate_bps": 1000000, "delay_ns": 1000}],'
    tiny += ' "flows": [{"src": "a", "dst": "b"}], "monitor": {"sample_interval_ns": 100000}}'
    r = Results.from_json(_core.run_json(tiny, None, None))
    r.queue_series, r.flow_series, r.flows, r.queues
    del r
    wire = Path(sys.argv[1]).read_text()
    Path("/proc/self/clear_refs").write_text("5")
    before = status("VmRSS")
    r = Results.from_json(_core.run_json(wire, None, None))
    r.queue_series, r.flow_series, r.flows, r.queues
    print(status("VmHWM") - before)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
@pytest.mark.parametrize("kind", list(MEASURED))
def test_the_memory_estimate_tracks_the_measured_peak(kind, tmp_path):
    """The estimate (with what the results cost in Python) against the growth of the
    peak resident memory of a process that runs the scenario and builds its tables.
    Stated factor: within [0.5, 3] of the measured growth. Measured at this commit:
    series 1.23, flows 0.97, web 1.20 (a web group is estimated with every session
    completing pages at its own pace, which 10 Gbit/s links allow; on 1 Gbit/s links the
    link holds them back and the factor was 2.9-3.0, at the edge of the stated range)."""
    scenario = MEASURED[kind] or pertlab.dumbbell(bw="100Mbps", rtt="60ms", flows=2000, cc="sack", duration="5s", warmup="1s", start_window="1s")
    wire = as_scenario(scenario).to_wire_json()
    (tmp_path / "scenario.json").write_text(wire)
    estimate = json.loads(_core.memory_estimate_json(wire))["total"]
    growth = int(subprocess.run([sys.executable, "-c", MEASURE, str(tmp_path / "scenario.json")], check=True, capture_output=True, text=True).stdout)
    assert growth > 15 * 2**20, f"{kind}: the run should need memory to measure, grew {growth} bytes"
    assert 0.5 <= estimate / growth <= 3.0, f"{kind}: estimate {estimate / 2**20:.1f} MiB, measured {growth / 2**20:.1f} MiB"
