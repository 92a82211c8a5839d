"""Special functions for Beta moment matching, as numba kernels (scipy.special is not callable
from numba).

``digamma``, ``trigamma``, ``tetragamma``: the recurrences psi(x) = psi(x + 1) - 1/x (and their
derivatives) lift x above 10, then the Bernoulli-number asymptotic series is summed; absolute error
below 1e-14 for x > 0.
``digamma_diff(x, d)`` = psi(x + d) - psi(x) without cancellation when x is large: a Beta total
of 10^4 moved by a site of size 1 changes psi by 1e-4, which the plain difference of two values
near 9.2 would only give to 11 digits.
``lbeta(a, b)`` = log B(a, b).

The ``*_inv`` series take ``inv = 1 / x`` for x >= 10 and have no loop and no branch, so the
vectorised kernels (:func:`fsengine.methods.rtm.beta_projection.solve_beta_changes`, the evidence)
inline them into SIMD loops (``error_model="numpy"``: no division-by-zero check breaks them);
``log1p_series`` is log(1 + z) for |z| <= 1/10 by a series, for the same reason.
"""

from __future__ import annotations

import math

from numba import njit

_ASYMPTOTIC_FROM = 10.0
#: the ``*_inv`` series hold for x at least this
ASYMPTOTIC_FROM = _ASYMPTOTIC_FROM
#: ``log1p_series`` holds for |z| at most this
LOG1P_SERIES_MAX = 0.1


@njit(cache=True, inline="always", error_model="numpy")
def psi_tail_inv(inv):
    """psi(x) - log(x) for x >= 10 from inv = 1/x (asymptotic series to x^-14)."""
    r = inv * inv
    series = r * (-1.0 / 12 + r * (1.0 / 120 + r * (-1.0 / 252 + r * (1.0 / 240 + r * (
        -1.0 / 132 + r * (691.0 / 32760 + r * (-1.0 / 12)))))))
    return -0.5 * inv + series


@njit(cache=True, inline="always", error_model="numpy")
def trigamma_inv(inv):
    """psi'(x) for x >= 10 from inv = 1/x."""
    r = inv * inv
    series = 1.0 / 6 + r * (-1.0 / 30 + r * (1.0 / 42 + r * (-1.0 / 30 + r * (
        5.0 / 66 + r * (-691.0 / 2730 + r * (7.0 / 6))))))
    return inv + 0.5 * r + series * r * inv


@njit(cache=True, inline="always", error_model="numpy")
def tetragamma_inv(inv):
    """psi''(x) for x >= 10 from inv = 1/x."""
    r = inv * inv
    series = -0.5 + r * (1.0 / 6 + r * (-1.0 / 6 + r * (3.0 / 10 + r * (
        -5.0 / 6 + r * (691.0 / 210)))))
    return -r - r * inv + series * r * r


@njit(cache=True, inline="always", error_model="numpy")
def stirling_tail_inv(inv):
    """log Gamma(x) - [(x - 1/2) log x - x + log(2 pi) / 2] for x >= 10 from inv = 1/x (Stirling's
    series to x^-13; the next term is below 3e-17)."""
    r = inv * inv
    return inv * (1.0 / 12 + r * (-1.0 / 360 + r * (1.0 / 1260 + r * (-1.0 / 1680 + r * (
        1.0 / 1188 + r * (-691.0 / 360360 + r * (1.0 / 156)))))))


@njit(cache=True, inline="always", error_model="numpy")
def log1p_series(z):
    """log(1 + z) for |z| <= 1/10: 2 atanh(t), t = z / (2 + z), summed to t^15 (|t| <= 1/19, so
    the first term left out is below 1e-21 of the sum)."""
    t = z / (2.0 + z)
    t2 = t * t
    return 2.0 * t * (1.0 + t2 * (1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7 + t2 * (1.0 / 9 + t2 * (
        1.0 / 11 + t2 * (1.0 / 13 + t2 * (1.0 / 15))))))))


@njit(cache=True)
def _digamma_tail(x):
    """psi(x) - log(x) for x >= 10."""
    return psi_tail_inv(1.0 / x)


@njit(cache=True)
def digamma(x):
    """psi(x) = d/dx log Gamma(x), for x > 0."""
    shift = 0.0
    while x < _ASYMPTOTIC_FROM:
        shift -= 1.0 / x
        x += 1.0
    return shift + math.log(x) + _digamma_tail(x)


@njit(cache=True)
def trigamma(x):
    """psi'(x), for x > 0."""
    shift = 0.0
    while x < _ASYMPTOTIC_FROM:
        shift += 1.0 / (x * x)
        x += 1.0
    return shift + trigamma_inv(1.0 / x)


@njit(cache=True)
def tetragamma(x):
    """psi''(x), for x > 0."""
    shift = 0.0
    while x < _ASYMPTOTIC_FROM:
        shift -= 2.0 / (x * x * x)
        x += 1.0
    return shift + tetragamma_inv(1.0 / x)


@njit(cache=True)
def digamma_diff(x, d):
    """psi(x + d) - psi(x) for x > 0, x + d > 0, accurate to relative 1e-13 also when |d| << x
    (the lower part of the recurrence is summed as d / ((x + k)(x + k + d)), the rest via log1p;
    for |d| < 1e-6 x, where x + d may round to x, by d psi'(x) + d^2 psi''(x) / 2, error
    (d/x)^2 / 3 < 1e-12 relative)."""
    # psi(x + d) - psi(x) = sum_k d / ((x + k)(x + k + d)) + [psi(x + n + d) - psi(x + n)]
    shift = 0.0
    while x < _ASYMPTOTIC_FROM or x + d < _ASYMPTOTIC_FROM:
        shift += d / (x * (x + d))
        x += 1.0
    if abs(d) < 1e-6 * x:  # x + d may not even differ from x in floating point: Taylor series
        return shift + d * (trigamma(x) + 0.5 * d * tetragamma(x))
    return shift + math.log1p(d / x) + (_digamma_tail(x + d) - _digamma_tail(x))


@njit(cache=True, inline="always", error_model="numpy")
def log_gamma_change(x, log_x, inv_x, tail_x, d):
    """log Gamma(x + d) - log Gamma(x) for x, x + d >= 10 and |d| <= x / 10 from log x, 1/x and
    ``tail_x`` = :func:`stirling_tail_inv` (1/x), by Stirling's series: d log x + (x + d - 1/2)
    log1p(d / x) - d + tail(x + d) - tail(x), with no log of its own (the SIMD loops of the
    evidence inline it)."""
    return (d * log_x + (x + d - 0.5) * log1p_series(d * inv_x) - d
            + stirling_tail_inv(1.0 / (x + d)) - tail_x)


@njit(cache=True)
def lbeta(a, b):
    """log B(a, b) = log Gamma(a) + log Gamma(b) - log Gamma(a + b)."""
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


@njit(cache=True)
def log_sigmoid(t):
    """log(1 / (1 + exp(-t))) without overflow."""
    if t >= 0.0:
        return -math.log1p(math.exp(-t))
    return t - math.log1p(math.exp(t))


@njit(cache=True)
def sigmoid(t):
    """1 / (1 + exp(-t)) without overflow."""
    if t >= 0.0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)
