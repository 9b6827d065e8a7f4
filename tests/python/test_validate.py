"""pertlab beside ns-3 (pertlab.validate) and the lock-step warning (pertlab.lockstep).

The quick matrix itself runs in test_cli_flags.py (``validate ns3 --quick``), where ns-3's
wheel and a C++ compiler are; these tests need neither.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import pertlab
from pertlab import lockstep
from pertlab.cli import app
from pertlab.linux import compare as linux_compare
from pertlab.linux import testbed
from pertlab.validate.cases import FULL, QUICK, Case, Explained, select
from pertlab.validate.compare import CaseResult, verdicts
from pertlab.validate.ns3 import run_case
from pertlab.validate.tolerance import METRICS, TOLERANCES
from pertlab.validate.translate import NotInNs3, ns3_arguments


def _case(name: str) -> Case:
    return next(c for c in FULL if c.name == name)


def test_matrix_covers_what_issue_19_asks():
    kinds = {dict(c.args).get("queue") for c in FULL}
    assert {"droptail", "red", "ared", "codel", "pie"} <= kinds
    assert {dict(c.args)["queue"] for c in FULL if dict(c.args).get("ecn")} >= {"red", "ared", "codel", "pie"}
    assert {"newreno", "sack", "cubic", "vegas", "hstcp", "illinois"} <= {dict(c.args)["cc"] for c in FULL}
    flows = [dict(c.args)["flows"] for c in FULL]
    assert min(flows) == 1 and max(flows) == 100
    rates = {dict(c.args)["bw"] for c in FULL}
    assert {"10Mbps", "1Gbps"} <= rates
    assert {"10ms", "200ms"} <= {dict(c.args)["rtt"] for c in FULL}
    assert any(dict(dict(c.args).get("tcp", ())).get("delayed_ack") for c in FULL)
    assert {c.name for c in QUICK} <= {c.name for c in FULL} and len(QUICK) <= 14
    assert next(c for c in FULL if c.name == "pie-ns3-newreno").ns3_tcp == "ns3::TcpNewReno"


def test_translation_writes_the_scenario_out():
    s = _case("pie-ecn").scenario()
    args = dict(a[2:].split("=", 1) for a in ns3_arguments(s, [0.5] * 30))
    assert args["rate"] == "10000000" and args["queueDisc"] == "ns3::PieQueueDisc" and args["tcp"] == "ns3::TcpLinuxReno"
    assert "UseEcn=true" in args["queueAttrs"].split("|") and f"MaxSize={s.dumbbell.bottleneck_queue.limit_pkts}p" in args["queueAttrs"]
    defaults = dict(x.split("=", 1) for x in args["defaults"].split("|"))
    assert defaults["ns3::TcpSocketBase::UseEcn"] == "On" and defaults["ns3::TcpSocketBase::MinRto"] == "200000000ns"
    assert defaults["ns3::TcpSocket::DelAckCount"] == "1" and defaults["ns3::TcpL4Protocol::RecoveryType"] == "ns3::TcpClassicRecovery"
    assert args["starts"] == ",".join(["0.5"] * 30)


@pytest.mark.parametrize(
    ("update", "what"),
    [
        ({"cc": "compound"}, "controller 'compound'"),
        ({"cc": "pert"}, "controller 'pert'"),
        ({"queue": "reared"}, "queue 'reared'"),
        ({"tcp": {"rto_min_on": "variance"}}, "rto_min_on"),
        ({"tcp": {"rto_min_on": "rto", "overhead": "1ms"}}, "overhead_"),
        ({"cc": "vegas"}, "Vegas's slow start every other RTT"),
    ],
)
def test_what_ns3_lacks_is_named(update, what):
    kw = {**dict(_case("droptail").args), **update}
    kw.setdefault("tcp", {"rto_min_on": "rto"})
    s = pertlab.dumbbell(**kw)
    with pytest.raises(NotInNs3, match=what):
        ns3_arguments(s, [0.0] * 30)


def _result(ours: dict[str, float], theirs: dict[str, float] | None, explained=()) -> CaseResult:
    full = {m: 1.0 for m in METRICS}
    return CaseResult(Case("x", "x", (), explained), {**full, **ours}, None if theirs is None else {**full, **theirs}, None, {}, {})


def test_verdicts_assert_the_explained_difference_and_catch_its_flip():
    assert TOLERANCES["drop_rate"].agrees(0.10, 0.08) and not TOLERANCES["drop_rate"].agrees(0.12, 0.08)
    explained = (Explained("drop_rate", "higher", "tcp-high-loss"),)
    assert verdicts(_result({"drop_rate": 0.12}, {"drop_rate": 0.08}, explained))["drop_rate"] == "explained"
    assert verdicts(_result({"drop_rate": 0.05}, {"drop_rate": 0.08}, explained))["drop_rate"] == "explained difference not seen"
    assert verdicts(_result({"drop_rate": 0.08}, {"drop_rate": 0.08}, explained))["drop_rate"] == "explained difference not seen"
    assert verdicts(_result({"drop_rate": 0.12}, {"drop_rate": 0.08}))["drop_rate"] == "differs"
    assert set(verdicts(_result({}, None)).values()) == {"not in ns-3"}


def test_every_explained_difference_has_its_section():
    """Each explained metric names a section of docs/validation.md that exists, and the matrix
    table there marks that case and metric (e), never as open (d)."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "validation.md").read_text()
    table = {line.split(" | ")[0].strip("| "): line.split(" | ")[1:] for line in doc.splitlines() if line.startswith("| ")}
    for c in FULL:
        for e in c.explained:
            assert f'<a id="{e.anchor}"></a>' in doc, (c.name, e.anchor)
            cell = table[c.name][METRICS.index(e.metric)]
            assert "(e)" in cell and "(d)" not in cell, (c.name, e.metric, cell)


def test_cases_are_selected_by_name():
    assert select([], True) == QUICK and select([], False) == FULL
    assert select(["ared-ecn", "red"], False) == (_case("red"), _case("ared-ecn"))
    (short,) = select(["ared-ecn"], True)
    assert dict(short.args)["duration"] == "40s" and short.explained == _case("ared-ecn").explained
    (red,) = select(["red"], True)
    assert dict(red.args)["duration"] == "60s"  # RED's explained difference needs a minute
    assert short.scenario().duration < _case("ared-ecn").scenario().duration
    with pytest.raises(ValueError, match="unknown case 'nope'.*droptail"):
        select(["nope", "red"], False)


def test_a_case_of_several_seeds_compares_their_means():
    """``Case.seeds``: each seed runs (here pertlab only: ns-3 lacks PERT) and the metrics are the
    means of the seeds' runs; Vegas's case runs six, with Linux's slow start on every flow."""
    c = Case("x", "x", tuple(sorted({**dict(_case("pert").args), "duration": "5s", "flows": 3}.items())), seeds=3)
    r = run_case((c, "/no/ns-3/needed"))
    assert r.reference is None and r.missing == "controller 'pert'"
    jains = [pertlab.run(c.scenario(seed)).jain for seed in (1, 2, 3)]
    assert len(set(jains)) > 1 and r.pertlab["jain"] == pytest.approx(sum(jains) / 3)
    # Each seed's metrics are kept beside the means (cases.json), and the docs' block writes them
    # seed by seed.
    assert [m["jain"] for m in r.per_seed["pertlab"]] == jains and "reference" not in r.per_seed
    from pertlab.validate.doc import per_seed_table

    table = per_seed_table({"case": "x", "per_seed": r.per_seed}, "ns-3")
    assert table[0] == "`x` seed by seed (pertlab / ns-3):" and [line.split(" | ")[0] for line in table[4:]] == ["| 1", "| 2", "| 3"]
    assert all(f"{j:.3f}" in line for j, line in zip(jains, table[4:]))
    vegas = _case("vegas")
    assert vegas.seeds == 6 and {f.cc.slow_start_every_other_rtt for f in vegas.scenario(4).flows} == {False}
    assert vegas.scenario(4).seed == 4 and vegas.scenario().seed == 1


def test_the_matrices_in_the_docs_are_generated_from_the_committed_runs():
    """docs/validation.md's matrix blocks are what ``make docs`` writes from docs/validation/ns3
    and docs/validation/kernel, and each run holds every case of its full matrix with its current
    description."""
    import json
    from pathlib import Path

    from pertlab.validate import kernel
    from pertlab.validate.doc import render_page

    docs = Path(__file__).resolve().parents[2] / "docs"
    page = (docs / "validation.md").read_text()
    assert render_page(page, docs) == page
    for folder, full in (("ns3", FULL), ("kernel", kernel.FULL)):
        cases = json.loads((docs / "validation" / folder / "cases.json").read_text())
        assert [(c["case"], c["what"], c["seeds"]) for c in cases] == [(c.name, c.what, c.seeds) for c in full], folder
    # The kernel run is of today's cases (test_validate_kernel_sim.py reruns its simulator half).
    rows = json.loads((docs / "validation" / "kernel" / "rows.json").read_text())
    assert {r["case"] for r in rows} == {c.name for c in kernel.FULL} and len(rows) == 6 * len(kernel.FULL)


def test_the_committed_kernel_run_shows_what_the_prose_says():
    """docs/validation.md, the kernel matrix: `pert-reno`'s Jain indexes spread over about the
    tolerance or less on each side (at most 1.5 times it) and their means agree; `reno-5mbps`'s
    simulated flows are in lock-step (each retransmits as many segments as the others) and drop
    less than the kernel, by well under the tolerance (5 % to 20 % less, against 25 %); the end-host
    table's send overheads carry the simulator's drops past the kernel's."""
    import json
    from pathlib import Path

    kernel = Path(__file__).resolve().parents[2] / "docs" / "validation" / "kernel"
    cases = {c["case"]: c for c in json.loads((kernel / "cases.json").read_text())}
    rows = {(r["case"], r["metric"]): r for r in json.loads((kernel / "rows.json").read_text())}
    jain = TOLERANCES["jain"]
    for side in ("pertlab", "reference"):
        seeds = [m["jain"] for m in cases["pert-reno"]["per_seed"][side]]
        assert len(seeds) == 4 and max(seeds) - min(seeds) <= 1.5 * jain.absolute, (side, seeds)
    assert rows[("pert-reno", "jain")]["verdict"] == "agrees"
    drops = rows[("reno-5mbps", "drop_rate")]
    assert 0.8 <= drops["pertlab"] / drops["reference"] <= 0.95, drops
    columns = json.loads((kernel / "end_host_timing.json").read_text())["cases"]["reno-5mbps"]["columns"]
    retransmits = columns["simulator"]["retransmits"]["reno"]
    assert len(retransmits) == 10 and len(set(retransmits)) == 1, retransmits
    assert all(columns[f"overhead_{ms}ms"]["drops"] > columns["testbed"]["drops"] for ms in (1, 5)), columns


@pytest.mark.parametrize(
    ("sim_rate", "closed", "said"),
    [
        (0.0745, 0.5, "agree with the kernel's (745 against 760, drop rates within 0.2 %), no gap to close"),
        (0.0575, 0.5, "of the gap in drops (575 against the kernel's 760, a gap within `drop_rate`'s tolerance), the send overhead closes 1 ms 50 %"),
        (0.0500, 0.5, "of the gap in drops (500 against the kernel's 760), the send overhead closes 1 ms 50 %"),
        (0.0500, 1.5, "the send overhead closes 1 ms 150 % (past the kernel's: 890 drops)"),
    ],
)
def test_the_end_host_table_says_how_much_of_a_gap_the_overhead_closes(sim_rate: float, closed: float, said: str):
    """A gap of drop rates no larger than drop_rate's absolute tolerance is none; a larger one is
    a gap, said to lie within the relative tolerance when it does (lock-step's is about its size);
    an overhead that closes more than the gap (`closed` > 1) is said to carry the drops past the kernel's."""
    from pertlab.validate.end_host import _closed

    column = lambda rate: {"drops": round(rate * 10_000), "drop_rate": rate}  # noqa: E731
    sim = column(sim_rate)
    overhead = column(sim_rate + (0.076 - sim_rate) * closed)
    text = _closed({"columns": {"testbed": column(0.076), "simulator": sim, "overhead_1ms": overhead}}, [1])
    assert said in text and ("past" in text) == ("past" in said), text


@pytest.mark.parametrize("real", [None, SimpleNamespace(interrupted=True)], ids=["simulation", "testbed"])
def test_an_interrupted_kernel_case_is_not_kept(tmp_path, monkeypatch, real):
    """``testbed compare`` returns no testbed results (the simulation was interrupted) or
    interrupted ones: ``validate kernel`` stops as on Ctrl-C (exit 130) and keeps nothing,
    where it read whatever result files the case's folder held."""
    monkeypatch.setattr(testbed, "support_problem", lambda needs_pert: None)
    monkeypatch.setattr(linux_compare, "compare", lambda sc, out, side: ("report", real))
    r = CliRunner().invoke(app, ["validate", "kernel", "--quick", "--out", str(tmp_path)])
    assert r.exit_code == 130 and r.stderr.startswith("interrupted: finished cases are kept in"), r.output
    assert not (tmp_path / "runs").exists()


def test_identical_flows_in_lock_step_are_warned_about():
    """Ten identical SACK flows, 5 Mbit/s, 40 ms, one BDP: each responds to loss the same
    number of times (docs/validation.md, 'End-host timing'); ns-2's overhead_ breaks it."""
    kw = {"bw": "5Mbps", "rtt": "40ms", "flows": 10, "cc": "sack", "duration": "60s", "warmup": "10s", "start_window": 0, "buffer_pkts": 17}
    locked = pertlab.run(pertlab.dumbbell(**kw))
    events = (locked.flows["fast_recoveries"] + locked.flows["timeouts"]).to_list()
    assert len(set(events)) == 1 and events[0] >= 100
    assert len(locked.warnings) == 1 and f"the 10 identical sack flows each responded to loss exactly {events[0]} times" in locked.warnings[0]
    jittered = pertlab.run(pertlab.dumbbell(**kw, tcp={"overhead": "1ms"}))
    assert len(set((jittered.flows["fast_recoveries"] + jittered.flows["timeouts"]).to_list())) > 1
    assert jittered.warnings == []
    assert jittered.bottleneck["drops"] > 1.1 * locked.bottleneck["drops"]


def test_newreno_flows_share_evenly_without_spurious_recoveries():
    """docs/validation.md, 'NewReno without SACK': on the `newreno` case, with RFC 6582's check
    of `recover` (duplicate ACKs for data sent before a timeout start no fast retransmit) and
    Linux's count of duplicate ACKs after a timeout, the flows resend 1.1 to 1.3 segments per drop
    and share evenly on seeds 1 to 3 (before the check, seed 1: 2.3 per drop, one flow 1307 for
    300 drops, Jain 0.838)."""
    plain = _case("newreno")
    for seed in (1, 2, 3):
        r = pertlab.run(plain.scenario(seed))
        resent = r.flows["retransmits"].sum() / r.flows["drops"].sum()
        assert 1.0 <= resent <= 1.3 and r.jain >= 0.95, (seed, resent, r.jain)


def test_a_newreno_flow_locked_in_timer_back_off():
    """docs/validation.md, 'NewReno without SACK': on seed 4 of the `newreno` case one flow's
    resends are lost again and again, and with the case's echo samples Karn's rule keeps the
    timer backed off: that flow waits more than 30 s of the window in timeouts, and the index
    falls below 0.95. With Linux's samples, which end the back-off at every sample, no flow
    waits a second, and the index is back above 0.95."""
    base = _case("newreno").scenario(4)
    waits = {}
    for mode in ("echo", "linux"):
        flows = [f.model_copy(update={"tcp": f.tcp.model_copy(update={"rtt_samples": mode})}) for f in base.flows]
        r = pertlab.run(base.model_copy(update={"flows": flows}))
        waits[mode] = (r.flows["rto_wait_s"].max(), r.jain)
    assert waits["echo"][0] > 30 and waits["echo"][1] < 0.95, waits
    assert waits["linux"][0] < 1 and waits["linux"][1] > 0.95, waits


def test_lock_step_check_reads_each_flow_s_path_from_its_nodes():
    """Found by the generated scenarios: flows that share a pair of a dumbbell with per-pair
    delays (here seven flows on s0 -> d0 of four pairs) made the check index the delays by
    flow number, an IndexError when the summary was read."""
    scenario = pertlab.Scenario.parse({
        "duration": "2s",
        "dumbbell": {"pairs": 4, "bottleneck_rate": "10Mbps", "bottleneck_delay": "5ms", "access_rate": "100Mbps",
                     "sender_access_delay": ["1ms"], "receiver_access_delay": ["1ms", "2ms", "3ms", "4ms"]},
        "flows": [{"src": "s0", "dst": "d0"}] * 6 + [{"src": "s3", "dst": "d3"}],
    })  # fmt: skip
    results = pertlab.run(scenario)
    assert results.summary["conservation"]["ok"] and isinstance(results.warnings, list)
    assert lockstep._path(scenario, 0) == (("s", 1_000_000), ("d", 1_000_000)) != lockstep._path(scenario, 6) == (("s", 1_000_000), ("d", 4_000_000))
