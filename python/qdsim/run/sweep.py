"""Sweeps: the ``[sweep]`` grid × repetitions, run on a process pool or any executor, resumable.

Planning (:func:`plan`) applies each grid point's values to the experiment file by dotted key
(like ``--set``), validates and resolves every point *before anything runs*, and gives
repetition ``r`` the seed ``stream_seed(base, "repetition", r)``, where ``base`` is the
point's ``experiment.seed`` (or ``--seed``), or ``sweep.seeds[r]`` when the file lists its
seeds — the same seeds at every grid point, so points differ only in what was swept.
Sweeping ``experiment.seed`` is an axis like any other: each value is the base seed of its
own repetitions. A grid whose points would repeat a run (a value listed twice, a key that
changes nothing) is refused: a table never holds a run twice.

Each run is stored in the results store (:class:`qdsim.results.store.PointWriter`) as soon as
it finishes, keyed by the SHA-256 of its resolved configuration, its seed and the code
version (:func:`qdsim.run.one.code_version`). A rerun skips stored runs, so an interrupted
sweep resumes where it stopped and never runs a finished point twice. The tables are rebuilt
from the stored runs at the end — also when the sweep stops early on an error or Ctrl-C, so
nothing computed is lost.

Where the runs execute: with one worker in this process, in order; by default on a pool of
``spawn`` processes that ignore Ctrl-C (the parent handles it: it kills them and keeps what
finished) and die with the parent; or on any ``concurrent.futures.Executor`` passed in, such
as a Dask cluster's (``distributed.Client(address).get_executor()``). A point's results are
the same wherever it runs.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import ctypes
import hashlib
import itertools
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from .._core import stream_seed
from ..errors import SpecError
from ..experiment.resolve import config_json, resolve
from ..experiment.spec import apply_override, validate
from ..results import store, tables
from ..results.arrays import arrow_array, arrow_type
from . import process
from .capture import refuse_in_sweep
from .one import code_version, default_memory_limit, run_config, summarize

__all__ = ["MAX_RUNS", "RESUBMITS", "Point", "SweepReport", "collect", "plan", "run_sweep", "runs", "sweep_grid"]

#: The most runs (grid points × repetitions) one sweep may have. Every run is planned (its
#: configuration validated and resolved) before any starts; at about a millisecond each, a
#: bigger sweep would plan for many minutes and hold its plan in gigabytes.
MAX_RUNS = 100_000

#: The swept key that sets a grid point's base seed.
SEED_KEY = "experiment.seed"

ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class Point:
    """One run of a sweep: swept values (and their indexes in the grid), repetition, seed,
    resolved configuration and key."""

    params: dict[str, Any]
    index: tuple[int, ...]
    rep: int
    seed: int
    base: dict[str, Any]
    key: str

    @property
    def config(self) -> dict[str, Any]:
        """Returns the run's resolved configuration (the grid point's, with this run's seed)."""
        return {**self.base, "seed": self.seed}


@dataclass(frozen=True)
class SweepReport:
    """What a sweep did: runs made now, runs reused from an earlier sweep, runs missing,
    (a reference engine's sweep) runs the engine refused, left out, and runs an executor lost
    and ran again."""

    ran: int
    reused: int
    missing: int
    out_dir: Path
    refused: int = 0
    #: Runs submitted again to an executor after their future failed for a reason not their
    #: own (a lost worker; see :data:`RESUBMITS`).
    resubmitted: int = 0


def sweep_grid(raw: dict[str, Any]) -> tuple[dict[str, list[Any]], int, list[int] | None]:
    """Returns the swept keys of ``raw`` with their values, its repetitions and its listed
    seeds (None: derived), as ``sweep.json`` records them."""
    return _grid(raw)


def _grid(raw: dict[str, Any]) -> tuple[dict[str, list[Any]], int, list[int] | None]:
    """Returns the swept keys with their values, the repetition count and the listed seeds
    (None: derived), checked: no value swept twice, no seed listed twice, ``experiment.seed``
    swept only without listed seeds, at most :data:`MAX_RUNS` runs."""
    sweep = raw.get("sweep") or {}
    seeds = sweep.get("seeds")
    reps = sweep.get("repetitions", 1 if seeds is None else len(seeds))
    if seeds is not None and reps != len(seeds):
        raise SpecError("sweep.repetitions", reps, f"the number of sweep.seeds ({len(seeds)}), or no repetitions key")
    if seeds is not None and len(set(seeds)) != len(seeds):
        raise SpecError("sweep.seeds", seeds, "distinct seeds (a seed listed twice would store the same run twice)")
    grid = {k: v for k, v in sweep.items() if k not in ("repetitions", "seeds")}
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise SpecError(f'sweep."{key}"', values, "a non-empty list of values for this dotted key")
        if key.split(".")[0] in ("sweep", "plot", "source", "quick"):
            raise SpecError(f'sweep."{key}"', values, "a key outside [sweep], [plot], [source] and [quick]")
        seen: set[str] = set()
        for value, cell in zip(values, tables.axis_cells(values), strict=True):
            if repr(cell) in seen:
                raise SpecError(f'sweep."{key}"', values, f"distinct values ({value!r} is listed twice: its runs would be stored twice)")
            seen.add(repr(cell))
    if SEED_KEY in grid and seeds is not None:
        raise SpecError(f'sweep."{SEED_KEY}"', grid[SEED_KEY], "not together with sweep.seeds, which lists every repetition's seed: sweep one or the other")
    total = math.prod(len(values) for values in grid.values()) * reps
    if total > MAX_RUNS:
        shape = " × ".join([*(str(len(v)) for v in grid.values()), f"{reps} repetitions"])
        raise SpecError("sweep", f"{total} runs ({shape})", f"at most {MAX_RUNS} runs in one sweep: split it, e.g. one sweep per value of a key (--set 'sweep.\"KEY\"=[...]')")
    return grid, reps, seeds


def runs(raw: dict[str, Any]) -> int:
    """Returns how many runs the sweep of ``raw`` has (grid points × repetitions), without
    resolving them."""
    grid, reps, _ = _grid(raw)
    return math.prod(len(values) for values in grid.values()) * reps


def plan(raw: dict[str, Any], seed: int | None = None, on_progress: ProgressFn | None = None) -> list[Point]:
    """Returns every run of the sweep described by ``raw`` (an experiment file dict).

    Every grid point is validated and resolved here, so a bad value fails before any run;
    ``on_progress(done, total)`` follows the grid points. ``seed`` replaces every point's
    base seed (``--seed``; refused when the sweep sweeps ``experiment.seed``).
    """
    validate(raw)  # checks [sweep] types (repetitions >= 1) and the unswept file
    grid, reps, seeds = _grid(raw)
    if seed is not None and SEED_KEY in grid:
        raise SpecError("--seed", seed, f"no --seed: the sweep sweeps {SEED_KEY} (each value is the base seed of its repetitions)")
    version = code_version()
    total = math.prod(len(values) for values in grid.values())
    points: list[Point] = []
    first: dict[str, dict[str, Any]] = {}
    for done, index in enumerate(itertools.product(*(range(len(values)) for values in grid.values()))):
        params = {key: grid[key][i] for key, i in zip(grid, index, strict=True)}
        point_raw = raw
        for key, value in params.items():
            point_raw = apply_override(point_raw, key, value)
        spec = validate(point_raw)
        refuse_in_sweep(spec.pcap)
        base = resolve(spec)
        # The repetitions share the grid point's configuration; only the seed differs.
        digest = hashlib.sha256(config_json({k: v for k, v in base.items() if k != "seed"}).encode()).hexdigest()
        base_seed = spec.experiment.seed if seed is None else seed
        for rep in range(reps):
            rep_seed = seeds[rep] if seeds is not None else stream_seed(base_seed, "repetition", rep)
            key = hashlib.sha256(f"{digest}\n{rep_seed}\n{version}".encode()).hexdigest()
            if key in first:
                raise SpecError("sweep", params, f"grid points that are different runs: this one is the same run as {first[key]} (a swept key that changes nothing, or one value written two ways)")
            first[key] = params
            points.append(Point(params=params, index=index, rep=rep, seed=rep_seed, base=base, key=key))
        if on_progress:
            on_progress(done + 1, total)
    return points


# --- where runs execute ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Ran:
    """What a worker sends back from a run that ended: the worker's code version and the run's
    tables (:func:`qdsim.results.tables.run_tables`)."""

    version: str
    tables: dict[str, pa.Table]


@dataclass(frozen=True)
class _Failed:
    """What a worker sends back from a run that raised: the run's own error and its traceback
    as text. Returned, not raised, so that an exception from a future is never the run's but
    the executor's (a lost worker), which a sweep may answer by running the point again."""

    error: Exception
    traceback: str


class _RemoteTraceback(Exception):
    """The traceback of an error raised in a worker, chained to it as its cause (as
    :mod:`concurrent.futures.process` does) so that a bug in a run shows where it happened."""

    def __str__(self) -> str:
        return f"\n{self.args[0]}"


def _simulate(config: dict[str, Any], memory_limit: int | None) -> _Ran | _Failed:
    """Runs one configuration (in a worker); returns its tables or its error.

    Without ``memory_limit`` the budget is this machine's default for as many runs at once as
    it has cores (a worker of a cluster)."""
    limit = memory_limit if memory_limit is not None else default_memory_limit(os.cpu_count() or 1)
    try:
        outcome = run_config(config, memory_limit=limit)
        # As Arrow tables here, in the worker: the conversion runs in parallel, and the
        # tables travel to the sweep's process in Arrow's own pickling.
        by_name = tables.run_tables(summarize(outcome), outcome.results)
        return _Ran(code_version(), {name: tables.arrow_table(table) for name, table in by_name.items()})
    except Exception as exc:
        return _Failed(exc, traceback.format_exc())


def _checked(outcome: _Ran | _Failed | tuple[str, dict[str, pa.Table]]) -> dict[str, pa.Table]:
    """Returns a run's tables; raises its error, or refuses the tables of other code than this
    sweep's (a cluster worker with another qdsim build): stored under this sweep's keys, they
    would mix two simulators' results."""
    if isinstance(outcome, _Failed):
        if outcome.error.__traceback__ is None:  # it crossed a process boundary
            outcome.error.__cause__ = _RemoteTraceback(outcome.traceback)
        raise outcome.error
    version = _sender_version(outcome)
    if isinstance(outcome, _Ran) and version == code_version():
        return outcome.tables
    raise SpecError("--scheduler", f"a worker with qdsim {version}", f"workers with the qdsim this sweep runs ({code_version()}): install the same build on every worker")


def _sender_version(outcome: _Ran | tuple[str, dict[str, pa.Table]]) -> str:
    """Returns the code version of the worker that sent ``outcome``."""
    if isinstance(outcome, _Ran):
        return outcome.version
    # A build before _Ran sent (version, tables).
    return outcome[0] if isinstance(outcome, tuple) and outcome else "of another version"


#: Linux's prctl option that signals a process when its parent dies.
_PR_SET_PDEATHSIG = 1


def _worker_init(parent: int) -> None:
    """Prepares a pool worker: Ctrl-C is the parent's to handle (the worker would only print a
    traceback), the worker dies with its parent, even a parent killed with SIGKILL, and its
    cycle collector is tuned for runs (:func:`qdsim.run.process.tune_collector`)."""
    process.tune_collector()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # SIGTERM too (a batch scheduler sends it to the whole job): the parent stores what is
    # finished and ends the workers itself.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)

    # Elsewhere (and as a second guard), a thread watches the parent.
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="qdsim-parent-watch", daemon=True).start()


@contextlib.contextmanager
def _main_module_hidden() -> Iterator[None]:
    """Starts ``spawn`` workers without the caller's main script.

    A spawned worker runs the parent's ``__main__`` file again before it takes work (so that
    functions defined there unpickle); a script that calls a sweep at top level, with no
    ``if __name__ == "__main__"`` guard, would then start a sweep in every worker. The
    workers only run :func:`_simulate`, which lives in this package, so they need none of
    it: while they start, ``__main__`` shows neither a file nor a module spec, which is how
    :mod:`multiprocessing` tells an interactive session (nothing to run again)."""
    module = sys.modules.get("__main__")
    saved = {name: module.__dict__[name] for name in ("__file__", "__spec__") if module is not None and name in module.__dict__}
    try:
        if module is not None:
            module.__dict__.pop("__file__", None)
            module.__spec__ = None
        yield
    finally:
        if module is not None:
            module.__dict__.update(saved)
            if "__spec__" not in saved:
                module.__dict__.pop("__spec__", None)


class _LocalPool:
    """A pool of ``spawn`` worker processes for a sweep on this machine (see :func:`_worker_init`)."""

    def __init__(self, workers: int):
        context = multiprocessing.get_context("spawn")
        self.pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init, initargs=(os.getpid(),))

    def submit_all(self, todo: list[Point], memory_limit: int) -> dict[cf.Future, Point]:
        """Submits every point; returns the futures."""
        # The workers start during these submits. Started while SIGINT is ignored, they keep
        # ignoring it from their first instruction (an ignored signal stays ignored across
        # exec, and Python leaves it so), before _worker_init could say so: a Ctrl-C while
        # they start never prints a worker's traceback.
        main = threading.current_thread() is threading.main_thread()
        previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)} if main else {}
        try:
            # They start with one BLAS thread (process.tuned).
            with _main_module_hidden(), process.tuned():
                return {self.pool.submit(_simulate, p.config, memory_limit): p for p in todo}
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def kill(self) -> None:
        """Ends every worker now (a run in progress is lost) and shuts the pool down."""
        # ProcessPoolExecutor has no public way to end busy workers before Python 3.14. The
        # pool then fails the pending futures itself; cancelling them first would make its
        # thread print a traceback (InvalidStateError, Python 3.11).
        for worker in list(getattr(self.pool, "_processes", {}).values()):
            worker.kill()
        self.pool.shutdown(wait=False)

    def close(self) -> None:
        """Shuts the pool down once every submitted point finished."""
        self.pool.shutdown(wait=True)


#: How many times a sweep submits a run again to an executor whose future for it failed for
#: a reason not the run's own (a run's errors come back as values, :class:`_Failed`): a worker
#: lost with the run, or a race in the executor as the worker went (Dask's concurrent.futures
#: wrapper can read a finished task's result and then its status turned "lost", and report the
#: result as an error). Runs are deterministic, so running one again costs only time. Not
#: for Dask's ``KilledWorker``: the run took down as many workers as the cluster allows.
RESUBMITS = 2


def _finished(todo: list[Point], workers: int, executor: cf.Executor | None, memory_limit: int | None, resubmitted: list[Point]) -> Iterator[tuple[Point, dict[str, pa.Table]]]:
    """Yields each point of ``todo`` with its tables as it finishes; appends to
    ``resubmitted`` each point an executor had to run again."""
    if executor is None and workers == 1:
        for point in todo:
            yield point, _checked(_simulate(point.config, memory_limit if memory_limit is not None else default_memory_limit(1)))
    elif executor is None:
        yield from _on_pool(todo, workers, memory_limit if memory_limit is not None else default_memory_limit(workers))
    else:
        yield from _on_executor(todo, executor, memory_limit, resubmitted)


def _on_pool(todo: list[Point], workers: int, memory_limit: int) -> Iterator[tuple[Point, dict[str, pa.Table]]]:
    """Runs ``todo`` on a local pool; a worker that dies breaks the pool and stops the sweep
    (what finished is kept, and a rerun resumes)."""
    pool = _LocalPool(workers)
    futures = pool.submit_all(todo, memory_limit)
    try:
        for future in cf.as_completed(futures):
            yield futures[future], _checked(future.result())
    except BaseException:
        pool.kill()
        raise
    pool.close()


def _on_executor(todo: list[Point], executor: cf.Executor, memory_limit: int | None, resubmitted: list[Point]) -> Iterator[tuple[Point, dict[str, pa.Table]]]:
    """Runs ``todo`` on ``executor``, submitting a run again (at most :data:`RESUBMITS` times)
    when its future fails for a reason not its own."""
    futures = {executor.submit(_simulate, p.config, memory_limit): p for p in todo}
    tries = {p.key: 0 for p in todo}
    try:
        while futures:
            done, _ = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
            for future in done:
                point = futures.pop(future)
                try:
                    outcome = future.result()
                except Exception as exc:
                    if future.cancelled() or tries[point.key] >= RESUBMITS or _killed_worker(exc):
                        raise
                    tries[point.key] += 1
                    resubmitted.append(point)
                    futures[executor.submit(_simulate, point.config, memory_limit)] = point
                    continue
                yield point, _checked(outcome)
    except BaseException:
        for future in futures:
            future.cancel()
        raise


def _killed_worker(exc: Exception) -> bool:
    """Returns whether ``exc`` is Dask's verdict that the run itself kills its workers."""
    distributed = sys.modules.get("distributed")
    return distributed is not None and isinstance(exc, getattr(distributed, "KilledWorker", ()))


def run_sweep(
    raw: dict[str, Any],
    out_dir: Path,
    jobs: int | None = None,
    seed: int | None = None,
    on_progress: ProgressFn | None = None,
    source: Path | None = None,
    executor: cf.Executor | None = None,
    memory_limit: int | None = None,
    force: bool = False,
    on_plan: ProgressFn | None = None,
) -> SweepReport:
    """Runs every run of ``raw``'s sweep not already stored in ``out_dir``; writes the tables.

    Runs execute on ``jobs`` local worker processes (default: one per core; 1: in this
    process), or on ``executor`` (any ``concurrent.futures.Executor``, e.g. a Dask
    cluster's), each under ``memory_limit`` bytes (default:
    :func:`qdsim.run.one.default_memory_limit` for the runs executing at once).
    ``on_plan(done, total)`` follows the planning of the grid points,
    ``on_progress(done, total)`` the runs. ``source`` (the experiment file) is recorded in
    ``sweep.json``, so a figure can find files beside it. ``out_dir`` must be new, empty or
    hold this experiment's sweep (:func:`qdsim.results.store.claim`; ``force`` replaces other
    results).
    """
    points = plan(raw, seed=seed, on_progress=on_plan)
    store.claim(out_dir, "sweep", str(raw["experiment"]["name"]), force=force)
    with store.locked(out_dir):
        return _run_claimed(raw, out_dir, points, jobs, on_progress, source, executor, memory_limit)


def _run_claimed(
    raw: dict[str, Any],
    out_dir: Path,
    points: list[Point],
    jobs: int | None,
    on_progress: ProgressFn | None,
    source: Path | None,
    executor: cf.Executor | None,
    memory_limit: int | None,
) -> SweepReport:
    """Runs the sweep's missing points into ``out_dir``, which this process holds."""
    grid, reps, seeds = _grid(raw)
    info: dict[str, Any] = {"grid": grid, "repetitions": reps, "seeds": seeds, "code_version": code_version(), "points": [p.key for p in points]}
    if source is not None:
        info["file"] = str(Path(source).resolve())
    store.write_sweep(out_dir, raw, info)
    store.remove_damaged(out_dir)
    stored = store.committed_runs(out_dir)
    todo = [p for p in points if p.key not in stored]
    reused = len(points) - len(todo)
    ran = 0
    resubmitted: list[Point] = []
    if on_progress:
        on_progress(reused, len(points))
    try:
        with store.PointWriter(out_dir, code_version()) as writer:
            if todo:
                workers = max(1, min(jobs or os.cpu_count() or 1, len(todo)))
                for point, by_name in _finished(todo, workers, executor, memory_limit, resubmitted):
                    writer.add(point.key, point.seed, by_name)
                    ran += 1
                    if on_progress:
                        on_progress(reused + ran, len(points))
    finally:
        missing = collect(out_dir, points, raw)
    return SweepReport(ran=ran, reused=reused, missing=missing, out_dir=out_dir, resubmitted=len(resubmitted))


def collect(out_dir: Path, points: list[Point], raw: dict[str, Any]) -> int:
    """Rebuilds the tables of ``out_dir`` from its stored runs of ``points`` (the sweep of
    ``raw``); returns how many of them are not stored."""
    grid, _, _ = _grid(raw)
    columns: dict[str, pa.Array] = {}
    for position, (key, values) in enumerate(grid.items()):
        for column in tables.swept_columns(key, values):
            columns[column.name] = arrow_array([column.cells[p.index[position]] for p in points], arrow_type(column.type))
    columns["rep"] = arrow_array([p.rep for p in points], pa.int64())
    columns["seed"] = arrow_array([p.seed for p in points], arrow_type(tables.SEED))
    columns["point_key"] = arrow_array([p.key for p in points], pa.string())
    return store.write_sweep_tables(out_dir, pa.table(columns))
