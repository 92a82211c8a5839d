"""Selectors of the wrapper family: ``BorutaSelector`` (Kursa & Rudnicki 2010) and
``SequentialForwardSelector`` (scikit-learn's ``SequentialFeatureSelector``, forward, over a stated
model). Their mathematics lives in ``boruta.py`` and ``sequential.py``; the forests, the logistic
regressions, the folds and the scorers are scikit-learn's own.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import get_scorer
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.multiclass import check_classification_targets

from fsengine.base import BaseFeatureSelector
from fsengine.methods.registry import method_constraints, method_defaults
from fsengine.methods.toolbox.filters import anova_f
from fsengine.methods.wrappers.boruta import CONFIRMED, DECISION_NAMES, TENTATIVE, boruta
from fsengine.methods.wrappers.forest import forest_importances
from fsengine.methods.wrappers.sequential import FAST_SCORERS, forward_selection
from fsengine.ranking import order_from
from fsengine.validation import FEATURE_BUDGET

_BORUTA = method_defaults("boruta")
_SFS = method_defaults("sfs")


class BorutaSelector(BaseFeatureSelector):
    """All-relevant selection by Boruta (M. B. Kursa, W. R. Rudnicki, J. Stat. Softw. 36(11), 2010):
    every feature is tested, iteration after iteration, against the best of its permuted copies
    (shadows) in a seeded random forest; see :mod:`fsengine.methods.wrappers.boruta`.

    A feature that beats the best shadow more often than a fair coin would (binomial test, BorutaPy's
    two-step correction: Benjamini-Hochberg over the features, Bonferroni over the iterations) is
    *confirmed*; one that beats it less often is *rejected*; one still undecided after ``max_iter``
    iterations is *tentative*, and is reported as such.

    Parameters
    ----------
    n_features_to_select : int or None, default None
        Keep the first k of ``order_``. None: the confirmed features.
    n_estimators : int, default from the registry (30)
        Trees of the forest of every iteration (sized for an interactive comparison, six fits per
        method: about 1 CPU second a fit on 750 x 784 pixels; BorutaPy's "auto" would grow about
        800 trees of depth 5 there).
    max_depth : int or None, default from the registry (5)
        Depth of the trees (BorutaPy recommends 3 to 7; shallow trees keep an iteration cheap).
    max_iter : int, default from the registry (20)
        Most iterations. No decision can be reached before iteration 8 at ``alpha`` = 0.05 (8 hits
        of 8 have p = 0.0039 <= 0.05 / 8); more iterations leave fewer features tentative (the R
        package and BorutaPy default to 100: ``max_iter=100, n_estimators=500`` is the thorough
        setting, about 25 times the work).
    alpha : float in (0, 1), default from the registry (0.05)
        Level of both correction steps.
    two_step : bool, default from the registry (True)
        BorutaPy's two-step correction; False: the R package's Bonferroni over all features.
    random_state : int, default from the registry (0)
        Seeds the shadows and the forests.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Median over the iterations the feature took part in of its importance relative to the best
        shadow's, I_j / max_shadow I (a hit is a value above 1). Chosen because it is continuous,
        it is the hit rule's own quantity, and it compares across iterations, where raw
        importances do not (they sum to 1 over a forest that loses the rejected features).
    decision_ : ndarray of shape (n_features,), dtype object
        "confirmed", "tentative" or "rejected".
    support_ : ndarray of shape (n_features,), dtype bool
        The confirmed features (or the first ``n_features_to_select`` of ``order_``).
    order_, ranking_ : ndarray of shape (n_features,)
        Confirmed, then tentative, then rejected features, each group by decreasing score (ties by
        lower index); ``ranking_[j]`` is the position of j in ``order_`` (1 = best).
    hits_ : ndarray of shape (n_features,)
        Iterations in which the feature beat the best shadow.
    p_accept_, p_reject_ : ndarray of shape (n_features,)
        The last iteration's uncorrected one-sided binomial p-values (NaN for rejected features).
    importance_history_ : ndarray of shape (``n_iter_``, n_features)
        The forest's impurity importance of every feature in every iteration (NaN once rejected).
    n_iter_ : int
    stop_reason_ : str
        Every feature decided, or ``max_iter`` reached with the number of tentative features.
    trace_ : DataFrame, one row per iteration
        iteration, in_play (features still in the forest), shadow_max (the best shadow's
        importance), hits (features that beat it), confirmed, rejected, tentative (counts after
        the iteration's test).
    path_ : DataFrame (``n_iter_``, n_features)
        The relative importance I_j / max_shadow I of every feature in every iteration (NaN once
        rejected), indexed by iteration.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Only when X has string column names.

    See Also
    --------
    ForestSelector : the impurity importance of one forest, without shadows or a test.
    boruta.BorutaPy : the Python implementation this one is checked against (tests only).

    Notes
    -----
    Class labels only. Sparse X stays sparse (its shadows are permuted on the CSC arrays by a numba
    kernel, and scikit-learn's sparse splitter grew the movie reviews' forests faster than its dense
    one, with the same trees). Each iteration's forest is scikit-learn's ``RandomForestClassifier``
    grown by its tree builder without the forest's per-tree Python overhead: the same importances, bit
    for bit (:mod:`fsengine.methods.wrappers.forest`). BorutaPy's ``max_iter`` counts one more than
    the iterations it runs; this class runs ``max_iter``. No "rough fix" of tentative features is
    applied: they stay tentative. Passes ``check_estimator`` without exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import BorutaSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 6))
    >>> y = (X[:, 1] - X[:, 4] + 0.3 * rng.normal(size=200) > 0).astype(int)
    >>> sel = BorutaSelector(n_estimators=30, max_iter=12).fit(X, y)
    >>> sel.get_support(indices=True).tolist(), sel.decision_[[1, 4]].tolist()
    ([1, 4], ['confirmed', 'confirmed'])
    """

    _parameter_constraints = method_constraints("boruta", {"n_features_to_select": FEATURE_BUDGET})

    def __init__(self, *, n_features_to_select=None, n_estimators=_BORUTA["n_estimators"],
                 max_depth=_BORUTA["max_depth"], max_iter=_BORUTA["max_iter"], alpha=_BORUTA["alpha"],
                 two_step=_BORUTA["two_step"], random_state=_BORUTA["random_state"]):
        self.n_features_to_select = n_features_to_select
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.max_iter = max_iter
        self.alpha = alpha
        self.two_step = two_step
        self.random_state = random_state

    def importances(self, X, y, seed: int) -> np.ndarray:
        """The impurity importances of one iteration's forest, ``RandomForestClassifier(n_estimators,
        max_depth, n_jobs=1, random_state=seed)`` fitted on (X, y) (one process: the comparison runs fits
        in parallel), grown without scikit-learn's per-tree overhead and equal to its own bit for bit
        (:func:`fsengine.methods.wrappers.forest.forest_importances`)."""
        return forest_importances(X, y, n_estimators=self.n_estimators, max_depth=self.max_depth, random_state=seed)

    def _fit(self, X, y):
        run = boruta(X, y, importances=self.importances, max_iter=self.max_iter, alpha=self.alpha,
                     two_step=self.two_step, rng=np.random.default_rng(self.random_state), progress=self._progress)
        p = X.shape[1]
        self.classes_ = np.unique(y)
        self.scores_ = run.scores()
        self.decision_ = np.array([DECISION_NAMES[int(d)] for d in run.decision], dtype=object)
        group = np.select([run.decision == CONFIRMED, run.decision == TENTATIVE], [0, 1], 2)
        safe = np.where(np.isnan(self.scores_), -np.inf, self.scores_)
        self._set_order(np.lexsort((np.arange(p), -safe, group)))
        if self.n_features_to_select is None:
            self.support_ = run.decision == CONFIRMED
        else:
            self.support_ = np.zeros(p, dtype=bool)
            self.support_[self.order_[:min(self.n_features_to_select, p)]] = True
        self.hits_ = run.hits
        self.p_accept_, self.p_reject_ = run.p_accept, run.p_reject
        self.importance_history_ = run.importance
        self.n_iter_ = run.n_iterations
        self.stop_reason_ = run.stop_reason
        iterations = pd.Index(np.arange(1, run.n_iterations + 1), name="iteration")
        self.path_ = pd.DataFrame(run.relative_importance, index=iterations)
        n_hits = np.nansum(run.relative_importance > 1.0, axis=1)
        self.trace_ = pd.DataFrame({"iteration": iterations, "in_play": run.in_play, "shadow_max": run.shadow_max,
                                    "hits": n_hits, "confirmed": run.confirmed, "rejected": run.rejected,
                                    "tentative": p - run.confirmed - run.rejected})


class SequentialForwardSelector(BaseFeatureSelector):
    """Sequential forward selection (scikit-learn's ``SequentialFeatureSelector``,
    ``direction="forward"``) over L2 logistic regression on standardised features, with seeded
    stratified folds; see :mod:`fsengine.methods.wrappers.sequential`.

    The model, stated: ``LogisticRegression(C=C, solver="newton-cholesky", tol=1e-10, max_iter=200)``
    (L2 penalty, solved to rounding: near-ties between candidates are decided by the optimum, not by
    where a loose tolerance stopped) on the features standardised within each training fold
    (``make_pipeline(StandardScaler(), ...)`` as ``cross_val_score`` would fit it), scored by
    ``scoring`` over ``cv`` folds of ``StratifiedKFold(shuffle=True, random_state=random_state)``.
    For two classes and ``scoring`` "neg_log_loss" or "accuracy" the thousands of small fits of a
    selection run in a numba kernel with scikit-learn's Newton solver written out
    (:mod:`fsengine.methods.wrappers.logistic`; coefficients and scores equal to scikit-learn's to
    rounding, tested); more classes and the other scorers fit scikit-learn's model candidate by
    candidate.

    Pre-screen: with ``n_candidates`` set, only the ``n_candidates`` features of largest ANOVA F
    (scikit-learn's ``f_classif``, computed on the rows ``fit`` is given; ties by lower index) are
    candidates, so a step costs ``cv`` x ``n_candidates`` model fits instead of ``cv`` x p.
    ``n_candidates=None`` searches every feature: scikit-learn's selector exactly (slow on many
    features: p x ``cv`` fits per step).

    Parameters
    ----------
    n_features_to_select : int, default from the registry (10)
        Features added (at most the number of candidates).
    n_candidates : int or None, default from the registry (40)
        Size of the ANOVA F pre-screen; None: every feature.
    cv : int >= 2, default from the registry (3)
        Stratified folds.
    C : float > 0, default from the registry (1.0)
        Inverse L2 penalty of the logistic regression.
    scoring : {"neg_log_loss", "accuracy", "roc_auc", "balanced_accuracy"}, default from the registry ("neg_log_loss")
        scikit-learn scorer of a step. The log-loss (the default) is a proper score and
        continuous: accuracy on a few hundred held-out rows ties many candidates, and the ties go
        to the lower index. "roc_auc" needs two classes.
    random_state : int, default from the registry (0)
        Seeds the folds.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The gain of the cross-validated score when the feature was added (the first: against the
        intercept-only model); for a candidate never added, its gain at the last step; NaN for a
        feature the pre-screen left out.
    order_ : ndarray of shape (n_features,)
        The features in the order they were added, then the other candidates by their last-step
        gain, then the features the pre-screen left out by decreasing F.
    ranking_, support_ : ndarray of shape (n_features,)
        ``support_``: the added features.
    candidates_ : ndarray
        The candidate features (ascending).
    f_statistic_ : ndarray of shape (n_features,)
        The ANOVA F of the pre-screen (NaN for a constant feature).
    stop_reason_ : str
        The number of features asked for, or "stop requested" (the sequence so far is kept).
    trace_ : DataFrame, one row per step
        step, feature, score (mean over the folds), score_fold_1..K, gain, candidates (scored at
        the step).
    path_ : DataFrame (steps, n_features)
        The mean cross-validated score of adding each candidate at each step (NaN: already
        added, or no candidate), indexed by step.
    model_ : Pipeline
        StandardScaler + the logistic regression fitted on every row on the added features.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)

    See Also
    --------
    sklearn.feature_selection.SequentialFeatureSelector : the same selection, without its order.
    RFESelector : backward elimination by coefficient size.

    Notes
    -----
    Class labels only; every class needs at least ``cv`` rows. Sparse X: the candidate columns are
    densified (n x ``n_candidates``). A progress callback's
    :class:`~fsengine.progress.StopRequested` keeps the features added so far. Passes
    ``check_estimator`` without exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import SequentialForwardSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 8))
    >>> y = (2 * X[:, 5] - X[:, 2] + 0.5 * rng.normal(size=200) > 0).astype(int)
    >>> sel = SequentialForwardSelector(n_features_to_select=2).fit(X, y)
    >>> sel.order_[:2].tolist(), sel.trace_["feature"].tolist()
    ([5, 2], [5, 2])
    """

    _parameter_constraints = method_constraints("sfs")

    def __init__(self, *, n_features_to_select=_SFS["n_features_to_select"], n_candidates=_SFS["n_candidates"],
                 cv=_SFS["cv"], C=_SFS["C"], scoring=_SFS["scoring"], random_state=_SFS["random_state"]):
        self.n_features_to_select = n_features_to_select
        self.n_candidates = n_candidates
        self.cv = cv
        self.C = C
        self.scoring = scoring
        self.random_state = random_state

    def model(self) -> LogisticRegression:
        """The model of every step (the features it sees are standardised within the folds)."""
        return LogisticRegression(C=self.C, solver="newton-cholesky", tol=1e-10, max_iter=200)

    def folds(self) -> StratifiedKFold:
        """The seeded folds of every step."""
        return StratifiedKFold(n_splits=self.cv, shuffle=True, random_state=self.random_state)

    def _fit(self, X, y):
        check_classification_targets(y)
        self.classes_, counts = np.unique(y, return_counts=True)
        if counts.min() < self.cv:
            raise ValueError(f"cv={self.cv} stratified folds need at least {self.cv} rows of every class; the "
                             f"smallest class has {counts.min()}. Lower cv or give more rows.")
        if self.scoring == "roc_auc" and self.classes_.size != 2:
            raise ValueError(f"scoring='roc_auc' needs two classes, not {self.classes_.size}; use 'neg_log_loss'.")
        p = X.shape[1]
        with np.errstate(divide="ignore", invalid="ignore"):
            self.f_statistic_ = anova_f(X, y).statistic
        screened = order_from(np.where(np.isposinf(self.f_statistic_), np.finfo(np.float64).max, self.f_statistic_))
        n_candidates = p if self.n_candidates is None else min(self.n_candidates, p)
        self.candidates_ = np.sort(screened[:n_candidates])
        scorer = FAST_SCORERS.get(self.scoring) or get_scorer(self.scoring)
        path = forward_selection(X, y, estimator=self.model(), scorer=scorer,
                                 folds=list(self.folds().split(np.zeros((y.size, 1)), y)),
                                 candidates=self.candidates_, n_steps=self.n_features_to_select, scale=True,
                                 progress=self._progress)
        self.stop_reason_ = path.stop_reason
        gains = path.last_step_gains()
        gains[path.order] = path.gains
        self.scores_ = gains
        others = np.setdiff1d(self.candidates_, path.order)
        others = others[np.lexsort((others, -np.nan_to_num(gains[others], nan=-np.inf)))]
        left_out = screened[~np.isin(screened, self.candidates_)]  # by decreasing F
        self._set_order(np.concatenate([path.order, others, left_out]))
        self.support_ = np.zeros(p, dtype=bool)
        self.support_[path.order] = True
        self.model_ = make_pipeline(StandardScaler(), self.model())
        if path.order.size:
            dense = X[:, path.order]
            self.model_.fit(dense.toarray() if hasattr(dense, "toarray") else dense, y)
        steps = pd.Index(np.arange(1, path.order.size + 1), name="step")
        self.path_ = pd.DataFrame(path.candidate_scores, index=steps)
        self.trace_ = pd.DataFrame({"step": steps, "feature": path.order, "score": path.scores,
                                    **{f"score_fold_{f + 1}": path.fold_scores[:, f] for f in range(self.cv)},
                                    "gain": path.gains,
                                    "candidates": self.candidates_.size - np.arange(path.order.size)})
