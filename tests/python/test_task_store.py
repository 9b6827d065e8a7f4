"""The store of a reproduction's tasks (`Workers(store=...)`, `DIR/tasks`): a stored result is
reused while the code that computed it is unchanged, and only that code counts. Each result is
kept with the modules its worker had loaded (pertlab's, the compiled core, the task's own) and
their files' hashes: a changed module among them reruns the task; a change elsewhere (a report's
claims or notes, which no task imports) reruns nothing. Real Dask workers, real files."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pertlab.parallel import STORE_FORMAT, StoredRunWarning, Workers, loaded_code

TASK = """
from pathlib import Path


def task(x):
    # Each computation leaves a line, so the test can count what ran.
    with open(Path(__file__).with_name("ran.log"), "a") as log:
        log.write(f"{x}\\n")
    return x * 10
"""


def test_stored_results_are_reused_until_the_code_they_ran_changes(tmp_path, monkeypatch):
    pkg = tmp_path / "mods"
    pkg.mkdir()
    (pkg / "store_task_mod.py").write_text(textwrap.dedent(TASK))
    monkeypatch.syspath_prepend(str(pkg))
    import store_task_mod

    store = tmp_path / "tasks"
    workers = Workers(jobs=1, store=store)
    ran = pkg / "ran.log"

    def computed() -> list[str]:
        return ran.read_text().split() if ran.exists() else []

    assert workers.map(store_task_mod.task, [1, 2, 3]) == [10, 20, 30]
    assert sorted(computed()) == ["1", "2", "3"]
    stored = sorted(store.glob("*.pickle"))
    assert len(stored) == 3
    # What a stored result records: the task's module and the pertlab code its worker loaded,
    # and no module it never imported (this task does not touch the core, nor any report).
    code, result = pickle.loads(workers._path(store_task_mod.task, 2).read_bytes())
    assert result == 20 and {"store_task_mod", "pertlab", "pertlab.parallel"} <= set(code)
    assert "pertlab._core" not in code and not any(name.startswith("pertlab.reproduce") for name in code)
    # Asked again, nothing runs; an item not stored yet runs alone.
    assert workers.map(store_task_mod.task, [3, 1, 4]) == [30, 10, 40]
    assert sorted(computed()) == ["1", "2", "3", "4"]
    # A module the results ran has changed (as an edit of pertlab's would): the stored
    # result that names it is computed again, the others are reused.
    path = workers._path(store_task_mod.task, 1)
    code, result = pickle.loads(path.read_bytes())
    path.write_bytes(pickle.dumps(({**code, "pertlab.units": "0" * 16}, result)))
    assert workers.map(store_task_mod.task, [1, 2]) == [10, 20]
    assert sorted(computed()) == ["1", "1", "2", "3", "4"]
    # The task's own module changed: every result of it is computed again.
    (pkg / "store_task_mod.py").write_text(textwrap.dedent(TASK) + "\n# changed\n")
    assert workers.map(store_task_mod.task, [1, 2]) == [10, 20]
    assert sorted(computed()) == ["1", "1", "1", "2", "2", "3", "4"]
    # The key holds the store's format: a file of another format is never read as this one.
    assert STORE_FORMAT == 2 and len(list(store.glob("*.pickle"))) == 4
    # A stored result damaged by something else (a cut copy) is computed again with a warning
    # naming it, and written whole: it used to end the reproduction in an UnpicklingError.
    path = workers._path(store_task_mod.task, 3)
    path.write_bytes(path.read_bytes()[:10])
    with pytest.warns(StoredRunWarning, match=rf"{path.name}: a stored result that cannot be read \(\w+Error"):
        assert workers.map(store_task_mod.task, [3]) == [30]
    assert computed().count("3") == 2 and pickle.loads(path.read_bytes())[1] == 30


def test_loaded_code_names_what_this_process_has_imported():
    import pertlab._core  # noqa: F401  (the compiled core is recorded as a module like any other)

    code = loaded_code("pertlab.parallel")
    assert "pertlab._core" in code
    assert code["pertlab.parallel"] == loaded_code("pertlab.parallel")["pertlab.parallel"]
    assert all(len(h) == 16 for h in code.values())
    assert set(code) <= {n for n in sys.modules if n == "pertlab" or n.startswith("pertlab.")}


def test_a_reproductions_tasks_record_no_report_code(tmp_path):
    """`pertlab reproduce`'s workers: what their stored runs record is the simulation's code (the
    experiment, the scenario model, the core), never a report module, so that a change to a
    report's claims, notes or figures reruns none of its runs."""
    exe = str(Path(sys.executable).parent / "pertlab")
    args = [exe, "reproduce", "tahiliani-ch3-sharp-decrease", "--quick", "--jobs", "1", "--out", str(tmp_path), "--json"]
    first = subprocess.run(args, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    stored = sorted((tmp_path / "tasks").glob("*.pickle"))
    assert stored and f"{len(stored)} tasks on 1 local worker process" in first.stderr
    for path in stored:
        code, _ = pickle.loads(path.read_bytes())
        assert {"pertlab._core", "pertlab.experiments.tahiliani_ch3", "pertlab.scenario.model"} <= set(code)
        assert not any(name.startswith("pertlab.reproduce") for name in code), sorted(code)
    again = subprocess.run(args, capture_output=True, text=True)
    assert again.returncode == 0 and "task" not in again.stderr, again.stderr
