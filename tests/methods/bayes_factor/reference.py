"""Independent references for the Bayes-factor tests: a maxent log-likelihood written out with
numpy (not :mod:`fsengine.maxent`), numerical integrals of the posterior (scipy quad / dblquad),
finite-difference Hessians and a small task with known structure."""

import numpy as np
import scipy.sparse as sp
from scipy import integrate

from fsengine.maxent import MaxentData, MaxentState, fit_map


def loglik(Xd, y, pred, cls, w, n_classes):
    """sum_i log p(y_i | x_i) of a maxent model, directly (independent of fsengine.maxent)."""
    S = np.zeros((Xd.shape[0], n_classes))
    for j, c, wk in zip(pred, cls, w):
        S[:, c] += wk * Xd[:, j]
    m = S.max(1)
    return float(np.sum(S[np.arange(len(y)), y] - m - np.log(np.exp(S - m[:, None]).sum(1))))


def binary_task(n, seed):
    rng = np.random.default_rng(seed)
    Xd = np.c_[np.ones(n), (rng.random(n) < 0.4).astype(float), rng.normal(size=n)]
    logit = -0.3 + 1.2 * Xd[:, 1] + 0.5 * Xd[:, 2]
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return Xd, y


def log_integral_1d(logf, centre, scale):
    m = logf(centre)
    Z, _ = integrate.quad(lambda w: np.exp(logf(w) - m), centre - 12 * scale, centre + 12 * scale,
                          points=[centre], epsabs=1e-13, epsrel=1e-11, limit=200)
    return m + np.log(Z)


def log_integral_2d(logf, centre, scale):
    m = logf(*centre)
    Z, _ = integrate.dblquad(lambda b, a: np.exp(logf(a, b) - m),
                             centre[0] - 10 * scale[0], centre[0] + 10 * scale[0],
                             centre[1] - 10 * scale[1], centre[1] + 10 * scale[1],
                             epsabs=1e-11, epsrel=1e-9)
    return m + np.log(Z)


def hessian_2d(f, x, h=1e-4):
    H = np.empty((2, 2))
    for i in range(2):
        for j in range(2):
            e_i, e_j = np.eye(2)[i] * h, np.eye(2)[j] * h
            H[i, j] = -(f(*(x + e_i + e_j)) - f(*(x + e_i - e_j)) - f(*(x - e_i + e_j))
                        + f(*(x - e_i - e_j))) / (4 * h * h)
    return H


def three_class_task(n=600, seed=3):
    """Bias-only model lambda^0 and candidates on a 3-class problem with disjoint predicates 0, 1
    (rows split in halves), a copy of predicate 0 (column 2) and a noise column 3."""
    rng = np.random.default_rng(seed)
    Xd = np.zeros((n, 5))
    half = rng.permutation(n)
    Xd[half[: n // 2], 0] = rng.random(n // 2) < 0.5
    Xd[half[n // 2:], 1] = rng.random(n - n // 2) < 0.5
    Xd[:, 2] = Xd[:, 0]
    Xd[:, 3] = rng.random(n) < 0.3
    Xd[:, 4] = 1.0  # bias
    S = np.outer(Xd[:, 0], [0.0, 1.4, 0.0]) + np.outer(Xd[:, 1], [0.0, 0.0, 1.3])
    p = np.exp(S)
    p /= p.sum(1, keepdims=True)
    y = (p.cumsum(1) > rng.random((n, 1))).argmax(1)
    data = MaxentData(sp.csr_matrix(Xd), y, 3)
    bias_pred, bias_cls = [4, 4], [1, 2]
    fit = fit_map(data, bias_pred, bias_cls, prior_variance=np.inf, tol=1e-10)
    state = MaxentState.from_weights(data, bias_pred, bias_cls, fit.model.weights)
    return Xd, y, data, state, (bias_pred, bias_cls, fit.model.weights)
