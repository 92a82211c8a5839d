"""A fitted conditional maxent model: active (predicate, class) features and their weights.

p(y | x) = exp(sum_k w_k x_{pred_k} [y = cls_k]) / Z(x)   (Zhou et al. Section 2; Daume III Eq. 3)
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


class MaxentModel:
    """Weights of an arbitrary set of (predicate, class) features.

    ``predicates``, ``classes`` and ``weights`` are aligned 1-D arrays (a pair may appear only
    once). ``n_predicates`` is the width of the matrices the model reads, ``n_classes`` = Y.
    """

    def __init__(self, n_predicates: int, n_classes: int, predicates, classes, weights):
        self.n_predicates = int(n_predicates)
        self.n_classes = int(n_classes)
        self.predicates = np.asarray(predicates, dtype=np.int64).ravel()
        self.classes = np.asarray(classes, dtype=np.int64).ravel()
        self.weights = np.asarray(weights, dtype=np.float64).ravel()
        if not (self.predicates.size == self.classes.size == self.weights.size):
            raise ValueError("predicates, classes and weights must have the same length")
        if self.predicates.size:
            if self.predicates.min() < 0 or self.predicates.max() >= self.n_predicates:
                raise ValueError(f"predicate index out of range 0..{self.n_predicates - 1}")
            if self.classes.min() < 0 or self.classes.max() >= self.n_classes:
                raise ValueError(f"class index out of range 0..{self.n_classes - 1}")
            keys = self.predicates * self.n_classes + self.classes
            if np.unique(keys).size != keys.size:
                raise ValueError("a (predicate, class) feature appears more than once")
        if not np.all(np.isfinite(self.weights)):
            raise ValueError("weights must be finite")

    @property
    def n_features(self) -> int:
        return int(self.weights.size)

    def weight_matrix(self) -> sp.csr_matrix:
        """(P, Y) sparse matrix W with W[pred_k, cls_k] = w_k, so scores = X W."""
        return sp.csr_matrix((self.weights, (self.predicates, self.classes)),
                             shape=(self.n_predicates, self.n_classes))

    def _check_X(self, X):
        X = sp.csr_matrix(X, dtype=np.float64) if not sp.issparse(X) else X.tocsr()
        if X.shape[1] != self.n_predicates:
            raise ValueError(f"X has {X.shape[1]} predicate columns; the model was built for "
                             f"{self.n_predicates}")
        return X

    def scores(self, X) -> np.ndarray:
        """(n, Y) un-normalised log-probabilities sum_k w_k f_k(x, y)."""
        X = self._check_X(X)
        return np.asarray((X @ self.weight_matrix()).todense())

    def predict_proba(self, X) -> np.ndarray:
        """(n, Y) p(y | x) (softmax of :meth:`scores`, computed stably)."""
        s = self.scores(X)
        s -= s.max(axis=1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=1, keepdims=True)
        return s

    def predict(self, X) -> np.ndarray:
        """Most probable class index (ties: lowest class index)."""
        return np.argmax(self.scores(X), axis=1)

    def log_likelihood(self, X, y) -> float:
        """sum_i log p(y_i | x_i)."""
        s = self.scores(X)
        mx = s.max(axis=1)
        lse = mx + np.log(np.exp(s - mx[:, None]).sum(axis=1))
        y = np.asarray(y, dtype=np.int64)
        return float(np.sum(s[np.arange(y.size), y] - lse))
