"""`pertlab reproduce tahiliani-ch4-capacity --quick`: the thesis's Fig. 4.4 claim on quick data."""

from __future__ import annotations

from pertlab.parallel import Workers
from pertlab.reproduce import get


def test_surathkal_throughput_not_below_sack_in_the_capacity_sweep(tmp_path):
    report = get("tahiliani-ch4-capacity").report(True, tmp_path, Workers(jobs=1))
    claims = {c.text: c for c in report.claims}
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
    assert (tmp_path / "index.html").is_file() and (tmp_path / "tahiliani-ch4-capacity.png").is_file()
