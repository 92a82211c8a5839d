"""Live check of the BIA on a small random subproblem against exact references.

For a few features drawn at random (p <= 12) the exact posterior over all 2^p subsets is
computed with an independent reference (closed-form evidence for the linear family, Laplace
evidence at the MAP for logistic and Poisson, :mod:`fsengine.references`) and set beside the
BIA's mean-field posterior and the exact marginals of the BIA's own Ising model (enumeration).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fsengine.methods.bia.model import build_bia_model, posterior_from_magnetization
from fsengine.position import Position
from fsengine.progress import Progress
from fsengine.references.ising_exact import exact_magnetizations
from fsengine.references.laplace_evidence import laplace_inclusion_probabilities
from fsengine.references.linear_evidence import linear_inclusion_probabilities
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
