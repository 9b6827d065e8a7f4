"""The names of what the core models: controller and queue-discipline kinds, and the
controller names the builders and the command line accept. Plain data, in a module of its
own so that the command line can list them without importing the scenario models."""

from __future__ import annotations

#: Congestion controllers of the core (``CcSpec``'s kinds in the Rust scenario).
CC_KINDS = (
    "reno", "vegas", "pert", "pert-pi", "pert-adaptive", "hstcp", "cubic", "compound", "illinois", "fast", "jcc", "surathkal",
    "dctcp", "scalable", "westwood", "xcp", "agent", "py",
)  # fmt: skip

#: The form of a model written in Python, as the command line names it: ``py:module:Class``
#: (docs/python-cc.md); in a scenario, ``{kind = "py", target = "module:Class"}``.
PY_FORM = "py:module:Class (a dotted module path importable from sys.path or the scenario's directory, a colon, a class name)"

#: Queue disciplines of the core (``QueueSpec::KINDS``): the names ``--queue`` and the builders take.
QUEUE_NAMES = (
    "droptail", "red", "ared", "reared", "fared", "cared", "feng", "nlred", "pi", "pie", "codel", "jcc-red", "step", "priority", "wtp", "swtp",
    "bpr", "xcp",
)  # fmt: skip
#: The queue kinds of a scenario: the core's, and "py", a discipline written in Python
#: (``{kind = "py", target = "module:Class"}``; ``--queue py:module:Class``; docs/python-aqm.md).
QUEUE_KINDS = (*QUEUE_NAMES, "py")
#: The multi-class kinds (``QueueSpec::CLASS_KINDS``).
CLASS_KINDS = ("priority", "wtp", "swtp", "bpr")

#: Controller names accepted by :func:`pertlab.builders.dumbbell` and ``--cc``:
#: (core controller, SACK recovery).
CC_NAMES: dict[str, tuple[str, bool]] = {
    "sack": ("reno", True),
    "newreno": ("reno", False),
    "reno": ("reno", True),
    **{kind: (kind, True) for kind in CC_KINDS if kind not in ("reno", "py")},
}
