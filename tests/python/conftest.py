"""Small scenarios shared by the tests: fast enough to run many times."""

from __future__ import annotations

import os
from functools import cache

import pytest
import typer.main
import typer.testing

import pertlab

# pytest-xdist's workers (make test runs the simulator's tests two at a time) get COLUMNS=80 and
# LINES=24 from it. The command line takes COLUMNS as the width a user asked for, so its tables
# would be cut to 80 columns there and nowhere else: the tests run as a plain process would.
if "PYTEST_XDIST_WORKER" in os.environ:
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)

# typer's CliRunner builds the click command of the app at every ``invoke``: every command's
# parameters from their annotations, about 0.1 s a call and 25 % of the command-line tests' time
# (2026-12-02). A ``pertlab`` process builds it once (``pertlab.cli.main``), and so does a test
# process now. Typer's own name for the builder in its testing module, checked so that an upgrade
# that renames it says so here rather than making the tests slow again.
assert typer.testing._get_command is typer.main.get_command, "typer.testing no longer calls typer.main.get_command as _get_command"
typer.testing._get_command = cache(typer.main.get_command)


def small_dumbbell(**overrides) -> pertlab.Scenario:
    """4 SACK flows on a 10 Mbps / 40 ms dumbbell for 10 s, metrics over 2..10 s."""
    args = dict(bw="10Mbps", rtt="40ms", flows=4, cc="sack", duration="10s", start_window="1s", warmup="2s")
    args.update(overrides)
    return pertlab.dumbbell(**args)


def canonical_short(**overrides) -> pertlab.Scenario:
    """The canonical dumbbell shortened for the models written in Python: 150 Mbit/s, 60 ms,
    6 Reno flows, 4 s, sampled every 100 ms."""
    args = dict(bw="150Mbps", rtt="60ms", flows=6, cc="reno", duration="4s", sample_interval="100ms")
    return pertlab.dumbbell(**{**args, **overrides})


def assert_same_run(a, b, names: tuple[str, ...]) -> None:
    """Two runs gave the same bytes: events, the bottleneck's drops and marks, and every row of the
    flows, queues and series, but the columns ``names`` (the models' names, which differ)."""
    assert a.summary["events"] == b.summary["events"]
    assert (a.bottleneck["drops"], a.bottleneck["marks"]) == (b.bottleneck["drops"], b.bottleneck["marks"])
    for table in ("flows", "queues", "queue_series", "flow_series"):
        x, y = getattr(a, table), getattr(b, table)
        x, y = x.drop([c for c in names if c in x.columns]), y.drop([c for c in names if c in y.columns])
        assert x.equals(y), table


def write_module(tmp_path, monkeypatch, name: str, text: str) -> None:
    """A Python module ``name`` with ``text`` in ``tmp_path``, importable for the test (give each
    test its own name: imports are cached)."""
    (tmp_path / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))


def udp_graph(**overrides) -> dict:
    """Two hosts and a router; one Poisson UDP source through a 10 Mbps link."""
    data = {
        "duration": "5s",
        "nodes": ["a", "r", "b"],
        "links": [
            {"a": "a", "b": "r", "rate": "100Mbps", "delay": "1ms"},
            {"name": "bottleneck", "a": "r", "b": "b", "rate": "10Mbps", "delay": "5ms", "queue": {"limit_pkts": 30}},
        ],
        "udp": [{"src": "a", "dst": "b", "rate": "9Mbps", "packet_size": "1000B"}],
        "monitor": {"sample_interval": "100ms"},
    }
    data.update(overrides)
    return data


@pytest.fixture
def dumbbell_scenario() -> pertlab.Scenario:
    return small_dumbbell(sample_interval="100ms")


class InProcess:
    """Workers that run a quick reproduction's tasks in this process, one after another
    (no worker processes to start: the quick runs take less than starting them)."""

    def map(self, fn, items):
        return [fn(x) for x in items]


@pytest.fixture(scope="module")
def files_in_a_temporary_directory(tmp_path_factory):
    """Run a module in a working directory of its own: a generated or mutated scenario may name a
    file relative to it (a capture's file mutated to "1e400" wrote a pcap of that name into the
    checkout, found by `make fuzz`)."""
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("cwd"))
    yield
    os.chdir(here)
