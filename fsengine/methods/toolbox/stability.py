"""Stability selection (N. Meinshausen and P. Bühlmann, "Stability selection", J. R. Statist. Soc. B
72 (2010) 417-473).

For a grid Λ of L1 penalties and B random subsamples I_b of size floor(n / 2) drawn without
replacement, the selection probability of feature j at penalty λ is estimated as

    Π_j(λ) = (1 / B) #{b : j ∈ Ŝ^λ(I_b)}                                  (paper, Eq. 7)

where Ŝ^λ(I) are the features with a non-zero coefficient of the L1 fit (L1 logistic regression
for class labels, its intercept unpenalised as in the paper's L1 fit, one-versus-rest for more than
two classes; the lasso for a real target) on the rows I. The logistic fits of one subsample are one
path over the grid, each C warm-started from the previous one (our coordinate-descent solver,
:mod:`fsengine.methods.classic.l1_solver`; liblinear from scratch at each C, with its penalised
intercept, before). The stable set is

    Ŝ_stable = {j : max_{λ ∈ Λ} Π_j(λ) >= π_thr}                          (paper, Eq. 8)

with π_thr in (1/2, 1) (the paper finds results insensitive within 0.6-0.9). Theorem 1 bounds the
expected number V of falsely selected features (under exchangeability of the noise features and a
selection procedure no worse than random guessing):

    E[V] <= q_Λ^2 / ((2 π_thr - 1) p)

where q_Λ = E|∪_{λ ∈ Λ} Ŝ^λ(I)| is the average number of features selected anywhere on the grid by
a half-sample fit, estimated here by its mean over the B subsamples.

The grid: C (the inverse penalty of scikit-learn's ``LogisticRegression``; for the lasso
alpha = alpha_max / (C / C_min)) runs geometrically from the point where the full-data fit selects
nothing (``sklearn.svm.l1_min_c``, or alpha_max = max_j |x_j^T (y - ȳ)| / n) up to ``C_span`` times
it. Features are standardised once on all rows, so one penalty means the same for every feature.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso
from sklearn.svm import l1_min_c

from fsengine.methods.classic.l1_solver import binary_l1_logistic_path

Progress = Callable[[float, str], None]

SUPPORT_TOL = 1e-6  # the L1 logistic fits' largest relative violation of Eq. (19)


@dataclass(frozen=True)
class StabilityPath:
    """Selection probabilities along the penalty grid.

    Cs              (L,) inverse penalties, strongest penalty first
    probabilities   (L, p) Π_j at every C
    mean_selected   (L,) average number of features a half-sample fit selects at every C
    union_sizes     (B,) features selected anywhere on the grid, per half-sample (q_Λ is their mean)
    """

    Cs: np.ndarray
    probabilities: np.ndarray
    mean_selected: np.ndarray
    union_sizes: np.ndarray

    @property
    def max_probability(self) -> np.ndarray:
        """max_λ Π_j(λ) of every feature (the score of Eq. 8)."""
        return self.probabilities.max(axis=0)

    @property
    def q(self) -> float:
        """The estimated q_Λ: mean number of features selected anywhere on the grid per half-sample."""
        return float(self.union_sizes.mean())


def error_bound(q: float, pi_threshold: float, p: int) -> float:
    """Theorem 1's bound on the expected number of false selections, q^2 / ((2 π_thr - 1) p).

    >>> round(error_bound(5.0, 0.75, 50), 3)
    1.0
    """
    if not 0.5 < pi_threshold <= 1.0:
        raise ValueError(f"pi_threshold={pi_threshold}: the bound needs a threshold in (0.5, 1]")
    return q**2 / ((2.0 * pi_threshold - 1.0) * p)


def standardise(X):
    """Columns scaled to unit standard deviation (dense X also centred; sparse X only scaled, to stay
    sparse); constant columns are left at zero spread (the L1 fit never selects them)."""
    if sp.issparse(X):
        X = sp.csc_matrix(X, dtype=np.float64)
        mean = np.asarray(X.mean(axis=0)).ravel()
        std = np.sqrt(np.maximum(np.asarray(X.multiply(X).mean(axis=0)).ravel() - mean**2, 0.0))
        return (X @ sp.diags(1.0 / np.where(std > 0, std, 1.0))).tocsr()
    X = np.asarray(X, dtype=np.float64)
    std = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)


def half_samples(y, n_resamples: int, seed: int, *, stratify: bool) -> list[np.ndarray]:
    """``n_resamples`` sorted row subsets of size floor(n / 2) drawn without replacement; with
    ``stratify`` every class is halved (its floor(n_c / 2) rows), so each subsample holds every class."""
    rng = np.random.default_rng(seed)
    n = len(y)
    if not stratify:
        return [np.sort(rng.choice(n, size=n // 2, replace=False)) for _ in range(n_resamples)]
    groups = [np.flatnonzero(y == c) for c in np.unique(y)]
    return [np.sort(np.concatenate([rng.choice(g, size=max(1, g.size // 2), replace=False) for g in groups]))
            for _ in range(n_resamples)]


def penalty_grid(X, y, *, classification: bool, n_Cs: int, C_span: float) -> np.ndarray:
    """``n_Cs`` values of C from the full-data fit's empty model up to ``C_span`` times it
    (for the lasso, C stands for alpha_max / alpha with C_min = 1)."""
    if classification:
        c0 = l1_min_c(X, y, loss="log", fit_intercept=True)
    else:
        c0 = 1.0
    return c0 * np.geomspace(1.0, C_span, n_Cs)


def _alpha_max(X, y) -> float:
    yc = np.asarray(y, dtype=np.float64) - np.mean(y)
    return float(np.max(np.abs(np.asarray(X.T @ yc).ravel())) / len(yc))


def _logistic_supports(X, codes, n_classes: int, Cs: np.ndarray) -> np.ndarray:
    """(L, p): the features with a non-zero coefficient of L1 logistic regression (Eq. 18 of
    Jaakkola's lecture 12, the intercept unpenalised as in the paper's L1 fit) at every C of the
    ascending grid ``Cs``, one warm-started path
    (:func:`~fsengine.methods.classic.l1_solver.binary_l1_logistic_path`, Eq. 19 to ``SUPPORT_TOL``
    relative to lambda); one-versus-rest paths for more than two classes, a feature counting when
    any class uses it (a class absent from the rows has no fit)."""
    targets = [codes] if n_classes == 2 else [codes == k for k in range(n_classes)]
    used = np.zeros((Cs.size, X.shape[1]), dtype=bool)
    for target in targets:
        if np.unique(target).size < 2:
            continue
        used |= binary_l1_logistic_path(X, target, Cs, tol=SUPPORT_TOL).coefs != 0
    return used


def _lasso_supports(X, y, alphas: np.ndarray) -> np.ndarray:
    """(L, p): the features with a non-zero lasso coefficient at every alpha (descending), each fit
    warm-started from the previous one (scikit-learn's ``Lasso``)."""
    lasso = Lasso(alpha=float(alphas[0]), warm_start=True, max_iter=5000, tol=1e-4)
    chosen = np.zeros((alphas.size, X.shape[1]), dtype=bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a weak-penalty fit on half the rows: its support counts
        for i, alpha in enumerate(alphas):
            chosen[i] = lasso.set_params(alpha=float(alpha)).fit(X, y).coef_ != 0
    return chosen


def selection_probabilities(X, y, *, classification: bool, Cs: np.ndarray, subsamples: list[np.ndarray],
                            progress: Progress | None = None) -> StabilityPath:
    """Π_j(C) of Eq. (7) on standardised ``X`` for every C of ``Cs`` (ascending: strongest penalty
    first) over the rows of each subsample, the whole grid of one subsample as one warm-started
    path. ``progress(fraction, message)`` after every subsample."""
    Cs = np.asarray(Cs, dtype=np.float64)
    L, p, B = len(Cs), X.shape[1], len(subsamples)
    counts = np.zeros((L, p))
    union = np.zeros(B)
    if classification:
        classes, codes = np.unique(y, return_inverse=True)
    else:
        alphas = _alpha_max(X, y) / (Cs / Cs[0])
    for b, rows in enumerate(subsamples):
        Xb = X[rows]
        if classification:
            chosen = _logistic_supports(Xb, codes[rows], classes.size, Cs)
        else:
            chosen = _lasso_supports(Xb, y[rows], alphas)
        counts += chosen
        union[b] = np.any(chosen, axis=0).sum()
        if progress is not None:
            progress((b + 1) / B, f"half-sample {b + 1} of {B}")
    probabilities = counts / B
    return StabilityPath(Cs=Cs, probabilities=probabilities,
                         mean_selected=probabilities.sum(axis=1), union_sizes=union)
