"""The generated blocks of docs/linux.md: "CPU cost: Table VI today", written from the committed
run of ``pertlab linux cpu-cost --out docs/linux/cpu_cost_table6.json`` (:mod:`.cpu_cost`), and
the blocks written from committed ``testbed compare`` runs (:mod:`.compare_doc`), and the video
stream's first segment against its HyStart exit, from the committed study of :mod:`.first_windows`.

The block holds the run's setup and host, the table of every congestion control's figures (mean
and standard deviation over the runs) beside the thesis's Table VI, each eBPF program's run time
and calls, and what the figures say where that is a comparison of numbers (the eBPF code's share
of the testbed's CPU per MB; each protocol's difference from Reno against the spread of the runs).
The prose around the block explains the method and what differs from the thesis.

``python -m pertlab.linux.doc [--check] [PAGE]`` rewrites the blocks (or, with ``--check``,
exits 1 when it differs from what would be written); ``make docs`` runs it and
tests/python/test_linux_doc.py checks it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .. import docblock
from .cpu_cost import EBPF, Setup
from . import first_windows, linux_side
from .compare_doc import BLOCKS

__all__ = ["CPU_COST", "CPU_COST_DATA", "FIRST_WINDOWS", "FIRST_WINDOWS_DATA", "LINUX_SIDE_STUDY", "LINUX_SIDE_DATA", "render_cpu_cost", "render_page", "main"]

#: The block's name, and its data under the page's folder.
CPU_COST, CPU_COST_DATA = "cpu-cost", "linux/cpu_cost_table6.json"
#: The block of the video stream's first segment against its HyStart exit (:mod:`.first_windows`), and its data.
FIRST_WINDOWS, FIRST_WINDOWS_DATA = "video-first-windows", "linux/video_first_windows.json"
#: The block of the committed compare runs' simulator side taken again as Linux runs (:mod:`.linux_side`), and its data.
LINUX_SIDE_STUDY, LINUX_SIDE_DATA = "linux-side", "linux/linux_side.json"

#: Column headings by the names ``linux cpu-cost --cc`` takes.
LABELS = {"pert-adaptive": "adaptive PERT", "pert": "PERT/RED", "reno": "Reno", "cubic": "CUBIC", "bbr": "BBR"}
#: The thesis's Table VI row each column is set beside (its PERT is Kotla's kernel module, its
#: SACK the stock NewReno with SACK; it has no CUBIC, PERT/RED or BBR).
THESIS_ROW = {"pert-adaptive": "PERT", "reno": "SACK (NewReno)"}


def _pm(s: dict[str, Any], key: str, spec: str) -> str:
    v = s.get(key)
    return "-" if v is None else f"{v['mean']:{spec}} ± {v['sd']:{spec}}"


def _pair(s: dict[str, Any], key: str, spec: str, key2: str, spec2: str) -> str:
    if s.get(key) is None:
        return "-"
    return f"{_pm(s, key, spec)} ({s[key2]['mean']:{spec2}})"


def _programs(cc: str, runs: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    """One sentence per eBPF controller: each program's run time per call and calls per second,
    or, for those called only in the first half of the runs, the calls per run."""
    parts = []
    own = [r for r in runs if r["cc"] == cc]
    for prog, v in summary["bpf_programs"].items():
        name = prog.split("_", 2)[-1]
        rows = [r["bpf_programs"][prog] for r in own if prog in r.get("bpf_programs", {})]
        calls = [p["calls"] for p in rows]
        if not any(calls):
            parts.append(f"`{name}` no calls in the window")
            continue
        text = f"`{name}` {v['ns_per_call']:.0f} ns, "
        if [p["calls_first_half"] for p in rows] != calls:
            parts.append(text + f"{v['calls_per_s']:.0f} calls/s")
            continue
        spread = f"{min(calls)} to {max(calls)}" if min(calls) != max(calls) else f"{calls[0]}"
        half = min(r["bpf_first_half_s"] for r in own)
        parts.append(text + f"{spread} calls a run, all in the first {half:.0f} s")
    repairs = [r["ssthresh_repairs"] for r in own if r.get("ssthresh_repairs") is not None]
    put_back = f' Stale slow-start thresholds put back (section "A stale slow-start threshold"): {sum(repairs)} in {len(repairs)} runs.' if repairs else ""
    return f"Per program of {LABELS.get(cc, cc)} (mean over the runs): " + "; ".join(parts) + "." + put_back


def _against_reno(summary: dict[str, Any]) -> str:
    """Each protocol's difference from Reno in the testbed's CPU per MB (mean over the runs),
    whether it is larger than the two standard deviations together, and the testbed's CPU per
    second beside Reno's."""
    if "reno" not in summary or "testbed_cpu_ms_per_mb" not in summary["reno"]:
        return ""
    reno = summary["reno"]
    said = []
    for cc, s in summary.items():
        if cc == "reno" or "testbed_cpu_ms_per_mb" not in s:
            continue
        a, b = s["testbed_cpu_ms_per_mb"], reno["testbed_cpu_ms_per_mb"]
        diff, spread = a["mean"] - b["mean"], a["sd"] + b["sd"]
        where = "inside" if abs(diff) <= spread else "outside"
        text = f"{LABELS.get(cc, cc)} {diff:+.1f} ms per MB ({where} the two standard deviations together, {spread:.1f})"
        if "testbed_cpu_pct" in s and "testbed_cpu_pct" in reno:
            text += f", {s['testbed_cpu_pct']['mean']:.1f} % of one CPU against {reno['testbed_cpu_pct']['mean']:.1f} %"
        said.append(text)
    return "The testbed's CPU against Reno's: " + "; ".join(said) + "."


def _beside_simulator(data: dict[str, Any]) -> str:
    """Each side's goodput as a share of the payload its link can carry (the kernel's frames and
    the simulator's packets carry different headers), over the run and in its second half."""
    sim, summary = data.get("simulator_summary", {}), data["summary"]
    kernel_cap = {r["cc"]: r["payload_capacity_mbps"] for r in data["runs"] if "payload_capacity_mbps" in r}
    sim_cap = {r["cc"]: r["payload_capacity_mbps"] for r in data.get("simulator", [])}
    share = lambda x, key, cap: x[key]["mean"] / cap  # noqa: E731
    parts = []
    for cc in data["setup"]["ccs"]:
        if cc not in sim or cc not in kernel_cap or "goodput_second_half_mbps" not in summary[cc]:
            continue
        k, s = summary[cc], sim[cc]
        parts.append(
            f"{LABELS.get(cc, cc)} {share(k, 'goodput_mbps', kernel_cap[cc]):.2f} in the kernel against {share(s, 'goodput_mbps', sim_cap[cc]):.2f} "
            f"in the simulator over the run, {share(k, 'goodput_second_half_mbps', kernel_cap[cc]):.2f} against {share(s, 'goodput_second_half_mbps', sim_cap[cc]):.2f} in its second half"
        )  # fmt: skip
    if not parts:
        return ""
    return (
        "Goodput as a share of the payload the link can carry (each side with its own headers), both sides starting at the "
        "kernel's initial window of 10 segments: " + "; ".join(parts) + "."
    )


def _command(setup: Setup) -> str:
    ccs = " ".join(f"--cc {cc}" for cc in setup.ccs)
    return (
        f"`pertlab linux cpu-cost --flows {setup.flows} --seconds {setup.seconds:g} --repeat {setup.repeat} {ccs} "
        f"--rate-mbit {setup.rate_mbit:g} --rtt-ms {setup.rtt_ms:g} --out docs/{CPU_COST_DATA}`"
    )


def render_cpu_cost(data: dict[str, Any]) -> str:
    """The block's Markdown from a ``linux cpu-cost --out`` file."""
    setup = Setup(**{**data["setup"], "ccs": tuple(data["setup"]["ccs"])})
    host, summary, runs = data["host"], data["summary"], data["runs"]
    ccs = list(setup.ccs)
    loaded = any(x > host["cpus"] for x in host["load_start"] + host["load_end"])
    lines = [
        f"Figures ({host['started'][:10]}, `docs/{CPU_COST_DATA}`: every run): {setup.flows} flows, "
        f"{setup.seconds:g} s, {setup.repeat} runs each, {setup.rate_mbit:g} Mbit/s, {setup.rtt_ms:g} ms, "
        f"pfifo {setup.buffer_pkts()} packets; kernel {host['kernel'].split('-')[0]} on {host['cpus']} vCPUs; "
        f"load average {host['load_start'][0]:g} at the start, {host['load_end'][0]:g} at the end"
        + (" (other jobs shared the machine: the figures are noisy)" if loaded else " (by its load average, the machine was otherwise idle)")
        + f"; {_command(setup)}. Mean ± standard deviation over the {setup.repeat} runs:",
        "",
        "| | " + " | ".join(LABELS.get(cc, cc) + (" (eBPF)" if cc in EBPF else "") for cc in ccs) + " |",
        "|---|" + "---|" * len(ccs),
    ]
    sim = data.get("simulator_summary", {})
    halves = lambda s: "-" if s.get("goodput_first_half_mbps") is None else f"{_pm(s, 'goodput_first_half_mbps', '.1f')} / {_pm(s, 'goodput_second_half_mbps', '.1f')}"  # noqa: E731
    rows = [
        ("goodput, Mbit/s", lambda s: _pm(s, "goodput_mbps", ".1f")),
        ("goodput, first half / second half of the run, Mbit/s", halves),
        ("sender process, CPU ms per MB (system)", lambda s: _pair(s, "sender_cpu_ms_per_mb", ".2f", "sender_sys_ms_per_mb", ".2f")),
        ("sender process, % of one CPU", lambda s: _pm(s, "sender_cpu_pct", ".1f")),
        ("testbed (sender + delay line + receiver), CPU ms per MB", lambda s: _pm(s, "testbed_cpu_ms_per_mb", ".1f")),
        ("testbed, % of one CPU", lambda s: _pm(s, "testbed_cpu_pct", ".1f")),
        ("delay line, system CPU ms per MB", lambda s: _pm(s, "delayline_sys_ms_per_mb", ".1f")),
        ("ksoftirqd, CPU ms per MB", lambda s: _pm(s, "ksoftirqd_ms_per_mb", ".2f")),
        ("machine busy, % of its CPUs", lambda s: _pm(s, "machine_busy_pct", ".0f")),
        ("BPF: ns per call, all programs", lambda s: _pm(s, "bpf_ns_per_call", ".0f")),
        ("BPF: calls per second (per MB)", lambda s: _pair(s, "bpf_calls_per_s", ".0f", "bpf_calls_per_mb", ".0f")),
        ("BPF: % of one CPU (ms per MB)", lambda s: _pair(s, "bpf_cpu_pct", ".2f", "bpf_ms_per_mb", ".2f")),
    ]  # fmt: skip
    for label, cell in rows:
        lines.append(f"| {label} | " + " | ".join(cell(summary[cc]) for cc in ccs) + " |")
    if sim:
        seeds = f"seeds 1 to {setup.repeat}" if setup.repeat > 1 else "seed 1"
        for label, cell in [
            (f"simulator, same scenario ({seeds}): goodput, Mbit/s", lambda s: _pm(s, "goodput_mbps", ".1f")),
            ("simulator: first half / second half, Mbit/s", halves),
        ]:  # fmt: skip
            lines.append(f"| {label} | " + " | ".join(cell(sim[cc]) if cc in sim else "-" for cc in ccs) + " |")
    table = data["thesis_table_vi_pct"]
    thesis = [f"{table[THESIS_ROW[cc]][0]:g} - {table[THESIS_ROW[cc]][1]:g}" if cc in THESIS_ROW else "" for cc in ccs]
    lines.append("| thesis Table VI, CPU % (SACK for Reno; CTCP " + "{:g} - {:g}".format(*table["CTCP"]) + ") | " + " | ".join(thesis) + " |")
    lines.append("")
    for cc in ccs:
        if cc in EBPF and summary[cc].get("bpf_programs"):
            lines += [_programs(cc, runs, summary[cc]), ""]
    said = []
    for cc in ccs:
        s = summary[cc]
        if "bpf_ms_per_mb" in s:
            bpf = s["bpf_ms_per_mb"]["mean"]
            said.append(
                f"{LABELS.get(cc, cc)}'s eBPF code: {bpf:.2f} ms of CPU per MB, {s['bpf_cpu_pct']['mean']:.2f} % of one CPU at "
                f"{s['goodput_mbps']['mean']:.0f} Mbit/s, {100 * bpf / s['testbed_cpu_ms_per_mb']['mean']:.1f} % of the testbed's CPU per MB "
                f"and {100 * bpf / s['sender_cpu_ms_per_mb']['mean']:.0f} % of the sender process's."
            )  # fmt: skip
    against = _against_reno(summary)
    if against:
        said.append(against)
    text = "\n".join(lines + [" ".join(said)]) + "\n"
    beside = _beside_simulator(data)
    return text + ("\n" + beside + "\n" if beside else "")


def render_page(text: str, page_dir: Path) -> str:
    """``text`` with the :data:`CPU_COST` block, the :data:`FIRST_WINDOWS` and :data:`LINUX_SIDE_STUDY` blocks and the compare runs' blocks
    (:data:`.compare_doc.BLOCKS`) written from their data under ``page_dir``."""
    text = docblock.fill(text, CPU_COST, render_cpu_cost(json.loads((page_dir / CPU_COST_DATA).read_text())))
    text = docblock.fill(text, FIRST_WINDOWS, first_windows.render(json.loads((page_dir / FIRST_WINDOWS_DATA).read_text()), FIRST_WINDOWS_DATA))
    text = docblock.fill(text, LINUX_SIDE_STUDY, linux_side.render(json.loads((page_dir / LINUX_SIDE_DATA).read_text()), LINUX_SIDE_DATA))
    for block, (data, render) in BLOCKS.items():
        text = docblock.fill(text, block, render({name: json.loads((page_dir / path).read_text()) for name, path in data.items()}))
    return text


def main(argv: list[str] | None = None) -> int:
    return docblock.main(argv, "docs/linux.md", render_page)


if __name__ == "__main__":
    sys.exit(main())
