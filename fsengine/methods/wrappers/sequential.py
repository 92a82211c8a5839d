"""Sequential forward selection: the greedy wrapper of scikit-learn's ``SequentialFeatureSelector``
(``direction="forward"``), driven step by step so that the order of the additions and every
candidate's cross-validated score are kept (scikit-learn's class keeps only the final mask).

With S_0 = {} and a model, a scorer s and K folds (train_f, test_f), step t adds

    j_t = argmax_{j in C \\ S_{t-1}}  (1/K) sum_f s(model fitted on (X[train_f], S_{t-1} + j), X[test_f], S_{t-1} + j)

over the candidates C (ties go to the lower feature index: scikit-learn takes the first maximum of
the candidates in index order). This is the loop of ``SequentialFeatureSelector.fit`` with an
integer ``n_features_to_select``; the tests check the same selected set at every size.

Standardisation within the folds: with ``scale=True`` the candidate columns are standardised on
each training fold (mean 0, variance 1, scikit-learn's ``StandardScaler``) and the test fold with
the same statistics, once per fold; the model then sees exactly what
``make_pipeline(StandardScaler(), model)`` would give it inside ``cross_val_score`` (the scaler acts
column by column), without refitting the scaler for every candidate.

The gain of step t is score(S_t) - score(S_{t-1}), with score(S_0) the cross-validated score of
the intercept-only model (``DummyClassifier(strategy="prior")``: class frequencies of the training
fold); the gain of a candidate never added is measured at the last step, against S_{n-1}.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.preprocessing import StandardScaler

from fsengine.progress import StopRequested, report_to


@dataclass(frozen=True)
class ForwardPath:
    """The record of a forward selection over p features (T steps, K folds).

    order             (T,) the features in the order they were added
    scores            (T,) the mean cross-validated score after each addition
    fold_scores       (T, K) its score on every fold
    candidate_scores  (T, p) the mean score of adding each candidate at each step (NaN: already
                      selected, or no candidate)
    baseline          the score of the intercept-only model; baseline_folds (K,) per fold
    candidates        the candidate features, ascending
    stop_reason       why the selection stopped, in words
    """

    order: np.ndarray
    scores: np.ndarray
    fold_scores: np.ndarray
    candidate_scores: np.ndarray
    baseline: float
    baseline_folds: np.ndarray
    candidates: np.ndarray
    stop_reason: str

    @property
    def gains(self) -> np.ndarray:
        """(T,) score(S_t) - score(S_{t-1}) of every step."""
        return np.diff(np.concatenate([[self.baseline], self.scores]))

    def last_step_gains(self) -> np.ndarray:
        """(p,) each candidate's gain at the last step, against S_{T-1} (NaN for no candidate;
        the baseline's gains when no step was completed)."""
        if self.order.size == 0:
            return np.full(self.candidate_scores.shape[1], np.nan)
        before = self.baseline if self.order.size == 1 else self.scores[-2]
        return self.candidate_scores[-1] - before


def neg_log_loss(model, X, y) -> float:
    """scikit-learn's ``neg_log_loss`` scorer without its input validation (the dominant cost of a
    step on a small model): -(1/n) sum_i -log clip(P(y_i | x_i), eps, 1 - eps), the same operations as
    ``sklearn.metrics.log_loss``, so the same float."""
    proba = model.predict_proba(X)
    eps = np.finfo(proba.dtype).eps
    true = np.clip(proba[np.arange(y.size), np.searchsorted(model.classes_, y)], eps, 1 - eps)
    return -float(np.mean(-np.log(true)))


def accuracy(model, X, y) -> float:
    """scikit-learn's ``accuracy`` scorer without its input validation."""
    return float(np.mean(model.predict(X) == y))


#: scorers computed here (the same numbers as scikit-learn's, tested); others come from sklearn.metrics.get_scorer
FAST_SCORERS = {"neg_log_loss": neg_log_loss, "accuracy": accuracy}


def _fold_blocks(X, y, folds, scale: bool):
    """(X_train, y_train, X_test, y_test) of every fold: dense, standardised on the training fold
    when ``scale``."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    blocks = []
    for train, test in folds:
        A, B = X[train], X[test]
        if scale:
            scaler = StandardScaler().fit(A)
            A, B = scaler.transform(A), scaler.transform(B)
        blocks.append((A, y[train], B, y[test]))
    return blocks


def _cv_scores(estimator, scorer, blocks, columns) -> np.ndarray:
    """The scorer's value on every fold of the model fitted on ``columns`` of the training fold."""
    out = np.empty(len(blocks))
    for f, (A, ya, B, yb) in enumerate(blocks):
        model = clone(estimator).fit(A[:, columns], ya)
        out[f] = scorer(model, B[:, columns], yb)
    return out


def forward_selection(X, y, *, estimator, scorer, folds, candidates, n_steps: int, scale: bool = True,
                      progress=None) -> ForwardPath:
    """Add ``n_steps`` features one at a time from ``candidates`` (module docstring).

    ``X`` (n, p) dense or sparse (the candidate columns are densified), ``folds`` a list of
    (train, test) row indices, ``scorer(model, X, y)`` a scikit-learn scorer. ``progress(fraction,
    message)`` is told during every step; a :class:`~fsengine.progress.StopRequested` it raises ends
    the selection with the steps completed (``stop_reason`` "stop requested").
    """
    report = report_to(progress)
    p = X.shape[1]
    candidates = np.sort(np.asarray(candidates, dtype=np.intp))
    n_steps = min(int(n_steps), candidates.size)
    blocks = _fold_blocks(X[:, candidates], np.asarray(y), folds, scale)
    baseline_folds = _cv_scores(DummyClassifier(strategy="prior"), scorer, blocks, np.arange(candidates.size))
    chosen: list[int] = []  # positions in ``candidates``
    scores, fold_scores, candidate_scores = [], [], []
    stop_reason = f"{n_steps} feature{'s' if n_steps != 1 else ''} selected (n_features_to_select)"
    every = max(1, candidates.size // 10)
    try:
        for t in range(1, n_steps + 1):
            row = np.full(p, np.nan)
            best, best_score, best_folds = -1, -np.inf, None
            remaining = [c for c in range(candidates.size) if c not in set(chosen)]
            for i, c in enumerate(remaining):
                folds_c = _cv_scores(estimator, scorer, blocks, chosen + [c])
                row[candidates[c]] = folds_c.mean()
                if row[candidates[c]] > best_score:  # strict: ties keep the lower index
                    best, best_score, best_folds = c, row[candidates[c]], folds_c
                if (i + 1) % every == 0 and i + 1 < len(remaining):
                    report((t - 1 + (i + 1) / len(remaining)) / n_steps,
                           f"step {t} of {n_steps}: {i + 1} of {len(remaining)} candidates scored")
            if best < 0:  # every candidate scored NaN
                best, best_folds = remaining[0], np.full(len(blocks), np.nan)
                best_score = np.nan
            chosen.append(best)
            scores.append(best_score)
            fold_scores.append(best_folds)
            candidate_scores.append(row)
            report(t / n_steps, f"step {t} of {n_steps}: feature {int(candidates[best])} added "
                                f"(cross-validated score {best_score:.4g})")
    except StopRequested:
        stop_reason = "stop requested"
    return ForwardPath(order=candidates[np.asarray(chosen, dtype=np.intp)], scores=np.asarray(scores, dtype=float),
                       fold_scores=np.asarray(fold_scores, dtype=float).reshape(len(chosen), len(blocks)),
                       candidate_scores=np.asarray(candidate_scores, dtype=float).reshape(len(chosen), p),
                       baseline=float(baseline_folds.mean()), baseline_folds=baseline_folds,
                       candidates=candidates, stop_reason=stop_reason)
