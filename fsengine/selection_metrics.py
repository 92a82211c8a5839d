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
``nogueira_stability`` the stability of M selections (rows of a binary M x d matrix Z) by the
                       estimator of S. Nogueira, K. Sechidis & G. Brown, "On the stability of
                       feature selection algorithms", JMLR 18(174), 2018 (Definition 4 there):
                       Phi(Z) = 1 - (1/d) sum_f s_f^2 / ((kbar/d)(1 - kbar/d)),
                       s_f^2 = M/(M-1) p_f (1 - p_f) the unbiased variance of column f, p_f its
                       selection frequency and kbar the mean selected-set size. Unlike Kuncheva's
                       index it takes selections of different sizes, and E[Phi] = 0 exactly for
                       uniformly random k-subsets. Its interval is the asymptotically normal one of
                       their Theorem 9, var(Phi) = 4/M^2 sum_i (phi_i - mean phi)^2 (the
                       delta-method influence of run i, :func:`_nogueira_influence`).
``nogueira_difference`` Phi_b - Phi_a of two methods with its interval and the two-sided p-value of
                       equal stability: the authors' test of two independent sets of runs
                       (variances added), or, with ``paired=True``, runs on the SAME resamples
                       (the influence differences of each run: what a comparison's shared
                       bootstrap resamples give).
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

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import stats as _st

from fsengine.stats import LEVEL, Estimate


def _as_set(subset) -> frozenset[int]:
    if isinstance(subset, (set, frozenset)):
        return frozenset(int(j) for j in subset)
    return frozenset(int(j) for j in np.asarray(subset, dtype=np.int64).ravel())


def jaccard(a, b) -> float:
    """``|A ∩ B| / |A ∪ B|`` of two index sets (1.0 when both are empty).

    Examples
    --------
    >>> from fsengine.stats import jaccard
    >>> jaccard([0, 1, 2], [1, 2, 3])     # 2 shared of 4 in either
    0.5
    """
    a, b = _as_set(a), _as_set(b)
    union = len(a | b)
    return 1.0 if union == 0 else len(a & b) / union


def kuncheva_index(a, b, n_features: int) -> float:
    """Kuncheva's consistency index I_C(A, B) = (r n - k^2) / (k (n - k)) of two k-subsets of
    ``range(n_features)``; in [-1, 1], 1 for identical sets, 0 expected by chance.

    Examples
    --------
    >>> from fsengine.stats import kuncheva_index
    >>> kuncheva_index([0, 1], [0, 2], 6)      # r = 1 shared: (1 * 6 - 2^2) / (2 * (6 - 2))
    0.25
    >>> kuncheva_index([0, 1], [0, 1], 6)
    1.0
    """
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
    """Mean I_C over all pairs of the K >= 2 subsets: 2 / (K (K - 1)) sum_{i<j} I_C(S_i, S_j).

    Examples
    --------
    >>> from fsengine.stats import kuncheva_stability
    >>> kuncheva_stability([[0, 1], [0, 2], [0, 1]], 6)   # the mean of 0.25, 1 and 0.25
    0.5
    """
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
    """Pairwise Jaccard overlaps of named subsets (rows and columns in dict order).

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.stats import jaccard_matrix
    >>> jaccard_matrix({"MI": np.array([0, 1]), "L1": np.array([1, 2]), "BIA": np.array([0, 1])}).round(3).tolist()
    [[1.0, 0.333, 1.0], [0.333, 1.0, 0.333], [1.0, 0.333, 1.0]]
    """
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
    with threshold +inf. A feature counts as predicted relevant when its score >= threshold.

    Examples
    --------
    >>> from fsengine.stats import roc_curve
    >>> fpr, tpr, thresholds = roc_curve([True, False, True, False], [0.9, 0.8, 0.3, 0.1])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    from sklearn.metrics import roc_curve as sklearn_roc_curve

    truth, scores = _check_truth_scores(truth, scores)
    return sklearn_roc_curve(truth, scores, drop_intermediate=False)


def roc_auc(truth, scores) -> float:
    """Area under :func:`roc_curve` (ties count one half).

    Examples
    --------
    >>> from fsengine.stats import roc_auc
    >>> roc_auc([True, False, True, False], [0.9, 0.8, 0.3, 0.1])   # 3 of the 4 (relevant, irrelevant) pairs in order
    0.75
    """
    from sklearn.metrics import roc_auc_score

    truth, scores = _check_truth_scores(truth, scores)
    return float(roc_auc_score(truth, scores))


def selection_matrix(selections, n_features: int | None = None) -> np.ndarray:
    """The binary (M, d) matrix Z of M selections: ``selections`` is such a matrix already
    (booleans or 0/1) or a sequence of index arrays of ``range(n_features)``.

    >>> selection_matrix([[0, 2], [1]], 3).astype(int).tolist()
    [[1, 0, 1], [0, 1, 0]]
    """
    if isinstance(selections, np.ndarray) and selections.ndim == 2 and n_features is None:
        Z = selections
        if Z.dtype != bool and not np.isin(Z, (0, 1)).all():
            raise ValueError("A selection matrix holds 0/1 or booleans: one row per run, one column per feature.")
        return Z.astype(bool)
    if n_features is None:
        raise ValueError("Give n_features with selections given as index lists.")
    Z = np.zeros((len(selections), int(n_features)), dtype=bool)
    for i, subset in enumerate(selections):
        idx = np.asarray(sorted(_as_set(subset)), dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= n_features):
            raise ValueError(f"Feature indices must lie in 0..{n_features - 1}.")
        Z[i, idx] = True
    return Z


def _nogueira_parts(Z: np.ndarray) -> tuple[float, np.ndarray]:
    """Phi(Z) and each run's influence 2 phi_i (Nogueira et al. 2018, Theorem 9), such that
    var(Phi) ~ 1/M^2 sum_i (psi_i - mean psi)^2.

    Derivation (delta method): with k_i the size of run i, kbar their mean and U the U-statistic
    of the inner products <Z_i, Z_j> (i != j), the unbiased form is
    Phi = 1 - (kbar - U) / (d D), D = (kbar/d)(1 - kbar/d). The influence of run i is
    dPhi/dkbar (k_i - kbar) + dPhi/dU 2 (<Z_i, p> - U), which simplifies to
    psi_i = [2 <Z_i, p>/d - 2 k_i kbar/d^2 + Phi (2 k_i kbar/d^2 - k_i/d)] / D (+ a constant).
    """
    M, d = Z.shape
    if M < 2:
        raise ValueError("Stability needs at least two selections (e.g. two bootstrap resamples).")
    Zf = Z.astype(np.float64)
    p = Zf.mean(axis=0)
    k = Zf.sum(axis=1)
    kbar = float(k.mean())
    if not 0 < kbar < d:
        raise ValueError(f"Nogueira's stability needs selections that are neither all empty nor all full "
                         f"(mean size {kbar:g} of {d} features): every such run agrees trivially.")
    D = (kbar / d) * (1 - kbar / d)
    phi = 1.0 - (M / (M - 1)) * float(np.mean(p * (1 - p))) / D
    psi = (2 * (Zf @ p) / d - 2 * k * kbar / d**2 + phi * (2 * k * kbar / d**2 - k / d)) / D
    return phi, psi


def nogueira_stability(selections, n_features: int | None = None, *, level: float = LEVEL) -> Estimate:
    """Nogueira, Sechidis & Brown's stability of M >= 2 selections with its asymptotic normal
    interval (JMLR 18, 2018, Definition 4 and Theorem 9); see the module docstring.

    Examples
    --------
    Identical selections give 1 with a zero-width interval:

    >>> nogueira_stability([[0, 1], [0, 1], [0, 1]], 5).format(2)
    '1.00 [1.00, 1.00]'

    Two disjoint 1-subsets of 2 features are as unstable as can be, -1 (the bound for M = 2):

    >>> round(nogueira_stability([[0], [1]], 2).value, 6)
    -1.0
    """
    Z = selection_matrix(selections, n_features)
    phi, psi = _nogueira_parts(Z)
    M = Z.shape[0]
    half = float(_st.norm.ppf(0.5 + level / 2)) * float(np.sqrt(np.sum((psi - psi.mean()) ** 2))) / M
    return Estimate(phi, phi - half, phi + half, level,
                    f"Nogueira et al. (2018) stability, asymptotic normal interval ({M} runs)")


@dataclass(frozen=True)
class StabilityDifference:
    """Phi_b - Phi_a with its interval and the two-sided p-value of H0: equal stability."""

    difference: Estimate
    statistic: float
    pvalue: float


def nogueira_difference(selections_a, selections_b, n_features: int | None = None, *, paired: bool = False,
                        level: float = LEVEL) -> StabilityDifference:
    """Test of equal stability of two methods (Nogueira et al. 2018, Section 6): the statistic
    T = (Phi_b - Phi_a) / sqrt(var_a + var_b) is asymptotically standard normal under H0 for
    independent sets of runs. With ``paired=True`` run i of both methods saw the same data (the
    same bootstrap resample), and the variance is that of the influence differences,
    1/M^2 sum_i ((psi_b,i - psi_a,i) - mean)^2, which keeps the shared resample's effect out.

    Examples
    --------
    >>> a = [[0, 1], [0, 2], [0, 1], [1, 2]]
    >>> b = [[0, 1], [0, 1], [0, 1], [0, 1]]
    >>> result = nogueira_difference(a, b, 6, paired=True)
    >>> result.difference.value > 0, 0 < result.pvalue < 1
    (True, True)
    """
    Za, Zb = selection_matrix(selections_a, n_features), selection_matrix(selections_b, n_features)
    if Za.shape[1] != Zb.shape[1]:
        raise ValueError(f"Both methods must select from the same features ({Za.shape[1]} vs {Zb.shape[1]}).")
    if paired and Za.shape[0] != Zb.shape[0]:
        raise ValueError(f"Paired runs need the same number of runs ({Za.shape[0]} vs {Zb.shape[0]}).")
    phi_a, psi_a = _nogueira_parts(Za)
    phi_b, psi_b = _nogueira_parts(Zb)
    if paired:
        delta = psi_b - psi_a
        var = float(np.sum((delta - delta.mean()) ** 2)) / Za.shape[0] ** 2
        how = f"paired runs ({Za.shape[0]})"
    else:
        var = (float(np.sum((psi_a - psi_a.mean()) ** 2)) / Za.shape[0] ** 2
               + float(np.sum((psi_b - psi_b.mean()) ** 2)) / Zb.shape[0] ** 2)
        how = f"independent runs ({Za.shape[0]} and {Zb.shape[0]})"
    diff = phi_b - phi_a
    se = float(np.sqrt(var))
    z = float(_st.norm.ppf(0.5 + level / 2))
    if se == 0.0:
        statistic = 0.0 if diff == 0 else float(np.copysign(np.inf, diff))
        pvalue = 1.0 if diff == 0 else 0.0
    else:
        statistic = diff / se
        pvalue = float(2 * _st.norm.sf(abs(statistic)))
    estimate = Estimate(diff, diff - z * se, diff + z * se, level,
                        f"difference of Nogueira et al. (2018) stabilities, asymptotic normal, {how}")
    return StabilityDifference(estimate, float(statistic), pvalue)
