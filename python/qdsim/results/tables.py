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

This module makes Arrow tables and touches no file (:mod:`qdsim.results.store` writes and
reads them). With :mod:`qdsim.run.one` (the summary) it decides what a stored sweep point
holds, so both files are part of the code version that keys stored points
(:func:`qdsim.run.one.code_version`).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ..experiment import units
from .arrays import arrow_array, numbers
from .links import link_named
from .rows import Rows, column_values, field_values

__all__ = [
    "SEED",
    "SERIES_TABLES",
    "TABLES",
    "Column",
    "SweptColumn",
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
SEED = pa.uint64()
#: Tables every results directory has, one Parquet file each.
TABLES = ("points", "flows", "groups", "links")
#: Tables present when a run has rows for them: the sampled series, when it sampled them, and
#: the transfer table (one row per finite TCP connection: each transfer's start, size and
#: completion time, an unfinished one's censored at the end of the run).
SERIES_TABLES = ("series_queue", "series_tcp", "series_tcp_events", "series_qdisc", "series_packets", "series_reasons", "transfers")

_F, _I, _S, _B = pa.float64(), pa.int64(), pa.string(), pa.bool_()


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
    """One column of a results table: its name, stored type, unit and meaning."""

    name: str
    type: pa.DataType
    unit: str
    doc: str


_DTYPES = {"int64": _I, "float64": _F, "string": _S, "bool": _B}


def _col(name: str, kind: pa.DataType, doc: str, unit: str = "") -> Column:
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
        _col("in_progress_fraction", pa.list_(_F), "fraction of the window with exactly n transfers in progress, n = 0, 1, ... (null for a group of several generators)"),
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


def columns(table: str) -> tuple[tuple[str, pa.DataType], ...]:
    """Returns ``table``'s own columns (after the identifying ones) and their types, in order."""
    return tuple((c.name, c.type) for c in column_list(table))


def schema(table: str) -> pa.Schema:
    """Returns the schema of ``table``'s own columns."""
    return pa.schema([pa.field(name, kind) for name, kind in columns(table)])


def _from_rows(table: str, rows: list[dict[str, Any]]) -> pa.Table:
    """Returns ``rows`` as ``table``'s schema; a key the schema lacks is an error (a column
    that would drift from the documented layout), a column the rows lack is null."""
    _check_keys(table, rows)
    return pa.Table.from_arrays([arrow_array([row.get(name) for row in rows], kind) for name, kind in columns(table)], schema=schema(table))


def _check_keys(table: str, rows: list[dict[str, Any]], nested: frozenset[str] = frozenset()) -> set[str]:
    """Returns ``table``'s column names; raises if a row has a key that is neither one of
    them nor one of ``nested`` (a column that would drift from the documented layout)."""
    names = {name for name, _ in columns(table)}
    unknown = set().union(*rows) - names - nested
    if unknown:
        raise ValueError(f"{table}: columns {sorted(unknown)} are not in its schema (qdsim.results.tables)")
    return names


def _from_columns(table: str, data: dict[str, Any]) -> pa.Table:
    """Returns ``data`` (column → NumPy array, list or Arrow array) as ``table``'s schema."""
    out = []
    for name, kind in columns(table):
        values = data[name]
        if isinstance(values, np.ndarray) and values.dtype.kind == "u":
            values = values.astype(np.int64)  # the core's unsigned counts and indexes
        out.append(values if isinstance(values, pa.Array) else arrow_array(values, kind))
    return pa.Table.from_arrays(out, schema=schema(table))


def _links_table(links: dict[str, Any]) -> pa.Table:
    """Returns the ``links`` table of a run's links by column (``results["links"]``: Arrow
    arrays from the core, lists from a reference engine): a link's drops and marks by reason
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
        rows, keys, counts, unknown = _reason_entries(links.get(f"{what}_by_reason", [None] * count), count)
        if set(keys) - set(reasons):
            raise ValueError(f"links: {what} reasons {sorted(set(keys) - set(reasons))} are not in the core's catalog")
        for reason in reasons:
            column = np.zeros(count, dtype=np.int64)
            chosen = keys == reason
            column[rows[chosen]] = counts[chosen]
            data[f"{what}_{reason}"] = column, unknown
    # drop_split's rule by column: the overflows, and every other drop.
    overflow, unknown = data["drops_overflow"]
    drops, no_drops = _int_column(links.get("drops", [None] * count))
    data["overflow_drops"] = overflow, unknown
    data["aqm_drops"] = drops - overflow, _either(unknown, no_drops)
    arrays = {name: arrow_array(values, _I, mask=mask) for name, (values, mask) in data.items()}
    return _from_columns("links", {name: arrays[name] if name in arrays else links.get(name, [None] * count) for name in names})


def _flows_table(summary: dict[str, Any], flows: Any) -> pa.Table:
    """Returns the ``flows`` table: the core's columns (``results["flows"]``, :class:`Rows`
    of Arrow arrays) with each flow's ``user`` from the summary, whose rows hold the same
    values; a reference engine's flows from the summary's rows."""
    if isinstance(flows, Rows):
        return _from_columns("flows", {**flows.columns, "user": field_values(summary["flows"], "user")})
    return _from_rows("flows", summary["flows"])


def _reason_entries(given: Any, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Returns a column of counts by reason (an Arrow ``map<string, int64>`` from the core,
    or a list of dicts and Nones from a reference engine) as its entries — each one's row,
    reason and count — and the rows without a map (None where there are none)."""
    if isinstance(given, pa.MapArray):
        offsets = numbers(given.offsets)
        first, last = int(offsets[0]), int(offsets[-1])
        rows = np.repeat(np.arange(count), np.diff(offsets))
        keys = np.asarray(given.keys[first:last].to_pylist(), dtype=object)
        counts = numbers(given.items[first:last], np.int64)
        unknown = np.fromiter((v is None for v in given.to_pylist()), dtype=bool, count=count) if given.null_count else None
        return rows, keys, counts, unknown
    entries = [(row, key, n) for row, reasons in enumerate(given) if reasons for key, n in reasons.items()]
    unknown = np.fromiter((reasons is None for reasons in given), dtype=bool, count=count)
    return (
        np.asarray([row for row, _, _ in entries], dtype=np.intp),
        np.asarray([key for _, key, _ in entries], dtype=object),
        np.asarray([n for _, _, n in entries], dtype=np.int64),
        unknown if unknown.any() else None,
    )


def _either(first: np.ndarray | None, second: np.ndarray | None) -> np.ndarray | None:
    """Returns the places null in either of two null masks (None: no null in either)."""
    if first is None or second is None:
        return second if first is None else first
    return first | second


def _int_column(values: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """Returns a column of counts (an Arrow array or a list with Nones) as int64 values, 0
    at nulls, and where the nulls are (None where there are none)."""
    if isinstance(values, pa.Array):
        if not values.null_count:
            return numbers(values, np.int64), None
        values = values.to_pylist()
    nulls = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
    return np.asarray([0 if v is None else v for v in values], dtype=np.int64), nulls if nulls.any() else None


_POINT_KEYS = ("jain_index", "bottleneck", "bottleneck_utilization", "fair_share_bps", "events", "packets_forwarded", "duration_s", "warmup_s", "wall_s")


def run_tables(summary: dict[str, Any], results: dict[str, Any]) -> dict[str, pa.Table]:
    """Returns the tables one run contributes, without identifying columns: ``points``,
    ``flows`` and ``groups`` from its summary (:func:`qdsim.run.one.summarize`), ``links``
    from its results' links by column, and the sampled series of its results
    (``series_queue``, ``series_tcp``, ``series_tcp_events``, ``series_qdisc``,
    ``series_packets``, ``series_reasons``) and its ``transfers``, those that hold rows."""
    point = {key: summary[key] for key in _POINT_KEYS} | {"packets_not_recorded": summary.get("packets_not_recorded")}
    bottleneck = link_named(summary["links"], summary["bottleneck"])
    point["bottleneck_drops"] = None if bottleneck is None else bottleneck["drops"]
    out = {
        "points": _from_rows("points", [point]),
        "flows": _flows_table(summary, results["flows"]),
        "groups": _from_rows("groups", summary["groups"]),
        "links": _links_table(results["links"]),
    }
    series = results["series"]
    names = np.asarray(column_values(results["links"].get("name", [])), dtype=object)
    queue = series["queue"]
    if len(queue["t"]):
        drops, overflow = np.asarray(queue["drops"], dtype=np.int64), np.asarray(queue["overflow_drops"], dtype=np.int64)
        # Cumulative, like `drops`: everything but buffer overflows (see links.aqm_drops).
        if "tx_bytes" in queue:
            sent = {"tx_bytes": queue["tx_bytes"], "utilization": _utilization(queue, column_values(results["links"].get("rate_bps", [])))}
        else:
            sent = {"tx_bytes": [None] * len(queue["t"]), "utilization": [None] * len(queue["t"])}
        # NaN, the binding's none (no packet left the queue since the link's previous sample), is null.
        sojourn = np.asarray(queue["sojourn_s"], dtype=np.float64)
        sojourn_s = arrow_array(sojourn, _F, mask=np.isnan(sojourn))
        out["series_queue"] = _from_columns("series_queue", {**queue, "sojourn_s": sojourn_s, "link_name": names[np.asarray(queue["link"], dtype=np.intp)], "aqm_drops": drops - overflow, **sent})
    if len(series["tcp"]["t"]):
        out["series_tcp"] = _from_columns("series_tcp", series["tcp"])
    events = series.get("tcp_events", {"t": []})
    if len(events["t"]):
        out["series_tcp_events"] = _from_columns("series_tcp_events", events)
    internals = series.get("qdisc", {"t": []})
    if len(internals["t"]):
        link_name = names[np.asarray(internals["link"], dtype=np.intp)]
        out["series_qdisc"] = _from_columns("series_qdisc", {**internals, "var": np.asarray(internals["var"], dtype=object), "link_name": link_name})
    packets = series.get("packets", {"t": []})
    if len(packets["t"]):
        out["series_packets"] = _from_columns("series_packets", packets)
    reasons = series.get("reasons", {"t": []})
    if len(reasons["t"]):
        out["series_reasons"] = _from_columns("series_reasons", {**reasons, "link_name": names[np.asarray(reasons["link"], dtype=np.intp)]})
    transfers = results.get("transfers", {"flow": []})
    if len(transfers["flow"]):
        out["transfers"] = _from_columns("transfers", transfers)
    return out


def _utilization(queue: dict[str, Any], rates: list[int]) -> np.ndarray:
    """Returns each queue sample's link utilization over the interval since the link's
    previous sample: ``tx_bytes × 8 / (rate × interval)``; NaN for a link's first sample."""
    t = np.asarray(queue["t"], dtype=float)
    link = np.asarray(queue["link"], dtype=np.intp)
    tx = np.asarray(queue["tx_bytes"], dtype=float)
    util = np.full(len(t), np.nan)
    for index in np.unique(link):
        rows = np.flatnonzero(link == index)
        span = np.diff(t[rows])
        util[rows[1:]] = np.where(span > 0, tx[rows[1:]] * 8 / (rates[index] * np.where(span > 0, span, 1)), np.nan)
    return util


def with_ids(table: pa.Table, ids: list[tuple[str, pa.DataType, Any]]) -> pa.Table:
    """Returns ``table`` with constant identifying columns ``(name, type, value)`` first."""
    n = table.num_rows
    constant = {name: arrow_array([value] * n, kind) for name, kind, value in ids}
    return pa.table({**constant, **{name: table.column(name) for name in table.column_names}})


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
    type: pa.DataType
    cells: list[Any]


def swept_columns(key: str, values: list[Any]) -> list[SweptColumn]:
    """Returns the columns of swept ``key``: the key's own (typed by its values: int64,
    float64, bool, string; uint64 for ``experiment.seed``), and for quantities with units
    ``<key>__value`` (float, base unit) and ``<key>__unit``."""
    cells = axis_cells(values)
    kinds = {_kind(cell) for cell in cells}
    if key == "experiment.seed":
        kind: pa.DataType = SEED
    elif kinds == {"int"}:
        kind = pa.uint64() if any(cell >= 2**63 for cell in cells) else _I
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
