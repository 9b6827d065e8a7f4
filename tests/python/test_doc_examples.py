"""The Python examples of README.md and docs/ run as written (a user pastes them).

Every ```python block of the pages below runs in its own interpreter, in a scratch directory
where ``examples/`` is the repository's (the README reads examples/graph.toml) and with the
example controllers and disciplines importable (docs/python-cc.md, docs/python-aqm.md). A
block that shows an abridged source file (a ``class`` with ``...`` in it) is not a program and
is left out; a block that continues the page's prose without ``import pertlab`` gets it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", "docs/simulation.md", "docs/python-cc.md", "docs/python-aqm.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def _programs(page: str) -> list[str]:
    blocks = BLOCK.findall((ROOT / page).read_text())
    programs = [b for b in blocks if not re.search(r"^class ", b, re.M)]
    return [b if "import pertlab" in b else "import pertlab\n" + b for b in programs]


def test_every_page_has_a_program() -> None:
    assert all(_programs(p) for p in PAGES), {p: len(_programs(p)) for p in PAGES}


@pytest.mark.parametrize("page", PAGES)
def test_python_examples_run(page: str, tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "examples" / "python_cc"), str(ROOT / "examples" / "python_aqm")]))
    for i, program in enumerate(_programs(page)):
        r = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, f"{page}, example {i + 1}:\n{program}\n{r.stderr}"
