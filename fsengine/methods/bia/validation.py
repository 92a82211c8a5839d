"""Live check of the BIA on a small random subproblem against exact references.

For a few features drawn at random (p <= 12) the exact posterior over all 2^p subsets is
computed with an independent reference (closed-form evidence for the linear family, Laplace
evidence at the MAP for logistic and Poisson, :mod:`fsengine.references`) and set beside the
BIA's mean-field posterior and the exact marginals of the BIA's own Ising model (enumeration).

:func:`expansion_orders` splits the log-evidence of every subset into the second order in
eps = 1/Lambda that the BIA keeps and the first order it neglects, and
:meth:`ExpansionOrders.tolerance` turns the neglected order into the scale of the error it causes
in the posteriors: the tolerance of the reproduction's exact check, derived from the expansion
alone, never from the reference it is compared with.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fsengine.glm import prior_mean_expansion
from fsengine.methods.bia.model import build_bia_model, posterior_from_magnetization
from fsengine.position import Position
from fsengine.progress import Progress
from fsengine.references.ising_exact import exact_magnetizations
from fsengine.references.laplace_evidence import laplace_inclusion_probabilities
from fsengine.references.linear_evidence import linear_inclusion_probabilities
from fsengine.references.subsets import inclusion_probabilities, subset_masks
from fsengine.validation import as_binary_labels

#: Lambda/Lambda* values of the check (a decade above 1 plus the edge of the breakdown region)
DEFAULT_RATIOS = (0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0)
MAX_CHECK_FEATURES = 12
#: Laplace evidence needs one optimisation per subset and Lambda: keep its live check smaller
MAX_LAPLACE_CHECK_FEATURES = 10


@dataclass
class SubproblemCheck:
    """Posteriors of the subproblem: rows follow ``ratios`` (ascending), columns ``features``."""

    features: np.ndarray
    feature_names: list[str]
    ratios: np.ndarray
    lambda_star: float
    bia: np.ndarray
    ising: np.ndarray
    exact: np.ndarray
    exact_label: str

    @property
    def max_error(self) -> np.ndarray:
        """max_j |p_BIA - p_exact| per ratio."""
        return np.abs(self.bia - self.exact).max(axis=1)

    def position(self, lambda_ratio: float) -> Position:
        """The checked ratio nearest ``lambda_ratio`` (log scale): the check's own grid position of
        a path position's value, made once and passed to its figure and caption."""
        return Position.nearest(self.ratios, lambda_ratio)

    def caption(self, position: Position | None = None) -> str:
        """Lambda* of the subproblem and the largest error at the largest ratio (and at ``position``:
        an explorable figure names it at each of its positions instead)."""
        at = "" if position is None else (f" at the nearest checked Λ/Λ*: {self.max_error[position.index]:.2g};")
        return (f"Subproblem Λ* = {self.lambda_star:,.0f}. Largest |p_BIA − p_exact|{at} at Λ/Λ* = "
                f"{self.ratios[-1]:g}: {self.max_error[-1]:.2g}.")


def check_size_limit(family: str, n_usable: int) -> int:
    """The most features the live check may enumerate: :data:`MAX_CHECK_FEATURES` with the
    closed-form evidence (linear), :data:`MAX_LAPLACE_CHECK_FEATURES` with the Laplace evidence,
    and never more than the ``n_usable`` features there are.

    >>> check_size_limit("linear", 40), check_size_limit("logistic", 40), check_size_limit("poisson", 3)
    (12, 10, 3)
    """
    return min(MAX_CHECK_FEATURES if family == "linear" else MAX_LAPLACE_CHECK_FEATURES, int(n_usable))


def pick_features(X, n_features: int, seed: int, candidates=None) -> np.ndarray:
    """``n_features`` random non-constant columns (sorted), reproducible by ``seed``; drawn from
    ``candidates`` (column indices) when given, else from all columns."""
    if not 1 <= n_features <= MAX_CHECK_FEATURES:
        raise ValueError(f"The exact check enumerates 2^p subsets; choose 1 to {MAX_CHECK_FEATURES} "
                         f"features (got {n_features}).")
    pool = np.arange(X.shape[1]) if candidates is None else np.asarray(candidates, dtype=np.intp)
    Xd = X[:, pool]
    Xd = Xd.toarray() if sp.issparse(Xd) else np.asarray(Xd)
    usable = pool[np.ptp(Xd, axis=0) > 0]
    if usable.size < n_features:
        raise ValueError(f"Only {usable.size} non-constant features available for the check.")
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(usable, size=n_features, replace=False))


def check_subproblem(X, y, family: str, features, feature_names=None, *, ratios=DEFAULT_RATIOS,
                     progress: Progress | None = None) -> SubproblemCheck:
    """BIA vs exact posteriors on the columns ``features`` of X, at Lambda/Lambda* = ``ratios``
    (Lambda* of the subproblem).

    For the logistic family y may hold any two class labels (mapped to 0/1 as the selector does).
    ``progress(fraction, message)`` follows the Laplace evidence (the closed form is immediate).
    """
    y = as_binary_labels(y)[0] if family == "logistic" else np.asarray(y, dtype=np.float64)
    features = np.asarray(features, dtype=np.intp)
    Xs = X[:, features]
    Xs = Xs.toarray() if sp.issparse(Xs) else np.asarray(Xs, dtype=np.float64)
    ratios = np.asarray(ratios, dtype=np.float64)
    names = [str(feature_names[j]) if feature_names is not None else f"x{j}" for j in features]
    model = build_bia_model(Xs, y, family)
    bia, ising = [], []
    m = None
    for r in ratios[np.argsort(-ratios)]:  # from weak to strong couplings, warm-started
        sol = model.solve(r, m0=m)
        m = sol.m
        bia.append((r, sol.posterior))
        ising.append((r, posterior_from_magnetization(
            exact_magnetizations(model.fields(r), model.couplings_at(r))[0])))
    by_ratio = lambda pairs: np.array([p for _, p in sorted(pairs, key=lambda t: t[0])])
    order = np.argsort(ratios)
    lambdas = ratios[order] * model.lambda_star
    if family == "linear":
        exact, label = linear_inclusion_probabilities(Xs, y, lambdas), "exact (closed-form evidence)"
    else:
        exact = laplace_inclusion_probabilities(Xs, y, family, lambdas, progress=progress)
        label = "exact (Laplace evidence)"
    return SubproblemCheck(features=features, feature_names=names, ratios=ratios[order],
                           lambda_star=model.lambda_star, bia=by_ratio(bia), ising=by_ratio(ising),
                           exact=exact, exact_label=label)


# --- the error scale of the neglected orders -------------------------------------------------------

def third_cumulant(family: str, mean_y: float, dispersion: float = 1.0) -> float:
    """l'''(eta-bar) / phi of one row at the matched intercept: ``-V(mu) V'(mu) / phi`` for a canonical
    link (logistic ``-mu (1 - mu) (1 - 2 mu)``, Poisson ``-mu``, linear 0).

    >>> third_cumulant("logistic", 0.5), third_cumulant("poisson", 2.0), third_cumulant("linear", 3.0)
    (0.0, -2.0, 0.0)
    """
    mu = float(mean_y)
    if family == "logistic":
        return -mu * (1.0 - mu) * (1.0 - 2.0 * mu) / dispersion + 0.0  # + 0.0: no -0.0 at mu = 1/2
    if family == "poisson":
        return -mu / dispersion
    if family == "linear":
        return 0.0
    raise ValueError(f"unknown family {family!r}")


@dataclass
class ExpansionOrders:
    """The log-evidence of every subset of a small problem (relative to the empty one), split by
    order in eps = 1/Lambda: ``second`` is what the BIA keeps (Eq. 8), ``third`` the first order it
    neglects; rows follow ``lambdas``, columns the subsets of ``masks``. ``x = eps ||H||`` per
    Lambda: the ratio of successive orders of the series."""

    masks: np.ndarray
    lambdas: np.ndarray
    second: np.ndarray
    third: np.ndarray
    x: np.ndarray

    def marginals(self) -> np.ndarray:
        """p(s_j = 1 | y) of the second-order model by enumeration, (len(lambdas), p): the exact
        marginals of the BIA's own Ising model."""
        return inclusion_probabilities(self.second, self.masks)

    def tolerance(self) -> np.ndarray:
        """Per Lambda, the scale of |p_Ising - p_exact| that the neglected orders produce (see
        :func:`expansion_orders`): ``max_j sqrt(p_j (1 - p_j)) SD_P(R3) / (1 - x)``; inf where x >= 1."""
        w = np.exp(self.second - self.second.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        mean = np.sum(w * self.third, axis=1, keepdims=True)
        sd = np.sqrt(np.sum(w * (self.third - mean) ** 2, axis=1))
        p = w @ self.masks.astype(np.float64)
        scale = np.sqrt(p * (1.0 - p)).max(axis=1) * sd
        with np.errstate(divide="ignore"):
            return np.where(self.x < 1.0, scale / (1.0 - self.x), np.inf)


def expansion_orders(X, y, family: str, lambdas) -> ExpansionOrders:
    r"""The second-order log-evidence the BIA keeps and the first order it neglects, for every
    subset of the (few) columns of ``X``.

    With b, H the gradient and Hessian at the prior mean (standardised columns z, matched
    intercept) and eps = 1/Lambda, the evidence of Eq. (5) expands as

        log p(y|S) = sum_k eps^k Tr H_S^k / (2k) + sum_k eps^{k+1} b_S' H_S^k b_S / 2,

    of which Eq. (8) keeps eps and eps^2. The first neglected order is

        R3(S) = eps^3 (Tr H_S^3 / 6 + b_S' H_S^2 b_S / 2)
                + kappa3 (eps^3 / 6 sum_t (z_tS . b_S)^3 + eps^2 / 2 sum_t |z_tS|^2 (z_tS . b_S)),

    the second line from the likelihood's cubic term at the mode eps b_S and its curvature there
    (kappa3 = l'''(eta-bar), :func:`third_cumulant`; zero for the linear family and for balanced
    logistic data). Each further order of the series is smaller by at most x = eps ||H||_2.

    Error scale. The exact posterior over subsets is ``P ~ exp(E2 + R)`` with E2 the second-order
    log-evidence and R = R3 + (higher orders). To first order in R a marginal moves by
    ``Cov_P(t_j, R)``, and by Cauchy-Schwarz ``|Cov_P(t_j, R)| <= sqrt(p_j (1 - p_j)) SD_P(R)``;
    summing the geometric tail of the orders gives the scale
    ``max_j sqrt(p_j (1 - p_j)) SD_P(R3) / (1 - x)`` (:meth:`ExpansionOrders.tolerance`). It uses
    only the expansion itself (b, H, kappa3 and the second-order model's own P), never the
    reference it is compared with; it is a leading-order scale, not a bound.
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    exp = prior_mean_expansion(family, Xd, y)
    Z = (Xd - exp.standardization.mean) / exp.standardization.scale
    H, b = exp.hessian(), exp.b
    kappa3 = third_cumulant(family, exp.mean_y, exp.dispersion)
    masks = subset_masks(Xd.shape[1])
    coef = np.zeros((masks.shape[0], 8))  # TrH, bb, TrH2, bHb, TrH3, bH2b, sum (z.b)^3, sum |z|^2 (z.b)
    for t in range(1, masks.shape[0]):
        idx = np.flatnonzero(masks[t])
        Hs, bs, Zs = H[np.ix_(idx, idx)], b[idx], Z[:, idx]
        H2 = Hs @ Hs
        zb = Zs @ bs
        coef[t] = (np.trace(Hs), bs @ bs, np.trace(H2), bs @ Hs @ bs, np.trace(H2 @ Hs), bs @ H2 @ bs,
                   np.sum(zb**3), np.sum(np.sum(Zs * Zs, axis=1) * zb))
    eps = 1.0 / np.atleast_1d(np.asarray(lambdas, dtype=np.float64))[:, None]
    second = eps / 2 * (coef[:, 0] + coef[:, 1]) + eps**2 / 2 * (coef[:, 2] / 2 + coef[:, 3])
    third = (eps**3 * (coef[:, 4] / 6 + coef[:, 5] / 2)
             + kappa3 * (eps**3 / 6 * coef[:, 6] + eps**2 / 2 * coef[:, 7]))
    norm = float(np.linalg.norm(H, 2)) if H.size else 0.0
    return ExpansionOrders(masks=masks, lambdas=eps.ravel() ** -1, second=second, third=third,
                           x=eps.ravel() * norm)
