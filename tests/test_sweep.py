"""Sweeps: grid × repetitions, seeds as an axis, typed tables, resume without rerunning, plots."""

import json
import os
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import SMALL_SWEEP as SWEEP
from qdsim.errors import SpecError
from qdsim.experiment.spec import apply_override, load
from qdsim.results import store, tables
from qdsim.run.one import code_version
from qdsim.run.sweep import MAX_RUNS, plan, run_sweep


def test_sweep_runs_grid_times_repetitions_and_resumes(qdsim, write_spec, tmp_path):
    path = write_spec(SWEEP)
    out = tmp_path / "sweep"
    first = qdsim("sweep", path, "--jobs", "2", "--out", out, "--json")
    assert first.code == 0, first.stderr
    assert first.json() == {"ran": 8, "reused": 0, "missing": 0, "resubmitted": 0, "out": str(out)}
    points = pq.read_table(out / "points.parquet").to_pylist()
    assert len(points) == 8
    assert pq.read_table(out / "flows.parquet").num_rows == 8 * 4
    assert pq.read_table(out / "groups.parquet").num_rows == 8 * 2
    assert pq.read_table(out / "links.parquet").num_rows == 8 * 18
    assert {p["topology.qdisc.limit"] for p in points} == {10, 40}
    # Repetition seeds are the same at every grid point, and differ between repetitions.
    seeds = {(p["topology.qdisc.limit"], p["topology.bottleneck_rate"], p["rep"]): p["seed"] for p in points}
    assert seeds[(10, "5Mbps", 0)] == seeds[(40, "10Mbps", 0)] != seeds[(10, "5Mbps", 1)]
    parts = sorted((out / "runs").rglob("*.parquet"))
    mtimes = [p.stat().st_mtime_ns for p in parts]

    second = qdsim("sweep", path, "--out", out, "--json")
    assert second.json()["ran"] == 0 and second.json()["reused"] == 8
    assert sorted((out / "runs").rglob("*.parquet")) == parts and [p.stat().st_mtime_ns for p in parts] == mtimes

    # Deleting one stored run reruns exactly that run.
    keys = [p["point_key"] for p in points]
    assert store.prune(out, keys[1:], code_version()) == (1, 7)
    third = qdsim("sweep", path, "--out", out, "--json")
    assert third.json()["ran"] == 1
    assert pq.read_table(out / "points.parquet").column("point_key").to_pylist() == keys

    png = tmp_path / "plot.png"
    plotted = qdsim("plot", out, "--x", "topology.qdisc.limit", "--y", "goodput_bps", "--out", png)
    assert plotted.code == 0, plotted.stderr
    assert png.stat().st_size > 1000
    assert qdsim("plot", out, "--x", "topology.qdisc.limit", "--y", "no_such_metric").code == 2


def test_tables_have_fixed_types_and_swept_quantities_as_numbers(write_spec, tmp_path):
    raw, _ = load(write_spec(SWEEP.replace("[10, 40]", '["200pkt", "20pkt"]').replace("repetitions = 2", "repetitions = 1")))
    out = tmp_path / "typed"
    run_sweep(raw, out, jobs=1)
    points = store.read_table(out, "points")
    assert points.schema.field("seed").type == pa.uint64()
    assert points.schema.field("topology.qdisc.limit").type == pa.string()
    assert points.schema.field("topology.qdisc.limit__value").type == pa.float64()
    assert set(points.column("topology.qdisc.limit__unit").to_pylist()) == {"pkt"}
    assert set(points.column("topology.bottleneck_rate__unit").to_pylist()) == {"bit/s"}
    # SQL sorts the numbers: 20pkt before 200pkt (as text, "200pkt" < "20pkt").
    order = store.connect(out).sql('select distinct "topology.qdisc.limit" from points order by "topology.qdisc.limit__value"').fetchall()
    assert [row[0] for row in order] == ["20pkt", "200pkt"]
    for name in ("points", "flows", "groups", "links"):
        table = store.read_table(out, name)
        assert table.schema.field("seed").type == pa.uint64(), name
        own = table.select([n for n, _ in tables.columns(name)])
        assert own.schema == tables.schema(name), name
    # A column that is null in every row keeps its type; every drop reason has a column.
    flows = store.read_table(out, "flows")
    assert flows.column("fct_s").null_count == flows.num_rows and flows.schema.field("fct_s").type == pa.float64()
    links = store.read_table(out, "links")
    assert {f"drops_{r}" for r in tables.drop_reasons()} <= set(links.column_names)
    assert "drops_random_loss" in links.column_names and links.column("drops_early").null_count == 0


def test_a_swept_seed_is_an_axis_of_its_own_runs(write_spec, tmp_path):
    raw, _ = load(write_spec(SWEEP))
    raw = apply_override(raw, 'sweep."topology.bottleneck_rate"', ["10Mbps"])
    raw = apply_override(raw, 'sweep."experiment.seed"', [1, 2, 3])
    out = tmp_path / "seeds"
    report = run_sweep(raw, out, jobs=2)
    assert report.ran == 2 * 3 * 2  # limits × seeds × repetitions, each its own run
    points = store.read_rows(out, "points")
    assert len({p["point_key"] for p in points}) == len(points) == 12
    assert store.read_table(out, "points").schema.field("experiment.seed").type == pa.uint64()
    by_seed = {}
    for p in points:
        by_seed.setdefault(p["experiment.seed"], set()).add(p["seed"])
    assert sorted(by_seed) == [1, 2, 3] and all(len(s) == 2 for s in by_seed.values())
    assert len(set().union(*by_seed.values())) == 6, "every base seed gives its own repetition seeds"
    goodputs = {(p["experiment.seed"], p["rep"]): p["jain_index"] for p in points if p["topology.qdisc.limit"] == 10}
    assert len(set(goodputs.values())) > 1, "different seeds, different runs"


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({'sweep."experiment.seed"': [1, 2], "sweep.seeds": [5, 6]}, 'sweep."experiment.seed"'),
        ({'sweep."topology.qdisc.limit"': [10, 40, 10]}, 'sweep."topology.qdisc.limit"'),
        ({"sweep.seeds": [4, 4]}, "sweep.seeds"),
        ({'sweep."experiment.description"': ["a", "b"]}, "sweep"),
        ({'sweep."topology.qdisc.limit"': [10, "10pkt"]}, "sweep"),
    ],
)
def test_a_grid_that_would_store_a_run_twice_is_refused(write_spec, change, key):
    raw, _ = load(write_spec(SWEEP))
    for dotted, value in change.items():
        raw = apply_override(raw, dotted, value)
    if "sweep.seeds" in change:
        raw["sweep"].pop("repetitions")
    with pytest.raises(SpecError) as error:
        plan(raw)
    assert error.value.key == key, error.value


def test_seed_option_and_a_swept_seed_do_not_mix(qdsim, write_spec, tmp_path):
    path = write_spec(SWEEP + '"experiment.seed" = [1, 2]\n')
    result = qdsim("sweep", path, "--seed", "5", "--out", tmp_path / "s")
    assert result.code == 2 and result.stderr.startswith("error: --seed: 5 is not allowed; no --seed: the sweep sweeps experiment.seed")


def test_a_grid_too_big_to_plan_fails_at_once_naming_the_cap(qdsim, write_spec, tmp_path):
    path = write_spec(SWEEP.replace('"topology.qdisc.limit" = [10, 40]', f'"topology.qdisc.limit" = [{", ".join(map(str, range(1, 1001)))}]').replace("repetitions = 2", "repetitions = 1000"))
    started = time.monotonic()
    result = qdsim("sweep", path, "--out", tmp_path / "big")
    assert result.code == 2 and time.monotonic() - started < 20
    assert result.stderr.startswith('error: sweep: "2000000 runs (1000 × 2 × 1000 repetitions)" is not allowed;'), result.stderr
    assert str(MAX_RUNS) in result.stderr and len(result.stderr.splitlines()) == 1


def test_progress_goes_to_stderr_when_piped(qdsim, write_spec, tmp_path, monkeypatch):
    monkeypatch.setenv("QDSIM_PROGRESS_INTERVAL", "0")
    result = qdsim("sweep", write_spec(SWEEP), "--jobs", "2", "--out", tmp_path / "s", "--json")
    assert result.code == 0, result.stderr
    lines = result.stderr.splitlines()
    assert any(line.startswith("sweep small: planning: 1/4 grid points") for line in lines), lines
    assert any(line.startswith("sweep small: 4/8 runs (50 %)") for line in lines), lines
    assert json.loads(result.stdout)["ran"] == 8


def test_bad_sweep_value_fails_before_running(qdsim, write_spec, tmp_path):
    path = write_spec(SWEEP.replace('["5Mbps", "10Mbps"]', '["5Mbps", "ten"]'))
    result = qdsim("sweep", path, "--out", tmp_path / "s")
    assert result.code == 2
    assert result.stderr.startswith('error: topology.bottleneck_rate: "ten"')
    assert not (tmp_path / "s").exists()


def test_interrupted_sweep_keeps_finished_points(write_spec, tmp_path):
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


def test_a_run_stored_twice_or_half_written_never_gives_two_rows(write_spec, tmp_path):
    raw, _ = load(write_spec(SWEEP))
    out = tmp_path / "twice"
    run_sweep(raw, out, jobs=1)
    # A second copy of every stored run (two sweeps of one directory at once), and a batch
    # whose points file never got written (a crash): neither may add a row.
    for name in ("points", "flows", "groups", "links"):
        (part,) = (out / "runs" / name).glob("*.parquet")
        (out / "runs" / name / "99999999999999999999-1.parquet").write_bytes(part.read_bytes())
        if name != "points":
            (out / "runs" / name / "99999999999999999999-2.parquet").write_bytes(part.read_bytes())
    report = run_sweep(raw, out, jobs=1)
    assert report.ran == 0
    for name, per_run in (("points", 1), ("flows", 4), ("groups", 2), ("links", 18)):
        assert store.read_table(out, name).num_rows == 8 * per_run, name


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


def test_any_executor_runs_a_sweep_with_the_same_results(write_spec, tmp_path):
    import concurrent.futures as cf

    raw, _ = load(write_spec(SWEEP))
    run_sweep(raw, tmp_path / "local", jobs=1)
    with cf.ThreadPoolExecutor(2) as executor:
        report = run_sweep(raw, tmp_path / "threads", executor=executor)
    assert report.ran == 8
    for name in ("points", "flows", "links"):
        local, threads = (store.read_table(tmp_path / d, name).drop(["wall_s"] if name == "points" else []) for d in ("local", "threads"))
        assert local.equals(threads), name


def test_points_of_the_old_json_store_are_reported_and_pruned(qdsim, write_spec, tmp_path):
    path = write_spec(SWEEP.replace("repetitions = 2", "repetitions = 1"))
    out = tmp_path / "old"
    (out / "points").mkdir(parents=True)
    (out / "points" / f"{'ab' * 32}.json").write_text('{"key": "old"}\n')
    (out / "spec.json").write_text(json.dumps({"experiment": {"name": "small"}}))
    result = qdsim("sweep", path, "--out", out, "--json")
    assert result.code == 0, result.stderr
    assert "holds 1 runs stored as JSON by an older qdsim: they are not reused" in result.stderr
    assert result.json()["ran"] == 4
    shown = qdsim("results", "show", out, "--json").json()
    assert shown["legacy"] == 1 and shown["stale"] == 1 and shown["missing"] == 0
    assert qdsim("results", "prune", out, "--json").json() == {"removed": 1, "kept": 4, "dry_run": False}
    assert not (out / "points").exists() and qdsim("results", "show", out, "--json").json()["stale"] == 0


def test_the_code_version_is_the_digest_of_the_sources(tmp_path):
    # Recomputes build.rs's digest from the checkout: the key of stored points comes from the
    # sources (any checkout or wheel of them gives the same), not from the compiled file.
    import hashlib
    from pathlib import Path

    from qdsim import _core
    from qdsim.run.one import PYTHON_SOURCES

    root = Path(__file__).resolve().parents[1]
    files = ["Cargo.lock", "crates/qdsim-core/Cargo.toml", "crates/qdsim-py/Cargo.toml"]
    for crate in ("crates/qdsim-core/src", "crates/qdsim-py/src"):
        files += [str(p.relative_to(root)) for p in (root / crate).rglob("*.rs")]
    digest = hashlib.sha256()
    for name in sorted(files):
        content = (root / name).read_bytes()
        digest.update(name.encode() + b"\0" + len(content).to_bytes(8, "little") + content)
    assert digest.hexdigest() == _core.SOURCE_DIGEST, "the extension is older than the sources: rebuild it (make dev)"
    version = hashlib.sha256(_core.SOURCE_DIGEST.encode())
    for name in PYTHON_SOURCES:
        version.update(f"\0{name}\0".encode() + (root / "python" / "qdsim" / name).read_bytes())
    assert code_version() == f"{_core.__version__}+{version.hexdigest()[:16]}"
    assert os.path.basename(_core.__file__) not in code_version()


@pytest.mark.parametrize("older", [False, True])
def test_runs_of_a_worker_with_other_code_are_refused(write_spec, tmp_path, older):
    import concurrent.futures as cf
    import dataclasses

    class OtherBuild(cf.ThreadPoolExecutor):
        """Workers whose qdsim is another build than this sweep's (``older``: one that sent
        ``(version, tables)``)."""

        def submit(self, fn, /, *args, **kwargs):
            def other():
                ran = fn(*args, **kwargs)
                return ("0.0.0+other", ran.tables) if older else dataclasses.replace(ran, version="0.0.0+other")

            return super().submit(other)

    raw, _ = load(write_spec(SWEEP))
    with OtherBuild(1) as executor, pytest.raises(SpecError) as error:
        run_sweep(raw, tmp_path / "mixed", executor=executor)
    assert error.value.key == "--scheduler" and "0.0.0+other" in str(error.value)
    assert store.committed_runs(tmp_path / "mixed") == {}


def test_the_documented_drop_columns_are_the_cores_reasons():
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "experiment-file.md").read_text()
    section = doc.split("#### `links`\n", 1)[1].split("####", 1)[0]
    documented = [name.removeprefix("drops_") for name in re.findall(r"^\| `(drops_[a-z_]+)`", section, re.MULTILINE)]
    assert documented == list(tables.drop_reasons())


def test_runs_of_older_code_or_another_grid_are_stale_until_pruned(write_spec, tmp_path, monkeypatch):
    from qdsim.results.status import find, prune
    from qdsim.results.status import status as status_of
    from qdsim.run import sweep as sweep_module

    raw, _ = load(write_spec(SWEEP))
    smaller = apply_override(raw, 'sweep."topology.qdisc.limit"', [10])
    out = tmp_path / "stale"
    with monkeypatch.context() as older:
        older.setattr(sweep_module, "code_version", lambda: "0.1.0+older")
        assert run_sweep(raw, out, jobs=1).ran == 8
    assert run_sweep(smaller, out, jobs=1).ran == 4, "the older code's runs are not reused"
    status = status_of(out)
    assert (status.stored, status.planned, status.missing, status.stale_version, status.stale_grid) == (12, 4, 0, 8, 0)
    assert run_sweep(raw, out, jobs=1).ran == 4
    run_sweep(smaller, out, jobs=1)
    status = status_of(out)
    assert (status.stale_version, status.stale_grid, status.stale) == (8, 4, 12)
    assert [s.stale for s in map(status_of, find([tmp_path]))] == [12]
    assert prune(out, dry_run=True) == (12, 4)
    assert prune(out) == (12, 4)
    assert len(store.committed_runs(out)) == 4 and status_of(out).stale == 0
    assert run_sweep(smaller, out, jobs=1).ran == 0 and store.read_table(out, "points").num_rows == 4


def test_a_set_on_a_swept_key_is_refused_before_anything_runs(qdsim, write_spec, tmp_path):
    # The sweep would give every run its own limit: the --set would do nothing.
    path, out = write_spec(SWEEP), tmp_path / "out"
    result = qdsim("sweep", path, "--set", "topology.qdisc.limit=25", "--out", out)
    assert result.code == 2 and not out.exists()
    assert result.stderr.strip() == (
        'error: --set: "topology.qdisc.limit=25" is not allowed; a key the [sweep] does not sweep: every run takes '
        '`topology.qdisc.limit` from sweep."topology.qdisc.limit" (change its values there: --set \'sweep."topology.qdisc.limit"=[...]\')'
    )


@pytest.mark.parametrize("damage", ["truncated", "empty"])
def test_a_damaged_run_file_is_named_skipped_and_its_runs_rerun(qdsim, write_spec, tmp_path, damage):
    path, out = write_spec(SWEEP), tmp_path / "out"
    assert qdsim("sweep", path, "--jobs", "1", "--out", out).code == 0
    flows = store.read_table(out, "flows").num_rows
    victim = sorted((out / "runs" / "flows").glob("*.parquet"))[0]
    victim.write_bytes(victim.read_bytes()[: len(victim.read_bytes()) // 2] if damage == "truncated" else b"")
    shown = qdsim("results", "show", out)
    assert shown.code == 0 and "Traceback" not in shown.stderr, shown.stderr
    assert f"note: {victim} is damaged" in shown.stderr
    again = qdsim("sweep", path, "--jobs", "1", "--out", out, "--json")
    assert again.code == 0, again.stderr
    assert again.json()["missing"] == 0 and again.json()["ran"] > 0
    # Every run stored once among the readable batches, and every table complete.
    keys = store.stored_runs(out).column("point_key").to_pylist()
    assert len(keys) == len(set(keys)) == 8
    assert store.read_table(out, "points").num_rows == 8 and store.read_table(out, "flows").num_rows == flows
    # The damaged batch went with the rerun: nothing more to say.
    assert not victim.exists() and "damaged" not in qdsim("results", "show", out).stderr
