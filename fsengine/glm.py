"""Generalised linear models: log-likelihood, gradient and Hessian (Fisher & Mehta, Appendix A).

A GLM with canonical link writes one observation as (Eq. 23, with a dispersion ``phi``)

    log p(y | theta, x) = log g(y, phi) + (eta * y + F(eta)) / phi,    eta = theta0 + theta' x,

so that ``-F'(eta) = <y>`` (Eq. 21) and ``F''(eta) = Var[y] / phi`` up to sign (Eq. 22). For
``n`` independent rows the log-likelihood is Eq. (24) and its derivatives at any ``theta`` are

    gradient   b  = X' (y - mu) / phi                         (Eq. 25; Eq. 18 for logistic)
    Hessian    H  = - X' diag(V(mu)) X / phi                  (Eq. 27; Eq. 19 for logistic)

with ``mu = <y>`` the mean and ``V(mu)`` the variance function of the family:

    family     mean mu(eta)           V(mu)         phi                   theta0-bar (Eq. 17)
    linear     eta                    1             Var[y] (default)      mean(y)
    logistic   1 / (1 + e^-eta)       mu (1 - mu)   1                     logit(mean(y))
    poisson    e^eta                  mu            1                     log(mean(y))

**At the prior mean** (``theta = (theta0-bar, 0, ..., 0)``, the intercept matched to the observed
mean, Eq. 17) every row has the same mean ``mu-bar = mean(y)``, so on *standardised* features
``z = (x - mean) / std`` (population std) the expansion is closed-form (Eq. 26 and 28, exact here):

    b_i  = sum_l z_il (y_l - mu-bar) / phi  =  n Cov[y, x_i] / (phi std_i)
    H_ij = - w * G_ij,    G = Z'Z = n Corr[x],    w = V(mu-bar) / phi.

:func:`prior_mean_expansion` returns ``b``, ``w`` and the standardised Gram ``G`` (the one p x p
array; ``H`` is never materialised unless asked for). The general functions
:func:`log_likelihood`, :func:`gradient`, :func:`hessian` work at any ``theta`` on any design and
serve the exact references and other methods (e.g. Laplace-approximated Bayes factors).

The linear family's dispersion defaults to ``Var[y]``: the residual variance of the model that
explains nothing, which is the model every feature is compared with when the prior is strong.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, gammaln, logit

FAMILY_NAMES = ("linear", "logistic", "poisson")


class ConstantFeatureError(ValueError):
    """Some columns have zero variance, so they cannot be standardised."""

    def __init__(self, columns, feature_names=None):
        self.columns = np.asarray(columns, dtype=np.intp)
        names = [str(feature_names[j]) if feature_names is not None else f"column {j}"
                 for j in self.columns[:12]]
        more = f" and {self.columns.size - 12} more" if self.columns.size > 12 else ""
        super().__init__(
            f"{self.columns.size} constant feature(s) cannot be standardised: {', '.join(names)}{more}. "
            "A constant column carries no information about y; remove it before fitting "
            "(e.g. sklearn.feature_selection.VarianceThreshold) so that nothing is dropped silently."
        )


@dataclass(frozen=True)
class GLMFamily:
    """One exponential family with canonical link (see the module table)."""

    name: str

    def mean(self, eta):
        """Inverse canonical link: mu = <y> at linear predictor eta (Eq. 21)."""
        eta = np.asarray(eta, dtype=np.float64)
        if self.name == "linear":
            return eta
        if self.name == "logistic":
            return expit(eta)
        return np.exp(eta)

    def link(self, mu):
        """Canonical link: the eta whose mean is mu (used for the matched intercept, Eq. 17)."""
        mu = np.asarray(mu, dtype=np.float64)
        if self.name == "linear":
            return mu
        if self.name == "logistic":
            return logit(mu)
        return np.log(mu)

    def variance(self, mu):
        """Variance function V(mu) = Var[y] / phi (Eq. 22)."""
        mu = np.asarray(mu, dtype=np.float64)
        if self.name == "linear":
            return np.ones_like(mu)
        if self.name == "logistic":
            return mu * (1.0 - mu)
        return mu

    def log_density(self, y, eta, dispersion: float = 1.0):
        """Per-row log p(y | eta) including the base measure log g(y) (Eq. 23)."""
        y = np.asarray(y, dtype=np.float64)
        eta = np.asarray(eta, dtype=np.float64)
        if self.name == "linear":
            return -0.5 * np.log(2 * np.pi * dispersion) - (y - eta) ** 2 / (2 * dispersion)
        if self.name == "logistic":
            return y * eta - np.logaddexp(0.0, eta)
        return y * eta - np.exp(eta) - gammaln(y + 1.0)

    def check_response(self, y) -> np.ndarray:
        """Return y as float64 or raise a ValueError saying what this family needs."""
        y = np.asarray(y, dtype=np.float64).ravel()
        if y.size < 2:
            raise ValueError(f"The {self.name} family needs at least 2 observations, got {y.size}.")
        if self.name == "linear":
            if np.ptp(y) == 0:
                raise ValueError(f"y is constant ({y[0]:g}); a linear model has nothing to explain.")
        elif self.name == "logistic":
            values = np.unique(y)
            if not np.isin(values, (0.0, 1.0)).all():
                shown = ", ".join(f"{v:g}" for v in values[:6]) + (", ..." if values.size > 6 else "")
                raise ValueError(
                    f"The logistic family needs binary labels coded 0/1; y has {values.size} distinct "
                    f"values ({shown}). Choose two classes or use the linear family."
                )
            if values.size < 2:
                raise ValueError(
                    f"y holds a single class ({values[0]:g}); logistic regression needs both classes "
                    "(the matched intercept logit(mean y) would be infinite)."
                )
        else:
            if (y < 0).any() or (y != np.round(y)).any():
                raise ValueError("The poisson family needs non-negative integer counts as y.")
            if y.sum() == 0:
                raise ValueError("All counts are zero; the poisson intercept log(mean y) would be -inf.")
        return y


def get_family(name: str) -> GLMFamily:
    """The family called ``name`` (one of :data:`FAMILY_NAMES`)."""
    if name not in FAMILY_NAMES:
        raise ValueError(f"Unknown GLM family {name!r}; choose one of {', '.join(FAMILY_NAMES)}.")
    return GLMFamily(name)


def resolve_dispersion(family: GLMFamily, y, dispersion: float | None = None) -> float:
    """phi: 1 for logistic/poisson; for linear the given value or Var[y] (population variance)."""
    if family.name != "linear":
        if dispersion not in (None, 1.0):
            raise ValueError(f"The {family.name} family has dispersion 1; do not pass dispersion.")
        return 1.0
    if dispersion is None:
        return float(np.var(np.asarray(y, dtype=np.float64)))
    if not dispersion > 0:
        raise ValueError(f"dispersion must be positive, got {dispersion}")
    return float(dispersion)


def matched_intercept(family: GLMFamily, y) -> float:
    """theta0-bar with mu(theta0-bar) = mean(y) (Eq. 17)."""
    return float(family.link(np.mean(y)))


# --- standardisation ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Standardization:
    """Column means and population standard deviations used for z = (x - mean) / scale."""

    mean: np.ndarray
    scale: np.ndarray

    def transform(self, X) -> np.ndarray:
        """Dense standardised copy of X."""
        X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        return (X - self.mean) / self.scale


def standardize_columns(X, feature_names=None) -> Standardization:
    """Means and population stds of the columns of X (dense or sparse).

    Raises :class:`ConstantFeatureError` naming every zero-variance column.
    """
    n = X.shape[0]
    if sp.issparse(X):
        Xc = sp.csc_matrix(X)
        mean = np.asarray(Xc.mean(axis=0)).ravel()
        sq = np.asarray(Xc.multiply(Xc).mean(axis=0)).ravel()
        var = np.maximum(sq - mean**2, 0.0)
        const = np.flatnonzero(var <= 1e-12 * np.maximum(sq, 1e-300))
    else:
        X = np.asarray(X, dtype=np.float64)
        mean = X.mean(axis=0)
        var = X.var(axis=0)
        const = np.flatnonzero(np.ptp(X, axis=0) == 0) if n else np.arange(X.shape[1])
    if const.size:
        raise ConstantFeatureError(const, feature_names)
    return Standardization(mean=mean, scale=np.sqrt(var))


def standardized_gram(X, stdz: Standardization) -> np.ndarray:
    """G = Z'Z for the standardised design Z (= n x correlation matrix); one p x p allocation.

    Dense X: one standardised n x p copy, then a BLAS product. Sparse X: X'X - n mean mean'
    from the sparse product, so the n x p design is never densified.
    """
    n = X.shape[0]
    if not sp.issparse(X):
        Z = stdz.transform(X)
        return Z.T @ Z
    Xc = sp.csc_matrix(X)
    G = (Xc.T @ Xc).toarray()
    G -= n * np.outer(stdz.mean, stdz.mean)
    G /= stdz.scale[:, None]
    G /= stdz.scale[None, :]
    return G


def standardized_cross(X, r, stdz: Standardization) -> np.ndarray:
    """Z' r for the standardised design Z and a vector r (no dense copy of a sparse X)."""
    r = np.asarray(r, dtype=np.float64)
    raw = np.asarray(X.T @ r).ravel()
    return (raw - stdz.mean * r.sum()) / stdz.scale


# --- general log-likelihood and derivatives (any theta, any design) --------------------------

def linear_predictor(X, theta, intercept: float = 0.0) -> np.ndarray:
    """eta = intercept + X theta."""
    return intercept + np.asarray(X @ np.asarray(theta, dtype=np.float64)).ravel()


def log_likelihood(family: GLMFamily, X, y, theta, intercept: float = 0.0,
                   dispersion: float = 1.0) -> float:
    """Eq. (24): sum_l log p(y_l | eta_l)."""
    eta = linear_predictor(X, theta, intercept)
    return float(np.sum(family.log_density(y, eta, dispersion)))


def gradient(family: GLMFamily, X, y, theta, intercept: float = 0.0,
             dispersion: float = 1.0) -> np.ndarray:
    """Eq. (25): d log-likelihood / d theta = X' (y - mu(eta)) / phi."""
    mu = family.mean(linear_predictor(X, theta, intercept))
    return np.asarray(X.T @ (np.asarray(y, dtype=np.float64) - mu)).ravel() / dispersion


def hessian(family: GLMFamily, X, y, theta, intercept: float = 0.0,
            dispersion: float = 1.0) -> np.ndarray:
    """Eq. (27): d^2 log-likelihood / d theta^2 = -X' diag(V(mu)) X / phi (y enters only via mu)."""
    del y  # canonical link: the Hessian does not depend on the observations
    v = family.variance(family.mean(linear_predictor(X, theta, intercept))) / dispersion
    if sp.issparse(X):
        return -np.asarray((X.T @ sp.diags(v) @ X).todense())
    X = np.asarray(X, dtype=np.float64)
    return -(X.T * v) @ X


# --- the closed-form expansion at the prior mean ---------------------------------------------

@dataclass
class PriorMeanExpansion:
    """Gradient and Hessian of the log-likelihood at the prior mean on standardised features.

    ``b`` (p,) is Eq. (25)/(26); the Hessian is ``H = -curvature * gram`` (Eq. 27/28), with
    ``gram = Z'Z`` (p x p, float64, C order) held once. ``gram`` is ``None`` when not requested.
    """

    family: str
    n: int
    p: int
    b: np.ndarray
    curvature: float
    intercept: float
    mean_y: float
    dispersion: float
    standardization: Standardization
    gram: np.ndarray | None

    def hessian(self) -> np.ndarray:
        """H = -w G (a new p x p array)."""
        if self.gram is None:
            raise ValueError("this expansion was computed without the Gram matrix (with_gram=False)")
        return -self.curvature * self.gram


def prior_mean_expansion(family, X, y, *, dispersion: float | None = None, with_gram: bool = True,
                         feature_names=None) -> PriorMeanExpansion:
    """b and H of the log-likelihood at theta-bar = (theta0-bar, 0, ..., 0), Eq. (17)-(19), (25)-(28).

    ``X`` is the raw design (dense or sparse); it is standardised here (population std), so the
    returned quantities refer to the standardised features. ``y`` must suit the family
    (0/1 for logistic, counts for poisson).
    """
    family = get_family(family) if isinstance(family, str) else family
    y = family.check_response(y)
    if X.shape[0] != y.size:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.size} entries")
    phi = resolve_dispersion(family, y, dispersion)
    stdz = standardize_columns(X, feature_names)
    mean_y = float(y.mean())
    b = standardized_cross(X, y - mean_y, stdz) / phi
    curvature = float(family.variance(mean_y)) / phi
    gram = standardized_gram(X, stdz) if with_gram else None
    return PriorMeanExpansion(
        family=family.name, n=int(y.size), p=int(X.shape[1]), b=b, curvature=curvature,
        intercept=matched_intercept(family, y), mean_y=mean_y, dispersion=phi,
        standardization=stdz, gram=gram,
    )


def expansion_from_moments(family, mom, *, dispersion: float | None = None,
                           feature_names=None) -> PriorMeanExpansion:
    """The same expansion as :func:`prior_mean_expansion` from row sums alone
    (:class:`fsengine.chunked.Moments` of a design too large for memory): with the population
    std ``s_j = sqrt(M2_jj / n)``, ``G = M2 / (s s')`` and ``b = cxy / s / phi``, since
    ``Z'(y - mean y) = sum_t (x_t - mean)(y_t - mean y) / s``.

    The family's checks of y see y's extremes and integrality (what the moments keep)."""
    family = get_family(family) if isinstance(family, str) else family
    n = int(mom.n)
    if n < 2:
        raise ValueError(f"The {family.name} family needs at least 2 observations, got {n}.")
    family.check_response(np.array([mom.y_min, mom.y_max] + ([] if mom.y_integer else [0.5])))
    if family.name == "linear" and dispersion is None:
        dispersion = mom.m2y / n  # Var[y], population
    phi = resolve_dispersion(family, None, dispersion)
    const = np.flatnonzero(mom.x_max == mom.x_min)
    if const.size:
        raise ConstantFeatureError(const, feature_names)
    scale = np.sqrt(np.diag(mom.m2) / n)
    gram = mom.m2 / scale[:, None]
    gram /= scale[None, :]
    return PriorMeanExpansion(
        family=family.name, n=n, p=int(mom.mean.size), b=mom.cxy / scale / phi,
        curvature=float(family.variance(mom.mean_y)) / phi, intercept=float(family.link(mom.mean_y)),
        mean_y=float(mom.mean_y), dispersion=phi, standardization=Standardization(mean=mom.mean, scale=scale),
        gram=np.ascontiguousarray(gram),
    )
