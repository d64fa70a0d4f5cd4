"""``qdsim compare A B``: two runs, or two sweeps, side by side, metric by metric.

Each compared value is a metric (a numeric column) of one row of a results table: ``points``
(one per run), ``groups`` (one per flow group) and ``links`` (the bottleneck's row, as
figures read it). In two sweeps the rows are joined on their swept keys (and the group):
both must sweep the same keys, a value swept in only one is listed as such, and a value is
the mean over the repetitions, its difference given with the 95 % confidence interval of
Welch's t (:func:`qdsim.results.stats.welch_ci`), so that a difference inside the noise of
the repetitions reads as such. ``wall_s`` (the machine's speed, not a result) and the
identifying columns are never compared.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SpecError
from . import store
from .selection import cell_label
from .stats import welch_ci

__all__ = ["TABLES", "Comparison", "Difference", "compare", "row_text"]

#: The tables compared and the columns naming a row of each besides the swept keys.
TABLES: dict[str, tuple[str, ...]] = {"points": (), "groups": ("group",), "links": ("name",)}
#: Columns that identify a run or say how it ran, never compared.
_NOT_METRICS = {"seed", "rep", "point_key", "wall_s", "user", "id"}


@dataclass
class Difference:
    """One metric of one row in A and in B: means over the repetitions (the value, in a run),
    ``diff = b - a`` and ``ci95``, the half-width of its 95 % CI (None: fewer than 2
    repetitions)."""

    table: str
    row: dict[str, Any]
    metric: str
    a: float | None
    b: float | None
    ci95: float | None = None

    @property
    def diff(self) -> float | None:
        """Returns ``b - a`` (None when either is missing)."""
        return None if self.a is None or self.b is None else self.b - self.a

    @property
    def equal(self) -> bool:
        """Returns whether A and B hold the same value (both missing counts as equal)."""
        return self.a == self.b


@dataclass
class Comparison:
    """What :func:`compare` found: the directories, their kind, the swept keys joined on,
    every compared value, and the rows found in only one of them."""

    a: str
    b: str
    kind: str
    keys: list[str]
    repetitions: tuple[int, int]
    differences: list[Difference] = field(default_factory=list)
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """Returns the comparison as a JSON-ready dict (each difference with ``diff``)."""
        out = asdict(self)
        out["differences"] = [{**asdict(d), "diff": d.diff} for d in self.differences]
        return out


def _kind(directory: Path, option: str) -> str:
    kind = store.describe(directory).kind
    if kind is None:
        raise SpecError(option, str(directory), "a results directory written by `qdsim run`, `sweep` or `reproduce`")
    return kind


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _rows(directory: Path, table: str) -> list[dict[str, Any]]:
    """Returns a table's rows; of ``links`` only each run's bottleneck."""
    if not store.has_table(directory, table):
        return []
    rows = store.read_rows(directory, table)
    if table == "links":
        bottleneck = {p.get("point_key"): p["bottleneck"] for p in store.read_rows(directory, "points")}
        rows = [r for r in rows if r["name"] == bottleneck.get(r.get("point_key"))]
    return rows


def _label(keys: list[str], cells: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(keys, cells, strict=True))


#: A row's identity (its cells of the swept keys and the table's own) and each metric's
#: values over the repetitions.
Samples = tuple[tuple[Any, ...], dict[str, list[float]]]


def _samples(directory: Path, table: str, keys: list[str]) -> dict[str, Samples]:
    """Returns the samples of every row identity, keyed by the identity as JSON text."""
    ident = [*keys, *TABLES[table]]
    out: dict[str, Samples] = {}
    for row in _rows(directory, table):
        cells = tuple(row.get(k) for k in ident)
        metrics = out.setdefault(json.dumps(cells, default=str), (cells, defaultdict(list)))[1]
        for column, value in row.items():
            if column in _NOT_METRICS or column in ident or column.endswith(("__value", "__unit")) or not _numeric(value):
                continue
            metrics[column].append(float(value))
    return out


def compare(a: str | Path, b: str | Path, metrics: list[str] | None = None) -> Comparison:
    """Returns the comparison of results directories ``a`` and ``b``: two runs, or two sweeps
    over the same swept keys (see the module doc). ``metrics`` keeps only those columns.

    Raises SpecError (naming ``A``, ``B`` or ``--metrics``) when a directory holds no
    results, the kinds differ, the sweeps sweep different keys or a metric is unknown.
    """
    a, b = Path(a), Path(b)
    kind_a, kind_b = _kind(a, "A"), _kind(b, "B")
    if kind_a != kind_b:
        raise SpecError("B", str(b), f"{kind_a} results, as A ({a}) holds (this holds {kind_b} results)")
    keys: list[str] = []
    reps = (1, 1)
    if kind_a == "sweep":
        sweep_a, sweep_b = store.read_sweep(a), store.read_sweep(b)
        keys = list(sweep_a["grid"])
        if set(sweep_b["grid"]) != set(keys):
            raise SpecError("B", str(b), f"a sweep over the keys A sweeps ({', '.join(keys) or 'none'}; B sweeps {', '.join(sweep_b['grid']) or 'none'})")
        reps = (sweep_a["repetitions"], sweep_b["repetitions"])
    out = Comparison(a=str(a), b=str(b), kind=kind_a, keys=keys, repetitions=reps)
    seen_metrics: set[str] = set()
    for table, own in TABLES.items():
        ident = [*keys, *own]
        in_a, in_b = _samples(a, table, keys), _samples(b, table, keys)
        out.only_a += [f"{table}: {row_text(_label(ident, cells))}" for text, (cells, _) in in_a.items() if text not in in_b]
        out.only_b += [f"{table}: {row_text(_label(ident, cells))}" for text, (cells, _) in in_b.items() if text not in in_a]
        for text, (cells, values_a) in in_a.items():
            if text not in in_b:
                continue
            values_b = in_b[text][1]
            for metric in [m for m in values_a if m in values_b]:
                seen_metrics.add(metric)
                if metrics is not None and metric not in metrics:
                    continue
                va, vb = values_a[metric], values_b[metric]
                out.differences.append(Difference(table, _label(ident, cells), metric, _mean(va), _mean(vb), welch_ci(va, vb)))
    unknown = [m for m in metrics or [] if m not in seen_metrics]
    if unknown:
        raise SpecError("--metrics", ",".join(unknown), f"numeric columns both hold ({', '.join(sorted(seen_metrics))})")
    return out


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def row_text(row: dict[str, Any]) -> str:
    """Returns a compared row's identity for people (``topology.qdisc.limit=20pkt,
    group=near``; ``(the run)`` for a run's points)."""
    return ", ".join(f"{k}={cell_label(v)}" for k, v in row.items()) or "(the run)"
