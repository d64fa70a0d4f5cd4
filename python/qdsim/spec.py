"""The experiment file: pydantic models, loading, ``--set`` overrides and error rendering.

An experiment file is TOML (see ``docs/experiment-file.md`` for every key). Loading it goes
through three steps, each of which can only fail with a :class:`~qdsim.errors.SpecError`
naming the key path, the bad value and what is allowed:

1. parse the TOML into a plain dict (the *raw* spec, kept for ``spec.json``);
2. apply ``--set KEY=VALUE`` overrides (and sweep points) to the raw dict by dotted key;
3. validate it into a :class:`Spec`: unknown keys are errors, quantities are parsed from
   their unit strings into the core's integers (ns, bit/s, bytes, packets).

Checks that need the simulator's catalog (qdisc kinds and parameters, congestion controls)
or span several sections (flow keys that only make sense for one topology kind) happen in
:mod:`qdsim.resolve`, which is always run before anything is simulated.
"""

from __future__ import annotations

import copy
import tomllib
import types
import typing
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, StrictBool, Tag, ValidationError

from . import tcp_options, units
from .errors import SpecError

__all__ = [
    "Dumbbell",
    "Experiment",
    "Graph",
    "GraphLink",
    "GraphNode",
    "IncastFlows",
    "PlotDefaults",
    "QdiscSpec",
    "Reference",
    "Sampling",
    "ShortFlows",
    "Source",
    "Spec",
    "Star",
    "Sweep",
    "TcpFlows",
    "TcpOptions",
    "UdpCbrFlows",
    "apply_override",
    "load",
    "load_raw",
    "parse_override",
    "validate",
]


# --- quantity types -------------------------------------------------------------------------


def _positive(parse: typing.Callable[[object], int], kind: str) -> typing.Callable[[object], int]:
    def check(value: object) -> int:
        amount = parse(value)
        if amount <= 0:
            raise units.UnitError(value, f"a value > 0; {units.ALLOWED[kind]}")
        return amount

    return check


def _probability(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise units.UnitError(value, "a probability in [0, 1), such as 0.01")
    return float(value)


#: The most flows one ``[[flows]]`` group may have.
MAX_FLOWS_PER_GROUP = 1_000_000

Rate = Annotated[int, BeforeValidator(units.parse_rate)]
PositiveRate = Annotated[int, BeforeValidator(_positive(units.parse_rate, "rate"))]
Duration = Annotated[int, BeforeValidator(units.parse_duration)]
PositiveDuration = Annotated[int, BeforeValidator(_positive(units.parse_duration, "duration"))]
Bytes = Annotated[int, BeforeValidator(units.parse_bytes)]
PositiveBytes = Annotated[int, BeforeValidator(_positive(units.parse_bytes, "bytes"))]
PositivePkts = Annotated[int, BeforeValidator(_positive(units.parse_pkts, "pkts"))]
Probability = Annotated[float, BeforeValidator(_probability)]
Name = Annotated[str, Field(min_length=1, pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")]


class _Strict(BaseModel):
    """Base of every section: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)


# --- sections -------------------------------------------------------------------------------


class Experiment(_Strict):
    """``[experiment]``: name, duration, measurement window and seed."""

    name: Name
    description: str = ""
    duration: PositiveDuration
    warmup: Duration = 0
    seed: int = Field(1, ge=0, lt=2**64)


class QdiscSpec(BaseModel):
    """A queue discipline: ``kind`` plus that algorithm's parameters (checked in resolve)."""

    model_config = ConfigDict(extra="allow")

    kind: str

    @property
    def params(self) -> dict[str, Any]:
        """Returns the algorithm parameters (every key but ``kind``)."""
        return dict(self.model_extra or {})


class Dumbbell(_Strict):
    """``[topology]`` with ``kind = "dumbbell"``: senders → r1 → bottleneck → r2 → receivers."""

    kind: Literal["dumbbell"]
    bottleneck_rate: PositiveRate
    bottleneck_delay: Duration
    qdisc: QdiscSpec
    reverse_qdisc: QdiscSpec | None = None
    loss: Probability = 0.0
    access_rate: PositiveRate = 1_000_000_000
    access_delay: Duration = 0
    receiver_delay: Duration = 0


class GraphNode(_Strict):
    """``[[topology.nodes]]``: one node of a general graph."""

    name: Name


class GraphLink(_Strict):
    """``[[topology.links]]``: a link (both directions unless ``duplex = false``)."""

    from_: Name = Field(alias="from")
    to: Name
    name: Name | None = None
    rate: PositiveRate
    delay: Duration
    duplex: StrictBool = True
    loss: Probability = 0.0
    metric: int = Field(1, ge=1, lt=2**32)
    qdisc: QdiscSpec | None = None
    reverse_qdisc: QdiscSpec | None = None


class Graph(_Strict):
    """``[topology]`` with ``kind = "graph"``: explicit nodes and links."""

    kind: Literal["graph"]
    nodes: list[GraphNode] = Field(min_length=2)
    links: list[GraphLink] = Field(min_length=1)


class Star(_Strict):
    """``[topology]`` with ``kind = "star"``: hosts on one switch ``sw`` (a data-center rack).

    Hosts are the flows' endpoints (created by name; incast servers are ``<group>.s<i>``).
    Each host has a duplex link to the switch of ``rate`` and one-way ``delay`` (base RTT
    between two hosts = 4 × ``delay``). The switch's output port towards the host
    ``bottleneck`` is the link named ``bottleneck`` with ``qdisc``; its other output ports get
    ``port_qdisc``; host NICs (host → switch) get ``host_qdisc`` (default: ``port_qdisc``).
    Resolved in :mod:`qdsim.topologies`.
    """

    kind: Literal["star"]
    rate: PositiveRate
    delay: Duration
    bottleneck: Name
    qdisc: QdiscSpec
    port_qdisc: QdiscSpec | None = None
    host_qdisc: QdiscSpec | None = None
    hosts: list[Name] = []


#: ``tcp = {...}`` of a TCP flow group: overrides of the core's TCP defaults, one optional key
#: per TCP option of the core's catalog, typed by its unit (:mod:`qdsim.tcp_options`).
TcpOptions = tcp_options.options_model(_Strict, {"bytes": PositiveBytes, "pkts": PositivePkts, "time": PositiveDuration, "bool": StrictBool})


class _FlowGroup(_Strict):
    group: Name
    #: Flows in the group; at most a million (each is a sender, a receiver and their state).
    count: int = Field(1, ge=1, le=MAX_FLOWS_PER_GROUP)
    #: Users the group's flows belong to (``count`` must be a multiple): flow ``i`` belongs to
    #: the group's user ``i // (count // users)``. Absent = the whole group is one user.
    users: int | None = Field(None, ge=1, lt=2**31)
    start: Duration = 0
    start_window: Duration = 0
    access_delay: Duration | None = None
    access_rate: PositiveRate | None = None
    src: Name | None = None
    dst: Name | None = None


class TcpFlows(_FlowGroup):
    """``[[flows]]`` with ``kind = "tcp"`` (the default): saturated or finite TCP transfers."""

    kind: Literal["tcp"] = "tcp"
    cc: str | None = None
    size: PositiveBytes | None = None
    tcp: TcpOptions = TcpOptions()


class UdpCbrFlows(_FlowGroup):
    """``[[flows]]`` with ``kind = "udp_cbr"``: constant-bit-rate UDP sources."""

    kind: Literal["udp_cbr"]
    rate: PositiveRate
    packet_size: PositiveBytes | None = None
    stop: Duration | None = None


class IncastFlows(_FlowGroup):
    """``[[flows]]`` with ``kind = "incast"``: ``count`` servers answer a ``client`` in rounds.

    Each round every server sends ``size`` bytes (or ``total_size`` / ``count``) on a fresh
    TCP connection, or with ``persistent = true`` on its one connection kept across rounds;
    the next round starts ``think`` after the last response has arrived (a barrier named
    after the group). Resolved in :mod:`qdsim.workloads`.
    """

    kind: Literal["incast"]
    client: Name
    size: PositiveBytes | None = None
    total_size: PositiveBytes | None = None
    rounds: int | None = Field(None, ge=1, lt=2**32)
    think: Duration = 0
    persistent: StrictBool = False
    cc: str | None = None
    tcp: TcpOptions = TcpOptions()


class ShortFlows(_FlowGroup):
    """``[[flows]]`` with ``kind = "short_flows"``: Poisson arrivals of finite TCP transfers.

    Sizes are uniform in ``[size_min, size_max]``; the arrival rate is ``arrival_rate`` per
    second or ``load`` × ``load_rate`` / (8 × mean size). Resolved in :mod:`qdsim.workloads`.
    """

    kind: Literal["short_flows"]
    load: float | None = Field(None, gt=0, le=1)
    load_rate: PositiveRate | None = None
    arrival_rate: float | None = Field(None, gt=0)
    size_min: PositiveBytes = 2000
    size_max: PositiveBytes = 98000
    stop: Duration | None = None
    cc: str | None = None
    tcp: TcpOptions = TcpOptions()


def _flow_kind(value: Any) -> str:
    if isinstance(value, dict):
        return value.get("kind", "tcp")
    return getattr(value, "kind", "tcp")


FlowGroup = Annotated[
    Annotated[TcpFlows, Tag("tcp")] | Annotated[UdpCbrFlows, Tag("udp_cbr")] | Annotated[IncastFlows, Tag("incast")] | Annotated[ShortFlows, Tag("short_flows")],
    Discriminator(_flow_kind),
]


class Sampling(_Strict):
    """``[sampling]``: optional time series recorded during the run."""

    interval: PositiveDuration = 10_000_000
    queues: StrictBool = False
    tcp: StrictBool = False
    tcp_on_change: StrictBool = False
    tcp_events: StrictBool = False


class Sweep(BaseModel):
    """``[sweep]``: dotted keys → lists of values (a product grid), plus ``repetitions``."""

    model_config = ConfigDict(extra="allow")

    repetitions: int = Field(1, ge=1, lt=2**32)

    @property
    def grid(self) -> dict[str, list[Any]]:
        """Returns the swept keys and their values, in file order."""
        return dict(self.model_extra or {})


class Reference(_Strict):
    """A horizontal reference line of a plot (e.g. a paper's fair-share value)."""

    y: float
    label: str = ""
    panel: int = Field(0, ge=0)


class PlotDefaults(_Strict):
    """``[plot]``: defaults of ``qdsim plot`` (and the figure ``qdsim reproduce`` draws).

    ``y`` may be a list: one panel per metric, stacked and sharing the x-axis. ``groups``
    keeps only those flow groups' rows; ``labels`` renames legend entries (keyed by the
    ``by`` value as text); ``reference`` draws horizontal lines.
    """

    x: str | None = None
    y: str | list[str] = "goodput_bps"
    by: str | None = None
    title: str | None = None
    logx: StrictBool = False
    xlabel: str | None = None
    groups: list[str] | None = None
    labels: dict[str, str] = {}
    reference: list[Reference] = []


class Source(_Strict):
    """``[source]``: where a reproduced experiment comes from (provenance, not simulated)."""

    paper: str
    figure: str
    section: str = ""
    notes: str = ""


class Spec(_Strict):
    """A whole experiment file."""

    experiment: Experiment
    topology: Annotated[Dumbbell | Graph | Star, Field(discriminator="kind")]
    flows: list[FlowGroup] = Field(min_length=1)
    sampling: Sampling | None = None
    sweep: Sweep | None = None
    plot: PlotDefaults = PlotDefaults()
    source: Source | None = None


# --- loading and overrides ------------------------------------------------------------------


def load_raw(path: str | Path) -> dict[str, Any]:
    """Returns the TOML file at ``path`` as a dict.

    Raises SpecError when the file is missing or is not valid TOML.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(str(path), str(path), f"a readable experiment file ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise SpecError(str(path), "(file)", f"a UTF-8 text file (TOML); byte {exc.start} is not UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(str(path), "(file)", f"valid TOML ({exc})") from None


def parse_override(text: str) -> tuple[str, Any]:
    """Splits ``KEY=VALUE``; the value is read as a TOML value when it is one, else a string."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise SpecError("--set", text, "KEY=VALUE with a dotted KEY, e.g. topology.qdisc.limit=20pkt")
    return key, _toml_value(value.strip())


def _toml_value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_override(raw: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """Returns a copy of ``raw`` with the dotted ``key`` (e.g. ``flows.0.count``) set to ``value``.

    Numeric components index lists; missing tables are created. Under ``sweep.`` the rest of
    the key is one swept key (``sweep.topology.qdisc.limit`` or, as in TOML,
    ``sweep."topology.qdisc.limit"``), not a path.
    """
    result = copy.deepcopy(raw)
    if key.startswith("sweep.") and key != "sweep.repetitions":
        swept = key.removeprefix("sweep.").strip('"')
        table = result.setdefault("sweep", {})
        if not isinstance(table, dict):
            raise SpecError("sweep", table, f"a table to set `{key}` in")
        table[swept] = value
        return result
    parts = key.split(".")
    node: Any = result
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        here = ".".join(parts[: depth + 1])
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise SpecError(here, part, f"a list index from 0 to {len(node) - 1}")
            index = int(part)
            if last:
                node[index] = value
            else:
                node = node[index]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            else:
                node = node.setdefault(part, {})
        else:
            raise SpecError(here, node, f"a table or list to set `{key}` in")
    return result


def validate(raw: dict[str, Any]) -> Spec:
    """Returns the validated :class:`Spec` for ``raw``; raises SpecError on the first problem."""
    try:
        return Spec.model_validate(raw)
    except ValidationError as exc:
        raise _spec_error(exc, raw) from None


def load(path: str | Path, overrides: list[str] | tuple[str, ...] = ()) -> tuple[dict[str, Any], Spec]:
    """Loads the experiment file ``path``, applies ``--set`` ``overrides`` and validates it.

    Returns the raw dict (after overrides) and the validated spec.
    """
    raw = load_raw(path)
    for text in overrides:
        raw = apply_override(raw, *parse_override(text))
    return raw, validate(raw)


# --- pydantic errors → one line -------------------------------------------------------------


def _spec_error(exc: ValidationError, raw: dict[str, Any]) -> SpecError:
    """Turns pydantic's first error into a SpecError with a dotted key path into ``raw``."""
    error = exc.errors(include_url=False)[0]
    path, _ = _data_path(error["loc"], raw)
    key = ".".join(str(p) for p in path) or "(file)"
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == "extra_forbidden":
        return SpecError(key, error["input"], _known_keys(path[:-1], raw))
    if kind == "missing":
        return SpecError(key, SpecError.MISSING, "this key is required")
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        tag_key = f"{key}.kind" if key != "(file)" else "kind"
        expected = ctx.get("expected_tags", "")
        found = ctx.get("tag", SpecError.MISSING)
        return SpecError(tag_key, found, f"one of {expected}")
    if kind == "literal_error":
        return SpecError(key, error["input"], f"one of {ctx.get('expected')}")
    cause = ctx.get("error")
    if isinstance(cause, units.UnitError):
        return SpecError(key, cause.value, cause.allowed)
    message = error["msg"].removeprefix("Value error, ")
    message = message.replace("Input should be", "must be").replace("String should", "must")
    return SpecError(key, error["input"], message[0].lower() + message[1:])


def _data_path(loc: tuple[Any, ...], raw: Any) -> tuple[list[Any], Any]:
    """Keeps the parts of pydantic's ``loc`` that exist in the data (drops union tags)."""
    path: list[Any] = []
    node = raw
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if (isinstance(node, dict) and part in node) or (isinstance(node, list) and isinstance(part, int) and part < len(node)):
            path.append(part)
            node = node[part]
        elif last and isinstance(node, dict):
            path.append(part)
            node = SpecError.MISSING
        # else: a pydantic-internal part (a union member's tag); skip it.
    return path, node


def _known_keys(path: list[Any], raw: dict[str, Any]) -> str:
    """Describes the keys allowed in the table at ``path`` (walking models with the data)."""
    model: Any = Spec
    node: Any = raw
    for part in path:
        node = node[part]
        if isinstance(part, int):
            model = _item_type(model)
        else:
            field = _fields_by_alias(model).get(part)
            model = field.annotation if field else None
        model = _pick_model(model, node)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return "a known key"
    names = sorted(_fields_by_alias(model))
    if model.model_config.get("extra") == "allow":
        return f"a known key ({', '.join(names)}, or parameters of that kind)"
    return f"one of the keys {', '.join(names)}"


def _fields_by_alias(model: Any) -> dict[str, Any]:
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return {}
    return {(f.alias or name): f for name, f in model.model_fields.items()}


def _item_type(annotation: Any) -> Any:
    annotation = _strip(annotation)
    args = typing.get_args(annotation)
    return args[0] if args else None


def _strip(annotation: Any) -> Any:
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _pick_model(annotation: Any, node: Any) -> Any:
    """Returns the model class of ``annotation`` matching the data ``node`` (for unions)."""
    annotation = _strip(annotation)
    is_union = typing.get_origin(annotation) in (Union, types.UnionType)
    candidates = [_strip(a) for a in typing.get_args(annotation)] if is_union else [annotation]
    models = [c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)]
    if isinstance(node, dict) and len(models) > 1:
        wanted = node.get("kind", "tcp")
        for m in models:
            field = m.model_fields.get("kind")
            if field is not None and wanted in typing.get_args(field.annotation):
                return m
    return models[0] if models else annotation
