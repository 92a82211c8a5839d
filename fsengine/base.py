"""The selector contract every method implements (scikit-learn compatible transformer).

A selector is a ``BaseEstimator`` + ``SelectorMixin`` whose ``fit(X, y)`` sets

``scores_``   float array (n_features,), higher = more relevant;
``order_``    permutation of ``range(n_features)``, best first: features the method selected, in
              selection order, then the rest by decreasing score (ties by lower index);
``ranking_``  int array (n_features,): the rank of each feature, 1 = best, as scikit-learn's
              ``RFE.ranking_`` means it (``ranking_[order_[i]] == i + 1``). Unlike RFE, which ties
              every selected feature at rank 1, the ranks are distinct: they follow ``order_``;
``trace_``    pandas DataFrame, one row per stage / iteration / path step;
``support_``  boolean mask of the features the method itself deems relevant (its stopping rule,
              posterior or ARD threshold, or ``n_features_to_select``);
``path_``     (path methods only) a DataFrame indexed by the path parameter, one column per feature.

``get_support()`` and ``transform`` come from ``SelectorMixin``. Subclasses implement ``_fit``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from .chunked import is_dask_array
from .validation import validate_X, validate_X_y


def order_from(scores: np.ndarray, selected_order=()) -> np.ndarray:
    """Return the contract's ``order_``: ``selected_order`` first, then the rest by score, then index.

    >>> order_from(np.array([0.1, 0.9, 0.5, 0.9]), selected_order=[2]).tolist()
    [2, 1, 3, 0]
    """
    scores = np.asarray(scores, dtype=np.float64)
    p = scores.size
    selected = [int(j) for j in selected_order]
    if len(set(selected)) != len(selected) or any(j < 0 or j >= p for j in selected):
        raise ValueError("selected_order must hold distinct feature indices in range")
    rest_mask = np.ones(p, dtype=bool)
    rest_mask[selected] = False
    rest = np.flatnonzero(rest_mask)
    safe = np.where(np.isfinite(scores[rest]), scores[rest], -np.inf)
    rest = rest[np.lexsort((rest, -safe))]
    return np.concatenate([np.asarray(selected, dtype=np.intp), rest.astype(np.intp)])


def top_k_mask(scores: np.ndarray, k: int) -> np.ndarray:
    """Boolean mask of the k best features by score (ties broken by lower index)."""
    mask = np.zeros(np.asarray(scores).size, dtype=bool)
    mask[order_from(scores)[: int(k)]] = True
    return mask


def ranks_from_order(order: np.ndarray) -> np.ndarray:
    """Rank of every feature (1 = best) from an ordering, best first.

    >>> ranks_from_order(np.array([2, 0, 1])).tolist()
    [2, 3, 1]
    """
    order = np.asarray(order, dtype=np.intp)
    ranks = np.empty(order.size, dtype=np.intp)
    ranks[order] = np.arange(1, order.size + 1)
    return ranks


class BaseFeatureSelector(SelectorMixin, BaseEstimator):
    """Shared ``fit`` plumbing: validation, then ``_fit``, then a check of the fitted contract.

    Class attributes a subclass may override:
    ``_classification`` (y is a class label), ``_min_classes``, ``_accept_sparse``.
    """

    _classification = True
    _min_classes = 2
    _accept_sparse = ("csr", "csc")

    def fit(self, X, y, progress=None):
        """Validate (X, y) and fit; returns self.

        ``progress(fraction, message)``, when given, is available to ``_fit`` as
        ``self._progress`` while it runs (long methods report through it; pages and the command
        line pass a progress bar). It is not kept after ``fit``.
        """
        self._progress = progress
        try:
            if is_dask_array(X):
                return self._chunked_fit(X, y)
            return self._validated_fit(X, y)
        finally:
            del self._progress

    def _set_order(self, order) -> None:
        """Set ``order_`` (best first) and the per-feature ``ranking_`` that follows from it."""
        self.order_ = np.asarray(order, dtype=np.intp)
        self.ranking_ = ranks_from_order(self.order_)

    def _rank_and_support(self, own_support) -> None:
        """Set ``order_``/``ranking_`` from ``scores_`` (best first, ties by lower index) and
        ``support_``: the top ``n_features_to_select`` when that budget is set, else
        ``own_support``, the method's own rule (stopping rule, posterior or ARD threshold)."""
        self._set_order(order_from(self.scores_))
        k = getattr(self, "n_features_to_select", None)
        if k is not None:
            self.support_ = top_k_mask(self.scores_, min(k, self.scores_.size))
        else:
            self.support_ = np.asarray(own_support, dtype=bool)

    def _validated_fit(self, X, y):
        self._validate_params()
        X, y = validate_X_y(
            self,
            X,
            y,
            accept_sparse=self._accept_sparse,
            classification=self._classification,
            min_classes=self._min_classes,
        )
        self._fit(X, y)
        self._check_contract()
        return self

    def _chunked_fit(self, X, y):
        """Fit on a row-chunked ``dask.array`` X (see :mod:`fsengine.chunked`): subclasses whose
        statistics are sums over rows override ``_fit_chunked``; the others say what to do."""
        self._validate_params()
        if not hasattr(self, "_fit_chunked"):
            raise TypeError(f"{type(self).__name__} needs X in memory; a dask array is accepted by "
                            "MutualInfoSelector and BIASelector. Load X with X.compute() if it fits.")
        self.n_features_in_ = int(X.shape[1])
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self._fit_chunked(X, y)
        self._check_contract()
        return self

    def _fit(self, X, y):  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement _fit(X, y)")

    def _check_contract(self):
        p = self.n_features_in_
        if self.scores_.shape != (p,) or self.support_.shape != (p,):
            raise RuntimeError(f"{type(self).__name__} produced arrays of the wrong length")
        if not np.array_equal(np.sort(self.order_), np.arange(p)):
            raise RuntimeError(f"{type(self).__name__}.order_ is not a permutation")
        if not np.array_equal(self.ranking_[self.order_], np.arange(1, p + 1)):
            raise RuntimeError(f"{type(self).__name__}.ranking_ does not follow order_")
        if not isinstance(self.trace_, pd.DataFrame):
            raise RuntimeError(f"{type(self).__name__}.trace_ must be a pandas DataFrame")

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = bool(self._accept_sparse)
        tags.target_tags.required = True
        return tags


class VarianceRankSelector(BaseFeatureSelector):
    """Reference selector: rank features by variance (unsupervised, y ignored).

    Keeps the ``n_features_to_select`` highest-variance features, or, when None, every feature
    whose variance exceeds ``threshold``. It exists so the shared base is tested with sklearn's
    ``check_estimator``; it is also a sensible baseline on the Compare page.

    Score: Var[x_j] = E[x_j^2] - E[x_j]^2 (sparse-safe).
    """

    _classification = False
    _parameter_constraints = {
        "n_features_to_select": [Interval(Integral, 1, None, closed="left"), None],
        "threshold": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, n_features_to_select=None, threshold=0.0):
        self.n_features_to_select = n_features_to_select
        self.threshold = threshold

    def fit(self, X, y=None):
        """Fit on X; y is accepted for Pipeline compatibility and ignored."""
        self._validate_params()
        X = validate_X(self, X, accept_sparse=self._accept_sparse)
        self._fit(X, None)
        self._check_contract()
        return self

    def _fit(self, X, y):
        if hasattr(X, "multiply"):
            mean = np.asarray(X.mean(axis=0)).ravel()
            var = np.asarray(X.multiply(X).mean(axis=0)).ravel() - mean**2
        else:
            var = X.var(axis=0)
        self.scores_ = np.maximum(var, 0.0)
        self._rank_and_support(self.scores_ > self.threshold)
        self.trace_ = pd.DataFrame(
            {"feature": self.order_, "variance": self.scores_[self.order_]}
        )
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        return tags
