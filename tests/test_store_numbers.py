"""store.numbers reads a numeric Arrow column into NumPy from its buffers (pyarrow's to_numpy
imports pandas): it must give what to_numpy gives — values, NaN at nulls — over offsets,
chunks and every numeric width, and refuse what it cannot hold."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qdsim.results.store import numbers

TYPES = [pa.int8(), pa.int32(), pa.int64(), pa.uint16(), pa.uint64(), pa.float32(), pa.float64()]


def _values(kind: pa.DataType) -> st.SearchStrategy:
    if pa.types.is_floating(kind):
        width = 32 if kind == pa.float32() else 64
        return st.floats(width=width, allow_nan=True)
    info = np.iinfo(np.dtype(kind.to_pandas_dtype()))
    return st.integers(int(info.min), int(info.max))


@st.composite
def columns(draw: st.DrawFn) -> pa.ChunkedArray:
    kind = draw(st.sampled_from(TYPES))
    chunks = []
    for _ in range(draw(st.integers(0, 3))):
        values = draw(st.lists(st.none() | _values(kind), max_size=40))
        array = pa.array(values, type=kind)
        start = draw(st.integers(0, len(values)))
        chunks.append(array.slice(start, draw(st.integers(0, len(values) - start))))
    return pa.chunked_array(chunks, type=kind)


@given(columns())
def test_numbers_are_what_to_numpy_gives(column: pa.ChunkedArray) -> None:
    expected = column.to_numpy(zero_copy_only=False)
    got = numbers(column)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(numbers(column, float), np.asarray(expected, dtype=float))


def test_an_array_and_an_empty_column_read_too() -> None:
    np.testing.assert_array_equal(numbers(pa.array([3, None, 5])), [3.0, np.nan, 5.0])
    assert numbers(pa.chunked_array([], type=pa.int64())).dtype == np.int64
    assert numbers(pa.array([1.5]), np.int64).tolist() == [1]


def test_nulls_in_an_integer_array_and_text_are_refused() -> None:
    with pytest.raises(ValueError, match="1 nulls in a column asked for as int64"):
        numbers(pa.array([1, None]), np.int64)
    with pytest.raises(TypeError, match="a string column is not one of numbers"):
        numbers(pa.array(["a"]))
