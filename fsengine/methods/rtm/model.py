"""The Relevance Tagging Machine's likelihood, tag structure and predictive probability.

Model (Molchanov, Kondrashkin & Vetrov, slide "Relevance Tagging Machine"): tags x in {0, 1}^d,
class c in {0, 1}, theta_j = P(c = 1 | x_j = 1) and

    P(c = 1 | x, theta) = prod_j theta_j^x_j / (prod_j theta_j^x_j + prod_j (1 - theta_j)^x_j)
                        = sigmoid(sum_{j: x_j = 1} logit theta_j),                          (RTM)

with priors theta_j ~ Beta(alpha_j, alpha_j). Every factor t_i(theta) = P(c_i | x_i, theta)
touches only the tags present in object i, so the training kernels walk the rows of a CSR
matrix (``indptr``, ``indices``); the EM kernel also walks its columns (CSC).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit

from fsengine.methods.rtm.ep import factor_log_normaliser


@dataclass(frozen=True)
class TagMatrix:
    """Binary tags of n objects in CSR (rows) and CSC (columns) index form.

    ``indptr``/``indices``: CSR structure (int64/int32), each row's tags sorted.
    ``col_ptr``/``col_rows``: CSC structure of the same matrix (object ids per tag).
    """

    indptr: np.ndarray
    indices: np.ndarray
    col_ptr: np.ndarray
    col_rows: np.ndarray
    n_tags: int

    @property
    def n_objects(self) -> int:
        return self.indptr.size - 1

    @property
    def nnz(self) -> int:
        return self.indices.size

    def row_lengths(self) -> np.ndarray:
        return np.diff(self.indptr)


def tags_from(X, binarize: float | None = 0.0) -> TagMatrix:
    """Tag structure of X: tag j is present in object i when X[i, j] > ``binarize``.

    ``binarize=None`` requires X to hold only 0 and 1 (a clear ValueError otherwise), as for
    word-presence tags; a number follows scikit-learn's ``BernoulliNB(binarize=...)``.
    """
    X = sp.csr_matrix(X) if not sp.issparse(X) else X.tocsr()
    if binarize is None:
        values = X.data
        bad = ~np.isin(values, (0.0, 1.0))
        if bad.any():
            raise ValueError(
                f"X holds {int(bad.sum())} entries other than 0 and 1 (e.g. {values[bad][0]:g}); "
                "the RTM needs binary tags. Binarise the features first (e.g. "
                "fsengine.data.transforms.binarize_features) or set binarize to a threshold."
            )
        present = X.copy()
    else:
        present = X.copy()
        present.data = (present.data > binarize).astype(np.float64)
    present.eliminate_zeros()
    present.sum_duplicates()
    present.sort_indices()
    csc = present.tocsc()
    csc.sort_indices()
    return TagMatrix(
        indptr=present.indptr.astype(np.int64), indices=present.indices.astype(np.int32),
        col_ptr=csc.indptr.astype(np.int64), col_rows=csc.indices.astype(np.int32),
        n_tags=int(X.shape[1]),
    )


def class_counts(tags: TagMatrix, y01: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P_j, N_j): how many positive and negative objects carry tag j."""
    pos = np.zeros(tags.n_tags)
    neg = np.zeros(tags.n_tags)
    rows = np.repeat(np.arange(tags.n_objects), tags.row_lengths())
    np.add.at(pos, tags.indices, y01[rows])
    np.add.at(neg, tags.indices, 1.0 - y01[rows])
    return pos, neg


@njit(cache=True)
def predict_positive(indptr, indices, A, B, quad):
    """P(c = 1 | x, data) = E_q[sigmoid(sum_{j in S} logit theta_j)] for each CSR row.

    The same one-dimensional reduction as EP's normaliser (:func:`.ep.factor_log_normaliser` with
    q as the "cavity"): the tag of largest log-odds variance is integrated exactly, the others'
    log-odds sum as a Gaussian with its exact mean and variance (compiled in, so EP's node loops
    are SIMD loops here as well). Exact for one tag (A / (A + B)); an object without tags gets 1/2.
    """
    n = indptr.size - 1
    out = np.empty(n)
    for i in range(n):
        lo, hi = indptr[i], indptr[i + 1]
        if hi == lo:
            out[i] = 0.5
            continue
        Ai = np.empty(hi - lo)
        Bi = np.empty(hi - lo)
        for p in range(lo, hi):
            Ai[p - lo] = A[indices[p]]
            Bi[p - lo] = B[indices[p]]
        out[i] = math.exp(factor_log_normaliser(Ai, Bi, 1, quad))
    return out
