"""A run's results tables as plain columns, without pyarrow or NumPy.

``qdsim run`` spent as much CPU importing pyarrow and the NumPy it imports (0.1–0.2 s) as on
everything else it does around the core. Its tables are the core's flows and links, handed
over in Arrow's layout (:class:`CoreColumn`), and columns Python derives as lists; a
:class:`ColumnTable` holds both with its schema as type names
(:mod:`qdsim.results.tables`), and the binding writes it as Parquet
(``_core.write_parquet``). A sweep, a notebook or a reader that wants Arrow takes
:meth:`ColumnTable.to_arrow` (:mod:`qdsim.results.arrays` builds it, importing pyarrow then).
"""

from __future__ import annotations

import itertools
import struct
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["TYPE_NAMES", "ColumnTable", "CoreColumn"]

#: The column types a results table holds, by the names the tables' schemas use.
TYPE_NAMES = ("int64", "uint64", "float64", "string", "bool", "list<float64>")

#: The ``array`` type code of each fixed-width type the core hands over.
_CODES = {"int64": "q", "float64": "d"}


def _numbers(data: bytes, code: str) -> list[Any]:
    """Returns little-endian values (the core's byte order) as Python numbers."""
    values = array(code)
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values.tolist()


#: Each byte of a bitmap as its eight bits, least significant first.
_BYTE_BITS = tuple(tuple(bool(byte >> bit & 1) for bit in range(8)) for byte in range(256))


def _bits(data: bytes, count: int) -> list[bool]:
    """Returns the first ``count`` bits of an Arrow bitmap (least significant bit first)."""
    return list(itertools.chain.from_iterable(map(_BYTE_BITS.__getitem__, data[: (count + 7) // 8])))[:count]


def _zeros(validity: bytes, count: int) -> list[int]:
    """Returns the places of the first ``count`` bits of Arrow's validity bitmap that are 0
    (the nulls), looking bit by bit only into bytes that hold one."""
    out = []
    for index, byte in enumerate(validity[: (count + 7) // 8]):
        if byte != 0xFF:
            out += [place for place, valid in enumerate(_BYTE_BITS[byte], start=index * 8) if not valid and place < count]
    return out


def _strings(offsets: list[int], data: bytes) -> list[str]:
    """Returns the strings of Arrow's offsets and UTF-8 bytes. (Sliced in a loop: a list of
    slice objects made first, which the cycle collector tracks, was five times slower.)"""
    if data.isascii():  # one decode, and the offsets count characters too
        text = data.decode()
        return [text[a:b] for a, b in itertools.pairwise(offsets)]
    return [data[a:b].decode() for a, b in itertools.pairwise(offsets)]


def _unpack(code: str, data: bytes, index: int, count: int = 1) -> tuple[Any, ...]:
    """Returns ``count`` little-endian values of ``struct`` type ``code`` from item ``index``
    of ``data`` on."""
    return struct.unpack_from(f"<{count}{code}", data, index * struct.calcsize(code))


class CoreColumn:
    """One column of the core's result rows as ``_core.run`` hands it over: its Arrow type
    (``int64``, ``float64``, ``bool``, ``string`` or ``map<string, int64>``), rows, nulls,
    validity bitmap (None without nulls) and buffers in Arrow's layout. Read as Python
    values (:meth:`to_list`, made once), written as it is (:meth:`as_core`)."""

    __slots__ = ("_values", "arrow_type", "buffers", "length", "null_count", "validity")

    def __init__(self, arrow_type: str, length: int, null_count: int, validity: bytes | None, buffers: list[bytes]) -> None:
        self.arrow_type, self.length, self.null_count, self.validity, self.buffers = arrow_type, length, null_count, validity, buffers
        self._values: list[Any] | None = None

    def __len__(self) -> int:
        return self.length

    def __repr__(self) -> str:
        return f"CoreColumn({self.arrow_type}, {self.length} rows)"

    def as_core(self) -> tuple[str, int, int, bytes | None, list[bytes]]:
        """Returns the column as the core handed it over (for ``_core.write_parquet``)."""
        return self.arrow_type, self.length, self.null_count, self.validity, self.buffers

    def to_list(self) -> list[Any]:
        """Returns the column's values (None for null; a map's as dicts); the same list each time."""
        if self._values is None:
            if self.null_count == self.length:
                self._values = [None] * self.length
            else:
                values = self._read()
                for place in self.null_rows():
                    values[place] = None
                self._values = values
        return self._values

    def null_rows(self) -> list[int]:
        """Returns the rows that are null, in order."""
        return _zeros(self.validity or b"", self.length) if self.null_count else []

    def value_at(self, i: int) -> Any:
        """Returns row ``i``'s value (0 ≤ i < rows), read from the buffers alone unless the
        whole column was read: a summary reads a few links' rows of 4·10⁵."""
        if self._values is not None:
            return self._values[i]
        if self.null_count and not (self.validity or b"")[i >> 3] >> (i & 7) & 1:
            return None
        kind, buffers = self.arrow_type, self.buffers
        if kind == "int64":
            return _unpack("q", buffers[0], i)[0]
        if kind == "float64":
            return _unpack("d", buffers[0], i)[0]
        if kind == "bool":
            return bool(buffers[0][i >> 3] >> (i & 7) & 1)
        if kind == "string":
            start, end = _unpack("i", buffers[0], i, 2)
            return buffers[1][start:end].decode()
        if kind == "map<string, int64>":
            entries, key_offsets, keys, counts = buffers
            first, last = _unpack("i", entries, i, 2)
            out = {}
            for j in range(first, last):
                start, end = _unpack("i", key_offsets, j, 2)
                out[keys[start:end].decode()] = _unpack("q", counts, j)[0]
            return out
        raise TypeError(f"the core's column type {kind} is not one this reader knows")

    def map_entries(self) -> tuple[list[int], list[str], list[int]]:
        """Returns a map column's entries: their offsets (row ``i``'s are
        ``offsets[i]:offsets[i + 1]``), keys and counts."""
        if self.arrow_type != "map<string, int64>":
            raise TypeError(f"a {self.arrow_type} column has no map entries")
        entries, key_offsets, keys, counts = self.buffers
        return _numbers(entries, "i")[: self.length + 1], _strings(_numbers(key_offsets, "i"), keys), _numbers(counts, "q")

    def to_arrow(self) -> pa.Array:
        """Returns the column as an Arrow array (imports pyarrow)."""
        from .arrays import arrow_column

        return arrow_column(*self.as_core())

    def _read(self) -> list[Any]:
        kind, n = self.arrow_type, self.length
        if kind in _CODES:
            return _numbers(self.buffers[0], _CODES[kind])[:n]
        if kind == "bool":
            return _bits(self.buffers[0], n)
        if kind == "string":
            return _strings(_numbers(self.buffers[0], "i")[: n + 1], self.buffers[1])
        if kind == "map<string, int64>":
            offsets, keys, counts = self.map_entries()
            return [dict(zip(keys[a:b], counts[a:b], strict=True)) if a != b else {} for a, b in itertools.pairwise(offsets)]
        raise TypeError(f"the core's column type {kind} is not one this reader knows")


@dataclass(frozen=True)
class ColumnTable:
    """A results table as columns: ``fields`` its columns' names and type names
    (:data:`TYPE_NAMES`), in order; ``data`` each column, a list of Python values (None for
    null) or a :class:`CoreColumn` of that type; ``num_rows`` its rows."""

    fields: tuple[tuple[str, str], ...]
    data: dict[str, list[Any] | CoreColumn]
    num_rows: int

    def __post_init__(self) -> None:
        for name, kind in self.fields:
            if kind not in TYPE_NAMES:
                raise ValueError(f"column {name}: type {kind!r} is not one of {', '.join(TYPE_NAMES)}")
            if len(self.data[name]) != self.num_rows:
                raise ValueError(f"column {name}: {len(self.data[name])} rows in a table of {self.num_rows}")

    @property
    def column_names(self) -> list[str]:
        return [name for name, _ in self.fields]

    def column(self, name: str) -> list[Any]:
        """Returns one column's values as a list."""
        values = self.data[name]
        return values.to_list() if isinstance(values, CoreColumn) else values

    def rows(self) -> Iterator[dict[str, Any]]:
        """Yields the rows as dicts (column → value)."""
        names = self.column_names
        for row in zip(*(self.column(name) for name in names), strict=True):
            yield dict(zip(names, row, strict=True))

    def with_ids(self, ids: list[tuple[str, str, Any]]) -> ColumnTable:
        """Returns the table with constant columns ``(name, type name, value)`` first."""
        constant = {name: [value] * self.num_rows for name, _, value in ids}
        return ColumnTable(tuple((name, kind) for name, kind, _ in ids) + self.fields, {**constant, **self.data}, self.num_rows)

    def to_arrow(self) -> pa.Table:
        """Returns the table as an Arrow table of the same schema (imports pyarrow)."""
        import pyarrow as pa

        from .arrays import arrow_array, arrow_schema, arrow_type

        arrays = [self.data[name].to_arrow() if isinstance(self.data[name], CoreColumn) else arrow_array(self.data[name], arrow_type(kind)) for name, kind in self.fields]
        return pa.Table.from_arrays(arrays, schema=arrow_schema(self.fields))

    def write_parquet(self, path: Path) -> None:
        """Writes the table to the Parquet file ``path`` (through the binding: no pyarrow)."""
        from .. import _core

        columns = [values.as_core() if isinstance(values, CoreColumn) else values if type(values) is list else list(values) for values in (self.data[name] for name, _ in self.fields)]
        _core.write_parquet(str(path), list(self.fields), columns, self.num_rows)
