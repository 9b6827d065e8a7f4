"""``pertlab analyze ...``: closed-form models printed beside the simulator (registered in pertlab.cli)."""

# Annotations stay objects, no `from __future__ import annotations` (see pertlab.cli's module doc).

import sys
from typing import Annotated, Optional

import typer

from ..jsonable import dumps
from ..units import format_rate, parse_rate, parse_time
from .vegas_parking_lot import DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_CAPACITY_BPS, DEFAULT_PACKET_BYTES, vegas_parking_lot

analyze_app = typer.Typer(
    help="Closed-form models of the source documents, beside the simulator (docs/cli.md).",
    short_help="Closed-form models of the source documents.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None,
)  # fmt: skip

#: The function's arguments as the command spells them, for error messages.
_FLAGS = {
    "hops": "--hops", "flows": "--flows", "cross_flows": "--cross-flows", "capacity_bps": "--capacity",
    "packet_bytes": "--packet-size", "base_rtt_s": "--base-rtt", "alpha": "--alpha", "beta": "--beta",
}  # fmt: skip


def _counts(text: str | None, flag: str) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        from ..scenario import ScenarioError

        raise ScenarioError([(flag, f"write one count per link, comma-separated, as in 3,0,0; got {text!r}")]) from None


@analyze_app.command("vegas-parking-lot", short_help="Vegas's equilibrium on a parking lot (Hua 2002).")
def vegas_parking_lot_cmd(
    hops: Annotated[int, typer.Option(help="Congested gateway-to-gateway links the long connection crosses (Fig 3.1's N gateways: N - 1).")],
    flows: Annotated[int, typer.Option(help="Flows of the long connection (m).")],
    cross_flows: Annotated[Optional[str], typer.Option("--cross-flows", help="One-hop flows per link, comma-separated (3,0,0) [default: --flows on every link].")] = None,
    capacity: Annotated[str, typer.Option(help="Rate of every gateway-to-gateway link (Hua: 2 Mbit/s).")] = format_rate(DEFAULT_CAPACITY_BPS),
    packet_size: Annotated[int, typer.Option("--packet-size", help="Bytes per packet (ns-2 default).")] = DEFAULT_PACKET_BYTES,
    base_rtt: Annotated[str, typer.Option("--base-rtt", help="Propagation plus service times of the path, d~ of eq. 3.7.")] = "100ms",
    alpha: Annotated[float, typer.Option(help="Vegas alpha, packets (ns-2 default).")] = DEFAULT_ALPHA,
    beta: Annotated[float, typer.Option(help="Vegas beta, packets (ns-2 default).")] = DEFAULT_BETA,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
) -> None:
    """The equilibrium of Vegas flows on a parking lot of congested gateways (Hua 2002, eqs. 3.5 to 3.13):
    per-flow throughputs, queues at Delta = alpha and beta, and eq. 3.10's backlog."""
    from ..cli.checks import computed

    result = computed(
        lambda: vegas_parking_lot(
            hops, flows, _counts(cross_flows, "--cross-flows"), capacity_bps=parse_rate(capacity, "--capacity"),
            packet_bytes=packet_size, base_rtt_s=parse_time(base_rtt, "--base-rtt") / 1e9, alpha=alpha, beta=beta,
        ),
        _FLAGS, "the equilibrium",
    )  # fmt: skip
    if as_json:
        sys.stdout.write(dumps(result.as_dict()) + "\n")
        return
    # rich is imported for the table only: `pertlab --help` need not load it (issue 21).
    from rich.table import Table

    from ..cli.output import stdout_console

    t = Table(title=f"Vegas on {hops} congested links, {flows} long flows (Hua 2002, Section 3.3)")
    t.add_column("quantity")
    t.add_column("value", justify="right")
    t.add_row("long flow throughput", format_rate(result.long_flow_bps))
    t.add_row("max-min fair share", format_rate(result.fair_share_bps))
    for i, x in enumerate(result.cross_flow_bps):
        t.add_row(f"cross flow, link {i + 1}", format_rate(x) if x else "-")
        t.add_row(f"queue, link {i + 1} (alpha .. beta)", f"{result.queue_pkts_alpha[i]:.3g} .. {result.queue_pkts_beta[i]:.3g} pkts")
    t.add_row("eq. 3.10 backlog M (alpha .. beta)", f"{result.backlog_eq310_alpha:.3g} .. {result.backlog_eq310_beta:.3g} pkts")
    t.add_row("eq. 3.12 bounds at beta", f"{result.bound_eq312_low:.3g} .. {result.bound_eq312_high:.3g} pkts")
    t.add_row("long flow window (alpha .. beta)", f"{result.long_window_alpha:.3g} .. {result.long_window_beta:.3g} pkts")
    stdout_console().print(t)
