"""``BIASelector``: the Bayesian Ising Approximation as a scikit-learn feature selector."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from fsengine.base import BaseFeatureSelector
from fsengine.chunked import classes_of, moments
from fsengine.glm import expansion_from_moments
from fsengine.methods.bia.memory import COUPLING_ITEMSIZE, DEFAULT_COUPLING_DTYPE, check_chunked
from fsengine.methods.bia.model import DEFAULT_STEP, build_bia_model, model_from_expansion
from fsengine.methods.registry import method_constraints, method_defaults
from fsengine.position import Position
from fsengine.progress import scaled
from fsengine.validation import as_binary_labels

#: the registry's defaults (family, lambda_ratio, n_steps, max_memory_mb): the app, the CLI and the class agree
_DEFAULTS = method_defaults("bia")

#: share of the progress bar taken by the expansion and the couplings, by the path, and by the solve
_MODEL_END, _PATH_END = 0.3, 0.95


class BIASelector(BaseFeatureSelector):
    r"""Posterior feature relevance by the Bayesian Ising Approximation (Fisher & Mehta).

    The log-evidence of every feature subset of a GLM with a strong Gaussian prior
    ``theta_j ~ N(0, 1/Lambda)`` on standardised features becomes an Ising energy
    (Fisher & Mehta 2015, Eq. 5-12; derivation in :mod:`fsengine.methods.bia.model`)::

        log p(s | y) = sum_i h_i s_i + sum_{i<j} J_ij s_i s_j + const,

    and the mean-field magnetizations ``m_i = tanh(h_i + sum_j J_ij m_j)`` give the posterior
    inclusion probability of every feature, ``p(s_j = 1 | y) = (1 + m_j) / 2`` (Eq. 13). The
    magnetizations are followed from ``m = 0`` along the prior strength (the feature-selection
    path, the recursion after Eq. 13) and solved self-consistently at ``lambda_ratio``.

    Parameters
    ----------
    family : {"logistic", "linear", "poisson"}, default "logistic"
        GLM likelihood. Logistic needs exactly two classes (any labels; the second sorted label
        is the positive class), poisson non-negative integer counts.
    lambda_ratio : float, default 1.0
        ``Lambda / Lambda*`` at which ``scores_`` (posteriors) are reported, with the breakdown
        scale ``Lambda* = n (1 + p r)``. Values below 1 are in the approximation's breakdown region.
    n_steps : int, default 200
        Steps of the mean-field path; step ``k`` is at ``Lambda/Lambda* = 1 / (k * step)``.
    step : float, default 0.05
        Path step ``delta eps`` in units of ``1/Lambda*`` (the paper's 0.05).
    n_features_to_select : int or None, default None
        When given, ``support_`` is the top-k by posterior; otherwise posterior > 0.5.
    dispersion : float or None, default None
        Noise variance of the linear family (None: ``Var[y]``); must be None otherwise.
    damping : float, default 0.5
        Damping of the self-consistent solve at ``lambda_ratio`` (warm-started on the path),
        ``m <- (1 - damping) m + damping tanh(h + J m)``.
    tol : float, default 1e-10
        The solve stops when ``max |m - tanh(h + J m)|`` falls below ``tol``.
    max_iter : int, default 2000
        Iterations of the solve at most (a ConvergenceWarning says when they did not suffice).
    max_memory_mb : float, default 2048
        Memory budget (MB) of the fit's arrays: the p x p couplings, the standardised copy of a
        dense X, a block of the Gram matrix and the path (:mod:`fsengine.methods.bia.memory`). A
        wider problem raises a ValueError stating the budget and how many features fit.
    coupling_dtype : {"float32", "float64"}, default "float32"
        How the couplings (computed in float64) are stored; the path's sums run in float64 either
        way. float32 halves their memory and the path's time with the same posteriors to 1e-9 in
        the tests (in fsengine 0.2, float32 only beyond the budget of float64).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Posterior inclusion probabilities ``(1 + m_j) / 2`` at ``lambda_ratio``.
    order_ : ndarray of shape (n_features,)
        Features by decreasing posterior (ties by lower index).
    ranking_ : ndarray of shape (n_features,)
        Rank of each feature (1 = highest posterior), following ``order_``.
    support_ : ndarray of shape (n_features,), dtype bool
        Posterior > 0.5, or the top ``n_features_to_select``.
    magnetization_ : ndarray of shape (n_features,)
        The self-consistent mean-field ``m`` at ``lambda_ratio``.
    path_ : DataFrame of shape (n_steps, n_features)
        Posteriors along the path: index ``Lambda/Lambda*`` (name ``lambda_ratio``, decreasing),
        one column per feature.
    trace_ : DataFrame of shape (n_steps, 7)
        One row per path step: ``lambda_ratio``, ``epsilon``, ``max_abs_dm``, ``mean_m``,
        ``n_selected`` (posterior > 0.5), ``breakdown`` (Lambda < Lambda*) and
        ``fixed_point_residual`` (``max |m - tanh(h + J m)|`` of the step: near 0 where the path
        follows the mean-field solution, up to 2 where the recursion oscillates).
    model_ : BIAModel
        The fitted Ising model (fields and couplings as functions of Lambda).
    lambda_star_ : float
        The breakdown scale ``Lambda* = n (1 + p r)``.
    rms_correlation_ : float
        ``r``, the root-mean-square off-diagonal correlation between the features.
    fields_ : ndarray of shape (n_features,)
        Ising fields ``h`` at ``lambda_ratio``.
    couplings_ : ndarray of shape (n_features, n_features)
        Ising couplings ``J`` at the reference ``Lambda = lambda_ratio * Lambda*`` (symmetric, zero
        diagonal): ``log p(s|y) = fields_.s + sum_{i<j} couplings_ij s_i s_j + const``; of
        ``coupling_dtype``.
    n_iter_ : int
        Iterations of the self-consistent solve.
    converged_ : bool
        Whether the solve reached ``tol``.
    classes_ : ndarray of shape (2,)
        The two class labels (logistic family only).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names of X when it has string column names.

    See Also
    --------
    fsengine.methods.bia.model.build_bia_model : the fields and couplings without the selector.
    fsengine.methods.bia.study.run_bia_path : the path of a Dataset, as the app page and the
        reproduction use it.
    fsengine.selectors.L1PathSelector : a regularisation path of a different kind (the L1 entry order).

    Notes
    -----
    The fit reports ``progress(fraction, message)`` (:mod:`fsengine.progress`) while it builds the
    couplings, along the path and for the solve. The result is a posterior, not a greedy
    selection: a :class:`~fsengine.progress.StopRequested` raised by the callback propagates and
    the estimator stays unfitted.

    scikit-learn compatibility: passes ``check_estimator`` for every family, without exemptions.
    ``family="logistic"`` is a two-class method (``_two_classes``,
    :class:`fsengine.base.BaseFeatureSelector`): other targets raise, and the checks hand it binary
    targets. By design of the method, constant columns raise (they cannot be standardised and are
    never dropped silently) and ``family="poisson"`` refuses non-count targets.

    Examples
    --------
    >>> from fsengine.data.synthetic.glm import make_sparse_glm
    >>> from fsengine.selectors import BIASelector
    >>> ds = make_sparse_glm("logistic", n=200, p=12, k=3, rho=0.4, seed=7)
    >>> sel = BIASelector(n_steps=40).fit(ds.X, ds.y)
    >>> sel.order_[:3].tolist(), ds.truth.nonzero()[0].tolist()  # the three relevant features first
    ([11, 10, 2], [2, 10, 11])
    >>> sel.path_.shape, bool(sel.scores_[11] > 0.5 > sel.scores_[0])
    ((40, 12), True)
    """

    _parameter_constraints = method_constraints("bia", {
        "step": [Interval(Real, 0, None, closed="neither")],
        "n_features_to_select": [Interval(Integral, 1, None, closed="left"), None],
        "dispersion": [Interval(Real, 0, None, closed="neither"), None],
        "damping": [Interval(Real, 0, 1, closed="right")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "coupling_dtype": [StrOptions(set(COUPLING_ITEMSIZE))],
    })

    def __init__(self, *, family=_DEFAULTS["family"], lambda_ratio=_DEFAULTS["lambda_ratio"],
                 n_steps=_DEFAULTS["n_steps"], step=DEFAULT_STEP, n_features_to_select=None, dispersion=None,
                 damping=0.5, tol=1e-10, max_iter=2000, max_memory_mb=_DEFAULTS["max_memory_mb"],
                 coupling_dtype=DEFAULT_COUPLING_DTYPE):
        self.family = family
        self.lambda_ratio = lambda_ratio
        self.n_steps = n_steps
        self.step = step
        self.n_features_to_select = n_features_to_select
        self.dispersion = dispersion
        self.damping = damping
        self.tol = tol
        self.max_iter = max_iter
        self.max_memory_mb = max_memory_mb
        self.coupling_dtype = coupling_dtype

    @property
    def _classification(self):
        return self.family == "logistic"

    @property
    def _two_classes(self):
        return self.family == "logistic"

    def _feature_names(self, p):
        names = getattr(self, "feature_names_in_", None)
        return [str(v) for v in names] if names is not None else [f"x{j}" for j in range(p)]

    def _fit(self, X, y):
        classes = None
        if self.family == "logistic":
            y, classes = as_binary_labels(y)
        names = self._feature_names(X.shape[1])
        self._progress(0.0, "standardising, fields and couplings")
        model = build_bia_model(X, y, self.family, dispersion=self.dispersion,
                                lambda_ref_ratio=self.lambda_ratio, max_memory_mb=self.max_memory_mb,
                                n_steps=self.n_steps, feature_names=names, coupling_dtype=self.coupling_dtype,
                                progress=scaled(self._progress, 0.0, _MODEL_END))
        self._fit_model(model, names, classes)

    def _fit_chunked(self, X, y):
        """A row-chunked dask X: the moments are reduced over row blocks (:mod:`fsengine.chunked`),
        only p x p arrays come back; the rest is the in-memory fit."""
        positive = classes = None
        if self.family == "logistic":
            classes = classes_of(y)
            as_binary_labels(classes)  # exactly two classes, or its error
            positive = classes[1]
        p = X.shape[1]
        check_chunked(p, self.max_memory_mb, self.n_steps, self.coupling_dtype)  # only p x p arrays are held
        names = self._feature_names(p)
        self._progress(0.0, "moments over the row blocks, fields and couplings")
        mom = moments(X, y, positive)
        exp = expansion_from_moments(self.family, mom, dispersion=self.dispersion, feature_names=names)
        self._fit_model(model_from_expansion(exp, self.lambda_ratio, coupling_dtype=self.coupling_dtype), names,
                        classes)

    def _fit_model(self, model, names, classes):
        """Path, solve and every fitted attribute (set at the end: a stopped fit sets none)."""
        self._progress(_MODEL_END, "mean-field path")
        path = model.path(self.step, self.n_steps, progress=scaled(self._progress, _MODEL_END, _PATH_END))
        start = Position.nearest(path.lambda_ratio, self.lambda_ratio)
        self._progress(_PATH_END, f"self-consistent solve at Λ/Λ* = {self.lambda_ratio:g}")
        sol = model.solve(self.lambda_ratio, m0=path.m[start.index], damping=self.damping, tol=self.tol,
                          max_iter=self.max_iter)
        if not sol.converged:
            warnings.warn(  # noqa: B028 - stacklevel 1 names this line, the fit that did not converge
                f"Mean field at Lambda/Lambda* = {self.lambda_ratio:g} did not converge in "
                f"{sol.n_iter} iterations (residual {sol.residual:.2e}); lower damping or raise "
                "max_iter. Below Lambda* the approximation itself breaks down.",
                ConvergenceWarning,
            )
        if classes is not None:
            self.classes_ = classes
        self.model_ = model
        self.lambda_star_ = model.lambda_star
        self.rms_correlation_ = model.rms_correlation
        self.fields_ = model.fields(self.lambda_ratio)
        self.couplings_ = model.couplings
        self.magnetization_ = sol.m
        self.scores_ = sol.posterior
        self.n_iter_, self.converged_ = sol.n_iter, sol.converged
        index = pd.Index(path.lambda_ratio, name="lambda_ratio")
        self.path_ = pd.DataFrame(path.posterior, index=index, columns=names)
        self.trace_ = pd.DataFrame({
            "lambda_ratio": path.lambda_ratio,
            "epsilon": path.epsilon,
            "max_abs_dm": path.max_dm,
            "mean_m": path.m.mean(axis=1),
            "n_selected": (path.m > 0).sum(axis=1),
            "breakdown": path.breakdown,
            "fixed_point_residual": path.residual,
        })
        self._rank_and_support(self.scores_ > 0.5)
        self._progress(1.0, "done")
        return self
