"""What a report reads: one results directory of any kind, checked once, with its provenance.

``qdsim report`` takes the directory of a run (``qdsim run``: ``summary.json`` and
``config.json``), of a sweep (``qdsim sweep`` and ``qdsim reproduce``: ``sweep.json``) or of
a validation (``qdsim validate``: ``validation.json`` beside qdsim's sweep in ``qdsim/``).
Anything else is refused here with one line naming the argument, before a figure is drawn.
Tables are read through :mod:`qdsim.results.store` when first asked for, a column subset at
a time (a 10⁴-flow run's sampled series hold 10⁷ rows).
"""

from __future__ import annotations

import datetime
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import SpecError
from ..results import store

__all__ = ["KINDS", "ResultsDir", "open_results"]

#: What ``RESULTS_DIR`` may be, as an error says it.
KINDS = "a results directory written by `qdsim run`, `sweep`, `reproduce` or `validate`"
#: The file ``qdsim validate`` writes its comparison to.
VALIDATION = "validation.json"


@dataclass
class ResultsDir:
    """One results directory: its ``kind`` (``run``, ``sweep`` or ``validation``), the
    experiment file it was made from (``spec``, after overrides), and what its kind records
    (``summary`` of a run, ``sweep`` of a sweep, ``validation`` with the ``qdsim`` side, a
    sweep's directory, of a validation)."""

    path: Path
    kind: str
    spec: dict[str, Any]
    summary: dict[str, Any] = field(default_factory=dict)
    sweep: dict[str, Any] = field(default_factory=dict)
    validation: dict[str, Any] = field(default_factory=dict)
    qdsim: ResultsDir | None = None

    @property
    def name(self) -> str:
        """Returns the experiment's name (``experiment.name``)."""
        return str(self.spec.get("experiment", {}).get("name", self.path.name))

    @property
    def grid(self) -> dict[str, list[Any]]:
        """Returns a sweep's grid (swept key → values; empty for a run)."""
        return dict(self.sweep.get("grid", {}))

    def has(self, table: str) -> bool:
        """Returns whether the directory holds ``table`` with rows."""
        return store.has_table(self.path, table)

    def table(self, table: str, columns: list[str] | None = None) -> pa.Table:
        """Returns ``table`` (only ``columns`` of it, those it has, when given)."""
        if columns is None:
            return store.read_table(self.path, table)
        path = self.path / f"{table}.parquet"
        present = set(pq.read_schema(path).names)
        return store.read_parquet(path, columns=[c for c in columns if c in present])

    def rows(self, table: str) -> list[dict[str, Any]]:
        """Returns ``table``'s rows as dicts (an empty list when the directory lacks it)."""
        return store.read_rows(self.path, table) if self.has(table) else []

    def written(self) -> str:
        """Returns when the results were written: the time of the file that records them."""
        record = {"run": "summary.json", "sweep": "sweep.json", "validation": VALIDATION}[self.kind]
        stamp = (self.path / record).stat().st_mtime
        return datetime.datetime.fromtimestamp(stamp).astimezone().strftime("%Y-%m-%d %H:%M %Z")

    def qdsim_version(self) -> str | None:
        """Returns the version of qdsim that wrote the results (None if not recorded)."""
        recorded = self.summary.get("qdsim_version") or self.sweep.get("qdsim_version")
        if recorded is None and self.qdsim is not None:
            return self.qdsim.qdsim_version()
        return recorded

    def code_version(self) -> str | None:
        """Returns the code version that keys a sweep's stored runs (a run records none)."""
        if self.qdsim is not None:
            return self.qdsim.code_version()
        return self.sweep.get("code_version")

    def experiment_file(self) -> tuple[Path, str] | None:
        """Returns the path and text of the experiment file a sweep recorded (``sweep.json``:
        ``file``) when it is still there; None otherwise (a run records no path)."""
        recorded = (self.qdsim.sweep if self.qdsim is not None else self.sweep).get("file")
        if not recorded:
            return None
        path = Path(recorded)
        try:
            return path, path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def file_matches_spec(self, text: str) -> bool:
        """Returns whether an experiment file's text still reads as the stored ``spec.json``
        (False after ``--set`` overrides, or an edit since the results were made)."""
        try:
            return tomllib.loads(text) == self.spec
        except tomllib.TOMLDecodeError:
            return False


def open_results(path: str | Path) -> ResultsDir:
    """Returns the results directory at ``path``; raises SpecError (key ``RESULTS_DIR``)
    when it is missing or holds no results of a kind a report shows."""
    path = Path(path)
    if not path.exists():
        raise SpecError("RESULTS_DIR", str(path), f"{KINDS} (no such directory)")
    if not path.is_dir():
        raise SpecError("RESULTS_DIR", str(path), f"{KINDS} (this is a file)")
    if (path / VALIDATION).is_file():
        return _validation(path)
    kind = store.describe(path).kind
    if kind is None or not (path / "spec.json").is_file():
        raise SpecError("RESULTS_DIR", str(path), f"{KINDS} (it holds no spec.json, summary.json or sweep.json)")
    spec = store.read_spec(path)
    if kind == "run":
        if not (path / "summary.json").is_file():
            raise SpecError("RESULTS_DIR", str(path), f"{KINDS} (a run's directory without summary.json: rerun `qdsim run`)")
        return ResultsDir(path=path, kind="run", spec=spec, summary=store.read_json(path / "summary.json"))
    return ResultsDir(path=path, kind="sweep", spec=spec, sweep=store.read_sweep(path))


def _validation(path: Path) -> ResultsDir:
    """Returns a ``qdsim validate`` directory: its comparison and qdsim's side."""
    validation = store.read_json(path / VALIDATION)
    # qdsim's side is beside the JSON (the recorded path may be relative to another directory).
    side = path / "qdsim"
    if not (side / "sweep.json").is_file() and validation.get("qdsim_out"):
        side = Path(validation["qdsim_out"])
    if not (side / "sweep.json").is_file():
        raise SpecError("RESULTS_DIR", str(path), f"{KINDS} (validation.json without qdsim's runs in {side}/)")
    qdsim = ResultsDir(path=side, kind="sweep", spec=store.read_spec(side), sweep=store.read_sweep(side))
    return ResultsDir(path=path, kind="validation", spec=qdsim.spec, validation=validation, qdsim=qdsim)
