"""A sweep run in a reference engine: the runs of an experiment file's grid, each translated,
run and stored with the tables of qdsim's own sweeps.

``qdsim validate`` runs one scenario's seeds this way; ``qdsim reproduce --engine`` a figure's
whole grid, so that the same figure and the same finding tests read the engine's numbers.
A grid point the engine cannot run (a discipline it lacks) is not an error here: it is left
out, listed with its one-line reason in ``refused.json``, and the rest runs.

Engine runs are keyed like qdsim's sweep points (the resolved configuration and its seed) but
by the engine's version (its build and the translator's code) instead of qdsim's, so a change
to qdsim reruns only qdsim's side. The engine's seed of a run is its repetition + 1: its own
random numbers, not qdsim's stream.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SpecError
from ..experiment.resolve import config_json
from ..results import store, tables
from ..run.one import summarize
from ..run.sweep import Point, collect, sweep_grid
from .base import Engine, EngineError, EngineRun, cpu_limit_s, run, terminate_all

__all__ = ["REFUSED", "EngineSweep", "engine_key", "engine_seed", "refused_points", "run_engine_sweep"]

#: The file of a results directory listing the grid points its engine refused.
REFUSED = "refused.json"
#: The runs that exceeded the engine's CPU limit, by stored key, with that limit and the reason:
#: the same script under the same limit exceeds it again, so they are not rerun until the limit
#: is raised (an ns-3 run at a 900-s limit costs a quarter of an hour each time). Other failures
#: (a crash, no measurement) are retried.
OVER_CPU_LIMIT = "over_cpu_limit.json"


@dataclass
class EngineSweep:
    """What an engine sweep did: the mapping notes of its translation (the first run's), its
    CPU and wall time per run made now (and the CPU time of reused runs), how many runs it
    reused, the points it refused with their reasons, and how many runs are missing."""

    out: Path
    notes: list[str] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)
    wall_s: list[float] = field(default_factory=list)
    ran: int = 0
    reused: int = 0
    refused: list[dict[str, Any]] = field(default_factory=list)
    #: The runs the engine failed (crashed, exceeded its CPU limit, printed no measurement),
    #: each with ``params``, ``rep`` and the one-line ``reason``: left out, and said.
    failed: list[dict[str, Any]] = field(default_factory=list)
    missing: int = 0


def engine_key(point: Point, engine: Engine) -> str:
    """Returns the stored key of ``point`` run in ``engine``."""
    digest = hashlib.sha256(config_json({k: v for k, v in point.base.items() if k != "seed"}).encode()).hexdigest()
    return hashlib.sha256(f"{digest}\n{point.seed}\n{engine.name}\n{engine.version()}".encode()).hexdigest()


def engine_seed(point: Point) -> int:
    """The engine's seed of a repetition: its own numbers (1, 2, 3, ...), not qdsim's stream."""
    return point.rep + 1


#: What :func:`qdsim.engines.base.run` says of a run stopped at the CPU limit.
_CPU_LIMIT_WORDS = "exceeded its CPU limit"


def _over_limit(out: Path) -> dict[str, dict[str, Any]]:
    """Returns the runs of ``out`` stored as over the CPU limit (see :data:`OVER_CPU_LIMIT`)."""
    path = Path(out) / OVER_CPU_LIMIT
    return store.read_json(path) if path.exists() else {}


def refused_points(out: Path) -> list[dict[str, Any]]:
    """Returns the points an engine sweep in ``out`` refused (``params``, ``rep``, ``reason``)."""
    path = Path(out) / REFUSED
    return store.read_json(path) if path.exists() else []


def _stem(point: Point, single: bool) -> str:
    """The file name of a run's script: ``seed-N``, prefixed by its grid point in a grid."""
    seed = f"seed-{engine_seed(point)}"
    return seed if single else "p" + "-".join(str(i) for i in point.index) + "-" + seed


def run_engine_sweep(
    engine: Engine,
    raw: dict[str, Any],
    points: list[Point],
    out: Path,
    jobs: int = 1,
    source: Path | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> EngineSweep:
    """Runs ``points`` (the plan of ``raw``) in ``engine`` into ``out``; returns what it did.

    Points the engine refuses are left out (``refused.json``); every other point's script is
    kept in ``out/scripts/``. Raises the engine's SpecError when it refuses every point.
    """
    result = EngineSweep(out=out)
    mine = [dataclasses.replace(p, key=engine_key(p, engine)) for p in points]
    single = len({p.index for p in mine}) == 1
    runnable: list[Point] = []
    first_refusal: SpecError | None = None
    for point in mine:
        try:
            script = engine.translate(point.config, engine_seed(point))
        except SpecError as exc:
            first_refusal = first_refusal or exc
            result.refused.append({"params": point.params, "rep": point.rep, "reason": str(exc)})
            continue
        if not result.notes:
            result.notes = list(script.notes)
        runnable.append(point)
    if first_refusal is not None and not runnable:
        raise first_refusal
    store.claim(out, "sweep", str(raw["experiment"]["name"]), option="--out")
    with store.locked(out):
        grid, reps, seeds = sweep_grid(raw)
        info: dict[str, Any] = {"grid": grid, "repetitions": reps, "seeds": seeds, "code_version": engine.version(), "engine": engine.name, "engine_title": engine.title}
        info["points"] = [p.key for p in mine]
        if source is not None:
            info["file"] = str(Path(source).resolve())
        store.write_sweep(out, raw, info)
        store.write_json(out / REFUSED, result.refused)
        store.remove_damaged(out)
        stored = store.committed_runs(out)
        over = _over_limit(out)
        limit = cpu_limit_s()
        todo = []
        for p in runnable:
            if p.key in stored:
                continue
            known = over.get(p.key)
            if known is not None and known["limit_s"] >= limit:
                result.failed.append({"params": p.params, "rep": p.rep, "reason": f"{known['reason']} (in an earlier run: raise QDSIM_ENGINE_CPU_LIMIT above {known['limit_s']} s to retry)"})
                continue
            todo.append(p)
        result.reused = len(runnable) - len(todo) - len(result.failed)
        done = result.reused + len(result.failed)
        if on_progress:
            on_progress(done, len(runnable))

        def one(point: Point) -> tuple[Point, EngineRun | EngineError]:
            try:
                return point, run(engine, point.config, engine_seed(point), out / store.SCRIPTS, _stem(point, single))
            except EngineError as exc:  # one failed run: the others still count
                return point, exc

        try:
            with store.PointWriter(out, engine.version()) as writer, cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
                futures = [pool.submit(one, p) for p in todo]
                try:
                    for future in cf.as_completed(futures):
                        point, engine_run = future.result()
                        if isinstance(engine_run, EngineError):
                            result.failed.append({"params": point.params, "rep": point.rep, "reason": str(engine_run)})
                            if _CPU_LIMIT_WORDS in str(engine_run):
                                over[point.key] = {"limit_s": limit, "reason": str(engine_run)}
                                store.write_json(out / OVER_CPU_LIMIT, over)
                            done += 1
                            if on_progress:
                                on_progress(done, len(runnable))
                            continue
                        summary = summarize(engine_run.outcome)
                        summary["wall_s"] = engine_run.cpu_s  # the engine's CPU time: what a run costs it
                        writer.add(point.key, point.seed, tables.run_tables(summary, engine_run.outcome.results))
                        result.cpu_s.append(engine_run.cpu_s)
                        result.wall_s.append(engine_run.wall_s)
                        result.ran += 1
                        done += 1
                        if on_progress:
                            on_progress(done, len(runnable))
                except BaseException:
                    for future in futures:
                        future.cancel()
                    terminate_all()
                    raise
        finally:
            result.missing = collect(out, mine, raw) - len(result.refused) - len(result.failed)
    if result.failed and result.ran == 0 and result.reused == 0:
        raise EngineError(result.failed[0]["reason"])  # nothing to compare: the first failure
    if result.reused:
        result.cpu_s += _stored_cpu(out, [p.key for p in runnable if p.key in stored])
    return result


def _stored_cpu(out: Path, keys: list[str]) -> list[float]:
    """Returns the CPU time of stored engine runs (kept in their ``wall_s``)."""
    runs = store.stored_runs(out)
    wall = dict(zip(runs.column("point_key").to_pylist(), runs.column("wall_s").to_pylist(), strict=True))
    return [wall[k] for k in keys if wall.get(k) is not None]
