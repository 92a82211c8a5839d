"""Laplace evidence of a whole conditional-maxent model (Daume III Eq. 5-7, 9), without the
mean-field and diagonal shortcuts of Eq. (10)-(12): the reference the page and the tests hold the
approximate Bayes factors against on small models."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..maxent import MapObjective, MaxentData, fit_map


@dataclass(frozen=True)
class LaplaceEvidence:
    """log p(D | M) ~ log q(lambda^0) + K/2 log(2 pi) - 1/2 log det A (Eq. 7 / 9), its parts."""

    log_evidence: float
    log_likelihood: float
    log_prior: float
    log_det: float
    weights: np.ndarray


def laplace_log_evidence(data: MaxentData, predicates, classes, *, prior_variance=1.0,
                         tol: float = 1e-10) -> LaplaceEvidence:
    """Eq. (9) for the model with the given (predicate, class) features, every weight penalised.

    q(lambda) = pi(lambda) p(D | lambda) with the normalised prior pi = prod_k N(0, sigma_k^2);
    lambda^0 = argmax q (L-BFGS); A = -Hessian of log q at lambda^0 (exact, dense).
    """
    pred = np.asarray(predicates, dtype=np.int64).ravel()
    var = np.broadcast_to(np.asarray(prior_variance, dtype=np.float64), pred.shape)
    if not np.all(np.isfinite(var)) or np.any(var <= 0):
        raise ValueError("laplace_log_evidence needs a proper prior: every prior_variance finite "
                         "and positive")
    fit = fit_map(data, pred, classes, prior_variance=var, tol=tol)
    w = fit.model.weights
    A = MapObjective(data, pred, classes, var).hessian(w)
    sign, log_det = np.linalg.slogdet(A)
    if sign <= 0:
        raise ValueError("the Hessian at the MAP is not positive definite")
    log_prior = float(np.sum(-0.5 * w * w / var - 0.5 * np.log(2 * np.pi * var)))
    k = pred.size
    log_ev = fit.log_likelihood + log_prior + 0.5 * k * np.log(2 * np.pi) - 0.5 * log_det
    return LaplaceEvidence(float(log_ev), float(fit.log_likelihood), log_prior, float(log_det), w)
