"""The results store: everything a run or a sweep writes to disk, and every way to read it.

Nothing else in the package knows the layout of a results directory: writers and readers of
the tables, of a sweep's stored points and of its provenance all live here, so a different
point store (e.g. columnar) is a change to this module only.

A results directory (written by ``qdsim run``, ``qdsim sweep`` or ``qdsim reproduce``) holds:

* ``points.parquet`` — one row per run: seed, ``jain_index``, bottleneck utilisation, events,
  wall time (and, for sweeps, the swept keys, ``rep`` and ``point_key``);
* ``flows.parquet``, ``groups.parquet``, ``links.parquet`` — one row per flow, flow group and
  link of every run, with the same identifying columns;
* ``series_queue.parquet``, ``series_tcp.parquet``, ``series_qdisc.parquet``,
  ``series_packets.parquet`` — sampled time series and the packet record, when sampling was on;
* ``spec.json`` (the experiment file after overrides), ``config.json`` (``run``: the resolved
  configuration) or ``sweep.json`` (``sweep``: grid, repetitions, point keys and the
  experiment file's path);
* ``points/<key>.json`` (``sweep``): one stored run per sweep point, written as soon as it
  finishes (:func:`write_point`), so an interrupted sweep resumes (:func:`has_point`).

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

from .errors import SpecError

__all__ = [
    "TABLES",
    "connect",
    "has_point",
    "has_table",
    "read_json",
    "read_point",
    "read_rows",
    "read_spec",
    "read_sweep",
    "read_table",
    "run_rows",
    "series_rows",
    "wall_times",
    "write_columns",
    "write_json",
    "write_point",
    "write_sweep",
    "write_tables",
]

#: Tables every results directory has, one Parquet file each.
TABLES = ("points", "flows", "groups", "links")


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
    """Returns the sampled series of one run as columns: ``series_queue`` (with
    ``sampling.tx_bytes``, ``tx_bytes`` and ``utilization`` over each sampling interval),
    ``series_tcp``, ``series_tcp_events``, ``series_qdisc`` (qdisc internals: ``link``,
    ``link_name``, ``t``, ``var``, ``class`` (−1 = the whole qdisc), ``value``) and
    ``series_packets`` (``sampling.packets``: ``t``, ``flow``, ``size_bytes``, ``lost``)."""
    link_names = [link["name"] for link in results["links"]]
    out: dict[str, dict[str, list[Any] | np.ndarray]] = {}
    queue = results["series"]["queue"]
    if len(queue["t"]):
        n = len(queue["t"])
        drops, overflow = np.asarray(queue["drops"], dtype=np.int64), np.asarray(queue["overflow_drops"], dtype=np.int64)
        out["series_queue"] = {
            **{k: [v] * n for k, v in ids.items()},
            **queue,
            "link_name": np.asarray(link_names, dtype=object)[np.asarray(queue["link"], dtype=np.intp)],
            # Cumulative, like `drops`: everything but buffer overflows (see links.aqm_drops).
            "aqm_drops": drops - overflow,
        }
        if "tx_bytes" in queue:
            out["series_queue"]["utilization"] = _utilization(queue, [link["rate_bps"] for link in results["links"]])
    packets = results["series"].get("packets", {"t": []})
    if len(packets["t"]):
        n = len(packets["t"])
        out["series_packets"] = {**{k: [v] * n for k, v in ids.items()}, **packets}
    tcp = results["series"]["tcp"]
    if len(tcp["t"]):
        n = len(tcp["t"])
        out["series_tcp"] = {**{k: [v] * n for k, v in ids.items()}, **tcp}
    events = results["series"].get("tcp_events", {"t": []})
    if events["t"]:
        n = len(events["t"])
        out["series_tcp_events"] = {**{k: [v] * n for k, v in ids.items()}, **events}
    internals = results["series"].get("qdisc", {"t": []})
    if len(internals["t"]):
        n = len(internals["t"])
        out["series_qdisc"] = {
            **{k: [v] * n for k, v in ids.items()},
            **internals,
            "var": np.asarray(internals["var"], dtype=object),
            "link_name": np.asarray(link_names, dtype=object)[np.asarray(internals["link"], dtype=np.intp)],
        }
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


def has_table(results_dir: Path, name: str) -> bool:
    """Returns whether the results directory holds table ``name``."""
    return (Path(results_dir) / f"{name}.parquet").exists()


def read_rows(results_dir: Path, name: str) -> list[dict[str, Any]]:
    """Returns the rows of table ``name`` as dicts (column → value)."""
    return read_table(results_dir, name).to_pylist()


def read_spec(results_dir: Path) -> dict[str, Any]:
    """Returns the experiment file (after overrides) a results directory was made from."""
    return read_json(Path(results_dir) / "spec.json")


# --- a sweep's points -------------------------------------------------------------------------


def _point_path(out_dir: Path, key: str) -> Path:
    return Path(out_dir) / "points" / f"{key}.json"


def write_point(out_dir: Path, key: str, record: dict[str, Any]) -> None:
    """Stores the record of one finished sweep point (atomically, on one line)."""
    write_json(_point_path(out_dir, key), record, compact=True)


def has_point(out_dir: Path, key: str) -> bool:
    """Returns whether the sweep point ``key`` is stored in ``out_dir``."""
    return _point_path(out_dir, key).exists()


def read_point(out_dir: Path, key: str) -> dict[str, Any] | None:
    """Returns the stored record of sweep point ``key``, or None if it is not stored."""
    path = _point_path(out_dir, key)
    return read_json(path) if path.exists() else None


def write_sweep(out_dir: Path, raw: dict[str, Any], sweep: dict[str, Any]) -> None:
    """Writes a sweep's provenance: the experiment file (``spec.json``) and ``sweep.json``."""
    write_json(Path(out_dir) / "spec.json", raw)
    write_json(Path(out_dir) / "sweep.json", sweep)


def read_sweep(results_dir: Path) -> dict[str, Any]:
    """Returns ``sweep.json`` of a sweep's results directory.

    Raises SpecError (key ``RESULTS_DIR``) when the directory holds no sweep.
    """
    path = Path(results_dir) / "sweep.json"
    if not path.exists():
        raise SpecError("RESULTS_DIR", str(results_dir), "a directory written by `qdsim sweep` or `qdsim reproduce` (it has sweep.json)")
    return read_json(path)


def wall_times(results_dir: Path) -> list[float]:
    """Returns the wall-clock seconds of every run stored in ``results_dir`` (none: empty)."""
    if not has_table(results_dir, "points"):
        return []
    table = read_table(results_dir, "points")
    return [float(v) for v in table.column("wall_s").to_pylist() if v is not None] if "wall_s" in table.column_names else []


def connect(results_dir: str | Path):
    """Returns a DuckDB connection with one view per Parquet table of ``results_dir``."""
    import duckdb

    con = duckdb.connect()
    for path in sorted(Path(results_dir).glob("*.parquet")):
        literal = str(path).replace("'", "''")
        con.execute(f"create view \"{path.stem}\" as select * from read_parquet('{literal}')")
    return con
