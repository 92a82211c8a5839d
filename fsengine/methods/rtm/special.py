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

``exp_lane``, ``log1p_unit`` and ``erfc_lane`` are exp, log1p on [0, 1] and erfc written the same
way (no loop, no branch, no library call), so that EP's per-node loops (:mod:`.ep`,
:mod:`.logistic_normal`; compiled with ``fastmath={"contract"}``, fused multiply-adds and no
other licence) become SIMD loops: numba calls libm for ``math.exp`` / ``math.erfc``, one
value at a time (it vectorises them only with Intel's SVML, which this package does not depend
on). Accuracy against libm (tested): ``exp_lane`` and ``log1p_unit`` within 2 ulp; ``erfc_lane``
within 5e-15 relative for |x| <= 6 and 2e-16 (x^2 + 1) beyond (the rounding of x^2 in exp(-x^2)),
down to erfc(x) = 1e-300.
"""

from __future__ import annotations

import math

from numba import njit, types
from numba.extending import intrinsic

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


@intrinsic
def _double_from_bits(typingctx, bits):
    """The float64 whose IEEE 754 bit pattern is the int64 ``bits`` (an LLVM bitcast, which
    vectorises; numba has no scalar bit cast of its own)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))
    return types.float64(types.int64), codegen


_LOG2E = 1.4426950408889634
#: ln 2 in two parts (fdlibm's): the first has 32 significant bits, so n * _LN2_HI is exact
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
#: below this exp underflows to a subnormal; ``exp_lane`` returns 0 there
_EXP_MIN = -708.0
_EXP_MAX = 709.0


@njit(cache=True, inline="always", error_model="numpy")
def exp_lane(x):
    """e^x, branch-free: x = n ln 2 + r (Cody-Waite, |r| <= ln(2)/2), e^r by its Taylor series to
    r^13 (the first term left out is below 4e-18), 2^n from its bit pattern; 0 below -708 (where
    libm returns subnormals), e^709 above 709, nan for nan."""
    y = min(max(x, _EXP_MIN), _EXP_MAX)
    n = math.floor(y * _LOG2E + 0.5)
    r = (y - n * _LN2_HI) - n * _LN2_LO
    p = 1.0 + r * (1.0 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720 + r * (
        1.0 / 5040 + r * (1.0 / 40320 + r * (1.0 / 362880 + r * (1.0 / 3628800 + r * (1.0 / 39916800 + r * (
            1.0 / 479001600 + r * (1.0 / 6227020800)))))))))))))
    value = p * _double_from_bits((int(n) + 1023) << 52)
    return value if x >= _EXP_MIN else (0.0 if x < _EXP_MIN else x)  # nan stays nan


_SQRT2_M1 = math.sqrt(2.0) - 1.0
_LN2 = math.log(2.0)


@njit(cache=True, inline="always", error_model="numpy")
def log1p_unit(e):
    """log(1 + e) for 0 <= e <= 1, branch-free: e > sqrt(2) - 1 is reduced to f = (e - 1)/2 (log 2
    added back), then log1p(f) = 2 atanh(s), s = f / (2 + f), |s| <= 0.172, summed to s^23 (the
    first term left out is below 1e-19 of the sum)."""
    reduce = e > _SQRT2_M1
    f = 0.5 * (e - 1.0) if reduce else e
    s = f / (2.0 + f)
    s2 = s * s
    series = 2.0 * s * (1.0 + s2 * (1.0 / 3 + s2 * (1.0 / 5 + s2 * (1.0 / 7 + s2 * (1.0 / 9 + s2 * (
        1.0 / 11 + s2 * (1.0 / 13 + s2 * (1.0 / 15 + s2 * (1.0 / 17 + s2 * (1.0 / 19 + s2 * (
            1.0 / 21 + s2 * (1.0 / 23))))))))))))
    return series + (_LN2 if reduce else 0.0)


#: erfcx(y) = e^{y^2} erfc(y) = sum_k c_k T_k(t) / (1 + 2y), t = (y - 2) / (y + 2), for y >= 0: the
#: Chebyshev interpolant of degree 24 of (1 + 2y) erfcx(y) in t on [-1, 1) (Shepherd & Laframboise's
#: map, 1981; computed with ``numpy.polynomial.chebyshev.chebinterpolate`` and
#: ``scipy.special.erfcx``; the coefficients fall below 4e-15 at the end)
ERFCX_CHEBYSHEV = (
    1.1760066555883002, 0.025779673870048318, -0.10659315067778502, 0.038808879574483805,
    -0.005414899930893645, -0.0004081525728238139, 0.00019843768248557867, 9.842532776074445e-06,
    -7.763265561044216e-06, -7.174001457074619e-07, 3.1406949569939344e-07, 6.188423675654942e-08,
    -9.890619713352315e-09, -4.595399675529904e-09, -7.180547516243337e-11, 2.629619818890501e-10,
    4.867799013392003e-11, -8.026754299075336e-12, -4.778358804631445e-12, -4.347626246812438e-13,
    2.411026790000627e-13, 8.612923120398617e-14, 9.097416535348808e-16, -6.029041605546466e-15,
    -3.55887021031025e-15)
_ERFCX_MAP = 2.0


@njit(cache=True, inline="always", error_model="numpy")
def _erfcx_series(t):
    """sum_k ERFCX_CHEBYSHEV[k] T_k(t) by Clenshaw's recurrence, written out (a loop over the
    coefficients would keep the callers' loops from vectorising)."""
    c = ERFCX_CHEBYSHEV
    t2 = 2.0 * t
    b1, b2 = c[24], 0.0
    b1, b2 = c[23] + t2 * b1 - b2, b1
    b1, b2 = c[22] + t2 * b1 - b2, b1
    b1, b2 = c[21] + t2 * b1 - b2, b1
    b1, b2 = c[20] + t2 * b1 - b2, b1
    b1, b2 = c[19] + t2 * b1 - b2, b1
    b1, b2 = c[18] + t2 * b1 - b2, b1
    b1, b2 = c[17] + t2 * b1 - b2, b1
    b1, b2 = c[16] + t2 * b1 - b2, b1
    b1, b2 = c[15] + t2 * b1 - b2, b1
    b1, b2 = c[14] + t2 * b1 - b2, b1
    b1, b2 = c[13] + t2 * b1 - b2, b1
    b1, b2 = c[12] + t2 * b1 - b2, b1
    b1, b2 = c[11] + t2 * b1 - b2, b1
    b1, b2 = c[10] + t2 * b1 - b2, b1
    b1, b2 = c[9] + t2 * b1 - b2, b1
    b1, b2 = c[8] + t2 * b1 - b2, b1
    b1, b2 = c[7] + t2 * b1 - b2, b1
    b1, b2 = c[6] + t2 * b1 - b2, b1
    b1, b2 = c[5] + t2 * b1 - b2, b1
    b1, b2 = c[4] + t2 * b1 - b2, b1
    b1, b2 = c[3] + t2 * b1 - b2, b1
    b1, b2 = c[2] + t2 * b1 - b2, b1
    b1, b2 = c[1] + t2 * b1 - b2, b1
    return c[0] + t * b1 - b2


@njit(cache=True, inline="always", error_model="numpy")
def erfc_lane(x):
    """erfc(x), branch-free: erfc(y) = e^{-y^2} erfcx(y) for y = |x| (:data:`ERFCX_CHEBYSHEV`) and
    erfc(-y) = 2 - erfc(y)."""
    y = abs(x)
    inv = 1.0 / ((y + _ERFCX_MAP) * (1.0 + 2.0 * y))  # one division for t and 1 / (1 + 2y)
    tail = exp_lane(-y * y) * _erfcx_series((y - _ERFCX_MAP) * (1.0 + 2.0 * y) * inv) * ((y + _ERFCX_MAP) * inv)
    return 2.0 - tail if x < 0.0 else tail
