"""pcap captures read by tshark (issue 23): no malformed packets or error-level expert entries,
and tshark's TCP analysis finds the retransmissions and the RTTs the simulator recorded for the
same flow. The capture is on flow 0's access link s0-r0, both directions: every data segment the
sender sends (the access buffer never overflows) and every ACK it gets."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import pertlab
from pertlab.cli import app
from pertlab.scenario import Scenario
from test_cli_flags import covers, invoke, runner

needs_tshark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark missing (make sysdeps installs it)")

ACCESS_RATE_BPS = 100e6
ACCESS_DELAY_S = 1e-3
ACK_BYTES = 40 + 12  # an ACK without SACK blocks: 20 IP + 20 TCP + the timestamps option


def scenario(pcap: Path) -> Scenario:
    return Scenario.parse({
        "duration": "6s", "seed": 3,
        "dumbbell": {
            "pairs": 2, "bottleneck_rate": "10Mbps", "bottleneck_delay": "20ms", "access_rate": "100Mbps",
            "sender_access_delay": "1ms", "receiver_access_delay": "1ms",
            "bottleneck_queue": {"kind": "droptail", "limit_pkts": 20},
        },
        "flows": [{"src": "s0", "dst": "d0", "cc": {"kind": "reno"}}, {"src": "s1", "dst": "d1", "cc": {"kind": "reno"}, "start": "0.3s"}],
        "monitor": {"trace_flows": [0]},
        "capture": [{"link": "s0-r0", "file": str(pcap), "flows": [0]}],
    })  # fmt: skip


def tshark(path: Path, *args: str) -> str:
    return subprocess.run(["tshark", "-r", str(path), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    pcap = tmp_path_factory.mktemp("pcap") / "s0.pcap"
    return pertlab.run(scenario(pcap)), pcap


@needs_tshark
def test_tshark_reads_the_capture_with_no_malformed_packets_or_errors(run):
    results, pcap = run
    expert = tshark(pcap, "-q", "-z", "expert")
    assert "Malformed" not in expert and "Errors" not in expert, expert
    frames = tshark(pcap, "-T", "fields", "-e", "frame.len", "-e", "frame.cap_len").split("\n")
    assert len([f for f in frames if f]) > 1000
    # Checksums verified when asked: the IPv4 header's, and TCP's for the (zero) payload of the full length.
    bad = tshark(pcap, "-o", "ip.check_checksum:TRUE", "-Y", "ip.checksum.status == \"Bad\"")
    assert bad == ""


def frames(pcap: Path, condition: str) -> int:
    return len(tshark(pcap, "-Y", condition, "-T", "fields", "-e", "frame.number").split())


@needs_tshark
def test_tshark_counts_the_retransmissions_the_simulator_made(run):
    """tshark calls a segment sent again a retransmission, or out of order when it follows new data
    within its reordering threshold (the sender's go-back-N after a timeout): both are the
    simulator's retransmits, as the sender sends nothing else below its highest sequence number."""
    results, pcap = run
    flow = results.flows.row(0, named=True)
    assert flow["retransmits"] > 5 and flow["timeouts"] > 0, "the scenario must lose segments for the check to mean anything"
    again = frames(pcap, "(tcp.analysis.retransmission || tcp.analysis.out_of_order) && tcp.srcport == 10000")
    assert again == flow["retransmits"]


@needs_tshark
def test_tshark_ack_rtts_match_the_senders_samples(run):
    """One tshark sample per simulator sample, in the same order; each equals the simulator's
    minus the ACK's way from the capture point back to the sender, but after a recovery, where
    tshark times a cumulative ACK from an older segment than the one whose timestamp it echoes."""
    results, pcap = run
    samples = [float(x) for x in tshark(pcap, "-Y", "tcp.analysis.ack_rtt && tcp.dstport == 10000", "-T", "fields", "-e", "tcp.analysis.ack_rtt").split()]
    # An ACK is captured as it leaves r0; the sender sees it after its transmission and the access delay.
    offset = ACK_BYTES * 8 / ACCESS_RATE_BPS + ACCESS_DELAY_S
    sim = list(results.trace_rtt.filter(results.trace_rtt["flow"] == 0)["ms"])
    assert len(samples) == len(sim) > 1000
    agree = sum(abs(s - 1e3 * (t + offset)) < 0.01 for s, t in zip(sim, samples))
    assert agree >= 0.9 * len(sim), (agree, len(sim))


@needs_tshark
@covers("dumbbell", "--pcap")
@covers("run", "--pcap")
def test_pcap_flag_captures_a_link_of_dumbbell_and_run(tmp_path, monkeypatch):
    """``--pcap LINK:FILE`` captures both directions of the link, FILE relative to the current
    directory; ``run`` adds it to the scenario file's captures; a bad link is named."""
    monkeypatch.chdir(tmp_path)
    invoke("dumbbell", "--bw", "10Mbps", "--rtt", "40ms", "--flows", "2", "--duration", "1s", "--no-progress", "--json", "--pcap", "bottleneck:b.pcap")
    ends = set(tshark(tmp_path / "b.pcap", "-T", "fields", "-e", "eth.src").split())
    assert len(ends) == 2, "both directions: r0 and r1 send"
    (tmp_path / "s.json").write_text(scenario(tmp_path / "unused.pcap").model_copy(update={"capture": [], "duration": 10**9}).to_wire_json())
    invoke("run", "s.json", "--out", "out", "--no-progress", "--json", "--pcap", "s1-r0:s1.pcap")
    assert frames(tmp_path / "s1.pcap", "tcp.srcport == 10001") > 40, "flow 1's segments, from s1"
    bad = runner.invoke(app, ["dumbbell", "--flows", "2", "--duration", "1s", "--no-progress", "--pcap", "nowhere:x.pcap"])
    assert bad.exit_code == 2 and bad.output.startswith("error: --pcap: no link named `nowhere`; links: bottleneck, s0-r0")


@needs_tshark
def test_direction_packet_limit_and_errors_naming_the_field(tmp_path):
    """One direction holds only its sender's packets; max_packets caps the file; bad entries are
    refused naming their field, by pydantic (the direction's form) and by the core (names, flows)."""
    base = scenario(tmp_path / "x.pcap").model_copy(update={"duration": 10**9})

    def with_capture(**entry):
        return Scenario.parse({**base.to_wire(), "capture": [{"link": "bottleneck", "file": str(tmp_path / "b.pcap"), **entry}]})

    pertlab.run(with_capture(direction="r1->r0", max_packets=50))
    assert set(tshark(tmp_path / "b.pcap", "-T", "fields", "-e", "ip.src").split()) <= {"10.0.0.3", "10.0.0.4"}, "only ACKs, from d0 and d1"
    assert frames(tmp_path / "b.pcap", "frame") == 50
    with pytest.raises(ValueError, match=r"capture\[0\]\.direction"):
        with_capture(direction="r0 to r1")
    with pytest.raises(ValueError, match=r"capture\[0\]\.direction: got `r0->s0`; allowed: both, r0->r1, r1->r0"):
        pertlab.run(with_capture(direction="r0->s0"))
    with pytest.raises(ValueError, match=r"capture\[0\]\.flows\[1\]: flow index must be below 2, got 7"):
        pertlab.run(with_capture(flows=[0, 7]))


def test_a_capture_that_cannot_be_written_is_a_warning_of_the_run(tmp_path, monkeypatch):
    """Writes to /dev/full fail (no space) once the capture's buffer is flushed: the run ends whole,
    warns with a CaptureWarning naming the field and the file, and keeps the warning in its
    results (summary.json, and the command line prints it)."""
    scenario_ = scenario(Path("/dev/full")).model_copy(update={"duration": 10**9})
    with pytest.warns(pertlab.CaptureWarning, match=r"^capture\[0\]\.file: writing `/dev/full` failed \(No space left on device"):
        r = pertlab.run(scenario_)
    assert not r.interrupted and r.flows["goodput_bytes"].sum() > 0
    assert r.warnings[0].startswith("capture[0].file: writing `/dev/full` failed") and "the file is incomplete" in r.warnings[0]
    r.write(tmp_path / "out")
    assert pertlab.Results.read(tmp_path / "out").warnings[0] == r.warnings[0]
    (tmp_path / "s.json").write_text(scenario_.to_wire_json())
    out = runner.invoke(app, ["run", str(tmp_path / "s.json"), "--out", str(tmp_path / "cli"), "--no-progress"])
    assert out.exit_code == 0 and "warning: capture[0].file: writing `/dev/full` failed" in out.output


def test_two_captures_of_one_file_and_unwritable_pcap_flags_are_refused(tmp_path, monkeypatch):
    """Two captures writing one file interleaved into a file that broke off at its 892nd record
    (found by trying --pcap twice); both spellings of one path count. The command line also names
    --pcap for a file it cannot create, which the core named capture[0].file."""
    monkeypatch.chdir(tmp_path)
    wire = scenario(Path("x.pcap")).to_wire()
    with pytest.raises(pertlab.ScenarioError, match=r"^capture\[1\]\.file: `\./x\.pcap` is also capture\[0\]'s file: two captures cannot write one file"):
        Scenario.parse({**wire, "capture": [*wire["capture"], {"link": "bottleneck", "file": "./x.pcap"}]})
    small = ["dumbbell", "--flows", "2", "--duration", "1s", "--no-progress"]
    for pcap, message in [
        (["bottleneck:b.pcap", "s0-r0:./b.pcap"], "error: --pcap: `./b.pcap` is also the file of --pcap bottleneck:b.pcap: two captures cannot write one file"),
        (["bottleneck:missing/b.pcap"], "error: --pcap: cannot write `missing/b.pcap`: no directory `missing`"),
        (["bottleneck:."], "error: --pcap: cannot write `.`: `.` is a directory"),
    ]:
        refused = runner.invoke(app, [*small, *(x for p in pcap for x in ("--pcap", p))])
        assert refused.exit_code == 2 and refused.stderr.startswith(message), refused.stderr
    assert not list(tmp_path.iterdir()), "nothing written"
