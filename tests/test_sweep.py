"""Sweeps: grid × repetitions, Parquet row counts, resume without rerunning, plots."""

import pyarrow.parquet as pq

from conftest import SMALL_SPEC

SWEEP = (
    SMALL_SPEC.replace('duration = "2s"', 'duration = "1s"').replace('warmup = "0.5s"', 'warmup = "0.2s"')
    + """
[sweep]
"topology.qdisc.limit" = [10, 40]
"topology.bottleneck_rate" = ["5Mbps", "10Mbps"]
repetitions = 2
"""
)


def test_sweep_runs_grid_times_repetitions_and_resumes(qdsim, write_spec, tmp_path):
    path = write_spec(SWEEP)
    out = tmp_path / "sweep"
    first = qdsim("sweep", path, "--jobs", "2", "--out", out, "--json")
    assert first.code == 0, first.stderr
    assert first.json() == {"ran": 8, "reused": 0, "missing": 0, "out": str(out)}
    points = pq.read_table(out / "points.parquet").to_pylist()
    assert len(points) == 8
    assert pq.read_table(out / "flows.parquet").num_rows == 8 * 4
    assert pq.read_table(out / "groups.parquet").num_rows == 8 * 2
    assert pq.read_table(out / "links.parquet").num_rows == 8 * 18
    assert {p["topology.qdisc.limit"] for p in points} == {10, 40}
    # Repetition seeds are the same at every grid point, and differ between repetitions.
    seeds = {(p["topology.qdisc.limit"], p["topology.bottleneck_rate"], p["rep"]): p["seed"] for p in points}
    assert seeds[(10, "5Mbps", 0)] == seeds[(40, "10Mbps", 0)] != seeds[(10, "5Mbps", 1)]
    stored = sorted((out / "points").glob("*.json"))
    mtimes = [p.stat().st_mtime_ns for p in stored]

    second = qdsim("sweep", path, "--out", out, "--json")
    assert second.json()["ran"] == 0 and second.json()["reused"] == 8
    assert [p.stat().st_mtime_ns for p in stored] == mtimes

    # Removing one stored point reruns exactly that point.
    stored[0].unlink()
    third = qdsim("sweep", path, "--out", out, "--json")
    assert third.json()["ran"] == 1

    png = tmp_path / "plot.png"
    plotted = qdsim("plot", out, "--x", "topology.qdisc.limit", "--y", "goodput_bps", "--out", png)
    assert plotted.code == 0, plotted.stderr
    assert png.stat().st_size > 1000
    assert qdsim("plot", out, "--x", "topology.qdisc.limit", "--y", "no_such_metric").code == 2


def test_bad_sweep_value_fails_before_running(qdsim, write_spec, tmp_path):
    path = write_spec(SWEEP.replace('["5Mbps", "10Mbps"]', '["5Mbps", "ten"]'))
    result = qdsim("sweep", path, "--out", tmp_path / "s")
    assert result.code == 2
    assert result.stderr.startswith('error: topology.bottleneck_rate: "ten"')
    assert not (tmp_path / "s" / "points").exists()


def test_interrupted_sweep_keeps_finished_points(write_spec, tmp_path):
    import pytest

    from qdsim.spec import load
    from qdsim.sweep import run_sweep

    raw, _ = load(write_spec(SWEEP))
    out = tmp_path / "interrupted"

    def stop_after_two(done, total):
        if done >= 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_sweep(raw, out, jobs=1, on_progress=stop_after_two)
    finished = pq.read_table(out / "points.parquet").num_rows
    assert finished >= 2
    report = run_sweep(raw, out, jobs=2)
    assert report.reused == finished and report.ran == 8 - finished and report.missing == 0


def test_results_do_not_depend_on_the_number_of_workers(qdsim, write_spec, tmp_path):
    # A point's result depends only on its spec and seed, not on the worker or the order.
    path = write_spec(SWEEP)
    for jobs in ("1", "2"):
        assert qdsim("sweep", path, "--jobs", jobs, "--out", tmp_path / f"j{jobs}").code == 0

    def rows(name: str, jobs: str) -> list[dict]:
        table = pq.read_table(tmp_path / f"j{jobs}" / name).to_pylist()
        for row in table:
            row.pop("wall_s", None)
        return sorted(table, key=repr)

    for name in ("points.parquet", "flows.parquet", "links.parquet"):
        assert rows(name, "1") == rows(name, "2"), name
