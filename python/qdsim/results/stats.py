"""The statistics of figures and comparisons: a mean with its 95 % confidence interval
(Student's t), and the t quantile it needs, computed exactly (scipy is not a dependency)."""

from __future__ import annotations

import functools
import math

__all__ = ["mean_ci", "regularized_beta", "t_quantile_975", "welch_ci"]


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Returns the continued fraction of the incomplete beta function (modified Lentz's
    method, Numerical Recipes §6.4), which converges fast for ``x < (a + 1) / (a + b + 2)``."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        for term in (even, odd):
            d = 1.0 + term * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + term / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def regularized_beta(a: float, b: float, x: float) -> float:
    """Returns the regularized incomplete beta function I_x(a, b) for a, b > 0, 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


@functools.cache
def t_quantile_975(df: int) -> float:
    """Returns the 0.975 quantile of Student's t with ``df`` degrees of freedom (df >= 1).

    Solved from the distribution function, P(|T| > t) = I_{df/(df+t²)}(df/2, 1/2), by
    bisection to double precision: exact for every df, where a table with the normal
    quantile beyond df = 120 is 1 % narrow at df = 121 (1.960 against 1.980). scipy is not
    a dependency, so the function is written out.
    """
    if df < 1:
        raise ValueError("df must be >= 1")
    lo, hi = 0.0, 1e3  # t(1) = 12.7: far inside
    for _ in range(200):
        mid = (lo + hi) / 2
        if regularized_beta(df / 2, 0.5, df / (df + mid * mid)) > 0.05:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2


def welch_ci(a: list[float], b: list[float]) -> float | None:
    """Returns the half-width of the 95 % confidence interval of ``mean(b) - mean(a)``
    (Welch's t, unequal variances, Welch–Satterthwaite degrees of freedom); None when a
    sample has fewer than 2 values, 0 when both are constant."""
    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = (_variance(x) / len(x) for x in (a, b))
    if va + vb == 0:
        return 0.0
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    return _t_975_real(df) * math.sqrt(va + vb)


def _variance(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)


def _t_975_real(df: float) -> float:
    """The 0.975 quantile for a fractional df (Welch's): the next smaller whole df, which errs wide."""
    return t_quantile_975(max(1, math.floor(df)))


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Returns the mean of ``values`` and the half-width of its 95 % confidence interval (0 for n=1)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    return mean, t_quantile_975(n - 1) * math.sqrt(_variance(values) / n)
