"""Decision stumps (Jaakkola, lecture 12, Eq. 21) and the weighted-error stump search of Eq. (32).

A stump looks at one feature k and a threshold theta_0: it predicts ``left_class`` when
x_k <= theta_0 and ``right_class`` when x_k > theta_0, with left_class != right_class. For two
classes {-1, 1} this is h(x; theta) = sign(s (x_k - theta_0)) with s = +1 when the right side is
the positive class (Eq. 21); thresholds are midpoints between consecutive distinct values, so
every distinct split of the training data is tried once.

The search minimises the weighted error eps = sum_t W(t) [h(x_t) != y_t] (Eq. 32) over all
features, thresholds and class pairs. Each column's non-zeros are sorted once per fit
(:func:`sorted_columns`); a round then walks every column in value order accumulating the
per-class weight to the left of the threshold, with the implicit zeros of a sparse column
entering as one block between the negative and the positive values. Cost per round:
O(K (nnz + d)) for nnz stored entries, d features, K classes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit


@dataclass(frozen=True)
class SortedColumns:
    """CSC arrays with each column's entries sorted by value (explicit zeros removed)."""

    indptr: np.ndarray
    rows: np.ndarray
    values: np.ndarray
    n_rows: int

    @property
    def n_features(self) -> int:
        return self.indptr.size - 1


@njit(cache=True)
def _sort_within_columns(indptr, indices, data):
    """Each column's (row, value) pairs sorted by value (stable: ties keep row order)."""
    rows = np.empty_like(indices)
    values = np.empty_like(data)
    for j in range(indptr.size - 1):
        s, e = indptr[j], indptr[j + 1]
        order = np.argsort(data[s:e], kind="mergesort")
        for i in range(e - s):
            rows[s + i] = indices[s + order[i]]
            values[s + i] = data[s + order[i]]
    return rows, values


def sorted_columns(X) -> SortedColumns:
    """Sort every column's stored values once (dense input is stored as CSC without its zeros)."""
    Xc = sp.csc_matrix(X, dtype=np.float64, copy=True)
    Xc.eliminate_zeros()
    Xc.sort_indices()
    indptr = Xc.indptr.astype(np.int64)
    rows, values = _sort_within_columns(indptr, Xc.indices.astype(np.int64), Xc.data)
    return SortedColumns(indptr, rows, values, Xc.shape[0])


@njit(cache=True)
def _best_pair(left, total, best_l, best_r):
    """max over c_l != c_r of left[c_l] + (total - left)[c_r]; writes the classes, returns the sum."""
    K = left.shape[0]
    a1, a2, b1, b2 = -1, -1, -1, -1
    for c in range(K):
        lv = left[c]
        if a1 < 0 or lv > left[a1]:
            a2, a1 = a1, c
        elif a2 < 0 or lv > left[a2]:
            a2 = c
        rv = total[c] - left[c]
        if b1 < 0 or rv > total[b1] - left[b1]:
            b2, b1 = b1, c
        elif b2 < 0 or rv > total[b2] - left[b2]:
            b2 = c
    if a1 != b1:
        best_l[0], best_r[0] = a1, b1
        return left[a1] + total[b1] - left[b1]
    keep_left = left[a1] + total[b2] - left[b2]
    keep_right = left[a2] + total[b1] - left[b1]
    if keep_left >= keep_right:
        best_l[0], best_r[0] = a1, b2
        return keep_left
    best_l[0], best_r[0] = a2, b1
    return keep_right


@njit(cache=True)
def best_stump(indptr, rows, values, n_rows, codes, weights, n_classes):
    """Weighted-error-minimising stump (Eq. 32) over every feature, threshold and class pair.

    Returns (feature, threshold, left_class, right_class, weighted_error); feature -1 when no
    feature has two distinct values. Ties keep the first (lowest feature, then lowest threshold).
    """
    total = np.zeros(n_classes)
    for t in range(n_rows):
        total[codes[t]] += weights[t]
    mass = total.sum()
    left = np.zeros(n_classes)
    zero_block = np.zeros(n_classes)
    cl = np.zeros(1, dtype=np.int64)
    cr = np.zeros(1, dtype=np.int64)
    best_j, best_theta, best_l, best_r, best_err = -1, 0.0, 0, 1, np.inf
    for j in range(indptr.size - 1):
        s, e = indptr[j], indptr[j + 1]
        for c in range(n_classes):
            zero_block[c] = total[c]
            left[c] = 0.0
        for k in range(s, e):
            zero_block[codes[rows[k]]] -= weights[rows[k]]
        zero_pending = (n_rows - (e - s)) > 0
        k = s
        have_prev = False
        prev = 0.0
        while True:
            if zero_pending and (k >= e or values[k] > 0.0):
                v, is_zero = 0.0, True
            elif k < e:
                v, is_zero = values[k], False
            else:
                break
            if have_prev:
                if n_classes == 2:  # the two signs s of Eq. (21)
                    err_01 = left[1] + total[0] - left[0]
                    err_10 = left[0] + total[1] - left[1]
                    if err_01 < best_err or err_10 < best_err:
                        best_j, best_theta = j, 0.5 * (prev + v)
                        if err_01 <= err_10:
                            best_err, best_l, best_r = err_01, 0, 1
                        else:
                            best_err, best_l, best_r = err_10, 1, 0
                else:
                    err = mass - _best_pair(left, total, cl, cr)
                    if err < best_err:
                        best_j, best_theta, best_l, best_r, best_err = j, 0.5 * (prev + v), cl[0], cr[0], err
            if is_zero:
                for c in range(n_classes):
                    left[c] += zero_block[c]
                zero_pending = False
            else:
                while k < e and values[k] == v:
                    left[codes[rows[k]]] += weights[rows[k]]
                    k += 1
            prev = v
            have_prev = True
    return best_j, best_theta, best_l, best_r, best_err


@dataclass(frozen=True)
class Stump:
    """h(x) = left_class if x[feature] <= threshold else right_class (class codes 0..K-1)."""

    feature: int
    threshold: float
    left_class: int
    right_class: int
    error: float

    def predict_codes(self, X) -> np.ndarray:
        column = X[:, [self.feature]]  # a list index: the sparse arrays of scipy 1.11 (the floor) have no 1-D slices
        column = column.toarray().ravel() if sp.issparse(column) else np.asarray(column).ravel()
        return np.where(column <= self.threshold, self.left_class, self.right_class)


def find_stump(columns: SortedColumns, codes: np.ndarray, weights: np.ndarray, n_classes: int) -> Stump:
    """The stump minimising the weighted error (Eq. 32) for normalised ``weights``."""
    j, theta, left, right, err = best_stump(columns.indptr, columns.rows, columns.values,
                                            columns.n_rows, codes, weights, n_classes)
    return Stump(int(j), float(theta), int(left), int(right), float(err))
