"""scikit-learn selectors for the classic criteria of Jaakkola's lecture 12.

``MutualInfoSelector``  Naive Bayes mutual-information ranking (Eq. 2)
``MDLSelector``         MDL sequential forward selection under Naive Bayes (Eq. 10-15)
``L1PathSelector``      L1-logistic path over C, features ranked by entry (Eq. 18-19)
``BoostingSelector``    AdaBoost with weighted-error stumps, ranked by first use (Eq. 21-34)

The source is ``/work/shared/papers/003_8d12e87c0246f81e.txt`` (T. Jaakkola, MIT 6.867 Machine
Learning, lecture 12). Parameters are keyword-only; the defaults of the parameters the app and the
command line offer come from the method registry (:func:`fsengine.methods.registry.method_defaults`),
so ``MDLSelector()``, ``fsengine select --method mdl`` and the Compare page fit the same model.

The two Naive Bayes criteria need binary features. Their ``binarize`` parameter has the meaning it
has for every method that needs binary features (:func:`fsengine.data.transforms.binarize_input`):
``"auto"`` (the default: binary X is used as it is, other X is binarised by the rule the app and the
command line apply, x > 0.5 for data in [0, 1], else x > each column's median, x > 0 for sparse
data), a threshold t (x > t), or None (X must already be binary). The rule applied is recorded in
``binarization_``.
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
from fsengine.data.transforms import PLUS_MINUS_NOTE, Binarization, binarize_input
from fsengine.methods.classic.binary import csc01
from fsengine.methods.classic.boosting import adaboost_stumps
from fsengine.methods.classic.l1_path import DEFAULT_SOLVER, SOLVERS, l1_logistic_path, path_grid
from fsengine.methods.classic.mdl import mdl_forward_selection
from fsengine.methods.classic.mutual_info import mutual_information, mutual_information_from_counts
from fsengine.methods.registry import method_constraints, method_defaults
from fsengine.progress import scaled
from fsengine.ranking import order_from
from fsengine.validation import FEATURE_BUDGET, validate_X

_BINARIZE = [None, StrOptions({"auto"}), Real]

_MI = method_defaults("mi")
_MDL = method_defaults("mdl")
_L1 = method_defaults("l1")
_BOOSTING = method_defaults("boosting")


class _BinaryInputSelector(BaseFeatureSelector):
    """Shared binary-input handling of the Naive Bayes criteria (see the module docstring)."""

    def _binary_input(self, X) -> sp.csc_matrix:
        X01, self.binarization_ = binarize_input(X, self.binarize, what=type(self).__name__)
        return csc01(X01)


class MutualInfoSelector(_BinaryInputSelector):
    """Rank binary features by their Naive Bayes mutual information with the class.

    With probabilities estimated from counts (Jaakkola, lecture 12, Eq. 2, in nats)

        I(X_i; Y) = H(X_i) - H(X_i | Y),

    and including features in decreasing order of I maximises the log-likelihood of the data under
    the Naive Bayes model of Eq. (1). Each feature is judged alone. Under independence of X_i and
    Y, G = 2 n I ~ chi^2 with K - 1 degrees of freedom (K classes), which gives the stopping rule.

    Parameters
    ----------
    n_features_to_select : int or None, default None
        Keep the k highest-MI features. None: keep every feature whose independence test rejects
        at level ``alpha`` after a Bonferroni correction over the d features.
    alpha : float in (0, 1), default from the registry (0.01)
        Family-wise level of that test.
    binarize : "auto", float or None, default "auto"
        How X becomes binary (:func:`fsengine.data.transforms.binarize_input`): "auto" keeps binary
        X (0/1, or -1/1 dense) and binarises other X as the app does; a number t: x > t; None: X
        must already be binary. The default was None (non-binary X refused) in fsengine 0.2; binary
        X gives the same result under both.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        I(X_i; Y) in nats.
    pvalues_ : ndarray of shape (n_features,)
        Uncorrected p-values of the independence test (scikit-learn's spelling, as in ``SelectKBest``).
    order_ : ndarray of shape (n_features,)
        Features by decreasing I (ties by lower index).
    ranking_ : ndarray of shape (n_features,)
        Rank of each feature, 1 = best.
    support_ : ndarray of shape (n_features,), dtype bool
        The Bonferroni-significant features, or the top ``n_features_to_select``.
    trace_ : DataFrame with n_features rows
        One row per rank: rank, feature, mi, h_x, h_x_given_y, g_statistic, p_value,
        p_bonferroni, selected.
    classes_ : ndarray of shape (n_classes,)
    binarization_ : :class:`~fsengine.data.transforms.Binarization`
        The rule applied to X (``str()`` of it says what was done).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Only when X has string column names.

    See Also
    --------
    MDLSelector : features chosen together (a set), not one by one.
    sklearn.feature_selection.mutual_info_classif : the same Eq. (2) with
        ``discrete_features=True`` on 0/1 data.

    Notes
    -----
    Eq. (2) holds for any number of classes. A row-chunked ``dask.array`` X is accepted (the
    per-class counts are reduced over row blocks, :mod:`fsengine.chunked`) with binary data or a
    numeric ``binarize``. Passes scikit-learn's ``check_estimator`` without exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import MutualInfoSelector
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> X = (rng.random((200, 5)) < 0.3).astype(float)
    >>> X[:, 2] = np.where(rng.random(200) < 0.9, y, 1 - y)
    >>> sel = MutualInfoSelector().fit(X, y)
    >>> int(sel.order_[0]), sel.get_support(indices=True).tolist()
    (2, [2])
    >>> print(sel.binarization_)
    features already binary (0/1), used as they are
    """

    _parameter_constraints = method_constraints("mi", {"n_features_to_select": FEATURE_BUDGET, "binarize": _BINARIZE})

    def __init__(self, *, n_features_to_select=None, alpha=_MI["alpha"], binarize="auto"):
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.binarize = binarize

    def _fit(self, X, y):
        self._fit_result(mutual_information(self._binary_input(X), y), X.shape[1])
        self._progress(1.0, "mutual information computed")

    def _fit_chunked(self, X, y):
        """A row-chunked dask X: the per-class counts are reduced over row blocks
        (:mod:`fsengine.chunked`); binary data, or a numeric ``binarize`` threshold (x > t)."""
        classes = classes_of(y)
        threshold = None if self.binarize is None or self.binarize == "auto" else float(self.binarize)
        counts = class_counts(X, y, classes, threshold)
        if threshold is None and not counts.binary:
            auto = ("; binarize='auto' needs the column medians of the whole array, which a dask array does "
                    "not give" if self.binarize == "auto" else "")
            raise ValueError(f"{type(self).__name__} needs binary features (0/1 or -1/1); the dask array holds "
                             f"other values{auto}. Pass binarize=<threshold> (x > threshold counts as on, e.g. "
                             "binarize=0.5 for data in [0, 1]) or binarise the array first, e.g. "
                             "(X > 0.5).astype('float32').")
        kind = "01" if counts.zero_one else "pm1" if counts.plus_minus else None
        if threshold is None:
            self.binarization_ = Binarization(None, None if kind == "01" else PLUS_MINUS_NOTE)
            ones = counts.ones
        else:
            self.binarization_ = Binarization.from_threshold(threshold, kind)
            ones = counts.above
        self._fit_result(mutual_information_from_counts(ones, counts.class_sizes, classes), X.shape[1])

    def _fit_result(self, result, p):
        """Scores, support (Bonferroni-corrected independence test) and trace from Eq. (2)."""
        self.classes_ = result.classes
        self.scores_ = result.mi
        self.pvalues_ = result.p_value
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
    """MDL forward selection with the Naive Bayes classifier.

    Features are added one at a time, each time the one giving the smallest conditional
    description length of the labels (Jaakkola, lecture 12, Eq. 10, nats)

        DL-data(J) = sum_t -log P(y_t | x_t, J)

    with the Naive Bayes parameters fixed from counts (the discriminant is updated incrementally).
    ``support_`` is the prefix minimising (Eq. 13-15) ::

        DL(J) = DL-data(J) + log*|J| + log C(d, |J|) + log(n + 1) + |J| sum_y log(n_y + 1)

    over the explored sizes 0..``max_features``.

    Parameters
    ----------
    n_features_to_select : int or None, default None
        None: the MDL minimiser. k: the first k features of the forward sequence (grown to k
        when k > ``max_features``).
    max_features : int, default from the registry (30)
        The largest subset explored: the forward sequence is grown to this size and the minimiser
        of DL is searched over the sizes 0..max_features (if DL still falls at the largest size,
        explore larger subsets). The registry's 30 is what the app and the command line have used;
        the class default was 50 in fsengine 0.2.
    binarize : "auto", float or None, default "auto"
        As for :class:`MutualInfoSelector`.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        DL-data decrease (nats) when the feature was added; for features never added, the decrease
        it offered at the last step (NaN for none).
    order_ : ndarray of shape (n_features,)
        The forward sequence (the features in the order they were added), then the rest by score.
    ranking_ : ndarray of shape (n_features,)
    support_ : ndarray of shape (n_features,), dtype bool
        The chosen prefix of the forward sequence.
    best_size_ : int
        The size that minimises DL (Eq. 15) among the sizes explored.
    trace_ : DataFrame with m + 1 rows (m features added)
        One row per size 0..m: size, feature (-1 for the empty set), dl_data, dl_model, dl_total,
        gain, the four DL-model terms (log_star, log_binom, class_counts, parameters) and
        ``selected`` (size <= the chosen size).
    stop_reason_ : str
        Why the forward selection ended: the largest size explored, every candidate added, or
        "stop requested" (a progress callback raised :class:`~fsengine.progress.StopRequested`;
        the sizes explored so far are kept).
    classes_ : ndarray of shape (n_classes,)
    binarization_ : :class:`~fsengine.data.transforms.Binarization`
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)

    See Also
    --------
    MutualInfoSelector : the first feature MDL adds is the mutual-information winner.
    fsengine.methods.classic.mdl.mdl_forward_selection : the forward selection itself.

    Notes
    -----
    Multiclass: K-class Naive Bayes (softmax of the per-class log-joints); the model terms
    generalise to ``log C(n+K-1, K-1)`` and ``|J| sum_c log(n_c + 1)``, which are Eq. (14) at K = 2.
    Progress: ``fit(X, y, progress=callback)`` reports after every added feature. Passes
    scikit-learn's ``check_estimator`` without exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import MDLSelector
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> X = (rng.random((300, 6)) < 0.3).astype(float)
    >>> X[:, 4] = np.where(rng.random(300) < 0.85, y, 1 - y)
    >>> sel = MDLSelector(max_features=3).fit(X, y)
    >>> int(sel.order_[0]), sel.best_size_, len(sel.trace_)
    (4, 1, 4)
    >>> sel.stop_reason_
    'explored every subset size up to the largest, 3 features'
    """

    _parameter_constraints = method_constraints("mdl", {"n_features_to_select": FEATURE_BUDGET, "binarize": _BINARIZE})

    def __init__(self, *, n_features_to_select=None, max_features=_MDL["max_features"], binarize="auto"):
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
        self.best_size_ = path.best_size
        self.stop_reason_ = path.stop_reason
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
    """L1-regularised logistic regression path over C; features ranked by entry.

    At each C the selector maximises (Jaakkola, lecture 12, Eq. 18, with lambda = 1/C) ::

        l(theta) - lambda sum_i |theta_i|,

    and at the optimum every zero coefficient has ``|dl/dtheta_k| <= lambda`` (Eq. 19): a feature enters
    when its likelihood slope reaches lambda. The path runs from ``sklearn.svm.l1_min_c`` (all
    coefficients zero) up to ``C_span`` times it on ``n_Cs`` log-spaced values, each C warm-started
    from the previous one by our coordinate-descent solver (``solver="cd"``, the intercept
    unpenalised as in Eq. 18; :mod:`fsengine.methods.classic.l1_solver`) or fitted with
    scikit-learn's ``LogisticRegression(l1_ratio=1)`` (``"liblinear"``: each C from scratch;
    ``"saga"``: warm-started). Features are standardised first (``standardize=True``: dense
    columns centred and scaled to unit variance, sparse ones only scaled) so that their
    coefficients are comparable.

    Parameters
    ----------
    n_features_to_select : int or None, default None
        k: the first k features to enter. None: the features active at the C with the best
        ``cv``-fold stratified cross-validated accuracy (smallest C on ties), or at the largest C
        when ``cv`` is None.
    n_Cs : int, default from the registry (20)
        Number of values of C.
    C_span : float, default from the registry (1000.0)
        Largest C over smallest C.
    solver : {"cd", "liblinear", "saga"}, default "cd"
        "cd" (the default; "liblinear" was until this solver came) stops at each C when the
        optimality condition Eq. (19) holds to ``tol`` relative to lambda on every feature.
    tol : float, default 1e-6
    max_iter : int, default 1000
        Solver settings at each C ("cd": Newton iterations; otherwise scikit-learn's meaning).
    standardize : bool, default True
    cv : int >= 2 or None, default from the registry (None)
        Folds of the cross-validation that chooses C; None: no cross-validation (the model at the
        largest C), ``cv=none`` on the command line. The registry's None is what the app and the
        command line have used; the class default was 3 in fsengine 0.2.
    random_state : int, default 0
        Seeds the folds (and scikit-learn's solvers' coordinate order).

    Attributes
    ----------
    path_ : DataFrame of shape (n_Cs, n_features)
        Indexed by C: the coefficient (two classes) or the Euclidean norm of the K one-vs-rest
        coefficients (multiclass) of every feature.
    scores_ : ndarray of shape (n_features,)
        Number of path steps a feature has been in the model since it entered (0: never).
    order_ : ndarray of shape (n_features,)
        Features by entry (then larger ``|coefficient|`` at entry, then index), never-entering last.
    ranking_ : ndarray of shape (n_features,)
    support_ : ndarray of shape (n_features,), dtype bool
    coefs_ : ndarray of shape (n_Cs, K', n_features)
        K' = 1 for two classes, K otherwise.
    intercepts_ : ndarray of shape (n_Cs, K')
    Cs_ : ndarray of shape (n_Cs,)
    C_ : float
        The chosen C.
    model_ : :class:`~fsengine.methods.classic.l1_path.L1Path`
        The fitted path (``predict``, ``accuracy`` at every C).
    scaler_ : StandardScaler or None
    n_iter_ : int
        The most solver iterations any C needed.
    trace_ : DataFrame with n_Cs rows
        C, log10_C, n_active, train_accuracy, cv_accuracy, n_iter, converged, chosen.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)

    See Also
    --------
    fsengine.methods.classic.l1_path.l1_logistic_path : the path itself.
    fsengine.methods.classic.l1_solver.binary_l1_logistic_path : the default solver.
    sklearn.linear_model.LogisticRegression : the other solvers.

    Notes
    -----
    Multiclass: one-vs-rest (K binary L1 paths); a feature is active when any class uses it.
    Progress: ``fit(X, y, progress=callback)`` reports after every fit (path and folds);
    :class:`~fsengine.progress.StopRequested` from the callback ends the fit without a result (a
    partial path has no valid ranking of the features that have not been reached).
    ``check_estimator`` passes with the default ``cv=None``; with ``cv`` set it would not: the
    checks' tiny data sets have classes with a single sample, which stratified cross-validation
    cannot split.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import L1PathSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5))
    >>> y = (X[:, 3] + 0.5 * X[:, 1] > 0).astype(int)
    >>> sel = L1PathSelector(n_Cs=8).fit(X, y)
    >>> sel.order_[:2].tolist(), sel.path_.shape
    ([3, 1], (8, 5))
    """

    _parameter_constraints = method_constraints("l1", {
        "n_features_to_select": FEATURE_BUDGET,
        "solver": [StrOptions(set(SOLVERS))],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "standardize": ["boolean"],
        "random_state": ["random_state"],
    })

    def __init__(self, *, n_features_to_select=None, n_Cs=_L1["n_Cs"], C_span=_L1["C_span"], solver=DEFAULT_SOLVER,
                 tol=1e-6, max_iter=1000, standardize=True, cv=_L1["cv"], random_state=0):
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
        path = l1_logistic_path(Xs, y, self.Cs_, solver=self.solver, tol=self.tol, max_iter=self.max_iter,
                                progress=scaled(self._progress, 0.0, 1.0 / n_fits))
        cv_accuracy = self._cross_validate(Xs, y, n_fits) if self.cv else None
        self.coefs_, self.intercepts_, self.classes_ = path.coefs, path.intercepts, path.classes
        self.model_ = path
        self.n_iter_ = int(path.n_iter.max())
        p = X.shape[1]
        self.path_ = pd.DataFrame(path.values, index=pd.Index(self.Cs_, name="C"), columns=range(p))
        entry = path.entry_step()
        self.scores_ = (self.Cs_.size - entry).astype(np.float64)
        self._set_order(order_from(self.scores_, path.entry_order()))
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

    def _cross_validate(self, Xs, y, n_fits):
        folds = StratifiedKFold(self.cv, shuffle=True, random_state=self.random_state)
        scores = []
        for i, (train, test) in enumerate(folds.split(np.zeros(len(y)), y), start=1):
            stage = scaled(self._progress, i / n_fits, (i + 1) / n_fits, f"CV fold {i} of {self.cv}: ")
            fold = l1_logistic_path(Xs[train], y[train], self.Cs_, solver=self.solver, tol=self.tol,
                                    max_iter=self.max_iter, progress=stage)
            scores.append(fold.accuracy(Xs[test], y[test]))
        return np.mean(scores, axis=0)

    def path_accuracy(self, X, y) -> pd.Series:
        """Accuracy of the model at every C on other data (e.g. a held-out split), indexed by C."""
        check_is_fitted(self, "model_")
        X = validate_X(self, X, accept_sparse=self._accept_sparse, reset=False)
        return pd.Series(self.model_.accuracy(self._scaled(X), np.asarray(y)),
                         index=pd.Index(self.Cs_, name="C"), name="accuracy")


class BoostingSelector(BaseFeatureSelector):
    """AdaBoost with decision stumps; features ranked by first use.

    Each round's stump h(x; theta) = sign(s (x_k - theta_0)) (Jaakkola, lecture 12, Eq. 21)
    minimises the weighted error eps_m (Eq. 32) over every feature and threshold (numba search
    over sorted feature values); it gets the votes

        alpha_m = 0.5 log((1 - eps_m) / eps_m)                                     (Eq. 33)

    and the example weights follow W_m(t) ~ W_{m-1}(t) exp(-y_t alpha_m h_m(x_t)) (Eq. 34).

    Parameters
    ----------
    n_features_to_select : int or None, default None
        None: every feature some stump used. k: the first k distinct features used.
    n_estimators : int, default from the registry (50)
        Number of boosting rounds (fewer if boosting stops, see ``stop_reason_``).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Total alpha of the stumps on each feature (0: never used).
    order_ : ndarray of shape (n_features,)
        Features by first use, then the unused ones by index.
    ranking_ : ndarray of shape (n_features,)
    support_ : ndarray of shape (n_features,), dtype bool
    model_ : :class:`~fsengine.methods.classic.boosting.BoostingRun`
        The fitted ensemble (``predict``, ``decision_votes``).
    trace_ : DataFrame with one row per round
        round, feature, threshold, left_class, right_class, sign (the s of Eq. 21), weighted_error,
        alpha, train_loss (Eq. 27 divided by n) and train_error.
    stop_reason_ : str
        Why boosting ended: all rounds run, no stump beats chance, a perfect stump, or "stop
        requested" (a progress callback raised :class:`~fsengine.progress.StopRequested`; the
        rounds run so far are kept).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)

    See Also
    --------
    fsengine.methods.classic.boosting.adaboost_stumps : the boosting loop.
    fsengine.methods.classic.study.same_weights : scikit-learn's Gini stumps with our weights.

    Notes
    -----
    Multiclass: the SAMME form of the multi-class exponential loss (see
    :mod:`fsengine.methods.classic.boosting`), identical to Eq. (33-34) for two classes.
    Progress: ``fit(X, y, progress=callback)`` reports after every round. Passes scikit-learn's
    ``check_estimator`` without exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import BoostingSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 6))
    >>> y = (X[:, 2] - X[:, 5] > 0).astype(int)
    >>> sel = BoostingSelector(n_estimators=10).fit(X, y)
    >>> sorted(sel.order_[:2].tolist()), len(sel.trace_), sel.stop_reason_
    ([2, 5], 10, 'ran all 10 rounds')
    """

    _parameter_constraints = method_constraints("boosting", {"n_features_to_select": FEATURE_BUDGET})

    def __init__(self, *, n_features_to_select=None, n_estimators=_BOOSTING["n_estimators"]):
        self.n_features_to_select = n_features_to_select
        self.n_estimators = n_estimators

    def _fit(self, X, y):
        run = adaboost_stumps(X, y, n_estimators=self.n_estimators, progress=self._progress)
        p = X.shape[1]
        features = run.trace["feature"].to_numpy(dtype=np.intp)
        first_use = np.asarray(pd.unique(features), dtype=np.intp) if features.size else np.zeros(0, dtype=np.intp)
        self.model_ = run
        self.classes_ = run.classes
        self.stop_reason_ = run.stop_reason
        self.scores_ = np.bincount(features, weights=run.alphas, minlength=p).astype(np.float64)
        self._set_order(order_from(self.scores_, first_use))
        keep = first_use if self.n_features_to_select is None else first_use[: self.n_features_to_select]
        self.support_ = np.zeros(p, dtype=bool)
        self.support_[keep] = True
        self.trace_ = run.trace.copy()
