"""The Python API (qdsim.simulate, sweep, load): the same runs and tables as the CLI, swept
keys as xarray dimensions, str paths, no __main__ guard needed, errors that name the key."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

import qdsim
from conftest import SMALL_SPEC
from qdsim import cli
from qdsim.extras import MissingExtraError
from qdsim.papers import reproduce

SWEEP = (
    SMALL_SPEC
    + """
[sweep]
"topology.qdisc.limit" = ["200pkt", "20pkt"]
repetitions = 2
"""
)


def test_simulate_gives_the_tables_qdsim_run_writes(small_spec, tmp_path):
    assert cli.main(["run", str(small_spec), "--seed", "9", "--out", str(tmp_path / "cli")]) == 0
    api = qdsim.simulate(str(small_spec), seed=9)
    stored = qdsim.load(str(tmp_path / "cli"))
    for name in ("flows", "groups", "links"):
        assert api.table(name).to_pylist() == stored.table(name).to_pylist(), name
    # wall_s is the one column that differs between two runs.
    strip = [{k: v for k, v in row.items() if k != "wall_s"} for row in api.points.to_pylist()]
    assert strip == [{k: v for k, v in row.items() if k != "wall_s"} for row in stored.points.to_pylist()]
    assert api.points.columns == stored.points.columns and api.points.columns[0] == "seed"
    assert api.summary["seed"] == 9 and api.out_dir is None and stored.kind == "run"


def test_a_path_a_dict_and_toml_text_are_the_same_experiment(small_spec):
    import tomllib

    by_path = qdsim.simulate(small_spec, set={"flows.0.count": 1})
    by_text = qdsim.simulate(SMALL_SPEC, set={"flows.0.count": 1})
    by_dict = qdsim.simulate(tomllib.loads(SMALL_SPEC), set={"flows.0.count": 1})
    rows = by_path.groups.to_pylist()
    assert rows == by_text.groups.to_pylist() == by_dict.groups.to_pylist()
    assert {r["group"]: r["flows"] for r in rows} == {"near": 1, "far": 2}, "set= applied"


def test_results_directories_record_the_qdsim_version(small_spec, write_spec, tmp_path):
    qdsim.simulate(small_spec, out=tmp_path / "run")
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["qdsim_version"] == qdsim.__version__
    swept = qdsim.sweep(write_spec(SWEEP), set={"sweep.repetitions": 1}, jobs=1, out=str(tmp_path / "sweep"))
    assert json.loads((tmp_path / "sweep" / "sweep.json").read_text())["qdsim_version"] == qdsim.__version__
    assert swept.qdsim_version == qdsim.load(tmp_path / "run").qdsim_version == qdsim.__version__


def test_to_xarray_has_swept_keys_and_repetitions_as_dimensions(write_spec, tmp_path):
    swept = qdsim.sweep(str(write_spec(SWEEP)), jobs=1, out=str(tmp_path / "s"))
    assert swept.report.ran == 4 and swept.swept == ["topology.qdisc.limit"]
    goodput = swept.to_xarray("goodput_bps")
    assert goodput.dims == ("topology.qdisc.limit", "rep", "group")
    # The grid's order, not the strings' ("200pkt" sorts before "20pkt" either way: check the values).
    assert list(goodput["topology.qdisc.limit"].values) == ["200pkt", "20pkt"]
    assert list(goodput["topology.qdisc.limit__value"].values) == [200.0, 20.0]
    for row in swept.groups.to_pylist():
        cell = goodput.sel({"topology.qdisc.limit": row["topology.qdisc.limit"], "rep": row["rep"], "group": row["group"]})
        assert float(cell) == row["goodput_bps"]
    utilization = swept.to_xarray("bottleneck_utilization")
    assert utilization.dims == ("topology.qdisc.limit", "rep")
    assert utilization.sel({"topology.qdisc.limit": "20pkt", "rep": 1}).item() == swept.points.where({"topology.qdisc.limit": "20pkt", "rep": 1}).to_pylist()[0]["bottleneck_utilization"]
    again = qdsim.sweep(str(write_spec(SWEEP)), jobs=1, out=str(tmp_path / "s"))
    assert (again.report.ran, again.report.reused) == (0, 4), "a second call reuses the stored runs"


def test_a_script_without_a_main_guard_can_sweep_on_workers(write_spec, tmp_path):
    spec = write_spec(SWEEP)
    script = tmp_path / "unguarded.py"
    script.write_text(
        textwrap.dedent(f"""
            import qdsim
            print("script body ran")
            results = qdsim.sweep({str(spec)!r}, jobs=2, out="out")
            print("runs", len(results.points), results.report.ran)
        """)
    )
    proc = subprocess.run([sys.executable, str(script)], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # The body ran once: the two workers did not run the script again.
    assert proc.stdout.splitlines() == ["script body ran", "runs 4 4"]


@pytest.mark.parametrize(
    ("call", "key"),
    [
        (lambda spec, out: qdsim.simulate(12), "experiment"),
        (lambda spec, out: qdsim.simulate(spec, seed=-1), "seed"),
        (lambda spec, out: qdsim.simulate(spec, set={"topology.qdisc.limit": "lots"}), "topology.qdisc.limit"),
        (lambda spec, out: qdsim.simulate(spec, memory_limit="much"), "memory_limit"),
        (lambda spec, out: qdsim.simulate("no-such-file.toml"), "no-such-file.toml"),
        (lambda spec, out: qdsim.sweep(spec, jobs=0, out=out / "s"), "jobs"),
        (lambda spec, out: qdsim.sweep(qdsim.load_spec(spec)[1]), "experiment"),
        (lambda spec, out: qdsim.load(str(out)), "results_dir"),
        (lambda spec, out: qdsim.simulate(spec).series("cwnd"), "series"),
        (lambda spec, out: qdsim.simulate(spec).series("tcp"), "series"),
        (lambda spec, out: qdsim.simulate(spec).to_xarray("speed"), "metric"),
        (lambda spec, out: qdsim.simulate(spec).to_xarray("goodput_bps", table="series_tcp"), "table"),
        (lambda spec, out: qdsim.simulate(spec).groups.where({"colour": 1}), "where.colour"),
        (lambda spec, out: qdsim.simulate(spec).flows.where({"id": "abc"}), "where.id"),
        (lambda spec, out: qdsim.simulate(spec).flows.where({"id": 2**70}), "where.id"),
    ],
)
def test_bad_input_is_a_spec_error_naming_the_key(call, key, small_spec, tmp_path):
    with pytest.raises(qdsim.SpecError) as error:
        call(small_spec, tmp_path)
    assert error.value.key == key


def test_a_missing_extra_names_the_pip_install(small_spec, monkeypatch):
    run = qdsim.simulate(small_spec)
    monkeypatch.setitem(sys.modules, "polars", None)  # import polars now raises ImportError
    with pytest.raises(MissingExtraError, match=r'pip install "qdsim\[polars\]"') as error:
        run.groups.to_polars()
    assert isinstance(error.value, ImportError) and error.value.extra == "polars"
    monkeypatch.setitem(sys.modules, "xarray", None)
    with pytest.raises(MissingExtraError, match=r"qdsim\[xarray\]"):
        run.to_xarray("goodput_bps")


def test_the_api_functions_are_not_shadowed_by_the_modules():
    import importlib
    import pkgutil

    from qdsim import api

    for module in pkgutil.walk_packages(qdsim.__path__, "qdsim."):
        if module.name != "qdsim.__main__":  # every module but the one that runs the CLI
            importlib.import_module(module.name)
    assert qdsim.sweep is api.sweep and qdsim.load is api.load and qdsim.simulate is api.simulate


def test_the_packaged_experiment_files_are_found_outside_a_checkout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no experiments/ here
    assert reproduce.experiments_root() == qdsim.EXPERIMENT_FILES
    assert "codel-dc" in reproduce.papers()
    figures = reproduce.find_figures(["codel-dc"])
    assert figures and all(f.paper == "codel-dc" for f in figures)
    assert figures[0].shown() == "experiments/codel-dc/fig3.toml"
    with pytest.raises(qdsim.SpecError) as error:
        reproduce.check_publishable(figures[0])
    assert error.value.key == "--docs"
    assert (qdsim.EXPERIMENT_FILES / "quickstart.toml").is_file()


def test_a_spec_runs_as_it_is(small_spec):
    _, spec = qdsim.load_spec(small_spec)
    assert qdsim.simulate(spec).groups.to_pylist() == qdsim.simulate(small_spec).groups.to_pylist()
    with pytest.raises(qdsim.SpecError) as error:
        qdsim.simulate(spec, set={"flows.0.count": 1})
    assert error.value.key == "set"


def test_quick_runs_the_files_shortened_sweep(write_spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = write_spec(SWEEP + '\n[quick]\nrepetitions = 1\nsweep = { "topology.qdisc.limit" = ["20pkt"] }\n')
    quick = qdsim.sweep(spec, quick=True, jobs=1)
    assert quick.out_dir.resolve() == tmp_path / "results" / "small-quick"
    assert (quick.report.ran, len(quick.points)) == (1, 1)
    assert quick.summary["grid"] == {"topology.qdisc.limit": ["20pkt"]} and quick.summary["repetitions"] == 1
