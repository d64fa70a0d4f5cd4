"""The results tables written by the binding (``_core.write_parquet``, ``write_parquet_stream``):
a run's tables read back exactly as pyarrow's own writer's, every value a column holds kept,
and a value a column cannot hold refused with its column and row, never a panic."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from qdsim import _core
from qdsim.experiment.resolve import resolve
from qdsim.experiment.spec import validate
from qdsim.results import store, tables
from qdsim.results.columns import ColumnTable
from qdsim.run.one import run_config, summarize

#: A short run with every kind of table and column: a CoDel bottleneck that drops for two
#: reasons, a host pool (transfers, and a list column: `in_progress_fraction`), Poisson
#: packets, sampled queues, TCP and the packet record.
RAW = {
    "experiment": {"name": "writer", "duration": "3s", "warmup": "1s", "seed": 3},
    "topology": {"kind": "dumbbell", "bottleneck_rate": "10Mbps", "bottleneck_delay": "5ms", "access_delay": "5ms", "qdisc": {"kind": "codel", "limit": "15pkt"}},
    "flows": [
        {"group": "bulk", "count": 3},
        {"group": "bg", "kind": "short_flows", "load": 0.3, "size_distribution": "exponential", "size_mean": "20kB", "hosts": 20, "access_rate": "1Mbps"},
        {"group": "pp", "kind": "poisson_packets", "rate": "1Mbps"},
    ],
    "sampling": {"interval": "100ms", "queues": True, "tx_bytes": True, "tcp": True, "packets": {"start": "2s", "stop": "2.2s"}},
}


def _both_ways(table: ColumnTable | pa.Table, directory: Path, name: str) -> tuple[pa.Table, pa.Table]:
    """Returns ``table`` written by the binding and by pyarrow, each read back."""
    ours, theirs = directory / "binding" / f"{name}.parquet", directory / "pyarrow" / f"{name}.parquet"
    store._write_parquet(ours, table)
    theirs.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(tables.arrow_table(table), theirs)
    return store.read_parquet(ours), store.read_parquet(theirs)


def test_a_runs_tables_written_by_the_binding_read_back_as_pyarrows_own(tmp_path):
    outcome = run_config(resolve(validate(RAW)))
    summary = summarize(outcome)
    by_name = store.run_tables_with_ids(summary, tables.run_tables(summary, outcome.results))
    assert {name for name, t in by_name.items() if isinstance(t, ColumnTable)} == set(tables.TABLES)
    assert {"series_queue", "series_tcp", "series_packets", "transfers"} <= set(by_name)
    for name, table in by_name.items():
        ours, theirs = _both_ways(table, tmp_path, name)
        assert ours.schema.equals(theirs.schema, check_metadata=True), name
        # (By their values' text: a utilization is NaN at a link's first sample.)
        assert repr(ours.to_pylist()) == repr(theirs.to_pylist()) and ours.num_rows, name
    groups = store.read_parquet(tmp_path / "binding" / "groups.parquet").to_pylist()
    fractions = {g["group"]: g["in_progress_fraction"] for g in groups}
    assert fractions["bulk"] is None and abs(sum(fractions["bg"]) - 1) < 1e-9, "a list column, null and not"
    links = store.read_parquet(tmp_path / "binding" / "links.parquet")
    assert links.schema.field("seed").type == pa.uint64() and sum(links.column("drops_target_exceeded").to_pylist()) > 0 < sum(links.column("drops_overflow").to_pylist())


@pytest.mark.parametrize(
    ("kind", "values"),
    [
        ("int64", [0, -(2**63), 2**63 - 1, None]),
        ("uint64", [0, 2**64 - 1, None]),
        ("float64", [0.5, -1e300, 7, 2**53, None, float("inf")]),
        ("bool", [True, False, None]),
        ("string", ["a", "", "µs é 中", None]),
        ("list<float64>", [[0.25, 1, None], [], None]),
        ("int64", []),
    ],
)
def test_every_value_a_column_holds_reads_back(tmp_path, kind, values):
    table = ColumnTable((("c", kind),), {"c": values}, len(values))
    ours, theirs = _both_ways(table, tmp_path, "t")
    assert ours.column("c").to_pylist() == values and ours.equals(theirs)


@pytest.mark.parametrize(
    ("kind", "values", "row", "shown"),
    [
        ("int64", [1, True], 1, "True"),
        ("int64", [2**63], 0, str(2**63)),
        ("uint64", [3, -1], 1, "-1"),
        ("float64", [1.0, 2**53 + 1], 1, str(2**53 + 1)),
        ("float64", ["1.0"], 0, "'1.0'"),
        ("bool", [1], 0, "1"),
        ("string", [None, "\ud800"], 1, "'\\ud800'"),
        ("string", [b"x"], 0, "b'x'"),
        ("list<float64>", [[1.0, "x"]], 0, "'x'"),
        ("list<float64>", [1.0], 0, "1.0"),
    ],
)
def test_a_value_its_column_cannot_hold_is_refused_with_its_column_and_row(tmp_path, kind, values, row, shown):
    with pytest.raises(TypeError) as err:
        _core.write_parquet(str(tmp_path / "t.parquet"), [("c", kind)], [values], len(values))
    assert str(err.value).startswith(f"column c, row {row}: {shown} cannot be stored as ")


def test_a_table_the_writer_cannot_make_is_refused_in_one_line(tmp_path):
    path = str(tmp_path / "t.parquet")
    with pytest.raises(ValueError, match='column type "int32" is not one of int64, uint64'):
        _core.write_parquet(path, [("c", "int32")], [[1]], 1)
    with pytest.raises(ValueError, match="column c: 2 rows in a table of 3"):
        _core.write_parquet(path, [("c", "int64")], [[1, 2]], 3)
    with pytest.raises(ValueError, match="1 fields and 2 columns"):
        _core.write_parquet(path, [("c", "int64")], [[1], [2]], 1)
    with pytest.raises(TypeError, match="column c: the core's float64 column in a int64 column"):
        _core.write_parquet(path, [("c", "int64")], [("float64", 1, 0, None, [bytes(8)])], 1)
    with pytest.raises(ValueError, match="column c: Invalid argument error: Need at least 16 bytes"):
        _core.write_parquet(path, [("c", "int64")], [("int64", 2, 0, None, [bytes(8)])], 2)
    with pytest.raises(TypeError, match="column c: a list or one of the core's columns, not dict"):
        _core.write_parquet(path, [("c", "int64")], [{}], 0)
    with pytest.raises(OSError, match=f"writing {tmp_path}/missing/t.parquet: "):
        _core.write_parquet(str(tmp_path / "missing" / "t.parquet"), [("c", "int64")], [[1]], 1)
    with pytest.raises(ValueError, match="column c: type 'int32' is not one of"):
        ColumnTable((("c", "int32"),), {"c": [1]}, 1)
    with pytest.raises(ValueError, match="column c: 1 rows in a table of 2"):
        ColumnTable((("c", "int64"),), {"c": [1]}, 2)
    assert not (tmp_path / "t.parquet").exists() or pq.read_metadata(path) is not None


def test_an_arrow_table_is_written_as_it_is(tmp_path):
    table = pa.table({"seed": pa.array([1, 2**64 - 1], pa.uint64()), "m": pa.array([{"a": 1}, None], pa.map_(pa.string(), pa.int64())), "s": ["x", None]})
    table = pa.concat_tables([table, table.slice(1)])  # two chunks: two record batches
    ours, theirs = _both_ways(table, tmp_path, "t")
    assert ours.equals(theirs) and ours.schema.equals(theirs.schema, check_metadata=True) and ours.num_rows == 3
    with pytest.raises(AttributeError):
        _core.write_parquet_stream(str(tmp_path / "u.parquet"), [1, 2])


@pytest.mark.parametrize(
    ("kind", "values"),
    [
        ("int64", [None, 1, -(2**63), *range(5), None, None, 2**63 - 1, *range(6), None]),
        ("float64", [0.5, None, -1.0, *[float(i) for i in range(12)], None, 1e300]),
        ("bool", [True, None, False, *[i % 3 == 0 for i in range(13)], None]),
        ("string", ["a", None, "", "µs é 中", *[f"l{i}" for i in range(12)], None]),
        ("string", [f"r{i}" for i in range(17)]),
        ("int64", [None] * 9),
    ],
)
def test_a_core_column_reads_its_rows_as_pyarrow_does(kind, values):
    from qdsim.results.arrays import arrow_array, arrow_type
    from qdsim.results.columns import CoreColumn

    array = arrow_array(values, arrow_type(kind))
    validity, *buffers = array.buffers()
    column = CoreColumn(kind, len(array), array.null_count, None if validity is None else validity.to_pybytes(), [b.to_pybytes() for b in buffers])
    assert [column.value_at(i) for i in range(len(values))] == values
    assert column.to_list() == values and column.to_arrow().equals(array)
