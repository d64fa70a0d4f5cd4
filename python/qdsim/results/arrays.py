"""Arrow arrays from Python values and from the core's buffers, and NumPy numbers from
Arrow columns, without importing pandas.

pyarrow's converters (``pa.array``, ``pa.Table.from_pylist``, ``pa.table`` of lists or NumPy
arrays, ``pa.scalar``) and ``to_numpy`` first ask its pandas shim whether the values are
pandas objects, and the shim imports pandas to answer (about 0.2 s, a third of what ``qdsim
run`` spends outside its core) wherever it is installed; ``is_null`` and ``fill_null``
import ``pyarrow.compute``. The arrays here are built from Arrow buffers instead, which asks
nothing; what these builders do not take as it is goes through ``pa.array``, which converts
or refuses it as it always did. The results tables are built with them
(:mod:`qdsim.results.tables`) and a store's columns read with :func:`numbers`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pyarrow as pa

__all__ = ["arrow_array", "arrow_column", "arrow_schema", "arrow_type", "numbers"]

_F, _I, _S, _B, _U = pa.float64(), pa.int64(), pa.string(), pa.bool_(), pa.uint64()

#: The NumPy type of each fixed-width Arrow type built from buffers.
_NUMPY: dict[pa.DataType, type] = {_I: np.int64, _U: np.uint64, _F: np.float64, _B: np.bool_}
#: The Python types of the values each type is built from (``pa.array`` converts the rest);
#: an ``int`` in a float64 column only where a double holds it exactly, as ``pa.array``
#: requires (:func:`_exact_in_double`).
_PYTHON: dict[pa.DataType, frozenset[type]] = {_I: frozenset({int}), _U: frozenset({int}), _F: frozenset({float, int}), _B: frozenset({bool}), _S: frozenset({str})}
#: The magnitude up to which a double holds every integer exactly.
_DOUBLE_EXACT = 2**53


def arrow_array(values: list[Any] | np.ndarray, kind: pa.DataType, mask: np.ndarray | None = None) -> pa.Array:
    """Returns ``values`` (a list, None for null, or a one-dimensional NumPy array, where
    ``mask`` is True for null) as an Arrow array of type ``kind``: equal to
    ``pa.array(values, type=kind, mask=mask)``, but built from buffers, without importing
    pandas (above), for the columns' types and the values they hold; anything else goes
    through ``pa.array``."""
    if isinstance(values, np.ndarray):
        built = _numpy_array(values, kind, mask)
    elif mask is None:
        built = _list_array(values, kind)
    else:  # a list with a mask: the tables make none
        built = None
    return pa.array(values, type=kind, mask=mask) if built is None else built


def numbers(column: pa.Array | pa.ChunkedArray, dtype: type | None = None) -> np.ndarray:
    """Returns a column of integers or floats as a NumPy array, read from its buffers: what
    ``column.to_numpy(zero_copy_only=False)`` gives (its own type, NaN at nulls; integers with
    nulls as float64), or ``np.asarray`` of that as ``dtype``. pyarrow's ``to_numpy`` imports pandas
    (0.2 s) wherever it is installed, nulls or not. An integer ``dtype`` refuses nulls."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    kind = column.type
    letter = "f" if pa.types.is_floating(kind) else "i" if pa.types.is_signed_integer(kind) else "u" if pa.types.is_unsigned_integer(kind) else None
    if letter is None:
        raise TypeError(f"a {kind} column is not one of numbers")
    stored = np.dtype(f"<{letter}{kind.bit_width // 8}")
    native = stored.newbyteorder("=")
    target = np.dtype(dtype) if dtype is not None else np.dtype(np.float64) if column.null_count and letter != "f" else native
    if column.null_count and target.kind != "f":
        raise ValueError(f"{column.null_count} nulls in a column asked for as {target}")
    parts = [np.empty(0, dtype=target)]
    for chunk in chunks:
        if not len(chunk):
            continue
        validity, data = chunk.buffers()
        values = np.frombuffer(data, dtype=stored, count=len(chunk), offset=chunk.offset * stored.itemsize).astype(target)
        if chunk.null_count:
            valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[chunk.offset : chunk.offset + len(chunk)]
            values[valid == 0] = np.nan
        parts.append(values)
    return np.concatenate(parts)


def _validity(valid: np.ndarray | None) -> pa.Buffer | None:
    """Returns Arrow's validity bitmap of ``valid`` (None: no nulls)."""
    return None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))


def _numpy_array(values: np.ndarray, kind: pa.DataType, mask: np.ndarray | None) -> pa.Array | None:
    """Returns a NumPy array as an Arrow one, None where :func:`arrow_array` leaves it to
    ``pa.array``: text (object or ``str_`` arrays) goes as a list; numbers and booleans as
    their bytes when of the column's kind and no wider (an ``int32`` widened to int64)."""
    if values.ndim != 1:
        return None
    if values.dtype.kind in "OU":
        return _list_array(values.tolist(), kind) if mask is None else None
    target = _NUMPY.get(kind)
    if target is None or values.dtype.kind != np.dtype(target).kind or values.dtype.itemsize > np.dtype(target).itemsize:
        return None
    data: np.ndarray = np.ascontiguousarray(values, dtype=target)
    valid = None if mask is None or not mask.any() else ~np.asarray(mask, dtype=bool)
    return _fixed_width(kind, data, valid)


def _fixed_width(kind: pa.DataType, data: np.ndarray, valid: np.ndarray | None) -> pa.Array:
    """Returns the Arrow array of ``data`` (of ``kind``'s NumPy type; any value where not
    ``valid``), booleans packed to bits as Arrow stores them."""
    buffer = np.packbits(data, bitorder="little") if kind == _B else data
    nulls = 0 if valid is None else len(valid) - int(np.count_nonzero(valid))
    return pa.Array.from_buffers(kind, len(data), [_validity(valid), pa.py_buffer(buffer)], null_count=nulls)


def _exact_in_double(values: list[Any]) -> bool:
    """Returns whether a double holds every ``int`` of ``values`` exactly."""
    return all(-_DOUBLE_EXACT <= v <= _DOUBLE_EXACT for v in values if type(v) is int)


def _spread(known: np.ndarray, valid: np.ndarray | None) -> np.ndarray:
    """Returns the values of the ``valid`` places in the order of all places, 0 at nulls."""
    if valid is None:
        return known
    out = np.zeros(len(valid), dtype=known.dtype)
    out[valid] = known
    return out


def _offsets(sizes: Iterable[int], count: int, valid: np.ndarray | None) -> np.ndarray | None:
    """Returns Arrow's int32 offsets of items whose ``count`` valid ones have ``sizes`` (a
    null is empty); None past their range, where ``pa.array`` splits the column in chunks."""
    lengths = _spread(np.fromiter(sizes, dtype=np.int64, count=count), valid)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets.astype(np.int32) if offsets[-1] < 2**31 else None


def _list_array(values: list[Any], kind: pa.DataType) -> pa.Array | None:
    """Returns a list of Python values (None for null) as an Arrow array, None where
    :func:`arrow_array` leaves it to ``pa.array``: a value of another Python type than
    :data:`_PYTHON` names for ``kind`` (a NumPy scalar, a bool for an integer), an integer out
    of its range, text that is not valid Unicode, a type the tables do not hold."""
    n = len(values)
    known = [v for v in values if v is not None]
    valid = None if len(known) == n else np.fromiter((v is not None for v in values), dtype=bool, count=n)
    if isinstance(kind, pa.ListType):
        if not all(type(v) is list for v in known):
            return None
        items = _list_array([item for v in known for item in v], kind.value_type)
        offsets = _offsets(map(len, known), len(known), valid)
        if items is None or offsets is None:
            return None
        return pa.Array.from_buffers(kind, n, [_validity(valid), pa.py_buffer(offsets)], null_count=n - len(known), children=[items])
    allowed, types = _PYTHON.get(kind), set(map(type, known))
    if allowed is None or not types <= allowed or (kind == _F and int in types and not _exact_in_double(known)):
        return None
    if kind == _S:
        return _string_array(known, valid)
    try:
        data: np.ndarray = np.array(known, dtype=_NUMPY[kind])
    except OverflowError:  # an int out of the column's range: pa.array names it
        return None
    return _fixed_width(kind, _spread(data, valid), valid)


def _string_array(known: list[str], valid: np.ndarray | None) -> pa.Array | None:
    """Returns the strings ``known`` (at the ``valid`` places) as an Arrow string array, None
    for text that is not valid Unicode (a lone surrogate)."""
    text = "".join(known)
    try:
        data = text.encode()
    except UnicodeEncodeError:
        return None
    # Every string's length in bytes: its length in characters when all are ASCII.
    sizes = map(len, known) if len(data) == len(text) else (len(s.encode()) for s in known)
    offsets = _offsets(sizes, len(known), valid)
    if offsets is None:
        return None
    n = len(known) if valid is None else len(valid)
    return pa.Array.from_buffers(_S, n, [_validity(valid), pa.py_buffer(offsets), pa.py_buffer(data)], null_count=n - len(known))


#: The Arrow type of each column type name of the results tables
#: (:data:`qdsim.results.columns.TYPE_NAMES`, the core's names of its columns' types).
_TYPES = {"int64": _I, "uint64": _U, "float64": _F, "bool": _B, "string": _S, "list<float64>": pa.list_(_F)}


def arrow_type(name: str) -> pa.DataType:
    """Returns the Arrow type of a column type name (``"int64"``, ``"list<float64>"``, ...)."""
    return _TYPES[name]


def arrow_schema(fields: Iterable[tuple[str, str]]) -> pa.Schema:
    """Returns the Arrow schema of columns given as ``(name, type name)``."""
    return pa.schema([pa.field(name, arrow_type(kind)) for name, kind in fields])


def arrow_column(type_name: str, length: int, null_count: int, validity: bytes | None, buffers: list[bytes]) -> pa.Array:
    """Returns one column of the core's result rows (``_core.run``'s third value: its Arrow
    type, rows, nulls, validity bitmap and buffers in Arrow's layout) as an Arrow array,
    without copying its values."""
    data = [pa.py_buffer(b) for b in buffers]
    if type_name == "map<string, int64>":
        # A link's counts by reason are a map, never absent: the core sends no null map.
        assert validity is None, "the core's maps have no nulls"
        entries, key_offsets, keys, counts = data
        n_entries = len(counts) // 8
        key_array = pa.Array.from_buffers(_S, n_entries, [None, key_offsets, keys])
        count_array = pa.Array.from_buffers(_I, n_entries, [None, counts])
        offsets = pa.Array.from_buffers(pa.int32(), length + 1, [None, entries])
        return pa.MapArray.from_arrays(offsets, key_array, count_array)
    valid = None if validity is None else pa.py_buffer(validity)
    return pa.Array.from_buffers(_TYPES[type_name], length, [valid, *data], null_count=null_count)
