"""The results directories: what each holds, which stored runs are stale, pruning them.

``qdsim results list|show|sql|prune`` reads through here. A sweep's stored run is **stale**
when no current plan uses it: it is keyed by another code version (the core or the summary
changed since: a sweep would run it again), or it is not a run of the grid the directory's
last sweep planned (``sweep.json``: its grid was changed since), or it was stored in the JSON
format of qdsim before the columnar store. Stale runs are never read into the tables;
:func:`prune` deletes them.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SpecError
from ..run.one import code_version
from . import store

__all__ = ["Status", "find", "prune", "status"]


@dataclass
class Status:
    """What a results directory holds.

    ``runs`` counts the runs its tables hold; for a sweep ``planned`` is the runs of its
    last grid, ``stored`` the runs stored, ``stale_version`` / ``stale_grid`` / ``legacy``
    the stale ones by reason, ``missing`` the planned runs not stored.
    """

    path: str
    kind: str | None
    experiment: str | None
    runs: int
    bytes: int
    planned: int = 0
    stored: int = 0
    missing: int = 0
    stale_version: int = 0
    stale_grid: int = 0
    legacy: int = 0
    code_version: str | None = None
    file: str | None = None
    grid: dict[str, list[Any]] = field(default_factory=dict)
    repetitions: int | None = None
    tables: dict[str, int] = field(default_factory=dict)

    @property
    def stale(self) -> int:
        """Returns every stale stored run."""
        return self.stale_version + self.stale_grid + self.legacy

    def as_json(self) -> dict[str, Any]:
        """Returns the status as a JSON-ready dict (with ``stale``)."""
        return {**asdict(self), "stale": self.stale}


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def status(directory: Path) -> Status:
    """Returns the status of one results directory.

    Raises SpecError (key ``RESULTS_DIR``) when it holds no results.
    """
    directory = Path(directory)
    held = store.describe(directory)
    if held.kind is None:
        raise SpecError("RESULTS_DIR", str(directory), "a directory written by `qdsim run`, `sweep` or `reproduce`")
    counts = {name: store.read_table(directory, name).num_rows for name in store.table_names() if store.has_table(directory, name)}
    out = Status(path=str(directory), kind=held.kind, experiment=held.experiment, runs=counts.get("points", 0), bytes=_size(directory), tables=counts)
    if held.kind != "sweep":
        return out
    sweep = store.read_sweep(directory) if (directory / "sweep.json").exists() else {}
    planned = set(sweep.get("points", []))
    stored = store.stored_runs(directory)
    versions: dict[str, str] = {}
    for key, version in zip(stored.column("point_key").to_pylist(), stored.column("code_version").to_pylist(), strict=True):
        versions.setdefault(key, version)
    current = current_version(sweep)
    out.planned, out.stored = len(planned), len(versions)
    out.stale_version = sum(1 for version in versions.values() if version != current)
    out.stale_grid = sum(1 for key, version in versions.items() if version == current and key not in planned)
    out.missing = sum(1 for key in planned if versions.get(key) != current)
    out.legacy = store.legacy_points(directory)
    out.code_version, out.file = sweep.get("code_version"), sweep.get("file")
    out.grid, out.repetitions = sweep.get("grid", {}), sweep.get("repetitions")
    return out


def current_version(sweep: dict[str, Any]) -> str:
    """Returns the code version a sweep's stored runs must have to be current: qdsim's, or
    for a reference engine's runs (``qdsim validate``) that engine's."""
    name = sweep.get("engine")
    if name is None:
        return code_version()
    from ..engines import ENGINES

    engine = ENGINES.get(name)
    return engine.version() if engine is not None else str(sweep.get("code_version"))


def find(roots: list[Path]) -> list[Path]:
    """Returns the results directories among ``roots`` and their subdirectories (a root
    that is itself one is listed alone), sorted."""
    found: set[Path] = set()
    for root in roots:
        if store.describe(root).kind is not None:
            found.add(root)
            continue
        for dirpath, dirnames, _ in os.walk(root):
            path = Path(dirpath)
            if store.describe(path).kind is not None:
                found.add(path)
                dirnames.clear()  # a results directory's own subdirectories are its store
    return sorted(found)


def prune(directory: Path, dry_run: bool = False) -> tuple[int, int]:
    """Deletes the stale runs of a sweep's directory (with ``dry_run`` only counts them);
    returns how many runs are removed and how many kept."""
    before = status(directory)
    if before.kind != "sweep":
        raise SpecError("RESULTS_DIR", str(directory), "a sweep's results directory (`qdsim run` keeps no runs to prune)")
    if dry_run:
        return before.stale, before.stored - before.stale_version - before.stale_grid
    planned = store.read_sweep(directory).get("points", []) if (directory / "sweep.json").exists() else []
    return store.prune(directory, planned, current_version(store.read_sweep(directory) if (directory / "sweep.json").exists() else {}))
