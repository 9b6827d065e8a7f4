"""The one error line of a refused command, shared by the tests of bad values."""

from __future__ import annotations

from typer.testing import CliRunner

from pertlab.cli import app

runner = CliRunner()


def refusal(args: list[str], *names: str) -> str:
    """The one line a refused command prints on stderr (it exits 2, with no traceback), which
    names every option in ``names``."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]
