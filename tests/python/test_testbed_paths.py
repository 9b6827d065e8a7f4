"""Issue 22, emulated wide-area paths: the delay line's jitter, order and loss
(``native/delayline.c``), the testbed scenario's ``[path]`` table and its named
profiles (``pertlab.linux.profiles``).

The measurements run UDP probes (``pertlab.linux.probe``) from the sender
namespace to the receiver namespace of a real testbed (root, namespaces, TUN;
skipped, saying what is missing, without them) and compare the one-way delays
and the losses seen at the receiver, and the delay line's own statistics, with
the configured distributions: means and quantiles within 10 %, loss rates within
10 % with enough packets that 10 % is at least 4 standard deviations of the
measured rate. The validation tests need nothing but Python (and a C compiler
for the delay line's own option errors)."""

from __future__ import annotations

import json
import math
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pertlab.linux import build, runs, testbed
from pertlab.linux.profiles import PROFILES
from pertlab.linux.scenario import TestbedScenario, load_scenario
from pertlab.scenario import ScenarioError

from host import late_releases, measured
from test_cli_flags import covers

#: Kernels, namespaces and signals against real time: run alone (pyproject.toml, markers).
pytestmark = pytest.mark.quiet_host

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = testbed.support_problem(needs_pert=False)
needs_testbed = pytest.mark.skipif(PROBLEM is not None, reason=f"testbed: {PROBLEM}")
PROBE_PORT = 5301
RATE_PPS = 10_000


# ---------------------------------------------------------------- validation


def _errors(data: dict) -> str:
    with pytest.raises(ScenarioError) as e:
        TestbedScenario.parse(data)
    return str(e.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"path": {"profile": "mars"}}, "path.profile: unknown path profile 'mars'; known: cn, fr, nz, se, us-dsl, us-cable"),
        ({"path": {"jitter": {"dist": "gauss", "scale": "1ms"}}}, "path.jitter.dist: got 'gauss'; allowed: 'none', 'uniform', 'exponential', 'normal' or 'pareto'"),
        ({"path": {"jitter": {"dist": "uniform"}}}, "path.jitter.scale: required with dist = 'uniform' (the upper bound)"),
        ({"path": {"jitter": {"dist": "normal", "scale": "2ms"}}}, "path.jitter.sd: required with dist = 'normal'"),
        ({"path": {"jitter": {"dist": "uniform", "scale": "2ms", "sd": "1ms"}}}, "path.jitter.sd: only for dist = 'normal', not 'uniform'"),
        ({"path": {"jitter": {"dist": "exponential", "scale": "2ms", "shape": 3}}}, "path.jitter.shape: only for dist = 'pareto', not 'exponential'"),
        ({"path": {"jitter": {"scale": "2ms"}}}, "path.jitter.scale: is not used with dist = 'none'"),
        ({"path": {"jitter": {"dist": "pareto", "scale": "2ms", "shape": 1}}}, "path.jitter.shape: Input should be greater than 1, got 1"),
        ({"path": {"jitter": {"dist": "uniform", "scale": "11s"}}}, "path.jitter.scale: must be at most 10s, got 11s"),
        ({"path": {"jitter": {"dist": "uniform", "scale": "-1ms"}}}, "path.jitter.scale: must be zero or a positive time"),
        ({"path": {"order": "random"}}, "path.order: got 'random'; allowed: 'keep' or 'free'"),
        ({"path": {"loss": {"model": "bursty"}}}, "path.loss.model: got 'bursty'; allowed: 'none', 'bernoulli' or 'gilbert'"),
        ({"path": {"loss": {"model": "bernoulli"}}}, "path.loss.rate: required with model = 'bernoulli'"),
        ({"path": {"loss": {"model": "bernoulli", "rate": 1.5}}}, "path.loss.rate: Input should be less than or equal to 1, got 1.5"),
        ({"path": {"loss": {"model": "gilbert", "p_good_bad": 0.1}}}, "path.loss.p_bad_good: required with model = 'gilbert'"),
        ({"path": {"loss": {"model": "gilbert", "p_good_bad": 0.1, "p_bad_good": 0}}}, "path.loss.p_bad_good: Input should be greater than 0, got 0"),
        ({"path": {"loss": {"model": "gilbert", "p_good_bad": 0.1, "p_bad_good": 0.5, "rate": 0.1}}}, "path.loss.rate: is not used with model = 'gilbert'"),
        ({"path": {"loss": {"model": "bernoulli", "rate": 0.01}}, "bottleneck": {"loss": 0.01}}, "bottleneck.loss: give bottleneck.loss or a [path.loss] table"),
        ({"path": {"profil": "nz"}}, "path: unknown field `profil`"),
        ({"bottleneck": {"delay": "21s"}}, "bottleneck.delay: must be at most 20s (10s each way), got 21s"),
        ({"delayline_rtprio": 100}, "delayline_rtprio: Input should be less than or equal to 99, got 100"),
    ],
)
def test_bad_path_input_names_the_field(data: dict, message: str) -> None:
    assert message in _errors(data)


def test_a_profile_fills_what_the_file_leaves_out() -> None:
    nz = TestbedScenario.parse({"path": {"profile": "nz"}})
    assert (nz.bottleneck.delay, nz.bottleneck.rate) == (175_000_000, 10_000_000)  # the rate stays the scenario's
    assert (nz.path.jitter.dist, nz.path.loss.model, nz.path.order) == ("normal", "bernoulli", "keep")
    cable = TestbedScenario.parse({"path": {"profile": "us-cable", "order": "free", "loss": {"model": "none"}}, "bottleneck": {"delay": "50ms"}})
    assert (cable.bottleneck.delay, cable.bottleneck.rate) == (50_000_000, 6_000_000)  # the access link's rate from the profile
    assert (cable.path.jitter.dist, cable.path.order, cable.loss_rate) == ("pareto", "free", 0.0)
    assert cable.delayline_args() == ["delay_us=25000", "jitter=pareto", "jitter_us=3000", "pareto_shape=2.5", "order=free", "seed=1"]
    # The old bottleneck.loss still works, as a Bernoulli loss.
    assert TestbedScenario.parse({"bottleneck": {"loss": 0.01}}).delayline_args() == ["delay_us=10000", "order=keep", "loss=0.01", "seed=1"]


@pytest.mark.parametrize("name", list(PROFILES))
def test_every_profile_validates_and_has_an_example(name: str) -> None:
    sc = TestbedScenario.parse({"path": {"profile": name}})
    assert sc.bottleneck.delay > 0 and sc.path.jitter.dist != "none" and 0 < sc.loss_rate < 0.01
    assert PROFILES[name].source
    example = ROOT / "examples" / "testbed" / f"path_{name.replace('-', '_')}.toml"
    loaded = load_scenario(example)
    assert loaded.path.profile == name


@covers("testbed profiles", "--sources")
def test_profiles_command_lists_every_profile() -> None:
    from typer.testing import CliRunner

    from pertlab.cli import app

    r = CliRunner().invoke(app, ["testbed", "profiles", "--sources"])
    assert r.exit_code == 0, r.output
    for name in PROFILES:
        assert f"\n{name} " in "\n" + r.output
    assert "source: RTT: Dallas-Paris 130.9 ms" in r.output and "gilbert 0.00398 (bursts of 4)" in r.output


def test_gilbert_stationary_rate() -> None:
    sc = TestbedScenario.parse({"path": {"loss": {"model": "gilbert", "p_good_bad": 0.05, "p_bad_good": 0.5, "loss_bad": 0.8, "loss_good": 0.01}}})
    pi_bad = 0.05 / 0.55
    assert sc.loss_rate == pytest.approx(pi_bad * 0.8 + (1 - pi_bad) * 0.01)


@pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler `cc` (Debian package gcc)")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["jitter=gauss"], "delayline: jitter=gauss: unknown distribution; allowed: none, uniform, exponential, normal, pareto"),
        (["delay_us=-1"], "delayline: delay_us=-1: must be a number from 0 to 10000000"),
        (["loss=2"], "delayline: loss=2: must be a number from 0 to 1"),
        (["order=any"], "delayline: order=any: allowed: keep, free"),
        (["ge_p=0.1"], "delayline: Gilbert-Elliott loss needs both ge_p and ge_r"),
        (["loss=0.1", "ge_p=0.1", "ge_r=0.5"], "delayline: give loss (Bernoulli) or ge_p/ge_r (Gilbert-Elliott), not both"),
        (["pareto_shape=1"], "delayline: pareto_shape=1: must be above 1"),
        (["speed=3"], "delayline: unknown option 'speed'; allowed: delay_us, jitter,"),
        (["10000"], "delayline: '10000': options are KEY=VALUE"),
        (["rtprio=1.5"], "delayline: rtprio=1.5: must be an integer from 0 to 99"),
    ],
)
def test_delayline_bad_options_name_the_option(args: list[str], message: str) -> None:
    """Parsed before the TUN device is opened: no root needed, exit status 2."""
    r = subprocess.run([str(build.build_delayline()), "dlbad0", *args], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and message in r.stderr, r.stderr


@pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler `cc` (Debian package gcc)")
@pytest.mark.parametrize("args", [["loss=5e-324"], ["ge_p=5e-324", "ge_r=1"], ["loss=1e-400"]])
def test_delayline_takes_tiny_probabilities_the_model_accepts(args: list[str]) -> None:
    """A probability that underflows (subnormal 5e-324, or 1e-400, which rounds to 0) is a valid
    number, not an error (the generated testbed scenarios found 5e-324 refused)."""
    r = subprocess.run([str(build.build_delayline()), "--check", *args], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stderr


# ---------------------------------------------------------------- measurements


def _probe(sc: TestbedScenario, count: int, ping: int = 0) -> tuple[dict, dict, list[float]]:
    """Send ``count`` probes across the path of ``sc`` at RATE_PPS; the receiver's
    sequence numbers and one-way delays (us), the delay line's statistics, ping RTTs (ms)."""
    py = sys.executable
    runs.cleanup()
    run = runs.begin()
    tb = testbed.Testbed(sc, run)
    try:
        tb.build()
        recv = tb.popen(tb.rcv, py, "-m", "pertlab.linux.probe", "recv", "--port", str(PROBE_PORT))
        assert recv.stdout and recv.stdout.readline().startswith("ready"), recv.stderr.read() if recv.stderr else ""
        rtts = tb.ping(count=ping, interval=0.01) if ping else []
        send = tb.popen(tb.snd, py, "-m", "pertlab.linux.probe", "send", "--dst", testbed.RCV_IP, "--port", str(PROBE_PORT), "--count", str(count), "--rate", str(RATE_PPS))
        sent = testbed._finish(send, "probe sender", timeout=count / RATE_PPS * 3 + 10)
        assert sent["sent"] == count
        time.sleep(0.5)  # the last probes are still in the delay line
        got = testbed._finish(recv, "probe receiver")
    finally:
        tb.close()
        runs.finish(run)
    assert tb.delayline_stats, "the delay line printed no statistics"
    assert not set(tb.namespaces) & set(runs.list_namespaces())
    return got, {**tb.delayline_stats, "receives_on_one_cpu": tb.steered}, rtts


def _probe_measured(sc: TestbedScenario, count: int, ping: int = 0) -> tuple[dict, dict, list[float], list[float]]:
    """:func:`_probe` on a host that let the delay line keep time (:func:`host.measured`): a run
    in which the host held the delay line itself back is no measurement of it. Under SCHED_FIFO
    its releases are 10 to 20 us late on average on this machine; a fresh clone's run on
    2026-12-01 (quiet, but the virtual machine's host took time: 6 % steal a minute later) had
    them 320 to 985 us late in three cases, the receiver's medians 6 to 80 % high, and another
    that afternoon 470 to 1510 us in two tests' three runs each, minutes apart. The mean
    lateness of every run is returned (the last is the one measured)."""
    lateness: list[float] = []

    def late(got: tuple) -> str | None:
        lateness.append(got[1]["late_mean_us"])
        return late_releases(got[1])

    (got, dl, rtts), _ = measured(lambda: _probe(sc, count, ping), late)
    return got, dl, rtts, lateness


@needs_testbed
def test_a_ping_nobody_answers_gives_no_rtts_not_an_error() -> None:
    """``Testbed.ping`` with every reply lost (the receiver ignores echo requests) returns no
    RTTs: ping exits 1 then, which failed the whole run before, and it ends by its deadline
    rather than waiting 10 s for a reply (a run pings under load while it samples)."""
    runs.cleanup()
    run = runs.begin()
    tb = testbed.Testbed(_scenario({}), run)
    try:
        tb.build()
        answered = tb.ping(count=3, interval=0.05)
        tb.ns(tb.rcv, "sysctl", "-qw", "net.ipv4.icmp_echo_ignore_all=1")
        ignored = tb.ping(count=3, interval=0.05)
    finally:
        tb.close()
        runs.finish(run)
    assert len(answered) == 3 and all(38 < rtt < 60 for rtt in answered) and ignored == [], (answered, ignored)


def _quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def _within(measured: float, configured: float, rel: float = 0.10) -> bool:
    return abs(measured - configured) <= rel * configured


def _scenario(path: dict, delay: str = "40ms") -> TestbedScenario:
    """The delay line under SCHED_FIFO: on this 2-vCPU machine, busy with other builds, its
    releases were 0.5 ms late on average without it (20 us with it), a tenth of a 5 ms jitter."""
    return TestbedScenario.parse({"seed": 7, "delayline_rtprio": 10, "path": path, "bottleneck": {"rate": "100Mbps", "delay": delay}, "flows": [{"cc": "reno"}]})


@needs_testbed
def test_uniform_jitter_and_bernoulli_loss_measured_within_10_percent(record_property) -> None:
    """20 ms each way + U(0, 10 ms), free order, Bernoulli loss 5 %, 50,000 probes:
    one-way delay 25 ms mean, quantiles 20 + 10 q ms; ping 40 ms + two draws (50 ms mean)."""
    p, n = 0.05, 50_000
    # 10 % of the rate must be at least 4 standard deviations of the measured rate.
    assert 4 * math.sqrt(p * (1 - p) / n) <= 0.10 * p
    sc = _scenario({"jitter": {"dist": "uniform", "scale": "10ms"}, "order": "free", "loss": {"model": "bernoulli", "rate": p}})
    got, dl, rtts, lateness = _probe_measured(sc, n, ping=200)
    d = got["delay_us"]
    measured = {
        "delayline_late_mean_us": lateness,
        "mean_ms": statistics.fmean(d) / 1000, "p10_ms": _quantile(d, 0.1) / 1000, "p50_ms": _quantile(d, 0.5) / 1000,
        "p90_ms": _quantile(d, 0.9) / 1000, "jitter_sd_ms": statistics.pstdev(d) / 1000, "loss": 1 - len(d) / n,
        "delayline_loss": dl["lost"] / dl["packets"], "ping_mean_ms": statistics.fmean(rtts) if rtts else None,
        "reordered_at_receiver": sum(1 for a, b in zip(got["seq"], got["seq"][1:]) if b < a), "delayline": dl,
    }  # fmt: skip
    record_property("measured", json.dumps(measured))
    print(json.dumps({k: v for k, v in measured.items() if k != "delayline"}))
    assert _within(measured["mean_ms"], 25.0), measured
    for q in (10, 50, 90):
        assert _within(measured[f"p{q}_ms"], 20.0 + 10.0 * q / 100), measured
    # The jitter part alone: its mean (5 ms) and sd (10 / sqrt 12 = 2.89 ms) within 10 % too.
    assert _within(measured["mean_ms"] - 20.0, 5.0), measured
    assert _within(measured["jitter_sd_ms"], 10 / math.sqrt(12)), measured
    # The delay line's own account of the delays it gave and those the packets got.
    assert _within(dl["delay_given"]["mean_us"], 25_000) and _within(dl["delay_got"]["p90_us"], 29_000), dl
    assert dl["delay_given"]["min_us"] >= 20_000 and dl["delay_given"]["max_us"] <= 30_000, dl
    # Loss: at the receiver and in the delay line's count.
    assert _within(measured["loss"], p) and _within(measured["delayline_loss"], p), measured
    # Ping crosses the delay line twice: 40 ms + two U(0, 10 ms) draws.
    assert len(rtts) >= 180 and _within(measured["ping_mean_ms"], 50.0), rtts
    # Free order: jitter of 10 ms with probes 0.1 ms apart reorders.
    assert measured["reordered_at_receiver"] > 1000 and dl["reordered"] > 1000, measured


@needs_testbed
def test_gilbert_elliott_loss_rate_and_bursts_and_order_kept(record_property) -> None:
    """Gilbert-Elliott (good -> bad 0.05, bad -> good 0.5, all lost in bad, none in good):
    stationary rate 0.05 / 0.55 = 9.09 %, loss bursts of 1 / 0.5 = 2 packets on average.
    Order kept under exponential jitter (mean 5 ms): no probe overtakes another."""
    p, r, n = 0.05, 0.5, 50_000
    rate = p / (p + r)
    lam = 1 - p - r  # the chain's correlation from one packet to the next
    # Variance of the loss count of a two-state chain: n pi (1 - pi) (1 + lam) / (1 - lam).
    assert 4 * math.sqrt(rate * (1 - rate) * (1 + lam) / (1 - lam) / n) <= 0.10 * rate
    sc = _scenario({"jitter": {"dist": "exponential", "scale": "5ms"}, "order": "keep", "loss": {"model": "gilbert", "p_good_bad": p, "p_bad_good": r}})
    assert sc.loss_rate == pytest.approx(rate)
    got, dl, _ = _probe(sc, n)
    seqs = got["seq"]
    received = set(seqs)
    bursts, run_len = [], 0
    for s in range(n):
        if s in received:
            if run_len:
                bursts.append(run_len)
            run_len = 0
        else:
            run_len += 1
    if run_len:
        bursts.append(run_len)
    measured = {
        "loss": 1 - len(seqs) / n, "delayline_loss": dl["lost"] / dl["packets"], "mean_burst": statistics.fmean(bursts),
        "reordered_at_receiver": sum(1 for a, b in zip(seqs, seqs[1:]) if b < a), "delayline": dl,
    }  # fmt: skip
    record_property("measured", json.dumps(measured))
    print(json.dumps({k: v for k, v in measured.items() if k != "delayline"}))
    assert _within(measured["loss"], rate) and _within(measured["delayline_loss"], rate), measured
    assert _within(measured["mean_burst"], 1 / r), measured
    # The delay line keeps the order, and the veths hand every packet to one CPU's backlog
    # (Testbed.steer_receives): without that, about one round in seven of this test saw a probe
    # behind a later one at the receiver on a busy host, which the delay line had released in order.
    assert dl["receives_on_one_cpu"], dl
    assert measured["reordered_at_receiver"] == 0 and dl["reordered"] == 0, measured
    # Kept order raises a delay to the one before it: never below the drawn minimum (20 ms).
    assert dl["delay_given"]["min_us"] >= 20_000 and min(got["delay_us"]) >= 20_000, measured


@needs_testbed
@pytest.mark.parametrize(
    ("jitter", "mean_ms"),
    [
        ({"dist": "exponential", "scale": "4ms"}, 4.0),
        ({"dist": "normal", "scale": "4ms", "sd": "1ms"}, 4.0),
        ({"dist": "pareto", "scale": "4ms", "shape": 3.0}, 4.0),
    ],
)
def test_other_jitter_distributions_mean_within_10_percent(jitter: dict, mean_ms: float, record_property) -> None:
    """20,000 probes, free order, 10 ms each way plus the jitter: the jitter's median at the
    receiver and its mean as the delay line gave it within 10 % of the configured. The mean at
    the receiver is recorded, not asserted: it also holds the host's stalls, which on this
    virtual machine come and go (BENCHMARKS.md: the same run twice as slow minutes apart). On
    2026-11-29 a fresh clone's run measured normal jitter of mean 4 ms at 4.41 ms at the
    receiver (+10.2 %) while the delay line gave 4.00 ms and the receiver's median was 4.17."""
    sc = _scenario({"jitter": jitter, "order": "free"}, delay="20ms")
    got, dl, _, lateness = _probe_measured(sc, 20_000)
    d = [x / 1000 - 10.0 for x in got["delay_us"]]
    # The medians of the configured distributions.
    median = {"exponential": mean_ms * math.log(2), "normal": mean_ms, "pareto": mean_ms * 2 * (2 ** (1 / 3) - 1)}[jitter["dist"]]
    measured = {
        "jitter_mean_ms": statistics.fmean(d), "jitter_median_ms": statistics.median(d), "given_mean_ms": dl["delay_given"]["mean_us"] / 1000 - 10.0, "n": len(d),
        # Where a receiver's median above the configured comes from: the delay line's releases
        # (its median read-to-write delay, 10 us bins, and its mean lateness), or the host's path.
        "delayline_got_median_ms": dl["delay_got"]["p50_us"] / 1000 - 10.0, "delayline_late_mean_us": lateness,
    }  # fmt: skip
    record_property("measured", json.dumps(measured))
    print(json.dumps(measured))
    assert len(d) == 20_000 and dl["lost"] == 0
    assert _within(measured["given_mean_ms"], mean_ms), measured
    assert _within(measured["jitter_median_ms"], median), measured


@pytest.mark.skipif(testbed.support_problem(needs_pert=True) is not None, reason=f"testbed: {testbed.support_problem(needs_pert=True)}")
def test_a_profile_run_with_background_flows_leaves_nothing_behind(tmp_path: Path) -> None:
    """The us-dsl example (3 Mbit/s, 30 ms, uniform jitter, Bernoulli loss), shortened: PERT and
    two kernel cubic background flows through it; the report names the path; no namespace is left."""
    from pertlab.linux import loader

    if loader.is_registered():
        pytest.skip("pert is already registered on this host (pertlab linux unload pert)")
    f = tmp_path / "dsl.toml"
    f.write_text((ROOT / "examples" / "testbed" / "path_us_dsl.toml").read_text().replace('duration = "30s"', 'duration = "4s"').replace('warmup = "10s"', 'warmup = "1s"'))
    before = set(runs.list_namespaces())
    res = testbed.run(load_scenario(f))
    report = res.report()
    assert "testbed path-us-dsl: 3 Mbit/s, 30 ms, 4 s (profile us-dsl; uniform jitter of mean 1 ms each way, order keep; bernoulli loss 0.0005 each way)" in report, report
    assert [r["ss_cc"] for r in res.flows.to_dicts()] == ["pert", "cubic", "cubic"], report
    assert res.queues["utilization"][0] > 0.7, report
    dl = res.extra["delayline"]
    # 15 ms each way plus U(0, 2 ms): the delays the delay line gave (order kept raises some).
    assert 15_000 <= dl["delay_given"]["min_us"] and 15_500 < dl["delay_given"]["mean_us"] < 17_500 and dl["reordered"] == 0, dl
    assert set(runs.list_namespaces()) <= before and not loader.is_registered()
