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
:mod:`qdsim.experiment.resolve`, which is always run before anything is simulated.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError, model_validator

from ..errors import SpecError, validation_error
from .fields import Duration, HostJitter, Name, PositiveDuration, PositiveRate, Probability, Strict
from .traffic import AnyFlowGroup

__all__ = [
    "Dumbbell",
    "Experiment",
    "Graph",
    "GraphLink",
    "GraphNode",
    "ModelCurve",
    "PacketRecord",
    "Panel",
    "PlotDefaults",
    "QdiscSpec",
    "Quick",
    "Reference",
    "Sampling",
    "SeriesPanel",
    "Source",
    "Spec",
    "Star",
    "Sweep",
    "apply_override",
    "load",
    "load_raw",
    "parse_override",
    "validate",
]


# --- sections -------------------------------------------------------------------------------


class Experiment(Strict):
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


class _Topology(Strict):
    """What every ``[topology]`` kind has: ``host_jitter``, the largest random processing
    delay each packet a host (a flow endpoint) sends waits before its link, in order (0 =
    exact timing). Without it, each host takes its flows' TCP profile's (exact timing for a
    stack as a simulator runs it, 10 us for real hosts; the largest where a host serves
    several). Routers add nothing."""

    host_jitter: HostJitter | None = None


class Dumbbell(_Topology):
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


class GraphNode(Strict):
    """``[[topology.nodes]]``: one node of a general graph."""

    name: Name


class GraphLink(Strict):
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


class Graph(_Topology):
    """``[topology]`` with ``kind = "graph"``: explicit nodes and links; ``qdisc`` is the qdisc
    of every link that gives none (one swept key sets every hop of a chain)."""

    kind: Literal["graph"]
    nodes: list[GraphNode] = Field(min_length=2)
    links: list[GraphLink] = Field(min_length=1)
    qdisc: QdiscSpec | None = None


class Star(_Topology):
    """``[topology]`` with ``kind = "star"``: hosts on one switch ``sw`` (a data-center rack).

    Hosts are the flows' endpoints (created by name; incast servers are ``<group>.s<i>``).
    Each host has a duplex link to the switch of ``rate`` and one-way ``delay`` (base RTT
    between two hosts = 4 × ``delay``). The switch's output port towards the host
    ``bottleneck`` is the link named ``bottleneck`` with ``qdisc``; its other output ports get
    ``port_qdisc``; host NICs (host → switch) get ``host_qdisc`` (default: ``port_qdisc``).
    Resolved in :mod:`qdsim.experiment.topologies`.
    """

    kind: Literal["star"]
    rate: PositiveRate
    delay: Duration
    bottleneck: Name
    qdisc: QdiscSpec
    port_qdisc: QdiscSpec | None = None
    host_qdisc: QdiscSpec | None = None
    hosts: list[Name] = Field(default_factory=list)


class PacketRecord(Strict):
    """``[sampling.packets]``: one row (``t``, ``flow``, ``size_bytes``, ``lost``) per packet
    offered to the link ``link`` from ``start`` until ``stop`` (default: the end), at most
    ``max_rows`` (17 bytes each; later offers are only counted)."""

    # Any link's name ("r1->h3" included); resolve checks it names a link of the topology.
    link: str = Field("bottleneck", min_length=1)
    start: Duration = 0
    stop: Duration | None = None
    max_rows: int = Field(4_000_000, ge=1, le=100_000_000)


class Sampling(Strict):
    """``[sampling]``: optional time series recorded during the run."""

    interval: PositiveDuration = 10_000_000
    queues: StrictBool = False
    tcp: StrictBool = False
    tcp_on_change: StrictBool = False
    tcp_events: StrictBool = False
    qdisc: StrictBool = False
    tx_bytes: StrictBool = False
    tcp_groups: list[Name] | None = Field(None, min_length=1)
    flows_in_progress: StrictBool = False
    packets: PacketRecord | None = None
    # Links whose delay distribution (p50–p99_delay_s) is kept; resolve checks the names.
    link_delays: list[Annotated[str, Field(min_length=1)]] | None = Field(None, min_length=1)


class Pcap(Strict):
    """``[pcap]``: a libpcap file per listed link of every packet it transmitted
    (``RESULTS/pcap/<link>.pcap``), and with ``drops`` one of the packets it dropped
    (``<link>.drops.pcap``); only in a single run (``qdsim run``)."""

    # Any link's name ("r1->h3" included); resolve checks each names a link of the topology.
    links: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1)
    drops: StrictBool = False


Seed = Annotated[int, Field(ge=0, lt=2**64)]


class Sweep(BaseModel):
    """``[sweep]``: dotted keys → lists of values (a product grid), plus ``repetitions`` or
    ``seeds`` (one repetition per listed seed instead of derived ones)."""

    model_config = ConfigDict(extra="allow")

    repetitions: int = Field(1, ge=1, lt=2**32)
    seeds: list[Seed] | None = Field(None, min_length=1)

    @property
    def grid(self) -> dict[str, list[Any]]:
        """Returns the swept keys and their values, in file order."""
        return dict(self.model_extra or {})


class Reference(Strict):
    """A reference line of a plot: horizontal at ``y`` (e.g. a paper's fair share) or
    vertical at ``x`` (e.g. the RTT on a target axis), in display units."""

    y: float | None = None
    x: float | None = None
    label: str = ""
    panel: int = Field(0, ge=0)

    @model_validator(mode="after")
    def _one_position(self) -> Reference:
        if (self.x is None) == (self.y is None):
            raise ValueError("exactly one of x (a vertical line) and y (a horizontal line)")
        return self


class Panel(Strict):
    """One panel of a ``sweep`` figure: a metric column and how it is shown.

    ``scale`` multiplies the values for display (default: by the column's unit, e.g. bit/s →
    Mb/s); ``groups`` keeps only those flow groups' rows in this panel; ``improvement_over``
    draws ``100 × (baseline − value) / baseline`` per x instead, where the baseline is the line
    whose legend label (or ``by`` value) is given.
    """

    metric: str
    label: str | None = None
    scale: float | None = None
    improvement_over: str | None = None
    #: This panel's flow groups (default: ``[plot].groups``), so that panels of one sweep can
    #: show different groups (Kantawala & Turner's Fig. 4(a) and 4(b) are one run's two groups).
    groups: list[str] | None = None


class ModelCurve(Strict):
    """``[plot.model]``: a curve ``y = function(x)`` drawn over a ``sweep`` figure's panel.

    ``function`` is looked up in ``module``, a Python file beside the experiment file; it
    takes an x value in the axis's unit and returns the panel's metric in the column's
    unit (the panel's ``scale`` is applied after).
    """

    module: str = Field(pattern=r"^[A-Za-z0-9_]+\.py$")
    function: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    label: str = "model"
    panel: int = Field(0, ge=0)


class SeriesPanel(Strict):
    """One panel of a ``series`` figure: a sampled column against time, one line per ``by`` value.

    ``series_queue`` columns are the link ``link``'s; ``series_tcp`` columns are summed
    over the flows sampled at each time (``in_timeout`` → flows in timeout), or over the
    flows of flow group ``group`` only (one flow's cwnd beside another's).
    ``per_interval`` turns a cumulative column (``drops``) into per-sample differences;
    ``ylim`` fixes the y range drawn (in displayed units), e.g. to keep a window inflated
    during one recovery from flattening the rest.
    """

    table: Literal["series_queue", "series_tcp"]
    y: str
    link: str = "bottleneck"
    group: str | None = None
    per_interval: StrictBool = False
    label: str | None = None
    scale: float = 1.0
    ylim: tuple[float, float] | None = None


class PlotDefaults(Strict):
    """``[plot]``: the figure ``qdsim reproduce`` draws (and the defaults of ``qdsim plot``).

    ``kind = "sweep"`` (the default) draws metrics against a swept key: ``y`` may be a list,
    one panel per entry (a column name or a :class:`Panel`), stacked and sharing the x-axis;
    ``groups`` keeps only those flow groups' rows; ``labels`` renames legend entries (keyed
    by the ``by`` value as text) and ``colors`` colours them (keyed by the legend text);
    ``reference`` draws reference lines; ``model`` a curve computed beside the experiment
    file. ``kind = "series"`` draws ``panels`` of sampled series against time, one line per
    value of the swept key ``by``. ``kind = "packets"`` draws the packet record, one panel per
    value of ``by``, the flows of the groups ``upper`` in the upper half (Augé & Roberts'
    Fig. 4). ``x_unit`` fixes the unit quantity values are drawn in
    (``"ms"``: ``"150us"`` → 0.15), else numbers with one common unit keep it.
    """

    kind: Literal["sweep", "series", "packets"] = "sweep"
    x: str | None = None
    x_unit: str | None = None
    y: str | list[str | Panel] = "goodput_bps"
    by: str | None = None
    title: str | None = None
    logx: StrictBool = False
    xlabel: str | None = None
    groups: list[str] | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    colors: dict[str, str] = Field(default_factory=dict)
    reference: list[Reference] = Field(default_factory=list)
    model: ModelCurve | None = None
    panels: list[SeriesPanel] = Field(default_factory=list)
    time_unit: Literal["s", "ms"] = "s"
    xlim: tuple[float, float] | None = None
    upper: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _kind_keys(self) -> PlotDefaults:
        if self.kind == "series" and not (self.panels and self.by):
            raise ValueError('with kind = "series": `panels` (at least one) and `by` (the swept key giving one line each)')
        if self.kind == "packets" and not self.by:
            raise ValueError('with kind = "packets": `by` (the swept key giving one panel each)')
        if self.upper and self.kind != "packets":
            raise ValueError('`upper` only with kind = "packets"')
        if self.kind == "sweep" and self.panels:
            raise ValueError('`panels` only with kind = "series" (a sweep figure lists its panels in `y`)')
        return self


class Source(Strict):
    """``[source]``: where a reproduced experiment comes from (provenance, not simulated)."""

    paper: str
    figure: str
    section: str = ""
    notes: str = ""


class Quick(Strict):
    """``[quick]``: the shortened run of a paper figure (``qdsim reproduce --quick``, the
    figure tests): ``repetitions`` or ``seeds`` replace the sweep's, ``set`` holds overrides
    (dotted key → value), ``sweep`` replaces some swept keys' values by a subset."""

    repetitions: int | None = Field(None, ge=1, lt=2**32)
    seeds: list[Seed] | None = Field(None, min_length=1)
    set: dict[str, Any] = Field(default_factory=dict)
    sweep: dict[str, list[Any]] = Field(default_factory=dict)


class Spec(Strict):
    """A whole experiment file."""

    experiment: Experiment
    topology: Annotated[Dumbbell | Graph | Star, Field(discriminator="kind")]
    flows: list[AnyFlowGroup] = Field(min_length=1)
    sampling: Sampling | None = None
    pcap: Pcap | None = None
    sweep: Sweep | None = None
    plot: PlotDefaults = PlotDefaults()
    source: Source | None = None
    quick: Quick | None = None


# --- loading and overrides ------------------------------------------------------------------


def load_raw(path: str | Path) -> dict[str, Any]:
    """Returns the TOML file at ``path`` as a dict.

    Raises SpecError when the file is missing or is not valid TOML.
    """
    path = Path(path)
    try:
        # utf-8-sig: a byte-order mark (as some Windows editors write) is not part of the TOML.
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise SpecError(str(path), str(path), f"a readable experiment file ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise SpecError(str(path), "(file)", f"a UTF-8 text file (TOML); byte {exc.start} is not UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(str(path), "(file)", f"valid TOML ({exc})") from None


def refuse_overridden_sets(raw: dict[str, Any], overrides: list[str] | tuple[str, ...] | Mapping[str, Any], quick: bool = False, option: str = "--set") -> None:
    """Raises SpecError for an override that a sweep of ``raw`` would override in turn, so
    that it would do nothing: a key the ``[sweep]`` sweeps or a key inside a swept value
    (every run takes the whole value from the sweep), and with ``quick`` a key the
    ``[quick]`` table sets. ``overrides`` are ``--set`` texts (``KEY=VALUE``) or a mapping of
    keys to values (the API's); the ``sweep.`` keys change the sweep and are allowed."""
    pairs = [(k, f"{k}={v!r}") for k, v in overrides.items()] if isinstance(overrides, Mapping) else [(parse_override(t)[0], t) for t in overrides]
    swept = [k for k in (raw.get("sweep") or {}) if k not in ("repetitions", "seeds")]
    quick_sets = list((raw.get("quick") or {}).get("set") or {}) if quick else []
    for key, shown in pairs:
        if key.split(".")[0] in ("sweep", "quick", "plot", "source"):
            continue
        for over in swept:
            if key == over or key.startswith(over + "."):
                allowed = f'a key the [sweep] does not sweep: every run takes `{over}` from sweep."{over}" (change its values there: {option} \'sweep."{over}"=[...]\')'
                raise SpecError(option, shown, allowed)
        for over in quick_sets:
            if key == over or key.startswith(over + "."):
                raise SpecError(option, shown, f"a key the [quick] table does not set: --quick runs take `{over}` from it (run without --quick to set it)")


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
    if key.startswith("sweep.") and key not in ("sweep.repetitions", "sweep.seeds"):
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
        raise validation_error(exc, raw, Spec) from None


def load(path: str | Path, overrides: list[str] | tuple[str, ...] = ()) -> tuple[dict[str, Any], Spec]:
    """Loads the experiment file ``path``, applies ``--set`` ``overrides`` and validates it.

    Returns the raw dict (after overrides) and the validated spec.
    """
    raw = load_raw(path)
    for text in overrides:
        raw = apply_override(raw, *parse_override(text))
    return raw, validate(raw)
