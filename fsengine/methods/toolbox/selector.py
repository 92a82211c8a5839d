"""Selectors of the reference methods: the baselines the five sources' methods are judged against."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval

from fsengine.base import BaseFeatureSelector
from fsengine.validation import validate_X


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
