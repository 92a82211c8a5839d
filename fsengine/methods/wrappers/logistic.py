"""Binary L2 logistic regression by Newton's method in numba, and the cross-validated scores of
every candidate of a forward-selection step in one call (the hot spot of
:func:`fsengine.methods.wrappers.sequential.forward_selection`: thousands of small fits, each of
which cost scikit-learn more in validation, cloning and scoring than in its solver).

The objective is scikit-learn's ``LogisticRegression`` (L2 penalty, unpenalised intercept b), in
the scaling of its ``LinearModelLoss`` (sklearn/linear_model/_logistic.py: the penalty is divided
by C n so that the tolerance means the same on any n):

    L(w, b) = (1/n) sum_i [ log(1 + exp(z_i)) - y_i z_i ] + 1/(2 C n) ||w||^2,    z_i = x_i.w + b,  y_i in {0, 1},

the same minimiser as C sum_i loss_i + ||w||^2 / 2. With p_i = expit(z_i) and the design row
(x_i, 1), the gradient and Hessian are

    g = (1/n) sum_i (p_i - y_i) (x_i, 1) + (w, 0) / (C n),
    H = (1/n) sum_i p_i (1 - p_i) (x_i, 1)(x_i, 1)^T + diag(1, ..., 1, 0) / (C n),

and every iteration solves H d = -g by Cholesky and steps along d, as scikit-learn's
``NewtonCholeskySolver`` does (sklearn/linear_model/_glm/_newton_solver.py): the same backtracking
line search (Armijo with sigma = 2^-11, halving the step at most 20 times, a loss change within
16 eps of the loss accepted when sum |g| falls) and the same convergence test after every step,
max |g| <= tol and the Newton decrement d^T H d / 2 <= tol (Boyd & Vandenberghe, Convex
Optimization, 2004, sec. 9.5.1). L is strictly convex (the intercept's curvature sum_i p_i (1 - p_i)
/ n is positive), so both solvers approach the one minimiser; at a tight ``tol`` they agree to
rounding (tested against scikit-learn's coefficients).

Scores on a test fold, as :data:`fsengine.methods.wrappers.sequential.FAST_SCORERS` compute them
from scikit-learn's ``predict_proba`` (P(y = 1) = expit(z), P(y = 0) = 1 - expit(z)) and
``predict`` (class 1 where z > 0):

    neg_log_loss = -(1/n) sum_i -log clip(P(y_i), eps, 1 - eps),    accuracy = (1/n) sum_i [ (z_i > 0) = y_i ].
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: the scorers the kernel computes (codes of ``scoring``)
NEG_LOG_LOSS, ACCURACY = 0, 1
#: scikit-learn's line search: sufficient decrease sigma, halving, most step sizes (t = 1 .. 2^-20)
_SIGMA, _HALVINGS = 0.00048828125, 21
_EPS = np.finfo(np.float64).eps


@njit(cache=True)
def _expit(z):  # pragma: no cover - numba
    """scipy.special.expit's formula, 1 / (1 + exp(-z))."""
    return 1.0 / (1.0 + np.exp(-z))


@njit(cache=True)
def _pointwise_loss_gradient(y, z):  # pragma: no cover - numba
    """(log(1 + exp(z)) - y z, expit(z) - y) without overflow or cancellation: scikit-learn's
    ``closs_grad_half_binomial`` (sklearn/_loss/_loss.pyx.tp), case by case."""
    if z <= -37.0:
        e = np.exp(z)
        return e - y * z, e - y
    if z <= -2.0:
        e = np.exp(z)
        return np.log1p(e) - y * z, ((1.0 - y) * e - y) / (1.0 + e)
    e = np.exp(-z)
    gradient = ((1.0 - y) - y * e) / (1.0 + e)
    if z <= 18.0:
        return np.log1p(e) + (1.0 - y) * z, gradient
    return e + (1.0 - y) * z, gradient


@njit(cache=True)
def _pointwise_hessian(z):  # pragma: no cover - numba
    """expit(z) (1 - expit(z)) = exp(-z) / (1 + exp(-z))^2 (exp(z) below z = -37), as scikit-learn's
    ``cgrad_hess_half_binomial``."""
    if z <= -37.0:
        return np.exp(z)
    e = np.exp(-z)
    return e / (1.0 + e) ** 2


@njit(cache=True)
def _loss_gradient(Z, y, w, C, gradient):  # pragma: no cover - numba
    """L(w) of the module docstring (the last column of Z is the intercept's ones, unpenalised);
    its gradient is written into ``gradient``. The losses are summed with Neumaier's compensation:
    the line search compares L to 16 eps |L|, which a plain running sum of n terms misses by about
    sqrt(n) eps |L| (scikit-learn's numpy sum is pairwise); without it, 23 of the 1,065 fits of a
    selection on the movie reviews stalled at max |g| ~ 3e-9."""
    n, m = Z.shape
    loss, compensation = 0.0, 0.0
    gradient[:] = 0.0
    for i in range(n):
        z = 0.0
        for k in range(m):
            z += Z[i, k] * w[k]
        loss_i, r = _pointwise_loss_gradient(y[i], z)
        total = loss + loss_i
        if abs(loss) >= abs(loss_i):
            compensation += (loss - total) + loss_i
        else:
            compensation += (loss_i - total) + loss
        loss = total
        for k in range(m):
            gradient[k] += r * Z[i, k]
    penalty = 1.0 / (C * n)
    loss = (loss + compensation) / n
    for k in range(m):
        gradient[k] /= n
    for k in range(m - 1):
        loss += 0.5 * penalty * w[k] * w[k]
        gradient[k] += penalty * w[k]
    return loss


@njit(cache=True)
def _hessian(Z, w, C, H):  # pragma: no cover - numba
    """H of the module docstring, lower triangle, into ``H``."""
    n, m = Z.shape
    H[:] = 0.0
    for i in range(n):
        z = 0.0
        for k in range(m):
            z += Z[i, k] * w[k]
        v = _pointwise_hessian(z)
        for k in range(m):
            a = v * Z[i, k]
            for j in range(k + 1):
                H[k, j] += a * Z[i, j]
    penalty = 1.0 / (C * n)
    for k in range(m):
        for j in range(k + 1):
            H[k, j] /= n
    for k in range(m - 1):
        H[k, k] += penalty


@njit(cache=True)
def _cholesky_solve(H, rhs, out):  # pragma: no cover - numba
    """Solve H out = rhs by Cholesky, H = R R^T (its lower triangle, overwritten by R); ``out`` may
    be ``rhs`` (row i of the forward pass reads rhs[i] before it writes out[i]). False when H is not
    numerically positive definite."""
    m = rhs.size
    for j in range(m):
        s = H[j, j]
        for k in range(j):
            s -= H[j, k] * H[j, k]
        if not s > 0.0:
            return False
        H[j, j] = np.sqrt(s)
        for i in range(j + 1, m):
            s = H[i, j]
            for k in range(j):
                s -= H[i, k] * H[j, k]
            H[i, j] = s / H[j, j]
    for i in range(m):  # R u = rhs
        s = rhs[i]
        for k in range(i):
            s -= H[i, k] * out[k]
        out[i] = s / H[i, i]
    for i in range(m - 1, -1, -1):  # R^T out = u
        s = out[i]
        for k in range(i + 1, m):
            s -= H[k, i] * out[k]
        out[i] = s / H[i, i]
    return True


@njit(cache=True)
def _sum_abs(v):  # pragma: no cover - numba
    """sum |v_k| (a loop: numba compiles numpy's array expressions much more slowly)."""
    total = 0.0
    for x in v:
        total += abs(x)
    return total


@njit(cache=True)
def _max_abs(v):  # pragma: no cover - numba
    """max |v_k|."""
    largest = 0.0
    for x in v:
        largest = max(largest, abs(x))
    return largest


@njit(cache=True)
def newton_logistic(Z, y, C, tol, max_iter, w):  # pragma: no cover - numba
    """Minimise L (module docstring) from ``w`` (overwritten by the solution). ``Z`` (n, m + 1): the
    m features, then a column of ones (the intercept, last in ``w``); ``y`` in {0, 1}. Returns
    (iterations, converged); not converged: ``max_iter`` reached, H not positive definite, or no
    step size passed the line search (scikit-learn then falls back to L-BFGS)."""
    m = w.size
    g, g_new, d, w_new = np.empty(m), np.empty(m), np.empty(m), np.empty(m)
    H = np.empty((m, m))
    loss = _loss_gradient(Z, y, w, C, g)
    for iteration in range(1, max_iter + 1):
        _hessian(Z, w, C, H)
        Hd = H.copy()  # the decrement needs H after the factorisation overwrote it
        for k in range(m):
            d[k] = -g[k]
        if not _cholesky_solve(H, d, d):
            return iteration, False
        slope = 0.0
        for k in range(m):
            slope += g[k] * d[k]
        sum_abs_g = _sum_abs(g)
        t = 1.0
        accepted = False
        for _ in range(_HALVINGS):
            for k in range(m):
                w_new[k] = w[k] + t * d[k]
            loss_new = _loss_gradient(Z, y, w_new, C, g_new)
            change = loss_new - loss
            if change <= t * _SIGMA * slope or (
                    abs(change) <= abs(loss * 16.0 * _EPS) and _sum_abs(g_new) < sum_abs_g):
                accepted = True
                break
            t *= 0.5
        if not accepted:
            return iteration, False
        w[:] = w_new
        g[:] = g_new
        loss = loss_new
        decrement = 0.0  # d^T H d from the lower triangle
        for k in range(m):
            decrement += Hd[k, k] * d[k] * d[k]
            for j in range(k):
                decrement += 2.0 * Hd[k, j] * d[k] * d[j]
        if _max_abs(g) <= tol and 0.5 * decrement <= tol:
            return iteration, True
    return max_iter, False


@njit(cache=True)
def _fold_score(T, y, w, scoring):  # pragma: no cover - numba
    """neg_log_loss or accuracy (module docstring) of coefficients ``w`` on a test fold."""
    n, m = T.shape
    total = 0.0
    for i in range(n):
        z = 0.0
        for k in range(m):
            z += T[i, k] * w[k]
        if scoring == NEG_LOG_LOSS:
            p1 = _expit(z)
            p_true = p1 if y[i] == 1.0 else 1.0 - p1
            total += -np.log(min(max(p_true, _EPS), 1.0 - _EPS))
        else:
            total += 1.0 if (z > 0.0) == (y[i] == 1.0) else 0.0
    return -total / n if scoring == NEG_LOG_LOSS else total / n


@njit(cache=True)
def candidate_fold_scores(train, train_y, train_start, test, test_y, test_start, chosen, batch, C, scoring,
                          tol, max_iter):  # pragma: no cover - numba
    """The score on every fold of the logistic regression on columns ``chosen`` + [c], for every
    candidate column c of ``batch``.

    ``train`` (sum of the training folds' rows, q) holds the training folds one after the other,
    fold f in rows ``train_start[f]:train_start[f + 1]``; ``test`` likewise; labels in {0, 1}.
    Returns (scores, converged), both (``batch.size``, K); a fit that did not converge
    (:func:`newton_logistic`) has its score computed all the same and converged False.
    """
    n_folds = train_start.size - 1
    m = chosen.size + 2  # the chosen columns, the candidate, the intercept
    scores = np.empty((batch.size, n_folds))
    converged = np.empty((batch.size, n_folds), dtype=np.bool_)
    w = np.empty(m)
    for f in range(n_folds):
        a, b = train_start[f], train_start[f + 1]
        u, v = test_start[f], test_start[f + 1]
        Z = np.ones((b - a, m))
        T = np.ones((v - u, m))
        for k in range(chosen.size):
            Z[:, k] = train[a:b, chosen[k]]
            T[:, k] = test[u:v, chosen[k]]
        for i in range(batch.size):
            Z[:, m - 2] = train[a:b, batch[i]]
            T[:, m - 2] = test[u:v, batch[i]]
            w[:] = 0.0
            converged[i, f] = newton_logistic(Z, train_y[a:b], C, tol, max_iter, w)[1]
            scores[i, f] = _fold_score(T, test_y[u:v], w, scoring)
    return scores, converged
