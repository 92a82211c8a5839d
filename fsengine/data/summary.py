"""Descriptive statistics of a Dataset for the Data page: per-feature moments and a one-feature
relevance preview (dense or sparse X, classification or regression).

Fisher score of feature j (between-class over within-class scatter; Duda, Hart & Stork 2001,
Sec. 3.8; the one-way ANOVA F statistic is F_j = S_j (n - k) / (k - 1)):

    S_j = sum_c n_c (mu_cj - mu_j)^2 / sum_c n_c sigma_cj^2

with n_c rows in class c, class means mu_cj, overall mean mu_j and class variances sigma_cj^2
(divided by n_c). For regression targets the preview is |Pearson correlation| with y.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from fsengine.data.dataset import Dataset


def _column_moments(X) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance of each column (dense or sparse)."""
    if sp.issparse(X):
        mean = np.asarray(X.mean(axis=0)).ravel()
        sq = np.asarray(X.multiply(X).mean(axis=0)).ravel()
        return mean, np.maximum(sq - mean**2, 0.0)
    X = np.asarray(X, dtype=np.float64)
    return X.mean(axis=0), X.var(axis=0)


def class_means(X, y) -> tuple[np.ndarray, np.ndarray]:
    """(labels, matrix k x p of per-class feature means)."""
    labels, inverse = np.unique(y, return_inverse=True)
    onehot = sp.csr_matrix((np.ones(len(y)), (inverse, np.arange(len(y)))), shape=(len(labels), len(y)))
    counts = np.asarray(onehot.sum(axis=1)).ravel()
    sums = onehot @ X
    sums = sums.toarray() if sp.issparse(sums) else np.asarray(sums)
    return labels, sums / counts[:, None]


def fisher_scores(X, y) -> np.ndarray:
    """S_j of the module docstring; 0 where a feature has no within-class spread and no
    between-class spread, +inf where it separates the classes perfectly (zero within-class
    scatter, nonzero between-class scatter)."""
    labels, inverse = np.unique(y, return_inverse=True)
    counts = np.bincount(inverse).astype(np.float64)
    _, means = class_means(X, y)
    overall, _ = _column_moments(X)
    between = (counts[:, None] * (means - overall) ** 2).sum(axis=0)
    sq = X.multiply(X) if sp.issparse(X) else np.asarray(X, dtype=np.float64) ** 2
    _, sq_means = class_means(sq, y)
    within = (counts[:, None] * np.maximum(sq_means - means**2, 0.0)).sum(axis=0)
    scale = np.maximum(between + within, 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.where(within <= 1e-12 * scale, np.where(between > 1e-12 * scale, np.inf, 0.0),
                         between / np.where(within > 0, within, 1.0))
    return score


def abs_correlation(X, y) -> np.ndarray:
    """|Pearson correlation| of each column with y (0 for constant columns)."""
    y = np.asarray(y, dtype=np.float64)
    mean, var = _column_moments(X)
    yc = y - y.mean()
    cov = (np.asarray(X.T @ yc).ravel()) / len(y)
    denom = np.sqrt(var * yc.var())
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denom > 0, np.abs(cov) / np.where(denom > 0, denom, 1.0), 0.0)


def relevance_preview(ds: Dataset) -> tuple[np.ndarray, str]:
    """One score per feature and its name: Fisher score (classes) or |correlation| (regression)."""
    if ds.task == "classification":
        return fisher_scores(ds.X, ds.y), "Fisher score"
    return abs_correlation(ds.X, ds.y), "|correlation with target|"


def feature_table(ds: Dataset) -> pd.DataFrame:
    """One row per feature: mean, std, min, max, share of nonzero values and the relevance preview."""
    X = ds.X
    mean, var = _column_moments(X)
    if sp.issparse(X):
        Xc = sp.csc_matrix(X)
        nnz = np.diff(Xc.indptr)
        dense_min = np.asarray(Xc.min(axis=0).toarray()).ravel()
        dense_max = np.asarray(Xc.max(axis=0).toarray()).ravel()
    else:
        nnz = np.count_nonzero(X, axis=0)
        dense_min, dense_max = X.min(axis=0), X.max(axis=0)
    score, score_name = relevance_preview(ds)
    return pd.DataFrame({
        "feature": list(ds.feature_names), "mean": mean, "std": np.sqrt(var), "min": dense_min,
        "max": dense_max, "nonzero share": nnz / max(ds.n_samples, 1), score_name: score,
    })


def class_labels(ds: Dataset) -> list[str]:
    """The class names in label order (empty for a regression target)."""
    if ds.task != "classification":
        return []
    return [ds.target_names[int(c)] if ds.target_names else str(c) for c in ds.classes]


def balance_note(counts) -> str:
    """What the class balance means for accuracies, from the counts per class."""
    counts = list(counts)
    text = (f"The majority class holds **{max(counts) / sum(counts):.0%}** of the rows: a classifier that "
            "always answers it scores that much, so compare accuracies with this baseline.")
    if max(counts) > 1.5 * min(counts):
        text += " The classes are unbalanced, so look at per-class errors too."
    return text


def sample_texts(ds: Dataset, label: str, n: int, width: int = 400) -> pd.DataFrame:
    """The first ``n`` documents of class ``label`` (all documents when the target has no
    classes), each cut at ``width`` characters."""
    classes = class_labels(ds)
    rows = [i for i in range(ds.n_samples) if not classes or classes[int(ds.y[i])] == label][:n]
    cut = [ds.texts[i][:width] + (" ..." if len(ds.texts[i]) > width else "") for i in rows]
    return pd.DataFrame({"class": [label] * len(rows), "text": cut})


def head_table(ds: Dataset, n_rows: int = 15, n_columns: int = 30) -> pd.DataFrame:
    """The first rows and columns of a table, with the target (class names) first."""
    classes = class_labels(ds)
    head = {name: ds.dense_X()[:n_rows, j] for j, name in enumerate(ds.feature_names[:n_columns])}
    return pd.DataFrame({"target": [classes[int(v)] if classes else v for v in ds.y[:n_rows]], **head})
