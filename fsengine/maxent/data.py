"""The training data of a conditional maxent model: a sparse instance-by-predicate matrix and
class indices, kept in both CSR (rows = instances) and CSC (columns = predicates) form."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fsengine.validation import check_finite


class MaxentData:
    """X (n instances x P predicates, any real values; binary for NLP predicates) and y in 0..Y-1.

    Attributes: ``X`` (CSR float64), ``y`` (int64), ``n``, ``n_predicates``, ``n_classes``,
    ``binary`` (every stored value is 1), and the CSC arrays ``col_ptr``, ``col_rows``,
    ``col_vals`` that the gain kernels read (rows sorted within each column).
    Explicit zeros are removed: a predicate "fires" on an instance when its value is non-zero.
    """

    def __init__(self, X, y, n_classes: int | None = None):
        X = sp.csr_matrix(X, dtype=np.float64) if not sp.issparse(X) else X.tocsr().astype(np.float64)
        X = X.copy()
        X.eliminate_zeros()
        X.sort_indices()
        check_finite(X)
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must be 1-D with one class index per row of X ({X.shape[0]}), "
                             f"got shape {y.shape}")
        if y.size and (not np.issubdtype(y.dtype, np.integer) or y.min() < 0):
            raise ValueError("y must hold class indices 0..Y-1 (encode labels, e.g. with np.unique)")
        y = y.astype(np.int64)
        k = int(y.max()) + 1 if y.size else 0
        n_classes = k if n_classes is None else int(n_classes)
        if n_classes < max(k, 2):
            raise ValueError(f"n_classes={n_classes} but y needs at least {max(k, 2)} classes")
        self.X = X
        self.y = y
        self.n, self.n_predicates = X.shape
        self.n_classes = n_classes
        self.binary = bool(np.all(X.data == 1.0))
        csc = X.tocsc()
        csc.sort_indices()
        self.col_ptr = csc.indptr.astype(np.int64)
        self.col_rows = csc.indices.astype(np.int64)
        self.col_vals = csc.data
        self._counts = None
        self._cooc = None

    def _one_hot(self) -> sp.csr_matrix:
        return sp.csr_matrix((np.ones(self.n), (np.arange(self.n), self.y)),
                             shape=(self.n, self.n_classes))

    def feature_sums(self) -> np.ndarray:
        """(P, Y) array C[j, c] = sum_{i: y_i = c} x_ij: the empirical count of feature (j, c),
        N E_p~(f) in Zhou et al.'s notation."""
        if self._counts is None:
            self._counts = np.asarray((self.X.T @ self._one_hot()).todense())
        return self._counts

    def cooccurrences(self) -> np.ndarray:
        """(P, Y) int array: number of instances of class c on which predicate j fires."""
        if self._cooc is None:
            fires = self.X.copy()
            fires.data[:] = 1.0
            self._cooc = np.rint(np.asarray((fires.T @ self._one_hot()).todense())).astype(np.int64)
        return self._cooc

    def predicate_frequency(self) -> np.ndarray:
        """Number of instances each predicate fires on (column lengths)."""
        return np.diff(self.col_ptr)

    def candidate_pairs(self, cutoff: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Candidate features: the (predicate, class) pairs seen together at least ``cutoff`` times,
        ordered by predicate then class (this order is the tie-break "lowest index")."""
        if cutoff < 1:
            raise ValueError(f"cutoff must be at least 1 (a pair never seen has no gain), got {cutoff}")
        pred, cls = np.nonzero(self.cooccurrences() >= cutoff)
        return pred.astype(np.int64), cls.astype(np.int64)
