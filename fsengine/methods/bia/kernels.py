"""numba kernels of the Bayesian Ising Approximation (see :mod:`fsengine.methods.bia.model` for the math).

Conventions: ``J`` is symmetric with a zero diagonal and every pair counted once in the energy
``E(s) = h.s + sum_{i<j} J_ij s_i s_j``; couplings scale as ``J(eps) = (eps / eps_ref)^2 J_ref``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def rms_offdiag_correlation(G, n):
    """r = sqrt(mean_{i != j} (G_ij / n)^2) for a standardised Gram G = n Corr."""
    p = G.shape[0]
    if p < 2:
        return 0.0
    acc = 0.0
    for i in range(p):
        for j in range(p):
            if i != j:
                c = G[i, j] / n
                acc += c * c
    return np.sqrt(acc / (p * (p - 1.0)))


@njit(cache=True, fastmath=True)
def _matvec(J, m, out):
    """out = J m, row by row (contiguous rows; fastmath lets the sums vectorise). A plain loop
    beats a call into a multi-threaded BLAS on a shared 2-core machine for these sizes."""
    p = m.size
    for i in range(p):
        acc = 0.0
        for j in range(p):
            acc += J[i, j] * m[j]
        out[i] = acc


@njit(cache=True)
def ising_from_gram_inplace(G, b, curvature, eps_ref):
    """Turn the Gram G (p x p) into the couplings J_ref in place; return (alpha, beta).

    With H = -curvature * G (Eq. 27-28) and K_ij = (H_ij^2 + 2 b_i H_ij b_j) / 8:
    ``alpha_i = (H_ii + b_i^2) / 4``, ``beta_i = sum_j K_ij`` (j = i included) and
    ``J_ref_ij = eps_ref^2 K_ij`` for i != j, ``J_ref_ii = 0``. One pass, no temporaries.
    """
    p = G.shape[0]
    alpha = np.empty(p)
    beta = np.zeros(p)
    e2 = eps_ref * eps_ref
    for i in range(p):
        Hii = -curvature * G[i, i]
        alpha[i] = 0.25 * (Hii + b[i] * b[i])
    for i in range(p):
        bi = b[i]
        acc = 0.0
        for j in range(p):
            Hij = -curvature * G[i, j]
            k = 0.125 * (Hij * Hij + 2.0 * bi * Hij * b[j])
            acc += k
            G[i, j] = 0.0 if i == j else e2 * k
        beta[i] = acc
    return alpha, beta


@njit(cache=True)
def mean_field_path(alpha, beta, J_ref, eps_ref, eps_grid, m0):
    """The recursive mean-field path (Fisher & Mehta, equation after Eq. 13), from ``m0``
    (``m(0) = 0`` at the start of the path; the last row of a previous block to continue it):

    ``m(eps_k) = tanh(eps_k alpha + eps_k^2 beta + (eps_k / eps_ref)^2 J_ref m(eps_{k-1}))``.

    Returns ``M`` (n_steps, p) and ``max |m(eps_k) - m(eps_{k-1})|`` per step. One matrix-vector
    product per step; a path run in blocks equals the path run at once, bit for bit.
    """
    n_steps = eps_grid.size
    p = alpha.size
    M = np.empty((n_steps, p))
    max_dm = np.empty(n_steps)
    m = m0.copy()
    u = np.empty(p)
    for k in range(n_steps):
        eps = eps_grid[k]
        scale = (eps / eps_ref) ** 2
        _matvec(J_ref, m, u)
        dm = 0.0
        for i in range(p):
            new = np.tanh(eps * alpha[i] + eps * eps * beta[i] + scale * u[i])
            d = abs(new - m[i])
            if d > dm:
                dm = d
            M[k, i] = new
        m = M[k].copy()
        max_dm[k] = dm
    return M, max_dm


@njit(cache=True)
def damped_mean_field(h, J, scale, m0, damping, tol, max_iter):
    """Solve ``m = tanh(h + scale * J m)`` by damped iteration ``m <- (1-d) m + d tanh(...)``.

    Returns ``(m, n_iter, residual)`` with residual = max |m - tanh(h + scale J m)| at exit.
    """
    m = m0.copy()
    p = m.size
    residual = np.inf
    it = 0
    u = np.empty(p)
    while it < max_iter:
        _matvec(J, m, u)
        residual = 0.0
        for i in range(p):
            target = np.tanh(h[i] + scale * u[i])
            d = abs(target - m[i])
            if d > residual:
                residual = d
            m[i] = (1.0 - damping) * m[i] + damping * target
        it += 1
        if residual < tol:
            break
    return m, it, residual
