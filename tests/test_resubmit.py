"""A sweep on an executor runs again a run whose future failed for a reason not its own (a lost
worker, a race in the executor), at most RESUBMITS times; a run's own error, or Dask's
KilledWorker, stops it at once. The executors here run each submission in this process, as
told: to fail it, or to run it."""

from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing
from pathlib import Path

import pytest

from conftest import SMALL_SWEEP
from qdsim.errors import BudgetError
from qdsim.experiment.spec import load
from qdsim.results import store
from qdsim.run.sweep import RESUBMITS, run_sweep

#: What distributed's concurrent.futures wrapper raised when a finished run's worker was lost
#: between reading its result and its status (distributed 2026.8.0, ``_cascade_future``).
RACE = ValueError("not enough values to unpack (expected 3, got 2)")


class ScriptedExecutor(cf.Executor):
    """Runs each submission at once in this process, except those ``fails(n, args)`` names (n:
    the submission's number from 0), whose futures fail with ``error`` without running."""

    def __init__(self, fails, error: BaseException = RACE):
        self.fails, self.error = fails, error
        self.submitted: list[int] = []  # the seed of each submission's run

    def submit(self, fn, /, *args, **kwargs):
        future: cf.Future = cf.Future()
        number = len(self.submitted)
        self.submitted.append(args[0]["seed"])
        if self.fails(number, args):
            future.set_exception(self.error)
        else:
            future.set_result(fn(*args, **kwargs))
        return future


def _stored_once(out: Path, runs: int) -> None:
    keys = store.stored_runs(out).column("point_key").to_pylist()
    assert len(keys) == len(set(keys)) == runs
    assert store.read_table(out, "points").num_rows == runs


def _points(out: Path) -> list[dict]:
    rows = store.read_rows(out, "points")
    for row in rows:
        row.pop("wall_s")
    return rows


def test_runs_lost_to_the_executor_run_again_with_the_same_results(write_spec, tmp_path):
    raw, _ = load(write_spec(SMALL_SWEEP))
    # Every other first submission fails, and the first one's second submission too.
    flaky = ScriptedExecutor(lambda n, _: n in (0, 2, 4, 6, 8))
    report = run_sweep(raw, tmp_path / "flaky", executor=flaky)
    assert report.ran == 8 and report.missing == 0
    # Submissions 0-7 are the points; 8 onward are resubmissions (0 failed twice).
    assert report.resubmitted == len(flaky.submitted) - 8 == 5
    assert flaky.submitted.count(flaky.submitted[0]) >= 2
    _stored_once(tmp_path / "flaky", 8)
    local = run_sweep(raw, tmp_path / "local", jobs=1)
    assert local.resubmitted == 0
    assert _points(tmp_path / "flaky") == _points(tmp_path / "local")


def test_a_run_failing_every_time_stops_the_sweep_after_its_resubmissions(write_spec, tmp_path):
    raw, _ = load(write_spec(SMALL_SWEEP))
    doomed: list[str] = []  # the first submission's run, whose every submission fails

    def fails(n, args):
        run = json.dumps(args[0], sort_keys=True)
        if n == 0:
            doomed.append(run)
        return run == doomed[0]

    always = ScriptedExecutor(fails)
    with pytest.raises(ValueError, match="not enough values to unpack"):
        run_sweep(raw, tmp_path / "out", executor=always)
    # The failing run was submitted 1 + RESUBMITS times; the seven others ran and are kept.
    assert len(always.submitted) == 8 + RESUBMITS
    _stored_once(tmp_path / "out", 7)


def test_a_runs_own_error_is_not_run_again(write_spec, tmp_path):
    raw, _ = load(write_spec(SMALL_SWEEP))
    executor = ScriptedExecutor(lambda n, _: False)
    with pytest.raises(BudgetError):
        run_sweep(raw, tmp_path / "out", executor=executor, memory_limit=1)
    assert len(executor.submitted) == 8  # each once: the first error stops the sweep


def test_dask_killed_worker_is_not_run_again(write_spec, tmp_path):
    distributed = pytest.importorskip("distributed")
    raw, _ = load(write_spec(SMALL_SWEEP))
    killed = ScriptedExecutor(lambda n, _: n == 0, error=distributed.KilledWorker("task", "worker", 3))
    with pytest.raises(distributed.KilledWorker):
        run_sweep(raw, tmp_path / "out", executor=killed)
    assert len(killed.submitted) == 8


def test_a_runs_error_from_another_process_carries_the_workers_traceback(write_spec, tmp_path):
    raw, _ = load(write_spec(SMALL_SWEEP))
    with cf.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool, pytest.raises(BudgetError) as raised:
        run_sweep(raw, tmp_path / "out", executor=pool, memory_limit=1)
    cause = str(raised.value.__cause__)
    assert "Traceback" in cause and "run_config" in cause and "BudgetError" in cause
