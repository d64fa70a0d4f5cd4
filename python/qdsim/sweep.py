"""Sweeps: the ``[sweep]`` grid × repetitions, run on a process pool, resumable.

Planning (:func:`plan`) applies each grid point's values to the experiment file by dotted key
(like ``--set``), validates and resolves every point *before anything runs*, and gives
repetition ``r`` the seed ``stream_seed(base_seed, "repetition", r)`` (or ``sweep.seeds[r]``
when the file lists its seeds) — the same seeds at every grid point, so points differ only in
what was swept.

Each point is stored in the results store (:func:`qdsim.store.write_point`) as soon as it
finishes, keyed by the SHA-256 of the resolved configuration's canonical JSON and the code
version. A rerun skips stored points, so an interrupted sweep resumes where it stopped and
never runs a finished point twice. The Parquet tables are rebuilt from the stored points at
the end — also when the sweep stops early on an error or Ctrl-C, so nothing computed is lost.
With one worker the points run in this process, in order; otherwise on a pool of ``spawn``
processes. Either way a point's results are the same.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import itertools
import json
import math
import multiprocessing
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import store
from ._core import stream_seed
from .errors import SpecError
from .resolve import config_json, resolve
from .run import RunOutcome, code_version, run_config, series_as_lists, summarize
from .spec import apply_override, validate

__all__ = ["Point", "SweepReport", "collect", "grid_cell", "plan", "run_sweep", "runs"]


@dataclass(frozen=True)
class Point:
    """One run of a sweep: swept values, repetition, seed, resolved config and its key."""

    params: dict[str, Any]
    rep: int
    seed: int
    config: dict[str, Any]
    key: str

    def ids(self) -> dict[str, Any]:
        """Returns the identifying columns of this point's rows."""
        return {**{k: grid_cell(v) for k, v in self.params.items()}, "rep": self.rep, "point_key": self.key}


@dataclass(frozen=True)
class SweepReport:
    """What a sweep did: points run now, points reused from an earlier run, points missing."""

    ran: int
    reused: int
    missing: int
    out_dir: Path


def grid_cell(value: Any) -> Any:
    """Returns a Parquet-friendly cell for a swept value (tables/lists become JSON text)."""
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


def _grid(raw: dict[str, Any]) -> tuple[dict[str, list[Any]], int, list[int] | None]:
    """Returns the swept keys with their values, the repetition count and the listed seeds
    (None: derived), checked."""
    sweep = raw.get("sweep") or {}
    seeds = sweep.get("seeds")
    reps = sweep.get("repetitions", 1 if seeds is None else len(seeds))
    if seeds is not None and reps != len(seeds):
        raise SpecError("sweep.repetitions", reps, f"the number of sweep.seeds ({len(seeds)}), or no repetitions key")
    grid = {k: v for k, v in sweep.items() if k not in ("repetitions", "seeds")}
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise SpecError(f'sweep."{key}"', values, "a non-empty list of values for this dotted key")
        if key.split(".")[0] in ("sweep", "plot", "source"):
            raise SpecError(f'sweep."{key}"', values, "a key outside [sweep], [plot] and [source]")
    return grid, reps, seeds


def runs(raw: dict[str, Any]) -> int:
    """Returns how many runs the sweep of ``raw`` has (grid points × repetitions), without
    resolving them."""
    grid, reps, _ = _grid(raw)
    return math.prod(len(values) for values in grid.values()) * reps


def plan(raw: dict[str, Any], seed: int | None = None) -> list[Point]:
    """Returns every point of the sweep described by ``raw`` (an experiment file dict).

    Every grid point is validated and resolved here, so a bad value fails before any run.
    """
    base = validate(raw)  # checks [sweep] types (repetitions >= 1) and the unswept file
    grid, reps, seeds = _grid(raw)
    base_seed = base.experiment.seed if seed is None else seed
    version = code_version()
    points = []
    for values in itertools.product(*grid.values()):
        params = dict(zip(grid, values, strict=True))
        point_raw = raw
        for key, value in params.items():
            point_raw = apply_override(point_raw, key, value)
        spec = validate(point_raw)
        for rep in range(reps):
            rep_seed = seeds[rep] if seeds is not None else stream_seed(base_seed, "repetition", rep)
            config = resolve(spec, seed=rep_seed)
            key = hashlib.sha256(f"{config_json(config)}\n{version}".encode()).hexdigest()
            points.append(Point(params=params, rep=rep, seed=rep_seed, config=config, key=key))
    return points


def _simulate(config: dict[str, Any]) -> tuple[dict[str, Any], float]:
    """Runs one configuration in a worker process; returns results and wall time."""
    outcome = run_config(config)
    return series_as_lists(outcome.results), outcome.wall_s  # stored as JSON


def _store_point(out_dir: Path, point: Point, results: dict[str, Any], wall_s: float) -> None:
    record = {"key": point.key, "params": point.params, "rep": point.rep, "seed": point.seed, "wall_s": wall_s, "results": results}
    store.write_point(out_dir, point.key, record)


def _finished(todo: list[Point], workers: int) -> Iterator[tuple[Point, dict[str, Any], float]]:
    """Yields each point of ``todo`` with its results and wall time as it finishes."""
    if workers == 1:
        for point in todo:
            yield (point, *_simulate(point.config))
        return
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(_simulate, p.config): p for p in todo}
        try:
            for future in cf.as_completed(futures):
                yield (futures[future], *future.result())
        except BaseException:
            for f in futures:
                f.cancel()
            raise


def run_sweep(
    raw: dict[str, Any],
    out_dir: Path,
    jobs: int | None = None,
    seed: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    source: Path | None = None,
) -> SweepReport:
    """Runs every point of ``raw``'s sweep not already stored in ``out_dir``; writes the tables.

    ``on_progress(done, total)`` is called after each finished point. ``source`` (the
    experiment file) is recorded in ``sweep.json``, so a figure can find files beside it.
    """
    points = plan(raw, seed=seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    grid, reps, _ = _grid(raw)
    info: dict[str, Any] = {"grid": grid, "repetitions": reps, "code_version": code_version(), "points": [p.key for p in points]}
    if source is not None:
        info["file"] = str(Path(source).resolve())
    store.write_sweep(out_dir, raw, info)
    todo = [p for p in points if not store.has_point(out_dir, p.key)]
    reused = len(points) - len(todo)
    ran = 0
    if on_progress:
        on_progress(reused, len(points))
    try:
        if todo:
            for point, results, wall_s in _finished(todo, max(1, min(jobs or os.cpu_count() or 1, len(todo)))):
                _store_point(out_dir, point, results, wall_s)
                ran += 1
                if on_progress:
                    on_progress(reused + ran, len(points))
    finally:
        missing = collect(out_dir, points)
    return SweepReport(ran=ran, reused=reused, missing=missing, out_dir=out_dir)


def collect(out_dir: Path, points: list[Point]) -> int:
    """Rebuilds the Parquet tables of ``out_dir`` from the stored points; returns how many are missing."""
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in store.TABLES}
    series: dict[str, dict[str, list[Any]]] = {}
    missing = 0
    for point in points:
        record = store.read_point(out_dir, point.key)
        if record is None:
            missing += 1
            continue
        outcome = RunOutcome(config=point.config, results=record["results"], wall_s=record["wall_s"])
        ids = point.ids()
        for name, table_rows in store.run_rows(summarize(outcome), ids).items():
            rows[name] += table_rows
        for name, cols in store.series_rows(record["results"], ids).items():
            merged = series.setdefault(name, {k: [] for k in cols})
            for column, values in cols.items():
                merged[column].extend(values.tolist() if isinstance(values, np.ndarray) else values)
    if rows["points"]:
        store.write_tables(out_dir, rows)
    if series:
        store.write_columns(out_dir, series)
    return missing
