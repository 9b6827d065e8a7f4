"""The whole scenario: topology, traffic, monitors and the measurement window; reading it from
TOML or JSON, writing the core's wire format, and asking the core to check it."""

import contextlib
import contextvars
import json
import os
import re
import sys
from pathlib import Path
from typing import Annotated, Any, Iterator, Literal

from pydantic import Field, PrivateAttr, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from ..units import format_time
from ..units import U64_MAX
from .base import U32, Duration, Time, _Model, _unit
from .errors import ScenarioError
from .topology import DumbbellSpec, LinkSpec
from .traffic import FlowSpec, UdpSpec, WebSpec


def _empty_list() -> list[Any]:
    """The ``default_factory`` of the list fields: a function written in Python, not ``list``.
    pydantic reads the signature of every default factory, and a builtin's signature is parsed
    from its text with ``tokenize``, whose first use compiles a large regular expression: 12 ms
    of every command that reads a scenario (issue 21; ``tests/python/test_cli_startup.py``)."""
    return []


def _fewest_classes(links: list[LinkSpec], dumbbell: DumbbellSpec | None) -> tuple[int, str] | None:
    """The multi-class queue with the fewest classes, and its field, if any."""
    queues: list[tuple[str, Any]] = []
    for i, link in enumerate(links):
        queues += [(f"links[{i}].queue", link.queue), (f"links[{i}].queue_ba", link.queue_ba)]
    if dumbbell is not None:
        queues += [(f"dumbbell.{name}", getattr(dumbbell, name)) for name in ("bottleneck_queue", "bottleneck_queue_reverse", "access_queue")]
    counts = [(q.classes(), path) for path, q in queues if q is not None and q.classes() is not None]
    return min(counts, key=lambda c: c[0]) if counts else None


def _has_link(name: str, links: list[LinkSpec], dumbbell: DumbbellSpec | None) -> bool:
    """Whether the topology has a link called ``name``: an explicit link's ``name`` (default
    ``a-b``), or one the core makes of a dumbbell, ``s{i}-r0``, ``bottleneck``, ``r1-d{i}``
    (``DumbbellSpec::expand``), told without making its pairs (there may be 2^32 of them)."""
    if dumbbell is not None:
        m = _ACCESS_LINK.fullmatch(name)
        return name == "bottleneck" or (m is not None and int(m[1] or m[2]) < dumbbell.pairs)
    return any((link.name or f"{link.a}-{link.b}") == name for link in links)


#: A dumbbell's access link: ``s{i}-r0`` or ``r1-d{i}``, ``i`` without leading zeros.
_ACCESS_LINK = re.compile(r"s(0|[1-9][0-9]*)-r0|r1-d(0|[1-9][0-9]*)")
#: Links an error lists by name at most; the rest are counted.
_LINKS_LISTED = 20


def _link_list(links: list[LinkSpec], dumbbell: DumbbellSpec | None) -> str:
    """The topology's link names for an error: ``bottleneck, s0-r0 .. s49-r0, r1-d0 .. r1-d49``."""
    if dumbbell is not None:
        last = dumbbell.pairs - 1
        return "bottleneck, s0-r0, r1-d0" if last == 0 else f"bottleneck, s0-r0 .. s{last}-r0, r1-d0 .. r1-d{last}"
    names = [link.name or f"{link.a}-{link.b}" for link in links]
    more = f", ... ({len(names)} links)" if len(names) > _LINKS_LISTED else ""
    return ", ".join(names[:_LINKS_LISTED]) + more


def parse_toml(text: str, path: Any) -> dict[str, Any]:
    """The mapping of the scenario file ``path`` whose text is ``text``, TOML with human units;
    text that is not TOML is a :class:`ScenarioError` naming the path. Simulator and testbed
    scenario files are both read here. The TOML reader is imported here only: 3 ms that a
    command given no scenario file (``pertlab dumbbell``) need not pay (issue 21)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError([(str(path), f"not valid TOML: {e}")]) from None


#: The most spaces a level of :meth:`Scenario.to_wire_json` takes (a huge indent is gigabytes of spaces).
MAX_INDENT = 64


def _read(path: Any, check_only: bool = False) -> Any:
    """The text of the scenario file ``path`` (``path`` itself with ``check_only``); a path of
    another type, or a file that cannot be read as UTF-8 text, is a :class:`ScenarioError`
    naming the path."""
    if not isinstance(path, (str, os.PathLike)) or path == "":
        raise ScenarioError([("path", f"must be the path of a .toml or .json scenario file, got {path!r}")])
    if check_only:
        return path
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError([(str(path), f"cannot read the scenario file: {e.strerror or e}")]) from None
    except UnicodeDecodeError as e:
        raise ScenarioError([(str(path), f"not UTF-8 text: {e}")]) from None


class MonitorSpec(_Model):
    """Time series to record (none unless ``sample_interval`` is given)."""

    sample_interval: Duration | None = _unit("sample_interval", "sample_interval_ns", None)
    flows: list[U32] | None = Field(None, description="flow indices to sample; default all")
    links: list[str] | None = Field(None, description="link names whose queues are sampled; default all")
    trace_flows: list[U32] = Field(
        default_factory=_empty_list, description="flows whose every RTT sample and loss is traced (predictor study)"
    )
    trace_link: str | None = Field(None, description="link on the first traced flow's path: its queue length and drops are traced")
    queue_positions: str | None = Field(
        None,
        description="link whose a -> b queue (dumbbell bottleneck: r0 -> r1) counts the position of each data packet it accepts in the window, per flow label",
    )


class CaptureSpec(_Model):
    """A pcap capture of one link (docs/pcap.md): every packet as it starts transmission."""

    link: str = Field(description="name of the link captured")
    direction: str | None = Field(None, description='"a->b" (node names) for one direction; default "both", in one file')
    file: str = Field(description="pcap file written, relative to the current directory of the run")
    flows: list[U32] | None = Field(None, description="only the packets of these TCP flows (indices); default every packet")
    max_packets: Annotated[int, Field(ge=0, le=U64_MAX)] | None = Field(None, description="stop after this many packets; default no limit")

    @field_validator("direction")
    @classmethod
    def _direction_form(cls, v: str | None) -> str | None:
        if v is not None and v != "both" and len(v.split("->")) != 2:
            raise ValueError(f'must be "both" or "a->b" with the names of the link\'s ends, got `{v}`')
        return v


def same_capture_file(captures: list[CaptureSpec]) -> tuple[int, int] | None:
    """The first pair ``(i, j)``, i < j, of captures that name one file (as paths, normalized), or None."""
    first: dict[str, int] = {}
    for j, c in enumerate(captures):
        i = first.setdefault(os.path.normpath(c.file), j)
        if i != j:
            return (i, j)
    return None


#: Which transmission ends are events when a scenario does not say (``engine.tx_end_events``):
#: ``when_needed``, the faster (issue 21). The reproductions hold ``always``, the convention
#: their committed reports were made with, through :func:`tx_end_events_default`.
TX_END_EVENTS_DEFAULT = "when_needed"

_tx_end_events_default: contextvars.ContextVar[str] = contextvars.ContextVar("tx_end_events_default", default=TX_END_EVENTS_DEFAULT)


@contextlib.contextmanager
def tx_end_events_default(value: str) -> Iterator[None]:
    """Scenarios made inside the block without ``engine.tx_end_events`` get ``value``
    (a reproduction's scenarios are made, and run, in such a block: see
    :func:`pertlab.reproduce.registry.register`; :func:`pertlab.parallel.run_tasks` carries the
    value to its workers)."""
    token = _tx_end_events_default.set(value)
    try:
        yield
    finally:
        _tx_end_events_default.reset(token)


def current_tx_end_events_default() -> str:
    """The value a scenario made here and now gets when it does not set ``engine.tx_end_events``."""
    return _tx_end_events_default.get()


class EngineSpec(_Model):
    """How the engine schedules its work; nothing here changes the model (docs/model.md,
    "Transmission ends")."""

    tx_end_events: Literal["always", "when_needed"] = Field(
        default_factory=current_tx_end_events_default,
        description=(
            "which transmission ends are events: when_needed (the default: only where a loss is drawn or a "
            "queued packet starts then; fewer events and a faster run, whose results differ from always's only "
            "where two events fall on the same nanosecond) or always (every one: the convention of the "
            "committed reports, which the reproductions keep)"
        ),
    )


class MeasureWindow(_Model):
    """Window over which summary metrics are computed."""

    start: Time = _unit("start", "start_ns")
    end: Duration = _unit("end", "end_ns")


class Scenario(_Model):
    """Everything a run depends on; a run is a pure function of it (``seed`` included)."""

    seed: Annotated[int, Field(ge=0, le=U64_MAX)] = 1
    _source_dir: Path | None = PrivateAttr(None)
    duration: Duration = _unit("duration", "duration_ns")
    measure: MeasureWindow | None = Field(None, description="default: the whole run")
    nodes: list[str] = Field(default_factory=_empty_list)
    links: list[LinkSpec] = Field(default_factory=_empty_list)
    dumbbell: DumbbellSpec | None = None
    flows: list[FlowSpec] = Field(default_factory=_empty_list)
    udp: list[UdpSpec] = Field(default_factory=_empty_list)
    web: list[WebSpec] = Field(default_factory=_empty_list)
    monitor: MonitorSpec = Field(default_factory=MonitorSpec)
    capture: list[CaptureSpec] = Field(default_factory=_empty_list, description="pcap captures of links")
    engine: EngineSpec = Field(default_factory=EngineSpec)

    @field_validator("measure")
    @classmethod
    def _within_run(cls, v: MeasureWindow | None, info: ValidationInfo) -> MeasureWindow | None:
        duration = info.data.get("duration")
        if v is not None and duration is not None and not (v.start < v.end <= duration):
            raise ValueError(f"need start < end <= duration ({format_time(duration)}), got [{format_time(v.start)}, {format_time(v.end)}]")
        return v

    @field_validator("dumbbell")
    @classmethod
    def _one_topology(cls, v: DumbbellSpec | None, info: ValidationInfo) -> DumbbellSpec | None:
        if v is not None and (info.data.get("nodes") or info.data.get("links")):
            raise ValueError("give either `dumbbell` or `nodes`/`links`, not both")
        return v

    @field_validator("flows", "udp")
    @classmethod
    def _classes_have_queues(cls, v: list[Any], info: ValidationInfo) -> list[Any]:
        """Every class a flow or UDP source uses has a buffer at every multi-class queue."""
        fewest = _fewest_classes(info.data.get("links") or [], info.data.get("dumbbell"))
        if fewest is None:
            return v
        n, queue = fewest
        for j, item in enumerate(v):
            if item.class_ >= n:
                message = f"class {item.class_} has no queue at {queue}, whose {n} classes are 0 to {n - 1} (one per entry of its sched.weights)"
                raise PydanticCustomError("item_error", "{message}", {"index": j, "field": "class", "message": message})
        return v

    @field_validator("flows", "web")
    @classmethod
    def _xcp_has_routers(cls, v: list[Any], info: ValidationInfo) -> list[Any]:
        """An XCP sender needs an XCP router on its data path: on a dumbbell with no ``xcp`` queue
        none has one (the core checks each path of an explicit graph when it builds the world)."""
        dumbbell = info.data.get("dumbbell")
        if dumbbell is None:
            return v
        queues = (dumbbell.bottleneck_queue, dumbbell.bottleneck_queue_reverse, dumbbell.access_queue)
        if any(q is not None and q.kind == "xcp" for q in queues):
            return v
        for j, item in enumerate(v):
            if item.cc.kind == "xcp":
                message = 'an xcp flow needs an "xcp" queue on its data path, and no queue of the dumbbell is one'
                raise PydanticCustomError("item_error", "{message}", {"index": j, "field": "cc", "message": message})
        return v

    @field_validator("capture")
    @classmethod
    def _captured_links_exist(cls, v: list[CaptureSpec], info: ValidationInfo) -> list[CaptureSpec]:
        """Every captured link is one of the topology's (the core checks it too, without naming the others)."""
        links, dumbbell = info.data.get("links"), info.data.get("dumbbell")
        if links is None or "dumbbell" not in info.data or not (links or dumbbell):
            return v  # the topology is wrong, or missing: its own error says so
        for j, c in enumerate(v):
            if not _has_link(c.link, links, dumbbell):
                message = f"no link named `{c.link}`; links: {_link_list(links, dumbbell)}"
                raise PydanticCustomError("item_error", "{message}", {"index": j, "field": "link", "message": message})
        return v

    @field_validator("capture")
    @classmethod
    def _captures_write_their_own_files(cls, v: list[CaptureSpec]) -> list[CaptureSpec]:
        """No two captures write one file: their writers would interleave into a file no pcap
        reader takes (found: ``--pcap bottleneck:x.pcap --pcap s0-r0:x.pcap`` ran, and the file
        broke off at its 892nd record)."""
        if same := same_capture_file(v):
            i, j = same
            message = f"`{v[j].file}` is also capture[{i}]'s file: two captures cannot write one file; give each its own"
            raise PydanticCustomError("item_error", "{message}", {"index": j, "field": "file", "message": message})
        return v

    # -- construction --

    @classmethod
    def parse(cls, data: dict[str, Any]) -> "Scenario":
        """Validate a mapping (as read from TOML or JSON); raises :class:`ScenarioError`."""
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            raise ScenarioError.from_pydantic(e) from None

    @classmethod
    def from_toml(cls, path: str | Path) -> "Scenario":
        """Read a scenario file written in TOML with human units."""
        return cls.parse(parse_toml(_read(path), path))

    @classmethod
    def from_json(cls, text: str) -> "Scenario":
        """Read a scenario from JSON (human units or the wire format)."""
        if not isinstance(text, (str, bytes, bytearray)):
            raise ScenarioError([("scenario", f"JSON text must be a str, bytes or bytearray, got {text!r}")])
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ScenarioError([("scenario", f"not valid JSON: {e}")]) from None
        return cls.parse(data)

    @classmethod
    def load(cls, path: str | Path) -> "Scenario":
        """Read a ``.toml`` or ``.json`` scenario file; a file that is not valid JSON or TOML is
        an error naming the file."""
        path = Path(_read(path, check_only=True))
        if path.suffix == ".json":
            try:
                data = json.loads(_read(path))
            except json.JSONDecodeError as e:
                raise ScenarioError([(str(path), f"not valid JSON: {e}")]) from None
            scenario = cls.parse(data)
        else:
            scenario = cls.from_toml(path)
        scenario._source_dir = path.resolve().parent
        return scenario

    @property
    def source_dir(self) -> Path | None:
        """The directory of the file the scenario was loaded from (searched first for the
        modules of its Python models, :mod:`pertlab.pymodels`); None when built in code."""
        return self._source_dir

    def __eq__(self, other: object) -> bool:
        """Scenarios are equal when their fields are: where one was loaded from
        (:attr:`source_dir`) does not count (pydantic's equality would compare it)."""
        if not isinstance(other, Scenario):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def has_link(self, name: str) -> bool:
        """Whether the topology has a link called ``name`` (a dumbbell's: ``bottleneck``, ``s{i}-r0``, ``r1-d{i}``)."""
        return _has_link(name, self.links, self.dumbbell)

    def link_names(self) -> str:
        """The topology's link names, for a message: ``bottleneck, s0-r0 .. s49-r0, r1-d0 .. r1-d49``."""
        return _link_list(self.links, self.dumbbell)

    # -- output --

    def to_wire(self) -> dict[str, Any]:
        """The core's wire format as a dict: rates in bit/s, times in ns."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    def to_wire_json(self, indent: int | None = None) -> str:
        """The core's wire format as JSON text, ``indent`` spaces a level (None: one line)."""
        if indent is not None and (isinstance(indent, bool) or not isinstance(indent, int) or not 0 <= indent <= MAX_INDENT):
            raise ValueError(f"indent: must be None or an integer from 0 to {MAX_INDENT} (spaces a level), got {indent!r}")
        return json.dumps(self.to_wire(), indent=indent)

    def check(self, memory_limit: float | None = None) -> "Scenario":
        """Ask the core to build the world without running it (checks node names,
        connectivity, and the memory estimate against ``memory_limit``: bytes,
        default the memory available now, ``math.inf`` for none; see
        :func:`pertlab.runner.run`); raises :class:`ScenarioError`. Returns ``self``."""
        self.queue_warnings(memory_limit)
        return self

    def queue_warnings(self, memory_limit: float | None = None) -> list[str]:
        """The core's ``queue_warnings`` of a run of this scenario, known before it runs: each
        queue whose discipline can never act on its buffer (RED's min_th at or above it, CoDel's or
        PIE's delay threshold beyond what it holds), named by link and direction; empty when every
        queue can act. Checks the scenario as
        :meth:`check` does, and raises as it does."""
        from .. import _core
        from ..memory import core_limit

        limit = core_limit(memory_limit)
        try:
            return _core.validate_json(self.to_wire_json(), limit)
        except ValueError as e:
            raise ScenarioError.from_core(e, memory_limit="default" if memory_limit is None else "given") from None

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """JSON Schema of the scenario file format (human units)."""
        return cls.model_json_schema(mode="validation")
