"""The results tables' columns are built from Arrow buffers (:func:`qdsim.results.arrays.arrow_array`)
so that pyarrow never imports pandas for them: each must equal what ``pa.array`` makes of the
same values — type, values, nulls and NaNs — and whatever the buffers do not take goes through
``pa.array``, which converts or refuses it as before."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from qdsim.results.arrays import arrow_array, arrow_type
from qdsim.results.tables import SEED

_I, _F, _S, _B = pa.int64(), pa.float64(), pa.string(), pa.bool_()
_LIST = pa.list_(_F)
NAN, INF = float("nan"), float("inf")

#: Values the buffers take, whatever the column: lists of Python values (None for null) and
#: NumPy arrays, with a boolean column longer than a byte of its bitmap.
BUILT = [
    ([1, 2, 3], _I),
    ([1, None, 3], _I),
    ([], _I),
    ([None, None], _I),
    ([2**63 - 1, -(2**63)], _I),
    ([0, 2**64 - 1, None], arrow_type(SEED)),
    ([1.5, None, NAN, INF, -0.0], _F),
    ([1, 2.5, 2**53, -(2**53)], _F),
    ([None], _F),
    ([True, None, False] * 6, _B),
    (["a", None, "", "rtt200.s0", "r1->r2"], _S),
    (["é", None, "日本", "a"], _S),
    ([None, None], _S),
    ([[0.5, None], None, [], [1.0, 2.0]], _LIST),
    ([None, None], _LIST),
    ([], _LIST),
    (np.arange(5, dtype=np.int64), _I),
    (np.arange(5, dtype=np.int32), _I),
    (np.array([0, 2**64 - 1], dtype=np.uint64), arrow_type(SEED)),
    (np.array([0.5, NAN, INF]), _F),
    (np.array([0.5, 1.5], dtype=np.float32), _F),
    (np.array([True, False, True] * 7), _B),
    (np.array(["a", "bb", "é"], dtype=object), _S),
    (np.array(["queue", "drop_next"]), _S),
    (np.frombuffer(np.arange(4, dtype="<f8").tobytes(), dtype="<f8"), _F),
    (np.arange(10, dtype=np.int64)[::2], _I),
]

#: Values the buffers leave to ``pa.array``: of another Python or NumPy type than the column's.
CONVERTED = [
    ([np.float64(1.5), None], _F),
    ([1.0, None], _I),
    (np.array([1.0, 2.0]), _I),
    (np.array([1, 2], dtype=np.int64), _F),
    ([[np.float64(0.5)]], _LIST),
]

#: Values ``pa.array`` refuses; so must :func:`arrow_array`, with the same error.
REFUSED = [
    ([True], _I),
    ([2**63], _I),
    ([-1], arrow_type(SEED)),
    ([2**53 + 1], _F),
    ([1], _B),
    ([1], _S),
    (np.array([1.5]), _I),
]


def _same(built: pa.Array, expected: pa.Array) -> None:
    built.validate(full=True)
    assert built.type == expected.type
    assert built.null_count == expected.null_count
    assert repr(built.to_pylist()) == repr(expected.to_pylist())  # NaN is NaN in its repr


@pytest.mark.parametrize(("values", "kind"), BUILT)
def test_columns_are_built_from_buffers_equal_to_pyarrows_own(values, kind, monkeypatch):
    expected = pa.array(values, type=kind)
    monkeypatch.setattr(pa, "array", lambda *args, **kwargs: pytest.fail("went through pa.array"))
    _same(arrow_array(values, kind), expected)


def test_a_mask_makes_nulls_as_pyarrows_does(monkeypatch):
    values = np.array([0.5, NAN, 1.5, NAN])
    masks = [np.isnan(values), np.zeros(len(values), dtype=bool)]
    expected = [pa.array(values, type=_F, mask=mask) for mask in masks]
    monkeypatch.setattr(pa, "array", lambda *args, **kwargs: pytest.fail("went through pa.array"))
    for mask, array in zip(masks, expected, strict=True):
        _same(arrow_array(values, _F, mask=mask), array)


@pytest.mark.parametrize(("values", "kind"), CONVERTED)
def test_other_values_are_converted_by_pyarrow(values, kind):
    _same(arrow_array(values, kind), pa.array(values, type=kind))


@pytest.mark.parametrize(("values", "kind"), REFUSED)
def test_values_pyarrow_refuses_are_refused_alike(values, kind):
    with pytest.raises(Exception) as expected:
        pa.array(values, type=kind)
    with pytest.raises(expected.type):
        arrow_array(values, kind)
