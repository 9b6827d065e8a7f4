"""docs/cli.md's index of commands names every command the program has, and no other; every
command, and every option of it, is described somewhere in docs/ (the page its row points to)."""

import re
from pathlib import Path

import typer

from pertlab.cli import app

DOCS = Path(__file__).resolve().parents[2] / "docs"
ROW = re.compile(r"^\| (`pertlab [^|]*) \|[^|]*\|([^|]*)\|$")


def program_commands() -> dict[str, list[str]]:
    """Each leaf command ("fluid pert-red") and its long options."""
    leaves: dict[str, list[str]] = {}

    def walk(command, path):
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])
        if not getattr(command, "commands", None):
            leaves[" ".join(path)] = [o for p in command.params for o in p.opts if o.startswith("--")]

    walk(typer.main.get_command(app), [])
    return leaves


def index() -> dict[str, list[str]]:
    """The index's commands, each with the pages its row points to (cli.md for "below")."""
    rows: dict[str, list[str]] = {}
    for line in (DOCS / "cli.md").read_text().splitlines():
        if m := ROW.match(line):
            names = re.findall(r"`([^`]+)`", m.group(1))
            group = names[0].removeprefix("pertlab ").split()
            pages = re.findall(r"\]\(([\w-]+\.md)\)", m.group(2)) + (["cli.md"] if "below" in m.group(2) else [])
            first = " ".join(group)
            rows[first] = pages
            for sub in names[1:]:
                rows[" ".join([*group[:-1], sub])] = pages
    return rows


def test_the_index_names_every_command_and_no_other():
    assert sorted(index()) == sorted(program_commands())


def test_every_option_is_described_on_its_commands_page():
    rows = index()
    missing = []
    for command, options in program_commands().items():
        text = "\n".join((DOCS / page).read_text() for page in rows.get(command, []))
        assert f"pertlab {command}" in text or command.split()[-1] in text, f"{command}: not on {rows.get(command)}"
        # `--no-progress` describes `--progress`'s switch
        missing += [f"{command} {o}" for o in options if not re.search(rf"{re.escape(o)}\b|--no-{re.escape(o[2:])}\b", text)]
    assert not missing, f"options described nowhere on their command's page: {missing}"
