"""Data-page statistics against independent references, and the pure figure builders."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_selection import f_classif

from fsengine.data import Dataset, Provenance
from fsengine.data.summary import abs_correlation, class_means, feature_table, fisher_scores
from fsengine.plots import data as plots


@pytest.fixture
def xy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 6))
    y = np.repeat([0, 1, 2], 30)
    X[:, 1] += y                       # informative
    X[:, 4] = (rng.random(90) < 0.3)   # binary, sparse-ish
    return X, y


def test_fisher_score_is_anova_f_rescaled(xy):
    X, y = xy
    n, k = len(y), 3
    F, _ = f_classif(X, y)
    np.testing.assert_allclose(fisher_scores(X, y) * (n - k) / (k - 1), F, rtol=1e-10)
    np.testing.assert_allclose(fisher_scores(sp.csr_matrix(X), y), fisher_scores(X, y), rtol=1e-10)


def test_fisher_score_edge_cases():
    X = np.array([[1.0, 0.0, 5.0], [1.0, 0.0, 5.0], [1.0, 1.0, 7.0], [1.0, 1.0, 7.0]])
    y = np.array([0, 0, 1, 1])
    s = fisher_scores(X, y)
    assert s[0] == 0.0 and np.isinf(s[1]) and np.isinf(s[2])   # constant; perfect separators


def test_abs_correlation_matches_numpy(xy):
    X, _ = xy
    target = X[:, 1] * 2 - X[:, 3] + np.linspace(0, 1, 90)
    ref = [abs(np.corrcoef(X[:, j], target)[0, 1]) for j in range(6)]
    np.testing.assert_allclose(abs_correlation(X, target), ref, rtol=1e-10)
    np.testing.assert_allclose(abs_correlation(sp.csr_matrix(X), target), ref, rtol=1e-10)
    assert abs_correlation(np.ones((5, 1)), np.arange(5.0))[0] == 0.0


def test_class_means_and_feature_table(xy):
    X, y = xy
    labels, means = class_means(sp.csr_matrix(X), y)
    assert labels.tolist() == [0, 1, 2]
    np.testing.assert_allclose(means[2], X[y == 2].mean(axis=0))
    ds = Dataset(X=sp.csr_matrix(X), y=y, feature_names=tuple("abcdef"), provenance=Provenance("t"), name="t")
    table = feature_table(ds)
    np.testing.assert_allclose(table["std"], X.std(axis=0), rtol=1e-9)
    np.testing.assert_allclose(table["min"], X.min(axis=0))
    np.testing.assert_allclose(table["max"], X.max(axis=0))
    np.testing.assert_allclose(table["nonzero share"], (X != 0).mean(axis=0))
    assert table.columns[-1] == "Fisher score"
    reg = Dataset(X=X, y=X[:, 1], feature_names=tuple("abcdef"), provenance=Provenance("t"), name="r",
                  task="regression")
    assert feature_table(reg).columns[-1] == "|correlation with target|"


def test_image_grid_layout_and_gaps():
    X = np.arange(6 * 4, dtype=float).reshape(6, 4) / 23
    y = np.array([0, 0, 0, 1, 1, 1])
    fig = plots.image_grid(X, y, (2, 2), ["a", "b"], per_class=2, seed=1)
    z = np.array(fig.data[0].z, dtype=float)
    assert z.shape == (2 * 3 - 1, 2 * 3 - 1)
    assert np.isnan(z[2]).all() and np.isnan(z[:, 2]).all()        # 1-px gaps between tiles
    tiles = {tuple(z[:2, :2].ravel()), tuple(z[:2, 3:].ravel())}
    assert tiles <= {tuple(r) for r in X[:3]}                      # row "a" shows class-a images
    assert list(fig.layout.yaxis.ticktext) == ["a", "b"]


def test_top_features_orders_and_marks_perfect_separators():
    scores = np.array([0.5, np.inf, 2.0, np.nan, 1.0])
    fig = plots.top_features(list("abcde"), scores, "S", top=3)
    bar = fig.data[0]
    assert list(bar.y)[::-1] == ["b", "c", "e"]
    assert list(bar.text)[::-1] == ["perfect", "2", "1"]
    assert bar.x[-1] == pytest.approx(2.2)                         # inf drawn at 1.1 x max finite


def test_class_balance_and_mean_images():
    fig = plots.class_balance({"neg": 30, "pos": 10})
    assert list(fig.data[0].text) == ["30 (75%)", "10 (25%)"]
    means = np.array([[0.0, 1.0, 0.5, 0.5], [1.0, 0.0, 0.5, 0.25]])
    panels = plots.class_mean_images(means, (2, 2), ["B", "D"])
    assert len(panels.data) == 3
    np.testing.assert_allclose(np.array(panels.data[2].z).ravel(), means[1] - means[0])
    assert panels.data[2].zmid == 0
    assert len(plots.class_mean_images(np.vstack([means, means]), (2, 2), list("ABCD")).data) == 4


def test_word_frequencies_picks_words_typical_of_each_class():
    words = ["good", "bad", "film", "dull"]
    share = np.array([[0.1, 0.8, 0.5, 0.6],      # class neg
                      [0.9, 0.1, 0.5, 0.2]])     # class pos
    fig = plots.word_frequencies(words, share, ["neg", "pos"], top=2)
    neg_panel = [t for t in fig.data if t.xaxis == "x" and t.name == "neg"][0]
    pos_panel = [t for t in fig.data if t.xaxis == "x2" and t.name == "pos"][0]
    assert list(neg_panel.y)[::-1] == ["bad", "dull"]
    assert list(pos_panel.y)[::-1] == ["good", "film"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plots.target_histogram(np.linspace(0, 1, 50))
        plots.feature_map(np.array([0.0, 1.0, np.inf, 2.0]), (2, 2), "S")
