"""``BIASelector``: the Bayesian Ising Approximation as a scikit-learn feature selector."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from fsengine.base import BaseFeatureSelector
from fsengine.chunked import classes_of, moments
from fsengine.glm import FAMILY_NAMES, expansion_from_moments
from fsengine.methods.bia.model import (
    DEFAULT_MAX_MEMORY_MB,
    DEFAULT_STEP,
    DEFAULT_STEPS,
    build_bia_model,
    check_memory,
    model_from_expansion,
)
from fsengine.validation import as_binary_labels


class BIASelector(BaseFeatureSelector):
    """Posterior feature relevance by the Bayesian Ising Approximation (Fisher & Mehta).

    The log-evidence of every feature subset of a GLM with a strong Gaussian prior
    ``theta_j ~ N(0, 1/Lambda)`` on standardised features becomes an Ising energy (Eq. 5-12,
    derivation in :mod:`fsengine.methods.bia.model`); mean-field magnetizations ``m_j`` give the
    posterior inclusion probabilities ``p_j = (1 + m_j)/2`` (Eq. 13).

    Parameters
    ----------
    family : {"logistic", "linear", "poisson"}
        GLM likelihood. Logistic needs exactly two classes (any labels; the second sorted label
        is the positive class), poisson non-negative integer counts.
    lambda_ratio : float, default 1.0
        ``Lambda / Lambda*`` at which ``scores_`` (posteriors) are reported, ``Lambda* = n (1 + p r)``.
        Values below 1 are in the approximation's breakdown region.
    n_steps : int, default 200
        Steps of the mean-field path; step ``k`` is at ``Lambda/Lambda* = 1 / (k * step)``.
    step : float, default 0.05
        Path step ``delta eps`` in units of ``1/Lambda*`` (the paper's 0.05).
    n_features_to_select : int or None
        When given, ``support_`` is the top-k by posterior; otherwise posterior > 0.5.
    dispersion : float or None
        Noise variance of the linear family (default ``Var[y]``); must be None otherwise.
    damping, tol, max_iter :
        Damped self-consistent mean-field solve at ``lambda_ratio`` (warm-started on the path).
    max_memory_mb : float, default 2048
        Memory budget of the p x p couplings; larger problems raise a ValueError saying how many
        features fit.

    Attributes
    ----------
    scores_ : posterior inclusion probabilities at ``lambda_ratio``.
    magnetization_ : the mean-field ``m`` at ``lambda_ratio``.
    path_ : DataFrame, index ``Lambda/Lambda*`` (name ``lambda_ratio``, decreasing), one column
        of posteriors per feature.
    trace_ : DataFrame, one row per path step: ``lambda_ratio``, ``epsilon``, ``max_abs_dm``,
        ``mean_m``, ``n_selected`` (posterior > 0.5), ``breakdown`` (Lambda < Lambda*),
        ``fixed_point_residual`` (max |m - tanh(h + J m)| of the step: near 0 where the path
        follows the mean-field solution, up to 2 where the recursion oscillates).
    lambda_star_, rms_correlation_ : the breakdown scale and the RMS off-diagonal correlation.
    fields_, couplings_ : Ising fields and couplings at ``lambda_ratio``
        (``log p(s|y) = fields_.s + sum_{i<j} couplings_ij s_i s_j + const``).
    n_iter_, converged_ : of the self-consistent solve.

    scikit-learn compatibility: passes ``check_estimator`` for ``family="linear"``. Exemptions,
    all by design of the method: constant columns raise (they cannot be standardised and are
    never dropped silently); for ``family="logistic"`` targets with more than two classes raise;
    for ``family="poisson"`` non-count targets raise. ``tests/methods/bia/test_selector.py`` lists the
    checks skipped for these reasons.
    """

    _parameter_constraints = {
        "family": [StrOptions(set(FAMILY_NAMES))],
        "lambda_ratio": [Interval(Real, 0, None, closed="neither")],
        "n_steps": [Interval(Integral, 1, None, closed="left")],
        "step": [Interval(Real, 0, None, closed="neither")],
        "n_features_to_select": [Interval(Integral, 1, None, closed="left"), None],
        "dispersion": [Interval(Real, 0, None, closed="neither"), None],
        "damping": [Interval(Real, 0, 1, closed="right")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "max_memory_mb": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, family="logistic", lambda_ratio=1.0, n_steps=DEFAULT_STEPS, step=DEFAULT_STEP,
                 n_features_to_select=None, dispersion=None, damping=0.5, tol=1e-10, max_iter=2000,
                 max_memory_mb=DEFAULT_MAX_MEMORY_MB):
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

    @property
    def _classification(self):
        return self.family == "logistic"

    def _feature_names(self, p):
        names = getattr(self, "feature_names_in_", None)
        return [str(v) for v in names] if names is not None else [f"x{j}" for j in range(p)]

    def _fit(self, X, y):
        if self.family == "logistic":
            y, self.classes_ = as_binary_labels(y)
        names = self._feature_names(X.shape[1])
        model = build_bia_model(X, y, self.family, dispersion=self.dispersion,
                                lambda_ref_ratio=self.lambda_ratio, max_memory_mb=self.max_memory_mb,
                                feature_names=names)
        self._fit_model(model, names)

    def _fit_chunked(self, X, y):
        """A row-chunked dask X: the moments are reduced over row blocks (:mod:`fsengine.chunked`),
        only p x p arrays come back; the rest is the in-memory fit."""
        positive = None
        if self.family == "logistic":
            self.classes_ = classes_of(y)
            as_binary_labels(self.classes_)  # exactly two classes, or its error
            positive = self.classes_[1]
        p = X.shape[1]
        check_memory(X.shape[0], p, self.max_memory_mb, sparse=True)  # only p x p arrays are held
        names = self._feature_names(p)
        mom = moments(X, y, positive)
        exp = expansion_from_moments(self.family, mom, dispersion=self.dispersion, feature_names=names)
        self._fit_model(model_from_expansion(exp, self.lambda_ratio), names)

    def _fit_model(self, model, names):
        path = model.path(self.step, self.n_steps)
        nearest = int(np.argmin(np.abs(np.log(path.lambda_ratio / self.lambda_ratio))))
        sol = model.solve(self.lambda_ratio, m0=path.m[nearest], damping=self.damping, tol=self.tol,
                          max_iter=self.max_iter)
        if not sol.converged:
            warnings.warn(  # noqa: B028 - stacklevel 1 names this line, the fit that did not converge
                f"Mean field at Lambda/Lambda* = {self.lambda_ratio:g} did not converge in "
                f"{sol.n_iter} iterations (residual {sol.residual:.2e}); lower damping or raise "
                "max_iter. Below Lambda* the approximation itself breaks down.",
                ConvergenceWarning,
            )
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
            "fixed_point_residual": model.fixed_point_residual(path.lambda_ratio, path.m),
        })
        self._rank_and_support(self.scores_ > 0.5)
        return self
