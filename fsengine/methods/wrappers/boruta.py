"""Boruta: all-relevant feature selection against shadow features (M. B. Kursa and W. R. Rudnicki,
"Feature selection with the Boruta package", Journal of Statistical Software 36(11), 2010).

One iteration t (of at most ``max_iter``):

1. every feature still in play (not rejected; confirmed ones stay in play, as in the paper and in
   BorutaPy) gets a *shadow*: a copy whose values are permuted over the rows, independently per
   column and anew in every iteration (at least 5 shadows: the columns are doubled until there are,
   as BorutaPy does);
2. a seeded random forest is fitted on [features in play, shadows] and gives every column an
   importance I (here the impurity importance, scikit-learn's ``feature_importances_``, as in
   BorutaPy; the R package uses the permutation importance of ``randomForest``);
3. feature j scores a *hit* when I_j > max over the shadows of I (the best shadow: what the best of
   features unrelated to y reaches by chance in this forest);
4. with h_j hits in t iterations, under H0 "j is no better than the best shadow" h_j ~ Binomial(t, 1/2),
   so the one-sided p-values are

       p_accept = P(H >= h_j) = binom.sf(h_j - 1, t, 1/2),    p_reject = P(H <= h_j) = binom.cdf(h_j, t, 1/2),

   and a tentative feature is confirmed (rejected) when its p_accept (p_reject) passes the
   correction:

   * ``two_step=True`` (BorutaPy's default, D. Homola's two-step correction): Benjamini-Hochberg at
     ``alpha`` over the features in play (the testing of many features in one iteration), AND
     Bonferroni over the iterations, p <= alpha / t (the testing of one feature again every
     iteration);
   * ``two_step=False`` (the R package's correction): Bonferroni over all p features, p <= alpha / p.

The run stops when no feature is tentative or after ``max_iter`` iterations; features still
undecided then are *tentative* and are reported as such (no "rough fix"). BorutaPy's loop runs
``max_iter - 1`` iterations (``while ... _iter < max_iter`` with ``_iter`` from 1); here
``max_iter`` iterations run.

The score reported per feature (:attr:`BorutaRun.relative_importance`) is the median over the
iterations it took part in of r_jt = I_jt / max_shadow I_t, its importance relative to the best
shadow of the same forest. It is the hit rule's own quantity (a hit is r > 1, so a median above 1
means the feature beat the best shadow in more than half of its iterations); it is continuous; and
it is comparable across iterations, where the raw importances are not (a forest's impurity
importances sum to 1, so they grow as rejected features leave the forest). A forest in which no
shadow was used at all (max_shadow I = 0) gives r = inf to the features it used and 0 to the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit
from scipy import stats

from fsengine.progress import report_to

#: the codes of a decision, and their names (``BorutaSelector.decision_``)
TENTATIVE, CONFIRMED, REJECTED = 0, 1, -1
DECISION_NAMES = {CONFIRMED: "confirmed", TENTATIVE: "tentative", REJECTED: "rejected"}
#: the fewest shadow columns of an iteration (BorutaPy's rule)
MIN_SHADOWS = 5
#: a shadow column of m entries in n rows gets its rows sorted when m * SORT_BELOW < n / 64 (the
#: 64-row words of its bit marks), else read off the set bits of the ceil(n / 64) words in order. One
#: shuffle of the movie reviews' 1,500 x 4,752 tags (403,718 entries): 3.7 ms reading the words, 15 ms
#: always sorting, 7.4 ms for the earlier rule (reading n byte-wide marks per column when m >= n / 32);
#: of a taller 200,000 x 330 matrix (12% of the columns 20% filled, the others 0.4%): 20 ms, 89 ms
#: always sorting, 33 ms the earlier rule (2026-11-28, a one-off timing; sorting wins only for columns
#: of a few entries in very many rows)
SORT_BELOW = 16
#: de Bruijn's multiplier for 64-bit words and its table: the index of the lowest set bit b of a
#: word is BIT_INDEX[(b * DE_BRUIJN) >> 58] (b = w & -w, multiplied modulo 2**64)
DE_BRUIJN = 0x03F79D71B4CB0A89
BIT_INDEX = np.zeros(64, dtype=np.int64)
BIT_INDEX[[((1 << i) * DE_BRUIJN % 2**64) >> 58 for i in range(64)]] = np.arange(64)


def benjamini_hochberg(pvalues, alpha: float) -> np.ndarray:
    """Which hypotheses the Benjamini-Hochberg (1995) step-up procedure rejects at false discovery
    rate ``alpha``: with p_(1) <= ... <= p_(m), the largest i with p_(i) <= i alpha / m and every
    hypothesis with a smaller p-value.

    >>> benjamini_hochberg([0.01, 0.03, 0.02, 0.5], 0.05).tolist()
    [True, True, True, False]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    if m == 0:
        return np.zeros(0, dtype=bool)
    order = np.argsort(p, kind="stable")
    passed = np.flatnonzero(p[order] <= np.arange(1, m + 1) * alpha / m)
    reject = np.zeros(m, dtype=bool)
    if passed.size:
        reject[order[:passed[-1] + 1]] = True
    return reject


@dataclass(frozen=True)
class Decision:
    """One iteration's test: the decisions after it and the uncorrected p-values of the features
    in play (NaN for the rejected ones)."""

    decision: np.ndarray
    p_accept: np.ndarray
    p_reject: np.ndarray


def decide(decision, hits, n_iterations: int, *, alpha: float, two_step: bool = True) -> Decision:
    """Step 4 of the module docstring: new decisions from the hit counts after ``n_iterations``
    iterations. Only tentative features change; every feature in play (confirmed or tentative)
    takes part in the Benjamini-Hochberg step, as in BorutaPy.

    >>> decide([0, 0, 0], [8, 0, 4], 8, alpha=0.05).decision.tolist()
    [1, -1, 0]
    """
    decision = np.asarray(decision, dtype=np.int8).copy()
    hits = np.asarray(hits, dtype=np.int64)
    t = int(n_iterations)
    in_play = np.flatnonzero(decision != REJECTED)
    h = hits[in_play]
    p_accept = stats.binom.sf(h - 1, t, 0.5)
    p_reject = stats.binom.cdf(h, t, 0.5)
    if two_step:
        accept = benjamini_hochberg(p_accept, alpha) & (p_accept <= alpha / t)
        reject = benjamini_hochberg(p_reject, alpha) & (p_reject <= alpha / t)
    else:
        accept = p_accept <= alpha / decision.size
        reject = p_reject <= alpha / decision.size
    tentative = decision[in_play] == TENTATIVE
    decision[in_play[tentative & accept]] = CONFIRMED
    decision[in_play[tentative & reject & ~accept]] = REJECTED
    full_accept = np.full(decision.size, np.nan)
    full_reject = np.full(decision.size, np.nan)
    full_accept[in_play], full_reject[in_play] = p_accept, p_reject
    return Decision(decision, full_accept, full_reject)


@njit(cache=True)
def _shuffle_csc_columns(indptr, indices, data, n_rows, uniforms):  # pragma: no cover - numba
    """Every column of a CSC matrix permuted over the rows, independently: the column's m values go
    to a uniformly random set of m distinct rows (Floyd's sampling) in a uniformly random order
    (Fisher-Yates), then the rows are sorted. ``uniforms`` holds 2 nnz draws from [0, 1) (column c
    uses the 2 m of its own entries: m for the rows, m for the order). Returns the new (indices, data).

    The i-th drawn row gets the i-th value of the shuffled order; ``slot[r]`` remembers which i
    drew row r (-1: not drawn), so that the sorted rows find their values without an argsort, and
    the work buffers are allocated once, not per column. The drawn rows are also marked in 64-row
    bit words, read off in row order (lowest set bit first, :data:`BIT_INDEX`) unless the column has
    so few entries that sorting them is cheaper (:data:`SORT_BELOW`)."""
    out_indices = np.empty_like(indices)
    out_data = np.empty_like(data)
    slot = np.full(n_rows, -1, dtype=np.int64)
    words = np.zeros((n_rows + 63) // 64, dtype=np.uint64)
    one, multiplier, shift = np.uint64(1), np.uint64(DE_BRUIJN), np.uint64(58)
    longest = 0
    for col in range(indptr.size - 1):
        longest = max(longest, indptr[col + 1] - indptr[col])
    rows = np.empty(longest, dtype=indices.dtype)
    values = np.empty(longest, dtype=data.dtype)
    for col in range(indptr.size - 1):
        start, stop = indptr[col], indptr[col + 1]
        m = stop - start
        draw = 2 * start
        for i in range(m):  # Floyd: j runs over n - m .. n - 1; r uniform in 0..j
            j = n_rows - m + i
            r = min(int(uniforms[draw] * (j + 1)), j)
            draw += 1
            if slot[r] >= 0:
                r = j
            slot[r] = i
            rows[i] = r
            words[r >> 6] |= one << np.uint64(r & 63)
        values[:m] = data[start:stop]
        for i in range(m - 1, 0, -1):  # Fisher-Yates: the values in a random order
            k = min(int(uniforms[draw] * (i + 1)), i)
            draw += 1
            values[i], values[k] = values[k], values[i]
        if m * SORT_BELOW < words.size:  # few rows: sort them
            rows[:m].sort()
            for i in range(m):
                words[rows[i] >> 6] = 0
        else:  # many: read them off the words in order
            i = 0
            for w in range(words.size):
                bits = words[w]
                while bits:
                    lowest = bits & (~bits + one)
                    rows[i] = (w << 6) + BIT_INDEX[(lowest * multiplier) >> shift]
                    i += 1
                    bits ^= lowest
                words[w] = 0
        for i in range(m):
            r = rows[i]
            out_indices[start + i] = r
            out_data[start + i] = values[slot[r]]
            slot[r] = -1
    return out_indices, out_data


def shadow_columns(X, rng: np.random.Generator):
    """The shadows of the columns of X: every column permuted over the rows independently (dense
    X by ``Generator.permuted``, sparse X by a numba kernel on its CSC arrays), the columns doubled
    first until there are at least :data:`MIN_SHADOWS` (BorutaPy's rule). Same type as X."""
    n_columns = X.shape[1]
    copies = 1
    while n_columns * copies < MIN_SHADOWS:
        copies *= 2
    if sp.issparse(X):
        X = sp.hstack([X] * copies, format="csc") if copies > 1 else sp.csc_matrix(X)
        indices, data = _shuffle_csc_columns(X.indptr, X.indices, X.data, X.shape[0], rng.random(2 * X.nnz))
        return sp.csc_matrix((data, indices, X.indptr.copy()), shape=X.shape)
    X = np.tile(X, (1, copies)) if copies > 1 else X
    return rng.permuted(X, axis=0)


def forest_matrix(real, shadows):
    """[real, shadows] as scikit-learn's trees take it, built once: float32 (the trees' DTYPE, to
    which the forest would convert a float64 copy of the stacked matrix) and Fortran-ordered when
    dense (a split reads a column over the node's rows: contiguous, about 5% faster tree building on
    notMNIST), CSC with sorted rows when sparse. The same numbers as ``hstack``, so the same forest.
    Sparse: the CSC arrays are joined directly (0.7 ms for the movie reviews' 1,500 x 9,504 columns,
    where ``scipy.sparse.hstack`` took 5 ms), with 32-bit indices while they fit, as scikit-learn's
    trees need them."""
    if sp.issparse(real):
        real, shadows = real.tocsc(), shadows.tocsc()
        nnz = real.nnz
        index = np.int32 if max(nnz + shadows.nnz, real.shape[0]) < 2**31 else np.int64
        data = np.empty(nnz + shadows.nnz, dtype=np.float32)
        data[:nnz], data[nnz:] = real.data, shadows.data
        indices = np.concatenate([real.indices, shadows.indices], dtype=index, casting="same_kind")
        indptr = np.concatenate([real.indptr, shadows.indptr[1:] + nnz], dtype=index, casting="same_kind")
        return sp.csc_matrix((data, indices, indptr), shape=(real.shape[0], real.shape[1] + shadows.shape[1]))
    both = np.empty((real.shape[0], real.shape[1] + shadows.shape[1]), dtype=np.float32, order="F")
    both[:, :real.shape[1]] = real
    both[:, real.shape[1]:] = shadows
    return both


@dataclass(frozen=True)
class BorutaRun:
    """The record of a Boruta run (T iterations, p features).

    decision             (p,) CONFIRMED / TENTATIVE / REJECTED
    hits                 (p,) hits of every feature
    importance           (T, p) the forest's importance of every feature in play (NaN once rejected)
    shadow_max           (T,) the best shadow's importance
    relative_importance  (T, p) importance / best shadow importance (NaN once rejected)
    in_play              (T,) features in play in each iteration
    confirmed, rejected  (T,) running counts after each iteration
    p_accept, p_reject   (p,) the last test's uncorrected p-values (NaN for rejected features)
    stop_reason          why the run stopped, in words
    """

    decision: np.ndarray
    hits: np.ndarray
    importance: np.ndarray
    shadow_max: np.ndarray
    relative_importance: np.ndarray
    in_play: np.ndarray
    confirmed: np.ndarray
    rejected: np.ndarray
    p_accept: np.ndarray
    p_reject: np.ndarray
    stop_reason: str

    @property
    def n_iterations(self) -> int:
        return int(self.shadow_max.size)

    def scores(self) -> np.ndarray:
        """Median relative importance over the iterations each feature was in play (module docstring)."""
        return np.nanmedian(self.relative_importance, axis=0)


def _relative(importance: np.ndarray, best_shadow: float) -> np.ndarray:
    if best_shadow > 0:
        return importance / best_shadow
    return np.where(importance > 0, np.inf, 0.0)


def boruta(X, y, *, importances: Callable[[object, np.ndarray, int], np.ndarray], max_iter: int, alpha: float,
           two_step: bool, rng: np.random.Generator, progress=None) -> BorutaRun:
    """Run Boruta (module docstring) on X (dense, or sparse CSC/CSR) and labels y.

    ``importances(both, y, seed)`` returns the importance of every column of ``both`` (the
    :func:`forest_matrix` of an iteration) in a fresh forest seeded by ``seed``; ``rng`` draws the
    shadows and the forests' seeds. ``progress(fraction, message)`` is told after every iteration.
    """
    report = report_to(progress)
    X = X.tocsc() if sp.issparse(X) else X
    p = X.shape[1]
    decision = np.zeros(p, dtype=np.int8)
    hits = np.zeros(p, dtype=np.int64)
    importance_rows, shadow_maxima, in_play, confirmed, rejected = [], [], [], [], []
    test = None
    for t in range(1, max_iter + 1):
        play = np.flatnonzero(decision != REJECTED)
        real = X if play.size == p else X[:, play]  # no copy while every feature is in play
        both = forest_matrix(real, shadow_columns(real, rng))  # the shadows, then the forest's seed, from rng
        importance = np.asarray(importances(both, y, int(rng.integers(2**31 - 1))), dtype=np.float64)
        best_shadow = float(importance[play.size:].max())
        row = np.full(p, np.nan)
        row[play] = importance[:play.size]
        hits[play[importance[:play.size] > best_shadow]] += 1
        test = decide(decision, hits, t, alpha=alpha, two_step=two_step)
        decision = test.decision
        importance_rows.append(row)
        shadow_maxima.append(best_shadow)
        in_play.append(play.size)
        confirmed.append(int(np.sum(decision == CONFIRMED)))
        rejected.append(int(np.sum(decision == REJECTED)))
        undecided = p - confirmed[-1] - rejected[-1]
        report(t / max_iter, f"iteration {t} of {max_iter}: {confirmed[-1]} confirmed, {rejected[-1]} rejected, "
                             f"{undecided} tentative")
        if undecided == 0:
            break
    importance = np.array(importance_rows)
    shadow_max = np.array(shadow_maxima)
    relative = np.vstack([_relative(row, s) for row, s in zip(importance, shadow_max)])
    relative[np.isnan(importance)] = np.nan
    n_tentative = int(np.sum(decision == TENTATIVE))
    stop = (f"every feature decided after {shadow_max.size} iteration{'s' if shadow_max.size != 1 else ''}"
            if n_tentative == 0 else
            f"max_iter = {max_iter} iterations reached with {n_tentative} tentative "
            f"feature{'s' if n_tentative != 1 else ''}")
    report(1.0, stop)
    return BorutaRun(decision=decision, hits=hits, importance=importance, shadow_max=shadow_max,
                     relative_importance=relative, in_play=np.array(in_play), confirmed=np.array(confirmed),
                     rejected=np.array(rejected), p_accept=test.p_accept, p_reject=test.p_reject, stop_reason=stop)
