"""Which runs of a sweep a figure shows, and how they are split into lines and panels.

A sweep's tables mix every grid point. A figure never averages different grid points into
one number without saying so: a point of a line is the mean over the repetitions (and the
values of a swept ``experiment.seed``) of one grid point, and every other swept key with
more than one value left splits the lines (:func:`line_axes`), or the panels (``--facet``).
``--where KEY=VALUE`` keeps the runs whose swept key (or a key inside a swept table, such as
``topology.qdisc.kind``), repetition or column has that value (:func:`parse_where`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import SpecError
from ..experiment.spec import parse_override
from .tables import axis_cells

__all__ = ["SEED_KEY", "Filter", "averaged_over", "cell_label", "default_x", "facet_values", "line_axes", "line_label_of", "one_run", "parse_where", "remaining", "short_key"]

#: A swept base seed is averaged over like the repetitions, unless a figure splits by it.
SEED_KEY = "experiment.seed"


def default_x(grid: dict[str, list[Any]]) -> str | None:
    """Returns the x-axis of a sweep figure that names none: the only swept key besides a
    swept ``experiment.seed`` (None when there are several)."""
    keys = [key for key in grid if key != SEED_KEY]
    return keys[0] if len(keys) == 1 else None


@dataclass(frozen=True)
class Filter:
    """``--where KEY=VALUE``: ``column`` (a swept key or another column) and, for a key
    inside swept tables, the ``path`` into them; ``value`` as parsed, ``text`` as written."""

    key: str
    column: str
    path: tuple[str, ...]
    value: Any
    text: str

    def matches_value(self, cell: Any) -> bool:
        """Returns whether a cell of :attr:`column` (a swept table as JSON text) matches."""
        if self.path:
            try:
                node = json.loads(cell) if isinstance(cell, str) else cell
                for part in self.path:
                    node = node[part]
            except (ValueError, KeyError, TypeError, IndexError):
                return False
            cell = node
        return cell == self.value or str(cell) == self.text

    def matches(self, row: dict[str, Any]) -> bool:
        """Returns whether a table row matches."""
        return self.column in row and self.matches_value(row[self.column])


def parse_where(texts: Iterable[str], grid: dict[str, list[Any]], columns: Iterable[str] = ()) -> list[Filter]:
    """Returns the filters of ``--where KEY=VALUE`` options, checked against the sweep's
    ``grid`` (a swept key's value must be one it takes) and the tables' ``columns``."""
    filters = []
    known = set(columns) | {"rep", "seed"}
    for text in texts:
        try:
            key, value = parse_override(text)
        except SpecError:
            raise SpecError("--where", text, "KEY=VALUE, e.g. topology.qdisc.limit=20pkt") from None
        written = text.partition("=")[2].strip()
        swept = next((k for k in grid if key == k or key.startswith(k + ".")), None)
        if swept is None and key not in known:
            raise SpecError("--where", text, f"KEY=VALUE with KEY a swept key ({', '.join(grid) or 'none'}), a key inside a swept table, rep or seed")
        path = tuple(key[len(swept) + 1 :].split(".")) if swept is not None and key != swept else ()
        f = Filter(key=key, column=swept if swept is not None else key, path=path, value=value, text=written)
        if swept is not None and not any(f.matches_value(cell) for cell in axis_cells(grid[swept])):
            shown = ", ".join(cell_label(v) for v in grid[swept][:8])
            raise SpecError("--where", text, f"a value {key} takes in this sweep ({shown})")
        filters.append(f)
    return filters


def remaining(grid: dict[str, list[Any]], filters: list[Filter]) -> dict[str, list[Any]]:
    """Returns the grid with only the values every filter on its key keeps."""
    out = {}
    for key, values in grid.items():
        cells = axis_cells(values)
        out[key] = [v for v, c in zip(values, cells, strict=True) if all(f.matches_value(c) for f in filters if f.column == key)]
    return out


def line_axes(grid: dict[str, list[Any]], filters: list[Filter], used: Iterable[str | None]) -> list[str]:
    """Returns the swept keys that split a figure's lines: every swept key not ``used`` (the
    x-axis, ``by``, the facet) with more than one value left after ``filters``, except a
    swept ``experiment.seed``, which is averaged over like the repetitions."""
    skip = set(used) | {SEED_KEY}
    return [key for key, values in remaining(grid, filters).items() if key not in skip and len(values) > 1]


def averaged_over(grid: dict[str, list[Any]], filters: list[Filter], used: Iterable[str | None], repetitions: int) -> str:
    """Returns what one point of a line is the mean of: ``5 repetitions``, or with a swept
    seed averaged over, ``10 runs (2 seeds × 5 repetitions)``."""
    reps = f"{repetitions} repetition{'s' if repetitions != 1 else ''}"
    seeds = remaining(grid, filters).get(SEED_KEY, [])
    if SEED_KEY in set(used) or len(seeds) < 2:
        return reps
    return f"{len(seeds) * repetitions} runs ({len(seeds)} seeds × {reps})"


def facet_values(grid: dict[str, list[Any]], facet: str | None, filters: list[Filter], taken: Iterable[str | None]) -> list[tuple[Any, str]]:
    """Returns the panels of ``--facet KEY``: each value's table cell and label (one panel of
    every row when ``facet`` is None)."""
    if facet is None:
        return [(None, "")]
    if facet not in grid:
        raise SpecError("--facet", facet, f"a swept key ({', '.join(grid) or 'the sweep has none'})")
    if facet in set(taken):
        x, *by = taken
        raise SpecError("--facet", facet, f"a swept key other than the x-axis ({x}) and the key giving the lines (--by or [plot].by: {', '.join(str(b) for b in by)})")
    values = remaining(grid, filters)[facet]
    cells = axis_cells(grid[facet])
    return [(cells[grid[facet].index(v)], f"{short_key(facet, grid)}={cell_label(v, grid[facet])}") for v in values]


def short_key(key: str, grid: dict[str, list[Any]]) -> str:
    """Returns the last part of a dotted swept key (``limit``), or the whole key when another
    swept key ends the same way."""
    last = key.rsplit(".", 1)[-1]
    return last if sum(1 for k in grid if k.rsplit(".", 1)[-1] == last) == 1 else key


def _table(value: Any) -> Any:
    """Returns a swept table written as JSON text as a dict (other values as they are)."""
    if isinstance(value, str) and value.startswith("{"):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def cell_label(value: Any, siblings: list[Any] | None = None) -> str:
    """Returns a swept value for a legend or a tick: a table as ``kind=codel target=5ms``,
    or with ``siblings`` (every value of its swept key) only what tells it apart from them:
    the ``kind`` bare and the parameters whose values differ (``codel target=5ms``), so a
    sweep over whole qdisc tables has a legend of short labels."""
    value = _table(value)
    if not isinstance(value, dict):
        return str(value)
    tables = [t for t in map(_table, siblings or []) if isinstance(t, dict)]
    if len(tables) > 1:
        differ = [k for k in value if any(t.get(k) != value[k] for t in tables)]
        parts = [str(value["kind"])] if "kind" in differ or ("kind" in value and differ) else []
        parts += [f"{k}={value[k]}" for k in differ if k != "kind"]
        if parts:
            return " ".join(parts)
    text = " ".join(f"{k}={v}" for k, v in value.items())
    return text if len(text) <= 40 else text[:37] + "..."


def line_label_of(by_label: str | None, axes: list[str], cells: tuple[Any, ...], grid: dict[str, list[Any]]) -> str:
    """Returns a line's legend text: its ``by`` label, then ``key=value`` of each line axis."""
    parts = [f"{short_key(k, grid)}={cell_label(c, grid[k])}" for k, c in zip(axes, cells, strict=True)]
    if by_label is not None:
        return " · ".join([by_label, ", ".join(parts)]) if parts else by_label
    return ", ".join(parts)


def one_run(rows: dict[str, list[Any]], filters: list[Filter], grid: dict[str, list[Any]]) -> list[int]:
    """Returns the indexes of the rows (columns of a series table) of the one run the filters
    pick; raises SpecError naming the keys still to fix when they leave several."""
    n = len(next(iter(rows.values()), []))
    keep = [i for i in range(n) if all(f.matches({c: rows[c][i] for c in (f.column,) if c in rows}) for f in filters)]
    runs = {rows["point_key"][i] for i in keep} if "point_key" in rows else {None}
    if len(runs) == 1 and keep:
        return keep
    if not keep:
        raise SpecError("--where", " ".join(f.key + "=" + f.text for f in filters), "values of a run of this sweep (no run matches them all)")
    open_keys = []
    for key in [*grid, "rep"]:
        if key in rows and len({json.dumps(rows[key][i], default=str) for i in keep}) > 1:
            open_keys.append(f"{key} ({', '.join(sorted({cell_label(rows[key][i]) for i in keep})[:6])})")
    given = " ".join(f"{f.key}={f.text}" for f in filters) or "(none)"
    raise SpecError("--where", given, f"KEY=VALUE options that pick one run of the sweep ({len(runs)} match): fix {'; '.join(open_keys)}")
