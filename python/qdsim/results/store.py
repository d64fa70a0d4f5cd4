"""The results store: everything a run or a sweep writes to disk, and every way to read it.

Nothing else in the package knows the layout of a results directory: writers and readers of
the tables, of a sweep's stored runs and of its provenance all live here. The tables' rows
and schemas come from :mod:`qdsim.results.tables`.

A results directory (written by ``qdsim run``, ``qdsim sweep`` or ``qdsim reproduce``) holds:

* ``points.parquet``, ``flows.parquet``, ``groups.parquet``, ``links.parquet`` — one row per
  run, flow, flow group and link; ``series_queue.parquet``, ``series_tcp.parquet``,
  ``series_tcp_events.parquet``, ``series_qdisc.parquet``, ``series_packets.parquet`` — sampled
  series and the packet record, when sampling was on (schemas in :mod:`qdsim.results.tables`);
* ``report.html``, when ``qdsim report`` wrote the page of the results there;
* ``spec.json`` (the experiment file after overrides), and ``config.json`` and
  ``summary.json`` (``run``: the resolved configuration and the summary) or ``sweep.json``
  (``sweep``: grid, repetitions, code version, point keys and the experiment file's path);
  ``summary.json`` and ``sweep.json`` record the ``qdsim_version`` (``qdsim --version``)
  that wrote them;
* ``runs/<table>/<batch>.parquet`` (``sweep``): the stored runs, the same tables keyed by
  ``point_key`` instead of the sweep's columns, written in batches as runs finish
  (:class:`PointWriter`). A batch counts once its ``runs/points`` file exists (it is written
  last), and a run stored by two batches counts once (the older), so the tables rebuilt from
  them (:func:`write_sweep_tables`) never hold a row twice. ``points/<key>.json`` are runs
  stored by qdsim before the columnar store: keyed by an older code version, they are never
  reused (:func:`legacy_points`, removed by :func:`prune`).

A directory holds one kind of results (a run's or a sweep's) of one experiment:
:func:`claim` refuses another unless told to replace it. :func:`connect` opens a DuckDB
connection with one view per table (and ``stored``, every stored run of a sweep), so
``connect(d).sql("select group, avg(goodput_bps) from groups group by 1")`` just works.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import socket
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _core
from ..errors import SpecError
from ..version import __version__
from . import tables
from .columns import ColumnTable

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

# pyarrow (and the NumPy it imports) is imported by the functions that read or build Arrow
# tables, not here: `qdsim run` writes its tables without it (0.1–0.2 s of CPU saved).

__all__ = [
    "FIGURE_SUFFIXES",
    "REPORT",
    "RUNS",
    "SCRIPTS",
    "SUMMARY_ROWS",
    "Contents",
    "PointWriter",
    "claim",
    "committed_runs",
    "connect",
    "describe",
    "has_table",
    "json_text",
    "legacy_points",
    "numbers",
    "prune",
    "read_json",
    "read_parquet",
    "read_rows",
    "read_spec",
    "read_sweep",
    "read_table",
    "rows_where",
    "run_tables_with_ids",
    "stored_runs",
    "summary_record",
    "table_names",
    "wall_times",
    "write_json",
    "write_run",
    "write_sweep",
    "write_sweep_tables",
    "write_text",
]

#: The directory of a sweep's stored runs.
RUNS = "runs"
#: The directory of a reference engine's scripts and their output (``qdsim validate``).
SCRIPTS = "scripts"
#: Files a figure may be saved as (``qdsim plot --out``, ``reproduce --figure``).
FIGURE_SUFFIXES = (".png", ".pdf", ".svg")
_ALL_TABLES = tables.TABLES + tables.SERIES_TABLES
_PROVENANCE = ("spec.json", "config.json", "summary.json", "sweep.json")
#: The page ``qdsim report`` writes by default: a result, cleared with the others when new
#: results replace them (it would describe the old ones).
REPORT = "report.html"
_LEGACY = "points"


def _atomic_write(path: Path, write) -> None:
    """Writes ``path`` through ``write`` into a temporary file, flushed to the disk before it
    is renamed into place (and the rename after it): a crash or power loss leaves the old
    file or the new one, never a truncated one under the final name."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    write(tmp)
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    os.replace(tmp, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _write_parquet(path: Path, table: ColumnTable | pa.Table) -> None:
    """Writes a table (columns, or an Arrow table) as Parquet, atomically: through the
    binding, one writer for every results file (Snappy, the Arrow schema embedded)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(table, ColumnTable):
        _atomic_write(path, table.write_parquet)
    else:
        _atomic_write(path, lambda p: _core.write_parquet_stream(str(p), table))


def numbers(column: pa.Array | pa.ChunkedArray, dtype: type | None = None) -> np.ndarray:
    """Returns a numeric Arrow column as a NumPy array (:func:`qdsim.results.arrays.numbers`)."""
    from .arrays import numbers as read

    return read(column, dtype)


def json_text(value: Any, level: int = 0) -> str:
    """Returns ``value`` as JSON for people and for size: objects indented by key, each
    element of a list on one line of its own (a flow, a link, a grid point), every line
    encoded by the C encoder — ``json.dumps(indent=2)`` falls back to the pure-Python one,
    70 % of a 2·10⁴-flow run's wall time."""
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, dict) and value:
        items = (f"{inner}{_ENCODER.encode(str(k))}: {json_text(v, level + 1)}" for k, v in value.items())
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return f"[\n{inner}" + f",\n{inner}".join(map(_encode_line, value)) + f"\n{pad}]"
    return _ENCODER.encode(value)


#: One encoder for every line (``json.dumps`` with ``default=`` builds a new one per call).
_ENCODER = json.JSONEncoder(default=str)


def _line_encoder() -> Callable[[Any], str]:
    """Returns the function that encodes one line's value as :data:`_ENCODER` does.

    ``JSONEncoder.encode`` makes a new C encoder for every call, 1.5 µs: at 10⁵ flows (4·10⁵
    links, 2·10⁵ hosts) half the time of encoding the configuration. The C encoder is made
    once here, without the check for cycles (a run's configuration is a tree); where the
    interpreter has none (not CPython), the class's own method."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return _ENCODER.encode
    encode = make(None, str, json.encoder.encode_basestring_ascii, None, ": ", ", ", False, False, True)
    return lambda value: "".join(encode(value, 0))


_encode_line = _line_encoder()


def write_text(path: Path, text: str) -> None:
    """Writes ``text`` (UTF-8) to ``path`` atomically: an interrupted write leaves no
    half-written file under the final name."""
    _atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


def write_json(path: Path, value: Any) -> None:
    """Writes ``value`` as JSON (:func:`json_text`) to ``path`` (atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json_text(value) + "\n"
    _atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


def read_json(path: Path) -> Any:
    """Returns the JSON value stored at ``path``."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def read_parquet(path: Path, columns: list[str] | None = None) -> pa.Table:
    """Returns the Parquet file at ``path`` (only ``columns``, if given) as one Arrow table.

    Through :class:`pyarrow.parquet.ParquetFile`, not ``pq.read_table``, which goes through
    ``pyarrow.dataset``: its import loads pandas (0.2 s) wherever it is installed, and it would
    add a column for a ``key=value`` directory anywhere in the path (a hive partition)."""
    import pyarrow.parquet as pq

    with pq.ParquetFile(path) as f:
        return f.read(columns=columns)


def rows_where(table: pa.Table, conditions: dict[str, Any]) -> pa.Table:
    """Returns the rows of ``table`` whose columns equal the given values (column → value, each
    of the column's type). The values become Arrow scalars through one-value arrays
    (:func:`qdsim.results.arrays.arrow_array`): ``pc.equal`` with a Python value, or
    ``pa.scalar``, converts it through pyarrow's pandas shim, which imports pandas (0.2 s)."""
    import pyarrow.compute as pc  # here, not at import: 40 ms a `qdsim run` need not pay

    from .arrays import arrow_array

    for column, value in conditions.items():
        scalar = arrow_array([value], table.schema.field(column).type)[0]
        table = table.filter(pc.equal(table.column(column), scalar))
    return table


def read_table(results_dir: Path, name: str) -> pa.Table:
    """Returns table ``name`` (e.g. ``"groups"``) of a results directory."""
    return read_parquet(Path(results_dir) / f"{name}.parquet")


def has_table(results_dir: Path, name: str) -> bool:
    """Returns whether the results directory holds table ``name``."""
    return (Path(results_dir) / f"{name}.parquet").exists()


def read_rows(results_dir: Path, name: str) -> list[dict[str, Any]]:
    """Returns the rows of table ``name`` as dicts (column → value)."""
    return read_table(results_dir, name).to_pylist()


def read_spec(results_dir: Path) -> dict[str, Any]:
    """Returns the experiment file (after overrides) a results directory was made from."""
    return read_json(Path(results_dir) / "spec.json")


def table_names() -> tuple[str, ...]:
    """Returns the name of every table a results directory can hold."""
    return _ALL_TABLES


def _write_tables(out_dir: Path, by_name: dict[str, ColumnTable | pa.Table]) -> None:
    """Writes every table of ``_ALL_TABLES`` that ``by_name`` holds with rows, and removes the
    others' files, so that no table of an earlier run or grid is left beside them."""
    for name in _ALL_TABLES:
        table = by_name.get(name)
        if table is not None and table.num_rows:
            _write_parquet(out_dir / f"{name}.parquet", table)
        else:
            (out_dir / f"{name}.parquet").unlink(missing_ok=True)


# --- a run --------------------------------------------------------------------------------------


def run_tables_with_ids(summary: dict[str, Any], by_name: dict[str, ColumnTable | pa.Table]) -> dict[str, ColumnTable | pa.Table]:
    """Returns one run's tables (:func:`qdsim.results.tables.run_tables`) as a run's results
    directory holds them: each with the run's ``seed`` first."""
    ids = [("seed", tables.SEED, summary["seed"])]
    return {name: tables.with_ids(table, ids) for name, table in by_name.items()}


#: The lists of a run's summary (``qdsim run --json``) that its tables hold row for row:
#: ``summary.json`` leaves them out. At 2·10⁴ flows they were 50 of its 51 MB and a fifth of
#: the whole command's CPU, written twice over.
SUMMARY_ROWS = ("flows", "links")


def summary_record(summary: dict[str, Any]) -> dict[str, Any]:
    """Returns what ``summary.json`` holds of a run's summary: all but :data:`SUMMARY_ROWS`,
    with the ``qdsim_version`` that made it."""
    return {key: value for key, value in summary.items() if key not in SUMMARY_ROWS} | {"qdsim_version": __version__}


def write_run(out_dir: Path, raw: dict[str, Any], config_text: str, summary: dict[str, Any], by_name: dict[str, ColumnTable | pa.Table]) -> None:
    """Writes one run's results: ``spec.json``, ``config.json`` (``config_text``, the
    :func:`json_text` of the resolved configuration, which the core ran), ``summary.json``
    (:func:`summary_record`) and its tables (:func:`run_tables_with_ids`), replacing every
    results file an earlier run left in ``out_dir`` (see :func:`claim`)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    _clear(out_dir)
    write_json(out_dir / "spec.json", raw)
    write_text(out_dir / "config.json", config_text + "\n")
    write_json(out_dir / "summary.json", summary_record(summary))
    _write_tables(out_dir, run_tables_with_ids(summary, by_name))


# --- which results a directory holds ------------------------------------------------------------


@dataclass(frozen=True)
class Contents:
    """What a directory holds: the ``kind`` of results (``"run"``, ``"sweep"``, or None when
    it holds none), their ``experiment`` (``experiment.name``), and any ``other`` files."""

    kind: str | None
    experiment: str | None
    other: list[str]


def _is_results_file(path: Path) -> bool:
    name = path.name
    if path.is_dir():
        return name in (RUNS, _LEGACY, SCRIPTS)
    if path.suffix == ".parquet":
        return path.stem in _ALL_TABLES
    if name in _PROVENANCE or name == REPORT or path.suffix in FIGURE_SUFFIXES:
        return True
    # The numbers of a figure, beside it.
    return path.suffix == ".json" and any(path.with_suffix(s).exists() for s in FIGURE_SUFFIXES)


def describe(directory: Path) -> Contents:
    """Returns what ``directory`` holds (a missing directory holds nothing)."""
    directory = Path(directory)
    if not directory.is_dir():
        return Contents(None, None, [])
    entries = [p for p in sorted(directory.iterdir()) if not p.name.startswith(".")]
    other = [p.name for p in entries if not _is_results_file(p)]
    if (directory / "sweep.json").exists() or (directory / RUNS).is_dir() or (directory / _LEGACY).is_dir():
        kind: str | None = "sweep"
    elif (directory / "config.json").exists() or (directory / "summary.json").exists():
        kind = "run"
    else:
        kind = None
    experiment = None
    if (directory / "spec.json").exists():
        try:
            experiment = read_spec(directory).get("experiment", {}).get("name")
        except (OSError, ValueError, AttributeError):
            experiment = None
    return Contents(kind, experiment, other)


def _clear(directory: Path) -> None:
    """Removes every results file of ``directory`` (tables, provenance, stored runs, figures),
    leaving other files alone."""
    for path in sorted(directory.iterdir()):
        if path.name.startswith(".") or not _is_results_file(path):
            continue
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def claim(out_dir: Path, kind: str, experiment: str, force: bool = False, option: str = "--out") -> None:
    """Makes ``out_dir`` ready for ``kind`` results (``"run"`` or ``"sweep"``) of ``experiment``.

    A directory holding another kind's or another experiment's results, or files that are
    not results, is refused (SpecError naming ``option``) unless ``force``, which removes
    the old results now (other files stay). The same experiment's results are kept: a
    sweep reuses its stored runs; a run replaces an earlier run's files when it writes its
    own (:func:`write_run`), so no table of that run is left beside the new ones. Also
    refused: a path that is a file, or a directory that cannot be created or written to.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise SpecError(option, str(out_dir), "a directory for the results (this is a file)")
    held = describe(out_dir)
    other_results = held.kind is not None and (held.kind != kind or held.experiment != experiment)
    if not force and (other_results or (held.kind is None and held.other)):
        what = f"the results of {held.kind} {held.experiment!r}" if other_results else f"files that are not results ({', '.join(held.other[:3])})"
        raise SpecError(option, str(out_dir), f"a new or empty directory, or one with {kind} results of {experiment!r}: it holds {what} (another --out, or --force to replace them)")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        if other_results:
            _clear(out_dir)
        probe = out_dir / f".qdsim-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise SpecError(option, str(out_dir), f"a directory that can be created and written to ({exc.strerror or exc})") from None


#: The lock file of a results directory (a dot file: not a result, never cleared).
LOCK = ".qdsim-lock"


@contextlib.contextmanager
def locked(out_dir: Path, option: str = "--out") -> Iterator[None]:
    """Holds ``out_dir`` for this process while the block runs, so that two sweeps into one
    directory never both compute its runs and store them twice: a second writer is refused
    (SpecError naming ``option`` and who holds it: process, host, since when, command). The
    lock is ``flock`` on :data:`LOCK`, released by the kernel when the holder ends however it
    ends (even ``kill -9``), so a stale lock file never blocks anyone."""
    path = Path(out_dir) / LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode(errors="replace").strip() or "another process"
            raise SpecError(option, str(out_dir), f"a results directory no other qdsim is writing to; held by {holder} (wait for it to end, or use another {option})") from None
        since = time.strftime("%Y-%m-%d %H:%M:%S")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} since {since} ({' '.join(['qdsim', *sys.argv[1:]])[:200]})\n".encode(), 0)
        yield
    finally:
        os.close(fd)


# --- a sweep's provenance -------------------------------------------------------------------------


def write_sweep(out_dir: Path, raw: dict[str, Any], sweep: dict[str, Any]) -> None:
    """Writes a sweep's provenance: the experiment file (``spec.json``) and ``sweep.json``
    (``sweep`` with the ``qdsim_version`` that wrote it)."""
    write_json(Path(out_dir) / "spec.json", raw)
    write_json(Path(out_dir) / "sweep.json", {**sweep, "qdsim_version": __version__})


def read_sweep(results_dir: Path) -> dict[str, Any]:
    """Returns ``sweep.json`` of a sweep's results directory.

    Raises SpecError (key ``RESULTS_DIR``) when the directory holds no sweep.
    """
    path = Path(results_dir) / "sweep.json"
    if not path.exists():
        raise SpecError("RESULTS_DIR", str(results_dir), "a directory written by `qdsim sweep` or `qdsim reproduce` (it has sweep.json)")
    return read_json(path)


# --- a sweep's stored runs --------------------------------------------------------------------------


class PointWriter:
    """Stores the runs of a sweep as they finish, in batches: every ``every_points`` runs,
    ``every_s`` seconds or ``every_bytes`` bytes of tables (sampled series can be large), and
    when the ``with`` block ends (also on an error or Ctrl-C), so an interrupted sweep keeps
    every finished run. Each batch is one Parquet file per table under ``runs/<table>/``; the
    ``points`` file, written last, commits the batch."""

    def __init__(self, out_dir: Path, code_version: str, every_points: int = 64, every_s: float = 5.0, every_bytes: int = 256 * 2**20):
        self.out_dir = Path(out_dir)
        self.code_version = code_version
        self.every_points, self.every_s, self.every_bytes = every_points, every_s, every_bytes
        self._pending: list[tuple[str, int, dict[str, pa.Table]]] = []
        self._bytes = 0
        self._since = time.monotonic()

    def __enter__(self) -> PointWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.flush()

    def add(self, key: str, seed: int, by_name: dict[str, ColumnTable | pa.Table]) -> None:
        """Adds the tables of the finished run ``key`` (seeded ``seed``); writes the batch when due."""
        by_name = {name: tables.arrow_table(table) for name, table in by_name.items()}
        self._pending.append((key, seed, by_name))
        self._bytes += sum(table.nbytes for table in by_name.values())
        if len(self._pending) >= self.every_points or self._bytes >= self.every_bytes or time.monotonic() - self._since >= self.every_s:
            self.flush()

    def flush(self) -> None:
        """Writes the pending runs as one batch."""
        self._since = time.monotonic()
        if not self._pending:
            return
        import pyarrow as pa

        batch = f"{time.time_ns():020d}-{os.getpid()}"
        parts: dict[str, list[pa.Table]] = {}
        for key, seed, by_name in self._pending:
            for name, table in by_name.items():
                ids = [("point_key", "string", key)]
                if name == "points":
                    ids += [("seed", tables.SEED, seed), ("code_version", "string", self.code_version)]
                parts.setdefault(name, []).append(tables.with_ids(table, ids))
        # The points file last: a batch whose points file is missing (a crash) never counts.
        for name in sorted(parts, key=lambda n: n == "points"):
            _write_parquet(self.out_dir / RUNS / name / f"{batch}.parquet", pa.concat_tables(parts[name]))
        self._pending.clear()
        self._bytes = 0


def _parts(out_dir: Path, name: str) -> list[Path]:
    return sorted((Path(out_dir) / RUNS / name).glob("*.parquet"))


#: The damaged run files already named on stderr (each once per process).
_NAMED_DAMAGED: set[Path] = set()


def _damaged(path: Path) -> bool:
    """Returns whether the stored run file ``path`` cannot be read (truncated, empty, not
    Parquet), naming it once on stderr: its batch then counts as not stored, so a sweep reruns
    its runs and every reader leaves it out."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pq.read_metadata(path)
        return False
    except (pa.ArrowException, OSError) as exc:
        if path not in _NAMED_DAMAGED:
            _NAMED_DAMAGED.add(path)
            print(f"note: {path} is damaged ({str(exc).splitlines()[0][:120]}): its runs count as not stored and are rerun", file=sys.stderr)
        return True


def _damaged_batches(out_dir: Path) -> set[str]:
    """Returns the batches of ``out_dir`` with a damaged file in any table."""
    return {path.stem for name in _ALL_TABLES for path in _parts(out_dir, name) if _damaged(path)}


def remove_damaged(out_dir: Path) -> int:
    """Removes every file of the batches with a damaged file (their runs are not stored, and
    the sweep about to run reruns them); returns how many files it removed. For the writer
    holding the directory (:func:`locked`)."""
    damaged = _damaged_batches(out_dir)
    doomed = [path for name in _ALL_TABLES for path in _parts(out_dir, name) if path.stem in damaged]
    for path in doomed:
        path.unlink()
    return len(doomed)


def stored_runs(out_dir: Path) -> pa.Table:
    """Returns one row per stored run of a sweep: ``point_key``, ``seed``, ``code_version``,
    ``wall_s`` and ``batch`` (a run stored twice has two rows); a batch with a damaged file
    (:func:`_damaged`) is left out."""
    import pyarrow as pa

    from .arrays import arrow_array, arrow_type

    columns = ["point_key", "seed", "code_version", "wall_s"]
    read: list[pa.Table] = []
    damaged = _damaged_batches(out_dir)
    for path in _parts(out_dir, "points"):
        if path.stem in damaged:
            continue
        part = read_parquet(path, columns=columns)
        read.append(part.append_column("batch", arrow_array([path.stem] * part.num_rows, pa.string())))
    if not read:
        empty = (("point_key", "string"), ("seed", tables.SEED), ("code_version", "string"), ("wall_s", "float64"), ("batch", "string"))
        return pa.table({c: arrow_array([], arrow_type(t)) for c, t in empty})
    return pa.concat_tables(read)


def committed_runs(out_dir: Path) -> dict[str, str]:
    """Returns the stored runs of a sweep: point key → the batch that stored it (the oldest)."""
    stored = stored_runs(out_dir)
    out: dict[str, str] = {}
    for key, batch in zip(stored.column("point_key").to_pylist(), stored.column("batch").to_pylist(), strict=True):
        if key not in out or batch < out[key]:
            out[key] = batch
    return out


def legacy_points(out_dir: Path) -> int:
    """Returns how many runs are stored in the format before the columnar store
    (``points/<key>.json``): keyed by an older code version, they are never reused."""
    return sum(1 for _ in (Path(out_dir) / _LEGACY).glob("*.json"))


def _read_committed(out_dir: Path, name: str, committed: dict[str, str], keys: pa.Array) -> pa.Table | None:
    """Returns the rows of table ``name`` of the runs ``keys`` (each from the batch that
    committed it) with ``__run``, the run's index in ``keys``, sorted by run then row."""
    import pyarrow as pa
    import pyarrow.compute as pc  # here, not at import: 40 ms a `qdsim run` need not pay

    from .arrays import arrow_array

    by_batch: dict[str, list[str]] = {}
    for key in keys.to_pylist():
        if key in committed:
            by_batch.setdefault(committed[key], []).append(key)
    read = []
    for path in _parts(out_dir, name):
        wanted = by_batch.get(path.stem)
        if wanted:
            part = read_parquet(path)
            read.append(part.filter(pc.is_in(part.column("point_key"), value_set=arrow_array(wanted, pa.string()))))
    if not read:
        return None
    rows = pa.concat_tables(read)
    rows = rows.append_column("__run", pc.index_in(rows.column("point_key"), value_set=keys))
    rows = rows.append_column("__row", arrow_array(list(range(rows.num_rows)), pa.int64()))
    return rows.sort_by([("__run", "ascending"), ("__row", "ascending")])


def write_sweep_tables(out_dir: Path, ids: pa.Table) -> int:
    """Rebuilds the tables of a sweep's directory from its stored runs.

    ``ids`` has one row per run of the sweep, in the sweep's order: ``point_key`` and the
    identifying columns the tables start with (swept keys, ``rep``, ``seed``). Each table
    gets the rows of the stored runs among them, in that order; a table no run has rows for
    is removed. Returns how many of the runs are not stored.
    """
    import pyarrow as pa

    out_dir = Path(out_dir)
    committed = committed_runs(out_dir)
    keys = ids.column("point_key").combine_chunks()
    internal = {"point_key", "seed", "code_version", "__run", "__row"}
    rebuilt: dict[str, pa.Table] = {}
    for name in _ALL_TABLES:
        rows = _read_committed(out_dir, name, committed, keys)
        if rows is None:
            continue
        head = ids.take(rows.column("__run"))
        data = {c: rows.column(c) for c in rows.column_names if c not in internal}
        rebuilt[name] = pa.table({**{c: head.column(c) for c in head.column_names}, **data})
    _write_tables(out_dir, rebuilt)
    return sum(1 for key in keys.to_pylist() if key not in committed)


def prune(out_dir: Path, keep: Iterable[str], version: str) -> tuple[int, int]:
    """Removes the stored runs of a sweep that are stale: not among the point keys ``keep``
    (the sweep's current grid), keyed by another code version than ``version``, or stored
    in the old JSON format. Returns how many runs were removed and how many are kept."""
    import pyarrow as pa
    import pyarrow.compute as pc  # here, not at import: 40 ms a `qdsim run` need not pay

    from .arrays import arrow_array

    out_dir = Path(out_dir)
    keep_set = set(keep)
    committed = committed_runs(out_dir)
    stored = stored_runs(out_dir)
    versions = dict(zip(stored.column("point_key").to_pylist(), stored.column("code_version").to_pylist(), strict=True))
    kept = {key: batch for key, batch in committed.items() if key in keep_set and versions.get(key) == version}
    by_batch: dict[str, set[str]] = {}
    for key, batch in kept.items():
        by_batch.setdefault(batch, set()).add(key)
    for name in _ALL_TABLES:
        for path in _parts(out_dir, name):
            wanted = by_batch.get(path.stem, set())
            if not wanted:  # a batch with nothing to keep (stale, or damaged): no need to read it
                path.unlink()
                continue
            part = read_parquet(path)
            if set(part.column("point_key").to_pylist()) <= wanted:
                continue
            remaining = part.filter(pc.is_in(part.column("point_key"), value_set=arrow_array(sorted(wanted), pa.string())))
            if remaining.num_rows:
                _write_parquet(path, remaining)
            else:
                path.unlink()
    legacy = legacy_points(out_dir)
    if legacy:
        shutil.rmtree(out_dir / _LEGACY)
    return len(committed) - len(kept) + legacy, len(kept)


def wall_times(results_dir: Path) -> list[float]:
    """Returns the wall-clock seconds of every run stored in ``results_dir`` (none: empty)."""
    if not has_table(results_dir, "points"):
        return []
    table = read_table(results_dir, "points")
    return [float(v) for v in table.column("wall_s").to_pylist() if v is not None] if "wall_s" in table.column_names else []


def connect(results_dir: str | Path):
    """Returns a DuckDB connection with one view per Parquet table of ``results_dir``, and
    for a sweep the view ``stored``: every stored run (``point_key``, ``seed``,
    ``code_version``, ``wall_s``, ... of ``runs/points``, stale ones included)."""
    from ..extras import require

    con = require("duckdb", "SQL over results").connect()
    for path in sorted(Path(results_dir).glob("*.parquet")):
        literal = str(path).replace("'", "''")
        con.execute(f"create view \"{path.stem}\" as select * from read_parquet('{literal}')")
    if _parts(Path(results_dir), "points"):
        pattern = str(Path(results_dir) / RUNS / "points" / "*.parquet").replace("'", "''")
        con.execute(f"create view stored as select * from read_parquet('{pattern}', union_by_name = true)")
    return con
