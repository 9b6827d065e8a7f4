"""Generated parameter sets registered in the kernel: every set `pertlab linux load` accepts for
`pert` and `pert-adaptive` (1 to 4 of its options, each at an end of its range or inside it)
passes the BPF verifier and registers. `pertlab linux load pert --p-max
1` once passed the checks and then failed with "Argument list too long": the verifier, given
the loader's constants, passed its instruction budget (docs/reliability.md). Needs root and the
build tools (skips naming what is missing)."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from hypothesis import assume, example, given, note, settings
from hypothesis import strategies as st

from pertlab.linux import loader
from pertlab.linux.cli import load_params

from generated import COMMON
from test_generated import LOAD_OPTIONS

#: Kernels and registration: run alone (pyproject.toml, markers).
pytestmark = [pytest.mark.quiet_host]
PROBLEM = loader.support_problem()
#: Accepted sets to register (a few tenths of a second each, the verifier included).
EXAMPLES = 40
#: Values at the ends of the options' ranges (probabilities and fractions of 1, the smallest
#: time the kernel code counts, the largest time), and ordinary ones.
EDGE = st.one_of(st.sampled_from([1.0, 0.9999995, 5e-7, 1e-6, 0.001, 1e6]), st.floats(0.001, 100.0))


@st.composite
def accepted_options(draw) -> tuple[str, dict[str, Any]]:
    """A controller and 1 to 4 of its options, each at an edge of its range or inside it."""
    name = draw(st.sampled_from(sorted(LOAD_OPTIONS)))
    chosen = draw(st.lists(st.sampled_from(LOAD_OPTIONS[name]), min_size=1, max_size=4, unique=True))
    given = {}
    for field in chosen:
        if field == "interval_weights":
            given[field] = ",".join(repr(draw(st.sampled_from([0.0, 0.5, 1.0])) if i else 1.0) for i in range(draw(st.integers(1, 8))))
        else:
            given[field] = draw(EDGE)
    return name, given


def _accepted(name: str, given: dict[str, Any]):
    """The parameters `linux load NAME` registers for ``given``, or None where it refuses them."""
    options = {"t_min_ms": 5.0, "t_max_ms": 10.0, "t_end_ms": None, "p_max": 0.05, "decrease": None, "srtt_weight": 0.99, "literal": False, "slow_start_response": None}
    options |= {field: None for field in LOAD_OPTIONS["pert-adaptive"] if field not in options} | given
    try:
        return load_params(name, options)
    except typer.Exit:
        return None


@pytest.mark.skipif(PROBLEM is not None, reason=f"eBPF congestion control: {PROBLEM}")
@settings(max_examples=EXAMPLES, derandomize=True, database=None, **COMMON)
@given(accepted_options())
@example(("pert", {"p_max": 1.0}))
@example(("pert-adaptive", {"p_max": 1.0}))
def test_every_accepted_parameter_set_registers(case) -> None:
    name, given = case
    params = _accepted(name, given)
    assume(params is not None)
    note(f"{name} {params}")
    kernel_name = loader.controller(name).name
    if loader.is_registered(kernel_name):
        pytest.skip(f"{kernel_name} is already registered on this host (pertlab linux unload {name})")
    try:
        loader.load(name, params)
        assert loader.status(name)["params_fixed"] == params.fixed()
    finally:
        loader.unload(name)
    assert not loader.is_registered(kernel_name)
