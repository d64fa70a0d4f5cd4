"""Sweeps on a Dask cluster: a real `dask scheduler` and two `dask worker` processes on
loopback, started here. The results are the local ones bit for bit; a worker killed in the
middle of a sweep costs nothing but time; a second sweep runs nothing."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import SMALL_SWEEP as SWEEP
from qdsim.experiment.spec import load
from qdsim.results import store
from qdsim.run.sweep import run_sweep

distributed = pytest.importorskip("distributed")


DASK = str(Path(sys.executable).parent / "dask")


class Cluster:
    """A scheduler and two single-threaded workers without nannies (a killed worker stays
    dead), on 127.0.0.1."""

    def __init__(self, directory: Path):
        info = directory / "scheduler.json"
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": directory}
        self.scheduler = subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(info)], **quiet)
        deadline = time.monotonic() + 60
        while not info.exists() or not info.read_text().strip():
            assert time.monotonic() < deadline and self.scheduler.poll() is None, "the scheduler did not start"
            time.sleep(0.1)
        self.address = json.loads(info.read_text())["address"]
        self.workers = [subprocess.Popen([DASK, "worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", f"w{i}", "--host", "127.0.0.1"], **quiet) for i in range(2)]
        with distributed.Client(self.address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)

    def close(self) -> None:
        # Killed, not asked to close: nothing of the cluster is kept, and a graceful close
        # waits seconds for the workers to say goodbye.
        for proc in [*self.workers, self.scheduler]:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


@pytest.fixture
def cluster(tmp_path):
    running = Cluster(tmp_path)
    try:
        yield running
    finally:
        running.close()


def _tables(out: Path) -> dict[str, list[dict]]:
    result = {}
    for name in ("points", "flows", "groups", "links"):
        rows = store.read_rows(out, name)
        for row in rows:
            row.pop("wall_s", None)
        result[name] = rows
    return result


def test_a_sweep_on_a_cluster_gives_the_local_results_and_resumes(cluster, qdsim, write_spec, tmp_path):
    spec = write_spec(SWEEP)
    remote = qdsim("sweep", spec, "--scheduler", cluster.address, "--out", tmp_path / "remote", "--json")
    assert remote.code == 0, remote.stderr
    assert remote.json()["ran"] == 8
    local = qdsim("sweep", spec, "--jobs", "1", "--out", tmp_path / "local", "--json")
    assert local.code == 0
    assert _tables(tmp_path / "remote") == _tables(tmp_path / "local")
    again = qdsim("sweep", spec, "--scheduler", cluster.address, "--out", tmp_path / "remote", "--json")
    assert again.json()["ran"] == 0 and again.json()["reused"] == 8
    wrong = qdsim("sweep", spec, "--scheduler", "localhost:no-port", "--out", tmp_path / "x")
    assert wrong.code == 2 and wrong.stderr.startswith('error: --scheduler: "localhost:no-port" is not allowed; the address of a running Dask scheduler')


def test_a_worker_killed_mid_sweep_costs_nothing_but_time(cluster, write_spec, tmp_path):
    raw, _ = load(write_spec(SWEEP.replace('duration = "1s"', 'duration = "4s"')))
    out = tmp_path / "killed"
    killed = []

    def kill_one_worker(done: int, total: int) -> None:
        if done >= 1 and not killed:
            cluster.workers[0].kill()
            killed.append(done)

    with distributed.Client(cluster.address, timeout=30) as client:
        report = run_sweep(raw, out, executor=client.get_executor(pure=False), on_progress=kill_one_worker)
        assert killed and cluster.workers[0].wait(timeout=10) == -signal.SIGKILL
        assert report.ran == 8 and report.missing == 0
        # Every run exactly once: in the stored runs and in the tables.
        stored = store.stored_runs(out).column("point_key").to_pylist()
        assert len(stored) == len(set(stored)) == 8
        assert len({row["point_key"] for row in store.read_rows(out, "points")}) == store.read_table(out, "points").num_rows == 8
        again = run_sweep(raw, out, executor=client.get_executor(pure=False))
        assert again.ran == 0 and again.reused == 8
