"""docs/linux.md's generated CPU-cost block (:mod:`pertlab.linux.doc`) against the committed run
of ``pertlab linux cpu-cost`` it is written from (docs/linux/cpu_cost_table6.json). No root."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest

import pertlab
from pertlab.linux import cpu_cost
from pertlab.linux.doc import CPU_COST_DATA, LABELS, render_cpu_cost, render_page
from pertlab.results import SUCCESS_LATE_FRACTION

DOCS = Path(__file__).resolve().parents[2] / "docs"
DATA = json.loads((DOCS / CPU_COST_DATA).read_text())


def test_the_cpu_cost_block_is_generated_from_the_committed_run() -> None:
    page = (DOCS / "linux.md").read_text()
    assert render_page(page, DOCS) == page


def test_the_committed_summary_is_the_summary_of_its_runs() -> None:
    """The table is written from the file's summary; it must be what :class:`cpu_cost.CpuCost`
    computes from the runs the file holds (a summary edited by hand, or of other runs, fails)."""
    setup = cpu_cost.Setup(**{**DATA["setup"], "ccs": tuple(DATA["setup"]["ccs"])})
    setup.validate()
    fresh = json.loads(json.dumps(cpu_cost.CpuCost(setup, runs=DATA["runs"]).summary()))
    assert fresh == DATA["summary"]
    assert [r["cc"] for r in DATA["runs"]] == list(setup.ccs) * setup.repeat  # interleaved, every run kept


def test_every_connection_of_every_committed_run_used_the_congestion_control_asked_for() -> None:
    """docs/linux.md: ``ss`` in the middle of each run saw the congestion control asked for on
    every connection; and every run measured a finite, positive cost."""
    for r in DATA["runs"]:
        assert r["flows_seen"] == r["flows"] == DATA["setup"]["flows"], r["run_id"]
        assert r["mb"] > 0 and math.isfinite(r["testbed_cpu_ms_per_mb"]) and r["testbed_cpu_ms_per_mb"] > 0, r["run_id"]
        if r["cc"] in cpu_cost.EBPF:
            assert r["bpf_calls"] > 0 and 0 < r["bpf_ns_per_call"] < 1e5, r["run_id"]


@pytest.mark.parametrize("load, said", [(0.5, "otherwise idle"), (9.0, "the figures are noisy")])
def test_the_block_says_whether_other_jobs_shared_the_machine(load: float, said: str) -> None:
    data = json.loads(json.dumps(DATA))
    data["host"]["load_start"] = [load, load, load]
    data["host"]["load_end"] = [load, load, load]
    assert said in render_cpu_cost(data).splitlines()[0]


def test_a_difference_from_reno_beyond_the_runs_spread_is_said_to_be_outside() -> None:
    """The verdict of the last paragraph follows the numbers: a protocol moved far from Reno's
    testbed CPU per MB is "outside", one set equal to Reno's "inside"."""
    data = json.loads(json.dumps(DATA))
    reno = data["summary"]["reno"]["testbed_cpu_ms_per_mb"]
    other = next(cc for cc in data["setup"]["ccs"] if cc != "reno")
    data["summary"][other]["testbed_cpu_ms_per_mb"] = {**reno, "mean": reno["mean"] + 10 * (reno["sd"] + 1)}
    assert "outside the two standard deviations" in render_cpu_cost(data)
    data["summary"][other]["testbed_cpu_ms_per_mb"] = dict(reno)
    assert f"{LABELS[other]} +0.0 ms per MB (inside" in render_cpu_cost(data)



def test_the_committed_simulator_rows_are_the_simulators_today() -> None:
    """The block's simulator rows come from the file; they must be what :func:`cpu_cost.simulate`
    gives for its setup now (deterministic). After a change of the simulator:
    ``cpu_cost.refresh_simulator(Path("docs/linux/cpu_cost_table6.json"))``, then ``make docs``."""
    setup = cpu_cost.Setup(**{**DATA["setup"], "ccs": tuple(DATA["setup"]["ccs"])})
    assert json.loads(json.dumps(cpu_cost.simulate(setup))) == DATA["simulator"]
    assert DATA["simulator_summary"] == json.loads(json.dumps(cpu_cost.CpuCost(setup, simulator=DATA["simulator"]).sim_summary()))


def test_the_simulator_beside_the_kernel_runs_every_controller_it_has_per_seed() -> None:
    """Seeds 1 to ``repeat`` per congestion control the simulator has (not bbr); the halves of a
    run average to the whole; both sides start at the kernel's initial window; and each side's
    capacity is its own payload per packet."""
    setup = cpu_cost.Setup(flows=4, seconds=4.0, repeat=2, ccs=("pert-adaptive", "reno", "bbr"), rate_mbit=10, rtt_ms=20)
    rows = cpu_cost.simulate(setup)
    assert [(r["cc"], r["seed"]) for r in rows] == [("pert-adaptive", 1), ("pert-adaptive", 2), ("reno", 1), ("reno", 2)]
    for r in rows:
        assert math.isclose((r["goodput_first_half_mbps"] + r["goodput_second_half_mbps"]) / 2, r["goodput_mbps"], rel_tol=1e-9)
        assert 0 < r["goodput_mbps"] <= r["payload_capacity_mbps"] and math.isclose(r["payload_capacity_mbps"], 10 * 1460 / 1500)
    assert setup.scenario("reno").init_cwnd == 10
    assert rows == cpu_cost.simulate(setup)


def _runs(block: str) -> dict[str, dict]:
    """The committed compare runs a generated block is written from, by name."""
    from pertlab.linux.compare_doc import BLOCKS

    return {name: json.loads((DOCS / path).read_text()) for name, path in BLOCKS[block][0].items()}


def _rows(record: dict) -> dict:
    from pertlab.linux.compare_doc import rows_of

    return rows_of(record)


def _committed_runs() -> list[str]:
    from pertlab.linux.compare_doc import BLOCKS

    # the compare runs (a block of kernel runs has each run's summary.json beside them)
    return sorted({path for files, _ in BLOCKS.values() for path in files.values() if "rows" in json.loads((DOCS / path).read_text())})


@pytest.mark.parametrize("path", _committed_runs())
def test_each_committed_comparison_s_simulator_side_is_what_the_simulator_gives_today(path: str) -> None:
    """Each committed `testbed compare` run's simulator seeds, run again from the run's own record
    (its testbed scenario, seeds and send overhead), give its bottleneck rows to the last digit: a
    model change that moves them leaves a page written from stale runs, and the run is to be taken
    again (found one on 2026-12-06: video_compare_cubic_noise, made before HyStart's ACK-train
    cushion)."""
    from pertlab.linux.compare_doc import simulator_side_changes

    record = json.loads((DOCS / path).read_text())
    assert simulator_side_changes(record) == []


@pytest.mark.parametrize("block", ["smoke", "mix", "ten-flows", "ten-flows-nosack", "random-loss", "random-loss-rack", "random-loss-frame", "random-loss-all", "pert-delack", "step-ecn", "fifty-flows", "video", "video-noise", "adaptive-reno"])
def test_the_committed_compare_runs_are_of_todays_example_files(block: str) -> None:
    """Each committed compare run behind a block ran its example file as it reads today (a file
    changed since needs the run again), met no stale slow-start threshold, and its committed
    report.md is the run's (the rows of report.json, written)."""
    from pertlab.linux.compare import Row
    from pertlab.linux.compare_doc import BLOCKS
    from pertlab.linux.scenario import TestbedScenario, load_scenario

    for name, rec in _runs(block).items():
        example = DOCS.parent / "examples" / "testbed" / f"{name}.toml"  # the block names each run by its file
        assert TestbedScenario.parse(rec["testbed_scenario"]) == load_scenario(example), name
        assert rec["invalid_ssthresh_samples"] == 0 and not any(rec["ssthresh_repairs"].values()), name
        report = (DOCS / BLOCKS[block][0][name]).with_suffix(".md").read_text()
        table = [line for line in report.splitlines() if line.startswith("| ") and not line.startswith("| metric")]
        assert [Row(**row).markdown() for row in rec["rows"]] == table, name


def _both(row) -> list:
    """The kernel's value and every simulator seed's."""
    return [row.testbed, *row.sim]


def test_the_smoke_run_shows_what_the_prose_says() -> None:
    """docs/linux.md, "testbed compare": the kernel's average queue (about 4 packets), utilization
    and early responses lie within the simulator seeds' ranges."""
    rows = _rows(_runs("smoke")["smoke"])
    for metric in ("bottleneck average queue, packets", "bottleneck utilization", "pert: early responses"):
        row = rows[metric]
        assert min(row.sim) <= row.testbed <= max(row.sim), row
    assert 3.0 <= rows["bottleneck average queue, packets"].testbed <= 5.0


def test_the_mix_run_shows_what_the_prose_says() -> None:
    """docs/linux.md, the mix of two PERT flows and a cubic flow: on both sides cubic takes more
    than 90 % of the link, each PERT flow under 0.5 Mbit/s with 100 to 1000 early responses
    between them, the queue holds 60 to 80 % of the 132-frame buffer, and HyStart ended cubic's
    slow start on a delay increase at about the same window."""
    rows = _rows(_runs("mix")["mix"])
    assert all(g > 0.9 * 20 for g in _both(rows["cubic: goodput total, Mbit/s"]))
    assert all(g < 0.5 for g in _both(rows["pert: goodput per flow, Mbit/s (mean)"]))
    assert all(100 <= e <= 1000 for e in _both(rows["pert: early responses"]))
    assert all(0.6 * 132 <= q <= 0.8 * 132 for q in _both(rows["bottleneck average queue, packets"]))
    # HyStart ends cubic's slow start on a delay increase on both sides, at windows within a
    # tenth of each other.
    from pertlab.linux.compare import HYSTART_EXIT_METRICS, HYSTART_WINDOW_METRIC

    assert set(_both(rows[HYSTART_EXIT_METRICS["delay"]])) == {1}
    kernel, *sims = _both(rows[HYSTART_WINDOW_METRIC])
    assert kernel is not None and all(abs(s / kernel - 1) <= 0.1 for s in sims), (kernel, sims)


def test_the_ten_flows_runs_show_what_the_prose_says() -> None:
    """docs/linux.md, "Ten flows, 10 Mbit/s, 40 ms": PERT's queue about 9 packets with no drops
    and about the same early responses; Reno's drop rate about 3 % on both sides and the kernel's
    queue about 2 packets longer, with more retransmissions; goodput lower in the testbed by the
    headers' share (1448/1514 over 1460/1500) to within 0.5 %."""
    runs = _runs("ten-flows")
    reno, pert = _rows(runs["ten_flows_reno"]), _rows(runs["ten_flows_pert"])
    assert all(7.5 <= q <= 11 for q in _both(pert["bottleneck average queue, packets"])) and set(_both(pert["bottleneck drops"])) == {0}
    early = _both(pert["pert: early responses"])
    assert max(early) <= 1.1 * min(early), early
    assert all(0.02 <= d <= 0.04 for d in _both(reno["bottleneck drop rate"]))
    queue = reno["bottleneck average queue, packets"]
    assert all(1.0 <= queue.testbed - q <= 3.0 for q in queue.sim), queue
    assert all(reno["reno: retransmissions"].testbed > r for r in reno["reno: retransmissions"].sim)
    headers = (1448 / 1514) / (1460 / 1500)
    for rows, cc in ((reno, "reno"), (pert, "pert")):
        goodput = rows[f"{cc}: goodput total, Mbit/s"]
        assert all(goodput.testbed / g == pytest.approx(headers, rel=0.005) for g in goodput.sim), (cc, goodput)


def test_the_reno_without_sack_runs_show_what_the_prose_says() -> None:
    """docs/linux.md, "Reno without SACK": the kernel negotiated no SACK; the simulator retransmits
    as many segments without SACK as with it, one per fast recovery; the kernel's run without SACK is within 2 % of the
    simulator's on drops, queue and retransmissions, with no timeouts and the Jain index within
    0.01; the mean RTT is 3 to 4 ms shorter without SACK on both sides."""
    runs = _runs("ten-flows-nosack")
    assert runs["ten_flows_reno_nosack"]["testbed_scenario"]["sack"] is False
    sack, nosack = _rows(runs["ten_flows_reno"]), _rows(runs["ten_flows_reno_nosack"])
    assert set(nosack["reno: retransmissions"].sim) == set(sack["reno: retransmissions"].sim)
    for metric in ("bottleneck drops", "bottleneck average queue, packets", "reno: retransmissions"):
        row = nosack[metric]
        assert all(_about(row.testbed, s, 0.02) for s in row.sim), row
    assert set(_both(nosack["reno: retransmission timeouts"])) == {0}
    jain = nosack["Jain index (all flows)"]
    assert all(abs(jain.testbed - s) <= 0.01 for s in jain.sim), jain
    rtt, rtt_sack = nosack["reno: RTT mean, ms"], sack["reno: RTT mean, ms"]
    assert 3 <= rtt_sack.testbed - rtt.testbed <= 4 and all(3 <= a - b <= 4 for a, b in zip(rtt_sack.sim, rtt.sim)), (rtt_sack, rtt)
    # Why: without SACK no segment SACKed during a recovery gives a sample, about a quarter fewer.
    from pertlab import run
    from pertlab.linux.sim_side import sim_scenario
    from pertlab.linux.scenario import load_scenario

    flows = {n: run(sim_scenario(load_scenario(DOCS.parent / "examples" / "testbed" / f"{n}.toml"))).flows for n in runs}
    samples = {n: f["rtt_samples"].mean() for n, f in flows.items()}
    assert 0.2 <= 1 - samples["ten_flows_reno_nosack"] / samples["ten_flows_reno"] <= 0.3, samples
    # One loss per window: one retransmission per fast recovery on either recovery.
    assert all(f["retransmits"].sum() == f["fast_recoveries"].sum() for f in flows.values())


def test_the_random_loss_runs_show_what_the_prose_says() -> None:
    """docs/linux.md, "Random loss, with SACK and without": without SACK the kernel's goodput and
    retransmissions lie within 15 % of the simulator seeds' median, its timeouts inside their
    range; with SACK the kernel times out a few times (under 10) where every simulator seed times
    out more than 20 times, and it delivers more than the median seed. On every run the kernel
    marks lost again a number of retransmissions within the range of the simulator's seeds; with
    SACK each simulator seed times out at least 0.8 times as often as it drops retransmissions
    (about once for each); the kernel sends fewer than 10 tail loss probes, and without them still
    times out under 10 times; without SACK it times out more than 20 times. With
    `--sim-rack-retransmits` (20 seeds) the seeds' median timeouts are under 10, and their median goodput is below the
    median without it and below the kernel's."""
    runs = _runs("random-loss")
    nosack, sack, notlp = (_rows(runs[n]) for n in ("reno_loss_nosack", "reno_loss", "reno_loss_notlp"))
    racked = _runs("random-loss-rack")["reno_loss"]
    rack = _rows(racked)
    assert runs["reno_loss_nosack"]["testbed_scenario"]["sack"] is False
    assert runs["reno_loss_notlp"]["testbed_scenario"]["tlp"] is False
    assert racked["sim_rack_retransmits"] is True and racked["sim_rack"] is False
    assert not any(r.get("sim_rack") or r.get("sim_rack_retransmits") for r in runs.values())
    for metric in ("reno: goodput total, Mbit/s", "reno: retransmissions"):
        row = nosack[metric]
        assert _about(row.testbed, statistics.median(row.sim), 0.15), row
    timeouts = nosack["reno: retransmission timeouts"]
    assert min(timeouts.sim) <= timeouts.testbed <= max(timeouts.sim) and timeouts.testbed > 20, timeouts
    for rows in (sack, notlp):
        timeouts, goodput = rows["reno: retransmission timeouts"], rows["reno: goodput total, Mbit/s"]
        assert timeouts.testbed < 10 and min(timeouts.sim) > 20, timeouts
        assert goodput.testbed > statistics.median(goodput.sim), goodput
        dropped = rows["senders: retransmissions dropped"].sim
        assert all(t >= 0.8 * d for t, d in zip(timeouts.sim, dropped)), (timeouts, dropped)
    for rows in (sack, notlp, rack):
        assert rows["senders: tail loss probes (kernel's TCPLossProbes)"].testbed < 10
    assert notlp["senders: tail loss probes (kernel's TCPLossProbes)"].testbed == 0
    for rows in (sack, notlp, nosack, rack):
        lost = rows["senders: retransmissions marked lost again (TCPLostRetransmit)"]
        assert min(lost.sim) <= lost.testbed <= max(lost.sim), lost
    timeouts, goodput = rack["reno: retransmission timeouts"], rack["reno: goodput total, Mbit/s"]
    assert timeouts.testbed < 10 and statistics.median(timeouts.sim) < 10 and len(timeouts.sim) == 20, timeouts
    assert statistics.median(goodput.sim) < min(goodput.testbed, statistics.median(sack["reno: goodput total, Mbit/s"].sim)), goodput


def _kernel_runs() -> list[dict]:
    """The summaries of the six kernel runs of `reno_loss` (block `random-loss-kernel-runs`)."""
    return [r for name, r in _runs("random-loss-kernel-runs").items() if name.startswith("run ")]


def _about(a: float, b: float, rel: float) -> bool:
    return abs(a - b) <= rel * abs(b)


def test_the_round_trip_a_frame_shorter_shows_what_the_prose_says() -> None:
    """docs/linux.md, "Random loss, with SACK and without", the frame ahead: with
    `--sim-rack-retransmits` alone every seed's smoothed RTT (one definition on both sides) is longer than the kernel's;
    the kernel's queue is as long as the seeds' median or longer. With `--sim-frame-ahead` too the
    seeds' median goodput is at least 2 % higher than without it, and the six kernel runs' median
    smoothed RTT lies within the seeds' range. The six runs deliver more than the seeds' median by
    1 to 6 % (the runs' median), undo at most one window reduction each, enter fast recovery more
    often than any seed, and on each the idle path's echo in full-size frames returns within 0.3 ms
    of the small one (htb adds no frame's time: 1.2 ms at 10 Mbit/s)."""
    from pertlab.linux.compare import RECOVERIES_METRIC, RECOVERY_COUNTERS, SRTT_MEAN_METRIC, UNDO_COUNTERS, counted

    racked, ahead = _rows(_runs("random-loss-rack")["reno_loss"]), _rows(_runs("random-loss-frame")["reno_loss"])
    assert _runs("random-loss-frame")["reno_loss"]["sim_frame_ahead"] is True and _runs("random-loss-rack")["reno_loss"].get("sim_frame_ahead") is not True
    srtt = SRTT_MEAN_METRIC.format(cc="reno")
    assert racked[srtt].testbed < min(racked[srtt].sim), racked[srtt]
    queue = racked["bottleneck average queue, packets"]
    assert queue.testbed >= statistics.median(queue.sim), queue
    goodput = "reno: goodput total, Mbit/s"
    assert statistics.median(ahead[goodput].sim) >= 1.02 * statistics.median(racked[goodput].sim), (ahead[goodput], racked[goodput])
    runs = _kernel_runs()
    assert len(runs) == 6 and all(r["testbed_scenario"] == _runs("random-loss-frame")["reno_loss"]["testbed_scenario"] for r in runs)
    kernel = statistics.median(sum(f["goodput_mbps"] for f in r["flows"]) for r in runs)
    assert 1.01 < kernel / statistics.median(ahead[goodput].sim) < 1.06, (kernel, ahead[goodput])
    assert min(ahead[srtt].sim) <= statistics.median(statistics.fmean(f["rtt_mean_ms"] for f in r["flows"]) for r in runs) <= max(ahead[srtt].sim)
    assert all(counted(r["sender_recovery"], UNDO_COUNTERS) <= 1 for r in runs)
    assert min(counted(r["sender_recovery"], RECOVERY_COUNTERS) for r in runs) > max(ahead[RECOVERIES_METRIC].sim)
    assert all(abs(r["ping_idle_full_ms"]["median"] - r["ping_idle_ms"]["median"]) < 0.3 for r in runs)


def test_losses_found_sooner_bring_the_simulator_to_the_kernels_runs() -> None:
    """docs/linux.md, "Random loss, with SACK and without": the seeds of `reno_loss_rack_frame`
    run again with `tcp.dupthresh = 1` enter fast recovery as often as the six kernel runs (the
    seeds' median inside the runs' range) and deliver within 2 % of the runs' median goodput."""
    from pertlab.linux.compare import RECOVERY_COUNTERS, counted
    from pertlab.linux.scenario import TestbedScenario
    from pertlab.linux.sim_side import SimSide, sim_scenario
    from pertlab.runner import run

    runs = _kernel_runs()
    record = _runs("random-loss-frame")["reno_loss"]
    base = sim_scenario(TestbedScenario.model_validate(record["testbed_scenario"]), side=SimSide.of_record(record))
    sooner = base.model_copy(update={"flows": [f.model_copy(update={"tcp": f.tcp.model_copy(update={"dupthresh": 1})}) for f in base.flows]})
    first, last = record["sim_seeds"]
    seeded = [run(sooner.model_copy(update={"seed": seed})).flows for seed in range(first, last + 1)]
    recoveries = statistics.median(int(f["fast_recoveries"].sum()) for f in seeded)
    kernel = [counted(r["sender_recovery"], RECOVERY_COUNTERS) for r in runs]
    assert min(kernel) <= recoveries <= max(kernel), (recoveries, kernel)
    goodput = statistics.median(f["goodput_mbps"].sum() for f in seeded)
    kernel_goodput = statistics.median(sum(f["goodput_mbps"] for f in r["flows"]) for r in runs)
    assert abs(goodput / kernel_goodput - 1) < 0.02, (goodput, kernel_goodput)


def test_rack_for_every_segment_brings_the_simulator_to_the_kernels_runs() -> None:
    """docs/linux.md, "Random loss, with SACK and without", RACK for every segment: with
    `--sim-rack --sim-frame-ahead` the seeds' median goodput is at least 2 % above that of
    `reno_loss_rack_frame`'s seeds and within 2 % of the six kernel runs' median; the new kernel
    run's goodput and smoothed RTT lie within the seeds' ranges; the seeds' median timeouts are at
    most the six runs'; the seeds' median entries into fast recovery are below the least of the
    six runs', their range reaching into the runs'."""
    from pertlab.linux.compare import RECOVERIES_METRIC, RECOVERY_COUNTERS, SRTT_MEAN_METRIC, counted

    record = _runs("random-loss-all")["reno_loss"]
    assert record["sim_rack"] is True and record["sim_frame_ahead"] is True and record["testbed_scenario"] == _runs("random-loss-frame")["reno_loss"]["testbed_scenario"]
    every, frame = _rows(record), _rows(_runs("random-loss-frame")["reno_loss"])
    goodput, srtt, timeouts = "reno: goodput total, Mbit/s", SRTT_MEAN_METRIC.format(cc="reno"), "reno: retransmission timeouts"
    assert statistics.median(every[goodput].sim) >= 1.02 * statistics.median(frame[goodput].sim), (every[goodput], frame[goodput])
    runs = _kernel_runs()
    kernel = statistics.median(sum(f["goodput_mbps"] for f in r["flows"]) for r in runs)
    assert abs(kernel / statistics.median(every[goodput].sim) - 1) < 0.02, (kernel, every[goodput])
    for metric in (goodput, srtt):
        assert min(every[metric].sim) <= every[metric].testbed <= max(every[metric].sim), every[metric]
    recoveries = [counted(r["sender_recovery"], RECOVERY_COUNTERS) for r in runs]
    assert statistics.median(every[RECOVERIES_METRIC].sim) < min(recoveries) <= max(every[RECOVERIES_METRIC].sim), (every[RECOVERIES_METRIC], recoveries)
    assert statistics.median(every[timeouts].sim) <= statistics.median(sum(f["timeouts"] for f in r["flows"]) for r in runs)


def test_the_kernels_extra_fast_recoveries_come_with_its_extra_retransmissions() -> None:
    """docs/linux.md, "Random loss, with SACK and without", the fast recoveries left: per
    retransmission the seeds of `reno_loss_rack_all` enter fast recovery as often as the six kernel
    runs (medians within 3 %); every kernel run retransmits more than any seed, by about 5 % at the
    medians (3 to 8 %), for about 1 % more goodput (under 2 %)."""
    from pertlab.linux.compare import RECOVERIES_METRIC, RECOVERY_COUNTERS, counted

    every = _rows(_runs("random-loss-all")["reno_loss"])
    retransmissions, goodput = every["reno: retransmissions"], every["reno: goodput total, Mbit/s"]
    runs = _kernel_runs()
    kernel_retransmissions = [sum(f["retransmits"] for f in r["flows"]) for r in runs]
    per_kernel = statistics.median(counted(r["sender_recovery"], RECOVERY_COUNTERS) / n for r, n in zip(runs, kernel_retransmissions))
    per_seed = statistics.median(e / n for e, n in zip(every[RECOVERIES_METRIC].sim, retransmissions.sim))
    assert _about(per_kernel, per_seed, 0.03), (per_kernel, per_seed)
    assert min(kernel_retransmissions) > max(retransmissions.sim), (kernel_retransmissions, retransmissions)
    more = statistics.median(kernel_retransmissions) / statistics.median(retransmissions.sim) - 1
    assert 0.03 <= more <= 0.08, more
    kernel_goodput = statistics.median(sum(f["goodput_mbps"] for f in r["flows"]) for r in runs)
    assert 0 < kernel_goodput / statistics.median(goodput.sim) - 1 < 0.02, (kernel_goodput, goodput)


def _with_lost_acks(sc: pertlab.Scenario, loss_ba: float) -> pertlab.Scenario:
    """The simulator's dumbbell ``sc`` as an explicit graph of the same hosts, links and queues,
    its bottleneck also losing ACKs at ``loss_ba`` (a dumbbell loses data only)."""
    d, w = sc.dumbbell, json.loads(sc.model_dump_json())
    access = {"kind": "droptail", "limit_pkts": 1000}

    def link(a: str, b: str, rate: int, delay: int, **more) -> dict:
        return {"a": a, "b": b, "rate": f"{rate}bps", "delay": f"{delay}ns", "queue": access, "queue_ba": access} | more

    links = [link(f"s{i}", "r0", d.access_rate, d.sender_access_delay[0]) for i in range(d.pairs)]
    links += [link("r1", f"d{i}", d.access_rate, d.receiver_access_delay[0]) for i in range(d.pairs)]
    bottleneck = w["dumbbell"]["bottleneck_queue"]
    links.append(link("r0", "r1", d.bottleneck_rate, d.bottleneck_delay, name="bottleneck", queue=bottleneck, queue_ba=bottleneck, loss=d.bottleneck_loss, loss_ba=loss_ba))
    nodes = [f"s{i}" for i in range(d.pairs)] + ["r0", "r1"] + [f"d{i}" for i in range(d.pairs)]
    return pertlab.Scenario.model_validate(w | {"dumbbell": None, "nodes": nodes, "links": links})


def test_lost_acks_do_not_bring_the_simulators_recoveries_to_the_kernels() -> None:
    """docs/linux.md, "Random loss, with SACK and without", the fast recoveries left: the seeds of
    `reno_loss_rack_all` with their bottleneck also losing ACKs at the path's rate, as the
    testbed's delay line does, enter fast recovery no more often than without (median) and stay
    below the least of the six kernel runs."""
    from pertlab.linux.compare import RECOVERY_COUNTERS, counted
    from pertlab.linux.scenario import TestbedScenario
    from pertlab.linux.sim_side import SimSide, sim_scenario
    from pertlab.runner import run

    record = _runs("random-loss-all")["reno_loss"]
    base = sim_scenario(TestbedScenario.model_validate(record["testbed_scenario"]), side=SimSide.of_record(record))
    first, last = record["sim_seeds"]

    def recoveries(loss_ba: float) -> float:
        graph = _with_lost_acks(base, loss_ba)
        return statistics.median(int(run(graph.model_copy(update={"seed": seed})).flows["fast_recoveries"].sum()) for seed in range(first, last + 1))

    runs = _kernel_runs()
    kernel = min(counted(r["sender_recovery"], RECOVERY_COUNTERS) for r in runs)
    without, with_lost_acks = recoveries(0.0), recoveries(base.dumbbell.bottleneck_loss)
    assert with_lost_acks <= without < kernel, (with_lost_acks, without, kernel)


def test_the_pert_delack_runs_show_what_the_prose_says() -> None:
    """docs/linux.md, "Ten PERT flows behind delayed ACKs": on both sides, with the kernel's TSO
    chunks and without, the median flow gets about half its share (0.4 to 0.7 of the mean), one to
    three flows escape (above twice the mean), the link is nearly full (above 0.95), and the RTT,
    the queue and a lone segment's hold are about the same (within 10 % of the simulator's median).
    With the chunks about a quarter of the kernel's segments carry PSH (0.2 to 0.35) and more than
    half its lone segments are acknowledged at once, the simulator's none; without, PSH nearly
    vanishes (below 0.02), lone segments are seldom acknowledged at once (below 0.2), and the
    share of ACKs covering one segment is the simulator's to within 0.02."""
    runs = _runs("pert-delack")
    for name, rec in runs.items():
        rows = _rows(rec)
        share = [m / (t / 10) for m, t in zip(_both(rows["pert: goodput per flow, Mbit/s (median)"]), _both(rows["pert: goodput total, Mbit/s"]))]
        assert all(0.4 <= x <= 0.7 for x in share), (name, share)
        assert all(1 <= n <= 3 for n in _both(rows["pert: flows above twice the mean goodput"])), name
        assert all(u > 0.95 for u in _both(rows["bottleneck utilization"])), name
        for metric in ("pert: RTT mean, ms", "bottleneck average queue, packets", "receivers: the others' hold, ms (median)"):
            assert _about(rows[metric].testbed, statistics.median(rows[metric].sim), 0.10), (name, metric)
    chunks, single = _rows(runs["ten_flows_pert_delack"]), _rows(runs["ten_flows_pert_delack_tso1"])
    psh, at_once = "senders: data segments with PSH, share", "receivers: of those, sent at once (within 10 ms), share"
    assert 0.2 <= chunks[psh].testbed <= 0.35 and chunks[at_once].testbed > 0.5
    assert set(chunks[psh].sim) == set(chunks[at_once].sim) == {0}
    assert single[psh].testbed < 0.02 and single[at_once].testbed < 0.2
    one = single["receivers: ACKs covering one segment, share"]
    assert abs(one.testbed - statistics.median(one.sim)) <= 0.02


def test_the_step_ecn_runs_show_what_the_prose_says() -> None:
    """docs/linux.md, "ECN at the bottleneck": on both sides every ECN cue is acknowledged at once,
    the flows share evenly (Jain above 0.99), the queue agrees to within a packet and the mark rate
    to within 15 %. With the kernel's TSO chunks its link is busier than the simulator's (by more
    than 0.02), about 30 % of its segments carry PSH (0.25 to 0.35), and its receivers send fewer
    segments per ACK with more ACKs covering one segment; without the chunks PSH vanishes (below
    0.01), the ACKs are nearly the simulator's (segments per ACK within 0.05, the one-segment share
    within 0.02) and so is the utilization (within 0.015)."""
    runs = _runs("step-ecn")
    for name, rec in runs.items():
        rows = _rows(rec)
        assert set(_both(rows["receivers: of those, sent at once after the cue, share"])) == {1.0}, name
        assert all(j > 0.99 for j in _both(rows["Jain index (all flows)"])), name
        queue, marks = rows["bottleneck average queue, packets"], rows["bottleneck mark rate"]
        assert all(abs(queue.testbed - q) <= 1.0 for q in queue.sim) and all(_about(marks.testbed, m, 0.15) for m in marks.sim), name
    chunks, single = _rows(runs["ten_flows_cubic_step_ecn"]), _rows(runs["ten_flows_cubic_step_ecn_tso1"])
    lead = lambda rows: rows["bottleneck utilization"].testbed - max(rows["bottleneck utilization"].sim)  # noqa: E731
    per_ack, one = "receivers: segments per ACK (mean)", "receivers: ACKs covering one segment, share"
    psh = "senders: data segments with PSH, share"
    assert lead(chunks) > 0.02 and 0.25 <= chunks[psh].testbed <= 0.35
    assert chunks[per_ack].testbed < min(chunks[per_ack].sim) and chunks[one].testbed > max(chunks[one].sim)
    assert abs(lead(single)) < 0.015 and single[psh].testbed < 0.01
    assert all(abs(single[per_ack].testbed - a) <= 0.05 for a in single[per_ack].sim) and all(abs(single[one].testbed - a) <= 0.02 for a in single[one].sim)


def test_the_fifty_flows_run_shows_what_the_prose_says() -> None:
    """docs/linux.md, "CPU cost: Table VI today": on both sides a few flows grow far past the rest
    (at least one above twice the mean goodput, at most five), and over the 20 s the kernel's link
    is busier than the simulator's on every seed."""
    rows = _rows(_runs("fifty-flows")["fifty_flows_pert_adaptive"])
    assert all(1 <= n <= 5 for n in _both(rows["pert_adaptive: flows above twice the mean goodput"]))
    util = rows["bottleneck utilization"]
    assert all(util.testbed > u for u in util.sim)


def test_the_video_runs_show_what_the_prose_says() -> None:
    """docs/linux.md, "Live video on real sockets": PERT's and Reno's streams fail on both sides
    (every simulator seed), CUBIC's is on time on every simulator seed (the kernel's is chance, and
    the generated block says which it was); PERT's queue a few packets and its round trip near
    90 ms on both sides; Reno's round trip 250 to 300 ms, CUBIC's 290 to 330 ms."""
    runs = _runs("video")
    for cc in ("pert", "reno"):
        rows = _rows(runs[f"video_{cc}"])
        assert all(x >= SUCCESS_LATE_FRACTION for x in _both(rows["video streams: late fraction (worst stream)"])), cc
        assert set(_both(rows["video streams: successful (late fraction below 1e-4)"])) == {0}, cc
    cubic = _rows(runs["video_cubic"])
    assert all(x < SUCCESS_LATE_FRACTION for x in cubic["video streams: late fraction (worst stream)"].sim)
    assert all(250 <= r <= 300 for r in _both(_rows(runs["video_reno"])["reno: RTT mean, ms"]))
    assert all(290 <= r <= 330 for r in _both(cubic["cubic: RTT mean, ms"]))
    pert = _rows(runs["video_pert"])
    assert all(q < 10 for q in _both(pert["bottleneck average queue, packets"])) and all(88 <= r <= 100 for r in _both(pert["pert: RTT mean, ms"]))


def test_the_video_run_with_the_hosts_timing_noise_shows_what_the_prose_says() -> None:
    """docs/linux.md, "Live video": with the send overhead the simulator's seeds split as the
    kernel's runs do, some on time and some late by more than 0.9 (the kernel's late runs: 0.935),
    and the run records the overhead it was made with."""
    rec = _runs("video-noise")["video_cubic"]
    assert rec["sim_send_overhead_ns"] == 800_000
    late = _rows(rec)["video streams: late fraction (worst stream)"].sim
    assert any(x < SUCCESS_LATE_FRACTION for x in late) and any(x > 0.9 for x in late), late


def test_hystarts_exits_part_the_late_seeds_from_the_on_time_ones_and_place_the_kernels_run() -> None:
    """docs/linux.md, "Live video": in the committed run with the send overhead, the flows' mean
    window at HyStart's exits, and the stream's own, part the seeds with the stream late from
    those with it on time (every late seed's below every on-time seed's), and the kernel's run
    lies on the side of each split that its stream's outcome is on."""
    from pertlab.linux.compare import HYSTART_WINDOW_METRIC, STREAM_HYSTART_METRIC

    rows = _rows(_runs("video-noise")["video_cubic"])
    late_fraction = rows["video streams: late fraction (worst stream)"]
    for metric in (HYSTART_WINDOW_METRIC, STREAM_HYSTART_METRIC):
        window = rows[metric]
        pairs = [(w, x) for w, x in zip(window.sim, late_fraction.sim) if w is not None]
        late = [w for w, x in pairs if x >= SUCCESS_LATE_FRACTION]
        on_time = [w for w, x in pairs if x < SUCCESS_LATE_FRACTION]
        assert late and on_time and max(late) < min(on_time), (metric, late, on_time)
        if late_fraction.testbed < SUCCESS_LATE_FRACTION:
            assert window.testbed > max(late), (metric, window.testbed, late)
        else:
            assert window.testbed < min(on_time), (metric, window.testbed, on_time)


def test_the_committed_join_and_leave_runs_show_what_the_prose_says() -> None:
    """The prose around the block: on both sides adaptive PERT is in compete mode at most a
    quarter of the time alone and at least half of it after Reno joins, and, when Reno leaves,
    spends seconds in compete mode while it is there and at most a quarter of the window after."""
    from pertlab.linux.compare_doc import compete

    runs = _runs("adaptive-reno")
    join, leave = runs["adaptive_reno_join"], runs["adaptive_reno_leave"]
    for side, (alone, after) in enumerate(zip(compete(join, True), compete(join, False))):
        assert alone[1] <= 0.25 and after[1] >= 0.5, (side, alone, after)
    for side, (during, window) in enumerate(zip(compete(leave, True), compete(leave, False))):
        assert during[0] >= 2.0 and window[1] <= 0.25, (side, during, window)


def test_the_block_says_where_the_kernels_share_lies_against_the_seeds() -> None:
    from pertlab.linux.compare_doc import against

    assert against(0.5, [0.4, 0.6]) == "within the seeds' range"
    assert against(0.604, [0.4, 0.6]) == "within the seeds' range"  # equal to 0.01
    assert against(0.7, [0.4, 0.6]) == "0.10 above the seeds' most (0.60)"
    assert against(0.2, [0.4, 0.6]) == "0.20 below the seeds' least (0.40)"


def test_a_simulator_cell_gives_one_value_where_every_seed_agrees() -> None:
    from pertlab.linux.compare import Row
    from pertlab.linux.compare_doc import sim_cell

    assert sim_cell(Row("m", 1.0, [2.0, 2.0, 2.0])) == "2.000"
    assert sim_cell(Row("m", 1.0, [2.0, 1.0, 3.0])) == "2.000 (1.000 .. 3.000)"
    assert sim_cell(Row("m", 1, [4, 5], "{}")) == "4.5 (4 .. 5)"


def test_the_first_windows_study_shows_what_the_prose_says() -> None:
    """docs/linux.md, "The first windows decide", on its committed study
    (docs/linux/video_first_windows.json, :mod:`pertlab.linux.first_windows`): where both sides
    reached a position, the kernel's exit is one the simulator gave there; with the kernel's TSO
    chunks the stream's first segment went 2 segments ahead in some runs, each time right after a
    bulk flow's first 2 segments; inside a bulk window, 2 ahead was the commonest position with
    the kernel's chunks and 1 with one-segment chunks (where the simulator reached it too); the
    kernel's default runs landed inside a bulk window more often than the simulator's seeds; and
    every run of the study measured an exit for the stream."""
    from pertlab.linux import first_windows as fw
    from pertlab.linux.doc import FIRST_WINDOWS_DATA

    data = json.loads((DOCS / FIRST_WINDOWS_DATA).read_text())
    assert "interrupted" not in data
    s = data["stream"]
    kernel = {k: fw.by_ahead(v, s) for k, v in data["kernel_runs"].items()}
    sim = fw.by_ahead(data["sim_seeds"], s)
    assert all(r["exits"][s] is not None for runs in [*data["kernel_runs"].values(), data["sim_seeds"]] for r in runs)
    for side in kernel.values():
        assert fw.disagreements(side, sim) == {}, side
    default, tso1 = data["kernel_runs"]["default"], data["kernel_runs"]["1"]
    two = [r for r in default if r["ahead"] == 2]
    assert two and all(r["order"].split()[:2] in (["1x2", "0x1"], ["2x2", "0x1"]) for r in two), two
    inside = lambda runs: [r["ahead"] for r in runs if 1 <= r["ahead"] < data["init_cwnd"]]  # noqa: E731
    commonest = lambda runs: statistics.mode(inside(runs))  # noqa: E731
    assert (commonest(default), commonest(tso1)) == (2, 1) and 1 in sim, (inside(default), inside(tso1))
    assert len(inside(default)) / len(default) > len(inside(data["sim_seeds"])) / len(data["sim_seeds"])


def test_the_first_windows_block_says_what_a_study_lacks() -> None:
    """:func:`pertlab.linux.first_windows.render` on a hand-made study: a kernel position the
    simulator never reached is named with its exits, a kernel exit far from the simulator's at a
    shared position is named, no send overhead is said so, and an interrupted study says where
    it stopped."""
    from pertlab.linux import first_windows as fw

    rec = lambda ahead, exit_: {"order": "-", "ahead": ahead, "exits": [exit_, 88.0, 137.0]}  # noqa: E731
    data = {
        "scenario": "video_cubic", "duration_s": 3.0, "stream": 0, "init_cwnd": 10, "date": "2026-12-06", "kernel": "6.18", "load": [0, 0, 0],
        "sim_send_overhead": None, "kernel_runs": {"default": [rec(2, 88.0), rec(0, 150.0)]}, "sim_seeds": [rec(0, 145.0) | {"seed": 1}],
        "interrupted": "simulator seed 2",
    }  # fmt: skip
    text = fw.render(data)
    assert "| 2 | 1: 88 (1) | - |" in text and "| 0 | 1: 150 (1) | 1: 145 (1) |" in text
    assert "kernel: at the positions the simulator reached too (0 segments ahead), every run's exit but 150 at 0 lies within 3 segments" in text
    assert "The simulator never reached 2 (the kernel's exits 88 (1))." in text
    assert "kernel 1 of 2; simulator (seeds 1 to 1) 0 of 1 runs." in text
    assert "the simulator without send overhead." in text and "wrote its data. Stopped at: simulator seed 2." in text
    data["kernel_runs"]["default"] = [rec(2, 88.0)]
    assert "kernel: the simulator reached none of its positions. The simulator never reached 2" in fw.render(data, "x.json")


def _linux_side_study() -> dict:
    from pertlab.linux.doc import LINUX_SIDE_DATA

    return json.loads((DOCS / LINUX_SIDE_DATA).read_text())


@pytest.mark.parametrize("name", ["smoke", "ten_flows_reno", "reno_loss_nosack"])
def test_the_linux_side_study_reproduces(name: str) -> None:
    """docs/linux.md, the Linux side asked of the committed runs: the study holds every committed
    run made without it, and a run of it (PERT, Reno with SACK, NewReno) gives today what is
    committed, to the last digit."""
    from pertlab.linux import linux_side

    data = _linux_side_study()
    runs = linux_side.committed_runs(DOCS)
    assert list(data["runs"]) == list(runs) and len(runs) >= 20
    assert data["runs"][name] == json.loads(json.dumps(linux_side.study_run(runs[name])))


def test_the_linux_side_study_shows_what_the_prose_says() -> None:
    """docs/linux.md: with the Linux side, utilization and the drop rate move toward the kernel's in
    more runs than away; the average queue away in more runs than toward, lengthened in more runs
    by the frame ahead alone than by RACK alone."""
    from pertlab.linux.linux_side import QUEUE, moved, tally

    data = _linux_side_study()
    counts = tally(data)
    for metric in ("bottleneck utilization", "bottleneck drop rate"):
        assert counts[metric]["closer"] > counts[metric]["farther"], counts
    assert counts[QUEUE]["farther"] > counts[QUEUE]["closer"], counts
    longer = {side: sum(d > 0 for d in moved(data, side, QUEUE)) for side in ("rack_alone", "frame_ahead_alone")}
    assert longer["frame_ahead_alone"] > longer["rack_alone"], longer
