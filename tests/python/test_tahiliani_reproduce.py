"""`pertlab reproduce tahiliani-ch4-* --quick`: the thesis's Chapter 4 claims on quick data
(Figs. 4.4 to 4.9, 4.17 to 4.20), and for each claim that does not hold, a check of our
explanation on the same runs."""

from __future__ import annotations

import polars as pl

from pertlab.experiments import tahiliani_ch4 as ch4
from pertlab.parallel import Workers
from pertlab.reproduce import get


def _report(name, tmp_path):
    report = get(name).report(True, tmp_path, Workers(jobs=1))
    assert (tmp_path / "index.html").is_file() and (tmp_path / f"{name}.png").is_file()
    return report, {c.text: c for c in report.claims}


def _failing(claims) -> set[str]:
    return {t for t, c in claims.items() if not c.holds}


def test_surathkal_throughput_not_below_sack_in_the_capacity_sweep(tmp_path):
    report, claims = _report("tahiliani-ch4-capacity", tmp_path)
    assert len(claims) == 2
    for c in report.claims:
        assert c.holds, f"{c.text}: {c.evidence}"
    comp = report.tables["comparison"]
    assert comp.height == 3 and set(comp.columns) >= {"sack", "surathkal", "gain_pct", "thesis_max_gain_pct"}
    # Both fill most of the link: the gain is not an artefact of a starved SACK.
    runs = report.tables["runs"]
    assert runs["utilization"].min() > 0.85
    # Surathkal reduces often and a little, SACK rarely and by half.
    by = {r["cc"]: r for r in runs.filter(runs["bw_mbps"] == 8.0).to_dicts()}
    assert by["surathkal"]["ecn_reductions"] > 5 * by["sack"]["ecn_reductions"]


def test_rtt_sweep_sack_degrades_with_delay_and_surathkal_barely(tmp_path):
    report, claims = _report("tahiliani-ch4-rtt", tmp_path)
    assert len(claims) == 4
    for c in report.claims:
        assert c.holds, f"{c.text}: {c.evidence}"
    comp = report.tables["comparison"].sort("delay_ms")
    gains = comp["gain_pct"].to_list()
    # The gain grows with the delay (SACK's halving costs more at a longer RTT).
    assert gains == sorted(gains) and gains[-1] > 5.0
    assert comp["surathkal"].min() > 0.95 * 8 * ch4.PAYLOAD_BYTES / ch4.WIRE_BYTES


def test_fairness_classes_converge_and_the_result_does_not_rest_on_phase_effects(tmp_path):
    report, claims = _report("tahiliani-ch4-fairness", tmp_path)
    assert len(claims) == 6
    comp = report.tables["comparison"]
    plain = comp.filter(pl.col("variant") == "plain").sort("flows")
    over = comp.filter(pl.col("variant") == "overhead").sort("flows")
    # Phase effects (Floyd and Jacobson 1992): random send overhead changes the index by little.
    assert (plain["jain_classes"] - over["jain_classes"]).abs().max() < 0.02
    # Within each class the flows share evenly: the per-flow and per-class readings agree.
    assert (plain["jain_flows"] - plain["jain_classes"]).abs().max() < 0.01
    assert plain["jain_sack"].min() > 0.99 and plain["jain_surathkal"].min() > 0.98
    # Known difference: at 32 flows our index sits at the 90 % threshold, just under it with alpha
    # from the previous window (Option A, the claims' reading) and over it with alpha at the end of
    # the marked window (Option B): the thesis's number does not separate the two readings.
    known = {t for t in claims if t.startswith("Fairness above 90%")}
    assert _failing(claims) <= known, _failing(claims) - known
    at32 = {r["variant"]: r["jain_classes"] for r in comp.filter(pl.col("flows") == 32).to_dicts()}
    assert 0.85 < at32["plain"] < 0.9 < at32["end_of_window"] < 0.95, at32


def test_stability_surathkal_swings_less_and_holds_ared_in_its_band(tmp_path):
    report, claims = _report("tahiliani-ch4-stability", tmp_path)
    assert len(claims) == 6
    # Known difference: Surathkal's band sits a few packets lower than the thesis's 55..70. Its level
    # is set by the path, not the controller: two windows sum to the BDP plus the queue (below),
    # so 55..70 (mean ~62) would need ARED's avg near 21 packets, above its max_th of 15.
    known = {t for t in claims if t.startswith("Surathkal's cwnd stays within")}
    assert _failing(claims) <= known, _failing(claims) - known
    m = {r["cc"]: r for r in report.tables["comparison"].to_dicts()}
    bdp_pkts = ch4.S4A_RATE_MBPS * 1e6 * 0.108 / (8 * ch4.WIRE_BYTES)
    k = m["surathkal"]
    assert abs(2 * k["cwnd_mean"] / (bdp_pkts + k["avg_mean"]) - 1) < 0.05, k
    assert m["sack"]["cwnd_swing"] > 3 * k["cwnd_swing"]
    series = report.tables["cwnd_series"]
    assert set(series["cc"].unique()) == {"sack", "surathkal"} and series.height > 300


def test_wireless_claims_and_the_explanations_of_the_differences(tmp_path):
    report, claims = _report("tahiliani-ch4-wireless", tmp_path)
    assert len(claims) == 6
    held = {t for t, c in claims.items() if c.holds}
    assert any(t.startswith("Fig. 4.18") for t in held)
    runs = report.tables["runs"]
    rate = runs.filter(pl.col("sweep") == "rate")
    # Known difference 1 (Fig. 4.17): without errors SACK keeps the hop busy (the path's BDP, ~30
    # packets, sits below the 50-packet buffer), so no controller can gain more than 1/u - 1 < 1 %.
    assert rate.filter(pl.col("config") == "sack_ecn")["utilization"].min() > 0.99
    err = runs.filter((pl.col("sweep") == "error") & (pl.col("error") >= 0.02))
    # Known difference 2 (Fig. 4.19): with 2 % errors or more the queue stays nearly empty, ARED
    # marks nothing, so ECN and XECN have nothing to say: SACK with and without ECN and Surathkal
    # (halving on loss) behave alike.
    for cfg in ("surathkal", "sack_ecn"):
        t = err.filter(pl.col("config") == cfg)
        assert t["ecn_reductions"].max() == 0 and t["avg_queue_pkts"].max() < 1.0, cfg
    e = report.tables["error_sweep"].filter(pl.col("error") >= 0.02)
    assert (e["surathkal"] / e["sack_noecn"] - 1).abs().max() < 0.005
    # Known difference 3 (Fig. 4.20): Westwood+ is well above Surathkal, and losing ACKs is not
    # what costs it: with errors on the data only it does at most 15 % better.
    assert (e["westwood"] / e["surathkal"]).min() > 1.3
    assert (e["westwood"] / e["westwood_data_errors"]).min() > 0.85
    # The thesis's prose reading (channel losses keep the window) does not rescue Surathkal here.
    assert (e["surathkal_xecn_only"] < e["westwood"]).all()
    known = {t for t in claims if t.startswith(("Fig. 4.17", "Fig. 4.19", "Fig. 4.20"))}
    assert _failing(claims) == known, _failing(claims) ^ known


def _suite(name, tmp_path, n_claims, points):
    """Run an evaluation-suite entry in quick mode: its claims by text and its means as
    {(point, cc): row}, after checking the number of claims and the quick grid."""
    report, claims = _report(name, tmp_path)
    assert len(claims) == n_claims
    means = report.tables["means"]
    x = "bw" if "bw" in means.columns else "rtt"
    m = {(r[x], r["cc"]): r for r in means.to_dicts()}
    assert sorted({k[0] for k in m}) == points
    return claims, m


TCP_VARIANTS = ("surathkal", "sack", "hstcp", "scalable", "cubic")


def _surathkal_drops_explained(m, points):
    """pertlab's explanation of Surathkal's drop rate, measured on the quick runs: its drop rate is
    above SACK's at every point, and there the UDP sources (not ECN-capable: ARED can only drop
    them) lose a larger fraction under Surathkal, as the report's claim reads it."""
    for p in points:
        sur, sack = m[(p, "surathkal")], m[(p, "sack")]
        assert sur["drop_rate"] > sack["drop_rate"] and sur["udp_loss"] > sack["udp_loss"], (p, sur, sack)


def _lowest_tcp_queue(m, p):
    return min(m[(p, c)]["queue_pct"] for c in TCP_VARIANTS)


def test_evaluation_suite_bandwidth_sweep(tmp_path):
    points = [10.0, 50.0, 200.0]
    claims, m = _suite("tahiliani-ch4-suite-bw", tmp_path, 13, points)
    for text in ("XCP has the highest utilization above 100 Mbit/s.",
                 "Surathkal's drop rate is somewhat higher than the other TCP variants' (above their median) below 100 Mbit/s."):  # fmt: skip
        assert claims[text].holds, claims[text].evidence
    _surathkal_drops_explained(m, points)
    # XCP's queue is the bursts of ACK-compressed windows (the explanation covers 50 Mbit/s and up):
    # there unpaced XCP holds over 3 times the lowest TCP variant's queue, paced XCP under a third of
    # it, with the link at least as busy (within 0.05).
    for p in (50.0, 200.0):
        xcp, paced = m[(p, "xcp")], m[(p, "xcp-paced")]
        assert xcp["queue_pct"] > 3 * _lowest_tcp_queue(m, p) and paced["queue_pct"] < _lowest_tcp_queue(m, p) / 3, p
        assert paced["utilization"] >= xcp["utilization"] - 0.05, p
    # Known differences (docs/reproductions.md, "the TCP evaluation suite"). Surathkal's utilization
    # lead is among them only in quick mode: 30 s runs at 200 Mbit/s end before it fills the link
    # (it holds in the full report).
    known = {t for t in claims if t.startswith(("STCP has", "The mean queue is about", "XCP's mean queue", "Surathkal's drop rate is similar",
                                                 "SACK performs", "pertlab's test of XCP", "Surathkal's utilization beats"))}  # fmt: skip
    assert _failing(claims) <= known, _failing(claims) - known


def test_evaluation_suite_rtt_sweep(tmp_path):
    points = [10.0, 100.0, 800.0]
    claims, m = _suite("tahiliani-ch4-suite-rtt", tmp_path, 12, points)
    assert claims["Surathkal's utilization is the highest of the TCP variants above 100 ms (every point)."].holds
    _surathkal_drops_explained(m, points)
    # At 10 Mbit/s pacing brings XCP's queue below every TCP variant's at every RTT, but by half at
    # few points: in packets both are a few there (the claim "what holds paced XCP's queue up").
    for p in points:
        assert m[(p, "xcp-paced")]["queue_pct"] < _lowest_tcp_queue(m, p), p
    # The thesis's two sweeps disagree at 10 Mbit/s: in these runs Surathkal drops more than every
    # other TCP variant at each RTT, as the bandwidth sweep's text says and against the RTT sweep's
    # (the full report: at all but two of its eight RTTs).
    for p in points:
        assert m[(p, "surathkal")]["drop_rate"] > max(m[(p, c)]["drop_rate"] for c in ("sack", "hstcp", "scalable", "cubic")), p
    # Known differences (docs/reproductions.md); "SACK and STCP degrade sharply" holds in the full
    # report, while in quick mode's 30 s runs STCP loses slightly less than Surathkal.
    known = {t for t in claims if t.startswith(("Surathkal's utilization beats XCP", "Surathkal has the lowest mean queue", "CUBIC and STCP",
                                                 "Surathkal's drop rate is below", "CUBIC's drop rate", "pertlab's test of XCP", "SACK and STCP"))}  # fmt: skip
    assert _failing(claims) <= known, _failing(claims) - known
