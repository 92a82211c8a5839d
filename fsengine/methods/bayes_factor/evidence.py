"""Laplace evidence of a whole conditional-maxent model (Daume III Eq. 5-7, 9), without the
mean-field and diagonal shortcuts of Eq. (10)-(12): the reference the page and the tests hold the
approximate Bayes factors against on small models (:func:`full_laplace_margins`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fsengine.maxent import MapObjective, MaxentData, MaxentState, fit_map
from fsengine.methods.bayes_factor.model import add_bias_column, bias_features, score_candidates


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


def full_laplace_margins(X, y, n_classes: int, active_pred, active_cls, cand_pred, cand_cls, *,
                         prior_variance: float = 1.0, bias_variance: float = 100.0,
                         progress=None) -> pd.DataFrame:
    """Mean-field Eq. (12) margins against the full Laplace Bayes factor for a few candidates.

    Model M: a bias (classes 1..Y-1, prior variance ``bias_variance``: the evidence needs a proper
    prior) plus the active (column, class) pairs, prior variance ``prior_variance``. For each
    candidate g, ``mean_field`` is beta_g - beta_0 of :func:`fsengine.methods.bayes_factor.model.
    score_candidates` (others fixed at the MAP, diagonal curvature) and ``full_laplace`` is
    log p(D | M + g) - log p(D | M) with every weight re-fitted and the full Hessian (Eq. 9);
    ``mean_field_printed`` is the margin with Eq. (12)'s printed sign (+ log a_g). Returns a
    DataFrame (candidate, full_laplace, mean_field, mean_field_printed, difference).
    ``progress(fraction, message)`` is called before each candidate.
    """
    Xb = add_bias_column(X)
    data = MaxentData(Xb, y, n_classes)
    bp, bc, _ = bias_features(Xb.shape[1] - 1, n_classes)
    pred = np.r_[bp, np.asarray(active_pred, np.int64)]
    cls = np.r_[bc, np.asarray(active_cls, np.int64)]
    var = np.r_[np.full(bp.size, bias_variance), np.full(pred.size - bp.size, prior_variance)]
    base = laplace_log_evidence(data, pred, cls, prior_variance=var, tol=1e-8)
    state = MaxentState.from_weights(data, pred, cls, base.weights)
    cand_pred = np.asarray(cand_pred, np.int64)
    cand_cls = np.asarray(cand_cls, np.int64)
    scored = score_candidates(state, cand_pred, cand_cls, prior_variance)
    full = []
    for t, (j, c) in enumerate(zip(cand_pred, cand_cls)):
        if progress is not None:
            progress(t / cand_pred.size, f"full Laplace evidence of candidate {t + 1} of {cand_pred.size}")
        full.append(laplace_log_evidence(data, np.r_[pred, j], np.r_[cls, c],
                                         prior_variance=np.r_[var, prior_variance],
                                         tol=1e-8).log_evidence - base.log_evidence)
    return pd.DataFrame({"candidate": np.arange(cand_pred.size), "full_laplace": full,
                         "mean_field": scored.margin,
                         "mean_field_printed": scored.margin + np.log(scored.curvature),
                         "difference": scored.margin - np.asarray(full)})
