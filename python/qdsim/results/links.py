"""A run's links: their results by column, their rows, and which of them a summary lists
(the bottleneck, every link that dropped, a few of the busiest others).

A run's results hold their links by column (``results["links"]``: one Arrow array per field,
what the core hands over, or one list per field, :func:`by_column` of a reference engine's
rows); a summary holds them as rows (:class:`LinkRows`, made from the columns as they are
read), each with its drops split into buffer overflows and the rest (:func:`drop_split`;
the ``links`` table splits them by the same rule, by column).

A topology of 10⁴ hosts has 2·10⁴ access links, nearly all of them idle or lightly used: a
table for people lists the links that decide the results and summarises the rest in one
line (every link stays in ``links.parquet``). ``qdsim run``'s tables and ``qdsim report``'s
page list the same links, by :func:`links_shown`.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

__all__ = ["BUSY_LINKS_SHOWN", "QUIET_UTILIZATION", "LinkRows", "ShownLinks", "by_column", "column_values", "drop_split", "field_values", "json_default", "link_named", "links_shown", "rows_of"]

#: Links below this utilisation, without drops, are summarised in one line.
QUIET_UTILIZATION = 0.01
#: At most this many busy links without drops are listed beside the bottleneck and the links
#: that dropped.
BUSY_LINKS_SHOWN = 8


class LinkRows(Sequence[dict[str, Any]]):
    """A run's links as rows (a summary's ``links``), each made from the links' columns when
    first read: its fields and its drops split (``overflow_drops``, ``aqm_drops``:
    :func:`drop_split`).

    A run of 10⁵ flows has 4·10⁵ links, whose rows as dicts take seconds to make; ``qdsim
    run`` lists a dozen of them, found by column (:func:`links_shown`, :func:`link_named`),
    and only ``--json`` or a caller's loop reads them all. A row read twice is the same dict.
    """

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
            raise IndexError(f"link {index} of {self._len}")
        row = self._made.get(i)
        if row is None:
            row = self._made[i] = _split(dict(zip(self._columns, (_value_at(column, i) for column in self._columns.values()), strict=True)))
        return row

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if len(self._made) < self._len:
            for i, row in enumerate(rows_of({name: self.column(name) for name in self._columns})):
                self._made.setdefault(i, _split(row))
        return (self._made[i] for i in range(self._len))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (LinkRows, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # rows are mutable, as a list's

    def __repr__(self) -> str:
        return f"LinkRows({self._len} links)"

    def column(self, name: str) -> list[Any]:
        """Returns one field of every link as Python values, without making rows."""
        values = self._values.get(name)
        if values is None:
            column = self._columns[name]
            values = self._values[name] = column_values(column)
        return values

    def to_list(self) -> list[dict[str, Any]]:
        """Returns every row, as a list (JSON's encoder takes no other sequence)."""
        return list(self)


def json_default(value: Any) -> Any:
    """``json.dumps``'s ``default`` for a summary: its :class:`LinkRows` as a list of rows."""
    if isinstance(value, LinkRows):
        return value.to_list()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _split(row: dict[str, Any]) -> dict[str, Any]:
    """Adds a link row's drops split (:func:`drop_split`) to it; returns it."""
    row["overflow_drops"], row["aqm_drops"] = drop_split(row["drops"], row["drops_by_reason"])
    return row


def _value_at(column: Any, i: int) -> Any:
    """Returns row ``i`` of a list or Arrow array as a Python value (a map as a dict)."""
    if isinstance(column, list):
        return column[i]
    return column[i].as_py(maps_as_pydicts="strict")


def field_values(links: Sequence[dict[str, Any]], name: str) -> list[Any]:
    """Returns one field of every link of rows or :class:`LinkRows` (there, without making a row)."""
    return links.column(name) if isinstance(links, LinkRows) else [link[name] for link in links]


def link_named(links: Sequence[dict[str, Any]], name: str | None) -> dict[str, Any] | None:
    """Returns the link called ``name`` (None if there is none)."""
    names = field_values(links, "name")
    return links[names.index(name)] if name in names else None


@dataclass(frozen=True)
class ShownLinks:
    """The links a summary lists (``shown``, bottleneck first, each a row of the ``links``
    table or of a run summary's links) and how many others carried traffic (``rest``), the
    most utilised of them at ``rest_utilization``."""

    shown: list[dict[str, Any]]
    rest: int
    rest_utilization: float

    def rest_line(self) -> str | None:
        """Returns the line summarising the links not listed (None when there are none)."""
        if not self.rest:
            return None
        most = self.rest_utilization
        each = f"each < {QUIET_UTILIZATION:.0%} utilised" if most < QUIET_UTILIZATION else f"at most {most:.1%} utilised"
        return f"{self.rest} more links carried traffic ({each}, no drops): links.parquet"


def links_shown(links: Sequence[dict[str, Any]], bottleneck: str | None, busy_shown: int = BUSY_LINKS_SHOWN) -> ShownLinks:
    """Returns the links to list of a run's ``links``: the bottleneck and every link that
    dropped (bottleneck first, then by utilisation), then at most ``busy_shown`` other links
    utilised at least :data:`QUIET_UTILIZATION`; links that carried nothing are left out.
    Chosen by column: of :class:`LinkRows`, only the rows listed are made."""
    name, util, tx, arrivals, drops = (field_values(links, field) for field in ("name", "utilization", "tx_pkts", "arrivals", "drops"))
    busy = [i for i in range(len(name)) if (tx[i] or 0) > 0 or (arrivals[i] or 0) > 0]

    def order(i: int) -> tuple[bool, float]:
        return name[i] != bottleneck, -(util[i] or 0.0)

    always = sorted((i for i in busy if name[i] == bottleneck or (drops[i] or 0) > 0), key=order)
    dropping = set(always)
    others = sorted((i for i in busy if i not in dropping and (util[i] or 0.0) >= QUIET_UTILIZATION), key=order)
    shown = always + others[:busy_shown]
    listed = set(shown)
    rest = [i for i in busy if i not in listed]
    return ShownLinks(shown=[links[i] for i in shown], rest=len(rest), rest_utilization=max((util[i] or 0.0 for i in rest), default=0.0))


def by_column(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Returns rows that all have the same fields as one list per field (``{}`` for none)."""
    return {field: [row[field] for row in rows] for field in rows[0]} if rows else {}


def rows_of(columns: dict[str, Any]) -> list[dict[str, Any]]:
    """Returns the rows of lists or Arrow arrays per field (:func:`by_column`'s inverse; an
    Arrow map's values as dicts)."""
    fields = list(columns)
    values = [column_values(column) for column in columns.values()]
    return [dict(zip(fields, row, strict=True)) for row in zip(*values, strict=True)]


def column_values(column: Any) -> list[Any]:
    """Returns a column (a list, or an Arrow array) as a list of Python values, a map's as
    dicts. (``to_pylist`` with ``maps_as_pydicts`` takes pyarrow's slow path, a microsecond a
    value, for every column; a map's entries are read here from its offsets, keys and items
    instead. Neither imports pandas or ``pyarrow.compute``, which ``to_numpy`` and
    ``is_valid`` do.)"""
    import pyarrow as pa

    if isinstance(column, list):
        return column
    if not isinstance(column, pa.MapArray):
        return column.to_pylist()
    offsets = column.offsets.to_pylist()
    keys = column.keys.to_pylist()
    items = column.items.to_pylist()
    valid = [v is not None for v in column.to_pylist()] if column.null_count else [True] * len(column)
    return [dict(zip(keys[start:end], items[start:end], strict=True)) if ok else None for start, end, ok in zip(offsets, offsets[1:], valid, strict=False)]


def drop_split(drops: int | None, drops_by_reason: dict[str, int] | None) -> tuple[int | None, int | None]:
    """Returns a link's drops as ``(overflow_drops, aqm_drops)``: those because its buffer was
    full, and every other (the discipline's own decisions, and random link loss). Unknown
    (None) where a reference engine could not say."""
    if drops_by_reason is None:
        return None, None
    overflow = drops_by_reason.get("overflow", 0)
    return overflow, None if drops is None else drops - overflow
