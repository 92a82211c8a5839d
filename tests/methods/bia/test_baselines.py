"""Baselines of the BIA (fsengine.methods.bia.baselines): correlation screening and the agreement
of the BIA's top k with it along the path, against hand counts."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

from fsengine.methods.bia.baselines import SCREENING, correlation_scores, departure_ratio, path_agreement


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
