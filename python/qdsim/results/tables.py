"""The results tables: their fixed schemas, and the rows one run contributes to each.

Every results directory (``qdsim run``, ``sweep``, ``reproduce``) holds the same tables with
the same column types, whatever its runs produced: a column that is null in every row keeps
its type (``fct_s`` is float64 also when no transfer finished), seeds are uint64 wherever
they appear, counts are int64, and ``links`` has one ``drops_<reason>`` column for every
drop reason in the core's catalog (0 where there were none), so a query written against
one directory works on every other.

Identifying columns come first: ``seed`` in every table; in a sweep also each swept key
(named by its dotted key; a swept table or list as its canonical JSON text), for a swept
quantity such as ``"20pkt"`` also ``<key>__value`` (a float in the base unit: s, bit/s, B,
pkt) and ``<key>__unit`` (so that SQL sorts ``20pkt`` before ``200pkt``), then ``rep`` and
``point_key``.

This module makes the tables and touches no file (:mod:`qdsim.results.store` writes and
reads them). A run's ``points``, ``flows``, ``groups`` and ``links`` are
:class:`~qdsim.results.columns.ColumnTable` s — the core's columns as it handed them over and
lists of Python values, with the column types by name — so that ``qdsim run`` imports
neither pyarrow nor NumPy; its sampled series are Arrow tables
(:mod:`qdsim.results.series_tables`); :func:`arrow_table` gives either as Arrow. With
:mod:`qdsim.run.one` (the summary) it decides what a stored sweep point holds, so both files are part of the code version that keys stored points
(:func:`qdsim.run.one.code_version`).
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..experiment import units
from .columns import ColumnTable, CoreColumn
from .links import link_named
from .rows import Rows, column_values, field_values

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "SEED",
    "SERIES_TABLES",
    "TABLES",
    "Column",
    "SweptColumn",
    "arrow_table",
    "axis_cells",
    "column_list",
    "columns",
    "drop_reasons",
    "mark_reasons",
    "run_tables",
    "schema",
    "swept_columns",
    "with_ids",
]

#: The type of every seed column.
SEED = "uint64"
#: Tables every results directory has, one Parquet file each.
TABLES = ("points", "flows", "groups", "links")
#: Tables present when a run has rows for them: the sampled series, when it sampled them, and
#: the transfer table (one row per finite TCP connection: each transfer's start, size and
#: completion time, an unfinished one's censored at the end of the run).
SERIES_TABLES = ("series_queue", "series_tcp", "series_tcp_events", "series_qdisc", "series_packets", "series_reasons", "transfers")

#: The column types by name (:data:`qdsim.results.columns.TYPE_NAMES`).
_F, _I, _S, _B, _LIST_F = "float64", "int64", "string", "bool", "list<float64>"


@functools.cache
def drop_reasons() -> tuple[str, ...]:
    """Returns every drop reason a link's results can name, from the core's catalog."""
    from ..experiment.algorithms import core_catalog

    return tuple(core_catalog()["drop_reasons"])


@functools.cache
def mark_reasons() -> tuple[str, ...]:
    """Returns every ECN mark reason a link's results can name, from the core's catalog."""
    from ..experiment.algorithms import core_catalog

    return tuple(core_catalog()["mark_reasons"])


@dataclass(frozen=True)
class Column:
    """One column of a results table: its name, stored type (its name:
    :data:`qdsim.results.columns.TYPE_NAMES`), unit and meaning."""

    name: str
    type: str
    unit: str
    doc: str


_DTYPES = {"int64": _I, "float64": _F, "string": _S, "bool": _B}


def _col(name: str, kind: str, doc: str, unit: str = "") -> Column:
    """A column the Python side computes (its unit written out: the core's come from their
    names, ``qdsim_core::columns::unit_of``)."""
    return Column(name, kind, unit, doc)


def _core_columns(table: str) -> list[Column]:
    """Returns the columns of ``table`` the core's rows fill, as its catalog declares them
    (``result_columns``: each a field of a result struct, with its doc comment); a count by
    reason becomes one column per reason of the catalog's list, 0 where there were none."""
    from ..experiment.algorithms import core_catalog

    out = []
    for c in core_catalog()["result_columns"][table]:
        if c["dtype"] == "int64_by_reason":
            what = c["name"].removesuffix("_by_reason")
            reasons = {"drops": drop_reasons, "marks": mark_reasons}[what]()
            out += [Column(f"{what}_{reason}", _I, "", f"{c['doc']}: {reason}") for reason in reasons]
        else:
            out.append(Column(c["name"], _DTYPES[c["dtype"]], c["unit"], c["doc"]))
    return out


#: The columns the Python side adds to the core's, per table (:func:`qdsim.run.one.summarize`
#: and :func:`run_tables` compute them): declared here once, with their meaning.
_DERIVED: dict[str, tuple[Column, ...]] = {
    "points": (
        _col("jain_index", _F, "Jain's fairness index over the saturated TCP flows' goodput (all flows if there are none)"),
        _col("bottleneck", _S, "the link named `bottleneck`, otherwise the most utilised link"),
        _col("bottleneck_utilization", _F, "the bottleneck's utilization over the window"),
        _col("bottleneck_drops", _I, "the bottleneck's drops in the window, all reasons"),
        _col("fair_share_bps", _F, "the bottleneck's rate over the number of flows", "bit/s"),
        _col("events", _I, "events the simulator processed"),
        _col("packets_forwarded", _I, "data and UDP packets transmitted on any link"),
        _col("packets_not_recorded", _I, "`[sampling.packets]`: packets offered past its row cap; null without it"),
        _col("duration_s", _F, "simulated duration", "s"),
        _col("warmup_s", _F, "start of the measurement window", "s"),
        _col("wall_s", _F, "wall-clock time of the run", "s"),
    ),
    "flows": (_col("user", _I, "the user (class) the flow belongs to: its group's index without `users`"),),
    "groups": (
        _col("users", _I, "users of the group (`users`, else 1)"),
        _col("per_flow_goodput_bps", _F, "mean goodput per flow", "bit/s"),
        _col("per_flow_goodput_std_bps", _F, "population standard deviation of its flows' goodputs", "bit/s"),
        _col("per_user_goodput_bps", _F, "mean goodput per user", "bit/s"),
        _col("fair_share_ratio", _F, "`per_flow_goodput_bps` over the fair share (the bottleneck's rate over the number of flows)"),
        _col("retransmits", _I, "its flows' retransmissions in the window (null if an engine could not count one)"),
        _col("timeouts", _I, "its flows' retransmission timeouts in the window"),
        _col("drops", _I, "its flows' packets dropped in the window, on any link"),
        _col("retransmits_total", _I, "`retransmits` over the whole run"),
        _col("timeouts_total", _I, "`timeouts` over the whole run"),
        _col("drops_total", _I, "`drops` over the whole run"),
        _col("rwnd_limited", _F, "its flows' mean `rwnd_limited`"),
        _col("arrivals", _I, "a transfer generator's (`short_flows` with `hosts`, or `[sampling] flows_in_progress`) transfers that arrived in the window; null in other groups"),
        _col("shared_arrivals", _I, "of those, transfers that found every host pair of the pool busy and shared one"),
        _col("mean_in_progress", _F, "time-weighted mean number of its transfers in progress over the window"),
        _col("max_in_progress", _I, "most transfers in progress at once in the window"),
        _col("in_progress_fraction", _LIST_F, "fraction of the window with exactly n transfers in progress, n = 0, 1, ... (null for a group of several generators)"),
    ),
    "links": (
        _col("overflow_drops", _I, "drops because the buffer was full (`drops_overflow`)"),
        _col("aqm_drops", _I, "every other drop: the discipline's own decisions, and random link loss"),
    ),
    "series_queue": (
        _col("link_name", _S, "the link's name"),
        _col("aqm_drops", _I, "cumulative drops other than overflows"),
        _col("utilization", _F, "`[sampling] tx_bytes`: the link's utilization since its previous sample; null without it"),
    ),
    "series_qdisc": (_col("link_name", _S, "the link's name"),),
    "series_reasons": (_col("link_name", _S, "the link's name"),),
}


@functools.cache
def column_list(table: str) -> tuple[Column, ...]:
    """Returns every column of ``table`` after the identifying ones: the core's
    (:func:`_core_columns`), then those computed in Python (:data:`_DERIVED`); ``points``
    is the run's own row, all of it from Python."""
    core = [] if table == "points" else _core_columns(table)
    return (*core, *_DERIVED.get(table, ()))


def columns(table: str) -> tuple[tuple[str, str], ...]:
    """Returns ``table``'s own columns (after the identifying ones) and their type names, in order."""
    return tuple((c.name, c.type) for c in column_list(table))


def schema(table: str) -> pa.Schema:
    """Returns the Arrow schema of ``table``'s own columns (imports pyarrow)."""
    from .arrays import arrow_schema

    return arrow_schema(columns(table))


def _from_rows(table: str, rows: list[dict[str, Any]]) -> ColumnTable:
    """Returns ``rows`` as ``table``'s schema; a key the schema lacks is an error (a column
    that would drift from the documented layout), a column the rows lack is null."""
    _check_keys(table, rows)
    fields = columns(table)
    return ColumnTable(fields, {name: [row.get(name) for row in rows] for name, _ in fields}, len(rows))


def _check_keys(table: str, rows: list[dict[str, Any]], nested: frozenset[str] = frozenset()) -> set[str]:
    """Returns ``table``'s column names; raises if a row has a key that is neither one of
    them nor one of ``nested`` (a column that would drift from the documented layout)."""
    names = {name for name, _ in columns(table)}
    unknown = set().union(*rows) - names - nested
    if unknown:
        raise ValueError(f"{table}: columns {sorted(unknown)} are not in its schema (qdsim.results.tables)")
    return names


def _from_columns(table: str, data: dict[str, list[Any] | CoreColumn]) -> ColumnTable:
    """Returns ``data`` (column → list or the core's column) as ``table``'s schema."""
    fields = columns(table)
    return ColumnTable(fields, {name: data[name] for name, _ in fields}, len(data[fields[0][0]]))


def _links_table(links: dict[str, Any]) -> ColumnTable:
    """Returns the ``links`` table of a run's links by column (``results["links"]``: the
    core's columns, or lists from a reference engine): a link's drops and marks by reason
    (``drops_by_reason``: reason → count, or null from an engine that does not tell them
    apart) become one column per reason of the core's catalog, 0 where a link had none and
    null where it could not say, and its drops split into ``overflow_drops`` and
    ``aqm_drops`` as :func:`qdsim.results.links.drop_split` splits them. A 10⁵-flow run has
    4·10⁵ links, nearly all without a drop: the counts are filled in where there are some
    rather than looked up for every reason of every link."""
    by_reason = {"drops": drop_reasons(), "marks": mark_reasons()}
    # The fields are the keys a row would have.
    names = _check_keys("links", [links], frozenset(f"{what}_by_reason" for what in by_reason))
    count = len(next(iter(links.values()), []))
    data: dict[str, Any] = {}
    for what, reasons in by_reason.items():
        entries, unknown = _reason_entries(links.get(f"{what}_by_reason"), count)
        strange = {key for _, key, _ in entries} - set(reasons)
        if strange:
            raise ValueError(f"links: {what} reasons {sorted(strange)} are not in the core's catalog")
        made = {reason: [0] * count for reason in reasons}
        for row, key, n in entries:
            made[key][row] = n
        for row in unknown:
            for column in made.values():
                column[row] = None
        data.update((f"{what}_{reason}", column) for reason, column in made.items())
    # drop_split's rule by column: the overflows, and every other drop.
    overflow = data["drops_overflow"]
    drops = column_values(links.get("drops", [None] * count))
    data["overflow_drops"] = overflow
    data["aqm_drops"] = [None if d is None or o is None else d - o for d, o in zip(drops, overflow, strict=True)]
    return _from_columns("links", {name: data[name] if name in data else links.get(name, [None] * count) for name in names})


def _flows_table(summary: dict[str, Any], flows: Any) -> ColumnTable:
    """Returns the ``flows`` table: the core's columns (``results["flows"]``, :class:`Rows`
    of the core's columns) with each flow's ``user`` from the summary, whose rows hold the
    same values; a reference engine's flows from the summary's rows."""
    if isinstance(flows, Rows):
        return _from_columns("flows", {**flows.columns, "user": field_values(summary["flows"], "user")})
    return _from_rows("flows", summary["flows"])


def _reason_entries(given: Any, count: int) -> tuple[list[tuple[int, str, int]], list[int]]:
    """Returns a column of counts by reason (the core's ``map<string, int64>`` column, a
    list of dicts and Nones from a reference engine, or None: not told) as its entries —
    each one's row, reason and count — and the rows without a map."""
    if given is None:
        return [], list(range(count))
    if isinstance(given, CoreColumn):
        offsets, keys, counts = given.map_entries()
        entries = [(row, keys[j], counts[j]) for row, (first, end) in enumerate(itertools.pairwise(offsets)) if first != end for j in range(first, end)]
        return entries, given.null_rows()
    entries = [(row, key, n) for row, reasons in enumerate(given) if reasons for key, n in reasons.items()]
    return entries, [row for row, reasons in enumerate(given) if reasons is None]


_POINT_KEYS = ("jain_index", "bottleneck", "bottleneck_utilization", "fair_share_bps", "events", "packets_forwarded", "duration_s", "warmup_s", "wall_s")


def run_tables(summary: dict[str, Any], results: dict[str, Any]) -> dict[str, ColumnTable | pa.Table]:
    """Returns the tables one run contributes, without identifying columns: ``points``,
    ``flows`` and ``groups`` from its summary (:func:`qdsim.run.one.summarize`), ``links``
    from its results' links by column (these four as :class:`ColumnTable` s), and the
    sampled series of its results (``series_queue``, ``series_tcp``, ``series_tcp_events``,
    ``series_qdisc``, ``series_packets``, ``series_reasons``) and its ``transfers``, those
    that hold rows, as Arrow tables (:func:`qdsim.results.series_tables.series_tables`,
    imported only then: it needs NumPy and pyarrow)."""
    point = {key: summary[key] for key in _POINT_KEYS} | {"packets_not_recorded": summary.get("packets_not_recorded")}
    bottleneck = link_named(summary["links"], summary["bottleneck"])
    point["bottleneck_drops"] = None if bottleneck is None else bottleneck["drops"]
    out: dict[str, ColumnTable | pa.Table] = {
        "points": _from_rows("points", [point]),
        "flows": _flows_table(summary, results["flows"]),
        "groups": _from_rows("groups", summary["groups"]),
        "links": _links_table(results["links"]),
    }
    series = [*results["series"].values(), results.get("transfers", {})]
    if any(len(column) for table in series for column in table.values()):
        from .series_tables import series_tables

        out.update(series_tables(results, columns))
    return out


def with_ids(table: ColumnTable | pa.Table, ids: list[tuple[str, str, Any]]) -> ColumnTable | pa.Table:
    """Returns ``table`` with constant identifying columns ``(name, type name, value)`` first."""
    if isinstance(table, ColumnTable):
        return table.with_ids(ids)
    import pyarrow as pa

    from .arrays import arrow_array, arrow_type

    constant = {name: arrow_array([value] * table.num_rows, arrow_type(kind)) for name, kind, value in ids}
    return pa.table({**constant, **{name: table.column(name) for name in table.column_names}})


def arrow_table(table: ColumnTable | pa.Table) -> pa.Table:
    """Returns a table of :func:`run_tables` as an Arrow table (imports pyarrow)."""
    return table.to_arrow() if isinstance(table, ColumnTable) else table


# --- swept keys as columns ---------------------------------------------------------------------


def axis_cells(values: list[Any]) -> list[Any]:
    """Returns the table cells of a swept key's values: tables and lists as canonical JSON
    text; numbers, strings and booleans as they are when the whole axis has one kind, else
    as text (``[10, "20pkt"]`` → ``["10", "20pkt"]``), so that one column holds them."""
    cells = [json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v for v in values]
    kinds = {_kind(cell) for cell in cells}
    if len(kinds) > 1 and kinds != {"int", "float"}:
        cells = [cell if isinstance(cell, str) else json.dumps(cell) for cell in cells]
    return cells


def _kind(cell: Any) -> str:
    if isinstance(cell, bool):
        return "bool"
    if isinstance(cell, int):
        return "int"
    if isinstance(cell, float):
        return "float"
    return "str"


#: A quantity written with a unit: ``"20pkt"``, ``"1.5ms"``, ``"10Mbps"``.
_QUANTITY = re.compile(r"^\s*[0-9]+(?:\.[0-9]+)?\s*[A-Za-zµ]+\s*$")
#: How each kind of quantity becomes a number in its base unit, and that unit's name.
_BASE_UNITS: tuple[tuple[Callable[[object], int], float, str], ...] = (
    (units.parse_duration, 1e-9, "s"),
    (units.parse_rate, 1.0, "bit/s"),
    (units.parse_bytes, 1.0, "B"),
    (units.parse_pkts, 1.0, "pkt"),
)


def _quantity(cell: str) -> tuple[float, str] | None:
    """Returns a quantity string as a number in its base unit and that unit, else None."""
    if not _QUANTITY.match(cell):
        return None
    for parse, scale, unit in _BASE_UNITS:
        try:
            return parse(cell) * scale, unit
        except units.UnitError:
            continue
    return None


@dataclass(frozen=True)
class SweptColumn:
    """One identifying column made from a swept key: its name, type and one cell per value."""

    name: str
    type: str
    cells: list[Any]


def swept_columns(key: str, values: list[Any]) -> list[SweptColumn]:
    """Returns the columns of swept ``key``: the key's own (typed by its values: int64,
    float64, bool, string; uint64 for ``experiment.seed``), and for quantities with units
    ``<key>__value`` (float, base unit) and ``<key>__unit``."""
    cells = axis_cells(values)
    kinds = {_kind(cell) for cell in cells}
    if key == "experiment.seed":
        kind = SEED
    elif kinds == {"int"}:
        kind = "uint64" if any(cell >= 2**63 for cell in cells) else _I
    elif kinds <= {"int", "float"}:
        kind = _F
    elif kinds == {"bool"}:
        kind = _B
    else:
        kind = _S
    columns = [SweptColumn(key, kind, cells)]
    quantities = [_quantity(cell) if isinstance(cell, str) else None for cell in cells]
    if all(q is not None for q in quantities):
        columns.append(SweptColumn(f"{key}__value", _F, [q[0] for q in quantities]))  # type: ignore[index]
        columns.append(SweptColumn(f"{key}__unit", _S, [q[1] for q in quantities]))  # type: ignore[index]
    return columns
