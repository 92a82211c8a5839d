"""MDL feature-subset selection with the Naive Bayes classifier (Jaakkola, lecture 12, Eq. 3-15).

Naive Bayes parameters are the maximum-likelihood estimates of Eq. (1), fixed once from counts:
P(y = c) = n_c / n and P(x_j = 1 | y = c) = N_1jc / n_c. For a subset J the classifier's
discriminant is (Eq. 5-9, written for K classes as per-class log-joint scores)

    F_t[c] = log P(y = c) + sum_{j in J} log P(x_tj | y = c),    P(y | x_t, J) = softmax(F_t)[y],

so adding a feature changes F by one term per class (the incremental update used here; for two
classes f = F[1] - F[0] is Eq. 6). The description lengths, in nats, are

    DL-data(J)    = sum_t -log P(y_t | x_t, J)                                              (10)
    DL-model(|J|) = log*|J| + log C(d, |J|) + log(n + 1) + |J| (log(n_1 + 1) + log(n_-1 + 1))  (11-14)
    DL(J)         = DL-data(J) + DL-model(|J|)                                               (15)

log*k = log k + log log k + ... (positive terms; log*0 = log*1 = 0). For K > 2 classes the count
terms generalise as the paper's argument does: the class counts take C(n + K - 1, K - 1) values
(n + 1 when K = 2) and each feature's K conditionals take prod_c (n_c + 1) values, so the K = 2 case
is exactly Eq. (13-14). J grows by sequential forward selection (the paper's "simplest way"): at
each step the feature whose inclusion gives the smallest DL-data is added (the lowest index among
candidates within :data:`TIE_RTOL`). The selected subset is the prefix of that sequence minimising
DL(J) over the sizes explored (0..``max_features``).

Progress: ``progress(fraction, message)`` after every added feature; a callback that raises
:class:`~fsengine.progress.StopRequested` ends the search early and the path explored so far is
returned (``stop_reason`` "stop requested"): every prefix of a greedy sequence is a valid answer.

On the training data the maximum-likelihood tables never give the true class probability zero
(a count that is zero for class c only affects rows of other classes), so every DL-data is finite
even though some log-probabilities are -inf.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit
from scipy.special import gammaln

from fsengine.methods.classic.binary import class_codes
from fsengine.methods.classic.mutual_info import ones_per_class
from fsengine.progress import Progress, StopRequested, report_to


def naive_bayes_log_tables(ones: np.ndarray, class_sizes: np.ndarray):
    """ML log-tables of Eq. (1): (log P(y), log P(x_j = 0 | y), log P(x_j = 1 | y)); log 0 = -inf."""
    n = class_sizes.sum()
    theta = ones / class_sizes[None, :]
    with np.errstate(divide="ignore"):
        return np.log(class_sizes / n), np.log1p(-theta), np.log(theta)


def log_star(k: int) -> float:
    """Eq. (11): log*k = log k + log log k + ..., summing the positive terms (nats)."""
    total, term = 0.0, float(k)
    while term > 1.0:
        term = math.log(term)
        total += term
    return total


def model_description_length(k: int, d: int, class_sizes) -> dict[str, float]:
    """Eq. (13-14) for a subset of size k out of d features, split into its four terms (nats)."""
    class_sizes = np.asarray(class_sizes, dtype=np.float64)
    n, K = class_sizes.sum(), class_sizes.size
    parts = {
        "log_star": log_star(k),
        "log_binom": float(gammaln(d + 1) - gammaln(k + 1) - gammaln(d - k + 1)),
        "class_counts": float(gammaln(n + K) - gammaln(K) - gammaln(n + 1)),
        "parameters": float(k * np.log(class_sizes + 1.0).sum()),
    }
    parts["dl_model"] = sum(parts.values())
    return parts


@njit(cache=True)
def _row_loss(F, t, shift, code, buf):
    """-log softmax(F[t] + shift)[code] (stable log-sum-exp; -inf entries allowed; as log1p of the
    other classes' odds when the row's own class leads, so a loss far below eps keeps its digits)."""
    K = F.shape[1]
    if K == 2:  # softplus(-z), z = true-class score minus the other's (the two-class f of Eq. 6)
        z = (F[t, code] + shift[code]) - (F[t, 1 - code] + shift[1 - code])
        return max(-z, 0.0) + np.log1p(np.exp(-abs(z)))
    m = -np.inf
    for c in range(K):
        v = F[t, c] + shift[c]
        buf[c] = v
        if v > m:
            m = v
    others = 0.0
    for c in range(K):
        if c != code:
            others += np.exp(buf[c] - m)
    if buf[code] == m:  # the row's own class leads: log1p keeps a loss far below eps
        return np.log1p(others)
    return m + np.log(others + np.exp(buf[code] - m)) - buf[code]


@njit(cache=True)
def data_description_length(F, codes):
    """Eq. (10) for scores F (n, K): sum_t -log softmax(F_t)[y_t]."""
    K = F.shape[1]
    zero = np.zeros(K)
    buf = np.empty(K)
    total = 0.0
    for t in range(F.shape[0]):
        total += _row_loss(F, t, zero, codes[t], buf)
    return total


#: a row's factor 1 + sum_c odds_c is kept below exp(FACTOR_LOG_CAP), so a product of
#: PRODUCT_BLOCK factors (or of their ratios) stays far from float64 overflow (exp(709))
FACTOR_LOG_CAP = 40.0
PRODUCT_BLOCK = 16
#: a candidate's DL-data below PRECISION_FLOOR (K + 2) (n + 2 nnz_j) nats is summed row by row:
#: the products' absolute error, about (K + 2) eps a row, then stays below 3e-12 of it
PRECISION_FLOOR = 1e-4
#: candidates whose DL-data agree to TIE_RTOL (relative) are tied, far above the sums' rounding
#: (3e-12 at most, about 1e-13 on the catalogue's data): the lowest index is added, so an exact tie
#: (features with the same counts tie exactly on the first step) does not go to rounding noise
TIE_RTOL = 1e-10


@njit(cache=True)
def _direct_data_length(F, codes, indptr, indices, log_p0_j, log_p1_j, on, buf):
    """Eq. (10) for J + {j}, row by row with :func:`_row_loss` (``on``: a cleared boolean buffer of n)."""
    for k in range(indptr[0], indptr[1]):
        on[indices[k]] = True
    total = 0.0
    for t in range(F.shape[0]):
        total += _row_loss(F, t, log_p1_j if on[t] else log_p0_j, codes[t], buf)
    for k in range(indptr[0], indptr[1]):
        on[indices[k]] = False
    return total


@njit(cache=True)
def _log_odds_factors(F, codes, log_p0, log_p1, candidate):
    """The per-step arrays of :func:`candidate_data_lengths`: the odds ``E[t, c] = exp(F_tc - F_ty)``
    of every class against the row's own (1 at c = y_t), and which rows are extreme (some odds
    above exp(cap), cap = FACTOR_LOG_CAP - log K - the widest spread of a candidate's finite
    log-table across classes): a factor 1 + sum_c E_tc P(x_j | c) / P(x_j | y_t) of any other
    row stays below exp(FACTOR_LOG_CAP)."""
    n, K = F.shape
    spread = 0.0
    for j in range(log_p0.shape[0]):
        if candidate[j]:
            for table in (log_p0, log_p1):
                lo, hi = np.inf, -np.inf
                for c in range(K):
                    v = table[j, c]
                    if np.isfinite(v):
                        lo = min(lo, v)
                        hi = max(hi, v)
                if hi > lo:
                    spread = max(spread, hi - lo)
    cap = FACTOR_LOG_CAP - np.log(K) - spread
    E = np.empty((n, K))
    extreme = np.zeros(n, dtype=np.bool_)
    for t in range(n):
        y = codes[t]
        for c in range(K):
            d = F[t, c] - F[t, y]
            if d > cap:
                extreme[t] = True
            E[t, c] = np.exp(d) if c != y else 1.0
    return E, extreme


@njit(cache=True)
def _log_factor_sum(E, start, stop, q):
    """sum_{t in [start, stop)} log(E[t] . q / q[y]) for rows of one class y, given ``q`` already
    divided by q[y]: logs of products of PRODUCT_BLOCK factors (one log per block)."""
    K = E.shape[1]
    total = 0.0
    for b in range(start, stop, PRODUCT_BLOCK):
        prod = 1.0
        for t in range(b, min(b + PRODUCT_BLOCK, stop)):
            f = 0.0
            for c in range(K):
                f += E[t, c] * q[c]
            prod *= f
        total += np.log(prod)
    return total


@njit(cache=True)
def candidate_data_lengths(F, codes, indptr, indices, log_p0, log_p1, p0, p1, candidate, group, n_groups):
    """DL-data(J + {j}) (Eq. 10) for every candidate j, from the current scores F of J.

    Row t's loss with feature j is ``-log softmax(F_t + log P(x_tj | .))[y_t] = log(1 + sum_{c != y}
    E_tc P(x_tj | c) / P(x_tj | y))`` with the odds E_tc = exp(F_tc - F_ty) formed once a step
    (:func:`_log_odds_factors`; ``p0``, ``p1`` = exp of the log-tables). Rows with x_tj = 0 share
    the tables of P(x = 0 | .), so the all-rows term sum_t loss_t(P(x = 0 | .)) is computed once
    per group of features with the same per-class counts (``group[j]``), and each feature adds the
    correction loss_t(P(x = 1 | .)) - loss_t(P(x = 0 | .)) over its non-zeros (CSC). Sums of logs
    are formed as logs of products of PRODUCT_BLOCK factors (a multiply a row instead of an exp
    and a log1p), which FACTOR_LOG_CAP keeps finite; the few extreme rows (a class far more
    likely than the row's own) go through the stable log-sum-exp of :func:`_row_loss`, and so do
    a feature that is on in every row of some class (P(x = 0 | c) = 0) and a candidate whose
    DL-data is too small for the products' absolute error (PRECISION_FLOOR). The result equals
    the row-by-row sum to about 1e-13 relative. Non-candidates get +inf. Cost O(n K) per group
    plus O(nnz K), with one log per PRODUCT_BLOCK rows.
    """
    n, K = F.shape
    p = log_p0.shape[0]
    out = np.full(p, np.inf)
    buf = np.empty(K)
    on = np.zeros(n, dtype=np.bool_)
    E, extreme = _log_odds_factors(F, codes, log_p0, log_p1, candidate)
    # the rows that are not extreme, class by class, contiguous; the extreme ones apart
    start = np.zeros(K + 1, dtype=np.int64)
    for t in range(n):
        if not extreme[t]:
            start[codes[t] + 1] += 1
    for c in range(K):
        start[c + 1] += start[c]
    fill = start[:K].copy()
    by_class = np.empty((start[K], K))
    rare = np.empty(n - start[K], dtype=np.int64)
    n_rare = 0
    for t in range(n):
        if extreme[t]:
            rare[n_rare] = t
            n_rare += 1
        else:
            by_class[fill[codes[t]]] = E[t]
            fill[codes[t]] += 1
    direct = np.zeros(p, dtype=np.bool_)
    for j in range(p):
        direct[j] = candidate[j] and not np.all(p0[j] > 0.0)
    base = np.full(n_groups, np.nan)
    q = np.empty(K)
    for j in range(p):
        g = group[j]
        if not candidate[j] or direct[j] or not np.isnan(base[g]):
            continue
        total = 0.0
        for y in range(K):
            for c in range(K):
                q[c] = p0[j, c] / p0[j, y]
            total += _log_factor_sum(by_class, start[y], start[y + 1], q)
        for r in range(n_rare):
            t = rare[r]
            total += _row_loss(F, t, log_p0[j], codes[t], buf)
        base[g] = total
    for j in range(p):
        if not candidate[j]:
            continue
        lo, hi = indptr[j], indptr[j + 1]
        if direct[j]:
            out[j] = _direct_data_length(F, codes, indptr[j:j + 2], indices, log_p0[j], log_p1[j], on, buf)
            continue
        total = base[group[j]]
        ratio = 1.0
        count = 0
        for k in range(lo, hi):
            t = indices[k]
            y = codes[t]
            if extreme[t]:
                total += _row_loss(F, t, log_p1[j], y, buf) - _row_loss(F, t, log_p0[j], y, buf)
                continue
            f1 = 0.0
            f0 = 0.0
            for c in range(K):
                f1 += E[t, c] * p1[j, c]
                f0 += E[t, c] * p0[j, c]
            ratio *= (f1 * p0[j, y]) / (f0 * p1[j, y])
            count += 1
            if count == PRODUCT_BLOCK:
                total += np.log(ratio)
                ratio = 1.0
                count = 0
        total += np.log(ratio)
        if total < PRECISION_FLOOR * (K + 2.0) * (n + 2.0 * (hi - lo)):
            total = _direct_data_length(F, codes, indptr[j:j + 2], indices, log_p0[j], log_p1[j], on, buf)
        out[j] = total
    return out


@njit(cache=True)
def add_feature(F, indptr, indices, j, log_p0_j, log_p1_j):
    """Incremental update of the discriminant: F_t += log P(x_tj | c) for every row (in place)."""
    n, K = F.shape
    on = np.zeros(n, dtype=np.bool_)
    for k in range(indptr[j], indptr[j + 1]):
        on[indices[k]] = True
    for t in range(n):
        for c in range(K):
            F[t, c] += log_p1_j[c] if on[t] else log_p0_j[c]


@dataclass(frozen=True)
class MDLPath:
    """Sequential forward selection under Eq. (15).

    order        features in the order they were added (length m)
    dl_data      DL-data of the prefixes of size 0..m (Eq. 10)
    model_terms  DataFrame-ready dict of Eq. (13-14) terms per size 0..m
    dl_model     DL-model per size 0..m;  dl_total = dl_data + dl_model
    best_size    argmin of dl_total (smallest size on ties)
    step_gain    DL-data decrease at each step (length m)
    last_gain    per feature: DL-data decrease it offered at the last evaluated step (NaN for
                 features already selected before it)
    classes      the class labels, in code order
    stop_reason  why the search ended, in words
    """

    order: np.ndarray
    dl_data: np.ndarray
    dl_model: np.ndarray
    dl_total: np.ndarray
    model_terms: dict[str, np.ndarray]
    best_size: int
    step_gain: np.ndarray
    last_gain: np.ndarray
    classes: np.ndarray
    stop_reason: str = ""


def mdl_forward_selection(X01: sp.csc_matrix, y, *, max_features: int = 30, candidates=None,
                          progress: Progress | None = None) -> MDLPath:
    """Greedy minimisation of DL(J) (Eq. 15) over prefixes of size 0..max_features.

    ``X01`` is a 0/1 CSC matrix (see :func:`.binary.binary_indicator`); ``candidates`` an optional
    boolean mask restricting which features may be added (the description length of the subset
    still uses the full d in log C(d, |J|)). ``progress(fraction, message)`` is called before the
    first and after every added feature; :class:`~fsengine.progress.StopRequested` from it ends
    the search with the prefixes explored so far.
    """
    X01 = sp.csc_matrix(X01)
    n, d = X01.shape
    codes, classes = class_codes(y)
    K = classes.size
    indptr, indices = X01.indptr.astype(np.int64), X01.indices.astype(np.int64)
    class_sizes = np.bincount(codes, minlength=K).astype(np.float64)
    ones = ones_per_class(indptr, indices, codes, K)
    log_prior, log_p0, log_p1 = naive_bayes_log_tables(ones, class_sizes)
    p0, p1 = np.exp(log_p0), np.exp(log_p1)
    _, group = np.unique(ones, axis=0, return_inverse=True)
    group = group.astype(np.int64).ravel()
    n_groups = int(group.max()) + 1 if d else 0
    candidate = np.ones(d, dtype=bool) if candidates is None else np.asarray(candidates, bool).copy()
    if candidate.shape != (d,):
        raise ValueError(f"candidates must be a boolean mask of length {d}")
    steps = int(min(max_features, candidate.sum()))

    report = report_to(progress)
    F = np.tile(log_prior, (n, 1))
    dl_data = [data_description_length(F, codes)]
    order, gains = [], []
    last_dl = np.full(d, np.nan)
    if steps == max_features:
        stop = f"explored every subset size up to the largest, {max_features} features"
    else:
        stop = f"added every candidate feature ({steps}, fewer than the largest size {max_features})"
    try:
        report(0.0, f"0 of {steps} features")
        for step in range(steps):
            dl = candidate_data_lengths(F, codes, indptr, indices, log_p0, log_p1, p0, p1, candidate,
                                        group, n_groups)
            last_dl = np.where(candidate, dl, np.nan)
            j = int(np.flatnonzero(dl <= dl.min() * (1.0 + TIE_RTOL))[0])  # the lowest index among ties
            add_feature(F, indptr, indices, j, log_p0[j], log_p1[j])
            candidate[j] = False
            order.append(j)
            gains.append(dl_data[-1] - dl[j])
            dl_data.append(float(dl[j]))
            report((step + 1) / steps, f"{step + 1} of {steps} features")
    except StopRequested:
        stop = "stop requested"
    before_last = dl_data[-2] if len(dl_data) > 1 else dl_data[-1]
    last_gain = before_last - last_dl

    sizes = range(len(dl_data))
    terms = [model_description_length(k, d, class_sizes) for k in sizes]
    model_terms = {key: np.array([t[key] for t in terms]) for key in terms[0]}
    dl_data_arr = np.asarray(dl_data)
    dl_total = dl_data_arr + model_terms["dl_model"]
    return MDLPath(
        order=np.asarray(order, dtype=np.intp), dl_data=dl_data_arr,
        dl_model=model_terms["dl_model"], dl_total=dl_total, model_terms=model_terms,
        best_size=int(np.argmin(dl_total)), step_gain=np.asarray(gains), last_gain=last_gain,
        classes=classes, stop_reason=stop,
    )
