"""Baselines of the BIA (fsengine.methods.bia.baselines): correlation screening, the agreement
of the BIA's top k with it along the path, and the nested CV of top-k rankings, against hand counts
and a t interval written out."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata
from scipy.stats import t as t_dist
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold

from fsengine.methods.bia.baselines import (
    SCREENING,
    correlation_scores,
    departure_ratio,
    nested_top_k_cv,
    path_agreement,
)
from fsengine.ranking import top_k


def test_correlation_scores_are_absolute_pearson_correlations():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 5))
    y = (X[:, 1] - X[:, 3] + rng.normal(size=80) > 0).astype(float)
    expected = [abs(np.corrcoef(X[:, j], y)[0, 1]) for j in range(5)]
    np.testing.assert_allclose(correlation_scores(X, y), expected, rtol=1e-12)


def test_path_agreement_counts_common_features_at_the_nearest_rows():
    ratios = np.array([8.0, 4.0, 2.0, 1.0, 0.5])
    # feature 0 leads at large Lambda, feature 3 takes over below Lambda/Lambda* = 2
    post = np.array([[0.9, 0.8, 0.1, 0.2],
                     [0.9, 0.8, 0.1, 0.3],
                     [0.9, 0.8, 0.1, 0.5],
                     [0.6, 0.8, 0.1, 0.95],
                     [0.5, 0.8, 0.1, 0.99]])
    path = pd.DataFrame(post, index=pd.Index(ratios, name="lambda_ratio"))
    screening = np.array([0.7, 0.6, 0.1, 0.2])  # top 2: features 0 and 1
    table = path_agreement(path, {SCREENING: screening}, k=2, ratios=[9.0, 1.1, 0.45, 0.9])
    assert table.lambda_ratio.tolist() == [8.0, 1.0, 0.5]  # nearest rows, once each, largest first
    assert table[f"overlap with {SCREENING}"].tolist() == [1.0, 0.5, 0.5]
    for _, row in table.iterrows():
        p = post[list(ratios).index(row.lambda_ratio)]
        spearman = np.corrcoef(rankdata(p), rankdata(screening))[0, 1]
        assert row["Spearman with screening"] == pytest.approx(spearman)
    assert departure_ratio(table) == 1.0
    assert len(path_agreement(path, {SCREENING: screening}, k=2)) == 5  # every row by default
    assert departure_ratio(table.iloc[:1]) is None


def test_nested_cv_ranks_inside_each_training_fold_and_pairs_the_folds():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 8))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=120) > 0).astype(int)
    seen = []

    def rankings(X_train, y_train, fold_seed):
        seen.append((X_train.shape[0], fold_seed, X_train[:3].copy()))
        return {"screening": correlation_scores(X_train, y_train), "last two": np.arange(8.0),
                "everything": None}

    cv = nested_top_k_cv(X, y, rankings, 2, reference="screening", n_splits=4, n_repeats=3, seed=1)
    assert [s[1] for s in seen] == list(range(12)) and all(s[0] == 90 for s in seen)  # training rows only
    folds = cv.folds
    assert len(folds) == 36 and cv.methods == ["screening", "last two", "everything"]
    assert folds.groupby("method").size().eq(12).all() and set(folds["n_test"]) == {30}
    # one fold by hand: the same split, the ranking from the training rows, a logistic regression
    train, test = list(RepeatedStratifiedKFold(n_splits=4, n_repeats=3, random_state=1).split(X, y))[5]
    cols = top_k(correlation_scores(X[train], y[train]), 2)
    clf = LogisticRegression(max_iter=2000).fit(X[np.ix_(train, cols)], y[train])
    row = folds[(folds["repeat"] == 1) & (folds["fold"] == 1) & (folds["method"] == "screening")].iloc[0]
    assert row.n_correct == int(np.sum(clf.predict(X[np.ix_(test, cols)]) == y[test])) and row.overlap == 1.0
    last = folds[folds["method"] == "last two"]
    assert (last["overlap"] <= 1.0).all() and folds[folds["method"] == "everything"]["overlap"].isna().all()
    acc = folds[folds["method"] == "screening"]["accuracy"].to_numpy()
    other = last["accuracy"].to_numpy()
    assert cv.test_train_ratio == pytest.approx(30 / 90)
    est = cv.accuracy("screening")
    assert est.value == pytest.approx(acc.mean())
    half = t_dist.ppf(0.975, 11) * acc.std(ddof=1) * np.sqrt(1 / 12 + 30 / 90)
    assert (est.low, est.high) == pytest.approx((acc.mean() - half, acc.mean() + half))
    assert "corrected resampled t" in est.method and "4-fold CV repeated 3 times" in est.method
    diff = cv.difference("screening", "last two")
    d = acc - other
    half = t_dist.ppf(0.975, 11) * d.std(ddof=1) * np.sqrt(1 / 12 + 30 / 90)
    assert (diff.value, diff.low, diff.high) == pytest.approx((d.mean(), d.mean() - half, d.mean() + half))
    with pytest.raises(KeyError, match="no folds"):
        cv.accuracy("nothing")
    with pytest.raises(KeyError, match="reference ranking"):
        nested_top_k_cv(X, y, rankings, 2, reference="absent", n_splits=2)
