"""A run's sampled series and transfers as Arrow tables: ``series_queue``, ``series_tcp``,
``series_tcp_events``, ``series_qdisc``, ``series_packets``, ``series_reasons`` and
``transfers``, those that hold rows, in the schemas :mod:`qdsim.results.tables` declares.

The core hands the series over as NumPy columns (:func:`qdsim.run.one.run_config`), up to
10⁷ rows; they are built here with NumPy and pyarrow, which only a run that sampled imports
(:func:`qdsim.results.tables.run_tables`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa

from .arrays import arrow_array, arrow_schema, arrow_type
from .rows import column_values

__all__ = ["series_tables"]


def _from_columns(fields: tuple[tuple[str, str], ...], data: dict[str, Any]) -> pa.Table:
    """Returns ``data`` (column → NumPy array, list or Arrow array) as a table of ``fields``
    (names and type names)."""
    out = []
    for name, kind in fields:
        values = data[name]
        if isinstance(values, np.ndarray) and values.dtype.kind == "u":
            values = values.astype(np.int64)  # the core's unsigned counts and indexes
        out.append(values if isinstance(values, pa.Array) else arrow_array(values, arrow_type(kind)))
    return pa.Table.from_arrays(out, schema=arrow_schema(fields))


def series_tables(results: dict[str, Any], columns: Callable[[str], tuple[tuple[str, str], ...]]) -> dict[str, pa.Table]:
    """Returns the series tables of a run's results that hold rows (see the module), each
    table's columns as ``columns(table)`` declares them (:func:`qdsim.results.tables.columns`)."""
    out = {}
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
        sojourn_s = arrow_array(sojourn, pa.float64(), mask=np.isnan(sojourn))
        out["series_queue"] = _from_columns(
            columns("series_queue"), {**queue, "sojourn_s": sojourn_s, "link_name": names[np.asarray(queue["link"], dtype=np.intp)], "aqm_drops": drops - overflow, **sent}
        )
    if len(series["tcp"]["t"]):
        out["series_tcp"] = _from_columns(columns("series_tcp"), series["tcp"])
    events = series.get("tcp_events", {"t": []})
    if len(events["t"]):
        out["series_tcp_events"] = _from_columns(columns("series_tcp_events"), events)
    internals = series.get("qdisc", {"t": []})
    if len(internals["t"]):
        link_name = names[np.asarray(internals["link"], dtype=np.intp)]
        out["series_qdisc"] = _from_columns(columns("series_qdisc"), {**internals, "var": np.asarray(internals["var"], dtype=object), "link_name": link_name})
    packets = series.get("packets", {"t": []})
    if len(packets["t"]):
        out["series_packets"] = _from_columns(columns("series_packets"), packets)
    reasons = series.get("reasons", {"t": []})
    if len(reasons["t"]):
        out["series_reasons"] = _from_columns(columns("series_reasons"), {**reasons, "link_name": names[np.asarray(reasons["link"], dtype=np.intp)]})
    transfers = results.get("transfers", {"flow": []})
    if len(transfers["flow"]):
        out["transfers"] = _from_columns(columns("transfers"), transfers)
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
