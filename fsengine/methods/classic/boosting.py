"""AdaBoost with decision stumps (Jaakkola, lecture 12, Eq. 23-34).

Two classes (y in {-1, 1}), exactly the lecture's algorithm:

    (0) W_0(t) = 1/n
    (1) h_m = the stump minimising  -sum_t W_{m-1}(t) y_t h(x_t) = 2 eps_m - 1            (32)
    (2) alpha_m = 0.5 log((1 - eps_m) / eps_m)                                           (33)
    (3) W_m(t) = c_m W_{m-1}(t) exp(-y_t alpha_m h_m(x_t))                               (34)

and the training loss (Eq. 24, 27) J_m / n = (1/n) sum_t exp(-y_t h_m(x_t)) with the ensemble
h_m = sum_j alpha_j h(x; theta_j) (Eq. 23, 26).

K > 2 classes use the multi-class exponential loss of SAMME (Zhu, Zou, Rosset & Hastie 2009),
which reduces to the above at K = 2: labels and stump outputs are coded as vectors with 1 for the
class and -1/(K-1) elsewhere, the loss is exp(-(1/K) y^T f(x)), a correct vote multiplies the
example's loss by exp(-alpha/(K-1)) and a wrong one by exp(alpha/(K-1)^2), and the closed-form
minimiser over alpha is alpha_m = ((K-1)^2 / K) (log((1 - eps_m)/eps_m) + log(K - 1)).
The ensemble predicts the class with the largest total alpha of stumps voting for it. The trace's
``sign`` is the s of Eq. (21) for two classes (+1: the positive class is predicted above the
threshold) and 0 for K > 2, where ``left_class`` / ``right_class`` describe the stump.

Boosting stops early when no stump beats chance (eps_m >= 1 - 1/K) or a stump is perfect
(eps_m = 0, where alpha is computed with eps clipped to 1e-10), or when the progress callback
(``progress(fraction, message)``, called after every round) raises
:class:`~fsengine.progress.StopRequested`: the rounds run so far are a valid ensemble and are kept
(``stop_reason`` "stop requested").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from fsengine.methods.classic.binary import class_codes
from fsengine.methods.classic.stumps import Stump, find_stump, sorted_columns
from fsengine.progress import Progress, StopRequested, report_to

EPS_FLOOR = 1e-10


def stump_alpha(error: float, n_classes: int) -> float:
    """Eq. (33) for K = 2; the SAMME generalisation ((K-1)^2/K)(log((1-e)/e) + log(K-1)) otherwise."""
    e = min(max(error, EPS_FLOOR), 1.0 - EPS_FLOOR)
    K = n_classes
    return (K - 1) ** 2 / K * (np.log((1.0 - e) / e) + np.log(K - 1))


def log_loss_factor(alpha: float, wrong: np.ndarray, n_classes: int) -> np.ndarray:
    """log of the factor in Eq. (34): -alpha y h for K = 2; -alpha/(K-1) or alpha/(K-1)^2 in general."""
    K = n_classes
    return np.where(wrong, alpha / (K - 1) ** 2, -alpha / (K - 1))


@dataclass(frozen=True)
class BoostingRun:
    """Stumps, votes and the per-round record of one AdaBoost run."""

    stumps: list[Stump]
    alphas: np.ndarray
    classes: np.ndarray
    trace: pd.DataFrame
    stop_reason: str

    def decision_votes(self, X) -> np.ndarray:
        """(n, K) total alpha voting for each class (Eq. 23 without the normalisation)."""
        votes = np.zeros((X.shape[0], self.classes.size))
        rows = np.arange(X.shape[0])
        for stump, alpha in zip(self.stumps, self.alphas):
            votes[rows, stump.predict_codes(X)] += alpha
        return votes

    def predict(self, X) -> np.ndarray:
        return self.classes[np.argmax(self.decision_votes(X), axis=1)]


def adaboost_stumps(X, y, *, n_estimators: int = 50, progress: Progress | None = None) -> BoostingRun:
    """Run AdaBoost with weighted-error stumps for ``n_estimators`` rounds (or until it stops)."""
    codes, classes = class_codes(y)
    K, n = classes.size, codes.size
    columns = sorted_columns(X)
    report = report_to(progress)
    log_w = np.zeros(n)  # log of the unnormalised weights W_m(t) = per-example loss
    votes = np.zeros((n, K))
    rows = np.arange(n)
    stumps, alphas, records = [], [], []
    stop = f"ran all {n_estimators} rounds"
    try:
        for m in range(n_estimators):
            weights = np.exp(log_w - logsumexp(log_w))  # normalised W~_{m-1}
            stump = find_stump(columns, codes, weights, K)
            if stump.feature < 0:
                stop = "no feature has two distinct values"
                break
            if stump.error >= 1.0 - 1.0 / K - 1e-12:
                stop = f"round {m + 1}: no stump beats chance (weighted error {stump.error:.4f})"
                break
            alpha = stump_alpha(stump.error, K)
            predicted = stump.predict_codes(X)
            wrong = predicted != codes
            log_w = log_w + log_loss_factor(alpha, wrong, K)
            votes[rows, predicted] += alpha
            stumps.append(stump)
            alphas.append(alpha)
            records.append({
                "round": m + 1, "feature": stump.feature, "threshold": stump.threshold,
                "left_class": classes[stump.left_class], "right_class": classes[stump.right_class],
                "sign": (1 if stump.right_class > stump.left_class else -1) if K == 2 else 0,
                "weighted_error": stump.error, "alpha": alpha,
                "train_loss": float(np.exp(logsumexp(log_w) - np.log(n))),
                "train_error": float(np.mean(np.argmax(votes, axis=1) != codes)),
            })
            if stump.error <= EPS_FLOOR:
                stop = f"round {m + 1}: perfect stump (weighted error 0)"
                break
            report((m + 1) / n_estimators, f"boosting round {m + 1} of {n_estimators}")
    except StopRequested:
        stop = "stop requested"
    columns_order = ["round", "feature", "threshold", "left_class", "right_class", "sign",
                     "weighted_error", "alpha", "train_loss", "train_error"]
    return BoostingRun(stumps, np.asarray(alphas), classes,
                       pd.DataFrame.from_records(records, columns=columns_order), stop)
