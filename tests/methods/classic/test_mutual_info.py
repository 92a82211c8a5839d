"""Naive Bayes mutual information (Jaakkola Eq. 2) against direct counting and scikit-learn."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import chi2
from sklearn.feature_selection import mutual_info_classif
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import Binarizer

from fsengine.data.corpora import read_movie_reviews
from fsengine.data.features import word_presence_tags
from fsengine.data.transforms import binarize_input
from fsengine.methods.classic.binary import binary_indicator, csc01
from fsengine.methods.classic.mutual_info import mutual_information
from fsengine.selectors import MutualInfoSelector
from tests.conftest import require_real


def entropy_of(values) -> float:
    """Plain empirical entropy (nats) of a discrete sample, by np.unique counting."""
    _, counts = np.unique(values, return_counts=True)
    q = counts / counts.sum()
    return float(-(q * np.log(q)).sum())


def direct_mi(X, y) -> np.ndarray:
    """Eq. (2) column by column: H(X) - H(X|Y) with H(X|Y) = sum_c P(c) H(X | Y = c)."""
    y = np.asarray(y)
    out = []
    for j in range(X.shape[1]):
        x = X[:, j]
        h_cond = sum(np.mean(y == c) * entropy_of(x[y == c]) for c in np.unique(y))
        out.append(entropy_of(x) - h_cond)
    return np.array(out)


def planted(n=400, p=30, K=2, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    X = (rng.random((n, p)) < 0.3).astype(float)
    for j in range(4):  # features 0..3 copy (y == 1) with decreasing fidelity
        X[:, j] = np.where(rng.random(n) < 0.9 - 0.1 * j, y == 1, X[:, j])
    X[:, 5] = 1.0  # constant: MI 0
    return X, y


@pytest.mark.parametrize("K", [2, 4])
@pytest.mark.parametrize("sparse", [False, True])
def test_mi_matches_direct_counts_and_sklearn(K, sparse):
    X, y = planted(K=K, seed=K)
    Xin = sp.csr_matrix(X) if sparse else X
    result = mutual_information(binary_indicator(Xin), y)
    np.testing.assert_allclose(result.mi, direct_mi(X, y), atol=1e-13)
    sk = mutual_info_classif(Xin, y, discrete_features=True)
    np.testing.assert_allclose(result.mi, sk, atol=1e-13)
    np.testing.assert_allclose(result.h_x - result.h_x_given_y, result.mi, atol=1e-15)
    assert result.mi[5] == 0.0
    assert np.argsort(-result.mi)[:4].tolist() == [0, 1, 2, 3]


def test_minus_one_one_encoding_is_the_same_model():
    X, y = planted()
    np.testing.assert_allclose(mutual_information(binary_indicator(2 * X - 1), y).mi,
                               mutual_information(binary_indicator(X), y).mi, atol=0)


def test_non_binary_input_is_binarised_by_default_or_refused_with_advice():
    X, y = planted()
    Xc = X + np.random.default_rng(0).normal(size=X.shape)
    with pytest.raises(ValueError, match="MutualInfoSelector needs binary features.*binarize_features"):
        MutualInfoSelector(binarize=None).fit(Xc, y)
    bad_sparse = sp.csr_matrix(np.array([[0.0, 2.0], [1.0, 0.0], [0.0, -1.0]]))
    with pytest.raises(ValueError, match="needs binary features"):
        binary_indicator(bad_sparse)
    sel = MutualInfoSelector().fit(Xc, y)  # binarize="auto", the rule of the app and the command line
    assert str(sel.binarization_) == "features binarised as x > column median"
    medians = np.median(Xc, axis=0)
    np.testing.assert_array_equal(sel.binarization_.threshold, medians)
    np.testing.assert_allclose(sel.scores_, direct_mi((Xc > medians).astype(float), y), atol=1e-13)
    X01, rule = binarize_input(Xc, "auto")
    assert rule == sel.binarization_
    np.testing.assert_allclose(sel.scores_, mutual_information(csc01(X01), y).mi)
    kept = MutualInfoSelector().fit(X, y).binarization_
    assert kept.threshold is None and kept.note is None
    fixed = MutualInfoSelector(binarize=0.3).fit(Xc, y)
    np.testing.assert_allclose(fixed.scores_, direct_mi((Xc > 0.3).astype(float), y), atol=1e-13)
    assert str(fixed.binarization_) == "features binarised as x > 0.3"


def test_selector_support_by_bonferroni_test_and_budget_and_pipeline():
    X, y = planted(n=600)
    sel = MutualInfoSelector().fit(X, y)
    assert set(sel.get_support(indices=True)) == {0, 1, 2, 3}
    g = 2 * 600 * sel.scores_  # likelihood-ratio test of the 2 x 2 table, one degree of freedom
    np.testing.assert_allclose(sel.pvalues_, chi2.sf(g, 1), rtol=1e-10, atol=1e-300)
    assert sel.order_[:4].tolist() == [0, 1, 2, 3]
    trace = sel.trace_
    assert trace["feature"].tolist() == sel.order_.tolist()
    assert np.all(np.diff(trace["mi"]) <= 0)
    # G = 2 n I is the likelihood-ratio statistic of the 2 x K table
    np.testing.assert_allclose(trace["g_statistic"], 2 * 600 * trace["mi"])
    assert MutualInfoSelector(n_features_to_select=2).fit(X, y).get_support(indices=True).tolist() == [0, 1]
    pipe = Pipeline([("bin", Binarizer(threshold=0.5)), ("mi", MutualInfoSelector(n_features_to_select=3)),
                     ("clf", LogisticRegression())])
    assert pipe.fit(X, y).score(X, y) > 0.85


@pytest.mark.slow  # the real corpus: about 5 s
def test_movie_review_vocabulary_matches_sklearn():
    reviews = require_real(read_movie_reviews)
    X, vocab = word_presence_tags(reviews.texts, min_df=20)
    y = np.asarray(reviews.labels)
    cols = np.arange(0, X.shape[1], max(1, X.shape[1] // 300))
    ours = mutual_information(binary_indicator(X), y).mi
    sk = mutual_info_classif(X[:, cols], y, discrete_features=True)
    np.testing.assert_allclose(ours[cols], sk, atol=1e-12)
    top = [vocab[j] for j in np.argsort(-ours)[:30]]
    assert {"bad", "worst"} & set(top), top
