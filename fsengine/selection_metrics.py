"""How selected feature sets agree with each other, with themselves, and with the truth.

``jaccard``            overlap of two selected sets, |A ∩ B| / |A ∪ B|.
``kuncheva_index``     Kuncheva's consistency index of two equal-size subsets, corrected for the
                       overlap expected by chance (L. I. Kuncheva, "A stability index for feature
                       selection", IASTED AIA 2007, the consistency index I_C):
                       I_C(A, B) = (r n - k^2) / (k (n - k)),
                       with r = |A ∩ B|, k = |A| = |B|, n the number of features.
``kuncheva_stability`` the stability of K subsets in the same paper, the mean of I_C over all
                       pairs: 2 / (K (K - 1)) sum_{i<j} I_C(S_i, S_j).
``kuncheva_matrix``    every pair's I_C (K, K), and ``kuncheva_leave_one_out`` the stability
                       without subset i, for each i (what a jackknife interval of the stability
                       is computed from, :func:`fsengine.stats.jackknife_interval`).
``roc_curve``, ``roc_auc``  ROC of feature scores against a known relevant set: scikit-learn's
                       ``roc_curve`` (every distinct score a point; tied scores one diagonal step)
                       and ``roc_auc_score``, so the AUC is the Mann-Whitney probability
                       P(score of a relevant > score of an irrelevant) + 1/2 P(tie); these
                       wrappers add the checks and messages for feature scores.

Properties of I_C used by the tests: it is 1 for identical subsets; r is hypergeometric for two
independent uniformly random k-subsets with mean k^2 / n, so E[I_C] = 0 ("chance"); its minimum
for given (k, n) is at the smallest possible overlap r = max(0, 2k - n).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np


def _as_set(subset) -> frozenset[int]:
    if isinstance(subset, (set, frozenset)):
        return frozenset(int(j) for j in subset)
    return frozenset(int(j) for j in np.asarray(subset, dtype=np.int64).ravel())


def jaccard(a, b) -> float:
    """|A ∩ B| / |A ∪ B| of two index sets (1.0 when both are empty)."""
    a, b = _as_set(a), _as_set(b)
    union = len(a | b)
    return 1.0 if union == 0 else len(a & b) / union


def kuncheva_index(a, b, n_features: int) -> float:
    """Kuncheva's consistency index I_C(A, B) = (r n - k^2) / (k (n - k)) of two k-subsets of
    ``range(n_features)``; in [-1, 1], 1 for identical sets, 0 expected by chance."""
    a, b = _as_set(a), _as_set(b)
    k, n = len(a), int(n_features)
    if len(b) != k:
        raise ValueError(f"Kuncheva's index compares subsets of equal size; got {k} and {len(b)}.")
    if not 0 < k < n:
        raise ValueError(f"Kuncheva's index needs 0 < k < n; got k = {k}, n = {n} features "
                         "(every selection of 0 or all features is identical).")
    if max(a | b) >= n or min(a | b) < 0:
        raise ValueError(f"Feature indices must lie in 0..{n - 1}.")
    r = len(a & b)
    return (r * n - k * k) / (k * (n - k))


def kuncheva_stability(subsets, n_features: int) -> float:
    """Mean I_C over all pairs of the K >= 2 subsets: 2 / (K (K - 1)) sum_{i<j} I_C(S_i, S_j)."""
    subsets = [_as_set(s) for s in subsets]
    if len(subsets) < 2:
        raise ValueError("Stability needs at least two selections (e.g. two bootstrap resamples).")
    values = [kuncheva_index(a, b, n_features) for a, b in combinations(subsets, 2)]
    return float(np.mean(values))


def kuncheva_matrix(subsets, n_features: int) -> np.ndarray:
    """I_C of every pair of the K subsets: a symmetric (K, K) array with 1 on the diagonal."""
    sets = [_as_set(s) for s in subsets]
    out = np.ones((len(sets), len(sets)))
    for i, j in combinations(range(len(sets)), 2):
        out[i, j] = out[j, i] = kuncheva_index(sets[i], sets[j], n_features)
    return out


def kuncheva_leave_one_out(matrix: np.ndarray) -> np.ndarray:
    """From :func:`kuncheva_matrix` of K >= 3 subsets: for each i, the stability (mean I_C over
    pairs) of the other K - 1 subsets.

    >>> m = kuncheva_matrix([[0, 1], [0, 2], [0, 1]], 6)
    >>> kuncheva_leave_one_out(m).round(3).tolist()  # I_C(S_0, S_2) = 1; the two others 0.25
    [0.25, 1.0, 0.25]
    """
    m = np.asarray(matrix, dtype=np.float64)
    K = m.shape[0]
    if K < 3:
        raise ValueError("Leaving one subset out needs at least three subsets (two remain to form a pair).")
    upper = np.triu(m, 1)
    total = upper.sum()
    row = upper.sum(axis=0) + upper.sum(axis=1)  # the pairs subset i is part of
    return (total - row) / ((K - 1) * (K - 2) / 2)


def jaccard_matrix(subsets: dict[str, np.ndarray]) -> np.ndarray:
    """Pairwise Jaccard overlaps of named subsets (rows and columns in dict order)."""
    sets = [_as_set(s) for s in subsets.values()]
    return np.array([[jaccard(a, b) for b in sets] for a in sets])


def _check_truth_scores(truth, scores) -> tuple[np.ndarray, np.ndarray]:
    truth = np.asarray(truth, dtype=bool).ravel()
    scores = np.asarray(scores, dtype=np.float64).ravel()
    if truth.shape != scores.shape:
        raise ValueError(f"{truth.size} truth labels for {scores.size} scores")
    if not np.isfinite(scores).all():
        raise ValueError("ROC needs finite scores; map missing scores to a value below every score first.")
    if truth.all() or not truth.any():
        raise ValueError("ROC needs both relevant and irrelevant features in the truth mask.")
    return truth, scores


def roc_curve(truth, scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(fpr, tpr, thresholds): one point per distinct score, highest first, starting at (0, 0)
    with threshold +inf. A feature counts as predicted relevant when its score >= threshold."""
    from sklearn.metrics import roc_curve as sklearn_roc_curve

    truth, scores = _check_truth_scores(truth, scores)
    return sklearn_roc_curve(truth, scores, drop_intermediate=False)


def roc_auc(truth, scores) -> float:
    """Area under :func:`roc_curve` (ties count one half)."""
    from sklearn.metrics import roc_auc_score

    truth, scores = _check_truth_scores(truth, scores)
    return float(roc_auc_score(truth, scores))
