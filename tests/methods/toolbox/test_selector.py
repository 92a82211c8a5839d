"""VarianceRankSelector: scikit-learn's estimator checks (it is how the shared base is checked),
dense and sparse agreement against numpy, and the selector dialect."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_selection import VarianceThreshold
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsengine.methods.registry import get_method
from fsengine.selectors import VarianceRankSelector


@parametrize_with_checks([VarianceRankSelector(), VarianceRankSelector(n_features_to_select=2)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_variance_selector_dense_sparse_agree_and_pipeline():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5)) * np.array([1.0, 3.0, 0.1, 2.0, 0.0])
    y = (X[:, 1] > 0).astype(int)
    dense = VarianceRankSelector(n_features_to_select=2).fit(X, y)
    sparse = VarianceRankSelector(n_features_to_select=2).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense.scores_, np.var(X, axis=0), rtol=1e-10)
    np.testing.assert_allclose(sparse.scores_, dense.scores_, rtol=1e-10, atol=1e-12)
    assert dense.order_[:2].tolist() == [1, 3]
    assert dense.get_support(indices=True).tolist() == [1, 3]
    pipe = Pipeline([("sel", VarianceRankSelector(n_features_to_select=2)), ("clf", LogisticRegression())])
    assert pipe.fit(X, y).score(X, y) > 0.9


def test_threshold_keeps_what_sklearn_variance_threshold_keeps():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 6)) * np.array([0.0, 0.2, 1.0, 0.5, 2.0, 0.05])
    for threshold in (0.0, 0.1, 0.5):
        ours = VarianceRankSelector(threshold=threshold).fit(X)
        theirs = VarianceThreshold(threshold=threshold).fit(X)
        np.testing.assert_array_equal(ours.get_support(), theirs.get_support())
    assert VarianceRankSelector().fit(X).order_[-1] == 0  # the constant column ranks last


def test_dialect_keyword_only_progress_and_registry_entry():
    with pytest.raises(TypeError):
        VarianceRankSelector(2)
    params = inspect.signature(VarianceRankSelector.__init__).parameters
    assert all(p.kind is p.KEYWORD_ONLY for name, p in params.items() if name != "self")
    seen = []
    X = np.arange(12.0).reshape(4, 3) ** 2
    VarianceRankSelector().fit(X, progress=lambda f, m: seen.append((f, m)))
    assert seen == [(1.0, "variances computed")]
    assert type(get_method("variance").build()) is VarianceRankSelector
