"""The confidence intervals of `qdsim plot` and `qdsim compare`."""

import itertools
import math

import pytest

from qdsim.results.stats import mean_ci, regularized_beta, t_quantile_975, welch_ci

# The 0.975 quantile of Student's t as printed tables give it (3 decimals), and beyond df = 120
# (where tables stop and the old code used the normal 1.960) from R's qt(0.975, df).
TABLE = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 9: 2.262, 29: 2.045, 30: 2.042, 45: 2.014, 60: 2.000, 120: 1.980}
BEYOND = {121: 1.979764, 200: 1.971896, 1000: 1.962339, 10**6: 1.959966}


@pytest.mark.parametrize(("df", "value"), sorted(TABLE.items()))
def test_t_quantiles_match_the_printed_table(df, value):
    assert t_quantile_975(df) == pytest.approx(value, abs=5e-4)


@pytest.mark.parametrize(("df", "value"), sorted(BEYOND.items()))
def test_t_quantiles_beyond_120_are_not_the_normal_quantile(df, value):
    assert t_quantile_975(df) == pytest.approx(value, abs=1e-6)
    assert t_quantile_975(df) > 1.959963  # the normal quantile is the limit, never reached


def test_t_quantiles_decrease_with_df():
    values = [t_quantile_975(df) for df in range(1, 400)]
    assert all(a > b for a, b in itertools.pairwise(values))
    with pytest.raises(ValueError):
        t_quantile_975(0)


def test_regularized_beta_known_values():
    # I_x(1, 1) = x; I_x(a, 1) = x^a; I_0.5(a, a) = 1/2 by symmetry.
    assert regularized_beta(1, 1, 0.3) == pytest.approx(0.3)
    assert regularized_beta(3, 1, 0.5) == pytest.approx(0.125)
    assert regularized_beta(7.5, 7.5, 0.5) == pytest.approx(0.5)


def test_mean_ci_of_known_sample():
    mean, half = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])
    assert mean == 3.0
    assert half == pytest.approx(2.7764451 * math.sqrt(2.5 / 5), rel=1e-6)
    assert mean_ci([7.0]) == (7.0, 0.0)


def test_welch_ci_of_known_samples():
    # Equal sizes and variances: df = 2n - 2 = 8, half-width t(8) * sqrt(2 * 2.5 / 5).
    assert welch_ci([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]) == pytest.approx(2.306 * 1.0, rel=1e-3)
    assert welch_ci([1.0], [2.0, 3.0]) is None
    assert welch_ci([1.0, 1.0], [2.0, 2.0]) == 0.0
