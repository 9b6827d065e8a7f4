"""``pertlab validate ...`` (registered in pertlab.cli)."""

# Annotations stay objects, no `from __future__ import annotations` (see pertlab.cli's module doc).

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..jsonable import dumps

validate_app = typer.Typer(
    help="pertlab beside the tools users trust: ns-3 and the Linux kernel (docs/validation.md).",
    short_help="pertlab beside ns-3 and the Linux kernel.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None,
)  # fmt: skip


@validate_app.command(short_help="pertlab against ns-3 on a matrix of dumbbells.")
def ns3(
    quick: Annotated[bool, typer.Option("--quick", help="Fourteen cases, most of them 40 s long, instead of the whole matrix.")] = False,
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Report folder [default: reports/validate-ns3].")] = None,
    jobs: Annotated[Optional[int], typer.Option(min=1, help="Parallel runs [default: one per core].")] = None,
    cluster: Annotated[Optional[str], typer.Option(help="Run on this Dask scheduler (tcp://host:8786) instead of local processes.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the table's rows as one JSON object.")] = False,
    case: Annotated[
        Optional[list[str]],
        typer.Option("--case", help="Run only this case of the full matrix (repeatable; with --quick, shortened to its quick duration)."),
    ] = None,
) -> None:
    """Run the matrix of dumbbells in pertlab and in ns-3 (its pip wheel); write report.md and report.html
    with both columns, their ratio and a verdict per metric. Exits 1 when a metric differs unexplained."""
    from ..cli.checks import check_cluster, check_out_dir, fail
    from .cases import select
    from .ns3 import run_matrix
    from .ns3build import missing

    try:
        select(case or [], quick)
    except ValueError as e:
        typer.echo(f"error: --case: {e}", err=True)
        raise typer.Exit(2)
    check_cluster(cluster)
    folder = out_dir or Path("reports") / "validate-ns3"
    check_out_dir(folder)
    why = missing()
    if why:
        typer.echo(f"error: ns-3: {why}", err=True)
        raise typer.Exit(2)
    try:
        results = run_matrix(quick, folder, jobs, cluster, case)
    except ValueError as e:  # the scheduler at --cluster cannot be reached
        fail(e, {"cluster": "--cluster"})
    except KeyboardInterrupt:
        typer.echo(f"interrupted: finished runs are kept in {folder}; run the same command to resume", err=True)
        raise typer.Exit(130)
    _finish(results, folder, f"pertlab and ns-3{' (quick)' if quick else ''}", "ns-3", as_json)


def _finish(results: list, folder: Path, title: str, tool: str, as_json: bool) -> None:
    """Write the report; print the rows (``--json``) or the metrics that do not agree; exit 1 on an
    unexplained difference or an explained one not seen."""
    from .compare import NOT_IN_REFERENCE
    from .report import write_report

    counts, table = write_report(results, folder, title, tool)
    if as_json:
        sys.stdout.write(dumps({"verdicts": counts, "rows": table}) + "\n")
    else:
        for row in table:
            if row["verdict"] not in ("agrees", NOT_IN_REFERENCE):
                typer.echo(f"{row['case']:>12} {row['metric']:<15} pertlab {row['pertlab']:.4g}  {tool} {row['reference']:.4g}  {row['verdict']}")
        typer.echo(", ".join(f"{n} {v}" for v, n in sorted(counts.items())) + f"; report: {folder / 'report.html'}")
    if counts.get("differs") or counts.get("explained difference not seen"):
        raise typer.Exit(1)


@validate_app.command(short_help="pertlab against the Linux kernel in the testbed (root).")
def kernel(
    quick: Annotated[bool, typer.Option("--quick", help="One 30 s case instead of the full matrix (60 s cases, one of them run with four seeds).")] = False,
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Report folder [default: reports/validate-kernel].")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the table's rows as one JSON object.")] = False,
) -> None:
    """Run testbed scenarios (kernel reno, cubic, the eBPF PERT; bfifo) in the namespace testbed and in pertlab
    through `testbed compare`; write report.md and report.html as `validate ns3` does. Needs root."""
    from ..cli.checks import check_out_dir
    from ..linux.testbed import support_problem
    from .kernel import cases, needs_pert, run_kernel

    folder = out_dir or Path("reports") / "validate-kernel"
    check_out_dir(folder)
    why = support_problem(needs_pert=needs_pert(cases(quick)))
    if why:
        typer.echo(f"error: testbed: {why}", err=True)
        raise typer.Exit(2)
    try:
        results = run_kernel(quick, folder)
    except KeyboardInterrupt:
        typer.echo(f"interrupted: finished cases are kept in {folder}; run the same command to resume", err=True)
        raise typer.Exit(130)
    _finish(results, folder, f"pertlab and the Linux kernel{' (quick)' if quick else ''}", "Linux", as_json)
