"""The toolbox selectors: scikit-learn's estimator checks (VarianceRankSelector is how the shared base
is checked), dense and sparse agreement against numpy, and the selector dialect (keyword-only
parameters, registry defaults, progress, stop requests, the task of the target)."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_selection import VarianceThreshold
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsengine import selectors
from fsengine.data import Dataset, Provenance
from fsengine.methods.registry import get_method, method_defaults
from fsengine.methods.run import fit_method
from fsengine.progress import StopRequested
from fsengine.selectors import (
    ANOVASelector,
    Chi2Selector,
    ForestSelector,
    MRMRSelector,
    PermutationSelector,
    RFESelector,
    StabilitySelector,
    VarianceRankSelector,
)


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


# ------------------------------------------------------------------ the toolbox reference methods
TOOLBOX = {"anova": ANOVASelector, "chi2": Chi2Selector, "forest": ForestSelector, "permutation": PermutationSelector,
           "rfe": RFESelector, "stability": StabilitySelector, "mrmr": MRMRSelector}


@parametrize_with_checks([ANOVASelector(), ANOVASelector(n_features_to_select=2), Chi2Selector(),
                          ForestSelector(n_estimators=10), PermutationSelector(n_repeats=2),
                          PermutationSelector(model="forest", n_estimators=10, n_repeats=2), RFESelector(),
                          StabilitySelector(n_resamples=5, n_Cs=3), MRMRSelector(max_features=3)])
def test_toolbox_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("key", list(TOOLBOX))
def test_toolbox_dialect_keyword_only_registry_defaults_and_entry(key):
    cls = TOOLBOX[key]
    with pytest.raises(TypeError):
        cls(None)
    params = inspect.signature(cls.__init__).parameters
    assert all(p.kind is p.KEYWORD_ONLY for name, p in params.items() if name != "self")
    assert inspect.signature(cls.fit).parameters["progress"].kind is inspect.Parameter.KEYWORD_ONLY
    defaults = cls().get_params()
    for name, value in method_defaults(key).items():
        assert defaults[name] == value, name
    spec = get_method(key)
    assert spec.factory == f"fsengine.selectors:{cls.__name__}" and type(spec.build()) is cls
    assert getattr(selectors, cls.__name__) is cls and cls.__name__ in selectors.__all__


def _classes(n=160, p=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 1] - X[:, 4] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


FAST = {"anova": {}, "chi2": {}, "forest": {"n_estimators": 20}, "permutation": {"n_repeats": 2},
        "rfe": {}, "stability": {"n_resamples": 10, "n_Cs": 4}, "mrmr": {"max_features": 4}}


@pytest.mark.parametrize("key", list(TOOLBOX))
def test_toolbox_progress_fractions_rise_to_one_and_a_stop_leaves_no_result(key):
    X, y = _classes()
    X = X - X.min(axis=0) if key == "chi2" else X  # chi2: non-negative
    seen = []
    sel = TOOLBOX[key](**FAST[key]).fit(X, y, progress=lambda f, m: seen.append((f, m)))
    fractions = np.array([f for f, _ in seen])
    assert fractions.size and np.all((fractions >= 0) & (fractions <= 1)) and fractions[-1] == pytest.approx(1.0)
    assert np.all(np.diff(fractions) >= -1e-12) and all(isinstance(m, str) and m for _, m in seen)
    assert set(sel.order_[:2].tolist()) == {1, 4}  # every method finds the two planted features

    def stop(fraction, message):
        raise StopRequested

    fresh = TOOLBOX[key](**FAST[key])
    if key == "mrmr":  # greedy: the sequence so far is a valid, shorter answer
        fresh.fit(X, y, progress=stop)
        assert fresh.stop_reason_ == "stop requested" and fresh.support_.sum() == 1
    else:
        with pytest.raises(StopRequested):
            fresh.fit(X, y, progress=stop)
        assert not hasattr(fresh, "scores_")


@pytest.mark.parametrize("key", ["anova", "forest", "permutation", "rfe", "stability"])
def test_task_auto_follows_the_target_and_fit_method_passes_the_dataset_task(key):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 5))
    y = 2.0 * X[:, 2] + 0.3 * rng.normal(size=150)
    sel = TOOLBOX[key](**FAST[key]).fit(X, y)
    assert sel.task_ == "regression" and sel.order_[0] == 2
    # whole-number targets look like classes to "auto"; a regression Dataset says what they are
    counts = np.round(np.exp(X[:, 2]) * 3)
    ds = Dataset(X=X, y=counts, feature_names=tuple("abcde"), provenance=Provenance("test"), name="counts",
                 task="regression")
    fit = fit_method(key, FAST[key], ds)
    assert fit.selector.task_ == "regression" and fit.order[0] == 2 and fit.params.get("task") == "auto"
