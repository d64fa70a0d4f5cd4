"""Packaging: ranges in the wheel's metadata, exact pins in the lock inside those ranges, the
extras the code names, and the experiment files inside the package."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

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
