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

Fast path: for binary labels, a scikit-learn ``LogisticRegression`` with the L2 penalty, an
intercept and no class weights, and the scorers ``neg_log_loss`` or ``accuracy`` of
:data:`FAST_SCORERS`, every candidate of a step is fitted and scored on every fold in one call of a
numba kernel (:mod:`fsengine.methods.wrappers.logistic`: the same objective, Newton steps, line
search and convergence test as scikit-learn's ``newton-cholesky`` solver at the model's ``tol`` and
``max_iter``; a fit that does not converge there is refitted by scikit-learn). Every other model,
scorer, and more than two classes go through scikit-learn (clone, fit, score), candidate by
candidate.

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
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from fsengine.methods.wrappers.logistic import ACCURACY, NEG_LOG_LOSS, candidate_fold_scores
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
#: the scorers the numba kernel computes, by its codes
_KERNEL_SCORING = {neg_log_loss: NEG_LOG_LOSS, accuracy: ACCURACY}


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


def _kernel_solves(estimator, scorer, blocks) -> bool:
    """Whether the numba kernel computes what scikit-learn would (module docstring: binary L2
    logistic regression with an intercept and no class weights, a scorer of the kernel)."""
    if type(estimator) is not LogisticRegression or scorer not in _KERNEL_SCORING:
        return False
    params = estimator.get_params()
    l2 = params["penalty"] == "l2" or (params["penalty"] == "deprecated" and params["l1_ratio"] == 0)
    binary = all(np.unique(ya).size == 2 for _, ya, _, _ in blocks)
    return l2 and binary and params["fit_intercept"] and params["class_weight"] is None


def _batch_scores(estimator, scorer, blocks):
    """``scores(chosen, batch)``: the (len(batch), K) fold scores of adding each candidate of
    ``batch`` (positions of the candidate columns) to ``chosen``, by the numba kernel where it
    computes the same (:func:`_kernel_solves`), else by scikit-learn."""
    if not _kernel_solves(estimator, scorer, blocks):
        return lambda chosen, batch: np.array([_cv_scores(estimator, scorer, blocks, chosen + [c]) for c in batch])
    A, ya, B, yb = (np.concatenate(part) for part in zip(*blocks))
    positive = np.unique(ya)[1]  # scikit-learn's classes_[1]: the class of P(y = 1)
    ya, yb = (ya == positive).astype(np.float64), (yb == positive).astype(np.float64)
    a_start = np.cumsum([0] + [block[0].shape[0] for block in blocks])
    b_start = np.cumsum([0] + [block[2].shape[0] for block in blocks])
    A, B = np.ascontiguousarray(A, dtype=np.float64), np.ascontiguousarray(B, dtype=np.float64)
    params = estimator.get_params()

    def scores(chosen, batch):
        out, converged = candidate_fold_scores(A, ya, a_start, B, yb, b_start, np.asarray(chosen, dtype=np.intp),
                                               np.asarray(batch, dtype=np.intp), float(params["C"]),
                                               _KERNEL_SCORING[scorer], float(params["tol"]), int(params["max_iter"]))
        for i in np.flatnonzero(~converged.all(axis=1)):  # scikit-learn's L-BFGS fallback, warnings and all
            out[i] = _cv_scores(estimator, scorer, blocks, chosen + [batch[i]])
        return out

    return scores


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
    batch_scores = _batch_scores(estimator, scorer, blocks)
    every = max(1, candidates.size // 10)
    try:
        for t in range(1, n_steps + 1):
            row = np.full(p, np.nan)
            best, best_score, best_folds = -1, -np.inf, None
            remaining = [c for c in range(candidates.size) if c not in set(chosen)]
            for start in range(0, len(remaining), every):
                batch = remaining[start:start + every]
                for c, folds_c in zip(batch, batch_scores(chosen, batch)):
                    row[candidates[c]] = folds_c.mean()
                    if row[candidates[c]] > best_score:  # strict: ties keep the lower index
                        best, best_score, best_folds = c, row[candidates[c]], folds_c
                done = start + len(batch)
                if done < len(remaining):
                    report((t - 1 + done / len(remaining)) / n_steps,
                           f"step {t} of {n_steps}: {done} of {len(remaining)} candidates scored")
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
