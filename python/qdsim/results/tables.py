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

__all__ = [
    "SEED",
    "SERIES_TABLES",
    "TABLES",
    "SweptColumn",
    "axis_cells",
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
#: Tables of sampled series, present when a run sampled them.
SERIES_TABLES = ("series_queue", "series_tcp", "series_tcp_events", "series_qdisc", "series_packets")

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


@functools.cache
def _all_columns() -> dict[str, tuple[tuple[str, pa.DataType], ...]]:
    drops = tuple((f"drops_{reason}", _I) for reason in drop_reasons())
    marks = tuple((f"marks_{reason}", _I) for reason in mark_reasons())
    return {
        "points": (
            ("jain_index", _F),
            ("bottleneck", _S),
            ("bottleneck_utilization", _F),
            ("bottleneck_drops", _I),
            ("fair_share_bps", _F),
            ("events", _I),
            ("packets_forwarded", _I),
            # Packets `[sampling.packets]` left out of its record (its cap); null without it.
            ("packets_not_recorded", _I),
            ("duration_s", _F),
            ("warmup_s", _F),
            ("wall_s", _F),
        ),
        "flows": (
            ("id", _I),
            ("group", _S),
            ("kind", _S),
            ("cc", _S),
            ("src", _S),
            ("dst", _S),
            ("start_s", _F),
            ("size_bytes", _I),
            ("user", _I),
            ("goodput_bps", _F),
            ("delivered_bytes", _I),
            ("delivered_bytes_total", _I),
            ("sent_pkts", _I),
            ("retransmits", _I),
            ("fast_retransmits", _I),
            ("timeouts", _I),
            ("ecn_reductions", _I),
            ("drops", _I),
            ("sent_pkts_total", _I),
            ("retransmits_total", _I),
            ("fast_retransmits_total", _I),
            ("timeouts_total", _I),
            ("ecn_reductions_total", _I),
            ("drops_total", _I),
            ("fct_s", _F),
            ("finished", _B),
            ("mean_queue_delay_s", _F),
            ("rwnd_limited", _F),
        ),
        "groups": (
            ("group", _S),
            ("flows", _I),
            ("users", _I),
            ("goodput_bps", _F),
            ("per_flow_goodput_bps", _F),
            ("per_flow_goodput_std_bps", _F),
            ("per_user_goodput_bps", _F),
            ("fair_share_ratio", _F),
            ("delay_samples", _I),
            ("mean_queue_delay_s", _F),
            ("p50_queue_delay_s", _F),
            ("p95_queue_delay_s", _F),
            ("p99_queue_delay_s", _F),
            ("retransmits", _I),
            ("timeouts", _I),
            ("drops", _I),
            ("retransmits_total", _I),
            ("timeouts_total", _I),
            ("drops_total", _I),
            ("rwnd_limited", _F),
            ("mean_fct_s", _F),
            ("transfers_completed", _I),
            ("unfinished_transfers", _I),
            # A transfer generator's (`short_flows` with `hosts` or `[sampling]
            # flows_in_progress`); null in other groups.
            ("arrivals", _I),
            ("shared_arrivals", _I),
            ("mean_in_progress", _F),
            ("max_in_progress", _I),
            ("in_progress_fraction", pa.list_(_F)),
        ),
        "links": (
            ("name", _S),
            ("from", _S),
            ("to", _S),
            ("qdisc", _S),
            ("rate_bps", _I),
            ("delay_s", _F),
            ("utilization", _F),
            ("tx_pkts", _I),
            ("tx_bytes", _I),
            ("arrivals", _I),
            ("drops", _I),
            ("overflow_drops", _I),
            ("aqm_drops", _I),
            *drops,
            ("marks", _I),
            *marks,
            ("loss_rate", _F),
            ("mean_queue_pkts", _F),
            ("mean_queue_bytes", _F),
            ("max_queue_pkts", _I),
            ("mean_delay_s", _F),
            ("p50_delay_s", _F),
            ("p95_delay_s", _F),
            ("p99_delay_s", _F),
        ),
        "series_queue": (
            ("t", _F),
            ("link", _I),
            ("link_name", _S),
            ("pkts", _I),
            ("bytes", _I),
            ("drops", _I),
            ("overflow_drops", _I),
            ("aqm_drops", _I),
            # `[sampling] tx_bytes`: bytes sent since the link's previous sample and the
            # utilization over that interval; null without it.
            ("tx_bytes", _I),
            ("utilization", _F),
        ),
        "series_tcp": (
            ("t", _F),
            ("flow", _I),
            ("cwnd", _I),
            ("ssthresh", _I),
            ("srtt_s", _F),
            ("inflight_bytes", _I),
            ("in_timeout", _B),
        ),
        "series_tcp_events": (("t", _F), ("flow", _I), ("kind", _S), ("seq", _I)),
        # A qdisc's internal variables (`[sampling] qdisc`); `class` −1 is the whole qdisc.
        "series_qdisc": (("t", _F), ("link", _I), ("link_name", _S), ("var", _S), ("class", _I), ("value", _F)),
        # The packet record of one link (`[sampling.packets]`).
        "series_packets": (("t", _F), ("flow", _I), ("size_bytes", _I), ("lost", _B)),
    }


def columns(table: str) -> tuple[tuple[str, pa.DataType], ...]:
    """Returns ``table``'s own columns (after the identifying ones) and their types, in order."""
    return _all_columns()[table]


def schema(table: str) -> pa.Schema:
    """Returns the schema of ``table``'s own columns."""
    return pa.schema([pa.field(name, kind) for name, kind in columns(table)])


def _from_rows(table: str, rows: list[dict[str, Any]]) -> pa.Table:
    """Returns ``rows`` as ``table``'s schema; a key the schema lacks is an error (a column
    that would drift from the documented layout), a column the rows lack is null."""
    names = {name for name, _ in columns(table)}
    unknown = set().union(*{frozenset(row) for row in rows}) - names
    if unknown:
        raise ValueError(f"{table}: columns {sorted(unknown)} are not in its schema (qdsim.results.tables)")
    return pa.Table.from_pylist(rows, schema=schema(table))


def _from_columns(table: str, data: dict[str, Any]) -> pa.Table:
    """Returns ``data`` (column → NumPy array or list) as ``table``'s schema."""
    out = {}
    for name, kind in columns(table):
        values = data[name]
        if isinstance(values, np.ndarray) and values.dtype.kind == "u":
            values = values.astype(np.int64)  # the core's unsigned counts and indexes
        out[name] = pa.array(values, type=kind)
    return pa.table(out)


def _link_row(link: dict[str, Any]) -> dict[str, Any]:
    row = {k: v for k, v in link.items() if k not in ("drops_by_reason", "marks_by_reason")}
    for what, reasons in (("drops", drop_reasons()), ("marks", mark_reasons())):
        by_reason = link.get(f"{what}_by_reason")
        if by_reason is None:  # an engine that does not tell them apart: null, not 0
            row |= {f"{what}_{reason}": None for reason in reasons}
            continue
        unknown = set(by_reason) - set(reasons)
        if unknown:
            raise ValueError(f"links: {what} reasons {sorted(unknown)} are not in the core's catalog")
        row |= {f"{what}_{reason}": by_reason.get(reason, 0) for reason in reasons}
    return row


_POINT_KEYS = ("jain_index", "bottleneck", "bottleneck_utilization", "fair_share_bps", "events", "packets_forwarded", "duration_s", "warmup_s", "wall_s")


def run_tables(summary: dict[str, Any], results: dict[str, Any]) -> dict[str, pa.Table]:
    """Returns the tables one run contributes, without identifying columns: ``points``,
    ``flows``, ``groups``, ``links`` from its summary (:func:`qdsim.run.one.summarize`), and
    the sampled series of its results (``series_queue``, ``series_tcp``,
    ``series_tcp_events``, ``series_qdisc``, ``series_packets``) that hold rows."""
    point = {key: summary[key] for key in _POINT_KEYS} | {"packets_not_recorded": summary.get("packets_not_recorded")}
    point["bottleneck_drops"] = next((link["drops"] for link in summary["links"] if link["name"] == summary["bottleneck"]), None)
    out = {
        "points": _from_rows("points", [point]),
        "flows": _from_rows("flows", summary["flows"]),
        "groups": _from_rows("groups", summary["groups"]),
        "links": _from_rows("links", [_link_row(link) for link in summary["links"]]),
    }
    series = results["series"]
    names = np.asarray([link["name"] for link in results["links"]], dtype=object)
    queue = series["queue"]
    if len(queue["t"]):
        drops, overflow = np.asarray(queue["drops"], dtype=np.int64), np.asarray(queue["overflow_drops"], dtype=np.int64)
        # Cumulative, like `drops`: everything but buffer overflows (see links.aqm_drops).
        if "tx_bytes" in queue:
            sent = {"tx_bytes": queue["tx_bytes"], "utilization": _utilization(queue, [link["rate_bps"] for link in results["links"]])}
        else:
            sent = {"tx_bytes": [None] * len(queue["t"]), "utilization": [None] * len(queue["t"])}
        out["series_queue"] = _from_columns("series_queue", {**queue, "link_name": names[np.asarray(queue["link"], dtype=np.intp)], "aqm_drops": drops - overflow, **sent})
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
    constant = {name: pa.array([value] * n, type=kind) for name, kind, value in ids}
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
