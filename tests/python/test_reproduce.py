"""Reproductions in quick mode: the registry, the report folder, and the thesis's claims."""


import polars as pl
import pytest
from typer.testing import CliRunner

from pertlab.cli import app
from pertlab.experiments import tahiliani_ch3 as ch3

import strict_json

runner = CliRunner()


def test_list_names_every_reproduction():
    res = runner.invoke(app, ["reproduce", "--list", "--json"])
    assert res.exit_code == 0, res.output
    assert {"tahiliani-ch3-flows", "tahiliani-ch3-sharp-increase"} <= set(strict_json.loads(res.stdout))


def test_unknown_reproduction_is_an_error_naming_the_known_ones():
    res = runner.invoke(app, ["reproduce", "sigcomm07-fig99"])
    assert res.exit_code == 2 and "tahiliani-ch3-flows" in res.output


def test_chapter3_flows_report_with_the_thesis_numbers_beside_ours(tmp_path):
    res = runner.invoke(app, ["reproduce", "tahiliani-ch3-flows", "--quick", "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    for name in ("index.html", "versus_flows.png", "comparison.parquet", "runs.parquet", "scenarios.json"):
        assert (tmp_path / name).is_file(), name
    cmp = pl.read_parquet(tmp_path / "comparison.parquet")
    assert cmp.height == 4 * len(ch3.THESIS_FLOWS)
    row = cmp.filter((pl.col("controller") == "ared") & (pl.col("flows") == 30)).row(0, named=True)
    assert row["thesis_drop_percent"] == 3.50 and row["thesis_throughput_kbps"] == 9175
    assert row["drop_diff_points"] == row["drop_percent"] - 3.50
    runs = pl.read_parquet(tmp_path / "runs.parquet")
    assert runs["conservation_ok"].all()
    # RED keeps the bottleneck busy at every load (the thesis: above 91 %).
    assert (runs["throughput_kbps"] > 9100).all()
    assert runs.height == 4 * len(ch3.THESIS_FLOWS) * len(ch3.QUICK.seeds)
    claims = {c["text"]: c for c in strict_json.loads(res.stdout)["claims"]}

    def claim(start: str) -> dict:
        return next(c for t, c in claims.items() if t.startswith(start))

    # What holds (docs/reproductions.md, tahiliani-ch3-flows):
    for start in (
        "The drop rate of every controller grows",
        "As the number of flows grows, ARED leaves",
        "With many flows",  # Scenario 1: Re-ARED, then CARED, then ARED back in the band
        "ARED brings the average back first exactly where",  # the mechanism of the order
        "FARED converges much more slowly",
        # Chapter 3's CARED claim in the form Table 3.9 itself supports (issue 16): within
        # 0.6 points of the others with differences of both signs.
        "What Table 3.9 itself shows",
    ):
        assert claim(start)["holds"], (start, claim(start)["evidence"])
    # FARED's throughput gains of Table 3.5 (up to 0.20 %): here FARED is lowest at 20-30
    # flows (by 70 kbit/s in the full run), significantly so.
    assert not claim("FARED's throughput is not below")["holds"], claim("FARED's throughput is not below")["evidence"]
    # What does not: CARED drops slightly (0.01-0.03 points) but significantly more than
    # Re-ARED at 10 and 20 flows, and is nowhere significantly below both.
    for start in ("CARED's drop rate is not above", "CARED \"consistently minimizes"):
        assert not claim(start)["holds"], (start, claim(start)["evidence"])
    d = ch3.paired_differences(runs, "drop_percent", "cared", ("reared",)).filter(pl.col("flows") == 20).row(0, named=True)
    assert 0 < d["cared_minus_reared"] - d["cared_minus_reared_ci95"] and d["cared_minus_reared"] < 0.1
    html = (tmp_path / "index.html").read_text()
    assert "thesis_drop_percent" in html and "<img src='versus_flows.png'" in html


def test_chapter3_gentle_mode_decides_the_sign_of_fareds_throughput_difference(tmp_path):
    """tahiliani-ch3-gentle in quick mode (20, 30, 40 flows, 10 seeds): pertlab's test of why
    FARED's throughput falls below ARED's and Re-ARED's in tahiliani-ch3-flows."""
    res = runner.invoke(app, ["reproduce", "tahiliani-ch3-gentle", "--quick", "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    claims = [(c["holds"], c["evidence"]) for c in strict_json.loads(res.stdout)["claims"]]
    mechanism, sign_turns, table35_plain, table36_plain, idle_above, timeouts = claims
    # With the gentle region FARED, whose max_p is the lowest, leaves the average above max_th
    # longest and loses throughput; without it FARED gains over both (Table 3.5's sign) ...
    assert mechanism[0] and sign_turns[0] and table35_plain[0], claims
    # ... but then drops significantly more than ARED, against Table 3.6.
    assert not table36_plain[0], table36_plain[1]
    # The lost throughput is idle time, most of it while the average is above max_th, and at
    # 20-40 flows not through more timeouts (the full run's 50 flows, not run here, differ).
    assert idle_above[0] and timeouts[0], (idle_above, timeouts)
    runs = pl.read_parquet(tmp_path / "runs.parquet")
    assert runs.height == 2 * 3 * 3 * 10 and runs["conservation_ok"].all()
    assert set(runs["gentle"]) == {True, False}
    d = pl.read_parquet(tmp_path / "differences.parquet").filter(pl.col("gentle") & (pl.col("flows") == 30)).row(0, named=True)
    # The thesis's own differences ride along: FARED 9186 against ARED 9175 kbit/s, 2.42 against 3.50 %.
    assert (d["thesis_tput_ared"], d["thesis_drop_ared"]) == (11, -1.08)
    assert (tmp_path / "fared_minus_others.png").is_file()


def test_return_time_on_a_hand_made_average():
    # 10 samples per second, so the 1-s moving mean covers 10 samples: with k samples at 20
    # (or 0) among 10s it is 10 + k (or 10 - k), outside [9, 11] from k = 2 and back at k = 1.
    t = [i / 10 for i in range(100)]
    up = pl.DataFrame({"t_s": t, "avg": [20.0 if 2.0 <= x < 6.0 else 10.0 for x in t]})
    down = up.with_columns((20.0 - pl.col("avg")).alias("avg"))
    # The last 20 is at t = 5.9; from t = 6.8 the window holds only that one.
    assert ch3.return_time(up, after_s=0.0) == pytest.approx(6.8)
    assert ch3.return_time(down, after_s=0.0, side="below") == pytest.approx(6.8)
    # Leaving the band on the other side does not count; never coming back is None.
    assert ch3.return_time(up, after_s=0.0, side="below") == 0.0
    assert ch3.return_time(up.filter(pl.col("t_s") < 5.0), after_s=0.0) is None


def test_chapter3_sharp_increase_order_and_its_mechanism(tmp_path):
    res = runner.invoke(app, ["reproduce", "tahiliani-ch3-sharp-increase", "--quick", "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    report = strict_json.loads(res.stdout)
    def claim(start: str) -> dict:
        return next(c for c in report["claims"] if c["text"].startswith(start))

    # On Floyd et al.'s network, which the thesis cites for this scenario, its order holds:
    # Re-ARED back first, CARED next, ARED last, FARED not at all; the thesis's one-run gap of
    # 5 s is a typical one of ours. (The mean gap, 6.5 +- 1.2 s on these 30 seeds and
    # 5.6 +- 1.0 s on 100, is a lower bound; docs/reproductions.md.)
    for start in (
        "FARED fails to bring",
        "Re-ARED brings the average back faster",
        "ARED takes 5 s longer than Re-ARED in the thesis's one run",
        "CARED is faster than ARED and slower",
        "Re-ARED's increase of max_p is the larger",  # the mechanism of the order ...
        "On S3-A's 10 Mbps",  # ... which also predicts the reversed order on S3-A's network
    ):
        assert claim(start)["holds"], (start, claim(start)["evidence"])
    means = pl.read_parquet(tmp_path / "means.parquet")
    back = dict(zip(means["controller"], means["return_s"]))
    assert back["reared"] < back["cared"] < back["ared"] < back["fared"]
    s3a = pl.read_parquet(tmp_path / "means_s3a_network.parquet")
    back_s3a = dict(zip(s3a["controller"], s3a["return_s"]))
    assert back_s3a["ared"] < back_s3a["cared"] < back_s3a["reared"]
    assert (tmp_path / "average_queue.png").read_bytes()[:4] == b"\x89PNG"


def test_chapter3_sharp_decrease_report(tmp_path):
    res = runner.invoke(app, ["reproduce", "tahiliani-ch3-sharp-decrease", "--quick", "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    runs = pl.read_parquet(tmp_path / "runs.parquet")
    assert runs.height == 4 * 10
    # The two flows left have windows of up to 15 segments on a path that holds about 9
    # packets: they can refill the queue, and every run's average is back up in the band.
    assert runs["return_s"].is_not_null().all()
    claims = {c["text"]: c for c in strict_json.loads(res.stdout)["claims"]}

    def claim(start: str) -> dict:
        return next(c for t, c in claims.items() if t.startswith(start))

    # What does not hold here (docs/reproductions.md): Re-ARED keeps the link busier than ARED,
    # whose max_p stays high longest; CARED is not back before ARED; FARED is back first.
    for start in ("With Re-ARED the queue empties", "CARED brings the average back", "FARED does not bring"):
        assert not claim(start)["holds"], (start, claim(start)["evidence"])
    assert (tmp_path / "average_queue.png").read_bytes()[:4] == b"\x89PNG"


def test_chapter3_fixed_flows_oscillations(tmp_path):
    res = runner.invoke(app, ["reproduce", "tahiliani-ch3-fixed-flows", "--quick", "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    stats = {r["controller"]: r for r in pl.read_parquet(tmp_path / "statistics.parquet").iter_rows(named=True)}
    # Thesis, Scenario 2: Re-ARED's narrower band gives smaller oscillations than ARED's,
    # and every controller keeps the average between the thresholds (20, 80).
    assert stats["reared"]["avg_std_pkts"] < stats["ared"]["avg_std_pkts"]
    assert all(20 < s["avg_mean_pkts"] < 80 for s in stats.values())
    # max_p stays within ARED's bounds [0.01, 0.5] for the whole family.
    assert all(0.01 <= s["max_p_mean"] <= 0.5 for s in stats.values())
    for name in ("average_queue.png", "max_p.png", "index.html"):
        assert (tmp_path / name).is_file()


def test_chapter3_background_scenario_3(tmp_path):
    res = runner.invoke(app, ["reproduce", "tahiliani-ch3-background", "--quick", "--jobs", "2", "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    claims = {c["text"][:30]: c for c in strict_json.loads(res.stdout)["claims"]}
    # The claim that holds here (docs/reproductions.md explains the three that do not).
    cared = next(c for t, c in claims.items() if t.startswith("CARED's max_p varies least"))
    assert cared["holds"], cared["evidence"]
    with_bg = {r["controller"]: r for r in pl.read_parquet(tmp_path / "statistics.parquet").iter_rows(named=True)}
    without = {r["controller"]: r for r in pl.read_parquet(tmp_path / "without_background.parquet").iter_rows(named=True)}
    # The background traffic makes every controller's average swing more than in Scenario 2.
    assert all(with_bg[k]["avg_std_pkts"] > without[k]["avg_std_pkts"] for k in ch3.CONTROLLERS if k != "fared")
    # The scenario has the web sessions and the reverse flow the thesis describes.
    s = ch3.fixed_flows_scenario("ared", background=True).to_wire()
    assert s["web"][0]["sessions"] == 20 and s["flows"][-1]["src"].startswith("d")
