"""The mRMR of fsengine before it moved onto the information-theoretic family's kernel: the module
``fsengine/methods/toolbox/mrmr.py`` of commit 8296401, kept verbatim below this docstring (its own
docstring dropped) as the reference ``test_mrmr_move.py`` holds the moved ``MRMRSelector`` to,
bit for bit: the same selections, orders, scores and trace on every data set tried, ties included.
The benchmark ``benchmarks/bench_filters.py`` times it beside the moved one.

It is no code of the package: nothing in ``fsengine`` imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit

from fsengine.progress import StopRequested

Progress = Callable[[float, str], None]
#: states of a discretised feature
N_STATES = 3
#: the largest state matrix (features x rows, one byte each) the selection builds
MAX_STATE_BYTES = 2 * 1024**3


def discretise(X) -> np.ndarray:
    """(p, n) int8 states of the columns of X: 0 for x <= μ - σ, 1 for μ - σ < x <= μ + σ, 2 for
    x > μ + σ (μ, σ: the column's mean and population standard deviation). Sparse X is not
    densified beyond the one-byte state matrix.

    >>> discretise(np.array([[0.0, 1.0], [0.0, 5.0], [1.0, 3.0], [1.0, 3.0]])).tolist()
    [[0, 0, 1, 1], [0, 2, 1, 1]]
    """
    n, p = X.shape
    if n * p > MAX_STATE_BYTES:
        raise ValueError(f"mRMR would need {n * p / 1024**3:.1f} GB of states for {n:,} rows x {p:,} features; "
                         "use fewer features (e.g. a larger minimum document frequency) or fewer rows.")
    if sp.issparse(X):
        Xc = sp.csc_matrix(X, dtype=np.float64)
        mean = np.asarray(Xc.mean(axis=0)).ravel()
        std = np.sqrt(np.maximum(np.asarray(Xc.multiply(Xc).mean(axis=0)).ravel() - mean**2, 0.0))
        lo, hi = mean - std, mean + std
        zero_state = (0.0 > lo).astype(np.int8) + (0.0 > hi)
        states = np.repeat(zero_state[:, None], n, axis=1)
        for j in range(p):
            rows = Xc.indices[Xc.indptr[j]:Xc.indptr[j + 1]]
            values = Xc.data[Xc.indptr[j]:Xc.indptr[j + 1]]
            states[j, rows] = (values > lo[j]).astype(np.int8) + (values > hi[j])
        return states
    X = np.asarray(X, dtype=np.float64)
    mean, std = X.mean(axis=0), X.std(axis=0)
    return np.ascontiguousarray(((X > mean - std).astype(np.int8) + (X > mean + std)).T)


@njit(cache=True)
def _mi_from_joint(joint, n):
    """Mutual information (nats) of a table of joint counts summing to n."""
    a, b = joint.shape
    row = np.zeros(a)
    col = np.zeros(b)
    for i in range(a):
        for k in range(b):
            row[i] += joint[i, k]
            col[k] += joint[i, k]
    mi = 0.0
    for i in range(a):
        for k in range(b):
            c = joint[i, k]
            if c > 0.0:
                mi += (c / n) * np.log(c * n / (row[i] * col[k]))
    return max(mi, 0.0)


@njit(cache=True)
def mi_with_labels(states, labels, n_labels):
    """I(x_j; c) for every row j of ``states`` (p, n) and the labels (n,) coded 0..n_labels-1."""
    p, n = states.shape
    out = np.empty(p)
    joint = np.zeros((3, n_labels))
    for j in range(p):
        joint[:, :] = 0.0
        for t in range(n):
            joint[states[j, t], labels[t]] += 1.0
        out[j] = _mi_from_joint(joint, n)
    return out


@njit(cache=True)
def mi_with_feature(states, s):
    """I(x_j; x_s) for every row j of ``states`` (p, n) and the feature s."""
    p, n = states.shape
    out = np.empty(p)
    joint = np.zeros((3, 3))
    ref = states[s]
    for j in range(p):
        joint[:, :] = 0.0
        row = states[j]
        for t in range(n):
            joint[row[t], ref[t]] += 1.0
        out[j] = _mi_from_joint(joint, n)
    return out


@dataclass(frozen=True)
class MRMRPath:
    """The greedy selection.

    order        (m,) features in the order they were selected
    criterion    (m,) the MID value of each when it was selected (its relevance for the first)
    redundancy   (m,) its mean mutual information with the features selected before it (0 for the first)
    relevance    (p,) I(x_j; c) of every feature
    last_criterion  (p,) the MID value of every feature after the last step (-inf for the selected)
    stop_reason  why the selection ended
    """

    order: np.ndarray
    criterion: np.ndarray
    redundancy: np.ndarray
    relevance: np.ndarray
    last_criterion: np.ndarray
    stop_reason: str


def mrmr_mid(states: np.ndarray, labels: np.ndarray, max_features: int, *,
             progress: Progress | None = None) -> MRMRPath:
    """Greedy MID selection of up to ``max_features`` features from the (p, n) ``states``.

    Ties go to the lower feature index. ``progress(fraction, message)`` after every step; a
    :class:`~fsengine.progress.StopRequested` it raises ends the selection with the features
    selected so far (a valid, shorter greedy sequence).
    """
    p = states.shape[0]
    _, codes = np.unique(labels, return_inverse=True)
    relevance = mi_with_labels(states, codes.astype(np.int64), int(codes.max()) + 1)
    m = min(int(max_features), p)
    redundancy_sum = np.zeros(p)
    available = np.ones(p, dtype=bool)
    order, criterion, redundancy = [], [], []
    stop_reason = (f"selected the largest number asked for, {m} features" if m < p
                   else f"every feature selected ({p})")
    current = relevance.copy()
    for step in range(m):
        current = relevance - redundancy_sum / step if step else relevance.copy()
        current[~available] = -np.inf
        j = int(np.argmax(current))
        order.append(j)
        criterion.append(float(current[j]))
        redundancy.append(float(redundancy_sum[j] / step) if step else 0.0)
        available[j] = False
        redundancy_sum += mi_with_feature(states, j)
        try:
            if progress is not None:
                progress((step + 1) / m, f"{step + 1} of {m} features selected")
        except StopRequested:
            stop_reason = "stop requested"
            break
    k = len(order)
    last = relevance - redundancy_sum / k
    last[~available] = -np.inf
    return MRMRPath(order=np.asarray(order, dtype=np.intp), criterion=np.asarray(criterion),
                    redundancy=np.asarray(redundancy), relevance=relevance, last_criterion=last,
                    stop_reason=stop_reason)


# ------------------------------------------------------------------------------------------------
# MRMRSelector._fit of the same commit (fsengine/methods/toolbox/selector.py), as a function of the
# validated X and y returning the fitted attributes the selector set.

def legacy_fit(X, y, *, max_features=30, n_features_to_select=None) -> dict:
    import pandas as pd

    from fsengine.ranking import order_from

    p = X.shape[1]
    budget = max(max_features, n_features_to_select or 0)
    path = mrmr_mid(discretise(X), y, budget)
    scores = path.last_criterion.copy()
    scores[path.order] = path.criterion
    order = order_from(scores, selected_order=path.order)
    size = path.order.size if n_features_to_select is None else min(n_features_to_select, path.order.size)
    support = np.zeros(p, dtype=bool)
    support[order[:size]] = True
    trace = pd.DataFrame({"step": np.arange(1, path.order.size + 1), "feature": path.order,
                          "relevance": path.relevance[path.order], "redundancy": path.redundancy,
                          "criterion": path.criterion})
    return {"scores_": scores, "order_": order, "support_": support, "relevance_": path.relevance,
            "stop_reason_": path.stop_reason, "trace_": trace}
