"""numba kernels of the conditional-maxent core (plain arrays in, plain arrays out).

Notation (Zhou, Wu, Weng & Schmidt 2003, Section 2; Goodman 2002): instance i, class y, the
un-normalised model ``sum[i, y] = exp(sum_j lambda_j f_j(x_i, y))`` and ``z[i] = sum_y sum[i, y]``,
so ``p(y | x_i) = sum[i, y] / z[i]``. A feature is a (predicate j, class c) pair,
``f(x, y) = x_j [y = c]`` (binary predicates give x_j in {0, 1}; real values are allowed).

Everything here works on a *column* of the instance-by-predicate matrix in CSC form
(``rows[a:b]``, ``vals[a:b]``): adding feature (j, c) changes only the instances where predicate j
fires, and only their class-c entry.

The gain of adding (j, c) with weight alpha, all other weights fixed (Berger et al. 1996's
approximation; Zhou et al., G_{S u f}(alpha)), on the total (not per-instance) scale and with an
optional Gaussian prior of precision ``prec`` on the new weight:

    h(alpha) = alpha C - sum_i log(1 - p_i + p_i exp(alpha x_i)) - prec alpha^2 / 2      (1)
    h'(alpha) = C - sum_i x_i q_i - prec alpha,   q_i = p_i e^{alpha x_i} / (1 - p_i + p_i e^{alpha x_i})
    h''(alpha) = -sum_i x_i^2 q_i (1 - q_i) - prec

where p_i = p(c | x_i) under the current model and C = sum_{i: y_i = c} x_i is the empirical
count of the feature. Zhou et al.'s G(alpha) equals h(alpha) / N with prec = 0. -h''(alpha) at the
optimum is Daume III's a_g (Eq. 11) plus the prior precision.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fsengine.sparse_kernels import longest_segment

#: |alpha| cap: alpha is +/- infinity when a predicate always (never) co-occurs with the class;
#: at |alpha| = 20 the remaining gain is below exp(-20) ~ 2e-9 per instance and class.
ALPHA_CAP = 20.0


#: floor on p_i = p(c | x_i) in the gain kernels (a class probability that underflowed to 0)
P_FLOOR = 1e-300


@njit(cache=True)
def _fill_column(rows, vals, a, b, s, z, c, bp, brest, bx):
    """Gather p_i, 1 - p_i and x_i of the column's instances into contiguous buffers (one
    division per incidence). Rows are renormalised after every update (see
    :func:`apply_feature`), so z_i is the exact row sum and 1 - p_i is exact by Sterbenz's lemma
    when p_i > 1/2.
    """
    m = b - a
    for k in range(m):
        i = rows[a + k]
        p = max(s[i, c] / z[i], P_FLOOR)
        bp[k] = p
        brest[k] = max(1.0 - p, 0.0)
        bx[k] = vals[a + k]
    return m


#: numba fastmath flags for the reductions below: reassociation lets LLVM vectorise the sums
#: (results stay deterministic for a given column and starting point)
_FAST = {"reassoc", "contract", "arcp", "nsz"}


#: real values: every term v_i (<= 1 in the form taken) is multiplied into a running product whose log is
#: taken when it falls below _REAL_PRODUCT_MIN; a term below _REAL_FACTOR_MIN gets its own log, so the
#: product never leaves the normal range (>= 1e-300). One log per column instead of one per incidence.
_REAL_PRODUCT_MIN = 1e-200
_REAL_FACTOR_MIN = 1e-100

#: terms multiplied before one log is taken (each term 1 - p + p e^alpha lies in
#: [e^-cap, e^cap] = [2e-9, 5e8] for cap 20, so 16 of them stay inside [1e-139, 1e139])
_LOG_BLOCK = 16


@njit(cache=True, fastmath=_FAST)
def _evaluate(alpha, m, bp, brest, bx, binary, count, prec):
    """h(alpha), h'(alpha), h''(alpha) of Eq. (1) in one pass over the buffered column.

    With u_i = 1 - p_i + p_i e^{alpha x_i} and q_i = p_i e^{alpha x_i} / u_i:
    h = alpha C - sum log u_i - prec alpha^2 / 2, h' = C - sum x_i q_i - prec alpha,
    h'' = -sum x_i^2 q_i (1 - q_i) - prec.
    Binary features: t = e^alpha once, one division per incidence, and the logs are taken of
    products of :data:`_LOG_BLOCK` terms (the log pass dominated a gain computation). Real
    values: for alpha x > 0 the terms are written e^{ax} (p + (1 - p) e^{-ax}) (no overflow), so
    every remaining factor lies in (0, 1], and their logs are taken of running products
    (:data:`_REAL_PRODUCT_MIN`).
    """
    h = alpha * count - 0.5 * prec * alpha * alpha
    d1 = count - prec * alpha
    d2 = -prec
    if binary:
        t = math.exp(alpha)
        sq = 0.0
        sqq = 0.0
        logs = 0.0
        k = 0
        while k < m:
            stop = min(k + _LOG_BLOCK, m)
            prod = 1.0
            for kk in range(k, stop):
                tp = t * bp[kk]
                u = brest[kk] + tp
                q = tp / u
                sq += q
                sqq += q * q
                prod *= u
            logs += math.log(prod)
            k = stop
        h -= logs
        d1 -= sq
        d2 -= sq - sqq
    else:
        prod = 1.0
        logs = 0.0
        for k in range(m):
            x = bx[k]
            ax = alpha * x
            if ax > 0.0:
                v = bp[k] + brest[k] * math.exp(-ax)
                q = bp[k] / v
                h -= ax
            else:
                e = bp[k] * math.exp(ax)
                v = brest[k] + e
                q = e / v
            if v < _REAL_FACTOR_MIN:
                logs += math.log(v)
            else:
                prod *= v
                if prod < _REAL_PRODUCT_MIN:
                    logs += math.log(prod)
                    prod = 1.0
            d1 -= x * q
            d2 -= x * x * q * (1.0 - q)
        h -= logs + math.log(prod)
    return h, d1, d2


@njit(cache=True)
def _newton(m, bp, brest, bx, binary, count, prec, alpha0, cap, tol, max_iter):
    """Maximise the concave h of Eq. (1) over alpha in [-cap, cap] by bracketed Newton.

    Plain Newton from 0 diverges on flat, nearly saturated gains (thousands of such candidates on
    CoNLL-2000), so every step is kept inside a bracket [lo, hi] known to hold the maximiser
    (h' > 0 at lo, h' < 0 at hi); a step leaving it is replaced by bisection. The bracket starts
    at the caps, which are evaluated only when Newton heads for them: if h' still points outward
    at a cap, the cap is the answer. Each iteration is one fused pass (:func:`_evaluate`); the
    final step delta (relative size <= tol) is not evaluated again: h is extrapolated as
    h + h' delta + h'' delta^2 / 2 (error O(delta^3)).
    Returns (alpha, h(alpha), -h''(alpha), passes over the column).
    """
    lo, hi = -cap, cap
    lo_known, hi_known = False, False
    alpha = min(max(alpha0, -cap), cap)
    passes = 0
    h, d1, d2 = 0.0, 0.0, 0.0
    for _ in range(max_iter):
        h, d1, d2 = _evaluate(alpha, m, bp, brest, bx, binary, count, prec)
        passes += 1
        if d1 > 0.0:
            lo, lo_known = alpha, True
            if alpha >= cap:
                return cap, h, -d2, passes
        elif d1 < 0.0:
            hi, hi_known = alpha, True
            if alpha <= -cap:
                return -cap, h, -d2, passes
        else:
            return alpha, h, -d2, passes
        if d2 < 0.0:
            new = alpha - d1 / d2
        else:
            new = 0.5 * (lo + hi)
        if new >= hi:
            new = 0.5 * (alpha + hi) if hi_known else hi
        elif new <= lo:
            new = 0.5 * (alpha + lo) if lo_known else lo
        delta = new - alpha
        if abs(delta) <= tol * (1.0 + abs(alpha)):
            return new, h + delta * (d1 + 0.5 * d2 * delta), -d2, passes
        alpha = new
    h, d1, d2 = _evaluate(alpha, m, bp, brest, bx, binary, count, prec)
    return alpha, h, -d2, passes + 1


@njit(cache=True)
def optimise_candidate(j, c, count, prec, alpha0, col_ptr, col_rows, col_vals, s, z, binary, cap,
                       tol, max_iter, bp, brest, bx):
    """Optimal alpha, gain h(alpha) and curvature -h''(alpha) of Eq. (1) for one candidate
    (buffers at least as long as its column). Returns (alpha, gain, curvature, passes)."""
    m = _fill_column(col_rows, col_vals, col_ptr[j], col_ptr[j + 1], s, z, c, bp, brest, bx)
    alpha, gain, curv, passes = _newton(m, bp, brest, bx, binary, count, prec, alpha0, cap, tol,
                                        max_iter)
    return alpha, gain, curv, passes + 1


@njit(cache=True)
def gains_kernel(cand_pred, cand_cls, cand_count, alpha0, prec, col_ptr, col_rows, col_vals, s, z,
                 binary, cap, tol, max_iter, out_alpha, out_gain, out_curv):
    """Optimal alpha, gain h(alpha) and curvature -h''(alpha) of Eq. (1) for each candidate.

    ``cand_*`` index the candidates to evaluate (predicate, class, empirical count C), ``alpha0``
    their Newton starting points, ``prec`` their prior precisions (0 = maximum likelihood).
    Returns the total number of passes over columns (for cost accounting).
    """
    longest = longest_segment(col_ptr)
    bp = np.empty(longest)
    brest = np.empty(longest)
    bx = np.empty(longest)
    total = 0
    for t in range(cand_pred.size):
        alpha, gain, curv, passes = optimise_candidate(
            cand_pred[t], cand_cls[t], cand_count[t], prec[t], alpha0[t], col_ptr, col_rows,
            col_vals, s, z, binary, cap, tol, max_iter, bp, brest, bx)
        out_alpha[t] = alpha
        out_gain[t] = gain
        out_curv[t] = curv
        total += passes
    return total


@njit(cache=True)
def gain_at_kernel(cand_pred, cand_cls, cand_count, alpha, prec, col_ptr, col_rows, col_vals, s, z,
                   binary, out_gain):
    """h(alpha) of Eq. (1) at given alphas (no optimisation), e.g. Daume III's Eq. (14)."""
    longest = longest_segment(col_ptr)
    bp = np.empty(longest)
    brest = np.empty(longest)
    bx = np.empty(longest)
    for t in range(cand_pred.size):
        j = cand_pred[t]
        m = _fill_column(col_rows, col_vals, col_ptr[j], col_ptr[j + 1], s, z, cand_cls[t],
                         bp, brest, bx)
        out_gain[t] = _evaluate(alpha[t], m, bp, brest, bx, binary, cand_count[t], prec[t])[0]


@njit(cache=True)
def apply_feature(j, c, delta, col_ptr, col_rows, col_vals, s, z):
    """Model adjustment of Fig. 1 / Fig. 2 step 4 for feature (j, c) whose weight grows by delta.

    The paper's pseudo-code ``z[i] = sum[i, y]; sum[i, y] *= exp(alpha); z[i] += sum[i, y]`` means
    ``z[i] -= sum[i, y]`` before the multiplication. That subtract-then-add cancels catastrophically
    on near-certain instances (sum[i, y] ~ z[i]), so after multiplying we recompute z[i] as the
    exact row sum and renormalise the row (sum[i, :] /= z[i], z[i] = 1). This costs O(Y) per
    touched instance, keeps every row in [0, 1] (no overflow after thousands of features) and
    leaves p(y | x_i) = sum[i, y] / z[i] unchanged.
    """
    n_classes = s.shape[1]
    for a in range(col_ptr[j], col_ptr[j + 1]):
        i = col_rows[a]
        s[i, c] *= math.exp(delta * col_vals[a])
        zi = 0.0
        for y in range(n_classes):
            zi += s[i, y]
        for y in range(n_classes):
            s[i, y] /= zi
        z[i] = 1.0


@njit(cache=True)
def nll_grad_kernel(indptr, indices, data, W, y, grad):
    """Negative log-likelihood -sum_i log p(y_i | x_i) of scores X W and its gradient in W.

    X is CSR over the active predicates (local column ids), W is (n_active_predicates, Y).
    grad[j, y] = sum_i x_ij (p(y | x_i) - [y = y_i]) (accumulated into a zeroed ``grad``).
    """
    n = indptr.size - 1
    n_classes = W.shape[1]
    score = np.empty(n_classes)
    nll = 0.0
    for i in range(n):
        for k in range(n_classes):
            score[k] = 0.0
        for a in range(indptr[i], indptr[i + 1]):
            j = indices[a]
            v = data[a]
            for k in range(n_classes):
                score[k] += v * W[j, k]
        mx = score[0]
        for k in range(1, n_classes):
            mx = max(mx, score[k])
        gold = score[y[i]]
        tot = 0.0
        for k in range(n_classes):
            score[k] = math.exp(score[k] - mx)
            tot += score[k]
        nll += math.log(tot) + mx - gold
        for k in range(n_classes):
            score[k] /= tot
        score[y[i]] -= 1.0
        for a in range(indptr[i], indptr[i + 1]):
            j = indices[a]
            v = data[a]
            for k in range(n_classes):
                grad[j, k] += v * score[k]
    return nll
