"""Per-tag relevance from the approximate posterior: the Bayes factor against theta_j = 0.5.

Savage-Dickey: the nested model "theta_j = 0.5" (tag j ignored, as at alpha_j = inf) against the
full model with prior Beta(alpha_j, alpha_j) has Bayes factor p(theta_j = 0.5 | data) /
p(theta_j = 0.5), so the log evidence in favour of tag j is

    log BF_j = log Beta(0.5 | alpha_j, alpha_j) - log Beta(0.5 | A_j, B_j)
             = (A_j + B_j - 2 alpha_j) log 2 + log B(A_j, B_j) - log B(alpha_j, alpha_j),

evaluated with the approximate marginal q_j = Beta(A_j, B_j). In the reference run this score
ranked relevant tags best (ROC against the known relevant set).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special, stats


def log_bayes_factor(A: np.ndarray, B: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """log BF_j of "theta_j free" against "theta_j = 0.5" (Savage-Dickey with q_j)."""
    A, B, alpha = (np.asarray(v, dtype=np.float64) for v in (A, B, alpha))
    return ((A + B - 2.0 * alpha) * np.log(2.0) + special.betaln(A, B)
            - special.betaln(alpha, alpha))


def posterior_summary(A: np.ndarray, B: np.ndarray, level: float = 0.9) -> dict[str, np.ndarray]:
    """Mean, standard deviation and central credible interval of each Beta(A_j, B_j)."""
    A, B = np.asarray(A, dtype=np.float64), np.asarray(B, dtype=np.float64)
    if np.any(A <= 0) or np.any(B <= 0):
        raise ValueError("improper Beta marginal (A or B <= 0): the fit did not converge; raise the "
                         "damping or alpha0, or use sequential updates")
    S = A + B
    tail = 0.5 * (1.0 - level)
    return {
        "mean": A / S,
        "sd": np.sqrt(A * B / (S * S * (S + 1.0))),
        "lower": stats.beta.ppf(tail, A, B),
        "upper": stats.beta.ppf(1.0 - tail, A, B),
    }


def top_tags(A: np.ndarray, B: np.ndarray, alpha: np.ndarray, names, k: int = 20,
             level: float = 0.9) -> pd.DataFrame:
    """The k tags with the largest log Bayes factor, with the posterior mean and central interval
    of theta_j, the log Bayes factor and alpha_j. Improper marginals (A_j or B_j <= 0, left by an
    unconverged parallel run) are not listed."""
    A, B, alpha = (np.asarray(v, dtype=np.float64) for v in (A, B, alpha))
    proper = (A > 0) & (B > 0)
    score = log_bayes_factor(np.where(proper, A, 1.0), np.where(proper, B, 1.0), alpha)
    order = np.argsort(-np.where(proper & np.isfinite(score), score, -np.inf), kind="stable")[:k]
    order = order[proper[order]]
    summary = posterior_summary(A[order], B[order], level)
    return pd.DataFrame({"tag": [str(names[j]) for j in order], "mean": summary["mean"],
                         "lower": summary["lower"], "upper": summary["upper"], "log_bf": score[order],
                         "alpha": alpha[order]})
