"""A scenario from the command line to its results: the options every running command shares
(``--tx-end-events``, ``--pcap``), the run with its progress bar, warnings and failures, and the
results written and printed."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from .. import interrupt
from .checks import check_out_dir, fail
from .output import emit, rich_stderr, say

if TYPE_CHECKING:
    from ..results import Results
    from ..scenario import Scenario


TX_END_EVENTS_HELP = (
    "Which transmission ends are events: when_needed (only where a loss is drawn or a queued packet starts: "
    "fewer events, a faster run) or always (every one; the committed reports' convention): results differ only "
    "where two events fall on one nanosecond; docs/model.md, Transmission ends."
)


def with_tx_end_events(scenario: Scenario, value: str | None) -> Scenario:
    """``--tx-end-events`` set in the scenario's ``engine`` section (None: as the scenario has it)."""
    from typing import get_args

    from ..scenario import EngineSpec

    if value is None:
        return scenario
    allowed = get_args(EngineSpec.model_fields["tx_end_events"].annotation)
    if value not in allowed:
        fail(ValueError(f"--tx-end-events: must be one of {', '.join(allowed)}, got `{value}`"))
    return scenario.model_copy(update={"engine": scenario.engine.model_copy(update={"tx_end_events": value})})


def with_pcap(scenario: Scenario, pcap: list[str] | None) -> Scenario:
    """``--pcap LINK:FILE`` entries added to the scenario's ``capture`` list (both directions)."""
    from ..scenario import CaptureSpec
    from ..scenario.model import same_capture_file

    if not pcap:
        return scenario
    added = []
    for value in pcap:
        link, sep, file = value.partition(":")
        if not (sep and link and file):
            fail(ValueError(f"--pcap: give LINK:FILE, e.g. bottleneck:bottleneck.pcap, got `{value}`"))
        if not scenario.has_link(link):
            fail(ValueError(f"--pcap: no link named `{link}`; links: {scenario.link_names()}"))
        folder = Path(file).parent
        if Path(file).is_dir() or not folder.is_dir():
            where = f"`{file}` is a directory" if Path(file).is_dir() else f"no directory `{folder}`"
            fail(ValueError(f"--pcap: cannot write `{file}`: {where}"))
        added.append(CaptureSpec(link=link, file=file))
    captures = [*scenario.capture, *added]
    if same := same_capture_file(captures):
        i, j = same
        earlier = f"--pcap {pcap[i - len(scenario.capture)]}" if i >= len(scenario.capture) else f"the scenario's capture[{i}]"
        fail(ValueError(f"--pcap: `{captures[j].file}` is also the file of {earlier}: two captures cannot write one file; give each its own"))
    return scenario.model_copy(update={"capture": captures})


def _run(scenario: Scenario, progress: bool, memory_limit: float | None, flags: dict[str, str] | None, out_dir: Path | None = None) -> Results:
    """Run ``scenario``; a failure of a model written in Python prints its message, writes the
    results up to the failure into ``out_dir`` (if given) and exits with status 1."""
    from ..results import CaptureWarning
    from ..runner import ModelError, run

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CaptureWarning)  # printed below with the run's other warnings
            # The bar is transient: where rich does not draw on stderr it would leave nothing.
            results = run(scenario, progress=progress and rich_stderr(), memory_limit=memory_limit)
    except ModelError as e:
        # A model written in Python failed: its traceback, the simulated time, the flow, the hook.
        say(str(e), "error", "bold red")
        if out_dir is not None:
            at = e.results.data["sim_seconds"]
            say(f"results up to the failure ({at:g} s simulated, flagged interrupted) in {e.results.write(out_dir)}/")
        raise typer.Exit(1)
    except ValueError as e:
        fail(e, flags)
    if results.interrupted:
        say(f"interrupted at {results.data['sim_seconds']:.1f} s simulated; results so far follow", style="yellow")
    for warning in results.warnings:
        say(warning, "warning", "bold yellow")
    return results


def run_and_report(
    scenario: Scenario, progress: bool, out_dir: Path | None, as_json: bool, title: str, memory_limit: float | None, flags: dict[str, str] | None = None
) -> None:
    """Run, write the result files into ``out_dir`` (if given) and print; a stop signal ends the
    run where it is, and the results so far are still written and printed (exit status 130).
    ``memory_limit`` as :func:`read_memory_limit` reads it; ``flags`` names the flags behind the
    fields of a refusal."""
    if out_dir is not None:
        check_out_dir(out_dir)
    with interrupt.deferred():
        results = _run(scenario, progress, memory_limit, flags, out_dir)
        if out_dir is not None:
            say(f"results in {results.write(out_dir)}/")
        emit(results, as_json, title)
