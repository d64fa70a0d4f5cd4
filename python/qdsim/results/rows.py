"""A run's rows (its flows', its links') by column and as dicts, and each from the other.

The core hands its flows' and links' rows over as columns in Arrow's layout
(:class:`~qdsim.results.columns.CoreColumn`, ``_core.run``), a reference engine as lists of dicts; the tables are built from columns, a summary reads rows.
:class:`Rows` is both: the columns, and the rows made from them when read.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from typing import Any, overload

from .columns import CoreColumn

__all__ = ["Rows", "by_column", "column_values", "field_values", "json_default", "rows_of"]


class Rows(Sequence[dict[str, Any]]):
    """Rows of columns (lists, the core's columns, or Arrow arrays), each row a dict
    made when first read (:meth:`_finish` may add to it); a row read twice is the same dict.

    A run of 10⁵ flows has 4·10⁵ links and 10⁵ flows, whose rows as dicts take seconds to
    make where a table is built from the columns (:attr:`columns`) and a summary reads a few
    rows or a column (:meth:`column`)."""

    def __init__(self, columns: dict[str, Any]) -> None:
        self._columns = columns
        self._len = len(next(iter(columns.values()), []))
        self._made: dict[int, dict[str, Any]] = {}
        self._values: dict[str, list[Any]] = {}

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._len))]
        i = operator.index(index)
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError(f"row {index} of {self._len}")
        row = self._made.get(i)
        if row is None:
            row = self._made[i] = self._finish(dict(zip(self._columns, (_value_at(column, i) for column in self._columns.values()), strict=True)))
        return row

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if len(self._made) < self._len:
            # The columns already read as Python values are reused; the rest are not kept.
            for i, row in enumerate(rows_of({name: self._values.get(name, column) for name, column in self._columns.items()})):
                self._made.setdefault(i, self._finish(row))
        return (self._made[i] for i in range(self._len))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Rows, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # rows are mutable, as a list's

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._len} rows)"

    def column(self, name: str) -> list[Any]:
        """Returns one field of every row as Python values, without making rows."""
        values = self._values.get(name)
        if values is None:
            column = self._columns[name]
            values = self._values[name] = column_values(column)
        return values

    @property
    def columns(self) -> dict[str, Any]:
        """The columns the rows are made of."""
        return self._columns

    def _finish(self, row: dict[str, Any]) -> dict[str, Any]:
        """Returns a row just made from the columns (as it is; a subclass may add to it)."""
        return row

    def to_list(self) -> list[dict[str, Any]]:
        """Returns every row, as a list (JSON's encoder takes no other sequence)."""
        return list(self)


def json_default(value: Any) -> Any:
    """``json.dumps``'s ``default`` for a summary: its :class:`Rows` as lists of rows."""
    if isinstance(value, Rows):
        return value.to_list()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _value_at(column: Any, i: int) -> Any:
    """Returns row ``i`` of a list, the core's column or an Arrow array as a Python value
    (a map as a dict)."""
    if isinstance(column, list):
        return column[i]
    if isinstance(column, CoreColumn):
        return column.value_at(i)
    return column[i].as_py(maps_as_pydicts="strict")


def field_values(rows: Sequence[dict[str, Any]], name: str, *, missing_ok: bool = False) -> list[Any]:
    """Returns one field of every row of a list or of :class:`Rows` (there, without making a
    row); with ``missing_ok``, None where the rows lack it (a reference engine may not report
    a field) instead of a ``KeyError``."""
    if isinstance(rows, Rows):
        return [None] * len(rows) if missing_ok and name not in rows.columns else rows.column(name)
    return [row.get(name) for row in rows] if missing_ok else [row[name] for row in rows]


def by_column(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Returns rows that all have the same fields as one list per field (``{}`` for none)."""
    return {field: [row[field] for row in rows] for field in rows[0]} if rows else {}


def rows_of(columns: dict[str, Any]) -> list[dict[str, Any]]:
    """Returns the rows of lists, the core's columns or Arrow arrays per field (:func:`by_column`'s inverse; an
    Arrow map's values as dicts)."""
    fields = list(columns)
    values = [column_values(column) for column in columns.values()]
    return [dict(zip(fields, row, strict=True)) for row in zip(*values, strict=True)]


def column_values(column: Any) -> list[Any]:
    """Returns a column (a list, the core's column, or an Arrow array) as a list of Python
    values, a map's as dicts. (``to_pylist`` with ``maps_as_pydicts`` takes pyarrow's slow path, a microsecond a
    value, for every column; a map's entries are read here from its offsets, keys and items
    instead. Neither imports pandas or ``pyarrow.compute``, which ``to_numpy`` and
    ``is_valid`` do.)"""
    if isinstance(column, list):
        return column
    if isinstance(column, CoreColumn):
        return column.to_list()
    import pyarrow as pa

    if not isinstance(column, pa.MapArray):
        return column.to_pylist()
    offsets = column.offsets.to_pylist()
    keys = column.keys.to_pylist()
    items = column.items.to_pylist()
    valid = [v is not None for v in column.to_pylist()] if column.null_count else [True] * len(column)
    return [dict(zip(keys[start:end], items[start:end], strict=True)) if ok else None for start, end, ok in zip(offsets, offsets[1:], valid, strict=False)]
