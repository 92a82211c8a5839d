"""Exact evidence of Bayesian linear regression with a Gaussian prior, for every feature subset.

Model (the one the BIA approximates, on standardised features ``z`` and centred ``y``):

    y - mean(y) = Z_S theta_S + noise,   noise ~ N(0, sigma^2 I),   theta_S ~ N(0, I / Lambda),

with ``sigma^2 = Var[y]`` by default. The evidence is Gaussian and has the closed form of
Bishop, *PRML* Eq. (3.86) (``alpha = Lambda``, ``beta = 1 / sigma^2``):

    log p(y | S) = M/2 log Lambda + n/2 log beta - E(m_N) - 1/2 log|A| - n/2 log 2 pi,
    A = Lambda I + beta Z_S'Z_S,   m_N = beta A^{-1} Z_S'y,
    E(m_N) = beta/2 |y - Z_S m_N|^2 + Lambda/2 |m_N|^2.

Relative to the empty model (``log p(y | {}) = n/2 log beta - beta/2 |y|^2 - n/2 log 2 pi``)
the constants cancel. All subsets of one size are handled in one batched eigendecomposition
``Z_S'Z_S = U diag(d) U'``, after which every Lambda costs O(M) per subset. This code is
independent of the BIA: no expansion in 1/Lambda, no Ising model, no mean field.
"""

from __future__ import annotations

import numpy as np

from fsengine.references.subsets import inclusion_probabilities, subset_masks


def _standardised(X, y):
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64).ravel()
    std = X.std(axis=0)
    if np.any(std == 0):
        raise ValueError(f"constant feature(s) {np.flatnonzero(std == 0).tolist()} cannot be standardised")
    return (X - X.mean(axis=0)) / std, y - y.mean()


def linear_log_evidence(X, y, lambdas, dispersion: float | None = None):
    """log p(y|S) - log p(y|{}) for every subset S and every Lambda.

    Returns ``(masks (2^p, p), log_evidence (len(lambdas), 2^p))``.
    """
    Z, yc = _standardised(X, y)
    p = Z.shape[1]
    sigma2 = float(np.var(yc)) if dispersion is None else float(dispersion)
    beta = 1.0 / sigma2
    lambdas = np.atleast_1d(np.asarray(lambdas, dtype=np.float64))
    masks = subset_masks(p)
    G = Z.T @ Z
    c = Z.T @ yc
    yy = float(yc @ yc)
    sizes = masks.sum(axis=1)
    out = np.zeros((lambdas.size, masks.shape[0]))
    lam = lambdas[:, None, None]  # (L, 1, 1) broadcast over (subsets, M)
    for M in range(1, p + 1):
        rows = np.flatnonzero(sizes == M)
        idx = np.nonzero(masks[rows])[1].reshape(rows.size, M)
        d, U = np.linalg.eigh(G[idx[:, :, None], idx[:, None, :]])
        d = np.maximum(d, 0.0)
        q = np.einsum("smk,sm->sk", U, c[idx])  # U' Z_S'y per subset
        a = lam + beta * d[None]  # eigenvalues of A, shape (L, S, M)
        coef = beta * q[None] / a  # m_N in the eigenbasis
        resid = yy - 2.0 * np.sum(coef * q[None], axis=2) + np.sum(coef**2 * d[None], axis=2)
        energy = 0.5 * beta * resid + 0.5 * lambdas[:, None] * np.sum(coef**2, axis=2)
        out[:, rows] = (0.5 * M * np.log(lambdas)[:, None] - 0.5 * np.sum(np.log(a), axis=2)
                        - energy + 0.5 * beta * yy)
    return masks, out


def linear_inclusion_probabilities(X, y, lambdas, dispersion: float | None = None) -> np.ndarray:
    """Exact p(s_j = 1 | y) for every Lambda (shape (len(lambdas), p)), uniform prior on subsets."""
    masks, log_ev = linear_log_evidence(X, y, lambdas, dispersion)
    return inclusion_probabilities(log_ev, masks)
