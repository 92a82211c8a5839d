"""Permutation importance without re-scoring a model per shuffle: the same numbers as
scikit-learn's ``sklearn.inspection.permutation_importance`` for the two models of
:class:`fsengine.methods.toolbox.selector.PermutationSelector`, from arrays.

With s the model's held-out score and s_{r,j} its score after shuffle r of column j (Breiman 2001,
Sec. 10; Fisher, Rudin & Dominici 2019), the importance is ``s - s_{r,j}``. scikit-learn scores
every one of the R x p shuffled copies of the held-out rows through the model's full prediction
path. Two facts make that unnecessary:

* **Linear models** (standardised L2 logistic or ridge regression). The decision function is
  ``f(x) = sum_j w'_j x_j + b'`` with ``w'_j = w_j / sigma_j`` on the raw scale, so shuffling
  column j changes row i's decision by exactly ``w'_j (x_{pi(i) j} - x_{ij})`` (one multiply per
  row and class). :func:`linear_permutation_scores` adds that to the model's own decision values
  and scores the result (accuracy of ``argmax`` / ``> 0``, or R²).
* **Random forests.** A row's path through a tree changes only at nodes that split on the shuffled
  column. :func:`forest_permutation_scores` stores each tree's per-row leaf probabilities once,
  re-traverses only the trees that split on column j, and sums the trees in scikit-learn's own
  order (so ties in the vote, e.g. 50 of 100 trees, break exactly as scikit-learn breaks them).

The shuffles are scikit-learn's own: :func:`sklearn_shuffles` draws one seed from
``random_state`` and, as ``permutation_importance`` does for every column, shuffles an index
array in place R times, each shuffle applied to the column as the previous shuffle left it.
Tests check every importance equal to scikit-learn's ``permutation_importance``.

The one caveat is round-off: ``f + w'(x' - x)`` and scikit-learn's recomputed ``f'`` can differ in
the last bit, so a row whose shuffled decision value lies within ~1e-12 of a class boundary could
be classified differently. Such rows need a decision value that cancels to zero in floating point;
none occurs in the tests' data, which include the catalogue's breast-cancer and digits tables.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from sklearn.utils import check_random_state

#: the largest block of (tree, row) leaf probabilities the forest path keeps at once, in bytes
FOREST_BLOCK_BYTES = 256 * 2**20


def sklearn_shuffles(n_rows: int, n_repeats: int, random_state) -> np.ndarray:
    """The (n_repeats, n_rows) row orders ``permutation_importance`` gives every column: shuffle r
    of column j is ``x[:, j][orders[r]]``.

    scikit-learn draws ``seed = random_state.randint(2**31)`` once, and for each column starts a
    ``RandomState(seed)`` that shuffles ``idx = arange(n)`` in place before each repeat, writing
    ``col = col[idx]``; repeat r therefore sees the composition of the first r shuffles.
    """
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max + 1)
    rng = check_random_state(seed)
    idx = np.arange(n_rows)
    current = np.arange(n_rows)
    orders = np.empty((n_repeats, n_rows), dtype=np.int64)
    for r in range(n_repeats):
        rng.shuffle(idx)
        current = current[idx]
        orders[r] = current
    return orders


@njit(cache=True)
def _classification_counts(decision, X, coef, codes, orders):
    """Correct predictions for every shuffle r of every column j: ``decision`` (n, K) the model's
    decision values (K = 1: binary, class 1 where > 0; else the argmax, first on ties), ``coef``
    (K, p) on the raw scale, ``codes`` the true class indices. Returns (R, p) counts."""
    n, K = decision.shape
    p = X.shape[1]
    R = orders.shape[0]
    counts = np.zeros((R, p), dtype=np.int64)
    shifted = np.empty(K)
    for j in range(p):
        for r in range(R):
            correct = 0
            for i in range(n):
                step = X[orders[r, i], j] - X[i, j]
                if K == 1:
                    value = decision[i, 0] + coef[0, j] * step
                    pred = 1 if value > 0 else 0
                else:
                    best = 0
                    for k in range(K):
                        shifted[k] = decision[i, k] + coef[k, j] * step
                        if shifted[k] > shifted[best]:
                            best = k
                    pred = best
                if pred == codes[i]:
                    correct += 1
            counts[r, j] = correct
    return counts


@njit(cache=True)
def _regression_residuals(prediction, X, coef, y, orders):
    """Residual sums of squares of ``prediction + coef_j (x_{pi(i) j} - x_{ij})`` for every
    shuffle r of every column j: (R, p)."""
    n, p = X.shape
    R = orders.shape[0]
    out = np.zeros((R, p))
    for j in range(p):
        for r in range(R):
            total = 0.0
            for i in range(n):
                res = y[i] - (prediction[i] + coef[j] * (X[orders[r, i], j] - X[i, j]))
                total += res * res
            out[r, j] = total
    return out


def _raw_scale_linear(model):
    """(w', scaler-free) coefficients of a fitted ``make_pipeline(StandardScaler(), linear)`` on
    the raw features: ``w_j / sigma_j`` (the shift of the mean only moves the intercept)."""
    scaler, linear = model[0], model[-1]
    scale = scaler.scale_ if scaler.scale_ is not None else 1.0
    return np.atleast_2d(np.asarray(linear.coef_, dtype=np.float64)) / scale


def linear_permutation_scores(model, X, y, orders, *, classification: bool) -> np.ndarray:
    """(R, p) held-out scores of the fitted pipeline ``model`` (StandardScaler + LogisticRegression
    or Ridge) after each shuffle of each column: accuracy for class labels, R² for a real target.
    Equal to scikit-learn's scores of the shuffled copies (module docstring)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    coef = _raw_scale_linear(model)
    if classification:
        decision = np.asarray(model.decision_function(X), dtype=np.float64)
        decision = decision.reshape(len(X), -1)
        codes = np.searchsorted(model.classes_, y)
        return _classification_counts(decision, X, coef, codes, orders) / len(X)
    y = np.asarray(y, dtype=np.float64)
    prediction = np.asarray(model.predict(X), dtype=np.float64)
    total = float(np.sum((y - y.mean()) ** 2))
    if total == 0.0:
        raise ValueError("R² is undefined for a constant held-out target; hold out more rows.")
    return 1.0 - _regression_residuals(prediction, X, coef[0], y, orders) / total


# --- random forests --------------------------------------------------------------------------------

@njit(cache=True)
def _leaf(left, right, feature, threshold, x_row, j, value_j):
    """The leaf a row reaches in one tree, with column j's value replaced by ``value_j``
    (scikit-learn's rule: go left when ``x[feature] <= threshold``, x compared as float32)."""
    node = 0
    while left[node] != -1:
        f = feature[node]
        v = value_j if f == j else x_row[f]
        node = left[node] if v <= threshold[node] else right[node]
    return node


@njit(cache=True)
def _forest_scores(lefts, rights, features, thresholds, offsets, leaf_values, base_leaves, trees_of,
                   trees_ptr, X32, orders, codes, y, classification):
    """(R, p) scores of a forest after each shuffle of each column.

    ``leaf_values`` (total nodes, K) per-node outputs (class probabilities or the regression
    value), the trees' node arrays concatenated (tree t at ``offsets[t]``); ``base_leaves`` (T, n)
    the leaf of every row in every tree on the unshuffled data; ``trees_of`` / ``trees_ptr`` (CSR)
    the trees that split on each column. The forest's output is summed over the trees in tree order
    and divided by T, as scikit-learn does, so the arithmetic (and the argmax's ties) are its own.
    """
    T, n = base_leaves.shape
    p = X32.shape[1]
    R = orders.shape[0]
    K = leaf_values.shape[1]
    scores = np.zeros((R, p))
    leaves = np.empty(T, dtype=np.int64)
    total_ss = 0.0
    if not classification:
        mean = 0.0
        for i in range(n):
            mean += y[i]
        mean /= n
        for i in range(n):
            total_ss += (y[i] - mean) ** 2
    out = np.empty(K)
    for j in range(p):
        start, stop = trees_ptr[j], trees_ptr[j + 1]
        for r in range(R):
            hits = 0
            ss = 0.0
            for i in range(n):
                value_j = X32[orders[r, i], j]
                for t in range(T):
                    leaves[t] = base_leaves[t, i]
                for s in range(start, stop):
                    t = trees_of[s]
                    o = offsets[t]
                    leaves[t] = o + _leaf(lefts[o:offsets[t + 1]], rights[o:offsets[t + 1]],
                                          features[o:offsets[t + 1]], thresholds[o:offsets[t + 1]],
                                          X32[i], j, value_j)
                for k in range(K):
                    out[k] = 0.0
                for t in range(T):
                    for k in range(K):
                        out[k] += leaf_values[leaves[t], k]
                for k in range(K):
                    out[k] /= T
                if classification:
                    best = 0
                    for k in range(1, K):
                        if out[k] > out[best]:
                            best = k
                    if best == codes[i]:
                        hits += 1
                else:
                    ss += (y[i] - out[0]) ** 2
            scores[r, j] = hits / n if classification else 1.0 - ss / total_ss
    return scores


def _tree_arrays(forest, classification: bool):
    """The trees' node arrays concatenated, node outputs as scikit-learn's ``predict_proba`` /
    ``predict`` of one tree gives them, and the CSR list of trees splitting on each column."""
    trees = [est.tree_ for est in forest.estimators_]
    offsets = np.zeros(len(trees) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([tree.node_count for tree in trees])
    lefts = np.concatenate([tree.children_left for tree in trees]).astype(np.int64)
    rights = np.concatenate([tree.children_right for tree in trees]).astype(np.int64)
    features = np.concatenate([tree.feature for tree in trees]).astype(np.int64)
    thresholds = np.concatenate([tree.threshold for tree in trees]).astype(np.float64)
    values = []
    for tree in trees:
        value = tree.value[:, 0, :] if classification else tree.value[:, :, 0]
        if classification:  # DecisionTreeClassifier.predict_proba's normalisation, node by node
            value = value[:, : forest.n_classes_].copy()
            normalizer = value.sum(axis=1)[:, np.newaxis]
            normalizer[normalizer == 0.0] = 1.0
            value /= normalizer
        values.append(np.asarray(value, dtype=np.float64))
    p = forest.n_features_in_
    using = [np.unique(tree.feature[tree.feature >= 0]) for tree in trees]
    per_column = [[] for _ in range(p)]
    for t, columns in enumerate(using):
        for j in columns:
            per_column[j].append(t)
    trees_ptr = np.zeros(p + 1, dtype=np.int64)
    trees_ptr[1:] = np.cumsum([len(ts) for ts in per_column])
    trees_of = np.array([t for ts in per_column for t in ts], dtype=np.int64)
    return lefts, rights, features, thresholds, offsets, np.concatenate(values), trees_of, trees_ptr


def forest_permutation_scores(forest, X, y, orders, *, classification: bool) -> np.ndarray:
    """(R, p) held-out scores of a fitted scikit-learn random forest after each shuffle of each
    column (accuracy or R²), equal to scoring the shuffled copies with the forest itself."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    lefts, rights, features, thresholds, offsets, values, trees_of, trees_ptr = _tree_arrays(forest, classification)
    base = np.stack([est.tree_.apply(X32) for est in forest.estimators_]).astype(np.int64)
    base += offsets[:-1, None]
    codes = np.searchsorted(forest.classes_, y) if classification else np.zeros(len(X), dtype=np.int64)
    target = np.zeros(len(X)) if classification else np.asarray(y, dtype=np.float64)
    return _forest_scores(lefts, rights, features, thresholds, offsets, values, base, trees_of, trees_ptr,
                          X32, orders, codes, target, classification)
