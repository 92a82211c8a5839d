"""Selectors of the reference methods: the baselines the five sources' methods are judged against."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval

from fsengine.base import BaseFeatureSelector
from fsengine.progress import report_to
from fsengine.validation import validate_X


class VarianceRankSelector(BaseFeatureSelector):
    """Rank features by their variance (unsupervised: y is ignored).

    The score of feature j is its (population) variance

        Var[x_j] = E[x_j^2] - E[x_j]^2,

    computed without densifying sparse X. It is no method of the five sources: it exists so that
    the shared base is tested with scikit-learn's ``check_estimator``, and it is a baseline on the
    Compare page (a method must beat ignoring the labels).

    Parameters
    ----------
    n_features_to_select : int or None, default None
        Keep the k highest-variance features. None: keep every feature whose variance exceeds
        ``threshold``.
    threshold : float >= 0, default 0.0
        Variance a feature must exceed to be kept when ``n_features_to_select`` is None (0.0:
        drop constant features, as ``sklearn.feature_selection.VarianceThreshold``).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The variance of each feature.
    order_ : ndarray of shape (n_features,)
        Features by decreasing variance (ties by lower index).
    ranking_ : ndarray of shape (n_features,)
        Rank of each feature, 1 = largest variance.
    support_ : ndarray of shape (n_features,), dtype bool
    trace_ : DataFrame with n_features rows
        feature and variance, in ``order_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Only when X has string column names.

    See Also
    --------
    sklearn.feature_selection.VarianceThreshold : the same score as a filter with a threshold.

    Notes
    -----
    Passes scikit-learn's ``check_estimator`` without exemptions (``target_tags.required`` is False).

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import VarianceRankSelector
    >>> X = np.array([[0.0, 1.0, 5.0], [0.0, 3.0, 1.0], [0.0, 2.0, 9.0]])
    >>> sel = VarianceRankSelector().fit(X)
    >>> sel.order_.tolist(), sel.get_support().tolist()
    ([2, 1, 0], [False, True, True])
    """

    _classification = False
    _parameter_constraints = {
        "n_features_to_select": [Interval(Integral, 1, None, closed="left"), None],
        "threshold": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, *, n_features_to_select=None, threshold=0.0):
        self.n_features_to_select = n_features_to_select
        self.threshold = threshold

    def fit(self, X, y=None, *, progress=None):
        """Fit on X; y is accepted for Pipeline compatibility and ignored. ``progress(fraction,
        message)`` is told once, when the variances are computed (one pass over X)."""
        self._validate_params()
        X = validate_X(self, X, accept_sparse=self._accept_sparse)
        self._fit(X, None)
        self._check_contract()
        report_to(progress)(1.0, "variances computed")
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
