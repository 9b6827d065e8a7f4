"""The thesis's full-length video runs (issue 15: "a full-mode video run (the 7000 s runs of the
thesis) finishes in minutes, not hours; the figure goes to BENCHMARKS.md"), written to
BENCHMARKS.md between the ``bench-video`` markers. Called by scripts/bench.sh (``make bench``).

Each run is Qian's Table I at its heaviest load (:data:`STREAMS` video streams and as many Reno
FTP flows, 300 HTTP sessions, the T/mu probe; :func:`pertlab.experiments.qian11_video.video_scenario`)
for the thesis's 7000 s, once per controller of the streams, each in its own process, the core
alone (``examples/scenario``, as scripts/bench_scale.py runs its points).
"""

from __future__ import annotations

import pathlib
import tempfile

from bench_block import machine, write_block
from bench_scale import run

from pertlab.experiments.qian11_video import Setup, video_scenario

#: The thesis's run length (Qian 2011, III.A.1: 7000 s).
DURATION = "7000s"
#: The heaviest load of the study: 35 streams and 35 FTP flows (Section III.A.1's 20 to 35).
STREAMS = 35
#: The stream controllers the study compares.
CONTROLLERS = ("pert-adaptive", "sack", "cubic")


def main() -> None:
    setup = Setup(duration=DURATION, warmup="100s", startup_delay="5s", seeds=(1,), loads=((STREAMS, STREAMS),))
    where = machine()
    with tempfile.TemporaryDirectory() as tmp:
        runs = {cc: run(video_scenario(cc, STREAMS, STREAMS, setup, seed=1), pathlib.Path(tmp)) for cc in CONTROLLERS}
    write_block("bench-video", [
        f"**Qian's video study at full length** (issue 15; `scripts/bench_video.py`): Table I with {STREAMS} video streams of",
        f"300 kbit/s, {STREAMS} Reno FTP flows, 300 HTTP sessions and the T/mu probe on 25 Mbit/s, {DURATION.removesuffix('s')} s simulated (the",
        "thesis's run length), one run per stream controller, each its own process, the core alone.",
        where,
        "",
        "| streams' controller | wall s | events | events/s | peak MiB | bottleneck utilization |",
        "|---|---|---|---|---|---|",
        *(f"| {cc} | {r['wall_seconds']:.1f} | {r['events'] / 1e6:.0f} M | {r['events_per_second'] / 1e6:.1f} M | {r['peak_mib']:.0f} | {r['utilization']:.3f} |"
          for cc, r in runs.items()),
    ])  # fmt: skip


if __name__ == "__main__":
    main()
