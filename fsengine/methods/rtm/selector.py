"""scikit-learn estimators for the RTM: ``RTMClassifier`` and the ``RTMSelector`` that wraps it.

Both take sparse or dense X; ``binarize`` turns it into tags as for every method that needs binary
features (:func:`fsengine.data.transforms.binarize_input`): "auto" (binary X as it is, other X by
the rule the app applies), a threshold t (tag present where X > t) or None (X must be binary).
"""

from __future__ import annotations

import inspect
from dataclasses import fields
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted

from fsengine.base import BaseFeatureSelector, forget_fit
from fsengine.data.transforms import binarize_input
from fsengine.methods.registry import method_constraints, method_defaults
from fsengine.methods.rtm import anderson
from fsengine.methods.rtm.ep import QUADRATURE
from fsengine.methods.rtm.evidence import posterior_summary, top_tags
from fsengine.methods.rtm.fit import RTMSettings, fit_rtm, run_label, suggested_settings
from fsengine.methods.rtm.model import TagMatrix, predict_positive, tags_from
from fsengine.progress import StopRequested
from fsengine.validation import as_binary_labels, validate_X, validate_X_y

#: the parameters shared by RTMClassifier and RTMSelector: the registry's (method, alpha0, ard,
#: max_iter) and the classes' own, whose constraints are written here
_RTM_PARAMS = method_constraints("rtm", {
    "alpha_floor": [Interval(Real, 0, None, closed="neither")],
    "alpha_max": [Interval(Real, 0, None, closed="neither")],
    "damping": [Interval(Real, 0, 1, closed="left")],
    "inner_damping": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
    "sequential": ["boolean"],
    "anderson_memory": [Interval(Integral, 0, anderson.MAX_MEMORY, closed="both")],
    "site_init": [Interval(Real, 0, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="neither")],
    "max_skipped_frac": [Interval(Real, 0, 1, closed="both")],
    "binarize": [Real, None, StrOptions({"auto"})],
})
#: their defaults, each written once: the registry's, else RTMSettings's (the fit's settings);
#: "auto" where the value follows the data (prior strength, inner damping, binarisation)
_DEFAULTS = {**{f.name: f.default for f in fields(RTMSettings) if f.name in _RTM_PARAMS},
             **method_defaults("rtm"), "inner_damping": "auto", "binarize": "auto"}


def _keyword_init(defaults: dict):
    """One ``__init__`` for the two RTM estimators: keyword-only parameters ``defaults`` (name ->
    default), stored untouched as scikit-learn requires. Its ``__signature__`` is what
    ``get_params``, ``clone``, ``repr`` and ``help()`` read, as for a written-out ``__init__``."""
    def __init__(self, *args, **params):
        if args:
            raise TypeError(f"{type(self).__name__} takes keyword arguments only, e.g. "
                            f"{type(self).__name__}(ard=True); got {len(args)} positional")
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {unknown[0]!r}")
        for name, default in defaults.items():
            setattr(self, name, params.get(name, default))

    parameters = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
                  for name, default in defaults.items()]
    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY), *parameters])
    return __init__

_PARAM_DOC = """
    method : {{"power_ep", "ep", "em"}}, default "{method}"
        Power EP with eta = -1 (the slides' method), standard EP with the approximate tilted
        moments of :mod:`.ep`, or coordinate ascent on the variational bound of :mod:`.em`.
    alpha0 : float > 0 or "auto", default "auto"
        Strength of the symmetric Beta(alpha0, alpha0) prior, kept as a fixed exact factor of q
        (trick 4); with ``ard`` the starting alpha. alpha0 >= 5 keeps the eta = -1 cavities
        defined for short objects; alpha0 = 2 left most of them undefined in the reference run.
        "auto": from the average number of tags per training object
        (:func:`~fsengine.methods.rtm.fit.suggested_settings`: 5 up to 50 tags, else tags / 6).
    ard : bool, default {ard}
        Maximise the evidence over each alpha_j (:mod:`.ard`), within [alpha_floor, alpha_max]
        (about 10x slower). The default is the method registry's, so ``fsengine select --method
        rtm``, the app and the class fit the same model (``RTMSelector`` defaulted to True in
        fsengine 0.2; pass ``ard=True`` for that model).
    alpha_floor, alpha_max : float, default {alpha_floor:g} and {alpha_max:g}
        ARD bounds; a tag whose alpha ends above sqrt(alpha_floor * alpha_max) is removed.
    damping : float in [0, 1), default {damping}
        Outer damping gamma (trick 1): sites become gamma * old + (1 - gamma) * new after a sweep.
    inner_damping : float in [0, 1) or "auto", default "auto"
        Inner damping rho (trick 3) of each factor's update within a sweep. Without it Power EP
        settled into a 2-cycle (max change stuck at 0.022) on 4 of 5 subjectivity folds.
        "auto": 0.5 for objects with up to 50 tags on average, 0.8 for longer ones.
    sequential : bool, default True
        Refresh q after every factor (trick 2); False updates all factors from the same q.
    anderson_memory : int in [0, {max_anderson}], default {anderson_memory}
        Residuals kept by the Anderson acceleration of the sweeps (:mod:`.anderson`; not with ARD):
        the same fixed point and convergence test in 3-6 times fewer sweeps (benchmarks/RESULTS.md).
        0: the plain damped sweeps of the slides (what damping and sequential updates do alone).
    site_init : float, default {site_init}
        Initial sites theta^s (positive objects) or (1 - theta)^s (negative ones); for EM, the
        starting q_j = Beta(alpha + s P_j, alpha + s N_j).
    max_iter : int, default {max_iter}
        Maximum number of sweeps.
    tol : float, default {tol:g}
        Convergence threshold on the largest change of a posterior mean (and of 1/alpha).
    max_skipped_frac : float, default {max_skipped_frac}
        Convergence is refused while more than this fraction of factors is skipped.
    binarize : "auto", float or None, default "auto"
        How X becomes tags (:func:`fsengine.data.transforms.binarize_input`, the rule the app and the
        command line apply): "auto" keeps binary X (0/1, or -1/1 dense) and binarises other X as
        x > 0.5 for data in [0, 1], else x > each column's median (sparse: x > 0); a number t: tag
        present where X > t (scikit-learn's ``BernoulliNB`` convention); None: X must be binary.
        The rule learnt in ``fit`` (``binarization_``) is applied to the X of ``predict_proba``.
        The default was 0.0 in fsengine 0.2 (the same tags for binary and non-negative sparse X).
""".format(**_DEFAULTS, max_anderson=anderson.MAX_MEMORY)


def binary_target(y) -> tuple[np.ndarray, np.ndarray]:
    """(y01, classes) for a two-class target; scikit-learn's messages for anything else."""
    check_classification_targets(y)
    kind = type_of_target(y, input_name="y")
    if kind != "binary":
        raise ValueError(
            f"Only binary classification is supported. The type of the target is {kind}: the RTM "
            "models exactly two classes. Choose two classes (e.g. a letter pair) or a binary target."
        )
    return as_binary_labels(y)


class _RTMParams:
    """The shared constructor parameters of the classifier and the selector."""

    @property
    def _warm_starts(self) -> bool:
        """``fit`` takes ``warm_start`` (:mod:`fsengine.warm_start`) without ARD (whose answer
        depends on where it starts)."""
        return not self.ard

    def _settings(self, tags: TagMatrix) -> RTMSettings:
        """The fit's settings; "auto" prior strength and inner damping from the tags per object."""
        suggested = suggested_settings(tags.nnz / max(tags.n_objects, 1))
        values = {f.name: getattr(self, f.name) for f in fields(RTMSettings) if f.name in _RTM_PARAMS}
        if self.alpha0 == "auto":
            values["alpha0"] = suggested.alpha0
        if self.inner_damping == "auto":
            values["inner_damping"] = suggested.inner_damping
        values["ard"], values["sequential"] = bool(self.ard), bool(self.sequential)  # numpy bools too
        return RTMSettings(**values)

    def _rtm_params(self) -> dict:
        return {name: getattr(self, name) for name in _RTM_PARAMS}


class RTMClassifier(_RTMParams, ClassifierMixin, BaseEstimator):
    __doc__ = """Relevance Tagging Machine classifier (Molchanov, Kondrashkin & Vetrov).

    Tags x in {0, 1}^d and a class c in {0, 1}; each tag carries theta_j = P(c = 1 | tag j
    present) and the tags of an object vote independently (slides, "Relevance Tagging Machine";
    ``/work/shared/papers/004_b0c01880b1cd24a2.txt``)::

        P(c = 1 | x, theta) = prod_j theta_j^x_j / (prod_j theta_j^x_j + prod_j (1 - theta_j)^x_j),
        theta_j ~ Beta(alpha_j, alpha_j).

    The posterior is approximated by prod_j Beta(A_j, B_j), trained by Power EP with eta = -1
    (slides "Likelihood approximation" to "Convergence tricks"), EP or EM; ``predict_proba``
    averages the likelihood over it (:func:`~fsengine.methods.rtm.model.predict_positive`).
    Objects without any tag get probability 1/2 (the model has no bias term).

    Parameters
    ----------""" + _PARAM_DOC + """
    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two class labels (``classes_[1]`` is c = 1).
    A_, B_ : ndarray of shape (n_features,)
        Posterior Beta parameters of every theta_j.
    alpha_ : ndarray of shape (n_features,)
        Prior strengths alpha_j (all ``alpha0_`` without ARD).
    alpha0_, inner_damping_ : float
        The values used ("auto" resolved from the tags per object).
    theta_mean_ : ndarray of shape (n_features,)
        Posterior mean A_j / (A_j + B_j).
    relevance_ : ndarray of shape (n_features,)
        log Bayes factor of theta_j against 0.5 (:mod:`~fsengine.methods.rtm.evidence`).
    active_ : ndarray of shape (n_features,), bool
        Tags the model deems relevant: not pinned by the ARD (``ard=True``), else log BF > 0.
    trace_ : pandas.DataFrame, one row per sweep
        iteration, max_change, alpha_change, log_evidence (EP/Power EP estimate or the EM lower
        bound), n_active, n_skipped, n_improper, extrapolated (the sweep started from an Anderson
        step, :mod:`~fsengine.methods.rtm.anderson`), seconds.
    converged_ : bool
        Whether the stopping rule was met (else a ``ConvergenceWarning`` said why).
    run_label_ : str
        How progress messages and figures name this fit: ``"RTM Power EP"``, ``"RTM EM + ARD"``.
    n_iter_ : int
        Sweeps run.
    n_features_in_ : int
        Number of features (tags) seen in ``fit``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names, when X had string column names.
    binarization_ : Binarization
        The rule that made X binary (:class:`~fsengine.data.transforms.Binarization`).
    warm_state_ : RTMState
        Where a later fit on related objects can start (``fit(..., warm_start=...)``): the sites
        of every (object, tag) pair (Power EP, EP), the posterior and alpha.

    See Also
    --------
    RTMSelector : the tags this classifier deems relevant, as a scikit-learn selector.
    sklearn.naive_bayes.BernoulliNB : the same voting structure with point estimates of theta.

    Notes
    -----
    Passes scikit-learn's ``check_estimator`` without exemptions: it declares itself binary
    (``classifier_tags.multi_class = False``) and rejects other targets with scikit-learn's
    message.

    Examples
    --------
    >>> from fsengine.data.synthetic.rtm import make_rtm
    >>> from fsengine.selectors import RTMClassifier
    >>> ds = make_rtm(n_samples=200, n_tags=20, n_relevant=3, tag_rate=0.15, min_effect=0.3, seed=0)
    >>> clf = RTMClassifier().fit(ds.X[:150], ds.y[:150])
    >>> clf.converged_, clf.predict_proba(ds.X[150:]).shape
    (True, (50, 2))
    >>> bool(clf.score(ds.X[150:], ds.y[150:]) > 0.6)
    True
    """

    _parameter_constraints = dict(_RTM_PARAMS)
    __init__ = _keyword_init(_DEFAULTS)

    def fit(self, X, y, *, progress=None, warm_start=None):
        """Train on X of shape (n_samples, n_features) and a two-class y; returns self.

        ``progress(fraction, message)`` (:mod:`fsengine.progress`) hears about every sweep; if it
        raises :class:`~fsengine.progress.StopRequested` the exception propagates and the
        classifier is left unfitted (a partial posterior is not a result).

        ``warm_start``: a :class:`fsengine.warm_start.WarmStart` holding an earlier fit's
        ``warm_state_`` and, for each row of X, the row of that fit's X it repeats (a bootstrap
        resample); the sweeps start from that fit's sites (:func:`~fsengine.methods.rtm.fit.fit_rtm`)
        and stop by the same rule.
        """
        self._validate_params()
        X, y = validate_X_y(self, X, y, accept_sparse=("csr", "csc"))
        y01, classes = binary_target(y)
        X01, binarization = binarize_input(X, self.binarize, what=type(self).__name__)
        tags = tags_from(X01, None)
        settings = self._settings(tags)
        start, rows = (None, None) if warm_start is None else (warm_start.state, warm_start.rows)
        try:
            fit = fit_rtm(tags, y01, settings, progress=progress, start=start, rows=rows)
        except StopRequested:
            forget_fit(self)
            raise
        self.classes_, self.binarization_ = classes, binarization
        self.alpha0_, self.inner_damping_ = settings.alpha0, settings.inner_damping
        self.A_, self.B_, self.alpha_ = fit.A, fit.B, fit.alpha
        self.theta_mean_ = fit.theta_mean
        self.relevance_ = fit.relevance()
        self.active_ = fit.active()
        self.trace_ = fit.trace
        self.converged_ = fit.converged
        self.n_iter_ = fit.n_iter
        self.warm_state_ = fit.state
        self.run_label_ = run_label(settings)
        return self

    def posterior_summary(self, level: float = 0.9) -> dict:
        """Mean, sd and central credible interval of every theta_j."""
        check_is_fitted(self, "A_")
        return posterior_summary(self.A_, self.B_, level)

    def top_tags(self, names=None, k: int = 20, level: float = 0.9):
        """DataFrame of the k tags with the largest log Bayes factor: tag name, posterior mean and
        central ``level`` interval of theta_j, log Bayes factor, alpha_j."""
        check_is_fitted(self, "A_")
        names = [f"tag {j}" for j in range(self.A_.size)] if names is None else names
        return top_tags(self.A_, self.B_, self.alpha_, names, k, level)

    def predict_proba(self, X):
        """Columns P(classes_[0] | x), P(classes_[1] | x) under the approximate posterior."""
        check_is_fitted(self, "A_")
        X = validate_X(self, X, accept_sparse=("csr", "csc"), reset=False)
        tags = tags_from(self.binarization_.apply(X, what=type(self).__name__), None)
        p1 = predict_positive(tags.indptr, tags.indices, self.A_, self.B_, QUADRATURE)
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X):
        positive = self.predict_proba(X)[:, 1] > 0.5
        return self.classes_[positive.astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = False
        return tags


class RTMSelector(_RTMParams, BaseFeatureSelector):
    __doc__ = """Feature (tag) selection with the Relevance Tagging Machine.

    Fits an :class:`RTMClassifier` (``model_``) and scores every tag by the log Bayes factor of
    theta_j against 0.5 under its approximate posterior q_j = Beta(A_j, B_j) (Savage-Dickey;
    :mod:`~fsengine.methods.rtm.evidence`)::

        log BF_j = (A_j + B_j - 2 alpha_j) log 2 + log B(A_j, B_j) - log B(alpha_j, alpha_j).

    ``get_support()`` keeps the tags the model deems relevant: those with log BF > 0 under the
    fixed prior (``ard=False``, the default), those the ARD does not drive towards ``alpha_max``
    (``ard=True``; slides "ARD"), or the ``n_features_to_select`` best by score.

    Parameters
    ----------""" + _PARAM_DOC + """
    n_features_to_select : int or None, default None
        Keep this many top-scoring tags instead of the model's own verdict.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        log Bayes factor of every tag (higher = more relevant).
    order_ : ndarray of shape (n_features,)
        Tags by decreasing score (ties by lower index).
    ranking_ : ndarray of shape (n_features,)
        Rank of every tag, 1 = best (``ranking_[order_[i]] == i + 1``).
    support_ : ndarray of shape (n_features,), bool
        The selected tags (see above).
    trace_ : pandas.DataFrame, one row per sweep
        The classifier's trace (:attr:`RTMClassifier.trace_`).
    n_iter_ : int
        Sweeps run.
    model_ : RTMClassifier
        The fitted classifier (posterior, prior strengths, predictions).
    warm_state_ : RTMState
        Where a later fit on related objects can start (``fit(..., warm_start=...)``, as the
        comparison's bootstrap fits do): the classifier's ``warm_state_``.
    n_features_in_ : int
        Number of features (tags) seen in ``fit``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names, when X had string column names.

    See Also
    --------
    RTMClassifier : the model behind the scores.
    fsengine.selectors.MutualInfoSelector : the marginal baseline of the slides' ROC.

    Notes
    -----
    Passes scikit-learn's ``check_estimator`` without exemptions; a two-class method
    (``_two_classes``, :class:`fsengine.base.BaseFeatureSelector`), so the checks hand it binary
    targets.
    The defaults are the method registry's (:func:`fsengine.methods.registry.method_defaults`),
    so ``RTMSelector()`` selects what ``fsengine select --method rtm`` selects.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.data.synthetic.rtm import make_rtm
    >>> from fsengine.selectors import RTMSelector
    >>> ds = make_rtm(n_samples=200, n_tags=20, n_relevant=3, tag_rate=0.15, min_effect=0.3, seed=0)
    >>> sel = RTMSelector().fit(ds.X, ds.y)
    >>> sorted(sel.order_[:3]) == sorted(np.flatnonzero(ds.truth))
    True
    >>> sel.transform(ds.X).shape[1] == int(sel.support_.sum()), type(sel.model_).__name__
    (True, 'RTMClassifier')
    """

    _two_classes = True
    _parameter_constraints = {**_RTM_PARAMS,
                              "n_features_to_select": [Interval(Integral, 1, None, closed="left"), None]}
    __init__ = _keyword_init({**_DEFAULTS, "n_features_to_select": None})

    def fit(self, X, y, *, progress=None, warm_start=None):
        """Fit the classifier (``model_``) and score every tag; returns self. ``progress`` and
        ``warm_start`` as for :meth:`RTMClassifier.fit`."""
        self._warm_start = warm_start
        try:
            return super().fit(X, y, progress=progress)
        finally:
            del self._warm_start

    def _fit(self, X, y):
        # one report per sweep; a StopRequested propagates and BaseFeatureSelector.fit forgets the fit
        model = RTMClassifier(**self._rtm_params()).fit(X, y, progress=self._progress,
                                                        warm_start=self._warm_start)
        self.model_ = model
        self.warm_state_ = model.warm_state_
        self.scores_ = model.relevance_
        self._rank_and_support(model.active_)
        self.trace_ = model.trace_
        self.n_iter_ = model.n_iter_
        return self

