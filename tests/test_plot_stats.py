"""The confidence intervals of `qdsim plot`."""

import math

import pytest

from qdsim.plot import mean_ci, t_quantile_975


def test_t_quantiles_match_the_table_and_approach_normal():
    assert t_quantile_975(1) == pytest.approx(12.706)
    assert t_quantile_975(9) == pytest.approx(2.262)
    assert t_quantile_975(45) == pytest.approx(2.021)  # conservative: df 40's value
    assert t_quantile_975(10_000) == pytest.approx(1.96)


def test_mean_ci_of_known_sample():
    mean, half = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])
    assert mean == 3.0
    assert half == pytest.approx(2.776 * math.sqrt(2.5 / 5))
    assert mean_ci([7.0]) == (7.0, 0.0)
