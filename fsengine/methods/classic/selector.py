"""scikit-learn selectors for the classic criteria of Jaakkola's lecture 12.

``MutualInfoSelector``  Naive Bayes mutual-information ranking (Eq. 2)
``MDLSelector``         MDL sequential forward selection under Naive Bayes (Eq. 10-15)
``L1PathSelector``      L1-logistic path over C, features ranked by entry (Eq. 18-19)
``BoostingSelector``    AdaBoost with weighted-error stumps, ranked by first use (Eq. 21-34)

The two Naive Bayes criteria need binary features. Their ``binarize`` parameter is None by
default: non-binary input is then refused with a message naming the ways to binarise
(:func:`fsengine.data.transforms.binarize_features`, ``sklearn.preprocessing.Binarizer``, or
``binarize='auto'`` / a threshold here, which applies the same rule as ``binarize_features`` and
records it in ``binarization_``).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from fsengine.base import BaseFeatureSelector
from fsengine.chunked import class_counts, classes_of
from fsengine.methods.classic.binary import binarize_matrix, binary_indicator
from fsengine.methods.classic.boosting import adaboost_stumps
from fsengine.methods.classic.l1_path import SOLVERS, l1_logistic_path, path_grid
from fsengine.methods.classic.mdl import mdl_forward_selection
from fsengine.methods.classic.mutual_info import mutual_information, mutual_information_from_counts
from fsengine.ranking import order_from
from fsengine.validation import validate_X

_BINARIZE = [None, StrOptions({"auto"}), Real]
_BUDGET = [Interval(Integral, 1, None, closed="left"), None]


class _BinaryInputSelector(BaseFeatureSelector):
    """Shared binary-input handling of the Naive Bayes criteria (see the module docstring)."""

    def _binary_input(self, X):
        if self.binarize is None:
            self.binarization_ = None
            return binary_indicator(X, type(self).__name__)
        X01, self.binarization_ = binarize_matrix(X, self.binarize)
        return X01


class MutualInfoSelector(_BinaryInputSelector):
    """Rank binary features by the Naive Bayes mutual information I(X_i; Y) (Eq. 2, nats).

    Parameters
    ----------
    n_features_to_select : int or None
        Keep the k highest-MI features. None: keep every feature whose independence test
        (G = 2 n I ~ chi^2 with K-1 degrees of freedom) rejects at level ``alpha`` after a
        Bonferroni correction over the d features.
    alpha : float in (0, 1)
        Family-wise level of that test.
    binarize : None, "auto" or float
        None: X must be binary (0/1, or -1/1 dense); "auto" or a threshold: binarise as
        :func:`fsengine.data.transforms.binarize_features` does (recorded in ``binarization_``).

    Attributes
    ----------
    scores_ : I(X_i; Y) per feature.   p_values_ : uncorrected independence-test p-values.
    trace_ : one row per rank: feature, mi, h_x, h_x_given_y, g_statistic, p_value,
        p_bonferroni, selected.
    classes_, binarization_.

    Multiclass: Eq. (2) holds for any number of classes. check_estimator passes with
    ``binarize="auto"``; the default (None) refuses the continuous data those checks use.
    """

    _parameter_constraints = {
        "n_features_to_select": _BUDGET,
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "binarize": _BINARIZE,
    }

    def __init__(self, n_features_to_select=None, alpha=0.01, binarize=None):
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.binarize = binarize

    def _fit(self, X, y):
        self._fit_result(mutual_information(self._binary_input(X), y), X.shape[1])

    def _fit_chunked(self, X, y):
        """A row-chunked dask X: the per-class counts are reduced over row blocks
        (:mod:`fsengine.chunked`); binary data, or a numeric ``binarize`` threshold (x > t)."""
        if self.binarize == "auto":
            raise ValueError("binarize='auto' needs the column medians of the whole array; for a dask array "
                             "pass a threshold (e.g. binarize=0.5 for data in [0, 1]) or binary data.")
        classes = classes_of(y)
        threshold = None if self.binarize is None else float(self.binarize)
        counts = class_counts(X, y, classes, threshold)
        if threshold is None and not counts.binary:
            raise ValueError(f"{type(self).__name__} needs binary features (0/1 or -1/1); the dask array holds "
                             "other values. Pass binarize=<threshold> (x > threshold counts as on) or binarise "
                             "the array first, e.g. (X > 0.5).astype('float32').")
        self.binarization_ = None if counts.binary else f"features binarised as x > {threshold:g}"
        ones = counts.ones if counts.binary else counts.above  # binary data is kept as it is, as in memory
        self._fit_result(mutual_information_from_counts(ones, counts.class_sizes, classes), X.shape[1])

    def _fit_result(self, result, p):
        """Scores, support (Bonferroni-corrected independence test) and trace from Eq. (2)."""
        self.classes_ = result.classes
        self.scores_ = result.mi
        self.p_values_ = result.p_value
        p_bonferroni = np.minimum(result.p_value * p, 1.0)
        self._rank_and_support(p_bonferroni < self.alpha)
        r = self.order_
        self.trace_ = pd.DataFrame({
            "rank": np.arange(1, p + 1), "feature": r, "mi": result.mi[r], "h_x": result.h_x[r],
            "h_x_given_y": result.h_x_given_y[r], "g_statistic": result.g_statistic[r],
            "p_value": result.p_value[r], "p_bonferroni": p_bonferroni[r],
            "selected": self.support_[r],
        })


class MDLSelector(_BinaryInputSelector):
    """MDL forward selection with the Naive Bayes classifier (Eq. 10-15).

    Features are added one at a time, each time the one giving the smallest conditional
    description length of the labels DL-data (Eq. 10) with the Naive Bayes parameters fixed from
    counts; the discriminant is updated incrementally. ``support_`` is the prefix minimising
    DL = DL-data + DL-model (Eq. 15) over the explored sizes 0..max_features.

    Parameters
    ----------
    n_features_to_select : int or None
        None: the MDL minimiser. k: the first k features of the forward sequence.
    max_features : int
        Largest subset size explored (the minimiser is searched over 0..max_features).
    binarize : None, "auto" or float
        As for :class:`MutualInfoSelector`.

    Attributes
    ----------
    scores_ : DL-data decrease (nats) when the feature was added; for features never added, the
        decrease it offered at the last step.
    trace_ : one row per size 0..m: size, feature (-1 for the empty set), dl_data, dl_model,
        dl_total, gain, the four DL-model terms (log_star, log_binom, class_counts, parameters)
        and ``selected`` (size <= the chosen size).
    best_size_, forward_sequence_ (the forward sequence), classes_, binarization_.

    Multiclass: K-class Naive Bayes (softmax of the per-class log-joints); the model terms
    generalise to log C(n+K-1, K-1) and |J| sum_c log(n_c + 1), which are Eq. (14) at K = 2.
    check_estimator passes with ``binarize="auto"``.
    """

    _parameter_constraints = {
        "n_features_to_select": _BUDGET,
        "max_features": [Interval(Integral, 1, None, closed="left")],
        "binarize": _BINARIZE,
    }

    def __init__(self, n_features_to_select=None, max_features=50, binarize=None):
        self.n_features_to_select = n_features_to_select
        self.max_features = max_features
        self.binarize = binarize

    def _fit(self, X, y):
        X01 = self._binary_input(X)
        p = X.shape[1]
        budget = max(self.max_features, self.n_features_to_select or 0)
        path = mdl_forward_selection(X01, y, max_features=budget, progress=self._progress)
        size = path.best_size if self.n_features_to_select is None else min(
            self.n_features_to_select, path.order.size)
        scores = path.last_gain.copy()
        scores[path.order] = path.step_gain
        self.classes_ = path.classes
        self.forward_sequence_ = path.order
        self.best_size_ = path.best_size
        self.scores_ = scores
        self._set_order(order_from(scores, path.order))
        self.support_ = np.zeros(p, dtype=bool)
        self.support_[path.order[:size]] = True
        sizes = np.arange(path.dl_data.size)
        self.trace_ = pd.DataFrame({
            "size": sizes, "feature": np.concatenate([[-1], path.order]),
            "dl_data": path.dl_data, "dl_model": path.dl_model, "dl_total": path.dl_total,
            "gain": np.concatenate([[0.0], path.step_gain]),
            **{k: v for k, v in path.model_terms.items() if k != "dl_model"},
            "selected": sizes <= size,
        })


class L1PathSelector(BaseFeatureSelector):
    """L1-regularised logistic regression path over C (Eq. 18); features ranked by entry.

    The path runs from ``sklearn.svm.l1_min_c`` (all coefficients zero) up to ``C_span`` times it
    on ``n_Cs`` log-spaced values, with scikit-learn's ``LogisticRegression(l1_ratio=1)``
    (``solver="liblinear"``: each C from scratch; ``"saga"``: warm-started from the previous C).
    Features are standardised first (``standardize=True``: dense columns centred and scaled to unit
    variance, sparse ones only scaled) so that their coefficients are comparable.

    Parameters
    ----------
    n_features_to_select : int or None
        k: the first k features to enter. None: the features active at the C with the best
        ``cv``-fold stratified cross-validated accuracy (smallest C on ties), or at the largest C
        when ``cv`` is None.
    n_Cs, C_span, solver, tol, max_iter, standardize, cv, random_state : path and CV settings.

    Attributes
    ----------
    path_ : DataFrame indexed by C, one column per feature: the coefficient (two classes) or the
        Euclidean norm of the K one-vs-rest coefficients (multiclass).
    coefs_ (n_Cs, K', p), intercepts_ (n_Cs, K'), Cs_, C_ (the chosen C), classes_, scaler_,
    n_iter_ (the most solver iterations any C needed), l1_path_ (the fitted path object).
    scores_ : number of path steps a feature has been in the model since it entered (0: never).
    trace_ : one row per C: C, log10_C, n_active, train_accuracy, cv_accuracy, n_iter, converged.

    Multiclass: one-vs-rest (K binary L1 paths); a feature is active when any class uses it.
    check_estimator passes with ``cv=None``: its tiny data sets have classes with a single
    sample, which stratified cross-validation cannot split.
    """

    _parameter_constraints = {
        "n_features_to_select": _BUDGET,
        "n_Cs": [Interval(Integral, 2, None, closed="left")],
        "C_span": [Interval(Real, 1, None, closed="neither")],
        "solver": [StrOptions(set(SOLVERS))],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "standardize": ["boolean"],
        "cv": [Interval(Integral, 2, None, closed="left"), None],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select=None, n_Cs=20, C_span=1e3, solver="liblinear",
                 tol=1e-6, max_iter=1000, standardize=True, cv=3, random_state=0):
        self.n_features_to_select = n_features_to_select
        self.n_Cs = n_Cs
        self.C_span = C_span
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.standardize = standardize
        self.cv = cv
        self.random_state = random_state

    def _scaled(self, X):
        return self.scaler_.transform(X) if self.scaler_ is not None else X

    def _fit(self, X, y):
        self.scaler_ = StandardScaler(with_mean=not sp.issparse(X)).fit(X) if self.standardize else None
        Xs = self._scaled(X)
        self.Cs_ = path_grid(Xs, y, self.n_Cs, self.C_span)
        n_fits = 1 + (self.cv or 0)
        report = self._progress

        def stage(i):
            return None if report is None else (lambda f, msg: report((i + f) / n_fits, msg))

        path = l1_logistic_path(Xs, y, self.Cs_, solver=self.solver, tol=self.tol,
                                max_iter=self.max_iter, progress=stage(0))
        cv_accuracy = self._cross_validate(Xs, y, stage) if self.cv else None
        self.coefs_, self.intercepts_, self.classes_ = path.coefs, path.intercepts, path.classes
        self.l1_path_ = path
        self.n_iter_ = int(path.n_iter.max())
        p = X.shape[1]
        self.path_ = pd.DataFrame(path.values, index=pd.Index(self.Cs_, name="C"), columns=range(p))
        entry = path.entry_step()
        self.scores_ = (self.Cs_.size - entry).astype(np.float64)
        order = path.entry_order()
        self._set_order(order_from(self.scores_, order))
        if cv_accuracy is not None:
            best = int(np.flatnonzero(cv_accuracy >= cv_accuracy.max() - 1e-12)[0])
        else:
            best = self.Cs_.size - 1
        self.C_ = float(self.Cs_[best])
        if self.n_features_to_select is not None:
            self.support_ = np.zeros(p, dtype=bool)
            self.support_[self.order_[: min(self.n_features_to_select, p)]] = True
        else:
            self.support_ = path.active[best].copy()
        self.trace_ = pd.DataFrame({
            "C": self.Cs_, "log10_C": np.log10(self.Cs_), "n_active": path.active.sum(axis=1),
            "train_accuracy": path.accuracy(Xs, y),
            "cv_accuracy": cv_accuracy if cv_accuracy is not None else np.nan,
            "n_iter": path.n_iter.max(axis=1), "converged": path.converged,
            "chosen": np.arange(self.Cs_.size) == best,
        })

    def _cross_validate(self, Xs, y, stage):
        folds = StratifiedKFold(self.cv, shuffle=True, random_state=self.random_state)
        scores = []
        for i, (train, test) in enumerate(folds.split(np.zeros(len(y)), y), start=1):
            fold = l1_logistic_path(Xs[train], y[train], self.Cs_, solver=self.solver, tol=self.tol,
                                    max_iter=self.max_iter, progress=stage(i))
            scores.append(fold.accuracy(Xs[test], y[test]))
        return np.mean(scores, axis=0)

    def path_accuracy(self, X, y) -> pd.Series:
        """Accuracy of the model at every C on other data (e.g. a held-out split), indexed by C."""
        check_is_fitted(self, "l1_path_")
        X = validate_X(self, X, accept_sparse=self._accept_sparse, reset=False)
        return pd.Series(self.l1_path_.accuracy(self._scaled(X), np.asarray(y)),
                         index=pd.Index(self.Cs_, name="C"), name="accuracy")


class BoostingSelector(BaseFeatureSelector):
    """AdaBoost with decision stumps (Eq. 21-34); features ranked by first use.

    Each round's stump minimises the weighted error (Eq. 32) over every feature and threshold
    (numba search over sorted feature values); alpha_m = 0.5 log((1 - eps)/eps) (Eq. 33) and the
    weights follow Eq. (34). ``trace_`` has one row per round: feature, threshold, left/right
    class and sign s of Eq. (21), weighted error, alpha, training loss (Eq. 27 divided by n) and
    training error.

    Parameters
    ----------
    n_features_to_select : int or None
        None: every feature some stump used. k: the first k distinct features used.
    n_estimators : int
        Number of boosting rounds (fewer if boosting stops, see ``stop_reason_``).

    Attributes
    ----------
    scores_ : total alpha of the stumps on each feature.   first_use_ : features by first use.
    ensemble_ : the fitted :class:`~fsengine.methods.classic.boosting.BoostingRun` (``predict``).
    stop_reason_, classes_.

    Multiclass: the SAMME form of the multi-class exponential loss (see
    :mod:`fsengine.methods.classic.boosting`), identical to Eq. (33-34) for two classes.
    Passes check_estimator without exemptions.
    """

    _parameter_constraints = {
        "n_features_to_select": _BUDGET,
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, n_features_to_select=None, n_estimators=50):
        self.n_features_to_select = n_features_to_select
        self.n_estimators = n_estimators

    def _fit(self, X, y):
        run = adaboost_stumps(X, y, n_estimators=self.n_estimators, progress=self._progress)
        p = X.shape[1]
        features = run.trace["feature"].to_numpy(dtype=np.intp)
        first_use = pd.unique(features) if features.size else np.zeros(0, dtype=np.intp)
        self.ensemble_ = run
        self.classes_ = run.classes
        self.stop_reason_ = run.stop_reason
        self.first_use_ = np.asarray(first_use, dtype=np.intp)
        self.scores_ = np.bincount(features, weights=run.alphas, minlength=p).astype(np.float64)
        self._set_order(order_from(self.scores_, self.first_use_))
        keep = self.first_use_ if self.n_features_to_select is None else \
            self.first_use_[: self.n_features_to_select]
        self.support_ = np.zeros(p, dtype=bool)
        self.support_[keep] = True
        self.trace_ = run.trace.copy()
