"""Exact references for the RTM by tensor quadrature (tiny problems: d <= 3 tags).

Everything here integrates the RTM likelihood in its product form, Eq. (RTM) of :mod:`.model`,
over theta on a tensor grid in logit coordinates, l_j = logit theta_j, where Beta-shaped
densities sigmoid(l)^a sigmoid(-l)^b are smooth with exponential tails. Nothing is shared with
the approximate methods (no mixture formula, no Gaussian reduction, no digamma system), so the
tests can compare against it.

The grid per dimension is Gauss-Legendre on a range found in two stages: a coarse pass over
l in [-40, 40] locates where each marginal has mass above 1e-16 of its peak, then a fine pass
integrates over that range.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaln, expit, log_expit, logsumexp

#: coarse-pass nodes per dimension over l in [-40, 40], by number of dimensions
_COARSE = {1: 401, 2: 161, 3: 61}
_WIDE = 40.0
#: fine-pass nodes per dimension, by number of dimensions
FINE = {1: 400, 2: 150, 3: 90}
_CHUNK = 100_000


def _grid(lo: np.ndarray, hi: np.ndarray, n: int) -> np.ndarray:
    """Tensor grid (n^d, d) of Gauss-Legendre nodes on prod [lo_j, hi_j] and its log weights."""
    x, w = np.polynomial.legendre.leggauss(n)
    mids, rads = 0.5 * (lo + hi), 0.5 * (hi - lo)
    axes = [m + r * x for m, r in zip(mids, rads)]
    logw = [np.log(r * w) for r in rads]
    pts = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
    lw = sum(g.ravel() for g in np.meshgrid(*logw, indexing="ij"))
    return pts, lw, axes


def _evaluate(log_density, pts: np.ndarray) -> np.ndarray:
    return np.concatenate([log_density(pts[k:k + _CHUNK]) for k in range(0, len(pts), _CHUNK)])


def _integrate(log_density, d: int):
    """Nodes (logit space), normalised weights and log normaliser of exp(log_density(l))."""
    n = _COARSE[d]
    pts, lw, axes = _grid(np.full(d, -_WIDE), np.full(d, _WIDE), n)
    logp = (_evaluate(log_density, pts) + lw).reshape((n,) * d)
    lo, hi = np.empty(d), np.empty(d)
    for j in range(d):
        marg = logsumexp(logp, axis=tuple(k for k in range(d) if k != j))
        keep = np.flatnonzero(marg > marg.max() - 37.0)
        lo[j] = axes[j][max(keep[0] - 1, 0)] - 1.0
        hi[j] = axes[j][min(keep[-1] + 1, n - 1)] + 1.0
    pts, lw, _ = _grid(lo, hi, FINE[d])
    logp = _evaluate(log_density, pts) + lw
    log_z = logsumexp(logp)
    return pts, np.exp(logp - log_z), log_z


def _log_beta_in_logit(x, a, b):
    """log of sigmoid(x)^a sigmoid(-x)^b (Beta(a, b) density in logit space, unnormalised)."""
    return a * log_expit(x) + b * log_expit(-x)


def _log_lik_from_logit(pts, X, y01):
    theta = expit(pts)
    theta = np.clip(theta, 1e-300, 1 - 1e-16)
    t = np.log(theta) @ X.T
    f = np.log1p(-theta) @ X.T
    norm = np.logaddexp(t, f)
    return np.sum(np.where(np.asarray(y01) == 1, t, f) - norm, axis=1)


def exact_posterior(X: np.ndarray, y01: np.ndarray, alpha) -> dict:
    """Posterior of theta under Beta(alpha_j, alpha_j) priors: means, sds, log evidence.

    Returns ``{"mean", "sd", "log_evidence"}``; ``log_evidence`` is log p(c | X, alpha).
    """
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    if d > 3:
        raise ValueError("exact quadrature is for d <= 3 tags")
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (d,))

    def log_density(pts):
        prior = sum(_log_beta_in_logit(pts[:, j], alpha[j], alpha[j]) - betaln(alpha[j], alpha[j])
                    for j in range(d))
        return prior + _log_lik_from_logit(pts, X, y01)

    pts, w, log_z = _integrate(log_density, d)
    theta = expit(pts)
    mean = w @ theta
    sd = np.sqrt(np.maximum(w @ theta**2 - mean**2, 0.0))
    return {"mean": mean, "sd": sd, "log_evidence": log_z}


def tilted_log_moments(A, B, c: int, power: int) -> dict:
    """Moments of the tilted distribution q^{\\i}(theta) t(theta)^power for one object that carries
    every one of the d <= 3 tags, with cavity prod_j Beta(A_j, B_j) and class c.

    Returns ``{"elog": E[log theta], "elog1m": E[log(1 - theta)], "log_z": log int q t^power}``
    (q normalised), computed by tensor quadrature of the product-form likelihood.
    """
    A = np.atleast_1d(np.asarray(A, dtype=np.float64))
    B = np.atleast_1d(np.asarray(B, dtype=np.float64))
    d = A.size
    X = np.ones((1, d))

    def log_density(pts):
        cav = sum(_log_beta_in_logit(pts[:, j], A[j], B[j]) - betaln(A[j], B[j]) for j in range(d))
        return cav + power * _log_lik_from_logit(pts, X, [c])

    pts, w, log_z = _integrate(log_density, d)
    return {"elog": w @ log_expit(pts), "elog1m": w @ log_expit(-pts), "log_z": log_z}
