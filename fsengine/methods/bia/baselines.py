"""What the BIA adds over simpler rankings, along its path (Fisher & Mehta 2015, Section 4).

At large Lambda the BIA's fields h_i are proportional to b_i^2 (Eq. 19: the squared score of
feature i at the null model, for standardised logistic data n^2 corr(x_i, y)^2 / 4 up to the
intercept term), so its ranking starts as *correlation screening*; the couplings J_ij only reorder
features as Lambda falls. This module puts numbers on that:

* :func:`baseline_orders`: correlation screening (|corr(x_j, y)|), the L1-logistic entry order
  (first C on a log grid at which the coefficient is non-zero, ties by |coef| there) and the
  |coefficient| of an L2 logistic regression on the standardised features;
* :func:`path_agreement`: for each Lambda/Lambda* on the BIA path, the overlap of the BIA's top k
  with each baseline's top k and the Spearman correlation of the posteriors with b^2 (i.e. with
  screening), and :func:`departure_ratio`, the largest Lambda/Lambda* at which the BIA's top k
  differs from screening's;
* :func:`nested_top_k_cv`: how well each ranking's top k classifies, with the ranking computed
  INSIDE each training fold (repeated stratified k-fold; a ranking computed on all rows would have
  seen the test fold), and :class:`NestedCV`, its per-fold counts with corrected resampled t
  intervals of each mean accuracy and of each paired difference.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold

from fsengine.methods.classic.l1_path import entry_scores
from fsengine.position import nearest_index
from fsengine.progress import Progress, report_to
from fsengine.ranking import top_k
from fsengine.stats import LEVEL, Estimate, paired_t_interval, t_interval

SCREENING, L1_ENTRY, LOGISTIC = "correlation screening", "L1 entry order", "logistic |coef|"


def _standardise(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def correlation_scores(X, y) -> np.ndarray:
    """|corr(x_j, y)| per feature (0 for constant features)."""
    Z = _standardise(X)
    yc = np.asarray(y, dtype=np.float64) - np.mean(y)
    return np.abs(Z.T @ yc) / (np.sqrt(np.sum(yc**2)) * np.sqrt(Z.shape[0]))


def l1_entry_scores(X, y, Cs=None) -> np.ndarray:
    """Earlier entry along the L1-logistic path of the standardised features = higher score
    (:func:`fsengine.methods.classic.l1_path.entry_scores` on C in 10^-3 .. 1, 12 values)."""
    return entry_scores(_standardise(X), y, np.logspace(-3, 0, 12) if Cs is None else Cs, max_iter=2000)


def logistic_scores(X, y, C: float = 1.0) -> np.ndarray:
    """|coefficient| of an L2 logistic regression (lbfgs) on the standardised features."""
    return np.abs(LogisticRegression(C=C, max_iter=5000).fit(_standardise(X), y).coef_.ravel())


def baseline_orders(X, y) -> dict[str, np.ndarray]:
    """Feature scores of each baseline (higher = more relevant)."""
    return {SCREENING: correlation_scores(X, y), L1_ENTRY: l1_entry_scores(X, y), LOGISTIC: logistic_scores(X, y)}


def path_agreement(path: pd.DataFrame, baselines: dict[str, np.ndarray], k: int,
                   ratios=None) -> pd.DataFrame:
    """One row per Lambda/Lambda* (``ratios``: the path rows nearest them on a log scale; default
    every row), largest first: overlap |top_k(BIA) & top_k(baseline)| / k per baseline and
    Spearman(BIA posteriors, b^2)."""
    grid = path.index.to_numpy()
    rows_at = range(len(grid)) if ratios is None else sorted({nearest_index(grid, r) for r in ratios})
    tops = {name: set(top_k(s, k).tolist()) for name, s in baselines.items()}
    screening = baselines[SCREENING]
    out = []
    for i in rows_at:
        post = path.iloc[i].to_numpy()
        bia_top = set(top_k(post, k).tolist())
        row = {"lambda_ratio": float(grid[i])}
        row.update({f"overlap with {name}": len(bia_top & t) / k for name, t in tops.items()})
        row["Spearman with screening"] = float(spearmanr(post, screening).statistic)
        out.append(row)
    return pd.DataFrame(out).sort_values("lambda_ratio", ascending=False, ignore_index=True)


def departure_ratio(agreement: pd.DataFrame) -> float | None:
    """The largest Lambda/Lambda* at which the BIA's top k is not screening's top k (None if it
    never departs on the path)."""
    col = f"overlap with {SCREENING}"
    differ = agreement.loc[agreement[col] < 1.0, "lambda_ratio"]
    return float(differ.max()) if len(differ) else None


@dataclass
class NestedCV:
    """Per-fold counts of :func:`nested_top_k_cv`: one row per (repeat, fold, ranking) with
    ``n_train``, ``n_test``, ``n_correct``, ``accuracy`` and ``overlap`` (the share of the ranking's
    top k among the reference ranking's top k in that fold; NaN for no selection)."""

    folds: pd.DataFrame
    n_splits: int
    n_repeats: int
    k: int

    @property
    def methods(self) -> list[str]:
        return list(dict.fromkeys(self.folds["method"]))

    def _accuracies(self, method: str) -> pd.Series:
        rows = self.folds[self.folds["method"] == method]
        if rows.empty:
            raise KeyError(f"no folds of {method!r}; have {self.methods}")
        return rows.set_index(["repeat", "fold"])["accuracy"]

    @property
    def test_train_ratio(self) -> float:
        """n_test / n_train of a fold (averaged over the folds), the correction's ratio."""
        return float((self.folds["n_test"] / self.folds["n_train"]).mean())

    @property
    def _what(self) -> str:
        return f"folds ({self.n_splits}-fold CV repeated {self.n_repeats} times)"

    def accuracy(self, method: str, level: float = LEVEL) -> Estimate:
        """Mean accuracy over the folds with the corrected resampled t interval (Nadeau & Bengio
        2003; for repeated k-fold as in Bouckaert & Frank 2004: variance (1/J + n_test/n_train) s^2,
        J - 1 degrees of freedom)."""
        return t_interval(self._accuracies(method).to_numpy(), level, test_train_ratio=self.test_train_ratio,
                          what=self._what)

    def difference(self, method: str, other: str, level: float = LEVEL) -> Estimate:
        """Mean of (accuracy of ``method`` - accuracy of ``other``) on the same folds, with the
        fold-paired corrected resampled t interval."""
        a, b = self._accuracies(method), self._accuracies(other)
        b = b.loc[a.index]
        return paired_t_interval(a.to_numpy(), b.to_numpy(), level, test_train_ratio=self.test_train_ratio,
                                 what=f"paired {self._what}")


def logistic_accuracy(X_train, y_train, X_test, y_test) -> int:
    """Correct predictions on the test rows of a logistic regression (scikit-learn defaults, C = 1,
    lbfgs) fitted on the training rows."""
    clf = LogisticRegression(max_iter=2000).fit(X_train, y_train)
    return int(np.sum(clf.predict(X_test) == y_test))


def nested_top_k_cv(X, y, rankings: Callable[[np.ndarray, np.ndarray, int], dict[str, np.ndarray | None]], k: int,
                    *, reference: str, n_splits: int = 5, n_repeats: int = 1, seed: int = 0,
                    progress: Progress | None = None) -> NestedCV:
    """Accuracy of a logistic regression on the top ``k`` features of each ranking, the rankings
    computed on the training rows of each fold only.

    ``rankings(X_train, y_train, fold_seed)`` returns ``{name: scores}`` (higher = more relevant;
    ``None``: no selection, every feature); ``fold_seed`` (0, 1, ...) seeds what is random in a
    ranking. Folds: ``RepeatedStratifiedKFold(n_splits, n_repeats, random_state=seed)``; every
    ranking sees the same folds, so differences are fold-paired. ``reference`` names the ranking
    whose top k the ``overlap`` column compares with.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    report = report_to(progress)
    splitter = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=seed)
    rows = []
    total = n_splits * n_repeats
    for i, (train, test) in enumerate(splitter.split(X, y)):
        repeat, fold = divmod(i, n_splits)
        scores = rankings(X[train], y[train], i)
        if reference not in scores:
            raise KeyError(f"the reference ranking {reference!r} is not among {list(scores)}")
        ref_top = set(top_k(scores[reference], k).tolist())
        for name, s in scores.items():
            cols = np.arange(X.shape[1]) if s is None else top_k(s, k)
            correct = logistic_accuracy(X[np.ix_(train, cols)], y[train], X[np.ix_(test, cols)], y[test])
            rows.append({"repeat": repeat, "fold": fold, "method": name, "n_train": train.size,
                         "n_test": test.size, "n_correct": correct, "accuracy": correct / test.size,
                         "overlap": np.nan if s is None else len(ref_top & set(cols.tolist())) / k})
        report((i + 1) / total, f"nested CV: fold {i + 1} of {total}")
    return NestedCV(folds=pd.DataFrame(rows), n_splits=n_splits, n_repeats=n_repeats, k=k)
