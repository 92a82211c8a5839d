"""Selectors of the reference methods: the baselines the five sources' methods are judged against.

``VarianceRankSelector`` (an unsupervised baseline) and the toolbox practitioners already use:
``ANOVASelector`` (F test), ``Chi2Selector``, ``ForestSelector`` (impurity importance),
``PermutationSelector``, ``RFESelector`` and ``StabilitySelector`` (Meinshausen & Bühlmann 2010).
Their mathematics lives in ``filters.py`` and ``stability.py``; tree, permutation and elimination
steps are scikit-learn's own. mRMR, once here, is a member of the information-theoretic family
(:mod:`fsengine.methods.information`).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import RFE
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import type_of_target

from fsengine.base import BaseFeatureSelector
from fsengine.methods.registry import method_constraints, method_defaults
from fsengine.methods.toolbox.filters import anova_f, chi_squared, regression_f
from fsengine.methods.toolbox.permutation import (
    forest_permutation_scores,
    linear_permutation_scores,
    sklearn_shuffles,
)
from fsengine.methods.toolbox.stability import (
    error_bound,
    half_samples,
    penalty_grid,
    selection_probabilities,
    standardise,
)
from fsengine.progress import report_to
from fsengine.validation import FEATURE_BUDGET, validate_X


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
    _parameter_constraints = method_constraints("variance", {
        "n_features_to_select": [Interval(Integral, 1, None, closed="left"), None],
        "threshold": [Interval(Real, 0, None, closed="left")],
    })

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


# ----------------------------------------------------------------------------------------------------
# The toolbox practitioners already use: each one a selector of the same contract, so that the
# Compare page, ``fsengine select|compare`` and ``run_comparison`` judge the five sources' methods
# against it. Registry defaults: :func:`fsengine.methods.registry.method_defaults`.

_ANOVA = method_defaults("anova")
_CHI2 = method_defaults("chi2")
_FOREST = method_defaults("forest")
_PERMUTATION = method_defaults("permutation")
_RFE = method_defaults("rfe")
_STABILITY = method_defaults("stability")



class _TaskSelector(BaseFeatureSelector):
    """Selectors that model class labels or a real target (``task``): "auto" takes a real target
    when scikit-learn's ``type_of_target(y)`` is "continuous" (floats that are not all whole
    numbers), class labels otherwise. ``fsengine select|compare`` and the Compare page pass the
    dataset's own task instead of "auto" (:func:`fsengine.methods.run.fit_method`)."""

    @property
    def _classification(self):
        return self.task != "regression"

    def _resolve_task(self, y) -> str:
        if self.task != "auto":
            return self.task
        return "regression" if type_of_target(y) == "continuous" else "classification"


def _trace(order, support, **columns) -> pd.DataFrame:
    """One row per feature in ``order``: rank, feature, the given per-feature columns, selected."""
    return pd.DataFrame({"rank": np.arange(1, order.size + 1), "feature": order,
                         **{name: np.asarray(values)[order] for name, values in columns.items()},
                         "selected": support[order]})


def _rank_infinite_first(selector, own_support) -> None:
    """``_rank_and_support`` for statistics where +inf is the strongest evidence (a feature that
    separates the classes perfectly has F = inf): it ranks first, NaN (undefined) last."""
    scores = selector.scores_
    selector.scores_ = np.where(np.isposinf(scores), np.finfo(np.float64).max, scores)
    selector._rank_and_support(own_support)
    selector.scores_ = scores


class ANOVASelector(_TaskSelector):
    """Rank features by the F statistic of an analysis of variance (scikit-learn's ``f_classif`` /
    ``f_regression``, computed from per-class sums without densifying sparse X).

    Class labels (one-way ANOVA of the feature across K classes, n rows, class sizes n_k, class
    means m_k, overall mean m):

        F = [sum_k n_k (m_k - m)^2 / (K - 1)] / [sum_k sum_{t in k} (x_t - m_k)^2 / (n - K)]

    A real target (the simple linear regression of y on the feature, Pearson correlation r):

        F = r^2 / (1 - r^2) (n - 2)

    (R. A. Fisher, *Statistical Methods for Research Workers*, 1925; the equations of
    :mod:`fsengine.methods.toolbox.filters`.) Each feature is judged alone; a feature that is
    constant within the classes and differs between them has F = inf and ranks first.

    Parameters
    ----------
    n_features_to_select : int or None, default None
        Keep the k largest F. None: keep the features whose F test rejects at level ``alpha``
        after a Bonferroni correction over the p features.
    alpha : float in (0, 1), default from the registry (0.01)
        Family-wise level of that test (the meaning ``alpha`` has for ``MutualInfoSelector``).
    task : {"auto", "classification", "regression"}, default "auto"
        Class labels (``f_classif``) or a real target (``f_regression``); "auto" as the module
        says.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The F statistic (NaN for a constant feature).
    pvalues_ : ndarray of shape (n_features,)
    order_, ranking_ : ndarray of shape (n_features,)
        Features by decreasing F (ties by lower index) and their ranks, 1 = best.
    support_ : ndarray of shape (n_features,), dtype bool
    task_ : str
        The task the statistic was computed for.
    trace_ : DataFrame with n_features rows
        rank, feature, f, p_value, p_bonferroni, selected.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Only when X has string column names.

    See Also
    --------
    sklearn.feature_selection.f_classif, sklearn.feature_selection.f_regression : the same values.
    Chi2Selector : the chi-squared statistic of non-negative features.

    Notes
    -----
    Passes scikit-learn's ``check_estimator`` without exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import ANOVASelector
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 100)
    >>> X = rng.normal(size=(100, 4))
    >>> X[:, 3] += 2 * y
    >>> sel = ANOVASelector().fit(X, y)
    >>> int(sel.order_[0]), sel.get_support(indices=True).tolist(), sel.task_
    (3, [3], 'classification')
    """

    _parameter_constraints = method_constraints("anova", {"n_features_to_select": FEATURE_BUDGET})

    def __init__(self, *, n_features_to_select=None, alpha=_ANOVA["alpha"], task=_ANOVA["task"]):
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.task = task

    def _fit(self, X, y):
        self.task_ = self._resolve_task(y)
        with np.errstate(divide="ignore", invalid="ignore"):
            result = anova_f(X, y) if self.task_ == "classification" else regression_f(X, y)
        _set_test_result(self, result, "f")
        self._progress(1.0, "F statistics computed")


def _set_test_result(selector, result, name: str) -> None:
    """scores_, pvalues_, order_ (+inf first), support_ (Bonferroni at ``alpha``) and trace_ of a
    univariate test."""
    p = result.statistic.size
    selector.scores_ = result.statistic
    selector.pvalues_ = result.pvalue
    p_bonferroni = np.minimum(result.pvalue * p, 1.0)
    _rank_infinite_first(selector, np.nan_to_num(p_bonferroni, nan=1.0) < selector.alpha)
    selector.trace_ = _trace(selector.order_, selector.support_, **{name: result.statistic, "p_value": result.pvalue,
                                                                    "p_bonferroni": p_bonferroni})


class Chi2Selector(BaseFeatureSelector):
    """Rank non-negative features (counts, frequencies, tf-idf) by Pearson's chi-squared statistic
    of their class totals (scikit-learn's ``chi2``).

    With O_k = sum of the feature over the rows of class k and E_k = (n_k / n) sum_t x_t its
    total shared out by the class sizes (K. Pearson, Phil. Mag. 50 (1900) 157-175):

        chi2 = sum_k (O_k - E_k)^2 / E_k,

    referred to chi^2 with K - 1 degrees of freedom. X must be non-negative: other X is refused
    with a one-line reason (``fsengine select|compare`` and the Compare page rescale dense data to
    [0, 1] first and say so, :func:`fsengine.methods.adapt.adapt`).

    Parameters
    ----------
    n_features_to_select : int or None, default None
        Keep the k largest statistics. None: the features whose test rejects at level ``alpha``
        after a Bonferroni correction over the p features.
    alpha : float in (0, 1), default from the registry (0.01)

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The chi-squared statistic (NaN for an all-zero feature).
    pvalues_ : ndarray of shape (n_features,)
    order_, ranking_, support_ : ndarray of shape (n_features,)
    trace_ : DataFrame with n_features rows
        rank, feature, chi2, p_value, p_bonferroni, selected.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)

    See Also
    --------
    sklearn.feature_selection.chi2 : the same values.

    Notes
    -----
    Passes ``check_estimator`` without exemptions: the ``positive_only`` input tag makes the checks
    feed non-negative data, and one of them checks that negative data are refused.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import Chi2Selector
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> X = rng.poisson(1.0, size=(200, 4)).astype(float)
    >>> X[:, 1] += 3 * y
    >>> sel = Chi2Selector().fit(X, y)
    >>> int(sel.order_[0]), sel.get_support(indices=True).tolist()
    (1, [1])
    """

    _parameter_constraints = method_constraints("chi2", {"n_features_to_select": FEATURE_BUDGET})

    def __init__(self, *, n_features_to_select=None, alpha=_CHI2["alpha"]):
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha

    def _fit(self, X, y):
        with np.errstate(divide="ignore", invalid="ignore"):
            result = chi_squared(X, y)
        _set_test_result(self, result, "chi2")
        self._progress(1.0, "chi-squared statistics computed")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags


def _forest(task: str, **params):
    cls = RandomForestClassifier if task == "classification" else RandomForestRegressor
    return cls(n_jobs=1, **params)


class ForestSelector(_TaskSelector):
    """Rank features by their impurity importance in a seeded random forest (scikit-learn's
    ``RandomForestClassifier`` / ``RandomForestRegressor`` ``feature_importances_``).

    The mean decrease in impurity of feature j (L. Breiman, "Random forests", Machine Learning 45
    (2001) 5-32; G. Louppe et al., NIPS 2013, Eq. 1), averaged over the T trees and normalised to
    sum to one:

        Imp(j) = (1 / T) sum_trees sum_{nodes v splitting on j} (N_v / N) Δi(v)

    with N_v the (bootstrap) rows reaching node v and Δi(v) the decrease of Gini impurity (class
    labels) or of variance (a real target) the split achieves.

    Parameters
    ----------
    n_features_to_select : int or None, default None
        Keep the k most important. None: the features whose importance exceeds the mean importance
        (``SelectFromModel``'s default threshold for forests).
    n_estimators : int, default from the registry (100)
        Trees of the forest.
    random_state : int, default from the registry (0)
        Seed of the forest's bootstrap samples and split candidates.
    task : {"auto", "classification", "regression"}, default "auto"
        As for :class:`ANOVASelector`.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Impurity importances (they sum to 1 unless every tree is a single leaf).
    order_, ranking_, support_ : ndarray of shape (n_features,)
    model_ : RandomForestClassifier or RandomForestRegressor
        The fitted forest (one process, ``n_jobs=1``).
    task_ : str
    trace_ : DataFrame with n_features rows
        rank, feature, importance, importance_std (spread over the trees), selected.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)

    See Also
    --------
    PermutationSelector : importances measured on held-out rows.

    Notes
    -----
    The trees are grown in ten rounds (``warm_start``; scikit-learn draws the same tree seeds as
    in one call, so the forest is the same) to report progress. Passes ``check_estimator`` without
    exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import ForestSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 5))
    >>> y = (X[:, 2] + 0.2 * rng.normal(size=120) > 0).astype(int)
    >>> sel = ForestSelector(n_estimators=20).fit(X, y)
    >>> int(sel.order_[0]), bool(np.isclose(sel.scores_.sum(), 1.0))
    (2, True)
    """

    _parameter_constraints = method_constraints("forest", {"n_features_to_select": FEATURE_BUDGET})

    def __init__(self, *, n_features_to_select=None, n_estimators=_FOREST["n_estimators"],
                 random_state=_FOREST["random_state"], task=_FOREST["task"]):
        self.n_features_to_select = n_features_to_select
        self.n_estimators = n_estimators
        self.random_state = random_state
        self.task = task

    def _fit(self, X, y):
        self.task_ = self._resolve_task(y)
        forest = _forest(self.task_, n_estimators=1, random_state=self.random_state, warm_start=True)
        sizes = np.unique(np.linspace(0, self.n_estimators, min(10, self.n_estimators) + 1).round().astype(int))[1:]
        for size in sizes:
            forest.set_params(n_estimators=int(size)).fit(X, y)
            self._progress(size / self.n_estimators, f"{size} of {self.n_estimators} trees")
        self.model_ = forest.set_params(warm_start=False)
        self.scores_ = forest.feature_importances_
        spread = np.std([tree.feature_importances_ for tree in forest.estimators_], axis=0)
        self._rank_and_support(self.scores_ > self.scores_.mean())
        self.trace_ = _trace(self.order_, self.support_, importance=self.scores_, importance_std=spread)


class PermutationSelector(_TaskSelector):
    """Rank features by permutation importance on held-out rows, with a seeded split, model and
    shuffles: scikit-learn's ``sklearn.inspection.permutation_importance``, computed from arrays
    (:mod:`fsengine.methods.toolbox.permutation`: the linear model's decision shifts by
    ``w'_j (x' - x)``, and a forest re-traverses only its trees that split on the shuffled column),
    equal to scikit-learn's numbers and thousands of times faster on wide tables.

    A model is fitted on a part of the rows; on the held-out part, with s its score (accuracy for
    class labels, R² for a real target) and s_{k,j} the score after shuffling column j (shuffle k of
    R), the importance is (L. Breiman, "Random forests", Machine Learning 45 (2001) 5-32, Sec. 10;
    A. Fisher, C. Rudin, F. Dominici, JMLR 20 (2019) 1-81, "model reliance")

        Imp(j) = s - (1 / R) sum_k s_{k,j}.

    Parameters
    ----------
    n_features_to_select : int or None, default None
        Keep the k most important. None: the features whose mean importance exceeds twice its
        standard deviation over the shuffles (importance_mean - 2 std > 0, the rule of
        scikit-learn's permutation-importance example).
    model : {"linear", "forest"}, default from the registry ("linear")
        L2 logistic / ridge regression on standardised features, or a random forest
        (``n_estimators`` trees).
    n_repeats : int, default from the registry (5)
        Shuffles per feature (R).
    test_size : float in (0, 1), default from the registry (0.25)
        Held-out share of the rows (stratified for class labels).
    n_estimators : int, default from the registry (100)
        Trees of the forest model.
    random_state : int, default from the registry (0)
        Seeds the split, the forest and the shuffles.
    task : {"auto", "classification", "regression"}, default "auto"

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Mean importance over the shuffles.
    importances_ : ndarray of shape (n_features, n_repeats)
        Every shuffle's importance.
    baseline_score_ : float
        The model's held-out score s.
    order_, ranking_, support_ : ndarray of shape (n_features,)
    model_ : estimator
        The model fitted on the training part.
    task_ : str
    trace_ : DataFrame with n_features rows
        rank, feature, importance_mean, importance_std, selected.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)

    See Also
    --------
    ForestSelector : impurity importance, measured on the training rows.

    Notes
    -----
    Dense X only (scikit-learn shuffles dense columns; ``fsengine select|compare`` densify sparse
    data and say so). ``check_estimator`` runs without exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import PermutationSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 4))
    >>> y = (X[:, 1] > 0).astype(int)
    >>> sel = PermutationSelector(model="forest", n_estimators=20).fit(X, y)
    >>> int(sel.order_[0]), sel.get_support(indices=True).tolist()
    (1, [1])
    """

    _accept_sparse = ()
    _parameter_constraints = method_constraints("permutation", {"n_features_to_select": FEATURE_BUDGET})

    def __init__(self, *, n_features_to_select=None, model=_PERMUTATION["model"],
                 n_repeats=_PERMUTATION["n_repeats"], test_size=_PERMUTATION["test_size"],
                 n_estimators=_PERMUTATION["n_estimators"], random_state=_PERMUTATION["random_state"],
                 task=_PERMUTATION["task"]):
        self.n_features_to_select = n_features_to_select
        self.model = model
        self.n_repeats = n_repeats
        self.test_size = test_size
        self.n_estimators = n_estimators
        self.random_state = random_state
        self.task = task

    def _make_model(self):
        if self.model == "forest":
            return _forest(self.task_, n_estimators=self.n_estimators, random_state=self.random_state)
        linear = (LogisticRegression(max_iter=2000) if self.task_ == "classification" else Ridge())
        return make_pipeline(StandardScaler(), linear)

    def held_out_split(self, y):
        """The rows the model is fitted on and the held-out rows (``train_test_split`` with
        ``test_size`` and ``random_state``, stratified for class labels)."""
        task = self._resolve_task(y) if not hasattr(self, "task_") else self.task_
        stratify = y if task == "classification" and np.unique(y, return_counts=True)[1].min() >= 2 else None
        return train_test_split(np.arange(len(y)), test_size=self.test_size, random_state=self.random_state,
                                stratify=stratify)

    def _fit(self, X, y):
        self.task_ = self._resolve_task(y)
        train, test = self.held_out_split(y)
        self._progress(0.0, f"fitting the {self.model} model on {train.size:,} rows")
        self.model_ = self._make_model().fit(X[train], y[train])
        self._progress(0.5, f"{self.n_repeats} shuffles of each of {X.shape[1]:,} features, "
                            f"scored on {test.size:,} held-out rows")
        orders = sklearn_shuffles(test.size, self.n_repeats, self.random_state)
        shuffled = (forest_permutation_scores if self.model == "forest" else linear_permutation_scores)
        scores = shuffled(self.model_, X[test], y[test], orders, classification=self.task_ == "classification")
        self.baseline_score_ = float(self.model_.score(X[test], y[test]))
        self.importances_ = self.baseline_score_ - scores.T
        self.scores_ = self.importances_.mean(axis=1)
        spread = self.importances_.std(axis=1)
        self._rank_and_support(self.scores_ - 2 * spread > 0)
        self.trace_ = _trace(self.order_, self.support_, importance_mean=self.scores_, importance_std=spread)
        self._progress(1.0, "importances computed")


def _linear_coef(model) -> np.ndarray:
    """The coefficients of the last step of a fitted pipeline (RFE squares them, and sums the squares
    over the classes of a multi-class logistic regression)."""
    return model[-1].coef_


class RFESelector(_TaskSelector):
    """Rank features by recursive feature elimination (scikit-learn's ``RFE``) over L2 logistic
    regression (class labels) or ridge regression (a real target), on standardised features.

    Starting from every feature, the model is fitted and the ``step`` features with the smallest
    squared coefficients (summed over the classes) are removed, until one is left (I. Guyon,
    J. Weston, S. Barnhill, V. Vapnik, "Gene selection for cancer classification using support
    vector machines", Machine Learning 46 (2002) 389-422, the ranking criterion c_i = w_i^2). The
    ranking is scikit-learn's ``RFE(n_features_to_select=1).ranking_``: the feature removed last is
    rank 1.

    Parameters
    ----------
    n_features_to_select : int or None, default None
        Keep the k best ranked. None: the better half (``RFE``'s default size).
    C : float > 0, default from the registry (1.0)
        Inverse L2 penalty of the logistic regression; the ridge uses alpha = 1 / C.
    step : float > 0, default from the registry (0.05)
        Features removed per round: k >= 1 removes k (converted to an int, as ``RFE`` needs), a
        fraction in (0, 1) removes that share of all features (at least one). The default 0.05
        takes about 20 rounds whatever the number of features; ``step=1`` is the thorough
        elimination, one feature per round (p - 1 fits). With more than one feature per round the
        features of a round tie in ``rfe_ranking_``; ``ranking_`` orders them by the criterion
        w_j^2 of the round that removed them (larger first: with a smaller step they would have
        been removed later), then by index.

    Attributes
    ----------
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, refined within a round by the criterion at removal (the same
        values as scikit-learn's when a round removes one feature, as with ``step=1``).
    rfe_ranking_ : ndarray of shape (n_features,)
        ``RFE.ranking_`` as scikit-learn returns it.
    removal_criterion_ : ndarray of shape (n_features,)
        w_j^2 (summed over the classes) in the round that removed the feature; inf for the last
        one left.
    scores_ : ndarray of shape (n_features,)
        ``max(rfe_ranking_) + 1 - rfe_ranking_``: how many rounds the feature survived, plus one.
    order_ : ndarray of shape (n_features,)
        Features by ``ranking_`` (the last one removed first).
    support_ : ndarray of shape (n_features,), dtype bool
    model_ : sklearn.feature_selection.RFE
        The fitted elimination (its ``estimator_`` is the model on the last feature).
    task_ : str
    trace_ : DataFrame with n_features rows
        rank, feature, rfe_rank, criterion_at_removal, selected.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)

    See Also
    --------
    sklearn.feature_selection.RFE : the elimination itself.

    Notes
    -----
    One model fit per round: about 1 / step with a fraction (20 with the default), p - 1 with
    ``step=1`` (783 on 784 pixels). Progress is reported after every round. Passes ``check_estimator`` without
    exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import RFESelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(150, 5))
    >>> y = (X[:, 4] - X[:, 0] > 0).astype(int)
    >>> sel = RFESelector(n_features_to_select=2).fit(X, y)
    >>> sorted(sel.order_[:2].tolist()), sel.get_support(indices=True).tolist()
    ([0, 4], [0, 4])
    """

    _parameter_constraints = method_constraints("rfe", {"n_features_to_select": FEATURE_BUDGET})

    def __init__(self, *, n_features_to_select=None, C=_RFE["C"], step=_RFE["step"], task=_RFE["task"]):
        self.n_features_to_select = n_features_to_select
        self.C = C
        self.step = step
        self.task = task

    def estimator(self, sparse: bool = False):
        """The model RFE refits every round: standardisation (scaling only for sparse X), then L2
        logistic regression or ridge regression."""
        task = getattr(self, "task_", self.task)
        model = LogisticRegression(C=self.C, max_iter=5000) if task != "regression" else Ridge(alpha=1.0 / self.C)
        return make_pipeline(StandardScaler(with_mean=not sparse), model)

    def rfe_step(self):
        """``step`` as ``RFE`` takes it (an int from 1 on, else the fraction)."""
        return int(self.step) if self.step >= 1 else float(self.step)

    def _fit(self, X, y):
        self.task_ = self._resolve_task(y)
        p = X.shape[1]
        step = self.rfe_step()
        per_round = step if isinstance(step, int) else max(1, int(step * p))
        rounds = max(1, int(np.ceil((p - 1) / per_round)))
        removed = []  # per round: the criterion of the features it removes, by their place among those left

        def coefficients(model):
            coef = _linear_coef(model)
            criterion = np.square(coef) if coef.ndim == 1 else np.square(coef).sum(axis=0)
            out = np.argsort(criterion, kind="stable")[:min(per_round, criterion.size - 1)]  # RFE's own rule
            removed.append((out, criterion[out]))
            self._progress(min(len(removed) / rounds, 1.0), f"round {len(removed)} of {rounds}: {criterion.size} "
                                                            "features")
            return coef

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            rfe = RFE(self.estimator(sp.issparse(X)), n_features_to_select=1, step=step,
                      importance_getter=coefficients).fit(X, y)
        self.model_ = rfe.set_params(importance_getter=_linear_coef)
        self.rfe_ranking_ = rfe.ranking_.copy()
        self.scores_ = (self.rfe_ranking_.max() + 1 - self.rfe_ranking_).astype(np.float64)
        self.removal_criterion_ = self._criterion_at_removal(removed)
        self._set_order(np.lexsort((np.arange(p), -self.removal_criterion_, -self.scores_)))
        k = self.n_features_to_select if self.n_features_to_select is not None else max(1, p // 2)
        self.support_ = np.zeros(p, dtype=bool)
        self.support_[self.order_[:min(k, p)]] = True
        self.trace_ = _trace(self.order_, self.support_, rfe_rank=self.rfe_ranking_,
                             criterion_at_removal=self.removal_criterion_)
        self._progress(1.0, "elimination done")

    def _criterion_at_removal(self, removed) -> np.ndarray:
        """Per feature, the criterion w_j^2 of the round that removed it (+inf for the last one
        left). Round t fits the features whose ``rfe_ranking_`` is at most T - t + 2 (T rounds, t
        from 1), in index order, and removes the ranks T - t + 2."""
        ranking, T = self.rfe_ranking_, len(removed)
        out = np.full(ranking.size, np.inf)
        for t, (places, criterion) in enumerate(removed, start=1):
            alive = np.flatnonzero(ranking <= T - t + 2)
            out[alive[places]] = criterion
            if not np.array_equal(np.sort(alive[places]), np.flatnonzero(ranking == T - t + 2)):
                raise RuntimeError("RFE removed other features than its criterion names; scikit-learn's rule changed")
        return out


class StabilitySelector(_TaskSelector):
    """Stability selection (N. Meinshausen and P. Bühlmann, J. R. Statist. Soc. B 72 (2010) 417-473):
    rank features by their largest selection probability over L1 fits on random half-samples along
    a grid of penalties.

    With Ŝ^λ(I) the features of the L1 logistic regression (class labels, the intercept
    unpenalised; one-versus-rest for more than two classes) or lasso (a real target) fitted on
    the rows I at penalty λ, and B subsamples I_b of floor(n / 2) rows (paper, Eq. 7 and 8):

        Π_j(λ) = (1 / B) #{b : j ∈ Ŝ^λ(I_b)},    score_j = max_λ Π_j(λ),
        Ŝ_stable = {j : score_j >= π_thr}.

    Per-family error bound (Theorem 1): the expected number V of noise features in Ŝ_stable obeys

        E[V] <= q_Λ^2 / ((2 π_thr - 1) p),

    where q_Λ is the average number of features a half-sample fit selects anywhere on the grid
    (``q_``; the bound is ``error_bound_``). It assumes exchangeable noise features and a fit no
    worse than random guessing. Features are standardised on all rows first; the grid and its
    assumptions are in :mod:`fsengine.methods.toolbox.stability`.

    Parameters
    ----------
    n_features_to_select : int or None, default None
        Keep the k highest probabilities. None: the stable set (probability >= ``pi_threshold``).
    n_resamples : int, default from the registry (50)
        Half-samples B (the paper uses 100). For class labels every class is halved.
    n_Cs : int, default from the registry (10)
        Points of the penalty grid.
    C_span : float > 1, default from the registry (10.0)
        The grid runs from the penalty at which the full-data fit selects nothing to ``C_span``
        times weaker (C up to C_span * C_min; for the lasso alpha down to alpha_max / C_span).
    pi_threshold : float in (0.5, 1), default from the registry (0.75)
        π_thr; the paper finds results insensitive to it within 0.6-0.9.
    random_state : int, default from the registry (0)
        Seeds the subsamples.
    task : {"auto", "classification", "regression"}, default "auto"

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        max_λ Π_j(λ).
    order_ : ndarray of shape (n_features,)
        By decreasing score; ties by the mean probability over the grid, then by index.
    ranking_, support_ : ndarray of shape (n_features,)
    path_ : DataFrame of shape (n_Cs, n_features)
        Π_j(C) (the stability path), indexed by C (strongest penalty first).
    q_ : float
        Estimated q_Λ.
    error_bound_ : float
        q_^2 / ((2 pi_threshold - 1) p).
    task_ : str
    trace_ : DataFrame with n_Cs rows
        C, mean_selected (features per half-sample fit at that C), n_stable (features with
        Π_j(C) >= pi_threshold).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)

    See Also
    --------
    fsengine.methods.toolbox.stability : the subsamples, grid and probabilities.
    L1PathSelector : one L1-logistic path on all rows.

    Notes
    -----
    n_resamples warm-started L1 paths of n_Cs fits each (500 fits with the defaults). Progress
    after every half-sample. Passes ``check_estimator`` without exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import StabilitySelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 8))
    >>> y = (X[:, 0] + X[:, 5] + 0.5 * rng.normal(size=200) > 0).astype(int)
    >>> sel = StabilitySelector(n_resamples=20).fit(X, y)
    >>> sorted(sel.order_[:2].tolist()), sel.get_support(indices=True).tolist()
    ([0, 5], [0, 5])
    >>> sel.path_.shape
    (10, 8)
    """

    _parameter_constraints = method_constraints("stability", {"n_features_to_select": FEATURE_BUDGET})

    def __init__(self, *, n_features_to_select=None, n_resamples=_STABILITY["n_resamples"],
                 n_Cs=_STABILITY["n_Cs"], C_span=_STABILITY["C_span"], pi_threshold=_STABILITY["pi_threshold"],
                 random_state=_STABILITY["random_state"], task=_STABILITY["task"]):
        self.n_features_to_select = n_features_to_select
        self.n_resamples = n_resamples
        self.n_Cs = n_Cs
        self.C_span = C_span
        self.pi_threshold = pi_threshold
        self.random_state = random_state
        self.task = task

    def _fit(self, X, y):
        self.task_ = self._resolve_task(y)
        classification = self.task_ == "classification"
        Xs = standardise(X)
        Cs = penalty_grid(Xs, y, classification=classification, n_Cs=self.n_Cs, C_span=self.C_span)
        subsamples = half_samples(y, self.n_resamples, self.random_state, stratify=classification)
        path = selection_probabilities(Xs, y, classification=classification, Cs=Cs, subsamples=subsamples,
                                       progress=self._progress)
        p = X.shape[1]
        self.scores_ = path.max_probability
        mean = path.probabilities.mean(axis=0)
        self._set_order(np.lexsort((np.arange(p), -mean, -self.scores_)))
        if self.n_features_to_select is not None:
            self.support_ = np.zeros(p, dtype=bool)
            self.support_[self.order_[:min(self.n_features_to_select, p)]] = True
        else:
            self.support_ = self.scores_ >= self.pi_threshold
        self.q_ = path.q
        self.error_bound_ = error_bound(self.q_, self.pi_threshold, p)
        self.path_ = pd.DataFrame(path.probabilities, index=pd.Index(path.Cs, name="C"))
        self.trace_ = pd.DataFrame({"C": path.Cs, "mean_selected": path.mean_selected,
                                    "n_stable": (path.probabilities >= self.pi_threshold).sum(axis=1)})
