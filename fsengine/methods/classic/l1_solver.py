"""Warm-started pathwise solver for L1-penalised binary logistic regression (Jaakkola, lecture 12,
Eq. 18-19), dense or CSC-sparse, with an unpenalised intercept.

At one C (lambda = 1/C), with labels y_t in {0, 1}, eta_t = theta_0 + theta^T x_t and
mu_t = 1 / (1 + e^{-eta_t}), the solver minimises minus the penalised log-likelihood of Eq. (18)

    F(theta_0, theta) = sum_t [log(1 + e^{eta_t}) - y_t eta_t] + lambda sum_k |theta_k|,

theta_0 unpenalised. With the likelihood slope g = X^T (y - mu) the optimum satisfies Eq. (19):
g_k = lambda sign(theta_k) where theta_k != 0, |g_k| <= lambda where theta_k = 0, and
sum_t (y_t - mu_t) = 0 for the intercept.

Algorithm: glmnet (J. Friedman, T. Hastie and R. Tibshirani, "Regularization paths for generalized
linear models via coordinate descent", J. Stat. Softw. 33(1), 2010), Sections 2-3:

- proximal Newton (their Eq. 10-11, IRLS): at the current eta the log-likelihood is replaced by
  its quadratic expansion with weights w_t = mu_t (1 - mu_t) and working residuals y_t - mu_t;
- cyclic coordinate descent on the penalised quadratic, each coordinate a soft-thresholded
  weighted least-squares update (their Eq. 5-6) with the intercept profiled out (every step
  refits it, i.e. works on the weighted-centred column, as glmnet's centring does; for sparse
  columns the shift is kept as one scalar, so nothing is densified), cycling over the non-zero
  coefficients between full sweeps of the working set (their Section 2.6);
- once the support and signs have held for ``CG_AFTER`` sweeps, a conjugate-gradient step on the
  quadratic restricted to that orthant (:func:`_support_newton`; at most ``CG_BUDGET`` CG
  iterations per Newton step). Near-separable data at weak
  penalty leave most IRLS weights ~0, and two rare words whose few rows share the one unsaturated
  row become nearly collinear in the weighted metric: on a bootstrap resample of sentence polarity
  a pair with weighted correlation 0.99999 made the sweeps crawl (about 1 / (1 - rho^2) of them),
  649 Newton iterations and 167 s at one C; with the subspace step, 19 and about 1 s;
- a backtracking (Armijo) line search on F along the Newton direction, as liblinear's newGLMNET
  does (G.-X. Yuan, C.-H. Ho and C.-J. Lin, JMLR 13, 2012), so every step decreases F;
- the sequential strong rule (R. Tibshirani et al., JRSS B 74, 2012): at lambda_k only features
  with |g_k| >= 2 lambda_k - lambda_{k-1} at the previous solution, or a non-zero coefficient, are
  optimised; Eq. (19) is then checked on every feature and the violators join the working set;
- a path over increasing C, each C warm-started from the previous one's solution.

Convergence test (per C): the largest relative violation of Eq. (19) over all features,

    max_k v_k / lambda,   v_k = |g_k - lambda sign theta_k| (theta_k != 0),
                          v_k = max(|g_k| - lambda, 0)          (theta_k = 0),

and the intercept's |sum_t (y_t - mu_t)| / lambda, are below ``tol``;
:func:`fsengine.methods.classic.l1_path.eq19_violation` measures the same quantity independently.
Coefficients the soft-threshold sets to zero are exactly zero, so the active set is exact at that
tolerance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit, types
from numba.extending import overload

MAX_SWEEPS = 1000  # coordinate-descent sweeps per Newton step
CG_ITERATIONS = 200  # conjugate-gradient iterations per support step
CG_BUDGET = MAX_SWEEPS  # conjugate-gradient iterations per Newton step (each costs about two sweeps)
CG_AFTER = 10  # non-zero sweeps without a support change before a support step
ARMIJO = 0.01  # sufficient-decrease fraction of the line search


@dataclass(frozen=True)
class BinaryL1Path:
    """One binary problem along increasing C: coefs (n_Cs, p), intercepts, Newton iterations per C
    and whether Eq. (19) held to ``tol`` at every C."""

    Cs: np.ndarray
    coefs: np.ndarray
    intercepts: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray


# Column operations on a design that is either a Fortran-ordered dense array or a CSC triple
# (data, indices, indptr); numba compiles each kernel once per kind.

def _col_dot(X, j, v):
    """sum_t x_tj v_t."""


def _col_weighted_square(X, j, w):
    """sum_t w_t x_tj^2 (a diagonal entry of X^T diag(w) X)."""


def _col_move(X, j, delta, w, q, deta):
    """Coordinate j moves by delta: q_t -= w_t x_tj delta, deta_t += x_tj delta."""


@overload(_col_dot)
def _col_dot_impl(X, j, v):
    if isinstance(X, types.Array):
        def dense(X, j, v):
            s = 0.0
            for t in range(X.shape[0]):
                s += X[t, j] * v[t]
            return s
        return dense

    def csc(X, j, v):
        data, indices, indptr = X
        s = 0.0
        for k in range(indptr[j], indptr[j + 1]):
            s += data[k] * v[indices[k]]
        return s
    return csc


@overload(_col_weighted_square)
def _col_weighted_square_impl(X, j, w):
    if isinstance(X, types.Array):
        def dense(X, j, w):
            s = 0.0
            for t in range(X.shape[0]):
                s += w[t] * X[t, j] * X[t, j]
            return s
        return dense

    def csc(X, j, w):
        data, indices, indptr = X
        s = 0.0
        for k in range(indptr[j], indptr[j + 1]):
            s += w[indices[k]] * data[k] * data[k]
        return s
    return csc


@overload(_col_move)
def _col_move_impl(X, j, delta, w, q, deta):
    if isinstance(X, types.Array):
        def dense(X, j, delta, w, q, deta):
            for t in range(X.shape[0]):
                step = X[t, j] * delta
                q[t] -= w[t] * step
                deta[t] += step
        return dense

    def csc(X, j, delta, w, q, deta):
        data, indices, indptr = X
        for k in range(indptr[j], indptr[j + 1]):
            t = indices[k]
            step = data[k] * delta
            q[t] -= w[t] * step
            deta[t] += step
    return csc


@njit(cache=True)
def _softplus_change(eta, mu, h):
    """log(1 + e^{eta + h}) - log(1 + e^{eta}) without cancellation for small h:
    log1p(mu (e^h - 1)) with mu = 1 / (1 + e^{-eta})."""
    if abs(h) < 1.0:
        return np.log1p(mu * np.expm1(h))
    a = eta + h
    new = a + np.log1p(np.exp(-a)) if a > 0 else np.log1p(np.exp(a))
    old = eta + np.log1p(np.exp(-eta)) if eta > 0 else np.log1p(np.exp(eta))
    return new - old


@njit(cache=True)
def _violation(g, theta, lam):
    """|g - lambda sign theta| for theta != 0, max(|g| - lambda, 0) otherwise (Eq. 19)."""
    if theta != 0.0:
        return abs(g - lam * np.sign(theta))
    return max(abs(g) - lam, 0.0)


@njit(cache=True)
def _support_newton(X, S, coef, d, h, s, w, w_sum, lam, q, deta, c, target, on, u, res, z, p, hp, e, we, junk):
    """One orthant-subspace step (Byrd, Chin, Nocedal and Oztoprak, "A family of second-order
    methods for convex l1-regularized optimization", Math. Program. 159, 2016): with the support
    and signs sigma of theta + d fixed, the penalised quadratic model is smooth,
    1/2 u^T H u + (grad + lambda sigma)^T u, H = X_A^T (W - w w^T / sum w) X_A (the intercept
    profiled out as in the sweeps). Conjugate gradients preconditioned by diag H solve it until
    every component of the model's slope is below ``target``; the step goes along u up to the
    first coefficient that would change sign (that one stops at exactly 0), so the model
    decreases (it is convex along the segment and CG's iterate lowers it). Cyclic coordinate
    descent needs about 1 / (1 - rho^2) sweeps where two columns have weighted correlation rho;
    CG resolves such an isolated direction in a few iterations. Updates d, q, deta in place;
    returns the new intercept shift c and the CG iterations used."""
    m = S.size
    for k in range(m):
        v = coef[S[k]] + d[k]
        on[k] = v != 0.0 and h[k] > 0.0
        u[k] = 0.0
        res[k] = _col_dot(X, S[k], q) - c * s[k] - lam * np.sign(v) if on[k] else 0.0
        z[k] = res[k] / h[k] if on[k] else 0.0
        p[k] = z[k]
    rz = np.dot(res, z)
    used = 0
    while used < CG_ITERATIONS and np.abs(res).max() >= target:
        used += 1
        e[:] = 0.0
        for k in range(m):
            if p[k] != 0.0:
                _col_move(X, S[k], p[k], w, junk, e)
        shift = 0.0
        for t in range(e.size):
            shift += w[t] * e[t]
        shift /= w_sum
        for t in range(e.size):
            we[t] = w[t] * (e[t] - shift)
        php = 0.0
        for k in range(m):
            hp[k] = _col_dot(X, S[k], we) if on[k] else 0.0
            php += p[k] * hp[k]
        if php <= 0.0:
            break
        alpha = rz / php
        for k in range(m):
            u[k] += alpha * p[k]
            res[k] -= alpha * hp[k]
            z[k] = res[k] / h[k] if on[k] else 0.0
        rz_new = np.dot(res, z)
        beta = rz_new / rz if rz > 0.0 else 0.0
        rz = rz_new
        for k in range(m):
            p[k] = z[k] + beta * p[k]
    step = 1.0
    for k in range(m):
        v = coef[S[k]] + d[k]
        if u[k] * v < 0.0 and -v / u[k] < step:
            step = -v / u[k]
    for k in range(m):
        if u[k] == 0.0:
            continue
        v = coef[S[k]] + d[k]
        delta = step * u[k]
        if u[k] * v < 0.0 and -v / u[k] <= step:
            delta = -v  # the coefficient reaching zero stops there
        d[k] += delta
        _col_move(X, S[k], delta, w, q, deta)
        c -= s[k] / w_sum * delta
    return c, used


@njit(cache=True)
def _newton_on_set(X, y, lam, coef, intercept, eta, S, tol, max_iter):
    """Proximal Newton iterations on the coordinates ``S`` (others stay zero) until Eq. (19)
    holds on S to ``tol`` (relative to lambda); updates coef, intercept[0] and eta in place.
    Returns (iterations, converged)."""
    n, m = y.size, S.size
    mu = np.empty(n)
    w = np.empty(n)
    r = np.empty(n)
    q = np.empty(n)
    deta = np.empty(n)
    g = np.empty(m)
    h = np.empty(m)
    s = np.empty(m)
    d = np.empty(m)
    cg_on = np.empty(m, dtype=np.bool_)
    cg_u = np.empty(m)
    cg_res = np.empty(m)
    cg_z = np.empty(m)
    cg_p = np.empty(m)
    cg_hp = np.empty(m)
    cg_e = np.empty(n)
    cg_we = np.empty(n)
    cg_junk = np.empty(n)
    for it in range(max_iter):
        for t in range(n):
            mu[t] = 1.0 / (1.0 + np.exp(-eta[t]))
            w[t] = mu[t] * (1.0 - mu[t])
            r[t] = y[t] - mu[t]
        g0 = r.sum()
        worst = abs(g0)
        for k in range(m):
            g[k] = _col_dot(X, S[k], r)
            worst = max(worst, _violation(g[k], coef[S[k]], lam))
        if worst < tol * lam:
            return it, True
        # Coordinate descent on the quadratic model, solved to a precision that follows the
        # current violation (loose far from the optimum, tol near it). The intercept is profiled
        # out: every coordinate step moves it by -(s_j / sum w) delta so that sum_t q_t stays 0,
        # which is coordinate descent on the weighted-centred column x_j - s_j / sum w (better
        # conditioned for uncentred sparse columns). The shift c of all rows is kept as a scalar
        # (q = qs - w c, deta = detas + c) so a sparse column's step touches only its non-zeros.
        inner_tol = 0.1 * max(worst, tol * lam)
        w_sum = w.sum()
        if w_sum <= 0.0:  # every probability saturated: no curvature left to step with
            return it, False
        for k in range(m):
            s[k] = _col_dot(X, S[k], w)
            h[k] = _col_weighted_square(X, S[k], w) - s[k] * s[k] / w_sum
        q[:] = r
        deta[:] = 0.0
        d[:] = 0.0
        c = g0 / w_sum
        full = True  # a sweep over the whole working set; otherwise over the non-zero coefficients
        steady = 0  # sweeps over the non-zero coefficients since the support last changed
        cg_left = CG_BUDGET
        for _ in range(MAX_SWEEPS):
            was_full = full
            largest = 0.0
            changed = False
            for k in range(m):
                j = S[k]
                old = coef[j] + d[k]
                if h[k] <= 0.0 or (not full and old == 0.0):
                    continue
                z = _col_dot(X, j, q) - c * s[k] + h[k] * old
                new = np.sign(z) * max(abs(z) - lam, 0.0) / h[k]
                if new != old:
                    if new == 0.0 or old == 0.0:
                        changed = True
                    d[k] = new - coef[j]
                    _col_move(X, j, new - old, w, q, deta)
                    c -= s[k] / w_sum * (new - old)
                    largest = max(largest, h[k] * abs(new - old))
            if largest < inner_tol:
                if full:
                    break
                full = True
            else:
                full = False
            steady = 0 if was_full or changed else steady + 1
            if steady >= CG_AFTER and cg_left > 0:  # a stable support the sweeps are slow to fit
                steady = 0
                c, used = _support_newton(X, S, coef, d, h, s, w, w_sum, lam, q, deta, c, 0.5 * inner_tol, cg_on,
                                          cg_u, cg_res, cg_z, cg_p, cg_hp, cg_e, cg_we, cg_junk)
                cg_left -= used
        d0 = c
        deta += c
        # Armijo backtracking on F along (d0, d).
        predicted = -g0 * d0
        for k in range(m):
            j = S[k]
            predicted += -g[k] * d[k] + lam * (abs(coef[j] + d[k]) - abs(coef[j]))
        step = 1.0
        for _ in range(60):
            change = 0.0
            for t in range(n):
                change += _softplus_change(eta[t], mu[t], step * deta[t]) - y[t] * step * deta[t]
            for k in range(m):
                j = S[k]
                change += lam * (abs(coef[j] + step * d[k]) - abs(coef[j]))
            if change <= ARMIJO * step * predicted:
                break
            step *= 0.5
        else:
            return it + 1, False
        for k in range(m):
            coef[S[k]] += step * d[k]
        intercept[0] += step * d0
        for t in range(n):
            eta[t] += step * deta[t]
    return max_iter, False


@njit(cache=True)
def _full_gradient(X, y, eta, g):
    """g = X^T (y - mu) over every feature."""
    r = np.empty(y.size)
    for t in range(y.size):
        r[t] = y[t] - 1.0 / (1.0 + np.exp(-eta[t]))
    for j in range(g.size):
        g[j] = _col_dot(X, j, r)


@njit(cache=True)
def _fit_at(X, y, lam, lam_prev, coef, intercept, eta, g, tol, max_iter):
    """Solve at lambda from the current point (the previous lambda's solution, whose likelihood
    slope is ``g``): strong-rule working set, then Eq. (19) checked on every feature until no
    feature outside the working set violates it. Returns (Newton iterations, converged)."""
    p = coef.size
    working = np.zeros(p, dtype=np.bool_)
    for j in range(p):
        working[j] = coef[j] != 0.0 or abs(g[j]) >= 2.0 * lam - lam_prev
    used = 0
    while True:
        its, converged = _newton_on_set(X, y, lam, coef, intercept, eta, np.flatnonzero(working), tol,
                                        max_iter - used)
        used += its
        _full_gradient(X, y, eta, g)
        added = 0
        for j in range(p):
            if not working[j] and abs(g[j]) - lam >= tol * lam:
                working[j] = True
                added += 1
        if added == 0:
            return used, converged
        if used >= max_iter:
            return used, False


def _design(X):
    """The kernels' view of X: a Fortran-ordered float64 array, or a CSC (data, indices, indptr)."""
    if sp.issparse(X):
        X = sp.csc_matrix(X, dtype=np.float64)
        return X.data, X.indices, X.indptr
    return np.asfortranarray(X, dtype=np.float64)


def binary_l1_logistic_path(X, y, Cs, *, tol: float = 1e-6, max_iter: int = 100,
                            on_step: Callable[[int], None] | None = None) -> BinaryL1Path:
    """Eq. (18) at every C of ``Cs`` (sorted increasing: strongest penalty first), each C
    warm-started from the previous one; ``y`` holds 0/1 (or boolean) labels of both kinds.

    ``tol``: the largest relative violation of Eq. (19) accepted (module docstring);
    ``max_iter``: proximal Newton iterations per C (``converged`` is False where they ran out).
    ``on_step(i)`` is called after the i-th C (0-based); an exception it raises ends the path.
    Dense X is used as given (a Fortran-ordered copy if it is not one); sparse X in CSC form,
    never densified.
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    if y.size != X.shape[0]:
        raise ValueError(f"y has {y.size} labels but X has {X.shape[0]} rows")
    if not np.all((y == 0.0) | (y == 1.0)):
        raise ValueError("y must hold 0/1 labels (one binary problem; one-vs-rest for more classes)")
    ybar = y.mean()
    if ybar in (0.0, 1.0):
        raise ValueError("y holds a single class: the unpenalised intercept has no finite optimum")
    Cs = np.asarray(Cs, dtype=np.float64)
    if Cs.ndim != 1 or Cs.size == 0 or np.any(Cs <= 0) or np.any(np.diff(Cs) < 0):
        raise ValueError("Cs must be positive values sorted increasing (strongest penalty first)")
    design = _design(X)
    n, p = X.shape
    coef = np.zeros(p)
    intercept = np.array([np.log(ybar / (1.0 - ybar))])
    eta = np.full(n, intercept[0])
    g = np.empty(p)
    _full_gradient(design, y, eta, g)
    lam_prev = float(np.abs(g).max(initial=0.0))  # the empty model is optimal for every lambda above
    coefs = np.zeros((Cs.size, p))
    intercepts = np.zeros(Cs.size)
    n_iter = np.zeros(Cs.size, dtype=np.int64)
    converged = np.zeros(Cs.size, dtype=bool)
    for i, C in enumerate(Cs):
        lam = 1.0 / C
        n_iter[i], converged[i] = _fit_at(design, y, lam, lam_prev, coef, intercept, eta, g, tol, max_iter)
        coefs[i] = coef
        intercepts[i] = intercept[0]
        lam_prev = lam
        if on_step is not None:
            on_step(i)
    return BinaryL1Path(Cs, coefs, intercepts, n_iter, converged)
