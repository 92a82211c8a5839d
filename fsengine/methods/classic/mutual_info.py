"""Naive Bayes mutual-information ranking (Jaakkola, lecture 12, Eq. 2).

For a binary feature X_i and the class Y, with probabilities estimated from counts (the Naive
Bayes maximum-likelihood estimates),

    I(X_i; Y) = H(X_i) - H(X_i | Y)                                               (Eq. 2)

in nats. Including features in decreasing order of I maximises the log-likelihood of all the data
under the model of Eq. (1). Counting is one pass over the non-zeros of a CSC matrix (numba); the
entropies are closed forms of the counts. Independence gives G = 2 n I ~ chi^2 with K - 1 degrees
of freedom (K classes), which supplies p-values for a stopping rule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit
from scipy.special import chdtrc, erfc

from fsengine.methods.classic.binary import class_codes


@njit(cache=True)
def ones_per_class(indptr, indices, codes, n_classes):
    """counts[j, c] = #{t : x_tj = 1 and y_t = c} from the CSC arrays of a 0/1 matrix."""
    p = indptr.size - 1
    counts = np.zeros((p, n_classes))
    for j in range(p):
        for k in range(indptr[j], indptr[j + 1]):
            counts[j, codes[indices[k]]] += 1.0
    return counts


@njit(cache=True)
def _plogp_sum(a, b, total):
    """Entropy (nats) of a two-cell distribution given by counts a + b = total > 0."""
    h = 0.0
    if a > 0.0:
        h -= (a / total) * np.log(a / total)
    if b > 0.0:
        h -= (b / total) * np.log(b / total)
    return h


@njit(cache=True)
def entropies_from_counts(ones, class_sizes):
    """H(X_j) and H(X_j | Y) (nats) for every feature from ``ones[j, c]`` and the class sizes.

    H(X) = h(N_1 / n), H(X | Y) = sum_c (n_c / n) h(N_1c / n_c) with h the binary entropy.
    """
    p, K = ones.shape
    n = 0.0
    for c in range(K):
        n += class_sizes[c]
    h_x = np.zeros(p)
    h_x_given_y = np.zeros(p)
    for j in range(p):
        n1 = 0.0
        for c in range(K):
            n1 += ones[j, c]
            h_x_given_y[j] += (class_sizes[c] / n) * _plogp_sum(
                ones[j, c], class_sizes[c] - ones[j, c], class_sizes[c])
        h_x[j] = _plogp_sum(n1, n - n1, n)
    return h_x, h_x_given_y


@dataclass(frozen=True)
class MutualInformation:
    """Eq. (2) for every feature, with the counts it came from.

    mi = max(h_x - h_x_given_y, 0) (the clip only removes round-off of order 1e-16);
    g_statistic = 2 n mi; p_value = P(chi^2_{K-1} > G) under independence of X_j and Y.
    """

    mi: np.ndarray
    h_x: np.ndarray
    h_x_given_y: np.ndarray
    ones: np.ndarray
    class_sizes: np.ndarray
    classes: np.ndarray
    g_statistic: np.ndarray
    p_value: np.ndarray


def mutual_information(X01: sp.csc_matrix, y) -> MutualInformation:
    """Eq. (2) for a 0/1 CSC matrix (see :func:`.binary.binary_indicator`) and labels y."""
    X01 = sp.csc_matrix(X01)
    codes, classes = class_codes(y)
    if codes.size != X01.shape[0]:
        raise ValueError(f"X has {X01.shape[0]} rows but y has {codes.size} labels")
    K = classes.size
    ones = ones_per_class(X01.indptr.astype(np.int64), X01.indices.astype(np.int64), codes, K)
    class_sizes = np.bincount(codes, minlength=K).astype(np.float64)
    return mutual_information_from_counts(ones, class_sizes, classes)


def mutual_information_from_counts(ones: np.ndarray, class_sizes: np.ndarray, classes) -> MutualInformation:
    """Eq. (2) from the counts alone: ``ones[j, c]`` rows of class c with feature j on, and the
    class sizes (what a reduction over row blocks returns, :mod:`fsengine.chunked`)."""
    ones = np.ascontiguousarray(ones, dtype=np.float64)
    class_sizes = np.asarray(class_sizes, dtype=np.float64)
    K = class_sizes.size
    h_x, h_x_given_y = entropies_from_counts(ones, class_sizes)
    mi = np.maximum(h_x - h_x_given_y, 0.0)
    g = 2.0 * class_sizes.sum() * mi
    # chi-squared survival function; with one degree of freedom it is erfc(sqrt(G / 2)) (faster)
    p_value = erfc(np.sqrt(g / 2.0)) if K == 2 else chdtrc(K - 1, g)
    return MutualInformation(mi, h_x, h_x_given_y, ones, class_sizes, classes, g, p_value)
