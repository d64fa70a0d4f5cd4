"""The Python API: run an experiment or a sweep from a script or a notebook, read its tables.

::

    import qdsim

    run = qdsim.simulate("experiments/quickstart.toml", set={"experiment.duration": "10s"})
    run.groups.to_pandas()               # one row per flow group
    grid = qdsim.sweep("experiments/examples/buffer_sweep.toml", jobs=2)
    grid.to_xarray("bottleneck_utilization").mean("rep")
    again = qdsim.load("results/buffer_sweep")

Everything goes through the code the command line uses: :func:`simulate` is ``qdsim run``
(:func:`qdsim.run.one.run_config`, :func:`qdsim.run.one.summarize`,
:func:`qdsim.results.tables.run_tables`), :func:`sweep` is ``qdsim sweep``
(:func:`qdsim.run.sweep.run_sweep`: resumable, stored in a results directory), :func:`load`
reads any results directory (:mod:`qdsim.results.store`). So a table of the API is the same
as the Parquet file of the CLI, column for column.

Tables are :class:`Table`: Arrow tables (PyArrow is a required dependency, and they are
what the store holds) with one call to the data-frame library of the reader's choice,
``to_pandas()`` or ``to_polars()`` — those libraries are extras (``qdsim[pandas]``,
``qdsim[polars]``), so a bare install stays light, and a missing one is a
:class:`~qdsim.extras.MissingExtraError` naming the extra. Bad input is the package's
:class:`~qdsim.errors.SpecError` (key, value, what is allowed), as on the command line.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from .errors import SpecError
from .experiment.resolve import resolve, with_inline_sources, with_shared_sources
from .experiment.spec import Spec, apply_override, load_raw, refuse_overridden_sets, validate
from .experiment.units import UnitError, parse_bytes
from .extras import require
from .results import store, tables
from .run.capture import prepare_capture
from .run.one import run_config, summarize
from .run.sweep import SweepReport, run_sweep
from .version import __version__

__all__ = ["Experiment", "Results", "Table", "load", "simulate", "sweep"]

#: What :func:`simulate` and :func:`sweep` run: an experiment file's path (``str`` or
#: ``os.PathLike``), the text of one (a ``str`` with a line break), its contents as a dict
#: (as ``tomllib`` reads it), or a validated :class:`~qdsim.experiment.spec.Spec`
#: (``simulate`` only).
Experiment = str | os.PathLike | Mapping[str, Any] | Spec

#: The short names of the sampled series (``series("queue")`` is table ``series_queue``).
SERIES = tuple(name.removeprefix("series_") for name in tables.SERIES_TABLES if name.startswith("series_"))
#: The column naming the thing each row of a table is about, and its dimension's name in
#: :meth:`Results.to_xarray`.
_ENTITY = {"groups": ("group", "group"), "links": ("name", "link"), "flows": ("id", "flow"), "points": None}
#: Where :meth:`Results.to_xarray` looks for a metric, in this order.
_METRIC_TABLES = ("points", "groups", "links", "flows")


class Table:
    """One results table (``groups``, ``series_queue``, ...): an Arrow table with its name.

    ``to_pandas()`` and ``to_polars()`` give a data frame (extras ``pandas``, ``polars``),
    ``to_arrow()`` the PyArrow table itself and ``to_pylist()`` a list of row dicts. Columns
    and their types are those of :mod:`qdsim.results.tables` (documented in
    ``docs/experiment-file.md``); identifying columns (``seed``, a sweep's swept keys,
    ``rep``) come first.
    """

    def __init__(self, name: str, arrow: pa.Table):
        self.name = name
        self._arrow = arrow

    @property
    def columns(self) -> list[str]:
        """Returns the column names, in order."""
        return list(self._arrow.column_names)

    def __len__(self) -> int:
        return self._arrow.num_rows

    def __repr__(self) -> str:
        shown = ", ".join(self.columns[:8]) + (", ..." if len(self.columns) > 8 else "")
        return f"<qdsim.Table {self.name}: {len(self)} rows; {shown}>"

    def _repr_html_(self) -> str | None:
        """Shows the table in a notebook as pandas does, when pandas is installed."""
        try:
            return self.to_pandas()._repr_html_()
        except ImportError:
            return None  # the notebook falls back to repr()

    def to_arrow(self) -> pa.Table:
        """Returns the PyArrow table."""
        return self._arrow

    def to_pylist(self) -> list[dict[str, Any]]:
        """Returns the rows as dicts (column → value)."""
        return self._arrow.to_pylist()

    def to_pandas(self) -> Any:
        """Returns a ``pandas.DataFrame`` (extra ``pandas``)."""
        require("pandas", f"{self.name}.to_pandas()")
        return self._arrow.to_pandas()

    def to_polars(self) -> Any:
        """Returns a ``polars.DataFrame`` (extra ``polars``)."""
        polars = require("polars", f"{self.name}.to_polars()")
        return polars.from_arrow(self._arrow)

    def where(self, conditions: Mapping[str, Any]) -> Table:
        """Returns the rows whose columns equal the given values (``{"flow": 0}``,
        ``{"topology.qdisc.limit": "20pkt"}``); a column the table lacks, or a value its type cannot
        hold, is a SpecError."""
        names = self._arrow.column_names
        for column, value in conditions.items():
            if column not in names:
                raise SpecError(f"where.{column}", value, f"a column of {self.name} ({', '.join(names)})")
            try:
                store.rows_where(self._arrow.slice(0, 0), {column: value})
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
                raise SpecError(f"where.{column}", value, f"a value of the column's type, {self._arrow.schema.field(column).type}") from None
        return Table(self.name, store.rows_where(self._arrow, dict(conditions)))


@dataclass
class Results:
    """A run's or a sweep's results: tables, summary and provenance.

    ``kind`` is ``"run"`` or ``"sweep"``; ``spec`` the experiment file (after ``set``
    overrides) as a dict; ``summary`` a run's summary (``summary.json``: ``jain_index``,
    ``groups``, ...: ``qdsim run --json`` without the rows of its flows and links, which are
    the tables ``flows`` and ``links``) or a sweep's ``sweep.json`` (``grid``,
    ``repetitions``, ``seeds``, ``code_version``, ``points``); ``config`` a run's resolved
    configuration (None for a sweep); ``out_dir`` the results directory (None for a run kept
    in memory); ``report`` what :func:`sweep` did (runs made and reused; None otherwise).
    ``qdsim_version`` is the qdsim that made them (None for results of an older qdsim).
    """

    kind: str
    spec: dict[str, Any]
    summary: dict[str, Any]
    config: dict[str, Any] | None = None
    out_dir: Path | None = None
    report: SweepReport | None = None
    qdsim_version: str | None = None
    _read: Callable[[str], pa.Table | None] = field(default=lambda name: None, repr=False)
    _cache: dict[str, pa.Table | None] = field(default_factory=dict, repr=False)

    def table(self, name: str) -> Table:
        """Returns table ``name``: ``points``, ``flows``, ``groups``, ``links`` or a sampled
        series (``series_queue``, ...; see :meth:`series`). Raises SpecError for a table
        these results do not hold."""
        known = store.table_names()
        if name not in known:
            raise SpecError("table", name, f"one of {', '.join(known)}")
        if name not in self._cache:
            self._cache[name] = self._read(name)
        arrow = self._cache[name]
        if arrow is None:
            held = [n for n in known if n.startswith("series_") and self._has(n)]
            raise SpecError("table", name, f"a table these results hold: this {self.kind} sampled {', '.join(held) or 'no series'} (turn sampling on in [sampling])")
        return Table(name, arrow)

    def _has(self, name: str) -> bool:
        if name not in self._cache:
            self._cache[name] = self._read(name)
        return self._cache[name] is not None

    @property
    def points(self) -> Table:
        """One row per run: fairness, bottleneck utilisation and drops, events, times."""
        return self.table("points")

    @property
    def flows(self) -> Table:
        """One row per flow and run."""
        return self.table("flows")

    @property
    def groups(self) -> Table:
        """One row per flow group and run."""
        return self.table("groups")

    @property
    def links(self) -> Table:
        """One row per link and run."""
        return self.table("links")

    @property
    def swept(self) -> list[str]:
        """Returns a sweep's swept keys, in file order (a run's: none)."""
        return list(self.summary.get("grid", {})) if self.kind == "sweep" else []

    def series(self, name: str, where: Mapping[str, Any] | None = None) -> Table:
        """Returns the sampled series ``name`` — ``queue``, ``tcp``, ``tcp_events`` or
        ``qdisc`` (``[sampling] queues``, ``tcp``, ``tcp_events``, ``qdisc``) — keeping the
        rows whose columns equal ``where``'s values, e.g. ``{"flow": 0}`` or
        ``{"link_name": "bottleneck", "rep": 0}``."""
        if name not in SERIES:
            raise SpecError("series", name, f"one of {', '.join(SERIES)}")
        if not self._has(f"series_{name}"):
            held = [n for n in SERIES if self._has(f"series_{n}")]
            raise SpecError("series", name, f"a series this {self.kind} sampled ({', '.join(held) or 'none'}; [sampling] turns them on)")
        table = self.table(f"series_{name}")
        return table.where(where) if where else table

    def to_xarray(self, metric: str, table: str | None = None) -> Any:
        """Returns ``metric`` (a column of ``table``; by default the first of points, groups,
        links, flows that has it) as an ``xarray.DataArray`` (extra ``xarray``).

        Its dimensions are a sweep's swept keys (in file order, coordinates in the grid's
        order; a quantity such as ``"20pkt"`` also gets the coordinate ``<key>__value`` in
        its base unit), ``rep`` (the repetitions) and the table's own key: ``group``,
        ``link`` (the link's name) or ``flow`` (its id); ``points`` has none. A run has only
        the table's key.
        """
        xarray = require("xarray", "Results.to_xarray()")
        require("pandas", "Results.to_xarray()")
        if table is not None and table not in _METRIC_TABLES:
            raise SpecError("table", table, f"one of {', '.join(_METRIC_TABLES)}")
        name = table or next((n for n in _METRIC_TABLES if self._has(n) and metric in self.table(n).columns), None)
        if name is None:
            columns = sorted({c for n in _METRIC_TABLES if self._has(n) for c in self.table(n).columns})
            raise SpecError("metric", metric, f"a column of points, groups, links or flows ({', '.join(columns)})")
        data = self.table(name)
        if metric not in data.columns:
            raise SpecError("metric", metric, f"a column of {name} ({', '.join(data.columns)})")
        grid = self.summary.get("grid", {}) if self.kind == "sweep" else {}
        entity = _ENTITY[name]
        index = [*grid, *(["rep"] if self.kind == "sweep" else []), *([entity[0]] if entity else [])]
        frame = data.to_pandas()
        if not index:
            return xarray.DataArray(frame[metric].iloc[0], name=metric)
        array = frame.set_index(index)[metric].to_xarray()
        if entity:
            array = array.rename({entity[0]: entity[1]})
        for key, values in grid.items():
            array = array.reindex({key: tables.axis_cells(values)})
            if f"{key}__value" in frame.columns:
                base = frame.drop_duplicates(key).set_index(key)[f"{key}__value"]
                array = array.assign_coords({f"{key}__value": (key, [base[cell] for cell in array[key].values])})
        return array


def _experiment(experiment: Experiment, overrides: Mapping[str, Any] | None) -> tuple[dict[str, Any], Path | None]:
    """Returns the experiment as a raw dict with ``overrides`` applied, and its file (if any)."""
    source: Path | None = None
    if isinstance(experiment, Spec):
        raise SpecError("experiment", type(experiment).__name__, "a path, TOML text or a dict here (a Spec holds its values in base units; pass the dict of qdsim.load_spec)")
    if isinstance(experiment, str) and "\n" in experiment:
        import tomllib

        try:
            raw = tomllib.loads(experiment)
        except tomllib.TOMLDecodeError as exc:
            raise SpecError("experiment", "(TOML text)", f"valid TOML ({exc})") from None
    elif isinstance(experiment, (str, os.PathLike)):
        source = Path(experiment)
        raw = load_raw(source)
    elif isinstance(experiment, Mapping):
        raw = dict(experiment)
    else:
        raise SpecError("experiment", repr(experiment), "an experiment file's path, its TOML text, a dict or a qdsim Spec")
    for key, value in (overrides or {}).items():
        raw = apply_override(raw, key, value)
    return raw, source


def _memory_limit(limit: int | str | None) -> int | None:
    if limit is None or isinstance(limit, int):
        return limit
    try:
        return parse_bytes(limit)
    except UnitError as exc:
        raise SpecError("memory_limit", limit, exc.allowed) from None


def _check_seed(seed: int | None) -> None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64):
        raise SpecError("seed", seed, "a whole number from 0 to 2^64-1")


def simulate(
    experiment: Experiment,
    *,
    set: Mapping[str, Any] | None = None,
    seed: int | None = None,
    out: str | os.PathLike | None = None,
    memory_limit: int | str | None = None,
    force: bool = False,
) -> Results:
    """Runs one experiment (``qdsim run``) and returns its :class:`Results`.

    ``experiment`` is a path, TOML text, a dict or a :class:`~qdsim.experiment.spec.Spec`;
    ``set`` overrides dotted keys as ``--set`` does (``{"topology.qdisc.limit": "20pkt"}``;
    values are Python values, not TOML text); ``seed`` replaces ``experiment.seed``. The
    results stay in memory unless ``out`` names a results directory, which then holds what
    ``qdsim run --out`` writes (refused if it holds other results, unless ``force``).
    ``memory_limit`` bounds the run (bytes or ``"4GB"``; default a quarter of physical
    memory). A file's ``[sweep]`` is ignored: :func:`sweep` runs it.
    """
    _check_seed(seed)
    limit = _memory_limit(memory_limit)
    if isinstance(experiment, Spec):
        if set:
            raise SpecError("set", dict(set), "no overrides for a Spec (apply them to the file or dict it came from)")
        spec, raw = experiment, experiment.model_dump(mode="json", by_alias=True)
    else:
        raw, _ = _experiment(experiment, set)
        spec = validate(raw)
    config = resolve(spec, seed=seed)
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        store.claim(out_dir, "run", spec.experiment.name, force=force, option="out")
    prepare_capture(config, out_dir)
    text = None if out_dir is None else store.json_text(with_shared_sources(config))  # config.json's, which the core reads too
    outcome = run_config(config, memory_limit=limit, text=text)
    summary = summarize(outcome)
    by_name = tables.run_tables(summary, outcome.results)
    if out_dir is not None and text is not None:
        store.write_run(out_dir, raw, text, summary, by_name)
    identified = {name: tables.arrow_table(table) for name, table in store.run_tables_with_ids(summary, by_name).items()}
    return Results(kind="run", spec=raw, summary=store.summary_record(summary), config=config, out_dir=out_dir, qdsim_version=__version__, _read=identified.get)


def sweep(
    experiment: Experiment,
    *,
    set: Mapping[str, Any] | None = None,
    seed: int | None = None,
    out: str | os.PathLike | None = None,
    jobs: int | None = None,
    executor: cf.Executor | None = None,
    memory_limit: int | str | None = None,
    force: bool = False,
    quick: bool = False,
) -> Results:
    """Runs an experiment's ``[sweep]`` (``qdsim sweep``) and returns its :class:`Results`.

    ``experiment``, ``set`` and ``seed`` are as for :func:`simulate` (no Spec: a sweep sets
    its keys on the file's own values). ``quick`` runs the file's ``[quick]`` shortened
    sweep (``qdsim reproduce --quick``). The results go to ``out`` (default
    ``results/<experiment.name>/``, as ``qdsim sweep``): runs stored there before are
    reused, so calling it again only runs what is missing. ``jobs`` worker processes (default
    one per core; 1 runs in this process) or ``executor`` (any
    ``concurrent.futures.Executor``, e.g. a Dask client's) run the points. It works from a
    script without an ``if __name__ == "__main__"`` guard: the workers never import the
    calling script.
    """
    _check_seed(seed)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise SpecError("jobs", jobs, "at least 1 worker process")
    limit = _memory_limit(memory_limit)
    raw, source = _experiment(experiment, set)
    refuse_overridden_sets(raw, set or {}, quick=quick, option="set")
    spec = validate(raw)
    if quick:
        from .papers.reproduce import quick_raw

        raw = quick_raw(raw, str(source) if source else "")
    out_dir = Path(out) if out is not None else Path("results") / (spec.experiment.name + ("-quick" if quick else ""))
    report = run_sweep(raw, out_dir, jobs=jobs, seed=seed, source=source, executor=executor, memory_limit=limit, force=force)
    results = load(out_dir)
    results.report = report
    return results


def load(results_dir: str | os.PathLike) -> Results:
    """Returns the :class:`Results` in a results directory (``qdsim run``, ``sweep`` or
    ``reproduce``, or :func:`simulate` with ``out``). Tables are read when first used."""
    directory = Path(results_dir)
    held = store.describe(directory)
    if held.kind is None:
        raise SpecError("results_dir", str(directory), "a directory written by qdsim run, sweep or reproduce (or qdsim.simulate with out=)")

    def read(name: str) -> pa.Table | None:
        return store.read_table(directory, name) if store.has_table(directory, name) else None

    spec = store.read_spec(directory)
    if held.kind == "sweep":
        summary = store.read_sweep(directory)
        return Results(kind="sweep", spec=spec, summary=summary, out_dir=directory, qdsim_version=summary.get("qdsim_version"), _read=read)
    summary = store.read_json(directory / "summary.json")
    config = with_inline_sources(store.read_json(directory / "config.json"))
    return Results(kind="run", spec=spec, summary=summary, config=config, out_dir=directory, qdsim_version=summary.get("qdsim_version"), _read=read)
