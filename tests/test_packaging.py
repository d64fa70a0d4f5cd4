"""Packaging: ranges in the wheel's metadata, exact pins in the lock inside those ranges, the
extras the code names, and the experiment files inside the package."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from conftest import load_script
from qdsim import extras, packaged

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]


def _lock() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep, f"lock.txt pins exact versions: {line!r}"
            assert canonicalize_name(name) not in pins, f"{name} is pinned twice"
            pins[canonicalize_name(name)] = Version(version)
    return pins


def _requirements() -> list[Requirement]:
    found = [Requirement(r) for r in PROJECT["dependencies"]]
    for extra in PROJECT["optional-dependencies"].values():
        found += [Requirement(r) for r in extra]
    for group in PYPROJECT["dependency-groups"].values():
        found += [Requirement(r) for r in group]
    return [r for r in found if canonicalize_name(r.name) != "qdsim"]


def test_the_lock_pins_every_requirement_inside_its_range():
    pins = _lock()
    for requirement in _requirements():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"requirements/lock.txt pins no version of {requirement.name}"
        assert requirement.specifier.contains(pins[name], prereleases=True), f"lock.txt's {name}=={pins[name]} is outside pyproject.toml's {requirement}"


def test_the_wheel_metadata_holds_ranges_not_pins():
    for text in PROJECT["dependencies"] + [r for extra in PROJECT["optional-dependencies"].values() for r in extra]:
        assert "==" not in text, f"{text}: a pin in the wheel's metadata (pins go in requirements/lock.txt)"


def test_dev_tools_are_a_dependency_group_not_a_published_extra():
    assert "dev" not in PROJECT["optional-dependencies"]
    assert {"pytest", "ruff", "maturin"} <= {canonicalize_name(Requirement(r).name) for r in PYPROJECT["dependency-groups"]["dev"]}


def test_every_extra_the_code_names_exists_and_provides_its_module():
    optional = PROJECT["optional-dependencies"]
    # The distribution that provides each optional module.
    provider = {"duckdb": "duckdb", "pandas": "pandas", "polars": "polars", "xarray": "xarray", "distributed": "dask"}
    assert set(extras.EXTRAS) == set(provider)
    for module, extra in extras.EXTRAS.items():
        assert extra in optional, f"qdsim.extras names the extra {extra!r}, which pyproject.toml lacks"
        assert provider[module] in {canonicalize_name(Requirement(r).name) for r in optional[extra]}
    everything = Requirement(optional["all"][0])
    assert canonicalize_name(everything.name) == "qdsim" and everything.extras == set(optional) - {"all"}


def test_heavy_parts_are_not_required():
    required = {canonicalize_name(Requirement(r).name) for r in PROJECT["dependencies"]}
    assert not required & {"duckdb", "pandas", "polars", "xarray", "dask", "distributed"}


def test_the_package_finds_the_experiment_files_the_wheel_includes():
    link = ROOT / "python" / "qdsim" / "experiments"
    assert link.is_symlink() and link.resolve() == (ROOT / "experiments").resolve()
    assert packaged.EXPERIMENT_FILES.resolve() == (ROOT / "experiments").resolve()
    include = PYPROJECT["tool"]["maturin"]["include"]
    assert any(re.fullmatch(r"python/qdsim/experiments/\*\*/\*", entry["path"]) and "wheel" in entry["format"] for entry in include)


def test_the_wheel_s_training_runs_each_algorithm_of_the_catalog_and_every_run_succeeds():
    """The profile-guided build (scripts/pgo.py) trains on every queue discipline, DRR buffer
    policy, congestion control and TCP profile: an algorithm it never ran would be laid out as
    cold code. A catalog entry added without a training run, or a run that no longer
    validates (a parameter it now needs), fails here rather than in `make wheel`."""
    import qdsim
    from qdsim.experiment import algorithms

    pgo = load_script("pgo")
    runs = pgo.workload()
    qdiscs = {o["topology.qdisc"]["kind"] for _, o in runs if "topology.qdisc" in o}
    buffers = {o["topology.qdisc"].get("buffer") for _, o in runs if "topology.qdisc" in o} - {None}
    ccs = {o["flows.0.cc"] for _, o in runs if "flows.0.cc" in o}
    profiles = {o["flows.0.tcp"]["profile"] for _, o in runs if "flows.0.tcp" in o}
    assert qdiscs == set(algorithms.qdisc_names())
    assert ccs == set(algorithms.cc_names())
    assert profiles == {p["name"] for p in algorithms.tcp_profiles()}
    drr = next(q for q in algorithms.core_catalog()["qdiscs"] if q["name"] == "drr")
    buffer_help = next(p["help"] for p in drr["params"] if p["name"] == "buffer")
    assert all(re.search(rf"\b{b}\b", buffer_help) for b in buffers)
    assert buffers == {"shared", "drop_on_dequeue", "per_queue", "ewfq", "ns2_lqd", "qsdrr", "tdrr", "dtdrr", "dsdrr"}, buffer_help
    for path, overrides in runs:
        results = qdsim.simulate(ROOT / path, set=overrides)
        assert results.summary["events"] > 0, (path, overrides)


def test_without_llvm_profdata_the_wheel_is_built_plain_and_says_so(tmp_path, monkeypatch, capsys):
    """Where rustup's llvm-tools cannot be had (no rustup here), scripts/pgo.py builds the
    wheel without the profile after one warning line, rather than failing the build."""
    fake = tmp_path / "bin"
    fake.mkdir()
    rustc = fake / "rustc"
    rustc.write_text(f'#!/bin/sh\nif [ "$1" = --print ]; then echo {tmp_path / "sysroot"}; else echo "host: x86_64-unknown-linux-gnu"; fi\n')
    rustc.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    pgo = load_script("pgo")
    assert pgo.profdata_tool() is None
    assert pgo.profile() is False
    assert "building WITHOUT profile-guided optimisation" in capsys.readouterr().err


def test_the_build_check_s_digest_is_the_same_for_two_runs_of_one_build():
    """scripts/pgo.py checks the profile-guided extension against the build without the
    profile by a digest of every file each training run writes. Two processes with the same
    extension must print the same digests (the run's wall-clock time left out), one line a
    run of the workload, or the check would fail every build."""
    pgo = load_script("pgo")
    extension = next((ROOT / "python" / "qdsim").glob("_core*.so"))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    runs = [subprocess.run([sys.executable, ROOT / "scripts" / "pgo.py", "digest", extension], cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout.splitlines() for _ in range(2)]
    assert runs[0] == runs[1]
    assert len(runs[0]) == len(pgo.workload()) and all(re.fullmatch(r"\S+ \{.*\} [0-9a-f]{64}", line) for line in runs[0]), runs[0][:3]


def test_the_build_check_stops_the_build_on_the_first_run_whose_results_differ(monkeypatch):
    """A profile-guided extension whose results differ from the build without the profile
    fails `make wheel` and `make dev-pgo`, naming the run and both digests."""
    pgo = load_script("pgo")
    outputs = iter(["a.toml {} 00\nb.toml {} 11\n", "a.toml {} 00\nb.toml {} 22\n"])
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, next(outputs), ""))
    with pytest.raises(SystemExit, match=r"differ from the build without the profile:\n  without: b.toml \{\} 11\n  with:    b.toml \{\} 22"):
        pgo.check(Path("guided.so"))
