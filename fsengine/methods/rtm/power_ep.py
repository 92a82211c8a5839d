"""Power EP with eta = -1 for the RTM (slides "Likelihood approximation" to "Convergence tricks").

Approximation q(theta) = p(theta | alpha) prod_i t~_i(theta) with sites
t~_i(theta) = prod_{j in S_i} theta_j^{a_ij} (1 - theta_j)^{b_ij}, so q_j = Beta(A_j, B_j) with
A_j = alpha_j + sum_i a_ij, B_j = alpha_j + sum_i b_ij. The prior is kept as an exact, fixed
factor (trick 4, "addition of fixed prior distribution factors").

Update of factor i (eta = -1): cavity q^{\\i} = q t~_i, i.e. (A^{\\i}, B^{\\i}) = (A + a_i, B + b_i);
tilted q^{\\i} t_i^{-1}. The inverted likelihood (slide "Likelihood approximation") is

    c_i = 1:  t_i^{-1} = 1 + prod_j (1 - theta_j) / theta_j,
    c_i = 0:  t_i^{-1} = 1 + prod_j theta_j / (1 - theta_j),

so the tilted distribution is a two-component mixture of products of Betas:
c = 1: prod Beta(A, B) + w prod Beta(A - 1, B + 1), w = prod_j B_j / (A_j - 1)   (needs A_j > 1),
c = 0: prod Beta(A, B) + w prod Beta(A + 1, B - 1), w = prod_j A_j / (B_j - 1)   (needs B_j > 1),
(cavity parameters). With pi = w / (1 + w) the tilted log-moments move by
c = 1: (r1, r2) = (-pi / (A - 1), pi / B);  c = 0: (r1, r2) = (pi / A, -pi / (B - 1)),
using psi(x - 1) = psi(x) - 1/(x - 1). Projection (``beta_projection``) gives
Beta(A^{\\i} + u, B^{\\i} + v) = q^{\\i} (t~_i^new)^{-1}, so the new site is (a, b) = (-u, -v);
q then swaps the old site for the new one (``sites.sweep``).
Tags absent from object i keep their cavity, so their site stays 1 (nothing to store).

When a cavity parameter fails the condition above the tilted distribution is not normalisable:
the factor is skipped (its site kept) and counted; the driver never reports convergence while
many are skipped.

The sweep with the convergence tricks and the evidence estimate are shared with EP (``sites``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fsengine.methods.rtm.beta_projection import (
    A_,
    B_,
    LANES,
    R1,
    R2,
    U0,
    V0,
    WORK_SIZE,
    U,
    V,
    moment_matched_change,
    solve_beta_changes,
)

#: a cavity parameter must exceed 1 by this much for the eta = -1 tilted distribution to exist
DEFINED_MARGIN = 1e-10


@njit(cache=True)
def _softplus(t):
    return t + math.log1p(math.exp(-t)) if t > 0.0 else math.log1p(math.exp(t))


@njit(cache=True)
def tilted_log_weight(Ac, Bc, c):
    """log w of the second mixture component, or +inf when the tilted distribution is undefined.

    log w is a sum of log ratios; the ratios are multiplied and the log taken only when the
    product leaves [1e-100, 1e100] (one log per dozens of tags instead of two per tag)."""
    logw = 0.0
    product = 1.0
    for k in range(Ac.size):
        if Ac[k] <= 0.0 or Bc[k] <= 0.0:
            return np.inf
        if c == 1:
            if Ac[k] <= 1.0 + DEFINED_MARGIN:
                return np.inf
            ratio = Bc[k] / (Ac[k] - 1.0)
        else:
            if Bc[k] <= 1.0 + DEFINED_MARGIN:
                return np.inf
            ratio = Ac[k] / (Bc[k] - 1.0)
        if not 1e-200 < ratio < 1e200:  # a ratio that alone could push the product out of range
            logw += math.log(ratio)
            continue
        product *= ratio
        if not 1e-100 < product < 1e100:
            logw += math.log(product)
            product = 1.0
    return logw + math.log(product)


@njit(cache=True, error_model="numpy")
def _fill_lanes(Ac, Bc, c, pi, start, m, work):
    """Lanes 0..m-1 of ``work`` from tags start..start+m-1: cavity, log-moment changes and the
    moment-matched starting guess (the mixture's mean and second moment)."""
    L = LANES
    for q in range(m):
        A = Ac[start + q]
        B = Bc[start + q]
        S = A + B
        if c == 1:
            r1 = -pi / (A - 1.0)
            r2 = pi / B
            mean = (A - pi) / S
            second = A * (A + 1.0 - 2.0 * pi) / (S * (S + 1.0))
        else:
            r1 = pi / A
            r2 = -pi / (B - 1.0)
            mean = (A + pi) / S
            second = (A + 1.0) * (A + 2.0 * pi) / (S * (S + 1.0))
        u0, v0 = moment_matched_change(A, B, mean, second)
        work[A_ * L + q] = A
        work[B_ * L + q] = B
        work[R1 * L + q] = r1
        work[R2 * L + q] = r2
        work[U0 * L + q] = u0
        work[V0 * L + q] = v0


@njit(cache=True)
def factor_site_targets(Ac, Bc, c, out_a, out_b, work=None):
    """Undamped new sites (out_a, out_b) of one factor from its cavity; False when undefined.

    The projections of the factor's tags run :data:`~.beta_projection.LANES` at a time
    (:func:`~.beta_projection.solve_beta_changes`); ``work`` is its buffer
    (``WORK_SIZE`` floats, allocated when None)."""
    logw = tilted_log_weight(Ac, Bc, c)
    if not np.isfinite(logw):
        return False
    if work is None:
        work = np.empty(WORK_SIZE)
    pi = 1.0 / (1.0 + math.exp(-logw)) if logw > -700.0 else 0.0
    for start in range(0, Ac.size, LANES):
        m = min(LANES, Ac.size - start)
        _fill_lanes(Ac, Bc, c, pi, start, m, work)
        solve_beta_changes(work, m)
        for q in range(m):
            out_a[start + q] = -work[U * LANES + q]
            out_b[start + q] = -work[V * LANES + q]
    return True


@njit(cache=True)
def factor_log_normaliser(Ac, Bc, c):
    """log Z_i = log int q^{\\i} t_i^{-1} = log(1 + w) (nan when the tilted form is undefined)."""
    logw = tilted_log_weight(Ac, Bc, c)
    if not np.isfinite(logw):
        return np.nan
    return _softplus(logw)
