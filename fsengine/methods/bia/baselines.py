"""What the BIA adds over simpler rankings, along its path (Fisher & Mehta 2015, Section 4).

At large Lambda the BIA's fields h_i are proportional to b_i^2 (Eq. 19: the squared score of
feature i at the null model, for standardised logistic data n^2 corr(x_i, y)^2 / 4 up to the
intercept term), so its ranking starts as *correlation screening*; the couplings J_ij only reorder
features as Lambda falls. This module puts numbers on that:

* :func:`baseline_orders`: correlation screening (|corr(x_j, y)|), the L1-logistic entry order
  (first C on a log grid at which the coefficient is non-zero, ties by |coef| there) and the
  |coefficient| of an L2 logistic regression on the standardised features;
* :func:`path_agreement`: for each Lambda/Lambda* on the BIA path, the overlap of the BIA's top k
  with each baseline's top k and the Spearman correlation of the posteriors with b^2 (i.e. with
  screening), and :func:`departure_ratio`, the largest Lambda/Lambda* at which the BIA's top k
  differs from screening's;
* :func:`top_k_accuracy`: cross-validated accuracy of a logistic regression on each ranking's top k.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

from fsengine.methods.classic.l1_path import entry_scores
from fsengine.position import nearest_index
from fsengine.ranking import top_k

SCREENING, L1_ENTRY, LOGISTIC = "correlation screening", "L1 entry order", "logistic |coef|"


def _standardise(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def correlation_scores(X, y) -> np.ndarray:
    """|corr(x_j, y)| per feature (0 for constant features)."""
    Z = _standardise(X)
    yc = np.asarray(y, dtype=np.float64) - np.mean(y)
    return np.abs(Z.T @ yc) / (np.sqrt(np.sum(yc**2)) * np.sqrt(Z.shape[0]))


def l1_entry_scores(X, y, Cs=None) -> np.ndarray:
    """Earlier entry along the L1-logistic path of the standardised features = higher score
    (:func:`fsengine.methods.classic.l1_path.entry_scores` on C in 10^-3 .. 1, 12 values)."""
    return entry_scores(_standardise(X), y, np.logspace(-3, 0, 12) if Cs is None else Cs, max_iter=2000)


def logistic_scores(X, y, C: float = 1.0) -> np.ndarray:
    """|coefficient| of an L2 logistic regression (lbfgs) on the standardised features."""
    return np.abs(LogisticRegression(C=C, max_iter=5000).fit(_standardise(X), y).coef_.ravel())


def baseline_orders(X, y) -> dict[str, np.ndarray]:
    """Feature scores of each baseline (higher = more relevant)."""
    return {SCREENING: correlation_scores(X, y), L1_ENTRY: l1_entry_scores(X, y), LOGISTIC: logistic_scores(X, y)}


def path_agreement(path: pd.DataFrame, baselines: dict[str, np.ndarray], k: int,
                   ratios=None) -> pd.DataFrame:
    """One row per Lambda/Lambda* (``ratios``: the path rows nearest them on a log scale; default
    every row), largest first: overlap |top_k(BIA) & top_k(baseline)| / k per baseline and
    Spearman(BIA posteriors, b^2)."""
    grid = path.index.to_numpy()
    rows_at = range(len(grid)) if ratios is None else sorted({nearest_index(grid, r) for r in ratios})
    tops = {name: set(top_k(s, k).tolist()) for name, s in baselines.items()}
    screening = baselines[SCREENING]
    out = []
    for i in rows_at:
        post = path.iloc[i].to_numpy()
        bia_top = set(top_k(post, k).tolist())
        row = {"lambda_ratio": float(grid[i])}
        row.update({f"overlap with {name}": len(bia_top & t) / k for name, t in tops.items()})
        row["Spearman with screening"] = float(spearmanr(post, screening).statistic)
        out.append(row)
    return pd.DataFrame(out).sort_values("lambda_ratio", ascending=False, ignore_index=True)


def departure_ratio(agreement: pd.DataFrame) -> float | None:
    """The largest Lambda/Lambda* at which the BIA's top k is not screening's top k (None if it
    never departs on the path)."""
    col = f"overlap with {SCREENING}"
    differ = agreement.loc[agreement[col] < 1.0, "lambda_ratio"]
    return float(differ.max()) if len(differ) else None


def top_k_accuracy(X, y, rankings: dict[str, np.ndarray], k: int, cv: int = 5) -> dict[str, float]:
    """Mean ``cv``-fold accuracy of a logistic regression (scikit-learn defaults) on the raw top-k
    features of each ranking."""
    X = np.asarray(X, dtype=np.float64)
    return {name: float(cross_val_score(LogisticRegression(max_iter=2000), X[:, top_k(s, k)], y, cv=cv).mean())
            for name, s in rankings.items()}
