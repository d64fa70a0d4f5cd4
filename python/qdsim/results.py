"""Results on disk: Parquet tables per kind, JSON provenance, and a DuckDB catalog over them.

A results directory (written by ``qdsim run`` or ``qdsim sweep``) holds:

* ``points.parquet`` — one row per run: seed, ``jain_index``, bottleneck utilisation, events,
  wall time (and, for sweeps, the swept keys, ``rep`` and ``point_key``);
* ``flows.parquet``, ``groups.parquet``, ``links.parquet`` — one row per flow, flow group and
  link of every run, with the same identifying columns;
* ``series_queue.parquet``, ``series_tcp.parquet`` — sampled time series, when sampling was on;
* ``spec.json`` (the experiment file after overrides), ``config.json`` (``run``: the resolved
  configuration) or ``sweep.json`` (``sweep``: grid, repetitions and point keys).

:func:`connect` opens a DuckDB connection with one view per table, so
``connect(d).sql("select group, avg(goodput_bps) from groups group by 1")`` just works.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["TABLES", "add_users", "connect", "read_json", "read_table", "run_rows", "series_rows", "write_columns", "write_json", "write_tables"]

#: Tables every results directory has, one Parquet file each.
TABLES = ("points", "flows", "groups", "links")


def add_users(summary: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """Adds user columns to a run summary (in place; returns it).

    Every flow gets ``user``, its global user id (the core's ``FlowConfig.user``: set by a
    group's ``users`` key, else the group's index). Every group gets ``users`` (distinct user
    ids among its flows) and ``per_user_goodput_bps`` (the group's goodput over ``users``),
    the throughput per user of Menth et al.'s figures.
    """
    from .resolve import user_of_flows

    owners = user_of_flows(config)
    for flow in summary["flows"]:
        flow["user"] = owners[flow["id"]]
    for group in summary["groups"]:
        users = {f["user"] for f in summary["flows"] if f["group"] == group["group"]}
        group["users"] = len(users)
        group["per_user_goodput_bps"] = group["goodput_bps"] / len(users) if users else 0.0
    return summary


def _flat_link(link: dict[str, Any]) -> dict[str, Any]:
    row = {k: v for k, v in link.items() if k != "drops_by_reason"}
    for reason, count in sorted(link.get("drops_by_reason", {}).items()):
        row[f"drops_{reason}"] = count
    return row


def run_rows(summary: dict[str, Any], ids: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Returns the rows one run contributes to each table, each prefixed with ``ids`` columns."""
    point = {
        key: summary[key]
        for key in (
            "seed",
            "jain_index",
            "bottleneck",
            "bottleneck_utilization",
            "fair_share_bps",
            "events",
            "packets_forwarded",
            "duration_s",
            "warmup_s",
            "wall_s",
        )
    }
    point["bottleneck_drops"] = next((link["drops"] for link in summary["links"] if link["name"] == summary["bottleneck"]), None)
    return {
        "points": [{**ids, **point}],
        "flows": [{**ids, **flow} for flow in summary["flows"]],
        "groups": [{**ids, **group} for group in summary["groups"]],
        "links": [{**ids, **_flat_link(link)} for link in summary["links"]],
    }


def series_rows(results: dict[str, Any], ids: dict[str, Any]) -> dict[str, dict[str, list[Any] | np.ndarray]]:
    """Returns the sampled series of one run as columns: ``series_queue``, ``series_tcp``,
    ``series_tcp_events``."""
    link_names = [link["name"] for link in results["links"]]
    out: dict[str, dict[str, list[Any] | np.ndarray]] = {}
    queue = results["series"]["queue"]
    if len(queue["t"]):
        n = len(queue["t"])
        out["series_queue"] = {
            **{k: [v] * n for k, v in ids.items()},
            **queue,
            "link_name": np.asarray(link_names, dtype=object)[np.asarray(queue["link"], dtype=np.intp)],
        }
    tcp = results["series"]["tcp"]
    if len(tcp["t"]):
        n = len(tcp["t"])
        out["series_tcp"] = {**{k: [v] * n for k, v in ids.items()}, **tcp}
    events = results["series"].get("tcp_events", {"t": []})
    if events["t"]:
        n = len(events["t"])
        out["series_tcp_events"] = {**{k: [v] * n for k, v in ids.items()}, **events}
    return out


def _atomic_write(path: Path, write) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    write(tmp)
    os.replace(tmp, path)


def _column(values: list[Any] | np.ndarray) -> pa.Array:
    """Returns an Arrow array of ``values``; integers beyond int64 (seeds) become uint64."""
    if isinstance(values, np.ndarray):
        # The core's unsigned columns (counts, indexes) as int64, the type the same columns
        # get from JSON lists (sweeps), so every results directory has one schema.
        return pa.array(values.astype(np.int64) if values.dtype.kind == "u" else values)
    if any(isinstance(v, int) and not isinstance(v, bool) and v >= 2**63 for v in values):
        return pa.array(values, type=pa.uint64())
    return pa.array(values)


def _table(rows: list[dict[str, Any]]) -> pa.Table:
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    return pa.table({name: _column([row.get(name) for row in rows]) for name in names})


def write_tables(out_dir: Path, rows: dict[str, Iterable[dict[str, Any]]]) -> None:
    """Writes each ``{table: rows}`` entry to ``out_dir/<table>.parquet`` (atomically)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, table_rows in rows.items():
        table = _table(list(table_rows))
        _atomic_write(out_dir / f"{name}.parquet", lambda p, t=table: pq.write_table(t, p))


def write_columns(out_dir: Path, columns: dict[str, dict[str, list[Any] | np.ndarray]]) -> None:
    """Writes each ``{table: {column: values}}`` entry to ``out_dir/<table>.parquet``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, cols in columns.items():
        table = pa.table({column: _column(values) for column, values in cols.items()})
        _atomic_write(out_dir / f"{name}.parquet", lambda p, t=table: pq.write_table(t, p))


def write_json(path: Path, value: Any, compact: bool = False) -> None:
    """Writes ``value`` as JSON to ``path`` (atomically): indented, or on one line with
    ``compact`` (a sweep's point records, whose series can hold millions of numbers)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(value, indent=None if compact else 2, separators=(",", ":") if compact else None, sort_keys=False, default=str) + "\n"
    _atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


def read_json(path: Path) -> Any:
    """Returns the JSON value stored at ``path``."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def read_table(results_dir: Path, name: str) -> pa.Table:
    """Returns table ``name`` (e.g. ``"groups"``) of a results directory."""
    return pq.read_table(Path(results_dir) / f"{name}.parquet")


def connect(results_dir: str | Path):
    """Returns a DuckDB connection with one view per Parquet table of ``results_dir``."""
    import duckdb

    con = duckdb.connect()
    for path in sorted(Path(results_dir).glob("*.parquet")):
        literal = str(path).replace("'", "''")
        con.execute(f"create view \"{path.stem}\" as select * from read_parquet('{literal}')")
    return con
