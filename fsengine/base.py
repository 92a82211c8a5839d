"""The selector contract every method implements (a scikit-learn compatible transformer).

A selector is a ``BaseEstimator`` + ``SelectorMixin``. Its parameters are keyword-only and kept
untouched by ``__init__``; the defaults of the parameters the app and the command line offer come
from the method registry (:func:`fsengine.methods.registry.method_defaults`), so the three routes
agree. ``fit(X, y, *, progress=None)`` validates once and sets

``scores_``            float array (n_features,), higher = more relevant;
``order_``             permutation of ``range(n_features)``, best first: features the method
                       selected, in selection order, then the rest by decreasing score (ties by
                       lower index);
``ranking_``           int array (n_features,): the rank of each feature, 1 = best, as
                       scikit-learn's ``RFE.ranking_`` means it (``ranking_[order_[i]] == i + 1``).
                       Unlike RFE, which ties every selected feature at rank 1, the ranks are
                       distinct: they follow ``order_``;
``support_``           boolean mask of the features the method itself deems relevant (its stopping
                       rule, posterior or ARD threshold, or ``n_features_to_select``);
``trace_``             pandas DataFrame, one row per stage / iteration / path step;
``path_``              (path methods only) a DataFrame indexed by the path parameter, one column
                       per feature;
``n_features_in_``, ``feature_names_in_``  as in scikit-learn;
``model_``             (where the method has one) the inner fitted model: an Ising model, a
                       maxent model, a boosted ensemble, an RTM classifier, ...;
``stop_reason_``       (greedy methods) why the selection stopped, in words.

Progress: ``progress(fraction, message)`` and the stop request of :mod:`fsengine.progress`;
inside ``_fit`` a subclass reports through ``self._progress`` (never None there).

``get_support()`` and ``transform`` come from ``SelectorMixin``. Subclasses implement ``_fit``.
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import ClassifierTags
from sklearn.utils.validation import check_is_fitted

from fsengine.chunked import is_dask_array
from fsengine.progress import StopRequested, report_to
from fsengine.ranking import order_from, ranks_from_order, top_k_mask
from fsengine.validation import as_binary_labels, validate_X_y


def forget_fit(estimator) -> None:
    """Remove every fitted attribute (``name_``) of ``estimator``: a fit stopped by
    :class:`~fsengine.progress.StopRequested` leaves it unfitted (scikit-learn's
    ``check_is_fitted`` then says so), never holding a mix of an old fit and the new input."""
    for name in [v for v in vars(estimator) if v.endswith("_") and not v.startswith("__")]:
        delattr(estimator, name)


class BaseFeatureSelector(SelectorMixin, BaseEstimator):
    """Shared ``fit`` plumbing: validation, then ``_fit``, then a check of the fitted contract.

    Class attributes a subclass may override (or make properties of its parameters):
    ``_classification`` (y is a class label), ``_min_classes``, ``_accept_sparse`` and
    ``_two_classes``, the one declaration of a method defined for exactly two classes: ``fit``
    then refuses other targets with one message, and the estimator's tags say
    ``classifier_tags.multi_class = False``, which makes scikit-learn's ``check_estimator`` hand it
    binary targets (the registry's ``Needs(two_classes=True)`` must agree; a test holds them).

    Examples
    --------
    A selector of your own: ``_fit`` sets the scores and the trace, ``_rank_and_support`` the order,
    the ranks and the support; validation, ``n_features_in_`` and the contract check come from here.

    >>> from numbers import Integral
    >>> import numpy as np
    >>> import pandas as pd
    >>> from sklearn.utils._param_validation import Interval
    >>> from fsengine.selectors import BaseFeatureSelector
    >>> class MeanGapSelector(BaseFeatureSelector):    # features by the gap between the class means
    ...     _two_classes = True
    ...     _parameter_constraints = {"n_features_to_select": [Interval(Integral, 1, None, closed="left"), None]}
    ...     def __init__(self, *, n_features_to_select=None):
    ...         self.n_features_to_select = n_features_to_select
    ...     def _fit(self, X, y):
    ...         a, b = np.unique(y)
    ...         self.scores_ = np.abs(X[y == a].mean(axis=0) - X[y == b].mean(axis=0))
    ...         self._rank_and_support(self.scores_ > self.scores_.mean())
    ...         self.trace_ = pd.DataFrame({"feature": self.order_, "score": self.scores_[self.order_]})
    >>> X = np.array([[0.0, 5.0, 1.0], [0.1, 5.0, 2.0], [1.0, 5.0, 2.0], [1.1, 5.0, 2.5]])
    >>> sel = MeanGapSelector(n_features_to_select=1).fit(X, [0, 0, 1, 1])
    >>> sel.order_.tolist(), sel.ranking_.tolist(), sel.get_support().tolist()
    ([0, 2, 1], [1, 3, 2], [True, False, False])
    >>> MeanGapSelector().fit(X, [0, 1, 2, 2])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: This method needs exactly two classes, got 3 (0, 1, 2). Choose two classes ...
    """

    _classification = True
    _min_classes = 2
    _accept_sparse = ("csr", "csc")
    _two_classes = False

    def fit(self, X, y, *, progress=None):
        """Validate (X, y) and fit; returns self.

        ``progress(fraction, message)``, when given, is available to ``_fit`` as
        ``self._progress`` while it runs (:mod:`fsengine.progress`: long methods report through
        it, and a callback may raise :class:`~fsengine.progress.StopRequested`). It is not kept
        after ``fit``.
        """
        self._progress = report_to(progress)
        try:
            if is_dask_array(X):
                return self._chunked_fit(X, y)
            return self._validated_fit(X, y)
        except StopRequested:
            forget_fit(self)  # a stop that reached here leaves no result: unfitted, not half-fitted
            raise
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
        if self._two_classes:
            as_binary_labels(y)  # exactly two classes, or its message
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

    @abstractmethod
    def _fit(self, X, y):
        """Fit the method on validated X, y: set ``scores_`` and, through ``_rank_and_support``,
        ``order_``, ``ranking_`` and ``support_``; return self."""

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
        if self._two_classes:
            tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags
