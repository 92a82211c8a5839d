"""Univariate filter statistics: the ANOVA F test and the chi-squared test, one feature at a time.

Computed from per-class sums without densifying sparse X, with the equations scikit-learn's
``f_classif``, ``f_regression`` and ``chi2`` use (the tests check the values against them to 1e-10).

ANOVA F (one-way analysis of variance of feature x across K classes, n rows, class sizes n_k,
class means m_k, overall mean m; Fisher 1925, any statistics text):

    F = [sum_k n_k (m_k - m)^2 / (K - 1)] / [sum_k sum_{t in k} (x_t - m_k)^2 / (n - K)]

F test of a real target (the simple linear regression of y on x, Pearson correlation r):

    F = r^2 / (1 - r^2) * (n - 2)

Chi-squared (Pearson's statistic of the class totals of a non-negative feature, treated as counts;
O_k = sum of x over class k, E_k = (n_k / n) sum_t x_t):

    chi2 = sum_k (O_k - E_k)^2 / E_k

p-values: F against F(K - 1, n - K) (F(1, n - 2) for a real target); chi2 against chi^2(K - 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy import stats


@dataclass(frozen=True)
class Statistic:
    """A test statistic for every feature and its p-value (NaN where it is undefined)."""

    statistic: np.ndarray
    pvalue: np.ndarray


def _class_indicator(y) -> tuple[sp.csr_matrix, np.ndarray]:
    """(K, n) 0/1 matrix of class membership and the class sizes."""
    _, codes = np.unique(y, return_inverse=True)
    n, K = codes.size, int(codes.max()) + 1
    Y = sp.csr_matrix((np.ones(n), (codes, np.arange(n))), shape=(K, n))
    return Y, np.bincount(codes, minlength=K).astype(np.float64)


def _column_sums(X, power: int = 1) -> np.ndarray:
    if sp.issparse(X):
        return np.asarray((X.power(power) if power != 1 else X).sum(axis=0)).ravel()
    return (X**power if power != 1 else X).sum(axis=0)


def anova_f(X, y) -> Statistic:
    """One-way ANOVA F of every column of X across the classes of y (scikit-learn's ``f_classif``).

    A feature that is constant within every class and differs between them gets F = inf (p = 0);
    a constant feature gets NaN (0 / 0), as scikit-learn gives.
    """
    Y, sizes = _class_indicator(y)
    n, K = float(sizes.sum()), sizes.size
    class_sums = np.asarray(Y @ X if not sp.issparse(X) else (Y @ X).toarray())
    total = class_sums.sum(axis=0)
    ss_total = _column_sums(X, 2) - total**2 / n
    ss_between = (class_sums**2 / sizes[:, None]).sum(axis=0) - total**2 / n
    ss_within = ss_total - ss_between
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (ss_between / (K - 1)) / (ss_within / (n - K))
    return Statistic(f, stats.f.sf(f, K - 1, n - K))


def regression_f(X, y) -> Statistic:
    """F test of the linear regression of y on each column of X (scikit-learn's ``f_regression``
    with ``center=True``): F = r^2 / (1 - r^2) (n - 2)."""
    y = np.asarray(y, dtype=np.float64)
    n = y.size
    yc = y - y.mean()
    mean = _column_sums(X) / n
    cross = np.asarray(X.T @ yc).ravel()  # sum_t (x_t - m) yc_t = sum_t x_t yc_t since sum yc = 0
    norm_x = np.sqrt(np.maximum(_column_sums(X, 2) - n * mean**2, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = cross / norm_x / np.linalg.norm(yc)
        r2 = r**2
        f = r2 / (1.0 - r2) * (n - 2)
    return Statistic(f, stats.f.sf(f, 1, n - 2))


def chi_squared(X, y) -> Statistic:
    """Pearson's chi-squared of the class totals of every non-negative column of X (scikit-learn's
    ``chi2``). X must be >= 0 (a ValueError says so otherwise); an all-zero feature gets NaN."""
    values = X.data if sp.issparse(X) else np.asarray(X)
    if values.size and values.min() < 0:
        raise ValueError("Negative values in data: chi-squared needs non-negative features (counts or frequencies). "
                         "Rescale them first (e.g. sklearn.preprocessing.MinMaxScaler) or use the ANOVA F test.")
    Y, sizes = _class_indicator(y)
    observed = np.asarray(Y @ X if not sp.issparse(X) else (Y @ X).toarray())
    expected = np.outer(sizes / sizes.sum(), _column_sums(X))
    with np.errstate(divide="ignore", invalid="ignore"):
        chi2 = ((observed - expected) ** 2 / expected).sum(axis=0)
    return Statistic(chi2, stats.chi2.sf(chi2, sizes.size - 1))
