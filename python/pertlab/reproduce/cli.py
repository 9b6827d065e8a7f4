"""``pertlab reproduce``: list or run the registered reproductions."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

__all__ = ["reproduce"]


def reproduce(
    name: Annotated[Optional[str], typer.Argument(help="Reproduction to run (see --list).")] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the reproductions and exit.")] = False,
    quick: Annotated[bool, typer.Option("--quick", help="Smaller/shorter version (seconds).")] = False,
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Report folder [default: out/reproduce/NAME].")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report (or the list) as one JSON object.")] = False,
) -> None:
    """Reproduce a paper's figure: a report folder with index.html, PNG, Parquet, JSON."""
    from . import entries, run

    if list_ or name is None:
        items = [{"name": e.name, "description": e.description} for e in entries()]
        if as_json:
            sys.stdout.write(json.dumps({"reproductions": items}) + "\n")
        else:
            for it in items:
                typer.echo(f"{it['name']:<24} {it['description']}")
        return
    try:
        rep = run(name, "quick" if quick else "full", out_dir)
    except ValueError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2)
    if as_json:
        sys.stdout.write(json.dumps(rep.as_dict()) + "\n")
        return
    typer.echo(f"{rep.title} ({rep.mode}, {rep.elapsed_s:.1f} s)")
    for c in rep.comparisons:
        paper = c.paper if c.paper is not None else c.claim
        typer.echo(f"  {c.quantity}: ours {c.ours} | paper {paper} {c.unit}".rstrip())
    typer.echo(f"  report: {rep.path('index.html')}")
