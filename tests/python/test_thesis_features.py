"""Scenario features and metrics for Kotla's thesis (adaptive PERT vs SACK):
RTT noise, flows leaving and rejoining, labels and per-controller metrics with
the drop ratio, queue positions, mixes in percentages, buffer in BDPs."""

from __future__ import annotations

import json
import math

import polars as pl
import pytest
from conftest import small_dumbbell
from typer.testing import CliRunner

import pertlab
from pertlab import Results, Scenario, ScenarioError, drop_ratio
from pertlab.builders import NS2_TCP, parse_cc_mix
from pertlab.cli import app


def two_hosts(flow: dict, **top) -> Scenario:
    """One flow on a 10 Mbps / 40 ms dumbbell, buffer 50, for 12 s."""
    data = {
        "duration": "12s",
        "dumbbell": {
            "pairs": 1, "bottleneck_rate": "10Mbps", "bottleneck_delay": "18ms", "access_rate": "100Mbps",
            "sender_access_delay": ["1ms"], "receiver_access_delay": ["1ms"], "bottleneck_queue": {"limit_pkts": 50},
        },
        "flows": [{"src": "s0", "dst": "d0", "start": 0, **flow}],
        **top,
    }  # fmt: skip
    return Scenario.parse(data)


def errors(fn) -> dict[str, str]:
    with pytest.raises(ScenarioError) as e:
        fn()
    return dict(e.value.errors)


# --- RTT noise ------------------------------------------------------------------


def test_rtt_noise_is_a_time_and_goes_to_the_wire_in_ns():
    s = two_hosts({"tcp": {"rtt_noise": "5ms"}})
    assert s.flows[0].tcp.rtt_noise == 5_000_000
    assert s.to_wire()["flows"][0]["tcp"]["rtt_noise_ns"] == 5_000_000
    assert Scenario.from_json(s.to_wire_json()) == s
    assert pertlab.TcpConfig().rtt_noise == 0
    assert "flows[0].tcp.rtt_noise" in errors(lambda: two_hosts({"tcp": {"rtt_noise": "-1ms"}}))


def test_rtt_noise_adds_its_mean_on_an_uncongested_path():
    # 100 Mbps, windows of 10 segments: no queue beyond the flow's own packets.
    def rtt(noise: str) -> dict:
        s = pertlab.dumbbell(bw="100Mbps", rtt="40ms", flows=1, duration="12s", start_window=0, warmup="2s",
                             tcp={"max_cwnd": 10, "rtt_noise": noise})  # fmt: skip
        return pertlab.run(s).data["flows"][0]

    quiet, noisy = rtt("0ms"), rtt("10ms")
    assert 40.0 <= quiet["rtt_mean_ms"] < 41.5
    assert noisy["rtt_samples"] == quiet["rtt_samples"] > 2000
    # Same samples plus U(0, 20 ms): standard error of the mean noise 20 / sqrt(12 n) ms.
    tol = 5 * 20 / math.sqrt(12 * noisy["rtt_samples"])
    assert abs(noisy["rtt_mean_ms"] - quiet["rtt_mean_ms"] - 10.0) < tol


# --- send overhead (ns-2 overhead_) ----------------------------------------------


def test_send_overhead_is_a_time_and_goes_to_the_wire_in_ns():
    s = two_hosts({"tcp": {"overhead": "1ms"}})
    assert s.flows[0].tcp.overhead == 1_000_000
    assert s.to_wire()["flows"][0]["tcp"]["overhead_ns"] == 1_000_000
    assert pertlab.TcpConfig().overhead == 0
    assert "flows[0].tcp.overhead" in errors(lambda: two_hosts({"tcp": {"overhead": "-1us"}}))


def test_send_overhead_breaks_the_phase_lock_of_an_aimd_pair():
    """Floyd and Jacobson's phase effect, and its remedy: 50 AIMD(2, 1/2) flows (adaptive PERT
    with its early response out of reach and alpha at most 2) against 50 SACK flows, equal 60 ms
    RTTs, drop-tail. AIMD theory gives the AIMD(2) flows sqrt(2) x SACK's rate, a share of
    sqrt(2) / (1 + sqrt(2)) = 0.586. With deterministic timing they get far less; with ns-2's
    random send overhead, close to the theory."""

    def aimd_share(overhead: str) -> float:
        w = pertlab.dumbbell(bw="150Mbps", rtt="60ms", flows=None, cc="pert-adaptive:50,sack:50", duration="150s", warmup="100s",
                             packet_size=1040, buffer_pkts=1125, tcp={**NS2_TCP, "overhead": overhead}).to_wire()  # fmt: skip
        for f in w["flows"][:50]:
            f["cc"] = {"kind": "pert-adaptive", "t_min_ns": 10**10, "t_max_ns": 2 * 10**10, "alpha_max": 2.0, "loss_beta": "half"}
        c = pertlab.run(Scenario.parse(w)).controllers
        return float(c.filter(pl.col("label") == "pert-adaptive")["share"][0])

    locked, broken = aimd_share("0s"), aimd_share("1ms")
    assert locked < 0.45, locked
    assert abs(broken - math.sqrt(2) / (1 + math.sqrt(2))) < 0.05, broken


# --- leaving and rejoining ------------------------------------------------------


def test_off_intervals_are_validated_by_index():
    assert two_hosts({"off": [["2s", "3s"], ["4s", "5s"]]}).flows[0].off == [(2 * 10**9, 3 * 10**9), (4 * 10**9, 5 * 10**9)]
    assert two_hosts({"off_ns": [[2, 3]]}).flows[0].off == [(2, 3)]  # wire name, ns
    assert errors(lambda: two_hosts({"off": [["2s", "3s"], ["5s", "4s"]]})) == {"flows[0].off[1]": "need start < end, got [5s, 4s]"}
    assert "flows[0].off[1]" in errors(lambda: two_hosts({"off": [["2s", "4s"], ["3s", "5s"]]}))
    assert "flows[0].off[0]" in errors(lambda: two_hosts({"start": "2s", "off": [["1s", "3s"]]}))
    assert "flows[0].off[0]" in errors(lambda: two_hosts({"stop": "5s", "off": [["4s", "6s"]]}))


def test_a_flow_that_leaves_delivers_nothing_new_until_it_rejoins():
    def window(lo: str, hi: str) -> dict:
        s = two_hosts({"off": [["4s", "8s"]]}, measure={"start": lo, "end": hi})
        return pertlab.run(s).data["flows"][0]

    assert window("1s", "4s")["goodput_mbps"] > 9.0
    off = window("5s", "8s")
    assert off["goodput_bytes"] == 0 and off["segments_sent"] == 0
    assert window("9s", "12s")["goodput_mbps"] > 9.0


# --- labels, controllers, drop ratio --------------------------------------------


@pytest.fixture(scope="module")
def mixed() -> Results:
    return pertlab.run(small_dumbbell(cc="pert:2,sack:2", duration="20s"))


def test_labels_are_the_names_written_and_controllers_sum_them(mixed):
    assert mixed.flows["label"].to_list() == ["pert", "pert", "sack", "sack"]
    assert mixed.flows["cc"].to_list() == ["pert", "pert", "reno", "reno"]
    c = mixed.controllers
    assert c["label"].to_list() == ["pert", "sack"] and c["flows"].to_list() == [2, 2]
    sums = mixed.flows.group_by("label", maintain_order=True).agg(pl.col("goodput_mbps", "segments_sent", "segments_received", "drops").sum())
    assert c["segments_sent"].to_list() == sums["segments_sent"].to_list()
    assert c["segments_received"].to_list() == sums["segments_received"].to_list()
    assert c["drops"].to_list() == sums["drops"].to_list()
    assert c["goodput_mbps"].to_list() == pytest.approx(sums["goodput_mbps"].to_list(), rel=1e-12)
    assert c["share"].sum() == pytest.approx(1.0, abs=1e-12)
    assert c["share"].to_list() == pytest.approx((sums["goodput_mbps"] / mixed.flows["goodput_mbps"].sum()).to_list())
    assert c["drop_rate"].to_list() == pytest.approx((c["drops"] / (c["segments_received"] + c["drops"])).to_list(), rel=1e-15)
    assert c.row(1, named=True)["drops"] > 0  # SACK overflows the buffer


def test_drop_ratio_is_the_ratio_of_the_drop_rates(mixed):
    rate = dict(mixed.controllers.select("label", "drop_rate").iter_rows())
    assert drop_ratio(mixed, "pert", "sack") == pytest.approx(rate["pert"] / rate["sack"], rel=1e-15)
    assert drop_ratio(mixed, "sack", "sack") == 1.0
    with pytest.raises(ValueError, match="no flows labelled 'vegas'; labels: pert, sack"):
        drop_ratio(mixed, "vegas", "sack")
    zero = Results({"controllers": [{"label": "pert", "drop_rate": 0.01}, {"label": "sack", "drop_rate": 0.0}]})
    assert math.isnan(drop_ratio(zero, "pert", "sack"))
    assert drop_ratio(zero, "sack", "pert") == 0.0


def test_a_label_names_its_flow_and_must_not_be_empty():
    s = two_hosts({"label": "thesis-pert", "cc": "pert"})
    r = pertlab.run(s)
    assert r.flows["label"].to_list() == ["thesis-pert"] and r.controllers["label"].to_list() == ["thesis-pert"]
    assert pertlab.run(two_hosts({"cc": "vegas"})).flows["label"].to_list() == ["vegas"]
    assert "flows[0].label" in errors(lambda: two_hosts({"label": ""}))


def test_controllers_and_queue_positions_are_written_and_read_back(mixed, tmp_path):
    mixed.write(tmp_path)
    assert pl.read_parquet(tmp_path / "controllers.parquet").equals(mixed.controllers)
    assert (tmp_path / "queue_positions.parquet").exists()
    again = Results.read(tmp_path)
    assert again.controllers.equals(mixed.controllers)
    assert again.queue_positions.equals(mixed.queue_positions)


# --- queue positions ------------------------------------------------------------


def test_queue_positions_of_one_flow_lie_in_the_buffer_and_count_every_accepted_packet():
    s = small_dumbbell(flows=1, buffer_pkts=50, duration="20s")
    s.monitor.queue_positions = "bottleneck"
    r = pertlab.run(s)
    qp = r.queue_positions
    assert qp.columns == ["label", "position", "count"]
    assert set(qp["label"]) == {"sack"}
    assert qp["position"].min() >= 1 and qp["position"].max() == 50
    assert (qp["count"] > 0).all() and qp["position"].is_unique().all()
    b = r.bottleneck
    assert (b["from"], b["to"]) == ("r0", "r1")
    assert qp["count"].sum() == b["arrivals"] - b["drops"]


def test_queue_positions_are_empty_unless_asked_and_need_a_known_link():
    assert pertlab.run(small_dumbbell(duration="4s")).queue_positions.is_empty()
    s = small_dumbbell(duration="4s")
    s.monitor.queue_positions = "nowhere"
    assert errors(lambda: pertlab.run(s)) == {"monitor.queue_positions": "no link named `nowhere`"}


# --- mixes in percentages -------------------------------------------------------


def test_percent_mixes_round_by_largest_remainder():
    assert parse_cc_mix("pert:50%,sack:50%", 5) == [("pert", 3), ("sack", 2)]
    assert parse_cc_mix("pert:33%,sack:33%,vegas:34%", 10) == [("pert", 3), ("sack", 3), ("vegas", 4)]
    assert parse_cc_mix("pert:12.5%,sack:87.5%", 8) == [("pert", 1), ("sack", 7)]
    assert parse_cc_mix("pert:0%,sack:100%", 6) == [("pert", 0), ("sack", 6)]
    assert parse_cc_mix("pert:25,sack:25", None) == [("pert", 25), ("sack", 25)]  # counts still work
    for cc, flows in [("pert:50%,sack:50%", 7), ("pert:1%,sack:99%", 3), ("pert:30%,sack:30%,newreno:40%", 11)]:
        assert sum(n for _, n in parse_cc_mix(cc, flows)) == flows


def test_percent_mixes_reject_bad_sums_mixed_forms_and_missing_flows():
    assert errors(lambda: parse_cc_mix("pert:50%,sack:40%", 10)) == {"cc": "the percentages sum to 90, they must sum to 100"}
    assert "not both" in errors(lambda: parse_cc_mix("pert:50%,sack:5", 10))["cc"]
    assert "flows" in errors(lambda: parse_cc_mix("pert:50%,sack:50%", None))
    assert "cc" in errors(lambda: parse_cc_mix("pert:-10%,sack:110%", 10))


def test_dumbbell_with_a_percent_mix_and_a_zero_entry():
    s = pertlab.dumbbell(flows=4, cc="pert:0%,sack:100%", duration="4s", warmup="1s")
    assert [f.label for f in s.flows] == ["sack"] * 4
    s = pertlab.dumbbell(flows=4, cc="pert:75%,newreno:25%", duration="4s", warmup="1s")
    assert [f.label for f in s.flows] == ["pert"] * 3 + ["newreno"]
    assert [f.tcp.sack for f in s.flows] == [True] * 3 + [False]


# --- command line ---------------------------------------------------------------

SMALL = ["--bw", "10Mbps", "--rtt", "40ms", "--flows", "4", "--duration", "6s", "--start-window", "1s", "--warmup", "2s"]


def test_cli_json_has_controllers_and_takes_percentages_and_buffer_bdp():
    runner = CliRunner()
    result = runner.invoke(app, ["dumbbell", *SMALL, "--cc", "pert:50%,sack:50%", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert [c["label"] for c in out["controllers"]] == ["pert", "sack"]
    assert [c["flows"] for c in out["controllers"]] == [2, 2]
    # BDP = 10 Mbit/s x 40 ms / 1500 B = 33.3 packets.
    limits = []
    for bdp in ("1", "2"):
        result = runner.invoke(app, ["dumbbell", *SMALL, "--buffer-bdp", bdp, "--json"], catch_exceptions=False)
        limits.append(json.loads(result.stdout)["bottleneck"]["limit_pkts"])
    assert limits == [33, 67]
    result = runner.invoke(app, ["dumbbell", *SMALL, "--cc", "pert:50%,sack:40%"])
    assert result.exit_code == 2 and "cc: the percentages sum to 90, they must sum to 100" in result.output
